/* colfs: a Kudu container's metadata file: the protobuf container's
 * framing (magic, version, CRC-32C of lengths and bodies), its records
 * (CREATE and DELETE of blocks, applied as the log block manager does),
 * and the blocks checked against the data file.  The other files of the
 * module read a container or a superblock through it. */
#include "kudu_int.h"
#include "../core/buf.h"


/* ------------------------------------------------------------------------
 * Finding the pair
 */
bool kudu_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcmp(s + n - m, suffix) == 0;
}

bool kudu_starts_with_magic(const char *path)
{
	char head[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	bool yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		   pread(fd, head, 8, 0) == 8 && memcmp(head, KUDU_MAGIC, 8) == 0;
	close(fd);
	return yes;
}

/* ------------------------------------------------------------------------
 * Reading the metadata
 */
void kudu_meta_report(colfs_tree *t, const char *path, colfs_status st,
			uint64_t moff, const char *what)
{
	/* A container's metadata file is not the tree's source: the offset
	 * is given in the message (docs/kudu-tree.md).  A superblock is. */
	const kudu_state *k = state_of(t);
	colfs_tree_report_path(t, path,
			       k && k->tablet ? moff : COLFS_OFFSET_UNKNOWN, st,
			       "metadata file offset %llu (0x%llx): %s",
			       (unsigned long long)moff,
			       (unsigned long long)moff, what);
}

colfs_status kudu_meta_read(kudu_state *k, uint64_t max_alloc,
			      colfs_err *err)
{
	int fd = open(k->meta_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return colfs_fail(err, errno == ENOENT ? COLFS_ENOENT : COLFS_EIO,
				  0, "metadata file %s: %s", k->meta_path,
				  strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return colfs_fail(err, COLFS_EIO, 0,
				  "metadata file %s: not a regular file",
				  k->meta_path);
	}
	if ((uint64_t)st.st_size > max_alloc) {
		close(fd);
		return colfs_fail(err, COLFS_EOVERFLOW, 0,
				  "metadata file %s: %lld bytes, over max_alloc",
				  k->meta_path, (long long)st.st_size);
	}
	k->meta_len = (size_t)st.st_size;
	k->meta = malloc(k->meta_len ? k->meta_len : 1);
	if (!k->meta) {
		close(fd);
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	}
	size_t done = 0;
	while (done < k->meta_len) {
		ssize_t n = pread(fd, k->meta + done, k->meta_len - done,
				  (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	k->meta_len = done;
	return COLFS_OK;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static kudu_record *record_new(kudu_state *k, uint64_t off)
{
	if (!colfs_grow((void **)&k->recs, &k->caprecs, k->nrecs + 1,
			sizeof *k->recs))
		return NULL;
	kudu_record *r = &k->recs[k->nrecs++];
	memset(r, 0, sizeof *r);
	r->off = off;
	return r;
}

long kudu_block_find_live(const kudu_state *k, uint64_t id)
{
	for (size_t i = k->nblocks; i-- > 0;)
		if (k->blocks[i].id == id && k->blocks[i].delete_rec < 0)
			return (long)i;
	return -1;
}

/* One BlockRecordPB, as Kudu's log block manager applies it at startup. */
static colfs_status record_apply(colfs_tree *t, kudu_state *k, size_t ri)
{
	kudu_record *r = &k->recs[ri];
	char path[400], name[32];
	snprintf(path, sizeof path, "%s/records/%zu", k->prefix, ri);
	block_name(r->id, name, sizeof name);

	if (r->op == KUDU__FS__BLOCK_RECORD_TYPE__CREATE) {
		if (!r->has_off || !r->has_len || r->boff < 0 || r->blen < 0) {
			kudu_meta_report(t, path, COLFS_ECORRUPT, r->off,
				    "CREATE record without a valid offset and length");
			return COLFS_OK;
		}
		uint64_t off = (uint64_t)r->boff, len = (uint64_t)r->blen;
		if (len > 0 && (off > k->data_size || len > k->data_size - off)) {
			colfs_tree_report_path(t, path, off, COLFS_EBOUNDS,
					       "block %s: bytes %llu..%llu lie outside the data file of %llu bytes",
					       name, (unsigned long long)off,
					       (unsigned long long)(off + len),
					       (unsigned long long)k->data_size);
			return COLFS_OK;
		}
		if (kudu_block_find_live(k, r->id) >= 0) {
			char what[128];
			snprintf(what, sizeof what,
				 "CREATE of block %s, which already exists", name);
			kudu_meta_report(t, path, COLFS_ECORRUPT, r->off, what);
			return COLFS_OK;
		}
		if (!colfs_grow((void **)&k->blocks, &k->capblocks,
				k->nblocks + 1, sizeof *k->blocks))
			return COLFS_ENOMEM;
		kudu_block *b = &k->blocks[k->nblocks++];
		memset(b, 0, sizeof *b);
		b->id = r->id;
		b->off = off;
		b->len = len;
		b->create_rec = ri;
		b->delete_rec = -1;
		k->live++;
	} else if (r->op == KUDU__FS__BLOCK_RECORD_TYPE__DELETE) {
		long i = kudu_block_find_live(k, r->id);
		if (i < 0) {
			char what[128];
			snprintf(what, sizeof what,
				 "DELETE of block %s, which does not exist", name);
			kudu_meta_report(t, path, COLFS_ECORRUPT, r->off, what);
			return COLFS_OK;
		}
		k->blocks[i].delete_rec = (long)ri;
		k->live--;
		k->deleted++;
	} else {
		char what[96];
		snprintf(what, sizeof what, "record of unknown type %d", r->op);
		kudu_meta_report(t, path, COLFS_ECORRUPT, r->off, what);
	}
	return COLFS_OK;
}

/* The records, as Kudu's ReadPBStartingAt frames them. */
static colfs_status records_read(colfs_tree *t, kudu_state *k,
				 uint64_t max_alloc, colfs_err *err)
{
	size_t hdr = k->version == 1 ? 4 : 8;
	uint64_t pos = k->version == 1 ? 12 : 16;
	const uint8_t *m = k->meta;

	while (pos < k->meta_len) {
		char path[400];
		size_t left = k->meta_len - pos;
		snprintf(path, sizeof path, "%s/records/%zu", k->prefix, k->nrecs);
		if (left < hdr) {
			kudu_meta_report(t, path, COLFS_ETRUNCATED, pos,
				    "truncated last record: its length field is cut short");
			break;
		}
		if (k->version == 2 && all_zero(m + pos, hdr) &&
		    all_zero(m + pos, left)) {
			kudu_meta_report(t, path, COLFS_ETRUNCATED, pos,
				    "truncated last record: the rest of the file is zero bytes (an incomplete write)");
			break;
		}
		uint32_t len = le32(m + pos);
		if (k->version == 2) {
			uint8_t lb[4];
			memcpy(lb, m + pos, 4);
			uint32_t want = le32(m + pos + 4);
			uint32_t got = colfs_crc32c(0, lb, 4);
			if (want != got) {
				char what[160];
				snprintf(what, sizeof what,
					 "length checksum mismatch: stored %08x, the length %u gives %08x; the records from here on cannot be framed",
					 want, len, got);
				kudu_meta_report(t, path, COLFS_ECORRUPT, pos + 4,
					    what);
				break;
			}
		}
		if ((uint64_t)len + 4 > left - hdr) {
			char what[160];
			snprintf(what, sizeof what,
				 "truncated last record: a body of %u bytes and its checksum, %zu bytes left",
				 len, left - hdr);
			kudu_meta_report(t, path, COLFS_ETRUNCATED, pos, what);
			break;
		}
		kudu_record *r = record_new(k, pos);
		if (!r)
			return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
		r->body_off = pos + hdr;
		r->body_len = len;
		r->framed = true;
		uint64_t cpos = r->body_off + len;
		uint32_t want = le32(m + cpos), got;
		if (k->version == 1)
			got = colfs_crc32c(0, m + pos, 4 + (size_t)len);
		else
			got = colfs_crc32c(0, m + r->body_off, len);
		pos = cpos + 4;
		if (want != got) {
			char what[160];
			snprintf(what, sizeof what,
				 "record checksum mismatch: stored %08x, the %s gives %08x",
				 want, k->version == 1 ? "length and body" : "body",
				 got);
			kudu_meta_report(t, path, COLFS_ECORRUPT, cpos, what);
			r->problem = "checksum mismatch";
			if (k->version == 1)
				break; /* the length itself is unchecked */
			continue;
		}
		size_t ri = k->nrecs - 1;
		colfs_proto_msg pm = {0};
		size_t cap = colfs_proto_cap(len, max_alloc);
		if (ri == 0) {
			if (colfs_proto_unpack_status(
				    &pm, &kudu__fs__container_sup_header_pb__descriptor,
				    m + r->body_off, len, cap) != COLFS_OK) {
				kudu_meta_report(t, path, COLFS_ECORRUPT, r->body_off,
					    "the supplemental header is not a ContainerSupHeaderPB");
				r->problem = "not a ContainerSupHeaderPB";
				continue;
			}
			const Kudu__Fs__ContainerSupHeaderPB *h =
				(const void *)pm.msg;
			k->pb_type = strdup(h->pb_type ? h->pb_type : "");
			colfs_proto_free(&pm);
			if (!k->pb_type)
				return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
			if (strcmp(k->pb_type, k->tablet ? "kudu.tablet.TabletSuperBlockPB"
							 : "kudu.BlockRecordPB") != 0)
				return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
						  "a Kudu protobuf container of %.100s records: colfs reads block container metadata (kudu.BlockRecordPB) and tablet superblocks (kudu.tablet.TabletSuperBlockPB)",
						  k->pb_type);
			r->ok = true;
			continue;
		}
		if (k->tablet) {
			/* decoded whole by kudu_tablet_open: the last one counts */
			r->ok = true;
			continue;
		}
		if (colfs_proto_unpack_status(
			    &pm, &kudu__fs__block_record_pb__descriptor,
			    m + r->body_off, len, cap) != COLFS_OK) {
			kudu_meta_report(t, path, COLFS_ECORRUPT, r->body_off,
				    "not a BlockRecordPB");
			r->problem = "not a BlockRecordPB";
			continue;
		}
		const Kudu__Fs__BlockRecordPB *br = (const void *)pm.msg;
		r->ok = true;
		r->op = br->op_type;
		r->id = br->block_id ? br->block_id->id : 0;
		r->has_off = br->has_offset;
		r->has_len = br->has_length;
		r->boff = br->offset;
		r->blen = br->length;
		colfs_proto_free(&pm);
		COLFS_TRY(record_apply(t, k, ri));
	}
	return COLFS_OK;
}

/* Do the bytes of [off, off + len) of the data file read as zeros (holes
 * skipped with SEEK_DATA)?  False when they cannot be looked at. */
static bool range_zero(colfs_source *src, uint64_t off, uint64_t len)
{
	int fd = colfs_source_fd(src);
	uint64_t end = off + len;
	uint8_t buf[16384];
	if (fd < 0)
		return false;
	while (off < end) {
		off_t d = lseek(fd, (off_t)off, SEEK_DATA);
		if (d < 0 || (uint64_t)d >= end)
			return d >= 0 || errno == ENXIO;
		off_t h = lseek(fd, d, SEEK_HOLE);
		uint64_t stop = h < 0 || (uint64_t)h > end ? end : (uint64_t)h;
		for (uint64_t p = (uint64_t)d; p < stop;) {
			size_t n = stop - p < sizeof buf ? (size_t)(stop - p)
							 : sizeof buf;
			if (colfs_source_read_at(src, p, n, buf, NULL) != COLFS_OK ||
			    !all_zero(buf, n))
				return false;
			p += n;
		}
		off = stop;
	}
	return true;
}

int kudu_block_cmp(const void *a, const void *b)
{
	const kudu_block *x = *(kudu_block *const *)a;
	const kudu_block *y = *(kudu_block *const *)b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Live blocks sorted by offset (malloc'd), NULL when out of memory. */
static kudu_block **live_sorted(kudu_state *k)
{
	kudu_block **v = malloc((k->live + 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < k->nblocks; i++)
		if (k->blocks[i].delete_rec < 0)
			v[n++] = &k->blocks[i];
	qsort(v, n, sizeof *v, kudu_block_cmp);
	return v;
}

colfs_status kudu_blocks_check(colfs_tree *t, kudu_state *k,
				 colfs_source *src)
{
	for (size_t i = 0; i < k->nblocks; i++) {
		kudu_block *b = &k->blocks[i];
		if (b->delete_rec >= 0 && range_zero(src, b->off, b->len)) {
			b->punched = true;
			k->punched++;
		}
	}
	kudu_block **v = live_sorted(k);
	if (!v)
		return COLFS_ENOMEM;
	uint64_t end = 0;
	const kudu_block *last = NULL;
	for (size_t i = 0; i < k->live; i++) {
		char a[32], b[32];
		if (last && v[i]->len && v[i]->off < end) {
			block_name(v[i]->id, a, sizeof a);
			block_name(last->id, b, sizeof b);
			colfs_tree_report_path(t, k->prefix, v[i]->off, COLFS_ECORRUPT,
					       "blocks overlap: block %s (%llu bytes) starts inside block %s (bytes %llu..%llu)",
					       a, (unsigned long long)v[i]->len,
					       b, (unsigned long long)last->off,
					       (unsigned long long)end);
		}
		if (v[i]->off + v[i]->len > end) {
			end = v[i]->off + v[i]->len;
			last = v[i];
		}
	}
	free(v);
	/* holes of the data file */
	int fd = colfs_source_fd(src);
	for (uint64_t pos = 0; fd >= 0 && pos < k->data_size;) {
		off_t h = lseek(fd, (off_t)pos, SEEK_HOLE);
		if (h < 0 || (uint64_t)h >= k->data_size)
			break;
		off_t d = lseek(fd, h, SEEK_DATA);
		uint64_t e = d < 0 ? k->data_size : (uint64_t)d;
		k->hole_bytes += e - (uint64_t)h;
		pos = e;
	}
	return COLFS_OK;
}

kudu_state *kudu_tablet_state(colfs_tree *t, uint64_t tablet)
{
	kudu_state *k = state_of(t);
	return k->root ? k->root->tab[tablet].st : k;
}

/* The protobuf container in k->meta: header, then every record. */
colfs_status kudu_pbc_read(colfs_tree *t, kudu_state *k, const char *meta,
			     uint64_t max_alloc, colfs_err *err)
{
	if (k->meta_len < 12 || memcmp(k->meta, KUDU_MAGIC, 8) != 0)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "metadata file %s: no kuducntr header", meta);
	k->version = le32(k->meta + 8);
	if (k->version != 1 && k->version != 2)
		return colfs_fail(err, COLFS_EUNSUPPORTED, 8,
				  "metadata file %s: protobuf container version %u (colfs reads versions 1 and 2)",
				  meta, k->version);
	if (k->version == 2) {
		if (k->meta_len < 16)
			return colfs_fail(err, COLFS_ETRUNCATED, 0,
					  "metadata file %s: the version 2 header is cut short",
					  meta);
		uint32_t want = le32(k->meta + 12);
		uint32_t got = colfs_crc32c(0, k->meta, 12);
		if (want != got) {
			char what[128];
			snprintf(what, sizeof what,
				 "header checksum mismatch: stored %08x, magic and version give %08x",
				 want, got);
			kudu_meta_report(t, k->prefix[0] ? k->prefix : "/",
				    COLFS_ECORRUPT, 12, what);
		}
	}
	return records_read(t, k, max_alloc, err);
}

/* Free a container's or a superblock's state (not a data root's: kudu.c
 * frees that first). */
void kudu_state_free(kudu_state *k)
{
	if (!k)
		return;
	free(k->meta_path);
	free(k->meta);
	free(k->pb_type);
	free(k->recs);
	free(k->blocks);
	colfs_proto_free(&k->sb);
	free(k);
}

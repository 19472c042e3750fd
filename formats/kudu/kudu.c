/* colfs: an Apache Kudu log block container as a tree (docs/kudu-tree.md).
 *
 * Kudu's log block manager keeps many blocks in one container: `<id>.data`
 * holds the blocks one after another (each starting at a multiple of the
 * file system block size; a deleted block's bytes are punched out) and
 * `<id>.metadata` lists them.  The metadata file is a Kudu protobuf
 * container: the magic "kuducntr", a little-endian version (1 or 2), in
 * version 2 a CRC-32C of magic and version; then records: a 4-byte length,
 * (version 2) a CRC-32C of the length, the body, and a CRC-32C of the body
 * (version 1: of the length and the body).  The first record is a
 * ContainerSupHeaderPB naming the record type (kudu.BlockRecordPB), the
 * others are BlockRecordPB: CREATE of a block at an offset and length of
 * the data file, or DELETE.
 *
 * The tree's source is the data file (the Kudu source kind, kudu_source.c,
 * finds the pair from either name); the metadata file is read whole at
 * open.  Each live block that is a CFile is shown as the CFile's own tree
 * (a window of the data file, colfs_dir_graft); another block as `raw`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/proto.h"
#include "core/tree.h"
#include "kudu/kudu.pb-c.h"

#define KUDU_MAGIC "kuducntr"
/* The file system block size Kudu aligns blocks to when nothing says
 * otherwise (the common one). */
#define KUDU_ALIGN 4096

typedef struct kudu_record {
	uint64_t off;            /* in the metadata file */
	uint64_t body_off;
	uint32_t body_len;
	bool framed;             /* length and body present, length checked */
	bool ok;                 /* body checksum right and decoded */
	int op;                  /* KUDU__FS__BLOCK_RECORD_TYPE__* */
	uint64_t id;
	int64_t boff, blen;
	bool has_off, has_len;
	const char *problem;     /* why not ok (static text), or NULL */
} kudu_record;

typedef struct kudu_block {
	uint64_t id;
	uint64_t off, len;
	size_t create_rec;
	long delete_rec;         /* -1: live */
	bool punched;            /* deleted, and its bytes read as zeros */
} kudu_block;

typedef struct kudu_state {
	char *meta_path;
	uint8_t *meta;
	size_t meta_len;
	uint32_t version;
	char *pb_type;
	kudu_record *recs;
	size_t nrecs, caprecs;
	kudu_block *blocks;      /* in the order of their CREATE records */
	size_t nblocks, capblocks;
	size_t live, deleted, punched;
	uint64_t data_size;
	uint64_t hole_bytes;
	/* A tablet superblock (tablet-meta/<tablet id>): the file is the
	 * tree's source, its last record the superblock. */
	bool tablet;
	colfs_proto_msg sb;
	size_t sb_rec;
	/* Inside a data root: the tree path of this container or tablet
	 * ("/containers/<stem>", "/tablets/<id>"), its problems' paths
	 * start with it; "" otherwise. */
	char prefix[300];
	struct kudu_root *root;  /* a data root (the tree's own state) */
} kudu_state;

static kudu_state *state_of(colfs_tree *t)
{
	return colfs_tree_format_state(t);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void block_name(uint64_t id, char *buf, size_t len)
{
	/* as Kudu's BlockId::ToString prints it */
	snprintf(buf, len, "%016llu", (unsigned long long)id);
}

/* ------------------------------------------------------------------------
 * Finding the pair
 */
static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && strcmp(s + n - m, suffix) == 0;
}

static bool starts_with_magic(const char *path)
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

/* "<stem>.data" or "<stem>.metadata": the other name of the pair. */
static bool pair_paths(const char *path, char *data, char *meta, size_t len)
{
	size_t stem;
	if (ends_with(path, ".metadata"))
		stem = strlen(path) - strlen(".metadata");
	else if (ends_with(path, ".data"))
		stem = strlen(path) - strlen(".data");
	else
		return false;
	if (stem + sizeof ".metadata" > len)
		return false;
	snprintf(data, len, "%.*s.data", (int)stem, path);
	snprintf(meta, len, "%.*s.metadata", (int)stem, path);
	return true;
}

static bool root_claim(const char *path, char *source, size_t source_len);

/* kudu_source.c */
bool kudu_claim_path(const char *path, char *source, size_t source_len);

bool kudu_claim_path(const char *path, char *source, size_t source_len)
{
	char data[4096], meta[4096];
	if (root_claim(path, source, source_len))
		return true;
	if (!pair_paths(path, data, meta, sizeof data) ||
	    strlen(data) >= source_len || !starts_with_magic(meta))
		return false;
	snprintf(source, source_len, "%s", data);
	return true;
}

static bool kudu_probe(const uint8_t *head, size_t head_len,
		       const uint8_t *tail, size_t tail_len, uint64_t size)
{
	(void)tail;
	(void)tail_len;
	(void)size;
	return head_len >= 8 && memcmp(head, KUDU_MAGIC, 8) == 0;
}

/* ------------------------------------------------------------------------
 * Reading the metadata
 */
static void meta_report(colfs_tree *t, const char *path, colfs_status st,
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

static colfs_status meta_read(kudu_state *k, uint64_t max_alloc,
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
	if (k->nrecs == k->caprecs) {
		size_t nc = k->caprecs ? k->caprecs * 2 : 64;
		kudu_record *r = realloc(k->recs, nc * sizeof *r);
		if (!r)
			return NULL;
		k->recs = r;
		k->caprecs = nc;
	}
	kudu_record *r = &k->recs[k->nrecs++];
	memset(r, 0, sizeof *r);
	r->off = off;
	return r;
}

static long block_find_live(const kudu_state *k, uint64_t id)
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
			meta_report(t, path, COLFS_ECORRUPT, r->off,
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
		if (block_find_live(k, r->id) >= 0) {
			char what[128];
			snprintf(what, sizeof what,
				 "CREATE of block %s, which already exists", name);
			meta_report(t, path, COLFS_ECORRUPT, r->off, what);
			return COLFS_OK;
		}
		if (k->nblocks == k->capblocks) {
			size_t nc = k->capblocks ? k->capblocks * 2 : 64;
			kudu_block *b = realloc(k->blocks, nc * sizeof *b);
			if (!b)
				return COLFS_ENOMEM;
			k->blocks = b;
			k->capblocks = nc;
		}
		kudu_block *b = &k->blocks[k->nblocks++];
		memset(b, 0, sizeof *b);
		b->id = r->id;
		b->off = off;
		b->len = len;
		b->create_rec = ri;
		b->delete_rec = -1;
		k->live++;
	} else if (r->op == KUDU__FS__BLOCK_RECORD_TYPE__DELETE) {
		long i = block_find_live(k, r->id);
		if (i < 0) {
			char what[128];
			snprintf(what, sizeof what,
				 "DELETE of block %s, which does not exist", name);
			meta_report(t, path, COLFS_ECORRUPT, r->off, what);
			return COLFS_OK;
		}
		k->blocks[i].delete_rec = (long)ri;
		k->live--;
		k->deleted++;
	} else {
		char what[96];
		snprintf(what, sizeof what, "record of unknown type %d", r->op);
		meta_report(t, path, COLFS_ECORRUPT, r->off, what);
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
			meta_report(t, path, COLFS_ETRUNCATED, pos,
				    "truncated last record: its length field is cut short");
			break;
		}
		if (k->version == 2 && all_zero(m + pos, hdr) &&
		    all_zero(m + pos, left)) {
			meta_report(t, path, COLFS_ETRUNCATED, pos,
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
				meta_report(t, path, COLFS_ECORRUPT, pos + 4,
					    what);
				break;
			}
		}
		if ((uint64_t)len + 4 > left - hdr) {
			char what[160];
			snprintf(what, sizeof what,
				 "truncated last record: a body of %u bytes and its checksum, %zu bytes left",
				 len, left - hdr);
			meta_report(t, path, COLFS_ETRUNCATED, pos, what);
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
			meta_report(t, path, COLFS_ECORRUPT, cpos, what);
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
				meta_report(t, path, COLFS_ECORRUPT, r->body_off,
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
			/* decoded whole by tablet_open: the last one counts */
			r->ok = true;
			continue;
		}
		if (colfs_proto_unpack_status(
			    &pm, &kudu__fs__block_record_pb__descriptor,
			    m + r->body_off, len, cap) != COLFS_OK) {
			meta_report(t, path, COLFS_ECORRUPT, r->body_off,
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

static int block_cmp(const void *a, const void *b)
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
	qsort(v, n, sizeof *v, block_cmp);
	return v;
}

static colfs_status blocks_check(colfs_tree *t, kudu_state *k,
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

/* ------------------------------------------------------------------------
 * The tree
 */
static colfs_status record_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	size_t ri = (size_t)colfs_node_a(file);
	const kudu_record *r = &k->recs[ri];
	json_t *o = json_object();
	char name[32];

	json_object_set_new(o, "record", json_integer((json_int_t)ri));
	json_object_set_new(o, "metadata_offset", json_integer((json_int_t)r->off));
	json_object_set_new(o, "body_length", json_integer(r->body_len));
	json_object_set_new(o, "type", json_string(ri == 0 ? "ContainerSupHeaderPB"
						  : k->tablet ? "TabletSuperBlockPB"
							      : "BlockRecordPB"));
	if (r->problem)
		json_object_set_new(o, "problem", json_string(r->problem));
	if (r->ok) {
		colfs_proto_msg pm = {0};
		size_t cap = colfs_proto_cap(r->body_len,
					     colfs_tree_options(t)->max_alloc);
		const ProtobufCMessageDescriptor *d =
			ri == 0 ? &kudu__fs__container_sup_header_pb__descriptor
			: k->tablet ? &kudu__fs__tablet_super_block_pb__descriptor
				    : &kudu__fs__block_record_pb__descriptor;
		if (ri > 0 && !k->tablet) {
			block_name(r->id, name, sizeof name);
			json_object_set_new(o, "block", json_string(name));
		}
		if (colfs_proto_unpack_status(&pm, d, k->meta + r->body_off,
					      r->body_len, cap) == COLFS_OK) {
			json_object_set_new(o, "message", colfs_proto_json(pm.msg, NULL));
			colfs_proto_free(&pm);
		}
	}
	return colfs_buf_json(out, o);
}

static const colfs_node_ops record_ops = {.generate = record_generate};

static colfs_status records_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	for (size_t i = 0; i < k->nrecs; i++) {
		char name[32];
		snprintf(name, sizeof name, "%zu.json", i);
		colfs_node *n = colfs_dir_add_doc(t, dir, name, &record_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static bool block_is_cfile(colfs_tree *t, const kudu_block *b)
{
	uint8_t head[8];
	return b->len >= 8 &&
	       colfs_source_read_at(colfs_tree_source(t), b->off, 8, head,
				    NULL) == COLFS_OK &&
	       (memcmp(head, "kuducfil", 8) == 0 ||
		memcmp(head, "kuducfl2", 8) == 0);
}

static colfs_status block_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	const kudu_block *b = &k->blocks[colfs_node_a(dir)];
	char name[32], why[512], display[4200];
	block_name(b->id, name, sizeof name);
	/* the name a block's tree gives itself (its README's first line) */
	snprintf(display, sizeof display, "%s block %s",
		 colfs_tree_display_name(t), name);

	if (block_is_cfile(t, b)) {
		colfs_tree *sub;
		if (colfs_tree_open_window(t, b->off, b->len, display, &sub, why,
					   sizeof why) == COLFS_OK)
			return colfs_dir_graft(t, dir, sub, b->off);
		colfs_tree_report(t, dir, b->off, COLFS_ECORRUPT,
				  "a CFile block that cannot be opened: %s", why);
	}
	return colfs_dir_add_range(t, dir, "raw", b->off, b->len) ? COLFS_OK
								    : COLFS_ENOMEM;
}

static const colfs_node_ops block_ops = {.populate = block_populate};

static colfs_status blocks_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	for (size_t i = 0; i < k->nblocks; i++) {
		char name[32];
		if (k->blocks[i].delete_rec >= 0)
			continue;
		block_name(k->blocks[i].id, name, sizeof name);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &block_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status deleted_info_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	kudu_state *k = state_of(t);
	const kudu_block *b = &k->blocks[colfs_node_a(file)];
	json_t *o = json_object();
	char name[32];
	block_name(b->id, name, sizeof name);
	json_object_set_new(o, "block", json_string(name));
	json_object_set_new(o, "offset", json_integer((json_int_t)b->off));
	json_object_set_new(o, "length", json_integer((json_int_t)b->len));
	json_object_set_new(o, "create_record", json_integer((json_int_t)b->create_rec));
	json_object_set_new(o, "delete_record", json_integer(b->delete_rec));
	json_object_set_new(o, "punched", json_boolean(b->punched));
	return colfs_buf_json(out, o);
}

static const colfs_node_ops deleted_info_ops = {.generate = deleted_info_generate};

static colfs_status deleted_block_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	size_t i = (size_t)colfs_node_a(dir);
	const kudu_block *b = &k->blocks[i];
	colfs_node *n = colfs_dir_add_doc(t, dir, "block.json", &deleted_info_ops,
					  NULL);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, i, 0, 0);
	if (!b->punched && !colfs_dir_add_range(t, dir, "raw", b->off, b->len))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops deleted_block_ops = {.populate = deleted_block_populate};

static colfs_status deleted_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	for (size_t i = 0; i < k->nblocks; i++) {
		char name[32];
		if (k->blocks[i].delete_rec < 0)
			continue;
		block_name(k->blocks[i].id, name, sizeof name);
		colfs_node *n = colfs_dir_add_dir(t, dir, name,
						  &deleted_block_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops records_ops = {.populate = records_populate};
static const colfs_node_ops blocks_ops = {.populate = blocks_populate};
static const colfs_node_ops deleted_ops = {.populate = deleted_populate};

static colfs_status layout_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;
	int fd = colfs_source_fd(colfs_tree_source(t));
	(void)file;

	/* holes first: padding inside a hole is a hole */
	typedef struct { uint64_t a, b; } span;
	span *holes = NULL;
	size_t nh = 0, ch = 0;
	for (uint64_t pos = 0; fd >= 0 && pos < k->data_size;) {
		off_t h = lseek(fd, (off_t)pos, SEEK_HOLE);
		if (h < 0 || (uint64_t)h >= k->data_size)
			break;
		off_t d = lseek(fd, h, SEEK_DATA);
		uint64_t e = d < 0 ? k->data_size : (uint64_t)d;
		if (nh == ch) {
			ch = ch ? ch * 2 : 16;
			span *p = realloc(holes, ch * sizeof *p);
			if (!p)
				break;
			holes = p;
		}
		holes[nh++] = (span){(uint64_t)h, e};
		pos = e;
	}
	/* a hole is listed where no punched block claims it (a punched
	 * block is listed whole: its last page may be zeros, not hole) */
	for (size_t h = 0; h < nh; h++) {
		uint64_t a = holes[h].a;
		while (a < holes[h].b) {
			uint64_t stop = holes[h].b, skip = 0;
			for (size_t i = 0; i < k->nblocks; i++) {
				const kudu_block *b = &k->blocks[i];
				if (!b->punched || b->off + b->len <= a)
					continue;
				if (b->off <= a && b->off + b->len > skip)
					skip = b->off + b->len;
				else if (b->off > a && b->off < stop)
					stop = b->off;
			}
			if (skip) {
				a = skip;
				continue;
			}
			colfs_layout_add(&l, a, stop - a, "hole", "-");
			a = stop;
		}
	}
	/* blocks, and the padding after each up to the next aligned offset
	 * where the next block starts (or the file ends) */
	kudu_block **v = malloc((k->nblocks + 1) * sizeof *v);
	size_t n = 0;
	if (!v) {
		free(holes);
		colfs_layout_free(&l);
		return COLFS_ENOMEM;
	}
	for (size_t i = 0; i < k->nblocks; i++) {
		kudu_block *b = &k->blocks[i];
		char name[32];
		block_name(b->id, name, sizeof name);
		if (b->delete_rec < 0)
			colfs_layout_add(&l, b->off, b->len, "block", "/blocks/%s",
					 name);
		else
			colfs_layout_add(&l, b->off, b->len,
					 b->punched ? "punched_block"
						    : "deleted_block",
					 "/deleted/%s", name);
		v[n++] = b;
	}
	qsort(v, n, sizeof *v, block_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = v[i]->off + v[i]->len;
		uint64_t a = (e + KUDU_ALIGN - 1) / KUDU_ALIGN * KUDU_ALIGN;
		uint64_t next = i + 1 < n ? v[i + 1]->off : k->data_size;
		if (a > k->data_size)
			a = k->data_size;
		if (a <= e || next < a)
			continue;
		bool in_hole = false;
		for (size_t h = 0; h < nh; h++)
			if (holes[h].a <= e && a <= holes[h].b)
				in_hole = true;
		if (!in_hole)
			colfs_layout_add(&l, e, a - e, "padding", "-");
	}
	free(v);
	free(holes);
	return colfs_layout_write(&l, k->data_size, out);
}

static colfs_status summary_generate(colfs_tree *t, colfs_node *file,
				     colfs_buf *out)
{
	kudu_state *k = state_of(t);
	uint64_t live_bytes = 0;
	(void)file;
	for (size_t i = 0; i < k->nblocks; i++)
		if (k->blocks[i].delete_rec < 0)
			live_bytes += k->blocks[i].len;
	colfs_buf_printf(out, "format: Kudu log block container (metadata version %u)\n",
			 k->version);
	colfs_buf_printf(out, "metadata: %s (%zu bytes, %zu records, record type %s)\n",
			 k->meta_path, k->meta_len, k->nrecs,
			 k->pb_type ? k->pb_type : "unknown");
	colfs_buf_printf(out, "data: %llu bytes, %llu in holes\n",
			 (unsigned long long)k->data_size,
			 (unsigned long long)k->hole_bytes);
	colfs_buf_printf(out, "live blocks: %zu (%llu bytes)\n", k->live,
			 (unsigned long long)live_bytes);
	colfs_buf_printf(out, "deleted blocks: %zu (%zu punched)\n", k->deleted,
			 k->punched);
	colfs_buf_printf(out, "problems: %zu\n", colfs_tree_error_count(t));
	return colfs_buf_status(out);
}

static colfs_status readme_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	bool raw_blocks = false, cfile_blocks = false, unpunched = false;
	(void)file;
	for (size_t i = 0; i < k->nblocks; i++) {
		const kudu_block *b = &k->blocks[i];
		if (b->delete_rec >= 0)
			unpunched |= !b->punched;
		else if (block_is_cfile(t, b))
			cfile_blocks = true;
		else
			raw_blocks = true;
	}
	const colfs_readme_row rows[] = {
		{true, 0, "summary", false,
		 "metadata version, records, data file size and holes, live and deleted blocks"},
		{true, 0, "records/", false,
		 "the metadata file's records, numbered from 0"},
		{true, 1, "N.json", false,
		 "record N: its offset in the metadata file, length, and the message (0: ContainerSupHeaderPB; then BlockRecordPB)"},
		{true, 0, "blocks/", false,
		 "the live blocks, named by block id as Kudu prints it"},
		{cfile_blocks, 1, "<block>/", false,
		 "a CFile block: the tree the CFile has on its own (its README, values, blocks/, ...)"},
		{raw_blocks, 1, "<block>/", false,
		 "a block that is not a CFile"},
		{raw_blocks, 2, "raw", false, "the block's bytes"},
		{true, 0, "deleted/", false, "the blocks a DELETE record removed"},
		{k->deleted > 0, 1, "<block>/", false, "one deleted block"},
		{k->deleted > 0, 2, "block.json", false,
		 "its offset, length, CREATE and DELETE records, and whether its bytes were punched out"},
		{unpunched, 2, "raw", false,
		 "its bytes, when they were not punched out"},
	};
	char about[256];
	snprintf(about, sizeof about,
		 "The blocks are in this data file; the records in %s.\n\n",
		 k->meta_path);
	const colfs_readme r = {
		.what = "the data file of an Apache Kudu log block container",
		.about = about,
		.format_text = "\"kudu container\" and the metadata file's version",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static colfs_status format_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	colfs_buf_printf(out, "kudu container v%u\n", state_of(t)->version);
	return colfs_buf_status(out);
}

static const colfs_node_ops layout_ops = {.generate = layout_generate};
static const colfs_node_ops summary_ops = {.generate = summary_generate};
static const colfs_node_ops readme_ops = {.generate = readme_generate};
static const colfs_node_ops format_ops = {.generate = format_generate};

static colfs_status root_populate(colfs_tree *t, colfs_node *root)
{
	if (!colfs_dir_add_doc(t, root, "README", &readme_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "format", &format_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "layout", &layout_ops, NULL) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_summary(t, root, &summary_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "records", &records_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "blocks", &blocks_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "deleted", &deleted_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops root_ops = {.populate = root_populate};

static void root_free(struct kudu_root *r);

static void kudu_close(void *state)
{
	kudu_state *k = state;
	if (!k)
		return;
	free(k->meta_path);
	free(k->meta);
	free(k->pb_type);
	free(k->recs);
	free(k->blocks);
	colfs_proto_free(&k->sb);
	root_free(k->root);
	free(k);
}

static colfs_status pbc_read(colfs_tree *t, kudu_state *k, const char *meta,
			     uint64_t max_alloc, colfs_err *err);
/* ------------------------------------------------------------------------
 * A tablet superblock (tablet-meta/<tablet id>): a protobuf container of
 * TabletSuperBlockPB records, the last one the tablet's state.
 */
struct kudu_root;
static kudu_state *tablet_state(colfs_tree *t, uint64_t tablet);

/* The superblock of tablet `a` (the tree's own for a superblock file). */
static const Kudu__Fs__TabletSuperBlockPB *sb_of(colfs_tree *t, uint64_t a)
{
	return (const void *)tablet_state(t, a)->sb.msg;
}

static json_t *bytes_text(const ProtobufCBinaryData *b)
{
	return colfs_proto_json_text(b->data, b->len);
}

static colfs_status superblock_generate(colfs_tree *t, colfs_node *file,
					colfs_buf *out)
{
	return colfs_buf_json(out, colfs_proto_json(
		tablet_state(t, colfs_node_a(file))->sb.msg, NULL));
}

static const char *data_type_name(int v)
{
	const ProtobufCEnumValue *e = protobuf_c_enum_descriptor_get_value(
		&kudu__fs__data_type__descriptor, v);
	return e ? e->name : "unknown";
}

static colfs_status schema_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, colfs_node_a(file));
	for (size_t i = 0; sb->schema && i < sb->schema->n_columns; i++) {
		const Kudu__Fs__ColumnSchemaPB *c = sb->schema->columns[i];
		colfs_buf_printf(out, "%s %s %s%s (id %u)\n", c->name,
				 data_type_name(c->type),
				 c->is_nullable ? "NULL" : "NOT NULL",
				 c->is_key ? " KEY" : "", c->id);
	}
	return colfs_buf_status(out);
}

/* The column of `id` in the schema, or NULL. */
static const Kudu__Fs__ColumnSchemaPB *column_by_id(
	const Kudu__Fs__TabletSuperBlockPB *sb, int32_t id)
{
	for (size_t i = 0; sb->schema && i < sb->schema->n_columns; i++)
		if (sb->schema->columns[i]->has_id &&
		    (int32_t)sb->schema->columns[i]->id == id)
			return sb->schema->columns[i];
	return NULL;
}

static void block_line(colfs_buf *out, const char *what,
		       const Kudu__Fs__BlockIdPB *b)
{
	char name[32];
	if (!b)
		return;
	block_name(b->id, name, sizeof name);
	colfs_buf_printf(out, "%s %s\n", name, what);
}

/* rowsets/N/blocks: every block of the rowset, one "<block id> <role>"
 * line each (to find them in the containers of the data directories). */
static colfs_status rowset_blocks_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, colfs_node_a(file) >> 32);
	const Kudu__Fs__RowSetDataPB *rs =
		sb->rowsets[colfs_node_a(file) & 0xffffffffu];
	char what[300];
	for (size_t i = 0; i < rs->n_columns; i++) {
		const Kudu__Fs__ColumnSchemaPB *c =
			column_by_id(sb, rs->columns[i]->column_id);
		if (c)
			snprintf(what, sizeof what, "column %s", c->name);
		else
			snprintf(what, sizeof what, "column id %d (not in the schema)",
				 rs->columns[i]->column_id);
		block_line(out, what, rs->columns[i]->block);
	}
	block_line(out, "bloom", rs->bloom_block);
	block_line(out, "adhoc_index", rs->adhoc_index_block);
	for (size_t i = 0; i < rs->n_redo_deltas; i++) {
		snprintf(what, sizeof what, "redo %zu", i);
		block_line(out, what, rs->redo_deltas[i]->block);
	}
	for (size_t i = 0; i < rs->n_undo_deltas; i++) {
		snprintf(what, sizeof what, "undo %zu", i);
		block_line(out, what, rs->undo_deltas[i]->block);
	}
	return colfs_buf_status(out);
}

static colfs_status rowset_json_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, colfs_node_a(file) >> 32);
	return colfs_buf_json(out, colfs_proto_json(
		&sb->rowsets[colfs_node_a(file) & 0xffffffffu]->base, NULL));
}

static const colfs_node_ops rowset_json_ops = {.generate = rowset_json_generate};
static const colfs_node_ops rowset_blocks_ops = {.generate = rowset_blocks_generate};

static colfs_status rowset_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t i = colfs_node_a(dir);
	colfs_node *a = colfs_dir_add_doc(t, dir, "rowset.json", &rowset_json_ops, NULL);
	colfs_node *b = colfs_dir_add_doc(t, dir, "blocks", &rowset_blocks_ops, NULL);
	if (!a || !b)
		return COLFS_ENOMEM;
	colfs_node_set_args(a, i, 0, 0);
	colfs_node_set_args(b, i, 0, 0);
	return COLFS_OK;
}

static const colfs_node_ops rowset_ops = {.populate = rowset_populate};

static colfs_status rowsets_populate(colfs_tree *t, colfs_node *dir)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, 0);
	for (size_t i = 0; i < sb->n_rowsets; i++) {
		char name[32];
		snprintf(name, sizeof name, "%zu", i);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &rowset_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status tablet_summary_generate(colfs_tree *t, colfs_node *file,
					    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, 0);
	(void)file;
	json_t *tid = bytes_text(&sb->tablet_id), *tab = bytes_text(&sb->table_id);
	colfs_buf_printf(out, "format: Kudu tablet superblock (protobuf container version %u)\n",
			 k->version);
	colfs_buf_printf(out, "table: %s (id %s)\n", sb->table_name,
			 tab ? json_string_value(tab) : "?");
	colfs_buf_printf(out, "tablet: %s\n", tid ? json_string_value(tid) : "?");
	colfs_buf_printf(out, "data state: %s\n",
			 protobuf_c_enum_descriptor_get_value(
				 &kudu__fs__tablet_data_state__descriptor,
				 sb->tablet_data_state)
				 ? protobuf_c_enum_descriptor_get_value(
					   &kudu__fs__tablet_data_state__descriptor,
					   sb->tablet_data_state)->name
				 : "unknown");
	colfs_buf_printf(out, "schema: %zu columns, version %u\n",
			 sb->schema ? sb->schema->n_columns : 0,
			 sb->schema_version);
	colfs_buf_printf(out, "rowsets: %zu\n", sb->n_rowsets);
	colfs_buf_printf(out, "records: %zu (the superblock is record %zu)\n",
			 k->nrecs, k->sb_rec);
	colfs_buf_printf(out, "problems: %zu\n", colfs_tree_error_count(t));
	json_decref(tid);
	json_decref(tab);
	return colfs_buf_status(out);
}

static colfs_status tablet_readme_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	(void)file;
	const colfs_readme_row rows[] = {
		{true, 0, "summary", false,
		 "table, tablet, data state, schema, rowsets, records"},
		{true, 0, "records/", false,
		 "the file's records, numbered from 0"},
		{true, 1, "N.json", false,
		 "record N: its offset, length, and the message (0: ContainerSupHeaderPB; then TabletSuperBlockPB)"},
		{true, 0, "superblock.json", false,
		 "the tablet's superblock (the last record), every field"},
		{true, 0, "schema", false,
		 "one line per column: name, type, NULL or NOT NULL, KEY, column id"},
		{true, 0, "rowsets/", false, "the rowsets, numbered from 0"},
		{true, 1, "N/", false, "rowset N"},
		{true, 2, "rowset.json", false, "its RowSetDataPB"},
		{true, 2, "blocks", false,
		 "its blocks, one `<block id> <role>` line each (column <name>, bloom, adhoc_index, redo K, undo K)"},
	};
	const colfs_readme r = {
		.what = "an Apache Kudu tablet superblock",
		.about = "The blocks it names are in the log block containers of the tablet's data directories.\n\n",
		.format_text = "\"kudu tablet superblock\" and the container version",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static colfs_status tablet_layout_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	kudu_state *k = state_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;
	(void)file;
	colfs_layout_add(&l, 0, k->version == 1 ? 12 : 16, "container_header",
			 "/format");
	for (size_t i = 0; i < k->nrecs; i++) {
		const kudu_record *r = &k->recs[i];
		colfs_layout_add(&l, r->off,
				 r->body_off + r->body_len + 4 - r->off, "record",
				 "/records/%zu.json", i);
	}
	return colfs_layout_write(&l, k->meta_len, out);
}

static colfs_status tablet_format_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	(void)file;
	colfs_buf_printf(out, "kudu tablet superblock v%u\n", state_of(t)->version);
	return colfs_buf_status(out);
}

static const colfs_node_ops tablet_readme_ops = {.generate = tablet_readme_generate};
static const colfs_node_ops tablet_format_ops = {.generate = tablet_format_generate};
static const colfs_node_ops tablet_layout_ops = {.generate = tablet_layout_generate};
static const colfs_node_ops tablet_summary_ops = {.generate = tablet_summary_generate};
static const colfs_node_ops superblock_ops = {.generate = superblock_generate};
static const colfs_node_ops schema_ops = {.generate = schema_generate};
static const colfs_node_ops rowsets_ops = {.populate = rowsets_populate};
static const colfs_node_ops tablet_records_ops = {.populate = records_populate};

static colfs_status tablet_root_populate(colfs_tree *t, colfs_node *root)
{
	if (!colfs_dir_add_doc(t, root, "README", &tablet_readme_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "format", &tablet_format_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "layout", &tablet_layout_ops, NULL) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_summary(t, root, &tablet_summary_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "records", &tablet_records_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "superblock.json", &superblock_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "schema", &schema_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "rowsets", &rowsets_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops tablet_root_ops = {.populate = tablet_root_populate};

static colfs_status tablet_decode(colfs_tree *t, kudu_state *k,
				  uint64_t max_alloc, colfs_err *err);

static colfs_status tablet_open(colfs_tree *t, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	uint64_t max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	colfs_source *src = colfs_tree_source(t);
	kudu_state *k = calloc(1, sizeof *k);
	if (!k)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_tree_set_format_state(t, k);
	k->tablet = true;
	k->meta_path = strdup(colfs_tree_display_name(t));
	if (!k->meta_path)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	COLFS_TRY(colfs_source_read_region(src, 0, colfs_source_size(src),
					   max_alloc, &k->meta, err));
	k->meta_len = (size_t)colfs_source_size(src);
	COLFS_TRY(pbc_read(t, k, k->meta_path, max_alloc, err));
	COLFS_TRY(tablet_decode(t, k, max_alloc, err));
	colfs_node_set_ops(colfs_tree_root(t), &tablet_root_ops, NULL);
	return COLFS_OK;
}

/* The last record that decodes is the tablet's state. */
static colfs_status tablet_decode(colfs_tree *t, kudu_state *k,
				  uint64_t max_alloc, colfs_err *err)
{
	for (size_t i = k->nrecs; i-- > 1;) {
		const kudu_record *r = &k->recs[i];
		char path[400];
		if (!r->ok)
			continue;
		if (colfs_proto_unpack_status(
			    &k->sb, &kudu__fs__tablet_super_block_pb__descriptor,
			    k->meta + r->body_off, r->body_len,
			    colfs_proto_cap(r->body_len, max_alloc)) == COLFS_OK) {
			k->sb_rec = i;
			break;
		}
		snprintf(path, sizeof path, "%s/records/%zu", k->prefix, i);
		meta_report(t, path, COLFS_ECORRUPT, r->body_off,
			    "not a TabletSuperBlockPB");
		k->recs[i].problem = "not a TabletSuperBlockPB";
		k->recs[i].ok = false;
	}
	if (!k->sb.msg)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "no record holds a readable TabletSuperBlockPB");
	return COLFS_OK;
}

/* ------------------------------------------------------------------------
 * A data root: a directory holding Kudu's `instance` file, `data/` (the
 * log block containers) and `tablet-meta/` (one superblock per tablet).
 */
typedef struct kudu_root {
	struct kroot_container {
		char *stem;           /* file name without ".data" */
		colfs_source *src;    /* the data file */
		kudu_state *st;
	} *cont;
	size_t ncont;
	struct kroot_tablet {
		char *id;
		kudu_state *st;
	} *tab;
	size_t ntab;
	char *dir;
} kudu_root;

enum { KROLE_COLUMN, KROLE_BLOOM, KROLE_ADHOC, KROLE_REDO, KROLE_UNDO };

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is `path` a Kudu data root?  Its `instance` file is the source. */
static bool root_claim(const char *path, char *source, size_t source_len)
{
	char p[4200];
	if (!is_dir(path))
		return false;
	snprintf(p, sizeof p, "%s/data", path);
	if (!is_dir(p))
		return false;
	snprintf(p, sizeof p, "%s/tablet-meta", path);
	if (!is_dir(p))
		return false;
	snprintf(p, sizeof p, "%s/instance", path);
	if (!starts_with_magic(p) || strlen(p) >= source_len)
		return false;
	snprintf(source, source_len, "%s", p);
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in `dir` (sorted, malloc'd), regular files only, those that
 * end in `suffix` (with it cut off) when it is not NULL. */
static char **dir_names(const char *dir, const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char p[4400];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (suffix && !ends_with(e->d_name, suffix))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		v[*n] = strdup(e->d_name);
		if (!v[*n])
			break;
		if (suffix)
			v[*n][strlen(v[*n]) - strlen(suffix)] = 0;
		++*n;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, name_cmp);
	return v;
}

static void root_free(kudu_root *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ncont; i++) {
		free(r->cont[i].stem);
		kudu_close(r->cont[i].st);
		colfs_source_destroy(r->cont[i].src);
	}
	for (size_t i = 0; i < r->ntab; i++) {
		free(r->tab[i].id);
		kudu_close(r->tab[i].st);
	}
	free(r->cont);
	free(r->tab);
	free(r->dir);
	free(r);
}

/* Read the containers and superblocks; a damaged one is reported under
 * its path and the others read. */
static colfs_status root_read(colfs_tree *t, kudu_root *r, uint64_t max_alloc)
{
	char dir[4200];
	size_t n;
	char **names;

	snprintf(dir, sizeof dir, "%s/data", r->dir);
	names = dir_names(dir, ".metadata", &n);
	r->cont = calloc(n + 1, sizeof *r->cont);
	if (!r->cont)
		return COLFS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct kroot_container *c = &r->cont[r->ncont];
		char data[4400], meta[4400];
		colfs_err err = {0};
		kudu_state *k = calloc(1, sizeof *k);
		snprintf(data, sizeof data, "%s/%s.data", dir, names[i]);
		snprintf(meta, sizeof meta, "%s/%s.metadata", dir, names[i]);
		c->stem = names[i];
		c->st = k;
		r->ncont++;
		if (!k || !(k->meta_path = strdup(meta)))
			return COLFS_ENOMEM;
		snprintf(k->prefix, sizeof k->prefix, "/containers/%s", names[i]);
		int fd = open(data, O_RDONLY | O_CLOEXEC);
		colfs_status st = fd < 0 ? colfs_fail(&err, COLFS_EIO, 0,
						      "%s: %s", data, strerror(errno))
					 : colfs_source_create_fd(fd, 1, &c->src);
		if (st == COLFS_OK) {
			k->data_size = colfs_source_size(c->src);
			st = meta_read(k, max_alloc, &err);
		} else if (fd >= 0) {
			close(fd);
		}
		if (st == COLFS_OK)
			st = pbc_read(t, k, meta, max_alloc, &err);
		if (st == COLFS_OK)
			st = blocks_check(t, k, c->src);
		if (st == COLFS_ENOMEM)
			return st;
		if (st != COLFS_OK) {
			colfs_tree_report_path(t, k->prefix, err.offset, st,
					       "container not readable: %s",
					       err.msg);
			k->nblocks = k->live = k->deleted = k->punched = 0;
		}
	}
	free(names);
	snprintf(dir, sizeof dir, "%s/tablet-meta", r->dir);
	names = dir_names(dir, NULL, &n);
	r->tab = calloc(n + 1, sizeof *r->tab);
	if (!r->tab)
		return COLFS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct kroot_tablet *tb = &r->tab[r->ntab];
		char meta[4400];
		colfs_err err = {0};
		kudu_state *k = calloc(1, sizeof *k);
		snprintf(meta, sizeof meta, "%s/%s", dir, names[i]);
		tb->id = names[i];
		tb->st = k;
		r->ntab++;
		if (!k || !(k->meta_path = strdup(meta)))
			return COLFS_ENOMEM;
		k->tablet = true;
		snprintf(k->prefix, sizeof k->prefix, "/tablets/%s", names[i]);
		colfs_status st = meta_read(k, max_alloc, &err);
		if (st == COLFS_OK)
			st = pbc_read(t, k, meta, max_alloc, &err);
		if (st == COLFS_OK)
			st = tablet_decode(t, k, max_alloc, &err);
		if (st == COLFS_ENOMEM)
			return st;
		if (st != COLFS_OK)
			colfs_tree_report_path(t, k->prefix, err.offset, st,
					       "superblock not readable: %s",
					       err.msg);
	}
	free(names);
	return COLFS_OK;
}

static kudu_root *root_of(colfs_tree *t)
{
	return state_of(t)->root;
}

/* Where block `id` lives: its container and block, or false. */
static bool root_find(kudu_root *r, uint64_t id, struct kroot_container **c,
		      const kudu_block **b)
{
	for (size_t i = 0; i < r->ncont; i++) {
		long j = block_find_live(r->cont[i].st, id);
		if (j >= 0) {
			*c = &r->cont[i];
			*b = &r->cont[i].st->blocks[j];
			return true;
		}
	}
	return false;
}

/* The block id of (tablet a, rowset b, role and index in c). */
static const Kudu__Fs__BlockIdPB *root_block_id(kudu_root *r, uint64_t a,
						uint64_t b, uint64_t c)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)r->tab[a].st->sb.msg;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[b];
	size_t k = (size_t)(c & 0xffff);
	switch (c >> 16) {
	case KROLE_COLUMN:
		return k < rs->n_columns ? rs->columns[k]->block : NULL;
	case KROLE_BLOOM:
		return rs->bloom_block;
	case KROLE_ADHOC:
		return rs->adhoc_index_block;
	case KROLE_REDO:
		return k < rs->n_redo_deltas ? rs->redo_deltas[k]->block : NULL;
	default:
		return k < rs->n_undo_deltas ? rs->undo_deltas[k]->block : NULL;
	}
}

/* A tree over block `id` wherever it is (a window of its container). */
static colfs_status root_block_tree(colfs_tree *t, uint64_t id,
				    colfs_tree **out, char *why, size_t len)
{
	kudu_root *r = root_of(t);
	struct kroot_container *c;
	const kudu_block *b;
	char name[32], display[4300];
	colfs_source *w;
	block_name(id, name, sizeof name);
	*out = NULL;
	if (!root_find(r, id, &c, &b)) {
		snprintf(why, len, "block %s is in no container of the data root", name);
		return COLFS_ENOENT;
	}
	snprintf(display, sizeof display, "%s/data/%s.data block %s", r->dir,
		 c->stem, name);
	COLFS_TRY(colfs_source_create_window(c->src, b->off, b->len, &w));
	return colfs_tree_open_source(w, display, colfs_tree_options(t), out,
				      why, len);
}

static colfs_status root_block_populate(colfs_tree *t, colfs_node *dir)
{
	const Kudu__Fs__BlockIdPB *id = root_block_id(
		root_of(t), colfs_node_a(dir), colfs_node_b(dir), colfs_node_c(dir));
	colfs_tree *sub;
	char why[600], path[600];
	if (!id)
		return COLFS_ENOENT;
	colfs_status st = root_block_tree(t, id->id, &sub, why, sizeof why);
	if (st != COLFS_OK) {
		colfs_node_path(dir, path, sizeof path);
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				       "%s", why);
		return st;
	}
	return colfs_dir_graft(t, dir, sub, COLFS_GRAFT_FOREIGN);
}

static const colfs_node_ops root_block_ops = {.populate = root_block_populate};

static colfs_node *root_add_block(colfs_tree *t, colfs_node *dir,
				  const char *name, uint64_t a, uint64_t b,
				  uint64_t role, uint64_t k)
{
	colfs_node *n = colfs_dir_add_dir(t, dir, name, &root_block_ops, NULL);
	if (n)
		colfs_node_set_args(n, a, b, role << 16 | k);
	return n;
}

static colfs_status root_role_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir), role = colfs_node_c(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[b];
	size_t n = role == KROLE_REDO ? rs->n_redo_deltas
		   : role == KROLE_UNDO ? rs->n_undo_deltas
					: rs->n_columns;
	for (size_t i = 0; i < n; i++) {
		char name[300];
		if (role == KROLE_COLUMN) {
			const Kudu__Fs__ColumnSchemaPB *c =
				column_by_id(sb, rs->columns[i]->column_id);
			if (c)
				snprintf(name, sizeof name, "%s", c->name);
			else
				snprintf(name, sizeof name, "column_id_%d",
					 rs->columns[i]->column_id);
		} else {
			snprintf(name, sizeof name, "%zu", i);
		}
		if (!root_add_block(t, dir, name, a, b, role, i))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops root_role_ops = {.populate = root_role_populate};

static colfs_status root_rowset_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[b];
	static const char *const roles[] = {"columns", "redo", "undo"};
	static const uint64_t role_of[] = {KROLE_COLUMN, KROLE_REDO, KROLE_UNDO};
	colfs_node *j = colfs_dir_add_doc(t, dir, "rowset.json", &rowset_json_ops, NULL);
	colfs_node *k = colfs_dir_add_doc(t, dir, "blocks", &rowset_blocks_ops, NULL);
	if (!j || !k)
		return COLFS_ENOMEM;
	/* the tablet's state for the superblock documents */
	colfs_node_set_args(j, a << 32 | b, 0, 0);
	colfs_node_set_args(k, a << 32 | b, 0, 0);
	for (int i = 0; i < 3; i++) {
		colfs_node *n = colfs_dir_add_dir(t, dir, roles[i], &root_role_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, a, b, role_of[i]);
	}
	if (rs->bloom_block && !root_add_block(t, dir, "bloom", a, b, KROLE_BLOOM, 0))
		return COLFS_ENOMEM;
	if (rs->adhoc_index_block &&
	    !root_add_block(t, dir, "adhoc_index", a, b, KROLE_ADHOC, 0))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops root_rowset_ops = {.populate = root_rowset_populate};

static colfs_status root_rowsets_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	for (size_t i = 0; i < sb->n_rowsets; i++) {
		char name[32];
		snprintf(name, sizeof name, "%zu", i);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &root_rowset_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, a, i, 0);
	}
	return COLFS_OK;
}

/* tablets/<id>/columns/<name>: piece r is the column's values in rowset
 * r (base data: deltas are not applied). */
static colfs_status root_column_piece(colfs_tree *t, colfs_node *file,
				      uint64_t index, colfs_buf *out)
{
	uint64_t a = colfs_node_a(file), c = colfs_node_b(file);
	kudu_root *r = root_of(t);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)r->tab[a].st->sb.msg;
	const Kudu__Fs__ColumnSchemaPB *col = sb->schema->columns[c];
	char why[600], path[600];
	if (index >= sb->n_rowsets)
		return COLFS_END;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[index];
	const Kudu__Fs__BlockIdPB *id = NULL;
	for (size_t i = 0; i < rs->n_columns; i++)
		if (col->has_id && rs->columns[i]->column_id == (int32_t)col->id)
			id = rs->columns[i]->block;
	colfs_node_path(file, path, sizeof path);
	if (!id) {
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_EUNSUPPORTED,
				       "rowset %llu has no block of column %s (a column added later: its default values are not shown)",
				       (unsigned long long)index, col->name);
		return COLFS_OK;
	}
	colfs_tree *sub;
	colfs_node *vals;
	colfs_handle *h;
	colfs_status st = root_block_tree(t, id->id, &sub, why, sizeof why);
	if (st != COLFS_OK) {
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				       "rowset %llu: %s", (unsigned long long)index, why);
		return COLFS_EIO;
	}
	st = colfs_tree_resolve(sub, "values", &vals);
	if (st == COLFS_OK)
		st = colfs_node_open(sub, vals, &h);
	for (uint64_t at = 0; st == COLFS_OK;) {
		size_t got = 0;
		if (!colfs_buf_reserve(out, 65536)) {
			st = COLFS_ENOMEM;
			break;
		}
		st = colfs_handle_read(h, at, 65536, out->data + out->len, &got);
		if (st != COLFS_OK || !got) {
			colfs_handle_close(h);
			break;
		}
		out->len += got;
		at += got;
	}
	if (st != COLFS_OK && st != COLFS_ENOMEM) {
		colfs_problem p;
		if (colfs_tree_error_get(sub, 0, &p) == COLFS_OK)
			colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, p.status,
					       "rowset %llu, block %016llu: %s",
					       (unsigned long long)index,
					       (unsigned long long)id->id, p.message);
	}
	colfs_tree_destroy(sub);
	return st;
}

static const colfs_node_ops root_column_ops = {.piece = root_column_piece};

static colfs_status root_columns_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	for (size_t i = 0; sb->schema && i < sb->schema->n_columns; i++) {
		colfs_node *n = colfs_dir_add_stream(t, dir, sb->schema->columns[i]->name,
						     &root_column_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, a, i, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops root_rowsets_ops = {.populate = root_rowsets_populate};
static const colfs_node_ops root_columns_ops = {.populate = root_columns_populate};

static colfs_status root_tablet_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir);
	colfs_node *n[4] = {
		colfs_dir_add_doc(t, dir, "superblock.json", &superblock_ops, NULL),
		colfs_dir_add_doc(t, dir, "schema", &schema_ops, NULL),
		colfs_dir_add_dir(t, dir, "rowsets", &root_rowsets_ops, NULL),
		colfs_dir_add_dir(t, dir, "columns", &root_columns_ops, NULL),
	};
	for (int i = 0; i < 4; i++) {
		if (!n[i])
			return COLFS_ENOMEM;
		colfs_node_set_args(n[i], a, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops root_tablet_ops = {.populate = root_tablet_populate};

static colfs_status root_tablets_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_root *r = root_of(t);
	for (size_t i = 0; i < r->ntab; i++) {
		if (!r->tab[i].st->sb.msg)
			continue;
		colfs_node *n = colfs_dir_add_dir(t, dir, r->tab[i].id,
						  &root_tablet_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status root_container_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_root *r = root_of(t);
	char path[4400], why[600];
	colfs_tree *sub;
	snprintf(path, sizeof path, "%s/data/%s.data", r->dir,
		 r->cont[colfs_node_a(dir)].stem);
	if (colfs_tree_open(path, colfs_tree_options(t), &sub, why, sizeof why)) {
		colfs_node_path(dir, path, sizeof path);
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				       "%s", why);
		return COLFS_EIO;
	}
	return colfs_dir_graft(t, dir, sub, COLFS_GRAFT_FOREIGN);
}

static const colfs_node_ops root_container_ops = {.populate = root_container_populate};

static colfs_status root_containers_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_root *r = root_of(t);
	for (size_t i = 0; i < r->ncont; i++) {
		colfs_node *n = colfs_dir_add_dir(t, dir, r->cont[i].stem,
						  &root_container_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status root_summary_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	kudu_root *r = root_of(t);
	size_t live = 0, deleted = 0, tablets = 0, rowsets = 0;
	(void)file;
	for (size_t i = 0; i < r->ncont; i++) {
		live += r->cont[i].st->live;
		deleted += r->cont[i].st->deleted;
	}
	for (size_t i = 0; i < r->ntab; i++) {
		const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)r->tab[i].st->sb.msg;
		if (sb) {
			tablets++;
			rowsets += sb->n_rowsets;
		}
	}
	colfs_buf_printf(out, "format: Kudu data root (log block manager)\n");
	colfs_buf_printf(out, "root: %s\n", r->dir);
	colfs_buf_printf(out, "containers: %zu (%zu live blocks, %zu deleted)\n",
			 r->ncont, live, deleted);
	colfs_buf_printf(out, "tablets: %zu of %zu superblocks readable, %zu rowsets\n",
			 tablets, r->ntab, rowsets);
	colfs_buf_printf(out, "problems: %zu\n", colfs_tree_error_count(t));
	return colfs_buf_status(out);
}

static colfs_status root_readme_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	(void)file;
	const colfs_readme_row rows[] = {
		{true, 0, "summary", false, "containers, blocks, tablets, rowsets"},
		{true, 0, "containers/", false,
		 "the log block containers of data/, by name"},
		{true, 1, "<id>/", false,
		 "the container's tree, as `colfs data/<id>.data` shows it"},
		{true, 0, "tablets/", false, "the tablets of tablet-meta/, by id"},
		{true, 1, "<id>/", false, "one tablet"},
		{true, 2, "superblock.json", false, "its TabletSuperBlockPB"},
		{true, 2, "schema", false,
		 "one line per column: name, type, NULL or NOT NULL, KEY, column id"},
		{true, 2, "rowsets/", false, "its rowsets, numbered from 0"},
		{true, 3, "N/", false, "rowset N"},
		{true, 4, "rowset.json", false, "its RowSetDataPB"},
		{true, 4, "blocks", false, "its blocks, one `<block id> <role>` line each"},
		{true, 4, "columns/", false, "one directory per column"},
		{true, 5, "<name>/", false,
		 "the CFile tree of the column's block, wherever its container is"},
		{true, 4, "bloom/", false, "the bloom filter's CFile tree"},
		{true, 4, "adhoc_index/", false, "the ad hoc index's CFile tree"},
		{true, 4, "redo/", false, "the REDO delta files, numbered from 0"},
		{true, 4, "undo/", false, "the UNDO delta files, numbered from 0"},
		{true, 2, "columns/", false, "the tablet's columns over all rowsets"},
		{true, 3, "<name>", true,
		 "the column's base values of every rowset in turn (deltas not applied)"},
	};
	const colfs_readme r = {
		.what = "the instance file of an Apache Kudu data root",
		.about = "Blocks are looked up in every container of data/.\n\n",
		.format_text = "\"kudu data root\"",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static colfs_status root_format_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	(void)t;
	(void)file;
	colfs_buf_puts(out, "kudu data root\n");
	return colfs_buf_status(out);
}

static colfs_status root_layout_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	colfs_layout l = COLFS_LAYOUT_INIT;
	uint64_t size = colfs_source_size(colfs_tree_source(t));
	(void)file;
	colfs_layout_add(&l, 0, size, "instance_file", "/format");
	return colfs_layout_write(&l, size, out);
}

static const colfs_node_ops root_readme_ops = {.generate = root_readme_generate};
static const colfs_node_ops root_format_ops = {.generate = root_format_generate};
static const colfs_node_ops root_layout_ops = {.generate = root_layout_generate};
static const colfs_node_ops root_summary_ops = {.generate = root_summary_generate};
static const colfs_node_ops root_tablets_ops = {.populate = root_tablets_populate};
static const colfs_node_ops root_containers_ops = {.populate = root_containers_populate};

static colfs_status root_root_populate(colfs_tree *t, colfs_node *root)
{
	if (!colfs_dir_add_doc(t, root, "README", &root_readme_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "format", &root_format_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "layout", &root_layout_ops, NULL) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_summary(t, root, &root_summary_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "containers", &root_containers_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "tablets", &root_tablets_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops root_root_ops = {.populate = root_root_populate};

static colfs_status root_open(colfs_tree *t, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	uint64_t max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	kudu_state *k = calloc(1, sizeof *k);
	if (!k)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_tree_set_format_state(t, k);
	k->root = calloc(1, sizeof *k->root);
	if (!k->root || !(k->root->dir = strdup(colfs_tree_display_name(t))))
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	if (root_read(t, k->root, max_alloc) != COLFS_OK)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_node_set_ops(colfs_tree_root(t), &root_root_ops, NULL);
	return COLFS_OK;
}

static kudu_state *tablet_state(colfs_tree *t, uint64_t tablet)
{
	kudu_state *k = state_of(t);
	return k->root ? k->root->tab[tablet].st : k;
}

static colfs_status kudu_open(colfs_tree *t, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	uint64_t max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	colfs_source *src = colfs_tree_source(t);
	char data[4096], meta[4096];
	uint8_t head[8];

	if (is_dir(colfs_tree_display_name(t)))
		return root_open(t, err);
	if (colfs_source_read_at(src, 0, 8, head, NULL) == COLFS_OK &&
	    memcmp(head, KUDU_MAGIC, 8) == 0)
		return tablet_open(t, err);
	if (!pair_paths(colfs_tree_display_name(t), data, meta, sizeof data))
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "a Kudu container is opened as <id>.data or <id>.metadata");
	kudu_state *k = calloc(1, sizeof *k);
	if (!k)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_tree_set_format_state(t, k);
	k->meta_path = strdup(meta);
	if (!k->meta_path)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	k->data_size = colfs_source_size(src);
	COLFS_TRY(meta_read(k, max_alloc, err));
	COLFS_TRY(pbc_read(t, k, meta, max_alloc, err));
	COLFS_TRY(blocks_check(t, k, src));
	colfs_node_set_ops(colfs_tree_root(t), &root_ops, NULL);
	return COLFS_OK;
}

/* The protobuf container in k->meta: header, then every record. */
static colfs_status pbc_read(colfs_tree *t, kudu_state *k, const char *meta,
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
			meta_report(t, k->prefix[0] ? k->prefix : "/",
				    COLFS_ECORRUPT, 12, what);
		}
	}
	return records_read(t, k, max_alloc, err);
}

const colfs_format colfs_format_kudu = {
	.name = "kudu",
	.probe = kudu_probe,
	.open = kudu_open,
	.close = kudu_close,
};

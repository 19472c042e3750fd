/* colfs: salvage of a Kudu CFile whose footer is lost (docs/cfile-tree.md,
 * "Salvage").
 *
 * Without the footer nothing says where blocks are, but blocks are written
 * back to back from the end of the header (§1.3), so they can be walked
 * if each block's end can be recognised:
 *
 *  - with checksums (the header's CRC-32C is present and right, so the
 *    CHECKSUM bit was set): a block ends at the first n >= 1 where the 4
 *    bytes after n bytes are the CRC-32C of those n bytes (and, for a
 *    compressed file, the size prefix is sane);
 *  - without checksums, compressed: v1 blocks carry their compressed size;
 *    v2 blocks carry the uncompressed size u, and the codec stream's own
 *    structure gives its end (zlib: the end of the deflate stream; LZ4:
 *    the sequence whose literals reach u bytes; snappy: the element that
 *    reaches u bytes), checked by decompressing exactly u bytes; a block
 *    whose stream does not parse is taken as stored raw (u bytes);
 *  - without checksums and uncompressed: with the type options, the
 *    length the encoded block declares or implies (declared_len), the
 *    ordinals continuing and the block decoding; else nothing is listed.
 *
 * Where no block ends (damage, or the lost footer), the walk looks
 * forward for the next position where a whole block verifies (resync():
 * CRC-32C and exact decompression; bounded by CSAL_RESYNC_WINDOW and
 * CSAL_RESYNC_ATTEMPTS), records the skipped range and goes on; it stops
 * where none is found.  Blocks whose decoded bytes end in an index block
 * trailer (§10.1) are index blocks; with DICT_ENCODING the last block
 * before the stop that is not an index block is the dictionary (Kudu
 * writes it last, §1.3); the rest are data blocks.  The compression is
 * the option's, else found from the first block whose size prefix says it
 * is compressed (the codec that gives exactly that many bytes).  Data
 * blocks are decoded by the ordinary block decoders with the type,
 * encoding and nullability given as options.
 *
 * Bounds: a block is at most CFILE_MAX_BLOCK + 8 stored bytes (the
 * reader's own cap plus the v1 prefix), at most CSAL_MAX_BLOCKS blocks
 * are kept; memory is one block plus its decompressed form.  The source
 * file is only read. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfile_int.h"
#include "core/codec.h"

#define CSAL_MAX_STORED (CFILE_MAX_BLOCK + 8u)
#define CSAL_MAX_BLOCKS (1u << 20)
/* Resynchronising after a damaged block (docs/tree.md, Limits): the next
 * block must start and end within this many bytes of the damaged block's
 * start, at most this many candidate starts (positions whose first bytes
 * could begin a block) are tried, and at most this many byte ranges are
 * skipped in one file. */
#define CSAL_RESYNC_WINDOW (4u << 20)
#define CSAL_RESYNC_ATTEMPTS 4096u
#define CSAL_MAX_SKIPS 1024u

enum csal_kind { CSAL_DATA = 0, CSAL_INDEX, CSAL_DICT };

typedef struct csal_block {
	cfile_ptr ptr;
	enum csal_kind kind;
} csal_block;

/* A byte range the walk skipped: no block verifies in it. */
typedef struct csal_skip {
	uint64_t off, len;
	char why[200];
} csal_skip;

typedef struct cfile_salvage {
	bool scanned;
	cfile_file s;             /* framing and decoding parameters */
	bool header_ok;
	bool compression_known;
	const char *compression_from;
	bool type_known;          /* the type options are given and valid */
	uint64_t next_ordinal;    /* walk without checksums or codec */
	bool can_decode;
	char why_not[400];        /* why blocks are not decoded */
	csal_block *b;
	uint32_t n, cap;
	uint32_t *data;           /* block index of data block k */
	uint32_t n_data;
	uint64_t stop;            /* where the walk stopped */
	char stop_why[200];
	csal_skip *skip;          /* damaged ranges walked past */
	uint32_t n_skip;
	/* the caps, times the salvage_effort option */
	uint32_t max_blocks, max_skips, resync_attempts;
	Kudu__Cfile__CFileFooterPB footer;
	Kudu__Cfile__BlockPointerPB dict_ptr;
	colfs_buf summary;
} cfile_salvage;

/* --- block ends without checksums --------------------------------------------- */

static colfs_codec codec_of(int32_t c)
{
	return c == CFILE_SNAPPY ? COLFS_CODEC_SNAPPY :
	       c == CFILE_LZ4 ? COLFS_CODEC_LZ4_RAW :
	       c == CFILE_ZLIB ? COLFS_CODEC_ZLIB : COLFS_CODEC_NONE;
}

/* --- the walk ------------------------------------------------------------------- */

/* Read up to `want` bytes at `off` into sv's buffer (grown). */
static colfs_status fill(cfile_salvage *sv, uint8_t **buf, size_t *cap,
			 uint64_t off, size_t want, size_t *have,
			 colfs_err *err)
{
	uint64_t left = sv->s.size - off;

	if (want > left)
		want = (size_t)left;
	if (want > *cap) {
		uint8_t *nb = realloc(*buf, want);

		if (!nb)
			return colfs_fail(err, COLFS_ENOMEM, off,
					  "out of memory");
		*buf = nb;
		*cap = want;
	}
	*have = want;
	return colfs_source_read_at(sv->s.src, off, want, *buf, err);
}

/* Is `p[0..n)` (a stored payload) a sane compression frame? */
static bool frame_sane(const cfile_salvage *sv, const uint8_t *p, size_t n)
{
	if (!sv->compression_known || sv->s.compression == CFILE_NO_COMPRESSION)
		return true;
	if (sv->s.version == 1)
		return n >= 8 && colfs_le32(p) == n - 8 &&
		       colfs_le32(p + 4) <= CFILE_MAX_BLOCK;
	return n >= 4 && n - 4 <= colfs_le32(p) &&
	       colfs_le32(p) <= CFILE_MAX_BLOCK;
}

/* The walk reads the bytes it has buffered through a cursor at the
 * file offset of the buffer; a read past them fails, and the walk then
 * finds no block here. */
static bool cur_at(colfs_cursor *c, const uint8_t *buf, size_t have,
		   uint64_t off, uint64_t at)
{
	colfs_cursor_init(c, buf, have, off);
	return at <= have && colfs_cursor_seek(c, (size_t)at, NULL) == COLFS_OK;
}

static bool cur_varint32(colfs_cursor *c, uint32_t *v)
{
	uint64_t x;

	if (colfs_cursor_uvarint(c, &x, NULL) != COLFS_OK || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool cur_u32(colfs_cursor *c, uint32_t *v)
{
	return colfs_cursor_u32le(c, v, NULL) == COLFS_OK;
}

/* Make at least `need` bytes from `off` available in *buf (*have grows);
 * *ok false when the file or the block cap ends first. */
static colfs_status want_bytes(cfile_salvage *sv, uint64_t off, uint8_t **buf,
			       size_t *cap, size_t *have, uint64_t need,
			       bool *ok, colfs_err *err)
{
	size_t want;

	*ok = need <= *have;
	if (*ok || need > CSAL_MAX_STORED)
		return COLFS_OK;
	want = *have * 2 > need ? *have * 2 : (size_t)need;
	if (want > CSAL_MAX_STORED)
		want = CSAL_MAX_STORED;
	COLFS_TRY(fill(sv, buf, cap, off, want, have, err));
	*ok = need <= *have;
	return COLFS_OK;
}

/* The end of an RLE block's stream (§9.6, §8) that starts at `at` (after
 * the count and ordinal), holding `count` values of `w` bits: runs are
 * walked, the final literal run holds ceil(m * w / 8) bytes for its m
 * values (Kudu truncates it).  0 when it runs out. */
static colfs_status rle_end(cfile_salvage *sv, uint64_t off, uint8_t **buf,
			    size_t *cap, size_t *have, size_t at,
			    uint32_t count, unsigned w, uint64_t *end,
			    colfs_err *err)
{
	uint64_t done = 0, p = at;
	bool ok;

	*end = 0;
	while (done < count) {
		uint32_t ind;
		colfs_cursor c;

		COLFS_TRY(want_bytes(sv, off, buf, cap, have, p + 5, &ok, err));
		if (!cur_at(&c, *buf, *have, off, p) || !cur_varint32(&c, &ind) ||
		    ind > INT32_MAX || (ind >> 1) == 0)
			return COLFS_OK;
		p = c.pos;
		if (!(ind & 1)) {
			p += (w + 7) / 8;
			done += ind >> 1;
		} else if (done + (uint64_t)(ind >> 1) * 8 >= count) {
			p += ((count - done) * w + 7) / 8;
			done = count;
		} else {
			p += (uint64_t)(ind >> 1) * w;
			done += (uint64_t)(ind >> 1) * 8;
		}
		if (p > CSAL_MAX_STORED)
			return COLFS_OK;
	}
	*end = p;
	return COLFS_OK;
}

/* The end of a PREFIX block (§9.4) whose header group starts at `at`:
 * `count` entries (varint shared, varint unshared, the bytes), then the
 * restart array of R = (count - 1) / interval positions and R itself.
 * 0 when it runs out or R is not there. */
static colfs_status prefix_end(cfile_salvage *sv, uint64_t off, uint8_t **buf,
			       size_t *cap, size_t *have, size_t at,
			       uint32_t *ordinal, uint32_t *count,
			       uint64_t *end, colfs_err *err)
{
	uint32_t hdr[4], n, r, rn;
	uint64_t p = at;
	bool ok;
	uint8_t sel;
	colfs_cursor c;

	*end = 0;
	COLFS_TRY(want_bytes(sv, off, buf, cap, have, p + 17, &ok, err));
	if (!cur_at(&c, *buf, *have, off, p) ||
	    colfs_cursor_u8(&c, &sel, NULL) != COLFS_OK)
		return COLFS_OK;
	for (int i = 0; i < 4; i++) {
		unsigned len = ((sel >> (6 - 2 * i)) & 3) + 1;
		const uint8_t *b;

		if (colfs_cursor_bytes(&c, len, &b, NULL) != COLFS_OK)
			return COLFS_OK;
		hdr[i] = 0;
		for (unsigned k = len; k-- > 0;)
			hdr[i] = hdr[i] << 8 | b[k];
	}
	p = c.pos;
	n = hdr[0];
	if (hdr[2] == 0 || (uint64_t)n * 2 > CSAL_MAX_STORED)
		return COLFS_OK;
	*count = n;
	*ordinal = hdr[1];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t shared, unshared;

		COLFS_TRY(want_bytes(sv, off, buf, cap, have, p + 10, &ok,
				     err));
		if (!cur_at(&c, *buf, *have, off, p) ||
		    !cur_varint32(&c, &shared) || !cur_varint32(&c, &unshared))
			return COLFS_OK;
		p = (uint64_t)c.pos + unshared;
		if (p > CSAL_MAX_STORED)
			return COLFS_OK;
	}
	r = n ? (n - 1) / hdr[2] : 0;
	p += 4 * (uint64_t)r;
	COLFS_TRY(want_bytes(sv, off, buf, cap, have, p + 4, &ok, err));
	if (!ok || !cur_at(&c, *buf, *have, off, p) || !cur_u32(&c, &rn) ||
	    rn != r)
		return COLFS_OK;
	*end = p + 4;
	return COLFS_OK;
}

/* Uncompressed blocks without checksums: the length a data block declares
 * through its own headers (§7.2 nullable prefix; §9.1 / §9.2 PLAIN: 8 +
 * the values; §9.3 PLAIN BINARY: the offset table's group-varint groups
 * after offsets_pos; §9.7 BIT_SHUFFLE: its size field; §9.5 DICT: the
 * mode word, then a BIT_SHUFFLE or PLAIN BINARY block; §9.6 RLE: the end
 * of its run stream after `count` values; §9.4 PREFIX: its entries, then
 * the restart array and its length).  GROUP_VARINT blocks are not
 * walked: 0. */
static colfs_status declared_len(cfile_salvage *sv, uint64_t off,
				 uint8_t **buf, size_t *cap, uint32_t *out,
				 uint32_t *ordinal, uint32_t *rows,
				 colfs_err *err)
{
	const cfile_file *s = &sv->s;
	size_t have, at = 0;
	uint64_t inner = 0, total;
	int32_t enc = s->encoding;
	bool binary = s->ti->phys == CFILE_PHYS_BINARY;
	colfs_cursor c;

	*out = 0;
	COLFS_TRY(fill(sv, buf, cap, off, 64, &have, err));
	colfs_cursor_init(&c, *buf, have, off);
	bool null_rows = false;

	if (s->nullable) {
		uint32_t blen;

		null_rows = true;
		if (!cur_varint32(&c, rows) || !cur_varint32(&c, &blen) ||
		    (uint64_t)c.pos + blen + 64 > CSAL_MAX_STORED)
			return COLFS_OK;
		at = c.pos;
		COLFS_TRY(fill(sv, buf, cap, off, at + blen + 64, &have, err));
		at += blen;
		if (!cur_at(&c, *buf, have, off, at))
			return COLFS_OK;
	}
	if (enc == CFILE_DICT) {
		uint32_t mode;

		if (!cur_u32(&c, &mode))
			return COLFS_OK;
		at += 4;
		if (mode == 1)
			enc = CFILE_BIT_SHUFFLE;
		else if (mode == 2)
			enc = CFILE_PLAIN;
		else
			return COLFS_OK;
	}
	if (enc == CFILE_BIT_SHUFFLE) {
		uint32_t ord, n, size;

		if (!cur_u32(&c, &ord) || !cur_u32(&c, &n) ||
		    !cur_u32(&c, &size) || colfs_cursor_left(&c) < 8 ||
		    size < 20)
			return COLFS_OK;
		inner = size;
		*ordinal = ord;
		if (!null_rows)
			*rows = n;
	} else if (enc == CFILE_PLAIN && binary) {
		uint32_t count, opos;
		uint64_t groups, need, p;

		if (!cur_u32(&c, ordinal) || !cur_u32(&c, &count) ||
		    !cur_u32(&c, &opos))
			return COLFS_OK;
		if (!null_rows)
			*rows = count;
		groups = ((uint64_t)count + 3) / 4;
		need = (uint64_t)at + opos + 17 * groups;
		if (opos < 12 || need > CSAL_MAX_STORED)
			return COLFS_OK;
		COLFS_TRY(fill(sv, buf, cap, off, (size_t)need, &have, err));
		p = (uint64_t)at + opos;
		/* the offset table's group-varint groups: a selector byte
		 * gives the group's length */
		for (uint64_t g = 0; g < groups; g++) {
			uint8_t sel;

			if (!cur_at(&c, *buf, have, off, p) ||
			    colfs_cursor_u8(&c, &sel, NULL) != COLFS_OK)
				return COLFS_OK;
			p += 5 + (sel >> 6) + ((sel >> 4) & 3) +
			     ((sel >> 2) & 3) + (sel & 3);
		}
		inner = p - at;
	} else if (enc == CFILE_PLAIN) {
		uint32_t count;

		if (!cur_u32(&c, &count) || !cur_u32(&c, ordinal))
			return COLFS_OK;
		if (!null_rows)
			*rows = count;
		inner = s->ti->phys == CFILE_PHYS_BOOL
				? 8 + ((uint64_t)count + 7) / 8
				: 8 + (uint64_t)count * s->ti->width;
	} else if (enc == CFILE_RLE) {
		unsigned w = s->ti->phys == CFILE_PHYS_BOOL ? 1
							    : 8u * s->ti->width;
		uint32_t count;
		uint64_t end;

		if (w > 64 || !cur_u32(&c, &count) || !cur_u32(&c, ordinal))
			return COLFS_OK;
		if (!null_rows)
			*rows = count;
		COLFS_TRY(rle_end(sv, off, buf, cap, &have, at + 8, count, w,
				  &end, err));
		if (!end)
			return COLFS_OK;
		inner = end - at;
	} else if (enc == CFILE_PREFIX) {
		uint32_t count = 0;
		uint64_t end;

		COLFS_TRY(prefix_end(sv, off, buf, cap, &have, at, ordinal,
				     &count, &end, err));
		if (!end)
			return COLFS_OK;
		if (!null_rows)
			*rows = count;
		inner = end - at;
	} else {
		return COLFS_OK;
	}
	total = at + inner;
	if (total > CSAL_MAX_STORED || total > sv->s.size - off)
		return COLFS_OK;
	*out = (uint32_t)total;
	return COLFS_OK;
}

/* The stored size of the block at `off`, or 0 (why in sv->stop_why). */
static colfs_status block_end(cfile_salvage *sv, uint64_t off, uint8_t **buf,
			      size_t *cap, uint8_t **out, uint32_t *size,
			      colfs_err *err)
{
	size_t have = 0;

	*size = 0;
	if (sv->s.checksums) {
		uint32_t crc = 0;

		COLFS_TRY(fill(sv, buf, cap, off, 1u << 16, &have, err));
		for (size_t n = 0; n + 4 <= CSAL_MAX_STORED;) {
			if (n + 4 > have) {
				size_t before = have, want = have * 2;

				if (want > CSAL_MAX_STORED)
					want = CSAL_MAX_STORED;
				COLFS_TRY(fill(sv, buf, cap, off, want, &have,
					       err));
				if (have == before)
					break; /* the end of the file */
				continue;
			}
			if (n > 0 && colfs_le32(*buf + n) == crc &&
			    frame_sane(sv, *buf, n)) {
				*size = (uint32_t)n + 4;
				return COLFS_OK;
			}
			crc = colfs_crc32c(crc, *buf + n, 1);
			n++;
		}
		if (have == sv->s.size - off && have < CSAL_MAX_STORED)
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "no block checksum matches before the end "
				 "of the file");
		else
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "no block checksum matches within %u bytes",
				 CSAL_MAX_STORED);
		return COLFS_OK;
	}
	if (!sv->compression_known ||
	    sv->s.compression == CFILE_NO_COMPRESSION) {
		uint32_t len = 0;
		cfile_raw r;
		cfile_values v;
		colfs_err derr = {0};
		int32_t comp = sv->s.compression;

		if (!sv->type_known) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "an uncompressed file without checksums: "
				 "block boundaries need the type options");
			return COLFS_OK;
		}
		uint32_t ord = 0, rows = 0;

		COLFS_TRY(declared_len(sv, off, buf, cap, &len, &ord, &rows,
				       err));
		if (!len) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "an uncompressed file without checksums: no "
				 "%s block length is declared here",
				 cfile_types_encoding_name(sv->s.encoding));
			return COLFS_OK;
		}
		/* data blocks follow each other in ordinal order (§11): an
		 * index block read as a data block does not continue; and
		 * writers never write a block without rows */
		if (rows == 0) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the block declared here has no rows");
			return COLFS_OK;
		}
		if (ord != sv->next_ordinal) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the block declared here has first ordinal "
				 "%u, the blocks before end at row %llu (an "
				 "index block?)", ord,
				 (unsigned long long)sv->next_ordinal);
			return COLFS_OK;
		}
		/* the block must decode (DICT codewords need the
		 * dictionary, written last: their blocks are not checked) */
		sv->s.compression = CFILE_NO_COMPRESSION;
		if (cfile_block_read(&sv->s, (cfile_ptr){off, len}, &r,
				     &derr) != COLFS_OK) {
			sv->s.compression = comp;
			return COLFS_OK;
		}
		if (sv->s.encoding != CFILE_DICT) {
			if (cfile_block_decode(&sv->s, &r, (cfile_ptr){off, len},
					       &v, &derr) != COLFS_OK) {
				cfile_block_raw_free(&r);
				sv->s.compression = comp;
				snprintf(sv->stop_why, sizeof(sv->stop_why),
					 "the block declared here does not "
					 "decode (%.100s)", derr.msg);
				return COLFS_OK;
			}
			cfile_block_values_free(&v);
		}
		cfile_block_raw_free(&r);
		if (!sv->compression_known) {
			sv->compression_known = true;
			sv->compression_from = "blocks that decode "
					       "uncompressed";
		}
		sv->next_ordinal += rows;
		*size = len;
		return COLFS_OK;
	}
	COLFS_TRY(fill(sv, buf, cap, off, 8, &have, err));
	colfs_cursor pc;

	colfs_cursor_init(&pc, *buf, have, off);
	if (sv->s.version == 1) {
		uint32_t c, u;

		if (!cur_u32(&pc, &c) || !cur_u32(&pc, &u)) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the file ends inside a block prefix");
			return COLFS_OK;
		}
		if (u > CFILE_MAX_BLOCK || c > u + (u >> 4) + 1024 ||
		    (uint64_t)c + 8 > sv->s.size - off) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the v1 size prefix (%u compressed, %u "
				 "uncompressed) does not fit", c, u);
			return COLFS_OK;
		}
		*size = c + 8;
		return COLFS_OK;
	}
	{
		uint32_t u, c;

		if (!cur_u32(&pc, &u)) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the file ends inside a block prefix");
			return COLFS_OK;
		}
		if (u == 0 || u > CFILE_MAX_BLOCK) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the size prefix %u is not a block's", u);
			return COLFS_OK;
		}
		COLFS_TRY(fill(sv, buf, cap, off, (size_t)u + 4, &have, err));
		free(*out);
		*out = malloc(u);
		if (!*out)
			return colfs_fail(err, COLFS_ENOMEM, off,
					  "out of memory");
		c = (uint32_t)colfs_codec_stream_end(codec_of(sv->s.compression),
						     *buf + 4, have - 4, u,
						     *out);
		if (!c) {
			uint8_t n4[4];
			uint64_t after = off + 4 + (uint64_t)u;

			if ((uint64_t)u + 4 > have) {
				snprintf(sv->stop_why, sizeof(sv->stop_why),
					 "no %s stream of %u bytes starts "
					 "here", cfile_types_compression_name(
						 sv->s.compression), u);
				return COLFS_OK;
			}
			/* stored raw, if a block (or the end of the file)
			 * follows; else a damaged stream */
			if (after < sv->s.size &&
			    (after + 4 > sv->s.size ||
			     colfs_source_read_at(sv->s.src, after, 4, n4,
						  err) != COLFS_OK ||
			     colfs_le32(n4) == 0 ||
			     colfs_le32(n4) > CFILE_MAX_BLOCK)) {
				snprintf(sv->stop_why, sizeof(sv->stop_why),
					 "the %s stream here does not parse, "
					 "and no block follows it taken as "
					 "stored raw", cfile_types_compression_name(
						 sv->s.compression));
				return COLFS_OK;
			}
			c = u; /* stored raw */
		}
		*size = c + 4;
	}
	return COLFS_OK;
}

/* --- resynchronising after a damaged block ---------------------------------------- */

/* After a position where no block ends: the first later position, within
 * CSAL_RESYNC_WINDOW bytes and CSAL_RESYNC_ATTEMPTS candidates, where a
 * whole block verifies: its CRC-32C matches (with checksums) and it
 * decompresses to exactly its declared size (compressed files; without
 * checksums a real codec stream is required, a block stored raw cannot be
 * told from damage).  Candidates: compressed files, positions whose size
 * prefix is sane (the stream's end, or u bytes stored raw, gives the
 * block's end); uncompressed files with checksums and the type options,
 * positions where the encoded block gives a length and rows
 * (declared_len: every encoding but GROUP_VARINT).  `*next` = 0 when none (why in `why`). */
static colfs_status resync(cfile_salvage *sv, uint64_t pos, uint8_t **out,
			   uint64_t *next, char *why, size_t why_len,
			   colfs_err *err)
{
	cfile_file *s = &sv->s;
	bool comp = sv->compression_known &&
		    s->compression != CFILE_NO_COMPRESSION;
	bool typed = !comp && s->checksums && sv->type_known &&
		     s->encoding != CFILE_GROUP_VARINT;
	uint64_t wlen = s->size - pos;
	uint8_t *w = NULL, *tmp = NULL;
	size_t tcap = 0, ocap = 0;
	uint32_t *P = NULL;
	colfs_source *wsrc = NULL;
	unsigned attempts = 0;
	colfs_status st = COLFS_OK;

	*next = 0;
	if (!comp && !typed) {
		snprintf(why, why_len, "%s",
			 !s->checksums
				 ? "uncompressed blocks without checksums "
				   "cannot be told from damage"
			 : !sv->type_known
				 ? "finding the next uncompressed block "
				   "needs the type options"
				 : "these uncompressed blocks do not declare "
				   "their length");
		return COLFS_OK;
	}
	if (wlen > CSAL_RESYNC_WINDOW)
		wlen = CSAL_RESYNC_WINDOW;
	w = malloc(wlen ? (size_t)wlen : 1);
	if (s->checksums)
		P = malloc(((size_t)wlen + 1) * sizeof(*P));
	if (!w || (s->checksums && !P)) {
		st = colfs_fail(err, COLFS_ENOMEM, pos, "out of memory");
		goto out;
	}
	if ((st = colfs_source_read_at(s->src, pos, (size_t)wlen, w, err)))
		goto out;
	if (typed && (st = colfs_source_create_memory(w, (size_t)wlen,
						      &wsrc))) {
		st = colfs_fail(err, st, pos, "out of memory");
		goto out;
	}
	if (P) {
		/* then each candidate's CRC-32C costs O(log n), not a pass
		 * over its bytes */
		colfs_crc32c_prefixes(w, (size_t)wlen, P);
	}
	for (uint64_t o = 1; o + 4 <= wlen && attempts < sv->resync_attempts;
	     o++) {
		uint64_t left = wlen - o;
		uint32_t u = colfs_le32(w + o), cand[2];
		int nc = 0;

		if (comp && s->version == 1) {
			uint32_t uu;

			if (left < 8)
				continue;
			uu = colfs_le32(w + o + 4);
			if (u == 0 || uu > CFILE_MAX_BLOCK ||
			    u > uu + (uu >> 4) + 1024 || (uint64_t)u + 8 > left)
				continue;
			cand[nc++] = u + 8;
		} else if (comp) {
			size_t c;

			if (u == 0 || u > CFILE_MAX_BLOCK)
				continue;
			if (u > ocap) {
				uint8_t *nb = realloc(*out, u);

				if (!nb) {
					st = colfs_fail(err, COLFS_ENOMEM, pos,
							"out of memory");
					goto out;
				}
				*out = nb;
				ocap = u;
			}
			c = colfs_codec_stream_end(
				codec_of(s->compression), w + o + 4,
				(size_t)(left - 4), u, *out);
			if (c && c < u)
				cand[nc++] = (uint32_t)c + 4;
			if (s->checksums && (uint64_t)u + 4 <= left)
				cand[nc++] = u + 4; /* stored raw */
		} else {
			uint32_t len = 0, ord = 0, rows = 0;
			colfs_source *src0 = s->src;
			uint64_t size0 = s->size;

			/* the encoded block's own lengths, read from the
			 * window as a source of its own */
			s->src = wsrc;
			s->size = wlen;
			st = declared_len(sv, o, &tmp, &tcap, &len, &ord, &rows,
					  err);
			s->src = src0;
			s->size = size0;
			if (st)
				goto out;
			if (!len || !rows)
				continue;
			cand[nc++] = len;
		}
		attempts++;
		for (int k = 0; k < nc; k++) {
			uint64_t e = o + cand[k];
			uint32_t size = cand[k];
			cfile_raw r;

			if (s->checksums) {
				if (e + 4 > wlen ||
				    colfs_le32(w + e) !=
					    colfs_crc32c_span(P, (size_t)o,
							      (size_t)e))
					continue;
				size += 4;
			}
			if (cfile_block_read(s, (cfile_ptr){pos + o, size}, &r,
					     NULL) != COLFS_OK)
				continue;
			cfile_block_raw_free(&r);
			*next = pos + o;
			goto out;
		}
	}
	snprintf(why, why_len, "no block verifies in the next %llu bytes "
		 "(%u candidate starts tried)", (unsigned long long)wlen,
		 attempts);
out:
	colfs_source_destroy(wsrc);
	free(w);
	free(P);
	free(tmp);
	return st;
}

/* Does a decoded block end in an index block trailer (§10.1)? */
static bool is_index_block(const uint8_t *p, size_t n)
{
	uint32_t tl, N;
	colfs_proto_msg m = {0};
	const Kudu__Cfile__IndexBlockTrailerPB *tr;
	colfs_cursor c;
	bool ok;

	colfs_cursor_init(&c, p, n, 0);
	if (n < 8 || colfs_cursor_seek(&c, n - 4, NULL) || !cur_u32(&c, &tl))
		return false;
	if (tl < 4 || tl > 64 || tl > n - 4)
		return false;
	/* tl <= 64: the cap needs no file option */
	if (colfs_proto_unpack_status(
		    &m, &kudu__cfile__index_block_trailer_pb__descriptor,
		    p + n - 4 - tl, tl, colfs_proto_cap(tl, UINT64_MAX)))
		return false;
	tr = (const Kudu__Cfile__IndexBlockTrailerPB *)m.msg;
	N = tr->num_entries >= 0 ? (uint32_t)tr->num_entries : UINT32_MAX;
	ok = tr->type == 0 || tr->type == 1;
	ok = ok && N <= (n - 4 - tl) / 4;
	if (ok) {
		size_t table = n - 4 - tl - 4 * (size_t)N;
		uint32_t prev = 0, o = 0;

		ok = colfs_cursor_seek(&c, table, NULL) == COLFS_OK;
		for (uint32_t i = 0; ok && i < N; i++) {
			ok = cur_u32(&c, &o) && o < table &&
			     (i == 0 ? o == 0 : o > prev);
			prev = o;
		}
	}
	colfs_proto_free(&m);
	return ok;
}

/* Which codec, if any, decompresses the stored payload `p` of a v2 block
 * to exactly its prefix size (only blocks with c < u tell). */
static int32_t detect_codec(const uint8_t *p, size_t n, uint8_t **tmp)
{
	static const int32_t codecs[] = {CFILE_LZ4, CFILE_SNAPPY, CFILE_ZLIB};
	uint32_t u;
	colfs_cursor c;

	colfs_cursor_init(&c, p, n, 0);
	if (!cur_u32(&c, &u))
		return -1;
	if (n - 4 >= u || u > CFILE_MAX_BLOCK)
		return -1;
	free(*tmp);
	*tmp = malloc(u ? u : 1);
	if (!*tmp)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		size_t got = 0;

		if (colfs_codec_decompress(codec_of(codecs[i]), p + 4, n - 4,
					   *tmp, u, &got, 0, NULL) == COLFS_OK &&
		    got == u)
			return codecs[i];
	}
	return -1;
}

static int32_t name_lookup(const char *v, const char *(*name)(int32_t),
			   int32_t count)
{
	for (int32_t i = 0; i < count; i++) {
		const char *n = name(i);
		size_t l = strlen(v);

		if (strcasecmp(v, n) == 0 ||
		    (strncasecmp(v, n, l) == 0 && !strcmp(n + l, "_ENCODING")))
			return i;
	}
	return -1;
}

static colfs_status scan(colfs_tree *t, cfile_salvage *sv, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	cfile_file *s = &sv->s;
	uint8_t head[12], *buf = NULL, *out = NULL;
	size_t cap = 0;
	uint64_t pos;
	colfs_status st = COLFS_OK;
	uint32_t H;

	/* header: magic, length, CRC (presence of checksums) */
	COLFS_TRY(colfs_source_read_at(s->src, 0, 12, head, err));
	s->version = !memcmp(head, CFILE_MAGIC_V2, 8) ? 2 :
		     !memcmp(head, CFILE_MAGIC_V1, 8) ? 1 : 0;
	H = colfs_le32(head + 8);
	if (!s->version || H > CFILE_MAX_PB || 12 + (uint64_t)H > s->size) {
		snprintf(sv->stop_why, sizeof(sv->stop_why),
			 "the header is not a CFile header (magic or "
			 "length)");
		sv->stop = 0;
		return COLFS_OK;
	}
	sv->header_ok = true;
	pos = 12 + (uint64_t)H;
	if (s->version == 2 && pos + 4 <= s->size) {
		uint8_t *hb = malloc((size_t)pos + 4);

		if (!hb)
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "out of memory");
		st = colfs_source_read_at(s->src, 0, (size_t)pos + 4, hb, err);
		if (!st && colfs_le32(hb + pos) == colfs_crc32c(0, hb, pos))
			s->checksums = true;
		free(hb);
		COLFS_TRY(st);
	}
	if (s->checksums)
		pos += 4;
	s->header_len = (uint32_t)pos;
	s->footer_start = s->size;

	if (o->cfile_compression) {
		s->compression = name_lookup(o->cfile_compression,
					     cfile_types_compression_name, 5);
		if (s->compression < 0 ||
		    !strcasecmp(o->cfile_compression, "NONE"))
			s->compression = CFILE_NO_COMPRESSION;
		sv->compression_known = true;
		sv->compression_from = "option cfile_compression";
	}

	/* without checksums the codec must be known to walk: the one that
	 * decodes the first block (a v2 block stored raw does not tell) */
	if (!s->checksums && !sv->compression_known) {
		static const int32_t codecs[] = {CFILE_LZ4, CFILE_SNAPPY,
						 CFILE_ZLIB};
		for (size_t i = 0; i < 3 && !sv->compression_known; i++) {
			uint32_t size;
			cfile_raw r;

			s->compression = codecs[i];
			sv->compression_known = true;
			st = block_end(sv, pos, &buf, &cap, &out, &size, err);
			if (st)
				goto out;
			if (!size ||
			    (s->version == 2 && size == colfs_le32(buf) + 4) ||
			    cfile_block_read(s, (cfile_ptr){pos, size}, &r,
					     NULL) != COLFS_OK) {
				sv->compression_known = false;
				continue;
			}
			cfile_block_raw_free(&r);
		}
		sv->stop_why[0] = '\0';
		if (sv->compression_known)
			sv->compression_from = "the first block's codec stream";
		else
			s->compression = CFILE_NO_COMPRESSION;
	}

	while (pos < s->size) {
		uint32_t size;
		csal_block *b;

		if (sv->n >= sv->max_blocks) {
			snprintf(sv->stop_why, sizeof(sv->stop_why),
				 "the cap of %u blocks is reached; -o "
				 "salvage_effort raises it", sv->max_blocks);
			break;
		}
		st = block_end(sv, pos, &buf, &cap, &out, &size, err);
		if (st)
			goto out;
		if (!size && pos < s->size) {
			/* damage, or the end of the blocks: walk past it to
			 * the next block that verifies */
			uint64_t next = 0;
			char why[200];

			if (sv->n_skip >= sv->max_skips) {
				snprintf(sv->stop_why, sizeof(sv->stop_why),
					 "the cap of %u skipped ranges is "
					 "reached; -o salvage_effort raises it",
					 sv->max_skips);
				break;
			}
			st = resync(sv, pos, &out, &next, why, sizeof(why),
				    err);
			if (st)
				goto out;
			if (!next) {
				size_t l = strlen(sv->stop_why);

				snprintf(sv->stop_why + l,
					 sizeof(sv->stop_why) - l, "; %s", why);
				break;
			}
			csal_skip *nk = realloc(sv->skip, (sv->n_skip + 1) *
							  sizeof(*nk));
			if (!nk) {
				st = colfs_fail(err, COLFS_ENOMEM, pos,
						"out of memory");
				goto out;
			}
			sv->skip = nk;
			nk[sv->n_skip].off = pos;
			nk[sv->n_skip].len = next - pos;
			snprintf(nk[sv->n_skip].why, sizeof(nk->why), "%s",
				 sv->stop_why);
			sv->n_skip++;
			sv->stop_why[0] = '\0';
			pos = next;
			continue;
		}
		if (!size)
			break;
		if (!sv->compression_known && s->version == 2) {
			int32_t c = detect_codec(buf, size - 4, &out);

			if (c >= 0) {
				s->compression = c;
				sv->compression_known = true;
				sv->compression_from = "the first compressed "
						       "block";
			}
		}
		if (sv->n == sv->cap) {
			uint32_t nc = sv->cap ? sv->cap * 2 : 64;
			csal_block *nb = realloc(sv->b, nc * sizeof(*nb));

			if (!nb) {
				st = colfs_fail(err, COLFS_ENOMEM, pos,
						"out of memory");
				goto out;
			}
			sv->b = nb;
			sv->cap = nc;
		}
		b = &sv->b[sv->n++];
		b->ptr.offset = pos;
		b->ptr.size = size;
		b->kind = CSAL_DATA;
		pos += size;
	}
	sv->stop = pos;
	if (pos >= s->size && !sv->stop_why[0])
		snprintf(sv->stop_why, sizeof(sv->stop_why),
			 "the end of the file");
	if (!sv->compression_known) {
		if (s->checksums && sv->n > 0) {
			/* no block shrank: either uncompressed or every
			 * block stored raw behind a prefix; a prefix that
			 * is not sane rules the second out */
			bool prefixed = true;

			for (uint32_t i = 0; i < sv->n && prefixed; i++) {
				uint8_t p4[4];

				if (sv->b[i].ptr.size < 8 ||
				    colfs_source_read_at(s->src,
							 sv->b[i].ptr.offset,
							 4, p4, NULL) ||
				    colfs_le32(p4) != sv->b[i].ptr.size - 8)
					prefixed = false;
			}
			if (!prefixed) {
				s->compression = CFILE_NO_COMPRESSION;
				sv->compression_known = true;
				sv->compression_from =
					"block sizes (no block has a "
					"compression prefix)";
			}
		}
	}
	/* kinds */
	for (uint32_t i = 0; sv->compression_known && i < sv->n; i++) {
		cfile_raw r;

		if (cfile_block_read(s, sv->b[i].ptr, &r, NULL) != COLFS_OK)
			continue;
		if (is_index_block(r.data, r.data_len))
			sv->b[i].kind = CSAL_INDEX;
		cfile_block_raw_free(&r);
	}
out:
	free(buf);
	free(out);
	return st;
}

/* Decoding parameters from the options. */
/* The type options (before the walk: uncompressed blocks without
 * checksums are delimited by their encoding). */
static void parse_types(colfs_tree *t, cfile_salvage *sv)
{
	const colfs_options *o = colfs_tree_options(t);
	cfile_file *s = &sv->s;
	int32_t enc;

	if (!o->cfile_type || !o->cfile_encoding) {
		snprintf(sv->why_not, sizeof(sv->why_not),
			 "values need -o cfile_type=TYPE and -o "
			 "cfile_encoding=ENCODING (and cfile_nullable=true "
			 "for a nullable column)");
		return;
	}
	s->type = name_lookup(o->cfile_type, cfile_types_type_name,
			      CFILE_TYPE_COUNT);
	enc = !strcasecmp(o->cfile_encoding, "DICT") ? CFILE_DICT :
	      name_lookup(o->cfile_encoding, cfile_types_encoding_name,
			  CFILE_ENCODING_COUNT);
	s->ti = s->type >= 0 ? cfile_types_get(s->type) : NULL;
	if (!s->ti || enc < 0 || !cfile_types_encoding_legal(s->type, enc)) {
		snprintf(sv->why_not, sizeof(sv->why_not),
			 "encoding %s is not valid for type %s",
			 o->cfile_encoding, o->cfile_type);
		colfs_tree_report(t, NULL, 0, COLFS_EUNSUPPORTED,
				  "salvage: %s", sv->why_not);
		s->ti = NULL;
		return;
	}
	s->encoding = enc;
	s->nullable = o->cfile_nullable;
	sv->type_known = true;
}

/* After the walk: the dictionary, and whether blocks can be decoded. */
static void setup_decode(colfs_tree *t, cfile_salvage *sv)
{
	cfile_file *s = &sv->s;

	(void)t;
	if (!sv->type_known)
		return;
	if (!sv->compression_known) {
		snprintf(sv->why_not, sizeof(sv->why_not),
			 "the compression is not known: give -o "
			 "cfile_compression");
		return;
	}
	{
		int32_t enc = s->encoding;
	kudu__cfile__cfile_footer_pb__init(&sv->footer);
	s->footer = &sv->footer;
	if (enc == CFILE_DICT) {
		/* the dictionary is written last (§1.3) */
		uint32_t i = sv->n;

		while (i > 0 && sv->b[i - 1].kind != CSAL_DATA)
			i--;
		if (i == 0) {
			snprintf(sv->why_not, sizeof(sv->why_not),
				 "DICT_ENCODING needs the dictionary block, "
				 "the last block before the footer: none "
				 "found");
			s->footer = NULL;
			return;
		}
		sv->b[i - 1].kind = CSAL_DICT;
		kudu__cfile__block_pointer_pb__init(&sv->dict_ptr);
		sv->dict_ptr.has_offset = sv->dict_ptr.has_size = 1;
		sv->dict_ptr.offset = (int64_t)sv->b[i - 1].ptr.offset;
		sv->dict_ptr.size = (int32_t)sv->b[i - 1].ptr.size;
		sv->footer.dict_block_ptr = &sv->dict_ptr;
		{
			colfs_err derr = {0};
			cfile_raw r;
			bool zero = false;

			/* a dictionary is a PLAIN BINARY block with ordinal
			 * field 0 (§9.5); data blocks start with their mode,
			 * 1 or 2 */
			if (cfile_block_read(s, sv->b[i - 1].ptr, &r, &derr) ==
			    COLFS_OK) {
				zero = r.data_len >= 12 &&
				       colfs_le32(r.data) == 0;
				cfile_block_raw_free(&r);
				if (!zero)
					snprintf(derr.msg, sizeof(derr.msg),
						 "its ordinal field is not 0");
			}
			if (!zero || cfile_block_dict_load(s, &derr) != COLFS_OK) {
				snprintf(sv->why_not, sizeof(sv->why_not),
					 "DICT_ENCODING needs the dictionary "
					 "block, the last block before the "
					 "footer; the last block found is not "
					 "one (%.120s)", derr.msg);
				return;
			}
		}
	}
	}
	sv->can_decode = true;
}

/* --- the tree ----------------------------------------------------------------- */

static const char *null_token(colfs_tree *t)
{
	const char *s = colfs_tree_options(t)->null_token;
	return s ? s : "\\N";
}

static colfs_status decode_block(colfs_tree *t, colfs_node *where,
				 cfile_salvage *sv, uint32_t k,
				 cfile_values *v, cfile_raw *raw)
{
	const csal_block *b = &sv->b[sv->data[k]];
	colfs_err err = {0};
	colfs_status st;

	st = cfile_block_read(&sv->s, b->ptr, raw, &err);
	if (!st) {
		st = cfile_block_decode(&sv->s, raw, b->ptr, v, &err);
		if (st)
			cfile_block_raw_free(raw);
	}
	if (st)
		colfs_tree_report(t, where, err.offset, st,
				  "salvaged block %u: %s", k, err.msg);
	return st;
}

static colfs_status values_piece(colfs_tree *t, colfs_node *file,
				 uint64_t index, colfs_buf *out)
{
	cfile_salvage *sv = colfs_node_ctx(file);
	cfile_values v;
	cfile_raw raw;

	if (index >= sv->n_data)
		return COLFS_END;
	COLFS_TRY(decode_block(t, file, sv, (uint32_t)index, &v, &raw));
	cfile_block_values_render(&sv->s, &v, null_token(t), out);
	cfile_block_values_free(&v);
	cfile_block_raw_free(&raw);
	return colfs_buf_status(out);
}

static colfs_status block_values_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	return values_piece(t, file, colfs_node_a(file), out);
}

static colfs_status info_generate(colfs_tree *t, colfs_node *file,
				  colfs_buf *out)
{
	cfile_salvage *sv = colfs_node_ctx(file);
	uint32_t k = (uint32_t)colfs_node_a(file);
	const csal_block *b = &sv->b[sv->data[k]];
	json_t *o = json_object();

	json_object_set_new(o, "block", json_integer(k));
	json_object_set_new(o, "offset",
			    json_integer((json_int_t)b->ptr.offset));
	json_object_set_new(o, "size", json_integer(b->ptr.size));
	json_object_set_new(o, "checksum", json_boolean(sv->s.checksums));
	json_object_set_new(o, "compression",
			    json_string(cfile_types_compression_name(
				    sv->s.compression)));
	if (sv->can_decode) {
		cfile_values v;
		cfile_raw raw;

		json_object_set_new(o, "type",
				    json_string(cfile_types_type_name(sv->s.type)));
		json_object_set_new(o, "encoding",
				    json_string(cfile_types_encoding_name(
					    sv->s.encoding)));
		json_object_set_new(o, "nullable",
				    json_boolean(sv->s.nullable));
		if (decode_block(t, file, sv, k, &v, &raw) == COLFS_OK) {
			json_object_set_new(o, "first_ordinal",
					    json_integer(v.ordinal));
			json_object_set_new(o, "rows", json_integer(v.rows));
			cfile_block_values_free(&v);
			cfile_block_raw_free(&raw);
		}
	}
	return colfs_buf_json(out, o);
}

static const colfs_node_ops values_ops = {.piece = values_piece};
static const colfs_node_ops block_values_ops = {
	.generate = block_values_generate};
static const colfs_node_ops info_ops = {.generate = info_generate};

static colfs_status block_dir_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_salvage *sv = colfs_node_ctx(dir);
	uint32_t k = (uint32_t)colfs_node_a(dir);
	const csal_block *b = &sv->b[sv->data[k]];
	colfs_node *n;

	if (!(n = colfs_dir_add_doc(t, dir, "info.json", &info_ops, sv)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, k, 0, 0);
	if (!colfs_dir_add_range(t, dir, "raw", b->ptr.offset, b->ptr.size))
		return COLFS_ENOMEM;
	if (sv->compression_known &&
	    !cfile_tree_add_decompressed(t, dir, &sv->s, b->ptr))
		return COLFS_ENOMEM;
	if (sv->can_decode) {
		if (!(n = colfs_dir_add_doc(t, dir, "values",
					    &block_values_ops, sv)))
			return COLFS_ENOMEM;
		colfs_node_set_args(n, k, 0, 0);
	}
	return colfs_dir_add_errors(t, dir) ? COLFS_OK : COLFS_ENOMEM;
}

static const colfs_node_ops block_dir_ops = {.populate = block_dir_populate};

static colfs_status blocks_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_salvage *sv = colfs_node_ctx(dir);

	return cfile_tree_add_blocks(t, dir, sv->n_data, &block_dir_ops, sv);
}

static const colfs_node_ops blocks_ops = {.populate = blocks_populate};

static void summarize(colfs_tree *t, cfile_salvage *sv)
{
	colfs_buf *b = &sv->summary;
	const cfile_file *s = &sv->s;
	static const char *const kinds[] = {"data", "index", "dictionary"};

	(void)t;
	colfs_buf_puts(b, "salvage of a CFile whose footer cannot be used\n");
	if (!sv->header_ok) {
		colfs_buf_printf(b, "nothing salvaged: %s\n", sv->stop_why);
		return;
	}
	colfs_buf_printf(b, "version: %d\nheader: %u bytes\nchecksums: %s\n",
			 s->version, s->header_len,
			 s->checksums ? "yes (the header CRC-32C matches)"
				      : "no");
	if (sv->compression_known)
		colfs_buf_printf(b, "compression: %s (from %s)\n",
				 cfile_types_compression_name(s->compression),
				 sv->compression_from);
	else
		colfs_buf_puts(b, "compression: unknown (give -o "
				  "cfile_compression)\n");
	colfs_buf_printf(b, "block boundaries: %s\n",
			 s->checksums ? "each block's trailing CRC-32C"
			 : !sv->compression_known ||
					 s->compression == CFILE_NO_COMPRESSION
				 ? "the length and ordinal the encoded block "
				   "declares"
			 : s->version == 1 ? "the v1 compressed-size prefix"
					   : "the codec stream's end");
	colfs_buf_printf(b, "walk: offsets %u to %llu of %llu bytes; stopped "
			 "at %llu: %s\n", s->header_len,
			 (unsigned long long)sv->stop,
			 (unsigned long long)s->size,
			 (unsigned long long)sv->stop, sv->stop_why);
	colfs_buf_printf(b, "caps: %u blocks, %u skipped ranges, %u candidate "
			 "starts per damaged block (-o salvage_effort raises "
			 "them)\n", sv->max_blocks, sv->max_skips,
			 sv->resync_attempts);
	if (sv->can_decode)
		colfs_buf_printf(b, "decoding: %s %s %s\n",
				 cfile_types_type_name(s->type),
				 s->nullable ? "NULL" : "NOT NULL",
				 cfile_types_encoding_name(s->encoding));
	else
		colfs_buf_printf(b, "decoding: no: %s\n", sv->why_not);
	colfs_buf_printf(b, "blocks: %u (data %u)\n", sv->n, sv->n_data);
	for (uint32_t i = 0, k = 0; i < sv->n; i++) {
		const csal_block *x = &sv->b[i];

		colfs_buf_printf(b, "block at %llu size %u: %s",
				 (unsigned long long)x->ptr.offset,
				 x->ptr.size, kinds[x->kind]);
		if (x->kind == CSAL_DATA)
			colfs_buf_printf(b, " %u", k++);
		colfs_buf_putc(b, '\n');
	}
	for (uint32_t i = 0; i < sv->n_skip; i++)
		colfs_buf_printf(b, "skipped: offset %llu length %llu (%s)\n",
				 (unsigned long long)sv->skip[i].off,
				 (unsigned long long)sv->skip[i].len,
				 sv->skip[i].why);
	if (sv->stop < s->size)
		colfs_buf_printf(b, "not recovered: offset %llu length %llu\n",
				 (unsigned long long)sv->stop,
				 (unsigned long long)(s->size - sv->stop));
}

static colfs_status salvage_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_salvage *sv = colfs_node_ctx(dir);
	colfs_err err = {0};
	colfs_status st;

	if (!sv->scanned) {
		sv->scanned = true;
		parse_types(t, sv);
		st = scan(t, sv, &err);
		if (st) {
			colfs_tree_report_err(t, dir, &err);
			return st;
		}
		if (sv->header_ok)
			setup_decode(t, sv);
		sv->data = calloc(sv->n ? sv->n : 1, sizeof(*sv->data));
		if (!sv->data)
			return COLFS_ENOMEM;
		for (uint32_t i = 0; i < sv->n; i++)
			if (sv->b[i].kind == CSAL_DATA)
				sv->data[sv->n_data++] = i;
		summarize(t, sv);
		COLFS_TRY(colfs_buf_status(&sv->summary));
		for (uint32_t i = 0; i < sv->n_skip; i++)
			colfs_tree_report(t, dir, sv->skip[i].off,
					  COLFS_ECORRUPT,
					  "salvage: bytes %llu to %llu (%llu "
					  "bytes) hold no block that verifies "
					  "(%s); the walk goes on at %llu",
					  (unsigned long long)sv->skip[i].off,
					  (unsigned long long)(sv->skip[i].off +
							       sv->skip[i].len),
					  (unsigned long long)sv->skip[i].len,
					  sv->skip[i].why,
					  (unsigned long long)(sv->skip[i].off +
							       sv->skip[i].len));
		if (sv->header_ok && sv->stop < sv->s.size)
			colfs_tree_report(t, dir, sv->stop, COLFS_ECORRUPT,
					  "salvage: the block walk stops here "
					  "(%s); %llu bytes are not recovered",
					  sv->stop_why,
					  (unsigned long long)(sv->s.size -
							       sv->stop));
	}
	if (!colfs_dir_add_text(t, dir, "summary", sv->summary.data,
				sv->summary.len) ||
	    !colfs_dir_add_dir(t, dir, "blocks", &blocks_ops, sv) ||
	    (sv->can_decode &&
	     !colfs_dir_add_stream(t, dir, "values", &values_ops, sv)) ||
	    !colfs_dir_add_errors(t, dir))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops salvage_ops = {.populate = salvage_populate};

colfs_status cfile_salvage_add(colfs_tree *t, cfile_file *f, colfs_node *root)
{
	cfile_salvage *sv = f->salvage;

	if (!sv) {
		sv = calloc(1, sizeof(*sv));
		if (!sv)
			return COLFS_ENOMEM;
		uint32_t effort = colfs_tree_options(t)->salvage_effort;

		effort = effort ? effort : 1;
		sv->max_blocks = CSAL_MAX_BLOCKS * effort;
		sv->max_skips = CSAL_MAX_SKIPS * effort;
		sv->resync_attempts = CSAL_RESYNC_ATTEMPTS * effort;
		f->salvage = sv;
		sv->s.src = f->src;
		sv->s.size = f->size;
		sv->s.verify = f->verify;
		sv->s.max_alloc = f->max_alloc;
		sv->s.header_len = 12;
		sv->s.footer_start = f->size;
		sv->s.compression = CFILE_NO_COMPRESSION;
		pthread_mutex_init(&sv->s.dict_lock, NULL);
		pthread_mutex_init(&sv->s.seen_lock, NULL);
	}
	if (f->size < 12)
		return COLFS_OK;
	colfs_tree_report(t, NULL, f->footer_start, COLFS_ECORRUPT,
			  "the footer cannot be used; the blocks found by "
			  "walking the file from its header are under "
			  "salvage/");
	return colfs_dir_add_dir(t, root, "salvage", &salvage_ops, sv)
		       ? COLFS_OK
		       : COLFS_ENOMEM;
}

void cfile_salvage_free(cfile_file *f)
{
	cfile_salvage *sv = f ? f->salvage : NULL;

	if (!sv)
		return;
	free(sv->s.dict_data);
	free(sv->s.dict_str);
	free(sv->s.dict_len);
	pthread_mutex_destroy(&sv->s.dict_lock);
	pthread_mutex_destroy(&sv->s.seen_lock);
	free(sv->b);
	free(sv->skip);
	free(sv->data);
	colfs_buf_free(&sv->summary);
	free(sv);
	f->salvage = NULL;
}

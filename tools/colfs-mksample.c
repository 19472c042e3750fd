/* colfs-mksample: write a small, valid Parquet file with known contents.
 *
 *	colfs-mksample OUT.parquet [--rows N] [--row-groups N] [--page-rows N]
 *	               [--codec none|snappy|gzip|zstd|lz4_raw]
 *	               [--data-page-v2] [--no-page-index] [--no-bloom]
 *	               [--bad-crc] [--bad-meta] [--struct]
 *
 * The README's first command mounts this file, and tests use it as a
 * fixture whose every value is known.  Written for this project: the
 * Thrift compact encoder is thrift-writer.c; compression comes from the
 * codec libraries; page checksums are CRC-32 from zlib.
 *
 * Shape (defaults: 3000 rows in 3 row groups of 1000, pages of 400 rows):
 *
 *	message schema {
 *	  required int64 id;
 *	  optional binary name (STRING);
 *	  optional double price;
 *	  required int32 day (DATE);
 *	  optional group tags (LIST) {
 *	    repeated group list {
 *	      optional binary element (STRING);
 *	    }
 *	  }
 *	}
 *
 * Values, for the global row number r (0-based, counted across row groups;
 * row group g holds a contiguous run of rows, the first `rows % groups`
 * groups one row more than the others):
 *
 *	id    = r
 *	name  = NULL                      if r % 7 == 3
 *	        NAMES[r % 13]             otherwise, NAMES = alpha bravo charlie
 *	                                  delta echo foxtrot golf hotel india
 *	                                  juliett kilo lima mike
 *	price = NULL                      if r % 11 == 5
 *	        (r % 1000) * 0.25 + 0.5   otherwise (exact in binary)
 *	day   = 19000 + r % 365           days since 1970-01-01 (DATE)
 *	tags  = NULL                      if r % 5 == 0
 *	        []                        if r % 5 == 1
 *	        a list of k = r % 5 - 1 elements otherwise; element j (0-based)
 *	        is NULL if j == 1 and r % 3 == 0, else "t" followed by the
 *	        digit (r + j) % 4
 *
 * Encodings: id, price, day, tags are PLAIN; name is dictionary encoded
 * (one PLAIN dictionary page per chunk, entries in order of first
 * appearance, then RLE_DICTIONARY data pages).  Levels are RLE/bit-packed
 * hybrid.  Data pages are v1 (or v2 with --data-page-v2), each page holds
 * up to --page-rows rows and carries a CRC-32 and statistics
 * (min_value, max_value, null_count).  Column chunks carry statistics and
 * encoding_stats.  After the row groups come, unless --no-bloom, a
 * split-block bloom filter (XXH64, uncompressed) of the non-null values of
 * each id and name chunk, then, unless --no-page-index, a ColumnIndex per
 * chunk and an OffsetIndex per chunk, then the footer.  null_count counts
 * the level entries below the column's maximum definition level (for
 * tags: null lists, empty lists and null elements).  key_value_metadata holds "colfs.sample"="1";
 * created_by is "colfs-mksample <version>".
 *
 * --bad-crc writes a damaged file for tests: the first data page of
 * `price` in row group 0 (row_groups/0/chunks/price/pages/0 in the tree)
 * carries a CRC with its lowest bit flipped; everything else is as above.
 *
 * --struct adds a last field of two leaves (for tests of fields of
 * several leaves):
 *
 *	  optional group pt {
 *	    required int64 x;
 *	    optional double y;
 *	  }
 *
 *	pt    = NULL                      if r % 6 == 4
 *	        {x: 2 * r, y: NULL}       if r % 4 == 1
 *	        {x: 2 * r, y: r * 0.5}    otherwise
 *
 * --bad-meta writes metadata that disagrees with the data, for the chunk
 * verifier: every `price` chunk's Statistics say one null more than there
 * are and a max_value 1 below the real maximum; its ColumnIndex says one
 * null more for page 1; its OffsetIndex puts page 1 one row later.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <xxhash.h>

#include "thrift-writer.h"

#ifndef COLFS_MKSAMPLE_VERSION
#define COLFS_MKSAMPLE_VERSION "unknown"
#endif

/* Parquet enum values (parquet.thrift). */
enum { PT_INT32 = 1, PT_INT64 = 2, PT_DOUBLE = 5, PT_BYTE_ARRAY = 6 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1, REP_REPEATED = 2 };
enum { CT_UTF8 = 0, CT_LIST = 3, CT_DATE = 6 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2, PAGE_DATA_V2 = 3 };
enum {
	CODEC_NONE = 0,
	CODEC_SNAPPY = 1,
	CODEC_GZIP = 2,
	CODEC_ZSTD = 6,
	CODEC_LZ4_RAW = 7,
};

static const char *const sample_names[13] = {
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
	"hotel", "india", "juliett", "kilo", "lima", "mike",
};
static const char *const sample_tags[4] = { "t0", "t1", "t2", "t3" };

enum { COL_ID, COL_NAME, COL_PRICE, COL_DAY, COL_TAGS, COL_PT_X, COL_PT_Y,
       NCOLS_ALL };

/* The columns written: COL_PT_X (the sample without --struct) or
 * NCOLS_ALL (with the struct `pt`). */
static int sample_ncols = COL_PT_X;

typedef struct sample_column {
	const char *path[3];
	int path_len;
	int ptype;
	int max_def;
	int max_rep;
	bool dict;
} sample_column;

static const sample_column sample_columns[NCOLS_ALL] = {
	[COL_ID] = { { "id" }, 1, PT_INT64, 0, 0, false },
	[COL_NAME] = { { "name" }, 1, PT_BYTE_ARRAY, 1, 0, true },
	[COL_PRICE] = { { "price" }, 1, PT_DOUBLE, 1, 0, false },
	[COL_DAY] = { { "day" }, 1, PT_INT32, 0, 0, false },
	[COL_TAGS] = { { "tags", "list", "element" }, 3, PT_BYTE_ARRAY, 3, 1,
		       false },
	[COL_PT_X] = { { "pt", "x" }, 2, PT_INT64, 1, 0, false },
	[COL_PT_Y] = { { "pt", "y" }, 2, PT_DOUBLE, 2, 0, false },
};

/* One level entry of a leaf column: levels and, when def == max_def, a
 * value (an integer, a double or a static string). */
typedef struct sample_entry {
	uint8_t rep;
	uint8_t def;
	bool has;
	int64_t i;
	double d;
	const char *s;
} sample_entry;

#define SAMPLE_MAX_ENTRIES 4

/* The entries of row `r` in column `col`; returns how many (1..4). */
static size_t sample_row(uint64_t r, int col, sample_entry *e)
{
	memset(e, 0, sizeof(*e) * SAMPLE_MAX_ENTRIES);
	switch (col) {
	case COL_ID:
		e[0].has = true;
		e[0].i = (int64_t)r;
		return 1;
	case COL_NAME:
		if (r % 7 == 3)
			return 1;
		e[0].def = 1;
		e[0].has = true;
		e[0].s = sample_names[r % 13];
		return 1;
	case COL_PRICE:
		if (r % 11 == 5)
			return 1;
		e[0].def = 1;
		e[0].has = true;
		e[0].d = (double)(r % 1000) * 0.25 + 0.5;
		return 1;
	case COL_DAY:
		e[0].has = true;
		e[0].i = 19000 + (int64_t)(r % 365);
		return 1;
	case COL_TAGS: {
		uint64_t k = r % 5;

		if (k == 0)
			return 1;        /* def 0: null list */
		if (k == 1) {
			e[0].def = 1;    /* empty list */
			return 1;
		}
		for (uint64_t j = 0; j < k - 1; j++) {
			e[j].rep = j ? 1 : 0;
			if (j == 1 && r % 3 == 0) {
				e[j].def = 2;
				continue;
			}
			e[j].def = 3;
			e[j].has = true;
			e[j].s = sample_tags[(r + j) % 4];
		}
		return (size_t)(k - 1);
	}
	case COL_PT_X:
	case COL_PT_Y:
		if (r % 6 == 4)
			return 1;        /* def 0: pt is NULL */
		e[0].def = 1;
		if (col == COL_PT_X) {
			e[0].has = true;
			e[0].i = 2 * (int64_t)r;
		} else if (r % 4 != 1) {
			e[0].def = 2;
			e[0].has = true;
			e[0].d = (double)r * 0.5;
		}
		return 1;
	}
	return 0;
}

/* --- statistics ---------------------------------------------------------- */

typedef struct sample_stats {
	bool any;           /* at least one non-null value */
	int64_t imin, imax;
	double dmin, dmax;
	const char *smin, *smax;
	int64_t nulls;
} sample_stats;

static void sample_stats_add(sample_stats *st, int ptype,
			     const sample_entry *e, int max_def)
{
	if (e->def < max_def || !e->has) {
		st->nulls++;
		return;
	}
	switch (ptype) {
	case PT_INT32:
	case PT_INT64:
		if (!st->any || e->i < st->imin)
			st->imin = e->i;
		if (!st->any || e->i > st->imax)
			st->imax = e->i;
		break;
	case PT_DOUBLE:
		if (!st->any || e->d < st->dmin)
			st->dmin = e->d;
		if (!st->any || e->d > st->dmax)
			st->dmax = e->d;
		break;
	default:
		if (!st->any || strcmp(e->s, st->smin) < 0)
			st->smin = e->s;
		if (!st->any || strcmp(e->s, st->smax) > 0)
			st->smax = e->s;
		break;
	}
	st->any = true;
}

/* The PLAIN encoding of a statistic (min when `max` is false) without the
 * length prefix, as Statistics.min_value/max_value store it. */
static size_t sample_stats_bytes(const sample_stats *st, int ptype, bool max,
				 uint8_t out[16])
{
	uint64_t bits;
	size_t n;

	switch (ptype) {
	case PT_INT32:
		bits = (uint32_t)(int32_t)(max ? st->imax : st->imin);
		n = 4;
		break;
	case PT_INT64:
		bits = (uint64_t)(max ? st->imax : st->imin);
		n = 8;
		break;
	case PT_DOUBLE: {
		double d = max ? st->dmax : st->dmin;

		memcpy(&bits, &d, sizeof(bits));
		n = 8;
		break;
	}
	default: {
		const char *s = max ? st->smax : st->smin;

		n = strlen(s);
		if (n > 16)
			n = 16; /* the sample's strings are all shorter */
		memcpy(out, s, n);
		return n;
	}
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)(bits >> (8 * i));
	return n;
}

/* Order of two statistics of the same type: <0, 0, >0 (for the page
 * index's boundary order). */
static int sample_stats_cmp(int ptype, const sample_stats *a, bool amax,
			    const sample_stats *b, bool bmax)
{
	switch (ptype) {
	case PT_INT32:
	case PT_INT64: {
		int64_t x = amax ? a->imax : a->imin;
		int64_t y = bmax ? b->imax : b->imin;

		return (x > y) - (x < y);
	}
	case PT_DOUBLE: {
		double x = amax ? a->dmax : a->dmin;
		double y = bmax ? b->dmax : b->dmin;

		return (x > y) - (x < y);
	}
	default:
		return strcmp(amax ? a->smax : a->smin,
			      bmax ? b->smax : b->smin);
	}
}

static void sample_stats_write(tw *w, int16_t id, const sample_stats *st,
			       int ptype)
{
	uint8_t b[16];
	size_t n;

	tw_field_struct_begin(w, id);
	tw_field_i64(w, 3, st->nulls);
	if (st->any) {
		n = sample_stats_bytes(st, ptype, true, b);
		tw_field_binary(w, 5, b, n);
		n = sample_stats_bytes(st, ptype, false, b);
		tw_field_binary(w, 6, b, n);
	}
	tw_struct_end(w);
}

/* --- RLE / bit-packed hybrid ---------------------------------------------- */

static void rle_emit_packed(tw_buf *out, const uint32_t *v, size_t n,
			    size_t start, size_t groups, int bw)
{
	uint64_t acc = 0;
	int bits = 0;

	tw_buf_uvarint(out, (uint64_t)groups << 1 | 1);
	for (size_t k = start; k < start + groups * 8; k++) {
		acc |= (uint64_t)(k < n ? v[k] : 0) << bits;
		bits += bw;
		while (bits >= 8) {
			tw_buf_u8(out, (uint8_t)acc);
			acc >>= 8;
			bits -= 8;
		}
	}
	/* groups of 8 values of bw bits are whole bytes: nothing is left */
}

/* Encode n values of bit width bw: runs of 8 or more equal values as RLE
 * runs, everything else as bit-packed runs of up to 63 groups of 8 (the
 * last group padded with zeros; readers stop at the value count). */
static void rle_encode(tw_buf *out, const uint32_t *v, size_t n, int bw)
{
	size_t i = 0, pstart = 0, pgroups = 0;
	size_t vbytes = (size_t)(bw + 7) / 8;

	while (i < n) {
		size_t run = 1;

		while (i + run < n && v[i + run] == v[i])
			run++;
		if (run >= 8) {
			if (pgroups)
				rle_emit_packed(out, v, n, pstart, pgroups,
						bw);
			pgroups = 0;
			tw_buf_uvarint(out, (uint64_t)run << 1);
			for (size_t b = 0; b < vbytes; b++)
				tw_buf_u8(out, (uint8_t)(v[i] >> (8 * b)));
			i += run;
			continue;
		}
		if (!pgroups)
			pstart = i;
		pgroups++;
		i += 8;
		if (pgroups == 63) {
			rle_emit_packed(out, v, n, pstart, pgroups, bw);
			pgroups = 0;
		}
	}
	if (pgroups)
		rle_emit_packed(out, v, n, pstart, pgroups, bw);
}

static int bit_width(uint32_t max)
{
	int w = 0;

	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* --- compression ------------------------------------------------------- */

static bool sample_compress(int codec, const tw_buf *in, tw_buf *out)
{
	tw_buf_reset(out);
	switch (codec) {
	case CODEC_NONE:
		tw_buf_put(out, in->data, in->len);
		return !out->failed;
	case CODEC_SNAPPY: {
		size_t cap = snappy_max_compressed_length(in->len);

		if (cap > out->cap) {
			uint8_t *d = realloc(out->data, cap);

			if (!d)
				return false;
			out->data = d;
			out->cap = cap;
		}
		if (snappy_compress((const char *)in->data, in->len,
				    (char *)out->data, &cap) != SNAPPY_OK)
			return false;
		out->len = cap;
		return true;
	}
	case CODEC_GZIP: {
		z_stream zs;
		uLong cap;
		int rc;

		memset(&zs, 0, sizeof(zs));
		if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return false;
		cap = deflateBound(&zs, (uLong)in->len);
		if (cap > out->cap) {
			uint8_t *d = realloc(out->data, cap);

			if (!d) {
				deflateEnd(&zs);
				return false;
			}
			out->data = d;
			out->cap = cap;
		}
		zs.next_in = in->data;
		zs.avail_in = (uInt)in->len;
		zs.next_out = out->data;
		zs.avail_out = (uInt)cap;
		rc = deflate(&zs, Z_FINISH);
		out->len = zs.total_out;
		deflateEnd(&zs);
		return rc == Z_STREAM_END;
	}
	case CODEC_ZSTD: {
		size_t cap = ZSTD_compressBound(in->len), got;

		if (cap > out->cap) {
			uint8_t *d = realloc(out->data, cap);

			if (!d)
				return false;
			out->data = d;
			out->cap = cap;
		}
		got = ZSTD_compress(out->data, cap, in->data, in->len, 3);
		if (ZSTD_isError(got))
			return false;
		out->len = got;
		return true;
	}
	case CODEC_LZ4_RAW: {
		int cap, got;

		if (in->len > (size_t)LZ4_MAX_INPUT_SIZE)
			return false;
		cap = LZ4_compressBound((int)in->len);
		if ((size_t)cap > out->cap) {
			uint8_t *d = realloc(out->data, (size_t)cap);

			if (!d)
				return false;
			out->data = d;
			out->cap = (size_t)cap;
		}
		got = LZ4_compress_default((const char *)in->data,
					   (char *)out->data, (int)in->len,
					   cap);
		if (got <= 0)
			return false;
		out->len = (size_t)got;
		return true;
	}
	}
	return false;
}

/* --- writing ------------------------------------------------------------- */

typedef struct sample_config {
	uint64_t rows;
	uint64_t groups;
	uint64_t page_rows;
	int codec;
	bool v2;
	bool page_index;
	bool bloom;
	bool bad_crc;
	bool bad_meta;
} sample_config;

typedef struct sample_page {
	uint64_t offset;      /* of the page header */
	uint64_t size;        /* header + stored body */
	uint64_t first_row;   /* within the row group */
	sample_stats st;
} sample_page;

typedef struct sample_chunk {
	uint64_t start;
	uint64_t dict_offset;
	uint64_t data_offset;
	int64_t num_values;
	int64_t size_unc;     /* pages incl. headers, uncompressed */
	int64_t size_comp;    /* pages incl. headers, as stored */
	sample_stats st;
	sample_page *pages;
	size_t npages;
	uint64_t ci_offset, ci_len, oi_offset, oi_len;
	uint64_t r0, r1;      /* the file's rows in this chunk */
	uint64_t bloom_offset, bloom_len;
} sample_chunk;

typedef struct sample_writer {
	FILE *f;
	const char *path;
	uint64_t offset;
	bool failed;
	sample_config cfg;
	/* scratch */
	tw_buf hdr, body, levels, packed;
	uint32_t *rep, *def, *idx;
	size_t cap_entries;
	bool damage_next_crc; /* --bad-crc: the next page gets a wrong CRC */
} sample_writer;

static void sample_write(sample_writer *sw, const void *p, size_t n)
{
	if (sw->failed || n == 0)
		return;
	if (fwrite(p, 1, n, sw->f) != n) {
		sw->failed = true;
		return;
	}
	sw->offset += n;
}

static bool sample_reserve(sample_writer *sw, size_t n)
{
	uint32_t *a, *b, *c;

	if (n <= sw->cap_entries)
		return true;
	a = realloc(sw->rep, n * sizeof(*a));
	if (a)
		sw->rep = a;
	b = realloc(sw->def, n * sizeof(*b));
	if (b)
		sw->def = b;
	c = realloc(sw->idx, n * sizeof(*c));
	if (c)
		sw->idx = c;
	if (!a || !b || !c)
		return false;
	sw->cap_entries = n;
	return true;
}

/* Write one page from sw->body: header (with CRC-32 of the stored body)
 * and body.  `levels_len` bytes at the start of the body are v2 levels
 * (the first `rep_len` of them repetition levels), stored uncompressed;
 * the rest is compressed with the file's codec. */
static void sample_page_write(sample_writer *sw, int type, size_t levels_len,
			      size_t rep_len, int32_t num_values, int32_t num_nulls,
			      int32_t num_rows, int encoding, int ptype,
			      const sample_stats *st, sample_chunk *ch)
{
	tw_buf values = { 0 };
	tw w;
	uLong crc;
	size_t unc = sw->body.len;

	/* compress everything after the v2 levels */
	if (sw->body.data) {
		values.data = sw->body.data + levels_len;
		values.len = sw->body.len - levels_len;
	}
	tw_buf_reset(&sw->packed);
	tw_buf_put(&sw->packed, sw->body.data, levels_len);
	{
		tw_buf z = { 0 };

		if (!sample_compress(sw->cfg.codec, &values, &z)) {
			tw_buf_free(&z);
			sw->failed = true;
			return;
		}
		tw_buf_put(&sw->packed, z.data, z.len);
		tw_buf_free(&z);
	}
	if (sw->packed.failed || unc > INT32_MAX ||
	    sw->packed.len > INT32_MAX) {
		sw->failed = true;
		return;
	}
	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, sw->packed.data, (uInt)sw->packed.len);
	if (sw->damage_next_crc) {
		crc ^= 1;
		sw->damage_next_crc = false;
	}

	tw_buf_reset(&sw->hdr);
	tw_begin(&w, &sw->hdr);
	tw_field_i32(&w, 1, type);
	tw_field_i32(&w, 2, (int32_t)unc);
	tw_field_i32(&w, 3, (int32_t)sw->packed.len);
	tw_field_i32(&w, 4, (int32_t)(uint32_t)crc);
	if (type == PAGE_DATA) {
		tw_field_struct_begin(&w, 5);
		tw_field_i32(&w, 1, num_values);
		tw_field_i32(&w, 2, encoding);
		tw_field_i32(&w, 3, ENC_RLE);
		tw_field_i32(&w, 4, ENC_RLE);
		sample_stats_write(&w, 5, st, ptype);
		tw_struct_end(&w);
	} else if (type == PAGE_DICTIONARY) {
		tw_field_struct_begin(&w, 7);
		tw_field_i32(&w, 1, num_values);
		tw_field_i32(&w, 2, ENC_PLAIN);
		tw_field_bool(&w, 3, false);
		tw_struct_end(&w);
	} else {
		tw_field_struct_begin(&w, 8);
		tw_field_i32(&w, 1, num_values);
		tw_field_i32(&w, 2, num_nulls);
		tw_field_i32(&w, 3, num_rows);
		tw_field_i32(&w, 4, encoding);
		tw_field_i32(&w, 5, (int32_t)(levels_len - rep_len));
		tw_field_i32(&w, 6, (int32_t)rep_len);
		tw_field_bool(&w, 7, sw->cfg.codec != CODEC_NONE);
		sample_stats_write(&w, 8, st, ptype);
		tw_struct_end(&w);
	}
	tw_struct_end(&w);
	if (!tw_ok(&w)) {
		sw->failed = true;
		return;
	}
	sample_write(sw, sw->hdr.data, sw->hdr.len);
	sample_write(sw, sw->packed.data, sw->packed.len);
	ch->size_unc += (int64_t)(sw->hdr.len + unc);
	ch->size_comp += (int64_t)(sw->hdr.len + sw->packed.len);
}

static void sample_plain_value(tw_buf *b, int ptype, const sample_entry *e)
{
	uint64_t bits;

	switch (ptype) {
	case PT_INT32:
		tw_buf_le32(b, (uint32_t)(int32_t)e->i);
		break;
	case PT_INT64:
		tw_buf_le64(b, (uint64_t)e->i);
		break;
	case PT_DOUBLE:
		memcpy(&bits, &e->d, sizeof(bits));
		tw_buf_le64(b, bits);
		break;
	default:
		tw_buf_le32(b, (uint32_t)strlen(e->s));
		tw_buf_put(b, e->s, strlen(e->s));
		break;
	}
}

/* Write the chunk of column `col` for rows [r0, r1) of the file. */
static void sample_chunk_write(sample_writer *sw, int col, uint64_t r0,
			       uint64_t r1, sample_chunk *ch)
{
	const sample_column *c = &sample_columns[col];
	const char *dict[64];
	size_t ndict = 0;
	sample_entry e[SAMPLE_MAX_ENTRIES];
	uint64_t npages = (r1 - r0 + sw->cfg.page_rows - 1) / sw->cfg.page_rows;
	int dict_bw = 0;

	memset(ch, 0, sizeof(*ch));
	ch->start = sw->offset;
	ch->r0 = r0;
	ch->r1 = r1;
	ch->pages = calloc(npages ? npages : 1, sizeof(*ch->pages));
	if (!ch->pages) {
		sw->failed = true;
		return;
	}
	if (c->dict) {
		/* the dictionary: distinct values in order of appearance */
		for (uint64_t r = r0; r < r1; r++) {
			size_t n = sample_row(r, col, e);

			for (size_t k = 0; k < n; k++) {
				size_t d = 0;

				if (!e[k].has)
					continue;
				while (d < ndict && strcmp(dict[d], e[k].s))
					d++;
				if (d == ndict && ndict < 64)
					dict[ndict++] = e[k].s;
			}
		}
		tw_buf_reset(&sw->body);
		for (size_t d = 0; d < ndict; d++) {
			tw_buf_le32(&sw->body, (uint32_t)strlen(dict[d]));
			tw_buf_put(&sw->body, dict[d], strlen(dict[d]));
		}
		ch->dict_offset = sw->offset;
		sample_page_write(sw, PAGE_DICTIONARY, 0, 0, (int32_t)ndict, 0, 0,
				  ENC_PLAIN, c->ptype, NULL, ch);
		dict_bw = ndict ? bit_width((uint32_t)ndict - 1) : 0;
	}
	ch->data_offset = sw->offset;

	for (uint64_t p = 0; p < npages && !sw->failed; p++) {
		uint64_t pr0 = r0 + p * sw->cfg.page_rows;
		uint64_t pr1 = pr0 + sw->cfg.page_rows;
		sample_page *pg = &ch->pages[ch->npages++];
		tw_buf values = { 0 };
		size_t nent = 0, nidx = 0, levels_len = 0, rep_len = 0;
		int32_t nulls = 0;

		if (pr1 > r1)
			pr1 = r1;
		if (!sample_reserve(sw, (size_t)(pr1 - pr0) *
					 SAMPLE_MAX_ENTRIES)) {
			sw->failed = true;
			break;
		}
		pg->offset = sw->offset;
		pg->first_row = pr0 - r0;
		for (uint64_t r = pr0; r < pr1; r++) {
			size_t n = sample_row(r, col, e);

			for (size_t k = 0; k < n; k++) {
				sw->rep[nent] = e[k].rep;
				sw->def[nent] = e[k].def;
				nent++;
				sample_stats_add(&pg->st, c->ptype, &e[k],
						 c->max_def);
				sample_stats_add(&ch->st, c->ptype, &e[k],
						 c->max_def);
				if (!e[k].has) {
					nulls++;
					continue;
				}
				if (c->dict) {
					uint32_t d = 0;

					while (d < ndict &&
					       strcmp(dict[d], e[k].s))
						d++;
					sw->idx[nidx++] = d;
				} else {
					sample_plain_value(&values, c->ptype,
							   &e[k]);
				}
			}
		}
		if (c->dict) {
			tw_buf_u8(&values, (uint8_t)dict_bw);
			rle_encode(&values, sw->idx, nidx, dict_bw);
		}
		ch->num_values += (int64_t)nent;

		/* levels: v1 with a 4-byte length each, v2 bare */
		tw_buf_reset(&sw->body);
		if (c->max_rep) {
			tw_buf_reset(&sw->levels);
			rle_encode(&sw->levels, sw->rep, nent,
				   bit_width((uint32_t)c->max_rep));
			if (!sw->cfg.v2)
				tw_buf_le32(&sw->body,
					    (uint32_t)sw->levels.len);
			tw_buf_put(&sw->body, sw->levels.data,
				   sw->levels.len);
		}
		rep_len = sw->body.len;
		if (c->max_def) {
			tw_buf_reset(&sw->levels);
			rle_encode(&sw->levels, sw->def, nent,
				   bit_width((uint32_t)c->max_def));
			if (!sw->cfg.v2)
				tw_buf_le32(&sw->body,
					    (uint32_t)sw->levels.len);
			tw_buf_put(&sw->body, sw->levels.data,
				   sw->levels.len);
		}
		levels_len = sw->cfg.v2 ? sw->body.len : 0;
		if (!sw->cfg.v2)
			rep_len = 0;
		tw_buf_put(&sw->body, values.data, values.len);
		if (values.failed || sw->body.failed || sw->levels.failed) {
			tw_buf_free(&values);
			sw->failed = true;
			break;
		}
		tw_buf_free(&values);
		if (sw->cfg.bad_crc && col == COL_PRICE && r0 == 0 && p == 0)
			sw->damage_next_crc = true;
		sample_page_write(sw, sw->cfg.v2 ? PAGE_DATA_V2 : PAGE_DATA,
				  levels_len, rep_len, (int32_t)nent, nulls,
				  (int32_t)(pr1 - pr0),
				  c->dict ? ENC_RLE_DICTIONARY : ENC_PLAIN,
				  c->ptype, &pg->st, ch);
		pg->size = sw->offset - pg->offset;
	}
}

/* --- split-block bloom filters ------------------------------------------- */

static const uint32_t bloom_salt[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U,
};

/* Insert a hash: the block is chosen by the upper 32 bits, one bit in each
 * of the block's eight words by the lower 32 bits times a salt. */
static void bloom_insert(uint8_t *bits, uint64_t nblocks, uint64_t hash)
{
	uint64_t block = ((hash >> 32) * nblocks) >> 32;
	uint32_t key = (uint32_t)hash;

	for (int i = 0; i < 8; i++) {
		uint32_t bit = (key * bloom_salt[i]) >> 27;
		uint8_t *word = bits + block * 32 + (size_t)i * 4;
		uint32_t v = (uint32_t)word[0] | (uint32_t)word[1] << 8 |
			     (uint32_t)word[2] << 16 | (uint32_t)word[3] << 24;

		v |= 1U << bit;
		for (int b = 0; b < 4; b++)
			word[b] = (uint8_t)(v >> (8 * b));
	}
}

/* A bloom filter (header + bitset) for the id and name chunks: XXH64 with
 * seed 0 of each non-null value's PLAIN bytes (without a length prefix),
 * about 16 bits per distinct value, at least 32 bytes, a power of two. */
static void sample_bloom_write(sample_writer *sw, int col, sample_chunk *ch)
{
	const sample_column *c = &sample_columns[col];
	sample_entry e[SAMPLE_MAX_ENTRIES];
	uint64_t distinct = col == COL_NAME ? 13 : ch->r1 - ch->r0;
	uint64_t bytes = 32, nblocks;
	uint8_t *bits;
	tw w;

	while (bytes < distinct * 2 && bytes < (128u << 20))
		bytes *= 2;
	nblocks = bytes / 32;
	bits = calloc(1, (size_t)bytes);
	if (!bits) {
		sw->failed = true;
		return;
	}
	for (uint64_t r = ch->r0; r < ch->r1; r++) {
		size_t n = sample_row(r, col, e);

		for (size_t k = 0; k < n; k++) {
			uint8_t v[8];
			uint64_t h;

			if (!e[k].has)
				continue;
			if (c->ptype == PT_INT64) {
				for (int b = 0; b < 8; b++)
					v[b] = (uint8_t)((uint64_t)e[k].i >>
							 (8 * b));
				h = XXH64(v, 8, 0);
			} else {
				h = XXH64(e[k].s, strlen(e[k].s), 0);
			}
			bloom_insert(bits, nblocks, h);
		}
	}
	tw_buf_reset(&sw->hdr);
	tw_begin(&w, &sw->hdr);
	tw_field_i32(&w, 1, (int32_t)bytes);
	tw_field_struct_begin(&w, 2);   /* algorithm: BLOCK */
	tw_field_struct_begin(&w, 1);
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_field_struct_begin(&w, 3);   /* hash: XXHASH */
	tw_field_struct_begin(&w, 1);
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_field_struct_begin(&w, 4);   /* compression: UNCOMPRESSED */
	tw_field_struct_begin(&w, 1);
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_struct_end(&w);
	if (!tw_ok(&w)) {
		free(bits);
		sw->failed = true;
		return;
	}
	ch->bloom_offset = sw->offset;
	sample_write(sw, sw->hdr.data, sw->hdr.len);
	sample_write(sw, bits, (size_t)bytes);
	ch->bloom_len = sw->offset - ch->bloom_offset;
	free(bits);
}

/* ColumnIndex and OffsetIndex of one chunk. */
static void sample_index_write(sample_writer *sw, int col, sample_chunk *ch,
			       bool column_index)
{
	const sample_column *c = &sample_columns[col];
	uint8_t b[16];
	size_t n;
	tw w;

	tw_buf_reset(&sw->hdr);
	tw_begin(&w, &sw->hdr);
	if (column_index) {
		bool asc = true;
		const sample_stats *prev = NULL;

		tw_field_list_begin(&w, 1, TW_BOOL_TRUE, (uint32_t)ch->npages);
		for (size_t p = 0; p < ch->npages; p++)
			tw_elem_bool(&w, !ch->pages[p].st.any);
		tw_field_list_begin(&w, 2, TW_BINARY, (uint32_t)ch->npages);
		for (size_t p = 0; p < ch->npages; p++) {
			n = ch->pages[p].st.any ?
				    sample_stats_bytes(&ch->pages[p].st,
						       c->ptype, false, b) :
				    0;
			tw_elem_binary(&w, b, n);
		}
		tw_field_list_begin(&w, 3, TW_BINARY, (uint32_t)ch->npages);
		for (size_t p = 0; p < ch->npages; p++) {
			n = ch->pages[p].st.any ?
				    sample_stats_bytes(&ch->pages[p].st,
						       c->ptype, true, b) :
				    0;
			tw_elem_binary(&w, b, n);
		}
		for (size_t p = 0; p < ch->npages; p++) {
			const sample_stats *st = &ch->pages[p].st;

			if (!st->any)
				continue;
			if (prev && (sample_stats_cmp(c->ptype, prev, false,
						      st, false) > 0 ||
				     sample_stats_cmp(c->ptype, prev, true,
						      st, true) > 0))
				asc = false;
			prev = st;
		}
		tw_field_i32(&w, 4, asc ? 1 : 0);
		tw_field_list_begin(&w, 5, TW_I64, (uint32_t)ch->npages);
		for (size_t p = 0; p < ch->npages; p++)
			tw_elem_i64(&w, ch->pages[p].st.nulls +
					(sw->cfg.bad_meta && col == COL_PRICE &&
					 p == 1));
		ch->ci_offset = sw->offset;
	} else {
		tw_field_list_begin(&w, 1, TW_STRUCT, (uint32_t)ch->npages);
		for (size_t p = 0; p < ch->npages; p++) {
			tw_elem_struct_begin(&w);
			tw_field_i64(&w, 1, (int64_t)ch->pages[p].offset);
			tw_field_i32(&w, 2, (int32_t)ch->pages[p].size);
			tw_field_i64(&w, 3, (int64_t)ch->pages[p].first_row +
					     (sw->cfg.bad_meta &&
					      col == COL_PRICE && p == 1));
			tw_struct_end(&w);
		}
		ch->oi_offset = sw->offset;
	}
	tw_struct_end(&w);
	if (!tw_ok(&w)) {
		sw->failed = true;
		return;
	}
	sample_write(sw, sw->hdr.data, sw->hdr.len);
	if (column_index)
		ch->ci_len = sw->hdr.len;
	else
		ch->oi_len = sw->hdr.len;
}

static void sample_schema_write(tw *w)
{
	bool pt = sample_ncols == NCOLS_ALL;

	tw_field_list_begin(w, 2, TW_STRUCT, pt ? 11 : 8);

	tw_elem_struct_begin(w);
	tw_field_string(w, 4, "schema");
	tw_field_i32(w, 5, pt ? 6 : 5);
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_INT64);
	tw_field_i32(w, 3, REP_REQUIRED);
	tw_field_string(w, 4, "id");
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_BYTE_ARRAY);
	tw_field_i32(w, 3, REP_OPTIONAL);
	tw_field_string(w, 4, "name");
	tw_field_i32(w, 6, CT_UTF8);
	tw_field_struct_begin(w, 10);  /* LogicalType */
	tw_field_struct_begin(w, 1);   /* STRING */
	tw_struct_end(w);
	tw_struct_end(w);
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_DOUBLE);
	tw_field_i32(w, 3, REP_OPTIONAL);
	tw_field_string(w, 4, "price");
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_INT32);
	tw_field_i32(w, 3, REP_REQUIRED);
	tw_field_string(w, 4, "day");
	tw_field_i32(w, 6, CT_DATE);
	tw_field_struct_begin(w, 10);
	tw_field_struct_begin(w, 6);   /* DATE */
	tw_struct_end(w);
	tw_struct_end(w);
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 3, REP_OPTIONAL);
	tw_field_string(w, 4, "tags");
	tw_field_i32(w, 5, 1);
	tw_field_i32(w, 6, CT_LIST);
	tw_field_struct_begin(w, 10);
	tw_field_struct_begin(w, 3);   /* LIST */
	tw_struct_end(w);
	tw_struct_end(w);
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 3, REP_REPEATED);
	tw_field_string(w, 4, "list");
	tw_field_i32(w, 5, 1);
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_BYTE_ARRAY);
	tw_field_i32(w, 3, REP_OPTIONAL);
	tw_field_string(w, 4, "element");
	tw_field_i32(w, 6, CT_UTF8);
	tw_field_struct_begin(w, 10);
	tw_field_struct_begin(w, 1);
	tw_struct_end(w);
	tw_struct_end(w);
	tw_struct_end(w);
	if (!pt)
		return;

	tw_elem_struct_begin(w);
	tw_field_i32(w, 3, REP_OPTIONAL);
	tw_field_string(w, 4, "pt");
	tw_field_i32(w, 5, 2);
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_INT64);
	tw_field_i32(w, 3, REP_REQUIRED);
	tw_field_string(w, 4, "x");
	tw_struct_end(w);

	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, PT_DOUBLE);
	tw_field_i32(w, 3, REP_OPTIONAL);
	tw_field_string(w, 4, "y");
	tw_struct_end(w);
}

static void sample_column_meta_write(tw *w, const sample_config *cfg, int col,
				     const sample_chunk *ch)
{
	const sample_column *c = &sample_columns[col];
	bool levels = c->max_def || c->max_rep;
	int data_enc = c->dict ? ENC_RLE_DICTIONARY : ENC_PLAIN;
	uint32_t nenc = 1 + (levels ? 1 : 0) + (c->dict ? 1 : 0);

	tw_field_struct_begin(w, 3);
	tw_field_i32(w, 1, c->ptype);
	tw_field_list_begin(w, 2, TW_I32, nenc);
	tw_elem_i32(w, ENC_PLAIN);
	if (levels)
		tw_elem_i32(w, ENC_RLE);
	if (c->dict)
		tw_elem_i32(w, ENC_RLE_DICTIONARY);
	tw_field_list_begin(w, 3, TW_BINARY, (uint32_t)c->path_len);
	for (int k = 0; k < c->path_len; k++)
		tw_elem_string(w, c->path[k]);
	tw_field_i32(w, 4, cfg->codec);
	tw_field_i64(w, 5, ch->num_values);
	tw_field_i64(w, 6, ch->size_unc);
	tw_field_i64(w, 7, ch->size_comp);
	tw_field_i64(w, 9, (int64_t)ch->data_offset);
	if (c->dict)
		tw_field_i64(w, 11, (int64_t)ch->dict_offset);
	if (cfg->bad_meta && col == COL_PRICE && ch->st.any) {
		sample_stats lie = ch->st;
		lie.nulls++;
		lie.dmax -= 1;
		sample_stats_write(w, 12, &lie, c->ptype);
	} else {
		sample_stats_write(w, 12, &ch->st, c->ptype);
	}
	tw_field_list_begin(w, 13, TW_STRUCT, c->dict ? 2 : 1);
	if (c->dict) {
		tw_elem_struct_begin(w);
		tw_field_i32(w, 1, PAGE_DICTIONARY);
		tw_field_i32(w, 2, ENC_PLAIN);
		tw_field_i32(w, 3, 1);
		tw_struct_end(w);
	}
	tw_elem_struct_begin(w);
	tw_field_i32(w, 1, cfg->v2 ? PAGE_DATA_V2 : PAGE_DATA);
	tw_field_i32(w, 2, data_enc);
	tw_field_i32(w, 3, (int32_t)ch->npages);
	tw_struct_end(w);
	if (ch->bloom_len) {
		tw_field_i64(w, 14, (int64_t)ch->bloom_offset);
		tw_field_i32(w, 15, (int32_t)ch->bloom_len);
	}
	tw_struct_end(w);
}

static void sample_footer_write(sample_writer *sw, sample_chunk *chunks,
				const uint64_t *group_rows)
{
	const sample_config *cfg = &sw->cfg;
	tw_buf out = { 0 };
	tw w;

	tw_begin(&w, &out);
	tw_field_i32(&w, 1, 2);
	sample_schema_write(&w);
	tw_field_i64(&w, 3, (int64_t)cfg->rows);
	tw_field_list_begin(&w, 4, TW_STRUCT, (uint32_t)cfg->groups);
	for (uint64_t g = 0; g < cfg->groups; g++) {
		sample_chunk *row = &chunks[g * sample_ncols];
		int64_t unc = 0, comp = 0;

		tw_elem_struct_begin(&w);
		tw_field_list_begin(&w, 1, TW_STRUCT, sample_ncols);
		for (int col = 0; col < sample_ncols; col++) {
			const sample_chunk *ch = &row[col];

			tw_elem_struct_begin(&w);
			tw_field_i64(&w, 2, (int64_t)ch->start);
			sample_column_meta_write(&w, cfg, col, ch);
			if (cfg->page_index) {
				tw_field_i64(&w, 4, (int64_t)ch->oi_offset);
				tw_field_i32(&w, 5, (int32_t)ch->oi_len);
				tw_field_i64(&w, 6, (int64_t)ch->ci_offset);
				tw_field_i32(&w, 7, (int32_t)ch->ci_len);
			}
			tw_struct_end(&w);
			unc += ch->size_unc;
			comp += ch->size_comp;
		}
		tw_field_i64(&w, 2, unc);
		tw_field_i64(&w, 3, (int64_t)group_rows[g]);
		tw_field_i64(&w, 5, (int64_t)row[0].start);
		tw_field_i64(&w, 6, comp);
		tw_field_i16(&w, 7, (int16_t)g);
		tw_struct_end(&w);
	}
	tw_field_list_begin(&w, 5, TW_STRUCT, 1);
	tw_elem_struct_begin(&w);
	tw_field_string(&w, 1, "colfs.sample");
	tw_field_string(&w, 2, "1");
	tw_struct_end(&w);
	tw_field_string(&w, 6, "colfs-mksample " COLFS_MKSAMPLE_VERSION);
	tw_field_list_begin(&w, 7, TW_STRUCT, sample_ncols);
	for (int col = 0; col < sample_ncols; col++) {
		tw_elem_struct_begin(&w);
		tw_field_struct_begin(&w, 1); /* TYPE_ORDER */
		tw_struct_end(&w);
		tw_struct_end(&w);
	}
	tw_struct_end(&w);
	if (!tw_ok(&w) || out.len > UINT32_MAX) {
		sw->failed = true;
	} else {
		sample_write(sw, out.data, out.len);
		{
			uint8_t tail[8];

			for (int i = 0; i < 4; i++)
				tail[i] = (uint8_t)(out.len >> (8 * i));
			memcpy(tail + 4, "PAR1", 4);
			sample_write(sw, tail, sizeof(tail));
		}
	}
	tw_buf_free(&out);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: colfs-mksample OUT.parquet [--rows N] [--row-groups N]\n"
		"                      [--page-rows N] [--codec CODEC]\n"
		"                      [--data-page-v2] [--no-page-index]\n"
		"                      [--no-bloom] [--bad-crc] [--bad-meta]\n"
		"                      [--struct]\n"
		"Write a small Parquet file with known contents (see the\n"
		"header of tools/colfs-mksample.c for the value formulas).\n"
		"CODEC is none, snappy, gzip, zstd or lz4_raw (default none).\n"
		"Defaults: 3000 rows, 3 row groups, 400 rows per page.\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	sample_writer sw;
	sample_chunk *chunks = NULL;
	uint64_t *group_rows = NULL;
	const char *out = NULL;
	uint64_t r = 0;
	int rc = 1;

	memset(&sw, 0, sizeof(sw));
	sw.cfg.rows = 3000;
	sw.cfg.groups = 3;
	sw.cfg.page_rows = 400;
	sw.cfg.codec = CODEC_NONE;
	sw.cfg.page_index = true;
	sw.cfg.bloom = true;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("colfs-mksample %s\n", COLFS_MKSAMPLE_VERSION);
			return 0;
		} else if (!strcmp(a, "--rows")) {
			if (!parse_u64(v, &sw.cfg.rows))
				goto bad;
			i++;
		} else if (!strcmp(a, "--row-groups")) {
			if (!parse_u64(v, &sw.cfg.groups))
				goto bad;
			i++;
		} else if (!strcmp(a, "--page-rows")) {
			if (!parse_u64(v, &sw.cfg.page_rows) ||
			    !sw.cfg.page_rows)
				goto bad;
			i++;
		} else if (!strcmp(a, "--codec")) {
			if (!v)
				goto bad;
			if (!strcmp(v, "none") || !strcmp(v, "uncompressed"))
				sw.cfg.codec = CODEC_NONE;
			else if (!strcmp(v, "snappy"))
				sw.cfg.codec = CODEC_SNAPPY;
			else if (!strcmp(v, "gzip"))
				sw.cfg.codec = CODEC_GZIP;
			else if (!strcmp(v, "zstd"))
				sw.cfg.codec = CODEC_ZSTD;
			else if (!strcmp(v, "lz4_raw"))
				sw.cfg.codec = CODEC_LZ4_RAW;
			else
				goto bad;
			i++;
		} else if (!strcmp(a, "--data-page-v2")) {
			sw.cfg.v2 = true;
		} else if (!strcmp(a, "--no-page-index")) {
			sw.cfg.page_index = false;
		} else if (!strcmp(a, "--no-bloom")) {
			sw.cfg.bloom = false;
		} else if (!strcmp(a, "--bad-crc")) {
			sw.cfg.bad_crc = true;
		} else if (!strcmp(a, "--bad-meta")) {
			sw.cfg.bad_meta = true;
		} else if (!strcmp(a, "--struct")) {
			sample_ncols = NCOLS_ALL;
		} else if (a[0] == '-' || out) {
			goto bad_arg;
		} else {
			out = a;
		}
		continue;
bad:
		fprintf(stderr, "colfs-mksample: bad value for %s: %s\n", a,
			v ? v : "(missing)");
		return 2;
bad_arg:
		fprintf(stderr, "colfs-mksample: unexpected argument: %s\n",
			a);
		usage(stderr);
		return 2;
	}
	if (!out) {
		usage(stderr);
		return 2;
	}
	if (sw.cfg.groups == 0 && sw.cfg.rows > 0) {
		fprintf(stderr, "colfs-mksample: %" PRIu64 " rows need at "
				"least one row group\n", sw.cfg.rows);
		return 2;
	}
	if (sw.cfg.groups > sw.cfg.rows)
		sw.cfg.groups = sw.cfg.rows;
	if (sw.cfg.rows > INT32_MAX || sw.cfg.groups > INT16_MAX ||
	    sw.cfg.page_rows > 1000000) {
		fprintf(stderr, "colfs-mksample: --rows at most %d, "
				"--row-groups at most %d, --page-rows at most "
				"1000000\n", INT32_MAX, INT16_MAX);
		return 2;
	}

	chunks = calloc(sw.cfg.groups * sample_ncols + 1, sizeof(*chunks));
	group_rows = calloc(sw.cfg.groups + 1, sizeof(*group_rows));
	sw.f = fopen(out, "wb");
	if (!sw.f) {
		fprintf(stderr, "colfs-mksample: %s: %s\n", out,
			strerror(errno));
		goto done;
	}
	if (!chunks || !group_rows)
		goto nomem;
	sw.path = out;
	sample_write(&sw, "PAR1", 4);
	for (uint64_t g = 0; g < sw.cfg.groups && !sw.failed; g++) {
		uint64_t n = sw.cfg.rows / sw.cfg.groups +
			     (g < sw.cfg.rows % sw.cfg.groups ? 1 : 0);

		group_rows[g] = n;
		for (int col = 0; col < sample_ncols; col++)
			sample_chunk_write(&sw, col, r, r + n,
					   &chunks[g * sample_ncols + col]);
		r += n;
	}
	if (sw.cfg.bloom) {
		for (uint64_t k = 0; k < sw.cfg.groups * sample_ncols; k++)
			if (k % sample_ncols == COL_ID || k % sample_ncols == COL_NAME)
				sample_bloom_write(&sw, (int)(k % sample_ncols),
						   &chunks[k]);
	}
	if (sw.cfg.page_index) {
		for (int pass = 0; pass < 2; pass++)
			for (uint64_t k = 0; k < sw.cfg.groups * sample_ncols; k++)
				sample_index_write(&sw, (int)(k % sample_ncols),
						   &chunks[k], pass == 0);
	}
	sample_footer_write(&sw, chunks, group_rows);
	if (fclose(sw.f) != 0)
		sw.failed = true;
	sw.f = NULL;
	if (sw.failed) {
		fprintf(stderr, "colfs-mksample: %s: write failed: %s\n", out,
			errno ? strerror(errno) : "out of memory");
		remove(out);
		goto done;
	}
	rc = 0;
	goto done;
nomem:
	fprintf(stderr, "colfs-mksample: out of memory\n");
done:
	if (sw.f)
		fclose(sw.f);
	if (chunks)
		for (uint64_t k = 0; k < sw.cfg.groups * sample_ncols; k++)
			free(chunks[k].pages);
	free(chunks);
	free(group_rows);
	free(sw.rep);
	free(sw.def);
	free(sw.idx);
	tw_buf_free(&sw.hdr);
	tw_buf_free(&sw.body);
	tw_buf_free(&sw.levels);
	tw_buf_free(&sw.packed);
	return rc;
}

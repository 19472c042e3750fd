/* colfs tests: the Kudu CFile test-file writer (see cw.h).  Written from
 * the fact sheet; section numbers (§) refer to it. */
#include "cw.h"

#include <errno.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cfile/cfile.h"
#include "cfile/cfile.pb-c.h"
#include "core/buf.h"
#include "core/codec.h"

/* --- small helpers ------------------------------------------------------ */

static void put_u32le(colfs_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			(uint8_t)(v >> 24)};
	colfs_buf_append(b, x, 4);
}

static void put_u32be(colfs_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16),
			(uint8_t)(v >> 8), (uint8_t)v};
	colfs_buf_append(b, x, 4);
}

static void set_u32le(colfs_buf *b, size_t at, uint32_t v)
{
	uint8_t *p = (uint8_t *)b->data + at;
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_varint(colfs_buf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	while (v >= 0x80) {
		x[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	x[n++] = (uint8_t)v;
	colfs_buf_append(b, x, n);
}

/* One group-varint group of four values (§9.3.1). */
static void put_gvint(colfs_buf *b, const uint32_t v[4])
{
	uint8_t sel = 0;
	uint8_t bytes[16];
	size_t n = 0;

	for (int i = 0; i < 4; i++) {
		unsigned len = v[i] > 0xffffff ? 4 : v[i] > 0xffff ? 3
			       : v[i] > 0xff ? 2 : 1;
		sel |= (uint8_t)((len - 1) << (6 - 2 * i));
		for (unsigned k = 0; k < len; k++)
			bytes[n++] = (uint8_t)(v[i] >> (8 * k));
	}
	colfs_buf_putc(b, (char)sel);
	colfs_buf_append(b, bytes, n);
}

static void put_gvint_list(colfs_buf *b, const uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n; i += 4) {
		uint32_t g[4] = {0, 0, 0, 0};
		for (size_t k = 0; k < 4 && i + k < n; k++)
			g[k] = v[i + k];
		put_gvint(b, g);
	}
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int fail(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (why && why_len)
		vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
	return -1;
}

/* --- names -------------------------------------------------------------- */

int32_t cw_type_parse(const char *s)
{
	for (int32_t t = 0; t < CFILE_TYPE_COUNT; t++)
		if (cfile_types_get(t) && !strcmp(s, cfile_types_type_name(t)))
			return t;
	return -1;
}

int32_t cw_encoding_parse(const char *s)
{
	static const char *const alias[] = {"AUTO", "PLAIN", "PREFIX",
					    "GROUP_VARINT", "RLE", "DICT",
					    "BIT_SHUFFLE"};
	for (int32_t e = 0; e < CFILE_ENCODING_COUNT; e++)
		if (!strcmp(s, alias[e]) || !strcmp(s, cfile_types_encoding_name(e)))
			return e;
	return -1;
}

int32_t cw_compression_parse(const char *s)
{
	if (!strcmp(s, "NONE"))
		return CFILE_NO_COMPRESSION;
	for (int32_t c = 1; c <= CFILE_ZLIB; c++)
		if (!strcmp(s, cfile_types_compression_name(c)))
			return c;
	return -1;
}

void cw_params_default(cw_params *p)
{
	memset(p, 0, sizeof(*p));
	p->version = 2;
	p->type = CFILE_INT32;
	p->encoding = CFILE_PLAIN;
	p->compression = CFILE_NO_COMPRESSION;
	p->checksums = true;
	p->posidx = true;
	p->count = 1000;
}

/* --- values -------------------------------------------------------------- */

typedef struct cw_value {
	uint8_t fixed[16];      /* little-endian physical value */
	const uint8_t *str;     /* BINARY: points into the string table */
	uint32_t len;           /* BINARY length, else the width */
	uint32_t key;           /* BINARY: index of the distinct string */
	bool null;
} cw_value;

typedef struct cw_strings {
	uint8_t **s;
	uint32_t *len;
	uint32_t n;
	uint32_t *order;        /* value index files: indexes in key order */
} cw_strings;

static int strings_make(cw_strings *st, uint32_t n, int32_t type)
{
	st->n = n;
	st->s = calloc(n, sizeof(*st->s));
	st->len = calloc(n, sizeof(*st->len));
	if (!st->s || !st->len)
		return -1;
	for (uint32_t k = 0; k < n; k++) {
		char tmp[512];
		int len;

		if (k == 0)
			len = 0; /* the empty string */
		else if (k % 17 == 3)
			len = snprintf(tmp, sizeof(tmp), "%u:%0300u", k, k);
		else if (k % 11 == 5)
			len = snprintf(tmp, sizeof(tmp),
				       "tab\there\nnew line \xc3\xa9 %u", k);
		else if (k % 3 == 1)
			len = snprintf(tmp, sizeof(tmp),
				       "common/prefix/shared/by/many/%u", k);
		else
			len = snprintf(tmp, sizeof(tmp), "v%u", k);
		if (type == CFILE_BINARY && k % 7 == 2 && len + 3 < 512) {
			tmp[len++] = 0;
			tmp[len++] = '"';
			tmp[len++] = (char)0xff;
		}
		st->s[k] = malloc((size_t)len + 1);
		if (!st->s[k])
			return -1;
		memcpy(st->s[k], tmp, (size_t)len);
		st->len[k] = (uint32_t)len;
	}
	return 0;
}

static void strings_free(cw_strings *st)
{
	if (st->s)
		for (uint32_t k = 0; k < st->n; k++)
			free(st->s[k]);
	free(st->s);
	free(st->len);
	free(st->order);
}

static const cw_strings *sort_st;

static int string_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t n = sort_st->len[x] < sort_st->len[y] ? sort_st->len[x]
						       : sort_st->len[y];
	int c = n ? memcmp(sort_st->s[x], sort_st->s[y], n) : 0;

	if (c)
		return c;
	return sort_st->len[x] < sort_st->len[y] ? -1
						 : sort_st->len[x] > sort_st->len[y];
}

/* The strings in memcmp order (a primary key column is sorted). */
static int strings_sort(cw_strings *st)
{
	st->order = malloc(((size_t)st->n + 1) * sizeof(*st->order));
	if (!st->order)
		return -1;
	for (uint32_t k = 0; k < st->n; k++)
		st->order[k] = k;
	sort_st = st;
	qsort(st->order, st->n, sizeof(*st->order), string_cmp);
	return 0;
}

static bool row_is_null(const cw_params *p, uint32_t i, uint32_t block_rows)
{
	if (!p->nullable)
		return false;
	if (p->count >= 4 * block_rows && i >= 2 * block_rows &&
	    i < 3 * block_rows)
		return true; /* a whole block of NULLs */
	if (i >= p->count / 2 && i < p->count / 2 + 150)
		return true; /* a long run: multi-byte RLE indicator */
	return i % 7 == 3;
}

static void value_fixed(const cw_params *p, const cfile_type_info *ti,
			uint32_t i, uint8_t out[16])
{
	unsigned w = ti->width;
	uint64_t seg = i / 37;
	uint64_t h = mix((uint64_t)p->seed << 32 ^ i);
	uint64_t lo, hi;

	memset(out, 0, 16);
	if (ti->phys == CFILE_PHYS_BOOL) {
		out[0] = (seg % 2) ? (uint8_t)(mix(p->seed ^ seg) & 1)
				   : (uint8_t)(h & 1);
		return;
	}
	if (ti->phys == CFILE_PHYS_FLOAT) {
		double d;
		static const double special[] = {0.0, -0.0, 1.5, -2.25,
						 1e300, 1e-300, 0.1};
		if (i < 7)
			d = special[i];
		else if (i == 7)
			d = __builtin_inf();
		else if (i == 8)
			d = -__builtin_inf();
		else if (i == 9)
			d = __builtin_nan("");
		else if (seg % 2)
			d = (double)(int64_t)(mix(p->seed ^ seg) % 20001) / 8.0;
		else
			d = (double)(int64_t)(h % 2000001 - 1000000) / 1000.0;
		if (w == 4) {
			float f = (float)d;
			if (i == 4)
				f = 3.4e38f;
			else if (i == 5)
				f = 1e-38f;
			uint32_t u;
			memcpy(&u, &f, 4);
			for (unsigned k = 0; k < 4; k++)
				out[k] = (uint8_t)(u >> (8 * k));
		} else {
			uint64_t u;
			memcpy(&u, &d, 8);
			for (unsigned k = 0; k < 8; k++)
				out[k] = (uint8_t)(u >> (8 * k));
		}
		return;
	}
	/* Integers: extremes first, then constant runs, counters, random,
	 * small values. */
	switch (i) {
	case 0: /* minimum */
		lo = ti->is_signed ? 0 : 0;
		hi = 0;
		if (ti->is_signed) {
			out[w - 1] = 0x80;
			return;
		}
		break;
	case 1: /* maximum */
		memset(out, 0xff, w);
		if (ti->is_signed)
			out[w - 1] = 0x7f;
		return;
	case 2:
		lo = 0, hi = 0;
		break;
	case 3:
		lo = ~0ull, hi = ~0ull; /* -1 or the maximum */
		break;
	default:
		switch (seg % 4) {
		case 0:
			lo = mix(p->seed ^ seg), hi = mix(lo);
			break;
		case 1:
			lo = i, hi = 0;
			break;
		case 2:
			lo = h, hi = mix(h);
			break;
		default:
			lo = h % 4, hi = 0;
			break;
		}
		break;
	}
	for (unsigned k = 0; k < w && k < 8; k++)
		out[k] = (uint8_t)(lo >> (8 * k));
	for (unsigned k = 8; k < w; k++)
		out[k] = (uint8_t)(hi >> (8 * (k - 8)));
	if (p->type == CFILE_DATE || p->type == CFILE_UNIXTIME_MICROS) {
		/* keep calendar values in a range of real dates (±5000 y) */
		if (i >= 2) {
			int64_t v;
			if (p->type == CFILE_DATE)
				v = (int64_t)(lo % 3650000) - 1825000;
			else
				v = (int64_t)(lo % 315360000000000000ull) -
				    157680000000000000ll;
			for (unsigned k = 0; k < w; k++)
				out[k] = (uint8_t)((uint64_t)v >> (8 * k));
		}
	}
}

/* Row i of a column with a value index (a primary key, §13): sorted.  The
 * rows spread over the whole key space (§10.2: big-endian, sign bit
 * flipped), so the first is the type's minimum; strings go through the
 * table in memcmp order. */
static void value_sorted(const cw_params *p, const cfile_type_info *ti,
			 const cw_strings *st, uint32_t i, cw_value *v)
{
	uint64_t count = p->count ? p->count : 1;
	unsigned w = ti->width;
	uint8_t key[16];

	if (ti->phys == CFILE_PHYS_BINARY) {
		uint32_t k = st->order[(uint64_t)i * st->n / count];
		v->key = k;
		v->str = st->s[k];
		v->len = st->len[k];
		return;
	}
	v->len = w;
	if (p->type == CFILE_DATE || p->type == CFILE_UNIXTIME_MICROS) {
		int64_t x = ((int64_t)i - (int64_t)(count / 2)) *
			    (p->type == CFILE_DATE ? 1 : 1000003);
		for (unsigned k = 0; k < w; k++)
			v->fixed[k] = (uint8_t)((uint64_t)x >> (8 * k));
		return;
	}
	unsigned top = w < 8 ? w : 8;
	unsigned __int128 hi = ((unsigned __int128)i << (8 * top)) / count;
	uint64_t lo = mix(i);
	memset(key, 0, sizeof(key));
	for (unsigned k = 0; k < top; k++)
		key[k] = (uint8_t)(hi >> (8 * (top - 1 - k)));
	for (unsigned k = top; k < w; k++)
		key[k] = (uint8_t)(lo >> (8 * (k - top)));
	if (ti->is_signed)
		key[0] ^= 0x80;
	for (unsigned k = 0; k < w; k++)
		v->fixed[k] = key[w - 1 - k];
}

static void value_at(const cw_params *p, const cfile_type_info *ti,
		     const cw_strings *st, uint32_t block_rows, uint32_t i,
		     cw_value *v)
{
	memset(v, 0, sizeof(*v));
	if (p->validx && p->role == CW_COLUMN && !p->nullable &&
	    (ti->phys == CFILE_PHYS_INT || ti->phys == CFILE_PHYS_BINARY)) {
		value_sorted(p, ti, st, i, v);
		return;
	}
	v->null = row_is_null(p, i, block_rows);
	if (ti->phys == CFILE_PHYS_BINARY) {
		uint64_t seg = i / 23;
		uint32_t k;
		if (st->n > 60000)
			k = i % st->n; /* every string at least once */
		else if (seg % 3 == 0)
			k = (uint32_t)(mix(p->seed ^ seg) % st->n);
		else
			k = (uint32_t)(mix((uint64_t)p->seed << 32 ^ i) % st->n);
		v->key = k;
		v->str = st->s[k];
		v->len = st->len[k];
	} else {
		value_fixed(p, ti, i, v->fixed);
		v->len = ti->width;
	}
}

/* --- the RLE / bit-packing hybrid (§8) ------------------------------------ */

static uint64_t fixed_u64(const uint8_t *p, unsigned w)
{
	uint64_t v = 0;

	for (unsigned k = w; k-- > 0;)
		v = v << 8 | p[k];
	return v;
}

/* Length of the run of equal values starting at `i`. */
static size_t run_len(const uint64_t *v, size_t n, size_t i)
{
	size_t j = i + 1;

	while (j < n && v[j] == v[i])
		j++;
	return j - i;
}

static void rle_put_value(colfs_buf *b, uint64_t v, unsigned bits)
{
	unsigned bytes = (bits + 7) / 8;

	for (unsigned k = 0; k < bytes; k++)
		colfs_buf_putc(b, (char)(v >> (8 * k)));
}

/* Repeated runs for runs of 8 or more, literal runs (multiples of 8, up to
 * 100 groups so indicators can be two bytes) otherwise; the final literal
 * is cut to the bytes its values need, as Kudu's encoder does. */
static void rle_encode(colfs_buf *b, const uint64_t *v, size_t n,
		       unsigned bits)
{
	size_t i = 0;

	while (i < n) {
		size_t r = run_len(v, n, i);
		if (r >= 8) {
			put_varint(b, (uint64_t)r << 1);
			rle_put_value(b, v[i], bits);
			i += r;
			continue;
		}
		size_t start = i, groups = 0;
		while (i < n && groups < 100) {
			i = i + 8 < n ? i + 8 : n;
			groups++;
			if (i < n && run_len(v, n, i) >= 8)
				break;
		}
		size_t m = i - start;
		put_varint(b, (uint64_t)groups << 1 | 1);
		if (bits == 1) {
			for (size_t g = 0; g < groups; g++) {
				uint8_t byte = 0;
				for (size_t k = 0; k < 8; k++)
					if (g * 8 + k < m &&
					    (v[start + g * 8 + k] & 1))
						byte |= (uint8_t)(1u << k);
				colfs_buf_putc(b, (char)byte);
			}
		} else {
			for (size_t k = 0; k < m; k++)
				rle_put_value(b, v[start + k], bits);
			if (i < n) /* not final: whole groups */
				for (size_t k = m; k < groups * 8; k++)
					rle_put_value(b, 0, bits);
		}
	}
}

/* --- bitshuffle (§9.7) --------------------------------------------------- */

static void lz4_literal_only(colfs_buf *b, const uint8_t *p, size_t n)
{
	uint8_t token = (uint8_t)((n < 15 ? n : 15) << 4);

	colfs_buf_putc(b, (char)token);
	if (n >= 15) {
		size_t r = n - 15;
		while (r >= 255) {
			colfs_buf_putc(b, (char)0xff);
			r -= 255;
		}
		colfs_buf_putc(b, (char)r);
	}
	colfs_buf_append(b, p, n);
}

static void transpose(const uint8_t *in, size_t m, unsigned s, uint8_t *out)
{
	size_t plane = m / 8;

	memset(out, 0, m * s);
	for (size_t i = 0; i < m; i++)
		for (unsigned j = 0; j < s; j++) {
			uint8_t byte = in[i * s + j];
			for (unsigned k = 0; k < 8; k++)
				if (byte >> k & 1)
					out[(8 * j + k) * plane + i / 8] |=
						(uint8_t)(1u << (i % 8));
		}
}

/* A bitshuffle block of `n` elements of `s` bytes (already packed). */
static int bshuf_encode(colfs_buf *b, uint32_t ordinal, const uint8_t *elems,
			uint32_t n, unsigned s, bool literal_lz4)
{
	uint32_t padded = (n + 7) / 8 * 8;
	size_t start = b->len;
	uint8_t *pad = calloc((size_t)padded * s + 1, 1);
	size_t chunk_max = 8192 / s / 8 * 8;
	uint8_t *tr, *lz;
	int cap;

	if (chunk_max < 128)
		chunk_max = 128;
	tr = malloc(chunk_max * s);
	cap = LZ4_compressBound((int)(chunk_max * s));
	lz = malloc((size_t)cap);
	if (!pad || !tr || !lz) {
		free(pad), free(tr), free(lz);
		return -1;
	}
	memcpy(pad, elems, (size_t)n * s);
	put_u32le(b, ordinal);
	put_u32le(b, n);
	put_u32le(b, 0); /* total size, patched */
	put_u32le(b, padded);
	put_u32le(b, s);
	for (size_t at = 0; at < padded;) {
		size_t m = padded - at >= chunk_max ? chunk_max
						    : (padded - at) / 8 * 8;
		transpose(pad + at * s, m, s, tr);
		if (literal_lz4) {
			colfs_buf lit = COLFS_BUF_INIT;
			lz4_literal_only(&lit, tr, m * s);
			put_u32be(b, (uint32_t)lit.len);
			colfs_buf_append(b, lit.data, lit.len);
			colfs_buf_free(&lit);
		} else {
			int got = LZ4_compress_default((const char *)tr,
						       (char *)lz,
						       (int)(m * s), cap);
			if (got <= 0) {
				free(pad), free(tr), free(lz);
				return -1;
			}
			put_u32be(b, (uint32_t)got);
			colfs_buf_append(b, lz, (size_t)got);
		}
		at += m;
	}
	if (!b->failed)
		set_u32le(b, start + 8, (uint32_t)(b->len - start));
	free(pad), free(tr), free(lz);
	return 0;
}

/* --- the writer ------------------------------------------------------------ */

typedef struct cw_entry {
	uint8_t *key;
	size_t key_len;
	uint64_t offset;
	uint32_t size;
} cw_entry;

typedef struct cw_level {
	cw_entry *e;
	size_t n, cap;
	size_t bytes;           /* serialized entry bytes */
} cw_level;

#define CW_MAX_LEVELS 40

typedef struct cw_tree {
	cw_level level[CW_MAX_LEVELS];
	int nlevels;
} cw_tree;

typedef struct cw {
	const cw_params *p;
	const cfile_type_info *ti;
	FILE *out;              /* the CFile, written as it grows */
	uint64_t pos;           /* bytes written so far */
	bool io_failed;
	FILE *expected;         /* rendered values, or NULL */
	uint32_t block_rows;
	cw_tree posidx, validx;
	int64_t *codeword;      /* per distinct string, -1 = not yet */
	uint32_t *dict_order;   /* codeword -> distinct string */
	uint32_t dict_n;
	bool dict_plain;        /* switched to plain blocks */
	bool bad_codeword_done;
	uint8_t prev_last[512];
	size_t prev_last_len;
	uint32_t block_no;
	const cw_strings *st;
	bool oom;
	/* DeltaFile statistics */
	int64_t delete_count, reinsert_count;
	uint64_t min_ts, max_ts;
	int64_t update_count[512];
} cw;

static void emit(cw *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->out) != n)
		w->io_failed = true;
	w->pos += n;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Compression frame (§5.2) and checksum (§6) around an encoded block;
 * append it to the file and return its pointer. */
static int frame_block(cw *w, const uint8_t *enc, size_t n, uint64_t *off,
		       uint32_t *size)
{
	colfs_buf stored = COLFS_BUF_INIT;
	const cw_params *p = w->p;

	if (p->compression == CFILE_NO_COMPRESSION) {
		colfs_buf_append(&stored, enc, n);
	} else {
		size_t cap;
		uint8_t *c;
		size_t clen = 0;
		int ok = 0;

		if (p->compression == CFILE_SNAPPY)
			cap = snappy_max_compressed_length(n);
		else if (p->compression == CFILE_LZ4)
			cap = (size_t)LZ4_compressBound((int)n);
		else
			cap = compressBound((uLong)n);
		c = malloc(cap + 1);
		if (!c)
			return -1;
		if (p->compression == CFILE_SNAPPY) {
			clen = cap;
			ok = snappy_compress((const char *)enc, n, (char *)c,
					     &clen) == SNAPPY_OK;
		} else if (p->compression == CFILE_LZ4) {
			int got = LZ4_compress_default((const char *)enc,
						       (char *)c, (int)n,
						       (int)cap);
			ok = got > 0;
			clen = ok ? (size_t)got : 0;
		} else {
			uLongf zl = (uLongf)cap;
			ok = compress2(c, &zl, enc, (uLong)n, 6) == Z_OK;
			clen = zl;
		}
		if (!ok) {
			free(c);
			return -1;
		}
		if (p->version == 1) {
			put_u32le(&stored, (uint32_t)clen);
			put_u32le(&stored, (uint32_t)n);
			colfs_buf_append(&stored, c, clen);
		} else {
			put_u32le(&stored, (uint32_t)n);
			if (clen < n)
				colfs_buf_append(&stored, c, clen);
			else /* stored raw */
				colfs_buf_append(&stored, enc, n);
		}
		free(c);
	}
	if (p->checksums)
		put_u32le(&stored,
			  colfs_crc32c(0, stored.data, stored.len));
	if (colfs_buf_status(&stored)) {
		colfs_buf_free(&stored);
		return -1;
	}
	*off = w->pos;
	*size = (uint32_t)stored.len;
	emit(w, stored.data, stored.len);
	colfs_buf_free(&stored);
	return 0;
}

static size_t entry_bytes(const cw_entry *e)
{
	return varint_len(e->key_len) + e->key_len + varint_len(e->offset) +
	       varint_len(e->size);
}

/* Serialize a node (§10.1). */
static void index_serialize(colfs_buf *b, const cw_entry *e, size_t n,
			    bool internal)
{
	uint32_t *offs = calloc(n ? n : 1, sizeof(*offs));
	Kudu__Cfile__IndexBlockTrailerPB tr =
		KUDU__CFILE__INDEX_BLOCK_TRAILER_PB__INIT;
	uint8_t pb[32];
	size_t pb_len;

	if (!offs) {
		b->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		offs[i] = (uint32_t)b->len;
		put_varint(b, e[i].key_len);
		colfs_buf_append(b, e[i].key, e[i].key_len);
		put_varint(b, e[i].offset);
		put_varint(b, e[i].size);
	}
	for (size_t i = 0; i < n; i++)
		put_u32le(b, offs[i]);
	tr.has_num_entries = 1;
	tr.num_entries = (int32_t)n;
	tr.has_type = 1;
	tr.type = internal ? 1 : 0;
	pb_len = kudu__cfile__index_block_trailer_pb__pack(&tr, pb);
	colfs_buf_append(b, pb, pb_len);
	put_u32le(b, (uint32_t)pb_len);
	free(offs);
}

static int tree_add(cw *w, cw_tree *t, int lvl, const uint8_t *key,
		    size_t key_len, uint64_t off, uint32_t size);

static int level_flush(cw *w, cw_tree *t, int lvl)
{
	cw_level *L = &t->level[lvl];
	colfs_buf b = COLFS_BUF_INIT;
	uint64_t off;
	uint32_t size;
	int rc;

	index_serialize(&b, L->e, L->n, lvl > 0);
	if (colfs_buf_status(&b))
		return -1;
	rc = frame_block(w, (const uint8_t *)b.data, b.len, &off, &size);
	colfs_buf_free(&b);
	if (rc)
		return -1;
	/* The first key moves up; keep it before clearing. */
	uint8_t *k = L->e[0].key;
	size_t kl = L->e[0].key_len;
	L->e[0].key = NULL;
	for (size_t i = 0; i < L->n; i++)
		free(L->e[i].key);
	L->n = 0;
	L->bytes = 0;
	rc = tree_add(w, t, lvl + 1, k, kl, off, size);
	free(k);
	return rc;
}

static int tree_add(cw *w, cw_tree *t, int lvl, const uint8_t *key,
		    size_t key_len, uint64_t off, uint32_t size)
{
	uint32_t ibs = w->p->index_block_size ? w->p->index_block_size
					      : 32768;
	cw_level *L;

	if (lvl >= CW_MAX_LEVELS)
		return -1;
	if (lvl >= t->nlevels)
		t->nlevels = lvl + 1;
	L = &t->level[lvl];
	if (!colfs_grow((void **)&L->e, &L->cap, L->n + 1, sizeof(L->e[0])))
		return -1;
	cw_entry *e = &L->e[L->n];
	e->key = malloc(key_len ? key_len : 1);
	if (!e->key)
		return -1;
	memcpy(e->key, key, key_len);
	e->key_len = key_len;
	e->offset = off;
	e->size = size;
	L->n++;
	L->bytes += entry_bytes(e);
	if (L->n >= 2 && L->bytes + 4 * L->n + 16 > ibs)
		return level_flush(w, t, lvl);
	return 0;
}

/* Write the root of a tree (flushing lower levels bottom-up, §10.3). */
static int tree_finish(cw *w, cw_tree *t, uint64_t *root_off,
		       uint32_t *root_size)
{
	colfs_buf b = COLFS_BUF_INIT;
	int lvl;

	if (t->nlevels == 0) { /* zero rows: an empty leaf */
		index_serialize(&b, NULL, 0, false);
		int rc = frame_block(w, (const uint8_t *)b.data, b.len,
				     root_off, root_size);
		colfs_buf_free(&b);
		return rc;
	}
	for (lvl = 0; lvl < t->nlevels - 1; lvl++)
		if (t->level[lvl].n > 0 && level_flush(w, t, lvl))
			return -1;
	cw_level *L = &t->level[lvl];
	if (w->p->damage == CW_DAMAGE_INDEX_CYCLE && lvl > 0) {
		/* The last entry points at this very block: find the size
		 * by iterating (the size varint may change the size). */
		uint64_t off = w->pos;
		uint32_t guess = 0;
		for (int round = 0; round < 8; round++) {
			colfs_buf s = COLFS_BUF_INIT;
			L->e[L->n - 1].offset = off;
			L->e[L->n - 1].size = guess;
			index_serialize(&s, L->e, L->n, true);
			size_t framed = s.len + (w->p->checksums ? 4 : 0);
			colfs_buf_free(&s);
			if (framed == guess)
				break;
			guess = (uint32_t)framed;
		}
	}
	index_serialize(&b, L->e, L->n, lvl > 0);
	if (colfs_buf_status(&b))
		return -1;
	int rc = frame_block(w, (const uint8_t *)b.data, b.len, root_off,
			     root_size);
	colfs_buf_free(&b);
	return rc;
}

static void tree_free(cw_tree *t)
{
	for (int l = 0; l < CW_MAX_LEVELS; l++) {
		for (size_t i = 0; i < t->level[l].n; i++)
			free(t->level[l].e[i].key);
		free(t->level[l].e);
	}
}

/* memcmp-sortable key of a value (§10.2). */
static size_t value_key(const cw *w, const cw_value *v, uint8_t *out,
			size_t cap)
{
	if (w->ti->phys == CFILE_PHYS_BINARY) {
		size_t n = v->len < cap ? v->len : cap;
		memcpy(out, v->str, n);
		return n;
	}
	unsigned width = w->ti->width;
	for (unsigned k = 0; k < width; k++)
		out[k] = v->fixed[width - 1 - k];
	if (w->ti->is_signed)
		out[0] ^= 0x80;
	return width;
}

/* --- encoders ------------------------------------------------------------- */

static void enc_plain_binary(colfs_buf *b, uint32_t ordinal,
			     const cw_value *const *v, uint32_t n)
{
	size_t start = b->len;
	uint32_t *offs = calloc(n ? n : 1, sizeof(*offs));

	if (!offs) {
		b->failed = true;
		return;
	}
	put_u32le(b, ordinal);
	put_u32le(b, n);
	put_u32le(b, 0);
	for (uint32_t i = 0; i < n; i++) {
		offs[i] = (uint32_t)(b->len - start);
		colfs_buf_append(b, v[i]->str, v[i]->len);
	}
	if (!b->failed)
		set_u32le(b, start + 8, (uint32_t)(b->len - start));
	put_gvint_list(b, offs, n);
	free(offs);
}

static void enc_prefix(colfs_buf *b, uint32_t ordinal,
		       const cw_value *const *v, uint32_t n, uint32_t interval)
{
	size_t start = b->len;
	uint32_t hdr[4] = {n, ordinal, interval, 0};
	uint32_t *restarts = calloc(n / interval + 1, sizeof(*restarts));
	uint32_t r = 0;

	if (!restarts) {
		b->failed = true;
		return;
	}
	put_gvint(b, hdr);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t shared = 0;
		if (i % interval == 0) {
			if (i > 0)
				restarts[r++] = (uint32_t)(b->len - start);
		} else {
			const cw_value *a = v[i - 1], *c = v[i];
			while (shared < a->len && shared < c->len &&
			       a->str[shared] == c->str[shared])
				shared++;
		}
		put_varint(b, shared);
		put_varint(b, v[i]->len - shared);
		colfs_buf_append(b, v[i]->str + shared, v[i]->len - shared);
	}
	for (uint32_t k = 0; k < r; k++)
		put_u32le(b, restarts[k]);
	put_u32le(b, r);
	free(restarts);
}

static int enc_fixed(cw *w, colfs_buf *b, uint32_t ordinal,
		     const cw_value *const *v, uint32_t n)
{
	const cfile_type_info *ti = w->ti;
	unsigned width = ti->width;

	switch (w->p->encoding) {
	case CFILE_PLAIN:
		put_u32le(b, n);
		put_u32le(b, ordinal);
		if (ti->phys == CFILE_PHYS_BOOL) {
			for (uint32_t i = 0; i < n; i += 8) {
				uint8_t byte = 0;
				for (uint32_t k = 0; k < 8 && i + k < n; k++)
					if (v[i + k]->fixed[0])
						byte |= (uint8_t)(1u << k);
				colfs_buf_putc(b, (char)byte);
			}
		} else {
			for (uint32_t i = 0; i < n; i++)
				colfs_buf_append(b, v[i]->fixed, width);
		}
		return 0;
	case CFILE_RLE: {
		uint64_t *x = malloc(((size_t)n + 1) * sizeof(*x));
		if (!x)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			x[i] = fixed_u64(v[i]->fixed, width);
		put_u32le(b, n);
		put_u32le(b, ordinal);
		rle_encode(b, x, n,
			   ti->phys == CFILE_PHYS_BOOL ? 1 : 8 * width);
		free(x);
		return 0;
	}
	case CFILE_BIT_SHUFFLE: {
		unsigned s = width;
		uint8_t *e = malloc((size_t)n * width + 1);
		int rc;
		if (!e)
			return -1;
		if (w->p->type == CFILE_UINT32) {
			uint32_t max = 0;
			for (uint32_t i = 0; i < n; i++) {
				uint32_t x = (uint32_t)fixed_u64(v[i]->fixed,
								 4);
				max = x > max ? x : max;
			}
			s = max <= 0xff ? 1 : max <= 0xffff ? 2 : 4;
		}
		for (uint32_t i = 0; i < n; i++)
			memcpy(e + (size_t)i * s, v[i]->fixed, s);
		rc = bshuf_encode(b, ordinal, e, n, s, w->block_no % 2 == 1);
		free(e);
		return rc;
	}
	case CFILE_GROUP_VARINT: {
		uint32_t min = UINT32_MAX;
		uint32_t *x = malloc(((size_t)n + 1) * sizeof(*x));
		if (!x)
			return -1;
		for (uint32_t i = 0; i < n; i++) {
			x[i] = (uint32_t)fixed_u64(v[i]->fixed, 4);
			min = x[i] < min ? x[i] : min;
		}
		if (n == 0)
			min = 0;
		for (uint32_t i = 0; i < n; i++)
			x[i] -= min;
		uint32_t hdr[4] = {n, min, ordinal, 0};
		put_gvint(b, hdr);
		put_gvint_list(b, x, n);
		free(x);
		return 0;
	}
	default:
		return -1;
	}
}

static int enc_dict(cw *w, colfs_buf *b, uint32_t ordinal,
		    const cw_value *const *v, uint32_t n)
{
	uint32_t limit = w->p->dict_limit ? w->p->dict_limit : 1000;

	if (!w->dict_plain) {
		uint32_t fresh = 0;
		for (uint32_t i = 0; i < n; i++)
			if (w->codeword[v[i]->key] < 0)
				fresh++;
		/* Count duplicates inside the block once only: an upper
		 * bound is enough to decide the switch. */
		if (w->dict_n + fresh > limit && w->dict_n > 0)
			w->dict_plain = true;
	}
	if (w->dict_plain) {
		put_u32le(b, 2);
		enc_plain_binary(b, ordinal, v, n);
		return 0;
	}
	uint32_t *cw_ = malloc(((size_t)n + 1) * sizeof(*cw_));
	uint32_t max = 0;
	if (!cw_)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = v[i]->key;
		if (w->codeword[k] < 0) {
			w->codeword[k] = w->dict_n;
			w->dict_order[w->dict_n++] = k;
		}
		cw_[i] = (uint32_t)w->codeword[k];
	}
	if (w->p->damage == CW_DAMAGE_BAD_CODEWORD && !w->bad_codeword_done &&
	    n > 0) {
		cw_[n - 1] = 200; /* past the end of a small dictionary */
		w->bad_codeword_done = true;
	}
	for (uint32_t i = 0; i < n; i++)
		max = cw_[i] > max ? cw_[i] : max;
	unsigned s = max <= 0xff ? 1 : max <= 0xffff ? 2 : 4;
	uint8_t *e = malloc((size_t)n * s + 1);
	if (!e) {
		free(cw_);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		for (unsigned k = 0; k < s; k++)
			e[(size_t)i * s + k] = (uint8_t)(cw_[i] >> (8 * k));
	put_u32le(b, 1);
	int rc = bshuf_encode(b, ordinal, e, n, s, w->block_no % 2 == 1);
	free(e);
	free(cw_);
	return rc;
}

static int write_expected(cw *w, const cw_value *vals, uint32_t rows)
{
	colfs_buf b = COLFS_BUF_INIT;
	int rc = 0;

	for (uint32_t i = 0; i < rows; i++) {
		if (vals[i].null)
			colfs_buf_puts(&b, "\\N");
		else if (w->ti->phys == CFILE_PHYS_BINARY)
			cfile_types_value_render(&b, w->p->type, vals[i].str,
					   vals[i].len);
		else
			cfile_types_value_render(&b, w->p->type, vals[i].fixed,
					   vals[i].len);
		colfs_buf_putc(&b, '\n');
	}
	if (colfs_buf_status(&b) ||
	    (b.len && fwrite(b.data, 1, b.len, w->expected) != b.len))
		rc = -1;
	colfs_buf_free(&b);
	return rc;
}

static int write_array_block(cw *w, uint32_t r0, uint32_t rows);

static int write_data_block(cw *w, uint32_t r0, uint32_t rows)
{
	if (w->p->array)
		return write_array_block(w, r0, rows);
	const cw_params *p = w->p;
	const cw_value **nn = malloc(((size_t)rows + 1) * sizeof(*nn));
	cw_value *vals = malloc(((size_t)rows + 1) * sizeof(*vals));
	colfs_buf inner = COLFS_BUF_INIT, blk = COLFS_BUF_INIT;
	uint32_t n = 0;
	uint32_t ordinal = r0;
	int rc = -1;

	if (!nn || !vals) {
		free(nn);
		free(vals);
		return -1;
	}
	for (uint32_t i = 0; i < rows; i++)
		value_at(p, w->ti, w->st, w->block_rows, r0 + i, &vals[i]);
	if (p->damage == CW_DAMAGE_UNSORTED && w->block_no == 1 && rows > 4) {
		cw_value x = vals[3];
		vals[3] = vals[4];
		vals[4] = x;
	}
	for (uint32_t i = 0; i < rows; i++)
		if (!vals[i].null)
			nn[n++] = &vals[i];
	if (w->expected && write_expected(w, vals, rows))
		goto out;
	if (p->damage == CW_DAMAGE_ORDINAL && w->block_no == 1)
		ordinal++;
	if (w->ti->phys == CFILE_PHYS_BINARY) {
		if (p->encoding == CFILE_PLAIN)
			enc_plain_binary(&inner, ordinal, nn, n);
		else if (p->encoding == CFILE_PREFIX)
			enc_prefix(&inner, ordinal, nn, n,
				   p->restart_interval ? p->restart_interval
						       : 16);
		else if (enc_dict(w, &inner, ordinal, nn, n))
			goto out;
	} else if (enc_fixed(w, &inner, ordinal, nn, n)) {
		goto out;
	}
	if (p->nullable) {
		colfs_buf bm = COLFS_BUF_INIT;
		uint64_t *bits = malloc(((size_t)rows + 1) * sizeof(*bits));
		if (!bits)
			goto out;
		for (uint32_t i = 0; i < rows; i++)
			bits[i] = !vals[i].null;
		rle_encode(&bm, bits, rows, 1);
		free(bits);
		put_varint(&blk, rows);
		put_varint(&blk, bm.len);
		colfs_buf_append(&blk, bm.data, bm.len);
		colfs_buf_free(&bm);
	}
	colfs_buf_append(&blk, inner.data, inner.len);
	if (colfs_buf_status(&blk) || colfs_buf_status(&inner))
		goto out;

	uint64_t off;
	uint32_t size;
	if (frame_block(w, (const uint8_t *)blk.data, blk.len, &off, &size))
		goto out;
	if (p->posidx) {
		uint8_t key[4] = {(uint8_t)(r0 >> 24), (uint8_t)(r0 >> 16),
				  (uint8_t)(r0 >> 8), (uint8_t)r0};
		if (tree_add(w, &w->posidx, 0, key, 4, off, size))
			goto out;
	}
	if (p->validx && rows > 0) {
		uint8_t key[512];
		size_t kl = value_key(w, &vals[0], key, sizeof(key));
		size_t cpl = 0, keep;
		while (cpl < kl && cpl < w->prev_last_len &&
		       key[cpl] == w->prev_last[cpl])
			cpl++;
		keep = cpl == kl ? kl : cpl + 1;
		if (p->damage == CW_DAMAGE_VALIDX_KEY && w->block_no == 1 &&
		    kl > 0) {
			keep = kl;
			key[kl - 1] ^= 1;
		}
		if (tree_add(w, &w->validx, 0, key, keep, off, size))
			goto out;
		w->prev_last_len = value_key(w, &vals[rows - 1],
					     w->prev_last,
					     sizeof(w->prev_last));
	}
	w->block_no++;
	rc = 0;
out:
	free(nn);
	free(vals);
	colfs_buf_free(&inner);
	colfs_buf_free(&blk);
	return rc;
}

static Kudu__Cfile__FileMetadataPairPB *meta_pair(
	Kudu__Cfile__FileMetadataPairPB *m, const char *k, const char *v)
{
	kudu__cfile__file_metadata_pair_pb__init(m);
	m->key = (char *)k;
	m->has_value = 1;
	m->value.data = (uint8_t *)v;
	m->value.len = strlen(v);
	return m;
}

static int write_header(cw *w)
{
	Kudu__Cfile__CFileHeaderPB h = KUDU__CFILE__CFILE_HEADER_PB__INIT;
	Kudu__Cfile__FileMetadataPairPB m[2];
	Kudu__Cfile__FileMetadataPairPB *mp[2] = {&m[0], &m[1]};
	uint8_t pb[256];
	size_t n;

	if (w->p->version == 1) {
		h.has_major_version = 1;
		h.major_version = 1;
		h.has_minor_version = 1;
		h.minor_version = 0;
	}
	if (w->p->header_metadata) {
		meta_pair(&m[0], "writer", "colfs cfile-writer");
		meta_pair(&m[1], "purpose", "test fixture");
		h.n_metadata = 2;
		h.metadata = mp;
	}
	if (kudu__cfile__cfile_header_pb__get_packed_size(&h) > sizeof(pb))
		return -1;
	n = kudu__cfile__cfile_header_pb__pack(&h, pb);
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_append(&b, w->p->version == 1 ? CFILE_MAGIC_V1
						: CFILE_MAGIC_V2, 8);
	put_u32le(&b, (uint32_t)n);
	colfs_buf_append(&b, pb, n);
	if (w->p->checksums)
		put_u32le(&b, colfs_crc32c(0, b.data, b.len));
	int rc = colfs_buf_status(&b) ? -1 : 0;
	emit(w, b.data, b.len);
	colfs_buf_free(&b);
	return rc;
}

static int write_dictionary(cw *w, uint64_t *off, uint32_t *size)
{
	const cw_value **v = malloc(((size_t)w->dict_n + 1) * sizeof(*v));
	cw_value *tmp = calloc((size_t)w->dict_n + 1, sizeof(*tmp));
	colfs_buf b = COLFS_BUF_INIT;
	int rc;

	if (!v || !tmp) {
		free(v), free(tmp);
		return -1;
	}
	for (uint32_t i = 0; i < w->dict_n; i++) {
		uint32_t k = w->dict_order[i];
		tmp[i].str = w->st->s[k];
		tmp[i].len = w->st->len[k];
		v[i] = &tmp[i];
	}
	enc_plain_binary(&b, 0, v, w->dict_n);
	rc = colfs_buf_status(&b) ? -1
				  : frame_block(w, (const uint8_t *)b.data,
						b.len, off, size);
	colfs_buf_free(&b);
	free(v);
	free(tmp);
	return rc;
}

static Kudu__Cfile__BTreeInfoPB *btree_info(Kudu__Cfile__BTreeInfoPB *info,
					    Kudu__Cfile__BlockPointerPB *bp,
					    uint64_t off, uint32_t size)
{
	kudu__cfile__btree_info_pb__init(info);
	kudu__cfile__block_pointer_pb__init(bp);
	bp->has_offset = bp->has_size = 1;
	bp->offset = (int64_t)off;
	bp->size = (int32_t)size;
	info->root_block = bp;
	return info;
}

static int write_footer(cw *w, int has_dict, uint64_t dict_off,
			uint32_t dict_size, uint64_t pos_off, uint32_t pos_size,
			uint64_t val_off, uint32_t val_size)
{
	const cw_params *p = w->p;
	Kudu__Cfile__CFileFooterPB f = KUDU__CFILE__CFILE_FOOTER_PB__INIT;
	Kudu__Cfile__BTreeInfoPB pinfo, vinfo;
	Kudu__Cfile__BlockPointerPB pbp, vbp, dbp;
	Kudu__Cfile__FileMetadataPairPB m[3];
	Kudu__Cfile__FileMetadataPairPB *mp[3] = {&m[0], &m[1], &m[2]};
	uint8_t *stats = NULL;
	uint8_t minmax[2][512];
	colfs_buf tail = COLFS_BUF_INIT;
	size_t n;
	uint8_t *pb;

	f.has_data_type = f.has_encoding = f.has_num_values = 1;
	f.data_type = p->type;
	f.encoding = p->encoding;
	f.num_values = (int64_t)p->count +
		       (p->damage == CW_DAMAGE_NUM_VALUES ? 1 : 0);
	if (p->posidx)
		f.posidx_info = btree_info(&pinfo, &pbp, pos_off, pos_size);
	if (p->validx)
		f.validx_info = btree_info(&vinfo, &vbp, val_off, val_size);
	f.has_compression = 1;
	f.compression = p->compression;
	meta_pair(&m[0], "colfs.writer", "cfile-writer");
	f.n_metadata = 1;
	if (p->role == CW_COLUMN && p->validx && p->count > 0) {
		/* a single-column primary key: the first and last key (§13) */
		static const char *const names[2] = {"min_key", "max_key"};
		uint32_t rows[2] = {0, p->count - 1};
		if (p->damage == CW_DAMAGE_MIN_KEY && p->count > 1)
			rows[0] = 1;
		if (p->damage == CW_DAMAGE_MAX_KEY && p->count > 1)
			rows[1] = 0;
		for (int k = 0; k < 2; k++) {
			cw_value v;
			value_at(p, w->ti, w->st, w->block_rows, rows[k], &v);
			kudu__cfile__file_metadata_pair_pb__init(&m[1 + k]);
			m[1 + k].key = (char *)names[k];
			m[1 + k].has_value = 1;
			m[1 + k].value.data = minmax[k];
			m[1 + k].value.len = value_key(w, &v, minmax[k],
						       sizeof(minmax[k]));
		}
		f.n_metadata = 3;
	}
	if (p->role == CW_DELTA) {
		Kudu__Cfile__DeltaStatsPB ds = KUDU__CFILE__DELTA_STATS_PB__INIT;
		Kudu__Cfile__DeltaColumnStatsPB cs[512], *csp[512];
		size_t ncs = 0;
		ds.has_delete_count = ds.has_min_timestamp = 1;
		ds.has_max_timestamp = ds.has_reinsert_count = 1;
		ds.delete_count = w->delete_count +
				  (p->damage == CW_DAMAGE_DELTA_DELETES);
		ds.reinsert_count = w->reinsert_count;
		ds.min_timestamp = w->min_ts;
		ds.max_timestamp = w->max_ts +
				   (p->damage == CW_DAMAGE_DELTA_MAX_TS);
		for (int c = 0; c < 512; c++) {
			if (!w->update_count[c])
				continue;
			kudu__cfile__delta_column_stats_pb__init(&cs[ncs]);
			cs[ncs].has_col_id = cs[ncs].has_update_count = 1;
			cs[ncs].col_id = c;
			cs[ncs].update_count = w->update_count[c] +
				(c == 3 && p->damage == CW_DAMAGE_DELTA_COLUMN);
			csp[ncs] = &cs[ncs];
			ncs++;
		}
		ds.n_column_stats = ncs;
		ds.column_stats = csp;
		size_t sl = kudu__cfile__delta_stats_pb__get_packed_size(&ds);
		stats = malloc(sl + 1);
		if (!stats)
			return -1;
		kudu__cfile__delta_stats_pb__pack(&ds, stats);
		kudu__cfile__file_metadata_pair_pb__init(&m[1]);
		m[1].key = (char *)"deltafilestats";
		m[1].has_value = 1;
		m[1].value.data = stats;
		m[1].value.len = sl;
		f.n_metadata = 2;
	}
	if (p->role == CW_BLOOM)
		f.num_values = 0;
	f.metadata = mp;
	f.has_is_type_nullable = 1;
	f.is_type_nullable = p->nullable;
	if (has_dict) {
		kudu__cfile__block_pointer_pb__init(&dbp);
		dbp.has_offset = dbp.has_size = 1;
		dbp.offset = (int64_t)dict_off;
		dbp.size = (int32_t)dict_size;
		f.dict_block_ptr = &dbp;
	}
	if (p->array) {
		f.has_is_type_array = 1;
		f.is_type_array = 1;
	}
	if (p->version == 2) {
		f.has_incompatible_features = 1;
		f.incompatible_features =
			(p->checksums ? CFILE_FEATURE_CHECKSUM : 0) |
			(p->array ? CFILE_FEATURE_ARRAY : 0) |
			(p->damage == CW_DAMAGE_UNKNOWN_FEATURE ? 0x80u : 0);
	}
	n = kudu__cfile__cfile_footer_pb__get_packed_size(&f);
	pb = malloc(n + 1);
	if (!pb) {
		free(stats);
		return -1;
	}
	kudu__cfile__cfile_footer_pb__pack(&f, pb);
	free(stats);
	colfs_buf_append(&tail, pb, n);
	colfs_buf_append(&tail,
			 p->version == 1 ? CFILE_MAGIC_V1 : CFILE_MAGIC_V2, 8);
	put_u32le(&tail, (uint32_t)n);
	free(pb);
	if (colfs_buf_status(&tail))
		return -1;
	if (p->checksums) {
		uint8_t crc[4];
		uint32_t c = colfs_crc32c(0, tail.data, tail.len);
		crc[0] = (uint8_t)c, crc[1] = (uint8_t)(c >> 8);
		crc[2] = (uint8_t)(c >> 16), crc[3] = (uint8_t)(c >> 24);
		emit(w, crc, 4);
	}
	emit(w, tail.data, tail.len);
	colfs_buf_free(&tail);
	return 0;
}

static int write_delta_block(cw *w, uint32_t r0, uint32_t rows);
static int write_bloom_block(cw *w, uint32_t r0, uint32_t rows);

static int cw_write_file(const cw_params *p, const char *path,
			 const char *expected_path, char *why, size_t why_len)
{
	cw w;
	cw_strings st = {0};
	uint32_t block_rows = p->block_rows ? p->block_rows : 1000;
	uint64_t pos_off = 0, val_off = 0, dict_off = 0;
	uint32_t pos_size = 0, val_size = 0, dict_size = 0;
	int rc = -1;

	memset(&w, 0, sizeof(w));
	w.p = p;
	w.ti = cfile_types_get(p->type);
	if (!w.ti)
		return fail(why, why_len, "type %d cannot be written",
			    p->type);
	if (!cfile_types_encoding_legal(p->type, p->encoding) ||
	    p->encoding == CFILE_AUTO_ENCODING)
		return fail(why, why_len, "%s is not an encoding for %s",
			    cfile_types_encoding_name(p->encoding),
			    cfile_types_type_name(p->type));
	if (p->compression < CFILE_NO_COMPRESSION ||
	    p->compression > CFILE_ZLIB)
		return fail(why, why_len, "bad compression %d",
			    p->compression);
	if (p->version != 1 && p->version != 2)
		return fail(why, why_len, "version must be 1 or 2");
	if (p->version == 1 && p->checksums)
		return fail(why, why_len, "v1 files have no checksums");
	if (p->array && (p->validx || p->version != 2 ||
			 p->role != CW_COLUMN))
		return fail(why, why_len, "array files are v2 columns without "
			    "a value index");
	if (p->validx && (p->nullable || w.ti->phys == CFILE_PHYS_FLOAT ||
			  w.ti->phys == CFILE_PHYS_BOOL))
		return fail(why, why_len,
			    "no value index for nullable, float or bool "
			    "columns");
	if (w.ti->phys == CFILE_PHYS_BINARY) {
		uint32_t distinct = p->distinct ? p->distinct : 50;
		if (strings_make(&st, distinct, p->type) ||
		    (p->validx && strings_sort(&st)))
			goto oom;
		w.st = &st;
		w.codeword = malloc(distinct * sizeof(*w.codeword));
		w.dict_order = malloc(distinct * sizeof(*w.dict_order));
		if (!w.codeword || !w.dict_order)
			goto oom;
		for (uint32_t k = 0; k < distinct; k++)
			w.codeword[k] = -1;
	}
	w.block_rows = block_rows;
	w.out = fopen(path, "wb");
	if (!w.out) {
		fail(why, why_len, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (expected_path) {
		w.expected = fopen(expected_path, "wb");
		if (!w.expected) {
			fail(why, why_len, "%s: %s", expected_path,
			     strerror(errno));
			goto out;
		}
	}
	if (write_header(&w))
		goto oom;
	for (uint32_t r0 = 0; r0 < p->count; r0 += block_rows) {
		uint32_t rows = p->count - r0 < block_rows ? p->count - r0
							   : block_rows;
		int brc = p->role == CW_DELTA   ? write_delta_block(&w, r0, rows)
			  : p->role == CW_BLOOM ? write_bloom_block(&w, r0, rows)
						: write_data_block(&w, r0, rows);
		if (brc) {
			fail(why, why_len, "cannot encode block at row %u", r0);
			goto out;
		}
	}
	if (p->posidx && tree_finish(&w, &w.posidx, &pos_off, &pos_size))
		goto oom;
	if (p->validx && tree_finish(&w, &w.validx, &val_off, &val_size))
		goto oom;
	if (p->encoding == CFILE_DICT &&
	    write_dictionary(&w, &dict_off, &dict_size))
		goto oom;
	if (write_footer(&w, p->encoding == CFILE_DICT, dict_off, dict_size,
			 pos_off, pos_size, val_off, val_size))
		goto oom;

	if (w.io_failed) {
		fail(why, why_len, "%s: write failed", path);
		goto out;
	}
	rc = 0;
	goto out;
oom:
	fail(why, why_len, "out of memory or encoder failure");
out:
	tree_free(&w.posidx);
	tree_free(&w.validx);
	if (w.out && fclose(w.out) && !rc)
		rc = fail(why, why_len, "%s: write failed", path);
	if (w.expected && fclose(w.expected) && !rc)
		rc = fail(why, why_len, "%s: write failed", expected_path);
	free(w.codeword);
	free(w.dict_order);
	strings_free(&st);
	return rc;
}

/* --- DeltaFiles and BloomFiles (§13) ---------------------------------------- */

static void put_memcmp_varint(colfs_buf *b, uint64_t v)
{
	if (v <= 240) {
		colfs_buf_putc(b, (char)v);
	} else if (v <= 2287) {
		colfs_buf_putc(b, (char)((v - 240) / 256 + 241));
		colfs_buf_putc(b, (char)((v - 240) % 256));
	} else if (v <= 67823) {
		colfs_buf_putc(b, (char)249);
		colfs_buf_putc(b, (char)((v - 2288) / 256));
		colfs_buf_putc(b, (char)((v - 2288) % 256));
	} else {
		unsigned n = 3;
		while (n < 8 && (v >> (8 * n)))
			n++;
		colfs_buf_putc(b, (char)(250 + n - 3));
		for (unsigned i = n; i-- > 0;)
			colfs_buf_putc(b, (char)(v >> (8 * i)));
	}
}

static void delta_entry(colfs_buf *val, colfs_buf *line, uint32_t col,
			const void *v, int len, bool text)
{
	put_varint(val, col);
	colfs_buf_printf(line, " c%u=", col);
	if (len < 0) {
		put_varint(val, 0);
		colfs_buf_puts(line, "NULL");
		return;
	}
	put_varint(val, (uint64_t)len + 1);
	colfs_buf_append(val, v, (size_t)len);
	if (text) {
		colfs_buf_printf(line, "\"%.*s\"", len, (const char *)v);
	} else {
		colfs_buf_puts(line, "0x");
		for (int k = 0; k < len; k++)
			colfs_buf_printf(line, "%02x", ((const uint8_t *)v)[k]);
	}
}

/* Delta i: DeltaKey (row, timestamp) + RowChangeList, and its line as the
 * reader should show it.  `*key_len` = length of the DeltaKey. */
static void delta_make(cw *w, uint32_t i, colfs_buf *val, colfs_buf *line,
		       size_t *key_len)
{
	uint64_t row = (uint64_t)(i / 3) * 97;
	/* three deltas per row; UNDO files list them newest first */
	uint32_t t = w->p->undo ? i - i % 3 + (2 - i % 3) : i;
	uint64_t ts = t % 3 == 0 ? t
				 : (1600000000000000ull + (uint64_t)t * 1000) << 12 |
					   (t % 3);
	uint8_t type = i % 5 == 0 ? 2 : i % 5 == 1 ? 3 : 1;
	static const char *const names[] = {"", "UPDATE", "DELETE",
					    "REINSERT"};

	put_memcmp_varint(val, row);
	put_memcmp_varint(val, ts);
	*key_len = val->len;
	colfs_buf_putc(val, (char)type);
	colfs_buf_printf(line, "row=%llu ts=%llu (physical=%llu logical=%llu) %s",
			 (unsigned long long)row, (unsigned long long)ts,
			 (unsigned long long)(ts >> 12),
			 (unsigned long long)(ts & 0xfff), names[type]);
	if (i == 0 || ts < w->min_ts)
		w->min_ts = ts;
	if (ts > w->max_ts)
		w->max_ts = ts;
	if (type == 2) {
		w->delete_count++;
	} else if (type == 3) {
		int32_t x = (int32_t)i * -3;
		char name[32];
		int nl = snprintf(name, sizeof(name), "name%u", i);
		w->reinsert_count++;
		delta_entry(val, line, 1, &x, 4, false);
		delta_entry(val, line, 2, name, nl, true);
	} else {
		uint32_t col = i % 300 + 1;
		int32_t x = (int32_t)i * 7;
		delta_entry(val, line, col, &x, 4, false);
		w->update_count[col]++;
		if (i % 4 == 0) {
			delta_entry(val, line, 200, NULL, -1, false);
			w->update_count[200]++;
		}
		if (i % 6 == 0) {
			uint64_t y = mix(i);
			delta_entry(val, line, 3, &y, 8, false);
			w->update_count[3]++;
		}
	}
	colfs_buf_putc(line, '\n');
}

static int write_delta_block(cw *w, uint32_t r0, uint32_t rows)
{
	colfs_buf vals = COLFS_BUF_INIT, lines = COLFS_BUF_INIT;
	colfs_buf blk = COLFS_BUF_INIT;
	size_t *starts = malloc(((size_t)rows + 1) * sizeof(*starts));
	cw_value *v = calloc((size_t)rows + 1, sizeof(*v));
	const cw_value **vp = malloc(((size_t)rows + 1) * sizeof(*vp));
	size_t first_key = 0;
	int rc = -1;

	if (!starts || !v || !vp)
		goto out;
	for (uint32_t i = 0; i < rows; i++) {
		size_t kl;
		starts[i] = vals.len;
		delta_make(w, r0 + i, &vals, &lines, &kl);
		if (i == 0)
			first_key = kl;
	}
	starts[rows] = vals.len;
	if (colfs_buf_status(&vals) || colfs_buf_status(&lines))
		goto out;
	for (uint32_t i = 0; i < rows; i++) {
		v[i].str = (const uint8_t *)vals.data + starts[i];
		v[i].len = (uint32_t)(starts[i + 1] - starts[i]);
		vp[i] = &v[i];
	}
	enc_plain_binary(&blk, r0, vp, rows);
	uint64_t off;
	uint32_t size;
	if (colfs_buf_status(&blk) ||
	    frame_block(w, (const uint8_t *)blk.data, blk.len, &off, &size))
		goto out;
	/* DeltaFile value keys are the whole DeltaKey, never shortened. */
	if (tree_add(w, &w->validx, 0, (const uint8_t *)vals.data, first_key,
		     off, size))
		goto out;
	if (w->expected &&
	    fwrite(lines.data, 1, lines.len, w->expected) != lines.len)
		goto out;
	w->block_no++;
	rc = 0;
out:
	colfs_buf_free(&vals);
	colfs_buf_free(&lines);
	colfs_buf_free(&blk);
	free(starts);
	free(v);
	free(vp);
	return rc;
}

#define CW_BLOOM_BYTES 512
#define CW_BLOOM_HASHES 13

/* One bloom block of keys [r0, r0 + rows): 4-byte memcmp-encoded INT32
 * primary keys (§13).  The bits are set with this writer's own hash (Kudu
 * uses its 2010 CityHash64 copy): colfs shows bloom parameters, it does
 * not answer membership. */
static int write_bloom_block(cw *w, uint32_t r0, uint32_t rows)
{
	uint8_t blk[4 + 8 + CW_BLOOM_BYTES];
	Kudu__Cfile__BloomBlockHeaderPB h =
		KUDU__CFILE__BLOOM_BLOCK_HEADER_PB__INIT;
	size_t hl;
	uint8_t key[4], last[4];
	unsigned bits = 0;

	memset(blk, 0, sizeof(blk));
	h.has_num_hash_functions = 1;
	h.num_hash_functions = CW_BLOOM_HASHES;
	hl = kudu__cfile__bloom_block_header_pb__pack(&h, blk + 4);
	blk[0] = (uint8_t)hl;
	uint8_t *bm = blk + 4 + hl;
	for (uint32_t i = 0; i < rows; i++) {
		uint64_t k = mix((uint64_t)(r0 + i) * 3);
		uint32_t h1 = (uint32_t)k, h2 = (uint32_t)(k >> 32);
		for (uint32_t j = 0; j < CW_BLOOM_HASHES; j++) {
			uint32_t b = (h1 + j * h2) % (8 * CW_BLOOM_BYTES);
			bm[b / 8] |= (uint8_t)(1u << (b % 8));
		}
	}
	for (size_t i = 0; i < CW_BLOOM_BYTES; i++)
		bits += (unsigned)__builtin_popcount(bm[i]);
	uint64_t off;
	uint32_t size;
	if (frame_block(w, blk, 4 + hl + CW_BLOOM_BYTES, &off, &size))
		return -1;
	uint32_t first = (r0 * 3) ^ 0x80000000u, lastv = ((r0 + rows - 1) * 3) ^
							 0x80000000u;
	for (int k = 0; k < 4; k++) {
		key[k] = (uint8_t)(first >> (24 - 8 * k));
		last[k] = (uint8_t)(lastv >> (24 - 8 * k));
	}
	size_t cpl = 0, keep;
	while (cpl < 4 && cpl < w->prev_last_len && key[cpl] == w->prev_last[cpl])
		cpl++;
	keep = cpl == 4 ? 4 : cpl + 1;
	if (tree_add(w, &w->validx, 0, key, keep, off, size))
		return -1;
	memcpy(w->prev_last, last, 4);
	w->prev_last_len = 4;
	if (w->expected) {
		fprintf(w->expected, "%u key=0x", w->block_no);
		for (size_t k = 0; k < keep; k++)
			fprintf(w->expected, "%02x", key[k]);
		fprintf(w->expected, " hash_functions=%d bitmap_bytes=%d "
			"bits_set=%u\n", CW_BLOOM_HASHES, CW_BLOOM_BYTES, bits);
	}
	w->block_no++;
	return 0;
}

int cw_write(const cw_params *p, const char *path, const char *expected_path,
	     char *why, size_t why_len)
{
	cw_params q = *p;

	if (q.role != CW_COLUMN) {
		q.type = CFILE_BINARY;
		q.encoding = CFILE_PLAIN;
		q.nullable = false;
		q.posidx = false;
		q.validx = true;
		if (q.role == CW_BLOOM)
			q.compression = CFILE_NO_COMPRESSION;
	}
	return cw_write_file(&q, path, expected_path, why, why_len);
}

/* --- array data blocks (§7.3) --------------------------------------------- */

static uint32_t cell_len(uint32_t i, bool *null)
{
	*null = i % 9 == 4;
	if (*null || i % 9 == 5)
		return 0; /* NULL cell, empty array */
	return i % 13 == 7 ? 70 : i % 4 + 1;
}

static int write_array_block(cw *w, uint32_t r0, uint32_t rows)
{
	const cw_params *p = w->p;
	uint64_t flat = 0;
	int rc = -1;

	for (uint32_t i = 0; i < rows; i++) {
		bool null;
		flat += cell_len(r0 + i, &null);
	}
	cw_value *el = calloc(flat + 1, sizeof(*el));
	const cw_value **nn = malloc((flat + 1) * sizeof(*nn));
	uint64_t *fbits = malloc((flat + 1) * sizeof(*fbits));
	uint64_t *counts = malloc(((size_t)rows + 1) * sizeof(*counts));
	uint64_t *cbits = malloc(((size_t)rows + 1) * sizeof(*cbits));
	colfs_buf inner = COLFS_BUF_INIT, blk = COLFS_BUF_INIT, tmp = COLFS_BUF_INIT;
	colfs_buf lines = COLFS_BUF_INIT;
	uint32_t n = 0;
	size_t e = 0;

	if (!el || !nn || !fbits || !counts || !cbits)
		goto out;
	for (uint32_t i = 0; i < rows; i++) {
		bool null;
		uint32_t len = cell_len(r0 + i, &null);
		counts[i] = len;
		cbits[i] = !null;
		if (null) {
			colfs_buf_puts(&lines, "\\N\n");
			continue;
		}
		colfs_buf_putc(&lines, '[');
		for (uint32_t k = 0; k < len; k++, e++) {
			uint32_t idx = (r0 + i) * 8 + k % 8 + k / 8 * 7919;
			value_at(p, w->ti, w->st, w->block_rows, idx, &el[e]);
			el[e].null = p->nullable && idx % 5 == 2;
			fbits[e] = !el[e].null;
			if (k)
				colfs_buf_putc(&lines, ',');
			if (el[e].null) {
				colfs_buf_puts(&lines, "null");
				continue;
			}
			nn[n++] = &el[e];
			if (w->ti->phys == CFILE_PHYS_BINARY)
				cfile_types_value_render_json(&lines, p->type,
							el[e].str, el[e].len);
			else
				cfile_types_value_render_json(&lines, p->type,
							el[e].fixed, el[e].len);
		}
		colfs_buf_puts(&lines, "]\n");
	}
	if (w->ti->phys == CFILE_PHYS_BINARY) {
		if (p->encoding == CFILE_PLAIN)
			enc_plain_binary(&inner, r0, nn, n);
		else if (p->encoding == CFILE_PREFIX)
			enc_prefix(&inner, r0, nn, n,
				   p->restart_interval ? p->restart_interval
						       : 16);
		else if (enc_dict(w, &inner, r0, nn, n))
			goto out;
	} else if (enc_fixed(w, &inner, r0, nn, n)) {
		goto out;
	}
	put_varint(&blk, flat);
	put_varint(&blk, rows);
	rle_encode(&tmp, fbits, flat, 1);
	put_varint(&blk, tmp.len);
	colfs_buf_append(&blk, tmp.data, tmp.len);
	tmp.len = 0;
	rle_encode(&tmp, counts, rows, 16);
	put_varint(&blk, tmp.len);
	colfs_buf_append(&blk, tmp.data, tmp.len);
	tmp.len = 0;
	rle_encode(&tmp, cbits, rows, 1);
	put_varint(&blk, tmp.len);
	colfs_buf_append(&blk, tmp.data, tmp.len);
	colfs_buf_append(&blk, inner.data, inner.len);
	if (colfs_buf_status(&blk) || colfs_buf_status(&inner) ||
	    colfs_buf_status(&tmp) || colfs_buf_status(&lines))
		goto out;
	uint64_t off;
	uint32_t size;
	if (frame_block(w, (const uint8_t *)blk.data, blk.len, &off, &size))
		goto out;
	if (p->posidx) {
		uint8_t key[4] = {(uint8_t)(r0 >> 24), (uint8_t)(r0 >> 16),
				  (uint8_t)(r0 >> 8), (uint8_t)r0};
		if (tree_add(w, &w->posidx, 0, key, 4, off, size))
			goto out;
	}
	if (w->expected &&
	    fwrite(lines.data, 1, lines.len, w->expected) != lines.len)
		goto out;
	w->block_no++;
	rc = 0;
out:
	free(el);
	free(nn);
	free(fbits);
	free(counts);
	free(cbits);
	colfs_buf_free(&inner);
	colfs_buf_free(&blk);
	colfs_buf_free(&tmp);
	colfs_buf_free(&lines);
	return rc;
}

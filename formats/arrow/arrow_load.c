/* colfs: a record or dictionary batch's buffers, read from the body,
 * decompressed (LZ4_FRAME through liblz4's frame API, ZSTD through the
 * core's codecs), byte-swapped when the file is big-endian, and checked
 * into arrow_arr trees: every buffer inside the body, every size and
 * offset inside the buffer or child it indexes, so that rendering
 * (arrow_render.c) never reads outside what was loaded. */
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>

#include "../core/codec.h"
#include "arrow_fb.h"
#include "arrow_int.h"

bool arrow_msg_variadic(const arrow_file *f, uint32_t mi, uint32_t k,
			int64_t *count);

typedef struct loader {
	arrow_file *f;
	uint32_t mi;
	const arrow_msg *m;
	arrow_batch *b;
	uint32_t node, buf, var;
	colfs_err *err;
} loader;

/* Swap codes beyond plain widths. */
#define SW_MDN (-1)   /* interval month_day_nano: i32, i32, i64 */
#define SW_VIEW (-2)  /* a binary/utf8 view */


static bool own(arrow_batch *b, uint8_t *p)
{
	if (b->nowned == b->capowned) {
		size_t cap = b->capowned ? b->capowned * 2 : 16;
		uint8_t **n = realloc(b->owned, cap * sizeof(*n));
		if (!n)
			return false;
		b->owned = n;
		b->capowned = cap;
	}
	b->owned[b->nowned++] = p;
	return true;
}

static void swap_bytes(uint8_t *p, size_t w)
{
	for (size_t i = 0; i < w / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[w - 1 - i];
		p[w - 1 - i] = t;
	}
}

static void swap_buf(uint8_t *p, uint64_t len, int w)
{
	if (w == SW_MDN) {
		for (uint64_t i = 0; i + 16 <= len; i += 16) {
			swap_bytes(p + i, 4);
			swap_bytes(p + i + 4, 4);
			swap_bytes(p + i + 8, 8);
		}
	} else if (w == SW_VIEW) {
		for (uint64_t i = 0; i + 16 <= len; i += 16) {
			swap_bytes(p + i, 4);
			if ((int32_t)afb_u32(p + i) > 12) {
				swap_bytes(p + i + 8, 4);
				swap_bytes(p + i + 12, 4);
			}
		}
	} else if (w > 1) {
		for (uint64_t i = 0; i + (uint64_t)w <= len; i += (uint64_t)w)
			swap_bytes(p + i, (size_t)w);
	}
}

/* An LZ4 frame (or several) into a buffer grown as needed up to `max`
 * bytes: the frame says where it ends, so its output is known even when
 * the length before it is wrong (apache-arrow's JavaScript writer, 21.x,
 * puts the compressed length there). */
static colfs_status lz4f(const uint8_t *in, size_t n, size_t hint, size_t max,
			 uint8_t **outp, size_t *outlen, uint64_t off,
			 colfs_err *err)
{
	LZ4F_dctx *d;
	size_t cap = hint ? hint : 64, got = 0, used = 0;
	uint8_t *out = malloc(cap);
	colfs_status st = COLFS_OK;

	if (!out)
		return colfs_fail(err, COLFS_ENOMEM, off, "no memory");
	if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION))) {
		free(out);
		return colfs_fail(err, COLFS_ENOMEM, off, "no memory");
	}
	while (used < n) {
		if (got == cap) {
			if (cap >= max) {
				st = colfs_fail(err, COLFS_EOVERFLOW, off,
						"LZ4 frame: more than %zu bytes "
						"(the cap)", max);
				break;
			}
			size_t nc = cap * 2 < max ? cap * 2 : max;
			uint8_t *no = realloc(out, nc);
			if (!no) {
				st = colfs_fail(err, COLFS_ENOMEM, off,
						"no memory");
				break;
			}
			out = no;
			cap = nc;
		}
		size_t dst = cap - got, src = n - used;
		size_t r = LZ4F_decompress(d, out + got, &dst, in + used, &src,
					   NULL);
		if (LZ4F_isError(r)) {
			st = colfs_fail(err, COLFS_ECORRUPT, off,
					"LZ4 frame: %s", LZ4F_getErrorName(r));
			break;
		}
		got += dst;
		used += src;
		if (r == 0) {
			/* a frame ended; another may follow */
			if (used < n)
				LZ4F_resetDecompressionContext(d);
			continue;
		}
		if (!src && !dst && got < cap) {
			st = colfs_fail(err, COLFS_ECORRUPT, off,
					"LZ4 frame cut short");
			break;
		}
	}
	LZ4F_freeDecompressionContext(d);
	if (st) {
		free(out);
		return st;
	}
	*outp = out;
	*outlen = got;
	return COLFS_OK;
}

static colfs_status buf_read(arrow_file *f, const arrow_msg *m, uint32_t mi,
			     uint32_t k, bool decompress, int swap_w,
			     uint8_t **out, uint64_t *len, uint64_t *abs_off,
			     uint64_t *stored, arrow_mismatch *mismatch,
			     colfs_err *err)
{
	int64_t off, bl;
	*out = NULL;
	*len = 0;
	if (!arrow_msg_buffer(f, mi, k, &off, &bl, NULL))
		return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
				  "buffer %u is not listed in the message", k);
	if (off < 0 || bl < 0 || (uint64_t)off > m->body_len ||
	    (uint64_t)bl > m->body_len - (uint64_t)off)
		return colfs_fail(err, COLFS_EBOUNDS, m->body_off,
				  "buffer %u (offset %lld, length %lld) lies "
				  "outside the body of %llu bytes", k,
				  (long long)off, (long long)bl,
				  (unsigned long long)m->body_len);
	uint64_t at = m->body_off + (uint64_t)off;
	*abs_off = at;
	*stored = (uint64_t)bl;
	uint8_t *raw;
	COLFS_TRY(colfs_source_read_region(f->src, at, (uint64_t)bl,
					   f->max_alloc, &raw, err));
	if (m->codec < 0 || !decompress || bl == 0) {
		*out = raw;
		*len = (uint64_t)bl;
	} else {
		if (bl < 8) {
			free(raw);
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "compressed buffer %u of %lld bytes "
					  "has no 8-byte length", k,
					  (long long)bl);
		}
		int64_t ul = (int64_t)afb_u64(raw);
		if (ul == -1) {
			memmove(raw, raw + 8, (size_t)bl - 8);
			*out = raw;
			*len = (uint64_t)bl - 8;
		} else if (ul < 0 || (uint64_t)ul > f->max_alloc) {
			free(raw);
			return colfs_fail(err, COLFS_EOVERFLOW, at,
					  "buffer %u decompresses to %lld "
					  "bytes (the cap is %llu)", k,
					  (long long)ul,
					  (unsigned long long)f->max_alloc);
		} else {
			uint8_t *d = NULL;
			colfs_status st;
			size_t got = 0;
			if (m->codec == 0) {
				st = lz4f(raw + 8, (size_t)bl - 8, (size_t)ul,
					  (size_t)f->max_alloc, &d, &got, at,
					  err);
				if (!st && got != (size_t)ul && mismatch) {
					mismatch->count++;
					if (mismatch->count == 1) {
						mismatch->off = at;
						mismatch->announced = ul;
						mismatch->actual = (int64_t)got;
					}
				}
				ul = (int64_t)got;
			} else if (!(d = malloc(ul ? (size_t)ul : 1))) {
				st = colfs_fail(err, COLFS_ENOMEM, at,
						"no memory");
			} else {
				st = colfs_codec_decompress(
					COLFS_CODEC_ZSTD, raw + 8,
					(size_t)bl - 8, d, (size_t)ul, &got,
					at, err);
				if (!st && got != (size_t)ul)
					st = colfs_fail(err, COLFS_ECORRUPT,
							at,
							"ZSTD: %zu bytes "
							"decompressed, %lld "
							"announced",
							got, (long long)ul);
			}
			free(raw);
			if (st) {
				free(d);
				return st;
			}
			*out = d;
			*len = (uint64_t)ul;
		}
	}
	if (f->big_endian && decompress)
		swap_buf(*out, *len, swap_w);
	return COLFS_OK;
}

colfs_status arrow_buffer_read(arrow_file *f, uint32_t mi, uint32_t k,
			       bool decompressed, uint8_t **out,
			       uint64_t *len, colfs_err *err)
{
	uint64_t a, s;
	if (mi >= f->nmsgs)
		return colfs_fail(err, COLFS_ENOENT, 0, "no such message");
	return buf_read(f, &f->msgs[mi], mi, k, decompressed, 1, out, len, &a,
			&s, NULL, err);
}

static colfs_status next_buf(loader *L, bool load, int swap_w,
			     arrow_bufref *out)
{
	uint32_t k = L->buf++;
	uint8_t *p;
	if (!load)
		return COLFS_OK;
	memset(out, 0, sizeof(*out));
	COLFS_TRY(buf_read(L->f, L->m, L->mi, k, true, swap_w, &p, &out->len,
			   &out->off, &out->stored_len, &L->b->mismatch,
			   L->err));
	if (!own(L->b, p)) {
		free(p);
		return colfs_fail(L->err, COLFS_ENOMEM, out->off, "no memory");
	}
	out->p = p;
	return COLFS_OK;
}

static int data_width(const arrow_field *fl, bool values)
{
	if (fl->dict && !values)
		return fl->idx_bits / 8;
	switch (fl->type) {
	case AT_INT: return fl->bits / 8;
	case AT_FLOAT: return fl->bits == 0 ? 2 : fl->bits == 1 ? 4 : 8;
	case AT_DECIMAL: return fl->bits / 8;
	case AT_DATE: return fl->unit == 0 ? 4 : 8;
	case AT_TIME: return fl->bits / 8;
	case AT_TIMESTAMP: case AT_DURATION: return 8;
	case AT_INTERVAL: return fl->unit == 0 ? 4 : fl->unit == 1 ? 8 : 16;
	case AT_FSB: return fl->width;
	default: return 0;
	}
}

static int64_t offs_at(const arrow_bufref *o, int w, int64_t i)
{
	return w == 4 ? (int32_t)afb_u32(o->p + 4 * i)
		      : (int64_t)afb_u64(o->p + 8 * i);
}

/* Offsets [0, len] nondecreasing, from 0 or more, the last <= `limit`. */
static colfs_status check_offsets(loader *L, const arrow_field *fl,
				  const arrow_bufref *o, int w, int64_t len,
				  int64_t limit, const char *what)
{
	if (len == 0)
		return COLFS_OK;
	if (o->len / (uint64_t)w < (uint64_t)len + 1)
		return colfs_fail(L->err, COLFS_ETRUNCATED, o->off,
				  "field \"%s\": offsets buffer of %llu bytes "
				  "for %lld values", fl->name,
				  (unsigned long long)o->len, (long long)len);
	int64_t prev = offs_at(o, w, 0);
	if (prev < 0)
		return colfs_fail(L->err, COLFS_ECORRUPT, o->off,
				  "field \"%s\": first offset %lld is "
				  "negative", fl->name, (long long)prev);
	for (int64_t i = 1; i <= len; i++) {
		int64_t v = offs_at(o, w, i);
		if (v < prev)
			return colfs_fail(L->err, COLFS_ECORRUPT,
					  o->off + (uint64_t)(i * w),
					  "field \"%s\": offset %lld (%lld) "
					  "is less than the one before (%lld)",
					  fl->name, (long long)i, (long long)v,
					  (long long)prev);
		prev = v;
	}
	if (prev > limit)
		return colfs_fail(L->err, COLFS_EBOUNDS,
				  o->off + (uint64_t)(len * w),
				  "field \"%s\": last offset %lld past the "
				  "%lld %s", fl->name, (long long)prev,
				  (long long)limit, what);
	return COLFS_OK;
}

static arrow_arr *arrs_new(loader *L, uint32_t n)
{
	arrow_batch *b = L->b;
	if (b->narrs == b->caparrs) {
		size_t cap = b->caparrs ? b->caparrs * 2 : 16;
		arrow_arr **na = realloc(b->arrs, cap * sizeof(*na));
		if (!na)
			return NULL;
		b->arrs = na;
		b->caparrs = cap;
	}
	arrow_arr *a = calloc(n ? n : 1, sizeof(*a));
	if (a)
		b->arrs[b->narrs++] = a;
	return a;
}

static colfs_status load_field(loader *L, const arrow_field *fl, bool values,
			       bool load, arrow_arr *a, int depth);

static colfs_status load_children(loader *L, const arrow_field *fl, bool load,
				  arrow_arr *a, int depth)
{
	if (!fl->nchildren)
		return COLFS_OK;
	if (load) {
		if (!(a->ch = arrs_new(L, fl->nchildren)))
			return colfs_fail(L->err, COLFS_ENOMEM, L->m->off,
					  "no memory");
		a->nch = fl->nchildren;
	}
	for (uint32_t i = 0; i < fl->nchildren; i++)
		COLFS_TRY(load_field(L, &fl->children[i], false, load,
				     load ? &a->ch[i] : NULL, depth + 1));
	return COLFS_OK;
}

static colfs_status check_len(loader *L, const arrow_field *fl,
			      const arrow_bufref *d, int64_t n, int64_t w)
{
	if (w && d->len / (uint64_t)w < (uint64_t)n)
		return colfs_fail(L->err, COLFS_ETRUNCATED,
				  d->off,
				  "field \"%s\": data buffer of %llu bytes for "
				  "%lld values of %lld bytes", fl->name,
				  (unsigned long long)d->len, (long long)n,
				  (long long)w);
	return COLFS_OK;
}

static colfs_status load_field(loader *L, const arrow_field *fl, bool values,
			       bool load, arrow_arr *a, int depth)
{
	const arrow_msg *m = L->m;
	int64_t len = 0, nulls = 0;
	bool dict = fl->dict && !values;

	if (depth > ARROW_MAX_DEPTH)
		return colfs_fail(L->err, COLFS_EUNSUPPORTED, m->meta_off,
				  "fields nested deeper than %d",
				  ARROW_MAX_DEPTH);
	if (!arrow_msg_node(L->f, L->mi, L->node, &len, &nulls, NULL))
		return colfs_fail(L->err, COLFS_ECORRUPT, m->meta_off,
				  "field \"%s\": no field node %u in the "
				  "message", fl->name, L->node);
	L->node++;
	if (load) {
		a->f = fl;
		a->values = values;
		if (len < 0 || nulls < 0 || nulls > len)
			return colfs_fail(L->err, COLFS_ECORRUPT, m->meta_off,
					  "field \"%s\": length %lld, null "
					  "count %lld", fl->name,
					  (long long)len, (long long)nulls);
		a->len = len;
		a->nulls = nulls;
	}
	uint8_t type = dict ? AT_INT : fl->type;
	bool has_validity = type != AT_NULL && type != AT_REE &&
			    (type != AT_UNION || m->version < 4);
	if (has_validity) {
		COLFS_TRY(next_buf(L, load, 1, load ? &a->b[0] : NULL));
		if (load) {
			if (a->nulls == 0)
				a->b[0].len = 0, a->b[0].p = NULL;
			else if (!a->b[0].len && type != AT_UNION)
				return colfs_fail(L->err, COLFS_ECORRUPT,
						  m->meta_off,
						  "field \"%s\": %lld nulls "
						  "but no validity buffer",
						  fl->name, (long long)nulls);
			else if (a->b[0].len && a->b[0].len * 8 < (uint64_t)len)
				return colfs_fail(L->err, COLFS_ETRUNCATED,
						  a->b[0].off,
						  "field \"%s\": validity "
						  "buffer of %llu bytes for "
						  "%lld values", fl->name,
						  (unsigned long long)
							  a->b[0].len,
						  (long long)len);
		}
	}
	if (dict) {
		int w = fl->idx_bits / 8;
		COLFS_TRY(next_buf(L, load, w, load ? &a->b[1] : NULL));
		return load ? check_len(L, fl, &a->b[1], len, w) : COLFS_OK;
	}
	int w = data_width(fl, true);
	switch (type) {
	case AT_NULL:
		if (load)
			a->nulls = len;
		return COLFS_OK;
	case AT_BOOL:
		COLFS_TRY(next_buf(L, load, 1, load ? &a->b[1] : NULL));
		if (load && a->b[1].len * 8 < (uint64_t)len)
			return colfs_fail(L->err, COLFS_ETRUNCATED,
					  a->b[1].off,
					  "field \"%s\": bool buffer of %llu "
					  "bytes for %lld values", fl->name,
					  (unsigned long long)a->b[1].len,
					  (long long)len);
		return COLFS_OK;
	case AT_INT: case AT_FLOAT: case AT_DECIMAL: case AT_DATE:
	case AT_TIME: case AT_TIMESTAMP: case AT_DURATION: case AT_FSB:
		COLFS_TRY(next_buf(L, load, type == AT_FSB ? 1 : w,
				   load ? &a->b[1] : NULL));
		return load ? check_len(L, fl, &a->b[1], len, w) : COLFS_OK;
	case AT_INTERVAL:
		COLFS_TRY(next_buf(L, load, fl->unit == 2 ? SW_MDN : 4,
				   load ? &a->b[1] : NULL));
		return load ? check_len(L, fl, &a->b[1], len, w) : COLFS_OK;
	case AT_BINARY: case AT_UTF8: case AT_LBINARY: case AT_LUTF8: {
		int ow = type == AT_BINARY || type == AT_UTF8 ? 4 : 8;
		COLFS_TRY(next_buf(L, load, ow, load ? &a->b[1] : NULL));
		COLFS_TRY(next_buf(L, load, 1, load ? &a->b[2] : NULL));
		if (!load)
			return COLFS_OK;
		return check_offsets(L, fl, &a->b[1], ow, len,
				     (int64_t)a->b[2].len, "bytes of the data");
	}
	case AT_BINVIEW: case AT_UTF8VIEW: {
		int64_t nv = 0;
		uint32_t vk = L->var++;
		COLFS_TRY(next_buf(L, load, SW_VIEW, load ? &a->b[1] : NULL));
		if (!arrow_msg_variadic(L->f, L->mi, vk, &nv) || nv < 0 ||
		    nv > 1000000)
			return colfs_fail(L->err, COLFS_ECORRUPT, m->meta_off,
					  "field \"%s\": no variadic buffer "
					  "count for this view field",
					  fl->name);
		if (load && nv) {
			a->vb = calloc((size_t)nv, sizeof(*a->vb));
			if (!a->vb || !own(L->b, (uint8_t *)a->vb)) {
				free(a->vb);
				a->vb = NULL;
				return colfs_fail(L->err, COLFS_ENOMEM,
						  m->meta_off, "no memory");
			}
			a->nvb = (uint32_t)nv;
		}
		for (int64_t i = 0; i < nv; i++)
			COLFS_TRY(next_buf(L, load, 1,
					   load ? &a->vb[i] : NULL));
		if (!load)
			return COLFS_OK;
		COLFS_TRY(check_len(L, fl, &a->b[1], len, 16));
		for (int64_t i = 0; i < len; i++) {
			const uint8_t *v = a->b[1].p + 16 * i;
			int32_t n = (int32_t)afb_u32(v);
			if (n < 0)
				return colfs_fail(L->err, COLFS_ECORRUPT,
						  a->b[1].off + 16 * i,
						  "field \"%s\": view %lld has "
						  "length %d", fl->name,
						  (long long)i, n);
			if (n <= 12)
				continue;
			uint32_t bi = afb_u32(v + 8);
			int32_t o = (int32_t)afb_u32(v + 12);
			if (bi >= a->nvb || o < 0 ||
			    (uint64_t)o + (uint64_t)n > a->vb[bi].len)
				return colfs_fail(L->err, COLFS_EBOUNDS,
						  a->b[1].off + 16 * i,
						  "field \"%s\": view %lld "
						  "(buffer %u, offset %d, "
						  "length %d) lies outside its "
						  "data buffers", fl->name,
						  (long long)i, bi, o, n);
		}
		return COLFS_OK;
	}
	case AT_LIST: case AT_LLIST: case AT_MAP: {
		int ow = type == AT_LLIST ? 8 : 4;
		COLFS_TRY(next_buf(L, load, ow, load ? &a->b[1] : NULL));
		COLFS_TRY(load_children(L, fl, load, a, depth));
		if (!load)
			return COLFS_OK;
		return check_offsets(L, fl, &a->b[1], ow, len, a->ch[0].len,
				     "values of its child");
	}
	case AT_LISTVIEW: case AT_LLISTVIEW: {
		int ow = type == AT_LISTVIEW ? 4 : 8;
		COLFS_TRY(next_buf(L, load, ow, load ? &a->b[1] : NULL));
		COLFS_TRY(next_buf(L, load, ow, load ? &a->b[2] : NULL));
		COLFS_TRY(load_children(L, fl, load, a, depth));
		if (!load)
			return COLFS_OK;
		COLFS_TRY(check_len(L, fl, &a->b[1], len, ow));
		COLFS_TRY(check_len(L, fl, &a->b[2], len, ow));
		for (int64_t i = 0; i < len; i++) {
			int64_t o = offs_at(&a->b[1], ow, i),
				s = offs_at(&a->b[2], ow, i);
			if (a->b[0].p && !(a->b[0].p[i >> 3] >> (i & 7) & 1))
				continue;
			if (o < 0 || s < 0 || o > a->ch[0].len ||
			    s > a->ch[0].len - o)
				return colfs_fail(L->err, COLFS_EBOUNDS,
						  a->b[1].off + (uint64_t)(i * ow),
						  "field \"%s\": list view %lld "
						  "(offset %lld, size %lld) "
						  "outside its child of %lld "
						  "values", fl->name,
						  (long long)i, (long long)o,
						  (long long)s,
						  (long long)a->ch[0].len);
		}
		return COLFS_OK;
	}
	case AT_FSL:
		COLFS_TRY(load_children(L, fl, load, a, depth));
		if (load && fl->width &&
		    a->ch[0].len / fl->width < len)
			return colfs_fail(L->err, COLFS_ETRUNCATED, m->meta_off,
					  "field \"%s\": child of %lld values "
					  "for %lld lists of %d", fl->name,
					  (long long)a->ch[0].len,
					  (long long)len, fl->width);
		return COLFS_OK;
	case AT_STRUCT:
		COLFS_TRY(load_children(L, fl, load, a, depth));
		if (load)
			for (uint32_t i = 0; i < a->nch; i++)
				if (a->ch[i].len < len)
					return colfs_fail(
						L->err, COLFS_ETRUNCATED,
						m->meta_off,
						"field \"%s\": child \"%s\" "
						"has %lld values, the struct "
						"%lld", fl->name,
						fl->children[i].name,
						(long long)a->ch[i].len,
						(long long)len);
		return COLFS_OK;
	case AT_UNION: {
		COLFS_TRY(next_buf(L, load, 1, load ? &a->b[1] : NULL));
		if (fl->union_mode)
			COLFS_TRY(next_buf(L, load, 4,
					   load ? &a->b[2] : NULL));
		COLFS_TRY(load_children(L, fl, load, a, depth));
		if (!load)
			return COLFS_OK;
		COLFS_TRY(check_len(L, fl, &a->b[1], len, 1));
		if (fl->union_mode)
			COLFS_TRY(check_len(L, fl, &a->b[2], len, 4));
		for (int64_t i = 0; i < len; i++) {
			int8_t id = (int8_t)a->b[1].p[i];
			uint32_t c;
			for (c = 0; c < fl->nchildren; c++)
				if ((fl->type_ids ? fl->type_ids[c]
						  : (int32_t)c) == id)
					break;
			if (a->b[0].p && !(a->b[0].p[i >> 3] >> (i & 7) & 1))
				continue;
			if (c == fl->nchildren)
				return colfs_fail(L->err, COLFS_ECORRUPT,
						  a->b[1].off + (uint64_t)i,
						  "field \"%s\": value %lld has "
						  "type id %d, which no member "
						  "has", fl->name,
						  (long long)i, id);
			int64_t o = fl->union_mode
					    ? (int32_t)afb_u32(a->b[2].p + 4 * i)
					    : i;
			if (o < 0 || o >= a->ch[c].len)
				return colfs_fail(L->err, COLFS_EBOUNDS,
						  fl->union_mode
							  ? a->b[2].off + 4 * i
							  : m->meta_off,
						  "field \"%s\": value %lld is "
						  "at %lld of member \"%s\", "
						  "which has %lld", fl->name,
						  (long long)i, (long long)o,
						  fl->children[c].name,
						  (long long)a->ch[c].len);
		}
		return COLFS_OK;
	}
	case AT_REE: {
		COLFS_TRY(load_children(L, fl, load, a, depth));
		if (!load)
			return COLFS_OK;
		const arrow_arr *re = &a->ch[0];
		int rw = re->f->bits / 8;
		if (re->nulls)
			return colfs_fail(L->err, COLFS_ECORRUPT, m->meta_off,
					  "field \"%s\": run ends hold nulls",
					  fl->name);
		if (a->ch[1].len < re->len)
			return colfs_fail(L->err, COLFS_ETRUNCATED, m->meta_off,
					  "field \"%s\": %lld runs but %lld "
					  "values", fl->name,
					  (long long)re->len,
					  (long long)a->ch[1].len);
		int64_t prev = 0;
		for (int64_t i = 0; i < re->len; i++) {
			const uint8_t *p = re->b[1].p + rw * i;
			int64_t v = rw == 2 ? (int16_t)(p[0] | p[1] << 8)
				    : rw == 4 ? (int32_t)afb_u32(p)
					      : (int64_t)afb_u64(p);
			if (v <= prev)
				return colfs_fail(L->err, COLFS_ECORRUPT,
						  re->b[1].off + rw * i,
						  "field \"%s\": run end %lld "
						  "(%lld) not above the one "
						  "before (%lld)", fl->name,
						  (long long)i, (long long)v,
						  (long long)prev);
			prev = v;
		}
		if (prev < len)
			return colfs_fail(L->err, COLFS_ETRUNCATED, m->meta_off,
					  "field \"%s\": runs end at %lld, "
					  "the array has %lld values",
					  fl->name, (long long)prev,
					  (long long)len);
		return COLFS_OK;
	}
	default:
		return colfs_fail(L->err, COLFS_EUNSUPPORTED, m->meta_off,
				  "field \"%s\": type %s is not read",
				  fl->name, arrow_type_name(type));
	}
}

void arrow_batch_free(arrow_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nowned; i++)
		free(b->owned[i]);
	free(b->owned);
	for (size_t i = 0; i < b->narrs; i++)
		free(b->arrs[i]);
	free(b->arrs);
	free(b);
}

colfs_status arrow_batch_load(arrow_file *f, uint32_t mi, uint32_t col,
			      arrow_batch **out, colfs_err *err)
{
	*out = NULL;
	if (mi >= f->nmsgs || !f->have_schema)
		return colfs_fail(err, COLFS_ECORRUPT, 0, "no such batch");
	const arrow_msg *m = &f->msgs[mi];
	if (m->bad)
		return colfs_fail(err, COLFS_ECORRUPT, m->off,
				  "message at %llu cannot be used (see the "
				  "file's errors)",
				  (unsigned long long)m->off);
	arrow_batch *b = calloc(1, sizeof(*b));
	if (!b)
		return colfs_fail(err, COLFS_ENOMEM, m->off, "no memory");
	loader L = {.f = f, .mi = mi, .m = m, .b = b, .err = err};
	colfs_status st = COLFS_OK;
	b->msg = mi;
	if (m->kind == AM_DICT) {
		uint32_t k;
		for (k = 0; k < f->ndict; k++)
			if (f->dict_ids[k] == m->dict_id)
				break;
		if (k == f->ndict) {
			arrow_batch_free(b);
			return colfs_fail(err, COLFS_ECORRUPT, m->off,
					  "dictionary id %lld is not in the "
					  "schema", (long long)m->dict_id);
		}
		if (!(b->cols = arrs_new(&L, 1)))
			st = colfs_fail(err, COLFS_ENOMEM, m->off, "no memory");
		else {
			b->ncols = 1;
			st = load_field(&L, f->dict_fields[k], true, true,
					&b->cols[0], 1);
		}
	} else {
		uint32_t n = f->root.nchildren;
		if (!(b->cols = arrs_new(&L, n)))
			st = colfs_fail(err, COLFS_ENOMEM, m->off, "no memory");
		b->ncols = n;
		for (uint32_t i = 0; !st && i < n; i++) {
			bool load = col == UINT32_MAX || col == i;
			st = load_field(&L, &f->root.children[i], false, load,
					&b->cols[i], 1);
			if (!st && load && b->cols[i].len < m->length)
				st = colfs_fail(err, COLFS_ETRUNCATED,
						m->meta_off,
						"field \"%s\" has %lld values, "
						"the batch %lld rows",
						f->root.children[i].name,
						(long long)b->cols[i].len,
						(long long)m->length);
			if (col == i)
				break;
		}
	}
	if (st) {
		arrow_batch_free(b);
		return st;
	}
	*out = b;
	return COLFS_OK;
}

colfs_status arrow_dict_get(arrow_file *f, uint32_t bi, uint32_t k,
			    arrow_dict **out, colfs_err *err)
{
	colfs_status st = COLFS_OK;
	*out = NULL;
	if (bi >= f->nbatches || k >= f->ndict)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "no dictionary for this batch");
	size_t s = (size_t)bi * f->ndict + k;
	pthread_mutex_lock(&f->lock);
	if (f->dviews[s]) {
		*out = f->dviews[s];
		pthread_mutex_unlock(&f->lock);
		return COLFS_OK;
	}
	uint32_t lo = f->batch_dlo[s], hi = f->batch_dhi[s];
	arrow_dict *d = calloc(1, sizeof(*d));
	if (!d || !(d->chunks = calloc(hi - lo + 1, sizeof(*d->chunks))) ||
	    !(d->starts = calloc(hi - lo + 1, sizeof(int64_t)))) {
		if (d)
			free(d->chunks);
		free(d);
		pthread_mutex_unlock(&f->lock);
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	}
	for (uint32_t j = lo; j < hi; j++) {
		uint32_t mi = f->dmsgs[k][j];
		if (!f->dcache[mi] &&
		    (st = arrow_batch_load(f, mi, 0, &f->dcache[mi], err)))
			break;
		d->chunks[d->n] = &f->dcache[mi]->cols[0];
		d->starts[d->n] = d->total;
		d->total += d->chunks[d->n]->len;
		d->n++;
	}
	if (st) {
		free(d->chunks);
		free(d->starts);
		free(d);
		pthread_mutex_unlock(&f->lock);
		return st;
	}
	f->dviews[s] = d;
	*out = d;
	pthread_mutex_unlock(&f->lock);
	return COLFS_OK;
}

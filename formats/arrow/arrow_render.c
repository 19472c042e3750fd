/* colfs: one value of a loaded Arrow array as text or JSON, by the rules
 * every format shares (docs/values.md, formats/core/render.c).  The
 * arrays were checked when they were loaded (arrow_load.c): sizes and
 * offsets lie inside their buffers and children; what only a value can
 * tell (a dictionary index past its dictionary) is checked here. */
#include <stdlib.h>
#include <string.h>

#include "arrow_fb.h"
#include "arrow_int.h"

typedef struct rctx {
	arrow_file *f;
	uint32_t bi;
	colfs_err *err;
} rctx;

static colfs_status rv(rctx *c, colfs_buf *b, const colfs_render *r,
		       const arrow_arr *a, int64_t i, int depth);

static bool bit(const uint8_t *p, int64_t i)
{
	return p[i >> 3] >> (i & 7) & 1;
}

static int64_t sint(const uint8_t *p, int w)
{
	switch (w) {
	case 1: return (int8_t)p[0];
	case 2: return (int16_t)(p[0] | p[1] << 8);
	case 4: return (int32_t)afb_u32(p);
	default: return (int64_t)afb_u64(p);
	}
}

static uint64_t uint_(const uint8_t *p, int w)
{
	switch (w) {
	case 1: return p[0];
	case 2: return (uint16_t)(p[0] | p[1] << 8);
	case 4: return afb_u32(p);
	default: return afb_u64(p);
	}
}

static int64_t offs(const arrow_bufref *o, int w, int64_t i)
{
	return w == 4 ? (int32_t)afb_u32(o->p + 4 * i)
		      : (int64_t)afb_u64(o->p + 8 * i);
}

/* The bytes of value i of a binary or string array (any layout). */
static void bytes_of(const arrow_arr *a, uint8_t type, int64_t i,
		     const uint8_t **p, size_t *n)
{
	if (type == AT_BINVIEW || type == AT_UTF8VIEW) {
		const uint8_t *v = a->b[1].p + 16 * i;
		int32_t len = (int32_t)afb_u32(v);
		if (len <= 12) {
			*p = v + 4;
		} else {
			*p = a->vb[afb_u32(v + 8)].p + afb_u32(v + 12);
		}
		*n = (size_t)len;
		return;
	}
	int w = type == AT_BINARY || type == AT_UTF8 ? 4 : 8;
	int64_t s = offs(&a->b[1], w, i), e = offs(&a->b[1], w, i + 1);
	*p = a->b[2].p ? a->b[2].p + s : (const uint8_t *)"";
	*n = (size_t)(e - s);
}

static bool is_nested(uint8_t t)
{
	return t == AT_LIST || t == AT_LLIST || t == AT_STRUCT ||
	       t == AT_MAP || t == AT_UNION || t == AT_FSL ||
	       t == AT_LISTVIEW || t == AT_LLISTVIEW;
}

static const colfs_render json_r = {.json = true};

static void interval_mdn(colfs_buf *b, const colfs_render *r, int32_t months,
			 int32_t days, int64_t nanos)
{
	if (nanos % 1000 == 0) {
		colfs_render_interval(b, r, months, days, nanos / 1000);
		return;
	}
	/* below a microsecond: the parts, then the time of day in ns */
	colfs_buf t = COLFS_BUF_INIT;
	const colfs_render text = {0};
	if (months || days) {
		colfs_render_interval(&t, &text, months, days, 0);
		colfs_buf_putc(&t, ' ');
	}
	colfs_render_time(&t, &text, nanos, COLFS_UNIT_NANOS);
	if (r->json)
		colfs_render_json_string(b, (const uint8_t *)t.data, t.len);
	else
		colfs_buf_append(b, t.data, t.len);
	colfs_buf_free(&t);
}

static colfs_status scalar(rctx *c, colfs_buf *b, const colfs_render *r,
			   const arrow_arr *a, int64_t i)
{
	const arrow_field *fl = a->f;
	const uint8_t *d = a->b[1].p;
	int w;

	switch (fl->type) {
	case AT_BOOL:
		colfs_render_bool(b, r, bit(d, i));
		return COLFS_OK;
	case AT_INT:
		w = fl->bits / 8;
		if (fl->is_signed)
			colfs_render_i64(b, r, sint(d + w * i, w));
		else
			colfs_render_u64(b, r, uint_(d + w * i, w));
		return COLFS_OK;
	case AT_FLOAT:
		if (fl->bits == 0)
			colfs_render_float16(b, r, (uint16_t)uint_(d + 2 * i, 2));
		else if (fl->bits == 1) {
			float v;
			memcpy(&v, d + 4 * i, 4);
			colfs_render_float(b, r, v);
		} else {
			double v;
			memcpy(&v, d + 8 * i, 8);
			colfs_render_double(b, r, v);
		}
		return COLFS_OK;
	case AT_DECIMAL: {
		w = fl->bits / 8;
		if (w <= 8) {
			colfs_render_decimal_i64(b, r, sint(d + w * i, w),
						 fl->scale);
		} else {
			uint8_t be[32];
			for (int k = 0; k < w; k++)
				be[k] = d[w * i + w - 1 - k];
			colfs_render_decimal_be(b, r, be, (size_t)w,
						fl->scale);
		}
		return COLFS_OK;
	}
	case AT_DATE:
		if (fl->unit == 0)
			colfs_render_date(b, r, sint(d + 4 * i, 4));
		else {
			int64_t ms = sint(d + 8 * i, 8);
			int64_t days = ms / 86400000;
			if (ms % 86400000 < 0)
				days--;
			colfs_render_date(b, r, days);
		}
		return COLFS_OK;
	case AT_TIME:
		w = fl->bits / 8;
		colfs_render_time(b, r, sint(d + w * i, w),
				  (colfs_time_unit)fl->unit);
		return COLFS_OK;
	case AT_TIMESTAMP:
		colfs_render_timestamp(b, r, sint(d + 8 * i, 8),
				       (colfs_time_unit)fl->unit,
				       fl->tz && fl->tz[0]);
		return COLFS_OK;
	case AT_DURATION:
		colfs_render_time(b, r, sint(d + 8 * i, 8),
				  (colfs_time_unit)fl->unit);
		return COLFS_OK;
	case AT_INTERVAL:
		if (fl->unit == 0)
			colfs_render_interval(b, r, sint(d + 4 * i, 4), 0, 0);
		else if (fl->unit == 1)
			colfs_render_interval(b, r, 0, sint(d + 8 * i, 4),
					      sint(d + 8 * i + 4, 4) * 1000);
		else
			interval_mdn(b, r, (int32_t)sint(d + 16 * i, 4),
				     (int32_t)sint(d + 16 * i + 4, 4),
				     sint(d + 16 * i + 8, 8));
		return COLFS_OK;
	case AT_FSB:
		if (fl->width == 16 && fl->ext_name &&
		    !strcmp(fl->ext_name, "arrow.uuid"))
			colfs_render_uuid(b, r, d + 16 * i);
		else
			colfs_render_binary(b, r, d + (size_t)fl->width * i,
					    (size_t)fl->width);
		return COLFS_OK;
	case AT_BINARY: case AT_LBINARY: case AT_BINVIEW:
	case AT_UTF8: case AT_LUTF8: case AT_UTF8VIEW: {
		const uint8_t *p;
		size_t n;
		bytes_of(a, fl->type, i, &p, &n);
		if (fl->type == AT_UTF8 || fl->type == AT_LUTF8 ||
		    fl->type == AT_UTF8VIEW)
			colfs_render_string(b, r, p, n);
		else
			colfs_render_binary(b, r, p, n);
		return COLFS_OK;
	}
	default:
		return colfs_fail(c->err, COLFS_EUNSUPPORTED, a->b[1].off,
				  "field \"%s\": type %s is not rendered",
				  fl->name, arrow_type_name(fl->type));
	}
}

/* The member of a union value: its child index and row there. */
static uint32_t union_member(const arrow_arr *a, int64_t i, int64_t *row)
{
	const arrow_field *fl = a->f;
	int8_t id = (int8_t)a->b[1].p[i];
	uint32_t k;
	for (k = 0; k < fl->nchildren; k++)
		if ((fl->type_ids ? fl->type_ids[k] : (int32_t)k) == id)
			break;
	*row = fl->union_mode ? (int32_t)afb_u32(a->b[2].p + 4 * i) : i;
	return k;
}

static int64_t run_of(const arrow_arr *a, int64_t i)
{
	const arrow_arr *re = &a->ch[0];
	int w = re->f->bits / 8;
	int64_t lo = 0, hi = re->len - 1;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (sint(re->b[1].p + w * mid, w) > i)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static colfs_status dict_value(rctx *c, colfs_buf *b, const colfs_render *r,
			       const arrow_arr *a, int64_t i, int depth)
{
	const arrow_field *fl = a->f;
	arrow_dict *d;
	int w = fl->idx_bits / 8;
	int64_t k = fl->idx_signed ? sint(a->b[1].p + w * i, w)
				   : (int64_t)uint_(a->b[1].p + w * i, w);

	COLFS_TRY(arrow_dict_get(c->f, c->bi, fl->dict_slot, &d, c->err));
	if (k < 0 || k >= d->total || (!fl->idx_signed && w == 8 &&
				       uint_(a->b[1].p + w * i, w) >> 63))
		return colfs_fail(c->err, COLFS_EBOUNDS,
				  a->b[1].off + (uint64_t)(w * i),
				  "field \"%s\": dictionary index %lld outside "
				  "dictionary %lld of %lld values", fl->name,
				  (long long)k, (long long)fl->dict_id,
				  (long long)d->total);
	uint32_t lo = 0, hi = d->n - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (d->starts[mid] <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	return rv(c, b, r, d->chunks[lo], k - d->starts[lo], depth + 1);
}

static colfs_status rv(rctx *c, colfs_buf *b, const colfs_render *r,
		       const arrow_arr *a, int64_t i, int depth)
{
	const arrow_field *fl = a->f;
	bool dict = fl->dict && !a->values;
	uint8_t t = dict ? AT_INT : fl->type;

	if (depth > 2 * ARROW_MAX_DEPTH)
		return colfs_fail(c->err, COLFS_EUNSUPPORTED, 0,
				  "values nested deeper than %d",
				  2 * ARROW_MAX_DEPTH);
	if (t == AT_NULL || (a->b[0].p && !bit(a->b[0].p, i))) {
		colfs_render_null(b, r);
		return COLFS_OK;
	}
	if (dict)
		return dict_value(c, b, r, a, i, depth);
	if (t == AT_REE)
		return rv(c, b, r, &a->ch[1], run_of(a, i), depth + 1);
	if (!is_nested(t))
		return scalar(c, b, r, a, i);
	if (!r->json)
		r = &json_r;
	switch (t) {
	case AT_STRUCT:
		colfs_buf_putc(b, '{');
		for (uint32_t k = 0; k < a->nch; k++) {
			if (k)
				colfs_buf_putc(b, ',');
			colfs_render_json_string(
				b, (const uint8_t *)fl->children[k].name,
				strlen(fl->children[k].name));
			colfs_buf_putc(b, ':');
			COLFS_TRY(rv(c, b, r, &a->ch[k], i, depth + 1));
		}
		colfs_buf_putc(b, '}');
		return COLFS_OK;
	case AT_UNION: {
		int64_t row;
		uint32_t k = union_member(a, i, &row);
		colfs_buf_printf(b, "{\"tag\":%d,\"value\":",
				 (int8_t)a->b[1].p[i]);
		COLFS_TRY(rv(c, b, r, &a->ch[k], row, depth + 1));
		colfs_buf_putc(b, '}');
		return COLFS_OK;
	}
	case AT_MAP: {
		const arrow_arr *e = &a->ch[0];
		int64_t s = offs(&a->b[1], 4, i), en = offs(&a->b[1], 4, i + 1);
		colfs_buf_putc(b, '{');
		for (int64_t k = s; k < en; k++) {
			if (k > s)
				colfs_buf_putc(b, ',');
			const arrow_arr *key = &e->ch[0];
			uint8_t kt = key->f->dict ? AT_NONE : key->f->type;
			if ((kt == AT_UTF8 || kt == AT_LUTF8 ||
			     kt == AT_UTF8VIEW) &&
			    !(key->b[0].p && !bit(key->b[0].p, k))) {
				const uint8_t *p;
				size_t n;
				bytes_of(key, kt, k, &p, &n);
				colfs_render_json_string(b, p, n);
			} else {
				colfs_buf kb = COLFS_BUF_INIT;
				const colfs_render text = {0};
				colfs_status st = rv(c, &kb, &text, key, k,
						     depth + 1);
				if (!st)
					colfs_render_json_string(
						b, (const uint8_t *)kb.data,
						kb.len);
				colfs_buf_free(&kb);
				COLFS_TRY(st);
			}
			colfs_buf_putc(b, ':');
			COLFS_TRY(rv(c, b, r, &e->ch[1], k, depth + 1));
		}
		colfs_buf_putc(b, '}');
		return COLFS_OK;
	}
	default: {
		/* the lists */
		int64_t s, n;
		if (t == AT_FSL) {
			s = i * fl->width;
			n = fl->width;
		} else if (t == AT_LIST || t == AT_LLIST) {
			int w = t == AT_LIST ? 4 : 8;
			s = offs(&a->b[1], w, i);
			n = offs(&a->b[1], w, i + 1) - s;
		} else {
			int w = t == AT_LISTVIEW ? 4 : 8;
			s = offs(&a->b[1], w, i);
			n = offs(&a->b[2], w, i);
		}
		colfs_buf_putc(b, '[');
		for (int64_t k = 0; k < n; k++) {
			if (k)
				colfs_buf_putc(b, ',');
			COLFS_TRY(rv(c, b, r, &a->ch[0], s + k, depth + 1));
		}
		colfs_buf_putc(b, ']');
		return COLFS_OK;
	}
	}
}

colfs_status arrow_render_value(colfs_buf *b, const colfs_render *r,
				arrow_file *f, uint32_t bi,
				const arrow_arr *a, int64_t i, colfs_err *err)
{
	rctx c = {f, bi, err};
	return rv(&c, b, r, a, i, 0);
}

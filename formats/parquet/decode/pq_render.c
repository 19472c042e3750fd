/* colfs: one Parquet value rendered by its physical and logical type
 * (docs/values.md). */
#include "pq_decode.h"
#include "parquet/parquet_thrift.h"

static colfs_time_unit unit_of(int32_t unit)
{
	return unit == 1 ? COLFS_UNIT_MILLIS :
	       unit == 3 ? COLFS_UNIT_NANOS : COLFS_UNIT_MICROS;
}

static bool is_decimal(const pq_type *t)
{
	return t->logical == PARQUET_LT_DECIMAL ||
	       (t->logical == 0 && t->converted == PARQUET_CT_DECIMAL);
}

static bool is_unsigned(const pq_type *t)
{
	if (t->logical == PARQUET_LT_INTEGER)
		return !t->is_signed;
	return t->converted == PARQUET_CT_UINT_8 ||
	       t->converted == PARQUET_CT_UINT_16 ||
	       t->converted == PARQUET_CT_UINT_32 ||
	       t->converted == PARQUET_CT_UINT_64;
}

/* An integer of an INT32/INT64 column, by annotation. */
static void render_int(colfs_buf *b, const colfs_render *r, const pq_type *t,
		       int64_t v, bool is32)
{
	if (is_decimal(t)) {
		colfs_render_decimal_i64(b, r, v, t->scale);
		return;
	}
	if (t->logical == PARQUET_LT_DATE ||
	    (t->logical == 0 && t->converted == PARQUET_CT_DATE)) {
		colfs_render_date(b, r, v);
		return;
	}
	if (t->logical == PARQUET_LT_TIME) {
		if (t->utc)
			colfs_render_timetz(b, r, v, unit_of(t->unit), 0);
		else
			colfs_render_time(b, r, v, unit_of(t->unit));
		return;
	}
	if (t->logical == 0 && (t->converted == PARQUET_CT_TIME_MILLIS ||
				t->converted == PARQUET_CT_TIME_MICROS)) {
		colfs_render_time(b, r, v,
				  t->converted == PARQUET_CT_TIME_MILLIS ?
				  COLFS_UNIT_MILLIS : COLFS_UNIT_MICROS);
		return;
	}
	if (t->logical == PARQUET_LT_TIMESTAMP) {
		colfs_render_timestamp(b, r, v, unit_of(t->unit), t->utc);
		return;
	}
	if (t->logical == 0 && (t->converted == PARQUET_CT_TIMESTAMP_MILLIS ||
				t->converted == PARQUET_CT_TIMESTAMP_MICROS)) {
		colfs_render_timestamp(b, r, v,
				       t->converted ==
						       PARQUET_CT_TIMESTAMP_MILLIS ?
				       COLFS_UNIT_MILLIS : COLFS_UNIT_MICROS,
				       false);
		return;
	}
	if (is_unsigned(t)) {
		colfs_render_u64(b, r, is32 ? (uint32_t)v : (uint64_t)v);
		return;
	}
	colfs_render_i64(b, r, v);
}

void pq_render_bytes(colfs_buf *b, const colfs_render *r, const pq_type *t,
		     const pq_bytes *x)
{
	if (is_decimal(t)) {
		colfs_render_decimal_be(b, r, x->ptr, x->len, t->scale);
		return;
	}
	switch (t->logical) {
	case PARQUET_LT_STRING:
	case PARQUET_LT_ENUM:
	case PARQUET_LT_JSON:
		colfs_render_string(b, r, x->ptr, x->len);
		return;
	case PARQUET_LT_UUID:
		if (x->len == 16) {
			colfs_render_uuid(b, r, x->ptr);
			return;
		}
		break;
	case PARQUET_LT_GEOMETRY:
	case PARQUET_LT_GEOGRAPHY:
		/* WKT; malformed WKB appends nothing and shows as its
		 * bytes below (pq_wkb_check reports it) */
		if (colfs_render_wkb(b, r, x->ptr, x->len, NULL, NULL) ==
		    COLFS_OK)
			return;
		break;
	case PARQUET_LT_FLOAT16:
		if (x->len == 2) {
			colfs_render_float16(b, r, (uint16_t)(x->ptr[0] |
							      x->ptr[1] << 8));
			return;
		}
		break;
	case 0:
		if (t->converted == PARQUET_CT_UTF8 ||
		    t->converted == PARQUET_CT_ENUM ||
		    t->converted == PARQUET_CT_JSON) {
			colfs_render_string(b, r, x->ptr, x->len);
			return;
		}
		if (t->converted == PARQUET_CT_INTERVAL && x->len == 12) {
			colfs_render_interval_parquet(b, r, x->ptr);
			return;
		}
		break;
	}
	colfs_render_binary(b, r, x->ptr, x->len);
}

void pq_render_value(colfs_buf *b, const colfs_render *r, const pq_type *t,
		     const pq_values *v, size_t i)
{
	switch (v->physical_type) {
	case PARQUET_BOOLEAN:
		colfs_render_bool(b, r, v->v.b[i] != 0);
		return;
	case PARQUET_INT32:
		render_int(b, r, t, v->v.i32[i], true);
		return;
	case PARQUET_INT64:
		render_int(b, r, t, v->v.i64[i], false);
		return;
	case PARQUET_FLOAT:
		colfs_render_float(b, r, v->v.f32[i]);
		return;
	case PARQUET_DOUBLE:
		colfs_render_double(b, r, v->v.f64[i]);
		return;
	case PARQUET_INT96:
		if (v->v.bytes[i].len == 12) {
			colfs_render_int96(b, r, v->v.bytes[i].ptr);
			return;
		}
		colfs_render_binary(b, r, v->v.bytes[i].ptr, v->v.bytes[i].len);
		return;
	case PARQUET_BYTE_ARRAY:
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		if (v->in_page) {
			size_t o = pq_values_in_page_at(v, i);
			pq_bytes x = pq_values_in_page_next(v, &o);
			pq_render_bytes(b, r, t, &x);
			return;
		}
		pq_render_bytes(b, r, t, &v->v.bytes[i]);
		return;
	}
}

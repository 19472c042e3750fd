/* colfs: the typed Parquet index documents of a chunk: statistics.json
 * (its Statistics with min/max rendered by the column's type, as the value
 * files render them, and the raw bytes in hex) and column_index.json (its
 * ColumnIndex with min_values/max_values typed, null for null pages). */
#include "parquet_stats.h"
#include "parquet_crypt.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/render.h"
#include "parquet_docs.h"
#include "parquet_pages.h"

/* --- statistics values ------------------------------------------------------ */

/* Shortest decimal text that reads back to the same float/double. */
static void shortest(char *buf, size_t len, double v, bool is_float)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (is_float ? strtof(buf, NULL) == (float)v
			     : strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, len, "%.17g", v);
}

/* Numbers whose text must be exact are stored as placeholders
 * "\u0001N<k>" and replaced after jansson renders the document (data
 * strings never contain control characters: they are hex then). */
typedef struct numtext {
	char (*text)[40];
	size_t n, cap;
} numtext;

static json_t *float_json(numtext *nt, double v, bool is_float)
{
	char ph[24];

	if (isnan(v) || isinf(v))
		return colfs_thrift_double_json(v);
	if (nt->n == nt->cap) {
		size_t nc = nt->cap ? nt->cap * 2 : 8;
		void *np = realloc(nt->text, nc * sizeof *nt->text);
		if (!np)
			return NULL;
		nt->text = np;
		nt->cap = nc;
	}
	shortest(nt->text[nt->n], sizeof nt->text[0], v, is_float);
	snprintf(ph, sizeof ph, "\001N%zu", nt->n);
	nt->n++;
	return json_string(ph);
}

static json_t *buf_string(colfs_buf *b)
{
	json_t *j = colfs_buf_status(b) ? NULL : json_stringn(b->data, b->len);
	colfs_buf_free(b);
	return j;
}

static json_t *hex_json(const uint8_t *p, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	colfs_buf b = COLFS_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		colfs_buf_putc(&b, hexd[p[i] >> 4]);
		colfs_buf_putc(&b, hexd[p[i] & 15]);
	}
	json_t *s = buf_string(&b);
	return s ? json_pack("{s:o}", "hex", s) : NULL;
}

static colfs_time_unit lt_unit(int32_t u)
{
	return u == PARQUET_UNIT_MILLIS ? COLFS_UNIT_MILLIS
	       : u == PARQUET_UNIT_NANOS ? COLFS_UNIT_NANOS : COLFS_UNIT_MICROS;
}

/* ISO 8601 from the shared renderer's "YYYY-MM-DD HH:MM:SS[.f][+00]". */
static json_t *iso_timestamp(int64_t v, colfs_time_unit unit, bool utc)
{
	colfs_buf b = COLFS_BUF_INIT;
	colfs_render_timestamp(&b, &colfs_render_text_default, v, unit, utc);
	if (!colfs_buf_status(&b)) {
		char *sp = memchr(b.data, ' ', b.len);
		if (sp)
			*sp = 'T';
		if (utc && b.len >= 3 && !memcmp(b.data + b.len - 3, "+00", 3)) {
			b.len -= 3;
			colfs_buf_putc(&b, 'Z');
		}
	}
	return buf_string(&b);
}

/* One statistics value, rendered per the column's physical and logical
 * type; anything that does not fit its type is shown as hex. */
static json_t *stat_value(numtext *nt, const parquet_schema_elem *e,
			  int32_t ptype, const uint8_t *p, size_t n)
{
	const parquet_logical *lt = e ? &e->logical : NULL;
	int32_t kind = lt ? lt->kind : 0;
	int32_t ct = e ? e->converted_type : -1;
	colfs_buf b = COLFS_BUF_INIT;
	int32_t scale = kind == PARQUET_LT_DECIMAL ? lt->scale
			: ct == PARQUET_CT_DECIMAL && e ? e->scale : -1;

	switch (ptype) {
	case PARQUET_BOOLEAN:
		if (n != 1)
			break;
		return json_boolean(p[0] & 1);
	case PARQUET_INT32: {
		int32_t v;
		if (n != 4)
			break;
		v = (int32_t)colfs_le32(p);
		if (scale >= 0) {
			colfs_render_decimal_i64(&b, &colfs_render_text_default,
						 v, scale);
			return buf_string(&b);
		}
		if (kind == PARQUET_LT_DATE || ct == PARQUET_CT_DATE) {
			colfs_render_date(&b, &colfs_render_text_default, v);
			return buf_string(&b);
		}
		if (kind == PARQUET_LT_TIME || ct == PARQUET_CT_TIME_MILLIS) {
			colfs_render_time(&b, &colfs_render_text_default, v,
					  COLFS_UNIT_MILLIS);
			return buf_string(&b);
		}
		if ((kind == PARQUET_LT_INTEGER && !lt->is_signed) ||
		    (ct >= PARQUET_CT_UINT_8 && ct <= PARQUET_CT_UINT_32))
			return json_integer((json_int_t)(uint32_t)v);
		return json_integer(v);
	}
	case PARQUET_INT64: {
		int64_t v;
		if (n != 8)
			break;
		v = (int64_t)colfs_le64(p);
		if (scale >= 0) {
			colfs_render_decimal_i64(&b, &colfs_render_text_default,
						 v, scale);
			return buf_string(&b);
		}
		if (kind == PARQUET_LT_TIMESTAMP)
			return iso_timestamp(v, lt_unit(lt->unit), lt->utc);
		if (ct == PARQUET_CT_TIMESTAMP_MILLIS ||
		    ct == PARQUET_CT_TIMESTAMP_MICROS)
			return iso_timestamp(v, ct == PARQUET_CT_TIMESTAMP_MILLIS
					     ? COLFS_UNIT_MILLIS
					     : COLFS_UNIT_MICROS, true);
		if (kind == PARQUET_LT_TIME || ct == PARQUET_CT_TIME_MICROS) {
			colfs_render_time(&b, &colfs_render_text_default, v,
					  kind == PARQUET_LT_TIME
					  ? lt_unit(lt->unit)
					  : COLFS_UNIT_MICROS);
			return buf_string(&b);
		}
		if (((kind == PARQUET_LT_INTEGER && !lt->is_signed) ||
		     ct == PARQUET_CT_UINT_64) && v < 0) {
			colfs_buf_printf(&b, "%llu",
					 (unsigned long long)(uint64_t)v);
			return buf_string(&b);
		}
		return json_integer(v);
	}
	case PARQUET_INT96:
		if (n != 12)
			break;
		colfs_render_int96(&b, &colfs_render_text_default, p);
		if (!colfs_buf_status(&b)) {
			char *sp = memchr(b.data, ' ', b.len);
			if (sp)
				*sp = 'T';
		}
		return buf_string(&b);
	case PARQUET_FLOAT: {
		float v;
		uint32_t bits;
		if (n != 4)
			break;
		bits = colfs_le32(p);
		memcpy(&v, &bits, 4);
		return float_json(nt, v, true);
	}
	case PARQUET_DOUBLE: {
		double v;
		uint64_t bits;
		if (n != 8)
			break;
		bits = colfs_le64(p);
		memcpy(&v, &bits, 8);
		return float_json(nt, v, false);
	}
	case PARQUET_BYTE_ARRAY:
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		if (scale >= 0) {
			colfs_render_decimal_be(&b, &colfs_render_text_default,
						p, n, scale);
			return buf_string(&b);
		}
		if (kind == PARQUET_LT_STRING || kind == PARQUET_LT_ENUM ||
		    kind == PARQUET_LT_JSON || ct == PARQUET_CT_UTF8 ||
		    ct == PARQUET_CT_ENUM || ct == PARQUET_CT_JSON)
			return colfs_thrift_binary_json(p, n);
		if (kind == PARQUET_LT_FLOAT16 && n == 2)
			return float_json(nt, colfs_float16_to_float(
						      colfs_le16(p)), true);
		if (kind == PARQUET_LT_UUID && n == 16) {
			colfs_render_uuid(&b, &colfs_render_text_default, p);
			return buf_string(&b);
		}
		if (ct == PARQUET_CT_INTERVAL && n == 12) {
			colfs_render_interval_parquet(
				&b, &colfs_render_text_default, p);
			return buf_string(&b);
		}
		break;
	default:
		break;
	}
	colfs_buf_free(&b);
	return hex_json(p, n);
}

/* Replace the placeholders by their number text. */
static colfs_status numtext_apply(colfs_buf *doc, const numtext *nt,
				  colfs_buf *out)
{
	size_t i = 0;
	static const char pat[] = "\"\\u0001N";

	while (i < doc->len) {
		char *hit = memmem(doc->data + i, doc->len - i, pat,
				   sizeof pat - 1);
		size_t k = 0, j;
		if (!hit) {
			colfs_buf_append(out, doc->data + i, doc->len - i);
			break;
		}
		colfs_buf_append(out, doc->data + i,
				 (size_t)(hit - (doc->data + i)));
		j = (size_t)(hit - doc->data) + sizeof pat - 1;
		while (j < doc->len && doc->data[j] >= '0' &&
		       doc->data[j] <= '9')
			k = k * 10 + (size_t)(doc->data[j++] - '0');
		if (j < doc->len && doc->data[j] == '"' && k < nt->n) {
			colfs_buf_puts(out, nt->text[k]);
			i = j + 1;
		} else {
			colfs_buf_append(out, hit, 1);
			i = (size_t)(hit - doc->data) + 1;
		}
	}
	return colfs_buf_status(out);
}

/* --- column_index.json with typed min/max -------------------------------- */

#define REAL_MARK '\x01'

/* Indented JSON plus '\n' (as colfs_buf_json), with the marked reals of
 * typed_json written as bare numbers. */
static colfs_status json_emit(colfs_buf *out, json_t *j)
{
	char *txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	static const char mark[] = "\"\\u0001";

	json_decref(j);
	if (!txt)
		return COLFS_ENOMEM;
	for (const char *p = txt; *p;) {
		const char *q = strstr(p, mark);
		if (!q) {
			colfs_buf_puts(out, p);
			break;
		}
		colfs_buf_append(out, p, (size_t)(q - p));
		q += sizeof mark - 1;
		const char *e = strchr(q, '"');
		if (!e)
			e = q + strlen(q);
		colfs_buf_append(out, q, (size_t)(e - q));
		p = *e ? e + 1 : e;
	}
	colfs_buf_putc(out, '\n');
	free(txt);
	return colfs_buf_status(out);
}

/* One statistics value (PLAIN bytes of one value) as a JSON value rendered
 * by the column's type; NULL when the bytes do not fit the type. */
static json_t *typed_json(const parquet_schema_elem *e, const uint8_t *p,
			  size_t n)
{
	const pq_type t = parquet_pages_type_of(e);
	pq_values v = {0};
	union {
		uint8_t b;
		int32_t i32;
		int64_t i64;
		float f;
		double d;
	} u;
	pq_bytes by;
	colfs_buf b = COLFS_BUF_INIT;
	json_t *j = NULL;

	v.physical_type = e->type;
	v.count = 1;
	switch (e->type) {
	case PARQUET_BOOLEAN:
		if (n != 1)
			return NULL;
		u.b = p[0] != 0;
		v.v.b = &u.b;
		break;
	case PARQUET_INT32:
	case PARQUET_FLOAT:
		if (n != 4)
			return NULL;
		if (e->type == PARQUET_INT32) {
			u.i32 = (int32_t)colfs_le32(p);
			v.v.i32 = &u.i32;
		} else {
			uint32_t x = colfs_le32(p);
			memcpy(&u.f, &x, 4);
			v.v.f32 = &u.f;
		}
		break;
	case PARQUET_INT64:
	case PARQUET_DOUBLE:
		if (n != 8)
			return NULL;
		if (e->type == PARQUET_INT64) {
			u.i64 = (int64_t)colfs_le64(p);
			v.v.i64 = &u.i64;
		} else {
			uint64_t x = colfs_le64(p);
			memcpy(&u.d, &x, 8);
			v.v.f64 = &u.d;
		}
		break;
	case PARQUET_INT96:
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		if (n != (e->type == PARQUET_INT96 ? 12u : (size_t)e->type_length))
			return NULL;
		/* fall through */
	case PARQUET_BYTE_ARRAY:
		by.ptr = p;
		by.len = (uint32_t)n;
		v.v.bytes = &by;
		break;
	default:
		return NULL;
	}
	pq_render_value(&b, &colfs_render_json_default, &t, &v, 0);
	if (!colfs_buf_status(&b)) {
		j = json_loadb(b.data, b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL,
			       NULL);
		if (json_is_string(j) &&
		    (memchr(json_string_value(j), 0, json_string_length(j)) ||
		     json_string_value(j)[0] == REAL_MARK)) {
			/* NUL inside (not text for JSON readers) or text that
			 * starts like a marked real: show hex */
			json_decref(j);
			j = NULL;
		}
		if (json_is_real(j)) {
			/* jansson would print 17 digits: keep our shortest
			 * text, marked, and put it back in json_emit */
			json_decref(j);
			char *m = malloc(b.len + 3);
			if (!m)
				return NULL;
			m[0] = REAL_MARK;
			memcpy(m + 1, b.data, b.len);
			m[b.len + 1] = 0;
			j = json_string(m);
			free(m);
		}
	}
	colfs_buf_free(&b);
	return j;
}

/* "column_order" of `o`: the chunk's column's ColumnOrder
 * (FileMetaData.column_orders), which says how min/max are ordered
 * (nan_count goes with IEEE_754_TOTAL_ORDER; INT96 statistics are valid
 * only under INT96_TIMESTAMP_ORDER); nothing without that list. */
static void column_order_set(json_t *o, const parquet_file *pf,
			     const parquet_chunk *ch)
{
	static const char *const orders[] = {
		NULL, "TYPE_ORDER", "IEEE_754_TOTAL_ORDER",
		"INT96_TIMESTAMP_ORDER",
	};

	if (ch->column >= pf->n_column_orders)
		return;
	int32_t k = pf->column_orders[ch->column];
	json_object_set_new(o, "column_order",
			    k > 0 && k <= 3 ? json_string(orders[k])
					    : json_integer(k));
}

/* Replace min_values/max_values of `ci` (decoded generically) by typed
 * values, from the ColumnIndex bytes at `buf`. */
static colfs_status column_index_typed(const parquet_schema_elem *e,
				       const uint8_t *buf, size_t len,
				       uint64_t off, json_t *ci, colfs_err *err)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	int16_t last;
	colfs_status st;

	colfs_cursor_init(&c, buf, len, off);
	colfs_thrift_init(&r, &c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, err));
	while ((st = colfs_thrift_field_next(&r, &last, &f, err)) == COLFS_OK) {
		const char *key = f.id == 2 ? "min_values" :
				  f.id == 3 ? "max_values" : NULL;
		uint8_t et;
		uint32_t cnt;
		if (!key || f.type != COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
			continue;
		}
		COLFS_TRY(colfs_thrift_list_begin(&r, &et, &cnt, err));
		json_t *arr = json_array();
		json_t *nulls = json_object_get(ci, "null_pages");
		for (uint32_t i = 0; i < cnt; i++) {
			const uint8_t *p;
			size_t n;
			st = colfs_thrift_read_binary(&r, et, &p, &n, err);
			if (st) {
				json_decref(arr);
				return st;
			}
			json_t *nb = json_array_get(nulls, i);
			json_t *v = json_is_true(nb) ? json_null()
						     : typed_json(e, p, n);
			if (!v) {
				/* bytes that do not fit the type: hex */
				char *hex = malloc(2 * n + 1);
				for (size_t k = 0; hex && k < n; k++)
					snprintf(hex + 2 * k, 3, "%02x", p[k]);
				if (hex)
					hex[2 * n] = 0;
				v = json_pack("{s:s}", "hex", hex ? hex : "");
				free(hex);
			}
			json_array_append_new(arr, v);
		}
		colfs_thrift_collection_leave(&r);
		json_object_set_new(ci, key, arr);
	}
	return st == COLFS_END ? COLFS_OK : st;
}

colfs_status parquet_stats_column_index_gen(colfs_tree *t, colfs_node *file,
				  colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = parquet_region_chunk(s, (uint32_t)colfs_node_a(file),
					   (uint32_t)colfs_node_b(file));
	colfs_err e = {0};
	uint8_t *buf;
	json_t *j;
	uint64_t off, len;
	colfs_status st;

	if (!ch)
		return COLFS_ECORRUPT;
	off = (uint64_t)ch->column_index_offset;
	len = (uint64_t)ch->column_index_length;
	{
		size_t plain;
		if ((st = parquet_crypt_read(s, ch, PARQUET_CRYPT_COLUMN_INDEX,
					     off, len, &buf, &plain, &e)))
			goto fail;
		len = plain;   /* an encrypted index: the decrypted bytes */
	}
	st = parquet_region_json(buf, (size_t)len, off, &parquet_desc_column_index,
			    &j, &e);
	if (!st && ch->column < s->pf->n_columns) {
		st = column_index_typed(s->pf->columns[ch->column].elem, buf,
					(size_t)len, off, j, &e);
		if (st)
			json_decref(j);
		else
			column_order_set(j, s->pf, ch);
	}
	free(buf);
	if (st)
		goto fail;
	return json_emit(out, j);
fail:
	colfs_tree_report_err(t, file, &e);
	return e.status ? e.status : st;
}

/* --- statistics.json ------------------------------------------------------- */

/* The min/max field names of Statistics by field id. */
static bool stat_bound(int16_t id)
{
	return id == 1 || id == 2 || id == 5 || id == 6;
}

/* A top-level string holding a NUL: such a document keeps its untyped
 * min/max (JSON readers would not take it back). */
static bool has_nul_string(json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
		if (json_is_string(v) &&
		    memchr(json_string_value(v), 0, json_string_length(v)))
			return true;
	return false;
}

/* A placeholder of float_json that no typed value replaced: the number
 * itself (as jansson writes a real). */
static json_t *placeholder_real(json_t *v, const numtext *nt)
{
	const char *p = json_string_value(v);
	size_t k = 0;

	if (!p || p[0] != '\001' || p[1] != 'N' || !p[2])
		return NULL;
	for (p += 2; *p >= '0' && *p <= '9'; p++)
		k = k * 10 + (size_t)(*p - '0');
	if (*p || k >= nt->n)
		return NULL;
	return json_real(strtod(nt->text[k], NULL));
}

/* A geometry type code of GeospatialStatistics (ISO WKB: 1 POINT ..
 * 7 GEOMETRYCOLLECTION, plus 1000 Z, 2000 M, 3000 ZM) as its WKT name
 * ("POINT Z"); a code outside those stays a number. */
static json_t *geo_type_json(int32_t code)
{
	static const char *const kinds[] = {
		NULL, "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
		"MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
	};
	static const char *const dims[] = { "", " Z", " M", " ZM" };
	char s[32];

	if (code < 1 || code > 3007 || code % 1000 < 1 || code % 1000 > 7)
		return json_integer(code);
	snprintf(s, sizeof s, "%s%s", kinds[code % 1000], dims[code / 1000]);
	return json_string(s);
}

/* A double of the bounding box: a JSON number, NaN and infinities as the
 * strings of the JSON conventions (docs/parquet-tree.md). */
static json_t *geo_double_json(double v)
{
	if (isnan(v))
		return json_string("NaN");
	if (isinf(v))
		return json_string(v < 0 ? "-Infinity" : "Infinity");
	return json_real(v);
}

/* ColumnMetaData.geospatial_statistics: {"bbox": {"xmin": ...},
 * "geospatial_types": ["POINT", "LINESTRING Z", ...]}. */
static colfs_status geo_stats_json(const parquet_file *pf,
				   const parquet_chunk *ch, json_t **out,
				   colfs_err *err)
{
	static const char *const box[] = {
		NULL, "xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin",
		"mmax",
	};
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field fl;
	int16_t last, blast;
	json_t *o = json_object();
	colfs_status st;

	if (!o)
		return COLFS_ENOMEM;
	if (ch->geo_span_off > pf->footer_len ||
	    ch->geo_span_len > pf->footer_len - ch->geo_span_off) {
		json_decref(o);
		return colfs_fail(err, COLFS_ECORRUPT, pf->footer_offset,
				  "GeospatialStatistics outside the footer");
	}
	colfs_cursor_init(&c, pf->footer + ch->geo_span_off, ch->geo_span_len,
			  pf->footer_offset + ch->geo_span_off);
	colfs_thrift_init(&r, &c);
	st = colfs_thrift_struct_enter(&r, &last, err);
	while (!st && (st = colfs_thrift_field_next(&r, &last, &fl, err)) ==
			      COLFS_OK) {
		if (fl.id == 1 && fl.type == COLFS_THRIFT_STRUCT) {
			json_t *b = json_object();
			colfs_thrift_field bf;
			if (!b) {
				st = COLFS_ENOMEM;
				break;
			}
			json_object_set_new(o, "bbox", b);
			st = colfs_thrift_struct_enter(&r, &blast, err);
			while (!st && (st = colfs_thrift_field_next(
					       &r, &blast, &bf, err)) ==
					      COLFS_OK) {
				double v;
				if (bf.id < 1 || bf.id > 8) {
					st = colfs_thrift_skip(&r, bf.type,
							       err);
					continue;
				}
				st = colfs_thrift_read_double(&r, bf.type, &v,
							      err);
				if (!st)
					json_object_set_new(
						b, box[bf.id],
						geo_double_json(v));
			}
			if (st == COLFS_END) {
				colfs_thrift_struct_leave(&r);
				st = COLFS_OK;
			}
		} else if (fl.id == 2 && fl.type == COLFS_THRIFT_LIST) {
			uint8_t et;
			uint32_t n;
			json_t *a = json_array();
			if (!a) {
				st = COLFS_ENOMEM;
				break;
			}
			json_object_set_new(o, "geospatial_types", a);
			st = colfs_thrift_list_begin(&r, &et, &n, err);
			for (uint32_t i = 0; !st && i < n; i++) {
				int32_t v;
				st = colfs_thrift_read_i32(&r, et, &v, err);
				if (!st)
					json_array_append_new(
						a, geo_type_json(v));
			}
			if (!st)
				colfs_thrift_collection_leave(&r);
		} else {
			st = colfs_thrift_skip(&r, fl.type, err);
		}
	}
	if (st != COLFS_END) {
		json_decref(o);
		if (st == COLFS_ENOMEM)
			return colfs_fail(err, COLFS_ENOMEM, pf->footer_offset +
					  ch->geo_span_off, "out of memory");
		return err->status ? err->status : COLFS_ECORRUPT;
	}
	*out = o;
	return COLFS_OK;
}

/* statistics.json, built once from the Statistics bytes: physical and
 * logical type, each field (min/max rendered by the column's type as the
 * value files render them when the chunk's column is known, else by
 * stat_value), and the raw min/max bytes in hex. */
colfs_status parquet_stats_statistics_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const parquet_file *pf = s->pf;
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(f),
					      colfs_node_b(f));
	const parquet_schema_elem *e = NULL;
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field fl;
	colfs_err err = {0};
	colfs_status st;
	int16_t last;
	numtext nt = {0};
	json_t *typed[7] = {0};   /* by field id: the last typed min/max */
	json_t *o = json_object(), *raw = json_object();
	colfs_buf doc = COLFS_BUF_INIT;
	colfs_buf a = COLFS_BUF_INIT;
	static const char *const names[] = {
		NULL, "max", "min", "null_count", "distinct_count",
		"max_value", "min_value", "is_max_value_exact",
		"is_min_value_exact", "nan_count",
	};
	/* typed min/max need the column and the Statistics in the footer */
	const bool want_typed = ch && ch->column < pf->n_columns &&
				ch->stats_span_off <= pf->footer_len &&
				ch->stats_span_len <= pf->footer_len -
							      ch->stats_span_off;

	if (!o || !raw) {
		json_decref(o);
		json_decref(raw);
		return COLFS_ENOMEM;
	}
	if (ch->column < pf->n_columns)
		e = pf->columns[ch->column].elem;
	json_object_set_new(o, "physical_type",
			    parquet_type_name(ch->type)
			    ? json_string(parquet_type_name(ch->type))
			    : json_integer(ch->type));
	if (e && parquet_docs_annotation(&a, e) && !colfs_buf_status(&a))
		json_object_set_new(o, "logical_type",
				    json_stringn(a.data, a.len));
	else
		json_object_set_new(o, "logical_type", json_null());
	colfs_buf_free(&a);
	column_order_set(o, pf, ch);
	colfs_cursor_init(&c, pf->footer + ch->stats_span_off,
			  ch->stats_span_len, pf->footer_offset + ch->stats_span_off);
	colfs_thrift_init(&r, &c);
	/* a chunk with geospatial statistics only: no Statistics fields */
	st = ch->has_statistics ? colfs_thrift_struct_enter(&r, &last, &err)
				: COLFS_END;
	while (ch->has_statistics && !st && (st = colfs_thrift_field_next(&r, &last, &fl, &err)) ==
			      COLFS_OK) {
		const char *name = fl.id > 0 && fl.id <= 9 ? names[fl.id] : NULL;
		if (!name) {
			st = colfs_thrift_skip(&r, fl.type, &err);
			continue;
		}
		if (fl.type == COLFS_THRIFT_BINARY && stat_bound(fl.id)) {
			const uint8_t *p;
			size_t n;
			st = colfs_thrift_read_binary(&r, fl.type, &p, &n, &err);
			if (!st) {
				json_object_set_new(o, name,
						    stat_value(&nt, e, ch->type,
							       p, n));
				json_object_set_new(raw, name, hex_json(p, n));
			}
			json_t *v = !st && want_typed ? typed_json(e, p, n)
						      : NULL;
			if (v) {
				json_decref(typed[fl.id]);
				typed[fl.id] = v;
			}
		} else if (fl.type == COLFS_THRIFT_BOOL &&
			   (fl.id == 7 || fl.id == 8)) {
			json_object_set_new(o, name,
					    json_boolean(fl.bool_value));
		} else if (fl.id == 3 || fl.id == 4 || fl.id == 9) {
			int64_t v;
			st = colfs_thrift_read_int(&r, fl.type, &v, &err);
			if (!st)
				json_object_set_new(o, name, json_integer(v));
		} else {
			st = colfs_thrift_skip(&r, fl.type, &err);
		}
	}
	if (st != COLFS_END) {
		for (int i = 0; i < 7; i++)
			json_decref(typed[i]);
		json_decref(o);
		json_decref(raw);
		free(nt.text);
		colfs_tree_report_err(t, f, &err);
		return err.status ? err.status : COLFS_ECORRUPT;
	}
	json_object_set_new(o, "raw", raw);
	if (ch->has_geo_statistics) {
		json_t *g = NULL;
		st = geo_stats_json(pf, ch, &g, &err);
		if (st) {
			for (int i = 0; i < 7; i++)
				json_decref(typed[i]);
			json_decref(o);
			free(nt.text);
			colfs_tree_report_err(t, f, &err);
			return st;
		}
		json_object_set_new(o, "geospatial_statistics", g);
	}
	if (want_typed && !has_nul_string(o)) {
		for (int16_t id = 1; id < 7; id++) {
			json_t *v;
			if (!stat_bound(id))
				continue;
			if (typed[id]) {
				json_object_set_new(o, names[id], typed[id]);
				typed[id] = NULL;
			} else if ((v = placeholder_real(
					    json_object_get(o, names[id]),
					    &nt))) {
				json_object_set_new(o, names[id], v);
			}
		}
		free(nt.text);
		return json_emit(out, o);
	}
	for (int i = 0; i < 7; i++)
		json_decref(typed[i]);
	st = colfs_buf_json(&doc, o);
	if (!st)
		st = numtext_apply(&doc, &nt, out);
	colfs_buf_free(&doc);
	free(nt.text);
	return st;
}

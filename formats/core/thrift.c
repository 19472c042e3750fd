/* colfs: Thrift compact-protocol decoder (see thrift.h). */
#include "thrift.h"
#include "render.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void colfs_thrift_init(colfs_thrift *r, colfs_cursor *c)
{
	r->cur = c;
	r->depth = 0;
}

const char *colfs_thrift_type_name(uint8_t type)
{
	static const char *const names[] = {
		"stop", "bool", "bool", "byte", "i16", "i32", "i64",
		"double", "binary", "list", "set", "map", "struct", "uuid",
	};
	return type < sizeof names / sizeof names[0] ? names[type] : "invalid";
}

/* colfs_cursor_offset, inline: asked at every field and value. */
static inline uint64_t here(const colfs_thrift *r)
{
	const colfs_cursor *c = r->cur;

	return c->virtual_base ? c->file_offset : c->file_offset + c->pos;
}

/* The hot path of every field header and value (a footer of 200,000
 * chunks holds millions): a byte, or a varint of one or two bytes, read
 * here when the window holds it; anything longer, and any read that runs
 * past the window, goes to the cursor's own readers, which check and
 * report. */
static inline colfs_status th_u8(colfs_thrift *r, uint8_t *b, colfs_err *err)
{
	colfs_cursor *c = r->cur;

	if (__builtin_expect(c->pos < c->len, 1)) {
		*b = c->base[c->pos++];
		return COLFS_OK;
	}
	return colfs_cursor_u8(c, b, err);
}

static inline colfs_status th_uvarint(colfs_thrift *r, uint64_t *v,
				      colfs_err *err)
{
	colfs_cursor *c = r->cur;
	size_t left = c->len - c->pos;
	const uint8_t *p = c->base + c->pos;

	if (left >= 1 && !(p[0] & 0x80)) {
		*v = p[0];
		c->pos += 1;
		return COLFS_OK;
	}
	if (left >= 2 && !(p[1] & 0x80)) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		c->pos += 2;
		return COLFS_OK;
	}
	return colfs_cursor_uvarint(c, v, err);
}

static inline colfs_status th_svarint(colfs_thrift *r, int64_t *v,
				      colfs_err *err)
{
	uint64_t u;

	COLFS_TRY(th_uvarint(r, &u, err));
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return COLFS_OK;
}

static colfs_status depth_push(colfs_thrift *r, colfs_err *err)
{
	if (r->depth >= COLFS_THRIFT_MAX_DEPTH)
		return colfs_fail(err, COLFS_EOVERFLOW, here(r),
				  "thrift nesting deeper than %d levels",
				  COLFS_THRIFT_MAX_DEPTH);
	r->depth++;
	return COLFS_OK;
}

static void depth_pop(colfs_thrift *r)
{
	if (r->depth)
		r->depth--;
}

colfs_status colfs_thrift_struct_enter(colfs_thrift *r, int16_t *last_id,
				       colfs_err *err)
{
	*last_id = 0;
	return depth_push(r, err);
}

void colfs_thrift_struct_leave(colfs_thrift *r)
{
	depth_pop(r);
}

void colfs_thrift_collection_leave(colfs_thrift *r)
{
	depth_pop(r);
}

colfs_status colfs_thrift_field_next(colfs_thrift *r, int16_t *last_id,
				     colfs_thrift_field *f, colfs_err *err)
{
	uint64_t at = here(r);
	uint8_t b, type;
	int32_t id;

	COLFS_TRY(th_u8(r, &b, err));
	if (b == 0)
		return COLFS_END;
	type = b & 0x0f;
	if (type == COLFS_THRIFT_STOP || type > COLFS_THRIFT_UUID)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "thrift field header 0x%02x has invalid type %u",
				  b, type);
	if (b >> 4) {
		id = (int32_t)*last_id + (b >> 4);
		if (id > INT16_MAX)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "thrift field id overflows 16 bits");
	} else {
		int64_t v;
		COLFS_TRY(th_svarint(r, &v, err));
		if (v < INT16_MIN || v > INT16_MAX)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "thrift field id %lld does not fit in 16 bits",
					  (long long)v);
		id = (int32_t)v;
	}
	f->id = (int16_t)id;
	f->offset = at;
	f->bool_value = type == COLFS_THRIFT_BOOL;
	f->type = type == COLFS_THRIFT_BOOL_FALSE ? COLFS_THRIFT_BOOL : type;
	*last_id = (int16_t)id;
	return COLFS_OK;
}

/* Fewest bytes one element of wire type `t` takes. */
static size_t elem_min_size(uint8_t t)
{
	switch (t) {
	case COLFS_THRIFT_DOUBLE: return 8;
	case COLFS_THRIFT_UUID: return 16;
	default: return 1;
	}
}

static colfs_status check_elem_type(colfs_thrift *r, uint8_t t, uint64_t at,
				    uint64_t count, colfs_err *err)
{
	(void)r;
	if ((t == COLFS_THRIFT_STOP && count) || t > COLFS_THRIFT_UUID)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "thrift collection has invalid element type %u",
				  t);
	return COLFS_OK;
}

colfs_status colfs_thrift_list_begin(colfs_thrift *r, uint8_t *elem_type,
				     uint32_t *count, colfs_err *err)
{
	uint64_t at = here(r);
	uint64_t n, need;
	uint8_t b, t;

	COLFS_TRY(th_u8(r, &b, err));
	n = b >> 4;
	t = b & 0x0f;
	if (n == 15)
		COLFS_TRY(th_uvarint(r, &n, err));
	COLFS_TRY(check_elem_type(r, t, at, n, err));
	if (t == COLFS_THRIFT_BOOL_FALSE)
		t = COLFS_THRIFT_BOOL;
	if (colfs_mul_overflows(n, elem_min_size(t), &need) ||
	    need > colfs_cursor_left(r->cur) || n > UINT32_MAX)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "thrift list of %llu %s elements cannot fit in the %zu bytes left",
				  (unsigned long long)n,
				  colfs_thrift_type_name(t),
				  colfs_cursor_left(r->cur));
	COLFS_TRY(depth_push(r, err));
	*elem_type = t;
	*count = (uint32_t)n;
	return COLFS_OK;
}

colfs_status colfs_thrift_map_begin(colfs_thrift *r, uint8_t *key_type,
				    uint8_t *val_type, uint32_t *count,
				    colfs_err *err)
{
	uint64_t at = here(r);
	uint64_t n, need;
	uint8_t b = 0, kt = 0, vt = 0;

	COLFS_TRY(th_uvarint(r, &n, err));
	if (n) {
		COLFS_TRY(th_u8(r, &b, err));
		kt = b >> 4;
		vt = b & 0x0f;
		COLFS_TRY(check_elem_type(r, kt, at, n, err));
		COLFS_TRY(check_elem_type(r, vt, at, n, err));
		if (kt == COLFS_THRIFT_BOOL_FALSE)
			kt = COLFS_THRIFT_BOOL;
		if (vt == COLFS_THRIFT_BOOL_FALSE)
			vt = COLFS_THRIFT_BOOL;
	}
	if (colfs_mul_overflows(n, elem_min_size(kt) + elem_min_size(vt),
				&need) ||
	    need > colfs_cursor_left(r->cur) || n > UINT32_MAX)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "thrift map of %llu entries cannot fit in the %zu bytes left",
				  (unsigned long long)n,
				  colfs_cursor_left(r->cur));
	COLFS_TRY(depth_push(r, err));
	*key_type = kt;
	*val_type = vt;
	*count = (uint32_t)n;
	return COLFS_OK;
}

colfs_status colfs_thrift_read_int(colfs_thrift *r, uint8_t type,
				   int64_t *out, colfs_err *err)
{
	uint64_t at = here(r);
	int64_t v;

	switch (type) {
	case COLFS_THRIFT_BYTE: {
		uint8_t b;
		COLFS_TRY(th_u8(r, &b, err));
		*out = (int8_t)b;
		return COLFS_OK;
	}
	case COLFS_THRIFT_I16:
	case COLFS_THRIFT_I32:
	case COLFS_THRIFT_I64:
		COLFS_TRY(th_svarint(r, &v, err));
		if ((type == COLFS_THRIFT_I16 && (v < INT16_MIN || v > INT16_MAX)) ||
		    (type == COLFS_THRIFT_I32 && (v < INT32_MIN || v > INT32_MAX)))
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "thrift %s value %lld out of range",
					  colfs_thrift_type_name(type),
					  (long long)v);
		*out = v;
		return COLFS_OK;
	default:
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "expected a thrift integer, found %s",
				  colfs_thrift_type_name(type));
	}
}

colfs_status colfs_thrift_read_i32(colfs_thrift *r, uint8_t type,
				   int32_t *out, colfs_err *err)
{
	uint64_t at = here(r);
	int64_t v;

	COLFS_TRY(colfs_thrift_read_int(r, type, &v, err));
	if (v < INT32_MIN || v > INT32_MAX)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "thrift value %lld does not fit in i32",
				  (long long)v);
	*out = (int32_t)v;
	return COLFS_OK;
}

colfs_status colfs_thrift_read_i64(colfs_thrift *r, uint8_t type,
				   int64_t *out, colfs_err *err)
{
	return colfs_thrift_read_int(r, type, out, err);
}

colfs_status colfs_thrift_read_double(colfs_thrift *r, uint8_t type,
				      double *out, colfs_err *err)
{
	uint64_t bits;

	if (type != COLFS_THRIFT_DOUBLE)
		return colfs_fail(err, COLFS_ECORRUPT, here(r),
				  "expected a thrift double, found %s",
				  colfs_thrift_type_name(type));
	COLFS_TRY(colfs_cursor_u64le(r->cur, &bits, err));
	memcpy(out, &bits, sizeof *out);
	return COLFS_OK;
}

colfs_status colfs_thrift_read_binary(colfs_thrift *r, uint8_t type,
				      const uint8_t **out, size_t *len,
				      colfs_err *err)
{
	uint64_t at = here(r);
	uint64_t n;

	if (type != COLFS_THRIFT_BINARY)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "expected thrift binary, found %s",
				  colfs_thrift_type_name(type));
	COLFS_TRY(th_uvarint(r, &n, err));
	if (n > colfs_cursor_left(r->cur))
		return colfs_fail(err, COLFS_ETRUNCATED, at,
				  "thrift binary of %llu bytes, only %zu left",
				  (unsigned long long)n,
				  colfs_cursor_left(r->cur));
	*len = (size_t)n;
	return colfs_cursor_bytes(r->cur, (size_t)n, out, err);
}

colfs_status colfs_thrift_read_bool_elem(colfs_thrift *r, bool *out,
					 colfs_err *err)
{
	uint64_t at = here(r);
	uint8_t b;

	COLFS_TRY(th_u8(r, &b, err));
	if (b > 2)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "thrift bool element 0x%02x is not 0, 1 or 2",
				  b);
	*out = b == 1;
	return COLFS_OK;
}

/* Skip one value; `elem` is true inside a collection (bools take a byte). */
static colfs_status skip_value(colfs_thrift *r, uint8_t type, bool elem,
			       colfs_err *err)
{
	int64_t iv;
	double dv;
	const uint8_t *p;
	size_t n;
	bool bv;

	switch (type) {
	case COLFS_THRIFT_BOOL:
	case COLFS_THRIFT_BOOL_FALSE:
		return elem ? colfs_thrift_read_bool_elem(r, &bv, err)
			    : COLFS_OK;
	case COLFS_THRIFT_BYTE:
	case COLFS_THRIFT_I16:
	case COLFS_THRIFT_I32:
	case COLFS_THRIFT_I64:
		return colfs_thrift_read_int(r, type, &iv, err);
	case COLFS_THRIFT_DOUBLE:
		return colfs_thrift_read_double(r, type, &dv, err);
	case COLFS_THRIFT_BINARY:
		return colfs_thrift_read_binary(r, type, &p, &n, err);
	case COLFS_THRIFT_UUID:
		return colfs_cursor_skip(r->cur, 16, err);
	case COLFS_THRIFT_LIST:
	case COLFS_THRIFT_SET: {
		uint8_t et;
		uint32_t cnt;
		COLFS_TRY(colfs_thrift_list_begin(r, &et, &cnt, err));
		for (uint32_t i = 0; i < cnt; i++)
			COLFS_TRY(skip_value(r, et, true, err));
		colfs_thrift_collection_leave(r);
		return COLFS_OK;
	}
	case COLFS_THRIFT_MAP: {
		uint8_t kt, vt;
		uint32_t cnt;
		COLFS_TRY(colfs_thrift_map_begin(r, &kt, &vt, &cnt, err));
		for (uint32_t i = 0; i < cnt; i++) {
			COLFS_TRY(skip_value(r, kt, true, err));
			COLFS_TRY(skip_value(r, vt, true, err));
		}
		colfs_thrift_collection_leave(r);
		return COLFS_OK;
	}
	case COLFS_THRIFT_STRUCT:
		return colfs_thrift_skip_struct(r, err);
	default:
		return colfs_fail(err, COLFS_ECORRUPT, here(r),
				  "cannot skip thrift value of type %u", type);
	}
}

colfs_status colfs_thrift_skip(colfs_thrift *r, uint8_t type, colfs_err *err)
{
	return skip_value(r, type, false, err);
}

colfs_status colfs_thrift_skip_rest(colfs_thrift *r, int16_t *last_id,
				    colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;

	while ((st = colfs_thrift_field_next(r, last_id, &f, err)) == COLFS_OK)
		COLFS_TRY(colfs_thrift_skip(r, f.type, err));
	return st == COLFS_END ? COLFS_OK : st;
}

colfs_status colfs_thrift_skip_struct(colfs_thrift *r, colfs_err *err)
{
	int16_t last;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, err));
	COLFS_TRY(colfs_thrift_skip_rest(r, &last, err));
	colfs_thrift_struct_leave(r);
	return COLFS_OK;
}

/* --- JSON ---------------------------------------------------------------- */

bool colfs_thrift_text_ok(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint8_t c = p[i];
		size_t n;
		uint32_t cp;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
			    c == 0x7f)
				return false;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i - 1 < n)
			return false;
		for (size_t k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		/* C1 controls */
		if (cp >= 0x80 && cp < 0xa0)
			return false;
		i += n + 1;
	}
	return true;
}

/* `n` bytes as 2n lower-case hex digits at `dst`. */
static void hex_put(char *dst, const uint8_t *p, size_t n)
{
	static const char hexd[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		dst[2 * i] = hexd[p[i] >> 4];
		dst[2 * i + 1] = hexd[p[i] & 15];
	}
}

#define UUID_TEXT_LEN 36
/* A UUID's 16 bytes as 8-4-4-4-12 hex digits at `s` (no NUL). */
static void uuid_put(char *s, const uint8_t *p)
{
	size_t k = 0;

	for (int i = 0; i < 16; i += 2) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			s[k++] = '-';
		hex_put(s + k, p + i, 2);
		k += 4;
	}
}

json_t *colfs_thrift_binary_json(const uint8_t *p, size_t len)
{
	json_t *obj, *s;
	char *hex;

	if (colfs_thrift_text_ok(p, len))
		return json_stringn(len ? (const char *)p : "", len);
	hex = malloc(len * 2 + 1);
	if (!hex)
		return NULL;
	hex_put(hex, p, len);
	hex[2 * len] = 0;
	s = json_stringn(hex, len * 2);
	free(hex);
	if (!s)
		return NULL;
	obj = json_object();
	if (!obj || json_object_set_new(obj, "hex", s)) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

json_t *colfs_thrift_double_json(double v)
{
	if (isnan(v))
		return json_string("NaN");
	if (isinf(v))
		return json_string(v > 0 ? "Infinity" : "-Infinity");
	return json_real(v);
}

typedef struct value_desc {
	uint8_t elem;
	const colfs_thrift_sdesc *sub;
	const char *const *enum_names;
	uint16_t n_enum;
} value_desc;

static colfs_status value_json(colfs_thrift *r, uint8_t type, bool elem,
			       bool bool_value, const value_desc *vd,
			       json_t **out, colfs_err *err);

/* The name of enum value `iv`, or NULL (an integer). */
static const char *enum_name(const value_desc *vd, int64_t iv)
{
	return vd && vd->enum_names && iv >= 0 && iv < vd->n_enum
	       ? vd->enum_names[iv] : NULL;
}

/* A list's elements' description: the field's, when the list holds the
 * elements it describes. */
static const value_desc *elem_value_desc(const value_desc *vd, uint8_t et,
					 value_desc *ed)
{
	if (!vd || vd->elem != et)
		return NULL;
	*ed = (value_desc){.sub = vd->sub, .enum_names = vd->enum_names,
			   .n_enum = vd->n_enum};
	return ed;
}

static colfs_status nomem(colfs_thrift *r, colfs_err *err)
{
	return colfs_fail(err, COLFS_ENOMEM, here(r),
			  "out of memory rendering thrift as JSON");
}

static colfs_status collection_json(colfs_thrift *r, uint8_t type,
				    const value_desc *vd, json_t **out,
				    colfs_err *err)
{
	colfs_status st = COLFS_OK;
	json_t *arr = json_array();
	uint32_t cnt;

	if (!arr)
		return nomem(r, err);
	if (type == COLFS_THRIFT_MAP) {
		uint8_t kt, vt;
		st = colfs_thrift_map_begin(r, &kt, &vt, &cnt, err);
		for (uint32_t i = 0; !st && i < cnt; i++) {
			json_t *k = NULL, *v = NULL, *o = NULL;
			st = value_json(r, kt, true, false, NULL, &k, err);
			if (!st)
				st = value_json(r, vt, true, false, NULL, &v,
						err);
			if (!st) {
				o = json_object();
				if (!o || json_object_set(o, "key", k) ||
				    json_object_set(o, "value", v) ||
				    json_array_append(arr, o))
					st = nomem(r, err);
			}
			json_decref(k);
			json_decref(v);
			json_decref(o);
		}
	} else {
		uint8_t et = 0;
		value_desc ed;
		const value_desc *edp;
		st = colfs_thrift_list_begin(r, &et, &cnt, err);
		edp = elem_value_desc(vd, et, &ed);
		for (uint32_t i = 0; !st && i < cnt; i++) {
			json_t *v = NULL;
			st = value_json(r, et, true, false, edp, &v, err);
			if (!st && json_array_append_new(arr, v))
				st = nomem(r, err);
		}
	}
	if (st) {
		json_decref(arr);
		return st;
	}
	colfs_thrift_collection_leave(r);
	*out = arr;
	return COLFS_OK;
}

static colfs_status value_json(colfs_thrift *r, uint8_t type, bool elem,
			       bool bool_value, const value_desc *vd,
			       json_t **out, colfs_err *err)
{
	json_t *v = NULL;

	switch (type) {
	case COLFS_THRIFT_BOOL:
	case COLFS_THRIFT_BOOL_FALSE:
		if (elem)
			COLFS_TRY(colfs_thrift_read_bool_elem(r, &bool_value,
							      err));
		v = json_boolean(bool_value);
		break;
	case COLFS_THRIFT_BYTE:
	case COLFS_THRIFT_I16:
	case COLFS_THRIFT_I32:
	case COLFS_THRIFT_I64: {
		int64_t iv;
		COLFS_TRY(colfs_thrift_read_int(r, type, &iv, err));
		v = enum_name(vd, iv) ? json_string(enum_name(vd, iv))
				      : json_integer((json_int_t)iv);
		break;
	}
	case COLFS_THRIFT_DOUBLE: {
		double dv;
		COLFS_TRY(colfs_thrift_read_double(r, type, &dv, err));
		v = colfs_thrift_double_json(dv);
		break;
	}
	case COLFS_THRIFT_BINARY: {
		const uint8_t *p;
		size_t n;
		COLFS_TRY(colfs_thrift_read_binary(r, type, &p, &n, err));
		v = colfs_thrift_binary_json(p, n);
		break;
	}
	case COLFS_THRIFT_UUID: {
		const uint8_t *p;
		char s[UUID_TEXT_LEN + 1];
		COLFS_TRY(colfs_cursor_bytes(r->cur, 16, &p, err));
		uuid_put(s, p);
		s[UUID_TEXT_LEN] = 0;
		v = json_string(s);
		break;
	}
	case COLFS_THRIFT_LIST:
	case COLFS_THRIFT_SET:
	case COLFS_THRIFT_MAP:
		return collection_json(r, type, vd, out, err);
	case COLFS_THRIFT_STRUCT:
		return colfs_thrift_struct_json(r, vd ? vd->sub : NULL, out,
						err);
	default:
		return colfs_fail(err, COLFS_ECORRUPT, here(r),
				  "invalid thrift type %u", type);
	}
	if (!v)
		return nomem(r, err);
	*out = v;
	return COLFS_OK;
}

static const colfs_thrift_fdesc *find_field(const colfs_thrift_sdesc *d,
					    int16_t id)
{
	if (!d)
		return NULL;
	for (uint16_t i = 0; i < d->n_fields; i++)
		if (d->fields[i].id == id)
			return &d->fields[i];
	return NULL;
}

static bool same_wire_type(uint8_t want, uint8_t got)
{
	if (want == got)
		return true;
	if ((want == COLFS_THRIFT_LIST || want == COLFS_THRIFT_SET) &&
	    (got == COLFS_THRIFT_LIST || got == COLFS_THRIFT_SET))
		return true;
	return false;
}

/* How field `f` of a struct `d` is rendered: its descriptor's name and
 * value description (NULL, `*name` NULL: an unknown field, by its id). */
static const value_desc *field_value_desc(const colfs_thrift_sdesc *d,
					  const colfs_thrift_field *f,
					  value_desc *vd, const char **name)
{
	const colfs_thrift_fdesc *fd = find_field(d, f->id);

	*name = NULL;
	if (!fd || !same_wire_type(fd->type, f->type))
		return NULL;
	*vd = (value_desc){.elem = fd->elem, .sub = fd->sub,
			   .enum_names = fd->enum_names, .n_enum = fd->n_enum};
	*name = fd->name;
	return vd;
}

colfs_status colfs_thrift_struct_json(colfs_thrift *r,
				      const colfs_thrift_sdesc *d,
				      json_t **out, colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	json_t *obj;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, err));
	obj = json_object();
	if (!obj)
		return nomem(r, err);
	while ((st = colfs_thrift_field_next(r, &last, &f, err)) == COLFS_OK) {
		value_desc vd;
		const char *key;
		const value_desc *vdp = field_value_desc(d, &f, &vd, &key);
		char name[32];
		json_t *v = NULL;

		if (!key) {
			snprintf(name, sizeof name, "field_%d", f.id);
			key = name;
		}
		st = value_json(r, f.type, false, f.bool_value, vdp, &v, err);
		if (st)
			break;
		if (json_object_set_new(obj, key, v)) {
			st = nomem(r, err);
			break;
		}
	}
	if (st != COLFS_END) {
		json_decref(obj);
		return st;
	}
	colfs_thrift_struct_leave(r);
	*out = obj;
	return COLFS_OK;
}

/* --- the same JSON as text, without the tree -------------------------------
 *
 * colfs_thrift_struct_text writes what colfs_thrift_struct_json's object
 * dumps as (json_dumps with JSON_INDENT(2) | JSON_PRESERVE_ORDER) straight
 * into a buffer: a wide file's check renders 400,000 such documents, and
 * the tree (an allocation a value, a hash table an object) and its dump
 * cost more than the rest of the document's reading.  It writes only
 * what it can write exactly as jansson would: integers, enum names,
 * booleans, strings of printable ASCII without quote or backslash, hex
 * objects, UUIDs, structs whose keys are distinct, lists and maps; on
 * anything else (a double, a string to escape, a key twice) it stops with
 * TEXT_UNSURE and the caller renders through the tree.  Any failure of
 * the Thrift also stops it: the caller's tree rendering reports it. */

#define TEXT_UNSURE COLFS_EUNSUPPORTED
#define TEXT_MAX_KEYS 64

static void text_indent(colfs_buf *out, unsigned depth)
{
	if (!colfs_buf_reserve(out, 1 + 2 * (size_t)depth))
		return;
	out->data[out->len++] = '\n';
	memset(out->data + out->len, ' ', 2 * (size_t)depth);
	out->len += 2 * (size_t)depth;
}

/* A JSON string that needs no escaping, or TEXT_UNSURE. */
static colfs_status text_string(colfs_buf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ||
		    s[i] == '"' || s[i] == '\\')
			return TEXT_UNSURE;
	if (!colfs_buf_reserve(out, n + 2))
		return COLFS_ENOMEM;
	out->data[out->len++] = '"';
	memcpy(out->data + out->len, s, n);
	out->len += n;
	out->data[out->len++] = '"';
	return COLFS_OK;
}

static colfs_status value_text(colfs_thrift *r, uint8_t type, bool elem,
			       bool bool_value, const value_desc *vd,
			       unsigned depth, colfs_buf *out, colfs_err *err);

static colfs_status collection_text(colfs_thrift *r, uint8_t type,
				    const value_desc *vd, unsigned depth,
				    colfs_buf *out, colfs_err *err)
{
	uint32_t cnt;

	if (type == COLFS_THRIFT_MAP) {
		uint8_t kt, vt;
		COLFS_TRY(colfs_thrift_map_begin(r, &kt, &vt, &cnt, err));
		colfs_buf_putc(out, '[');
		for (uint32_t i = 0; i < cnt; i++) {
			if (i)
				colfs_buf_putc(out, ',');
			text_indent(out, depth + 1);
			colfs_buf_putc(out, '{');
			text_indent(out, depth + 2);
			colfs_buf_puts(out, "\"key\": ");
			COLFS_TRY(value_text(r, kt, true, false, NULL,
					     depth + 2, out, err));
			colfs_buf_putc(out, ',');
			text_indent(out, depth + 2);
			colfs_buf_puts(out, "\"value\": ");
			COLFS_TRY(value_text(r, vt, true, false, NULL,
					     depth + 2, out, err));
			text_indent(out, depth + 1);
			colfs_buf_putc(out, '}');
		}
	} else {
		uint8_t et;
		value_desc ed;
		const value_desc *edp;
		COLFS_TRY(colfs_thrift_list_begin(r, &et, &cnt, err));
		edp = elem_value_desc(vd, et, &ed);
		colfs_buf_putc(out, '[');
		for (uint32_t i = 0; i < cnt; i++) {
			if (i)
				colfs_buf_putc(out, ',');
			text_indent(out, depth + 1);
			COLFS_TRY(value_text(r, et, true, false, edp, depth + 1,
					     out, err));
		}
	}
	if (cnt)
		text_indent(out, depth);
	colfs_buf_putc(out, ']');
	colfs_thrift_collection_leave(r);
	return colfs_buf_status(out);
}

static colfs_status value_text(colfs_thrift *r, uint8_t type, bool elem,
			       bool bool_value, const value_desc *vd,
			       unsigned depth, colfs_buf *out, colfs_err *err)
{
	switch (type) {
	case COLFS_THRIFT_BOOL:
	case COLFS_THRIFT_BOOL_FALSE:
		if (elem)
			COLFS_TRY(colfs_thrift_read_bool_elem(r, &bool_value,
							      err));
		colfs_buf_puts(out, bool_value ? "true" : "false");
		break;
	case COLFS_THRIFT_BYTE:
	case COLFS_THRIFT_I16:
	case COLFS_THRIFT_I32:
	case COLFS_THRIFT_I64: {
		int64_t iv;
		COLFS_TRY(colfs_thrift_read_int(r, type, &iv, err));
		if (enum_name(vd, iv)) {
			COLFS_TRY(text_string(out, enum_name(vd, iv),
					      strlen(enum_name(vd, iv))));
		} else if (colfs_buf_reserve(out, 20)) {
			out->len = (size_t)(colfs_put_i64(out->data + out->len,
							  iv) - out->data);
		}
		break;
	}
	case COLFS_THRIFT_BINARY: {
		const uint8_t *p;
		size_t n;
		COLFS_TRY(colfs_thrift_read_binary(r, type, &p, &n, err));
		if (colfs_thrift_text_ok(p, n)) {
			COLFS_TRY(text_string(out, (const char *)p, n));
			break;
		}
		colfs_buf_putc(out, '{');
		text_indent(out, depth + 1);
		colfs_buf_puts(out, "\"hex\": \"");
		if (!colfs_buf_reserve(out, 2 * n))
			break;
		hex_put(out->data + out->len, p, n);
		out->len += 2 * n;
		colfs_buf_putc(out, '"');
		text_indent(out, depth);
		colfs_buf_putc(out, '}');
		break;
	}
	case COLFS_THRIFT_UUID: {
		const uint8_t *p;
		char s[UUID_TEXT_LEN];
		COLFS_TRY(colfs_cursor_bytes(r->cur, 16, &p, err));
		uuid_put(s, p);
		COLFS_TRY(text_string(out, s, UUID_TEXT_LEN));
		break;
	}
	case COLFS_THRIFT_LIST:
	case COLFS_THRIFT_SET:
	case COLFS_THRIFT_MAP:
		return collection_text(r, type, vd, depth, out, err);
	case COLFS_THRIFT_STRUCT:
		return colfs_thrift_struct_text(r, vd ? vd->sub : NULL, depth,
						out, err);
	default:        /* doubles among them */
		return TEXT_UNSURE;
	}
	return colfs_buf_status(out);
}

colfs_status colfs_thrift_struct_text(colfs_thrift *r,
				      const colfs_thrift_sdesc *d,
				      unsigned depth, colfs_buf *out,
				      colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	/* the keys written: an unknown field's by its id, so a key met
	 * twice (jansson keeps the first place, the last value) is seen */
	struct {
		const char *name;
		int16_t id;
	} keys[TEXT_MAX_KEYS];
	size_t nkeys = 0;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, err));
	colfs_buf_putc(out, '{');
	while ((st = colfs_thrift_field_next(r, &last, &f, err)) == COLFS_OK) {
		value_desc vd;
		const char *name;
		const value_desc *vdp = field_value_desc(d, &f, &vd, &name);

		if (nkeys == TEXT_MAX_KEYS)
			return TEXT_UNSURE;
		for (size_t i = 0; i < nkeys; i++)
			if (name ? keys[i].name && !strcmp(keys[i].name, name)
				 : !keys[i].name && keys[i].id == f.id)
				return TEXT_UNSURE;
		if (name && !strncmp(name, "field_", 6))
			return TEXT_UNSURE;  /* could meet an unknown's key */
		keys[nkeys].name = name;
		keys[nkeys++].id = f.id;
		if (nkeys > 1)
			colfs_buf_putc(out, ',');
		text_indent(out, depth + 1);
		if (name) {
			COLFS_TRY(text_string(out, name, strlen(name)));
		} else {
			char key[32];
			int n = snprintf(key, sizeof key, "field_%d", f.id);
			COLFS_TRY(text_string(out, key, (size_t)n));
		}
		colfs_buf_puts(out, ": ");
		st = value_text(r, f.type, false, f.bool_value, vdp, depth + 1,
				out, err);
		if (st)
			return st;
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(r);
	if (nkeys)
		text_indent(out, depth);
	colfs_buf_putc(out, '}');
	return colfs_buf_status(out);
}

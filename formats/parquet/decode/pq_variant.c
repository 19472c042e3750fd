/* colfs: the Variant binary encoding decoded to JSON (see pq_variant.h).
 *
 * Written by hand from parquet-format VariantEncoding.md: no library
 * decodes variants.  Every value is read through (pointer, length) pairs:
 * a header is checked against the bytes left before any count or offset
 * in it is used, a count is compared with the bytes it needs before it
 * is multiplied, and a nested value is decoded inside the slice its
 * parent's offsets give it.  Objects and arrays recurse at most
 * PQ_VARIANT_MAX_DEPTH levels, so the stack stays small whatever the
 * bytes say.
 */
#include "pq_variant.h"

#include <string.h>

#include "core/render.h"

enum {
	VT_PRIMITIVE = 0,
	VT_SHORT_STRING = 1,
	VT_OBJECT = 2,
	VT_ARRAY = 3,
};

/* Primitive type ids (VariantEncoding.md, "Encoding types"). */
enum {
	VP_NULL = 0, VP_TRUE = 1, VP_FALSE = 2, VP_INT8 = 3, VP_INT16 = 4,
	VP_INT32 = 5, VP_INT64 = 6, VP_DOUBLE = 7, VP_DECIMAL4 = 8,
	VP_DECIMAL8 = 9, VP_DECIMAL16 = 10, VP_DATE = 11, VP_TIMESTAMP = 12,
	VP_TIMESTAMP_NTZ = 13, VP_FLOAT = 14, VP_BINARY = 15, VP_STRING = 16,
	VP_TIME_NTZ = 17, VP_TIMESTAMP_NANOS = 18,
	VP_TIMESTAMP_NTZ_NANOS = 19, VP_UUID = 20,
};

/* Fixed sizes of primitive data after the header byte; -1: 4-byte length
 * then the bytes. */
static const int8_t prim_size[] = {
	[VP_NULL] = 0, [VP_TRUE] = 0, [VP_FALSE] = 0, [VP_INT8] = 1,
	[VP_INT16] = 2, [VP_INT32] = 4, [VP_INT64] = 8, [VP_DOUBLE] = 8,
	[VP_DECIMAL4] = 5, [VP_DECIMAL8] = 9, [VP_DECIMAL16] = 17,
	[VP_DATE] = 4, [VP_TIMESTAMP] = 8, [VP_TIMESTAMP_NTZ] = 8,
	[VP_FLOAT] = 4, [VP_BINARY] = -1, [VP_STRING] = -1,
	[VP_TIME_NTZ] = 8, [VP_TIMESTAMP_NANOS] = 8,
	[VP_TIMESTAMP_NTZ_NANOS] = 8, [VP_UUID] = 16,
};

#define N_PRIM (sizeof prim_size / sizeof prim_size[0])

/* Unsigned little-endian of w (1..4) bytes. */
static inline uint32_t le_u(const uint8_t *p, unsigned w)
{
	uint32_t v = 0;

	for (unsigned i = w; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t le_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 8; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* ---- metadata ------------------------------------------------------------ */

colfs_status pq_variant_meta_parse(const uint8_t *p, size_t n,
				   pq_variant_meta *m, colfs_err *err)
{
	unsigned w;
	uint64_t need, keys, prev = 0;

	memset(m, 0, sizeof *m);
	if (n < 1)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant metadata is empty");
	if ((p[0] & 0x0F) != 1)
		return colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "variant metadata version %u (colfs reads version 1)",
				  p[0] & 0x0F);
	w = (unsigned)(p[0] >> 6) + 1;
	if (n < 1 + (size_t)w)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant metadata of %zu bytes ends inside its dictionary size",
				  n);
	keys = le_u(p + 1, w);
	/* keys + 1 offsets of w bytes, counted before they are read */
	need = 1 + (uint64_t)w + (keys + 1) * w;
	if (need > n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant metadata: %llu keys need %llu bytes of offsets, %zu bytes in all",
				  (unsigned long long)keys,
				  (unsigned long long)((keys + 1) * w), n);
	m->off_size = (uint8_t)w;
	m->n_keys = (uint32_t)keys;
	m->sorted = (p[0] >> 4) & 1;
	m->offs = p + 1 + w;
	m->strs = p + need;
	m->strs_len = n - (size_t)need;
	for (uint64_t i = 0; i <= keys; i++) {
		uint32_t o = le_u(m->offs + i * w, w);
		if ((i == 0 && o != 0) || o < prev || o > m->strs_len)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "variant metadata: key offset %llu is %u (previous %llu, %zu string bytes)",
					  (unsigned long long)i, o,
					  (unsigned long long)prev,
					  m->strs_len);
		prev = o;
	}
	if (prev != m->strs_len)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant metadata: the key offsets end at %llu, the string bytes at %zu",
				  (unsigned long long)prev, m->strs_len);
	return COLFS_OK;
}

colfs_status pq_variant_meta_key(const pq_variant_meta *m, uint32_t id,
				 const uint8_t **key, size_t *len,
				 colfs_err *err)
{
	uint32_t a, b;

	if (id >= m->n_keys)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant field id %u beyond the %u keys of the metadata",
				  id, m->n_keys);
	a = le_u(m->offs + (size_t)id * m->off_size, m->off_size);
	b = le_u(m->offs + ((size_t)id + 1) * m->off_size, m->off_size);
	if (a > b || b > m->strs_len)	/* checked by the parse; kept local */
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant metadata: key %u spans %u..%u of %zu bytes",
				  id, a, b, m->strs_len);
	*key = m->strs + a;
	*len = b - a;
	return COLFS_OK;
}

/* ---- value sizes ------------------------------------------------------------ */

/* Header of an object or array at v (n bytes): count, widths and the
 * start of the field bytes, all checked to lie inside n. */
typedef struct nested_hdr {
	uint32_t count;
	unsigned id_size, off_size;   /* id_size 0 for arrays */
	size_t ids, offs, fields;     /* positions inside v */
	size_t fields_len;            /* the last offset */
} nested_hdr;

static colfs_status nested_parse(const uint8_t *v, size_t n, size_t at,
				 nested_hdr *h, colfs_err *err)
{
	const unsigned hdr = v[0] >> 2;
	const bool object = (v[0] & 3) == VT_OBJECT;
	const unsigned large = object ? (hdr >> 4) & 1 : (hdr >> 2) & 1;
	const unsigned csz = large ? 4 : 1;
	uint64_t need;
	const char *what = object ? "object" : "array";

	h->off_size = (hdr & 3) + 1;
	h->id_size = object ? ((hdr >> 2) & 3) + 1 : 0;
	if (n < 1 + (size_t)csz)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: %s of %zu bytes ends inside its element count",
				  at, what, n);
	h->count = le_u(v + 1, csz);
	need = 1 + (uint64_t)csz + (uint64_t)h->count * h->id_size +
	       ((uint64_t)h->count + 1) * h->off_size;
	if (need > n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: %s of %u elements needs %llu header bytes, %zu left",
				  at, what, h->count, (unsigned long long)need, n);
	h->ids = 1 + csz;
	h->offs = h->ids + (size_t)h->count * h->id_size;
	h->fields = (size_t)need;
	h->fields_len = le_u(v + h->offs + (size_t)h->count * h->off_size,
			     h->off_size);
	if (h->fields_len > n - h->fields)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: %s fields end at %zu, %zu bytes left",
				  at, what, h->fields_len, n - h->fields);
	return COLFS_OK;
}

static colfs_status size_at(const uint8_t *v, size_t n, size_t at,
			    size_t *size, colfs_err *err)
{
	if (n < 1)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: value expected, no bytes left",
				  at);
	switch (v[0] & 3) {
	case VT_PRIMITIVE: {
		const unsigned t = v[0] >> 2;
		if (t >= N_PRIM)
			return colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
					  "variant value byte %zu: primitive type %u is not in the Variant specification colfs implements",
					  at, t);
		if (prim_size[t] >= 0) {
			if ((size_t)prim_size[t] > n - 1)
				return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
						  "variant value byte %zu: primitive type %u needs %d bytes, %zu left",
						  at, t, prim_size[t], n - 1);
			*size = 1 + (size_t)prim_size[t];
			return COLFS_OK;
		}
		if (n < 5)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "variant value byte %zu: primitive type %u ends inside its length",
					  at, t);
		uint32_t len = le_u(v + 1, 4);
		if (len > n - 5)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "variant value byte %zu: %u bytes of data declared, %zu left",
					  at, len, n - 5);
		*size = 5 + (size_t)len;
		return COLFS_OK;
	}
	case VT_SHORT_STRING: {
		const size_t len = v[0] >> 2;
		if (len > n - 1)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "variant value byte %zu: short string of %zu bytes, %zu left",
					  at, len, n - 1);
		*size = 1 + len;
		return COLFS_OK;
	}
	default: {
		nested_hdr h;
		COLFS_TRY(nested_parse(v, n, at, &h, err));
		*size = h.fields + h.fields_len;
		return COLFS_OK;
	}
	}
}

colfs_status pq_variant_value_size(const uint8_t *v, size_t n, size_t *size,
				   colfs_err *err)
{
	return size_at(v, n, 0, size, err);
}

bool pq_variant_is_object(const uint8_t *v, size_t n)
{
	return n >= 1 && (v[0] & 3) == VT_OBJECT;
}

bool pq_variant_is_null(const uint8_t *v, size_t n)
{
	return n == 1 && v[0] == 0;
}

/* ---- rendering ---------------------------------------------------------- */

static void put_primitive(colfs_buf *out, unsigned t, const uint8_t *d,
			  size_t len)
{
	const colfs_render *j = &colfs_render_json_default;

	switch (t) {
	case VP_NULL:
		colfs_buf_append(out, "null", 4);
		break;
	case VP_TRUE:
	case VP_FALSE:
		colfs_render_bool(out, j, t == VP_TRUE);
		break;
	case VP_INT8:
		colfs_render_i64(out, j, (int8_t)d[0]);
		break;
	case VP_INT16:
		colfs_render_i64(out, j, (int16_t)le_u(d, 2));
		break;
	case VP_INT32:
		colfs_render_i64(out, j, (int32_t)le_u(d, 4));
		break;
	case VP_INT64:
		colfs_render_i64(out, j, (int64_t)le_u64(d));
		break;
	case VP_DOUBLE: {
		uint64_t bits = le_u64(d);
		double x;
		memcpy(&x, &bits, sizeof x);
		colfs_render_double(out, j, x);
		break;
	}
	case VP_FLOAT: {
		uint32_t bits = le_u(d, 4);
		float x;
		memcpy(&x, &bits, sizeof x);
		colfs_render_float(out, j, x);
		break;
	}
	case VP_DECIMAL4:
		colfs_render_decimal_i64(out, j, (int32_t)le_u(d + 1, 4), d[0]);
		break;
	case VP_DECIMAL8:
		colfs_render_decimal_i64(out, j, (int64_t)le_u64(d + 1), d[0]);
		break;
	case VP_DECIMAL16: {
		uint8_t be[16];
		for (unsigned i = 0; i < 16; i++)
			be[i] = d[16 - i];
		colfs_render_decimal_be(out, j, be, 16, d[0]);
		break;
	}
	case VP_DATE:
		colfs_render_date(out, j, (int32_t)le_u(d, 4));
		break;
	case VP_TIMESTAMP:
	case VP_TIMESTAMP_NTZ:
		colfs_render_timestamp(out, j, (int64_t)le_u64(d),
				       COLFS_UNIT_MICROS, t == VP_TIMESTAMP);
		break;
	case VP_TIMESTAMP_NANOS:
	case VP_TIMESTAMP_NTZ_NANOS:
		colfs_render_timestamp(out, j, (int64_t)le_u64(d),
				       COLFS_UNIT_NANOS,
				       t == VP_TIMESTAMP_NANOS);
		break;
	case VP_TIME_NTZ:
		colfs_render_time(out, j, (int64_t)le_u64(d), COLFS_UNIT_MICROS);
		break;
	case VP_BINARY:
		colfs_render_binary(out, j, d + 4, len - 4);
		break;
	case VP_STRING:
		colfs_render_json_string(out, d + 4, len - 4);
		break;
	case VP_UUID:
		colfs_render_uuid(out, j, d);
		break;
	}
}

static colfs_status value_json(const pq_variant_meta *m, const uint8_t *v,
			       size_t n, size_t at, unsigned depth,
			       size_t *budget, colfs_buf *out, colfs_err *err);

/* Element i of an object or array: its bytes inside the fields region. */
static colfs_status element_at(const uint8_t *v, const nested_hdr *h,
			       uint32_t i, size_t at, const uint8_t **ev,
			       size_t *en, size_t *eat, colfs_err *err)
{
	const size_t o = le_u(v + h->offs + (size_t)i * h->off_size,
			      h->off_size);
	size_t sz;

	if (o >= h->fields_len)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: element %u at offset %zu, the fields end at %zu",
				  at, i, o, h->fields_len);
	*ev = v + h->fields + o;
	*eat = at + h->fields + o;
	COLFS_TRY(size_at(*ev, h->fields_len - o, *eat, &sz, err));
	*en = sz;
	return COLFS_OK;
}

/* `budget` counts the values still allowed: every value of a well-formed
 * encoding has a header byte of its own, so there are at most as many
 * values as bytes; offsets that point several elements at the same bytes
 * (which could make a few bytes describe an exponential tree) run out of
 * it. */
static colfs_status value_json(const pq_variant_meta *m, const uint8_t *v,
			       size_t n, size_t at, unsigned depth,
			       size_t *budget, colfs_buf *out, colfs_err *err)
{
	size_t sz;
	nested_hdr h;

	COLFS_TRY(size_at(v, n, at, &sz, err));
	if (*budget == 0)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: more values than bytes (elements share their bytes)",
				  at);
	(*budget)--;
	if (sz != n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: a value of %zu bytes in a slot of %zu",
				  at, sz, n);
	switch (v[0] & 3) {
	case VT_PRIMITIVE:
		if ((v[0] >> 2 >= VP_DECIMAL4 && v[0] >> 2 <= VP_DECIMAL16) &&
		    v[1] > 38)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "variant value byte %zu: decimal scale %u beyond 38",
					  at, v[1]);
		put_primitive(out, v[0] >> 2, v + 1, n - 1);
		return COLFS_OK;
	case VT_SHORT_STRING:
		colfs_render_json_string(out, v + 1, n - 1);
		return COLFS_OK;
	}
	if (depth >= PQ_VARIANT_MAX_DEPTH)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: nesting deeper than %d levels",
				  at, PQ_VARIANT_MAX_DEPTH);
	COLFS_TRY(nested_parse(v, n, at, &h, err));
	const bool object = (v[0] & 3) == VT_OBJECT;
	colfs_buf_putc(out, object ? '{' : '[');
	for (uint32_t i = 0; i < h.count; i++) {
		const uint8_t *ev = NULL;
		size_t en = 0, eat = 0;
		if (i)
			colfs_buf_putc(out, ',');
		if (object) {
			const uint8_t *key;
			size_t klen;
			COLFS_TRY(pq_variant_meta_key(m, le_u(v + h.ids +
					(size_t)i * h.id_size, h.id_size),
					&key, &klen, err));
			colfs_render_json_string(out, key, klen);
			colfs_buf_putc(out, ':');
		}
		COLFS_TRY(element_at(v, &h, i, at, &ev, &en, &eat, err));
		COLFS_TRY(value_json(m, ev, en, eat, depth + 1, budget, out,
				     err));
		if (out->failed)
			return colfs_buf_status(out);
	}
	colfs_buf_putc(out, object ? '}' : ']');
	return COLFS_OK;
}

colfs_status pq_variant_to_json(const pq_variant_meta *m, const uint8_t *v,
				size_t n, colfs_buf *out, colfs_err *err)
{
	size_t budget = n;

	return pq_variant_to_json_budget(m, v, n, &budget, out, err);
}

colfs_status pq_variant_to_json_budget(const pq_variant_meta *m,
				       const uint8_t *v, size_t n,
				       size_t *budget, colfs_buf *out,
				       colfs_err *err)
{
	COLFS_TRY(value_json(m, v, n, 0, 0, budget, out, err));
	return colfs_buf_status(out);
}

/* ---- objects field by field ---------------------------------------------- */

colfs_status pq_variant_object_open(const uint8_t *v, size_t n,
				    pq_variant_object *o, colfs_err *err)
{
	nested_hdr h;
	size_t sz;

	memset(o, 0, sizeof *o);
	if (!pq_variant_is_object(v, n))
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value: an object expected, basic type %u found",
				  n ? v[0] & 3 : 0);
	COLFS_TRY(nested_parse(v, n, 0, &h, err));
	COLFS_TRY(size_at(v, n, 0, &sz, err));
	if (sz != n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value byte %zu: a value of %zu bytes in a slot of %zu",
				  (size_t)0, sz, n);
	o->ids = v + h.ids;
	o->offs = v + h.offs;
	o->fields = v + h.fields;
	o->fields_len = h.fields_len;
	o->n = h.count;
	o->id_size = (uint8_t)h.id_size;
	o->off_size = (uint8_t)h.off_size;
	return COLFS_OK;
}

colfs_status pq_variant_object_field(const pq_variant_object *o,
				     const pq_variant_meta *m, uint32_t i,
				     const uint8_t **key, size_t *klen,
				     const uint8_t **val, size_t *vlen,
				     colfs_err *err)
{
	size_t off, sz;

	if (i >= o->n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant object field %u of %u", i, o->n);
	COLFS_TRY(pq_variant_meta_key(m, le_u(o->ids + (size_t)i * o->id_size,
					       o->id_size), key, klen, err));
	off = le_u(o->offs + (size_t)i * o->off_size, o->off_size);
	if (off >= o->fields_len)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "variant value: element %u at offset %zu, the fields end at %zu",
				  i, off, o->fields_len);
	COLFS_TRY(size_at(o->fields + off, o->fields_len - off, off, &sz, err));
	*val = o->fields + off;
	*vlen = sz;
	return COLFS_OK;
}

/* colfs: a small bounded reader of flatbuffers, for Arrow IPC metadata.
 *
 * Debian 12 packages no C flatbuffers reader (flatcc is not in it), and
 * Arrow's metadata is a handful of tables, so the module reads the wire
 * format itself.  Every offset, vtable and vector is checked against the
 * buffer before it is followed: a bad flatbuffer reads as absent fields
 * (and `ok` false on the table that was refused), never outside `buf`.
 */
#ifndef COLFS_ARROW_FB_H
#define COLFS_ARROW_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct afb_table {
	const uint8_t *buf;
	size_t len;
	size_t pos;       /* the table's start */
	size_t vt;        /* its vtable's start */
	uint16_t vtlen;   /* bytes of the vtable */
	uint16_t tlen;    /* bytes of the table's inline part */
} afb_table;

typedef struct afb_vec {
	const uint8_t *buf;
	size_t len;
	size_t pos;       /* first element */
	uint32_t n;
} afb_vec;

static inline uint32_t afb_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t afb_u64(const uint8_t *p)
{
	return afb_u32(p) | (uint64_t)afb_u32(p + 4) << 32;
}

/* The table at `pos` (its vtable checked). */
static inline bool afb_table_at(const uint8_t *buf, size_t len, size_t pos,
				afb_table *t)
{
	memset(t, 0, sizeof(*t));
	if (pos > len || len - pos < 4 || (pos & 3))
		return false;
	int32_t so = (int32_t)afb_u32(buf + pos);
	int64_t vt = (int64_t)pos - so;
	if (vt < 0 || (uint64_t)vt > len || len - (uint64_t)vt < 4 || (vt & 1))
		return false;
	uint16_t vtlen = (uint16_t)(buf[vt] | buf[vt + 1] << 8);
	uint16_t tlen = (uint16_t)(buf[vt + 2] | buf[vt + 3] << 8);
	if (vtlen < 4 || (vtlen & 1) || (uint64_t)vt + vtlen > len ||
	    tlen < 4 || pos + tlen > len)
		return false;
	t->buf = buf;
	t->len = len;
	t->pos = pos;
	t->vt = (size_t)vt;
	t->vtlen = vtlen;
	t->tlen = tlen;
	return true;
}

/* The root table of a flatbuffer. */
static inline bool afb_root(const uint8_t *buf, size_t len, afb_table *t)
{
	if (len < 8)
		return false;
	return afb_table_at(buf, len, afb_u32(buf), t);
}

/* Where field `id` of `t` is, when it is present and `size` bytes fit
 * inside the table; else 0. */
static inline size_t afb_field(const afb_table *t, unsigned id, size_t size)
{
	if (!t->buf || 4 + 2 * (size_t)id + 2 > t->vtlen)
		return 0;
	const uint8_t *e = t->buf + t->vt + 4 + 2 * id;
	uint16_t off = (uint16_t)(e[0] | e[1] << 8);
	if (!off || (size_t)off + size > t->tlen)
		return 0;
	return t->pos + off;
}

static inline int64_t afb_int(const afb_table *t, unsigned id, size_t size,
			      bool is_signed, int64_t def)
{
	size_t p = afb_field(t, id, size);
	if (!p)
		return def;
	const uint8_t *b = t->buf + p;
	switch (size) {
	case 1: return is_signed ? (int8_t)b[0] : b[0];
	case 2: {
		uint16_t v = (uint16_t)(b[0] | b[1] << 8);
		return is_signed ? (int16_t)v : v;
	}
	case 4: return is_signed ? (int64_t)(int32_t)afb_u32(b)
				 : (int64_t)afb_u32(b);
	default: return (int64_t)afb_u64(b);
	}
}

/* The target of the offset field `id`: where it points, or 0. */
static inline size_t afb_deref(const afb_table *t, unsigned id)
{
	size_t p = afb_field(t, id, 4);
	if (!p)
		return 0;
	uint64_t tgt = (uint64_t)p + afb_u32(t->buf + p);
	if (tgt >= t->len)
		return 0;
	return (size_t)tgt;
}

static inline bool afb_sub(const afb_table *t, unsigned id, afb_table *out)
{
	size_t p = afb_deref(t, id);
	memset(out, 0, sizeof(*out));
	return p && afb_table_at(t->buf, t->len, p, out);
}

/* A vector of elements of `elem` bytes (4 for tables and strings). */
static inline bool afb_vector(const afb_table *t, unsigned id, size_t elem,
			      afb_vec *v)
{
	size_t p = afb_deref(t, id);
	memset(v, 0, sizeof(*v));
	if (!p || t->len - p < 4)
		return false;
	uint32_t n = afb_u32(t->buf + p);
	if ((uint64_t)n * elem > t->len - p - 4)
		return false;
	v->buf = t->buf;
	v->len = t->len;
	v->pos = p + 4;
	v->n = n;
	return true;
}

static inline bool afb_vec_table(const afb_vec *v, uint32_t i, afb_table *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= v->n)
		return false;
	size_t p = v->pos + 4 * (size_t)i;
	uint64_t tgt = (uint64_t)p + afb_u32(v->buf + p);
	return tgt < v->len && afb_table_at(v->buf, v->len, (size_t)tgt, out);
}

/* A string field: its bytes (not NUL-terminated in the buffer). */
static inline bool afb_string_at(const uint8_t *buf, size_t len, size_t p,
				 const char **s, size_t *n)
{
	if (!p || len - p < 4)
		return false;
	uint32_t k = afb_u32(buf + p);
	if (k > len - p - 4)
		return false;
	*s = (const char *)buf + p + 4;
	*n = k;
	return true;
}

static inline bool afb_string(const afb_table *t, unsigned id, const char **s,
			      size_t *n)
{
	return afb_string_at(t->buf, t->len, afb_deref(t, id), s, n);
}

static inline bool afb_vec_string(const afb_vec *v, uint32_t i, const char **s,
				  size_t *n)
{
	if (i >= v->n)
		return false;
	size_t p = v->pos + 4 * (size_t)i;
	uint64_t tgt = (uint64_t)p + afb_u32(v->buf + p);
	return tgt < v->len && afb_string_at(v->buf, v->len, (size_t)tgt, s, n);
}

#endif

/* colfs: a geometry in WKB rendered as WKT, as DuckDB 1.5 prints
 * geometry::VARCHAR (contract in render.h, rules in docs/values.md).
 *
 * One pass over the bytes, writing as it reads; on any fault the text
 * written so far is taken back (b->len reset), so a malformed value
 * appends nothing.  Every count is checked against the bytes left before
 * it drives a loop (a count of children cannot exceed the bytes left over
 * the smallest child), and nesting of collections is capped. */
#include "render.h"

#include <math.h>
#include <string.h>

/* Collections inside collections deeper than this are refused. */
#define WKB_MAX_DEPTH 64

/* The smallest encoding of any geometry: byte order, type, a count of
 * zero (an empty linestring, polygon or collection). */
#define WKB_MIN_GEOMETRY 9

enum {
	WKB_POINT = 1,
	WKB_LINESTRING,
	WKB_POLYGON,
	WKB_MULTIPOINT,
	WKB_MULTILINESTRING,
	WKB_MULTIPOLYGON,
	WKB_COLLECTION,
};

static const char *const wkb_names[] = {
	NULL, "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
	"MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
};

typedef struct wkb_reader {
	const uint8_t *p;
	size_t n, at;
	size_t bad_at;
	const char *why;
	colfs_buf *b;
} wkb_reader;

/* One geometry header: its kind, dimensions and byte order. */
typedef struct wkb_head {
	unsigned kind;
	bool z, m, le;
} wkb_head;

static bool wkb_fail(wkb_reader *w, size_t at, const char *why)
{
	w->bad_at = at;
	w->why = why;
	return false;
}

static bool wkb_u32(wkb_reader *w, bool le, uint32_t *v)
{
	if (w->n - w->at < 4)
		return wkb_fail(w, w->at, "WKB ends inside a 4-byte field");
	const uint8_t *q = w->p + w->at;
	*v = le ? (uint32_t)q[0] | (uint32_t)q[1] << 8 |
			  (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24
		: (uint32_t)q[3] | (uint32_t)q[2] << 8 |
			  (uint32_t)q[1] << 16 | (uint32_t)q[0] << 24;
	w->at += 4;
	return true;
}

static double wkb_f64_at(const uint8_t *q, bool le)
{
	uint64_t bits = 0;
	double d;

	for (int i = 0; i < 8; i++)
		bits |= (uint64_t)q[le ? i : 7 - i] << (8 * i);
	memcpy(&d, &bits, 8);
	return d;
}

/* A coordinate as DuckDB writes it in WKT: the shortest round-trip
 * digits of a double, without the ".0" DuckDB adds to integral doubles
 * elsewhere (1, -0, 1.5, 1e+16, 1e-05, nan, -nan, inf). */
static void wkb_put_coord(colfs_buf *b, double v)
{
	size_t start = b->len;

	if (isnan(v)) {
		/* the sign of a NaN shows, as in DuckDB's WKT */
		colfs_buf_puts(b, signbit(v) ? "-nan" : "nan");
		return;
	}
	colfs_render_double(b, &colfs_render_text_default, v);
	if (colfs_buf_status(b) != COLFS_OK || b->len - start < 2)
		return;
	if (memchr(b->data + start, 'e', b->len - start) == NULL &&
	    b->data[b->len - 2] == '.' && b->data[b->len - 1] == '0')
		b->len -= 2;
}

/* The header at w->at: byte order, then the type, ISO (+1000 Z, +2000 M,
 * +3000 ZM) or extended (flags 0x80000000 Z, 0x40000000 M, 0x20000000 an
 * SRID follows, skipped). */
static bool wkb_head_read(wkb_reader *w, wkb_head *h)
{
	size_t at = w->at;
	uint32_t t;

	if (w->at >= w->n)
		return wkb_fail(w, at, "WKB ends before a geometry");
	uint8_t order = w->p[w->at];
	if (order > 1)
		return wkb_fail(w, at, "WKB byte order is neither 0 nor 1");
	h->le = order == 1;
	w->at++;
	if (!wkb_u32(w, h->le, &t))
		return false;
	bool srid = t & 0x20000000u;
	h->z = t & 0x80000000u;
	h->m = t & 0x40000000u;
	uint32_t code = t & 0x0fffffffu;
	if ((t & 0x10000000u) || code % 1000 < WKB_POINT ||
	    code % 1000 > WKB_COLLECTION || code / 1000 > 3)
		return wkb_fail(w, at + 1, "WKB geometry type not supported");
	h->kind = code % 1000;
	h->z |= code / 1000 == 1 || code / 1000 == 3;
	h->m |= code / 1000 == 2 || code / 1000 == 3;
	if (srid) {
		uint32_t skip;
		if (!wkb_u32(w, h->le, &skip))
			return false;
	}
	return true;
}

static void wkb_put_dims(colfs_buf *b, const wkb_head *h)
{
	if (h->z && h->m)
		colfs_buf_puts(b, " ZM");
	else if (h->z)
		colfs_buf_puts(b, " Z");
	else if (h->m)
		colfs_buf_puts(b, " M");
}

/* `count` points of `dims` coordinates, each "x y[ z][ m]", separated by
 * ", ". */
static bool wkb_points(wkb_reader *w, const wkb_head *h, uint32_t count)
{
	size_t dims = 2 + h->z + h->m;

	if ((w->n - w->at) / (8 * dims) < count)
		return wkb_fail(w, w->at - 4,
				"WKB point count larger than the bytes left");
	for (uint32_t i = 0; i < count; i++) {
		if (i)
			colfs_buf_append(w->b, ", ", 2);
		for (size_t d = 0; d < dims; d++) {
			if (d)
				colfs_buf_putc(w->b, ' ');
			wkb_put_coord(w->b, wkb_f64_at(w->p + w->at, h->le));
			w->at += 8;
		}
	}
	return true;
}

/* A point's coordinates; all NaN is an empty point. */
static bool wkb_point_body(wkb_reader *w, const wkb_head *h, bool *empty)
{
	size_t dims = 2 + h->z + h->m;

	if (w->n - w->at < 8 * dims)
		return wkb_fail(w, w->at, "WKB ends inside a point");
	*empty = true;
	for (size_t d = 0; d < dims; d++)
		if (!isnan(wkb_f64_at(w->p + w->at + 8 * d, h->le)))
			*empty = false;
	if (*empty) {
		w->at += 8 * dims;
		colfs_buf_puts(w->b, "EMPTY");
		return true;
	}
	return wkb_points(w, h, 1);
}

/* A count whose items take at least `min_item` bytes each. */
static bool wkb_count(wkb_reader *w, bool le, size_t min_item,
		      uint32_t *count, const char *what)
{
	size_t at = w->at;

	if (!wkb_u32(w, le, count))
		return false;
	if ((w->n - w->at) / min_item < *count)
		return wkb_fail(w, at, what);
	return true;
}

static bool wkb_geometry(wkb_reader *w, const wkb_head *outer,
			 unsigned want, unsigned depth, bool named);

/* The body of a geometry after its header: "EMPTY" or "(...)". */
static bool wkb_body(wkb_reader *w, const wkb_head *h, unsigned depth)
{
	colfs_buf *b = w->b;
	uint32_t count;
	bool empty;

	switch (h->kind) {
	case WKB_POINT: {
		size_t at = b->len;
		colfs_buf_putc(b, '(');
		if (!wkb_point_body(w, h, &empty))
			return false;
		if (empty) {
			/* "(EMPTY" becomes "EMPTY" */
			if (colfs_buf_status(b) == COLFS_OK) {
				memmove(b->data + at, b->data + at + 1,
					b->len - at - 1);
				b->len--;
			}
		} else {
			colfs_buf_putc(b, ')');
		}
		return true;
	}
	case WKB_LINESTRING:
		if (!wkb_u32(w, h->le, &count))
			return false;
		if (count == 0) {
			colfs_buf_puts(b, "EMPTY");
			return true;
		}
		colfs_buf_putc(b, '(');
		if (!wkb_points(w, h, count))
			return false;
		colfs_buf_putc(b, ')');
		return true;
	case WKB_POLYGON:
		if (!wkb_count(w, h->le, 4, &count,
			       "WKB ring count larger than the bytes left"))
			return false;
		if (count == 0) {
			colfs_buf_puts(b, "EMPTY");
			return true;
		}
		colfs_buf_putc(b, '(');
		for (uint32_t i = 0; i < count; i++) {
			uint32_t np;
			if (i)
				colfs_buf_append(b, ", ", 2);
			if (!wkb_u32(w, h->le, &np))
				return false;
			if (np == 0) {
				colfs_buf_puts(b, "EMPTY");
				continue;
			}
			colfs_buf_putc(b, '(');
			if (!wkb_points(w, h, np))
				return false;
			colfs_buf_putc(b, ')');
		}
		colfs_buf_putc(b, ')');
		return true;
	default:
		break;
	}
	/* multi-geometries and collections */
	if (depth >= WKB_MAX_DEPTH)
		return wkb_fail(w, w->at, "WKB nested deeper than 64 levels");
	if (!wkb_count(w, h->le, WKB_MIN_GEOMETRY, &count,
		       "WKB geometry count larger than the bytes left"))
		return false;
	if (count == 0) {
		colfs_buf_puts(b, "EMPTY");
		return true;
	}
	unsigned want = h->kind == WKB_COLLECTION ? 0 : h->kind - 3;
	colfs_buf_putc(b, '(');
	for (uint32_t i = 0; i < count; i++) {
		if (i)
			colfs_buf_append(b, ", ", 2);
		if (!wkb_geometry(w, h, want, depth + 1,
				  h->kind == WKB_COLLECTION))
			return false;
	}
	colfs_buf_putc(b, ')');
	return true;
}

/* One geometry: header then body.  Inside a multi-geometry (`want` the
 * member kind) the member is written without its name, a point without
 * its parentheses; a member's dimensions must be its parent's. */
static bool wkb_geometry(wkb_reader *w, const wkb_head *outer,
			 unsigned want, unsigned depth, bool named)
{
	size_t at = w->at;
	wkb_head h;

	if (!wkb_head_read(w, &h))
		return false;
	if (want && h.kind != want)
		return wkb_fail(w, at + 1,
				"WKB multi-geometry member of another type");
	if (outer && (h.z != outer->z || h.m != outer->m))
		return wkb_fail(w, at + 1,
				"WKB member's Z/M dimensions differ from its "
				"collection's");
	if (named) {
		colfs_buf_puts(w->b, wkb_names[h.kind]);
		wkb_put_dims(w->b, &h);
		colfs_buf_putc(w->b, ' ');
		return wkb_body(w, &h, depth);
	}
	if (h.kind == WKB_POINT) {
		bool empty;
		return wkb_point_body(w, &h, &empty);
	}
	return wkb_body(w, &h, depth);
}

colfs_status colfs_render_wkb(colfs_buf *b, const colfs_render *r,
			      const uint8_t *wkb, size_t n, size_t *bad_at,
			      const char **why)
{
	size_t start = b->len;
	bool json = r && r->json;
	wkb_reader w = { wkb, n, 0, 0, NULL, b };

	if (json)
		colfs_buf_putc(b, '"');
	bool ok = wkb_geometry(&w, NULL, 0, 0, true);
	if (ok && w.at != n)
		ok = wkb_fail(&w, w.at, "WKB has bytes after its geometry");
	if (!ok) {
		if (colfs_buf_status(b) == COLFS_OK)
			b->len = start;
		if (bad_at)
			*bad_at = w.bad_at;
		if (why)
			*why = w.why;
		return COLFS_ECORRUPT;
	}
	if (json)
		colfs_buf_putc(b, '"');
	return COLFS_OK;
}

void colfs_wkb_scan_value(colfs_wkb_scan *sc, size_t i, const uint8_t *p,
			  size_t n)
{
	size_t at;
	const char *why;

	sc->tmp.len = 0;
	if (colfs_render_wkb(&sc->tmp, &colfs_render_text_default, p, n, &at,
			     &why) == COLFS_OK)
		return;
	if (!sc->bad++) {
		sc->first = i;
		sc->first_ptr = p;
		sc->at = at;
		sc->why = why;
	}
}

void colfs_wkb_scan_done(colfs_wkb_scan *sc)
{
	colfs_buf_free(&sc->tmp);
}

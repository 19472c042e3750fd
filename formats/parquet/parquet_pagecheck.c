/* colfs: what a decoded Parquet page's values say about the page
 * (parquet_pagecheck.h). */
#include "parquet_pagecheck.h"
#include "parquet_annot.h"

/* A GEOMETRY/GEOGRAPHY (or GeoParquet WKB) page's values: the first
 * malformed WKB of the page is reported (the value itself shows as its
 * bytes, docs/values.md), at its byte offset in the file when the page
 * is stored uncompressed, else at the page's data with the offset inside
 * the decompressed bytes. */
static void check_wkb(colfs_tree *t, const parquet_region_state *s,
		      uint32_t g, uint32_t c, size_t k,
		      const colfs_node *where, const parquet_chunk *ch,
		      const parquet_column *col, const pq_values *v,
		      const uint8_t *buf, size_t buf_len, uint64_t off,
		      const char *what)
{
	int32_t logical = col->elem->logical.kind;
	colfs_wkb_scan sc = {0};
	size_t rel;

	if (col->elem->geoparquet_wkb && !logical)
		logical = PARQUET_LT_GEOMETRY;
	if ((logical != PARQUET_LT_GEOMETRY &&
	     logical != PARQUET_LT_GEOGRAPHY) || v->indices ||
	    v->physical_type != PARQUET_BYTE_ARRAY)
		return;
	size_t o = 0;   /* in_page: the next value's offset */
	for (size_t i = 0; i < v->count; i++) {
		pq_bytes x = v->in_page ? pq_values_in_page_next(v, &o)
					: v->v.bytes[i];
		colfs_wkb_scan_value(&sc, i, x.ptr, x.len);
	}
	colfs_wkb_scan_done(&sc);
	if (!sc.bad)
		return;
	rel = buf && sc.first_ptr >= buf && sc.first_ptr <= buf + buf_len
	      ? (size_t)(sc.first_ptr - buf) + sc.at : SIZE_MAX;
	colfs_err e = {0};
	if (rel != SIZE_MAX && ch->codec == PARQUET_CODEC_UNCOMPRESSED)
		colfs_fail(&e, COLFS_ECORRUPT, off + rel,
			   "%s value %zu: malformed WKB (%s, byte %zu of the value)%s: shown as its bytes",
			   what, sc.first, sc.why, sc.at,
			   sc.bad > 1 ? " and more in the page" : "");
	else
		colfs_fail(&e, COLFS_ECORRUPT, off,
			   "%s value %zu: malformed WKB (%s, byte %zu of the value, byte %zu of the decompressed page)%s: shown as its bytes",
			   what, sc.first, sc.why, sc.at, rel == SIZE_MAX ? 0 : rel,
			   sc.bad > 1 ? " and more in the page" : "");
	parquet_region_part_report(t, s, g, c, k, where, &e);
}

/* Bytes of the page that no declared value takes, after the last. */
static void check_left(colfs_tree *t, const parquet_region_state *s,
		       uint32_t g, uint32_t c, size_t k,
		       const colfs_node *where, const parquet_chunk *ch,
		       const parquet_page *pg, int32_t encoding,
		       const pq_values *v, size_t buf_len, size_t left,
		       const char *what)
{
	const uint64_t off = pg->offset + pg->hdr.header_len;
	/* the page's bytes are its stored bytes: a file offset names them */
	const bool stored = !ch->dek &&
		(ch->codec == PARQUET_CODEC_UNCOMPRESSED ||
		 (pg->hdr.type == PARQUET_PAGE_DATA_V2 && !pg->hdr.is_compressed));
	const size_t rel = buf_len - left;
	const char *enc = encoding == PARQUET_ENC_PLAIN ? "PLAIN"
						      : "BYTE_STREAM_SPLIT";
	colfs_err e = {0};

	if (!left || left > buf_len ||
	    (encoding != PARQUET_ENC_PLAIN &&
	     encoding != PARQUET_ENC_BYTE_STREAM_SPLIT))
		return;
	if (stored)
		colfs_fail(&e, COLFS_ECORRUPT, off + rel,
			   "%s: %zu bytes after its %zu %s values belong to no value (the page holds %zu bytes, its values end at byte %zu)",
			   what, left, v->count, enc, buf_len, rel);
	else
		colfs_fail(&e, COLFS_ECORRUPT, off,
			   "%s: %zu bytes after its %zu %s values belong to no value (the decompressed page holds %zu bytes, its values end at byte %zu)",
			   what, left, v->count, enc, buf_len, rel);
	parquet_region_part_report(t, s, g, c, k, where, &e);
}

/* TIME values are a time of day: from 0 to a day in their unit (a day's
 * end, 24:00:00, included). */
static void check_time(colfs_tree *t, const parquet_region_state *s,
		       uint32_t g, uint32_t c, size_t k,
		       const colfs_node *where, const parquet_page *pg,
		       const parquet_column *col, const pq_values *v,
		       const char *what)
{
	const char *unit = NULL;
	const int64_t day = parquet_annot_time_day(col->elem, &unit);
	size_t bad = 0, first = 0;
	int64_t first_v = 0;
	colfs_err e = {0};

	if (!day || v->indices || v->in_page ||
	    (v->physical_type != PARQUET_INT32 &&
	     v->physical_type != PARQUET_INT64))
		return;
	for (size_t i = 0; i < v->count; i++) {
		int64_t x = v->physical_type == PARQUET_INT32 ? v->v.i32[i]
							      : v->v.i64[i];
		if (x >= 0 && x <= day)
			continue;
		if (!bad++) {
			first = i;
			first_v = x;
		}
	}
	if (!bad)
		return;
	colfs_fail(&e, COLFS_ECORRUPT, pg->offset + pg->hdr.header_len,
		   "%s: %zu of its %zu TIME(%s) values are outside a day (0 to %lld), the first is value %zu, %lld: shown as they are",
		   what, bad, v->count, unit, (long long)day, first,
		   (long long)first_v);
	parquet_region_part_report(t, s, g, c, k, where, &e);
}

void parquet_pagecheck(colfs_tree *t, const parquet_region_state *s,
		       uint32_t g, uint32_t c, size_t k,
		       const colfs_node *where, const parquet_chunk *ch,
		       const parquet_page *pg, const parquet_column *col,
		       int32_t encoding, const pq_values *v,
		       const uint8_t *buf, size_t buf_len, size_t left,
		       const char *what)
{
	check_wkb(t, s, g, c, k, where, ch, col, v, buf, buf_len,
		  pg->offset + pg->hdr.header_len, what);
	check_left(t, s, g, c, k, where, ch, pg, encoding, v, buf_len, left,
		   what);
	check_time(t, s, g, c, k, where, pg, col, v, what);
}

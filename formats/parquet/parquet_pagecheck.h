/* colfs: what a decoded Parquet page's values say about the page
 * (parquet_pagecheck.c; module-private).
 *
 * Checks a page that decoded: malformed WKB in a GEOMETRY or GEOGRAPHY
 * page, bytes after its declared values that no value takes (PLAIN and BYTE_STREAM_SPLIT give each value its bytes, so
 * whatever follows the last one is not data of the page: an INT32 page
 * holding 8-byte values decodes the first half as values and leaves the
 * second), and TIME values outside a day.  Each is a problem of the page;
 * the values are shown as they decoded.
 */
#ifndef COLFS_PARQUET_PAGECHECK_H
#define COLFS_PARQUET_PAGECHECK_H

#include "parquet_region.h"
#include "decode/pq_decode.h"

/* Page k of chunk (g, c) (`pg`, of column `col`), decoded with
 * `encoding` into `v` from its `buf_len` decompressed bytes at `buf`, of
 * which `left` were not read; `what` is "data page" or "dictionary page".
 * Problems are filed under the page (`where` when it has no path). */
void parquet_pagecheck(colfs_tree *t, const parquet_region_state *s,
		       uint32_t g, uint32_t c, size_t k,
		       const colfs_node *where, const parquet_chunk *ch,
		       const parquet_page *pg, const parquet_column *col,
		       int32_t encoding, const pq_values *v,
		       const uint8_t *buf, size_t buf_len, size_t left,
		       const char *what);

#endif

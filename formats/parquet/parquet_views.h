/* colfs: the Parquet value views (module-private; parquet_views_int.h
 * names the files they live in; docs/parquet-tree.md lists them).  Each
 * function adds its entries to `dir`. */
#ifndef COLFS_PARQUET_VIEWS_H
#define COLFS_PARQUET_VIEWS_H

#include "parquet_pages.h"

/* values, levels, dictionary of chunk (g, c). */
colfs_status parquet_views_chunk_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 uint32_t g, uint32_t c);
/* decompressed, values, levels of page k of chunk (g, c). */
colfs_status parquet_views_page_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				uint32_t g, uint32_t c, size_t k);
/* The rows page k of leaf `leaf`'s chunk (walk w) holds, as -o
 * on_damage replaces or leaves them out when the page cannot be decoded:
 * a flat leaf's num_values; a repeated leaf's num_rows of a data page v2
 * when the leaf is its top-level field's only one; else -1 (not known
 * without decoding the page).  For colfs-tool check too. */
int64_t parquet_views_page_rows(const parquet_file *pf, uint32_t leaf,
				const parquet_pages_list *w, size_t k);

/* columns/, rows.jsonl and rows.csv over all row groups (g < 0) or over
 * row group g. */
colfs_status parquet_views_table_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 int64_t g);

/* arrays/ (parquet_arrays.c) over all row groups (g < 0) or over row
 * group g. */
colfs_status parquet_arrays_add(colfs_tree *t, colfs_node *dir,
				parquet_region_state *s, int64_t g);

#endif

/* colfs: the typed index documents of a chunk (parquet_stats.c;
 * module-private).  Node args: a = row group, b = chunk. */
#ifndef COLFS_PARQUET_STATS_H
#define COLFS_PARQUET_STATS_H

#include "parquet_region.h"

/* column_index.json: the ColumnIndex with min_values/max_values rendered
 * by the column's type (null for null pages). */
colfs_status parquet_stats_column_index_gen(colfs_tree *t, colfs_node *file,
				  colfs_buf *out);

/* statistics.json: the Statistics with min/max rendered as the value
 * files render them (JSON mode) and the raw bytes in hex. */
colfs_status parquet_stats_statistics_gen(colfs_tree *t, colfs_node *file,
				colfs_buf *out);

#endif

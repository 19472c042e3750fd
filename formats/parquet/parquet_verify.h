/* colfs: a chunk's `verify` (parquet_verify.c; module-private). */
#ifndef COLFS_PARQUET_VERIFY_H
#define COLFS_PARQUET_VERIFY_H

#include "parquet_region.h"

/* A chunk's statistics, column index, offset index and row count checked
 * against its decoded pages; disagreements are reported under the chunk.
 * Node args: a = row group, b = chunk. */
colfs_status parquet_verify_gen(colfs_tree *t, colfs_node *file, colfs_buf *out);

#endif

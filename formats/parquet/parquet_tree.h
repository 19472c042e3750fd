/* colfs: the Parquet metadata tree (parquet_tree.c; module-private). */
#ifndef COLFS_PARQUET_TREE_H
#define COLFS_PARQUET_TREE_H

#include "parquet_region.h"

/* The root's entries: README, format, summary, schema, schema.json,
 * metadata.json, key_value/, layout, errors, raw/, row_groups/, columns/,
 * rows.*, and salvage/ when the footer is unusable.  The page pipeline
 * (s->values) exists already. */
colfs_status parquet_tree_root_add(colfs_tree *t, colfs_node *root, parquet_region_state *s);

/* parquet_xattr.c: the extended attributes of row group, chunk and page
 * directories (tree.h `xattrs`). */
colfs_status parquet_xattr_rg(colfs_tree *t, colfs_node *n, colfs_xattrs *x);
colfs_status parquet_xattr_chunk(colfs_tree *t, colfs_node *n, colfs_xattrs *x);
colfs_status parquet_xattr_page(colfs_tree *t, colfs_node *n, colfs_xattrs *x);

#endif

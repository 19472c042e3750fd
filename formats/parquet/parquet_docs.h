/* colfs: the generated documents of the Parquet tree (parquet_docs.c;
 * module-private): summary, README, schema, schema.json, layout. */
#ifndef COLFS_PARQUET_DOCS_H
#define COLFS_PARQUET_DOCS_H

#include "parquet_region.h"

colfs_status parquet_docs_summary_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status parquet_docs_readme_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status parquet_docs_schema_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status parquet_docs_schema_json_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status parquet_docs_layout_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);

/* The parquet-mr style annotation of a schema element ("STRING",
 * "DECIMAL(9,2)", "TIMESTAMP(MICROS,true)"), appended to `b`; nothing when
 * the element has none.  Returns true when it wrote something. */
bool parquet_docs_annotation(colfs_buf *b, const parquet_schema_elem *e);

#endif

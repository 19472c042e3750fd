/* colfs: the Parquet Thrift structures as JSON documents (parquet_json.c;
 * module-private).  Node args: a = row group, b = chunk, c = page. */
#ifndef COLFS_PARQUET_JSON_H
#define COLFS_PARQUET_JSON_H

#include "parquet_region.h"

/* metadata.json: FileMetaData. */
colfs_status parquet_json_metadata_gen(colfs_tree *t, colfs_node *file,
				       colfs_buf *out);
/* Whether this file's metadata.json is a stream of one piece a row group
 * (a large footer: parquet_region_footer_large). */
bool parquet_json_metadata_streams(const parquet_region_state *s);
/* Its pieces: the same bytes as parquet_json_metadata_gen. */
colfs_status parquet_json_metadata_piece(colfs_tree *t, colfs_node *file,
					 uint64_t index, colfs_buf *out);
/* A row group's meta.json: its RowGroup (without the chunks). */
colfs_status parquet_json_rg_meta_gen(colfs_tree *t, colfs_node *file,
				      colfs_buf *out);
/* A chunk's meta.json: its ColumnChunk. */
colfs_status parquet_json_chunk_meta_gen(colfs_tree *t, colfs_node *file,
					 colfs_buf *out);
/* The Thrift struct `d` in the file region [off, off + len) as JSON;
 * a problem is reported under `file`. */
colfs_status parquet_json_region_doc(colfs_tree *t, colfs_node *file,
				     colfs_buf *out, uint64_t off,
				     uint64_t len,
				     const colfs_thrift_sdesc *d);
/* A chunk's offset_index.json. */
colfs_status parquet_json_offset_index_gen(colfs_tree *t, colfs_node *file,
					   colfs_buf *out);
/* A page's header.json: its PageHeader. */
colfs_status parquet_json_page_header_gen(colfs_tree *t, colfs_node *file,
					  colfs_buf *out);

#endif

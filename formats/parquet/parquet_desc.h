/* colfs: the names of parquet.thrift's enum values and the descriptors of
 * its structs, for the JSON views (parquet_desc.c; module-private). */
#ifndef COLFS_PARQUET_DESC_H
#define COLFS_PARQUET_DESC_H

#include "parquet.h"

/* Enum names by value (NULL holes for unused values). */
#define PARQUET_ENUM(name) \
	extern const char *const name[]; extern const uint16_t name##_n
PARQUET_ENUM(parquet_type_names);
PARQUET_ENUM(parquet_converted_names);
PARQUET_ENUM(parquet_repetition_names);
PARQUET_ENUM(parquet_encoding_names);
PARQUET_ENUM(parquet_codec_names);
PARQUET_ENUM(parquet_page_type_names);
PARQUET_ENUM(parquet_boundary_order_names);
PARQUET_ENUM(parquet_edge_algorithm_names);
#undef PARQUET_ENUM

/* Descriptors of the parquet.thrift structs (parquet_desc.c). */
extern const colfs_thrift_sdesc parquet_desc_file_metadata;
extern const colfs_thrift_sdesc parquet_desc_file_crypto_metadata;
extern const colfs_thrift_sdesc parquet_desc_row_group;
extern const colfs_thrift_sdesc parquet_desc_column_chunk;
extern const colfs_thrift_sdesc parquet_desc_column_metadata;
extern const colfs_thrift_sdesc parquet_desc_statistics;
extern const colfs_thrift_sdesc parquet_desc_page_header;
extern const colfs_thrift_sdesc parquet_desc_column_index;
extern const colfs_thrift_sdesc parquet_desc_offset_index;
extern const colfs_thrift_sdesc parquet_desc_bloom_filter_header;
extern const colfs_thrift_sdesc parquet_desc_schema_element;
extern const colfs_thrift_sdesc parquet_desc_logical_type;

#endif

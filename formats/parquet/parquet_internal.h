/* colfs: what the Parquet module's files share among themselves (not for
 * the value decoders: use parquet.h). */
#ifndef COLFS_PARQUET_INTERNAL_H
#define COLFS_PARQUET_INTERNAL_H

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

/* Wire type `got` fits a field declared `want` (any integer width fits an
 * integer field; a set fits a list).  Fields that do not fit are skipped
 * by the typed parsers, as Thrift-generated readers do (some writers reuse
 * field ids with other types); the JSON views show them as field_<id>. */
static inline bool parquet_wire_fits(uint8_t want, uint8_t got)
{
	if (want >= COLFS_THRIFT_BYTE && want <= COLFS_THRIFT_I64)
		return got >= COLFS_THRIFT_BYTE && got <= COLFS_THRIFT_I64;
	if (want == COLFS_THRIFT_LIST)
		return got == COLFS_THRIFT_LIST || got == COLFS_THRIFT_SET;
	return want == got;
}

/* A table of declared wire types by field id (0: unknown field). */
static inline bool parquet_misfit(const uint8_t *tab, size_t n, int16_t id,
				  uint8_t got)
{
	return id > 0 && (size_t)id < n && tab[id] &&
	       !parquet_wire_fits(tab[id], got);
}
#define PARQUET_MISFIT(tab, f) \
	parquet_misfit(tab, sizeof(tab), (f).id, (f).type)

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

/* colfs: descriptors of every struct of parquet.thrift, for the JSON views
 * (metadata.json, meta.json, header.json, ...), and the enum names of
 * parquet.h (parquet_type_name ...).  Field ids, names and types
 * follow apache/parquet-format src/main/thrift/parquet.thrift. */
#include "parquet_desc.h"
#include "parquet.h"

#define N(a) ((uint16_t)(sizeof(a) / sizeof((a)[0])))

#define ENUM_TABLE(var, ...)                                                \
	const char *const var[] = {__VA_ARGS__};                            \
	const uint16_t var##_n = N(var)

ENUM_TABLE(parquet_type_names, "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT",
	   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY");
ENUM_TABLE(parquet_converted_names, "UTF8", "MAP", "MAP_KEY_VALUE", "LIST",
	   "ENUM", "DECIMAL", "DATE", "TIME_MILLIS", "TIME_MICROS",
	   "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16",
	   "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON",
	   "BSON", "INTERVAL");
ENUM_TABLE(parquet_repetition_names, "REQUIRED", "OPTIONAL", "REPEATED");
ENUM_TABLE(parquet_encoding_names, "PLAIN", "GROUP_VAR_INT",
	   "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
	   "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",
	   "BYTE_STREAM_SPLIT");
ENUM_TABLE(parquet_codec_names, "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
	   "BROTLI", "LZ4", "ZSTD", "LZ4_RAW");
ENUM_TABLE(parquet_page_type_names, "DATA_PAGE", "INDEX_PAGE",
	   "DICTIONARY_PAGE", "DATA_PAGE_V2");
ENUM_TABLE(parquet_boundary_order_names, "UNORDERED", "ASCENDING",
	   "DESCENDING");
ENUM_TABLE(parquet_edge_algorithm_names, "SPHERICAL", "VINCENTY", "THOMAS",
	   "ANDOYER", "KARNEY");

#define T(x) COLFS_THRIFT_##x
/* scalar */
#define F(id, name, type) {id, name, T(type), 0, NULL, NULL, 0}
/* i32 enum */
#define FE(id, name, tab) {id, name, T(I32), 0, NULL, tab, tab##_n}
/* nested struct / union */
#define FS(id, name, sub) {id, name, T(STRUCT), 0, &sub, NULL, 0}
/* list of scalars */
#define FL(id, name, elem) {id, name, T(LIST), T(elem), NULL, NULL, 0}
/* list of enums */
#define FLE(id, name, tab) {id, name, T(LIST), T(I32), NULL, tab, tab##_n}
/* list of structs */
#define FLS(id, name, sub) {id, name, T(LIST), T(STRUCT), &sub, NULL, 0}

#define STRUCT(var, name, ...)                                              \
	static const colfs_thrift_fdesc var##_fields[] = {__VA_ARGS__};     \
	static const colfs_thrift_sdesc var = {name, var##_fields,          \
					       N(var##_fields)}
#define EMPTY(var, name) static const colfs_thrift_sdesc var = {name, NULL, 0}
#define PUBLIC_STRUCT(var, name, ...)                                       \
	static const colfs_thrift_fdesc var##_fields[] = {__VA_ARGS__};     \
	const colfs_thrift_sdesc var = {name, var##_fields, N(var##_fields)}

STRUCT(d_size_statistics, "SizeStatistics",
       F(1, "unencoded_byte_array_data_bytes", I64),
       FL(2, "repetition_level_histogram", I64),
       FL(3, "definition_level_histogram", I64));
STRUCT(d_bounding_box, "BoundingBox",
       F(1, "xmin", DOUBLE), F(2, "xmax", DOUBLE), F(3, "ymin", DOUBLE),
       F(4, "ymax", DOUBLE), F(5, "zmin", DOUBLE), F(6, "zmax", DOUBLE),
       F(7, "mmin", DOUBLE), F(8, "mmax", DOUBLE));
STRUCT(d_geospatial_statistics, "GeospatialStatistics",
       FS(1, "bbox", d_bounding_box), FL(2, "geospatial_types", I32));
PUBLIC_STRUCT(parquet_desc_statistics, "Statistics",
	      F(1, "max", BINARY), F(2, "min", BINARY),
	      F(3, "null_count", I64), F(4, "distinct_count", I64),
	      F(5, "max_value", BINARY), F(6, "min_value", BINARY),
	      F(7, "is_max_value_exact", BOOL),
	      F(8, "is_min_value_exact", BOOL), F(9, "nan_count", I64));

EMPTY(d_string_type, "StringType");
EMPTY(d_uuid_type, "UUIDType");
EMPTY(d_map_type, "MapType");
EMPTY(d_list_type, "ListType");
EMPTY(d_enum_type, "EnumType");
EMPTY(d_date_type, "DateType");
EMPTY(d_float16_type, "Float16Type");
EMPTY(d_null_type, "NullType");
EMPTY(d_json_type, "JsonType");
EMPTY(d_file_type, "FileType");
EMPTY(d_bson_type, "BsonType");
EMPTY(d_milli_seconds, "MilliSeconds");
EMPTY(d_micro_seconds, "MicroSeconds");
EMPTY(d_nano_seconds, "NanoSeconds");
STRUCT(d_decimal_type, "DecimalType",
       F(1, "scale", I32), F(2, "precision", I32));
STRUCT(d_time_unit, "TimeUnit",
       FS(1, "MILLIS", d_milli_seconds), FS(2, "MICROS", d_micro_seconds),
       FS(3, "NANOS", d_nano_seconds));
STRUCT(d_timestamp_type, "TimestampType",
       F(1, "isAdjustedToUTC", BOOL), FS(2, "unit", d_time_unit));
STRUCT(d_time_type, "TimeType",
       F(1, "isAdjustedToUTC", BOOL), FS(2, "unit", d_time_unit));
STRUCT(d_int_type, "IntType", F(1, "bitWidth", BYTE), F(2, "isSigned", BOOL));
STRUCT(d_variant_type, "VariantType", F(1, "specification_version", BYTE));
STRUCT(d_geometry_type, "GeometryType", F(1, "crs", BINARY));
STRUCT(d_geography_type, "GeographyType",
       F(1, "crs", BINARY), FE(2, "algorithm", parquet_edge_algorithm_names));
PUBLIC_STRUCT(parquet_desc_logical_type, "LogicalType",
	      FS(1, "STRING", d_string_type), FS(2, "MAP", d_map_type),
	      FS(3, "LIST", d_list_type), FS(4, "ENUM", d_enum_type),
	      FS(5, "DECIMAL", d_decimal_type), FS(6, "DATE", d_date_type),
	      FS(7, "TIME", d_time_type), FS(8, "TIMESTAMP", d_timestamp_type),
	      FS(10, "INTEGER", d_int_type), FS(11, "UNKNOWN", d_null_type),
	      FS(12, "JSON", d_json_type), FS(13, "BSON", d_bson_type),
	      FS(14, "UUID", d_uuid_type), FS(15, "FLOAT16", d_float16_type),
	      FS(16, "VARIANT", d_variant_type),
	      FS(17, "GEOMETRY", d_geometry_type),
	      FS(18, "GEOGRAPHY", d_geography_type),
	      FS(19, "FILE", d_file_type));
PUBLIC_STRUCT(parquet_desc_schema_element, "SchemaElement",
	      FE(1, "type", parquet_type_names), F(2, "type_length", I32),
	      FE(3, "repetition_type", parquet_repetition_names),
	      F(4, "name", BINARY), F(5, "num_children", I32),
	      FE(6, "converted_type", parquet_converted_names),
	      F(7, "scale", I32), F(8, "precision", I32),
	      F(9, "field_id", I32),
	      FS(10, "logicalType", parquet_desc_logical_type));

STRUCT(d_data_page_header, "DataPageHeader",
       F(1, "num_values", I32), FE(2, "encoding", parquet_encoding_names),
       FE(3, "definition_level_encoding", parquet_encoding_names),
       FE(4, "repetition_level_encoding", parquet_encoding_names),
       FS(5, "statistics", parquet_desc_statistics));
EMPTY(d_index_page_header, "IndexPageHeader");
STRUCT(d_dictionary_page_header, "DictionaryPageHeader",
       F(1, "num_values", I32), FE(2, "encoding", parquet_encoding_names),
       F(3, "is_sorted", BOOL));
STRUCT(d_data_page_header_v2, "DataPageHeaderV2",
       F(1, "num_values", I32), F(2, "num_nulls", I32), F(3, "num_rows", I32),
       FE(4, "encoding", parquet_encoding_names),
       F(5, "definition_levels_byte_length", I32),
       F(6, "repetition_levels_byte_length", I32),
       F(7, "is_compressed", BOOL),
       FS(8, "statistics", parquet_desc_statistics));
PUBLIC_STRUCT(parquet_desc_page_header, "PageHeader",
	      FE(1, "type", parquet_page_type_names),
	      F(2, "uncompressed_page_size", I32),
	      F(3, "compressed_page_size", I32), F(4, "crc", I32),
	      FS(5, "data_page_header", d_data_page_header),
	      FS(6, "index_page_header", d_index_page_header),
	      FS(7, "dictionary_page_header", d_dictionary_page_header),
	      FS(8, "data_page_header_v2", d_data_page_header_v2));

EMPTY(d_split_block_algorithm, "SplitBlockAlgorithm");
STRUCT(d_bloom_filter_algorithm, "BloomFilterAlgorithm",
       FS(1, "BLOCK", d_split_block_algorithm));
EMPTY(d_xxhash, "XxHash");
STRUCT(d_bloom_filter_hash, "BloomFilterHash", FS(1, "XXHASH", d_xxhash));
EMPTY(d_uncompressed, "Uncompressed");
STRUCT(d_bloom_filter_compression, "BloomFilterCompression",
       FS(1, "UNCOMPRESSED", d_uncompressed));
PUBLIC_STRUCT(parquet_desc_bloom_filter_header, "BloomFilterHeader",
	      F(1, "numBytes", I32),
	      FS(2, "algorithm", d_bloom_filter_algorithm),
	      FS(3, "hash", d_bloom_filter_hash),
	      FS(4, "compression", d_bloom_filter_compression));

STRUCT(d_key_value, "KeyValue", F(1, "key", BINARY), F(2, "value", BINARY));
STRUCT(d_sorting_column, "SortingColumn",
       F(1, "column_idx", I32), F(2, "descending", BOOL),
       F(3, "nulls_first", BOOL));
STRUCT(d_page_encoding_stats, "PageEncodingStats",
       FE(1, "page_type", parquet_page_type_names),
       FE(2, "encoding", parquet_encoding_names), F(3, "count", I32));
PUBLIC_STRUCT(parquet_desc_column_metadata, "ColumnMetaData",
	      FE(1, "type", parquet_type_names),
	      FLE(2, "encodings", parquet_encoding_names),
	      FL(3, "path_in_schema", BINARY),
	      FE(4, "codec", parquet_codec_names), F(5, "num_values", I64),
	      F(6, "total_uncompressed_size", I64),
	      F(7, "total_compressed_size", I64),
	      FLS(8, "key_value_metadata", d_key_value),
	      F(9, "data_page_offset", I64), F(10, "index_page_offset", I64),
	      F(11, "dictionary_page_offset", I64),
	      FS(12, "statistics", parquet_desc_statistics),
	      FLS(13, "encoding_stats", d_page_encoding_stats),
	      F(14, "bloom_filter_offset", I64),
	      F(15, "bloom_filter_length", I32),
	      FS(16, "size_statistics", d_size_statistics),
	      FS(17, "geospatial_statistics", d_geospatial_statistics));
EMPTY(d_encryption_with_footer_key, "EncryptionWithFooterKey");
STRUCT(d_encryption_with_column_key, "EncryptionWithColumnKey",
       FL(1, "path_in_schema", BINARY), F(2, "key_metadata", BINARY));
STRUCT(d_column_crypto_metadata, "ColumnCryptoMetaData",
       FS(1, "ENCRYPTION_WITH_FOOTER_KEY", d_encryption_with_footer_key),
       FS(2, "ENCRYPTION_WITH_COLUMN_KEY", d_encryption_with_column_key));
PUBLIC_STRUCT(parquet_desc_column_chunk, "ColumnChunk",
	      F(1, "file_path", BINARY), F(2, "file_offset", I64),
	      FS(3, "meta_data", parquet_desc_column_metadata),
	      F(4, "offset_index_offset", I64),
	      F(5, "offset_index_length", I32),
	      F(6, "column_index_offset", I64),
	      F(7, "column_index_length", I32),
	      FS(8, "crypto_metadata", d_column_crypto_metadata),
	      F(9, "encrypted_column_metadata", BINARY));
PUBLIC_STRUCT(parquet_desc_row_group, "RowGroup",
	      FLS(1, "columns", parquet_desc_column_chunk),
	      F(2, "total_byte_size", I64), F(3, "num_rows", I64),
	      FLS(4, "sorting_columns", d_sorting_column),
	      F(5, "file_offset", I64), F(6, "total_compressed_size", I64),
	      F(7, "ordinal", I16));
EMPTY(d_type_defined_order, "TypeDefinedOrder");
EMPTY(d_ieee754_total_order, "IEEE754TotalOrder");
EMPTY(d_int96_timestamp_order, "Int96TimestampOrder");
STRUCT(d_column_order, "ColumnOrder",
       FS(1, "TYPE_ORDER", d_type_defined_order),
       FS(2, "IEEE_754_TOTAL_ORDER", d_ieee754_total_order),
       FS(3, "INT96_TIMESTAMP_ORDER", d_int96_timestamp_order));
STRUCT(d_page_location, "PageLocation",
       F(1, "offset", I64), F(2, "compressed_page_size", I32),
       F(3, "first_row_index", I64));
PUBLIC_STRUCT(parquet_desc_offset_index, "OffsetIndex",
	      FLS(1, "page_locations", d_page_location),
	      FL(2, "unencoded_byte_array_data_bytes", I64));
PUBLIC_STRUCT(parquet_desc_column_index, "ColumnIndex",
	      FL(1, "null_pages", BOOL), FL(2, "min_values", BINARY),
	      FL(3, "max_values", BINARY),
	      FE(4, "boundary_order", parquet_boundary_order_names),
	      FL(5, "null_counts", I64),
	      FL(6, "repetition_level_histograms", I64),
	      FL(7, "definition_level_histograms", I64),
	      FL(8, "nan_counts", I64));
STRUCT(d_aes_gcm_v1, "AesGcmV1",
       F(1, "aad_prefix", BINARY), F(2, "aad_file_unique", BINARY),
       F(3, "supply_aad_prefix", BOOL));
STRUCT(d_aes_gcm_ctr_v1, "AesGcmCtrV1",
       F(1, "aad_prefix", BINARY), F(2, "aad_file_unique", BINARY),
       F(3, "supply_aad_prefix", BOOL));
STRUCT(d_encryption_algorithm, "EncryptionAlgorithm",
       FS(1, "AES_GCM_V1", d_aes_gcm_v1),
       FS(2, "AES_GCM_CTR_V1", d_aes_gcm_ctr_v1));
PUBLIC_STRUCT(parquet_desc_file_metadata, "FileMetaData",
	      F(1, "version", I32),
	      FLS(2, "schema", parquet_desc_schema_element),
	      F(3, "num_rows", I64),
	      FLS(4, "row_groups", parquet_desc_row_group),
	      FLS(5, "key_value_metadata", d_key_value),
	      F(6, "created_by", BINARY),
	      FLS(7, "column_orders", d_column_order),
	      FS(8, "encryption_algorithm", d_encryption_algorithm),
	      F(9, "footer_signing_key_metadata", BINARY));
PUBLIC_STRUCT(parquet_desc_file_crypto_metadata, "FileCryptoMetaData",
	      FS(1, "encryption_algorithm", d_encryption_algorithm),
	      F(2, "key_metadata", BINARY));

/* --- enum names (parquet.h) ----------------------------------------------- */

#define NAME_FN(fn, table)                                                  \
	const char *fn(int32_t v)                                           \
	{                                                                   \
		if (v < 0 || v >= (int32_t)table##_n)                       \
			return NULL;                                        \
		return table[v];                                            \
	}

NAME_FN(parquet_type_name, parquet_type_names)
NAME_FN(parquet_repetition_name, parquet_repetition_names)
NAME_FN(parquet_converted_name, parquet_converted_names)
NAME_FN(parquet_encoding_name, parquet_encoding_names)
NAME_FN(parquet_codec_name, parquet_codec_names)
NAME_FN(parquet_page_type_name, parquet_page_type_names)

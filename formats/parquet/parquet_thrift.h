/* colfs: the numbers of parquet.thrift, written once: its enums (values
 * as on the wire) and, for the typed parsers, the wire type of each field
 * by field id (apache/parquet-format src/main/thrift/parquet.thrift).  The
 * value decoders (decode/) include it too.  Names of the enum values, for
 * the JSON views, are in parquet_desc.c. */
#ifndef COLFS_PARQUET_THRIFT_H
#define COLFS_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/thrift.h"

/* Enums of parquet.thrift (values as on the wire). */
enum parquet_type {
	PARQUET_BOOLEAN = 0, PARQUET_INT32 = 1, PARQUET_INT64 = 2,
	PARQUET_INT96 = 3, PARQUET_FLOAT = 4, PARQUET_DOUBLE = 5,
	PARQUET_BYTE_ARRAY = 6, PARQUET_FIXED_LEN_BYTE_ARRAY = 7,
};
enum parquet_repetition {
	PARQUET_REQUIRED = 0, PARQUET_OPTIONAL = 1, PARQUET_REPEATED = 2,
};
enum parquet_converted {
	PARQUET_CT_UTF8 = 0, PARQUET_CT_MAP = 1, PARQUET_CT_MAP_KEY_VALUE = 2,
	PARQUET_CT_LIST = 3, PARQUET_CT_ENUM = 4, PARQUET_CT_DECIMAL = 5,
	PARQUET_CT_DATE = 6, PARQUET_CT_TIME_MILLIS = 7,
	PARQUET_CT_TIME_MICROS = 8, PARQUET_CT_TIMESTAMP_MILLIS = 9,
	PARQUET_CT_TIMESTAMP_MICROS = 10, PARQUET_CT_UINT_8 = 11,
	PARQUET_CT_UINT_16 = 12, PARQUET_CT_UINT_32 = 13,
	PARQUET_CT_UINT_64 = 14, PARQUET_CT_INT_8 = 15, PARQUET_CT_INT_16 = 16,
	PARQUET_CT_INT_32 = 17, PARQUET_CT_INT_64 = 18, PARQUET_CT_JSON = 19,
	PARQUET_CT_BSON = 20, PARQUET_CT_INTERVAL = 21,
};
/* LogicalType union member ids. */
enum parquet_logical_kind {
	PARQUET_LT_NONE = 0, PARQUET_LT_STRING = 1, PARQUET_LT_MAP = 2,
	PARQUET_LT_LIST = 3, PARQUET_LT_ENUM = 4, PARQUET_LT_DECIMAL = 5,
	PARQUET_LT_DATE = 6, PARQUET_LT_TIME = 7, PARQUET_LT_TIMESTAMP = 8,
	PARQUET_LT_INTEGER = 10, PARQUET_LT_UNKNOWN = 11, PARQUET_LT_JSON = 12,
	PARQUET_LT_BSON = 13, PARQUET_LT_UUID = 14, PARQUET_LT_FLOAT16 = 15,
	PARQUET_LT_VARIANT = 16, PARQUET_LT_GEOMETRY = 17,
	PARQUET_LT_GEOGRAPHY = 18, PARQUET_LT_FILE = 19,
};
enum parquet_time_unit {
	PARQUET_UNIT_NONE = 0, PARQUET_UNIT_MILLIS = 1, PARQUET_UNIT_MICROS = 2,
	PARQUET_UNIT_NANOS = 3,
};
enum parquet_encoding {
	PARQUET_ENC_PLAIN = 0, PARQUET_ENC_PLAIN_DICTIONARY = 2,
	PARQUET_ENC_RLE = 3, PARQUET_ENC_BIT_PACKED = 4,
	PARQUET_ENC_DELTA_BINARY_PACKED = 5,
	PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
	PARQUET_ENC_DELTA_BYTE_ARRAY = 7, PARQUET_ENC_RLE_DICTIONARY = 8,
	PARQUET_ENC_BYTE_STREAM_SPLIT = 9,
};
enum parquet_codec {
	PARQUET_CODEC_UNCOMPRESSED = 0, PARQUET_CODEC_SNAPPY = 1,
	PARQUET_CODEC_GZIP = 2, PARQUET_CODEC_LZO = 3, PARQUET_CODEC_BROTLI = 4,
	PARQUET_CODEC_LZ4 = 5, PARQUET_CODEC_ZSTD = 6, PARQUET_CODEC_LZ4_RAW = 7,
};
enum parquet_page_type {
	PARQUET_PAGE_DATA = 0, PARQUET_PAGE_INDEX = 1,
	PARQUET_PAGE_DICTIONARY = 2, PARQUET_PAGE_DATA_V2 = 3,
};

/* --- wire types of the fields the typed parsers read (0: not read) ------ */

/* FileMetaData, SchemaElement, RowGroup, ColumnChunk, ColumnMetaData,
 * KeyValue (parquet_meta.c) and PageHeader (parquet_pages.c). */
#define I_ COLFS_THRIFT_I32
#define L_ COLFS_THRIFT_LIST
#define B_ COLFS_THRIFT_BINARY
#define S_ COLFS_THRIFT_STRUCT
static const uint8_t parquet_wire_file_meta[] = {
	0, I_, L_, I_, L_, L_, B_, L_, S_, B_};
static const uint8_t parquet_wire_schema[] = {
	0, I_, I_, I_, B_, I_, I_, I_, I_, I_, S_, I_};
static const uint8_t parquet_wire_row_group[] = {
	0, L_, I_, I_, L_, I_, I_, I_};
static const uint8_t parquet_wire_chunk[] = {
	0, B_, I_, S_, I_, I_, I_, I_, S_, B_};
static const uint8_t parquet_wire_col_meta[] = {
	0, I_, L_, L_, I_, I_, I_, I_, L_, I_, I_, I_, S_, L_, I_, I_, S_, S_};
static const uint8_t parquet_wire_kv[] = {0, B_, B_};
static const uint8_t parquet_wire_page_header[] = {
	0, I_, I_, I_, I_, S_, S_, S_, S_};
#undef I_
#undef L_
#undef B_
#undef S_

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

#endif

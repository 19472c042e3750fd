/* colfs: Apache Kudu CFile, the parts shared by the reader modules and the
 * test-file writer (tests/cfile): the numbering of types, encodings and
 * codecs, the (type, encoding) legality table and value rendering.
 *
 * Byte-level facts come from the project's fact sheet
 * (/work/shared/docs/cfile-format.md); section numbers (§) refer to it. */
#ifndef COLFS_CFILE_H
#define COLFS_CFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define CFILE_MAGIC_V1 "kuducfil"
#define CFILE_MAGIC_V2 "kuducfl2"

/* kudu.DataType (§4.1) */
enum cfile_type {
	CFILE_UINT8 = 0,
	CFILE_INT8 = 1,
	CFILE_UINT16 = 2,
	CFILE_INT16 = 3,
	CFILE_UINT32 = 4,
	CFILE_INT32 = 5,
	CFILE_UINT64 = 6,
	CFILE_INT64 = 7,
	CFILE_STRING = 8,
	CFILE_BOOL = 9,
	CFILE_FLOAT = 10,
	CFILE_DOUBLE = 11,
	CFILE_BINARY = 12,
	CFILE_UNIXTIME_MICROS = 13,
	CFILE_INT128 = 14,
	CFILE_DECIMAL32 = 15,
	CFILE_DECIMAL64 = 16,
	CFILE_DECIMAL128 = 17,
	CFILE_IS_DELETED = 18,
	CFILE_VARCHAR = 19,
	CFILE_DATE = 20,
	CFILE_NESTED = 21,
	CFILE_TYPE_COUNT = 22,
};

/* kudu.EncodingType (§4.2) */
enum cfile_encoding {
	CFILE_AUTO_ENCODING = 0,
	CFILE_PLAIN = 1,
	CFILE_PREFIX = 2,
	CFILE_GROUP_VARINT = 3,
	CFILE_RLE = 4,
	CFILE_DICT = 5,
	CFILE_BIT_SHUFFLE = 6,
	CFILE_ENCODING_COUNT = 7,
};

/* kudu.CompressionType (§4.3) */
enum cfile_compression {
	CFILE_DEFAULT_COMPRESSION = 0,
	CFILE_NO_COMPRESSION = 1,
	CFILE_SNAPPY = 2,
	CFILE_LZ4 = 3,
	CFILE_ZLIB = 4,
};

/* Incompatible feature bits (§3). */
#define CFILE_FEATURE_CHECKSUM 0x1u
#define CFILE_FEATURE_ARRAY 0x2u

/* Physical value kinds. */
enum cfile_phys {
	CFILE_PHYS_INT,     /* 1..16 bytes, signed or not */
	CFILE_PHYS_BOOL,
	CFILE_PHYS_FLOAT,   /* 4 or 8 bytes */
	CFILE_PHYS_BINARY,
	CFILE_PHYS_INVALID,
};

typedef struct cfile_type_info {
	const char *name;
	enum cfile_phys phys;
	uint8_t width;     /* bytes per value in blocks (0 for BINARY) */
	bool is_signed;
} cfile_type_info;

/* NULL for values outside the table or never valid in a footer
 * (IS_DELETED, NESTED). */
const cfile_type_info *cfile_types_get(int32_t type);
const char *cfile_types_type_name(int32_t type);           /* "?" if unknown */
const char *cfile_types_encoding_name(int32_t enc);        /* "?" if unknown */
const char *cfile_types_compression_name(int32_t comp);    /* "?" if unknown */
/* The default encoding for a type (what AUTO_ENCODING means). */
enum cfile_encoding cfile_types_encoding_default(int32_t type);
/* Is (type, encoding) a pair Kudu accepts (§4.2)?  GROUP_VARINT is
 * accepted for UINT32 as the legacy encoding (§9.8). */
bool cfile_types_encoding_legal(int32_t type, int32_t enc);

/* Render one non-null value: `p` holds `len` bytes, the value in its block
 * representation (little-endian, physical width; BOOL one byte 0/1;
 * BINARY the raw bytes).  No newline. */
void cfile_types_value_render(colfs_buf *out, int32_t type, const uint8_t *p,
			size_t len);

/* The same as a JSON value (array elements, §7.3). */
void cfile_types_value_render_json(colfs_buf *out, int32_t type, const uint8_t *p,
			     size_t len);

#endif

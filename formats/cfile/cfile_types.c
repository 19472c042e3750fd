/* colfs: Kudu CFile type, encoding and codec tables (§4) and value
 * rendering through core/render.h. */
#include "cfile.h"

#include <string.h>

#include "core/render.h"

static const cfile_type_info type_table[CFILE_TYPE_COUNT] = {
	[CFILE_UINT8] = {"UINT8", CFILE_PHYS_INT, 1, false},
	[CFILE_INT8] = {"INT8", CFILE_PHYS_INT, 1, true},
	[CFILE_UINT16] = {"UINT16", CFILE_PHYS_INT, 2, false},
	[CFILE_INT16] = {"INT16", CFILE_PHYS_INT, 2, true},
	[CFILE_UINT32] = {"UINT32", CFILE_PHYS_INT, 4, false},
	[CFILE_INT32] = {"INT32", CFILE_PHYS_INT, 4, true},
	[CFILE_UINT64] = {"UINT64", CFILE_PHYS_INT, 8, false},
	[CFILE_INT64] = {"INT64", CFILE_PHYS_INT, 8, true},
	[CFILE_STRING] = {"STRING", CFILE_PHYS_BINARY, 0, false},
	[CFILE_BOOL] = {"BOOL", CFILE_PHYS_BOOL, 1, false},
	[CFILE_FLOAT] = {"FLOAT", CFILE_PHYS_FLOAT, 4, true},
	[CFILE_DOUBLE] = {"DOUBLE", CFILE_PHYS_FLOAT, 8, true},
	[CFILE_BINARY] = {"BINARY", CFILE_PHYS_BINARY, 0, false},
	[CFILE_UNIXTIME_MICROS] = {"UNIXTIME_MICROS", CFILE_PHYS_INT, 8, true},
	[CFILE_INT128] = {"INT128", CFILE_PHYS_INT, 16, true},
	[CFILE_DECIMAL32] = {"DECIMAL32", CFILE_PHYS_INT, 4, true},
	[CFILE_DECIMAL64] = {"DECIMAL64", CFILE_PHYS_INT, 8, true},
	[CFILE_DECIMAL128] = {"DECIMAL128", CFILE_PHYS_INT, 16, true},
	[CFILE_IS_DELETED] = {"IS_DELETED", CFILE_PHYS_INVALID, 0, false},
	[CFILE_VARCHAR] = {"VARCHAR", CFILE_PHYS_BINARY, 0, false},
	[CFILE_DATE] = {"DATE", CFILE_PHYS_INT, 4, true},
	[CFILE_NESTED] = {"NESTED", CFILE_PHYS_INVALID, 0, false},
};

const cfile_type_info *cfile_types_get(int32_t type)
{
	if (type < 0 || type >= CFILE_TYPE_COUNT)
		return NULL;
	if (type_table[type].phys == CFILE_PHYS_INVALID)
		return NULL;
	return &type_table[type];
}

const char *cfile_types_type_name(int32_t type)
{
	if (type < 0 || type >= CFILE_TYPE_COUNT)
		return type == 999 ? "UNKNOWN_DATA" : "?";
	return type_table[type].name;
}

const char *cfile_types_encoding_name(int32_t enc)
{
	static const char *const names[CFILE_ENCODING_COUNT] = {
		"AUTO_ENCODING", "PLAIN_ENCODING", "PREFIX_ENCODING",
		"GROUP_VARINT", "RLE", "DICT_ENCODING", "BIT_SHUFFLE",
	};
	if (enc < 0 || enc >= CFILE_ENCODING_COUNT)
		return enc == 999 ? "UNKNOWN_ENCODING" : "?";
	return names[enc];
}

const char *cfile_types_compression_name(int32_t comp)
{
	static const char *const names[] = {
		"DEFAULT_COMPRESSION", "NO_COMPRESSION", "SNAPPY", "LZ4",
		"ZLIB",
	};
	if (comp < 0 || comp > CFILE_ZLIB)
		return comp == 999 ? "UNKNOWN_COMPRESSION" : "?";
	return names[comp];
}

enum cfile_encoding cfile_types_encoding_default(int32_t type)
{
	const cfile_type_info *ti = cfile_types_get(type);

	if (!ti)
		return CFILE_AUTO_ENCODING;
	switch (ti->phys) {
	case CFILE_PHYS_BINARY:
		return CFILE_DICT;
	case CFILE_PHYS_BOOL:
		return CFILE_RLE;
	default:
		return CFILE_BIT_SHUFFLE;
	}
}

bool cfile_types_encoding_legal(int32_t type, int32_t enc)
{
	const cfile_type_info *ti = cfile_types_get(type);

	if (!ti)
		return false;
	if (enc == CFILE_AUTO_ENCODING)
		return true;
	switch (ti->phys) {
	case CFILE_PHYS_BINARY:
		return enc == CFILE_DICT || enc == CFILE_PLAIN ||
		       enc == CFILE_PREFIX;
	case CFILE_PHYS_BOOL:
		return enc == CFILE_RLE || enc == CFILE_PLAIN;
	case CFILE_PHYS_FLOAT:
		return enc == CFILE_BIT_SHUFFLE || enc == CFILE_PLAIN;
	case CFILE_PHYS_INT:
		if (type == CFILE_UINT32 && enc == CFILE_GROUP_VARINT)
			return true;
		if (ti->width == 16)
			return enc == CFILE_BIT_SHUFFLE || enc == CFILE_PLAIN;
		return enc == CFILE_BIT_SHUFFLE || enc == CFILE_PLAIN ||
		       enc == CFILE_RLE;
	default:
		return false;
	}
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static int64_t sign_extend(uint64_t v, size_t n)
{
	if (n >= 8)
		return (int64_t)v;
	unsigned shift = (unsigned)(64 - 8 * n);
	return (int64_t)(v << shift) >> shift;
}

static void value_render(colfs_buf *out, const colfs_render *r, int32_t type,
			 const uint8_t *p, size_t len);

void cfile_types_value_render(colfs_buf *out, int32_t type, const uint8_t *p,
			size_t len)
{
	value_render(out, &colfs_render_text_default, type, p, len);
}

void cfile_types_value_render_json(colfs_buf *out, int32_t type, const uint8_t *p,
			     size_t len)
{
	value_render(out, &colfs_render_json_default, type, p, len);
}

static void value_render(colfs_buf *out, const colfs_render *r, int32_t type,
			 const uint8_t *p, size_t len)
{
	const cfile_type_info *ti = cfile_types_get(type);

	if (!ti)
		return;
	switch (ti->phys) {
	case CFILE_PHYS_BINARY:
		if (type == CFILE_BINARY)
			colfs_render_binary(out, r, p, len);
		else
			colfs_render_string(out, r, p, len);
		return;
	case CFILE_PHYS_BOOL:
		colfs_render_bool(out, r, len > 0 && p[0] != 0);
		return;
	case CFILE_PHYS_FLOAT:
		if (len == 4) {
			float f;
			uint32_t u = (uint32_t)load_le(p, 4);
			memcpy(&f, &u, 4);
			colfs_render_float(out, r, f);
		} else if (len == 8) {
			double d;
			uint64_t u = load_le(p, 8);
			memcpy(&d, &u, 8);
			colfs_render_double(out, r, d);
		}
		return;
	default:
		break;
	}
	if (len == 16) {
		/* INT128 and DECIMAL128: two's complement, little-endian. */
		uint8_t be[16];
		for (size_t i = 0; i < 16; i++)
			be[i] = p[15 - i];
		colfs_render_decimal_be(out, r, be, 16, 0);
		return;
	}
	if (len == 0 || len > 8)
		return;
	uint64_t u = load_le(p, len);
	int64_t s = sign_extend(u, len);
	switch (type) {
	case CFILE_UNIXTIME_MICROS:
		colfs_render_timestamp(out, r, s, COLFS_UNIT_MICROS, true);
		return;
	case CFILE_DATE:
		colfs_render_date(out, r, s);
		return;
	default:
		break;
	}
	if (ti->is_signed)
		colfs_render_i64(out, r, s);
	else
		colfs_render_u64(out, r, u);
}

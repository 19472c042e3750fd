/* colfs: PLAIN and BYTE_STREAM_SPLIT decoders (parquet-format
 * Encodings.md). */
#include "pq_decode.h"

#include <string.h>

/* Check that count * width bytes are left; the offset is the run start. */
static colfs_status need_bytes(const colfs_cursor *c, size_t count,
			       size_t width, const char *what, size_t *total,
			       colfs_err *err)
{
	uint64_t n;

	if (colfs_mul_overflows(count, width, &n) ||
	    n > colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				  "%s: %zu values of %zu bytes, only %zu bytes left",
				  what, count, width, colfs_cursor_left(c));
	*total = (size_t)n;
	return COLFS_OK;
}

colfs_status pq_plain_decode_bool(colfs_cursor *c, uint8_t *out, size_t count,
				  colfs_err *err)
{
	size_t nbytes = count / 8 + (count % 8 != 0);

	if (nbytes > colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				  "PLAIN BOOLEAN: %zu values need %zu bytes, %zu left",
				  count, nbytes, colfs_cursor_left(c));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++)
		out[i] = (uint8_t)(p[i >> 3] >> (i & 7) & 1);
	return colfs_cursor_skip(c, nbytes, err);
}

colfs_status pq_plain_decode_i32(colfs_cursor *c, int32_t *out, size_t count,
				 colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 4, "PLAIN INT32", &total, err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++)
		out[i] = (int32_t)colfs_le32(p + 4 * i);
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_plain_decode_i64(colfs_cursor *c, int64_t *out, size_t count,
				 colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 8, "PLAIN INT64", &total, err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++)
		out[i] = (int64_t)colfs_le64(p + 8 * i);
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_plain_decode_float(colfs_cursor *c, float *out, size_t count,
				   colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 4, "PLAIN FLOAT", &total, err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++) {
		uint32_t v = colfs_le32(p + 4 * i);
		memcpy(&out[i], &v, 4);
	}
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_plain_decode_double(colfs_cursor *c, double *out,
				    size_t count, colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 8, "PLAIN DOUBLE", &total, err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++) {
		uint64_t v = colfs_le64(p + 8 * i);
		memcpy(&out[i], &v, 8);
	}
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_plain_decode_fixed(colfs_cursor *c, uint32_t width,
				   pq_bytes *out, size_t count,
				   colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, width, "PLAIN FIXED_LEN_BYTE_ARRAY",
			     &total, err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++) {
		out[i].ptr = p + (size_t)width * i;
		out[i].len = width;
	}
	return colfs_cursor_skip(c, total, err);
}

/* The walk of `count` length-prefixed values, each length checked
 * against the bytes left: a view of each into `out`, or (out NULL) the
 * offset of every PQ_IN_PAGE_STRIDE-th value into `marks` (count / stride
 * + 1 entries, the last one the end when count is a multiple).  Inlined
 * with out or marks NULL, so that each caller gets its own loop. */
static inline colfs_status bytes_walk(colfs_cursor *c, pq_bytes *out,
				      size_t *marks, size_t count,
				      colfs_err *err)
{
	const uint8_t *p = colfs_cursor_ptr(c);
	const size_t left = colfs_cursor_left(c);
	size_t pos = 0;

	if (count > left / 4)
		return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				  "PLAIN BYTE_ARRAY: %zu values need at least %zu bytes, %zu left",
				  count, count > SIZE_MAX / 4 ? SIZE_MAX : count * 4,
				  left);
	for (size_t i = 0; i < count; i++) {
		/* each value checks its own length: 4 bytes, then len */
		if (left - pos < 4)
			goto truncated;
		uint32_t len = colfs_le32(p + pos);
		if (len > left - pos - 4) {
			colfs_cursor_skip(c, pos, NULL);
			return colfs_fail(err, COLFS_ETRUNCATED,
					  colfs_cursor_offset(c),
					  "PLAIN BYTE_ARRAY value %zu of length %u, only %zu bytes left",
					  i, len, left - pos - 4);
		}
		if (out) {
			out[i].ptr = p + pos + 4;
			out[i].len = len;
		} else if (i % PQ_IN_PAGE_STRIDE == 0) {
			marks[i / PQ_IN_PAGE_STRIDE] = pos;
		}
		pos += 4 + (size_t)len;
		continue;
truncated:
		colfs_cursor_skip(c, pos, NULL);
		return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				  "PLAIN BYTE_ARRAY value %zu: length prefix cut short",
				  i);
	}
	if (!out && count % PQ_IN_PAGE_STRIDE == 0)
		marks[count / PQ_IN_PAGE_STRIDE] = pos;
	return colfs_cursor_skip(c, pos, err);
}

colfs_status pq_plain_decode_bytes(colfs_cursor *c, pq_bytes *out,
				   size_t count, colfs_err *err)
{
	return bytes_walk(c, out, NULL, count, err);
}

colfs_status pq_plain_index_bytes(colfs_cursor *c, size_t *marks,
				  size_t count, colfs_err *err)
{
	return bytes_walk(c, NULL, marks, count, err);
}

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------- */

colfs_status pq_bss_decode(colfs_cursor *c, uint32_t width, uint8_t *dst,
			   size_t count, colfs_err *err)
{
	size_t total = 0;

	if (width == 0)
		return colfs_fail(err, COLFS_ECORRUPT, colfs_cursor_offset(c),
				  "BYTE_STREAM_SPLIT with value width 0");
	COLFS_TRY(need_bytes(c, count, width, "BYTE_STREAM_SPLIT", &total,
			     err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t k = 0; k < width; k++) {
		const uint8_t *s = p + k * count;
		uint8_t *d = dst + k;
		for (size_t i = 0; i < count; i++)
			d[i * width] = s[i];
	}
	return colfs_cursor_skip(c, total, err);
}

/* The value at index i of 4 or 8 byte streams of `count` bytes each. */
static inline uint32_t bss_u32(const uint8_t *p, size_t count, size_t i)
{
	return (uint32_t)p[i] | (uint32_t)p[count + i] << 8 |
	       (uint32_t)p[2 * count + i] << 16 |
	       (uint32_t)p[3 * count + i] << 24;
}

static inline uint64_t bss_u64(const uint8_t *p, size_t count, size_t i)
{
	return (uint64_t)bss_u32(p, count, i) |
	       (uint64_t)bss_u32(p + 4 * count, count, i) << 32;
}

colfs_status pq_bss_decode_i32(colfs_cursor *c, int32_t *out, size_t count,
			       colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 4, "BYTE_STREAM_SPLIT INT32", &total,
			     err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++)
		out[i] = (int32_t)bss_u32(p, count, i);
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_bss_decode_i64(colfs_cursor *c, int64_t *out, size_t count,
			       colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 8, "BYTE_STREAM_SPLIT INT64", &total,
			     err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++)
		out[i] = (int64_t)bss_u64(p, count, i);
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_bss_decode_float(colfs_cursor *c, float *out, size_t count,
				 colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 4, "BYTE_STREAM_SPLIT FLOAT", &total,
			     err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++) {
		uint32_t v = bss_u32(p, count, i);
		memcpy(&out[i], &v, 4);
	}
	return colfs_cursor_skip(c, total, err);
}

colfs_status pq_bss_decode_double(colfs_cursor *c, double *out, size_t count,
				  colfs_err *err)
{
	size_t total = 0;

	COLFS_TRY(need_bytes(c, count, 8, "BYTE_STREAM_SPLIT DOUBLE", &total,
			     err));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++) {
		uint64_t v = bss_u64(p, count, i);
		memcpy(&out[i], &v, 8);
	}
	return colfs_cursor_skip(c, total, err);
}

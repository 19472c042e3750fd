/* colfs: one Parquet page's values and levels: the dispatch from
 * (physical type, encoding) to the decoders. */
#include "pq_decode.h"
#include "parquet/parquet_thrift.h"

#include <stdlib.h>
#include <string.h>


static const char *type_name(int32_t t)
{
	static const char *const n[] = { "BOOLEAN", "INT32", "INT64", "INT96",
					 "FLOAT", "DOUBLE", "BYTE_ARRAY",
					 "FIXED_LEN_BYTE_ARRAY" };
	return t >= 0 && t <= 7 ? n[t] : "unknown type";
}

static const char *encoding_name(int32_t e)
{
	static const char *const n[] = {
		"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE",
		"BIT_PACKED", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
		"DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT",
		"ALP",
	};
	return e >= 0 && e <= 10 ? n[e] : "unknown encoding";
}

static size_t elem_size(int32_t type)
{
	switch (type) {
	case PARQUET_BOOLEAN:
		return 1;
	case PARQUET_INT32:
	case PARQUET_FLOAT:
		return 4;
	case PARQUET_INT64:
	case PARQUET_DOUBLE:
		return 8;
	default:
		return sizeof(pq_bytes);
	}
}

void pq_values_free(pq_values *v)
{
	if (!v)
		return;
	if (!v->pooled)
		free(v->v.any);
	free(v->owned);
	memset(v, 0, sizeof(*v));
}

static colfs_status unsupported(const colfs_cursor *c, int32_t type,
				int32_t enc, colfs_err *err)
{
	return colfs_fail(err, COLFS_EUNSUPPORTED, colfs_cursor_offset(c),
			  "encoding %s (%d) for %s values is not supported",
			  encoding_name(enc), enc, type_name(type));
}

static colfs_status decode_into(colfs_cursor *c, int32_t type,
				uint32_t width, int32_t enc, size_t count,
				uint32_t dict_size, size_t max_bytes,
				pq_values *out, colfs_err *err)
{
	switch (enc) {
	case PARQUET_ENC_PLAIN:
		switch (type) {
		case PARQUET_BOOLEAN:
			return pq_plain_decode_bool(c, out->v.b, count, err);
		case PARQUET_INT32:
			return pq_plain_decode_i32(c, out->v.i32, count, err);
		case PARQUET_INT64:
			return pq_plain_decode_i64(c, out->v.i64, count, err);
		case PARQUET_FLOAT:
			return pq_plain_decode_float(c, out->v.f32, count, err);
		case PARQUET_DOUBLE:
			return pq_plain_decode_double(c, out->v.f64, count, err);
		case PARQUET_INT96:
			return pq_plain_decode_fixed(c, 12, out->v.bytes, count,
						     err);
		case PARQUET_BYTE_ARRAY:
			return pq_plain_decode_bytes(c, out->v.bytes, count, err);
		case PARQUET_FIXED_LEN_BYTE_ARRAY:
			return pq_plain_decode_fixed(c, width, out->v.bytes,
						     count, err);
		}
		break;
	case PARQUET_ENC_RLE:
		if (type == PARQUET_BOOLEAN) {
			uint32_t *tmp = malloc(count ? count * sizeof(*tmp) : 1);
			if (!tmp)
				return colfs_fail(err, COLFS_ENOMEM,
						  colfs_cursor_offset(c),
						  "no memory for %zu booleans",
						  count);
			colfs_status st = pq_rle_decode_prefixed(c, 1, tmp,
								 count, err);
			for (size_t i = 0; !st && i < count; i++)
				out->v.b[i] = (uint8_t)(tmp[i] & 1);
			free(tmp);
			return st;
		}
		break;
	case PARQUET_ENC_PLAIN_DICTIONARY:
	case PARQUET_ENC_RLE_DICTIONARY:
		out->indices = true;
		return pq_dict_indices_decode(c, out->v.idx, count, dict_size,
					      err);
	case PARQUET_ENC_DELTA_BINARY_PACKED:
		if (type == PARQUET_INT32)
			return pq_delta_decode_i32(c, out->v.i32, count, err);
		if (type == PARQUET_INT64)
			return pq_delta_decode_i64(c, out->v.i64, count, err);
		break;
	case PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY:
		if (type == PARQUET_BYTE_ARRAY)
			return pq_dlba_decode(c, out->v.bytes, count, err);
		break;
	case PARQUET_ENC_DELTA_BYTE_ARRAY:
		if (type == PARQUET_BYTE_ARRAY ||
		    type == PARQUET_FIXED_LEN_BYTE_ARRAY) {
			const uint64_t off = colfs_cursor_offset(c);
			COLFS_TRY(pq_dba_decode(c, out->v.bytes, count,
						max_bytes, &out->owned, err));
			for (size_t i = 0;
			     type == PARQUET_FIXED_LEN_BYTE_ARRAY && i < count;
			     i++)
				if (out->v.bytes[i].len != width)
					return colfs_fail(err, COLFS_ECORRUPT,
							  off,
							  "DELTA_BYTE_ARRAY value %zu has %u bytes, FIXED_LEN_BYTE_ARRAY(%u) expected",
							  i,
							  out->v.bytes[i].len,
							  width);
			return COLFS_OK;
		}
		break;
	case PARQUET_ENC_BYTE_STREAM_SPLIT:
		switch (type) {
		case PARQUET_INT32:
			return pq_bss_decode_i32(c, out->v.i32, count, err);
		case PARQUET_INT64:
			return pq_bss_decode_i64(c, out->v.i64, count, err);
		case PARQUET_FLOAT:
			return pq_bss_decode_float(c, out->v.f32, count, err);
		case PARQUET_DOUBLE:
			return pq_bss_decode_double(c, out->v.f64, count, err);
		case PARQUET_FIXED_LEN_BYTE_ARRAY: {
			uint64_t total;
			if (colfs_mul_overflows(count, width, &total) ||
			    total > max_bytes)
				return colfs_fail(err, COLFS_EOVERFLOW,
						  colfs_cursor_offset(c),
						  "BYTE_STREAM_SPLIT: %zu values of %u bytes exceed the limit of %zu bytes",
						  count, width, max_bytes);
			out->owned = malloc(total ? (size_t)total : 1);
			if (!out->owned)
				return colfs_fail(err, COLFS_ENOMEM,
						  colfs_cursor_offset(c),
						  "no memory for %llu bytes",
						  (unsigned long long)total);
			COLFS_TRY(pq_bss_decode(c, width, out->owned, count,
						err));
			for (size_t i = 0; i < count; i++) {
				out->v.bytes[i].ptr = out->owned +
						      (size_t)width * i;
				out->v.bytes[i].len = width;
			}
			return COLFS_OK;
		}
		}
		break;
	}
	return unsupported(c, type, enc, err);
}

void pq_values_pool_free(pq_values_pool *pool)
{
	if (!pool)
		return;
	colfs_piece_cache_buf_put(pool->bufs, pool->mem, pool->cap);
	pool->mem = NULL;
	pool->cap = 0;
}

colfs_status pq_values_decode(colfs_cursor *c, int32_t physical_type,
			      int32_t type_length, int32_t encoding,
			      size_t count, uint32_t dict_size,
			      size_t max_bytes, pq_values *out, colfs_err *err)
{
	return pq_values_decode_pooled(c, physical_type, type_length, encoding,
				       count, dict_size, max_bytes, NULL, out,
				       err);
}

colfs_status pq_values_decode_pooled(colfs_cursor *c, int32_t physical_type,
				     int32_t type_length, int32_t encoding,
				     size_t count, uint32_t dict_size,
				     size_t max_bytes, pq_values_pool *pool,
				     pq_values *out, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	size_t es;
	uint64_t bytes;
	colfs_status st;

	memset(out, 0, sizeof(*out));
	out->physical_type = physical_type;
	out->count = count;
	if (physical_type < PARQUET_BOOLEAN ||
	    physical_type > PARQUET_FIXED_LEN_BYTE_ARRAY)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "physical type %d is not a Parquet type",
				  physical_type);
	if (physical_type == PARQUET_FIXED_LEN_BYTE_ARRAY && type_length <= 0)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "FIXED_LEN_BYTE_ARRAY with type_length %d",
				  type_length);
	es = encoding == PARQUET_ENC_PLAIN_DICTIONARY ||
			     encoding == PARQUET_ENC_RLE_DICTIONARY ?
		     sizeof(uint32_t) : elem_size(physical_type);
	if (colfs_mul_overflows(count, es, &bytes) || bytes > max_bytes)
		return colfs_fail(err, COLFS_EOVERFLOW, off,
				  "%zu %s values exceed the limit of %zu bytes",
				  count, type_name(physical_type), max_bytes);
	if (pool && pool->mem && pool->cap >= bytes) {
		out->v.any = pool->mem;
		out->pooled = true;
	} else if (pool) {
		/* grown by half again, so that slowly growing pages do not
		 * reallocate every time */
		size_t want = (size_t)bytes + (size_t)bytes / 2;
		if (want > max_bytes)
			want = (size_t)bytes;
		colfs_piece_cache_buf_put(pool->bufs, pool->mem, pool->cap);
		pool->mem = colfs_piece_cache_buf_get(pool->bufs, (size_t)bytes,
						      want, &pool->cap);
		out->v.any = pool->mem;
		out->pooled = pool->mem != NULL;
	} else {
		out->v.any = malloc(bytes ? (size_t)bytes : 1);
	}
	if (!out->v.any)
		return colfs_fail(err, COLFS_ENOMEM, off,
				  "no memory for %zu values", count);
	st = decode_into(c, physical_type,
			 physical_type == PARQUET_FIXED_LEN_BYTE_ARRAY ?
				 (uint32_t)type_length : 0,
			 encoding, count, dict_size, max_bytes, out, err);
	if (st)
		pq_values_free(out);
	return st;
}

bool pq_values_in_page_fits(int32_t physical_type, int32_t encoding)
{
	return encoding == PARQUET_ENC_PLAIN &&
	       (physical_type == PARQUET_BYTE_ARRAY ||
		physical_type == PARQUET_FIXED_LEN_BYTE_ARRAY);
}

colfs_status pq_values_decode_in_page(colfs_cursor *c, int32_t physical_type,
				      int32_t type_length, size_t count,
				      size_t max_bytes, pq_values *out,
				      colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	const uint8_t *data = colfs_cursor_ptr(c);
	const size_t left = colfs_cursor_left(c);
	colfs_status st;

	memset(out, 0, sizeof(*out));
	out->physical_type = physical_type;
	out->count = count;
	out->in_page = true;
	out->page.data = data;
	if (physical_type == PARQUET_FIXED_LEN_BYTE_ARRAY) {
		if (type_length <= 0)
			return colfs_fail(err, COLFS_ECORRUPT, off,
					  "FIXED_LEN_BYTE_ARRAY with type_length %d",
					  type_length);
		out->page.width = (uint32_t)type_length;
		uint64_t total;
		if (colfs_mul_overflows(count, out->page.width, &total) ||
		    total > left)
			return colfs_fail(err, COLFS_ETRUNCATED, off,
					  "PLAIN FIXED_LEN_BYTE_ARRAY: %zu values of %u bytes, only %zu bytes left",
					  count, out->page.width, left);
		out->page.len = (size_t)total;
		return colfs_cursor_skip(c, (size_t)total, err);
	}
	if (physical_type != PARQUET_BYTE_ARRAY)
		return unsupported(c, physical_type, PARQUET_ENC_PLAIN, err);
	/* count values take 4 bytes each at least: the check in the walk,
	 * before the marks are allocated */
	if (count > left / 4)
		return pq_plain_index_bytes(c, NULL, count, err);
	const size_t nm = count / PQ_IN_PAGE_STRIDE + 1;
	if (nm > max_bytes / sizeof *out->page.marks)
		return colfs_fail(err, COLFS_EOVERFLOW, off,
				  "%zu BYTE_ARRAY values exceed the limit of %zu bytes",
				  count, max_bytes);
	out->page.marks = malloc(nm * sizeof *out->page.marks);
	out->v.any = out->page.marks;
	if (!out->page.marks)
		return colfs_fail(err, COLFS_ENOMEM, off,
				  "no memory for %zu values", count);
	st = pq_plain_index_bytes(c, out->page.marks, count, err);
	if (st) {
		pq_values_free(out);
		return st;
	}
	out->page.len = (size_t)(colfs_cursor_ptr(c) - data);
	return COLFS_OK;
}

static colfs_status check_levels(const uint32_t *out, size_t count,
				 uint32_t max_level, uint64_t off,
				 colfs_err *err)
{
	for (size_t i = 0; i < count; i++)
		if (out[i] > max_level)
			return colfs_fail(err, COLFS_ECORRUPT, off,
					  "level %u at entry %zu, the maximum is %u",
					  out[i], i, max_level);
	return COLFS_OK;
}

colfs_status pq_levels_decode_v1(colfs_cursor *c, int32_t encoding,
				 uint32_t max_level, uint32_t *out,
				 size_t count, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	const unsigned bw = pq_bit_width(max_level);

	if (max_level == 0) {
		memset(out, 0, count * sizeof(*out));
		return COLFS_OK;
	}
	if (encoding == PARQUET_ENC_RLE)
		COLFS_TRY(pq_rle_decode_prefixed(c, bw, out, count, err));
	else if (encoding == PARQUET_ENC_BIT_PACKED)
		COLFS_TRY(pq_bitpacked_decode(c, bw, out, count, err));
	else
		return colfs_fail(err, COLFS_EUNSUPPORTED, off,
				  "levels in encoding %s (%d) are not supported",
				  encoding_name(encoding), encoding);
	return check_levels(out, count, max_level, off, err);
}

colfs_status pq_levels_decode_v2(colfs_cursor *region, uint32_t max_level,
				 uint32_t *out, size_t count, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(region);

	if (max_level == 0) {
		memset(out, 0, count * sizeof(*out));
		return COLFS_OK;
	}
	COLFS_TRY(pq_rle_decode(region, pq_bit_width(max_level), out, count,
				err));
	return check_levels(out, count, max_level, off, err);
}

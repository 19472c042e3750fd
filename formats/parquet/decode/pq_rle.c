/* colfs: bit unpacking, the RLE / bit-packing hybrid, legacy BIT_PACKED
 * levels and dictionary indices (parquet-format Encodings.md). */
#include "pq_decode.h"
#include "pq_unpack.h"

#include <string.h>

void pq_unpack32(const uint8_t *p, size_t nbytes, unsigned bw, uint32_t *out,
		 size_t n)
{
	const uint64_t mask = (UINT64_C(1) << bw) - 1;     /* bw <= 32 */
	size_t i = 0;
	uint64_t bit = 0;

	if (bw == 0) {
		memset(out, 0, n * sizeof(*out));
		return;
	}
	/* fast: a whole 8-byte window is inside the buffer (bw + 7 <= 39) */
	for (; i < n && (bit >> 3) + 8 <= nbytes; i++, bit += bw)
		out[i] = (uint32_t)((colfs_le64(p + (bit >> 3)) >> (bit & 7)) &
				    mask);
	/* tail: copy what is left into a zeroed window */
	for (; i < n; i++, bit += bw) {
		uint8_t tmp[8] = { 0 };
		size_t at = (size_t)(bit >> 3);
		size_t take = at >= nbytes ? 0 : nbytes - at < 8 ? nbytes - at : 8;

		if (take)
			memcpy(tmp, p + at, take);
		out[i] = (uint32_t)((colfs_le64(tmp) >> (bit & 7)) & mask);
	}
}

void pq_unpack64(const uint8_t *p, size_t nbytes, unsigned bw, uint64_t *out,
		 size_t n)
{
	const uint64_t mask = bw == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bw) - 1;
	size_t i = 0;
	uint64_t bit = 0;

	if (bw == 0) {
		memset(out, 0, n * sizeof(*out));
		return;
	}
	/* a value spans at most 9 bytes */
	for (; i < n && (bit >> 3) + 9 <= nbytes; i++, bit += bw) {
		const uint8_t *q = p + (bit >> 3);
		unsigned s = (unsigned)(bit & 7);
		uint64_t v = colfs_le64(q) >> s;

		if (s + bw > 64)
			v |= (uint64_t)q[8] << (64 - s);
		out[i] = v & mask;
	}
	for (; i < n; i++, bit += bw) {
		uint8_t tmp[9] = { 0 };
		size_t at = (size_t)(bit >> 3);
		size_t take = at >= nbytes ? 0 : nbytes - at < 9 ? nbytes - at : 9;
		unsigned s = (unsigned)(bit & 7);

		if (take)
			memcpy(tmp, p + at, take);
		uint64_t v = colfs_le64(tmp) >> s;
		if (s + bw > 64)
			v |= (uint64_t)tmp[8] << (64 - s);
		out[i] = v & mask;
	}
}

unsigned pq_bit_width(uint64_t max)
{
	unsigned w = 0;

	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* The hybrid, with an optional bound: every value must be < limit. */
static colfs_status rle_decode(colfs_cursor *c, unsigned bw, uint32_t *out,
			       size_t count, uint64_t limit, colfs_err *err)
{
	const size_t vbytes = (bw + 7) / 8;
	size_t done = 0;

	if (bw > 32)
		return colfs_fail(err, COLFS_ECORRUPT, colfs_cursor_offset(c),
				  "RLE/bit-packed bit width %u, at most 32 allowed",
				  bw);
	/* Zero-width values need no bytes; accept a stream that stops. */
	if (bw == 0 && colfs_cursor_left(c) == 0) {
		memset(out, 0, count * sizeof(*out));
		return COLFS_OK;
	}
	while (done < count) {
		const uint64_t run_off = colfs_cursor_offset(c);
		const size_t want = count - done;
		uint64_t h;

		if (colfs_cursor_left(c) == 0)
			return colfs_fail(err, COLFS_ETRUNCATED, run_off,
					  "RLE/bit-packed data ends after %zu of %zu values",
					  done, count);
		COLFS_TRY(colfs_cursor_uvarint(c, &h, err));
		uint64_t n = h >> 1;
		if (h & 1) {
			/* bit-packed: n groups of 8 values, n * bw bytes */
			size_t left = colfs_cursor_left(c);
			uint64_t vals = n > UINT64_MAX / 8 ? UINT64_MAX : n * 8;
			size_t take = vals < want ? (size_t)vals : want;
			uint64_t full;
			uint64_t need = pq_packed_bytes(take, bw);

			if (__builtin_mul_overflow(n, (uint64_t)bw, &full))
				full = UINT64_MAX;
			if (need > left)
				return colfs_fail(err, COLFS_ETRUNCATED, run_off,
						  "bit-packed run needs %llu bytes for %zu values, %zu left",
						  (unsigned long long)need,
						  take, left);
			size_t avail = full < left ? (size_t)full : left;
			pq_unpack32(colfs_cursor_ptr(c), avail, bw, out + done,
				    take);
			if (limit != UINT64_MAX) {
				uint32_t max = 0;
				for (size_t i = 0; i < take; i++)
					max = out[done + i] > max ?
						      out[done + i] : max;
				if (take && max >= limit)
					return colfs_fail(err, COLFS_EBOUNDS,
							  run_off,
							  "dictionary index %u in bit-packed run, dictionary has %llu entries",
							  max,
							  (unsigned long long)limit);
			}
			COLFS_TRY(colfs_cursor_skip(c, avail, err));
			done += take;
		} else {
			/* RLE: n repetitions of one value of vbytes LE bytes */
			const uint8_t *vp;
			uint32_t v = 0;

			COLFS_TRY(colfs_cursor_bytes(c, vbytes, &vp, err));
			for (size_t i = 0; i < vbytes; i++)
				v |= (uint32_t)vp[i] << (8 * i);
			if (n == 0)
				continue;
			if (bw < 32 && (v >> bw) != 0)
				return colfs_fail(err, COLFS_ECORRUPT, run_off,
						  "RLE run value %u does not fit in bit width %u",
						  v, bw);
			if (limit != UINT64_MAX && v >= limit)
				return colfs_fail(err, COLFS_EBOUNDS, run_off,
						  "dictionary index %u in RLE run, dictionary has %llu entries",
						  v, (unsigned long long)limit);
			size_t take = n < want ? (size_t)n : want;
			for (size_t i = 0; i < take; i++)
				out[done + i] = v;
			done += take;
		}
	}
	return COLFS_OK;
}

colfs_status pq_rle_decode(colfs_cursor *c, unsigned bit_width,
			   uint32_t *out, size_t count, colfs_err *err)
{
	return rle_decode(c, bit_width, out, count, UINT64_MAX, err);
}

colfs_status pq_rle_decode_prefixed(colfs_cursor *c, unsigned bit_width,
				    uint32_t *out, size_t count,
				    colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	colfs_cursor sub;
	uint32_t len;

	COLFS_TRY(colfs_cursor_u32le(c, &len, err));
	if (len > colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ETRUNCATED, off,
				  "RLE length prefix %u, only %zu bytes left",
				  len, colfs_cursor_left(c));
	COLFS_TRY(colfs_cursor_sub(c, len, &sub, err));
	return rle_decode(&sub, bit_width, out, count, UINT64_MAX, err);
}

bool pq_rle_all_equal(const colfs_cursor *c, unsigned bw, uint32_t value,
		      size_t count)
{
	const size_t vbytes = (bw + 7) / 8;
	colfs_cursor r = *c;
	colfs_err e;
	uint32_t tmp[64];
	size_t done = 0;

	if (bw == 0 || bw > 32 || (bw < 32 && value >> bw))
		return false;
	while (done < count) {
		uint64_t h;

		if (colfs_cursor_left(&r) == 0 ||
		    colfs_cursor_uvarint(&r, &h, &e))
			return false;
		uint64_t n = h >> 1;
		if (h & 1) {
			/* bit-packed: checked 64 values (8 * bw bytes) at a time */
			size_t left = colfs_cursor_left(&r);
			uint64_t vals = n > UINT64_MAX / 8 ? UINT64_MAX : n * 8;
			size_t take = vals < count - done ? (size_t)vals : count - done;
			uint64_t full;
			const uint8_t *p = colfs_cursor_ptr(&r);

			if (pq_packed_bytes(take, bw) > left)
				return false;
			if (__builtin_mul_overflow(n, (uint64_t)bw, &full))
				full = UINT64_MAX;
			size_t avail = full < left ? (size_t)full : left;
			for (size_t i = 0; i < take; i += 64) {
				size_t m = take - i < 64 ? take - i : 64;
				size_t at = i / 8 * bw;
				pq_unpack32(p + at, avail - at, bw, tmp, m);
				for (size_t k = 0; k < m; k++)
					if (tmp[k] != value)
						return false;
			}
			if (colfs_cursor_skip(&r, avail, &e))
				return false;
			done += take;
		} else {
			const uint8_t *vp;
			uint32_t v = 0;

			if (colfs_cursor_bytes(&r, vbytes, &vp, &e))
				return false;
			for (size_t i = 0; i < vbytes; i++)
				v |= (uint32_t)vp[i] << (8 * i);
			if (n == 0)
				continue;
			if (v != value)
				return false;
			done += n < count - done ? (size_t)n : count - done;
		}
	}
	return true;
}

colfs_status pq_bitpacked_decode(colfs_cursor *c, unsigned bw, uint32_t *out,
				 size_t count, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	const size_t left = colfs_cursor_left(c);

	if (bw > 32)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "BIT_PACKED bit width %u, at most 32 allowed",
				  bw);
	if (count > (size_t)1 << 58)
		return colfs_fail(err, COLFS_EOVERFLOW, off,
				  "BIT_PACKED value count %zu too large", count);
	uint64_t need = pq_packed_bytes(count, bw);
	if (need > left)
		return colfs_fail(err, COLFS_ETRUNCATED, off,
				  "BIT_PACKED levels need %llu bytes, %zu left",
				  (unsigned long long)need, left);
	if (bw == 0) {
		memset(out, 0, count * sizeof(*out));
		return COLFS_OK;
	}
	const uint8_t *p = colfs_cursor_ptr(c);
	size_t nbytes = (size_t)need;
	size_t i = 0;
	uint64_t bit = 0;

	/* most significant bit first: a big-endian 8-byte window */
	for (; i < count && (bit >> 3) + 8 <= nbytes; i++, bit += bw) {
		const uint8_t *q = p + (bit >> 3);
		uint64_t w = (uint64_t)colfs_be32(q) << 32 | colfs_be32(q + 4);
		out[i] = (uint32_t)((w << (bit & 7)) >> (64 - bw));
	}
	for (; i < count; i++, bit += bw) {
		uint8_t tmp[8] = { 0 };
		size_t at = (size_t)(bit >> 3);
		size_t take = nbytes - at < 8 ? nbytes - at : 8;

		memcpy(tmp, p + at, take);
		uint64_t w = (uint64_t)colfs_be32(tmp) << 32 | colfs_be32(tmp + 4);
		out[i] = (uint32_t)((w << (bit & 7)) >> (64 - bw));
	}
	return colfs_cursor_skip(c, nbytes, err);
}

colfs_status pq_dict_indices_decode(colfs_cursor *c, uint32_t *out,
				    size_t count, uint32_t dict_size,
				    colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	uint8_t bw;

	if (count == 0)
		return COLFS_OK;
	COLFS_TRY(colfs_cursor_u8(c, &bw, err));
	if (bw > 32)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "dictionary index bit width %u, at most 32 allowed",
				  bw);
	if (dict_size == 0)
		return colfs_fail(err, COLFS_EBOUNDS, colfs_cursor_offset(c),
				  "%zu dictionary indices but the dictionary is empty",
				  count);
	return rle_decode(c, bw, out, count, dict_size, err);
}

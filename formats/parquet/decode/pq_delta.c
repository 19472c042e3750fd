/* colfs: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
 * (parquet-format Encodings.md). */
#include "pq_decode.h"
#include "pq_unpack.h"

#include <stdlib.h>
#include <string.h>

#define PQ_DELTA_MAX_BLOCK ((uint64_t)1 << 20)

colfs_status pq_delta_init(pq_delta *d, colfs_cursor *c, uint64_t max_values,
			   unsigned max_bit_width, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	uint64_t first;

	memset(d, 0, sizeof(*d));
	d->c = c;
	d->max_bit_width = max_bit_width > 64 ? 64 : max_bit_width;
	COLFS_TRY(colfs_cursor_uvarint(c, &d->block_size, err));
	COLFS_TRY(colfs_cursor_uvarint(c, &d->miniblocks, err));
	COLFS_TRY(colfs_cursor_uvarint(c, &d->total, err));
	COLFS_TRY(colfs_cursor_uvarint(c, &first, err));
	if (d->block_size == 0 || d->block_size % 128 ||
	    d->block_size > PQ_DELTA_MAX_BLOCK)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "DELTA_BINARY_PACKED block size %llu, expected a positive multiple of 128 up to %llu",
				  (unsigned long long)d->block_size,
				  (unsigned long long)PQ_DELTA_MAX_BLOCK);
	if (d->miniblocks == 0 || d->block_size % d->miniblocks ||
	    (d->block_size / d->miniblocks) % 32)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "DELTA_BINARY_PACKED %llu miniblocks per block of %llu: miniblock size must be a positive multiple of 32",
				  (unsigned long long)d->miniblocks,
				  (unsigned long long)d->block_size);
	if (d->total > max_values)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "DELTA_BINARY_PACKED header declares %llu values, at most %llu expected",
				  (unsigned long long)d->total,
				  (unsigned long long)max_values);
	d->per_mini = d->block_size / d->miniblocks;
	d->remaining = d->total;
	d->last = (first >> 1) ^ (0 - (first & 1));   /* zigzag */
	d->first_pending = d->total > 0;
	d->mini_index = d->miniblocks;                 /* no block yet */
	return COLFS_OK;
}

/* Start the next miniblock (reading a block header when needed). */
static colfs_status delta_next_mini(pq_delta *d, colfs_err *err)
{
	colfs_cursor *c = d->c;

	if (d->mini_bytes_left) {
		/* the previous miniblock's padding (normally none here) */
		size_t skip = d->mini_bytes_left < colfs_cursor_left(c) ?
				      d->mini_bytes_left : colfs_cursor_left(c);
		COLFS_TRY(colfs_cursor_skip(c, skip, err));
		d->mini_bytes_left = 0;
	}
	d->mini_index++;
	if (d->mini_index >= d->miniblocks) {
		uint64_t zz;
		const uint8_t *w;

		COLFS_TRY(colfs_cursor_uvarint(c, &zz, err));
		d->min_delta = (zz >> 1) ^ (0 - (zz & 1));
		COLFS_TRY(colfs_cursor_bytes(c, (size_t)d->miniblocks, &w,
					     err));
		d->widths = w;
		d->mini_index = 0;
	}
	unsigned bw = d->widths[d->mini_index];
	if (bw > d->max_bit_width)
		return colfs_fail(err, COLFS_ECORRUPT, colfs_cursor_offset(c),
				  "DELTA_BINARY_PACKED miniblock bit width %u, at most %u allowed",
				  bw, d->max_bit_width);
	d->bit_width = bw;
	d->mini_left = d->per_mini;
	d->mini_bytes_left = (size_t)(d->per_mini / 8 * bw);
	return COLFS_OK;
}

/* Unpack the next 32 deltas of the current miniblock into d->chunk. */
static colfs_status delta_fill_chunk(pq_delta *d, colfs_err *err)
{
	colfs_cursor *c = d->c;

	if (d->mini_left == 0)
		COLFS_TRY(delta_next_mini(d, err));
	const size_t chunk_bytes = (size_t)4 * d->bit_width;
	/* values still needed from this chunk (the rest is padding) */
	uint64_t need_vals = d->remaining < 32 ? d->remaining : 32;
	size_t need = (size_t)pq_packed_bytes(need_vals, d->bit_width);
	size_t left = colfs_cursor_left(c);
	if (need > left)
		return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				  "DELTA_BINARY_PACKED miniblock needs %zu bytes, %zu left",
				  need, left);
	size_t avail = chunk_bytes < left ? chunk_bytes : left;
	pq_unpack64(colfs_cursor_ptr(c), avail, d->bit_width, d->chunk, 32);
	COLFS_TRY(colfs_cursor_skip(c, avail, err));
	d->mini_bytes_left -= chunk_bytes;
	d->mini_left -= 32;
	d->chunk_pos = 0;
	d->chunk_len = 32;
	return COLFS_OK;
}

colfs_status pq_delta_next(pq_delta *d, uint64_t *out, size_t n,
			   colfs_err *err)
{
	size_t i = 0;

	if (n > d->remaining)
		return colfs_fail(err, COLFS_ECORRUPT,
				  colfs_cursor_offset(d->c),
				  "DELTA_BINARY_PACKED stream holds %llu more values, %zu wanted",
				  (unsigned long long)d->remaining, n);
	if (n && d->first_pending) {
		out[i++] = d->last;
		d->first_pending = false;
		d->remaining--;
	}
	while (i < n) {
		if (d->chunk_pos == d->chunk_len)
			COLFS_TRY(delta_fill_chunk(d, err));
		size_t take = d->chunk_len - d->chunk_pos;
		if (take > n - i)
			take = n - i;
		uint64_t last = d->last, md = d->min_delta;
		const uint64_t *ch = d->chunk + d->chunk_pos;
		for (size_t k = 0; k < take; k++) {
			last += md + ch[k];
			out[i + k] = last;
		}
		d->last = last;
		d->chunk_pos += (unsigned)take;
		d->remaining -= take;
		i += take;
	}
	return COLFS_OK;
}

colfs_status pq_delta_finish(pq_delta *d, colfs_err *err)
{
	uint64_t scratch[64];

	while (d->remaining) {
		size_t n = d->remaining < 64 ? (size_t)d->remaining : 64;
		COLFS_TRY(pq_delta_next(d, scratch, n, err));
	}
	/* the padding of the last miniblock, as far as it is present */
	if (d->mini_bytes_left) {
		size_t left = colfs_cursor_left(d->c);
		size_t skip = d->mini_bytes_left < left ? d->mini_bytes_left :
							  left;
		COLFS_TRY(colfs_cursor_skip(d->c, skip, err));
		d->mini_bytes_left = 0;
	}
	return COLFS_OK;
}

colfs_status pq_delta_decode_i64(colfs_cursor *c, int64_t *out, size_t count,
				 colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	uint64_t buf[64];
	pq_delta d;

	COLFS_TRY(pq_delta_init(&d, c, count, 64, err));
	if (d.total < count)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "DELTA_BINARY_PACKED header declares %llu values, page needs %zu",
				  (unsigned long long)d.total, count);
	for (size_t i = 0; i < count;) {
		size_t n = count - i < 64 ? count - i : 64;
		COLFS_TRY(pq_delta_next(&d, buf, n, err));
		for (size_t k = 0; k < n; k++)
			out[i + k] = (int64_t)buf[k];
		i += n;
	}
	return pq_delta_finish(&d, err);
}

colfs_status pq_delta_decode_i32(colfs_cursor *c, int32_t *out, size_t count,
				 colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	uint64_t buf[64];
	pq_delta d;

	/* The spec limits INT32 miniblocks to 32 bits, but writers that take
	 * deltas in 64 bits (DuckDB 1.5) use up to 33: decode in 64 bits,
	 * which gives the same low 32 bits either way. */
	COLFS_TRY(pq_delta_init(&d, c, count, 64, err));
	if (d.total < count)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "DELTA_BINARY_PACKED header declares %llu values, page needs %zu",
				  (unsigned long long)d.total, count);
	for (size_t i = 0; i < count;) {
		size_t n = count - i < 64 ? count - i : 64;
		COLFS_TRY(pq_delta_next(&d, buf, n, err));
		for (size_t k = 0; k < n; k++)
			out[i + k] = (int32_t)(uint32_t)buf[k];
		i += n;
	}
	return pq_delta_finish(&d, err);
}

/* Decode `count` lengths into out[].len (checked: 0..UINT32_MAX) and
 * return their sum; the stream's extra values are skipped. */
static colfs_status delta_lengths(colfs_cursor *c, pq_bytes *out,
				  size_t count, uint64_t *sum,
				  const char *what, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	uint64_t buf[64], total = 0;
	pq_delta d;

	/* lengths are INT32 (see pq_delta_decode_i32 for the widths) */
	COLFS_TRY(pq_delta_init(&d, c, count, 64, err));
	if (d.total < count)
		return colfs_fail(err, COLFS_ECORRUPT, off,
				  "%s: header declares %llu lengths, page needs %zu",
				  what, (unsigned long long)d.total, count);
	for (size_t i = 0; i < count;) {
		size_t n = count - i < 64 ? count - i : 64;
		COLFS_TRY(pq_delta_next(&d, buf, n, err));
		for (size_t k = 0; k < n; k++) {
			int32_t len = (int32_t)(uint32_t)buf[k];
			if (len < 0)
				return colfs_fail(err, COLFS_ECORRUPT, off,
						  "%s: value %zu has negative length %d",
						  what, i + k, len);
			out[i + k].len = (uint32_t)len;
			total += (uint32_t)len;
		}
		i += n;
	}
	*sum = total;
	return pq_delta_finish(&d, err);
}

colfs_status pq_dlba_decode(colfs_cursor *c, pq_bytes *out, size_t count,
			    colfs_err *err)
{
	uint64_t sum;

	COLFS_TRY(delta_lengths(c, out, count, &sum, "DELTA_LENGTH_BYTE_ARRAY",
				err));
	if (sum > colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				  "DELTA_LENGTH_BYTE_ARRAY: lengths add up to %llu bytes, %zu left",
				  (unsigned long long)sum, colfs_cursor_left(c));
	const uint8_t *p = colfs_cursor_ptr(c);
	for (size_t i = 0; i < count; i++) {
		out[i].ptr = p;
		p += out[i].len;
	}
	return colfs_cursor_skip(c, (size_t)sum, err);
}

colfs_status pq_dba_decode(colfs_cursor *c, pq_bytes *out, size_t count,
			   size_t max_bytes, uint8_t **arena, colfs_err *err)
{
	const uint64_t off = colfs_cursor_offset(c);
	uint32_t *prefix = NULL;
	uint64_t psum, ssum, total = 0, prev = 0;
	colfs_status st;

	*arena = NULL;
	if (count > SIZE_MAX / sizeof(*prefix))
		return colfs_fail(err, COLFS_EOVERFLOW, off,
				  "DELTA_BYTE_ARRAY: %zu values", count);
	/* prefix lengths first: borrow out[].len, then keep them aside */
	st = delta_lengths(c, out, count, &psum, "DELTA_BYTE_ARRAY prefixes",
			   err);
	if (st)
		return st;
	prefix = malloc(count ? count * sizeof(*prefix) : 1);
	if (!prefix)
		return colfs_fail(err, COLFS_ENOMEM, off,
				  "DELTA_BYTE_ARRAY: no memory for %zu prefixes",
				  count);
	for (size_t i = 0; i < count; i++)
		prefix[i] = out[i].len;
	st = delta_lengths(c, out, count, &ssum, "DELTA_BYTE_ARRAY suffixes",
			   err);
	if (st)
		goto out;
	if (ssum > colfs_cursor_left(c)) {
		st = colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
				"DELTA_BYTE_ARRAY: suffixes add up to %llu bytes, %zu left",
				(unsigned long long)ssum, colfs_cursor_left(c));
		goto out;
	}
	/* value lengths: prefix <= previous value's length; total capped */
	for (size_t i = 0; i < count; i++) {
		if (prefix[i] > prev) {
			st = colfs_fail(err, COLFS_ECORRUPT, off,
					"DELTA_BYTE_ARRAY: value %zu takes a prefix of %u bytes from a previous value of %llu bytes",
					i, prefix[i], (unsigned long long)prev);
			goto out;
		}
		uint64_t len = (uint64_t)prefix[i] + out[i].len;
		if (len > UINT32_MAX || len > max_bytes - total) {
			st = colfs_fail(err, COLFS_EOVERFLOW, off,
					"DELTA_BYTE_ARRAY: values exceed the limit of %zu bytes at value %zu",
					max_bytes, i);
			goto out;
		}
		total += len;
		prev = len;
	}
	uint8_t *a = malloc(total ? (size_t)total : 1);
	if (!a) {
		st = colfs_fail(err, COLFS_ENOMEM, off,
				"DELTA_BYTE_ARRAY: no memory for %llu bytes",
				(unsigned long long)total);
		goto out;
	}
	const uint8_t *s = colfs_cursor_ptr(c);
	uint8_t *w = a;
	const uint8_t *prev_ptr = a;
	for (size_t i = 0; i < count; i++) {
		uint32_t sl = out[i].len;
		if (prefix[i])
			memcpy(w, prev_ptr, prefix[i]);
		if (sl)
			memcpy(w + prefix[i], s, sl);
		s += sl;
		out[i].ptr = w;
		out[i].len = prefix[i] + sl;
		prev_ptr = w;
		w += out[i].len;
	}
	*arena = a;
	st = colfs_cursor_skip(c, (size_t)ssum, err);
out:
	free(prefix);
	return st;
}

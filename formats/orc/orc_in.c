/* colfs ORC: the compression chunk framing (ORC specification,
 * "Compression"): the chunk header's one decoder, whole streams
 * decompressed (orc_in_decompress, orc_in_read_decompressed), and a stripe
 * stream read one compression chunk at a time (orc_in). */
#include "orc_in.h"

#include <stdlib.h>
#include <string.h>

#include "orc_internal.h"

/* Window size for streams of uncompressed files. */
#define ORC_IN_WINDOW (256u * 1024u)

void orc_in_init_memory(orc_in *in, const uint8_t *p, size_t n,
			uint64_t offset)
{
	memset(in, 0, sizeof(*in));
	colfs_cursor_init(&in->cur, p, n, offset);
}

void orc_in_init_file(orc_in *in, struct orc_file *f, uint64_t offset,
		      uint64_t length)
{
	memset(in, 0, sizeof(*in));
	in->f = f;
	in->start = offset;
	in->next = offset;
	in->end = offset + length;
	/* A remote source fetches the stream's bytes together (the streams
	 * of a stripe that start together are coalesced into one request). */
	if (f)
		colfs_source_will_need(f->src, offset, length);
	colfs_cursor_init(&in->cur, "", 0, offset);
}

void orc_in_close(orc_in *in)
{
	free(in->win);
	free(in->raw);
	free(in->span);
	in->win = NULL;
	in->raw = NULL;
	in->span = NULL;
	in->win_cap = in->raw_cap = in->span_cap = 0;
}

bool orc_in_more(const orc_in *in)
{
	return colfs_cursor_left(&in->cur) > 0 ||
	       (in->f && in->next < in->end);
}

uint64_t orc_in_offset(const orc_in *in)
{
	return colfs_cursor_offset(&in->cur);
}

/* Make *buf hold at least n bytes (kept between chunks: one allocation
 * per stream, not one per chunk). */
static colfs_status in_room(uint8_t **buf, size_t *cap, size_t n,
			    uint64_t at, colfs_err *err)
{
	uint8_t *p;

	if (n <= *cap && *buf)
		return COLFS_OK;
	p = realloc(*buf, n ? n : 1);
	if (!p)
		return colfs_fail(err, COLFS_ENOMEM, at, "out of memory");
	*buf = p;
	*cap = n;
	return COLFS_OK;
}

static colfs_status in_fill(orc_in *in, colfs_err *err)
{
	orc_file *f = in->f;
	uint64_t at = in->next;

	if (!f || in->next >= in->end)
		return colfs_fail(err, COLFS_ETRUNCATED, orc_in_offset(in),
				  "stream ended before all values");
	colfs_cursor_init(&in->cur, "", 0, at);
	if (!f->compressed) {
		uint64_t n = in->end - at;

		if (n > ORC_IN_WINDOW)
			n = ORC_IN_WINDOW;
		COLFS_TRY(in_room(&in->win, &in->win_cap, (size_t)n, at, err));
		COLFS_TRY(colfs_source_read_at(f->src, at, (size_t)n, in->win,
					       err));
		colfs_cursor_init(&in->cur, in->win, (size_t)n, at);
		in->next += n;
		return COLFS_OK;
	} else {
		uint8_t h[3];
		uint64_t clen;
		size_t out_len = 0;
		bool original;

		if (in->end - at < 3)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "compression chunk header cut short");
		COLFS_TRY(colfs_source_read_at(f->src, at, 3, h, err));
		clen = orc_in_chunk_header(h, &original);
		if (clen > in->end - at - 3)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "compression chunk of %llu bytes "
					  "runs past its stream (%llu bytes "
					  "left)", (unsigned long long)clen,
					  (unsigned long long)(in->end - at -
							       3));
		COLFS_TRY(in_room(&in->raw, &in->raw_cap, (size_t)clen, at,
				  err));
		COLFS_TRY(colfs_source_read_at(f->src, at + 3, (size_t)clen,
					       in->raw, err));
		if (original) {
			/* stored as is: read it where it lies */
			colfs_cursor_init_virtual(&in->cur, in->raw,
						  (size_t)clen, at);
		} else {
			COLFS_TRY(in_room(&in->win, &in->win_cap,
					  (size_t)f->block_size, at, err));
			COLFS_TRY(colfs_codec_decompress(
				f->codec, in->raw, (size_t)clen, in->win,
				(size_t)f->block_size, &out_len, at + 3, err));
			colfs_cursor_init_virtual(&in->cur, in->win, out_len,
						  at);
		}
		in->next += 3 + clen;
		return COLFS_OK;
	}
}

colfs_status orc_in_seek(orc_in *in, const uint64_t *pos, size_t n,
			 size_t *used, colfs_err *err)
{
	uint64_t len = in->end - in->start, chunk, skip = 0;
	const uint8_t *p;

	*used = in->f && in->f->compressed ? 2 : 1;
	if (!in->f || n < *used)
		return colfs_fail(err, COLFS_ECORRUPT, in->start,
				  "row index: too few positions");
	chunk = pos[0];
	if (*used == 2)
		skip = pos[1];
	if (chunk > len)
		return colfs_fail(err, COLFS_ECORRUPT, in->start,
				  "row index: position %llu past its stream "
				  "of %llu bytes", (unsigned long long)chunk,
				  (unsigned long long)len);
	in->next = in->start + chunk;
	colfs_cursor_init(&in->cur, "", 0, in->next);
	if (skip == 0)
		return COLFS_OK;
	COLFS_TRY(in_fill(in, err));
	if (skip > colfs_cursor_left(&in->cur))
		return colfs_fail(err, COLFS_ECORRUPT, in->start + chunk,
				  "row index: offset %llu past its chunk",
				  (unsigned long long)skip);
	return colfs_cursor_bytes(&in->cur, (size_t)skip, &p, err);
}

uint32_t orc_in_chunk_header(const uint8_t h[ORC_CHUNK_HEADER_LEN],
			     bool *original)
{
	uint32_t v = (uint32_t)h[0] | (uint32_t)h[1] << 8 |
		     (uint32_t)h[2] << 16;

	if (original)
		*original = v & 1;
	return v >> 1;
}

colfs_status orc_in_u8(orc_in *in, uint8_t *out, colfs_err *err)
{
	if (colfs_cursor_left(&in->cur) > 0) {
		*out = in->cur.base[in->cur.pos++];
		return COLFS_OK;
	}
	while (colfs_cursor_left(&in->cur) == 0)
		COLFS_TRY(in_fill(in, err));
	return colfs_cursor_u8(&in->cur, out, err);
}

colfs_status orc_in_copy(orc_in *in, void *dst, size_t n, colfs_err *err)
{
	uint8_t *d = dst;

	while (n > 0) {
		size_t take = colfs_cursor_left(&in->cur);

		if (take == 0) {
			COLFS_TRY(in_fill(in, err));
			continue;
		}
		if (take > n)
			take = n;
		COLFS_TRY(colfs_cursor_copy(&in->cur, d, take, err));
		d += take;
		n -= take;
	}
	return COLFS_OK;
}

colfs_status orc_in_bytes(orc_in *in, size_t n, const uint8_t **out,
			  colfs_err *err)
{
	if (colfs_cursor_left(&in->cur) >= n)
		return colfs_cursor_bytes(&in->cur, n, out, err);
	if (!in->f)
		return colfs_cursor_bytes(&in->cur, n, out, err);
	if (n > in->f->max_alloc)
		return colfs_fail(err, COLFS_EOVERFLOW, orc_in_offset(in),
				  "value of %zu bytes exceeds the allocation "
				  "cap", n);
	if (n > in->span_cap) {
		uint8_t *s = realloc(in->span, n);

		if (!s)
			return colfs_fail(err, COLFS_ENOMEM, orc_in_offset(in),
					  "out of memory");
		in->span = s;
		in->span_cap = n;
	}
	COLFS_TRY(orc_in_copy(in, in->span, n, err));
	*out = in->span;
	return COLFS_OK;
}

colfs_status orc_in_uvarint(orc_in *in, uint64_t *out, colfs_err *err)
{
	uint64_t v = 0;

	/* the whole varint in this window: decoded in place */
	if (colfs_cursor_left(&in->cur) >= 10) {
		const uint8_t *p = colfs_cursor_ptr(&in->cur);

		for (unsigned i = 0, shift = 0; i < 10; i++, shift += 7) {
			uint8_t b = p[i];

			if (shift == 63 && (b & 0x7e))
				break; /* the careful path reports it */
			v |= (uint64_t)(b & 0x7f) << shift;
			if (!(b & 0x80)) {
				in->cur.pos += i + 1;
				*out = v;
				return COLFS_OK;
			}
		}
		v = 0;
	}

	for (unsigned shift = 0; shift < 70; shift += 7) {
		uint8_t b;

		COLFS_TRY(orc_in_u8(in, &b, err));
		if (shift == 63 && (b & 0x7e))
			return colfs_fail(err, COLFS_ECORRUPT,
					  orc_in_offset(in),
					  "varint overflows 64 bits");
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return COLFS_OK;
		}
	}
	return colfs_fail(err, COLFS_ECORRUPT, orc_in_offset(in),
			  "varint longer than 10 bytes");
}

/* --- whole streams --------------------------------------------------------- */

colfs_status orc_in_decompress(orc_file *f, const uint8_t *in, size_t len,
			    uint64_t offset, uint8_t **out, size_t *out_len,
			    colfs_err *err)
{
	uint8_t *buf = NULL;
	size_t have = 0, cap = 0;
	colfs_cursor c;

	*out = NULL;
	*out_len = 0;
	if (!f->compressed) {
		if (len > f->max_alloc)
			return colfs_fail(err, COLFS_EOVERFLOW, offset,
					  "stream of %zu bytes exceeds the "
					  "allocation cap", len);
		buf = malloc(len ? len : 1);
		if (!buf)
			return colfs_fail(err, COLFS_ENOMEM, offset,
					  "out of memory");
		if (len)
			memcpy(buf, in, len);
		*out = buf;
		*out_len = len;
		return COLFS_OK;
	}
	colfs_cursor_init(&c, in, len, offset);
	while (colfs_cursor_left(&c) > 0) {
		uint64_t at = colfs_cursor_offset(&c);
		const uint8_t *hp, *chunk;
		size_t clen, room;
		bool original;
		colfs_status st;

		st = colfs_cursor_bytes(&c, 3, &hp, err);
		if (st)
			goto fail;
		clen = orc_in_chunk_header(hp, &original);
		st = colfs_cursor_bytes(&c, clen, &chunk, err);
		if (st) {
			colfs_fail(err, st, at,
				   "compression chunk header claims %zu bytes, "
				   "%zu left in the stream", clen,
				   colfs_cursor_left(&c));
			goto fail;
		}
		room = original ? clen : (size_t)f->block_size;
		if (original && clen > f->block_size) {
			/* Writers keep original chunks within the block
			 * size, but nothing depends on it. */
		}
		if ((uint64_t)have + room > f->max_alloc) {
			st = colfs_fail(err, COLFS_EOVERFLOW, at,
					"decompressed stream exceeds the "
					"allocation cap of %llu bytes",
					(unsigned long long)f->max_alloc);
			goto fail;
		}
		if (have + room > cap) {
			size_t ncap = cap ? cap * 2 : room + 64;
			uint8_t *nb;

			while (ncap < have + room)
				ncap *= 2;
			if (ncap > f->max_alloc)
				ncap = (size_t)f->max_alloc;
			nb = realloc(buf, ncap);
			if (!nb) {
				st = colfs_fail(err, COLFS_ENOMEM, at,
						"out of memory");
				goto fail;
			}
			buf = nb;
			cap = ncap;
		}
		if (original) {
			if (clen)
				memcpy(buf + have, chunk, clen);
			have += clen;
		} else {
			size_t got = 0;

			st = colfs_codec_decompress(f->codec, chunk, clen,
						    buf + have, room, &got,
						    at + 3, err);
			if (st)
				goto fail;
			have += got;
		}
		continue;
fail:
		free(buf);
		return st;
	}
	*out = buf ? buf : malloc(1);
	if (!*out)
		return colfs_fail(err, COLFS_ENOMEM, offset, "out of memory");
	*out_len = have;
	return COLFS_OK;
}

colfs_status orc_in_read_decompressed(orc_file *f, uint64_t offset, uint64_t len,
				   uint8_t **out, size_t *out_len,
				   colfs_err *err)
{
	uint8_t *raw;
	colfs_status st;

	st = colfs_source_read_region(f->src, offset, len, f->max_alloc, &raw,
				      err);
	if (st)
		return st;
	if (!f->compressed) {
		*out = raw;
		*out_len = (size_t)len;
		return COLFS_OK;
	}
	st = orc_in_decompress(f, raw, (size_t)len, offset, out, out_len,
			       err);
	free(raw);
	return st;
}

/* colfs ORC: a stripe stream read one compression chunk at a time. */
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
	in->next = offset;
	in->end = offset + length;
	colfs_cursor_init(&in->cur, "", 0, offset);
}

void orc_in_close(orc_in *in)
{
	free(in->win);
	free(in->span);
	in->win = NULL;
	in->span = NULL;
	in->span_cap = 0;
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

static colfs_status in_fill(orc_in *in, colfs_err *err)
{
	orc_file *f = in->f;
	uint64_t at = in->next;

	if (!f || in->next >= in->end)
		return colfs_fail(err, COLFS_ETRUNCATED, orc_in_offset(in),
				  "stream ended before all values");
	free(in->win);
	in->win = NULL;
	colfs_cursor_init(&in->cur, "", 0, at);
	if (!f->compressed) {
		uint64_t n = in->end - at;

		if (n > ORC_IN_WINDOW)
			n = ORC_IN_WINDOW;
		in->win = malloc((size_t)n);
		if (!in->win)
			return colfs_fail(err, COLFS_ENOMEM, at,
					  "out of memory");
		COLFS_TRY(colfs_source_read_at(f->src, at, (size_t)n, in->win,
					       err));
		colfs_cursor_init(&in->cur, in->win, (size_t)n, at);
		in->next += n;
		return COLFS_OK;
	} else {
		uint8_t h[3], *raw, *out;
		uint64_t clen;
		size_t out_len;
		colfs_status st;

		if (in->end - at < 3)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "compression chunk header cut short");
		COLFS_TRY(colfs_source_read_at(f->src, at, 3, h, err));
		clen = ((uint64_t)h[0] | (uint64_t)h[1] << 8 |
			(uint64_t)h[2] << 16) >> 1;
		if (clen > in->end - at - 3)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "compression chunk of %llu bytes "
					  "runs past its stream (%llu bytes "
					  "left)", (unsigned long long)clen,
					  (unsigned long long)(in->end - at -
							       3));
		raw = malloc((size_t)clen + 3);
		if (!raw)
			return colfs_fail(err, COLFS_ENOMEM, at,
					  "out of memory");
		st = colfs_source_read_at(f->src, at, (size_t)clen + 3, raw,
					  err);
		if (!st)
			st = orc_decompress(f, raw, (size_t)clen + 3, at, &out,
					    &out_len, err);
		free(raw);
		if (st)
			return st;
		in->win = out;
		colfs_cursor_init_virtual(&in->cur, out, out_len, at);
		in->next += 3 + clen;
		return COLFS_OK;
	}
}

colfs_status orc_in_u8(orc_in *in, uint8_t *out, colfs_err *err)
{
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

#include "cursor.h"

#include <string.h>

void colfs_cursor_init(colfs_cursor *c, const void *base, size_t len,
		       uint64_t file_offset)
{
	c->base = base;
	c->len = len;
	c->pos = 0;
	c->file_offset = file_offset;
	c->virtual_base = false;
}

void colfs_cursor_init_virtual(colfs_cursor *c, const void *base, size_t len,
			       uint64_t region_offset)
{
	colfs_cursor_init(c, base, len, region_offset);
	c->virtual_base = true;
}

uint64_t colfs_cursor_offset(const colfs_cursor *c)
{
	return c->virtual_base ? c->file_offset : c->file_offset + c->pos;
}

static colfs_status short_read(const colfs_cursor *c, size_t want,
			       colfs_err *err)
{
	return colfs_fail(err, COLFS_ETRUNCATED, colfs_cursor_offset(c),
			  "expected %zu more bytes, region has %zu", want,
			  colfs_cursor_left(c));
}

colfs_status colfs_cursor_sub(colfs_cursor *c, size_t len, colfs_cursor *child,
			      colfs_err *err)
{
	if (len > colfs_cursor_left(c))
		return short_read(c, len, err);
	colfs_cursor_init(child, c->base + c->pos, len, colfs_cursor_offset(c));
	child->virtual_base = c->virtual_base;
	c->pos += len;
	return COLFS_OK;
}

colfs_status colfs_cursor_slice(const colfs_cursor *c, size_t start,
				size_t len, colfs_cursor *child,
				colfs_err *err)
{
	if (start > c->len || len > c->len - start)
		return colfs_fail(err, COLFS_EBOUNDS, c->file_offset,
				  "range %zu+%zu outside region of %zu bytes",
				  start, len, c->len);
	colfs_cursor_init(child, c->base + start, len,
			  c->virtual_base ? c->file_offset
					  : c->file_offset + start);
	child->virtual_base = c->virtual_base;
	return COLFS_OK;
}

colfs_status colfs_cursor_skip(colfs_cursor *c, size_t n, colfs_err *err)
{
	if (n > colfs_cursor_left(c))
		return short_read(c, n, err);
	c->pos += n;
	return COLFS_OK;
}

colfs_status colfs_cursor_seek(colfs_cursor *c, size_t pos, colfs_err *err)
{
	if (pos > c->len)
		return colfs_fail(err, COLFS_EBOUNDS, c->file_offset,
				  "position %zu outside region of %zu bytes",
				  pos, c->len);
	c->pos = pos;
	return COLFS_OK;
}

colfs_status colfs_cursor_bytes(colfs_cursor *c, size_t n, const uint8_t **out,
				colfs_err *err)
{
	if (n > colfs_cursor_left(c))
		return short_read(c, n, err);
	*out = c->base + c->pos;
	c->pos += n;
	return COLFS_OK;
}

colfs_status colfs_cursor_copy(colfs_cursor *c, void *dst, size_t n,
			       colfs_err *err)
{
	const uint8_t *p;
	COLFS_TRY(colfs_cursor_bytes(c, n, &p, err));
	if (n)
		memcpy(dst, p, n);
	return COLFS_OK;
}

colfs_status colfs_cursor_u8(colfs_cursor *c, uint8_t *out, colfs_err *err)
{
	if (c->pos >= c->len)
		return short_read(c, 1, err);
	*out = c->base[c->pos++];
	return COLFS_OK;
}

colfs_status colfs_cursor_u16le(colfs_cursor *c, uint16_t *out, colfs_err *err)
{
	const uint8_t *p;
	COLFS_TRY(colfs_cursor_bytes(c, 2, &p, err));
	*out = colfs_le16(p);
	return COLFS_OK;
}

colfs_status colfs_cursor_u32le(colfs_cursor *c, uint32_t *out, colfs_err *err)
{
	const uint8_t *p;
	COLFS_TRY(colfs_cursor_bytes(c, 4, &p, err));
	*out = colfs_le32(p);
	return COLFS_OK;
}

colfs_status colfs_cursor_u64le(colfs_cursor *c, uint64_t *out, colfs_err *err)
{
	const uint8_t *p;
	COLFS_TRY(colfs_cursor_bytes(c, 8, &p, err));
	*out = colfs_le64(p);
	return COLFS_OK;
}

colfs_status colfs_cursor_u32be(colfs_cursor *c, uint32_t *out, colfs_err *err)
{
	const uint8_t *p;
	COLFS_TRY(colfs_cursor_bytes(c, 4, &p, err));
	*out = colfs_be32(p);
	return COLFS_OK;
}

colfs_status colfs_cursor_uvarint(colfs_cursor *c, uint64_t *out,
				  colfs_err *err)
{
	uint64_t v = 0;
	uint64_t start = colfs_cursor_offset(c);
	for (unsigned shift = 0; shift < 70; shift += 7) {
		uint8_t b;
		if (c->pos >= c->len)
			return colfs_fail(err, COLFS_ETRUNCATED, start,
					  "varint runs past the end of its region");
		b = c->base[c->pos++];
		if (shift == 63 && (b & 0x7e))
			return colfs_fail(err, COLFS_ECORRUPT, start,
					  "varint does not fit in 64 bits");
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return COLFS_OK;
		}
	}
	return colfs_fail(err, COLFS_ECORRUPT, start,
			  "varint longer than 10 bytes");
}

colfs_status colfs_cursor_svarint(colfs_cursor *c, int64_t *out,
				  colfs_err *err)
{
	uint64_t u;
	COLFS_TRY(colfs_cursor_uvarint(c, &u, err));
	*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return COLFS_OK;
}

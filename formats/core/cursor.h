/* colfs: the bounds-checked cursor.  Every read of file bytes in the core
 * goes through a cursor over an in-memory window that knows the absolute
 * file offset of its first byte.  A sub-cursor is carved from its parent
 * and can never read past it.  Failures fill a colfs_err with the absolute
 * offset where the read was attempted.
 *
 * For decompressed data the window has no file offset of its own; such a
 * cursor is created with the offset of the stored region it came from
 * (`virtual_base` true), and errors report that region's offset. */
#ifndef COLFS_CURSOR_H
#define COLFS_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct colfs_cursor {
	const uint8_t *base;   /* first byte of the window */
	size_t len;            /* window length */
	size_t pos;            /* next byte to read, 0..len */
	uint64_t file_offset;  /* absolute offset of base[0] */
	bool virtual_base;     /* window is decoded data: offsets are the region's */
} colfs_cursor;

void colfs_cursor_init(colfs_cursor *c, const void *base, size_t len,
		       uint64_t file_offset);
/* A window over decoded bytes; every offset it reports is `region_offset`. */
void colfs_cursor_init_virtual(colfs_cursor *c, const void *base, size_t len,
			       uint64_t region_offset);

/* Absolute file offset of the next byte. */
uint64_t colfs_cursor_offset(const colfs_cursor *c);
static inline size_t colfs_cursor_left(const colfs_cursor *c)
{
	return c->len - c->pos;
}
static inline const uint8_t *colfs_cursor_ptr(const colfs_cursor *c)
{
	return c->base + c->pos;
}

/* Carve the next `len` bytes into `child` and advance past them. */
colfs_status colfs_cursor_sub(colfs_cursor *c, size_t len, colfs_cursor *child,
			      colfs_err *err);
/* A child over [start, start+len) of the window, without moving `c`. */
colfs_status colfs_cursor_slice(const colfs_cursor *c, size_t start,
				size_t len, colfs_cursor *child,
				colfs_err *err);
colfs_status colfs_cursor_skip(colfs_cursor *c, size_t n, colfs_err *err);
colfs_status colfs_cursor_seek(colfs_cursor *c, size_t pos, colfs_err *err);
/* Borrow the next `n` bytes (pointer into the window) and advance. */
colfs_status colfs_cursor_bytes(colfs_cursor *c, size_t n, const uint8_t **out,
				colfs_err *err);
colfs_status colfs_cursor_copy(colfs_cursor *c, void *dst, size_t n,
			       colfs_err *err);
colfs_status colfs_cursor_u8(colfs_cursor *c, uint8_t *out, colfs_err *err);
colfs_status colfs_cursor_u16le(colfs_cursor *c, uint16_t *out, colfs_err *err);
colfs_status colfs_cursor_u32le(colfs_cursor *c, uint32_t *out, colfs_err *err);
colfs_status colfs_cursor_u64le(colfs_cursor *c, uint64_t *out, colfs_err *err);
colfs_status colfs_cursor_u32be(colfs_cursor *c, uint32_t *out, colfs_err *err);
/* Unsigned LEB128 of at most 10 bytes (64 bits).  Encodings longer than
 * 10 bytes or with bits beyond 64 are COLFS_ECORRUPT; non-minimal ones
 * (0x80 0x00 for 0) are accepted, as protobuf and Thrift readers do. */
colfs_status colfs_cursor_uvarint(colfs_cursor *c, uint64_t *out,
				  colfs_err *err);
/* Zigzag-decoded signed LEB128. */
colfs_status colfs_cursor_svarint(colfs_cursor *c, int64_t *out,
				  colfs_err *err);

/* Explicit little/big-endian loads for hot decoders (no bounds checks:
 * callers have checked the run). */
static inline uint16_t colfs_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}
static inline uint32_t colfs_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline uint64_t colfs_le64(const uint8_t *p)
{
	return (uint64_t)colfs_le32(p) | (uint64_t)colfs_le32(p + 4) << 32;
}
static inline uint32_t colfs_be32(const uint8_t *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[0] << 24;
}

/* Checked arithmetic on file-supplied numbers. */
static inline bool colfs_add_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out);
}
static inline bool colfs_mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

#endif

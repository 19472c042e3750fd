/* colfs ORC: a stream read piece by piece.
 *
 * An orc_in hands the bytes of one stripe stream to the decoders while
 * holding only one decompressed compression chunk (or a 256 KiB window of
 * an uncompressed stream) at a time, so that decoding a large stripe needs
 * memory in proportion to the compression block size, not to the stripe.
 * Reads that straddle two chunks are assembled in a small side buffer.
 * Tests and in-memory data use orc_in_init_memory. */
#ifndef COLFS_ORC_IN_H
#define COLFS_ORC_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/cursor.h"

struct orc_file;

typedef struct orc_in {
	struct orc_file *f;   /* NULL: memory only */
	uint64_t start;       /* file offset of the stored stream */
	uint64_t next;        /* file offset of the next chunk / window */
	uint64_t end;         /* end of the stored stream */
	colfs_cursor cur;     /* over the current window */
	uint8_t *win;         /* decompressed window, reused (owned) */
	size_t win_cap;
	uint8_t *raw;         /* stored chunk, reused (owned) */
	size_t raw_cap;
	uint8_t *span;        /* reads across windows (owned) */
	size_t span_cap;
} orc_in;

/* The header of an ORC compression chunk (ORC specification,
 * "Compression"): 3 bytes, little-endian, bit 0 set when the chunk is
 * stored original (not compressed), the other 23 bits its length.  The
 * one decoder of it: returns the length, *original (when not NULL) the
 * flag. */
#define ORC_CHUNK_HEADER_LEN 3
uint32_t orc_in_chunk_header(const uint8_t h[ORC_CHUNK_HEADER_LEN],
			     bool *original);

void orc_in_init_memory(orc_in *in, const uint8_t *p, size_t n,
			uint64_t offset);
/* A stream of `length` stored bytes at absolute `offset` of f's file. */
void orc_in_init_file(orc_in *in, struct orc_file *f, uint64_t offset,
		      uint64_t length);
void orc_in_close(orc_in *in);

/* Position a file stream at a row index position (ORC specification,
 * "Row Index"): for a compressed file the stored offset of a compression
 * chunk from the stream's start and the offset of the byte inside that
 * chunk once decompressed; for an uncompressed one the byte's offset.
 * `pos` holds `n` numbers; the count used goes to *used. */
colfs_status orc_in_seek(orc_in *in, const uint64_t *pos, size_t n,
			 size_t *used, colfs_err *err);

/* Bytes may remain (in this window or in chunks not read yet). */
bool orc_in_more(const orc_in *in);
/* Offset for error messages: the current chunk's (or byte's) offset. */
uint64_t orc_in_offset(const orc_in *in);

colfs_status orc_in_u8(orc_in *in, uint8_t *out, colfs_err *err);
/* Borrow the next n bytes (valid until the next call on `in`). */
colfs_status orc_in_bytes(orc_in *in, size_t n, const uint8_t **out,
			  colfs_err *err);
colfs_status orc_in_copy(orc_in *in, void *dst, size_t n, colfs_err *err);
colfs_status orc_in_uvarint(orc_in *in, uint64_t *out, colfs_err *err);

#endif

/* colfs ORC: the run-length decoders of the ORC specification.
 *
 * Each decoder owns an orc_in over one stream (read one compression chunk
 * at a time) and keeps its position, so a column reader can ask for values
 * batch after batch.  Runs are decoded whole into a small buffer (at most
 * 512 values: the longest RLE v2 run) and handed out from there; every
 * header length is checked against the bytes left before the run is
 * unpacked.  Errors carry the cursor's offset (for decompressed streams:
 * the stream's offset in the file). */
#ifndef COLFS_ORC_RLE_H
#define COLFS_ORC_RLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/cursor.h"
#include "orc_in.h"

#define ORC_RLE_RUN_MAX 512

/* Byte RLE (also the bytes under boolean RLE). */
typedef struct orc_rle_byte {
	orc_in in;
	uint8_t run[ORC_RLE_RUN_MAX];
	size_t run_len, run_pos;
} orc_rle_byte;

void orc_rle_byte_init(orc_rle_byte *d, const orc_in *in);
colfs_status orc_rle_byte_next(orc_rle_byte *d, uint8_t *out, size_t n,
			       colfs_err *err);

/* Boolean RLE: bits most significant first over byte RLE. */
typedef struct orc_rle_bool {
	orc_rle_byte bytes;
	uint8_t cur_byte;
	unsigned bits_left;
} orc_rle_bool;

void orc_rle_bool_init(orc_rle_bool *d, const orc_in *in);
colfs_status orc_rle_bool_next(orc_rle_bool *d, uint8_t *out, size_t n,
			       colfs_err *err);

/* Integer RLE, version 1 or 2, signed or unsigned.  Unsigned values come
 * out as their bit pattern in int64_t. */
typedef struct orc_rle_int {
	orc_in in;
	bool v2;
	bool is_signed;
	int64_t run[ORC_RLE_RUN_MAX];
	size_t run_len, run_pos;
} orc_rle_int;

void orc_rle_int_init(orc_rle_int *d, const orc_in *in, bool v2,
		      bool is_signed);
colfs_status orc_rle_int_next(orc_rle_int *d, int64_t *out, size_t n,
			      colfs_err *err);

/* Position a decoder at a row index position (orc_in_seek's numbers,
 * then the count of values to skip in the run found there; for booleans
 * then the count of bits to skip in that byte).  *used counts the
 * numbers taken from `pos`. */
colfs_status orc_rle_byte_seek(orc_rle_byte *d, const uint64_t *pos,
			       size_t n, size_t *used, colfs_err *err);
colfs_status orc_rle_bool_seek(orc_rle_bool *d, const uint64_t *pos,
			       size_t n, size_t *used, colfs_err *err);
colfs_status orc_rle_int_seek(orc_rle_int *d, const uint64_t *pos, size_t n,
			      size_t *used, colfs_err *err);

/* Release the stream each decoder owns. */
void orc_rle_byte_close(orc_rle_byte *d);
void orc_rle_bool_close(orc_rle_bool *d);
void orc_rle_int_close(orc_rle_int *d);

/* The RLE v2 5-bit width code to a bit width (delta: 0 means 0 bits). */
unsigned orc_rle_width_decode(unsigned code, bool delta);

#endif

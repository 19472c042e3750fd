/* colfs: bit unpacking shared by the Parquet decoders (internal). */
#ifndef COLFS_PQ_UNPACK_H
#define COLFS_PQ_UNPACK_H

#include <stddef.h>
#include <stdint.h>

/* Unpack n values of bw bits (LSB first, from bit 0 of p).  Bytes past
 * nbytes are never read: bits beyond them read as zero (the padding
 * values of a cut-short final run).  bw 0..32 for pq_unpack32, 0..64 for pq_unpack64. */
void pq_unpack32(const uint8_t *p, size_t nbytes, unsigned bw, uint32_t *out,
		 size_t n);
void pq_unpack64(const uint8_t *p, size_t nbytes, unsigned bw, uint64_t *out,
		 size_t n);

/* ceil(n * bw / 8) without overflow for n < 2^58. */
static inline uint64_t pq_packed_bytes(uint64_t n, unsigned bw)
{
	return (n / 8) * bw + ((n % 8) * bw + 7) / 8;
}

#endif

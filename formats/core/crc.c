/* colfs: CRC-32 and CRC-32C.
 *
 * CRC-32 (IEEE 802.3, as Parquet page CRCs) comes from zlib.  CRC-32C
 * (Castagnoli, as Kudu CFile checksums) is written by hand here because no
 * library packaged in Debian 12 that colfs already depends on offers it:
 * a table-driven slice-by-8 over the reflected polynomial 0x82F63B78, with
 * the tables built once (pthread_once). */
#include "codec.h"

#include <pthread.h>

#include <zlib.h>

#include "cursor.h"

uint32_t colfs_crc32(uint32_t crc, const void *data, size_t len)
{
	if (len == 0)
		return crc;
	return (uint32_t)crc32_z(crc, data, len);
}

#define CRC32C_POLY 0x82F63B78u

/* crc32c_table[k][b]: the CRC of byte b followed by k zero bytes. */
static uint32_t crc32c_table[8][256];
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void crc32c_tables_build(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;
		for (int i = 0; i < 8; i++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1u)));
		crc32c_table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = crc32c_table[0][b];
		for (int k = 1; k < 8; k++) {
			c = (c >> 8) ^ crc32c_table[0][c & 0xff];
			crc32c_table[k][b] = c;
		}
	}
}

uint32_t colfs_crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	pthread_once(&crc32c_once, crc32c_tables_build);
	const uint32_t (*t)[256] = (const uint32_t (*)[256])crc32c_table;

	crc = ~crc;
	/* Eight bytes per step (explicit little-endian loads: no alignment
	 * needs, any host byte order), then the tail one byte at a time. */
	while (len >= 8) {
		uint32_t lo = crc ^ colfs_le32(p);
		uint32_t hi = colfs_le32(p + 4);
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

/* --- CRC-32C shifting ------------------------------------------------------
 *
 * The CRC-32C register (without the pre- and post-inversion) is linear
 * over GF(2): n zero bytes turn a register x into Z_n(x).  shift_pow[k] is
 * the 32x32 matrix of Z_(2^k) (column j is the image of bit j), so Z_n is
 * at most 64 matrix-vector products. */
static uint32_t shift_pow[64][32];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

static uint32_t gf2_apply(const uint32_t m[32], uint32_t v)
{
	uint32_t r = 0;

	for (unsigned j = 0; v; j++, v >>= 1)
		if (v & 1)
			r ^= m[j];
	return r;
}

static void shift_pow_build(void)
{
	for (unsigned j = 0; j < 32; j++) {
		uint32_t z = 1u << j;

		for (unsigned i = 0; i < 8; i++)
			z = (z >> 1) ^ (CRC32C_POLY & (0u - (z & 1u)));
		shift_pow[0][j] = z;
	}
	for (unsigned k = 1; k < 64; k++)
		for (unsigned j = 0; j < 32; j++)
			shift_pow[k][j] = gf2_apply(shift_pow[k - 1],
						    shift_pow[k - 1][j]);
}

uint32_t colfs_crc32c_shift(uint32_t reg, uint64_t n)
{
	pthread_once(&shift_once, shift_pow_build);
	for (unsigned k = 0; n; k++, n >>= 1)
		if (n & 1)
			reg = gf2_apply(shift_pow[k], reg);
	return reg;
}

void colfs_crc32c_prefixes(const uint8_t *p, size_t n, uint32_t *regs)
{
	regs[0] = 0;
	for (size_t i = 0; i < n; i++)
		regs[i + 1] = ~colfs_crc32c(~regs[i], p + i, 1);
}

uint32_t colfs_crc32c_span(const uint32_t *regs, size_t s, size_t e)
{
	return ~(regs[e] ^ colfs_crc32c_shift(~regs[s], e - s));
}

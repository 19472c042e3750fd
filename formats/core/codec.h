/* colfs: decompression for every codec the three formats use, through the
 * well-kept libraries (zlib, snappy, liblz4, libzstd, libbrotli, liblzo2).
 *
 * The caller knows (Parquet, CFile) or bounds (ORC: the compression block
 * size) the decompressed size, checks it against colfs_options.max_alloc,
 * and supplies the output buffer.  Nothing here allocates more than a
 * library's own state. */
#ifndef COLFS_CODEC_H
#define COLFS_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef enum colfs_codec {
	COLFS_CODEC_NONE = 0,
	COLFS_CODEC_SNAPPY,      /* raw snappy block */
	COLFS_CODEC_GZIP,        /* gzip members (all of them, concatenated); zlib-wrapped accepted too */
	COLFS_CODEC_LZO,         /* Parquet/Hadoop LZO: big-endian framed lzo1x blocks, or a bare lzo1x stream */
	COLFS_CODEC_BROTLI,
	COLFS_CODEC_LZ4_HADOOP,  /* Parquet "LZ4": Hadoop framing, falling back to a bare LZ4 block */
	COLFS_CODEC_ZSTD,        /* one or more zstd frames */
	COLFS_CODEC_LZ4_RAW,     /* a bare LZ4 block */
	COLFS_CODEC_DEFLATE_RAW, /* ORC ZLIB: raw deflate, no header */
	COLFS_CODEC_ZLIB,        /* zlib-wrapped deflate (CFile ZLIB) */
	COLFS_CODEC_LZO_RAW,     /* ORC LZO: a bare lzo1x stream */
} colfs_codec;

const char *colfs_codec_name(colfs_codec codec);

/* Decompress `in_len` bytes into `out` (capacity `out_cap`).  `*out_len`
 * receives the number of bytes produced.  Output that would exceed
 * `out_cap` fails with COLFS_EOVERFLOW; malformed input with
 * COLFS_ECORRUPT.  `offset` is the absolute file offset of `in` for the
 * error context. */
colfs_status colfs_codec_decompress(colfs_codec codec, const uint8_t *in,
				    size_t in_len, uint8_t *out,
				    size_t out_cap, size_t *out_len,
				    uint64_t offset, colfs_err *err);

/* Where the compressed stream at the start of `in` (`n` bytes available)
 * ends, when it decodes to exactly `u` bytes: its length, or 0 when it
 * does not (codec.c).  For a stream whose length nobody recorded (Kudu
 * CFile salvage without checksums).  COLFS_CODEC_LZ4_RAW: the sequence
 * whose literals reach u bytes; COLFS_CODEC_SNAPPY: the element that
 * reaches u bytes (the preamble must say u); both then decompressed to
 * confirm.  COLFS_CODEC_ZLIB: where inflate ends the zlib stream, having
 * produced exactly u bytes.  Other codecs: 0.  `scratch` (u bytes)
 * receives the decompressed bytes. */
size_t colfs_codec_stream_end(colfs_codec codec, const uint8_t *in, size_t n,
			      uint64_t u, uint8_t *scratch);

/* CRC-32 (IEEE, as zlib and Parquet page CRCs) and CRC-32C (Castagnoli, as
 * Kudu CFile).  Start with crc = 0. */
uint32_t colfs_crc32(uint32_t crc, const void *data, size_t len);
uint32_t colfs_crc32c(uint32_t crc, const void *data, size_t len);

/* CRC-32C of many spans of one buffer, each in constant work (crc.c).
 *
 * The register (the CRC without its pre- and post-inversion) is linear
 * over GF(2).  colfs_crc32c_shift gives the register `reg` after `n`
 * more zero bytes, in O(log n).  colfs_crc32c_prefixes fills regs[0..n]
 * with the register after the first i bytes of p (regs[0] = 0); then
 * colfs_crc32c_span(regs, s, e) is colfs_crc32c(0, p + s, e - s), for any
 * s <= e <= n. */
uint32_t colfs_crc32c_shift(uint32_t reg, uint64_t n);
void colfs_crc32c_prefixes(const uint8_t *p, size_t n, uint32_t *regs);
uint32_t colfs_crc32c_span(const uint32_t *regs, size_t s, size_t e);

#endif

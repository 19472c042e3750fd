/* colfs: Parquet bloom filter lookups (parquet_bloom.c; module-private). */
#ifndef COLFS_PARQUET_BLOOM_H
#define COLFS_PARQUET_BLOOM_H

#include "parquet_region.h"

/* bloom_filter/might_contain/: a directory that answers a lookup of a
 * value's rendered text when the filter may contain the value. */
colfs_status parquet_bloom_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 uint32_t g, uint32_t c, uint64_t bitset_off,
				 uint32_t bitset_len);

/* The bloom filter header of chunk `ch`: its length and its numBytes. */
colfs_status parquet_bloom_header_read(parquet_region_state *s, const parquet_chunk *ch,
				       uint64_t *hdr_len, int32_t *num_bytes,
				       colfs_err *err);
/* bloom_filter/bitset of an encrypted chunk: the bitset decrypted. */
colfs_status parquet_bloom_bitset_gen(colfs_tree *t, colfs_node *file,
				      colfs_buf *out);
/* bloom_filter/header.json. */
colfs_status parquet_bloom_header_gen(colfs_tree *t, colfs_node *file,
				      colfs_buf *out);

#endif

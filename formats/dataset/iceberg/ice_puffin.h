/* colfs: Iceberg Puffin files (the Puffin spec) and the deletion vectors
 * they hold (`deletion-vector-v1` blobs): ice_puffin.c. */
#ifndef COLFS_ICE_PUFFIN_H
#define COLFS_ICE_PUFFIN_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "../../core/source.h"
#include "../../core/status.h"

/* The footer of the Puffin file `src` ("PFA1" at both ends, the footer
 * payload's size and flags before the last magic, the payload LZ4- or
 * zstd-framed when flag bit 0 says it is compressed) as its JSON
 * object, checked: "blobs" an array whose every blob has a string
 * "type", an integer "offset" and "length" inside the file before the
 * footer.  Nothing larger than `max_alloc` is allocated. */
colfs_status ice_puffin_footer(colfs_source *src, uint64_t max_alloc,
			       json_t **footer, colfs_err *err);

/* The deletion vector for the data file `data_path` in the Puffin file
 * `src` whose footer is `footer`: the blob at `offset` (`length` bytes)
 * when offset >= 0, which the footer must list, else the blob whose
 * "referenced-data-file" property is data_path.  It must be a
 * "deletion-vector-v1" blob, uncompressed, for data_path when its
 * properties name a file, holding its "cardinality" rows when they give
 * one.  Its rows, ascending, in *rows (malloc'd; at most max_rows). */
colfs_status ice_puffin_dv(colfs_source *src, const json_t *footer,
			   const char *data_path, int64_t offset,
			   int64_t length, uint64_t max_rows,
			   uint64_t max_alloc, uint64_t **rows, size_t *n,
			   colfs_err *err);

/* A `deletion-vector-v1` blob (`len` bytes): its big-endian length of
 * magic and vector, the magic D1 D3 39 64, the vector (64-bit "portable"
 * Roaring: a count of 32-bit keys, then each key and a portable 32-bit
 * Roaring bitmap), a big-endian CRC-32 of magic and vector.  Its rows,
 * ascending, in *rows (malloc'd; at most max_rows). */
colfs_status ice_dv_blob_decode(const uint8_t *blob, size_t len,
				uint64_t max_rows, uint64_t **rows, size_t *n,
				colfs_err *err);
#endif

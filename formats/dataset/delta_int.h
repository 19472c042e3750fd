/* colfs: what the Delta log reader's files share (delta.c, delta_dv.c,
 * delta_source.c).
 * Not part of the dataset contract (delta.h). */
#ifndef COLFS_DELTA_INT_H
#define COLFS_DELTA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/status.h"

struct json_t;
struct colfs_source;

/* A file of the table, a local path or an s3:// URL (a Delta table under
 * an S3 prefix: the core's source kinds), as a source (delta_source.c).  A path that is not a
 * regular file is COLFS_EIO; a missing one COLFS_ENOENT.  `why` says why
 * in one line naming the file (`shown`). */
colfs_status colfs_delta_source_open(const char *path, const char *shown,
				     const colfs_options *o,
				     struct colfs_source **out, char *why,
				     size_t why_len);

/* Z85 (ZeroMQ RFC 32) text to bytes: `len` must be a multiple of 5; `out`
 * gets len / 5 * 4 bytes.  COLFS_ECORRUPT (with the character's index in
 * `err->offset`) on a character outside the alphabet or a group above
 * 2^32 - 1. */
colfs_status colfs_z85_decode(const char *text, size_t len, uint8_t *out,
			      colfs_err *err);

/* The rows a deletion vector descriptor (the `deletionVector` object of an
 * add action) marks deleted, ascending, into a malloc'd array: storage
 * type 'i' (inline, Z85), 'u' (a file under the table `root` named from a
 * UUID) or 'p' (an absolute path, a file: URI or a plain one).
 * `num_records` (-1: unknown) bounds the row indices; the count is
 * checked against the descriptor's cardinality and `o->max_alloc`.
 * `where` names the action in messages ("_delta_log/...json line 3"). */
colfs_status colfs_delta_dv_read(const char *root, struct json_t *dv,
				 int64_t num_records, const colfs_options *o,
				 const char *where, uint64_t **rows, size_t *n,
				 colfs_err *err);

/* The RoaringBitmapArray serialization of a deletion vector (magic
 * 1681511377, then 64-bit portable Roaring: a count, then per 32-bit
 * bitmap its high key and a portable 32-bit Roaring bitmap) to the
 * ascending row indices.  At most `max_rows` rows (else
 * COLFS_EOVERFLOW). */
colfs_status colfs_delta_dv_decode(const uint8_t *data, size_t len,
				   uint64_t max_rows, uint64_t **rows,
				   size_t *n, colfs_err *err);

#endif

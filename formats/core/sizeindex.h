/* colfs: the persistent size index.
 *
 * The exact sizes of streamed views, once learned, kept in a small file so
 * that the next mount of the same source knows them from the start (as
 * ratarmount keeps its index).  One index belongs to one source file as it
 * was when the sizes were learned, under one set of rendering options: the
 * `key` line names both (device, inode, size, mtime, ctime, the format, a
 * hash of the options, the colfs version: nothing read from the file).
 * The file:
 *
 *   colfs-sizes 1
 *   key <key>
 *   <decimal size> <tree path>        (one line per view, sorted by path)
 *   ...
 *   end <count> <XXH64 of every byte before this line, 16 hex digits>
 *
 * An index whose header, key, lines, count or checksum is wrong is ignored
 * as a whole (never trusted in part), with the reason.  Tree paths are
 * escaped names (docs/tree.md), so they hold no newline.
 *
 * A colfs_sizeindex is safe to use from several threads.
 */
#ifndef COLFS_SIZEINDEX_H
#define COLFS_SIZEINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* The largest index file read (a larger one is ignored). */
#define COLFS_SIZEINDEX_MAX_BYTES (256u << 20)

typedef struct colfs_sizeindex colfs_sizeindex;

/* An empty index for sources with this key (one line, no newline). */
colfs_sizeindex *colfs_sizeindex_create(const char *key);
void colfs_sizeindex_destroy(colfs_sizeindex *ix);

/* Read the index file at `path` into `ix`.  COLFS_OK: its sizes are now in
 * `ix`.  Otherwise `ix` is unchanged and `why` says why the file was not
 * used: COLFS_ENOENT (no such file), COLFS_ECORRUPT (damaged, truncated,
 * or not an index), COLFS_EUNSUPPORTED (another source, another version
 * of the source, or other options: stale), COLFS_EIO. */
colfs_status colfs_sizeindex_load(colfs_sizeindex *ix, const char *path,
				  char *why, size_t why_len);
/* The size kept for `tree_path`. */
bool colfs_sizeindex_get(colfs_sizeindex *ix, const char *tree_path,
			 uint64_t *size);
/* Keep a size; the index becomes dirty when it is new or different. */
colfs_status colfs_sizeindex_put(colfs_sizeindex *ix, const char *tree_path,
				 uint64_t size);
/* Forget every size kept (the index stays, empty, and dirty). */
void colfs_sizeindex_clear(colfs_sizeindex *ix);
size_t colfs_sizeindex_count(colfs_sizeindex *ix);
/* Sizes were put that the file on disk does not have. */
bool colfs_sizeindex_dirty(colfs_sizeindex *ix);
/* Write the index to `path` safely: a temporary file in the same
 * directory (created, with the directory, mode 0700/0600 when missing),
 * then rename over `path`.  Clears the dirty mark. */
colfs_status colfs_sizeindex_save(colfs_sizeindex *ix, const char *path,
				  char *why, size_t why_len);

#endif

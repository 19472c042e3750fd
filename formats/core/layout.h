/* colfs: the `layout` document of every format (docs/tree.md, "layout").
 *
 * A format lists the regions its metadata names, in any order: offset,
 * length, kind (one lower-case word, e.g. "column_chunk") and the tree
 * path of the node that shows those bytes.  colfs_layout_write sorts them
 * and writes them, with the gaps between them and the overlaps among
 * them, in the one grammar all formats share:
 *
 *   OFFSET LENGTH KIND PATH     a region
 *   OFFSET LENGTH gap -         bytes of the file no region claims
 *   OFFSET LENGTH overlap -     bytes of the region above that an earlier
 *                               region claims too
 *
 * tree.h includes this.
 */
#ifndef COLFS_LAYOUT_H
#define COLFS_LAYOUT_H

#include "buf.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct colfs_layout_region {
	uint64_t off, len;
	const char *kind;       /* static */
	char *path;             /* owned */
} colfs_layout_region;

typedef struct colfs_layout {
	colfs_layout_region *r;
	size_t n, cap;
	bool failed;            /* out of memory: writing answers COLFS_ENOMEM */
} colfs_layout;

#define COLFS_LAYOUT_INIT {NULL, 0, 0, false}

/* Add a region: `kind` is a static lower-case word (letters, digits, '_';
 * never "gap" or "overlap"), the path is made from `path_fmt`. */
void colfs_layout_add(colfs_layout *l, uint64_t off, uint64_t len,
		      const char *kind, const char *path_fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Write the regions of a file of `size` bytes, sorted by offset (then
 * length, then path), with their gaps and overlaps, and free them. */
colfs_status colfs_layout_write(colfs_layout *l, uint64_t size,
				colfs_buf *out);
/* Free the regions without writing (colfs_layout_write does it too). */
void colfs_layout_free(colfs_layout *l);

#endif

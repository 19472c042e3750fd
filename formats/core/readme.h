/* colfs: the in-mount README (readme.c).  tree.h includes this. */
#ifndef COLFS_README_H
#define COLFS_README_H

#include "buf.h"

#include <stdbool.h>

/* Every format's README lists the entries that exist for its file in one
 * layout (docs/tree.md, "README"; tests/tool/readme-check.py reads it):
 * colfs_readme_entries starts the list, then one colfs_readme_entry per
 * entry: `depth` levels of two-space indent, the name (a trailing '/' for
 * a directory; N, K or <...> for each numbered or named entry), the mark
 * "[decodes]" for a view that decodes values when read, and what it
 * holds.  colfs_readme_end closes the list (a blank line). */
void colfs_readme_entries(colfs_buf *out);
void colfs_readme_entry(colfs_buf *out, unsigned depth, const char *name,
			bool decodes, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void colfs_readme_end(colfs_buf *out);

#endif

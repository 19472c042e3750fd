/* colfs: the in-mount README of every format (readme.c; docs/tree.md,
 * "README").  tree.h includes this.
 *
 * A format describes its README as a table: what the file is, a paragraph
 * of facts, its `format` entry's text, and one row per entry of its tree
 * with the condition under which that entry exists in this file.
 * colfs_readme_write writes it in the one layout every format shares:
 *
 *   NAME: WHAT (SIZE bytes), mounted read-only by colfs.
 *   <about>
 *   <how to read the list>
 *   Entries (...):
 *
 *   README                      this text
 *   format                      <format_text>
 *   layout                      byte map ... (the same for every format)
 *   errors                      every problem found so far ...
 *   <the rows shown, in order>
 *
 *   <how names from the file are escaped>
 *   [This file has problems (N so far): see `errors`.]
 *
 * An entry row: `depth` levels of two-space indent, the name (a trailing
 * '/' for a directory; N, K or <...> for each numbered or named entry),
 * the mark "[decodes]" for a view that decodes values when read, and what
 * it holds (tests/tool/readme-check.py reads this layout).
 */
#ifndef COLFS_README_H
#define COLFS_README_H

#include "../colfs.h"
#include "buf.h"

#include <stdbool.h>

typedef struct colfs_readme_row {
	bool shown;             /* the entry exists in this file */
	unsigned depth;
	const char *name;
	bool decodes;
	const char *text;
} colfs_readme_row;

typedef struct colfs_readme {
	const char *what;       /* "an Apache ORC file" */
	const char *about;      /* paragraphs ending in "\n\n", or NULL */
	const char *format_text;
	const colfs_readme_row *rows;
	size_t n_rows;
} colfs_readme;

colfs_status colfs_readme_write(colfs_tree *t, const colfs_readme *r,
				colfs_buf *out);

#endif

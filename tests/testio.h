/* colfs tests: a whole file read into memory, from disk or from a tree:
 * the reads every folder's C tests make, and the dump tools' walk of a
 * folder (testio.c). */
#ifndef COLFS_TESTS_TESTIO_H
#define COLFS_TESTS_TESTIO_H

#include <stddef.h>

#include "colfs.h"

struct colfs_format;

/* The whole file at `path` on disk, malloc'd and NUL-terminated (its
 * length in *len when `len` is not NULL); NULL when it cannot be read. */
char *testio_slurp(const char *path, size_t *len);
/* The bytes of the file node at `path` of `t` (at most 64 KiB - 1), in
 * a static buffer that the next call overwrites, NUL-terminated; NULL
 * when the path does not resolve or the node does not open.  For the
 * small documents a test compares with a string. */
const char *testio_text(colfs_tree *t, const char *path);

/* A format for the dump tools (tests/delta, tests/iceberg): its tree's
 * root holds one folder, `folder`, which `fill` fills when first listed.
 * One at a time (the folder and its filler are kept here). */
const struct colfs_format *testio_folder_format(const char *name,
					 const char *folder,
					 colfs_status (*fill)(colfs_tree *t,
							      colfs_node *dir));
/* Print every entry under `dir`, depth first: a folder as "path/", a
 * file as "path (N bytes)" (", not exact" when its size was not) then
 * its content.  1 when one cannot be listed or read whole, else 0. */
int testio_walk(colfs_tree *t, colfs_node *dir);

#endif

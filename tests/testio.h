/* colfs tests: a whole file read into memory, from disk or from a tree:
 * the reads every folder's C tests make (testio.c). */
#ifndef COLFS_TESTS_TESTIO_H
#define COLFS_TESTS_TESTIO_H

#include <stddef.h>

#include "colfs.h"

/* The whole file at `path` on disk, malloc'd and NUL-terminated (its
 * length in *len when `len` is not NULL); NULL when it cannot be read. */
char *testio_slurp(const char *path, size_t *len);
/* The bytes of the file node at `path` of `t` (at most 64 KiB - 1), in
 * a static buffer that the next call overwrites, NUL-terminated; NULL
 * when the path does not resolve or the node does not open.  For the
 * small documents a test compares with a string. */
const char *testio_text(colfs_tree *t, const char *path);

#endif

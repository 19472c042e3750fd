/* colfs tests: a whole file read into memory, from disk or from a tree:
 * the reads every folder's C tests make, and the dump tools' walk of a
 * folder (testio.c). */
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

/* The dump tools' --tree (tests/delta, tests/iceberg): a tree of the
 * test format `name` (opened on a temporary file, with options `o`)
 * whose root holds one folder, `folder`, which `fill` fills when first
 * listed; prints "/folder/", then every entry under it, depth first (a
 * folder as "path/", a file as "path (N bytes)", ", not exact" when its
 * size was not, then its content), then the tree's problems ("problem
 * PATH: STATUS: MESSAGE").  0 when all was read, 1 when an entry could
 * not be listed or read whole, 2 when the tree or the folder could not
 * be made (a message on stderr naming `tool`).  One at a time (the
 * folder and its filler are kept here). */
int testio_folder_dump(const char *tool, const char *name, const char *folder,
		       colfs_status (*fill)(colfs_tree *t, colfs_node *dir),
		       const colfs_options *o);

#endif

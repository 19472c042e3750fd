/* colfs tests: helpers shared by the CFile tests (open a file through
 * colfs.h, read a node whole, walk a tree). */
#ifndef COLFS_TESTS_CFT_H
#define COLFS_TESTS_CFT_H

#include <stdbool.h>
#include <stddef.h>

#include "colfs.h"
#include "../testio.h" /* testio_slurp: a whole file from disk */

/* Read a file node whole (malloc'd, NUL-terminated); NULL on failure. */
char *cft_read(colfs_tree *t, const char *path, size_t *len);
/* Walk every node: list every directory, read every file (up to 4 MiB
 * each).  Returns the number of nodes visited. */
size_t cft_walk(colfs_tree *t);
/* A fresh temporary directory (removed by cft_rmdir). */
char *cft_tmpdir(void);
void cft_rmdir(const char *dir);

/* A v2 CFile with checksums around one data block (`blk`: the stored
 * payload without its CRC), a one-entry positional index (key 0) and a
 * footer (type, encoding, compression, nullable, array, num_values).  Index
 * blocks of compressed files are stored raw behind the 4-byte prefix.
 * Returns malloc'd bytes. */
#include <stdint.h>
uint8_t *cft_wrap_block(const uint8_t *blk, size_t blen, int type, int enc,
			int comp, int nullable, int array, uint32_t count,
			size_t *len);

#endif

/* colfs: a file's own column that is also a Hive key of its folders,
 * compared with the folder's value (dataset_keycol.c). */
#ifndef COLFS_DATASET_KEYCOL_H
#define COLFS_DATASET_KEYCOL_H

#include <stdbool.h>
#include <stdint.h>

#include "../colfs.h"

typedef struct ds_keycol_diff {
	uint64_t rows;          /* values compared */
	uint64_t differ;        /* of them, not the folder's */
	uint64_t first;         /* the first that differs (0-based row) */
	char first_text[64];    /* its text as columns/ writes it (cut) */
} ds_keycol_diff;

/* Compare every line of node `path` of tree `g` (a columns/ file: one
 * value a line) with `want`, the folder's value as the same columns/
 * would write it (the null token for NULL).  `integer`: the key is
 * typed BIGINT, and a value is the same when it is the same number
 * (an INT32 column's 2024, a DOUBLE's 2024.0).  Streams the column in
 * pieces: no more than one piece in memory. */
colfs_status ds_keycol_compare(colfs_tree *g, const char *path,
			       const char *want, bool integer,
			       ds_keycol_diff *d);

#endif

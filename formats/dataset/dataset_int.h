/* colfs: the dataset module's own declarations (dataset.c,
 * dataset_list.c). */
#ifndef COLFS_DATASET_INT_H
#define COLFS_DATASET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/status.h"

/* One file found under the dataset's root. */
typedef struct ds_entry {
	char *rel;       /* '/'-separated path relative to the root */
	uint64_t size;
	bool dir;        /* ds_list_folder: a folder (size 0) */
} ds_entry;

/* Every regular file under `root` (a local directory), recursively,
 * sorted by path (strcmp), hidden and `_`-prefixed names skipped; the
 * first `limit` found (SIZE_MAX: all; 1: is there any?).  The one lister
 * of local datasets; an S3 prefix lister fills the same list. */
colfs_status ds_list_local(const char *root, size_t limit, ds_entry **out,
			   size_t *n, char *why, size_t why_len);
void ds_entries_free(ds_entry *v, size_t n);
/* One folder `rel` ("" the root) of a local dataset, not recursively:
 * its files and its folders (dir set), named `rel/name`, skipped and
 * ordered as ds_list_local would (a folder sorts as "name/"). */
colfs_status ds_list_folder(const char *root, const char *rel,
			    ds_entry **out, size_t *n, char *why,
			    size_t why_len);
/* The objects under an S3 prefix (its source kind's listing,
 * colfs_source_list), with
 * the same names skipped and in the same order as ds_list_local; keys
 * relative to the prefix.  *delta: the prefix holds a _delta_log/. */
colfs_status ds_list_s3(const char *url, const colfs_options *opts,
			bool *delta, ds_entry **out, size_t *n, char *why,
			size_t why_len);

#endif

/* colfs: the dataset module's own declarations (dataset.c,
 * dataset_list.c). */
#ifndef COLFS_DATASET_INT_H
#define COLFS_DATASET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/buf.h"
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
/* The objects under an S3 prefix (colfs_s3_list, formats/remote), with
 * the same names skipped and in the same order as ds_list_local; keys
 * relative to the prefix.  *delta: the prefix holds a _delta_log/. */
colfs_status ds_list_s3(const char *url, const colfs_options *opts,
			bool *delta, ds_entry **out, size_t *n, char *why,
			size_t why_len);

/* A file of the union views that cannot be read whole
 * (dataset_damage.c): missing, changed since the mount or since the
 * Delta log added it, or not decodable.  What -o on_damage makes of it. */
typedef struct ds_damaged {
	const char *rel;        /* its path in the dataset */
	int64_t rows;           /* the rows it adds to the union views, as
				 * its footer or the Delta log's numRecords
				 * gives them (deleted rows left out); -1
				 * unknown */
	int64_t log_version;    /* a Delta table: the snapshot's version;
				 * -1 none */
} ds_damaged;

/* One piece of union view `view` for file `d`, which cannot be read
 * (`st`, `why`): on_damage=error reports it on the view and returns an
 * error (the read fails with EIO); skip reports its rows left out and
 * returns COLFS_OK; null reports them read as NULL and returns COLFS_OK
 * with *nulls = its rows (0, and said so, when how many is unknown).
 * `msg`: what was reported, without the file's name, for errors. */
colfs_status ds_damage_piece(colfs_tree *t, const colfs_node *view,
			     const ds_damaged *d, colfs_status st,
			     const char *why, uint64_t *nulls, char *msg,
			     size_t msg_len);

/* summary's lines on damaged files: `files` of them, `rows` their rows
 * where known, `unknown` files whose row count is not known. */
void ds_damage_summary(colfs_buf *out, colfs_on_damage mode, size_t files,
		       int64_t rows, size_t unknown);

/* A Delta table's file against its add action: the bytes on disk
 * (`path`, local; NULL: not checked) and the rows its footer gives
 * (`rows`, -1 not read) against the log's size and numRecords.  NULL
 * when they agree, else the disagreement (malloc'd). */
struct colfs_delta_file;
char *ds_delta_disagrees(const char *path, const struct colfs_delta_file *lf,
			 int64_t rows, int64_t version);

/* What a local file was when first opened (size, mtime, inode), to know
 * it again. */
typedef struct ds_identity {
	bool known;
	uint64_t size, ino, dev;
	int64_t mtime_ns;
} ds_identity;

/* Is `path` still the file `id` recorded (recording it the first
 * time)?  `listed`: the size the listing gave (UINT64_MAX: none to
 * check).  COLFS_OK, or COLFS_ECORRUPT with `why` filled. */
colfs_status ds_identity_check(const char *path, ds_identity *id,
			       uint64_t listed, char *why, size_t why_len);

#endif

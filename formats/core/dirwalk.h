/* colfs: the one lister of local directories (dirwalk.c).
 *
 * Every regular file under a directory, recursively (colfs_dirwalk), or
 * one folder's files and folders (colfs_dirwalk_folder), named by paths
 * relative to it and sorted by them.  Whoever lists gives its rules: the
 * names it leaves out without a word, whether an empty file is left out,
 * and callbacks told of each entry not taken (and why) and of each folder
 * entered (what a later change check compares).  The local directory
 * kind's listing (sourcekind.c) is a walk with no name left out; a
 * dataset's (formats/dataset) leaves out hidden and `_`-prefixed names as
 * Spark and Hive do.
 *
 * A walk never enters a mount point, nor follows a link that leaves the
 * directory (a folder out of it may be this very mount, whose answer
 * would wait for the walk; follow_links: any but mount_point), nor one
 * that leads back to a folder holding it, nor nests deeper than
 * COLFS_DIRWALK_MAX_DEPTH.  Links are resolved one component at a time,
 * never looking inside a folder it may not enter.
 */
#ifndef COLFS_DIRWALK_H
#define COLFS_DIRWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Nesting deeper than this is not entered (a loop of bind mounts). */
#define COLFS_DIRWALK_MAX_DEPTH 64

/* A file (or, from colfs_dirwalk_folder, a folder) found: its
 * '/'-separated path relative to the listed directory (malloc'd), its
 * size. */
typedef struct colfs_dirwalk_entry {
	char *rel;
	uint64_t size;
	bool dir;        /* colfs_dirwalk_folder: a folder (size 0) */
} colfs_dirwalk_entry;

/* A folder as the walk read it. */
typedef struct colfs_dirwalk_stamp {
	uint64_t dev, ino, size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
} colfs_dirwalk_stamp;

typedef struct colfs_dirwalk_rules {
	bool follow_links;         /* links out of the directory followed */
	const char *mount_point;   /* never entered (resolved), or NULL */
	size_t limit;              /* files at most (0: no limit) */
	/* Optional: is an entry named `name` left out without a word? */
	bool (*leave_out)(const char *name);
	/* Empty files are left out (and told to `skipped`). */
	bool skip_empty;
	/* Optional: `rel` was not taken for the reason `why` (a dangling
	 * link, a link out of the directory or into a loop, a mount point,
	 * nesting too deep, an empty file), worded as a dataset's `errors`
	 * shows it; `st` names its kind.  False only out of memory (the
	 * walk stops with COLFS_ENOMEM). */
	bool (*skipped)(void *ctx, const char *rel, colfs_status st,
			const char *why);
	/* Optional: the folder `rel` (never the listed directory itself)
	 * as it was when it was read.  False only out of memory. */
	bool (*folder)(void *ctx, const char *rel,
		       const colfs_dirwalk_stamp *t);
	void *ctx;
} colfs_dirwalk_rules;

/* Every regular file under the local directory `root`, recursively,
 * sorted by path (strcmp); the first `r->limit` found.  On failure `why`
 * names what could not be read and the system's reason. */
colfs_status colfs_dirwalk(const char *root, const colfs_dirwalk_rules *r,
			   colfs_dirwalk_entry **out, size_t *n, char *why,
			   size_t why_len);
/* One folder `rel` ("" the root) of `root`, not recursively: its files
 * and its folders (dir set), named `rel/name`, taken as colfs_dirwalk
 * would and sorted as its paths are (a folder sorts as "name/"). */
colfs_status colfs_dirwalk_folder(const char *root, const char *rel,
				  const colfs_dirwalk_rules *r,
				  colfs_dirwalk_entry **out, size_t *n,
				  char *why, size_t why_len);
void colfs_dirwalk_entries_free(colfs_dirwalk_entry *v, size_t n);

#endif

/* colfs: a Delta Lake table's snapshot (delta.c).
 *
 * The contract between the dataset tree (dataset.c: files/, partitions/,
 * columns/, rows.*) and the Delta log reader (delta.c): the reader turns
 * `_delta_log/` into the list of active files with their partition values
 * and the table's schema; the dataset tree shows them as it shows a
 * directory of files, and adds the `delta/` directory the reader builds.
 */
#ifndef COLFS_DELTA_H
#define COLFS_DELTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/status.h"
#include "table.h"

struct colfs_tree;
struct colfs_node;

/* Is `dir` (a local directory) a Delta table (it has `_delta_log/`)? */
bool colfs_delta_is_table(const char *dir);

/* A data file and a field of the table, as the dataset layer reads them
 * (table.h). */
typedef ds_table_file colfs_delta_file;
typedef ds_table_field colfs_delta_field;

typedef struct colfs_delta_snapshot {
	/* what the dataset layer reads: the version, the active files
	 * sorted by path with their partition values and the rows their
	 * deletion vectors delete, the top-level schema fields in order,
	 * the partition columns (logical names), the column mapping mode */
	ds_table tb;
	int64_t latest;        /* the newest version in the log */
	int min_reader_version, min_writer_version;
} colfs_delta_snapshot;

/* Read the snapshot of the table at `root` as of `version` (-1: the
 * latest): `_last_checkpoint`, the newest checkpoint at or before the
 * version (classic, multi-part, V2 with sidecars), then the JSON commits
 * after it.  An unknown reader feature, or a feature colfs cannot apply
 * (a deletion vector stored elsewhere), fails with COLFS_EUNSUPPORTED and
 * its name in `err`; a damaged log fails with COLFS_ECORRUPT naming the
 * file and offset. */
colfs_status colfs_delta_load(const char *root, int64_t version,
			      const colfs_options *o,
			      colfs_delta_snapshot **out, colfs_err *err);
void colfs_delta_free(colfs_delta_snapshot *s);

/* Fill `dir` (a directory of a dataset tree, "delta/") with the table's
 * history: versions/N/ (each commit's actions as JSON), active files,
 * protocol (reader/writer features), table properties.  `root` is the
 * table directory; the snapshot is borrowed and must outlive the tree. */
colfs_status colfs_delta_add_tree(struct colfs_tree *t, struct colfs_node *dir,
				  const char *root,
				  const colfs_delta_snapshot *s);

#endif

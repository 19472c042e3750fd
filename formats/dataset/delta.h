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

struct colfs_tree;
struct colfs_node;

/* Is `dir` (a local directory) a Delta table (it has `_delta_log/`)? */
bool colfs_delta_is_table(const char *dir);

typedef struct colfs_delta_file {
	char *path;            /* relative to the table root, %-decoded */
	uint64_t size;         /* from the add action */
	int64_t num_records;   /* from its stats; -1 when unknown */
	size_t n_partitions;   /* as many as the table's partition columns */
	char **partition_values; /* in the order of partition_columns; a
				  * NULL entry is a null value */
	/* Rows deleted by a deletion vector, ascending (0-based row
	 * indices in the file); NULL/0 when the file has none. */
	uint64_t *deleted_rows;
	size_t n_deleted_rows;
} colfs_delta_file;

typedef struct colfs_delta_field {
	char *name;            /* logical name, as users see it */
	char *physical_name;   /* the name in the data files (column
				* mapping), or the same as `name` */
	char *type_json;       /* the field's type as the log writes it */
	bool nullable;
	int64_t field_id;      /* delta.columnMapping.id: the Parquet field id
				* a column of mode `id` is found by; -1 none */
} colfs_delta_field;

typedef struct colfs_delta_snapshot {
	int64_t version;       /* the snapshot's version */
	int64_t latest;        /* the newest version in the log */
	colfs_delta_file *files;  /* active files, sorted by path */
	size_t n_files;
	colfs_delta_field *fields; /* top-level schema fields, in order */
	size_t n_fields;
	char **partition_columns;  /* logical names */
	size_t n_partition_columns;
	int min_reader_version, min_writer_version;
	char *column_mapping_mode; /* "none", "name" or "id" */
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

/* colfs: table kinds, the tables whose files and schema come from their
 * own metadata rather than from the folder they sit in (Delta Lake, and
 * any other kind listed in table.c).
 *
 * The contract between the dataset layer and a kind: the kind reads its
 * metadata into a ds_table (the files of one snapshot with their
 * partition values and deleted rows, and the table's schema); the dataset
 * layer shows those files as it shows a directory's (files/, partitions/,
 * columns/, rows.jsonl, rows.csv, summary, schema, errors, on_damage) and
 * adds the kind's own folder, which the kind fills.  A kind reaches its
 * files only through the core's source kinds (a local path or a URL
 * under the table's root), so a table on any store the core reads is a
 * table of that kind.  Adding a kind: its folder of files, one line in
 * table.c.
 */
#ifndef COLFS_TABLE_H
#define COLFS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/status.h"

struct colfs_tree;
struct colfs_node;
struct colfs_buf;

/* One data file of the snapshot. */
typedef struct ds_table_file {
	char *path;              /* relative to the table root, %-decoded */
	uint64_t size;           /* as the metadata gives it */
	int64_t num_records;     /* as the metadata gives it; -1 unknown */
	size_t n_partitions;     /* as many as the table's partition columns */
	char **partition_values; /* in the order of partition_columns, text;
				  * a NULL entry is a null value */
	/* Rows deletes remove, ascending 0-based indices in the file;
	 * NULL/0 when none (or, for a kind with a `deletes` function, until
	 * it has been called for this file). */
	uint64_t *deleted_rows;
	size_t n_deleted_rows;
	/* For each field of the table (n_fields entries; NULL: none), the
	 * value this file reads for a field it does not hold, instead of
	 * NULL (the value of a partition on that field, a default the
	 * schema gives): text, as partition_values; a NULL entry is NULL. */
	char **fill_values;
} ds_table_file;

/* One top-level field of the table's schema. */
typedef struct ds_table_field {
	char *name;              /* logical name, as users see it */
	char *physical_name;     /* its name in the data files, or `name` */
	char *type_json;         /* its type as the metadata writes it */
	bool nullable;
	int64_t field_id;        /* the Parquet field id a column is found by
				  * under column mapping `id`; -1 none */
	/* Under column mapping `id`, a file whose columns have no field
	 * ids: the names its column of this field may have (a name
	 * mapping), NULL-terminated; NULL: none (such a file is damaged
	 * when no field has any). */
	char **mapped_names;
	/* With mapped_names: how its nested members are found by the
	 * mapping's nested fields (dataset_members.h); NULL: read as the
	 * file has them (a primitive, or no nested mapping). */
	struct json_t *member_map;
} ds_table_field;

typedef struct ds_table {
	const struct ds_table_kind *kind;
	int64_t version;          /* the snapshot's version or id */
	char version_label[64];   /* the snapshot in messages: "Delta log at
				   * version 3" */
	ds_table_file *files;     /* sorted by path */
	size_t n_files;
	ds_table_field *fields;   /* top-level schema fields, in order */
	size_t n_fields;
	char **partition_columns; /* logical names; their values come from
				   * the metadata, not from the files */
	size_t n_partition_columns;
	/* The partition columns name the folders of partitions/ only: they
	 * are no columns of the union views (whose values the files hold,
	 * the partition values being derived from them). */
	bool partitions_only;
	char *column_mapping_mode;   /* "none", "name" (files' columns
				   * by physical name) or "id" (by field id) */
	/* Parts of its metadata the kind could not read (a manifest),
	 * whose files are therefore not in `files`: one line each naming
	 * the file, filed in errors at the root once `files` has run.  The
	 * union views then fail under on_damage=error; skip and null show
	 * the files that are known. */
	char **problems;
	size_t n_problems;
} ds_table;

typedef struct ds_table_kind {
	const char *name;         /* in messages: "Delta Lake" */
	const char *folder;       /* the tree's folder of the kind's own
				   * metadata: "delta" */
	/* in messages on a file its metadata describes otherwise: "its
	 * footer gives 10 rows, while the <version_label> adds it with
	 * <records_name> 1: not the file the <metadata_noun> added" */
	const char *records_name; /* "numRecords" */
	const char *metadata_noun; /* "log" */
	/* summary: "deleted rows: N (by <deletes_noun>: left out ...)" */
	const char *deletes_noun; /* "deletion vectors" */
	/* The metadata's file sizes are not checked against the files (its
	 * record counts are): a kind whose writers are known to record
	 * sizes other than the bytes stored (tables rewritten by tools that
	 * keep the manifests). */
	bool sizes_unchecked;
	/* Is the local directory `root` a table of this kind? */
	bool (*is_table)(const char *root);
	/* Does `key`, a key of a remote prefix's listing (relative to the
	 * prefix), say that the prefix is a table of this kind? */
	bool (*is_listing_key)(const char *key);
	/* Optional: is `name` (a path or URL, by its last part) a metadata
	 * file of this kind, which names its table?  Then the table's root
	 * as `load` takes it (malloc'd), else NULL.  `load` then reads that
	 * file (colfs_options.table_metadata) as the table's metadata. */
	char *(*metadata_root)(const char *name);
	/* Read the table at `root` (a local directory or a prefix's URL
	 * without its last '/') as the options say (which snapshot): its
	 * metadata only, when the kind has a `files` function. */
	colfs_status (*load)(const char *root, const colfs_options *o,
			     ds_table **out, colfs_err *err);
	/* Fill tb->files; NULL when `load` does.  Called once, under the
	 * dataset's lock, when a listing or a view first needs them. */
	colfs_status (*files)(ds_table *tb, colfs_err *err);
	/* Fill tb->files[i]'s deleted rows; NULL when `files` does.  Called
	 * once per file, from several threads at once, before the file's
	 * rows are counted or read; a failure makes the file a damaged one
	 * (on_damage), `err` naming why. */
	colfs_status (*deletes)(ds_table *tb, size_t i, colfs_err *err);
	/* Fill `dir`, the kind's folder at the tree's root.  `root` as for
	 * load; the table outlives the tree. */
	colfs_status (*add_tree)(struct colfs_tree *t, struct colfs_node *dir,
				 const char *root, ds_table *tb);
	/* Optional: lines the kind adds to the root's summary (which
	 * metadata and snapshot, what it has read of them). */
	void (*summary)(ds_table *tb, struct colfs_buf *out);
	void (*free)(ds_table *tb);
} ds_table_kind;

/* The table kinds, in the order they are tried; NULL-terminated. */
extern const ds_table_kind *const ds_table_kinds[];

/* The kind of the local directory `root`, or NULL. */
const ds_table_kind *ds_table_kind_of_dir(const char *root);
/* The kind a remote listing's key says its prefix is, or NULL. */
const ds_table_kind *ds_table_kind_of_key(const char *key);
/* The kind whose metadata file `name` is, or NULL; *root (malloc'd)
 * its table's root.  (*root is NULL when `root` is NULL.) */
const ds_table_kind *ds_table_kind_of_metadata(const char *name,
					       char **root);

#endif

/* colfs: what the Iceberg table kind's files share (ice_meta.c finds and
 * parses the metadata JSON and picks the snapshot; ice_manifest.c reads
 * manifest lists and manifests; ice_tree.c builds `iceberg/`; ice_kind.c
 * is the table kind the dataset layer calls). */
#ifndef COLFS_ICE_INT_H
#define COLFS_ICE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "../../colfs.h"
#include "../../core/buf.h"
#include "../../core/status.h"
#include "ice_deletes.h"

/* The largest metadata JSON or version hint read whole (the options'
 * max_alloc bounds it further; manifests are read block by block). */
#define ICE_MAX_META (256u << 20)

/* A manifest as the snapshot's manifest list (or a v1 snapshot's
 * `manifests` array) names it. */
typedef struct ice_manifest_ref {
	char *path;          /* manifest_path as written */
	char *local;         /* mapped: where colfs reads it */
	int content;         /* 0 data, 1 deletes */
	int64_t seq;         /* sequence_number (v1: 0) */
	int32_t spec_id;
	json_t *entry;       /* the manifest list's record as JSON (owned) */
} ice_manifest_ref;

/* A table as its metadata JSON gives it, with the snapshot colfs shows. */
typedef struct ice_table {
	char *root;          /* the mounted root: absolute path, or a URL
			      * without its last '/' */
	bool remote;
	char *meta_rel;      /* the metadata file, relative to root */
	json_t *meta;        /* the metadata document */
	int format_version;  /* 1, 2 or 3 */
	char *location;      /* the prefix mapped onto root (the metadata's
			      * `location`, or -o location=) */
	bool location_given; /* from -o location= */
	json_t *snap;        /* the snapshot shown (borrowed from meta), NULL:
			      * the table has none */
	int64_t snap_id;     /* -1: none */
	char *snap_why;      /* how it was chosen ("current", "ref main", ...) */
	json_t *schema;      /* the snapshot's schema (borrowed from meta) */
	int64_t schema_id;
	colfs_options opts;  /* the files' options (no snapshot options) */

	/* read lazily, once (ice_table_files), under `lock` */
	pthread_mutex_t lock;
	int files_state;     /* 0 not read, 1 read, -1 failed */
	colfs_err files_err;
	ice_manifest_ref *manifests;
	size_t n_manifests;
	ice_file *data, *dels;          /* live files, data sorted by path */
	size_t n_data, n_dels;
	/* problems met reading manifests (each names file and snapshot) */
	char **problems;
	size_t n_problems;
	/* a delete manifest could not be read: which rows the snapshot
	 * deletes is not known (its path, for messages; NULL: none) */
	char *dels_unknown;
} ice_table;

/* ice_meta.c */
/* Is the local directory `root` an Iceberg table (a metadata/ folder
 * holding a *.metadata.json)? */
bool ice_is_table(const char *root);
/* Does a remote listing's key say its prefix is an Iceberg table? */
bool ice_is_listing_key(const char *key);
/* table.h's metadata_root: the root of the table whose metadata file
 * `name` is (vN.metadata.json, NNNNN-<uuid>.metadata.json, gzip'd
 * spellings): the folder above metadata/, else the file's own folder;
 * NULL when `name` is no such file or that root is no directory or
 * prefix colfs lists. */
char *ice_metadata_root(const char *name);
/* Find the current metadata file of the table at `root` (version-hint,
 * else the highest version), parse it and pick the snapshot the options
 * ask for (snapshot=, as_of=, ref=; else the current one). */
colfs_status ice_table_load(const char *root, const colfs_options *o,
			    ice_table **out, colfs_err *err);
void ice_table_free(ice_table *tb);
/* A path the metadata writes, as colfs reads it: under the table's
 * location, onto the root; a file: URI as its path; else as written.
 * malloc'd. */
char *ice_map_path(const ice_table *tb, const char *path);
/* `path` relative to the root when it maps under it (malloc'd), else NULL. */
char *ice_rel_path(const ice_table *tb, const char *path);
/* A file of the table (mapped path or URL) read whole, NUL-terminated
 * (`*len` its length), at most ICE_MAX_META or max_alloc bytes; one
 * that starts with gzip's magic is decompressed (within the same cap).
 * NULL with `err` naming `shown` on failure. */
char *ice_read_whole(const char *local, const char *shown,
		     const colfs_options *o, size_t *len, colfs_err *err);
/* The snapshot of `id` in the metadata (borrowed), or NULL. */
json_t *ice_snapshot_by_id(const ice_table *tb, int64_t id);
/* A schema by id (v1's single `schema` answers every id). */
json_t *ice_schema_by_id(const ice_table *tb, int64_t id);
/* A partition spec's fields by id (v1's `partition-spec` is spec 0), or
 * NULL. */
json_t *ice_spec_fields(const ice_table *tb, int64_t id);
/* Free what a manifest list's references and a file hold. */
void ice_manifests_free(ice_manifest_ref *m, size_t n);
void ice_file_clear(ice_file *f);
/* A JSON integer, or a string of digits, as int64 (`*ok` false: neither). */
int64_t ice_json_i64(json_t *v, bool *ok);

/* ice_manifest.c */
/* The manifests of `snap` (its manifest list, or a v1 snapshot's
 * `manifests`). */
colfs_status ice_manifests_read(const ice_table *tb, json_t *snap,
				ice_manifest_ref **out, size_t *n,
				colfs_err *err);
/* Each entry of manifest `m`: `fn` gets the entry as JSON (status,
 * snapshot_id, sequence numbers, data_file) and the file as scan
 * planning needs it (borrowed; its `seq` inherited as the spec says;
 * `status` 0 existing, 1 added, 2 deleted).  `fn` returning non-zero
 * stops the walk. */
typedef int (*ice_entry_fn)(void *ctx, json_t *entry, const ice_file *f,
			    int status);
colfs_status ice_manifest_each(const ice_table *tb, const ice_manifest_ref *m,
			       ice_entry_fn fn, void *ctx, colfs_err *err);
/* The live data and delete files of the table's snapshot, read once
 * (manifests in parallel); problems (a missing or damaged manifest)
 * go to tb->problems and leave that manifest's files out.  COLFS_OK
 * unless memory ran out or the manifest list itself failed. */
colfs_status ice_table_files(ice_table *tb, colfs_err *err);
/* A partition tuple's value as text, typed by its transform's result
 * (identity: the source type; day: a date; hour: hours; ...); NULL:
 * null.  malloc'd. */
char *ice_partition_text(const ice_table *tb, int32_t spec_id,
			 const char *field, json_t *v);

/* ice_deltree.c: add `deletes/` to `dir` (the dataset's iceberg/): a
 * folder for each of the snapshot's delete files, by its path.
 * `applies(ctx)` gives, for each of it->dels, the data files it applies
 * to by scan planning, as JSON arrays of their paths relative to the
 * table (NULL, `err` set, when the manifests or the deletes' index
 * cannot be read), freed by `applies_free(ctx, ...)`. */
struct colfs_tree;
struct colfs_node;
typedef json_t **(*ice_applies_fn)(void *ctx, colfs_err *err);
typedef void (*ice_applies_free_fn)(void *ctx, json_t **applies);
colfs_status ice_deltree_add(struct colfs_tree *t, struct colfs_node *dir,
			     ice_table *it, ice_applies_fn applies,
			     ice_applies_free_fn applies_free, void *ctx);
/* Delete file j's line of iceberg/delete_files.jsonl, `applies[j]`
 * (taken, set to NULL) its applies_to, added to `out`. */
colfs_status ice_delete_line(const ice_table *it, size_t j, json_t **applies,
			     colfs_buf *out);

/* ice_tree.c: fill `dir` (the dataset's iceberg/) with the table's
 * metadata, schemas, specs, sort orders, refs, history and snapshots;
 * the table is borrowed and outlives the tree. */
colfs_status ice_tree_add(struct colfs_tree *t, struct colfs_node *dir,
			  const ice_table *tb);

#endif

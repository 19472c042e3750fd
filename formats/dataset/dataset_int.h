/* colfs: the dataset module's own declarations (dataset.c,
 * dataset_list.c). */
#ifndef COLFS_DATASET_INT_H
#define COLFS_DATASET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/buf.h"
#include "../core/dirwalk.h"
#include "../core/status.h"
#include "table.h"

/* One file found under the dataset's root (dir: ds_list_folder's
 * folder, size 0): the core walk's entry, which a prefix's listing
 * fills too. */
typedef colfs_dirwalk_entry ds_entry;

/* An entry a listing did not take, and why (a problem of the dataset):
 * an empty file, a dangling link, a link that leaves the directory or
 * loops, a mount point, folders nested too deep. */
typedef struct ds_skip {
	char *rel;
	char *why;
	colfs_status st;      /* as `errors` names it */
} ds_skip;

/* A folder as a listing read it: what the change check compares
 * (dataset_change.c). */
typedef struct ds_stamp {
	char *rel;
	uint64_t dev, ino, size;
	int64_t mtime_sec;
	uint32_t mtime_nsec;
} ds_stamp;

/* What a listing passed by besides the files it returns. */
typedef struct ds_found {
	ds_skip *skips;
	size_t nskips, capskips;
	ds_stamp *stamps;
	size_t nstamps, capstamps;
} ds_found;
void ds_found_free(ds_found *f);

/* Every regular file under `root` (a local directory), recursively,
 * sorted by path (strcmp), hidden and `_`-prefixed names skipped; the
 * first `limit` found (SIZE_MAX: all; 1: is there any?).  The core's
 * walk (core/dirwalk.h) with the dataset's rules; an S3 prefix lister
 * fills the same list.  It never
 * enters a mount point nor follows a link that leaves `root` (a folder
 * out of it may be this very mount; opts->follow_links: any but
 * opts->mount_point) or leads back to a folder that holds it; those,
 * empty files and dangling links go to `found` (may be NULL) with the
 * folders read.  `opts` may be NULL. */
colfs_status ds_list_local(const char *root, const colfs_options *opts,
			   size_t limit, ds_entry **out, size_t *n,
			   ds_found *found, char *why, size_t why_len);
void ds_entries_free(ds_entry *v, size_t n);
/* One folder `rel` ("" the root) of a local dataset, not recursively:
 * its files and its folders (dir set), named `rel/name`, skipped and
 * ordered as ds_list_local would (a folder sorts as "name/"). */
colfs_status ds_list_folder(const char *root, const colfs_options *opts,
			    const char *rel, ds_entry **out, size_t *n,
			    ds_found *found, char *why, size_t why_len);
/* Is the local directory `root` a table of a format colfs does not read
 * yet (Apache Hudi, Apache Paimon), whose folder read as
 * plain files would show rows the table does not hold?  If so, `why`
 * says which and what gave it away. */
bool ds_foreign_table(const char *root, char *why, size_t why_len);
/* A local directory whose first file is not a columnar one: the others'
 * magic is looked at (`columnar`) until one is (COLFS_OK: the directory
 * is taken); else COLFS_EUNSUPPORTED, `err` naming what it holds: "no
 * Parquet, ORC or CFile file in this directory (1 other file: x.csv)". */
colfs_status ds_list_refuse(const char *root, const colfs_options *opts,
			    bool (*columnar)(void *ctx, const char *rel,
					     uint64_t size),
			    void *ctx, colfs_err *err);

/* The folders a dataset has read, and whether any has changed since
 * (dataset_change.c): the check behind every read of the tree. */
typedef struct ds_stamps ds_stamps;
ds_stamps *ds_stamps_create(void);
void ds_stamps_destroy(ds_stamps *s);
/* Keep the stamps of `found` (taken from it) not kept yet: the first
 * reading of a folder is the one the tree shows. */
void ds_stamps_add(ds_stamps *s, ds_found *found);
/* COLFS_EIO with "source changed since mount (...): remount" once a
 * folder kept has changed (and at every call after).  `dirfd` is the
 * dataset's directory.  A walk of the folders is made at most once in
 * 200 times the last one took, so the checks cost at most half a
 * percent of the time (a few folders: each check; `force`: now). */
colfs_status ds_stamps_check(ds_stamps *s, int dirfd, bool force,
			     colfs_err *err);
/* The lines of `errors` saying the tree's source (or a folder) changed
 * since the mount, as a changed file's `errors` says it: the core files
 * the change at the tree's root once a check has seen it (one is made
 * here). */
struct colfs_buf;
void ds_change_render(colfs_tree *t, struct colfs_buf *out);
/* The objects under an S3 prefix (its source kind's listing,
 * colfs_source_list), with
 * the same names skipped and in the same order as ds_list_local; keys
 * relative to the prefix.  *kind: the table kind a key says the prefix
 * is (table.h), or NULL. */
colfs_status ds_list_s3(const char *url, const colfs_options *opts,
			const ds_table_kind **kind, ds_entry **out, size_t *n,
			char *why,
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
	const char *snapshot;   /* a table kind's: its snapshot in messages
				 * ("Delta log at version 3"); NULL none */
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

/* A table's file against its metadata (table.h): the bytes on disk
 * (`path`, local; NULL: not checked) and the rows its footer gives
 * (`rows`, -1 not read) against the size and record count the metadata
 * gives.  NULL when they agree, else the disagreement (malloc'd). */
char *ds_table_disagrees(const char *path, const ds_table *tb, size_t i,
			 int64_t rows);

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


/* The dataset tree's own state, shared by dataset.c (the tree and the
 * open), dataset_files.c (problems, open trees, the listing),
 * dataset_schema.c (probing, loading, unification),
 * dataset_hive.c (Hive partitions) and dataset_union.c (the union views). */
#include "dataset_jsonl.h"
#include "dataset_keycol.h"
#include "../core/graft.h"
#include "../core/render.h"
#include "../core/thread.h"
#include "../core/tree.h"
#include "../core/sourcekind.h"
#include <ctype.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Threads reading magic bytes at once: the reads wait on the disk or the
 * network, not on a CPU (the footers are read on one thread a CPU,
 * colfs_cpus). */
#define DS_POOL_MAX 8
/* Files named in one drift problem before "and N more". */
#define DS_NAME_FILES 10
/* A graft key naming a file by its path (a string of the host tree)
 * rather than by its index (disk_folder_populate); user-space addresses
 * leave the top bit clear. */
#define DS_LOOSE_KEY (UINT64_C(1) << 63)

typedef enum ds_type { DS_BIGINT, DS_DATE, DS_VARCHAR } ds_type;

static const char *const ds_type_name[] = {"BIGINT", "DATE", "VARCHAR"};

typedef struct ds_key {
	char *name;
	ds_type type;
} ds_key;

typedef struct ds_file {
	char *rel;            /* relative path */
	char *tree_path;      /* "/files/<escaped components>" */
	uint64_t size;
	char **pvals;         /* per key, decoded; NULL: null (or absent) */
	/* the magic: 0 not looked at, 1 a columnar file, -1 not one */
	int kind;
	/* footer facts (load): 0 not read, 1 read, -1 unreadable */
	int info;
	char *why;            /* unreadable: the reason */
	const char *format;
	int64_t rows;
	int64_t groups;       /* row groups, stripes, or -1 */
	char *writer;
	char *schema_text;
	char **fields;        /* columns/ names (escaped) */
	char **types;         /* each field's schema text, or "" */
	char **phys;          /* a Delta table with column mapping: each
			       * field's own name in the file (escaped, as
			       * its columns/ names it); NULL: `fields` */
	char **raw;           /* each field's real name where columns/ cuts
			       * it (over 200 bytes), else NULL; NULL: none
			       * is cut */
	size_t nfields;
	bool name_mapped;     /* its fields found through the table's name
			       * mapping (no field ids): nested values by
			       * the fields' member_map */
	/* a table's file: the rows its deletes delete (ascending, borrowed
	 * from the table), left out of the union views */
	const uint64_t *deleted;
	size_t ndeleted;
	/* why the union views cannot read it whole (dataset_damage.c):
	 * missing, changed, not decodable; set once, under plock */
	char *damage;
	bool read_failed;     /* a union view's read of it failed (plock) */
	ds_identity ident;    /* what it was when first opened */
	size_t schema_id;
	/* the open tree (lru) */
	colfs_tree *tree;
	unsigned refs;
	uint64_t used;
	size_t synced;        /* its problems copied so far */
} ds_file;

typedef struct ds_field {
	char *name;           /* escaped, as in columns/ */
	char *raw;            /* the real name where `name` is cut, or NULL */
	char *key_json;       /* "name" as rows.jsonl writes the key */
	char *key_csv;        /* as rows.csv's header writes it */
	char *type;           /* schema text of the first file with it */
	long key;             /* a Hive key that is also this column of the
				 files: its index (the key's values and type
				 at the column's place), else -1 */
	bool nested;          /* a struct's leaf (`a.b` beside `a`): a view
				 of columns/, inside its struct's member
				 of rows.* and its text in schema */
	long tfield;          /* a table's schema field: its index in
				 ds_table.fields (a file lacking it reads
				 its fill value), else -1 */
} ds_field;

typedef struct dataset {
	char *root;           /* absolute, or an S3 URL without its last '/' */
	bool s3;              /* an S3 prefix: files are objects */
	colfs_options gopts;  /* the files' trees */
	ds_file *files;
	size_t nfiles;
	ds_key *keys;
	size_t nkeys;
	/* a local directory is listed when its tree is first listed, not
	 * at open (under `load`): the root view's files come then */
	bool listed;          /* atomic */
	/* the root listed alone (ds_list_root): it has a `key=value`
	 * folder, the rest is listed when a view needs it */
	bool top_keys;
	struct ds_view *root_view;
	bool probed;
	/* footers */
	pthread_mutex_t load;
	int loaded;           /* atomic */
	ds_field *fields;
	size_t nfields;
	char **schemas;       /* distinct schema texts */
	size_t nschemas;
	/* open trees */
	pthread_mutex_t lru;
	size_t nopen;
	size_t *open_idx;     /* the files whose tree is open (nopen) */
	size_t capopen;
	uint64_t clock;
	/* a table of a table kind (table.h): its snapshot */
	ds_table *table;
	bool table_files;     /* its kind has given its files (under load) */
	/* problems found off the host's lock, rendered by `errors` */
	pthread_mutex_t plock;
	char **problems;
	size_t nproblems, capproblems;
	/* the folders listed, for the change check (a local directory) */
	ds_stamps *stamps;
} dataset;

/* A dataset tree: the whole dataset or one partition of it. */
typedef struct ds_view ds_view;
struct ds_view {
	dataset *ds;
	size_t *idx;          /* its files, in path order */
	size_t n;
	size_t key0;          /* the first key partitions/ splits by */
	const char *prefix;   /* its path in the host ("" for the root) */
};

/* dataset_files.c */
void ds_problem(dataset *ds, const char *path, uint64_t offset,
		colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* dataset_files.c */
void ds_set_damage(dataset *ds, ds_file *f, const char *why);

/* dataset_files.c */
void ds_sync(dataset *ds, ds_file *f, colfs_tree *g);

/* dataset_files.c */
colfs_status ds_acquire(void *ctx, uint64_t key, colfs_tree **out);
/* The same, a failure neither filed nor kept as the file's damage. */
colfs_status ds_acquire_quiet(dataset *ds, uint64_t key, colfs_tree **out);

/* dataset_files.c */
void ds_release(void *ctx, uint64_t key, colfs_tree *guest);

/* dataset_files.c */
colfs_status ds_read_node(colfs_tree *g, const char *path,
				 colfs_buf *out);

/* dataset_files.c */
ds_view *ds_view_of(colfs_node *n);

/* dataset_files.c */
bool ds_view_decodes(colfs_tree *t, colfs_node *n, uint64_t *bytes);

/* dataset_files.c */
int64_t ds_rows(const ds_file *f);

/* dataset_files.c */
int64_t ds_rows_shown(const ds_file *f);

/* dataset_files.c */
int64_t ds_damaged_rows(const dataset *ds, size_t i);

/* dataset_files.c */
colfs_status ds_list_now(dataset *ds, char *why, size_t why_len);

/* dataset_schema.c */
void ds_pool_each(unsigned k, size_t n, void (*fn)(void *arg, size_t i),
			 void *arg);

/* dataset_schema.c */
int ds_magic(const dataset *ds, const char *rel, uint64_t size);

/* dataset_schema.c */
void ds_probe_all(dataset *ds);

/* dataset_schema.c */
void ds_probe_some(dataset *ds, const size_t *idx, size_t n);

/* dataset_schema.c */
char *ds_csv_text(const char *s, size_t n);

/* dataset_schema.c */
char *ds_csv_key(const char *escaped);

/* dataset_schema.c */
bool ds_key_placed(const dataset *ds, size_t k);

/* dataset_schema.c */
void ds_load(dataset *ds);

/* dataset_hive.c */
colfs_status ds_partitions(dataset *ds);

/* dataset_hive.c */
void ds_render_pval(colfs_buf *b, const dataset *ds, size_t k,
			   const char *v, int mode /* 0 text, 1 json, 2 csv */,
			   const char *null_token);

/* dataset_union.c: the node ops of a union view's columns/<field> and
 * rows.jsonl, rows.csv */
extern const colfs_node_ops ds_column_ops;
extern const colfs_node_ops ds_rows_ops;

/* dataset_files.c: the files' table and the listing behind it */
extern const colfs_graft_ops ds_graft_ops;
void ds_found_take(dataset *ds, ds_found *found);
void dataset_files_free(dataset *ds);
char *ds_tree_path(const char *rel);
colfs_status ds_list_table(dataset *ds, char *why, size_t why_len);
colfs_status ds_table_deletes(dataset *ds, size_t i);
colfs_status ds_adopt(dataset *ds, ds_entry *ents, size_t n);
colfs_status ds_list_root(dataset *ds, char *why, size_t why_len);

#endif

/* colfs: a dataset: a directory of Parquet, ORC and CFile files shown as
 * one tree (docs/dataset-tree.md).
 *
 * Opening lists the files (dataset_list.c) and reads nothing else.
 * `files/<path>/` grafts each file's own tree (core/graft.c), opened on
 * first use; at most max_open_files trees are open at once (the least
 * recently used one with no reader is closed, its problems kept).  A
 * listing that needs the footers (summary, schema, schemas/, columns/,
 * rows.*) reads them all once, on a bounded pool of threads.  Union views
 * are streams with one piece per file: the file's own view, its fields
 * put in the unified order (NULL for a field it lacks), Hive partition
 * values added.  `partitions/<key>=<value>/` is the same tree over the
 * files of one partition.  A Delta table (delta.h) gives the files and
 * the partition values; its union views leave out the rows of each
 * file's deletion vector and name its columns by their logical names
 * (column mapping: f->phys keeps each field's column in the file).
 *
 * Locks: the host tree's lock (populate, generate) is taken before
 * `load` and `lru`, never after; the pool's threads and the LRU never
 * touch the host tree, so problems found there go to the dataset's own
 * list (`plock`), which `errors` renders.
 */
#include "dataset_int.h"
#include "dataset_jsonl.h"
#include "dataset_keycol.h"
#include "delta.h"
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
	/* a Delta table: the rows its deletion vector deletes (ascending,
	 * borrowed from the snapshot), left out of the union views */
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
	/* a Delta table: its snapshot */
	colfs_delta_snapshot *snap;
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

/* ------------------------------------------------------------------------
 * Problems: "path: offset: kind: message" lines; `st` COLFS_OK makes a
 * note of the dataset as a whole ("path: message": schema drift names
 * no byte of any file and is no damage)
 */
static void ds_problem(dataset *ds, const char *path, uint64_t offset,
		       colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void ds_problem(dataset *ds, const char *path, uint64_t offset,
		       colfs_status st, const char *fmt, ...)
{
	char msg[1024], where[48];
	va_list ap;
	colfs_buf b = COLFS_BUF_INIT;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (st == COLFS_OK)     /* a note of the dataset: no byte, no kind */
		colfs_buf_printf(&b, "%s: %s\n", path, msg);
	else
		colfs_buf_printf(&b, "%s: %s: %s: %s\n", path,
				 colfs_offset_text(offset, where, sizeof where),
				 colfs_status_name(st), msg);
	colfs_buf_putc(&b, '\0');
	if (colfs_buf_status(&b) != COLFS_OK) {
		colfs_buf_free(&b);
		return;
	}
	pthread_mutex_lock(&ds->plock);
	for (size_t i = 0; i < ds->nproblems; i++) {
		if (strcmp(ds->problems[i], b.data) == 0) {
			pthread_mutex_unlock(&ds->plock);
			colfs_buf_free(&b);
			return;
		}
	}
	if (ds->nproblems == ds->capproblems) {
		size_t nc = ds->capproblems ? ds->capproblems * 2 : 16;
		char **p = realloc(ds->problems, nc * sizeof *p);
		if (!p) {
			pthread_mutex_unlock(&ds->plock);
			colfs_buf_free(&b);
			return;
		}
		ds->problems = p;
		ds->capproblems = nc;
	}
	ds->problems[ds->nproblems++] = b.data;
	pthread_mutex_unlock(&ds->plock);
}

/* File `f` is damaged (dataset_damage.c): the first reason is kept. */
static void ds_set_damage(dataset *ds, ds_file *f, const char *why)
{
	pthread_mutex_lock(&ds->plock);
	if (!f->damage)
		f->damage = strdup(why);
	pthread_mutex_unlock(&ds->plock);
}

/* Copy the problems of file `f`'s open tree not copied yet. */
static void ds_sync(dataset *ds, ds_file *f, colfs_tree *g)
{
	colfs_problem *p = malloc(sizeof *p);
	if (!p)
		return;
	for (;; f->synced++) {
		if (colfs_tree_error_get(g, f->synced, p) != COLFS_OK)
			break;
		char path[2048];
		snprintf(path, sizeof path, "%s%s", f->tree_path,
			 strcmp(p->path, "/") ? p->path : "");
		ds_problem(ds, path, p->offset, p->status, "%s", p->message);
	}
	free(p);
}

static char *ds_tree_path(const char *rel);

/* What a listing passed by: each entry it did not take a problem under
 * its path, each folder it read kept for the change check. */
static void ds_found_take(dataset *ds, ds_found *found)
{
	for (size_t i = 0; i < found->nskips; i++) {
		char *path = ds_tree_path(found->skips[i].rel);
		if (path)
			ds_problem(ds, path, UINT64_MAX, found->skips[i].st,
				   "%s", found->skips[i].why);
		free(path);
	}
	ds_stamps_add(ds->stamps, found);
	ds_found_free(found);
}

/* ------------------------------------------------------------------------
 * Open trees: a bounded LRU with references
 */
static bool ds_grow_index(size_t **arr, size_t *cap)
{
	size_t nc = *cap ? *cap * 2 : 64;
	size_t *p = realloc(*arr, nc * sizeof *p);
	if (!p)
		return false;
	*arr = p;
	*cap = nc;
	return true;
}

static colfs_status ds_list_now(dataset *ds, char *why, size_t why_len);

static int ds_file_rel_cmp(const void *key, const void *f)
{
	return strcmp(key, ((const ds_file *)f)->rel);
}

/* The index of a graft's file: a loose key (a folder listed before the
 * dataset, disk_folder_populate) found by its path once the dataset is
 * listed; UINT64_MAX none. */
static uint64_t ds_key_index(dataset *ds, uint64_t key)
{
	char why[512] = "";
	if (!(key & DS_LOOSE_KEY))
		return key < ds->nfiles ? key : UINT64_MAX;
	const char *rel = (const char *)(uintptr_t)(key & ~DS_LOOSE_KEY);
	colfs_status st = ds_list_now(ds, why, sizeof why);
	if (st != COLFS_OK) {
		ds_problem(ds, "/", UINT64_MAX, st, "the directory cannot be "
			   "listed: %s", why[0] ? why : colfs_status_name(st));
		return UINT64_MAX;
	}
	const ds_file *f = bsearch(rel, ds->files, ds->nfiles,
				   sizeof *ds->files, ds_file_rel_cmp);
	return f ? (uint64_t)(f - ds->files) : UINT64_MAX;
}

static colfs_status ds_acquire(void *ctx, uint64_t key, colfs_tree **out)
{
	dataset *ds = ctx;
	ds_file *f;
	colfs_tree *evicted[4];
	size_t nev = 0;

	*out = NULL;
	key = ds_key_index(ds, key);
	if (key >= ds->nfiles)
		return COLFS_ENOENT;
	f = &ds->files[key];
	pthread_mutex_lock(&ds->lru);
	if (f->tree) {
		f->refs++;
		f->used = ++ds->clock;
		*out = f->tree;
		pthread_mutex_unlock(&ds->lru);
		return COLFS_OK;
	}
	pthread_mutex_unlock(&ds->lru);

	char *path = malloc(strlen(ds->root) + strlen(f->rel) + 2);
	char why[512] = "";
	colfs_tree *t = NULL;
	colfs_status st;
	if (!path)
		return COLFS_ENOMEM;
	sprintf(path, "%s/%s", ds->root, f->rel);
	/* a local file is the one first opened (and, outside a Delta
	 * table, of the size listed); a Delta file's size is checked
	 * against its add action at load */
	pthread_mutex_lock(&ds->lru);
	st = ds->s3 ? COLFS_OK
		: ds_identity_check(path, &f->ident, ds->snap ? UINT64_MAX
				    : f->size, why, sizeof why);
	pthread_mutex_unlock(&ds->lru);
	if (st != COLFS_OK) {
		free(path);
		ds_problem(ds, f->tree_path, UINT64_MAX, st, "%s", why);
		ds_set_damage(ds, f, why);
		return st;
	}
	st = colfs_tree_open(path, &ds->gopts, &t, why, sizeof why);
	free(path);
	if (st != COLFS_OK) {
		/* "<path>: reason": the reason alone, under the file */
		const char *r = strstr(why, ": ");
		char note[600];
		int nl = snprintf(note, sizeof note, "not opened: %s",
				  r ? r + 2 : why[0] ? why
				  : colfs_status_name(st));
		if (ds->snap && nl > 0 && (size_t)nl < sizeof note)
			snprintf(note + nl, sizeof note - (size_t)nl, " (an "
				 "active file of the Delta log at version "
				 "%lld)", (long long)ds->snap->version);
		ds_problem(ds, f->tree_path, UINT64_MAX, st, "%s", note);
		if (st != COLFS_ENOMEM)   /* the next open may succeed */
			ds_set_damage(ds, f, note);
		return st;
	}
	pthread_mutex_lock(&ds->lru);
	if (f->tree) {
		/* Another thread opened it meanwhile. */
		evicted[nev++] = t;
	} else if (ds->nopen == ds->capopen &&
		   !ds_grow_index(&ds->open_idx, &ds->capopen)) {
		pthread_mutex_unlock(&ds->lru);
		colfs_tree_destroy(t);
		return COLFS_ENOMEM;
	} else {
		f->tree = t;
		f->synced = 0;
		ds->open_idx[ds->nopen++] = (size_t)key;
	}
	f->refs++;
	f->used = ++ds->clock;
	*out = f->tree;
	/* Close the least recently used trees no one holds. */
	while (ds->nopen > ds->gopts.max_open_files && nev < 4) {
		ds_file *old = NULL;
		size_t at = 0;
		for (size_t i = 0; i < ds->nopen; i++) {
			ds_file *c = &ds->files[ds->open_idx[i]];
			if (!c->refs && (!old || c->used < old->used)) {
				old = c;
				at = i;
			}
		}
		if (!old)
			break;
		ds_sync(ds, old, old->tree);
		evicted[nev++] = old->tree;
		old->tree = NULL;
		ds->open_idx[at] = ds->open_idx[--ds->nopen];
	}
	pthread_mutex_unlock(&ds->lru);
	for (size_t i = 0; i < nev; i++)
		colfs_tree_destroy(evicted[i]);
	return COLFS_OK;
}

static void ds_release(void *ctx, uint64_t key, colfs_tree *guest)
{
	dataset *ds = ctx;
	(void)guest;
	key = ds_key_index(ds, key);
	if (key >= ds->nfiles)
		return;
	pthread_mutex_lock(&ds->lru);
	if (ds->files[key].refs)
		ds->files[key].refs--;
	pthread_mutex_unlock(&ds->lru);
}

static const colfs_graft_ops ds_graft_ops = {
	.acquire = ds_acquire,
	.release = ds_release,
};

/* The whole of a file node of guest `g` at `path` into `out`. */
static colfs_status ds_read_node(colfs_tree *g, const char *path,
				 colfs_buf *out)
{
	colfs_node *n;
	colfs_handle *h;
	COLFS_TRY(colfs_tree_resolve(g, path, &n));
	COLFS_TRY(colfs_node_open(g, n, &h));
	colfs_status st = COLFS_OK;
	char *chunk = malloc(1 << 20);
	uint64_t at = 0;
	if (!chunk)
		st = COLFS_ENOMEM;
	while (st == COLFS_OK) {
		size_t got = 0;
		st = colfs_handle_read(h, at, 1 << 20, chunk, &got);
		if (st != COLFS_OK || got == 0)
			break;
		colfs_buf_append(out, chunk, got);
		at += got;
		st = colfs_buf_status(out);
	}
	free(chunk);
	colfs_handle_close(h);
	return st;
}

/* ------------------------------------------------------------------------
 * Magic and footers
 */
/* Run `fn(arg, i)` for every i in [0, n) on up to `k` threads (the
 * core's parallel-for). */
static void ds_pool_each(unsigned k, size_t n, void (*fn)(void *arg, size_t i),
			 void *arg)
{
	colfs_parallel_for(k, n, fn, arg);
}

/* fn(ds, file) for the `n` files of `idx` (NULL: every file). */
typedef struct ds_pool_files {
	dataset *ds;
	const size_t *idx;
	void (*fn)(dataset *ds, size_t i);
} ds_pool_files;

static void ds_pool_file(void *arg, size_t i)
{
	ds_pool_files *f = arg;
	f->fn(f->ds, f->idx ? f->idx[i] : i);
}

static void ds_pool_for_some(dataset *ds, unsigned k, const size_t *idx,
			     size_t n, void (*fn)(dataset *ds, size_t i))
{
	ds_pool_files f = {ds, idx, fn};
	ds_pool_each(k, n, ds_pool_file, &f);
}

static void ds_pool_for(dataset *ds, unsigned k,
			void (*fn)(dataset *ds, size_t i))
{
	ds_pool_for_some(ds, k, NULL, ds->nfiles, fn);
}

/* Is the file `rel` of `size` bytes a columnar file?  1 yes, -1 no:
 * its first and last bytes (a pool thread). */
static int ds_magic(const dataset *ds, const char *rel, uint64_t size)
{
	uint8_t head[16], tail[16];
	size_t hn = size < 16 ? (size_t)size : 16;
	char *path = malloc(strlen(ds->root) + strlen(rel) + 2);
	int fd, kind = -1;

	if (!path)
		return -1;
	sprintf(path, "%s/%s", ds->root, rel);
	if (ds->s3) {
		/* an object: its first and last bytes by two small requests
		 * (its source kind's peek) */
		char why[256];
		if (colfs_source_peek(path, &ds->gopts, size, hn, head,
				      tail, why, sizeof why) == COLFS_OK)
			for (size_t k = 0; colfs_formats[k]; k++)
				if (colfs_formats[k]->probe(head, hn, tail, hn,
							    size))
					kind = 1;
		free(path);
		return kind;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(path);
	if (fd >= 0) {
		if (pread(fd, head, hn, 0) == (ssize_t)hn &&
		    pread(fd, tail, hn, (off_t)(size - hn)) == (ssize_t)hn)
			for (size_t k = 0; colfs_formats[k]; k++)
				if (colfs_formats[k]->probe(head, hn, tail, hn,
							    size))
					kind = 1;
		close(fd);
	} else {
		/* listed but not readable now: shown, and its open says why
		 * (a damaged file, dataset_damage.c) */
		kind = 1;
	}
	return kind;
}

/* A Delta table's files are data files by the log's word: one missing,
 * or not columnar, is a damaged file, not another file. */
static void ds_probe_file(dataset *ds, size_t i)
{
	ds->files[i].kind = ds->snap ? 1 : ds_magic(ds, ds->files[i].rel,
						    ds->files[i].size);
}

static void ds_probe_new(dataset *ds, size_t i)
{
	if (ds->files[i].kind == 0)
		ds_probe_file(ds, i);
}

/* Every file's magic, once, on the pool: the reads wait on the disk or
 * the network, not the CPU, so the pool is full size. */
static void ds_probe_all(dataset *ds)
{
	char why[512] = "";
	if (__atomic_load_n(&ds->probed, __ATOMIC_ACQUIRE))
		return;
	/* the root listed alone: the rest now (an error leaves the views
	 * empty, said in errors) */
	colfs_status st = ds_list_now(ds, why, sizeof why);
	if (st != COLFS_OK)
		ds_problem(ds, "/", UINT64_MAX, st, "the directory cannot be "
			   "listed: %s", why[0] ? why : colfs_status_name(st));
	pthread_mutex_lock(&ds->load);
	if (!ds->probed) {
		ds_pool_for(ds, DS_POOL_MAX, ds_probe_new);
		__atomic_store_n(&ds->probed, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ds->load);
}

/* The magic of the `n` files of `idx` not looked at yet (a folder's). */
static void ds_probe_some(dataset *ds, const size_t *idx, size_t n)
{
	if (__atomic_load_n(&ds->probed, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&ds->load);
	if (!ds->probed)
		ds_pool_for_some(ds, DS_POOL_MAX, idx, n, ds_probe_new);
	pthread_mutex_unlock(&ds->load);
}

/* The number after "label: " on a line of `text`, or -1. */
static int64_t ds_summary_int(const char *text, const char *label)
{
	size_t n = strlen(label);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, label, n) == 0 && p[n] == ':' && p[n + 1] == ' ')
			return strtoll(p + n + 2, NULL, 10);
	}
	return -1;
}

static char *ds_summary_text(const char *text, const char *label)
{
	size_t n = strlen(label);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, label, n) == 0 && p[n] == ':' && p[n + 1] == ' ')
			return strndup(p + n + 2, strcspn(p + n + 2, "\n"));
	}
	return NULL;
}

/* Whether `name` is a struct's leaf as columns/ lists it: "a.b" (or
 * "a.b.c") where "a" is one of the `n` names too (`names`: the first of
 * `n` name pointers `stride` bytes apart, NULLs skipped). */
static bool ds_name_nested(const char *name, char *const *names, size_t n,
			   size_t stride)
{
	if (!strchr(name, '.'))
		return false;   /* most names: no scan */
	for (size_t i = 0; i < n; i++) {
		const char *o = *(char *const *)((const char *)names + i * stride);
		size_t ol = o ? strlen(o) : 0;
		if (o && o != name && !strncmp(name, o, ol) && name[ol] == '.')
			return true;
	}
	return false;
}

/* The top-level fields of a schema document, each as its text: the
 * lines of a Parquet message at indent 2 with the lines nested below
 * them; NULL when the document is not of that shape. */
static char **ds_schema_blocks(const char *text, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (strncmp(text, "message ", 8) != 0)
		return NULL;
	const char *p = strchr(text, '\n');
	while (p && *++p) {
		if (p[0] != ' ' || p[1] != ' ' || p[2] == ' ')
			break;
		const char *start = p, *end = p;
		do {
			end = strchr(end, '\n');
			if (!end)
				break;
			end++;
		} while (end[0] == ' ' && end[1] == ' ' &&
			 (end[2] == ' ' || end[2] == '}'));
		if (!end)
			break;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = strndup(start + 2, (size_t)(end - start - 3));
		p = end - 1;
	}
	return v;
}

/* The Delta field a column of the file stands for under column mapping
 * (PROTOCOL.md, "Reader Requirements for Column Mapping"): in mode
 * `name` its physical name, in mode `id` the field id the file gives its
 * top-level column (`ids`: the file's schema.json children; NULL: none).
 * NULL when the table's schema has no such field. */
static const colfs_delta_field *ds_delta_field(const dataset *ds,
					       const char *top, json_t *ids)
{
	const colfs_delta_snapshot *s = ds->snap;
	bool by_id = strcmp(s->column_mapping_mode, "id") == 0;
	int64_t id = -1;
	if (by_id) {
		size_t i;
		json_t *c;
		json_array_foreach(ids, i, c) {
			json_t *fid = json_object_get(c, "field_id");
			const char *nm = json_string_value(json_object_get(c, "name"));
			char *esc = nm ? colfs_name_escape(nm) : NULL;
			if (esc && strcmp(esc, top) == 0 && json_is_integer(fid))
				id = json_integer_value(fid);
			free(esc);
		}
		if (id < 0)
			return NULL;
	}
	for (size_t k = 0; k < s->n_fields; k++) {
		const colfs_delta_field *df = &s->fields[k];
		if (by_id) {
			if (df->field_id == id)
				return df;
			continue;
		}
		char *esc = colfs_name_escape(df->physical_name);
		bool same = esc && strcmp(esc, top) == 0;
		free(esc);
		if (same)
			return df;
	}
	return NULL;
}

/* A Delta table with column mapping: file `f`'s fields renamed from the
 * physical columns to the table's logical names (a nested leaf
 * `phys.x.y` becomes `Logical.x.y`: only the top level is mapped), the
 * physical names kept in f->phys for reading.  A column that is no field
 * of the table's schema (a dropped one), or that is a partition column
 * (whose values come from the log), is left out.  Mode `id` with a file
 * that has no field ids: a damaged file (dataset_damage.c), which the
 * union views refuse, leave out or read as all NULL as on_damage says
 * (the protocol lets a reader refuse it or read it all NULL). */
static void ds_map_fields(dataset *ds, ds_file *f, colfs_tree *g)
{
	json_t *ids = NULL, *doc = NULL;
	if (strcmp(ds->snap->column_mapping_mode, "id") == 0) {
		colfs_buf b = COLFS_BUF_INIT;
		bool any = false;
		if (ds_read_node(g, "schema.json", &b) == COLFS_OK &&
		    colfs_buf_status(&b) == COLFS_OK && b.len)
			doc = json_loadb(b.data, b.len, 0, NULL);
		colfs_buf_free(&b);
		ids = json_object_get(doc, "children");
		size_t i;
		json_t *c;
		json_array_foreach(ids, i, c)
			if (json_is_integer(json_object_get(c, "field_id")))
				any = true;
		if (!any) {
			ds_set_damage(ds, f, "column mapping mode id: the "
				      "file's columns have no field ids");
			ds_problem(ds, f->tree_path, UINT64_MAX,
				   COLFS_EUNSUPPORTED, "column mapping mode id, "
				   "and the file's columns have no field ids to "
				   "find the table's fields by");
		}
	}
	char **phys = calloc(f->nfields + 1, sizeof *phys);
	size_t kept = 0;
	for (size_t j = 0; phys && j < f->nfields; j++) {
		char *name = f->fields[j];
		/* its top-level column: the whole name, else up to a '.' */
		const colfs_delta_field *df = ds_delta_field(ds, name, ids);
		size_t cut = strlen(name);
		for (const char *dot = name; !df && (dot = strchr(dot, '.'));
		     dot++) {
			char *top = strndup(name, (size_t)(dot - name));
			df = top ? ds_delta_field(ds, top, ids) : NULL;
			if (df)
				cut = (size_t)(dot - name);
			free(top);
		}
		bool part = false;
		for (size_t k = 0; df && k < ds->snap->n_partition_columns; k++)
			part = part || !strcmp(ds->snap->partition_columns[k],
					       df->name);
		char *logical = df && !part ? colfs_name_escape(df->name) : NULL;
		char *full = logical ? malloc(strlen(logical) +
					      strlen(name + cut) + 1) : NULL;
		if (!full) {
			free(logical);
			free(f->fields[j]);
			free(f->types[j]);
			continue;
		}
		sprintf(full, "%s%s", logical, name + cut);
		free(logical);
		/* the schema text names the column by its physical name:
		 * the first " <name>" after the repetition and type */
		char *ty = f->types[j];
		char *at = NULL;
		if (!name[cut] && ty && ty[0]) {
			size_t pl = strlen(name);
			for (char *q = strchr(ty, ' '); q && !at; q = strchr(q + 1, ' '))
				if (!strncmp(q + 1, name, pl) &&
				    (q[1 + pl] == ' ' || q[1 + pl] == ';' ||
				     q[1 + pl] == '\0'))
					at = q + 1;
		}
		if (at) {
			size_t pl = strlen(name);
			char *nt = malloc(strlen(ty) - pl + strlen(df->name) + 1);
			if (nt) {
				sprintf(nt, "%.*s%s%s", (int)(at - ty), ty,
					df->name, at + pl);
				free(ty);
				ty = nt;
			}
		}
		phys[kept] = name;
		f->fields[kept] = full;
		f->types[kept] = ty;
		kept++;
	}
	if (!phys) {
		/* out of memory: the file shows no fields rather than
		 * physical names */
		for (size_t j = 0; j < f->nfields; j++) {
			free(f->fields[j]);
			free(f->types[j]);
		}
		kept = 0;
	}
	f->phys = phys;
	f->nfields = kept;
	json_decref(doc);
}

static void ds_render_pval(colfs_buf *b, const dataset *ds, size_t k,
			   const char *v, int mode, const char *null_token);

/* A column of file `f` named as a Hive key of its folders: one field
 * with the key, whose values are the folder's (ds_unify leaves the
 * column out); each value of the column that is not the folder's makes
 * a problem of the file. */
static void ds_key_columns(dataset *ds, ds_file *f, colfs_tree *g)
{
	const char *null_token = colfs_tree_options(g)->null_token;
	for (size_t k = 0; f->pvals && k < ds->nkeys; k++) {
		char *esc = colfs_name_escape(ds->keys[k].name);
		size_t j = 0;
		while (esc && j < f->nfields && strcmp(f->fields[j], esc))
			j++;
		colfs_buf want = COLFS_BUF_INIT, path = COLFS_BUF_INIT;
		ds_keycol_diff d;
		if (esc && j < f->nfields) {
			ds_render_pval(&want, ds, k, f->pvals[k], 0, null_token);
			colfs_buf_putc(&want, '\0');
			colfs_buf_printf(&path, "columns/%s",
					 f->phys ? f->phys[j] : f->fields[j]);
			colfs_buf_putc(&path, '\0');
		}
		if (esc && j < f->nfields && !colfs_buf_status(&want) &&
		    !colfs_buf_status(&path) &&
		    ds_keycol_compare(g, path.data, want.data,
				      ds->keys[k].type == DS_BIGINT,
				      &d) == COLFS_OK && d.differ)
			ds_problem(ds, f->tree_path, UINT64_MAX, COLFS_ECORRUPT,
				   "its column %s is the Hive key of its folder "
				   "%s=%s, and %llu of its %llu values are not "
				   "(the first in row %llu: %s): the union views "
				   "show the folder's value", esc,
				   ds->keys[k].name, want.data,
				   (unsigned long long)d.differ,
				   (unsigned long long)d.rows,
				   (unsigned long long)d.first, d.first_text);
		colfs_buf_free(&want);
		colfs_buf_free(&path);
		free(esc);
	}
}

/* The real names of file `f`'s top-level fields that columns/ cuts
 * (over 200 bytes after escaping, docs/tree.md), from its schema.json
 * (Parquet's and ORC's name their children): the union views key and
 * list such a field by its name, not by its cut one. */
static void ds_raw_names(ds_file *f, colfs_tree *g)
{
	bool cut = false;
	for (size_t j = 0; j < f->nfields && !f->phys; j++)
		cut = cut || strstr(f->fields[j], "%~");
	if (!cut)
		return;
	colfs_buf b = COLFS_BUF_INIT;
	json_t *doc = NULL;
	if (ds_read_node(g, "schema.json", &b) == COLFS_OK &&
	    colfs_buf_status(&b) == COLFS_OK && b.len)
		doc = json_loadb(b.data, b.len, 0, NULL);
	colfs_buf_free(&b);
	f->raw = calloc(f->nfields, sizeof *f->raw);
	size_t i;
	json_t *c;
	json_array_foreach(f->raw ? json_object_get(doc, "children") : NULL,
			   i, c) {
		const char *nm = json_string_value(json_object_get(c, "name"));
		char *esc = nm ? colfs_name_escape(nm) : NULL;
		for (size_t j = 0; esc && j < f->nfields; j++)
			if (!f->raw[j] && strstr(esc, "%~") &&
			    !strcmp(f->fields[j], esc))
				f->raw[j] = strdup(nm);
		free(esc);
	}
	json_decref(doc);
}

/* Read file `i`'s footer facts (a pool thread: no host lock). */
static void ds_load_file(dataset *ds, size_t i)
{
	ds_file *f = &ds->files[i];
	colfs_tree *g;
	colfs_buf b = COLFS_BUF_INIT;
	colfs_status st = ds_acquire(ds, i, &g);

	if (st != COLFS_OK) {
		f->info = -1;
		return;
	}
	f->format = colfs_tree_format(g);
	/* a Delta file is the one its add action describes: its size now,
	 * its rows once its summary is read (below) */
	if (ds->snap && i < ds->snap->n_files) {
		char *path = malloc(strlen(ds->root) + strlen(f->rel) + 2);
		if (path)
			sprintf(path, "%s/%s", ds->root, f->rel);
		char *why = ds_delta_disagrees(ds->s3 ? NULL : path,
					       &ds->snap->files[i], -1,
					       ds->snap->version);
		free(path);
		if (why) {
			ds_problem(ds, f->tree_path, UINT64_MAX, COLFS_ECORRUPT,
				   "%s", why);
			ds_set_damage(ds, f, why);
			free(why);
		}
	}
	st = ds_read_node(g, "summary", &b);
	colfs_buf_putc(&b, '\0');
	if (st == COLFS_OK && colfs_buf_status(&b) == COLFS_OK) {
		f->rows = ds_summary_int(b.data, "rows");
		f->groups = ds_summary_int(b.data, "row groups");
		if (f->groups < 0)
			f->groups = ds_summary_int(b.data, "stripes");
		f->writer = ds_summary_text(b.data, "created by");
		if (!f->writer)
			f->writer = ds_summary_text(b.data, "writer");
	}
	b.len = 0;
	if (ds_read_node(g, "schema", &b) == COLFS_OK) {
		colfs_buf_putc(&b, '\0');
		if (colfs_buf_status(&b) == COLFS_OK)
			f->schema_text = strdup(b.data);
	}
	colfs_buf_free(&b);
	colfs_node *cols;
	colfs_node *const *kids;
	size_t n = 0;
	if (colfs_tree_resolve(g, "columns", &cols) == COLFS_OK &&
	    colfs_dir_list(g, cols, &kids, &n) == COLFS_OK && n) {
		size_t nb = 0;
		char **blocks = f->schema_text
				? ds_schema_blocks(f->schema_text, &nb) : NULL;
		f->fields = calloc(n, sizeof *f->fields);
		f->types = calloc(n, sizeof *f->types);
		if (f->fields && f->types) {
			size_t top = 0, b = 0;
			for (size_t k = 0; k < n; k++)
				f->fields[k] = strdup(colfs_node_name(kids[k]));
			/* the schema's blocks are its top-level fields, in
			 * order; a struct's leaf (a.b) is inside a's */
			for (size_t k = 0; k < n; k++)
				top += f->fields[k] &&
				       !ds_name_nested(f->fields[k], f->fields,
						       n, sizeof *f->fields);
			for (size_t k = 0; k < n; k++) {
				bool leaf = !f->fields[k] ||
					    ds_name_nested(f->fields[k],
							   f->fields, n,
							   sizeof *f->fields);
				f->types[k] = strdup(nb == top && !leaf
						     ? blocks[b++] : "");
			}
			f->nfields = n;
		}
		for (size_t k = 0; k < nb; k++)
			free(blocks[k]);
		free(blocks);
	}
	if (ds->snap && strcmp(ds->snap->column_mapping_mode, "none"))
		ds_map_fields(ds, f, g);
	ds_key_columns(ds, f, g);
	ds_raw_names(f, g);
	if (f->rows < 0) {
		f->info = -1;
		f->why = strdup("its summary gives no row count");
		ds_set_damage(ds, f, f->why ? f->why : "no row count");
		ds_problem(ds, f->tree_path, UINT64_MAX, COLFS_EUNSUPPORTED,
			   "left out of the union views: its summary gives "
			   "no row count");
	} else {
		f->info = 1;
		char *why = ds->snap && i < ds->snap->n_files
			    ? ds_delta_disagrees(NULL, &ds->snap->files[i],
						 f->rows, ds->snap->version)
			    : NULL;
		if (why) {
			ds_problem(ds, f->tree_path, UINT64_MAX, COLFS_ECORRUPT,
				   "%s", why);
			ds_set_damage(ds, f, why);
			free(why);
		}
	}
	pthread_mutex_lock(&ds->lru);
	ds_sync(ds, f, g);
	pthread_mutex_unlock(&ds->lru);
	ds_release(ds, i, g);
}

static void ds_load_one(dataset *ds, size_t i)
{
	if (ds->files[i].kind == 1 && ds->files[i].info == 0)
		ds_load_file(ds, i);
}

static char *ds_json_key(const char *escaped)
{
	size_t n = strlen(escaped);
	char *raw = malloc(n + 1);
	colfs_buf b = COLFS_BUF_INIT;
	if (!raw)
		return NULL;
	n = colfs_name_unescape(escaped, n, raw);
	colfs_render_json_string(&b, (const uint8_t *)raw, n);
	colfs_buf_putc(&b, '\0');
	free(raw);
	return colfs_buf_status(&b) == COLFS_OK ? b.data : NULL;
}

static char *ds_json_text(const char *raw)
{
	colfs_buf b = COLFS_BUF_INIT;
	colfs_render_json_string(&b, (const uint8_t *)raw, strlen(raw));
	colfs_buf_putc(&b, '\0');
	return colfs_buf_status(&b) == COLFS_OK ? b.data : NULL;
}

static char *ds_csv_text(const char *s, size_t n)
{
	colfs_buf b = COLFS_BUF_INIT;
	colfs_render_csv_field(&b, s, n);
	colfs_buf_putc(&b, '\0');
	return colfs_buf_status(&b) == COLFS_OK ? b.data : NULL;
}

static char *ds_csv_key(const char *escaped)
{
	size_t n = strlen(escaped);
	char *raw = malloc(n + 1);
	if (!raw)
		return NULL;
	n = colfs_name_unescape(escaped, n, raw);
	char *k = ds_csv_text(raw, n);
	free(raw);
	return k;
}

static long ds_field_find(const dataset *ds, const char *name)
{
	for (size_t i = 0; i < ds->nfields; i++)
		if (strcmp(ds->fields[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* The Hive key a file's field (escaped) is named as, or -1. */
static long ds_key_column(const dataset *ds, const char *field)
{
	long is = -1;
	for (size_t k = 0; is < 0 && k < ds->nkeys; k++) {
		char *esc = colfs_name_escape(ds->keys[k].name);
		if (esc && strcmp(esc, field) == 0)
			is = (long)k;
		free(esc);
	}
	return is;
}

/* Whether key `k` is shown at a column's place (ds_field.key), not
 * after the fields. */
static bool ds_key_placed(const dataset *ds, size_t k)
{
	for (size_t i = 0; i < ds->nfields; i++)
		if (ds->fields[i].key == (long)k)
			return true;
	return false;
}

/* "a, b, c and 4 more" of the files of the list. */
static void ds_name_files(const dataset *ds, const size_t *idx, size_t n,
			  colfs_buf *out)
{
	for (size_t i = 0; i < n && i < DS_NAME_FILES; i++)
		colfs_buf_printf(out, "%s%s", i ? ", " : "",
				 ds->files[idx[i]].rel);
	if (n > DS_NAME_FILES)
		colfs_buf_printf(out, " and %zu more", n - DS_NAME_FILES);
}

/* The unified schema and the drift (after the footers are read). */
static void ds_unify(dataset *ds)
{
	size_t *missing = calloc(ds->nfiles + 1, sizeof *missing);
	size_t *other = calloc(ds->nfiles + 1, sizeof *other);
	size_t readable = 0;

	/* A Delta table: its schema's fields first, in its order (an empty
	 * table, or a field no file has yet, still has its column), each
	 * typed as the first file that has it declares it. */
	for (size_t j = 0; ds->snap && j < ds->snap->n_fields; j++) {
		const char *name = ds->snap->fields[j].name;
		bool part = false;
		for (size_t k = 0; k < ds->snap->n_partition_columns; k++)
			part = part || !strcmp(ds->snap->partition_columns[k], name);
		char *esc = part ? NULL : colfs_name_escape(name);
		ds_field *nf = esc && ds_field_find(ds, esc) < 0
			       ? realloc(ds->fields, (ds->nfields + 1) * sizeof *nf)
			       : NULL;
		if (!nf) {
			free(esc);
			continue;
		}
		ds->fields = nf;
		nf[ds->nfields].name = esc;
		/* keyed by the schema's name (esc may be cut) */
		nf[ds->nfields].raw = strstr(esc, "%~") ? strdup(name) : NULL;
		nf[ds->nfields].key_json = ds_json_text(name);
		nf[ds->nfields].key_csv = ds_csv_text(name, strlen(name));
		nf[ds->nfields].type = NULL;
		nf[ds->nfields].key = -1;
		ds->nfields++;
	}
	for (size_t i = 0; i < ds->nfiles; i++) {
		ds_file *f = &ds->files[i];
		if (f->info != 1)
			continue;
		readable++;
		for (size_t k = 0; k < f->nfields; k++) {
			long at = ds_field_find(ds, f->fields[k]);
			if (at >= 0 && !ds->fields[at].type)
				ds->fields[at].type = strdup(f->types[k]);
			if (at >= 0)
				continue;
			ds_field *nf = realloc(ds->fields,
					       (ds->nfields + 1) * sizeof *nf);
			if (!nf)
				break;
			ds->fields = nf;
			/* a cut name: keyed by the real one */
			const char *raw = f->raw ? f->raw[k] : NULL;
			nf[ds->nfields].name = strdup(f->fields[k]);
			nf[ds->nfields].raw = raw ? strdup(raw) : NULL;
			nf[ds->nfields].key_json = raw ? ds_json_text(raw)
						   : ds_json_key(f->fields[k]);
			nf[ds->nfields].key_csv = raw ? ds_csv_text(raw, strlen(raw))
						  : ds_csv_key(f->fields[k]);
			nf[ds->nfields].type = strdup(f->types[k]);
			/* a Hive key's column: the key at its place, as
			 * DuckDB's hive_partitioning reads it */
			nf[ds->nfields].key = ds_key_column(ds, f->fields[k]);
			ds->nfields++;
		}
		/* its schema among the distinct ones */
		const char *s = f->schema_text ? f->schema_text : "";
		size_t j = 0;
		while (j < ds->nschemas && strcmp(ds->schemas[j], s) != 0)
			j++;
		if (j == ds->nschemas) {
			char **ns = realloc(ds->schemas, (j + 1) * sizeof *ns);
			if (!ns)
				continue;
			ds->schemas = ns;
			ns[j] = strdup(s);
			ds->nschemas++;
		}
		f->schema_id = j;
	}
	for (size_t k = 0; k < ds->nfields; k++) {
		if (!ds->fields[k].type)
			ds->fields[k].type = strdup("");
		ds->fields[k].nested = ds_name_nested(
			ds->fields[k].name, &ds->fields[0].name, ds->nfields,
			sizeof *ds->fields);
	}
	for (size_t k = 0; missing && other && k < ds->nfields; k++) {
		size_t nm = 0, no = 0;
		if (ds->fields[k].key >= 0)
			continue;  /* the key's values: no file's */
		const char *first_type = ds->fields[k].type
					 ? ds->fields[k].type : "";
		for (size_t i = 0; i < ds->nfiles; i++) {
			ds_file *f = &ds->files[i];
			size_t j = 0;
			if (f->info != 1)
				continue;
			while (j < f->nfields && strcmp(f->fields[j], ds->fields[k].name))
				j++;
			if (j == f->nfields)
				missing[nm++] = i;
			else if (strcmp(f->types[j], first_type) != 0)
				other[no++] = i;
		}
		colfs_buf b = COLFS_BUF_INIT;
		if (nm) {
			colfs_buf_printf(&b, "schema drift: field %s is missing "
					 "in %zu of %zu files (NULL there): ",
					 ds->fields[k].name, nm, readable);
			ds_name_files(ds, missing, nm, &b);
			colfs_buf_putc(&b, '\0');
			if (colfs_buf_status(&b) == COLFS_OK)
				ds_problem(ds, "/schema", UINT64_MAX,
					   COLFS_OK, "%s", b.data);
			b.len = 0;
		}
		if (no) {
			/* the declaration of the first file declaring it
			 * otherwise */
			const ds_file *o = &ds->files[other[0]];
			size_t j = 0;
			while (j < o->nfields &&
			       strcmp(o->fields[j], ds->fields[k].name))
				j++;
			colfs_buf_printf(&b, "schema drift: field %s changes "
					 "type: '%s' in the first file, another "
					 "in %zu file%s (the first of them: "
					 "'%s'; each shown as its file renders "
					 "it): ", ds->fields[k].name,
					 first_type, no, no == 1 ? "" : "s",
					 j < o->nfields ? o->types[j] : "");
			ds_name_files(ds, other, no, &b);
			colfs_buf_putc(&b, '\0');
			if (colfs_buf_status(&b) == COLFS_OK)
				ds_problem(ds, "/schema", UINT64_MAX,
					   COLFS_OK, "%s", b.data);
		}
		colfs_buf_free(&b);
	}
	free(missing);
	free(other);
}

/* Read every footer once (a bounded pool of threads). */
static void ds_load(dataset *ds)
{
	if (__atomic_load_n(&ds->loaded, __ATOMIC_ACQUIRE))
		return;
	ds_probe_all(ds);
	pthread_mutex_lock(&ds->load);
	if (!ds->loaded) {
		unsigned k = colfs_cpus();
		if (k > ds->gopts.max_open_files)
			k = ds->gopts.max_open_files;
		ds_pool_for(ds, k, ds_load_one);
		ds_unify(ds);
		__atomic_store_n(&ds->loaded, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ds->load);
}

/* ------------------------------------------------------------------------
 * Hive partitions
 */
static bool ds_is_bigint(const char *s)
{
	char *end;
	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	(void)strtoll(s, &end, 10);
	return !*end && !errno;
}

static bool ds_is_date(const char *s)
{
	int y, m, d;
	char tail;
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	if (sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) != 3)
		return false;
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	return m != 2 || d < 29 || (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
}

/* %XX decoded (as DuckDB decodes Hive values). */
static char *ds_pct_decode(const char *s, size_t n)
{
	char *o = malloc(n + 1);
	size_t j = 0;
	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n &&
		    isxdigit((unsigned char)s[i + 1]) &&
		    isxdigit((unsigned char)s[i + 2])) {
			char hex[3] = {s[i + 1], s[i + 2], 0};
			o[j++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			o[j++] = s[i];
		}
	}
	o[j] = '\0';
	return o;
}

static long ds_key_find(const dataset *ds, const char *name)
{
	for (size_t i = 0; i < ds->nkeys; i++)
		if (strcmp(ds->keys[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* The keys of every file's `key=value` folders, typed. */
static colfs_status ds_partitions(dataset *ds)
{
	/* keys in first-seen order */
	for (size_t i = 0; i < ds->nfiles; i++) {
		const char *p = ds->files[i].rel;
		const char *slash;
		while ((slash = strchr(p, '/')) != NULL) {
			const char *eq = memchr(p, '=', (size_t)(slash - p));
			if (eq && eq > p) {
				char *k = ds_pct_decode(p, (size_t)(eq - p));
				if (!k)
					return COLFS_ENOMEM;
				if (ds_key_find(ds, k) < 0) {
					ds_key *nk = realloc(ds->keys,
						(ds->nkeys + 1) * sizeof *nk);
					if (!nk) {
						free(k);
						return COLFS_ENOMEM;
					}
					ds->keys = nk;
					nk[ds->nkeys].name = k;
					nk[ds->nkeys].type = DS_BIGINT;
					ds->nkeys++;
				} else {
					free(k);
				}
			}
			p = slash + 1;
		}
	}
	if (!ds->nkeys)
		return COLFS_OK;
	bool *notint = calloc(ds->nkeys, sizeof *notint);
	bool *notdate = calloc(ds->nkeys, sizeof *notdate);
	if (!notint || !notdate) {
		free(notint);
		free(notdate);
		return COLFS_ENOMEM;
	}
	for (size_t i = 0; i < ds->nfiles; i++) {
		ds_file *f = &ds->files[i];
		const char *p = f->rel, *slash;
		f->pvals = calloc(ds->nkeys, sizeof *f->pvals);
		if (!f->pvals)
			continue;
		while ((slash = strchr(p, '/')) != NULL) {
			const char *eq = memchr(p, '=', (size_t)(slash - p));
			if (eq && eq > p) {
				char *k = ds_pct_decode(p, (size_t)(eq - p));
				long ki = k ? ds_key_find(ds, k) : -1;
				free(k);
				if (ki >= 0) {
					free(f->pvals[ki]);
					f->pvals[ki] = NULL;
					size_t vn = (size_t)(slash - eq - 1);
					if (!(vn == 26 && strncmp(eq + 1,
						"__HIVE_DEFAULT_PARTITION__", 26) == 0))
						f->pvals[ki] = ds_pct_decode(eq + 1, vn);
				}
			}
			p = slash + 1;
		}
		for (size_t k = 0; k < ds->nkeys; k++) {
			if (!f->pvals[k])
				continue;
			if (!ds_is_bigint(f->pvals[k]))
				notint[k] = true;
			if (!ds_is_date(f->pvals[k]))
				notdate[k] = true;
		}
	}
	for (size_t k = 0; k < ds->nkeys; k++)
		ds->keys[k].type = !notint[k] ? DS_BIGINT
				   : !notdate[k] ? DS_DATE : DS_VARCHAR;
	free(notint);
	free(notdate);
	return COLFS_OK;
}

/* A partition value as the per-file views render its type (a field of
 * rows.csv as core/render.h writes one; `null_token` is then the
 * options' csv_null). */
static void ds_render_pval(colfs_buf *b, const dataset *ds, size_t k,
			   const char *v, int mode /* 0 text, 1 json, 2 csv */,
			   const char *null_token)
{
	if (!v) {
		colfs_buf_puts(b, mode == 1 ? "null" : null_token);
		return;
	}
	switch (ds->keys[k].type) {
	case DS_BIGINT:
		colfs_buf_printf(b, "%lld", strtoll(v, NULL, 10));
		return;
	case DS_DATE:
		if (mode == 1)
			colfs_buf_printf(b, "\"%s\"", v);
		else
			colfs_buf_puts(b, v);
		return;
	case DS_VARCHAR:
		break;
	}
	if (mode == 1) {
		colfs_render_json_string(b, (const uint8_t *)v, strlen(v));
		return;
	}
	colfs_buf text = COLFS_BUF_INIT;
	colfs_render r = {.null_token = null_token};
	if (mode == 2)
		r = colfs_render_csv_mode();
	colfs_render_string(&text, &r, (const uint8_t *)v, strlen(v));
	if (mode == 2)
		colfs_render_csv_value(b, text.data, text.len, null_token);
	else
		colfs_buf_append(b, text.data ? text.data : "", text.len);
	colfs_buf_free(&text);
}

/* ------------------------------------------------------------------------
 * The tree
 */
static colfs_status view_populate(colfs_tree *t, colfs_node *dir);

static const colfs_node_ops view_ops = {
	.populate = view_populate,
};

static ds_view *view_of(colfs_node *n)
{
	return colfs_node_ctx(n);
}

/* The bytes a whole render of a view (or of summary, schema, errors)
 * reads at most: the sizes of the files it lists (one whose magic says
 * it is no columnar file counted too: the magic bytes may still be
 * being read), the dataset listed first as any read of it would.
 * sizes=auto sizes it at a stat when small (core/tree_sizes.c). */
static bool ds_view_decodes(colfs_tree *t, colfs_node *n, uint64_t *bytes)
{
	ds_view *v = view_of(n);
	char why[512];
	(void)t;
	*bytes = 0;
	if (ds_list_now(v->ds, why, sizeof why) != COLFS_OK)
		return false;
	for (size_t i = 0; i < v->n && *bytes <= UINT64_MAX / 2; i++) {
		uint64_t size = v->ds->files[v->idx[i]].size;
		*bytes += size < UINT64_MAX / 2 ? size : UINT64_MAX / 2;
	}
	return true;
}

/* files/ and each folder under it: a folder of the view's files (those
 * of v->idx[lo..hi), the paths starting with its `plen` bytes: sorted
 * paths put a folder's files one after another).  Listed when first
 * listed or looked up: its own files' magic read then (on the pool),
 * each columnar one a graft, each subfolder a folder of the same kind;
 * a folder holding no columnar file shows empty. */
typedef struct ds_folder {
	ds_view *v;
	size_t lo, hi;
	size_t plen;
} ds_folder;

static colfs_status folder_populate(colfs_tree *t, colfs_node *dir);

static const colfs_node_ops folder_ops = {
	.populate = folder_populate,
};

static colfs_status folder_populate(colfs_tree *t, colfs_node *dir)
{
	const ds_folder *fo = colfs_node_ctx(dir);
	dataset *ds = fo->v->ds;
	const size_t *idx = fo->v->idx;
	size_t *mine = malloc((fo->hi - fo->lo + 1) * sizeof *mine), nmine = 0;

	if (!mine)
		return COLFS_ENOMEM;
	for (size_t i = fo->lo; i < fo->hi; i++)
		if (!strchr(ds->files[idx[i]].rel + fo->plen, '/'))
			mine[nmine++] = idx[i];
	ds_probe_some(ds, mine, nmine);
	free(mine);
	for (size_t i = fo->lo; i < fo->hi;) {
		ds_file *f = &ds->files[idx[i]];
		const char *p = f->rel + fo->plen;
		const char *slash = strchr(p, '/');
		if (!slash) {
			if (f->kind == 1 &&
			    !colfs_dir_add_graft(t, dir, p, &ds_graft_ops, ds,
						 idx[i]))
				return COLFS_ENOMEM;
			i++;
			continue;
		}
		/* a subfolder: the files after this one under it */
		size_t clen = (size_t)(slash - p) + 1, j = i + 1;
		while (j < fo->hi &&
		       strncmp(ds->files[idx[j]].rel + fo->plen, p, clen) == 0)
			j++;
		ds_folder *sub = colfs_tree_alloc(t, sizeof *sub);
		char *comp = strndup(p, clen - 1);
		if (!sub || !comp) {
			free(comp);
			return COLFS_ENOMEM;
		}
		*sub = (ds_folder){fo->v, i, j, fo->plen + clen};
		colfs_node *d = colfs_dir_add_dir(t, dir, comp, &folder_ops, sub);
		free(comp);
		if (!d)
			return COLFS_ENOMEM;
		i = j;
	}
	return COLFS_OK;
}

/* files/ and its folders before the dataset is listed (the root listed
 * alone, ds_list_root): each lists its own disk folder when first listed
 * or looked up (ds_list_folder), reads its files' magic (on the pool),
 * and grafts each columnar one by a loose key, its path, found in the
 * files' table when its tree is first opened. */
typedef struct ds_disk_folder {
	dataset *ds;
	const char *rel;      /* "" files/ itself */
} ds_disk_folder;

static colfs_status disk_folder_populate(colfs_tree *t, colfs_node *dir);

static const colfs_node_ops disk_folder_ops = {
	.populate = disk_folder_populate,
};

typedef struct ds_magic_job {
	const dataset *ds;
	const ds_entry *ents;
	int *kind;
} ds_magic_job;

static void ds_magic_entry(void *arg, size_t i)
{
	ds_magic_job *j = arg;
	j->kind[i] = j->ents[i].dir ? 0
		     : ds_magic(j->ds, j->ents[i].rel, j->ents[i].size);
}

static colfs_status disk_folder_populate(colfs_tree *t, colfs_node *dir)
{
	const ds_disk_folder *fo = colfs_node_ctx(dir);
	dataset *ds = fo->ds;
	ds_entry *ents = NULL;
	size_t n = 0;
	char why[512] = "";
	ds_found found = {0};
	colfs_status st = ds_list_folder(ds->root, &ds->gopts, fo->rel, &ents,
					 &n, &found, why, sizeof why);
	ds_found_take(ds, &found);
	if (st != COLFS_OK) {
		colfs_tree_report(t, dir, UINT64_MAX, st, "the folder cannot "
				  "be listed: %s",
				  why[0] ? why : colfs_status_name(st));
		return st;
	}
	int *kind = calloc(n + 1, sizeof *kind);
	if (!kind) {
		ds_entries_free(ents, n);
		return COLFS_ENOMEM;
	}
	ds_magic_job job = {ds, ents, kind};
	ds_pool_each(DS_POOL_MAX, n, ds_magic_entry, &job);
	for (size_t i = 0; st == COLFS_OK && i < n; i++) {
		const char *slash = strrchr(ents[i].rel, '/');
		const char *name = slash ? slash + 1 : ents[i].rel;
		if (!ents[i].dir && kind[i] != 1)
			continue;
		char *rel = colfs_tree_strdup(t, ents[i].rel);
		if (!rel) {
			st = COLFS_ENOMEM;
			break;
		}
		if (!ents[i].dir) {
			uint64_t key = (uint64_t)(uintptr_t)rel;
			if (key & DS_LOOSE_KEY)
				st = COLFS_ENOMEM;
			else if (!colfs_dir_add_graft(t, dir, name,
						      &ds_graft_ops, ds,
						      key | DS_LOOSE_KEY))
				st = COLFS_ENOMEM;
			continue;
		}
		ds_disk_folder *sub = colfs_tree_alloc(t, sizeof *sub);
		if (!sub) {
			st = COLFS_ENOMEM;
			break;
		}
		*sub = (ds_disk_folder){ds, rel};
		if (!colfs_dir_add_dir(t, dir, name, &disk_folder_ops, sub))
			st = COLFS_ENOMEM;
	}
	free(kind);
	ds_entries_free(ents, n);
	return st;
}

/* Which rows a file adds: its row count, or 0 when unreadable. */
static int64_t ds_rows(const ds_file *f)
{
	return f->kind == 1 && f->info == 1 ? f->rows : 0;
}

/* The rows a file shows in the union views: its rows but those its
 * deletion vector deletes. */
static int64_t ds_rows_shown(const ds_file *f)
{
	int64_t r = ds_rows(f);
	return r > (int64_t)f->ndeleted ? r - (int64_t)f->ndeleted : 0;
}

/* The rows damaged file i adds to the union views under
 * on_damage=null: the log's numRecords, else its footer's rows, less
 * those its deletion vector deletes; -1 unknown. */
static int64_t ds_damaged_rows(const dataset *ds, size_t i)
{
	const ds_file *f = &ds->files[i];
	int64_t r = ds->snap && i < ds->snap->n_files &&
		    ds->snap->files[i].num_records >= 0
		    ? ds->snap->files[i].num_records
		    : f->info == 1 ? f->rows : -1;
	if (r < 0)
		return -1;
	return r > (int64_t)f->ndeleted ? r - (int64_t)f->ndeleted : 0;
}

static colfs_status summary_generate(colfs_tree *t, colfs_node *n,
				     colfs_buf *out)
{
	ds_view *v = view_of(n);
	dataset *ds = v->ds;
	size_t nf = 0, bad = 0, skipped = 0, formats[3] = {0};
	size_t dfiles = 0, dunknown = 0;
	uint64_t bytes = 0;
	int64_t rows = 0, groups = 0, deleted = 0, drows = 0;
	colfs_on_damage mode = colfs_tree_options(t)->on_damage;
	ds_load(ds);
	for (size_t i = 0; i < v->n; i++) {
		ds_file *f = &ds->files[v->idx[i]];
		if (f->kind != 1) {
			skipped++;
			continue;
		}
		nf++;
		bytes += f->size;
		/* damaged (dataset_damage.c): its rows are on_damage's */
		pthread_mutex_lock(&ds->plock);
		bool damaged = f->info != 1 || f->damage || f->read_failed;
		pthread_mutex_unlock(&ds->plock);
		if (damaged) {
			int64_t r = ds_damaged_rows(ds, v->idx[i]);
			dfiles++;
			if (r < 0)
				dunknown++;
			else
				drows += r;
		}
		if (f->info != 1) {
			bad++;
			continue;
		}
		if (!damaged)
			rows += ds_rows_shown(f);
		deleted += ds_rows(f) - ds_rows_shown(f);
		if (f->groups > 0)
			groups += f->groups;
		formats[strcmp(f->format, "parquet") == 0 ? 0
			: strcmp(f->format, "orc") == 0 ? 1 : 2]++;
	}
	colfs_buf_printf(out, "dataset: %s%s%s\n", ds->root,
			 v->prefix[0] ? " " : "", v->prefix);
	colfs_buf_printf(out, "files: %zu (parquet %zu, orc %zu, cfile %zu)\n",
			 nf, formats[0], formats[1], formats[2]);
	colfs_buf_printf(out, "unreadable files: %zu\n", bad);
	colfs_buf_printf(out, "other files: %zu (not Parquet, ORC or CFile: "
			 "not shown)\n", skipped);
	ds_damage_summary(out, mode, dfiles, drows, dunknown);
	if (mode == COLFS_ON_DAMAGE_NULL)
		rows += drows;
	colfs_buf_printf(out, "rows: %lld\n", (long long)rows);
	if (ds->snap)
		colfs_buf_printf(out, "deleted rows: %lld (by deletion vectors: "
				 "left out of rows and the union views, shown "
				 "in files/)\n", (long long)deleted);
	colfs_buf_printf(out, "bytes: %llu\n", (unsigned long long)bytes);
	colfs_buf_printf(out, "row groups and stripes: %lld\n",
			 (long long)groups);
	colfs_buf_printf(out, "fields: %zu\n", ds->nfields);
	colfs_buf_printf(out, "schemas: %zu\n", ds->nschemas);
	colfs_buf_puts(out, "partition keys:");
	for (size_t k = 0; k < ds->nkeys; k++)
		colfs_buf_printf(out, "%s %s %s", k ? "," : "",
				 ds->keys[k].name,
				 ds_type_name[ds->keys[k].type]);
	colfs_buf_puts(out, ds->nkeys ? "\n" : " none\n");
	/* writers, each with its count, in the order first met (a few
	 * distinct ones: a short list) */
	const char **wn = calloc(v->n + 1, sizeof *wn);
	size_t *wc = calloc(v->n + 1, sizeof *wc), nw = 0;
	for (size_t i = 0; wn && wc && i < v->n; i++) {
		ds_file *f = &ds->files[v->idx[i]];
		size_t j = 0;
		if (f->info != 1 || !f->writer)
			continue;
		while (j < nw && strcmp(wn[j], f->writer))
			j++;
		if (j == nw)
			wn[nw++] = f->writer;
		wc[j]++;
	}
	for (size_t j = 0; wn && wc && j < nw; j++)
		colfs_buf_printf(out, "writer: %s (%zu files)\n", wn[j], wc[j]);
	free(wn);
	free(wc);
	pthread_mutex_lock(&ds->plock);
	colfs_buf_printf(out, "problems: %zu (see errors)\n", ds->nproblems);
	pthread_mutex_unlock(&ds->plock);
	return colfs_buf_status(out);
}

static const colfs_node_ops summary_ops = {
	.generate = summary_generate,
	.decodes = ds_view_decodes,
};

static const char *const ds_type_parquet[] = {
	"int64 %s (INTEGER(64,true))", "int32 %s (DATE)", "binary %s (STRING)"};

static colfs_status schema_generate(colfs_tree *t, colfs_node *n,
				    colfs_buf *out)
{
	ds_view *v = view_of(n);
	dataset *ds = v->ds;
	(void)t;
	ds_load(ds);
	colfs_buf_puts(out, "message dataset {\n");
	for (size_t k = 0; k < ds->nfields; k++) {
		const char *ty = ds->fields[k].type;
		long key = ds->fields[k].key;
		if (ds->fields[k].nested)
			continue;
		if (key >= 0) {
			colfs_buf_puts(out, "  optional ");
			colfs_buf_printf(out, ds_type_parquet[ds->keys[key].type],
					 ds->keys[key].name);
			colfs_buf_puts(out, "; -- Hive partition key\n");
		} else if (ty && ty[0]) {
			/* the field's text as its first file has it */
			colfs_buf_printf(out, "  %s\n", ty);
		} else {
			colfs_buf_printf(out, "  %s;\n", ds->fields[k].name);
		}
	}
	for (size_t k = 0; k < ds->nkeys; k++) {
		if (ds_key_placed(ds, k))
			continue;
		colfs_buf_puts(out, "  optional ");
		colfs_buf_printf(out, ds_type_parquet[ds->keys[k].type],
				 ds->keys[k].name);
		colfs_buf_puts(out, "; -- Hive partition key\n");
	}
	colfs_buf_puts(out, "}\n");
	return colfs_buf_status(out);
}

static const colfs_node_ops schema_ops = {
	.generate = schema_generate,
	.decodes = ds_view_decodes,
};

static colfs_status schemas_file_generate(colfs_tree *t, colfs_node *n,
					  colfs_buf *out)
{
	ds_view *v = view_of(n);
	dataset *ds = v->ds;
	size_t id = (size_t)colfs_node_a(n);
	(void)t;
	if (colfs_node_b(n) == 0) {
		colfs_buf_puts(out, ds->schemas[id]);
		return colfs_buf_status(out);
	}
	for (size_t i = 0; i < v->n; i++) {
		ds_file *f = &ds->files[v->idx[i]];
		if (f->info == 1 && f->schema_id == id)
			colfs_buf_printf(out, "%s\n", f->rel);
	}
	return colfs_buf_status(out);
}

static const colfs_node_ops schemas_file_ops = {
	.generate = schemas_file_generate,
};

static colfs_status schemas_populate(colfs_tree *t, colfs_node *dir)
{
	ds_view *v = view_of(dir);
	dataset *ds = v->ds;
	ds_load(ds);
	for (size_t j = 0; j < ds->nschemas; j++) {
		bool used = false;
		for (size_t i = 0; i < v->n && !used; i++) {
			ds_file *f = &ds->files[v->idx[i]];
			used = f->info == 1 && f->schema_id == j;
		}
		if (!used)
			continue;
		char name[32];
		snprintf(name, sizeof name, "%zu", j);
		colfs_node *d = colfs_dir_add_dir(t, dir, name, NULL, NULL);
		colfs_node *s = d ? colfs_dir_add_doc(t, d, "schema",
						      &schemas_file_ops, v) : NULL;
		colfs_node *f = d ? colfs_dir_add_doc(t, d, "files",
						      &schemas_file_ops, v) : NULL;
		if (!s || !f)
			return COLFS_ENOMEM;
		colfs_node_set_args(s, j, 0, 0);
		colfs_node_set_args(f, j, 1, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops schemas_ops = {
	.populate = schemas_populate,
};

/* `errors`: the dataset's problems (under this view's files, for a
 * partition) and those of the files open now; every footer is read
 * first (the problems of a file not read are not known). */
static colfs_status errors_generate(colfs_tree *t, colfs_node *n,
				    colfs_buf *out)
{
	ds_view *v = view_of(n);
	dataset *ds = v->ds;
	ds_load(ds);
	if (!v->prefix[0])
		ds_change_render(t, out);
	pthread_mutex_lock(&ds->lru);
	for (size_t i = 0; i < ds->nopen; i++) {
		ds_file *f = &ds->files[ds->open_idx[i]];
		ds_sync(ds, f, f->tree);
	}
	pthread_mutex_unlock(&ds->lru);
	pthread_mutex_lock(&ds->plock);
	for (size_t p = 0; p < ds->nproblems; p++) {
		const char *line = ds->problems[p];
		bool show = !v->prefix[0];
		for (size_t i = 0; !show && i < v->n; i++) {
			const char *tp = ds->files[v->idx[i]].tree_path;
			size_t len = strlen(tp);
			show = strncmp(line, tp, len) == 0 &&
			       (line[len] == '/' || line[len] == ':');
		}
		if (show)
			colfs_buf_puts(out, line);
	}
	pthread_mutex_unlock(&ds->plock);
	return colfs_buf_status(out);
}

static const colfs_node_ops errors_ops = {
	.generate = errors_generate,
	.decodes = ds_view_decodes,
};

/* --- union views: one piece per file of the view ----------------------- */
/* Whether file `f` can be read by the union views: a deletion vector
 * naming a row past its rows (the log's numRecords unknown, or not the
 * footer's count) is a problem of the view, never rows shown wrong. */
static colfs_status ds_union_check(colfs_tree *t, colfs_node *n,
				   const ds_file *f)
{
	if (f->ndeleted && f->deleted[f->ndeleted - 1] >= (uint64_t)f->rows) {
		colfs_tree_report(t, n, UINT64_MAX, COLFS_EBOUNDS,
				  "%s: its deletion vector deletes row %llu, "
				  "the file has %lld rows", f->rel,
				  (unsigned long long)f->deleted[f->ndeleted - 1],
				  (long long)f->rows);
		return COLFS_EBOUNDS;
	}
	return COLFS_OK;
}

/* A file's view with a row count other than its footer's: the rows of
 * its deletion vector cannot be found in it (on_damage=skip left rows
 * out, or the view is damaged). */
static colfs_status ds_count_mismatch(colfs_tree *t, colfs_node *n,
				      const ds_file *f, const char *view,
				      uint64_t got)
{
	colfs_tree_report(t, n, UINT64_MAX, COLFS_ECORRUPT,
			  "%s: its %s gives %llu rows, its footer %lld: the "
			  "rows its deletion vector deletes cannot be found",
			  f->rel, view, (unsigned long long)got,
			  (long long)f->rows);
	return COLFS_ECORRUPT;
}

/* -o on_damage at damaged file i (dataset_damage.c), named in errors
 * under its path; `view`: the file's view the piece would read. */
static colfs_status ds_union_damage(colfs_tree *t, colfs_node *n,
				    dataset *ds, size_t i, const char *view,
				    colfs_status st, const char *why,
				    uint64_t *nulls)
{
	ds_file *f = &ds->files[i];
	ds_damaged d = {f->rel, ds_damaged_rows(ds, i),
			ds->snap ? ds->snap->version : -1};
	char msg[800], text[1200];
	snprintf(msg, sizeof msg, "%s: %s", view, why);
	colfs_status got = ds_damage_piece(t, n, &d, st, msg, nulls, text,
					   sizeof text);
	ds_problem(ds, f->tree_path, UINT64_MAX, st == COLFS_OK ? COLFS_EIO
		   : st, "%s", text);
	return got;
}

/* Is file i damaged before any read (missing, changed, unreadable
 * footer: dataset_damage.c)?  Then *damaged, and what on_damage makes
 * of it: an error, or *nulls NULL rows (none: left out). */
static colfs_status ds_union_begin(colfs_tree *t, colfs_node *n, dataset *ds,
				   size_t i, const char *view, bool *damaged,
				   uint64_t *nulls)
{
	ds_file *f = &ds->files[i];
	char why[600] = "";
	*nulls = 0;
	*damaged = false;
	if (f->kind != 1)
		return COLFS_OK;
	pthread_mutex_lock(&ds->plock);
	if (f->damage)
		snprintf(why, sizeof why, "%s", f->damage);
	pthread_mutex_unlock(&ds->plock);
	if (!why[0] && f->info == 1)
		return COLFS_OK;
	*damaged = true;
	return ds_union_damage(t, n, ds, i, view, COLFS_ECORRUPT,
			       why[0] ? why : f->why ? f->why
			       : "it cannot be read", nulls);
}

/* File i's view `path` whole, appended to `out`; when it cannot be read
 * what on_damage makes of it (*damaged, `out` as it was, and *nulls NULL
 * rows for the caller to write; or an error). */
static colfs_status ds_union_read(colfs_tree *t, colfs_node *n, dataset *ds,
				  size_t i, const char *path, colfs_buf *out,
				  bool *damaged, uint64_t *nulls)
{
	ds_file *f = &ds->files[i];
	size_t len0 = out->len;
	colfs_tree *g;
	char why[800];
	*nulls = 0;
	*damaged = false;
	colfs_status st = ds_acquire(ds, i, &g);
	if (st == COLFS_OK) {
		st = ds_read_node(g, path, out);
		ds_release(ds, i, g);
	}
	if (st == COLFS_OK || st == COLFS_ENOMEM)
		return st;
	out->len = len0;
	*damaged = true;
	pthread_mutex_lock(&ds->plock);
	f->read_failed = true;
	snprintf(why, sizeof why, "%s", f->damage ? f->damage
		 : "it cannot be decoded (see its own problems)");
	pthread_mutex_unlock(&ds->plock);
	return ds_union_damage(t, n, ds, i, path, st, why, nulls);
}

/* `rows` rows of NULL of file `f` in a union view: `k` a field of
 * columns/ (a partition key keeps its value), or rows.jsonl (csv 0) or
 * rows.csv (1) when k is SIZE_MAX. */
static colfs_status ds_null_rows(const dataset *ds, const ds_file *f,
				 size_t k, bool csv, const char *null_token,
				 uint64_t rows, colfs_buf *out)
{
	colfs_buf line = COLFS_BUF_INIT;
	size_t shown = 0;
	if (k != SIZE_MAX && k >= ds->nfields) {
		size_t key = k - ds->nfields;
		ds_render_pval(&line, ds, key, f->pvals ? f->pvals[key] : NULL,
			       0, null_token);
	} else if (k != SIZE_MAX) {
		colfs_buf_puts(&line, null_token);
	} else {
		if (!csv)
			colfs_buf_putc(&line, '{');
		for (size_t j = 0; j < ds->nfields; j++) {
			if (ds->fields[j].nested)
				continue;
			if (shown++)
				colfs_buf_putc(&line, ',');
			if (csv)
				colfs_buf_puts(&line, null_token);
			else
				colfs_buf_printf(&line, "%s:null",
						 ds->fields[j].key_json);
		}
		for (size_t j = 0; j < ds->nkeys; j++) {
			if (shown++)
				colfs_buf_putc(&line, ',');
			if (!csv) {
				colfs_render_json_string(&line,
					(const uint8_t *)ds->keys[j].name,
					strlen(ds->keys[j].name));
				colfs_buf_putc(&line, ':');
			}
			ds_render_pval(&line, ds, j, f->pvals ? f->pvals[j]
				       : NULL, csv ? 2 : 1, null_token);
		}
		if (!csv)
			colfs_buf_putc(&line, '}');
	}
	colfs_buf_putc(&line, '\n');
	colfs_status st = colfs_buf_status(&line);
	for (uint64_t r = 0; st == COLFS_OK && r < rows; r++) {
		colfs_buf_append(out, line.data, line.len);
		st = colfs_buf_status(out);
	}
	colfs_buf_free(&line);
	return st;
}

static colfs_status column_piece(colfs_tree *t, colfs_node *n, uint64_t i,
				 colfs_buf *out)
{
	ds_view *v = view_of(n);
	dataset *ds = v->ds;
	size_t k = (size_t)colfs_node_a(n);
	const char *null_token = colfs_tree_options(t)->null_token;
	ds_load(ds);
	if (i >= v->n)
		return COLFS_END;
	ds_file *f = &ds->files[v->idx[i]];
	char path[2048];
	bool damaged;
	uint64_t nulls;
	snprintf(path, sizeof path, "columns/%s", k >= ds->nfields
		 ? ds->keys[k - ds->nfields].name : ds->fields[k].name);
	COLFS_TRY(ds_union_begin(t, n, ds, v->idx[i], path, &damaged, &nulls));
	if (damaged)
		return ds_null_rows(ds, f, k, false, null_token, nulls, out);
	if (ds_rows(f) <= 0)
		return COLFS_OK;
	COLFS_TRY(ds_union_check(t, n, f));
	int64_t rows = ds_rows_shown(f);
	long kk = k >= ds->nfields ? (long)(k - ds->nfields) : ds->fields[k].key;
	if (kk >= 0) {
		size_t key = (size_t)kk;
		colfs_buf one = COLFS_BUF_INIT;
		ds_render_pval(&one, ds, key, f->pvals ? f->pvals[key] : NULL,
			       0, null_token);
		colfs_buf_putc(&one, '\n');
		for (int64_t r = 0; r < rows && colfs_buf_status(out) == COLFS_OK; r++)
			colfs_buf_append(out, one.data, one.len);
		colfs_status st = colfs_buf_status(&one);
		colfs_buf_free(&one);
		return st ? st : colfs_buf_status(out);
	}
	size_t j = 0;
	while (j < f->nfields && strcmp(f->fields[j], ds->fields[k].name))
		j++;
	if (j == f->nfields) {
		for (int64_t r = 0; r < rows && colfs_buf_status(out) == COLFS_OK; r++) {
			colfs_buf_puts(out, null_token);
			colfs_buf_putc(out, '\n');
		}
		return colfs_buf_status(out);
	}
	snprintf(path, sizeof path, "columns/%s",
		 f->phys ? f->phys[j] : f->fields[j]);
	if (!f->ndeleted) {
		colfs_status st = ds_union_read(t, n, ds, v->idx[i], path, out,
						&damaged, &nulls);
		if (st == COLFS_OK && damaged)
			st = ds_null_rows(ds, f, k, false, null_token, nulls,
					  out);
		return st;
	}
	/* one value a line: the lines of the deleted rows left out */
	colfs_buf in = COLFS_BUF_INIT;
	colfs_status st = ds_union_read(t, n, ds, v->idx[i], path, &in,
					&damaged, &nulls);
	if (st == COLFS_OK && damaged) {
		/* its rows as NULL, deleted ones already left out */
		colfs_buf_free(&in);
		return ds_null_rows(ds, f, k, false, null_token, nulls, out);
	}
	const char *p = in.data, *end = in.data + in.len;
	uint64_t r = 0;
	size_t d = 0;
	while (st == COLFS_OK && p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (d < f->ndeleted && f->deleted[d] == r)
			d++;
		else
			colfs_buf_append(out, p, len);
		p += len;
		r++;
		st = colfs_buf_status(out);
	}
	if (st == COLFS_OK && r != (uint64_t)f->rows)
		st = ds_count_mismatch(t, n, f, path, r);
	colfs_buf_free(&in);
	return st;
}

/* A field of a CSV record as written (quotes kept). */
typedef struct ds_span {
	const char *p;
	size_t n;
} ds_span;

/* The members of a CSV record starting at `p`: fields as written
 * (quotes kept; a quoted field may hold commas and newlines, an inner
 * quote doubled); returns the record's length with its newline. */
static size_t ds_csv_record(const char *p, size_t len, ds_span *m,
			    size_t cap, size_t *nm, bool *ok)
{
	size_t start = 0;
	bool q = false;
	*nm = 0;
	*ok = true;
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? p[i] : '\n';
		if (q) {
			if (c == '"')
				q = false;
			continue;
		}
		if (c == '"') {
			q = true;
		} else if (c == ',' || c == '\n') {
			if (*nm == cap) {
				*ok = false;
				return i < len ? i + 1 : len;
			}
			m[*nm].p = p + start;
			m[(*nm)++].n = i - start;
			start = i + 1;
			if (c == '\n')
				return i < len ? i + 1 : len;
		}
	}
	return len;
}

static colfs_status rows_piece(colfs_tree *t, colfs_node *n, uint64_t i,
			       colfs_buf *out)
{
	ds_view *v = view_of(n);
	dataset *ds = v->ds;
	bool csv = colfs_node_a(n) == 1;
	/* rows.csv: the files' fields are copied as their own rows.csv
	 * writes them; the union's own (a field a file lacks, a partition
	 * value) are written the same way (core/render.h) */
	const char *null_token = csv ? colfs_tree_options(t)->csv_null
				     : colfs_tree_options(t)->null_token;
	ds_load(ds);
	if (csv && i == 0) {
		size_t shown = 0;
		for (size_t k = 0; k < ds->nfields; k++)
			if (!ds->fields[k].nested)
				colfs_buf_printf(out, "%s%s", shown++ ? "," : "",
						 ds->fields[k].key_csv);
		for (size_t k = 0; k < ds->nkeys; k++) {
			if (ds_key_placed(ds, k))
				continue;
			colfs_buf_puts(out, shown++ ? "," : "");
			char *h = ds_csv_text(ds->keys[k].name,
					      strlen(ds->keys[k].name));
			colfs_buf_puts(out, h ? h : "");
			free(h);
		}
		colfs_buf_putc(out, '\n');
		return colfs_buf_status(out);
	}
	if (csv)
		i--;
	if (i >= v->n)
		return COLFS_END;
	ds_file *f = &ds->files[v->idx[i]];
	const char *view = csv ? "rows.csv" : "rows.jsonl";
	bool damaged;
	uint64_t nulls;
	COLFS_TRY(ds_union_begin(t, n, ds, v->idx[i], view, &damaged, &nulls));
	if (damaged)
		return ds_null_rows(ds, f, SIZE_MAX, csv, null_token, nulls, out);
	if (ds_rows(f) <= 0)
		return COLFS_OK;
	COLFS_TRY(ds_union_check(t, n, f));
	colfs_buf in = COLFS_BUF_INIT;
	colfs_status st = ds_union_read(t, n, ds, v->idx[i], view, &in,
					&damaged, &nulls);
	if (st == COLFS_OK && damaged) {
		colfs_buf_free(&in);
		return ds_null_rows(ds, f, SIZE_MAX, csv, null_token, nulls, out);
	}
	/* where each unified field is among the file's members */
	size_t nm_cap = f->nfields + 1;
	ds_span *m = calloc(nm_cap, sizeof *m);
	ds_member *jm = csv ? NULL : calloc(nm_cap, sizeof *jm);
	long *at = calloc(ds->nfields + 1, sizeof *at);
	/* each unified field's key in the file's own view (its physical
	 * name under column mapping), NULL where the file lacks it */
	char **fkey = calloc(ds->nfields + 1, sizeof *fkey);
	colfs_buf pv = COLFS_BUF_INIT;  /* the partition members */
	if (!m || !at || !fkey || (!csv && !jm))
		st = COLFS_ENOMEM;
	for (size_t k = 0; st == COLFS_OK && k < ds->nfields; k++) {
		size_t j = 0;
		while (j < f->nfields && strcmp(f->fields[j], ds->fields[k].name))
			j++;
		if (j == f->nfields)
			continue;
		const char *own = f->phys ? f->phys[j] : f->fields[j];
		const char *raw = f->raw ? f->raw[j] : NULL;
		fkey[k] = !csv ? strdup(own)
			  : raw ? ds_csv_text(raw, strlen(raw)) : ds_csv_key(own);
		if (!fkey[k])
			st = COLFS_ENOMEM;
	}
	for (size_t k = 0; st == COLFS_OK && k < ds->nkeys; k++) {
		const char *val = f->pvals ? f->pvals[k] : NULL;
		if (ds_key_placed(ds, k))
			continue;
		if (csv) {
			colfs_buf_putc(&pv, ',');
		} else {
			colfs_buf_putc(&pv, ',');
			colfs_render_json_string(&pv, (const uint8_t *)ds->keys[k].name,
						 strlen(ds->keys[k].name));
			colfs_buf_putc(&pv, ':');
		}
		ds_render_pval(&pv, ds, k, val, csv ? 2 : 1, null_token);
	}
	const char *p = in.data, *end = in.data + in.len;
	size_t nm, d = 0;
	uint64_t r = 0;
	bool ok = true, mapped = false;
	if (st == COLFS_OK && csv && p) {
		/* the file's header: which column is which field */
		size_t used = ds_csv_record(p, (size_t)(end - p), m, nm_cap,
					    &nm, &ok);
		for (size_t k = 0; ok && k < ds->nfields; k++) {
			at[k] = -1;
			for (size_t j = 0; fkey[k] && j < nm; j++)
				if (m[j].n == strlen(fkey[k]) &&
				    !memcmp(m[j].p, fkey[k], m[j].n))
					at[k] = (long)j;
		}
		mapped = true;
		p += used;
	}
	while (st == COLFS_OK && ok && p && p < end) {
		const char *nl;
		size_t used;
		if (csv) {
			used = ds_csv_record(p, (size_t)(end - p), m, nm_cap,
					     &nm, &ok);
		} else {
			nl = memchr(p, '\n', (size_t)(end - p));
			used = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
			ok = ds_jsonl_members(p, nl ? (size_t)(nl - p) : used,
					      jm, nm_cap, &nm);
			if (ok && !mapped) {
				/* each member's key as the file's columns/
				 * names it: the field it holds */
				for (size_t k = 0; k < ds->nfields; k++)
					at[k] = -1;
				for (size_t j = 0; j < nm; j++) {
					char *name = ds_jsonl_member_name(jm, j);
					for (size_t k = 0; name && k < ds->nfields; k++)
						if (fkey[k] && !strcmp(fkey[k], name))
							at[k] = (long)j;
					free(name);
				}
				mapped = true;
			}
		}
		if (!ok)
			break;
		/* a row its deletion vector deletes */
		if (d < f->ndeleted && f->deleted[d] == r) {
			d++;
			r++;
			p += used;
			continue;
		}
		r++;
		if (!csv)
			colfs_buf_putc(out, '{');
		size_t shown = 0;
		for (size_t k = 0; k < ds->nfields; k++) {
			/* a struct's leaf: inside its struct's member */
			if (ds->fields[k].nested)
				continue;
			if (shown++)
				colfs_buf_putc(out, ',');
			if (ds->fields[k].key >= 0) {
				/* a Hive key's column: the folder's value */
				long key = ds->fields[k].key;
				if (!csv) {
					colfs_buf_puts(out, ds->fields[k].key_json);
					colfs_buf_putc(out, ':');
				}
				ds_render_pval(out, ds, (size_t)key,
					       f->pvals ? f->pvals[key] : NULL,
					       csv ? 2 : 1, null_token);
			} else if (at[k] >= 0 && (size_t)at[k] < nm && csv) {
				colfs_buf_append(out, m[at[k]].p, m[at[k]].n);
			} else if (at[k] >= 0 && (size_t)at[k] < nm) {
				/* the member under the unified key */
				const ds_member *jv = &jm[at[k]];
				colfs_buf_puts(out, ds->fields[k].key_json);
				colfs_buf_putc(out, ':');
				colfs_buf_append(out, jv->val, jv->val_len);
			} else if (csv)
				colfs_buf_puts(out, null_token);
			else
				colfs_buf_printf(out, "%s:null",
						 ds->fields[k].key_json);
		}
		if (shown || pv.len == 0)
			colfs_buf_append(out, pv.data, pv.len);
		else if (pv.len)
			colfs_buf_append(out, pv.data + 1, pv.len - 1);
		colfs_buf_puts(out, csv ? "\n" : "}\n");
		p += used;
		st = colfs_buf_status(out);
	}
	if (st == COLFS_OK && !ok) {
		colfs_tree_report(t, n, UINT64_MAX, COLFS_ECORRUPT,
				  "%s: a line of its %s is not one record of "
				  "its fields", f->rel,
				  csv ? "rows.csv" : "rows.jsonl");
		st = COLFS_ECORRUPT;
	}
	if (st == COLFS_OK && f->ndeleted && r != (uint64_t)f->rows)
		st = ds_count_mismatch(t, n, f, csv ? "rows.csv" : "rows.jsonl",
				       r);
	for (size_t k = 0; fkey && k < ds->nfields; k++)
		free(fkey[k]);
	free(fkey);
	colfs_buf_free(&pv);
	colfs_buf_free(&in);
	free(m);
	free(jm);
	free(at);
	return st;
}

/* Concurrent: the core renders the pieces after a sequential reader's
 * on its workers (core/ahead.c), so the next files are opened and read
 * ahead of it, as many at once as it has workers (-o decode_threads). */
static const colfs_node_ops column_ops = {
	.piece = column_piece,
	.concurrent = true,
	.decodes = ds_view_decodes,
};

static const colfs_node_ops rows_ops = {
	.piece = rows_piece,
	.concurrent = true,
	.decodes = ds_view_decodes,
};

static colfs_status columns_populate(colfs_tree *t, colfs_node *dir)
{
	ds_view *v = view_of(dir);
	dataset *ds = v->ds;
	ds_load(ds);
	for (size_t k = 0; k < ds->nfields + ds->nkeys; k++) {
		char *raw = NULL;
		const char *name;
		if (k >= ds->nfields && ds_key_placed(ds, k - ds->nfields))
			continue;
		if (k < ds->nfields && ds->fields[k].raw) {
			name = ds->fields[k].raw;
		} else if (k < ds->nfields) {
			/* the file's escaped name, as a raw one */
			size_t len = strlen(ds->fields[k].name);
			raw = malloc(len + 1);
			if (!raw)
				return COLFS_ENOMEM;
			colfs_name_unescape(ds->fields[k].name, len, raw);
			name = raw;
		} else {
			name = ds->keys[k - ds->nfields].name;
		}
		colfs_node *c = colfs_dir_add_stream(t, dir, name, &column_ops, v);
		free(raw);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, k, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops columns_ops = {
	.populate = columns_populate,
};

/* partitions/: the distinct values of the view's next key. */
static colfs_status partitions_populate(colfs_tree *t, colfs_node *dir)
{
	ds_view *v = view_of(dir);
	dataset *ds = v->ds;
	size_t key = v->key0;
	colfs_status st = COLFS_OK;
	/* lists the dataset if it is not yet (the root view's files come
	 * then) */
	ds_probe_all(ds);
	/* shown for a `key=value` folder before the listing, which found
	 * no file under it */
	if (key >= ds->nkeys)
		return COLFS_OK;
	bool *done = calloc(v->n + 1, sizeof *done);
	if (!done)
		return COLFS_ENOMEM;
	for (size_t i = 0; st == COLFS_OK && i < v->n; i++) {
		if (done[i] || ds->files[v->idx[i]].kind != 1)
			continue;
		const char *val = ds->files[v->idx[i]].pvals
				  ? ds->files[v->idx[i]].pvals[key] : NULL;
		ds_view *sub = colfs_tree_alloc(t, sizeof *sub);
		size_t *idx = colfs_tree_alloc(t, (v->n - i) * sizeof *idx);
		char *name = malloc(strlen(ds->keys[key].name) +
				    (val ? strlen(val) : 26) + 2);
		if (!sub || !idx || !name) {
			free(name);
			st = COLFS_ENOMEM;
			break;
		}
		sprintf(name, "%s=%s", ds->keys[key].name,
			val ? val : "__HIVE_DEFAULT_PARTITION__");
		sub->ds = ds;
		sub->idx = idx;
		sub->key0 = key + 1;
		for (size_t j = i; j < v->n; j++) {
			ds_file *g = &ds->files[v->idx[j]];
			const char *gv = g->pvals ? g->pvals[key] : NULL;
			if (done[j] || g->kind != 1)
				continue;
			if ((!gv && !val) || (gv && val && !strcmp(gv, val))) {
				done[j] = true;
				idx[sub->n++] = v->idx[j];
			}
		}
		colfs_node *d = colfs_dir_add_dir(t, dir, name, &view_ops, sub);
		free(name);
		if (!d) {
			st = COLFS_ENOMEM;
			break;
		}
		char path[4096];
		colfs_node_path(d, path, sizeof path);
		sub->prefix = colfs_tree_strdup(t, path);
		if (!sub->prefix)
			st = COLFS_ENOMEM;
	}
	free(done);
	return st;
}

static const colfs_node_ops partitions_ops = {
	.populate = partitions_populate,
};

static colfs_status ds_list_root(dataset *ds, char *why, size_t why_len);

static colfs_status view_populate(colfs_tree *t, colfs_node *dir)
{
	ds_view *v = view_of(dir);
	colfs_node *n;
	char why[512] = "";
	colfs_status st = ds_list_root(v->ds, why, sizeof why);
	if (st != COLFS_OK) {
		colfs_tree_report(t, dir, UINT64_MAX, st, "the directory "
				  "cannot be listed: %s",
				  why[0] ? why : colfs_status_name(st));
		return st;
	}
	/* summary, schema and errors read every footer: a listing (ls -l,
	 * a readdirplus) does not make them to learn their sizes */
	colfs_node *sum = colfs_dir_add_summary(t, dir, &summary_ops, v);
	colfs_node *sch = colfs_dir_add_doc(t, dir, "schema", &schema_ops, v);
	if (!sum || !sch || !colfs_dir_add_dir(t, dir, "schemas", &schemas_ops, v))
		return COLFS_ENOMEM;
	n = colfs_dir_add_doc(t, dir, "errors", &errors_ops, v);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_volatile(n);
	colfs_node_set_size_when_read(sum);
	colfs_node_set_size_when_read(sch);
	colfs_node_set_size_when_read(n);
	/* the root listed alone: files/ lists the disk folder by folder */
	bool listed = __atomic_load_n(&v->ds->listed, __ATOMIC_ACQUIRE);
	if (listed) {
		ds_folder *files = colfs_tree_alloc(t, sizeof *files);
		if (!files)
			return COLFS_ENOMEM;
		*files = (ds_folder){v, 0, v->n, 0};
		if (!colfs_dir_add_dir(t, dir, "files", &folder_ops, files))
			return COLFS_ENOMEM;
	} else {
		ds_disk_folder *files = colfs_tree_alloc(t, sizeof *files);
		if (!files)
			return COLFS_ENOMEM;
		*files = (ds_disk_folder){v->ds, ""};
		if (!colfs_dir_add_dir(t, dir, "files", &disk_folder_ops,
				       files))
			return COLFS_ENOMEM;
	}
	if (v->ds->snap && !v->prefix[0]) {
		colfs_node *d = colfs_dir_add_dir(t, dir, "delta", NULL, NULL);
		if (!d)
			return COLFS_ENOMEM;
		COLFS_TRY(colfs_delta_add_tree(t, d, v->ds->root, v->ds->snap));
	}
	if ((listed ? v->key0 < v->ds->nkeys : v->ds->top_keys) &&
	    !colfs_dir_add_dir(t, dir, "partitions", &partitions_ops, v))
		return COLFS_ENOMEM;
	if (!colfs_dir_add_dir(t, dir, "columns", &columns_ops, v))
		return COLFS_ENOMEM;
	n = colfs_dir_add_stream(t, dir, "rows.jsonl", &rows_ops, v);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, 0, 0, 0);
	n = colfs_dir_add_stream(t, dir, "rows.csv", &rows_ops, v);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, 1, 0, 0);
	return COLFS_OK;
}

/* ------------------------------------------------------------------------
 * Open and close
 */
/* The files' table and what the listing made of it (the keys, the root
 * view's files); none after. */
static void dataset_files_free(dataset *ds)
{
	for (size_t i = 0; i < ds->nfiles; i++) {
		ds_file *f = &ds->files[i];
		colfs_tree_destroy(f->tree);
		free(f->rel);
		free(f->tree_path);
		for (size_t k = 0; f->pvals && k < ds->nkeys; k++)
			free(f->pvals[k]);
		free(f->pvals);
		free(f->why);
		free(f->writer);
		free(f->schema_text);
		for (size_t k = 0; k < f->nfields; k++) {
			free(f->fields[k]);
			free(f->types[k]);
			if (f->phys)
				free(f->phys[k]);
			if (f->raw)
				free(f->raw[k]);
		}
		free(f->raw);
		free(f->fields);
		free(f->types);
		free(f->phys);
		free(f->damage);
	}
	free(ds->files);
	ds->files = NULL;
	ds->nfiles = 0;
	for (size_t k = 0; k < ds->nkeys; k++)
		free(ds->keys[k].name);
	free(ds->keys);
	ds->keys = NULL;
	ds->nkeys = 0;
	if (ds->root_view) {
		free(ds->root_view->idx);
		ds->root_view->idx = NULL;
		ds->root_view->n = 0;
	}
}

static void dataset_close(void *state)
{
	dataset *ds = state;
	if (!ds)
		return;
	dataset_files_free(ds);
	free(ds->open_idx);
	colfs_delta_free(ds->snap);
	for (size_t k = 0; k < ds->nfields; k++) {
		free(ds->fields[k].name);
		free(ds->fields[k].raw);
		free(ds->fields[k].key_json);
		free(ds->fields[k].key_csv);
		free(ds->fields[k].type);
	}
	free(ds->fields);
	for (size_t k = 0; k < ds->nschemas; k++)
		free(ds->schemas[k]);
	free(ds->schemas);
	for (size_t k = 0; k < ds->nproblems; k++)
		free(ds->problems[k]);
	free(ds->problems);
	ds_stamps_destroy(ds->stamps);
	pthread_mutex_destroy(&ds->load);
	pthread_mutex_destroy(&ds->lru);
	pthread_mutex_destroy(&ds->plock);
	free(ds->root);
	free(ds);
}

/* "/files/" and each component of `rel` escaped as the tree names it. */
static char *ds_tree_path(const char *rel)
{
	colfs_buf b = COLFS_BUF_INIT;
	const char *p = rel;
	colfs_buf_puts(&b, "/files");
	for (;;) {
		size_t n = strcspn(p, "/");
		char *comp = strndup(p, n);
		char *esc = comp ? colfs_name_escape(comp) : NULL;
		if (esc)
			colfs_buf_printf(&b, "/%s", esc);
		free(comp);
		free(esc);
		if (!p[n])
			break;
		p += n + 1;
	}
	colfs_buf_putc(&b, '\0');
	if (colfs_buf_status(&b) != COLFS_OK) {
		colfs_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* A Delta table's files: the snapshot's active files, in path order
 * (delta.h). */
static colfs_status ds_list_delta(dataset *ds, ds_entry **out, size_t *n)
{
	const colfs_delta_snapshot *s = ds->snap;
	*n = 0;
	*out = calloc(s->n_files ? s->n_files : 1, sizeof **out);
	if (!*out)
		return COLFS_ENOMEM;
	for (size_t i = 0; i < s->n_files; i++) {
		(*out)[i].rel = strdup(s->files[i].path);
		(*out)[i].size = s->files[i].size;
		if (!(*out)[i].rel)
			return COLFS_ENOMEM;
		(*n)++;
	}
	return COLFS_OK;
}

/* A Delta table's partition values: the log's, typed by the schema. */
static colfs_status ds_partitions_delta(dataset *ds)
{
	const colfs_delta_snapshot *s = ds->snap;
	ds->keys = calloc(s->n_partition_columns + 1, sizeof *ds->keys);
	if (!ds->keys)
		return COLFS_ENOMEM;
	for (size_t k = 0; k < s->n_partition_columns; k++) {
		ds_type ty = DS_VARCHAR;
		for (size_t j = 0; j < s->n_fields; j++) {
			const char *tj = s->fields[j].type_json;
			if (strcmp(s->fields[j].name, s->partition_columns[k]) || !tj)
				continue;
			if (!strcmp(tj, "\"long\"") || !strcmp(tj, "\"integer\"") ||
			    !strcmp(tj, "\"short\"") || !strcmp(tj, "\"byte\""))
				ty = DS_BIGINT;
			else if (!strcmp(tj, "\"date\""))
				ty = DS_DATE;
		}
		ds->keys[k].name = strdup(s->partition_columns[k]);
		ds->keys[k].type = ty;
		if (!ds->keys[k].name)
			return COLFS_ENOMEM;
		ds->nkeys++;
	}
	for (size_t i = 0; i < ds->nfiles && i < s->n_files; i++) {
		ds_file *f = &ds->files[i];
		f->pvals = calloc(ds->nkeys + 1, sizeof *f->pvals);
		if (!f->pvals)
			return COLFS_ENOMEM;
		for (size_t k = 0; k < ds->nkeys && k < s->files[i].n_partitions; k++)
			if (s->files[i].partition_values[k] &&
			    !(f->pvals[k] = strdup(s->files[i].partition_values[k])))
				return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static colfs_status ds_adopt(dataset *ds, ds_entry *ents, size_t n);

/* ds_list_refuse's look at a file's magic bytes. */
static bool ds_columnar(void *ctx, const char *rel, uint64_t size)
{
	return ds_magic(ctx, rel, size) == 1;
}

static colfs_status dataset_open(colfs_tree *t, colfs_err *err)
{
	const char *name = colfs_tree_display_name(t);
	dataset *ds = calloc(1, sizeof *ds);
	char why[512] = "";
	ds_entry *ents = NULL;
	size_t n = 0;
	colfs_status st;

	if (!ds)
		return COLFS_ENOMEM;
	pthread_mutex_init(&ds->load, NULL);
	pthread_mutex_init(&ds->lru, NULL);
	pthread_mutex_init(&ds->plock, NULL);
	colfs_tree_set_format_state(t, ds);
	/* An S3 prefix (s3://BUCKET/PREFIX/): the objects under it, each
	 * file opened by its URL (ROOT/REL, a remote source). */
	bool s3 = strncmp(name, "s3://", 5) == 0;
	ds->s3 = s3;
	if (s3) {
		size_t rl = strlen(name);
		while (rl > 5 && name[rl - 1] == '/')
			rl--;
		ds->root = strndup(name, rl);
	} else {
		ds->root = realpath(name, NULL);
	}
	if (!ds->root) {
		colfs_fail(err, COLFS_EIO, UINT64_MAX, "%s", strerror(errno));
		return COLFS_EIO;
	}
	/* A Delta Lake table is read from its log (delta.c), never as the
	 * files its folder holds (some are removed from the table).  Under
	 * an S3 prefix it is known once the listing has seen the log. */
	bool delta = false;
	const colfs_options *o = colfs_tree_options(t);
	/* The version goes to the log reader as an argument: the options it
	 * keeps (and opens checkpoints with) and those of the files' trees
	 * have none, which a file's own tree would refuse. */
	colfs_options lo = *o;
	lo.delta_version_set = false;
	if (!s3 && colfs_delta_is_table(ds->root)) {
		st = colfs_delta_load(ds->root, o->delta_version_set
					? o->delta_version : -1, &lo, &ds->snap, err);
		if (st != COLFS_OK)
			return st;
	} else if (!s3 && ds_foreign_table(ds->root, why, sizeof why)) {
		colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX, "%s", why);
		return COLFS_EUNSUPPORTED;
	}
	if (!s3 && !(ds->stamps = ds_stamps_create()))
		return COLFS_ENOMEM;
	ds->gopts = lo;
	/* The files' own trees: each a share of the cache, no workers of
	 * their own (there may be max_open_files of them). */
	ds->gopts.cache_bytes /= ds->gopts.max_open_files;
	if (ds->gopts.cache_bytes < (1u << 20))
		ds->gopts.cache_bytes = 1u << 20;
	ds->gopts.decode_threads = -1;
	if (ds->snap) {
		st = ds_list_delta(ds, &ents, &n);
	} else if (s3) {
		/* each file's remote cache a share too */
		ds->gopts.remote_cache_bytes /= ds->gopts.max_open_files;
		if (ds->gopts.remote_cache_bytes < (1u << 20))
			ds->gopts.remote_cache_bytes = 1u << 20;
		st = ds_list_s3(name, colfs_tree_options(t), &delta, &ents, &n,
				why, sizeof why);
	} else {
		/* is there any file?  (the listing waits for the tree's) */
		st = ds_list_local(ds->root, &ds->gopts, 1, &ents, &n, NULL, why,
				   sizeof why);
	}
	if (st != COLFS_OK) {
		colfs_fail(err, st, UINT64_MAX, "%s", why[0] ? why : colfs_status_name(st));
		return st;
	}
	if (delta) {
		/* A Delta table under an S3 prefix: its log read over S3
		 * (delta.c), its active files opened by their URLs. */
		ds_entries_free(ents, n);
		ents = NULL;
		n = 0;
		st = colfs_delta_load(ds->root, o->delta_version_set
					? o->delta_version : -1, &lo, &ds->snap, err);
		if (st != COLFS_OK)
			return st;
		st = ds_list_delta(ds, &ents, &n);
		if (st != COLFS_OK)
			return st;
	}
	if (o->delta_version_set && !ds->snap) {
		ds_entries_free(ents, n);
		colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX,
			   "-o version=%lld applies to Delta tables only, and "
			   "this directory has no _delta_log/", (long long)
			   o->delta_version);
		return COLFS_EUNSUPPORTED;
	}
	/* A directory with no file colfs can show is refused, whatever
	 * else it holds (an empty folder, a CSV file). */
	if (!ds->snap && (n == 0 || (!s3 && ds_magic(ds, ents[0].rel,
						     ents[0].size) != 1))) {
		ds_entries_free(ents, n);
		ents = NULL;
		n = 0;
		if (s3)
			return colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX,
					  "no Parquet, ORC or CFile file under "
					  "this prefix (names starting with "
					  "'.' or '_' are skipped)");
		st = ds_list_refuse(ds->root, &ds->gopts, ds_columnar, ds, err);
		if (st != COLFS_OK)
			return st;
	}
	ds_view *v = colfs_tree_alloc(t, sizeof *v);
	if (!v) {
		ds_entries_free(ents, n);
		return COLFS_ENOMEM;
	}
	v->ds = ds;
	v->prefix = "";
	ds->root_view = v;
	colfs_node_set_ops(colfs_tree_root(t), &view_ops, v);
	if (!ds->snap && !s3) {
		/* the one file found says the directory is not empty; the
		 * rest is listed when the tree is */
		ds_entries_free(ents, n);
		return COLFS_OK;
	}
	return ds_adopt(ds, ents, n);
}

/* Take the listing `ents` as the dataset's files (freed here); the root
 * view shows them all. */
static colfs_status ds_adopt(dataset *ds, ds_entry *ents, size_t n)
{
	colfs_status st = COLFS_OK;
	ds->files = calloc(n ? n : 1, sizeof *ds->files);
	size_t *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!ds->files || !idx) {
		free(idx);
		ds_entries_free(ents, n);
		return COLFS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ds->files[i].rel = ents[i].rel;
		ents[i].rel = NULL;
		ds->files[i].size = ents[i].size;
		ds->files[i].tree_path = ds_tree_path(ds->files[i].rel);
		ds->files[i].rows = -1;
		ds->files[i].groups = -1;
		if (ds->snap && i < ds->snap->n_files) {
			/* the union views leave these rows out */
			ds->files[i].deleted = ds->snap->files[i].deleted_rows;
			ds->files[i].ndeleted = ds->snap->files[i].n_deleted_rows;
		}
		if (!ds->files[i].tree_path)
			st = COLFS_ENOMEM;
		idx[i] = i;
	}
	ds->nfiles = n;
	ds_entries_free(ents, n);
	ds->root_view->idx = idx;
	ds->root_view->n = n;
	if (st == COLFS_OK)
		st = ds->snap ? ds_partitions_delta(ds) : ds_partitions(ds);
	if (st == COLFS_OK)
		__atomic_store_n(&ds->listed, true, __ATOMIC_RELEASE);
	return st;
}

/* The tree's first listing (its root's populate): the root folder
 * alone.  Holding no folder it is the whole listing; holding a
 * `key=value` folder (partitions/ is shown) the rest waits for a view
 * that needs it (ds_list_now: summary, schema, partitions/, the union
 * views; files/ lists folder by folder); holding only other folders
 * (whose files may have keys deeper down) everything is listed now. */
static colfs_status ds_list_root(dataset *ds, char *why, size_t why_len)
{
	ds_entry *ents = NULL;
	size_t n = 0;
	colfs_status st = COLFS_OK;
	bool full = false;

	if (__atomic_load_n(&ds->listed, __ATOMIC_ACQUIRE))
		return COLFS_OK;
	pthread_mutex_lock(&ds->load);
	if (!ds->listed && !ds->top_keys) {
		ds_found found = {0};
		st = ds_list_folder(ds->root, &ds->gopts, "", &ents, &n,
				    &found, why,
				    why_len);
		ds_found_take(ds, &found);
		bool dirs = false, keys = false;
		for (size_t i = 0; st == COLFS_OK && i < n; i++) {
			const char *eq = strchr(ents[i].rel, '=');
			dirs |= ents[i].dir;
			keys |= ents[i].dir && eq && eq > ents[i].rel;
		}
		if (st == COLFS_OK && !dirs) {
			dataset_files_free(ds);
			st = ds_adopt(ds, ents, n);
		} else {
			ds_entries_free(ents, n);
			ds->top_keys = keys;
			full = st == COLFS_OK && !keys;
		}
	}
	pthread_mutex_unlock(&ds->load);
	return full ? ds_list_now(ds, why, why_len) : st;
}

/* A local directory's files, listed once (the first listing of the
 * tree: its root's populate). */
static colfs_status ds_list_now(dataset *ds, char *why, size_t why_len)
{
	ds_entry *ents = NULL;
	size_t n = 0;
	colfs_status st = COLFS_OK;

	if (__atomic_load_n(&ds->listed, __ATOMIC_ACQUIRE))
		return COLFS_OK;
	pthread_mutex_lock(&ds->load);
	if (!ds->listed) {
		ds_found found = {0};
		st = ds_list_local(ds->root, &ds->gopts, SIZE_MAX, &ents, &n,
				   &found, why, why_len);
		ds_found_take(ds, &found);
		if (st == COLFS_OK) {
			/* a partial table of a failed try is dropped */
			dataset_files_free(ds);
			st = ds_adopt(ds, ents, n);
		}
	}
	pthread_mutex_unlock(&ds->load);
	return st;
}

/* The folders below the top one (the tree's source, which the core
 * checks), as a listing read them (dataset_change.c). */
static colfs_status dataset_check(colfs_tree *t, bool force, colfs_err *err)
{
	dataset *ds = colfs_tree_format_state(t);
	return ds ? ds_stamps_check(ds->stamps, colfs_tree_fd(t), force, err)
		  : COLFS_OK;
}

const colfs_format colfs_format_dataset = {
	.name = "dataset",
	.probe = NULL,
	.open = dataset_open,
	.close = dataset_close,
	.sized_by_nodes = true,
	.check = dataset_check,
};

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


/* ------------------------------------------------------------------------
 * Problems: "path: offset: kind: message" lines; `st` COLFS_OK makes a
 * note of the dataset as a whole ("path: message": schema drift names
 * no byte of any file and is no damage)
 */
void ds_problem(dataset *ds, const char *path, uint64_t offset,
		       colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

void ds_problem(dataset *ds, const char *path, uint64_t offset,
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
void ds_set_damage(dataset *ds, ds_file *f, const char *why)
{
	pthread_mutex_lock(&ds->plock);
	if (!f->damage)
		f->damage = strdup(why);
	pthread_mutex_unlock(&ds->plock);
}

/* Copy the problems of file `f`'s open tree not copied yet. */
void ds_sync(dataset *ds, ds_file *f, colfs_tree *g)
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

colfs_status ds_list_now(dataset *ds, char *why, size_t why_len);

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

colfs_status ds_acquire(void *ctx, uint64_t key, colfs_tree **out)
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

void ds_release(void *ctx, uint64_t key, colfs_tree *guest)
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
colfs_status ds_read_node(colfs_tree *g, const char *path,
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
 * The tree
 */
static colfs_status view_populate(colfs_tree *t, colfs_node *dir);

static const colfs_node_ops view_ops = {
	.populate = view_populate,
};

ds_view *ds_view_of(colfs_node *n)
{
	return colfs_node_ctx(n);
}

/* The bytes a whole render of a view (or of summary, schema, errors)
 * reads at most: the sizes of the files it lists (one whose magic says
 * it is no columnar file counted too: the magic bytes may still be
 * being read), the dataset listed first as any read of it would.
 * sizes=auto sizes it at a stat when small (core/tree_sizes.c). */
bool ds_view_decodes(colfs_tree *t, colfs_node *n, uint64_t *bytes)
{
	ds_view *v = ds_view_of(n);
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
int64_t ds_rows(const ds_file *f)
{
	return f->kind == 1 && f->info == 1 ? f->rows : 0;
}

/* The rows a file shows in the union views: its rows but those its
 * deletion vector deletes. */
int64_t ds_rows_shown(const ds_file *f)
{
	int64_t r = ds_rows(f);
	return r > (int64_t)f->ndeleted ? r - (int64_t)f->ndeleted : 0;
}

/* The rows damaged file i adds to the union views under
 * on_damage=null: the log's numRecords, else its footer's rows, less
 * those its deletion vector deletes; -1 unknown. */
int64_t ds_damaged_rows(const dataset *ds, size_t i)
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
	ds_view *v = ds_view_of(n);
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
	ds_view *v = ds_view_of(n);
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
	ds_view *v = ds_view_of(n);
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
	ds_view *v = ds_view_of(dir);
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
	ds_view *v = ds_view_of(n);
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

static colfs_status columns_populate(colfs_tree *t, colfs_node *dir)
{
	ds_view *v = ds_view_of(dir);
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
		colfs_node *c = colfs_dir_add_stream(t, dir, name, &ds_column_ops, v);
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
	ds_view *v = ds_view_of(dir);
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
	ds_view *v = ds_view_of(dir);
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
	n = colfs_dir_add_stream(t, dir, "rows.jsonl", &ds_rows_ops, v);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, 0, 0, 0);
	n = colfs_dir_add_stream(t, dir, "rows.csv", &ds_rows_ops, v);
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
colfs_status ds_list_now(dataset *ds, char *why, size_t why_len)
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

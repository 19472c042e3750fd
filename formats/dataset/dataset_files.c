/* colfs: a dataset (dataset.c): its own problem list, the LRU of the
 * files' open trees, and the listing of its files (ds_list_now): what
 * the tree, the schema and the union views all call.  What these share
 * with the tree is in dataset_int.h. */
#include "dataset_int.h"
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
	/* kept sorted (the lines as text): what the pool's threads find
	 * comes in the order they ran, what errors shows does not */
	pthread_mutex_lock(&ds->plock);
	size_t lo = 0, hi = ds->nproblems;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ds->problems[mid], b.data);
		if (c == 0) {
			pthread_mutex_unlock(&ds->plock);
			colfs_buf_free(&b);
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
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
	memmove(ds->problems + lo + 1, ds->problems + lo,
		(ds->nproblems - lo) * sizeof *ds->problems);
	ds->problems[lo] = b.data;
	ds->nproblems++;
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


/* What a listing passed by: each entry it did not take a problem under
 * its path, each folder it read kept for the change check. */
void ds_found_take(dataset *ds, ds_found *found)
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

/* ds_acquire, and when `quiet` a failure is neither filed nor kept as
 * the file's damage (a union piece rendered ahead: its reader opens the
 * file again and files it, dataset_union.c). */
static colfs_status ds_acquire_as(dataset *ds, uint64_t key, colfs_tree **out,
				  bool quiet)
{
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
		: ds_identity_check(path, &f->ident, ds->table ? UINT64_MAX
				    : f->size, why, sizeof why);
	pthread_mutex_unlock(&ds->lru);
	if (st != COLFS_OK) {
		free(path);
		if (quiet)
			return st;
		ds_problem(ds, f->tree_path, UINT64_MAX, st, "%s", why);
		ds_set_damage(ds, f, why);
		return st;
	}
	st = colfs_tree_open(path, &ds->gopts, &t, why, sizeof why);
	free(path);
	if (st != COLFS_OK && quiet)
		return st;
	if (st != COLFS_OK) {
		/* "<path>: reason": the reason alone, under the file */
		const char *r = strstr(why, ": ");
		char note[600];
		int nl = snprintf(note, sizeof note, "not opened: %s",
				  r ? r + 2 : why[0] ? why
				  : colfs_status_name(st));
		if (ds->table && nl > 0 && (size_t)nl < sizeof note)
			snprintf(note + nl, sizeof note - (size_t)nl, " (an "
				 "active file of the %s)",
				 ds->table->version_label);
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

colfs_status ds_acquire(void *ctx, uint64_t key, colfs_tree **out)
{
	return ds_acquire_as(ctx, key, out, false);
}

colfs_status ds_acquire_quiet(dataset *ds, uint64_t key, colfs_tree **out)
{
	return ds_acquire_as(ds, key, out, true);
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

const colfs_graft_ops ds_graft_ops = {
	.acquire = ds_acquire,
	.release = ds_release,
};

/* The whole of a file node of guest `g` at `path` into `out`. */
colfs_status ds_read_node(colfs_tree *g, const char *path,
				 colfs_buf *out)
{
	return colfs_tree_read_path(g, path, out);
}

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
	int64_t r = ds->table && i < ds->table->n_files &&
		    ds->table->files[i].num_records >= 0
		    ? ds->table->files[i].num_records
		    : f->info == 1 ? f->rows : -1;
	if (r < 0)
		return -1;
	return r > (int64_t)f->ndeleted ? r - (int64_t)f->ndeleted : 0;
}

/* ------------------------------------------------------------------------
 * Open and close
 */
/* The files' table and what the listing made of it (the keys, the root
 * view's files); none after. */
void dataset_files_free(dataset *ds)
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

/* "/files/" and each component of `rel` escaped as the tree names it. */
char *ds_tree_path(const char *rel)
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

/* A table's partition values: its metadata's, typed by its schema. */
static colfs_status ds_partitions_table(dataset *ds)
{
	const ds_table *s = ds->table;
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
			    !strcmp(tj, "\"short\"") || !strcmp(tj, "\"byte\"") ||
			    !strcmp(tj, "\"int\""))
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

/* A table's files (table.h): the snapshot's, in path order, asked of
 * its kind when first needed (once it has given them). */
colfs_status ds_list_table(dataset *ds, char *why, size_t why_len)
{
	ds_table *tb = ds->table;
	colfs_status st = COLFS_OK;
	if (__atomic_load_n(&ds->listed, __ATOMIC_ACQUIRE))
		return COLFS_OK;
	pthread_mutex_lock(&ds->load);
	if (!ds->listed && tb->kind->files && !ds->table_files) {
		colfs_err err = {0};
		st = tb->kind->files(tb, &err);
		if (st != COLFS_OK)
			snprintf(why, why_len, "%s", err.msg[0] ? err.msg
				 : colfs_status_name(st));
		else
			ds->table_files = true;
		/* what the kind could not read and left out, in errors */
		char where[64];
		snprintf(where, sizeof where, "/%s", tb->kind->folder);
		for (size_t p = 0; st == COLFS_OK && p < tb->n_problems; p++)
			ds_problem(ds, where, UINT64_MAX, COLFS_EIO, "%s",
				   tb->problems[p]);
	}
	if (st == COLFS_OK && !ds->listed) {
		ds_entry *ents = calloc(tb->n_files ? tb->n_files : 1,
					sizeof *ents);
		size_t n = 0;
		if (!ents)
			st = COLFS_ENOMEM;
		for (size_t i = 0; st == COLFS_OK && i < tb->n_files; i++) {
			ents[i].rel = strdup(tb->files[i].path);
			ents[i].size = tb->files[i].size;
			if (!ents[i].rel)
				st = COLFS_ENOMEM;
			n++;
		}
		if (st == COLFS_OK) {
			dataset_files_free(ds);
			st = ds_adopt(ds, ents, n);
		} else {
			ds_entries_free(ents, n);
		}
		if (st == COLFS_ENOMEM)
			snprintf(why, why_len, "out of memory");
	}
	pthread_mutex_unlock(&ds->load);
	return st;
}

/* File i's deleted rows, from its table kind's deletes (once): a
 * failure makes it a damaged file, named in errors. */
colfs_status ds_table_deletes(dataset *ds, size_t i)
{
	ds_table *tb = ds->table;
	ds_file *f = &ds->files[i];
	if (!tb || !tb->kind->deletes || i >= tb->n_files)
		return COLFS_OK;
	colfs_err err = {0};
	colfs_status st = tb->kind->deletes(tb, i, &err);
	if (st != COLFS_OK) {
		char why[400];
		snprintf(why, sizeof why, "its deletes cannot be read: %s",
			 err.msg[0] ? err.msg : colfs_status_name(st));
		ds_problem(ds, f->tree_path, UINT64_MAX, st, "%s", why);
		ds_set_damage(ds, f, why);
		return st;
	}
	f->deleted = tb->files[i].deleted_rows;
	f->ndeleted = tb->files[i].n_deleted_rows;
	return COLFS_OK;
}

/* Take the listing `ents` as the dataset's files (freed here); the root
 * view shows them all. */
colfs_status ds_adopt(dataset *ds, ds_entry *ents, size_t n)
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
		if (ds->table && i < ds->table->n_files) {
			/* the union views leave these rows out */
			ds->files[i].deleted = ds->table->files[i].deleted_rows;
			ds->files[i].ndeleted = ds->table->files[i].n_deleted_rows;
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
		st = ds->table ? ds_partitions_table(ds) : ds_partitions(ds);
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
colfs_status ds_list_root(dataset *ds, char *why, size_t why_len)
{
	ds_entry *ents = NULL;
	size_t n = 0;
	colfs_status st = COLFS_OK;
	bool full = false;

	if (__atomic_load_n(&ds->listed, __ATOMIC_ACQUIRE))
		return COLFS_OK;
	if (ds->table)
		return ds_list_table(ds, why, why_len);
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
	if (ds->table)
		return ds_list_table(ds, why, why_len);
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

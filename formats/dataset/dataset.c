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
 * files of one partition.  A table of a table kind (table.h: Delta
 * Lake) gives the files and the partition values from its metadata; its
 * union views leave out the rows its deletes delete and name its columns
 * by their logical names (column mapping: f->phys keeps each field's
 * column in the file), and its kind fills its own folder.
 *
 * Locks: the host tree's lock (populate, generate) is taken before
 * `load` and `lru`, never after; the pool's threads and the LRU never
 * touch the host tree, so problems found there go to the dataset's own
 * list (`plock`), which `errors` renders.
 */
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
 * The tree
 */
static colfs_status view_populate(colfs_tree *t, colfs_node *dir);

static const colfs_node_ops view_ops = {
	.populate = view_populate,
};

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
	if (ds->table && ds->table->kind->summary && !v->prefix[0])
		ds->table->kind->summary(ds->table, out);
	colfs_buf_printf(out, "files: %zu (parquet %zu, orc %zu, cfile %zu)\n",
			 nf, formats[0], formats[1], formats[2]);
	colfs_buf_printf(out, "unreadable files: %zu\n", bad);
	colfs_buf_printf(out, "other files: %zu (not Parquet, ORC or CFile: "
			 "not shown)\n", skipped);
	ds_damage_summary(out, mode, dfiles, drows, dunknown);
	if (mode == COLFS_ON_DAMAGE_NULL)
		rows += drows;
	colfs_buf_printf(out, "rows: %lld\n", (long long)rows);
	if (ds->table)
		colfs_buf_printf(out, "deleted rows: %lld (by %s: left out of "
				 "rows and the union views, shown in files/)\n",
				 (long long)deleted, ds->table->kind->deletes_noun);
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
	ds_table *tb = v->ds->table;
	if (tb && !v->prefix[0]) {
		colfs_node *d = colfs_dir_add_dir(t, dir, tb->kind->folder,
						  NULL, NULL);
		if (!d)
			return COLFS_ENOMEM;
		COLFS_TRY(tb->kind->add_tree(t, d, v->ds->root, tb));
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

static void dataset_close(void *state)
{
	dataset *ds = state;
	if (!ds)
		return;
	dataset_files_free(ds);
	free(ds->open_idx);
	if (ds->table)
		ds->table->kind->free(ds->table);
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
	/* A remote prefix (s3://BUCKET/PREFIX/, az://CONTAINER/PREFIX/): the
	 * objects under it, each file opened by its URL (ROOT/REL). */
	bool s3 = !colfs_source_is_local(name);
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
	/* A table of a table kind (table.h: Delta Lake) is read from its
	 * metadata, never as the files its folder holds (some are removed
	 * from the table).  Under a remote prefix it is known once the
	 * listing has seen its metadata. */
	const colfs_options *o = colfs_tree_options(t);
	const ds_table_kind *kind = NULL;
	if (o->table_metadata &&
	    (kind = ds_table_kind_of_metadata(o->table_metadata, NULL))) {
		/* named by its metadata file (dataset_table_root): the kind
		 * that knows the name, whatever the root holds */
		st = kind->load(ds->root, o, &ds->table, err);
		if (st != COLFS_OK)
			return st;
	} else if (!s3 && (kind = ds_table_kind_of_dir(ds->root))) {
		st = kind->load(ds->root, o, &ds->table, err);
		if (st != COLFS_OK)
			return st;
	} else if (!s3 && ds_foreign_table(ds->root, why, sizeof why)) {
		colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX, "%s", why);
		return COLFS_EUNSUPPORTED;
	}
	if (!s3 && !(ds->stamps = ds_stamps_create()))
		return COLFS_ENOMEM;
	/* The files' own trees: the options less the table's snapshot
	 * (which a file's own tree would refuse), each a share of the
	 * cache, no workers of their own (there may be max_open_files of
	 * them). */
	ds->gopts = *o;
	ds->gopts.delta_version_set = false;
	ds->gopts.ice_snapshot_set = false;
	ds->gopts.ice_as_of_set = false;
	ds->gopts.ice_ref = NULL;
	ds->gopts.ice_location = NULL;
	ds->gopts.table_metadata = NULL;
	ds->gopts.cache_bytes /= ds->gopts.max_open_files;
	if (ds->gopts.cache_bytes < (1u << 20))
		ds->gopts.cache_bytes = 1u << 20;
	ds->gopts.decode_threads = -1;
	if (s3) {
		/* each file's remote cache a share too */
		ds->gopts.remote_cache_bytes /= ds->gopts.max_open_files;
		if (ds->gopts.remote_cache_bytes < (1u << 20))
			ds->gopts.remote_cache_bytes = 1u << 20;
	}
	if (ds->table) {
		st = COLFS_OK;
	} else if (s3) {
		st = ds_list_s3(name, colfs_tree_options(t), &kind, &ents, &n,
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
	if (s3 && kind && !ds->table) {
		/* A table under a remote prefix: its metadata read through
		 * the prefix's source kind, its files opened by their URLs. */
		ds_entries_free(ents, n);
		ents = NULL;
		n = 0;
		st = kind->load(ds->root, o, &ds->table, err);
		if (st != COLFS_OK)
			return st;
	}
	if (!ds->table && (o->ice_snapshot_set || o->ice_as_of_set ||
			   o->ice_ref || o->ice_location)) {
		ds_entries_free(ents, n);
		colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX,
			   "-o %s applies to Apache Iceberg tables only, and "
			   "this directory has no metadata/*.metadata.json",
			   o->ice_snapshot_set ? "snapshot=" : o->ice_as_of_set
			   ? "as_of=" : o->ice_ref ? "ref=" : "location=");
		return COLFS_EUNSUPPORTED;
	}
	if (o->delta_version_set && !ds->table) {
		ds_entries_free(ents, n);
		colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX,
			   "-o version=%lld applies to Delta tables only, and "
			   "this directory has no _delta_log/", (long long)
			   o->delta_version);
		return COLFS_EUNSUPPORTED;
	}
	/* A directory with no file colfs can show is refused, whatever
	 * else it holds (an empty folder, a CSV file). */
	if (!ds->table && (n == 0 || (!s3 && ds_magic(ds, ents[0].rel,
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
	if (ds->table) {
		/* a kind that reads its files' list when first needed
		 * (ds_list_table) leaves the mount to its metadata */
		if (ds->table->kind->files)
			return COLFS_OK;
		st = ds_list_table(ds, why, sizeof why);
		if (st != COLFS_OK)
			colfs_fail(err, st, UINT64_MAX, "%s", why);
		return st;
	}
	if (!s3) {
		/* the one file found says the directory is not empty; the
		 * rest is listed when the tree is */
		ds_entries_free(ents, n);
		return COLFS_OK;
	}
	return ds_adopt(ds, ents, n);
}

/* The folders below the top one (the tree's source, which the core
 * checks), as a listing read them (dataset_change.c). */
static colfs_status dataset_check(colfs_tree *t, bool force, colfs_err *err)
{
	dataset *ds = colfs_tree_format_state(t);
	return ds ? ds_stamps_check(ds->stamps, colfs_tree_fd(t), force, err)
		  : COLFS_OK;
}

/* A file whose name says it is a table's metadata (an Iceberg
 * vN.metadata.json): the table's root, which the core opens instead,
 * the file passed down as colfs_options.table_metadata.  By name alone:
 * such a file is JSON, which no magic bytes tell from any other. */
static char *dataset_table_root(const char *name)
{
	char *root;
	return ds_table_kind_of_metadata(name, &root) ? root : NULL;
}

const colfs_format colfs_format_dataset = {
	.name = "dataset",
	.probe = NULL,
	.open = dataset_open,
	.close = dataset_close,
	.sized_by_nodes = true,
	.check = dataset_check,
	.table_root = dataset_table_root,
};

/* colfs: a dataset (dataset.c): the files' footers read (probing, loading)
 * and their schemas unified.  What these share with the tree is in
 * dataset_int.h. */
#include "dataset_int.h"
#include "dataset_members.h"
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
 * Magic and footers
 */
/* Run `fn(arg, i)` for every i in [0, n) on up to `k` threads (the
 * core's parallel-for). */
void ds_pool_each(unsigned k, size_t n, void (*fn)(void *arg, size_t i),
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
 * its first and last bytes, by its source kind's peek (a local file: two
 * reads; an object: two small requests) (a pool thread). */
int ds_magic(const dataset *ds, const char *rel, uint64_t size)
{
	uint8_t head[16], tail[16];
	size_t hn = size < 16 ? (size_t)size : 16;
	char *path = malloc(strlen(ds->root) + strlen(rel) + 2);
	char why[256];
	int kind = -1;

	if (!path)
		return -1;
	sprintf(path, "%s/%s", ds->root, rel);
	colfs_status st = colfs_source_peek(path, &ds->gopts, size, hn, head,
					    tail, why, sizeof why);
	free(path);
	if (st == COLFS_OK) {
		for (size_t k = 0; colfs_formats[k]; k++)
			if (colfs_formats[k]->probe(head, hn, tail, hn, size))
				kind = 1;
	} else if (!ds->s3 && st != COLFS_ETRUNCATED) {
		/* a local file listed but not readable now: shown, and its
		 * open says why (a damaged file, dataset_damage.c); an object
		 * that cannot be read is no columnar file */
		kind = 1;
	}
	return kind;
}

/* A table's files are data files by its metadata's word: one missing,
 * or not columnar, is a damaged file, not another file. */
static void ds_probe_file(dataset *ds, size_t i)
{
	ds->files[i].kind = ds->table ? 1 : ds_magic(ds, ds->files[i].rel,
						    ds->files[i].size);
}

static void ds_probe_new(dataset *ds, size_t i)
{
	if (ds->files[i].kind == 0)
		ds_probe_file(ds, i);
}

/* Every file's magic, once, on the pool: the reads wait on the disk or
 * the network, not the CPU, so the pool is full size. */
void ds_probe_all(dataset *ds)
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
void ds_probe_some(dataset *ds, const size_t *idx, size_t n)
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

/* The table's field a column of the file stands for under column
 * mapping (table.h; for Delta, PROTOCOL.md, "Reader Requirements for
 * Column Mapping"): in mode
 * `name` its physical name, in mode `id` the field id the file gives its
 * top-level column (`ids`: the file's schema.json children, ds_field_id;
 * NULL: none);
 * `mapped`: mode `id` and a file without field ids, whose columns are
 * found by the names the table's name mapping gives each field
 * (mapped_names).  NULL when the table's schema has no such field. */
static const ds_table_field *ds_table_field_of(const dataset *ds,
					       const char *top, json_t *ids,
					       bool mapped)
{
	const ds_table *s = ds->table;
	bool by_id = strcmp(s->column_mapping_mode, "id") == 0;
	int64_t id = -1;
	for (size_t k = 0; mapped && k < s->n_fields; k++) {
		for (char **nm = s->fields[k].mapped_names; nm && *nm; nm++) {
			char *esc = colfs_name_escape(*nm);
			bool same = esc && strcmp(esc, top) == 0;
			free(esc);
			if (same)
				return &s->fields[k];
		}
	}
	if (mapped)
		return NULL;
	if (by_id) {
		size_t i;
		json_t *c;
		json_array_foreach(ids, i, c) {
			int64_t fid;
			const char *nm = json_string_value(json_object_get(c, "name"));
			char *esc = nm ? colfs_name_escape(nm) : NULL;
			if (esc && strcmp(esc, top) == 0 && ds_field_id(c, &fid))
				id = fid;
			free(esc);
		}
		if (id < 0)
			return NULL;
	}
	for (size_t k = 0; k < s->n_fields; k++) {
		const ds_table_field *df = &s->fields[k];
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

/* A table with column mapping: file `f`'s fields renamed from the
 * physical columns to the table's logical names (a nested leaf
 * `phys.x.y` becomes `Logical.x.y`: only the top level is mapped), the
 * physical names kept in f->phys for reading.  A column that is no field
 * of the table's schema (a dropped one), or that is a partition column
 * (whose values come from the metadata), is left out.  Mode `id` with a file
 * that has no field ids: a damaged file (dataset_damage.c), which the
 * union views refuse, leave out or read as all NULL as on_damage says
 * (the protocol lets a reader refuse it or read it all NULL). */
static void ds_map_fields(dataset *ds, ds_file *f, colfs_tree *g)
{
	json_t *ids = NULL, *doc = NULL;
	bool mapped = false;
	if (strcmp(ds->table->column_mapping_mode, "id") == 0) {
		colfs_buf b = COLFS_BUF_INIT;
		bool any = false;
		if (ds_read_node(g, "schema.json", &b) == COLFS_OK &&
		    colfs_buf_status(&b) == COLFS_OK && b.len)
			doc = json_loadb(b.data, b.len, 0, NULL);
		colfs_buf_free(&b);
		ids = json_object_get(doc, "children");
		size_t i;
		json_t *c;
		int64_t fid;
		json_array_foreach(ids, i, c)
			if (ds_field_id(c, &fid))
				any = true;
		/* no field ids: the table's name mapping, when it has one */
		for (size_t k = 0; !any && k < ds->table->n_fields; k++)
			mapped = mapped || ds->table->fields[k].mapped_names;
		if (!any && !mapped) {
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
		const ds_table_field *df = ds_table_field_of(ds, name, ids,
							     mapped);
		size_t cut = strlen(name);
		for (const char *dot = name; !df && (dot = strchr(dot, '.'));
		     dot++) {
			char *top = strndup(name, (size_t)(dot - name));
			df = top ? ds_table_field_of(ds, top, ids, mapped) : NULL;
			if (df)
				cut = (size_t)(dot - name);
			free(top);
		}
		bool part = false;
		for (size_t k = 0; df && !ds->table->partitions_only &&
				   k < ds->table->n_partition_columns; k++)
			part = part || !strcmp(ds->table->partition_columns[k],
					       df->name);
		char *logical = df && !part ? colfs_name_escape(df->name) : NULL;
		/* a nested leaf through the name mapping: its members as the
		 * table names them (one the mapping does not name is left
		 * out); else as the file has them */
		char *rest = logical && mapped && df->member_map && name[cut]
			? ds_members_leaf(df->member_map, name + cut)
			: strdup(logical ? name + cut : "");
		char *full = logical && rest ? malloc(strlen(logical) +
						      strlen(rest) + 1) : NULL;
		if (!full) {
			free(logical);
			free(rest);
			free(f->fields[j]);
			free(f->types[j]);
			continue;
		}
		sprintf(full, "%s%s", logical, rest);
		free(rest);
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
	f->name_mapped = mapped;
	json_decref(doc);
}

void ds_render_pval(colfs_buf *b, const dataset *ds, size_t k,
			   const char *v, int mode, const char *null_token);

/* A column of file `f` named as a Hive key of its folders: one field
 * with the key, whose values are the folder's (ds_unify leaves the
 * column out); each value of the column that is not the folder's makes
 * a problem of the file. */
static void ds_key_columns(dataset *ds, ds_file *f, colfs_tree *g)
{
	const char *null_token = colfs_tree_options(g)->null_token;
	if (ds->table && ds->table->partitions_only)
		return; /* the keys are no columns: nothing to compare */
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
	if (ds->table && i < ds->table->n_files) {
		char *path = malloc(strlen(ds->root) + strlen(f->rel) + 2);
		if (path)
			sprintf(path, "%s/%s", ds->root, f->rel);
		char *why = ds_table_disagrees(ds->s3 ? NULL : path,
					       ds->table, i, -1);
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
	if (ds->table && strcmp(ds->table->column_mapping_mode, "none"))
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
		char *why = ds->table && i < ds->table->n_files
			    ? ds_table_disagrees(NULL, ds->table, i, f->rows)
			    : NULL;
		if (why) {
			ds_problem(ds, f->tree_path, UINT64_MAX, COLFS_ECORRUPT,
				   "%s", why);
			ds_set_damage(ds, f, why);
			free(why);
		}
		/* the rows its table's deletes remove (read here, on the
		 * pool, beside its footer) */
		ds_table_deletes(ds, i);
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

char *ds_csv_text(const char *s, size_t n)
{
	colfs_buf b = COLFS_BUF_INIT;
	colfs_render_csv_field(&b, s, n);
	colfs_buf_putc(&b, '\0');
	return colfs_buf_status(&b) == COLFS_OK ? b.data : NULL;
}

char *ds_csv_key(const char *escaped)
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
	if (ds->table && ds->table->partitions_only)
		return -1;
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
bool ds_key_placed(const dataset *ds, size_t k)
{
	/* a table's keys that are folders of partitions/ only: never shown
	 * after the fields */
	if (ds->table && ds->table->partitions_only)
		return true;
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

/* The declaration `schema` shows for table field `tf` that no file
 * holds: its type from the table's metadata, in the Parquet text the
 * files' fields show (a primitive type colfs maps), else the type's own
 * name (a decimal, a nested type, a timestamp: its Parquet form depends
 * on the writer), then its field id, marked as the table's. */
static char *ds_table_type_text(const ds_table_field *tf, const char *name)
{
	static const char *const map[][2] = {
		{"\"boolean\"", "boolean %s"},
		{"\"int\"", "int32 %s"},
		{"\"integer\"", "int32 %s"},
		{"\"long\"", "int64 %s"},
		{"\"short\"", "int32 %s (INTEGER(16,true))"},
		{"\"byte\"", "int32 %s (INTEGER(8,true))"},
		{"\"float\"", "float %s"},
		{"\"double\"", "double %s"},
		{"\"date\"", "int32 %s (DATE)"},
		{"\"string\"", "binary %s (STRING)"},
		{"\"binary\"", "binary %s"},
		{"\"uuid\"", "fixed_len_byte_array(16) %s (UUID)"},
	};
	const char *tj = tf->type_json ? tf->type_json : "";
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_puts(&b, tf->nullable ? "optional " : "required ");
	size_t m = 0;
	while (m < sizeof map / sizeof map[0] && strcmp(tj, map[m][0]))
		m++;
	if (m < sizeof map / sizeof map[0]) {
		colfs_buf_printf(&b, map[m][1], name);
	} else {
		/* "decimal(10,2)" bare; an object by its "type" */
		const char *ty = strstr(tj, "\"type\"");
		const char *q = ty ? strchr(ty + 6, '"') : tj[0] == '"' ? tj : NULL;
		const char *e = q ? strchr(q + 1, '"') : NULL;
		if (e)
			colfs_buf_append(&b, q + 1, (size_t)(e - q - 1));
		else
			colfs_buf_puts(&b, "unknown");
		colfs_buf_printf(&b, " %s", name);
	}
	if (tf->field_id >= 0)
		colfs_buf_printf(&b, " = %lld", (long long)tf->field_id);
	colfs_buf_puts(&b, "; -- the table's type: no file holds this field");
	colfs_buf_putc(&b, '\0');
	if (colfs_buf_status(&b) != COLFS_OK) {
		colfs_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* The unified schema and the drift (after the footers are read). */
static void ds_unify(dataset *ds)
{
	size_t *missing = calloc(ds->nfiles + 1, sizeof *missing);
	size_t *other = calloc(ds->nfiles + 1, sizeof *other);
	size_t readable = 0;

	/* A table of a table kind: its schema's fields first, in its order (an empty
	 * table, or a field no file has yet, still has its column), each
	 * typed as the first file that has it declares it. */
	for (size_t j = 0; ds->table && j < ds->table->n_fields; j++) {
		const char *name = ds->table->fields[j].name;
		bool part = false;
		for (size_t k = 0; !ds->table->partitions_only &&
				   k < ds->table->n_partition_columns; k++)
			part = part || !strcmp(ds->table->partition_columns[k], name);
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
		nf[ds->nfields].tfield = (long)j;
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
			nf[ds->nfields].tfield = -1;
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
		long tf = ds->fields[k].tfield;
		if (!ds->fields[k].type && ds->table && tf >= 0 &&
		    (size_t)tf < ds->table->n_fields)
			ds->fields[k].type = ds_table_type_text(
				&ds->table->fields[tf], ds->fields[k].name);
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
			/* a table's file lacking the field may read a value
			 * its metadata gives (table.h fill_values) */
			long tf = ds->fields[k].tfield;
			bool filled = ds->table && tf >= 0 &&
				      i < ds->table->n_files &&
				      ds->table->files[i].fill_values &&
				      ds->table->files[i].fill_values[tf];
			if (j == f->nfields && !filled)
				missing[nm++] = i;
			else if (j < f->nfields &&
				 strcmp(f->types[j], first_type) != 0)
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
void ds_load(dataset *ds)
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


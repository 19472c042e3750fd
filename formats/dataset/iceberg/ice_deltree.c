/* colfs: iceberg/deletes/ (docs/iceberg-tree.md): the snapshot's delete
 * files, each a folder at its path relative to the table, holding its
 * manifest entries (`entries.jsonl`, each with the data files it applies
 * to), the union of those data files (`applies_to`, one path a line) and,
 * for a file colfs opens (the Parquet or ORC of position and equality
 * deletes), its own tree under `file/`.  A Puffin file of deletion
 * vectors is no columnar file: its blobs are its entries (offset and
 * size each); nor is an Avro delete file, whose rows are its deletes.
 * iceberg/deleted_by.jsonl turns it round: each data file with the delete
 * files that apply to it.  Delete files are not data: files/, partitions/, the union views and
 * summary's counts are the data files' alone, as the dataset shows them. */
#include "ice_int.h"
#include "../../core/buf.h"
#include "../../core/tree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct deltree {
	ice_applies_fn applies;
	ice_applies_free_fn applies_free;
	void *ctx;
	ice_table *it;
	char **keys;   /* the delete files' folder paths, sorted, distinct */
	size_t n;
} deltree;

typedef struct delfolder {
	deltree *d;
	size_t lo, hi;  /* keys[lo..hi) are under this folder */
	size_t plen;    /* the folder's prefix length in those keys */
} delfolder;

typedef struct delfile {
	deltree *d;
	const char *key;
} delfile;

/* The folder path of a delete file: its path relative to the table, or
 * (not under the table's location) the path as written, without empty
 * components.  malloc'd. */
static char *del_key(const ice_table *it, const char *path)
{
	char *rel = ice_rel_path(it, path);
	const char *s = rel ? rel : path;
	char *k = malloc(strlen(s) + 1), *o = k;
	if (k) {
		for (const char *p = s; *p; p++)
			if (*p != '/' || (o > k && o[-1] != '/'))
				*o++ = *p;
		while (o > k && o[-1] == '/')
			o--;
		*o = '\0';
	}
	free(rel);
	return k;
}

/* Does delete file j belong to the folder of `key`? */
static bool del_is(const ice_table *it, size_t j, const char *key)
{
	char *k = del_key(it, it->dels[j].path);
	bool is = k && !strcmp(k, key);
	free(k);
	return is;
}

/* Delete file j's line of delete_files.jsonl (`applies` its applies_to,
 * taken), or NULL when memory ran out. */
static json_t *delete_json(const ice_table *it, size_t j, json_t *applies)
{
	static const char *const kinds[] = {"data", "position deletes",
					    "equality deletes"};
	const ice_file *f = &it->dels[j];
	char *rel = ice_rel_path(it, f->path);
	json_t *eq = json_array();
	for (size_t e = 0; eq && e < f->n_equality_ids; e++)
		json_array_append_new(eq, json_integer(f->equality_ids[e]));
	json_t *o = json_pack("{s:s, s:s, s:I, s:O, s:I, s:o, s:s?, s:o, s:o, s:o}",
		"path", rel ? rel : f->path,
		"content", f->content_offset >= 0 ? "deletion vector"
			   : kinds[f->content >= 0 && f->content <= 2
				   ? f->content : 0],
		"data_sequence_number", (json_int_t)f->seq,
		"partition", f->partition,
		"record_count", (json_int_t)f->record_count,
		"equality_ids", eq ? eq : json_null(),
		"referenced_data_file", f->referenced_data_file,
		"content_offset", f->content_offset >= 0
			? json_integer(f->content_offset) : json_null(),
		"content_size_in_bytes", f->content_size >= 0
			? json_integer(f->content_size) : json_null(),
		"applies_to", applies ? applies : json_array());
	free(rel);
	return o;
}

colfs_status ice_delete_line(const ice_table *it, size_t j, json_t **applies,
			     colfs_buf *out)
{
	json_t *o = delete_json(it, j, applies[j]);
	applies[j] = NULL;
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!s)
		return COLFS_ENOMEM;
	colfs_buf_puts(out, s);
	colfs_buf_putc(out, '\n');
	free(s);
	return COLFS_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The deletes' applies_to, one per delete file of the table (the index's
 * answer, freed by df->d->applies_free); NULL, reported on `n`, with
 * *st set, when the index cannot be made. */
static json_t **folder_applies(colfs_tree *t, colfs_node *n,
			       const delfile *df, colfs_status *st)
{
	colfs_err err = {0};
	json_t **applies = df->d->applies(df->d->ctx, &err);
	if (!applies) {
		colfs_tree_report(t, n, err.offset, err.status, "%s", err.msg);
		*st = err.status ? err.status : COLFS_EIO;
	}
	return applies;
}

/* entries.jsonl: the folder's delete files' lines of delete_files.jsonl
 * (a Puffin file: one per deletion vector it holds). */
static colfs_status entries_generate(colfs_tree *t, colfs_node *n,
				     colfs_buf *out)
{
	const delfile *df = colfs_node_ctx(n);
	ice_table *it = df->d->it;
	colfs_status st;
	json_t **applies = folder_applies(t, n, df, &st);
	if (!applies)
		return st;
	st = COLFS_OK;
	for (size_t j = 0; st == COLFS_OK && j < it->n_dels; j++) {
		if (!del_is(it, j, df->key))
			continue;
		st = ice_delete_line(it, j, applies, out);
	}
	df->d->applies_free(df->d->ctx, applies);
	return st ? st : colfs_buf_status(out);
}

/* applies_to: the data files any of the folder's deletes applies to,
 * sorted, one a line. */
static colfs_status applies_generate(colfs_tree *t, colfs_node *n,
				     colfs_buf *out)
{
	const delfile *df = colfs_node_ctx(n);
	ice_table *it = df->d->it;
	colfs_status st;
	json_t **applies = folder_applies(t, n, df, &st);
	if (!applies)
		return st;
	size_t cap = 0;
	for (size_t j = 0; j < it->n_dels; j++)
		if (del_is(it, j, df->key))
			cap += json_array_size(applies[j]);
	const char **names = malloc((cap + 1) * sizeof *names);
	size_t nn = 0;
	st = names ? COLFS_OK : COLFS_ENOMEM;
	for (size_t j = 0; names && j < it->n_dels; j++) {
		if (!del_is(it, j, df->key))
			continue;
		for (size_t a = 0; a < json_array_size(applies[j]) && nn < cap;
		     a++) {
			const char *s = json_string_value(
				json_array_get(applies[j], a));
			if (s)
				names[nn++] = s;
		}
	}
	if (names)
		qsort(names, nn, sizeof *names, cmp_str);
	for (size_t a = 0; names && a < nn; a++)
		if (!a || strcmp(names[a], names[a - 1])) {
			colfs_buf_puts(out, names[a]);
			colfs_buf_putc(out, '\n');
		}
	free(names);
	df->d->applies_free(df->d->ctx, applies);
	return st ? st : colfs_buf_status(out);
}

/* file/: the delete file's own tree, opened when first listed. */
static colfs_status file_populate(colfs_tree *t, colfs_node *dir)
{
	const delfile *df = colfs_node_ctx(dir);
	ice_table *it = df->d->it;
	for (size_t j = 0; j < it->n_dels; j++) {
		if (!del_is(it, j, df->key))
			continue;
		char *path = ice_map_path(it, it->dels[j].path);
		char why[512] = "";
		colfs_tree *sub = NULL;
		if (!path)
			return COLFS_ENOMEM;
		colfs_status st = colfs_tree_open(path, &it->opts, &sub, why,
						  sizeof why);
		free(path);
		if (st != COLFS_OK) {
			const char *r = strstr(why, ": ");
			colfs_tree_report(t, dir, UINT64_MAX, st, "delete file "
					  "not opened: %s (a delete file of "
					  "snapshot %lld)", r ? r + 2 : why[0]
					  ? why : colfs_status_name(st),
					  (long long)it->snap_id);
			return st;
		}
		return colfs_dir_graft(t, dir, sub, COLFS_GRAFT_FOREIGN);
	}
	return COLFS_ENOENT;
}

static const colfs_node_ops entries_ops = {.generate = entries_generate};
static const colfs_node_ops applies_ops = {.generate = applies_generate};
static const colfs_node_ops file_ops = {.populate = file_populate};

static colfs_status delfile_populate(colfs_tree *t, colfs_node *dir)
{
	delfile *df = colfs_node_ctx(dir);
	ice_table *it = df->d->it;
	/* a file of deletion vectors only is Puffin, not columnar; nor is
	 * one its manifest says is Avro (colfs has no Avro format to show
	 * it: its rows are read for the deletes, ice_avrodel.c) */
	bool columnar = false;
	for (size_t j = 0; j < it->n_dels; j++)
		if (it->dels[j].content_offset < 0 && !it->dels[j].avro &&
		    del_is(it, j, df->key))
			columnar = true;
	if (!colfs_dir_add_doc(t, dir, "applies_to", &applies_ops, df) ||
	    !colfs_dir_add_doc(t, dir, "entries.jsonl", &entries_ops, df) ||
	    (columnar && !colfs_dir_add_dir(t, dir, "file", &file_ops, df)))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops delfile_ops = {.populate = delfile_populate};

/* A folder of deletes/: its keys' next components, as folders (a delete
 * file's own, or one of a path's). */
static colfs_status folder_populate(colfs_tree *t, colfs_node *dir);
static const colfs_node_ops folder_ops = {.populate = folder_populate};

static colfs_status folder_populate(colfs_tree *t, colfs_node *dir)
{
	const delfolder *fo = colfs_node_ctx(dir);
	deltree *d = fo->d;
	for (size_t i = fo->lo; i < fo->hi;) {
		const char *p = d->keys[i] + fo->plen;
		const char *slash = strchr(p, '/');
		if (!slash) {
			delfile *df = colfs_tree_alloc(t, sizeof *df);
			if (!df)
				return COLFS_ENOMEM;
			*df = (delfile){d, d->keys[i]};
			if (!colfs_dir_add_dir(t, dir, p, &delfile_ops, df))
				return COLFS_ENOMEM;
			i++;
			continue;
		}
		size_t clen = (size_t)(slash - p) + 1, j = i + 1;
		while (j < fo->hi && !strncmp(d->keys[j] + fo->plen, p, clen))
			j++;
		delfolder *sub = colfs_tree_alloc(t, sizeof *sub);
		char *comp = strndup(p, clen - 1);
		if (!sub || !comp) {
			free(comp);
			return COLFS_ENOMEM;
		}
		*sub = (delfolder){d, i, j, fo->plen + clen};
		colfs_node *nd = colfs_dir_add_dir(t, dir, comp, &folder_ops,
						   sub);
		free(comp);
		if (!nd)
			return COLFS_ENOMEM;
		i = j;
	}
	return COLFS_OK;
}

/* deletes/: read the snapshot's files (its manifests) when first listed. */
static colfs_status deletes_populate(colfs_tree *t, colfs_node *dir)
{
	delfolder *fo = colfs_node_ctx(dir);
	deltree *d = fo->d;
	colfs_err err = {0};
	colfs_status st = ice_table_files(d->it, &err);
	if (st != COLFS_OK) {
		colfs_tree_report(t, dir, err.offset, st, "%s", err.msg);
		return st;
	}
	ice_table *it = d->it;
	char **keys = colfs_tree_alloc(t, (it->n_dels + 1) * sizeof *keys);
	size_t n = 0;
	if (!keys)
		return COLFS_ENOMEM;
	for (size_t j = 0; j < it->n_dels; j++) {
		char *k = del_key(it, it->dels[j].path);
		if (!k)
			return COLFS_ENOMEM;
		/* a path of no component (all '/') has no folder */
		if (k[0])
			keys[n++] = colfs_tree_strdup(t, k);
		free(k);
		if (n && !keys[n - 1])
			return COLFS_ENOMEM;
	}
	qsort(keys, n, sizeof *keys, cmp_str);
	/* one folder per path (a Puffin file holds several vectors); a
	 * path that is also a folder of another's is left out, as no
	 * folder is both */
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = u ? strlen(keys[u - 1]) : 0;
		if (u && (!strcmp(keys[i], keys[u - 1]) ||
			  (!strncmp(keys[i], keys[u - 1], l) && keys[i][l] == '/')))
			continue;
		keys[u++] = keys[i];
	}
	d->keys = keys;
	d->n = u;
	fo->lo = 0;
	fo->hi = u;
	fo->plen = 0;
	return folder_populate(t, dir);
}

static const colfs_node_ops deletes_ops = {.populate = deletes_populate};

typedef struct applied {
	const char *data;    /* a data file's relative path */
	const char *del;     /* a delete file's */
} applied;

static int cmp_applied(const void *a, const void *b)
{
	const applied *x = a, *y = b;
	int c = strcmp(x->data, y->data);
	return c ? c : strcmp(x->del, y->del);
}

/* deleted_by.jsonl: the other way round, each data file some delete
 * applies to (path order) with those delete files' paths, sorted. */
static colfs_status deleted_by_generate(colfs_tree *t, colfs_node *n,
					colfs_buf *out)
{
	deltree *d = colfs_node_ctx(n);
	ice_table *it = d->it;
	colfs_err err = {0};
	json_t **applies = d->applies(d->ctx, &err);
	if (!applies) {
		colfs_tree_report(t, n, err.offset, err.status, "%s", err.msg);
		return err.status ? err.status : COLFS_EIO;
	}
	size_t cap = 0, na = 0;
	for (size_t j = 0; j < it->n_dels; j++)
		cap += json_array_size(applies[j]);
	applied *a = malloc((cap + 1) * sizeof *a);
	char **keys = calloc(it->n_dels + 1, sizeof *keys);
	colfs_status st = a && keys ? COLFS_OK : COLFS_ENOMEM;
	for (size_t j = 0; st == COLFS_OK && j < it->n_dels; j++) {
		if (!(keys[j] = del_key(it, it->dels[j].path))) {
			st = COLFS_ENOMEM;
			break;
		}
		for (size_t x = 0; x < json_array_size(applies[j]) && na < cap;
		     x++) {
			const char *s = json_string_value(
				json_array_get(applies[j], x));
			if (s)
				a[na++] = (applied){s, keys[j]};
		}
	}
	if (st == COLFS_OK)
		qsort(a, na, sizeof *a, cmp_applied);
	for (size_t i = 0; st == COLFS_OK && i < na;) {
		json_t *dels = json_array();
		size_t e = i;
		for (; e < na && !strcmp(a[e].data, a[i].data); e++)
			if (dels && (e == i || strcmp(a[e].del, a[e - 1].del)))
				json_array_append_new(dels, json_string(a[e].del));
		json_t *o = dels ? json_pack("{s:s, s:o}", "path", a[i].data,
					     "deletes", dels) : NULL;
		char *js = o ? json_dumps(o, JSON_COMPACT) : NULL;
		if (js) {
			colfs_buf_puts(out, js);
			colfs_buf_putc(out, '\n');
		} else {
			st = COLFS_ENOMEM;
		}
		free(js);
		json_decref(o);
		i = e;
	}
	for (size_t j = 0; keys && j < it->n_dels; j++)
		free(keys[j]);
	free(keys);
	free(a);
	d->applies_free(d->ctx, applies);
	return st ? st : colfs_buf_status(out);
}

static const colfs_node_ops deleted_by_ops = {
	.generate = deleted_by_generate,
};

colfs_status ice_deltree_add(colfs_tree *t, colfs_node *dir, ice_table *it,
			     ice_applies_fn applies,
			     ice_applies_free_fn applies_free, void *ctx)
{
	deltree *d = colfs_tree_alloc(t, sizeof *d);
	delfolder *fo = colfs_tree_alloc(t, sizeof *fo);
	if (!d || !fo)
		return COLFS_ENOMEM;
	*d = (deltree){applies, applies_free, ctx, it, NULL, 0};
	*fo = (delfolder){d, 0, 0, 0};
	if (!colfs_dir_add_dir(t, dir, "deletes", &deletes_ops, fo) ||
	    !colfs_dir_add_doc(t, dir, "deleted_by.jsonl", &deleted_by_ops, d))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

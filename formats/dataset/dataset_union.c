/* colfs: a dataset (dataset.c): the union views: one piece per file, its
 * rows in the unified order.  What these share with the tree is in
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
 * under its path; `view`: the file's view the piece would read.  On a
 * worker rendering ahead, nothing is filed and the piece is dropped: the
 * reader files it when it reaches the file (colfs_tree_ahead_defer), so
 * a view's read fails at its first damaged file and the problems come
 * in the views' order, whatever the workers did. */
static colfs_status ds_union_damage(colfs_tree *t, colfs_node *n,
				    dataset *ds, size_t i, const char *view,
				    colfs_status st, const char *why,
				    uint64_t *nulls)
{
	*nulls = 0;
	if (colfs_tree_ahead_defer(t))
		return COLFS_EIO;
	ds_file *f = &ds->files[i];
	ds_damaged d = {f->rel, ds_damaged_rows(ds, i),
			ds->table ? ds->table->version_label : NULL};
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
	/* ahead of the reader, a file that cannot be opened is left to it */
	colfs_status st = colfs_tree_ahead_of(t) ? ds_acquire_quiet(ds, i, &g)
			  : ds_acquire(ds, i, &g);
	if (st == COLFS_OK) {
		st = ds_read_node(g, path, out);
		ds_release(ds, i, g);
	}
	if (st == COLFS_OK || st == COLFS_ENOMEM)
		return st;
	out->len = len0;
	*damaged = true;
	if (colfs_tree_ahead_defer(t))   /* the reader marks it */
		return COLFS_EIO;
	pthread_mutex_lock(&ds->plock);
	f->read_failed = true;
	snprintf(why, sizeof why, "%s", f->damage ? f->damage
		 : "it cannot be decoded (see its own problems)");
	pthread_mutex_unlock(&ds->plock);
	return ds_union_damage(t, n, ds, i, path, st, why, nulls);
}

/* A table whose kind could not read all of its metadata (a manifest:
 * table.h `problems`): under on_damage=error every union view fails,
 * naming the first problem, rather than show a part of the table as
 * the whole; skip and null show the files that are known. */
static colfs_status ds_union_incomplete(colfs_tree *t, colfs_node *n,
					const dataset *ds)
{
	if (!ds->table || !ds->table->n_problems ||
	    colfs_tree_options(t)->on_damage != COLFS_ON_DAMAGE_ERROR)
		return COLFS_OK;
	colfs_tree_report(t, n, UINT64_MAX, COLFS_EIO, "the table's files are "
			  "not all known (%s): a union view's read fails "
			  "(on_damage=error; skip and null show the files "
			  "that are known)", ds->table->problems[0]);
	return COLFS_EIO;
}

/* The value file i reads for unified field k when it lacks it: its
 * table's fill value (table.h), else NULL (none). */
static const char *ds_fill(const dataset *ds, size_t i, size_t k)
{
	const ds_table *tb = ds->table;
	long j = k < ds->nfields ? ds->fields[k].tfield : -1;
	if (!tb || j < 0 || i >= tb->n_files || !tb->files[i].fill_values)
		return NULL;
	return tb->files[i].fill_values[j];
}

/* A fill value of field k as text (mode 0), JSON (1) or CSV (2): bare
 * for the table's numeric and boolean types, else a string. */
static void ds_render_fill(colfs_buf *b, const dataset *ds, size_t k,
			   const char *v, int mode, const char *null_token)
{
	static const char *const bare[] = {
		"\"int\"", "\"long\"", "\"integer\"", "\"short\"", "\"byte\"",
		"\"float\"", "\"double\"", "\"boolean\"",
	};
	const char *ty = ds->table->fields[ds->fields[k].tfield].type_json;
	bool plain = false;
	for (size_t t = 0; ty && t < sizeof bare / sizeof bare[0]; t++)
		plain = plain || strcmp(ty, bare[t]) == 0;
	if (plain) {
		colfs_buf_puts(b, v);
		return;
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
			if (ds->table && ds->table->partitions_only)
				break;
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

/* The member map of unified field k in file f (dataset_members.h): the
 * table field's, when f's fields were found through the name mapping;
 * else NULL. */
static const json_t *ds_member_map_of(const dataset *ds, const ds_file *f,
				      size_t k)
{
	if (!f->name_mapped || !ds->table || k >= ds->nfields)
		return NULL;
	for (size_t x = 0; x < ds->table->n_fields; x++) {
		const ds_table_field *tf = &ds->table->fields[x];
		if (!tf->member_map)
			continue;
		char *esc = colfs_name_escape(tf->name);
		bool same = esc && !strcmp(esc, ds->fields[k].name);
		free(esc);
		if (same)
			return tf->member_map;
	}
	return NULL;
}

static colfs_status column_piece(colfs_tree *t, colfs_node *n, uint64_t i,
				 colfs_buf *out)
{
	ds_view *v = ds_view_of(n);
	dataset *ds = v->ds;
	size_t k = (size_t)colfs_node_a(n);
	const char *null_token = colfs_tree_options(t)->null_token;
	ds_load(ds);
	COLFS_TRY(ds_union_incomplete(t, n, ds));
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
		/* a field the file lacks: its fill value, else NULL */
		const char *fill = ds_fill(ds, v->idx[i], k);
		colfs_buf one = COLFS_BUF_INIT;
		if (fill)
			ds_render_fill(&one, ds, k, fill, 0, null_token);
		else
			colfs_buf_puts(&one, null_token);
		colfs_buf_putc(&one, '\n');
		for (int64_t r = 0; r < rows && colfs_buf_status(out) == COLFS_OK; r++)
			colfs_buf_append(out, one.data, one.len);
		colfs_status st = colfs_buf_status(&one);
		colfs_buf_free(&one);
		return st ? st : colfs_buf_status(out);
	}
	snprintf(path, sizeof path, "columns/%s",
		 f->phys ? f->phys[j] : f->fields[j]);
	const json_t *mm = ds_member_map_of(ds, f, k);
	if (!f->ndeleted && !mm) {
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
		size_t vl = nl ? len - 1 : len;
		if (d < f->ndeleted && f->deleted[d] == r) {
			d++;
		} else if (mm && !(vl == strlen(null_token) &&
				   !memcmp(p, null_token, vl))) {
			/* a nested value through the name mapping */
			if (!ds_members_apply(out, p, vl, mm)) {
				colfs_tree_report(t, n, UINT64_MAX, COLFS_ECORRUPT,
						  "%s: a value of its %s is not of "
						  "the table's type", f->rel, path);
				st = COLFS_ECORRUPT;
				break;
			}
			colfs_buf_putc(out, '\n');
		} else {
			colfs_buf_append(out, p, len);
		}
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

/* A rows.csv field holding a nested value's JSON (quoted, inner quotes
 * doubled, as rows.csv writes it) with member map `mm` applied, written
 * as a field again; the null token as it is.  False when it is no such
 * value. */
static bool ds_csv_members(colfs_buf *out, const char *p, size_t n,
			   const json_t *mm, const char *null_token)
{
	colfs_buf text = COLFS_BUF_INIT, json = COLFS_BUF_INIT;
	bool ok = true;

	if (n == strlen(null_token) && !memcmp(p, null_token, n)) {
		colfs_buf_append(out, p, n);
		return true;
	}
	if (n >= 2 && p[0] == '"' && p[n - 1] == '"') {
		for (size_t i = 1; i + 1 < n; i++) {
			colfs_buf_putc(&text, p[i]);
			if (p[i] == '"')
				i++;
		}
	} else {
		colfs_buf_append(&text, p, n);
	}
	ok = !colfs_buf_status(&text) &&
	     ds_members_apply(&json, text.data ? text.data : "", text.len, mm) &&
	     !colfs_buf_status(&json);
	if (ok)
		colfs_render_csv_field(out, json.data, json.len);
	colfs_buf_free(&text);
	colfs_buf_free(&json);
	return ok;
}

/* Room for twice as many members of a file's record: a file may hold
 * more columns than the fields it shows (a table's file holding columns
 * the table dropped).  False when memory ran out. */
static bool ds_members_grow(ds_span **m, ds_member **jm, size_t *cap)
{
	size_t c = *cap * 2;
	ds_span *nm = realloc(*m, c * sizeof *nm);
	if (!nm)
		return false;
	*m = nm;
	if (*jm) {
		ds_member *nj = realloc(*jm, c * sizeof *nj);
		if (!nj)
			return false;
		*jm = nj;
	}
	*cap = c;
	return true;
}

static colfs_status rows_piece(colfs_tree *t, colfs_node *n, uint64_t i,
			       colfs_buf *out)
{
	ds_view *v = ds_view_of(n);
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
	COLFS_TRY(ds_union_incomplete(t, n, ds));
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
	/* each unified field's member map (name mapping), or NULL */
	const json_t **mmk = calloc(ds->nfields + 1, sizeof *mmk);
	colfs_buf pv = COLFS_BUF_INIT;  /* the partition members */
	if (!m || !at || !fkey || !mmk || (!csv && !jm))
		st = COLFS_ENOMEM;
	for (size_t k = 0; st == COLFS_OK && k < ds->nfields; k++)
		mmk[k] = ds_member_map_of(ds, f, k);
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
		size_t used;
		while ((used = ds_csv_record(p, (size_t)(end - p), m, nm_cap,
					     &nm, &ok)) && !ok && nm == nm_cap &&
		       ds_members_grow(&m, &jm, &nm_cap))
			;
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
			while ((used = ds_csv_record(p, (size_t)(end - p), m,
						     nm_cap, &nm, &ok)) &&
			       !ok && nm == nm_cap &&
			       ds_members_grow(&m, &jm, &nm_cap))
				;
		} else {
			nl = memchr(p, '\n', (size_t)(end - p));
			used = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
			while (!(ok = ds_jsonl_members(p, nl ? (size_t)(nl - p)
							     : used,
						       jm, nm_cap, &nm)) &&
			       nm == nm_cap && ds_members_grow(&m, &jm, &nm_cap))
				;
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
			} else if (at[k] >= 0 && (size_t)at[k] < nm && csv &&
				   mmk[k]) {
				/* a nested value through the name mapping:
				 * its JSON unquoted, mapped, quoted again */
				if (!ds_csv_members(out, m[at[k]].p,
						    m[at[k]].n, mmk[k],
						    null_token))
					ok = false;
			} else if (at[k] >= 0 && (size_t)at[k] < nm && csv) {
				colfs_buf_append(out, m[at[k]].p, m[at[k]].n);
			} else if (at[k] >= 0 && (size_t)at[k] < nm) {
				/* the member under the unified key */
				const ds_member *jv = &jm[at[k]];
				colfs_buf_puts(out, ds->fields[k].key_json);
				colfs_buf_putc(out, ':');
				if (!mmk[k] || (jv->val_len == 4 &&
						!memcmp(jv->val, "null", 4)))
					colfs_buf_append(out, jv->val,
							 jv->val_len);
				else if (!ds_members_apply(out, jv->val,
							   jv->val_len, mmk[k]))
					ok = false;
			} else if (ds_fill(ds, v->idx[i], k)) {
				/* a field the file lacks: its fill value */
				if (!csv) {
					colfs_buf_puts(out, ds->fields[k].key_json);
					colfs_buf_putc(out, ':');
				}
				ds_render_fill(out, ds, k, ds_fill(ds, v->idx[i], k),
					       csv ? 2 : 1, null_token);
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
	free(mmk);
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
const colfs_node_ops ds_column_ops = {
	.piece = column_piece,
	.concurrent = true,
	.decodes = ds_view_decodes,
};

const colfs_node_ops ds_rows_ops = {
	.piece = rows_piece,
	.concurrent = true,
	.decodes = ds_view_decodes,
};


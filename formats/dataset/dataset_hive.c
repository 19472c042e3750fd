/* colfs: a dataset (dataset.c): Hive partitions: the keys and values of the
 * folders' names.  What these share with the tree is in dataset_int.h. */
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
colfs_status ds_partitions(dataset *ds)
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
void ds_render_pval(colfs_buf *b, const dataset *ds, size_t k,
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


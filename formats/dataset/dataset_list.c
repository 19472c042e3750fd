/* colfs: the files of a dataset directory (dataset_list.c): every regular
 * file under the root, recursively, in path order; hidden and
 * `_`-prefixed names skipped as Spark and Hive do.  A local directory is
 * walked by the core's one directory lister (core/dirwalk.h) with the
 * dataset's rules (those names left out, empty files and the walk's
 * other skips filed with their reasons, folders stamped for the change
 * check); a prefix's objects (colfs_source_list) fill the same list.
 * Whatever else is looked up (a foreign table's folders) goes through
 * the core's source kinds. */
#include "dataset_int.h"
#include "../core/buf.h"
#include "../core/dirwalk.h"
#include "../core/sourcekind.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ds_found_free(ds_found *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nskips; i++) {
		free(f->skips[i].rel);
		free(f->skips[i].why);
	}
	free(f->skips);
	for (size_t i = 0; i < f->nstamps; i++)
		free(f->stamps[i].rel);
	free(f->stamps);
	memset(f, 0, sizeof *f);
}

/* Spark and Hive skip a name starting with '.' or '_' (a writer's
 * temporary or marker file, _SUCCESS, _delta_log/). */
static bool name_hidden(const char *name)
{
	return name[0] == '.' || name[0] == '_';
}

/* The walk's word that `rel` was not taken, filed in the ds_found. */
static bool found_skip(void *ctx, const char *rel, colfs_status st,
		       const char *why)
{
	ds_found *f = ctx;
	if (!colfs_grow((void **)&f->skips, &f->capskips, f->nskips + 1,
			sizeof *f->skips))
		return false;
	ds_skip *k = &f->skips[f->nskips];
	k->rel = strdup(rel);
	k->why = strdup(why);
	k->st = st;
	if (!k->rel || !k->why) {
		free(k->rel);
		free(k->why);
		return false;
	}
	f->nskips++;
	return true;
}

/* A folder as the walk read it, filed in the ds_found. */
static bool found_stamp(void *ctx, const char *rel,
			const colfs_dirwalk_stamp *t)
{
	ds_found *f = ctx;
	if (!colfs_grow((void **)&f->stamps, &f->capstamps, f->nstamps + 1,
			sizeof *f->stamps))
		return false;
	ds_stamp *d = &f->stamps[f->nstamps];
	if (!(d->rel = strdup(rel)))
		return false;
	d->dev = t->dev;
	d->ino = t->ino;
	d->size = t->size;
	d->mtime_sec = t->mtime_sec;
	d->mtime_nsec = t->mtime_nsec;
	f->nstamps++;
	return true;
}

/* A dataset's rules of the core's walk: hidden names left out, empty
 * files skipped, skips and folders filed in `found` (NULL: not kept). */
static colfs_dirwalk_rules ds_rules(const colfs_options *opts,
				    size_t limit, ds_found *found)
{
	return (colfs_dirwalk_rules){
		.follow_links = opts && opts->follow_links,
		.mount_point = opts ? opts->mount_point : NULL,
		.limit = limit,
		.leave_out = name_hidden,
		.skip_empty = true,
		.skipped = found ? found_skip : NULL,
		.folder = found ? found_stamp : NULL,
		.ctx = found,
	};
}

colfs_status ds_list_local(const char *root, const colfs_options *opts,
			   size_t limit, ds_entry **out, size_t *n,
			   ds_found *found, char *why, size_t why_len)
{
	colfs_dirwalk_rules r = ds_rules(opts, limit, found);
	return colfs_dirwalk(root, &r, out, n, why, why_len);
}

colfs_status ds_list_folder(const char *root, const colfs_options *opts,
			    const char *rel, ds_entry **out, size_t *n,
			    ds_found *found, char *why, size_t why_len)
{
	colfs_dirwalk_rules r = ds_rules(opts, 0, found);
	return colfs_dirwalk_folder(root, rel, &r, out, n, why, why_len);
}

/* The first file directly in folder `root`/`sub` (in byte order)
 * whose name starts with `prefix`, into `name` as "sub/file"; false when
 * none (or no such folder). */
static bool folder_has(const char *root, const char *sub, const char *prefix,
		       char *name, size_t name_len)
{
	colfs_source_entry *e = NULL;
	size_t n = 0;
	bool found = false;
	char *dir, why[256];

	if (asprintf(&dir, "%s/%s/", root, sub) < 0)
		return false;
	colfs_status st = colfs_source_list(dir, NULL, &e, &n, why,
					    sizeof why);
	free(dir);
	if (st != COLFS_OK)
		return false;
	for (size_t i = 0; !found && i < n; i++)
		if (!strchr(e[i].key, '/') &&
		    strncmp(e[i].key, prefix, strlen(prefix)) == 0) {
			snprintf(name, name_len, "%s/%s", sub, e[i].key);
			found = true;
		}
	colfs_source_entries_free(e, n);
	return found;
}

bool ds_foreign_table(const char *root, char *why, size_t why_len)
{
	char name[NAME_MAX + 64], path[PATH_MAX];
	colfs_source_stat_info si;

	/* Hudi: the timeline in .hoodie/ says which file slices are the
	 * table's */
	if ((size_t)snprintf(path, sizeof path, "%s/.hoodie", root) <
	    sizeof path &&
	    colfs_source_stat(path, NULL, &si, name, sizeof name) ==
	    COLFS_OK && si.dir) {
		snprintf(why, why_len, "an Apache Hudi table (.hoodie/): Hudi "
			 "tables are not supported yet (its files read as a "
			 "plain dataset would show replaced and uncommitted "
			 "versions of its rows)");
		return true;
	}
	/* Paimon: snapshot/snapshot-N and schema/schema-N beside its
	 * buckets */
	if (folder_has(root, "snapshot", "snapshot-", name, sizeof name) &&
	    folder_has(root, "schema", "schema-", path, sizeof path)) {
		snprintf(why, why_len, "an Apache Paimon table (%s): Paimon "
			 "tables are not supported yet (its files read as a "
			 "plain dataset would show rows its snapshots have "
			 "replaced)", name);
		return true;
	}
	return false;
}

colfs_status ds_list_refuse(const char *root, const colfs_options *opts,
			    bool (*columnar)(void *ctx, const char *rel,
					     uint64_t size),
			    void *ctx, colfs_err *err)
{
	ds_entry *ents = NULL;
	ds_found found = {0};
	size_t n = 0;
	char why[512] = "";
	colfs_status st = ds_list_local(root, opts, SIZE_MAX, &ents, &n,
					&found, why, sizeof why);
	if (st != COLFS_OK) {
		ds_found_free(&found);
		return colfs_fail(err, st, UINT64_MAX, "%s", why);
	}
	for (size_t i = 0; i < n; i++) {
		if (columnar(ctx, ents[i].rel, ents[i].size)) {
			ds_entries_free(ents, n);
			ds_found_free(&found);
			return COLFS_OK;
		}
	}
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_puts(&b, "no Parquet, ORC or CFile file in this directory");
	if (n)
		colfs_buf_printf(&b, " (%zu other file%s: ", n,
				 n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 3; i++)
		colfs_buf_printf(&b, "%s%s", i ? ", " : "", ents[i].rel);
	if (n)
		colfs_buf_puts(&b, n > 3 ? ", ...)" : ")");
	for (size_t i = 0; i < found.nskips && i < 3; i++)
		colfs_buf_printf(&b, "%s%s: %s", i ? "; " : "; not shown: ",
				 found.skips[i].rel, found.skips[i].why);
	if (found.nskips > 3)
		colfs_buf_printf(&b, "; and %zu more not shown",
				 found.nskips - 3);
	if (!n && !found.nskips)
		colfs_buf_puts(&b, " (no files: names starting with '.' or "
			       "'_' are skipped)");
	colfs_buf_putc(&b, '\0');
	colfs_fail(err, COLFS_EUNSUPPORTED, UINT64_MAX, "%s",
		   colfs_buf_status(&b) == COLFS_OK ? b.data
		   : "no Parquet, ORC or CFile file in this directory");
	colfs_buf_free(&b);
	ds_entries_free(ents, n);
	ds_found_free(&found);
	return COLFS_EUNSUPPORTED;
}

void ds_entries_free(ds_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].rel);
	free(v);
}

/* Does a '/'-separated key have a component that Spark and Hive skip
 * (a name starting with '.' or '_'), as walk() skips them? */
static bool key_hidden(const char *k)
{
	for (const char *p = k; *p;) {
		if (*p == '.' || *p == '_')
			return true;
		p += strcspn(p, "/");
		while (*p == '/')
			p++;
	}
	return false;
}

colfs_status ds_list_s3(const char *url, const colfs_options *opts,
			const ds_table_kind **kind, ds_entry **out, size_t *n,
			char *why, size_t why_len)
{
	colfs_source_entry *e = NULL;
	size_t ne = 0, k = 0;
	colfs_status st;

	*out = NULL;
	*n = 0;
	*kind = NULL;
	st = colfs_source_list(url, opts, &e, &ne, why, why_len);
	if (st != COLFS_OK)
		return st;
	ds_entry *v = calloc(ne ? ne : 1, sizeof *v);
	if (!v) {
		colfs_source_entries_free(e, ne);
		snprintf(why, why_len, "%s: out of memory", url);
		return COLFS_ENOMEM;
	}
	/* Already in strcmp order (S3 lists in UTF-8 binary order, which
	 * colfs_s3_list checks). */
	for (size_t i = 0; i < ne; i++) {
		if (!*kind)
			*kind = ds_table_kind_of_key(e[i].key);
		if (key_hidden(e[i].key) || e[i].size == 0)
			continue;
		v[k].rel = e[i].key;
		v[k].size = e[i].size;
		e[i].key = NULL;
		k++;
	}
	colfs_source_entries_free(e, ne);
	*out = v;
	*n = k;
	return COLFS_OK;
}

/* colfs: the files of a dataset directory (dataset_list.c): every regular
 * file under the root, recursively, in path order; hidden and
 * `_`-prefixed names skipped as Spark and Hive do.  The one place a
 * dataset's files are found: another lister (an S3 prefix) fills the same
 * list. */
#include "dataset_int.h"
#include "../core/sourcekind.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Nesting deeper than this is refused (a loop of bind mounts). */
#define DS_MAX_DEPTH 64

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const ds_entry *)a)->rel, ((const ds_entry *)b)->rel);
}

/* Entry `name` of `dirfd` as walk() and ds_list_folder() take it into
 * *sb: false for one skipped (hidden, gone, a dangling link).  A
 * directory said so by readdir needs no stat (half the calls of a Hive
 * tree); anything else is stat'ed, links followed. */
static bool entry_stat(int dirfd, const struct dirent *e, struct stat *sb)
{
	if (e->d_name[0] == '.' || e->d_name[0] == '_')
		return false;
	if (e->d_type == DT_DIR) {
		sb->st_mode = S_IFDIR;
		return true;
	}
	return fstatat(dirfd, e->d_name, sb, 0) == 0;
}

static bool entry_push(ds_entry **v, size_t *n, size_t *cap)
{
	if (*n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 64;
	ds_entry *p = realloc(*v, nc * sizeof *p);
	if (!p)
		return false;
	*v = p;
	*cap = nc;
	return true;
}

/* The files under `dirfd` appended to v; stops once there are `limit`. */
static colfs_status walk(int dirfd, const char *prefix, unsigned depth,
			 size_t limit, ds_entry **v, size_t *n, size_t *cap,
			 char *why, size_t why_len)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	colfs_status st = COLFS_OK;

	if (!d) {
		close(dirfd);
		snprintf(why, why_len, "%s: %s", prefix[0] ? prefix : ".",
			 strerror(errno));
		return COLFS_EIO;
	}
	if (depth > DS_MAX_DEPTH) {
		closedir(d);
		snprintf(why, why_len, "%s: directories nested more than %d "
			 "deep", prefix, DS_MAX_DEPTH);
		return COLFS_EUNSUPPORTED;
	}
	while (st == COLFS_OK && *n < limit && (e = readdir(d)) != NULL) {
		struct stat sb;
		if (!entry_stat(dirfd, e, &sb))
			continue;
		size_t plen = strlen(prefix), nlen = strlen(e->d_name);
		char *rel = malloc(plen + nlen + 2);
		if (!rel) {
			st = COLFS_ENOMEM;
			break;
		}
		if (plen)
			snprintf(rel, plen + nlen + 2, "%s/%s", prefix,
				 e->d_name);
		else
			memcpy(rel, e->d_name, nlen + 1);
		if (S_ISDIR(sb.st_mode)) {
			int fd = openat(dirfd, e->d_name,
					O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0)
				st = walk(fd, rel, depth + 1, limit, v, n, cap,
					  why, why_len);
			free(rel);
			continue;
		}
		if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
			free(rel);
			continue;
		}
		if (!entry_push(v, n, cap)) {
			free(rel);
			st = COLFS_ENOMEM;
			break;
		}
		(*v)[*n] = (ds_entry){rel, (uint64_t)sb.st_size, false};
		(*n)++;
	}
	closedir(d);
	return st;
}

colfs_status ds_list_local(const char *root, size_t limit, ds_entry **out,
			   size_t *n, char *why, size_t why_len)
{
	size_t cap = 0;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	*out = NULL;
	*n = 0;
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", root, strerror(errno));
		return COLFS_EIO;
	}
	colfs_status st = walk(fd, "", 0, limit, out, n, &cap, why, why_len);
	if (st != COLFS_OK) {
		ds_entries_free(*out, *n);
		*out = NULL;
		*n = 0;
		return st;
	}
	if (*n)
		qsort(*out, *n, sizeof **out, entry_cmp);
	return COLFS_OK;
}

/* A folder as "name/": the order of ds_list_local's paths. */
static int folder_entry_cmp(const void *a, const void *b)
{
	const ds_entry *x = a, *y = b;
	const char *p = x->rel, *q = y->rel;
	while (*p && *p == *q) {
		p++;
		q++;
	}
	int c = *p ? (unsigned char)*p : x->dir ? '/' : 0;
	int d = *q ? (unsigned char)*q : y->dir ? '/' : 0;
	return c - d;
}

colfs_status ds_list_folder(const char *root, const char *rel,
			    ds_entry **out, size_t *n, char *why,
			    size_t why_len)
{
	size_t cap = 0, depth = 0, plen = strlen(rel);
	colfs_status st = COLFS_OK;
	struct dirent *e;

	*out = NULL;
	*n = 0;
	for (const char *p = rel; *p; p++)
		depth += *p == '/';
	if (plen && depth >= DS_MAX_DEPTH) {
		snprintf(why, why_len, "%s: directories nested more than %d "
			 "deep", rel, DS_MAX_DEPTH);
		return COLFS_EUNSUPPORTED;
	}
	char *path = malloc(strlen(root) + plen + 2);
	if (!path)
		return COLFS_ENOMEM;
	sprintf(path, plen ? "%s/%s" : "%s%s", root, rel);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		snprintf(why, why_len, "%s: %s", plen ? rel : ".",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return COLFS_EIO;
	}
	free(path);
	while (st == COLFS_OK && (e = readdir(d)) != NULL) {
		struct stat sb;
		if (!entry_stat(fd, e, &sb))
			continue;
		bool dir = S_ISDIR(sb.st_mode);
		if (!dir && (!S_ISREG(sb.st_mode) || sb.st_size == 0))
			continue;
		size_t nlen = strlen(e->d_name);
		char *r = malloc(plen + nlen + 2);
		if (!r || !entry_push(out, n, &cap)) {
			free(r);
			st = COLFS_ENOMEM;
			break;
		}
		sprintf(r, plen ? "%s/%s" : "%s%s", rel, e->d_name);
		(*out)[*n] = (ds_entry){r, dir ? 0 : (uint64_t)sb.st_size, dir};
		(*n)++;
	}
	closedir(d);
	if (st != COLFS_OK) {
		ds_entries_free(*out, *n);
		*out = NULL;
		*n = 0;
		return st;
	}
	if (*n)
		qsort(*out, *n, sizeof **out, folder_entry_cmp);
	return COLFS_OK;
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
			bool *delta, ds_entry **out, size_t *n, char *why,
			size_t why_len)
{
	colfs_source_entry *e = NULL;
	size_t ne = 0, k = 0;
	colfs_status st;

	*out = NULL;
	*n = 0;
	*delta = false;
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
		if (strncmp(e[i].key, "_delta_log/", 11) == 0)
			*delta = true;
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

/* colfs: the tree's error list.  A problem is filed with the tree path of
 * the part it concerns, its absolute byte offset, a status and a message;
 * duplicates are dropped, the list is capped, and `errors` documents
 * render the problems under their directory.  A changed source is the
 * one problem filed once it is seen (source.h).
 */
#include "tree_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COLFS_MAX_ERRORS 10000

/* The tree whose piece this thread renders ahead of its reader (a
 * worker's job, tree_read.c), and whether that piece found a problem
 * not filed yet.  Such a piece is dropped and its problem not filed: no
 * reader may ever reach it (a read that fails at an earlier piece stops
 * there), and a worker's finds would be filed in the order the workers
 * happened to run.  The reader that reaches the piece renders it again
 * and files what it finds, so a tree's problems are the same, in the
 * same order, with any number of workers as with none. */
static __thread colfs_tree *ahead_tree;
static __thread bool ahead_spoiled;

colfs_ahead_mark colfs_tree_ahead_begin(colfs_tree *t)
{
	colfs_ahead_mark outer = {ahead_tree, ahead_spoiled};

	ahead_tree = t;
	ahead_spoiled = false;
	return outer;
}

bool colfs_tree_ahead_end(colfs_ahead_mark outer)
{
	bool spoiled = ahead_spoiled;

	ahead_tree = outer.tree;
	ahead_spoiled = outer.spoiled;
	return spoiled;
}

bool colfs_tree_ahead_of(const colfs_tree *t)
{
	return t && ahead_tree == t;
}

bool colfs_tree_ahead_defer(colfs_tree *t)
{
	if (!colfs_tree_ahead_of(t))
		return false;
	ahead_spoiled = true;
	return true;
}
/* Add a problem to the list (the tree path, and the message as made).
 * One not in the list yet, found by a piece rendered ahead of its reader,
 * is left to the reader when `may_defer` (colfs_tree_ahead_defer). */
static void tree_record(colfs_tree *t, const char *path, uint64_t offset,
			colfs_status st, const char *raw, bool may_defer)
{
	char msg[1024];
	size_t j = 0;
	/* names from the file may hold control bytes: errors keeps one
	 * problem per line */
	for (size_t i = 0; raw[i] && j + 5 < sizeof msg; i++) {
		unsigned char ch = (unsigned char)raw[i];
		if (ch < 0x20 || ch == 0x7f)
			j += (size_t)snprintf(msg + j, sizeof msg - j, "\\x%02x",
					      ch);
		else
			msg[j++] = (char)ch;
	}
	msg[j] = 0;
	colfs_tree_lock(t);
	for (size_t i = 0; i < t->nerrors; i++) {
		const error_entry *e = &t->errors[i];
		if (e->offset == offset && e->status == st &&
		    strcmp(e->path, path) == 0 && strcmp(e->msg, msg) == 0)
			goto out;
	}
	if (may_defer && colfs_tree_ahead_defer(t))
		goto out;
	if (t->nerrors >= COLFS_MAX_ERRORS ||
	    !colfs_grow((void **)&t->errors, &t->caperrors, t->nerrors + 1,
		  sizeof *t->errors)) {
		t->dropped_errors++;
		goto out;
	}
	error_entry *e = &t->errors[t->nerrors];
	e->path = strdup(path);
	e->msg = strdup(msg);
	if (!e->path || !e->msg) {
		free(e->path);
		free(e->msg);
		t->dropped_errors++;
		goto out;
	}
	e->offset = offset;
	e->status = st;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	e->when = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	t->nerrors++;
out:
	colfs_tree_unlock(t);
}

/* The format's own check of what it shows beyond the source
 * (colfs_format.check), COLFS_OK when it has none. */
colfs_status colfs_tree_format_check(colfs_tree *t, bool force,
				     colfs_err *err)
{
	if (!t->format || !t->format->check)
		return COLFS_OK;
	return t->format->check(t, force, err);
}

/* File the one root problem of a changed source (once). */
void colfs_tree_file_change(colfs_tree *t)
{
	colfs_err e = {0};

	if (__atomic_exchange_n(&t->change_filed, true, __ATOMIC_ACQ_REL))
		return;
	if (colfs_source_check(t->src, &e) != COLFS_OK ||
	    colfs_tree_format_check(t, false, &e) != COLFS_OK)
		tree_record(t, "/", e.offset, e.status, e.msg, false);
}

/* COLFS_EIO once the source has changed since the tree was opened (one
 * fstat, and the format's check); the change is then filed at the
 * root. */
colfs_status colfs_tree_source_check(colfs_tree *t)
{
	if (colfs_source_check_often(t->src, NULL) == COLFS_OK &&
	    colfs_tree_format_check(t, false, NULL) == COLFS_OK)
		return COLFS_OK;
	colfs_tree_file_change(t);
	return COLFS_EIO;
}

colfs_status colfs_node_check(colfs_tree *t, const colfs_node *n)
{
	if (n->is_volatile)
		return COLFS_OK;
	return colfs_tree_source_check(t);
}

void colfs_tree_report_vpath(colfs_tree *t, const char *path,
			     uint64_t offset, colfs_status st, const char *fmt,
			     va_list ap)
{
	char raw[1024];

	/* What is found in a changed file is no news about the file: the
	 * change itself is the one problem.  (One fstat per problem.) */
	if (colfs_source_check(t->src, NULL) != COLFS_OK) {
		colfs_tree_file_change(t);
		return;
	}
	vsnprintf(raw, sizeof raw, fmt, ap);
	tree_record(t, path && *path ? path : "/", offset, st, raw, true);
}

void colfs_tree_report_path(colfs_tree *t, const char *path, uint64_t offset,
			    colfs_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	colfs_tree_report_vpath(t, path, offset, st, fmt, ap);
	va_end(ap);
}

void colfs_tree_report_err_path(colfs_tree *t, const char *path,
				const colfs_err *err)
{
	colfs_tree_report_path(t, path, err->offset, err->status, "%s",
			       err->msg);
}

/* The problems kept by the trees shown inside `t` (graft.c) follow its
 * own, each graft's in turn, their paths under the graft's path and their
 * offsets moved to `t`'s source. */
size_t colfs_tree_error_count(colfs_tree *t)
{
	colfs_tree_lock(t);
	size_t n = t->nerrors + t->dropped_errors;
	for (size_t g = 0; g < t->ngrafts; g++)
		n += colfs_tree_error_count(t->grafts[g]);
	colfs_tree_unlock(t);
	return n;
}

/* A problem or damaged part a graft's tree found, as the host tree names
 * it: its path under the graft's and its offset in the host's bytes. */
static void graft_rebase(const colfs_tree *sub, char *path, size_t size,
			 uint64_t *offset)
{
	char inner[1024];

	snprintf(inner, sizeof inner, "%s", path);
	snprintf(path, size, "%s%s", sub->graft_path,
		 strcmp(inner, "/") ? inner : "");
	if (*offset != COLFS_OFFSET_UNKNOWN)
		*offset += sub->graft_base;
}

static colfs_status error_get(colfs_tree *t, size_t *i, colfs_problem *out)
{
	colfs_status st = COLFS_ENOENT;
	colfs_tree_lock(t);
	if (*i < t->nerrors) {
		const error_entry *e = &t->errors[*i];
		snprintf(out->path, sizeof out->path, "%s", e->path);
		snprintf(out->message, sizeof out->message, "%s", e->msg);
		out->offset = e->offset;
		out->status = e->status;
		st = COLFS_OK;
		goto out;
	}
	if (*i < t->nerrors + t->dropped_errors)
		goto out; /* counted, not kept */
	*i -= t->nerrors + t->dropped_errors;
	for (size_t g = 0; g < t->ngrafts; g++) {
		colfs_tree *sub = t->grafts[g];
		if (error_get(sub, i, out) != COLFS_OK)
			continue;
		graft_rebase(sub, out->path, sizeof out->path, &out->offset);
		st = COLFS_OK;
		break;
	}
out:
	colfs_tree_unlock(t);
	return st;
}

colfs_status colfs_tree_error_get(colfs_tree *t, size_t i, colfs_problem *out)
{
	return error_get(t, &i, out);
}

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (strncmp(path, dir, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

/* The problems of `t` under `dir`, their paths after `prefix` and their
 * offsets moved by `base`; then those of its grafts. */
/* A read of a remote source that failed (the server gone, a timeout)
 * while a later one got its bytes from the server: the failure is past,
 * and its line says when the source answered again.  A source changed
 * since mount stays failed. */
static void errors_past(colfs_tree *t, const error_entry *e, colfs_buf *out)
{
	if (e->status != COLFS_EIO)
		return;
	/* 0 (never) for a tree without a source or a local one */
	int64_t at = colfs_source_answered(t->src);
	if (at <= e->when || colfs_source_changed(t->src))
		return;
	time_t sec = (time_t)(at / 1000000000);
	struct tm tm;
	char when[32];
	if (!gmtime_r(&sec, &tm) ||
	    !strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm))
		return;
	colfs_buf_printf(out, " (past: the source answered again at %s UTC)",
			 when);
}

static void errors_render(colfs_tree *t, const char *dir, const char *prefix,
			  uint64_t base, colfs_buf *out)
{
	colfs_tree_lock(t);
	for (size_t i = 0; i < t->nerrors; i++) {
		const error_entry *e = &t->errors[i];
		if (dir && !path_under(e->path, dir))
			continue;
		char where[48];
		uint64_t off = e->offset == COLFS_OFFSET_UNKNOWN
				       ? e->offset
				       : e->offset + base;

		colfs_buf_printf(out, "%s%s: %s: %s: %s", prefix,
				 *prefix && !strcmp(e->path, "/") ? "" : e->path,
				 colfs_offset_text(off, where, sizeof where),
				 colfs_status_name(e->status), e->msg);
		errors_past(t, e, out);
		colfs_buf_putc(out, '\n');
	}
	if (!dir && t->dropped_errors)
		colfs_buf_printf(out, "%s/: %zu more problems not listed\n",
				 prefix, t->dropped_errors);
	for (size_t g = 0; g < t->ngrafts; g++) {
		colfs_tree *sub = t->grafts[g];
		if (dir && !path_under(sub->graft_path, dir))
			continue;
		char *p = malloc(strlen(prefix) + strlen(sub->graft_path) + 1);
		if (!p)
			continue;
		sprintf(p, "%s%s", prefix, sub->graft_path);
		errors_render(sub, NULL, p, base + sub->graft_base, out);
		free(p);
	}
	colfs_tree_unlock(t);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The number of sorted paths before the first one >= key. */
static size_t paths_lower(const char *const *v, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The paths of the list sorted, made again only when the list has grown
 * (it only grows: entries are never removed while the tree lives).  A
 * walk over a large tree (`getfattr -R`) asks at every directory: each
 * answer is then two binary searches, not a pass over the list.  Called
 * with the tree locked; false when out of memory. */
static bool sorted_paths_fresh(colfs_tree *t)
{
	if (t->nsorted == t->nerrors && (t->sorted_paths || !t->nerrors))
		return true;
	const char **v = realloc(t->sorted_paths,
				 (t->nerrors ? t->nerrors : 1) * sizeof *v);
	if (!v)
		return false;
	for (size_t i = 0; i < t->nerrors; i++)
		v[i] = t->errors[i].path;
	qsort(v, t->nerrors, sizeof *v, path_cmp);
	t->sorted_paths = v;
	t->nsorted = t->nerrors;
	return true;
}

size_t colfs_tree_error_count_under(colfs_tree *t, const char *path)
{
	return colfs_tree_problems_under(t, path);
}

size_t colfs_tree_problems_under(colfs_tree *t, const char *dir)
{
	size_t n = 0, len = strlen(dir);
	bool all = strcmp(dir, "/") == 0;
	char *key;

	colfs_tree_lock(t);
	if (all) {
		n = t->nerrors + t->dropped_errors;
	} else if (sorted_paths_fresh(t) && (key = malloc(len + 2))) {
		/* the paths equal to dir, then those in [dir "/", dir "0"):
		 * '0' follows '/', so that range is every path below dir */
		const char *const *v = t->sorted_paths;
		size_t at = paths_lower(v, t->nsorted, dir);
		while (at < t->nsorted && strcmp(v[at], dir) == 0) {
			n++;
			at++;
		}
		memcpy(key, dir, len);
		key[len] = '/';
		key[len + 1] = '\0';
		size_t from = paths_lower(v, t->nsorted, key);
		key[len] = '/' + 1;
		n += paths_lower(v, t->nsorted, key) - from;
		free(key);
	} else {
		/* out of memory: the walk, as before there was an index */
		for (size_t i = 0; i < t->nerrors; i++)
			if (path_under(t->errors[i].path, dir))
				n++;
	}
	colfs_tree_unlock(t);
	return n;
}

static int offset_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

bool colfs_tree_problem_offsets(colfs_tree *t, uint64_t **out, size_t *n)
{
	uint64_t *v = NULL;
	size_t k = 0;

	colfs_tree_lock(t);
	if (t->nerrors && !(v = malloc(t->nerrors * sizeof *v))) {
		colfs_tree_unlock(t);
		return false;
	}
	for (size_t i = 0; i < t->nerrors; i++)
		if (t->errors[i].offset != COLFS_OFFSET_UNKNOWN)
			v[k++] = t->errors[i].offset;
	colfs_tree_unlock(t);
	if (k > 1)
		qsort(v, k, sizeof *v, offset_cmp);
	*out = v;
	*n = k;
	return true;
}

void colfs_tree_errors_render_path(colfs_tree *t, const char *dir,
				   colfs_buf *out)
{
	errors_render(t, dir, "", 0, out);
}

/* --- damaged parts and the rows they hide ---------------------------------
 *
 * colfs-tool check counts, for each damaged part, the rows whose values
 * cannot be read because of it.  A format notes them where a read of the
 * part's values fails (the place -o on_damage acts on too), as a range of
 * rows in the part's own numbering; the ranges noted under one path are
 * merged, so a part that several views fail on counts its rows once. */
#define COLFS_MAX_HIDDEN 10000

void colfs_tree_note_hidden(colfs_tree *t, const char *path, uint64_t offset,
			    uint64_t first, uint64_t rows)
{
	hidden_entry *h = NULL;
	uint64_t end;

	if (!path || !*path)
		path = "/";
	/* a piece rendered ahead: its reader notes it (tree_record) */
	if (colfs_tree_ahead_defer(t))
		return;
	colfs_tree_lock(t);
	for (size_t i = 0; i < t->nhidden && !h; i++)
		if (!strcmp(t->hidden[i].path, path))
			h = &t->hidden[i];
	if (!h) {
		if (t->nhidden >= COLFS_MAX_HIDDEN ||
		    !colfs_grow((void **)&t->hidden, &t->caphidden,
				t->nhidden + 1, sizeof *t->hidden))
			goto out;
		h = &t->hidden[t->nhidden];
		memset(h, 0, sizeof *h);
		if (!(h->path = strdup(path)))
			goto out;
		h->offset = offset;
		t->nhidden++;
	}
	if (rows == COLFS_ROWS_UNKNOWN ||
	    __builtin_add_overflow(first, rows, &end)) {
		h->unknown = true;
		goto out;
	}
	if (!rows)
		goto out;
	/* merge [first, end) into the sorted disjoint ranges */
	size_t lo = 0, hi;
	while (lo < h->nranges && h->ranges[lo].end < first)
		lo++;
	hi = lo;
	while (hi < h->nranges && h->ranges[hi].first <= end) {
		if (h->ranges[hi].first < first)
			first = h->ranges[hi].first;
		if (h->ranges[hi].end > end)
			end = h->ranges[hi].end;
		hi++;
	}
	if (hi == lo) {
		if (!colfs_grow((void **)&h->ranges, &h->capranges,
				h->nranges + 1, sizeof *h->ranges)) {
			h->unknown = true;   /* not kept: not guessed */
			goto out;
		}
		memmove(h->ranges + lo + 1, h->ranges + lo,
			(h->nranges - lo) * sizeof *h->ranges);
		h->nranges++;
	} else if (hi > lo + 1) {
		memmove(h->ranges + lo + 1, h->ranges + hi,
			(h->nranges - hi) * sizeof *h->ranges);
		h->nranges -= hi - lo - 1;
	}
	h->ranges[lo].first = first;
	h->ranges[lo].end = end;
out:
	colfs_tree_unlock(t);
}

size_t colfs_tree_damaged_count(colfs_tree *t)
{
	colfs_tree_lock(t);
	size_t n = t->nhidden;
	for (size_t g = 0; g < t->ngrafts; g++)
		n += colfs_tree_damaged_count(t->grafts[g]);
	colfs_tree_unlock(t);
	return n;
}

/* Like error_get: a graft's parts follow the tree's own. */
static colfs_status damaged_get(colfs_tree *t, size_t *i,
				colfs_damaged_part *out)
{
	colfs_status st = COLFS_ENOENT;

	colfs_tree_lock(t);
	if (*i < t->nhidden) {
		const hidden_entry *h = &t->hidden[*i];
		snprintf(out->path, sizeof out->path, "%s", h->path);
		out->offset = h->offset;
		out->rows = 0;
		for (size_t r = 0; r < h->nranges; r++)
			out->rows += h->ranges[r].end - h->ranges[r].first;
		if (h->unknown)
			out->rows = COLFS_ROWS_UNKNOWN;
		st = COLFS_OK;
		goto out;
	}
	*i -= t->nhidden;
	for (size_t g = 0; g < t->ngrafts; g++) {
		colfs_tree *sub = t->grafts[g];
		if (damaged_get(sub, i, out) != COLFS_OK)
			continue;
		graft_rebase(sub, out->path, sizeof out->path, &out->offset);
		st = COLFS_OK;
		break;
	}
out:
	colfs_tree_unlock(t);
	return st;
}

colfs_status colfs_tree_damaged_get(colfs_tree *t, size_t i,
				    colfs_damaged_part *out)
{
	return damaged_get(t, &i, out);
}

void colfs_tree_hidden_free(colfs_tree *t)
{
	for (size_t i = 0; i < t->nhidden; i++) {
		free(t->hidden[i].path);
		free(t->hidden[i].ranges);
	}
	free(t->hidden);
	t->hidden = NULL;
	t->nhidden = t->caphidden = 0;
}

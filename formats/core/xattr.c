/* colfs: the extended attributes of every node (colfs.h; docs/tree.md,
 * "Extended attributes").
 *
 * The core gives what every node has (kind, path; offset and length of a
 * range; the problem count of a directory's subtree; the format and size
 * at the root), then the node's own ops may add or replace facts through
 * their `xattrs` callback (tree.h).  Nothing is kept between requests
 * (the problem count grows as the file is read), so each request makes
 * only what it asks for: a listxattr the names, a getxattr its one value
 * (`getfattr -R -d` asks once per name: docs/performance.md, "xattrs").
 * Nothing here decodes values.
 */
#include "tree_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XATTR_PREFIX "user.colfs."
#define XATTR_PREFIX_LEN (sizeof XATTR_PREFIX - 1)

/* One request's attributes.  A getxattr asks for one name (`only`): the
 * others are neither formatted nor kept, so answering it costs the one
 * value; a listxattr asks for the names (`names_only`): no value is
 * formatted.  Names are borrowed (string literals of the callers). */
struct colfs_xattrs {
	const char *only;       /* the short name wanted, or NULL for all */
	bool names_only;
	const char **name;      /* short names, "kind" */
	char **value;           /* NULL with names_only */
	size_t n, cap;
	bool failed;            /* out of memory: the request answers ENOMEM */
};

/* Whether the request needs the attribute `name` at all. */
static bool xattrs_wants(const colfs_xattrs *x, const char *name)
{
	return !x->failed && (!x->only || strcmp(x->only, name) == 0);
}

void colfs_xattrs_set(colfs_xattrs *x, const char *name, const char *fmt, ...)
{
	char *value = NULL;
	va_list ap;

	if (!xattrs_wants(x, name))
		return;
	if (!x->names_only) {
		va_start(ap, fmt);
		if (vasprintf(&value, fmt, ap) < 0)
			value = NULL;
		va_end(ap);
		if (!value) {
			x->failed = true;
			return;
		}
	}
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->name[i], name) == 0) {
			free(x->value[i]);
			x->value[i] = value;
			return;
		}
	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 16;
		const char **nn = realloc(x->name, nc * sizeof *nn);
		if (nn)
			x->name = nn;
		char **nv = nn ? realloc(x->value, nc * sizeof *nv) : NULL;
		if (!nv) {
			free(value);
			x->failed = true;
			return;
		}
		x->value = nv;
		x->cap = nc;
	}
	x->name[x->n] = name;
	x->value[x->n] = value;
	x->n++;
}

void colfs_xattrs_range(colfs_xattrs *x, uint64_t offset, uint64_t len)
{
	colfs_xattrs_set(x, "offset", "%llu", (unsigned long long)offset);
	colfs_xattrs_set(x, "length", "%llu", (unsigned long long)len);
}

static void xattrs_free(colfs_xattrs *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->value[i]);
	free(x->name);
	free(x->value);
}

static const char *content_kind(const colfs_node *n)
{
	switch (n->kind) {
	case COLFS_CONTENT_DIR:
		return "dir";
	case COLFS_CONTENT_RANGE:
		return "range";
	case COLFS_CONTENT_DOC:
		return "document";
	case COLFS_CONTENT_STREAM:
		/* a report (generate, one piece) is a document whose size
		 * is known once read; the rest are value views */
		return n->ops && n->ops->piece ? "view" : "document";
	}
	return "unknown";
}

/* The attributes of `n` the request wants (all, their names, or one),
 * the core's first, then the format's.  The node's path is made only
 * when a value needs it; the problem count is the core's index
 * (problems.c), not a walk of the list. */
static colfs_status xattrs_make(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	char path[4096];
	bool dir = n->kind == COLFS_CONTENT_DIR;
	colfs_status st = COLFS_OK;

	path[0] = '\0';
	if (!x->names_only &&
	    (xattrs_wants(x, "path") || (dir && xattrs_wants(x, "problems"))))
		colfs_node_path(n, path, sizeof path);
	colfs_xattrs_set(x, "kind", "%s", content_kind(n));
	colfs_xattrs_set(x, "path", "%s", path);
	if (n->kind == COLFS_CONTENT_RANGE)
		colfs_xattrs_range(x, n->off, n->len);
	if (n == colfs_tree_root(t)) {
		colfs_xattrs_set(x, "format", "%s", colfs_tree_format(t));
		colfs_xattrs_set(x, "size", "%llu",
				 (unsigned long long)colfs_tree_source_size(t));
	}
	if (n->ops && n->ops->xattrs) {
		colfs_tree_lock(t);
		st = n->ops->xattrs(t, n, x);
		colfs_tree_unlock(t);
	}
	/* last, so that a format's own facts come first after the place */
	if (dir && xattrs_wants(x, "problems"))
		colfs_xattrs_set(x, "problems", "%zu",
				 x->names_only ? (size_t)0
					       : colfs_tree_problems_under(t,
									  path));
	if (st == COLFS_OK && x->failed)
		st = COLFS_ENOMEM;
	return st;
}

colfs_status colfs_node_xattr_list(colfs_tree *t, colfs_node *n, char *buf,
				   size_t cap, size_t *need)
{
	colfs_xattrs x = {.names_only = true};
	colfs_status st = xattrs_make(t, n, &x);
	size_t len = 0;

	if (st == COLFS_OK) {
		for (size_t i = 0; i < x.n; i++)
			len += XATTR_PREFIX_LEN + strlen(x.name[i]) + 1;
		if (len <= cap) {
			size_t at = 0;
			for (size_t i = 0; i < x.n; i++) {
				size_t l = strlen(x.name[i]) + 1;
				memcpy(buf + at, XATTR_PREFIX, XATTR_PREFIX_LEN);
				memcpy(buf + at + XATTR_PREFIX_LEN, x.name[i], l);
				at += XATTR_PREFIX_LEN + l;
			}
		}
		*need = len;
	}
	xattrs_free(&x);
	return st;
}

colfs_status colfs_node_xattr_get(colfs_tree *t, colfs_node *n,
				  const char *name, char *buf, size_t cap,
				  size_t *need)
{
	colfs_xattrs x = {0};
	colfs_status st;

	/* Not ours: answered without making anything. */
	if (strncmp(name, XATTR_PREFIX, XATTR_PREFIX_LEN) != 0)
		return COLFS_ENOENT;
	x.only = name + XATTR_PREFIX_LEN;
	st = xattrs_make(t, n, &x);
	if (st == COLFS_OK) {
		st = COLFS_ENOENT;
		if (x.n == 1) {
			size_t len = strlen(x.value[0]);
			if (len && len <= cap)
				memcpy(buf, x.value[0], len);
			*need = len;
			st = COLFS_OK;
		}
	}
	xattrs_free(&x);
	return st;
}

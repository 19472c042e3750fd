/* colfs: the extended attributes of every node (colfs.h; docs/tree.md,
 * "Extended attributes").
 *
 * The core gives what every node has (kind, path; offset and length of a
 * range; the problem count of a directory's subtree; the format and size
 * at the root), then the node's own ops may add or replace facts through
 * their `xattrs` callback (tree.h).  The list is made again at each
 * request: attributes are few and made from parsed metadata, and the
 * problem count grows as the file is read.  Nothing here decodes values.
 */
#include "tree_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XATTR_PREFIX "user.colfs."

struct colfs_xattrs {
	char **name;            /* full names, "user.colfs.kind" */
	char **value;
	size_t n, cap;
	bool failed;            /* out of memory: the request answers ENOMEM */
};

void colfs_xattrs_set(colfs_xattrs *x, const char *name, const char *fmt, ...)
{
	char *full = NULL, *value = NULL;
	va_list ap;

	if (x->failed)
		return;
	va_start(ap, fmt);
	if (vasprintf(&value, fmt, ap) < 0)
		value = NULL;
	va_end(ap);
	if (!value || asprintf(&full, XATTR_PREFIX "%s", name) < 0) {
		free(value);
		x->failed = true;
		return;
	}
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->name[i], full) == 0) {
			free(full);
			free(x->value[i]);
			x->value[i] = value;
			return;
		}
	if (x->n == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 16;
		char **nn = realloc(x->name, nc * sizeof *nn);
		if (nn)
			x->name = nn;
		char **nv = nn ? realloc(x->value, nc * sizeof *nv) : NULL;
		if (!nv) {
			free(full);
			free(value);
			x->failed = true;
			return;
		}
		x->value = nv;
		x->cap = nc;
	}
	x->name[x->n] = full;
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
	for (size_t i = 0; i < x->n; i++) {
		free(x->name[i]);
		free(x->value[i]);
	}
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

/* The core's and the format's attributes of node `n` of tree `t`. */
static colfs_status xattrs_of(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	colfs_status st = COLFS_OK;

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
	return st;
}

/* Every attribute of `n`, the core's first, then the format's: a graft's
 * proxy (core/graft.c) has those of the node it shows, in its own tree
 * (a range's offsets are in that tree's file), but its path here. */
static colfs_status xattrs_make(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	char path[4096];
	colfs_status st;

	colfs_node_path(n, path, sizeof path);
	if (n->ops && n->ops->forward) {
		colfs_tree *guest;
		colfs_node *target;
		st = n->ops->forward(t, n, &guest, &target);
		if (st != COLFS_OK)
			return st;
		colfs_xattrs_set(x, "kind", "%s", content_kind(target));
		colfs_xattrs_set(x, "path", "%s", path);
		st = xattrs_of(guest, target, x);
		n->ops->unforward(t, n, guest);
	} else {
		colfs_xattrs_set(x, "kind", "%s", content_kind(n));
		colfs_xattrs_set(x, "path", "%s", path);
		st = xattrs_of(t, n, x);
	}
	/* last, so that a format's own facts come first after the place */
	if (n->kind == COLFS_CONTENT_DIR)
		colfs_xattrs_set(x, "problems", "%zu",
				 colfs_tree_problems_under(t, path));
	if (st == COLFS_OK && x->failed)
		st = COLFS_ENOMEM;
	return st;
}

colfs_status colfs_node_xattr_list(colfs_tree *t, colfs_node *n, char *buf,
				   size_t cap, size_t *need)
{
	colfs_xattrs x = {0};
	colfs_status st = xattrs_make(t, n, &x);
	size_t len = 0;

	if (st == COLFS_OK) {
		for (size_t i = 0; i < x.n; i++)
			len += strlen(x.name[i]) + 1;
		if (len <= cap) {
			size_t at = 0;
			for (size_t i = 0; i < x.n; i++) {
				size_t l = strlen(x.name[i]) + 1;
				memcpy(buf + at, x.name[i], l);
				at += l;
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

	/* Not ours: answered without making the list. */
	if (strncmp(name, XATTR_PREFIX, strlen(XATTR_PREFIX)) != 0)
		return COLFS_ENOENT;
	st = xattrs_make(t, n, &x);
	if (st == COLFS_OK) {
		st = COLFS_ENOENT;
		for (size_t i = 0; i < x.n; i++) {
			if (strcmp(x.name[i], name) != 0)
				continue;
			size_t len = strlen(x.value[i]);
			if (len && len <= cap)
				memcpy(buf, x.value[i], len);
			*need = len;
			st = COLFS_OK;
			break;
		}
	}
	xattrs_free(&x);
	return st;
}

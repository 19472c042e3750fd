/* colfs: grafts, one tree shown inside another (the host showing a
 * guest), one mechanism for two callers:
 *
 * - a guest held as long as the host (colfs_dir_graft, tree.h; a Kudu
 *   container's CFile blocks, a tablet's or data root's CFiles): acquire
 *   gives it, release does nothing;
 * - a guest that may be closed and reopened between two uses
 *   (colfs_dir_add_graft, graft.h; a dataset's files, a bounded set open).
 *
 * Each node of the guest appears in the host as a proxy of the same name
 * and kind, made lazily (a directory lists or looks up its guest twin when
 * it is itself listed or looked up; hidden names stay hidden and keep
 * their kind).  A proxy keeps the guest's key and its path in the guest
 * and finds the guest's node again at every list, lookup, size, open and
 * xattr list (tree_read.c, xattr.c: ops->forward), so the host never
 * holds a pointer into a guest that may be gone.  One exception: when the
 * guest's source is a window of the host's (`base`, a Kudu block), a
 * range of the guest is a range of the host, moved by `base`, served
 * straight from the host's file (fs/ splices it) and its xattrs give
 * host offsets.  Other ranges are proxies too: their bytes come from the
 * guest's source, their xattrs give the guest file's offsets.
 *
 * Problems a held guest files stay in it and are listed by the host under
 * the graft's path (problems.c); a reopenable guest's are the caller's to
 * report.
 *
 * Locks: a proxy's callback holds the host tree's lock (populate, lookup)
 * and the guest's functions take the guest's; a guest never calls out.
 */
#include "graft.h"
#include "tree_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One graft: how to reach its guest. */
typedef struct graft_guest {
	const colfs_graft_ops *ops;
	void *ctx;
	uint64_t key;
	uint64_t base;          /* COLFS_GRAFT_FOREIGN: not a window */
} graft_guest;

typedef struct graft_proxy {
	const graft_guest *g;
	const char *path;   /* in the guest: "" for its root, "/a/b" */
} graft_proxy;

static colfs_status graft_populate(colfs_tree *t, colfs_node *dir);
static colfs_status graft_lookup(colfs_tree *t, colfs_node *dir,
				 const char *name, colfs_node **out);
static colfs_status graft_forward(colfs_tree *t, colfs_node *n,
				  colfs_tree **guest, colfs_node **target);
static void graft_unforward(colfs_tree *t, colfs_node *n, colfs_tree *guest);

static const colfs_node_ops graft_dir_ops = {
	.populate = graft_populate,
	.lookup = graft_lookup,
	.forward = graft_forward,       /* its xattrs only (tree.c) */
	.unforward = graft_unforward,
};

static const colfs_node_ops graft_file_ops = {
	.forward = graft_forward,
	.unforward = graft_unforward,
};

/* The guest's node at the proxy's path, the guest held. */
static colfs_status proxy_target(const graft_proxy *p, colfs_tree **guest,
				 colfs_node **target)
{
	const graft_guest *g = p->g;
	COLFS_TRY(g->ops->acquire(g->ctx, g->key, guest));
	colfs_status st = colfs_tree_resolve(*guest, p->path, target);
	if (st != COLFS_OK)
		g->ops->release(g->ctx, g->key, *guest);
	return st;
}

/* The host's twin in `dir` of the guest's node `kid`, hidden or listed;
 * `dir` shows the guest's directory at `path`. */
static colfs_node *proxy_add(colfs_tree *t, colfs_node *dir,
			     const graft_guest *g, const char *path,
			     colfs_node *kid, bool hidden)
{
	colfs_node *n = NULL;

	colfs_tree_lock(t);
	if (hidden) {
		/* a name looked up before: the twin made then */
		for (size_t i = 0; i < dir->nhidden; i++)
			if (strcmp(dir->hidden[i]->name, kid->name) == 0) {
				n = dir->hidden[i];
				goto out;
			}
	}
	char *name = strdup(kid->name);
	if (!name)
		goto out;
	n = colfs_dir_add_named(t, dir, name, kid->kind, hidden);
	if (!n)
		goto out;
	n->is_volatile = kid->is_volatile;
	n->mappable = kid->mappable;
	if (kid->kind == COLFS_CONTENT_RANGE && g->base != COLFS_GRAFT_FOREIGN) {
		n->off = kid->off + g->base;
		n->len = kid->len;
		goto out;
	}
	size_t len = strlen(path) + strlen(kid->name) + 2;
	graft_proxy *p = colfs_tree_alloc(t, sizeof *p);
	char *at = colfs_tree_alloc(t, len);
	if (!p || !at) {
		n = NULL;   /* in the tree (freed at destroy), unusable */
		goto out;
	}
	snprintf(at, len, "%s/%s", path, kid->name);
	p->g = g;
	p->path = at;
	n->ops = kid->kind == COLFS_CONTENT_DIR ? &graft_dir_ops
						: &graft_file_ops;
	n->ctx = p;
out:
	colfs_tree_unlock(t);
	return n;
}

/* Fill `dir` with the twins of the guest's directory at `path`. */
static colfs_status graft_fill(colfs_tree *t, colfs_node *dir,
			       const graft_guest *g, const char *path)
{
	graft_proxy at = {.g = g, .path = path};
	colfs_tree *guest;
	colfs_node *gdir;
	colfs_node *const *kids;
	size_t n;

	COLFS_TRY(proxy_target(&at, &guest, &gdir));
	colfs_status st = colfs_dir_list(guest, gdir, &kids, &n);
	for (size_t i = 0; st == COLFS_OK && i < n; i++)
		if (!proxy_add(t, dir, g, path, kids[i], false))
			st = COLFS_ENOMEM;
	g->ops->release(g->ctx, g->key, guest);
	return st;
}

static colfs_status graft_populate(colfs_tree *t, colfs_node *dir)
{
	const graft_proxy *p = colfs_node_ctx(dir);
	return graft_fill(t, dir, p->g, p->path);
}

static colfs_status graft_lookup(colfs_tree *t, colfs_node *dir,
				 const char *name, colfs_node **out)
{
	const graft_proxy *p = colfs_node_ctx(dir);
	colfs_tree *g;
	colfs_node *gdir, *kid;

	COLFS_TRY(proxy_target(p, &g, &gdir));
	colfs_status st = colfs_dir_lookup(g, gdir, name, &kid);
	if (st == COLFS_OK) {
		/* "." and ".." never come here (the tree answers them). */
		*out = proxy_add(t, dir, p->g, p->path, kid, true);
		if (!*out)
			st = COLFS_ENOMEM;
	}
	p->g->ops->release(p->g->ctx, p->g->key, g);
	return st;
}

static colfs_status graft_forward(colfs_tree *t, colfs_node *n,
				  colfs_tree **guest, colfs_node **target)
{
	(void)t;
	return proxy_target(colfs_node_ctx(n), guest, target);
}

static void graft_unforward(colfs_tree *t, colfs_node *n, colfs_tree *guest)
{
	const graft_proxy *p = colfs_node_ctx(n);
	(void)t;
	p->g->ops->release(p->g->ctx, p->g->key, guest);
}

colfs_node *colfs_dir_add_graft(colfs_tree *t, colfs_node *dir,
				const char *raw_name,
				const colfs_graft_ops *ops, void *ctx,
				uint64_t key)
{
	graft_guest *g = colfs_tree_alloc(t, sizeof *g);
	graft_proxy *p = colfs_tree_alloc(t, sizeof *p);
	if (!g || !p)
		return NULL;
	*g = (graft_guest){.ops = ops, .ctx = ctx, .key = key,
			   .base = COLFS_GRAFT_FOREIGN};
	*p = (graft_proxy){.g = g, .path = ""};
	return colfs_dir_add_dir(t, dir, raw_name, &graft_dir_ops, p);
}

/* --- held guests: the guest is the ctx, never closed ------------------- */
static colfs_status held_acquire(void *ctx, uint64_t key, colfs_tree **guest)
{
	(void)key;
	*guest = ctx;
	return COLFS_OK;
}

static void held_release(void *ctx, uint64_t key, colfs_tree *guest)
{
	(void)ctx;
	(void)key;
	(void)guest;
}

static const colfs_graft_ops held_ops = {
	.acquire = held_acquire,
	.release = held_release,
};

colfs_status colfs_dir_graft(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
			     uint64_t base)
{
	char path[4096];

	colfs_tree_lock(t);
	colfs_node_path(dir, path, sizeof path);
	sub->graft_path = strdup(path);
	sub->graft_base = base == COLFS_GRAFT_FOREIGN ? 0 : base;
	graft_guest *g = colfs_tree_alloc(t, sizeof *g);
	if (!g || !sub->graft_path ||
	    !colfs_grow((void **)&t->grafts, &t->capgrafts, t->ngrafts + 1,
			sizeof *t->grafts)) {
		colfs_tree_unlock(t);
		colfs_tree_destroy(sub);
		return COLFS_ENOMEM;
	}
	t->grafts[t->ngrafts++] = sub;
	*g = (graft_guest){.ops = &held_ops, .ctx = sub, .base = base};
	colfs_status st = graft_fill(t, dir, g, "");
	colfs_tree_unlock(t);
	return st;
}

colfs_status colfs_tree_open_window(colfs_tree *t, uint64_t offset,
				    uint64_t len, const char *display_name,
				    colfs_tree **out, char *why,
				    size_t why_len)
{
	colfs_source *w;
	colfs_status st = colfs_source_create_window(t->src, offset, len, &w);

	*out = NULL;
	if (st != COLFS_OK) {
		snprintf(why, why_len, "%s: %s", display_name,
			 colfs_status_name(st));
		return st;
	}
	return colfs_tree_open_source(w, display_name, &t->opts, out, why,
				      why_len);
}

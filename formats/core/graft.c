/* colfs: grafts: proxies of another tree's nodes (graft.h). */
#include "graft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct graft_proxy {
	const colfs_graft_ops *ops;
	void *ctx;
	uint64_t key;
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
};

static const colfs_node_ops graft_file_ops = {
	.forward = graft_forward,
	.unforward = graft_unforward,
};

static graft_proxy *proxy_new(colfs_tree *t, const graft_proxy *parent,
			      const char *name)
{
	graft_proxy *p = colfs_tree_alloc(t, sizeof *p);
	size_t n = strlen(parent->path) + strlen(name) + 2;
	char *path = colfs_tree_alloc(t, n);

	if (!p || !path)
		return NULL;
	*p = *parent;
	if (name[0])
		snprintf(path, n, "%s/%s", parent->path, name);
	p->path = path;
	return p;
}

/* The guest's node at the proxy's path, the guest held. */
static colfs_status proxy_target(const graft_proxy *p, colfs_tree **guest,
				 colfs_node **target)
{
	COLFS_TRY(p->ops->acquire(p->ctx, p->key, guest));
	colfs_status st = colfs_tree_resolve(*guest, p->path, target);
	if (st != COLFS_OK)
		p->ops->release(p->ctx, p->key, *guest);
	return st;
}

/* A proxy in `dir` for the guest's node `kid`. */
static colfs_node *proxy_add(colfs_tree *t, colfs_node *dir,
			     const graft_proxy *parent, colfs_node *kid,
			     bool hidden)
{
	const char *name = colfs_node_name(kid);
	graft_proxy *p = proxy_new(t, parent, name);
	if (!p)
		return NULL;
	bool is_dir = colfs_node_is_dir(kid);
	const colfs_node_ops *ops = is_dir ? &graft_dir_ops : &graft_file_ops;
	if (hidden) {
		/* A name the guest answers without listing it; the proxy
		 * is hidden too.  (Its kind: a range shows as a document.) */
		colfs_content kind = colfs_node_content(kid);
		if (kind == COLFS_CONTENT_RANGE)
			kind = COLFS_CONTENT_DOC;
		return colfs_dir_make_hidden(t, dir, name, kind, ops, p);
	}
	return colfs_dir_add_proxy(t, dir, name, colfs_node_content(kid),
				   colfs_node_is_volatile(kid), ops, p);
}

static colfs_status graft_populate(colfs_tree *t, colfs_node *dir)
{
	const graft_proxy *p = colfs_node_ctx(dir);
	colfs_tree *g;
	colfs_node *gdir;
	colfs_node *const *kids;
	size_t n;

	COLFS_TRY(proxy_target(p, &g, &gdir));
	colfs_status st = colfs_dir_list(g, gdir, &kids, &n);
	for (size_t i = 0; st == COLFS_OK && i < n; i++)
		if (!proxy_add(t, dir, p, kids[i], false))
			st = COLFS_ENOMEM;
	p->ops->release(p->ctx, p->key, g);
	return st;
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
		*out = proxy_add(t, dir, p, kid, true);
		if (!*out)
			st = COLFS_ENOMEM;
	}
	p->ops->release(p->ctx, p->key, g);
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
	p->ops->release(p->ctx, p->key, guest);
}

colfs_node *colfs_dir_add_graft(colfs_tree *t, colfs_node *dir,
				const char *raw_name,
				const colfs_graft_ops *ops, void *ctx,
				uint64_t key)
{
	graft_proxy *p = colfs_tree_alloc(t, sizeof *p);
	if (!p)
		return NULL;
	p->ops = ops;
	p->ctx = ctx;
	p->key = key;
	p->path = "";
	return colfs_dir_add_dir(t, dir, raw_name, &graft_dir_ops, p);
}

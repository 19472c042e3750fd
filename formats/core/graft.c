/* colfs: grafts, one tree shown inside another.  Two kinds, one file:
 *
 * 1. Held guests (colfs_dir_graft, tree.h; a Kudu container's blocks).
 *    The inner tree lives as long as the outer one; its nodes appear as
 *    outer nodes with the inner callbacks, ranges moved to the outer
 *    source, problems listed under the graft's path (problems.c).
 *
 * 2. Reopenable guests (colfs_dir_add_graft, graft.h; a dataset's files).
 *    Proxies keep the guest's key and path and find the guest's node
 *    again at every use, so the guest may be closed and reopened between
 *    two uses (a bounded set of open files).
 *
 * (Kind 1 could become a case of kind 2 whose guest is never closed: one
 * proxy mechanism; not done yet.)
 */
#include "graft.h"
#include "tree_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- 1. held guests ---------------------------------------------------
 *
 * A file that holds whole files of another format (a Kudu container holds
 * CFiles) shows each one as the tree that file would have on its own.  The
 * inner tree is opened over a window of the outer source
 * (colfs_source_create_window) and kept by the outer tree; each of its
 * nodes appears in the outer tree as a node of the same name and kind
 * whose callbacks are the inner node's, called with the inner tree: the
 * same documents, the same pieces, the same sizes.  Ranges become ranges
 * of the outer source (moved by the window's start), so they are served
 * straight from the outer file.  Problems the inner tree files stay in it
 * and are listed by the outer tree under the graft's path
 * (problems.c).
 *
 * Locks: an outer callback holds the outer tree's lock (populate,
 * generate) and takes the inner one's; an inner tree never calls out.
 */
typedef struct held_link {
	colfs_tree *sub;
	colfs_node *node;       /* in `sub` */
	uint64_t base;          /* where sub's source begins in the outer */
	colfs_node_ops ops;     /* the outer node's: those sub's node has */
} held_link;

static colfs_node *held_add(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
			     colfs_node *kid, uint64_t base, bool hidden);

static colfs_status held_populate(colfs_tree *t, colfs_node *dir)
{
	held_link *l = dir->ctx;
	colfs_node *const *kids;
	size_t n;
	colfs_status st;

	(void)t;
	colfs_tree_lock(l->sub);
	st = colfs_dir_list(l->sub, l->node, &kids, &n);
	for (size_t i = 0; st == COLFS_OK && i < n; i++)
		if (!held_add(t, dir, l->sub, kids[i], l->base, false))
			st = COLFS_ENOMEM;
	colfs_tree_unlock(l->sub);
	return st;
}

static colfs_status held_lookup(colfs_tree *t, colfs_node *dir,
				 const char *name, colfs_node **out)
{
	held_link *l = dir->ctx;
	colfs_node *k;
	colfs_status st;

	colfs_tree_lock(l->sub);
	st = colfs_dir_lookup(l->sub, l->node, name, &k);
	if (st == COLFS_OK) {
		*out = held_add(t, dir, l->sub, k, l->base, true);
		if (!*out)
			st = COLFS_ENOMEM;
	}
	colfs_tree_unlock(l->sub);
	return st;
}

static colfs_status held_generate(colfs_tree *t, colfs_node *file,
				   colfs_buf *out)
{
	held_link *l = file->ctx;
	colfs_status st;

	(void)t;
	colfs_tree_lock(l->sub);
	st = l->node->ops->generate(l->sub, l->node, out);
	colfs_tree_unlock(l->sub);
	return st;
}

/* A range of a graft over another file: its bytes in pieces of 1 MiB,
 * read from the inner tree's source. */
#define GRAFT_RANGE_PIECE (1u << 20)

static colfs_status held_range_piece(colfs_tree *t, colfs_node *file,
				      uint64_t index, colfs_buf *out)
{
	held_link *l = file->ctx;
	colfs_err err = {0};
	uint8_t *p;

	(void)t;
	if (index >= l->node->len / GRAFT_RANGE_PIECE +
			     (l->node->len % GRAFT_RANGE_PIECE != 0))
		return COLFS_END;
	uint64_t at = index * GRAFT_RANGE_PIECE;
	size_t n = l->node->len - at < GRAFT_RANGE_PIECE
			   ? (size_t)(l->node->len - at)
			   : GRAFT_RANGE_PIECE;
	if (!colfs_buf_reserve(out, n))
		return COLFS_ENOMEM;
	p = (uint8_t *)out->data + out->len;
	COLFS_TRY(colfs_source_read_at(l->sub->src, l->node->off + at, n, p,
				       &err));
	out->len += n;
	return COLFS_OK;
}

static colfs_status held_piece(colfs_tree *t, colfs_node *file,
				uint64_t index, colfs_buf *out)
{
	held_link *l = file->ctx;

	(void)t;
	return l->node->ops->piece(l->sub, l->node, index, out);
}

/* The outer twin of `kid` (a node of `sub`) in `dir`. */
static colfs_node *held_add(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
			     colfs_node *kid, uint64_t base, bool hidden)
{
	char *name = strdup(kid->name);
	if (!name)
		return NULL;
	if (hidden) {
		for (size_t i = 0; i < dir->nhidden; i++) {
			if (strcmp(dir->hidden[i]->name, name) == 0) {
				free(name);
				return dir->hidden[i];
			}
		}
	}
	held_link *l = colfs_tree_alloc(t, sizeof *l);
	if (!l) {
		free(name);
		return NULL;
	}
	bool foreign = base == COLFS_GRAFT_FOREIGN;
	colfs_node *n = colfs_dir_add_named(
		t, dir, name,
		foreign && kid->kind == COLFS_CONTENT_RANGE ? COLFS_CONTENT_STREAM
							    : kid->kind,
		hidden);
	if (!n)
		return NULL;
	l->sub = sub;
	l->node = kid;
	l->base = base;
	n->is_volatile = kid->is_volatile;
	n->is_summary = kid->is_summary;
	switch (kid->kind) {
	case COLFS_CONTENT_DIR:
		l->ops.populate = held_populate;
		if (kid->ops && kid->ops->lookup)
			l->ops.lookup = held_lookup;
		break;
	case COLFS_CONTENT_RANGE:
		if (foreign) {
			l->ops.piece = held_range_piece;
			l->ops.concurrent = true;
			break;
		}
		n->off = kid->off + base;
		n->len = kid->len;
		return n;
	case COLFS_CONTENT_DOC:
	case COLFS_CONTENT_STREAM:
		if (kid->text) {
			n->text = malloc((size_t)kid->doc_size + 1);
			if (!n->text)
				return NULL;
			memcpy(n->text, kid->text, (size_t)kid->doc_size + 1);
			n->doc_size = kid->doc_size;
			return n;
		}
		if (kid->ops && kid->ops->generate)
			l->ops.generate = held_generate;
		if (kid->ops && kid->ops->piece)
			l->ops.piece = held_piece;
		l->ops.concurrent = kid->ops && kid->ops->concurrent;
		break;
	}
	n->ops = &l->ops;
	n->ctx = l;
	return n;
}

colfs_status colfs_dir_graft(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
			     uint64_t base)
{
	char path[4096];

	colfs_tree_lock(t);
	colfs_node_path(dir, path, sizeof path);
	sub->graft_path = strdup(path);
	sub->graft_base = base == COLFS_GRAFT_FOREIGN ? 0 : base;
	if (!sub->graft_path ||
	    !colfs_grow((void **)&t->grafts, &t->capgrafts, t->ngrafts + 1,
			sizeof *t->grafts)) {
		colfs_tree_unlock(t);
		colfs_tree_destroy(sub);
		return COLFS_ENOMEM;
	}
	t->grafts[t->ngrafts++] = sub;
	held_link root = {.sub = sub, .node = colfs_tree_root(sub),
			   .base = base};
	void *saved_ctx = dir->ctx;
	dir->ctx = &root;
	colfs_status st = held_populate(t, dir);
	dir->ctx = saved_ctx;
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

/* --- 2. reopenable guests ---------------------------------------------- */
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

/* colfs: a tree shown inside another (tree.h, colfs_dir_graft).
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
#include "tree_int.h"

#include <stdio.h>
#include <string.h>

typedef struct graft_link {
	colfs_tree *sub;
	colfs_node *node;       /* in `sub` */
	uint64_t base;          /* where sub's source begins in the outer */
	colfs_node_ops ops;     /* the outer node's: those sub's node has */
} graft_link;

static colfs_node *graft_add(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
			     colfs_node *kid, uint64_t base, bool hidden);

static colfs_status graft_populate(colfs_tree *t, colfs_node *dir)
{
	graft_link *l = dir->ctx;
	colfs_node *const *kids;
	size_t n;
	colfs_status st;

	(void)t;
	colfs_tree_lock(l->sub);
	st = colfs_dir_list(l->sub, l->node, &kids, &n);
	for (size_t i = 0; st == COLFS_OK && i < n; i++)
		if (!graft_add(t, dir, l->sub, kids[i], l->base, false))
			st = COLFS_ENOMEM;
	colfs_tree_unlock(l->sub);
	return st;
}

static colfs_status graft_lookup(colfs_tree *t, colfs_node *dir,
				 const char *name, colfs_node **out)
{
	graft_link *l = dir->ctx;
	colfs_node *k;
	colfs_status st;

	colfs_tree_lock(l->sub);
	st = colfs_dir_lookup(l->sub, l->node, name, &k);
	if (st == COLFS_OK) {
		*out = graft_add(t, dir, l->sub, k, l->base, true);
		if (!*out)
			st = COLFS_ENOMEM;
	}
	colfs_tree_unlock(l->sub);
	return st;
}

static colfs_status graft_generate(colfs_tree *t, colfs_node *file,
				   colfs_buf *out)
{
	graft_link *l = file->ctx;
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

static colfs_status graft_range_piece(colfs_tree *t, colfs_node *file,
				      uint64_t index, colfs_buf *out)
{
	graft_link *l = file->ctx;
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

static colfs_status graft_piece(colfs_tree *t, colfs_node *file,
				uint64_t index, colfs_buf *out)
{
	graft_link *l = file->ctx;

	(void)t;
	return l->node->ops->piece(l->sub, l->node, index, out);
}

/* The outer twin of `kid` (a node of `sub`) in `dir`. */
static colfs_node *graft_add(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
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
	graft_link *l = colfs_tree_alloc(t, sizeof *l);
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
		l->ops.populate = graft_populate;
		if (kid->ops && kid->ops->lookup)
			l->ops.lookup = graft_lookup;
		break;
	case COLFS_CONTENT_RANGE:
		if (foreign) {
			l->ops.piece = graft_range_piece;
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
			l->ops.generate = graft_generate;
		if (kid->ops && kid->ops->piece)
			l->ops.piece = graft_piece;
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
	graft_link root = {.sub = sub, .node = colfs_tree_root(sub),
			   .base = base};
	void *saved_ctx = dir->ctx;
	dir->ctx = &root;
	colfs_status st = graft_populate(t, dir);
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

/* colfs: the tree model: a tree's basics, its nodes (made, named, freed,
 * their accessors and paths) and the problems filed at a node.
 *
 * Nodes are created lazily (a directory's children on first listing) and
 * then live until the tree is destroyed, or until the directory above
 * them is released (tree_listings.c): by an offline reader that has
 * finished with it (colfs_dir_release) or, in a mount, once the kernel
 * holds nothing under it (colfs_tree_release_unused).  A release is
 * refused while a handle is open under the directory and first waits for
 * the workers decoding ahead, so a node behind an open handle never
 * dangles.  An inode number (its slot in the node table + 1, root = 1)
 * never changes while its node lives and is never given again: a
 * released slot made again gets the next epoch in its upper 32 bits.  A
 * directory's child array is never modified once populated, and an open
 * directory (colfs_dir_opened) is never released, so readdir offsets
 * (index + 1) stay stable while a directory is open.
 *
 * Locking: one recursive tree lock guards the node table, population,
 * document generation, the arena and the error list.  Streams have their
 * own lock each, so decoding different views runs in parallel.  The piece
 * cache has its own lock.  The workers decoding ahead (ahead.c) render a
 * concurrent stream's pieces holding none of these: a reader holding its
 * stream lock may wait for them, and no stream is ever read under the
 * tree lock (populate and generate never read a stream).
 *
 * Beside it in core: tree_int.h (the node and tree structures, for the
 * files below), tree_listings.c (listings, lookups, forgets and
 * releases), tree_read.c (documents, streams, sizes, handles and reads),
 * tree_open.c (opening and destroying a tree), problems.c (the error
 * list), tree_sizes.c (the size
 * index of a tree), piececache.c (rendered pieces and documents),
 * ahead.c (the workers decoding ahead of readers), options.c (-o
 * options), names.c (escaping names), readme.c (the
 * README's entries), layout.c (the `layout` document).
 */
#include "tree_int.h"
#include "cursor.h"
#include "options.h"
#include "sizeindex.h"
#include "sourcekind.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* A proxy file (a graft's, graft.c): its size, opens and reads are those
 * of the node it finds.  (A proxy directory forwards its xattrs only.) */
bool tree_node_forwards(const colfs_node *n)
{
	return n->kind != COLFS_CONTENT_DIR && n->ops && n->ops->forward;
}

/* ------------------------------------------------------------------------
 * Tree basics
 */
const colfs_options *colfs_tree_options(const colfs_tree *t)
{
	return &t->opts;
}

colfs_source *colfs_tree_source(colfs_tree *t)
{
	return t->src;
}

const char *colfs_tree_display_name(const colfs_tree *t)
{
	return t->display_name;
}

void colfs_tree_set_format_state(colfs_tree *t, void *state)
{
	t->format_state = state;
}

void *colfs_tree_format_state(colfs_tree *t)
{
	return t->format_state;
}

const char *colfs_tree_format(const colfs_tree *t)
{
	return t->format ? t->format->name : "none";
}

bool colfs_tree_has_io(const colfs_tree *t)
{
	return t->has_io;
}

uint64_t colfs_tree_source_size(const colfs_tree *t)
{
	return colfs_source_size(t->src);
}

int colfs_tree_fd(const colfs_tree *t)
{
	return colfs_source_fd(t->src);
}

void *colfs_tree_alloc(colfs_tree *t, size_t size)
{
	void *p = calloc(1, size ? size : 1);
	if (!p)
		return NULL;
	colfs_tree_lock(t);
	if (!colfs_grow((void **)&t->arena, &t->caparena, t->narena + 1,
		  sizeof *t->arena)) {
		colfs_tree_unlock(t);
		free(p);
		return NULL;
	}
	t->arena[t->narena++] = p;
	colfs_tree_unlock(t);
	return p;
}

char *colfs_tree_strdup(colfs_tree *t, const char *s)
{
	size_t n = strlen(s);
	char *p = colfs_tree_alloc(t, n + 1);
	if (p)
		memcpy(p, s, n + 1);
	return p;
}

/* A block of colfs_dir_alloc, in its directory's list. */
typedef struct dir_mem {
	struct dir_mem *next;
	max_align_t data[];
} dir_mem;

void *colfs_dir_alloc(colfs_tree *t, colfs_node *dir, size_t size)
{
	dir_mem *m;

	if (size > SIZE_MAX - sizeof *m)
		return NULL;
	m = calloc(1, sizeof *m + size);
	if (!m)
		return NULL;
	colfs_tree_lock(t);
	m->next = dir->mem;
	dir->mem = m;
	colfs_tree_unlock(t);
	return m->data;
}

char *colfs_dir_strdup(colfs_tree *t, colfs_node *dir, const char *s)
{
	size_t n = strlen(s);
	char *p = colfs_dir_alloc(t, dir, n + 1);

	if (p)
		memcpy(p, s, n + 1);
	return p;
}

void tree_dir_mem_free(colfs_node *dir)
{
	while (dir->mem) {
		dir_mem *m = dir->mem;

		dir->mem = m->next;
		free(m);
	}
}

colfs_node *colfs_tree_root(colfs_tree *t)
{
	colfs_node *n;
	/* t->nodes moves when it grows (a populate on another thread) */
	colfs_tree_lock(t);
	n = t->nodes[0];
	colfs_tree_unlock(t);
	return n;
}

colfs_node *colfs_tree_node(colfs_tree *t, uint64_t ino)
{
	colfs_node *n = NULL;
	uint32_t slot = (uint32_t)ino;
	colfs_tree_lock(t);
	if (slot >= 1 && slot <= t->nnodes)
		n = t->nodes[slot - 1];
	if (n && n->ino != ino)
		n = NULL;  /* released, its slot made again */
	colfs_tree_unlock(t);
	return n;
}

colfs_node *tree_node_new(colfs_tree *t, colfs_node *parent, char *name,
			  colfs_content kind)
{
	colfs_node *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	colfs_tree_lock(t);
	if (t->nfree) {
		uint32_t slot = t->free_slots[--t->nfree];

		t->nodes[slot] = n;
		n->ino = (uint64_t)t->epoch << 32 | (slot + 1u);
	} else if (t->nnodes < UINT32_MAX &&
		   colfs_grow((void **)&t->nodes, &t->capnodes,
			      t->nnodes + 1, sizeof *t->nodes)) {
		t->nodes[t->nnodes++] = n;
		n->ino = (uint64_t)t->epoch << 32 | t->nnodes;
	} else {
		colfs_tree_unlock(t);
		free(n);
		return NULL;
	}
	size_t alive = __atomic_add_fetch(&t->alive, 1, __ATOMIC_RELAXED);
	if (alive > t->alive_peak)
		__atomic_store_n(&t->alive_peak, alive, __ATOMIC_RELAXED);
	colfs_tree_unlock(t);
	n->name = name;
	n->parent = parent ? parent : n;
	n->kind = kind;
	n->doc_size = -1;
	return n;
}

void tree_node_free(colfs_node *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->kids);
	free(n->hidx);
	free(n->hidden);
	free(n->text);
	tree_dir_mem_free(n);
	if (n->stream) {
		pthread_mutex_destroy(&n->stream->lock);
		free(n->stream->ends);
		free(n->stream);
	}
	free(n);
}

/* Index of the child called `name`, or -1. */
long tree_dir_find(const colfs_node *dir, const char *name)
{
	if (!dir->hcap)
		return -1;
	size_t mask = dir->hcap - 1;
	for (size_t i = colfs_name_hash(name) & mask;; i = (i + 1) & mask) {
		uint32_t v = dir->hidx[i];
		if (!v)
			return -1;
		if (strcmp(dir->kids[v - 1]->name, name) == 0)
			return (long)v - 1;
	}
}

static bool dir_index_insert(colfs_node *dir, size_t kid)
{
	if ((dir->nkids + 1) * 2 > dir->hcap) {
		size_t nc = dir->hcap ? dir->hcap * 2 : 16;
		while ((dir->nkids + 1) * 2 > nc)
			nc *= 2;
		uint32_t *h = calloc(nc, sizeof *h);
		if (!h)
			return false;
		for (size_t k = 0; k < kid; k++) {
			size_t i = colfs_name_hash(dir->kids[k]->name) & (nc - 1);
			while (h[i])
				i = (i + 1) & (nc - 1);
			h[i] = (uint32_t)k + 1;
		}
		free(dir->hidx);
		dir->hidx = h;
		dir->hcap = nc;
	}
	size_t i = colfs_name_hash(dir->kids[kid]->name) & (dir->hcap - 1);
	while (dir->hidx[i])
		i = (i + 1) & (dir->hcap - 1);
	dir->hidx[i] = (uint32_t)kid + 1;
	return true;
}

/* A unique escaped name for a new child of `dir`: "name", then "name%1",
 * "name%2"... ('%' never stands alone in an escaped name). */
static char *unique_name(const colfs_node *dir, const char *raw)
{
	char *name = colfs_name_escape(raw);
	if (!name || tree_dir_find(dir, name) < 0)
		return name;
	char *alt = NULL;
	for (unsigned k = 1;; k++) {
		alt = colfs_name_repeat(name, k);
		if (!alt || tree_dir_find(dir, alt) < 0)
			break;
		free(alt);
	}
	free(name);
	return alt;
}

static colfs_node *dir_add(colfs_tree *t, colfs_node *dir, const char *raw,
			   colfs_content kind, const colfs_node_ops *ops,
			   void *ctx)
{
	colfs_node *n = NULL;
	colfs_tree_lock(t);
	if (dir->kind != COLFS_CONTENT_DIR)
		goto out;
	if (!colfs_grow((void **)&dir->kids, &dir->capkids, dir->nkids + 1,
		  sizeof *dir->kids))
		goto out;
	char *name = unique_name(dir, raw);
	if (!name)
		goto out;
	n = tree_node_new(t, dir, name, kind);
	if (!n) {
		free(name);
		goto out;
	}
	n->ops = ops;
	n->ctx = ctx;
	dir->kids[dir->nkids] = n;
	if (!dir_index_insert(dir, dir->nkids)) {
		/* The node stays in the table (freed at destroy) but unlisted. */
		n = NULL;
		goto out;
	}
	dir->nkids++;
out:
	colfs_tree_unlock(t);
	return n;
}

colfs_node *colfs_dir_add_named(colfs_tree *t, colfs_node *dir, char *name,
				colfs_content kind, bool hidden)
{
	colfs_node *n = NULL;
	colfs_tree_lock(t);
	if (dir->kind != COLFS_CONTENT_DIR)
		goto fail;
	if (hidden) {
		if (!colfs_grow((void **)&dir->hidden, &dir->caphidden,
				dir->nhidden + 1, sizeof *dir->hidden))
			goto fail;
		n = tree_node_new(t, dir, name, kind);
		if (!n)
			goto fail;
		dir->hidden[dir->nhidden++] = n;
		goto out;
	}
	if (!colfs_grow((void **)&dir->kids, &dir->capkids, dir->nkids + 1,
			sizeof *dir->kids))
		goto fail;
	n = tree_node_new(t, dir, name, kind);
	if (!n)
		goto fail;
	dir->kids[dir->nkids] = n;
	if (!dir_index_insert(dir, dir->nkids)) {
		n = NULL; /* in the table (freed at destroy), unlisted */
		goto out;
	}
	dir->nkids++;
	goto out;
fail:
	free(name);
out:
	colfs_tree_unlock(t);
	return n;
}

colfs_node *colfs_dir_add_dir(colfs_tree *t, colfs_node *dir,
			      const char *raw_name, const colfs_node_ops *ops,
			      void *ctx)
{
	return dir_add(t, dir, raw_name, COLFS_CONTENT_DIR, ops, ctx);
}

colfs_node *colfs_dir_add_range(colfs_tree *t, colfs_node *dir,
				const char *raw_name, uint64_t offset,
				uint64_t len)
{
	colfs_node *n = dir_add(t, dir, raw_name, COLFS_CONTENT_RANGE, NULL,
				NULL);
	if (n) {
		n->off = offset;
		n->len = len;
	}
	return n;
}

colfs_node *colfs_dir_add_doc(colfs_tree *t, colfs_node *dir,
			      const char *raw_name, const colfs_node_ops *ops,
			      void *ctx)
{
	return dir_add(t, dir, raw_name, COLFS_CONTENT_DOC, ops, ctx);
}

colfs_node *colfs_dir_add_text(colfs_tree *t, colfs_node *dir,
			       const char *raw_name, const char *text,
			       size_t len)
{
	char *copy = malloc(len + 1);
	if (!copy)
		return NULL;
	if (len)
		memcpy(copy, text, len);
	copy[len] = '\0';
	colfs_node *n = dir_add(t, dir, raw_name, COLFS_CONTENT_DOC, NULL,
				NULL);
	if (!n) {
		free(copy);
		return NULL;
	}
	n->text = copy;
	n->doc_size = (int64_t)len;
	return n;
}

colfs_node *colfs_dir_add_stream(colfs_tree *t, colfs_node *dir,
				 const char *raw_name,
				 const colfs_node_ops *ops, void *ctx)
{
	return dir_add(t, dir, raw_name, COLFS_CONTENT_STREAM, ops, ctx);
}

colfs_node *colfs_dir_add_sized_stream(colfs_tree *t, colfs_node *dir,
				       const char *raw_name,
				       const colfs_node_ops *ops, void *ctx,
				       uint64_t *ends, size_t n)
{
	stream_state *s = calloc(1, sizeof *s);
	colfs_node *f;

	if (!s) {
		free(ends);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->index_size = -1;
	s->index_checked = true;
	s->ends = ends;
	s->known = s->cap = n;
	s->complete = true;
	f = dir_add(t, dir, raw_name, COLFS_CONTENT_STREAM, ops, ctx);
	if (!f) {
		pthread_mutex_destroy(&s->lock);
		free(ends);
		free(s);
		return NULL;
	}
	f->mappable = true;
	__atomic_store_n(&f->stream, s, __ATOMIC_RELEASE);
	return f;
}

static colfs_status errors_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	colfs_node *dir = file->parent;
	/* A change of the source is found here too, not only by reads. */
	colfs_tree_source_check(t);
	colfs_tree_errors_render(t, dir == colfs_tree_root(t) ? NULL : dir,
				 out);
	return colfs_buf_status(out);
}

static const colfs_node_ops errors_ops = {
	.generate = errors_generate,
};

colfs_node *colfs_dir_add_errors(colfs_tree *t, colfs_node *dir)
{
	colfs_node *n = colfs_dir_add_doc(t, dir, "errors", &errors_ops, NULL);
	if (n)
		n->is_volatile = true;
	return n;
}

colfs_node *colfs_dir_add_summary(colfs_tree *t, colfs_node *dir,
				  const colfs_node_ops *ops, void *ctx)
{
	colfs_node *n = colfs_dir_add_doc(t, dir, "summary", ops, ctx);
	if (n) {
		n->is_volatile = true;
		n->is_summary = true;
	}
	return n;
}

colfs_node *colfs_dir_make_hidden(colfs_tree *t, colfs_node *dir,
				  const char *raw_name, colfs_content kind,
				  const colfs_node_ops *ops, void *ctx)
{
	colfs_node *n = NULL;
	colfs_tree_lock(t);
	char *name = colfs_name_escape(raw_name);
	if (!name)
		goto out;
	for (size_t i = 0; i < dir->nhidden; i++) {
		if (strcmp(dir->hidden[i]->name, name) == 0) {
			free(name);
			n = dir->hidden[i];
			goto out;
		}
	}
	if (!colfs_grow((void **)&dir->hidden, &dir->caphidden, dir->nhidden + 1,
		  sizeof *dir->hidden)) {
		free(name);
		goto out;
	}
	n = tree_node_new(t, dir, name, kind);
	if (!n) {
		free(name);
		goto out;
	}
	n->ops = ops;
	n->ctx = ctx;
	dir->hidden[dir->nhidden++] = n;
out:
	colfs_tree_unlock(t);
	return n;
}

void colfs_node_set_ops(colfs_node *n, const colfs_node_ops *ops, void *ctx)
{
	n->ops = ops;
	n->ctx = ctx;
}

void colfs_node_set_volatile(colfs_node *n)
{
	n->is_volatile = true;
}

void colfs_node_set_size_when_read(colfs_node *n)
{
	n->size_when_read = true;
}

bool colfs_node_size_when_read(const colfs_node *n)
{
	return n->size_when_read;
}

void *colfs_node_ctx(const colfs_node *n)
{
	return n->ctx;
}

void colfs_node_set_args(colfs_node *n, uint64_t a, uint64_t b, uint64_t c)
{
	n->a = a;
	n->b = b;
	n->c = c;
}

uint64_t colfs_node_a(const colfs_node *n)
{
	return n->a;
}

uint64_t colfs_node_b(const colfs_node *n)
{
	return n->b;
}

uint64_t colfs_node_c(const colfs_node *n)
{
	return n->c;
}

uint64_t colfs_node_ino(const colfs_node *n)
{
	return n->ino;
}

const char *colfs_node_name(const colfs_node *n)
{
	return n->name;
}

colfs_node *colfs_node_parent(const colfs_node *n)
{
	return n->parent;
}

colfs_content colfs_node_content(const colfs_node *n)
{
	return n->kind;
}

bool colfs_node_is_volatile(const colfs_node *n)
{
	return n->is_volatile;
}

void colfs_node_set_derived(colfs_node *n)
{
	if (n)
		n->derived = true;
}

bool colfs_node_is_derived(const colfs_node *n)
{
	return n->derived;
}

bool colfs_node_is_mappable(const colfs_node *n)
{
	return n->mappable;
}

void colfs_node_path(const colfs_node *n, char *buf, size_t len)
{
	const colfs_node *chain[256];
	size_t depth = 0;
	if (!len)
		return;
	for (const colfs_node *p = n; p->parent != p && depth < 256;
	     p = p->parent)
		chain[depth++] = p;
	size_t j = 0;
	buf[0] = '\0';
	if (depth == 0) {
		snprintf(buf, len, "/");
		return;
	}
	while (depth > 0 && j < len) {
		int w = snprintf(buf + j, len - j, "/%s", chain[--depth]->name);
		if (w < 0)
			break;
		j += (size_t)w;
	}
}

/* ------------------------------------------------------------------------
 * Problems of a node (problems.c keeps the list, by tree path)
 */
void colfs_tree_report(colfs_tree *t, const colfs_node *where, uint64_t offset,
		       colfs_status st, const char *fmt, ...)
{
	char path[4096];
	va_list ap;

	if (where)
		colfs_node_path(where, path, sizeof path);
	else
		snprintf(path, sizeof path, "/");
	va_start(ap, fmt);
	colfs_tree_report_vpath(t, path, offset, st, fmt, ap);
	va_end(ap);
}

void colfs_tree_report_err(colfs_tree *t, const colfs_node *where,
			   const colfs_err *err)
{
	colfs_tree_report(t, where, err->offset, err->status, "%s", err->msg);
}

void colfs_tree_errors_render(colfs_tree *t, const colfs_node *under,
			      colfs_buf *out)
{
	char dir[4096];

	if (under)
		colfs_node_path(under, dir, sizeof dir);
	colfs_tree_errors_render_path(t, under ? dir : NULL, out);
}

/* ------------------------------------------------------------------------
 * JSON
 */
colfs_status colfs_buf_json(colfs_buf *out, struct json_t *value)
{
	if (!value)
		return COLFS_ENOMEM;
	char *s = json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(value);
	if (!s)
		return COLFS_ENOMEM;
	colfs_buf_puts(out, s);
	colfs_buf_putc(out, '\n');
	free(s);
	return colfs_buf_status(out);
}

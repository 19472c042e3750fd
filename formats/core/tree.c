/* colfs: the tree model.
 *
 * Nodes are created lazily (a directory's children on first listing) and
 * then live until the tree is destroyed (or an offline reader releases
 * them, colfs_dir_release), so a node pointer never dangles and an inode
 * number (its slot in the node table + 1, root = 1; a released slot made
 * again gets the next epoch in its upper 32 bits) never changes.  A directory's child array is never modified once populated, so
 * readdir offsets (index + 1) stay stable for the life of the mount.
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
 * files below), problems.c (the error list), tree_sizes.c (the size
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

/* The piece-cache key of a document's bytes. */
#define DOC_PIECE UINT64_MAX

struct colfs_handle {
	colfs_tree *t;
	colfs_node *n;
	colfs_blob *doc;
	colfs_ahead_reader *ahead;   /* a concurrent stream's reader */
	/* A proxy's (ops->forward): the other tree and its node's handle. */
	colfs_tree *guest;
	colfs_handle *inner;
};

/* A proxy file (a graft's, graft.c): its size, opens and reads are those
 * of the node it finds.  (A proxy directory forwards its xattrs only.) */
static bool node_forwards(const colfs_node *n)
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

static void dir_mem_free(colfs_node *dir)
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

static colfs_node *node_new(colfs_tree *t, colfs_node *parent, char *name,
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

static void node_free(colfs_node *n)
{
	if (!n)
		return;
	free(n->name);
	free(n->kids);
	free(n->hidx);
	free(n->hidden);
	free(n->text);
	dir_mem_free(n);
	if (n->stream) {
		pthread_mutex_destroy(&n->stream->lock);
		free(n->stream->ends);
		free(n->stream);
	}
	free(n);
}

/* Index of the child called `name`, or -1. */
static long dir_find(const colfs_node *dir, const char *name)
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
	if (!name || dir_find(dir, name) < 0)
		return name;
	size_t n = strlen(name);
	char *alt = malloc(n + 24);
	if (!alt) {
		free(name);
		return NULL;
	}
	for (unsigned k = 1;; k++) {
		snprintf(alt, n + 24, "%s%%%u", name, k);
		if (dir_find(dir, alt) < 0)
			break;
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
	n = node_new(t, dir, name, kind);
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
		n = node_new(t, dir, name, kind);
		if (!n)
			goto fail;
		dir->hidden[dir->nhidden++] = n;
		goto out;
	}
	if (!colfs_grow((void **)&dir->kids, &dir->capkids, dir->nkids + 1,
			sizeof *dir->kids))
		goto fail;
	n = node_new(t, dir, name, kind);
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

/* The lines a summary starts with when the source is no longer what was
 * mounted: changed in place (every read fails), or its path now names
 * another file or nothing (the mount goes on serving the open one). */
static void tree_source_note(colfs_tree *t, colfs_buf *out)
{
	colfs_err e = {0};
	struct stat st;

	if (colfs_source_check(t->src, &e) != COLFS_OK ||
	    colfs_tree_format_check(t, true, &e) != COLFS_OK) {
		colfs_tree_file_change(t);
		colfs_buf_printf(out, "%s\n", e.msg);
		return;
	}
	if (!t->source_path)
		return;
	if (stat(t->source_path, &st) != 0)
		colfs_buf_printf(out, "source: %s: %s since mount; this mount "
				 "still serves the file that was opened then\n",
				 t->source_path,
				 errno == ENOENT ? "removed or renamed"
						 : strerror(errno));
	else if (st.st_dev != t->src_dev || st.st_ino != t->src_ino)
		colfs_buf_printf(out, "source: %s was replaced since mount "
				 "(now inode %llu, was %llu); this mount still "
				 "serves the file that was opened then: remount "
				 "to see the new one\n",
				 t->source_path, (unsigned long long)st.st_ino,
				 (unsigned long long)t->src_ino);
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
	n = node_new(t, dir, name, kind);
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
 * Directories
 */
/* The root `io` of a remote source (source.h): requests, bytes, cache;
 * made again at every open. */
static colfs_status io_generate(colfs_tree *t, colfs_node *file,
				colfs_buf *out)
{
	(void)file;
	return colfs_source_io(t->src, out);
}

static const colfs_node_ops io_ops = {
	.generate = io_generate,
};

static bool node_is_root(const colfs_node *n)
{
	return n->parent == n;
}

/* The list of populated directories, least recently used first (tree
 * locked). */
static bool listed_has(const colfs_tree *t, const colfs_node *d)
{
	return d->listed_prev || t->listed_first == d;
}

static void listed_append(colfs_tree *t, colfs_node *d)
{
	d->listed_next = NULL;
	d->listed_prev = t->listed_last;
	if (t->listed_last)
		t->listed_last->listed_next = d;
	else
		t->listed_first = d;
	t->listed_last = d;
	t->nlisted++;
}

static void listed_unlink(colfs_tree *t, colfs_node *d)
{
	if (!listed_has(t, d))
		return;
	if (d->listed_prev)
		d->listed_prev->listed_next = d->listed_next;
	else
		t->listed_first = d->listed_next;
	if (d->listed_next)
		d->listed_next->listed_prev = d->listed_prev;
	else
		t->listed_last = d->listed_prev;
	d->listed_prev = d->listed_next = NULL;
	t->nlisted--;
}

/* `d` is used (listed, opened): it and its ancestors that are listed
 * become the newest, the ancestors last (tree locked).  So a directory
 * is never older than one under it, and the oldest are those whose
 * subtrees a walk left longest ago, never the ancestors of where it is
 * (colfs_tree_pick_listings). */
static void listed_use(colfs_tree *t, colfs_node *d)
{
	uint64_t now = ++t->uses;

	for (colfs_node *a = d; !node_is_root(a); a = a->parent) {
		if (!__atomic_load_n(&a->populated, __ATOMIC_RELAXED))
			continue;
		listed_unlink(t, a);
		listed_append(t, a);
		a->used = now;
		a->drop_asked = false;
	}
}

/* A node about to be freed knew a size that would be costly to learn
 * again (a document a stat does not make, a stream read to its end when
 * no size index keeps it): kept by tree path for the node made again
 * (tree locked; out of memory: not kept, it is learnt again). */
static void node_keep_size(colfs_tree *t, const colfs_node *n)
{
	uint64_t size;
	char path[4096];

	if (n->is_volatile || node_forwards(n))
		return;
	if (n->kind == COLFS_CONTENT_DOC && n->size_when_read &&
	    __atomic_load_n(&n->doc_size, __ATOMIC_ACQUIRE) >= 0) {
		size = (uint64_t)n->doc_size;
	} else if (n->kind == COLFS_CONTENT_STREAM && !t->sizes &&
		   n->stream &&
		   __atomic_load_n(&n->stream->complete, __ATOMIC_ACQUIRE)) {
		size = n->stream->known ? n->stream->ends[n->stream->known - 1]
					: 0;
	} else {
		return;
	}
	/* made under the tree lock (the only writer); read without it
	 * (node_kept_size), so published with a release store, and never
	 * freed before the tree: a generation full, the other is emptied
	 * (its sizes are learnt again, if ever needed) and takes the new */
	colfs_sizeindex *ix = t->freed_sizes[t->freed_cur];
	if (ix && colfs_sizeindex_count(ix) >= t->freed_half) {
		t->freed_cur ^= 1;
		ix = t->freed_sizes[t->freed_cur];
		if (ix)
			colfs_sizeindex_clear(ix);
	}
	if (!ix) {
		if (!(ix = colfs_sizeindex_create("freed nodes")))
			return;
		__atomic_store_n(&t->freed_sizes[t->freed_cur], ix,
				 __ATOMIC_RELEASE);
	}
	colfs_node_path(n, path, sizeof path);
	colfs_sizeindex_put(ix, path, size);
}

/* The size node_keep_size kept for `n` (tree path), if any. */
static bool node_kept_size(colfs_tree *t, const colfs_node *n,
			   uint64_t *size)
{
	char path[4096];
	bool pathed = false;

	for (unsigned g = 0; g < 2; g++) {
		colfs_sizeindex *ix = __atomic_load_n(&t->freed_sizes[g],
						      __ATOMIC_ACQUIRE);
		if (!ix)
			continue;
		if (!pathed)
			colfs_node_path(n, path, sizeof path);
		pathed = true;
		if (colfs_sizeindex_get(ix, path, size))
			return true;
	}
	return false;
}

size_t colfs_tree_kept_sizes(colfs_tree *t)
{
	size_t n = 0;

	for (unsigned g = 0; g < 2; g++) {
		colfs_sizeindex *ix = __atomic_load_n(&t->freed_sizes[g],
						      __ATOMIC_ACQUIRE);
		if (ix)
			n += colfs_sizeindex_count(ix);
	}
	return n;
}

static colfs_status dir_populate(colfs_tree *t, colfs_node *dir)
{
	if (__atomic_load_n(&dir->populated, __ATOMIC_ACQUIRE))
		return dir->nkids ? COLFS_OK : dir->populate_st;
	colfs_status st = COLFS_OK;
	colfs_tree_lock(t);
	if (!dir->populated) {
		if (dir->ops && dir->ops->populate)
			st = dir->ops->populate(t, dir);
		if (dir == colfs_tree_root(t) && t->has_io) {
			colfs_node *io = colfs_dir_add_doc(t, dir, "io", &io_ops,
							   NULL);
			if (io)
				io->is_volatile = true;
		}
		if (st != COLFS_OK && dir->nkids > 0)
			st = COLFS_OK; /* show what could be produced */
		/* An empty failed directory answers the same error every
		 * time. */
		dir->populate_st = st;
		__atomic_store_n(&dir->populated, 1, __ATOMIC_RELEASE);
		if (dir != t->nodes[0])
			listed_use(t, dir);
	}
	if (dir->nkids == 0)
		st = dir->populate_st;
	colfs_tree_unlock(t);
	return st;
}

colfs_status colfs_dir_list(colfs_tree *t, colfs_node *dir,
			    colfs_node *const **kids, size_t *n)
{
	*kids = NULL;
	*n = 0;
	if (dir->kind != COLFS_CONTENT_DIR)
		return COLFS_ENOENT;
	COLFS_TRY(dir_populate(t, dir));
	*kids = dir->kids;
	*n = dir->nkids;
	return COLFS_OK;
}

/* Is a handle open on a node under `dir` (its children, theirs...)? */
static bool subtree_open(const colfs_node *dir)
{
	for (size_t i = 0; i < dir->nkids + dir->nhidden; i++) {
		const colfs_node *k = i < dir->nkids ? dir->kids[i]
						     : dir->hidden[i - dir->nkids];
		if (__atomic_load_n(&k->opens, __ATOMIC_RELAXED) ||
		    (k->kind == COLFS_CONTENT_DIR && subtree_open(k)))
			return true;
	}
	return false;
}

/* Free the nodes under `dir` and forget its listing (tree locked); with
 * `keep_sizes`, the costly sizes they knew are kept (node_keep_size). */
static void subtree_free(colfs_tree *t, colfs_node *dir, bool keep_sizes)
{
	for (size_t i = 0; i < dir->nkids + dir->nhidden; i++) {
		colfs_node *k = i < dir->nkids ? dir->kids[i]
					       : dir->hidden[i - dir->nkids];
		if (k->kind == COLFS_CONTENT_DIR)
			subtree_free(t, k, keep_sizes);
		if (k->ops && k->ops->release)
			k->ops->release(t, k);
		if (k == t->svg_layout) {
			t->svg_lines_free(t->svg_lines);
			t->svg_lines = NULL;
			t->svg_layout = NULL;
		}
		if (keep_sizes)
			node_keep_size(t, k);
		t->nodes[(uint32_t)k->ino - 1] = NULL;
		__atomic_sub_fetch(&t->alive, 1, __ATOMIC_RELAXED);
		/* room was made when the directory was listed */
		t->free_slots[t->nfree++] = (uint32_t)k->ino - 1;
		node_free(k);
	}
	free(dir->kids);
	free(dir->hidx);
	free(dir->hidden);
	dir_mem_free(dir);
	dir->kids = dir->hidden = NULL;
	dir->hidx = NULL;
	dir->nkids = dir->capkids = dir->hcap = 0;
	dir->nhidden = dir->caphidden = 0;
	dir->populate_st = COLFS_OK;
	listed_unlink(t, dir);
	__atomic_store_n(&dir->populated, 0, __ATOMIC_RELEASE);
}

colfs_status colfs_dir_release(colfs_tree *t, colfs_node *dir)
{
	colfs_status st = COLFS_OK;

	if (dir->kind != COLFS_CONTENT_DIR)
		return COLFS_ENOENT;
	/* a worker decoding ahead may still hold a stream of it: no reader
	 * is left once its handles are closed, so none starts another */
	colfs_ahead_quiesce(t->ahead);
	colfs_tree_lock(t);
	if (subtree_open(dir)) {
		st = COLFS_EIO;
	} else if (__atomic_load_n(&dir->populated, __ATOMIC_ACQUIRE)) {
		/* the free slots never outnumber the table; the last epoch
		 * (after 4G releases) frees its slots for good */
		if (t->epoch == UINT32_MAX ||
		    !colfs_grow((void **)&t->free_slots, &t->capfree,
				t->nnodes, sizeof *t->free_slots)) {
			colfs_tree_unlock(t);
			return COLFS_ENOMEM;
		}
		subtree_free(t, dir, false);
		t->epoch++;
	}
	colfs_tree_unlock(t);
	return st;
}

/* ------------------------------------------------------------------------
 * A mount's lookups: the kernel holds a node from each reply that names
 * it until its FORGET; a directory whose nodes below it are neither held
 * nor open has its children freed, and listed again when next asked.
 */
/* `n` is held `count` more times (tree locked). */
static void node_ref_locked(colfs_node *n, uint64_t count)
{
	if (!count)
		return;
	if (n->nlookup == 0)
		for (colfs_node *a = n; !node_is_root(a);) {
			a = a->parent;
			a->held++;
		}
	n->nlookup += count;
}

void colfs_nodes_ref(colfs_tree *t, colfs_node *const *nodes, size_t n)
{
	colfs_tree_lock(t);
	for (size_t i = 0; i < n; i++)
		node_ref_locked(nodes[i], 1);
	colfs_tree_unlock(t);
}

colfs_status colfs_dir_lookup_ref(colfs_tree *t, colfs_node *dir,
				  const char *name, colfs_node **out)
{
	colfs_tree_lock(t);
	colfs_status st = colfs_dir_lookup(t, dir, name, out);
	if (st == COLFS_OK)
		node_ref_locked(*out, 1);
	colfs_tree_unlock(t);
	return st;
}

/* The directory whose children may be freed now that `n` (a node or a
 * directory's handle) is no longer held: the highest of n and its
 * ancestors, below the root, with nothing held under it (0: none).
 * Whether anything under it is open is checked when it is freed. */
static uint64_t unused_above(colfs_tree *t, colfs_node *n)
{
	colfs_node *top = NULL;

	(void)t;
	if (node_is_root(n) || n->held)
		return 0;
	for (colfs_node *a = n; !node_is_root(a) && a->held == 0;
	     a = a->parent)
		top = a;
	return top && top->kind == COLFS_CONTENT_DIR &&
			       __atomic_load_n(&top->populated,
					       __ATOMIC_ACQUIRE)
		       ? top->ino
		       : 0;
}

size_t colfs_tree_forget(colfs_tree *t, const uint64_t *ino,
			 const uint64_t *count, size_t n, uint64_t *dirs)
{
	size_t ndirs = 0;

	colfs_tree_lock(t);
	for (size_t i = 0; i < n; i++) {
		colfs_node *k = colfs_tree_node(t, ino[i]);
		uint64_t dir;

		if (!k || !k->nlookup)
			continue;
		k->nlookup -= count[i] < k->nlookup ? count[i] : k->nlookup;
		if (k->nlookup)
			continue;
		for (colfs_node *a = k; !node_is_root(a);) {
			a = a->parent;
			a->held--;
		}
		dir = unused_above(t, k);
		/* the nodes of one batch are often siblings: once each */
		if (dir && (!ndirs || dirs[ndirs - 1] != dir))
			dirs[ndirs++] = dir;
	}
	colfs_tree_unlock(t);
	return ndirs;
}

void colfs_dir_opened(colfs_tree *t, colfs_node *dir)
{
	/* under the lock: a release checks and frees under it, so it has
	 * freed before (the listing is made again) or sees the handle */
	colfs_tree_lock(t);
	__atomic_add_fetch(&dir->opens, 1, __ATOMIC_RELAXED);
	listed_use(t, dir);
	colfs_tree_unlock(t);
}

uint64_t colfs_dir_closed(colfs_tree *t, colfs_node *dir)
{
	uint64_t up;

	colfs_tree_lock(t);
	__atomic_sub_fetch(&dir->opens, 1, __ATOMIC_RELAXED);
	up = unused_above(t, dir);
	colfs_tree_unlock(t);
	return up;
}

bool colfs_tree_release_unused(colfs_tree *t, uint64_t ino, uint64_t *held)
{
	bool freed = false;

	if (held)
		*held = 0;

	/* as colfs_dir_release: no worker may hold a node freed below */
	colfs_ahead_quiesce(t->ahead);
	colfs_tree_lock(t);
	colfs_node *dir = colfs_tree_node(t, ino), *asked = dir;
	/* the kernel forgets a pruned subtree from its leaves up: by now
	 * an ancestor may be unused too, and freed at once (one listing
	 * made again, not one per directory under it); unless something
	 * beside `ino` is open under it */
	while (dir && dir->kind == COLFS_CONTENT_DIR && !node_is_root(dir) &&
	       !node_is_root(dir->parent) &&
	       dir->held == 0 && dir->parent->held == 0 &&
	       __atomic_load_n(&dir->parent->opens, __ATOMIC_RELAXED) == 0)
		dir = dir->parent;
	if (dir != asked && subtree_open(dir))
		dir = asked;
	if (dir && dir->kind == COLFS_CONTENT_DIR && !node_is_root(dir) &&
	    dir->held == 0 &&
	    __atomic_load_n(&dir->opens, __ATOMIC_RELAXED) == 0 &&
	    __atomic_load_n(&dir->populated, __ATOMIC_ACQUIRE) &&
	    !subtree_open(dir) && t->epoch < UINT32_MAX &&
	    colfs_grow((void **)&t->free_slots, &t->capfree, t->nnodes,
		       sizeof *t->free_slots)) {
		subtree_free(t, dir, true);
		t->epoch++;
		freed = true;
		if (held && dir->nlookup)
			*held = dir->ino;
	}
	colfs_tree_unlock(t);
	return freed;
}

size_t colfs_tree_nodes_alive(const colfs_tree *t, size_t *peak)
{
	if (peak)
		*peak = __atomic_load_n(&t->alive_peak, __ATOMIC_RELAXED);
	return __atomic_load_n(&t->alive, __ATOMIC_RELAXED);
}

bool colfs_tree_file_inos(colfs_tree *t, uint64_t **out, size_t *n)
{
	size_t k = 0;

	*out = NULL;
	*n = 0;
	colfs_tree_lock(t);
	uint64_t *v = malloc((t->nnodes ? t->nnodes : 1) * sizeof *v);
	if (v) {
		for (size_t i = 0; i < t->nnodes; i++)
			if (t->nodes[i] && t->nodes[i]->kind != COLFS_CONTENT_DIR)
				v[k++] = t->nodes[i]->ino;
		*out = v;
		*n = k;
	}
	colfs_tree_unlock(t);
	return v != NULL;
}

/* The nodes alive under `dir` (tree locked). */
static size_t nodes_below(const colfs_node *dir)
{
	size_t n = dir->nkids + dir->nhidden;

	for (size_t i = 0; i < dir->nkids + dir->nhidden; i++) {
		const colfs_node *k = i < dir->nkids ? dir->kids[i]
						     : dir->hidden[i - dir->nkids];
		if (k->kind == COLFS_CONTENT_DIR &&
		    __atomic_load_n(&k->populated, __ATOMIC_RELAXED))
			n += nodes_below(k);
	}
	return n;
}

/* Was `d` or a directory above it given already (tree locked)? */
static bool listing_asked(const colfs_node *d)
{
	for (const colfs_node *a = d; !node_is_root(a); a = a->parent)
		if (a->drop_asked)
			return true;
	return false;
}

size_t colfs_tree_pick_listings(colfs_tree *t, size_t want,
				colfs_listing *out, size_t max)
{
	size_t n = 0;

	colfs_tree_lock(t);
	uint64_t fence = t->uses > COLFS_RECENT_USES
				 ? t->uses - COLFS_RECENT_USES
				 : 0;
	for (colfs_node *d = t->listed_first; d && want && n < max;
	     d = d->listed_next) {
		if (listing_asked(d))
			continue;  /* its nodes are being forgotten */
		/* The list is in order of use, and a directory is used with
		 * the one under it: the highest directory above `d` that
		 * was not used lately holds nothing used lately either (a
		 * subtree a walk has left), and is dropped whole.  Past the
		 * old ones, the recent are given one by one, oldest first,
		 * while the budget still asks for more. */
		colfs_node *a = d;
		if (d->used <= fence)
			while (!node_is_root(a->parent) &&
			       a->parent->used <= fence)
				a = a->parent;
		char *name = strdup(a->name);
		if (!name)
			break;
		a->drop_asked = true;
		out[n].parent = a->parent->ino;
		out[n].name = name;
		out[n].nodes = nodes_below(a);
		want = want > out[n].nodes ? want - out[n].nodes : 0;
		n++;
	}
	colfs_tree_unlock(t);
	return n;
}

colfs_status colfs_dir_lookup(colfs_tree *t, colfs_node *dir, const char *name,
			      colfs_node **out)
{
	*out = NULL;
	if (dir->kind != COLFS_CONTENT_DIR)
		return COLFS_ENOENT;
	if (strcmp(name, ".") == 0) {
		*out = dir;
		return COLFS_OK;
	}
	if (strcmp(name, "..") == 0) {
		*out = dir->parent;
		return COLFS_OK;
	}
	COLFS_TRY(dir_populate(t, dir));
	long i = dir_find(dir, name);
	if (i >= 0) {
		*out = dir->kids[i];
		return COLFS_OK;
	}
	if (!dir->ops || !dir->ops->lookup)
		return COLFS_ENOENT;
	colfs_tree_lock(t);
	for (size_t k = 0; k < dir->nhidden; k++) {
		if (strcmp(dir->hidden[k]->name, name) == 0) {
			*out = dir->hidden[k];
			colfs_tree_unlock(t);
			return COLFS_OK;
		}
	}
	colfs_status st = dir->ops->lookup(t, dir, name, out);
	colfs_tree_unlock(t);
	return st;
}

colfs_status colfs_tree_resolve(colfs_tree *t, const char *path,
				colfs_node **out)
{
	colfs_node *n = colfs_tree_root(t);
	char comp[4096];
	const char *p = path;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t len = strcspn(p, "/");
		if (len >= sizeof comp)
			return COLFS_ENOENT;
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		COLFS_TRY(colfs_dir_lookup(t, n, comp, &n));
	}
	*out = n;
	return COLFS_OK;
}

/* ------------------------------------------------------------------------
 * Documents
 */
static colfs_status doc_render(colfs_tree *t, colfs_node *n, colfs_blob **out)
{
	colfs_buf buf = COLFS_BUF_INIT;
	colfs_status st;
	*out = NULL;
	if (n->text) {
		/* (doc_get stores it again, the same, on another thread) */
		colfs_buf_append(&buf, n->text,
				 (size_t)__atomic_load_n(&n->doc_size,
							 __ATOMIC_ACQUIRE));
		st = colfs_buf_status(&buf);
	} else if (!n->ops || !n->ops->generate) {
		st = COLFS_EUNSUPPORTED;
	} else {
		colfs_tree_lock(t);
		if (n->is_summary)
			tree_source_note(t, &buf);
		size_t note = buf.len;
		uint64_t reads = colfs_source_reads(t->src);
		st = n->ops->generate(t, n, &buf);
		colfs_tree_unlock(t);
		if (st == COLFS_OK)
			st = colfs_buf_status(&buf);
		/* Made of old bytes only if the source is unchanged now
		 * (source.h); not kept otherwise.  A document made of
		 * metadata already read needs no check. */
		if (st == COLFS_OK && !n->is_volatile &&
		    colfs_source_reads(t->src) != reads)
			st = colfs_tree_source_check(t);
		/* The summary of a changed source says so even when the
		 * rest cannot be made. */
		if (st != COLFS_OK && st != COLFS_ENOMEM && note > 0 &&
		    colfs_source_changed(t->src)) {
			buf.len = note;
			st = COLFS_OK;
		}
	}
	if (st != COLFS_OK) {
		colfs_buf_free(&buf);
		return st;
	}
	colfs_blob *b = colfs_blob_from_buf(n->ino, DOC_PIECE, &buf);
	if (!b) {
		colfs_buf_free(&buf);
		return COLFS_ENOMEM;
	}
	*out = b;
	return COLFS_OK;
}

/* A referenced colfs_blob with the document's bytes. */
static colfs_status doc_get(colfs_tree *t, colfs_node *n, colfs_blob **out)
{
	if (!n->is_volatile) {
		*out = colfs_piece_cache_get(&t->cache, n->ino, DOC_PIECE);
		if (*out)
			return COLFS_OK;
	}
	COLFS_TRY(doc_render(t, n, out));
	__atomic_store_n(&n->doc_size, (int64_t)(*out)->len, __ATOMIC_RELEASE);
	if (!n->is_volatile && !n->text) {
		/* Another thread may have rendered it too: keep one. */
		colfs_blob *other = colfs_piece_cache_get(&t->cache, n->ino, DOC_PIECE);
		if (other) {
			colfs_blob_free(*out);
			*out = other;
		} else {
			colfs_piece_cache_put(&t->cache, *out);
		}
	}
	return COLFS_OK;
}

/* ------------------------------------------------------------------------
 * Streams
 */
static stream_state *stream_of(colfs_tree *t, colfs_node *n)
{
	stream_state *s = __atomic_load_n(&n->stream, __ATOMIC_ACQUIRE);
	if (s)
		return s;
	colfs_tree_lock(t);
	if (!n->stream) {
		s = calloc(1, sizeof *s);
		if (s) {
			pthread_mutex_init(&s->lock, NULL);
			s->index_size = -1;
			__atomic_store_n(&n->stream, s, __ATOMIC_RELEASE);
		}
	}
	s = n->stream;
	colfs_tree_unlock(t);
	return s;
}

/* Render piece `i` of stream `n` into a blob not in the cache yet. */
static colfs_status piece_make(colfs_tree *t, colfs_node *n, uint64_t i,
			       colfs_blob **out)
{
	colfs_buf buf = COLFS_BUF_INIT;
	uint64_t reads = colfs_source_reads(t->src);
	colfs_status st = !n->ops ? COLFS_EUNSUPPORTED
			  : n->ops->piece ? n->ops->piece(t, n, i, &buf)
			  /* a report: one piece, made whole by generate */
			  : n->ops->generate ? (i > 0 ? COLFS_END
						     : n->ops->generate(t, n, &buf))
			  : COLFS_EUNSUPPORTED;
	*out = NULL;
	if (st == COLFS_OK)
		st = colfs_buf_status(&buf);
	/* Decoded from old bytes only if the source is unchanged now
	 * (source.h): a piece (or an end) read across a change is never
	 * kept nor served. */
	if ((st == COLFS_OK || st == COLFS_END) &&
	    colfs_source_reads(t->src) != reads) {
		colfs_status cs = colfs_tree_source_check(t);
		if (cs)
			st = cs;
	}
	if (st != COLFS_OK) {
		colfs_buf_free(&buf);
		return st;
	}
	*out = colfs_blob_from_buf(n->ino, i, &buf);
	if (!*out) {
		colfs_buf_free(&buf);
		return COLFS_ENOMEM;
	}
	__atomic_add_fetch(&t->pieces_rendered, 1, __ATOMIC_RELAXED);
	return COLFS_OK;
}

/* A worker's job (ahead.c): piece `i` into the cache, unless there. */
static void stream_render_ahead(colfs_tree *t, colfs_node *n, uint64_t i)
{
	colfs_blob *b = colfs_piece_cache_get(&t->cache, n->ino, i);

	if (!b && piece_make(t, n, i, &b) == COLFS_OK)
		b = colfs_piece_cache_put_once(&t->cache, b);
	colfs_piece_cache_release(&t->cache, b);
}

/* The tree's workers, started on first use (NULL: none). */
static colfs_ahead *tree_ahead(colfs_tree *t)
{
	if (__atomic_load_n(&t->ahead_tried, __ATOMIC_ACQUIRE))
		return t->ahead;
	colfs_tree_lock(t);
	if (!t->ahead_tried) {
		int k = t->opts.decode_threads;
		if (k == 0)
			k = (int)colfs_cpus();
		if (k > 0)
			t->ahead = colfs_ahead_create(t, (unsigned)k,
						      t->opts.cache_bytes,
						      stream_render_ahead);
		__atomic_store_n(&t->ahead_tried, true, __ATOMIC_RELEASE);
	}
	colfs_tree_unlock(t);
	return t->ahead;
}

bool colfs_tree_background(colfs_tree *t,
			   void (*fn)(colfs_tree *t, void *arg, bool run),
			   void *arg)
{
	colfs_ahead *a = tree_ahead(t);

	return a && colfs_ahead_task(a, fn, arg);
}

/* The tree's workers if they were started (NULL: none, or not yet). */
static colfs_ahead *tree_ahead_started(colfs_tree *t)
{
	return __atomic_load_n(&t->ahead_tried, __ATOMIC_ACQUIRE) ? t->ahead
								  : NULL;
}

size_t colfs_tree_pieces_rendering(colfs_tree *t, const colfs_node *n,
				   uint64_t lo, uint64_t hi, uint64_t *out,
				   size_t max)
{
	colfs_ahead *a = tree_ahead_started(t);

	return a ? colfs_ahead_rendering(a, n->ino, lo, hi, out, max) : 0;
}

void colfs_tree_piece_wait_left(colfs_tree *t, const colfs_node *n,
				uint64_t i)
{
	colfs_ahead *a = tree_ahead_started(t);

	if (a)
		colfs_ahead_wait_left(a, n->ino, i);
}

size_t colfs_part_of_piece(const uint64_t *first, size_t n, uint64_t i)
{
	size_t lo = 0, hi = n ? n - 1 : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		if (first[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

void colfs_tree_count_page(colfs_tree *t)
{
	if (t)
		__atomic_add_fetch(&t->pages_decoded, 1, __ATOMIC_RELAXED);
}

void colfs_tree_stats_get(const colfs_tree *t, colfs_tree_stats *out)
{
	memset(out, 0, sizeof *out);
	if (!t)
		return;
	out->pages_decoded = __atomic_load_n(&t->pages_decoded, __ATOMIC_RELAXED);
	out->pieces_rendered = __atomic_load_n(&t->pieces_rendered,
					       __ATOMIC_RELAXED);
	for (size_t i = 0; i < t->ngrafts; i++) {
		colfs_tree_stats g;
		colfs_tree_stats_get(t->grafts[i], &g);
		out->pages_decoded += g.pages_decoded;
		out->pieces_rendered += g.pieces_rendered;
	}
}

bool colfs_tree_mem_charge(colfs_tree *t, uint64_t bytes)
{
	/* cap: set when the cache is made, never changed (buckets is moved
	 * when the cache grows, under its lock) */
	return t->cache.cap && colfs_piece_cache_charge(&t->cache, bytes);
}

void colfs_tree_mem_uncharge(colfs_tree *t, uint64_t bytes)
{
	if (t->cache.cap)
		colfs_piece_cache_uncharge(&t->cache, bytes);
}

colfs_piece_cache *colfs_tree_bufs(colfs_tree *t)
{
	return t && t->cache.cap ? &t->cache : NULL;
}

/* Render piece `i` of a stream (or find it in the cache) and learn its
 * length when it is the first not known; returns a referenced colfs_blob.
 * Called with the stream lock held. */
static colfs_status stream_render(colfs_tree *t, colfs_node *n,
				  stream_state *s, size_t i, colfs_blob **out)
{
	colfs_blob *b = colfs_piece_cache_get(&t->cache, n->ino, i);
	colfs_status st;

	/* A worker rendering it: wait rather than render it twice.  Look
	 * again even when nothing was waited for: a worker may have put it
	 * in the cache and left since the first look. */
	bool mine = false;
	if (!b && t->ahead) {
		mine = !colfs_ahead_wait(t->ahead, n->ino, i);
		b = colfs_piece_cache_get(&t->cache, n->ino, i);
	}
	if (!b) {
		st = piece_make(t, n, i, &b);
		if (mine)
			colfs_ahead_done(t->ahead, n->ino, i);
		if (st != COLFS_OK) {
			if (st == COLFS_END && i < s->known)
				st = COLFS_ECORRUPT; /* rendered differently than before */
			return st;
		}
		b = colfs_piece_cache_put_once(&t->cache, b);
	} else if (mine) {
		colfs_ahead_done(t->ahead, n->ino, i);
	}
	if (i < s->known) {
		uint64_t start = i ? s->ends[i - 1] : 0;
		if (s->ends[i] - start != b->len) {
			colfs_piece_cache_release(&t->cache, b);
			return COLFS_ECORRUPT;
		}
	} else if (i == s->known) {
		/* Learn its length, whoever rendered it. */
		if (!colfs_grow((void **)&s->ends, &s->cap, s->known + 1,
			  sizeof *s->ends)) {
			colfs_piece_cache_release(&t->cache, b);
			return COLFS_ENOMEM;
		}
		uint64_t start = s->known ? s->ends[s->known - 1] : 0;
		s->ends[s->known] = start + b->len;
		__atomic_store_n(&s->known, s->known + 1, __ATOMIC_RELEASE);
	}
	*out = b;
	return COLFS_OK;
}

/* The stream has just been read to its end: check the size index's word
 * for it, and keep its size there.  Called with the stream lock held. */
static void stream_completed(colfs_tree *t, colfs_node *n, stream_state *s)
{
	uint64_t size = s->known ? s->ends[s->known - 1] : 0;
	char path[4096];

	if (!t->sizes)
		return;
	colfs_node_path(n, path, sizeof path);
	if (s->index_size >= 0 && (uint64_t)s->index_size != size)
		colfs_tree_report(t, n, 0, COLFS_ECORRUPT,
				  "the size index said %lld bytes, the view "
				  "has %llu: the index is wrong, remove %s",
				  (long long)s->index_size,
				  (unsigned long long)size, t->sizes_path);
	if (!t->sizes_compare_only)
		colfs_sizeindex_put(t->sizes, path, size);
}

/* Learn piece lengths until `offset` is inside a known piece or the stream
 * is complete, the workers rendering the pieces after the one learnt
 * (through `r`, or a passing reader when NULL).  Called with the stream
 * lock held. */
static colfs_status stream_reach(colfs_tree *t, colfs_node *n, stream_state *s,
				 uint64_t offset, colfs_ahead_reader *r)
{
	colfs_ahead *a = n->ops && n->ops->concurrent ? tree_ahead(t) : NULL;
	colfs_ahead_reader *own = NULL;
	colfs_status st = COLFS_OK;

	while (!s->complete && (s->known == 0 || s->ends[s->known - 1] <= offset)) {
		colfs_blob *b;
		/* More than the next piece to learn: render ahead. */
		if (a && !r)
			r = own = colfs_ahead_reader_new(a, n, n->ino);
		if (a && r)
			colfs_ahead_at(a, r, s->known,
				       s->known ? (size_t)(s->ends[s->known - 1] / s->known) : 0);
		size_t i = s->known;
		st = stream_render(t, n, s, i, &b);
		if (st == COLFS_END) {
			__atomic_store_n(&s->complete, true, __ATOMIC_RELEASE);
			stream_completed(t, n, s);
			st = COLFS_OK;
			break;
		}
		if (st != COLFS_OK)
			break;
		/* stepped over: evicted first (piececache.h) */
		if (s->ends[i] <= offset)
			colfs_piece_cache_passed(&t->cache, b);
		colfs_piece_cache_release(&t->cache, b);
	}
	if (own)
		colfs_ahead_reader_free(a, own);
	return st;
}

/* Where stream_read puts a read's bytes: copied into `buf`, or lent in
 * place (`buf` NULL): up to `max` pieces held in `lent`.  `full` says the
 * spans ran out before the read was done. */
typedef struct stream_sink {
	char *buf;
	colfs_lent *lent;
	size_t max, count;
	bool full;
} stream_sink;

static colfs_status stream_read(colfs_tree *t, colfs_node *n, uint64_t offset,
				size_t len, stream_sink *out, size_t *got,
				colfs_ahead_reader *r)
{
	stream_state *s = stream_of(t, n);
	colfs_status st = COLFS_OK;
	*got = 0;
	if (!s)
		return COLFS_ENOMEM;
	pthread_mutex_lock(&s->lock);
	while (*got < len) {
		uint64_t at = offset + *got;
		if (!out->buf && out->count == out->max) {
			out->full = true;
			break;
		}
		st = stream_reach(t, n, s, at, r);
		if (st != COLFS_OK || s->known == 0 || s->ends[s->known - 1] <= at)
			break;
		/* First piece whose end is past `at`. */
		size_t lo = 0, hi = s->known - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->ends[mid] <= at)
				lo = mid + 1;
			else
				hi = mid;
		}
		colfs_blob *b;
		st = stream_render(t, n, s, lo, &b);
		if (st != COLFS_OK)
			break;
		if (r)
			colfs_ahead_at(t->ahead, r, lo, b->len);
		uint64_t start = lo ? s->ends[lo - 1] : 0;
		size_t within = (size_t)(at - start);
		size_t take = b->len - within;
		if (take > len - *got)
			take = len - *got;
		/* read to its end: evicted first (piececache.h) */
		if (within + take == b->len)
			colfs_piece_cache_passed(&t->cache, b);
		if (out->buf) {
			memcpy(out->buf + *got, b->data + within, take);
			colfs_piece_cache_release(&t->cache, b);
		} else {
			/* held until the caller has used the bytes */
			out->lent[out->count++] = (colfs_lent){
				.data = b->data + within, .len = take,
				.pin = b, .cache = &t->cache};
		}
		*got += take;
	}
	bool complete = s->complete;
	pthread_mutex_unlock(&s->lock);
	/* Bytes before a piece that fails: handed over, and the next read
	 * reports it, while the stream's size is not known (served with
	 * direct I/O).  Once it is known the kernel caches the file and
	 * takes a short read for its end (a silently cut file): the read
	 * fails. */
	if (st != COLFS_OK && *got > 0 && !complete)
		st = COLFS_OK;
	return st;
}

/* ------------------------------------------------------------------------
 * Sizes, handles, reads
 */
bool colfs_node_range(const colfs_node *n, uint64_t *offset, uint64_t *len)
{
	if (n->kind != COLFS_CONTENT_RANGE || node_forwards(n))
		return false;
	*offset = n->off;
	*len = n->len;
	return true;
}

/* A stream's size, learned as `mode` says when not known yet.  A decode
 * that fails leaves the size unknown (its read answers the error, and the
 * problem is in `errors`); only running out of memory fails the stat. */
static colfs_status stream_size(colfs_tree *t, colfs_node *n,
				colfs_sizes_mode mode, uint64_t *size,
				bool *exact)
{
	stream_state *s = stream_of(t, n);
	colfs_status st = COLFS_OK;

	*size = 0;
	*exact = false;
	if (!s)
		return COLFS_ENOMEM;
	if (__atomic_load_n(&s->complete, __ATOMIC_ACQUIRE)) {
		/* Complete streams never change: no lock needed. */
		*size = s->known ? s->ends[s->known - 1] : 0;
		*exact = true;
		return COLFS_OK;
	}
	/* asked before the stream's lock: a dataset's view lists it */
	bool probe = mode == COLFS_SIZES_EXACT ||
		     (mode == COLFS_SIZES_AUTO && colfs_node_cheap_to_size(t, n));
	pthread_mutex_lock(&s->lock);
	if (!s->complete && !s->index_checked) {
		uint64_t v;
		char path[4096];

		s->index_checked = true;
		colfs_node_path(n, path, sizeof path);
		if (((t->sizes && colfs_sizeindex_get(t->sizes, path, &v)) ||
		     node_kept_size(t, n, &v)) &&
		    v <= INT64_MAX)
			s->index_size = (int64_t)v;
	}
	if (!s->complete && s->index_size < 0 && !s->probe_failed && probe) {
		st = stream_reach(t, n, s, UINT64_MAX, NULL);
		if (st != COLFS_OK)
			s->probe_failed = true;
	}
	if (s->complete) {
		*size = s->known ? s->ends[s->known - 1] : 0;
		*exact = true;
	} else if (s->index_size >= 0) {
		*size = (uint64_t)s->index_size;
		*exact = true;
	}
	pthread_mutex_unlock(&s->lock);
	return st == COLFS_ENOMEM ? st : COLFS_OK;
}

/* The nodes of one colfs_nodes_learn_sizes call, shared by its threads. */
typedef struct learn_job {
	colfs_tree *t;
	colfs_node *const *nodes;
	size_t n, done;
	colfs_sizes_mode mode;
	pthread_mutex_t lock;
	void (*progress)(void *arg, size_t done, size_t total);
	void *arg;
} learn_job;

static void learn_one(void *arg, size_t i)
{
	learn_job *j = arg;
	colfs_node *n = j->nodes[i];
	uint64_t size;
	bool exact;

	if (n->kind == COLFS_CONTENT_STREAM && !node_forwards(n))
		stream_size(j->t, n, j->mode, &size, &exact);
	else if (n->kind != COLFS_CONTENT_DIR)
		colfs_node_size(j->t, n, &size, &exact);
	pthread_mutex_lock(&j->lock);
	j->done++;
	if (j->progress)
		j->progress(j->arg, j->done, j->n);
	pthread_mutex_unlock(&j->lock);
}

void colfs_nodes_learn_sizes(colfs_tree *t, colfs_node *const *nodes,
			     size_t n, unsigned threads, bool exact,
			     void (*progress)(void *arg, size_t done,
					      size_t total),
			     void *arg)
{
	learn_job j = {
		.t = t, .nodes = nodes, .n = n,
		.mode = exact ? COLFS_SIZES_EXACT : t->opts.sizes,
		.progress = progress, .arg = arg,
	};
	pthread_mutex_init(&j.lock, NULL);
	/* This thread works too. */
	colfs_parallel_for(threads ? threads : colfs_cpus(), n, learn_one, &j);
	pthread_mutex_destroy(&j.lock);
}

/* A proxy's size: its node's, in the other tree. */
static colfs_status forward_size(colfs_tree *t, colfs_node *n, bool known,
				 uint64_t *size, bool *exact)
{
	colfs_tree *g;
	colfs_node *target;

	*size = 0;
	*exact = true;
	COLFS_TRY(n->ops->forward(t, n, &g, &target));
	colfs_status st = known ? colfs_node_size_known(g, target, size, exact)
				: colfs_node_size(g, target, size, exact);
	n->ops->unforward(t, n, g);
	return st;
}

colfs_status colfs_node_size_known(colfs_tree *t, colfs_node *n,
				   uint64_t *size, bool *exact)
{
	if (node_forwards(n))
		return forward_size(t, n, true, size, exact);
	if (n->kind == COLFS_CONTENT_STREAM)
		return stream_size(t, n, COLFS_SIZES_LAZY, size, exact);
	return colfs_node_size(t, n, size, exact);
}

colfs_status colfs_node_size(colfs_tree *t, colfs_node *n, uint64_t *size,
			     bool *exact)
{
	*size = 0;
	*exact = true;
	if (node_forwards(n))
		return forward_size(t, n, false, size, exact);
	switch (n->kind) {
	case COLFS_CONTENT_DIR:
		return COLFS_OK;
	case COLFS_CONTENT_RANGE:
		*size = n->len;
		return COLFS_OK;
	case COLFS_CONTENT_DOC: {
		int64_t sz = __atomic_load_n(&n->doc_size, __ATOMIC_ACQUIRE);
		uint64_t kept;
		if (sz < 0 && !n->is_volatile && n->size_when_read &&
		    node_kept_size(t, n, &kept) && kept <= INT64_MAX) {
			/* its node was freed and made again */
			sz = (int64_t)kept;
			__atomic_store_n(&n->doc_size, sz, __ATOMIC_RELEASE);
		}
		if ((sz < 0 || n->is_volatile) && n->size_when_read &&
		    t->opts.sizes != COLFS_SIZES_EXACT &&
		    (t->opts.sizes != COLFS_SIZES_AUTO ||
		     !colfs_node_cheap_to_size(t, n))) {
			*exact = false;
			return COLFS_OK;
		}
		if (sz < 0 || n->is_volatile) {
			colfs_blob *b;
			COLFS_TRY(doc_get(t, n, &b));
			sz = (int64_t)b->len;
			if (n->is_volatile)
				colfs_blob_free(b);
			else
				colfs_piece_cache_release(&t->cache, b);
		}
		*size = (uint64_t)sz;
		return COLFS_OK;
	}
	case COLFS_CONTENT_STREAM:
		return stream_size(t, n, t->opts.sizes, size, exact);
	}
	return COLFS_EUNSUPPORTED;
}

colfs_status colfs_node_open(colfs_tree *t, colfs_node *n, colfs_handle **out)
{
	*out = NULL;
	if (n->kind == COLFS_CONTENT_DIR)
		return COLFS_EUNSUPPORTED;
	COLFS_TRY(colfs_node_check(t, n));
	colfs_handle *h = calloc(1, sizeof *h);
	if (!h)
		return COLFS_ENOMEM;
	h->t = t;
	h->n = n;
	if (node_forwards(n)) {
		colfs_node *target;
		colfs_status st = n->ops->forward(t, n, &h->guest, &target);
		if (st == COLFS_OK) {
			st = colfs_node_open(h->guest, target, &h->inner);
			if (st != COLFS_OK)
				n->ops->unforward(t, n, h->guest);
		}
		if (st != COLFS_OK) {
			free(h);
			return st;
		}
		__atomic_add_fetch(&n->opens, 1, __ATOMIC_RELAXED);
		*out = h;
		return COLFS_OK;
	}
	/* A remote source fetches a raw file in one request. */
	if (n->kind == COLFS_CONTENT_RANGE)
		colfs_source_will_need(t->src, n->off, n->len);
	if (n->kind == COLFS_CONTENT_STREAM && n->ops && n->ops->concurrent &&
	    tree_ahead(t))
		h->ahead = colfs_ahead_reader_new(t->ahead, n, n->ino);
	if (n->kind == COLFS_CONTENT_DOC) {
		colfs_status st = doc_get(t, n, &h->doc);
		if (st != COLFS_OK) {
			colfs_ahead_reader_free(t->ahead, h->ahead);
			free(h);
			return st;
		}
	}
	__atomic_add_fetch(&n->opens, 1, __ATOMIC_RELAXED);
	*out = h;
	return COLFS_OK;
}

colfs_status colfs_handle_read(colfs_handle *h, uint64_t offset, size_t len,
			       void *buf, size_t *got)
{
	colfs_node *n = h->n;
	*got = 0;
	/* Pieces and documents made before a change are not served after
	 * it either: nothing mixes the old file with the new. */
	COLFS_TRY(colfs_node_check(h->t, n));
	if (h->inner)
		return colfs_handle_read(h->inner, offset, len, buf, got);
	switch (n->kind) {
	case COLFS_CONTENT_RANGE: {
		if (offset >= n->len)
			return COLFS_OK;
		if (len > n->len - offset)
			len = (size_t)(n->len - offset);
		colfs_err err = {0};
		colfs_status st = colfs_source_pread(h->t->src, n->off + offset,
						     len, buf, got, &err);
		/* A read that failed (a remote reply, an I/O error) is a
		 * problem of this node; a changed source is filed once. */
		if (st != COLFS_OK && st != COLFS_ENOMEM && err.msg[0])
			colfs_tree_report_err(h->t, n, &err);
		if (st == COLFS_OK)
			st = colfs_tree_source_check(h->t);
		if (st != COLFS_OK) {
			*got = 0;
			return st;
		}
		/* The file shrank under us: the range promised more. */
		return *got == len ? COLFS_OK : COLFS_ETRUNCATED;
	}
	case COLFS_CONTENT_DOC:
		if (offset >= h->doc->len)
			return COLFS_OK;
		if (len > h->doc->len - offset)
			len = (size_t)(h->doc->len - offset);
		memcpy(buf, h->doc->data + offset, len);
		*got = len;
		return COLFS_OK;
	case COLFS_CONTENT_STREAM: {
		stream_sink copy = {.buf = buf};
		return stream_read(h->t, n, offset, len, &copy, got, h->ahead);
	}
	case COLFS_CONTENT_DIR:
		break;
	}
	return COLFS_EUNSUPPORTED;
}

void colfs_lent_release(colfs_lent *lent, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (lent[i].cache)
			colfs_piece_cache_release(lent[i].cache, lent[i].pin);
		else
			colfs_blob_free(lent[i].pin);
		lent[i].pin = NULL;
	}
}

/* The rest of a read, from `offset`, copied into a blob of its own (no
 * cache's) as the span `*out`. */
static colfs_status read_copied(colfs_handle *h, uint64_t offset, size_t len,
				colfs_lent *out, size_t *got)
{
	colfs_blob *b = calloc(1, sizeof *b);
	char *data = malloc(len ? len : 1);
	if (!b || !data) {
		free(b);
		free(data);
		return COLFS_ENOMEM;
	}
	b->data = data;
	b->refs = 1;
	colfs_status st = colfs_handle_read(h, offset, len, data, got);
	if (st != COLFS_OK) {
		colfs_blob_free(b);
		return st;
	}
	b->len = *got;
	*out = (colfs_lent){.data = data, .len = *got, .pin = b};
	return COLFS_OK;
}

colfs_status colfs_handle_read_lent(colfs_handle *h, uint64_t offset,
				    size_t len, colfs_lent *out, size_t max,
				    size_t *count, size_t *got)
{
	colfs_node *n = h->n;
	colfs_status st;
	*count = 0;
	*got = 0;
	if (max < 2)
		return COLFS_EUNSUPPORTED;
	COLFS_TRY(colfs_node_check(h->t, n));
	if (h->inner)
		return colfs_handle_read_lent(h->inner, offset, len, out, max,
					      count, got);
	if (n->kind == COLFS_CONTENT_DOC) {
		/* The handle holds its document until closed. */
		if (offset < h->doc->len && len) {
			if (len > h->doc->len - offset)
				len = (size_t)(h->doc->len - offset);
			out[0] = (colfs_lent){.data = h->doc->data + offset,
					      .len = len};
			*count = 1;
			*got = len;
		}
		return COLFS_OK;
	}
	if (n->kind != COLFS_CONTENT_STREAM) {
		st = read_copied(h, offset, len, &out[0], got);
		*count = st == COLFS_OK;
		return st;
	}
	/* The last span is kept for the bytes past what max - 1 pieces
	 * hold (pieces far smaller than a read). */
	stream_sink lend = {.lent = out, .max = max - 1};
	st = stream_read(h->t, n, offset, len, &lend, got, h->ahead);
	if (st == COLFS_OK && lend.full) {
		size_t more = 0;
		st = read_copied(h, offset + *got, len - *got,
				 &out[lend.count], &more);
		if (st == COLFS_OK) {
			lend.count++;
			*got += more;
		} else if (!__atomic_load_n(&n->stream->complete,
					    __ATOMIC_ACQUIRE)) {
			/* as stream_read: the bytes before, the error at
			 * the next read, while the size is not known */
			st = COLFS_OK;
		}
	}
	if (st != COLFS_OK) {
		colfs_lent_release(out, lend.count);
		*got = 0;
		return st;
	}
	*count = lend.count;
	return COLFS_OK;
}

void colfs_handle_close(colfs_handle *h)
{
	if (!h)
		return;
	__atomic_sub_fetch(&h->n->opens, 1, __ATOMIC_RELAXED);
	if (h->inner) {
		colfs_handle_close(h->inner);
		h->n->ops->unforward(h->t, h->n, h->guest);
		free(h);
		return;
	}
	colfs_ahead_reader_free(h->t->ahead, h->ahead);
	if (h->doc) {
		if (h->n->is_volatile || h->n->text)
			colfs_blob_free(h->doc);
		else
			colfs_piece_cache_release(&h->t->cache, h->doc);
	}
	free(h);
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

/* ------------------------------------------------------------------------
 * Open and destroy
 */
static const char *describe_none(const uint8_t *head, size_t n)
{
	bool text = n > 0;
	for (size_t i = 0; i < n; i++)
		if (head[i] < 0x09 || (head[i] > 0x0d && head[i] < 0x20))
			text = false;
	return text ? "a text file, not a Parquet, ORC, Kudu CFile or Arrow IPC file"
		    : "not a Parquet, ORC, Kudu CFile or Arrow IPC file (no known magic bytes)";
}

static char *tree_source_path(const char *name, const struct stat *st)
{
	struct stat now;
	char *abs;

	if (name[0] == '/') {
		abs = strdup(name);
	} else {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		abs = malloc(strlen(cwd) + strlen(name) + 2);
		if (abs)
			sprintf(abs, "%s/%s", strcmp(cwd, "/") ? cwd : "",
				name);
		free(cwd);
	}
	if (abs && (stat(abs, &now) != 0 || now.st_dev != st->st_dev ||
		    now.st_ino != st->st_ino)) {
		free(abs);
		abs = NULL;
	}
	return abs;
}

/* The tree over `src` (taken, destroyed on failure): probe, the format's
 * open, the size index. */
static colfs_status tree_open_on(colfs_source *src, const char *display_name,
				 const colfs_format *forced,
				 const colfs_options *opts,
				 const struct stat *st, colfs_tree **out,
				 char *why, size_t why_len)
{
	colfs_status rc;
	colfs_tree *t = calloc(1, sizeof *t);
	if (!t) {
		colfs_source_destroy(src);
		snprintf(why, why_len, "%s: out of memory", display_name);
		return COLFS_ENOMEM;
	}
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&t->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	if (opts)
		t->opts = *opts;
	colfs_options_defaults(&t->opts);
	/* the sizes of freed nodes kept: as many as the nodes alive */
	t->freed_half = t->opts.node_budget >= SIZE_MAX
				? SIZE_MAX
				: (size_t)t->opts.node_budget / 2
				  ? (size_t)t->opts.node_budget / 2 : 1;
	t->display_name = strdup(display_name);
	t->src = src;
	colfs_source_set_check_interval(src, t->opts.source_check_ms);
	if (st) {
		t->src_dev = st->st_dev;
		t->src_ino = st->st_ino;
		t->source_path = tree_source_path(display_name, st);
	}
	colfs_buf io = COLFS_BUF_INIT;
	t->has_io = colfs_source_io(src, &io) != COLFS_ENOENT;
	colfs_buf_free(&io);
	rc = colfs_piece_cache_init(&t->cache, t->opts.cache_bytes);
	if (rc != COLFS_OK || !t->display_name)
		goto fail_msg;
	char *rootname = strdup("");
	if (!rootname || !node_new(t, NULL, rootname, COLFS_CONTENT_DIR)) {
		free(rootname);
		rc = COLFS_ENOMEM;
		goto fail_msg;
	}

	uint8_t head[16], tail[16];
	uint64_t size = colfs_source_size(t->src);
	size_t hn = size < 16 ? (size_t)size : 16;
	colfs_err err = {0};
	/* A module that probes nothing (a dataset: a directory) is not
	 * read here. */
	if (forced && !forced->probe)
		hn = 0;
	rc = colfs_source_read_at(t->src, 0, hn, head, &err);
	if (rc == COLFS_OK)
		rc = colfs_source_read_at(t->src, size - hn, hn, tail, &err);
	if (rc != COLFS_OK) {
		snprintf(why, why_len, "%s: %s", display_name, err.msg);
		goto fail;
	}
	t->format = forced;
	for (size_t i = 0; !t->format && colfs_formats[i]; i++) {
		if (colfs_formats[i]->probe(head, hn, tail, hn, size)) {
			t->format = colfs_formats[i];
			break;
		}
	}
	if (!t->format) {
		snprintf(why, why_len, "%s: %s", display_name,
			 describe_none(head, hn));
		rc = COLFS_EUNSUPPORTED;
		goto fail;
	}
	/* an option of one kind of source given to another is refused
	 * rather than ignored without a word */
	if (t->opts.delta_version_set && t->format != colfs_format_directory) {
		snprintf(why, why_len, "%s: -o version=%lld applies to Delta "
			 "tables (a directory with _delta_log/), not to a %s "
			 "file", display_name, (long long)t->opts.delta_version,
			 t->format->name);
		rc = COLFS_EUNSUPPORTED;
		goto fail;
	}
	rc = t->format->open(t, &err);
	if (rc != COLFS_OK && !t->format->probe) {
		/* a directory (a dataset, a Delta table): no "file", its
		 * module's reason says what is wrong with it */
		snprintf(why, why_len, "%s: %s", display_name,
			 err.msg[0] ? err.msg : colfs_status_name(rc));
		goto fail;
	}
	if (rc != COLFS_OK) {
		snprintf(why, why_len, "%s: %s file not readable: %s",
			 display_name, t->format->name,
			 err.msg[0] ? err.msg : colfs_status_name(rc));
		goto fail;
	}
	colfs_tree_sizes_open(t);
	*out = t;
	return COLFS_OK;

fail_msg:
	snprintf(why, why_len, "%s: %s", display_name, colfs_status_name(rc));
fail:
	colfs_tree_destroy(t);
	return rc;
}

static colfs_status tree_open(int fd, const char *display_name,
			      const colfs_format *forced,
			      const colfs_options *opts, colfs_tree **out,
			      char *why, size_t why_len)
{
	struct stat st;
	colfs_source *src;
	colfs_status rc;
	*out = NULL;
	if (fstat(fd, &st) != 0) {
		snprintf(why, why_len, "%s: %s", display_name, strerror(errno));
		close(fd);
		return COLFS_EIO;
	}
	if (S_ISDIR(st.st_mode)) {
		/* A dataset (formats/dataset): with sizes=auto a stat
		 * decodes a view when the files it reads are small (the
		 * directory's own size says nothing of their cost:
		 * sized_by_nodes). */
		colfs_options dopts = {0};
		if (forced) {
			snprintf(why, why_len, "%s: is a directory",
				 display_name);
			close(fd);
			return COLFS_EUNSUPPORTED;
		}
		if (opts)
			dopts = *opts;
		rc = colfs_source_create_fd(fd, 1, &src);
		if (rc != COLFS_OK) {
			close(fd);
			snprintf(why, why_len, "%s: %s", display_name,
				 colfs_status_name(rc));
			return rc;
		}
		return tree_open_on(src, display_name, colfs_format_directory,
				    &dopts, &st, out, why, why_len);
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file", display_name);
		close(fd);
		return COLFS_EUNSUPPORTED;
	}
	if (st.st_size == 0) {
		snprintf(why, why_len, "%s: empty file", display_name);
		close(fd);
		return COLFS_EUNSUPPORTED;
	}
	rc = colfs_source_create_fd(fd, 1, &src);
	if (rc != COLFS_OK) {
		close(fd);
		snprintf(why, why_len, "%s: %s", display_name,
			 colfs_status_name(rc));
		return rc;
	}
	return tree_open_on(src, display_name, forced, opts, &st, out, why,
			    why_len);
}

colfs_status colfs_tree_open_fd(int fd, const char *display_name,
				const colfs_options *opts, colfs_tree **out,
				char *why, size_t why_len)
{
	return tree_open(fd, display_name, NULL, opts, out, why, why_len);
}

colfs_status colfs_tree_open_format(int fd, const char *display_name,
				    const colfs_format *format,
				    const colfs_options *opts,
				    colfs_tree **out, char *why,
				    size_t why_len)
{
	return tree_open(fd, display_name, format, opts, out, why, why_len);
}

colfs_status colfs_tree_open_source(colfs_source *src,
				    const char *display_name,
				    const colfs_options *opts, colfs_tree **out,
				    char *why, size_t why_len)
{
	*out = NULL;
	if (colfs_source_size(src) == 0) {
		snprintf(why, why_len, "%s: empty file", display_name);
		colfs_source_destroy(src);
		return COLFS_EUNSUPPORTED;
	}
	return tree_open_on(src, display_name, NULL, opts, NULL, out, why,
			    why_len);
}

colfs_status colfs_tree_open_dataset_url(const char *display_name,
					 const colfs_options *opts,
					 colfs_tree **out, char *why,
					 size_t why_len)
{
	/* One byte: the source of a tree is never empty; the directory
	 * module reads none of it. */
	static const uint8_t none[1] = {0};
	colfs_options dopts = {0};
	colfs_source *src = NULL;
	colfs_status rc;

	*out = NULL;
	if (opts)
		dopts = *opts;
	rc = colfs_source_create_memory(none, sizeof none, &src);
	if (rc != COLFS_OK) {
		snprintf(why, why_len, "%s: %s", display_name,
			 colfs_status_name(rc));
		return rc;
	}
	return tree_open_on(src, display_name, colfs_format_directory, &dopts,
			    NULL, out, why, why_len);
}

colfs_status colfs_tree_open(const char *path, const colfs_options *opts,
			     colfs_tree **out, char *why, size_t why_len)
{
	const colfs_source_kind *k = colfs_source_kind_of(path);
	colfs_source_opened op = {.fd = -1};
	colfs_status rc;

	*out = NULL;
	why[0] = '\0';
	rc = k->open(path, opts, &op, why, why_len);
	if (rc != COLFS_OK)
		return rc;
	const char *shown = op.shown ? op.shown : path;
	if (op.fd >= 0)
		rc = tree_open(op.fd, shown, k->format, opts, out, why,
			       why_len);
	else if (op.src)
		rc = colfs_tree_open_source(op.src, shown, opts, out, why,
					    why_len);
	else
		rc = colfs_tree_open_dataset_url(shown, opts, out, why,
						 why_len);
	free(op.shown);
	if (rc == COLFS_OK)
		(*out)->changes = k->changes;
	return rc;
}

colfs_source_changes colfs_tree_source_changes(const colfs_tree *t)
{
	return t->changes;
}

void colfs_tree_destroy(colfs_tree *t)
{
	if (!t)
		return;
	/* The workers first: they render with the format's state. */
	colfs_ahead_destroy(t->ahead);
	for (size_t i = 0; i < t->ngrafts; i++)
		colfs_tree_destroy(t->grafts[i]);
	free(t->grafts);
	free(t->graft_path);
	if (t->format && t->format->close && t->format_state)
		t->format->close(t->format_state);
	for (size_t i = 0; i < t->nnodes; i++)
		node_free(t->nodes[i]);
	free(t->nodes);
	free(t->free_slots);
	if (t->svg_lines)
		t->svg_lines_free(t->svg_lines);
	for (size_t i = 0; i < t->narena; i++)
		free(t->arena[i]);
	free(t->arena);
	free(t->sorted_paths);
	for (size_t i = 0; i < t->nerrors; i++) {
		free(t->errors[i].path);
		free(t->errors[i].msg);
	}
	free(t->errors);
	colfs_tree_hidden_free(t);
	if (t->cache.buckets)
		colfs_piece_cache_destroy(&t->cache);
	colfs_source_destroy(t->src);
	colfs_sizeindex_destroy(t->sizes);
	colfs_sizeindex_destroy(t->freed_sizes[0]);
	colfs_sizeindex_destroy(t->freed_sizes[1]);
	free(t->sizes_path);
	free(t->source_path);
	free(t->display_name);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

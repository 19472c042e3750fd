/* colfs: a tree's listings and lookups: the populated directories
 * (least recently used first), listing and finding a child, the
 * kernel's references and FORGETs, and freeing the children of a
 * directory nothing below holds (keeping the sizes of costly nodes).
 * The nodes themselves are made in tree.c.
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

	if (n->is_volatile || tree_node_forwards(n))
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
	 * (tree_node_kept_size), so published with a release store, and never
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
bool tree_node_kept_size(colfs_tree *t, const colfs_node *n,
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
		tree_node_free(k);
	}
	free(dir->kids);
	free(dir->hidx);
	free(dir->hidden);
	tree_dir_mem_free(dir);
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
	long i = tree_dir_find(dir, name);
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

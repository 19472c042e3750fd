/* colfs: the tree's own structures, shared by the core files that make
 * the tree (tree.c, tree_listings.c, tree_read.c, tree_open.c,
 * problems.c, tree_sizes.c, graft.c, layout.c, xattr.c).  No file outside formats/core includes this (the test
 * `layers` checks it): formats see the tree through tree.h.
 */
#ifndef COLFS_TREE_INT_H
#define COLFS_TREE_INT_H

#include "tree.h"
#include "ahead.h"
#include "piececache.h"
#include "sizeindex.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

typedef struct stream_state {
	pthread_mutex_t lock;
	uint64_t *ends;      /* ends[i] = offset just past piece i */
	size_t known, cap;   /* pieces whose length is known */
	bool complete;       /* piece `known` answered COLFS_END */
	/* The size index's word for this view: -1 none, checked once. */
	int64_t index_size;
	bool index_checked;
	bool probe_failed;   /* a stat's decode failed: not tried again */
} stream_state;

struct colfs_node {
	uint64_t ino;
	char *name;
	colfs_node *parent;
	colfs_content kind;
	bool is_volatile;
	bool is_summary;              /* the source's state comes first */
	bool size_when_read;          /* costly: a stat does not make it */
	bool derived;                 /* its values are read elsewhere too */
	bool mappable;                /* a file to map (an arrays/ .npy) */
	int populated;                /* atomic: children are final */
	int opens;                    /* atomic: handles open on it */
	colfs_status populate_st;     /* why an empty directory failed */
	const colfs_node_ops *ops;
	void *ctx;
	uint64_t a, b, c;
	/* directories */
	colfs_node **kids;
	size_t nkids, capkids;
	uint32_t *hidx;               /* open-addressing index of kids by name */
	size_t hcap;
	colfs_node **hidden;          /* made by lookup, not listed */
	size_t nhidden, caphidden;
	struct dir_mem *mem;          /* colfs_dir_alloc: freed with the kids */
	/* ranges */
	uint64_t off, len;
	/* documents: -1 until generated once */
	int64_t doc_size;
	char *text;                   /* fixed text documents */
	/* streams */
	stream_state *stream;
	/* A mount (fs/ll.c; tree locked): the kernel's lookup count of this
	 * node (colfs_dir_lookup_ref, colfs_nodes_ref, colfs_tree_forget) and how many nodes under
	 * it, at any depth, have one.  While `held` is 0 and nothing under
	 * it is open, its children may be freed (colfs_tree_release_unused). */
	uint64_t nlookup;
	size_t held;
	/* Populated directories other than the root, least recently used
	 * first (tree->listed_first to listed_last): a directory is used
	 * when it is listed or opened, and so are its ancestors (`used`:
	 * tree->uses then).  `drop_asked`: colfs_tree_pick_listings gave
	 * it (the kernel was asked to drop it and what is under it); cleared
	 * when it is used again. */
	colfs_node *listed_prev, *listed_next;
	uint64_t used;
	bool drop_asked;
};

typedef struct error_entry {
	char *path;
	uint64_t offset;
	colfs_status status;
	char *msg;
	int64_t when;   /* filed at (CLOCK_REALTIME ns) */
} error_entry;

/* A damaged part and the rows it hides (problems.c): merged ranges of
 * its rows, or unknown. */
typedef struct hidden_entry {
	char *path;
	uint64_t offset;
	bool unknown;
	struct { uint64_t first, end; } *ranges;
	size_t nranges, capranges;
} hidden_entry;

struct colfs_tree {
	pthread_mutex_t lock;         /* recursive */
	colfs_options opts;
	char *display_name;
	colfs_source *src;
	/* The source as named at open, made absolute, when it named the
	 * opened file (else NULL), and that file's identity: the summary
	 * tells when the path has come to name another file. */
	char *source_path;
	dev_t src_dev;
	ino_t src_ino;
	bool change_filed;            /* atomic: the root problem is filed */
	bool has_io;                  /* a remote source: the root has `io` */
	colfs_source_changes changes; /* as its source kind says */
	const colfs_format *format;
	void *format_state;
	/* nodes[slot], slot = (ino & 0xffffffff) - 1; NULL where released.
	 * A slot colfs_dir_release freed is made again with the next epoch,
	 * ino's upper 32 bits (0 in a mount, which releases nothing): the
	 * table is as long as the most nodes alive at once, and no inode
	 * number (nor piece-cache key) is ever given twice. */
	colfs_node **nodes;
	size_t nnodes, capnodes;
	uint32_t *free_slots;
	size_t nfree, capfree;
	uint32_t epoch;
	/* Nodes alive (nnodes - nfree) and the most alive at once; atomic
	 * (colfs_tree_nodes_alive reads them without the lock). */
	size_t alive, alive_peak;
	/* The populated directories, least recently used first (colfs_node's
	 * listed_prev/next; the root is never among them), how many, and
	 * the uses counted so far (colfs_node's `used`). */
	colfs_node *listed_first, *listed_last;
	size_t nlisted;
	uint64_t uses;
	/* The sizes of costly nodes freed by colfs_tree_release_unused
	 * (documents a stat does not make, streams when there is no size
	 * index), by tree path, so that the nodes made again know them.
	 * Two generations of at most freed_half sizes each (half of
	 * opts.node_budget): when freed_sizes[freed_cur] is full, the other
	 * is emptied and takes the new ones, so that at most node_budget
	 * sizes are kept, the newest.  NULL until used; made under the tree
	 * lock, read without it, kept until colfs_tree_destroy.  Never
	 * written to disk. */
	colfs_sizeindex *freed_sizes[2];
	unsigned freed_cur;
	size_t freed_half;
	/* layout.c: the parsed lines of the root's `layout` when it is a
	 * stream (svg_layout), shared by every layout.svg; freed with it. */
	struct colfs_svg_lines *svg_lines;
	colfs_node *svg_layout;
	/* how layout.c frees svg_lines: the tree holds them for layout.c
	 * and calls no function of it */
	void (*svg_lines_free)(struct colfs_svg_lines *sl);
	void **arena;
	size_t narena, caparena;
	error_entry *errors;
	size_t nerrors, caperrors, dropped_errors;
	/* The paths of errors[0 .. nsorted), sorted (problems.c: the count
	 * under a directory by two binary searches); made again when
	 * nerrors has grown past nsorted.  Borrowed from errors[]. */
	const char **sorted_paths;
	size_t nsorted;
	hidden_entry *hidden;         /* colfs_tree_note_hidden */
	size_t nhidden, caphidden;
	colfs_piece_cache cache;
	/* The workers decoding ahead (ahead.c), started at the first read
	 * of a concurrent stream; NULL before, or with decode_threads=0. */
	colfs_ahead *ahead;
	bool ahead_tried;
	/* colfs_tree_stats_get: counted atomically */
	uint64_t pages_decoded, pieces_rendered;
	/* The size index (NULL: off), where it lives, how reading it went. */
	colfs_sizeindex *sizes;
	char *sizes_path;
	char sizes_note[600];
	bool sizes_compare_only;   /* colfs_tree_sizes_compare_only */
	/* Trees shown inside this one (graft.c), destroyed with it; and for
	 * such a tree, the path it is shown at and where its source begins
	 * in the parent's. */
	colfs_tree **grafts;
	size_t ngrafts, capgrafts;
	char *graft_path;
	uint64_t graft_base;
};

/* The recursive tree lock. */
static inline void colfs_tree_lock(colfs_tree *t)
{
	pthread_mutex_lock(&t->lock);
}

static inline void colfs_tree_unlock(colfs_tree *t)
{
	pthread_mutex_unlock(&t->lock);
}

/* problems.c: file the one root problem of a changed source (once);
 * COLFS_EIO once the source has changed since the tree was opened. */
void colfs_tree_file_change(colfs_tree *t);
colfs_status colfs_tree_format_check(colfs_tree *t, bool force,
				     colfs_err *err);
colfs_status colfs_tree_source_check(colfs_tree *t);
/* layout.c: free the shared lines of a layout stream (NULL: nothing). */
void colfs_svg_lines_free(struct colfs_svg_lines *sl);
/* problems.c: colfs_tree_report_path with a va_list; the `errors` text of
 * the problems under the tree path `dir` (NULL: all, and the count of
 * those dropped). */
void colfs_tree_report_vpath(colfs_tree *t, const char *path,
			     uint64_t offset, colfs_status st, const char *fmt,
			     va_list ap) __attribute__((format(printf, 5, 0)));
/* problems.c: a piece of `t` rendered ahead of its reader, from begin
 * to end (tree_read.c); end says whether it found a problem not filed
 * (colfs_tree_ahead_defer): then it is dropped. */
typedef struct colfs_ahead_mark {
	colfs_tree *tree;
	bool spoiled;
} colfs_ahead_mark;
colfs_ahead_mark colfs_tree_ahead_begin(colfs_tree *t);
bool colfs_tree_ahead_end(colfs_ahead_mark outer);
/* problems.c: frees the damaged parts (colfs_tree_destroy). */
void colfs_tree_hidden_free(colfs_tree *t);
void colfs_tree_errors_render_path(colfs_tree *t, const char *dir,
				   colfs_buf *out);

/* problems.c: how many problems lie at the tree path `dir` or under it
 * (the root "/": all, with those dropped); the byte offsets of every
 * problem kept (known ones only), sorted, malloc'd into *out (NULL when
 * there are none; false when out of memory). */
size_t colfs_tree_problems_under(colfs_tree *t, const char *dir);
bool colfs_tree_problem_offsets(colfs_tree *t, uint64_t **out, size_t *n);
/* tree.c: add a child called exactly `name` (taken; already escaped and
 * unique: a name of another tree's directory) to `dir`, listed or
 * (`hidden`) made as by a lookup.  NULL when out of memory. */
colfs_node *colfs_dir_add_named(colfs_tree *t, colfs_node *dir, char *name,
				colfs_content kind, bool hidden);

/* tree.c: is `n` a proxy file (a graft's, graft.c), whose size, opens
 * and reads are those of the node it finds? */
bool tree_node_forwards(const colfs_node *n);
/* tree.c: a new node named `name` (taken) under `parent` (NULL: the
 * root), given the next free slot and its inode number; NULL when out of
 * memory.  tree_node_free frees one node, tree_dir_mem_free the memory
 * a directory's children were made in; tree_dir_find is the index of
 * the child called `name` in `dir`, or -1. */
colfs_node *tree_node_new(colfs_tree *t, colfs_node *parent, char *name,
			  colfs_content kind);
void tree_node_free(colfs_node *n);
void tree_dir_mem_free(colfs_node *dir);
long tree_dir_find(const colfs_node *dir, const char *name);
/* tree_listings.c: the size kept for `n` (by its tree path) when its
 * directory's children were freed, if any. */
bool tree_node_kept_size(colfs_tree *t, const colfs_node *n,
			 uint64_t *size);

/* tree_sizes.c: read the size index for a freshly opened tree. */
void colfs_tree_sizes_open(colfs_tree *t);
/* tree_sizes.c: sizes=auto: is node `n` cheap enough to render whole at
 * a stat (the bytes it decodes at most COLFS_SIZE_PROBE_SOURCE)?  Called
 * without the tree's lock or the node's. */
bool colfs_node_cheap_to_size(colfs_tree *t, colfs_node *n);

#endif

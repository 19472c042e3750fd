/* colfs daemon: what main.c, ll.c and errno.c share.
 *
 * fs/ is the only code that includes FUSE headers.  It never parses file
 * bytes: everything it serves comes from the format core through
 * formats/colfs.h.
 */
#ifndef COLFSD_H
#define COLFSD_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <sys/stat.h>

#include "colfs.h"

/* Entry and attribute timeout for nodes whose attributes never change
 * during the mount (everything except volatile documents and streams whose
 * size is not known yet). */
#define COLFSD_TIMEOUT_IMMUTABLE 3600.0
/* Attribute timeout of a stream whose size is still unknown after the
 * daemon tried to learn it (sizes=auto on a large source, lazy): only a
 * read to its end can change it, and that read invalidates the kernel's
 * copy (ll.c, colfsd_read).  Not 0: with default_permissions the kernel
 * checks a node's mode before each getxattr, and `getfattr -d` makes
 * 2 + 2 x names such calls per node, each a GETATTR once the attributes
 * have expired (docs/performance.md, "xattrs").  Short, so that a size
 * learnt another way (a graft's tree read through another path) shows
 * within a second. */
#define COLFSD_TIMEOUT_UNKNOWN_SIZE 1.0
/* st_blksize of generated files (documents and streams): see colfsd_stat. */
#define COLFSD_STREAM_BLKSIZE (1 << 20)
/* Spans a read is answered from without a copy (fs/ll.c colfsd_read):
 * enough for a 1 MiB read of pieces of 32 KiB; a read of smaller ones
 * has its rest copied into the last. */
#define COLFSD_READ_SPANS 32

/* The state of one mount, the session's userdata. */
typedef struct colfsd {
	colfs_tree *tree;
	/* The source file as fstat'ed once at mount: owner, mode, times. */
	struct stat source;
	/* FUSE connection options given with -o (max_readahead, sync_read,
	 * no_splice_write...), applied at init; NULL when none. */
	struct fuse_conn_info_opts *conn_opts;
	/* The session, for notifications to the kernel (a size learnt). */
	struct fuse_session *se;
	/* -o sizes= (with exact, a readdirplus learns sizes in parallel). */
	colfs_sizes_mode sizes_mode;
	/* -o page_cache=all: text views of known size through the page
	 * cache too (ll.c, open). */
	bool page_cache_all;
	/* Files open right now.  The kernel sends RELEASE asynchronously, so
	 * at unmount some may never be released: they are closed at exit,
	 * before the tree (their documents live in its cache). */
	pthread_mutex_t files_lock;
	struct colfsd_file *files;
	/* -o node_budget: nodes alive past which the kernel is asked to
	 * forget the listings least recently used (SIZE_MAX: never); and the thread that
	 * frees what it forgets (forget.c; NULL before it starts). */
	size_t node_budget;
	struct colfsd_forgetter *forgetter;
	/* What the kernel and the daemon did about nodes (atomic, relaxed;
	 * SIGUSR1 prints them): lookups answered, nodes the kernel forgot
	 * (FORGET entries) and in how many messages, listings it was asked
	 * to drop, directories whose children were freed. */
	uint64_t n_lookups, n_forgets, n_forget_msgs, n_dropped, n_freed;
} colfsd;

/* The low-level operations table (ll.c). */
extern const struct fuse_lowlevel_ops colfsd_ll_ops;

/* Close the files the kernel never released (ll.c); call after the
 * session loop ended, before colfs_tree_destroy. */
void colfsd_files_close_all(colfsd *d);

/* forget.c: the thread freeing the nodes the kernel has forgotten, and
 * asking it to forget old listings past d->node_budget.  Started once the
 * session is mounted (after fuse_daemonize), stopped after its loop and
 * before colfs_tree_destroy. */
void colfsd_forget_start(colfsd *d);
void colfsd_forget_stop(colfsd *d);
/* The kernel holds node `ino` `count` fewer times (a forget, or an entry
 * that did not reach it): what is no longer held is freed by the thread. */
void colfsd_unref(colfsd *d, uint64_t ino, uint64_t count);
void colfsd_unref_many(colfsd *d, const uint64_t *ino, const uint64_t *count,
		       size_t n);
/* A directory handle is closed (releasedir, or an open not answered). */
void colfsd_dir_close(colfsd *d, colfs_node *dir);
/* After a request that may have made nodes: past 3/4 of the budget,
 * wake the thread (cheap when under it). */
void colfsd_budget_check(colfsd *d);
/* SIGUSR1: one line on stderr, "colfs: nodes: N alive, at most P at once
 * (node_budget B); L lookups, F forgotten in M messages, D listings
 * dropped, R directories freed"; installed with the session's signal
 * handlers. */
void colfsd_nodes_signal(colfsd *d);

/* The one place where a colfs_status becomes an errno (errno.c). */
int colfsd_errno(colfs_status st);

#endif

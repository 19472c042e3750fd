/* colfs: decoding ahead (ahead.c): a pool of worker threads that render
 * the pieces after the one a reader is at, for streams whose ops are
 * `concurrent` (tree.h), and put them into the piece cache.
 *
 * A reader (one per open handle of such a stream, or a passing one while
 * a stat or a seek learns lengths) says which piece it is at; the pool
 * keeps the next `window` pieces rendering, a window that keeps every
 * reader's pieces ahead within half the cache budget together.  Workers
 * take one piece at a time from the readers in turn (round robin), so
 * one reader's backlog never starves another.  A reader that jumps
 * elsewhere (a seek) or goes away cancels what it had asked for and not
 * started; pieces already rendering finish into the cache.
 *
 * Locking: the pool has one mutex, never held while a piece renders nor
 * while calling into the tree or the cache.  A worker renders with no
 * lock of the pool held, so a reader that waits for a piece a worker is
 * rendering (colfs_ahead_wait) holds only its stream lock, which no
 * worker takes.
 */
#ifndef COLFS_AHEAD_H
#define COLFS_AHEAD_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "../colfs.h"

typedef struct colfs_ahead colfs_ahead;
typedef struct colfs_ahead_reader colfs_ahead_reader;

/* What a worker does: render piece `i` of stream `n` into the cache
 * (tree_read.c; a failure is left for the reader to meet). */
typedef void (*colfs_ahead_render_fn)(colfs_tree *t, colfs_node *n,
				      uint64_t i);

/* A job for a worker besides pieces (colfs_ahead_task): called once with
 * `run` true by a worker, or with `run` false when the pool ends before
 * one took it; it frees `arg` either way. */
typedef void (*colfs_ahead_task_fn)(colfs_tree *t, void *arg, bool run);

/* A pool of `threads` workers (at least 1) that keeps at most `budget`
 * bytes of pieces ahead of all its readers together.  NULL when no
 * thread could be started or out of memory (then nothing is decoded
 * ahead). */
colfs_ahead *colfs_ahead_create(colfs_tree *t, unsigned threads,
				uint64_t budget, colfs_ahead_render_fn fn);
/* Stop the workers (each finishes the piece it renders) and free the
 * pool.  Every reader must be freed before.  NULL: nothing. */
void colfs_ahead_destroy(colfs_ahead *a);

/* A reader of stream `n` (inode `ino`); NULL when out of memory. */
colfs_ahead_reader *colfs_ahead_reader_new(colfs_ahead *a, colfs_node *n,
					   uint64_t ino);
/* Cancel its queued pieces and free it (NULL: nothing). */
void colfs_ahead_reader_free(colfs_ahead *a, colfs_ahead_reader *r);
/* The reader is at piece `i`, whose rendering is `len` bytes: keep the
 * pieces after it rendering.  A piece before the last one it was at, or
 * past those it had asked for, is a seek: the old queue is dropped. */
void colfs_ahead_at(colfs_ahead *a, colfs_ahead_reader *r, uint64_t i,
		    size_t len);
/* Wait while a worker renders piece `i` of inode `ino`; true when one
 * was (the piece is then in the cache, unless it failed or was evicted).
 * When none was, the caller renders it: a reader of `ino` about to hand
 * piece `i` to a worker hands out the next one instead, so that it is
 * not rendered twice. */
bool colfs_ahead_wait(colfs_ahead *a, uint64_t ino, uint64_t i);
/* The caller that colfs_ahead_wait left piece `i` of `ino` to is done
 * with it (rendered it, found it in the cache, or failed). */
void colfs_ahead_done(colfs_ahead *a, uint64_t ino, uint64_t i);
/* Wait until piece `i` of `ino` is no longer being rendered (as
 * colfs_ahead_rendering counts it): its worker has put it into the cache
 * or found it there, or the reader it was left to is done with it.  The
 * caller holds nothing that piece's rendering needs. */
void colfs_ahead_wait_left(colfs_ahead *a, uint64_t ino, uint64_t i);
/* Up to `max` pieces of `ino` in [lo, hi) that are being rendered now:
 * handed to a worker (from the moment it takes one, before it calls the
 * node) or left to a reader by colfs_ahead_wait and not done; their
 * count.  A format keeps what such a piece will need (parquet_shared_pages.c:
 * a page that piece starts in, while a later piece has gone past it). */
size_t colfs_ahead_rendering(colfs_ahead *a, uint64_t ino, uint64_t lo,
			     uint64_t hi, uint64_t *out, size_t max);
/* Wait until no worker renders a piece or runs a job, and no job is
 * queued (NULL: nothing).  With no reader left, no node is then in a
 * worker's hands (colfs_dir_release). */
void colfs_ahead_quiesce(colfs_ahead *a);
/* Queue job fn(arg) for the next free worker, before any piece (a
 * format decoding the page its readers will need next while they render
 * this one); false when out of memory (fn is not called). */
bool colfs_ahead_task(colfs_ahead *a, colfs_ahead_task_fn fn, void *arg);
/* How many workers the pool runs. */
unsigned colfs_ahead_threads(const colfs_ahead *a);

#endif

/* colfs: the piece cache: rendered pieces of streams and documents'
 * bytes, refcounted blobs keyed by (inode, piece), in a hash with an LRU
 * bounded by bytes (-o cache_size).  It has its own lock; a blob a reader
 * holds is never freed under it.
 *
 * What goes first when the cache is full: idle buffers, then the pieces
 * a reader has gone past (colfs_piece_cache_passed), least recently
 * passed first, then the others (pieces rendered ahead and not read yet,
 * a piece a reader is in, documents), least recently used first.  A
 * sequential reader's pieces behind it are dead weight (the kernel keeps
 * what it read), while those rendered ahead are the next to be read:
 * evicted first by a plain LRU, they were rendered again.
 */
#ifndef COLFS_PIECECACHE_H
#define COLFS_PIECECACHE_H

#include "buf.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct colfs_blob {
	uint64_t ino, piece;        /* cache key */
	char *data;
	size_t len;
	unsigned refs;              /* guarded by the cache lock */
	bool cached;                /* in the hash and LRU */
	bool passed;                /* in the passed list, not the LRU */
	struct colfs_blob *hnext;         /* hash chain */
	struct colfs_blob *prev, *next;   /* LRU, most recent at head */
} colfs_blob;

/* A list of blobs, most recent at head. */
typedef struct colfs_blob_list {
	colfs_blob *head, *tail;
} colfs_blob_list;

typedef struct colfs_piece_cache {
	pthread_mutex_t lock;
	colfs_blob **buckets;
	size_t nbuckets;    /* a power of two, grown with nblobs */
	size_t nblobs;      /* blobs in the cache */
	colfs_blob_list lru;     /* least recently used at the tail */
	colfs_blob_list passed;  /* gone past by a reader: evicted first */
	uint64_t bytes, cap;
	uint64_t charged;   /* memory held elsewhere in the cache's stead */
	struct colfs_idle_buf *idle;  /* large buffers kept for reuse */
	uint64_t idle_bytes;
} colfs_piece_cache;

colfs_status colfs_piece_cache_init(colfs_piece_cache *c, uint64_t cap);
void colfs_piece_cache_destroy(colfs_piece_cache *c);
/* A referenced blob for (ino, piece), or NULL. */
colfs_blob *colfs_piece_cache_get(colfs_piece_cache *c, uint64_t ino,
				  uint64_t piece);
/* A reader's cursor is past `b` (read to its end, or stepped over to a
 * later piece): among the first to be evicted, until someone gets it
 * again (a seek back: colfs_piece_cache_get puts it back in the LRU). */
void colfs_piece_cache_passed(colfs_piece_cache *c, colfs_blob *b);
/* Drop a reference (NULL: nothing); the last one frees an evicted blob. */
void colfs_piece_cache_release(colfs_piece_cache *c, colfs_blob *b);
/* Insert a blob (the caller holds one reference, kept) and evict the least
 * recently used unreferenced blobs beyond the cap. */
void colfs_piece_cache_put(colfs_piece_cache *c, colfs_blob *b);
/* colfs_piece_cache_put, unless a blob with the same key is there
 * already (another thread rendered it too): then that one, referenced,
 * and `b` is freed.  Returns the blob in the cache, referenced. */
colfs_blob *colfs_piece_cache_put_once(colfs_piece_cache *c, colfs_blob *b);
/* A blob with one reference holding the bytes of `buf` (taken), not in
 * the cache; NULL when out of memory. */
colfs_blob *colfs_blob_from_buf(uint64_t ino, uint64_t piece, colfs_buf *buf);
/* Free a blob no cache holds (NULL: nothing). */
void colfs_blob_free(colfs_blob *b);
/* Count `bytes` held outside the cache (a page decoded ahead) against its
 * cap, evicting unreferenced pieces to make room, so that the cache and
 * that memory together stay within the cap; false, and nothing counted,
 * when they would take more than half of it. */
bool colfs_piece_cache_charge(colfs_piece_cache *c, uint64_t bytes);
/* Give back what colfs_piece_cache_charge counted. */
void colfs_piece_cache_uncharge(colfs_piece_cache *c, uint64_t bytes);

/* Large buffers reused instead of mapped afresh (a decoded page's
 * buffers: its decompressed bytes, values and levels).  Blocks of
 * COLFS_BUF_POOL_MIN and more are mapped on their own (colfs_malloc_setup)
 * and each new one is faulted in and zeroed by the kernel; one given back
 * is kept idle in the cache, counted against its cap like a piece, and
 * handed to the next request it fits.  Idle blocks are the first memory
 * the cache gives up (before any piece), and together with what is
 * charged they hold at most half of the cap, so the memory bound of
 * docs/performance.md holds with them.  `c` NULL: plain malloc and free.
 *
 * A block of at least `need` bytes: an idle one of need to 2 x need
 * bytes (the smallest), else a new one of `want` (>= need) bytes, on huge
 * pages when large; its size in *cap.  NULL when out of memory. */
#define COLFS_BUF_POOL_MIN ((size_t)4 << 20)
void *colfs_piece_cache_buf_get(colfs_piece_cache *c, size_t need,
				size_t want, size_t *cap);
/* Give back a block of `cap` bytes from colfs_piece_cache_buf_get (or
 * malloc): kept idle when it is large and the cap allows, evicting
 * unreferenced pieces to make room, else freed.  NULL: nothing. */
void colfs_piece_cache_buf_put(colfs_piece_cache *c, void *mem, size_t cap);

#endif

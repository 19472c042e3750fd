/* colfs: the piece cache (piececache.h). */
#include "piececache.h"

#include <stdlib.h>
#include <string.h>

/* An idle block's first bytes (colfs_piece_cache_buf_get): blocks are
 * megabytes, so the list costs nothing beside them. */
typedef struct colfs_idle_buf {
	struct colfs_idle_buf *next;
	size_t cap;
} colfs_idle_buf;

colfs_status colfs_piece_cache_init(colfs_piece_cache *c, uint64_t cap)
{
	pthread_mutex_init(&c->lock, NULL);
	c->nbuckets = 4096;
	c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
	c->cap = cap;
	return c->buckets ? COLFS_OK : COLFS_ENOMEM;
}

/* Every bit of both keys reaches the low bits (a murmur3-style finish):
 * inode numbers differ in their upper half too (tree.c's epochs: an
 * offline walk makes the same slots again and again). */
static size_t slot_of(uint64_t ino, uint64_t piece, size_t nbuckets)
{
	uint64_t h = ino * 0x9E3779B97F4A7C15ull ^
		     (piece + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;

	h ^= h >> 33;
	h *= 0xFF51AFD7ED558CCDull;
	h ^= h >> 33;
	return (size_t)h & (nbuckets - 1);
}

static size_t cache_slot(const colfs_piece_cache *c, uint64_t ino, uint64_t piece)
{
	return slot_of(ino, piece, c->nbuckets);
}

void colfs_blob_free(colfs_blob *b)
{
	if (b) {
		free(b->data);
		free(b);
	}
}

static void list_unlink(colfs_blob_list *l, colfs_blob *b)
{
	if (b->prev)
		b->prev->next = b->next;
	else
		l->head = b->next;
	if (b->next)
		b->next->prev = b->prev;
	else
		l->tail = b->prev;
	b->prev = b->next = NULL;
}

static void list_push(colfs_blob_list *l, colfs_blob *b)
{
	b->prev = NULL;
	b->next = l->head;
	if (l->head)
		l->head->prev = b;
	l->head = b;
	if (!l->tail)
		l->tail = b;
}

/* Out of whichever list holds it. */
static void lru_unlink(colfs_piece_cache *c, colfs_blob *b)
{
	list_unlink(b->passed ? &c->passed : &c->lru, b);
	b->passed = false;
}

/* At the head of the LRU: just used. */
static void lru_push(colfs_piece_cache *c, colfs_blob *b)
{
	list_push(&c->lru, b);
}

static void cache_remove_locked(colfs_piece_cache *c, colfs_blob *b)
{
	colfs_blob **pp = &c->buckets[cache_slot(c, b->ino, b->piece)];
	while (*pp && *pp != b)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = b->hnext;
	lru_unlink(c, b);
	b->cached = false;
	c->bytes -= b->len;
	c->nblobs--;
}

/* A cache of small documents holds tens of thousands of blobs (a wide
 * file's chunk documents): the buckets double when there are more than
 * two blobs a bucket, so a lookup (a miss before every document is made)
 * walks a short chain.  Kept as they are when the memory is not there. */
#define CACHE_MAX_BUCKETS ((size_t)1 << 22)

static void cache_grow_locked(colfs_piece_cache *c)
{
	size_t want = c->nbuckets * 2;
	colfs_blob **grown;

	if (c->nblobs <= 2 * c->nbuckets || want > CACHE_MAX_BUCKETS)
		return;
	grown = calloc(want, sizeof *grown);
	if (!grown)
		return;
	for (size_t i = 0; i < c->nbuckets; i++) {
		colfs_blob *b = c->buckets[i];

		while (b) {
			colfs_blob *next = b->hnext;
			size_t slot = slot_of(b->ino, b->piece, want);

			b->hnext = grown[slot];
			grown[slot] = b;
			b = next;
		}
	}
	free(c->buckets);
	c->buckets = grown;
	c->nbuckets = want;
}

static colfs_blob *cache_find_locked(colfs_piece_cache *c, uint64_t ino,
				     uint64_t piece)
{
	colfs_blob *b = c->buckets[cache_slot(c, ino, piece)];
	while (b && !(b->ino == ino && b->piece == piece))
		b = b->hnext;
	return b;
}

/* A referenced colfs_blob for (ino, piece), or NULL. */
colfs_blob *colfs_piece_cache_get(colfs_piece_cache *c, uint64_t ino, uint64_t piece)
{
	pthread_mutex_lock(&c->lock);
	colfs_blob *b = cache_find_locked(c, ino, piece);
	if (b) {
		b->refs++;
		lru_unlink(c, b);
		lru_push(c, b);
	}
	pthread_mutex_unlock(&c->lock);
	return b;
}

void colfs_piece_cache_passed(colfs_piece_cache *c, colfs_blob *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&c->lock);
	if (b->cached && !b->passed) {
		list_unlink(&c->lru, b);
		list_push(&c->passed, b);
		b->passed = true;
	}
	pthread_mutex_unlock(&c->lock);
}

void colfs_piece_cache_release(colfs_piece_cache *c, colfs_blob *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&c->lock);
	bool dead = --b->refs == 0 && !b->cached;
	pthread_mutex_unlock(&c->lock);
	if (dead)
		colfs_blob_free(b);
}

/* Bring the cache and what is charged to it back within the cap: idle
 * buffers go first (with `pieces_only`, none: a buffer just given back
 * makes room for itself), then the unreferenced blobs readers have gone
 * past, then the least recently used other ones (piececache.h says
 * why).  Both are returned chained, to be freed without the lock. */
typedef struct cache_dead {
	colfs_blob *blobs;      /* chained by hnext */
	colfs_idle_buf *bufs;
} cache_dead;

static bool over_locked(const colfs_piece_cache *c)
{
	return c->bytes + c->charged + c->idle_bytes > c->cap;
}

/* Idle buffers out until they and the cache's other holdings are within
 * `limit` (the cap, or half of it for idle buffers and the charge). */
static void idle_drop_locked(colfs_piece_cache *c, uint64_t held,
			     uint64_t limit, cache_dead *dead)
{
	while (c->idle && held + c->idle_bytes > limit) {
		colfs_idle_buf *i = c->idle;
		c->idle = i->next;
		c->idle_bytes -= i->cap;
		i->next = dead->bufs;
		dead->bufs = i;
	}
}

static void evict_locked(colfs_piece_cache *c, bool pieces_only,
			 cache_dead *dead)
{
	if (!pieces_only)
		idle_drop_locked(c, c->bytes + c->charged, c->cap, dead);
	for (int k = 0; k < 2; k++) {
		colfs_blob *v = k ? c->lru.tail : c->passed.tail;
		while (v && over_locked(c)) {
			colfs_blob *prev = v->prev;
			if (v->refs == 0) {
				cache_remove_locked(c, v);
				v->hnext = dead->blobs;
				dead->blobs = v;
			}
			v = prev;
		}
	}
}

static void free_dead(cache_dead *dead)
{
	size_t heap = 0;

	while (dead->blobs) {
		colfs_blob *next = dead->blobs->hnext;
		if (dead->blobs->len < COLFS_BUF_POOL_MIN)
			heap += dead->blobs->len;
		colfs_blob_free(dead->blobs);
		dead->blobs = next;
	}
	if (heap)
		colfs_mem_freed(heap);
	while (dead->bufs) {
		colfs_idle_buf *next = dead->bufs->next;
		free(dead->bufs);
		dead->bufs = next;
	}
}

/* Insert `b` (once) and evict beyond the cap; with `once`, a blob of the
 * same key already there is returned referenced instead. */
static colfs_blob *cache_insert(colfs_piece_cache *c, colfs_blob *b,
				bool once)
{
	cache_dead dead = {0};
	pthread_mutex_lock(&c->lock);
	if (once) {
		colfs_blob *had = cache_find_locked(c, b->ino, b->piece);
		if (had) {
			had->refs++;
			lru_unlink(c, had);
			lru_push(c, had);
			pthread_mutex_unlock(&c->lock);
			colfs_blob_free(b);
			return had;
		}
	}
	size_t slot = cache_slot(c, b->ino, b->piece);
	b->hnext = c->buckets[slot];
	c->buckets[slot] = b;
	lru_push(c, b);
	b->cached = true;
	c->bytes += b->len;
	c->nblobs++;
	cache_grow_locked(c);
	evict_locked(c, false, &dead);
	pthread_mutex_unlock(&c->lock);
	free_dead(&dead);
	return b;
}

bool colfs_piece_cache_charge(colfs_piece_cache *c, uint64_t bytes)
{
	cache_dead dead = {0};

	pthread_mutex_lock(&c->lock);
	if (bytes > c->cap / 2 || c->charged > c->cap / 2 - bytes) {
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	c->charged += bytes;
	/* idle buffers and the charge share half of the cap */
	idle_drop_locked(c, c->charged, c->cap / 2, &dead);
	evict_locked(c, false, &dead);
	pthread_mutex_unlock(&c->lock);
	free_dead(&dead);
	/* the room is for memory about to be used: the holes the pieces
	 * evicted leave go first */
	colfs_mem_mapping(bytes);
	return true;
}

void colfs_piece_cache_uncharge(colfs_piece_cache *c, uint64_t bytes)
{
	pthread_mutex_lock(&c->lock);
	c->charged -= bytes < c->charged ? bytes : c->charged;
	pthread_mutex_unlock(&c->lock);
}

/* Insert a colfs_blob (the caller holds one reference, kept) and evict the least
 * recently used unreferenced blobs beyond the cap. */
void colfs_piece_cache_put(colfs_piece_cache *c, colfs_blob *b)
{
	cache_insert(c, b, false);
}

colfs_blob *colfs_piece_cache_put_once(colfs_piece_cache *c, colfs_blob *b)
{
	return cache_insert(c, b, true);
}

void colfs_piece_cache_destroy(colfs_piece_cache *c)
{
	for (int k = 0; k < 2; k++) {
		colfs_blob *b = k ? c->lru.head : c->passed.head;
		while (b) {
			colfs_blob *next = b->next;
			colfs_blob_free(b);
			b = next;
		}
	}
	cache_dead dead = {.bufs = c->idle};
	free_dead(&dead);
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
}

colfs_blob *colfs_blob_from_buf(uint64_t ino, uint64_t piece, colfs_buf *buf)
{
	colfs_blob *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	size_t cap = buf->cap;

	b->ino = ino;
	b->piece = piece;
	b->data = colfs_buf_take(buf, &b->len);
	/* The cache counts b->len: a piece rendered with room to spare (a
	 * bound on its length reserved at once) is copied into a block of
	 * its length and the large one freed whole, for the next piece to
	 * reuse.  Shrunk in place instead, each cached piece left a hole
	 * that the next piece's reservation did not fit, and the heap grew
	 * to twice the cache (cat columns/seq: 150 MB for a 64 MiB cache). */
	if (b->len >= (size_t)4 << 20 && cap - b->len > 4096) {
		/* past the mmap threshold (colfs_malloc_setup) both blocks
		 * are mappings, off the heap: shrunk in place (mremap), not
		 * copied, which had held a large footer's root layout.svg
		 * (97 MB) twice at check's peak */
		char *fit = realloc(b->data, b->len);
		if (fit)
			b->data = fit;
	} else if (b->len && cap - b->len > b->len / 64 + 4096) {
		char *fit = malloc(b->len);
		if (fit) {
			memcpy(fit, b->data, b->len);
			free(b->data);
			b->data = fit;
		}
	}
	b->refs = 1;
	return b;
}

void *colfs_piece_cache_buf_get(colfs_piece_cache *c, size_t need,
				size_t want, size_t *cap)
{
	void *p;

	if (c && need >= COLFS_BUF_POOL_MIN) {
		colfs_idle_buf **best = NULL;
		pthread_mutex_lock(&c->lock);
		for (colfs_idle_buf **pp = &c->idle; *pp; pp = &(*pp)->next)
			if ((*pp)->cap >= need && (*pp)->cap / 2 <= need &&
			    (!best || (*pp)->cap < (*best)->cap))
				best = pp;
		if (best) {
			colfs_idle_buf *i = *best;
			*best = i->next;
			c->idle_bytes -= i->cap;
			pthread_mutex_unlock(&c->lock);
			*cap = i->cap;
			return i;
		}
		pthread_mutex_unlock(&c->lock);
	}
	if (want < need)
		want = need;
	colfs_mem_mapping(want);   /* a new block: the peak (buf.h) */
	p = malloc(want ? want : 1);
	*cap = p ? want : 0;
	colfs_mem_hugepages(p, *cap);
	return p;
}

void colfs_piece_cache_buf_put(colfs_piece_cache *c, void *mem, size_t cap)
{
	cache_dead dead = {0};

	if (!mem)
		return;
	if (!c || cap < COLFS_BUF_POOL_MIN) {
		free(mem);
		return;
	}
	pthread_mutex_lock(&c->lock);
	if (cap > c->cap / 2 || c->charged + c->idle_bytes > c->cap / 2 - cap) {
		pthread_mutex_unlock(&c->lock);
		free(mem);
		return;
	}
	colfs_idle_buf *i = mem;
	i->next = c->idle;
	i->cap = cap;
	c->idle = i;
	c->idle_bytes += cap;
	evict_locked(c, true, &dead);
	pthread_mutex_unlock(&c->lock);
	free_dead(&dead);
}

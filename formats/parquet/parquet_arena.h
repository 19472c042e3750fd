/* colfs: the arena of a Parquet file's typed model (parquet_arena.c;
 * module-private). */
#ifndef COLFS_PARQUET_ARENA_H
#define COLFS_PARQUET_ARENA_H

#include "parquet.h"

/* The sizes of the arena's blocks and big regions (parquet_meta.c sizes
 * the first block by the footer when it makes the arena). */
#define ARENA_BLOCK (64 * 1024)
/* The first block is no larger than the footer (at least this), so a
 * small file's model costs about its footer, not 64 KiB. */
#define ARENA_BLOCK_MIN 4096
/* Row groups' chunk arrays come from regions of this size, mapped with
 * transparent huge pages asked for: touching a fresh 4 KiB page at a time
 * was most of the time a 15 MB footer took to parse. */
#define ARENA_BIG (8u << 20)
/* ... for a footer of at least this size; a smaller one's chunk arrays
 * are ordinary arena memory (a region's first touch costs a whole huge
 * page, 2 MiB, which made every open tree of a dataset of small files
 * hold 2 MiB). */
#define ARENA_BIG_MIN_FOOTER (1u << 20)

typedef struct arena_map {
	void *p;
	size_t len;
} arena_map;

struct parquet_arena {
	void **ptrs;
	size_t n, cap;
	uint8_t *block;          /* the block small allocations come from */
	size_t used;             /* bytes of it handed out */
	size_t block_size;       /* its size (the first: by the footer) */
	bool big_ok;             /* chunk arrays from big regions */
	arena_map *maps;         /* the big regions */
	size_t nmaps, capmaps;
	size_t big_used;         /* bytes of the last one handed out */
};

/* A growable array whose memory joins the arena once complete. */
typedef struct parquet_grow {
	void *data;
	size_t n, cap, size;
} parquet_grow;

/* Make `p` (malloc'd) the arena's, freed with it; on failure `p` is
 * freed and false answered. */
bool parquet_arena_adopt(parquet_file *pf, void *p);

/* `bytes` of zeroed memory, 16-aligned, NULL when out of memory. */
void *parquet_arena_alloc(parquet_file *pf, size_t bytes);

/* n zeroed elements of `size` bytes, NULL when out of memory. */
void *parquet_arena_calloc(parquet_file *pf, size_t n, size_t size);

/* `bytes` of zeroed memory from the big regions (a chunk array). */
void *parquet_arena_big(parquet_file *pf, size_t n, size_t size);

/* A NUL-terminated copy of `len` bytes of `s`. */
char *parquet_arena_strndup(parquet_file *pf, const uint8_t *s, size_t len);

/* The next element of `g`, zeroed; NULL when out of memory. */
void *parquet_grow_next(parquet_grow *g);

/* `g`'s elements, now the arena's (an empty one: one zeroed element). */
void *parquet_grow_finish(parquet_file *pf, parquet_grow *g);

#endif

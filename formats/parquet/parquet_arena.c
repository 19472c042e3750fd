/* colfs: the arena of a Parquet file's typed model (parquet.h): every
 * allocation of the model, freed together by parquet_file_destroy.
 *
 * Small allocations (a chunk's encodings, names, paths) are carved from
 * blocks, so a footer of 200,000 chunks costs a few hundred blocks, not
 * hundreds of thousands of mallocs with their headers; large ones (the
 * footer, a row group's chunk array) are adopted whole. */
#include "parquet_arena.h"
#include "../core/buf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

bool parquet_arena_adopt(parquet_file *pf, void *p)
{
	struct parquet_arena *a = pf->arena;

	if (!p)
		return false;
	if (!colfs_grow((void **)&a->ptrs, &a->cap, a->n + 1,
			sizeof *a->ptrs)) {
		free(p);
		return false;
	}
	a->ptrs[a->n++] = p;
	return true;
}

/* `bytes` of zeroed memory, 16-aligned, NULL when out of memory. */
void *parquet_arena_alloc(parquet_file *pf, size_t bytes)
{
	struct parquet_arena *a = pf->arena;
	size_t want = (bytes + 15) & ~(size_t)15;
	void *p;

	if (!bytes)
		want = 16;
	if (want < bytes)
		return NULL;
	if (want > ARENA_BLOCK / 4)
		return parquet_arena_adopt(pf, p = calloc(1, want)) ? p : NULL;
	if (!a->block || a->block_size - a->used < want) {
		/* each block twice the last, up to ARENA_BLOCK */
		size_t size = !a->block ? a->block_size
			      : a->block_size * 2 > ARENA_BLOCK ? ARENA_BLOCK
			      : a->block_size * 2;
		if (size < ARENA_BLOCK_MIN)
			size = ARENA_BLOCK_MIN;
		while (size < want)
			size *= 2;
		uint8_t *b = calloc(1, size);
		if (!parquet_arena_adopt(pf, b))
			return NULL;
		a->block = b;
		a->block_size = size;
		a->used = 0;
	}
	p = a->block + a->used;
	a->used += want;
	return p;
}

void *parquet_arena_calloc(parquet_file *pf, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return parquet_arena_alloc(pf, bytes);
}

/* `bytes` of zeroed memory from the big regions (a chunk array). */
void *parquet_arena_big(parquet_file *pf, size_t n, size_t size)
{
	struct parquet_arena *a = pf->arena;
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	bytes = (bytes + 63) & ~(size_t)63;
#ifdef __SANITIZE_ADDRESS__
	/* under AddressSanitizer each array is its own allocation, so that
	 * a read past one is caught */
	return parquet_arena_calloc(pf, n, size);
#endif
	if (!bytes || bytes > ARENA_BIG / 2 || !a->big_ok)
		return parquet_arena_calloc(pf, n, size);
	if (!a->nmaps || ARENA_BIG - a->big_used < bytes) {
		if (!colfs_grow((void **)&a->maps, &a->capmaps, a->nmaps + 1,
				sizeof *a->maps))
			return NULL;
		p = mmap(NULL, ARENA_BIG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		colfs_mem_hugepages(p, ARENA_BIG);
		a->maps[a->nmaps++] = (arena_map){p, ARENA_BIG};
		a->big_used = 0;
	}
	p = (uint8_t *)a->maps[a->nmaps - 1].p + a->big_used;
	a->big_used += bytes;
	return p;
}

char *parquet_arena_strndup(parquet_file *pf, const uint8_t *s, size_t len)
{
	char *p = len + 1 ? parquet_arena_alloc(pf, len + 1) : NULL;
	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = 0;
	return p;
}

void parquet_file_destroy(parquet_file *pf)
{
	if (!pf)
		return;
	if (pf->arena) {
		for (size_t i = 0; i < pf->arena->n; i++)
			free(pf->arena->ptrs[i]);
		free(pf->arena->ptrs);
		for (size_t i = 0; i < pf->arena->nmaps; i++)
			munmap(pf->arena->maps[i].p, pf->arena->maps[i].len);
		free(pf->arena->maps);
		free(pf->arena);
	}
	free(pf);
}


void *parquet_grow_next(parquet_grow *g)
{
	if (!colfs_grow(&g->data, &g->cap, g->n + 1, g->size))
		return NULL;
	memset((char *)g->data + g->n * g->size, 0, g->size);
	return (char *)g->data + g->n++ * g->size;
}

void *parquet_grow_finish(parquet_file *pf, parquet_grow *g)
{
	void *p = g->data;
	g->data = NULL;
	if (!p)
		return parquet_arena_calloc(pf, 1, g->size);
	return parquet_arena_adopt(pf, p) ? p : NULL;
}

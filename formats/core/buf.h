/* colfs: a growable byte buffer for generated documents and rendered
 * pieces.  Allocation failure is sticky: after one failed append every
 * later append is a no-op and colfs_buf_status() answers COLFS_ENOMEM, so
 * renderers can append freely and check once at the end. */
#ifndef COLFS_BUF_H
#define COLFS_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "status.h"

typedef struct colfs_buf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
} colfs_buf;

#define COLFS_BUF_INIT {0}

void colfs_buf_free(colfs_buf *b);
/* Make room for `extra` more bytes; returns false (and marks failure) if
 * it cannot. */
bool colfs_buf_reserve(colfs_buf *b, size_t extra);
/* The same with no room to spare: the buffer ends up exactly as large as
 * asked (a piece whose length is known before it is rendered is kept in
 * its own block, not copied into one; piececache.c). */
bool colfs_buf_reserve_exact(colfs_buf *b, size_t extra);
void colfs_buf_append(colfs_buf *b, const void *data, size_t len);
void colfs_buf_puts(colfs_buf *b, const char *s);
void colfs_buf_putc(colfs_buf *b, char c);
void colfs_buf_printf(colfs_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void colfs_buf_vprintf(colfs_buf *b, const char *fmt, va_list ap);
colfs_status colfs_buf_status(const colfs_buf *b);
/* Hand the bytes over to the caller (who frees them); the buffer is reset. */
char *colfs_buf_take(colfs_buf *b, size_t *len);

/* Grow the array *arr (of *cap elements of `elem` bytes) to hold `need`,
 * doubling; false when out of memory or past what size_t can count (the
 * array is left as it was).  The one realloc-doubling of colfs. */
static inline bool colfs_grow(void **arr, size_t *cap, size_t need,
			      size_t elem)
{
	if (need <= *cap)
		return true;
	if (*cap > SIZE_MAX / 2)
		return false;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return false;
		nc *= 2;
	}
	if (elem && nc > SIZE_MAX / elem)
		return false;
	void *p = realloc(*arr, nc * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = nc;
	return true;
}

/* Ask for huge pages under a large buffer (at least 4 MiB; smaller ones
 * are left alone): the 2 MiB-aligned interior of [p, p + n) is advised
 * MADV_HUGEPAGE.  Decoding streams through page buffers of several MiB
 * that a cursor keeps and reuses; with 4 KiB pages every pass over them
 * paid a fault per page and a TLB miss per 4 KiB (measured: a third to
 * half of the CPU time of `cat columns/X` on a 1M-row row group).  Only
 * advice: without transparent huge pages it does nothing. */
void colfs_mem_hugepages(void *p, size_t n);

/* `bytes` of heap blocks were just freed (pieces the cache evicted).  The
 * heap keeps freed memory between live blocks resident, and a view's
 * pieces do not fit the holes another view's smaller ones left (md5
 * after four other columns on one mount: 20 to 40 MB of holes beside the
 * cache); at each MiB freed it looks, and once the heap's resident free
 * bytes have grown by 4 MiB since the last trim its free pages are given
 * back (malloc_trim).  Resident, as the kernel counts them
 * (/proc/self/statm), not the free bytes malloc counts: a hole given
 * back stays free, and the cache's churn faults it in again, so the free
 * bytes did not grow while the holes became resident one by one (md5 on
 * one mount: 14 MiB of them at its peak).  Looked at every 8 MiB, the
 * holes reached 16 MiB between looks (dbl at its bound on one mount).  A
 * hole reused later is faulted in again, as fresh memory would be.  A
 * look walks the heap's free chunks, so the next one waits 50 times as
 * long as the last took (a heap of millions of small blocks: looks cost
 * at most about 2 %). */
void colfs_mem_freed(size_t bytes);

/* A block of `bytes` is about to be mapped, or a mapped one to be filled
 * again (a decoded page's buffer), or the piece cache made room for
 * `bytes` held elsewhere (colfs_piece_cache_charge).  When it is large
 * (16 MiB and more), the heap's holes that grew by 1 MiB since the last
 * trim are given back first, whenever the last look was: such a block
 * beside the holes the cache's churn left is the daemon's peak, and a
 * page's buffers reused from page to page map nothing, so a trim before
 * mapping alone no longer came (md5 on one mount: 22 MiB of holes). */
void colfs_mem_mapping(size_t bytes);

#endif

#include "buf.h"
#include "colfs.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

void colfs_buf_free(colfs_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}

/* Room for `extra` more bytes: 1 already there, -1 never (failed, or
 * past what a size can hold: the buffer is failed), 0 to be grown. */
static int buf_room(colfs_buf *b, size_t extra)
{
	if (b->failed)
		return -1;
	if (extra <= b->cap - b->len)
		return 1;
	if (extra > SIZE_MAX / 2 - b->len) {
		b->failed = true;
		return -1;
	}
	return 0;
}

/* Grow the block to `cap` bytes, or fail the buffer. */
static bool buf_realloc(colfs_buf *b, size_t cap)
{
	char *p = realloc(b->data, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->data = p;
	b->cap = cap;
	return true;
}

bool colfs_buf_reserve(colfs_buf *b, size_t extra)
{
	int room = buf_room(b, extra);
	if (room)
		return room > 0;
	size_t want = b->len + extra;
	size_t cap = b->cap ? b->cap : 256;
	if (extra > cap && want > ((size_t)1 << 20)) {
		/* a large reservation at once (a piece's whole text): an
		 * eighth to spare, not the next power of two, which could
		 * take a 2.1 MB piece past the mmap threshold (colfs.h,
		 * colfs_malloc_setup) onto fresh pages every time.  Into an
		 * empty buffer, exactly what is asked: a piece that knows
		 * its size is not trimmed afterwards, and a trimmed block
		 * leaves a hole in the heap that the next, equal piece
		 * does not fit (the heap of a long cat grew by 20 MB) */
		cap = b->len ? want + want / 8 : want;
	} else {
		while (cap < want)
			cap *= 2;
	}
	return buf_realloc(b, cap);
}

bool colfs_buf_reserve_exact(colfs_buf *b, size_t extra)
{
	int room = buf_room(b, extra);
	return room ? room > 0 : buf_realloc(b, b->len + extra);
}

void colfs_buf_append(colfs_buf *b, const void *data, size_t len)
{
	if (len == 0 || !colfs_buf_reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void colfs_buf_puts(colfs_buf *b, const char *s)
{
	colfs_buf_append(b, s, strlen(s));
}

void colfs_buf_putc(colfs_buf *b, char c)
{
	if (!colfs_buf_reserve(b, 1))
		return;
	b->data[b->len++] = c;
}

void colfs_buf_vprintf(colfs_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		b->failed = true;
	} else if ((size_t)n < sizeof small) {
		colfs_buf_append(b, small, (size_t)n);
	} else if (colfs_buf_reserve(b, (size_t)n + 1)) {
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void colfs_buf_printf(colfs_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	colfs_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

colfs_status colfs_buf_status(const colfs_buf *b)
{
	return b->failed ? COLFS_ENOMEM : COLFS_OK;
}

char *colfs_buf_take(colfs_buf *b, size_t *len)
{
	char *p = b->data;
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void colfs_malloc_setup(void)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

#define GIVE_BACK_EVERY ((size_t)1 << 20)   /* bytes freed between looks */
#define GIVE_BACK_MORE ((size_t)4 << 20)    /* heap_idle grown by, to trim */
#define GIVE_BACK_MAPPED ((size_t)16 << 20) /* a block this large mapped */
#define GIVE_BACK_BEFORE_MAP ((size_t)1 << 20) /* ... trims at this growth */

#define LOOK_COST_SHARE 50   /* a look waits 50 times its own duration */

static size_t mem_freed;   /* since the last look; atomic */
static pthread_mutex_t mem_look = PTHREAD_MUTEX_INITIALIZER;
static size_t mem_idle_low = SIZE_MAX;   /* guarded by mem_look */
static uint64_t mem_next_look;   /* CLOCK_MONOTONIC ns; guarded by mem_look */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The heap's resident bytes that hold no block, as well as the kernel
 * tells: the process's resident anonymous memory (/proc/self/statm:
 * resident less shared) less the mapped blocks and the heap's blocks in
 * use.  The rest of the anonymous memory (thread stacks, libraries'
 * data) is about constant, so growth is holes faulted in.  The heap's
 * free bytes do not tell it: a hole given back stays free, and the
 * cache's churn refills it (faulting it in) and leaves it again without
 * them growing, so a long read made the holes resident one by one (md5
 * on one mount: 14 MiB of them at its peak).  The free bytes when /proc
 * is not there. */
static size_t heap_idle(const struct mallinfo2 *mi)
{
	static long page;
	char b[128];
	unsigned long size, res, shared;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (!page)
		page = sysconf(_SC_PAGESIZE);
	if (n <= 0 || page <= 0)
		return mi->fordblks;
	b[n] = '\0';
	if (sscanf(b, "%lu %lu %lu", &size, &res, &shared) != 3 ||
	    res < shared)
		return mi->fordblks;
	size_t anon = (size_t)(res - shared) * (size_t)page;
	size_t held = mi->hblkhd + mi->uordblks;
	return anon > held ? anon - held : 0;
}

/* Trim when the heap's resident free bytes (heap_idle) have grown by
 * `more` over the least seen since the last trim.  Called with mem_look
 * held. */
static void give_back_locked(size_t more, bool now)
{
	/* mallinfo2 and malloc_trim walk the heap's free chunks: a heap of
	 * millions of small blocks (check of a 200,000-chunk footer) made
	 * looking every MiB half of all the CPU.  The time a look took sets
	 * when the next may come, so looking costs at most about 2 %. */
	uint64_t start = mono_ns();
	if (start < mem_next_look && !now)
		return;
	/* Trimming whenever the resident holes are many would give back,
	 * again and again, the holes a steady stream of pieces refills (a
	 * fault per page of every piece).  So only when they have grown
	 * over the least seen since the last trim: new holes.  `now`: even
	 * if the last look was recent (a large block about to be used). */
	struct mallinfo2 mi = mallinfo2();
	size_t idle = heap_idle(&mi);
	if (idle < mem_idle_low)
		mem_idle_low = idle;
	if (idle > mem_idle_low + more) {
		malloc_trim(4 << 20);
		mi = mallinfo2();
		mem_idle_low = heap_idle(&mi);
	}
	uint64_t end = mono_ns();
	mem_next_look = end + (end - start) * LOOK_COST_SHARE;
}

void colfs_mem_freed(size_t bytes)
{
	if (__atomic_add_fetch(&mem_freed, bytes, __ATOMIC_RELAXED) <
	    GIVE_BACK_EVERY)
		return;
	/* one thread looks; the others go on */
	if (__atomic_exchange_n(&mem_freed, 0, __ATOMIC_RELAXED) <
	    GIVE_BACK_EVERY || pthread_mutex_trylock(&mem_look))
		return;
	give_back_locked(GIVE_BACK_MORE, false);
	pthread_mutex_unlock(&mem_look);
}

void colfs_mem_mapping(size_t bytes)
{
	if (bytes < GIVE_BACK_MAPPED)
		return;
	pthread_mutex_lock(&mem_look);
	give_back_locked(GIVE_BACK_BEFORE_MAP, true);
	pthread_mutex_unlock(&mem_look);
}

void colfs_mem_hugepages(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;

	if (!p || n < 2 * huge)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t e = ((uintptr_t)p + n) & ~(huge - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
}

#include "source.h"
#include "cursor.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* What the descriptor looked like when it changed (first seen). */
typedef struct source_change {
	pthread_mutex_t lock;
	bool seen;              /* atomic; set once, never cleared */
	uint64_t reads;         /* atomic: preads made */
	/* colfs_source_set_check_interval: an fstat at most every
	 * interval_ns; last_ns (atomic) when the last one found no change. */
	uint64_t interval_ns;
	uint64_t last_ns;
	uint64_t size;
	struct timespec mtime;
} source_change;

struct colfs_source {
	int fd;
	int own_fd;
	uint64_t size;
	struct timespec mtime;  /* at creation */
	source_change *change;  /* file sources: written by checks */
	unsigned char *mem;     /* memory source when fd < 0 and !ops */
	const colfs_source_ops *ops; /* backend source */
	void *ctx;
};

colfs_status colfs_source_create_fd(int fd, int own_fd, colfs_source **out)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return COLFS_EIO;
	colfs_source *s = calloc(1, sizeof *s);
	if (!s)
		return COLFS_ENOMEM;
	s->change = calloc(1, sizeof *s->change);
	if (!s->change) {
		free(s);
		return COLFS_ENOMEM;
	}
	pthread_mutex_init(&s->change->lock, NULL);
	s->fd = fd;
	s->own_fd = own_fd;
	s->size = (uint64_t)st.st_size;
	s->mtime = st.st_mtim;
	*out = s;
	return COLFS_OK;
}

colfs_status colfs_source_create_memory(const void *data, size_t len,
					colfs_source **out)
{
	colfs_source *s = calloc(1, sizeof *s);
	if (!s)
		return COLFS_ENOMEM;
	s->fd = -1;
	s->size = len;
	s->mem = malloc(len ? len : 1);
	if (!s->mem) {
		free(s);
		return COLFS_ENOMEM;
	}
	if (len)
		memcpy(s->mem, data, len);
	*out = s;
	return COLFS_OK;
}

colfs_status colfs_source_create_ops(const colfs_source_ops *ops, void *ctx,
				     uint64_t size, colfs_source **out)
{
	colfs_source *s = calloc(1, sizeof *s);
	if (!s) {
		ops->destroy(ctx);
		return COLFS_ENOMEM;
	}
	s->change = calloc(1, sizeof *s->change);
	if (!s->change) {
		free(s);
		ops->destroy(ctx);
		return COLFS_ENOMEM;
	}
	pthread_mutex_init(&s->change->lock, NULL);
	s->fd = -1;
	s->size = size;
	s->ops = ops;
	s->ctx = ctx;
	*out = s;
	return COLFS_OK;
}

void *colfs_source_ops_ctx(const colfs_source *src)
{
	return src->ops ? src->ctx : NULL;
}

void colfs_source_will_need(const colfs_source *src, uint64_t offset,
			    uint64_t len)
{
	if (src->ops && src->ops->will_need && offset < src->size)
		src->ops->will_need(src->ctx, offset,
				    len < src->size - offset ? len
							     : src->size - offset);
}

int64_t colfs_source_answered(const colfs_source *src)
{
	if (!src || !src->ops || !src->ops->answered)
		return 0;
	return src->ops->answered(src->ctx);
}

colfs_status colfs_source_io(const colfs_source *src, colfs_buf *out)
{
	if (!src->ops || !src->ops->io)
		return COLFS_ENOENT;
	return src->ops->io(src->ctx, out);
}

void colfs_source_destroy(colfs_source *src)
{
	if (!src)
		return;
	if (src->ops)
		src->ops->destroy(src->ctx);
	if (src->fd >= 0 && src->own_fd)
		close(src->fd);
	if (src->change) {
		pthread_mutex_destroy(&src->change->lock);
		free(src->change);
	}
	free(src->mem);
	free(src);
}

uint64_t colfs_source_size(const colfs_source *src)
{
	return src->size;
}

int colfs_source_fd(const colfs_source *src)
{
	return src->fd;
}

uint64_t colfs_source_reads(const colfs_source *src)
{
	return src->change ? __atomic_load_n(&src->change->reads,
					     __ATOMIC_ACQUIRE)
			   : 0;
}

void colfs_source_set_check_interval(colfs_source *src, uint32_t ms)
{
	if (src->change && !src->ops) {
		src->change->interval_ns = (uint64_t)ms * 1000000u;
		/* the first check after this one makes its fstat */
		src->change->last_ns = 0;
	}
}

bool colfs_source_changed(const colfs_source *src)
{
	return src->change &&
	       __atomic_load_n(&src->change->seen, __ATOMIC_ACQUIRE);
}

/* "2026-11-24T20:30:01.123456789Z" */
static void source_time(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	time_t sec = ts->tv_sec;
	char day[32];

	if (!gmtime_r(&sec, &tm) ||
	    !strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(day, sizeof day, "%lld", (long long)sec);
	snprintf(buf, len, "%s.%09ldZ", day, (long)ts->tv_nsec);
}

static colfs_status source_check(const colfs_source *src, colfs_err *err,
				 bool often)
{
	source_change *c = src->change;

	if (src->ops) {
		colfs_status st;

		if (!src->ops->check)
			return COLFS_OK;
		st = src->ops->check(src->ctx, err);
		if (st == COLFS_EIO) /* colfs_source_changed answers at once */
			__atomic_store_n(&c->seen, true, __ATOMIC_RELEASE);
		return st;
	}
	if (!c)
		return COLFS_OK; /* memory: never changes */
	if (!__atomic_load_n(&c->seen, __ATOMIC_ACQUIRE)) {
		struct stat st;
		uint64_t now = 0;

		if (often && c->interval_ns) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
			now = (uint64_t)ts.tv_sec * 1000000000u +
			      (uint64_t)ts.tv_nsec;
			if (now - __atomic_load_n(&c->last_ns,
						  __ATOMIC_RELAXED) <
			    c->interval_ns)
				return COLFS_OK;
		}

		/* A descriptor that cannot be fstat'ed any more is not one
		 * whose bytes can be trusted either; it is reported by the
		 * read that needs it. */
		if (fstat(src->fd, &st) != 0)
			return colfs_fail(err, COLFS_EIO, 0,
					  "cannot check the file for changes: %s",
					  strerror(errno));
		if ((uint64_t)st.st_size == src->size &&
		    st.st_mtim.tv_sec == src->mtime.tv_sec &&
		    st.st_mtim.tv_nsec == src->mtime.tv_nsec) {
			if (c->interval_ns)
				__atomic_store_n(&c->last_ns, now,
						 __ATOMIC_RELAXED);
			return COLFS_OK;
		}
		pthread_mutex_lock(&c->lock);
		if (!c->seen) {
			c->size = (uint64_t)st.st_size;
			c->mtime = st.st_mtim;
			__atomic_store_n(&c->seen, true, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&c->lock);
	}
	char was[48], now[48];
	source_time(&src->mtime, was, sizeof was);
	source_time(&c->mtime, now, sizeof now);
	return colfs_fail(err, COLFS_EIO, 0,
			  "source changed since mount (size %llu -> %llu, mtime %s -> %s): remount",
			  (unsigned long long)src->size,
			  (unsigned long long)c->size, was, now);
}

colfs_status colfs_source_check(const colfs_source *src, colfs_err *err)
{
	return source_check(src, err, false);
}

colfs_status colfs_source_check_often(const colfs_source *src,
				      colfs_err *err)
{
	return source_check(src, err, true);
}

colfs_status colfs_source_pread(const colfs_source *src, uint64_t offset,
				size_t len, void *buf, size_t *got,
				colfs_err *err)
{
	*got = 0;
	if (colfs_source_changed(src))
		return colfs_source_check(src, err);
	if (offset >= src->size)
		return COLFS_OK;
	if (len > src->size - offset)
		len = (size_t)(src->size - offset);
	if (src->ops) {
		__atomic_add_fetch(&src->change->reads, 1, __ATOMIC_ACQ_REL);
		return src->ops->pread(src->ctx, offset, len, buf, got, err);
	}
	if (src->fd < 0) {
		memcpy(buf, src->mem + offset, len);
		*got = len;
		return COLFS_OK;
	}
	size_t done = 0;
	__atomic_add_fetch(&src->change->reads, 1, __ATOMIC_ACQ_REL);
	while (done < len) {
		ssize_t n = pread(src->fd, (char *)buf + done, len - done,
				  (off_t)(offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return colfs_fail(err, COLFS_EIO, offset + done,
					  "read failed: %s", strerror(errno));
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	/* A file that ended early may have been cut since: say so rather
	 * than let the reader blame the file. */
	if (done < len)
		COLFS_TRY(colfs_source_check(src, err));
	*got = done;
	return COLFS_OK;
}

colfs_status colfs_source_read_at(const colfs_source *src, uint64_t offset,
				  size_t len, void *buf, colfs_err *err)
{
	if (colfs_source_changed(src))
		return colfs_source_check(src, err);
	if (offset > src->size || len > src->size - offset)
		return colfs_fail(err, COLFS_ETRUNCATED, offset,
				  "expected %zu bytes at offset %llu, file has %llu",
				  len, (unsigned long long)offset,
				  (unsigned long long)src->size);
	size_t got;
	COLFS_TRY(colfs_source_pread(src, offset, len, buf, &got, err));
	if (got != len)
		return colfs_fail(err, COLFS_ETRUNCATED, offset + got,
				  "file ended after %zu of %zu bytes", got, len);
	return COLFS_OK;
}

colfs_status colfs_source_read_region(const colfs_source *src,
				      uint64_t offset, uint64_t len,
				      uint64_t max_alloc, uint8_t **out,
				      colfs_err *err)
{
	uint64_t end, size = colfs_source_size(src);
	uint8_t *buf;

	*out = NULL;
	if (colfs_add_overflows(offset, len, &end) || end > size)
		return colfs_fail(err, COLFS_EBOUNDS, offset,
				  "region of %llu bytes at %llu runs past the end of the file (%llu bytes)",
				  (unsigned long long)len,
				  (unsigned long long)offset,
				  (unsigned long long)size);
	if (len > max_alloc)
		return colfs_fail(err, COLFS_EOVERFLOW, offset,
				  "region of %llu bytes is larger than the max_alloc cap (%llu)",
				  (unsigned long long)len,
				  (unsigned long long)max_alloc);
	buf = malloc(len ? (size_t)len : 1);
	if (!buf)
		return colfs_fail(err, COLFS_ENOMEM, offset,
				  "out of memory for %llu bytes",
				  (unsigned long long)len);
	if (len) {
		colfs_status st = colfs_source_read_at(src, offset, (size_t)len,
						       buf, err);
		if (st) {
			free(buf);
			return st;
		}
	}
	*out = buf;
	return COLFS_OK;
}

/* ------------------------------------------------------------------------
 * Windows: a part of another source.
 */
typedef struct source_window {
	colfs_source *parent;
	uint64_t base;
} source_window;

static colfs_status window_pread(void *ctx, uint64_t offset, size_t len,
				 void *buf, size_t *got, colfs_err *err)
{
	const source_window *w = ctx;
	colfs_status st = colfs_source_pread(w->parent, w->base + offset, len,
					     buf, got, err);
	if (st != COLFS_OK && err && err->offset >= w->base)
		err->offset -= w->base;
	return st;
}

static colfs_status window_check(void *ctx, colfs_err *err)
{
	const source_window *w = ctx;
	return colfs_source_check(w->parent, err);
}

static void window_will_need(void *ctx, uint64_t offset, uint64_t len)
{
	const source_window *w = ctx;
	colfs_source_will_need(w->parent, w->base + offset, len);
}

static void window_destroy(void *ctx)
{
	free(ctx);
}

static const colfs_source_ops window_ops = {
	.pread = window_pread,
	.check = window_check,
	.will_need = window_will_need,
	.destroy = window_destroy,
};

colfs_status colfs_source_create_window(colfs_source *parent, uint64_t offset,
					uint64_t len, colfs_source **out)
{
	*out = NULL;
	if (offset > parent->size || len > parent->size - offset)
		return COLFS_EBOUNDS;
	source_window *w = calloc(1, sizeof *w);
	if (!w)
		return COLFS_ENOMEM;
	w->parent = parent;
	w->base = offset;
	return colfs_source_create_ops(&window_ops, w, len, out);
}

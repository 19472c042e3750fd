/* colfs: a source over a remote object (remote.h, docs/remote.md).
 *
 * The format code reads through colfs_source_read_at as it does for a
 * file; this backend answers from a block cache of fetched bytes and asks
 * the server (colfs_http, http.c) only for what is missing:
 *
 *   - the tail: one suffix GET of RS_TAIL bytes at open, whose
 *     Content-Range gives the object's size (no HEAD).  It holds the
 *     footer of every format, and stays for the life of the mount
 *     outside the cache's budget;
 *   - the cache: extents of exactly the bytes fetched (not padded to
 *     aligned blocks), sorted and never overlapping, evicted least
 *     recently used first once they hold more than -o remote_cache;
 *   - hints (colfs_source_will_need): a format announces the range it is
 *     about to read (a Parquet column chunk, an ORC stream, a raw file);
 *     the next read that misses fetches the announced ranges with it, so
 *     a chunk is one request and not one per page header, and the
 *     announced ranges nearby go in one request (coalesced across gaps of
 *     at most RS_GAP and at most a twentieth of the bytes joined, so
 *     that no more than 5% of a request is bytes nobody asked for);
 *   - windows: a miss inside a hinted range fetches up to a window (a
 *     quarter of the budget) of it, a sequential run of reads outside
 *     any hint a growing window after the read;
 *   - requests in flight: each planned range is split into parts of at
 *     most RS_PART bytes, all sent at once (colfs_http_get_ranges); a
 *     reader whose bytes are being fetched by another waits for them
 *     rather than asking twice;
 *   - a read larger than half the budget goes straight into the caller's
 *     buffer, uncached, so that one large page does not empty the cache.
 */
/* source.h first: remote.h names struct colfs_source. */
#include "../core/hex.h"
#include "../core/source.h"
#include "../core/options.h"
#include "../core/tree.h"
#include "remote.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The first request: the last RS_TAIL bytes.  The size is not known
 * before the reply, so it is the issue's upper bound (docs/remote.md). */
#define RS_TAIL (2u << 20)
/* Announced ranges closer than this are fetched in one request. */
#define RS_GAP (1u << 20)
/* The largest single request: larger ranges go in parts, in flight at
 * once. */
#define RS_PART (4u << 20)
/* Hints remembered (the oldest is replaced). */
#define RS_HINTS 64
/* A sequential run's first window after the read. */
#define RS_SEQ_FIRST (128u << 10)

typedef struct rs_extent {
	uint64_t off;
	size_t len;
	uint8_t *data;
	uint64_t used;  /* tick of the last read it served */
	bool pinned;    /* the tail: never evicted, outside the budget */
} rs_extent;

typedef struct rs_range {
	uint64_t off, end;
} rs_range;

typedef struct rs_hint {
	uint64_t off, end;
	uint64_t stamp;
	bool started;   /* fetched (at least its first window) */
} rs_hint;

typedef struct remote_source {
	colfs_http *http;
	char *display;
	uint64_t size;
	pthread_mutex_t lock;
	pthread_cond_t fetched;  /* a fetch ended */
	rs_extent *ext;          /* sorted by offset, never overlapping */
	size_t n_ext, cap_ext;
	uint64_t held, budget, window, tick;
	rs_range *flight;        /* ranges being fetched */
	size_t n_flight, cap_flight;
	rs_hint hints[RS_HINTS];
	size_t n_hints;
	uint64_t seq_next, seq_win;
	int64_t answered;        /* atomic: the last fetch that succeeded
				  * (CLOCK_REALTIME ns) */
	/* counters for `io` */
	uint64_t reads, bytes_read, bytes_cached, bytes_fetched_for_reads;
	uint64_t direct_bytes, evicted, hints_given, tail_len;
} remote_source;

/* The server answered a fetch: a failure filed before is past. */
static void rs_answered_now(remote_source *rs)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	__atomic_store_n(&rs->answered,
			 (int64_t)now.tv_sec * 1000000000 + now.tv_nsec,
			 __ATOMIC_RELEASE);
}

static int64_t rs_answered(void *ctx)
{
	const remote_source *rs = ctx;
	return __atomic_load_n(&rs->answered, __ATOMIC_ACQUIRE);
}

/* Index of the first extent that ends after `off`. */
static size_t rs_first(const remote_source *rs, uint64_t off)
{
	size_t lo = 0, hi = rs->n_ext;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rs->ext[mid].off + rs->ext[mid].len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The parts of [off, end) no extent holds, appended to *gaps. */
static bool rs_missing(const remote_source *rs, uint64_t off, uint64_t end,
		       rs_range **gaps, size_t *n, size_t *cap)
{
	uint64_t at = off;
	for (size_t i = rs_first(rs, off); i < rs->n_ext && at < end; i++) {
		const rs_extent *e = &rs->ext[i];
		if (e->off >= end)
			break;
		if (e->off > at) {
			if (!colfs_grow((void **)gaps, cap, *n + 1, sizeof **gaps))
				return false;
			(*gaps)[(*n)++] = (rs_range){at, e->off};
		}
		at = e->off + e->len;
	}
	if (at < end) {
		if (!colfs_grow((void **)gaps, cap, *n + 1, sizeof **gaps))
			return false;
		(*gaps)[(*n)++] = (rs_range){at, end};
	}
	return true;
}

/* Where the first extent or fetch in flight at or after `off` starts
 * (the size when none): a planned range stops there. */
static uint64_t rs_next_held(const remote_source *rs, uint64_t off)
{
	uint64_t next = rs->size;
	size_t i = rs_first(rs, off);
	if (i < rs->n_ext && rs->ext[i].off < next)
		next = rs->ext[i].off > off ? rs->ext[i].off : off;
	for (size_t k = 0; k < rs->n_flight; k++) {
		const rs_range *f = &rs->flight[k];
		if (f->end > off && f->off < next)
			next = f->off > off ? f->off : off;
	}
	return next;
}

static bool rs_in_flight(const remote_source *rs, uint64_t off, uint64_t end)
{
	for (size_t k = 0; k < rs->n_flight; k++)
		if (rs->flight[k].off < end && rs->flight[k].end > off)
			return true;
	return false;
}

/* Copy [off, off + len) from the extents (all present). */
static void rs_copy(remote_source *rs, uint64_t off, size_t len, uint8_t *buf)
{
	uint64_t end = off + len;
	rs->tick++;
	for (size_t i = rs_first(rs, off); i < rs->n_ext; i++) {
		rs_extent *e = &rs->ext[i];
		if (e->off >= end)
			break;
		uint64_t a = e->off > off ? e->off : off;
		uint64_t b = e->off + e->len < end ? e->off + e->len : end;
		memcpy(buf + (a - off), e->data + (a - e->off), (size_t)(b - a));
		e->used = rs->tick;
	}
}

/* Insert an extent (not overlapping any); takes `data`. */
static bool rs_insert(remote_source *rs, uint64_t off, size_t len,
		      uint8_t *data, bool pinned)
{
	if (!colfs_grow((void **)&rs->ext, &rs->cap_ext, rs->n_ext + 1,
		     sizeof *rs->ext))
		return false;
	size_t i = rs_first(rs, off);
	memmove(rs->ext + i + 1, rs->ext + i,
		(rs->n_ext - i) * sizeof *rs->ext);
	rs->ext[i] = (rs_extent){off, len, data, ++rs->tick, pinned};
	rs->n_ext++;
	if (!pinned)
		rs->held += len;
	return true;
}

/* Drop the least recently used extents until the budget holds. */
static void rs_evict(remote_source *rs)
{
	while (rs->held > rs->budget) {
		size_t victim = SIZE_MAX;
		for (size_t i = 0; i < rs->n_ext; i++)
			if (!rs->ext[i].pinned &&
			    (victim == SIZE_MAX ||
			     rs->ext[i].used < rs->ext[victim].used))
				victim = i;
		if (victim == SIZE_MAX)
			return;
		rs->held -= rs->ext[victim].len;
		rs->evicted += rs->ext[victim].len;
		free(rs->ext[victim].data);
		memmove(rs->ext + victim, rs->ext + victim + 1,
			(rs->n_ext - victim - 1) * sizeof *rs->ext);
		rs->n_ext--;
	}
}

static const rs_hint *rs_hint_at(const remote_source *rs, uint64_t off)
{
	for (size_t i = 0; i < rs->n_hints; i++)
		if (rs->hints[i].off <= off && off < rs->hints[i].end)
			return &rs->hints[i];
	return NULL;
}

static int rs_range_cmp(const void *a, const void *b)
{
	const rs_range *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Fetch `plan` (sorted, disjoint, registered in flight) in parts, all in
 * flight at once; called without the lock.  On success the parts'
 * buffers are in `bufs`. */
static colfs_status rs_fetch(remote_source *rs, const rs_range *plan,
			     size_t n, colfs_http_range **parts_out,
			     size_t *n_parts, colfs_err *err)
{
	size_t np = 0;
	for (size_t i = 0; i < n; i++)
		np += (size_t)((plan[i].end - plan[i].off + RS_PART - 1) /
			       RS_PART);
	colfs_http_range *parts = calloc(np ? np : 1, sizeof *parts);
	if (!parts)
		return colfs_fail(err, COLFS_ENOMEM, plan[0].off,
				  "out of memory for the request plan");
	size_t k = 0;
	colfs_status st = COLFS_OK;
	for (size_t i = 0; i < n && !st; i++) {
		for (uint64_t at = plan[i].off; at < plan[i].end; at += RS_PART) {
			size_t len = (size_t)(plan[i].end - at < RS_PART
						      ? plan[i].end - at
						      : RS_PART);
			parts[k] = (colfs_http_range){at, len, malloc(len)};
			if (!parts[k++].buf) {
				st = colfs_fail(err, COLFS_ENOMEM, at,
						"out of memory for %zu bytes",
						len);
				break;
			}
		}
	}
	if (!st)
		st = colfs_http_get_ranges(rs->http, parts, np, err);
	if (!st)
		rs_answered_now(rs);
	if (st) {
		for (size_t i = 0; i < np; i++)
			free(parts[i].buf);
		free(parts);
		return st;
	}
	*parts_out = parts;
	*n_parts = np;
	return COLFS_OK;
}

static void rs_flight_remove(remote_source *rs, const rs_range *plan, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < rs->n_flight; k++)
			if (rs->flight[k].off == plan[i].off &&
			    rs->flight[k].end == plan[i].end) {
				rs->flight[k] = rs->flight[--rs->n_flight];
				break;
			}
}

/* The request plan for a read whose bytes `gaps` are missing: each gap,
 * widened inside its hint or sequential run, and the hints announced and
 * not fetched yet; sorted and coalesced.  Called with the lock. */
static bool rs_plan(remote_source *rs, uint64_t off, const rs_range *gaps,
		    size_t n_gaps, rs_range **plan, size_t *n, size_t *cap)
{
	uint64_t total = 0;
	bool seq = off == rs->seq_next && off != 0;

	for (size_t i = 0; i < n_gaps; i++) {
		rs_range g = gaps[i];
		const rs_hint *h = rs_hint_at(rs, g.off);
		uint64_t want = g.end;
		if (h) {
			uint64_t w = g.off + rs->window;
			want = h->end < w ? h->end : w;
		} else if (seq) {
			want = g.end + rs->seq_win;
		}
		if (want < g.end)
			want = g.end;
		uint64_t stop = rs_next_held(rs, g.end);
		if (want > stop)
			want = stop;
		if (want > rs->size)
			want = rs->size;
		g.end = want > g.end ? want : g.end;
		if (!colfs_grow((void **)plan, cap, *n + 1, sizeof **plan))
			return false;
		(*plan)[(*n)++] = g;
		total += g.end - g.off;
	}
	/* The hints announced and not yet fetched: their first window. */
	for (size_t i = 0; i < rs->n_hints; i++) {
		rs_hint *h = &rs->hints[i];
		if (h->started)
			continue;
		h->started = true;
		uint64_t end = h->end - h->off > rs->window ? h->off + rs->window
							    : h->end;
		rs_range *more = NULL;
		size_t nm = 0, cm = 0;
		if (!rs_missing(rs, h->off, end, &more, &nm, &cm)) {
			free(more);
			return false;
		}
		for (size_t k = 0; k < nm && total < rs->budget / 2; k++) {
			if (rs_in_flight(rs, more[k].off, more[k].end))
				continue;
			bool dup = false;
			for (size_t j = 0; j < *n; j++)
				if ((*plan)[j].off < more[k].end &&
				    (*plan)[j].end > more[k].off)
					dup = true;
			if (dup)
				continue;
			if (!colfs_grow((void **)plan, cap, *n + 1, sizeof **plan)) {
				free(more);
				return false;
			}
			(*plan)[(*n)++] = more[k];
			total += more[k].end - more[k].off;
		}
		free(more);
	}
	qsort(*plan, *n, sizeof **plan, rs_range_cmp);
	/* Overlaps (a widened gap reaching a hint) joined; ranges close
	 * together coalesced when nothing held lies between them. */
	size_t w = 0;
	for (size_t i = 0; i < *n; i++) {
		rs_range r = (*plan)[i];
		if (w > 0) {
			rs_range *last = &(*plan)[w - 1];
			if (r.off <= last->end) {
				if (r.end > last->end)
					last->end = r.end;
				continue;
			}
			uint64_t gap = r.off - last->end;
			if (gap <= RS_GAP &&
			    gap <= (last->end - last->off + r.end - r.off) / 20 &&
			    rs_next_held(rs, last->end) >= r.off) {
				last->end = r.end;
				continue;
			}
		}
		(*plan)[w++] = r;
	}
	*n = w;
	return true;
}

static colfs_status rs_pread(void *ctx, uint64_t off, size_t len, void *buf,
			     size_t *got, colfs_err *err)
{
	remote_source *rs = ctx;
	rs_range *gaps = NULL, *plan = NULL;
	size_t n_gaps = 0, cap_gaps = 0, n_plan = 0, cap_plan = 0;
	colfs_status st = COLFS_OK;
	bool waited = false;

	*got = 0;
	if (len == 0)
		return COLFS_OK;
	pthread_mutex_lock(&rs->lock);
	rs->reads++;
	rs->bytes_read += len;
	for (;;) {
		n_gaps = 0;
		if (!rs_missing(rs, off, off + len, &gaps, &n_gaps, &cap_gaps)) {
			st = colfs_fail(err, COLFS_ENOMEM, off,
					"out of memory for the request plan");
			break;
		}
		if (n_gaps == 0) {
			rs_copy(rs, off, len, buf);
			if (waited)
				rs->bytes_fetched_for_reads += len;
			else
				rs->bytes_cached += len;
			*got = len;
			break;
		}
		bool busy = false;
		for (size_t i = 0; i < n_gaps && !busy; i++)
			busy = rs_in_flight(rs, gaps[i].off, gaps[i].end);
		if (busy) {
			/* Another reader is fetching these bytes. */
			waited = true;
			pthread_cond_wait(&rs->fetched, &rs->lock);
			continue;
		}
		waited = true;
		uint64_t missing = 0;
		for (size_t i = 0; i < n_gaps; i++)
			missing += gaps[i].end - gaps[i].off;
		if (missing > rs->budget / 2) {
			/* Too large to keep: straight into the caller's
			 * buffer, the held parts copied from the cache. */
			rs_copy(rs, off, len, buf);
			pthread_mutex_unlock(&rs->lock);
			colfs_http_range *parts = calloc(n_gaps, sizeof *parts);
			if (!parts)
				return colfs_fail(err, COLFS_ENOMEM, off,
						  "out of memory");
			for (size_t i = 0; i < n_gaps; i++)
				parts[i] = (colfs_http_range){
					gaps[i].off,
					(size_t)(gaps[i].end - gaps[i].off),
					(uint8_t *)buf + (gaps[i].off - off)};
			st = colfs_http_get_ranges(rs->http, parts, n_gaps, err);
			if (!st)
				rs_answered_now(rs);
			free(parts);
			free(gaps);
			pthread_mutex_lock(&rs->lock);
			if (!st) {
				rs->direct_bytes += missing;
				rs->bytes_fetched_for_reads += len;
				rs->seq_next = off + len;
				*got = len;
			}
			pthread_mutex_unlock(&rs->lock);
			return st;
		}
		n_plan = 0;
		if (!rs_plan(rs, off, gaps, n_gaps, &plan, &n_plan, &cap_plan) ||
		    !colfs_grow((void **)&rs->flight, &rs->cap_flight,
			     rs->n_flight + n_plan, sizeof *rs->flight)) {
			st = colfs_fail(err, COLFS_ENOMEM, off,
					"out of memory for the request plan");
			break;
		}
		for (size_t i = 0; i < n_plan; i++)
			rs->flight[rs->n_flight++] = plan[i];
		pthread_mutex_unlock(&rs->lock);

		colfs_http_range *parts = NULL;
		size_t n_parts = 0;
		st = rs_fetch(rs, plan, n_plan, &parts, &n_parts, err);

		pthread_mutex_lock(&rs->lock);
		rs_flight_remove(rs, plan, n_plan);
		for (size_t i = 0; !st && i < n_parts; i++) {
			if (rs_insert(rs, parts[i].offset, parts[i].len,
				      parts[i].buf, false))
				parts[i].buf = NULL;
		}
		for (size_t i = 0; i < n_parts; i++)
			free(parts[i].buf);
		free(parts);
		pthread_cond_broadcast(&rs->fetched);
		if (st)
			break;
		/* The read's own bytes were just used: evicted last. */
		rs->tick++;
		for (size_t i = 0; i < rs->n_ext; i++)
			if (rs->ext[i].off < off + len &&
			    rs->ext[i].off + rs->ext[i].len > off)
				rs->ext[i].used = rs->tick;
		rs_evict(rs);
	}
	if (!st) {
		/* A sequential run widens the window after it. */
		if (off == rs->seq_next) {
			rs->seq_win = rs->seq_win ? rs->seq_win * 2 : RS_SEQ_FIRST;
			if (rs->seq_win > rs->window)
				rs->seq_win = rs->window;
		} else {
			rs->seq_win = RS_SEQ_FIRST;
		}
		rs->seq_next = off + len;
	}
	pthread_mutex_unlock(&rs->lock);
	free(gaps);
	free(plan);
	return st;
}

static colfs_status rs_check(void *ctx, colfs_err *err)
{
	remote_source *rs = ctx;
	return colfs_http_check(rs->http, err);
}

static void rs_will_need(void *ctx, uint64_t off, uint64_t len)
{
	remote_source *rs = ctx;
	if (len == 0)
		return;
	pthread_mutex_lock(&rs->lock);
	rs->hints_given++;
	size_t slot = rs->n_hints;
	for (size_t i = 0; i < rs->n_hints; i++) {
		if (rs->hints[i].off == off) {
			slot = i;
			break;
		}
	}
	if (slot == RS_HINTS) {
		slot = 0;
		for (size_t i = 1; i < rs->n_hints; i++)
			if (rs->hints[i].stamp < rs->hints[slot].stamp)
				slot = i;
	} else if (slot == rs->n_hints) {
		rs->n_hints++;
	}
	rs->hints[slot] = (rs_hint){off, off + len, ++rs->tick, false};
	pthread_mutex_unlock(&rs->lock);
}

static void rs_human(char *buf, size_t n, uint64_t v)
{
	if (v >= (1ull << 30))
		snprintf(buf, n, " (%.1f GiB)", (double)v / (1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, n, " (%.1f MiB)", (double)v / (1ull << 20));
	else if (v >= (1ull << 10))
		snprintf(buf, n, " (%.1f KiB)", (double)v / (1ull << 10));
	else
		buf[0] = '\0';
}

static colfs_status rs_io(void *ctx, colfs_buf *out)
{
	remote_source *rs = ctx;
	colfs_http_stats hs;
	char h1[32], h2[32], h3[32], h4[32];

	colfs_http_stats_get(rs->http, &hs);
	pthread_mutex_lock(&rs->lock);
	remote_source c = *rs;
	size_t extents = 0;
	for (size_t i = 0; i < rs->n_ext; i++)
		extents += !rs->ext[i].pinned;
	pthread_mutex_unlock(&rs->lock);

	rs_human(h1, sizeof h1, c.size);
	rs_human(h2, sizeof h2, hs.bytes);
	colfs_buf_printf(out, "source: %s\nsize: %llu%s\n", c.display,
			 (unsigned long long)c.size, h1);
	colfs_buf_printf(out,
			 "requests: %llu\nbytes fetched: %llu%s\n"
			 "retries: %llu\nfailures: %llu\n",
			 (unsigned long long)hs.requests,
			 (unsigned long long)hs.bytes, h2,
			 (unsigned long long)hs.retries,
			 (unsigned long long)hs.failures);
	if (hs.lookups) /* hf://: the Hub said where the bytes are */
		colfs_buf_printf(out, "hub lookups: %llu\n",
				 (unsigned long long)hs.lookups);
	rs_human(h1, sizeof h1, c.bytes_read);
	rs_human(h2, sizeof h2, c.bytes_cached);
	rs_human(h3, sizeof h3, c.bytes_fetched_for_reads);
	rs_human(h4, sizeof h4, c.direct_bytes);
	colfs_buf_printf(out,
			 "reads: %llu\nbytes read: %llu%s\n"
			 "bytes served from the cache: %llu%s\n"
			 "bytes served after a request: %llu%s\n"
			 "bytes fetched uncached (large reads): %llu%s\n",
			 (unsigned long long)c.reads,
			 (unsigned long long)c.bytes_read, h1,
			 (unsigned long long)c.bytes_cached, h2,
			 (unsigned long long)c.bytes_fetched_for_reads, h3,
			 (unsigned long long)c.direct_bytes, h4);
	rs_human(h1, sizeof h1, c.held);
	rs_human(h2, sizeof h2, c.budget);
	rs_human(h3, sizeof h3, c.evicted);
	rs_human(h4, sizeof h4, c.tail_len);
	colfs_buf_printf(out,
			 "tail: %llu%s, kept for the mount\n"
			 "cache: %llu%s held in %zu extents, budget %llu%s\n"
			 "cache evicted: %llu%s\n"
			 "hints: %llu\n",
			 (unsigned long long)c.tail_len, h4,
			 (unsigned long long)c.held, h1, extents,
			 (unsigned long long)c.budget, h2,
			 (unsigned long long)c.evicted, h3,
			 (unsigned long long)c.hints_given);
	colfs_buf_puts(out, "slowest requests:\n");
	for (size_t i = 0; i < COLFS_HTTP_SLOWEST; i++) {
		const __typeof__(hs.slowest[0]) *s = &hs.slowest[i];
		if (s->ms <= 0 && s->status == 0 && s->len == 0)
			continue;
		if (s->len)
			colfs_buf_printf(out,
					 "  %.1f ms  bytes %llu-%llu (%llu)  status %d\n",
					 s->ms, (unsigned long long)s->offset,
					 (unsigned long long)(s->offset + s->len - 1),
					 (unsigned long long)s->len, s->status);
		else
			colfs_buf_printf(out, "  %.1f ms  tail  status %d\n",
					 s->ms, s->status);
	}
	return colfs_buf_status(out);
}

static void rs_destroy(void *ctx)
{
	remote_source *rs = ctx;
	if (!rs)
		return;
	colfs_http_destroy(rs->http);
	for (size_t i = 0; i < rs->n_ext; i++)
		free(rs->ext[i].data);
	free(rs->ext);
	free(rs->flight);
	free(rs->display);
	pthread_mutex_destroy(&rs->lock);
	pthread_cond_destroy(&rs->fetched);
	free(rs);
}

static const colfs_source_ops rs_ops = {
	.pread = rs_pread,
	.check = rs_check,
	.will_need = rs_will_need,
	.io = rs_io,
	.answered = rs_answered,
	.destroy = rs_destroy,
};

/* ------------------------------------------------------------------------
 * Targets
 */
bool colfs_remote_is_url(const char *s)
{
	return s && (strncmp(s, "http://", 7) == 0 ||
		     strncmp(s, "https://", 8) == 0 ||
		     strncmp(s, "s3:", 3) == 0 || colfs_azure_claims(s) ||
		     colfs_gcs_claims(s) || colfs_hf_claims(s));
}

/* Where a URL's user information starts, and its '@' in *at; NULL when
 * there is none. */
static char *rs_userinfo_span(char *u, char **at)
{
	size_t scheme;

	if (strncmp(u, "http://", 7) == 0)
		scheme = 7;
	else if (strncmp(u, "https://", 8) == 0)
		scheme = 8;
	else if (strncmp(u, "s3://", 5) == 0 || strncmp(u, "gs://", 5) == 0)
		scheme = 5;
	else
		return NULL;
	char *auth = u + scheme;
	size_t alen = strcspn(auth, "/?#");
	*at = NULL;
	for (size_t k = 0; k < alen; k++)
		if (auth[k] == '@')
			*at = auth + k;
	return *at ? auth : NULL;
}

void colfs_remote_url_hide(char *url)
{
	char *at, *p = rs_userinfo_span(url, &at);
	for (; p && p < at; p++)
		*p = '*';
}

char *colfs_remote_url_display(const char *url)
{
	char *d = strdup(url), *at, *p;
	if (d && (p = rs_userinfo_span(d, &at)))
		memmove(p, at + 1, strlen(at + 1) + 1);
	return d;
}

/* Percent-decode the user information (what libcurl's USERPWD wants). */
static char *rs_userinfo(const char *s, size_t n)
{
	char *out = malloc(n + 1);
	if (out)
		colfs_percent_decode(s, n, out);
	return out;
}

colfs_status colfs_http_target(const char *url, const colfs_options *o,
			       colfs_remote_target *out, char *why,
			       size_t why_len)
{
	size_t scheme;

	memset(out, 0, sizeof *out);
	if (strncmp(url, "http://", 7) == 0)
		scheme = 7;
	else if (strncmp(url, "https://", 8) == 0)
		scheme = 8;
	else {
		snprintf(why, why_len, "not an http:// or https:// URL");
		return COLFS_EUNSUPPORTED;
	}
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f) {
			snprintf(why, why_len,
				 "%.*s...: a URL may not hold spaces or control characters",
				 (int)scheme, url);
			return COLFS_ECORRUPT;
		}
	const char *auth = url + scheme;
	size_t alen = strcspn(auth, "/?#");
	const char *at = NULL;
	for (size_t i = 0; i < alen; i++)
		if (auth[i] == '@')
			at = auth + i;
	const char *host = at ? at + 1 : auth;
	size_t hlen = alen - (size_t)(host - auth);
	if (hlen == 0 || host[0] == ':') {
		snprintf(why, why_len, "%.*s: no host in the URL", (int)scheme,
			 url);
		return COLFS_ECORRUPT;
	}
	size_t rest = strlen(host);
	out->url = malloc(scheme + rest + 1);
	if (!out->url)
		goto nomem;
	memcpy(out->url, url, scheme);
	memcpy(out->url + scheme, host, rest + 1);
	out->display = strdup(out->url);
	if (!out->display)
		goto nomem;
	if (at) {
		out->userpwd = rs_userinfo(auth, (size_t)(at - auth));
		if (!out->userpwd)
			goto nomem;
	}
	if (o && o->cafile) {
		out->cafile = strdup(o->cafile);
		if (!out->cafile)
			goto nomem;
	}
	return COLFS_OK;
nomem:
	colfs_remote_target_clear(out);
	snprintf(why, why_len, "out of memory");
	return COLFS_ENOMEM;
}

/* ------------------------------------------------------------------------
 * Open
 */
colfs_status colfs_remote_open(const char *url, const colfs_options *o,
			       colfs_source **out, char **display, char *why,
			       size_t why_len)
{
	colfs_remote_target t;
	colfs_status st;
	colfs_options filled = {0};

	*out = NULL;
	if (o)
		filled = *o;
	colfs_options_defaults(&filled);
	o = &filled;
	if (strncmp(url, "s3:", 3) == 0)
		st = colfs_s3_target(url, o, &t, why, why_len);
	else if (colfs_azure_claims(url))
		st = colfs_azure_target(url, o, &t, NULL, why, why_len);
	else if (colfs_gcs_claims(url))
		st = colfs_gcs_target(url, o, &t, NULL, why, why_len);
	else if (colfs_hf_claims(url))
		st = colfs_hf_target(url, o, &t, why, why_len);
	else
		st = colfs_http_target(url, o, &t, why, why_len);
	if (st)
		return st;

	remote_source *rs = calloc(1, sizeof *rs);
	if (!rs) {
		colfs_remote_target_clear(&t);
		snprintf(why, why_len, "%s: out of memory", url);
		return COLFS_ENOMEM;
	}
	pthread_mutex_init(&rs->lock, NULL);
	pthread_cond_init(&rs->fetched, NULL);
	rs->display = strdup(t.display);
	rs->budget = o->remote_cache_bytes;
	rs->window = rs->budget / 4;
	st = rs->display ? colfs_http_create(&t, o, &rs->http, why, why_len)
			 : COLFS_ENOMEM;
	colfs_remote_target_clear(&t);
	if (st) {
		if (!why[0])
			snprintf(why, why_len, "%s: %s",
				 rs->display ? rs->display : "remote source",
				 colfs_status_name(st));
		rs_destroy(rs);
		return st;
	}

	uint8_t *tail = NULL;
	size_t got = 0;
	colfs_err err = {0};
	st = colfs_http_get_tail(rs->http, RS_TAIL, &tail, &got, &rs->size,
				 &err);
	if (st == COLFS_OK && got > rs->size)
		st = colfs_fail(&err, COLFS_ECORRUPT, 0,
				"%s: the server sent %zu bytes of a %llu-byte object",
				rs->display, got, (unsigned long long)rs->size);
	if (st == COLFS_OK && rs->size == 0)
		st = colfs_fail(&err, COLFS_EUNSUPPORTED, 0, "%s: empty file",
				rs->display);
	if (st == COLFS_OK && got &&
	    !rs_insert(rs, rs->size - got, got, tail, true))
		st = colfs_fail(&err, COLFS_ENOMEM, 0, "out of memory");
	if (st) {
		free(tail);
		if (strstr(err.msg, rs->display))
			snprintf(why, why_len, "%s", err.msg);
		else
			snprintf(why, why_len, "%s: %s", rs->display,
				 err.msg[0] ? err.msg : colfs_status_name(st));
		rs_destroy(rs);
		return st;
	}
	rs->tail_len = got;
	/* The head, when the size was learnt by a range from the start
	 * (Azure): cached too, but the part the tail already holds. */
	uint8_t *head = NULL;
	size_t hl = colfs_http_take_head(rs->http, &head);
	if (hl > rs->size - got)
		hl = (size_t)(rs->size - got);
	if (!hl || !rs_insert(rs, 0, hl, head, false))
		free(head);
	*display = strdup(rs->display);
	if (!*display) {
		rs_destroy(rs);
		snprintf(why, why_len, "out of memory");
		return COLFS_ENOMEM;
	}
	st = colfs_source_create_ops(&rs_ops, rs, rs->size, out);
	if (st) {
		free(*display);
		*display = NULL;
		snprintf(why, why_len, "out of memory");
	}
	return st;
}

/* colfs: what a node's bytes are: documents (rendered whole, cached),
 * streams (rendered piece by piece, some ahead of readers), their sizes,
 * and the handles that open and read them.
 */
#include "tree_int.h"
#include "cursor.h"
#include "options.h"
#include "sizeindex.h"
#include "sourcekind.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The piece-cache key of a document's bytes. */
#define DOC_PIECE UINT64_MAX

struct colfs_handle {
	colfs_tree *t;
	colfs_node *n;
	colfs_blob *doc;
	colfs_ahead_reader *ahead;   /* a concurrent stream's reader */
	/* A proxy's (ops->forward): the other tree and its node's handle. */
	colfs_tree *guest;
	colfs_handle *inner;
};

/* ------------------------------------------------------------------------
 * Documents
 */
/* The lines a summary starts with when the source is no longer what was
 * mounted: changed in place (every read fails), or its path now names
 * another file or nothing (the mount goes on serving the open one). */
static void tree_source_note(colfs_tree *t, colfs_buf *out)
{
	colfs_err e = {0};
	struct stat st;

	if (colfs_source_check(t->src, &e) != COLFS_OK ||
	    colfs_tree_format_check(t, true, &e) != COLFS_OK) {
		colfs_tree_file_change(t);
		colfs_buf_printf(out, "%s\n", e.msg);
		return;
	}
	if (!t->source_path)
		return;
	if (stat(t->source_path, &st) != 0)
		colfs_buf_printf(out, "source: %s: %s since mount; this mount "
				 "still serves the file that was opened then\n",
				 t->source_path,
				 errno == ENOENT ? "removed or renamed"
						 : strerror(errno));
	else if (st.st_dev != t->src_dev || st.st_ino != t->src_ino)
		colfs_buf_printf(out, "source: %s was replaced since mount "
				 "(now inode %llu, was %llu); this mount still "
				 "serves the file that was opened then: remount "
				 "to see the new one\n",
				 t->source_path, (unsigned long long)st.st_ino,
				 (unsigned long long)t->src_ino);
}

static colfs_status doc_render(colfs_tree *t, colfs_node *n, colfs_blob **out)
{
	colfs_buf buf = COLFS_BUF_INIT;
	colfs_status st;
	*out = NULL;
	if (n->text) {
		/* (doc_get stores it again, the same, on another thread) */
		colfs_buf_append(&buf, n->text,
				 (size_t)__atomic_load_n(&n->doc_size,
							 __ATOMIC_ACQUIRE));
		st = colfs_buf_status(&buf);
	} else if (!n->ops || !n->ops->generate) {
		st = COLFS_EUNSUPPORTED;
	} else {
		colfs_tree_lock(t);
		if (n->is_summary)
			tree_source_note(t, &buf);
		size_t note = buf.len;
		uint64_t reads = colfs_source_reads(t->src);
		st = n->ops->generate(t, n, &buf);
		colfs_tree_unlock(t);
		if (st == COLFS_OK)
			st = colfs_buf_status(&buf);
		/* Made of old bytes only if the source is unchanged now
		 * (source.h); not kept otherwise.  A document made of
		 * metadata already read needs no check. */
		if (st == COLFS_OK && !n->is_volatile &&
		    colfs_source_reads(t->src) != reads)
			st = colfs_tree_source_check(t);
		/* The summary of a changed source says so even when the
		 * rest cannot be made. */
		if (st != COLFS_OK && st != COLFS_ENOMEM && note > 0 &&
		    colfs_source_changed(t->src)) {
			buf.len = note;
			st = COLFS_OK;
		}
	}
	if (st != COLFS_OK) {
		colfs_buf_free(&buf);
		return st;
	}
	colfs_blob *b = colfs_blob_from_buf(n->ino, DOC_PIECE, &buf);
	if (!b) {
		colfs_buf_free(&buf);
		return COLFS_ENOMEM;
	}
	*out = b;
	return COLFS_OK;
}

/* A referenced colfs_blob with the document's bytes. */
static colfs_status doc_get(colfs_tree *t, colfs_node *n, colfs_blob **out)
{
	if (!n->is_volatile) {
		*out = colfs_piece_cache_get(&t->cache, n->ino, DOC_PIECE);
		if (*out)
			return COLFS_OK;
	}
	COLFS_TRY(doc_render(t, n, out));
	__atomic_store_n(&n->doc_size, (int64_t)(*out)->len, __ATOMIC_RELEASE);
	if (!n->is_volatile && !n->text) {
		/* Another thread may have rendered it too: keep one. */
		colfs_blob *other = colfs_piece_cache_get(&t->cache, n->ino, DOC_PIECE);
		if (other) {
			colfs_blob_free(*out);
			*out = other;
		} else {
			colfs_piece_cache_put(&t->cache, *out);
		}
	}
	return COLFS_OK;
}

/* ------------------------------------------------------------------------
 * Streams
 */
static stream_state *stream_of(colfs_tree *t, colfs_node *n)
{
	stream_state *s = __atomic_load_n(&n->stream, __ATOMIC_ACQUIRE);
	if (s)
		return s;
	colfs_tree_lock(t);
	if (!n->stream) {
		s = calloc(1, sizeof *s);
		if (s) {
			pthread_mutex_init(&s->lock, NULL);
			s->index_size = -1;
			__atomic_store_n(&n->stream, s, __ATOMIC_RELEASE);
		}
	}
	s = n->stream;
	colfs_tree_unlock(t);
	return s;
}

/* Render piece `i` of stream `n` into a blob not in the cache yet. */
static colfs_status piece_make(colfs_tree *t, colfs_node *n, uint64_t i,
			       colfs_blob **out)
{
	colfs_buf buf = COLFS_BUF_INIT;
	uint64_t reads = colfs_source_reads(t->src);
	colfs_status st = !n->ops ? COLFS_EUNSUPPORTED
			  : n->ops->piece ? n->ops->piece(t, n, i, &buf)
			  /* a report: one piece, made whole by generate */
			  : n->ops->generate ? (i > 0 ? COLFS_END
						     : n->ops->generate(t, n, &buf))
			  : COLFS_EUNSUPPORTED;
	*out = NULL;
	if (st == COLFS_OK)
		st = colfs_buf_status(&buf);
	/* Decoded from old bytes only if the source is unchanged now
	 * (source.h): a piece (or an end) read across a change is never
	 * kept nor served. */
	if ((st == COLFS_OK || st == COLFS_END) &&
	    colfs_source_reads(t->src) != reads) {
		colfs_status cs = colfs_tree_source_check(t);
		if (cs)
			st = cs;
	}
	if (st != COLFS_OK) {
		colfs_buf_free(&buf);
		return st;
	}
	*out = colfs_blob_from_buf(n->ino, i, &buf);
	if (!*out) {
		colfs_buf_free(&buf);
		return COLFS_ENOMEM;
	}
	__atomic_add_fetch(&t->pieces_rendered, 1, __ATOMIC_RELAXED);
	return COLFS_OK;
}

/* A worker's job (ahead.c): piece `i` into the cache, unless there or
 * it found a problem (left to the reader: colfs_tree_ahead_defer). */
static void stream_render_ahead(colfs_tree *t, colfs_node *n, uint64_t i)
{
	colfs_blob *b = colfs_piece_cache_get(&t->cache, n->ino, i);

	if (!b) {
		colfs_ahead_mark mark = colfs_tree_ahead_begin(t);
		colfs_status st = piece_make(t, n, i, &b);
		bool spoiled = colfs_tree_ahead_end(mark);
		if (st == COLFS_OK && spoiled) {
			colfs_blob_free(b);
			b = NULL;
		} else if (st == COLFS_OK) {
			b = colfs_piece_cache_put_once(&t->cache, b);
		}
	}
	colfs_piece_cache_release(&t->cache, b);
}

/* The tree's workers, started on first use (NULL: none). */
static colfs_ahead *tree_ahead(colfs_tree *t)
{
	if (__atomic_load_n(&t->ahead_tried, __ATOMIC_ACQUIRE))
		return t->ahead;
	colfs_tree_lock(t);
	if (!t->ahead_tried) {
		int k = t->opts.decode_threads;
		if (k == 0)
			k = (int)colfs_cpus();
		if (k > 0)
			t->ahead = colfs_ahead_create(t, (unsigned)k,
						      t->opts.cache_bytes,
						      stream_render_ahead);
		__atomic_store_n(&t->ahead_tried, true, __ATOMIC_RELEASE);
	}
	colfs_tree_unlock(t);
	return t->ahead;
}

bool colfs_tree_background(colfs_tree *t,
			   void (*fn)(colfs_tree *t, void *arg, bool run),
			   void *arg)
{
	colfs_ahead *a = tree_ahead(t);

	return a && colfs_ahead_task(a, fn, arg);
}

/* The tree's workers if they were started (NULL: none, or not yet). */
static colfs_ahead *tree_ahead_started(colfs_tree *t)
{
	return __atomic_load_n(&t->ahead_tried, __ATOMIC_ACQUIRE) ? t->ahead
								  : NULL;
}

size_t colfs_tree_pieces_rendering(colfs_tree *t, const colfs_node *n,
				   uint64_t lo, uint64_t hi, uint64_t *out,
				   size_t max)
{
	colfs_ahead *a = tree_ahead_started(t);

	return a ? colfs_ahead_rendering(a, n->ino, lo, hi, out, max) : 0;
}

void colfs_tree_piece_wait_left(colfs_tree *t, const colfs_node *n,
				uint64_t i)
{
	colfs_ahead *a = tree_ahead_started(t);

	if (a)
		colfs_ahead_wait_left(a, n->ino, i);
}

size_t colfs_part_of_piece(const uint64_t *first, size_t n, uint64_t i)
{
	size_t lo = 0, hi = n ? n - 1 : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo + 1) / 2;
		if (first[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

void colfs_tree_count_page(colfs_tree *t)
{
	if (t)
		__atomic_add_fetch(&t->pages_decoded, 1, __ATOMIC_RELAXED);
}

void colfs_tree_stats_get(const colfs_tree *t, colfs_tree_stats *out)
{
	memset(out, 0, sizeof *out);
	if (!t)
		return;
	out->pages_decoded = __atomic_load_n(&t->pages_decoded, __ATOMIC_RELAXED);
	out->pieces_rendered = __atomic_load_n(&t->pieces_rendered,
					       __ATOMIC_RELAXED);
	for (size_t i = 0; i < t->ngrafts; i++) {
		colfs_tree_stats g;
		colfs_tree_stats_get(t->grafts[i], &g);
		out->pages_decoded += g.pages_decoded;
		out->pieces_rendered += g.pieces_rendered;
	}
}

bool colfs_tree_mem_charge(colfs_tree *t, uint64_t bytes)
{
	/* cap: set when the cache is made, never changed (buckets is moved
	 * when the cache grows, under its lock) */
	return t->cache.cap && colfs_piece_cache_charge(&t->cache, bytes);
}

void colfs_tree_mem_uncharge(colfs_tree *t, uint64_t bytes)
{
	if (t->cache.cap)
		colfs_piece_cache_uncharge(&t->cache, bytes);
}

colfs_piece_cache *colfs_tree_bufs(colfs_tree *t)
{
	return t && t->cache.cap ? &t->cache : NULL;
}

/* Render piece `i` of a stream (or find it in the cache) and learn its
 * length when it is the first not known; returns a referenced colfs_blob.
 * Called with the stream lock held. */
static colfs_status stream_render(colfs_tree *t, colfs_node *n,
				  stream_state *s, size_t i, colfs_blob **out)
{
	colfs_blob *b = colfs_piece_cache_get(&t->cache, n->ino, i);
	colfs_status st;

	/* A worker rendering it: wait rather than render it twice.  Look
	 * again even when nothing was waited for: a worker may have put it
	 * in the cache and left since the first look. */
	bool mine = false;
	if (!b && t->ahead) {
		mine = !colfs_ahead_wait(t->ahead, n->ino, i);
		b = colfs_piece_cache_get(&t->cache, n->ino, i);
	}
	if (!b) {
		st = piece_make(t, n, i, &b);
		if (mine)
			colfs_ahead_done(t->ahead, n->ino, i);
		if (st != COLFS_OK) {
			if (st == COLFS_END && i < s->known)
				st = COLFS_ECORRUPT; /* rendered differently than before */
			return st;
		}
		b = colfs_piece_cache_put_once(&t->cache, b);
	} else if (mine) {
		colfs_ahead_done(t->ahead, n->ino, i);
	}
	if (i < s->known) {
		uint64_t start = i ? s->ends[i - 1] : 0;
		if (s->ends[i] - start != b->len) {
			colfs_piece_cache_release(&t->cache, b);
			return COLFS_ECORRUPT;
		}
	} else if (i == s->known) {
		/* Learn its length, whoever rendered it. */
		if (!colfs_grow((void **)&s->ends, &s->cap, s->known + 1,
			  sizeof *s->ends)) {
			colfs_piece_cache_release(&t->cache, b);
			return COLFS_ENOMEM;
		}
		uint64_t start = s->known ? s->ends[s->known - 1] : 0;
		s->ends[s->known] = start + b->len;
		__atomic_store_n(&s->known, s->known + 1, __ATOMIC_RELEASE);
	}
	*out = b;
	return COLFS_OK;
}

/* The stream has just been read to its end: check the size index's word
 * for it, and keep its size there.  Called with the stream lock held. */
static void stream_completed(colfs_tree *t, colfs_node *n, stream_state *s)
{
	uint64_t size = s->known ? s->ends[s->known - 1] : 0;
	char path[4096];

	if (!t->sizes)
		return;
	colfs_node_path(n, path, sizeof path);
	if (s->index_size >= 0 && (uint64_t)s->index_size != size)
		colfs_tree_report(t, n, 0, COLFS_ECORRUPT,
				  "the size index said %lld bytes, the view "
				  "has %llu: the index is wrong, remove %s",
				  (long long)s->index_size,
				  (unsigned long long)size, t->sizes_path);
	if (!t->sizes_compare_only)
		colfs_sizeindex_put(t->sizes, path, size);
}

/* Learn piece lengths until `offset` is inside a known piece or the stream
 * is complete, the workers rendering the pieces after the one learnt
 * (through `r`, or a passing reader when NULL).  Called with the stream
 * lock held. */
static colfs_status stream_reach(colfs_tree *t, colfs_node *n, stream_state *s,
				 uint64_t offset, colfs_ahead_reader *r)
{
	colfs_ahead *a = n->ops && n->ops->concurrent ? tree_ahead(t) : NULL;
	colfs_ahead_reader *own = NULL;
	colfs_status st = COLFS_OK;

	while (!s->complete && (s->known == 0 || s->ends[s->known - 1] <= offset)) {
		colfs_blob *b;
		/* More than the next piece to learn: render ahead. */
		if (a && !r)
			r = own = colfs_ahead_reader_new(a, n, n->ino);
		if (a && r)
			colfs_ahead_at(a, r, s->known,
				       s->known ? (size_t)(s->ends[s->known - 1] / s->known) : 0);
		size_t i = s->known;
		st = stream_render(t, n, s, i, &b);
		if (st == COLFS_END) {
			__atomic_store_n(&s->complete, true, __ATOMIC_RELEASE);
			stream_completed(t, n, s);
			st = COLFS_OK;
			break;
		}
		if (st != COLFS_OK)
			break;
		/* stepped over: evicted first (piececache.h) */
		if (s->ends[i] <= offset)
			colfs_piece_cache_passed(&t->cache, b);
		colfs_piece_cache_release(&t->cache, b);
	}
	if (own)
		colfs_ahead_reader_free(a, own);
	return st;
}

/* Where stream_read puts a read's bytes: copied into `buf`, or lent in
 * place (`buf` NULL): up to `max` pieces held in `lent`.  `full` says the
 * spans ran out before the read was done. */
typedef struct stream_sink {
	char *buf;
	colfs_lent *lent;
	size_t max, count;
	bool full;
} stream_sink;

static colfs_status stream_read(colfs_tree *t, colfs_node *n, uint64_t offset,
				size_t len, stream_sink *out, size_t *got,
				colfs_ahead_reader *r)
{
	stream_state *s = stream_of(t, n);
	colfs_status st = COLFS_OK;
	*got = 0;
	if (!s)
		return COLFS_ENOMEM;
	pthread_mutex_lock(&s->lock);
	while (*got < len) {
		uint64_t at = offset + *got;
		if (!out->buf && out->count == out->max) {
			out->full = true;
			break;
		}
		st = stream_reach(t, n, s, at, r);
		if (st != COLFS_OK || s->known == 0 || s->ends[s->known - 1] <= at)
			break;
		/* First piece whose end is past `at`. */
		size_t lo = 0, hi = s->known - 1;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->ends[mid] <= at)
				lo = mid + 1;
			else
				hi = mid;
		}
		colfs_blob *b;
		st = stream_render(t, n, s, lo, &b);
		if (st != COLFS_OK)
			break;
		if (r)
			colfs_ahead_at(t->ahead, r, lo, b->len);
		uint64_t start = lo ? s->ends[lo - 1] : 0;
		size_t within = (size_t)(at - start);
		size_t take = b->len - within;
		if (take > len - *got)
			take = len - *got;
		/* read to its end: evicted first (piececache.h) */
		if (within + take == b->len)
			colfs_piece_cache_passed(&t->cache, b);
		if (out->buf) {
			memcpy(out->buf + *got, b->data + within, take);
			colfs_piece_cache_release(&t->cache, b);
		} else {
			/* held until the caller has used the bytes */
			out->lent[out->count++] = (colfs_lent){
				.data = b->data + within, .len = take,
				.pin = b, .cache = &t->cache};
		}
		*got += take;
	}
	bool complete = s->complete;
	pthread_mutex_unlock(&s->lock);
	/* Bytes before a piece that fails: handed over, and the next read
	 * reports it, while the stream's size is not known (served with
	 * direct I/O).  Once it is known the kernel caches the file and
	 * takes a short read for its end (a silently cut file): the read
	 * fails. */
	if (st != COLFS_OK && *got > 0 && !complete)
		st = COLFS_OK;
	return st;
}

/* ------------------------------------------------------------------------
 * Sizes, handles, reads
 */
bool colfs_node_range(const colfs_node *n, uint64_t *offset, uint64_t *len)
{
	if (n->kind != COLFS_CONTENT_RANGE || tree_node_forwards(n))
		return false;
	*offset = n->off;
	*len = n->len;
	return true;
}

/* A stream's size, learned as `mode` says when not known yet.  A decode
 * that fails leaves the size unknown (its read answers the error, and the
 * problem is in `errors`); only running out of memory fails the stat. */
static colfs_status stream_size(colfs_tree *t, colfs_node *n,
				colfs_sizes_mode mode, uint64_t *size,
				bool *exact)
{
	stream_state *s = stream_of(t, n);
	colfs_status st = COLFS_OK;

	*size = 0;
	*exact = false;
	if (!s)
		return COLFS_ENOMEM;
	if (__atomic_load_n(&s->complete, __ATOMIC_ACQUIRE)) {
		/* Complete streams never change: no lock needed. */
		*size = s->known ? s->ends[s->known - 1] : 0;
		*exact = true;
		return COLFS_OK;
	}
	/* asked before the stream's lock: a dataset's view lists it */
	bool probe = mode == COLFS_SIZES_EXACT ||
		     (mode == COLFS_SIZES_AUTO && colfs_node_cheap_to_size(t, n));
	pthread_mutex_lock(&s->lock);
	if (!s->complete && !s->index_checked) {
		uint64_t v;
		char path[4096];

		s->index_checked = true;
		colfs_node_path(n, path, sizeof path);
		if (((t->sizes && colfs_sizeindex_get(t->sizes, path, &v)) ||
		     tree_node_kept_size(t, n, &v)) &&
		    v <= INT64_MAX)
			s->index_size = (int64_t)v;
	}
	if (!s->complete && s->index_size < 0 && !s->probe_failed && probe) {
		st = stream_reach(t, n, s, UINT64_MAX, NULL);
		if (st != COLFS_OK)
			s->probe_failed = true;
	}
	if (s->complete) {
		*size = s->known ? s->ends[s->known - 1] : 0;
		*exact = true;
	} else if (s->index_size >= 0) {
		*size = (uint64_t)s->index_size;
		*exact = true;
	}
	pthread_mutex_unlock(&s->lock);
	return st == COLFS_ENOMEM ? st : COLFS_OK;
}

/* The nodes of one colfs_nodes_learn_sizes call, shared by its threads. */
typedef struct learn_job {
	colfs_tree *t;
	colfs_node *const *nodes;
	size_t n, done;
	colfs_sizes_mode mode;
	pthread_mutex_t lock;
	void (*progress)(void *arg, size_t done, size_t total);
	void *arg;
} learn_job;

static void learn_one(void *arg, size_t i)
{
	learn_job *j = arg;
	colfs_node *n = j->nodes[i];
	uint64_t size;
	bool exact;

	if (n->kind == COLFS_CONTENT_STREAM && !tree_node_forwards(n))
		stream_size(j->t, n, j->mode, &size, &exact);
	else if (n->kind != COLFS_CONTENT_DIR)
		colfs_node_size(j->t, n, &size, &exact);
	pthread_mutex_lock(&j->lock);
	j->done++;
	if (j->progress)
		j->progress(j->arg, j->done, j->n);
	pthread_mutex_unlock(&j->lock);
}

void colfs_nodes_learn_sizes(colfs_tree *t, colfs_node *const *nodes,
			     size_t n, unsigned threads, bool exact,
			     void (*progress)(void *arg, size_t done,
					      size_t total),
			     void *arg)
{
	learn_job j = {
		.t = t, .nodes = nodes, .n = n,
		.mode = exact ? COLFS_SIZES_EXACT : t->opts.sizes,
		.progress = progress, .arg = arg,
	};
	pthread_mutex_init(&j.lock, NULL);
	/* This thread works too. */
	colfs_parallel_for(threads ? threads : colfs_cpus(), n, learn_one, &j);
	pthread_mutex_destroy(&j.lock);
}

/* A proxy's size: its node's, in the other tree. */
static colfs_status forward_size(colfs_tree *t, colfs_node *n, bool known,
				 uint64_t *size, bool *exact)
{
	colfs_tree *g;
	colfs_node *target;

	*size = 0;
	*exact = true;
	COLFS_TRY(n->ops->forward(t, n, &g, &target));
	colfs_status st = known ? colfs_node_size_known(g, target, size, exact)
				: colfs_node_size(g, target, size, exact);
	n->ops->unforward(t, n, g);
	return st;
}

colfs_status colfs_node_size_known(colfs_tree *t, colfs_node *n,
				   uint64_t *size, bool *exact)
{
	if (tree_node_forwards(n))
		return forward_size(t, n, true, size, exact);
	if (n->kind == COLFS_CONTENT_STREAM)
		return stream_size(t, n, COLFS_SIZES_LAZY, size, exact);
	return colfs_node_size(t, n, size, exact);
}

colfs_status colfs_node_size(colfs_tree *t, colfs_node *n, uint64_t *size,
			     bool *exact)
{
	*size = 0;
	*exact = true;
	if (tree_node_forwards(n))
		return forward_size(t, n, false, size, exact);
	switch (n->kind) {
	case COLFS_CONTENT_DIR:
		return COLFS_OK;
	case COLFS_CONTENT_RANGE:
		*size = n->len;
		return COLFS_OK;
	case COLFS_CONTENT_DOC: {
		int64_t sz = __atomic_load_n(&n->doc_size, __ATOMIC_ACQUIRE);
		uint64_t kept;
		if (sz < 0 && !n->is_volatile && n->size_when_read &&
		    tree_node_kept_size(t, n, &kept) && kept <= INT64_MAX) {
			/* its node was freed and made again */
			sz = (int64_t)kept;
			__atomic_store_n(&n->doc_size, sz, __ATOMIC_RELEASE);
		}
		if ((sz < 0 || n->is_volatile) && n->size_when_read &&
		    t->opts.sizes != COLFS_SIZES_EXACT &&
		    (t->opts.sizes != COLFS_SIZES_AUTO ||
		     !colfs_node_cheap_to_size(t, n))) {
			*exact = false;
			return COLFS_OK;
		}
		if (sz < 0 || n->is_volatile) {
			colfs_blob *b;
			COLFS_TRY(doc_get(t, n, &b));
			sz = (int64_t)b->len;
			if (n->is_volatile)
				colfs_blob_free(b);
			else
				colfs_piece_cache_release(&t->cache, b);
		}
		*size = (uint64_t)sz;
		return COLFS_OK;
	}
	case COLFS_CONTENT_STREAM:
		return stream_size(t, n, t->opts.sizes, size, exact);
	}
	return COLFS_EUNSUPPORTED;
}

colfs_status colfs_node_open(colfs_tree *t, colfs_node *n, colfs_handle **out)
{
	*out = NULL;
	if (n->kind == COLFS_CONTENT_DIR)
		return COLFS_EUNSUPPORTED;
	COLFS_TRY(colfs_node_check(t, n));
	colfs_handle *h = calloc(1, sizeof *h);
	if (!h)
		return COLFS_ENOMEM;
	h->t = t;
	h->n = n;
	if (tree_node_forwards(n)) {
		colfs_node *target;
		colfs_status st = n->ops->forward(t, n, &h->guest, &target);
		if (st == COLFS_OK) {
			st = colfs_node_open(h->guest, target, &h->inner);
			if (st != COLFS_OK)
				n->ops->unforward(t, n, h->guest);
		}
		if (st != COLFS_OK) {
			free(h);
			return st;
		}
		__atomic_add_fetch(&n->opens, 1, __ATOMIC_RELAXED);
		*out = h;
		return COLFS_OK;
	}
	/* A remote source fetches a raw file in one request. */
	if (n->kind == COLFS_CONTENT_RANGE)
		colfs_source_will_need(t->src, n->off, n->len);
	if (n->kind == COLFS_CONTENT_STREAM && n->ops && n->ops->concurrent &&
	    tree_ahead(t))
		h->ahead = colfs_ahead_reader_new(t->ahead, n, n->ino);
	if (n->kind == COLFS_CONTENT_DOC) {
		colfs_status st = doc_get(t, n, &h->doc);
		if (st != COLFS_OK) {
			colfs_ahead_reader_free(t->ahead, h->ahead);
			free(h);
			return st;
		}
	}
	__atomic_add_fetch(&n->opens, 1, __ATOMIC_RELAXED);
	*out = h;
	return COLFS_OK;
}

colfs_status colfs_handle_read(colfs_handle *h, uint64_t offset, size_t len,
			       void *buf, size_t *got)
{
	colfs_node *n = h->n;
	*got = 0;
	/* Pieces and documents made before a change are not served after
	 * it either: nothing mixes the old file with the new. */
	COLFS_TRY(colfs_node_check(h->t, n));
	if (h->inner)
		return colfs_handle_read(h->inner, offset, len, buf, got);
	switch (n->kind) {
	case COLFS_CONTENT_RANGE: {
		if (offset >= n->len)
			return COLFS_OK;
		if (len > n->len - offset)
			len = (size_t)(n->len - offset);
		colfs_err err = {0};
		colfs_status st = colfs_source_pread(h->t->src, n->off + offset,
						     len, buf, got, &err);
		/* A read that failed (a remote reply, an I/O error) is a
		 * problem of this node; a changed source is filed once. */
		if (st != COLFS_OK && st != COLFS_ENOMEM && err.msg[0])
			colfs_tree_report_err(h->t, n, &err);
		if (st == COLFS_OK)
			st = colfs_tree_source_check(h->t);
		if (st != COLFS_OK) {
			*got = 0;
			return st;
		}
		/* The file shrank under us: the range promised more. */
		return *got == len ? COLFS_OK : COLFS_ETRUNCATED;
	}
	case COLFS_CONTENT_DOC:
		if (offset >= h->doc->len)
			return COLFS_OK;
		if (len > h->doc->len - offset)
			len = (size_t)(h->doc->len - offset);
		memcpy(buf, h->doc->data + offset, len);
		*got = len;
		return COLFS_OK;
	case COLFS_CONTENT_STREAM: {
		stream_sink copy = {.buf = buf};
		return stream_read(h->t, n, offset, len, &copy, got, h->ahead);
	}
	case COLFS_CONTENT_DIR:
		break;
	}
	return COLFS_EUNSUPPORTED;
}

void colfs_lent_release(colfs_lent *lent, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (lent[i].cache)
			colfs_piece_cache_release(lent[i].cache, lent[i].pin);
		else
			colfs_blob_free(lent[i].pin);
		lent[i].pin = NULL;
	}
}

/* The rest of a read, from `offset`, copied into a blob of its own (no
 * cache's) as the span `*out`. */
static colfs_status read_copied(colfs_handle *h, uint64_t offset, size_t len,
				colfs_lent *out, size_t *got)
{
	colfs_blob *b = calloc(1, sizeof *b);
	char *data = malloc(len ? len : 1);
	if (!b || !data) {
		free(b);
		free(data);
		return COLFS_ENOMEM;
	}
	b->data = data;
	b->refs = 1;
	colfs_status st = colfs_handle_read(h, offset, len, data, got);
	if (st != COLFS_OK) {
		colfs_blob_free(b);
		return st;
	}
	b->len = *got;
	*out = (colfs_lent){.data = data, .len = *got, .pin = b};
	return COLFS_OK;
}

colfs_status colfs_handle_read_lent(colfs_handle *h, uint64_t offset,
				    size_t len, colfs_lent *out, size_t max,
				    size_t *count, size_t *got)
{
	colfs_node *n = h->n;
	colfs_status st;
	*count = 0;
	*got = 0;
	if (max < 2)
		return COLFS_EUNSUPPORTED;
	COLFS_TRY(colfs_node_check(h->t, n));
	if (h->inner)
		return colfs_handle_read_lent(h->inner, offset, len, out, max,
					      count, got);
	if (n->kind == COLFS_CONTENT_DOC) {
		/* The handle holds its document until closed. */
		if (offset < h->doc->len && len) {
			if (len > h->doc->len - offset)
				len = (size_t)(h->doc->len - offset);
			out[0] = (colfs_lent){.data = h->doc->data + offset,
					      .len = len};
			*count = 1;
			*got = len;
		}
		return COLFS_OK;
	}
	if (n->kind != COLFS_CONTENT_STREAM) {
		st = read_copied(h, offset, len, &out[0], got);
		*count = st == COLFS_OK;
		return st;
	}
	/* The last span is kept for the bytes past what max - 1 pieces
	 * hold (pieces far smaller than a read). */
	stream_sink lend = {.lent = out, .max = max - 1};
	st = stream_read(h->t, n, offset, len, &lend, got, h->ahead);
	if (st == COLFS_OK && lend.full) {
		size_t more = 0;
		st = read_copied(h, offset + *got, len - *got,
				 &out[lend.count], &more);
		if (st == COLFS_OK) {
			lend.count++;
			*got += more;
		} else if (!__atomic_load_n(&n->stream->complete,
					    __ATOMIC_ACQUIRE)) {
			/* as stream_read: the bytes before, the error at
			 * the next read, while the size is not known */
			st = COLFS_OK;
		}
	}
	if (st != COLFS_OK) {
		colfs_lent_release(out, lend.count);
		*got = 0;
		return st;
	}
	*count = lend.count;
	return COLFS_OK;
}

void colfs_handle_close(colfs_handle *h)
{
	if (!h)
		return;
	__atomic_sub_fetch(&h->n->opens, 1, __ATOMIC_RELAXED);
	if (h->inner) {
		colfs_handle_close(h->inner);
		h->n->ops->unforward(h->t, h->n, h->guest);
		free(h);
		return;
	}
	colfs_ahead_reader_free(h->t->ahead, h->ahead);
	if (h->doc) {
		if (h->n->is_volatile || h->n->text)
			colfs_blob_free(h->doc);
		else
			colfs_piece_cache_release(&h->t->cache, h->doc);
	}
	free(h);
}

colfs_status colfs_tree_read_path(colfs_tree *t, const char *path,
				  colfs_buf *out)
{
	colfs_node *n;
	colfs_handle *h;
	COLFS_TRY(colfs_tree_resolve(t, path, &n));
	COLFS_TRY(colfs_node_open(t, n, &h));
	colfs_status st = COLFS_OK;
	char *chunk = malloc(1 << 20);
	uint64_t at = 0;
	if (!chunk)
		st = COLFS_ENOMEM;
	while (st == COLFS_OK) {
		size_t got = 0;
		st = colfs_handle_read(h, at, 1 << 20, chunk, &got);
		if (st != COLFS_OK || got == 0)
			break;
		colfs_buf_append(out, chunk, got);
		at += got;
		st = colfs_buf_status(out);
	}
	free(chunk);
	colfs_handle_close(h);
	return st;
}

/* colfs: decoding ahead (ahead.h). */
#include "ahead.h"

#include <pthread.h>
#include <stdlib.h>

/* Pieces a reader may have ahead, per worker, whatever the budget. */
#define AHEAD_PER_THREAD 4

struct colfs_ahead_reader {
	colfs_ahead_reader *prev, *next;  /* the pool's ring of readers */
	colfs_node *n;
	uint64_t ino;
	bool placed;          /* `cur` means something */
	uint64_t cur;         /* the piece the reader is at */
	uint64_t next_piece;  /* the next piece to hand to a worker */
	uint64_t window;      /* pieces to keep ahead of `cur` */
	size_t len;           /* the largest piece length seen */
};

/* A queued job (colfs_ahead_task). */
typedef struct ahead_task {
	struct ahead_task *next;
	colfs_ahead_task_fn fn;
	void *arg;
} ahead_task;

/* What one worker renders now. */
typedef struct ahead_slot {
	bool busy;
	uint64_t ino, piece;
} ahead_slot;

/* Pieces a reader renders itself at once (colfs_ahead_wait), followed
 * for colfs_ahead_rendering; beyond these they are not. */
#define AHEAD_CALLERS 8

struct colfs_ahead {
	colfs_tree *t;
	colfs_ahead_render_fn fn;
	uint64_t budget;
	pthread_mutex_t lock;
	pthread_cond_t work;   /* a reader has pieces to hand out; stop */
	pthread_cond_t done;   /* a worker finished a piece */
	bool stop;
	colfs_ahead_reader *readers;   /* list head */
	colfs_ahead_reader *rr;        /* the next reader served */
	ahead_task *tasks, **tasks_end; /* jobs, first in first out */
	size_t nreaders;
	unsigned nthreads;
	pthread_t *tids;
	ahead_slot *slots;
	ahead_slot callers[AHEAD_CALLERS];
};

void colfs_ahead_quiesce(colfs_ahead *a)
{
	bool busy;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	do {
		busy = a->tasks != NULL;
		for (unsigned k = 0; k < a->nthreads && !busy; k++)
			busy = a->slots[k].busy;
		if (busy)
			pthread_cond_wait(&a->done, &a->lock);
	} while (busy);
	pthread_mutex_unlock(&a->lock);
}

unsigned colfs_ahead_threads(const colfs_ahead *a)
{
	return a ? a->nthreads : 0;
}

/* The reader after `r` in turn (wrapping). */
static colfs_ahead_reader *ring_next(colfs_ahead *a, colfs_ahead_reader *r)
{
	return r && r->next ? r->next : a->readers;
}

static bool reader_wants(const colfs_ahead_reader *r)
{
	return r->placed && r->next_piece <= r->cur + r->window &&
	       r->next_piece > r->cur;
}

/* A reader with a piece to hand out, in turn after the last served.
 * Called with the pool lock held. */
static colfs_ahead_reader *pick(colfs_ahead *a)
{
	colfs_ahead_reader *start = a->rr ? a->rr : a->readers;
	colfs_ahead_reader *r = start;

	if (!r)
		return NULL;
	do {
		if (reader_wants(r))
			return r;
		r = ring_next(a, r);
	} while (r != start);
	return NULL;
}

/* The thread body, given its slot index. */
typedef struct worker_start {
	colfs_ahead *a;
	unsigned k;
} worker_start;

static void *worker_main(void *arg)
{
	worker_start ws = *(worker_start *)arg;
	colfs_ahead *a = ws.a;
	ahead_slot *slot = &a->slots[ws.k];

	free(arg);
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		ahead_task *job = a->tasks;
		if (job) {
			a->tasks = job->next;
			if (!a->tasks)
				a->tasks_end = &a->tasks;
			/* busy on no piece (inode 0 is no node's): quiesce
			 * waits for jobs too */
			slot->busy = true;
			slot->ino = 0;
			slot->piece = UINT64_MAX;
			pthread_mutex_unlock(&a->lock);
			job->fn(a->t, job->arg, true);
			free(job);
			pthread_mutex_lock(&a->lock);
			slot->busy = false;
			pthread_cond_broadcast(&a->done);
			continue;
		}
		colfs_ahead_reader *r = pick(a);
		if (!r) {
			pthread_cond_wait(&a->work, &a->lock);
			continue;
		}
		uint64_t i = r->next_piece++;
		colfs_node *n = r->n;
		/* Handed out again after a step back (colfs_ahead_at) while
		 * another worker still renders it: once is enough. */
		bool dup = false;
		for (unsigned k = 0; k < a->nthreads && !dup; k++)
			dup = a->slots[k].busy && a->slots[k].ino == r->ino &&
			      a->slots[k].piece == i;
		if (dup)
			continue;
		slot->busy = true;
		slot->ino = r->ino;
		slot->piece = i;
		a->rr = ring_next(a, r);
		pthread_mutex_unlock(&a->lock);
		a->fn(a->t, n, i);
		pthread_mutex_lock(&a->lock);
		slot->busy = false;
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

colfs_ahead *colfs_ahead_create(colfs_tree *t, unsigned threads,
				uint64_t budget, colfs_ahead_render_fn fn)
{
	colfs_ahead *a = calloc(1, sizeof *a);

	if (!a)
		return NULL;
	if (threads < 1)
		threads = 1;
	a->t = t;
	a->fn = fn;
	a->budget = budget;
	a->tasks_end = &a->tasks;
	a->tids = calloc(threads, sizeof *a->tids);
	a->slots = calloc(threads, sizeof *a->slots);
	if (!a->tids || !a->slots) {
		free(a->tids);
		free(a->slots);
		free(a);
		return NULL;
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->done, NULL);
	/* Workers take no signal (colfs_thread_create): SIGTERM and SIGINT
	 * go to the daemon's own threads, which end the session. */
	for (unsigned k = 0; k < threads; k++) {
		worker_start *ws = malloc(sizeof *ws);
		if (!ws)
			break;
		ws->a = a;
		ws->k = a->nthreads;
		if (colfs_thread_create(&a->tids[a->nthreads], worker_main,
					ws) != 0) {
			free(ws);
			break;
		}
		a->nthreads++;
	}
	if (!a->nthreads) {
		colfs_ahead_destroy(a);
		return NULL;
	}
	return a;
}

void colfs_ahead_destroy(colfs_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
	for (unsigned k = 0; k < a->nthreads; k++)
		pthread_join(a->tids[k], NULL);
	while (a->tasks) {
		ahead_task *job = a->tasks;
		a->tasks = job->next;
		job->fn(a->t, job->arg, false);
		free(job);
	}
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->done);
	pthread_mutex_destroy(&a->lock);
	free(a->tids);
	free(a->slots);
	free(a);
}

colfs_ahead_reader *colfs_ahead_reader_new(colfs_ahead *a, colfs_node *n,
					   uint64_t ino)
{
	colfs_ahead_reader *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->n = n;
	r->ino = ino;
	pthread_mutex_lock(&a->lock);
	r->next = a->readers;
	if (a->readers)
		a->readers->prev = r;
	a->readers = r;
	a->nreaders++;
	pthread_mutex_unlock(&a->lock);
	return r;
}

void colfs_ahead_reader_free(colfs_ahead *a, colfs_ahead_reader *r)
{
	if (!r)
		return;
	/* Workers hold no pointer to a reader outside the pool lock: once
	 * unlinked, nothing it asked for is handed out. */
	pthread_mutex_lock(&a->lock);
	if (a->rr == r)
		a->rr = r->next;
	if (r->prev)
		r->prev->next = r->next;
	else
		a->readers = r->next;
	if (r->next)
		r->next->prev = r->prev;
	a->nreaders--;
	pthread_mutex_unlock(&a->lock);
	free(r);
}

void colfs_ahead_at(colfs_ahead *a, colfs_ahead_reader *r, uint64_t i,
		    size_t len)
{
	pthread_mutex_lock(&a->lock);
	if (!r->placed || i < r->cur || i > r->next_piece) {
		/* A start or a seek: what was queued is no longer wanted. */
		r->placed = true;
		r->cur = i;
		r->next_piece = i + 1;
	} else if (i > r->cur) {
		r->cur = i;
	}
	if (r->next_piece <= r->cur)
		r->next_piece = r->cur + 1;
	if (len > r->len)
		r->len = len;
	/* Half the cache for pieces ahead, shared by the readers; at
	 * least one piece each while that fits. */
	uint64_t share = a->budget / 2 / (a->nreaders ? a->nreaders : 1);
	/* (A length not known yet: nothing ahead until one is.) */
	uint64_t w = r->len ? share / r->len : 0;
	uint64_t cap = (uint64_t)a->nthreads * AHEAD_PER_THREAD;
	r->window = w < cap ? w : cap;
	if (reader_wants(r))
		pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->lock);
}

bool colfs_ahead_task(colfs_ahead *a, colfs_ahead_task_fn fn, void *arg)
{
	ahead_task *job = malloc(sizeof *job);

	if (!job)
		return false;
	job->next = NULL;
	job->fn = fn;
	job->arg = arg;
	pthread_mutex_lock(&a->lock);
	*a->tasks_end = job;
	a->tasks_end = &job->next;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->lock);
	return true;
}

bool colfs_ahead_wait(colfs_ahead *a, uint64_t ino, uint64_t i)
{
	bool waited = false;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		bool busy = false;
		for (unsigned k = 0; k < a->nthreads && !busy; k++)
			busy = a->slots[k].busy && a->slots[k].ino == ino &&
			       a->slots[k].piece == i;
		if (!busy)
			break;
		waited = true;
		pthread_cond_wait(&a->done, &a->lock);
	}
	if (!waited) {
		/* The caller renders it now: no worker may take it between
		 * this check and the caller's colfs_ahead_at (tree/ahead
		 * saw a piece rendered twice under ThreadSanitizer). */
		for (colfs_ahead_reader *r = a->readers; r; r = r->next)
			if (r->ino == ino && r->placed && r->next_piece == i)
				r->next_piece = i + 1;
		for (unsigned k = 0; k < AHEAD_CALLERS; k++)
			if (!a->callers[k].busy) {
				a->callers[k] = (ahead_slot){.busy = true,
							     .ino = ino,
							     .piece = i};
				break;
			}
	}
	pthread_mutex_unlock(&a->lock);
	return waited;
}

void colfs_ahead_done(colfs_ahead *a, uint64_t ino, uint64_t i)
{
	pthread_mutex_lock(&a->lock);
	for (unsigned k = 0; k < AHEAD_CALLERS; k++)
		if (a->callers[k].busy && a->callers[k].ino == ino &&
		    a->callers[k].piece == i) {
			a->callers[k].busy = false;
			pthread_cond_broadcast(&a->done);
			break;
		}
	pthread_mutex_unlock(&a->lock);
}

/* Slot k of the workers' then the callers' (k < nthreads +
 * AHEAD_CALLERS): what colfs_ahead_rendering counts. */
static const ahead_slot *rendering_slot(const colfs_ahead *a, unsigned k)
{
	return k < a->nthreads ? &a->slots[k] : &a->callers[k - a->nthreads];
}

void colfs_ahead_wait_left(colfs_ahead *a, uint64_t ino, uint64_t i)
{
	pthread_mutex_lock(&a->lock);
	for (;;) {
		bool busy = false;
		for (unsigned k = 0; k < a->nthreads + AHEAD_CALLERS && !busy;
		     k++) {
			const ahead_slot *s = rendering_slot(a, k);
			busy = s->busy && s->ino == ino && s->piece == i;
		}
		if (!busy)
			break;
		pthread_cond_wait(&a->done, &a->lock);
	}
	pthread_mutex_unlock(&a->lock);
}

size_t colfs_ahead_rendering(colfs_ahead *a, uint64_t ino, uint64_t lo,
			     uint64_t hi, uint64_t *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&a->lock);
	for (unsigned k = 0; k < a->nthreads + AHEAD_CALLERS && n < max; k++) {
		const ahead_slot *s = rendering_slot(a, k);
		if (s->busy && s->ino == ino && s->piece >= lo && s->piece < hi)
			out[n++] = s->piece;
	}
	pthread_mutex_unlock(&a->lock);
	return n;
}

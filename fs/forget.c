/* colfs daemon: the nodes a mount holds, bounded.
 *
 * The kernel keeps an inode for every node a reply gave it (a lookup, a
 * readdirplus entry) until memory pressure evicts it, and only then sends
 * FORGET: the entries of immutable data live long (ll.c), so a walk of a
 * wide file (`ls -R`, `find`, `du`) would keep every node it made.  ll.c
 * counts the kernel's lookups through the core (colfs_dir_lookup_ref,
 * colfs_nodes_ref, colfs_tree_forget); this file does the rest, on a
 * thread of its own:
 *
 *   - a directory the core names when nothing below it is held or open
 *     any more has its children freed, or its highest such ancestor's
 *     (colfs_tree_release_unused, which waits for the workers decoding
 *     ahead: not for a request's thread), and the kernel, if it still
 *     holds that directory, drops its cached listing, which names the old
 *     inode numbers (fuse_lowlevel_notify_inval_inode);
 *   - past 3/4 of -o node_budget nodes alive, the kernel is asked to
 *     drop the entries of the directories least recently used
 *     (colfs_tree_pick_listings: a walk's ancestors are used with each
 *     directory it lists, so what goes first is the subtrees it has
 *     left, each whole), with fuse_lowlevel_notify_inval_entry of the
 *     directory's name in its parent (the kernel prunes the unused
 *     entries below it too), until the nodes under them would bring the
 *     count under half the budget; the FORGETs that follow free them
 *     (above).  The kernel sends them over a second or more on a loaded
 *     machine (a walk makes 20,000 to 30,000 nodes a second meanwhile):
 *     starting at 3/4 keeps the nodes alive under the budget (from the
 *     budget itself, ls -R of the 1000 x 200 file held 235,432 nodes
 *     at most; from 7/8, 221,301).  A part still in use (an
 *     open file, a working directory) is not dropped by the kernel and
 *     stays.
 *
 * Notifications are sent from this thread, holding no lock of ours: one
 * sent while a request waits on a lock its sender holds would deadlock
 * (libfuse, fuse_lowlevel_notify_inval_entry).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "colfsd.h"

/* Shrinking passes are at least this far apart: the FORGETs a pass asks
 * for arrive over a few milliseconds, and a pass sooner would drop newer
 * listings while the older ones are still being freed. */
#define FORGET_PASS_GAP_NS (10 * 1000 * 1000L)

typedef struct colfsd_forgetter {
	colfsd *d;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t *queue;       /* directories to free the children of */
	size_t nqueue, capqueue;
	bool over;             /* past the budget: a pass is due (atomic:
				* read without the lock) */
	bool stop;
	pthread_t thread;
} colfsd_forgetter;

/* Listings taken from the core at a time. */
#define FORGET_PICK 256

/* Ask the kernel to forget the listings least recently used (see the
 * top). */
static void forget_shrink(colfsd *d)
{
	size_t alive = colfs_tree_nodes_alive(d->tree, NULL);
	size_t target = d->node_budget / 2;
	colfs_listing pick[FORGET_PICK];

	while (alive > target) {
		size_t n = colfs_tree_pick_listings(d->tree, alive - target,
						    pick, FORGET_PICK);

		if (!n)
			break;
		for (size_t i = 0; i < n; i++) {
			/* ENOENT: the kernel holds no such entry (forgotten) */
			fuse_lowlevel_notify_inval_entry(d->se, pick[i].parent,
							 pick[i].name,
							 strlen(pick[i].name));
			__atomic_add_fetch(&d->n_dropped, 1, __ATOMIC_RELAXED);
			free(pick[i].name);
			alive = alive > pick[i].nodes ? alive - pick[i].nodes
						      : 0;
		}
	}
}

static void *forget_run(void *arg)
{
	colfsd_forgetter *f = arg;
	colfsd *d = f->d;
	uint64_t *batch = NULL;
	size_t cap = 0;
	struct timespec last = {0, 0};
	pthread_mutex_lock(&f->lock);
	for (;;) {
		while (!f->stop && !f->nqueue &&
		       !__atomic_load_n(&f->over, __ATOMIC_RELAXED))
			pthread_cond_wait(&f->wake, &f->lock);
		if (f->stop)
			break;
		/* take the queue; forgets go on filling a fresh one */
		uint64_t *q = f->queue;
		size_t n = f->nqueue, qcap = f->capqueue;
		f->queue = batch;
		f->capqueue = cap;
		f->nqueue = 0;
		batch = q;
		cap = qcap;
		bool over = __atomic_exchange_n(&f->over, false,
						__ATOMIC_RELAXED);
		pthread_mutex_unlock(&f->lock);

		for (size_t i = 0; i < n; i++) {
			uint64_t held;

			if (!colfs_tree_release_unused(d->tree, batch[i],
						       &held))
				continue;
			__atomic_add_fetch(&d->n_freed, 1, __ATOMIC_RELAXED);
			if (held)
				fuse_lowlevel_notify_inval_inode(d->se, held,
								 0, 0);
		}
		if (over) {
			struct timespec now;

			clock_gettime(CLOCK_MONOTONIC, &now);
			long gap = (now.tv_sec - last.tv_sec) * 1000000000L +
				   (now.tv_nsec - last.tv_nsec);
			if (gap < FORGET_PASS_GAP_NS) {
				struct timespec rest = {0, FORGET_PASS_GAP_NS - gap};
				nanosleep(&rest, NULL);
			}
			forget_shrink(d);
			clock_gettime(CLOCK_MONOTONIC, &last);
		}
		pthread_mutex_lock(&f->lock);
	}
	pthread_mutex_unlock(&f->lock);
	free(batch);
	return NULL;
}

void colfsd_forget_start(colfsd *d)
{
	colfsd_forgetter *f = calloc(1, sizeof *f);

	if (!f)
		return;  /* nothing is freed: nodes live as long as the mount */
	f->d = d;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->wake, NULL);
	/* the session's signals go to the threads reading requests */
	if (colfs_thread_create(&f->thread, forget_run, f) != 0) {
		pthread_cond_destroy(&f->wake);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return;
	}
	__atomic_store_n(&d->forgetter, f, __ATOMIC_RELEASE);
}

void colfsd_forget_stop(colfsd *d)
{
	colfsd_forgetter *f = __atomic_exchange_n(&d->forgetter, NULL,
						  __ATOMIC_ACQ_REL);

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->wake);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	pthread_cond_destroy(&f->wake);
	pthread_mutex_destroy(&f->lock);
	free(f->queue);
	free(f);
}

/* Queue directories `ino` for the thread (out of memory, or no thread:
 * their children stay). */
static void forget_queue(colfsd *d, const uint64_t *ino, size_t n)
{
	colfsd_forgetter *f = __atomic_load_n(&d->forgetter, __ATOMIC_ACQUIRE);

	if (!f || !n)
		return;
	pthread_mutex_lock(&f->lock);
	for (size_t i = 0; i < n; i++) {
		if (f->nqueue == f->capqueue) {
			size_t want = f->capqueue ? f->capqueue * 2 : 64;
			uint64_t *grown = realloc(f->queue,
						  want * sizeof *grown);

			if (!grown)
				break;
			f->queue = grown;
			f->capqueue = want;
		}
		f->queue[f->nqueue++] = ino[i];
	}
	pthread_cond_signal(&f->wake);
	pthread_mutex_unlock(&f->lock);
}

void colfsd_unref(colfsd *d, uint64_t ino, uint64_t count)
{
	colfsd_unref_many(d, &ino, &count, 1);
}

void colfsd_unref_many(colfsd *d, const uint64_t *ino, const uint64_t *count,
		       size_t n)
{
	uint64_t one, *dirs = n == 1 ? &one : malloc(n * sizeof *dirs);
	size_t ndirs;

	if (!dirs) {
		/* one at a time: nothing forgotten is lost */
		for (size_t i = 0; i < n; i++)
			colfsd_unref(d, ino[i], count[i]);
		return;
	}
	ndirs = colfs_tree_forget(d->tree, ino, count, n, dirs);
	forget_queue(d, dirs, ndirs);
	if (dirs != &one)
		free(dirs);
}

void colfsd_dir_close(colfsd *d, colfs_node *dir)
{
	uint64_t up = colfs_dir_closed(d->tree, dir);

	if (up)
		forget_queue(d, &up, 1);
}

void colfsd_budget_check(colfsd *d)
{
	colfsd_forgetter *f = __atomic_load_n(&d->forgetter, __ATOMIC_ACQUIRE);

	if (!f ||
	    colfs_tree_nodes_alive(d->tree, NULL) <=
		    d->node_budget - d->node_budget / 4 ||
	    __atomic_load_n(&f->over, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&f->lock);
	__atomic_store_n(&f->over, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&f->wake);
	pthread_mutex_unlock(&f->lock);
}

/* --- SIGUSR1 ------------------------------------------------------------ */

static colfsd *nodes_of_signal;

/* Append the decimal digits of v at p (async-signal-safe). */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static void nodes_handler(int sig)
{
	colfsd *d = nodes_of_signal;
	char line[320], *p = line;
	size_t peak, alive;
	int saved = errno;

	(void)sig;
	if (!d)
		return;
	alive = colfs_tree_nodes_alive(d->tree, &peak);
	p = put_str(p, "colfs: nodes: ");
	p = put_u64(p, alive);
	p = put_str(p, " alive, at most ");
	p = put_u64(p, peak);
	p = put_str(p, " at once (node_budget ");
	p = d->node_budget == SIZE_MAX ? put_str(p, "none")
				       : put_u64(p, d->node_budget);
	p = put_str(p, "); ");
	p = put_u64(p, __atomic_load_n(&d->n_lookups, __ATOMIC_RELAXED));
	p = put_str(p, " lookups, ");
	p = put_u64(p, __atomic_load_n(&d->n_forgets, __ATOMIC_RELAXED));
	p = put_str(p, " forgotten in ");
	p = put_u64(p, __atomic_load_n(&d->n_forget_msgs, __ATOMIC_RELAXED));
	p = put_str(p, " messages, ");
	p = put_u64(p, __atomic_load_n(&d->n_dropped, __ATOMIC_RELAXED));
	p = put_str(p, " listings dropped, ");
	p = put_u64(p, __atomic_load_n(&d->n_freed, __ATOMIC_RELAXED));
	p = put_str(p, " directories freed\n");
	if (write(STDERR_FILENO, line, (size_t)(p - line)) < 0)
		errno = saved;
	errno = saved;
}

void colfsd_nodes_signal(colfsd *d)
{
	struct sigaction sa;

	nodes_of_signal = d;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = nodes_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

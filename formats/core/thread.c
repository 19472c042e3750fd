/* colfs core: the threads colfs starts.
 *
 * The daemon ends its session from a signal handler (libfuse's: SIGTERM,
 * SIGINT, SIGHUP), which only sets a flag; the thread the signal
 * interrupts is what notices it.  A signal handled on a thread of ours
 * (a worker decoding ahead, a size learner, the forget thread) would
 * interrupt nothing the session waits in, and the daemon would stay up
 * until the next request.  So every thread colfs starts takes no signal:
 * the mask is full while it is created (a new thread inherits it), and
 * the caller's is put back. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "colfs.h"
#include "thread.h"

int colfs_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

unsigned colfs_cpus(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus < 1 ? 1 : cpus > COLFS_THREADS_MAX ? COLFS_THREADS_MAX
						      : (unsigned)cpus;
}

typedef struct parallel_for {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n;
	size_t next;
} parallel_for;

static void *parallel_run(void *arg)
{
	parallel_for *p = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		if (i >= p->n)
			break;
		p->fn(p->arg, i);
	}
	return NULL;
}

void colfs_parallel_for(unsigned k, size_t n,
			void (*fn)(void *arg, size_t i), void *arg)
{
	pthread_t tids[COLFS_THREADS_MAX];
	unsigned started = 0;
	parallel_for p = {.fn = fn, .arg = arg, .n = n};

	if (k > COLFS_THREADS_MAX)
		k = COLFS_THREADS_MAX;
	if ((size_t)k > n)
		k = n ? (unsigned)n : 1;
	for (unsigned i = 1; i < k; i++)
		if (colfs_thread_create(&tids[started], parallel_run, &p) == 0)
			started++;
	parallel_run(&p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

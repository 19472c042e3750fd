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

#include "colfs.h"

int colfs_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int err = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

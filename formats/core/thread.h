/* colfs: running work on several threads (thread.c): the one CPU count
 * and the one parallel-for of the formats. */
#ifndef COLFS_THREAD_H
#define COLFS_THREAD_H

#include <stddef.h>

/* The most threads colfs runs one job on. */
#define COLFS_THREADS_MAX 64

/* The online CPUs, at least 1, at most COLFS_THREADS_MAX: how many
 * threads a job that computes should run on. */
unsigned colfs_cpus(void);

/* fn(arg, i) for every i in [0, n), each i taken by one thread, on up to
 * k threads (at most COLFS_THREADS_MAX and n; the caller's is one of
 * them, and the only one when no other can start); returns when all are
 * done. */
void colfs_parallel_for(unsigned k, size_t n,
			void (*fn)(void *arg, size_t i), void *arg);

#endif

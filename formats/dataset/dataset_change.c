/* colfs: has a dataset's directory changed below its top folder since
 * it was listed (dataset_change.c)?  The top folder is the tree's source
 * and the core checks it (an fstat at every open, read and piece); each
 * folder below it that a listing read is kept here with its device,
 * inode, size and mtime then (an entry added, removed or renamed in a
 * folder changes its mtime), and looked at again.  Looking at every
 * folder at every read would make a big dataset's reads slow, so a walk
 * is made at most once in 200 times the last one took (at most half a
 * percent of the time; at 50 a read of 2,000 folders' files through a
 * mount cost the daemon 8% more CPU): with a few folders, at every
 * check; with 2,000, every 0.4 to 3 s. */
#include "dataset_int.h"
#include "../core/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

/* A walk's cost times this is the least time between two walks. */
#define DS_CHECK_SPACING 200

struct ds_stamps {
	pthread_mutex_t lock;
	ds_stamp *v;            /* in the order first read */
	size_t n, cap;
	size_t *slots;          /* open addressing by rel: index + 1 */
	size_t nslots;
	uint64_t next_ns;       /* atomic: no walk before (monotonic) */
	bool changed;           /* atomic; set once, never cleared */
	char what[512];         /* the change, once `changed` */
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t rel_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)h;
}

ds_stamps *ds_stamps_create(void)
{
	ds_stamps *s = calloc(1, sizeof *s);
	if (s)
		pthread_mutex_init(&s->lock, NULL);
	return s;
}

void ds_stamps_destroy(ds_stamps *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].rel);
	free(s->v);
	free(s->slots);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* The slot of `rel`: its stamp's (index + 1 there) or the empty one
 * where it goes. */
static size_t *stamps_slot(ds_stamps *s, const char *rel)
{
	size_t m = s->nslots - 1, i = rel_hash(rel) & m;
	while (s->slots[i] && strcmp(s->v[s->slots[i] - 1].rel, rel))
		i = (i + 1) & m;
	return &s->slots[i];
}

static bool stamps_rehash(ds_stamps *s)
{
	size_t ns = s->nslots ? s->nslots * 2 : 64;
	size_t *sl = calloc(ns, sizeof *sl);
	if (!sl)
		return false;
	free(s->slots);
	s->slots = sl;
	s->nslots = ns;
	for (size_t i = 0; i < s->n; i++)
		*stamps_slot(s, s->v[i].rel) = i + 1;
	return true;
}

void ds_stamps_add(ds_stamps *s, ds_found *found)
{
	if (!s || !found)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < found->nstamps; i++) {
		ds_stamp *t = &found->stamps[i];
		if ((s->n + 1) * 2 > s->nslots && !stamps_rehash(s))
			break;
		size_t *slot = stamps_slot(s, t->rel);
		if (*slot)
			continue; /* read before: that reading stands */
		if (s->n == s->cap) {
			size_t nc = s->cap ? s->cap * 2 : 64;
			ds_stamp *p = realloc(s->v, nc * sizeof *p);
			if (!p)
				break;
			s->v = p;
			s->cap = nc;
		}
		s->v[s->n] = *t;
		t->rel = NULL;
		*slot = ++s->n;
	}
	pthread_mutex_unlock(&s->lock);
}

/* The first folder of `s` that differs from its stamp, said in s->what;
 * false when none.  Under s->lock. */
static bool stamps_walk(ds_stamps *s, int dirfd)
{
	for (size_t i = 0; i < s->n; i++) {
		const ds_stamp *t = &s->v[i];
		struct statx sx;
		if (statx(dirfd, t->rel, AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
			  STATX_BASIC_STATS, &sx) != 0) {
			snprintf(s->what, sizeof s->what, "folder %s: %s",
				 t->rel, errno == ENOENT ? "removed"
				 : strerror(errno));
			return true;
		}
		if (makedev(sx.stx_dev_major, sx.stx_dev_minor) != t->dev ||
		    sx.stx_ino != t->ino) {
			snprintf(s->what, sizeof s->what, "folder %s: replaced "
				 "(now inode %llu, was %llu)", t->rel,
				 (unsigned long long)sx.stx_ino,
				 (unsigned long long)t->ino);
			return true;
		}
		if (sx.stx_mtime.tv_sec != t->mtime_sec ||
		    sx.stx_mtime.tv_nsec != t->mtime_nsec ||
		    sx.stx_size != t->size) {
			char was[40], now[40];
			struct tm tm;
			time_t a = (time_t)t->mtime_sec, b = sx.stx_mtime.tv_sec;
			strftime(was, sizeof was, "%Y-%m-%dT%H:%M:%S",
				 gmtime_r(&a, &tm));
			strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S",
				 gmtime_r(&b, &tm));
			snprintf(s->what, sizeof s->what, "folder %s: an entry "
				 "added, removed or renamed, mtime %s.%09uZ -> "
				 "%s.%09uZ", t->rel, was, t->mtime_nsec, now,
				 sx.stx_mtime.tv_nsec);
			return true;
		}
	}
	return false;
}

colfs_status ds_stamps_check(ds_stamps *s, int dirfd, bool force,
			     colfs_err *err)
{
	if (!s || dirfd < 0)
		return COLFS_OK;
	if (!__atomic_load_n(&s->changed, __ATOMIC_ACQUIRE)) {
		uint64_t t0 = now_ns();
		if (!force && t0 < __atomic_load_n(&s->next_ns,
						   __ATOMIC_RELAXED))
			return COLFS_OK;
		/* one walk at a time; a check that finds one under way
		 * takes its answer as its own */
		if (force)
			pthread_mutex_lock(&s->lock);
		else if (pthread_mutex_trylock(&s->lock) != 0)
			return COLFS_OK;
		bool changed = s->changed || stamps_walk(s, dirfd);
		uint64_t t1 = now_ns();
		__atomic_store_n(&s->next_ns, t1 + (t1 - t0) * DS_CHECK_SPACING,
				 __ATOMIC_RELAXED);
		if (changed)
			__atomic_store_n(&s->changed, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->lock);
		if (!changed)
			return COLFS_OK;
	}
	return colfs_fail(err, COLFS_EIO, 0, "source changed since mount (%s): "
			  "remount", s->what);
}

void ds_change_render(colfs_tree *t, colfs_buf *out)
{
	colfs_problem *p = malloc(sizeof *p);
	char where[48];

	(void)colfs_node_check(t, colfs_tree_root(t));
	for (size_t i = 0; p && colfs_tree_error_get(t, i, p) == COLFS_OK;
	     i++)
		if (strcmp(p->path, "/") == 0)
			colfs_buf_printf(out, "/: %s: %s: %s\n",
					 colfs_offset_text(p->offset, where,
							   sizeof where),
					 colfs_status_name(p->status),
					 p->message);
	free(p);
}

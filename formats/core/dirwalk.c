/* colfs: the one lister of local directories (dirwalk.h): an
 * openat/fdopendir/statx walk from the directory down, links resolved
 * one component at a time (link_follow) so that no folder out of the
 * directory is looked inside, mount points and loops not entered; the
 * lister's rules (colfs_dirwalk_rules) say which names it leaves out and
 * hear of each entry not taken and each folder entered. */
#include "dirwalk.h"
#include "buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Links followed in one resolution before it is called a loop (the
 * kernel's own limit). */
#define DIRWALK_MAX_LINKS 40

static int entry_cmp(const void *a, const void *b)
{
	const colfs_dirwalk_entry *x = a, *y = b;
	return strcmp(x->rel, y->rel);
}

static bool entry_push(colfs_dirwalk_entry **v, size_t *n, size_t *cap)
{
	return colfs_grow((void **)v, cap, *n + 1, sizeof **v);
}

static bool found_skip(const colfs_dirwalk_rules *r, const char *rel,
		       colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* `rel` not taken, for the reason `fmt`, told to the rules' `skipped`:
 * false only out of memory. */
static bool found_skip(const colfs_dirwalk_rules *r, const char *rel,
		       colfs_status st, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	if (!r->skipped)
		return true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return r->skipped(r->ctx, rel, st, msg);
}

/* Folder `rel` as read now (statx `sx`), told to the rules' `folder`:
 * false only out of memory. */
static bool found_stamp(const colfs_dirwalk_rules *r, const char *rel,
			const struct statx *sx)
{
	if (!r->folder || !rel[0])
		return true; /* the listed directory is its lister's */
	colfs_dirwalk_stamp t = {
		.dev = makedev(sx->stx_dev_major, sx->stx_dev_minor),
		.ino = sx->stx_ino,
		.size = sx->stx_size,
		.mtime_sec = sx->stx_mtime.tv_sec,
		.mtime_nsec = sx->stx_mtime.tv_nsec,
	};
	return r->folder(r->ctx, rel, &t);
}

/* statx without following a last link and without asking a network or
 * FUSE filesystem to refresh what it has cached: a mount point may be a
 * mount of colfs itself, which cannot answer while this listing waits. */
static int look(int dirfd, const char *path, struct statx *sx)
{
	return statx(dirfd, path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC |
			  AT_NO_AUTOMOUNT, STATX_BASIC_STATS, sx);
}

static dev_t sx_dev(const struct statx *sx)
{
	return makedev(sx->stx_dev_major, sx->stx_dev_minor);
}

/* Is `sx` a mount point: another filesystem than the root's, or the
 * root of a mount (a bind mount of the same filesystem)? */
static bool sx_mount(const struct statx *sx, dev_t rootdev)
{
	return sx_dev(sx) != rootdev ||
	       ((sx->stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
		(sx->stx_attributes & STATX_ATTR_MOUNT_ROOT));
}

/* Is `p` (absolute, resolved) the root `root` or under it? */
static bool under(const char *p, const char *root)
{
	size_t n = strlen(root);
	return strncmp(p, root, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* Is `p` (absolute, resolved; "" for "/") an ancestor of `root`? */
static bool above(const char *p, const char *root)
{
	size_t n = strlen(p);
	return strncmp(root, p, n) == 0 && root[n] == '/';
}

/* A listing under way. */
typedef struct walker {
	const char *root;     /* absolute, resolved */
	dev_t rootdev;
	bool follow;          /* -o follow_links */
	const char *mnt;      /* the mount point (resolved), or NULL */
	const colfs_dirwalk_rules *rules;
	size_t limit;
	colfs_dirwalk_entry *v;
	size_t n, cap;
	char *why;
	size_t why_len;
	/* the folders entered from the root down (dev, inode) */
	uint64_t anc[COLFS_DIRWALK_MAX_DEPTH + 2][2];
} walker;

typedef enum link_end {
	LINK_FOLLOW,   /* a file or folder under the root (any but the
			* mount point with follow_links): followed */
	LINK_DANGLING, /* nothing there (errno-like reason in `why`) */
	LINK_OUTSIDE,  /* out of the root */
	LINK_OWN,      /* into the mount point */
	LINK_MOUNT,    /* a mount point under the root */
	LINK_LOOP,     /* more than DIRWALK_MAX_LINKS links, or a folder that
			* holds the link */
} link_end;

/* Where the link `rel` of the walk's root (absolute, resolved) leads,
 * resolved one component at a time as the kernel would, but never
 * looking inside a folder that is neither the root, under it (on its
 * filesystem) nor one of its ancestors: a folder out of the root may be
 * a mount of colfs itself (a look inside it would wait for this
 * listing).  With follow_links, any folder but the mount point itself.
 * `target` gets the link's text; LINK_FOLLOW gives the end's statx in
 * `sx`. */
static link_end link_follow(const walker *w, const char *rel,
			    struct statx *sx, char *target, size_t tlen,
			    const char **why)
{
	const char *root = w->root;
	dev_t rootdev = w->rootdev;
	char cur[PATH_MAX], rest[2 * PATH_MAX], lt[PATH_MAX], parent[PATH_MAX];
	char path[PATH_MAX];
	unsigned hops = 0;
	ssize_t k;

	*why = "";
	if ((size_t)snprintf(path, sizeof path, "%s/%s", root, rel) >=
	    sizeof path)
		return (*why = "path too long"), LINK_DANGLING;
	k = readlink(path, lt, sizeof lt - 1);
	if (k < 0)
		return (*why = strerror(errno)), LINK_DANGLING;
	lt[k] = '\0';
	snprintf(target, tlen, "%s", lt);
	/* the link's folder, resolved (a folder already entered: under the
	 * root, or the root) */
	char *slash = strrchr(path, '/');
	*slash = '\0';
	if (!realpath(path, parent))
		return (*why = strerror(errno)), LINK_DANGLING;
	snprintf(cur, sizeof cur, "%s", lt[0] == '/' ? "" :
		 strcmp(parent, "/") ? parent : "");
	snprintf(rest, sizeof rest, "%s", lt);
	dev_t curdev = rootdev;
	bool end_known = false;
	for (;;) {
		char *p = rest;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		char comp[NAME_MAX + 1];
		if (n > NAME_MAX)
			return (*why = strerror(ENAMETOOLONG)), LINK_DANGLING;
		memcpy(comp, p, n);
		comp[n] = '\0';
		memmove(rest, p + n, strlen(p + n) + 1);
		end_known = false;
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *s = strrchr(cur, '/');
			if (s)
				*s = '\0';
			continue;
		}
		/* may we look inside `cur`? */
		if (w->mnt && under(cur[0] ? cur : "/", w->mnt))
			return LINK_OWN;
		if (!(cur[0] == '\0' || above(cur, root) || under(cur, root)) &&
		    !w->follow)
			return LINK_OUTSIDE;
		if (under(cur, root) && curdev != rootdev)
			return LINK_MOUNT;
		size_t cl = strlen(cur);
		if (cl + 1 + n + 1 > sizeof cur)
			return (*why = strerror(ENAMETOOLONG)), LINK_DANGLING;
		char next[PATH_MAX];
		memcpy(next, cur, cl);
		next[cl] = '/';
		memcpy(next + cl + 1, comp, n + 1);
		if (look(AT_FDCWD, next, sx) != 0)
			return (*why = strerror(errno)), LINK_DANGLING;
		if (S_ISLNK(sx->stx_mode)) {
			char more[PATH_MAX];
			if (++hops > DIRWALK_MAX_LINKS)
				return LINK_LOOP;
			k = readlink(next, more, sizeof more - 1);
			if (k < 0)
				return (*why = strerror(errno)), LINK_DANGLING;
			more[k] = '\0';
			if ((size_t)k + 1 + strlen(rest) + 1 > sizeof rest)
				return (*why = strerror(ENAMETOOLONG)),
				       LINK_DANGLING;
			memmove(rest + k + 1, rest, strlen(rest) + 1);
			memcpy(rest, more, (size_t)k);
			rest[k] = '/';
			if (more[0] == '/')
				cur[0] = '\0';
			continue;
		}
		if (!S_ISDIR(sx->stx_mode) && strspn(rest, "/") != strlen(rest))
			return (*why = strerror(ENOTDIR)), LINK_DANGLING;
		memcpy(cur, next, strlen(next) + 1);
		curdev = sx_dev(sx);
		end_known = true;
	}
	bool inside = under(cur[0] ? cur : "/", root);
	if (w->mnt && under(cur[0] ? cur : "/", w->mnt))
		return LINK_OWN;
	if (!inside && !w->follow)
		return LINK_OUTSIDE;
	if (!end_known && look(AT_FDCWD, cur[0] ? cur : "/", sx) != 0)
		return (*why = strerror(errno)), LINK_DANGLING;
	if (inside && sx_mount(sx, rootdev) && strcmp(cur, root))
		return LINK_MOUNT;
	/* a folder that holds the link: its contents again, forever */
	if (S_ISDIR(sx->stx_mode) && (!strcmp(cur, parent) ||
				      under(parent, cur)))
		return LINK_LOOP;
	return LINK_FOLLOW;
}


/* Entry `e` of folder `dirfd` (at `rel`, `depth` below the root): into
 * *sx with *dir set, or false when it is not taken ("." and "..", a name
 * the rules leave out, gone, not a file nor a folder, or one told to the
 * rules' `skipped`);
 * COLFS_ENOMEM in *st. */
static bool entry_take(walker *w, int dirfd, const struct dirent *e,
		       const char *rel, unsigned depth, struct statx *sx,
		       bool *dir, colfs_status *st)
{
	unsigned char type = e->d_type;
	char target[PATH_MAX];
	const char *why;
	bool ok = true;

	*dir = false;
	if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
		return false;
	if (w->rules->leave_out && w->rules->leave_out(e->d_name))
		return false;
	if (type != DT_LNK) {
		if (look(dirfd, e->d_name, sx) != 0)
			return false; /* gone meanwhile */
		type = S_ISDIR(sx->stx_mode) ? DT_DIR
		       : S_ISREG(sx->stx_mode) ? DT_REG
		       : S_ISLNK(sx->stx_mode) ? DT_LNK : DT_UNKNOWN;
	}
	bool link = type == DT_LNK;
	if (link) {
		switch (link_follow(w, rel, sx, target, sizeof target, &why)) {
		case LINK_FOLLOW:
			break;
		case LINK_DANGLING:
			ok = found_skip(w->rules, rel, COLFS_ENOENT,
					"dangling symbolic link (to %s: %s): "
					"not shown", target, why);
			goto skipped;
		case LINK_OUTSIDE:
			ok = found_skip(w->rules, rel, COLFS_EUNSUPPORTED,
					"symbolic link to %s, out of the "
					"dataset's directory: not followed "
					"(-o follow_links follows it)",
					target);
			goto skipped;
		case LINK_OWN:
			ok = found_skip(w->rules, rel, COLFS_EUNSUPPORTED,
					"symbolic link to %s, into this "
					"mount: not followed", target);
			goto skipped;
		case LINK_MOUNT:
			ok = found_skip(w->rules, rel, COLFS_EUNSUPPORTED,
					"symbolic link to %s, a mount point: "
					"not followed", target);
			goto skipped;
		case LINK_LOOP:
			ok = found_skip(w->rules, rel, COLFS_EUNSUPPORTED,
					"symbolic link loop (to %s, a folder "
					"that holds it, or links without "
					"end): not followed", target);
			goto skipped;
		}
		type = S_ISDIR(sx->stx_mode) ? DT_DIR
		       : S_ISREG(sx->stx_mode) ? DT_REG : DT_UNKNOWN;
	} else if (type == DT_DIR && sx_mount(sx, (dev_t)w->anc[depth][0])) {
		ok = found_skip(w->rules, rel, COLFS_EUNSUPPORTED,
				"a mount point (another filesystem): not "
				"entered");
		goto skipped;
	}
	if (type == DT_DIR) {
		/* a folder that is one of those holding it (a loop of bind
		 * mounts the mount check missed) */
		for (unsigned i = 0; i <= depth && i < COLFS_DIRWALK_MAX_DEPTH + 2; i++)
			if (w->anc[i][0] == sx_dev(sx) &&
			    w->anc[i][1] == sx->stx_ino) {
				ok = link ? found_skip(w->rules, rel,
						       COLFS_EUNSUPPORTED,
						       "symbolic link loop (to "
						       "%s, a folder that "
						       "holds it): not "
						       "followed", target)
				     : found_skip(w->rules, rel,
						  COLFS_EUNSUPPORTED, "a loop "
						  "(the folder holds itself): "
						  "not entered");
				goto skipped;
			}
		if (depth + 1 > COLFS_DIRWALK_MAX_DEPTH) {
			ok = found_skip(w->rules, rel, COLFS_EUNSUPPORTED,
					"folders nested more than %d deep: "
					"not entered", COLFS_DIRWALK_MAX_DEPTH);
			goto skipped;
		}
		*dir = true;
		if (!found_stamp(w->rules, rel, sx))
			*st = COLFS_ENOMEM;
		return *st == COLFS_OK;
	}
	if (type != DT_REG)
		return false;
	if (sx->stx_size == 0 && w->rules->skip_empty) {
		ok = found_skip(w->rules, rel, COLFS_ETRUNCATED,
				"empty file (0 bytes): not shown");
		goto skipped;
	}
	return true;
skipped:
	if (!ok)
		*st = COLFS_ENOMEM;
	return false;
}

/* "prefix/name" (or "name"), or NULL out of memory. */
static char *rel_join(const char *prefix, const char *name)
{
	size_t plen = strlen(prefix), nlen = strlen(name);
	char *rel = malloc(plen + nlen + 2);
	if (!rel)
		return NULL;
	if (plen)
		snprintf(rel, plen + nlen + 2, "%s/%s", prefix, name);
	else
		memcpy(rel, name, nlen + 1);
	return rel;
}

/* The files under `dirfd` (taken) appended to w->v; stops once there
 * are w->limit. */
static colfs_status walk(walker *w, int dirfd, const char *prefix,
			 unsigned depth)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *e;
	colfs_status st = COLFS_OK;

	if (!d) {
		close(dirfd);
		snprintf(w->why, w->why_len, "%s: %s",
			 prefix[0] ? prefix : ".", strerror(errno));
		return COLFS_EIO;
	}
	while (st == COLFS_OK && w->n < w->limit && (e = readdir(d)) != NULL) {
		struct statx sx;
		bool dir;
		char *rel = rel_join(prefix, e->d_name);
		if (!rel) {
			st = COLFS_ENOMEM;
			break;
		}
		if (!entry_take(w, dirfd, e, rel, depth, &sx, &dir, &st)) {
			free(rel);
			continue;
		}
		if (dir) {
			int fd = openat(dirfd, e->d_name,
					O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0) {
				w->anc[depth + 1][0] = sx_dev(&sx);
				w->anc[depth + 1][1] = sx.stx_ino;
				st = walk(w, fd, rel, depth + 1);
			}
			free(rel);
			continue;
		}
		if (!entry_push(&w->v, &w->n, &w->cap)) {
			free(rel);
			st = COLFS_ENOMEM;
			break;
		}
		w->v[w->n] = (colfs_dirwalk_entry){rel, sx.stx_size, false};
		w->n++;
	}
	closedir(d);
	return st;
}

/* A walker of `root`: its resolved path in `real` (PATH_MAX), its
 * device and inode; false with `why` when it cannot be looked at. */
static bool walker_init(walker *w, const char *root, char *real,
			const colfs_dirwalk_rules *r, char *why,
			size_t why_len)
{
	struct statx sx;

	memset(w, 0, sizeof *w);
	if (!realpath(root, real) || look(AT_FDCWD, real, &sx) != 0) {
		snprintf(why, why_len, "%s: %s", root, strerror(errno));
		return false;
	}
	w->root = real;
	w->rootdev = sx_dev(&sx);
	w->follow = r->follow_links;
	w->mnt = r->mount_point;
	w->rules = r;
	w->why = why;
	w->why_len = why_len;
	w->anc[0][0] = w->rootdev;
	w->anc[0][1] = sx.stx_ino;
	return true;
}

colfs_status colfs_dirwalk(const char *root, const colfs_dirwalk_rules *r,
			   colfs_dirwalk_entry **out, size_t *n, char *why,
			   size_t why_len)
{
	char real[PATH_MAX];
	walker w;

	*out = NULL;
	*n = 0;
	if (!walker_init(&w, root, real, r, why, why_len))
		return COLFS_EIO;
	w.limit = r->limit ? r->limit : SIZE_MAX;
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", root, strerror(errno));
		return COLFS_EIO;
	}
	colfs_status st = walk(&w, fd, "", 0);
	if (st != COLFS_OK) {
		colfs_dirwalk_entries_free(w.v, w.n);
		return st;
	}
	if (w.n)
		qsort(w.v, w.n, sizeof *w.v, entry_cmp);
	*out = w.v;
	*n = w.n;
	return COLFS_OK;
}

/* A folder as "name/": the order of colfs_dirwalk's paths. */
static int folder_entry_cmp(const void *a, const void *b)
{
	const colfs_dirwalk_entry *x = a, *y = b;
	const char *p = x->rel, *q = y->rel;
	while (*p && *p == *q) {
		p++;
		q++;
	}
	int c = *p ? (unsigned char)*p : x->dir ? '/' : 0;
	int d = *q ? (unsigned char)*q : y->dir ? '/' : 0;
	return c - d;
}

colfs_status colfs_dirwalk_folder(const char *root, const char *rel,
				  const colfs_dirwalk_rules *r,
				  colfs_dirwalk_entry **out, size_t *n,
				  char *why, size_t why_len)
{
	size_t depth = 0, plen = strlen(rel);
	colfs_status st = COLFS_OK;
	struct dirent *e;
	char real[PATH_MAX];
	walker w;

	*out = NULL;
	*n = 0;
	for (const char *p = rel; *p; p++)
		depth += *p == '/';
	if (plen && depth >= COLFS_DIRWALK_MAX_DEPTH) {
		snprintf(why, why_len, "%s: directories nested more than %d "
			 "deep", rel, COLFS_DIRWALK_MAX_DEPTH);
		return COLFS_EUNSUPPORTED;
	}
	if (!walker_init(&w, root, real, r, why, why_len))
		return COLFS_EIO;
	char *path = malloc(strlen(real) + plen + 2);
	if (!path)
		return COLFS_ENOMEM;
	sprintf(path, plen ? "%s/%s" : "%s%s", real, rel);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	free(path);
	if (!d) {
		snprintf(why, why_len, "%s: %s", plen ? rel : ".",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return COLFS_EIO;
	}
	struct statx self;
	memset(&self, 0, sizeof self);
	if (plen && statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS,
			  &self) == 0 && !found_stamp(r, rel, &self))
		st = COLFS_ENOMEM;
	/* the loop check knows this folder alone (a link back to a folder
	 * that holds it is link_follow's) */
	if (plen) {
		w.anc[0][0] = sx_dev(&self);
		w.anc[0][1] = self.stx_ino;
	}
	while (st == COLFS_OK && (e = readdir(d)) != NULL) {
		struct statx sx;
		bool dir;
		char *r = rel_join(rel, e->d_name);
		if (!r) {
			st = COLFS_ENOMEM;
			break;
		}
		/* the folder's own entries only: depth 0 keeps the depth
		 * check to the caller's */
		if (!entry_take(&w, fd, e, r, 0, &sx, &dir, &st)) {
			free(r);
			continue;
		}
		if (!entry_push(out, n, &w.cap)) {
			free(r);
			st = COLFS_ENOMEM;
			break;
		}
		(*out)[*n] = (colfs_dirwalk_entry){r, dir ? 0 : sx.stx_size, dir};
		(*n)++;
	}
	closedir(d);
	if (st != COLFS_OK) {
		colfs_dirwalk_entries_free(*out, *n);
		*out = NULL;
		*n = 0;
		return st;
	}
	if (*n)
		qsort(*out, *n, sizeof **out, folder_entry_cmp);
	return COLFS_OK;
}

void colfs_dirwalk_entries_free(colfs_dirwalk_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].rel);
	free(v);
}

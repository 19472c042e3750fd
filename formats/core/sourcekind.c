/* colfs: choosing a source's kind by its name (sourcekind.h), and the
 * two kinds of the local file system: a directory (a dataset, which the
 * directory module walks with the core's lister, dirwalk.h) and a file
 * (the last kind, which claims every name no other kind claims).  Both
 * list a local name as the directory it should be (every regular file
 * under it, no name left out: a name that is no directory fails with the
 * system's reason), peek at a file's bytes and stat it. */
#include "sourcekind.h"
#include "dirwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const colfs_source_kind *colfs_source_kind_of(const char *name)
{
	size_t i = 0;
	for (; colfs_source_kinds[i + 1]; i++)
		if (colfs_source_kinds[i]->claims(name))
			break;
	return colfs_source_kinds[i];
}

bool colfs_source_is_local(const char *name)
{
	return colfs_source_kind_of(name)->changes == COLFS_SOURCE_CHANGES_STAT;
}

colfs_status colfs_source_open(const char *name, const colfs_options *o,
			       colfs_source **out, char *why, size_t why_len)
{
	const colfs_source_kind *k = colfs_source_kind_of(name);
	colfs_source_opened op = {.fd = -1};
	colfs_status st;

	*out = NULL;
	if (k->listing) {
		snprintf(why, why_len, "%s: not a file", name);
		return COLFS_EUNSUPPORTED;
	}
	st = k->open(name, o, &op, why, why_len);
	free(op.shown);
	if (st == COLFS_OK && op.fd < 0 && !op.src) {
		/* a kind that found a listing under the name (a gs:// name
		 * with no object of its own): no bytes to give */
		snprintf(why, why_len, "%s: not a file", name);
		return COLFS_EUNSUPPORTED;
	}
	if (st != COLFS_OK || op.fd < 0) {
		*out = op.src;
		return st;
	}
	st = colfs_source_create_fd(op.fd, 1, out);
	if (st != COLFS_OK) {
		close(op.fd);
		snprintf(why, why_len, "%s: %s", name, colfs_status_name(st));
	}
	return st;
}

colfs_status colfs_source_list(const char *name, const colfs_options *o,
			       colfs_source_entry **out, size_t *n, char *why,
			       size_t why_len)
{
	const colfs_source_kind *k = colfs_source_kind_of(name);
	*out = NULL;
	*n = 0;
	if (!k->list) {
		snprintf(why, why_len, "%s: cannot be listed", name);
		return COLFS_EUNSUPPORTED;
	}
	return k->list(name, o, out, n, why, why_len);
}

void colfs_source_entries_free(colfs_source_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++)
		free(e[i].key);
	free(e);
}

colfs_status colfs_source_peek(const char *name, const colfs_options *o,
			       uint64_t size, size_t n, uint8_t *head,
			       uint8_t *tail, char *why, size_t why_len)
{
	const colfs_source_kind *k = colfs_source_kind_of(name);
	if (!k->peek) {
		snprintf(why, why_len, "%s: cannot be peeked at", name);
		return COLFS_EUNSUPPORTED;
	}
	return k->peek(name, o, size, n, head, tail, why, why_len);
}

colfs_status colfs_source_stat(const char *name, const colfs_options *o,
			       colfs_source_stat_info *out, char *why,
			       size_t why_len)
{
	const colfs_source_kind *k = colfs_source_kind_of(name);
	memset(out, 0, sizeof *out);
	if (!k->stat) {
		snprintf(why, why_len, "cannot be looked at");
		return COLFS_EUNSUPPORTED;
	}
	return k->stat(name, o, out, why, why_len);
}

colfs_status colfs_source_open_file(const char *name, const char *shown,
				    const colfs_options *o,
				    colfs_source **out, char *why,
				    size_t why_len)
{
	struct stat sb;
	*out = NULL;
	if (!colfs_source_is_local(name))
		return colfs_source_open(name, o, out, why, why_len);
	int fd = colfs_source_open_local(name);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", shown, strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(why, why_len, "%s is not a regular file", shown);
		return COLFS_EIO;
	}
	colfs_status st = colfs_source_create_fd(fd, 1, out);
	if (st != COLFS_OK) {
		close(fd);
		snprintf(why, why_len, "%s: %s", shown, colfs_status_name(st));
	}
	return st;
}

char *colfs_source_display(const char *name)
{
	const colfs_source_kind *k = colfs_source_kind_of(name);
	return k->display ? k->display(name) : strdup(name);
}

char *colfs_source_canonical(const char *name)
{
	const colfs_source_kind *k = colfs_source_kind_of(name);
	char *real;
	if (k->changes != COLFS_SOURCE_CHANGES_STAT)
		return colfs_source_display(name);
	real = realpath(name, NULL);
	return real ? real : strdup(name);
}

void colfs_source_hide(char *arg)
{
	const colfs_source_kind *k = colfs_source_kind_of(arg);
	if (k->hide)
		k->hide(arg);
}

/* ------------------------------------------------------------------------
 * The local file system
 */
/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
 * as "not a regular file" when the tree stats it.  The flag is taken off
 * again for the reads. */
int colfs_source_open_local(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static colfs_status local_open(const char *name, const colfs_options *o,
			       colfs_source_opened *out, char *why,
			       size_t why_len)
{
	(void)o;
	int fd = colfs_source_open_local(name);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", name, strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	out->fd = fd;
	return COLFS_OK;
}

/* Every regular file under the directory `name`, as the core's walk
 * finds it with no name left out (links out of it not followed but with
 * follow_links, never into the mount point, no loops, no mount points). */
static colfs_status local_list(const char *name, const colfs_options *o,
			       colfs_source_entry **out, size_t *n, char *why,
			       size_t why_len)
{
	colfs_dirwalk_rules r = {
		.follow_links = o && o->follow_links,
		.mount_point = o ? o->mount_point : NULL,
	};
	colfs_dirwalk_entry *v = NULL;
	size_t k = 0;
	colfs_status st = colfs_dirwalk(name, &r, &v, &k, why, why_len);
	if (st != COLFS_OK)
		return st;
	colfs_source_entry *e = calloc(k ? k : 1, sizeof *e);
	if (!e) {
		colfs_dirwalk_entries_free(v, k);
		snprintf(why, why_len, "%s: out of memory", name);
		return COLFS_ENOMEM;
	}
	for (size_t i = 0; i < k; i++)
		e[i] = (colfs_source_entry){v[i].rel, v[i].size};
	free(v);
	*out = e;
	*n = k;
	return COLFS_OK;
}

colfs_status colfs_source_peek_local(const char *name, const colfs_options *o,
				     uint64_t size, size_t n, uint8_t *head,
				     uint8_t *tail, char *why, size_t why_len)
{
	(void)o;
	if (n > size) {
		snprintf(why, why_len, "%s: %zu bytes asked of %llu", name, n,
			 (unsigned long long)size);
		return COLFS_EBOUNDS;
	}
	/* O_NONBLOCK: a FIFO put in a listed file's place does not wait
	 * for a writer (its reads fail: not columnar); left on, as a
	 * regular file's reads ignore it */
	int fd = open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", name, strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	bool whole = pread(fd, head, n, 0) == (ssize_t)n &&
		     pread(fd, tail, n, (off_t)(size - n)) == (ssize_t)n;
	close(fd);
	if (!whole) {
		snprintf(why, why_len, "%s: fewer than its %llu bytes read",
			 name, (unsigned long long)size);
		return COLFS_ETRUNCATED;
	}
	return COLFS_OK;
}

colfs_status colfs_source_stat_local(const char *name, const colfs_options *o,
				     colfs_source_stat_info *out, char *why,
				     size_t why_len)
{
	struct stat sb;
	(void)o;
	if (stat(name, &sb) != 0) {
		snprintf(why, why_len, "%s", strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	*out = (colfs_source_stat_info){
		.dir = S_ISDIR(sb.st_mode),
		.regular = S_ISREG(sb.st_mode),
		.size = (uint64_t)sb.st_size,
		.dev = (uint64_t)sb.st_dev,
		.ino = (uint64_t)sb.st_ino,
		.mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 +
			    sb.st_mtim.tv_nsec,
	};
	return COLFS_OK;
}

static bool directory_claims(const char *name)
{
	struct stat sb;
	return stat(name, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A directory: the tree is the directory module's over the directory's
 * descriptor (its changes seen by stat); the module walks it with the
 * core's lister and its own rules, `list` with none. */
const colfs_source_kind colfs_source_kind_directory = {
	.name = "directory",
	.claims = directory_claims,
	.open = local_open,
	.listing = true,
	.list = local_list,
	.peek = colfs_source_peek_local,
	.stat = colfs_source_stat_local,
	.changes = COLFS_SOURCE_CHANGES_STAT,
};

static bool file_claims(const char *name)
{
	(void)name;
	return true;
}

/* A file, or any local name no other kind claims: listed as the
 * directory it may have become since it was claimed (or the system's
 * reason why not), peeked at and stat'ed. */
const colfs_source_kind colfs_source_kind_file = {
	.name = "file",
	.claims = file_claims,
	.open = local_open,
	.list = local_list,
	.peek = colfs_source_peek_local,
	.stat = colfs_source_stat_local,
	.changes = COLFS_SOURCE_CHANGES_STAT,
};

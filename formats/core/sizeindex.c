/* colfs: the persistent size index (see sizeindex.h for the file format).
 *
 * Loading reads the whole file (bounded by COLFS_SIZEINDEX_MAX_BYTES),
 * checks the checksum line first and only then parses the entries into a
 * scratch table, so a damaged file never leaves part of itself behind.
 */
#include "sizeindex.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define SIZEINDEX_MAGIC "colfs-sizes 1\n"
#define SIZEINDEX_MAX_PATH 4096

typedef struct sizeindex_entry {
	char *path;      /* NULL: free slot */
	uint64_t size;
} sizeindex_entry;

struct colfs_sizeindex {
	pthread_mutex_t lock;
	char *key;
	sizeindex_entry *slots;  /* open addressing, power-of-two capacity */
	size_t cap, count;
	bool dirty;
};

static uint64_t sizeindex_hash(const char *s)
{
	return XXH64(s, strlen(s), 0);
}

/* The slot holding `path`, or the free slot where it would go. */
static sizeindex_entry *sizeindex_slot(sizeindex_entry *slots, size_t cap,
				       const char *path)
{
	size_t mask = cap - 1;
	for (size_t i = (size_t)sizeindex_hash(path) & mask;;
	     i = (i + 1) & mask)
		if (!slots[i].path || strcmp(slots[i].path, path) == 0)
			return &slots[i];
}

static bool sizeindex_grow(colfs_sizeindex *ix)
{
	if ((ix->count + 1) * 2 <= ix->cap)
		return true;
	size_t nc = ix->cap ? ix->cap * 2 : 64;
	sizeindex_entry *ns = calloc(nc, sizeof *ns);
	if (!ns)
		return false;
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->slots[i].path)
			*sizeindex_slot(ns, nc, ix->slots[i].path) =
				ix->slots[i];
	free(ix->slots);
	ix->slots = ns;
	ix->cap = nc;
	return true;
}

/* Insert or replace; takes `path` (malloc'd) in every case. */
static colfs_status sizeindex_insert(colfs_sizeindex *ix, char *path,
				     uint64_t size, bool *changed)
{
	*changed = false;
	if (!sizeindex_grow(ix)) {
		free(path);
		return COLFS_ENOMEM;
	}
	sizeindex_entry *e = sizeindex_slot(ix->slots, ix->cap, path);
	if (e->path) {
		free(path);
		if (e->size != size) {
			e->size = size;
			*changed = true;
		}
		return COLFS_OK;
	}
	e->path = path;
	e->size = size;
	ix->count++;
	*changed = true;
	return COLFS_OK;
}

static void sizeindex_clear(sizeindex_entry *slots, size_t cap)
{
	for (size_t i = 0; i < cap; i++)
		free(slots[i].path);
	free(slots);
}

colfs_sizeindex *colfs_sizeindex_create(const char *key)
{
	if (!key || strchr(key, '\n'))
		return NULL;
	colfs_sizeindex *ix = calloc(1, sizeof *ix);
	if (!ix)
		return NULL;
	ix->key = strdup(key);
	if (!ix->key) {
		free(ix);
		return NULL;
	}
	pthread_mutex_init(&ix->lock, NULL);
	return ix;
}

void colfs_sizeindex_destroy(colfs_sizeindex *ix)
{
	if (!ix)
		return;
	sizeindex_clear(ix->slots, ix->cap);
	free(ix->key);
	pthread_mutex_destroy(&ix->lock);
	free(ix);
}

bool colfs_sizeindex_get(colfs_sizeindex *ix, const char *tree_path,
			 uint64_t *size)
{
	bool found = false;
	pthread_mutex_lock(&ix->lock);
	if (ix->cap) {
		sizeindex_entry *e = sizeindex_slot(ix->slots, ix->cap,
						    tree_path);
		if (e->path) {
			*size = e->size;
			found = true;
		}
	}
	pthread_mutex_unlock(&ix->lock);
	return found;
}

colfs_status colfs_sizeindex_put(colfs_sizeindex *ix, const char *tree_path,
				 uint64_t size)
{
	if (!tree_path[0] || strchr(tree_path, '\n') ||
	    strlen(tree_path) > SIZEINDEX_MAX_PATH)
		return COLFS_EUNSUPPORTED;
	char *copy = strdup(tree_path);
	if (!copy)
		return COLFS_ENOMEM;
	bool changed;
	pthread_mutex_lock(&ix->lock);
	colfs_status st = sizeindex_insert(ix, copy, size, &changed);
	if (changed)
		ix->dirty = true;
	pthread_mutex_unlock(&ix->lock);
	return st;
}

void colfs_sizeindex_clear(colfs_sizeindex *ix)
{
	pthread_mutex_lock(&ix->lock);
	sizeindex_clear(ix->slots, ix->cap);
	ix->slots = NULL;
	ix->cap = ix->count = 0;
	ix->dirty = true;
	pthread_mutex_unlock(&ix->lock);
}

size_t colfs_sizeindex_count(colfs_sizeindex *ix)
{
	pthread_mutex_lock(&ix->lock);
	size_t n = ix->count;
	pthread_mutex_unlock(&ix->lock);
	return n;
}

bool colfs_sizeindex_dirty(colfs_sizeindex *ix)
{
	pthread_mutex_lock(&ix->lock);
	bool d = ix->dirty;
	pthread_mutex_unlock(&ix->lock);
	return d;
}

/* --- loading ------------------------------------------------------------- */

/* The whole file, NUL-terminated; COLFS_ENOENT, COLFS_EIO or
 * COLFS_ECORRUPT (too large). */
static colfs_status sizeindex_slurp(const char *path, char **out, size_t *len,
				    char *why, size_t why_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	*out = NULL;
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file", path);
		close(fd);
		return COLFS_EIO;
	}
	if ((uint64_t)st.st_size > COLFS_SIZEINDEX_MAX_BYTES) {
		snprintf(why, why_len, "%s: larger than %u bytes", path,
			 COLFS_SIZEINDEX_MAX_BYTES);
		close(fd);
		return COLFS_ECORRUPT;
	}
	size_t want = (size_t)st.st_size;
	char *buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		snprintf(why, why_len, "%s: out of memory", path);
		return COLFS_ENOMEM;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got != want) {
		free(buf);
		snprintf(why, why_len, "%s: short read", path);
		return COLFS_EIO;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return COLFS_OK;
}

/* A decimal uint64 of 1 to 20 digits, all of `s` up to `end`. */
static bool sizeindex_parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	if (s == end || end - s > 20)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

#define SIZEINDEX_BAD(...)                                                  \
	do {                                                                \
		snprintf(why, why_len, __VA_ARGS__);                        \
		st = COLFS_ECORRUPT;                                        \
		goto out;                                                   \
	} while (0)

colfs_status colfs_sizeindex_load(colfs_sizeindex *ix, const char *path,
				  char *why, size_t why_len)
{
	char *buf;
	size_t len;
	colfs_status st = sizeindex_slurp(path, &buf, &len, why, why_len);
	if (st != COLFS_OK)
		return st;
	colfs_sizeindex scratch = {0};
	const size_t magic_len = sizeof SIZEINDEX_MAGIC - 1;

	if (len < magic_len || memcmp(buf, SIZEINDEX_MAGIC, magic_len) != 0)
		SIZEINDEX_BAD("%s: not a colfs size index (version 1)", path);
	if (buf[len - 1] != '\n' || memchr(buf, '\0', len))
		SIZEINDEX_BAD("%s: truncated", path);
	/* The last line: "end <count> <hash>". */
	char *last = buf + len - 1;
	while (last > buf && last[-1] != '\n')
		last--;
	if (strncmp(last, "end ", 4) != 0)
		SIZEINDEX_BAD("%s: truncated (no end line)", path);
	char *sp = strchr(last + 4, ' ');
	uint64_t count, sum;
	if (!sp || !sizeindex_parse_u64(last + 4, sp, &count) ||
	    buf + len - 1 - (sp + 1) != 16)
		SIZEINDEX_BAD("%s: bad end line", path);
	char hex[17];
	memcpy(hex, sp + 1, 16);
	hex[16] = '\0';
	char *hend;
	sum = strtoull(hex, &hend, 16);
	if (*hend || hex[0] == '-' || hex[0] == '+' || hex[0] == ' ')
		SIZEINDEX_BAD("%s: bad end line", path);
	if ((uint64_t)XXH64(buf, (size_t)(last - buf), 0) != sum)
		SIZEINDEX_BAD("%s: checksum mismatch (damaged)", path);

	/* The key line. */
	char *line = buf + magic_len;
	char *nl = strchr(line, '\n');
	if (!nl || nl >= last || strncmp(line, "key ", 4) != 0)
		SIZEINDEX_BAD("%s: no key line", path);
	*nl = '\0';
	if (strcmp(line + 4, ix->key) != 0) {
		snprintf(why, why_len,
			 "%s: stale (made for another source, another version "
			 "of it, or other options)", path);
		st = COLFS_EUNSUPPORTED;
		goto out;
	}

	/* The entries. */
	uint64_t n = 0;
	for (line = nl + 1; line < last; line = nl + 1) {
		nl = strchr(line, '\n');
		char *space = memchr(line, ' ', (size_t)(nl - line));
		uint64_t size;
		if (!space || !sizeindex_parse_u64(line, space, &size) ||
		    space[1] != '/' || nl - (space + 1) > SIZEINDEX_MAX_PATH)
			SIZEINDEX_BAD("%s: bad entry line %" PRIu64, path,
				      n + 1);
		*nl = '\0';
		char *p = strdup(space + 1);
		bool changed;
		if (!p || sizeindex_insert(&scratch, p, size, &changed)) {
			snprintf(why, why_len, "%s: out of memory", path);
			st = COLFS_ENOMEM;
			goto out;
		}
		n++;
	}
	if (n != count || scratch.count != count)
		SIZEINDEX_BAD("%s: %" PRIu64 " entries, the end line says %"
			      PRIu64, path, n, count);

	/* Good: move the entries into ix (those already there stay). */
	pthread_mutex_lock(&ix->lock);
	for (size_t i = 0; i < scratch.cap; i++) {
		if (!scratch.slots[i].path)
			continue;
		bool changed;
		char *p = scratch.slots[i].path;
		scratch.slots[i].path = NULL;
		if (ix->cap) {
			sizeindex_entry *e = sizeindex_slot(ix->slots, ix->cap, p);
			if (e->path) {
				free(p);
				continue;
			}
		}
		if (sizeindex_insert(ix, p, scratch.slots[i].size, &changed)) {
			st = COLFS_ENOMEM;
			break;
		}
	}
	pthread_mutex_unlock(&ix->lock);
	if (st == COLFS_OK)
		snprintf(why, why_len, "%s: %" PRIu64 " sizes", path, count);
out:
	sizeindex_clear(scratch.slots, scratch.cap);
	free(buf);
	return st;
}

/* --- saving -------------------------------------------------------------- */

static int sizeindex_cmp(const void *a, const void *b)
{
	const sizeindex_entry *x = a, *y = b;
	return strcmp(x->path, y->path);
}

/* mkdir -p of the directory part of `path`, mode 0700 for new ones. */
static int sizeindex_mkdirs(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return -1;
	char *slash = strrchr(d, '/');
	if (!slash || slash == d) {
		free(d);
		return 0;
	}
	*slash = '\0';
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(d, 0700) != 0 && errno != EEXIST) {
			free(d);
			return -1;
		}
		*p = '/';
	}
	int rc = mkdir(d, 0700) != 0 && errno != EEXIST ? -1 : 0;
	free(d);
	return rc;
}

static bool sizeindex_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

colfs_status colfs_sizeindex_save(colfs_sizeindex *ix, const char *path,
				  char *why, size_t why_len)
{
	colfs_status st = COLFS_OK;
	char *text = NULL;
	size_t tlen = 0;
	FILE *mem = open_memstream(&text, &tlen);
	if (!mem) {
		snprintf(why, why_len, "out of memory");
		return COLFS_ENOMEM;
	}
	pthread_mutex_lock(&ix->lock);
	sizeindex_entry *sorted = calloc(ix->count ? ix->count : 1,
					 sizeof *sorted);
	size_t n = 0;
	if (sorted) {
		for (size_t i = 0; i < ix->cap; i++)
			if (ix->slots[i].path)
				sorted[n++] = ix->slots[i];
		qsort(sorted, n, sizeof *sorted, sizeindex_cmp);
		fputs(SIZEINDEX_MAGIC, mem);
		fprintf(mem, "key %s\n", ix->key);
		for (size_t i = 0; i < n; i++)
			fprintf(mem, "%" PRIu64 " %s\n", sorted[i].size,
				sorted[i].path);
	}
	ix->dirty = false;
	pthread_mutex_unlock(&ix->lock);
	free(sorted);
	if (fflush(mem) != 0 || !sorted) {
		fclose(mem);
		free(text);
		snprintf(why, why_len, "out of memory");
		return COLFS_ENOMEM;
	}
	fprintf(mem, "end %zu %016" PRIx64 "\n", n,
		(uint64_t)XXH64(text, tlen, 0));
	if (fclose(mem) != 0) {
		free(text);
		snprintf(why, why_len, "out of memory");
		return COLFS_ENOMEM;
	}

	size_t plen = strlen(path);
	char *tmp = malloc(plen + 32);
	if (!tmp) {
		free(text);
		snprintf(why, why_len, "out of memory");
		return COLFS_ENOMEM;
	}
	snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
	int fd = -1;
	if (sizeindex_mkdirs(path) != 0 ||
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				    O_NOFOLLOW, 0600)) < 0) {
		snprintf(why, why_len, "%s: %s", tmp, strerror(errno));
		st = COLFS_EIO;
	} else if (!sizeindex_write_all(fd, text, tlen) || fsync(fd) != 0) {
		snprintf(why, why_len, "%s: %s", tmp, strerror(errno));
		st = COLFS_EIO;
	}
	if (fd >= 0 && close(fd) != 0 && st == COLFS_OK) {
		snprintf(why, why_len, "%s: %s", tmp, strerror(errno));
		st = COLFS_EIO;
	}
	if (st == COLFS_OK && rename(tmp, path) != 0) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		st = COLFS_EIO;
	}
	if (st != COLFS_OK) {
		unlink(tmp);
		pthread_mutex_lock(&ix->lock);
		ix->dirty = true;
		pthread_mutex_unlock(&ix->lock);
	} else {
		snprintf(why, why_len, "%s: %zu sizes", path, n);
	}
	free(tmp);
	free(text);
	return st;
}

/* colfs: a tree's size index (sizeindex.h keeps the file): where it
 * lives, the key of the source it belongs to, reading it at open and
 * saving it; and which nodes sizes=auto sizes at a stat.
 */
#include "tree_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* A hash of the options that change what a view renders (cache_size
 * does not). */
static uint64_t sizes_options_hash(const colfs_options *o)
{
	char buf[4096];
	snprintf(buf, sizeof buf,
		 "null=%s\nchecksums=%d\nschema_from=%s\nsalvage_effort=%u\n"
		 "max_alloc=%llu\ncfile=%s,%s,%s,%d\n",
		 o->null_token ? o->null_token : "",
		 (int)o->checksums_ignore,
		 o->schema_from ? o->schema_from : "", o->salvage_effort,
		 (unsigned long long)o->max_alloc,
		 o->cfile_type ? o->cfile_type : "",
		 o->cfile_encoding ? o->cfile_encoding : "",
		 o->cfile_compression ? o->cfile_compression : "",
		 (int)o->cfile_nullable);
	/* rows.csv is RFC 4180 (strings as they are, NULL an empty
	 * field): an index saved by a colfs that wrote it with backslash
	 * escapes holds other sizes */
	snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "csv=rfc4180\n");
	/* on_damage changes what a damaged view renders (the default
	 * leaves the key as it was before the option) */
	if (o->on_damage != COLFS_ON_DAMAGE_ERROR)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
			 "on_damage=%d\n", (int)o->on_damage);
	return XXH64(buf, strlen(buf), 0);
}

/* The key of the source as it is now: device, inode, size, mtime and
 * ctime (a rewrite that sets the mtime back still moves the ctime), the
 * format, the options and colfs's version.  It reads none of the file:
 * opening reads only the metadata (docs/performance.md). */
static bool sizes_key(colfs_tree *t, const struct stat *st, char *key,
		      size_t len)
{
	snprintf(key, len,
		 "dev=%llu ino=%llu size=%llu mtime=%lld.%09ld "
		 "ctime=%lld.%09ld format=%s options=%016llx colfs=%s",
		 (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino,
		 (unsigned long long)colfs_source_size(t->src),
		 (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec,
		 (long long)st->st_ctim.tv_sec, (long)st->st_ctim.tv_nsec,
		 t->format->name,
		 (unsigned long long)sizes_options_hash(&t->opts),
		 COLFS_VERSION);
	return true;
}

/* Where the index lives: -o size_index=PATH (made absolute), else
 * $XDG_CACHE_HOME/colfs or ~/.cache/colfs, named after the source's base
 * name and a hash of its real path and the options.  NULL: none. */
static char *sizes_path(colfs_tree *t, const struct stat *st)
{
	const char *opt = t->opts.size_index;
	char *out = NULL;

	if (opt && strcmp(opt, "off") == 0)
		return NULL;
	if (opt) {
		char cwd[4096];
		if (opt[0] == '/')
			return strdup(opt);
		if (!getcwd(cwd, sizeof cwd))
			return NULL;
		if (asprintf(&out, "%s/%s", cwd, opt) < 0)
			return NULL;
		return out;
	}
	/* The default needs the source's real path, and that it is the
	 * file open (a tree opened from a descriptor may have none). */
	char *real = realpath(t->display_name, NULL);
	struct stat rst;
	if (!real || stat(real, &rst) != 0 || rst.st_dev != st->st_dev ||
	    rst.st_ino != st->st_ino) {
		free(real);
		return NULL;
	}
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir = NULL;
	if (xdg && xdg[0] == '/')
		dir = strdup(xdg);
	else if (home && home[0] == '/' && asprintf(&dir, "%s/.cache", home) < 0)
		dir = NULL;
	if (dir) {
		const char *base = strrchr(real, '/');
		base = base ? base + 1 : real;
		char safe[64];
		size_t k = 0;
		for (; base[k] && k < sizeof safe - 1; k++)
			safe[k] = (base[k] == '.' || base[k] == '-' ||
				   base[k] == '_' ||
				   (base[k] >= '0' && base[k] <= '9') ||
				   (base[k] >= 'a' && base[k] <= 'z') ||
				   (base[k] >= 'A' && base[k] <= 'Z'))
					  ? base[k]
					  : '_';
		safe[k] = '\0';
		uint64_t h = XXH64(real, strlen(real),
				   sizes_options_hash(&t->opts));
		if (asprintf(&out, "%s/colfs/%s-%016llx.sizes", dir, safe,
			     (unsigned long long)h) < 0)
			out = NULL;
	}
	free(dir);
	free(real);
	return out;
}

/* Read the index for a freshly opened tree.  Whatever goes wrong, the
 * mount goes on without it; sizes_note says why. */
void colfs_tree_sizes_open(colfs_tree *t)
{
	struct stat st;
	char key[512];

	snprintf(t->sizes_note, sizeof t->sizes_note, "off");
	/* A remote object has no device, inode or ctime to key the index
	 * by, and its ETag is not kept past the first reply: its views are
	 * sized anew at each mount (docs/remote.md). */
	if (colfs_source_fd(t->src) < 0) {
		if (t->has_io)
			snprintf(t->sizes_note, sizeof t->sizes_note,
				 "off (a remote source: sizes are learned anew at each mount)");
		return;
	}
	if (fstat(colfs_source_fd(t->src), &st) != 0)
		return;
	t->sizes_path = sizes_path(t, &st);
	if (!t->sizes_path) {
		if (!t->opts.size_index)
			snprintf(t->sizes_note, sizeof t->sizes_note,
				 "off (no cache directory for this source)");
		return;
	}
	if (!sizes_key(t, &st, key, sizeof key) ||
	    !(t->sizes = colfs_sizeindex_create(key))) {
		snprintf(t->sizes_note, sizeof t->sizes_note,
			 "off (out of memory or unreadable source)");
		return;
	}
	char why[600] = "";
	colfs_status rc = colfs_sizeindex_load(t->sizes, t->sizes_path, why,
					       sizeof why);
	if (rc == COLFS_OK)
		snprintf(t->sizes_note, sizeof t->sizes_note, "read %s", why);
	else if (rc == COLFS_ENOENT)
		snprintf(t->sizes_note, sizeof t->sizes_note, "none yet at %s",
			 t->sizes_path);
	else
		snprintf(t->sizes_note, sizeof t->sizes_note, "ignored %s",
			 why);
}

void colfs_tree_sizes_compare_only(colfs_tree *t)
{
	t->sizes_compare_only = true;
}

const char *colfs_tree_size_index_path(const colfs_tree *t)
{
	return t->sizes_path;
}

const char *colfs_tree_size_index_note(const colfs_tree *t)
{
	return t->sizes_note;
}

colfs_status colfs_tree_save_sizes(colfs_tree *t, char *why, size_t why_len)
{
	if (!t->sizes) {
		snprintf(why, why_len, "no size index (%s)", t->sizes_note);
		return COLFS_OK;
	}
	if (!colfs_sizeindex_dirty(t->sizes)) {
		snprintf(why, why_len, "%s: up to date", t->sizes_path);
		return COLFS_OK;
	}
	return colfs_sizeindex_save(t->sizes, t->sizes_path, why, why_len);
}

/* `name` made absolute (from the current directory; symbolic links are
 * kept, so that a link moved to another file counts as a replacement),
 * when it names the file `st` describes; else NULL. */
/* sizes=auto sizes a node at its stat when rendering it whole reads at
 * most COLFS_SIZE_PROBE_SOURCE bytes of source: the bytes its `decodes`
 * op gives (a dataset's view: the sum over its files), else its tree's
 * source's size for a stream of a format whose source is what its views
 * decode.  A document made only when read (colfs_node_set_size_when_read)
 * is sized at a stat only by its op. */
bool colfs_node_cheap_to_size(colfs_tree *t, colfs_node *n)
{
	uint64_t bytes = 0;

	if (n->ops && n->ops->decodes)
		return n->ops->decodes(t, n, &bytes) &&
		       bytes <= COLFS_SIZE_PROBE_SOURCE;
	if (n->kind != COLFS_CONTENT_STREAM ||
	    (t->format && t->format->sized_by_nodes))
		return false;
	return colfs_source_size(t->src) <= COLFS_SIZE_PROBE_SOURCE;
}

/* colfs: opening a tree (a descriptor, a source, a name: a file, a
 * directory, a URL) and destroying it.
 */
#include "tree_int.h"
#include "cursor.h"
#include "options.h"
#include "sizeindex.h"
#include "sourcekind.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Open and destroy
 */
static const char *describe_none(const uint8_t *head, size_t n)
{
	bool text = n > 0;
	for (size_t i = 0; i < n; i++)
		if (head[i] < 0x09 || (head[i] > 0x0d && head[i] < 0x20))
			text = false;
	return text ? "a text file, not a Parquet, ORC, Kudu CFile or Arrow IPC file"
		    : "not a Parquet, ORC, Kudu CFile or Arrow IPC file (no known magic bytes)";
}

static char *tree_source_path(const char *name, const struct stat *st)
{
	struct stat now;
	char *abs;

	if (name[0] == '/') {
		abs = strdup(name);
	} else {
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return NULL;
		abs = malloc(strlen(cwd) + strlen(name) + 2);
		if (abs)
			sprintf(abs, "%s/%s", strcmp(cwd, "/") ? cwd : "",
				name);
		free(cwd);
	}
	if (abs && (stat(abs, &now) != 0 || now.st_dev != st->st_dev ||
		    now.st_ino != st->st_ino)) {
		free(abs);
		abs = NULL;
	}
	return abs;
}

/* The tree over `src` (taken, destroyed on failure): probe, the format's
 * open, the size index. */
static colfs_status tree_open_on(colfs_source *src, const char *display_name,
				 const colfs_format *forced,
				 const colfs_options *opts,
				 const struct stat *st, colfs_tree **out,
				 char *why, size_t why_len)
{
	colfs_status rc;
	colfs_tree *t = calloc(1, sizeof *t);
	if (!t) {
		colfs_source_destroy(src);
		snprintf(why, why_len, "%s: out of memory", display_name);
		return COLFS_ENOMEM;
	}
	pthread_mutexattr_t attr;
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&t->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	if (opts)
		t->opts = *opts;
	colfs_options_defaults(&t->opts);
	/* the sizes of freed nodes kept: as many as the nodes alive */
	t->freed_half = t->opts.node_budget >= SIZE_MAX
				? SIZE_MAX
				: (size_t)t->opts.node_budget / 2
				  ? (size_t)t->opts.node_budget / 2 : 1;
	t->display_name = strdup(display_name);
	t->src = src;
	colfs_source_set_check_interval(src, t->opts.source_check_ms);
	if (st) {
		t->src_dev = st->st_dev;
		t->src_ino = st->st_ino;
		t->source_path = tree_source_path(display_name, st);
	}
	colfs_buf io = COLFS_BUF_INIT;
	t->has_io = colfs_source_io(src, &io) != COLFS_ENOENT;
	colfs_buf_free(&io);
	rc = colfs_piece_cache_init(&t->cache, t->opts.cache_bytes);
	if (rc != COLFS_OK || !t->display_name)
		goto fail_msg;
	char *rootname = strdup("");
	if (!rootname || !tree_node_new(t, NULL, rootname, COLFS_CONTENT_DIR)) {
		free(rootname);
		rc = COLFS_ENOMEM;
		goto fail_msg;
	}

	uint8_t head[16], tail[16];
	uint64_t size = colfs_source_size(t->src);
	size_t hn = size < 16 ? (size_t)size : 16;
	colfs_err err = {0};
	/* A module that probes nothing (a dataset: a directory) is not
	 * read here. */
	if (forced && !forced->probe)
		hn = 0;
	rc = colfs_source_read_at(t->src, 0, hn, head, &err);
	if (rc == COLFS_OK)
		rc = colfs_source_read_at(t->src, size - hn, hn, tail, &err);
	if (rc != COLFS_OK) {
		snprintf(why, why_len, "%s: %s", display_name, err.msg);
		goto fail;
	}
	t->format = forced;
	for (size_t i = 0; !t->format && colfs_formats[i]; i++) {
		if (colfs_formats[i]->probe(head, hn, tail, hn, size)) {
			t->format = colfs_formats[i];
			break;
		}
	}
	if (!t->format) {
		snprintf(why, why_len, "%s: %s", display_name,
			 describe_none(head, hn));
		rc = COLFS_EUNSUPPORTED;
		goto fail;
	}
	/* an option of one kind of source given to another is refused
	 * rather than ignored without a word */
	if (t->opts.delta_version_set && t->format != colfs_format_directory) {
		snprintf(why, why_len, "%s: -o version=%lld applies to Delta "
			 "tables (a directory with _delta_log/), not to a %s "
			 "file", display_name, (long long)t->opts.delta_version,
			 t->format->name);
		rc = COLFS_EUNSUPPORTED;
		goto fail;
	}
	if ((t->opts.ice_snapshot_set || t->opts.ice_as_of_set ||
	     t->opts.ice_ref || t->opts.ice_location) &&
	    t->format != colfs_format_directory) {
		snprintf(why, why_len, "%s: -o %s applies to Apache Iceberg "
			 "tables (a directory with metadata/*.metadata.json), "
			 "not to a %s file", display_name,
			 t->opts.ice_snapshot_set ? "snapshot=" :
			 t->opts.ice_as_of_set ? "as_of=" :
			 t->opts.ice_ref ? "ref=" : "location=",
			 t->format->name);
		rc = COLFS_EUNSUPPORTED;
		goto fail;
	}
	rc = t->format->open(t, &err);
	if (rc != COLFS_OK && !t->format->probe) {
		/* a directory (a dataset, a Delta table): no "file", its
		 * module's reason says what is wrong with it */
		snprintf(why, why_len, "%s: %s", display_name,
			 err.msg[0] ? err.msg : colfs_status_name(rc));
		goto fail;
	}
	if (rc != COLFS_OK) {
		snprintf(why, why_len, "%s: %s file not readable: %s",
			 display_name, t->format->name,
			 err.msg[0] ? err.msg : colfs_status_name(rc));
		goto fail;
	}
	colfs_tree_sizes_open(t);
	*out = t;
	return COLFS_OK;

fail_msg:
	snprintf(why, why_len, "%s: %s", display_name, colfs_status_name(rc));
fail:
	colfs_tree_destroy(t);
	return rc;
}

static colfs_status tree_open(int fd, const char *display_name,
			      const colfs_format *forced,
			      const colfs_options *opts, colfs_tree **out,
			      char *why, size_t why_len)
{
	struct stat st;
	colfs_source *src;
	colfs_status rc;
	*out = NULL;
	if (fstat(fd, &st) != 0) {
		snprintf(why, why_len, "%s: %s", display_name, strerror(errno));
		close(fd);
		return COLFS_EIO;
	}
	if (S_ISDIR(st.st_mode)) {
		/* A dataset (formats/dataset): with sizes=auto a stat
		 * decodes a view when the files it reads are small (the
		 * directory's own size says nothing of their cost:
		 * sized_by_nodes). */
		colfs_options dopts = {0};
		if (forced) {
			snprintf(why, why_len, "%s: is a directory",
				 display_name);
			close(fd);
			return COLFS_EUNSUPPORTED;
		}
		if (opts)
			dopts = *opts;
		rc = colfs_source_create_fd(fd, 1, &src);
		if (rc != COLFS_OK) {
			close(fd);
			snprintf(why, why_len, "%s: %s", display_name,
				 colfs_status_name(rc));
			return rc;
		}
		return tree_open_on(src, display_name, colfs_format_directory,
				    &dopts, &st, out, why, why_len);
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file", display_name);
		close(fd);
		return COLFS_EUNSUPPORTED;
	}
	if (st.st_size == 0) {
		snprintf(why, why_len, "%s: empty file", display_name);
		close(fd);
		return COLFS_EUNSUPPORTED;
	}
	rc = colfs_source_create_fd(fd, 1, &src);
	if (rc != COLFS_OK) {
		close(fd);
		snprintf(why, why_len, "%s: %s", display_name,
			 colfs_status_name(rc));
		return rc;
	}
	return tree_open_on(src, display_name, forced, opts, &st, out, why,
			    why_len);
}

colfs_status colfs_tree_open_fd(int fd, const char *display_name,
				const colfs_options *opts, colfs_tree **out,
				char *why, size_t why_len)
{
	return tree_open(fd, display_name, NULL, opts, out, why, why_len);
}

colfs_status colfs_tree_open_format(int fd, const char *display_name,
				    const colfs_format *format,
				    const colfs_options *opts,
				    colfs_tree **out, char *why,
				    size_t why_len)
{
	return tree_open(fd, display_name, format, opts, out, why, why_len);
}

colfs_status colfs_tree_open_source(colfs_source *src,
				    const char *display_name,
				    const colfs_options *opts, colfs_tree **out,
				    char *why, size_t why_len)
{
	*out = NULL;
	if (colfs_source_size(src) == 0) {
		snprintf(why, why_len, "%s: empty file", display_name);
		colfs_source_destroy(src);
		return COLFS_EUNSUPPORTED;
	}
	return tree_open_on(src, display_name, NULL, opts, NULL, out, why,
			    why_len);
}

colfs_status colfs_tree_open_dataset_url(const char *display_name,
					 const colfs_options *opts,
					 colfs_tree **out, char *why,
					 size_t why_len)
{
	/* One byte: the source of a tree is never empty; the directory
	 * module reads none of it. */
	static const uint8_t none[1] = {0};
	colfs_options dopts = {0};
	colfs_source *src = NULL;
	colfs_status rc;

	*out = NULL;
	if (opts)
		dopts = *opts;
	rc = colfs_source_create_memory(none, sizeof none, &src);
	if (rc != COLFS_OK) {
		snprintf(why, why_len, "%s: %s", display_name,
			 colfs_status_name(rc));
		return rc;
	}
	return tree_open_on(src, display_name, colfs_format_directory, &dopts,
			    NULL, out, why, why_len);
}

colfs_status colfs_tree_open(const char *path, const colfs_options *opts,
			     colfs_tree **out, char *why, size_t why_len)
{
	const colfs_source_kind *k = colfs_source_kind_of(path);
	colfs_source_opened op = {.fd = -1};
	colfs_status rc;

	*out = NULL;
	why[0] = '\0';
	/* A table named by its metadata file: a file, which no format's
	 * magic bytes know.  The directory module, whose table kinds know
	 * such names, gives the table's root; the tree is that root's, the
	 * file passed down in the options as the metadata to read.  Asked
	 * by name before the file is opened (a remote root is a prefix, not
	 * the object), so the core knows no table kind. */
	if (colfs_format_directory->table_root &&
	    !(opts && opts->table_metadata)) {
		char *root = colfs_format_directory->table_root(path);
		if (root) {
			colfs_options to = {0};
			if (opts)
				to = *opts;
			to.table_metadata = path;
			rc = colfs_tree_open(root, &to, out, why, why_len);
			free(root);
			return rc;
		}
	}
	rc = k->open(path, opts, &op, why, why_len);
	if (rc != COLFS_OK)
		return rc;
	const char *shown = op.shown ? op.shown : path;
	if (op.fd >= 0)
		rc = tree_open(op.fd, shown, k->format, opts, out, why,
			       why_len);
	else if (op.src)
		rc = colfs_tree_open_source(op.src, shown, opts, out, why,
					    why_len);
	else
		rc = colfs_tree_open_dataset_url(shown, opts, out, why,
						 why_len);
	free(op.shown);
	if (rc == COLFS_OK)
		(*out)->changes = k->changes;
	return rc;
}

colfs_source_changes colfs_tree_source_changes(const colfs_tree *t)
{
	return t->changes;
}

void colfs_tree_destroy(colfs_tree *t)
{
	if (!t)
		return;
	/* The workers first: they render with the format's state. */
	colfs_ahead_destroy(t->ahead);
	for (size_t i = 0; i < t->ngrafts; i++)
		colfs_tree_destroy(t->grafts[i]);
	free(t->grafts);
	free(t->graft_path);
	if (t->format && t->format->close && t->format_state)
		t->format->close(t->format_state);
	for (size_t i = 0; i < t->nnodes; i++)
		tree_node_free(t->nodes[i]);
	free(t->nodes);
	free(t->free_slots);
	if (t->svg_lines)
		t->svg_lines_free(t->svg_lines);
	for (size_t i = 0; i < t->narena; i++)
		free(t->arena[i]);
	free(t->arena);
	free(t->sorted_paths);
	for (size_t i = 0; i < t->nerrors; i++) {
		free(t->errors[i].path);
		free(t->errors[i].msg);
	}
	free(t->errors);
	colfs_tree_hidden_free(t);
	if (t->cache.buckets)
		colfs_piece_cache_destroy(&t->cache);
	colfs_source_destroy(t->src);
	colfs_sizeindex_destroy(t->sizes);
	colfs_sizeindex_destroy(t->freed_sizes[0]);
	colfs_sizeindex_destroy(t->freed_sizes[1]);
	free(t->sizes_path);
	free(t->source_path);
	free(t->display_name);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

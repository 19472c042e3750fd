/* colfs tests: whole files read into memory (testio.h). */
#include "testio.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/tree.h"

char *testio_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 65536, n = 0;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		cap *= 2;
		char *nb = realloc(buf, cap + 1);
		if (!nb)
			free(buf);
		buf = nb;
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		if (len)
			*len = n;
	}
	return buf;
}

const char *testio_text(colfs_tree *t, const char *path)
{
	static char buf[1 << 16];
	colfs_node *n;
	colfs_handle *h;
	size_t got = 0, total = 0;

	if (colfs_tree_resolve(t, path, &n) || colfs_node_open(t, n, &h))
		return NULL;
	while (!colfs_handle_read(h, total, sizeof buf - 1 - total,
				  buf + total, &got) && got)
		total += got;
	colfs_handle_close(h);
	buf[total] = 0;
	return buf;
}

static const char *folder_name;
static colfs_status (*folder_fill)(colfs_tree *t, colfs_node *dir);

static colfs_status folder_populate(colfs_tree *t, colfs_node *dir)
{
	return folder_fill(t, dir);
}

static const colfs_node_ops folder_ops = {.populate = folder_populate};

static colfs_status folder_open(colfs_tree *t, colfs_err *err)
{
	(void)err;
	if (!colfs_dir_add_dir(t, colfs_tree_root(t), folder_name, &folder_ops,
			       NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static void folder_close(void *state)
{
	(void)state;
}

static colfs_format folder_format = {
	.open = folder_open,
	.close = folder_close,
};

/* Every entry under `dir`, depth first: a folder as "path/", a file as
 * "path (N bytes)" (", not exact" when its size was not) then its
 * content.  1 when one cannot be listed or read whole, else 0. */
static int folder_walk(colfs_tree *t, colfs_node *dir)
{
	colfs_node *const *kids;
	size_t n;
	char path[1024];
	int bad = 0;

	if (colfs_dir_list(t, dir, &kids, &n) != COLFS_OK) {
		colfs_node_path(dir, path, sizeof path);
		printf("%s/: cannot list\n", path);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		colfs_node *k = kids[i];
		colfs_node_path(k, path, sizeof path);
		if (colfs_node_is_dir(k)) {
			printf("%s/\n", path);
			bad |= folder_walk(t, k);
			continue;
		}
		uint64_t size = 0;
		bool exact = false;
		colfs_handle *h;
		colfs_status st = colfs_node_size(t, k, &size, &exact);
		if (st == COLFS_OK)
			st = colfs_node_open(t, k, &h);
		if (st != COLFS_OK) {
			printf("%s: cannot read: %s\n", path,
			       colfs_status_name(st));
			bad = 1;
			continue;
		}
		printf("%s (%" PRIu64 " bytes%s)\n", path, size,
		       exact ? "" : ", not exact");
		char *buf = malloc(size + 1);
		size_t got = 0;
		if (!buf || colfs_handle_read(h, 0, size + 1, buf, &got) ||
		    got != size) {
			printf("%s: read %zu bytes, size says %" PRIu64 "\n", path,
			       got, size);
			bad = 1;
		} else {
			fwrite(buf, 1, got, stdout);
		}
		free(buf);
		colfs_handle_close(h);
	}
	return bad;
}

int testio_folder_dump(const char *tool, const char *name, const char *folder,
		       colfs_status (*fill)(colfs_tree *t, colfs_node *dir),
		       const colfs_options *o)
{
	colfs_tree *t;
	colfs_node *d;
	char why[512];
	FILE *tf = tmpfile();

	if (!tf || fprintf(tf, "%s\n", tool) < 0 || fflush(tf)) {
		fprintf(stderr, "%s: no temporary file\n", tool);
		if (tf)
			fclose(tf);
		return 2;
	}
	folder_format.name = name;
	folder_name = folder;
	folder_fill = fill;
	colfs_status st = colfs_tree_open_format(dup(fileno(tf)), tool,
						 &folder_format, o, &t, why,
						 sizeof why);
	fclose(tf);
	if (st) {
		fprintf(stderr, "%s: %s\n", tool, why);
		return 2;
	}
	if (colfs_tree_resolve(t, folder, &d) != COLFS_OK) {
		fprintf(stderr, "%s: no %s/\n", tool, folder);
		colfs_tree_destroy(t);
		return 2;
	}
	printf("/%s/\n", folder);
	int rc = folder_walk(t, d);
	for (size_t e = 0; e < colfs_tree_error_count(t); e++) {
		colfs_problem p;
		if (colfs_tree_error_get(t, e, &p) == COLFS_OK)
			printf("problem %s: %s: %s\n", p.path,
			       colfs_status_name(p.status), p.message);
	}
	colfs_tree_destroy(t);
	return rc;
}

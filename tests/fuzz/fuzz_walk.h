/* tests/fuzz: open bytes as a tree, walk every node and read every byte
 * through the public API (colfs.h), with bounds so that one run is quick:
 * at most FUZZ_WALK_MAX_NODES nodes visited and FUZZ_WALK_MAX_READ bytes
 * read per file node.  Shared by the open_* fuzz targets and the
 * mutation test. */
#ifndef COLFS_FUZZ_WALK_H
#define COLFS_FUZZ_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "colfs.h"
#include "core/tree.h"
#include "fuzz_util.h"

#ifndef FUZZ_WALK_MAX_NODES
#define FUZZ_WALK_MAX_NODES 2000u
#endif
#ifndef FUZZ_WALK_MAX_READ
#define FUZZ_WALK_MAX_READ (1u << 20)
#endif
#define FUZZ_WALK_MAX_DEPTH 64

typedef struct fuzz_walk {
	colfs_tree *t;
	size_t nodes;
	uint64_t bytes;
	char *buf;          /* read buffer */
} fuzz_walk;

/* Read a file node in pieces of varying size; check the sizes agree. */
static void fuzz_walk_read(fuzz_walk *w, colfs_node *n)
{
	colfs_handle *h;
	uint64_t size = 0, off = 0;
	bool exact = false;
	colfs_status st;
	size_t got, want = 4096;

	st = colfs_node_size(w->t, n, &size, &exact);
	FUZZ_CHECK(fuzz_status_valid(st));
	if (st == COLFS_OK && !exact)
		FUZZ_CHECK(size == 0);
	st = colfs_node_open(w->t, n, &h);
	FUZZ_CHECK(fuzz_status_valid(st));
	if (st != COLFS_OK)
		return;
	while (off < FUZZ_WALK_MAX_READ) {
		st = colfs_handle_read(h, off, want, w->buf, &got);
		FUZZ_CHECK(fuzz_status_valid(st));
		if (st != COLFS_OK)
			break;
		FUZZ_CHECK(got <= want);
		off += got;
		if (got == 0)
			break;
		/* 4 KiB, 64 KiB, 128 KiB, ... then 4 KiB again */
		want = want >= (128u << 10) ? 4096 : want * 2 + 4096;
	}
	/* an exact size is never wrong: a complete read ends there */
	if (exact && st == COLFS_OK && off < FUZZ_WALK_MAX_READ)
		FUZZ_CHECK(off == size);
	/* and a read far past the end gives nothing */
	if (exact && st == COLFS_OK) {
		st = colfs_handle_read(h, size + 12345, 16, w->buf, &got);
		FUZZ_CHECK(fuzz_status_valid(st));
		if (st == COLFS_OK)
			FUZZ_CHECK(got == 0);
	}
	w->bytes += off;
	colfs_handle_close(h);
}

static void fuzz_walk_dir(fuzz_walk *w, colfs_node *dir, int depth)
{
	colfs_node *const *kids;
	size_t n;
	colfs_status st;

	if (depth > FUZZ_WALK_MAX_DEPTH)
		return;
	st = colfs_dir_list(w->t, dir, &kids, &n);
	FUZZ_CHECK(fuzz_status_valid(st));
	if (st != COLFS_OK)
		return;
	for (size_t i = 0; i < n && w->nodes < FUZZ_WALK_MAX_NODES; i++) {
		colfs_node *k = kids[i];
		const char *name = colfs_node_name(k);
		colfs_node *again = NULL;

		w->nodes++;
		/* names are one safe path component */
		FUZZ_CHECK(name && name[0]);
		FUZZ_CHECK(strchr(name, '/') == NULL);
		FUZZ_CHECK(strcmp(name, ".") && strcmp(name, ".."));
		FUZZ_CHECK(colfs_node_parent(k) == dir);
		FUZZ_CHECK(colfs_tree_node(w->t, colfs_node_ino(k)) == k);
		/* lookup by name finds a node of that name */
		st = colfs_dir_lookup(w->t, dir, name, &again);
		FUZZ_CHECK(fuzz_status_valid(st));
		if (st == COLFS_OK)
			FUZZ_CHECK(strcmp(colfs_node_name(again), name) == 0);
		if (colfs_node_is_dir(k))
			fuzz_walk_dir(w, k, depth + 1);
		else
			fuzz_walk_read(w, k);
	}
}

/* Open `data` (written to a memfd) as `format` (NULL: probe by magic)
 * with the fuzzing limits.  Returns the status; `*out` is set on success. */
static colfs_status fuzz_open_bytes(const uint8_t *data, size_t size,
				    const colfs_format *format,
				    colfs_tree **out)
{
	colfs_options opts;
	char why[256];
	colfs_status st;
	int fd;

	*out = NULL;
	memset(&opts, 0, sizeof(opts));
	FUZZ_CHECK(colfs_options_set(&opts, "max_alloc=64M") == COLFS_OK);
	FUZZ_CHECK(colfs_options_set(&opts, "cache_size=16M") == COLFS_OK);
	/* The walk reads at most FUZZ_WALK_MAX_READ of each file; with the
	 * default sizes=auto every stat would decode the whole view of a
	 * small source first.  The size modes have their own tests (tree,
	 * fs-sizes-*), and the mount variant runs the daemon's default. */
	FUZZ_CHECK(colfs_options_set(&opts, "sizes=lazy") == COLFS_OK);
	fd = memfd_create("colfs-fuzz", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	for (size_t off = 0; off < size;) {
		ssize_t wr = write(fd, data + off, size - off);

		if (wr <= 0) {
			perror("memfd write");
			abort();
		}
		off += (size_t)wr;
	}
	why[0] = '\0';
	if (format)
		st = colfs_tree_open_format(fd, "fuzz-input", format, &opts,
					    out, why, sizeof(why));
	else
		st = colfs_tree_open_fd(fd, "fuzz-input", &opts, out, why,
					sizeof(why));
	FUZZ_CHECK(fuzz_status_valid(st));
	if (st != COLFS_OK) {
		FUZZ_CHECK(*out == NULL);
		FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
	}
	return st;
}

/* Open `data` as `format` (NULL: probe by magic) and walk it.  Returns
 * true when the file opened. */
static bool fuzz_walk_bytes(const uint8_t *data, size_t size,
			    const colfs_format *format, size_t *nodes_out)
{
	colfs_tree *t = NULL;
	fuzz_walk w;

	if (fuzz_open_bytes(data, size, format, &t) != COLFS_OK)
		return false;
	memset(&w, 0, sizeof(w));
	w.t = t;
	w.buf = malloc(FUZZ_WALK_MAX_READ / 4 + 8192);
	FUZZ_CHECK(w.buf != NULL);
	FUZZ_CHECK(colfs_node_is_dir(colfs_tree_root(t)));
	fuzz_walk_dir(&w, colfs_tree_root(t), 0);
	/* the errors document lists what was found: read it last too */
	{
		colfs_node *e = NULL;

		if (colfs_tree_resolve(t, "errors", &e) == COLFS_OK &&
		    !colfs_node_is_dir(e))
			fuzz_walk_read(&w, e);
	}
	free(w.buf);
	if (nodes_out)
		*nodes_out = w.nodes;
	colfs_tree_destroy(t);
	return true;
}

#endif

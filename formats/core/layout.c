/* colfs: the `layout` document (layout.h; docs/tree.md, "layout"). */
#include "layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void colfs_layout_add(colfs_layout *l, uint64_t off, uint64_t len,
		      const char *kind, const char *path_fmt, ...)
{
	char *path = NULL;
	va_list ap;

	if (l->failed)
		return;
	va_start(ap, path_fmt);
	if (vasprintf(&path, path_fmt, ap) < 0)
		path = NULL;
	va_end(ap);
	if (!path) {
		l->failed = true;
		return;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 64;
		colfs_layout_region *nr = realloc(l->r, nc * sizeof *nr);
		if (!nr) {
			free(path);
			l->failed = true;
			return;
		}
		l->r = nr;
		l->cap = nc;
	}
	l->r[l->n++] = (colfs_layout_region){off, len, kind, path};
}

void colfs_layout_free(colfs_layout *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->r[i].path);
	free(l->r);
	*l = (colfs_layout)COLFS_LAYOUT_INIT;
}

static int region_cmp(const void *a, const void *b)
{
	const colfs_layout_region *x = a, *y = b;
	int c;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = strcmp(x->path, y->path);
	return c ? c : strcmp(x->kind, y->kind);
}

static void line(colfs_buf *out, uint64_t off, uint64_t len, const char *kind,
		 const char *path)
{
	colfs_buf_printf(out, "%llu %llu %s %s\n", (unsigned long long)off,
			 (unsigned long long)len, kind, path);
}

colfs_status colfs_layout_write(colfs_layout *l, uint64_t size,
				colfs_buf *out)
{
	/* covered: the end of the bytes the regions so far claim. */
	uint64_t covered = 0;

	if (l->failed) {
		colfs_layout_free(l);
		return COLFS_ENOMEM;
	}
	if (l->n > 1)
		qsort(l->r, l->n, sizeof *l->r, region_cmp);
	for (size_t i = 0; i < l->n; i++) {
		const colfs_layout_region *r = &l->r[i];
		/* lengths come from the file: a region may claim bytes past
		 * the end, or past 2^64 (cut there) */
		uint64_t end = r->len > UINT64_MAX - r->off ? UINT64_MAX
							    : r->off + r->len;

		if (r->off > covered && covered < size)
			line(out, covered,
			     (r->off < size ? r->off : size) - covered, "gap",
			     "-");
		line(out, r->off, r->len, r->kind, r->path);
		if (r->off < covered && end > r->off)
			line(out, r->off,
			     (covered < end ? covered : end) - r->off,
			     "overlap", "-");
		if (end > covered)
			covered = end;
	}
	if (covered < size)
		line(out, covered, size - covered, "gap", "-");
	colfs_layout_free(l);
	return colfs_buf_status(out);
}

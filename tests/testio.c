/* colfs tests: whole files read into memory (testio.h). */
#include "testio.h"

#include <stdio.h>
#include <stdlib.h>

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

/* colfs: a file's own column that is also a Hive key of its folders
 * (dataset_keycol.h).  A `year` column inside `year=2024/` is one field
 * of the union views, the key, whose values are the folder's (as
 * DuckDB's read_parquet(..., hive_partitioning = true) reads it); a file
 * whose column says otherwise is named in `errors`, which this
 * comparison finds. */
#include "dataset_keycol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether line `v` (n bytes) is the folder's value `want`. */
static bool kc_same(const char *v, size_t n, const char *want, bool integer)
{
	size_t wn = strlen(want);
	if (n == wn && memcmp(v, want, n) == 0)
		return true;
	if (!integer || n == 0 || n >= 64)
		return false;
	char tmp[64], *end;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	errno = 0;
	long long w = strtoll(want, &end, 10);
	if (*end || errno)
		return false;
	double x = strtod(tmp, &end);
	return !*end && x == (double)w && (x != 0 || w == 0);
}

static void kc_line(ds_keycol_diff *d, const char *v, size_t n,
		    const char *want, bool integer)
{
	if (!kc_same(v, n, want, integer)) {
		if (!d->differ++) {
			d->first = d->rows;
			size_t c = n < sizeof d->first_text - 1
				   ? n : sizeof d->first_text - 1;
			memcpy(d->first_text, v, c);
			d->first_text[c] = '\0';
		}
	}
	d->rows++;
}

colfs_status ds_keycol_compare(colfs_tree *g, const char *path,
			       const char *want, bool integer,
			       ds_keycol_diff *d)
{
	colfs_node *n;
	colfs_handle *h;
	memset(d, 0, sizeof *d);
	COLFS_TRY(colfs_tree_resolve(g, path, &n));
	COLFS_TRY(colfs_node_open(g, n, &h));
	enum { PIECE = 1 << 20 };
	/* the start of a line cut by a piece's end: kept up to `cap` bytes,
	 * more than the folder's value (or than a number's text in
	 * kc_same): a longer line is not the value */
	size_t wn = strlen(want), cap = wn + 1 > 64 ? wn + 1 : 64;
	char *chunk = malloc(PIECE), *carry = malloc(cap);
	size_t ncarry = 0, carried = 0;
	uint64_t at = 0;
	colfs_status st = chunk && carry ? COLFS_OK : COLFS_ENOMEM;
	while (st == COLFS_OK) {
		size_t got = 0;
		st = colfs_handle_read(h, at, PIECE, chunk, &got);
		if (st != COLFS_OK || got == 0)
			break;
		at += got;
		const char *p = chunk, *end = chunk + got;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			if (!nl || carried) {
				size_t c = len < cap - ncarry ? len : cap - ncarry;
				memcpy(carry + ncarry, p, c);
				ncarry += c;
				carried += len;
			}
			if (!nl)
				break;
			if (carried) {
				kc_line(d, carry, ncarry, want,
					integer && carried == ncarry);
				ncarry = carried = 0;
			} else {
				kc_line(d, p, len, want, integer);
			}
			p = nl + 1;
		}
	}
	if (st == COLFS_OK && carried)
		kc_line(d, carry, ncarry, want, integer && carried == ncarry);
	free(chunk);
	free(carry);
	colfs_handle_close(h);
	return st;
}

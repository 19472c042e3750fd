/* colfs: names from the file as path components (names.c).  tree.h
 * includes this. */
#ifndef COLFS_NAMES_H
#define COLFS_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Escape a name from the file into one safe path component:
 *   '%' -> %25, '/' -> %2F, bytes < 0x20 and 0x7f -> %XX,
 *   "." -> %2E, ".." -> %2E%2E, "" -> %00 ... see docs/tree.md.
 * Names longer than 200 bytes are cut and end in "%~" plus 8 hex digits of
 * a hash of the whole name.  Returns a malloc'd string. */
char *colfs_name_escape(const char *raw);
/* The bytes a path component stands for: every %XX (two hex digits, either
 * case) becomes the byte XX, anything else is kept.  `out` has room for
 * len + 1 bytes; it is NUL-terminated and the byte count is returned (a
 * %00 gives a NUL inside it).  Cut names ("%~...") are not undone. */
size_t colfs_name_unescape(const char *name, size_t len, char *out);
/* The name the tree gives the i-th entry of a directory whose entries
 * are added in the order raw(ctx, 0), raw(ctx, 1), ... (escaped and made
 * unique like colfs_dir_add_*), without the directory being listed: for
 * building a part's path from indices.  `tmp` is scratch for `raw`.
 * Returns a malloc'd string, NULL when out of memory. */
typedef const char *(*colfs_name_fn)(void *ctx, size_t j, char *tmp,
				     size_t tmp_len);
char *colfs_name_nth(colfs_name_fn raw, void *ctx, size_t i);
/* The same from the entries' escaped names: esc(ctx, j) is entry j's,
 * malloc'd (NULL when out of memory: so is the answer). */
typedef char *(*colfs_escaped_fn)(void *ctx, size_t j);
char *colfs_name_nth_escaped(colfs_escaped_fn esc, void *ctx, size_t i);
/* The name of the k-th repeat (k >= 1) of the escaped name `name` in one
 * directory: "name%k" ('%' never stands alone in an escaped name, so no
 * other entry's escape is spelled so).  Returns a malloc'd string, NULL
 * when out of memory. */
char *colfs_name_repeat(const char *name, unsigned k);

/* The FNV-1a hash of a name (the tree's name index, the cut names' tail). */
uint32_t colfs_name_hash(const char *s);

#endif

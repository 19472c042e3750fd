/* colfs: hex digits and percent-decoding, written once (hex.c): key
 * options, escaped names, URL user information, Delta paths, Parquet
 * statistics text all read them the same way. */
#ifndef COLFS_HEX_H
#define COLFS_HEX_H

#include <stddef.h>

/* The value of the hex digit `c` (0-9, a-f, A-F), or -1. */
int colfs_hex_digit(char c);

/* `len` bytes of `s` with each "%HH" (two hex digits, both within the
 * `len` bytes) made the byte it stands for; any other '%' is kept.
 * `out` (at least len + 1 bytes, may not overlap `s`) gets the bytes and
 * a NUL after them; returns how many bytes were written before the NUL
 * (a "%00" makes a NUL inside: callers that want none compare with
 * strlen). */
size_t colfs_percent_decode(const char *s, size_t len, char *out);

#endif

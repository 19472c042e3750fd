/* colfs: the reporter every format's `verify` document uses (verify.c).
 *
 * A verify check that finds the metadata and the data disagree calls
 * colfs_verify_mismatch: the mismatch is counted, written to the document
 * as a "MISMATCH: <message>" line and filed as a problem under the node
 * the document belongs to, "<lead>: <message>", status corrupt.  Past
 * `cap` mismatches the rest are only counted (their lines too, unless
 * `list_all`), so a badly broken file does not flood `errors`.
 *
 * tree.h includes this.
 */
#ifndef COLFS_VERIFY_H
#define COLFS_VERIFY_H

#include "../colfs.h"
#include "buf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct colfs_verify_style {
	const char *lead;       /* e.g. "metadata disagrees with the data" */
	unsigned cap;           /* problems filed (and lines written) */
	bool list_all;          /* a line for every mismatch, past the cap */
} colfs_verify_style;

/* One mismatch at byte `off` (COLFS_OFFSET_UNKNOWN when none can be
 * named) of the verify document `out` of the node `where`; `*count` is the
 * document's count of mismatches so far (incremented). */
void colfs_verify_mismatch(colfs_tree *t, const colfs_node *where,
			   colfs_buf *out, const colfs_verify_style *style,
			   unsigned *count, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* A line of a verify document: the text and a newline. */
void colfs_verify_line(colfs_buf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif

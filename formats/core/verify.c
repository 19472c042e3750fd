/* colfs: the verify reporter (verify.h). */
#include "tree.h"

#include <stdio.h>

void colfs_verify_mismatch(colfs_tree *t, const colfs_node *where,
			   colfs_buf *out, const colfs_verify_style *style,
			   unsigned *count, uint64_t off, const char *fmt, ...)
{
	char msg[900];
	unsigned n = (*count)++;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (n < style->cap || style->list_all)
		colfs_buf_printf(out, "MISMATCH: %s\n", msg);
	if (n < style->cap)
		colfs_tree_report(t, where, off, COLFS_ECORRUPT, "%s: %s",
				  style->lead, msg);
}

void colfs_verify_line(colfs_buf *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	colfs_buf_vprintf(out, fmt, ap);
	va_end(ap);
	colfs_buf_putc(out, '\n');
}

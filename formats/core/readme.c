/* colfs: the in-mount README's list of entries (readme.h).
 */
#include "readme.h"

#include <stdarg.h>
#include <string.h>

void colfs_readme_entries(colfs_buf *out)
{
	colfs_buf_puts(out,
		"Listing a directory reads metadata only.  Entries marked [decodes]\n"
		"are value views: reading one decodes the values of the part it\n"
		"belongs to; the others are stored bytes or documents made from\n"
		"the metadata.  A stat of a value view (ls -l) decodes it to learn\n"
		"its size only when the source is small or with -o sizes=exact\n"
		"(docs/tree.md, \"Sizes\").\n\n"
		"Entries (two spaces of indent per level; a trailing / marks a\n"
		"directory; N, K and <...> stand for each numbered or named entry):\n\n");
}

void colfs_readme_entry(colfs_buf *out, unsigned depth, const char *name,
			bool decodes, const char *fmt, ...)
{
	int w = (int)(2 * depth + strlen(name));
	va_list ap;

	colfs_buf_printf(out, "%*s%s%*s %s", (int)(2 * depth), "", name,
			 w < 27 ? 27 - w : 0, "", decodes ? "[decodes] " : "");
	va_start(ap, fmt);
	colfs_buf_vprintf(out, fmt, ap);
	va_end(ap);
	colfs_buf_putc(out, '\n');
}

void colfs_readme_end(colfs_buf *out)
{
	colfs_buf_putc(out, '\n');
}
/* colfs: the in-mount README (readme.h), and the entries of a root it
 * lists first (colfs_root_add_common, tree.h). */
#include "tree.h"

#include <string.h>

static void entry(colfs_buf *out, unsigned depth, const char *name,
		  bool decodes, const char *text)
{
	int w = (int)(2 * depth + strlen(name));

	colfs_buf_printf(out, "%*s%s%*s %s%s\n", (int)(2 * depth), "", name,
			 w < 27 ? 27 - w : 0, "", decodes ? "[decodes] " : "",
			 text);
}

colfs_status colfs_readme_write(colfs_tree *t, const colfs_readme *r,
				colfs_buf *out)
{
	size_t problems = colfs_tree_error_count(t);

	colfs_buf_printf(out,
		"%s: %s (%llu bytes), mounted read-only by colfs.\n\n",
		colfs_tree_display_name(t), r->what,
		(unsigned long long)colfs_source_size(colfs_tree_source(t)));
	if (r->about)
		colfs_buf_puts(out, r->about);
	colfs_buf_puts(out,
		"Listing a directory reads metadata only.  Entries marked [decodes]\n"
		"are value views: reading one decodes the values of the part it\n"
		"belongs to; the others are stored bytes or documents made from\n"
		"the metadata.  A stat of a value view (ls -l) decodes it to learn\n"
		"its size only when the source is small or with -o sizes=exact\n"
		"(docs/tree.md, \"Sizes\").\n\n"
		"Entries (two spaces of indent per level; a trailing / marks a\n"
		"directory; N, K and <...> stand for each numbered or named entry):\n\n");
	entry(out, 0, "README", false, "this text");
	entry(out, 0, "format", false, r->format_text);
	entry(out, 0, "layout", false,
	      "byte map: `offset length kind tree-path` per region, sorted; "
	      "gaps and overlaps marked (docs/tree.md, \"layout\")");
	entry(out, 0, "errors", false,
	      "every problem found so far: `path: offset N (0xN): status: "
	      "message`");
	if (colfs_tree_has_io(t))
		entry(out, 0, "io", false,
		      "requests made to the remote source, bytes fetched and "
		      "served from its cache, retries, the slowest requests "
		      "(made again at each open; docs/remote.md)");
	entry(out, 0, "layout.svg", false,
	      "the byte map as a picture: one band scaled to the file, regions "
	      "colored by kind, damaged ones red, each with a tooltip "
	      "(docs/tree.md, \"layout.svg\")");
	for (size_t i = 0; i < r->n_rows; i++)
		if (r->rows[i].shown)
			entry(out, r->rows[i].depth, r->rows[i].name,
			      r->rows[i].decodes, r->rows[i].text);
	colfs_buf_puts(out,
		"\nNames from the file are escaped into one path component: '%', '/',\n"
		"control bytes become %XX; \".\" and \"..\" become %2E and %2E%2E.\n");
	if (problems)
		colfs_buf_printf(out,
			"\nThis file has problems (%zu so far): see `errors`.\n",
			problems);
	return colfs_buf_status(out);
}

bool colfs_root_add_common(colfs_tree *t, colfs_node *root,
			   const colfs_node_ops *readme, const char *format,
			   const colfs_node_ops *layout,
			   const colfs_node_ops *raw)
{
	return colfs_dir_add_doc(t, root, "README", readme, NULL) &&
	       colfs_dir_add_text(t, root, "format", format, strlen(format)) &&
	       colfs_dir_add_layout_svg(t, root,
					colfs_dir_add_doc(t, root, "layout",
							  layout, NULL)) &&
	       colfs_dir_add_errors(t, root) &&
	       colfs_dir_add_dir(t, root, "raw", raw, NULL);
}

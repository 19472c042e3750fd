/* A format registry for testing colfs-tool on its own: linked into
 * `colfs-tool-toy` (tools/colfs-tool.c built against this file instead of
 * formats/core/registry.c), it knows one synthetic format, "toy", whose
 * tree has every kind of node and every way of failing, so that the tool's
 * output can be checked byte for byte without depending on a real format
 * module.
 *
 * A toy file starts with "TOYF".  Its tree (in listing order):
 *
 *	README          doc "toy tree\n"
 *	format          doc "toy 1\n"
 *	data            range: the file from offset 4 to its end
 *	sub/            a/b (escaped to a%2Fb): doc "slash\n"
 *	                big: stream of 40 pieces, piece i is 8192 bytes of
 *	                     the letter 'a' + i % 26 (327680 bytes in all)
 *	                broken: doc whose generation fails (corrupt, offset 7)
 *	                head: range of the first 4 bytes
 *	empty/          a directory without entries
 *	bad/            a directory whose listing fails (truncated, offset 99)
 *	errors          the problems found so far
 */
#include <string.h>

#include "core/sourcekind.h"
#include "core/tree.h"

#define TOY_PIECES 40
#define TOY_PIECE_SIZE 8192

static colfs_status toy_big_piece(colfs_tree *t, colfs_node *f,
				  uint64_t index, colfs_buf *out)
{
	(void)t;
	(void)f;
	if (index >= TOY_PIECES)
		return COLFS_END;
	if (!colfs_buf_reserve(out, TOY_PIECE_SIZE))
		return COLFS_ENOMEM;
	memset(out->data + out->len, 'a' + (int)(index % 26), TOY_PIECE_SIZE);
	out->len += TOY_PIECE_SIZE;
	return COLFS_OK;
}

static colfs_status toy_broken_generate(colfs_tree *t, colfs_node *f,
					colfs_buf *out)
{
	(void)out;
	colfs_tree_report(t, f, 7, COLFS_ECORRUPT, "the toy says no");
	return COLFS_ECORRUPT;
}

static const colfs_node_ops toy_big_ops = { .piece = toy_big_piece };
static const colfs_node_ops toy_broken_ops = {
	.generate = toy_broken_generate,
};

static colfs_status toy_sub_populate(colfs_tree *t, colfs_node *dir)
{
	if (!colfs_dir_add_text(t, dir, "a/b", "slash\n", 6) ||
	    !colfs_dir_add_stream(t, dir, "big", &toy_big_ops, NULL) ||
	    !colfs_dir_add_doc(t, dir, "broken", &toy_broken_ops, NULL) ||
	    !colfs_dir_add_range(t, dir, "head", 0, 4))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static colfs_status toy_empty_populate(colfs_tree *t, colfs_node *dir)
{
	(void)t;
	(void)dir;
	return COLFS_OK;
}

static colfs_status toy_bad_populate(colfs_tree *t, colfs_node *dir)
{
	colfs_tree_report(t, dir, 99, COLFS_ETRUNCATED, "cannot list bad");
	return COLFS_ETRUNCATED;
}

static const colfs_node_ops toy_sub_ops = { .populate = toy_sub_populate };
static const colfs_node_ops toy_empty_ops = {
	.populate = toy_empty_populate,
};
static const colfs_node_ops toy_bad_ops = { .populate = toy_bad_populate };

static colfs_status toy_root_populate(colfs_tree *t, colfs_node *root)
{
	uint64_t size = colfs_source_size(colfs_tree_source(t));

	if (!colfs_dir_add_text(t, root, "README", "toy tree\n", 9) ||
	    !colfs_dir_add_text(t, root, "format", "toy 1\n", 6) ||
	    !colfs_dir_add_range(t, root, "data", 4, size - 4) ||
	    !colfs_dir_add_dir(t, root, "sub", &toy_sub_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "empty", &toy_empty_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "bad", &toy_bad_ops, NULL) ||
	    !colfs_dir_add_errors(t, root))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops toy_root_ops = { .populate = toy_root_populate };

static bool toy_probe(const uint8_t *head, size_t head_len,
		      const uint8_t *tail, size_t tail_len, uint64_t size)
{
	(void)tail;
	(void)tail_len;
	return size >= 4 && head_len >= 4 && !memcmp(head, "TOYF", 4);
}

static colfs_status toy_open(colfs_tree *t, colfs_err *err)
{
	(void)err;
	colfs_node_set_ops(colfs_tree_root(t), &toy_root_ops, NULL);
	return COLFS_OK;
}

static void toy_close(void *state)
{
	(void)state;
}

static const colfs_format toy_format = {
	.name = "toy",
	.probe = toy_probe,
	.open = toy_open,
	.close = toy_close,
};

const colfs_format *const colfs_formats[] = {
	&toy_format,
	NULL,
};

/* The rest of a registry: the module a directory opens as, and the
 * kinds of source of the local file system (a toy file is read from the
 * disk). */
extern const colfs_format colfs_format_dataset;
const colfs_format *const colfs_format_directory = &colfs_format_dataset;

extern const colfs_source_kind colfs_source_kind_directory;
extern const colfs_source_kind colfs_source_kind_file;

const colfs_source_kind *const colfs_source_kinds[] = {
	&colfs_source_kind_directory,
	&colfs_source_kind_file,
	NULL,
};

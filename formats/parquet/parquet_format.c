/* colfs: the Parquet format module's entry: probe, open (the state, the
 * head magic, the footer through parquet_region_footer_read, the page pipeline, then
 * the tree of parquet_tree.c) and close; its format table is listed in
 * formats/core/registry.c. */
#include "parquet_crypt.h"
#include "parquet_pages.h"
#include "parquet_salvage.h"
#include "parquet_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_magic(const uint8_t *p)
{
	return memcmp(p, "PAR1", 4) == 0 || memcmp(p, "PARE", 4) == 0;
}

static bool parquet_format_probe(const uint8_t *head, size_t head_len, const uint8_t *tail,
		     size_t tail_len, uint64_t size)
{
	/* A file that starts like Parquet is claimed even when its tail is
	 * damaged, and one that ends like Parquet (where readers look
	 * first) even when its head is damaged, so that the damage can be
	 * shown. */
	if (head_len >= 4 && is_magic(head))
		return true;
	return size >= 12 && tail_len >= 4 && is_magic(tail + tail_len - 4);
}

static void parquet_format_close(void *state)
{
	parquet_region_state *s = state;

	if (!s)
		return;
	parquet_salvage_destroy(s->salvage);
	parquet_pages_destroy(s->values);
	parquet_file_destroy(s->pf);
	parquet_crypt_destroy(s->crypt);
	free(s);
}

static void report_cb(void *ctx, const colfs_err *err)
{
	colfs_tree_report_err(ctx, NULL, err);
}

static colfs_status parquet_format_open(colfs_tree *t, colfs_err *err)
{
	colfs_node *root = colfs_tree_root(t);
	parquet_region_state *s;
	colfs_status st;

	s = calloc(1, sizeof *s);
	if (!s)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory");
	s->src = colfs_tree_source(t);
	s->size = colfs_source_size(s->src);
	s->max_alloc = colfs_tree_options(t)->max_alloc;
	if (!s->max_alloc)
		s->max_alloc = 1ull << 30;
	colfs_tree_set_format_state(t, s);
	{
		/* the keys of an encrypted file: a key_file that cannot be
		 * read refuses the mount */
		char why[sizeof err->msg] = "";
		st = parquet_crypt_create(colfs_tree_options(t), &s->crypt,
					  why, sizeof why);
		if (st)
			return colfs_fail(err, st, COLFS_OFFSET_UNKNOWN, "%s",
					  why[0] ? why : "out of memory");
	}
	if (s->size >= 4) {
		st = colfs_source_read_at(s->src, 0, 4, s->head_magic, err);
		if (st)
			return st;
	}
	st = parquet_region_footer_read(s, false, report_cb, t, NULL);
	if (st)
		return colfs_fail(err, st, s->size, "cannot read the footer");
	parquet_crypt_report_chunks(t, s);

	if (parquet_pages_create(s, &s->values) ||
	    parquet_tree_root_add(t, root, s))
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory building the tree");
	return COLFS_OK;
}

const colfs_format colfs_format_parquet = {
	.name = "parquet",
	.probe = parquet_format_probe,
	.open = parquet_format_open,
	.close = parquet_format_close,
};

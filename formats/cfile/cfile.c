/* colfs: the Kudu CFile format table (probe, open, close).  Open reads
 * the footer and header (cfile_file.c), walks the indexes
 * (cfile_index.c) and chooses the tree: the file's (cfile_tree.c), or
 * salvage/ (cfile_salvage.c) when the footer cannot be used. */
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"

static bool probe(const uint8_t *head, size_t head_len, const uint8_t *tail,
		  size_t tail_len, uint64_t size)
{
	if (size < 16)
		return false;
	/* the header magic alone: a file whose footer is lost (salvage/) */
	if (head_len >= 8 && (!memcmp(head, CFILE_MAGIC_V2, 8) ||
			      !memcmp(head, CFILE_MAGIC_V1, 8)))
		return true;
	if (tail_len < 12)
		return false;
	const uint8_t *m = tail + tail_len - 12;
	return !memcmp(m, CFILE_MAGIC_V2, 8) || !memcmp(m, CFILE_MAGIC_V1, 8);
}

static void file_free(void *state)
{
	cfile_file *f = state;

	if (!f)
		return;
	cfile_salvage_free(f);
	colfs_proto_free(&f->header_msg);
	colfs_proto_free(&f->footer_msg);
	free(f->header_bytes);
	cfile_index_free(&f->posidx);
	cfile_index_free(&f->validx);
	free(f->blocks);
	free(f->dict_data);
	free(f->dict_str);
	free(f->dict_len);
	pthread_mutex_destroy(&f->dict_lock);
	pthread_mutex_destroy(&f->seen_lock);
	free(f);
}

/* The root: what every CFile shows, then the file's tree or salvage/. */
static colfs_status root_populate(colfs_tree *t, colfs_node *root)
{
	cfile_file *f = colfs_tree_format_state(t);

	COLFS_TRY(cfile_tree_add_common(t, root));
	if (!f->footer)
		return cfile_salvage_add(t, f, root);
	return cfile_tree_add_file(t, root);
}

static const colfs_node_ops root_ops = {.populate = root_populate};

static colfs_status root_set(colfs_tree *t)
{
	colfs_node_set_ops(colfs_tree_root(t), &root_ops, NULL);
	return COLFS_OK;
}

static void rows_assign(colfs_tree *t, cfile_file *f)
{
	if (!f->posidx.present || !f->walk_complete)
		return;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		cfile_dblock *b = &f->blocks[i];
		uint64_t next = i + 1 < f->nblocks ? f->blocks[i + 1].first_row
						   : f->num_values;
		if (next <= b->first_row) {
			colfs_tree_report(t, NULL, b->ptr.offset,
					  COLFS_ECORRUPT,
					  "block %u starts at row %llu, past "
					  "num_values %llu", i,
					  (unsigned long long)b->first_row,
					  (unsigned long long)f->num_values);
			return;
		}
		b->rows = next - b->first_row;
	}
	if (f->nblocks && f->blocks[0].first_row != 0)
		colfs_tree_report(t, NULL, f->blocks[0].ptr.offset,
				  COLFS_ECORRUPT,
				  "first block starts at row %llu, not 0",
				  (unsigned long long)f->blocks[0].first_row);
	if (!f->nblocks && f->num_values)
		colfs_tree_report(t, NULL, f->footer_start, COLFS_ECORRUPT,
				  "num_values %llu but the index has no blocks",
				  (unsigned long long)f->num_values);
}

static colfs_status file_open(colfs_tree *t, colfs_err *err)
{
	cfile_file *f = calloc(1, sizeof(*f));
	const colfs_options *o = colfs_tree_options(t);
	colfs_status st;

	if (!f)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	pthread_mutex_init(&f->dict_lock, NULL);
	pthread_mutex_init(&f->seen_lock, NULL);
	f->src = colfs_tree_source(t);
	f->size = colfs_source_size(f->src);
	f->verify = !o->checksums_ignore;
	f->max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	f->header_len = 12;
	colfs_tree_set_format_state(t, f);

	st = cfile_file_read_footer(t, f);
	if (st == COLFS_ENOMEM || st == COLFS_EIO)
		return colfs_fail(err, st, f->size, "cannot read the footer");
	if (st) {
		/* No usable footer: show the raw parts and the errors. */
		colfs_proto_free(&f->footer_msg);
		f->footer = NULL;
		if (!f->footer_start)
			f->footer_start = f->size;
		return root_set(t);
	}
	cfile_file_read_header(t, f);
	const Kudu__Cfile__CFileFooterPB *ft = f->footer;
	bool have_pos = ft->posidx_info && ft->posidx_info->root_block;
	bool have_val = ft->validx_info && ft->validx_info->root_block;
	if (have_pos) {
		const Kudu__Cfile__BlockPointerPB *bp =
			ft->posidx_info->root_block;
		cfile_ptr p = {(uint64_t)bp->offset, (uint32_t)bp->size};
		if (!bp->has_offset || !bp->has_size || bp->offset < 0 ||
		    bp->size < 0)
			p.offset = 0;
		COLFS_TRY(cfile_index_walk(t, f, &f->posidx, p, true, true));
	}
	if (have_val) {
		const Kudu__Cfile__BlockPointerPB *bp =
			ft->validx_info->root_block;
		cfile_ptr p = {(uint64_t)bp->offset, (uint32_t)bp->size};
		if (!bp->has_offset || !bp->has_size || bp->offset < 0 ||
		    bp->size < 0)
			p.offset = 0;
		COLFS_TRY(cfile_index_walk(t, f, &f->validx, p, false,
					   !have_pos));
	}
	if (!have_pos && !have_val)
		colfs_tree_report(t, NULL, f->footer_start, COLFS_EUNSUPPORTED,
				  "no positional or value index: the data "
				  "blocks cannot be found");
	if (ft->dict_block_ptr) {
		const Kudu__Cfile__BlockPointerPB *bp = ft->dict_block_ptr;
		cfile_ptr p = {(uint64_t)bp->offset, (uint32_t)bp->size};
		colfs_err perr = {0};
		if (!bp->has_offset || !bp->has_size || bp->offset < 0 ||
		    bp->size < 0 ||
		    cfile_block_ptr_check(f, p, f->footer_start, &perr))
			colfs_tree_report(t, NULL, f->footer_start,
					  COLFS_EBOUNDS,
					  "dictionary block pointer: %s",
					  perr.msg[0] ? perr.msg
						      : "missing fields");
	}
	rows_assign(t, f);
	f->role = cfile_special_role_detect(f);
	return root_set(t);
}

const colfs_format colfs_format_cfile = {
	.name = "cfile",
	.probe = probe,
	.open = file_open,
	.close = file_free,
};

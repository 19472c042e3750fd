/* colfs: a CFile data block decoded for a view (`values`, `arrays/`, a
 * block's own files): read, decoded, checked against the positional index
 * and the blocks before it, its problems filed under blocks/N whichever
 * view found them. */
#include <stdio.h>

#include "cfile_int.h"

/* Block i's values cannot be read: it hides its rows (colfs-tool
 * check), when the positional index gives them (as -o on_damage needs
 * them, damaged_block); else how many is not known. */
static void block_hidden(colfs_tree *t, uint32_t i, colfs_status st)
{
	cfile_file *f = colfs_tree_format_state(t);
	const cfile_dblock *b = &f->blocks[i];
	char path[32];

	if (st == COLFS_ENOMEM || st == COLFS_EIO)
		return;
	snprintf(path, sizeof path, "/blocks/%u", (unsigned)i);
	colfs_tree_note_hidden(t, path, b->ptr.offset, 0,
			       b->rows && b->key_known &&
			       b->rows <= f->num_values
			       ? b->rows : COLFS_ROWS_UNKNOWN);
}

colfs_status cfile_decoded_block(colfs_tree *t, uint32_t i, cfile_raw *raw,
				 cfile_values *v)
{
	cfile_file *f = colfs_tree_format_state(t);
	const cfile_dblock *b = &f->blocks[i];
	colfs_err err = {0};
	colfs_status st;

	st = cfile_block_read(f, b->ptr, raw, &err);
	if (!st) {
		st = cfile_block_decode(f, raw, b->ptr, v, &err);
		if (st)
			cfile_block_raw_free(raw);
	}
	if (st) {
		cfile_block_report(t, i, err.offset, st, "block %u: %s", i,
				  err.msg);
		block_hidden(t, i, st);
		return st;
	}
	if (b->key_known && v->ordinal != b->first_row)
		cfile_block_report(t, i, b->ptr.offset, COLFS_ECORRUPT,
				  "block %u: first-ordinal field %u, the "
				  "positional index says %llu", i, v->ordinal,
				  (unsigned long long)b->first_row);
	if (b->rows && v->rows != b->rows) {
		cfile_block_report(t, i, b->ptr.offset, COLFS_ECORRUPT,
				  "block %u holds %u rows, the index and "
				  "num_values say %llu", i, v->rows,
				  (unsigned long long)b->rows);
		cfile_block_values_free(v);
		cfile_block_raw_free(raw);
		block_hidden(t, i, COLFS_ECORRUPT);
		return COLFS_ECORRUPT;
	}
	if (v->rows == 0 && f->num_values > 0)
		cfile_block_report(t, i, b->ptr.offset, COLFS_ECORRUPT,
				  "block %u holds no rows", i);
	if (!b->key_known) {
		/* No positional index: ordinals must follow the rows of the
		 * previous block (§11). */
		cfile_dblock *w = &f->blocks[i];
		pthread_mutex_lock(&f->seen_lock);
		w->seen = true;
		w->seen_ordinal = v->ordinal;
		w->seen_rows = v->rows;
		uint64_t want = 0;
		bool known = i == 0;
		if (i > 0 && f->blocks[i - 1].seen) {
			want = (uint64_t)f->blocks[i - 1].seen_ordinal +
			       f->blocks[i - 1].seen_rows;
			known = true;
		}
		pthread_mutex_unlock(&f->seen_lock);
		if (known && want != v->ordinal)
			cfile_block_report(t, i, b->ptr.offset,
					  COLFS_ECORRUPT,
					  "block %u: first-ordinal field %u, "
					  "the rows before it end at %llu", i,
					  v->ordinal, (unsigned long long)want);
	}
	return COLFS_OK;
}

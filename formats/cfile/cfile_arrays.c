/* colfs CFile: `arrays/` (core/arrays.c makes the .npy file; this says
 * whether the column has one and decodes its rows; docs/values.md,
 * "Arrays").
 *
 * The column has an array when its type is fixed-width (integers, BOOL,
 * FLOAT, DOUBLE, DATE, UNIXTIME_MICROS; not DECIMAL, whose precision the
 * file does not hold, nor INT128) and the positional index gives the
 * rows of every data block (their sum num_values): the units are the
 * blocks, so a read decodes the block that holds its rows.
 */
#include "cfile_int.h"
#include "../core/arrays.h"

#include <stdlib.h>
#include <string.h>

static bool array_type_of(const cfile_file *f, colfs_array_type *out)
{
	const cfile_type_info *ti = f->ti;

	if (!ti || f->array || f->role != CFILE_ROLE_COLUMN)
		return false;
	switch (f->type) {
	case CFILE_UNIXTIME_MICROS: *out = COLFS_ARRAY_TS_US; return true;
	case CFILE_DATE: *out = COLFS_ARRAY_DATE; return true;
	case CFILE_BOOL: *out = COLFS_ARRAY_BOOL; return true;
	case CFILE_FLOAT: *out = COLFS_ARRAY_F32; return true;
	case CFILE_DOUBLE: *out = COLFS_ARRAY_F64; return true;
	case CFILE_DECIMAL32:
	case CFILE_DECIMAL64:
		return false;
	}
	if (ti->phys != CFILE_PHYS_INT)
		return false;
	switch (ti->width) {
	case 1: *out = ti->is_signed ? COLFS_ARRAY_I8 : COLFS_ARRAY_U8; return true;
	case 2: *out = ti->is_signed ? COLFS_ARRAY_I16 : COLFS_ARRAY_U16; return true;
	case 4: *out = ti->is_signed ? COLFS_ARRAY_I32 : COLFS_ARRAY_U32; return true;
	case 8: *out = ti->is_signed ? COLFS_ARRAY_I64 : COLFS_ARRAY_U64; return true;
	}
	return false;
}

/* Do the blocks' rows come from the index, adding up to num_values? */
static bool blocks_sized(const cfile_file *f)
{
	uint64_t sum = 0;

	if (!f->walk_complete || !f->posidx.present)
		return false;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		if (!f->blocks[i].rows || !f->blocks[i].key_known)
			return false;
		sum += f->blocks[i].rows;
	}
	return sum == f->num_values;
}

bool cfile_arrays_any(const cfile_file *f)
{
	colfs_array_type ty;

	return array_type_of(f, &ty) && blocks_sized(f);
}

static colfs_status arrays_rows(colfs_tree *t, const colfs_node *node,
				void *ctx, const colfs_array_field *fl,
				uint32_t unit, uint64_t row0, uint64_t n,
				uint8_t *values, uint8_t *nulls)
{
	cfile_file *f = ctx;
	unsigned size = colfs_array_itemsize(fl->type);
	cfile_raw raw = {0};
	cfile_values v = {0};
	uint32_t j = 0;

	(void)node;
	COLFS_TRY(cfile_decoded_block(t, unit, &raw, &v));
	if (row0 + n > v.rows || v.width != f->ti->width) {
		cfile_block_values_free(&v);
		cfile_block_raw_free(&raw);
		return COLFS_ECORRUPT;   /* block_values checked the rows */
	}
	for (uint64_t r = 0; r < row0; r++)
		j += !v.present || v.present[r];
	for (uint64_t r = 0; r < n && j <= v.n; r++) {
		uint8_t *o = values + r * size;
		if (v.present && !v.present[row0 + r]) {
			nulls[r] = 1;
			continue;
		}
		if (j == v.n)
			break;
		const uint8_t *p = v.fixed + (size_t)j++ * v.width;
		if (fl->type == COLFS_ARRAY_DATE) {
			/* int32 days, widened */
			int32_t d;
			memcpy(&d, p, 4);
			int64_t w = d;
			memcpy(o, &w, 8);
		} else if (fl->type == COLFS_ARRAY_BOOL) {
			o[0] = p[0] != 0;
		} else {
			memcpy(o, p, size);
		}
	}
	cfile_block_values_free(&v);
	cfile_block_raw_free(&raw);
	return COLFS_OK;
}

static colfs_status arrays_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_file *f = colfs_tree_format_state(t);
	colfs_array_field fl = {.name = "values", .nullable = f->nullable};
	uint64_t *rows;
	colfs_status st;

	if (!array_type_of(f, &fl.type) || !blocks_sized(f)) {
		colfs_arrays_def none = {.ctx = f, .rows = arrays_rows,
					 .unit_name = "block"};
		return colfs_arrays_populate(t, dir, &none);
	}
	rows = calloc(f->nblocks + 1, sizeof *rows);
	if (!rows)
		return COLFS_ENOMEM;
	for (uint32_t i = 0; i < f->nblocks; i++)
		rows[i] = f->blocks[i].rows;
	fl.from = f->ti->name;
	colfs_arrays_def def = {
		.ctx = f, .rows = arrays_rows, .unit_name = "block",
		.n_units = f->nblocks, .unit_rows = rows,
		.n_fields = 1, .fields = &fl,
	};
	st = colfs_arrays_populate(t, dir, &def);
	free(rows);
	return st;
}

const colfs_node_ops cfile_arrays_ops = {.populate = arrays_populate};

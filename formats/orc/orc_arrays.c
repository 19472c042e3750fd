/* colfs ORC: `arrays/` (core/arrays.c makes the .npy files; this says
 * which fields have one and decodes their rows; docs/values.md,
 * "Arrays").
 *
 * A top-level field of a fixed-width kind has an array.  Rows [row0,
 * row0 + n) of stripe s are read by a reader of that field that seeks to
 * row0 through the row index (when the file has one), so a read decodes
 * the row groups that hold its rows, not the stripe from its start.
 */
#include "orc_read.h"
#include "../core/arrays.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The array type of type `id`; false when it has none. */
static bool array_type_of(const Orcpb__Type *ty, colfs_array_type *out)
{
	switch (ty->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN: *out = COLFS_ARRAY_BOOL; return true;
	case ORCPB__TYPE__KIND__BYTE: *out = COLFS_ARRAY_I8; return true;
	case ORCPB__TYPE__KIND__SHORT: *out = COLFS_ARRAY_I16; return true;
	case ORCPB__TYPE__KIND__INT: *out = COLFS_ARRAY_I32; return true;
	case ORCPB__TYPE__KIND__LONG: *out = COLFS_ARRAY_I64; return true;
	case ORCPB__TYPE__KIND__FLOAT: *out = COLFS_ARRAY_F32; return true;
	case ORCPB__TYPE__KIND__DOUBLE: *out = COLFS_ARRAY_F64; return true;
	case ORCPB__TYPE__KIND__DATE: *out = COLFS_ARRAY_DATE; return true;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		*out = COLFS_ARRAY_TS_NS;
		return true;
	case ORCPB__TYPE__KIND__DECIMAL:
		/* precision 0: Hive 0.11's unbounded decimals */
		*out = COLFS_ARRAY_DECIMAL;
		return ty->precision >= 1 && ty->precision <= 18 &&
		       ty->scale <= ty->precision;
	default:
		return false;
	}
}

static void put_le(uint8_t *o, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		o[i] = (uint8_t)(v >> (8 * i));
}

/* The rows function's context: the file and the first stripe shown. */
typedef struct orc_arrays {
	orc_file *f;
	size_t s0;
} orc_arrays;

static colfs_status arrays_rows(colfs_tree *t, const colfs_node *f, void *ctx,
				const colfs_array_field *fl, uint32_t unit,
				uint64_t row0, uint64_t n, uint8_t *values,
				uint8_t *nulls)
{
	const orc_arrays *oa = ctx;
	orc_file *of = oa->f;
	size_t stripe = oa->s0 + unit;
	unsigned size = colfs_array_itemsize(fl->type);
	colfs_err err = {0};
	orc_reader *r = NULL;
	colfs_status st;
	uint64_t done = 0;

	(void)f;
	st = orc_reader_at(of, stripe, fl->id, row0, &r, &err);
	while (!st && done < n) {
		size_t m = n - done < ORC_ROWS_PER_PIECE ? (size_t)(n - done)
							 : ORC_ROWS_PER_PIECE;
		st = orc_reader_read(r, m, &err);
		if (st)
			break;
		const orc_col *c = orc_reader_column(r, fl->id);
		const orc_vec *v = &c->v;
		for (size_t i = 0; i < m; i++) {
			uint8_t *o = values + (done + i) * size;
			if (!v->present[i]) {
				nulls[done + i] = 1;
				continue;
			}
			switch (c->kind) {
			case ORCPB__TYPE__KIND__FLOAT: {
				float x = (float)v->d[i];
				memcpy(o, &x, 4);
				break;
			}
			case ORCPB__TYPE__KIND__DOUBLE:
				memcpy(o, &v->d[i], 8);
				break;
			case ORCPB__TYPE__KIND__TIMESTAMP:
			case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
				/* seconds and nanoseconds as shown in
				 * columns/ (wrapping past year 2262) */
				put_le(o, (uint64_t)v->i[i] * 1000000000u +
					  (uint64_t)v->j[i], 8);
				break;
			case ORCPB__TYPE__KIND__DECIMAL:
				put_le(o, (uint64_t)(int64_t)v->dec[i], 8);
				break;
			case ORCPB__TYPE__KIND__BOOLEAN:
				o[0] = v->i[i] != 0;
				break;
			default:
				put_le(o, (uint64_t)v->i[i], size);
			}
		}
		done += m;
	}
	orc_reader_free(r);
	if (st) {
		/* filed under the stripe (and stream) that is broken */
		char path[256];
		orc_tail_part_path(of, stripe, &err, path, sizeof path);
		colfs_tree_report_err_path(t, path, &err);
	}
	return st;
}

/* arrays/: a = stripe + 1, 0 (ORC_TREE_COLUMNS_FILE) the whole file */
static colfs_status arrays_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	const Orcpb__Footer *ft = f->footer;
	size_t s0 = 0, s1 = ft->n_stripes;
	const Orcpb__Type *root;
	colfs_array_field *fields = NULL;
	uint64_t *rows = NULL;
	char (*from)[64] = NULL;
	size_t nf = 0, nroots;
	colfs_status st = COLFS_ENOMEM;

	if (!f->schema_ok)
		return COLFS_OK;
	if (colfs_node_a(dir) != 0) {   /* ORC_TREE_COLUMNS_FILE: all */
		s0 = colfs_node_a(dir) - 1;
		s1 = s0 + 1;
	}
	root = ft->types[0];
	nroots = root->kind == ORCPB__TYPE__KIND__STRUCT ? root->n_subtypes : 1;
	fields = calloc(nroots + 1, sizeof *fields);
	from = calloc(nroots + 1, sizeof *from);
	rows = calloc(s1 - s0 + 1, sizeof *rows);
	if (!fields || !from || !rows)
		goto out;
	for (size_t s = s0; s < s1; s++)
		rows[s - s0] = ft->stripes[s]->numberofrows;
	for (size_t i = 0; i < nroots; i++) {
		bool is_struct = root->kind == ORCPB__TYPE__KIND__STRUCT;
		uint32_t id = is_struct ? root->subtypes[i] : 0;
		colfs_array_field *fl = &fields[nf];
		if (id >= f->n_types ||
		    !array_type_of(ft->types[id], &fl->type))
			continue;
		const Orcpb__Type *ty = ft->types[id];
		fl->name = is_struct ? root->fieldnames[i] : "value";
		fl->id = id;
		fl->precision = (int32_t)ty->precision;
		fl->scale = (int32_t)ty->scale;
		/* no null in the file's statistics: no mask */
		fl->nullable = !(id < ft->n_statistics &&
				 ft->statistics[id]->has_hasnull &&
				 !ft->statistics[id]->hasnull);
		snprintf(from[nf], sizeof from[nf], "%s",
			 orc_tail_type_kind_name(ty->kind));
		fl->from = from[nf];
		nf++;
	}
	orc_arrays *oa = colfs_dir_alloc(t, dir, sizeof *oa);
	if (!oa)
		goto out;
	oa->f = f;
	oa->s0 = s0;
	colfs_arrays_def def = {
		.ctx = oa, .rows = arrays_rows, .unit_name = "stripe",
		.n_units = s1 - s0, .unit_rows = rows,
		.n_fields = nf, .fields = fields,
	};
	st = colfs_arrays_populate(t, dir, &def);
out:
	free(fields);
	free(from);
	free(rows);
	return st;
}

static const colfs_node_ops arrays_ops = {.populate = arrays_populate};

bool orc_arrays_any(const orc_file *f)
{
	const Orcpb__Type *root;
	colfs_array_type ty;

	if (!f->schema_ok)
		return false;
	root = f->footer->types[0];
	if (root->kind != ORCPB__TYPE__KIND__STRUCT)
		return array_type_of(root, &ty);
	for (size_t i = 0; i < root->n_subtypes; i++)
		if (root->subtypes[i] < f->n_types &&
		    array_type_of(f->footer->types[root->subtypes[i]], &ty))
			return true;
	return false;
}

colfs_node *orc_arrays_add(colfs_tree *t, orc_file *f, colfs_node *dir,
			   uint64_t a)
{
	colfs_node *n = colfs_dir_add_dir(t, dir, "arrays", &arrays_ops, f);

	if (n) {
		colfs_node_set_args(n, a, 0, 0);
		/* the values of columns/ beside it, in binary */
		colfs_node_set_derived(n);
	}
	return n;
}

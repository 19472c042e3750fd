/* colfs Arrow IPC: `arrays/` (core/arrays.c makes the .npy files; this
 * says which top-level fields are fixed-width and copies their values).
 * A unit is a record batch; its rows come from the loaded column
 * (arrow_load.c: decompressed and byte-swapped as any view's), kept in
 * one slot shared by the array files under a lock, so that the pieces
 * of one batch (65,536 rows each) load it once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/arrays.h"
#include "arrow_int.h"

typedef struct arrays_ctx {
	arrow_file *f;
	pthread_mutex_t lock;
	uint32_t bi, col;
	arrow_batch *b;
} arrays_ctx;

static bool array_type_of(const arrow_field *fl, colfs_array_type *out)
{
	if (fl->dict)
		return false;
	switch (fl->type) {
	case AT_BOOL: *out = COLFS_ARRAY_BOOL; return true;
	case AT_INT:
		switch (fl->bits) {
		case 8: *out = fl->is_signed ? COLFS_ARRAY_I8 : COLFS_ARRAY_U8; break;
		case 16: *out = fl->is_signed ? COLFS_ARRAY_I16 : COLFS_ARRAY_U16; break;
		case 32: *out = fl->is_signed ? COLFS_ARRAY_I32 : COLFS_ARRAY_U32; break;
		default: *out = fl->is_signed ? COLFS_ARRAY_I64 : COLFS_ARRAY_U64;
		}
		return true;
	case AT_FLOAT:
		*out = fl->bits == 0 ? COLFS_ARRAY_F16
		       : fl->bits == 1 ? COLFS_ARRAY_F32 : COLFS_ARRAY_F64;
		return true;
	case AT_DATE: *out = COLFS_ARRAY_DATE; return true;
	case AT_TIMESTAMP:
		*out = (colfs_array_type)(COLFS_ARRAY_TS_S + fl->unit);
		return true;
	case AT_DECIMAL:
		if (fl->bits > 64)
			return false;
		*out = COLFS_ARRAY_DECIMAL;
		return true;
	default:
		return false;
	}
}

bool arrow_arrays_any(const arrow_file *f)
{
	colfs_array_type ty;
	for (uint32_t k = 0; k < f->root.nchildren; k++)
		if (array_type_of(&f->root.children[k], &ty))
			return true;
	return false;
}

static colfs_status arrays_rows(colfs_tree *t, const colfs_node *node,
				void *vctx, const colfs_array_field *fl,
				uint32_t unit, uint64_t row0, uint64_t n,
				uint8_t *values, uint8_t *nulls)
{
	arrays_ctx *c = vctx;
	arrow_file *f = c->f;
	unsigned size = colfs_array_itemsize(fl->type);
	colfs_err err = {0};
	colfs_status st = COLFS_OK;

	(void)node;
	if (unit >= f->nbatches)
		return COLFS_ECORRUPT;
	pthread_mutex_lock(&c->lock);
	if (!c->b || c->bi != unit || c->col != fl->id) {
		arrow_batch_free(c->b);
		c->b = NULL;
		st = arrow_batch_load(f, f->batches[unit], fl->id, &c->b, &err);
		if (st) {
			char path[64];
			snprintf(path, sizeof(path), "/record_batches/%u", unit);
			colfs_tree_report_err_path(t, path, &err);
			pthread_mutex_unlock(&c->lock);
			return st;
		}
		c->bi = unit;
		c->col = fl->id;
	}
	const arrow_arr *a = &c->b->cols[fl->id];
	const arrow_field *af = a->f;
	if (row0 + n > (uint64_t)a->len) {
		pthread_mutex_unlock(&c->lock);
		return COLFS_ECORRUPT;   /* the load checked the length */
	}
	/* bytes per stored value */
	unsigned w = af->type == AT_BOOL ? 0
		     : af->type == AT_DATE ? (af->unit ? 8 : 4)
		     : af->type == AT_TIMESTAMP ? 8
		     : af->type == AT_FLOAT ? (af->bits == 0 ? 2
					       : af->bits == 1 ? 4 : 8)
					    : (unsigned)af->bits / 8;
	for (uint64_t r = 0; r < n; r++) {
		uint64_t i = row0 + r;
		uint8_t *o = values + r * size;
		if (a->b[0].p && !(a->b[0].p[i >> 3] >> (i & 7) & 1)) {
			nulls[r] = 1;
			continue;
		}
		const uint8_t *p = a->b[1].p + i * w;
		if (af->type == AT_BOOL) {
			o[0] = a->b[1].p[i >> 3] >> (i & 7) & 1;
		} else if (af->type == AT_DATE) {
			int64_t d;
			if (af->unit == 0) {
				int32_t v;
				memcpy(&v, p, 4);
				d = v;
			} else {
				int64_t ms;
				memcpy(&ms, p, 8);
				d = ms / 86400000 - (ms % 86400000 < 0);
			}
			memcpy(o, &d, 8);
		} else if (af->type == AT_DECIMAL && w == 4) {
			int32_t v;
			memcpy(&v, p, 4);
			int64_t d = v;
			memcpy(o, &d, 8);
		} else {
			memcpy(o, p, size);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return COLFS_OK;
}

/* The array files are freed: the batch they held goes too (the context
 * stays with the file, for the next listing). */
static void arrays_release(void *vctx)
{
	arrays_ctx *c = vctx;
	pthread_mutex_lock(&c->lock);
	arrow_batch_free(c->b);
	c->b = NULL;
	pthread_mutex_unlock(&c->lock);
}

void arrow_arrays_free(arrow_file *f)
{
	arrays_ctx *c = f->arrays;
	if (!c)
		return;
	arrow_batch_free(c->b);
	pthread_mutex_destroy(&c->lock);
	free(c);
	f->arrays = NULL;
}

static colfs_status arrays_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = colfs_tree_format_state(t);
	arrays_ctx *c = f->arrays;
	uint64_t *rows = calloc(f->nbatches + 1, sizeof(*rows));
	colfs_array_field *fields = calloc(f->root.nchildren + 1,
					   sizeof(*fields));
	char **from = calloc(f->root.nchildren + 1, sizeof(*from));
	size_t nf = 0;
	colfs_status st = COLFS_ENOMEM;

	if (!c && (c = calloc(1, sizeof(*c)))) {
		c->f = f;
		pthread_mutex_init(&c->lock, NULL);
		f->arrays = c;
	}
	if (!c || !rows || !fields || !from)
		goto out;
	for (uint32_t i = 0; i < f->nbatches; i++)
		rows[i] = (uint64_t)f->msgs[f->batches[i]].length;
	for (uint32_t k = 0; k < f->root.nchildren; k++) {
		const arrow_field *fl = &f->root.children[k];
		colfs_array_field *a = &fields[nf];
		if (!array_type_of(fl, &a->type))
			continue;
		colfs_buf tb = COLFS_BUF_INIT;
		arrow_type_text(&tb, fl);
		colfs_buf_putc(&tb, 0);
		from[nf] = tb.data;
		a->name = fl->name;
		a->id = k;
		a->nullable = fl->nullable;
		a->precision = fl->precision;
		a->scale = fl->scale;
		a->from = from[nf] ? from[nf] : "";
		nf++;
	}
	colfs_arrays_def def = {
		.ctx = c, .rows = arrays_rows, .release = arrays_release,
		.unit_name = "record batch", .n_units = f->nbatches,
		.unit_rows = rows, .n_fields = nf, .fields = fields,
	};
	st = colfs_arrays_populate(t, dir, &def);
out:
	for (size_t i = 0; from && i < nf; i++)
		free(from[i]);
	free(from);
	free(fields);
	free(rows);
	return st;
}

const colfs_node_ops arrow_arrays_ops = {.populate = arrays_populate};

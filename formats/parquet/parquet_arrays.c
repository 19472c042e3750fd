/* colfs: Parquet's `arrays/` (core/arrays.c makes the .npy files; this
 * says which fields have one and decodes their rows; docs/values.md,
 * "Arrays").
 *
 * A field has an array when it is a top-level flat leaf (not repeated)
 * of a fixed-width type.  Rows [row0, row0 + n) of row group g are found
 * by the data pages' num_values (a flat leaf has one entry a row), so
 * only the pages that hold them are decoded.  The last page decoded is
 * kept per field: the pieces of a page larger than a piece decode it
 * once.
 */
#include "parquet_views.h"
#include "../core/arrays.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The page a field decoded last, kept for its next piece. */
typedef struct parquet_arrays_page {
	pthread_mutex_t lock;
	bool loaded;
	uint32_t g;
	size_t k;
	parquet_pages_decoded p;
} parquet_arrays_page;

typedef struct parquet_arrays {
	parquet_pages_kept kept;    /* first: freed with the pipeline */
	parquet_region_state *s;
	uint32_t g0;                /* the first row group shown */
	uint32_t n_columns;
	parquet_arrays_page *pages; /* by leaf */
} parquet_arrays;

static void arrays_kept_free(parquet_pages_kept *k)
{
	parquet_arrays *a = (parquet_arrays *)k;

	for (uint32_t c = 0; c < a->n_columns; c++) {
		if (a->pages[c].loaded)
			parquet_pages_release(a->s->values, &a->pages[c].p);
		pthread_mutex_destroy(&a->pages[c].lock);
	}
	free(a->pages);
	free(a);
}

/* Its arrays/ listing is freed (colfs_dir_release): so is `a`, its
 * decoded pages with it (160 bytes a column, each row group's). */
static void arrays_release(void *ctx)
{
	parquet_arrays *a = ctx;

	parquet_pages_unkeep(a->s->values, &a->kept);
	arrays_kept_free(&a->kept);
}

/* The array type of leaf `e`; false when it has none. */
static bool array_type_of(const parquet_schema_elem *e, colfs_array_type *out,
			  int32_t *precision, int32_t *scale)
{
	const parquet_logical *lt = &e->logical;
	int32_t ct = e->converted_type;
	bool dec = lt->kind == PARQUET_LT_DECIMAL ||
		   (!lt->kind && ct == PARQUET_CT_DECIMAL);

	*precision = lt->kind == PARQUET_LT_DECIMAL ? lt->precision
						     : e->precision;
	*scale = lt->kind == PARQUET_LT_DECIMAL ? lt->scale : e->scale;
	if (dec) {
		if (*precision < 1 || *precision > 18)
			return false;
		if (e->type == PARQUET_INT32 || e->type == PARQUET_INT64 ||
		    (e->type == PARQUET_FIXED_LEN_BYTE_ARRAY &&
		     e->type_length >= 1 && e->type_length <= 8)) {
			*out = COLFS_ARRAY_DECIMAL;
			return true;
		}
		return false;
	}
	if (lt->kind && lt->kind != PARQUET_LT_INTEGER &&
	    lt->kind != PARQUET_LT_DATE && lt->kind != PARQUET_LT_TIMESTAMP &&
	    lt->kind != PARQUET_LT_FLOAT16)
		return false;
	switch (e->type) {
	case PARQUET_BOOLEAN:
		*out = COLFS_ARRAY_BOOL;
		return !lt->kind && ct < 0;
	case PARQUET_FLOAT:
		*out = COLFS_ARRAY_F32;
		return !lt->kind && ct < 0;
	case PARQUET_DOUBLE:
		*out = COLFS_ARRAY_F64;
		return !lt->kind && ct < 0;
	case PARQUET_INT96:
		*out = COLFS_ARRAY_TS_NS;
		return !lt->kind && ct < 0;
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		*out = COLFS_ARRAY_F16;
		return lt->kind == PARQUET_LT_FLOAT16 && e->type_length == 2;
	case PARQUET_INT32:
	case PARQUET_INT64: {
		bool i64 = e->type == PARQUET_INT64;
		int bits = i64 ? 64 : 32;
		bool sgn = true;
		if (lt->kind == PARQUET_LT_DATE ||
		    (!lt->kind && ct == PARQUET_CT_DATE)) {
			*out = COLFS_ARRAY_DATE;
			return !i64;
		}
		if (lt->kind == PARQUET_LT_TIMESTAMP) {
			if (!i64)
				return false;
			*out = lt->unit == PARQUET_UNIT_MILLIS ? COLFS_ARRAY_TS_MS
			     : lt->unit == PARQUET_UNIT_MICROS ? COLFS_ARRAY_TS_US
			     : COLFS_ARRAY_TS_NS;
			return lt->unit >= PARQUET_UNIT_MILLIS &&
			       lt->unit <= PARQUET_UNIT_NANOS;
		}
		if (!lt->kind && (ct == PARQUET_CT_TIMESTAMP_MILLIS ||
				  ct == PARQUET_CT_TIMESTAMP_MICROS)) {
			*out = ct == PARQUET_CT_TIMESTAMP_MILLIS ? COLFS_ARRAY_TS_MS
								 : COLFS_ARRAY_TS_US;
			return i64;
		}
		if (lt->kind == PARQUET_LT_INTEGER) {
			bits = lt->bit_width;
			sgn = lt->is_signed;
		} else if (ct >= PARQUET_CT_UINT_8 && ct <= PARQUET_CT_INT_64) {
			static const int b[] = {8, 16, 32, 64, 8, 16, 32, 64};
			bits = b[ct - PARQUET_CT_UINT_8];
			sgn = ct >= PARQUET_CT_INT_8;
		} else if (ct >= 0 || lt->kind) {
			return false;
		}
		if ((bits == 64) != i64)
			return false;
		switch (bits) {
		case 8: *out = sgn ? COLFS_ARRAY_I8 : COLFS_ARRAY_U8; return true;
		case 16: *out = sgn ? COLFS_ARRAY_I16 : COLFS_ARRAY_U16; return true;
		case 32: *out = sgn ? COLFS_ARRAY_I32 : COLFS_ARRAY_U32; return true;
		case 64: *out = sgn ? COLFS_ARRAY_I64 : COLFS_ARRAY_U64; return true;
		}
		return false;
	}
	}
	return false;
}

static void put_le(uint8_t *o, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		o[i] = (uint8_t)(v >> (8 * i));
}

/* Value j (among the page's non-null values) into `o` as `type`. */
static void value_put(const parquet_pages_decoded *p, size_t j,
		      colfs_array_type type, uint8_t *o)
{
	const pq_values *v = &p->vals;
	unsigned size = colfs_array_itemsize(type);

	if (v->indices) {
		v = &p->dict->vals;
		j = p->vals.v.idx[j];
	}
	switch (v->physical_type) {
	case PARQUET_BOOLEAN:
		o[0] = v->v.b[j] != 0;
		return;
	case PARQUET_INT32:
		/* narrower integers are stored sign- or zero-extended: the
		 * low bytes are the value; a date or decimal widens */
		put_le(o, (uint64_t)(int64_t)v->v.i32[j], size);
		if (type == COLFS_ARRAY_U32 || type == COLFS_ARRAY_U16 ||
		    type == COLFS_ARRAY_U8)
			put_le(o, (uint32_t)v->v.i32[j], size);
		return;
	case PARQUET_INT64:
		put_le(o, (uint64_t)v->v.i64[j], 8);
		return;
	case PARQUET_FLOAT:
		memcpy(o, &v->v.f32[j], 4);
		return;
	case PARQUET_DOUBLE:
		memcpy(o, &v->v.f64[j], 8);
		return;
	case PARQUET_INT96: {
		const pq_bytes *b = &v->v.bytes[j];
		uint64_t ns = 0;
		uint32_t day = 0;
		if (b->len != 12)
			return;
		for (int i = 7; i >= 0; i--)
			ns = ns << 8 | b->ptr[i];
		for (int i = 11; i >= 8; i--)
			day = day << 8 | b->ptr[i];
		/* Julian day 2440588 is 1970-01-01; a day out of the
		 * datetime64[ns] range wraps (in unsigned arithmetic: no
		 * signed overflow) */
		put_le(o, ((uint64_t)((int64_t)day - 2440588) *
			   86400000000000ULL) + ns, 8);
		return;
	}
	case PARQUET_FIXED_LEN_BYTE_ARRAY: {
		const pq_bytes *b = &v->v.bytes[j];
		if (type == COLFS_ARRAY_F16) {
			if (b->len == 2)
				memcpy(o, b->ptr, 2);  /* little-endian */
			return;
		}
		/* DECIMAL: big-endian two's complement, sign-extended */
		if (!b->len || b->len > 8)
			return;
		uint64_t x = b->ptr[0] & 0x80 ? UINT64_MAX : 0;
		for (uint32_t i = 0; i < b->len; i++)
			x = x << 8 | b->ptr[i];
		put_le(o, x, 8);
		return;
	}
	}
}

static colfs_status arrays_rows(colfs_tree *t, const colfs_node *f, void *ctx,
				const colfs_array_field *fl, uint32_t unit,
				uint64_t row0, uint64_t n, uint8_t *values,
				uint8_t *nulls)
{
	parquet_arrays *a = ctx;
	parquet_region_state *s = a->s;
	uint32_t g = a->g0 + unit, c = fl->id;
	unsigned size = colfs_array_itemsize(fl->type);
	parquet_arrays_page *kp = &a->pages[c];
	const parquet_pages_list *w;
	colfs_status st = COLFS_OK;
	uint64_t rec = 0, done = 0;
	size_t k = 0;

	COLFS_TRY(parquet_pages_list_get(t, s, f, g, c, &w));
	if (!w) {
		colfs_tree_report(t, f, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				  "row group %u has no chunk for column %u", g, c);
		return COLFS_ECORRUPT;
	}
	pthread_mutex_lock(&kp->lock);
	while (done < n) {
		const parquet_page *pg = NULL;
		/* the data page holding row row0 + done */
		for (; k < w->n; k++) {
			pg = &w->pages[k];
			if (!parquet_pages_is_data(pg))
				continue;
			uint64_t nv = pg->hdr.num_values > 0
				      ? (uint64_t)pg->hdr.num_values : 0;
			if (rec + nv > row0 + done)
				break;
			rec += nv;
		}
		if (k >= w->n) {
			colfs_err e = {0};
			colfs_fail(&e, COLFS_ECORRUPT, w->stop.status ? w->stop.offset : COLFS_OFFSET_UNKNOWN,
				   "row group %u, column %u: %s", g, c,
				   w->stop.status ? "the page walk stopped early: values are missing"
						  : "the chunk holds fewer values than the row group's rows");
			parquet_region_part_report(t, s, g, c, PARQUET_REGION_NO_PAGE, f, &e);
			st = COLFS_ECORRUPT;
			break;
		}
		if (!kp->loaded || kp->g != g || kp->k != k) {
			if (kp->loaded)
				parquet_pages_release(s->values, &kp->p);
			kp->loaded = false;
			st = parquet_pages_decode(t, s, f, g, c, w, k, NULL, &kp->p);
			if (st && st != COLFS_ENOMEM && st != COLFS_EIO &&
			    colfs_tree_options(t)->on_damage != COLFS_ON_DAMAGE_ERROR) {
				/* -o on_damage: the page's rows read as NULL
				 * (an array keeps every row) */
				pg = &w->pages[k];
				uint64_t end = rec + (uint64_t)pg->hdr.num_values;
				uint64_t from = row0 + done;
				if (end > row0 + n)
					end = row0 + n;
				memset(nulls + done, 1, (size_t)(end - from));
				colfs_tree_report(t, f, pg->offset, st,
						  "rows %llu to %llu of row group %u "
						  "(page %zu) read as NULL: on_damage",
						  (unsigned long long)from,
						  (unsigned long long)(end - 1), g, k);
				done += end - from;
				rec += (uint64_t)pg->hdr.num_values;
				k++;
				st = COLFS_OK;
				continue;
			}
			if (st)
				break;
			kp->loaded = true;
			kp->g = g;
			kp->k = k;
		}
		const parquet_pages_decoded *p = &kp->p;
		size_t i0 = (size_t)(row0 + done - rec), j = 0;
		pg = &w->pages[k];
		if (p->n != (size_t)pg->hdr.num_values || i0 >= p->n) {
			colfs_err e = {0};
			colfs_fail(&e, COLFS_ECORRUPT, pg->offset,
				   "row group %u, column %u: page %zu holds %zu "
				   "entries, its header says %d", g, c, k, p->n,
				   pg->hdr.num_values);
			parquet_region_part_report(t, s, g, c, k, f, &e);
			st = COLFS_ECORRUPT;
			break;
		}
		if (p->def)
			for (size_t i = 0; i < i0; i++)
				j += p->def[i] == p->max_def;
		else
			j = i0;
		for (size_t i = i0; i < p->n && done < n; i++, done++) {
			if (p->def && p->def[i] != p->max_def) {
				nulls[done] = 1;
				continue;
			}
			if (j >= p->nonnull)
				break;   /* the decoder counted them: not reached */
			value_put(p, j++, fl->type, values + done * size);
		}
		if (done < n) {
			/* the next page: past this one */
			rec += (uint64_t)pg->hdr.num_values;
			k++;
		}
	}
	/* a page that ends the chunk is not kept */
	if (kp->loaded && (st || done == n) && kp->k + 1 >= w->n) {
		parquet_pages_release(s->values, &kp->p);
		kp->loaded = false;
	}
	pthread_mutex_unlock(&kp->lock);
	return st;
}

/* arrays/: a = g + 1 (0: every row group of the table) */
static colfs_status arrays_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	const parquet_file *pf = s->pf;
	int64_t g = (int64_t)colfs_node_a(dir) - 1;
	uint32_t g0 = g < 0 ? 0 : (uint32_t)g;
	uint32_t g1 = g >= 0 ? (uint32_t)g + 1
		    : s->synthetic ? s->table_groups : pf->n_row_groups;
	parquet_arrays *a = calloc(1, sizeof *a);
	colfs_array_field *fields = NULL;
	uint64_t *rows = NULL;
	size_t nf = 0;
	colfs_status st = COLFS_ENOMEM;

	if (!a)
		return COLFS_ENOMEM;
	a->s = s;
	a->g0 = g0;
	a->n_columns = pf->n_columns;
	a->pages = calloc(pf->n_columns ? pf->n_columns : 1, sizeof *a->pages);
	if (!a->pages) {
		free(a);
		return COLFS_ENOMEM;
	}
	for (uint32_t c = 0; c < pf->n_columns; c++)
		pthread_mutex_init(&a->pages[c].lock, NULL);
	a->kept.free = arrays_kept_free;
	parquet_pages_keep(s->values, &a->kept);

	fields = calloc(pf->n_schema ? pf->n_schema : 1, sizeof *fields);
	rows = calloc((size_t)(g1 > g0 ? g1 - g0 : 1), sizeof *rows);
	char (*from)[64] = calloc(pf->n_schema ? pf->n_schema : 1, sizeof *from);
	if (!fields || !rows || !from)
		goto out;
	for (uint32_t u = g0; u < g1; u++)
		rows[u - g0] = pf->row_groups[u].num_rows > 0
			       ? (uint64_t)pf->row_groups[u].num_rows : 0;
	for (uint32_t i = 1; i < pf->n_schema; i++) {
		const parquet_schema_elem *e = &pf->schema[i];
		colfs_array_field *fl = &fields[nf];
		if (e->parent != 0 || e->leaf < 0 ||
		    (uint32_t)e->leaf >= pf->n_columns ||
		    pf->columns[e->leaf].max_rep != 0 ||
		    e->repetition == PARQUET_REPEATED)
			continue;
		if (!array_type_of(e, &fl->type, &fl->precision, &fl->scale))
			continue;
		const char *tn = parquet_type_name(e->type);
		const char *an = e->logical.kind == PARQUET_LT_INTEGER ? "INTEGER"
			       : e->logical.kind == PARQUET_LT_DATE ? "DATE"
			       : e->logical.kind == PARQUET_LT_TIMESTAMP ? "TIMESTAMP"
			       : e->logical.kind == PARQUET_LT_DECIMAL ? "DECIMAL"
			       : e->logical.kind == PARQUET_LT_FLOAT16 ? "FLOAT16"
			       : parquet_converted_name(e->converted_type);
		snprintf(from[nf], sizeof from[nf], "%s%s%s",
			 tn ? tn : "?", an ? " " : "", an ? an : "");
		fl->name = e->name;
		fl->id = (uint32_t)e->leaf;
		fl->nullable = pf->columns[e->leaf].max_def > 0;
		fl->from = from[nf];
		nf++;
	}
	colfs_arrays_def def = {
		.ctx = a, .rows = arrays_rows, .release = arrays_release,
		.unit_name = "row group",
		.n_units = g1 > g0 ? g1 - g0 : 0, .unit_rows = rows,
		.n_fields = nf, .fields = fields,
	};
	st = colfs_arrays_populate(t, dir, &def);
out:
	free(fields);
	free(rows);
	free(from);
	return st;
}

static const colfs_node_ops arrays_ops = {.populate = arrays_populate};

colfs_status parquet_arrays_add(colfs_tree *t, colfs_node *dir,
				parquet_region_state *s, int64_t g)
{
	colfs_node *n = colfs_dir_add_dir(t, dir, "arrays", &arrays_ops, s);

	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, (uint64_t)(g + 1), 0, 0);
	/* the values of columns/ beside it, in binary */
	colfs_node_set_derived(n);
	return COLFS_OK;
}

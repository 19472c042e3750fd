/* colfs: row_groups/N/chunks/<path>/verify, the cross-check of a column
 * chunk's metadata against its decoded data (docs/parquet-tree.md).
 *
 * Reading `verify` decodes every data page of the chunk, one page at a
 * time, and compares what it finds with what the file claims:
 *   - the rows (record starts) against the row group's num_rows;
 *   - Statistics: null_count (every entry below max_def, or a writer's
 *     known other count: null_count_ok, duckdb_null_count) and nan_count
 *     exactly; min_value/max_value (and the
 *     deprecated min/max for numeric types) as bounds of the decoded values
 *     under the column's sort order, exactly when is_*_value_exact says so;
 *     floats under IEEE_754_TOTAL_ORDER by that order (NaNs left out of the
 *     bounds unless every value is NaN; -0 below +0);
 *   - the ColumnIndex, page by page: null_pages, null_counts, nan_counts,
 *     min/max as bounds, boundary_order;
 *   - the OffsetIndex, page by page: offset, compressed_page_size and
 *     first_row_index against the walked pages.
 * Each disagreement is reported under the chunk (so `errors` lists it) and
 * written into the document; the document itself is always produced. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/render.h"
#include "../core/thrift.h"
#include "parquet_pages.h"
#include "parquet_verify.h"
#include "parquet_crypt.h"

enum vf_order {
	ORD_NONE = 0,   /* INT96, INTERVAL: no defined order */
	ORD_BOOL, ORD_SIGNED, ORD_UNSIGNED, ORD_FLOAT, ORD_BYTES,
	ORD_DECIMAL,    /* big-endian two's complement */
	ORD_FLOAT16,
	ORD_INT96,      /* INT96_TIMESTAMP_ORDER: Julian day, then nanoseconds */
	ORD_TOTAL,      /* IEEE_754_TOTAL_ORDER of FLOAT, DOUBLE, FLOAT16:
			 * -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN */
};

/* Problems reported per chunk before the rest are only counted. */
#define VF_MAX_REPORTS 32

typedef struct vf_bytes {
	const uint8_t *p;
	size_t len;
	bool set;
} vf_bytes;

/* A copy of one value's PLAIN bytes. */
typedef struct vf_val {
	uint8_t *p;
	size_t len, cap;
	bool set;
} vf_val;

typedef struct vf_index {        /* ColumnIndex + OffsetIndex, parsed */
	uint8_t *ci_buf;
	uint64_t ci_off;
	bool has_ci, has_oi;
	uint32_t n_ci;
	bool *null_pages;
	vf_bytes *mins, *maxs;
	int64_t *null_counts;    /* NULL when absent */
	int64_t *nan_counts;     /* NULL when absent */
	int32_t boundary_order;  /* 0 unordered, 1 ascending, 2 descending */
	parquet_offset_index oi;
} vf_index;

typedef struct vf {
	colfs_tree *t;
	parquet_region_state *s;
	const colfs_node *where;      /* the chunk directory */
	const parquet_chunk *ch;
	pq_type type;
	enum vf_order order;
	colfs_buf *out;
	unsigned problems;
	vf_index ix;
	/* running totals */
	uint64_t pages, entries, nulls, values, rows;
	uint64_t leaf_nulls;               /* def == max_def - 1 only */
	/* DuckDB's count of a leaf under a list: it counts the null structs
	 * between the innermost repeated ancestor and the leaf twice */
	uint32_t rep_def;                  /* that ancestor's def, 0: none */
	bool duckdb;                       /* created_by names DuckDB */
	uint64_t struct_nulls;             /* rep_def <= def < max_def - 1 */
	uint64_t nans;                     /* FLOAT/DOUBLE/FLOAT16 NaNs */
	bool nested;                       /* max_def > 1: two null counts */
	vf_val min, max;                   /* of the chunk */
	vf_val nan_min, nan_max;           /* ORD_TOTAL: of its NaNs */
	vf_val prev_min, prev_max;         /* of the previous non-null page */
	bool asc_ok, desc_ok;
	unsigned ci_bad, oi_bad;           /* page problems of each index */
} vf;

/* --- values: PLAIN bytes, ordering, rendering ----------------------------- */

static enum vf_order order_of(const pq_type *t)
{
	switch (t->physical) {
	case 0: return ORD_BOOL;
	case 1: case 2:
		if ((t->logical == 10 && !t->is_signed) ||
		    (t->logical == 0 && t->converted >= 11 &&
		     t->converted <= 14))
			return ORD_UNSIGNED;
		return ORD_SIGNED;
	case 4: case 5: return ORD_FLOAT;
	case 6: case 7:
		if (t->logical == 5 || (t->logical == 0 && t->converted == 5))
			return ORD_DECIMAL;
		if (t->logical == 15)
			return ORD_FLOAT16;
		if (t->logical == 0 && t->converted == 21)
			return ORD_NONE;        /* INTERVAL */
		return ORD_BYTES;
	default: return ORD_NONE;       /* INT96 */
	}
}

static size_t fixed_width(int32_t physical)
{
	return physical == 0 ? 1 : physical == 1 || physical == 4 ? 4 :
	       physical == 2 || physical == 5 ? 8 : 0;
}

/* Value j of a decoded page as PLAIN bytes (booleans one byte). */
static void plain_at(const parquet_pages_data *pd, size_t j, uint8_t tmp[8],
		     const uint8_t **p, size_t *len)
{
	const pq_values *v = pd->vals;
	size_t i = pd->idx ? pd->idx[j] : j;
	uint64_t u = 0;

	switch (v->physical_type) {
	case 0: tmp[0] = v->v.b[i] != 0; *p = tmp; *len = 1; return;
	case 1: u = (uint32_t)v->v.i32[i]; *len = 4; break;
	case 2: u = (uint64_t)v->v.i64[i]; *len = 8; break;
	case 4: { uint32_t x; memcpy(&x, &v->v.f32[i], 4); u = x; *len = 4; break; }
	case 5: memcpy(&u, &v->v.f64[i], 8); *len = 8; break;
	default:
		*p = v->v.bytes[i].ptr;
		*len = v->v.bytes[i].len;
		return;
	}
	for (size_t k = 0; k < *len; k++)
		tmp[k] = (uint8_t)(u >> (8 * k));
	*p = tmp;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t u = 0;
	for (size_t k = 0; k < n; k++)
		u |= (uint64_t)p[k] << (8 * k);
	return u;
}

static double float_of(int32_t physical, const uint8_t *p)
{
	if (physical == 4) {
		uint32_t x = (uint32_t)le(p, 4);
		float f;
		memcpy(&f, &x, 4);
		return f;
	}
	uint64_t x = le(p, 8);
	double d;
	memcpy(&d, &x, 8);
	return d;
}

static int sign_of_be(const uint8_t *p, size_t n)
{
	return n && (p[0] & 0x80) ? -1 : 1;
}

/* The key of a float's bits (`bits` wide) whose unsigned order is the
 * IEEE 754 total order: negatives have every bit flipped, the rest the
 * sign bit set. */
static uint64_t total_key(uint64_t u, unsigned bits)
{
	const uint64_t sign = (uint64_t)1 << (bits - 1);
	const uint64_t all = bits == 64 ? ~(uint64_t)0 : (sign << 1) - 1;

	return u & sign ? ~u & all : u | sign;
}

/* The bytes of a float value (FLOAT, DOUBLE or FLOAT16) are a NaN. */
static bool plain_is_nan(const vf *v, const uint8_t *p, size_t len)
{
	if (v->order == ORD_FLOAT16 ||
	    (v->order == ORD_TOTAL && v->type.physical >= 6))
		return len == 2 &&
		       isnan(colfs_float16_to_float((uint16_t)le(p, 2)));
	if (v->order == ORD_FLOAT || v->order == ORD_TOTAL)
		return len == fixed_width(v->type.physical) &&
		       isnan(float_of(v->type.physical, p));
	return false;
}

/* -1, 0, 1; 2 when the two cannot be compared (a NaN, a wrong length). */
static int vf_cmp(const vf *v, const uint8_t *a, size_t al, const uint8_t *b,
		  size_t bl)
{
	const int32_t ph = v->type.physical;
	size_t w = fixed_width(ph);

	if (w && (al != w || bl != w))
		return 2;
	switch (v->order) {
	case ORD_BOOL:
		return (a[0] != 0) - (b[0] != 0);
	case ORD_SIGNED: {
		int64_t x = ph == 1 ? (int32_t)le(a, 4) : (int64_t)le(a, 8);
		int64_t y = ph == 1 ? (int32_t)le(b, 4) : (int64_t)le(b, 8);
		return (x > y) - (x < y);
	}
	case ORD_UNSIGNED: {
		uint64_t x = le(a, w), y = le(b, w);
		return (x > y) - (x < y);
	}
	case ORD_FLOAT: {
		double x = float_of(ph, a), y = float_of(ph, b);
		if (isnan(x) || isnan(y))
			return 2;
		return (x > y) - (x < y);
	}
	case ORD_INT96: {
		if (al != 12 || bl != 12)
			return 2;
		/* parquet.thrift: the days, then the nanoseconds, each a
		 * signed little-endian integer */
		int32_t da = (int32_t)(uint32_t)le(a + 8, 4);
		int32_t db = (int32_t)(uint32_t)le(b + 8, 4);
		int64_t na = (int64_t)le(a, 8), nb = (int64_t)le(b, 8);
		if (da != db)
			return da < db ? -1 : 1;
		return (na > nb) - (na < nb);
	}
	case ORD_TOTAL: {
		const size_t n = ph >= 6 ? 2 : w;
		if (al != n || bl != n)
			return 2;
		uint64_t x = total_key(le(a, n), 8 * (unsigned)n);
		uint64_t y = total_key(le(b, n), 8 * (unsigned)n);
		return (x > y) - (x < y);
	}
	case ORD_FLOAT16: {
		if (al != 2 || bl != 2)
			return 2;
		float x = colfs_float16_to_float((uint16_t)le(a, 2));
		float y = colfs_float16_to_float((uint16_t)le(b, 2));
		if (isnan(x) || isnan(y))
			return 2;
		return (x > y) - (x < y);
	}
	case ORD_BYTES: {
		/* (an empty value may come with a NULL pointer) */
		int c = al && bl ? memcmp(a, b, al < bl ? al : bl) : 0;
		if (c)
			return c < 0 ? -1 : 1;
		return (al > bl) - (al < bl);
	}
	case ORD_DECIMAL: {
		int sa = sign_of_be(a, al), sb = sign_of_be(b, bl);
		if (sa != sb)
			return sa < sb ? -1 : 1;
		/* same sign: sign-extend to one width, compare unsigned */
		size_t n = al > bl ? al : bl;
		for (size_t k = 0; k < n; k++) {
			uint8_t fill = sa < 0 ? 0xff : 0;
			uint8_t x = k + al < n ? fill : a[k + al - n];
			uint8_t y = k + bl < n ? fill : b[k + bl - n];
			if (x != y)
				return x < y ? -1 : 1;
		}
		return 0;
	}
	default:
		return 2;
	}
}

static bool val_set(vf_val *d, const uint8_t *p, size_t len)
{
	if (len > d->cap) {
		uint8_t *n = realloc(d->p, len);
		if (!n)
			return false;
		d->p = n;
		d->cap = len;
	}
	if (len)
		memcpy(d->p, p, len);
	d->len = len;
	d->set = true;
	return true;
}

/* The text of a PLAIN value, as the value files show it. */
static void render_plain(colfs_buf *b, const vf *v, const uint8_t *p,
			 size_t len)
{
	pq_values pv = {.physical_type = v->type.physical, .count = 1};
	uint8_t bo;
	int32_t i32;
	int64_t i64;
	float f;
	double d;
	pq_bytes by = {p, (uint32_t)len};
	size_t w = fixed_width(v->type.physical);

	if (w && len != w) {
		colfs_buf_printf(b, "(%zu bytes, not a %zu-byte value)", len, w);
		return;
	}
	switch (v->type.physical) {
	case 0: bo = p[0] != 0; pv.v.b = &bo; break;
	case 1: i32 = (int32_t)le(p, 4); pv.v.i32 = &i32; break;
	case 2: i64 = (int64_t)le(p, 8); pv.v.i64 = &i64; break;
	case 4: f = (float)float_of(4, p); pv.v.f32 = &f; break;
	case 5: d = float_of(5, p); pv.v.f64 = &d; break;
	default: pv.v.bytes = &by; break;
	}
	if (v->type.physical >= 6 && len > 64) {
		by.len = 64;
		pq_render_value(b, &colfs_render_text_default, &v->type, &pv, 0);
		colfs_buf_puts(b, "...");
		return;
	}
	pq_render_value(b, &colfs_render_text_default, &v->type, &pv, 0);
}

/* --- reporting -------------------------------------------------------------- */

/* A line of the document (core/verify.h). */
#define vf_line(v, ...) colfs_verify_line((v)->out, __VA_ARGS__)

static const colfs_verify_style vf_style = {
	"metadata disagrees with the data", VF_MAX_REPORTS, true};

/* A mismatch: a MISMATCH: line and a problem (core/verify.h). */
#define vf_problem(v, off, ...) \
	colfs_verify_mismatch((v)->t, (v)->where, (v)->out, &vf_style, \
			      &(v)->problems, (off), __VA_ARGS__)

/* A value of a bound: as the value files show it; under the total order
 * a NaN or a zero with its sign and bits too (the order tells them apart,
 * the text does not). */
static void render_bound(colfs_buf *b, const vf *v, const uint8_t *p,
			 size_t len)
{
	render_plain(b, v, p, len);
	if (v->order != ORD_TOTAL || (len != 2 && len != 4 && len != 8))
		return;
	const uint64_t u = le(p, len);
	const uint64_t sign = (uint64_t)1 << (8 * len - 1);
	if (plain_is_nan(v, p, len) || (u & ~sign) == 0)
		colfs_buf_printf(b, " (%s, bits %0*llx)",
				 u & sign ? "negative" : "positive",
				 (int)(2 * len), (unsigned long long)u);
}

/* "what VALUE, decoded VALUE" text for a bound that does not hold. */
static void bound_text(vf *v, colfs_buf *b, const uint8_t *claim,
		       size_t clen, const vf_val *got)
{
	render_bound(b, v, claim, clen);
	colfs_buf_puts(b, ", decoded ");
	render_bound(b, v, got->p, got->len);
	colfs_buf_putc(b, '\0');
}

/* Check `claim` as a lower (is_min) or upper bound of `got`; exact means
 * it must equal.  Returns false when it does not hold (and reports). */
static void check_bound(vf *v, uint64_t off, const char *what, bool is_min,
			bool exact, const uint8_t *claim, size_t clen,
			const vf_val *got)
{
	int c;

	if (!got->set || v->order == ORD_NONE)
		return;
	c = vf_cmp(v, claim, clen, got->p, got->len);
	if (c == 2)
		return;
	if ((is_min && c > 0) || (!is_min && c < 0) || (exact && c != 0)) {
		colfs_buf b = COLFS_BUF_INIT;
		bound_text(v, &b, claim, clen, got);
		vf_problem(v, off, "%s%s is %s the %s of the data (%s)", what,
			   exact ? " (exact)" : "",
			   exact ? "not" : is_min ? "above" : "below",
			   is_min ? "minimum" : "maximum",
			   b.data ? b.data : "");
		colfs_buf_free(&b);
	}
}

/* --- the indexes -------------------------------------------------------- */

static void index_free(vf_index *ix)
{
	free(ix->ci_buf);
	free(ix->null_pages);
	free(ix->mins);
	free(ix->maxs);
	free(ix->null_counts);
	free(ix->nan_counts);
	parquet_offset_index_free(&ix->oi);
}

/* A list of binaries into `out` (count checked against `*n`). */
static colfs_status read_bin_list(colfs_thrift *r, vf_bytes **out,
				  uint32_t *n, colfs_err *e)
{
	uint8_t et;
	uint32_t cnt;

	COLFS_TRY(colfs_thrift_list_begin(r, &et, &cnt, e));
	free(*out);
	*out = calloc(cnt ? cnt : 1, sizeof **out);
	if (!*out)
		return COLFS_ENOMEM;
	for (uint32_t i = 0; i < cnt; i++) {
		COLFS_TRY(colfs_thrift_read_binary(r, et, &(*out)[i].p,
						   &(*out)[i].len, e));
		(*out)[i].set = true;
	}
	colfs_thrift_collection_leave(r);
	*n = cnt;
	return COLFS_OK;
}

static colfs_status parse_column_index(vf *v, colfs_err *e)
{
	vf_index *ix = &v->ix;
	const parquet_chunk *ch = v->ch;
	uint32_t n_np = 0, n_min = 0, n_max = 0, n_nc = 0, n_nan = 0;
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	int16_t last;
	colfs_status st;

	size_t ci_len;
	ix->ci_off = (uint64_t)ch->column_index_offset;
	COLFS_TRY(parquet_crypt_read(v->s, ch, PARQUET_CRYPT_COLUMN_INDEX,
				     ix->ci_off,
				     (uint64_t)ch->column_index_length,
				     &ix->ci_buf, &ci_len, e));
	colfs_cursor_init(&c, ix->ci_buf, ci_len, ix->ci_off);
	colfs_thrift_init(&r, &c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, e));
	while ((st = colfs_thrift_field_next(&r, &last, &f, e)) == COLFS_OK) {
		uint8_t et;
		uint32_t cnt;
		if (f.id == 1 && f.type == COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_list_begin(&r, &et, &cnt, e));
			free(ix->null_pages);
			ix->null_pages = calloc(cnt ? cnt : 1, sizeof(bool));
			if (!ix->null_pages)
				return COLFS_ENOMEM;
			for (uint32_t i = 0; i < cnt; i++)
				COLFS_TRY(colfs_thrift_read_bool_elem(
					&r, &ix->null_pages[i], e));
			colfs_thrift_collection_leave(&r);
			n_np = cnt;
		} else if (f.id == 2 && f.type == COLFS_THRIFT_LIST) {
			COLFS_TRY(read_bin_list(&r, &ix->mins, &n_min, e));
		} else if (f.id == 3 && f.type == COLFS_THRIFT_LIST) {
			COLFS_TRY(read_bin_list(&r, &ix->maxs, &n_max, e));
		} else if (f.id == 4 && f.type != COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type,
							&ix->boundary_order, e));
		} else if (f.id == 5 && f.type == COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_list_begin(&r, &et, &cnt, e));
			free(ix->null_counts);
			ix->null_counts = calloc(cnt ? cnt : 1, sizeof(int64_t));
			if (!ix->null_counts)
				return COLFS_ENOMEM;
			for (uint32_t i = 0; i < cnt; i++)
				COLFS_TRY(colfs_thrift_read_i64(
					&r, et, &ix->null_counts[i], e));
			colfs_thrift_collection_leave(&r);
			n_nc = cnt;
		} else if (f.id == 8 && f.type == COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_list_begin(&r, &et, &cnt, e));
			free(ix->nan_counts);
			ix->nan_counts = calloc(cnt ? cnt : 1, sizeof(int64_t));
			if (!ix->nan_counts)
				return COLFS_ENOMEM;
			for (uint32_t i = 0; i < cnt; i++)
				COLFS_TRY(colfs_thrift_read_i64(
					&r, et, &ix->nan_counts[i], e));
			colfs_thrift_collection_leave(&r);
			n_nan = cnt;
		} else {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, e));
		}
	}
	if (st != COLFS_END)
		return st;
	if (!ix->null_pages || !ix->mins || !ix->maxs || n_min != n_np ||
	    n_max != n_np || (ix->null_counts && n_nc != n_np) ||
	    (ix->nan_counts && n_nan != n_np)) {
		vf_problem(v, ix->ci_off,
			   "column index lists differ in length: null_pages %u, min_values %u, max_values %u, null_counts %u, nan_counts %u",
			   n_np, n_min, n_max, n_nc, n_nan);
		return COLFS_ECORRUPT;
	}
	ix->n_ci = n_np;
	ix->has_ci = true;
	return COLFS_OK;
}

static colfs_status parse_offset_index(vf *v, colfs_err *e)
{
	colfs_status st = parquet_offset_index_read(v->s, v->ch, &v->ix.oi, e);

	v->ix.has_oi = st == COLFS_OK;
	return st;
}

/* A null count agrees: every entry below max_def, or, for nested columns,
 * only the nulls of the leaf itself (def = max_def - 1), which is what
 * some writers count (parquet-cpp 1.5). */
static bool null_count_ok(const vf *v, int64_t claim, uint64_t nulls,
			  uint64_t leaf_nulls)
{
	return claim == (int64_t)nulls ||
	       (v->nested && claim == (int64_t)leaf_nulls);
}

/* DuckDB (up to at least 1.5) writes, for a leaf under a struct under a
 * list or map, a chunk null_count that counts each null struct below the
 * innermost list twice (once as its parent's null, once as the null of
 * the leaf's own vector): every entry with def below max_def, plus again
 * those with rep_def <= def < max_def - 1.  Its data is right; the
 * statistics say how many entries are null only after that is taken
 * away, so `verify` takes it away (and says so) for files DuckDB wrote
 * rather than file a problem on every such healthy file. */
static bool duckdb_null_count(const vf *v, int64_t claim)
{
	return v->duckdb && v->struct_nulls > 0 &&
	       claim == (int64_t)(v->nulls + v->struct_nulls);
}

/* The def level at which the column's innermost repeated ancestor (or
 * the leaf itself) is present; 0 when nothing above it repeats. */
static uint32_t rep_def_of(const parquet_file *pf, uint32_t column)
{
	if (column >= pf->n_columns || pf->columns[column].max_rep == 0)
		return 0;
	uint32_t i = pf->columns[column].schema_index;
	for (uint32_t hops = 0; i < pf->n_schema && hops <= pf->n_schema;
	     hops++) {
		const parquet_schema_elem *el = &pf->schema[i];
		if (el->repetition == 2)
			return el->max_def > 0 ? (uint32_t)el->max_def : 0;
		if (el->parent < 0)
			break;
		i = (uint32_t)el->parent;
	}
	return 0;
}

/* The column's values are floats, whose NaNs nan_count counts. */
static bool counts_nans(const vf *v)
{
	return v->order == ORD_FLOAT || v->order == ORD_FLOAT16 ||
	       v->order == ORD_TOTAL;
}

/* --- per page ------------------------------------------------------------- */

static colfs_status vf_page(void *ctx, const parquet_pages_data *pd)
{
	vf *v = ctx;
	const uint32_t i = (uint32_t)v->pages;
	uint64_t nulls = 0, leaf_nulls = 0, rows = 0, nans = 0;
	vf_val pmin = {0}, pmax = {0};
	vf_val nmin = {0}, nmax = {0};  /* ORD_TOTAL: the page's NaNs */
	bool ok = true;

	for (size_t k = 0; k < pd->n; k++) {
		nulls += pd->def && pd->def[k] < pd->max_def;
		leaf_nulls += pd->def && pd->def[k] + 1 == pd->max_def;
		v->struct_nulls += pd->def && v->rep_def &&
				   pd->def[k] >= v->rep_def &&
				   pd->def[k] + 1 < pd->max_def;
		rows += !pd->rep || pd->rep[k] == 0;
	}
	for (size_t j = 0; j < pd->nonnull && v->order != ORD_NONE && ok;
	     j++) {
		uint8_t tmp[8];
		const uint8_t *p;
		size_t len;
		plain_at(pd, j, tmp, &p, &len);
		const bool nan = plain_is_nan(v, p, len);
		nans += nan;
		/* under the total order NaNs are left out of the bounds
		 * unless every value is NaN (then the smallest and the
		 * largest NaN are) */
		vf_val *lo = nan && v->order == ORD_TOTAL ? &nmin : &pmin;
		vf_val *hi = nan && v->order == ORD_TOTAL ? &nmax : &pmax;
		if ((!lo->set || vf_cmp(v, p, len, lo->p, lo->len) == -1) &&
		    !val_set(lo, p, len))
			ok = false;
		if ((!hi->set || vf_cmp(v, p, len, hi->p, hi->len) == 1) &&
		    !val_set(hi, p, len))
			ok = false;
		/* a NaN as the first value: let the next one replace it */
		if (pmin.set && vf_cmp(v, pmin.p, pmin.len, pmin.p, pmin.len) == 2)
			pmin.set = pmax.set = false;
	}
	/* offset index entry i describes data page i */
	const unsigned p0 = v->problems;
	if (v->ix.has_oi && i < v->ix.oi.n) {
		const uint64_t size = pd->pg->hdr.header_len +
				      (uint64_t)pd->pg->hdr.compressed_size;
		if (v->ix.oi.offset[i] != (int64_t)pd->pg->offset ||
		    v->ix.oi.size[i] != (int64_t)size)
			vf_problem(v, v->ix.oi.off,
				   "offset index page %u: offset %lld, %d bytes; the page is at %llu, %llu bytes",
				   i, (long long)v->ix.oi.offset[i],
				   v->ix.oi.size[i],
				   (unsigned long long)pd->pg->offset,
				   (unsigned long long)size);
		if (v->ix.oi.first_row[i] != (int64_t)v->rows)
			vf_problem(v, v->ix.oi.off,
				   "offset index page %u: first_row_index %lld, the page starts at row %llu",
				   i, (long long)v->ix.oi.first_row[i],
				   (unsigned long long)v->rows);
	}
	v->oi_bad += v->problems - p0;
	const unsigned p1 = v->problems;
	if (v->ix.has_ci && i < v->ix.n_ci) {
		const bool null_page = pd->nonnull == 0;
		if (v->ix.null_pages[i] != null_page)
			vf_problem(v, v->ix.ci_off,
				   "column index page %u: null_pages says %s, the page has %zu values",
				   i, v->ix.null_pages[i] ? "true" : "false",
				   pd->nonnull);
		if (v->ix.null_counts && v->ix.null_counts[i] >= 0 &&
		    !null_count_ok(v, v->ix.null_counts[i], nulls, leaf_nulls))
			vf_problem(v, v->ix.ci_off,
				   "column index page %u: null_counts %lld, the page has %llu nulls",
				   i, (long long)v->ix.null_counts[i],
				   (unsigned long long)nulls);
		if (v->ix.nan_counts && v->ix.nan_counts[i] >= 0 &&
		    counts_nans(v) && (uint64_t)v->ix.nan_counts[i] != nans)
			vf_problem(v, v->ix.ci_off,
				   "column index page %u: nan_counts %lld, the page has %llu NaNs",
				   i, (long long)v->ix.nan_counts[i],
				   (unsigned long long)nans);
		if (!v->ix.null_pages[i] && !null_page) {
			char what[64];
			const bool all_nan = !pmin.set && nmin.set;
			snprintf(what, sizeof what, "column index page %u min", i);
			check_bound(v, v->ix.ci_off, what, true, false,
				    v->ix.mins[i].p, v->ix.mins[i].len,
				    all_nan ? &nmin : &pmin);
			snprintf(what, sizeof what, "column index page %u max", i);
			check_bound(v, v->ix.ci_off, what, false, false,
				    v->ix.maxs[i].p, v->ix.maxs[i].len,
				    all_nan ? &nmax : &pmax);
			/* boundary_order over the stated bounds */
			if (v->prev_min.set) {
				int a = vf_cmp(v, v->prev_min.p, v->prev_min.len,
					       v->ix.mins[i].p, v->ix.mins[i].len);
				int b = vf_cmp(v, v->prev_max.p, v->prev_max.len,
					       v->ix.maxs[i].p, v->ix.maxs[i].len);
				if (a == 1 || b == 1)
					v->asc_ok = false;
				if (a == -1 || b == -1)
					v->desc_ok = false;
			}
			if (!val_set(&v->prev_min, v->ix.mins[i].p,
				     v->ix.mins[i].len) ||
			    !val_set(&v->prev_max, v->ix.maxs[i].p,
				     v->ix.maxs[i].len))
				ok = false;
		}
	}
	v->ci_bad += v->problems - p1;
	if (pmin.set && (!v->min.set ||
			 vf_cmp(v, pmin.p, pmin.len, v->min.p, v->min.len) == -1))
		ok = val_set(&v->min, pmin.p, pmin.len) && ok;
	if (pmax.set && (!v->max.set ||
			 vf_cmp(v, pmax.p, pmax.len, v->max.p, v->max.len) == 1))
		ok = val_set(&v->max, pmax.p, pmax.len) && ok;
	if (nmin.set && (!v->nan_min.set ||
			 vf_cmp(v, nmin.p, nmin.len, v->nan_min.p,
				v->nan_min.len) == -1))
		ok = val_set(&v->nan_min, nmin.p, nmin.len) && ok;
	if (nmax.set && (!v->nan_max.set ||
			 vf_cmp(v, nmax.p, nmax.len, v->nan_max.p,
				v->nan_max.len) == 1))
		ok = val_set(&v->nan_max, nmax.p, nmax.len) && ok;
	free(pmin.p);
	free(pmax.p);
	free(nmin.p);
	free(nmax.p);
	v->nans += nans;
	v->pages++;
	v->entries += pd->n;
	v->nulls += nulls;
	v->leaf_nulls += leaf_nulls;
	v->values += pd->nonnull;
	v->rows += rows;
	return ok ? COLFS_OK : COLFS_ENOMEM;
}

/* --- Statistics ----------------------------------------------------------- */

typedef struct vf_stats {
	vf_bytes min, max, min_value, max_value;
	bool has_null_count, min_exact, max_exact, has_nan_count;
	int64_t null_count, nan_count;
} vf_stats;

static colfs_status parse_stats(vf *v, vf_stats *st_out, uint64_t *off,
				colfs_err *e)
{
	const parquet_file *pf = v->s->pf;
	const parquet_chunk *ch = v->ch;
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	int16_t last;
	colfs_status st;

	memset(st_out, 0, sizeof *st_out);
	if (!ch->has_statistics || ch->stats_span_off > pf->footer_len ||
	    ch->stats_span_len > pf->footer_len - ch->stats_span_off)
		return COLFS_ENOENT;
	*off = pf->footer_offset + ch->stats_span_off;
	colfs_cursor_init(&c, pf->footer + ch->stats_span_off,
			  ch->stats_span_len, *off);
	colfs_thrift_init(&r, &c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, e));
	while ((st = colfs_thrift_field_next(&r, &last, &f, e)) == COLFS_OK) {
		vf_bytes *b = f.id == 1 ? &st_out->max : f.id == 2 ? &st_out->min :
			      f.id == 5 ? &st_out->max_value :
			      f.id == 6 ? &st_out->min_value : NULL;
		if (b && f.type == COLFS_THRIFT_BINARY) {
			COLFS_TRY(colfs_thrift_read_binary(&r, f.type, &b->p,
							   &b->len, e));
			b->set = true;
		} else if (f.id == 3 && f.type != COLFS_THRIFT_BINARY) {
			COLFS_TRY(colfs_thrift_read_i64(&r, f.type,
							&st_out->null_count, e));
			st_out->has_null_count = true;
		} else if (f.id == 9 && f.type != COLFS_THRIFT_BINARY) {
			COLFS_TRY(colfs_thrift_read_i64(&r, f.type,
							&st_out->nan_count, e));
			st_out->has_nan_count = true;
		} else if (f.id == 7 && f.type == COLFS_THRIFT_BOOL) {
			st_out->max_exact = f.bool_value;
		} else if (f.id == 8 && f.type == COLFS_THRIFT_BOOL) {
			st_out->min_exact = f.bool_value;
		} else {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, e));
		}
	}
	return st == COLFS_END ? COLFS_OK : st;
}

/* --- the document --------------------------------------------------------- */

/* The values the data pages of a walk hold. */
static int64_t walk_values(const parquet_pages_list *w)
{
	int64_t n = 0;

	for (size_t k = 0; k < w->n; k++)
		if (parquet_pages_is_data(&w->pages[k]) &&
		    w->pages[k].hdr.num_values > 0)
			n += w->pages[k].hdr.num_values;
	return n;
}

static void vf_free(vf *v)
{
	index_free(&v->ix);
	free(v->min.p);
	free(v->max.p);
	free(v->prev_min.p);
	free(v->prev_max.p);
	free(v->nan_min.p);
	free(v->nan_max.p);
}

colfs_status parquet_verify_gen(colfs_tree *t, colfs_node *file, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const uint32_t g = (uint32_t)colfs_node_a(file);
	const uint32_t c = (uint32_t)colfs_node_b(file);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
					      colfs_node_b(file));
	const parquet_row_group *rg;
	vf v = {0};
	vf_stats stats;
	uint64_t stats_off = 0;
	colfs_err e = {0};
	colfs_status st;
	const parquet_pages_list *w = NULL;

	if (!ch || !s->pf || g >= s->pf->n_row_groups ||
	    ch->column >= s->pf->n_columns)
		return COLFS_ECORRUPT;
	rg = &s->pf->row_groups[g];
	v.t = t;
	v.s = s;
	v.where = colfs_node_parent(file);
	v.ch = ch;
	v.type = parquet_pages_type_of(s->pf->columns[ch->column].elem);
	v.order = order_of(&v.type);
	/* INT96 statistics have an order only when the file says so
	 * (ColumnOrder 3, INT96_TIMESTAMP_ORDER); otherwise they are ignored */
	if (v.type.physical == 3 && ch->column < s->pf->n_column_orders &&
	    s->pf->column_orders[ch->column] == 3)
		v.order = ORD_INT96;
	/* floats under IEEE_754_TOTAL_ORDER (ColumnOrder 2) */
	if ((v.order == ORD_FLOAT || v.order == ORD_FLOAT16) &&
	    ch->column < s->pf->n_column_orders &&
	    s->pf->column_orders[ch->column] == 2)
		v.order = ORD_TOTAL;
	v.out = out;
	v.asc_ok = v.desc_ok = true;
	v.nested = s->pf->columns[ch->column].max_def > 1;
	v.rep_def = rep_def_of(s->pf, ch->column);
	v.duckdb = s->pf->created_by &&
		   strncmp(s->pf->created_by, "DuckDB", 6) == 0;

	/* the indexes first, so pages are checked as they are decoded */
	if (ch->column_index_offset >= 0 && ch->column_index_length > 0) {
		st = parse_column_index(&v, &e);
		if (st == COLFS_ENOMEM)
			goto nomem;
		if (st && e.status)
			vf_problem(&v, e.offset, "column index: %s", e.msg);
		memset(&e, 0, sizeof e);
	}
	if (ch->offset_index_offset >= 0 && ch->offset_index_length > 0) {
		st = parse_offset_index(&v, &e);
		if (st == COLFS_ENOMEM)
			goto nomem;
		if (st && e.status)
			vf_problem(&v, e.offset, "offset index: %s", e.msg);
		memset(&e, 0, sizeof e);
	}
	st = parquet_pages_visit(t, s, v.where, g, c, vf_page, &v);
	if (st == COLFS_ENOMEM)
		goto nomem;
	if (st) {
		/* a page that does not decode was reported where it is;
		 * nothing after it can be compared */
		vf_line(&v, "stopped: data page %llu does not decode (%s); see errors",
			(unsigned long long)v.pages, colfs_status_name(st));
		vf_free(&v);
		return colfs_buf_status(out);
	}
	/* A walk whose pages do not hold the chunk's values (it stopped at
	 * a page header that does not parse, the chunk lies past the end of
	 * the file: reported under pages/) found only part of the data: the
	 * chunk's rows, nulls and bounds would count what it never reached
	 * as data that is not there, and blame metadata nothing contradicts.
	 * A walk stopped only by bytes after the last page has them all. */
	if (parquet_pages_list_get(t, s, v.where, g, c, &w) == COLFS_OK && w &&
	    w->stop.status && walk_values(w) != ch->num_values) {
		vf_line(&v, "stopped: the pages found hold %lld of the chunk's %lld values (the walk: %s at offset %llu); see errors",
			(long long)walk_values(w), (long long)ch->num_values,
			colfs_status_name(w->stop.status),
			(unsigned long long)w->stop.offset);
		vf_free(&v);
		return colfs_buf_status(out);
	}

	/* under the total order a chunk of NaNs alone is bounded by them */
	if (!v.min.set && v.nan_min.set) {
		vf_val x = v.min;
		v.min = v.nan_min;
		v.nan_min = x;
		x = v.max;
		v.max = v.nan_max;
		v.nan_max = x;
	}
	vf_line(&v, "data pages: %llu", (unsigned long long)v.pages);
	vf_line(&v, "entries: %llu (%llu values, %llu nulls)",
		(unsigned long long)v.entries, (unsigned long long)v.values,
		(unsigned long long)v.nulls);
	if (v.rows != (uint64_t)rg->num_rows)
		vf_problem(&v, ch->start,
			   "the chunk holds %llu rows, the row group's num_rows is %lld",
			   (unsigned long long)v.rows, (long long)rg->num_rows);
	else
		vf_line(&v, "rows: %llu, as the row group says",
			(unsigned long long)v.rows);
	if (v.min.set) {
		colfs_buf_puts(out, "decoded min: ");
		render_bound(out, &v, v.min.p, v.min.len);
		colfs_buf_puts(out, "\ndecoded max: ");
		render_bound(out, &v, v.max.p, v.max.len);
		colfs_buf_putc(out, '\n');
	} else if (v.order == ORD_NONE) {
		vf_line(&v, "min/max: the type has no defined order, not compared");
	}

	st = parse_stats(&v, &stats, &stats_off, &e);
	if (st == COLFS_ENOENT) {
		vf_line(&v, "statistics: none");
	} else if (st) {
		vf_problem(&v, e.offset, "statistics: %s", e.msg);
	} else {
		unsigned before = v.problems;
		if (stats.has_null_count &&
		    duckdb_null_count(&v, stats.null_count))
			vf_line(&v, "statistics null_count %lld is DuckDB's count: the %llu nulls, and the %llu null structs under the list again",
				(long long)stats.null_count,
				(unsigned long long)v.nulls,
				(unsigned long long)v.struct_nulls);
		else if (stats.has_null_count &&
		    !null_count_ok(&v, stats.null_count, v.nulls, v.leaf_nulls))
			vf_problem(&v, stats_off,
				   "statistics null_count %lld, the data has %llu nulls",
				   (long long)stats.null_count,
				   (unsigned long long)v.nulls);
		if (stats.has_nan_count && counts_nans(&v) &&
		    (stats.nan_count < 0 ||
		     (uint64_t)stats.nan_count != v.nans))
			vf_problem(&v, stats_off,
				   "statistics nan_count %lld, the data has %llu NaNs",
				   (long long)stats.nan_count,
				   (unsigned long long)v.nans);
		if (stats.min_value.set)
			check_bound(&v, stats_off, "statistics min_value", true,
				    stats.min_exact, stats.min_value.p,
				    stats.min_value.len, &v.min);
		if (stats.max_value.set)
			check_bound(&v, stats_off, "statistics max_value", false,
				    stats.max_exact, stats.max_value.p,
				    stats.max_value.len, &v.max);
		/* the deprecated min/max: their order is only certain for
		 * numbers (old writers compared bytes as signed); floats by
		 * the type's order (NaN and -0/+0 not told apart), which
		 * is what old writers knew */
		const enum vf_order order = v.order;
		if (v.order == ORD_TOTAL && v.type.physical < 6)
			v.order = ORD_FLOAT;
		if (v.order == ORD_SIGNED || v.order == ORD_FLOAT ||
		    v.order == ORD_BOOL) {
			if (stats.min.set)
				check_bound(&v, stats_off, "statistics min",
					    true, false, stats.min.p,
					    stats.min.len, &v.min);
			if (stats.max.set)
				check_bound(&v, stats_off, "statistics max",
					    false, false, stats.max.p,
					    stats.max.len, &v.max);
		}
		v.order = order;
		if (v.problems == before)
			vf_line(&v, "statistics: agree with the data");
	}
	if (v.ix.has_ci) {
		unsigned before = v.problems;
		if (v.ix.n_ci != v.pages)
			vf_problem(&v, v.ix.ci_off,
				   "column index has %u pages, the chunk %llu data pages",
				   v.ix.n_ci, (unsigned long long)v.pages);
		if ((v.ix.boundary_order == 1 && !v.asc_ok) ||
		    (v.ix.boundary_order == 2 && !v.desc_ok))
			vf_problem(&v, v.ix.ci_off,
				   "column index boundary_order says %s, the page bounds are not",
				   v.ix.boundary_order == 1 ? "ASCENDING" :
							      "DESCENDING");
		if (v.problems == before && !v.ci_bad)
			vf_line(&v, "column index: %u pages agree with the data",
				v.ix.n_ci);
	}
	if (v.ix.has_oi) {
		unsigned before = v.problems;
		if (v.ix.oi.n != v.pages)
			vf_problem(&v, v.ix.oi.off,
				   "offset index has %u pages, the chunk %llu data pages",
				   v.ix.oi.n, (unsigned long long)v.pages);
		if (v.problems == before && !v.oi_bad)
			vf_line(&v, "offset index: %u pages agree with the pages",
				v.ix.oi.n);
	}
	vf_line(&v, "%u mismatch%s", v.problems, v.problems == 1 ? "" : "es");
	vf_free(&v);
	return colfs_buf_status(out);
nomem:
	vf_free(&v);
	return COLFS_ENOMEM;
}

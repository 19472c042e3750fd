/* colfs: `arrays/`, fixed-width fields as NumPy .npy files (arrays.h).
 *
 * The .npy format (NumPy's "format.py", version 1.0): the magic
 * "\x93NUMPY", the version bytes 1 and 0, a little-endian u16 header
 * length, then a Python dict literal
 *   {'descr': '<i8', 'fortran_order': False, 'shape': (N,), }
 * padded with spaces and ended by '\n' so that the data starts at a
 * multiple of 64 bytes; then N values of the dtype, back to back.
 */
#include "arrays.h"
#include "cursor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many pieces per file: a longer file gets larger pieces, so
 * the piece map of a file stays small whatever row counts the metadata
 * claims. */
#define ARRAY_MAX_PIECES 16384

typedef struct arrays_set {
	void *ctx;
	colfs_array_rows_fn rows;
	void (*release)(void *ctx);
	char *unit_name;
	size_t n_units;
	uint64_t *unit_rows;
	uint64_t batch;           /* rows per piece */
	uint64_t *first;          /* first[u]: u's first data piece; [n_units]: all */
	uint64_t total_rows;
	size_t n_fields;
	colfs_array_field *fields;
} arrays_set;

static const struct {
	const char *descr;
	unsigned size;
	const char *what;
} array_types[COLFS_ARRAY_NTYPES] = {
	[COLFS_ARRAY_BOOL] = {"|b1", 1, "bool"},
	[COLFS_ARRAY_I8] = {"|i1", 1, "int8"},
	[COLFS_ARRAY_I16] = {"<i2", 2, "int16"},
	[COLFS_ARRAY_I32] = {"<i4", 4, "int32"},
	[COLFS_ARRAY_I64] = {"<i8", 8, "int64"},
	[COLFS_ARRAY_U8] = {"|u1", 1, "uint8"},
	[COLFS_ARRAY_U16] = {"<u2", 2, "uint16"},
	[COLFS_ARRAY_U32] = {"<u4", 4, "uint32"},
	[COLFS_ARRAY_U64] = {"<u8", 8, "uint64"},
	[COLFS_ARRAY_F16] = {"<f2", 2, "float16"},
	[COLFS_ARRAY_F32] = {"<f4", 4, "float32"},
	[COLFS_ARRAY_F64] = {"<f8", 8, "float64"},
	[COLFS_ARRAY_DATE] = {"<M8[D]", 8, "datetime64[D]"},
	[COLFS_ARRAY_TS_S] = {"<M8[s]", 8, "datetime64[s]"},
	[COLFS_ARRAY_TS_MS] = {"<M8[ms]", 8, "datetime64[ms]"},
	[COLFS_ARRAY_TS_US] = {"<M8[us]", 8, "datetime64[us]"},
	[COLFS_ARRAY_TS_NS] = {"<M8[ns]", 8, "datetime64[ns]"},
	[COLFS_ARRAY_DECIMAL] = {"<i8", 8, "int64"},
};

const char *colfs_array_descr(colfs_array_type type)
{
	return (unsigned)type < COLFS_ARRAY_NTYPES ? array_types[type].descr
						   : NULL;
}

unsigned colfs_array_itemsize(colfs_array_type type)
{
	return (unsigned)type < COLFS_ARRAY_NTYPES ? array_types[type].size : 0;
}

/* The .npy header of `rows` values of `descr` (a multiple of 64 bytes). */
static void npy_header(colfs_buf *out, const char *descr, uint64_t rows)
{
	char dict[160];
	int n = snprintf(dict, sizeof dict,
			 "{'descr': '%s', 'fortran_order': False, "
			 "'shape': (%llu,), }",
			 descr, (unsigned long long)rows);
	size_t total = 10 + (size_t)n + 1;
	size_t padded = (total + 63) / 64 * 64;
	size_t hlen = padded - 10;

	colfs_buf_append(out, "\x93NUMPY\x01\x00", 8);
	colfs_buf_putc(out, (char)(hlen & 0xff));
	colfs_buf_putc(out, (char)(hlen >> 8));
	colfs_buf_append(out, dict, (size_t)n);
	for (size_t i = total; i < padded; i++)
		colfs_buf_putc(out, ' ');
	colfs_buf_putc(out, '\n');
}

static size_t npy_header_len(const char *descr, uint64_t rows)
{
	colfs_buf b = COLFS_BUF_INIT;
	size_t n;

	npy_header(&b, descr, rows);
	n = b.len;
	colfs_buf_free(&b);
	return n;
}

/* The first row of unit u among all the rows shown. */
static uint64_t array_row0(const arrays_set *as, size_t u)
{
	uint64_t r = 0;

	for (size_t i = 0; i < u; i++)
		r += as->unit_rows[i];
	return r;
}

/* Node args: a = field index, b = 1 for the .nulls.npy file. */
static colfs_status array_piece(colfs_tree *t, colfs_node *f, uint64_t index,
				colfs_buf *out)
{
	const arrays_set *as = colfs_node_ctx(f);
	const colfs_array_field *fl = &as->fields[colfs_node_a(f)];
	bool nulls_file = colfs_node_b(f) != 0;
	unsigned size = colfs_array_itemsize(fl->type);
	colfs_status st;

	if (index == 0) {
		npy_header(out, nulls_file ? "|b1" : colfs_array_descr(fl->type),
			   as->total_rows);
		return COLFS_OK;
	}
	uint64_t piece = index - 1;
	if (piece >= as->first[as->n_units])
		return COLFS_END;
	/* The unit holding it */
	size_t lo = colfs_part_of_piece(as->first, as->n_units, piece);
	uint64_t row0 = (piece - as->first[lo]) * as->batch;
	uint64_t n = as->unit_rows[lo] - row0;
	if (n > as->batch)
		n = as->batch;
	uint64_t bytes;
	if (colfs_mul_overflows(n, (uint64_t)size + 1, &bytes) ||
	    bytes > colfs_tree_options(t)->max_alloc) {
		colfs_tree_report(t, f, COLFS_OFFSET_UNKNOWN, COLFS_EOVERFLOW,
				  "%s %zu claims %llu rows: more than max_alloc "
				  "allows in one piece",
				  as->unit_name, lo,
				  (unsigned long long)as->unit_rows[lo]);
		return COLFS_EOVERFLOW;
	}
	uint8_t *mem = calloc(1, (size_t)bytes ? (size_t)bytes : 1);
	if (!mem)
		return COLFS_ENOMEM;
	uint8_t *values = mem, *nulls = mem + (size_t)n * size;
	st = as->rows(t, f, as->ctx, fl, (uint32_t)lo, row0, n, values, nulls);
	if (st && st != COLFS_ENOMEM && st != COLFS_EIO &&
	    colfs_tree_options(t)->on_damage != COLFS_ON_DAMAGE_ERROR) {
		/* -o on_damage=null or skip: the piece's rows read as NULL
		 * (an array keeps every row: its size is the metadata's) */
		memset(values, 0, (size_t)n * size);
		memset(nulls, 1, (size_t)n);
		colfs_tree_report(t, f, COLFS_OFFSET_UNKNOWN, st,
				  "rows %llu to %llu (%s %zu, rows %llu to "
				  "%llu) read as NULL: on_damage",
				  (unsigned long long)(array_row0(as, lo) + row0),
				  (unsigned long long)(array_row0(as, lo) + row0 + n - 1),
				  as->unit_name, lo, (unsigned long long)row0,
				  (unsigned long long)(row0 + n - 1));
		st = COLFS_OK;
	}
	if (!st) {
		if (nulls_file)
			colfs_buf_append(out, nulls, (size_t)n);
		else
			colfs_buf_append(out, values, (size_t)n * size);
	}
	free(mem);
	return st;
}

/* Each piece decodes on its own (the format's rows function is safe to
 * call at once for different pieces). */
static const colfs_node_ops array_ops = {.piece = array_piece,
					 .concurrent = true};

static colfs_status readme_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	const arrays_set *as = colfs_node_ctx(file);
	(void)t;

	colfs_buf_printf(out,
		"The fixed-width top-level fields as NumPy arrays (.npy, "
		"format 1.0), %llu rows each,\n"
		"one value per row, little-endian; load them with "
		"numpy.load(path, mmap_mode='r').\n"
		"A NULL value is 0 in <field>.npy and True in "
		"<field>.nulls.npy (a nullable field only).\n"
		"DECIMAL values are their unscaled integers: divide by "
		"10**scale.\n\n",
		(unsigned long long)as->total_rows);
	for (size_t i = 0; i < as->n_fields; i++) {
		const colfs_array_field *fl = &as->fields[i];
		colfs_buf_printf(out, "%s.npy: %s (%s), from %s", fl->name,
				 array_types[fl->type].what,
				 array_types[fl->type].descr, fl->from);
		if (fl->type == COLFS_ARRAY_DECIMAL)
			colfs_buf_printf(out, ", precision %d, scale %d",
					 fl->precision, fl->scale);
		if (fl->nullable)
			colfs_buf_printf(out, "; NULLs in %s.nulls.npy",
					 fl->name);
		colfs_buf_putc(out, '\n');
	}
	return COLFS_OK;
}

/* The listing is being freed (colfs_dir_release): the README, added
 * first, stands for it, and the format's context goes with it (the set
 * itself is the directory's memory, colfs_dir_alloc). */
static void readme_release(colfs_tree *t, colfs_node *file)
{
	arrays_set *as = colfs_node_ctx(file);

	(void)t;
	if (as->release)
		as->release(as->ctx);
	as->release = NULL;
}

static const colfs_node_ops readme_ops = {.generate = readme_generate,
					  .release = readme_release};

/* The piece map of one file: the header, then every unit's pieces. */
static uint64_t *array_ends(const arrays_set *as, size_t header,
			    unsigned size, size_t *n)
{
	size_t np = 1 + (size_t)as->first[as->n_units];
	uint64_t *ends = malloc(np * sizeof *ends);
	size_t k = 0;
	uint64_t at = header;

	if (!ends)
		return NULL;
	ends[k++] = at;
	for (size_t u = 0; u < as->n_units; u++)
		for (uint64_t r = 0; r < as->unit_rows[u]; r += as->batch) {
			uint64_t m = as->unit_rows[u] - r;
			at += (m < as->batch ? m : as->batch) * size;
			ends[k++] = at;
		}
	*n = k;
	return ends;
}

static colfs_status array_file_add(colfs_tree *t, colfs_node *dir,
				   arrays_set *as, size_t i, bool nulls)
{
	const colfs_array_field *fl = &as->fields[i];
	const char *descr = nulls ? "|b1" : colfs_array_descr(fl->type);
	unsigned size = nulls ? 1 : colfs_array_itemsize(fl->type);
	size_t header = npy_header_len(descr, as->total_rows), n;
	char name[1100];
	uint64_t *ends = array_ends(as, header, size, &n);
	colfs_node *f;

	if (!ends)
		return COLFS_ENOMEM;
	snprintf(name, sizeof name, "%s%s", fl->name,
		 nulls ? ".nulls.npy" : ".npy");
	f = colfs_dir_add_sized_stream(t, dir, name, &array_ops, as, ends, n);
	if (!f)
		return COLFS_ENOMEM;
	colfs_node_set_args(f, i, nulls, 0);
	return COLFS_OK;
}

colfs_status colfs_arrays_populate(colfs_tree *t, colfs_node *dir,
				   const colfs_arrays_def *def)
{
	arrays_set *as = colfs_dir_alloc(t, dir, sizeof *as);
	uint64_t total = 0;

	if (!as)
		return COLFS_ENOMEM;
	as->ctx = def->ctx;
	as->rows = def->rows;
	as->unit_name = colfs_dir_strdup(t, dir, def->unit_name);
	as->n_units = def->n_units;
	/* n_units and n_fields count entries of the file's metadata */
	as->unit_rows = colfs_dir_alloc(t, dir, (def->n_units + 1) * sizeof(uint64_t));
	as->first = colfs_dir_alloc(t, dir, (def->n_units + 1) * sizeof(uint64_t));
	as->fields = colfs_dir_alloc(t, dir, (def->n_fields + 1) * sizeof *as->fields);
	if (!as->unit_name || !as->unit_rows || !as->first || !as->fields)
		return COLFS_ENOMEM;
	for (size_t u = 0; u < def->n_units; u++) {
		as->unit_rows[u] = def->unit_rows[u];
		if (colfs_add_overflows(total, def->unit_rows[u], &total) ||
		    total > (UINT64_MAX >> 5)) {
			colfs_tree_report(t, dir, COLFS_OFFSET_UNKNOWN,
					  COLFS_EOVERFLOW,
					  "arrays left out: the %ss claim more "
					  "than 2^59 rows", def->unit_name);
			return COLFS_OK;
		}
	}
	as->total_rows = total;
	as->batch = COLFS_ARRAY_BATCH;
	if (total / as->batch > ARRAY_MAX_PIECES)
		as->batch = total / ARRAY_MAX_PIECES + 1;
	/* the pieces: those of each unit, ceil(rows / batch); the units
	 * are metadata entries (bounded by the metadata's size), each
	 * unit of rows adds at least one */
	uint64_t p = 0;
	for (size_t u = 0; u < as->n_units; u++) {
		as->first[u] = p;
		p += (as->unit_rows[u] + as->batch - 1) / as->batch;
	}
	as->first[as->n_units] = p;
	if (!colfs_dir_add_doc(t, dir, "README", &readme_ops, as))
		return COLFS_ENOMEM;
	as->release = def->release;
	for (size_t i = 0; i < def->n_fields; i++) {
		colfs_array_field *fl = &as->fields[as->n_fields];
		*fl = def->fields[i];
		fl->name = colfs_dir_strdup(t, dir, def->fields[i].name);
		fl->from = colfs_dir_strdup(t, dir, def->fields[i].from
						    ? def->fields[i].from : "");
		if (!fl->name || !fl->from)
			return COLFS_ENOMEM;
		if (!colfs_array_descr(fl->type))
			continue;
		/* -o on_damage=null: any field may read NULL */
		if (colfs_tree_options(t)->on_damage != COLFS_ON_DAMAGE_ERROR)
			fl->nullable = true;
		as->n_fields++;
	}
	for (size_t i = 0; i < as->n_fields; i++) {
		COLFS_TRY(array_file_add(t, dir, as, i, false));
		if (as->fields[i].nullable)
			COLFS_TRY(array_file_add(t, dir, as, i, true));
	}
	return COLFS_OK;
}

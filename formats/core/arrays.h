/* colfs: `arrays/`, the NumPy view of a file's fixed-width fields
 * (arrays.c; docs/tree.md, "arrays/"; docs/values.md, "Arrays").
 *
 * One home for what every format shares: the .npy header, the file sizes
 * (header + rows x item size, known from the metadata before anything is
 * decoded), the map from a byte offset to the rows it holds, the
 * `.nulls.npy` mask beside a nullable field, and the directory's README.
 * A format gives only its units (row groups, stripes, ...: rows each),
 * its fixed-width fields with their NumPy type, and one function that
 * decodes rows [row0, row0 + n) of a unit as fixed-width values and a
 * null mask.
 *
 * Each file is a sized stream (tree.h): piece 0 is the header, then each
 * unit in runs of at most COLFS_ARRAY_BATCH rows, so a read at any offset
 * decodes only the rows of its piece (the pages that hold them).
 */
#ifndef COLFS_ARRAYS_H
#define COLFS_ARRAYS_H

#include "tree.h"

/* Rows per piece of an array file. */
#define COLFS_ARRAY_BATCH 65536

/* The NumPy types an array can have (their `descr` in the header). */
typedef enum colfs_array_type {
	COLFS_ARRAY_BOOL = 0,   /* |b1: 0 or 1 */
	COLFS_ARRAY_I8, COLFS_ARRAY_I16, COLFS_ARRAY_I32, COLFS_ARRAY_I64,
	COLFS_ARRAY_U8, COLFS_ARRAY_U16, COLFS_ARRAY_U32, COLFS_ARRAY_U64,
	COLFS_ARRAY_F16, COLFS_ARRAY_F32, COLFS_ARRAY_F64,
	COLFS_ARRAY_DATE,       /* <M8[D]: days since 1970-01-01, as int64 */
	COLFS_ARRAY_TS_S,       /* <M8[s] .. <M8[ns]: since the epoch, int64 */
	COLFS_ARRAY_TS_MS,
	COLFS_ARRAY_TS_US,
	COLFS_ARRAY_TS_NS,
	COLFS_ARRAY_DECIMAL,    /* <i8: the unscaled value; the scale is in
				 * arrays/README */
	COLFS_ARRAY_NTYPES
} colfs_array_type;

/* "<i8", "|b1", "<M8[D]", ...; NULL for an unknown type. */
const char *colfs_array_descr(colfs_array_type type);
/* Bytes per value (1, 2, 4 or 8). */
unsigned colfs_array_itemsize(colfs_array_type type);

typedef struct colfs_array_field {
	const char *name;       /* the field's name (borrowed; copied) */
	uint32_t id;            /* the format's number for it */
	colfs_array_type type;
	bool nullable;          /* a <name>.nulls.npy beside it */
	int32_t precision, scale;  /* DECIMAL */
	const char *from;       /* the file's type, for the README ("INT32
				 * DATE"; borrowed; copied) */
} colfs_array_field;

/* Decode rows [row0, row0 + n) of unit `unit` of field `fl` into
 * `values` (n x itemsize bytes, zeroed: a NULL slot stays 0) and `nulls`
 * (n bytes, zeroed: set 1 for a NULL).  Values are little-endian, as the
 * header says.  Problems are reported by the format (under the broken
 * part) and returned.  May run on several threads at once, for different
 * pieces.  `f` is the array file being read. */
typedef colfs_status (*colfs_array_rows_fn)(colfs_tree *t, const colfs_node *f,
					    void *ctx,
					    const colfs_array_field *fl,
					    uint32_t unit, uint64_t row0,
					    uint64_t n, uint8_t *values,
					    uint8_t *nulls);

typedef struct colfs_arrays_def {
	void *ctx;                      /* the rows function's, borrowed */
	colfs_array_rows_fn rows;
	/* Optional: the files are being freed (colfs_dir_release), and
	 * `ctx` with them if the format made it for this listing.  Not
	 * called when the tree closes (nor when populate fails before the
	 * README is added). */
	void (*release)(void *ctx);
	const char *unit_name;          /* "row group", "stripe", ... */
	size_t n_units;
	const uint64_t *unit_rows;      /* rows of each unit (copied) */
	size_t n_fields;
	const colfs_array_field *fields; /* (copied) */
} colfs_arrays_def;

/* Fill the directory `dir` (an `arrays/` the format added, from its
 * populate): README, then <name>.npy and <name>.nulls.npy of each field.
 * A field whose file would not fit in 2^63 bytes is left out with a
 * problem filed under `dir`. */
colfs_status colfs_arrays_populate(colfs_tree *t, colfs_node *dir,
				   const colfs_arrays_def *def);

#endif

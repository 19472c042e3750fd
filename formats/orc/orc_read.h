/* colfs ORC: the column reader (orc_reader.c), used by the views
 * (orc_read.c), orc_verify.c and orc_arrays.c.
 *
 * A reader covers one stripe; each orc_reader_read decodes the next `n`
 * rows into per-column vectors (orc_vec), the way ORC's own readers do: a
 * child of a struct has a slot for each row of the batch, not present
 * where the struct is null; the children of lists and maps have one slot
 * per element (v.i offsets, v.j lengths); a union's child k has one slot
 * per row whose tag is k (v.i the slot). */
#ifndef COLFS_ORC_READ_H
#define COLFS_ORC_READ_H

#include "orc_internal.h"
#include "orc_rle.h"

/* Hive 0.11 decimals (precision 0) are read at this scale, as ORC's C++
 * reader does by default. */
#define ORC_HIVE11_SCALE 6

typedef __int128 i128;

typedef struct orc_vec {
	size_t cap;
	uint8_t *present;
	int64_t *i;        /* ints, bools, dates, seconds, list offsets,
			    * union child slots */
	int64_t *j;        /* nanos, list lengths */
	double *d;
	i128 *dec;
	const uint8_t **sp;
	uint64_t *sl;
	uint8_t *tag;
} orc_vec;

typedef struct orc_col {
	uint32_t id;
	const Orcpb__Type *type;
	uint32_t kind;
	bool selected;
	bool v2;
	bool dict;
	bool decimal64;      /* ORCv2 decimal: RLE v2 unscaled values */
	int32_t scale;       /* decimal: rendering scale */
	uint64_t f_max_alloc;
	bool has_present;
	orc_rle_bool present;
	orc_rle_int ints;    /* DATA (integers, dictionary ids, seconds) */
	orc_rle_int lens;    /* LENGTH */
	orc_rle_int second;  /* SECONDARY */
	orc_rle_byte bytes;  /* DATA of tinyint, union tags */
	orc_rle_bool bools;  /* DATA of boolean */
	orc_in data;         /* DATA of float/double/string/decimal v1 */
	uint8_t *arena;      /* this batch's direct string bytes */
	size_t arena_cap;
	/* dictionary */
	uint8_t *dict_data;
	uint64_t *dict_off;  /* n + 1 offsets */
	size_t dict_n;
	/* timestamps */
	const orc_tz *tz;
	int64_t tz_epoch;
	struct orc_col **kids;
	size_t n_kids;
	/* structs: each field's key as printed before its value, in
	 * rows.jsonl (`, "name": `) and in JSON values (`,"name":`) */
	char **keys, **jkeys;
	size_t *key_len, *jkey_len;
	orc_vec v;
} orc_col;

typedef struct orc_reader {
	orc_file *f;
	size_t stripe;
	uint64_t rows_left;
	uint64_t row;        /* rows of the stripe decoded so far */
	orc_col *root;
	uint8_t *scratch;    /* bits of present streams */
	size_t scratch_cap;
	/* the stripe's ROW_INDEX of each selected column (by type id),
	 * loaded on the first seek */
	colfs_proto_msg *ri;
	bool ri_loaded, ri_ok;
	colfs_buf tmp;       /* one rows.csv field */
} orc_reader;

/* `column` selects one top-level field (with its subtree) or, when 0,
 * everything. */
colfs_status orc_reader_create(orc_file *f, size_t stripe, uint32_t column,
			       orc_reader **out, colfs_err *err);
/* Decode the next `n` rows of the stripe into the vectors. */
colfs_status orc_reader_read(orc_reader *r, size_t n, colfs_err *err);
void orc_reader_free(orc_reader *r);
/* Move the reader to row `target` of its stripe: through the row index
 * to the group holding it when it is behind or in another group, then by
 * decoding the rows between.  COLFS_END: it cannot get there (behind it,
 * no row index); a row index that does not seek is ECORRUPT. */
colfs_status orc_reader_seek(orc_reader *r, uint64_t target, colfs_err *err);
/* A reader of `column` (0: all) standing at row `row` of the stripe
 * (through the row index when there is one; orc_arrays.c). */
colfs_status orc_reader_at(orc_file *f, size_t stripe, uint32_t column,
			   uint64_t row, orc_reader **out, colfs_err *err);
/* The vectors of top-level field `column` (0: the root). */
const orc_col *orc_reader_column(const orc_reader *r, uint32_t column);

/* Append a 128-bit integer in decimal (decimal digits, sums; orc_read.c). */
void orc_read_put_i128(colfs_buf *b, i128 v);

#endif

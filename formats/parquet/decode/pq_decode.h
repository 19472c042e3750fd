/* colfs: Parquet value decoders (parquet-format Encodings.md).
 *
 * Every decoder reads from a colfs_cursor positioned at its first byte and
 * advances it past what it consumed; on failure it fills `err` with the
 * absolute offset of the run, header or value that was wrong.  Outputs go
 * to caller-supplied typed arrays of `count` entries.  Each decoder checks
 * a whole run against the bytes left first and then runs an unchecked
 * loop, with a careful tail near the end of the buffer.  No decoder ever
 * reads outside the cursor's window, whatever the input.
 *
 * `count` is always the number of values the caller expects (for data
 * pages: the non-null values, known from the definition levels; for
 * levels: the page's num_values).  Callers bound it (a page header's
 * num_values against the page size) before allocating the output.
 */
#ifndef COLFS_PQ_DECODE_H
#define COLFS_PQ_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/piececache.h"
#include "core/cursor.h"
#include "core/render.h"
#include "core/status.h"

/* A borrowed view of one BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY / INT96 value:
 * it points into the page buffer the cursor reads (or into the arena of
 * pq_dba_decode) and lives as long as that buffer. */
typedef struct pq_bytes {
	const uint8_t *ptr;
	uint32_t len;
} pq_bytes;

/* ---- RLE / bit-packing hybrid (levels, booleans, dictionary indices) -- */

/* The bare form (data page v2 levels, dictionary indices after their
 * bit-width byte): runs are read until `count` values are produced.
 * `bit_width` 0..32.  A final bit-packed run may be cut short as long as
 * the values needed are present. */
colfs_status pq_rle_decode(colfs_cursor *c, unsigned bit_width,
			   uint32_t *out, size_t count, colfs_err *err);
/* The length-prefixed form (data page v1 levels, RLE booleans): a u32 LE
 * byte length, then the hybrid data within exactly that many bytes.  The
 * cursor ends after the whole prefixed region. */
colfs_status pq_rle_decode_prefixed(colfs_cursor *c, unsigned bit_width,
				    uint32_t *out, size_t count,
				    colfs_err *err);
/* Are the first `count` values of the hybrid at `c` all `value`?  Reads
 * a copy of the cursor and stores nothing: a page without nulls needs no
 * array of definition levels (4 bytes an entry).  False on any doubt (a
 * run of another value, a short or malformed stream): decode it then. */
bool pq_rle_all_equal(const colfs_cursor *c, unsigned bit_width,
		      uint32_t value, size_t count);
/* Legacy BIT_PACKED levels: `count` values of `bit_width` (0..32) bits,
 * most significant bit first, in ceil(count * bit_width / 8) bytes. */
colfs_status pq_bitpacked_decode(colfs_cursor *c, unsigned bit_width,
				 uint32_t *out, size_t count, colfs_err *err);
/* RLE_DICTIONARY / PLAIN_DICTIONARY data: one bit-width byte (0..32) then
 * the bare hybrid; every index is checked to be below `dict_size`
 * (COLFS_EBOUNDS otherwise).  count == 0 reads nothing. */
colfs_status pq_dict_indices_decode(colfs_cursor *c, uint32_t *out,
				    size_t count, uint32_t dict_size,
				    colfs_err *err);

/* Number of bits needed for values 0..max (the level bit width). */
unsigned pq_bit_width(uint64_t max);

/* ---- PLAIN ------------------------------------------------------------- */

/* BOOLEAN: one bit per value, least significant bit first; out[i] is 0/1. */
colfs_status pq_plain_decode_bool(colfs_cursor *c, uint8_t *out, size_t count,
				  colfs_err *err);
colfs_status pq_plain_decode_i32(colfs_cursor *c, int32_t *out, size_t count,
				 colfs_err *err);
colfs_status pq_plain_decode_i64(colfs_cursor *c, int64_t *out, size_t count,
				 colfs_err *err);
colfs_status pq_plain_decode_float(colfs_cursor *c, float *out, size_t count,
				   colfs_err *err);
colfs_status pq_plain_decode_double(colfs_cursor *c, double *out,
				    size_t count, colfs_err *err);
/* FIXED_LEN_BYTE_ARRAY of `width` bytes, and INT96 (width 12): views. */
colfs_status pq_plain_decode_fixed(colfs_cursor *c, uint32_t width,
				   pq_bytes *out, size_t count,
				   colfs_err *err);
/* BYTE_ARRAY: u32 LE length, then the bytes; views into the window. */
colfs_status pq_plain_decode_bytes(colfs_cursor *c, pq_bytes *out,
				   size_t count, colfs_err *err);
/* The same walk and checks, keeping only the offset (from the cursor's
 * position) of every PQ_IN_PAGE_STRIDE-th value in marks[count / stride
 * + 1] (the last entry is the end when count is a multiple of it). */
colfs_status pq_plain_index_bytes(colfs_cursor *c, size_t *marks,
				  size_t count, colfs_err *err);

/* ---- DELTA_BINARY_PACKED and the byte-array deltas --------------------- */

/* A DELTA_BINARY_PACKED stream read incrementally.  The header must
 * declare at most `max_values` values; block size must be a positive
 * multiple of 128 (at most 2^20), miniblocks per block positive with a
 * miniblock size that is a multiple of 32; miniblock bit widths at most
 * `max_bit_width` (at most 64).  Arithmetic wraps in two's complement as
 * the spec says.  The INT32 decoders accept widths up to 64 too: the spec
 * allows 32, but DuckDB 1.5 takes INT32 deltas in 64 bits and writes 33;
 * 64-bit wrapping arithmetic truncated to 32 bits is right for both. */
typedef struct pq_delta {
	colfs_cursor *c;
	uint64_t block_size;
	uint64_t miniblocks;
	uint64_t per_mini;          /* values per miniblock */
	uint64_t total;             /* values declared by the header */
	uint64_t remaining;         /* values not yet produced */
	uint64_t last;              /* previous value (wrapping) */
	uint64_t min_delta;
	const uint8_t *widths;      /* bit widths of the current block */
	uint64_t mini_index;        /* current miniblock, == miniblocks: none */
	uint64_t mini_left;         /* values left in the current miniblock */
	size_t mini_bytes_left;     /* stored bytes left in it */
	unsigned bit_width;         /* of the current miniblock */
	unsigned max_bit_width;
	bool first_pending;
	unsigned chunk_pos, chunk_len;
	uint64_t chunk[32];
} pq_delta;

colfs_status pq_delta_init(pq_delta *d, colfs_cursor *c, uint64_t max_values,
			   unsigned max_bit_width, colfs_err *err);
/* Produce the next n values (n <= values remaining). */
colfs_status pq_delta_next(pq_delta *d, uint64_t *out, size_t n,
			   colfs_err *err);
/* Skip the values not yet produced and the padding of the last miniblock,
 * leaving the cursor just past the stream. */
colfs_status pq_delta_finish(pq_delta *d, colfs_err *err);

/* Whole-page conveniences: the header must declare exactly `count`
 * values (the page's non-null values); the cursor ends after the stream,
 * including the padding of its last miniblock. */
colfs_status pq_delta_decode_i32(colfs_cursor *c, int32_t *out, size_t count,
				 colfs_err *err);
colfs_status pq_delta_decode_i64(colfs_cursor *c, int64_t *out, size_t count,
				 colfs_err *err);
/* DELTA_LENGTH_BYTE_ARRAY: lengths (DELTA_BINARY_PACKED), then the
 * concatenated bytes; views into the window. */
colfs_status pq_dlba_decode(colfs_cursor *c, pq_bytes *out, size_t count,
			    colfs_err *err);
/* DELTA_BYTE_ARRAY: prefix lengths, suffix lengths, suffix bytes.  Each
 * value is the first `prefix` bytes of the previous value followed by its
 * suffix; a prefix longer than the previous value is COLFS_ECORRUPT.  The
 * values are materialised into one malloc'd arena (*arena, the caller
 * frees it) of at most `max_bytes` bytes (COLFS_EOVERFLOW beyond). */
colfs_status pq_dba_decode(colfs_cursor *c, pq_bytes *out, size_t count,
			   size_t max_bytes, uint8_t **arena, colfs_err *err);

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------- */

/* `count` values of `width` bytes stored as `width` streams of `count`
 * bytes each; `dst` receives count*width bytes, value after value, each
 * in its little-endian byte order. */
colfs_status pq_bss_decode(colfs_cursor *c, uint32_t width, uint8_t *dst,
			   size_t count, colfs_err *err);
colfs_status pq_bss_decode_i32(colfs_cursor *c, int32_t *out, size_t count,
			       colfs_err *err);
colfs_status pq_bss_decode_i64(colfs_cursor *c, int64_t *out, size_t count,
			       colfs_err *err);
colfs_status pq_bss_decode_float(colfs_cursor *c, float *out, size_t count,
				 colfs_err *err);
colfs_status pq_bss_decode_double(colfs_cursor *c, double *out, size_t count,
				  colfs_err *err);

/* ---- one page at a time --------------------------------------------------
 *
 * The dispatch from (physical type, encoding) to the decoders above, with
 * the output allocated here.  Types and encodings are the parquet.thrift
 * numbers (Type: BOOLEAN 0 .. FIXED_LEN_BYTE_ARRAY 7; Encoding: PLAIN 0,
 * PLAIN_DICTIONARY 2, RLE 3, BIT_PACKED 4, DELTA_BINARY_PACKED 5,
 * DELTA_LENGTH_BYTE_ARRAY 6, DELTA_BYTE_ARRAY 7, RLE_DICTIONARY 8,
 * BYTE_STREAM_SPLIT 9). */

/* Decoded values of one page.  Exactly one array of `v` is set, by
 * physical type: BOOLEAN b (0/1), INT32 i32, INT64 i64, FLOAT f32, DOUBLE
 * f64, INT96 / BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY bytes (views into the
 * page buffer, or into `owned` for DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT
 * of FIXED_LEN_BYTE_ARRAY); or, for dictionary encodings, `indices` is
 * true and idx holds dictionary indices (checked against dict_size). */
typedef struct pq_values {
	int32_t physical_type;
	bool indices;
	size_t count;
	union {
		void *any;
		uint8_t *b;
		int32_t *i32;
		int64_t *i64;
		float *f32;
		double *f64;
		pq_bytes *bytes;
		uint32_t *idx;
	} v;
	uint8_t *owned;     /* bytes the views point into, when not the page */
	bool pooled;        /* v.any belongs to the caller's pool (not freed) */
	/* in_page (pq_values_decode_in_page): PLAIN BYTE_ARRAY or
	 * FIXED_LEN_BYTE_ARRAY values left where the page stores them,
	 * without a pq_bytes per value: v.any holds the marks (NULL for
	 * FIXED_LEN_BYTE_ARRAY), not views.  Value i is found with
	 * pq_values_in_page_at, then walked with pq_values_in_page_next */
	bool in_page;
	struct {
		const uint8_t *data;   /* the values' first byte in the page */
		size_t len;            /* bytes the values take */
		uint32_t width;        /* FIXED_LEN_BYTE_ARRAY: the width;
					* 0: u32 LE length-prefixed values */
		size_t *marks;         /* length-prefixed: offset of value
					* m * PQ_IN_PAGE_STRIDE (m = 0 ..
					* count / stride), in v.any */
	} page;
} pq_values;

/* Values between two marks of an in_page BYTE_ARRAY page: the marks
 * take 8 bytes per this many values (128 KiB for 1M values), and a
 * value is at most this many length prefixes from its mark. */
#define PQ_IN_PAGE_STRIDE 64

/* A buffer reused from page to page for decoded values (one per cursor,
 * never shared between threads): pq_values_decode_pooled decodes into it,
 * growing it when a page needs more, so that sequential reading neither
 * maps nor faults in fresh memory for every page. */
typedef struct pq_values_pool {
	void *mem;
	size_t cap;
	colfs_piece_cache *bufs;  /* the tree's pool mem comes from and goes
				   * back to (piececache.h), or NULL */
} pq_values_pool;
void pq_values_pool_free(pq_values_pool *pool);

/* Decode `count` values (the page's non-null values) from `c`.
 * type_length is the FIXED_LEN_BYTE_ARRAY width; dict_size the number of
 * dictionary entries (for dictionary encodings); max_bytes caps what is
 * allocated (COLFS_EOVERFLOW beyond).  Unknown or mismatched encodings are
 * COLFS_EUNSUPPORTED with the encoding and type named. */
colfs_status pq_values_decode(colfs_cursor *c, int32_t physical_type,
			      int32_t type_length, int32_t encoding,
			      size_t count, uint32_t dict_size,
			      size_t max_bytes, pq_values *out, colfs_err *err);
/* The same, with the values array taken from `pool` (the result borrows
 * it until the next decode with that pool); pool NULL: as above. */
colfs_status pq_values_decode_pooled(colfs_cursor *c, int32_t physical_type,
				     int32_t type_length, int32_t encoding,
				     size_t count, uint32_t dict_size,
				     size_t max_bytes, pq_values_pool *pool,
				     pq_values *out, colfs_err *err);
/* Can a page of this type and encoding be decoded in_page? */
bool pq_values_in_page_fits(int32_t physical_type, int32_t encoding);
/* PLAIN BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY values as they lie in the page
 * (`out->in_page`): every length is checked against the bytes left, as
 * pq_values_decode does (the same errors at the same offsets), and the
 * offset of every PQ_IN_PAGE_STRIDE-th value is kept (malloc'd, freed
 * by pq_values_free), instead of a 16-byte pq_bytes per value.  The
 * values borrow the cursor's buffer. */
colfs_status pq_values_decode_in_page(colfs_cursor *c, int32_t physical_type,
				      int32_t type_length, size_t count,
				      size_t max_bytes, pq_values *out,
				      colfs_err *err);
/* The offset in v->page.data of in_page value i (0 <= i <= count: count
 * is the end of the values); from its mark, at most PQ_IN_PAGE_STRIDE - 1
 * lengths are read.  The lengths were checked when the page was
 * decoded. */
static inline size_t pq_values_in_page_at(const pq_values *v, size_t i)
{
	if (v->page.width)
		return i * v->page.width;
	size_t o = v->page.marks[i / PQ_IN_PAGE_STRIDE];
	for (size_t n = i % PQ_IN_PAGE_STRIDE; n; n--)
		o += 4 + (size_t)colfs_le32(v->page.data + o);
	return o;
}
/* The in_page value at offset *o (from pq_values_in_page_at), and *o
 * moved to the next value. */
static inline pq_bytes pq_values_in_page_next(const pq_values *v, size_t *o)
{
	pq_bytes x;

	if (v->page.width) {
		x.ptr = v->page.data + *o;
		x.len = v->page.width;
		*o += v->page.width;
	} else {
		x.len = colfs_le32(v->page.data + *o);
		x.ptr = v->page.data + *o + 4;
		*o += 4 + (size_t)x.len;
	}
	return x;
}

/* Free what pq_values_decode allocated (accepts NULL and empty values). */
void pq_values_free(pq_values *v);

/* Levels of a data page v1: `encoding` RLE (u32 length prefix, then the
 * hybrid) or BIT_PACKED (legacy, no prefix); max_level 0 reads nothing
 * and yields zeros.  The cursor ends after the levels.  Every level is
 * checked to be <= max_level (COLFS_ECORRUPT). */
colfs_status pq_levels_decode_v1(colfs_cursor *c, int32_t encoding,
				 uint32_t max_level, uint32_t *out,
				 size_t count, colfs_err *err);
/* Levels of a data page v2: the bare hybrid in the region the header
 * gives (`region` holds exactly those bytes, never compressed). */
colfs_status pq_levels_decode_v2(colfs_cursor *region, uint32_t max_level,
				 uint32_t *out, size_t count, colfs_err *err);

/* ---- rendering one value by its Parquet type ----------------------------- */

/* What rendering needs to know of a leaf's type (from its SchemaElement):
 * parquet.thrift numbers, -1 / 0 for absent. */
typedef struct pq_type {
	int32_t physical;      /* Type */
	int32_t type_length;   /* FIXED_LEN_BYTE_ARRAY width */
	int32_t converted;     /* ConvertedType, -1: absent */
	int32_t logical;       /* LogicalType union field id, 0: absent */
	int32_t scale;         /* DECIMAL (logical, else converted) */
	int32_t unit;          /* TIME/TIMESTAMP: 1 millis, 2 micros, 3 nanos */
	bool utc;              /* TIME/TIMESTAMP isAdjustedToUTC */
	int32_t bit_width;     /* INTEGER */
	bool is_signed;        /* INTEGER */
} pq_type;

/* Append value i of `v` (decoded values, not dictionary indices: resolve
 * those through the dictionary's pq_values first) as docs/values.md
 * says.  In_page values are found from their mark (pq_values_in_page_at):
 * a caller walking them in order walks them itself (pq_render_bytes). */
void pq_render_value(colfs_buf *b, const colfs_render *r, const pq_type *t,
		     const pq_values *v, size_t i);

/* The same for one BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value (in_page
 * values walked with pq_values_in_page_next). */
void pq_render_bytes(colfs_buf *b, const colfs_render *r, const pq_type *t,
		     const pq_bytes *x);

/* The inverse, for one value: `text` as pq_render_value renders it in
 * text mode becomes the value's PLAIN bytes (byte arrays without the
 * length prefix) in out[0..cap).  False when the text is not the exact
 * rendering of a value of this type (every candidate is rendered again
 * and compared), when it does not fit `cap`, and for BOOLEAN. */
bool pq_text_to_plain(const pq_type *t, const char *text, uint8_t *out,
		      size_t cap, size_t *len);

#endif

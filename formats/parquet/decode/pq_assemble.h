/* colfs: Parquet record assembly (repetition and definition levels to one
 * line of compact JSON per record), for any schema.
 *
 * A top-level field of the schema is either flat (a primitive that is not
 * repeated: its values are rendered one per line as they come) or needs
 * assembly (a group, or anything repeated).  For the latter a plan is
 * built once per field from the schema: the JSON shape of every node
 * (object, array, map, scalar), the definition level at which each node is
 * present, the repetition level at which each list repeats, and the leaf
 * columns of the field in schema order.
 *
 * Shapes (docs/values.md, "Nested values"):
 *   group without annotation       object, fields in schema order
 *   LIST (three-level)             array of the element
 *   LIST (legacy two-level forms)  array of the repeated field (the
 *                                  backward-compatibility rules of
 *                                  parquet-format LogicalTypes.md)
 *   repeated field, no LIST        array of that field (required elements)
 *   MAP, MAP_KEY_VALUE             object keyed by the key's text (a JSON
 *                                  string; non-string keys use their text
 *                                  rendering), duplicates kept; a map
 *                                  without a value field has null values
 *   NULL inside                    null
 *   NULL at the top level          the caller's top-level null token
 *
 * Feeding: the caller hands one batch per call, holding for every leaf of
 * the plan the entries (rep, def) of a whole number of records (a record
 * starts at an entry with rep == 0 on every leaf) and the leaf's values
 * (the entries with def == the leaf's max_def, in order), either as
 * pre-rendered JSON text or through a callback that appends value k.  The
 * batch is validated as a whole when set (levels within the leaf's
 * maxima, batch starting at a record, the same number of records on every
 * leaf, the number of values matching the levels) and as records are
 * assembled (levels that do not describe the schema): every problem is
 * COLFS_ECORRUPT with a message, never a crash.  Assembly allocates
 * nothing per value: the assembler keeps one scratch buffer.
 *
 * Arrays are borrowed: a batch's arrays must stay valid until the next
 * pq_asm_batch_set (or pq_asm_destroy).  A plan is read-only once built
 * and may be shared by threads; an assembler serves one reader at a time.
 *
 * Choices beyond docs/values.md: a map key that is NULL (legacy schemas
 * with optional keys) is the key "null"; a key whose JSON is not a string
 * (numbers, booleans, nested values) becomes the JSON string of that JSON
 * text (for scalars the same as their text rendering); a LIST or MAP
 * annotation on a group whose shape does not fit is ignored (the group is
 * read by its structure).
 */
#ifndef COLFS_PQ_ASSEMBLE_H
#define COLFS_PQ_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/status.h"
#include "parquet/parquet.h"

/* ---- the plan ------------------------------------------------------------ */

/* True when top-level field `field` (a schema index whose parent is the
 * root) is a primitive that is not repeated: it needs no assembly (one
 * value or NULL per row, rendered as a scalar).  False for groups and for
 * repeated primitives (and for indexes that are not a top-level field). */
bool pq_asm_field_is_flat(const parquet_schema_elem *schema,
			  uint32_t n_schema, uint32_t field);

typedef struct pq_asm_plan pq_asm_plan;

/* Build the plan of top-level field `field` (schema index) of `schema`
 * (parquet_file.schema, n_schema elements, tree fields filled in as
 * parquet_file_parse does).  The plan borrows nothing from `schema` after
 * this call.  Works for flat fields too (a plan of one scalar leaf).
 * Errors: COLFS_ECORRUPT for a tree that does not hold together (a group
 * without children, levels that do not follow from the repetitions),
 * COLFS_EUNSUPPORTED for nesting deeper than PQ_ASM_MAX_DEPTH,
 * COLFS_ENOMEM. */
#define PQ_ASM_MAX_DEPTH 256
colfs_status pq_asm_plan_create(const parquet_schema_elem *schema,
				uint32_t n_schema, uint32_t field,
				pq_asm_plan **out, colfs_err *err);
void pq_asm_plan_destroy(pq_asm_plan *plan);

/* The leaves of the plan, in schema order (batch order). */
uint32_t pq_asm_plan_leaves(const pq_asm_plan *plan);
/* Leaf i: its index into parquet_file.columns (parquet_schema_elem.leaf),
 * its schema index and its maximum levels. */
int32_t pq_asm_plan_leaf_column(const pq_asm_plan *plan, uint32_t i);
uint32_t pq_asm_plan_leaf_schema(const pq_asm_plan *plan, uint32_t i);
uint32_t pq_asm_plan_leaf_max_def(const pq_asm_plan *plan, uint32_t i);
uint32_t pq_asm_plan_leaf_max_rep(const pq_asm_plan *plan, uint32_t i);
/* True when leaf i is a binary of a VARIANT group (`metadata` or a
 * `value`): its values are handed over as raw bytes in text/off (not
 * JSON, not through a renderer). */
bool pq_asm_plan_leaf_raw(const pq_asm_plan *plan, uint32_t i);
/* True when the field's value can be absent at the top (optional). */
bool pq_asm_plan_nullable(const pq_asm_plan *plan);
/* The plan as text, one node per line ("list rep=1 def=2", ...), for
 * tests and the metadata views.  Appends to `out`. */
void pq_asm_plan_describe(const pq_asm_plan *plan, colfs_buf *out);

/* ---- feeding and assembling ---------------------------------------------- */

/* Appends the JSON of value k (0-based among the leaf's values in this
 * batch) of leaf `leaf` (plan leaf index) to `out`. */
typedef void (*pq_asm_render_fn)(void *ctx, uint32_t leaf, size_t k,
				 colfs_buf *out);

/* One leaf's share of a batch. */
typedef struct pq_asm_leaf_batch {
	const uint32_t *rep;     /* n entries; NULL: all 0 (max_rep 0) */
	const uint32_t *def;     /* n entries; NULL: all max_def */
	size_t n;                /* entries */
	size_t n_values;         /* entries with def == max_def */
	/* The values: render(ctx, leaf, k, out) when `render` is set, else
	 * value k is text[off[k] .. off[k + 1]) (n_values + 1 offsets,
	 * non-decreasing), JSON text as colfs_render_json_default gives. */
	pq_asm_render_fn render;
	void *ctx;
	const char *text;
	const size_t *off;
	/* The file offset of the page value k came from (n_values
	 * entries), for the offset of a value that does not decode; NULL:
	 * not known (COLFS_OFFSET_UNKNOWN). */
	const uint64_t *page_off;
} pq_asm_leaf_batch;

typedef struct pq_asm pq_asm;

colfs_status pq_asm_create(const pq_asm_plan *plan, pq_asm **out,
			   colfs_err *err);
void pq_asm_destroy(pq_asm *a);

/* Set the next batch: `leaves` holds pq_asm_plan_leaves(plan) entries
 * (copied; the arrays they point to are borrowed).  `*records` (may be
 * NULL) receives the number of records in the batch.  On failure nothing
 * of the batch is kept (the assembler is empty). */
colfs_status pq_asm_batch_set(pq_asm *a, const pq_asm_leaf_batch *leaves,
			      size_t *records, colfs_err *err);

/* Records of the current batch not yet assembled or skipped. */
size_t pq_asm_records_left(const pq_asm *a);

/* Append the next record of the batch as one JSON value, without a line
 * end; a NULL top-level value appends `top_null` (NULL pointer: "null").
 * COLFS_END when the batch is used up (nothing appended).  On
 * COLFS_ECORRUPT `out` may hold part of the record; the batch is then
 * dropped. */
colfs_status pq_asm_next(pq_asm *a, colfs_buf *out, const char *top_null,
			 colfs_err *err);

/* Append up to `max` records, each followed by '\n'; `*done` receives the
 * number appended (also on failure: the complete lines before it). */
colfs_status pq_asm_lines(pq_asm *a, colfs_buf *out, const char *top_null,
			  size_t max, size_t *done, colfs_err *err);

/* Skip up to `n` records without rendering (cheap: a scan of the
 * repetition levels); `*done` receives the number skipped. */
colfs_status pq_asm_skip(pq_asm *a, size_t n, size_t *done, colfs_err *err);

/* ---- helpers for cutting batches ----------------------------------------- */

/* Records that are complete in rep[0..n) (rep NULL: every entry is one):
 * the records starting in it, except the last one unless `at_end` (no
 * more entries follow this leaf); at most `max_records`.  `*entries`
 * receives the entries they span, `*values` (may be NULL) the entries
 * among them with def == max_def (def NULL: all). */
size_t pq_asm_complete_records(const uint32_t *rep, const uint32_t *def,
			       uint32_t max_def, size_t n, bool at_end,
			       size_t max_records, size_t *entries,
			       size_t *values);

#endif

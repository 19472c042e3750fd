/* colfs: the Parquet value pipeline and the views built on it
 * (module-private; docs/parquet-tree.md lists the views).
 *
 * The pipeline, for one page of one column chunk: walk the chunk's page
 * headers (once per chunk, cached), read the stored page, verify its CRC
 * when it has one, decompress it (declared sizes capped by max_alloc),
 * decode the definition and repetition levels and the values, and resolve
 * dictionary indices through the chunk's decoded dictionary (kept in a
 * small bounded cache, refcounted).
 *
 * Thread safety: the page lists and the dictionary cache are shared by
 * all streams and guarded by one mutex that is never held while calling
 * into the tree (so it nests inside the tree lock and the stream locks).
 * Everything a view keeps between pieces (its piece map, its per-column
 * cursors) belongs to that view's stream and is only touched under the
 * stream's own lock.
 */
#ifndef COLFS_PARQUET_VALUES_H
#define COLFS_PARQUET_VALUES_H

#include "pq_tree.h"
#include "decode/pq_decode.h"

typedef struct pqv_state pqv_state;

/* The page walk of one chunk. */
typedef struct pqv_walk {
	bool walked;
	parquet_page *pages;   /* malloc'd, owned by the pqv_state */
	size_t n;
	colfs_err stop;        /* why the walk stopped early (status 0: clean) */
} pqv_walk;

colfs_status pqv_state_create(pq_state *s, pqv_state **out);
void pqv_state_destroy(pqv_state *v);

/* The page walk of chunk (g, c), walked on first use; `*out` is NULL for
 * a chunk that does not exist.  A walk problem is reported under `where`
 * the first time. */
colfs_status pqv_chunk_walk(colfs_tree *t, pq_state *s, const colfs_node *where,
			    uint32_t g, uint32_t c, const pqv_walk **out);

/* One decoded data page, as pqv_chunk_pages_visit hands it out (all
 * pointers borrowed for the duration of the callback). */
typedef struct pqv_page_data {
	size_t k;                /* the page's index in the chunk's walk */
	const parquet_page *pg;
	size_t n;                /* level entries */
	const uint32_t *def;     /* NULL: every entry is at max_def */
	const uint32_t *rep;     /* NULL: every entry starts a row */
	uint32_t max_def;
	size_t nonnull;          /* values (entries at max_def) */
	const pq_values *vals;   /* the values, or the dictionary when idx */
	const uint32_t *idx;     /* dictionary indices of the values, or NULL */
} pqv_page_data;

typedef colfs_status (*pqv_page_fn)(void *ctx, const pqv_page_data *pd);

/* Decode the data pages of chunk (g, c) one at a time, in order, and call
 * `fn` on each (memory: one page).  Stops at the first page that fails
 * (reported under the page, as the value views report it) and returns its
 * status, or `fn`'s first non-OK status. */
colfs_status pqv_chunk_pages_visit(colfs_tree *t, pq_state *s,
				   const colfs_node *where, uint32_t g,
				   uint32_t c, pqv_page_fn fn, void *ctx);

/* The column's type as the renderer and parser take it. */
pq_type pqv_type_of(const parquet_schema_elem *e);

/* Views (populate helpers; each adds its entries to `dir`). */
colfs_status pqv_chunk_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				 uint32_t g, uint32_t c);
colfs_status pqv_page_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				uint32_t g, uint32_t c, size_t k);
/* columns/, rows.jsonl and rows.csv over all row groups (g < 0) or over
 * row group g. */
colfs_status pqv_table_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				 int64_t g);

/* column_index.json: the ColumnIndex with min_values/max_values rendered
 * by the column's type (null for null pages). */
colfs_status pqv_column_index_gen(colfs_tree *t, colfs_node *file,
				  colfs_buf *out);

/* statistics.json: the typed Statistics of parquet_docs.c with min/max
 * rendered as the value files render them (JSON mode). */
colfs_status pqv_statistics_gen(colfs_tree *t, colfs_node *file,
				colfs_buf *out);

/* verify (parquet_verify.c): a chunk's statistics, column index, offset
 * index and row count checked against its decoded pages; disagreements
 * are reported under the chunk.  Node args: a = row group, b = chunk. */
colfs_status pqv_verify_gen(colfs_tree *t, colfs_node *file, colfs_buf *out);

/* bloom_filter/might_contain/: a directory that answers a lookup of a
 * value's rendered text when the filter may contain the value. */
colfs_status pqv_bloom_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				 uint32_t g, uint32_t c, uint64_t bitset_off,
				 uint32_t bitset_len);

#endif

/* colfs: Parquet pages (parquet_pages.c; module-private): page walks,
 * the decoded page, dictionaries, and the visitor verify uses.
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
#ifndef COLFS_PARQUET_PAGES_H
#define COLFS_PARQUET_PAGES_H

#include "parquet_region.h"
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

/* Objects freed with the pipeline state (after its dictionaries): a
 * view registers its state here, first member of its struct. */
typedef struct pqv_kept {
	struct pqv_kept *next;
	void (*free)(struct pqv_kept *k);
} pqv_kept;
void pqv_state_keep(pqv_state *v, pqv_kept *k);

/* A decoded dictionary of one chunk, refcounted. */
typedef struct pqv_dict {
	uint32_t g, c;
	int refs;
	uint64_t use;            /* last use, for eviction */
	pq_values vals;
	uint8_t *buf;            /* the decompressed page `vals` points into */
} pqv_dict;

/* The dictionary of chunk (g, c), referenced (pqv_dict_unref when done). */
colfs_status pqv_dict_get(colfs_tree *t, pq_state *s, uint32_t g, uint32_t c,
			  const pqv_walk *w, pqv_dict **out, colfs_err *e);
void pqv_dict_unref(pqv_state *v, pqv_dict *d);

/* Buffers a cursor reuses from page to page (a page's stored and
 * decompressed bytes), so that sequential reading does not map fresh
 * memory for every page. */
typedef struct pqv_scratch {
	uint8_t *raw, *out;
	size_t raw_cap, out_cap;
} pqv_scratch;
void pqv_scratch_free(pqv_scratch *sc);

/* The decompressed bytes of page `pg`, malloc'd (data pages v2: the
 * levels as stored, then the decompressed values).  A CRC mismatch served
 * under checksums=ignore leaves its message in `e` with status 0. */
colfs_status pqv_page_bytes(colfs_tree *t, pq_state *s, const parquet_chunk *ch,
			    const parquet_page *pg, uint8_t **out,
			    size_t *out_len, colfs_err *e);

/* One decoded data page. */
typedef struct pqv_page {
	size_t n;              /* level entries */
	uint32_t *def, *rep;   /* NULL: max_def / 0 for every entry */
	size_t nonnull;
	pq_values vals;        /* non-null values (or dictionary indices) */
	pqv_dict *dict;        /* referenced when vals.indices */
	uint8_t *buf;          /* decompressed page; views point into it */
	size_t buf_len;
	bool buf_owned;        /* false: a cursor's scratch buffer */
	uint32_t max_def;
} pqv_page;

bool pqv_is_data_page(const parquet_page *pg);
/* Decode data page k of chunk (g, c) (levels and values), with `sc`'s
 * buffers when not NULL.  Problems are reported here (under the page)
 * and returned. */
colfs_status pqv_page_decode(colfs_tree *t, pq_state *s,
			     const colfs_node *where, uint32_t g, uint32_t c,
			     const pqv_walk *w, size_t k, pqv_scratch *sc,
			     pqv_page *p);
void pqv_page_release(pqv_state *v, pqv_page *p);

#endif

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

typedef struct parquet_pages_state parquet_pages_state;

/* The page walk of one chunk (kept for the tree's life: one per chunk,
 * 200,000 in a wide file, so small; the walk's message is reported when
 * it is made, not kept). */
typedef struct parquet_pages_list {
	bool walked;
	parquet_page *pages;   /* malloc'd, owned by the parquet_pages_state */
	size_t n;
	struct {
		colfs_status status;  /* why the walk stopped early (0: clean) */
		uint64_t offset;
	} stop;
} parquet_pages_list;

colfs_status parquet_pages_create(parquet_region_state *s, parquet_pages_state **out);
void parquet_pages_destroy(parquet_pages_state *v);

/* The page walk of chunk (g, c), walked on first use; `*out` is NULL for
 * a chunk that does not exist.  A walk problem is reported under `where`
 * the first time. */
colfs_status parquet_pages_list_get(colfs_tree *t, parquet_region_state *s, const colfs_node *where,
			    uint32_t g, uint32_t c, const parquet_pages_list **out);

/* One decoded data page, as parquet_pages_visit hands it out (all
 * pointers borrowed for the duration of the callback). */
typedef struct parquet_pages_data {
	size_t k;                /* the page's index in the chunk's walk */
	const parquet_page *pg;
	size_t n;                /* level entries */
	const uint32_t *def;     /* NULL: every entry is at max_def */
	const uint32_t *rep;     /* NULL: every entry starts a row */
	uint32_t max_def;
	size_t nonnull;          /* values (entries at max_def) */
	const pq_values *vals;   /* the values, or the dictionary when idx */
	const uint32_t *idx;     /* dictionary indices of the values, or NULL */
} parquet_pages_data;

typedef colfs_status (*parquet_pages_fn)(void *ctx, const parquet_pages_data *pd);

/* Decode the data pages of chunk (g, c) one at a time, in order, and call
 * `fn` on each (memory: one page).  Stops at the first page that fails
 * (reported under the page, as the value views report it) and returns its
 * status, or `fn`'s first non-OK status; COLFS_OK when none fails (a walk
 * that found no data page too). */
colfs_status parquet_pages_visit(colfs_tree *t, parquet_region_state *s,
				   const colfs_node *where, uint32_t g,
				   uint32_t c, parquet_pages_fn fn, void *ctx);

/* The column's type as the renderer and parser take it. */
pq_type parquet_pages_type_of(const parquet_schema_elem *e);

/* Objects freed with the pipeline state (after its dictionaries): a
 * view registers its state here, first member of its struct. */
typedef struct parquet_pages_kept {
	struct parquet_pages_kept *next, *prev;
	void (*free)(struct parquet_pages_kept *k);
} parquet_pages_kept;
void parquet_pages_keep(parquet_pages_state *v, parquet_pages_kept *k);
/* Take `k` off the list again (its owner frees it), in any order: a
 * mount frees the views of the listings least recently used first. */
void parquet_pages_unkeep(parquet_pages_state *v, parquet_pages_kept *k);

/* A decoded dictionary of one chunk, refcounted. */
typedef struct parquet_pages_dict {
	uint32_t g, c;
	int refs;
	uint64_t use;            /* last use, for eviction */
	pq_values vals;
	uint8_t *buf;            /* the decompressed page `vals` points into */
} parquet_pages_dict;

/* The dictionary of chunk (g, c), referenced (parquet_pages_dict_unref when done). */
colfs_status parquet_pages_dict_get(colfs_tree *t, parquet_region_state *s, uint32_t g, uint32_t c,
			  const parquet_pages_list *w, parquet_pages_dict **out, colfs_err *e);
void parquet_pages_dict_unref(parquet_pages_state *v, parquet_pages_dict *d);

/* Buffers a cursor reuses from page to page (a page's stored and
 * decompressed bytes, its levels and its decoded values), so that
 * sequential reading does not map and fault in fresh memory for every
 * page.  One per cursor: a page decoded with it borrows these buffers
 * until the next decode with the same scratch.
 *
 * A compressed page's stored bytes are read into the values buffer
 * (`vals`): they are dead once decompressed, before the values are
 * decoded, so a page costs its decompressed bytes plus the larger of its
 * stored bytes and its values array, not the sum (the memory bound of
 * docs/performance.md).  An uncompressed page is read into `out`. */
typedef struct parquet_pages_scratch {
	colfs_piece_cache *bufs;  /* where the buffers come from and go back
				   * to (the tree's pool; parquet_pages_decode
				   * sets it) */
	uint8_t *out;
	size_t out_cap;
	uint32_t *def, *rep;
	size_t def_cap, rep_cap;  /* entries */
	pq_values_pool vals;
	/* Set by the scratch's owner when it reads the values in order
	 * (render_lines): PLAIN BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY pages
	 * are then decoded in_page (pq_values_decode_in_page) and the
	 * stored bytes' buffer is freed once they are decompressed, so such
	 * a page holds its decompressed bytes and a mark per 64 values, not
	 * 16 bytes a value besides. */
	bool in_page;
	/* Set by the scratch's owner for the decode of one page: a
	 * compressed page's stored bytes are read into this buffer (of
	 * *stored_cap bytes, replaced when short) instead of the values
	 * buffer, and it is left there for the owner's next page.  A view
	 * decoding ahead sets it while the piece cache is charged for those
	 * bytes (parquet_shared_pages.c, shared_ahead): a page's stored bytes then
	 * reuse the last page's buffer, where a fresh block of 33 MB (an
	 * md5 page) was mapped, faulted in and zeroed by the kernel for each
	 * page.  NULL: as above. */
	uint8_t **stored;
	size_t *stored_cap;
} parquet_pages_scratch;
void parquet_pages_scratch_free(parquet_pages_scratch *sc);

/* The decompressed bytes of page `pg`, malloc'd (data pages v2: the
 * levels as stored, then the decompressed values).  A CRC mismatch served
 * under checksums=ignore leaves its message in `e` with status 0. */
colfs_status parquet_pages_bytes(colfs_tree *t, parquet_region_state *s, const parquet_chunk *ch,
			    const parquet_page *pg, uint8_t **out,
			    size_t *out_len, colfs_err *e);

/* One decoded data page. */
typedef struct parquet_pages_decoded {
	size_t n;              /* level entries */
	uint32_t *def, *rep;   /* NULL: max_def / 0 for every entry */
	size_t nonnull;
	pq_values vals;        /* non-null values (or dictionary indices) */
	parquet_pages_dict *dict;        /* referenced when vals.indices */
	uint8_t *buf;          /* decompressed page; views point into it */
	size_t buf_len;
	bool buf_owned;        /* false: a cursor's scratch buffer */
	bool levels_owned;     /* false: def and rep are the scratch's */
	uint32_t max_def;
} parquet_pages_decoded;

bool parquet_pages_is_data(const parquet_page *pg);
/* The rows data page `pg` of a chunk of `col` holds, as its header tells
 * them without decoding: a flat column's num_values, a data page v2's
 * num_rows; else -1 (a v1 page of a repeated column: known only from
 * its repetition levels). */
int64_t parquet_pages_rows(const parquet_column *col, const parquet_page *pg);
/* A chunk's OffsetIndex: its page_locations (each field -1 where the
 * entry lacks it), as stored: nothing in it is trusted. */
typedef struct parquet_offset_index {
	uint64_t off;          /* where it starts in the file */
	uint32_t n;
	int64_t *offset, *first_row;
	int32_t *size;
} parquet_offset_index;

/* Read and parse chunk `ch`'s OffsetIndex (decrypted when the chunk's
 * column is); on failure `oi` is left empty.  Free with
 * parquet_offset_index_free. */
colfs_status parquet_offset_index_read(parquet_region_state *s,
				       const parquet_chunk *ch,
				       parquet_offset_index *oi, colfs_err *e);
void parquet_offset_index_free(parquet_offset_index *oi);
/* The rows data page k of chunk (g, c) holds and the first of them, for
 * a page whose header does not tell them (a v1 page of a repeated column
 * whose levels cannot be read): the row group's rows when it is the
 * chunk's only data page, else from the chunk's OffsetIndex (this page's
 * first_row_index and the next's, or the row group's rows for the last).
 * False when neither tells: no OffsetIndex, it does not parse, no entry
 * is at the page's offset, or its rows do not fit the row group. */
bool parquet_pages_rows_indexed(parquet_region_state *s, uint32_t g,
				uint32_t c, const parquet_pages_list *w,
				size_t k, int64_t *first, int64_t *rows);
/* Decode data page k of chunk (g, c) (levels and values), with `sc`'s
 * buffers when not NULL.  Problems are reported here (under the page)
 * and returned. */
colfs_status parquet_pages_decode(colfs_tree *t, parquet_region_state *s,
			     const colfs_node *where, uint32_t g, uint32_t c,
			     const parquet_pages_list *w, size_t k, parquet_pages_scratch *sc,
			     parquet_pages_decoded *p);
void parquet_pages_release(parquet_pages_state *v, parquet_pages_decoded *p);

#endif

/* colfs: what the files of the Parquet value views share (module-private):
 * the leaf's rendering context and the lines of a page
 * (parquet_render_lines.c), the chunk and page views (parquet_page_views.c),
 * the decoded pages a table view's readers share (parquet_shared_pages.c),
 * the cursors and fields those readers read (parquet_view_fields.c) and the
 * table views themselves (parquet_views.c).  Calls go down that list, never
 * up; the small hot helpers stay inline here. */
#ifndef COLFS_PARQUET_VIEWS_INT_H
#define COLFS_PARQUET_VIEWS_INT_H

#include "parquet_views.h"

#include <pthread.h>
#include <stddef.h>

#include "../core/render.h"
#include "decode/pq_assemble.h"
#include "decode/pq_decode.h"

typedef struct parquet_views_view parquet_views_view;

/* A leaf's rendering context. */
typedef struct parquet_views_leaf {
	pq_type type;
	bool fast_int;
	bool fast_uint;          /* fast_int, unsigned */
	bool fast_str;           /* BYTE_ARRAY with a string annotation */
	colfs_render text, json;
} parquet_views_leaf;

/* parquet_render_lines.c */
void pv_leaf_init(parquet_views_leaf *l, colfs_tree *t, const parquet_column *col);
void pv_raw_val(colfs_buf *b, const parquet_pages_decoded *p, size_t j);
void pv_render_lines(colfs_buf *b, const parquet_views_leaf *l, const parquet_pages_decoded *p,
			 size_t from, size_t to, size_t *j);

/* Value j (among the non-null values) of a page. */
static inline void pv_render_val(colfs_buf *b, const colfs_render *r,
			      const parquet_views_leaf *l, const parquet_pages_decoded *p, size_t j)
{
	if (p->vals.indices)
		pq_render_value(b, r, &l->type, &p->dict->vals,
				p->vals.v.idx[j]);
	else
		pq_render_value(b, r, &l->type, &p->vals, j);
}

typedef struct parquet_views_shared parquet_views_shared;

/* More readers than this wait for one to be free. */
#define VIEW_READERS_MAX 16
/* Pieces whose reader has finished, remembered for pv_shared_wanted_locked
 * (their worker may still count them as rendering). */
#define SHARED_DONE 32

/* A piece being rendered, one per reader: the records of row group g it
 * still has to read, [from, to). */
typedef struct parquet_views_claim {
	bool used;
	uint64_t piece;
	uint32_t g;
	uint64_t from, to;
} parquet_views_claim;

typedef struct parquet_views_shpage {
	struct parquet_views_shpage *next;
	parquet_views_shared *owner;
	uint32_t g, leaf;
	size_t k;
	unsigned refs;
	bool skip;                    /* a damaged page's stand-in whose
				       * rows -o on_damage=skip leaves out */
	bool stand;                   /* a damaged page's stand-in (null or
				       * skip) */
	bool ahead;                   /* decoded ahead, no reader took it yet */
	uint64_t rec0, rec1;          /* its records of row group g, [rec0,
				       * rec1) (views that track: a flat leaf) */
	parquet_pages_decoded p;
	parquet_pages_scratch sc;     /* the buffers p points into */
} parquet_views_shpage;

struct parquet_views_shared {
	pthread_mutex_t lock;         /* the list and the counts */
	pthread_cond_t unref;         /* a page's last reference went */
	bool one_leaf;                /* a view of one leaf: see pv_shared_get */
	bool in_page;                 /* its pages' strings are read in
				       * order (pv_render_lines): decoded
				       * in_page (parquet_pages_scratch) */
	pthread_mutex_t decode;       /* one page decoded at a time */
	parquet_pages_state *v;
	parquet_views_shpage *pages;
	parquet_pages_scratch spare;  /* a freed page's buffers, reused */
	parquet_views_shpage **newest; /* by leaf: pv_shared_prune_locked's */
	uint32_t newest_cap;
	/* Pieces still to read a page (a view of one flat leaf): the
	 * claims by reader slot, the pieces finished last, and the view's
	 * tree and node for the pieces the workers render
	 * (colfs_tree_pieces_rendering). */
	bool track;
	parquet_views_claim claims[VIEW_READERS_MAX];
	uint64_t done[SHARED_DONE];
	unsigned done_at;
	colfs_tree *t;
	const colfs_node *node;
	/* The view's last piece is rendered (table_piece): a page still
	 * in use then is freed with its buffers when its last reference
	 * goes, not kept as its leaf's newest.  For a tracked view, the
	 * pieces in end_late were still rendering: each piece that ends
	 * gives back what none of those needs (pv_shared_end_locked); another
	 * piece starting clears it. */
	bool ended;
	uint64_t end_late[VIEW_READERS_MAX];
	unsigned n_end_late;
	/* Decoding ahead (shared_ahead): a job queued or running, and the
	 * memory charged to the tree's cache for a second set of page
	 * buffers while the view holds more than one. */
	bool ahead_busy;
	colfs_tree *charged_to;
	uint64_t charged;
	/* The buffer the jobs read a page's stored bytes into (in_page
	 * pages: parquet_pages_scratch's `stored`), kept from job to job
	 * while the charge, which counts those bytes, is held; used by the
	 * job alone (ahead_busy), and given back with the charge. */
	uint8_t *stored;
	size_t stored_cap;
};

/* What pv_shared_prune_locked frees among the unreferenced pages: those
 * with a newer one of their leaf that no piece rendering now still needs
 * (pv_shared_wanted_locked), all of them, or all that no such piece needs. */
enum { PRUNE_OLDER, PRUNE_ALL, PRUNE_UNWANTED };

/* parquet_shared_pages.c */
void pv_shared_init(parquet_views_shared *sh, parquet_pages_state *v);
bool pv_view_piece_rows(const parquet_views_shared *sh, uint64_t index,
			    uint32_t *g, uint64_t *r0, uint64_t *m);
bool pv_shared_wanted_locked(parquet_views_shared *sh, uint32_t g,
				 uint64_t rec0, uint64_t rec1);
void pv_shared_settle_locked(parquet_views_shared *sh);
void pv_shared_prune_locked(parquet_views_shared *sh, int how);
void pv_shared_end_locked(parquet_views_shared *sh);
void pv_shared_destroy(parquet_views_shared *sh);
void pv_shpage_unref(parquet_views_shpage *p);
colfs_status pv_shared_get(colfs_tree *t, parquet_region_state *s,
			       const colfs_node *f, parquet_views_shared *sh,
			       uint32_t g, uint32_t leaf,
			       const parquet_pages_list *w, size_t k,
			       uint64_t rec, const parquet_views_claim *me,
			       parquet_views_shpage **out);

/* --- per-leaf cursors ------------------------------------------------------
 *
 * A cursor stands in chunk (g, leaf) at entry i of page k, with `rec`
 * records started before that entry.  It always stands at a record
 * boundary (or at the chunk's end) between calls.  Flat leaves (max_rep
 * 0) skip whole pages by their header's num_values without decoding. */
typedef struct parquet_views_cursor {
	uint32_t leaf;           /* parquet_file.columns index */
	parquet_views_leaf r;
	bool positioned;
	uint32_t g;
	const parquet_pages_list *w;
	size_t k;                /* current page */
	bool loaded;             /* p holds page k */
	parquet_pages_decoded p; /* borrowed from sp */
	parquet_views_shpage *sp;          /* the shared page, referenced */
	size_t i, j;             /* next entry, next non-null value in p */
	uint64_t rec;
	bool skip;               /* page k's rows are left out (on_damage) */
	bool stand;              /* page k is a damaged page's stand-in */
	parquet_views_claim *claim; /* its reader's (a view that tracks) */
} parquet_views_cursor;

/* --- fields: one top-level field (flat leaf, or nested through the
 * record assembler), or a nested leaf without repeated ancestors --------- */

typedef struct parquet_views_acc {          /* one leaf's share of a nested batch */
	uint32_t *rep, *def;
	uint8_t *hasv;                /* per entry: it carries a value */
	size_t n, cap;
	size_t nvals;
	colfs_buf text;
	size_t *off;
	uint64_t *poff;               /* the page of each value (file offset) */
	size_t offcap;
	bool raw;                     /* variant binaries: bytes, not JSON */
	uint8_t *skip;                /* per record of the batch: read from a
				       * damaged page's stand-in (on_damage) */
	size_t skipcap;
	bool any_skip;
} parquet_views_acc;

typedef struct parquet_views_field {
	const char *name;             /* raw name */
	uint32_t n_leaves;
	parquet_views_cursor *cur;
	pq_asm_plan *plan;            /* NULL: flat */
	bool plan_borrowed;           /* a reader's copy: the view owns it */
	pq_asm *as;
	parquet_views_acc *acc;
	uint64_t n_damaged;           /* records of the batch read from a
				       * damaged page's stand-in, taken out
				       * of every leaf (several leaves) */
} parquet_views_field;

enum { MODE_COLUMN, MODE_JSONL, MODE_CSV };

/* One reading state of a view: a cursor set over its fields and the
 * piece it stands before.  A piece call takes a free one (the one
 * standing at the wanted piece when there is one) and gives it back, so
 * several pieces of one view render at once (the core decodes ahead). */
typedef struct parquet_views_reader {
	struct parquet_views_reader *next;
	unsigned slot;                /* its claim: sh.claims[slot] */
	bool busy;
	uint64_t at;                  /* the piece its cursors stand before */
	parquet_views_field *fields;  /* [view n_fields] */
	colfs_buf tmp;
} parquet_views_reader;

struct parquet_views_view {
	parquet_pages_kept kept;                /* freed with the pipeline state */
	parquet_region_state *s;
	int mode;
	uint32_t g0, g1;              /* row groups [g0, g1) */
	uint64_t batch;
	uint64_t *cum;                /* pieces before row group g0 + i */
	uint32_t n_fields;
	parquet_views_field *fields;  /* the fields as made (plans owned) */
	colfs_render text, json;
	parquet_views_shared sh;      /* decoded pages, shared by readers */
	pthread_mutex_t lock;         /* the readers list and busy flags */
	pthread_cond_t freed;
	parquet_views_reader *readers;
	unsigned n_readers;
};

static inline uint32_t pv_view_end(const colfs_node *f)
{
	const parquet_views_view *w = colfs_node_ctx(f);
	return w->g1;
}

static inline parquet_views_shared *pv_view_shared(const colfs_node *f)
{
	parquet_views_view *w = colfs_node_ctx(f);
	return &w->sh;
}

static inline const parquet_views_view *pv_view_of_shared(const parquet_views_shared *sh)
{
	return (const parquet_views_view *)(const void *)
	       ((const char *)sh - offsetof(parquet_views_view, sh));
}

/* The rows of row group g (0 for a negative count). */
static inline int64_t pv_rg_rows(const parquet_region_state *s, uint32_t g)
{
	int64_t n = s->pf->row_groups[g].num_rows;
	return n > 0 ? n : 0;
}

/* parquet_view_fields.c */
void pv_cur_reset(parquet_pages_state *v, parquet_views_cursor *cu);
colfs_status pv_chunk_fail(colfs_tree *t, const parquet_region_state *s,
			       const colfs_node *f, uint64_t off,
			       const char *what, uint32_t g, uint32_t leaf);
colfs_status pv_cur_fill(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			     parquet_views_cursor *cu);
void pv_view_free(parquet_views_view *w);
colfs_status pv_reader_take(parquet_views_view *w, uint64_t index,
				parquet_views_reader **out);
void pv_reader_give(parquet_views_view *w, parquet_views_reader *rd,
			uint64_t at);
colfs_status pv_field_init_leaf(colfs_tree *t, parquet_region_state *s, parquet_views_field *fl,
				    uint32_t leaf, const char *name);
colfs_status pv_field_init_nested(colfs_tree *t, parquet_region_state *s,
				      parquet_views_field *fl, uint32_t field,
				      colfs_err *e);
bool pv_field_row_damaged(const parquet_views_field *fl, uint64_t row);
colfs_status pv_field_load(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			       parquet_views_field *fl, uint32_t g, uint64_t r,
			       uint64_t m);
colfs_status pv_field_next(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			       parquet_views_field *fl, const colfs_render *r,
			       colfs_buf *b, uint64_t row, bool *drop);

#endif

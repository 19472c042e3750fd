/* colfs: the Parquet table views' decoded pages shared by a view's
 * readers, their memory bound, and the next page decoded ahead. */
#include "parquet_views_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- decoded pages shared by a view's readers -----------------------------
 *
 * The pieces of a table view are far smaller than a page (a DuckDB chunk
 * may be one 30 MB page), so readers rendering pieces of one view at once
 * would each decode the same page.  They share it instead: a page is
 * decoded once (one at a time per view), referenced by every cursor
 * standing in it, and kept while unreferenced only while it is its
 * leaf's newest page (the next piece's reader may still need it).  A
 * view holds at most one decoded page per leaf beyond those in use, and
 * one spare set of page buffers.
 *
 * Pieces are handed out in order but rendered at once, so a piece may
 * reach its page after a later piece has taken the next one: in a view
 * of one flat leaf an older page is kept while a piece rendering now
 * still has rows of it to read, whether its reader has taken the page
 * yet or not (a claim, or a piece the workers have taken and not yet
 * brought here: pv_shared_wanted_locked), and the next page is decoded only
 * once the pieces before it have left the older ones (pv_shared_get).
 * Freed at once, such a page was decoded again for the late piece, and
 * the newer page, freed for it, again for the piece after. */

void pv_shared_init(parquet_views_shared *sh, parquet_pages_state *v)
{
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->unref, NULL);
	pthread_mutex_init(&sh->decode, NULL);
	sh->v = v;
	for (unsigned i = 0; i < SHARED_DONE; i++)
		sh->done[i] = UINT64_MAX;
}

/* Row group, first row and rows of piece `index` of the view that holds
 * `sh`; false for none (a CSV header, past the end). */
bool pv_view_piece_rows(const parquet_views_shared *sh, uint64_t index,
			    uint32_t *g, uint64_t *r0, uint64_t *m)
{
	const parquet_views_view *w = pv_view_of_shared(sh);
	uint32_t ng = w->g1 - w->g0, lo;

	if (w->mode == MODE_CSV) {
		if (index == 0)
			return false;
		index--;
	}
	if (!ng || index >= w->cum[ng])
		return false;
	lo = (uint32_t)colfs_part_of_piece(w->cum, ng, index);
	*g = w->g0 + lo;
	*r0 = (index - w->cum[lo]) * w->batch;
	*m = (uint64_t)pv_rg_rows(w->s, *g) - *r0;
	if (*m > w->batch)
		*m = w->batch;
	return true;
}

/* The pieces of that view holding rows of [rec0, rec1) of row group g:
 * [*lo, *hi). */
static void view_rows_pieces(const parquet_views_shared *sh, uint32_t g,
			     uint64_t rec0, uint64_t rec1, uint64_t *lo,
			     uint64_t *hi)
{
	const parquet_views_view *w = pv_view_of_shared(sh);
	uint64_t rows, csv = w->mode == MODE_CSV;

	*lo = *hi = 0;
	if (g < w->g0 || g >= w->g1)
		return;
	rows = (uint64_t)pv_rg_rows(w->s, g);
	if (rec1 > rows)
		rec1 = rows;
	if (rec0 >= rec1)
		return;
	*lo = w->cum[g - w->g0] + rec0 / w->batch + csv;
	*hi = w->cum[g - w->g0] + (rec1 - 1) / w->batch + 1 + csv;
}

/* Has a piece the workers (or a reader) render now not reached the
 * view yet (no claim) nor finished?  Called with sh->lock held. */
static bool shared_unclaimed_locked(const parquet_views_shared *sh,
				    uint64_t j)
{
	for (unsigned i = 0; i < VIEW_READERS_MAX; i++)
		if (sh->claims[i].used && sh->claims[i].piece == j)
			return false;
	for (unsigned i = 0; i < SHARED_DONE; i++)
		if (sh->done[i] == j)
			return false;
	return true;
}

/* Does a piece rendering now still have rows of [rec0, rec1) of row
 * group g to read: a claim, or a piece handed out that has not reached
 * the view yet?  Called with sh->lock held. */
bool pv_shared_wanted_locked(parquet_views_shared *sh, uint32_t g,
				 uint64_t rec0, uint64_t rec1)
{
	uint64_t lo, hi, out[VIEW_READERS_MAX];
	size_t n;

	for (unsigned i = 0; i < VIEW_READERS_MAX; i++) {
		const parquet_views_claim *c = &sh->claims[i];
		if (c->used && c->g == g && c->from < rec1 && c->to > rec0)
			return true;
	}
	if (!sh->t)
		return false;
	view_rows_pieces(sh, g, rec0, rec1, &lo, &hi);
	n = colfs_tree_pieces_rendering(sh->t, sh->node, lo, hi, out,
					VIEW_READERS_MAX);
	for (size_t i = 0; i < n; i++)
		if (shared_unclaimed_locked(sh, out[i]))
			return true;
	return false;
}

/* Is a piece before `piece` rendering now that still has rows to read
 * before record `rec` of row group g (a page before the one the caller
 * is to decode)?  *unclaimed: such a piece that has not reached the view
 * yet (the view hears nothing when it does: wait for it to leave its
 * renderer's hands, colfs_tree_piece_wait_left), else UINT64_MAX.
 * Called with sh->lock held. */
static bool shared_late_locked(parquet_views_shared *sh, uint64_t piece,
			       uint32_t g, uint64_t rec, uint64_t *unclaimed)
{
	uint64_t out[VIEW_READERS_MAX];
	size_t n;

	for (unsigned i = 0; i < VIEW_READERS_MAX; i++) {
		const parquet_views_claim *c = &sh->claims[i];
		if (c->used && c->piece < piece &&
		    (c->g < g || (c->g == g && c->from < rec)))
			return true;
	}
	if (!sh->t)
		return false;
	n = colfs_tree_pieces_rendering(sh->t, sh->node, 0, piece, out,
					VIEW_READERS_MAX);
	for (size_t i = 0; i < n; i++) {
		uint32_t jg;
		uint64_t r0, m;
		if (shared_unclaimed_locked(sh, out[i]) &&
		    pv_view_piece_rows(sh, out[i], &jg, &r0, &m) &&
		    (jg < g || (jg == g && r0 < rec))) {
			*unclaimed = out[i];
			return true;
		}
	}
	return false;
}

/* The jobs' stored bytes buffer back to the tree's pool.  Called with
 * sh->lock held, no job running (ahead_busy false). */
static void shared_stored_free_locked(parquet_views_shared *sh)
{
	if (sh->stored)
		colfs_piece_cache_buf_put(colfs_tree_bufs(sh->charged_to),
					  sh->stored, sh->stored_cap);
	sh->stored = NULL;
	sh->stored_cap = 0;
}

/* Give back the charge for a second set of page buffers once the view
 * holds one set at most (its pages and the spare) and no job decodes
 * ahead.  Called with sh->lock held. */
void pv_shared_settle_locked(parquet_views_shared *sh)
{
	unsigned sets = sh->spare.out || sh->spare.vals.mem;

	if (!sh->charged || sh->ahead_busy)
		return;
	for (parquet_views_shpage *q = sh->pages; q && sets < 2; q = q->next)
		sets++;
	if (sets <= 1) {
		colfs_tree_mem_uncharge(sh->charged_to, sh->charged);
		sh->charged = 0;
		shared_stored_free_locked(sh);
	}
}

/* Is `a` after `b` in reading order? */
static bool shpage_after(const parquet_views_shpage *a,
			 const parquet_views_shpage *b)
{
	return a->g != b->g ? a->g > b->g : a->k > b->k;
}

/* Free the unreferenced pages `how` says; their buffers become the
 * spare ones.
 * Linear in the pages held: a view of 1000 leaves (rows.jsonl of a wide
 * file) holds a page of each, and comparing every page with every other
 * at every unreference took a third of colfs-tool check's time.
 * Called with sh->lock held. */
void pv_shared_prune_locked(parquet_views_shared *sh, int how)
{
	parquet_views_shpage **pp = &sh->pages;

	if (how == PRUNE_OLDER) {
		uint32_t need = 0;
		for (parquet_views_shpage *q = sh->pages; q; q = q->next)
			if (q->leaf >= need)
				need = q->leaf + 1;
		if (need > sh->newest_cap) {
			parquet_views_shpage **grown =
				realloc(sh->newest, (size_t)need * sizeof *grown);
			if (!grown)
				return;   /* kept: freed at the view's end */
			memset(grown + sh->newest_cap, 0,
			       (size_t)(need - sh->newest_cap) * sizeof *grown);
			sh->newest = grown;
			sh->newest_cap = need;
		}
		/* a page decoded ahead is kept, and keeps none: the
		 * readers still need the one before it */
		for (parquet_views_shpage *q = sh->pages; q; q = q->next) {
			parquet_views_shpage **nw = &sh->newest[q->leaf];
			if (!q->ahead && (!*nw || shpage_after(q, *nw)))
				*nw = q;
		}
	}
	while (*pp) {
		parquet_views_shpage *p = *pp;
		bool go = !p->refs &&
			  (how != PRUNE_OLDER ||
			   (!p->ahead && sh->newest[p->leaf] != p));
		if (go && how != PRUNE_ALL && sh->track)
			go = !pv_shared_wanted_locked(sh, p->g, p->rec0, p->rec1);
		if (go) {
			*pp = p->next;
			parquet_pages_release(sh->v, &p->p);
			if (!sh->spare.out && !sh->spare.vals.mem) {
				sh->spare = p->sc;
			} else {
				parquet_pages_scratch_free(&p->sc);
			}
			free(p);
		} else {
			pp = &p->next;
		}
	}
	/* every leaf seen keeps its newest page: clearing by the pages
	 * left clears every entry set */
	if (how == PRUNE_OLDER)
		for (parquet_views_shpage *q = sh->pages; q; q = q->next)
			sh->newest[q->leaf] = NULL;
	pv_shared_settle_locked(sh);
}

/* A view of one flat leaf read to its end (table_piece): its pages and
 * buffers given back, but for the pages a piece still rendering needs;
 * once there are none, the spare set too (into the tree's pool).
 * Called with sh->lock held. */
void pv_shared_end_locked(parquet_views_shared *sh)
{
	pv_shared_prune_locked(sh, PRUNE_UNWANTED);
	if (!sh->pages)
		parquet_pages_scratch_free(&sh->spare);
	pv_shared_settle_locked(sh);
}

void pv_shared_destroy(parquet_views_shared *sh)
{
	for (parquet_views_shpage *p = sh->pages; p; p = p->next)
		p->refs = 0;
	pv_shared_prune_locked(sh, PRUNE_ALL);
	parquet_pages_scratch_free(&sh->spare);
	shared_stored_free_locked(sh);
	free(sh->newest);
	pthread_cond_destroy(&sh->unref);
	pthread_mutex_destroy(&sh->decode);
	pthread_mutex_destroy(&sh->lock);
}

void pv_shpage_unref(parquet_views_shpage *p)
{
	parquet_views_shared *sh = p->owner;

	pthread_mutex_lock(&sh->lock);
	p->refs--;
	if (!p->refs) {
		if (sh->ended)
			pv_shared_end_locked(sh);
		else
			pv_shared_prune_locked(sh, PRUNE_OLDER);
		pthread_cond_broadcast(&sh->unref);
	}
	pthread_mutex_unlock(&sh->lock);
}

static parquet_views_shpage *shared_find_locked(parquet_views_shared *sh,
						uint32_t g, uint32_t leaf,
						size_t k)
{
	for (parquet_views_shpage *p = sh->pages; p; p = p->next)
		if (p->g == g && p->leaf == leaf && p->k == k) {
			p->refs++;
			p->ahead = false;
			return p;
		}
	return NULL;
}

int64_t parquet_views_page_rows(const parquet_file *pf, uint32_t leaf,
				const parquet_pages_list *w, size_t k)
{
	const parquet_column *col;

	if (k >= w->n || leaf >= pf->n_columns)
		return -1;
	col = &pf->columns[leaf];
	return parquet_pages_rows(col, &w->pages[k]);
}

/* -o on_damage=null or skip: a page of a flat leaf that fails to decode
 * stands as a page of as many NULLs as its header's num_values, so the
 * view goes on past it with its rows in place (null), or leaves them out
 * (skip: *skip is set, and the views drop the rows read from it); the
 * rows are filed under the view.  Any other case, or running out of
 * memory, answers `st`. */
static colfs_status damaged_page(colfs_tree *t, parquet_region_state *s,
				 const colfs_node *f, uint32_t g, uint32_t leaf,
				 const parquet_pages_list *w, size_t k,
				 colfs_status st, parquet_pages_decoded *p,
				 bool *skip)
{
	const parquet_page *pg = &w->pages[k];
	colfs_on_damage d = colfs_tree_options(t)->on_damage;
	uint64_t first = 0;
	size_t n;

	int64_t rows = -1, ifirst = -1;

	if (st == COLFS_ENOMEM || st == COLFS_EIO ||
	    d == COLFS_ON_DAMAGE_ERROR || leaf >= s->pf->n_columns)
		return st;
	rows = parquet_views_page_rows(s->pf, leaf, w, k);
	/* a v1 page of a repeated column: its rows are in its levels; the
	 * chunk tells them (and where they start) when they cannot be read */
	if (rows < 0 && s->pf->columns[leaf].max_rep > 0 &&
	    !parquet_pages_rows_indexed(s, g, leaf, w, k, &ifirst, &rows))
		rows = -1;
	if (rows < 0 || (uint64_t)rows > s->max_alloc / sizeof *p->def)
		return st;
	n = (size_t)rows;
	memset(p, 0, sizeof *p);
	p->def = calloc(n ? n : 1, sizeof *p->def);
	p->rep = calloc(n ? n : 1, sizeof *p->rep);
	p->levels_owned = true;
	if (!p->def || !p->rep) {
		free(p->def);
		free(p->rep);
		memset(p, 0, sizeof *p);
		return COLFS_ENOMEM;
	}
	p->n = n;
	p->max_def = 1;      /* every level 0: every entry a NULL row */
	if (ifirst >= 0)
		first = (uint64_t)ifirst;
	else for (size_t i = 0; i < k; i++)
		if (parquet_pages_is_data(&w->pages[i]))
			{
			int64_t ri = parquet_views_page_rows(s->pf, leaf, w, i);
			int64_t ir;
			if (ri < 0 && parquet_pages_rows_indexed(s, g, leaf, w, k,
								 &ifirst, &ir)) {
				first = (uint64_t)ifirst;
				break;
			}
			if (ri < 0) {
				free(p->def);
				free(p->rep);
				memset(p, 0, sizeof *p);
				return st;
			}
			first += (uint64_t)ri;
		}
	colfs_tree_report(t, f, pg->offset, st,
			  "rows %llu to %llu of row group %u (column %u, page "
			  "%zu) %s: on_damage",
			  (unsigned long long)first,
			  (unsigned long long)(first + n - 1), g, leaf, k,
			  d == COLFS_ON_DAMAGE_SKIP ? "left out"
						    : "read as NULL");
	*skip = d == COLFS_ON_DAMAGE_SKIP;
	return COLFS_OK;
}

/* --- the next page, decoded ahead ------------------------------------------
 *
 * DuckDB writes one page per row group (1M values), so a view's readers
 * all wait for the one thread decompressing and decoding the next page
 * (pv_shared_get) while the other cores idle: about half of `cat columns/X`
 * was that serial step.  When a reader takes a page of a one-leaf view
 * that holds no other, a job on the tree's workers decodes the page after
 * it (in the next row group when the chunk ends) while the readers render
 * this one.  The view then holds two sets of page buffers where the
 * memory bound counts one: the second is charged to the piece cache
 * (colfs_tree_mem_charge), which gives up as much, and nothing is decoded
 * ahead when it would take more than half of the cache.  An in_page page
 * (its values read from the decompressed bytes) is charged its stored
 * bytes only, kept in sh->stored while the charge is held (md5: 33 MB):
 * the bound's "2 x page" holds its two decompressed pages, the one read
 * and the one decoded ahead (docs/performance.md, "Memory"). */
typedef struct parquet_views_ahead_job {
	parquet_views_shared *sh;
	parquet_region_state *s;
	const colfs_node *f;
	uint32_t g, leaf;
	const parquet_pages_list *w;
	size_t k;
	uint64_t rec0, rec1;          /* its records (parquet_views_shpage) */
	bool keep_stored;             /* in_page: its stored bytes go to
				       * sh->stored (they are charged) */
} parquet_views_ahead_job;

static void shared_ahead_run(colfs_tree *t, void *arg, bool run)
{
	parquet_views_ahead_job *j = arg;
	parquet_views_shared *sh = j->sh;

	if (run) {
		pthread_mutex_lock(&sh->decode);
		pthread_mutex_lock(&sh->lock);
		bool want = sh->pages != NULL;
		for (parquet_views_shpage *q = sh->pages; q && want; q = q->next)
			want = q->leaf != j->leaf ||
			       (q->g == j->g ? q->k < j->k : q->g < j->g);
		parquet_views_shpage *p = want ? calloc(1, sizeof *p) : NULL;
		if (p) {
			p->sc = sh->spare;
			memset(&sh->spare, 0, sizeof sh->spare);
			p->sc.in_page = sh->in_page;
			if (j->keep_stored) {
				p->sc.stored = &sh->stored;
				p->sc.stored_cap = &sh->stored_cap;
			}
		}
		pthread_mutex_unlock(&sh->lock);
		/* A page that fails is left for its reader, who meets (and
		 * reports) the same problem. */
		colfs_status st = p ? parquet_pages_decode(t, j->s, j->f, j->g,
							   j->leaf, j->w, j->k,
							   &p->sc, &p->p)
				    : COLFS_OK;
		if (p) {
			p->sc.stored = NULL;
			p->sc.stored_cap = NULL;
		}
		if (p && st == COLFS_OK) {
			p->owner = sh;
			p->g = j->g;
			p->leaf = j->leaf;
			p->k = j->k;
			p->rec0 = j->rec0;
			p->rec1 = j->rec1;
			p->ahead = true;
			pthread_mutex_lock(&sh->lock);
			p->next = sh->pages;
			sh->pages = p;
			pthread_mutex_unlock(&sh->lock);
		} else if (p) {
			pthread_mutex_lock(&sh->lock);
			if (!sh->spare.out && !sh->spare.vals.mem)
				sh->spare = p->sc;
			else
				parquet_pages_scratch_free(&p->sc);
			pthread_mutex_unlock(&sh->lock);
			free(p);
		}
		pthread_mutex_unlock(&sh->decode);
	}
	pthread_mutex_lock(&sh->lock);
	sh->ahead_busy = false;
	pv_shared_prune_locked(sh, PRUNE_OLDER);
	pthread_mutex_unlock(&sh->lock);
	free(j);
}

/* Reader at page `cur`: decode the next data page of its leaf ahead, if
 * the view holds no other page and no job is at it already. */
static void shared_ahead(colfs_tree *t, parquet_region_state *s,
			 const colfs_node *f, parquet_views_shared *sh,
			 const parquet_views_shpage *cur)
{
	const parquet_pages_list *w;
	uint32_t g = cur->g;
	size_t k = cur->k + 1;
	uint64_t need;
	bool last = false;

	if (!sh->one_leaf)
		return;
	pthread_mutex_lock(&sh->lock);
	bool go = !sh->ahead_busy && sh->pages == cur && !cur->next;
	if (go)
		sh->ahead_busy = true;
	need = (uint64_t)cur->sc.out_cap + cur->sc.vals.cap +
	       (uint64_t)(cur->sc.def_cap + cur->sc.rep_cap) * sizeof(uint32_t);
	pthread_mutex_unlock(&sh->lock);
	if (!go)
		return;
	if (parquet_pages_list_get(t, s, f, g, cur->leaf, &w) || !w)
		goto done;
	while (k < w->n && !parquet_pages_is_data(&w->pages[k]))
		k++;
	if (k >= w->n) {
		/* the view's last page: no stored bytes are read any more */
		last = g + 1 >= pv_view_end(f);
		if (w->stop.status || last ||
		    parquet_pages_list_get(t, s, f, g + 1, cur->leaf, &w) ||
		    !w)
			goto done;
		g++;
		for (k = 0; k < w->n && !parquet_pages_is_data(&w->pages[k]); k++)
			;
		if (k >= w->n)
			goto done;
	}
	/* A second set of page buffers: the current page's, and, when it
	 * is in_page (it gave back the buffer the stored bytes are read
	 * into, parquet_pages_scratch), the next page's stored bytes or,
	 * when that one is not in_page, its values array at most.  When
	 * both are in_page, the two pages' decompressed bytes are the
	 * bound's "2 x the largest decompressed page" (docs/performance.md,
	 * "Memory"): only the next one's stored bytes, while it
	 * decompresses, are beyond it, so they alone are charged (md5: 33
	 * of the default cache's 64 MiB, where the whole set, 69 MB, was
	 * refused and nothing was decoded ahead).  The charge is held as
	 * long as the view holds two sets, as any other: given back at
	 * each job's end, the cache refilled with pieces that the next
	 * charge evicted again, a page's worth of fresh memory each time
	 * and a higher peak (docs/performance.md).  The buffer
	 * those stored bytes are read into is kept for the next job as long
	 * as the charge is held (sh->stored). */
	bool keep_stored = false;
	if (cur->p.vals.in_page) {
		const parquet_page_header *nh = &w->pages[k].hdr;
		uint64_t stored = (uint64_t)nh->compressed_size;
		uint64_t more = stored + stored / 1024;
		if (!sh->in_page ||
		    !pq_values_in_page_fits(s->pf->columns[cur->leaf].elem->type,
					    nh->encoding)) {
			uint64_t vals = (uint64_t)nh->num_values * sizeof(pq_bytes);
			if (vals > more)
				more = vals;
		} else {
			keep_stored = true;
			/* (levels, kept with a page with nulls, are not
			 * in the bound's pages: those keep the whole set) */
			if (!cur->sc.def_cap && !cur->sc.rep_cap)
				need -= cur->sc.out_cap;
		}
		need += more;
	}
	pthread_mutex_lock(&sh->lock);
	if (!sh->charged) {
		if (!colfs_tree_mem_charge(t, need)) {
			pthread_mutex_unlock(&sh->lock);
			goto done;
		}
		sh->charged = need;
		sh->charged_to = t;
	}
	pthread_mutex_unlock(&sh->lock);
	/* its records, for a flat leaf: one a value */
	uint64_t rec0 = 0, rec1 = UINT64_MAX;
	if (sh->track) {
		for (size_t i = 0; i < k; i++)
			if (parquet_pages_is_data(&w->pages[i]) &&
			    w->pages[i].hdr.num_values > 0)
				rec0 += (uint64_t)w->pages[i].hdr.num_values;
		rec1 = rec0 + (w->pages[k].hdr.num_values > 0
			       ? (uint64_t)w->pages[k].hdr.num_values : 0);
	}
	parquet_views_ahead_job *j = malloc(sizeof *j);
	if (j) {
		*j = (parquet_views_ahead_job){.sh = sh, .s = s, .f = f, .g = g,
					       .leaf = cur->leaf, .w = w, .k = k,
					       .rec0 = rec0, .rec1 = rec1,
					       .keep_stored = keep_stored};
		if (colfs_tree_background(t, shared_ahead_run, j))
			return;
		free(j);
	}
done:
	pthread_mutex_lock(&sh->lock);
	sh->ahead_busy = false;
	/* Kept to the end, the buffer sat beside every piece when they
	 * all fit the cache (a 3M-row md5 file, 144 MiB of cache: 209 MiB
	 * at the end, not 196) */
	if (last)
		shared_stored_free_locked(sh);
	pv_shared_settle_locked(sh);
	pthread_mutex_unlock(&sh->lock);
}

/* Page k of chunk (g, leaf), decoded once for all the view's readers;
 * referenced (pv_shpage_unref).  `rec`: the records of row group g before
 * the page (a flat leaf's rows), `me`: the caller's claim (NULL in a
 * view that does not track them).
 *
 * The memory bound (docs/performance.md): in a view of one leaf, a page
 * is decoded only once no other page is in use (the readers still in the
 * previous page finish their pieces first) and the unused ones are freed,
 * so the view holds one decoded page, plus the next one's stored bytes
 * while it decompresses.  A reader waits here holding no page of the
 * view (a cursor gives its page back before taking the next, and a
 * reader given back holds none), and the pages it waits for are held by
 * threads rendering a piece, which need nothing from it: the wait ends.
 * It waits too for the pieces before the caller's that still have rows
 * of an older page to read (shared_late_locked): they wait only for
 * pieces before them, so the first one does not.  One that has not
 * reached the view yet (a worker took it; it may also find it in the
 * cache and never come) is waited for until it leaves its renderer's
 * hands, with no lock of the view held.  Views of several leaves
 * (rows.jsonl) need a page of each at once and do not wait. */
colfs_status pv_shared_get(colfs_tree *t, parquet_region_state *s,
			       const colfs_node *f, parquet_views_shared *sh,
			       uint32_t g, uint32_t leaf,
			       const parquet_pages_list *w, size_t k,
			       uint64_t rec, const parquet_views_claim *me,
			       parquet_views_shpage **out)
{
	parquet_views_shpage *p;
	colfs_status st;

	pthread_mutex_lock(&sh->lock);
	p = shared_find_locked(sh, g, leaf, k);
	pthread_mutex_unlock(&sh->lock);
	if (p) {
		*out = p;
		shared_ahead(t, s, f, sh, p);
		return COLFS_OK;
	}
	pthread_mutex_lock(&sh->decode);
	pthread_mutex_lock(&sh->lock);
	for (;;) {
		bool busy = false;
		p = shared_find_locked(sh, g, leaf, k);
		if (p || !sh->one_leaf)
			break;
		uint64_t unclaimed = UINT64_MAX;
		for (parquet_views_shpage *q = sh->pages; q && !busy; q = q->next)
			busy = q->refs > 0;
		if (!busy && me && sh->track)
			busy = shared_late_locked(sh, me->piece, g, rec,
						  &unclaimed);
		if (!busy)
			break;
		/* Let the readers of the other page finish (they need
		 * neither this lock's holder nor the decode lock). */
		pthread_mutex_unlock(&sh->decode);
		if (unclaimed != UINT64_MAX) {
			/* it reaches the view, or is done without it (sh->t
			 * and sh->node are read under sh->lock) */
			colfs_tree *vt = sh->t;
			const colfs_node *vn = sh->node;
			pthread_mutex_unlock(&sh->lock);
			colfs_tree_piece_wait_left(vt, vn, unclaimed);
		} else {
			pthread_cond_wait(&sh->unref, &sh->lock);
			pthread_mutex_unlock(&sh->lock);
		}
		pthread_mutex_lock(&sh->decode);
		pthread_mutex_lock(&sh->lock);
	}
	if (!p && sh->one_leaf)
		pv_shared_prune_locked(sh, PRUNE_ALL);
	pthread_mutex_unlock(&sh->lock);
	if (p) {
		pthread_mutex_unlock(&sh->decode);
		*out = p;
		shared_ahead(t, s, f, sh, p);
		return COLFS_OK;
	}
	p = calloc(1, sizeof *p);
	if (!p) {
		pthread_mutex_unlock(&sh->decode);
		return COLFS_ENOMEM;
	}
	pthread_mutex_lock(&sh->lock);
	p->sc = sh->spare;
	memset(&sh->spare, 0, sizeof sh->spare);
	p->sc.in_page = sh->in_page;
	pthread_mutex_unlock(&sh->lock);
	st = parquet_pages_decode(t, s, f, g, leaf, w, k, &p->sc, &p->p);
	if (st) {
		st = damaged_page(t, s, f, g, leaf, w, k, st, &p->p,
				  &p->skip);
		p->stand = !st;
	}
	if (st) {
		pthread_mutex_unlock(&sh->decode);
		parquet_pages_scratch_free(&p->sc);
		free(p);
		return st;
	}
	p->owner = sh;
	p->g = g;
	p->leaf = leaf;
	p->k = k;
	p->rec0 = rec;
	p->rec1 = sh->track ? rec + p->p.n : UINT64_MAX;
	p->refs = 1;
	pthread_mutex_lock(&sh->lock);
	p->next = sh->pages;
	sh->pages = p;
	pv_shared_prune_locked(sh, PRUNE_OLDER);
	pthread_mutex_unlock(&sh->lock);
	pthread_mutex_unlock(&sh->decode);
	*out = p;
	shared_ahead(t, s, f, sh, p);
	return COLFS_OK;
}

/* colfs: the Parquet table views' per-leaf cursors and fields: a
 * cursor reads a leaf's chunk page by page; a field is one top-level
 * field (a flat leaf, or nested through the record assembler,
 * decode/pq_assemble.c) read by a view's reader. */
#include "parquet_views_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void cur_unload(parquet_views_cursor *cu)
{
	if (cu->loaded && cu->sp)
		pv_shpage_unref(cu->sp);
	cu->sp = NULL;
	cu->loaded = false;
}

void pv_cur_reset(parquet_pages_state *v, parquet_views_cursor *cu)
{
	(void)v;
	cur_unload(cu);
	cu->positioned = false;
}

colfs_status pv_chunk_fail(colfs_tree *t, const parquet_region_state *s,
			       const colfs_node *f, uint64_t off,
			       const char *what, uint32_t g, uint32_t leaf)
{
	if (!off) {
		/* no better place: the chunk's first byte */
		const parquet_chunk *ch = parquet_region_chunk(s, g, leaf);
		off = ch ? ch->start : COLFS_OFFSET_UNKNOWN;
	}
	colfs_err e = {0};
	colfs_fail(&e, COLFS_ECORRUPT, off, "row group %u, column %u: %s", g,
		   leaf, what);
	parquet_region_part_report(t, s, g, leaf, PARQUET_REGION_NO_PAGE, f, &e);
	return COLFS_ECORRUPT;
}

/* Load the page holding the next entry (page k or later); COLFS_END at
 * the end of the chunk. */
colfs_status pv_cur_fill(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			     parquet_views_cursor *cu)
{
	while (!cu->loaded || cu->i >= cu->p.n) {
		if (cu->loaded) {
			/* the piece is past this page's records: before the
			 * page is given back, so that no one waits for it */
			if (cu->claim) {
				parquet_views_shared *sh = pv_view_shared(f);
				pthread_mutex_lock(&sh->lock);
				if (cu->claim->from < cu->rec)
					cu->claim->from = cu->rec;
				pthread_mutex_unlock(&sh->lock);
			}
			cur_unload(cu);
			cu->k++;
		}
		if (cu->k >= cu->w->n) {
			if (cu->w->stop.status)
				return pv_chunk_fail(t, s, f, cu->w->stop.offset,
						  "the page walk stopped early: values are missing",
						  cu->g, cu->leaf);
			return COLFS_END;
		}
		if (!parquet_pages_is_data(&cu->w->pages[cu->k])) {
			cu->k++;
			continue;
		}
		COLFS_TRY(pv_shared_get(t, s, f, pv_view_shared(f), cu->g, cu->leaf, cu->w,
				     cu->k, cu->rec, cu->claim, &cu->sp));
		cu->p = cu->sp->p;
		cu->skip = cu->sp->skip;
		cu->stand = cu->sp->stand;
		cu->loaded = true;
		cu->i = cu->j = 0;
	}
	return COLFS_OK;
}

/* Stand at the first entry of record r of row group g. */
static colfs_status cur_seek(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			     parquet_views_cursor *cu, uint32_t g, uint64_t r)
{
	const parquet_column *col = &s->pf->columns[cu->leaf];
	colfs_status st;

	if (!cu->positioned || cu->g != g || cu->rec > r) {
		pv_cur_reset(s->values, cu);
		COLFS_TRY(parquet_pages_list_get(t, s, f, g, cu->leaf, &cu->w));
		if (!cu->w)
			return pv_chunk_fail(t, s, f, 0, "the row group has no chunk for this column",
					  g, cu->leaf);
		cu->g = g;
		cu->k = 0;
		cu->rec = 0;
		cu->positioned = true;
	}
	if (col->max_rep == 0) {
		while (cu->rec < r) {
			if (!cu->loaded) {
				const parquet_page *pg;
				if (cu->k >= cu->w->n)
					break;
				pg = &cu->w->pages[cu->k];
				if (!parquet_pages_is_data(pg) ||
				    cu->rec + (uint64_t)pg->hdr.num_values <= r) {
					if (parquet_pages_is_data(pg))
						cu->rec += (uint64_t)pg->hdr.num_values;
					cu->k++;
					continue;
				}
			}
			st = pv_cur_fill(t, s, f, cu);
			if (st)
				break;
			size_t take = cu->p.n - cu->i;
			if (take > r - cu->rec)
				take = (size_t)(r - cu->rec);
			if (cu->p.def) {
				for (size_t x = 0; x < take; x++)
					cu->j += cu->p.def[cu->i + x] ==
						 cu->p.max_def;
			} else {
				cu->j += take;
			}
			cu->i += take;
			cu->rec += take;
		}
		if (cu->rec < r) {
			pv_cur_reset(s->values, cu);
			return pv_chunk_fail(t, s, f, 0, "the chunk holds fewer values than the row group's rows",
					  g, cu->leaf);
		}
		return COLFS_OK;
	}
	for (;;) {
		st = pv_cur_fill(t, s, f, cu);
		if (st == COLFS_END && cu->rec == r)
			return COLFS_OK;
		if (st) {
			pv_cur_reset(s->values, cu);
			if (st == COLFS_END)
				return pv_chunk_fail(t, s, f, 0, "the chunk holds fewer records than the row group's rows",
						  g, cu->leaf);
			return st;
		}
		const parquet_pages_decoded *p = &cu->p;
		while (cu->i < p->n) {
			if (p->rep[cu->i] == 0) {
				if (cu->rec == r)
					return COLFS_OK;
				cu->rec++;
			} else if (cu->rec == 0) {
				/* before the chunk's first row start: the
				 * entry belongs to no row (parquet_pages_decode has
				 * reported where) */
				pv_cur_reset(s->values, cu);
				return pv_chunk_fail(t, s, f, 0, "entries before the chunk's first row start belong to no row",
						  g, cu->leaf);
			}
			if (!p->def || p->def[cu->i] == p->max_def)
				cu->j++;
			cu->i++;
		}
	}
}

static void field_free(parquet_pages_state *v, parquet_views_field *fl)
{
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		if (fl->cur)
			pv_cur_reset(v, &fl->cur[i]);
		if (fl->acc) {
			free(fl->acc[i].rep);
			free(fl->acc[i].def);
			free(fl->acc[i].hasv);
			free(fl->acc[i].off);
			free(fl->acc[i].poff);
			free(fl->acc[i].skip);
			colfs_buf_free(&fl->acc[i].text);
		}
	}
	free(fl->cur);
	free(fl->acc);
	pq_asm_destroy(fl->as);
	if (!fl->plan_borrowed)
		pq_asm_plan_destroy(fl->plan);
}

static void reader_free(parquet_views_view *w, parquet_views_reader *rd)
{
	if (!rd)
		return;
	for (uint32_t i = 0; rd->fields && i < w->n_fields; i++)
		field_free(w->s->values, &rd->fields[i]);
	free(rd->fields);
	colfs_buf_free(&rd->tmp);
	free(rd);
}

void pv_view_free(parquet_views_view *w)
{
	if (!w)
		return;
	while (w->readers) {
		parquet_views_reader *rd = w->readers;
		w->readers = rd->next;
		reader_free(w, rd);
	}
	for (uint32_t i = 0; i < w->n_fields; i++)
		field_free(w->s->values, &w->fields[i]);
	pv_shared_destroy(&w->sh);
	free(w->fields);
	free(w->cum);
	pthread_cond_destroy(&w->freed);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* A reader's own copy of field `src`: fresh cursors and assembler, the
 * view's plan borrowed. */
static colfs_status field_clone(const parquet_views_field *src,
				parquet_views_field *dst)
{
	uint32_t n = src->n_leaves ? src->n_leaves : 1;
	colfs_err e = {0};

	dst->name = src->name;
	dst->n_leaves = src->n_leaves;
	dst->plan = src->plan;
	dst->plan_borrowed = true;
	dst->cur = calloc(n, sizeof *dst->cur);
	if (!dst->cur)
		return COLFS_ENOMEM;
	for (uint32_t i = 0; i < src->n_leaves; i++) {
		dst->cur[i].leaf = src->cur[i].leaf;
		dst->cur[i].r = src->cur[i].r;
	}
	if (!src->plan)
		return COLFS_OK;
	dst->acc = calloc(n, sizeof *dst->acc);
	if (!dst->acc)
		return COLFS_ENOMEM;
	for (uint32_t i = 0; i < src->n_leaves; i++)
		dst->acc[i].raw = src->acc[i].raw;
	return pq_asm_create(src->plan, &dst->as, &e);
}

/* Take a free reader of `w` for piece `index`: the one standing at it,
 * else the nearest behind it (a cursor moves forward cheaply), else any;
 * a new one only when none is free. */
colfs_status pv_reader_take(parquet_views_view *w, uint64_t index,
				parquet_views_reader **out)
{
	parquet_views_reader *best = NULL;
	colfs_status st = COLFS_OK;

	*out = NULL;
	pthread_mutex_lock(&w->lock);
	for (;;) {
		for (parquet_views_reader *rd = w->readers; rd; rd = rd->next) {
			if (rd->busy)
				continue;
			if (!best || (rd->at <= index &&
				      (best->at > index || rd->at > best->at)))
				best = rd;
		}
		if (best || w->n_readers < VIEW_READERS_MAX)
			break;
		pthread_cond_wait(&w->freed, &w->lock);
	}
	if (!best) {
		best = calloc(1, sizeof *best);
		if (best)
			best->fields = calloc(w->n_fields ? w->n_fields : 1,
					      sizeof *best->fields);
		for (uint32_t i = 0; best && best->fields && !st &&
				     i < w->n_fields; i++)
			st = field_clone(&w->fields[i], &best->fields[i]);
		if (!best || !best->fields || st) {
			reader_free(w, best);
			pthread_mutex_unlock(&w->lock);
			return st ? st : COLFS_ENOMEM;
		}
		best->slot = w->n_readers;
		best->next = w->readers;
		w->readers = best;
		w->n_readers++;
	}
	best->busy = true;
	pthread_mutex_unlock(&w->lock);
	*out = best;
	return COLFS_OK;
}

/* Give a reader back, standing before piece `at`. */
void pv_reader_give(parquet_views_view *w, parquet_views_reader *rd,
			uint64_t at)
{
	pthread_mutex_lock(&w->lock);
	rd->busy = false;
	rd->at = at;
	pthread_cond_signal(&w->freed);
	pthread_mutex_unlock(&w->lock);
}

colfs_status pv_field_init_leaf(colfs_tree *t, parquet_region_state *s, parquet_views_field *fl,
				    uint32_t leaf, const char *name)
{
	fl->name = name;
	fl->n_leaves = 1;
	fl->cur = calloc(1, sizeof *fl->cur);
	if (!fl->cur)
		return COLFS_ENOMEM;
	fl->cur[0].leaf = leaf;
	pv_leaf_init(&fl->cur[0].r, t, &s->pf->columns[leaf]);
	return COLFS_OK;
}

colfs_status pv_field_init_nested(colfs_tree *t, parquet_region_state *s,
				      parquet_views_field *fl, uint32_t field,
				      colfs_err *e)
{
	const parquet_file *pf = s->pf;

	fl->name = pf->schema[field].name;
	COLFS_TRY(pq_asm_plan_create(pf->schema, pf->n_schema, field,
				     &fl->plan, e));
	COLFS_TRY(pq_asm_create(fl->plan, &fl->as, e));
	fl->n_leaves = pq_asm_plan_leaves(fl->plan);
	fl->cur = calloc(fl->n_leaves ? fl->n_leaves : 1, sizeof *fl->cur);
	fl->acc = calloc(fl->n_leaves ? fl->n_leaves : 1, sizeof *fl->acc);
	if (!fl->cur || !fl->acc)
		return colfs_fail(e, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory");
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		int32_t leaf = pq_asm_plan_leaf_column(fl->plan, i);
		if (leaf < 0 || (uint32_t)leaf >= pf->n_columns)
			return colfs_fail(e, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "field %s: leaf %d is not a column",
					  fl->name, leaf);
		fl->cur[i].leaf = (uint32_t)leaf;
		pv_leaf_init(&fl->cur[i].r, t, &pf->columns[leaf]);
		fl->acc[i].raw = pq_asm_plan_leaf_raw(fl->plan, i);
	}
	return COLFS_OK;
}

static bool acc_grow(parquet_views_acc *a, size_t need)
{
	if (need <= a->cap)
		return true;
	size_t cap = a->cap ? a->cap * 2 : 1024;
	while (cap < need)
		cap *= 2;
	uint32_t *r = realloc(a->rep, cap * sizeof *r);
	if (!r)
		return false;
	a->rep = r;
	uint32_t *d = realloc(a->def, cap * sizeof *d);
	if (!d)
		return false;
	a->def = d;
	uint8_t *h = realloc(a->hasv, cap);
	if (!h)
		return false;
	a->hasv = h;
	a->cap = cap;
	return true;
}

/* Gather records [rec, rec + m) of a nested leaf into its accumulator
 * (levels and the JSON text of its values). */
static colfs_status acc_gather(colfs_tree *t, parquet_region_state *s,
			       const colfs_node *f, parquet_views_cursor *cu,
			       parquet_views_acc *a, uint64_t m)
{
	const uint64_t first = cu->rec, stop = cu->rec + m;
	colfs_status st;

	if (m > a->skipcap) {
		uint8_t *k = realloc(a->skip, (size_t)m);
		if (!k)
			return COLFS_ENOMEM;
		a->skip = k;
		a->skipcap = (size_t)m;
	}
	if (m)
		memset(a->skip, 0, (size_t)m);
	a->any_skip = false;
	a->n = 0;
	a->nvals = 0;
	a->text.len = 0;
	a->text.failed = false;
	for (;;) {
		st = pv_cur_fill(t, s, f, cu);
		if (st == COLFS_END && cu->rec == stop)
			break;
		if (st) {
			pv_cur_reset(s->values, cu);
			if (st == COLFS_END)
				return pv_chunk_fail(t, s, f, 0, "the chunk holds fewer records than the row group's rows",
						  cu->g, cu->leaf);
			return st;
		}
		const parquet_pages_decoded *p = &cu->p;
		bool done = false;
		while (cu->i < p->n) {
			uint32_t rp = p->rep ? p->rep[cu->i] : 0;
			uint32_t df = p->def ? p->def[cu->i] : p->max_def;
			if (rp == 0) {
				if (cu->rec == stop) {
					done = true;
					break;
				}
				cu->rec++;
			}
			if (cu->stand && cu->rec > first) {
				a->skip[cu->rec - first - 1] = 1;
				a->any_skip = true;
			}
			if (!acc_grow(a, a->n + 1))
				return COLFS_ENOMEM;
			a->rep[a->n] = rp;
			a->def[a->n] = df;
			a->hasv[a->n] = df == p->max_def;
			a->n++;
			if (df == p->max_def) {
				if (a->nvals + 2 > a->offcap) {
					size_t nc = a->offcap ? a->offcap * 2 : 1024;
					size_t *o = realloc(a->off, nc * sizeof *o);
					if (!o)
						return COLFS_ENOMEM;
					a->off = o;
					uint64_t *po = realloc(a->poff,
							       nc * sizeof *po);
					if (!po)
						return COLFS_ENOMEM;
					a->poff = po;
					a->offcap = nc;
				}
				a->off[a->nvals] = a->text.len;
				a->poff[a->nvals] = cu->w->pages[cu->k].offset;
				if (a->raw)
					pv_raw_val(&a->text, p, cu->j);
				else
					pv_render_val(&a->text, &cu->r.json,
						   &cu->r, p, cu->j);
				a->nvals++;
				a->off[a->nvals] = a->text.len;
				cu->j++;
			}
			cu->i++;
		}
		if (done)
			break;
	}
	if (!a->nvals) {
		if (!a->offcap) {
			a->off = malloc(16 * sizeof *a->off);
			a->poff = malloc(16 * sizeof *a->poff);
			if (!a->off || !a->poff)
				return COLFS_ENOMEM;
			a->offcap = 16;
		}
		a->off[0] = 0;
	}
	return colfs_buf_status(&a->text);
}

/* Whether row `row` of a nested field's batch was read from a damaged
 * page's stand-in (-o on_damage=null or skip) in any of its leaves. */
bool pv_field_row_damaged(const parquet_views_field *fl, uint64_t row)
{
	for (uint32_t i = 0; i < fl->n_leaves; i++)
		if (fl->acc[i].any_skip && fl->acc[i].skip[row])
			return true;
	return false;
}

/* Take the records of a batch of m that `fl` marks damaged out of leaf
 * accumulator `a` (their entries and values), so the assembler sees the
 * other records only. */
static void acc_drop_damaged(parquet_views_acc *a,
			     const parquet_views_field *fl, uint64_t m)
{
	size_t w = 0, v = 0, vw = 0, tl = 0;
	uint64_t rec = 0;
	bool keep = true;

	for (size_t i = 0; i < a->n; i++) {
		if (a->rep[i] == 0) {
			keep = rec >= m || !pv_field_row_damaged(fl, rec);
			rec++;
		}
		if (a->hasv[i]) {
			if (keep) {
				size_t at = a->off[v], len = a->off[v + 1] - at;
				memmove(a->text.data + tl, a->text.data + at, len);
				a->poff[vw] = a->poff[v];
				a->off[vw++] = tl;
				tl += len;
			}
			v++;
		}
		if (keep) {
			a->rep[w] = a->rep[i];
			a->def[w] = a->def[i];
			a->hasv[w] = a->hasv[i];
			w++;
		}
	}
	a->off[vw] = tl;
	a->n = w;
	a->nvals = vw;
	a->text.len = tl;
}

/* Position a field at row r of row group g and, for a nested field, load
 * the next m records into its assembler. */
colfs_status pv_field_load(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			       parquet_views_field *fl, uint32_t g, uint64_t r,
			       uint64_t m)
{
	colfs_err e = {0};
	size_t recs = 0;

	for (uint32_t i = 0; i < fl->n_leaves; i++)
		COLFS_TRY(cur_seek(t, s, f, &fl->cur[i], g, r));
	if (!fl->plan)
		return COLFS_OK;
	pq_asm_leaf_batch lb[fl->n_leaves ? fl->n_leaves : 1];
	for (uint32_t i = 0; i < fl->n_leaves; i++)
		COLFS_TRY(acc_gather(t, s, f, &fl->cur[i], &fl->acc[i], m));
	/* -o on_damage: a field of several leaves whose rows one leaf reads
	 * from a damaged page's stand-in: those rows are taken out of every
	 * leaf (the others' levels would not agree with the stand-in's) and
	 * read NULL or are left out as a whole */
	fl->n_damaged = 0;
	if (fl->n_leaves > 1) {
		for (uint64_t row = 0; row < m; row++)
			fl->n_damaged += pv_field_row_damaged(fl, row);
		if (fl->n_damaged)
			for (uint32_t i = 0; i < fl->n_leaves; i++)
				acc_drop_damaged(&fl->acc[i], fl, m);
	}
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		parquet_views_acc *a = &fl->acc[i];
		lb[i] = (pq_asm_leaf_batch){
			.rep = a->rep, .def = a->def, .n = a->n,
			.n_values = a->nvals, .text = a->text.data ? a->text.data : "",
			.off = a->off, .page_off = a->poff,
		};
	}
	if (pq_asm_batch_set(fl->as, lb, &recs, &e) ||
	    recs != m - fl->n_damaged) {
		if (!e.status)
			colfs_fail(&e, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				   "assembled %zu records, expected %llu", recs,
				   (unsigned long long)(m - fl->n_damaged));
		for (uint32_t i = 0; i < fl->n_leaves; i++)
			pv_cur_reset(s->values, &fl->cur[i]);
		parquet_region_rg_report(t, s, g, f, e.offset, e.status,
			  "row group %u, field %s: %s", g, fl->name, e.msg);
		return e.status;
	}
	return COLFS_OK;
}

/* Render the next row of a field (text or JSON mode) into b, row `row`
 * of the batch loaded; *drop is set when the row is to be left out
 * (on_damage=skip). */
colfs_status pv_field_next(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			       parquet_views_field *fl, const colfs_render *r,
			       colfs_buf *b, uint64_t row, bool *drop)
{
	if (fl->plan) {
		const char *nt = r->json ? "null" :
				 (r->null_token ? r->null_token : "\\N");
		/* a row read from a damaged page's stand-in: left out
		 * (skip); a field of several leaves has no record for it in
		 * the assembler and reads NULL as a whole (null); one
		 * leaf's stand-in levels read NULL (or an empty list) */
		if (pv_field_row_damaged(fl, row)) {
			if (colfs_tree_options(t)->on_damage ==
			    COLFS_ON_DAMAGE_SKIP)
				*drop = true;
			if (fl->n_leaves > 1) {
				colfs_buf_append(b, nt, strlen(nt));
				return colfs_buf_status(b);
			}
		}
		colfs_err e = {0};
		colfs_status st = pq_asm_next(fl->as, b, nt, &e);
		if (st) {
			if (st == COLFS_END)
				colfs_fail(&e, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					   "record assembly ran out of records");
			colfs_tree_report(t, f, e.offset, e.status,
					  "field %s: %s", fl->name, e.msg);
			return e.status;
		}
		return COLFS_OK;
	}
	parquet_views_cursor *cu = &fl->cur[0];
	colfs_status st = pv_cur_fill(t, s, f, cu);
	if (st == COLFS_END)
		st = pv_chunk_fail(t, s, f, 0, "values ended early", cu->g, cu->leaf);
	if (st)
		return st;
	if (cu->skip)
		*drop = true;
	if (cu->p.def && cu->p.def[cu->i] != cu->p.max_def)
		colfs_render_null(b, r);
	else
		pv_render_val(b, r, &cu->r, &cu->p, cu->j++);
	cu->i++;
	cu->rec++;
	return COLFS_OK;
}

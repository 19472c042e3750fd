/* colfs: the Parquet table views, `columns/<field>`, `rows.jsonl` and
 * `rows.csv` over all row groups or one: their pieces rendered from the
 * readers' fields (parquet_view_fields.c) over the shared decoded pages
 * (parquet_shared_pages.c), and the columns/ directory (docs/parquet-tree.md
 * lists the views). */
#include "parquet_views_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS_BATCH 8192      /* rows per piece of rows.jsonl / rows.csv */
#define COLUMN_BATCH 65536   /* rows per piece of columns/<field> */

/* --- table views ---------------------------------------------------------- */

/* The m rows of a batch into `out` from the lines `src` the assembler
 * made, for a field with rows read from a damaged page's stand-in: those
 * rows left out (skip), or the null token `nt` in their place (null, a
 * field of several leaves, whose assembler has no record for them). */
static colfs_status drop_lines(colfs_buf *out, const colfs_buf *src,
			       const parquet_views_field *fl, uint64_t m,
			       const char *nt)
{
	size_t at = 0;

	for (uint64_t row = 0; row < m; row++) {
		bool dmg = pv_field_row_damaged(fl, row);
		if (dmg && fl->n_leaves > 1) {
			if (nt) {
				colfs_buf_append(out, nt, strlen(nt));
				colfs_buf_putc(out, '\n');
			}
			continue;
		}
		if (at >= src->len)
			break;
		const char *nl = memchr(src->data + at, '\n', src->len - at);
		size_t end = nl ? (size_t)(nl - src->data) + 1 : src->len;
		if (!dmg)
			colfs_buf_append(out, src->data + at, end - at);
		at = end;
	}
	return colfs_buf_status(out);
}

static colfs_status table_render(colfs_tree *t, colfs_node *f, uint64_t index,
				 parquet_views_reader *rd, colfs_buf *out)
{
	parquet_views_view *w = colfs_node_ctx(f);
	parquet_region_state *s = w->s;
	colfs_status st = COLFS_OK;
	uint32_t g;
	uint64_t r0, m;

	if (w->mode == MODE_CSV && index == 0) {
		for (uint32_t i = 0; i < w->n_fields; i++) {
			const char *n = w->fields[i].name;
			if (i)
				colfs_buf_putc(out, ',');
			colfs_render_csv_field(out, n, strlen(n));
		}
		colfs_buf_putc(out, '\n');
		return COLFS_OK;
	}
	if (!pv_view_piece_rows(&w->sh, index, &g, &r0, &m))
		return COLFS_END;
	for (uint32_t i = 0; i < w->n_fields && !st; i++)
		st = pv_field_load(t, s, f, &rd->fields[i], g, r0, m);
	if (st)
		return st;
	if (w->mode == MODE_COLUMN) {
		parquet_views_field *fl = &rd->fields[0];
		if (fl->plan) {
			colfs_err e = {0};
			size_t done = 0;
			const char *nt = w->text.null_token ? w->text.null_token
							    : "\\N";
			bool skip = colfs_tree_options(t)->on_damage ==
				    COLFS_ON_DAMAGE_SKIP, dmg = false;
			for (uint32_t i = 0; i < fl->n_leaves; i++)
				dmg |= fl->acc[i].any_skip;
			dmg &= skip || fl->n_leaves > 1;
			rd->tmp.len = 0;
			const uint64_t want = m - fl->n_damaged;
			st = pq_asm_lines(fl->as, dmg ? &rd->tmp : out, nt,
					  (size_t)want, &done, &e);
			if (!st && done != want)
				st = colfs_fail(&e, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
						"assembled %zu of %llu records",
						done, (unsigned long long)want);
			if (!st && dmg)
				/* on_damage: the rows read from a damaged
				 * page left out, or NULL */
				st = drop_lines(out, &rd->tmp, fl, m,
						skip ? NULL : nt);
			if (st) {
				parquet_region_rg_report(t, s, g, f, e.offset, e.status,
					  "row group %u, field %s: %s", g,
					  fl->name, e.msg);
				for (uint32_t i = 0; i < fl->n_leaves; i++)
					pv_cur_reset(s->values, &fl->cur[i]);
			}
			return st;
		}
		parquet_views_cursor *cu = &fl->cur[0];
		uint64_t left = m;
		const int32_t phys = cu->r.type.physical;
		if (phys == PARQUET_FLOAT && m <= SIZE_MAX / 32)
			/* the whole piece at once: no regrowth (and copy)
			 * page after page; table_piece gives back the rest.
			 * Integers, strings and doubles reserve their exact
			 * length (pv_render_lines) */
			colfs_buf_reserve(out, (size_t)m * 26);
		while (left) {
			st = pv_cur_fill(t, s, f, cu);
			if (st == COLFS_END)
				st = pv_chunk_fail(t, s, f, 0, "values ended early",
						g, cu->leaf);
			if (st) {
				pv_cur_reset(s->values, cu);
				return st;
			}
			size_t take = cu->p.n - cu->i;
			if (take > left)
				take = (size_t)left;
			if (!cu->skip)   /* on_damage=skip: left out */
				pv_render_lines(out, &cu->r, &cu->p, cu->i,
					     cu->i + take, &cu->j);
			cu->i += take;
			cu->rec += take;
			left -= take;
		}
		return COLFS_OK;
	}
	for (uint64_t row = 0; row < m && !st; row++) {
		size_t line = out->len;
		bool drop = false;
		if (w->mode == MODE_JSONL)
			colfs_buf_putc(out, '{');
		for (uint32_t i = 0; i < w->n_fields && !st; i++) {
			parquet_views_field *fl = &rd->fields[i];
			if (w->mode == MODE_JSONL) {
				if (i)
					colfs_buf_putc(out, ',');
				colfs_render_json_string(out,
							 (const uint8_t *)fl->name,
							 strlen(fl->name));
				colfs_buf_putc(out, ':');
				st = pv_field_next(t, s, f, fl, &w->json, out,
						row, &drop);
			} else {
				if (i)
					colfs_buf_putc(out, ',');
				rd->tmp.len = 0;
				st = pv_field_next(t, s, f, fl, &w->text,
						&rd->tmp, row, &drop);
				if (!st)
					colfs_render_csv_value(out, rd->tmp.data,
							       rd->tmp.len,
							       colfs_tree_options(t)->csv_null);
			}
		}
		if (w->mode == MODE_JSONL)
			colfs_buf_putc(out, '}');
		colfs_buf_putc(out, '\n');
		if (drop)   /* on_damage=skip: a field read a damaged page */
			out->len = line;
	}
	if (st) {
		for (uint32_t i = 0; i < w->n_fields; i++)
			for (uint32_t l = 0; l < rd->fields[i].n_leaves; l++)
				pv_cur_reset(s->values, &rd->fields[i].cur[l]);
	}
	return st;
}

static colfs_status table_piece(colfs_tree *t, colfs_node *f, uint64_t index,
				colfs_buf *out)
{
	parquet_views_view *w = colfs_node_ctx(f);
	uint64_t last = w->cum[w->g1 - w->g0] + (w->mode == MODE_CSV);
	parquet_views_reader *rd;
	parquet_views_claim *claim = NULL;

	COLFS_TRY(pv_reader_take(w, index, &rd));
	pthread_mutex_lock(&w->sh.lock);
	/* A piece of the view read again clears its end; not one still
	 * rendering when the end was read (end_late), nor one past the end
	 * (a worker rendering ahead of the last one finds nothing there:
	 * clearing `ended` there kept the last pages of a view read to its
	 * end, 30 MiB of a BIGINT column beside the next column's peak in
	 * some runs). */
	bool late = false;
	for (unsigned i = 0; i < w->sh.n_end_late && !late; i++)
		late = w->sh.end_late[i] == index;
	if (!late && index < last)
		w->sh.ended = false;
	if (w->sh.track) {
		/* the rows this piece is to read (pv_shared_wanted_locked) */
		uint32_t g;
		uint64_t r0, m;
		w->sh.t = t;
		w->sh.node = f;
		if (pv_view_piece_rows(&w->sh, index, &g, &r0, &m)) {
			claim = &w->sh.claims[rd->slot];
			*claim = (parquet_views_claim){.used = true,
						       .piece = index, .g = g,
						       .from = r0, .to = r0 + m};
		}
		rd->fields[0].cur[0].claim = claim;
	}
	pthread_mutex_unlock(&w->sh.lock);
	colfs_status st = table_render(t, f, index, rd, out);
	if (!st && index + 1 >= last && w->sh.track) {
		/* the pieces still rendering keep what they need: the last
		 * of them gives the rest back (below) */
		uint64_t out_[VIEW_READERS_MAX];
		for (uint32_t l = 0; l < rd->fields[0].n_leaves; l++)
			pv_cur_reset(w->s->values, &rd->fields[0].cur[l]);
		pthread_mutex_lock(&w->sh.lock);
		w->sh.ended = true;
		w->sh.n_end_late = 0;
		size_t n = colfs_tree_pieces_rendering(t, f, 0, index, out_,
						       VIEW_READERS_MAX);
		for (size_t i = 0; i < n; i++)
			w->sh.end_late[w->sh.n_end_late++] = out_[i];
		for (unsigned i = 0; i < VIEW_READERS_MAX; i++)
			if (w->sh.claims[i].used && &w->sh.claims[i] != claim &&
			    w->sh.n_end_late < VIEW_READERS_MAX)
				w->sh.end_late[w->sh.n_end_late++] =
					w->sh.claims[i].piece;
		pthread_mutex_unlock(&w->sh.lock);
	} else if (!st && index + 1 >= last) {
		/* at the end (or after a failure) the cursors' pages and
		 * buffers are given back: a view holds memory only while it
		 * is being read.  The spare set too, into the tree's pool
		 * (counted against the cache), where the next view finds
		 * it; kept here, every column read left a set of page
		 * buffers behind (the daemon's RSS grew column by column).
		 * A page another thread still renders from goes when it
		 * lets go of it (pv_shpage_unref): kept as its leaf's newest,
		 * it had held its buffers (8 MB of a BIGINT page) until the
		 * node was freed, in some runs and not others */
		for (uint32_t i = 0; i < w->n_fields; i++)
			for (uint32_t l = 0; l < rd->fields[i].n_leaves; l++)
				pv_cur_reset(w->s->values, &rd->fields[i].cur[l]);
		pthread_mutex_lock(&w->sh.lock);
		w->sh.ended = true;
		pv_shared_prune_locked(&w->sh, PRUNE_ALL);
		parquet_pages_scratch_free(&w->sh.spare);
		pv_shared_settle_locked(&w->sh);
		pthread_mutex_unlock(&w->sh.lock);
	}
	/* A reader given back holds no page: a one-leaf view waits for the
	 * pages in use before decoding the next (pv_shared_get), and an idle
	 * reader must not keep it waiting.  The next piece finds its page
	 * among the shared ones and seeks in it again. */
	for (uint32_t i = 0; i < w->n_fields; i++)
		for (uint32_t l = 0; l < rd->fields[i].n_leaves; l++)
			pv_cur_reset(w->s->values, &rd->fields[i].cur[l]);
	if (w->sh.track) {
		/* done: no one waits for it any more, nor keeps a page */
		pthread_mutex_lock(&w->sh.lock);
		if (claim) {
			claim->used = false;
			w->sh.done[w->sh.done_at++ % SHARED_DONE] = index;
		}
		if (w->sh.ended)
			pv_shared_end_locked(&w->sh);
		else if (claim)
			pv_shared_prune_locked(&w->sh, PRUNE_OLDER);
		pthread_cond_broadcast(&w->sh.unref);
		pthread_mutex_unlock(&w->sh.lock);
		rd->fields[0].cur[0].claim = NULL;
	}
	pv_reader_give(w, rd, st ? UINT64_MAX : index + 1);
	return st;
}

/* The node is freed (colfs_dir_release): so is its view, decoded pages
 * and readers with it. */
static void table_release(colfs_tree *t, colfs_node *n)
{
	parquet_views_view *w = colfs_node_ctx(n);

	(void)t;
	parquet_pages_unkeep(w->s->values, &w->kept);
	pv_view_free(w);
}

/* Each piece takes its own reader: concurrent. */
static const colfs_node_ops table_ops = {.piece = table_piece,
					 .concurrent = true,
					 .release = table_release};
/* The same, of one piece (a row group of at most a batch of rows, a
 * wide file's columns/): nothing to decode ahead. */
static const colfs_node_ops table_one_ops = {.piece = table_piece,
					     .release = table_release};

static parquet_views_view *view_new(colfs_tree *t, parquet_region_state *s, int mode, int64_t g,
			  uint32_t n_fields)
{
	parquet_views_view *w = calloc(1, sizeof *w);
	uint32_t ng;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->freed, NULL);
	pv_shared_init(&w->sh, s->values);
	w->s = s;
	w->mode = mode;
	w->g0 = g < 0 ? 0 : (uint32_t)g;
	w->g1 = g >= 0 ? (uint32_t)g + 1 :
		s->synthetic ? s->table_groups : s->pf->n_row_groups;
	w->batch = mode == MODE_COLUMN ? COLUMN_BATCH : ROWS_BATCH;
	w->text.null_token = colfs_tree_options(t)->null_token;
	if (mode == MODE_CSV)   /* a row's fields, as rows.csv writes them */
		w->text = colfs_render_csv_mode();
	w->json = colfs_render_json_default;
	ng = w->g1 - w->g0;
	w->cum = calloc((size_t)ng + 1, sizeof *w->cum);
	w->fields = calloc(n_fields ? n_fields : 1, sizeof *w->fields);
	if (!w->cum || !w->fields) {
		pv_view_free(w);
		return NULL;
	}
	for (uint32_t i = 0; i < ng; i++) {
		uint64_t rows = (uint64_t)pv_rg_rows(s, w->g0 + i);
		w->cum[i + 1] = w->cum[i] + (rows + w->batch - 1) / w->batch;
	}
	return w;
}

static void view_kept_free(parquet_pages_kept *k)
{
	pv_view_free((parquet_views_view *)k);
}

static void view_register(parquet_region_state *s, parquet_views_view *w)
{
	w->sh.one_leaf = w->n_fields == 1 && w->fields[0].n_leaves == 1;
	/* a flat leaf: a page's records are its values (shpage rec0) */
	w->sh.track = w->sh.one_leaf &&
		      s->pf->columns[w->fields[0].cur[0].leaf].max_rep == 0;
	/* a flat columns/ view: only pv_render_lines reads its values */
	w->sh.in_page = w->sh.one_leaf && w->mode == MODE_COLUMN &&
			!w->fields[0].plan;
	w->kept.free = view_kept_free;
	parquet_pages_keep(s->values, &w->kept);
}

/* Add one columns/ entry or rows view, owning `w` from here on. */
static colfs_status view_add(colfs_tree *t, colfs_node *dir, const char *name,
			     parquet_views_view *w)
{
	colfs_node *n;

	view_register(w->s, w);
	n = colfs_dir_add_stream(t, dir, name,
				 w->cum[w->g1 - w->g0] + (w->mode == MODE_CSV) > 1
				 ? &table_ops : &table_one_ops, w);
	if (!n)
		return COLFS_ENOMEM;
	/* rows.jsonl and rows.csv assemble the fields columns/ does */
	if (w->mode != MODE_COLUMN)
		colfs_node_set_derived(n);
	return COLFS_OK;
}

/* The top-level fields: schema indexes whose parent is the root. */
static colfs_status columns_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	const parquet_file *pf = s->pf;
	int64_t g = (int64_t)colfs_node_a(dir) - 1;   /* a = g + 1, 0: all */
	colfs_err e = {0};

	for (uint32_t i = 1; i < pf->n_schema; i++) {
		if (pf->schema[i].parent != 0)
			continue;
		parquet_views_view *w = view_new(t, s, MODE_COLUMN, g, 1);
		colfs_status st;
		if (!w)
			return COLFS_ENOMEM;
		w->n_fields = 1;
		if (pq_asm_field_is_flat(pf->schema, pf->n_schema, i) &&
		    pf->schema[i].leaf >= 0)
			st = pv_field_init_leaf(t, s, &w->fields[0],
					     (uint32_t)pf->schema[i].leaf,
					     pf->schema[i].name);
		else
			st = pv_field_init_nested(t, s, &w->fields[0], i, &e);
		if (st) {
			pv_view_free(w);
			if (st == COLFS_ENOMEM)
				return st;
			colfs_tree_report(t, dir, e.offset, st,
					  "field %s: %s", pf->schema[i].name,
					  e.msg);
			continue;
		}
		COLFS_TRY(view_add(t, dir, pf->schema[i].name, w));
	}
	/* nested leaves without a repeated ancestor: a.b.c */
	for (uint32_t c = 0; c < pf->n_columns; c++) {
		const parquet_column *col = &pf->columns[c];
		if (col->n_parts < 2 || col->max_rep != 0)
			continue;
		parquet_views_view *w = view_new(t, s, MODE_COLUMN, g, 1);
		if (!w)
			return COLFS_ENOMEM;
		w->n_fields = 1;
		if (pv_field_init_leaf(t, s, &w->fields[0], c, col->path)) {
			pv_view_free(w);
			return COLFS_ENOMEM;
		}
		COLFS_TRY(view_add(t, dir, col->path, w));
	}
	return COLFS_OK;
}

static const colfs_node_ops columns_ops = {.populate = columns_populate};

static colfs_status rows_view_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				  int64_t g, int mode, const char *name)
{
	const parquet_file *pf = s->pf;
	uint32_t nf = 0;
	colfs_err e = {0};
	parquet_views_view *w;

	for (uint32_t i = 1; i < pf->n_schema; i++)
		nf += pf->schema[i].parent == 0;
	w = view_new(t, s, mode, g, nf);
	if (!w)
		return COLFS_ENOMEM;
	for (uint32_t i = 1; i < pf->n_schema; i++) {
		colfs_status st;
		if (pf->schema[i].parent != 0)
			continue;
		parquet_views_field *fl = &w->fields[w->n_fields++];
		if (pq_asm_field_is_flat(pf->schema, pf->n_schema, i) &&
		    pf->schema[i].leaf >= 0)
			st = pv_field_init_leaf(t, s, fl,
					     (uint32_t)pf->schema[i].leaf,
					     pf->schema[i].name);
		else
			st = pv_field_init_nested(t, s, fl, i, &e);
		if (st) {
			pv_view_free(w);
			if (st == COLFS_ENOMEM)
				return st;
			colfs_tree_report(t, dir, e.offset, st,
					  "%s left out: field %s: %s", name,
					  pf->schema[i].name, e.msg);
			return COLFS_OK;
		}
	}
	return view_add(t, dir, name, w);
}

colfs_status parquet_views_table_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 int64_t g)
{
	colfs_node *n;

	if (!s->pf || !s->values || !parquet_region_footer_plain(s) ||
	    !s->pf->n_schema)
		return COLFS_OK;
	n = colfs_dir_add_dir(t, dir, "columns", &columns_ops, s);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, (uint64_t)(g + 1), 0, 0);
	/* the root's: the row groups' columns/ one after another */
	if (g < 0)
		colfs_node_set_derived(n);
	COLFS_TRY(parquet_arrays_add(t, dir, s, g));
	COLFS_TRY(rows_view_add(t, dir, s, g, MODE_JSONL, "rows.jsonl"));
	return rows_view_add(t, dir, s, g, MODE_CSV, "rows.csv");
}

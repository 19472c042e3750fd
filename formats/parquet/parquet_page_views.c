/* colfs: the Parquet chunk and page views: a chunk's and a page's
 * `values`, `levels`, `dictionary` and `decompressed` (docs/parquet-tree.md). */
#include "parquet_views_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A page's levels, "<rep> <def>\n" an entry, into a block of their exact
 * size (a wide file's check renders 100 million of them). */
static void render_levels(colfs_buf *b, const parquet_pages_decoded *p)
{
	size_t need = 0;
	char *q;

	if (p->n > (SIZE_MAX - b->len) / 22) {  /* 10 + 1 + 10 + 1 */
		b->failed = true;
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		need += colfs_u64_digits(p->rep ? p->rep[i] : 0) +
			colfs_u64_digits(p->def ? p->def[i] : p->max_def) + 2;
	if (!colfs_buf_reserve_exact(b, need))
		return;
	q = b->data + b->len;
	for (size_t i = 0; i < p->n; i++) {
		q = colfs_put_u64(q, p->rep ? p->rep[i] : 0);
		*q++ = ' ';
		q = colfs_put_u64(q, p->def ? p->def[i] : p->max_def);
		*q++ = '\n';
	}
	b->len += need;
}

enum { VIEW_VALUES, VIEW_LEVELS, VIEW_DICTIONARY, VIEW_DECOMPRESSED };

/* Node ctx: the region state; args: a = row group, b = chunk, c = page
 * index (page views) or (uint64_t)-1 (chunk views: piece i is page i).
 * What the view shows is told by its ops (one table each), so a view
 * allocates nothing of its own (a wide file has millions). */
static colfs_status pageview_piece(colfs_tree *t, colfs_node *f,
				   uint64_t index, colfs_buf *out, int what)
{
	parquet_region_state *s = colfs_node_ctx(f);
	uint32_t g = (uint32_t)colfs_node_a(f), c = (uint32_t)colfs_node_b(f);
	uint64_t k = colfs_node_c(f);
	const parquet_pages_list *w;
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	parquet_views_leaf leaf;
	parquet_pages_decoded p;

	COLFS_TRY(parquet_pages_list_get(t, s, f, g, c, &w));
	if (!w || !ch)
		return COLFS_ECORRUPT;
	if (k == UINT64_MAX) {
		k = index;
		if (k >= w->n)
			return w->stop.status && k == w->n ? COLFS_ECORRUPT
							   : COLFS_END;
	} else if (index > 0) {
		return COLFS_END;
	}
	if (k >= w->n)
		return COLFS_ECORRUPT;
	if (what == VIEW_DECOMPRESSED) {
		colfs_err e = {0};
		uint8_t *buf;
		size_t len;
		colfs_status st = parquet_pages_bytes(t, s, ch, &w->pages[k], &buf,
					     &len, &e);
		if (st || e.msg[0]) {
			if (!st)
				e.status = COLFS_ECORRUPT;
			parquet_region_part_report(t, s, g, c, k, f, &e);
		}
		if (st)
			return st;
		colfs_buf_append(out, buf, len);
		free(buf);
		return COLFS_OK;
	}
	if (!parquet_pages_is_data(&w->pages[k]))
		return COLFS_OK;        /* an empty piece */
	if (ch->column >= s->pf->n_columns)
		return COLFS_ECORRUPT;
	pv_leaf_init(&leaf, t, &s->pf->columns[ch->column]);
	COLFS_TRY(parquet_pages_decode(t, s, f, g, c, w, k, NULL, &p));
	if (what == VIEW_VALUES) {
		size_t j = 0;
		pv_render_lines(out, &leaf, &p, 0, p.n, &j);
	} else {
		render_levels(out, &p);
	}
	parquet_pages_release(s->values, &p);
	return COLFS_OK;
}

static colfs_status dictionary_piece(colfs_tree *t, colfs_node *f,
				     uint64_t index, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	uint32_t g = (uint32_t)colfs_node_a(f), c = (uint32_t)colfs_node_b(f);
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	const parquet_pages_list *w;
	parquet_pages_dict *d;
	parquet_views_leaf leaf;
	colfs_err e = {0};

	if (index > 0)
		return COLFS_END;
	COLFS_TRY(parquet_pages_list_get(t, s, f, g, c, &w));
	if (!w || !ch || ch->column >= s->pf->n_columns)
		return COLFS_ECORRUPT;
	/* Old writers list PLAIN_DICTIONARY for chunks without a
	 * dictionary page: then there are no entries. */
	if (!w->n || w->pages[0].hdr.type != PARQUET_PAGE_DICTIONARY)
		return w->stop.status ? COLFS_ECORRUPT : COLFS_END;
	if (parquet_pages_dict_get(t, s, g, c, w, &d, &e)) {
		parquet_region_part_report(t, s, g, c, 0, f, &e);
		return e.status;
	}
	pv_leaf_init(&leaf, t, &s->pf->columns[ch->column]);
	for (size_t i = 0; i < d->vals.count; i++) {
		pq_render_value(out, &leaf.text, &leaf.type, &d->vals, i);
		colfs_buf_putc(out, '\n');
	}
	parquet_pages_dict_unref(s->values, d);
	return COLFS_OK;
}

/* Each call decodes its page on its own (no state kept between
 * pieces): concurrent. */
static colfs_status values_piece(colfs_tree *t, colfs_node *f,
				 uint64_t index, colfs_buf *out)
{
	return pageview_piece(t, f, index, out, VIEW_VALUES);
}

static colfs_status levels_piece(colfs_tree *t, colfs_node *f,
				 uint64_t index, colfs_buf *out)
{
	return pageview_piece(t, f, index, out, VIEW_LEVELS);
}

static colfs_status decompressed_piece(colfs_tree *t, colfs_node *f,
				       uint64_t index, colfs_buf *out)
{
	return pageview_piece(t, f, index, out, VIEW_DECOMPRESSED);
}

/* A chunk's views: a piece a page, decoded ahead of their reader. */
static const colfs_node_ops values_ops = {.piece = values_piece,
					  .concurrent = true};
static const colfs_node_ops levels_ops = {.piece = levels_piece,
					  .concurrent = true};
/* A page's views and a chunk's dictionary are one piece: nothing to
 * decode ahead (asking the workers for the piece after the last cost a
 * wide file's check a tenth of its time in wake-ups). */
static const colfs_node_ops page_values_ops = {.piece = values_piece};
static const colfs_node_ops page_levels_ops = {.piece = levels_piece};
static const colfs_node_ops page_decompressed_ops = {
	.piece = decompressed_piece};
static const colfs_node_ops dictionary_ops = {.piece = dictionary_piece};

static colfs_status add_pageview(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 const char *name, const colfs_node_ops *ops,
				 uint32_t g, uint32_t c, uint64_t k, bool derived)
{
	colfs_node *n = colfs_dir_add_stream(t, dir, name, ops, s);

	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, g, c, k);
	if (derived)
		colfs_node_set_derived(n);
	return COLFS_OK;
}

colfs_status parquet_views_chunk_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 uint32_t g, uint32_t c)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	const parquet_column *col;
	bool dict = false;

	if (!ch || !ch->has_meta || ch->encrypted ||
	    ch->column >= s->pf->n_columns)
		return COLFS_OK;
	col = &s->pf->columns[ch->column];
	/* the concatenation of its pages' values and levels (pages/) */
	COLFS_TRY(add_pageview(t, dir, s, "values", &values_ops,
			       g, c, UINT64_MAX, true));
	if (col->max_rep > 0 || col->max_def > 0)
		COLFS_TRY(add_pageview(t, dir, s, "levels",
				       &levels_ops, g, c, UINT64_MAX, true));
	for (uint32_t i = 0; i < ch->n_encodings; i++)
		dict |= ch->encodings[i] == PARQUET_ENC_PLAIN_DICTIONARY ||
			ch->encodings[i] == PARQUET_ENC_RLE_DICTIONARY;
	if (dict || (ch->dictionary_page_offset > 0 &&
		     (uint64_t)ch->dictionary_page_offset == ch->start))
		COLFS_TRY(add_pageview(t, dir, s, "dictionary",
				       &dictionary_ops, g, c, 0, false));
	return COLFS_OK;
}

colfs_status parquet_views_page_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				uint32_t g, uint32_t c, size_t k)
{
	const parquet_pages_list *w;
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	const parquet_column *col;

	COLFS_TRY(parquet_pages_list_get(t, s, dir, g, c, &w));
	if (!w || k >= w->n || !ch || ch->column >= s->pf->n_columns)
		return COLFS_OK;
	col = &s->pf->columns[ch->column];
	/* a data page's values decompress it first */
	COLFS_TRY(add_pageview(t, dir, s, "decompressed",
			       &page_decompressed_ops, g, c, k,
			       parquet_pages_is_data(&w->pages[k])));
	if (!parquet_pages_is_data(&w->pages[k]))
		return COLFS_OK;
	COLFS_TRY(add_pageview(t, dir, s, "values", &page_values_ops,
			       g, c, k, false));
	if (col->max_rep > 0 || col->max_def > 0)
		COLFS_TRY(add_pageview(t, dir, s, "levels",
				       &page_levels_ops, g, c, k, false));
	return COLFS_OK;
}

/* colfs: the Parquet value views, built on the page pipeline
 * (parquet_pages.c): a chunk's and a page's `values`, `levels`,
 * `dictionary` and `decompressed`; `columns/<field>`, `rows.jsonl` and
 * `rows.csv` over all row groups or one, with the per-leaf cursors that
 * read them page by page and the record assembler (decode/pq_assemble.c)
 * for nested fields (docs/parquet-tree.md lists the views). */
#include "parquet_views.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/render.h"
#include "decode/pq_assemble.h"
#include "decode/pq_decode.h"

#define ROWS_BATCH 8192      /* rows per piece of rows.jsonl / rows.csv */
#define COLUMN_BATCH 65536   /* rows per piece of columns/<field> */

typedef struct parquet_views_view parquet_views_view;

static pq_type type_of(const parquet_schema_elem *e)
{
	return parquet_pages_type_of(e);
}

/* Plain integers (no annotation, INT(64/32, signed or not), or the
 * INT_n / UINT_n converted types): the hot path renders them straight
 * into the buffer.  *is_unsigned tells which (pq_render.c's rule). */
static bool plain_int(const pq_type *t, bool *is_unsigned)
{
	if (t->physical != PARQUET_INT32 && t->physical != PARQUET_INT64)
		return false;
	if (t->logical == PARQUET_LT_INTEGER) {
		*is_unsigned = !t->is_signed;
		return true;
	}
	if (t->logical)
		return false;
	*is_unsigned = t->converted == PARQUET_CT_UINT_8 ||
		       t->converted == PARQUET_CT_UINT_16 ||
		       t->converted == PARQUET_CT_UINT_32 ||
		       t->converted == PARQUET_CT_UINT_64;
	return *is_unsigned || t->converted < 0 ||
	       t->converted == PARQUET_CT_INT_8 ||
	       t->converted == PARQUET_CT_INT_16 ||
	       t->converted == PARQUET_CT_INT_32 ||
	       t->converted == PARQUET_CT_INT_64;
}

/* Value x of an integer page as 64 bits: an INT32 sign-extended, or
 * zero-extended when the column is unsigned; idx: dictionary ids. */
static inline uint64_t int_bits(const int64_t *v64, const int32_t *v32,
				const uint32_t *idx, size_t x, bool uns)
{
	size_t k = idx ? idx[x] : x;

	if (v64)
		return (uint64_t)v64[k];
	return uns ? (uint64_t)(uint32_t)v32[k] : (uint64_t)(int64_t)v32[k];
}

/* A leaf's rendering context. */
typedef struct parquet_views_leaf {
	pq_type type;
	bool fast_int;
	bool fast_uint;          /* fast_int, unsigned */
	bool fast_str;           /* BYTE_ARRAY with a string annotation */
	colfs_render text, json;
} parquet_views_leaf;

static void leaf_init(parquet_views_leaf *l, colfs_tree *t, const parquet_column *col)
{
	l->type = type_of(col->elem);
	l->fast_uint = false;
	l->fast_int = plain_int(&l->type, &l->fast_uint);
	l->fast_str = l->type.physical == PARQUET_BYTE_ARRAY &&
		      (l->type.logical == PARQUET_LT_STRING ||
		       l->type.logical == PARQUET_LT_ENUM ||
		       l->type.logical == PARQUET_LT_JSON ||
		       (!l->type.logical &&
			(l->type.converted == PARQUET_CT_UTF8 ||
			 l->type.converted == PARQUET_CT_ENUM ||
			 l->type.converted == PARQUET_CT_JSON)));
	l->text.null_token = colfs_tree_options(t)->null_token;
	l->text.json = false;
	l->json = colfs_render_json_default;
}

/* Value j (among the non-null values) of a page. */
static inline void render_val(colfs_buf *b, const colfs_render *r,
			      const parquet_views_leaf *l, const parquet_pages_decoded *p, size_t j)
{
	if (p->vals.indices)
		pq_render_value(b, r, &l->type, &p->dict->vals,
				p->vals.v.idx[j]);
	else
		pq_render_value(b, r, &l->type, &p->vals, j);
}

/* Value j of a BYTE_ARRAY page as its bytes (variant binaries). */
static void raw_val(colfs_buf *b, const parquet_pages_decoded *p, size_t j)
{
	pq_bytes x;

	if (p->vals.indices) {
		x = p->dict->vals.v.bytes[p->vals.v.idx[j]];
	} else if (p->vals.in_page) {
		size_t o = pq_values_in_page_at(&p->vals, j);
		x = pq_values_in_page_next(&p->vals, &o);
	} else {
		x = p->vals.v.bytes[j];
	}
	colfs_buf_append(b, x.ptr, x.len);
}

/* n bytes from q to o in fixed-size copies the compiler inlines (short
 * strings are the common case: a call to memcpy per value cost more than
 * the copy); overlapping head and tail copies cover any n exactly. */
static inline void copy_short(uint8_t *o, const uint8_t *q, size_t n)
{
	if (n >= 16) {
		for (size_t c = 0; c + 16 <= n; c += 16)
			memcpy(o + c, q + c, 16);
		memcpy(o + n - 16, q + n - 16, 16);
	} else if (n >= 8) {
		memcpy(o, q, 8);
		memcpy(o + n - 8, q + n - 8, 8);
	} else if (n >= 4) {
		memcpy(o, q, 4);
		memcpy(o + n - 4, q + n - 4, 4);
	} else {
		for (size_t c = 0; c < n; c++)
			o[c] = q[c];
	}
}

/* The lines of n 64-bit integers (a page of INT64 without nulls or
 * dictionary, the common case), signed or not (`uns`, a constant where
 * this is inlined): the exact length, then the digits into a block of
 * that size, in loops that test nothing of the page's shape per value
 * (render_lines' general loop asks each value for its null, its
 * dictionary id and its width).  Eight digits at a time into 25 bytes
 * of scratch while the block has them, exactly in its last bytes. */
static inline __attribute__((always_inline)) void
int64_lines(colfs_buf *b, const int64_t *v, size_t n, bool uns)
{
	size_t need = n, i = 0;

	if (uns)
		for (size_t k = 0; k < n; k++)
			need += colfs_u64_digits((uint64_t)v[k]);
	else
		for (size_t k = 0; k < n; k++)
			need += colfs_i64_len(v[k]);
	if (!colfs_buf_reserve_exact(b, need))
		return;
	char *q = b->data + b->len, *const end = q + need;
	for (; i < n && end - q >= 26; i++) {
		q = uns ? colfs_put_u64_wide(q, (uint64_t)v[i])
			: colfs_put_i64_wide(q, v[i]);
		*q++ = '\n';
	}
	for (; i < n; i++) {
		q = uns ? colfs_put_u64(q, (uint64_t)v[i]) : colfs_put_i64(q, v[i]);
		*q++ = '\n';
	}
	b->len = (size_t)(q - b->data);
}

/* The lines of n dictionary ids `idx` (no nulls) of a dictionary of
 * few short strings (`low`: 5 colours): each entry's line (its text and
 * the newline, 16 bytes at most) is made once into a 16-byte slot, and
 * each value is one 16-byte store of its slot, the block's last bytes
 * exactly.  Before, every value was checked for bytes to escape and
 * copied by its length.  Answers false, having written nothing, when the
 * dictionary is not such (more than 1024 entries or more than a quarter
 * of the values, an entry of 16 bytes or more or one to escape). */
static bool dict_short_lines(colfs_buf *b, const pq_values *dict,
			     const uint32_t *idx, size_t n)
{
	const size_t count = dict->count;
	size_t need = n;

	if (count == 0 || count > 1024 || count > n / 4)
		return false;
	uint8_t (*slot)[16] = malloc(count * sizeof *slot);
	uint8_t *len = malloc(count);
	if (!slot || !len) {
		free(slot);
		free(len);
		return false;
	}
	for (size_t k = 0; k < count; k++) {
		const pq_bytes e = dict->v.bytes[k];
		if (e.len >= 16 || !colfs_render_text_is_plain(e.ptr, e.len)) {
			free(slot);
			free(len);
			return false;
		}
		memset(slot[k], 0, 16);
		memcpy(slot[k], e.ptr, e.len);
		slot[k][e.len] = '\n';
		len[k] = (uint8_t)(e.len + 1);
	}
	for (size_t i = 0; i < n; i++)
		need += len[idx[i]] - 1u;
	if (colfs_buf_reserve_exact(b, need)) {
		char *q = b->data + b->len, *const end = q + need;
		size_t i = 0;
		for (; i < n && end - q >= 16; i++) {
			memcpy(q, slot[idx[i]], 16);
			q += len[idx[i]];
		}
		for (; i < n; i++) {
			memcpy(q, slot[idx[i]], len[idx[i]]);
			q += len[idx[i]];
		}
		b->len = (size_t)(q - b->data);
	}
	free(slot);
	free(len);
	return true;
}

/* Entries [from, to) of a page as text lines (value or null token);
 * `*j` is the index of the next non-null value. */
static void render_lines(colfs_buf *b, const parquet_views_leaf *l, const parquet_pages_decoded *p,
			 size_t from, size_t to, size_t *j)
{
	const uint32_t md = p->max_def;
	size_t jj = *j;

	if (l->fast_int) {
		const char *nt = l->text.null_token ? l->text.null_token : "\\N";
		size_t ntl = strlen(nt);
		size_t per = ntl + 1 > 21 ? ntl + 1 : 21;
		if (to - from > (SIZE_MAX - b->len) / per)
			return;
		/* The exact length first (a digit count per value), so
		 * that a piece is rendered into a block of its own size:
		 * rendered into a bound of 21 bytes a value, it was copied
		 * into one (colfs_blob_from_buf), which with the fresh
		 * pages it took was a quarter of `cat columns/seq`. */
		const pq_values *dv = p->vals.indices ? &p->dict->vals : &p->vals;
		const uint32_t *idx = p->vals.indices ? p->vals.v.idx : NULL;
		const int64_t *v64 = dv->physical_type == PARQUET_INT64 ?
				     dv->v.i64 : NULL;
		const int32_t *v32 = dv->v.i32;
		const uint32_t *def = p->def;
		const bool uns = l->fast_uint;
		size_t need = 0;
		if (!def && !idx && v64) {
			/* no nulls: entry i is value jj + (i - from) */
			if (jj > dv->count || to - from > dv->count - jj) {
				b->failed = true;
				return;
			}
			if (uns)
				int64_lines(b, v64 + jj, to - from, true);
			else
				int64_lines(b, v64 + jj, to - from, false);
			*j = jj + (to - from);
			return;
		}
		for (size_t i = from, x = jj; i < to; i++) {
			if (def && def[i] != md) {
				need += ntl + 1;
			} else {
				uint64_t u = int_bits(v64, v32, idx, x++, uns);
				need += (uns ? colfs_u64_digits(u)
					     : colfs_i64_len((int64_t)u)) + 1;
			}
		}
		if (!colfs_buf_reserve_exact(b, need))
			return;
		/* eight digits at a time into 25 bytes of scratch while the
		 * block has them (colfs_put_i64_wide), exactly near its end */
		char *q = b->data + b->len, *const end = q + need;
		for (size_t i = from; i < to; i++) {
			if (def && def[i] != md) {
				memcpy(q, nt, ntl);
				q += ntl;
			} else {
				uint64_t u = int_bits(v64, v32, idx, jj++, uns);
				if (end - q < 26)
					q = uns ? colfs_put_u64(q, u)
						: colfs_put_i64(q, (int64_t)u);
				else
					q = uns ? colfs_put_u64_wide(q, u)
						: colfs_put_i64_wide(q, (int64_t)u);
			}
			*q++ = '\n';
		}
		b->len = (size_t)(q - b->data);
		*j = jj;
		return;
	}
	if (l->fast_str) {
		/* Text that needs no escaping is copied as is; the rest goes
		 * through colfs_render_string. */
		const char *nt = l->text.null_token ? l->text.null_token : "\\N";
		size_t ntl = strlen(nt), need = 0;
		const pq_values *dv = p->vals.indices ? &p->dict->vals : &p->vals;
		/* values left in the page (in_page): the lengths of the
		 * piece's values are the bytes between its first value and
		 * the next piece's less their 4-byte prefixes, and the text
		 * is copied walking the page from the first */
		const bool inp = !p->vals.indices && p->vals.in_page;
		size_t o = 0;
		if (p->vals.indices && !p->def) {
			/* no nulls: entry i is id jj + (i - from) */
			if (jj > p->vals.count || to - from > p->vals.count - jj) {
				b->failed = true;
				return;
			}
			if (dict_short_lines(b, dv, p->vals.v.idx + jj,
					     to - from)) {
				*j = jj + (to - from);
				return;
			}
		}
		if (inp) {
			size_t nn = to - from;
			if (p->def) {
				nn = 0;
				for (size_t i = from; i < to; i++)
					nn += p->def[i] == md;
			}
			if (jj > p->vals.count || nn > p->vals.count - jj) {
				b->failed = true;
				return;
			}
			o = pq_values_in_page_at(&p->vals, jj);
			need = pq_values_in_page_at(&p->vals, jj + nn) - o -
			       3 * nn + (to - from - nn) * (ntl + 1);
		} else for (size_t i = from, x = jj; i < to; i++) {
			if (p->def && p->def[i] != md) {
				need += ntl + 1;
			} else {
				size_t vi = p->vals.indices ? p->vals.v.idx[x] : x;
				need += dv->v.bytes[vi].len + 1;
				x++;
			}
		}
		/* exactly: a piece is then a block of its own size, not
		 * copied into one (colfs_blob_from_buf) */
		if (!colfs_buf_reserve_exact(b, need))
			return;
		for (size_t i = from; i < to; i++) {
			if (p->def && p->def[i] != md) {
				if (b->cap - b->len < ntl + 1 &&
				    !colfs_buf_reserve(b, ntl + 1))
					return;
				memcpy(b->data + b->len, nt, ntl);
				b->len += ntl;
			} else {
				size_t vi = p->vals.indices ? p->vals.v.idx[jj] : jj;
				const pq_bytes v = inp ?
					pq_values_in_page_next(&p->vals, &o) :
					dv->v.bytes[vi];
				const uint8_t *q = v.ptr;
				uint32_t n = v.len;
				bool keep = colfs_render_text_is_plain(q, n);
				jj++;
				if (keep && b->cap - b->len > n) {
					copy_short((uint8_t *)b->data + b->len, q, n);
					b->len += n;
				} else if (keep) {
					if (!colfs_buf_reserve(b, (size_t)n + 1))
						return;
					memcpy(b->data + b->len, q, n);
					b->len += n;
				} else {
					colfs_render_string(b, &l->text, q, n);
					if (!colfs_buf_reserve(b, 1))
						return;
				}
			}
			b->data[b->len++] = '\n';
		}
		*j = jj;
		return;
	}
	if (l->type.physical == PARQUET_DOUBLE && to > from) {
		/* Doubles in two passes (colfs_double_text): the digits and
		 * the length of each, then the text into a block of exactly
		 * the piece's size, instead of a bound of 26 bytes a value
		 * copied into one afterwards (colfs_blob_from_buf) */
		const char *nt = l->text.null_token ? l->text.null_token : "\\N";
		const size_t ntl = strlen(nt);
		const double *dv = p->vals.indices ? p->dict->vals.v.f64
						   : p->vals.v.f64;
		const uint32_t *idx = p->vals.indices ? p->vals.v.idx : NULL;
		const uint32_t *def = p->def;
		colfs_double_text *dt = to - from <= SIZE_MAX / sizeof *dt / 2 ?
					malloc((to - from) * sizeof *dt) : NULL;
		size_t need = 0, k = 0;
		if (!dt) {
			b->failed = true;
			return;
		}
		for (size_t i = from, x = jj; i < to; i++) {
			if (def && def[i] != md) {
				need += ntl + 1;
			} else {
				colfs_double_text_prepare(dv[idx ? idx[x] : x],
							  &dt[k]);
				need += dt[k++].len + 1u;
				x++;
			}
		}
		if (!colfs_buf_reserve_exact(b, need)) {
			free(dt);
			return;
		}
		char *q = b->data + b->len, *const end = q + need;
		k = 0;
		for (size_t i = from; i < to; i++) {
			if (def && def[i] != md) {
				memcpy(q, nt, ntl);
				q += ntl;
			} else {
				/* 40 bytes of scratch while the block has
				 * them, exactly near its end */
				q = end - q >= 40 ?
					colfs_double_text_put_wide(q, &dt[k++]) :
					colfs_double_text_put(q, &dt[k++]);
				jj++;
			}
			*q++ = '\n';
		}
		free(dt);
		b->len = (size_t)(q - b->data);
		*j = jj;
		return;
	}
	/* floats take up to 25 bytes and a newline: reserve them all, so
	 * the buffer does not regrow (and copy) as it fills */
	const size_t per = l->type.physical == PARQUET_DOUBLE ||
			   l->type.physical == PARQUET_FLOAT ? 26 : 8;
	if (to - from <= SIZE_MAX / 32)
		colfs_buf_reserve(b, (to - from) * per);
	/* in_page values are walked from the first (pq_render_value would
	 * find each from its mark) */
	const bool inp = !p->vals.indices && p->vals.in_page;
	size_t o = inp && jj <= p->vals.count ?
		   pq_values_in_page_at(&p->vals, jj) : 0;
	for (size_t i = from; i < to; i++) {
		if (p->def && p->def[i] != md) {
			colfs_render_null(b, &l->text);
		} else if (inp) {
			if (jj++ >= p->vals.count) {
				b->failed = true;
				return;
			}
			pq_bytes x = pq_values_in_page_next(&p->vals, &o);
			pq_render_bytes(b, &l->text, &l->type, &x);
		} else {
			render_val(b, &l->text, l, p, jj++);
		}
		colfs_buf_putc(b, '\n');
	}
	*j = jj;
}

/* --- chunk and page views ------------------------------------------------- */

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
	leaf_init(&leaf, t, &s->pf->columns[ch->column]);
	COLFS_TRY(parquet_pages_decode(t, s, f, g, c, w, k, NULL, &p));
	if (what == VIEW_VALUES) {
		size_t j = 0;
		render_lines(out, &leaf, &p, 0, p.n, &j);
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
	leaf_init(&leaf, t, &s->pf->columns[ch->column]);
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
 * brought here: shared_wanted_locked), and the next page is decoded only
 * once the pieces before it have left the older ones (shared_get).
 * Freed at once, such a page was decoded again for the late piece, and
 * the newer page, freed for it, again for the piece after. */
typedef struct parquet_views_shared parquet_views_shared;

/* More readers than this wait for one to be free. */
#define VIEW_READERS_MAX 16
/* Pieces whose reader has finished, remembered for shared_wanted_locked
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
	bool one_leaf;                /* a view of one leaf: see shared_get */
	bool in_page;                 /* its pages' strings are read in
				       * order (render_lines): decoded
				       * in_page (parquet_pages_scratch) */
	pthread_mutex_t decode;       /* one page decoded at a time */
	parquet_pages_state *v;
	parquet_views_shpage *pages;
	parquet_pages_scratch spare;  /* a freed page's buffers, reused */
	parquet_views_shpage **newest; /* by leaf: shared_prune_locked's */
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
	 * gives back what none of those needs (shared_end_locked); another
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

static void shared_init(parquet_views_shared *sh, parquet_pages_state *v)
{
	pthread_mutex_init(&sh->lock, NULL);
	pthread_cond_init(&sh->unref, NULL);
	pthread_mutex_init(&sh->decode, NULL);
	sh->v = v;
	for (unsigned i = 0; i < SHARED_DONE; i++)
		sh->done[i] = UINT64_MAX;
}

/* Row group, first row and rows of piece `index` of the view that holds
 * `sh`; false for none (a CSV header, past the end).  Defined with the
 * view below. */
static bool view_piece_rows(const parquet_views_shared *sh, uint64_t index,
			    uint32_t *g, uint64_t *r0, uint64_t *m);
/* The pieces of that view holding rows of [rec0, rec1) of row group g:
 * [*lo, *hi). */
static void view_rows_pieces(const parquet_views_shared *sh, uint32_t g,
			     uint64_t rec0, uint64_t rec1, uint64_t *lo,
			     uint64_t *hi);

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
static bool shared_wanted_locked(parquet_views_shared *sh, uint32_t g,
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
		    view_piece_rows(sh, out[i], &jg, &r0, &m) &&
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
static void shared_settle_locked(parquet_views_shared *sh)
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

/* What shared_prune_locked frees among the unreferenced pages: those
 * with a newer one of their leaf that no piece rendering now still needs
 * (shared_wanted_locked), all of them, or all that no such piece needs. */
enum { PRUNE_OLDER, PRUNE_ALL, PRUNE_UNWANTED };

/* Free the unreferenced pages `how` says; their buffers become the
 * spare ones.
 * Linear in the pages held: a view of 1000 leaves (rows.jsonl of a wide
 * file) holds a page of each, and comparing every page with every other
 * at every unreference took a third of colfs-tool check's time.
 * Called with sh->lock held. */
static void shared_prune_locked(parquet_views_shared *sh, int how)
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
			go = !shared_wanted_locked(sh, p->g, p->rec0, p->rec1);
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
	shared_settle_locked(sh);
}

/* A view of one flat leaf read to its end (table_piece): its pages and
 * buffers given back, but for the pages a piece still rendering needs;
 * once there are none, the spare set too (into the tree's pool).
 * Called with sh->lock held. */
static void shared_end_locked(parquet_views_shared *sh)
{
	shared_prune_locked(sh, PRUNE_UNWANTED);
	if (!sh->pages)
		parquet_pages_scratch_free(&sh->spare);
	shared_settle_locked(sh);
}

static void shared_destroy(parquet_views_shared *sh)
{
	for (parquet_views_shpage *p = sh->pages; p; p = p->next)
		p->refs = 0;
	shared_prune_locked(sh, PRUNE_ALL);
	parquet_pages_scratch_free(&sh->spare);
	shared_stored_free_locked(sh);
	free(sh->newest);
	pthread_cond_destroy(&sh->unref);
	pthread_mutex_destroy(&sh->decode);
	pthread_mutex_destroy(&sh->lock);
}

static void shpage_unref(parquet_views_shpage *p)
{
	parquet_views_shared *sh = p->owner;

	pthread_mutex_lock(&sh->lock);
	p->refs--;
	if (!p->refs) {
		if (sh->ended)
			shared_end_locked(sh);
		else
			shared_prune_locked(sh, PRUNE_OLDER);
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
 * (shared_get) while the other cores idle: about half of `cat columns/X`
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

/* The row groups the view of `f` reads end before this one (defined with
 * the view below). */
static uint32_t view_end(const colfs_node *f);

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
	shared_prune_locked(sh, PRUNE_OLDER);
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
		last = g + 1 >= view_end(f);
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
	shared_settle_locked(sh);
	pthread_mutex_unlock(&sh->lock);
}

/* Page k of chunk (g, leaf), decoded once for all the view's readers;
 * referenced (shpage_unref).  `rec`: the records of row group g before
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
static colfs_status shared_get(colfs_tree *t, parquet_region_state *s,
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
		shared_prune_locked(sh, PRUNE_ALL);
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
	shared_prune_locked(sh, PRUNE_OLDER);
	pthread_mutex_unlock(&sh->lock);
	pthread_mutex_unlock(&sh->decode);
	*out = p;
	shared_ahead(t, s, f, sh, p);
	return COLFS_OK;
}

/* The shared pages of table view `f` (defined with the view below). */
static parquet_views_shared *view_shared(const colfs_node *f);

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

static void cur_unload(parquet_views_cursor *cu)
{
	if (cu->loaded && cu->sp)
		shpage_unref(cu->sp);
	cu->sp = NULL;
	cu->loaded = false;
}

static void cur_reset(parquet_pages_state *v, parquet_views_cursor *cu)
{
	(void)v;
	cur_unload(cu);
	cu->positioned = false;
}

static colfs_status chunk_fail(colfs_tree *t, const parquet_region_state *s,
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
static colfs_status cur_fill(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
			     parquet_views_cursor *cu)
{
	while (!cu->loaded || cu->i >= cu->p.n) {
		if (cu->loaded) {
			/* the piece is past this page's records: before the
			 * page is given back, so that no one waits for it */
			if (cu->claim) {
				parquet_views_shared *sh = view_shared(f);
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
				return chunk_fail(t, s, f, cu->w->stop.offset,
						  "the page walk stopped early: values are missing",
						  cu->g, cu->leaf);
			return COLFS_END;
		}
		if (!parquet_pages_is_data(&cu->w->pages[cu->k])) {
			cu->k++;
			continue;
		}
		COLFS_TRY(shared_get(t, s, f, view_shared(f), cu->g, cu->leaf, cu->w,
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
		cur_reset(s->values, cu);
		COLFS_TRY(parquet_pages_list_get(t, s, f, g, cu->leaf, &cu->w));
		if (!cu->w)
			return chunk_fail(t, s, f, 0, "the row group has no chunk for this column",
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
			st = cur_fill(t, s, f, cu);
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
			cur_reset(s->values, cu);
			return chunk_fail(t, s, f, 0, "the chunk holds fewer values than the row group's rows",
					  g, cu->leaf);
		}
		return COLFS_OK;
	}
	for (;;) {
		st = cur_fill(t, s, f, cu);
		if (st == COLFS_END && cu->rec == r)
			return COLFS_OK;
		if (st) {
			cur_reset(s->values, cu);
			if (st == COLFS_END)
				return chunk_fail(t, s, f, 0, "the chunk holds fewer records than the row group's rows",
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
				cur_reset(s->values, cu);
				return chunk_fail(t, s, f, 0, "entries before the chunk's first row start belong to no row",
						  g, cu->leaf);
			}
			if (!p->def || p->def[cu->i] == p->max_def)
				cu->j++;
			cu->i++;
		}
	}
}

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

static uint32_t view_end(const colfs_node *f)
{
	const parquet_views_view *w = colfs_node_ctx(f);
	return w->g1;
}

static parquet_views_shared *view_shared(const colfs_node *f)
{
	parquet_views_view *w = colfs_node_ctx(f);
	return &w->sh;
}

static const parquet_views_view *view_of_shared(const parquet_views_shared *sh)
{
	return (const parquet_views_view *)(const void *)
	       ((const char *)sh - offsetof(parquet_views_view, sh));
}

static void field_free(parquet_pages_state *v, parquet_views_field *fl)
{
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		if (fl->cur)
			cur_reset(v, &fl->cur[i]);
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

static void view_free(parquet_views_view *w)
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
	shared_destroy(&w->sh);
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
static colfs_status reader_take(parquet_views_view *w, uint64_t index,
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
static void reader_give(parquet_views_view *w, parquet_views_reader *rd,
			uint64_t at)
{
	pthread_mutex_lock(&w->lock);
	rd->busy = false;
	rd->at = at;
	pthread_cond_signal(&w->freed);
	pthread_mutex_unlock(&w->lock);
}

static colfs_status field_init_leaf(colfs_tree *t, parquet_region_state *s, parquet_views_field *fl,
				    uint32_t leaf, const char *name)
{
	fl->name = name;
	fl->n_leaves = 1;
	fl->cur = calloc(1, sizeof *fl->cur);
	if (!fl->cur)
		return COLFS_ENOMEM;
	fl->cur[0].leaf = leaf;
	leaf_init(&fl->cur[0].r, t, &s->pf->columns[leaf]);
	return COLFS_OK;
}

static colfs_status field_init_nested(colfs_tree *t, parquet_region_state *s,
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
		leaf_init(&fl->cur[i].r, t, &pf->columns[leaf]);
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
		st = cur_fill(t, s, f, cu);
		if (st == COLFS_END && cu->rec == stop)
			break;
		if (st) {
			cur_reset(s->values, cu);
			if (st == COLFS_END)
				return chunk_fail(t, s, f, 0, "the chunk holds fewer records than the row group's rows",
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
					raw_val(&a->text, p, cu->j);
				else
					render_val(&a->text, &cu->r.json,
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
static bool field_row_damaged(const parquet_views_field *fl, uint64_t row)
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
			keep = rec >= m || !field_row_damaged(fl, rec);
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
static colfs_status field_load(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
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
			fl->n_damaged += field_row_damaged(fl, row);
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
			cur_reset(s->values, &fl->cur[i]);
		parquet_region_rg_report(t, s, g, f, e.offset, e.status,
			  "row group %u, field %s: %s", g, fl->name, e.msg);
		return e.status;
	}
	return COLFS_OK;
}

/* Render the next row of a field (text or JSON mode) into b, row `row`
 * of the batch loaded; *drop is set when the row is to be left out
 * (on_damage=skip). */
static colfs_status field_next(colfs_tree *t, parquet_region_state *s, const colfs_node *f,
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
		if (field_row_damaged(fl, row)) {
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
	colfs_status st = cur_fill(t, s, f, cu);
	if (st == COLFS_END)
		st = chunk_fail(t, s, f, 0, "values ended early", cu->g, cu->leaf);
	if (st)
		return st;
	if (cu->skip)
		*drop = true;
	if (cu->p.def && cu->p.def[cu->i] != cu->p.max_def)
		colfs_render_null(b, r);
	else
		render_val(b, r, &cu->r, &cu->p, cu->j++);
	cu->i++;
	cu->rec++;
	return COLFS_OK;
}

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
		bool dmg = field_row_damaged(fl, row);
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

static int64_t rg_rows(const parquet_region_state *s, uint32_t g)
{
	int64_t n = s->pf->row_groups[g].num_rows;
	return n > 0 ? n : 0;
}

static bool view_piece_rows(const parquet_views_shared *sh, uint64_t index,
			    uint32_t *g, uint64_t *r0, uint64_t *m)
{
	const parquet_views_view *w = view_of_shared(sh);
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
	*m = (uint64_t)rg_rows(w->s, *g) - *r0;
	if (*m > w->batch)
		*m = w->batch;
	return true;
}

static void view_rows_pieces(const parquet_views_shared *sh, uint32_t g,
			     uint64_t rec0, uint64_t rec1, uint64_t *lo,
			     uint64_t *hi)
{
	const parquet_views_view *w = view_of_shared(sh);
	uint64_t rows, csv = w->mode == MODE_CSV;

	*lo = *hi = 0;
	if (g < w->g0 || g >= w->g1)
		return;
	rows = (uint64_t)rg_rows(w->s, g);
	if (rec1 > rows)
		rec1 = rows;
	if (rec0 >= rec1)
		return;
	*lo = w->cum[g - w->g0] + rec0 / w->batch + csv;
	*hi = w->cum[g - w->g0] + (rec1 - 1) / w->batch + 1 + csv;
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
	if (!view_piece_rows(&w->sh, index, &g, &r0, &m))
		return COLFS_END;
	for (uint32_t i = 0; i < w->n_fields && !st; i++)
		st = field_load(t, s, f, &rd->fields[i], g, r0, m);
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
					cur_reset(s->values, &fl->cur[i]);
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
			 * length (render_lines) */
			colfs_buf_reserve(out, (size_t)m * 26);
		while (left) {
			st = cur_fill(t, s, f, cu);
			if (st == COLFS_END)
				st = chunk_fail(t, s, f, 0, "values ended early",
						g, cu->leaf);
			if (st) {
				cur_reset(s->values, cu);
				return st;
			}
			size_t take = cu->p.n - cu->i;
			if (take > left)
				take = (size_t)left;
			if (!cu->skip)   /* on_damage=skip: left out */
				render_lines(out, &cu->r, &cu->p, cu->i,
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
				st = field_next(t, s, f, fl, &w->json, out,
						row, &drop);
			} else {
				if (i)
					colfs_buf_putc(out, ',');
				rd->tmp.len = 0;
				st = field_next(t, s, f, fl, &w->text,
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
				cur_reset(s->values, &rd->fields[i].cur[l]);
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

	COLFS_TRY(reader_take(w, index, &rd));
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
		/* the rows this piece is to read (shared_wanted_locked) */
		uint32_t g;
		uint64_t r0, m;
		w->sh.t = t;
		w->sh.node = f;
		if (view_piece_rows(&w->sh, index, &g, &r0, &m)) {
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
			cur_reset(w->s->values, &rd->fields[0].cur[l]);
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
		 * lets go of it (shpage_unref): kept as its leaf's newest,
		 * it had held its buffers (8 MB of a BIGINT page) until the
		 * node was freed, in some runs and not others */
		for (uint32_t i = 0; i < w->n_fields; i++)
			for (uint32_t l = 0; l < rd->fields[i].n_leaves; l++)
				cur_reset(w->s->values, &rd->fields[i].cur[l]);
		pthread_mutex_lock(&w->sh.lock);
		w->sh.ended = true;
		shared_prune_locked(&w->sh, PRUNE_ALL);
		parquet_pages_scratch_free(&w->sh.spare);
		shared_settle_locked(&w->sh);
		pthread_mutex_unlock(&w->sh.lock);
	}
	/* A reader given back holds no page: a one-leaf view waits for the
	 * pages in use before decoding the next (shared_get), and an idle
	 * reader must not keep it waiting.  The next piece finds its page
	 * among the shared ones and seeks in it again. */
	for (uint32_t i = 0; i < w->n_fields; i++)
		for (uint32_t l = 0; l < rd->fields[i].n_leaves; l++)
			cur_reset(w->s->values, &rd->fields[i].cur[l]);
	if (w->sh.track) {
		/* done: no one waits for it any more, nor keeps a page */
		pthread_mutex_lock(&w->sh.lock);
		if (claim) {
			claim->used = false;
			w->sh.done[w->sh.done_at++ % SHARED_DONE] = index;
		}
		if (w->sh.ended)
			shared_end_locked(&w->sh);
		else if (claim)
			shared_prune_locked(&w->sh, PRUNE_OLDER);
		pthread_cond_broadcast(&w->sh.unref);
		pthread_mutex_unlock(&w->sh.lock);
		rd->fields[0].cur[0].claim = NULL;
	}
	reader_give(w, rd, st ? UINT64_MAX : index + 1);
	return st;
}

/* The node is freed (colfs_dir_release): so is its view, decoded pages
 * and readers with it. */
static void table_release(colfs_tree *t, colfs_node *n)
{
	parquet_views_view *w = colfs_node_ctx(n);

	(void)t;
	parquet_pages_unkeep(w->s->values, &w->kept);
	view_free(w);
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
	shared_init(&w->sh, s->values);
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
		view_free(w);
		return NULL;
	}
	for (uint32_t i = 0; i < ng; i++) {
		uint64_t rows = (uint64_t)rg_rows(s, w->g0 + i);
		w->cum[i + 1] = w->cum[i] + (rows + w->batch - 1) / w->batch;
	}
	return w;
}

static void view_kept_free(parquet_pages_kept *k)
{
	view_free((parquet_views_view *)k);
}

static void view_register(parquet_region_state *s, parquet_views_view *w)
{
	w->sh.one_leaf = w->n_fields == 1 && w->fields[0].n_leaves == 1;
	/* a flat leaf: a page's records are its values (shpage rec0) */
	w->sh.track = w->sh.one_leaf &&
		      s->pf->columns[w->fields[0].cur[0].leaf].max_rep == 0;
	/* a flat columns/ view: only render_lines reads its values */
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
			st = field_init_leaf(t, s, &w->fields[0],
					     (uint32_t)pf->schema[i].leaf,
					     pf->schema[i].name);
		else
			st = field_init_nested(t, s, &w->fields[0], i, &e);
		if (st) {
			view_free(w);
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
		if (field_init_leaf(t, s, &w->fields[0], c, col->path)) {
			view_free(w);
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
			st = field_init_leaf(t, s, fl,
					     (uint32_t)pf->schema[i].leaf,
					     pf->schema[i].name);
		else
			st = field_init_nested(t, s, fl, i, &e);
		if (st) {
			view_free(w);
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

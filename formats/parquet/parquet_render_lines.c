/* colfs: the Parquet value views' rendering hot loops: a leaf's
 * rendering context and the lines of a decoded page's values, one
 * value a line (fast paths for plain integers, short dictionary
 * strings and in-page strings). */
#include "parquet_views_int.h"

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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


void pv_leaf_init(parquet_views_leaf *l, colfs_tree *t, const parquet_column *col)
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
	l->text.csv = false;
	l->json = colfs_render_json_default;
}

/* Value j of a BYTE_ARRAY page as its bytes (variant binaries). */
void pv_raw_val(colfs_buf *b, const parquet_pages_decoded *p, size_t j)
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
 * (pv_render_lines' general loop asks each value for its null, its
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
void pv_render_lines(colfs_buf *b, const parquet_views_leaf *l, const parquet_pages_decoded *p,
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
			pv_render_val(b, &l->text, l, p, jj++);
		}
		colfs_buf_putc(b, '\n');
	}
	*j = jj;
}

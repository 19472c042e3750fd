/* colfs: the Parquet value pipeline (page walk, CRC, decompression,
 * levels, values, dictionaries) and the views over it: chunk and page
 * `values`/`levels`/`dictionary`/`decompressed`, `columns/<field>`,
 * `rows.jsonl`, `rows.csv` (parquet_values.h; docs/parquet-tree.md). */
#include "parquet_values.h"

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../core/codec.h"
#include "../core/render.h"
#include "decode/pq_assemble.h"
#include "decode/pq_decode.h"

#define DICT_SLOTS 8
#define ROWS_BATCH 8192      /* rows per piece of rows.jsonl / rows.csv */
#define COLUMN_BATCH 65536   /* rows per piece of columns/<field> */

/* A decoded dictionary of one chunk, refcounted. */
typedef struct pqv_dict {
	uint32_t g, c;
	int refs;
	uint64_t use;            /* last use, for eviction */
	pq_values vals;
	uint8_t *buf;            /* the decompressed page `vals` points into */
} pqv_dict;

typedef struct pqv_view pqv_view;

struct pqv_state {
	pthread_mutex_t lock;
	pq_state *s;
	pqv_walk **walks;        /* [row group] -> [chunk] */
	pqv_dict *dicts[DICT_SLOTS];
	uint64_t clock;
	pqv_view *views;         /* every view state, freed at destroy */
};

static void dict_unref(pqv_state *v, pqv_dict *d)
{
	bool last;

	if (!d)
		return;
	pthread_mutex_lock(&v->lock);
	last = --d->refs == 0;
	pthread_mutex_unlock(&v->lock);
	if (last) {
		pq_values_free(&d->vals);
		free(d->buf);
		free(d);
	}
}

static void view_free(pqv_view *w);

colfs_status pqv_state_create(pq_state *s, pqv_state **out)
{
	pqv_state *v = calloc(1, sizeof *v);

	*out = NULL;
	if (!v)
		return COLFS_ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	v->s = s;
	if (s->pf && s->pf->n_row_groups) {
		v->walks = calloc(s->pf->n_row_groups, sizeof *v->walks);
		if (!v->walks) {
			pqv_state_destroy(v);
			return COLFS_ENOMEM;
		}
	}
	*out = v;
	return COLFS_OK;
}

void pqv_state_destroy(pqv_state *v)
{
	if (!v)
		return;
	for (uint32_t g = 0; v->walks && g < v->s->pf->n_row_groups; g++) {
		if (!v->walks[g])
			continue;
		for (uint32_t c = 0; c < v->s->pf->row_groups[g].n_chunks; c++)
			free(v->walks[g][c].pages);
		free(v->walks[g]);
	}
	free(v->walks);
	for (int i = 0; i < DICT_SLOTS; i++)
		dict_unref(v, v->dicts[i]);
	while (v->views) {
		pqv_view *w = v->views;
		v->views = *(pqv_view **)w;
		view_free(w);
	}
	pthread_mutex_destroy(&v->lock);
	free(v);
}

/* --- page walks ----------------------------------------------------------- */

static const parquet_chunk *chunk_at(const pq_state *s, uint32_t g, uint32_t c)
{
	if (!s->pf || g >= s->pf->n_row_groups ||
	    c >= s->pf->row_groups[g].n_chunks)
		return NULL;
	return &s->pf->row_groups[g].chunks[c];
}

/* Report a problem of chunk (g, c) under the chunk's own directory, or of
 * its page k (PQ_NO_PAGE: the chunk), whether or not that directory was
 * listed; under `fallback` when the part has no place in the tree. */
static void part_report(colfs_tree *t, const pq_state *s, uint32_t g,
			uint32_t c, size_t k, const colfs_node *fallback,
			const colfs_err *e)
{
	char path[4096];

	if (pq_part_path(s, g, c, k, path, sizeof path))
		colfs_tree_report_err_path(t, path, e);
	else
		colfs_tree_report_err(t, fallback, e);
}

/* A problem of row group g as a whole (records that do not assemble):
 * under its directory, or `fallback` in salvage's stand-in state. */
static void rg_report(colfs_tree *t, const pq_state *s, uint32_t g,
		      const colfs_node *fallback, uint64_t off,
		      colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static void rg_report(colfs_tree *t, const pq_state *s, uint32_t g,
		      const colfs_node *fallback, uint64_t off,
		      colfs_status st, const char *fmt, ...)
{
	char path[32], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(path, sizeof path, "/row_groups/%u", g);
	if (s->synthetic || !s->pf || g >= s->pf->n_row_groups)
		colfs_tree_report(t, fallback, off, st, "%s", msg);
	else
		colfs_tree_report_path(t, path, off, st, "%s", msg);
}

colfs_status pqv_chunk_walk(colfs_tree *t, pq_state *s, const colfs_node *where,
			    uint32_t g, uint32_t c, const pqv_walk **out)
{
	pqv_state *v = s->values;
	const parquet_chunk *ch = chunk_at(s, g, c);
	colfs_status st = COLFS_OK;
	bool fresh = false;
	pqv_walk *w;
	colfs_err note = {0};

	*out = NULL;
	if (!ch || !v || !v->walks)
		return COLFS_OK;
	pthread_mutex_lock(&v->lock);
	if (!v->walks[g]) {
		v->walks[g] = calloc(s->pf->row_groups[g].n_chunks,
				     sizeof **v->walks);
		if (!v->walks[g]) {
			pthread_mutex_unlock(&v->lock);
			return COLFS_ENOMEM;
		}
	}
	w = &v->walks[g][c];
	if (!w->walked) {
		/* The walk reads page headers through the source (pread):
		 * short, and done once per chunk. */
		memset(&w->stop, 0, sizeof w->stop);
		if (!ch->has_meta)
			colfs_fail(&w->stop, COLFS_ECORRUPT, ch->start,
				   "the column chunk has no ColumnMetaData: its pages cannot be found");
		else
			st = parquet_chunk_walk(s->src, ch, s->max_alloc,
						&w->pages, &w->n, &w->stop,
						&note);
		if (!st) {
			w->walked = true;
			fresh = true;
		}
	}
	pthread_mutex_unlock(&v->lock);
	if (st)
		return st;
	/* the walk's problems belong to the chunk's pages/, whichever view
	 * walked */
	if (fresh && note.status)
		part_report(t, s, g, c, PQ_PAGES, where, &note);
	if (fresh && w->stop.status)
		part_report(t, s, g, c, PQ_PAGES, where, &w->stop);
	*out = w;
	return COLFS_OK;
}

/* --- reading one page ---------------------------------------------------- */

static colfs_status codec_of(int32_t codec, colfs_codec *out, uint64_t off,
			     colfs_err *e)
{
	switch (codec) {
	case PARQUET_CODEC_UNCOMPRESSED: *out = COLFS_CODEC_NONE; break;
	case PARQUET_CODEC_SNAPPY: *out = COLFS_CODEC_SNAPPY; break;
	case PARQUET_CODEC_GZIP: *out = COLFS_CODEC_GZIP; break;
	case PARQUET_CODEC_LZO: *out = COLFS_CODEC_LZO; break;
	case PARQUET_CODEC_BROTLI: *out = COLFS_CODEC_BROTLI; break;
	case PARQUET_CODEC_LZ4: *out = COLFS_CODEC_LZ4_HADOOP; break;
	case PARQUET_CODEC_ZSTD: *out = COLFS_CODEC_ZSTD; break;
	case PARQUET_CODEC_LZ4_RAW: *out = COLFS_CODEC_LZ4_RAW; break;
	default:
		return colfs_fail(e, COLFS_EUNSUPPORTED, off,
				  "compression codec %d is not supported",
				  codec);
	}
	return COLFS_OK;
}

/* Buffers a cursor reuses from page to page (a page's stored and
 * decompressed bytes), so that sequential reading does not map fresh
 * memory for every page. */
typedef struct pqv_scratch {
	uint8_t *raw, *out;
	size_t raw_cap, out_cap;
} pqv_scratch;

static void scratch_free(pqv_scratch *sc)
{
	free(sc->raw);
	free(sc->out);
	memset(sc, 0, sizeof *sc);
}

static bool scratch_fit(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap && *p)
		return true;
	free(*p);
	*p = malloc(need ? need : 1);
	*cap = *p ? need : 0;
	return *p != NULL;
}

/* Read `len` stored bytes at `off` into a scratch buffer (borrowed). */
static colfs_status scratch_read(pq_state *s, pqv_scratch *sc, uint64_t off,
				 size_t len, uint8_t **out, colfs_err *e)
{
	uint64_t end;

	if (colfs_add_overflows(off, len, &end) || end > s->size)
		return colfs_fail(e, COLFS_EBOUNDS, off,
				  "page of %zu bytes at %llu runs past the end of the file",
				  len, (unsigned long long)off);
	if (len > s->max_alloc)
		return colfs_fail(e, COLFS_EOVERFLOW, off,
				  "page of %zu bytes is larger than the max_alloc cap (%llu)",
				  len, (unsigned long long)s->max_alloc);
	if (!scratch_fit(&sc->raw, &sc->raw_cap, len))
		return colfs_fail(e, COLFS_ENOMEM, off,
				  "out of memory for %zu bytes", len);
	if (len)
		COLFS_TRY(colfs_source_read_at(s->src, off, len, sc->raw, e));
	*out = sc->raw;
	return COLFS_OK;
}

/* The decompressed bytes of page `pg` (for data pages v2: the levels,
 * copied as stored, followed by the decompressed values).  Without
 * scratch `*out` is malloc'd (`*owned` true); with it, `*out` may be one
 * of the scratch buffers (borrowed until the next page). */
static colfs_status page_bytes_sc(colfs_tree *t, pq_state *s,
				  const parquet_chunk *ch,
				  const parquet_page *pg, pqv_scratch *sc,
				  uint8_t **out, size_t *out_len, bool *owned,
				  colfs_err *e)
{
	const parquet_page_header *h = &pg->hdr;
	uint64_t off = pg->offset + h->header_len;
	size_t stored = (size_t)h->compressed_size;
	size_t ulen = (size_t)h->uncompressed_size;
	size_t lvl = 0, got = 0;
	uint8_t *raw, *buf;
	colfs_codec codec = COLFS_CODEC_NONE;
	colfs_status st;

	*out = NULL;
	*out_len = 0;
	*owned = !sc;
	COLFS_TRY(codec_of(ch->codec, &codec, off, e));
	if (sc)
		COLFS_TRY(scratch_read(s, sc, off, stored, &raw, e));
	else
		COLFS_TRY(pq_read_region(s, off, stored, &raw, e));
	if (h->has_crc) {
		uint32_t crc = colfs_crc32(0, raw, stored);
		if (crc != h->crc) {
			colfs_err ce;
			colfs_fail(&ce, COLFS_ECORRUPT, off,
				   "page CRC mismatch: header says %08x, the %zu stored bytes give %08x%s",
				   h->crc, stored, crc,
				   colfs_tree_options(t)->checksums_ignore ?
				   " (served anyway: checksums=ignore)" : "");
			if (!colfs_tree_options(t)->checksums_ignore) {
				if (!sc)
					free(raw);
				*e = ce;
				return COLFS_ECORRUPT;
			}
			*e = ce;   /* the caller reports it */
			e->status = COLFS_OK;
		}
	}
	if (h->type == PARQUET_PAGE_DATA_V2) {
		lvl = (size_t)h->def_levels_len + (size_t)h->rep_levels_len;
		if (lvl > stored) {
			if (!sc)
				free(raw);
			return colfs_fail(e, COLFS_ECORRUPT, off,
					  "data page v2 levels (%zu bytes) exceed the page (%zu bytes)",
					  lvl, stored);
		}
		if (!h->is_compressed)
			codec = COLFS_CODEC_NONE;
	}
	if (codec == COLFS_CODEC_NONE) {
		*out = raw;
		*out_len = stored;
		return COLFS_OK;
	}
	if (ulen > s->max_alloc) {
		if (!sc)
			free(raw);
		return colfs_fail(e, COLFS_EOVERFLOW, off,
				  "page declares %zu uncompressed bytes, more than the max_alloc cap (%llu): refused",
				  ulen, (unsigned long long)s->max_alloc);
	}
	if (ulen < lvl) {
		if (!sc)
			free(raw);
		return colfs_fail(e, COLFS_ECORRUPT, off,
				  "data page v2 uncompressed size %zu is smaller than its levels (%zu bytes)",
				  ulen, lvl);
	}
	if (sc)
		buf = scratch_fit(&sc->out, &sc->out_cap, ulen) ? sc->out : NULL;
	else
		buf = malloc(ulen ? ulen : 1);
	if (!buf) {
		if (!sc)
			free(raw);
		return colfs_fail(e, COLFS_ENOMEM, off,
				  "out of memory for a page of %zu bytes", ulen);
	}
	memcpy(buf, raw, lvl);
	if (stored - lvl > 0) {
		colfs_err de = {0};
		st = colfs_codec_decompress(codec, raw + lvl, stored - lvl,
					    buf + lvl, ulen - lvl, &got,
					    off + lvl, &de);
		if (st) {
			if (!sc) {
				free(raw);
				free(buf);
			}
			*e = de;
			return st;
		}
	}
	if (!sc)
		free(raw);
	*out = buf;
	*out_len = lvl + got;
	return COLFS_OK;
}

static colfs_status page_bytes(colfs_tree *t, pq_state *s,
			       const parquet_chunk *ch, const parquet_page *pg,
			       uint8_t **out, size_t *out_len, colfs_err *e)
{
	bool owned;
	return page_bytes_sc(t, s, ch, pg, NULL, out, out_len, &owned, e);
}

/* --- dictionaries --------------------------------------------------------- */

static colfs_status dict_decode(colfs_tree *t, pq_state *s, uint32_t g,
				uint32_t c, const pqv_walk *w, pqv_dict **out,
				colfs_err *e)
{
	const parquet_chunk *ch = chunk_at(s, g, c);
	const parquet_column *col = &s->pf->columns[ch->column];
	const parquet_page *pg = &w->pages[0];
	pqv_dict *d;
	colfs_cursor cur;
	size_t len;
	colfs_status st;

	d = calloc(1, sizeof *d);
	if (!d)
		return colfs_fail(e, COLFS_ENOMEM, pg->offset, "out of memory");
	d->g = g;
	d->c = c;
	d->refs = 1;
	st = page_bytes(t, s, ch, pg, &d->buf, &len, e);
	if (!st && e->msg[0] && !e->status) {
		/* a CRC mismatch served under checksums=ignore */
		colfs_err r = *e;
		r.status = COLFS_ECORRUPT;
		part_report(t, s, g, c, 0, NULL, &r);
		memset(e, 0, sizeof *e);
	}
	if (!st) {
		colfs_cursor_init_virtual(&cur, d->buf, len,
					  pg->offset + pg->hdr.header_len);
		st = pq_values_decode(&cur, col->elem->type,
				      col->elem->type_length, PARQUET_ENC_PLAIN,
				      (size_t)pg->hdr.num_values, 0,
				      s->max_alloc, &d->vals, e);
	}
	if (st) {
		pq_values_free(&d->vals);
		free(d->buf);
		free(d);
		return st;
	}
	*out = d;
	return COLFS_OK;
}

/* The dictionary of chunk (g, c), referenced (dict_unref when done). */
static colfs_status dict_get(colfs_tree *t, pq_state *s, uint32_t g,
			     uint32_t c, const pqv_walk *w, pqv_dict **out,
			     colfs_err *e)
{
	pqv_state *v = s->values;
	pqv_dict *d = NULL, *old = NULL;
	int slot = 0;

	*out = NULL;
	if (!w->n || w->pages[0].hdr.type != PARQUET_PAGE_DICTIONARY)
		return colfs_fail(e, COLFS_ECORRUPT,
				  w->n ? w->pages[0].offset : 0,
				  "a data page uses dictionary encoding but the chunk has no dictionary page");
	pthread_mutex_lock(&v->lock);
	for (int i = 0; i < DICT_SLOTS; i++)
		if (v->dicts[i] && v->dicts[i]->g == g && v->dicts[i]->c == c) {
			d = v->dicts[i];
			d->refs++;
			d->use = ++v->clock;
			break;
		}
	pthread_mutex_unlock(&v->lock);
	if (d) {
		*out = d;
		return COLFS_OK;
	}
	COLFS_TRY(dict_decode(t, s, g, c, w, &d, e));
	pthread_mutex_lock(&v->lock);
	for (int i = 0; i < DICT_SLOTS; i++) {
		if (!v->dicts[i]) {
			slot = i;
			break;
		}
		if (v->dicts[i]->use < v->dicts[slot]->use)
			slot = i;
	}
	old = v->dicts[slot];
	v->dicts[slot] = d;
	d->refs++;      /* the cache's reference */
	d->use = ++v->clock;
	pthread_mutex_unlock(&v->lock);
	dict_unref(v, old);
	*out = d;
	return COLFS_OK;
}

/* --- one decoded data page ------------------------------------------------ */

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

static void page_release(pqv_state *v, pqv_page *p)
{
	free(p->def);
	free(p->rep);
	pq_values_free(&p->vals);
	dict_unref(v, p->dict);
	if (p->buf_owned)
		free(p->buf);
	memset(p, 0, sizeof *p);
}

static bool is_data_page(const parquet_page *pg)
{
	return pg->hdr.type == PARQUET_PAGE_DATA ||
	       pg->hdr.type == PARQUET_PAGE_DATA_V2;
}

static colfs_status levels_alloc(pq_state *s, size_t n, uint32_t **out,
				 uint64_t off, colfs_err *e)
{
	if (n > s->max_alloc / sizeof **out)
		return colfs_fail(e, COLFS_EOVERFLOW, off,
				  "page of %zu values needs more level memory than the max_alloc cap",
				  n);
	*out = malloc((n ? n : 1) * sizeof **out);
	if (!*out)
		return colfs_fail(e, COLFS_ENOMEM, off, "out of memory");
	return COLFS_OK;
}

/* Decode data page k of chunk (g, c) (levels and values).  Problems are
 * reported here (under the page) and returned. */
static colfs_status page_decode(colfs_tree *t, pq_state *s,
				const colfs_node *where, uint32_t g,
				uint32_t c, const pqv_walk *w, size_t k,
				pqv_scratch *sc, pqv_page *p)
{
	const parquet_chunk *ch = chunk_at(s, g, c);
	const parquet_page *pg = &w->pages[k];
	const parquet_page_header *h = &pg->hdr;
	const parquet_column *col;
	uint64_t off = pg->offset + h->header_len;
	colfs_err e = {0};
	colfs_cursor cur;
	colfs_status st = COLFS_ECORRUPT;
	size_t n = (size_t)h->num_values;

	memset(p, 0, sizeof *p);
	if (ch->column >= s->pf->n_columns) {
		colfs_fail(&e, COLFS_ECORRUPT, pg->offset,
			   "the chunk has no leaf column in the schema");
		goto fail;
	}
	col = &s->pf->columns[ch->column];
	p->max_def = (uint32_t)col->max_def;
	if (col->elem->type != ch->type) {
		colfs_fail(&e, COLFS_ECORRUPT, pg->offset,
			   "the chunk's type %d differs from the schema's %d",
			   ch->type, col->elem->type);
		goto fail;
	}
	st = page_bytes_sc(t, s, ch, pg, sc, &p->buf, &p->buf_len,
			   &p->buf_owned, &e);
	if (st)
		goto fail;
	if (e.msg[0]) {
		e.status = COLFS_ECORRUPT;
		part_report(t, s, g, c, k, where, &e);
		memset(&e, 0, sizeof e);
	}
	colfs_cursor_init_virtual(&cur, p->buf, p->buf_len, off);
	p->n = n;
	if (col->max_rep > 0 &&
	    (st = levels_alloc(s, n, &p->rep, off, &e)))
		goto fail;
	if (col->max_def > 0 &&
	    (st = levels_alloc(s, n, &p->def, off, &e)))
		goto fail;
	if (h->type == PARQUET_PAGE_DATA_V2) {
		colfs_cursor lv;
		size_t rl = (size_t)h->rep_levels_len;
		size_t dl = (size_t)h->def_levels_len;
		if (p->rep) {
			if ((st = colfs_cursor_slice(&cur, 0, rl, &lv, &e)) ||
			    (st = pq_levels_decode_v2(&lv, (uint32_t)col->max_rep,
						      p->rep, n, &e)))
				goto fail;
		}
		if (p->def) {
			if ((st = colfs_cursor_slice(&cur, rl, dl, &lv, &e)) ||
			    (st = pq_levels_decode_v2(&lv, (uint32_t)col->max_def,
						      p->def, n, &e)))
				goto fail;
		}
		if ((st = colfs_cursor_skip(&cur, rl + dl, &e)))
			goto fail;
	} else {
		if (p->rep &&
		    (st = pq_levels_decode_v1(&cur, h->rep_encoding,
					      (uint32_t)col->max_rep, p->rep, n,
					      &e)))
			goto fail;
		if (p->def &&
		    (st = pq_levels_decode_v1(&cur, h->def_encoding,
					      (uint32_t)col->max_def, p->def, n,
					      &e)))
			goto fail;
	}
	if (p->rep && n > 0 && p->rep[0] != 0) {
		/* A chunk starts a row; so does every v2 page (the spec
		 * keeps v2 pages on row boundaries).  A v1 page after the
		 * first may continue a row. */
		bool first = true;
		for (size_t j = 0; j < k && first; j++)
			first = !is_data_page(&w->pages[j]);
		/* Reported, not fatal: the page's own levels and values stay
		 * readable; record assembly refuses the stray entries. */
		if (first || h->type == PARQUET_PAGE_DATA_V2) {
			colfs_fail(&e, COLFS_ECORRUPT, off,
				   "repetition level %u at the page's first entry: %s must start a new row (level 0)",
				   p->rep[0],
				   first ? "a column chunk" : "a v2 data page");
			part_report(t, s, g, c, k, where, &e);
			memset(&e, 0, sizeof e);
		}
	}
	if (p->def) {
		const uint32_t md = p->max_def;
		size_t nn = 0;
		for (size_t i = 0; i < n; i++)
			nn += p->def[i] == md;
		p->nonnull = nn;
	} else {
		p->nonnull = n;
	}
	if (h->encoding == PARQUET_ENC_PLAIN_DICTIONARY ||
	    h->encoding == PARQUET_ENC_RLE_DICTIONARY) {
		if ((st = dict_get(t, s, g, c, w, &p->dict, &e)))
			goto fail;
	}
	st = pq_values_decode(&cur, col->elem->type, col->elem->type_length,
			      h->encoding, p->nonnull,
			      p->dict ? (uint32_t)p->dict->vals.count : 0,
			      s->max_alloc, &p->vals, &e);
	if (!st && p->vals.indices && !p->dict)
		st = colfs_fail(&e, COLFS_ECORRUPT, off,
				"dictionary indices without a dictionary");
	if (st)
		goto fail;
	return COLFS_OK;
fail:
	if (!e.status)
		e.status = st ? st : COLFS_ECORRUPT;
	part_report(t, s, g, c, k, where, &e);
	page_release(s->values, p);
	return e.status;
}

colfs_status pqv_chunk_pages_visit(colfs_tree *t, pq_state *s,
				   const colfs_node *where, uint32_t g,
				   uint32_t c, pqv_page_fn fn, void *ctx)
{
	const pqv_walk *w;
	pqv_scratch sc = {0};
	colfs_status st;

	COLFS_TRY(pqv_chunk_walk(t, s, where, g, c, &w));
	if (!w)
		return COLFS_ENOENT;
	for (size_t k = 0; k < w->n; k++) {
		pqv_page p;

		if (!is_data_page(&w->pages[k]))
			continue;
		st = page_decode(t, s, where, g, c, w, k, &sc, &p);
		if (st)
			break;
		pqv_page_data pd = {
			.k = k, .pg = &w->pages[k], .n = p.n, .def = p.def,
			.rep = p.rep, .max_def = p.max_def,
			.nonnull = p.nonnull,
			.vals = p.vals.indices ? &p.dict->vals : &p.vals,
			.idx = p.vals.indices ? p.vals.v.idx : NULL,
		};
		st = fn(ctx, &pd);
		page_release(s->values, &p);
		if (st)
			break;
	}
	scratch_free(&sc);
	return st;
}

/* --- rendering ------------------------------------------------------------ */

pq_type pqv_type_of(const parquet_schema_elem *e)
{
	pq_type t = {0};

	t.physical = e->type;
	t.type_length = e->type_length;
	t.converted = e->converted_type;
	t.logical = e->logical.kind;
	t.scale = e->logical.kind == PARQUET_LT_DECIMAL ? e->logical.scale :
							 e->scale;
	t.unit = e->logical.unit;
	t.utc = e->logical.utc;
	t.bit_width = e->logical.bit_width;
	t.is_signed = e->logical.is_signed;
	return t;
}

static pq_type type_of(const parquet_schema_elem *e)
{
	return pqv_type_of(e);
}

/* Plain signed integers (no annotation, or INT(64/32, signed)): the hot
 * path renders them straight into the buffer. */
static bool plain_signed_int(const pq_type *t)
{
	if (t->physical != PARQUET_INT32 && t->physical != PARQUET_INT64)
		return false;
	if (t->logical == PARQUET_LT_INTEGER)
		return t->is_signed;
	if (t->logical)
		return false;
	return t->converted < 0 || t->converted == PARQUET_CT_INT_8 ||
	       t->converted == PARQUET_CT_INT_16 ||
	       t->converted == PARQUET_CT_INT_32 ||
	       t->converted == PARQUET_CT_INT_64;
}

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v plus '\n' at p (at most 21 bytes); returns the end. */
static inline char *put_i64_nl(char *p, int64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof tmp, *q = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	*--q = '\n';
	while (u >= 100) {
		unsigned r = (unsigned)(u % 100);
		u /= 100;
		q -= 2;
		memcpy(q, digits2 + 2 * r, 2);
	}
	if (u >= 10) {
		q -= 2;
		memcpy(q, digits2 + 2 * u, 2);
	} else {
		*--q = (char)('0' + u);
	}
	if (v < 0)
		*--q = '-';
	memcpy(p, q, (size_t)(e - q));
	return p + (e - q);
}

/* A leaf's rendering context. */
typedef struct pqv_leaf {
	pq_type type;
	bool fast_int;
	bool fast_str;           /* BYTE_ARRAY with a string annotation */
	colfs_render text, json;
} pqv_leaf;

static void leaf_init(pqv_leaf *l, colfs_tree *t, const parquet_column *col)
{
	l->type = type_of(col->elem);
	l->fast_int = plain_signed_int(&l->type);
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
			      const pqv_leaf *l, const pqv_page *p, size_t j)
{
	if (p->vals.indices)
		pq_render_value(b, r, &l->type, &p->dict->vals,
				p->vals.v.idx[j]);
	else
		pq_render_value(b, r, &l->type, &p->vals, j);
}

/* Value j of a BYTE_ARRAY page as its bytes (variant binaries). */
static void raw_val(colfs_buf *b, const pqv_page *p, size_t j)
{
	const pq_bytes *v = p->vals.indices ?
			    &p->dict->vals.v.bytes[p->vals.v.idx[j]] :
			    &p->vals.v.bytes[j];

	colfs_buf_append(b, v->ptr, v->len);
}

static inline int64_t int_at(const pqv_page *p, size_t j)
{
	const pq_values *v = &p->vals;
	if (v->indices) {
		v = &p->dict->vals;
		j = p->vals.v.idx[j];
	}
	return v->physical_type == PARQUET_INT64 ? v->v.i64[j] : v->v.i32[j];
}

/* Entries [from, to) of a page as text lines (value or null token);
 * `*j` is the index of the next non-null value. */
static void render_lines(colfs_buf *b, const pqv_leaf *l, const pqv_page *p,
			 size_t from, size_t to, size_t *j)
{
	const uint32_t md = p->max_def;
	size_t jj = *j;

	if (l->fast_int) {
		const char *nt = l->text.null_token ? l->text.null_token : "\\N";
		size_t ntl = strlen(nt);
		size_t per = ntl + 1 > 21 ? ntl + 1 : 21;
		if (to - from > (SIZE_MAX - b->len) / per ||
		    !colfs_buf_reserve(b, (to - from) * per))
			return;
		char *q = b->data + b->len;
		for (size_t i = from; i < to; i++) {
			if (p->def && p->def[i] != md) {
				memcpy(q, nt, ntl);
				q += ntl;
				*q++ = '\n';
			} else {
				q = put_i64_nl(q, int_at(p, jj++));
			}
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
		for (size_t i = from, x = jj; i < to; i++) {
			if (p->def && p->def[i] != md) {
				need += ntl + 1;
			} else {
				size_t vi = p->vals.indices ? p->vals.v.idx[x] : x;
				need += dv->v.bytes[vi].len + 1;
				x++;
			}
		}
		if (!colfs_buf_reserve(b, need))
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
				const pq_bytes *v = &dv->v.bytes[vi];
				const uint8_t *q = v->ptr;
				uint32_t n = v->len, k = 0;
				jj++;
				while (k < n && q[k] >= 0x20 && q[k] < 0x7f &&
				       q[k] != '\\')
					k++;
				if (k == n) {
					if (b->cap - b->len < (size_t)n + 1 &&
					    !colfs_buf_reserve(b, (size_t)n + 1))
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
	colfs_buf_reserve(b, (to - from) * 8);
	for (size_t i = from; i < to; i++) {
		if (p->def && p->def[i] != md)
			colfs_render_null(b, &l->text);
		else
			render_val(b, &l->text, l, p, jj++);
		colfs_buf_putc(b, '\n');
	}
	*j = jj;
}

/* Give back what a rendered piece reserved but did not use: the piece
 * cache counts a piece by its length, so its memory must be close to it. */
static void buf_fit(colfs_buf *b)
{
	if (b->data && !b->failed && b->cap > b->len + b->len / 8 + 4096) {
		char *p = realloc(b->data, b->len ? b->len : 1);
		if (p) {
			b->data = p;
			b->cap = b->len ? b->len : 1;
		}
	}
}

/* --- chunk and page views ------------------------------------------------- */

enum { VIEW_VALUES, VIEW_LEVELS, VIEW_DICTIONARY, VIEW_DECOMPRESSED };

/* Node args: a = row group, b = chunk, c = page index (page views) or
 * (uint64_t)-1 (chunk views: piece i is page i). */
typedef struct pqv_pageview {
	pq_state *s;
	int what;
} pqv_pageview;

static colfs_status pageview_piece(colfs_tree *t, colfs_node *f,
				   uint64_t index, colfs_buf *out)
{
	const pqv_pageview *pv = colfs_node_ctx(f);
	pq_state *s = pv->s;
	uint32_t g = (uint32_t)colfs_node_a(f), c = (uint32_t)colfs_node_b(f);
	uint64_t k = colfs_node_c(f);
	const pqv_walk *w;
	const parquet_chunk *ch = chunk_at(s, g, c);
	pqv_leaf leaf;
	pqv_page p;

	COLFS_TRY(pqv_chunk_walk(t, s, f, g, c, &w));
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
	if (pv->what == VIEW_DECOMPRESSED) {
		colfs_err e = {0};
		uint8_t *buf;
		size_t len;
		colfs_status st = page_bytes(t, s, ch, &w->pages[k], &buf,
					     &len, &e);
		if (st || e.msg[0]) {
			if (!st)
				e.status = COLFS_ECORRUPT;
			part_report(t, s, g, c, k, f, &e);
		}
		if (st)
			return st;
		colfs_buf_append(out, buf, len);
		free(buf);
		return COLFS_OK;
	}
	if (!is_data_page(&w->pages[k]))
		return COLFS_OK;        /* an empty piece */
	if (ch->column >= s->pf->n_columns)
		return COLFS_ECORRUPT;
	leaf_init(&leaf, t, &s->pf->columns[ch->column]);
	COLFS_TRY(page_decode(t, s, f, g, c, w, k, NULL, &p));
	if (pv->what == VIEW_VALUES) {
		size_t j = 0;
		render_lines(out, &leaf, &p, 0, p.n, &j);
	} else {
		for (size_t i = 0; i < p.n; i++)
			colfs_buf_printf(out, "%u %u\n", p.rep ? p.rep[i] : 0,
					 p.def ? p.def[i] : p.max_def);
	}
	page_release(s->values, &p);
	buf_fit(out);
	return COLFS_OK;
}

static colfs_status dictionary_piece(colfs_tree *t, colfs_node *f,
				     uint64_t index, colfs_buf *out)
{
	const pqv_pageview *pv = colfs_node_ctx(f);
	pq_state *s = pv->s;
	uint32_t g = (uint32_t)colfs_node_a(f), c = (uint32_t)colfs_node_b(f);
	const parquet_chunk *ch = chunk_at(s, g, c);
	const pqv_walk *w;
	pqv_dict *d;
	pqv_leaf leaf;
	colfs_err e = {0};

	if (index > 0)
		return COLFS_END;
	COLFS_TRY(pqv_chunk_walk(t, s, f, g, c, &w));
	if (!w || !ch || ch->column >= s->pf->n_columns)
		return COLFS_ECORRUPT;
	/* Old writers list PLAIN_DICTIONARY for chunks without a
	 * dictionary page: then there are no entries. */
	if (!w->n || w->pages[0].hdr.type != PARQUET_PAGE_DICTIONARY)
		return w->stop.status ? COLFS_ECORRUPT : COLFS_END;
	if (dict_get(t, s, g, c, w, &d, &e)) {
		part_report(t, s, g, c, 0, f, &e);
		return e.status;
	}
	leaf_init(&leaf, t, &s->pf->columns[ch->column]);
	for (size_t i = 0; i < d->vals.count; i++) {
		pq_render_value(out, &leaf.text, &leaf.type, &d->vals, i);
		colfs_buf_putc(out, '\n');
	}
	dict_unref(s->values, d);
	return COLFS_OK;
}

static const colfs_node_ops pageview_ops = {.piece = pageview_piece};
static const colfs_node_ops dictionary_ops = {.piece = dictionary_piece};

static colfs_status add_pageview(colfs_tree *t, colfs_node *dir, pq_state *s,
				 const char *name, int what,
				 const colfs_node_ops *ops, uint32_t g,
				 uint32_t c, uint64_t k)
{
	pqv_pageview *pv = colfs_tree_alloc(t, sizeof *pv);
	colfs_node *n;

	if (!pv)
		return COLFS_ENOMEM;
	pv->s = s;
	pv->what = what;
	n = colfs_dir_add_stream(t, dir, name, ops, pv);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, g, c, k);
	return COLFS_OK;
}

colfs_status pqv_chunk_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				 uint32_t g, uint32_t c)
{
	const parquet_chunk *ch = chunk_at(s, g, c);
	const parquet_column *col;
	bool dict = false;

	if (!ch || !ch->has_meta || ch->encrypted ||
	    ch->column >= s->pf->n_columns)
		return COLFS_OK;
	col = &s->pf->columns[ch->column];
	COLFS_TRY(add_pageview(t, dir, s, "values", VIEW_VALUES, &pageview_ops,
			       g, c, UINT64_MAX));
	if (col->max_rep > 0 || col->max_def > 0)
		COLFS_TRY(add_pageview(t, dir, s, "levels", VIEW_LEVELS,
				       &pageview_ops, g, c, UINT64_MAX));
	for (uint32_t i = 0; i < ch->n_encodings; i++)
		dict |= ch->encodings[i] == PARQUET_ENC_PLAIN_DICTIONARY ||
			ch->encodings[i] == PARQUET_ENC_RLE_DICTIONARY;
	if (dict || (ch->dictionary_page_offset > 0 &&
		     (uint64_t)ch->dictionary_page_offset == ch->start))
		COLFS_TRY(add_pageview(t, dir, s, "dictionary", VIEW_DICTIONARY,
				       &dictionary_ops, g, c, 0));
	return COLFS_OK;
}

colfs_status pqv_page_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				uint32_t g, uint32_t c, size_t k)
{
	const pqv_walk *w;
	const parquet_chunk *ch = chunk_at(s, g, c);
	const parquet_column *col;

	COLFS_TRY(pqv_chunk_walk(t, s, dir, g, c, &w));
	if (!w || k >= w->n || !ch || ch->column >= s->pf->n_columns)
		return COLFS_OK;
	col = &s->pf->columns[ch->column];
	COLFS_TRY(add_pageview(t, dir, s, "decompressed", VIEW_DECOMPRESSED,
			       &pageview_ops, g, c, k));
	if (!is_data_page(&w->pages[k]))
		return COLFS_OK;
	COLFS_TRY(add_pageview(t, dir, s, "values", VIEW_VALUES, &pageview_ops,
			       g, c, k));
	if (col->max_rep > 0 || col->max_def > 0)
		COLFS_TRY(add_pageview(t, dir, s, "levels", VIEW_LEVELS,
				       &pageview_ops, g, c, k));
	return COLFS_OK;
}

/* --- per-leaf cursors ------------------------------------------------------
 *
 * A cursor stands in chunk (g, leaf) at entry i of page k, with `rec`
 * records started before that entry.  It always stands at a record
 * boundary (or at the chunk's end) between calls.  Flat leaves (max_rep
 * 0) skip whole pages by their header's num_values without decoding. */
typedef struct pqv_cursor {
	uint32_t leaf;           /* parquet_file.columns index */
	pqv_leaf r;
	bool positioned;
	uint32_t g;
	const pqv_walk *w;
	size_t k;                /* current page */
	bool loaded;             /* p holds page k */
	pqv_page p;
	size_t i, j;             /* next entry, next non-null value in p */
	uint64_t rec;
	pqv_scratch sc;          /* page buffers, reused */
} pqv_cursor;

static void cur_reset(pqv_state *v, pqv_cursor *cu)
{
	if (cu->loaded)
		page_release(v, &cu->p);
	cu->loaded = false;
	cu->positioned = false;
}

static colfs_status chunk_fail(colfs_tree *t, const pq_state *s,
			       const colfs_node *f, uint64_t off,
			       const char *what, uint32_t g, uint32_t leaf)
{
	if (!off) {
		/* no better place: the chunk's first byte */
		const parquet_chunk *ch = chunk_at(s, g, leaf);
		if (ch)
			off = ch->start;
	}
	colfs_err e = {0};
	colfs_fail(&e, COLFS_ECORRUPT, off, "row group %u, column %u: %s", g,
		   leaf, what);
	part_report(t, s, g, leaf, PQ_NO_PAGE, f, &e);
	return COLFS_ECORRUPT;
}

/* Load the page holding the next entry (page k or later); COLFS_END at
 * the end of the chunk. */
static colfs_status cur_fill(colfs_tree *t, pq_state *s, const colfs_node *f,
			     pqv_cursor *cu)
{
	while (!cu->loaded || cu->i >= cu->p.n) {
		if (cu->loaded) {
			page_release(s->values, &cu->p);
			cu->loaded = false;
			cu->k++;
		}
		if (cu->k >= cu->w->n) {
			if (cu->w->stop.status)
				return chunk_fail(t, s, f, cu->w->stop.offset,
						  "the page walk stopped early: values are missing",
						  cu->g, cu->leaf);
			return COLFS_END;
		}
		if (!is_data_page(&cu->w->pages[cu->k])) {
			cu->k++;
			continue;
		}
		COLFS_TRY(page_decode(t, s, f, cu->g, cu->leaf, cu->w, cu->k,
				      &cu->sc, &cu->p));
		cu->loaded = true;
		cu->i = cu->j = 0;
	}
	return COLFS_OK;
}

/* Stand at the first entry of record r of row group g. */
static colfs_status cur_seek(colfs_tree *t, pq_state *s, const colfs_node *f,
			     pqv_cursor *cu, uint32_t g, uint64_t r)
{
	const parquet_column *col = &s->pf->columns[cu->leaf];
	colfs_status st;

	if (!cu->positioned || cu->g != g || cu->rec > r) {
		cur_reset(s->values, cu);
		COLFS_TRY(pqv_chunk_walk(t, s, f, g, cu->leaf, &cu->w));
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
				if (!is_data_page(pg) ||
				    cu->rec + (uint64_t)pg->hdr.num_values <= r) {
					if (is_data_page(pg))
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
		const pqv_page *p = &cu->p;
		while (cu->i < p->n) {
			if (p->rep[cu->i] == 0) {
				if (cu->rec == r)
					return COLFS_OK;
				cu->rec++;
			} else if (cu->rec == 0) {
				/* before the chunk's first row start: the
				 * entry belongs to no row (page_decode has
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

typedef struct pqv_acc {          /* one leaf's share of a nested batch */
	uint32_t *rep, *def;
	size_t n, cap;
	size_t nvals;
	colfs_buf text;
	size_t *off;
	size_t offcap;
	bool raw;                     /* variant binaries: bytes, not JSON */
} pqv_acc;

typedef struct pqv_field {
	const char *name;             /* raw name */
	uint32_t n_leaves;
	pqv_cursor *cur;
	pq_asm_plan *plan;            /* NULL: flat */
	pq_asm *as;
	pqv_acc *acc;
} pqv_field;

enum { MODE_COLUMN, MODE_JSONL, MODE_CSV };

struct pqv_view {
	pqv_view *next;               /* first member: the state's list */
	pq_state *s;
	int mode;
	uint32_t g0, g1;              /* row groups [g0, g1) */
	uint64_t batch;
	uint64_t *cum;                /* pieces before row group g0 + i */
	uint32_t n_fields;
	pqv_field *fields;
	colfs_buf tmp;
	colfs_render text, json;
};

static void field_free(pqv_state *v, pqv_field *fl)
{
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		if (fl->cur) {
			cur_reset(v, &fl->cur[i]);
			scratch_free(&fl->cur[i].sc);
		}
		if (fl->acc) {
			free(fl->acc[i].rep);
			free(fl->acc[i].def);
			free(fl->acc[i].off);
			colfs_buf_free(&fl->acc[i].text);
		}
	}
	free(fl->cur);
	free(fl->acc);
	pq_asm_destroy(fl->as);
	pq_asm_plan_destroy(fl->plan);
}

static void view_free(pqv_view *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->n_fields; i++)
		field_free(w->s->values, &w->fields[i]);
	free(w->fields);
	free(w->cum);
	colfs_buf_free(&w->tmp);
	free(w);
}

static colfs_status field_init_leaf(colfs_tree *t, pq_state *s, pqv_field *fl,
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

static colfs_status field_init_nested(colfs_tree *t, pq_state *s,
				      pqv_field *fl, uint32_t field,
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
		return colfs_fail(e, COLFS_ENOMEM, 0, "out of memory");
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		int32_t leaf = pq_asm_plan_leaf_column(fl->plan, i);
		if (leaf < 0 || (uint32_t)leaf >= pf->n_columns)
			return colfs_fail(e, COLFS_ECORRUPT, 0,
					  "field %s: leaf %d is not a column",
					  fl->name, leaf);
		fl->cur[i].leaf = (uint32_t)leaf;
		leaf_init(&fl->cur[i].r, t, &pf->columns[leaf]);
		fl->acc[i].raw = pq_asm_plan_leaf_raw(fl->plan, i);
	}
	return COLFS_OK;
}

static bool acc_grow(pqv_acc *a, size_t need)
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
	a->cap = cap;
	return true;
}

/* Gather records [rec, rec + m) of a nested leaf into its accumulator
 * (levels and the JSON text of its values). */
static colfs_status acc_gather(colfs_tree *t, pq_state *s,
			       const colfs_node *f, pqv_cursor *cu,
			       pqv_acc *a, uint64_t m)
{
	const uint64_t stop = cu->rec + m;
	colfs_status st;

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
		const pqv_page *p = &cu->p;
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
			if (!acc_grow(a, a->n + 1))
				return COLFS_ENOMEM;
			a->rep[a->n] = rp;
			a->def[a->n] = df;
			a->n++;
			if (df == p->max_def) {
				if (a->nvals + 2 > a->offcap) {
					size_t nc = a->offcap ? a->offcap * 2 : 1024;
					size_t *o = realloc(a->off, nc * sizeof *o);
					if (!o)
						return COLFS_ENOMEM;
					a->off = o;
					a->offcap = nc;
				}
				a->off[a->nvals] = a->text.len;
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
			if (!a->off)
				return COLFS_ENOMEM;
			a->offcap = 16;
		}
		a->off[0] = 0;
	}
	return colfs_buf_status(&a->text);
}

/* Position a field at row r of row group g and, for a nested field, load
 * the next m records into its assembler. */
static colfs_status field_load(colfs_tree *t, pq_state *s, const colfs_node *f,
			       pqv_field *fl, uint32_t g, uint64_t r,
			       uint64_t m)
{
	colfs_err e = {0};
	size_t recs = 0;

	for (uint32_t i = 0; i < fl->n_leaves; i++)
		COLFS_TRY(cur_seek(t, s, f, &fl->cur[i], g, r));
	if (!fl->plan)
		return COLFS_OK;
	pq_asm_leaf_batch lb[fl->n_leaves ? fl->n_leaves : 1];
	for (uint32_t i = 0; i < fl->n_leaves; i++) {
		pqv_acc *a = &fl->acc[i];
		COLFS_TRY(acc_gather(t, s, f, &fl->cur[i], a, m));
		lb[i] = (pq_asm_leaf_batch){
			.rep = a->rep, .def = a->def, .n = a->n,
			.n_values = a->nvals, .text = a->text.data ? a->text.data : "",
			.off = a->off,
		};
	}
	if (pq_asm_batch_set(fl->as, lb, &recs, &e) || recs != m) {
		if (!e.status)
			colfs_fail(&e, COLFS_ECORRUPT, 0,
				   "assembled %zu records, expected %llu", recs,
				   (unsigned long long)m);
		for (uint32_t i = 0; i < fl->n_leaves; i++)
			cur_reset(s->values, &fl->cur[i]);
		rg_report(t, s, g, f, e.offset, e.status,
			  "row group %u, field %s: %s", g, fl->name, e.msg);
		return e.status;
	}
	return COLFS_OK;
}

/* Render the next row of a field (text or JSON mode) into b. */
static colfs_status field_next(colfs_tree *t, pq_state *s, const colfs_node *f,
			       pqv_field *fl, const colfs_render *r,
			       colfs_buf *b)
{
	if (fl->plan) {
		colfs_err e = {0};
		colfs_status st = pq_asm_next(fl->as, b, r->json ? "null" :
					      (r->null_token ? r->null_token : "\\N"),
					      &e);
		if (st) {
			if (st == COLFS_END)
				colfs_fail(&e, COLFS_ECORRUPT, 0,
					   "record assembly ran out of records");
			colfs_tree_report(t, f, e.offset, e.status,
					  "field %s: %s", fl->name, e.msg);
			return e.status;
		}
		return COLFS_OK;
	}
	pqv_cursor *cu = &fl->cur[0];
	colfs_status st = cur_fill(t, s, f, cu);
	if (st == COLFS_END)
		st = chunk_fail(t, s, f, 0, "values ended early", cu->g, cu->leaf);
	if (st)
		return st;
	if (cu->p.def && cu->p.def[cu->i] != cu->p.max_def)
		colfs_render_null(b, r);
	else
		render_val(b, r, &cu->r, &cu->p, cu->j++);
	cu->i++;
	cu->rec++;
	return COLFS_OK;
}

/* --- table views ---------------------------------------------------------- */

static int64_t rg_rows(const pq_state *s, uint32_t g)
{
	int64_t n = s->pf->row_groups[g].num_rows;
	return n > 0 ? n : 0;
}

static colfs_status table_render(colfs_tree *t, colfs_node *f, uint64_t index,
				 colfs_buf *out)
{
	pqv_view *w = colfs_node_ctx(f);
	pq_state *s = w->s;
	uint32_t ng = w->g1 - w->g0, gi = 0;
	colfs_status st = COLFS_OK;

	if (w->mode == MODE_CSV) {
		if (index == 0) {
			for (uint32_t i = 0; i < w->n_fields; i++) {
				const char *n = w->fields[i].name;
				if (i)
					colfs_buf_putc(out, ',');
				colfs_render_csv_field(out, n, strlen(n));
			}
			colfs_buf_putc(out, '\n');
			return COLFS_OK;
		}
		index--;
	}
	if (index >= w->cum[ng])
		return COLFS_END;
	while (w->cum[gi + 1] <= index)
		gi++;
	uint32_t g = w->g0 + gi;
	uint64_t r0 = (index - w->cum[gi]) * w->batch;
	uint64_t m = (uint64_t)rg_rows(s, g) - r0;
	if (m > w->batch)
		m = w->batch;
	for (uint32_t i = 0; i < w->n_fields && !st; i++)
		st = field_load(t, s, f, &w->fields[i], g, r0, m);
	if (st)
		return st;
	if (w->mode == MODE_COLUMN) {
		pqv_field *fl = &w->fields[0];
		if (fl->plan) {
			colfs_err e = {0};
			size_t done = 0;
			const char *nt = w->text.null_token ? w->text.null_token
							    : "\\N";
			st = pq_asm_lines(fl->as, out, nt, (size_t)m, &done, &e);
			if (!st && done != m)
				st = colfs_fail(&e, COLFS_ECORRUPT, 0,
						"assembled %zu of %llu records",
						done, (unsigned long long)m);
			if (st) {
				rg_report(t, s, g, f, e.offset, e.status,
					  "row group %u, field %s: %s", g,
					  fl->name, e.msg);
				for (uint32_t i = 0; i < fl->n_leaves; i++)
					cur_reset(s->values, &fl->cur[i]);
			}
			return st;
		}
		pqv_cursor *cu = &fl->cur[0];
		uint64_t left = m;
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
			render_lines(out, &cu->r, &cu->p, cu->i, cu->i + take,
				     &cu->j);
			cu->i += take;
			cu->rec += take;
			left -= take;
		}
		return COLFS_OK;
	}
	for (uint64_t row = 0; row < m && !st; row++) {
		if (w->mode == MODE_JSONL)
			colfs_buf_putc(out, '{');
		for (uint32_t i = 0; i < w->n_fields && !st; i++) {
			pqv_field *fl = &w->fields[i];
			if (w->mode == MODE_JSONL) {
				if (i)
					colfs_buf_putc(out, ',');
				colfs_render_json_string(out,
							 (const uint8_t *)fl->name,
							 strlen(fl->name));
				colfs_buf_putc(out, ':');
				st = field_next(t, s, f, fl, &w->json, out);
			} else {
				if (i)
					colfs_buf_putc(out, ',');
				w->tmp.len = 0;
				st = field_next(t, s, f, fl, &w->text, &w->tmp);
				if (!st)
					colfs_render_csv_field(out, w->tmp.data
							       ? w->tmp.data : "",
							       w->tmp.len);
			}
		}
		if (w->mode == MODE_JSONL)
			colfs_buf_putc(out, '}');
		colfs_buf_putc(out, '\n');
	}
	if (st) {
		for (uint32_t i = 0; i < w->n_fields; i++)
			for (uint32_t l = 0; l < w->fields[i].n_leaves; l++)
				cur_reset(s->values, &w->fields[i].cur[l]);
	}
	return st;
}

static colfs_status table_piece(colfs_tree *t, colfs_node *f, uint64_t index,
				colfs_buf *out)
{
	pqv_view *w = colfs_node_ctx(f);
	colfs_status st = table_render(t, f, index, out);
	uint64_t last = w->cum[w->g1 - w->g0] + (w->mode == MODE_CSV);

	if (!st)
		buf_fit(out);
	if (st || index + 1 >= last) {
		/* at the end (or after a failure) the cursors' pages and
		 * buffers are given back: a view holds memory only while it
		 * is being read */
		for (uint32_t i = 0; i < w->n_fields; i++)
			for (uint32_t l = 0; l < w->fields[i].n_leaves; l++) {
				cur_reset(w->s->values, &w->fields[i].cur[l]);
				scratch_free(&w->fields[i].cur[l].sc);
			}
	}
	return st;
}

static const colfs_node_ops table_ops = {.piece = table_piece};

static pqv_view *view_new(colfs_tree *t, pq_state *s, int mode, int64_t g,
			  uint32_t n_fields)
{
	pqv_view *w = calloc(1, sizeof *w);
	uint32_t ng;

	if (!w)
		return NULL;
	w->s = s;
	w->mode = mode;
	w->g0 = g < 0 ? 0 : (uint32_t)g;
	w->g1 = g >= 0 ? (uint32_t)g + 1 :
		s->synthetic ? s->table_groups : s->pf->n_row_groups;
	w->batch = mode == MODE_COLUMN ? COLUMN_BATCH : ROWS_BATCH;
	w->text.null_token = colfs_tree_options(t)->null_token;
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

static void view_register(pq_state *s, pqv_view *w)
{
	pqv_state *v = s->values;

	pthread_mutex_lock(&v->lock);
	w->next = v->views;
	v->views = w;
	pthread_mutex_unlock(&v->lock);
}

/* Add one columns/ entry or rows view, owning `w` from here on. */
static colfs_status view_add(colfs_tree *t, colfs_node *dir, const char *name,
			     pqv_view *w)
{
	view_register(w->s, w);
	return colfs_dir_add_stream(t, dir, name, &table_ops, w) ? COLFS_OK
								 : COLFS_ENOMEM;
}

/* The top-level fields: schema indexes whose parent is the root. */
static colfs_status columns_populate(colfs_tree *t, colfs_node *dir)
{
	pq_state *s = colfs_node_ctx(dir);
	const parquet_file *pf = s->pf;
	int64_t g = (int64_t)colfs_node_a(dir) - 1;   /* a = g + 1, 0: all */
	colfs_err e = {0};

	for (uint32_t i = 1; i < pf->n_schema; i++) {
		if (pf->schema[i].parent != 0)
			continue;
		pqv_view *w = view_new(t, s, MODE_COLUMN, g, 1);
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
		pqv_view *w = view_new(t, s, MODE_COLUMN, g, 1);
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

static colfs_status rows_view_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				  int64_t g, int mode, const char *name)
{
	const parquet_file *pf = s->pf;
	uint32_t nf = 0;
	colfs_err e = {0};
	pqv_view *w;

	for (uint32_t i = 1; i < pf->n_schema; i++)
		nf += pf->schema[i].parent == 0;
	w = view_new(t, s, mode, g, nf);
	if (!w)
		return COLFS_ENOMEM;
	for (uint32_t i = 1; i < pf->n_schema; i++) {
		colfs_status st;
		if (pf->schema[i].parent != 0)
			continue;
		pqv_field *fl = &w->fields[w->n_fields++];
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

colfs_status pqv_table_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				 int64_t g)
{
	colfs_node *n;

	if (!s->pf || !s->values || s->encrypted_footer || !s->pf->n_schema)
		return COLFS_OK;
	n = colfs_dir_add_dir(t, dir, "columns", &columns_ops, s);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, (uint64_t)(g + 1), 0, 0);
	COLFS_TRY(rows_view_add(t, dir, s, g, MODE_JSONL, "rows.jsonl"));
	return rows_view_add(t, dir, s, g, MODE_CSV, "rows.csv");
}

/* --- bloom_filter/might_contain/<value> -----------------------------------
 *
 * The split-block bloom filter of parquet-format BloomFilter.md: blocks of
 * eight 32-bit words; the block is chosen by the upper 32 bits of the
 * XXH64 (seed 0) of the value's PLAIN encoding, and one bit per word by
 * the lower 32 bits times a salt. */

static const uint32_t sbbf_salt[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U,
};

static bool sbbf_check(const uint8_t *bits, size_t len, uint64_t hash)
{
	uint64_t blocks = len / 32;
	uint64_t b = ((hash >> 32) * blocks) >> 32;
	uint32_t key = (uint32_t)hash;

	for (int i = 0; i < 8; i++) {
		uint32_t word = colfs_le32(bits + b * 32 + 4 * (size_t)i);
		if (!(word & (1U << ((key * sbbf_salt[i]) >> 27))))
			return false;
	}
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static colfs_status empty_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	(void)t;
	(void)f;
	(void)out;
	return COLFS_OK;
}

static const colfs_node_ops maybe_ops = {.generate = empty_gen};

/* Node args: a = row group, b = chunk, c = bitset offset; the bitset
 * length is in the ctx. */
typedef struct pqv_bloom {
	pq_state *s;
	uint32_t g, c;
	uint64_t off;
	uint32_t len;
} pqv_bloom;

static colfs_status might_contain_lookup(colfs_tree *t, colfs_node *dir,
					 const char *name, colfs_node **out)
{
	const pqv_bloom *bl = colfs_node_ctx(dir);
	pq_state *s = bl->s;
	const parquet_chunk *ch = chunk_at(s, bl->g, bl->c);
	size_t nlen = strlen(name), vlen, k = 0;
	colfs_err e = {0};
	uint8_t *bits;
	bool hit;

	if (!ch || ch->column >= s->pf->n_columns || bl->len < 32)
		return COLFS_ENOENT;
	/* the name as the tree escapes it: %XX back to bytes */
	const parquet_schema_elem *el = s->pf->columns[ch->column].elem;
	/* PLAIN bytes are at most as long as the text, or the FLBA width */
	size_t cap = nlen + 16;
	if (el->type == PARQUET_FIXED_LEN_BYTE_ARRAY && el->type_length > 0 &&
	    (size_t)el->type_length > cap) {
		if (el->type_length > (1 << 20))
			return COLFS_ENOENT;
		cap = (size_t)el->type_length;
	}
	char *raw = malloc(nlen + 1);
	uint8_t *val = malloc(cap);
	if (!raw || !val) {
		free(raw);
		free(val);
		return COLFS_ENOMEM;
	}
	for (size_t i = 0; i < nlen; i++) {
		int hi, lo;
		if (name[i] == '%' && i + 2 < nlen &&
		    (hi = hexval(name[i + 1])) >= 0 &&
		    (lo = hexval(name[i + 2])) >= 0) {
			raw[k++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			raw[k++] = name[i];
		}
	}
	raw[k] = 0;
	pq_type ty = type_of(el);
	if (strlen(raw) != k || !pq_text_to_plain(&ty, raw, val, cap, &vlen)) {
		free(raw);
		free(val);
		return COLFS_ENOENT;
	}
	if (pq_read_region(s, bl->off, bl->len, &bits, &e)) {
		colfs_tree_report_err(t, dir, &e);
		free(raw);
		free(val);
		return e.status;
	}
	hit = sbbf_check(bits, bl->len, XXH64(val, vlen, 0));
	free(bits);
	free(val);
	if (!hit) {
		free(raw);
		return COLFS_ENOENT;
	}
	*out = colfs_dir_make_hidden(t, dir, raw, COLFS_CONTENT_DOC,
				     &maybe_ops, s);
	free(raw);
	return *out ? COLFS_OK : COLFS_ENOMEM;
}

static colfs_status might_contain_populate(colfs_tree *t, colfs_node *dir)
{
	(void)t;
	(void)dir;
	return COLFS_OK;        /* nothing listed: names are looked up */
}

static const colfs_node_ops might_contain_ops = {
	.populate = might_contain_populate,
	.lookup = might_contain_lookup,
};

colfs_status pqv_bloom_views_add(colfs_tree *t, colfs_node *dir, pq_state *s,
				 uint32_t g, uint32_t c, uint64_t bitset_off,
				 uint32_t bitset_len)
{
	const parquet_chunk *ch = chunk_at(s, g, c);
	pqv_bloom *bl;

	if (!ch || ch->column >= s->pf->n_columns)
		return COLFS_OK;
	if (bitset_len % 32 || bitset_len < 32) {
		colfs_tree_report(t, dir, bitset_off, COLFS_ECORRUPT,
				  "bloom filter bitset of %u bytes is not a whole number of 32-byte blocks",
				  bitset_len);
		return COLFS_OK;
	}
	bl = colfs_tree_alloc(t, sizeof *bl);
	if (!bl)
		return COLFS_ENOMEM;
	*bl = (pqv_bloom){ .s = s, .g = g, .c = c, .off = bitset_off,
			   .len = bitset_len };
	return colfs_dir_add_dir(t, dir, "might_contain", &might_contain_ops,
				 bl) ? COLFS_OK : COLFS_ENOMEM;
}

/* --- column_index.json with typed min/max -------------------------------- */

#define REAL_MARK '\x01'

/* Indented JSON plus '\n' (as colfs_buf_json), with the marked reals of
 * typed_json written as bare numbers. */
static colfs_status json_emit(colfs_buf *out, json_t *j)
{
	char *txt = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	static const char mark[] = "\"\\u0001";

	json_decref(j);
	if (!txt)
		return COLFS_ENOMEM;
	for (const char *p = txt; *p;) {
		const char *q = strstr(p, mark);
		if (!q) {
			colfs_buf_puts(out, p);
			break;
		}
		colfs_buf_append(out, p, (size_t)(q - p));
		q += sizeof mark - 1;
		const char *e = strchr(q, '"');
		if (!e)
			e = q + strlen(q);
		colfs_buf_append(out, q, (size_t)(e - q));
		p = *e ? e + 1 : e;
	}
	colfs_buf_putc(out, '\n');
	free(txt);
	return colfs_buf_status(out);
}

/* One statistics value (PLAIN bytes of one value) as a JSON value rendered
 * by the column's type; NULL when the bytes do not fit the type. */
static json_t *typed_json(const parquet_schema_elem *e, const uint8_t *p,
			  size_t n)
{
	const pq_type t = type_of(e);
	pq_values v = {0};
	union {
		uint8_t b;
		int32_t i32;
		int64_t i64;
		float f;
		double d;
	} u;
	pq_bytes by;
	colfs_buf b = COLFS_BUF_INIT;
	json_t *j = NULL;

	v.physical_type = e->type;
	v.count = 1;
	switch (e->type) {
	case PARQUET_BOOLEAN:
		if (n != 1)
			return NULL;
		u.b = p[0] != 0;
		v.v.b = &u.b;
		break;
	case PARQUET_INT32:
	case PARQUET_FLOAT:
		if (n != 4)
			return NULL;
		if (e->type == PARQUET_INT32) {
			u.i32 = (int32_t)colfs_le32(p);
			v.v.i32 = &u.i32;
		} else {
			uint32_t x = colfs_le32(p);
			memcpy(&u.f, &x, 4);
			v.v.f32 = &u.f;
		}
		break;
	case PARQUET_INT64:
	case PARQUET_DOUBLE:
		if (n != 8)
			return NULL;
		if (e->type == PARQUET_INT64) {
			u.i64 = (int64_t)colfs_le64(p);
			v.v.i64 = &u.i64;
		} else {
			uint64_t x = colfs_le64(p);
			memcpy(&u.d, &x, 8);
			v.v.f64 = &u.d;
		}
		break;
	case PARQUET_INT96:
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		if (n != (e->type == PARQUET_INT96 ? 12u : (size_t)e->type_length))
			return NULL;
		/* fall through */
	case PARQUET_BYTE_ARRAY:
		by.ptr = p;
		by.len = (uint32_t)n;
		v.v.bytes = &by;
		break;
	default:
		return NULL;
	}
	pq_render_value(&b, &colfs_render_json_default, &t, &v, 0);
	if (!colfs_buf_status(&b)) {
		j = json_loadb(b.data, b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL,
			       NULL);
		if (json_is_string(j) &&
		    (memchr(json_string_value(j), 0, json_string_length(j)) ||
		     json_string_value(j)[0] == REAL_MARK)) {
			/* NUL inside (not text for JSON readers) or text that
			 * starts like a marked real: show hex */
			json_decref(j);
			j = NULL;
		}
		if (json_is_real(j)) {
			/* jansson would print 17 digits: keep our shortest
			 * text, marked, and put it back in json_emit */
			json_decref(j);
			char *m = malloc(b.len + 3);
			if (!m)
				return NULL;
			m[0] = REAL_MARK;
			memcpy(m + 1, b.data, b.len);
			m[b.len + 1] = 0;
			j = json_string(m);
			free(m);
		}
	}
	colfs_buf_free(&b);
	return j;
}

/* Replace min_values/max_values of `ci` (decoded generically) by typed
 * values, from the ColumnIndex bytes at `buf`. */
static colfs_status column_index_typed(const parquet_schema_elem *e,
				       const uint8_t *buf, size_t len,
				       uint64_t off, json_t *ci, colfs_err *err)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	int16_t last;
	colfs_status st;

	colfs_cursor_init(&c, buf, len, off);
	colfs_thrift_init(&r, &c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, err));
	while ((st = colfs_thrift_field_next(&r, &last, &f, err)) == COLFS_OK) {
		const char *key = f.id == 2 ? "min_values" :
				  f.id == 3 ? "max_values" : NULL;
		uint8_t et;
		uint32_t cnt;
		if (!key || f.type != COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
			continue;
		}
		COLFS_TRY(colfs_thrift_list_begin(&r, &et, &cnt, err));
		json_t *arr = json_array();
		json_t *nulls = json_object_get(ci, "null_pages");
		for (uint32_t i = 0; i < cnt; i++) {
			const uint8_t *p;
			size_t n;
			st = colfs_thrift_read_binary(&r, et, &p, &n, err);
			if (st) {
				json_decref(arr);
				return st;
			}
			json_t *nb = json_array_get(nulls, i);
			json_t *v = json_is_true(nb) ? json_null()
						     : typed_json(e, p, n);
			if (!v) {
				/* bytes that do not fit the type: hex */
				char *hex = malloc(2 * n + 1);
				for (size_t k = 0; hex && k < n; k++)
					snprintf(hex + 2 * k, 3, "%02x", p[k]);
				if (hex)
					hex[2 * n] = 0;
				v = json_pack("{s:s}", "hex", hex ? hex : "");
				free(hex);
			}
			json_array_append_new(arr, v);
		}
		colfs_thrift_collection_leave(&r);
		json_object_set_new(ci, key, arr);
	}
	return st == COLFS_END ? COLFS_OK : st;
}

colfs_status pqv_column_index_gen(colfs_tree *t, colfs_node *file,
				  colfs_buf *out)
{
	pq_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = chunk_at(s, (uint32_t)colfs_node_a(file),
					   (uint32_t)colfs_node_b(file));
	colfs_err e = {0};
	uint8_t *buf;
	json_t *j;
	uint64_t off, len;
	colfs_status st;

	if (!ch)
		return COLFS_ECORRUPT;
	off = (uint64_t)ch->column_index_offset;
	len = (uint64_t)ch->column_index_length;
	if ((st = pq_read_region(s, off, len, &buf, &e)))
		goto fail;
	st = pq_json_struct(buf, (size_t)len, off, &parquet_desc_column_index,
			    &j, &e);
	if (!st && ch->column < s->pf->n_columns) {
		st = column_index_typed(s->pf->columns[ch->column].elem, buf,
					(size_t)len, off, j, &e);
		if (st)
			json_decref(j);
	}
	free(buf);
	if (st)
		goto fail;
	return json_emit(out, j);
fail:
	colfs_tree_report_err(t, file, &e);
	return e.status ? e.status : st;
}

/* --- statistics.json with values rendered as in the value files ---------- */

colfs_status pqv_statistics_gen(colfs_tree *t, colfs_node *file,
				colfs_buf *out)
{
	pq_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = chunk_at(s, (uint32_t)colfs_node_a(file),
					   (uint32_t)colfs_node_b(file));
	colfs_buf base = COLFS_BUF_INIT;
	colfs_err e = {0};
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	int16_t last;
	colfs_status st;
	json_t *j;

	if (!ch || ch->column >= s->pf->n_columns ||
	    ch->stats_span_off > s->pf->footer_len ||
	    ch->stats_span_len > s->pf->footer_len - ch->stats_span_off)
		return pq_statistics_gen(t, file, out);
	/* the typed document of parquet_docs.c, then min/max re-rendered */
	st = pq_statistics_gen(t, file, &base);
	if (st || colfs_buf_status(&base)) {
		colfs_buf_free(&base);
		return st ? st : COLFS_ENOMEM;
	}
	j = json_loadb(base.data, base.len, 0, NULL);
	colfs_buf_free(&base);
	if (!json_is_object(j)) {
		json_decref(j);
		return pq_statistics_gen(t, file, out);
	}
	colfs_cursor_init(&c, s->pf->footer + ch->stats_span_off,
			  ch->stats_span_len,
			  s->pf->footer_offset + ch->stats_span_off);
	colfs_thrift_init(&r, &c);
	st = colfs_thrift_struct_enter(&r, &last, &e);
	while (!st && (st = colfs_thrift_field_next(&r, &last, &f, &e)) ==
			      COLFS_OK) {
		const char *key = f.id == 1 ? "max" : f.id == 2 ? "min" :
				  f.id == 5 ? "max_value" :
				  f.id == 6 ? "min_value" : NULL;
		const uint8_t *p;
		size_t n;
		if (!key || f.type != COLFS_THRIFT_BINARY) {
			st = colfs_thrift_skip(&r, f.type, &e);
			continue;
		}
		st = colfs_thrift_read_binary(&r, f.type, &p, &n, &e);
		if (st)
			break;
		json_t *v = typed_json(s->pf->columns[ch->column].elem, p, n);
		if (v)
			json_object_set_new(j, key, v);
	}
	if (st != COLFS_END) {
		/* keep the document of parquet_docs.c as it was */
		json_decref(j);
		return pq_statistics_gen(t, file, out);
	}
	return json_emit(out, j);
}

/* colfs: Parquet pages: page headers (typed, fast), the page walk of a
 * chunk (once per chunk, cached), and the pipeline that turns one stored
 * page into levels and values: read, CRC, decompression (declared sizes
 * capped by max_alloc), level and value decoding (decode/), and the
 * chunk's dictionary (decoded once, kept in a small refcounted cache).
 * parquet_pages.h says what callers get; the views (parquet_views.c),
 * verify and salvage read pages only through here. */
#include "parquet_pages.h"
#include "parquet_crypt.h"
#include "parquet_pagecheck.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/codec.h"
#include "../core/thrift.h"
#include "decode/pq_decode.h"

#define DICT_SLOTS 8


static const char *sub_field_name(int kind, int16_t id)
{
	static const char *const v1[] = {
		"", "num_values", "encoding", "definition_level_encoding",
		"repetition_level_encoding",
	};
	static const char *const v2[] = {
		"", "num_values", "num_nulls", "num_rows", "encoding",
		"definition_levels_byte_length",
		"repetition_levels_byte_length",
	};
	static const char *const dict[] = {"", "num_values", "encoding"};

	if (kind == 5 && id > 0 && id < 5)
		return v1[id];
	if (kind == 8 && id > 0 && id < 7)
		return v2[id];
	if (kind == 7 && id > 0 && id < 3)
		return dict[id];
	return "?";
}

/* Read the fields of a sub-header (DataPageHeader, DataPageHeaderV2,
 * DictionaryPageHeader) into `h`.  `kind` is the PageHeader field id. */
static colfs_status parse_sub(colfs_thrift *r, int kind,
			      parquet_page_header *h, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(r->cur);
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	unsigned seen = 0;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, err));
	while ((st = colfs_thrift_field_next(r, &last, &f, err)) == COLFS_OK) {
		int32_t *dst = NULL;
		if (f.id > 0 && f.id < 16)
			seen |= 1u << f.id;
		switch (kind * 16 + f.id) {
		case 5 * 16 + 1: dst = &h->num_values; break;
		case 5 * 16 + 2: dst = &h->encoding; break;
		case 5 * 16 + 3: dst = &h->def_encoding; break;
		case 5 * 16 + 4: dst = &h->rep_encoding; break;
		case 7 * 16 + 1: dst = &h->num_values; break;
		case 7 * 16 + 2: dst = &h->encoding; break;
		case 8 * 16 + 1: dst = &h->num_values; break;
		case 8 * 16 + 2: dst = &h->num_nulls; break;
		case 8 * 16 + 3: dst = &h->num_rows; break;
		case 8 * 16 + 4: dst = &h->encoding; break;
		case 8 * 16 + 5: dst = &h->def_levels_len; break;
		case 8 * 16 + 6: dst = &h->rep_levels_len; break;
		case 7 * 16 + 3:
			if (f.type != COLFS_THRIFT_BOOL)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "is_sorted is not a bool");
			h->dict_sorted = f.bool_value;
			continue;
		case 8 * 16 + 7:
			if (f.type != COLFS_THRIFT_BOOL)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "is_compressed is not a bool");
			h->is_compressed = f.bool_value;
			continue;
		case 5 * 16 + 5:
		case 8 * 16 + 8:
			h->has_statistics = true;
			COLFS_TRY(colfs_thrift_skip(r, f.type, err));
			continue;
		default:
			COLFS_TRY(colfs_thrift_skip(r, f.type, err));
			continue;
		}
		COLFS_TRY(colfs_thrift_read_i32(r, f.type, dst, err));
		if (*dst < 0)
			return colfs_fail(err, COLFS_ECORRUPT, f.offset,
					  "%s.%s is negative (%d)",
					  kind == 5 ? "DataPageHeader"
					  : kind == 7 ? "DictionaryPageHeader"
					  : "DataPageHeaderV2",
					  sub_field_name(kind, f.id), *dst);
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(r);
	{
		unsigned need = kind == 5 ? 0x1e : kind == 7 ? 0x06 : 0x7e;
		if ((seen & need) != need)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "%s lacks required fields",
					  kind == 5 ? "DataPageHeader"
					  : kind == 7 ? "DictionaryPageHeader"
					  : "DataPageHeaderV2");
	}
	return COLFS_OK;
}

colfs_status parquet_pages_header_parse(colfs_cursor *c,
				       parquet_page_header *h,
				       colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	size_t start = c->pos;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	unsigned seen = 0;
	int32_t crc;

	memset(h, 0, sizeof *h);
	h->is_compressed = true;
	colfs_thrift_init(&r, c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, err));
	while ((st = colfs_thrift_field_next(&r, &last, &f, err)) == COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_page_header, f)) {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
			continue;
		}
		if (f.id > 0 && f.id < 16)
			seen |= 1u << f.id;
		switch (f.id) {
		case 1:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type, &h->type,
							err));
			break;
		case 2:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type,
							&h->uncompressed_size,
							err));
			break;
		case 3:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type,
							&h->compressed_size,
							err));
			break;
		case 4:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type, &crc, err));
			h->crc = (uint32_t)crc;
			h->has_crc = true;
			break;
		case 5:
		case 7:
		case 8:
			if (f.type != COLFS_THRIFT_STRUCT)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "page sub-header %d is a %s, not a struct",
						  f.id,
						  colfs_thrift_type_name(f.type));
			COLFS_TRY(parse_sub(&r, f.id, h, err));
			if (f.id == 5)
				h->has_data_v1 = true;
			else if (f.id == 7)
				h->has_dictionary = true;
			else
				h->has_data_v2 = true;
			break;
		case 6:
			h->has_index = true;
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
			break;
		default:
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&r);
	h->header_len = (uint32_t)(c->pos - start);
	if ((seen & 0xe) != 0xe)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PageHeader lacks %s",
				  !(seen & 2) ? "type"
				  : !(seen & 4) ? "uncompressed_page_size"
				  : "compressed_page_size");
	if (h->compressed_size < 0 || h->uncompressed_size < 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PageHeader has negative page size (%d compressed, %d uncompressed)",
				  h->compressed_size, h->uncompressed_size);
	switch (h->type) {
	case PARQUET_PAGE_DATA:
		if (!h->has_data_v1)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE without data_page_header");
		break;
	case PARQUET_PAGE_DATA_V2:
		if (!h->has_data_v2)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE_V2 without data_page_header_v2");
		if ((int64_t)h->def_levels_len + h->rep_levels_len >
		    h->compressed_size)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE_V2 level lengths %d + %d exceed compressed_page_size %d",
					  h->rep_levels_len, h->def_levels_len,
					  h->compressed_size);
		if (h->num_nulls > h->num_values)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE_V2 has more nulls (%d) than values (%d)",
					  h->num_nulls, h->num_values);
		break;
	case PARQUET_PAGE_DICTIONARY:
		if (!h->has_dictionary)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DICTIONARY_PAGE without dictionary_page_header");
		break;
	case PARQUET_PAGE_INDEX:
		break;
	default:
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "unknown page type %d", h->type);
	}
	return COLFS_OK;
}

/* First read of a header; grows (x4) up to max_header when the header
 * (e.g. with large statistics) does not fit. */
#define HEADER_FIRST_READ 4096

/* The encrypted page header at `buf` (`got` bytes read at `pos`): page k
 * of the chunk, after `data_pages` data pages.  `*more` when the module
 * is longer than what was read and `can_grow`.  The header of the first
 * page is a dictionary page's when the chunk has a dictionary page (its
 * AAD says which; the other is tried when it does not decrypt).  The
 * header's length is the module's: the page data follow it. */
static colfs_status crypt_header(const parquet_chunk *ch, const uint8_t *buf,
				 size_t got, uint64_t pos, size_t k,
				 uint32_t data_pages, bool can_grow,
				 parquet_page_header *h, bool *more,
				 colfs_err *stop)
{
	int first = k == 0 && ch->dictionary_page_offset > 0
			    ? PARQUET_CRYPT_DICT_PAGE_HEADER
			    : PARQUET_CRYPT_DATA_PAGE_HEADER;
	uint8_t *ph = NULL;
	size_t phl = 0, used = 0;
	colfs_cursor c;
	colfs_status st;

	*more = false;
	if (got >= 4 && 4 + (uint64_t)colfs_le32(buf) > got && can_grow) {
		*more = true;
		return COLFS_OK;
	}
	st = parquet_crypt_module(ch->dek, first, ch->rg_ordinal, ch->column,
				  data_pages, buf, got, pos, &ph, &phl, &used,
				  stop);
	if (st == COLFS_ECORRUPT && k == 0) {
		colfs_err again;
		int other = first == PARQUET_CRYPT_DICT_PAGE_HEADER
				    ? PARQUET_CRYPT_DATA_PAGE_HEADER
				    : PARQUET_CRYPT_DICT_PAGE_HEADER;
		if (!parquet_crypt_module(ch->dek, other, ch->rg_ordinal,
					  ch->column, data_pages, buf, got, pos,
					  &ph, &phl, &used, &again))
			st = COLFS_OK;
	}
	if (st)
		return st;
	/* offsets: decrypted byte i is the module's ciphertext byte i,
	 * after its length and nonce (docs/errors.md, "Offsets") */
	colfs_cursor_init(&c, ph, phl, pos + 16);
	st = parquet_pages_header_parse(&c, h, stop);
	colfs_key_wipe(ph, phl);
	free(ph);
	if (!st) {
		h->header_len = (uint32_t)used;
		/* DuckDB's compressed_page_size is the page's before its
		 * encryption: its module is that plus length, nonce, tag */
		size_t extra = parquet_crypt_page_extra(ch->dek);
		if (extra && h->compressed_size > INT32_MAX - (int32_t)extra)
			return colfs_fail(stop, COLFS_EOVERFLOW, pos,
					  "page %zu: compressed_page_size %d plus the encryption's %zu bytes overflows",
					  k, h->compressed_size, extra);
		h->compressed_size += (int32_t)extra;
	}
	return st;
}

colfs_status parquet_pages_walk(const colfs_source *src,
				const parquet_chunk *ch, uint64_t max_header,
				parquet_page **pages, size_t *n_pages,
				colfs_err *stop, colfs_err *note)
{
	parquet_page *list = NULL;
	size_t n = 0, cap = 0;
	uint64_t pos = ch->start, declared = ch->start + ch->length;
	uint64_t end = declared + ch->slack;
	int64_t values = 0;
	uint8_t *buf = NULL;
	size_t buf_cap = 0;
	uint32_t data_pages = 0;

	*pages = NULL;
	*n_pages = 0;
	stop->status = COLFS_OK;
	stop->offset = ch->start;
	stop->msg[0] = 0;
	if (max_header < HEADER_FIRST_READ)
		max_header = HEADER_FIRST_READ;
	if (ch->encrypted) {
		colfs_fail(stop, COLFS_EUNSUPPORTED, ch->start,
			   "the column chunk is encrypted (Parquet modular encryption); colfs has no keys to read its page headers");
		return COLFS_OK;
	}
	if (!ch->has_meta) {
		colfs_fail(stop, COLFS_ECORRUPT, ch->start,
			   "the column chunk has no ColumnMetaData");
		return COLFS_OK;
	}
	/* A remote source fetches the chunk in one request, not one per
	 * page header (its pages are read next). */
	colfs_source_will_need(src, ch->start, ch->length);
	/* Walk to the chunk's end, but stop after the data page that
	 * completes num_values (what follows would not be pages). */
	while (pos < end &&
	       !(n && values >= ch->num_values &&
		 (list[n - 1].hdr.type == PARQUET_PAGE_DATA ||
		  list[n - 1].hdr.type == PARQUET_PAGE_DATA_V2))) {
		uint64_t avail = end - pos, want = HEADER_FIRST_READ;
		parquet_page_header h;
		colfs_cursor c;
		colfs_status st;
		uint64_t data_end;

		for (;;) {
			size_t got;
			if (want > avail)
				want = avail;
			if (want > buf_cap) {
				uint8_t *nb = realloc(buf, (size_t)want);
				if (!nb)
					goto nomem;
				buf = nb;
				buf_cap = (size_t)want;
			}
			st = colfs_source_pread(src, pos, (size_t)want, buf,
						&got, stop);
			if (st == COLFS_EIO) {
				/* The source failed (a remote reply, a
				 * changed file), not the chunk: nothing is
				 * kept, the next view walks again. */
				free(buf);
				free(list);
				return st;
			}
			if (st)
				goto out;
			if (ch->dek) {
				/* an encrypted header: a whole module */
				bool more;
				st = crypt_header(ch, buf, got, pos, n, data_pages,
						  want < avail && want < max_header,
						  &h, &more, stop);
				if (more) {
					uint64_t need = 4 + (uint64_t)colfs_le32(buf);
					want = need > max_header ? max_header : need;
					continue;
				}
				break;
			}
			colfs_cursor_init(&c, buf, got, pos);
			st = parquet_pages_header_parse(&c, &h, stop);
			if (st != COLFS_ETRUNCATED || got < want ||
			    want >= avail || want >= max_header)
				break;
			want *= 4;
			if (want > max_header)
				want = max_header;
		}
		if (!st) {
			/* a failed shorter attempt left its error behind */
			stop->status = COLFS_OK;
			stop->msg[0] = 0;
		}
		if (st == COLFS_ENOMEM)
			goto nomem;
		if (st) {
			char why[sizeof stop->msg];
			memcpy(why, stop->msg, sizeof why);
			if (st == COLFS_ETRUNCATED && want >= avail)
				colfs_fail(stop, COLFS_ETRUNCATED, pos,
					   "page %zu: header at %llu runs past the end of the chunk (%llu bytes left): %s",
					   n, (unsigned long long)pos,
					   (unsigned long long)avail, why);
			else
				colfs_fail(stop, st, stop->offset,
					   "page %zu (header at %llu): %s", n,
					   (unsigned long long)pos, why);
			goto out;
		}
		data_end = pos + h.header_len + (uint64_t)h.compressed_size;
		if (data_end > end) {
			colfs_fail(stop, COLFS_EBOUNDS, pos,
				   "page %zu at %llu (%u header + %d data bytes) runs %llu bytes past the end of its chunk",
				   n, (unsigned long long)pos, h.header_len,
				   h.compressed_size,
				   (unsigned long long)(data_end - end));
			goto out;
		}
		if (!colfs_grow((void **)&list, &cap, n + 1, sizeof *list))
			goto nomem;
		if (data_end > declared && note && !note->status)
			colfs_fail(note, COLFS_ECORRUPT, pos,
				   "page %zu ends %llu bytes past the chunk's total_compressed_size: the writer (parquet-mr before 1.2.9) left the dictionary page header out of it (PARQUET-816); read anyway",
				   n, (unsigned long long)(data_end - declared));
		list[n].offset = pos;
		list[n].hdr = h;
		list[n].ordinal = data_pages;
		n++;
		if (h.type == PARQUET_PAGE_DATA || h.type == PARQUET_PAGE_DATA_V2) {
			values += h.num_values;
			data_pages++;
		}
		pos = data_end;
	}
	if (values != ch->num_values)
		colfs_fail(stop, COLFS_ECORRUPT, pos,
			   "the pages hold %lld values, the chunk metadata says %lld",
			   (long long)values, (long long)ch->num_values);
	else if (pos < declared)
		colfs_fail(stop, COLFS_ECORRUPT, pos,
			   "%llu bytes of the chunk follow its last page",
			   (unsigned long long)(declared - pos));
out:
	free(buf);
	/* kept for the tree's life, one a chunk: no room to grow (a wide
	 * file's chunks have two pages, the list was made for 16) */
	if (n && n < cap) {
		parquet_page *fit = realloc(list, n * sizeof *list);
		if (fit)
			list = fit;
	}
	*pages = list;
	*n_pages = n;
	return COLFS_OK;
nomem:
	free(buf);
	free(list);
	return colfs_fail(stop, COLFS_ENOMEM, pos,
			  "out of memory walking the pages");
}

/* --- the pipeline state -------------------------------------------------- */

struct parquet_pages_state {
	pthread_mutex_t lock;
	parquet_region_state *s;
	parquet_pages_list **walks;        /* [row group] -> [chunk] */
	parquet_pages_dict *dicts[DICT_SLOTS];
	uint64_t clock;
	parquet_pages_kept *kept;          /* objects freed with the state */
};

void parquet_pages_dict_unref(parquet_pages_state *v, parquet_pages_dict *d)
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

colfs_status parquet_pages_create(parquet_region_state *s, parquet_pages_state **out)
{
	parquet_pages_state *v = calloc(1, sizeof *v);

	*out = NULL;
	if (!v)
		return COLFS_ENOMEM;
	pthread_mutex_init(&v->lock, NULL);
	v->s = s;
	if (s->pf && s->pf->n_row_groups) {
		v->walks = calloc(s->pf->n_row_groups, sizeof *v->walks);
		if (!v->walks) {
			parquet_pages_destroy(v);
			return COLFS_ENOMEM;
		}
	}
	*out = v;
	return COLFS_OK;
}

void parquet_pages_destroy(parquet_pages_state *v)
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
		parquet_pages_dict_unref(v, v->dicts[i]);
	while (v->kept) {
		parquet_pages_kept *k = v->kept;
		v->kept = k->next;
		k->free(k);
	}
	pthread_mutex_destroy(&v->lock);
	free(v);
}

void parquet_pages_keep(parquet_pages_state *v, parquet_pages_kept *k)
{
	pthread_mutex_lock(&v->lock);
	k->prev = NULL;
	k->next = v->kept;
	if (v->kept)
		v->kept->prev = k;
	v->kept = k;
	pthread_mutex_unlock(&v->lock);
}

void parquet_pages_unkeep(parquet_pages_state *v, parquet_pages_kept *k)
{
	pthread_mutex_lock(&v->lock);
	if (k->prev)
		k->prev->next = k->next;
	else if (v->kept == k)
		v->kept = k->next;
	if (k->next)
		k->next->prev = k->prev;
	k->next = k->prev = NULL;
	pthread_mutex_unlock(&v->lock);
}

/* --- page walks ----------------------------------------------------------- */

static void walk_hidden(colfs_tree *t, parquet_region_state *s,
			const colfs_node *where, uint32_t g, uint32_t c,
			const parquet_pages_list *w);

colfs_status parquet_pages_list_get(colfs_tree *t, parquet_region_state *s, const colfs_node *where,
			    uint32_t g, uint32_t c, const parquet_pages_list **out)
{
	parquet_pages_state *v = s->values;
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	colfs_status st = COLFS_OK;
	bool fresh = false;
	parquet_pages_list *w;
	colfs_err note = {0}, failed = {0}, stop = {0};

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
		memset(&stop, 0, sizeof stop);
		/* Read-ahead on a remote source: a view walking this chunk
		 * reads the column's next chunk next, fetched along with
		 * this one (two requests in flight, not one after the
		 * other). */
		const parquet_chunk *next = parquet_region_chunk(s, g + 1, c);
		if (next && next->has_meta && !next->encrypted)
			colfs_source_will_need(s->src, next->start,
					       next->length);
		if (!ch->has_meta)
			colfs_fail(&stop, COLFS_ECORRUPT, ch->start,
				   "the column chunk has no ColumnMetaData: its pages cannot be found");
		else
			st = parquet_pages_walk(s->src, ch, s->max_alloc,
						&w->pages, &w->n, &stop,
						&note);
		w->stop.status = stop.status;
		w->stop.offset = stop.offset;
		if (!st) {
			w->walked = true;
			fresh = true;
		} else {
			failed = stop;
		}
	}
	pthread_mutex_unlock(&v->lock);
	if (st == COLFS_EIO && failed.status == COLFS_EIO)
		parquet_region_part_report(t, s, g, c, PARQUET_REGION_PAGES, where, &failed);
	if (st)
		return st;
	/* the walk's problems belong to the chunk's pages/, whichever view
	 * walked */
	if (fresh && note.status)
		parquet_region_part_report(t, s, g, c, PARQUET_REGION_PAGES, where, &note);
	if (fresh && stop.status) {
		parquet_region_part_report(t, s, g, c, PARQUET_REGION_PAGES, where, &stop);
		walk_hidden(t, s, where, g, c, w);
	}
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

void parquet_pages_scratch_free(parquet_pages_scratch *sc)
{
	colfs_piece_cache_buf_put(sc->bufs, sc->out, sc->out_cap);
	colfs_piece_cache_buf_put(sc->bufs, sc->def,
				  sc->def_cap * sizeof *sc->def);
	colfs_piece_cache_buf_put(sc->bufs, sc->rep,
				  sc->rep_cap * sizeof *sc->rep);
	pq_values_pool_free(&sc->vals);
	memset(sc, 0, sizeof *sc);
}

/* A scratch buffer of at least `need` bytes: kept when it is large
 * enough, else replaced by one from the tree's pool `bufs` or a new one
 * 1/1024 larger (pages of one column differ by a few bytes, md5's stored
 * bytes by up to 3 KB in 32 MB; each would otherwise replace the buffer;
 * more to spare is resident memory beyond the bound, on huge pages or
 * wherever the allocator touches it, as under MALLOC_PERTURB_: a
 * sixty-fourth was 1.6 MB of md5's three page buffers), on huge pages
 * when large. */
static bool scratch_fit(colfs_piece_cache *bufs, uint8_t **p, size_t *cap,
			size_t need)
{
	if (need <= *cap && *p) {
		/* refilled: a page's buffers in use beside the heap's
		 * holes, the peak as much as a new block (buf.h) */
		colfs_mem_mapping(need);
		return true;
	}
	colfs_piece_cache_buf_put(bufs, *p, *cap);
	*p = colfs_piece_cache_buf_get(bufs, need, need + need / 1024, cap);
	return *p != NULL;
}

/* Read `len` stored bytes at `off` into scratch buffer `*buf` (of `*cap`
 * bytes, replaced when short; borrowed). */
static colfs_status scratch_read(parquet_region_state *s,
				 colfs_piece_cache *bufs, uint8_t **buf,
				 size_t *cap, uint64_t off, size_t len,
				 uint8_t **out, colfs_err *e)
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
	if (!scratch_fit(bufs, buf, cap, len))
		return colfs_fail(e, COLFS_ENOMEM, off,
				  "out of memory for %zu bytes", len);
	if (len)
		COLFS_TRY(colfs_source_read_at(s->src, off, len, *buf, e));
	*out = *buf;
	return COLFS_OK;
}

/* The decompressed bytes of page `pg` (for data pages v2: the levels,
 * copied as stored, followed by the decompressed values).  Without
 * scratch `*out` is malloc'd (`*owned` true); with it, `*out` may be one
 * of the scratch buffers (borrowed until the next page). */
static colfs_status page_bytes_sc(colfs_tree *t, parquet_region_state *s,
				  const parquet_chunk *ch,
				  const parquet_page *pg, parquet_pages_scratch *sc,
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
	bool raw_owned = !sc;   /* else a scratch buffer */
	COLFS_TRY(codec_of(ch->codec, &codec, off, e));
	if (h->type == PARQUET_PAGE_DATA_V2 && !h->is_compressed)
		codec = COLFS_CODEC_NONE;
	if (sc && codec == COLFS_CODEC_NONE) {
		/* the stored bytes are the page */
		COLFS_TRY(scratch_read(s, sc->bufs, &sc->out, &sc->out_cap,
				       off, stored, &raw, e));
	} else if (sc && sc->stored) {
		/* the owner's buffer for stored bytes (parquet_pages_scratch) */
		COLFS_TRY(scratch_read(s, sc->bufs, sc->stored, sc->stored_cap,
				       off, stored, &raw, e));
	} else if (sc) {
		/* dead once decompressed: the values buffer's room
		 * (parquet_pages_scratch) */
		uint8_t *vm = sc->vals.mem;
		colfs_status rs = scratch_read(s, sc->bufs, &vm,
					       &sc->vals.cap, off, stored,
					       &raw, e);
		sc->vals.mem = vm;
		if (rs)
			return rs;
	} else {
		COLFS_TRY(parquet_region_read(s, off, stored, &raw, e));
	}
	/* parquet-java's CRC covers the stored (encrypted) bytes, and
	 * Arrow's the decrypted ones: either is accepted */
	bool crc_stored_ok = ch->dek && h->has_crc &&
			     colfs_crc32(0, raw, stored) == h->crc;
	if (ch->dek) {
		/* the stored bytes are one module: decrypted, they are
		 * what an unencrypted chunk stores */
		uint8_t *plain;
		size_t plen, used;
		st = parquet_crypt_module(ch->dek,
					  parquet_pages_is_data(pg)
						  ? PARQUET_CRYPT_DATA_PAGE
						  : PARQUET_CRYPT_DICT_PAGE,
					  ch->rg_ordinal, ch->column,
					  pg->ordinal, raw, stored, off, &plain,
					  &plen, &used, e);
		if (raw_owned)
			free(raw);
		if (st)
			return st;
		raw = plain;
		stored = plen;
		raw_owned = true;
	}
	if (h->has_crc && !crc_stored_ok) {
		uint32_t crc = colfs_crc32(0, raw, stored);
		if (crc != h->crc) {
			colfs_err ce;
			colfs_fail(&ce, COLFS_ECORRUPT, off,
				   "page CRC mismatch: header says %08x, the %zu stored bytes give %08x%s",
				   h->crc, stored, crc,
				   colfs_tree_options(t)->checksums_ignore ?
				   " (served anyway: checksums=ignore)" : "");
			if (!colfs_tree_options(t)->checksums_ignore) {
				if (raw_owned)
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
			if (raw_owned)
				free(raw);
			return colfs_fail(e, COLFS_ECORRUPT, off,
					  "data page v2 levels (%zu bytes) exceed the page (%zu bytes)",
					  lvl, stored);
		}
	}
	if (codec == COLFS_CODEC_NONE) {
		*out = raw;
		*out_len = stored;
		*owned = raw_owned;
		return COLFS_OK;
	}
	if (ulen > s->max_alloc) {
		if (raw_owned)
			free(raw);
		return colfs_fail(e, COLFS_EOVERFLOW, off,
				  "page declares %zu uncompressed bytes, more than the max_alloc cap (%llu): refused",
				  ulen, (unsigned long long)s->max_alloc);
	}
	if (ulen < lvl) {
		if (raw_owned)
			free(raw);
		return colfs_fail(e, COLFS_ECORRUPT, off,
				  "data page v2 uncompressed size %zu is smaller than its levels (%zu bytes)",
				  ulen, lvl);
	}
	if (sc)
		buf = scratch_fit(sc->bufs, &sc->out, &sc->out_cap, ulen) ?
			      sc->out : NULL;
	else
		buf = malloc(ulen ? ulen : 1);
	if (!buf) {
		if (raw_owned)
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
			if (raw_owned)
				free(raw);
			if (!sc)
				free(buf);
			*e = de;
			return st;
		}
	}
	if (raw_owned)
		free(raw);
	*out = buf;
	*out_len = lvl + got;
	return COLFS_OK;
}

colfs_status parquet_pages_bytes(colfs_tree *t, parquet_region_state *s, const parquet_chunk *ch,
			    const parquet_page *pg, uint8_t **out,
			    size_t *out_len, colfs_err *e)
{
	bool owned;
	return page_bytes_sc(t, s, ch, pg, NULL, out, out_len, &owned, e);
}

/* --- dictionaries --------------------------------------------------------- */

static colfs_status dict_decode(colfs_tree *t, parquet_region_state *s, uint32_t g,
				uint32_t c, const parquet_pages_list *w, parquet_pages_dict **out,
				colfs_err *e)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	const parquet_column *col = &s->pf->columns[ch->column];
	const parquet_page *pg = &w->pages[0];
	parquet_pages_dict *d;
	colfs_cursor cur;
	size_t len;
	colfs_status st;

	d = calloc(1, sizeof *d);
	if (!d)
		return colfs_fail(e, COLFS_ENOMEM, pg->offset, "out of memory");
	d->g = g;
	d->c = c;
	d->refs = 1;
	st = parquet_pages_bytes(t, s, ch, pg, &d->buf, &len, e);
	if (!st && e->msg[0] && !e->status) {
		/* a CRC mismatch served under checksums=ignore */
		colfs_err r = *e;
		r.status = COLFS_ECORRUPT;
		parquet_region_part_report(t, s, g, c, 0, NULL, &r);
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
	parquet_pagecheck(t, s, g, c, 0, NULL, ch, pg, col, PARQUET_ENC_PLAIN,
			  &d->vals, d->buf, len, colfs_cursor_left(&cur),
			  "dictionary page");
	*out = d;
	return COLFS_OK;
}

/* The dictionary of chunk (g, c), referenced (parquet_pages_dict_unref when done). */
colfs_status parquet_pages_dict_get(colfs_tree *t, parquet_region_state *s, uint32_t g, uint32_t c,
			  const parquet_pages_list *w, parquet_pages_dict **out, colfs_err *e)
{
	parquet_pages_state *v = s->values;
	parquet_pages_dict *d = NULL, *old = NULL;
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
	parquet_pages_dict_unref(v, old);
	*out = d;
	return COLFS_OK;
}

/* --- one decoded data page ------------------------------------------------ */

void parquet_pages_release(parquet_pages_state *v, parquet_pages_decoded *p)
{
	if (p->levels_owned) {
		free(p->def);
		free(p->rep);
	}
	pq_values_free(&p->vals);
	parquet_pages_dict_unref(v, p->dict);
	if (p->buf_owned)
		free(p->buf);
	memset(p, 0, sizeof *p);
}

bool parquet_pages_is_data(const parquet_page *pg)
{
	return pg->hdr.type == PARQUET_PAGE_DATA ||
	       pg->hdr.type == PARQUET_PAGE_DATA_V2;
}

int64_t parquet_pages_rows(const parquet_column *col, const parquet_page *pg)
{
	if (!parquet_pages_is_data(pg))
		return -1;
	if (col->max_rep == 0)
		return pg->hdr.num_values >= 0 ? pg->hdr.num_values : -1;
	if (pg->hdr.has_data_v2 && pg->hdr.num_rows >= 0)
		return pg->hdr.num_rows;
	return -1;
}

void parquet_offset_index_free(parquet_offset_index *oi)
{
	free(oi->offset);
	free(oi->first_row);
	free(oi->size);
	memset(oi, 0, sizeof *oi);
}

static colfs_status offset_index_parse(colfs_thrift *r, parquet_offset_index *oi,
				       colfs_err *e)
{
	colfs_thrift_field f;
	int16_t last;
	colfs_status st;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, e));
	while ((st = colfs_thrift_field_next(r, &last, &f, e)) == COLFS_OK) {
		uint8_t et;
		uint32_t cnt;

		if (f.id != 1 || f.type != COLFS_THRIFT_LIST) {
			COLFS_TRY(colfs_thrift_skip(r, f.type, e));
			continue;
		}
		COLFS_TRY(colfs_thrift_list_begin(r, &et, &cnt, e));
		if (et != COLFS_THRIFT_STRUCT)
			return colfs_fail(e, COLFS_ECORRUPT, oi->off,
					  "offset index page_locations holds %s, not structs",
					  colfs_thrift_type_name(et));
		free(oi->offset);
		free(oi->first_row);
		free(oi->size);
		oi->n = 0;
		oi->offset = calloc(cnt ? cnt : 1, sizeof(int64_t));
		oi->first_row = calloc(cnt ? cnt : 1, sizeof(int64_t));
		oi->size = calloc(cnt ? cnt : 1, sizeof(int32_t));
		if (!oi->offset || !oi->first_row || !oi->size)
			return COLFS_ENOMEM;
		for (uint32_t i = 0; i < cnt; i++) {
			int16_t l2;
			colfs_thrift_field g;

			oi->offset[i] = oi->first_row[i] = -1;
			oi->size[i] = -1;
			COLFS_TRY(colfs_thrift_struct_enter(r, &l2, e));
			while ((st = colfs_thrift_field_next(r, &l2, &g, e)) ==
			       COLFS_OK) {
				if (g.id == 1)
					st = colfs_thrift_read_i64(r, g.type,
						&oi->offset[i], e);
				else if (g.id == 2)
					st = colfs_thrift_read_i32(r, g.type,
						&oi->size[i], e);
				else if (g.id == 3)
					st = colfs_thrift_read_i64(r, g.type,
						&oi->first_row[i], e);
				else
					st = colfs_thrift_skip(r, g.type, e);
				if (st)
					return st;
			}
			if (st != COLFS_END)
				return st;
			colfs_thrift_struct_leave(r);
		}
		colfs_thrift_collection_leave(r);
		oi->n = cnt;
	}
	return st == COLFS_END ? COLFS_OK : st;
}

colfs_status parquet_offset_index_read(parquet_region_state *s,
				       const parquet_chunk *ch,
				       parquet_offset_index *oi, colfs_err *e)
{
	uint8_t *buf = NULL;
	size_t len;
	colfs_cursor c;
	colfs_thrift r;
	colfs_status st;

	memset(oi, 0, sizeof *oi);
	if (ch->offset_index_offset < 0 || ch->offset_index_length <= 0)
		return colfs_fail(e, COLFS_ENOENT, COLFS_OFFSET_UNKNOWN,
				  "the chunk has no offset index");
	oi->off = (uint64_t)ch->offset_index_offset;
	st = parquet_crypt_read(s, ch, PARQUET_CRYPT_OFFSET_INDEX, oi->off,
				(uint64_t)ch->offset_index_length, &buf, &len, e);
	if (st)
		return st;
	colfs_cursor_init(&c, buf, len, oi->off);
	colfs_thrift_init(&r, &c);
	st = offset_index_parse(&r, oi, e);
	free(buf);
	if (st) {
		uint64_t off = oi->off;
		parquet_offset_index_free(oi);
		oi->off = off;
	}
	return st;
}

bool parquet_pages_rows_indexed(parquet_region_state *s, uint32_t g,
				uint32_t c, const parquet_pages_list *w,
				size_t k, int64_t *first, int64_t *rows)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	parquet_offset_index oi;
	colfs_err e = {0};
	int64_t nrows, end;
	bool ok = false;

	size_t ndata = 0;

	if (!ch || k >= w->n || g >= s->pf->n_row_groups ||
	    !parquet_pages_is_data(&w->pages[k]))
		return false;
	nrows = s->pf->row_groups[g].num_rows;
	for (size_t i = 0; i < w->n; i++)
		ndata += parquet_pages_is_data(&w->pages[i]);
	if (ndata == 1 && nrows >= 0) {  /* the chunk's only data page */
		*first = 0;
		*rows = nrows;
		return true;
	}
	if (parquet_offset_index_read(s, ch, &oi, &e) != COLFS_OK)
		return false;
	for (uint32_t i = 0; i < oi.n; i++) {
		if (oi.offset[i] != (int64_t)w->pages[k].offset)
			continue;
		end = i + 1 < oi.n ? oi.first_row[i + 1] : nrows;
		if (oi.first_row[i] >= 0 && oi.first_row[i] <= end &&
		    end <= nrows) {
			*first = oi.first_row[i];
			*rows = end - oi.first_row[i];
			ok = true;
		}
		break;
	}
	parquet_offset_index_free(&oi);
	return ok;
}

/* A data page whose values cannot be read hides its rows (colfs-tool
 * check): those its header gives, else those its repetition levels
 * start when they were decoded (`rep`, n entries), else those the
 * chunk's offset index gives, else unknown. */
static void page_hidden(colfs_tree *t, parquet_region_state *s,
			const colfs_node *where, uint32_t g, uint32_t c,
			const parquet_pages_list *w, size_t k,
			const uint32_t *rep, size_t n)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	int64_t rows = -1;

	if (ch && ch->column < s->pf->n_columns)
		rows = parquet_pages_rows(&s->pf->columns[ch->column],
					  &w->pages[k]);
	if (rows < 0 && rep) {
		rows = 0;
		for (size_t i = 0; i < n; i++)
			rows += rep[i] == 0;
	}
	if (rows < 0) {  /* a v1 page of a repeated column: its levels unread */
		int64_t first;
		if (!parquet_pages_rows_indexed(s, g, c, w, k, &first, &rows))
			rows = -1;
	}
	parquet_region_part_hidden(t, s, g, c, k, where, w->pages[k].offset, 0,
				   rows < 0 ? COLFS_ROWS_UNKNOWN
					    : (uint64_t)rows);
}

/* A page walk that stopped early hides the rows of the pages it did not
 * reach: the row group's rows less those of the pages found, when every
 * page found tells its rows; else unknown. */
static void walk_hidden(colfs_tree *t, parquet_region_state *s,
			const colfs_node *where, uint32_t g, uint32_t c,
			const parquet_pages_list *w)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	int64_t left = s->pf->row_groups[g].num_rows;
	uint64_t rows = COLFS_ROWS_UNKNOWN;

	if (ch && ch->column < s->pf->n_columns && left >= 0) {
		const parquet_column *col = &s->pf->columns[ch->column];
		size_t k;
		for (k = 0; k < w->n && left >= 0; k++) {
			int64_t r = parquet_pages_rows(col, &w->pages[k]);
			if (!parquet_pages_is_data(&w->pages[k]))
				continue;
			if (r < 0)
				break;
			left -= r;
		}
		if (k == w->n && left >= 0)
			rows = (uint64_t)left;
	}
	parquet_region_part_hidden(t, s, g, c, PARQUET_REGION_PAGES, where,
				   w->stop.offset, 0, rows);
}

/* Room for n levels: the scratch's buffer `*keep` (of `*cap` entries,
 * replaced from the pool `bufs` when short) when there is a scratch, else
 * malloc'd. */
static colfs_status levels_alloc(parquet_region_state *s,
				 colfs_piece_cache *bufs, size_t n,
				 uint32_t **out, uint32_t **keep, size_t *cap,
				 uint64_t off, colfs_err *e)
{
	if (n > s->max_alloc / sizeof **out)
		return colfs_fail(e, COLFS_EOVERFLOW, off,
				  "page of %zu values needs more level memory than the max_alloc cap",
				  n);
	if (keep && *keep && *cap >= n) {
		*out = *keep;
		return COLFS_OK;
	}
	if (keep) {
		size_t bytes;
		colfs_piece_cache_buf_put(bufs, *keep, *cap * sizeof **keep);
		*keep = colfs_piece_cache_buf_get(bufs, (n ? n : 1) * sizeof **keep,
						  0, &bytes);
		*cap = bytes / sizeof **keep;
		*out = *keep;
	} else {
		*out = malloc((n ? n : 1) * sizeof **out);
	}
	if (!*out)
		return colfs_fail(e, COLFS_ENOMEM, off, "out of memory");
	return COLFS_OK;
}

/* Decode data page k of chunk (g, c) (levels and values).  Problems are
 * reported here (under the page) and returned. */
colfs_status parquet_pages_decode(colfs_tree *t, parquet_region_state *s,
			     const colfs_node *where, uint32_t g, uint32_t c,
			     const parquet_pages_list *w, size_t k, parquet_pages_scratch *sc,
			     parquet_pages_decoded *p)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	const parquet_page *pg = &w->pages[k];
	const parquet_page_header *h = &pg->hdr;
	const parquet_column *col;
	uint64_t off = pg->offset + h->header_len;
	colfs_err e = {0};
	colfs_cursor cur;
	colfs_status st = COLFS_ECORRUPT;
	size_t n = (size_t)h->num_values;
	bool rep_ok = false;      /* p->rep decoded (page_hidden) */

	memset(p, 0, sizeof *p);
	colfs_tree_count_page(t);
	if (sc)   /* its buffers come from and go back to the tree's pool */
		sc->bufs = sc->vals.bufs = colfs_tree_bufs(t);
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
		parquet_region_part_report(t, s, g, c, k, where, &e);
		memset(&e, 0, sizeof e);
	}
	colfs_cursor_init_virtual(&cur, p->buf, p->buf_len, off);
	/* in_page values need no array: the stored bytes read into the
	 * values buffer are dead, and given back before the levels are
	 * allocated (p->buf is never that buffer) */
	const bool in_page = sc && sc->in_page &&
			     pq_values_in_page_fits(col->elem->type, h->encoding);
	if (in_page)
		pq_values_pool_free(&sc->vals);
	p->n = n;
	p->levels_owned = !sc;
	/* A flat column's page without nulls (every definition level is
	 * max_def, one RLE run in most writers' files) keeps no level
	 * array: its 4 bytes an entry were a tenth of a page's memory. */
	bool no_nulls = false;
	if (col->max_rep == 0 && col->max_def > 0) {
		colfs_cursor lv = cur, hy;
		uint32_t len;
		const unsigned bw = pq_bit_width((uint64_t)col->max_def);
		if (h->type == PARQUET_PAGE_DATA_V2) {
			no_nulls = (size_t)h->rep_levels_len == 0 &&
				   !colfs_cursor_slice(&cur, 0,
						       (size_t)h->def_levels_len,
						       &lv, &e) &&
				   pq_rle_all_equal(&lv, bw,
						    (uint32_t)col->max_def, n);
		} else if (h->def_encoding == PARQUET_ENC_RLE &&
			   !colfs_cursor_u32le(&lv, &len, &e) &&
			   len <= colfs_cursor_left(&lv) &&
			   !colfs_cursor_sub(&lv, len, &hy, &e)) {
			no_nulls = pq_rle_all_equal(&hy, bw,
						    (uint32_t)col->max_def, n);
			if (no_nulls && (st = colfs_cursor_skip(&cur, 4 + (size_t)len, &e)))
				goto fail;
		}
		memset(&e, 0, sizeof e);
	}
	if (col->max_rep > 0 &&
	    (st = levels_alloc(s, sc ? sc->bufs : NULL, n, &p->rep,
			       sc ? &sc->rep : NULL,
			       sc ? &sc->rep_cap : NULL, off, &e)))
		goto fail;
	if (col->max_def > 0 && !no_nulls &&
	    (st = levels_alloc(s, sc ? sc->bufs : NULL, n, &p->def,
			       sc ? &sc->def : NULL,
			       sc ? &sc->def_cap : NULL, off, &e)))
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
		rep_ok = p->rep != NULL;
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
			first = !parquet_pages_is_data(&w->pages[j]);
		/* Reported, not fatal: the page's own levels and values stay
		 * readable; record assembly refuses the stray entries. */
		if (first || h->type == PARQUET_PAGE_DATA_V2) {
			colfs_fail(&e, COLFS_ECORRUPT, off,
				   "repetition level %u at the page's first entry: %s must start a new row (level 0)",
				   p->rep[0],
				   first ? "a column chunk" : "a v2 data page");
			parquet_region_part_report(t, s, g, c, k, where, &e);
			memset(&e, 0, sizeof e);
		}
	}
	if (no_nulls) {
		p->nonnull = n;
	} else if (p->def) {
		const uint32_t md = p->max_def;
		size_t nn = 0;
		for (size_t i = 0; i < n; i++)
			nn += p->def[i] == md;
		p->nonnull = nn;
		if (nn == n) {
			/* no nulls: the renderers skip the test */
			if (p->levels_owned)
				free(p->def);
			p->def = NULL;
		}
	} else {
		p->nonnull = n;
	}
	if (h->encoding == PARQUET_ENC_PLAIN_DICTIONARY ||
	    h->encoding == PARQUET_ENC_RLE_DICTIONARY) {
		if ((st = parquet_pages_dict_get(t, s, g, c, w, &p->dict, &e)))
			goto fail;
	}
	if (in_page) {
		st = pq_values_decode_in_page(&cur, col->elem->type,
					      col->elem->type_length,
					      p->nonnull, s->max_alloc,
					      &p->vals, &e);
	} else {
		st = pq_values_decode_pooled(&cur, col->elem->type,
					     col->elem->type_length, h->encoding,
					     p->nonnull,
					     p->dict ? (uint32_t)p->dict->vals.count : 0,
					     s->max_alloc, sc ? &sc->vals : NULL,
					     &p->vals, &e);
	}
	if (!st && p->vals.indices && !p->dict)
		st = colfs_fail(&e, COLFS_ECORRUPT, off,
				"dictionary indices without a dictionary");
	if (st)
		goto fail;
	parquet_pagecheck(t, s, g, c, k, where, ch, pg, col, h->encoding,
			  &p->vals, p->buf, p->buf_len, colfs_cursor_left(&cur),
			  "data page");
	return COLFS_OK;
fail:
	if (!e.status)
		e.status = st ? st : COLFS_ECORRUPT;
	parquet_region_part_report(t, s, g, c, k, where, &e);
	if (e.status != COLFS_ENOMEM && e.status != COLFS_EIO)
		page_hidden(t, s, where, g, c, w, k, rep_ok ? p->rep : NULL,
			    p->n);
	parquet_pages_release(s->values, p);
	return e.status;
}

colfs_status parquet_pages_visit(colfs_tree *t, parquet_region_state *s,
				   const colfs_node *where, uint32_t g,
				   uint32_t c, parquet_pages_fn fn, void *ctx)
{
	const parquet_pages_list *w;
	parquet_pages_scratch sc = {0};
	/* a chunk whose walk found no data page visits none: done */
	colfs_status st = COLFS_OK;

	COLFS_TRY(parquet_pages_list_get(t, s, where, g, c, &w));
	if (!w)
		return COLFS_ENOENT;
	for (size_t k = 0; k < w->n; k++) {
		parquet_pages_decoded p;

		if (!parquet_pages_is_data(&w->pages[k]))
			continue;
		st = parquet_pages_decode(t, s, where, g, c, w, k, &sc, &p);
		if (st)
			break;
		parquet_pages_data pd = {
			.k = k, .pg = &w->pages[k], .n = p.n, .def = p.def,
			.rep = p.rep, .max_def = p.max_def,
			.nonnull = p.nonnull,
			.vals = p.vals.indices ? &p.dict->vals : &p.vals,
			.idx = p.vals.indices ? p.vals.v.idx : NULL,
		};
		st = fn(ctx, &pd);
		parquet_pages_release(s->values, &p);
		if (st)
			break;
	}
	parquet_pages_scratch_free(&sc);
	return st;
}

/* --- rendering ------------------------------------------------------------ */

pq_type parquet_pages_type_of(const parquet_schema_elem *e)
{
	pq_type t = {0};

	t.physical = e->type;
	t.type_length = e->type_length;
	t.converted = e->converted_type;
	t.logical = e->logical.kind;
	if (e->geoparquet_wkb && !t.logical)
		t.logical = PARQUET_LT_GEOMETRY;
	t.scale = e->logical.kind == PARQUET_LT_DECIMAL ? e->logical.scale :
							 e->scale;
	t.unit = e->logical.unit;
	t.utc = e->logical.utc;
	t.bit_width = e->logical.bit_width;
	t.is_signed = e->logical.is_signed;
	return t;
}

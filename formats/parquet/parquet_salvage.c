/* colfs: salvage of a Parquet file whose footer is missing or unusable
 * (docs/parquet-tree.md, "Salvage").
 *
 * When salvage/ is first listed, the file is scanned from byte 4 for
 * plausible Thrift compact PageHeaders (decoded by parquet_pages.c, then
 * judged by sv_plausible).  An accepted page is skipped whole; elsewhere
 * the scan moves byte by byte, using memchr to jump to the next byte that
 * can start a header.  The scan is capped (SV_MAX_PAGES pages,
 * SV_MAX_SECONDS of wall time, both times -o salvage_effort) and reads
 * the file through one window of
 * SV_WINDOW bytes.  Pages that follow one another contiguously form runs;
 * a dictionary page starts a new run.
 *
 * With -o schema_from=FILE, the healthy file's footer is decoded by
 * parquet_meta.c and the runs are matched to its leaf columns in file
 * order (sv_match); the matched column chunks become the row groups of a
 * stand-in parquet_file, decoded by the ordinary value pipeline of
 * parquet_views.c through a second parquet_region_state (`syn`).
 */
#include "parquet_salvage.h"
#include "parquet_pages.h"
#include "parquet_views.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/codec.h"
#include "decode/pq_decode.h"

#define SV_WINDOW (1u << 20)         /* bytes read per scan window */
#define SV_HEADER_MAX (64u << 10)    /* largest page header considered */
#define SV_MAX_PAGES 262144          /* pages kept by one scan */
#define SV_MAX_SECONDS 20            /* wall time of one scan */
#define SV_MAX_GAP_REPORTS 100       /* gaps listed in errors */
#define SV_MATCH_BUDGET 65536        /* pages tried per row-group split */

enum { SV_CRC_ABSENT = 0, SV_CRC_OK = 1, SV_CRC_BAD = -1 };
#define SV_CODEC_UNTRIED (-2)
#define SV_CODEC_NONE_FITS (-1)

typedef struct sv_page {
	parquet_page pg;
	int crc;                 /* SV_CRC_* */
	int codec;               /* parquet codec found, or SV_CODEC_*;
				    read and written atomically */
	uint32_t chunk;          /* the salvage chunk holding the page */
} sv_page;

typedef struct sv_chunk {
	size_t first, n;         /* pages [first, first + n) */
	int32_t leaf;            /* matched leaf column, -1: none */
	uint32_t g;              /* stand-in row group (when leaf >= 0) */
	bool complete;           /* its row group has every leaf */
	int64_t values;          /* level entries of its data pages */
	int64_t records;         /* rows it holds (matched chunks) */
} sv_chunk;

struct parquet_salvage {
	bool scanned;
	colfs_status scan_status;  /* of the first (only) attempt */
	sv_page *pages;
	size_t n_pages;
	sv_chunk *chunks;
	size_t n_chunks;
	size_t n_runs;
	uint64_t scanned_to;     /* where the scan stopped */
	uint64_t gap_bytes;
	size_t n_gaps;
	size_t n_cut;            /* page headers whose data runs past the end */
	size_t n_crc_ok, n_crc_bad;
	const char *stop_why;    /* NULL: the whole file was scanned */
	double seconds;
	/* the caps, times the salvage_effort option */
	size_t max_pages;
	double max_seconds;
	size_t match_budget;
	/* schema_from */
	const char *schema_path;
	parquet_file *schema;    /* the healthy file's metadata */
	const char *schema_why;  /* why it could not be used (tree memory) */
	parquet_file syn_pf;     /* stand-in file: the schema's, our row groups */
	parquet_region_state *syn;           /* the pipeline over syn_pf */
	uint32_t n_groups, n_complete;
	uint64_t rows_recovered;
};

/* --- codecs ----------------------------------------------------------------- */

static const struct {
	int32_t parquet;
	colfs_codec codec;
} sv_codecs[] = {
	{PARQUET_CODEC_UNCOMPRESSED, COLFS_CODEC_NONE},
	{PARQUET_CODEC_SNAPPY, COLFS_CODEC_SNAPPY},
	{PARQUET_CODEC_ZSTD, COLFS_CODEC_ZSTD},
	{PARQUET_CODEC_GZIP, COLFS_CODEC_GZIP},
	{PARQUET_CODEC_LZ4_RAW, COLFS_CODEC_LZ4_RAW},
	{PARQUET_CODEC_LZ4, COLFS_CODEC_LZ4_HADOOP},
	{PARQUET_CODEC_BROTLI, COLFS_CODEC_BROTLI},
	{PARQUET_CODEC_LZO, COLFS_CODEC_LZO},
};
#define SV_N_CODECS (sizeof sv_codecs / sizeof sv_codecs[0])

/* Decompress the stored bytes `raw` of page `h` with parquet codec `pc`
 * into `out` (capacity: the uncompressed size); true when the output is
 * exactly uncompressed_page_size bytes. */
static bool sv_try_codec(const parquet_page_header *h, const uint8_t *raw,
			 uint64_t off, size_t ci, uint8_t *out)
{
	size_t stored = (size_t)h->compressed_size;
	size_t ulen = (size_t)h->uncompressed_size, lvl = 0, got = 0;
	colfs_codec codec = sv_codecs[ci].codec;
	colfs_err e;

	if (h->type == PARQUET_PAGE_DATA_V2) {
		lvl = (size_t)h->def_levels_len + (size_t)h->rep_levels_len;
		if (!h->is_compressed)
			codec = COLFS_CODEC_NONE;
	}
	if (lvl > stored || lvl > ulen)
		return false;
	if (codec == COLFS_CODEC_NONE) {
		if (stored != ulen)
			return false;
		memcpy(out, raw, stored);
		return true;
	}
	memcpy(out, raw, lvl);
	if (stored == lvl)
		return ulen == lvl;
	if (colfs_codec_decompress(codec, raw + lvl, stored - lvl, out + lvl,
				   ulen - lvl, &got, off + lvl, &e))
		return false;
	return lvl + got == ulen;
}

/* The decompressed bytes of salvage page `k` (malloc'd), trying the
 * codecs: `prefer` (a parquet codec, -1 none) first, then uncompressed,
 * snappy, zstd, gzip, LZ4_RAW, LZ4, brotli, LZO.  The codec that fits is
 * remembered in the page. */
static colfs_status sv_page_bytes(parquet_region_state *s, sv_page *sp, int32_t prefer,
				  uint8_t **out, size_t *out_len,
				  int32_t *codec, colfs_err *e)
{
	const parquet_page_header *h = &sp->pg.hdr;
	uint64_t off = sp->pg.offset + h->header_len;
	size_t ulen = (size_t)h->uncompressed_size;
	int known = __atomic_load_n(&sp->codec, __ATOMIC_RELAXED);
	uint8_t *raw, *buf;

	*out = NULL;
	*out_len = 0;
	if (known == SV_CODEC_NONE_FITS)
		return colfs_fail(e, COLFS_ECORRUPT, off,
				  "no codec decompresses the page's %d stored bytes to its uncompressed_page_size %d",
				  h->compressed_size, h->uncompressed_size);
	if (ulen > s->max_alloc)
		return colfs_fail(e, COLFS_EOVERFLOW, off,
				  "page declares %zu uncompressed bytes, more than the max_alloc cap (%llu): refused",
				  ulen, (unsigned long long)s->max_alloc);
	COLFS_TRY(parquet_region_read(s, off, (uint64_t)h->compressed_size, &raw, e));
	buf = malloc(ulen ? ulen : 1);
	if (!buf) {
		free(raw);
		return colfs_fail(e, COLFS_ENOMEM, off,
				  "out of memory for a page of %zu bytes", ulen);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < SV_N_CODECS; i++) {
			int32_t pc = sv_codecs[i].parquet;
			bool first = known >= 0 ? pc == known : pc == prefer;
			if ((pass == 0) != first)
				continue;
			if (!sv_try_codec(h, raw, off, i, buf))
				continue;
			free(raw);
			__atomic_store_n(&sp->codec, pc, __ATOMIC_RELAXED);
			*out = buf;
			*out_len = ulen;
			*codec = pc;
			return COLFS_OK;
		}
		if (known >= 0)
			break;   /* the codec found before decides */
	}
	free(raw);
	free(buf);
	if (known < 0)
		__atomic_store_n(&sp->codec, SV_CODEC_NONE_FITS,
				 __ATOMIC_RELAXED);
	return colfs_fail(e, COLFS_ECORRUPT, off,
			  "no codec decompresses the page's %d stored bytes to its uncompressed_page_size %d",
			  h->compressed_size, h->uncompressed_size);
}

/* --- the scan --------------------------------------------------------------- */

static bool sv_value_encoding(int32_t e)
{
	return e == PARQUET_ENC_PLAIN || e == PARQUET_ENC_PLAIN_DICTIONARY ||
	       e == PARQUET_ENC_RLE || e == PARQUET_ENC_RLE_DICTIONARY ||
	       e == PARQUET_ENC_DELTA_BINARY_PACKED ||
	       e == PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY ||
	       e == PARQUET_ENC_DELTA_BYTE_ARRAY ||
	       e == PARQUET_ENC_BYTE_STREAM_SPLIT;
}

/* A decoded header that could be a page of a real file. */
static bool sv_plausible(const parquet_page_header *h, uint64_t max_alloc)
{
	if ((uint64_t)h->uncompressed_size > max_alloc)
		return false;
	if (h->uncompressed_size > 0 && h->compressed_size == 0)
		return false;
	switch (h->type) {
	case PARQUET_PAGE_DICTIONARY:
		return h->encoding == PARQUET_ENC_PLAIN ||
		       h->encoding == PARQUET_ENC_PLAIN_DICTIONARY;
	case PARQUET_PAGE_DATA:
		return h->num_values >= 1 && h->uncompressed_size >= 1 &&
		       sv_value_encoding(h->encoding) &&
		       (h->def_encoding == PARQUET_ENC_RLE ||
			h->def_encoding == PARQUET_ENC_BIT_PACKED) &&
		       (h->rep_encoding == PARQUET_ENC_RLE ||
			h->rep_encoding == PARQUET_ENC_BIT_PACKED);
	case PARQUET_PAGE_DATA_V2:
		return h->num_values >= 1 && h->num_rows >= 1 &&
		       h->num_rows <= h->num_values &&
		       sv_value_encoding(h->encoding) &&
		       (int64_t)h->def_levels_len + h->rep_levels_len <=
			       h->uncompressed_size;
	default:
		return false;   /* index pages are written by no writer */
	}
}

static double sv_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CRC-32 of `len` file bytes at `off`, read in pieces of `buf`;
 * COLFS_END when the scan's time (up to `deadline`) runs out. */
static colfs_status sv_crc(parquet_region_state *s, uint64_t off, uint64_t len,
			   uint8_t *buf, size_t cap, double deadline,
			   uint32_t *crc, colfs_err *e)
{
	uint32_t c = 0;

	while (len) {
		size_t n = len < cap ? (size_t)len : cap;
		if (sv_now() > deadline)
			return COLFS_END;
		COLFS_TRY(colfs_source_read_at(s->src, off, n, buf, e));
		c = colfs_crc32(c, buf, n);
		off += n;
		len -= n;
	}
	*crc = c;
	return COLFS_OK;
}

static void sv_gap(colfs_tree *t, const colfs_node *dir, parquet_salvage *sv,
		   uint64_t from, uint64_t to)
{
	if (to <= from)
		return;
	sv->gap_bytes += to - from;
	if (sv->n_gaps++ < SV_MAX_GAP_REPORTS)
		colfs_tree_report(t, dir, from, COLFS_ECORRUPT,
				  "salvage: the %llu bytes from %llu to %llu hold no plausible page",
				  (unsigned long long)(to - from),
				  (unsigned long long)from,
				  (unsigned long long)to);
}

static colfs_status sv_scan(colfs_tree *t, const colfs_node *dir,
			    parquet_region_state *s, parquet_salvage *sv)
{
	const size_t wcap = SV_WINDOW + SV_HEADER_MAX;
	uint8_t *win = malloc(wcap), *crcbuf = malloc(SV_WINDOW);
	uint64_t wstart = 0, wend = 0, pos = 4, end = s->size;
	uint64_t gap_from = 4, last_end = 0;
	size_t cap = 0, tries = 0;
	double t0 = sv_now();
	colfs_err e = {0};
	colfs_status st = COLFS_OK;

	if (!win || !crcbuf) {
		free(win);
		free(crcbuf);
		return COLFS_ENOMEM;
	}
	while (pos < end) {
		uint64_t need = end - pos < SV_HEADER_MAX ? end - pos
							  : SV_HEADER_MAX;
		if (pos < wstart || pos + need > wend) {
			size_t len = end - pos < wcap ? (size_t)(end - pos) : wcap;
			if (sv_now() - t0 > sv->max_seconds) {
				sv->stop_why = "the scan's time cap";
				break;
			}
			st = colfs_source_read_at(s->src, pos, len, win, &e);
			if (st) {
				colfs_tree_report_err(t, dir, &e);
				sv->stop_why = "a read error";
				st = COLFS_OK;
				break;
			}
			wstart = pos;
			wend = pos + len;
		}
		const uint8_t *p = win + (pos - wstart);
		const uint8_t *q = memchr(p, 0x15, (size_t)(wend - pos));
		if (!q) {
			pos = wend;
			continue;
		}
		pos += (uint64_t)(q - p);
		need = end - pos < SV_HEADER_MAX ? end - pos : SV_HEADER_MAX;
		if (pos + need > wend)
			continue;       /* refill from pos */
		p = q;
		/* every writer puts PageHeader.type (field 1, i32) first:
		 * 0x15, then the zigzag type, then 0x15 for field 2 */
		if (need < 3 || (p[1] != 0x00 && p[1] != 0x04 && p[1] != 0x06) ||
		    p[2] != 0x15) {
			pos++;
			continue;
		}
		if (++tries % 4096 == 0 && sv_now() - t0 > sv->max_seconds) {
			sv->stop_why = "the scan's time cap";
			break;
		}
		parquet_page_header h;
		colfs_cursor c;
		colfs_err he;
		uint64_t data_end;
		colfs_cursor_init(&c, p, (size_t)need, pos);
		if (parquet_pages_header_parse(&c, &h, &he) ||
		    !sv_plausible(&h, s->max_alloc)) {
			pos++;
			continue;
		}
		data_end = pos + h.header_len + (uint64_t)h.compressed_size;
		if (data_end > end) {
			/* the last page of a writer that died is cut: name it
			 * when it follows the pages before it */
			if (sv->n_pages && pos == last_end) {
				sv->n_cut++;
				colfs_tree_report(t, dir, pos, COLFS_ETRUNCATED,
						  "salvage: the %s page at %llu declares %d data bytes, the file ends %llu bytes after its header: the page is cut",
						  parquet_page_type_name(h.type),
						  (unsigned long long)pos,
						  h.compressed_size,
						  (unsigned long long)(end - pos - h.header_len));
			}
			pos++;
			continue;
		}
		int crc = SV_CRC_ABSENT;
		if (h.has_crc) {
			uint32_t got;
			st = sv_crc(s, pos + h.header_len,
				    (uint64_t)h.compressed_size, crcbuf,
				    SV_WINDOW, t0 + sv->max_seconds, &got, &e);
			if (st == COLFS_END) {
				sv->stop_why = "the scan's time cap";
				st = COLFS_OK;
				break;
			}
			if (st) {
				colfs_tree_report_err(t, dir, &e);
				sv->stop_why = "a read error";
				st = COLFS_OK;
				break;
			}
			crc = got == h.crc ? SV_CRC_OK : SV_CRC_BAD;
		}
		if (sv->n_pages == sv->max_pages) {
			sv->stop_why = "the scan's page cap";
			break;
		}
		if (sv->n_pages == cap) {
			size_t nc = cap ? cap * 2 : 256;
			sv_page *np = realloc(sv->pages, nc * sizeof *np);
			if (!np) {
				st = COLFS_ENOMEM;
				break;
			}
			sv->pages = np;
			cap = nc;
		}
		sv_gap(t, dir, sv, gap_from, pos);
		sv->pages[sv->n_pages] = (sv_page){
			.pg = {.offset = pos, .hdr = h}, .crc = crc,
			.codec = SV_CODEC_UNTRIED,
		};
		if (crc == SV_CRC_BAD) {
			sv->n_crc_bad++;
			colfs_tree_report(t, dir, pos + h.header_len,
					  COLFS_ECORRUPT,
					  "salvage: page %zu: CRC mismatch: header says %08x, the %d stored bytes give another",
					  sv->n_pages, h.crc, h.compressed_size);
		} else if (crc == SV_CRC_OK) {
			sv->n_crc_ok++;
		}
		sv->n_pages++;
		pos = last_end = gap_from = data_end;
	}
	if (!st) {
		sv->scanned_to = pos < end ? pos : end;
		if (!sv->stop_why)
			sv_gap(t, dir, sv, gap_from, end);
		else
			colfs_tree_report(t, dir, sv->scanned_to,
					  COLFS_EOVERFLOW,
					  "salvage: the scan stopped at %s (caps: %zu pages, %.0f seconds; -o salvage_effort=N raises them N times): later pages are not listed",
					  sv->stop_why, sv->max_pages,
					  sv->max_seconds);
	}
	sv->seconds = sv_now() - t0;
	free(win);
	free(crcbuf);
	return st;
}

/* Runs: pages that follow one another; a dictionary page starts one. */
static bool sv_run_starts(const parquet_salvage *sv, size_t k)
{
	const parquet_page *pg = &sv->pages[k].pg;
	const parquet_page *pv;

	if (k == 0 || pg->hdr.type == PARQUET_PAGE_DICTIONARY)
		return true;
	pv = &sv->pages[k - 1].pg;
	return pv->offset + pv->hdr.header_len +
		       (uint64_t)pv->hdr.compressed_size != pg->offset;
}

static colfs_status sv_chunk_add(parquet_salvage *sv, size_t first, size_t n,
				 int32_t leaf, uint32_t g, int64_t records,
				 size_t *cap)
{
	if (sv->n_chunks == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		sv_chunk *np = realloc(sv->chunks, nc * sizeof *np);
		if (!np)
			return COLFS_ENOMEM;
		sv->chunks = np;
		*cap = nc;
	}
	sv_chunk *ch = &sv->chunks[sv->n_chunks];
	*ch = (sv_chunk){.first = first, .n = n, .leaf = leaf, .g = g,
			 .records = records};
	for (size_t k = first; k < first + n; k++) {
		const parquet_page_header *h = &sv->pages[k].pg.hdr;
		sv->pages[k].chunk = (uint32_t)sv->n_chunks;
		if (h->type != PARQUET_PAGE_DICTIONARY)
			ch->values += h->num_values;
	}
	sv->n_chunks++;
	return COLFS_OK;
}

/* --- matching runs to the leaves of schema_from ------------------------------ */

static int64_t sv_width(const parquet_schema_elem *e)
{
	switch (e->type) {
	case PARQUET_INT32:
	case PARQUET_FLOAT: return 4;
	case PARQUET_INT64:
	case PARQUET_DOUBLE: return 8;
	case PARQUET_INT96: return 12;
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		return e->type_length > 0 ? e->type_length : -1;
	default: return -1;
	}
}

/* Can page `h` belong to a chunk of `col`?  Checks the sizes PLAIN
 * values must have and the encodings the type allows; `*why` says what
 * did not fit. */
static bool sv_fits(const parquet_column *col, const parquet_page_header *h,
		    const char **why)
{
	const parquet_schema_elem *e = col->elem;
	int64_t w = sv_width(e);
	bool flat_req = col->max_def == 0 && col->max_rep == 0;

	if (h->type == PARQUET_PAGE_DICTIONARY) {
		if (e->type == PARQUET_BOOLEAN) {
			*why = "a boolean column has no dictionary";
			return false;
		}
		if (w > 0 && (int64_t)h->uncompressed_size !=
				     w * (int64_t)h->num_values) {
			*why = "the dictionary's size is not its entry count times the type's width";
			return false;
		}
		if (e->type == PARQUET_BYTE_ARRAY &&
		    (int64_t)h->uncompressed_size < 4 * (int64_t)h->num_values) {
			*why = "the dictionary is too small for its byte-array entries";
			return false;
		}
		return true;
	}
	switch (h->encoding) {
	case PARQUET_ENC_RLE:
		if (e->type != PARQUET_BOOLEAN) {
			*why = "RLE values are booleans only";
			return false;
		}
		break;
	case PARQUET_ENC_DELTA_BINARY_PACKED:
		if (e->type != PARQUET_INT32 && e->type != PARQUET_INT64) {
			*why = "DELTA_BINARY_PACKED is for integers only";
			return false;
		}
		break;
	case PARQUET_ENC_DELTA_LENGTH_BYTE_ARRAY:
	case PARQUET_ENC_DELTA_BYTE_ARRAY:
		if (e->type != PARQUET_BYTE_ARRAY &&
		    e->type != PARQUET_FIXED_LEN_BYTE_ARRAY) {
			*why = "a byte-array encoding on another type";
			return false;
		}
		break;
	case PARQUET_ENC_PLAIN:
		if (!flat_req)
			break;
		if (h->type == PARQUET_PAGE_DATA_V2) {
			int64_t vals = (int64_t)h->uncompressed_size -
				       h->def_levels_len - h->rep_levels_len;
			int64_t n = (int64_t)h->num_values - h->num_nulls;
			if (w > 0 && vals != w * n) {
				*why = "the PLAIN values' size is not the value count times the type's width";
				return false;
			}
			if (e->type == PARQUET_BOOLEAN && vals != (n + 7) / 8) {
				*why = "the PLAIN booleans' size does not fit the value count";
				return false;
			}
		} else {
			int64_t n = h->num_values;
			if (w > 0 && (int64_t)h->uncompressed_size != w * n) {
				*why = "the PLAIN values' size is not the value count times the type's width";
				return false;
			}
			if (e->type == PARQUET_BOOLEAN &&
			    (int64_t)h->uncompressed_size != (n + 7) / 8) {
				*why = "the PLAIN booleans' size does not fit the value count";
				return false;
			}
		}
		if (e->type == PARQUET_BYTE_ARRAY &&
		    (int64_t)h->uncompressed_size < 4 * (int64_t)h->num_values) {
			*why = "the PLAIN byte arrays are too small for their count";
			return false;
		}
		break;
	default:
		break;
	}
	return true;
}

/* Records (rows) a data page holds for `col`: num_values for a flat
 * column, num_rows for a v2 page, else the repetition levels equal to 0
 * (decoded from the decompressed page). */
static colfs_status sv_page_records(parquet_region_state *s, parquet_salvage *sv, size_t k,
				    const parquet_column *col, int32_t prefer,
				    int64_t *recs, colfs_err *e)
{
	sv_page *sp = &sv->pages[k];
	const parquet_page_header *h = &sp->pg.hdr;
	uint8_t *buf;
	size_t len, n = (size_t)h->num_values;
	uint32_t *rep;
	int32_t codec;
	colfs_cursor c;
	colfs_status st;

	if (col->max_rep == 0) {
		*recs = h->num_values;
		return COLFS_OK;
	}
	if (h->type == PARQUET_PAGE_DATA_V2) {
		*recs = h->num_rows;
		return COLFS_OK;
	}
	if (n > s->max_alloc / sizeof *rep)
		return colfs_fail(e, COLFS_EOVERFLOW, sp->pg.offset,
				  "salvage: page %zu: %zu level entries are more than the max_alloc cap allows",
				  k, n);
	COLFS_TRY(sv_page_bytes(s, sp, prefer, &buf, &len, &codec, e));
	rep = malloc(n * sizeof *rep);
	if (!rep) {
		free(buf);
		return colfs_fail(e, COLFS_ENOMEM, sp->pg.offset,
				  "out of memory");
	}
	colfs_cursor_init_virtual(&c, buf, len,
				  sp->pg.offset + h->header_len);
	st = pq_levels_decode_v1(&c, h->rep_encoding, (uint32_t)col->max_rep,
				 rep, n, e);
	if (!st) {
		int64_t r = 0;
		for (size_t i = 0; i < n; i++)
			r += rep[i] == 0;
		*recs = r;
	}
	free(rep);
	free(buf);
	return st;
}

static bool sv_is_hint(const parquet_file *pf, int64_t recs)
{
	for (uint32_t g = 0; g < pf->n_row_groups; g++)
		if (pf->row_groups[g].num_rows == recs)
			return true;
	return false;
}

static int32_t sv_leaf_codec(const parquet_file *pf, uint32_t leaf)
{
	for (uint32_t g = 0; g < pf->n_row_groups; g++)
		if (leaf < pf->row_groups[g].n_chunks &&
		    pf->row_groups[g].chunks[leaf].has_meta)
			return pf->row_groups[g].chunks[leaf].codec;
	return -1;
}

/* Could the pages from `k` on hold leaves 1.. of a row group of `R` rows?
 * Each leaf's chunk must fit its type (an optional dictionary page, then
 * data pages of one run) and hold exactly R rows; the scan may end inside
 * the group (a cut file) once at least one leaf after the first is whole.
 * Every page looked at costs one unit of *budget. */
static bool sv_group_fits(parquet_region_state *s, parquet_salvage *sv, size_t k, int64_t R,
			  size_t *budget)
{
	const parquet_file *pf = sv->schema;
	uint32_t whole = 0;
	colfs_err e;

	for (uint32_t leaf = 1; leaf < pf->n_columns; leaf++) {
		const parquet_column *col = &pf->columns[leaf];
		int32_t prefer = sv_leaf_codec(pf, leaf);
		const char *why;
		int64_t recs = 0;
		bool dict;
		size_t first;

		if (k >= sv->n_pages)
			return whole > 0;
		dict = sv->pages[k].pg.hdr.type == PARQUET_PAGE_DICTIONARY;
		if (dict && !sv_fits(col, &sv->pages[k].pg.hdr, &why))
			return false;
		k += dict;
		first = k;
		while (k < sv->n_pages && recs < R) {
			const parquet_page_header *h = &sv->pages[k].pg.hdr;
			int64_t pr = 0;

			if (!*budget || (k > first && sv_run_starts(sv, k)) ||
			    h->type == PARQUET_PAGE_DICTIONARY)
				return false;
			--*budget;
			if ((h->encoding == PARQUET_ENC_PLAIN_DICTIONARY ||
			     h->encoding == PARQUET_ENC_RLE_DICTIONARY) && !dict)
				return false;
			if (!sv_fits(col, h, &why) ||
			    sv_page_records(s, sv, k, col, prefer, &pr, &e))
				return false;
			recs += pr;
			k++;
		}
		if (recs != R)
			return recs < R && k >= sv->n_pages && whole > 0;
		whole++;
	}
	return true;
}

/* Split the runs into column chunks of the schema's leaves (the rule of
 * docs/parquet-tree.md, "Matching").  Problems are reported under `dir`. */
static colfs_status sv_match(colfs_tree *t, const colfs_node *dir,
			     parquet_region_state *s, parquet_salvage *sv, size_t *cap)
{
	const parquet_file *pf = sv->schema;
	uint32_t n_leaves = pf->n_columns, leaf = 0, g = 0;
	int64_t R = 0;
	size_t group_first = 0;    /* first chunk of group g */
	colfs_err e;

#define GROUP_FAILS()                                                        \
	do {                                                                 \
		if (leaf > 0)                                                \
			g++;                                                 \
		leaf = 0;                                                    \
		R = 0;                                                       \
		group_first = sv->n_chunks;                                  \
	} while (0)

	for (size_t r0 = 0; r0 < sv->n_pages;) {
		size_t r1 = r0 + 1;
		while (r1 < sv->n_pages && !sv_run_starts(sv, r1))
			r1++;
		sv->n_runs++;
		size_t i = r0;
		while (i < r1) {
			const parquet_column *col = &pf->columns[leaf];
			int32_t prefer = sv_leaf_codec(pf, leaf);
			size_t j = i;
			int64_t recs = 0;
			const char *why = NULL;
			bool hinted = false;
			bool dict = sv->pages[j].pg.hdr.type ==
				    PARQUET_PAGE_DICTIONARY;

			if (dict) {
				if (!sv_fits(col, &sv->pages[j].pg.hdr, &why))
					goto misfit;
				j++;
			}
			while (j < r1) {
				const parquet_page_header *h =
					&sv->pages[j].pg.hdr;
				int64_t pr = 0;
				if ((h->encoding == PARQUET_ENC_PLAIN_DICTIONARY ||
				     h->encoding == PARQUET_ENC_RLE_DICTIONARY) &&
				    !dict) {
					why = "a dictionary-encoded page without a dictionary page before it";
					break;
				}
				if (!sv_fits(col, h, &why))
					break;
				if (sv_page_records(s, sv, j, col, prefer, &pr,
						    &e)) {
					colfs_tree_report_err(t, dir, &e);
					why = "its repetition levels do not decode";
					break;
				}
				recs += pr;
				j++;
				if (R && recs >= R)
					break;
				if (!R && leaf == 0 && j < r1 &&
				    sv_is_hint(pf, recs)) {
					hinted = true;
					break;
				}
			}
			/* leaf 0 without a row count from OTHER: if the pages
			 * after its stretch do not make a row group of its
			 * rows, end its chunk at the first page boundary after
			 * which they do (columns of one type written one after
			 * another, row groups sized unlike OTHER's) */
			if (leaf == 0 && !R && !hinted && n_leaves > 1 &&
			    j > i + dict + 1) {
				size_t budget = sv->match_budget;

				if (!sv_group_fits(s, sv, j, recs, &budget)) {
					int64_t rk = 0, pr = 0;

					for (size_t k = i + dict; k + 1 < j; k++) {
						if (sv_page_records(s, sv, k, col,
								    prefer, &pr,
								    &e))
							break;
						rk += pr;
						if (sv_group_fits(s, sv, k + 1,
								  rk, &budget)) {
							j = k + 1;
							recs = rk;
							why = NULL;
							break;
						}
						if (!budget)
							break;
					}
				}
			}
			/* a dictionary page at the end of the scan is the
			 * start of a cut chunk: short, like a cut chunk */
			if (j == i + dict &&
			    !(dict && R && j == r1 && !why)) {
				if (!why)
					why = "it holds no data page";
				goto misfit;
			}
			if (R && recs != R) {
				/* the right column, but short (a cut file) or
				 * not ending at a page boundary */
				colfs_tree_report(t, dir,
						  sv->pages[i].pg.offset,
						  COLFS_ETRUNCATED,
						  "salvage: pages %zu to %zu hold %lld rows of column %s, its row group has %lld: the row group is incomplete",
						  i, j - 1, (long long)recs,
						  col->path, (long long)R);
				COLFS_TRY(sv_chunk_add(sv, i, j - i,
						       (int32_t)leaf, g, recs, cap));
				GROUP_FAILS();
				i = j;
				continue;
			}
			if (!R)
				R = recs;
			COLFS_TRY(sv_chunk_add(sv, i, j - i, (int32_t)leaf, g,
					       recs, cap));
			if (++leaf == n_leaves) {
				for (size_t m = group_first; m < sv->n_chunks;
				     m++)
					sv->chunks[m].complete = true;
				sv->rows_recovered += (uint64_t)R;
				g++;
				leaf = 0;
				R = 0;
				group_first = sv->n_chunks;
			}
			i = j;
			continue;
misfit:
			if (leaf > 0) {
				/* the row group ends here: try the page again
				 * as the start of the next one */
				colfs_tree_report(t, dir, sv->pages[i].pg.offset,
						  COLFS_ECORRUPT,
						  "salvage: page %zu does not fit column %s (%s): the row group is incomplete",
						  i, col->path, why ? why : "?");
				GROUP_FAILS();
				continue;
			}
			/* not the start of a row group: left unmatched, one
			 * page at a time, until a page starts one; a stretch
			 * of such pages in one run is one chunk */
			if (sv->n_chunks && i > r0 &&
			    sv->chunks[sv->n_chunks - 1].leaf < 0 &&
			    sv->chunks[sv->n_chunks - 1].first +
				    sv->chunks[sv->n_chunks - 1].n == i) {
				sv_chunk *uc = &sv->chunks[sv->n_chunks - 1];
				const parquet_page_header *h =
					&sv->pages[i].pg.hdr;
				uc->n++;
				sv->pages[i].chunk = (uint32_t)(sv->n_chunks - 1);
				if (h->type != PARQUET_PAGE_DICTIONARY)
					uc->values += h->num_values;
			} else {
				colfs_tree_report(t, dir, sv->pages[i].pg.offset,
						  COLFS_ECORRUPT,
						  "salvage: page %zu does not fit column %s (%s): it and the pages after it that cannot start a row group are not matched",
						  i, col->path, why ? why : "?");
				COLFS_TRY(sv_chunk_add(sv, i, 1, -1, 0, 0, cap));
			}
			i++;
		}
		r0 = r1;
	}
	if (leaf > 0) {
		colfs_tree_report(t, dir, sv->scanned_to, COLFS_ETRUNCATED,
				  "salvage: the last row group has %u of %u columns: its rows are not in columns/",
				  leaf, n_leaves);
		g++;
	}
	sv->n_groups = g;
#undef GROUP_FAILS
	return COLFS_OK;
}

/* --- the stand-in file ---------------------------------------------------------- */

/* Complete row groups first (they feed columns/ and rows.*), then the
 * incomplete ones, each in file order. */
static colfs_status sv_build_file(parquet_region_state *s, parquet_salvage *sv)
{
	const parquet_file *pf = sv->schema;
	uint32_t ng = sv->n_groups, nc = 0, n_complete = 0, *order;
	parquet_region_state *syn;

	order = calloc(ng ? ng : 1, sizeof *order);
	if (!order)
		return COLFS_ENOMEM;
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t g = 0; g < ng; g++) {
			bool complete = false;
			for (size_t m = 0; m < sv->n_chunks; m++)
				if (sv->chunks[m].leaf >= 0 &&
				    sv->chunks[m].g == g)
					complete = sv->chunks[m].complete;
			if (complete == (pass == 0))
				order[g] = nc++;
			if (pass == 0)
				n_complete = nc;
		}
	sv->syn_pf = *pf;
	sv->syn_pf.footer = NULL;
	sv->syn_pf.footer_len = 0;
	sv->syn_pf.n_row_groups = ng;
	sv->syn_pf.num_rows = (int64_t)sv->rows_recovered;
	sv->syn_pf.arena = NULL;
	sv->syn_pf.row_groups = calloc(ng ? ng : 1,
				       sizeof *sv->syn_pf.row_groups);
	if (!sv->syn_pf.row_groups) {
		free(order);
		return COLFS_ENOMEM;
	}
	for (uint32_t g = 0; g < ng; g++) {
		parquet_row_group *rg = &sv->syn_pf.row_groups[g];
		rg->chunks = calloc(pf->n_columns ? pf->n_columns : 1,
				    sizeof *rg->chunks);
		if (!rg->chunks) {
			free(order);
			return COLFS_ENOMEM;
		}
		rg->n_chunks = pf->n_columns;
		rg->total_compressed_size = -1;
		rg->file_offset = -1;
		rg->ordinal = -1;
		for (uint32_t c = 0; c < pf->n_columns; c++)
			rg->chunks[c].column = c;
	}
	/* the codec found for each leaf's first chunk holds for its other
	 * chunks (one writer): one page per leaf is decompressed here */
	int32_t *leaf_codec = malloc((pf->n_columns ? pf->n_columns : 1) *
				     sizeof *leaf_codec);
	if (!leaf_codec) {
		free(order);
		return COLFS_ENOMEM;
	}
	for (uint32_t c = 0; c < pf->n_columns; c++)
		leaf_codec[c] = -1;
	for (size_t m = 0; m < sv->n_chunks; m++) {
		sv_chunk *sc = &sv->chunks[m];
		if (sc->leaf < 0)
			continue;
		sc->g = order[sc->g];
		parquet_row_group *rg = &sv->syn_pf.row_groups[sc->g];
		parquet_chunk *ch = &rg->chunks[sc->leaf];
		const sv_page *f = &sv->pages[sc->first];
		const sv_page *l = &sv->pages[sc->first + sc->n - 1];
		static const int32_t enc_dict[] = {PARQUET_ENC_RLE_DICTIONARY};
		int32_t codec = leaf_codec[sc->leaf];
		for (size_t k = sc->first; k < sc->first + sc->n && codec < 0;
		     k++) {
			const parquet_page_header *h = &sv->pages[k].pg.hdr;
			if (h->type == PARQUET_PAGE_DATA_V2 && !h->is_compressed)
				continue;   /* fits every codec */
			uint8_t *b;
			size_t len;
			int32_t pc;
			colfs_err e;
			if (!sv_page_bytes(s, &sv->pages[k],
					   sv_leaf_codec(pf, (uint32_t)sc->leaf),
					   &b, &len, &pc, &e)) {
				free(b);
				codec = pc;
			}
		}
		if (codec >= 0)
			leaf_codec[sc->leaf] = codec;
		else
			codec = sv_leaf_codec(pf, (uint32_t)sc->leaf);
		ch->has_meta = true;
		ch->type = pf->columns[sc->leaf].elem->type;
		ch->codec = codec < 0 ? PARQUET_CODEC_UNCOMPRESSED : codec;
		ch->num_values = sc->values;
		ch->start = f->pg.offset;
		ch->length = l->pg.offset + l->pg.hdr.header_len +
			     (uint64_t)l->pg.hdr.compressed_size - f->pg.offset;
		ch->total_compressed_size = (int64_t)ch->length;
		ch->total_uncompressed_size = -1;
		ch->extent_ok = true;
		ch->data_page_offset = (int64_t)f->pg.offset;
		ch->dictionary_page_offset = -1;
		ch->index_page_offset = -1;
		ch->bloom_filter_offset = -1;
		ch->bloom_filter_length = -1;
		ch->offset_index_offset = ch->offset_index_length = -1;
		ch->column_index_offset = ch->column_index_length = -1;
		ch->file_offset = -1;
		if (f->pg.hdr.type == PARQUET_PAGE_DICTIONARY) {
			ch->dictionary_page_offset = (int64_t)f->pg.offset;
			ch->encodings = enc_dict;
			ch->n_encodings = 1;
		}
		if (sc->leaf == 0)
			rg->num_rows = sc->records;
	}
	free(order);
	free(leaf_codec);
	syn = calloc(1, sizeof *syn);
	if (!syn)
		return COLFS_ENOMEM;
	syn->src = s->src;
	syn->size = s->size;
	syn->max_alloc = s->max_alloc;
	syn->pf = &sv->syn_pf;
	syn->synthetic = true;
	syn->table_groups = n_complete;
	sv->syn = syn;
	sv->n_complete = n_complete;
	return parquet_pages_create(syn, &syn->values);
}

/* --- schema_from ------------------------------------------------------------------ */

static const char *sv_schema_load(parquet_region_state *s, const char *path,
				  parquet_file **out, char *why, size_t why_len)
{
	parquet_region_state fs = {.max_alloc = s->max_alloc};
	parquet_region_footer_stage stage;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "cannot be opened";
	if (colfs_source_create_fd(fd, 1, &fs.src)) {
		close(fd);
		return "cannot be read";
	}
	fs.size = colfs_source_size(fs.src);
	parquet_region_footer_read(&fs, true, NULL, NULL, &stage);
	colfs_source_destroy(fs.src);
	switch (stage) {
	case PARQUET_REGION_FOOTER_NOT_FOUND:
		return "does not end with a plaintext Parquet footer (PAR1)";
	case PARQUET_REGION_FOOTER_BAD_LENGTH:
		return "has a footer length that does not fit the file";
	case PARQUET_REGION_FOOTER_UNREAD:
		return "cannot be read";
	case PARQUET_REGION_FOOTER_READ:
		break;
	}
	if (!fs.pf || !fs.pf->n_columns || fs.footer_why.status) {
		snprintf(why, why_len, "has a footer that does not decode: %s",
			 fs.footer_why.msg);
		parquet_file_destroy(fs.pf);
		return why;
	}
	*out = fs.pf;
	return NULL;
}

/* --- the tree ---------------------------------------------------------------------- */

#define ADD(x)                                                              \
	do {                                                                \
		if (!(x))                                                   \
			return COLFS_ENOMEM;                                \
	} while (0)

static parquet_salvage *sv_of(const colfs_node *n)
{
	const parquet_region_state *s = colfs_node_ctx(n);
	return s->salvage;
}

static colfs_status sv_summary_gen(colfs_tree *t, colfs_node *f,
				   colfs_buf *out)
{
	parquet_salvage *sv = sv_of(f);
	size_t kinds[4] = {0}, matched = 0;

	(void)t;
	for (size_t k = 0; k < sv->n_pages; k++)
		kinds[sv->pages[k].pg.hdr.type & 3]++;
	for (size_t m = 0; m < sv->n_chunks; m++)
		matched += sv->chunks[m].leaf >= 0;
	/* no timing here: the tree serves the same bytes on every mount */
	colfs_buf_printf(out, "scanned: bytes 4 to %llu of %llu%s%s\n",
			 (unsigned long long)sv->scanned_to,
			 (unsigned long long)((parquet_region_state *)colfs_node_ctx(f))->size,
			 sv->stop_why ? ", stopped at " : "",
			 sv->stop_why ? sv->stop_why : "");
	colfs_buf_printf(out, "scan caps: %zu pages, %.0f seconds "
			 "(-o salvage_effort raises them)\n", sv->max_pages,
			 sv->max_seconds);
	colfs_buf_printf(out, "pages: %zu (%zu data v1, %zu data v2, %zu dictionary)\n",
			 sv->n_pages, kinds[PARQUET_PAGE_DATA],
			 kinds[PARQUET_PAGE_DATA_V2],
			 kinds[PARQUET_PAGE_DICTIONARY]);
	colfs_buf_printf(out, "page CRCs: %zu match, %zu mismatch, %zu absent\n",
			 sv->n_crc_ok, sv->n_crc_bad,
			 sv->n_pages - sv->n_crc_ok - sv->n_crc_bad);
	colfs_buf_printf(out, "runs: %zu\n", sv->n_runs);
	colfs_buf_printf(out, "chunks: %zu\n", sv->n_chunks);
	colfs_buf_printf(out, "bytes without pages: %llu in %zu gaps\n",
			 (unsigned long long)sv->gap_bytes, sv->n_gaps);
	colfs_buf_printf(out, "cut pages: %zu\n", sv->n_cut);
	if (sv->schema_path)
		colfs_buf_printf(out, "schema_from: %s\n", sv->schema_path);
	if (sv->schema_why)
		colfs_buf_printf(out, "schema_from unusable: %s\n",
				 sv->schema_why);
	if (sv->schema) {
		colfs_buf_printf(out, "matched chunks: %zu of %zu\n", matched,
				 sv->n_chunks);
		colfs_buf_printf(out, "row groups: %u complete, %u incomplete\n",
				 sv->n_complete, sv->n_groups - sv->n_complete);
		colfs_buf_printf(out, "rows recovered: %llu\n",
				 (unsigned long long)sv->rows_recovered);
	}
	return colfs_buf_status(out);
}

static const char *sv_codec_label(int c)
{
	if (c == SV_CODEC_UNTRIED)
		return NULL;
	if (c == SV_CODEC_NONE_FITS)
		return "none fits";
	return parquet_codec_name(c);
}

static colfs_status sv_page_info_gen(colfs_tree *t, colfs_node *f,
				     colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	parquet_salvage *sv = s->salvage;
	sv_page *sp = &sv->pages[colfs_node_a(f)];
	const parquet_page_header *h = &sp->pg.hdr;
	const sv_chunk *ch = sp->chunk < sv->n_chunks ? &sv->chunks[sp->chunk]
						      : NULL;
	int32_t prefer = sv->schema && ch && ch->leaf >= 0
			 ? sv_leaf_codec(sv->schema, (uint32_t)ch->leaf) : -1;
	uint8_t *buf;
	size_t len;
	int32_t codec;
	colfs_err e;
	const char *cl;
	json_t *j;

	(void)t;
	/* find the codec now (the answer is remembered) */
	if (!sv_page_bytes(s, sp, prefer, &buf, &len, &codec, &e))
		free(buf);
	cl = sv_codec_label(__atomic_load_n(&sp->codec, __ATOMIC_RELAXED));
	j = json_pack("{s:I,s:I,s:I,s:s?,s:i,s:i,s:s,s:s?,s:I}",
		      "offset", (json_int_t)sp->pg.offset,
		      "header_length", (json_int_t)h->header_len,
		      "data_offset", (json_int_t)(sp->pg.offset + h->header_len),
		      "page_type", parquet_page_type_name(h->type),
		      "compressed_page_size", h->compressed_size,
		      "uncompressed_page_size", h->uncompressed_size,
		      "crc", sp->crc == SV_CRC_OK ? "ok" :
			     sp->crc == SV_CRC_BAD ? "mismatch" : "absent",
		      "codec", cl, "chunk", (json_int_t)sp->chunk);
	if (!j)
		return COLFS_ENOMEM;
	json_object_set_new(j, "num_values", json_integer(h->num_values));
	return colfs_buf_json(out, j);
}

static colfs_status sv_page_header_gen(colfs_tree *t, colfs_node *f,
				       colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const sv_page *sp = &s->salvage->pages[colfs_node_a(f)];
	colfs_err e = {0};
	uint8_t *buf;
	json_t *j;
	colfs_status st;

	if (parquet_region_read(s, sp->pg.offset, sp->pg.hdr.header_len, &buf, &e)) {
		colfs_tree_report_err(t, f, &e);
		return e.status;
	}
	st = parquet_region_json(buf, sp->pg.hdr.header_len, sp->pg.offset,
			    &parquet_desc_page_header, &j, &e);
	free(buf);
	if (st) {
		colfs_tree_report_err(t, f, &e);
		return e.status ? e.status : st;
	}
	return colfs_buf_json(out, j);
}

static colfs_status sv_decompressed_piece(colfs_tree *t, colfs_node *f,
					  uint64_t index, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	parquet_salvage *sv = s->salvage;
	sv_page *sp = &sv->pages[colfs_node_a(f)];
	const sv_chunk *ch = sp->chunk < sv->n_chunks ? &sv->chunks[sp->chunk]
						      : NULL;
	int32_t prefer = sv->schema && ch && ch->leaf >= 0
			 ? sv_leaf_codec(sv->schema, (uint32_t)ch->leaf) : -1;
	colfs_err e = {0};
	uint8_t *buf;
	size_t len;
	int32_t codec;

	if (index > 0)
		return COLFS_END;
	if (sv_page_bytes(s, sp, prefer, &buf, &len, &codec, &e)) {
		colfs_tree_report_err(t, colfs_node_parent(f), &e);
		return e.status;
	}
	colfs_buf_append(out, buf, len);
	free(buf);
	return colfs_buf_status(out);
}

static const colfs_node_ops sv_summary_ops = {.generate = sv_summary_gen};
static const colfs_node_ops sv_page_info_ops = {.generate = sv_page_info_gen};
static const colfs_node_ops sv_page_header_ops = {.generate = sv_page_header_gen};
static const colfs_node_ops sv_decompressed_ops = {.piece = sv_decompressed_piece};

static colfs_status sv_page_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	uint64_t k = colfs_node_a(dir);
	const sv_page *sp = &s->salvage->pages[k];
	colfs_node *n;

	ADD(n = colfs_dir_add_doc(t, dir, "header.json", &sv_page_header_ops,
				  s));
	colfs_node_set_args(n, k, 0, 0);
	ADD(n = colfs_dir_add_doc(t, dir, "info.json", &sv_page_info_ops, s));
	colfs_node_set_args(n, k, 0, 0);
	ADD(colfs_dir_add_range(t, dir, "raw",
				sp->pg.offset + sp->pg.hdr.header_len,
				(uint64_t)sp->pg.hdr.compressed_size));
	ADD(n = colfs_dir_add_stream(t, dir, "decompressed",
				     &sv_decompressed_ops, s));
	colfs_node_set_args(n, k, 0, 0);
	return COLFS_OK;
}

static const colfs_node_ops sv_page_ops = {.populate = sv_page_populate};

static colfs_status sv_pages_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);

	for (size_t k = 0; k < s->salvage->n_pages; k++) {
		char name[24];
		colfs_node *n;
		snprintf(name, sizeof name, "%zu", k);
		ADD(n = colfs_dir_add_dir(t, dir, name, &sv_page_ops, s));
		colfs_node_set_args(n, k, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops sv_pages_ops = {.populate = sv_pages_populate};

static colfs_status sv_chunk_info_gen(colfs_tree *t, colfs_node *f,
				      colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	parquet_salvage *sv = s->salvage;
	const sv_chunk *ch = &sv->chunks[colfs_node_a(f)];
	const sv_page *fp = &sv->pages[ch->first];
	const sv_page *lp = &sv->pages[ch->first + ch->n - 1];
	json_t *j;

	(void)t;
	j = json_pack("{s:I,s:I,s:I,s:I,s:b,s:I}",
		      "first_page", (json_int_t)ch->first,
		      "pages", (json_int_t)ch->n,
		      "offset", (json_int_t)fp->pg.offset,
		      "length", (json_int_t)(lp->pg.offset +
					     lp->pg.hdr.header_len +
					     (uint64_t)lp->pg.hdr.compressed_size -
					     fp->pg.offset),
		      "dictionary",
		      fp->pg.hdr.type == PARQUET_PAGE_DICTIONARY,
		      "values", (json_int_t)ch->values);
	if (!j)
		return COLFS_ENOMEM;
	if (sv->schema && ch->leaf >= 0) {
		const parquet_chunk *pc =
			&sv->syn_pf.row_groups[ch->g].chunks[ch->leaf];
		json_object_set_new(j, "column",
				    json_string(sv->schema->columns[ch->leaf].path));
		json_object_set_new(j, "row_group", json_integer(ch->g));
		json_object_set_new(j, "row_group_complete",
				    json_boolean(ch->complete));
		json_object_set_new(j, "codec",
				    json_string(parquet_codec_name(pc->codec)
						? parquet_codec_name(pc->codec)
						: "?"));
	} else if (sv->schema) {
		json_object_set_new(j, "column", json_null());
	}
	return colfs_buf_json(out, j);
}

static colfs_status sv_chunk_pages_gen(colfs_tree *t, colfs_node *f,
				       colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const sv_chunk *ch = &s->salvage->chunks[colfs_node_a(f)];

	(void)t;
	for (size_t k = ch->first; k < ch->first + ch->n; k++)
		colfs_buf_printf(out, "%zu\n", k);
	return colfs_buf_status(out);
}

static const colfs_node_ops sv_chunk_info_ops = {.generate = sv_chunk_info_gen};
static const colfs_node_ops sv_chunk_pages_ops = {.generate = sv_chunk_pages_gen};

static colfs_status sv_chunk_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	parquet_salvage *sv = s->salvage;
	uint64_t m = colfs_node_a(dir);
	const sv_chunk *ch = &sv->chunks[m];
	const sv_page *fp = &sv->pages[ch->first];
	const sv_page *lp = &sv->pages[ch->first + ch->n - 1];
	colfs_node *n;

	ADD(n = colfs_dir_add_doc(t, dir, "info.json", &sv_chunk_info_ops, s));
	colfs_node_set_args(n, m, 0, 0);
	ADD(n = colfs_dir_add_doc(t, dir, "pages", &sv_chunk_pages_ops, s));
	colfs_node_set_args(n, m, 0, 0);
	ADD(colfs_dir_add_range(t, dir, "raw", fp->pg.offset,
				lp->pg.offset + lp->pg.hdr.header_len +
				(uint64_t)lp->pg.hdr.compressed_size -
				fp->pg.offset));
	if (sv->syn && ch->leaf >= 0)
		return parquet_views_chunk_add(t, dir, sv->syn, ch->g,
					   (uint32_t)ch->leaf);
	return COLFS_OK;
}

static const colfs_node_ops sv_chunk_ops = {.populate = sv_chunk_populate};

static colfs_status sv_chunks_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);

	for (size_t m = 0; m < s->salvage->n_chunks; m++) {
		char name[24];
		colfs_node *n;
		snprintf(name, sizeof name, "%zu", m);
		ADD(n = colfs_dir_add_dir(t, dir, name, &sv_chunk_ops, s));
		colfs_node_set_args(n, m, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops sv_chunks_ops = {.populate = sv_chunks_populate};

/* The scan, then the chunks: matched to schema_from's leaves when it is
 * given and usable, else one per run. */
static colfs_status sv_salvage(colfs_tree *t, const colfs_node *dir,
			       parquet_region_state *s, parquet_salvage *sv, const char *from,
			       char *why, size_t why_len)
{
	size_t cap = 0;

	COLFS_TRY(sv_scan(t, dir, s, sv));
	if (from) {
		const char *bad;
		sv->schema_path = from;
		bad = sv_schema_load(s, from, &sv->schema, why, why_len);
		if (bad) {
			sv->schema_why = colfs_tree_strdup(t, bad);
			colfs_tree_report(t, dir, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
					  "salvage: schema_from %s %s: pages are not matched to columns",
					  from, bad);
		}
	}
	if (sv->schema) {
		COLFS_TRY(sv_match(t, dir, s, sv, &cap));
		return sv_build_file(s, sv);
	}
	for (size_t r0 = 0; r0 < sv->n_pages;) {
		size_t r1 = r0 + 1;
		while (r1 < sv->n_pages && !sv_run_starts(sv, r1))
			r1++;
		sv->n_runs++;
		COLFS_TRY(sv_chunk_add(sv, r0, r1 - r0, -1, 0, 0, &cap));
		r0 = r1;
	}
	return COLFS_OK;
}

static colfs_status sv_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	parquet_salvage *sv = s->salvage;
	const char *from = colfs_tree_options(t)->schema_from;

	if (sv->scan_status)
		return sv->scan_status;   /* a failed first attempt */
	if (!sv->scanned) {
		char why[300];
		sv->scanned = true;
		sv->scan_status = sv_salvage(t, dir, s, sv, from, why,
					     sizeof why);
		COLFS_TRY(sv->scan_status);
	}
	ADD(colfs_dir_add_doc(t, dir, "summary", &sv_summary_ops, s));
	ADD(colfs_dir_add_errors(t, dir));
	ADD(colfs_dir_add_dir(t, dir, "pages", &sv_pages_ops, s));
	ADD(colfs_dir_add_dir(t, dir, "chunks", &sv_chunks_ops, s));
	if (sv->syn)
		COLFS_TRY(parquet_views_table_add(t, dir, sv->syn, -1));
	return COLFS_OK;
}

static const colfs_node_ops sv_ops = {.populate = sv_populate};

bool parquet_salvage_wanted(const parquet_region_state *s)
{
	return !s->encrypted_footer && (!s->pf || !s->pf->meta_ok) &&
	       memcmp(s->head_magic, "PAR1", 4) == 0;
}

colfs_status parquet_salvage_add(colfs_tree *t, colfs_node *root, parquet_region_state *s)
{
	uint32_t effort = colfs_tree_options(t)->salvage_effort;

	s->salvage = calloc(1, sizeof *s->salvage);
	if (!s->salvage)
		return COLFS_ENOMEM;
	effort = effort ? effort : 1;
	s->salvage->max_pages = (size_t)SV_MAX_PAGES * effort;
	s->salvage->max_seconds = (double)SV_MAX_SECONDS * effort;
	s->salvage->match_budget = (size_t)SV_MATCH_BUDGET * effort;
	return colfs_dir_add_dir(t, root, "salvage", &sv_ops, s) ? COLFS_OK
								 : COLFS_ENOMEM;
}

void parquet_salvage_destroy(parquet_salvage *sv)
{
	if (!sv)
		return;
	if (sv->syn) {
		parquet_pages_destroy(sv->syn->values);
		free(sv->syn);
	}
	if (sv->syn_pf.row_groups) {
		for (uint32_t g = 0; g < sv->syn_pf.n_row_groups; g++)
			free(sv->syn_pf.row_groups[g].chunks);
		free(sv->syn_pf.row_groups);
	}
	parquet_file_destroy(sv->schema);
	free(sv->pages);
	free(sv->chunks);
	free(sv);
}

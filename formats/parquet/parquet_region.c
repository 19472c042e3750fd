/* colfs: the Parquet module's reads of the file outside the page
 * pipeline, and where a part lives: byte regions (bounded by the file and
 * max_alloc), a Thrift region rendered as JSON, the chunk of a row group
 * (node -> chunk), chunk names and the tree path of a chunk or page, and
 * the two ways a problem is filed under the broken part (parquet_region.h).
 * Everything above it (pages, views, documents, salvage, verify) reads
 * through here; it calls only formats/core. */
#include "parquet_region.h"
#include "parquet_crypt.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- reading regions -------------------------------------------------------- */

colfs_status parquet_region_read(parquet_region_state *s, uint64_t off, uint64_t len,
			    uint8_t **out, colfs_err *err)
{
	return colfs_source_read_region(s->src, off, len, s->max_alloc, out,
					err);
}

colfs_status parquet_region_json(const uint8_t *p, size_t len, uint64_t off,
			    const colfs_thrift_sdesc *d, json_t **out,
			    colfs_err *err)
{
	colfs_cursor c;
	colfs_thrift r;

	colfs_cursor_init(&c, p, len, off);
	colfs_thrift_init(&r, &c);
	return colfs_thrift_struct_json(&r, d, out, err);
}

colfs_status parquet_region_json_text(const uint8_t *p, size_t len,
				      uint64_t off, const colfs_thrift_sdesc *d,
				      unsigned depth, colfs_buf *out,
				      colfs_err *err)
{
	size_t at = out->len;
	colfs_cursor c;
	colfs_thrift r;
	colfs_err e = {0};
	json_t *j;
	char *text;

	colfs_cursor_init(&c, p, len, off);
	colfs_thrift_init(&r, &c);
	if (colfs_thrift_struct_text(&r, d, depth, out, &e) == COLFS_OK)
		return COLFS_OK;
	if (out->failed)
		return colfs_fail(err, COLFS_ENOMEM, off,
				  "out of memory rendering thrift as JSON");
	/* what the text could not be sure of, or a failure: the tree */
	out->len = at;
	COLFS_TRY(parquet_region_json(p, len, off, d, &j, err));
	text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (!text)
		return colfs_fail(err, COLFS_ENOMEM, off,
				  "out of memory rendering thrift as JSON");
	for (const char *q = text, *nl; *q; q = nl + 1) {
		nl = strchr(q, '\n');
		if (!nl) {
			colfs_buf_puts(out, q);
			break;
		}
		colfs_buf_append(out, q, (size_t)(nl - q) + 1);
		for (unsigned k = 0; k < depth; k++)
			colfs_buf_puts(out, "  ");
	}
	free(text);
	if (out->failed)
		return colfs_fail(err, COLFS_ENOMEM, off,
				  "out of memory rendering thrift as JSON");
	return COLFS_OK;
}

/* --- the footer ------------------------------------------------------------ */

/* Pass a problem on (report may be NULL). */
static void footer_problem(parquet_report_fn report, void *ctx,
			   const colfs_err *e)
{
	if (report)
		report(ctx, e);
}

colfs_status parquet_region_footer_read(parquet_region_state *s, bool plain_only,
			    parquet_report_fn report, void *ctx,
			    parquet_region_footer_stage *stage)
{
	parquet_region_footer_stage st_dummy;
	uint8_t tail[8], *footer;
	colfs_err e = {0};
	colfs_status st;
	uint32_t flen;

	if (!stage)
		stage = &st_dummy;
	*stage = PARQUET_REGION_FOOTER_NOT_FOUND;
	if (s->size < 12) {
		colfs_fail(&e, COLFS_ETRUNCATED, 0,
			   "file of %llu bytes is too short for Parquet (head magic, footer length and tail magic need 12)",
			   (unsigned long long)s->size);
		footer_problem(report, ctx, &e);
		return COLFS_OK;
	}
	st = colfs_source_read_at(s->src, s->size - 8, 8, tail, &e);
	if (st) {
		footer_problem(report, ctx, &e);
		return st == COLFS_EIO ? st : COLFS_OK;
	}
	memcpy(s->tail_magic, tail + 4, 4);
	if (memcmp(tail + 4, "PAR1", 4) && memcmp(tail + 4, "PARE", 4)) {
		colfs_fail(&e, COLFS_ECORRUPT, s->size - 4,
			   "tail magic is %02x %02x %02x %02x, expected \"PAR1\" or \"PARE\": no footer can be located",
			   tail[4], tail[5], tail[6], tail[7]);
		footer_problem(report, ctx, &e);
		return COLFS_OK;
	}
	s->encrypted_footer = memcmp(tail + 4, "PARE", 4) == 0;
	if (s->encrypted_footer && plain_only)
		return COLFS_OK;
	if (memcmp(s->head_magic, tail + 4, 4)) {
		colfs_fail(&e, COLFS_ECORRUPT, 0,
			   "head magic %02x %02x %02x %02x differs from tail magic \"%.4s\"",
			   s->head_magic[0], s->head_magic[1],
			   s->head_magic[2], s->head_magic[3],
			   (const char *)s->tail_magic);
		footer_problem(report, ctx, &e);
	}
	flen = colfs_le32(tail);
	s->footer_len_field = flen;
	if ((uint64_t)flen > s->size - 12) {
		*stage = PARQUET_REGION_FOOTER_BAD_LENGTH;
		colfs_fail(&e, COLFS_EBOUNDS, s->size - 8,
			   "footer length %u is larger than the %llu bytes between the magics",
			   flen, (unsigned long long)(s->size - 12));
		footer_problem(report, ctx, &e);
		return COLFS_OK;
	}
	s->footer_offset = s->size - 8 - flen;
	s->footer_len = flen;
	st = parquet_region_read(s, s->footer_offset, flen, &footer, &e);
	if (st) {
		*stage = st == COLFS_EOVERFLOW ? PARQUET_REGION_FOOTER_BAD_LENGTH
					       : PARQUET_REGION_FOOTER_UNREAD;
		footer_problem(report, ctx, &e);
		return st == COLFS_EIO ? st : COLFS_OK;
	}
	*stage = PARQUET_REGION_FOOTER_READ;
	s->footer_ok = true;
	memset(&e, 0, sizeof e);   /* a problem reported above is not why */
	if (s->crypt && s->encrypted_footer) {
		/* decrypted with the user's keys, or read as without them */
		bool done = false;
		st = parquet_crypt_footer(s, footer, flen, report, ctx, &done);
		if (st || done) {
			free(footer);
			return st == COLFS_ENOMEM && !report ? COLFS_OK : st;
		}
	}
	st = parquet_file_parse_owned(footer, flen, s->footer_offset, s->size,
				      s->encrypted_footer, report, ctx, &s->pf,
				      &e);
	s->footer_why = e;
	if (st == COLFS_ENOMEM && report)
		return st;
	if (st) {
		footer_problem(report, ctx, &e);
		if (s->pf && !s->pf->n_schema && !s->pf->n_row_groups &&
		    !s->encrypted_footer) {
			/* nothing usable: keep the raw footer only */
			parquet_file_destroy(s->pf);
			s->pf = NULL;
		}
	}
	if (s->encrypted_footer) {
		colfs_fail(&e, COLFS_EUNSUPPORTED, s->footer_offset,
			   s->crypt ? "the footer is encrypted (PARE, Parquet modular encryption) and could not be decrypted with the keys given: schema, row groups and pages cannot be shown"
				    : "the footer is encrypted (PARE, Parquet modular encryption) and colfs has no keys: schema, row groups and pages cannot be shown");
		footer_problem(report, ctx, &e);
	} else if (s->crypt && s->pf && s->pf->has_encryption_algorithm) {
		/* a plaintext footer: its signature, and the encrypted
		 * columns whose keys are known */
		bool done;
		st = parquet_crypt_footer(s, s->pf->footer, s->pf->footer_len,
					  report, ctx, &done);
		if (st == COLFS_ENOMEM && report)
			return st;
	}
	return COLFS_OK;
}

/* --- chunks ------------------------------------------------------------------ */

const parquet_chunk *parquet_region_chunk(const parquet_region_state *s, uint64_t g, uint64_t c)
{
	if (!s->pf || g >= s->pf->n_row_groups ||
	    c >= s->pf->row_groups[g].n_chunks)
		return NULL;
	return &s->pf->row_groups[g].chunks[c];
}

const char *parquet_region_chunk_name(const parquet_region_state *s, const parquet_row_group *rg,
			  uint32_t c, char *tmp, size_t tmp_len)
{
	if (c < s->pf->n_columns)
		return s->pf->columns[c].path;
	if (rg->chunks[c].path_in_schema)
		return rg->chunks[c].path_in_schema;
	snprintf(tmp, tmp_len, "chunk_%u", c);
	return tmp;
}

typedef struct chunk_names {
	const parquet_region_state *s;
	const parquet_row_group *rg;
} chunk_names;

static const char *chunk_name_at(void *ctx, size_t j, char *tmp,
				 size_t tmp_len)
{
	const chunk_names *cn = ctx;
	return parquet_region_chunk_name(cn->s, cn->rg, (uint32_t)j, tmp, tmp_len);
}

bool parquet_region_part_path(const parquet_region_state *s, uint32_t g, uint32_t c, size_t k,
		  char *buf, size_t len)
{
	chunk_names cn;
	char *name;
	int w;

	if (s->synthetic || !s->pf || g >= s->pf->n_row_groups ||
	    c >= s->pf->row_groups[g].n_chunks)
		return false;
	cn = (chunk_names){.s = s, .rg = &s->pf->row_groups[g]};
	name = colfs_name_nth(chunk_name_at, &cn, c);
	if (!name)
		return false;
	if (k == PARQUET_REGION_NO_PAGE)
		w = snprintf(buf, len, "/row_groups/%u/chunks/%s", g, name);
	else if (k == PARQUET_REGION_PAGES)
		w = snprintf(buf, len, "/row_groups/%u/chunks/%s/pages", g,
			     name);
	else
		w = snprintf(buf, len, "/row_groups/%u/chunks/%s/pages/%zu", g,
			     name, k);
	free(name);
	return w > 0 && (size_t)w < len;
}

/* --- problems filed under the broken part ---------------------------------- */

/* Report a problem of chunk (g, c) under the chunk's own directory, or of
 * its page k (PARQUET_REGION_NO_PAGE: the chunk), whether or not that directory was
 * listed; under `fallback` when the part has no place in the tree. */
void parquet_region_part_report(colfs_tree *t, const parquet_region_state *s, uint32_t g, uint32_t c,
		    size_t k, const colfs_node *fallback, const colfs_err *e)
{
	char path[4096];

	if (parquet_region_part_path(s, g, c, k, path, sizeof path))
		colfs_tree_report_err_path(t, path, e);
	else
		colfs_tree_report_err(t, fallback, e);
}

void parquet_region_part_hidden(colfs_tree *t, const parquet_region_state *s,
				uint32_t g, uint32_t c, size_t k,
				const colfs_node *fallback, uint64_t off,
				uint64_t first, uint64_t rows)
{
	char path[4096];

	if (!parquet_region_part_path(s, g, c, k, path, sizeof path)) {
		if (!fallback)
			return;
		colfs_node_path(fallback, path, sizeof path);
	}
	colfs_tree_note_hidden(t, path, off, first, rows);
}

/* A problem of row group g as a whole (records that do not assemble):
 * under its directory, or `fallback` in salvage's stand-in state. */
void parquet_region_rg_report(colfs_tree *t, const parquet_region_state *s, uint32_t g,
		  const colfs_node *fallback, uint64_t off, colfs_status st,
		  const char *fmt, ...)
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

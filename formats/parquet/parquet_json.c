/* colfs: the Parquet Thrift structures as JSON documents, rendered
 * generically from parquet_desc.c's descriptors: metadata.json, a row
 * group's and a chunk's meta.json (spans of the footer), a chunk's
 * offset_index.json and a page's header.json (regions of the file). */
#include "parquet_json.h"
#include "parquet_crypt.h"
#include "parquet_pages.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Fail a document: record the problem under the node, return the status. */
static colfs_status doc_fail(colfs_tree *t, colfs_node *n, const colfs_err *e)
{
	colfs_tree_report_err(t, n, e);
	return e->status ? e->status : COLFS_ECORRUPT;
}

static colfs_status span_json_doc(colfs_tree *t, colfs_node *file,
				  colfs_buf *out, size_t off, size_t len,
				  const colfs_thrift_sdesc *d)
{
	parquet_region_state *s = colfs_node_ctx(file);
	colfs_err e = {0};

	if (off > s->pf->footer_len || len > s->pf->footer_len - off)
		return COLFS_ECORRUPT;
	if (parquet_region_json_text(s->pf->footer + off, len,
				     s->pf->footer_offset + off, d, 0, out, &e))
		return doc_fail(t, file, &e);
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}

colfs_status parquet_json_metadata_gen(colfs_tree *t, colfs_node *file,
				       colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	colfs_err e = {0};
	json_t *j;

	if (parquet_region_json(s->pf->footer, s->pf->footer_len,
			   s->pf->footer_offset,
			   s->pf->encrypted_footer
			   ? &parquet_desc_file_crypto_metadata
			   : &parquet_desc_file_metadata, &j, &e)) {
		/* the footer is damaged: show the problem instead */
		j = json_pack("{s:{s:s,s:I,s:s}}", "decode_error", "status",
			      colfs_status_name(e.status), "offset",
			      (json_int_t)e.offset, "message", e.msg);
		if (e.status == COLFS_ENOMEM)
			return doc_fail(t, file, &e);
	}
	return colfs_buf_json(out, j);
}

/* --- metadata.json of a large footer, streamed ----------------------------
 *
 * The same bytes as parquet_json_metadata_gen, in pieces: 0 the head
 * (FileMetaData up to "row_groups": [), 1..n each RowGroup rendered alone
 * from its span of the footer and indented into the list, n + 1 the rest.
 * The head and the rest come from one rendering of the footer with its
 * row group list cut to an empty one, split where `"row_groups": []`
 * stands; jansson writes that key at the top level only once, two spaces
 * in, so the split is exact.  A footer that is not laid out so (a
 * FileMetaData that did not decode whole, a list header that is not the
 * one expected, row groups not back to back) keeps the one-piece form. */

/* The footer's row group list header: where it starts, or false. */
static bool rg_list_header(const parquet_file *pf, size_t *start)
{
	uint32_t n = pf->n_row_groups;
	uint8_t want[6];
	size_t hlen = 0;

	if (n < 15) {
		want[hlen++] = (uint8_t)(n << 4 | COLFS_THRIFT_STRUCT);
	} else {
		want[hlen++] = 0xF0 | COLFS_THRIFT_STRUCT;
		for (uint32_t v = n; hlen < sizeof want; v >>= 7) {
			want[hlen++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
			if (v <= 0x7f)
				break;
		}
	}
	if (pf->row_groups[0].span_off < hlen ||
	    memcmp(pf->footer + pf->row_groups[0].span_off - hlen, want, hlen))
		return false;
	*start = pf->row_groups[0].span_off - hlen;
	return true;
}

bool parquet_json_metadata_streams(const parquet_region_state *s)
{
	const parquet_file *pf = s->pf;
	size_t start;

	if (!pf || pf->encrypted_footer || !pf->meta_ok ||
	    !pf->n_row_groups || !parquet_region_footer_large(s))
		return false;
	for (uint32_t g = 1; g < pf->n_row_groups; g++)
		if (pf->row_groups[g].span_off !=
		    pf->row_groups[g - 1].span_off + pf->row_groups[g - 1].span_len)
			return false;
	{
		const parquet_row_group *last = &pf->row_groups[pf->n_row_groups - 1];
		if (last->span_off + last->span_len > pf->meta_len)
			return false;
	}
	return rg_list_header(pf, &start);
}

/* The head (`tail` false) or the rest (`tail` true) of metadata.json. */
static colfs_status metadata_ends(colfs_tree *t, colfs_node *file, bool tail,
				  colfs_buf *out)
{
	static const char key[] = "\n  \"row_groups\": []";
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_file *pf = s->pf;
	const parquet_row_group *last = &pf->row_groups[pf->n_row_groups - 1];
	size_t start, end = last->span_off + last->span_len, len;
	colfs_buf text = COLFS_BUF_INIT;
	colfs_err e = {0};
	uint8_t *cut;
	json_t *j;
	colfs_status st;
	char *at;

	if (!rg_list_header(pf, &start))
		return COLFS_ECORRUPT;
	len = start + 1 + (pf->meta_len - end);
	cut = malloc(len);
	if (!cut)
		return COLFS_ENOMEM;
	memcpy(cut, pf->footer, start);
	cut[start] = COLFS_THRIFT_STRUCT;    /* an empty list of structs */
	memcpy(cut + start + 1, pf->footer + end, pf->meta_len - end);
	st = parquet_region_json(cut, len, pf->footer_offset, &parquet_desc_file_metadata,
				 &j, &e);
	free(cut);
	if (st)
		return doc_fail(t, file, &e);
	st = colfs_buf_json(&text, j);
	if (st) {
		colfs_buf_free(&text);
		return st;
	}
	at = memmem(text.data, text.len, key, sizeof key - 1);
	if (!at) {
		colfs_buf_free(&text);
		return COLFS_ECORRUPT;
	}
	if (!tail) {
		/* up to `"row_groups": [` and the line break the list opens */
		colfs_buf_append(out, text.data, (size_t)(at - text.data) + sizeof key - 2);
		colfs_buf_putc(out, '\n');
	} else {
		size_t after = (size_t)(at - text.data) + sizeof key - 1;
		colfs_buf_puts(out, "  ]");
		colfs_buf_append(out, text.data + after, text.len - after);
	}
	colfs_buf_free(&text);
	return colfs_buf_status(out);
}

colfs_status parquet_json_metadata_piece(colfs_tree *t, colfs_node *file,
					 uint64_t index, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_file *pf = s->pf;
	const parquet_row_group *rg;
	colfs_err e = {0};

	if (!parquet_json_metadata_streams(s))
		return index ? COLFS_END : parquet_json_metadata_gen(t, file, out);
	if (index == 0 || index == (uint64_t)pf->n_row_groups + 1)
		return metadata_ends(t, file, index != 0, out);
	if (index > pf->n_row_groups)
		return COLFS_END;
	rg = &pf->row_groups[index - 1];
	/* an element of the list, two levels in: four more spaces a line */
	colfs_buf_puts(out, "    ");
	if (parquet_region_json_text(pf->footer + rg->span_off, rg->span_len,
				     pf->footer_offset + rg->span_off,
				     &parquet_desc_row_group, 2, out, &e))
		return doc_fail(t, file, &e);
	colfs_buf_puts(out, index < pf->n_row_groups ? ",\n" : "\n");
	return colfs_buf_status(out);
}

colfs_status parquet_json_rg_meta_gen(colfs_tree *t, colfs_node *file,
				      colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_row_group *rg = &s->pf->row_groups[colfs_node_a(file)];

	return span_json_doc(t, file, out, rg->span_off, rg->span_len,
			     &parquet_desc_row_group);
}

colfs_status parquet_json_chunk_meta_gen(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
					      colfs_node_b(file));

	return span_json_doc(t, file, out, ch->span_off, ch->span_len,
			     &parquet_desc_column_chunk);
}

/* A document decoded from a region of the file (page index, headers). */
colfs_status parquet_json_region_doc(colfs_tree *t, colfs_node *file,
				     colfs_buf *out, uint64_t off, uint64_t len,
				     const colfs_thrift_sdesc *d)
{
	parquet_region_state *s = colfs_node_ctx(file);
	colfs_err e = {0};
	uint8_t *buf;
	colfs_status st;

	if (parquet_region_read(s, off, len, &buf, &e))
		return doc_fail(t, file, &e);
	st = parquet_region_json_text(buf, (size_t)len, off, d, 0, out, &e);
	free(buf);
	if (st)
		return doc_fail(t, file, &e);
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}

colfs_status parquet_json_offset_index_gen(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
					      colfs_node_b(file));
	uint64_t off = (uint64_t)ch->offset_index_offset;
	colfs_err e = {0};
	uint8_t *buf;
	size_t len;
	json_t *j;
	colfs_status st;

	if (!ch->dek)
		return parquet_json_region_doc(t, file, out, off,
					       (uint64_t)ch->offset_index_length,
					       &parquet_desc_offset_index);
	/* an encrypted offset index, decrypted */
	if (parquet_crypt_read(s, ch, PARQUET_CRYPT_OFFSET_INDEX, off,
			       (uint64_t)ch->offset_index_length, &buf, &len,
			       &e))
		return doc_fail(t, file, &e);
	st = parquet_region_json(buf, len, off, &parquet_desc_offset_index, &j,
				 &e);
	free(buf);
	if (st)
		return doc_fail(t, file, &e);
	return colfs_buf_json(out, j);
}

colfs_status parquet_json_page_header_gen(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_pages_list *pl = NULL;
	const parquet_page *pg;

	if (parquet_pages_list_get(t, s, file, (uint32_t)colfs_node_a(file),
			   (uint32_t)colfs_node_b(file), &pl) ||
	    !pl || colfs_node_c(file) >= pl->n)
		return COLFS_ENOENT;
	pg = &pl->pages[colfs_node_c(file)];
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
						       colfs_node_b(file));
	if (ch && ch->dek) {
		/* an encrypted header, decrypted */
		colfs_err e = {0};
		uint8_t *buf;
		size_t len;
		json_t *j;
		colfs_status st;

		if (parquet_crypt_read_page_header(s, ch, pg, &buf, &len, &e))
			return doc_fail(t, file, &e);
		st = parquet_region_json(buf, len, pg->offset + 16,
					 &parquet_desc_page_header, &j, &e);
		free(buf);
		if (st)
			return doc_fail(t, file, &e);
		return colfs_buf_json(out, j);
	}
	return parquet_json_region_doc(t, file, out, pg->offset,
				       pg->hdr.header_len,
				       &parquet_desc_page_header);
}


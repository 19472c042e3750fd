/* colfs: the Parquet Thrift structures as JSON documents, rendered
 * generically from parquet_desc.c's descriptors: metadata.json, a row
 * group's and a chunk's meta.json (spans of the footer), a chunk's
 * offset_index.json and a page's header.json (regions of the file). */
#include "parquet_json.h"
#include "parquet_pages.h"

#include <jansson.h>
#include <stdlib.h>

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
	json_t *j;

	if (off > s->pf->footer_len || len > s->pf->footer_len - off)
		return COLFS_ECORRUPT;
	if (parquet_region_json(s->pf->footer + off, len, s->pf->footer_offset + off,
			   d, &j, &e))
		return doc_fail(t, file, &e);
	return colfs_buf_json(out, j);
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
	json_t *j;
	colfs_status st;

	if (parquet_region_read(s, off, len, &buf, &e))
		return doc_fail(t, file, &e);
	st = parquet_region_json(buf, (size_t)len, off, d, &j, &e);
	free(buf);
	if (st)
		return doc_fail(t, file, &e);
	return colfs_buf_json(out, j);
}

colfs_status parquet_json_offset_index_gen(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
					      colfs_node_b(file));

	return parquet_json_region_doc(t, file, out,
				       (uint64_t)ch->offset_index_offset,
				       (uint64_t)ch->offset_index_length,
				       &parquet_desc_offset_index);
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
	return parquet_json_region_doc(t, file, out, pg->offset,
				       pg->hdr.header_len,
				       &parquet_desc_page_header);
}


/* colfs: the extended attributes of Parquet's row group, chunk and page
 * directories (tree.h `xattrs`; docs/parquet-tree.md, "Extended
 * attributes").  Everything comes from the footer and the page headers
 * the page walk has read already: no values are decoded.
 */
#include "parquet_tree.h"
#include "parquet_pages.h"

#include <stdio.h>
#include <string.h>

colfs_status parquet_xattr_rg(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	parquet_region_state *s = colfs_node_ctx(n);
	uint64_t g = colfs_node_a(n);
	const parquet_row_group *rg;

	(void)t;
	if (!s->pf || g >= s->pf->n_row_groups)
		return COLFS_OK;
	rg = &s->pf->row_groups[g];
	colfs_xattrs_set(x, "kind", "row_group");
	colfs_xattrs_set(x, "num_rows", "%lld", (long long)rg->num_rows);
	colfs_xattrs_set(x, "chunks", "%u", rg->n_chunks);
	colfs_xattrs_set(x, "uncompressed_size", "%lld",
			 (long long)rg->total_byte_size);
	if (rg->total_compressed_size >= 0)
		colfs_xattrs_set(x, "compressed_size", "%lld",
				 (long long)rg->total_compressed_size);
	return COLFS_OK;
}

/* Statistics.null_count of a chunk, read from its span of the footer
 * (false when absent or the span does not decode). */
static bool chunk_null_count(const parquet_file *pf, const parquet_chunk *ch,
			     int64_t *out)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_err e = {0};
	int16_t last;
	bool found = false;

	if (!ch->has_statistics || ch->stats_span_off > pf->footer_len ||
	    ch->stats_span_len > pf->footer_len - ch->stats_span_off)
		return false;
	colfs_cursor_init(&c, pf->footer + ch->stats_span_off,
			  ch->stats_span_len,
			  pf->footer_offset + ch->stats_span_off);
	colfs_thrift_init(&r, &c);
	if (colfs_thrift_struct_enter(&r, &last, &e))
		return false;
	while (colfs_thrift_field_next(&r, &last, &f, &e) == COLFS_OK) {
		if (f.id == 3 && f.type != COLFS_THRIFT_BINARY) {
			if (colfs_thrift_read_i64(&r, f.type, out, &e))
				return false;
			found = true;
		} else if (colfs_thrift_skip(&r, f.type, &e)) {
			return false;
		}
	}
	return found;
}

static const char *name_or(const char *name, char *tmp, size_t len,
			   int32_t v)
{
	if (name)
		return name;
	snprintf(tmp, len, "%d", v);
	return tmp;
}

colfs_status parquet_xattr_chunk(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	parquet_region_state *s = colfs_node_ctx(n);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(n),
						       colfs_node_b(n));
	colfs_buf enc = COLFS_BUF_INIT;
	char tmp[16];
	int64_t nulls;

	(void)t;
	if (!ch)
		return COLFS_OK;
	colfs_xattrs_set(x, "kind", "chunk");
	if (ch->column < s->pf->n_columns)
		colfs_xattrs_set(x, "column", "%s",
				 s->pf->columns[ch->column].path);
	if (!ch->has_meta) {
		colfs_xattrs_set(x, "encrypted", "%s",
				 ch->encrypted ? "yes" : "no");
		return COLFS_OK;
	}
	colfs_xattrs_range(x, ch->start, ch->length);
	colfs_xattrs_set(x, "type", "%s",
			 name_or(parquet_type_name(ch->type), tmp, sizeof tmp,
				 ch->type));
	colfs_xattrs_set(x, "codec", "%s",
			 name_or(parquet_codec_name(ch->codec), tmp,
				 sizeof tmp, ch->codec));
	for (uint32_t i = 0; i < ch->n_encodings; i++)
		colfs_buf_printf(&enc, "%s%s", i ? "," : "",
				 name_or(parquet_encoding_name(ch->encodings[i]),
					 tmp, sizeof tmp, ch->encodings[i]));
	colfs_buf_putc(&enc, '\0');
	if (colfs_buf_status(&enc) != COLFS_OK) {
		colfs_buf_free(&enc);
		return COLFS_ENOMEM;
	}
	colfs_xattrs_set(x, "encodings", "%s", enc.data);
	colfs_buf_free(&enc);
	colfs_xattrs_set(x, "num_values", "%lld", (long long)ch->num_values);
	colfs_xattrs_set(x, "compressed_size", "%lld",
			 (long long)ch->total_compressed_size);
	colfs_xattrs_set(x, "uncompressed_size", "%lld",
			 (long long)ch->total_uncompressed_size);
	if (chunk_null_count(s->pf, ch, &nulls))
		colfs_xattrs_set(x, "null_count", "%lld", (long long)nulls);
	colfs_xattrs_set(x, "dictionary", "%s",
			 ch->dictionary_page_offset >= 0 ? "yes" : "no");
	colfs_xattrs_set(x, "encrypted", "%s", ch->encrypted ? "yes" : "no");
	return COLFS_OK;
}

colfs_status parquet_xattr_page(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	parquet_region_state *s = colfs_node_ctx(n);
	const parquet_pages_list *pl = NULL;
	uint64_t k = colfs_node_c(n);
	const parquet_page *pg;
	const parquet_page_header *h;
	char tmp[16];

	if (parquet_pages_list_get(t, s, n, (uint32_t)colfs_node_a(n),
				   (uint32_t)colfs_node_b(n), &pl) ||
	    !pl || k >= pl->n)
		return COLFS_OK;
	pg = &pl->pages[k];
	h = &pg->hdr;
	colfs_xattrs_set(x, "kind", "page");
	/* the page as stored: its header, then its compressed bytes (`raw`) */
	colfs_xattrs_range(x, pg->offset,
			   (uint64_t)h->header_len + (uint64_t)h->compressed_size);
	colfs_xattrs_set(x, "page_type", "%s",
			 name_or(parquet_page_type_name(h->type), tmp,
				 sizeof tmp, h->type));
	colfs_xattrs_set(x, "header_length", "%u", h->header_len);
	colfs_xattrs_set(x, "compressed_size", "%d", h->compressed_size);
	colfs_xattrs_set(x, "uncompressed_size", "%d", h->uncompressed_size);
	if (h->has_data_v1 || h->has_data_v2 || h->has_dictionary) {
		colfs_xattrs_set(x, "num_values", "%d", h->num_values);
		colfs_xattrs_set(x, "encoding", "%s",
				 name_or(parquet_encoding_name(h->encoding),
					 tmp, sizeof tmp, h->encoding));
	}
	if (h->has_data_v2) {
		colfs_xattrs_set(x, "num_nulls", "%d", h->num_nulls);
		colfs_xattrs_set(x, "num_rows", "%d", h->num_rows);
	}
	colfs_xattrs_set(x, "crc", "%s", h->has_crc ? "yes" : "no");
	return COLFS_OK;
}

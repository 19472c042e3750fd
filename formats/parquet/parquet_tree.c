/* colfs: the Parquet metadata tree, directories only: the root's entries,
 * row_groups/, chunks/, pages/, bloom_filter/, key_value/, raw/, each
 * with the entries it holds; the documents and views come from the files
 * that own them (docs/parquet-tree.md describes every entry). */
#include "parquet_tree.h"
#include "parquet_bloom.h"
#include "parquet_crypt.h"
#include "parquet_docs.h"
#include "parquet_json.h"
#include "parquet_salvage.h"
#include "parquet_stats.h"
#include "parquet_verify.h"
#include "parquet_views.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const colfs_node_ops metadata_json_ops = {.generate = parquet_json_metadata_gen};
/* the same, of a large footer: a stream of one piece a row group */
static const colfs_node_ops metadata_stream_ops = {
	.piece = parquet_json_metadata_piece, .concurrent = true};
static const colfs_node_ops rg_meta_ops = {.generate = parquet_json_rg_meta_gen};
/* the same, of a RowGroup over 64 KiB of the footer: a report */
static const colfs_node_ops rg_meta_report_ops = {.generate = parquet_json_rg_meta_gen};
static const colfs_node_ops chunk_meta_ops = {.generate = parquet_json_chunk_meta_gen};
static const colfs_node_ops column_index_ops = {.generate = parquet_stats_column_index_gen};
static const colfs_node_ops offset_index_ops = {.generate = parquet_json_offset_index_gen};
static const colfs_node_ops page_header_ops = {.generate = parquet_json_page_header_gen};
static const colfs_node_ops bloom_bitset_ops = {.generate = parquet_bloom_bitset_gen};
static const colfs_node_ops page_decrypted_ops = {.generate = parquet_crypt_page_gen};
static const colfs_node_ops bloom_header_ops = {.generate = parquet_bloom_header_gen};
static const colfs_node_ops stats_ops = {.generate = parquet_stats_statistics_gen};
static const colfs_node_ops summary_ops = {.generate = parquet_docs_summary_gen};
static const colfs_node_ops readme_ops = {.generate = parquet_docs_readme_gen};
static const colfs_node_ops schema_ops = {.generate = parquet_docs_schema_gen};
static const colfs_node_ops schema_json_ops = {.generate = parquet_docs_schema_json_gen};
static const colfs_node_ops layout_ops = {.generate = parquet_docs_layout_gen};
/* the same, of a large footer: a report (tree.h: one piece, made when
 * read; its regions are sorted across the whole file) */
static const colfs_node_ops layout_report_ops = {.generate = parquet_docs_layout_gen};

/* The page walk of the chunk a node names (a, b), or NULL. */
static const parquet_pages_list *chunk_pages(colfs_tree *t, parquet_region_state *s,
				  const colfs_node *n)
{
	const parquet_pages_list *w = NULL;

	if (parquet_pages_list_get(t, s, n, (uint32_t)colfs_node_a(n),
			   (uint32_t)colfs_node_b(n), &w))
		return NULL;
	return w;
}

/* --- directories ------------------------------------------------------------ */

#define ADD(x)                                                              \
	do {                                                                \
		if (!(x))                                                   \
			return COLFS_ENOMEM;                                \
	} while (0)

static colfs_node *add_doc_abc(colfs_tree *t, colfs_node *dir,
			       const char *name, const colfs_node_ops *ops,
			       parquet_region_state *s, uint64_t a, uint64_t b, uint64_t c)
{
	colfs_node *n = colfs_dir_add_doc(t, dir, name, ops, s);
	if (n)
		colfs_node_set_args(n, a, b, c);
	return n;
}

static colfs_node *add_dir_abc(colfs_tree *t, colfs_node *dir,
			       const char *name, const colfs_node_ops *ops,
			       parquet_region_state *s, uint64_t a, uint64_t b, uint64_t c)
{
	colfs_node *n = colfs_dir_add_dir(t, dir, name, ops, s);
	if (n)
		colfs_node_set_args(n, a, b, c);
	return n;
}

static colfs_status page_dir_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	const parquet_pages_list *pl = chunk_pages(t, s, dir);
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir);
	uint64_t k = colfs_node_c(dir);
	const parquet_page *pg;

	if (!pl || k >= pl->n)
		return COLFS_OK;
	pg = &pl->pages[k];
	ADD(add_doc_abc(t, dir, "header.json", &page_header_ops, s, a, b, k));
	ADD(colfs_dir_add_range(t, dir, "raw", pg->offset + pg->hdr.header_len,
				(uint64_t)pg->hdr.compressed_size));
	{
		const parquet_chunk *ch = parquet_region_chunk(s, a, b);
		/* an encrypted page: its data decrypted, beside raw */
		if (ch && ch->dek)
			ADD(add_doc_abc(t, dir, "decrypted", &page_decrypted_ops,
					s, a, b, k));
	}
	COLFS_TRY(parquet_views_page_add(t, dir, s, (uint32_t)a, (uint32_t)b,
				     (size_t)k));
	ADD(colfs_dir_add_errors(t, dir));
	return COLFS_OK;
}

static const colfs_node_ops page_dir_ops = {.populate = page_dir_populate,
					    .xattrs = parquet_xattr_page};

static colfs_status pages_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	uint64_t g = colfs_node_a(dir), c = colfs_node_b(dir);
	const parquet_pages_list *pl = chunk_pages(t, s, dir);

	if (!pl)
		return COLFS_OK;
	for (size_t k = 0; k < pl->n; k++) {
		char name[24];
		snprintf(name, sizeof name, "%zu", k);
		ADD(add_dir_abc(t, dir, name, &page_dir_ops, s, g, c, k));
	}
	return COLFS_OK;
}

static const colfs_node_ops pages_ops = {.populate = pages_populate};

static colfs_status bloom_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(dir),
					      colfs_node_b(dir));
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir);
	colfs_err e = {0};
	uint64_t hlen, start, end;
	int32_t nb;

	ADD(add_doc_abc(t, dir, "header.json", &bloom_header_ops, s, a, b, 0));
	if (parquet_bloom_header_read(s, ch, &hlen, &nb, &e)) {
		colfs_tree_report_err(t, dir, &e);
		return COLFS_OK;
	}
	start = (uint64_t)ch->bloom_filter_offset + hlen;
	/* an encrypted bitset is a module: length, nonce, bits, tag */
	const uint64_t stored = (uint64_t)nb + (ch->dek ? 32 : 0);
	if (colfs_add_overflows(start, stored, &end) || end > s->size) {
		colfs_tree_report(t, dir, start, COLFS_EBOUNDS,
				  "bloom filter bitset of %d bytes runs past the end of the file",
				  nb);
		return COLFS_OK;
	}
	if (ch->bloom_filter_length > 0 &&
	    hlen + stored != (uint64_t)ch->bloom_filter_length)
		colfs_tree_report(t, dir, (uint64_t)ch->bloom_filter_offset,
				  COLFS_ECORRUPT,
				  "bloom_filter_length %d differs from header (%llu) + bitset (%d)",
				  ch->bloom_filter_length,
				  (unsigned long long)hlen, nb);
	if (ch->dek)
		ADD(add_doc_abc(t, dir, "bitset", &bloom_bitset_ops, s, a, b, 0));
	else
		ADD(colfs_dir_add_range(t, dir, "bitset", start, (uint64_t)nb));
	return parquet_bloom_add(t, dir, s, (uint32_t)a, (uint32_t)b, start,
				   (uint32_t)nb);
}

static const colfs_node_ops bloom_ops = {.populate = bloom_populate};

static bool region_in_file(parquet_region_state *s, int64_t off, int64_t len)
{
	uint64_t end;
	return off >= 0 && len >= 0 &&
	       !colfs_add_overflows((uint64_t)off, (uint64_t)len, &end) &&
	       end <= s->size;
}

static colfs_status chunk_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(dir),
					      colfs_node_b(dir));
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir);

	if (!ch)
		return COLFS_OK;
	ADD(add_doc_abc(t, dir, "meta.json", &chunk_meta_ops, s, a, b, 0));
	if (ch->has_statistics || ch->has_geo_statistics)
		ADD(add_doc_abc(t, dir, "statistics.json", &stats_ops, s, a, b,
				0));
	if (ch->has_meta) {
		ADD(colfs_dir_add_range(t, dir, "raw", ch->start, ch->length));
		ADD(add_dir_abc(t, dir, "pages", &pages_ops, s, a, b, 0));
		COLFS_TRY(parquet_views_chunk_add(t, dir, s, (uint32_t)a,
					      (uint32_t)b));
	}
	if (ch->encrypted) {
		/* page index and bloom filter are encrypted modules too */
		if (ch->column_index_offset >= 0 ||
		    ch->offset_index_offset >= 0 || ch->bloom_filter_offset >= 0)
			colfs_tree_report(t, dir, ch->start, COLFS_EUNSUPPORTED,
					  "the column chunk is encrypted: its page index and bloom filter are encrypted too and colfs has no keys");
		return COLFS_OK;
	}
	if (ch->column_index_offset >= 0 && ch->column_index_length > 0) {
		if (region_in_file(s, ch->column_index_offset,
				   ch->column_index_length))
			ADD(add_doc_abc(t, dir, "column_index.json",
					&column_index_ops, s, a, b, 0));
		else
			colfs_tree_report(t, dir,
					  (uint64_t)ch->column_index_offset,
					  COLFS_EBOUNDS,
					  "column index (%d bytes) lies outside the file",
					  ch->column_index_length);
	}
	if (ch->offset_index_offset >= 0 && ch->offset_index_length > 0) {
		if (region_in_file(s, ch->offset_index_offset,
				   ch->offset_index_length))
			ADD(add_doc_abc(t, dir, "offset_index.json",
					&offset_index_ops, s, a, b, 0));
		else
			colfs_tree_report(t, dir,
					  (uint64_t)ch->offset_index_offset,
					  COLFS_EBOUNDS,
					  "offset index (%d bytes) lies outside the file",
					  ch->offset_index_length);
	}
	if (ch->bloom_filter_offset >= 0)
		ADD(add_dir_abc(t, dir, "bloom_filter", &bloom_ops, s, a, b, 0));
	return COLFS_OK;
}

/* Every chunk directory ends with its own `errors` (problems found so far
 * under it: pages, index, bloom filter). */
/* A report stream, not a document: its size is not known without
 * decoding the chunk, and ls -l must not decode (tree.h: one piece, the
 * whole report). */
static const colfs_node_ops verify_ops = {.generate = parquet_verify_gen};

static colfs_status chunk_populate_all(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(dir),
					      colfs_node_b(dir));

	COLFS_TRY(chunk_populate(t, dir));
	if (ch && ch->has_meta && !ch->encrypted)
	{
		colfs_node *n = colfs_dir_add_stream(t, dir, "verify",
						     &verify_ops, s);
		ADD(n);
		colfs_node_set_args(n, colfs_node_a(dir), colfs_node_b(dir), 0);
	}
	ADD(colfs_dir_add_errors(t, dir));
	return COLFS_OK;
}

static const colfs_node_ops chunk_ops = {.populate = chunk_populate_all,
					 .xattrs = parquet_xattr_chunk};

static colfs_status chunks_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	uint64_t g = colfs_node_a(dir);
	const parquet_row_group *rg = &s->pf->row_groups[g];

	for (uint32_t c = 0; c < rg->n_chunks; c++) {
		char tmp[32];
		ADD(add_dir_abc(t, dir, parquet_region_chunk_name(s, rg, c, tmp, sizeof tmp),
				&chunk_ops, s, g, c, 0));
	}
	return COLFS_OK;
}

static const colfs_node_ops chunks_ops = {.populate = chunks_populate};

static colfs_status rg_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);
	uint64_t g = colfs_node_a(dir);

	if (s->pf->row_groups[g].span_len > PARQUET_REGION_LARGE_FOOTER) {
		colfs_node *n = colfs_dir_add_stream(t, dir, "meta.json",
						     &rg_meta_report_ops, s);
		ADD(n);
		colfs_node_set_args(n, g, 0, 0);
	} else {
		ADD(add_doc_abc(t, dir, "meta.json", &rg_meta_ops, s, g, 0, 0));
	}
	ADD(add_dir_abc(t, dir, "chunks", &chunks_ops, s, g, 0, 0));
	COLFS_TRY(parquet_views_table_add(t, dir, s, (int64_t)g));
	ADD(colfs_dir_add_errors(t, dir));
	ADD(colfs_dir_add_layout_svg(t, dir, NULL));
	return COLFS_OK;
}

static const colfs_node_ops rg_ops = {.populate = rg_populate,
				      .xattrs = parquet_xattr_rg};

static colfs_status row_groups_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);

	for (uint32_t g = 0; g < s->pf->n_row_groups; g++) {
		char name[16];
		snprintf(name, sizeof name, "%u", g);
		ADD(add_dir_abc(t, dir, name, &rg_ops, s, g, 0, 0));
	}
	return COLFS_OK;
}

static const colfs_node_ops row_groups_ops = {.populate = row_groups_populate};

static colfs_status kv_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);

	for (uint32_t i = 0; i < s->pf->n_kv; i++) {
		const parquet_kv *kv = &s->pf->kv[i];
		ADD(colfs_dir_add_text(t, dir, kv->key,
				       kv->value ? (const char *)kv->value : "",
				       kv->value_len));
	}
	return COLFS_OK;
}

static const colfs_node_ops kv_ops = {.populate = kv_populate};

static colfs_status raw_populate(colfs_tree *t, colfs_node *dir)
{
	parquet_region_state *s = colfs_node_ctx(dir);

	if (s->size >= 4)
		ADD(colfs_dir_add_range(t, dir, "magic_head", 0, 4));
	if (s->size >= 8) {
		ADD(colfs_dir_add_range(t, dir, "magic_tail", s->size - 4, 4));
		ADD(colfs_dir_add_range(t, dir, "footer_length", s->size - 8,
					4));
	}
	if (s->footer_ok)
		ADD(colfs_dir_add_range(t, dir, "footer", s->footer_offset,
					s->footer_len));
	/* an encrypted footer decrypted: the FileMetaData bytes */
	if (s->footer_decrypted) {
		size_t n;
		const uint8_t *p = parquet_crypt_footer_plain(s->crypt, &n);
		ADD(colfs_dir_add_text(t, dir, "footer.decrypted",
				       (const char *)p, n));
	}
	return COLFS_OK;
}

static const colfs_node_ops raw_ops = {.populate = raw_populate};

/* --- the root ---------------------------------------------------------------- */

colfs_status parquet_tree_root_add(colfs_tree *t, colfs_node *root, parquet_region_state *s)
{
	char fmt[48];

	if (s->pf && parquet_region_footer_plain(s))
		snprintf(fmt, sizeof fmt, "parquet %d\n", s->pf->version);
	else if (s->encrypted_footer)
		snprintf(fmt, sizeof fmt, "parquet encrypted-footer\n");
	else
		snprintf(fmt, sizeof fmt, "parquet unknown\n");

	if (!colfs_dir_add_doc(t, root, "README", &readme_ops, s) ||
	    !colfs_dir_add_text(t, root, "format", fmt, strlen(fmt)) ||
	    !colfs_dir_add_summary(t, root, &summary_ops, s))
		return COLFS_ENOMEM;
	if (s->pf && parquet_region_footer_plain(s)) {
		if (!colfs_dir_add_doc(t, root, "schema", &schema_ops, s) ||
		    !colfs_dir_add_doc(t, root, "schema.json", &schema_json_ops,
				       s))
			return COLFS_ENOMEM;
	}
	if (s->pf && !(parquet_json_metadata_streams(s)
		       ? colfs_dir_add_stream(t, root, "metadata.json",
					      &metadata_stream_ops, s)
		       : colfs_dir_add_doc(t, root, "metadata.json",
					   &metadata_json_ops, s)))
		return COLFS_ENOMEM;
	if (s->pf && s->pf->n_kv &&
	    !colfs_dir_add_dir(t, root, "key_value", &kv_ops, s))
		return COLFS_ENOMEM;
	colfs_node *layout = parquet_region_footer_large(s)
		? colfs_dir_add_stream(t, root, "layout", &layout_report_ops, s)
		: colfs_dir_add_doc(t, root, "layout", &layout_ops, s);
	if (!layout || !colfs_dir_add_layout_svg(t, root, layout) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_dir(t, root, "raw", &raw_ops, s))
		return COLFS_ENOMEM;
	if (s->pf && parquet_region_footer_plain(s) &&
	    !colfs_dir_add_dir(t, root, "row_groups", &row_groups_ops, s))
		return COLFS_ENOMEM;
	if (parquet_views_table_add(t, root, s, -1))
		return COLFS_ENOMEM;
	if (parquet_salvage_wanted(s) && parquet_salvage_add(t, root, s))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

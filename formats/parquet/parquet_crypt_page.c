/* colfs: pages/K/decrypted of an encrypted chunk (parquet_crypt.h): the
 * stored page data, decrypted with the chunk's key. */
#include <stdlib.h>

#include "parquet_crypt.h"
#include "parquet_pages.h"

colfs_status parquet_crypt_page_gen(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	uint32_t g = (uint32_t)colfs_node_a(file), c = (uint32_t)colfs_node_b(file);
	size_t k = (size_t)colfs_node_c(file);
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	const parquet_pages_list *w;
	const parquet_page *pg;
	uint8_t *raw, *plain;
	size_t plen, used;
	colfs_err e = {0};
	colfs_status st;
	int module;

	COLFS_TRY(parquet_pages_list_get(t, s, file, g, c, &w));
	if (!ch || !ch->dek || !w || k >= w->n)
		return COLFS_ENOENT;
	pg = &w->pages[k];
	module = parquet_pages_is_data(pg) ? PARQUET_CRYPT_DATA_PAGE
					   : PARQUET_CRYPT_DICT_PAGE;
	st = parquet_region_read(s, pg->offset + pg->hdr.header_len,
				 (uint64_t)pg->hdr.compressed_size, &raw, &e);
	if (!st) {
		st = parquet_crypt_module(ch->dek, module, ch->rg_ordinal,
					  ch->column, pg->ordinal, raw,
					  (size_t)pg->hdr.compressed_size,
					  pg->offset + pg->hdr.header_len,
					  &plain, &plen, &used, &e);
		free(raw);
	}
	if (st) {
		parquet_region_part_report(t, s, g, c, k, file, &e);
		return st;
	}
	colfs_buf_append(out, plain, plen);
	free(plain);
	return colfs_buf_status(out);
}

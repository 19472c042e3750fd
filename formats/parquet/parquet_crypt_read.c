/* colfs: encrypted Parquet modules read from the file (parquet_crypt.h):
 * a region read and decrypted as one module, a page's header, and the
 * problems of single chunks the footer's decryption found, filed once
 * the tree has their place.  The ciphers and keys are parquet_crypt.c's,
 * which reads nothing of the file itself. */
#include <stdlib.h>

#include "parquet_crypt.h"
#include "parquet_pages.h"

colfs_status parquet_crypt_read(parquet_region_state *s,
				const parquet_chunk *ch, int module,
				uint64_t off, uint64_t len, uint8_t **out,
				size_t *out_len, colfs_err *e)
{
	uint8_t *raw, *plain;
	size_t plen, used;
	colfs_status st;

	COLFS_TRY(parquet_region_read(s, off, len, &raw, e));
	if (!ch->dek) {
		*out = raw;
		*out_len = (size_t)len;
		return COLFS_OK;
	}
	st = parquet_crypt_module(ch->dek, module, ch->rg_ordinal, ch->column,
				  0, raw, (size_t)len, off, &plain, &plen,
				  &used, e);
	free(raw);
	if (st)
		return st;
	*out = plain;
	*out_len = plen;
	return COLFS_OK;
}

colfs_status parquet_crypt_read_page_header(parquet_region_state *s,
					    const parquet_chunk *ch,
					    const parquet_page *pg,
					    uint8_t **out, size_t *out_len,
					    colfs_err *e)
{
	uint8_t *raw;
	size_t used;
	colfs_status st;

	COLFS_TRY(parquet_region_read(s, pg->offset, pg->hdr.header_len, &raw,
				      e));
	st = parquet_crypt_module(ch->dek,
				  pg->hdr.type == PARQUET_PAGE_DICTIONARY
					  ? PARQUET_CRYPT_DICT_PAGE_HEADER
					  : PARQUET_CRYPT_DATA_PAGE_HEADER,
				  ch->rg_ordinal, ch->column, pg->ordinal, raw,
				  pg->hdr.header_len, pg->offset, out, out_len,
				  &used, e);
	free(raw);
	return st;
}

typedef struct crypt_report {
	colfs_tree *t;
	parquet_region_state *s;
} crypt_report;

static void report_chunk(void *ctx, uint32_t g, uint32_t col,
			 const colfs_err *e)
{
	crypt_report *r = ctx;
	parquet_region_part_report(r->t, r->s, g, col, PARQUET_REGION_NO_PAGE,
				   colfs_tree_root(r->t), e);
}

void parquet_crypt_report_chunks(colfs_tree *t, parquet_region_state *s)
{
	crypt_report r = {t, s};
	parquet_crypt_pending_drain(s->crypt, report_chunk, &r);
}

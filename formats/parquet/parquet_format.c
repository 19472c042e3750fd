/* colfs: the Parquet format module's entry: probe, open (the state, the
 * head magic, the footer through pq_footer_read, the page pipeline, then
 * the tree of parquet_tree.c) and close; its format table is listed in
 * formats/core/registry.c. */
#include "parquet_pages.h"
#include "parquet_salvage.h"
#include "parquet_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_magic(const uint8_t *p)
{
	return memcmp(p, "PAR1", 4) == 0 || memcmp(p, "PARE", 4) == 0;
}

static bool pq_probe(const uint8_t *head, size_t head_len, const uint8_t *tail,
		     size_t tail_len, uint64_t size)
{
	/* A file that starts like Parquet is claimed even when its tail is
	 * damaged, and one that ends like Parquet (where readers look
	 * first) even when its head is damaged, so that the damage can be
	 * shown. */
	if (head_len >= 4 && is_magic(head))
		return true;
	return size >= 12 && tail_len >= 4 && is_magic(tail + tail_len - 4);
}

static void report_cb(void *ctx, const colfs_err *err)
{
	colfs_tree_report_err(ctx, NULL, err);
}

static void pq_close(void *state)
{
	pq_state *s = state;

	if (!s)
		return;
	pq_salvage_destroy(s->salvage);
	pqv_state_destroy(s->values);
	parquet_file_destroy(s->pf);
	free(s);
}

/* Find and decode the footer; every problem is reported, none fails. */
static colfs_status read_footer(colfs_tree *t, pq_state *s)
{
	uint8_t tail[8], *footer;
	colfs_err e = {0};
	colfs_status st;
	uint32_t flen;

	if (s->size < 12) {
		colfs_tree_report(t, NULL, 0, COLFS_ETRUNCATED,
				  "file of %llu bytes is too short for Parquet (head magic, footer length and tail magic need 12)",
				  (unsigned long long)s->size);
		return COLFS_OK;
	}
	st = colfs_source_read_at(s->src, s->size - 8, 8, tail, &e);
	if (st) {
		colfs_tree_report_err(t, NULL, &e);
		return st == COLFS_EIO ? st : COLFS_OK;
	}
	memcpy(s->tail_magic, tail + 4, 4);
	if (memcmp(tail + 4, "PAR1", 4) && memcmp(tail + 4, "PARE", 4)) {
		colfs_tree_report(t, NULL, s->size - 4, COLFS_ECORRUPT,
				  "tail magic is %02x %02x %02x %02x, expected \"PAR1\" or \"PARE\": no footer can be located",
				  tail[4], tail[5], tail[6], tail[7]);
		return COLFS_OK;
	}
	s->encrypted_footer = memcmp(tail + 4, "PARE", 4) == 0;
	if (memcmp(s->head_magic, tail + 4, 4))
		colfs_tree_report(t, NULL, 0, COLFS_ECORRUPT,
				  "head magic %02x %02x %02x %02x differs from tail magic \"%.4s\"",
				  s->head_magic[0], s->head_magic[1],
				  s->head_magic[2], s->head_magic[3],
				  (const char *)s->tail_magic);
	flen = colfs_le32(tail);
	s->footer_len_field = flen;
	if ((uint64_t)flen > s->size - 12) {
		colfs_tree_report(t, NULL, s->size - 8, COLFS_EBOUNDS,
				  "footer length %u is larger than the %llu bytes between the magics",
				  flen, (unsigned long long)(s->size - 12));
		return COLFS_OK;
	}
	s->footer_offset = s->size - 8 - flen;
	s->footer_len = flen;
	st = pq_read_region(s, s->footer_offset, flen, &footer, &e);
	if (st) {
		colfs_tree_report_err(t, NULL, &e);
		return st == COLFS_EIO ? st : COLFS_OK;
	}
	s->footer_ok = true;
	st = parquet_file_parse(footer, flen, s->footer_offset, s->size,
				s->encrypted_footer, report_cb, t, &s->pf, &e);
	free(footer);
	if (st == COLFS_ENOMEM)
		return st;
	if (st) {
		colfs_tree_report_err(t, NULL, &e);
		if (s->pf && !s->pf->n_schema && !s->pf->n_row_groups &&
		    !s->encrypted_footer) {
			/* nothing usable: keep the raw footer only */
			parquet_file_destroy(s->pf);
			s->pf = NULL;
		}
	}
	if (s->encrypted_footer)
		colfs_tree_report(t, NULL, s->footer_offset, COLFS_EUNSUPPORTED,
				  "the footer is encrypted (PARE, Parquet modular encryption) and colfs has no keys: schema, row groups and pages cannot be shown");
	return COLFS_OK;
}

static colfs_status pq_open(colfs_tree *t, colfs_err *err)
{
	colfs_node *root = colfs_tree_root(t);
	pq_state *s;
	colfs_status st;

	s = calloc(1, sizeof *s);
	if (!s)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	s->src = colfs_tree_source(t);
	s->size = colfs_source_size(s->src);
	s->max_alloc = colfs_tree_options(t)->max_alloc;
	if (!s->max_alloc)
		s->max_alloc = 1ull << 30;
	colfs_tree_set_format_state(t, s);
	if (s->size >= 4) {
		st = colfs_source_read_at(s->src, 0, 4, s->head_magic, err);
		if (st)
			return st;
	}
	st = read_footer(t, s);
	if (st)
		return colfs_fail(err, st, s->size, "cannot read the footer");

	if (pqv_state_create(s, &s->values) ||
	    pq_tree_root_add(t, root, s))
		return colfs_fail(err, COLFS_ENOMEM, 0,
				  "out of memory building the tree");
	return COLFS_OK;
}

const colfs_format colfs_format_parquet = {
	.name = "parquet",
	.probe = pq_probe,
	.open = pq_open,
	.close = pq_close,
};

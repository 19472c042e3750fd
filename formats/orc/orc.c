/* colfs ORC: the format table (probe, open, close).  Open reads the tail
 * and chooses the tree: the normal one (orc_tree.c), or salvage/
 * (orc_salvage.c) when the tail cannot be read. */
#include "orc_internal.h"

#include <stdlib.h>
#include <string.h>

static bool orc_probe(const uint8_t *head, size_t head_len,
		      const uint8_t *tail, size_t tail_len, uint64_t size)
{
	(void)tail;
	(void)tail_len;
	(void)size;
	/* Every ORC file starts with the header "ORC"; the PostScript's own
	 * magic is checked at open. */
	return head_len >= 3 && memcmp(head, "ORC", 3) == 0;
}

static void orc_close(void *state)
{
	orc_file *f = state;

	if (!f)
		return;
	orc_salvage_free(f);
	orc_verify_free(f);
	for (orc_view *v = f->views; v; v = v->next)
		orc_read_view_free(v);
	for (orc_sdec *d = f->sdecs; d; d = d->next)
		orc_sdec_free_state(d);
	for (size_t s = 0; s < f->n_stripes && f->stripes; s++) {
		colfs_proto_free(&f->stripes[s].footer);
		free(f->stripes[s].streams);
		free(f->stripes[s].enc);
	}
	free(f->stripes);
	colfs_proto_free(&f->meta_msg);
	colfs_proto_free(&f->footer_msg);
	colfs_proto_free(&f->ps_msg);
	orc_tz_free_all(f);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static colfs_status orc_open(colfs_tree *t, colfs_err *err)
{
	orc_file *f = calloc(1, sizeof(*f));
	colfs_err terr = {0};
	colfs_status st;

	if (!f)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	pthread_mutex_init(&f->lock, NULL);
	f->tree = t;
	f->src = colfs_tree_source(t);
	f->size = colfs_source_size(f->src);
	f->max_alloc = colfs_tree_options(t)->max_alloc;
	colfs_tree_set_format_state(t, f);

	st = orc_tail_read(f, &terr);
	if (st) {
		/* Without a footer there is no tree to show but the raw
		 * tail, the errors and salvage/ (the file starts with "ORC":
		 * the probe saw it). */
		colfs_tree_report_err(t, NULL, &terr);
		colfs_tree_report(t, NULL, terr.offset, terr.status,
				  "the file tail (PostScript and Footer) "
				  "cannot be read; stripes can be recovered "
				  "under salvage/ (with -o schema_from)");
		f->footer = NULL;
	}
	COLFS_TRY(orc_tree_build_common(f, colfs_tree_root(t)));
	if (!f->footer)
		return orc_salvage_add(f, colfs_tree_root(t));
	return orc_tree_build(f, colfs_tree_root(t));
}

const colfs_format colfs_format_orc = {
	.name = "orc",
	.probe = orc_probe,
	.open = orc_open,
	.close = orc_close,
};

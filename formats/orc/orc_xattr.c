/* colfs: the extended attributes of ORC's stripe and stream directories
 * (tree.h `xattrs`; docs/orc-tree.md, "Extended attributes").  From the
 * file footer and the stripe footer (which listing streams/ reads
 * anyway): no values are decoded.
 */
#include "orc_internal.h"

colfs_status orc_xattr_stripe(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	orc_file *f = colfs_node_ctx(n);
	uint64_t s = colfs_node_a(n);
	const Orcpb__StripeInformation *si;
	uint64_t len = 0;

	(void)t;
	if (!f->footer || s >= f->n_stripes || s >= f->footer->n_stripes)
		return COLFS_OK;
	si = f->footer->stripes[s];
	colfs_xattrs_set(x, "kind", "stripe");
	/* index, data and footer in turn (the `layout` lines of the stripe) */
	if (!colfs_add_overflows(si->indexlength, si->datalength, &len) &&
	    !colfs_add_overflows(len, si->footerlength, &len))
		colfs_xattrs_range(x, si->offset, len);
	colfs_xattrs_set(x, "index_length", "%llu",
			 (unsigned long long)si->indexlength);
	colfs_xattrs_set(x, "data_length", "%llu",
			 (unsigned long long)si->datalength);
	colfs_xattrs_set(x, "footer_length", "%llu",
			 (unsigned long long)si->footerlength);
	colfs_xattrs_set(x, "num_rows", "%llu",
			 (unsigned long long)si->numberofrows);
	if (f->ps)
		colfs_xattrs_set(x, "codec", "%s",
				 orc_tail_compression_name(f->ps->compression));
	return COLFS_OK;
}

colfs_status orc_xattr_stream(colfs_tree *t, colfs_node *n, colfs_xattrs *x)
{
	orc_file *f = colfs_node_ctx(n);
	orc_stripe *sp;
	colfs_err err = {0};
	const orc_stream_loc *l;
	const Orcpb__StripeFooter *sf;
	uint64_t k = colfs_node_b(n);

	(void)t;
	if (orc_tail_stripe_load(f, (size_t)colfs_node_a(n), &sp, &err))
		return COLFS_OK;
	if (k < sp->n_streams)
		l = &sp->streams[k];
	else if (k - sp->n_streams < sp->n_enc)
		l = &sp->enc[k - sp->n_streams];
	else
		return COLFS_OK;
	colfs_xattrs_set(x, "kind", "stream");
	colfs_xattrs_range(x, l->offset, l->length);
	colfs_xattrs_set(x, "stream_kind", "%s",
			 orc_tail_stream_kind_name(l->kind));
	colfs_xattrs_set(x, "column", "%u", l->column);
	if (f->ps)
		colfs_xattrs_set(x, "codec", "%s",
				 orc_tail_compression_name(f->ps->compression));
	sf = (const Orcpb__StripeFooter *)sp->footer.msg;
	if (k < sp->n_streams && sf && l->column < sf->n_columns &&
	    sf->columns[l->column])
		colfs_xattrs_set(x, "encoding", "%s",
				 orc_tail_encoding_name(
					 sf->columns[l->column]->kind));
	return COLFS_OK;
}

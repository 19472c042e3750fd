/* colfs ORC: the mounted tree of an ORC file (docs/orc-tree.md).
 *
 * Listing reads only the file tail, which the open has decoded; a stripe's
 * footer is read when its streams/ or indexes/ directory (or footer.json)
 * is first looked at.  Values are decoded only by the streamed views
 * (orc_read.c). */
#include "orc_in.h"
#include "orc_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static orc_file *file_of(colfs_tree *t)
{
	return colfs_tree_format_state(t);
}

static colfs_status json_out(colfs_buf *out, json_t *j)
{
	if (!j)
		return COLFS_ENOMEM;
	return colfs_buf_json(out, j);
}

#define DIR_OPS(name) \
	static const colfs_node_ops name = {.populate = name##_populate}
#define DOC_OPS(name) \
	static const colfs_node_ops name = {.generate = name##_generate}

/* --- top-level documents ----------------------------------------------- */

static void software_version(const orc_file *f, colfs_buf *out)
{
	colfs_buf_puts(out, orc_tail_writer_name(f->footer->writer));
	if (f->footer->softwareversion)
		colfs_buf_printf(out, " %s", f->footer->softwareversion);
}

static colfs_status format_doc_generate(colfs_tree *t, colfs_node *n,
					colfs_buf *out)
{
	orc_file *f = file_of(t);
	char v[32];

	(void)n;
	if (!f->ps) {
		colfs_buf_puts(out, "orc (version unknown: the PostScript "
				    "cannot be read)\n");
		return colfs_buf_status(out);
	}
	orc_tail_format_version(f, v, sizeof(v));
	colfs_buf_printf(out, "orc %s", v);
	if (f->footer) {
		colfs_buf_puts(out, " (");
		software_version(f, out);
		colfs_buf_printf(out, ", writer version %s)",
				 orc_tail_writer_version_name(f->ps->writerversion));
	}
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}
DOC_OPS(format_doc);

static colfs_status summary_doc_generate(colfs_tree *t, colfs_node *n,
					 colfs_buf *out)
{
	orc_file *f = file_of(t);
	const Orcpb__Footer *ft = f->footer;
	char v[32];
	size_t n_user = ft->n_metadata;

	(void)n;
	orc_tail_format_version(f, v, sizeof(v));
	colfs_buf_printf(out, "file length: %llu\n",
			 (unsigned long long)f->size);
	colfs_buf_printf(out, "format version: %s\n", v);
	colfs_buf_printf(out, "writer version: %s\n",
			 orc_tail_writer_version_name(f->ps->writerversion));
	colfs_buf_puts(out, "software version: ");
	software_version(f, out);
	colfs_buf_putc(out, '\n');
	colfs_buf_printf(out, "compression: %s\n",
			 orc_tail_compression_name(f->ps->compression));
	colfs_buf_printf(out, "compression block size: %llu\n",
			 (unsigned long long)f->block_size);
	colfs_buf_printf(out, "rows: %llu\n", (unsigned long long)f->num_rows);
	colfs_buf_printf(out, "row index stride: %u\n", ft->rowindexstride);
	colfs_buf_printf(out, "content length: %llu\n",
			 (unsigned long long)ft->contentlength);
	colfs_buf_printf(out, "stripe statistics length: %llu\n",
			 (unsigned long long)f->meta_len);
	colfs_buf_printf(out, "footer length: %llu\n",
			 (unsigned long long)f->footer_len);
	colfs_buf_printf(out, "postscript length: %u\n", f->ps_len);
	colfs_buf_printf(out, "columns: %zu\n", f->n_types);
	colfs_buf_printf(out, "stripes: %zu\n", f->n_stripes);
	colfs_buf_puts(out, "type: ");
	if (f->schema_ok)
		orc_tail_type_string(f, 0, out);
	else
		colfs_buf_puts(out, "(unreadable)");
	colfs_buf_putc(out, '\n');
	colfs_buf_printf(out, "user metadata: %zu keys", n_user);
	for (size_t i = 0; i < n_user; i++)
		colfs_buf_printf(out, "%s %s (%zu bytes)", i ? "," : "",
				 ft->metadata[i]->name ? ft->metadata[i]->name
						       : "",
				 ft->metadata[i]->value.len);
	colfs_buf_putc(out, '\n');
	if (ft->encryption) {
		const Orcpb__Encryption *en = ft->encryption;

		colfs_buf_printf(out, "encryption: %zu variants, %zu keys\n",
				 en->n_variants, en->n_key);
		for (size_t i = 0; i < en->n_variants; i++) {
			const Orcpb__EncryptionVariant *ev = en->variants[i];
			const char *key =
				ev->key < en->n_key && en->key[ev->key]->keyname
					? en->key[ev->key]->keyname
					: "?";

			colfs_buf_printf(out,
					 "encrypted column %u: key %s; values "
					 "shown are the writer's masked "
					 "values, the real ones cannot be "
					 "read without the key\n",
					 ev->root, key);
		}
	}
	for (size_t s = 0; s < f->n_stripes; s++) {
		const Orcpb__StripeInformation *si = ft->stripes[s];
		uint64_t len = si->indexlength + si->datalength +
			       si->footerlength;

		colfs_buf_printf(out,
				 "stripe %zu: rows %llu offset %llu length "
				 "%llu index %llu data %llu footer %llu\n",
				 s, (unsigned long long)si->numberofrows,
				 (unsigned long long)si->offset,
				 (unsigned long long)len,
				 (unsigned long long)si->indexlength,
				 (unsigned long long)si->datalength,
				 (unsigned long long)si->footerlength);
	}
	return colfs_buf_status(out);
}
DOC_OPS(summary_doc);

static colfs_status schema_doc_generate(colfs_tree *t, colfs_node *n,
					colfs_buf *out)
{
	orc_file *f = file_of(t);

	(void)n;
	if (!f->schema_ok)
		return COLFS_ECORRUPT;
	orc_tail_type_string(f, 0, out);
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}
DOC_OPS(schema_doc);

static json_t *type_json(const orc_file *f, uint32_t id, const char *name,
			 unsigned depth)
{
	const Orcpb__Type *ty = f->footer->types[id];
	json_t *o = json_object();
	colfs_buf b = COLFS_BUF_INIT;

	if (!o)
		return NULL;
	if (name)
		json_object_set_new(o, "name", colfs_proto_json_text(
					    (const uint8_t *)name, strlen(name)));
	json_object_set_new(o, "id", json_integer(id));
	json_object_set_new(o, "kind",
			    json_string(orc_tail_type_kind_name(ty->kind)));
	orc_tail_type_string(f, id, &b);
	if (!colfs_buf_status(&b))
		json_object_set_new(o, "type",
				    colfs_proto_json_text(
					    (const uint8_t *)b.data, b.len));
	colfs_buf_free(&b);
	if (ty->has_maximumlength)
		json_object_set_new(o, "maximumLength",
				    json_integer(ty->maximumlength));
	if (ty->has_precision)
		json_object_set_new(o, "precision",
				    json_integer(ty->precision));
	if (ty->has_scale)
		json_object_set_new(o, "scale", json_integer(ty->scale));
	if (ty->n_attributes) {
		json_t *a = json_object();

		for (size_t i = 0; i < ty->n_attributes; i++) {
			const Orcpb__StringPair *sp = ty->attributes[i];
			const char *v = sp->value ? sp->value : "";

			json_object_set_new(a, sp->key ? sp->key : "",
					    colfs_proto_json_text(
					    (const uint8_t *)v, strlen(v)));
		}
		json_object_set_new(o, "attributes", a);
	}
	if (ty->n_subtypes && depth < ORC_MAX_DEPTH) {
		json_t *c = json_array();

		for (size_t i = 0; i < ty->n_subtypes; i++) {
			const char *fn = NULL;

			if (ty->kind == ORCPB__TYPE__KIND__STRUCT)
				fn = ty->fieldnames[i];
			else if (ty->kind == ORCPB__TYPE__KIND__MAP)
				fn = i == 0 ? "key" : "value";
			else if (ty->kind == ORCPB__TYPE__KIND__LIST)
				fn = "element";
			json_array_append_new(
				c, type_json(f, ty->subtypes[i], fn,
					     depth + 1));
		}
		json_object_set_new(o, "children", c);
	}
	return o;
}

static colfs_status schema_json_doc_generate(colfs_tree *t, colfs_node *n,
					     colfs_buf *out)
{
	orc_file *f = file_of(t);

	(void)n;
	if (!f->schema_ok)
		return COLFS_ECORRUPT;
	return json_out(out, type_json(f, 0, NULL, 0));
}
DOC_OPS(schema_json_doc);

/* The tail documents: a = which message (metadata.json shows all three). */
enum orc_tree_msg {
	ORC_TREE_MSG_POSTSCRIPT = 0,
	ORC_TREE_MSG_FOOTER,
	ORC_TREE_MSG_METADATA,
	ORC_TREE_MSG_ALL,
};

/* indexes/<column>/ documents: c = which index */
enum orc_tree_index { ORC_TREE_INDEX_ROW = 0, ORC_TREE_INDEX_BLOOM };

/* columns/: a = stripe + 1, or this for the whole file */
#define ORC_TREE_COLUMNS_FILE 0


static colfs_status msg_doc_generate(colfs_tree *t, colfs_node *n,
				     colfs_buf *out)
{
	orc_file *f = file_of(t);
	json_t *j;

	switch ((enum orc_tree_msg)colfs_node_a(n)) {
	case ORC_TREE_MSG_POSTSCRIPT:
		return json_out(out, colfs_proto_json(f->ps_msg.msg, NULL));
	case ORC_TREE_MSG_FOOTER:
		return json_out(out, colfs_proto_json(f->footer_msg.msg, NULL));
	case ORC_TREE_MSG_METADATA:
		if (!f->meta)
			return json_out(out, json_pack("{s:b}", "available",
						       0));
		return json_out(out, colfs_proto_json(f->meta_msg.msg, NULL));
	case ORC_TREE_MSG_ALL:
	default:
		j = json_object();
		if (!j)
			return COLFS_ENOMEM;
		json_object_set_new(j, "postscript",
				    colfs_proto_json(f->ps_msg.msg, NULL));
		json_object_set_new(j, "footer",
				    colfs_proto_json(f->footer_msg.msg, NULL));
		json_object_set_new(j, "metadata",
				    f->meta ? colfs_proto_json(f->meta_msg.msg, NULL)
					    : json_null());
		return json_out(out, j);
	}
}
DOC_OPS(msg_doc);

static json_t *stats_json(const orc_file *f,
			  Orcpb__ColumnStatistics *const *st, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n && a; i++) {
		json_t *o = colfs_proto_json(&st[i]->base, NULL);

		if (o) {
			json_object_set_new(o, "column", json_integer(i));
			if (f->schema_ok && i < f->n_types) {
				colfs_buf b = COLFS_BUF_INIT;

				orc_tail_type_string(f, (uint32_t)i, &b);
				if (!colfs_buf_status(&b))
					json_object_set_new(
						o, "type",
						colfs_proto_json_text(
							(const uint8_t *)b.data,
							b.len));
				colfs_buf_free(&b);
			}
		}
		json_array_append_new(a, o);
	}
	return a;
}

static colfs_status file_stats_doc_generate(colfs_tree *t, colfs_node *n,
					    colfs_buf *out)
{
	orc_file *f = file_of(t);

	(void)n;
	return json_out(out, stats_json(f, f->footer->statistics,
					f->footer->n_statistics));
}
DOC_OPS(file_stats_doc);

/* --- layout ----------------------------------------------------------------- */

static colfs_status layout_doc_generate(colfs_tree *t, colfs_node *n,
					colfs_buf *out)
{
	orc_file *f = file_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;
	uint8_t head[3];

	(void)n;
	if (f->size >= 3 &&
	    colfs_source_read_at(f->src, 0, 3, head, NULL) == COLFS_OK &&
	    memcmp(head, "ORC", 3) == 0)
		colfs_layout_add(&l, 0, 3, "magic", "/raw/magic");
	for (size_t s = 0; f->footer && s < f->n_stripes; s++) {
		const Orcpb__StripeInformation *si = f->footer->stripes[s];

		colfs_layout_add(&l, si->offset, si->indexlength,
				 "stripe_index", "/stripes/%zu", s);
		colfs_layout_add(&l, si->offset + si->indexlength,
				 si->datalength, "stripe_data", "/stripes/%zu",
				 s);
		colfs_layout_add(&l,
				 si->offset + si->indexlength + si->datalength,
				 si->footerlength, "stripe_footer",
				 "/stripes/%zu/footer.json", s);
	}
	if (f->meta_len)
		colfs_layout_add(&l, f->meta_off, f->meta_len, "metadata",
				 "/raw/metadata");
	colfs_layout_add(&l, f->footer_off, f->footer_len, "footer",
			 "/raw/footer");
	colfs_layout_add(&l, f->ps_off, f->ps_len, "postscript",
			 "/raw/postscript");
	colfs_layout_add(&l, f->size - 1, 1, "postscript_length",
			 "/raw/postscript_length");
	return colfs_layout_write(&l, f->size, out);
}
DOC_OPS(layout_doc);

/* Which stream and index entries exist in some stripe: the README lists
 * those (the stripe footers are metadata; each is read once and kept). */
typedef struct readme_has {
	bool raw, dec, sdec, stream, ri, bf;
} readme_has;

static readme_has readme_scan(orc_file *f)
{
	readme_has h = {0};

	for (size_t s = 0; s < f->n_stripes; s++) {
		orc_stripe *sp;
		colfs_err err = {0};

		if (orc_tail_stripe_load(f, s, &sp, &err))
			continue;
		for (size_t i = 0; i < sp->n_streams; i++) {
			const orc_stream_loc *l = &sp->streams[i];
			bool enc = l->kind ==
					   ORCPB__STREAM__KIND__ENCRYPTED_INDEX ||
				   l->kind == ORCPB__STREAM__KIND__ENCRYPTED_DATA;
			bool v2;

			h.stream = true;
			h.raw |= l->in_file;
			h.dec |= l->in_file && !enc;
			if (!enc)
				h.sdec |= orc_sdec_kind_of(f, sp, i, &v2) !=
					  ORC_SDEC_NONE;
			h.ri |= l->kind == ORCPB__STREAM__KIND__ROW_INDEX;
			h.bf |= l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER ||
				l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8;
		}
		for (size_t i = 0; i < sp->n_enc; i++) {
			h.stream = true;
			h.raw |= sp->enc[i].in_file;
		}
	}
	return h;
}

static colfs_status readme_doc_generate(colfs_tree *t, colfs_node *n,
					colfs_buf *out)
{
	orc_file *f = file_of(t);
	bool ft = f->footer != NULL;
	readme_has h = ft && f->n_stripes ? readme_scan(f) : (readme_has){0};
	/* columns_dir_populate: a view per field of a struct root, else one */
	bool fields = f->schema_ok &&
		      (f->footer->types[0]->kind != ORCPB__TYPE__KIND__STRUCT ||
		       f->footer->types[0]->n_subtypes > 0);
	bool st = ft && f->n_stripes;
	bool arrays = ft && orc_arrays_any(f);
	char about[160], stripes[64];

	(void)n;
	if (ft)
		snprintf(about, sizeof(about),
			 "It holds %llu rows in %zu stripes; %zu columns "
			 "(types) in the schema.\n\n",
			 (unsigned long long)f->num_rows, f->n_stripes,
			 f->n_types);
	else
		snprintf(about, sizeof(about),
			 "Its tail (PostScript, Footer) cannot be read (see "
			 "errors).\n\n");
	snprintf(stripes, sizeof(stripes), "the %zu stripes, numbered from 0",
		 f->n_stripes);
	const colfs_readme_row rows[] = {
		{true, 0, "raw/", false, "the stored bytes of the tail sections"},
		{f->size >= 3, 1, "magic", false,
		 "the leading \"ORC\" (when the file starts with it)"},
		{f->ps_msg.msg, 1, "postscript", false, "the PostScript"},
		{f->ps_msg.msg, 1, "footer", false, "the Footer"},
		{f->ps_msg.msg, 1, "metadata", false,
		 "the Metadata (stripe statistics)"},
		{f->size > 0, 1, "postscript_length", false,
		 "the last byte: the PostScript's length"},
		{!ft, 0, "salvage/", false,
		 "summary of the stripe footers found by scanning; with -o schema_from=OTHER.orc: columns/, rows.jsonl, rows.csv and stripes/N/ (as in a whole file) of the recovered stripes"},
		{ft, 0, "summary", false,
		 "the facts orc-metadata prints: rows, stripes, codec, sizes"},
		{ft && f->schema_ok, 0, "schema", false,
		 "the type in Hive notation (struct<...>)"},
		{ft && f->schema_ok, 0, "schema.json", false,
		 "the type tree as JSON, with type ids"},
		{ft, 0, "postscript.json", false, "the PostScript, every field"},
		{ft, 0, "footer.json", false, "the file Footer, every field"},
		{ft, 0, "metadata.json", false,
		 "PostScript + Footer + Metadata (stripe statistics)"},
		{ft, 0, "statistics.json", false,
		 "file-level column statistics, one per column id"},
		{ft && f->footer->n_metadata, 0, "user_metadata/", false,
		 "the user metadata"},
		{ft && f->footer->n_metadata, 1, "<key>", false,
		 "one file per key, the value bytes"},
		{ft, 0, "columns/", false, "the values of each top-level field"},
		{ft && fields, 1, "<field>", true,
		 "one row per line (docs/values.md); nested values as compact JSON"},
		{ft && f->schema_ok, 0, "arrays/", false,
		 "the fixed-width top-level fields as NumPy .npy arrays (docs/values.md, \"Arrays\")"},
		{ft && f->schema_ok, 1, "README", false,
		 "each array's NumPy type and the ORC type it comes from"},
		{ft && arrays, 1, "<field>.npy", true,
		 "one fixed-width top-level field, a value a row, its size exact from the metadata; <field>.nulls.npy beside it unless the statistics say no NULL, True for NULL"},
		{ft && f->schema_ok, 0, "rows.jsonl", true,
		 "every row as orc-contents prints it"},
		{ft && f->schema_ok, 0, "rows.csv", true,
		 "a header, then one CSV record per row (RFC 4180, docs/values.md)"},
		{ft, 0, "stripes/", false, stripes},
		{st, 1, "N/", false, "stripe N"},
		{st, 2, "info.json", false,
		 "the StripeInformation: offset, lengths, rows"},
		{st, 2, "footer.json", false,
		 "the StripeFooter: streams, encodings, time zone"},
		{st, 2, "statistics.json", false, "the stripe's column statistics"},
		{st, 2, "layout.svg", false,
		 "the picture of the stripe's regions of `layout`"},
		{st, 2, "columns/", false,
		 "the stripe's values of each top-level field"},
		{st && fields, 3, "<field>", true, "one row per line"},
		{st && f->schema_ok, 2, "arrays/", false,
		 "the stripe's fixed-width fields as NumPy arrays"},
		{st && f->schema_ok, 3, "README", false,
		 "each array's NumPy type and the ORC type it comes from"},
		{st && arrays, 3, "<field>.npy", true,
		 "one fixed-width top-level field, a value a row; <field>.nulls.npy beside a nullable one"},
		{st && f->schema_ok, 2, "rows.jsonl", true,
		 "the stripe's rows as orc-contents prints them"},
		{st && f->schema_ok, 2, "rows.csv", true,
		 "the stripe's rows as CSV, a header first"},
		{st, 2, "streams/", false,
		 "one directory per stream of the stripe footer"},
		{h.stream, 3, "<stream>/", false,
		 "named <ordinal>-<column>-<KIND> (encrypted-<variant>-<index>-<column>-<KIND>: an encrypted variant's stream, raw only)"},
		{h.raw, 4, "raw", false,
		 "the stored bytes (when inside the stripe and the file)"},
		{h.dec, 4, "decompressed", true, "the bytes after the file's codec"},
		{h.sdec, 4, "decoded", true,
		 "the stream decoded by its encoding, one value per line (integer, length and present streams)"},
		{h.stream, 4, "errors", false,
		 "the problems found so far in this stream"},
		{st, 2, "indexes/", false,
		 "one directory per column with a row index or bloom filter"},
		{h.ri || h.bf, 3, "<column>/", false, "named by column id"},
		{h.ri, 4, "row_index.json", false,
		 "the RowIndex: positions and statistics per row stride"},
		{h.bf, 4, "bloom_filter.json", false, "the BloomFilterIndex"},
		{st && f->schema_ok && f->ps, 2, "verify", true,
		 "the row index and the stripe statistics checked against the stripe's values"},
		{st, 2, "errors", false, "the problems found so far in this stripe"},
		{ft && f->schema_ok, 0, "verify", true,
		 "the file statistics checked against the decoded values"},
	};
	const colfs_readme r = {
		.what = "an Apache ORC file",
		.about = about,
		.format_text = "the file format version and the writer",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};

	return colfs_readme_write(t, &r, out);
}
DOC_OPS(readme_doc);

/* --- stripes ------------------------------------------------------------ */

static colfs_status stripe_info_doc_generate(colfs_tree *t, colfs_node *n,
					     colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(n);
	size_t s = (size_t)colfs_node_a(n);
	json_t *j = colfs_proto_json(&f->footer->stripes[s]->base, NULL);

	(void)t;
	if (j) {
		json_object_set_new(j, "stripe", json_integer((json_int_t)s));
		json_object_set_new(j, "firstRow",
				    json_integer((json_int_t)
						 f->stripes[s].row_start));
	}
	return json_out(out, j);
}
DOC_OPS(stripe_info_doc);

static colfs_status stripe_footer_doc_generate(colfs_tree *t, colfs_node *n,
					       colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(n);
	size_t s = (size_t)colfs_node_a(n);
	orc_stripe *sp;
	colfs_err err = {0};
	json_t *j, *locs;

	(void)t;
	COLFS_TRY(orc_tail_stripe_load(f, s, &sp, &err));
	j = colfs_proto_json(sp->footer.msg, NULL);
	if (!j)
		return COLFS_ENOMEM;
	locs = json_array();
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];
		json_t *o = json_object();

		json_object_set_new(o, "ordinal", json_integer((json_int_t)i));
		json_object_set_new(o, "kind",
				    json_string(orc_tail_stream_kind_name(l->kind)));
		json_object_set_new(o, "column", json_integer(l->column));
		json_object_set_new(o, "offset",
				    json_integer((json_int_t)l->offset));
		json_object_set_new(o, "length",
				    json_integer((json_int_t)l->length));
		json_array_append_new(locs, o);
	}
	for (size_t i = 0; i < sp->n_enc; i++) {
		const orc_stream_loc *l = &sp->enc[i];
		json_t *o = json_object();

		json_object_set_new(o, "encrypted", json_true());
		json_object_set_new(o, "variant", json_integer(l->variant));
		json_object_set_new(o, "index", json_integer(l->index));
		json_object_set_new(o, "kind",
				    json_string(orc_tail_stream_kind_name(l->kind)));
		json_object_set_new(o, "column", json_integer(l->column));
		if (l->in_file)
			json_object_set_new(o, "offset",
					    json_integer((json_int_t)
							 l->offset));
		json_object_set_new(o, "length",
				    json_integer((json_int_t)l->length));
		json_array_append_new(locs, o);
	}
	json_object_set_new(j, "streamLocations", locs);
	return json_out(out, j);
}
DOC_OPS(stripe_footer_doc);

static colfs_status stripe_stats_doc_generate(colfs_tree *t, colfs_node *n,
					      colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(n);
	size_t s = (size_t)colfs_node_a(n);
	const Orcpb__StripeStatistics *ss;

	(void)t;
	if (!f->meta || s >= f->meta->n_stripestats)
		return json_out(out, json_pack("{s:b,s:s}", "available", 0,
					       "why",
					       "the file has no stripe "
					       "statistics for this stripe"));
	ss = f->meta->stripestats[s];
	return json_out(out, stats_json(f, ss->colstats, ss->n_colstats));
}
DOC_OPS(stripe_stats_doc);

/* streams/<i>/decompressed: piece k = compression chunk k (or 1 MiB of an
 * uncompressed stream). a = stripe, b = stream ordinal */
static colfs_status stream_piece(colfs_tree *t, colfs_node *n, uint64_t index,
				 colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(n);
	orc_stripe *sp;
	colfs_err err = {0};
	const orc_stream_loc *l;
	uint64_t pos, end;
	colfs_status st;

	COLFS_TRY(orc_tail_stripe_load(f, (size_t)colfs_node_a(n), &sp, &err));
	if (colfs_node_b(n) >= sp->n_streams)
		return COLFS_EBOUNDS;
	l = &sp->streams[colfs_node_b(n)];
	if (!l->in_file)
		return COLFS_ETRUNCATED;
	pos = l->offset;
	end = l->offset + l->length;
	if (!f->compressed) {
		uint64_t piece = 1u << 20, start, len;

		if (colfs_mul_overflows(index, piece, &start) ||
		    start >= l->length)
			return COLFS_END;
		len = l->length - start < piece ? l->length - start : piece;
		if (!colfs_buf_reserve(out, (size_t)len))
			return COLFS_ENOMEM;
		st = colfs_source_read_at(f->src, pos + start, (size_t)len,
					  out->data + out->len, &err);
		if (st)
			goto fail;
		out->len += (size_t)len;
		return COLFS_OK;
	}
	for (uint64_t k = 0;; k++) {
		uint8_t h[3];
		uint64_t clen;

		if (pos >= end)
			return COLFS_END;
		if (end - pos < 3) {
			st = colfs_fail(&err, COLFS_ETRUNCATED, pos,
					"compression chunk header cut short");
			goto fail;
		}
		st = colfs_source_read_at(f->src, pos, 3, h, &err);
		if (st)
			goto fail;
		clen = orc_in_chunk_header(h, NULL);
		if (clen > end - pos - 3) {
			st = colfs_fail(&err, COLFS_ETRUNCATED, pos,
					"compression chunk of %llu bytes runs "
					"past the stream",
					(unsigned long long)clen);
			goto fail;
		}
		if (k == index) {
			uint8_t *raw = malloc(clen + 3), *dec;
			size_t dlen;

			if (!raw)
				return COLFS_ENOMEM;
			st = colfs_source_read_at(f->src, pos, (size_t)clen + 3,
						  raw, &err);
			if (!st)
				st = orc_in_decompress(f, raw, (size_t)clen + 3,
						    pos, &dec, &dlen, &err);
			free(raw);
			if (st)
				goto fail;
			colfs_buf_append(out, dec, dlen);
			free(dec);
			return colfs_buf_status(out);
		}
		pos += 3 + clen;
	}
fail:
	colfs_tree_report_err(t, n, &err);
	return st;
}
static const colfs_node_ops stream_decompressed_ops = {.piece = stream_piece};

static const colfs_node_ops sdec_ops = {.piece = orc_sdec_piece};

static colfs_status stream_dir_fill(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	orc_stripe *sp;
	colfs_err err = {0};
	const orc_stream_loc *l;
	colfs_node *c;

	COLFS_TRY(orc_tail_stripe_load(f, (size_t)colfs_node_a(dir), &sp, &err));
	if (colfs_node_b(dir) >= sp->n_streams) {
		/* a StripeEncryptionVariant's stream: encrypted, raw only */
		uint64_t k = colfs_node_b(dir) - sp->n_streams;

		if (k >= sp->n_enc)
			return COLFS_EBOUNDS;
		l = &sp->enc[k];
		if (l->in_file &&
		    !colfs_dir_add_range(t, dir, "raw", l->offset, l->length))
			return COLFS_ENOMEM;
		return COLFS_OK;
	}
	l = &sp->streams[colfs_node_b(dir)];
	if (l->kind == ORCPB__STREAM__KIND__ENCRYPTED_INDEX ||
	    l->kind == ORCPB__STREAM__KIND__ENCRYPTED_DATA) {
		/* AES/CTR-encrypted bytes: only the stored form can be
		 * shown without the key. */
		if (l->in_file &&
		    !colfs_dir_add_range(t, dir, "raw", l->offset, l->length))
			return COLFS_ENOMEM;
		return COLFS_OK;
	}
	if (l->in_file) {
		if (!colfs_dir_add_range(t, dir, "raw", l->offset, l->length))
			return COLFS_ENOMEM;
		c = colfs_dir_add_stream(t, dir, "decompressed",
					 &stream_decompressed_ops, f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, colfs_node_a(dir), colfs_node_b(dir), 0);
	}
	{
		bool v2;
		orc_sdec_kind k = orc_sdec_kind_of(f, sp,
						   (size_t)colfs_node_b(dir),
						   &v2);
		orc_sdec *d;

		if (k == ORC_SDEC_NONE)
			return COLFS_OK;
		d = colfs_tree_alloc(t, sizeof(*d));
		if (!d)
			return COLFS_ENOMEM;
		d->file = f;
		d->stripe = (size_t)colfs_node_a(dir);
		d->ordinal = (size_t)colfs_node_b(dir);
		d->kind = k;
		d->v2 = v2;
		pthread_mutex_lock(&f->lock);
		d->next = f->sdecs;
		f->sdecs = d;
		pthread_mutex_unlock(&f->lock);
		if (!colfs_dir_add_stream(t, dir, "decoded", &sdec_ops, d))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

/* Every stream directory ends with its `errors`: the problems any view
 * found in the stream's bytes (orc_tail_part_path). */
static colfs_status stream_dir_populate(colfs_tree *t, colfs_node *dir)
{
	COLFS_TRY(stream_dir_fill(t, dir));
	return colfs_dir_add_errors(t, dir) ? COLFS_OK : COLFS_ENOMEM;
}
static const colfs_node_ops stream_dir = {
	.populate = stream_dir_populate, .xattrs = orc_xattr_stream};

static colfs_status streams_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	orc_stripe *sp;
	colfs_err err = {0};

	COLFS_TRY(orc_tail_stripe_load(f, (size_t)colfs_node_a(dir), &sp, &err));
	for (size_t i = 0; i < sp->n_streams; i++) {
		char name[96];
		colfs_node *c;

		snprintf(name, sizeof(name), "%zu-%u-%s", i,
			 sp->streams[i].column,
			 orc_tail_stream_kind_name(sp->streams[i].kind));
		c = colfs_dir_add_dir(t, dir, name, &stream_dir, f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, colfs_node_a(dir), i, 0);
	}
	for (size_t i = 0; i < sp->n_enc; i++) {
		const orc_stream_loc *l = &sp->enc[i];
		char name[128];
		colfs_node *c;

		snprintf(name, sizeof(name), "encrypted-%u-%u-%u-%s",
			 l->variant, l->index, l->column,
			 orc_tail_stream_kind_name(l->kind));
		c = colfs_dir_add_dir(t, dir, name, &stream_dir, f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, colfs_node_a(dir), sp->n_streams + i,
				    0);
	}
	return COLFS_OK;
}
DIR_OPS(streams_dir);

/* indexes/<column>/: a = stripe, b = column, c = 0 row index, 1 bloom */
static colfs_status index_doc_generate(colfs_tree *t, colfs_node *n,
				       colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(n);
	orc_stripe *sp;
	colfs_err err = {0};
	uint32_t col = (uint32_t)colfs_node_b(n);
	bool bloom = colfs_node_c(n) == ORC_TREE_INDEX_BLOOM;
	const orc_stream_loc *found = NULL;
	uint8_t *data;
	size_t len;
	colfs_proto_msg m = {0};
	colfs_status st;
	bool old_layout = false;
	json_t *j;

	COLFS_TRY(orc_tail_stripe_load(f, (size_t)colfs_node_a(n), &sp, &err));
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];

		if (l->column != col)
			continue;
		if (!bloom && l->kind == ORCPB__STREAM__KIND__ROW_INDEX)
			found = l;
		if (bloom && l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8)
			found = l;
		if (bloom && !found &&
		    l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER)
			found = l;
	}
	if (!found)
		return json_out(out, json_pack("{s:b}", "available", 0));
	if (!found->in_file)
		return COLFS_ETRUNCATED;
	st = orc_in_read_decompressed(f, found->offset, found->length, &data,
				   &len, &err);
	if (!st) {
		st = colfs_proto_unpack(&m,
				    bloom ? &orcpb__bloom_filter_index__descriptor
					  : &orcpb__row_index__descriptor,
				    data, len,
				    (uint64_t)len * 64 + (1u << 20) < f->max_alloc
					    ? (size_t)len * 64 + (1u << 20)
					    : (size_t)f->max_alloc,
				    found->offset, &err);
		/* a bloom filter stream that is not a BloomFilterIndex may be
		 * the older layout (orc.proto, BloomFilterIndexOld) */
		if (st == COLFS_ECORRUPT && bloom) {
			colfs_err err2 = {0};

			if (colfs_proto_unpack(&m,
				    &orcpb__bloom_filter_index_old__descriptor,
				    data, len,
				    (uint64_t)len * 64 + (1u << 20) < f->max_alloc
					    ? (size_t)len * 64 + (1u << 20)
					    : (size_t)f->max_alloc,
				    found->offset, &err2) == COLFS_OK)
				old_layout = true;
		}
		free(data);
		if (old_layout)
			st = COLFS_OK;
	}
	if (st) {
		colfs_tree_report_err(t, n, &err);
		return st;
	}
	if (!bloom) {
		/* one entry per stride of rows: ceil(rows / stride) */
		const Orcpb__RowIndex *ri = (const Orcpb__RowIndex *)m.msg;
		const size_t s = (size_t)colfs_node_a(n);
		uint64_t stride = f->footer->rowindexstride;
		uint64_t rows = s < f->footer->n_stripes ?
				f->footer->stripes[s]->numberofrows : 0;
		/* (ORC Java writes an extra empty entry into the row
		 * indexes of files with encrypted columns: not checked) */
		if (stride > 0 && s < f->footer->n_stripes && !f->footer->encryption &&
		    (uint64_t)ri->n_entry != rows / stride + (rows % stride != 0))
			colfs_tree_report(t, colfs_node_parent(n),
					  found->offset, COLFS_ECORRUPT,
					  "stripe %zu, column %u: the row index has %zu entries, %llu rows at a stride of %llu need %llu",
					  s, col, ri->n_entry,
					  (unsigned long long)rows,
					  (unsigned long long)stride,
					  (unsigned long long)(rows / stride +
							       (rows % stride != 0)));
	}
	j = colfs_proto_json(m.msg, NULL);
	if (j)
		json_object_set_new(j, "streamKind",
				    json_string(orc_tail_stream_kind_name(found->kind)));
	if (j && old_layout)
		json_object_set_new(j, "layout", json_string(
			"older (not orc_proto.proto's BloomFilter): field_1 "
			"varint, field_2 double, field_3 the bit set as "
			"varint words"));
	colfs_proto_free(&m);
	return json_out(out, j);
}
DOC_OPS(index_doc);

static colfs_status index_col_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	orc_stripe *sp;
	colfs_err err = {0};
	bool has_ri = false, has_bf = false;
	colfs_node *c;

	COLFS_TRY(orc_tail_stripe_load(f, (size_t)colfs_node_a(dir), &sp, &err));
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];

		if (l->column != colfs_node_b(dir))
			continue;
		if (l->kind == ORCPB__STREAM__KIND__ROW_INDEX)
			has_ri = true;
		if (l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER ||
		    l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8)
			has_bf = true;
	}
	if (has_ri) {
		c = colfs_dir_add_doc(t, dir, "row_index.json", &index_doc, f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, colfs_node_a(dir), colfs_node_b(dir),
				    ORC_TREE_INDEX_ROW);
	}
	if (has_bf) {
		c = colfs_dir_add_doc(t, dir, "bloom_filter.json", &index_doc,
				      f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, colfs_node_a(dir), colfs_node_b(dir),
				    ORC_TREE_INDEX_BLOOM);
	}
	return COLFS_OK;
}
DIR_OPS(index_col_dir);

static colfs_status indexes_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	orc_stripe *sp;
	colfs_err err = {0};
	uint32_t last = UINT32_MAX;

	COLFS_TRY(orc_tail_stripe_load(f, (size_t)colfs_node_a(dir), &sp, &err));
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];
		bool dup = false;
		char name[24];
		colfs_node *c;

		if (l->kind != ORCPB__STREAM__KIND__ROW_INDEX &&
		    l->kind != ORCPB__STREAM__KIND__BLOOM_FILTER &&
		    l->kind != ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8)
			continue;
		for (size_t k = 0; k < i && !dup; k++) {
			const orc_stream_loc *o = &sp->streams[k];

			dup = o->column == l->column &&
			      (o->kind == ORCPB__STREAM__KIND__ROW_INDEX ||
			       o->kind == ORCPB__STREAM__KIND__BLOOM_FILTER ||
			       o->kind == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8);
		}
		if (dup || l->column == last)
			continue;
		last = l->column;
		snprintf(name, sizeof(name), "%u", l->column);
		c = colfs_dir_add_dir(t, dir, name, &index_col_dir, f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, colfs_node_a(dir), l->column, 0);
	}
	return COLFS_OK;
}
DIR_OPS(indexes_dir);

/* --- streamed views --------------------------------------------------------- */

/* Pieces of a view render at once on several threads, each with its own
 * reader from the view's pool (orc_read.c). */
static const colfs_node_ops view_ops = {.piece = orc_read_view_piece,
					.concurrent = true};

colfs_node *orc_tree_add_view(colfs_tree *t, orc_file *f, colfs_node *dir,
			       const char *name, orc_view_kind kind,
			       uint32_t column, long stripe)
{
	orc_view *v = colfs_tree_alloc(t, sizeof(*v));

	if (!v)
		return NULL;
	v->file = f;
	v->kind = kind;
	v->column = column;
	v->stripe = stripe;
	pthread_mutex_init(&v->lock, NULL);
	pthread_mutex_lock(&f->lock);
	v->next = f->views;
	f->views = v;
	pthread_mutex_unlock(&f->lock);
	return colfs_dir_add_stream(t, dir, name, &view_ops, v);
}

/* columns/: a = stripe + 1 (ORC_TREE_COLUMNS_FILE: whole file) */
static colfs_status columns_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	long stripe = colfs_node_a(dir) == ORC_TREE_COLUMNS_FILE
			      ? -1
			      : (long)colfs_node_a(dir) - 1;
	const Orcpb__Type *root;

	if (!f->schema_ok)
		return COLFS_OK;
	root = f->footer->types[0];
	if (root->kind != ORCPB__TYPE__KIND__STRUCT) {
		if (!orc_tree_add_view(t, f, dir, "value", ORC_VIEW_COLUMN, 0, stripe))
			return COLFS_ENOMEM;
		return COLFS_OK;
	}
	for (size_t i = 0; i < root->n_subtypes; i++)
		if (!orc_tree_add_view(t, f, dir, root->fieldnames[i], ORC_VIEW_COLUMN,
			      root->subtypes[i], stripe))
			return COLFS_ENOMEM;
	return COLFS_OK;
}
DIR_OPS(columns_dir);

/* verify: streams (their size is not known without decoding, and ls -l
 * must not decode); orc_verify.c */
static const colfs_node_ops verify_stripe_ops = {
	.piece = orc_verify_stripe_piece};
static const colfs_node_ops verify_file_ops = {
	.piece = orc_verify_file_piece};

static colfs_status stripe_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	uint64_t s = colfs_node_a(dir);
	colfs_node *c;

#define ADD(expr)                                                           \
	do {                                                                \
		c = (expr);                                                 \
		if (!c)                                                     \
			return COLFS_ENOMEM;                                \
		colfs_node_set_args(c, s, 0, 0);                            \
	} while (0)
	ADD(colfs_dir_add_doc(t, dir, "info.json", &stripe_info_doc, f));
	ADD(colfs_dir_add_doc(t, dir, "footer.json", &stripe_footer_doc, f));
	ADD(colfs_dir_add_doc(t, dir, "statistics.json", &stripe_stats_doc,
			      f));
	c = colfs_dir_add_dir(t, dir, "columns", &columns_dir, f);
	if (!c)
		return COLFS_ENOMEM;
	colfs_node_set_args(c, s + 1, 0, 0);
	if (f->schema_ok && !orc_arrays_add(t, f, dir, s + 1))
		return COLFS_ENOMEM;
	/* rows.jsonl and rows.csv: the fields of columns/ as rows */
	if (f->schema_ok &&
	    (!(c = orc_tree_add_view(t, f, dir, "rows.jsonl", ORC_VIEW_ROWS, 0, (long)s)) ||
	     (colfs_node_set_derived(c),
	      !(c = orc_tree_add_view(t, f, dir, "rows.csv", ORC_VIEW_CSV, 0, (long)s)))))
		return COLFS_ENOMEM;
	colfs_node_set_derived(c);
	ADD(colfs_dir_add_dir(t, dir, "streams", &streams_dir, f));
	ADD(colfs_dir_add_dir(t, dir, "indexes", &indexes_dir, f));
	if (f->schema_ok && f->ps)
		ADD(colfs_dir_add_stream(t, dir, "verify", &verify_stripe_ops,
					 f));
#undef ADD
	if (!colfs_dir_add_errors(t, dir) ||
	    !colfs_dir_add_layout_svg(t, dir, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}
static const colfs_node_ops stripe_dir = {
	.populate = stripe_dir_populate, .xattrs = orc_xattr_stripe};

static colfs_status stripes_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);

	for (size_t s = 0; s < f->n_stripes; s++) {
		char name[24];
		colfs_node *c;

		snprintf(name, sizeof(name), "%zu", s);
		c = colfs_dir_add_dir(t, dir, name, &stripe_dir, f);
		if (!c)
			return COLFS_ENOMEM;
		colfs_node_set_args(c, s, 0, 0);
	}
	return COLFS_OK;
}
DIR_OPS(stripes_dir);

static colfs_status user_meta_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = file_of(t);

	for (size_t i = 0; i < f->footer->n_metadata; i++) {
		const Orcpb__UserMetadataItem *it = f->footer->metadata[i];

		if (!colfs_dir_add_text(t, dir, it->name ? it->name : "",
					it->value.len
						? (const char *)it->value.data
						: "",
					it->value.len))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}
DIR_OPS(user_meta_dir);

static colfs_status raw_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = file_of(t);
	uint8_t head[3];

	if (f->size >= 3 &&
	    colfs_source_read_at(f->src, 0, 3, head, NULL) == COLFS_OK &&
	    memcmp(head, "ORC", 3) == 0 &&
	    !colfs_dir_add_range(t, dir, "magic", 0, 3))
		return COLFS_ENOMEM;
	if (f->ps_msg.msg) {
		if (!colfs_dir_add_range(t, dir, "postscript", f->ps_off,
					 f->ps_len))
			return COLFS_ENOMEM;
		if (!colfs_dir_add_range(t, dir, "footer", f->footer_off,
					 f->footer_len))
			return COLFS_ENOMEM;
		if (!colfs_dir_add_range(t, dir, "metadata", f->meta_off,
					 f->meta_len))
			return COLFS_ENOMEM;
	}
	if (f->size > 0 &&
	    !colfs_dir_add_range(t, dir, "postscript_length", f->size - 1, 1))
		return COLFS_ENOMEM;
	return COLFS_OK;
}
DIR_OPS(raw_dir);

#define ADD(expr)                                                           \
	do {                                                                \
		c = (expr);                                                 \
		if (!c)                                                     \
			return COLFS_ENOMEM;                                \
	} while (0)

colfs_status orc_tree_build_common(orc_file *f, colfs_node *root)
{
	colfs_tree *t = f->tree;
	colfs_node *c;

	ADD(colfs_dir_add_doc(t, root, "README", &readme_doc, f));
	ADD(colfs_dir_add_doc(t, root, "format", &format_doc, f));
	ADD(colfs_dir_add_errors(t, root));
	ADD(colfs_dir_add_dir(t, root, "raw", &raw_dir, f));
	ADD(colfs_dir_add_doc(t, root, "layout", &layout_doc, f));
	ADD(colfs_dir_add_layout_svg(t, root, c));
	return COLFS_OK;
}

colfs_status orc_tree_build(orc_file *f, colfs_node *root)
{
	colfs_tree *t = f->tree;
	colfs_node *c;

	ADD(colfs_dir_add_summary(t, root, &summary_doc, f));
	if (f->schema_ok) {
		ADD(colfs_dir_add_doc(t, root, "schema", &schema_doc, f));
		ADD(colfs_dir_add_doc(t, root, "schema.json",
				      &schema_json_doc, f));
	}
	ADD(colfs_dir_add_doc(t, root, "postscript.json", &msg_doc, f));
	colfs_node_set_args(c, ORC_TREE_MSG_POSTSCRIPT, 0, 0);
	ADD(colfs_dir_add_doc(t, root, "footer.json", &msg_doc, f));
	colfs_node_set_args(c, ORC_TREE_MSG_FOOTER, 0, 0);
	ADD(colfs_dir_add_doc(t, root, "metadata.json", &msg_doc, f));
	colfs_node_set_args(c, ORC_TREE_MSG_ALL, 0, 0);
	ADD(colfs_dir_add_doc(t, root, "statistics.json", &file_stats_doc,
			      f));
	if (f->footer->n_metadata)
		ADD(colfs_dir_add_dir(t, root, "user_metadata",
				      &user_meta_dir, f));
	ADD(colfs_dir_add_dir(t, root, "columns", &columns_dir, f));
	colfs_node_set_args(c, ORC_TREE_COLUMNS_FILE, 0, 0);
	/* the root's views: the stripes' one after another */
	colfs_node_set_derived(c);
	if (f->schema_ok && !orc_arrays_add(t, f, root, ORC_TREE_COLUMNS_FILE))
		return COLFS_ENOMEM;
	if (f->schema_ok) {
		ADD(orc_tree_add_view(t, f, root, "rows.jsonl", ORC_VIEW_ROWS, 0, -1));
		colfs_node_set_derived(c);
		ADD(orc_tree_add_view(t, f, root, "rows.csv", ORC_VIEW_CSV, 0, -1));
		colfs_node_set_derived(c);
	}
	ADD(colfs_dir_add_dir(t, root, "stripes", &stripes_dir, f));
	if (f->schema_ok)
		ADD(colfs_dir_add_stream(t, root, "verify", &verify_file_ops,
					 f));
	return COLFS_OK;
}
#undef ADD

/* The stripes/ and columns/ directories of `f`, for salvage (its stripes
 * are the recovered ones). */
colfs_node *orc_tree_add_stripes(colfs_tree *t, orc_file *f, colfs_node *dir)
{
	return colfs_dir_add_dir(t, dir, "stripes", &stripes_dir, f);
}

colfs_node *orc_tree_add_columns(colfs_tree *t, orc_file *f, colfs_node *dir)
{
	colfs_node *c = colfs_dir_add_dir(t, dir, "columns", &columns_dir, f);

	if (c)
		colfs_node_set_args(c, ORC_TREE_COLUMNS_FILE, 0, 0);
	return c;
}

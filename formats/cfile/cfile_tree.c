/* colfs: the mounted tree of a Kudu CFile (docs/cfile-tree.md).
 *
 * Listing reads metadata only (header, footer, index blocks, read at
 * open); data blocks are decoded when `values`, `dictionary` or a
 * blocks/N file is read. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"

static cfile_file *file_of(colfs_tree *t)
{
	return colfs_tree_format_state(t);
}

static const char *null_token(colfs_tree *t)
{
	const char *s = colfs_tree_options(t)->null_token;
	return s ? s : "\\N";
}

/* --- decoding a block for a node -------------------------------------------- */

/* After the last block of a file without a positional index: the rows
 * must add up to num_values (§14.19). */
static void rows_total_check(colfs_tree *t, const colfs_node *where)
{
	cfile_file *f = file_of(t);
	uint64_t sum = 0;
	bool all = true;

	if (f->posidx.present || f->role == CFILE_ROLE_BLOOM)
		return;
	pthread_mutex_lock(&f->seen_lock);
	for (uint32_t i = 0; i < f->nblocks && all; i++) {
		all = f->blocks[i].seen;
		sum += f->blocks[i].seen_rows;
	}
	pthread_mutex_unlock(&f->seen_lock);
	if (all && sum != f->num_values)
		colfs_tree_report(t, where, f->footer_start, COLFS_ECORRUPT,
				  "the blocks hold %llu rows, num_values says "
				  "%llu", (unsigned long long)sum,
				  (unsigned long long)f->num_values);
}

/* -o on_damage: the rows of block i, which failed with `st`, as NULL
 * lines (null) or none (skip), when the positional index gives them;
 * filed under the view.  Otherwise `st`. */
static colfs_status damaged_block(colfs_tree *t, colfs_node *file, uint32_t i,
				  colfs_status st, colfs_buf *out)
{
	cfile_file *f = file_of(t);
	colfs_on_damage d = colfs_tree_options(t)->on_damage;
	const cfile_dblock *b = &f->blocks[i];

	if (st == COLFS_ENOMEM || st == COLFS_EIO ||
	    d == COLFS_ON_DAMAGE_ERROR || !b->rows || !b->key_known ||
	    b->rows > f->num_values)
		return st;
	colfs_tree_report(t, file, b->ptr.offset, st,
			  "rows %llu to %llu (block %u) %s: on_damage",
			  (unsigned long long)b->first_row,
			  (unsigned long long)(b->first_row + b->rows - 1), i,
			  d == COLFS_ON_DAMAGE_NULL ? "read as NULL" : "left out");
	if (d == COLFS_ON_DAMAGE_NULL)
		for (uint64_t r = 0; r < b->rows; r++) {
			colfs_buf_puts(out, null_token(t));
			colfs_buf_putc(out, '\n');
		}
	return colfs_buf_status(out);
}

static colfs_status values_piece(colfs_tree *t, colfs_node *file,
				 uint64_t index, colfs_buf *out)
{
	cfile_file *f = file_of(t);
	cfile_raw raw;
	cfile_values v;

	if (index >= f->nblocks) {
		if (!f->walk_complete) {
			colfs_tree_report(t, file, f->footer_start,
					  COLFS_ECORRUPT,
					  "the index walk lost blocks: values "
					  "are incomplete");
			return COLFS_ECORRUPT;
		}
		rows_total_check(t, file);
		return COLFS_END;
	}
	colfs_status st = cfile_decoded_block(t, (uint32_t)index, &raw, &v);
	if (st)
		return damaged_block(t, file, (uint32_t)index, st, out);
	cfile_block_values_render(f, &v, null_token(t), out);
	cfile_block_values_free(&v);
	cfile_block_raw_free(&raw);
	return colfs_buf_status(out);
}

static const colfs_node_ops values_ops = {.piece = values_piece};

static colfs_status deltas_piece(colfs_tree *t, colfs_node *file,
				 uint64_t index, colfs_buf *out)
{
	cfile_file *f = file_of(t);
	cfile_raw raw;
	cfile_values v;
	colfs_err err = {0};
	colfs_status st = COLFS_OK;

	if (index >= f->nblocks) {
		rows_total_check(t, file);
		return COLFS_END;
	}
	COLFS_TRY(cfile_decoded_block(t, (uint32_t)index, &raw, &v));
	for (uint32_t i = 0; i < v.n && !st; i++)
		st = cfile_special_delta_render(v.str[i], v.len[i], out,
					f->blocks[index].ptr.offset, &err);
	if (st)
		cfile_block_report(t, index, err.offset, st, "block %llu: delta: %s",
			     (unsigned long long)index, err.msg);
	cfile_block_values_free(&v);
	cfile_block_raw_free(&raw);
	return st ? st : colfs_buf_status(out);
}

static const colfs_node_ops deltas_ops = {.piece = deltas_piece};

static colfs_status delta_stats_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	colfs_status st = cfile_special_delta_stats_json(file_of(t), out);

	if (st)
		colfs_tree_report(t, file, file_of(t)->footer_start, st,
				  "footer metadata deltafilestats is not a "
				  "valid DeltaStatsPB");
	return st;
}

static const colfs_node_ops delta_stats_ops = {.generate = delta_stats_generate};

/* A report stream, not a document: its size is not known without
 * decoding the file, and ls -l must not decode (tree.h: one piece, the
 * whole report). */
static const colfs_node_ops verify_ops = {.generate = cfile_verify_gen};

/* The value-index key of data block `i` (BloomFiles), or NULL. */
static const cfile_ientry *block_key(const cfile_file *f, uint32_t i)
{
	for (uint32_t k = 0; k < f->validx.n; k++)
		for (uint32_t e = 0; e < f->validx.node[k].n; e++)
			if (f->validx.node[k].e[e].block == (int64_t)i)
				return &f->validx.node[k].e[e];
	return NULL;
}

static colfs_status bloom_line(colfs_tree *t, uint32_t i, colfs_buf *out)
{
	cfile_file *f = file_of(t);
	const cfile_ientry *e = block_key(f, i);
	cfile_raw raw;
	colfs_err err = {0};
	colfs_status st = cfile_block_read(f, f->blocks[i].ptr, &raw, &err);

	colfs_buf_printf(out, "%u key=", i);
	if (e)
		cfile_index_key_render(out, e->key, e->key_len, false);
	colfs_buf_putc(out, ' ');
	if (!st) {
		st = cfile_special_bloom_describe(raw.data, raw.data_len, out,
					  f->blocks[i].ptr.offset, &err);
		cfile_block_raw_free(&raw);
	}
	if (st) {
		cfile_block_report(t, i, err.offset, st, "bloom block %u: %s", i,
			     err.msg);
		return st;
	}
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}

static colfs_status bloom_generate(colfs_tree *t, colfs_node *file,
				   colfs_buf *out)
{
	cfile_file *f = file_of(t);

	(void)file;
	colfs_buf_printf(out, "BloomFile: %u bloom blocks (one line each: "
			 "block, first key, parameters)\n", f->nblocks);
	for (uint32_t i = 0; i < f->nblocks; i++)
		COLFS_TRY(bloom_line(t, i, out));
	return colfs_buf_status(out);
}

static colfs_status block_bloom_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	return bloom_line(t, (uint32_t)colfs_node_a(file), out);
}

static const colfs_node_ops bloom_ops = {.generate = bloom_generate};
static const colfs_node_ops block_bloom_ops = {
	.generate = block_bloom_generate};

static colfs_status block_values_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	cfile_file *f = file_of(t);
	cfile_raw raw;
	cfile_values v;

	COLFS_TRY(cfile_decoded_block(t, (uint32_t)colfs_node_a(file), &raw,
			       &v));
	cfile_block_values_render(f, &v, null_token(t), out);
	cfile_block_values_free(&v);
	cfile_block_raw_free(&raw);
	return colfs_buf_status(out);
}

static colfs_status null_bitmap_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	cfile_raw raw;
	cfile_values v;

	COLFS_TRY(cfile_decoded_block(t, (uint32_t)colfs_node_a(file), &raw,
			       &v));
	for (uint32_t r = 0; r < v.rows; r++)
		colfs_buf_puts(out, v.present && !v.present[r] ? "0\n" : "1\n");
	cfile_block_values_free(&v);
	cfile_block_raw_free(&raw);
	return colfs_buf_status(out);
}

/* ctx = the cfile_file to read through, a = offset, b = size */
static colfs_status decompressed_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	cfile_file *f = colfs_node_ctx(file);
	const cfile_ptr p = {colfs_node_a(file), (uint32_t)colfs_node_b(file)};
	cfile_raw raw;
	colfs_err err = {0};
	colfs_status st = cfile_block_read(f, p, &raw, &err);

	if (st) {
		colfs_tree_report(t, file, err.offset, st, "%s", err.msg);
		return st;
	}
	colfs_buf_append(out, raw.data, raw.data_len);
	cfile_block_raw_free(&raw);
	return colfs_buf_status(out);
}

static colfs_status block_info_generate(colfs_tree *t, colfs_node *file,
					colfs_buf *out)
{
	cfile_file *f = file_of(t);
	uint32_t i = (uint32_t)colfs_node_a(file);
	const cfile_dblock *b = &f->blocks[i];
	json_t *o = json_object();

	json_object_set_new(o, "block", json_integer(i));
	json_object_set_new(o, "offset", json_integer((json_int_t)b->ptr.offset));
	json_object_set_new(o, "size", json_integer(b->ptr.size));
	if (b->key_known) {
		json_object_set_new(o, "first_row",
				    json_integer((json_int_t)b->first_row));
		if (b->rows) {
			json_object_set_new(o, "rows",
					    json_integer((json_int_t)b->rows));
			json_object_set_new(
				o, "last_row",
				json_integer((json_int_t)(b->first_row +
							  b->rows - 1)));
		}
	}
	json_object_set_new(o, "encoding",
			    json_string(cfile_types_encoding_name(f->encoding)));
	json_object_set_new(o, "compression",
			    json_string(cfile_types_compression_name(f->compression)));
	json_object_set_new(o, "checksum", json_boolean(f->checksums));
	json_object_set_new(o, "nullable", json_boolean(f->nullable));
	return colfs_buf_json(out, o);
}

static const colfs_node_ops block_values_ops = {
	.generate = block_values_generate};
static const colfs_node_ops null_bitmap_ops = {
	.generate = null_bitmap_generate};
static const colfs_node_ops decompressed_ops = {
	.generate = decompressed_generate};
static const colfs_node_ops block_info_ops = {
	.generate = block_info_generate};

static colfs_status block_dir_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_file *f = file_of(t);
	uint64_t i = colfs_node_a(dir);
	cfile_dblock *b = &f->blocks[i];
	colfs_node *n;

	if (!(n = colfs_dir_add_doc(t, dir, "info.json", &block_info_ops,
				    NULL)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, i, 0, 0);
	if (!colfs_dir_add_range(t, dir, "raw", b->ptr.offset, b->ptr.size))
		return COLFS_ENOMEM;
	if (!cfile_tree_add_decompressed(t, dir, f, b->ptr))
		return COLFS_ENOMEM;
	if (f->role == CFILE_ROLE_BLOOM) {
		if (!(n = colfs_dir_add_doc(t, dir, "bloom", &block_bloom_ops,
					    NULL)))
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
		return colfs_dir_add_errors(t, dir) ? COLFS_OK : COLFS_ENOMEM;
	}
	if (!(n = colfs_dir_add_doc(t, dir, "values", &block_values_ops,
				    NULL)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, i, 0, 0);
	if (f->nullable) {
		if (!(n = colfs_dir_add_doc(t, dir, "null_bitmap",
					    &null_bitmap_ops, NULL)))
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return colfs_dir_add_errors(t, dir) ? COLFS_OK : COLFS_ENOMEM;
}

/* blocks/N's extended attributes (docs/cfile-tree.md, "Extended
 * attributes"): the block pointer and the file's settings, no decoding. */
static colfs_status block_dir_xattrs(colfs_tree *t, colfs_node *dir,
				     colfs_xattrs *x)
{
	cfile_file *f = file_of(t);
	uint64_t i = colfs_node_a(dir);
	const cfile_dblock *b;

	if (i >= f->nblocks)
		return COLFS_OK;
	b = &f->blocks[i];
	colfs_xattrs_set(x, "kind", "block");
	colfs_xattrs_range(x, b->ptr.offset, b->ptr.size);
	if (b->key_known)
		colfs_xattrs_set(x, "first_row", "%llu",
				 (unsigned long long)b->first_row);
	if (b->rows)
		colfs_xattrs_set(x, "num_values", "%llu",
				 (unsigned long long)b->rows);
	colfs_xattrs_set(x, "type", "%s", cfile_types_type_name(f->type));
	colfs_xattrs_set(x, "encoding", "%s",
			 cfile_types_encoding_name(f->encoding));
	colfs_xattrs_set(x, "codec", "%s",
			 cfile_types_compression_name(f->compression));
	colfs_xattrs_set(x, "checksum", "%s", f->checksums ? "yes" : "no");
	return COLFS_OK;
}

static const colfs_node_ops block_dir_ops = {.populate = block_dir_populate,
					     .xattrs = block_dir_xattrs};

colfs_node *cfile_tree_add_decompressed(colfs_tree *t, colfs_node *dir,
					cfile_file *f, cfile_ptr p)
{
	colfs_node *n = colfs_dir_add_doc(t, dir, "decompressed",
					  &decompressed_ops, f);

	if (n)
		colfs_node_set_args(n, p.offset, p.size, 0);
	return n;
}

colfs_status cfile_tree_add_blocks(colfs_tree *t, colfs_node *dir, uint32_t n,
				   const colfs_node_ops *ops, void *ctx)
{
	char name[16];

	for (uint32_t i = 0; i < n; i++) {
		colfs_node *b;

		snprintf(name, sizeof(name), "%u", i);
		b = colfs_dir_add_dir(t, dir, name, ops, ctx);
		if (!b)
			return COLFS_ENOMEM;
		colfs_node_set_args(b, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status blocks_populate(colfs_tree *t, colfs_node *dir)
{
	return cfile_tree_add_blocks(t, dir, file_of(t)->nblocks,
				     &block_dir_ops, NULL);
}

static const colfs_node_ops blocks_ops = {.populate = blocks_populate};

/* --- index/ --------------------------------------------------------------- */

static colfs_status index_entries_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	cfile_file *f = file_of(t);
	const cfile_index *ix = colfs_node_ctx(file);
	const cfile_inode *nd = &ix->node[colfs_node_a(file)];
	bool positional = ix == &f->posidx;

	for (uint32_t i = 0; i < nd->n; i++) {
		const cfile_ientry *e = &nd->e[i];
		colfs_buf_printf(out, "%u key=", i);
		cfile_index_key_render(out, e->key, e->key_len, positional);
		colfs_buf_printf(out, " offset=%llu size=%u",
				 (unsigned long long)e->ptr.offset,
				 e->ptr.size);
		if (e->child >= 0)
			colfs_buf_printf(out, " child=%u/", i);
		else if (e->block >= 0)
			colfs_buf_printf(out, " block=%lld",
					 (long long)e->block);
		colfs_buf_putc(out, '\n');
	}
	return colfs_buf_status(out);
}

static colfs_status index_info_generate(colfs_tree *t, colfs_node *file,
					colfs_buf *out)
{
	(void)t;
	const cfile_index *ix = colfs_node_ctx(file);
	const cfile_inode *nd = &ix->node[colfs_node_a(file)];
	json_t *o = json_object();

	json_object_set_new(o, "offset", json_integer((json_int_t)nd->ptr.offset));
	json_object_set_new(o, "size", json_integer(nd->ptr.size));
	json_object_set_new(o, "depth", json_integer(nd->depth));
	json_object_set_new(o, "type", json_string(!nd->ok ? "unreadable"
						   : nd->leaf ? "LEAF"
							      : "INTERNAL"));
	json_object_set_new(o, "num_entries", json_integer(nd->n));
	return colfs_buf_json(out, o);
}

static const colfs_node_ops index_entries_ops = {
	.generate = index_entries_generate};
static const colfs_node_ops index_info_ops = {.generate = index_info_generate};

static const colfs_node_ops index_node_ops;

static colfs_status index_node_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_index *ix = colfs_node_ctx(dir);
	uint64_t k = colfs_node_a(dir);
	const cfile_inode *nd = &ix->node[k];
	colfs_node *n;
	char name[16];

	if (!(n = colfs_dir_add_doc(t, dir, "info.json", &index_info_ops, ix)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, k, 0, 0);
	if (!(n = colfs_dir_add_doc(t, dir, "entries", &index_entries_ops, ix)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, k, 0, 0);
	if (!colfs_dir_add_range(t, dir, "raw", nd->ptr.offset, nd->ptr.size))
		return COLFS_ENOMEM;
	for (uint32_t i = 0; i < nd->n; i++) {
		if (nd->e[i].child < 0)
			continue;
		snprintf(name, sizeof(name), "%u", i);
		n = colfs_dir_add_dir(t, dir, name, &index_node_ops, ix);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, (uint64_t)nd->e[i].child, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops index_node_ops = {.populate = index_node_populate};

static colfs_status index_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_file *f = file_of(t);
	colfs_node *n;

	if (f->posidx.present && f->posidx.n) {
		if (!(n = colfs_dir_add_dir(t, dir, "ordinal", &index_node_ops,
					    &f->posidx)))
			return COLFS_ENOMEM;
		colfs_node_set_args(n, 0, 0, 0);
	}
	if (f->validx.present && f->validx.n) {
		if (!(n = colfs_dir_add_dir(t, dir, "value", &index_node_ops,
					    &f->validx)))
			return COLFS_ENOMEM;
		colfs_node_set_args(n, 0, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops index_ops = {.populate = index_populate};

/* --- top-level documents --------------------------------------------------- */

static colfs_status footer_json_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	(void)file;
	cfile_file *f = file_of(t);
	const Kudu__Cfile__CFileFooterPB *ft = f->footer;
	json_t *o = json_object();

	json_object_set_new(o, "magic", json_string(f->version == 1
							   ? CFILE_MAGIC_V1
							   : CFILE_MAGIC_V2));
	json_object_set_new(o, "footer_pb_length", json_integer(f->footer_pb_len));
	cfile_file_pb_json_into(f, o, &ft->base);
	return colfs_buf_json(out, o);
}

static colfs_status header_json_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	(void)file;
	cfile_file *f = file_of(t);
	json_t *o = json_object();

	json_object_set_new(o, "magic", json_string(f->version == 1
							   ? CFILE_MAGIC_V1
							   : CFILE_MAGIC_V2));
	json_object_set_new(o, "header_length", json_integer(f->header_len));
	if (f->header)
		cfile_file_pb_json_into(f, o, &f->header->base);
	return colfs_buf_json(out, o);
}

static colfs_status summary_generate(colfs_tree *t, colfs_node *file,
				     colfs_buf *out)
{
	(void)file;
	cfile_file *f = file_of(t);

	colfs_buf_printf(out, "format: Kudu CFile v%d (%s)\n", f->version,
			 f->version == 1 ? CFILE_MAGIC_V1 : CFILE_MAGIC_V2);
	colfs_buf_printf(out, "role: %s\n",
			 f->role == CFILE_ROLE_DELTA   ? "DeltaFile"
			 : f->role == CFILE_ROLE_BLOOM ? "BloomFile"
						       : "column");
	colfs_buf_printf(out, "type: %s%s\n", f->array ? "array of " : "",
			 f->ti->name);
	colfs_buf_printf(out, "encoding: %s\n",
			 cfile_types_encoding_name(f->encoding));
	colfs_buf_printf(out, "compression: %s\n",
			 cfile_types_compression_name(f->compression));
	colfs_buf_printf(out, "nullable: %s\n", f->nullable ? "yes" : "no");
	colfs_buf_printf(out, "values: %llu\n",
			 (unsigned long long)f->num_values);
	colfs_buf_printf(out, "data blocks: %u\n", f->nblocks);
	if (f->posidx.present)
		colfs_buf_printf(out, "positional index: %u nodes, depth %u\n",
				 f->posidx.n, f->posidx.depth + 1);
	else
		colfs_buf_puts(out, "positional index: none\n");
	if (f->validx.present)
		colfs_buf_printf(out, "value index: %u nodes, depth %u\n",
				 f->validx.n, f->validx.depth + 1);
	else
		colfs_buf_puts(out, "value index: none\n");
	colfs_buf_printf(out, "checksums: %s\n",
			 f->checksums ? "CRC-32C" : "none");
	colfs_buf_printf(out, "file size: %llu\n",
			 (unsigned long long)f->size);
	return colfs_buf_status(out);
}

static colfs_status schema_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	cfile_file *f = file_of(t);

	colfs_buf_printf(out, "%s%s%s%s %s %s\n", f->array ? "ARRAY<" : "",
			 f->ti->name, f->array ? ">" : "",
			 f->nullable ? " NULL" : " NOT NULL",
			 cfile_types_encoding_name(f->encoding),
			 cfile_types_compression_name(f->compression));
	return colfs_buf_status(out);
}

static colfs_status dictionary_generate(colfs_tree *t, colfs_node *file,
					colfs_buf *out)
{
	cfile_file *f = file_of(t);
	colfs_err err = {0};
	colfs_status st = cfile_block_dict_load(f, &err);

	if (st) {
		colfs_tree_report(t, file, err.offset, st, "dictionary: %s",
				  err.msg);
		return st;
	}
	for (uint32_t i = 0; i < f->dict_n; i++) {
		cfile_types_value_render(out, f->type, f->dict_str[i],
				   f->dict_len[i]);
		colfs_buf_putc(out, '\n');
	}
	return colfs_buf_status(out);
}

/* The regions of an index's blocks, each named by its directory under
 * `root` (index_node_populate names a child by the entry that points to
 * it; the walk gives every node but the root one such entry, and adds it
 * after its parent). */
static void layout_index(colfs_layout *l, const cfile_index *ix,
			 const char *kind, const char *root)
{
	char **path = ix->n ? calloc(ix->n, sizeof(*path)) : NULL;

	if (ix->n && !path) {
		l->failed = true;
		return;
	}
	for (uint32_t k = 0; k < ix->n; k++) {
		const cfile_inode *nd = &ix->node[k];

		if (k == 0 && !(path[0] = strdup(root)))
			l->failed = true;
		colfs_layout_add(l, nd->ptr.offset, nd->ptr.size, kind, "%s",
				 path[k] ? path[k] : root);
		for (uint32_t i = 0; path[k] && i < nd->n; i++) {
			int32_t c = nd->e[i].child;

			if (c > (int32_t)k && (uint32_t)c < ix->n && !path[c] &&
			    asprintf(&path[c], "%s/%u", path[k], i) < 0)
				path[c] = NULL;
		}
	}
	for (uint32_t k = 0; k < ix->n; k++)
		free(path[k]);
	free(path);
}

static colfs_status layout_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	cfile_file *f = file_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;

	colfs_layout_add(&l, 0, f->header_len, "header", "/raw/header");
	for (uint32_t i = 0; i < f->nblocks; i++)
		colfs_layout_add(&l, f->blocks[i].ptr.offset,
				 f->blocks[i].ptr.size, "data_block",
				 "/blocks/%u", i);
	layout_index(&l, &f->posidx, "positional_index_block",
		     "/index/ordinal");
	layout_index(&l, &f->validx, "value_index_block", "/index/value");
	if (f->footer && f->footer->dict_block_ptr)
		colfs_layout_add(&l,
				 (uint64_t)f->footer->dict_block_ptr->offset,
				 (uint32_t)f->footer->dict_block_ptr->size,
				 "dictionary_block", "/dictionary");
	colfs_layout_add(&l, f->footer_start, f->size - f->footer_start,
			 "footer", "/raw/footer");
	return colfs_layout_write(&l, f->size, out);
}

static colfs_status readme_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	cfile_file *f = file_of(t);
	bool ft = f->footer != NULL;
	bool bloom = f->role == CFILE_ROLE_BLOOM;
	bool pos = ft && f->posidx.present && f->posidx.n;
	bool val = ft && f->validx.present && f->validx.n;
	const colfs_readme_row rows[] = {
		{true, 0, "raw/", false, "the header and footer bytes as stored"},
		{true, 1, "header", false, "magic, header length and CFileHeaderPB"},
		{true, 1, "footer", false,
		 "CFileFooterPB, its length and the magic"},
		{!ft, 0, "salvage/", false,
		 "the blocks found by walking the file from its header: summary, blocks/N/{info.json,raw,decompressed,values}, values; values need -o cfile_type=TYPE -o cfile_encoding=ENC (and cfile_nullable=true, cfile_compression=C)"},
		{ft, 0, "summary", false,
		 "type, encoding, compression, counts, indexes"},
		{ft, 0, "schema", false,
		 "the column: type, nullability, encoding, compression"},
		{ft, 0, "header.json", false, "CFileHeaderPB, decoded"},
		{ft, 0, "footer.json", false, "CFileFooterPB, decoded"},
		{ft, 0, "metadata/", false, "header then footer metadata pairs"},
		{ft && ((f->header && f->header->n_metadata) ||
			f->footer->n_metadata), 1, "<key>", false,
		 "one file per key, the value bytes"},
		{ft && !bloom, 0, "values", true,
		 "every value in ordinal order, one per line; NULL is \\N"},
		{ft && f->role == CFILE_ROLE_COLUMN, 0, "arrays/", false,
		 "the column as a NumPy array when it is fixed-width and the positional index sizes every block (docs/values.md, \"Arrays\")"},
		{ft && f->role == CFILE_ROLE_COLUMN, 1, "README", false,
		 "the array's NumPy type and the CFile type it comes from"},
		{ft && cfile_arrays_any(f), 1, "values.npy", true,
		 "every value in ordinal order, its size exact from the metadata; values.nulls.npy beside it for a nullable column, True for NULL"},
		{ft && cfile_arrays_any(f) && f->nullable, 1, "values.nulls.npy", true,
		 "the NULL mask"},
		{ft, 0, "blocks/", false,
		 "the data blocks in ordinal order, numbered from 0"},
		{ft && f->nblocks, 1, "N/", false, "data block N"},
		{ft && f->nblocks, 2, "info.json", false,
		 "where it is, its rows and first key"},
		{ft && f->nblocks, 2, "raw", false, "its stored bytes"},
		{ft && f->nblocks, 2, "decompressed", true,
		 "its bytes after the codec"},
		{ft && f->nblocks && bloom, 2, "bloom", true,
		 "its bloom block: first key, hash functions, bitmap size, bits set"},
		{ft && f->nblocks && !bloom, 2, "values", true,
		 "its values, one per line"},
		{ft && f->nblocks && !bloom && f->nullable, 2, "null_bitmap", true,
		 "one line per row: 1 present, 0 NULL"},
		{ft && f->nblocks, 2, "errors", false,
		 "the problems found so far in this block"},
		{ft, 0, "index/", false,
		 "the B-trees: each directory is one index block"},
		{pos, 1, "ordinal/", false, "the positional index: its root node"},
		{pos, 2, "info.json", false,
		 "the node: offset, size, depth, LEAF or INTERNAL, entries"},
		{pos, 2, "entries", false,
		 "one line per entry: \"i key=K offset=O size=S child=i/|block=N\""},
		{pos, 2, "raw", false, "the node's stored bytes"},
		{pos && f->posidx.n > 1, 2, "K/", false,
		 "the child node of entry K, with the same entries"},
		{val, 1, "value/", false, "the value index: its root node"},
		{val, 2, "info.json", false,
		 "the node: offset, size, depth, LEAF or INTERNAL, entries"},
		{val, 2, "entries", false,
		 "one line per entry: \"i key=K offset=O size=S child=i/|block=N\""},
		{val, 2, "raw", false, "the node's stored bytes"},
		{val && f->validx.n > 1, 2, "K/", false,
		 "the child node of entry K, with the same entries"},
		{ft, 0, "verify", true,
		 "what the file claims (value index keys, min_key/max_key, sort order, deltafilestats) checked against the decoded data; MISMATCH: lines, also reported in errors"},
		{ft && f->encoding == CFILE_DICT, 0, "dictionary", true,
		 "the dictionary strings, codeword order"},
		{ft && f->role == CFILE_ROLE_DELTA, 0, "deltas", true,
		 "a DeltaFile: one line per delta: row, hybrid timestamp, change list (cN=value: \"text\", 0xhex or NULL; types live in the schema)"},
		{ft && f->role == CFILE_ROLE_DELTA, 0, "deltafilestats.json", false,
		 "the DeltaStatsPB footer metadata"},
		{ft && bloom, 0, "bloom", true,
		 "a BloomFile: one line per bloom block (first key, hash functions, bitmap size, bits set)"},
	};
	const colfs_readme r = {
		.what = "an Apache Kudu CFile of one column",
		.about = ft ? NULL : "The footer cannot be used (see errors).\n\n",
		.format_text = "the format and its version",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};

	return colfs_readme_write(t, &r, out);
}

static colfs_status metadata_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_file *f = file_of(t);
	Kudu__Cfile__FileMetadataPairPB **lists[2] = {
		f->header ? f->header->metadata : NULL, f->footer->metadata};
	size_t counts[2] = {f->header ? f->header->n_metadata : 0,
			    f->footer->n_metadata};

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			const Kudu__Cfile__FileMetadataPairPB *m = lists[l][i];
			if (!colfs_dir_add_text(t, dir,
						m->key ? m->key : "",
						m->value.data
							? (const char *)
								  m->value.data
							: "",
						m->value.len))
				return COLFS_ENOMEM;
		}
	return COLFS_OK;
}

static const colfs_node_ops footer_json_ops = {.generate = footer_json_generate};
static const colfs_node_ops header_json_ops = {.generate = header_json_generate};
static const colfs_node_ops summary_ops = {.generate = summary_generate};
static const colfs_node_ops schema_ops = {.generate = schema_generate};
static const colfs_node_ops dictionary_ops = {.generate = dictionary_generate};
static const colfs_node_ops layout_ops = {.generate = layout_generate};
static const colfs_node_ops readme_ops = {.generate = readme_generate};
static const colfs_node_ops metadata_ops = {.populate = metadata_populate};

static colfs_status raw_populate(colfs_tree *t, colfs_node *dir)
{
	cfile_file *f = file_of(t);

	if (!colfs_dir_add_range(t, dir, "header", 0,
				 f->header_len < f->size ? f->header_len
							 : f->size))
		return COLFS_ENOMEM;
	if (!colfs_dir_add_range(t, dir, "footer", f->footer_start,
				 f->size - f->footer_start))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops raw_ops = {.populate = raw_populate};

colfs_status cfile_tree_add_common(colfs_tree *t, colfs_node *root)
{
	cfile_file *f = file_of(t);
	char fmt[32];

	if (f->version)
		snprintf(fmt, sizeof(fmt), "cfile v%d\n", f->version);
	else
		snprintf(fmt, sizeof(fmt), "cfile (footer magic lost)\n");
	if (!colfs_root_add_common(t, root, &readme_ops, fmt, &layout_ops,
				   &raw_ops))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

colfs_status cfile_tree_add_file(colfs_tree *t, colfs_node *root)
{
	cfile_file *f = file_of(t);

	if (!colfs_dir_add_summary(t, root, &summary_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "schema", &schema_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "header.json", &header_json_ops,
			       NULL) ||
	    !colfs_dir_add_doc(t, root, "footer.json", &footer_json_ops,
			       NULL) ||
	    !colfs_dir_add_dir(t, root, "metadata", &metadata_ops, NULL) ||
	    (f->role != CFILE_ROLE_BLOOM &&
	     !colfs_dir_add_stream(t, root, "values", &values_ops, NULL)) ||
	    !colfs_dir_add_dir(t, root, "blocks", &blocks_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "index", &index_ops, NULL) ||
	    !colfs_dir_add_stream(t, root, "verify", &verify_ops, NULL))
		return COLFS_ENOMEM;
	if (f->role == CFILE_ROLE_COLUMN &&
	    !colfs_dir_add_dir(t, root, "arrays", &cfile_arrays_ops, NULL))
		return COLFS_ENOMEM;
	if (f->encoding == CFILE_DICT &&
	    !colfs_dir_add_doc(t, root, "dictionary", &dictionary_ops, NULL))
		return COLFS_ENOMEM;
	if (f->role == CFILE_ROLE_DELTA &&
	    (!colfs_dir_add_stream(t, root, "deltas", &deltas_ops, NULL) ||
	     !colfs_dir_add_doc(t, root, "deltafilestats.json",
				&delta_stats_ops, NULL)))
		return COLFS_ENOMEM;
	if (f->role == CFILE_ROLE_BLOOM &&
	    !colfs_dir_add_doc(t, root, "bloom", &bloom_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

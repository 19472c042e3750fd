/* colfs: a Kudu tablet superblock as a tree (docs/kudu-tree.md). */
#include "kudu_int.h"

/* ------------------------------------------------------------------------
 * A tablet superblock (tablet-meta/<tablet id>): a protobuf container of
 * TabletSuperBlockPB records, the last one the tablet's state.
 */
struct kudu_root;


/* The superblock of tablet `a` (the tree's own for a superblock file). */
static const Kudu__Fs__TabletSuperBlockPB *sb_of(colfs_tree *t, uint64_t a)
{
	return (const void *)kudu_tablet_state(t, a)->sb.msg;
}

static json_t *bytes_text(const ProtobufCBinaryData *b)
{
	return colfs_proto_json_text(b->data, b->len);
}

static colfs_status superblock_generate(colfs_tree *t, colfs_node *file,
					colfs_buf *out)
{
	return colfs_buf_json(out, colfs_proto_json(
		kudu_tablet_state(t, colfs_node_a(file))->sb.msg, NULL));
}

static const char *data_type_name(int v)
{
	const ProtobufCEnumValue *e = protobuf_c_enum_descriptor_get_value(
		&kudu__fs__data_type__descriptor, v);
	return e ? e->name : "unknown";
}

static colfs_status schema_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, colfs_node_a(file));
	for (size_t i = 0; sb->schema && i < sb->schema->n_columns; i++) {
		const Kudu__Fs__ColumnSchemaPB *c = sb->schema->columns[i];
		colfs_buf_printf(out, "%s %s %s%s (id %u)\n", c->name,
				 data_type_name(c->type),
				 c->is_nullable ? "NULL" : "NOT NULL",
				 c->is_key ? " KEY" : "", c->id);
	}
	return colfs_buf_status(out);
}

/* The column of `id` in the schema, or NULL. */
const Kudu__Fs__ColumnSchemaPB *kudu_column_by_id(
	const Kudu__Fs__TabletSuperBlockPB *sb, int32_t id)
{
	for (size_t i = 0; sb->schema && i < sb->schema->n_columns; i++)
		if (sb->schema->columns[i]->has_id &&
		    (int32_t)sb->schema->columns[i]->id == id)
			return sb->schema->columns[i];
	return NULL;
}

static void block_line(colfs_buf *out, const char *what,
		       const Kudu__Fs__BlockIdPB *b)
{
	char name[32];
	if (!b)
		return;
	block_name(b->id, name, sizeof name);
	colfs_buf_printf(out, "%s %s\n", name, what);
}

/* rowsets/N/blocks: every block of the rowset, one "<block id> <role>"
 * line each (to find them in the containers of the data directories). */
static colfs_status rowset_blocks_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, colfs_node_a(file) >> 32);
	const Kudu__Fs__RowSetDataPB *rs =
		sb->rowsets[colfs_node_a(file) & 0xffffffffu];
	char what[300];
	for (size_t i = 0; i < rs->n_columns; i++) {
		const Kudu__Fs__ColumnSchemaPB *c =
			kudu_column_by_id(sb, rs->columns[i]->column_id);
		if (c)
			snprintf(what, sizeof what, "column %s", c->name);
		else
			snprintf(what, sizeof what, "column id %d (not in the schema)",
				 rs->columns[i]->column_id);
		block_line(out, what, rs->columns[i]->block);
	}
	block_line(out, "bloom", rs->bloom_block);
	block_line(out, "adhoc_index", rs->adhoc_index_block);
	for (size_t i = 0; i < rs->n_redo_deltas; i++) {
		snprintf(what, sizeof what, "redo %zu", i);
		block_line(out, what, rs->redo_deltas[i]->block);
	}
	for (size_t i = 0; i < rs->n_undo_deltas; i++) {
		snprintf(what, sizeof what, "undo %zu", i);
		block_line(out, what, rs->undo_deltas[i]->block);
	}
	return colfs_buf_status(out);
}

static colfs_status rowset_json_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, colfs_node_a(file) >> 32);
	return colfs_buf_json(out, colfs_proto_json(
		&sb->rowsets[colfs_node_a(file) & 0xffffffffu]->base, NULL));
}

const colfs_node_ops kudu_rowset_json_ops = {.generate = rowset_json_generate};
const colfs_node_ops kudu_rowset_blocks_ops = {.generate = rowset_blocks_generate};

static colfs_status rowset_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t i = colfs_node_a(dir);
	colfs_node *a = colfs_dir_add_doc(t, dir, "rowset.json", &kudu_rowset_json_ops, NULL);
	colfs_node *b = colfs_dir_add_doc(t, dir, "blocks", &kudu_rowset_blocks_ops, NULL);
	if (!a || !b)
		return COLFS_ENOMEM;
	colfs_node_set_args(a, i, 0, 0);
	colfs_node_set_args(b, i, 0, 0);
	return COLFS_OK;
}

static const colfs_node_ops rowset_ops = {.populate = rowset_populate};

static colfs_status rowsets_populate(colfs_tree *t, colfs_node *dir)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, 0);
	for (size_t i = 0; i < sb->n_rowsets; i++) {
		char name[32];
		snprintf(name, sizeof name, "%zu", i);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &rowset_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status tablet_summary_generate(colfs_tree *t, colfs_node *file,
					    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	const Kudu__Fs__TabletSuperBlockPB *sb = sb_of(t, 0);
	(void)file;
	json_t *tid = bytes_text(&sb->tablet_id), *tab = bytes_text(&sb->table_id);
	colfs_buf_printf(out, "format: Kudu tablet superblock (protobuf container version %u)\n",
			 k->version);
	colfs_buf_printf(out, "table: %s (id %s)\n", sb->table_name,
			 tab ? json_string_value(tab) : "?");
	colfs_buf_printf(out, "tablet: %s\n", tid ? json_string_value(tid) : "?");
	colfs_buf_printf(out, "data state: %s\n",
			 protobuf_c_enum_descriptor_get_value(
				 &kudu__fs__tablet_data_state__descriptor,
				 sb->tablet_data_state)
				 ? protobuf_c_enum_descriptor_get_value(
					   &kudu__fs__tablet_data_state__descriptor,
					   sb->tablet_data_state)->name
				 : "unknown");
	colfs_buf_printf(out, "schema: %zu columns, version %u\n",
			 sb->schema ? sb->schema->n_columns : 0,
			 sb->schema_version);
	colfs_buf_printf(out, "rowsets: %zu\n", sb->n_rowsets);
	colfs_buf_printf(out, "records: %zu (the superblock is record %zu)\n",
			 k->nrecs, k->sb_rec);
	colfs_buf_printf(out, "problems: %zu\n", colfs_tree_error_count(t));
	json_decref(tid);
	json_decref(tab);
	return colfs_buf_status(out);
}

static colfs_status tablet_readme_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	(void)file;
	const colfs_readme_row rows[] = {
		{true, 0, "summary", false,
		 "table, tablet, data state, schema, rowsets, records"},
		{true, 0, "records/", false,
		 "the file's records, numbered from 0"},
		{true, 1, "N.json", false,
		 "record N: its offset, length, and the message (0: ContainerSupHeaderPB; then TabletSuperBlockPB)"},
		{true, 0, "superblock.json", false,
		 "the tablet's superblock (the last record), every field"},
		{true, 0, "schema", false,
		 "one line per column: name, type, NULL or NOT NULL, KEY, column id"},
		{true, 0, "rowsets/", false, "the rowsets, numbered from 0"},
		{true, 1, "N/", false, "rowset N"},
		{true, 2, "rowset.json", false, "its RowSetDataPB"},
		{true, 2, "blocks", false,
		 "its blocks, one `<block id> <role>` line each (column <name>, bloom, adhoc_index, redo K, undo K)"},
	};
	const colfs_readme r = {
		.what = "an Apache Kudu tablet superblock",
		.about = "The blocks it names are in the log block containers of the tablet's data directories.\n\n",
		.format_text = "\"kudu tablet superblock\" and the container version",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static colfs_status tablet_layout_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	kudu_state *k = state_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;
	(void)file;
	colfs_layout_add(&l, 0, k->version == 1 ? 12 : 16, "container_header",
			 "/format");
	for (size_t i = 0; i < k->nrecs; i++) {
		const kudu_record *r = &k->recs[i];
		colfs_layout_add(&l, r->off,
				 r->body_off + r->body_len + 4 - r->off, "record",
				 "/records/%zu.json", i);
	}
	return colfs_layout_write(&l, k->meta_len, out);
}

static colfs_status tablet_format_generate(colfs_tree *t, colfs_node *file,
					   colfs_buf *out)
{
	(void)file;
	colfs_buf_printf(out, "kudu tablet superblock v%u\n", state_of(t)->version);
	return colfs_buf_status(out);
}

static const colfs_node_ops tablet_readme_ops = {.generate = tablet_readme_generate};
static const colfs_node_ops tablet_format_ops = {.generate = tablet_format_generate};
static const colfs_node_ops tablet_layout_ops = {.generate = tablet_layout_generate};
static const colfs_node_ops tablet_summary_ops = {.generate = tablet_summary_generate};
const colfs_node_ops kudu_superblock_ops = {.generate = superblock_generate};
const colfs_node_ops kudu_schema_ops = {.generate = schema_generate};
static const colfs_node_ops rowsets_ops = {.populate = rowsets_populate};
static const colfs_node_ops tablet_records_ops = {.populate = kudu_records_populate};

static colfs_status tablet_root_populate(colfs_tree *t, colfs_node *root)
{
	if (!colfs_dir_add_doc(t, root, "README", &tablet_readme_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "format", &tablet_format_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "layout", &tablet_layout_ops, NULL) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_summary(t, root, &tablet_summary_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "records", &tablet_records_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "superblock.json", &kudu_superblock_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "schema", &kudu_schema_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "rowsets", &rowsets_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops tablet_root_ops = {.populate = tablet_root_populate};



colfs_status kudu_tablet_open(colfs_tree *t, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	uint64_t max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	colfs_source *src = colfs_tree_source(t);
	kudu_state *k = calloc(1, sizeof *k);
	if (!k)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_tree_set_format_state(t, k);
	k->tablet = true;
	k->meta_path = strdup(colfs_tree_display_name(t));
	if (!k->meta_path)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	COLFS_TRY(colfs_source_read_region(src, 0, colfs_source_size(src),
					   max_alloc, &k->meta, err));
	k->meta_len = (size_t)colfs_source_size(src);
	COLFS_TRY(kudu_pbc_read(t, k, k->meta_path, max_alloc, err));
	COLFS_TRY(kudu_tablet_decode(t, k, max_alloc, err));
	colfs_node_set_ops(colfs_tree_root(t), &tablet_root_ops, NULL);
	return COLFS_OK;
}

/* The last record that decodes is the tablet's state. */
colfs_status kudu_tablet_decode(colfs_tree *t, kudu_state *k,
				  uint64_t max_alloc, colfs_err *err)
{
	for (size_t i = k->nrecs; i-- > 1;) {
		const kudu_record *r = &k->recs[i];
		char path[400];
		if (!r->ok)
			continue;
		if (colfs_proto_unpack_status(
			    &k->sb, &kudu__fs__tablet_super_block_pb__descriptor,
			    k->meta + r->body_off, r->body_len,
			    colfs_proto_cap(r->body_len, max_alloc)) == COLFS_OK) {
			k->sb_rec = i;
			break;
		}
		snprintf(path, sizeof path, "%s/records/%zu", k->prefix, i);
		kudu_meta_report(t, path, COLFS_ECORRUPT, r->body_off,
			    "not a TabletSuperBlockPB");
		k->recs[i].problem = "not a TabletSuperBlockPB";
		k->recs[i].ok = false;
	}
	if (!k->sb.msg)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "no record holds a readable TabletSuperBlockPB");
	return COLFS_OK;
}


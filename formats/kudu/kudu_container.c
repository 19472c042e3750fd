/* colfs: the tree of a Kudu log block container (docs/kudu-tree.md). */
#include "kudu_int.h"

/* ------------------------------------------------------------------------
 * The tree
 */
static colfs_status record_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	size_t ri = (size_t)colfs_node_a(file);
	const kudu_record *r = &k->recs[ri];
	json_t *o = json_object();
	char name[32];

	json_object_set_new(o, "record", json_integer((json_int_t)ri));
	json_object_set_new(o, "metadata_offset", json_integer((json_int_t)r->off));
	json_object_set_new(o, "body_length", json_integer(r->body_len));
	json_object_set_new(o, "type", json_string(ri == 0 ? "ContainerSupHeaderPB"
						  : k->tablet ? "TabletSuperBlockPB"
							      : "BlockRecordPB"));
	if (r->problem)
		json_object_set_new(o, "problem", json_string(r->problem));
	if (r->ok) {
		colfs_proto_msg pm = {0};
		size_t cap = colfs_proto_cap(r->body_len,
					     colfs_tree_options(t)->max_alloc);
		const ProtobufCMessageDescriptor *d =
			ri == 0 ? &kudu__fs__container_sup_header_pb__descriptor
			: k->tablet ? &kudu__fs__tablet_super_block_pb__descriptor
				    : &kudu__fs__block_record_pb__descriptor;
		if (ri > 0 && !k->tablet) {
			block_name(r->id, name, sizeof name);
			json_object_set_new(o, "block", json_string(name));
		}
		if (colfs_proto_unpack_status(&pm, d, k->meta + r->body_off,
					      r->body_len, cap) == COLFS_OK) {
			json_object_set_new(o, "message", colfs_proto_json(pm.msg, NULL));
			colfs_proto_free(&pm);
		}
	}
	return colfs_buf_json(out, o);
}

static const colfs_node_ops record_ops = {.generate = record_generate};

colfs_status kudu_records_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	for (size_t i = 0; i < k->nrecs; i++) {
		char name[32];
		snprintf(name, sizeof name, "%zu.json", i);
		colfs_node *n = colfs_dir_add_doc(t, dir, name, &record_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static bool block_is_cfile(colfs_tree *t, const kudu_block *b)
{
	uint8_t head[8];
	return b->len >= 8 &&
	       colfs_source_read_at(colfs_tree_source(t), b->off, 8, head,
				    NULL) == COLFS_OK &&
	       (memcmp(head, "kuducfil", 8) == 0 ||
		memcmp(head, "kuducfl2", 8) == 0);
}

static colfs_status block_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	const kudu_block *b = &k->blocks[colfs_node_a(dir)];
	char name[32], why[512], display[4200];
	block_name(b->id, name, sizeof name);
	/* the name a block's tree gives itself (its README's first line) */
	snprintf(display, sizeof display, "%s block %s",
		 colfs_tree_display_name(t), name);

	if (block_is_cfile(t, b)) {
		colfs_tree *sub;
		if (colfs_tree_open_window(t, b->off, b->len, display, &sub, why,
					   sizeof why) == COLFS_OK)
			return colfs_dir_graft(t, dir, sub, b->off);
		colfs_tree_report(t, dir, b->off, COLFS_ECORRUPT,
				  "a CFile block that cannot be opened: %s", why);
	}
	return colfs_dir_add_range(t, dir, "raw", b->off, b->len) ? COLFS_OK
								    : COLFS_ENOMEM;
}

static const colfs_node_ops block_ops = {.populate = block_populate};

static colfs_status blocks_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	for (size_t i = 0; i < k->nblocks; i++) {
		char name[32];
		if (k->blocks[i].delete_rec >= 0)
			continue;
		block_name(k->blocks[i].id, name, sizeof name);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &block_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status deleted_info_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	kudu_state *k = state_of(t);
	const kudu_block *b = &k->blocks[colfs_node_a(file)];
	json_t *o = json_object();
	char name[32];
	block_name(b->id, name, sizeof name);
	json_object_set_new(o, "block", json_string(name));
	json_object_set_new(o, "offset", json_integer((json_int_t)b->off));
	json_object_set_new(o, "length", json_integer((json_int_t)b->len));
	json_object_set_new(o, "create_record", json_integer((json_int_t)b->create_rec));
	json_object_set_new(o, "delete_record", json_integer(b->delete_rec));
	json_object_set_new(o, "punched", json_boolean(b->punched));
	return colfs_buf_json(out, o);
}

static const colfs_node_ops deleted_info_ops = {.generate = deleted_info_generate};

static colfs_status deleted_block_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	size_t i = (size_t)colfs_node_a(dir);
	const kudu_block *b = &k->blocks[i];
	colfs_node *n = colfs_dir_add_doc(t, dir, "block.json", &deleted_info_ops,
					  NULL);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, i, 0, 0);
	if (!b->punched && !colfs_dir_add_range(t, dir, "raw", b->off, b->len))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops deleted_block_ops = {.populate = deleted_block_populate};

static colfs_status deleted_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_state *k = state_of(t);
	for (size_t i = 0; i < k->nblocks; i++) {
		char name[32];
		if (k->blocks[i].delete_rec < 0)
			continue;
		block_name(k->blocks[i].id, name, sizeof name);
		colfs_node *n = colfs_dir_add_dir(t, dir, name,
						  &deleted_block_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops records_ops = {.populate = kudu_records_populate};
static const colfs_node_ops blocks_ops = {.populate = blocks_populate};
static const colfs_node_ops deleted_ops = {.populate = deleted_populate};

static colfs_status layout_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;
	int fd = colfs_source_fd(colfs_tree_source(t));
	(void)file;

	/* holes first: padding inside a hole is a hole */
	typedef struct { uint64_t a, b; } span;
	span *holes = NULL;
	size_t nh = 0, ch = 0;
	for (uint64_t pos = 0; fd >= 0 && pos < k->data_size;) {
		off_t h = lseek(fd, (off_t)pos, SEEK_HOLE);
		if (h < 0 || (uint64_t)h >= k->data_size)
			break;
		off_t d = lseek(fd, h, SEEK_DATA);
		uint64_t e = d < 0 ? k->data_size : (uint64_t)d;
		if (nh == ch) {
			ch = ch ? ch * 2 : 16;
			span *p = realloc(holes, ch * sizeof *p);
			if (!p)
				break;
			holes = p;
		}
		holes[nh++] = (span){(uint64_t)h, e};
		pos = e;
	}
	/* a hole is listed where no punched block claims it (a punched
	 * block is listed whole: its last page may be zeros, not hole) */
	for (size_t h = 0; h < nh; h++) {
		uint64_t a = holes[h].a;
		while (a < holes[h].b) {
			uint64_t stop = holes[h].b, skip = 0;
			for (size_t i = 0; i < k->nblocks; i++) {
				const kudu_block *b = &k->blocks[i];
				if (!b->punched || b->off + b->len <= a)
					continue;
				if (b->off <= a && b->off + b->len > skip)
					skip = b->off + b->len;
				else if (b->off > a && b->off < stop)
					stop = b->off;
			}
			if (skip) {
				a = skip;
				continue;
			}
			colfs_layout_add(&l, a, stop - a, "hole", "-");
			a = stop;
		}
	}
	/* blocks, and the padding after each up to the next aligned offset
	 * where the next block starts (or the file ends) */
	kudu_block **v = malloc((k->nblocks + 1) * sizeof *v);
	size_t n = 0;
	if (!v) {
		free(holes);
		colfs_layout_free(&l);
		return COLFS_ENOMEM;
	}
	for (size_t i = 0; i < k->nblocks; i++) {
		kudu_block *b = &k->blocks[i];
		char name[32];
		block_name(b->id, name, sizeof name);
		if (b->delete_rec < 0)
			colfs_layout_add(&l, b->off, b->len, "block", "/blocks/%s",
					 name);
		else
			colfs_layout_add(&l, b->off, b->len,
					 b->punched ? "punched_block"
						    : "deleted_block",
					 "/deleted/%s", name);
		v[n++] = b;
	}
	qsort(v, n, sizeof *v, kudu_block_cmp);
	for (size_t i = 0; i < n; i++) {
		uint64_t e = v[i]->off + v[i]->len;
		uint64_t a = (e + KUDU_ALIGN - 1) / KUDU_ALIGN * KUDU_ALIGN;
		uint64_t next = i + 1 < n ? v[i + 1]->off : k->data_size;
		if (a > k->data_size)
			a = k->data_size;
		if (a <= e || next < a)
			continue;
		bool in_hole = false;
		for (size_t h = 0; h < nh; h++)
			if (holes[h].a <= e && a <= holes[h].b)
				in_hole = true;
		if (!in_hole)
			colfs_layout_add(&l, e, a - e, "padding", "-");
	}
	free(v);
	free(holes);
	return colfs_layout_write(&l, k->data_size, out);
}

static colfs_status summary_generate(colfs_tree *t, colfs_node *file,
				     colfs_buf *out)
{
	kudu_state *k = state_of(t);
	uint64_t live_bytes = 0;
	(void)file;
	for (size_t i = 0; i < k->nblocks; i++)
		if (k->blocks[i].delete_rec < 0)
			live_bytes += k->blocks[i].len;
	colfs_buf_printf(out, "format: Kudu log block container (metadata version %u)\n",
			 k->version);
	colfs_buf_printf(out, "metadata: %s (%zu bytes, %zu records, record type %s)\n",
			 k->meta_path, k->meta_len, k->nrecs,
			 k->pb_type ? k->pb_type : "unknown");
	colfs_buf_printf(out, "data: %llu bytes, %llu in holes\n",
			 (unsigned long long)k->data_size,
			 (unsigned long long)k->hole_bytes);
	colfs_buf_printf(out, "live blocks: %zu (%llu bytes)\n", k->live,
			 (unsigned long long)live_bytes);
	colfs_buf_printf(out, "deleted blocks: %zu (%zu punched)\n", k->deleted,
			 k->punched);
	colfs_buf_printf(out, "problems: %zu\n", colfs_tree_error_count(t));
	return colfs_buf_status(out);
}

static colfs_status readme_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	kudu_state *k = state_of(t);
	bool raw_blocks = false, cfile_blocks = false, unpunched = false;
	(void)file;
	for (size_t i = 0; i < k->nblocks; i++) {
		const kudu_block *b = &k->blocks[i];
		if (b->delete_rec >= 0)
			unpunched |= !b->punched;
		else if (block_is_cfile(t, b))
			cfile_blocks = true;
		else
			raw_blocks = true;
	}
	const colfs_readme_row rows[] = {
		{true, 0, "summary", false,
		 "metadata version, records, data file size and holes, live and deleted blocks"},
		{true, 0, "records/", false,
		 "the metadata file's records, numbered from 0"},
		{true, 1, "N.json", false,
		 "record N: its offset in the metadata file, length, and the message (0: ContainerSupHeaderPB; then BlockRecordPB)"},
		{true, 0, "blocks/", false,
		 "the live blocks, named by block id as Kudu prints it"},
		{cfile_blocks, 1, "<block>/", false,
		 "a CFile block: the tree the CFile has on its own (its README, values, blocks/, ...)"},
		{raw_blocks, 1, "<block>/", false,
		 "a block that is not a CFile"},
		{raw_blocks, 2, "raw", false, "the block's bytes"},
		{true, 0, "deleted/", false, "the blocks a DELETE record removed"},
		{k->deleted > 0, 1, "<block>/", false, "one deleted block"},
		{k->deleted > 0, 2, "block.json", false,
		 "its offset, length, CREATE and DELETE records, and whether its bytes were punched out"},
		{unpunched, 2, "raw", false,
		 "its bytes, when they were not punched out"},
	};
	char about[256];
	snprintf(about, sizeof about,
		 "The blocks are in this data file; the records in %s.\n\n",
		 k->meta_path);
	const colfs_readme r = {
		.what = "the data file of an Apache Kudu log block container",
		.about = about,
		.format_text = "\"kudu container\" and the metadata file's version",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static colfs_status format_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	colfs_buf_printf(out, "kudu container v%u\n", state_of(t)->version);
	return colfs_buf_status(out);
}

static const colfs_node_ops layout_ops = {.generate = layout_generate};
static const colfs_node_ops summary_ops = {.generate = summary_generate};
static const colfs_node_ops readme_ops = {.generate = readme_generate};
static const colfs_node_ops format_ops = {.generate = format_generate};

static colfs_status root_populate(colfs_tree *t, colfs_node *root)
{
	if (!colfs_dir_add_doc(t, root, "README", &readme_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "format", &format_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "layout", &layout_ops, NULL) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_summary(t, root, &summary_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "records", &records_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "blocks", &blocks_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "deleted", &deleted_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

const colfs_node_ops kudu_container_ops = {.populate = root_populate};


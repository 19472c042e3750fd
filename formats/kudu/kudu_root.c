/* colfs: a Kudu data root as a tree (docs/kudu-tree.md). */
#include "kudu_int.h"
#include "../core/buf.h"

/* ------------------------------------------------------------------------
 * A data root: a directory holding Kudu's `instance` file, `data/` (the
 * log block containers) and `tablet-meta/` (one superblock per tablet).
 */

enum { KROLE_COLUMN, KROLE_BLOOM, KROLE_ADHOC, KROLE_REDO, KROLE_UNDO };

bool kudu_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is `path` a Kudu data root?  Its `instance` file is the source. */
bool kudu_root_claim(const char *path, char *source, size_t source_len)
{
	char p[4200];
	if (!kudu_is_dir(path))
		return false;
	snprintf(p, sizeof p, "%s/data", path);
	if (!kudu_is_dir(p))
		return false;
	snprintf(p, sizeof p, "%s/tablet-meta", path);
	if (!kudu_is_dir(p))
		return false;
	snprintf(p, sizeof p, "%s/instance", path);
	if (!kudu_starts_with_magic(p) || strlen(p) >= source_len)
		return false;
	snprintf(source, source_len, "%s", p);
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in `dir` (sorted, malloc'd), regular files only, those that
 * end in `suffix` (with it cut off) when it is not NULL. */
static char **dir_names(const char *dir, const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char p[4400];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (suffix && !kudu_ends_with(e->d_name, suffix))
			continue;
		if (!colfs_grow((void **)&v, &cap, *n + 1, sizeof *v))
			break;
		v[*n] = strdup(e->d_name);
		if (!v[*n])
			break;
		if (suffix)
			v[*n][strlen(v[*n]) - strlen(suffix)] = 0;
		++*n;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, name_cmp);
	return v;
}

void kudu_root_free(kudu_root *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ncont; i++) {
		free(r->cont[i].stem);
		kudu_state_free(r->cont[i].st);
		colfs_source_destroy(r->cont[i].src);
	}
	for (size_t i = 0; i < r->ntab; i++) {
		free(r->tab[i].id);
		kudu_state_free(r->tab[i].st);
	}
	free(r->cont);
	free(r->tab);
	free(r->dir);
	free(r);
}

/* Read the containers and superblocks; a damaged one is reported under
 * its path and the others read. */
static colfs_status root_read(colfs_tree *t, kudu_root *r, uint64_t max_alloc)
{
	char dir[4200];
	size_t n;
	char **names;

	snprintf(dir, sizeof dir, "%s/data", r->dir);
	names = dir_names(dir, ".metadata", &n);
	r->cont = calloc(n + 1, sizeof *r->cont);
	if (!r->cont)
		return COLFS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct kroot_container *c = &r->cont[r->ncont];
		char data[4400], meta[4400];
		colfs_err err = {0};
		kudu_state *k = calloc(1, sizeof *k);
		snprintf(data, sizeof data, "%s/%s.data", dir, names[i]);
		snprintf(meta, sizeof meta, "%s/%s.metadata", dir, names[i]);
		c->stem = names[i];
		c->st = k;
		r->ncont++;
		if (!k || !(k->meta_path = strdup(meta)))
			return COLFS_ENOMEM;
		snprintf(k->prefix, sizeof k->prefix, "/containers/%s", names[i]);
		int fd = open(data, O_RDONLY | O_CLOEXEC);
		colfs_status st = fd < 0 ? colfs_fail(&err, COLFS_EIO, 0,
						      "%s: %s", data, strerror(errno))
					 : colfs_source_create_fd(fd, 1, &c->src);
		if (st == COLFS_OK) {
			k->data_size = colfs_source_size(c->src);
			st = kudu_meta_read(k, max_alloc, &err);
		} else if (fd >= 0) {
			close(fd);
		}
		if (st == COLFS_OK)
			st = kudu_pbc_read(t, k, meta, max_alloc, &err);
		if (st == COLFS_OK)
			st = kudu_blocks_check(t, k, c->src);
		if (st == COLFS_ENOMEM)
			return st;
		if (st != COLFS_OK) {
			colfs_tree_report_path(t, k->prefix, err.offset, st,
					       "container not readable: %s",
					       err.msg);
			k->nblocks = k->live = k->deleted = k->punched = 0;
		}
	}
	free(names);
	snprintf(dir, sizeof dir, "%s/tablet-meta", r->dir);
	names = dir_names(dir, NULL, &n);
	r->tab = calloc(n + 1, sizeof *r->tab);
	if (!r->tab)
		return COLFS_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct kroot_tablet *tb = &r->tab[r->ntab];
		char meta[4400];
		colfs_err err = {0};
		kudu_state *k = calloc(1, sizeof *k);
		snprintf(meta, sizeof meta, "%s/%s", dir, names[i]);
		tb->id = names[i];
		tb->st = k;
		r->ntab++;
		if (!k || !(k->meta_path = strdup(meta)))
			return COLFS_ENOMEM;
		k->tablet = true;
		snprintf(k->prefix, sizeof k->prefix, "/tablets/%s", names[i]);
		colfs_status st = kudu_meta_read(k, max_alloc, &err);
		if (st == COLFS_OK)
			st = kudu_pbc_read(t, k, meta, max_alloc, &err);
		if (st == COLFS_OK)
			st = kudu_tablet_decode(t, k, max_alloc, &err);
		if (st == COLFS_ENOMEM)
			return st;
		if (st != COLFS_OK)
			colfs_tree_report_path(t, k->prefix, err.offset, st,
					       "superblock not readable: %s",
					       err.msg);
	}
	free(names);
	return COLFS_OK;
}

static kudu_root *root_of(colfs_tree *t)
{
	return state_of(t)->root;
}

/* Where block `id` lives: its container and block, or false. */
static bool root_find(kudu_root *r, uint64_t id, struct kroot_container **c,
		      const kudu_block **b)
{
	for (size_t i = 0; i < r->ncont; i++) {
		long j = kudu_block_find_live(r->cont[i].st, id);
		if (j >= 0) {
			*c = &r->cont[i];
			*b = &r->cont[i].st->blocks[j];
			return true;
		}
	}
	return false;
}

/* The block id of (tablet a, rowset b, role and index in c). */
static const Kudu__Fs__BlockIdPB *root_block_id(kudu_root *r, uint64_t a,
						uint64_t b, uint64_t c)
{
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)r->tab[a].st->sb.msg;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[b];
	size_t k = (size_t)(c & 0xffff);
	switch (c >> 16) {
	case KROLE_COLUMN:
		return k < rs->n_columns ? rs->columns[k]->block : NULL;
	case KROLE_BLOOM:
		return rs->bloom_block;
	case KROLE_ADHOC:
		return rs->adhoc_index_block;
	case KROLE_REDO:
		return k < rs->n_redo_deltas ? rs->redo_deltas[k]->block : NULL;
	default:
		return k < rs->n_undo_deltas ? rs->undo_deltas[k]->block : NULL;
	}
}

/* A tree over block `id` wherever it is (a window of its container). */
static colfs_status root_block_tree(colfs_tree *t, uint64_t id,
				    colfs_tree **out, char *why, size_t len)
{
	kudu_root *r = root_of(t);
	struct kroot_container *c;
	const kudu_block *b;
	char name[32], display[4300];
	colfs_source *w;
	block_name(id, name, sizeof name);
	*out = NULL;
	if (!root_find(r, id, &c, &b)) {
		snprintf(why, len, "block %s is in no container of the data root", name);
		return COLFS_ENOENT;
	}
	snprintf(display, sizeof display, "%s/data/%s.data block %s", r->dir,
		 c->stem, name);
	COLFS_TRY(colfs_source_create_window(c->src, b->off, b->len, &w));
	return colfs_tree_open_source(w, display, colfs_tree_options(t), out,
				      why, len);
}

static colfs_status root_block_populate(colfs_tree *t, colfs_node *dir)
{
	const Kudu__Fs__BlockIdPB *id = root_block_id(
		root_of(t), colfs_node_a(dir), colfs_node_b(dir), colfs_node_c(dir));
	colfs_tree *sub;
	char why[600], path[600];
	if (!id)
		return COLFS_ENOENT;
	colfs_status st = root_block_tree(t, id->id, &sub, why, sizeof why);
	if (st != COLFS_OK) {
		colfs_node_path(dir, path, sizeof path);
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				       "%s", why);
		return st;
	}
	return colfs_dir_graft(t, dir, sub, COLFS_GRAFT_FOREIGN);
}

static const colfs_node_ops root_block_ops = {.populate = root_block_populate};

static colfs_node *root_add_block(colfs_tree *t, colfs_node *dir,
				  const char *name, uint64_t a, uint64_t b,
				  uint64_t role, uint64_t k)
{
	colfs_node *n = colfs_dir_add_dir(t, dir, name, &root_block_ops, NULL);
	if (n)
		colfs_node_set_args(n, a, b, role << 16 | k);
	return n;
}

static colfs_status root_role_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir), role = colfs_node_c(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[b];
	size_t n = role == KROLE_REDO ? rs->n_redo_deltas
		   : role == KROLE_UNDO ? rs->n_undo_deltas
					: rs->n_columns;
	for (size_t i = 0; i < n; i++) {
		char name[300];
		if (role == KROLE_COLUMN) {
			const Kudu__Fs__ColumnSchemaPB *c =
				kudu_column_by_id(sb, rs->columns[i]->column_id);
			if (c)
				snprintf(name, sizeof name, "%s", c->name);
			else
				snprintf(name, sizeof name, "column_id_%d",
					 rs->columns[i]->column_id);
		} else {
			snprintf(name, sizeof name, "%zu", i);
		}
		if (!root_add_block(t, dir, name, a, b, role, i))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops root_role_ops = {.populate = root_role_populate};

static colfs_status root_rowset_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir), b = colfs_node_b(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[b];
	static const char *const roles[] = {"columns", "redo", "undo"};
	static const uint64_t role_of[] = {KROLE_COLUMN, KROLE_REDO, KROLE_UNDO};
	colfs_node *j = colfs_dir_add_doc(t, dir, "rowset.json", &kudu_rowset_json_ops, NULL);
	colfs_node *k = colfs_dir_add_doc(t, dir, "blocks", &kudu_rowset_blocks_ops, NULL);
	if (!j || !k)
		return COLFS_ENOMEM;
	/* the tablet's state for the superblock documents */
	colfs_node_set_args(j, a << 32 | b, 0, 0);
	colfs_node_set_args(k, a << 32 | b, 0, 0);
	for (int i = 0; i < 3; i++) {
		colfs_node *n = colfs_dir_add_dir(t, dir, roles[i], &root_role_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, a, b, role_of[i]);
	}
	if (rs->bloom_block && !root_add_block(t, dir, "bloom", a, b, KROLE_BLOOM, 0))
		return COLFS_ENOMEM;
	if (rs->adhoc_index_block &&
	    !root_add_block(t, dir, "adhoc_index", a, b, KROLE_ADHOC, 0))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops root_rowset_ops = {.populate = root_rowset_populate};

static colfs_status root_rowsets_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	for (size_t i = 0; i < sb->n_rowsets; i++) {
		char name[32];
		snprintf(name, sizeof name, "%zu", i);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &root_rowset_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, a, i, 0);
	}
	return COLFS_OK;
}

/* tablets/<id>/columns/<name>: piece r is the column's values in rowset
 * r (base data: deltas are not applied). */
static colfs_status root_column_piece(colfs_tree *t, colfs_node *file,
				      uint64_t index, colfs_buf *out)
{
	uint64_t a = colfs_node_a(file), c = colfs_node_b(file);
	kudu_root *r = root_of(t);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)r->tab[a].st->sb.msg;
	const Kudu__Fs__ColumnSchemaPB *col = sb->schema->columns[c];
	char why[600], path[600];
	if (index >= sb->n_rowsets)
		return COLFS_END;
	const Kudu__Fs__RowSetDataPB *rs = sb->rowsets[index];
	const Kudu__Fs__BlockIdPB *id = NULL;
	for (size_t i = 0; i < rs->n_columns; i++)
		if (col->has_id && rs->columns[i]->column_id == (int32_t)col->id)
			id = rs->columns[i]->block;
	colfs_node_path(file, path, sizeof path);
	if (!id) {
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_EUNSUPPORTED,
				       "rowset %llu has no block of column %s (a column added later: its default values are not shown)",
				       (unsigned long long)index, col->name);
		return COLFS_OK;
	}
	colfs_tree *sub;
	colfs_node *vals;
	colfs_handle *h;
	colfs_status st = root_block_tree(t, id->id, &sub, why, sizeof why);
	if (st != COLFS_OK) {
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				       "rowset %llu: %s", (unsigned long long)index, why);
		return COLFS_EIO;
	}
	st = colfs_tree_resolve(sub, "values", &vals);
	if (st == COLFS_OK)
		st = colfs_node_open(sub, vals, &h);
	for (uint64_t at = 0; st == COLFS_OK;) {
		size_t got = 0;
		if (!colfs_buf_reserve(out, 65536)) {
			st = COLFS_ENOMEM;
			break;
		}
		st = colfs_handle_read(h, at, 65536, out->data + out->len, &got);
		if (st != COLFS_OK || !got) {
			colfs_handle_close(h);
			break;
		}
		out->len += got;
		at += got;
	}
	if (st != COLFS_OK && st != COLFS_ENOMEM) {
		colfs_problem p;
		if (colfs_tree_error_get(sub, 0, &p) == COLFS_OK)
			colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, p.status,
					       "rowset %llu, block %016llu: %s",
					       (unsigned long long)index,
					       (unsigned long long)id->id, p.message);
	}
	colfs_tree_destroy(sub);
	return st;
}

static const colfs_node_ops root_column_ops = {.piece = root_column_piece};

static colfs_status root_columns_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir);
	const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)root_of(t)->tab[a].st->sb.msg;
	for (size_t i = 0; sb->schema && i < sb->schema->n_columns; i++) {
		colfs_node *n = colfs_dir_add_stream(t, dir, sb->schema->columns[i]->name,
						     &root_column_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, a, i, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops root_rowsets_ops = {.populate = root_rowsets_populate};
static const colfs_node_ops root_columns_ops = {.populate = root_columns_populate};

static colfs_status root_tablet_populate(colfs_tree *t, colfs_node *dir)
{
	uint64_t a = colfs_node_a(dir);
	colfs_node *n[4] = {
		colfs_dir_add_doc(t, dir, "superblock.json", &kudu_superblock_ops, NULL),
		colfs_dir_add_doc(t, dir, "schema", &kudu_schema_ops, NULL),
		colfs_dir_add_dir(t, dir, "rowsets", &root_rowsets_ops, NULL),
		colfs_dir_add_dir(t, dir, "columns", &root_columns_ops, NULL),
	};
	for (int i = 0; i < 4; i++) {
		if (!n[i])
			return COLFS_ENOMEM;
		colfs_node_set_args(n[i], a, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops root_tablet_ops = {.populate = root_tablet_populate};

static colfs_status root_tablets_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_root *r = root_of(t);
	for (size_t i = 0; i < r->ntab; i++) {
		if (!r->tab[i].st->sb.msg)
			continue;
		colfs_node *n = colfs_dir_add_dir(t, dir, r->tab[i].id,
						  &root_tablet_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status root_container_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_root *r = root_of(t);
	char path[4400], why[600];
	colfs_tree *sub;
	snprintf(path, sizeof path, "%s/data/%s.data", r->dir,
		 r->cont[colfs_node_a(dir)].stem);
	if (colfs_tree_open(path, colfs_tree_options(t), &sub, why, sizeof why)) {
		colfs_node_path(dir, path, sizeof path);
		colfs_tree_report_path(t, path, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				       "%s", why);
		return COLFS_EIO;
	}
	return colfs_dir_graft(t, dir, sub, COLFS_GRAFT_FOREIGN);
}

static const colfs_node_ops root_container_ops = {.populate = root_container_populate};

static colfs_status root_containers_populate(colfs_tree *t, colfs_node *dir)
{
	kudu_root *r = root_of(t);
	for (size_t i = 0; i < r->ncont; i++) {
		colfs_node *n = colfs_dir_add_dir(t, dir, r->cont[i].stem,
						  &root_container_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, i, 0, 0);
	}
	return COLFS_OK;
}

static colfs_status root_summary_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	kudu_root *r = root_of(t);
	size_t live = 0, deleted = 0, tablets = 0, rowsets = 0;
	(void)file;
	for (size_t i = 0; i < r->ncont; i++) {
		live += r->cont[i].st->live;
		deleted += r->cont[i].st->deleted;
	}
	for (size_t i = 0; i < r->ntab; i++) {
		const Kudu__Fs__TabletSuperBlockPB *sb = (const void *)r->tab[i].st->sb.msg;
		if (sb) {
			tablets++;
			rowsets += sb->n_rowsets;
		}
	}
	colfs_buf_printf(out, "format: Kudu data root (log block manager)\n");
	colfs_buf_printf(out, "root: %s\n", r->dir);
	colfs_buf_printf(out, "containers: %zu (%zu live blocks, %zu deleted)\n",
			 r->ncont, live, deleted);
	colfs_buf_printf(out, "tablets: %zu of %zu superblocks readable, %zu rowsets\n",
			 tablets, r->ntab, rowsets);
	colfs_buf_printf(out, "problems: %zu\n", colfs_tree_error_count(t));
	return colfs_buf_status(out);
}

static colfs_status root_readme_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	(void)file;
	const colfs_readme_row rows[] = {
		{true, 0, "summary", false, "containers, blocks, tablets, rowsets"},
		{true, 0, "containers/", false,
		 "the log block containers of data/, by name"},
		{true, 1, "<id>/", false,
		 "the container's tree, as `colfs data/<id>.data` shows it"},
		{true, 0, "tablets/", false, "the tablets of tablet-meta/, by id"},
		{true, 1, "<id>/", false, "one tablet"},
		{true, 2, "superblock.json", false, "its TabletSuperBlockPB"},
		{true, 2, "schema", false,
		 "one line per column: name, type, NULL or NOT NULL, KEY, column id"},
		{true, 2, "rowsets/", false, "its rowsets, numbered from 0"},
		{true, 3, "N/", false, "rowset N"},
		{true, 4, "rowset.json", false, "its RowSetDataPB"},
		{true, 4, "blocks", false, "its blocks, one `<block id> <role>` line each"},
		{true, 4, "columns/", false, "one directory per column"},
		{true, 5, "<name>/", false,
		 "the CFile tree of the column's block, wherever its container is"},
		{true, 4, "bloom/", false, "the bloom filter's CFile tree"},
		{true, 4, "adhoc_index/", false, "the ad hoc index's CFile tree"},
		{true, 4, "redo/", false, "the REDO delta files, numbered from 0"},
		{true, 4, "undo/", false, "the UNDO delta files, numbered from 0"},
		{true, 2, "columns/", false, "the tablet's columns over all rowsets"},
		{true, 3, "<name>", true,
		 "the column's base values of every rowset in turn (deltas not applied)"},
	};
	const colfs_readme r = {
		.what = "the instance file of an Apache Kudu data root",
		.about = "Blocks are looked up in every container of data/.\n\n",
		.format_text = "\"kudu data root\"",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static colfs_status root_format_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	(void)t;
	(void)file;
	colfs_buf_puts(out, "kudu data root\n");
	return colfs_buf_status(out);
}

static colfs_status root_layout_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	colfs_layout l = COLFS_LAYOUT_INIT;
	uint64_t size = colfs_source_size(colfs_tree_source(t));
	(void)file;
	colfs_layout_add(&l, 0, size, "instance_file", "/format");
	return colfs_layout_write(&l, size, out);
}

static const colfs_node_ops root_readme_ops = {.generate = root_readme_generate};
static const colfs_node_ops root_format_ops = {.generate = root_format_generate};
static const colfs_node_ops root_layout_ops = {.generate = root_layout_generate};
static const colfs_node_ops root_summary_ops = {.generate = root_summary_generate};
static const colfs_node_ops root_tablets_ops = {.populate = root_tablets_populate};
static const colfs_node_ops root_containers_ops = {.populate = root_containers_populate};

static colfs_status root_root_populate(colfs_tree *t, colfs_node *root)
{
	if (!colfs_dir_add_doc(t, root, "README", &root_readme_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "format", &root_format_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "layout", &root_layout_ops, NULL) ||
	    !colfs_dir_add_errors(t, root) ||
	    !colfs_dir_add_summary(t, root, &root_summary_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "containers", &root_containers_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "tablets", &root_tablets_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops root_root_ops = {.populate = root_root_populate};

colfs_status kudu_root_open(colfs_tree *t, colfs_err *err)
{
	const colfs_options *o = colfs_tree_options(t);
	uint64_t max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	kudu_state *k = calloc(1, sizeof *k);
	if (!k)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_tree_set_format_state(t, k);
	k->root = calloc(1, sizeof *k->root);
	if (!k->root || !(k->root->dir = strdup(colfs_tree_display_name(t))))
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	if (root_read(t, k->root, max_alloc) != COLFS_OK)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	colfs_node_set_ops(colfs_tree_root(t), &root_root_ops, NULL);
	return COLFS_OK;
}


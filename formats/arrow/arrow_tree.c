/* colfs: the tree of an Arrow IPC file or stream (docs/arrow-tree.md).
 *
 * The value views (columns/<field>, rows.jsonl, rows.csv) are streams
 * whose pieces are runs of at most ROWS_PER_PIECE rows of one record
 * batch; a view keeps the last batch it loaded (its own columns only
 * for columns/<field>) until it moves to another batch. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_int.h"

#define ROWS_PER_PIECE 65536

bool arrow_msg_variadic(const arrow_file *f, uint32_t mi, uint32_t k,
			int64_t *count);

static arrow_file *file_of(colfs_tree *t)
{
	return colfs_tree_format_state(t);
}

/* --- piece numbering ---------------------------------------------------- */

typedef struct arrow_views {
	uint64_t *first;       /* first piece of each batch, nbatches + 1 */
} arrow_views;

static arrow_views *views_of(colfs_tree *t)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	arrow_file *f = file_of(t);
	pthread_mutex_lock(&mu);
	arrow_views *v = f->views;
	if (!v && (v = colfs_tree_alloc(t, sizeof(*v))) &&
	    (v->first = colfs_tree_alloc(t, (f->nbatches + 1) *
						    sizeof(uint64_t)))) {
		uint64_t p = 0;
		for (uint32_t i = 0; i < f->nbatches; i++) {
			v->first[i] = p;
			int64_t n = f->msgs[f->batches[i]].length;
			p += (uint64_t)(n + ROWS_PER_PIECE - 1) / ROWS_PER_PIECE;
		}
		v->first[f->nbatches] = p;
		f->views = v;
	}
	pthread_mutex_unlock(&mu);
	return v && v->first ? v : NULL;
}

typedef arrow_view view_state;

static void view_release(colfs_tree *t, colfs_node *n)
{
	(void)t;
	view_state *s = colfs_node_ctx(n);
	if (s) {
		arrow_batch_free(s->b);
		s->b = NULL;
	}
}

/* The batch and rows of piece `index`; COLFS_END past the last. */
static colfs_status piece_batch(colfs_tree *t, view_state *s, uint64_t index,
				uint32_t *bi, int64_t *r0, int64_t *r1)
{
	arrow_file *f = file_of(t);
	arrow_views *v = views_of(t);
	colfs_err err = {0};
	if (!v)
		return COLFS_ENOMEM;
	if (!f->nbatches || index >= v->first[f->nbatches])
		return COLFS_END;
	size_t u = colfs_part_of_piece(v->first, f->nbatches, index);
	int64_t len = f->msgs[f->batches[u]].length;
	*bi = (uint32_t)u;
	*r0 = (int64_t)(index - v->first[u]) * ROWS_PER_PIECE;
	*r1 = *r0 + ROWS_PER_PIECE < len ? *r0 + ROWS_PER_PIECE : len;
	if (s->b && s->bi == u)
		return COLFS_OK;
	arrow_batch_free(s->b);
	s->b = NULL;
	colfs_status st = arrow_batch_load(f, f->batches[u], s->col, &s->b,
					   &err);
	if (st) {
		char path[64];
		snprintf(path, sizeof(path), "/record_batches/%zu", u);
		colfs_tree_report_err_path(t, path, &err);
		colfs_tree_note_hidden(t, path, err.offset, 0,
				       (uint64_t)len);
		return st;
	}
	s->bi = (uint32_t)u;
	if (s->b->mismatch.count) {
		char path[64];
		snprintf(path, sizeof(path), "/record_batches/%zu", u);
		colfs_tree_report_path(t, path, s->b->mismatch.off,
				       COLFS_ECORRUPT,
				       "%u LZ4 buffer(s) announce another "
				       "length than their frames hold (the "
				       "first %lld, its frame %lld bytes): "
				       "read as the frames say",
				       s->b->mismatch.count,
				       (long long)s->b->mismatch.announced,
				       (long long)s->b->mismatch.actual);
	}
	return COLFS_OK;
}

static colfs_status value_fail(colfs_tree *t, uint32_t bi, colfs_err *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/record_batches/%u", bi);
	colfs_tree_report_err_path(t, path, err);
	return err->status ? err->status : COLFS_ECORRUPT;
}

static colfs_render text_render(colfs_tree *t)
{
	colfs_render r = {0};
	r.null_token = colfs_tree_options(t)->null_token;
	return r;
}

static colfs_status column_piece(colfs_tree *t, colfs_node *file,
				 uint64_t index, colfs_buf *out)
{
	view_state *s = colfs_node_ctx(file);
	arrow_file *f = file_of(t);
	uint32_t bi;
	int64_t r0, r1;
	colfs_err err = {0};
	colfs_render r = text_render(t);

	COLFS_TRY(piece_batch(t, s, index, &bi, &r0, &r1));
	const arrow_arr *a = &s->b->cols[s->col];
	for (int64_t i = r0; i < r1; i++) {
		if (arrow_render_value(out, &r, f, bi, a, i, &err))
			return value_fail(t, bi, &err);
		colfs_buf_putc(out, '\n');
	}
	return colfs_buf_status(out);
}

static colfs_status rows_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			       colfs_buf *out, bool csv)
{
	view_state *s = colfs_node_ctx(file);
	arrow_file *f = file_of(t);
	uint32_t bi;
	int64_t r0 = 0, r1 = 0;
	colfs_err err = {0};
	/* rows.csv: each field in CSV mode, written as core/render.h
	 * writes a field of it (RFC 4180, docs/values.md) */
	colfs_render r = colfs_render_csv_mode();
	const colfs_render jr = {.json = true};
	colfs_buf tmp = COLFS_BUF_INIT;
	colfs_status st;

	if (csv && index == 0) {
		for (uint32_t k = 0; k < f->root.nchildren; k++) {
			const char *n = f->root.children[k].name;
			if (k)
				colfs_buf_putc(out, ',');
			colfs_render_csv_field(out, n, strlen(n));
		}
		colfs_buf_putc(out, '\n');
	}
	st = piece_batch(t, s, index, &bi, &r0, &r1);
	if (st == COLFS_END && csv && index == 0)
		return colfs_buf_status(out);
	COLFS_TRY(st);
	for (int64_t i = r0; i < r1; i++) {
		if (!csv)
			colfs_buf_putc(out, '{');
		for (uint32_t k = 0; k < s->b->ncols; k++) {
			const char *n = f->root.children[k].name;
			if (k)
				colfs_buf_putc(out, ',');
			if (csv) {
				tmp.len = 0;
				st = arrow_render_value(&tmp, &r, f, bi,
							&s->b->cols[k], i,
							&err);
				if (!st)
					colfs_render_csv_value(out, tmp.data,
						tmp.len,
						colfs_tree_options(t)->csv_null);
			} else {
				colfs_render_json_string(
					out, (const uint8_t *)n, strlen(n));
				colfs_buf_putc(out, ':');
				st = arrow_render_value(out, &jr, f, bi,
							&s->b->cols[k], i,
							&err);
			}
			if (st) {
				colfs_buf_free(&tmp);
				return value_fail(t, bi, &err);
			}
		}
		colfs_buf_puts(out, csv ? "\n" : "}\n");
	}
	colfs_buf_free(&tmp);
	return colfs_buf_status(out);
}

static colfs_status jsonl_piece(colfs_tree *t, colfs_node *file,
				uint64_t index, colfs_buf *out)
{
	return rows_piece(t, file, index, out, false);
}

static colfs_status csv_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			      colfs_buf *out)
{
	return rows_piece(t, file, index, out, true);
}

/* A column view: its field's name and type. */
static colfs_status column_xattrs(colfs_tree *t, colfs_node *n,
				  colfs_xattrs *x)
{
	arrow_file *f = file_of(t);
	view_state *s = colfs_node_ctx(n);
	colfs_buf b = COLFS_BUF_INIT;
	if (!s || s->col >= f->root.nchildren)
		return COLFS_OK;
	arrow_type_text(&b, &f->root.children[s->col]);
	colfs_xattrs_set(x, "column", "%s", f->root.children[s->col].name);
	colfs_xattrs_set(x, "type", "%.*s", (int)b.len, b.data ? b.data : "");
	colfs_buf_free(&b);
	return COLFS_OK;
}

static const colfs_node_ops column_ops = {.piece = column_piece,
					  .xattrs = column_xattrs,
					  .release = view_release};
static const colfs_node_ops jsonl_ops = {.piece = jsonl_piece,
					 .release = view_release};
static const colfs_node_ops csv_ops = {.piece = csv_piece,
				       .release = view_release};

static view_state *view_new(colfs_tree *t, uint32_t col)
{
	arrow_file *f = file_of(t);
	view_state *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->col = col;
	pthread_mutex_lock(&f->lock);
	if (f->nvstates == f->capvstates) {
		size_t cap = f->capvstates ? 2 * f->capvstates : 16;
		view_state **n = realloc(f->vstates, cap * sizeof(*n));
		if (!n) {
			pthread_mutex_unlock(&f->lock);
			free(s);
			return NULL;
		}
		f->vstates = n;
		f->capvstates = cap;
	}
	f->vstates[f->nvstates++] = s;
	pthread_mutex_unlock(&f->lock);
	return s;
}

static colfs_status columns_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	for (uint32_t k = 0; k < f->root.nchildren; k++) {
		view_state *s = view_new(t, k);
		if (!s || !colfs_dir_add_stream(t, dir, f->root.children[k].name,
						&column_ops, s))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops columns_ops = {.populate = columns_populate};

/* --- the buffers of a batch --------------------------------------------- */

typedef struct buf_role {
	uint32_t k;            /* buffer index in the message */
	char name[200];        /* field path and role */
} buf_role;

typedef struct role_walk {
	const arrow_file *f;
	uint32_t mi;
	int version;
	uint32_t node, buf, var;
	json_t *nodes;         /* may be NULL */
	buf_role *roles;       /* may be NULL */
	size_t nroles, cap;
	uint32_t want_top;     /* UINT32_MAX: all */
	uint32_t top;
} role_walk;

static void role_add(role_walk *w, const char *path, const char *role)
{
	uint32_t k = w->buf++;
	if (!w->roles || (w->want_top != UINT32_MAX && w->top != w->want_top))
		return;
	if (w->nroles == w->cap)
		return;
	buf_role *r = &w->roles[w->nroles++];
	r->k = k;
	snprintf(r->name, sizeof(r->name), "%u-%s.%s", k, path, role);
}

static void roles_field(role_walk *w, const arrow_field *fl, bool values,
			const char *parent, int depth)
{
	char path[160];
	int64_t len = 0, nulls = 0;
	bool dict = fl->dict && !values;
	uint8_t t = dict ? AT_INT : fl->type;

	if (depth > ARROW_MAX_DEPTH)
		return;
	snprintf(path, sizeof(path), "%s%s%s", parent, parent[0] ? "." : "",
		 fl->name);
	bool have = arrow_msg_node(w->f, w->mi, w->node, &len, &nulls, NULL);
	if (w->nodes && have)
		json_array_append_new(w->nodes,
				      json_pack("{s:s, s:I, s:I}", "field",
						path, "length", (json_int_t)len,
						"null_count",
						(json_int_t)nulls));
	w->node++;
	if (t != AT_NULL && t != AT_REE && (t != AT_UNION || w->version < 4))
		role_add(w, path, "validity");
	if (dict) {
		role_add(w, path, "indices");
		return;
	}
	switch (t) {
	case AT_BINARY: case AT_UTF8: case AT_LBINARY: case AT_LUTF8:
		role_add(w, path, "offsets");
		role_add(w, path, "data");
		break;
	case AT_BINVIEW: case AT_UTF8VIEW: {
		int64_t nv = 0;
		role_add(w, path, "views");
		arrow_msg_variadic(w->f, w->mi, w->var++, &nv);
		for (int64_t i = 0; i < nv && i < 1000000; i++)
			role_add(w, path, "variadic");
		break;
	}
	case AT_LIST: case AT_LLIST: case AT_MAP:
		role_add(w, path, "offsets");
		break;
	case AT_LISTVIEW: case AT_LLISTVIEW:
		role_add(w, path, "offsets");
		role_add(w, path, "sizes");
		break;
	case AT_UNION:
		role_add(w, path, "type_ids");
		if (fl->union_mode)
			role_add(w, path, "offsets");
		break;
	case AT_NULL: case AT_REE: case AT_STRUCT: case AT_FSL:
		break;
	default:
		role_add(w, path, "data");
	}
	for (uint32_t i = 0; i < fl->nchildren; i++)
		roles_field(w, &fl->children[i], false, path, depth + 1);
}

/* Walk the fields of message `mi` (a record batch: the schema's; a
 * dictionary batch: its value field). */
static void roles_walk(role_walk *w)
{
	const arrow_file *f = w->f;
	const arrow_msg *m = &f->msgs[w->mi];
	w->version = m->version;
	if (m->kind == AM_DICT) {
		for (uint32_t k = 0; k < f->ndict; k++)
			if (f->dict_ids[k] == m->dict_id)
				roles_field(w, f->dict_fields[k], true, "", 1);
		return;
	}
	for (uint32_t i = 0; i < f->root.nchildren; i++) {
		w->top = i;
		roles_field(w, &f->root.children[i], false, "", 1);
	}
}

static json_t *msg_json(const arrow_file *f, uint32_t mi)
{
	const arrow_msg *m = &f->msgs[mi];
	json_t *o = json_object();
	json_t *nodes = json_array(), *bufs = json_array();
	role_walk w = {.f = f, .mi = mi, .nodes = nodes,
		       .want_top = UINT32_MAX, .cap = 4096};
	w.roles = calloc(w.cap, sizeof(buf_role));
	roles_walk(&w);
	uint32_t nbuf = 0;
	int64_t off, len;
	arrow_msg_buffer(f, mi, 0, &off, &len, &nbuf);
	for (uint32_t k = 0; k < nbuf; k++) {
		if (!arrow_msg_buffer(f, mi, k, &off, &len, NULL))
			break;
		const char *role = NULL;
		for (size_t j = 0; j < w.nroles; j++)
			if (w.roles[j].k == k)
				role = strchr(w.roles[j].name, '-') + 1;
		json_array_append_new(
			bufs, json_pack("{s:I, s:s?, s:I, s:I, s:I}", "index",
					(json_int_t)k, "field", role,
					"offset", (json_int_t)off,
					"file_offset",
					(json_int_t)(m->body_off + (uint64_t)off),
					"length", (json_int_t)len));
	}
	free(w.roles);
	json_object_set_new(o, "offset", json_integer((json_int_t)m->off));
	json_object_set_new(o, "metadata_offset",
			    json_integer((json_int_t)m->meta_off));
	json_object_set_new(o, "metadata_length",
			    json_integer((json_int_t)m->meta_len));
	json_object_set_new(o, "body_offset",
			    json_integer((json_int_t)m->body_off));
	json_object_set_new(o, "body_length",
			    json_integer((json_int_t)m->body_len));
	json_object_set_new(o, "metadata_version",
			    json_integer(m->version + 1));
	if (m->kind == AM_DICT) {
		json_object_set_new(o, "dictionary_id",
				    json_integer((json_int_t)m->dict_id));
		json_object_set_new(o, "delta", json_boolean(m->delta));
	}
	json_object_set_new(o, "length", json_integer((json_int_t)m->length));
	json_object_set_new(o, "compression",
			    json_string(arrow_codec_name(m->codec)));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "buffers", bufs);
	return o;
}

static colfs_status meta_json_generate(colfs_tree *t, colfs_node *file,
				       colfs_buf *out)
{
	json_t *o = msg_json(file_of(t), (uint32_t)colfs_node_a(file));
	if (!o)
		return COLFS_ENOMEM;
	return colfs_buf_json(out, o);
}

static const colfs_node_ops meta_json_ops = {.generate = meta_json_generate};

static colfs_status decompressed_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	arrow_file *f = file_of(t);
	uint8_t *p;
	uint64_t len;
	colfs_err err = {0};
	colfs_status st = arrow_buffer_read(f, (uint32_t)colfs_node_a(file),
					    (uint32_t)colfs_node_b(file), true,
					    &p, &len, &err);
	if (st) {
		colfs_tree_report_err(t, file, &err);
		return st;
	}
	colfs_buf_append(out, p, len);
	free(p);
	return colfs_buf_status(out);
}

static const colfs_node_ops decompressed_ops = {
	.generate = decompressed_generate};

static colfs_status buffers_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	uint32_t mi = (uint32_t)colfs_node_a(dir);
	const arrow_msg *m = &f->msgs[mi];
	role_walk w = {.f = f, .mi = mi, .want_top = (uint32_t)colfs_node_b(dir),
		       .cap = 4096};
	if (!(w.roles = calloc(w.cap, sizeof(buf_role))))
		return COLFS_ENOMEM;
	roles_walk(&w);
	colfs_status st = COLFS_OK;
	for (size_t j = 0; j < w.nroles && !st; j++) {
		int64_t off, len;
		if (!arrow_msg_buffer(f, mi, w.roles[j].k, &off, &len, NULL) ||
		    off < 0 || len < 0 || (uint64_t)off > m->body_len ||
		    (uint64_t)len > m->body_len - (uint64_t)off)
			continue;
		if (!colfs_dir_add_range(t, dir, w.roles[j].name,
					 m->body_off + (uint64_t)off,
					 (uint64_t)len))
			st = COLFS_ENOMEM;
		if (!st && m->codec >= 0 && len) {
			char name[240];
			snprintf(name, sizeof(name), "%s.decompressed",
				 w.roles[j].name);
			colfs_node *n = colfs_dir_add_doc(t, dir, name,
							  &decompressed_ops,
							  NULL);
			if (!n)
				st = COLFS_ENOMEM;
			else
				colfs_node_set_args(n, mi, w.roles[j].k, 0);
		}
	}
	free(w.roles);
	return st;
}

static const colfs_node_ops buffers_ops = {.populate = buffers_populate};

static colfs_status batch_column_populate(colfs_tree *t, colfs_node *dir)
{
	colfs_node *n = colfs_dir_add_dir(t, dir, "buffers", &buffers_ops,
					  NULL);
	if (!n)
		return COLFS_ENOMEM;
	colfs_node_set_args(n, colfs_node_a(dir), colfs_node_b(dir), 0);
	return COLFS_OK;
}

static const colfs_node_ops batch_column_ops = {
	.populate = batch_column_populate};

static colfs_status batch_columns_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	uint32_t mi = (uint32_t)colfs_node_a(dir);
	if (f->msgs[mi].kind == AM_DICT) {
		colfs_node *n = colfs_dir_add_dir(t, dir, "buffers",
						  &buffers_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, mi, UINT32_MAX, 0);
		return COLFS_OK;
	}
	for (uint32_t k = 0; k < f->root.nchildren; k++) {
		colfs_node *n = colfs_dir_add_dir(t, dir,
						  f->root.children[k].name,
						  &batch_column_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, mi, k, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops batch_columns_ops = {
	.populate = batch_columns_populate};

static colfs_status batch_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	uint32_t mi = (uint32_t)colfs_node_a(dir);
	const arrow_msg *m = &f->msgs[mi];
	colfs_node *n;
	if (!(n = colfs_dir_add_doc(t, dir, "meta.json", &meta_json_ops,
				    NULL)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, mi, 0, 0);
	if (!(n = colfs_dir_add_dir(t, dir, m->kind == AM_DICT ? "values"
							       : "columns",
				    &batch_columns_ops, NULL)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, mi, 0, 0);
	if (!colfs_dir_add_range(t, dir, "raw", m->off,
				 m->body_off + m->body_len - m->off) ||
	    !colfs_dir_add_errors(t, dir))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

/* A batch's directory: its message's place and facts. */
static colfs_status batch_xattrs(colfs_tree *t, colfs_node *n,
				 colfs_xattrs *x)
{
	arrow_file *f = file_of(t);
	uint32_t mi = (uint32_t)colfs_node_a(n);
	if (mi >= f->nmsgs)
		return COLFS_OK;
	const arrow_msg *m = &f->msgs[mi];
	colfs_xattrs_set(x, "kind", m->kind == AM_DICT ? "dictionary_batch"
						       : "record_batch");
	colfs_xattrs_range(x, m->off, m->body_off + m->body_len - m->off);
	colfs_xattrs_set(x, "num_rows", "%lld", (long long)m->length);
	colfs_xattrs_set(x, "body_length", "%llu",
			 (unsigned long long)m->body_len);
	colfs_xattrs_set(x, "codec", "%s", arrow_codec_name(m->codec));
	if (m->kind == AM_DICT) {
		colfs_xattrs_set(x, "dictionary_id", "%lld",
				 (long long)m->dict_id);
		colfs_xattrs_set(x, "delta", "%s", m->delta ? "yes" : "no");
	}
	return COLFS_OK;
}

static const colfs_node_ops batch_ops = {.populate = batch_populate,
					 .xattrs = batch_xattrs};

static colfs_status batches_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	char name[32];
	for (uint32_t i = 0; i < f->nbatches; i++) {
		snprintf(name, sizeof(name), "%u", i);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &batch_ops,
						  NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, f->batches[i], 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops batches_ops = {.populate = batches_populate};

/* dictionaries/<id>/: its messages in file order, and its values. */
static colfs_status dict_values_generate(colfs_tree *t, colfs_node *file,
					 colfs_buf *out)
{
	arrow_file *f = file_of(t);
	uint32_t k = (uint32_t)colfs_node_a(file);
	colfs_render r = text_render(t);
	colfs_err err = {0};
	for (uint32_t j = 0; j < f->ndmsgs[k]; j++) {
		uint32_t mi = f->dmsgs[k][j];
		arrow_batch *b = NULL;
		pthread_mutex_lock(&f->lock);
		colfs_status st = f->dcache[mi]
					  ? COLFS_OK
					  : arrow_batch_load(f, mi, 0,
							     &f->dcache[mi],
							     &err);
		b = f->dcache[mi];
		pthread_mutex_unlock(&f->lock);
		if (st) {
			colfs_tree_report_err(t, file, &err);
			return st;
		}
		/* nested dictionaries resolve as the first batch sees them */
		for (int64_t i = 0; i < b->cols[0].len; i++) {
			if ((st = arrow_render_value(out, &r, f, 0,
						     &b->cols[0], i, &err))) {
				colfs_tree_report_err(t, file, &err);
				return st;
			}
			colfs_buf_putc(out, '\n');
		}
	}
	return colfs_buf_status(out);
}

static const colfs_node_ops dict_values_ops = {
	.generate = dict_values_generate};

static colfs_status dict_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	uint32_t k = (uint32_t)colfs_node_a(dir);
	char name[32];
	colfs_node *n;
	if (!(n = colfs_dir_add_doc(t, dir, "values", &dict_values_ops,
				    NULL)))
		return COLFS_ENOMEM;
	colfs_node_set_args(n, k, 0, 0);
	for (uint32_t j = 0; j < f->ndmsgs[k]; j++) {
		snprintf(name, sizeof(name), "%u", j);
		if (!(n = colfs_dir_add_dir(t, dir, name, &batch_ops, NULL)))
			return COLFS_ENOMEM;
		colfs_node_set_args(n, f->dmsgs[k][j], 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops dict_ops = {.populate = dict_populate};

static colfs_status dicts_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	char name[32];
	for (uint32_t k = 0; k < f->ndict; k++) {
		snprintf(name, sizeof(name), "%lld", (long long)f->dict_ids[k]);
		colfs_node *n = colfs_dir_add_dir(t, dir, name, &dict_ops,
						  NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, k, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops dicts_ops = {.populate = dicts_populate};

/* --- documents ---------------------------------------------------------- */

static colfs_status summary_generate(colfs_tree *t, colfs_node *file,
				     colfs_buf *out)
{
	(void)file;
	arrow_file *f = file_of(t);
	uint32_t nd = 0;
	int codec = -1, version = -1;
	for (uint32_t i = 0; i < f->nmsgs; i++) {
		nd += f->msgs[i].kind == AM_DICT;
		if (f->msgs[i].codec >= 0)
			codec = f->msgs[i].codec;
		if (f->msgs[i].version > version)
			version = f->msgs[i].version;
	}
	colfs_buf_printf(out, "format: Arrow IPC %s\n",
			 f->is_file ? "file (Feather v2, ARROW1)" : "stream");
	if (version >= 0)
		colfs_buf_printf(out, "metadata version: V%d\n", version + 1);
	colfs_buf_printf(out, "endianness: %s\n",
			 f->big_endian ? "big (byte-swapped when read)"
				       : "little");
	colfs_buf_printf(out, "fields: %u\n", f->root.nchildren);
	colfs_buf_printf(out, "rows: %llu\n",
			 (unsigned long long)f->total_rows);
	colfs_buf_printf(out, "record batches: %u\n", f->nbatches);
	colfs_buf_printf(out, "dictionary batches: %u\n", nd);
	colfs_buf_printf(out, "dictionaries: %u\n", f->ndict);
	colfs_buf_printf(out, "compression: %s\n", arrow_codec_name(codec));
	colfs_buf_printf(out, "file size: %llu\n", (unsigned long long)f->size);
	return colfs_buf_status(out);
}

static void schema_field(colfs_buf *out, const arrow_field *fl, int depth)
{
	for (int i = 0; i < depth; i++)
		colfs_buf_puts(out, "  ");
	colfs_buf_puts(out, fl->name);
	colfs_buf_puts(out, ": ");
	arrow_type_text(out, fl);
	colfs_buf_puts(out, fl->nullable ? "\n" : " not null\n");
}

static colfs_status schema_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	arrow_file *f = file_of(t);
	for (uint32_t i = 0; i < f->root.nchildren; i++)
		schema_field(out, &f->root.children[i], 0);
	return colfs_buf_status(out);
}

static json_t *kv_json(const arrow_kv *kv, uint32_t n)
{
	json_t *o = json_object();
	for (uint32_t i = 0; i < n; i++)
		json_object_set_new(o, kv[i].key, json_string(kv[i].value));
	return o;
}

static void fields_md(json_t *arr, const arrow_field *fl, const char *parent,
		      int depth)
{
	char path[512];
	if (depth > ARROW_MAX_DEPTH)
		return;
	snprintf(path, sizeof(path), "%s%s%s", parent, parent[0] ? "." : "",
		 fl->name);
	if (fl->nmd)
		json_array_append_new(arr,
				      json_pack("{s:s, s:o}", "field", path,
						"metadata",
						kv_json(fl->md, fl->nmd)));
	for (uint32_t i = 0; i < fl->nchildren; i++)
		fields_md(arr, &fl->children[i], path, depth + 1);
}

static colfs_status metadata_generate(colfs_tree *t, colfs_node *file,
				      colfs_buf *out)
{
	(void)file;
	arrow_file *f = file_of(t);
	json_t *fields = json_array();
	for (uint32_t i = 0; i < f->root.nchildren; i++)
		fields_md(fields, &f->root.children[i], "", 1);
	json_t *o = json_pack("{s:o, s:o}", "schema", kv_json(f->md, f->nmd),
			      "fields", fields);
	if (!o)
		return COLFS_ENOMEM;
	return colfs_buf_json(out, o);
}

static colfs_status layout_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	arrow_file *f = file_of(t);
	colfs_layout l = COLFS_LAYOUT_INIT;
	uint32_t nb = 0;
	if (f->is_file)
		colfs_layout_add(&l, 0, 8, "magic", "/raw/magic");
	/* each message whole (prefix, metadata, body), at the path of its
	 * directory, whose offset and length xattrs say the same */
	for (uint32_t i = 0; i < f->nmsgs; i++) {
		const arrow_msg *m = &f->msgs[i];
		uint64_t len = m->body_off + m->body_len - m->off;
		if (m->kind == AM_BATCH) {
			colfs_layout_add(&l, m->off, len, "record_batch",
					 "/record_batches/%u", nb++);
			continue;
		}
		uint32_t k, j = 0;
		for (k = 0; k < f->ndict; k++)
			if (f->dict_ids[k] == m->dict_id)
				break;
		for (; k < f->ndict && j < f->ndmsgs[k]; j++)
			if (f->dmsgs[k][j] == i)
				break;
		if (k < f->ndict && j < f->ndmsgs[k])
			colfs_layout_add(&l, m->off, len, "dictionary_batch",
					 "/dictionaries/%lld/%u",
					 (long long)m->dict_id, j);
		else
			colfs_layout_add(&l, m->off, len, "dictionary_batch",
					 "/raw/messages/%u", i);
	}
	if (f->smsg_len)
		colfs_layout_add(&l, f->smsg_off, f->smsg_len, "schema",
				 "/raw/schema");
	if (f->eos_len)
		colfs_layout_add(&l, f->eos_off, f->eos_len, "end_of_stream",
				 "/raw/end_of_stream");
	if (f->footer_len)
		colfs_layout_add(&l, f->footer_off, f->footer_len, "footer",
				 "/raw/footer");
	if (f->is_file)
		colfs_layout_add(&l, f->size - 10, 10, "tail", "/raw/tail");
	colfs_status st = colfs_layout_write(&l, f->size, out);
	colfs_layout_free(&l);
	return st;
}

/* raw/messages/N: every dictionary and record batch message as stored. */
static colfs_status messages_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	char name[32];
	for (uint32_t i = 0; i < f->nmsgs; i++) {
		const arrow_msg *m = &f->msgs[i];
		snprintf(name, sizeof(name), "%u", i);
		if (!colfs_dir_add_range(t, dir, name, m->off,
					 m->body_off + m->body_len - m->off))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops messages_ops = {.populate = messages_populate};

static colfs_status raw_populate(colfs_tree *t, colfs_node *dir)
{
	arrow_file *f = file_of(t);
	if (f->is_file && (!colfs_dir_add_range(t, dir, "magic", 0, 8) ||
			   !colfs_dir_add_range(t, dir, "tail", f->size - 10,
						10)))
		return COLFS_ENOMEM;
	if (f->footer_len &&
	    !colfs_dir_add_range(t, dir, "footer", f->footer_off,
				 f->footer_len))
		return COLFS_ENOMEM;
	if (f->smsg_len &&
	    !colfs_dir_add_range(t, dir, "schema", f->smsg_off, f->smsg_len))
		return COLFS_ENOMEM;
	if (f->eos_len &&
	    !colfs_dir_add_range(t, dir, "end_of_stream", f->eos_off,
				 f->eos_len))
		return COLFS_ENOMEM;
	if (f->nmsgs && !colfs_dir_add_dir(t, dir, "messages", &messages_ops,
					   NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static colfs_status readme_generate(colfs_tree *t, colfs_node *file,
				    colfs_buf *out)
{
	(void)file;
	arrow_file *f = file_of(t);
	bool sch = f->have_schema, nd = sch && f->ndict > 0;
	bool dmsg = false, bbufs = false, dbufs = false;
	for (uint32_t i = 0; i < f->nmsgs; i++) {
		int64_t o, l;
		uint32_t n = 0;
		arrow_msg_buffer(f, i, 0, &o, &l, &n);
		if (f->msgs[i].kind == AM_DICT)
			dbufs = dbufs || n > 0;
		else
			bbufs = bbufs || n > 0;
		dmsg = dmsg || f->msgs[i].kind == AM_DICT;
	}
	bool nb = sch && f->nbatches > 0;
	const colfs_readme_row rows[] = {
		{true, 0, "raw/", false, "the parts of the file as stored"},
		{f->is_file, 1, "magic", false, "ARROW1 and two bytes of padding"},
		{f->smsg_len > 0, 1, "schema", false, "the schema message"},
		{f->nmsgs > 0, 1, "messages/", false,
		 "the dictionary and record batch messages in file order"},
		{f->nmsgs > 0, 2, "N", false,
		 "one message as stored (prefix, metadata, body)"},
		{f->eos_len > 0, 1, "end_of_stream", false,
		 "the end-of-stream marker"},
		{f->footer_len > 0, 1, "footer", false, "the footer flatbuffer"},
		{f->is_file, 1, "tail", false,
		 "the footer's length and the closing ARROW1"},
		{true, 0, "summary", false, "format, metadata version, endianness, "
		 "rows, batches, dictionaries, compression"},
		{sch, 0, "schema", false,
		 "one line per top-level field: name: type"},
		{sch, 0, "metadata.json", false,
		 "custom metadata of the schema and of each field"},
		{sch, 0, "columns/", false, "the values of each top-level field"},
		{sch && f->root.nchildren, 1, "<field>", true,
		 "one row per line, every record batch in order"},
		{sch, 0, "rows.jsonl", true, "one JSON object per row"},
		{sch, 0, "rows.csv", true,
		 "a header line, then one CSV record per row (RFC 4180, docs/values.md)"},
		{sch, 0, "record_batches/", false, "the record batches in file order"},
		{nb, 1, "N/", false, "one record batch"},
		{nb, 2, "meta.json", false, "its length, field nodes, buffers "
		 "(offset, length) and compression"},
		{nb, 2, "columns/", false, "its buffers by top-level field"},
		{nb && f->root.nchildren, 3, "<field>/", false, "one field"},
		{nb && f->root.nchildren, 4, "buffers/", false,
		 "the buffers of the field and its children"},
		{nb && bbufs, 5, "<buffer>", false,
		 "K-<path>.<role>: buffer K of the message as stored; "
		 "K-<path>.<role>.decompressed beside it when the body is "
		 "compressed"},
		{nb, 2, "raw", false, "the message as stored"},
		{nb, 2, "errors", false, "problems under this batch"},
		{nd, 0, "dictionaries/", false, "the dictionaries by id"},
		{nd, 1, "<id>/", false, "one dictionary"},
		{nd, 2, "values", true,
		 "its values, one per line, deltas appended in file order"},
		{nd && dmsg, 2, "N/", false, "each of its dictionary batches"},
		{nd && dmsg, 3, "meta.json", false, "as a record batch's"},
		{nd && dmsg, 3, "values/", false, "its buffers"},
		{nd && dmsg, 4, "buffers/", false, "as a record batch's"},
		{nd && dbufs, 5, "<buffer>", false,
		 "as a record batch's"},
		{nd && dmsg, 3, "raw", false, "the message as stored"},
		{nd && dmsg, 3, "errors", false, "problems under this batch"},
		{sch, 0, "arrays/", false, "the fixed-width top-level fields as "
		 "NumPy arrays (docs/values.md, \"Arrays\")"},
		{sch, 1, "README", false, "each array's NumPy type and the Arrow "
		 "type it comes from"},
		{sch && arrow_arrays_any(f), 1, "<field>.npy", true,
		 "every value, a record batch after the other; "
		 "<field>.nulls.npy beside a nullable field, True for NULL"},
	};
	const colfs_readme r = {
		.what = "an Apache Arrow IPC file",
		.about = "The schema, its record batches and dictionaries, down "
			 "to each buffer (docs/arrow-tree.md).\n\n",
		.format_text = "\"arrow\"",
		.rows = rows,
		.n_rows = sizeof(rows) / sizeof(rows[0]),
	};
	return colfs_readme_write(t, &r, out);
}

static const colfs_node_ops summary_ops = {.generate = summary_generate};
static const colfs_node_ops schema_ops = {.generate = schema_generate};
static const colfs_node_ops metadata_ops = {.generate = metadata_generate};
static const colfs_node_ops layout_ops = {.generate = layout_generate};
static const colfs_node_ops raw_ops = {.populate = raw_populate};
static const colfs_node_ops readme_ops = {.generate = readme_generate};

static colfs_status root_populate(colfs_tree *t, colfs_node *root)
{
	arrow_file *f = file_of(t);
	if (!colfs_root_add_common(t, root, &readme_ops, "arrow\n",
				   &layout_ops, &raw_ops) ||
	    !colfs_dir_add_summary(t, root, &summary_ops, NULL))
		return COLFS_ENOMEM;
	if (!f->have_schema)
		return COLFS_OK;
	view_state *js = view_new(t, UINT32_MAX), *cs = view_new(t, UINT32_MAX);
	if (!js || !cs ||
	    !colfs_dir_add_doc(t, root, "schema", &schema_ops, NULL) ||
	    !colfs_dir_add_doc(t, root, "metadata.json", &metadata_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "columns", &columns_ops, NULL) ||
	    !colfs_dir_add_stream(t, root, "rows.jsonl", &jsonl_ops, js) ||
	    !colfs_dir_add_stream(t, root, "rows.csv", &csv_ops, cs) ||
	    !colfs_dir_add_dir(t, root, "record_batches", &batches_ops, NULL) ||
	    !colfs_dir_add_dir(t, root, "arrays", &arrow_arrays_ops, NULL))
		return COLFS_ENOMEM;
	if (f->ndict &&
	    !colfs_dir_add_dir(t, root, "dictionaries", &dicts_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops root_ops = {.populate = root_populate};

colfs_status arrow_tree_root(colfs_tree *t, colfs_node *root)
{
	(void)t;
	colfs_node_set_ops(root, &root_ops, NULL);
	return COLFS_OK;
}

/* colfs: a Delta Lake table's delta/ folder (docs/dataset-tree.md,
 * "Delta Lake"): its history, protocol, properties, schema and active
 * files as JSON documents, read from the snapshot delta.c loads. */
#include "delta.h"
#include "delta_int.h"
#include "../core/hex.h"
#include "../core/options.h"
#include "../core/source.h"
#include "../core/sourcekind.h"
#include "../core/tree.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * delta/: the table's history, protocol, properties, schema and active
 * files (docs/dataset-tree.md, "Delta Lake")
 */
enum {
	DOC_SNAPSHOT, DOC_PROTOCOL, DOC_METADATA, DOC_PROPERTIES, DOC_SCHEMA,
	DOC_ACTIVE, DOC_KIND,
};

typedef struct delta_doc {
	const delta_state *s;
	int which;
	int64_t version;   /* DOC_KIND: the commit */
	const char *kind;  /* DOC_KIND: the action kind */
} delta_doc;

static json_t *json_copy_or_null(json_t *v)
{
	return v ? json_deep_copy(v) : json_null();
}

static json_t *active_files_json(const delta_state *s)
{
	const colfs_delta_snapshot *p = &s->pub;
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < p->tb.n_files; i++) {
		const colfs_delta_file *f = &p->tb.files[i];
		json_t *o = json_object(), *pv = json_object();
		if (!o || !pv) {
			json_decref(o);
			json_decref(pv);
			json_decref(arr);
			return NULL;
		}
		for (size_t k = 0; k < f->n_partitions; k++)
			json_object_set_new(pv, p->tb.partition_columns[k],
					    f->partition_values[k]
						    ? json_string(f->partition_values[k])
						    : json_null());
		json_object_set_new(o, "path", json_string(f->path));
		json_object_set_new(o, "size", json_integer((json_int_t)f->size));
		json_object_set_new(o, "num_records",
				    f->num_records >= 0 ? json_integer(f->num_records)
							: json_null());
		json_object_set_new(o, "partition_values", pv);
		json_object_set_new(o, "deletion_vector",
				    json_copy_or_null(json_object_get(
					    s->active[i], "deletionVector")));
		json_object_set_new(o, "deleted_rows",
				    json_integer((json_int_t)f->n_deleted_rows));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *snapshot_json(const delta_state *s)
{
	const colfs_delta_snapshot *p = &s->pub;
	json_t *o = json_object(), *pc = json_array();

	if (!o || !pc) {
		json_decref(o);
		json_decref(pc);
		return NULL;
	}
	for (size_t i = 0; i < p->tb.n_partition_columns; i++)
		json_array_append_new(pc, json_string(p->tb.partition_columns[i]));
	json_object_set_new(o, "version", json_integer(p->tb.version));
	json_object_set_new(o, "latest", json_integer(p->latest));
	json_object_set_new(o, "oldest", json_integer(s->oldest));
	json_object_set_new(o, "checkpoint", json_copy_or_null(s->checkpoint));
	json_object_set_new(o, "last_checkpoint",
			    json_copy_or_null(s->last_checkpoint));
	json_object_set_new(o, "files", json_integer((json_int_t)p->tb.n_files));
	json_object_set_new(o, "partition_columns", pc);
	json_object_set_new(o, "column_mapping_mode",
			    json_string(p->tb.column_mapping_mode));
	return o;
}

/* The actions of one kind in commit `v`, in log order. */
static colfs_status kind_json(colfs_tree *t, colfs_node *file,
			      const delta_doc *d, json_t **out)
{
	char path[600], rel[64];
	size_t len;
	colfs_err err = {0};

	*out = NULL;
	snprintf(rel, sizeof rel, "_delta_log/%020" PRId64 ".json", d->version);
	snprintf(path, sizeof path, "%s/%s", d->s->root, rel);
	char *data = delta_read_small(path, rel, d->s->opts, &len, &err);
	if (!data) {
		colfs_tree_report(t, file, err.offset, err.status, "%s", err.msg);
		return err.status;
	}
	json_t *arr = json_array();
	size_t pos = 0;
	uint32_t line = 0;
	colfs_status st = arr ? COLFS_OK : COLFS_ENOMEM;
	while (!st && pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		line++;
		if (end > pos) {
			json_error_t je;
			json_t *row = json_loadb(data + pos, end - pos, 0, &je);
			if (!row) {
				st = COLFS_ECORRUPT;
				colfs_tree_report(t, file, pos, st,
						  "%s line %u: not JSON: %s",
						  rel, line, je.text);
			}
			json_t *v = json_object_get(row, d->kind);
			if (v)
				json_array_append(arr, v);
			json_decref(row);
		}
		pos = end + 1;
	}
	free(data);
	if (st) {
		json_decref(arr);
		return st;
	}
	*out = arr;
	return COLFS_OK;
}

static colfs_status doc_generate(colfs_tree *t, colfs_node *file,
				 colfs_buf *out)
{
	const delta_doc *d = colfs_node_ctx(file);
	const delta_state *s = d->s;
	json_t *v = NULL;
	json_t *conf;

	switch (d->which) {
	case DOC_SNAPSHOT:
		v = snapshot_json(s);
		break;
	case DOC_PROTOCOL:
		v = json_copy_or_null(s->protocol);
		break;
	case DOC_METADATA:
		v = json_copy_or_null(s->metadata);
		break;
	case DOC_PROPERTIES:
		conf = json_object_get(s->metadata, "configuration");
		v = json_is_object(conf) ? json_deep_copy(conf) : json_object();
		break;
	case DOC_SCHEMA:
		v = json_copy_or_null(s->schema);
		break;
	case DOC_ACTIVE:
		v = active_files_json(s);
		break;
	case DOC_KIND:
		COLFS_TRY(kind_json(t, file, d, &v));
		break;
	}
	return colfs_buf_json(out, v);
}

static const colfs_node_ops doc_ops = {.generate = doc_generate};

static delta_doc *doc_new(colfs_tree *t, const delta_state *s, int which)
{
	delta_doc *d = colfs_tree_alloc(t, sizeof *d);
	if (d) {
		d->s = s;
		d->which = which;
	}
	return d;
}

/* versions/N/: one document per action kind of commit N, named
 * <kind>.json, in the order the kinds first appear. */
static colfs_status version_populate(colfs_tree *t, colfs_node *dir)
{
	const delta_doc *vd = colfs_node_ctx(dir);
	char path[600], rel[64];
	size_t len;
	colfs_err err = {0};

	snprintf(rel, sizeof rel, "_delta_log/%020" PRId64 ".json", vd->version);
	snprintf(path, sizeof path, "%s/%s", vd->s->root, rel);
	char *data = delta_read_small(path, rel, vd->s->opts, &len, &err);
	if (!data) {
		colfs_tree_report(t, dir, err.offset, err.status, "%s", err.msg);
		return COLFS_OK;
	}
	json_t *kinds = json_object(); /* seen */
	size_t pos = 0;
	uint32_t line = 0;
	colfs_status st = kinds ? COLFS_OK : COLFS_ENOMEM;
	while (!st && pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		line++;
		json_error_t je;
		json_t *row = end > pos ? json_loadb(data + pos, end - pos, 0, &je)
					: NULL;
		if (end > pos && !row)
			colfs_tree_report(t, dir, pos, COLFS_ECORRUPT,
					  "%s line %u: not JSON: %s",
					  rel, line, je.text);
		const char *kind;
		json_t *v;
		json_object_foreach(row, kind, v) {
			if (json_object_get(kinds, kind))
				continue;
			json_object_set_new(kinds, kind, json_true());
			delta_doc *d = doc_new(t, vd->s, DOC_KIND);
			char name[300];
			if (!d || !(d->kind = colfs_tree_strdup(t, kind))) {
				st = COLFS_ENOMEM;
				break;
			}
			d->version = vd->version;
			snprintf(name, sizeof name, "%s.json", kind);
			if (!colfs_dir_add_doc(t, dir, name, &doc_ops, d))
				st = COLFS_ENOMEM;
		}
		json_decref(row);
		pos = end + 1;
	}
	json_decref(kinds);
	free(data);
	return st;
}

static const colfs_node_ops version_ops = {.populate = version_populate};

static colfs_status versions_populate(colfs_tree *t, colfs_node *dir)
{
	const delta_state *s = colfs_node_ctx(dir);

	for (size_t i = 0; i < s->n_commits; i++) {
		char name[32];
		if (s->commits[i] > s->pub.latest)
			break;
		delta_doc *d = doc_new(t, s, DOC_KIND);
		if (!d)
			return COLFS_ENOMEM;
		d->version = s->commits[i];
		snprintf(name, sizeof name, "%" PRId64, s->commits[i]);
		if (!colfs_dir_add_dir(t, dir, name, &version_ops, d))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops versions_ops = {.populate = versions_populate};

colfs_status colfs_delta_add_tree(colfs_tree *t, colfs_node *dir,
				  const char *root,
				  const colfs_delta_snapshot *p)
{
	static const struct {
		const char *name;
		int which;
	} docs[] = {
		{"snapshot.json", DOC_SNAPSHOT},
		{"protocol.json", DOC_PROTOCOL},
		{"metadata.json", DOC_METADATA},
		{"properties.json", DOC_PROPERTIES},
		{"schema.json", DOC_SCHEMA},
		{"active_files.json", DOC_ACTIVE},
	};
	const delta_state *s = (const delta_state *)p;

	(void)root; /* the snapshot knows its root (made absolute) */
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		delta_doc *d = doc_new(t, s, docs[i].which);
		if (!d || !colfs_dir_add_doc(t, dir, docs[i].name, &doc_ops, d))
			return COLFS_ENOMEM;
	}
	if (!colfs_dir_add_dir(t, dir, "versions", &versions_ops, (void *)s))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

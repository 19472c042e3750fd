/* colfs: an Iceberg table's iceberg/ folder (docs/iceberg-tree.md): the
 * metadata JSON and its parts (schemas, partition specs, sort orders,
 * properties, refs, history, metadata log) as documents, and each
 * snapshot's manifest list and manifests' entries as JSON lines, read
 * when a listing or a read needs them. */
#include "ice_int.h"
#include "../../core/buf.h"
#include "../../core/tree.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	DOC_METADATA, DOC_PROPERTIES, DOC_HISTORY, DOC_METADATA_LOG,
	DOC_JSON,        /* a part of the metadata (`part`) */
	DOC_SNAPSHOT,    /* snapshots/<id>/snapshot.json */
	DOC_LIST,        /* snapshots/<id>/manifest_list.jsonl */
	DOC_MANIFEST,    /* snapshots/<id>/manifests/<name>.jsonl */
};

typedef struct ice_doc {
	const ice_table *tb;
	int which;
	json_t *part;        /* DOC_JSON, DOC_SNAPSHOT (borrowed from meta) */
	ice_manifest_ref *m; /* DOC_MANIFEST (owned by the snapshot's dir) */
} ice_doc;

/* A JSON value's lines: each element of an array on its own line. */
static void put_lines(colfs_buf *out, json_t *arr)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		char *s = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!s) {
			out->failed = true;
			return;
		}
		colfs_buf_puts(out, s);
		colfs_buf_putc(out, '\n');
		free(s);
	}
}

static int entry_line(void *ctx, json_t *entry, const ice_file *f, int status)
{
	colfs_buf *out = ctx;
	(void)f;
	(void)status;
	char *s = json_dumps(entry, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!s) {
		out->failed = true;
		return 1;
	}
	colfs_buf_puts(out, s);
	colfs_buf_putc(out, '\n');
	free(s);
	return 0;
}

static colfs_status doc_generate(colfs_tree *t, colfs_node *file,
				 colfs_buf *out)
{
	const ice_doc *d = colfs_node_ctx(file);
	const ice_table *tb = d->tb;
	json_t *v;
	colfs_err err = {0};
	colfs_status st;

	switch (d->which) {
	case DOC_METADATA:
		return colfs_buf_json(out, json_incref(tb->meta));
	case DOC_PROPERTIES:
		v = json_object_get(tb->meta, "properties");
		return colfs_buf_json(out, json_is_object(v) ? json_incref(v)
							     : json_object());
	case DOC_JSON:
	case DOC_SNAPSHOT:
		return colfs_buf_json(out, json_incref(d->part));
	case DOC_HISTORY:
		put_lines(out, json_object_get(tb->meta, "snapshot-log"));
		return colfs_buf_status(out);
	case DOC_METADATA_LOG:
		put_lines(out, json_object_get(tb->meta, "metadata-log"));
		return colfs_buf_status(out);
	case DOC_LIST: {
		ice_manifest_ref *m;
		size_t n;
		st = ice_manifests_read(tb, d->part, &m, &n, &err);
		if (st != COLFS_OK) {
			colfs_tree_report(t, file, err.offset, st, "%s", err.msg);
			return st;
		}
		for (size_t i = 0; i < n; i++) {
			char *s = json_dumps(m[i].entry, JSON_COMPACT);
			if (s) {
				colfs_buf_puts(out, s);
				colfs_buf_putc(out, '\n');
			} else {
				out->failed = true;
			}
			free(s);
		}
		ice_manifests_free(m, n);
		return colfs_buf_status(out);
	}
	case DOC_MANIFEST:
		st = ice_manifest_each(tb, d->m, entry_line, out, &err);
		if (st != COLFS_OK) {
			colfs_tree_report(t, file, err.offset, st, "%s", err.msg);
			return st;
		}
		return colfs_buf_status(out);
	}
	return COLFS_EUNSUPPORTED;
}

static const colfs_node_ops doc_ops = {.generate = doc_generate};

static ice_doc *doc_new(colfs_tree *t, const ice_table *tb, int which,
			json_t *part)
{
	ice_doc *d = colfs_tree_alloc(t, sizeof *d);
	if (d) {
		d->tb = tb;
		d->which = which;
		d->part = part;
	}
	return d;
}

static colfs_status add_doc(colfs_tree *t, colfs_node *dir, const char *name,
			    const ice_table *tb, int which, json_t *part)
{
	ice_doc *d = doc_new(t, tb, which, part);
	if (!d || !colfs_dir_add_doc(t, dir, name, &doc_ops, d))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

/* A folder of one document per element of an array of the metadata,
 * named by its `key` ("<id>.json"). */
typedef struct ice_list_dir {
	const ice_table *tb;
	json_t *arr;
	const char *key;
} ice_list_dir;

static colfs_status list_populate(colfs_tree *t, colfs_node *dir)
{
	const ice_list_dir *ld = colfs_node_ctx(dir);
	size_t i;
	json_t *e;

	json_array_foreach(ld->arr, i, e) {
		char name[64];
		bool ok;
		int64_t id = ice_json_i64(json_object_get(e, ld->key), &ok);
		if (ok)
			snprintf(name, sizeof name, "%" PRId64 ".json", id);
		else
			snprintf(name, sizeof name, "%zu.json", i);
		COLFS_TRY(add_doc(t, dir, name, ld->tb, DOC_JSON, e));
	}
	return COLFS_OK;
}

static const colfs_node_ops list_ops = {.populate = list_populate};

static colfs_status add_list(colfs_tree *t, colfs_node *dir, const char *name,
			     const ice_table *tb, json_t *arr, const char *key)
{
	ice_list_dir *ld = colfs_tree_alloc(t, sizeof *ld);
	if (!ld)
		return COLFS_ENOMEM;
	ld->tb = tb;
	ld->arr = arr;
	ld->key = key;
	return colfs_dir_add_dir(t, dir, name, &list_ops, ld) ? COLFS_OK
							       : COLFS_ENOMEM;
}

/* refs/<name>.json */
static colfs_status refs_populate(colfs_tree *t, colfs_node *dir)
{
	const ice_table *tb = colfs_node_ctx(dir);
	const char *name;
	json_t *v;

	json_object_foreach(json_object_get(tb->meta, "refs"), name, v) {
		char *n;
		if (asprintf(&n, "%s.json", name) < 0)
			return COLFS_ENOMEM;
		colfs_status st = add_doc(t, dir, n, tb, DOC_JSON, v);
		free(n);
		COLFS_TRY(st);
	}
	return COLFS_OK;
}

static const colfs_node_ops refs_ops = {.populate = refs_populate};

/* snapshots/<id>/manifests/: one document per manifest of the list
 * (the list read at this listing, kept with the folder). */
static colfs_status manifests_populate(colfs_tree *t, colfs_node *dir)
{
	const ice_doc *sd = colfs_node_ctx(dir);
	ice_manifest_ref *m;
	size_t n;
	colfs_err err = {0};
	colfs_status st = ice_manifests_read(sd->tb, sd->part, &m, &n, &err);

	if (st != COLFS_OK) {
		colfs_tree_report(t, dir, err.offset, st, "%s", err.msg);
		return st == COLFS_ENOMEM ? st : COLFS_OK;
	}
	/* the list's strings move into the tree's own memory */
	ice_manifest_ref *keep = colfs_tree_alloc(t, (n ? n : 1) * sizeof *keep);
	for (size_t i = 0; keep && i < n; i++) {
		keep[i] = m[i];
		keep[i].path = colfs_tree_strdup(t, m[i].path);
		keep[i].local = colfs_tree_strdup(t, m[i].local);
		keep[i].entry = NULL;
		if (!keep[i].path || !keep[i].local) {
			keep = NULL;
			break;
		}
	}
	for (size_t i = 0; keep && i < n; i++) {
		const char *base = strrchr(keep[i].path, '/');
		base = base ? base + 1 : keep[i].path;
		char *name;
		if (asprintf(&name, "%s.jsonl", base) < 0) {
			keep = NULL;
			break;
		}
		ice_doc *d = doc_new(t, sd->tb, DOC_MANIFEST, NULL);
		if (d)
			d->m = &keep[i];
		colfs_node *node = d ? colfs_dir_add_doc(t, dir, name, &doc_ops, d)
				     : NULL;
		free(name);
		if (!node) {
			keep = NULL;
			break;
		}
	}
	ice_manifests_free(m, n);
	return keep ? COLFS_OK : COLFS_ENOMEM;
}

static const colfs_node_ops manifests_ops = {.populate = manifests_populate};

static colfs_status snapshot_populate(colfs_tree *t, colfs_node *dir)
{
	const ice_doc *sd = colfs_node_ctx(dir);

	COLFS_TRY(add_doc(t, dir, "snapshot.json", sd->tb, DOC_SNAPSHOT,
			  sd->part));
	if (json_is_string(json_object_get(sd->part, "manifest-list")))
		COLFS_TRY(add_doc(t, dir, "manifest_list.jsonl", sd->tb, DOC_LIST,
				  sd->part));
	if (!colfs_dir_add_dir(t, dir, "manifests", &manifests_ops,
			       (void *)sd))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops snapshot_ops = {.populate = snapshot_populate};

static colfs_status snapshots_populate(colfs_tree *t, colfs_node *dir)
{
	const ice_table *tb = colfs_node_ctx(dir);
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(tb->meta, "snapshots"), i, s) {
		char name[32];
		bool ok;
		int64_t id = ice_json_i64(json_object_get(s, "snapshot-id"), &ok);
		if (!ok)
			continue;
		snprintf(name, sizeof name, "%" PRId64, id);
		ice_doc *d = doc_new(t, tb, DOC_SNAPSHOT, s);
		if (!d || !colfs_dir_add_dir(t, dir, name, &snapshot_ops, d))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops snapshots_ops = {.populate = snapshots_populate};

colfs_status ice_tree_add(colfs_tree *t, colfs_node *dir, const ice_table *tb)
{
	json_t *specs = json_object_get(tb->meta, "partition-specs");

	COLFS_TRY(add_doc(t, dir, "metadata.json", tb, DOC_METADATA, NULL));
	COLFS_TRY(add_doc(t, dir, "properties.json", tb, DOC_PROPERTIES, NULL));
	COLFS_TRY(add_doc(t, dir, "history.jsonl", tb, DOC_HISTORY, NULL));
	COLFS_TRY(add_doc(t, dir, "metadata_log.jsonl", tb, DOC_METADATA_LOG,
			  NULL));
	if (json_is_array(json_object_get(tb->meta, "schemas"))) {
		COLFS_TRY(add_list(t, dir, "schemas", tb,
				   json_object_get(tb->meta, "schemas"),
				   "schema-id"));
	} else {
		/* v1: the one schema */
		colfs_node *sd = colfs_dir_add_dir(t, dir, "schemas", NULL, NULL);
		json_t *s = json_object_get(tb->meta, "schema");
		bool ok;
		int64_t id = ice_json_i64(json_object_get(s, "schema-id"), &ok);
		char name[32];
		snprintf(name, sizeof name, "%" PRId64 ".json", ok ? id : 0);
		if (!sd)
			return COLFS_ENOMEM;
		if (s)
			COLFS_TRY(add_doc(t, sd, name, tb, DOC_JSON, s));
	}
	if (json_is_array(specs)) {
		COLFS_TRY(add_list(t, dir, "partition_specs", tb, specs, "spec-id"));
	} else {
		/* v1: the one spec's fields, spec 0 */
		colfs_node *sd = colfs_dir_add_dir(t, dir, "partition_specs", NULL,
						   NULL);
		json_t *f = json_object_get(tb->meta, "partition-spec");
		if (!sd)
			return COLFS_ENOMEM;
		if (f)
			COLFS_TRY(add_doc(t, sd, "0.json", tb, DOC_JSON, f));
	}
	COLFS_TRY(add_list(t, dir, "sort_orders", tb,
			   json_object_get(tb->meta, "sort-orders"), "order-id"));
	if (!colfs_dir_add_dir(t, dir, "refs", &refs_ops, (void *)tb) ||
	    !colfs_dir_add_dir(t, dir, "snapshots", &snapshots_ops, (void *)tb))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

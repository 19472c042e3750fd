/* colfs: Apache Iceberg as a table kind (../table.h, docs/iceberg-tree.md):
 * a directory or prefix holding metadata/ with a *.metadata.json.  Mounting
 * reads the metadata JSON (ice_meta.c); the snapshot's files come from
 * its manifests when first needed (ice_manifest.c); each data file's
 * deleted rows from the snapshot's delete files (ice_deletes.h); its own
 * folder is iceberg/ (ice_tree.c). */
#include "ice_int.h"
#include "../table.h"
#include "../dataset_members.h"
#include "../../core/buf.h"
#include "../../core/tree.h"
#include "../../core/render.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const ds_table_kind ds_table_iceberg;

/* The dataset's view of the table first, so that a ds_table pointer is
 * this. */
typedef struct ice_kind_table {
	ds_table tb;
	ice_table *it;
	size_t *data_idx;        /* tb.files[i] is it->data[data_idx[i]] */
	size_t *file_of;         /* it->data[j] is tb.files[file_of[j]]
				  * (SIZE_MAX: not shown) */
	ice_field_ref *refs;     /* the schema's fields by id (deletes) */
	size_t n_refs;
	pthread_mutex_t lock;    /* the deletes' index, made once */
	bool dels_made;
	colfs_status dels_st;
	colfs_err dels_err;
	ice_deletes *dels;
} ice_kind_table;

static colfs_status nomem(colfs_err *err)
{
	return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
			  "out of memory");
}

static void kind_free(ds_table *tb)
{
	ice_kind_table *k = (ice_kind_table *)tb;
	if (!k)
		return;
	for (size_t i = 0; i < tb->n_files; i++) {
		ds_table_file *f = &tb->files[i];
		free(f->path);
		free(f->deleted_rows);
		for (size_t j = 0; f->fill_values && j < tb->n_fields; j++)
			free(f->fill_values[j]);
		free(f->fill_values);
		for (size_t j = 0; f->partition_values && j < f->n_partitions; j++)
			free(f->partition_values[j]);
		free(f->partition_values);
	}
	free(tb->files);
	for (size_t j = 0; j < tb->n_fields; j++) {
		for (char **m = tb->fields[j].mapped_names; m && *m; m++)
			free(*m);
		free(tb->fields[j].mapped_names);
		json_decref(tb->fields[j].member_map);
		free(tb->fields[j].name);
		free(tb->fields[j].physical_name);
		free(tb->fields[j].type_json);
	}
	free(tb->fields);
	for (size_t j = 0; j < tb->n_partition_columns; j++)
		free(tb->partition_columns[j]);
	free(tb->partition_columns);
	free(tb->column_mapping_mode);
	for (size_t j = 0; j < tb->n_problems; j++)
		free(tb->problems[j]);
	free(tb->problems);
	free(k->data_idx);
	free(k->file_of);
	free(k->refs);
	ice_deletes_free(k->dels);
	ice_table_free(k->it);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

/* The schema's top-level fields as the dataset layer reads them: each
 * found in the files by its field id. */
static colfs_status kind_fields(ice_kind_table *k, colfs_err *err)
{
	ds_table *tb = &k->tb;
	json_t *fields = json_object_get(k->it->schema, "fields"), *f;
	size_t n = json_array_size(fields), i;

	tb->fields = calloc(n + 1, sizeof *tb->fields);
	k->refs = calloc(n + 1, sizeof *k->refs);
	if (!tb->fields || !k->refs)
		return nomem(err);
	json_array_foreach(fields, i, f) {
		const char *name = json_string_value(json_object_get(f, "name"));
		bool ok;
		int64_t id = ice_json_i64(json_object_get(f, "id"), &ok);
		if (!name || !ok || id < 0 || id > INT32_MAX)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "%s: schema %" PRId64 ": field %zu has "
					  "no name or id", k->it->meta_rel,
					  k->it->schema_id, i);
		ds_table_field *df = &tb->fields[tb->n_fields];
		df->name = strdup(name);
		df->physical_name = strdup(name);
		df->type_json = json_dumps(json_object_get(f, "type"),
					   JSON_COMPACT | JSON_ENCODE_ANY);
		df->nullable = !json_is_true(json_object_get(f, "required"));
		df->field_id = id;
		tb->n_fields++;
		if (!df->name || !df->physical_name || !df->type_json)
			return nomem(err);
		k->refs[k->n_refs].id = (int32_t)id;
		k->refs[k->n_refs].name = df->name;
		k->n_refs++;
	}
	return COLFS_OK;
}

/* The table's name mapping (property schema.name-mapping.default: a
 * JSON list of {"field-id", "names", "fields"}): each top-level field's
 * names, and its nested members' by the nested "fields"
 * (dataset_members.h), for files written without field ids.  A mapping that is not such
 * JSON is not used (those files are then damaged, as without one). */
static colfs_status kind_name_mapping(ice_kind_table *k, colfs_err *err)
{
	ds_table *tb = &k->tb;
	const char *text = json_string_value(json_object_get(json_object_get(
		k->it->meta, "properties"), "schema.name-mapping.default"));
	if (!text)
		return COLFS_OK;
	json_t *map = json_loads(text, 0, NULL), *e;
	size_t i;
	json_array_foreach(map, i, e) {
		bool ok;
		int64_t id = ice_json_i64(json_object_get(e, "field-id"), &ok);
		json_t *names = json_object_get(e, "names");
		if (!ok || !json_is_array(names))
			continue;
		for (size_t j = 0; j < tb->n_fields; j++) {
			ds_table_field *df = &tb->fields[j];
			if (df->field_id != id || df->mapped_names)
				continue;
			size_t n = json_array_size(names), c = 0, x;
			json_t *nm;
			df->mapped_names = calloc(n + 1, sizeof *df->mapped_names);
			if (!df->mapped_names) {
				json_decref(map);
				return nomem(err);
			}
			json_array_foreach(names, x, nm)
				if (json_is_string(nm) &&
				    !(df->mapped_names[c++] = strdup(json_string_value(nm)))) {
					json_decref(map);
					return nomem(err);
				}
			/* its nested members by the mapping's nested fields */
			df->member_map = ds_members_map(
				json_object_get(json_array_get(json_object_get(
					k->it->schema, "fields"), j), "type"),
				json_object_get(e, "fields"));
		}
	}
	json_decref(map);
	return COLFS_OK;
}

/* partitions/: the partition fields of every spec, by name, in the
 * order first met (the folders only: their values are derived from the
 * columns the files hold). */
static colfs_status kind_partition_columns(ice_kind_table *k, colfs_err *err)
{
	ds_table *tb = &k->tb;
	json_t *specs = json_object_get(k->it->meta, "partition-specs"), *s;
	json_t *all = json_array();
	size_t i;
	if (!all)
		return nomem(err);
	if (json_is_array(specs)) {
		json_array_foreach(specs, i, s)
			json_array_extend(all, json_object_get(s, "fields"));
	} else {
		json_array_extend(all, json_object_get(k->it->meta,
						       "partition-spec"));
	}
	tb->partitions_only = true;
	tb->partition_columns = calloc(json_array_size(all) + 1,
				       sizeof *tb->partition_columns);
	if (!tb->partition_columns) {
		json_decref(all);
		return nomem(err);
	}
	json_array_foreach(all, i, s) {
		const char *name = json_string_value(json_object_get(s, "name"));
		bool seen = !name;
		for (size_t j = 0; !seen && j < tb->n_partition_columns; j++)
			seen = strcmp(tb->partition_columns[j], name) == 0;
		if (seen)
			continue;
		if (!(tb->partition_columns[tb->n_partition_columns] = strdup(name))) {
			json_decref(all);
			return nomem(err);
		}
		tb->n_partition_columns++;
	}
	json_decref(all);
	return COLFS_OK;
}

static colfs_status kind_load(const char *root, const colfs_options *o,
			      ds_table **out, colfs_err *err)
{
	ice_kind_table *k = calloc(1, sizeof *k);
	colfs_status st;

	*out = NULL;
	if (o->delta_version_set) {
		free(k);
		return colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "-o version=N applies to Delta tables; an "
				  "Iceberg table's snapshot is chosen by -o "
				  "snapshot=ID, as_of=TIME or ref=NAME");
	}
	if (!k)
		return nomem(err);
	pthread_mutex_init(&k->lock, NULL);
	k->tb.kind = &ds_table_iceberg;
	if ((st = ice_table_load(root, o, &k->it, err)) != COLFS_OK) {
		kind_free(&k->tb);
		return st;
	}
	k->tb.version = k->it->snap_id;
	if (k->it->snap)
		snprintf(k->tb.version_label, sizeof k->tb.version_label,
			 "snapshot %" PRId64, k->it->snap_id);
	else
		snprintf(k->tb.version_label, sizeof k->tb.version_label,
			 "no snapshot");
	k->tb.column_mapping_mode = strdup("id");
	if (!k->tb.column_mapping_mode) {
		kind_free(&k->tb);
		return nomem(err);
	}
	if ((st = kind_fields(k, err)) != COLFS_OK ||
	    (st = kind_name_mapping(k, err)) != COLFS_OK ||
	    (st = kind_partition_columns(k, err)) != COLFS_OK) {
		kind_free(&k->tb);
		return st;
	}
	*out = &k->tb;
	return COLFS_OK;
}

/* A value of the metadata's JSON (an initial-default) as text. */
static char *json_text(json_t *v)
{
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* What data file `f` reads for each field it lacks: the value of an
 * identity partition on the field in its own spec, else the field's
 * initial-default, else NULL (the specification's "Column Projection"). */
static colfs_status fill_values(ice_kind_table *k, const ice_file *f,
				ds_table_file *out)
{
	ds_table *tb = &k->tb;
	json_t *spec = ice_spec_fields(k->it, f->spec_id), *pf;
	json_t *fields = json_object_get(k->it->schema, "fields");
	bool any = false;
	char **v = calloc(tb->n_fields + 1, sizeof *v);

	if (!v)
		return COLFS_ENOMEM;
	for (size_t j = 0; j < tb->n_fields; j++) {
		size_t i;
		json_array_foreach(spec, i, pf) {
			bool ok;
			const char *tr = json_string_value(json_object_get(pf,
								"transform"));
			const char *pn = json_string_value(json_object_get(pf,
								"name"));
			if (!tr || !pn || strcmp(tr, "identity") != 0 ||
			    ice_json_i64(json_object_get(pf, "source-id"), &ok) !=
				    tb->fields[j].field_id || !ok)
				continue;
			json_t *pv = json_object_get(f->partition, pn);
			if (pv && !json_is_null(pv)) {
				v[j] = ice_partition_text(k->it, f->spec_id, pn, pv);
				if (!v[j])
					goto nomem;
			}
			break;
		}
		if (!v[j] && i == json_array_size(spec)) {
			json_t *sf = json_array_get(fields, j);
			json_t *def = json_object_get(sf, "initial-default");
			if (def && !json_is_null(def) && !(v[j] = json_text(def)))
				goto nomem;
		}
		any = any || v[j];
	}
	if (!any) {
		free(v);
		v = NULL;
	}
	out->fill_values = v;
	return COLFS_OK;
nomem:
	for (size_t j = 0; j < tb->n_fields; j++)
		free(v[j]);
	free(v);
	return COLFS_ENOMEM;
}

static colfs_status add_problem(ds_table *tb, char *msg)
{
	if (!msg)
		return COLFS_ENOMEM;
	char **nv = realloc(tb->problems, (tb->n_problems + 1) * sizeof *nv);
	if (!nv) {
		free(msg);
		return COLFS_ENOMEM;
	}
	tb->problems = nv;
	tb->problems[tb->n_problems++] = msg;
	return COLFS_OK;
}

static colfs_status kind_files(ds_table *tb, colfs_err *err)
{
	ice_kind_table *k = (ice_kind_table *)tb;
	ice_table *it = k->it;
	colfs_status st = ice_table_files(it, err);

	if (st != COLFS_OK)
		return st;
	/* a manifest that cannot be read: its files are unknown, named
	 * in errors; the union views fail under on_damage=error, skip and
	 * null show the files of the other manifests */
	for (size_t i = 0; i < it->n_problems; i++) {
		char *m = strdup(it->problems[i]);
		if (add_problem(tb, m) != COLFS_OK)
			return nomem(err);
	}
	tb->files = calloc(it->n_data + 1, sizeof *tb->files);
	k->data_idx = calloc(it->n_data + 1, sizeof *k->data_idx);
	k->file_of = malloc((it->n_data + 1) * sizeof *k->file_of);
	if (!tb->files || !k->data_idx || !k->file_of)
		return nomem(err);
	for (size_t i = 0; i < it->n_data; i++)
		k->file_of[i] = SIZE_MAX;
	for (size_t i = 0; i < it->n_data; i++) {
		const ice_file *f = &it->data[i];
		char *rel = ice_rel_path(it, f->path);
		if (!rel || !*rel) {
			char *m = NULL;
			free(rel);
			if (asprintf(&m, "%s (%s, %s): outside the table's "
				     "location %s: not read", f->path,
				     tb->version_label, f->manifest,
				     it->location) < 0)
				m = NULL;
			if (add_problem(tb, m) != COLFS_OK)
				return nomem(err);
			continue;
		}
		ds_table_file *df = &tb->files[tb->n_files];
		df->path = rel;
		df->size = f->size;
		df->num_records = f->record_count;
		k->data_idx[tb->n_files] = i;
		k->file_of[i] = tb->n_files;
		tb->n_files++;
		if (fill_values(k, f, df) != COLFS_OK)
			return nomem(err);
		/* its partition tuple's values, typed by their transforms;
		 * NULL for a field its spec does not have */
		df->partition_values = calloc(tb->n_partition_columns + 1,
					      sizeof *df->partition_values);
		if (!df->partition_values)
			return nomem(err);
		df->n_partitions = tb->n_partition_columns;
		for (size_t p = 0; p < tb->n_partition_columns; p++) {
			json_t *v = json_object_get(f->partition,
						    tb->partition_columns[p]);
			if (v && !json_is_null(v) &&
			    !(df->partition_values[p] = ice_partition_text(
				      it, f->spec_id, tb->partition_columns[p], v)))
				return nomem(err);
		}
	}
	return COLFS_OK;
}

/* What data file i (of it->data) reads for a field it lacks, for
 * equality deletes to compare: its fill value (fill_values). */
static colfs_status deletes_fill(void *arg, size_t i, int32_t field_id,
				 char **text)
{
	ice_kind_table *k = arg;
	ds_table *tb = &k->tb;
	*text = NULL;
	if (!k->file_of || i >= k->it->n_data || k->file_of[i] == SIZE_MAX)
		return COLFS_OK;
	const ds_table_file *f = &tb->files[k->file_of[i]];
	for (size_t j = 0; f->fill_values && j < tb->n_fields; j++) {
		if (tb->fields[j].field_id != field_id || !f->fill_values[j])
			continue;
		if (!(*text = strdup(f->fill_values[j])))
			return COLFS_ENOMEM;
		break;
	}
	return COLFS_OK;
}

/* The index of the snapshot's delete files, made once (its files read
 * first). */
static colfs_status deletes_index(ice_kind_table *k, colfs_err *err)
{
	ice_table *it = k->it;
	pthread_mutex_lock(&k->lock);
	if (!k->dels_made) {
		k->dels_st = it->n_dels
			? ice_deletes_new(it->data, it->n_data, it->dels,
					  it->n_dels, k->refs, k->n_refs,
					  &it->opts, &k->dels, &k->dels_err)
			: COLFS_OK;
		if (k->dels)
			ice_deletes_set_fill(k->dels, deletes_fill, k);
		k->dels_made = true;
	}
	colfs_status st = k->dels_st;
	if (st != COLFS_OK)
		*err = k->dels_err;
	pthread_mutex_unlock(&k->lock);
	return st;
}

static colfs_status kind_deletes(ds_table *tb, size_t i, colfs_err *err)
{
	ice_kind_table *k = (ice_kind_table *)tb;
	ice_table *it = k->it;

	if (i >= tb->n_files)
		return COLFS_OK;
	/* a delete manifest that cannot be read: any file's rows may be
	 * deleted, so none is shown as if it were not */
	if (it->dels_unknown)
		return colfs_fail(err, COLFS_EIO, COLFS_OFFSET_UNKNOWN,
				  "the snapshot's delete manifest %s cannot be "
				  "read: which of its rows are deleted is not "
				  "known", it->dels_unknown);
	colfs_status st = deletes_index(k, err);
	if (st != COLFS_OK || !k->dels)
		return st;
	uint64_t *rows = NULL;
	size_t n = 0;
	st = ice_deletes_rows(k->dels, k->data_idx[i], &rows, &n, err);
	if (st != COLFS_OK)
		return st;
	tb->files[i].deleted_rows = rows;
	tb->files[i].n_deleted_rows = n;
	return COLFS_OK;
}

static void ice_applies_free(void *tb, json_t **applies);

/* For each of the snapshot's delete files, the data files it applies to
 * (their paths relative to the table, as JSON arrays of strings): the
 * deletes' index read.  NULL, `err` set, when the files or the index
 * cannot be read; free with ice_applies_free.  ice_deltree.c's
 * `applies`. */
static json_t **ice_kind_applies(void *tb, colfs_err *err)
{
	ice_kind_table *k = tb;
	ice_table *it = k->it;
	colfs_status st = ice_table_files(it, err);
	if (st == COLFS_OK)
		st = deletes_index(k, err);
	if (st != COLFS_OK)
		return NULL;
	json_t **applies = calloc(it->n_dels + 1, sizeof *applies);
	if (!applies) {
		nomem(err);
		return NULL;
	}
	for (size_t j = 0; j < it->n_dels; j++)
		if (!(applies[j] = json_array()))
			st = COLFS_ENOMEM;
	for (size_t i = 0; st == COLFS_OK && k->dels && i < it->n_data; i++) {
		size_t *idx, n;
		if (ice_deletes_applying(k->dels, i, &idx, &n) != COLFS_OK)
			continue;
		char *rel = ice_rel_path(it, it->data[i].path);
		for (size_t a = 0; a < n; a++)
			if (idx[a] < it->n_dels)
				json_array_append_new(applies[idx[a]], json_string(
					rel ? rel : it->data[i].path));
		free(rel);
		free(idx);
	}
	if (st != COLFS_OK) {
		ice_applies_free(tb, applies);
		nomem(err);
		return NULL;
	}
	return applies;
}

static void ice_applies_free(void *tb, json_t **applies)
{
	ice_table *it = ((ice_kind_table *)tb)->it;
	for (size_t j = 0; applies && j < it->n_dels; j++)
		json_decref(applies[j]);
	free(applies);
}

/* iceberg/delete_files.jsonl: the snapshot's delete files, one a line,
 * each with the data files it applies to (the deletes' index). */
static colfs_status delete_files_generate(colfs_tree *t, colfs_node *file,
					  colfs_buf *out)
{
	ice_kind_table *k = colfs_node_ctx(file);
	ice_table *it = k->it;
	colfs_err err = {0};
	colfs_status st = COLFS_OK;
	json_t **applies = ice_kind_applies(&k->tb, &err);
	if (!applies) {
		colfs_tree_report(t, file, err.offset, err.status, "%s",
				  err.msg);
		return err.status ? err.status : COLFS_EIO;
	}
	for (size_t j = 0; st == COLFS_OK && j < it->n_dels; j++)
		st = ice_delete_line(it, j, applies, out);
	ice_applies_free(&k->tb, applies);
	return st ? st : colfs_buf_status(out);
}

static const colfs_node_ops delete_files_ops = {
	.generate = delete_files_generate,
};

static colfs_status kind_add_tree(struct colfs_tree *t, struct colfs_node *dir,
				  const char *root, ds_table *tb)
{
	(void)root;
	COLFS_TRY(ice_tree_add(t, dir, ((ice_kind_table *)tb)->it));
	if (!colfs_dir_add_doc(t, dir, "delete_files.jsonl", &delete_files_ops,
			       tb))
		return COLFS_ENOMEM;
	return ice_deltree_add(t, dir, ((ice_kind_table *)tb)->it,
			       ice_kind_applies, ice_applies_free, tb);
}

/* summary's lines of the table: which metadata and snapshot, the
 * location mapped, the manifests and delete files (once read). */
static void kind_summary(ds_table *tb, colfs_buf *out)
{
	ice_kind_table *k = (ice_kind_table *)tb;
	ice_table *it = k->it;

	colfs_buf_printf(out, "iceberg metadata: %s (format version %d)\n",
			 it->meta_rel, it->format_version);
	if (it->snap)
		colfs_buf_printf(out, "snapshot: %" PRId64 " (%s)\n",
				 it->snap_id, it->snap_why);
	else
		colfs_buf_puts(out, "snapshot: none (an empty table)\n");
	colfs_buf_printf(out, "schema id: %" PRId64 "\n", it->schema_id);
	colfs_buf_printf(out, "location: %s%s, read under %s\n", it->location,
			 it->location_given ? " (-o location)" : "", it->root);
	pthread_mutex_lock(&it->lock);
	if (it->files_state > 0) {
		size_t pos = 0, eq = 0, dv = 0;
		for (size_t i = 0; i < it->n_dels; i++) {
			if (it->dels[i].content == 2)
				eq++;
			else if (it->dels[i].content_offset >= 0)
				dv++;
			else
				pos++;
		}
		colfs_buf_printf(out, "manifests: %zu\n", it->n_manifests);
		colfs_buf_printf(out, "delete files: %zu (position %zu, equality "
				 "%zu, deletion vectors %zu)\n", it->n_dels,
				 pos, eq, dv);
	}
	pthread_mutex_unlock(&it->lock);
}

const ds_table_kind ds_table_iceberg = {
	.name = "Apache Iceberg",
	.folder = "iceberg",
	.records_name = "record_count",
	.metadata_noun = "manifest",
	.deletes_noun = "delete files",
	/* readers plan reads by the files' footers, not by the manifests'
	 * file_size_in_bytes, and tables in use disagree with it (DuckDB's
	 * test tables rewrote data files under their manifests) */
	.sizes_unchecked = true,
	.is_table = ice_is_table,
	.is_listing_key = ice_is_listing_key,
	.metadata_root = ice_metadata_root,
	.load = kind_load,
	.files = kind_files,
	.deletes = kind_deletes,
	.add_tree = kind_add_tree,
	.summary = kind_summary,
	.free = kind_free,
};

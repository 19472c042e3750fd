/* colfs: an Iceberg snapshot's manifest list and manifests
 * (docs/iceberg-tree.md), read through the core's bounded Avro reader
 * (formats/core/avro.h): fields found by their Iceberg field ids (by
 * name when a writer gave none), sequence numbers inherited as the
 * specification's "Manifest Entry Fields" and "Sequence Number
 * Inheritance" say, the live data and delete files of a snapshot
 * gathered on the dataset's pool. */
#include "ice_int.h"
#include "../../core/avro.h"
#include "../../core/hex.h"
#include "../../core/render.h"
#include "../../core/buf.h"
#include "../../core/sourcekind.h"
#include "../../core/thread.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Field ids of the specification's manifest list and manifest schemas. */
enum {
	ML_PATH = 500, ML_LENGTH = 501, ML_SPEC_ID = 502, ML_ADDED_SNAPSHOT = 503,
	ML_SEQ = 515, ML_CONTENT = 517,
	ME_STATUS = 0, ME_SNAPSHOT = 1, ME_DATA_FILE = 2, ME_SEQ = 3,
	ME_FILE_SEQ = 4,
	DF_PATH = 100, DF_FORMAT = 101, DF_PARTITION = 102, DF_RECORDS = 103, DF_SIZE = 104,
	DF_CONTENT = 134, DF_EQUALITY_IDS = 135, DF_REFERENCED = 143,
	DF_CONTENT_OFFSET = 144, DF_CONTENT_SIZE = 145,
};

static const colfs_avro_value *fld(const colfs_avro_value *rec, int64_t id,
				   const char *name)
{
	const colfs_avro_value *v = colfs_avro_field_by_id(rec, id);
	if (!v)
		v = colfs_avro_field_by_name(rec, name);
	if (v && v->type->type == COLFS_AVRO_NULL)
		return NULL;
	return v;
}

static bool val_i64(const colfs_avro_value *v, int64_t *out)
{
	if (!v || (v->type->type != COLFS_AVRO_INT &&
		   v->type->type != COLFS_AVRO_LONG))
		return false;
	*out = v->l;
	return true;
}

static char *val_str(const colfs_avro_value *v)
{
	if (!v || (v->type->type != COLFS_AVRO_STRING &&
		   v->type->type != COLFS_AVRO_BYTES))
		return NULL;
	return strndup((const char *)v->p, v->n);
}

/* An Avro container of the table (mapped path or URL), open. */
static colfs_status avro_open(const ice_table *tb, const char *local,
			      const char *shown, colfs_source **src,
			      colfs_avro_reader **r, colfs_err *err)
{
	char why[600] = "";
	*r = NULL;
	colfs_status st = colfs_source_open(local, &tb->opts, src, why, sizeof why);
	if (st != COLFS_OK)
		return why[0] ? colfs_fail(err, st == COLFS_ENOENT ? COLFS_EIO : st,
					   COLFS_OFFSET_UNKNOWN, "%s", why)
			      : colfs_fail(err, st == COLFS_ENOENT ? COLFS_EIO : st,
					   COLFS_OFFSET_UNKNOWN, "%s: %s", shown,
					   colfs_status_name(st));
	colfs_err aerr = {0};
	st = colfs_avro_open(*src, 0, colfs_source_size(*src), tb->opts.max_alloc,
			     r, &aerr);
	if (st != COLFS_OK) {
		colfs_source_destroy(*src);
		*src = NULL;
		return colfs_fail(err, st, aerr.offset, "%s: %s", shown, aerr.msg);
	}
	return COLFS_OK;
}

/* How a path of the metadata is named in messages: relative to the
 * table's root when under its location, else as written. */
static char *shown_path(const ice_table *tb, const char *path)
{
	char *r = ice_rel_path(tb, path);
	return r ? r : strdup(path);
}

colfs_status ice_manifests_read(const ice_table *tb, json_t *snap,
				ice_manifest_ref **out, size_t *n,
				colfs_err *err)
{
	ice_manifest_ref *v = NULL;
	size_t cnt = 0, cap = 0;
	colfs_status st = COLFS_OK;

	*out = NULL;
	*n = 0;
	const char *list = json_string_value(json_object_get(snap, "manifest-list"));
	if (!list) {
		/* v1: the snapshot may list its manifests itself */
		json_t *arr = json_object_get(snap, "manifests"), *e;
		size_t i;
		if (!json_is_array(arr))
			return COLFS_OK;
		v = calloc(json_array_size(arr) + 1, sizeof *v);
		if (!v)
			return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
		json_array_foreach(arr, i, e) {
			if (!json_is_string(e))
				continue;
			ice_manifest_ref *m = &v[cnt++];
			m->path = strdup(json_string_value(e));
			m->local = m->path ? ice_map_path(tb, m->path) : NULL;
			m->entry = json_pack("{s:s}", "manifest_path",
					     json_string_value(e));
			if (!m->path || !m->local || !m->entry) {
				ice_manifests_free(v, cnt);
				return colfs_fail(err, COLFS_ENOMEM, 0,
						  "out of memory");
			}
		}
		*out = v;
		*n = cnt;
		return COLFS_OK;
	}
	char *local = ice_map_path(tb, list), *shown = shown_path(tb, list);
	colfs_source *src = NULL;
	colfs_avro_reader *r = NULL;
	if (!local || !shown) {
		free(local);
		free(shown);
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	}
	st = avro_open(tb, local, shown, &src, &r, err);
	for (;;) {
		const colfs_avro_value *rec;
		colfs_err rerr = {0};
		if (st != COLFS_OK)
			break;
		st = colfs_avro_next(r, &rec, NULL, &rerr);
		if (st == COLFS_END) {
			st = COLFS_OK;
			break;
		}
		if (st != COLFS_OK) {
			colfs_fail(err, st, rerr.offset, "%s: %s", shown, rerr.msg);
			break;
		}
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			ice_manifest_ref *nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				st = colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
				break;
			}
			v = nv;
		}
		ice_manifest_ref *m = &v[cnt];
		memset(m, 0, sizeof *m);
		m->path = val_str(fld(rec, ML_PATH, "manifest_path"));
		if (!m->path) {
			st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					"%s: record %zu has no manifest_path",
					shown, cnt);
			break;
		}
		cnt++;
		int64_t x;
		m->content = val_i64(fld(rec, ML_CONTENT, "content"), &x) ? (int)x : 0;
		m->seq = val_i64(fld(rec, ML_SEQ, "sequence_number"), &x) ? x : 0;
		m->spec_id = val_i64(fld(rec, ML_SPEC_ID, "partition_spec_id"), &x)
				     ? (int32_t)x : 0;
		m->local = ice_map_path(tb, m->path);
		m->entry = colfs_avro_json(rec);
		if (!m->local || !m->entry)
			st = colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	}
	colfs_avro_close(r);
	colfs_source_destroy(src);
	free(local);
	free(shown);
	if (st != COLFS_OK) {
		ice_manifests_free(v, cnt);
		return st;
	}
	*out = v;
	*n = cnt;
	return COLFS_OK;
}

/* The ice_file of a manifest entry (its strings malloc'd). */
static colfs_status entry_file(const ice_table *tb, const ice_manifest_ref *m,
			       const colfs_avro_value *rec, ice_file *f,
			       int *status, colfs_err *err, const char *shown)
{
	int64_t x;
	memset(f, 0, sizeof *f);
	f->content_offset = -1;
	f->content_size = -1;
	f->record_count = -1;
	*status = val_i64(fld(rec, ME_STATUS, "status"), &x) ? (int)x : 1;
	const colfs_avro_value *df = fld(rec, ME_DATA_FILE, "data_file");
	if (!df || df->type->type != COLFS_AVRO_RECORD)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "%s: an entry without data_file", shown);
	f->path = val_str(fld(df, DF_PATH, "file_path"));
	if (!f->path)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "%s: an entry without file_path", shown);
	f->content = val_i64(fld(df, DF_CONTENT, "content"), &x) ? (int)x
						 : m->content ? 1 : 0;
	const colfs_avro_value *ff = fld(df, DF_FORMAT, "file_format");
	f->avro = ff && ff->type->type == COLFS_AVRO_STRING && ff->n == 4 &&
		  !strncasecmp((const char *)ff->p, "avro", 4);
	/* the data sequence number: written, or inherited from the
	 * manifest (an added file's; v1 tables: 0) */
	if (!val_i64(fld(rec, ME_SEQ, "sequence_number"), &f->seq))
		f->seq = tb->format_version == 1 ? 0 : m->seq;
	f->spec_id = m->spec_id;
	const colfs_avro_value *pv = fld(df, DF_PARTITION, "partition");
	f->partition = pv ? colfs_avro_json(pv) : json_object();
	if (val_i64(fld(df, DF_RECORDS, "record_count"), &x))
		f->record_count = x;
	if (val_i64(fld(df, DF_SIZE, "file_size_in_bytes"), &x) && x >= 0)
		f->size = (uint64_t)x;
	const colfs_avro_value *eq = fld(df, DF_EQUALITY_IDS, "equality_ids");
	if (eq && eq->type->type == COLFS_AVRO_ARRAY && eq->n) {
		f->equality_ids = calloc(eq->n, sizeof *f->equality_ids);
		if (!f->equality_ids)
			return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
		for (size_t i = 0; i < eq->n; i++)
			if (val_i64(&eq->items[i], &x))
				f->equality_ids[f->n_equality_ids++] = (int32_t)x;
	}
	f->referenced_data_file = val_str(fld(df, DF_REFERENCED,
					      "referenced_data_file"));
	if (val_i64(fld(df, DF_CONTENT_OFFSET, "content_offset"), &x))
		f->content_offset = x;
	if (val_i64(fld(df, DF_CONTENT_SIZE, "content_size_in_bytes"), &x))
		f->content_size = x;
	f->local = ice_map_path(tb, f->path);
	f->manifest = strdup(m->path);
	if (!f->partition || !f->local || !f->manifest)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	return COLFS_OK;
}

colfs_status ice_manifest_each(const ice_table *tb, const ice_manifest_ref *m,
			       ice_entry_fn fn, void *ctx, colfs_err *err)
{
	char *shown = shown_path(tb, m->path);
	colfs_source *src = NULL;
	colfs_avro_reader *r = NULL;
	if (!shown)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	colfs_status st = avro_open(tb, m->local, shown, &src, &r, err);
	while (st == COLFS_OK) {
		const colfs_avro_value *rec;
		colfs_err rerr = {0};
		st = colfs_avro_next(r, &rec, NULL, &rerr);
		if (st == COLFS_END) {
			st = COLFS_OK;
			break;
		}
		if (st != COLFS_OK) {
			colfs_fail(err, st, rerr.offset, "%s: %s", shown, rerr.msg);
			break;
		}
		ice_file f;
		int status;
		st = entry_file(tb, m, rec, &f, &status, err, shown);
		json_t *j = st == COLFS_OK ? colfs_avro_json(rec) : NULL;
		if (st == COLFS_OK && !j)
			st = colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
		if (st == COLFS_OK) {
			/* the sequence numbers as scan planning uses them */
			json_object_set_new(j, "data_sequence_number",
					    json_integer(f.seq));
			if (fn(ctx, j, &f, status))
				m = NULL;
		}
		json_decref(j);
		ice_file_clear(&f);
		if (!m)
			break;
	}
	colfs_avro_close(r);
	colfs_source_destroy(src);
	free(shown);
	return st;
}

/* ------------------------------------------------------------------------
 * The live files of the snapshot
 */
typedef struct gather {
	ice_file *data, *dels;
	size_t n_data, n_dels, cap_data, cap_dels;
	bool nomem;
} gather;

static int gather_entry(void *ctx, json_t *entry, const ice_file *f,
			int status)
{
	gather *g = ctx;
	(void)entry;
	if (status == 2)
		return 0; /* deleted: not live */
	bool del = f->content != 0;
	ice_file **v = del ? &g->dels : &g->data;
	size_t *n = del ? &g->n_dels : &g->n_data;
	size_t *cap = del ? &g->cap_dels : &g->cap_data;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		ice_file *nv = realloc(*v, nc * sizeof **v);
		if (!nv) {
			g->nomem = true;
			return 1;
		}
		*v = nv;
		*cap = nc;
	}
	ice_file *c = &(*v)[*n];
	*c = *f;
	c->path = strdup(f->path);
	c->local = strdup(f->local);
	c->partition = json_deep_copy(f->partition);
	c->referenced_data_file = f->referenced_data_file
					  ? strdup(f->referenced_data_file) : NULL;
	c->manifest = strdup(f->manifest);
	c->equality_ids = NULL;
	c->n_equality_ids = 0;
	if (f->n_equality_ids) {
		c->equality_ids = malloc(f->n_equality_ids * sizeof *c->equality_ids);
		if (c->equality_ids) {
			memcpy(c->equality_ids, f->equality_ids,
			       f->n_equality_ids * sizeof *c->equality_ids);
			c->n_equality_ids = f->n_equality_ids;
		}
	}
	(*n)++;
	if (!c->path || !c->local || !c->partition || !c->manifest ||
	    (f->referenced_data_file && !c->referenced_data_file) ||
	    (f->n_equality_ids && !c->equality_ids)) {
		g->nomem = true;
		return 1;
	}
	return 0;
}

typedef struct gather_all {
	ice_table *tb;
	gather *per;          /* one per manifest */
	colfs_err *errs;
	colfs_status *sts;
} gather_all;

static void gather_one(void *arg, size_t i)
{
	gather_all *a = arg;
	a->sts[i] = ice_manifest_each(a->tb, &a->tb->manifests[i], gather_entry,
				      &a->per[i], &a->errs[i]);
	if (a->sts[i] == COLFS_OK && a->per[i].nomem)
		a->sts[i] = colfs_fail(&a->errs[i], COLFS_ENOMEM, 0,
				       "out of memory");
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const ice_file *)a)->path, ((const ice_file *)b)->path);
}

static void problem(ice_table *tb, char *msg)
{
	char **nv = realloc(tb->problems, (tb->n_problems + 1) * sizeof *nv);
	if (!nv || !msg) {
		free(msg);
		return;
	}
	tb->problems = nv;
	tb->problems[tb->n_problems++] = msg;
}

static colfs_status append_files(ice_file **v, size_t *n, ice_file *add,
				 size_t n_add)
{
	if (!n_add)
		return COLFS_OK;
	ice_file *nv = realloc(*v, (*n + n_add) * sizeof *nv);
	if (!nv)
		return COLFS_ENOMEM;
	memcpy(nv + *n, add, n_add * sizeof *nv);
	*v = nv;
	*n += n_add;
	return COLFS_OK;
}

colfs_status ice_table_files(ice_table *tb, colfs_err *err)
{
	pthread_mutex_lock(&tb->lock);
	if (tb->files_state) {
		colfs_status st = tb->files_state > 0 ? COLFS_OK
						      : tb->files_err.status;
		if (st != COLFS_OK)
			*err = tb->files_err;
		pthread_mutex_unlock(&tb->lock);
		return st;
	}
	colfs_status st = COLFS_OK;
	if (tb->snap) {
		colfs_err lerr = {0};
		st = ice_manifests_read(tb, tb->snap, &tb->manifests,
					&tb->n_manifests, &lerr);
		if (st != COLFS_OK)
			colfs_fail(&tb->files_err, st, lerr.offset,
				   "snapshot %" PRId64 ": manifest list %s",
				   tb->snap_id, lerr.msg);
	}
	size_t nm = tb->n_manifests;
	gather_all a = {
		.tb = tb,
		.per = calloc(nm + 1, sizeof *a.per),
		.errs = calloc(nm + 1, sizeof *a.errs),
		.sts = calloc(nm + 1, sizeof *a.sts),
	};
	if (st == COLFS_OK && (!a.per || !a.errs || !a.sts))
		st = colfs_fail(&tb->files_err, COLFS_ENOMEM, 0, "out of memory");
	if (st == COLFS_OK && nm)
		colfs_parallel_for(colfs_cpus(), nm, gather_one, &a);
	for (size_t i = 0; st == COLFS_OK && i < nm; i++) {
		if (a.sts[i] == COLFS_ENOMEM) {
			st = colfs_fail(&tb->files_err, COLFS_ENOMEM, 0,
					"out of memory");
		} else if (a.sts[i] != COLFS_OK) {
			/* a missing or damaged manifest: named, its files
			 * left out of the table's views */
			char *msg = NULL;
			if (asprintf(&msg, "%s (snapshot %" PRId64 "): %s: %s",
				     tb->manifests[i].path, tb->snap_id,
				     colfs_status_name(a.sts[i]),
				     a.errs[i].msg) < 0)
				msg = NULL;
			problem(tb, msg);
			if (tb->manifests[i].content != 0 && !tb->dels_unknown)
				tb->dels_unknown = strdup(tb->manifests[i].path);
			for (size_t k = 0; k < a.per[i].n_data; k++)
				ice_file_clear(&a.per[i].data[k]);
			for (size_t k = 0; k < a.per[i].n_dels; k++)
				ice_file_clear(&a.per[i].dels[k]);
			a.per[i].n_data = a.per[i].n_dels = 0;
		}
	}
	for (size_t i = 0; i < nm && a.per; i++) {
		if (st == COLFS_OK &&
		    (append_files(&tb->data, &tb->n_data, a.per[i].data,
				  a.per[i].n_data) != COLFS_OK ||
		     append_files(&tb->dels, &tb->n_dels, a.per[i].dels,
				  a.per[i].n_dels) != COLFS_OK))
			st = colfs_fail(&tb->files_err, COLFS_ENOMEM, 0,
					"out of memory");
		if (st != COLFS_OK) {
			for (size_t k = 0; k < a.per[i].n_data; k++)
				ice_file_clear(&a.per[i].data[k]);
			for (size_t k = 0; k < a.per[i].n_dels; k++)
				ice_file_clear(&a.per[i].dels[k]);
		}
		free(a.per[i].data);
		free(a.per[i].dels);
	}
	free(a.per);
	free(a.errs);
	free(a.sts);
	if (st == COLFS_OK && tb->n_data > 1)
		qsort(tb->data, tb->n_data, sizeof *tb->data, file_cmp);
	tb->files_state = st == COLFS_OK ? 1 : -1;
	if (st != COLFS_OK) {
		tb->files_err.status = st;
		*err = tb->files_err;
	}
	pthread_mutex_unlock(&tb->lock);
	return st;
}

/* ------------------------------------------------------------------------
 * Partition values as text
 */

/* The spec field named `name` of spec `spec_id`: its transform and its
 * source field's type (a string, or NULL for a nested type). */
static void spec_field(const ice_table *tb, int32_t spec_id, const char *name,
		       const char **transform, const char **src_type)
{
	json_t *fields = ice_spec_fields(tb, spec_id), *f;
	size_t i;
	*transform = NULL;
	*src_type = NULL;
	json_array_foreach(fields, i, f) {
		const char *n = json_string_value(json_object_get(f, "name"));
		if (!n || strcmp(n, name) != 0)
			continue;
		*transform = json_string_value(json_object_get(f, "transform"));
		bool ok;
		int64_t sid = ice_json_i64(json_object_get(f, "source-id"), &ok);
		/* the source field's type: in any schema (a dropped column
		 * may still partition older files) */
		size_t k, j;
		json_t *s, *c;
		json_t *schemas = json_object_get(tb->meta, "schemas");
		if (!json_is_array(schemas)) {
			schemas = json_array();
			json_array_append(schemas, json_object_get(tb->meta, "schema"));
		} else {
			json_incref(schemas);
		}
		json_array_foreach(schemas, k, s) {
			json_array_foreach(json_object_get(s, "fields"), j, c) {
				bool ok2;
				if (ok && ice_json_i64(json_object_get(c, "id"), &ok2) == sid &&
				    ok2)
					*src_type = json_string_value(
						json_object_get(c, "type"));
			}
		}
		json_decref(schemas);
		return;
	}
}

char *ice_partition_text(const ice_table *tb, int32_t spec_id,
			 const char *field, json_t *v)
{
	const char *tr, *ty;
	colfs_buf b = COLFS_BUF_INIT;
	const colfs_render *r = &colfs_render_text_default;

	if (!v || json_is_null(v))
		return NULL;
	spec_field(tb, spec_id, field, &tr, &ty);
	if (json_is_integer(v)) {
		int64_t x = json_integer_value(v);
		bool identity = !tr || strcmp(tr, "identity") == 0;
		/* year, month and hour as Iceberg writes them in partition
		 * paths (its transforms' human strings): 2023, 2023-12,
		 * 2024-01-01-05 */
		int64_t q = 0, rem = 0;
		if (tr && (!strcmp(tr, "month") || !strcmp(tr, "hour"))) {
			int64_t per = !strcmp(tr, "month") ? 12 : 24;
			q = x / per - (x % per < 0);
			rem = x - q * per;
		}
		if ((identity && ty && strcmp(ty, "date") == 0) ||
		    (tr && strcmp(tr, "day") == 0)) {
			colfs_render_date(&b, r, x);
		} else if (tr && strcmp(tr, "year") == 0 && x > INT64_MIN + 1970 &&
			   x < INT64_MAX - 1970) {
			colfs_buf_printf(&b, "%" PRId64, 1970 + x);
		} else if (tr && strcmp(tr, "month") == 0 && q < INT64_MAX - 1970) {
			colfs_buf_printf(&b, "%04" PRId64 "-%02" PRId64, 1970 + q,
					 rem + 1);
		} else if (tr && strcmp(tr, "hour") == 0) {
			colfs_render_date(&b, r, q);
			colfs_buf_printf(&b, "-%02" PRId64, rem);
		} else if (identity && ty && strncmp(ty, "timestamp", 9) == 0)
			colfs_render_timestamp(&b, r, x,
					       strstr(ty, "_ns") ? COLFS_UNIT_NANOS
								 : COLFS_UNIT_MICROS,
					       strstr(ty, "tz") != NULL);
		else if (identity && ty && strcmp(ty, "time") == 0)
			colfs_render_time(&b, r, x, COLFS_UNIT_MICROS);
		else
			colfs_render_i64(&b, r, x);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		colfs_buf_append(&b, s, strlen(s));
	} else if (json_is_true(v) || json_is_false(v)) {
		colfs_render_bool(&b, r, json_is_true(v));
	} else if (json_is_real(v)) {
		colfs_render_double(&b, r, json_real_value(v));
	} else {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (s)
			colfs_buf_append(&b, s, strlen(s));
		free(s);
	}
	colfs_buf_putc(&b, 0);
	if (colfs_buf_status(&b) != COLFS_OK) {
		colfs_buf_free(&b);
		return NULL;
	}
	size_t len;
	return colfs_buf_take(&b, &len);
}

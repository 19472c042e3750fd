/* colfs: Iceberg delete files in Avro (ice_avrodel.h).  The spec's Avro
 * schemas for delete files: a position delete file's records hold
 * file_path (string, field id 2147483546) and pos (long, 2147483545); an
 * equality delete file's hold the table's columns of its equality ids,
 * each field carrying its "field-id", typed as the spec's "Avro" type
 * mapping says (date: int date; time: long time-micros; timestamp and
 * timestamptz: long timestamp-micros with adjust-to-utc false or true;
 * timestamp_ns: timestamp-nanos; decimal: fixed decimal; uuid: fixed(16)
 * uuid; binary: bytes; fixed: fixed), optional ones as a union with
 * null.  Each value is rendered with the core's renderers, as the
 * Parquet reader renders the same Iceberg type (docs/values.md), so a
 * key read here is the text of the same value in a data file's
 * columns/. */
#include "ice_avrodel.h"
#include "../../core/avro.h"
#include "../../core/buf.h"
#include "../../core/render.h"
#include "../../core/sourcekind.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ice_avrodel {
	colfs_source *src;
	colfs_avro_reader *r;
	size_t n;
	size_t *idx;          /* the record's field index of each asked field */
	colfs_buf text;       /* the row's values, each NUL-terminated */
	size_t *at;           /* where each starts in text */
	char **texts;
};

static bool nested(const colfs_avro_schema *s)
{
	if (s->type == COLFS_AVRO_UNION) {
		for (size_t b = 0; b < s->n; b++)
			if (nested(s->branches[b]))
				return true;
		return false;
	}
	return s->type == COLFS_AVRO_RECORD || s->type == COLFS_AVRO_ARRAY ||
	       s->type == COLFS_AVRO_MAP;
}

colfs_status ice_avrodel_open(const char *local, const colfs_options *o,
			      const int32_t *ids, const char *const *names,
			      size_t n, ice_avrodel **out, int32_t *missing,
			      colfs_err *err)
{
	ice_avrodel *a = calloc(1, sizeof *a);
	char why[512] = "";

	*out = NULL;
	if (!a)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	a->n = n;
	a->idx = calloc(n ? n : 1, sizeof *a->idx);
	a->at = calloc(n ? n : 1, sizeof *a->at);
	a->texts = calloc(n ? n : 1, sizeof *a->texts);
	if (!a->idx || !a->at || !a->texts) {
		ice_avrodel_close(a);
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	}
	colfs_status st = colfs_source_open(local, o, &a->src, why, sizeof why);
	if (st) {
		ice_avrodel_close(a);
		return colfs_fail(err, st == COLFS_ENOENT ? COLFS_EIO : st,
				  COLFS_OFFSET_UNKNOWN, "%s",
				  why[0] ? why : colfs_status_name(st));
	}
	st = colfs_avro_open(a->src, 0, colfs_source_size(a->src), o->max_alloc,
			     &a->r, err);
	if (st) {
		ice_avrodel_close(a);
		return st;
	}
	const colfs_avro_schema *root = colfs_avro_schema_root(a->r);
	if (root->type != COLFS_AVRO_RECORD) {
		ice_avrodel_close(a);
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "its Avro schema is no record");
	}
	bool any_id = false;
	for (size_t i = 0; i < root->n; i++)
		any_id = any_id || root->fields[i].has_id;
	for (size_t k = 0; k < n; k++) {
		size_t i = 0;
		for (; i < root->n; i++) {
			const colfs_avro_field *f = &root->fields[i];
			if (any_id ? f->has_id && f->id == ids[k]
				   : names && names[k] && !strcmp(f->name, names[k]))
				break;
		}
		if (i == root->n || nested(root->fields[i].type)) {
			*missing = ids[k];
			st = i == root->n ? COLFS_ENOENT : COLFS_EUNSUPPORTED;
			ice_avrodel_close(a);
			return st;
		}
		a->idx[k] = i;
	}
	*out = a;
	return COLFS_OK;
}

/* The unit of a long's time logical type. */
static colfs_time_unit unit_of(colfs_avro_logical l)
{
	switch (l) {
	case COLFS_AVRO_LOGICAL_TIMESTAMP_MILLIS:
	case COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
	case COLFS_AVRO_LOGICAL_TIME_MILLIS:
		return COLFS_UNIT_MILLIS;
	case COLFS_AVRO_LOGICAL_TIMESTAMP_NANOS:
	case COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS:
		return COLFS_UNIT_NANOS;
	default:
		return COLFS_UNIT_MICROS;
	}
}

/* A timestamp is adjusted to UTC (Iceberg's timestamptz) when its type
 * says "adjust-to-utc": true, as Iceberg writes it; without that
 * attribute, as Avro's logical types say (timestamp-*: an instant,
 * local-timestamp-*: none). */
static bool utc_of(const colfs_avro_schema *s)
{
	json_t *adj = json_is_object(s->json)
		? json_object_get(s->json, "adjust-to-utc") : NULL;
	if (json_is_boolean(adj))
		return json_is_true(adj);
	return s->logical == COLFS_AVRO_LOGICAL_TIMESTAMP_MILLIS ||
	       s->logical == COLFS_AVRO_LOGICAL_TIMESTAMP_MICROS ||
	       s->logical == COLFS_AVRO_LOGICAL_TIMESTAMP_NANOS;
}

/* Value v as colfs renders the same Iceberg type's value in text mode. */
static void render(colfs_buf *b, const colfs_avro_value *v)
{
	const colfs_render *r = &colfs_render_text_default;
	const colfs_avro_schema *s = v->type;

	switch (s->type) {
	case COLFS_AVRO_NULL:
		colfs_render_null(b, r);
		return;
	case COLFS_AVRO_BOOLEAN:
		colfs_render_bool(b, r, v->b);
		return;
	case COLFS_AVRO_INT:
		if (s->logical == COLFS_AVRO_LOGICAL_DATE)
			colfs_render_date(b, r, v->l);
		else if (s->logical == COLFS_AVRO_LOGICAL_TIME_MILLIS)
			colfs_render_time(b, r, v->l, COLFS_UNIT_MILLIS);
		else
			colfs_render_i64(b, r, v->l);
		return;
	case COLFS_AVRO_LONG:
		switch (s->logical) {
		case COLFS_AVRO_LOGICAL_TIME_MICROS:
			colfs_render_time(b, r, v->l, COLFS_UNIT_MICROS);
			return;
		case COLFS_AVRO_LOGICAL_TIMESTAMP_MILLIS:
		case COLFS_AVRO_LOGICAL_TIMESTAMP_MICROS:
		case COLFS_AVRO_LOGICAL_TIMESTAMP_NANOS:
		case COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
		case COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS:
		case COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS:
			colfs_render_timestamp(b, r, v->l, unit_of(s->logical),
					       utc_of(s));
			return;
		default:
			colfs_render_i64(b, r, v->l);
			return;
		}
	case COLFS_AVRO_FLOAT:
		colfs_render_float(b, r, (float)v->d);
		return;
	case COLFS_AVRO_DOUBLE:
		colfs_render_double(b, r, v->d);
		return;
	case COLFS_AVRO_STRING:
		colfs_render_string(b, r, v->p, v->n);
		return;
	case COLFS_AVRO_ENUM: {
		const char *sym = colfs_avro_symbol(v);
		colfs_render_string(b, r, (const uint8_t *)(sym ? sym : ""),
				    sym ? strlen(sym) : 0);
		return;
	}
	case COLFS_AVRO_BYTES:
	case COLFS_AVRO_FIXED:
		if (s->logical == COLFS_AVRO_LOGICAL_DECIMAL)
			colfs_render_decimal_be(b, r, v->p, v->n, s->scale);
		else if (s->logical == COLFS_AVRO_LOGICAL_UUID && v->n == 16)
			colfs_render_uuid(b, r, v->p);
		else
			colfs_render_binary(b, r, v->p, v->n);
		return;
	default:
		/* nested types are refused at open */
		colfs_render_null(b, r);
		return;
	}
}

colfs_status ice_avrodel_next(ice_avrodel *a, char ***texts,
			      bool *end, colfs_err *err)
{
	const colfs_avro_value *rec;

	*texts = NULL;
	*end = false;
	colfs_status st = colfs_avro_next(a->r, &rec, NULL, err);
	if (st == COLFS_END) {
		*end = true;
		return COLFS_OK;
	}
	if (st)
		return st;
	a->text.len = 0;
	for (size_t k = 0; k < a->n; k++) {
		if (a->idx[k] >= rec->n)
			return colfs_fail(err, COLFS_ECORRUPT,
					  COLFS_OFFSET_UNKNOWN,
					  "a record shorter than its schema");
		a->at[k] = a->text.len;
		render(&a->text, &rec->items[a->idx[k]]);
		colfs_buf_putc(&a->text, '\0');
	}
	if ((st = colfs_buf_status(&a->text)))
		return colfs_fail(err, st, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	for (size_t k = 0; k < a->n; k++)
		a->texts[k] = a->text.data + a->at[k];
	*texts = a->texts;
	return COLFS_OK;
}

void ice_avrodel_close(ice_avrodel *a)
{
	if (!a)
		return;
	colfs_avro_close(a->r);
	colfs_source_destroy(a->src);
	colfs_buf_free(&a->text);
	free(a->idx);
	free(a->at);
	free((void *)a->texts);
	free(a);
}

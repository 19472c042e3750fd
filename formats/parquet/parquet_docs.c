/* colfs: the generated documents of the Parquet tree: summary, README,
 * schema, schema.json, layout, and the annotation text of a schema
 * element. */
#include "parquet_docs.h"
#include "parquet_crypt.h"
#include "parquet_json.h"
#include "../core/render.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- annotations ------------------------------------------------------------- */

static const char *unit_name(int32_t u)
{
	switch (u) {
	case PARQUET_UNIT_MILLIS: return "MILLIS";
	case PARQUET_UNIT_MICROS: return "MICROS";
	case PARQUET_UNIT_NANOS: return "NANOS";
	default: return "UNKNOWN_UNIT";
	}
}

bool parquet_docs_annotation(colfs_buf *b, const parquet_schema_elem *e)
{
	const parquet_logical *lt = &e->logical;

	switch (lt->kind) {
	case PARQUET_LT_NONE: break;
	case PARQUET_LT_STRING: colfs_buf_puts(b, "STRING"); return true;
	case PARQUET_LT_MAP: colfs_buf_puts(b, "MAP"); return true;
	case PARQUET_LT_LIST: colfs_buf_puts(b, "LIST"); return true;
	case PARQUET_LT_ENUM: colfs_buf_puts(b, "ENUM"); return true;
	case PARQUET_LT_DECIMAL:
		colfs_buf_printf(b, "DECIMAL(%d,%d)", lt->precision, lt->scale);
		return true;
	case PARQUET_LT_DATE: colfs_buf_puts(b, "DATE"); return true;
	case PARQUET_LT_TIME:
	case PARQUET_LT_TIMESTAMP:
		colfs_buf_printf(b, "%s(%s,%s)",
				 lt->kind == PARQUET_LT_TIME ? "TIME"
							     : "TIMESTAMP",
				 unit_name(lt->unit), lt->utc ? "true" : "false");
		return true;
	case PARQUET_LT_INTEGER:
		colfs_buf_printf(b, "INTEGER(%d,%s)", lt->bit_width,
				 lt->is_signed ? "true" : "false");
		return true;
	case PARQUET_LT_UNKNOWN: colfs_buf_puts(b, "UNKNOWN"); return true;
	case PARQUET_LT_JSON: colfs_buf_puts(b, "JSON"); return true;
	case PARQUET_LT_BSON: colfs_buf_puts(b, "BSON"); return true;
	case PARQUET_LT_UUID: colfs_buf_puts(b, "UUID"); return true;
	case PARQUET_LT_FLOAT16: colfs_buf_puts(b, "FLOAT16"); return true;
	case PARQUET_LT_FILE: colfs_buf_puts(b, "FILE"); return true;
	case PARQUET_LT_VARIANT:
		if (lt->variant_version >= 0)
			colfs_buf_printf(b, "VARIANT(%d)", lt->variant_version);
		else
			colfs_buf_puts(b, "VARIANT");
		return true;
	case PARQUET_LT_GEOMETRY:
		colfs_buf_puts(b, "GEOMETRY");
		if (lt->crs)
			colfs_buf_printf(b, "(%s)", lt->crs);
		return true;
	case PARQUET_LT_GEOGRAPHY: {
		const char *alg = lt->algorithm >= 0 &&
				  lt->algorithm < parquet_edge_algorithm_names_n
				  ? parquet_edge_algorithm_names[lt->algorithm]
				  : NULL;
		colfs_buf_puts(b, "GEOGRAPHY");
		if (!lt->crs && lt->algorithm < 0)
			return true;
		colfs_buf_printf(b, "(%s,", lt->crs ? lt->crs : "");
		if (alg)
			colfs_buf_puts(b, alg);
		else if (lt->algorithm >= 0)    /* a number without a name */
			colfs_buf_printf(b, "%d", (int)lt->algorithm);
		colfs_buf_putc(b, ')');
		return true;
	}
	default:
		colfs_buf_printf(b, "LOGICAL_TYPE_%d", lt->kind);
		return true;
	}
	switch (e->converted_type) {
	case -1: return false;
	case PARQUET_CT_UTF8: colfs_buf_puts(b, "STRING"); return true;
	case PARQUET_CT_DECIMAL:
		colfs_buf_printf(b, "DECIMAL(%d,%d)", e->precision, e->scale);
		return true;
	case PARQUET_CT_TIME_MILLIS:
		colfs_buf_puts(b, "TIME(MILLIS,true)");
		return true;
	case PARQUET_CT_TIME_MICROS:
		colfs_buf_puts(b, "TIME(MICROS,true)");
		return true;
	case PARQUET_CT_TIMESTAMP_MILLIS:
		colfs_buf_puts(b, "TIMESTAMP(MILLIS,true)");
		return true;
	case PARQUET_CT_TIMESTAMP_MICROS:
		colfs_buf_puts(b, "TIMESTAMP(MICROS,true)");
		return true;
	case PARQUET_CT_UINT_8: case PARQUET_CT_UINT_16:
	case PARQUET_CT_UINT_32: case PARQUET_CT_UINT_64:
		colfs_buf_printf(b, "INTEGER(%d,false)",
				 8 << (e->converted_type - PARQUET_CT_UINT_8));
		return true;
	case PARQUET_CT_INT_8: case PARQUET_CT_INT_16:
	case PARQUET_CT_INT_32: case PARQUET_CT_INT_64:
		colfs_buf_printf(b, "INTEGER(%d,true)",
				 8 << (e->converted_type - PARQUET_CT_INT_8));
		return true;
	default: {
		const char *n = parquet_converted_name(e->converted_type);
		if (n)
			colfs_buf_puts(b, n);
		else
			colfs_buf_printf(b, "CONVERTED_TYPE_%d",
					 e->converted_type);
		return true;
	}
	}
}

/* --- children of schema elements, in order --------------------------------- */

typedef struct kids {
	uint32_t *start;   /* start[i]..start[i+1] index into `list` */
	uint32_t *list;
} kids;

static bool kids_build(const parquet_file *pf, kids *k)
{
	uint32_t n = pf->n_schema;
	uint32_t *fill;

	k->start = calloc((size_t)n + 1, sizeof *k->start);
	k->list = calloc(n ? n : 1, sizeof *k->list);
	fill = calloc((size_t)n + 1, sizeof *fill);
	if (!k->start || !k->list || !fill) {
		free(k->start);
		free(k->list);
		free(fill);
		return false;
	}
	for (uint32_t i = 1; i < n; i++)
		if (pf->schema[i].parent >= 0)
			k->start[pf->schema[i].parent + 1]++;
	for (uint32_t i = 0; i < n; i++)
		k->start[i + 1] += k->start[i];
	for (uint32_t i = 1; i < n; i++) {
		int32_t p = pf->schema[i].parent;
		if (p >= 0)
			k->list[k->start[p] + fill[p]++] = i;
	}
	free(fill);
	return true;
}

static void kids_free(kids *k)
{
	free(k->start);
	free(k->list);
}

/* --- schema (parquet-mr notation) ------------------------------------------- */

static void lower(colfs_buf *b, const char *s)
{
	for (; *s; s++)
		colfs_buf_putc(b, (char)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s));
}

/* A CRS of GeoParquet's `geo` in a few words: absent, the default
 * OGC:CRS84; null, unknown; a string as it is; PROJJSON by its id
 * (AUTHORITY:CODE) and name. */
static void geoparquet_crs_text(colfs_buf *b, const json_t *spec)
{
	const json_t *crs = json_object_get(spec, "crs");
	const json_t *id, *name;

	if (!crs) {
		colfs_buf_puts(b, "OGC:CRS84 (default)");
		return;
	}
	if (json_is_null(crs)) {
		colfs_buf_puts(b, "unknown (null)");
		return;
	}
	if (json_is_string(crs)) {
		colfs_buf_printf(b, "%.200s", json_string_value(crs));
		return;
	}
	id = json_object_get(crs, "id");
	name = json_object_get(crs, "name");
	if (json_is_string(json_object_get(id, "authority"))) {
		const json_t *code = json_object_get(id, "code");
		colfs_buf_printf(b, "%.40s:",
				 json_string_value(json_object_get(id,
						   "authority")));
		if (json_is_integer(code))
			colfs_buf_printf(b, "%lld",
					 (long long)json_integer_value(code));
		else
			colfs_buf_printf(b, "%.40s",
					 json_is_string(code)
					 ? json_string_value(code) : "?");
		if (json_is_string(name))
			colfs_buf_printf(b, " (%.200s)", json_string_value(name));
	} else if (json_is_string(name)) {
		colfs_buf_printf(b, "%.200s", json_string_value(name));
	} else {
		colfs_buf_puts(b, json_is_object(crs) ? "PROJJSON without id or name"
					      : "not a string or object");
	}
}

/* The GeoParquet facts of a field (parquet_schema_elem.geoparquet) as a
 * comment after its line: "  # GeoParquet: ENCODING, geometry types T, U
 * (or any), crs C[, edges E][, primary]". */
static void geoparquet_comment(colfs_buf *b, const char *facts)
{
	json_t *o = json_loads(facts, 0, NULL);
	const json_t *types, *v;
	size_t i;

	if (!o)
		return;
	v = json_object_get(o, "encoding");
	colfs_buf_printf(b, "  # GeoParquet: %.40s, geometry types ",
			 json_is_string(v) ? json_string_value(v) : "?");
	types = json_object_get(o, "geometry_types");
	if (!json_array_size(types))
		colfs_buf_puts(b, "any");
	json_array_foreach(types, i, v)
		colfs_buf_printf(b, "%s%.40s", i ? ", " : "",
				 json_is_string(v) ? json_string_value(v) : "?");
	colfs_buf_puts(b, ", crs ");
	geoparquet_crs_text(b, o);
	v = json_object_get(o, "edges");
	if (json_is_string(v))
		colfs_buf_printf(b, ", edges %.40s", json_string_value(v));
	if (json_is_true(json_object_get(o, "primary")))
		colfs_buf_puts(b, ", primary");
	json_decref(o);
}

static void schema_elem_text(colfs_buf *b, const parquet_file *pf,
			     const kids *k, uint32_t i, int indent)
{
	const parquet_schema_elem *e = &pf->schema[i];
	const char *rep = parquet_repetition_name(e->repetition);
	bool group = e->type < 0 || e->num_children > 0;

	colfs_buf_printf(b, "%*s", indent, "");
	if (rep) {
		lower(b, rep);
		colfs_buf_putc(b, ' ');
	} else if (e->repetition >= 0) {
		colfs_buf_printf(b, "repetition_%d ", e->repetition);
	}
	if (group) {
		colfs_buf_puts(b, "group");
	} else if (e->type == PARQUET_FIXED_LEN_BYTE_ARRAY) {
		colfs_buf_printf(b, "fixed_len_byte_array(%d)", e->type_length);
	} else if (e->type == PARQUET_BYTE_ARRAY) {
		colfs_buf_puts(b, "binary");
	} else if (parquet_type_name(e->type)) {
		lower(b, parquet_type_name(e->type));
	} else {
		colfs_buf_printf(b, "type_%d", e->type);
	}
	colfs_buf_printf(b, " %s", e->name);
	{
		colfs_buf a = COLFS_BUF_INIT;
		if (parquet_docs_annotation(&a, e) && a.len) {
			colfs_buf_puts(b, " (");
			colfs_buf_append(b, a.data, a.len);
			colfs_buf_putc(b, ')');
		}
		if (colfs_buf_status(&a))
			b->failed = true;
		colfs_buf_free(&a);
	}
	if (e->has_field_id)
		colfs_buf_printf(b, " = %d", e->field_id);
	if (!group) {
		colfs_buf_putc(b, ';');
		if (e->geoparquet)
			geoparquet_comment(b, e->geoparquet);
		colfs_buf_putc(b, '\n');
		return;
	}
	colfs_buf_puts(b, " {");
	if (e->geoparquet)
		geoparquet_comment(b, e->geoparquet);
	colfs_buf_putc(b, '\n');
	for (uint32_t j = k->start[i]; j < k->start[i + 1]; j++)
		schema_elem_text(b, pf, k, k->list[j], indent + 2);
	colfs_buf_printf(b, "%*s}\n", indent, "");
}

colfs_status parquet_docs_schema_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const parquet_file *pf = s->pf;
	kids k;

	(void)t;
	if (!pf->n_schema)
		return colfs_buf_status(out);
	if (!kids_build(pf, &k))
		return COLFS_ENOMEM;
	colfs_buf_printf(out, "message %s {\n", pf->schema[0].name);
	for (uint32_t j = k.start[0]; j < k.start[1]; j++)
		schema_elem_text(out, pf, &k, k.list[j], 2);
	colfs_buf_puts(out, "}\n");
	kids_free(&k);
	return colfs_buf_status(out);
}

/* --- schema.json -------------------------------------------------------------- */

static json_t *logical_json(const parquet_logical *lt)
{
	json_t *o = json_object();
	static const char *const kinds[] = {
		NULL, "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE",
		"TIME", "TIMESTAMP", NULL, "INTEGER", "UNKNOWN", "JSON",
		"BSON", "UUID", "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY",
		"FILE",
	};
	const char *kn = lt->kind > 0 &&
			 lt->kind < (int32_t)(sizeof kinds / sizeof *kinds)
			 ? kinds[lt->kind] : NULL;

	if (!o)
		return NULL;
	if (kn)
		json_object_set_new(o, "kind", json_string(kn));
	else
		json_object_set_new(o, "kind", json_integer(lt->kind));
	switch (lt->kind) {
	case PARQUET_LT_DECIMAL:
		json_object_set_new(o, "scale", json_integer(lt->scale));
		json_object_set_new(o, "precision",
				    json_integer(lt->precision));
		break;
	case PARQUET_LT_TIME:
	case PARQUET_LT_TIMESTAMP:
		json_object_set_new(o, "unit", json_string(unit_name(lt->unit)));
		json_object_set_new(o, "isAdjustedToUTC", json_boolean(lt->utc));
		break;
	case PARQUET_LT_INTEGER:
		json_object_set_new(o, "bitWidth", json_integer(lt->bit_width));
		json_object_set_new(o, "isSigned", json_boolean(lt->is_signed));
		break;
	case PARQUET_LT_VARIANT:
		if (lt->variant_version >= 0)
			json_object_set_new(o, "specification_version",
					    json_integer(lt->variant_version));
		break;
	case PARQUET_LT_GEOMETRY:
	case PARQUET_LT_GEOGRAPHY:
		if (lt->crs)
			json_object_set_new(o, "crs", colfs_thrift_binary_json(
				(const uint8_t *)lt->crs, strlen(lt->crs)));
		if (lt->algorithm >= 0) {
			const char *a = lt->algorithm <
					parquet_edge_algorithm_names_n
					? parquet_edge_algorithm_names[lt->algorithm]
					: NULL;
			json_object_set_new(o, "algorithm",
					    a ? json_string(a)
					      : json_integer(lt->algorithm));
		}
		break;
	default:
		break;
	}
	return o;
}

static json_t *schema_elem_json(const parquet_file *pf, const kids *k,
				uint32_t i)
{
	const parquet_schema_elem *e = &pf->schema[i];
	json_t *o = json_object(), *ch;
	colfs_buf a = COLFS_BUF_INIT;

	if (!o)
		return NULL;
	json_object_set_new(o, "name", colfs_thrift_binary_json(
		(const uint8_t *)e->name, strlen(e->name)));
	if (e->repetition >= 0) {
		const char *r = parquet_repetition_name(e->repetition);
		json_object_set_new(o, "repetition",
				    r ? json_string(r)
				      : json_integer(e->repetition));
	}
	if (e->type >= 0) {
		const char *ty = parquet_type_name(e->type);
		json_object_set_new(o, "type", ty ? json_string(ty)
						 : json_integer(e->type));
	}
	if (e->type_length >= 0)
		json_object_set_new(o, "type_length",
				    json_integer(e->type_length));
	if (e->converted_type >= 0) {
		const char *c = parquet_converted_name(e->converted_type);
		json_object_set_new(o, "converted_type",
				    c ? json_string(c)
				      : json_integer(e->converted_type));
	}
	if (e->logical.kind)
		json_object_set_new(o, "logical_type", logical_json(&e->logical));
	if (parquet_docs_annotation(&a, e) && !colfs_buf_status(&a))
		json_object_set_new(o, "annotation",
				    json_stringn(a.data, a.len));
	colfs_buf_free(&a);
	if (e->scale >= 0)
		json_object_set_new(o, "scale", json_integer(e->scale));
	if (e->precision >= 0)
		json_object_set_new(o, "precision", json_integer(e->precision));
	if (e->has_field_id)
		json_object_set_new(o, "field_id", json_integer(e->field_id));
	if (e->geoparquet) {
		json_t *g = json_loads(e->geoparquet, 0, NULL);
		if (g)
			json_object_set_new(o, "geoparquet", g);
	}
	json_object_set_new(o, "max_definition_level",
			    json_integer(e->max_def));
	json_object_set_new(o, "max_repetition_level",
			    json_integer(e->max_rep));
	if (e->leaf >= 0) {
		json_object_set_new(o, "column", json_integer(e->leaf));
		json_object_set_new(o, "path", colfs_thrift_binary_json(
			(const uint8_t *)pf->columns[e->leaf].path,
			strlen(pf->columns[e->leaf].path)));
	}
	if (e->type < 0 || e->num_children >= 0) {
		ch = json_array();
		for (uint32_t j = k->start[i]; ch && j < k->start[i + 1]; j++)
			json_array_append_new(ch,
					      schema_elem_json(pf, k, k->list[j]));
		json_object_set_new(o, "children", ch);
	}
	return o;
}

colfs_status parquet_docs_schema_json_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const parquet_file *pf = s->pf;
	json_t *j;
	kids k;

	(void)t;
	if (!pf->n_schema)
		return colfs_buf_json(out, json_object());
	if (!kids_build(pf, &k))
		return COLFS_ENOMEM;
	j = schema_elem_json(pf, &k, 0);
	kids_free(&k);
	return colfs_buf_json(out, j);
}

/* --- summary -------------------------------------------------------------- */

static void codecs_used(const parquet_file *pf, colfs_buf *b)
{
	unsigned seen = 0;
	bool other = false, any = false;

	for (uint32_t g = 0; g < pf->n_row_groups; g++)
		for (uint32_t c = 0; c < pf->row_groups[g].n_chunks; c++) {
			const parquet_chunk *ch = &pf->row_groups[g].chunks[c];
			if (!ch->has_meta)
				continue;
			if (ch->codec >= 0 && ch->codec < 32)
				seen |= 1u << ch->codec;
			else
				other = true;
		}
	for (int i = 0; i < 32; i++) {
		if (!(seen & (1u << i)))
			continue;
		if (any)
			colfs_buf_puts(b, ", ");
		if (parquet_codec_name(i))
			colfs_buf_puts(b, parquet_codec_name(i));
		else
			colfs_buf_printf(b, "codec_%d", i);
		any = true;
	}
	if (other)
		colfs_buf_printf(b, "%sother", any ? ", " : "");
	else if (!any)
		colfs_buf_puts(b, "none");
}

static const char *algorithm_name(int32_t a)
{
	return a == 1 ? "AES_GCM_V1" : a == 2 ? "AES_GCM_CTR_V1" : "unknown";
}

colfs_status parquet_docs_summary_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const parquet_file *pf = s->pf;

	colfs_buf_printf(out, "file: %s\n", colfs_tree_display_name(t));
	colfs_buf_printf(out, "file size: %llu bytes\n",
			 (unsigned long long)s->size);
	if (!pf) {
		colfs_buf_puts(out, "format: parquet (no readable footer)\n");
		colfs_buf_printf(out, "problems: %zu (see errors)\n",
				 colfs_tree_error_count(t));
		return colfs_buf_status(out);
	}
	if (!parquet_region_footer_plain(s)) {
		colfs_buf_puts(out, "format: parquet, encrypted footer\n");
		colfs_buf_printf(out, "encryption: encrypted footer (%s); colfs has no keys\n",
				 algorithm_name(pf->encryption_algorithm));
		colfs_buf_printf(out, "footer: %llu bytes at offset %llu\n",
				 (unsigned long long)s->footer_len,
				 (unsigned long long)s->footer_offset);
		colfs_buf_printf(out, "problems: %zu (see errors)\n",
				 colfs_tree_error_count(t));
		return colfs_buf_status(out);
	}
	{
		uint64_t comp, unc;
		uint32_t encrypted = 0, decrypted = 0, chunks = 0;
		parquet_file_sizes(pf, &comp, &unc);
		for (uint32_t g = 0; g < pf->n_row_groups; g++)
			for (uint32_t c = 0; c < pf->row_groups[g].n_chunks;
			     c++) {
				chunks++;
				encrypted += pf->row_groups[g].chunks[c].encrypted;
				decrypted += pf->row_groups[g].chunks[c].dek != NULL;
			}
		colfs_buf_printf(out, "format: parquet, version %d\n",
				 pf->version);
		int64_t rows;
		/* the rows the views hold; a footer that counts others is
		 * named beside them (and in errors) */
		if (pf->meta_ok && parquet_file_rows(pf, &rows) &&
		    rows != pf->num_rows)
			colfs_buf_printf(out, "rows: %lld (the row groups'; FileMetaData num_rows says %lld)\n",
					 (long long)rows,
					 (long long)pf->num_rows);
		else
			colfs_buf_printf(out, "rows: %lld\n",
					 (long long)pf->num_rows);
		colfs_buf_printf(out, "columns: %u\n", pf->n_columns);
		colfs_buf_printf(out, "row groups: %u\n", pf->n_row_groups);
		colfs_buf_printf(out, "column chunks: %u\n", chunks);
		colfs_buf_printf(out, "compressed size: %llu bytes\n",
				 (unsigned long long)comp);
		colfs_buf_printf(out, "uncompressed size: %llu bytes\n",
				 (unsigned long long)unc);
		colfs_buf_puts(out, "codecs: ");
		codecs_used(pf, out);
		colfs_buf_putc(out, '\n');
		colfs_buf_printf(out, "created by: %s\n",
				 pf->created_by ? pf->created_by : "(not recorded)");
		if (s->footer_decrypted)
			colfs_buf_printf(out, "encryption: encrypted footer, decrypted (%s); %u of %u column chunks decrypted, %u without their key\n",
					 algorithm_name(parquet_crypt_algorithm(s->crypt)),
					 decrypted, chunks, encrypted);
		else if (decrypted)
			colfs_buf_printf(out, "encryption: plaintext footer, %u of %u column chunks encrypted (%s); %u decrypted, %u without their key\n",
					 encrypted + decrypted, chunks,
					 algorithm_name(pf->encryption_algorithm),
					 decrypted, encrypted);
		else if (pf->has_encryption_algorithm || encrypted)
			colfs_buf_printf(out, "encryption: plaintext footer, %u of %u column chunks encrypted (%s); colfs has no keys\n",
					 encrypted, chunks,
					 algorithm_name(pf->encryption_algorithm));
		else
			colfs_buf_puts(out, "encryption: none\n");
		colfs_buf_printf(out, "footer: %llu bytes at offset %llu\n",
				 (unsigned long long)s->footer_len,
				 (unsigned long long)s->footer_offset);
		colfs_buf_printf(out, "key/value metadata: %u entries\n",
				 pf->n_kv);
		colfs_buf_printf(out, "problems: %zu (see errors)\n",
				 colfs_tree_error_count(t));
	}
	return colfs_buf_status(out);
}

/* --- README ----------------------------------------------------------------- */

/* Which entries exist somewhere in this file's tree: the README lists
 * those and no others (from the metadata alone, as the tree does). */
typedef struct readme_has {
	bool chunk, stats, meta, views, levels, dict, ci, oi, bloom, verify;
	bool data;                  /* a chunk that holds values: data pages */
	bool dek;                   /* a chunk decrypted with its key */
} readme_has;

static bool readme_in_file(const parquet_region_state *s, int64_t off, int64_t len)
{
	uint64_t end;
	return off >= 0 && len > 0 &&
	       !colfs_add_overflows((uint64_t)off, (uint64_t)len, &end) &&
	       end <= s->size;
}

static readme_has readme_scan(const parquet_region_state *s)
{
	const parquet_file *pf = s->pf;
	readme_has h = {0};

	for (uint32_t g = 0; g < pf->n_row_groups; g++)
		for (uint32_t c = 0; c < pf->row_groups[g].n_chunks; c++) {
			const parquet_chunk *ch = &pf->row_groups[g].chunks[c];
			bool ok = ch->has_meta && !ch->encrypted &&
				  ch->column < pf->n_columns;

			h.chunk = true;
			h.dek |= ch->dek && ch->has_meta;
			h.stats |= ch->has_statistics ||
				   ch->has_geo_statistics;
			h.meta |= ch->has_meta;
			h.verify |= ch->has_meta && !ch->encrypted;
			h.views |= ok;
			h.data |= ok && ch->num_values > 0;
			if (ok && (pf->columns[ch->column].max_rep > 0 ||
				   pf->columns[ch->column].max_def > 0))
				h.levels = true;
			for (uint32_t i = 0; ok && i < ch->n_encodings; i++)
				h.dict |= ch->encodings[i] ==
						  PARQUET_ENC_PLAIN_DICTIONARY ||
					  ch->encodings[i] ==
						  PARQUET_ENC_RLE_DICTIONARY;
			if (ok && ch->dictionary_page_offset > 0 &&
			    (uint64_t)ch->dictionary_page_offset == ch->start)
				h.dict = true;
			if (ch->encrypted)
				continue;
			h.ci |= readme_in_file(s, ch->column_index_offset,
					       ch->column_index_length);
			h.oi |= readme_in_file(s, ch->offset_index_offset,
					       ch->offset_index_length);
			h.bloom |= ch->bloom_filter_offset >= 0;
		}
	return h;
}

colfs_status parquet_docs_readme_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const parquet_file *pf = s->pf;
	bool full = pf && parquet_region_footer_plain(s);
	colfs_node *rows = NULL;
	/* the table views exist unless a field cannot be assembled (then
	 * rows.* are left out, and errors says why): ask the root */
	bool table = full && s->values && pf->n_schema;
	bool rows_ok = table && !colfs_dir_lookup(t, colfs_node_parent(f),
						  "rows.jsonl", &rows);
	colfs_node *cols = NULL;
	colfs_node *const *kids;
	size_t nfields = 0;

	if (table && !colfs_dir_lookup(t, colfs_node_parent(f), "columns",
				       &cols) &&
	    colfs_dir_list(t, cols, &kids, &nfields))
		nfields = 0;
	colfs_node *arr;
	size_t narrays = 0;
	if (table && !colfs_dir_lookup(t, colfs_node_parent(f), "arrays",
				       &arr) &&
	    colfs_dir_list(t, arr, &kids, &narrays))
		narrays = 0;
	bool arrays = narrays > 1;   /* README and an array */
	readme_has h = full ? readme_scan(s) : (readme_has){0};
	bool rgs = full && pf->n_row_groups;
	char schema[96], meta[192], kv[64], groups[64];

	snprintf(schema, sizeof schema,
		 "the schema in parquet-mr's `message` notation (%u leaf columns)",
		 full ? pf->n_columns : 0);
	snprintf(meta, sizeof meta, "every field of the %s, decoded by name%s",
		 s->encrypted_footer ? "FileCryptoMetaData (the footer itself is encrypted)"
				     : "FileMetaData",
		 parquet_json_metadata_streams(s)
		 ? " (a large footer: made as read, a row group at a time)" : "");
	snprintf(kv, sizeof kv, "the key/value metadata (%u entries)",
		 pf ? pf->n_kv : 0);
	snprintf(groups, sizeof groups, "the %u row groups, numbered from 0",
		 rgs ? pf->n_row_groups : 0);
	const colfs_readme_row entries[] = {
		{true, 0, "summary", false,
		 "rows, columns, row groups, sizes, codecs, writer"},
		{full, 0, "schema", false, schema},
		{full, 0, "schema.json", false,
		 "the schema tree as JSON, with max definition/repetition levels"},
		{pf, 0, "metadata.json", false, meta},
		{pf && pf->n_kv, 0, "key_value/", false, kv},
		{pf && pf->n_kv, 1, "<key>", false,
		 "one file per key, holding the value bytes"},
		{true, 0, "raw/", false, "the stored bytes of the file's frame:"},
		{s->size >= 4, 1, "magic_head", false, "the first 4 bytes (PAR1)"},
		{s->size >= 8, 1, "magic_tail", false,
		 "the last 4 bytes (PAR1, or PARE: encrypted footer)"},
		{s->size >= 8, 1, "footer_length", false,
		 "the footer's length, 4 bytes little-endian"},
		{s->footer_ok, 1, "footer", false,
		 "the footer (FileMetaData), as stored"},
		{s->footer_decrypted, 1, "footer.decrypted", false,
		 "the encrypted footer decrypted with the footer key"},
		{rgs, 0, "row_groups/", false, groups},
		{rgs, 1, "N/", false, "row group N"},
		{rgs, 2, "meta.json", false, "the RowGroup"},
		{rgs, 2, "layout.svg", false,
		 "the picture of the row group's regions of `layout`"},
		{rgs, 2, "chunks/", false, "one directory per column chunk"},
		{h.chunk, 3, "<path>/", false,
		 "the chunk of one leaf column, named by its dotted path"},
		{h.chunk, 4, "meta.json", false, "ColumnChunk + ColumnMetaData"},
		{h.chunk && h.stats, 4, "statistics.json", false,
		 "min/max rendered per the column's type, geospatial bounding box and types (when the chunk has them)"},
		{h.meta, 4, "raw", false,
		 "the stored bytes of the chunk (all pages, headers included)"},
		{h.meta, 4, "pages/", false,
		 "the pages, found by walking their headers, numbered from 0"},
		{h.meta, 5, "K/", false, "page K"},
		{h.meta, 6, "header.json", false, "its PageHeader"},
		{h.meta, 6, "raw", false,
		 "its stored (compressed) data, header excluded"},
		{h.dek, 6, "decrypted", false,
		 "an encrypted page's data decrypted with the column's key (still compressed)"},
		{h.views, 6, "decompressed", true, "its data decompressed"},
		{h.data, 6, "values", true,
		 "a data page's values, one per line (docs/values.md)"},
		{h.data && h.levels, 6, "levels", true,
		 "a data page's repetition and definition levels, one entry per line"},
		{h.meta, 6, "errors", false,
		 "the problems found so far in this page"},
		{h.views, 4, "values", true, "the chunk's values, one per line"},
		{h.views && h.levels, 4, "levels", true,
		 "the chunk's repetition and definition levels (when the column has any)"},
		{h.views && h.dict, 4, "dictionary", true,
		 "the dictionary page's values, one per line (dictionary-encoded chunks)"},
		{h.ci, 4, "column_index.json", false,
		 "the ColumnIndex, min/max typed (when present)"},
		{h.oi, 4, "offset_index.json", false,
		 "the OffsetIndex (when present)"},
		{h.bloom, 4, "bloom_filter/", false,
		 "the split-block bloom filter (when present)"},
		{h.bloom, 5, "header.json", false, "the BloomFilterHeader"},
		{h.bloom, 5, "bitset", false,
		 "the stored bitset (when the header is readable; of an encrypted chunk, decrypted)"},
		{h.bloom, 5, "might_contain/", false,
		 "look up might_contain/<value>: a file exists when the filter may hold the value (nothing is listed)"},
		{h.verify, 4, "verify", true,
		 "statistics, column index, offset index and row count checked against the decoded pages"},
		{h.chunk, 4, "errors", false,
		 "the problems found so far in this chunk and its pages"},
		{table && pf->n_row_groups, 2, "columns/", false,
		 "the row group's values, one file per column"},
		{table && pf->n_row_groups && nfields, 3, "<field>", true,
		 "one top-level field (or a nested leaf without repetition, a.b.c), one row per line"},
		{table && pf->n_row_groups, 2, "arrays/", false,
		 "the row group's fixed-width fields as NumPy arrays"},
		{table && pf->n_row_groups, 3, "README", false,
		 "each array's NumPy type and the Parquet type it comes from"},
		{table && pf->n_row_groups && arrays, 3, "<field>.npy", true,
		 "one fixed-width top-level field, a value a row; <field>.nulls.npy beside a nullable one, True for NULL"},
		{rows_ok && pf->n_row_groups, 2, "rows.jsonl", true,
		 "the row group's rows, one JSON object per line"},
		{rows_ok && pf->n_row_groups, 2, "rows.csv", true,
		 "the row group's rows as CSV, a header line first"},
		{rgs, 2, "errors", false,
		 "the problems found so far in this row group"},
		{table, 0, "columns/", false,
		 "the whole file's values, one file per column"},
		{table && nfields, 1, "<field>", true,
		 "one top-level field (or a nested leaf without repetition, a.b.c), one row per line (docs/values.md)"},
		{table, 0, "arrays/", false,
		 "the whole file's fixed-width fields as NumPy .npy arrays (docs/values.md, \"Arrays\")"},
		{table, 1, "README", false,
		 "each array's NumPy type and the Parquet type it comes from"},
		{table && arrays, 1, "<field>.npy", true,
		 "one fixed-width top-level field, a value a row, its size exact from the metadata; <field>.nulls.npy beside a nullable one, True for NULL"},
		{rows_ok, 0, "rows.jsonl", true,
		 "every row, one JSON object per line"},
		{rows_ok, 0, "rows.csv", true,
		 "every row as CSV (RFC 4180, docs/values.md), a header line first"},
		{s->salvage, 0, "salvage/", false,
		 "the footer is unusable: the pages found by scanning the file (listing it scans once), grouped into chunks; with -o schema_from=HEALTHY.parquet also their values, columns/ and rows.* (docs/parquet-tree.md)"},
	};
	const colfs_readme r = {
		.what = "an Apache Parquet file",
		.format_text = "\"parquet\" and FileMetaData.version",
		.rows = entries,
		.n_rows = sizeof entries / sizeof entries[0],
	};

	return colfs_readme_write(t, &r, out);
}

/* --- layout --------------------------------------------------------------- */

static bool valid_region(const parquet_region_state *s, int64_t off, int64_t len)
{
	uint64_t end;
	return off >= 0 && len > 0 &&
	       !colfs_add_overflows((uint64_t)off, (uint64_t)len, &end) &&
	       end <= s->size;
}

colfs_status parquet_docs_layout_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(f);
	const parquet_file *pf = s->pf;
	colfs_layout l = COLFS_LAYOUT_INIT;

	(void)t;
	if (s->size >= 4)
		colfs_layout_add(&l, 0, 4, "magic", "/raw/magic_head");
	if (pf && parquet_region_footer_plain(s)) {
		for (uint32_t g = 0; g < pf->n_row_groups; g++) {
			const parquet_row_group *rg = &pf->row_groups[g];
			for (uint32_t c = 0; c < rg->n_chunks; c++) {
				const parquet_chunk *ch = &rg->chunks[c];
				char tmp[32];
				char *esc = colfs_name_escape(
					parquet_region_chunk_name(s, rg, c, tmp, sizeof tmp));
				if (!esc) {
					l.failed = true;
					continue;
				}
				if (ch->has_meta && ch->length)
					colfs_layout_add(&l, ch->start, ch->length,
							 "column_chunk",
							 "/row_groups/%u/chunks/%s/raw",
							 g, esc);
				if (valid_region(s, ch->column_index_offset,
						 ch->column_index_length))
					colfs_layout_add(&l,
							 (uint64_t)ch->column_index_offset,
							 (uint64_t)ch->column_index_length,
							 "column_index",
							 "/row_groups/%u/chunks/%s/column_index.json",
							 g, esc);
				if (valid_region(s, ch->offset_index_offset,
						 ch->offset_index_length))
					colfs_layout_add(&l,
							 (uint64_t)ch->offset_index_offset,
							 (uint64_t)ch->offset_index_length,
							 "offset_index",
							 "/row_groups/%u/chunks/%s/offset_index.json",
							 g, esc);
				if (valid_region(s, ch->bloom_filter_offset,
						 ch->bloom_filter_length))
					colfs_layout_add(&l,
							 (uint64_t)ch->bloom_filter_offset,
							 (uint64_t)ch->bloom_filter_length,
							 "bloom_filter",
							 "/row_groups/%u/chunks/%s/bloom_filter",
							 g, esc);
				free(esc);
			}
		}
	}
	if (s->footer_ok && s->footer_len)
		colfs_layout_add(&l, s->footer_offset, s->footer_len, "footer",
				 "/raw/footer");
	if (s->size >= 12) {
		colfs_layout_add(&l, s->size - 8, 4, "footer_length",
				 "/raw/footer_length");
		colfs_layout_add(&l, s->size - 4, 4, "magic", "/raw/magic_tail");
	}
	return colfs_layout_write(&l, s->size, out);
}

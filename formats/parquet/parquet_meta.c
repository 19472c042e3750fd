/* colfs: FileMetaData -> the typed model of parquet.h: the typed parse
 * of the footer, the schema tree, the chunk checks, enum value names. */
#include "parquet_arena.h"
#include "parquet_desc.h"
#include "parquet_annot.h"
#include "../core/buf.h"

#include <jansson.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Schema nesting deeper than this is refused (it would only serve to make
 * path building quadratic). */
#define PARQUET_MAX_SCHEMA_DEPTH 512

/* --- parse context ---------------------------------------------------------- */

typedef struct pctx {
	parquet_file *pf;
	colfs_thrift r;
	colfs_cursor cur;
	parquet_report_fn report;
	void *report_ctx;
	/* The row group before the one being parsed (NULL for the first) and
	 * the chunk's index in its row group: a chunk whose path_in_schema or
	 * encodings equal those of the same chunk of the row group before
	 * shares them (a wide footer repeats them in every row group). */
	const parquet_row_group *prev_rg;
	uint32_t chunk_i;
} pctx;

/* The same chunk of the row group before, or NULL. */
static const parquet_chunk *prev_chunk(const pctx *x)
{
	if (!x->prev_rg || x->chunk_i >= x->prev_rg->n_chunks)
		return NULL;
	return &x->prev_rg->chunks[x->chunk_i];
}

static colfs_status nomem(pctx *x, colfs_err *err)
{
	return colfs_fail(err, COLFS_ENOMEM, colfs_cursor_offset(&x->cur),
			  "out of memory decoding the footer");
}

static void report(pctx *x, colfs_status st, uint64_t off, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

static void report(pctx *x, colfs_status st, uint64_t off, const char *fmt,
		   ...)
{
	colfs_err e;
	va_list ap;

	if (!x->report)
		return;
	e.status = st;
	e.offset = off;
	char raw[sizeof e.msg];
	size_t j = 0;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* names from the file may hold control bytes: errors is one line
	 * per problem */
	for (size_t i = 0; raw[i] && j + 5 < sizeof e.msg; i++) {
		uint8_t ch = (uint8_t)raw[i];
		if (ch < 0x20 || ch == 0x7f)
			j += (size_t)snprintf(e.msg + j, sizeof e.msg - j,
					      "\\x%02x", ch);
		else
			e.msg[j++] = (char)ch;
	}
	e.msg[j] = 0;
	x->report(x->report_ctx, &e);
}

static colfs_status want(pctx *x, const colfs_thrift_field *f, uint8_t type,
			 const char *what, colfs_err *err)
{
	(void)x;
	if (f->type == type ||
	    (type == COLFS_THRIFT_LIST && f->type == COLFS_THRIFT_SET))
		return COLFS_OK;
	return colfs_fail(err, COLFS_ECORRUPT, f->offset,
			  "%s (field %d) has thrift type %s, expected %s", what,
			  f->id, colfs_thrift_type_name(f->type),
			  colfs_thrift_type_name(type));
}

static colfs_status read_string(pctx *x, const colfs_thrift_field *f,
				const char *what, const char **out,
				colfs_err *err)
{
	const uint8_t *p;
	size_t n;

	COLFS_TRY(want(x, f, COLFS_THRIFT_BINARY, what, err));
	COLFS_TRY(colfs_thrift_read_binary(&x->r, f->type, &p, &n, err));
	*out = parquet_arena_strndup(x->pf, p, n);
	return *out ? COLFS_OK : nomem(x, err);
}

/* The id of the member a union holds; the member struct is skipped unless
 * `parse` handles it.  Returns 0 for an empty union. */
static colfs_status union_member(pctx *x, int32_t *member, colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	*member = 0;
	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (!*member && f.type == COLFS_THRIFT_STRUCT)
			*member = f.id;
		COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	return COLFS_OK;
}


/* --- LogicalType ------------------------------------------------------------ */

static colfs_status parse_logical_member(pctx *x, parquet_logical *lt,
					 colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		int32_t v;
		switch (lt->kind * 100 + f.id) {
		case PARQUET_LT_DECIMAL * 100 + 1:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&lt->scale, err));
			break;
		case PARQUET_LT_DECIMAL * 100 + 2:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&lt->precision, err));
			break;
		case PARQUET_LT_TIME * 100 + 1:
		case PARQUET_LT_TIMESTAMP * 100 + 1:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_BOOL,
				       "isAdjustedToUTC", err));
			lt->utc = f.bool_value;
			break;
		case PARQUET_LT_TIME * 100 + 2:
		case PARQUET_LT_TIMESTAMP * 100 + 2:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_STRUCT, "unit",
				       err));
			COLFS_TRY(union_member(x, &lt->unit, err));
			break;
		case PARQUET_LT_INTEGER * 100 + 1:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&lt->bit_width, err));
			break;
		case PARQUET_LT_INTEGER * 100 + 2:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_BOOL, "isSigned",
				       err));
			lt->is_signed = f.bool_value;
			break;
		case PARQUET_LT_VARIANT * 100 + 1:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type, &v,
							err));
			lt->variant_version = v;
			break;
		case PARQUET_LT_GEOMETRY * 100 + 1:
		case PARQUET_LT_GEOGRAPHY * 100 + 1:
			COLFS_TRY(read_string(x, &f, "crs", &lt->crs, err));
			break;
		case PARQUET_LT_GEOGRAPHY * 100 + 2:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&lt->algorithm, err));
			break;
		default:
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	return COLFS_OK;
}

static colfs_status parse_logical(pctx *x, parquet_logical *lt,
				  colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (lt->kind == 0 && f.type == COLFS_THRIFT_STRUCT) {
			lt->kind = f.id;
			COLFS_TRY(parse_logical_member(x, lt, err));
		} else {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	return COLFS_OK;
}

/* --- SchemaElement ---------------------------------------------------------- */

static colfs_status parse_schema_elem(pctx *x, parquet_schema_elem *e,
				      colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(&x->cur);
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	e->type = e->type_length = e->repetition = e->num_children = -1;
	e->converted_type = e->scale = e->precision = -1;
	e->logical.variant_version = e->logical.algorithm = -1;
	e->parent = -1;
	e->leaf = -1;
	e->offset = at;
	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_schema, f)) {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		int32_t *dst = NULL;
		switch (f.id) {
		case 1: dst = &e->type; break;
		case 2: dst = &e->type_length; break;
		case 3: dst = &e->repetition; break;
		case 5: dst = &e->num_children; break;
		case 6: dst = &e->converted_type; break;
		case 7: dst = &e->scale; break;
		case 8: dst = &e->precision; break;
		case 9:
			dst = &e->field_id;
			e->has_field_id = true;
			break;
		case 4:
			COLFS_TRY(read_string(x, &f, "SchemaElement.name",
					      &e->name, err));
			continue;
		case 10:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_STRUCT,
				       "SchemaElement.logicalType", err));
			COLFS_TRY(parse_logical(x, &e->logical, err));
			continue;
		default:
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type, dst, err));
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	if (!e->name)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "SchemaElement without its required name");
	return COLFS_OK;
}

/* --- ColumnMetaData / ColumnChunk / RowGroup ------------------------------- */

static colfs_status parse_string_path(pctx *x, const char **out,
				      colfs_err *err)
{
	colfs_buf b = COLFS_BUF_INIT;
	uint8_t et;
	uint32_t n;
	colfs_status st = COLFS_OK;

	COLFS_TRY(colfs_thrift_list_begin(&x->r, &et, &n, err));
	for (uint32_t i = 0; i < n && !st; i++) {
		const uint8_t *p;
		size_t len;
		st = colfs_thrift_read_binary(&x->r, et, &p, &len, err);
		if (st)
			break;
		if (i)
			colfs_buf_putc(&b, '.');
		colfs_buf_append(&b, p, len);
	}
	colfs_buf_putc(&b, 0);
	if (!st && colfs_buf_status(&b))
		st = nomem(x, err);
	if (!st) {
		const parquet_chunk *pc = prev_chunk(x);
		if (pc && pc->path_in_schema &&
		    !strcmp(pc->path_in_schema, b.data))
			*out = pc->path_in_schema;
		else
			*out = parquet_arena_strndup(x->pf, (const uint8_t *)b.data,
					     b.len - 1);
		if (!*out)
			st = nomem(x, err);
	}
	colfs_buf_free(&b);
	if (!st)
		colfs_thrift_collection_leave(&x->r);
	return st;
}

static colfs_status parse_column_meta(pctx *x, parquet_chunk *ch,
				      colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(&x->cur);
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	unsigned seen = 0;

	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_col_meta, f)) {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		int64_t *d64 = NULL;
		int32_t *d32 = NULL;
		if (f.id >= 1 && f.id <= 9)
			seen |= 1u << f.id;
		switch (f.id) {
		case 1: d32 = &ch->type; break;
		case 4: d32 = &ch->codec; break;
		case 5: d64 = &ch->num_values; break;
		case 6: d64 = &ch->total_uncompressed_size; break;
		case 7: d64 = &ch->total_compressed_size; break;
		case 9: d64 = &ch->data_page_offset; break;
		case 10: d64 = &ch->index_page_offset; break;
		case 11: d64 = &ch->dictionary_page_offset; break;
		case 14: d64 = &ch->bloom_filter_offset; break;
		case 15: d32 = &ch->bloom_filter_length; break;
		case 2: {
			uint8_t et;
			uint32_t n;
			int32_t *enc, tmp[16];
			const parquet_chunk *pc;
			COLFS_TRY(want(x, &f, COLFS_THRIFT_LIST,
				       "ColumnMetaData.encodings", err));
			COLFS_TRY(colfs_thrift_list_begin(&x->r, &et, &n,
							  err));
			/* read into `tmp` while short, kept only when new */
			enc = n <= 16 ? tmp : parquet_arena_calloc(x->pf, n, sizeof *enc);
			if (!enc)
				return nomem(x, err);
			for (uint32_t i = 0; i < n; i++)
				COLFS_TRY(colfs_thrift_read_i32(&x->r, et,
								&enc[i], err));
			colfs_thrift_collection_leave(&x->r);
			pc = prev_chunk(x);
			if (pc && pc->encodings && pc->n_encodings == n &&
			    !memcmp(pc->encodings, enc, n * sizeof *enc)) {
				enc = (int32_t *)pc->encodings;
			} else if (enc == tmp) {
				enc = parquet_arena_calloc(x->pf, n, sizeof *enc);
				if (!enc)
					return nomem(x, err);
				memcpy(enc, tmp, n * sizeof *enc);
			}
			ch->encodings = enc;
			ch->n_encodings = n;
			continue;
		}
		case 3:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_LIST,
				       "ColumnMetaData.path_in_schema", err));
			COLFS_TRY(parse_string_path(x, &ch->path_in_schema,
						    err));
			continue;
		case 12:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_STRUCT,
				       "ColumnMetaData.statistics", err));
			ch->stats_span_off = x->cur.pos;
			COLFS_TRY(colfs_thrift_skip_struct(&x->r, err));
			ch->stats_span_len = x->cur.pos - ch->stats_span_off;
			ch->has_statistics = true;
			continue;
		case 17:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_STRUCT,
				       "ColumnMetaData.geospatial_statistics",
				       err));
			ch->geo_span_off = x->cur.pos;
			COLFS_TRY(colfs_thrift_skip_struct(&x->r, err));
			ch->geo_span_len = x->cur.pos - ch->geo_span_off;
			ch->has_geo_statistics = true;
			continue;
		default:
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		if (d64)
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type, d64,
							err));
		else
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type, d32,
							err));
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	/* required: type, encodings, path, codec, num_values, sizes, data
	 * page offset */
	if ((seen & 0x2fe) != 0x2fe)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "ColumnMetaData lacks required fields (have mask 0x%x)",
				  seen);
	return COLFS_OK;
}

static colfs_status parse_column_chunk(pctx *x, parquet_chunk *ch,
				       colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	ch->index_page_offset = ch->dictionary_page_offset = -1;
	ch->bloom_filter_offset = ch->offset_index_offset = -1;
	ch->column_index_offset = -1;
	ch->bloom_filter_length = ch->offset_index_length = -1;
	ch->column_index_length = -1;
	ch->type = ch->codec = -1;
	ch->span_off = x->cur.pos;
	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_chunk, f)) {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		switch (f.id) {
		case 1:
			COLFS_TRY(read_string(x, &f, "ColumnChunk.file_path",
					      &ch->file_path, err));
			break;
		case 2:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&ch->file_offset, err));
			break;
		case 3:
			COLFS_TRY(want(x, &f, COLFS_THRIFT_STRUCT,
				       "ColumnChunk.meta_data", err));
			ch->meta_span_off = x->cur.pos;
			COLFS_TRY(parse_column_meta(x, ch, err));
			ch->meta_span_len = x->cur.pos - ch->meta_span_off;
			ch->has_meta = true;
			break;
		case 4:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&ch->offset_index_offset,
							err));
			break;
		case 5:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&ch->offset_index_length,
							err));
			break;
		case 6:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&ch->column_index_offset,
							err));
			break;
		case 7:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&ch->column_index_length,
							err));
			break;
		case 8:
			ch->has_crypto_metadata = true;
			ch->crypto_span_off = (uint32_t)x->cur.pos;
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			if (f.type == COLFS_THRIFT_STRUCT)
				ch->crypto_span_len = (uint32_t)x->cur.pos -
						      ch->crypto_span_off;
			break;
		case 9: {
			const uint8_t *p;
			size_t n;
			ch->has_encrypted_metadata = true;
			COLFS_TRY(want(x, &f, COLFS_THRIFT_BINARY,
				       "ColumnChunk.encrypted_column_metadata",
				       err));
			COLFS_TRY(colfs_thrift_read_binary(&x->r, f.type, &p,
							   &n, err));
			ch->enc_meta_span_off = (uint32_t)(p - x->cur.base);
			ch->enc_meta_span_len = (uint32_t)n;
			break;
		}
		default:
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	ch->span_len = x->cur.pos - ch->span_off;
	ch->encrypted = ch->has_crypto_metadata || ch->has_encrypted_metadata;
	return COLFS_OK;
}

static colfs_status parse_row_group(pctx *x, parquet_row_group *rg,
				    colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(&x->cur);
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	bool have_cols = false, have_rows = false;

	rg->total_compressed_size = rg->file_offset = -1;
	rg->ordinal = -1;
	rg->span_off = x->cur.pos;
	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_row_group, f)) {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		switch (f.id) {
		case 1: {
			uint8_t et;
			uint32_t n;
			COLFS_TRY(want(x, &f, COLFS_THRIFT_LIST,
				       "RowGroup.columns", err));
			COLFS_TRY(colfs_thrift_list_begin(&x->r, &et, &n,
							  err));
			if (et != COLFS_THRIFT_STRUCT && n)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "RowGroup.columns holds %s, not structs",
						  colfs_thrift_type_name(et));
			/* n is bounded by the bytes left (one per struct) */
			rg->chunks = parquet_arena_big(x->pf, n, sizeof *rg->chunks);
			if (!rg->chunks)
				return nomem(x, err);
			for (uint32_t i = 0; i < n; i++) {
				x->chunk_i = i;
				COLFS_TRY(parse_column_chunk(x, &rg->chunks[i],
							     err));
				rg->chunks[i].column = i;
				rg->n_chunks = i + 1;
			}
			colfs_thrift_collection_leave(&x->r);
			have_cols = true;
			break;
		}
		case 2:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&rg->total_byte_size,
							err));
			break;
		case 3:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&rg->num_rows, err));
			have_rows = true;
			break;
		case 5:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&rg->file_offset, err));
			break;
		case 6:
			COLFS_TRY(colfs_thrift_read_i64(&x->r, f.type,
							&rg->total_compressed_size,
							err));
			break;
		case 7:
			COLFS_TRY(colfs_thrift_read_i32(&x->r, f.type,
							&rg->ordinal, err));
			break;
		default:
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	rg->span_len = x->cur.pos - rg->span_off;
	if (!have_cols || !have_rows)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "RowGroup lacks its required %s",
				  have_cols ? "num_rows" : "columns");
	return COLFS_OK;
}

static colfs_status parse_kv(pctx *x, parquet_kv *kv, colfs_err *err)
{
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_kv, f)) {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
			continue;
		}
		if (f.id == 1) {
			COLFS_TRY(read_string(x, &f, "KeyValue.key", &kv->key,
					      err));
		} else if (f.id == 2) {
			const uint8_t *p;
			size_t n;
			COLFS_TRY(want(x, &f, COLFS_THRIFT_BINARY,
				       "KeyValue.value", err));
			COLFS_TRY(colfs_thrift_read_binary(&x->r, f.type, &p,
							   &n, err));
			kv->value = (const uint8_t *)parquet_arena_strndup(x->pf, p, n);
			if (!kv->value)
				return nomem(x, err);
			kv->value_len = n;
		} else {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	if (!kv->key)
		kv->key = "";
	return COLFS_OK;
}

/* --- FileMetaData ------------------------------------------------------------ */

static colfs_status parse_file_meta(pctx *x, colfs_err *err)
{
	parquet_file *pf = x->pf;
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	parquet_grow gs = {.size = sizeof(parquet_schema_elem)};
	parquet_grow gr = {.size = sizeof(parquet_row_group)};
	parquet_grow gk = {.size = sizeof(parquet_kv)};
	unsigned seen = 0;

	st = colfs_thrift_struct_enter(&x->r, &last, err);
	while (!st &&
	       (st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
		       COLFS_OK) {
		if (PARQUET_MISFIT(parquet_wire_file_meta, f)) {
			st = colfs_thrift_skip(&x->r, f.type, err);
			continue;
		}
		uint8_t et;
		uint32_t n;
		if (f.id >= 1 && f.id <= 4)
			seen |= 1u << f.id;
		switch (f.id) {
		case 1:
			st = colfs_thrift_read_i32(&x->r, f.type, &pf->version,
						   err);
			break;
		case 3:
			st = colfs_thrift_read_i64(&x->r, f.type, &pf->num_rows,
						   err);
			break;
		case 6:
			st = read_string(x, &f, "FileMetaData.created_by",
					 &pf->created_by, err);
			break;
		case 2:
		case 4:
		case 5:
			st = want(x, &f, COLFS_THRIFT_LIST,
				  f.id == 2 ? "FileMetaData.schema"
				  : f.id == 4 ? "FileMetaData.row_groups"
				  : "FileMetaData.key_value_metadata", err);
			if (!st)
				st = colfs_thrift_list_begin(&x->r, &et, &n,
							     err);
			if (!st && n && et != COLFS_THRIFT_STRUCT)
				st = colfs_fail(err, COLFS_ECORRUPT, f.offset,
						"list field %d holds %s, not structs",
						f.id, colfs_thrift_type_name(et));
			for (uint32_t i = 0; !st && i < n; i++) {
				parquet_grow *g = f.id == 2 ? &gs : f.id == 4 ? &gr : &gk;
				void *el = parquet_grow_next(g);
				if (!el) {
					st = nomem(x, err);
					break;
				}
				if (f.id == 2) {
					st = parse_schema_elem(x, el, err);
				} else if (f.id == 4) {
					x->prev_rg = g->n >= 2
						? (const parquet_row_group *)g->data + g->n - 2
						: NULL;
					st = parse_row_group(x, el, err);
					x->prev_rg = NULL;
				} else {
					st = parse_kv(x, el, err);
				}
				if (st)
					g->n--;   /* drop the partial element */
			}
			if (!st)
				colfs_thrift_collection_leave(&x->r);
			break;
		case 7:
			/* the ColumnOrder member of each leaf (1 TYPE_ORDER,
			 * 2 IEEE_754_TOTAL_ORDER, 3 INT96_TIMESTAMP_ORDER) */
			pf->has_column_orders = true;
			st = want(x, &f, COLFS_THRIFT_LIST,
				  "FileMetaData.column_orders", err);
			if (!st)
				st = colfs_thrift_list_begin(&x->r, &et, &n,
							     err);
			if (!st && n && et != COLFS_THRIFT_STRUCT)
				st = colfs_fail(err, COLFS_ECORRUPT, f.offset,
						"list field %d holds %s, not structs",
						f.id, colfs_thrift_type_name(et));
			if (!st && n) {
				pf->column_orders = parquet_arena_calloc(pf, n,
						sizeof *pf->column_orders);
				if (!pf->column_orders)
					st = nomem(x, err);
			}
			for (uint32_t i = 0; !st && i < n; i++) {
				st = union_member(x, &pf->column_orders[i],
						  err);
				if (!st)
					pf->n_column_orders = i + 1;
			}
			if (!st)
				colfs_thrift_collection_leave(&x->r);
			break;
		case 8:
			st = want(x, &f, COLFS_THRIFT_STRUCT,
				  "FileMetaData.encryption_algorithm", err);
			if (!st)
				st = union_member(x, &pf->encryption_algorithm,
						  err);
			pf->has_encryption_algorithm = true;
			break;
		case 9:
			pf->has_footer_signing_key = true;
			st = colfs_thrift_skip(&x->r, f.type, err);
			break;
		default:
			st = colfs_thrift_skip(&x->r, f.type, err);
		}
	}
	pf->schema = parquet_grow_finish(pf, &gs);
	pf->n_schema = (uint32_t)gs.n;
	pf->row_groups = parquet_grow_finish(pf, &gr);
	pf->n_row_groups = (uint32_t)gr.n;
	pf->kv = parquet_grow_finish(pf, &gk);
	pf->n_kv = (uint32_t)gk.n;
	if (!pf->schema || !pf->row_groups || !pf->kv)
		return nomem(x, err);
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	pf->meta_len = x->cur.pos;
	if ((seen & 0x1e) != 0x1e)
		return colfs_fail(err, COLFS_ECORRUPT, pf->footer_offset,
				  "FileMetaData lacks required field %s",
				  !(seen & 2) ? "version" : !(seen & 4) ? "schema"
				  : !(seen & 8) ? "num_rows" : "row_groups");
	return COLFS_OK;
}

/* --- the schema tree --------------------------------------------------------- */

typedef struct frame {
	uint32_t idx;
	int64_t left;   /* children still to attach */
	uint32_t depth;
} frame;

/* The GeoParquet facts of column `spec` ("encoding", "geometry_types",
 * "crs", "edges", as stored) as compact JSON text in the file's arena,
 * with "primary": true when it is the primary column; NULL when out of
 * memory. */
static const char *geoparquet_text(parquet_file *pf, json_t *spec,
				   bool primary)
{
	static const char *const keys[] = {
		"encoding", "geometry_types", "crs", "edges",
	};
	json_t *o = json_object();
	char *text, *copy = NULL;

	for (size_t i = 0; o && i < sizeof keys / sizeof *keys; i++) {
		json_t *v = json_object_get(spec, keys[i]);
		if (v)
			json_object_set(o, keys[i], v);
	}
	if (o && primary)
		json_object_set_new(o, "primary", json_true());
	text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (text && (copy = parquet_arena_alloc(pf, strlen(text) + 1)))
		memcpy(copy, text, strlen(text) + 1);
	free(text);
	return copy;
}

/* GeoParquet (geoparquet.org, 1.0 and 1.1): the key-value metadata `geo`
 * is a JSON object whose "columns" map top-level column names to their
 * encoding; those of encoding "WKB" stored as BYTE_ARRAY without a logical
 * type hold geometries.  Every top-level field it names keeps its facts
 * for `schema` (parquet_schema_elem.geoparquet).  The metadata is only a
 * hint: what it names that does not fit is reported and left as bytes. */
static void mark_geoparquet(pctx *x)
{
	parquet_file *pf = x->pf;
	const parquet_kv *kv = NULL;
	json_error_t jerr;
	json_t *root, *cols, *spec;
	const char *name, *primary;

	for (uint32_t i = 0; i < pf->n_kv; i++)
		if (strcmp(pf->kv[i].key, "geo") == 0 && pf->kv[i].value)
			kv = &pf->kv[i];
	if (!kv)
		return;
	root = json_loadb((const char *)kv->value, kv->value_len, 0, &jerr);
	cols = json_is_object(root) ? json_object_get(root, "columns") : NULL;
	if (!json_is_object(cols)) {
		report(x, COLFS_ECORRUPT, pf->footer_offset,
		       "GeoParquet metadata 'geo' is not a JSON object with \"columns\" (%s): its columns are shown as bytes",
		       root ? "no \"columns\" object" : jerr.text);
		json_decref(root);
		return;
	}
	primary = json_string_value(json_object_get(root, "primary_column"));
	json_object_foreach(cols, name, spec) {
		const char *enc = json_string_value(
			json_object_get(spec, "encoding"));
		parquet_schema_elem *e = NULL;

		/* the top-level field of that name, of any encoding */
		for (uint32_t k = 1; k < pf->n_schema; k++)
			if (pf->schema[k].parent == 0 && pf->schema[k].name &&
			    strcmp(pf->schema[k].name, name) == 0) {
				pf->schema[k].geoparquet = geoparquet_text(
					pf, spec,
					primary && strcmp(primary, name) == 0);
				break;
			}
		if (!enc || strcmp(enc, "WKB") != 0)
			continue;
		for (uint32_t k = 0; k < pf->n_columns; k++)
			if (pf->columns[k].n_parts == 1 &&
			    strcmp(pf->columns[k].parts[0], name) == 0)
				e = &pf->schema[pf->columns[k].schema_index];
		if (!e || e->type != PARQUET_BYTE_ARRAY ||
		    (e->logical.kind != 0 &&
		     e->logical.kind != PARQUET_LT_GEOMETRY &&
		     e->logical.kind != PARQUET_LT_GEOGRAPHY)) {
			report(x, COLFS_ECORRUPT, pf->footer_offset,
			       "GeoParquet metadata 'geo' names column '%.80s' as WKB but it is not a top-level BYTE_ARRAY column: shown as it is",
			       name);
			continue;
		}
		e->geoparquet_wkb = true;
	}
	json_decref(root);
}

static colfs_status build_schema(pctx *x, colfs_err *err)
{
	parquet_file *pf = x->pf;
	uint32_t n = pf->n_schema, i = 1, sp = 0;
	frame *stack;
	parquet_grow gc = {.size = sizeof(parquet_column)};

	if (!n) {
		report(x, COLFS_ECORRUPT, pf->footer_offset,
		       "the schema has no elements");
		pf->columns = parquet_grow_finish(pf, &gc);
		return pf->columns ? COLFS_OK : nomem(x, err);
	}
	stack = calloc(n, sizeof *stack);
	if (!stack)
		return nomem(x, err);
	pf->schema[0].max_def = pf->schema[0].max_rep = 0;
	stack[sp++] = (frame){0, pf->schema[0].num_children > 0
				 ? pf->schema[0].num_children : 0, 0};
	while (sp) {
		frame *top = &stack[sp - 1];
		parquet_schema_elem *p, *e;
		if (top->left == 0) {
			sp--;
			continue;
		}
		if (i >= n) {
			report(x, COLFS_ECORRUPT, pf->footer_offset,
			       "schema element %u (%s) declares %lld more children than the schema holds",
			       top->idx, pf->schema[top->idx].name,
			       (long long)top->left);
			break;
		}
		top->left--;
		p = &pf->schema[top->idx];
		e = &pf->schema[i];
		e->parent = (int32_t)top->idx;
		if (!p->n_children)
			p->first_child = i;
		p->n_children++;
		e->max_def = p->max_def;
		e->max_rep = p->max_rep;
		if (e->repetition == PARQUET_OPTIONAL ||
		    e->repetition == PARQUET_REPEATED)
			e->max_def++;
		if (e->repetition == PARQUET_REPEATED)
			e->max_rep++;
		if (e->num_children > 0) {
			if (top->depth + 1 >= PARQUET_MAX_SCHEMA_DEPTH) {
				report(x, COLFS_EOVERFLOW, pf->footer_offset,
				       "schema nesting deeper than %d levels",
				       PARQUET_MAX_SCHEMA_DEPTH);
				break;
			}
			stack[sp] = (frame){i, e->num_children,
					    top->depth + 1};
			sp++;
		} else if (e->type >= 0) {
			parquet_column *c = parquet_grow_next(&gc);
			if (!c) {
				free(stack);
				return nomem(x, err);
			}
			c->schema_index = i;
			e->leaf = (int32_t)(gc.n - 1);
			c->max_def = e->max_def;
			c->max_rep = e->max_rep;
		}
		i++;
	}
	free(stack);
	if (i < n)
		report(x, COLFS_ECORRUPT, pf->footer_offset,
		       "%u schema elements after the end of the schema tree are ignored",
		       n - i);
	pf->columns = parquet_grow_finish(pf, &gc);
	if (!pf->columns)
		return nomem(x, err);
	pf->n_columns = (uint32_t)gc.n;
	for (uint32_t k = 0; k < pf->n_columns; k++) {
		parquet_column *c = &pf->columns[k];
		const char **parts;
		uint32_t depth = 0;
		size_t len = 0;
		char *path;
		c->elem = &pf->schema[c->schema_index];
		for (int32_t j = (int32_t)c->schema_index; j > 0;
		     j = pf->schema[j].parent) {
			depth++;
			len += strlen(pf->schema[j].name) + 1;
		}
		parts = parquet_arena_calloc(pf, depth, sizeof *parts);
		path = parquet_arena_calloc(pf, len + 1, 1);
		if (!parts || !path)
			return nomem(x, err);
		c->n_parts = depth;
		for (int32_t j = (int32_t)c->schema_index; j > 0;
		     j = pf->schema[j].parent)
			parts[--depth] = pf->schema[j].name;
		for (uint32_t d = 0; d < c->n_parts; d++) {
			if (d)
				strcat(path, ".");
			strcat(path, parts[d]);
		}
		c->parts = parts;
		c->path = path;
	}
	mark_geoparquet(x);
	parquet_annot_check(pf, x->report, x->report_ctx);
	return COLFS_OK;
}

/* parquet-mr before 1.2.9 (or without a version: Arrow reads a bare
 * "parquet-mr" as 0.0.0 too) has the PARQUET-816 bug. */
static bool writer_has_parquet_816(const char *created_by)
{
	int a = 0, b = 0, c = 0;

	if (!created_by || strncmp(created_by, "parquet-mr", 10) ||
	    (created_by[10] && created_by[10] != ' '))
		return false;
	if (sscanf(created_by + 10, " version %d.%d.%d", &a, &b, &c) < 1)
		return true;
	return a < 1 || (a == 1 && (b < 2 || (b == 2 && c < 9)));
}

bool parquet_file_rows(const parquet_file *pf, int64_t *sum)
{
	uint64_t n = 0;

	for (uint32_t g = 0; g < pf->n_row_groups; g++)
		if (pf->row_groups[g].num_rows < 0 ||
		    colfs_add_overflows(n, (uint64_t)pf->row_groups[g].num_rows,
					&n) || n > INT64_MAX)
			return false;
	*sum = (int64_t)n;
	return true;
}

static void check_chunks(pctx *x)
{
	parquet_file *pf = x->pf;
	const bool p816 = writer_has_parquet_816(pf->created_by);
	int64_t rows;

	/* the views hold the row groups' rows; a footer that counts others
	 * (old parquet-rs wrote 0) is named, and summary shows the sum */
	if (pf->meta_ok && parquet_file_rows(pf, &rows) && rows != pf->num_rows)
		report(x, COLFS_ECORRUPT, pf->footer_offset,
		       "FileMetaData num_rows is %lld, its row groups' num_rows add up to %lld: the views and summary give the row groups' rows",
		       (long long)pf->num_rows, (long long)rows);

	for (uint32_t g = 0; g < pf->n_row_groups; g++) {
		parquet_row_group *rg = &pf->row_groups[g];
		uint64_t at = pf->footer_offset + rg->span_off;
		if (rg->n_chunks != pf->n_columns)
			report(x, COLFS_ECORRUPT, at,
			       "row group %u has %u column chunks, the schema has %u leaf columns",
			       g, rg->n_chunks, pf->n_columns);
		if (rg->num_rows < 0)
			report(x, COLFS_ECORRUPT, at,
			       "row group %u has negative num_rows %lld", g,
			       (long long)rg->num_rows);
		for (uint32_t c = 0; c < rg->n_chunks; c++) {
			parquet_chunk *ch = &rg->chunks[c];
			uint64_t cat = pf->footer_offset + ch->span_off;
			int64_t start;
			uint64_t end;
			if (c < pf->n_columns && ch->path_in_schema &&
			    strcmp(ch->path_in_schema, pf->columns[c].path))
				report(x, COLFS_ECORRUPT, cat,
				       "row group %u chunk %u: path_in_schema '%s' differs from the schema's '%s'",
				       g, c, ch->path_in_schema,
				       pf->columns[c].path);
			if (!ch->has_meta) {
				if (!ch->encrypted)
					report(x, COLFS_ECORRUPT, cat,
					       "row group %u chunk %u has no ColumnMetaData",
					       g, c);
				continue;
			}
			start = ch->data_page_offset;
			/* some writers leave data_page_offset 0 in a chunk
			 * that holds only a dictionary page */
			if (ch->dictionary_page_offset >= 4 &&
			    (ch->dictionary_page_offset < start || start < 4))
				start = ch->dictionary_page_offset;
			ch->extent_ok = true;
			if (start < 0 || ch->total_compressed_size < 0) {
				report(x, COLFS_ECORRUPT, cat,
				       "row group %u chunk %u: negative offset %lld or size %lld",
				       g, c, (long long)start,
				       (long long)ch->total_compressed_size);
				ch->extent_ok = false;
				ch->start = start < 0 ? 0 : (uint64_t)start;
				ch->length = 0;
				continue;
			}
			ch->start = (uint64_t)start;
			ch->length = (uint64_t)ch->total_compressed_size;
			if (colfs_add_overflows(ch->start, ch->length, &end) ||
			    end > pf->file_size) {
				report(x, COLFS_EBOUNDS, ch->start,
				       "row group %u chunk %u: %llu bytes at %llu run past the end of the file (%llu bytes)",
				       g, c, (unsigned long long)ch->length,
				       (unsigned long long)ch->start,
				       (unsigned long long)pf->file_size);
				ch->extent_ok = false;
				if (ch->start > pf->file_size)
					ch->start = pf->file_size;
				ch->length = pf->file_size - ch->start;
			} else if (p816) {
				uint64_t lim = pf->footer_offset > end ?
					       pf->footer_offset : pf->file_size;
				ch->slack = lim - end < 100 ? lim - end : 100;
			}
		}
	}
}

static colfs_status parse_crypto_meta(pctx *x, colfs_err *err)
{
	parquet_file *pf = x->pf;
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	COLFS_TRY(colfs_thrift_struct_enter(&x->r, &last, err));
	while ((st = colfs_thrift_field_next(&x->r, &last, &f, err)) ==
	       COLFS_OK) {
		if (f.id == 1 && f.type == COLFS_THRIFT_STRUCT) {
			COLFS_TRY(union_member(x, &pf->encryption_algorithm,
					       err));
			pf->has_encryption_algorithm = true;
		} else {
			COLFS_TRY(colfs_thrift_skip(&x->r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&x->r);
	pf->meta_len = x->cur.pos;
	return COLFS_OK;
}

colfs_status parquet_file_parse(const uint8_t *footer, size_t len,
				uint64_t offset, uint64_t file_size,
				bool encrypted_footer, parquet_report_fn rep,
				void *report_ctx, parquet_file **out,
				colfs_err *err)
{
	uint8_t *copy = malloc(len ? len : 1);

	*out = NULL;
	if (!copy)
		return colfs_fail(err, COLFS_ENOMEM, offset,
				  "out of memory for the footer");
	if (len)
		memcpy(copy, footer, len);
	return parquet_file_parse_owned(copy, len, offset, file_size,
					encrypted_footer, rep, report_ctx, out,
					err);
}

/* The decrypted ColumnMetaData structs after FileMetaData (x->cur spans
 * the whole buffer): each read into its chunk, its spans into the
 * buffer as the footer's are. */
static void parse_extras(pctx *x, const parquet_meta_extra *ex, size_t n_ex)
{
	parquet_file *pf = x->pf;

	for (size_t i = 0; i < n_ex; i++) {
		parquet_chunk *ch;
		colfs_err e;

		if (ex[i].g >= pf->n_row_groups ||
		    ex[i].c >= pf->row_groups[ex[i].g].n_chunks ||
		    ex[i].off > pf->footer_len ||
		    ex[i].len > pf->footer_len - ex[i].off)
			continue;
		ch = &pf->row_groups[ex[i].g].chunks[ex[i].c];
		/* offsets: the ciphertext byte of each decrypted byte (the
		 * base wraps below zero when file_off < off, and back) */
		colfs_cursor_init(&x->cur, pf->footer, ex[i].off + ex[i].len,
				  ex[i].file_off - ex[i].off);
		x->cur.pos = ex[i].off;
		colfs_thrift_init(&x->r, &x->cur);
		x->prev_rg = NULL;
		ch->meta_span_off = (uint32_t)ex[i].off;
		if (parse_column_meta(x, ch, &e)) {
			uint64_t at = e.offset - ex[i].file_off;
			if (e.offset < ex[i].file_off || at > ex[i].len)
				report(x, e.status, e.offset,
				       "row group %u chunk %u: the decrypted ColumnMetaData does not decode: %s",
				       ex[i].g, ex[i].c, e.msg);
			else
				report(x, e.status, e.offset,
				       "row group %u chunk %u: the decrypted ColumnMetaData (module at offset %llu) does not decode at its byte %llu: %s",
				       ex[i].g, ex[i].c,
				       (unsigned long long)(ex[i].file_off - 16),
				       (unsigned long long)at, e.msg);
			continue;
		}
		ch->meta_span_len = (uint32_t)(x->cur.pos - ex[i].off);
		ch->has_meta = true;
	}
}

static colfs_status parse_owned_ex(uint8_t *footer, size_t len,
				   uint64_t offset, uint64_t file_size,
				   bool encrypted_footer,
				   const parquet_meta_extra *extra,
				   size_t n_extra, parquet_report_fn rep,
				   void *report_ctx, parquet_file **out,
				   colfs_err *err);

colfs_status parquet_file_parse_owned(uint8_t *footer, size_t len,
				      uint64_t offset, uint64_t file_size,
				      bool encrypted_footer,
				      parquet_report_fn rep, void *report_ctx,
				      parquet_file **out, colfs_err *err)
{
	return parse_owned_ex(footer, len, offset, file_size,
			      encrypted_footer, NULL, 0, rep, report_ctx, out,
			      err);
}

colfs_status parquet_file_parse_decrypted(uint8_t *footer, size_t len,
					  uint64_t offset, uint64_t file_size,
					  const parquet_meta_extra *extra,
					  size_t n_extra,
					  parquet_report_fn rep,
					  void *report_ctx, parquet_file **out,
					  colfs_err *err)
{
	return parse_owned_ex(footer, len, offset, file_size, false, extra,
			      n_extra, rep, report_ctx, out, err);
}

static colfs_status parse_owned_ex(uint8_t *footer, size_t len,
				   uint64_t offset, uint64_t file_size,
				   bool encrypted_footer,
				   const parquet_meta_extra *extra,
				   size_t n_extra, parquet_report_fn rep,
				   void *report_ctx, parquet_file **out,
				   colfs_err *err)
{
	uint8_t *copy = footer;
	parquet_file *pf;
	pctx x = {0};
	colfs_status st;

	*out = NULL;
	pf = calloc(1, sizeof *pf);
	if (!pf || !(pf->arena = calloc(1, sizeof *pf->arena))) {
		free(pf);
		free(footer);
		return colfs_fail(err, COLFS_ENOMEM, offset,
				  "out of memory for the footer");
	}
	pf->encryption_algorithm = -1;
	pf->file_size = file_size;
	pf->footer_offset = offset;
	pf->encrypted_footer = encrypted_footer;
	if (!parquet_arena_adopt(pf, copy)) {   /* adopt frees on failure */
		parquet_file_destroy(pf);
		return colfs_fail(err, COLFS_ENOMEM, offset,
				  "out of memory for the footer");
	}
	pf->footer = copy;
	pf->footer_len = len;
	pf->arena->block_size = len < ARENA_BLOCK_MIN ? ARENA_BLOCK_MIN
				: len > ARENA_BLOCK ? ARENA_BLOCK
				: ((len + 4095) & ~(size_t)4095);
	pf->arena->big_ok = len >= ARENA_BIG_MIN_FOOTER;
	*out = pf;

	x.pf = pf;
	x.report = rep;
	x.report_ctx = report_ctx;
	colfs_cursor_init(&x.cur, copy, len, offset);
	colfs_thrift_init(&x.r, &x.cur);

	if (encrypted_footer) {
		st = parse_crypto_meta(&x, err);
		if (!st)
			pf->meta_ok = true;
		return st;
	}
	st = parse_file_meta(&x, err);
	if (st == COLFS_ENOMEM)
		return st;
	pf->meta_ok = st == COLFS_OK;
	if (st && rep)
		rep(report_ctx, err);
	if (pf->meta_ok && n_extra)
		parse_extras(&x, extra, n_extra);
	{
		colfs_err e2;
		colfs_status s2 = build_schema(&x, &e2);
		if (s2) {
			if (err)
				*err = e2;
			return s2;
		}
	}
	check_chunks(&x);
	if (!pf->meta_ok && !pf->n_schema)
		return st;
	if (!pf->meta_ok)
		report(&x, COLFS_ECORRUPT, offset,
		       "FileMetaData is damaged: showing %u schema elements and %u row groups decoded before the damage",
		       pf->n_schema, pf->n_row_groups);
	else if (pf->meta_len < len && !pf->has_encryption_algorithm &&
		 !n_extra)
		report(&x, COLFS_ECORRUPT, offset + pf->meta_len,
		       "%zu bytes after FileMetaData inside the footer",
		       len - pf->meta_len);
	return COLFS_OK;
}

void parquet_file_sizes(const parquet_file *pf, uint64_t *compressed,
			uint64_t *uncompressed)
{
	uint64_t c = 0, u = 0;

	for (uint32_t g = 0; g < pf->n_row_groups; g++)
		for (uint32_t k = 0; k < pf->row_groups[g].n_chunks; k++) {
			const parquet_chunk *ch = &pf->row_groups[g].chunks[k];
			if (!ch->has_meta)
				continue;
			if (ch->total_compressed_size > 0)
				c += (uint64_t)ch->total_compressed_size;
			if (ch->total_uncompressed_size > 0)
				u += (uint64_t)ch->total_uncompressed_size;
		}
	*compressed = c;
	*uncompressed = u;
}

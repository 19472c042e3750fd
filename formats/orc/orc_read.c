/* colfs ORC: column readers and the streamed views rows.jsonl, rows.csv
 * and columns/<field>.
 *
 * A reader covers one stripe: it decompresses the streams of the selected
 * columns, then decodes batches of rows into per-column vectors the way
 * ORC's own readers do (a child of a struct has a slot for each row of the
 * batch, null where the struct is null; the children of lists and maps
 * have one slot per element).  A view keeps its reader between pieces so
 * that reading a file front to back decodes each stripe once. */
#include "orc_read.h"

#include "../core/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 2015-01-01 00:00:00 UTC: ORC timestamps count seconds from here. */
#define ORC_TS_BASE 1420070400LL
/* Cap on the elements of lists and maps in one batch. */
#define ORC_MAX_BATCH_ELEMS (16u << 20)


/* --- vectors ---------------------------------------------------------------- */

static void vec_free(orc_vec *v)
{
	free(v->present);
	free(v->i);
	free(v->j);
	free(v->d);
	free(v->dec);
	free(v->sp);
	free(v->sl);
	free(v->tag);
	memset(v, 0, sizeof(*v));
}

static bool grow(void **p, size_t n, size_t size)
{
	void *q = realloc(*p, n * size);

	if (!q)
		return false;
	*p = q;
	return true;
}

static colfs_status vec_reserve(orc_col *c, size_t n, colfs_err *err)
{
	orc_vec *v = &c->v;
	bool ok = true;

	if (n <= v->cap && v->present)
		return COLFS_OK;
	if (n == 0)
		n = 1;
	ok = grow((void **)&v->present, n, 1);
	switch (c->kind) {
	case ORCPB__TYPE__KIND__FLOAT:
	case ORCPB__TYPE__KIND__DOUBLE:
		ok = ok && grow((void **)&v->d, n, sizeof(double));
		break;
	case ORCPB__TYPE__KIND__DECIMAL:
		ok = ok && grow((void **)&v->dec, n, sizeof(i128));
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
	case ORCPB__TYPE__KIND__BINARY:
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY:
		ok = ok && grow((void **)&v->sp, n, sizeof(*v->sp)) &&
		     grow((void **)&v->sl, n, sizeof(*v->sl)) &&
		     grow((void **)&v->i, n, sizeof(int64_t));
		break;
	case ORCPB__TYPE__KIND__UNION:
		ok = ok && grow((void **)&v->tag, n, 1) &&
		     grow((void **)&v->i, n, sizeof(int64_t));
		break;
	default:
		ok = ok && grow((void **)&v->i, n, sizeof(int64_t)) &&
		     grow((void **)&v->j, n, sizeof(int64_t));
		break;
	}
	if (!ok)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	v->cap = n;
	return COLFS_OK;
}

/* Spread the first `nn` entries of `a` (element size `size`) out to the
 * present slots of n. */
static void spread(void *a, size_t size, const uint8_t *present, size_t n,
		   size_t nn)
{
	char *p = a;

	if (nn == n)
		return;
	for (size_t i = n; i-- > 0;) {
		if (present[i]) {
			nn--;
			if (nn != i)
				memcpy(p + i * size, p + nn * size, size);
		}
	}
}

/* --- building a reader ------------------------------------------------------- */

static void col_free(orc_col *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_kids; i++)
		col_free(c->kids[i]);
	free(c->kids);
	if (c->keys)
		for (size_t i = 0; i < c->n_kids; i++)
			free(c->keys[i]);
	if (c->jkeys)
		for (size_t i = 0; i < c->n_kids; i++)
			free(c->jkeys[i]);
	free(c->keys);
	free(c->jkeys);
	free(c->key_len);
	free(c->jkey_len);
	orc_rle_bool_close(&c->present);
	orc_rle_int_close(&c->ints);
	orc_rle_int_close(&c->lens);
	orc_rle_int_close(&c->second);
	orc_rle_byte_close(&c->bytes);
	orc_rle_bool_close(&c->bools);
	orc_in_close(&c->data);
	free(c->arena);
	free(c->dict_data);
	free(c->dict_off);
	vec_free(&c->v);
	free(c);
}

static const orc_stream_loc *find_stream(const orc_stripe *sp, uint32_t col,
					 uint32_t kind)
{
	for (size_t i = 0; i < sp->n_streams; i++)
		if (sp->streams[i].column == col &&
		    sp->streams[i].kind == kind)
			return &sp->streams[i];
	return NULL;
}

static colfs_status load_stream(orc_reader *r, const orc_stripe *sp,
				orc_col *c, uint32_t kind, bool required,
				orc_in *out, bool *found, colfs_err *err)
{
	const orc_stream_loc *l = find_stream(sp, c->id, kind);

	*found = false;
	if (!l) {
		if (!required)
			return COLFS_OK;
		return colfs_fail(err, COLFS_ECORRUPT,
				  r->f->footer->stripes[r->stripe]->offset,
				  "stripe %zu: %s stream not found for column "
				  "%u (%s, %s)", r->stripe,
				  orc_tail_stream_kind_name(kind), c->id,
				  orc_tail_type_kind_name(c->kind),
				  orc_tail_encoding_name(c->v2 ? (c->dict ? 3 : 2)
							  : (c->dict ? 1 : 0)));
	}
	if (!l->in_file)
		return colfs_fail(err, COLFS_ETRUNCATED, l->offset,
				  "stripe %zu: %s stream of column %u runs "
				  "past its stripe", r->stripe,
				  orc_tail_stream_kind_name(kind), c->id);
	orc_in_init_file(out, r->f, l->offset, l->length);
	*found = true;
	return COLFS_OK;
}

static colfs_status load_dictionary(orc_reader *r, const orc_stripe *sp,
				    orc_col *c, uint32_t dict_size,
				    colfs_err *err)
{
	orc_in din, lin;
	orc_rle_int lens;
	bool found;
	uint64_t total = 0;
	int64_t len;
	colfs_status st = COLFS_OK;

	if ((uint64_t)dict_size + 1 > r->f->max_alloc / sizeof(uint64_t))
		return colfs_fail(err, COLFS_EOVERFLOW,
				  r->f->footer->stripes[r->stripe]->offset,
				  "column %u: dictionary of %u entries exceeds "
				  "the allocation cap", c->id, dict_size);
	COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DICTIONARY_DATA,
			      dict_size > 0, &din, &found, err));
	if (!found)
		orc_in_init_memory(&din, NULL, 0, 0);
	st = load_stream(r, sp, c, ORCPB__STREAM__KIND__LENGTH, dict_size > 0,
			 &lin, &found, err);
	if (st)
		goto out;
	if (!found)
		orc_in_init_memory(&lin, NULL, 0, 0);
	orc_rle_int_init(&lens, &lin, c->v2, false);
	c->dict_off = malloc(((size_t)dict_size + 1) * sizeof(uint64_t));
	if (!c->dict_off) {
		st = colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
		goto out_lens;
	}
	c->dict_off[0] = 0;
	for (uint32_t i = 0; i < dict_size; i++) {
		st = orc_rle_int_next(&lens, &len, 1, err);
		if (st)
			goto out_lens;
		if ((uint64_t)len > r->f->max_alloc - total) {
			st = colfs_fail(err, COLFS_EOVERFLOW,
					orc_in_offset(&lens.in),
					"column %u: dictionary exceeds the "
					"allocation cap", c->id);
			goto out_lens;
		}
		total += (uint64_t)len;
		c->dict_off[i + 1] = total;
	}
	c->dict_data = malloc(total ? (size_t)total : 1);
	if (!c->dict_data) {
		st = colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
		goto out_lens;
	}
	st = orc_in_copy(&din, c->dict_data, (size_t)total, err);
	c->dict_n = dict_size;
out_lens:
	orc_rle_int_close(&lens);
out:
	orc_in_close(&din);
	return st;
}

/* The keys printed before each field of a struct, made once per reader:
 * `"name": ` (after `, ` from the second on) for rows.jsonl, and the
 * name as a JSON string with `:` (after `,`) for JSON values. */
static colfs_status struct_keys(orc_col *c, colfs_err *err)
{
	c->keys = calloc(c->n_kids, sizeof(*c->keys));
	c->jkeys = calloc(c->n_kids, sizeof(*c->jkeys));
	c->key_len = calloc(c->n_kids, sizeof(*c->key_len));
	c->jkey_len = calloc(c->n_kids, sizeof(*c->jkey_len));
	if (!c->keys || !c->jkeys || !c->key_len || !c->jkey_len)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	for (size_t k = 0; k < c->n_kids; k++) {
		const char *fn = k < c->type->n_fieldnames
					 ? c->type->fieldnames[k]
					 : "";
		colfs_buf b = COLFS_BUF_INIT;

		colfs_buf_puts(&b, k ? ", \"" : "\"");
		colfs_buf_puts(&b, fn);
		colfs_buf_puts(&b, "\": ");
		c->key_len[k] = b.len;
		colfs_buf_putc(&b, '\0');
		c->keys[k] = b.data;
		if (colfs_buf_status(&b))
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "out of memory");
		b = (colfs_buf)COLFS_BUF_INIT;
		if (k)
			colfs_buf_putc(&b, ',');
		colfs_render_json_string(&b, (const uint8_t *)fn, strlen(fn));
		colfs_buf_putc(&b, ':');
		c->jkey_len[k] = b.len;
		colfs_buf_putc(&b, '\0');
		c->jkeys[k] = b.data;
		if (colfs_buf_status(&b))
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "out of memory");
	}
	return COLFS_OK;
}

static colfs_status col_build(orc_reader *r, const orc_stripe *sp,
			      uint32_t id, const bool *sel, orc_col **out,
			      colfs_err *err)
{
	orc_file *f = r->f;
	const Orcpb__StripeFooter *sf =
		(const Orcpb__StripeFooter *)sp->footer.msg;
	orc_col *c = calloc(1, sizeof(*c));
	const Orcpb__ColumnEncoding *enc = NULL;
	orc_in cur;
	bool found;
	uint32_t k;

	if (!c)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	*out = c;
	c->id = id;
	c->f_max_alloc = f->max_alloc;
	c->type = f->footer->types[id];
	c->kind = c->type->kind;
	c->selected = sel[id];
	if (!c->selected)
		return COLFS_OK;
	if (id < sf->n_columns)
		enc = sf->columns[id];
	else
		return colfs_fail(err, COLFS_ECORRUPT,
				  f->footer->stripes[r->stripe]->offset,
				  "stripe %zu: bad number of ColumnEncodings "
				  "in StripeFooter: expected=%zu, actual=%zu",
				  r->stripe, f->n_types, sf->n_columns);
	k = enc->kind;
	if (k > ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2)
		return colfs_fail(err, COLFS_EUNSUPPORTED,
				  f->footer->stripes[r->stripe]->offset,
				  "column %u: unknown column encoding %u", id,
				  k);
	c->v2 = k == ORCPB__COLUMN_ENCODING__KIND__DIRECT_V2 ||
		k == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2;
	c->dict = k == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY ||
		  k == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2;

	COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__PRESENT, false,
			      &cur, &found, err));
	if (found) {
		c->has_present = true;
		orc_rle_bool_init(&c->present, &cur);
	}
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN:
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DATA,
				      true, &cur, &found, err));
		orc_rle_bool_init(&c->bools, &cur);
		break;
	case ORCPB__TYPE__KIND__BYTE:
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DATA,
				      true, &cur, &found, err));
		orc_rle_byte_init(&c->bytes, &cur);
		break;
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
	case ORCPB__TYPE__KIND__DATE:
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DATA,
				      true, &cur, &found, err));
		orc_rle_int_init(&c->ints, &cur, c->v2, true);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
	case ORCPB__TYPE__KIND__DOUBLE:
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DATA,
				      true, &c->data, &found, err));
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
	case ORCPB__TYPE__KIND__BINARY:
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY:
		if (c->dict) {
			COLFS_TRY(load_stream(r, sp, c,
					      ORCPB__STREAM__KIND__DATA, true, &cur, &found, err));
			orc_rle_int_init(&c->ints, &cur, c->v2, false);
			COLFS_TRY(load_dictionary(r, sp, c, enc->dictionarysize,
						  err));
		} else {
			COLFS_TRY(load_stream(r, sp, c,
					      ORCPB__STREAM__KIND__DATA, true, &c->data, &found, err));
			COLFS_TRY(load_stream(r, sp, c,
					      ORCPB__STREAM__KIND__LENGTH,
					      true, &cur, &found, err));
			orc_rle_int_init(&c->lens, &cur, c->v2, false);
		}
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT: {
		const char *tzname = c->kind == ORCPB__TYPE__KIND__TIMESTAMP
					     ? sf->writertimezone
					     : NULL;

		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DATA,
				      true, &cur, &found, err));
		orc_rle_int_init(&c->ints, &cur, c->v2, true);
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__SECONDARY,
				      true, &cur, &found, err));
		orc_rle_int_init(&c->second, &cur, c->v2, false);
		COLFS_TRY(orc_tz_get(f, tzname, &c->tz, err));
		c->tz_epoch = ORC_TS_BASE - orc_tz_offset(c->tz, ORC_TS_BASE);
		break;
	}
	case ORCPB__TYPE__KIND__DECIMAL:
		c->decimal64 = f->has_version && f->version_major == 1 &&
			       f->version_minor == 9999 &&
			       c->type->precision > 0 &&
			       c->type->precision <= 18;
		if (c->type->scale > 38 || c->type->precision > 38)
			return colfs_fail(err, COLFS_EUNSUPPORTED,
					  f->footer_off,
					  "column %u: decimal(%u,%u) is beyond "
					  "38 digits", id, c->type->precision,
					  c->type->scale);
		c->scale = c->type->precision == 0 ? ORC_HIVE11_SCALE
						   : (int32_t)c->type->scale;
		if (c->decimal64) {
			COLFS_TRY(load_stream(r, sp, c,
					      ORCPB__STREAM__KIND__DATA, true, &cur, &found, err));
			orc_rle_int_init(&c->ints, &cur, true, true);
		} else {
			COLFS_TRY(load_stream(r, sp, c,
					      ORCPB__STREAM__KIND__DATA, true, &c->data, &found, err));
			COLFS_TRY(load_stream(r, sp, c,
					      ORCPB__STREAM__KIND__SECONDARY,
					      true, &cur, &found, err));
			orc_rle_int_init(&c->second, &cur, c->v2, true);
		}
		break;
	case ORCPB__TYPE__KIND__LIST:
	case ORCPB__TYPE__KIND__MAP:
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__LENGTH,
				      true, &cur, &found, err));
		orc_rle_int_init(&c->lens, &cur, c->v2, false);
		break;
	case ORCPB__TYPE__KIND__UNION:
		COLFS_TRY(load_stream(r, sp, c, ORCPB__STREAM__KIND__DATA,
				      true, &cur, &found, err));
		orc_rle_byte_init(&c->bytes, &cur);
		break;
	case ORCPB__TYPE__KIND__STRUCT:
		break;
	default:
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "column %u: unsupported type kind %u", id,
				  c->kind);
	}
	if (c->type->n_subtypes) {
		c->kids = calloc(c->type->n_subtypes, sizeof(*c->kids));
		if (!c->kids)
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "out of memory");
		c->n_kids = c->type->n_subtypes;
		if (c->kind == ORCPB__TYPE__KIND__STRUCT)
			COLFS_TRY(struct_keys(c, err));
		for (size_t i = 0; i < c->n_kids; i++)
			COLFS_TRY(col_build(r, sp, c->type->subtypes[i], sel,
					    &c->kids[i], err));
	}
	return COLFS_OK;
}

static void reader_free(orc_reader *r)
{
	if (!r)
		return;
	col_free(r->root);
	free(r->scratch);
	if (r->ri)
		for (size_t i = 0; i < r->f->n_types; i++)
			colfs_proto_free(&r->ri[i]);
	free(r->ri);
	colfs_buf_free(&r->tmp);
	free(r);
}

/* `column` selects one top-level field (with its subtree) or, when 0,
 * everything. */
static colfs_status reader_create(orc_file *f, size_t stripe, uint32_t column,
				  orc_reader **out, colfs_err *err)
{
	orc_reader *r;
	orc_stripe *sp;
	bool *sel;
	colfs_status st;

	*out = NULL;
	COLFS_TRY(orc_tail_stripe_load(f, stripe, &sp, err));
	sel = calloc(f->n_types, sizeof(*sel));
	r = calloc(1, sizeof(*r));
	if (!sel || !r) {
		free(sel);
		free(r);
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	}
	for (size_t i = 0; i < f->n_types; i++) {
		uint32_t p = (uint32_t)i;

		if (column == 0) {
			sel[i] = true;
			continue;
		}
		/* selected: the column, its subtree, and its ancestors */
		while (p != 0 && p != column)
			p = f->parent[p];
		sel[i] = p == column;
	}
	for (uint32_t p = column; p != 0; p = f->parent[p])
		sel[p] = true;
	sel[0] = true;
	r->f = f;
	r->stripe = stripe;
	r->rows_left = f->footer->stripes[stripe]->numberofrows;
	st = col_build(r, sp, 0, sel, &r->root, err);
	free(sel);
	if (st) {
		reader_free(r);
		return st;
	}
	*out = r;
	return COLFS_OK;
}

/* --- decoding a batch ------------------------------------------------------ */

static colfs_status read_decimal_v1(orc_col *c, i128 *out, colfs_err *err)
{
	unsigned __int128 v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		COLFS_TRY(orc_in_u8(&c->data, &b, err));
		if (shift >= 128 || (shift > 121 && (b & 0x7f) >> (128 - shift)))
			return colfs_fail(err, COLFS_EOVERFLOW,
					  orc_in_offset(&c->data),
					  "column %u: decimal value wider than "
					  "128 bits", c->id);
		v |= (unsigned __int128)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*out = (i128)(v >> 1) ^ -(i128)(v & 1);
	return COLFS_OK;
}

static i128 pow10_128(unsigned n)
{
	i128 p = 1;

	while (n--)
		p *= 10;
	return p;
}

static colfs_status col_read(orc_reader *r, orc_col *c, size_t n,
			     const uint8_t *incoming, colfs_err *err);

static colfs_status read_present(orc_reader *r, orc_col *c, size_t n,
				 const uint8_t *incoming, size_t *nn_out,
				 colfs_err *err)
{
	uint8_t *pr = c->v.present;
	size_t m = 0, nn = 0;

	for (size_t i = 0; i < n; i++)
		m += incoming ? incoming[i] != 0 : 1;
	if (c->has_present) {
		if (m > r->scratch_cap) {
			if (!grow((void **)&r->scratch, m, 1))
				return colfs_fail(err, COLFS_ENOMEM, 0,
						  "out of memory");
			r->scratch_cap = m;
		}
		COLFS_TRY(orc_rle_bool_next(&c->present, r->scratch, m, err));
	}
	for (size_t i = 0, k = 0; i < n; i++) {
		if (incoming && !incoming[i]) {
			pr[i] = 0;
			continue;
		}
		pr[i] = c->has_present ? r->scratch[k++] : 1;
		nn += pr[i];
	}
	*nn_out = nn;
	return COLFS_OK;
}

static colfs_status read_strings(orc_col *c, size_t n, size_t nn,
				 colfs_err *err)
{
	orc_vec *v = &c->v;

	if (c->dict) {
		COLFS_TRY(orc_rle_int_next(&c->ints, v->i, nn, err));
		for (size_t k = 0; k < nn; k++) {
			uint64_t id = (uint64_t)v->i[k];

			if (id >= c->dict_n)
				return colfs_fail(
					err, COLFS_EBOUNDS,
					orc_in_offset(&c->ints.in),
					"column %u: dictionary id %llu past "
					"the dictionary of %zu entries",
					c->id, (unsigned long long)id,
					c->dict_n);
			v->sp[k] = c->dict_data ? c->dict_data + c->dict_off[id]
						 : (const uint8_t *)"";
			v->sl[k] = c->dict_off[id + 1] - c->dict_off[id];
		}
	} else {
		size_t used = 0;

		COLFS_TRY(orc_rle_int_next(&c->lens, v->i, nn, err));
		for (size_t k = 0; k < nn; k++) {
			uint64_t len = (uint64_t)v->i[k];
			const uint8_t *p;

			if (len > c->f_max_alloc - used)
				return colfs_fail(
					err, COLFS_EOVERFLOW,
					orc_in_offset(&c->data),
					"column %u: values of one batch exceed "
					"the allocation cap", c->id);
			if (used + len > c->arena_cap) {
				size_t ncap = c->arena_cap ? c->arena_cap : 4096;
				uint8_t *na;

				while (ncap < used + len)
					ncap *= 2;
				na = realloc(c->arena, ncap);
				if (!na)
					return colfs_fail(err, COLFS_ENOMEM, 0,
							  "out of memory");
				c->arena = na;
				c->arena_cap = ncap;
			}
			COLFS_TRY(orc_in_bytes(&c->data, (size_t)len, &p, err));
			if (len)
				memcpy(c->arena + used, p, (size_t)len);
			v->sl[k] = len;
			v->i[k] = (int64_t)used;
			used += (size_t)len;
		}
		/* All-empty strings leave the arena unallocated: point them
		 * at a static empty string, not at an offset from NULL. */
		static const uint8_t empty[1];
		for (size_t k = 0; k < nn; k++)
			v->sp[k] = c->arena ? c->arena + v->i[k] : empty;
	}
	spread(v->sp, sizeof(*v->sp), v->present, n, nn);
	spread(v->sl, sizeof(*v->sl), v->present, n, nn);
	return COLFS_OK;
}

static colfs_status read_timestamps(orc_col *c, size_t n, size_t nn,
				    colfs_err *err)
{
	orc_vec *v = &c->v;

	COLFS_TRY(orc_rle_int_next(&c->ints, v->i, nn, err));
	COLFS_TRY(orc_rle_int_next(&c->second, v->j, nn, err));
	for (size_t k = 0; k < nn; k++) {
		uint64_t raw = (uint64_t)v->j[k];
		unsigned zeros = raw & 7;
		int64_t nanos = (int64_t)(raw >> 3);
		int64_t secs;

		if (zeros)
			for (unsigned z = 0; z <= zeros && nanos <= 999999999;
			     z++)
				nanos *= 10;
		if (nanos > 999999999)
			return colfs_fail(err, COLFS_ECORRUPT,
					  orc_in_offset(&c->second.in),
					  "column %u: nanoseconds %lld out of "
					  "range", c->id, (long long)nanos);
		secs = (int64_t)((uint64_t)v->i[k] + (uint64_t)c->tz_epoch);
		if (c->tz)
			secs = (int64_t)((uint64_t)secs +
					 (uint64_t)orc_tz_offset(c->tz, secs));
		if (secs < 0 && nanos > 999999)
			secs -= 1;
		v->i[k] = secs;
		v->j[k] = nanos;
	}
	spread(v->i, sizeof(int64_t), v->present, n, nn);
	spread(v->j, sizeof(int64_t), v->present, n, nn);
	return COLFS_OK;
}

static colfs_status read_decimals(orc_col *c, size_t n, size_t nn,
				  colfs_err *err)
{
	orc_vec *v = &c->v;

	if (c->decimal64) {
		int64_t *tmp = (int64_t *)v->dec;

		/* int64 into the front of the i128 array, widened from the
		 * back so nothing is overwritten before it is read. */
		COLFS_TRY(orc_rle_int_next(&c->ints, tmp, nn, err));
		for (size_t k = nn; k-- > 0;)
			v->dec[k] = tmp[k];
	} else {
		for (size_t k = 0; k < nn; k++) {
			int64_t sc;
			i128 val = 0;

			COLFS_TRY(read_decimal_v1(c, &val, err));
			COLFS_TRY(orc_rle_int_next(&c->second, &sc, 1, err));
			if (sc < c->scale) {
				if (c->scale - sc > 38)
					return colfs_fail(
						err, COLFS_ECORRUPT,
						orc_in_offset(&c->data),
						"column %u: decimal scale %lld "
						"out of range", c->id,
						(long long)sc);
				if (__builtin_mul_overflow(
					    val,
					    pow10_128((unsigned)(c->scale - sc)),
					    &val))
					return colfs_fail(
						err, COLFS_EOVERFLOW,
						orc_in_offset(&c->data),
						"column %u: decimal value does "
						"not fit 128 bits at scale %d",
						c->id, c->scale);
			} else if (sc > c->scale) {
				if (sc - c->scale > 38)
					val = 0;
				else
					val /= pow10_128(
						(unsigned)(sc - c->scale));
			}
			v->dec[k] = val;
		}
	}
	spread(v->dec, sizeof(i128), v->present, n, nn);
	return COLFS_OK;
}

static colfs_status col_read(orc_reader *r, orc_col *c, size_t n,
			     const uint8_t *incoming, colfs_err *err)
{
	orc_vec *v = &c->v;
	size_t nn = 0;

	if (!c->selected)
		return COLFS_OK;
	COLFS_TRY(vec_reserve(c, n, err));
	COLFS_TRY(read_present(r, c, n, incoming, &nn, err));
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN: {
		uint8_t *tmp = (uint8_t *)v->j;

		COLFS_TRY(orc_rle_bool_next(&c->bools, tmp, nn, err));
		for (size_t k = nn; k-- > 0;)
			v->i[k] = tmp[k];
		spread(v->i, sizeof(int64_t), v->present, n, nn);
		break;
	}
	case ORCPB__TYPE__KIND__BYTE: {
		uint8_t *tmp = (uint8_t *)v->j;

		COLFS_TRY(orc_rle_byte_next(&c->bytes, tmp, nn, err));
		for (size_t k = nn; k-- > 0;)
			v->i[k] = (int8_t)tmp[k];
		spread(v->i, sizeof(int64_t), v->present, n, nn);
		break;
	}
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
	case ORCPB__TYPE__KIND__DATE:
		COLFS_TRY(orc_rle_int_next(&c->ints, v->i, nn, err));
		spread(v->i, sizeof(int64_t), v->present, n, nn);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
	case ORCPB__TYPE__KIND__DOUBLE: {
		size_t w = c->kind == ORCPB__TYPE__KIND__FLOAT ? 4 : 8;
		const uint8_t *p;

		COLFS_TRY(orc_in_bytes(&c->data, nn * w, &p, err));
		for (size_t k = 0; k < nn; k++) {
			if (w == 4) {
				uint32_t b = colfs_le32(p + 4 * k);
				float fl;

				memcpy(&fl, &b, 4);
				v->d[k] = fl;
			} else {
				uint64_t b = colfs_le64(p + 8 * k);

				memcpy(&v->d[k], &b, 8);
			}
		}
		spread(v->d, sizeof(double), v->present, n, nn);
		break;
	}
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
	case ORCPB__TYPE__KIND__BINARY:
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY:
		COLFS_TRY(read_strings(c, n, nn, err));
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		COLFS_TRY(read_timestamps(c, n, nn, err));
		break;
	case ORCPB__TYPE__KIND__DECIMAL:
		COLFS_TRY(read_decimals(c, n, nn, err));
		break;
	case ORCPB__TYPE__KIND__STRUCT:
		for (size_t i = 0; i < c->n_kids; i++)
			COLFS_TRY(col_read(r, c->kids[i], n, v->present, err));
		break;
	case ORCPB__TYPE__KIND__LIST:
	case ORCPB__TYPE__KIND__MAP: {
		uint64_t total = 0;

		COLFS_TRY(orc_rle_int_next(&c->lens, v->j, nn, err));
		spread(v->j, sizeof(int64_t), v->present, n, nn);
		for (size_t i = 0; i < n; i++) {
			if (!v->present[i]) {
				v->i[i] = (int64_t)total;
				v->j[i] = 0;
				continue;
			}
			v->i[i] = (int64_t)total;
			if ((uint64_t)v->j[i] > ORC_MAX_BATCH_ELEMS - total)
				return colfs_fail(
					err, COLFS_EOVERFLOW,
					orc_in_offset(&c->lens.in),
					"column %u: more than %u elements in "
					"one batch of %zu rows", c->id,
					ORC_MAX_BATCH_ELEMS, n);
			total += (uint64_t)v->j[i];
		}
		for (size_t i = 0; i < c->n_kids; i++)
			COLFS_TRY(col_read(r, c->kids[i], (size_t)total, NULL,
					   err));
		break;
	}
	case ORCPB__TYPE__KIND__UNION: {
		size_t counts[256] = {0};

		COLFS_TRY(orc_rle_byte_next(&c->bytes, v->tag, nn, err));
		spread(v->tag, 1, v->present, n, nn);
		for (size_t i = 0; i < n; i++) {
			if (!v->present[i])
				continue;
			if (v->tag[i] >= c->n_kids)
				return colfs_fail(
					err, COLFS_ECORRUPT,
					orc_in_offset(&c->bytes.in),
					"column %u: union tag %u but %zu "
					"variants", c->id, v->tag[i],
					c->n_kids);
			v->i[i] = (int64_t)counts[v->tag[i]]++;
		}
		for (size_t i = 0; i < c->n_kids; i++)
			COLFS_TRY(col_read(r, c->kids[i], counts[i], NULL,
					   err));
		break;
	}
	default:
		break;
	}
	return COLFS_OK;
}

/* --- printing: orc-contents ------------------------------------------------------ */

/* Append n bytes in place when they fit (a piece reserves its room up
 * front), else through colfs_buf_append, which grows the buffer. */
static inline void put(colfs_buf *b, const void *p, size_t n)
{
	if (b->data && n <= b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	} else {
		colfs_buf_append(b, p, n);
	}
}

static inline void put1(colfs_buf *b, char c)
{
	if (b->data && b->len < b->cap)
		b->data[b->len++] = c;
	else
		colfs_buf_putc(b, c);
}

#define PUTS(b, lit) put((b), (lit), sizeof(lit) - 1)

/* A 128-bit integer in decimal. */
void orc_read_put_i128(colfs_buf *b, i128 v)
{
	char tmp[48];
	size_t k = sizeof(tmp);
	bool neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v
				  : (unsigned __int128)v;

	tmp[--k] = '\0';
	do {
		tmp[--k] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (neg)
		tmp[--k] = '-';
	colfs_buf_puts(b, tmp + k);
}

/* A decimal with exactly `scale` fraction digits. */
static void put_decimal(colfs_buf *b, i128 v, int32_t scale)
{
	char digits[64];
	colfs_buf t = COLFS_BUF_INIT;
	bool neg = v < 0;
	size_t n;

	orc_read_put_i128(&t, neg ? -v : v);
	if (colfs_buf_status(&t) || !t.data) {
		colfs_buf_free(&t);
		b->failed = true;
		return;
	}
	n = t.len < sizeof(digits) - 1 ? t.len : sizeof(digits) - 1;
	memcpy(digits, t.data, n);
	digits[n] = '\0';
	colfs_buf_free(&t);
	if (neg)
		colfs_buf_putc(b, '-');
	if (scale <= 0) {
		colfs_buf_puts(b, digits);
		return;
	}
	if ((size_t)scale >= n) {
		colfs_buf_puts(b, "0.");
		for (size_t i = n; i < (size_t)scale; i++)
			colfs_buf_putc(b, '0');
		colfs_buf_puts(b, digits);
		return;
	}
	colfs_buf_append(b, digits, n - (size_t)scale);
	colfs_buf_putc(b, '.');
	colfs_buf_puts(b, digits + n - scale);
}

static void put_i64(colfs_buf *b, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v, t = u;
	size_t n = 1 + (v < 0);
	char *p;

	while (t >= 10) {
		t /= 10;
		n++;
	}
	if (!colfs_buf_reserve(b, n))
		return;
	/* the digits written in place, last first */
	p = b->data + b->len + n;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	b->len += n;
}

static void put_contents_string(colfs_buf *b, const uint8_t *p, size_t n)
{
	size_t run = 0;

	put1(b, '"');
	for (size_t i = 0; i < n; i++) {
		const char *esc;

		/* the characters orc-contents escapes are all below '#',
		 * but for the backslash */
		if (p[i] >= '#' && p[i] != '\\')
			continue;
		switch (p[i]) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default: continue;
		}
		put(b, p + run, i - run);
		put(b, esc, 2);
		run = i + 1;
	}
	put(b, p + run, n - run);
	put1(b, '"');
}

static char *put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

/* "YYYY-MM-DD" of day `days` into p (10 bytes); false for years outside
 * 1000..9999, which take strftime's path. */
static bool put_ymd(char *p, int64_t days)
{
	__int128 y;
	unsigned m, d;

	if (days < -354285 || days > 2932896)  /* 1000-01-01 .. 9999-12-31 */
		return false;
	colfs_civil_from_days(days, &y, &m, &d);
	if (y < 1000 || y > 9999)
		return false;
	p = put2(p, (unsigned)(y / 100));
	p = put2(p, (unsigned)(y % 100));
	*p++ = '-';
	p = put2(p, m);
	*p++ = '-';
	put2(p, d);
	return true;
}

static void put_timestamp_contents(colfs_buf *b, int64_t secs, int64_t nanos)
{
	struct tm tm;
	time_t t = (time_t)secs;
	char buf[64];
	int zeros = 0;

	if (nanos < 0) {
		t -= 1;
		nanos = -nanos;
	}
	{
		/* the common years written directly: "YYYY-MM-DD HH:MM:SS." */
		int64_t days = (int64_t)t / 86400, sod = (int64_t)t % 86400;
		char *p;

		if (sod < 0) {
			sod += 86400;
			days--;
		}
		if (colfs_buf_reserve(b, 32) &&
		    put_ymd(b->data + b->len + 1, days)) {
			p = b->data + b->len;
			*p = '"';
			p += 11;
			*p++ = ' ';
			p = put2(p, (unsigned)(sod / 3600));
			*p++ = ':';
			p = put2(p, (unsigned)(sod / 60 % 60));
			*p++ = ':';
			p = put2(p, (unsigned)(sod % 60));
			*p++ = '.';
			b->len = (size_t)(p - b->data);
			if (nanos == 0) {
				PUTS(b, "0\"");
				return;
			}
			while (nanos % 10 == 0) {
				nanos /= 10;
				zeros++;
			}
			/* 9 - zeros digits, zero-padded */
			if (colfs_buf_reserve(b, 12)) {
				p = b->data + b->len + (9 - zeros);
				for (int k = 0; k < 9 - zeros; k++) {
					*--p = (char)('0' + nanos % 10);
					nanos /= 10;
				}
				b->len += (size_t)(9 - zeros);
				put1(b, '"');
			}
			return;
		}
	}
	if (!gmtime_r(&t, &tm)) {
		colfs_buf_printf(b, "\"%lld\"", (long long)secs);
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	colfs_buf_printf(b, "\"%s.", buf);
	if (nanos == 0) {
		zeros = 8;
	} else {
		while (nanos % 10 == 0) {
			nanos /= 10;
			zeros++;
		}
	}
	colfs_buf_printf(b, "%0*lld\"", 9 - zeros, (long long)nanos);
}

static void put_date_contents(colfs_buf *b, int64_t days)
{
	struct tm tm;
	time_t t;
	char buf[64];

	if (days > ((int64_t)1 << 40) || days < -((int64_t)1 << 40)) {
		colfs_buf_printf(b, "\"%lld\"", (long long)days);
		return;
	}
	if (colfs_buf_reserve(b, 12) && put_ymd(b->data + b->len + 1, days)) {
		b->data[b->len] = '"';
		b->data[b->len + 11] = '"';
		b->len += 12;
		return;
	}
	t = (time_t)(days * 86400);
	if (!gmtime_r(&t, &tm)) {
		colfs_buf_printf(b, "\"%lld\"", (long long)days);
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
	colfs_buf_printf(b, "\"%s\"", buf);
}

static void print_contents(colfs_buf *b, const orc_col *c, size_t row,
			   unsigned depth)
{
	const orc_vec *v = &c->v;

	if (!v->present[row] || depth > ORC_MAX_DEPTH) {
		PUTS(b, "null");
		return;
	}
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN:
		colfs_buf_puts(b, v->i[row] ? "true" : "false");
		break;
	case ORCPB__TYPE__KIND__BYTE:
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
		put_i64(b, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
		colfs_buf_printf(b, "%.7g", v->d[row]);
		break;
	case ORCPB__TYPE__KIND__DOUBLE:
		colfs_buf_printf(b, "%.14g", v->d[row]);
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
		put_contents_string(b, v->sp[row], (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY: {
		/* WKT as a JSON string (render.h); malformed WKB shows as
		 * its bytes, as binary */
		static const colfs_render js = {NULL, true};

		if (colfs_render_wkb(b, &js, v->sp[row], (size_t)v->sl[row],
				     NULL, NULL) == COLFS_OK)
			break;
	}
		/* fall through */
	case ORCPB__TYPE__KIND__BINARY:
		put1(b, '[');
		for (uint64_t k = 0; k < v->sl[row]; k++) {
			if (k)
				PUTS(b, ", ");
			put_i64(b, v->sp[row][k]);
		}
		put1(b, ']');
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		put_timestamp_contents(b, v->i[row], v->j[row]);
		break;
	case ORCPB__TYPE__KIND__DATE:
		put_date_contents(b, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__DECIMAL:
		put_decimal(b, v->dec[row], c->scale);
		break;
	case ORCPB__TYPE__KIND__STRUCT:
		put1(b, '{');
		for (size_t k = 0; k < c->n_kids; k++) {
			if (!c->kids[k]->selected)
				continue;
			put(b, c->keys[k], c->key_len[k]);
			print_contents(b, c->kids[k], row, depth + 1);
		}
		put1(b, '}');
		break;
	case ORCPB__TYPE__KIND__LIST:
		put1(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			if (k)
				PUTS(b, ", ");
			print_contents(b, c->kids[0], (size_t)(v->i[row] + k),
				       depth + 1);
		}
		put1(b, ']');
		break;
	case ORCPB__TYPE__KIND__MAP:
		put1(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			size_t e = (size_t)(v->i[row] + k);

			colfs_buf_puts(b, k ? ", {\"key\": " : "{\"key\": ");
			print_contents(b, c->kids[0], e, depth + 1);
			PUTS(b, ", \"value\": ");
			print_contents(b, c->kids[1], e, depth + 1);
			put1(b, '}');
		}
		put1(b, ']');
		break;
	case ORCPB__TYPE__KIND__UNION:
		colfs_buf_printf(b, "{\"tag\": %u, \"value\": ", v->tag[row]);
		print_contents(b, c->kids[v->tag[row]], (size_t)v->i[row],
			       depth + 1);
		put1(b, '}');
		break;
	default:
		PUTS(b, "null");
		break;
	}
}

/* --- printing: values.md ------------------------------------------------------ */

static void i128_be(i128 v, uint8_t out[16])
{
	unsigned __int128 u = (unsigned __int128)v;

	for (int i = 15; i >= 0; i--) {
		out[i] = (uint8_t)u;
		u >>= 8;
	}
}

static void print_value(colfs_buf *b, const colfs_render *rd,
			const orc_col *c, size_t row, unsigned depth)
{
	const orc_vec *v = &c->v;
	colfs_render js = *rd;

	js.json = true;
	if (!v->present[row] || depth > ORC_MAX_DEPTH) {
		colfs_render_null(b, rd);
		return;
	}
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN:
		colfs_render_bool(b, rd, v->i[row] != 0);
		break;
	case ORCPB__TYPE__KIND__BYTE:
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
		colfs_render_i64(b, rd, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
		colfs_render_float(b, rd, (float)v->d[row]);
		break;
	case ORCPB__TYPE__KIND__DOUBLE:
		colfs_render_double(b, rd, v->d[row]);
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
		colfs_render_string(b, rd, v->sp[row], (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__BINARY:
		colfs_render_binary(b, rd, v->sp[row], (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY:
		/* WKT (render.h); malformed WKB shows as its bytes */
		if (colfs_render_wkb(b, rd, v->sp[row], (size_t)v->sl[row],
				     NULL, NULL) != COLFS_OK)
			colfs_render_binary(b, rd, v->sp[row],
					    (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
		colfs_render_timestamp_parts(b, rd, v->i[row],
					     (uint32_t)v->j[row], false);
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		colfs_render_timestamp_parts(b, rd, v->i[row],
					     (uint32_t)v->j[row], true);
		break;
	case ORCPB__TYPE__KIND__DATE:
		colfs_render_date(b, rd, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__DECIMAL: {
		uint8_t be[16];

		i128_be(v->dec[row], be);
		colfs_render_decimal_be(b, rd, be, 16, c->scale);
		break;
	}
	case ORCPB__TYPE__KIND__STRUCT:
		colfs_buf_putc(b, '{');
		for (size_t k = 0; k < c->n_kids; k++) {
			put(b, c->jkeys[k], c->jkey_len[k]);
			print_value(b, &js, c->kids[k], row, depth + 1);
		}
		colfs_buf_putc(b, '}');
		break;
	case ORCPB__TYPE__KIND__LIST:
		colfs_buf_putc(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			if (k)
				colfs_buf_putc(b, ',');
			print_value(b, &js, c->kids[0],
				    (size_t)(v->i[row] + k), depth + 1);
		}
		colfs_buf_putc(b, ']');
		break;
	case ORCPB__TYPE__KIND__MAP:
		colfs_buf_putc(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			size_t e = (size_t)(v->i[row] + k);

			colfs_buf_puts(b, k ? ",{\"key\":" : "{\"key\":");
			print_value(b, &js, c->kids[0], e, depth + 1);
			colfs_buf_puts(b, ",\"value\":");
			print_value(b, &js, c->kids[1], e, depth + 1);
			colfs_buf_putc(b, '}');
		}
		colfs_buf_putc(b, ']');
		break;
	case ORCPB__TYPE__KIND__UNION:
		colfs_buf_printf(b, "{\"tag\":%u,\"value\":", v->tag[row]);
		print_value(b, &js, c->kids[v->tag[row]], (size_t)v->i[row],
			    depth + 1);
		colfs_buf_putc(b, '}');
		break;
	default:
		colfs_render_null(b, rd);
		break;
	}
}

/* --- views ----------------------------------------------------------------------- */

void orc_read_view_free(orc_view *v)
{
	for (size_t i = 0; i < ORC_VIEW_READERS; i++) {
		reader_free(v->pool[i]);
		v->pool[i] = NULL;
	}
	pthread_mutex_destroy(&v->lock);
}

/* --- seeking in a stripe ----------------------------------------------------- */

/* Decode the next n rows of the stripe. */
static colfs_status reader_read(orc_reader *r, size_t n, colfs_err *err)
{
	COLFS_TRY(col_read(r, r->root, n, NULL, err));
	r->row += n;
	return COLFS_OK;
}

/* Load the ROW_INDEX of column c and of its selected subtree. */
static bool index_load(orc_reader *r, const orc_stripe *sp,
		       const orc_col *c)
{
	orc_file *f = r->f;
	colfs_err err = {0};
	const orc_stream_loc *l;
	uint8_t *data;
	size_t len;
	colfs_status st;

	if (!c->selected)
		return true;
	l = find_stream(sp, c->id, ORCPB__STREAM__KIND__ROW_INDEX);
	if (!l || !l->in_file)
		return false;
	st = orc_in_read_decompressed(f, l->offset, l->length, &data, &len,
				      &err);
	if (st)
		return false;
	st = colfs_proto_unpack(&r->ri[c->id], &orcpb__row_index__descriptor,
				data, len, colfs_proto_cap(len, f->max_alloc),
				l->offset, &err);
	free(data);
	if (st)
		return false;
	for (size_t k = 0; k < c->n_kids; k++)
		if (!index_load(r, sp, c->kids[k]))
			return false;
	return true;
}

/* Whether every selected column has a row index (loaded once). */
static bool reader_index(orc_reader *r)
{
	orc_stripe *sp;
	colfs_err err = {0};

	if (r->ri_loaded)
		return r->ri_ok;
	r->ri_loaded = true;
	if (!r->f->footer->rowindexstride ||
	    orc_tail_stripe_load(r->f, r->stripe, &sp, &err))
		return false;
	r->ri = calloc(r->f->n_types, sizeof(*r->ri));
	r->ri_ok = r->ri && index_load(r, sp, r->root);
	return r->ri_ok;
}

/* Position every stream of column c (and of its selected subtree) at the
 * start of row group g, in the order ORC's writers record the positions:
 * PRESENT when the column has one, then the column's own streams. */
static colfs_status col_seek(orc_reader *r, orc_col *c, uint64_t g,
			     colfs_err *err)
{
	const Orcpb__RowIndex *ix;
	const Orcpb__RowIndexEntry *e;
	const uint64_t *p;
	size_t n, u;

	if (!c->selected)
		return COLFS_OK;
	ix = (const Orcpb__RowIndex *)r->ri[c->id].msg;
	if (!ix || g >= ix->n_entry || !ix->entry[g])
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "column %u: no row index entry for row "
				  "group %llu", c->id, (unsigned long long)g);
	e = ix->entry[g];
	p = e->positions;
	n = e->n_positions;
#define SEEK(fn, d)                                         \
	do {                                                \
		COLFS_TRY(fn(d, p, n, &u, err));            \
		p += u;                                     \
		n -= u;                                     \
	} while (0)
	if (c->has_present)
		SEEK(orc_rle_bool_seek, &c->present);
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN:
		SEEK(orc_rle_bool_seek, &c->bools);
		break;
	case ORCPB__TYPE__KIND__BYTE:
	case ORCPB__TYPE__KIND__UNION:
		SEEK(orc_rle_byte_seek, &c->bytes);
		break;
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
	case ORCPB__TYPE__KIND__DATE:
		SEEK(orc_rle_int_seek, &c->ints);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
	case ORCPB__TYPE__KIND__DOUBLE:
		SEEK(orc_in_seek, &c->data);
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
	case ORCPB__TYPE__KIND__BINARY:
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY:
		if (c->dict) {
			SEEK(orc_rle_int_seek, &c->ints);
		} else {
			SEEK(orc_in_seek, &c->data);
			SEEK(orc_rle_int_seek, &c->lens);
		}
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		SEEK(orc_rle_int_seek, &c->ints);
		SEEK(orc_rle_int_seek, &c->second);
		break;
	case ORCPB__TYPE__KIND__DECIMAL:
		if (c->decimal64) {
			SEEK(orc_rle_int_seek, &c->ints);
		} else {
			SEEK(orc_in_seek, &c->data);
			SEEK(orc_rle_int_seek, &c->second);
		}
		break;
	case ORCPB__TYPE__KIND__LIST:
	case ORCPB__TYPE__KIND__MAP:
		SEEK(orc_rle_int_seek, &c->lens);
		break;
	default:
		break;
	}
#undef SEEK
	for (size_t k = 0; k < c->n_kids; k++)
		COLFS_TRY(col_seek(r, c->kids[k], g, err));
	return COLFS_OK;
}

/* Bring the reader to row `target` of its stripe: through the row index
 * to the start of the row group that holds it, when the reader is not
 * already in that group before it, then by decoding the rows between.
 * COLFS_END: the reader cannot get there (behind it, no row index);
 * a row index that does not seek is ECORRUPT (the caller starts over). */
static colfs_status reader_seek(orc_reader *r, uint64_t target,
				colfs_err *err)
{
	uint64_t stride = r->f->footer->rowindexstride;

	if (target != r->row && stride &&
	    (target < r->row || target / stride != r->row / stride) &&
	    reader_index(r)) {
		uint64_t g = target / stride;

		COLFS_TRY(col_seek(r, r->root, g, err));
		r->row = g * stride;
	}
	if (target < r->row)
		return COLFS_END;
	while (r->row < target) {
		uint64_t n = target - r->row;

		COLFS_TRY(reader_read(r, n < ORC_ROWS_PER_PIECE
						 ? (size_t)n
						 : ORC_ROWS_PER_PIECE,
				      err));
	}
	return COLFS_OK;
}

/* Take the view's idle reader best placed for row `target` of `stripe`
 * (one already there, then one of that stripe, then any to reuse), or
 * NULL: the caller makes one. */
static orc_reader *view_take(orc_view *v, size_t stripe, uint64_t target)
{
	orc_reader *r = NULL, *spare = NULL;
	size_t best = ORC_VIEW_READERS, rank = 4;

	pthread_mutex_lock(&v->lock);
	for (size_t i = 0; i < ORC_VIEW_READERS; i++) {
		orc_reader *p = v->pool[i];
		size_t k;

		if (!p)
			continue;
		if (p->stripe != stripe)
			k = 3;
		else if (p->row == target)
			k = 0;
		else if (p->row < target)
			k = 1;
		else
			k = 2;
		if (k < rank) {
			rank = k;
			best = i;
		}
	}
	if (best < ORC_VIEW_READERS) {
		r = v->pool[best];
		v->pool[best] = NULL;
		if (rank == 3) {
			spare = r;
			r = NULL;
		}
	}
	pthread_mutex_unlock(&v->lock);
	reader_free(spare);
	return r;
}

/* Give a reader back to the view's pool (freed when the pool is full). */
static void view_give(orc_view *v, orc_reader *r, uint64_t rows,
		      size_t bytes)
{
	pthread_mutex_lock(&v->lock);
	if (rows)
		v->row_bytes = bytes / rows + 1;
	for (size_t i = 0; r && i < ORC_VIEW_READERS; i++) {
		if (!v->pool[i]) {
			v->pool[i] = r;
			r = NULL;
		}
	}
	pthread_mutex_unlock(&v->lock);
	reader_free(r);
}

static uint64_t view_row_bytes(orc_view *v)
{
	uint64_t b;

	pthread_mutex_lock(&v->lock);
	b = v->row_bytes;
	pthread_mutex_unlock(&v->lock);
	return b;
}

/* The stripe and the batch within it of global piece `index`. */
static bool piece_locate(const orc_file *f, const orc_view *v, uint64_t index,
			 size_t *stripe, uint64_t *batch)
{
	if (v->stripe >= 0) {
		uint64_t rows = f->footer->stripes[v->stripe]->numberofrows;
		uint64_t n = (rows + ORC_ROWS_PER_PIECE - 1) /
			     ORC_ROWS_PER_PIECE;

		if (index >= n)
			return false;
		*stripe = (size_t)v->stripe;
		*batch = index;
		return true;
	}
	if (index >= f->n_pieces)
		return false;
	{
		size_t lo = 0, hi = f->n_stripes;

		/* last stripe whose first piece is <= index and that has
		 * pieces */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (f->stripes[mid].piece_start <= index)
				lo = mid;
			else
				hi = mid;
		}
		while (lo + 1 < f->n_stripes &&
		       f->stripes[lo + 1].piece_start <= index)
			lo++;
		*stripe = lo;
		*batch = index - f->stripes[lo].piece_start;
	}
	return true;
}

/* rows.csv header: the top-level field names (one field `value` when the
 * root is not a struct, as columns/ names it). */
static colfs_status csv_header(const orc_file *f, colfs_buf *out)
{
	const Orcpb__Type *root = f->footer->types[0];

	if (root->kind != ORCPB__TYPE__KIND__STRUCT) {
		colfs_buf_puts(out, "value");
	} else {
		for (size_t k = 0; k < root->n_subtypes; k++) {
			const char *fn = root->fieldnames[k];

			if (k)
				colfs_buf_putc(out, ',');
			colfs_render_csv_field(out, fn, strlen(fn));
		}
	}
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}

/* One rows.csv line without its newline: each top-level field rendered
 * in CSV mode (`rd`: strings as they are, nested values JSON), then
 * written as rows.csv writes a field (core/render.h; NULL is
 * `null_text`).  `tmp` is the reader's. */
static void print_csv_row(colfs_buf *out, colfs_buf *tmp,
			  const colfs_render *rd, const char *null_text,
			  const orc_col *root, size_t row)
{
	if (root->kind != ORCPB__TYPE__KIND__STRUCT) {
		tmp->len = 0;
		if (!root->v.present[row])
			colfs_render_null(tmp, rd);
		else
			print_value(tmp, rd, root, row, 0);
		colfs_render_csv_value(out, tmp->data, tmp->len, null_text);
		return;
	}
	for (size_t k = 0; k < root->n_kids; k++) {
		const orc_col *c = root->kids[k];

		if (k)
			colfs_buf_putc(out, ',');
		tmp->len = 0;
		if (!root->v.present[row] || !c->v.present[row])
			colfs_render_null(tmp, rd);
		else
			print_value(tmp, rd, c, row, 0);
		colfs_render_csv_value(out, tmp->data, tmp->len, null_text);
	}
}

/* A reader of the view's columns at row `target` of `stripe`: one from
 * the pool moved there, else a new one. */
static colfs_status view_reader(orc_view *v, size_t stripe, uint64_t target,
				orc_reader **out, colfs_err *err)
{
	orc_file *f = v->file;
	uint32_t column = v->kind == ORC_VIEW_COLUMN ? v->column : 0;
	orc_reader *r = view_take(v, stripe, target);
	colfs_status st;

	if (r) {
		colfs_err ignored = {0};

		if (!reader_seek(r, target, &ignored)) {
			*out = r;
			return COLFS_OK;
		}
		/* behind, or a row index that does not seek */
		reader_free(r);
	}
	COLFS_TRY(reader_create(f, stripe, column, &r, err));
	st = reader_seek(r, target, err);
	if (st && r->ri_ok) {
		/* the row index led astray: decode from the stripe's start */
		reader_free(r);
		COLFS_TRY(reader_create(f, stripe, column, &r, err));
		r->ri_loaded = true;
		st = reader_seek(r, target, err);
	}
	if (st) {
		reader_free(r);
		return st;
	}
	*out = r;
	return COLFS_OK;
}

/* -o on_damage=null, rows.jsonl and rows.csv: rows [r0, r0 + rows) of
 * `stripe` failed to decode together, so each top-level field is read
 * on its own; a field that fails reads as NULL in those rows (filed
 * under the view with its name), the others keep their values, and
 * every row keeps its line.  A stripe whose footer is lost fails every
 * field: its rows are all NULL. */
static colfs_status rows_past_damage(colfs_tree *t, colfs_node *file,
				     size_t stripe, uint64_t r0, size_t rows,
				     colfs_buf *out)
{
	orc_view *v = colfs_node_ctx(file);
	orc_file *f = v->file;
	const Orcpb__Type *rt = f->footer->types[0];
	size_t nk = rt->kind == ORCPB__TYPE__KIND__STRUCT ? rt->n_subtypes : 0;
	orc_reader **rk = calloc(nk ? nk : 1, sizeof *rk);
	const orc_col **col = calloc(nk ? nk : 1, sizeof *col);
	colfs_render rd = {0};
	colfs_buf tmp = COLFS_BUF_INIT;
	colfs_status st = COLFS_OK;

	if (!rk || !col) {
		free(rk);
		free(col);
		return COLFS_ENOMEM;
	}
	rd.null_token = colfs_tree_options(t)->null_token;
	if (v->kind == ORC_VIEW_CSV)
		rd = colfs_render_csv_mode();
	for (size_t k = 0; k < nk; k++) {
		colfs_err e = {0};
		uint32_t id = rt->subtypes[k];
		colfs_status s2 = orc_reader_at(f, stripe, id, r0, &rk[k], &e);

		if (!s2 && (s2 = reader_read(rk[k], rows, &e)) != COLFS_OK) {
			reader_free(rk[k]);
			rk[k] = NULL;
		}
		if (s2 == COLFS_ENOMEM || s2 == COLFS_EIO) {
			st = s2;
			goto done;
		}
		if (s2) {
			colfs_tree_report(t, file, e.offset, s2,
					  "rows %llu to %llu of stripe %zu, "
					  "field %s: read as NULL: on_damage",
					  (unsigned long long)r0,
					  (unsigned long long)(r0 + rows - 1),
					  stripe, k < rt->n_fieldnames
					  ? rt->fieldnames[k] : "");
			continue;
		}
		col[k] = orc_reader_column(rk[k], id);
	}
	if (!nk)
		colfs_tree_report(t, file, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				  "rows %llu to %llu of stripe %zu read as "
				  "NULL: on_damage", (unsigned long long)r0,
				  (unsigned long long)(r0 + rows - 1), stripe);
	for (size_t i = 0; i < rows; i++) {
		if (v->kind == ORC_VIEW_ROWS)
			colfs_buf_putc(out, nk ? '{' : 'n');
		for (size_t k = 0; k < nk; k++) {
			const char *fn = k < rt->n_fieldnames
						 ? rt->fieldnames[k] : "";
			bool null = !col[k] || !rk[k]->root->v.present[i] ||
				    !col[k]->v.present[i];

			if (v->kind == ORC_VIEW_ROWS) {
				/* the keys of struct_keys */
				colfs_buf_puts(out, k ? ", \"" : "\"");
				colfs_buf_puts(out, fn);
				colfs_buf_puts(out, "\": ");
				if (null)
					colfs_buf_puts(out, "null");
				else
					print_contents(out, col[k], i, 1);
				continue;
			}
			if (k)
				colfs_buf_putc(out, ',');
			tmp.len = 0;
			if (null)
				colfs_render_null(&tmp, &rd);
			else
				print_value(&tmp, &rd, col[k], i, 0);
			colfs_render_csv_value(out, tmp.data, tmp.len,
					       colfs_tree_options(t)->csv_null);
		}
		if (v->kind == ORC_VIEW_ROWS)
			colfs_buf_puts(out, nk ? "}" : "ull");
		else if (!nk)
			colfs_buf_puts(out, colfs_tree_options(t)->csv_null);
		colfs_buf_putc(out, '\n');
	}
	st = colfs_buf_status(&tmp);
	if (!st)
		st = colfs_buf_status(out);
done:
	for (size_t k = 0; k < nk; k++)
		reader_free(rk[k]);
	free(rk);
	free(col);
	colfs_buf_free(&tmp);
	return st;
}

/* GEOMETRY/GEOGRAPHY values of a piece (a top-level field, or those of
 * the root struct): the first malformed WKB of the column in the piece is
 * filed under the stripe (the value itself shows as its bytes,
 * docs/values.md), at the column's DATA stream (its dictionary's place
 * is not tracked: the stripe's start then), with the value's row in the
 * stripe and the byte of the value where the WKB goes wrong. */
static void check_wkb(colfs_tree *t, const orc_file *f, size_t stripe,
		      uint64_t r0, const orc_col *c, size_t rows)
{
	colfs_wkb_scan sc = {0};
	char path[64];

	if (!c)
		return;
	if (c->id == 0) {           /* the root: its fields, row by row */
		for (size_t k = 0; k < c->n_kids; k++)
			check_wkb(t, f, stripe, r0, c->kids[k], rows);
		return;
	}
	if (c->kind != ORCPB__TYPE__KIND__GEOMETRY &&
	    c->kind != ORCPB__TYPE__KIND__GEOGRAPHY)
		return;
	for (size_t i = 0; i < rows; i++)
		if (c->v.present[i])
			colfs_wkb_scan_value(&sc, i, c->v.sp[i],
					     (size_t)c->v.sl[i]);
	colfs_wkb_scan_done(&sc);
	if (!sc.bad)
		return;
	snprintf(path, sizeof path, "/stripes/%zu", stripe);
	colfs_tree_report_path(t, path,
			       c->dict ? f->footer->stripes[stripe]->offset
				       : c->data.start,
			       COLFS_ECORRUPT,
			       "column %u, row %llu of the stripe: malformed WKB (%s, byte %zu of the value)%s: shown as its bytes",
			       c->id, (unsigned long long)(r0 + sc.first), sc.why,
			       sc.at,
			       sc.bad > 1 ? " and more in the rows read with it"
					  : "");
}

colfs_status orc_read_view_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			    colfs_buf *out)
{
	orc_view *v = colfs_node_ctx(file);
	orc_file *f = v->file;
	colfs_err err = {0};
	size_t stripe;
	uint64_t batch, rows, est;
	colfs_status st = COLFS_OK;
	const orc_col *target;
	orc_reader *r = NULL;
	colfs_render rd = {0};
	size_t start = out->len;

	if (v->kind == ORC_VIEW_CSV) {
		/* piece 0 is the header line, row pieces follow */
		if (index == 0)
			return csv_header(f, out);
		index--;
	}
	if (!piece_locate(f, v, index, &stripe, &batch))
		return COLFS_END;
	rows = f->footer->stripes[stripe]->numberofrows -
	       batch * ORC_ROWS_PER_PIECE;
	if (rows > ORC_ROWS_PER_PIECE)
		rows = ORC_ROWS_PER_PIECE;
	st = view_reader(v, stripe, batch * ORC_ROWS_PER_PIECE, &r, &err);
	if (!st)
		st = reader_read(r, (size_t)rows, &err);
	if (st)
		goto fail;

	target = r->root;
	if (v->kind == ORC_VIEW_COLUMN && v->column != 0) {
		for (size_t k = 0; k < target->n_kids; k++)
			if (target->kids[k]->id == v->column) {
				target = target->kids[k];
				break;
			}
	}
	check_wkb(t, f, stripe, batch * ORC_ROWS_PER_PIECE, target,
		  (size_t)rows);
	/* room for the whole piece at once, from the last piece's bytes a
	 * row (no growing copy after copy) */
	est = view_row_bytes(v);
	if (est && rows && est < (64u << 20) / rows)
		colfs_buf_reserve(out, (size_t)(est * rows + est * rows / 8));
	rd.null_token = colfs_tree_options(t)->null_token;
	if (v->kind == ORC_VIEW_CSV)
		rd = colfs_render_csv_mode();
	for (size_t i = 0; i < rows; i++) {
		if (v->kind == ORC_VIEW_ROWS)
			print_contents(out, target, i, 0);
		else if (v->kind == ORC_VIEW_CSV)
			print_csv_row(out, &r->tmp, &rd,
				      colfs_tree_options(t)->csv_null, target,
				      i);
		else if (!target->v.present[i])
			colfs_render_null(out, &rd);
		else
			print_value(out, &rd, target, i, 0);
		colfs_buf_putc(out, '\n');
	}
	st = colfs_buf_status(&r->tmp);
	if (!st)
		st = colfs_buf_status(out);
	view_give(v, r, rows, out->len - start);
	return st;
fail:
	reader_free(r);
	{
		/* filed under the stripe (and stream) that is broken */
		char path[256];
		orc_tree_part_path(f, stripe, &err, path, sizeof path);
		colfs_tree_report_err_path(t, path, &err);
		/* the piece's rows are hidden by that part (colfs-tool
		 * check), numbered in its stripe: what on_damage below
		 * replaces */
		if (st != COLFS_ENOMEM && st != COLFS_EIO)
			colfs_tree_note_hidden(t, path, err.offset,
					       batch * ORC_ROWS_PER_PIECE,
					       rows);
	}
	{
		/* -o on_damage: a column view's rows of the piece as NULL
		 * lines, or none; filed under the view */
		colfs_on_damage d = colfs_tree_options(t)->on_damage;
		if (v->kind != ORC_VIEW_COLUMN && st != COLFS_ENOMEM &&
		    st != COLFS_EIO && d == COLFS_ON_DAMAGE_NULL) {
			out->len = start;
			return rows_past_damage(t, file, stripe,
						batch * ORC_ROWS_PER_PIECE,
						(size_t)rows, out);
		}
		if (st != COLFS_ENOMEM && st != COLFS_EIO &&
		    d != COLFS_ON_DAMAGE_ERROR) {
			uint64_t r0 = batch * ORC_ROWS_PER_PIECE;
			colfs_tree_report(t, file, err.offset, st,
					  "rows %llu to %llu of stripe %zu %s: "
					  "on_damage", (unsigned long long)r0,
					  (unsigned long long)(r0 + rows - 1),
					  stripe, d == COLFS_ON_DAMAGE_NULL
					  ? "read as NULL" : "left out");
			out->len = start;
			rd.null_token = colfs_tree_options(t)->null_token;
			if (d == COLFS_ON_DAMAGE_NULL)
				for (uint64_t i = 0; i < rows; i++) {
					colfs_render_null(out, &rd);
					colfs_buf_putc(out, '\n');
				}
			return colfs_buf_status(out);
		}
	}
	return st;
}

/* --- for orc_verify.c --------------------------------------------------- */

colfs_status orc_reader_create(orc_file *f, size_t stripe, uint32_t column,
			       orc_reader **out, colfs_err *err)
{
	return reader_create(f, stripe, column, out, err);
}

colfs_status orc_reader_read(orc_reader *r, size_t n, colfs_err *err)
{
	return reader_read(r, n, err);
}

void orc_reader_free(orc_reader *r)
{
	reader_free(r);
}

/* --- for orc_arrays.c --------------------------------------------------- */

colfs_status orc_reader_at(orc_file *f, size_t stripe, uint32_t column,
			   uint64_t row, orc_reader **out, colfs_err *err)
{
	orc_reader *r;
	colfs_status st;

	COLFS_TRY(reader_create(f, stripe, column, &r, err));
	st = reader_seek(r, row, err);
	if (st && r->ri_ok) {
		/* the row index led astray: decode from the stripe's start */
		reader_free(r);
		COLFS_TRY(reader_create(f, stripe, column, &r, err));
		r->ri_loaded = true;
		st = reader_seek(r, row, err);
	}
	if (st) {
		reader_free(r);
		return st;
	}
	*out = r;
	return COLFS_OK;
}

const orc_col *orc_reader_column(const orc_reader *r, uint32_t column)
{
	const orc_col *c = r->root;

	if (column != 0)
		for (size_t k = 0; k < c->n_kids; k++)
			if (c->kids[k]->id == column)
				return c->kids[k];
	return c;
}

/* colfs ORC: the column reader (orc_read.h).
 *
 * A reader covers one stripe: it decompresses the streams of the selected
 * columns, then decodes batches of rows into per-column vectors the way
 * ORC's own readers do (a child of a struct has a slot for each row of the
 * batch, null where the struct is null; the children of lists and maps
 * have one slot per element), and seeks through the stripe's row index.
 * The views (orc_read.c), the checks (orc_verify.c) and the arrays
 * (orc_arrays.c) read through it. */
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

/* --- for the views, orc_verify.c and orc_arrays.c ------------------------- */

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

colfs_status orc_reader_seek(orc_reader *r, uint64_t target, colfs_err *err)
{
	return reader_seek(r, target, err);
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


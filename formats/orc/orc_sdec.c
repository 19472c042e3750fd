/* colfs ORC: streams/<ordinal>-<column>-<KIND>/decoded, one stream
 * decoded on its own (the streams whose encoding does not depend on
 * another stream): PRESENT and boolean DATA, byte DATA, integer DATA,
 * LENGTH, dictionary ids, SECONDARY, float and double DATA.  One value per
 * line, 10000 values a piece. */
#include "orc_internal.h"
#include "orc_rle.h"

#include "../core/render.h"

#include <stdlib.h>
#include <string.h>

#define SDEC_PER_PIECE 10000u

typedef struct sdec_state {
	orc_rle_bool bools;
	orc_rle_byte bytes;
	orc_rle_int ints;
	orc_in raw;
} sdec_state;

orc_sdec_kind orc_sdec_kind_of(const orc_file *f, const orc_stripe *sp,
			       size_t ordinal, bool *v2)
{
	const orc_stream_loc *l = &sp->streams[ordinal];
	const Orcpb__StripeFooter *sf =
		(const Orcpb__StripeFooter *)sp->footer.msg;
	uint32_t enc = 0, kind;

	*v2 = false;
	if (!f->schema_ok || l->column >= f->n_types || !l->in_file)
		return ORC_SDEC_NONE;
	if (l->column < sf->n_columns)
		enc = sf->columns[l->column]->kind;
	*v2 = enc == ORCPB__COLUMN_ENCODING__KIND__DIRECT_V2 ||
	      enc == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2;
	kind = f->footer->types[l->column]->kind;
	switch (l->kind) {
	case ORCPB__STREAM__KIND__PRESENT:
		return ORC_SDEC_BOOL;
	case ORCPB__STREAM__KIND__LENGTH:
	case ORCPB__STREAM__KIND__DICTIONARY_COUNT:
		return ORC_SDEC_UINT;
	case ORCPB__STREAM__KIND__SECONDARY:
		if (kind == ORCPB__TYPE__KIND__TIMESTAMP ||
		    kind == ORCPB__TYPE__KIND__TIMESTAMP_INSTANT)
			return ORC_SDEC_UINT;
		if (kind == ORCPB__TYPE__KIND__DECIMAL)
			return ORC_SDEC_SINT;
		return ORC_SDEC_NONE;
	case ORCPB__STREAM__KIND__DATA:
		switch (kind) {
		case ORCPB__TYPE__KIND__BOOLEAN:
			return ORC_SDEC_BOOL;
		case ORCPB__TYPE__KIND__BYTE:
			return ORC_SDEC_BYTE;
		case ORCPB__TYPE__KIND__UNION:
			return ORC_SDEC_UBYTE;
		case ORCPB__TYPE__KIND__SHORT:
		case ORCPB__TYPE__KIND__INT:
		case ORCPB__TYPE__KIND__LONG:
		case ORCPB__TYPE__KIND__DATE:
		case ORCPB__TYPE__KIND__TIMESTAMP:
		case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
			return ORC_SDEC_SINT;
		case ORCPB__TYPE__KIND__FLOAT:
			return ORC_SDEC_FLOAT;
		case ORCPB__TYPE__KIND__DOUBLE:
			return ORC_SDEC_DOUBLE;
		case ORCPB__TYPE__KIND__STRING:
		case ORCPB__TYPE__KIND__VARCHAR:
		case ORCPB__TYPE__KIND__CHAR:
		case ORCPB__TYPE__KIND__BINARY:
			if (enc == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY ||
			    enc == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2)
				return ORC_SDEC_UINT;
			return ORC_SDEC_NONE;
		default:
			return ORC_SDEC_NONE;
		}
	default:
		return ORC_SDEC_NONE;
	}
}

void orc_sdec_free_state(orc_sdec *d)
{
	sdec_state *s = d->state;

	if (!s)
		return;
	orc_rle_bool_close(&s->bools);
	orc_rle_byte_close(&s->bytes);
	orc_rle_int_close(&s->ints);
	orc_in_close(&s->raw);
	free(s);
	d->state = NULL;
}

static colfs_status sdec_start(orc_sdec *d, colfs_err *err)
{
	orc_stripe *sp;
	const orc_stream_loc *l;
	sdec_state *s;
	orc_in in;

	COLFS_TRY(orc_tail_stripe_load(d->file, d->stripe, &sp, err));
	if (d->ordinal >= sp->n_streams)
		return colfs_fail(err, COLFS_EBOUNDS, 0, "no stream %zu",
				  d->ordinal);
	l = &sp->streams[d->ordinal];
	s = calloc(1, sizeof(*s));
	if (!s)
		return colfs_fail(err, COLFS_ENOMEM, l->offset,
				  "out of memory");
	orc_in_init_file(&in, d->file, l->offset, l->length);
	switch (d->kind) {
	case ORC_SDEC_BOOL:
		orc_rle_bool_init(&s->bools, &in);
		break;
	case ORC_SDEC_BYTE:
	case ORC_SDEC_UBYTE:
		orc_rle_byte_init(&s->bytes, &in);
		break;
	case ORC_SDEC_SINT:
	case ORC_SDEC_UINT:
		orc_rle_int_init(&s->ints, &in, d->v2,
				 d->kind == ORC_SDEC_SINT);
		break;
	default:
		s->raw = in;
		break;
	}
	d->state = s;
	d->next_piece = 0;
	return COLFS_OK;
}

/* Up to `max` values into `out`; fewer only at the end of the stream. */
static colfs_status sdec_render(orc_sdec *d, size_t max, colfs_buf *out,
				size_t *count, colfs_err *err)
{
	sdec_state *s = d->state;
	const colfs_render rd = {0};
	size_t n = 0;

	for (; n < max; n++) {
		switch (d->kind) {
		case ORC_SDEC_BOOL: {
			uint8_t b;

			if (s->bools.bits_left == 0 &&
			    s->bools.bytes.run_pos == s->bools.bytes.run_len &&
			    !orc_in_more(&s->bools.bytes.in))
				goto done;
			COLFS_TRY(orc_rle_bool_next(&s->bools, &b, 1, err));
			colfs_buf_puts(out, b ? "1\n" : "0\n");
			break;
		}
		case ORC_SDEC_BYTE:
		case ORC_SDEC_UBYTE: {
			uint8_t b;

			if (s->bytes.run_pos == s->bytes.run_len &&
			    !orc_in_more(&s->bytes.in))
				goto done;
			COLFS_TRY(orc_rle_byte_next(&s->bytes, &b, 1, err));
			colfs_buf_printf(out, "%d\n",
					 d->kind == ORC_SDEC_BYTE ? (int)(int8_t)b
								  : (int)b);
			break;
		}
		case ORC_SDEC_SINT:
		case ORC_SDEC_UINT: {
			int64_t v;

			if (s->ints.run_pos == s->ints.run_len &&
			    !orc_in_more(&s->ints.in))
				goto done;
			COLFS_TRY(orc_rle_int_next(&s->ints, &v, 1, err));
			if (d->kind == ORC_SDEC_SINT)
				colfs_buf_printf(out, "%lld\n", (long long)v);
			else
				colfs_buf_printf(out, "%llu\n",
						 (unsigned long long)(uint64_t)v);
			break;
		}
		case ORC_SDEC_FLOAT:
		case ORC_SDEC_DOUBLE: {
			size_t w = d->kind == ORC_SDEC_FLOAT ? 4 : 8;
			const uint8_t *p;

			if (!orc_in_more(&s->raw))
				goto done;
			COLFS_TRY(orc_in_bytes(&s->raw, w, &p, err));
			if (w == 4) {
				uint32_t bits = colfs_le32(p);
				float fv;

				memcpy(&fv, &bits, 4);
				colfs_render_float(out, &rd, fv);
			} else {
				uint64_t bits = colfs_le64(p);
				double dv;

				memcpy(&dv, &bits, 8);
				colfs_render_double(out, &rd, dv);
			}
			colfs_buf_putc(out, '\n');
			break;
		}
		default:
			goto done;
		}
	}
done:
	*count = n;
	return COLFS_OK;
}

colfs_status orc_sdec_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			    colfs_buf *out)
{
	orc_sdec *d = colfs_node_ctx(file);
	colfs_err err = {0};
	colfs_status st;
	size_t got;

	if (!d->state || d->next_piece != index) {
		orc_sdec_free_state(d);
		st = sdec_start(d, &err);
		if (st)
			goto fail;
		for (uint64_t k = 0; k < index; k++) {
			colfs_buf skip = COLFS_BUF_INIT;

			st = sdec_render(d, SDEC_PER_PIECE, &skip, &got, &err);
			colfs_buf_free(&skip);
			if (st)
				goto fail;
			if (got < SDEC_PER_PIECE) {
				orc_sdec_free_state(d);
				return COLFS_END;
			}
		}
	}
	st = sdec_render(d, SDEC_PER_PIECE, out, &got, &err);
	if (st)
		goto fail;
	d->next_piece = index + 1;
	if (got == 0) {
		orc_sdec_free_state(d);
		return COLFS_END;
	}
	return colfs_buf_status(out);
fail:
	orc_sdec_free_state(d);
	colfs_tree_report_err(t, file, &err);
	return st;
}

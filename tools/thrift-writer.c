/* colfs-mksample: Thrift compact-protocol encoder (see thrift-writer.h). */
#include "thrift-writer.h"

#include <stdlib.h>
#include <string.h>

/* --- byte buffer --------------------------------------------------------- */

void tw_buf_put(tw_buf *b, const void *p, size_t n)
{
	if (b->failed || n == 0)
		return;
	if (n > SIZE_MAX - b->len) {
		b->failed = true;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *d;

		while (cap < b->len + n) {
			if (cap > SIZE_MAX / 2) {
				b->failed = true;
				return;
			}
			cap *= 2;
		}
		d = realloc(b->data, cap);
		if (!d) {
			b->failed = true;
			return;
		}
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void tw_buf_u8(tw_buf *b, uint8_t v)
{
	tw_buf_put(b, &v, 1);
}

void tw_buf_le32(tw_buf *b, uint32_t v)
{
	uint8_t x[4];

	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	tw_buf_put(b, x, sizeof(x));
}

void tw_buf_le64(tw_buf *b, uint64_t v)
{
	uint8_t x[8];

	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	tw_buf_put(b, x, sizeof(x));
}

void tw_buf_uvarint(tw_buf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		if (v)
			byte |= 0x80;
		x[n++] = byte;
	} while (v);
	tw_buf_put(b, x, n);
}

void tw_buf_reset(tw_buf *b)
{
	b->len = 0;
}

void tw_buf_free(tw_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* --- compact protocol ---------------------------------------------------- */

static uint64_t tw_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void tw_push(tw *w)
{
	if (w->depth >= TW_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->last[w->depth++] = 0;
}

void tw_begin(tw *w, tw_buf *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	tw_push(w);
}

void tw_struct_end(tw *w)
{
	if (w->depth <= 0) {
		w->failed = true;
		return;
	}
	tw_buf_u8(w->out, 0); /* STOP */
	w->depth--;
}

bool tw_ok(const tw *w)
{
	return !w->failed && !w->out->failed && w->depth == 0;
}

/* A field header: short form (delta in the high nibble) when the id is
 * 1..15 above the previous one, else the type byte and a zigzag i16. */
static void tw_field_header(tw *w, int16_t id, uint8_t type)
{
	int16_t *last;
	int delta;

	if (w->depth <= 0) {
		w->failed = true;
		return;
	}
	last = &w->last[w->depth - 1];
	delta = id - *last;
	if (delta > 0 && delta <= 15) {
		tw_buf_u8(w->out, (uint8_t)(delta << 4 | type));
	} else {
		tw_buf_u8(w->out, type);
		tw_buf_uvarint(w->out, tw_zigzag(id));
	}
	*last = id;
}

void tw_field_bool(tw *w, int16_t id, bool v)
{
	tw_field_header(w, id, v ? TW_BOOL_TRUE : TW_BOOL_FALSE);
}

void tw_field_i16(tw *w, int16_t id, int16_t v)
{
	tw_field_header(w, id, TW_I16);
	tw_buf_uvarint(w->out, tw_zigzag(v));
}

void tw_field_i32(tw *w, int16_t id, int32_t v)
{
	tw_field_header(w, id, TW_I32);
	tw_buf_uvarint(w->out, tw_zigzag(v));
}

void tw_field_i64(tw *w, int16_t id, int64_t v)
{
	tw_field_header(w, id, TW_I64);
	tw_buf_uvarint(w->out, tw_zigzag(v));
}

void tw_field_double(tw *w, int16_t id, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	tw_field_header(w, id, TW_DOUBLE);
	tw_buf_le64(w->out, bits);
}

void tw_field_binary(tw *w, int16_t id, const void *p, size_t n)
{
	tw_field_header(w, id, TW_BINARY);
	tw_elem_binary(w, p, n);
}

void tw_field_string(tw *w, int16_t id, const char *s)
{
	tw_field_binary(w, id, s, strlen(s));
}

void tw_field_struct_begin(tw *w, int16_t id)
{
	tw_field_header(w, id, TW_STRUCT);
	tw_push(w);
}

void tw_field_list_begin(tw *w, int16_t id, enum tw_type elem,
			 uint32_t count)
{
	tw_field_header(w, id, TW_LIST);
	if (count < 15) {
		tw_buf_u8(w->out, (uint8_t)(count << 4 | elem));
	} else {
		tw_buf_u8(w->out, (uint8_t)(0xf0 | elem));
		tw_buf_uvarint(w->out, count);
	}
}

void tw_elem_bool(tw *w, bool v)
{
	tw_buf_u8(w->out, v ? TW_BOOL_TRUE : TW_BOOL_FALSE);
}

void tw_elem_i32(tw *w, int32_t v)
{
	tw_buf_uvarint(w->out, tw_zigzag(v));
}

void tw_elem_i64(tw *w, int64_t v)
{
	tw_buf_uvarint(w->out, tw_zigzag(v));
}

void tw_elem_binary(tw *w, const void *p, size_t n)
{
	tw_buf_uvarint(w->out, n);
	tw_buf_put(w->out, p, n);
}

void tw_elem_string(tw *w, const char *s)
{
	tw_elem_binary(w, s, strlen(s));
}

void tw_elem_struct_begin(tw *w)
{
	tw_push(w);
}

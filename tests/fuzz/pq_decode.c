/* tests/fuzz: the Parquet value decoders of pq_decode.h.
 *
 * Input: one byte picks the decoder, then its parameters (bit width,
 * count, type, encoding, dictionary size, ...), then the encoded bytes.
 * Invariants: statuses are enum values and failures carry an offset in
 * the input; the cursor stays in its window; decoders produce exactly
 * what was asked or fail; levels and indices respect their bounds;
 * values of `bit_width` bits fit in it; byte views point inside the
 * input (or the decoder's own arena); incremental delta decoding agrees
 * with the whole-page decoder; every decoded value renders; the RLE scan
 * without output (pq_rle_all_equal) agrees with the RLE decoder. */
#include "fuzz_util.h"
#include "core/buf.h"
#include "core/cursor.h"
#include "core/render.h"
#include "parquet/decode/pq_decode.h"

#define MAX_COUNT 65536u

typedef struct ctx {
	const uint8_t *p;   /* the encoded bytes (own copy) */
	size_t n;
	colfs_cursor c;
	colfs_err err;
} ctx;

static void ctx_cursor(ctx *x)
{
	colfs_cursor_init(&x->c, x->p, x->n, FUZZ_BASE);
	memset(&x->err, 0, sizeof(x->err));
}

static void ctx_check(ctx *x, colfs_status st)
{
	fuzz_check_err(st, &x->err, FUZZ_BASE, x->n);
	FUZZ_CHECK(x->c.pos <= x->c.len);
	FUZZ_CHECK(x->c.base == x->p && x->c.len == x->n);
}

static void check_view(const ctx *x, const pq_bytes *b, const uint8_t *arena)
{
	if (b->len == 0)
		return;
	if (b->ptr >= x->p && b->ptr <= x->p + x->n) {
		FUZZ_CHECK((size_t)(b->ptr - x->p) + b->len <= x->n);
		return;
	}
	FUZZ_CHECK(arena != NULL);
}

static void check_width(const uint32_t *v, size_t n, unsigned bw)
{
	if (bw >= 32)
		return;
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(v[i] >> bw == 0);
}

static void do_rle(ctx *x, fuzz_in *in, int form)
{
	unsigned bw = fuzz_u8(in) % 34;   /* 33: out of range on purpose */
	size_t count = fuzz_u16(in);
	uint32_t *out = malloc((count + 1) * sizeof(*out));
	colfs_status st;

	FUZZ_CHECK(out != NULL);
	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	colfs_cursor start = x->c;
	if (form == 0)
		st = pq_rle_decode(&x->c, bw, out, count, &x->err);
	else if (form == 1)
		st = pq_rle_decode_prefixed(&x->c, bw, out, count, &x->err);
	else
		st = pq_bitpacked_decode(&x->c, bw, out, count, &x->err);
	ctx_check(x, st);
	if (bw > 32)
		FUZZ_CHECK(st != COLFS_OK || count == 0);
	if (st == COLFS_OK)
		check_width(out, count, bw);
	if (form == 0 && bw >= 1 && bw <= 32) {
		/* the scan without output agrees with the decoder: all one
		 * value exactly when the decoded values are */
		uint32_t v = st == COLFS_OK && count ? out[0] : 1;
		bool same = pq_rle_all_equal(&start, bw, v, count);
		if (same)
			FUZZ_CHECK(st == COLFS_OK);
		if (st == COLFS_OK) {
			bool all = true;
			for (size_t i = 0; i < count && all; i++)
				all = out[i] == v;
			FUZZ_CHECK(same == all);
		}
	}
	free(out);
}

static void do_dict_indices(ctx *x, fuzz_in *in)
{
	uint32_t dict = fuzz_u16(in);
	size_t count = fuzz_u16(in);
	uint32_t *out = malloc((count + 1) * sizeof(*out));
	colfs_status st;

	FUZZ_CHECK(out != NULL);
	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	st = pq_dict_indices_decode(&x->c, out, count, dict, &x->err);
	ctx_check(x, st);
	if (st == COLFS_OK)
		for (size_t i = 0; i < count; i++)
			FUZZ_CHECK(out[i] < dict);
	free(out);
}

static void do_levels(ctx *x, fuzz_in *in, bool v2)
{
	int32_t enc = fuzz_u8(in) & 1 ? 3 : 4;
	uint32_t max_level = fuzz_u8(in);
	size_t count = fuzz_u16(in);
	uint32_t *out = malloc((count + 1) * sizeof(*out));
	colfs_status st;

	FUZZ_CHECK(out != NULL);
	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	if (v2)
		st = pq_levels_decode_v2(&x->c, max_level, out, count,
					 &x->err);
	else
		st = pq_levels_decode_v1(&x->c, enc, max_level, out, count,
					 &x->err);
	ctx_check(x, st);
	if (st == COLFS_OK)
		for (size_t i = 0; i < count; i++)
			FUZZ_CHECK(out[i] <= max_level);
	if (st == COLFS_OK && max_level == 0)
		FUZZ_CHECK(x->c.pos == 0);
	free(out);
}

static void do_values(ctx *x, fuzz_in *in)
{
	int32_t type = fuzz_u8(in) % 9;          /* 8: unknown */
	int32_t enc = fuzz_u8(in) % 12;          /* 10, 11: unknown */
	int32_t type_length = fuzz_u8(in) % 40;
	size_t count = fuzz_u16(in) % MAX_COUNT;
	uint32_t dict = fuzz_u16(in);
	uint8_t tbits = fuzz_u8(in);
	pq_type t;
	pq_values v;
	colfs_status st;

	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	memset(&v, 0, sizeof(v));
	st = pq_values_decode(&x->c, type, type_length, enc, count, dict,
			      1u << 20, &v, &x->err);
	ctx_check(x, st);
	if (st == COLFS_OK) {
		colfs_buf b;
		static const int32_t conv[] = {-1, 0, 5, 6, 7, 8, 9, 10, 11,
					       12, 13, 14, 15, 16, 17, 18,
					       19, 20, 21};
		static const int32_t logical[] = {0, 1, 5, 6, 7, 8, 10, 14,
						  15, 12, 13, 4};

		FUZZ_CHECK(v.count == count);
		FUZZ_CHECK(v.physical_type == type);
		if (v.indices) {
			FUZZ_CHECK(enc == 2 || enc == 8);
			for (size_t i = 0; i < count; i++)
				FUZZ_CHECK(v.v.idx[i] < dict);
			pq_values_free(&v);
			return;
		}
		if (type == 0)
			for (size_t i = 0; i < count; i++)
				FUZZ_CHECK(v.v.b[i] <= 1);
		if (type == 3 || type == 6 || type == 7)
			for (size_t i = 0; i < count; i++) {
				check_view(x, &v.v.bytes[i], v.owned);
				if (type == 3)
					FUZZ_CHECK(v.v.bytes[i].len == 12);
				if (type == 7)
					FUZZ_CHECK(v.v.bytes[i].len ==
						   (uint32_t)type_length);
			}
		memset(&t, 0, sizeof(t));
		t.physical = type;
		t.type_length = type_length;
		t.converted = conv[tbits % (sizeof(conv) / sizeof(conv[0]))];
		t.logical = logical[(tbits >> 3) %
				    (sizeof(logical) / sizeof(logical[0]))];
		t.scale = (int32_t)(tbits % 40) - 2;
		t.unit = 1 + (tbits >> 5) % 3;
		t.utc = tbits & 0x80;
		t.bit_width = 8 << ((tbits >> 1) & 3);
		t.is_signed = tbits & 0x40;
		memset(&b, 0, sizeof(b));
		for (size_t i = 0; i < count && i < 4096; i++) {
			colfs_render r = colfs_render_text_default;

			r.json = (i & 1) != 0;
			pq_render_value(&b, &r, &t, &v, i);
			colfs_buf_putc(&b, '\n');
		}
		colfs_buf_free(&b);
	}
	pq_values_free(&v);
}

static void do_delta(ctx *x, fuzz_in *in)
{
	uint64_t max_values = fuzz_u16(in);
	unsigned max_bw = fuzz_u8(in) % 70;
	uint8_t step = fuzz_u8(in);
	uint64_t *out = malloc((max_values + 1) * sizeof(*out));
	pq_delta d;
	colfs_status st;
	uint64_t done = 0;

	FUZZ_CHECK(out != NULL);
	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	st = pq_delta_init(&d, &x->c, max_values, max_bw, &x->err);
	ctx_check(x, st);
	if (st == COLFS_OK) {
		FUZZ_CHECK(d.total <= max_values);
		while (st == COLFS_OK && done < d.total) {
			size_t n = 1 + step % 97;

			if (n > d.total - done)
				n = (size_t)(d.total - done);
			st = pq_delta_next(&d, out + done, n, &x->err);
			ctx_check(x, st);
			if (st == COLFS_OK)
				done += n;
			step = (uint8_t)(step * 37 + 11);
		}
		if (st == COLFS_OK) {
			FUZZ_CHECK(done == d.total);
			st = pq_delta_finish(&d, &x->err);
			ctx_check(x, st);
		}
		/* the whole-page decoder agrees */
		if (st == COLFS_OK && done > 0) {
			int64_t *whole = malloc(done * sizeof(*whole));
			colfs_cursor c2;
			colfs_err e2;
			colfs_status st2;
			size_t end1 = x->c.pos;

			FUZZ_CHECK(whole != NULL);
			colfs_cursor_init(&c2, x->p, x->n, FUZZ_BASE);
			memset(&e2, 0, sizeof(e2));
			st2 = pq_delta_decode_i64(&c2, whole, done, &e2);
			if (st2 == COLFS_OK && max_bw >= 64) {
				for (size_t i = 0; i < done; i++)
					FUZZ_CHECK((uint64_t)whole[i] ==
						   out[i]);
				FUZZ_CHECK(c2.pos == end1);
			}
			free(whole);
		}
	}
	free(out);
}

static void do_byte_arrays(ctx *x, fuzz_in *in, int which)
{
	size_t count = fuzz_u16(in) % MAX_COUNT;
	pq_bytes *out = malloc((count + 1) * sizeof(*out));
	uint8_t *arena = NULL;
	colfs_status st;

	FUZZ_CHECK(out != NULL);
	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	if (which == 0)
		st = pq_dlba_decode(&x->c, out, count, &x->err);
	else if (which == 1)
		st = pq_dba_decode(&x->c, out, count, 1u << 20, &arena,
				   &x->err);
	else
		st = pq_plain_decode_bytes(&x->c, out, count, &x->err);
	ctx_check(x, st);
	if (st == COLFS_OK)
		for (size_t i = 0; i < count; i++)
			check_view(x, &out[i], arena);
	free(arena);
	free(out);
}

static void do_bss(ctx *x, fuzz_in *in)
{
	uint32_t width = fuzz_u8(in) % 20;
	size_t count = fuzz_u16(in) % 8192;
	uint8_t *dst = malloc(count * (width ? width : 1) + 1);
	colfs_status st;

	FUZZ_CHECK(dst != NULL);
	x->p = fuzz_dup(in->p, in->n);
	x->n = in->n;
	ctx_cursor(x);
	st = pq_bss_decode(&x->c, width, dst, count, &x->err);
	ctx_check(x, st);
	if (st == COLFS_OK && width > 0) {
		FUZZ_CHECK(x->c.pos == count * width);
		/* value i, byte k is stream k, position i */
		for (size_t i = 0; i < count && i < 64; i++)
			for (uint32_t k = 0; k < width; k++)
				FUZZ_CHECK(dst[i * width + k] ==
					   x->p[k * count + i]);
	}
	free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	ctx x;
	uint8_t op = fuzz_u8(&in);

	memset(&x, 0, sizeof(x));
	switch (op % 12) {
	case 0: case 1: case 2:
		do_rle(&x, &in, op % 12);
		break;
	case 3:
		do_dict_indices(&x, &in);
		break;
	case 4:
		do_levels(&x, &in, false);
		break;
	case 5:
		do_levels(&x, &in, true);
		break;
	case 6: case 7:
		do_values(&x, &in);
		break;
	case 8:
		do_delta(&x, &in);
		break;
	case 9: case 10:
		do_byte_arrays(&x, &in, op % 12 == 9 ? (op >> 4) % 3 : 1);
		break;
	default:
		do_bss(&x, &in);
		break;
	}
	free((void *)x.p);
	return 0;
}

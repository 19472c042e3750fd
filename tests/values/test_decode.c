/* tests/values: the Parquet value decoders.  Small encoders written here
 * from the spec (parquet-format Encodings.md) produce byte strings that
 * every decoder must read back; spec examples are checked byte by byte;
 * malformed inputs must fail cleanly with a status and an offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parquet/decode/pq_decode.h"

#define BASE 1000    /* fake absolute file offset of every test buffer */

/* ---- a tiny byte writer --------------------------------------------------- */

typedef struct wbuf {
	uint8_t *p;
	size_t len, cap;
} wbuf;

static void w_put(wbuf *w, const void *d, size_t n)
{
	if (w->len + n > w->cap) {
		w->cap = (w->len + n) * 2 + 64;
		w->p = realloc(w->p, w->cap);
		assert_non_null(w->p);
	}
	if (n)
		memcpy(w->p + w->len, d, n);
	w->len += n;
}

static void w_u8(wbuf *w, uint8_t v)
{
	w_put(w, &v, 1);
}

static void w_u32le(wbuf *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 24) };
	w_put(w, b, 4);
}

static void w_uvarint(wbuf *w, uint64_t v)
{
	while (v >= 0x80) {
		w_u8(w, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	w_u8(w, (uint8_t)v);
}

static void w_zigzag(wbuf *w, int64_t v)
{
	w_uvarint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* LSB-first bit packing of n values of bw bits (bytes rounded up). */
static void w_pack_lsb(wbuf *w, const uint64_t *v, size_t n, unsigned bw)
{
	size_t nbytes = (n * bw + 7) / 8;
	uint8_t *b = calloc(nbytes + 1, 1);
	uint64_t bit = 0;

	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < bw; k++, bit++)
			if (v[i] >> k & 1)
				b[bit / 8] |= (uint8_t)(1u << (bit % 8));
	w_put(w, b, nbytes);
	free(b);
}

static void w_free(wbuf *w)
{
	free(w->p);
	memset(w, 0, sizeof(*w));
}

static uint64_t rnd64(void)
{
	return (uint64_t)rand() << 62 ^ (uint64_t)rand() << 31 ^
	       (uint64_t)rand();
}

static void cur(colfs_cursor *c, const wbuf *w)
{
	colfs_cursor_init(c, w->p, w->len, BASE);
}

/* ---- encoders ----------------------------------------------------------- */

/* The RLE/bit-packing hybrid: runs of equal values of length >= 8 become
 * RLE runs, the rest bit-packed groups (last group padded with zeros). */
static void enc_hybrid(wbuf *w, const uint32_t *v, size_t n, unsigned bw)
{
	size_t i = 0;

	while (i < n) {
		size_t j = i;
		while (j < n && v[j] == v[i])
			j++;
		if (j - i >= 8 || (rand() & 7) == 0) {
			w_uvarint(w, (uint64_t)(j - i) << 1);
			for (unsigned k = 0; k < (bw + 7) / 8; k++)
				w_u8(w, (uint8_t)(v[i] >> (8 * k)));
			i = j;
			continue;
		}
		/* bit-pack 8..64 values */
		size_t take = 8 * (1 + (size_t)(rand() % 8));
		size_t real = take < n - i ? take : n - i;
		uint64_t tmp[64] = { 0 };
		for (size_t k = 0; k < real; k++)
			tmp[k] = v[i + k];
		w_uvarint(w, (uint64_t)(take / 8) << 1 | 1);
		w_pack_lsb(w, tmp, take, bw);
		i += real;
	}
}

/* DELTA_BINARY_PACKED, with full padding of the last miniblock. */
static void enc_delta_bits(wbuf *w, const int64_t *v, size_t n,
			   uint64_t block, uint64_t minis, bool bits32)
{
	uint64_t per = block / minis;

	w_uvarint(w, block);
	w_uvarint(w, minis);
	w_uvarint(w, n);
	w_zigzag(w, n ? v[0] : 0);
	size_t i = 1;
	while (i < n) {
		size_t cnt = n - i < block ? n - i : block;
		uint64_t *d = calloc(block, sizeof(*d));
		uint64_t md = 0;
		for (size_t k = 0; k < cnt; k++) {
			d[k] = (uint64_t)v[i + k] - (uint64_t)v[i + k - 1];
			if (bits32)   /* INT32 writers subtract in 32 bits */
				d[k] = (uint64_t)(int64_t)(int32_t)(uint32_t)d[k];
			if (k == 0 || (int64_t)d[k] < (int64_t)md)
				md = d[k];
		}
		for (size_t k = 0; k < cnt; k++) {
			d[k] -= md;
			if (bits32)
				d[k] &= 0xffffffffu;
		}
		w_zigzag(w, (int64_t)md);
		uint8_t widths[64] = { 0 };
		size_t used = (cnt + per - 1) / per;
		for (size_t m = 0; m < minis; m++) {
			uint64_t or = 0;
			for (size_t k = m * per; k < (m + 1) * per && k < cnt; k++)
				or |= d[k];
			unsigned bw = 0;
			while (bw < 64 && (or >> bw))
				bw++;
			/* unused miniblocks: arbitrary widths must be accepted */
			widths[m] = m < used ? (uint8_t)bw : (uint8_t)(rand() & 0xff);
		}
		w_put(w, widths, minis);
		for (size_t m = 0; m < used; m++)
			w_pack_lsb(w, d + m * per, per, widths[m]);
		free(d);
		i += cnt;
	}
}

static void enc_delta(wbuf *w, const int64_t *v, size_t n, uint64_t block,
		      uint64_t minis)
{
	enc_delta_bits(w, v, n, block, minis, false);
}

/* ---- RLE / bit-packed --------------------------------------------------- */

static void test_rle_round_trip_all_widths(void **state)
{
	(void)state;
	srand(1);
	for (unsigned bw = 0; bw <= 32; bw++) {
		for (int iter = 0; iter < 20; iter++) {
			size_t n = (size_t)(rand() % 3000);
			uint32_t *v = malloc((n + 1) * 4), *o = malloc((n + 1) * 4);
			uint64_t mask = bw == 32 ? 0xffffffffu : (1ull << bw) - 1;
			for (size_t i = 0; i < n; i++)
				v[i] = (rand() % 4 == 0 && i) ? v[i - 1] :
							       (uint32_t)(rnd64() & mask);
			wbuf w = { 0 };
			enc_hybrid(&w, v, n, bw);
			colfs_cursor c;
			colfs_err err = { 0 };
			cur(&c, &w);
			assert_int_equal(pq_rle_decode(&c, bw, o, n, &err), COLFS_OK);
			assert_memory_equal(v, o, n * 4);
			assert_int_equal(colfs_cursor_left(&c), 0);

			/* the prefixed (v1) form, followed by other data */
			wbuf p = { 0 };
			w_u32le(&p, (uint32_t)w.len);
			w_put(&p, w.p, w.len);
			w_u8(&p, 0xAB);
			cur(&c, &p);
			memset(o, 0, n * 4);
			assert_int_equal(pq_rle_decode_prefixed(&c, bw, o, n, &err),
					 COLFS_OK);
			assert_memory_equal(v, o, n * 4);
			assert_int_equal(colfs_cursor_left(&c), 1);
			w_free(&p);
			w_free(&w);
			free(v);
			free(o);
		}
	}
}

/* Encodings.md: values 0..7 with bit width 3 bit-packed as one group:
 * header (1 << 1 | 1) = 3, then 10001000 11000110 11111010. */
static void test_rle_spec_example(void **state)
{
	(void)state;
	const uint8_t b[] = { 0x03, 0x88, 0xc6, 0xfa };
	uint32_t o[8];
	colfs_cursor c;
	colfs_err err;

	colfs_cursor_init(&c, b, sizeof(b), BASE);
	assert_int_equal(pq_rle_decode(&c, 3, o, 8, &err), COLFS_OK);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(o[i], i);
	/* an RLE run: 300 times the value 0x0102 (2 bytes for 9 bits) */
	const uint8_t r[] = { 0xd8, 0x04, 0x02, 0x01 };
	uint32_t big[300];
	colfs_cursor_init(&c, r, sizeof(r), BASE);
	assert_int_equal(pq_rle_decode(&c, 9, big, 300, &err), COLFS_OK);
	for (int i = 0; i < 300; i++)
		assert_int_equal(big[i], 0x0102);
}

static void test_bitpacked_legacy_spec_example(void **state)
{
	(void)state;
	/* Encodings.md: 0..7 with bit width 3, MSB first */
	const uint8_t b[] = { 0x05, 0x39, 0x77 };
	uint32_t o[8];
	colfs_cursor c;
	colfs_err err;

	colfs_cursor_init(&c, b, sizeof(b), BASE);
	assert_int_equal(pq_bitpacked_decode(&c, 3, o, 8, &err), COLFS_OK);
	for (uint32_t i = 0; i < 8; i++)
		assert_int_equal(o[i], i);
	assert_int_equal(colfs_cursor_left(&c), 0);
	/* random round trip through an MSB-first encoder, every width */
	srand(2);
	for (unsigned bw = 1; bw <= 32; bw++) {
		size_t n = 1 + (size_t)(rand() % 500);
		uint32_t *v = malloc(n * 4), *out = malloc(n * 4);
		size_t nbytes = (n * bw + 7) / 8;
		uint8_t *p = calloc(nbytes, 1);
		uint64_t bit = 0;
		for (size_t i = 0; i < n; i++) {
			v[i] = (uint32_t)(rnd64() &
					  (bw == 32 ? 0xffffffffu : (1u << bw) - 1));
			for (int k = (int)bw - 1; k >= 0; k--, bit++)
				if (v[i] >> k & 1)
					p[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
		}
		colfs_cursor_init(&c, p, nbytes, BASE);
		assert_int_equal(pq_bitpacked_decode(&c, bw, out, n, &err),
				 COLFS_OK);
		assert_memory_equal(v, out, n * 4);
		/* one byte short */
		colfs_cursor_init(&c, p, nbytes - 1, BASE);
		assert_int_equal(pq_bitpacked_decode(&c, bw, out, n, &err),
				 COLFS_ETRUNCATED);
		free(v);
		free(out);
		free(p);
	}
}

static void test_rle_malformed(void **state)
{
	(void)state;
	uint32_t o[64];
	colfs_cursor c;
	colfs_err err;

	/* bit width above 32 */
	const uint8_t one[] = { 0x02, 0x01 };
	colfs_cursor_init(&c, one, sizeof(one), BASE);
	assert_int_equal(pq_rle_decode(&c, 33, o, 1, &err), COLFS_ECORRUPT);
	assert_int_equal(err.offset, BASE);
	/* a bit-packed run cut short: 2 groups of 8 at width 8 = 16 bytes */
	const uint8_t cut[] = { 0x05, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	colfs_cursor_init(&c, cut, sizeof(cut), BASE);
	assert_int_equal(pq_rle_decode(&c, 8, o, 16, &err), COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE);
	/* ...but enough for the 9 values wanted: accepted */
	colfs_cursor_init(&c, cut, sizeof(cut), BASE);
	assert_int_equal(pq_rle_decode(&c, 8, o, 9, &err), COLFS_OK);
	assert_int_equal(o[8], 9);
	/* runs end before the values do */
	const uint8_t shortrun[] = { 0x04, 0x07 };
	colfs_cursor_init(&c, shortrun, sizeof(shortrun), BASE);
	assert_int_equal(pq_rle_decode(&c, 3, o, 5, &err), COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE + 2);
	/* the RLE value itself is missing */
	colfs_cursor_init(&c, shortrun, 1, BASE);
	assert_int_equal(pq_rle_decode(&c, 3, o, 2, &err), COLFS_ETRUNCATED);
	/* a varint header that never ends */
	const uint8_t endless[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0xff, 0xff, 0xff };
	colfs_cursor_init(&c, endless, sizeof(endless), BASE);
	assert_int_not_equal(pq_rle_decode(&c, 3, o, 2, &err), COLFS_OK);
	/* a huge bit-packed group count with few bytes */
	const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01 };
	colfs_cursor_init(&c, huge, sizeof(huge), BASE);
	assert_int_equal(pq_rle_decode(&c, 4, o, 64, &err), COLFS_ETRUNCATED);
	/* a huge RLE count only fills what is wanted */
	const uint8_t hugerle[] = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				    0xff, 0xff, 0x01, 0x05 };
	colfs_cursor_init(&c, hugerle, sizeof(hugerle), BASE);
	assert_int_equal(pq_rle_decode(&c, 3, o, 64, &err), COLFS_OK);
	assert_int_equal(o[63], 5);
	/* prefixed: length past the end */
	const uint8_t pre[] = { 0x10, 0, 0, 0, 0x02, 0x01 };
	colfs_cursor_init(&c, pre, sizeof(pre), BASE);
	assert_int_equal(pq_rle_decode_prefixed(&c, 1, o, 1, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE);
	/* prefixed: runs do not reach past the prefixed length */
	const uint8_t pre2[] = { 0x01, 0, 0, 0, 0x02, 0x01 };
	colfs_cursor_init(&c, pre2, sizeof(pre2), BASE);
	assert_int_equal(pq_rle_decode_prefixed(&c, 1, o, 1, &err),
			 COLFS_ETRUNCATED);
}

static void test_dict_indices(void **state)
{
	(void)state;
	uint32_t v[1000], o[1000];
	colfs_cursor c;
	colfs_err err;
	wbuf w = { 0 };

	srand(3);
	for (int i = 0; i < 1000; i++)
		v[i] = (uint32_t)(rand() % 37);
	w_u8(&w, 6);
	enc_hybrid(&w, v, 1000, 6);
	cur(&c, &w);
	assert_int_equal(pq_dict_indices_decode(&c, o, 1000, 37, &err),
			 COLFS_OK);
	assert_memory_equal(v, o, sizeof(v));
	/* dictionary one entry smaller: index 36 is out of range */
	cur(&c, &w);
	assert_int_equal(pq_dict_indices_decode(&c, o, 1000, 36, &err),
			 COLFS_EBOUNDS);
	assert_true(err.offset > BASE);
	w_free(&w);
	/* an RLE run of an out of range index */
	const uint8_t rle[] = { 0x03, 0x10, 0x07 };
	colfs_cursor_init(&c, rle, sizeof(rle), BASE);
	assert_int_equal(pq_dict_indices_decode(&c, o, 8, 7, &err),
			 COLFS_EBOUNDS);
	assert_int_equal(err.offset, BASE + 1);
	colfs_cursor_init(&c, rle, sizeof(rle), BASE);
	assert_int_equal(pq_dict_indices_decode(&c, o, 8, 8, &err), COLFS_OK);
	/* bit width byte above 32 */
	const uint8_t wide[] = { 0x21, 0x02, 0x00 };
	colfs_cursor_init(&c, wide, sizeof(wide), BASE);
	assert_int_equal(pq_dict_indices_decode(&c, o, 1, 8, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(err.offset, BASE);
	/* empty dictionary */
	colfs_cursor_init(&c, rle, sizeof(rle), BASE);
	assert_int_equal(pq_dict_indices_decode(&c, o, 1, 0, &err),
			 COLFS_EBOUNDS);
	/* width 0 with nothing after it: all zeros */
	const uint8_t zero[] = { 0x00 };
	colfs_cursor_init(&c, zero, sizeof(zero), BASE);
	o[0] = o[9] = 99;
	assert_int_equal(pq_dict_indices_decode(&c, o, 10, 1, &err), COLFS_OK);
	assert_int_equal(o[0], 0);
	assert_int_equal(o[9], 0);
	/* no values: nothing is read */
	colfs_cursor_init(&c, NULL, 0, BASE);
	assert_int_equal(pq_dict_indices_decode(&c, o, 0, 0, &err), COLFS_OK);
}

/* ---- PLAIN ------------------------------------------------------------- */

static void test_plain_fixed_types(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	wbuf w = { 0 };
	int32_t i32[100], o32[100];
	int64_t i64[100], o64[100];
	float f[100], of[100];
	double d[100], od[100];

	srand(4);
	for (int i = 0; i < 100; i++) {
		i32[i] = (int32_t)rnd64();
		i64[i] = (int64_t)rnd64();
		f[i] = (float)(int32_t)rnd64() / 7.0f;
		d[i] = (double)(int64_t)rnd64() / 3.0;
	}
	for (int i = 0; i < 100; i++) {
		uint32_t u = (uint32_t)i32[i];
		w_u32le(&w, u);
	}
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_i32(&c, o32, 100, &err), COLFS_OK);
	assert_memory_equal(i32, o32, sizeof(i32));
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_i32(&c, o32, 101, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE);
	w.len = 0;
	for (int i = 0; i < 100; i++) {
		uint64_t u = (uint64_t)i64[i];
		w_u32le(&w, (uint32_t)u);
		w_u32le(&w, (uint32_t)(u >> 32));
	}
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_i64(&c, o64, 100, &err), COLFS_OK);
	assert_memory_equal(i64, o64, sizeof(i64));
	w.len = 0;
	for (int i = 0; i < 100; i++) {
		uint32_t u;
		memcpy(&u, &f[i], 4);
		w_u32le(&w, u);
	}
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_float(&c, of, 100, &err), COLFS_OK);
	assert_memory_equal(f, of, sizeof(f));
	w.len = 0;
	for (int i = 0; i < 100; i++) {
		uint64_t u;
		memcpy(&u, &d[i], 8);
		w_u32le(&w, (uint32_t)u);
		w_u32le(&w, (uint32_t)(u >> 32));
	}
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_double(&c, od, 100, &err), COLFS_OK);
	assert_memory_equal(d, od, sizeof(d));
	/* INT96 and FLBA views */
	pq_bytes views[66];
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_fixed(&c, 12, views, 66, &err),
			 COLFS_OK);
	assert_ptr_equal(views[65].ptr, w.p + 65 * 12);
	assert_int_equal(views[65].len, 12);
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_fixed(&c, 12, views, 67, &err),
			 COLFS_ETRUNCATED);
	/* a count whose byte size overflows */
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_fixed(&c, 0xffffffffu, views,
					       SIZE_MAX / 2, &err),
			 COLFS_ETRUNCATED);
	w_free(&w);
}

static void test_plain_bool(void **state)
{
	(void)state;
	const uint8_t b[] = { 0x35, 0x01 };   /* 1,0,1,0,1,1,0,0, 1 */
	const uint8_t want[] = { 1, 0, 1, 0, 1, 1, 0, 0, 1 };
	uint8_t o[9];
	colfs_cursor c;
	colfs_err err;

	colfs_cursor_init(&c, b, sizeof(b), BASE);
	assert_int_equal(pq_plain_decode_bool(&c, o, 9, &err), COLFS_OK);
	assert_memory_equal(o, want, 9);
	assert_int_equal(colfs_cursor_left(&c), 0);
	colfs_cursor_init(&c, b, sizeof(b), BASE);
	assert_int_equal(pq_plain_decode_bool(&c, o, 17, &err),
			 COLFS_ETRUNCATED);
}

static void test_plain_byte_array(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	wbuf w = { 0 };
	const char *s[] = { "Hello", "", "World", "\xff\x00z" };
	const uint32_t l[] = { 5, 0, 5, 3 };
	pq_bytes v[4];

	for (int i = 0; i < 4; i++) {
		w_u32le(&w, l[i]);
		w_put(&w, s[i], l[i]);
	}
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_bytes(&c, v, 4, &err), COLFS_OK);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(v[i].len, l[i]);
		assert_memory_equal(v[i].ptr, s[i], l[i]);
	}
	/* truncated last value: offset of its length prefix */
	colfs_cursor_init(&c, w.p, w.len - 1, BASE);
	assert_int_equal(pq_plain_decode_bytes(&c, v, 4, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE + 4 + 5 + 4 + 4 + 5);
	/* a length of 4 GiB - 1 */
	const uint8_t bad[] = { 0xff, 0xff, 0xff, 0xff, 'a' };
	colfs_cursor_init(&c, bad, sizeof(bad), BASE);
	assert_int_equal(pq_plain_decode_bytes(&c, v, 1, &err),
			 COLFS_ETRUNCATED);
	/* more values than bytes could hold */
	cur(&c, &w);
	assert_int_equal(pq_plain_decode_bytes(&c, v, SIZE_MAX, &err),
			 COLFS_ETRUNCATED);
	w_free(&w);
}

/* In_page values (pq_values_decode_in_page): every value found from its
 * mark and walked in order is the one pq_values_decode gives, across
 * several strides (marks) and at the end; a damaged page fails with the
 * same status and offset as pq_values_decode, garbage never reads
 * outside (ASan). */
static void test_plain_in_page(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err, err2;
	wbuf w = { 0 };
	pq_values a, b;
	const size_t n = 3 * PQ_IN_PAGE_STRIDE + 5;

	srand(11);
	for (size_t i = 0; i < n; i++) {
		uint32_t len = (uint32_t)(rand() % 40);
		w_u32le(&w, len);
		for (uint32_t k = 0; k < len; k++)
			w_u8(&w, (uint8_t)rand());
	}
	assert_true(pq_values_in_page_fits(6, 0));
	assert_true(pq_values_in_page_fits(7, 0));
	assert_false(pq_values_in_page_fits(6, 8));
	assert_false(pq_values_in_page_fits(3, 0));
	for (size_t count = 0; count <= n; count += count < 70 ? 1 : 37) {
		cur(&c, &w);
		assert_int_equal(pq_values_decode(&c, 6, 0, 0, count, 0,
						  1 << 20, &a, &err), COLFS_OK);
		size_t used = colfs_cursor_offset(&c);
		cur(&c, &w);
		assert_int_equal(pq_values_decode_in_page(&c, 6, 0, count,
							  1 << 20, &b, &err),
				 COLFS_OK);
		assert_int_equal(colfs_cursor_offset(&c), used);
		assert_true(b.in_page && b.v.any == (void *)b.page.marks);
		assert_int_equal(b.page.len, used - BASE);
		for (size_t i = 0; i <= count; i += 1 + i % 7) {
			size_t o = pq_values_in_page_at(&b, i);
			for (size_t j = i; j < count && j < i + 70; j++) {
				pq_bytes x = pq_values_in_page_next(&b, &o);
				assert_int_equal(x.len, a.v.bytes[j].len);
				assert_ptr_equal(x.ptr, a.v.bytes[j].ptr);
			}
		}
		assert_int_equal(pq_values_in_page_at(&b, count), b.page.len);
		pq_values_free(&a);
		pq_values_free(&b);
	}
	/* cut anywhere: the same failure as the array decoder */
	for (size_t cut = 0; cut < w.len; cut += 3) {
		colfs_status s1, s2;
		colfs_cursor_init(&c, w.p, cut, BASE);
		s1 = pq_values_decode(&c, 6, 0, 0, n, 0, 1 << 20, &a, &err);
		colfs_cursor_init(&c, w.p, cut, BASE);
		s2 = pq_values_decode_in_page(&c, 6, 0, n, 1 << 20, &b, &err2);
		assert_int_equal(s1, s2);
		if (s1) {
			assert_int_equal(err.offset, err2.offset);
			assert_string_equal(err.msg, err2.msg);
		}
		pq_values_free(&a);
		pq_values_free(&b);
	}
	/* FIXED_LEN_BYTE_ARRAY: value i at i * width, no marks */
	cur(&c, &w);
	assert_int_equal(pq_values_decode_in_page(&c, 7, 3, 10, 1 << 20, &b,
						  &err), COLFS_OK);
	assert_int_equal(b.page.len, 30);
	size_t o = pq_values_in_page_at(&b, 4);
	pq_bytes x = pq_values_in_page_next(&b, &o);
	assert_ptr_equal(x.ptr, w.p + 12);
	assert_int_equal(x.len, 3);
	pq_values_free(&b);
	colfs_cursor_init(&c, w.p, 29, BASE);
	assert_int_equal(pq_values_decode_in_page(&c, 7, 3, 10, 1 << 20, &b,
						  &err), COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE);
	cur(&c, &w);
	assert_int_equal(pq_values_decode_in_page(&c, 7, 0, 1, 1 << 20, &b,
						  &err), COLFS_ECORRUPT);
	/* garbage */
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = (size_t)(rand() % 64);
		uint8_t *g = malloc(len + 1);
		for (size_t i = 0; i < len; i++)
			g[i] = (uint8_t)(rand() % 4 ? rand() : 0);
		colfs_cursor_init(&c, g, len, BASE);
		if (pq_values_decode_in_page(&c, 6, 0, (size_t)(rand() % 20),
					     1 << 20, &b, &err) == COLFS_OK) {
			size_t at = pq_values_in_page_at(&b, 0);
			for (size_t i = 0; i < b.count; i++)
				(void)pq_values_in_page_next(&b, &at);
			assert_int_equal(at, b.page.len);
		}
		pq_values_free(&b);
		free(g);
	}
	w_free(&w);
}

/* ---- BYTE_STREAM_SPLIT -------------------------------------------------- */

static void test_bss(void **state)
{
	(void)state;
	/* Encodings.md example: AA BB CC DD, 00 11 22 33, A3 B4 C5 D6 */
	const uint8_t enc[] = { 0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4,
				0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6 };
	int32_t o[3];
	colfs_cursor c;
	colfs_err err;

	colfs_cursor_init(&c, enc, sizeof(enc), BASE);
	assert_int_equal(pq_bss_decode_i32(&c, o, 3, &err), COLFS_OK);
	assert_int_equal((uint32_t)o[0], 0xDDCCBBAAu);
	assert_int_equal((uint32_t)o[1], 0x33221100u);
	assert_int_equal((uint32_t)o[2], 0xD6C5B4A3u);
	/* any width, and the typed forms, against a plain layout */
	srand(5);
	for (uint32_t width = 1; width <= 17; width++) {
		size_t n = (size_t)(rand() % 300);
		uint8_t *plain = malloc(n * width + 1), *split = malloc(n * width + 1);
		uint8_t *out = malloc(n * width + 1);
		for (size_t i = 0; i < n * width; i++)
			plain[i] = (uint8_t)rand();
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < width; k++)
				split[k * n + i] = plain[i * width + k];
		colfs_cursor_init(&c, split, n * width, BASE);
		assert_int_equal(pq_bss_decode(&c, width, out, n, &err),
				 COLFS_OK);
		assert_memory_equal(plain, out, n * width);
		if (width == 8) {
			int64_t *i64 = malloc(n * 8 + 8);
			double *d = malloc(n * 8 + 8);
			colfs_cursor_init(&c, split, n * 8, BASE);
			assert_int_equal(pq_bss_decode_i64(&c, i64, n, &err),
					 COLFS_OK);
			colfs_cursor_init(&c, split, n * 8, BASE);
			assert_int_equal(pq_bss_decode_double(&c, d, n, &err),
					 COLFS_OK);
			for (size_t i = 0; i < n; i++) {
				uint64_t u = 0;
				for (int k = 0; k < 8; k++)
					u |= (uint64_t)plain[i * 8 + k] << (8 * k);
				assert_int_equal((uint64_t)i64[i], u);
				assert_memory_equal(&d[i], &u, 8);
			}
			free(i64);
			free(d);
		}
		if (width == 4) {
			float *f = malloc(n * 4 + 4);
			colfs_cursor_init(&c, split, n * 4, BASE);
			assert_int_equal(pq_bss_decode_float(&c, f, n, &err),
					 COLFS_OK);
			for (size_t i = 0; i < n; i++) {
				uint32_t u = 0;
				for (int k = 0; k < 4; k++)
					u |= (uint32_t)plain[i * 4 + k] << (8 * k);
				assert_memory_equal(&f[i], &u, 4);
			}
			free(f);
		}
		if (n) {
			colfs_cursor_init(&c, split, n * width - 1, BASE);
			assert_int_equal(pq_bss_decode(&c, width, out, n, &err),
					 COLFS_ETRUNCATED);
		}
		free(plain);
		free(split);
		free(out);
	}
	colfs_cursor_init(&c, enc, sizeof(enc), BASE);
	assert_int_equal(pq_bss_decode(&c, 0, (uint8_t *)o, 1, &err),
			 COLFS_ECORRUPT);
}

/* ---- DELTA_BINARY_PACKED ----------------------------------------------- */

static void test_delta_round_trip(void **state)
{
	(void)state;
	srand(6);
	static const uint64_t shapes[][2] = { { 128, 4 }, { 128, 1 },
					      { 256, 8 }, { 1024, 4 },
					      { 128, 2 } };
	for (int iter = 0; iter < 400; iter++) {
		size_t n = (size_t)(rand() % 2000);
		int64_t *v = malloc((n + 1) * 8), *o = malloc((n + 1) * 8);
		int kind = iter % 5;
		unsigned spread = (unsigned)(rand() % 65);
		for (size_t i = 0; i < n; i++) {
			uint64_t r = spread == 64 ? rnd64() :
				     spread == 0 ? 0 :
						   rnd64() & ((1ull << spread) - 1);
			if (kind == 0)
				v[i] = (int64_t)rnd64();          /* full 64-bit */
			else if (kind == 1)
				v[i] = (int64_t)(i ? (uint64_t)v[i - 1] + r : r);
			else if (kind == 2)
				v[i] = 42;                       /* width 0 */
			else if (kind == 3)
				v[i] = i % 2 ? INT64_MAX : INT64_MIN;
			else
				v[i] = (int64_t)(r - 2 * (r / 3)) * ((rand() & 1) ? 1 : -1);
		}
		const uint64_t *sh = shapes[iter % 5];
		wbuf w = { 0 };
		enc_delta(&w, v, n, sh[0], sh[1]);
		w_u8(&w, 0x5A);      /* what follows the stream */
		colfs_cursor c;
		colfs_err err;
		cur(&c, &w);
		assert_int_equal(pq_delta_decode_i64(&c, o, n, &err), COLFS_OK);
		assert_memory_equal(v, o, n * 8);
		assert_int_equal(colfs_cursor_left(&c), 1);
		/* declared count must match */
		if (n) {
			cur(&c, &w);
			assert_int_equal(pq_delta_decode_i64(&c, o, n - 1, &err),
					 COLFS_ECORRUPT);
			cur(&c, &w);
			assert_int_equal(pq_delta_decode_i64(&c, o, n + 1, &err),
					 COLFS_ECORRUPT);
		}
		w_free(&w);

		/* INT32: wrapping in 32 bits */
		int32_t *v32 = malloc((n + 1) * 4), *o32 = malloc((n + 1) * 4);
		for (size_t i = 0; i < n; i++) {
			v32[i] = (int32_t)(uint32_t)v[i];
			v[i] = v32[i];
		}
		/* encode the 32-bit deltas as the spec's writer does */
		wbuf w32 = { 0 };
		enc_delta_bits(&w32, v, n, sh[0], sh[1], true);
		cur(&c, &w32);
		assert_int_equal(pq_delta_decode_i32(&c, o32, n, &err),
				 COLFS_OK);
		assert_memory_equal(v32, o32, n * 4);
		assert_int_equal(colfs_cursor_left(&c), 0);
		w_free(&w32);
		free(v32);
		free(o32);
		free(v);
		free(o);
	}
}

/* Encodings.md example 2 (7, 5, 3, 1, 2, 3, 4, 5), with a valid block
 * size of 128 and 4 miniblocks: min delta -2, width 2 for the first
 * miniblock, packed 0,0,0,3,3,3,3 then padding to 32 values. */
static void test_delta_spec_example(void **state)
{
	(void)state;
	uint8_t b[64] = { 0x80, 0x01, 0x04, 0x08, 0x0e,   /* header */
			  0x03,                           /* min delta -2 */
			  2, 0, 0, 0 };                   /* widths */
	size_t len = 10;
	/* 0,0,0,3,3,3,3 on 2 bits LSB first: 0xC0 0xFF 0x03 */
	b[len++] = 0xC0;
	b[len++] = 0x3F;
	b[len++] = 0x00;
	len += 5;             /* rest of the 8-byte miniblock: zero */
	const int64_t want[] = { 7, 5, 3, 1, 2, 3, 4, 5 };
	int64_t o[8];
	colfs_cursor c;
	colfs_err err;

	colfs_cursor_init(&c, b, len, BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 8, &err), COLFS_OK);
	assert_memory_equal(o, want, sizeof(want));
	assert_int_equal(colfs_cursor_left(&c), 0);
	/* padding partly missing at the end of the page: accepted */
	colfs_cursor_init(&c, b, len - 4, BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 8, &err), COLFS_OK);
	assert_memory_equal(o, want, sizeof(want));
	/* but not the needed bytes */
	colfs_cursor_init(&c, b, 11, BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 8, &err), COLFS_ETRUNCATED);
	/* a single value needs no block at all */
	const uint8_t single[] = { 0x80, 0x01, 0x04, 0x01, 0x0e };
	colfs_cursor_init(&c, single, sizeof(single), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 1, &err), COLFS_OK);
	assert_int_equal(o[0], 7);
}

static void test_delta_malformed(void **state)
{
	(void)state;
	int64_t o[300];
	int32_t o32[300];
	colfs_cursor c;
	colfs_err err;

	/* block size not a multiple of 128 */
	const uint8_t bs[] = { 0x40, 0x01, 0x01, 0x00 };
	colfs_cursor_init(&c, bs, sizeof(bs), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 1, &err), COLFS_ECORRUPT);
	assert_int_equal(err.offset, BASE);
	/* miniblock count 0 */
	const uint8_t m0[] = { 0x80, 0x01, 0x00, 0x01, 0x00 };
	colfs_cursor_init(&c, m0, sizeof(m0), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 1, &err), COLFS_ECORRUPT);
	/* miniblock size not a multiple of 32 (128 / 8 = 16) */
	const uint8_t m8[] = { 0x80, 0x01, 0x08, 0x01, 0x00 };
	colfs_cursor_init(&c, m8, sizeof(m8), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 1, &err), COLFS_ECORRUPT);
	/* a huge value count */
	const uint8_t huge[] = { 0x80, 0x01, 0x04, 0xff, 0xff, 0xff, 0xff,
				 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00 };
	colfs_cursor_init(&c, huge, sizeof(huge), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 300, &err), COLFS_ECORRUPT);
	/* a huge block size */
	const uint8_t hugeblock[] = { 0x80, 0x80, 0x80, 0x80, 0x10, 0x04, 0x02,
				      0x00 };
	colfs_cursor_init(&c, hugeblock, sizeof(hugeblock), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 2, &err), COLFS_ECORRUPT);
	/* miniblock width 65 */
	const uint8_t w65[] = { 0x80, 0x01, 0x04, 0x03, 0x00, 0x00,
				65, 0, 0, 0, 0xff, 0xff };
	colfs_cursor_init(&c, w65, sizeof(w65), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 3, &err), COLFS_ECORRUPT);
	/* width 33 in INT32 data, as DuckDB 1.5 writes it (64-bit deltas):
	 * first value 0, min delta -1, all packed deltas 0: 0, -1, -2 */
	uint8_t w33[10 + 33 * 4] = { 0x80, 0x01, 0x04, 0x03, 0x00, 0x01,
				     33, 0, 0, 0 };
	colfs_cursor_init(&c, w33, sizeof(w33), BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 3, &err), COLFS_OK);
	colfs_cursor_init(&c, w33, sizeof(w33), BASE);
	assert_int_equal(pq_delta_decode_i32(&c, o32, 3, &err), COLFS_OK);
	assert_int_equal(o32[0], 0);
	assert_int_equal(o32[1], -1);
	assert_int_equal(o32[2], -2);
	/* the block header is missing */
	colfs_cursor_init(&c, w33, 5, BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 3, &err), COLFS_ETRUNCATED);
	/* truncated miniblock widths */
	colfs_cursor_init(&c, w33, 8, BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 3, &err), COLFS_ETRUNCATED);
	/* truncated header */
	colfs_cursor_init(&c, w33, 2, BASE);
	assert_int_equal(pq_delta_decode_i64(&c, o, 3, &err), COLFS_ETRUNCATED);
}

/* ---- byte-array deltas ---------------------------------------------------- */

static void test_dlba_dba(void **state)
{
	(void)state;
	/* Encodings.md: "Hello", "World", "Foobar", "ABCDEF" */
	const char *s[] = { "Hello", "World", "Foobar", "ABCDEF" };
	int64_t lens[] = { 5, 5, 6, 6 };
	wbuf w = { 0 };
	pq_bytes v[4];
	colfs_cursor c;
	colfs_err err;
	uint8_t *arena;

	enc_delta(&w, lens, 4, 128, 4);
	w_put(&w, "HelloWorldFoobarABCDEF", 22);
	cur(&c, &w);
	assert_int_equal(pq_dlba_decode(&c, v, 4, &err), COLFS_OK);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(v[i].len, strlen(s[i]));
		assert_memory_equal(v[i].ptr, s[i], v[i].len);
	}
	assert_int_equal(colfs_cursor_left(&c), 0);
	colfs_cursor_init(&c, w.p, w.len - 1, BASE);
	assert_int_equal(pq_dlba_decode(&c, v, 4, &err), COLFS_ETRUNCATED);
	w_free(&w);
	/* negative length */
	int64_t neg[] = { 5, -1 };
	enc_delta(&w, neg, 2, 128, 4);
	w_put(&w, "HelloWorld", 10);
	cur(&c, &w);
	assert_int_equal(pq_dlba_decode(&c, v, 2, &err), COLFS_ECORRUPT);
	w_free(&w);

	/* Encodings.md: "axis", "axle", "babble", "babyhood" */
	const char *t[] = { "axis", "axle", "babble", "babyhood" };
	int64_t pre[] = { 0, 2, 0, 3 }, suf[] = { 4, 2, 6, 5 };
	enc_delta(&w, pre, 4, 128, 4);
	enc_delta(&w, suf, 4, 128, 4);
	w_put(&w, "axislebabbleyhood", 17);
	cur(&c, &w);
	assert_int_equal(pq_dba_decode(&c, v, 4, 1 << 20, &arena, &err),
			 COLFS_OK);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(v[i].len, strlen(t[i]));
		assert_memory_equal(v[i].ptr, t[i], v[i].len);
	}
	assert_int_equal(colfs_cursor_left(&c), 0);
	free(arena);
	/* the byte cap */
	cur(&c, &w);
	assert_int_equal(pq_dba_decode(&c, v, 4, 20, &arena, &err),
			 COLFS_EOVERFLOW);
	assert_null(arena);
	w_free(&w);
	/* a prefix longer than the previous value */
	int64_t badpre[] = { 0, 5 }, badsuf[] = { 4, 1 };
	enc_delta(&w, badpre, 2, 128, 4);
	enc_delta(&w, badsuf, 2, 128, 4);
	w_put(&w, "axisz", 5);
	cur(&c, &w);
	assert_int_equal(pq_dba_decode(&c, v, 2, 1 << 20, &arena, &err),
			 COLFS_ECORRUPT);
	assert_null(arena);
	w_free(&w);
	/* quadratic growth stays under the cap: 2000 values each 1000 bytes
	 * built from a 1000-byte first value */
	int64_t gp[2000], gs[2000];
	for (int i = 0; i < 2000; i++) {
		gp[i] = i ? 1000 : 0;
		gs[i] = i ? 0 : 1000;
	}
	enc_delta(&w, gp, 2000, 128, 4);
	enc_delta(&w, gs, 2000, 128, 4);
	uint8_t first[1000];
	memset(first, 'q', sizeof(first));
	w_put(&w, first, 1000);
	pq_bytes *many = malloc(2000 * sizeof(*many));
	cur(&c, &w);
	assert_int_equal(pq_dba_decode(&c, many, 2000, 1 << 20, &arena, &err),
			 COLFS_EOVERFLOW);
	cur(&c, &w);
	assert_int_equal(pq_dba_decode(&c, many, 2000, 4 << 20, &arena, &err),
			 COLFS_OK);
	assert_int_equal(many[1999].len, 1000);
	assert_int_equal(many[1999].ptr[999], 'q');
	free(arena);
	free(many);
	w_free(&w);

	/* random round trip of DBA */
	srand(8);
	for (int iter = 0; iter < 50; iter++) {
		size_t n = (size_t)(rand() % 500);
		char (*vals)[24] = malloc((n + 1) * 24);
		int64_t *pl = malloc((n + 1) * 8), *sl = malloc((n + 1) * 8);
		wbuf data = { 0 };
		size_t prevlen = 0;
		for (size_t i = 0; i < n; i++) {
			size_t len = (size_t)(rand() % 24);
			size_t p = prevlen ? (size_t)rand() % (prevlen + 1) : 0;
			if (p > len)
				p = len;
			if (i)
				memcpy(vals[i], vals[i - 1], p);
			for (size_t k = p; k < len; k++)
				vals[i][k] = (char)('a' + rand() % 3);
			pl[i] = (int64_t)p;
			sl[i] = (int64_t)(len - p);
			w_put(&data, vals[i] + p, len - p);
			prevlen = len;
		}
		enc_delta(&w, pl, n, 128, 4);
		enc_delta(&w, sl, n, 256, 2);
		w_put(&w, data.p, data.len);
		pq_bytes *out = malloc((n + 1) * sizeof(*out));
		cur(&c, &w);
		assert_int_equal(pq_dba_decode(&c, out, n, 1 << 20, &arena,
					       &err), COLFS_OK);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(out[i].len, pl[i] + sl[i]);
			assert_memory_equal(out[i].ptr, vals[i], out[i].len);
		}
		free(arena);
		free(out);
		free(vals);
		free(pl);
		free(sl);
		w_free(&data);
		w_free(&w);
	}
}

/* Every prefix of every encoding's valid input must fail cleanly or
 * succeed, never read outside (ASan watches the copies). */
static void test_truncated_everywhere(void **state)
{
	(void)state;
	int64_t v[300];
	uint32_t u[300], o[300];
	int64_t o64[300];
	pq_bytes views[300];
	wbuf w = { 0 };
	colfs_err err;
	colfs_cursor c;
	uint8_t *arena;

	srand(9);
	for (int i = 0; i < 300; i++) {
		v[i] = (int64_t)(rnd64() >> (rand() % 64));
		u[i] = (uint32_t)(rand() % 1000);
	}
	enc_delta(&w, v, 300, 128, 4);
	for (size_t cut = 0; cut < w.len; cut++) {
		uint8_t *copy = malloc(cut + 1);
		memcpy(copy, w.p, cut);
		colfs_cursor_init(&c, copy, cut, BASE);
		colfs_status st = pq_delta_decode_i64(&c, o64, 300, &err);
		if (st == COLFS_OK)     /* only the last padding was cut */
			assert_memory_equal(o64, v, sizeof(v));
		else
			assert_true(err.offset >= BASE &&
				    err.offset <= BASE + cut);
		free(copy);
	}
	w_free(&w);
	enc_hybrid(&w, u, 300, 10);
	for (size_t cut = 0; cut < w.len; cut++) {
		uint8_t *copy = malloc(cut + 1);
		memcpy(copy, w.p, cut);
		colfs_cursor_init(&c, copy, cut, BASE);
		(void)pq_rle_decode(&c, 10, o, 300, &err);
		colfs_cursor_init(&c, copy, cut, BASE);
		(void)pq_dict_indices_decode(&c, o, 300, 500, &err);
		colfs_cursor_init(&c, copy, cut, BASE);
		(void)pq_dlba_decode(&c, views, 300, &err);
		colfs_cursor_init(&c, copy, cut, BASE);
		if (pq_dba_decode(&c, views, 300, 1 << 20, &arena, &err) ==
		    COLFS_OK)
			free(arena);
		colfs_cursor_init(&c, copy, cut, BASE);
		(void)pq_plain_decode_bytes(&c, views, 300, &err);
		free(copy);
	}
	w_free(&w);
	/* random garbage through every decoder */
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = (size_t)(rand() % 64);
		uint8_t *g = malloc(len + 1);
		for (size_t i = 0; i < len; i++)
			g[i] = (uint8_t)(rand() % 4 ? rand() : (rand() % 2 ? 0 : 0xff));
		size_t n = (size_t)(rand() % 300);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_rle_decode(&c, (unsigned)(rand() % 34), o, n, &err);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_rle_decode_prefixed(&c, (unsigned)(rand() % 33), o, n,
					     &err);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_bitpacked_decode(&c, (unsigned)(rand() % 33), o, n,
					  &err);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_dict_indices_decode(&c, o, n, (uint32_t)rand() % 100,
					     &err);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_delta_decode_i64(&c, o64, n, &err);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_delta_decode_i32(&c, (int32_t *)o, n, &err);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_dlba_decode(&c, views, n, &err);
		colfs_cursor_init(&c, g, len, BASE);
		if (pq_dba_decode(&c, views, n, 1 << 16, &arena, &err) ==
		    COLFS_OK)
			free(arena);
		colfs_cursor_init(&c, g, len, BASE);
		(void)pq_plain_decode_bytes(&c, views, n, &err);
		free(g);
	}
}

/* ---- the page dispatch --------------------------------------------------- */

static void test_values_dispatch(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	pq_values v;
	wbuf w = { 0 };

	/* PLAIN INT32 */
	for (uint32_t i = 0; i < 10; i++)
		w_u32le(&w, i * 3);
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 1, 0, 0, 10, 0, 1 << 20, &v, &err),
			 COLFS_OK);
	assert_false(v.indices);
	assert_int_equal(v.v.i32[9], 27);
	pq_values_free(&v);
	/* the allocation cap */
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 1, 0, 0, 10, 0, 39, &v, &err),
			 COLFS_EOVERFLOW);
	assert_null(v.v.any);
	/* PLAIN FLBA(4) and INT96 views */
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 7, 4, 0, 10, 0, 1 << 20, &v, &err),
			 COLFS_OK);
	assert_int_equal(v.v.bytes[1].len, 4);
	assert_int_equal(v.v.bytes[1].ptr[0], 3);
	pq_values_free(&v);
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 3, 0, 0, 3, 0, 1 << 20, &v, &err),
			 COLFS_OK);
	assert_int_equal(v.v.bytes[2].len, 12);
	pq_values_free(&v);
	/* FLBA without a length */
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 7, 0, 0, 1, 0, 1 << 20, &v, &err),
			 COLFS_ECORRUPT);
	/* BYTE_STREAM_SPLIT FLBA(5) */
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 7, 5, 9, 8, 0, 1 << 20, &v, &err),
			 COLFS_OK);
	assert_int_equal(v.v.bytes[0].ptr[0], w.p[0]);
	assert_int_equal(v.v.bytes[0].ptr[1], w.p[8]);
	assert_int_equal(v.v.bytes[1].ptr[4], w.p[33]);
	pq_values_free(&v);
	/* encodings that do not fit the type */
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 1, 0, 4, 1, 0, 1 << 20, &v, &err),
			 COLFS_EUNSUPPORTED);
	assert_non_null(strstr(err.msg, "BIT_PACKED"));
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 5, 0, 5, 1, 0, 1 << 20, &v, &err),
			 COLFS_EUNSUPPORTED);
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 1, 0, 10, 1, 0, 1 << 20, &v, &err),
			 COLFS_EUNSUPPORTED);
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 9, 0, 0, 1, 0, 1 << 20, &v, &err),
			 COLFS_ECORRUPT);
	w_free(&w);

	/* RLE booleans (length-prefixed, width 1) */
	const uint8_t rb[] = { 3, 0, 0, 0, 0x05, 0x2d, 0x01 };
	colfs_cursor_init(&c, rb, sizeof(rb), BASE);
	assert_int_equal(pq_values_decode(&c, 0, 0, 3, 9, 0, 1 << 20, &v, &err),
			 COLFS_OK);
	const uint8_t want[] = { 1, 0, 1, 1, 0, 1, 0, 0, 1 };
	assert_memory_equal(v.v.b, want, 9);
	pq_values_free(&v);
	/* dictionary indices */
	const uint8_t di[] = { 0x02, 0x10, 0x03 };
	colfs_cursor_init(&c, di, sizeof(di), BASE);
	assert_int_equal(pq_values_decode(&c, 6, 0, 8, 8, 4, 1 << 20, &v, &err),
			 COLFS_OK);
	assert_true(v.indices);
	assert_int_equal(v.v.idx[7], 3);
	pq_values_free(&v);
	colfs_cursor_init(&c, di, sizeof(di), BASE);
	assert_int_equal(pq_values_decode(&c, 6, 0, 2, 8, 3, 1 << 20, &v, &err),
			 COLFS_EBOUNDS);
	/* DELTA_BYTE_ARRAY for FLBA(4): lengths must be 4 */
	int64_t pre[] = { 0, 2 }, suf[] = { 4, 2 };
	enc_delta(&w, pre, 2, 128, 4);
	enc_delta(&w, suf, 2, 128, 4);
	w_put(&w, "axisle", 6);
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 7, 4, 7, 2, 0, 1 << 20, &v, &err),
			 COLFS_OK);
	assert_memory_equal(v.v.bytes[1].ptr, "axle", 4);
	pq_values_free(&v);
	cur(&c, &w);
	assert_int_equal(pq_values_decode(&c, 7, 3, 7, 2, 0, 1 << 20, &v, &err),
			 COLFS_ECORRUPT);
	assert_null(v.owned);
	w_free(&w);
	pq_values_free(NULL);
}

static void test_levels(void **state)
{
	(void)state;
	uint32_t v[300], o[300];
	colfs_cursor c;
	colfs_err err;
	wbuf w = { 0 }, p = { 0 };

	srand(12);
	for (int i = 0; i < 300; i++)
		v[i] = (uint32_t)(rand() % 4);
	enc_hybrid(&w, v, 300, 2);
	w_u32le(&p, (uint32_t)w.len);
	w_put(&p, w.p, w.len);
	cur(&c, &p);
	assert_int_equal(pq_levels_decode_v1(&c, 3, 3, o, 300, &err), COLFS_OK);
	assert_memory_equal(v, o, sizeof(v));
	assert_int_equal(colfs_cursor_left(&c), 0);
	/* a level above the maximum */
	cur(&c, &p);
	assert_int_equal(pq_levels_decode_v1(&c, 3, 2, o, 300, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(err.offset, BASE);
	cur(&c, &w);
	assert_int_equal(pq_levels_decode_v2(&c, 3, o, 300, &err), COLFS_OK);
	assert_memory_equal(v, o, sizeof(v));
	/* max level 0 reads nothing */
	cur(&c, &w);
	o[5] = 9;
	assert_int_equal(pq_levels_decode_v1(&c, 3, 0, o, 300, &err), COLFS_OK);
	assert_int_equal(o[5], 0);
	assert_int_equal(colfs_cursor_left(&c), w.len);
	/* legacy BIT_PACKED */
	const uint8_t bp[] = { 0x05, 0x39, 0x77 };
	colfs_cursor_init(&c, bp, sizeof(bp), BASE);
	assert_int_equal(pq_levels_decode_v1(&c, 4, 7, o, 8, &err), COLFS_OK);
	assert_int_equal(o[7], 7);
	colfs_cursor_init(&c, bp, sizeof(bp), BASE);
	assert_int_equal(pq_levels_decode_v1(&c, 0, 7, o, 8, &err),
			 COLFS_EUNSUPPORTED);
	w_free(&w);
	w_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rle_round_trip_all_widths),
		cmocka_unit_test(test_rle_spec_example),
		cmocka_unit_test(test_bitpacked_legacy_spec_example),
		cmocka_unit_test(test_rle_malformed),
		cmocka_unit_test(test_dict_indices),
		cmocka_unit_test(test_plain_fixed_types),
		cmocka_unit_test(test_plain_bool),
		cmocka_unit_test(test_plain_byte_array),
		cmocka_unit_test(test_plain_in_page),
		cmocka_unit_test(test_bss),
		cmocka_unit_test(test_delta_round_trip),
		cmocka_unit_test(test_delta_spec_example),
		cmocka_unit_test(test_delta_malformed),
		cmocka_unit_test(test_dlba_dba),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_values_dispatch),
		cmocka_unit_test(test_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

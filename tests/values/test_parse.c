/* pq_text_to_plain (formats/parquet/decode/pq_parse.c), the inverse of
 * pq_render_value that bloom_filter/might_contain/<value> uses: for every
 * Parquet type a bloom filter can hold, random and edge values are
 * rendered, parsed back, and must give the stored PLAIN bytes again;
 * texts that are not a canonical rendering are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parquet/decode/pq_decode.h"
#include "../testrand.h"

static uint64_t rng = TESTRAND_SEED;

static uint64_t rnd(void)
{
	return testrand_next(&rng);
}

/* Render one PLAIN value of type t, parse it back, compare the bytes. */
static void roundtrip(const pq_type *t, const uint8_t *plain, size_t len)
{
	pq_values pv = {.physical_type = t->physical, .count = 1};
	int32_t i32;
	int64_t i64;
	float f32;
	double f64;
	pq_bytes by = {plain, (uint32_t)len};
	colfs_buf b = COLFS_BUF_INIT;
	uint8_t out[512];
	size_t got = 0;

	switch (t->physical) {
	case 1: memcpy(&i32, plain, 4); pv.v.i32 = &i32; break;
	case 2: memcpy(&i64, plain, 8); pv.v.i64 = &i64; break;
	case 4: memcpy(&f32, plain, 4); pv.v.f32 = &f32; break;
	case 5: memcpy(&f64, plain, 8); pv.v.f64 = &f64; break;
	default: pv.v.bytes = &by; break;
	}
	pq_render_value(&b, &colfs_render_text_default, t, &pv, 0);
	assert_false(b.failed);
	colfs_buf_putc(&b, '\0');
	if (!pq_text_to_plain(t, b.data, out, sizeof out, &got) ||
	    got != len || memcmp(out, plain, len)) {
		fprintf(stderr, "type %d/%d/%d: '%s' did not parse back "
			"(got %zu bytes, want %zu)\n", t->physical,
			t->logical, t->converted, b.data, got, len);
		fail();
	}
	colfs_buf_free(&b);
}

static pq_type ty(int32_t physical, int32_t logical, int32_t converted)
{
	pq_type t = {.physical = physical, .logical = logical,
		     .converted = converted, .type_length = -1};
	return t;
}

static void ints(const pq_type *t, bool is32, int mode)
{
	for (int i = 0; i < 3000; i++) {
		uint64_t v = rnd();
		uint8_t p[8];
		switch (i % 4) {
		case 0: v >>= rnd() % 64; break;
		case 1: v = (uint64_t)(-(int64_t)(v >> (rnd() % 64))); break;
		case 2: v = i < 8 ? (uint64_t[]){0, 1, (uint64_t)-1,
			INT64_MAX, (uint64_t)INT64_MIN, INT32_MAX,
			(uint64_t)INT32_MIN, UINT32_MAX}[i] : v; break;
		default: break;
		}
		if (mode == 1) /* a day count within +-9000 years */
			v = (uint64_t)((int64_t)(v % 6600000) - 3300000);
		if (mode == 2) /* a time of day */
			v %= is32 ? 86400000ull : 86400000000ull;
		for (int k = 0; k < 8; k++)
			p[k] = (uint8_t)(v >> (8 * k));
		roundtrip(t, p, is32 ? 4 : 8);
	}
}

static void test_integers(void **state)
{
	(void)state;
	pq_type t = ty(1, 0, -1);
	ints(&t, true, 0);
	t = ty(2, 0, -1);
	ints(&t, false, 0);
	t = ty(1, 10, -1);          /* INT(32, false) */
	t.is_signed = false;
	t.bit_width = 32;
	ints(&t, true, 0);
	t = ty(2, 0, 14);           /* UINT_64 */
	ints(&t, false, 0);
	t = ty(1, 5, -1);           /* DECIMAL(9, 3) */
	t.scale = 3;
	ints(&t, true, 0);
	t = ty(2, 0, 5);            /* converted DECIMAL(18, 6) */
	t.scale = 6;
	ints(&t, false, 0);
}

static void test_dates_times(void **state)
{
	(void)state;
	pq_type t = ty(1, 6, -1);   /* DATE */
	ints(&t, true, 1);
	for (int unit = 1; unit <= 3; unit++) {
		for (int utc = 0; utc < 2; utc++) {
			t = ty(unit == 1 ? 1 : 2, 7, -1);   /* TIME */
			t.unit = unit;
			t.utc = utc;
			ints(&t, unit == 1, 2);
			t = ty(2, 8, -1);                    /* TIMESTAMP */
			t.unit = unit;
			t.utc = utc;
			ints(&t, false, 0);
		}
	}
	t = ty(2, 0, 10);           /* TIMESTAMP_MICROS */
	ints(&t, false, 0);
	t = ty(1, 0, 7);            /* TIME_MILLIS */
	ints(&t, true, 2);
}

static void test_floats(void **state)
{
	(void)state;
	pq_type tf = ty(4, 0, -1), td = ty(5, 0, -1);
	for (int i = 0; i < 5000; i++) {
		uint64_t v = rnd();
		uint8_t p[8];
		for (int k = 0; k < 8; k++)
			p[k] = (uint8_t)(v >> (8 * k));
		/* NaNs have many bit patterns and render as one text */
		uint32_t u32 = (uint32_t)v;
		if ((u32 & 0x7f800000) != 0x7f800000 || !(u32 & 0x7fffff))
			roundtrip(&tf, p, 4);
		if ((v & 0x7ff0000000000000ull) != 0x7ff0000000000000ull ||
		    !(v & 0xfffffffffffffull))
			roundtrip(&td, p, 8);
	}
	pq_type th = ty(7, 15, -1); /* FLOAT16 */
	th.type_length = 2;
	for (uint32_t h = 0; h < 65536; h++) {
		uint8_t p[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
			continue;   /* NaN payloads */
		roundtrip(&th, p, 2);
	}
}

static void test_bytes(void **state)
{
	(void)state;
	pq_type str = ty(6, 1, -1), bin = ty(6, 0, -1);
	pq_type uuid = ty(7, 14, -1), ivl = ty(7, 0, 21), i96 = ty(3, 0, -1);
	pq_type dfl = ty(7, 5, -1), dba = ty(6, 5, -1);
	uuid.type_length = 16;
	ivl.type_length = 12;
	dfl.type_length = 16;
	dfl.scale = 10;
	dba.scale = 2;
	for (int i = 0; i < 3000; i++) {
		uint8_t p[40];
		size_t n = rnd() % 40;
		for (size_t k = 0; k < 40; k++)
			p[k] = (uint8_t)(i % 3 ? rnd() : 'a' + rnd() % 26);
		roundtrip(&bin, p, n);
		if (i % 3 == 0 || i % 7 == 0)
			roundtrip(&str, p, n);
		roundtrip(&uuid, p, 16);
		/* INTERVAL: months, days, millis */
		roundtrip(&ivl, p, 12);
		/* INT96 within Spark's exact range: day within +-9000 years */
		int64_t nod = (int64_t)(rnd() % 86400000000000ull);
		int32_t jd = (int32_t)(2440588 + (int64_t)(rnd() % 6600000) -
				       3300000);
		for (int k = 0; k < 8; k++)
			p[k] = (uint8_t)((uint64_t)nod >> (8 * k));
		for (int k = 0; k < 4; k++)
			p[8 + k] = (uint8_t)((uint32_t)jd >> (8 * k));
		roundtrip(&i96, p, 12);
		/* DECIMAL(38, 10) on FLBA(16): any 16 bytes */
		for (int k = 0; k < 16; k++)
			p[k] = (uint8_t)rnd();
		if (i % 5 == 0)
			memset(p, p[0] & 0x80 ? 0xff : 0, 10);
		roundtrip(&dfl, p, 16);
		/* DECIMAL on BYTE_ARRAY: minimal two's complement bytes */
		n = 1 + rnd() % 20;
		if (n > 1 && ((p[0] == 0 && !(p[1] & 0x80)) ||
			      (p[0] == 0xff && (p[1] & 0x80))))
			p[0] ^= 0x40;
		roundtrip(&dba, p, n);
	}
}

/* Texts that are no rendering of the type are refused. */
static void test_refused(void **state)
{
	(void)state;
	uint8_t out[64];
	size_t n;
	pq_type t = ty(1, 0, -1), d = ty(1, 6, -1), ts = ty(2, 8, -1);
	pq_type tm = ty(2, 7, -1), boo = ty(0, 0, -1), ivl = ty(7, 0, 21);
	pq_type uuid = ty(7, 14, -1), dec = ty(2, 5, -1);
	ts.unit = 2;
	ts.utc = true;
	tm.unit = 2;
	uuid.type_length = 16;
	ivl.type_length = 12;
	dec.scale = 2;
	const struct { pq_type *t; const char *s; } bad[] = {
		{&t, ""}, {&t, "+1"}, {&t, "007"}, {&t, "2147483648"},
		{&t, "-2147483649"}, {&t, "1.0"}, {&t, " 1"},
		{&d, "2021-02-30"}, {&d, "2021-2-03"}, {&d, "21-02-03"},
		{&d, "2021-02-03 "}, {&d, "0000-01-01"},
		{&ts, "2021-01-01 00:00:00"}, /* no +00 on an instant */
		{&ts, "2021-01-01 24:00:00+00"},
		{&ts, "2021-01-01 00:00:00.1234567+00"}, /* below micros */
		{&ts, "2021-01-01 00:00:00.500+00"},     /* not canonical */
		{&tm, "25:00:0"}, {&tm, "12:60:00"}, {&tm, "12:00:00+00"},
		{&boo, "true"}, {&ivl, "1 years"}, {&ivl, "13 months"},
		{&ivl, "2 day"}, {&uuid, "550e8400e29b41d4a716446655440000"},
		{&uuid, "550E8400-E29B-41D4-A716-446655440000"},
		{&dec, "1.5"}, {&dec, "1.500"}, {&dec, "1"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (pq_text_to_plain(bad[i].t, bad[i].s, out, sizeof out, &n)) {
			fprintf(stderr, "accepted '%s'\n", bad[i].s);
			fail();
		}
	}
	/* and a few canonical ones are taken, with the bytes expected */
	assert_true(pq_text_to_plain(&d, "1970-01-02", out, sizeof out, &n));
	assert_int_equal(n, 4);
	assert_int_equal(out[0], 1);
	assert_true(pq_text_to_plain(&d, "0001-12-31 (BC)", out, sizeof out,
				     &n));
	assert_true(pq_text_to_plain(&ts, "1970-01-01 00:00:00.000001+00", out,
				     sizeof out, &n));
	assert_int_equal(n, 8);
	assert_int_equal(out[0], 1);
	assert_true(pq_text_to_plain(&ivl, "1 year 2 months 3 days 04:05:06.007",
				     out, sizeof out, &n));
	assert_int_equal(out[0], 14);
	assert_int_equal(out[4], 3);
	assert_int_equal(out[8] | out[9] << 8 | out[10] << 16,
			 ((4 * 60 + 5) * 60 + 6) * 1000 + 7);
	/* output too small for the FLBA width: refused, not overrun */
	assert_false(pq_text_to_plain(&uuid,
				      "550e8400-e29b-41d4-a716-446655440000",
				      out, 8, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_dates_times),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

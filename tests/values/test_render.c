/* tests/values: rendering rules of formats/core/render.c, with the
 * expected strings taken from DuckDB 1.5 (CAST(x AS VARCHAR)). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "core/render.h"

static colfs_buf out;
static const colfs_render *T = &colfs_render_text_default;
static const colfs_render *J = &colfs_render_json_default;

static const char *take(void)
{
	static char s[4096];
	assert_int_equal(colfs_buf_status(&out), COLFS_OK);
	assert_true(out.len < sizeof(s));
	memcpy(s, out.data ? out.data : "", out.len);
	s[out.len] = 0;
	out.len = 0;
	return s;
}

#define EXPECT(call, str)                                                   \
	do {                                                                \
		call;                                                       \
		assert_string_equal(take(), str);                           \
	} while (0)

static void test_render_null_bool_ints(void **state)
{
	(void)state;
	colfs_render custom = { .null_token = "NULL" };
	EXPECT(colfs_render_null(&out, T), "\\N");
	EXPECT(colfs_render_null(&out, &custom), "NULL");
	EXPECT(colfs_render_null(&out, J), "null");
	EXPECT(colfs_render_bool(&out, T, true), "true");
	EXPECT(colfs_render_bool(&out, J, false), "false");
	EXPECT(colfs_render_i64(&out, T, INT64_MIN), "-9223372036854775808");
	EXPECT(colfs_render_i64(&out, T, 0), "0");
	EXPECT(colfs_render_i64(&out, T, -42), "-42");
	EXPECT(colfs_render_u64(&out, T, UINT64_MAX), "18446744073709551615");
}

/* colfs_i64_len, which sizes a piece of integers before it is rendered
 * (parquet_views.c), counts exactly what colfs_put_i64 writes: at every
 * power of ten and either side of it, both signs, and the extremes. */
static void test_render_int_lengths(void **state)
{
	(void)state;
	char buf[32];
	int64_t edge[] = { 0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
		assert_int_equal(colfs_i64_len(edge[i]),
				 colfs_put_i64(buf, edge[i]) - buf);
	for (int64_t p = 1, d = 1; d <= 18; p *= 10, d++)
		for (int64_t v = p - 1; v <= p + 1; v++) {
			assert_int_equal(colfs_i64_len(v),
					 colfs_put_i64(buf, v) - buf);
			assert_int_equal(colfs_i64_len(-v),
					 colfs_put_i64(buf, -v) - buf);
		}
	assert_int_equal(colfs_u64_digits(UINT64_MAX), 20);
	assert_int_equal(colfs_u64_digits(10000000000000000000ull), 20);
	assert_int_equal(colfs_u64_digits(9999999999999999999ull), 19);
}

/* The eight-digits-at-a-time writers give the bytes of the exact ones:
 * every length, both sides of each power of ten, the extremes, and a
 * pseudo-random sweep; colfs_digits8 for every value below 10^6 and
 * around every multiple of 10^6 below 10^8. */
static void check_wide(uint64_t u)
{
	char a[32], w[48];
	char *ea = colfs_put_u64(a, u), *ew = colfs_put_u64_wide(w, u);

	assert_int_equal(ea - a, ew - w);
	assert_memory_equal(a, w, (size_t)(ea - a));
	ea = colfs_put_i64(a, (int64_t)u);
	ew = colfs_put_i64_wide(w, (int64_t)u);
	assert_int_equal(ea - a, ew - w);
	assert_memory_equal(a, w, (size_t)(ea - a));
}

static void test_render_int_wide(void **state)
{
	(void)state;
	uint64_t x = 0x9E3779B97F4A7C15ull;

	check_wide(0);
	check_wide(UINT64_MAX);
	check_wide((uint64_t)INT64_MAX);
	check_wide((uint64_t)INT64_MIN);
	for (uint64_t p = 1, d = 1; d <= 19; p *= 10, d++)
		for (uint64_t v = p - 1; v <= p + 1; v++) {
			check_wide(v);
			check_wide(0 - v);
		}
	for (int i = 0; i < 200000; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t r = x * 0x2545F4914F6CDD1Dull;
		check_wide(r >> (r % 64));
	}
	for (uint32_t v = 0; v < 100000000; v += v < 1000000 ? 1 : 999999) {
		char a[16];
		uint64_t z = colfs_digits8(v) | COLFS_ASCII_ZEROS8;
		snprintf(a, sizeof a, "%08u", v);
		assert_memory_equal(a, &z, 8);
	}
}

/* colfs_render_text_is_plain agrees with colfs_render_text_plain for
 * every byte at every position of strings of 1 to 19 bytes. */
static void test_render_text_is_plain(void **state)
{
	(void)state;
	uint8_t s[24];

	for (size_t n = 1; n < 20; n++)
		for (size_t at = 0; at < n; at++)
			for (unsigned c = 0; c < 256; c++) {
				for (size_t i = 0; i < n; i++)
					s[i] = (uint8_t)('a' + i);
				s[at] = (uint8_t)c;
				assert_int_equal(colfs_render_text_is_plain(s, n),
						 colfs_render_text_plain[c]);
			}
}

static void test_render_double_duckdb_forms(void **state)
{
	(void)state;
	EXPECT(colfs_render_double(&out, T, 1e21), "1e+21");
	EXPECT(colfs_render_double(&out, T, 1e16), "1e+16");
	EXPECT(colfs_render_double(&out, T, 1e15), "1000000000000000.0");
	EXPECT(colfs_render_double(&out, T, 123456789012345678.0),
	       "1.2345678901234568e+17");
	EXPECT(colfs_render_double(&out, T, 0.1), "0.1");
	EXPECT(colfs_render_double(&out, T, 1e-5), "1e-05");
	EXPECT(colfs_render_double(&out, T, 0.0001), "0.0001");
	EXPECT(colfs_render_double(&out, T, 100), "100.0");
	EXPECT(colfs_render_double(&out, T, NAN), "nan");
	EXPECT(colfs_render_double(&out, T, INFINITY), "inf");
	EXPECT(colfs_render_double(&out, T, -INFINITY), "-inf");
	EXPECT(colfs_render_double(&out, J, -INFINITY), "\"-inf\"");
	EXPECT(colfs_render_double(&out, T, -0.0), "-0.0");
	EXPECT(colfs_render_double(&out, T, 5e-324), "5e-324");
	EXPECT(colfs_render_double(&out, T, 1.7976931348623157e308),
	       "1.7976931348623157e+308");
	EXPECT(colfs_render_double(&out, T, 1e-7), "1e-07");
	EXPECT(colfs_render_double(&out, T, 123.456), "123.456");
	EXPECT(colfs_render_double(&out, T, 1e100), "1e+100");
	EXPECT(colfs_render_double(&out, T, 1.0 / 3), "0.3333333333333333");
	EXPECT(colfs_render_double(&out, T, -2.5), "-2.5");
	EXPECT(colfs_render_double(&out, T, 12345678901234567.0),
	       "1.2345678901234568e+16");
	/* powers of two: the interval below is half as wide (DuckDB 1.5) */
	EXPECT(colfs_render_double(&out, T, ldexp(1, -44)),
	       "5.684341886080802e-14");
	EXPECT(colfs_render_double(&out, T, ldexp(1, -24)),
	       "5.960464477539063e-08");
	EXPECT(colfs_render_double(&out, T, ldexp(1, -60)),
	       "8.673617379884035e-19");
	EXPECT(colfs_render_double(&out, T, ldexp(1, 60)),
	       "1.152921504606847e+18");
	EXPECT(colfs_render_double(&out, T, ldexp(1, 100)),
	       "1.2676506002282294e+30");
	EXPECT(colfs_render_double(&out, T, ldexp(1, -1000)),
	       "9.332636185032189e-302");
	EXPECT(colfs_render_double(&out, T, ldexp(1, 54)),
	       "1.8014398509481984e+16");
	EXPECT(colfs_render_double(&out, T, 9007199254740993.0),
	       "9007199254740992.0");
	EXPECT(colfs_render_double(&out, T, 1.5e300), "1.5e+300");
	EXPECT(colfs_render_double(&out, T, 123456.789e-20), "1.23456789e-15");
	EXPECT(colfs_render_double(&out, J, 100), "100.0");
	EXPECT(colfs_render_double(&out, J, NAN), "\"nan\"");
}

static void test_render_float_duckdb_forms(void **state)
{
	(void)state;
	EXPECT(colfs_render_float(&out, T, 0.1f), "0.1");
	EXPECT(colfs_render_float(&out, T, 1e21f), "1e+21");
	EXPECT(colfs_render_float(&out, T, 16777216.0f), "16777216.0");
	EXPECT(colfs_render_float(&out, T, 1.5e-45f), "1e-45");
	EXPECT(colfs_render_float(&out, T, 3.4028235e38f), "3.4028235e+38");
	EXPECT(colfs_render_float(&out, T, 2.0f / 3), "0.6666667");
	EXPECT(colfs_render_float16(&out, T, 0x3c00), "1.0");
	EXPECT(colfs_render_float16(&out, T, 0xc000), "-2.0");
	EXPECT(colfs_render_float16(&out, T, 0x7c00), "inf");
	EXPECT(colfs_render_float16(&out, T, 0x7e00), "nan");
	EXPECT(colfs_render_float16(&out, T, 0x0001), "5.9604645e-08");
	EXPECT(colfs_render_float16(&out, T, 0x7bff), "65504.0");
	EXPECT(colfs_render_float16(&out, T, 0x3555), "0.33325195");
	EXPECT(colfs_render_float(&out, T, ldexpf(1, -44)), "5.684342e-14");
	EXPECT(colfs_render_float(&out, T, ldexpf(1, -24)), "5.9604645e-08");
	EXPECT(colfs_render_float(&out, T, ldexpf(1, -70)), "8.4703295e-22");
	EXPECT(colfs_render_float(&out, T, ldexpf(1, -130)), "7.34684e-40");
	EXPECT(colfs_render_float(&out, T, ldexpf(1, 90)), "1.2379401e+27");
}

/* Significant digits of a rendered number (without trailing zeros). */
static int sig_digits(const char *s)
{
	int n = 0, last = 0;
	bool started = false;

	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (*s != '0' || started) {
			started = true;
			n++;
			if (*s != '0')
				last = n;
		}
	}
	return last;
}

/* Against an independent reference: the fewest digits p for which the
 * correctly rounded p-digit decimal reads back.  Ours must read back, have
 * at most p digits, and when it has p digits, be that decimal.  (Below a
 * power of two ours can be shorter: the reference only rounds to
 * nearest.) */
static void check_shortest(double d, bool is_float)
{
	char ref[48], again[48];
	int p;

	if (is_float)
		colfs_render_float(&out, T, (float)d);
	else
		colfs_render_double(&out, T, d);
	const char *s = take();
	if (d == 0 || !isfinite(d))
		return;
	for (p = 1; p <= 17; p++) {
		snprintf(ref, sizeof(ref), "%.*e", p - 1, d);
		if (is_float ? strtof(ref, NULL) == (float)d :
			       strtod(ref, NULL) == d)
			break;
	}
	if (is_float)
		assert_true(strtof(s, NULL) == (float)d);
	else
		assert_true(strtod(s, NULL) == d);
	int n = sig_digits(s);
	if (n > p)
		fail_msg("%s has %d digits, %s only %d", s, n, ref, p);
	if (n == p) {
		snprintf(again, sizeof(again), "%.*e", p - 1, strtod(s, NULL));
		assert_string_equal(again, ref);
	}
}

static void test_render_float_shortest_reference(void **state)
{
	(void)state;
	srand(11);
	for (int i = 0; i < 15000; i++) {
		uint64_t u = (uint64_t)rand() << 62 ^ (uint64_t)rand() << 31 ^
			     (uint64_t)rand();
		double d;
		memcpy(&d, &u, 8);
		check_shortest(d, false);
		check_shortest(ldexp((double)(u >> 11), rand() % 120 - 110),
			       false);
		check_shortest((double)(int64_t)(u % 2000000000) /
				       pow(10, rand() % 12), false);
		check_shortest((double)(u % 100000) / 100.0, false);
		float f;
		uint32_t v = (uint32_t)u;
		memcpy(&f, &v, 4);
		check_shortest(f, true);
		check_shortest((float)(u % 100000) / 100.0f, true);
	}
	for (int e = -1074; e < 1024; e++)
		check_shortest(ldexp(1.0, e), false);
	for (int e = -149; e < 128; e++)
		check_shortest(ldexpf(1.0f, e), true);
	for (int e = -20; e < 22; e++) {
		check_shortest(pow(10, e), false);
		check_shortest(nextafter(pow(10, e), 0), false);
		check_shortest(nextafter(pow(10, e), 1e300), false);
		check_shortest((float)pow(10, e), true);
	}
}

/* Every double must read back to itself. */
static void test_render_double_round_trip_random(void **state)
{
	(void)state;
	srand(7);
	for (int i = 0; i < 200000; i++) {
		uint64_t bits = (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^
				(uint64_t)rand();
		double d;
		memcpy(&d, &bits, 8);
		if (!isfinite(d))
			continue;
		colfs_render_double(&out, T, d);
		const char *s = take();
		assert_true(strtod(s, NULL) == d);
		float f;
		uint32_t fb = (uint32_t)bits;
		memcpy(&f, &fb, 4);
		if (!isfinite(f))
			continue;
		colfs_render_float(&out, T, f);
		s = take();
		assert_true(strtof(s, NULL) == f);
	}
}

static void test_render_strings(void **state)
{
	(void)state;
	const uint8_t s1[] = "a\\b\nc\rd\te\x01\x7f\xc3\xa9\xff\xe2\x82";
	EXPECT(colfs_render_string(&out, T, s1, sizeof(s1) - 1),
	       "a\\\\b\\nc\\rd\\te\\x01\\x7F\xc3\xa9\\xFF\\xE2\\x82");
	EXPECT(colfs_render_string(&out, J, s1, sizeof(s1) - 1),
	       "\"a\\\\b\\nc\\rd\\te\\u0001\x7f\xc3\xa9\\\\xFF\\\\xE2\\\\x82\"");
	const uint8_t overlong[] = "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80";
	EXPECT(colfs_render_string(&out, T, overlong, sizeof(overlong) - 1),
	       "\\xC0\\xAF\\xED\\xA0\\x80\\xF4\\x90\\x80\\x80");
	const uint8_t emoji[] = "\xf0\x9f\x98\x80\"";
	EXPECT(colfs_render_string(&out, T, emoji, sizeof(emoji) - 1),
	       "\xf0\x9f\x98\x80\"");
	EXPECT(colfs_render_string(&out, J, emoji, sizeof(emoji) - 1),
	       "\"\xf0\x9f\x98\x80\\\"\"");
	EXPECT(colfs_render_string(&out, T, (const uint8_t *)"", 0), "");
	/* DuckDB's to_json: upper-case \u escapes, DEL and / kept */
	const uint8_t ctl[] = "a/b\x7f\x1f\x08\x0c\"";
	EXPECT(colfs_render_string(&out, J, ctl, sizeof(ctl) - 1),
	       "\"a/b\x7f\\u001F\\b\\f\\\"\"");
	/* a string that reads \N is not the null token */
	EXPECT(colfs_render_string(&out, T, (const uint8_t *)"\\N", 2),
	       "\\\\N");
}

static void test_render_binary_as_duckdb_blob(void **state)
{
	(void)state;
	/* unhex('00415C0AFF2027227E7F61') */
	const uint8_t b[] = { 0x00, 0x41, 0x5c, 0x0a, 0xff, 0x20, 0x27, 0x22,
			      0x7e, 0x7f, 0x61 };
	EXPECT(colfs_render_binary(&out, T, b, sizeof(b)),
	       "\\x00A\\x5C\\x0A\\xFF \\x27\\x22~\\x7Fa");
	EXPECT(colfs_render_binary(&out, J, b, 2), "\"\\\\x00A\"");
}

static void test_render_decimal(void **state)
{
	(void)state;
	EXPECT(colfs_render_decimal_i64(&out, T, 150, 2), "1.50");
	EXPECT(colfs_render_decimal_i64(&out, T, -5, 2), "-0.05");
	EXPECT(colfs_render_decimal_i64(&out, T, 0, 3), "0.000");
	EXPECT(colfs_render_decimal_i64(&out, T, 7, 0), "7");
	EXPECT(colfs_render_decimal_i64(&out, T, 7, -2), "700");
	EXPECT(colfs_render_decimal_i64(&out, T, INT64_MIN, 18),
	       "-9.223372036854775808");
	/* 12345678901234567890.123456789 as decimal(38,9) in 16 bytes */
	const uint8_t big[16] = { 0x00, 0x00, 0x00, 0x00, 0x27, 0xe4, 0x1b,
				  0x32, 0x46, 0xbe, 0xc9, 0xb1, 0x6e, 0x39,
				  0x81, 0x15 };
	EXPECT(colfs_render_decimal_be(&out, T, big, 16, 9),
	       "12345678901234567890.123456789");
	uint8_t negbig[16];
	/* two's complement negation */
	int carry = 1;
	for (int i = 15; i >= 0; i--) {
		int v = (uint8_t)~big[i] + carry;
		negbig[i] = (uint8_t)v;
		carry = v >> 8;
	}
	EXPECT(colfs_render_decimal_be(&out, T, negbig, 16, 9),
	       "-12345678901234567890.123456789");
	const uint8_t m1[3] = { 0xff, 0xff, 0xff };
	EXPECT(colfs_render_decimal_be(&out, T, m1, 3, 1), "-0.1");
	EXPECT(colfs_render_decimal_be(&out, T, m1, 0, 1), "0.0");
	/* -2^127 and 2^127-1 */
	uint8_t mn[16] = { 0x80 }, mx[16];
	memset(mx, 0xff, 16);
	mx[0] = 0x7f;
	EXPECT(colfs_render_decimal_be(&out, T, mn, 16, 0),
	       "-170141183460469231731687303715884105728");
	EXPECT(colfs_render_decimal_be(&out, T, mx, 16, 38),
	       "1.70141183460469231731687303715884105727");
	/* 9 bytes, odd length, negative: -(2^64) */
	const uint8_t nine[9] = { 0xff, 0, 0, 0, 0, 0, 0, 0, 0 };
	EXPECT(colfs_render_decimal_be(&out, T, nine, 9, 2),
	       "-184467440737095516.16");
	EXPECT(colfs_render_decimal_be(&out, J, nine, 9, 2),
	       "-184467440737095516.16");
}

static void test_render_dates_times(void **state)
{
	(void)state;
	EXPECT(colfs_render_date(&out, T, 18632), "2021-01-05");
	EXPECT(colfs_render_date(&out, T, 0), "1970-01-01");
	EXPECT(colfs_render_date(&out, T, -719163), "0001-12-31 (BC)");
	EXPECT(colfs_render_date(&out, T, -735525), "0045-03-15 (BC)");
	EXPECT(colfs_render_date(&out, T, 3789756), "12346-01-01");
	EXPECT(colfs_render_date(&out, J, 0), "\"1970-01-01\"");
	colfs_render_date(&out, T, INT64_MIN);   /* must not crash */
	take();
	colfs_render_date(&out, T, INT64_MAX);
	take();
	EXPECT(colfs_render_time(&out, T, 45296120000LL, COLFS_UNIT_MICROS),
	       "12:34:56.12");
	EXPECT(colfs_render_time(&out, T, 45296000, COLFS_UNIT_MILLIS),
	       "12:34:56");
	EXPECT(colfs_render_time(&out, T, 86400000000LL, COLFS_UNIT_MICROS),
	       "24:00:00");
	EXPECT(colfs_render_time(&out, T, 1, COLFS_UNIT_NANOS),
	       "00:00:00.000000001");
	EXPECT(colfs_render_timetz(&out, T, 45296000000LL, COLFS_UNIT_MICROS,
				   19800), "12:34:56+05:30");
	/* 2021-01-01 12:34:56.12 */
	EXPECT(colfs_render_timestamp(&out, T, 1609504496120000LL,
				      COLFS_UNIT_MICROS, false),
	       "2021-01-01 12:34:56.12");
	EXPECT(colfs_render_timestamp(&out, T, 1609504496123456789LL,
				      COLFS_UNIT_NANOS, false),
	       "2021-01-01 12:34:56.123456789");
	EXPECT(colfs_render_timestamp(&out, T, 1609504496500LL,
				      COLFS_UNIT_MILLIS, true),
	       "2021-01-01 12:34:56.5+00");
	EXPECT(colfs_render_timestamp(&out, T, 1609504496LL,
				      COLFS_UNIT_SECONDS, false),
	       "2021-01-01 12:34:56");
	EXPECT(colfs_render_timestamp(&out, T, -1, COLFS_UNIT_MICROS, false),
	       "1969-12-31 23:59:59.999999");
	/* TIMESTAMP '-0100-01-01 00:00:00' */
	EXPECT(colfs_render_timestamp(&out, T, -65322892800LL,
				      COLFS_UNIT_SECONDS, false),
	       "0101-01-01 (BC) 00:00:00");
	colfs_render_timestamp(&out, T, INT64_MIN, COLFS_UNIT_NANOS, true);
	take();
	colfs_render_timestamp(&out, T, INT64_MIN, COLFS_UNIT_SECONDS, true);
	take();
	/* INT96: 2021-01-01 12:34:56.5 = JD 2459216, 45296.5 s */
	uint8_t i96[12];
	uint64_t ns = 45296500000000ULL;
	for (int i = 0; i < 8; i++)
		i96[i] = (uint8_t)(ns >> (8 * i));
	uint32_t jd = 2459216;
	for (int i = 0; i < 4; i++)
		i96[8 + i] = (uint8_t)(jd >> (8 * i));
	EXPECT(colfs_render_int96(&out, T, i96), "2021-01-01 12:34:56.5");
	memset(i96, 0xff, 12);
	colfs_render_int96(&out, T, i96);
	take();
}

static void test_render_uuid_interval(void **state)
{
	(void)state;
	const uint8_t u[16] = { 0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4,
				0xa7, 0x16, 0x44, 0x66, 0x55, 0x44, 0x00, 0x00 };
	EXPECT(colfs_render_uuid(&out, T, u),
	       "550e8400-e29b-41d4-a716-446655440000");
	EXPECT(colfs_render_interval(&out, T, 14, 3, 14706007000LL),
	       "1 year 2 months 3 days 04:05:06.007");
	EXPECT(colfs_render_interval(&out, T, 0, 0, 0), "00:00:00");
	EXPECT(colfs_render_interval(&out, T, 1, 0, 0), "1 month");
	EXPECT(colfs_render_interval(&out, T, 0, 1, 0), "1 day");
	EXPECT(colfs_render_interval(&out, T, 0, 2, 0), "2 days");
	EXPECT(colfs_render_interval(&out, T, 0, -1, 0), "-1 day");
	EXPECT(colfs_render_interval(&out, T, 0, 0, -1500000), "-00:00:01.5");
	EXPECT(colfs_render_interval(&out, T, 0, 0, 360000000000LL),
	       "100:00:00");
	EXPECT(colfs_render_interval(&out, T, 0, 0, 1), "00:00:00.000001");
	EXPECT(colfs_render_interval(&out, T, -14, 0, 0), "-1 year -2 months");
	EXPECT(colfs_render_interval(&out, T, 12, -2, 10800000000LL),
	       "1 year -2 days 03:00:00");
	const uint8_t pi[12] = { 14, 0, 0, 0, 3, 0, 0, 0, 0x57, 0x65, 0xe0,
				 0x00 };
	EXPECT(colfs_render_interval_parquet(&out, J, pi),
	       "\"1 year 2 months 3 days 04:05:06.007\"");
}

static void test_render_csv_field(void **state)
{
	(void)state;
	EXPECT(colfs_render_csv_field(&out, "abc", 3), "abc");
	EXPECT(colfs_render_csv_field(&out, "a,b", 3), "\"a,b\"");
	EXPECT(colfs_render_csv_field(&out, "say \"hi\"", 8),
	       "\"say \"\"hi\"\"\"");
	EXPECT(colfs_render_csv_field(&out, "a\nb", 3), "\"a\nb\"");
	EXPECT(colfs_render_csv_field(&out, "a\rb", 3), "\"a\rb\"");
	/* the empty string is quoted: an empty field is NULL */
	EXPECT(colfs_render_csv_field(&out, "", 0), "\"\"");
	EXPECT(colfs_render_csv_field(&out, "back\\slash", 10),
	       "back\\slash");
}

/* rows.csv's values: CSV mode keeps a string's bytes (no backslash
 * escapes but for bytes that are not UTF-8), its NULL marker becomes
 * the NULL text unquoted, a value equal to that text is quoted. */
static void test_render_csv_value(void **state)
{
	(void)state;
	colfs_render c = colfs_render_csv_mode();
	const uint8_t s[] = "l1\nl2\r\t\\N \xc3\xa9 \xff";
	colfs_buf tmp = COLFS_BUF_INIT;

	EXPECT(colfs_render_string(&out, &c, s, sizeof s - 1),
	       "l1\nl2\r\t\\N \xc3\xa9 \\xFF");
	EXPECT(colfs_render_null(&out, &c), COLFS_RENDER_CSV_NULL);
	colfs_render_null(&tmp, &c);
	EXPECT(colfs_render_csv_value(&out, tmp.data, tmp.len, ""), "");
	EXPECT(colfs_render_csv_value(&out, tmp.data, tmp.len, "NULL"),
	       "NULL");
	EXPECT(colfs_render_csv_value(&out, "NULL", 4, "NULL"), "\"NULL\"");
	EXPECT(colfs_render_csv_value(&out, "NULL", 4, ""), "NULL");
	EXPECT(colfs_render_csv_value(&out, "", 0, ""), "\"\"");
	EXPECT(colfs_render_csv_value(&out, "\\N", 2, ""), "\\N");
	EXPECT(colfs_render_csv_value(&out, "x\"y", 3, "x\"y"),
	       "\"x\"\"y\"");
	/* nested values are JSON in CSV mode too */
	c.json = true;
	EXPECT(colfs_render_string(&out, &c, s, 5), "\"l1\\nl2\"");
	colfs_buf_free(&tmp);
}

static int teardown(void **state)
{
	(void)state;
	colfs_buf_free(&out);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_null_bool_ints),
		cmocka_unit_test(test_render_int_lengths),
		cmocka_unit_test(test_render_int_wide),
		cmocka_unit_test(test_render_text_is_plain),
		cmocka_unit_test(test_render_double_duckdb_forms),
		cmocka_unit_test(test_render_float_duckdb_forms),
		cmocka_unit_test(test_render_double_round_trip_random),
		cmocka_unit_test(test_render_float_shortest_reference),
		cmocka_unit_test(test_render_strings),
		cmocka_unit_test(test_render_binary_as_duckdb_blob),
		cmocka_unit_test(test_render_decimal),
		cmocka_unit_test(test_render_dates_times),
		cmocka_unit_test(test_render_uuid_interval),
		cmocka_unit_test(test_render_csv_field),
		cmocka_unit_test(test_render_csv_value),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}

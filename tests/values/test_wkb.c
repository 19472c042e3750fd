/* tests/values: colfs_render_wkb (formats/core/wkb.c) on hand-built WKB,
 * the expected WKT taken from DuckDB 1.5 (ST_GeomFromWKB(blob)::VARCHAR),
 * and malformed WKB refused at the right offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "core/render.h"

/* ---- a WKB builder ---------------------------------------------------- */

static uint8_t wkb[1 << 16];
static size_t wn;
static bool le = true;

static void u8(uint8_t v)
{
	assert_true(wn < sizeof(wkb));
	wkb[wn++] = v;
}

static void u32(uint32_t v)
{
	for (int i = 0; i < 4; i++)
		u8((uint8_t)(v >> (8 * (le ? i : 3 - i))));
}

static void f64(double d)
{
	uint64_t bits;
	memcpy(&bits, &d, 8);
	for (int i = 0; i < 8; i++)
		u8((uint8_t)(bits >> (8 * (le ? i : 7 - i))));
}

/* a header: byte order and type */
static void head(uint32_t type)
{
	u8(le ? 1 : 0);
	u32(type);
}

static void point(uint32_t type, int dims, const double *c)
{
	head(type);
	for (int i = 0; i < dims; i++)
		f64(c[i]);
}

static colfs_buf out;

static const char *render(const colfs_render *r)
{
	static char s[8192];
	size_t bad = 0;
	const char *why = NULL;
	colfs_status st = colfs_render_wkb(&out, r, wkb, wn, &bad, &why);
	if (st != COLFS_OK)
		fail_msg("WKB refused at %zu: %s", bad, why ? why : "?");
	assert_int_equal(colfs_buf_status(&out), COLFS_OK);
	assert_true(out.len < sizeof(s));
	memcpy(s, out.data ? out.data : "", out.len);
	s[out.len] = 0;
	out.len = 0;
	wn = 0;
	return s;
}

#define EXPECT(str) assert_string_equal(render(&colfs_render_text_default), str)

/* malformed: nothing appended, COLFS_ECORRUPT at `at` */
static void expect_bad(size_t at)
{
	size_t bad = 12345;
	const char *why = NULL;
	colfs_buf_puts(&out, "kept");
	colfs_status st = colfs_render_wkb(&out, &colfs_render_text_default,
					   wkb, wn, &bad, &why);
	assert_int_equal(st, COLFS_ECORRUPT);
	assert_int_equal(bad, at);
	assert_non_null(why);
	assert_int_equal(out.len, 4);
	assert_memory_equal(out.data, "kept", 4);
	out.len = 0;
	wn = 0;
}

static const double NaN = NAN;

/* ---- tests ------------------------------------------------------------ */

static void test_wkb_points_and_numbers(void **state)
{
	(void)state;
	for (int order = 0; order < 2; order++) {
		le = order == 0;
		point(1, 2, (double[]){ 1, 2 });
		EXPECT("POINT (1 2)");
		point(1, 2, (double[]){ 1.5, -0.0 });
		EXPECT("POINT (1.5 -0)");
		point(1, 2, (double[]){ 1e20, 1e21 });
		EXPECT("POINT (1e+20 1e+21)");
		point(1, 2, (double[]){ 0.1 + 0.2, 1e-7 });
		EXPECT("POINT (0.30000000000000004 1e-07)");
		point(1, 2, (double[]){ 123456789012.0, 0.000001 });
		EXPECT("POINT (123456789012 1e-06)");
		point(1, 2, (double[]){ 1e15, 1e16 });
		EXPECT("POINT (1000000000000000 1e+16)");
		point(1, 2, (double[]){ 1e17, 123456.789 });
		EXPECT("POINT (1e+17 123456.789)");
		point(1, 2, (double[]){ 0.0001, 1e-5 });
		EXPECT("POINT (0.0001 1e-05)");
		point(1, 2, (double[]){ 5e-324, 1.7976931348623157e308 });
		EXPECT("POINT (5e-324 1.7976931348623157e+308)");
		point(1, 2, (double[]){ INFINITY, -INFINITY });
		EXPECT("POINT (inf -inf)");
	}
	le = true;
}

static void test_wkb_dimensions(void **state)
{
	(void)state;
	for (int order = 0; order < 2; order++) {
		le = order == 0;
		/* ISO codes */
		point(1001, 3, (double[]){ 1, 2, 3 });
		EXPECT("POINT Z (1 2 3)");
		point(2001, 3, (double[]){ 1, 2, 3 });
		EXPECT("POINT M (1 2 3)");
		point(3001, 4, (double[]){ 1, 2, 3, 4 });
		EXPECT("POINT ZM (1 2 3 4)");
		/* EWKB flags, with an SRID skipped */
		point(0x80000001u, 3, (double[]){ 1, 2, 3 });
		EXPECT("POINT Z (1 2 3)");
		point(0x40000001u, 3, (double[]){ 1, 2, 3 });
		EXPECT("POINT M (1 2 3)");
		point(0xC0000001u, 4, (double[]){ 1, 2, 3, 4 });
		EXPECT("POINT ZM (1 2 3 4)");
		head(0xA0000001u);
		u32(4326);
		f64(1);
		f64(1);
		f64(1);
		EXPECT("POINT Z (1 1 1)");
		head(0x20000001u);
		u32(4326);
		f64(1);
		f64(2);
		EXPECT("POINT (1 2)");
		/* a Z linestring */
		head(1002);
		u32(2);
		for (int i = 0; i < 6; i++)
			f64(i);
		EXPECT("LINESTRING Z (0 1 2, 3 4 5)");
	}
	le = true;
}

static void test_wkb_kinds(void **state)
{
	(void)state;
	for (int order = 0; order < 2; order++) {
		le = order == 0;
		head(2);
		u32(2);
		f64(1), f64(2), f64(3), f64(4);
		EXPECT("LINESTRING (1 2, 3 4)");

		head(3);
		u32(2);
		u32(4);
		f64(0), f64(0), f64(1), f64(0), f64(1), f64(1), f64(0), f64(0);
		u32(3);
		f64(0.1), f64(0.1), f64(0.2), f64(0.1), f64(0.1), f64(0.1);
		EXPECT("POLYGON ((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, "
		       "0.1 0.1))");

		head(4);
		u32(2);
		point(1, 2, (double[]){ 1, 2 });
		point(1, 2, (double[]){ 3, 4 });
		EXPECT("MULTIPOINT (1 2, 3 4)");

		head(5);
		u32(2);
		head(2);
		u32(2);
		f64(1), f64(2), f64(3), f64(4);
		head(2);
		u32(2);
		f64(5), f64(6), f64(7), f64(8);
		EXPECT("MULTILINESTRING ((1 2, 3 4), (5 6, 7 8))");

		head(6);
		u32(2);
		for (int k = 0; k < 2; k++) {
			head(3);
			u32(1);
			u32(4);
			f64(0), f64(0), f64(1), f64(0), f64(1), f64(1);
			f64(0), f64(0);
		}
		EXPECT("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), "
		       "((0 0, 1 0, 1 1, 0 0)))");

		/* nested collections, members in the other byte order */
		head(7);
		u32(3);
		le = !le;
		point(1, 2, (double[]){ 1, 2 });
		head(2);
		u32(2);
		f64(1), f64(2), f64(3), f64(4);
		le = !le;
		head(7);
		u32(1);
		point(1, 2, (double[]){ NaN, NaN });
		EXPECT("GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (1 2, 3 4), "
		       "GEOMETRYCOLLECTION (POINT EMPTY))");

		head(1007);
		u32(1);
		point(1001, 3, (double[]){ 1, 2, 3 });
		EXPECT("GEOMETRYCOLLECTION Z (POINT Z (1 2 3))");
	}
	le = true;
}

static void test_wkb_empty_and_nan(void **state)
{
	(void)state;
	static const char *const names[] = {
		NULL, "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
		"MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
	};
	char want[64];
	for (uint32_t k = 2; k <= 7; k++) {
		head(k);
		u32(0);
		snprintf(want, sizeof(want), "%s EMPTY", names[k]);
		EXPECT(want);
	}
	point(1, 2, (double[]){ NaN, NaN });
	EXPECT("POINT EMPTY");
	point(1001, 3, (double[]){ NaN, NaN, NaN });
	EXPECT("POINT Z EMPTY");
	point(1, 2, (double[]){ NaN, 1 });
	EXPECT("POINT (nan 1)");
	point(1001, 3, (double[]){ NaN, NaN, 1 });
	EXPECT("POINT Z (nan nan 1)");
	head(2);
	u32(2);
	f64(NaN), f64(NaN), f64(1), f64(1);
	EXPECT("LINESTRING (nan nan, 1 1)");
	head(4);
	u32(2);
	point(1, 2, (double[]){ NaN, NaN });
	point(1, 2, (double[]){ 1, 2 });
	EXPECT("MULTIPOINT (EMPTY, 1 2)");
	head(3);
	u32(1);
	u32(0);
	EXPECT("POLYGON (EMPTY)");
	head(5);
	u32(1);
	head(2);
	u32(0);
	EXPECT("MULTILINESTRING (EMPTY)");
	head(6);
	u32(1);
	head(3);
	u32(0);
	EXPECT("MULTIPOLYGON (EMPTY)");
}

static void test_wkb_json_quoted(void **state)
{
	(void)state;
	point(1, 2, (double[]){ 1, 2 });
	assert_string_equal(render(&colfs_render_json_default),
			    "\"POINT (1 2)\"");
}

static void test_wkb_malformed(void **state)
{
	(void)state;
	/* empty, truncated header, truncated point */
	expect_bad(0);
	u8(1);
	expect_bad(1);
	point(1, 2, (double[]){ 1, 2 });
	wn -= 1;
	expect_bad(5);
	/* bytes after the geometry */
	point(1, 2, (double[]){ 1, 2 });
	u8(0);
	expect_bad(21);
	/* byte order 2, unknown types */
	u8(2);
	u32(1);
	expect_bad(0);
	head(8);
	u32(0);
	expect_bad(1);
	head(4001);
	expect_bad(1);
	head(0x10000001u);
	expect_bad(1);
	head(0);
	expect_bad(1);
	/* counts far beyond the bytes left: refused before any loop */
	head(2);
	u32(0xffffffffu);
	f64(1), f64(2);
	expect_bad(5);
	head(3);
	u32(0x40000000u);
	expect_bad(5);
	head(3);
	u32(1);
	u32(1000000);
	expect_bad(9);
	head(7);
	u32(0xffffffffu);
	head(7);
	u32(0);
	expect_bad(5);
	head(4);
	u32(3);
	point(1, 2, (double[]){ 1, 2 });
	expect_bad(5);
	/* a member of the wrong kind or dimensions */
	head(4);
	u32(1);
	head(2);
	u32(0);
	expect_bad(10);
	head(4);
	u32(1);
	point(1001, 3, (double[]){ 1, 2, 3 });
	expect_bad(10);
	head(7);
	u32(1);
	point(2001, 3, (double[]){ 1, 2, 3 });
	expect_bad(10);
	/* an SRID cut short */
	head(0x20000001u);
	u8(0);
	expect_bad(5);
	/* nesting: 64 collections accepted, 65 refused */
	for (int i = 0; i < 63; i++) {
		head(7);
		u32(1);
	}
	head(7);
	u32(0);
	{
		size_t bad;
		const char *why;
		assert_int_equal(colfs_render_wkb(&out,
				 &colfs_render_text_default, wkb, wn, &bad,
				 &why), COLFS_OK);
		out.len = 0;
	}
	wn = 0;
	for (int i = 0; i < 64; i++) {
		head(7);
		u32(1);
	}
	head(7);
	u32(0);
	expect_bad(64 * 9 + 5);
	/* very deep (10000 levels): refused, no stack overflow */
	for (int i = 0; i < 6000; i++) {
		head(7);
		u32(1);
	}
	expect_bad(64 * 9 + 5);
}

/* Every prefix and every single-byte change of a valid collection is
 * either rendered or refused, never read out of bounds (ASan). */
static void test_wkb_mutants(void **state)
{
	(void)state;
	uint8_t good[512];
	size_t gn;
	head(7);
	u32(3);
	point(1, 2, (double[]){ 1, 2 });
	head(3);
	u32(1);
	u32(2);
	f64(1), f64(2), f64(3), f64(4);
	head(6);
	u32(1);
	head(3);
	u32(0);
	gn = wn;
	memcpy(good, wkb, gn);
	wn = 0;
	for (size_t cut = 0; cut <= gn; cut++) {
		size_t bad;
		const char *why;
		colfs_status st = colfs_render_wkb(&out,
			&colfs_render_text_default, good, cut, &bad, &why);
		assert_true(st == (cut == gn ? COLFS_OK : COLFS_ECORRUPT));
		if (st != COLFS_OK)
			assert_true(bad <= cut);
		out.len = 0;
	}
	static const uint8_t vals[] = { 0, 1, 2, 3, 7, 0x20, 0x80, 0xe9, 0xff };
	for (size_t i = 0; i < gn; i++)
		for (size_t v = 0; v < sizeof(vals); v++) {
			uint8_t *m = malloc(gn);
			size_t bad;
			const char *why;
			memcpy(m, good, gn);
			m[i] = vals[v];
			colfs_status st = colfs_render_wkb(&out,
				&colfs_render_text_default, m, gn, &bad, &why);
			assert_true(st == COLFS_OK || st == COLFS_ECORRUPT);
			if (st != COLFS_OK)
				assert_true(bad <= gn);
			out.len = 0;
			free(m);
		}
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
		cmocka_unit_test(test_wkb_points_and_numbers),
		cmocka_unit_test(test_wkb_dimensions),
		cmocka_unit_test(test_wkb_kinds),
		cmocka_unit_test(test_wkb_empty_and_nan),
		cmocka_unit_test(test_wkb_json_quoted),
		cmocka_unit_test(test_wkb_malformed),
		cmocka_unit_test(test_wkb_mutants),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}

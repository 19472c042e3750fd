/* tests/values: colfs_render_double and colfs_render_float against a
 * reference, over millions of values in a few seconds: random bit
 * patterns, decimal-looking values (as data holds them), subnormals,
 * powers of two and ten and their neighbours, integers near 2^53 and
 * 2^64, the extremes, negative zero, NaN and the infinities.
 *
 * For every finite value d rendered as s with n significant digits:
 *   - s reads back (strtod / strtof) as d;
 *   - no decimal of n - 1 digits reads back as d: the two nearest to d
 *     (the correctly rounded one from printf, and its neighbour on the
 *     other side of d) are both tried, and any shorter decimal inside the
 *     rounding interval would make one of them read back too;
 *   - when the correctly rounded n-digit decimal reads back, s is that
 *     decimal (the nearest of the shortest);
 *   - for a double, colfs_double_text_put (the exact writer) gives the
 *     same bytes as colfs_double_text_put_wide, which rendered s.
 * Exit status 0 when every value passes; the first failures are printed. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/render.h"

static colfs_buf out;
static unsigned long failures, checked;

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

static void fail(const char *what, double d, bool is_float, const char *s)
{
	uint64_t bits;

	memcpy(&bits, &d, 8);
	if (++failures <= 20)
		fprintf(stderr, "FAIL %s: %s %.17g (bits %016llx) rendered '%s'\n",
			what, is_float ? "float" : "double", d,
			(unsigned long long)bits, s);
}

static bool reads_back(const char *s, double d, bool is_float)
{
	return is_float ? strtof(s, NULL) == (float)d : strtod(s, NULL) == d;
}

/* The significant digits of s (no leading or trailing zeros) into dig;
 * returns their count. */
static int digits_of(const char *s, char *dig)
{
	int n = 0;
	bool started = false;

	for (; *s && *s != 'e'; s++) {
		if (*s < '0' || *s > '9')
			continue;
		if (*s != '0' || started) {
			started = true;
			dig[n++] = *s;
		}
	}
	while (n > 0 && dig[n - 1] == '0')
		n--;
	dig[n] = 0;
	return n;
}

/* The (n-digit) decimal one unit in the last place away from the
 * "%.*e" text r (d1.dddde+X), up (dir > 0) or down, as text. */
static void step(const char *r, int n, int dir, char *res)
{
	char dig[40];
	int k = 0, e;
	const char *p = r;

	for (; *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			dig[k++] = *p;
	e = atoi(p + 1);
	int i = n - 1;
	if (dir > 0) {
		while (i >= 0 && dig[i] == '9')
			dig[i--] = '0';
		if (i < 0) {
			memmove(dig + 1, dig, (size_t)n - 1);
			dig[0] = '1';
			e++;
		} else {
			dig[i]++;
		}
	} else {
		while (i >= 0 && dig[i] == '0')
			dig[i--] = '9';
		dig[i]--;
		if (dig[0] == '0') {
			/* 1000 - 1 unit = 999 of the next lower decade */
			memmove(dig, dig + 1, (size_t)n - 1);
			dig[n - 1] = '9';
			e--;
		}
	}
	snprintf(res, 64, "%c.%.*se%d", dig[0], n - 1, dig + 1, e);
}

static void check(double d, bool is_float)
{
	char s[64], dig[40], ref[64], refd[40], nb[64];

	if (is_float)
		d = (float)d;   /* what is rendered: out of range is inf or 0 */
	out.len = 0;
	if (is_float)
		colfs_render_float(&out, &colfs_render_text_default, (float)d);
	else
		colfs_render_double(&out, &colfs_render_text_default, d);
	if (out.failed || out.len >= sizeof s) {
		fail("buffer", d, is_float, "");
		return;
	}
	memcpy(s, out.data, out.len);
	s[out.len] = 0;
	checked++;
	if (!is_float) {
		/* colfs_render_double lays the text out by
		 * colfs_double_text_put_wide; the exact writer (the end of a
		 * block) must give the same bytes, of the announced length */
		colfs_double_text dt;
		char ex[64];
		colfs_double_text_prepare(d, &dt);
		size_t el = (size_t)(colfs_double_text_put(ex, &dt) - ex);
		if (el != dt.len || el != out.len || memcmp(ex, s, el)) {
			ex[el < sizeof ex ? el : sizeof ex - 1] = 0;
			fail("exact and wide layouts differ", d, false, ex);
			return;
		}
	}
	if (isnan(d)) {
		if (strcmp(s, "nan"))
			fail("nan", d, is_float, s);
		return;
	}
	if (isinf(d)) {
		if (strcmp(s, d < 0 ? "-inf" : "inf"))
			fail("inf", d, is_float, s);
		return;
	}
	if (d == 0) {
		if (strcmp(s, signbit(d) ? "-0.0" : "0.0"))
			fail("zero", d, is_float, s);
		return;
	}
	if (!reads_back(s, d, is_float)) {
		fail("round trip", d, is_float, s);
		return;
	}
	if ((s[0] == '-') != (signbit(d) != 0))
		fail("sign", d, is_float, s);
	int n = digits_of(s, dig);
	double a = fabs(d);
	if (n >= 2) {
		snprintf(ref, sizeof ref, "%.*e", n - 2, a);
		bool below = is_float ? strtof(ref, NULL) < (float)a
				      : strtod(ref, NULL) < a;
		step(ref, n - 1, below ? 1 : -1, nb);
		if (reads_back(ref, a, is_float) || reads_back(nb, a, is_float))
			fail("not shortest", d, is_float, s);
	}
	snprintf(ref, sizeof ref, "%.*e", n - 1, a);
	if (reads_back(ref, a, is_float)) {
		digits_of(ref, refd);
		if (strcmp(refd, dig))
			fail("not nearest", d, is_float, s);
	}
}

static double from_bits(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static float from_bits32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

int main(void)
{
	/* edges */
	const double special[] = { 0.0, -0.0, NAN, -NAN, INFINITY, -INFINITY,
				   DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN,
				   9007199254740992.0, 9007199254740993.0,
				   18446744073709551616.0, 1e16, 1e15, 1e21,
				   1e22, 1e23, 5e-324, 2.2250738585072009e-308 };
	for (size_t i = 0; i < sizeof special / sizeof *special; i++) {
		check(special[i], false);
		check(special[i], true);
	}
	for (int e = -1074; e < 1024; e++) {
		double p = ldexp(1.0, e);
		check(p, false);
		check(nextafter(p, 0), false);
		check(nextafter(p, INFINITY), false);
	}
	for (int e = -149; e < 128; e++) {
		float p = ldexpf(1.0f, e);
		check(p, true);
		check(nextafterf(p, 0), true);
		check(nextafterf(p, INFINITY), true);
	}
	for (int e = -325; e <= 308; e++) {
		double p = strtod((char[16]){0}, NULL);
		char t[16];
		snprintf(t, sizeof t, "1e%d", e);
		p = strtod(t, NULL);
		check(p, false);
		check(nextafter(p, 0), false);
		check(nextafter(p, INFINITY), false);
		float f = strtof(t, NULL);
		check(f, true);
		check(nextafterf(f, 0), true);
		check(nextafterf(f, INFINITY), true);
	}
	for (int64_t k = -2000; k <= 2000; k++) {
		check((double)(9007199254740992LL + k), false);
		check((double)k, false);
		check(ldexp((double)k, 11), false);    /* near 2^64: below */
	}
	/* random bit patterns: every exponent, both signs, NaNs included */
	for (int i = 0; i < 600000; i++) {
		uint64_t u = next();
		check(from_bits(u), false);
		if (i % 2 == 0)
			check(from_bits32((uint32_t)(u >> 32)), true);
	}
	/* subnormals */
	for (int i = 0; i < 50000; i++) {
		uint64_t u = next();
		check(from_bits(u & 0x800fffffffffffffull), false);
		check(from_bits32((uint32_t)u & 0x807fffffu), true);
	}
	/* values as data holds them: decimals of a few digits, scaled */
	static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7,
				      1e8, 1e9, 1e10, 1e11, 1e12 };
	for (int i = 0; i < 800000; i++) {
		uint64_t u = next();
		int64_t m = (int64_t)(u % 10000000000ull) - 5000000000LL;
		check((double)m / p10[(u >> 40) % 13], false);
		if (i % 4 == 0)
			check((float)((double)(m % 10000000) /
				      p10[(u >> 44) % 8]), true);
		if (i % 4 == 1)
			check((double)(u >> 40) * 0.37, false);
	}
	colfs_buf_free(&out);
	printf("%lu values checked, %lu failures\n", checked, failures);
	return failures ? 1 : 0;
}

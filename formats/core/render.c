/* colfs: rendering of typed values as text (rules: docs/values.md). */
#include "render.h"
#include "cursor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_pow10.h"

const colfs_render colfs_render_text_default = { NULL, false, false };
const colfs_render colfs_render_json_default = { NULL, true, false };

static const char hex_upper[] = "0123456789ABCDEF";
static const char hex_lower[] = "0123456789abcdef";

/* ---- small helpers ---------------------------------------------------- */

const char colfs_digit_pairs[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* Append the decimal digits of `v` (no sign), in place. */
static void put_u64(colfs_buf *b, uint64_t v)
{
	if (!colfs_buf_reserve(b, 20))
		return;
	b->len = (size_t)(colfs_put_u64(b->data + b->len, v) - b->data);
}

static void put_i64(colfs_buf *b, int64_t v)
{
	if (!colfs_buf_reserve(b, 21))
		return;
	b->len = (size_t)(colfs_put_i64(b->data + b->len, v) - b->data);
}

/* Append `v` zero-padded to at least `width` digits. */
static void put_u64_pad(colfs_buf *b, uint64_t v, int width)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
		width--;
	} while (v || width > 0);
	colfs_buf_append(b, tmp + i, sizeof(tmp) - i);
}

/* Append "." and the fraction `frac` of `digits` digits with trailing
 * zeros dropped; nothing when it is zero. */
static void put_fraction(colfs_buf *b, uint64_t frac, int digits)
{
	char tmp[24];
	int n = digits;

	if (frac == 0 || digits <= 0)
		return;
	while (n > 0 && frac % 10 == 0) {
		frac /= 10;
		n--;
	}
	tmp[0] = '.';
	for (int i = n; i >= 1; i--) {
		tmp[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	colfs_buf_append(b, tmp, (size_t)n + 1);
}

static void json_open(colfs_buf *b, const colfs_render *r)
{
	if (r && r->json)
		colfs_buf_putc(b, '"');
}

static void json_close(colfs_buf *b, const colfs_render *r)
{
	if (r && r->json)
		colfs_buf_putc(b, '"');
}

/* ---- scalars ------------------------------------------------------------ */

void colfs_render_null(colfs_buf *b, const colfs_render *r)
{
	if (r && r->json)
		colfs_buf_append(b, "null", 4);
	else if (r && r->null_token)
		colfs_buf_puts(b, r->null_token);
	else
		colfs_buf_append(b, "\\N", 2);
}

void colfs_render_bool(colfs_buf *b, const colfs_render *r, bool v)
{
	(void)r;
	if (v)
		colfs_buf_append(b, "true", 4);
	else
		colfs_buf_append(b, "false", 5);
}

void colfs_render_i64(colfs_buf *b, const colfs_render *r, int64_t v)
{
	(void)r;
	put_i64(b, v);
}

void colfs_render_u64(colfs_buf *b, const colfs_render *r, uint64_t v)
{
	(void)r;
	put_u64(b, v);
}

/* ---- floating point ----------------------------------------------------
 *
 * Shortest round trip: the fewest significant digits that read back as
 * the same value, and of those the nearest to it (ties to even).  A
 * double's come from shortest_double (Schubfach, below), exact for every
 * double.  A float's come from shortest_fast where its exact integer
 * arithmetic reaches (1e-14 <= v < 2^24), else from printf: a
 * 6-significant-digit decimal always survives decimal -> float ->
 * decimal (FLT_DIG), so when the 6-digit rounding reads back as the same
 * float, the shortest representation is that rounding with its trailing
 * zeros removed; otherwise 7, 8, then 9 digits (9 always round-trip).
 * Subnormals have fewer significant bits, so for them every precision
 * from 1 up is tried.  The digits are then laid out as DuckDB
 * prints them: plain notation when the decimal exponent E of the first
 * digit is in -4 <= E < 16 (with ".0" added to integral values), else
 * d[.ddd]e+XX with a signed exponent of at least two digits. */

/* The laid-out text at out (at most 1 + 17 + 4 + 1 + 5 bytes: sign,
 * digits, "0.000" or the exponent, the point); returns its length. */
static size_t float_digits_at(char *out, bool neg, const char *digits,
			      int ndig, int exp10)
{
	size_t o = 0;

	if (neg)
		out[o++] = '-';
	if (exp10 < -4 || exp10 >= 16) {
		out[o++] = digits[0];
		if (ndig > 1) {
			out[o++] = '.';
			memcpy(out + o, digits + 1, (size_t)ndig - 1);
			o += (size_t)ndig - 1;
		}
		out[o++] = 'e';
		out[o++] = exp10 < 0 ? '-' : '+';
		int e = exp10 < 0 ? -exp10 : exp10;
		if (e >= 100)
			out[o++] = (char)('0' + e / 100);
		out[o++] = (char)('0' + e / 10 % 10);
		out[o++] = (char)('0' + e % 10);
	} else if (exp10 < 0) {
		out[o++] = '0';
		out[o++] = '.';
		for (int i = -1; i > exp10; i--)
			out[o++] = '0';
		memcpy(out + o, digits, (size_t)ndig);
		o += (size_t)ndig;
	} else {
		/* exp10 + 1 integer digits */
		for (int i = 0; i <= exp10; i++)
			out[o++] = i < ndig ? digits[i] : '0';
		out[o++] = '.';
		if (ndig > exp10 + 1) {
			memcpy(out + o, digits + exp10 + 1,
			       (size_t)(ndig - exp10 - 1));
			o += (size_t)(ndig - exp10 - 1);
		} else {
			out[o++] = '0';
		}
	}
	return o;
}

/* The length float_digits_at gives, without writing. */
static unsigned float_digits_len(bool neg, int ndig, int exp10)
{
	unsigned n = neg;

	if (exp10 < -4 || exp10 >= 16)
		return n + (unsigned)ndig + (ndig > 1) + 2 +
		       (exp10 <= -100 || exp10 >= 100 ? 3 : 2);
	if (exp10 < 0)
		return n + 2 + (unsigned)(-exp10 - 1) + (unsigned)ndig;
	return n + (unsigned)exp10 + 2 +
	       (ndig > exp10 + 1 ? (unsigned)(ndig - exp10 - 1) : 1);
}

static void put_float_digits(colfs_buf *b, bool neg, const char *digits,
			     int ndig, int exp10)
{
	if (!colfs_buf_reserve(b, 40))
		return;
	b->len += float_digits_at(b->data + b->len, neg, digits, ndig, exp10);
}

/* 5^0 .. 5^31 as (high, low) 64-bit halves. */
static const uint64_t pow5_128[32][2] = {
	{ 0x0000000000000000u, 0x0000000000000001u },  /* 5^0 */
	{ 0x0000000000000000u, 0x0000000000000005u },  /* 5^1 */
	{ 0x0000000000000000u, 0x0000000000000019u },  /* 5^2 */
	{ 0x0000000000000000u, 0x000000000000007du },  /* 5^3 */
	{ 0x0000000000000000u, 0x0000000000000271u },  /* 5^4 */
	{ 0x0000000000000000u, 0x0000000000000c35u },  /* 5^5 */
	{ 0x0000000000000000u, 0x0000000000003d09u },  /* 5^6 */
	{ 0x0000000000000000u, 0x000000000001312du },  /* 5^7 */
	{ 0x0000000000000000u, 0x000000000005f5e1u },  /* 5^8 */
	{ 0x0000000000000000u, 0x00000000001dcd65u },  /* 5^9 */
	{ 0x0000000000000000u, 0x00000000009502f9u },  /* 5^10 */
	{ 0x0000000000000000u, 0x0000000002e90eddu },  /* 5^11 */
	{ 0x0000000000000000u, 0x000000000e8d4a51u },  /* 5^12 */
	{ 0x0000000000000000u, 0x0000000048c27395u },  /* 5^13 */
	{ 0x0000000000000000u, 0x000000016bcc41e9u },  /* 5^14 */
	{ 0x0000000000000000u, 0x000000071afd498du },  /* 5^15 */
	{ 0x0000000000000000u, 0x0000002386f26fc1u },  /* 5^16 */
	{ 0x0000000000000000u, 0x000000b1a2bc2ec5u },  /* 5^17 */
	{ 0x0000000000000000u, 0x000003782dace9d9u },  /* 5^18 */
	{ 0x0000000000000000u, 0x00001158e460913du },  /* 5^19 */
	{ 0x0000000000000000u, 0x000056bc75e2d631u },  /* 5^20 */
	{ 0x0000000000000000u, 0x0001b1ae4d6e2ef5u },  /* 5^21 */
	{ 0x0000000000000000u, 0x000878678326eac9u },  /* 5^22 */
	{ 0x0000000000000000u, 0x002a5a058fc295edu },  /* 5^23 */
	{ 0x0000000000000000u, 0x00d3c21bcecceda1u },  /* 5^24 */
	{ 0x0000000000000000u, 0x0422ca8b0a00a425u },  /* 5^25 */
	{ 0x0000000000000000u, 0x14adf4b7320334b9u },  /* 5^26 */
	{ 0x0000000000000000u, 0x6765c793fa10079du },  /* 5^27 */
	{ 0x0000000000000002u, 0x04fce5e3e2502611u },  /* 5^28 */
	{ 0x000000000000000au, 0x18f07d736b90be55u },  /* 5^29 */
	{ 0x0000000000000032u, 0x7cb2734119d3b7a9u },  /* 5^30 */
	{ 0x00000000000000fcu, 0x6f7c40458122964du },  /* 5^31 */
};

/* The shortest decimal for v = c * 2^q (c > 0), by exact integer
 * arithmetic: with D = 2 - q the scaled value v * 10^D and the bounds of
 * its rounding interval are the integers m * 5^D for m = 4c and 4c +- 2
 * (4c - 1 below a power of two).  Dividing by 10^js = 2^js * 5^js leaves
 * m * 5^e5 / 2^js (e5 = D - js): a 128-bit product and a shift, whose
 * remainder bits tell exactly which dropped digits were zero.  From those
 * ~18-digit quotients the digit-removal loop of Ryu (Ulf Adams, 2018: drop
 * digits while the interval still holds a shorter number, then round the
 * kept digits to the nearest, ties to even) gives the shortest digits
 * closest to v.  Handles 1e-14 <= v < 2^53 (q <= 0); false otherwise.
 * Used for floats (doubles take shortest_double). */
static bool shortest_fast(uint64_t c, int q, bool irregular, char *digits,
			  int *ndig, int *exp10)
{
	typedef unsigned __int128 u128;

	if (q > 0 || c == 0)
		return false;
	const int k = q + 63 - __builtin_clzll(c);      /* floor(log2 v) */
	const int e_est = (k * 78913) >> 18;            /* floor(k log10 2) */
	const int e5 = 17 - e_est;
	const int D = 2 - q;
	const int js = D - e5;

	if (e5 < 0 || e5 > 31 || js < 0 || js > 120)
		return false;
	const u128 p5 = (u128)pow5_128[e5][0] << 64 | pow5_128[e5][1];
	const bool even = (c & 1) == 0;
	const u128 nv = (u128)(4 * c) * p5;
	const u128 np = (u128)(4 * c + 2) * p5;
	const u128 nm = (u128)(4 * c - (irregular ? 1 : 2)) * p5;
	const u128 mask = js ? ((u128)1 << js) - 1 : 0;
	uint64_t vr = (uint64_t)(nv >> js), vp = (uint64_t)(np >> js),
		 vm = (uint64_t)(nm >> js);
	const u128 rv10 = (nv & mask) * 10;
	int last = js ? (int)(rv10 >> js) : 0;
	bool vr_tz = (rv10 & mask) == 0;
	bool vm_tz = (nm & mask) == 0;
	int removed = 0;

	if (!even && (np & mask) == 0)
		vp--;                           /* the upper bound is excluded */
	/* two digits at a time while two can go (the same steps as the
	 * loop below, taken in pairs: about half the divisions) */
	while (vp / 100 > vm / 100) {
		vm_tz &= vm % 100 == 0;
		vr_tz &= last == 0 && vr % 10 == 0;
		last = (int)(vr / 10 % 10);
		vr /= 100;
		vp /= 100;
		vm /= 100;
		removed += 2;
	}
	for (;;) {
		uint64_t vp10 = vp / 10, vm10 = vm / 10;
		if (vp10 <= vm10)
			break;
		vm_tz &= vm % 10 == 0;
		vr_tz &= last == 0;
		last = (int)(vr % 10);
		vr /= 10;
		vp = vp10;
		vm = vm10;
		removed++;
	}
	if (vm_tz && even) {
		/* the lower bound is included and exact: more zeros may go */
		while (vm % 10 == 0 && vp / 10 >= vm / 10 && vm) {
			vr_tz &= last == 0;
			last = (int)(vr % 10);
			vr /= 10;
			vp /= 10;
			vm /= 10;
			removed++;
		}
	}
	if (vr_tz && last == 5 && vr % 2 == 0)
		last = 4;                       /* exactly half: to even */
	uint64_t out = vr + ((vr == vm && (!even || !vm_tz)) || last >= 5);

	char tmp[24];
	int n = 0;
	while (out % 10 == 0 && out) {
		out /= 10;
		removed++;
	}
	do {
		tmp[n++] = (char)('0' + out % 10);
		out /= 10;
	} while (out);
	for (int i = 0; i < n; i++)
		digits[i] = tmp[n - 1 - i];
	*ndig = n;
	*exp10 = removed - e5 + n - 1;
	return true;
}

/* Split "%.*e" output of a positive number into digits and exponent. */
static void split_sci(const char *s, char *digits, int *ndig, int *exp10)
{
	int n = 0;
	const char *p = s;

	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			digits[n++] = *p;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	*ndig = n;
	*exp10 = *p == 'e' ? atoi(p + 1) : 0;
}

/* Below a power of two the rounding interval is half as wide as above
 * it, so the shortest decimal can be one digit shorter than the correctly
 * rounded one, on the upper side: try the (ndig - 1)-digit number just
 * above the value. */
static void shorter_above(char *digits, int *ndig, int *exp10, double a,
			  bool is_float)
{
	char s[48], t[48];
	int len = 0, e;

	if (*ndig <= 1)
		return;
	/* the (ndig-1)-digit truncation toward zero, plus one unit */
	snprintf(s, sizeof(s), "%.*e", *ndig + 2, a);   /* enough digits */
	for (const char *p = s; *p && *p != 'e' && len < *ndig - 1; p++)
		if (*p >= '0' && *p <= '9')
			t[len++] = *p;
	e = atoi(strchr(s, 'e') + 1);
	int i = len - 1;
	while (i >= 0 && t[i] == '9')
		t[i--] = '0';
	if (i < 0) {
		memmove(t + 1, t, (size_t)len);
		t[0] = '1';
		e++;
	} else {
		t[i]++;
	}
	snprintf(s, sizeof(s), "%c.%.*se%d", t[0], len - 1, t + 1, e);
	bool ok = is_float ? strtof(s, NULL) == (float)a : strtod(s, NULL) == a;
	if (!ok)
		return;
	while (len > 1 && t[len - 1] == '0')
		len--;
	memcpy(digits, t, (size_t)len);
	*ndig = len;
	*exp10 = e;
}

static bool put_nonfinite(colfs_buf *b, const colfs_render *r, double v)
{
	const char *tok;

	if (isnan(v))
		tok = "nan";
	else if (isinf(v))
		tok = v < 0 ? "-inf" : "inf";
	else
		return false;
	json_open(b, r);
	colfs_buf_puts(b, tok);
	json_close(b, r);
	return true;
}

/* ---- shortest digits of a double: Schubfach ----------------------------
 *
 * R. Giulietti's "Schubfach" (The Schubfach way to render doubles, 2020;
 * the algorithm of Java's Double.toString since JDK 19), written here
 * from the paper.  For v = c * 2^q, with k = floor(log10(2^q)) (of 3/4
 * 2^q below a power of two, where the interval is lopsided), one
 * multiplication by a 126-bit g ~ 10^-k (render_pow10.h, exact integers
 * from tools/gen/pow10-table.py) gives v / 10^k and the two ends of its
 * rounding interval to within a sticky bit, in units of 1/4.  The
 * interval is narrower than 10^(k+1), so it holds at most one multiple
 * of 10^(k+1): if exactly one, that is the shortest decimal (its
 * trailing zeros go later); else the shortest have the digits of
 * s = floor(v / 10^k) or s + 1, and the one of them inside, or the
 * nearer (ties to even), is it.  Every double, no fallback;
 * tests/values/test_shortest.c checks millions against strtod. */

typedef unsigned __int128 render_u128;

/* floor(q log10 2), floor(log10(3/4 2^q)), floor(e log2 10), exact for
 * the exponents of doubles (the paper's fixed-point constants) */
static inline int flog10_pow2(int q)
{
	return (int)((int64_t)q * 661971961083LL >> 41);
}

static inline int flog10_three_quarters_pow2(int q)
{
	return (int)(((int64_t)q * 661971961083LL - 274743187321LL) >> 41);
}

static inline int flog2_pow10(int e)
{
	return (int)((int64_t)e * 913124641741LL >> 38);
}

/* The rounded-to-odd product of g = g1 2^63 + g0 and cp, scaled down by
 * 2^126: the high bits, with the lowest set when any bit dropped is. */
static inline uint64_t schubfach_rop(uint64_t g1, uint64_t g0, uint64_t cp)
{
	const uint64_t mask63 = (UINT64_C(1) << 63) - 1;
	uint64_t x1 = (uint64_t)(((render_u128)g0 * cp) >> 64);
	render_u128 y = (render_u128)g1 * cp;
	uint64_t z = ((uint64_t)y >> 1) + x1;
	uint64_t vbp = (uint64_t)(y >> 64) + (z >> 63);

	return vbp | (((z & mask63) + mask63) >> 63);
}

/* The shortest decimal f * 10^e (f may end in zeros) of c * 2^q, the
 * nearest of them, ties to even.  c is the significand (2^52 | fraction
 * for a normal double).  Unlike Java, which wants two digits at least
 * (4.9E-324), a subnormal's single digit is kept (5e-324): the shorter
 * candidate is tried whenever s has two digits or more. */
static void shortest_double(uint64_t c, int q, uint64_t *f, int *e)
{
	const uint64_t out = c & 1;     /* even: the interval is closed */
	const uint64_t cb = c << 2, cbr = cb + 2;
	uint64_t cbl;
	int k;

	if (c != UINT64_C(1) << 52 || q == -1074) {
		cbl = cb - 2;
		k = flog10_pow2(q);
	} else {
		cbl = cb - 1;           /* below a power of two */
		k = flog10_three_quarters_pow2(q);
	}
	const int h = q + flog2_pow10(-k) + 2;
	const uint64_t *g = render_pow10_g[k - RENDER_POW10_K_MIN];
	const uint64_t vb = schubfach_rop(g[0], g[1], cb << h);
	const uint64_t vbl = schubfach_rop(g[0], g[1], cbl << h);
	const uint64_t vbr = schubfach_rop(g[0], g[1], cbr << h);
	const uint64_t s = vb >> 2;

	if (s >= 10) {
		uint64_t sp10 = s / 10 * 10, tp10 = sp10 + 10;
		bool upin = vbl + out <= sp10 << 2;
		bool wpin = (tp10 << 2) + out <= vbr;
		if (upin != wpin) {
			*f = upin ? sp10 : tp10;
			*e = k;
			return;
		}
	}
	const uint64_t t = s + 1;
	bool uin = vbl + out <= s << 2;
	bool win = (t << 2) + out <= vbr;
	*e = k;
	if (uin != win) {
		*f = uin ? s : t;
		return;
	}
	int64_t cmp = (int64_t)(vb - ((s + t) << 1));
	*f = cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t;
}

/* The text-mode tokens of the values without digits, by
 * colfs_double_text.token - 1. */
static const struct {
	char s[5];
	uint8_t len;
} double_tokens[] = {
	{ "nan", 3 }, { "inf", 3 }, { "-inf", 4 }, { "0.0", 3 }, { "-0.0", 4 },
};

/* Drops the trailing zeros of g < 10^8 (or of a value below 2^32 with
 * fewer than 8), 4, 2 then 1 at a time, in 32-bit arithmetic; returns
 * how many. */
static inline int strip_zeros32(uint32_t *g)
{
	int z = 0;

	if (*g % 10000 == 0) {
		*g /= 10000;
		z += 4;
	}
	if (*g % 100 == 0) {
		*g /= 100;
		z += 2;
	}
	if (*g % 10 == 0) {
		*g /= 10;
		z += 1;
	}
	return z;
}

/* render.h */
void colfs_double_text_prepare(double v, colfs_double_text *d)
{
	uint64_t bits;
	memcpy(&bits, &v, 8);
	const bool neg = bits >> 63;
	const int bexp = (int)(bits >> 52) & 0x7ff;
	const uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
	double a = fabs(v);
	uint64_t f;
	int e = 0;

	d->neg = neg;
	d->token = 0;
	/* NaN, the infinities and the zeros from the bits: isnan, isinf
	 * and a == 0 took 14 instructions a value */
	if (bexp == 0x7ff || (bexp == 0 && frac == 0)) {
		d->token = bexp ? (frac ? 1 : 2 + neg) : 4 + neg;
		d->len = double_tokens[d->token - 1].len;
		return;
	}
	if (a < 9007199254740992.0 && a == (double)(int64_t)a) {
		/* integral below 2^53: the integer is the shortest (its
		 * neighbours are at most 1 away); no search.  (A signed
		 * conversion, exact here: an unsigned one takes a branch
		 * and twice the instructions.) */
		f = (uint64_t)(int64_t)a;
	} else {
		if (bexp)
			shortest_double(frac | UINT64_C(1) << 52, bexp - 1075,
					&f, &e);
		else
			shortest_double(frac, -1074, &f, &e);
	}
	/* trailing zeros dropped: at most 17 digits, so 8 and 8, then
	 * 4, 2, 1 in 32 bits */
	if (f % 100000000 == 0) {
		f /= 100000000;
		e += 8;
		if (f % 100000000 == 0) {
			f /= 100000000;
			e += 8;
		}
	}
	if (f <= UINT32_MAX) {
		uint32_t g = (uint32_t)f;
		e += strip_zeros32(&g);
		f = g;
	} else {
		/* fewer than 8 zeros left: those of its last 8 digits */
		uint32_t lo = (uint32_t)(f % 100000000);
		int z = strip_zeros32(&lo);
		if (z) {
			static const uint32_t p10[8] = { 1, 10, 100, 1000,
							 10000, 100000,
							 1000000, 10000000 };
			f /= p10[z];
			e += z;
		}
	}
	d->f = f;
	d->ndig = (uint8_t)colfs_u64_digits(f);
	d->exp10 = (int16_t)(e + d->ndig - 1);
	d->len = (uint8_t)float_digits_len(neg, d->ndig, d->exp10);
}

/* render.h */
char *colfs_double_text_put(char *p, const colfs_double_text *d)
{
	if (d->token) {
		memcpy(p, double_tokens[d->token - 1].s, d->len);
		return p + d->len;
	}
	char digits[32];
	colfs_put_u64_wide(digits, d->f);
	return p + float_digits_at(p, d->neg, digits, d->ndig, d->exp10);
}

/* The digits of v < 10^16 as the 16 bytes of a little-endian 128-bit
 * word, the first digit lowest, the n significant ones only (the bytes
 * above them zero). */
static inline render_u128 digits16(uint64_t v, unsigned n)
{
	if (n <= 8)
		return (colfs_digits8((uint32_t)v) | COLFS_ASCII_ZEROS8) >>
		       (8 * (8 - n));
	render_u128 d = (colfs_digits8((uint32_t)(v / 100000000)) |
			 COLFS_ASCII_ZEROS8) |
			(render_u128)(colfs_digits8((uint32_t)(v % 100000000)) |
				      COLFS_ASCII_ZEROS8) << 64;
	return d >> (8 * (16 - n));
}

/* render.h.  The digits are made in registers (digits16: a 17th,
 * leading, digit apart) and the text is laid out by stores of fixed
 * sizes only, overlapping where the layout needs: no call to memcpy
 * with a length known at run time and no loop a byte at a time (as
 * float_digits_at has), and no load of bytes just stored by narrower
 * stores (a scratch copy composed and then copied out stalled on every
 * value: fewer instructions, no less time).  Plain notation, the
 * common case: the digits, the point over the first fraction digit,
 * the fraction digits again one byte on; an integral value's missing
 * integer digits are 16 zeros after the digits, then ".0"; below 1,
 * "0.000000" then the digits over its tail.  The exponent form
 * (|v| < 1e-4, >= 1e16) is rare in data and takes float_digits_at. */
char *colfs_double_text_put_wide(char *p, const colfs_double_text *d)
{
	const int x = d->exp10;
	const unsigned n = d->ndig;

	if (d->token || x < -4 || x >= 16)
		return colfs_double_text_put(p, d);
	char *const e = p + d->len;
	*p = '-';
	p += d->neg;
	/* the digits: a 17th digit leads, the other 16 in the word */
	const unsigned lead = n > 16;
	const render_u128 w = digits16(lead ? d->f % 10000000000000000u
					    : d->f, lead ? 16 : n);
	const char first = (char)('0' + d->f / 10000000000000000u);
	if (x < 0) {
		/* 0.000ddd: "0." and -x - 1 zeros, then the digits */
		memcpy(p, "0.000000", 8);
		p += 1 - x;
		*p = first;
		memcpy(p + lead, &w, 16);
		return e;
	}
	const unsigned ip = (unsigned)x + 1;     /* integer digits, <= 16 */
	*p = first;
	memcpy(p + lead, &w, 16);
	if (n <= ip) {
		/* ddd000.0: ip - n <= 15 zeros after the digits */
		memcpy(p + n, "0000000000000000", 16);
		memcpy(p + ip, ".0", 2);
	} else {
		/* ddd.ddd: the fraction digits one byte on */
		const render_u128 frac = w >> (8 * (ip - lead));
		p[ip] = '.';
		memcpy(p + ip + 1, &frac, 16);
	}
	return e;
}

void colfs_render_double(colfs_buf *b, const colfs_render *r, double v)
{
	colfs_double_text d;

	if (put_nonfinite(b, r, v))
		return;
	colfs_double_text_prepare(v, &d);
	if (!colfs_buf_reserve(b, 40))
		return;
	b->len = (size_t)(colfs_double_text_put_wide(b->data + b->len, &d) -
			  b->data);
}

void colfs_render_float(colfs_buf *b, const colfs_render *r, float v)
{
	char s[40], digits[24];
	int ndig, exp10;
	bool neg = signbit(v);
	float a = fabsf(v);

	if (put_nonfinite(b, r, v))
		return;
	if (a == 0) {
		colfs_buf_puts(b, neg ? "-0.0" : "0.0");
		return;
	}
	if (a < 16777216.0f && a == (float)(uint32_t)a) {
		if (neg)
			colfs_buf_putc(b, '-');
		put_u64(b, (uint32_t)a);
		colfs_buf_append(b, ".0", 2);
		return;
	}
	uint32_t bits;
	memcpy(&bits, &a, 4);
	{
		uint32_t frac = bits & ((UINT32_C(1) << 23) - 1);
		int bexp = (int)(bits >> 23);
		if (bexp && shortest_fast(frac | UINT32_C(1) << 23, bexp - 150,
					  frac == 0 && bexp > 1, digits, &ndig,
					  &exp10)) {
			put_float_digits(b, neg, digits, ndig, exp10);
			return;
		}
	}
	for (int prec = a < 1.17549435e-38f ? 1 : 6; prec <= 9; prec++) {
		snprintf(s, sizeof(s), "%.*e", prec - 1, (double)a);
		if (prec == 9 || strtof(s, NULL) == a)
			break;
	}
	split_sci(s, digits, &ndig, &exp10);
	if ((bits & ((UINT32_C(1) << 23) - 1)) == 0)
		shorter_above(digits, &ndig, &exp10, a, true);
	put_float_digits(b, neg, digits, ndig, exp10);
}

float colfs_float16_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31;
	uint32_t exp = (h >> 10) & 0x1f;
	uint32_t mant = h & 0x3ff;
	float f;

	if (exp == 0) {
		/* zero or subnormal: mant * 2^-24 exactly */
		f = ldexpf((float)mant, -24);
		return sign ? -f : f;
	}
	uint32_t bits;
	if (exp == 31)
		bits = sign | 0x7f800000u | mant << 13;
	else
		bits = sign | (exp + 112) << 23 | mant << 13;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

void colfs_render_float16(colfs_buf *b, const colfs_render *r, uint16_t bits)
{
	colfs_render_float(b, r, colfs_float16_to_float(bits));
}

/* ---- strings and bytes ---------------------------------------------------- */

/* Length of the valid UTF-8 sequence starting at p[0] (a byte >= 0x80),
 * or 0 when it is not one (overlong forms, surrogates and code points past
 * U+10FFFF are invalid). */
static size_t utf8_seq_len(const uint8_t *p, size_t left)
{
	uint8_t c = p[0];

	if (c >= 0xc2 && c <= 0xdf) {
		if (left >= 2 && (p[1] & 0xc0) == 0x80)
			return 2;
		return 0;
	}
	if (c >= 0xe0 && c <= 0xef) {
		if (left < 3 || (p[1] & 0xc0) != 0x80 ||
		    (p[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && p[1] < 0xa0)
			return 0;       /* overlong */
		if (c == 0xed && p[1] >= 0xa0)
			return 0;       /* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (left < 4 || (p[1] & 0xc0) != 0x80 ||
		    (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && p[1] < 0x90)
			return 0;       /* overlong */
		if (c == 0xf4 && p[1] >= 0x90)
			return 0;       /* past U+10FFFF */
		return 4;
	}
	return 0;
}

static void put_hex_escape(colfs_buf *b, uint8_t c, bool json)
{
	char e[5] = { '\\', 'x', hex_upper[c >> 4], hex_upper[c & 15] };

	if (json)
		colfs_buf_append(b, "\\\\", 2);
	else
		colfs_buf_putc(b, '\\');
	colfs_buf_append(b, e + 1, 3);
}

const uint8_t colfs_render_text_plain[256] = {
	[0x20 ... 0x5b] = 1,    /* '\\' is 0x5c */
	[0x5d ... 0x7e] = 1,
};

static void text_string(colfs_buf *b, const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t start = i;

		/* the common case: a run of printable ASCII */
		while (i < n && colfs_render_text_plain[p[i]])
			i++;
		if (i > start)
			colfs_buf_append(b, p + start, i - start);
		if (i >= n)
			break;
		uint8_t c = p[i];
		if (c >= 0x80) {
			size_t l = utf8_seq_len(p + i, n - i);
			if (l) {
				colfs_buf_append(b, p + i, l);
				i += l;
				continue;
			}
			put_hex_escape(b, c, false);
		} else if (c == '\\') {
			colfs_buf_append(b, "\\\\", 2);
		} else if (c == '\n') {
			colfs_buf_append(b, "\\n", 2);
		} else if (c == '\r') {
			colfs_buf_append(b, "\\r", 2);
		} else if (c == '\t') {
			colfs_buf_append(b, "\\t", 2);
		} else {
			put_hex_escape(b, c, false);
		}
		i++;
	}
}

void colfs_render_json_string(colfs_buf *b, const uint8_t *p, size_t n)
{
	size_t i = 0;

	colfs_buf_putc(b, '"');
	while (i < n) {
		size_t start = i;

		while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '\\' &&
		       p[i] != '"')
			i++;
		if (i > start)
			colfs_buf_append(b, p + start, i - start);
		if (i >= n)
			break;
		uint8_t c = p[i];
		if (c >= 0x80) {
			size_t l = utf8_seq_len(p + i, n - i);
			if (l) {
				colfs_buf_append(b, p + i, l);
				i += l;
				continue;
			}
			put_hex_escape(b, c, true);
		} else if (c == '\\') {
			colfs_buf_append(b, "\\\\", 2);
		} else if (c == '"') {
			colfs_buf_append(b, "\\\"", 2);
		} else if (c == '\n') {
			colfs_buf_append(b, "\\n", 2);
		} else if (c == '\r') {
			colfs_buf_append(b, "\\r", 2);
		} else if (c == '\t') {
			colfs_buf_append(b, "\\t", 2);
		} else if (c == '\b') {
			colfs_buf_append(b, "\\b", 2);
		} else if (c == '\f') {
			colfs_buf_append(b, "\\f", 2);
		} else {
			char u[6] = { '\\', 'u', '0', '0', hex_upper[c >> 4],
				      hex_upper[c & 15] };
			colfs_buf_append(b, u, 6);
		}
		i++;
	}
	colfs_buf_putc(b, '"');
}

/* A string in CSV mode: its bytes as they are, but for those that are
 * not UTF-8 (\xHH, as in text mode), so the field stays UTF-8 and never
 * holds COLFS_RENDER_CSV_NULL's byte. */
static void csv_string(colfs_buf *b, const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t start = i;

		while (i < n && p[i] < 0x80)
			i++;
		if (i > start)
			colfs_buf_append(b, p + start, i - start);
		if (i >= n)
			break;
		size_t l = utf8_seq_len(p + i, n - i);
		if (l) {
			colfs_buf_append(b, p + i, l);
			i += l;
		} else {
			put_hex_escape(b, p[i], false);
			i++;
		}
	}
}

void colfs_render_string(colfs_buf *b, const colfs_render *r,
			 const uint8_t *p, size_t n)
{
	if (r && r->json)
		colfs_render_json_string(b, p, n);
	else if (r && r->csv)
		csv_string(b, p, n);
	else
		text_string(b, p, n);
}

void colfs_render_binary(colfs_buf *b, const colfs_render *r,
			 const uint8_t *p, size_t n)
{
	bool json = r && r->json;
	size_t i = 0;

	json_open(b, r);
	while (i < n) {
		size_t start = i;

		while (i < n && p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\' &&
		       p[i] != '\'' && p[i] != '"')
			i++;
		if (i > start)
			colfs_buf_append(b, p + start, i - start);
		if (i >= n)
			break;
		put_hex_escape(b, p[i], json);
		i++;
	}
	json_close(b, r);
}

/* p, n between quotes, each inner quote doubled. */
static void csv_quoted(colfs_buf *b, const char *p, size_t n)
{
	size_t start = 0;

	colfs_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '"') {
			colfs_buf_append(b, p + start, i + 1 - start);
			colfs_buf_putc(b, '"');
			start = i + 1;
		}
	}
	colfs_buf_append(b, p + start, n - start);
	colfs_buf_putc(b, '"');
}

colfs_render colfs_render_csv_mode(void)
{
	return (colfs_render){.null_token = COLFS_RENDER_CSV_NULL,
			      .csv = true};
}

void colfs_render_csv_value(colfs_buf *b, const char *p, size_t n,
			    const char *null_text)
{
	size_t nl = null_text ? strlen(null_text) : 0;

	if (!p)
		p = "";
	if (n == sizeof COLFS_RENDER_CSV_NULL - 1 &&
	    !memcmp(p, COLFS_RENDER_CSV_NULL, n)) {
		colfs_buf_append(b, null_text ? null_text : "", nl);
		return;
	}
	if (nl && n == nl && !memcmp(p, null_text, n)) {
		/* the NULL text's own characters: quoted, so that a reader
		 * told that NULL is that text reads them back as a value */
		csv_quoted(b, p, n);
		return;
	}
	colfs_render_csv_field(b, p, n);
}

void colfs_render_csv_field(colfs_buf *b, const char *p, size_t n)
{
	bool quote = n == 0;   /* the empty string: "" (NULL is empty) */

	for (size_t i = 0; i < n && !quote; i++) {
		char c = p[i];
		quote = c == ',' || c == '"' || c == '\r' || c == '\n';
	}
	if (quote)
		csv_quoted(b, p, n);
	else
		colfs_buf_append(b, p, n);
}

/* ---- decimals ------------------------------------------------------------- */

/* Lay out the magnitude digits `d` (most significant first, no leading
 * zeros, at least one digit) with `scale` fraction digits. */
static void put_scaled_digits(colfs_buf *b, bool neg, const char *d,
			      size_t nd, int32_t scale)
{
	if (neg)
		colfs_buf_putc(b, '-');
	if (scale <= 0) {
		colfs_buf_append(b, d, nd);
		if (!(nd == 1 && d[0] == '0'))
			for (int32_t i = 0; i > scale; i--)
				colfs_buf_putc(b, '0');
		return;
	}
	if (nd > (size_t)scale) {
		colfs_buf_append(b, d, nd - (size_t)scale);
		colfs_buf_putc(b, '.');
		colfs_buf_append(b, d + nd - (size_t)scale, (size_t)scale);
		return;
	}
	colfs_buf_append(b, "0.", 2);
	for (size_t i = nd; i < (size_t)scale; i++)
		colfs_buf_putc(b, '0');
	colfs_buf_append(b, d, nd);
}

void colfs_render_decimal_i64(colfs_buf *b, const colfs_render *r,
			      int64_t unscaled, int32_t scale)
{
	char tmp[24];
	size_t i = sizeof(tmp);
	uint64_t m = unscaled < 0 ? 0 - (uint64_t)unscaled : (uint64_t)unscaled;

	(void)r;
	do {
		tmp[--i] = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	put_scaled_digits(b, unscaled < 0, tmp + i, sizeof(tmp) - i, scale);
}

void colfs_render_decimal_be(colfs_buf *b, const colfs_render *r,
			     const uint8_t *p, size_t n, int32_t scale)
{
	bool neg = n > 0 && (p[0] & 0x80);

	/* skip redundant sign-extension bytes */
	while (n > 1 && p[0] == (neg ? 0xff : 0x00) &&
	       ((p[1] & 0x80) != 0) == neg) {
		p++;
		n--;
	}
	if (n <= 8) {
		uint64_t v = neg ? ~(uint64_t)0 : 0;
		for (size_t i = 0; i < n; i++)
			v = v << 8 | p[i];
		colfs_render_decimal_i64(b, r, (int64_t)v, scale);
		return;
	}
	/* General case: magnitude as base-2^32 limbs (most significant
	 * first), repeatedly divided by 10^9. */
	size_t nl = (n + 3) / 4;
	uint32_t *limb = calloc(nl, sizeof(*limb));
	/* each 10^9 chunk takes 29.9 bits: at most 1.08*nl + 1 chunks */
	size_t dcap = nl * 10 + 16;
	char *digits = malloc(dcap);
	if (!limb || !digits) {
		free(limb);
		free(digits);
		b->failed = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t bytepos = n - 1 - i;     /* from least significant */
		uint8_t v = p[bytepos];
		limb[nl - 1 - i / 4] |= (uint32_t)v << (8 * (i % 4));
	}
	if (neg) {
		/* two's complement over the full limb width (sign-extend the
		 * top limb first) */
		size_t topbytes = n % 4;
		if (topbytes)
			limb[0] |= ~(uint32_t)0 << (8 * topbytes);
		uint64_t carry = 1;
		for (size_t i = nl; i-- > 0;) {
			uint64_t s = (uint64_t)(uint32_t)~limb[i] + carry;
			limb[i] = (uint32_t)s;
			carry = s >> 32;
		}
	}
	size_t nd = 0, first = 0;
	char *end = digits + dcap;
	for (;;) {
		while (first < nl && limb[first] == 0)
			first++;
		if (first == nl)
			break;
		uint64_t rem = 0;
		for (size_t i = first; i < nl; i++) {
			uint64_t cur = rem << 32 | limb[i];
			limb[i] = (uint32_t)(cur / 1000000000u);
			rem = cur % 1000000000u;
		}
		for (int k = 0; k < 9; k++) {
			*--end = (char)('0' + rem % 10);
			rem /= 10;
			nd++;
		}
	}
	while (nd > 1 && *end == '0') {
		end++;
		nd--;
	}
	if (nd == 0) {
		*--end = '0';
		nd = 1;
	}
	put_scaled_digits(b, neg, end, nd, scale);
	free(limb);
	free(digits);
}

/* ---- dates and times ------------------------------------------------------ */

/* render.h */
void colfs_civil_from_days(int64_t days, __int128 *y, unsigned *m,
			   unsigned *d)
{
	__int128 z = (__int128)days + 719468;
	__int128 era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (__int128)yoe + era * 400 + (*m <= 2);
}

static void put_i128(colfs_buf *b, unsigned __int128 v, int width)
{
	char tmp[48];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + (int)(v % 10));
		v /= 10;
		width--;
	} while (v || width > 0);
	colfs_buf_append(b, tmp + i, sizeof(tmp) - i);
}

/* YYYY-MM-DD; returns whether the year is before 1 (the caller then adds
 * " (BC)" where DuckDB puts it). */
static bool put_ymd(colfs_buf *b, int64_t days)
{
	__int128 y;
	unsigned m, d;
	bool bc;

	colfs_civil_from_days(days, &y, &m, &d);
	bc = y <= 0;
	put_i128(b, (unsigned __int128)(bc ? 1 - y : y), 4);
	char md[6] = { '-', (char)('0' + m / 10), (char)('0' + m % 10), '-',
		       (char)('0' + d / 10), (char)('0' + d % 10) };
	colfs_buf_append(b, md, 6);
	return bc;
}

void colfs_render_date(colfs_buf *b, const colfs_render *r, int64_t days)
{
	json_open(b, r);
	if (put_ymd(b, days))
		colfs_buf_append(b, " (BC)", 5);
	json_close(b, r);
}

static const uint64_t unit_per_second[] = { 1, 1000, 1000000, 1000000000 };
static const int unit_digits[] = { 0, 3, 6, 9 };

/* HH:MM:SS from seconds (hours may exceed 23), then the fraction. */
static void put_hms(colfs_buf *b, uint64_t secs, uint64_t frac, int digits)
{
	put_u64_pad(b, secs / 3600, 2);
	char ms[6] = { ':', (char)('0' + secs / 60 % 60 / 10),
		       (char)('0' + secs / 60 % 60 % 10), ':',
		       (char)('0' + secs % 60 / 10), (char)('0' + secs % 10) };
	colfs_buf_append(b, ms, 6);
	put_fraction(b, frac, digits);
}

static void put_time(colfs_buf *b, int64_t v, colfs_time_unit unit)
{
	unsigned u = (unsigned)unit <= COLFS_UNIT_NANOS ? (unsigned)unit : 0;
	uint64_t per = unit_per_second[u];
	uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (v < 0)
		colfs_buf_putc(b, '-');
	put_hms(b, a / per, a % per, unit_digits[u]);
}

void colfs_render_time(colfs_buf *b, const colfs_render *r, int64_t v,
		       colfs_time_unit unit)
{
	json_open(b, r);
	put_time(b, v, unit);
	json_close(b, r);
}

void colfs_render_timetz(colfs_buf *b, const colfs_render *r, int64_t v,
			 colfs_time_unit unit, int32_t offset_seconds)
{
	int64_t o = offset_seconds;
	uint64_t a = o < 0 ? (uint64_t)-o : (uint64_t)o;

	json_open(b, r);
	put_time(b, v, unit);
	colfs_buf_putc(b, o < 0 ? '-' : '+');
	put_u64_pad(b, a / 3600, 2);
	if (a % 3600) {
		colfs_buf_putc(b, ':');
		put_u64_pad(b, a / 60 % 60, 2);
		if (a % 60) {
			colfs_buf_putc(b, ':');
			put_u64_pad(b, a % 60, 2);
		}
	}
	json_close(b, r);
}

static void put_timestamp(colfs_buf *b, int64_t seconds, uint32_t nanos,
			  bool utc)
{
	int64_t days = seconds / 86400;
	int64_t sod = seconds % 86400;
	bool bc;

	if (sod < 0) {
		sod += 86400;
		days--;
	}
	bc = put_ymd(b, days);
	if (bc)
		colfs_buf_append(b, " (BC)", 5);
	colfs_buf_putc(b, ' ');
	put_hms(b, (uint64_t)sod, nanos, 9);
	if (utc)
		colfs_buf_append(b, "+00", 3);
}

void colfs_render_timestamp_parts(colfs_buf *b, const colfs_render *r,
				  int64_t seconds, uint32_t nanos, bool utc)
{
	json_open(b, r);
	if (nanos >= 1000000000u) {
		/* Carry whole seconds; at the very end of the range there is
		 * nowhere to carry to, so show the largest fraction instead. */
		if (__builtin_add_overflow(seconds,
					   (int64_t)(nanos / 1000000000u),
					   &seconds))
			nanos = 999999999u;
		else
			nanos %= 1000000000u;
	}
	put_timestamp(b, seconds, nanos, utc);
	json_close(b, r);
}

void colfs_render_timestamp(colfs_buf *b, const colfs_render *r, int64_t v,
			    colfs_time_unit unit, bool utc)
{
	unsigned u = (unsigned)unit <= COLFS_UNIT_NANOS ? (unsigned)unit : 0;
	int64_t per = (int64_t)unit_per_second[u];
	int64_t secs = v / per, sub = v % per;

	if (sub < 0) {
		sub += per;
		secs--;
	}
	json_open(b, r);
	put_timestamp(b, secs, (uint32_t)(sub * (1000000000 / per)), utc);
	json_close(b, r);
}

void colfs_render_int96(colfs_buf *b, const colfs_render *r,
			const uint8_t p[12])
{
	/* Both fields are signed, as Spark, parquet-mr and Arrow read them. */
	int64_t nanos = (int64_t)colfs_le64(p);
	int32_t jd = (int32_t)colfs_le32(p + 8);
	/* Spark's rule: microseconds since the epoch in 64-bit arithmetic
	 * that wraps.  Where the value fits (every timestamp of years
	 * -290308..294247) this is exact; it also undoes the overflow of
	 * Spark writers that stored years near 290000 (see docs/values.md). */
	uint64_t day_us = (uint64_t)((int64_t)jd - 2440588) * 86400000000ull;
	int64_t micros = (int64_t)(day_us + (uint64_t)(nanos / 1000));
	int64_t sub = nanos % 1000;
	if (sub < 0) {
		sub += 1000;
		micros = (int64_t)((uint64_t)micros - 1);
	}
	int64_t secs = micros / 1000000, us = micros % 1000000;
	if (us < 0) {
		us += 1000000;
		secs--;
	}
	colfs_render_timestamp_parts(b, r, secs, (uint32_t)(us * 1000 + sub),
				     false);
}

void colfs_render_uuid(colfs_buf *b, const colfs_render *r,
		       const uint8_t p[16])
{
	char s[36];
	size_t o = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			s[o++] = '-';
		s[o++] = hex_lower[p[i] >> 4];
		s[o++] = hex_lower[p[i] & 15];
	}
	json_open(b, r);
	colfs_buf_append(b, s, sizeof(s));
	json_close(b, r);
}

static void put_interval_part(colfs_buf *b, bool *any, int64_t v,
			      const char *unit)
{
	if (v == 0)
		return;
	if (*any)
		colfs_buf_putc(b, ' ');
	put_i64(b, v);
	colfs_buf_putc(b, ' ');
	colfs_buf_puts(b, unit);
	if (v != 1 && v != -1)
		colfs_buf_putc(b, 's');
	*any = true;
}

void colfs_render_interval(colfs_buf *b, const colfs_render *r,
			   int64_t months, int64_t days, int64_t micros)
{
	bool any = false;

	json_open(b, r);
	put_interval_part(b, &any, months / 12, "year");
	put_interval_part(b, &any, months % 12, "month");
	put_interval_part(b, &any, days, "day");
	if (micros != 0 || !any) {
		if (any)
			colfs_buf_putc(b, ' ');
		put_time(b, micros, COLFS_UNIT_MICROS);
	}
	json_close(b, r);
}

void colfs_render_interval_parquet(colfs_buf *b, const colfs_render *r,
				   const uint8_t p[12])
{
	uint32_t months = colfs_le32(p), days = colfs_le32(p + 4),
		 millis = colfs_le32(p + 8);

	colfs_render_interval(b, r, months, days, (int64_t)millis * 1000);
}

/* colfs: the inverse of pq_render_value for one value.  Text as
 * docs/values.md renders it (text mode) becomes the value's PLAIN bytes
 * (a byte array without its 4-byte length prefix), which is what a
 * split-block bloom filter hashes.
 *
 * Every candidate is rendered again and must give back exactly the text
 * it came from, so only canonical renderings are accepted and a parse
 * that is lenient inside (leading zeros, an hour past 23) cannot turn
 * one text into the bytes of another value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pq_decode.h"
#include "parquet/parquet_thrift.h"
#include "core/hex.h"

#define NS_PER_DAY 86400000000000LL
/* The widest big-endian decimal accepted: 64 bytes (over 150 digits). */
#define DEC_MAX_BYTES 64

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* At least `min` digits into *v (no overflow past 10^18). */
static bool take_digits(const char **p, int min, int64_t *v)
{
	const char *s = *p;
	int64_t x = 0;
	int n = 0;

	while (digit(*s)) {
		if (x > 99999999999999999LL)
			return false;
		x = x * 10 + (*s++ - '0');
		n++;
	}
	if (n < min)
		return false;
	*v = x;
	*p = s;
	return true;
}

static bool take(const char **p, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* YYYY-MM-DD[ (BC)]: days since 1970-01-01, proleptic Gregorian. */
static bool take_date(const char **p, int64_t *days)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				    30, 31};
	int64_t y, m, d;

	if (!take_digits(p, 4, &y) || y > 1000000000 || !take(p, "-") ||
	    !take_digits(p, 2, &m) || !take(p, "-") || !take_digits(p, 2, &d))
		return false;
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	if (take(p, " (BC)"))
		y = 1 - y;       /* 1 BC is year 0 */
	y -= m <= 2;
	int64_t era = floor_div(y, 400);
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	*days = era * 146097 + doe - 719468;
	return true;
}

/* HH:MM:SS[.fraction] (hours may pass 23): nanoseconds. */
static bool take_time(const char **p, int64_t *ns)
{
	int64_t h, m, s, frac = 0;

	if (!take_digits(p, 2, &h) || h > 2562047 || !take(p, ":") ||
	    !take_digits(p, 2, &m) || m > 59 || !take(p, ":") ||
	    !take_digits(p, 2, &s) || s > 59)
		return false;
	if (take(p, ".")) {
		int n = 0;
		while (digit(**p) && n < 9) {
			frac = frac * 10 + (*(*p)++ - '0');
			n++;
		}
		if (n == 0 || digit(**p))
			return false;
		for (; n < 9; n++)
			frac *= 10;
	}
	*ns = ((h * 60 + m) * 60 + s) * 1000000000LL + frac;
	return true;
}

static int64_t ns_per_unit(int32_t unit)
{
	return unit == 1 ? 1000000 : unit == 3 ? 1 : 1000;
}

static void put_le(uint8_t *out, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

/* An unscaled decimal integer: optional '-', digits, and exactly `scale`
 * digits after a '.' when scale > 0.  Into a big-endian two's complement
 * number of DEC_MAX_BYTES bytes. */
static bool take_decimal_be(const char *p, int32_t scale,
			    uint8_t be[DEC_MAX_BYTES])
{
	bool neg = false, any = false;
	int32_t frac = -1;

	memset(be, 0, DEC_MAX_BYTES);
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; *p; p++) {
		if (*p == '.' && scale > 0 && frac < 0) {
			frac = 0;
			continue;
		}
		if (!digit(*p))
			return false;
		if (frac >= 0 && ++frac > scale)
			return false;
		unsigned carry = (unsigned)(*p - '0');
		for (int i = DEC_MAX_BYTES - 1; i >= 0; i--) {
			unsigned x = be[i] * 10u + carry;
			be[i] = (uint8_t)x;
			carry = x >> 8;
		}
		if (carry || be[0] & 0x80)
			return false;   /* too wide */
		any = true;
	}
	if (!any || (scale > 0 && frac != scale))
		return false;
	if (neg) {
		unsigned carry = 1;
		for (int i = DEC_MAX_BYTES - 1; i >= 0; i--) {
			unsigned x = (uint8_t)~be[i] + carry;
			be[i] = (uint8_t)x;
			carry = x >> 8;
		}
	}
	return true;
}

/* The smallest number of leading bytes of `be` that can go while the
 * value keeps its sign. */
static size_t redundant_sign_bytes(const uint8_t be[DEC_MAX_BYTES])
{
	size_t k = 0;

	while (k + 1 < DEC_MAX_BYTES &&
	       ((be[k] == 0x00 && !(be[k + 1] & 0x80)) ||
		(be[k] == 0xff && (be[k + 1] & 0x80))))
		k++;
	return k;
}

/* A float that a binary16 holds exactly, as its bits. */
static bool float16_bits_of(float f, uint16_t *out)
{
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	double a = fabs((double)f);

	if (isnan(f)) {
		*out = 0x7e00;
		return true;
	}
	if (isinf(f)) {
		*out = sign | 0x7c00;
		return true;
	}
	if (a == 0) {
		*out = sign;
		return true;
	}
	int e;
	(void)frexp(a, &e);     /* a = m * 2^e, m in [0.5, 1) */
	int E = e - 1;          /* a = 1.f * 2^E */
	double man;
	if (E < -14) {          /* subnormal: a = man * 2^-24 */
		man = ldexp(a, 24);
		if (man != floor(man) || man >= 1024)
			return false;
		*out = sign | (uint16_t)man;
		return true;
	}
	if (E > 15)
		return false;
	man = (ldexp(a, -E) - 1) * 1024;
	if (man != floor(man))
		return false;
	*out = sign | (uint16_t)((E + 15) << 10) | (uint16_t)man;
	return true;
}

/* Undo the text escapes of strings and binary (\\ \n \r \t \xHH); at
 * most strlen(p) bytes. */
static size_t unescape(const char *p, uint8_t *out)
{
	size_t n = 0;

	while (*p) {
		if (p[0] == '\\' && p[1]) {
			switch (p[1]) {
			case '\\': out[n++] = '\\'; p += 2; continue;
			case 'n': out[n++] = '\n'; p += 2; continue;
			case 'r': out[n++] = '\r'; p += 2; continue;
			case 't': out[n++] = '\t'; p += 2; continue;
			case 'x':
				if (colfs_hex_digit(p[2]) >= 0 && colfs_hex_digit(p[3]) >= 0) {
					out[n++] = (uint8_t)(colfs_hex_digit(p[2]) * 16 +
							     colfs_hex_digit(p[3]));
					p += 4;
					continue;
				}
			}
		}
		out[n++] = (uint8_t)*p++;
	}
	return n;
}

/* "N year(s)", "N month(s)", "N day(s)" and a time part: the three
 * unsigned fields of a Parquet INTERVAL. */
static bool take_interval(const char *p, uint8_t out[12])
{
	int64_t years = 0, months = 0, days = 0, ns = 0, v;

	while (*p) {
		const char *q = p;
		if (digit(*p) && take_digits(&q, 1, &v) && *q == ' ') {
			q++;
			if (take(&q, "years") || take(&q, "year"))
				years = v;
			else if (take(&q, "months") || take(&q, "month"))
				months = v;
			else if (take(&q, "days") || take(&q, "day"))
				days = v;
			else
				return false;
		} else if (q = p, !take_time(&q, &ns)) {
			return false;
		}
		p = q;
		if (*p && !take(&p, " "))
			return false;
	}
	months += years * 12;
	if (months > UINT32_MAX || days > UINT32_MAX ||
	    ns % 1000000 || ns / 1000000 > UINT32_MAX)
		return false;
	put_le(out, (uint64_t)months, 4);
	put_le(out + 4, (uint64_t)days, 4);
	put_le(out + 8, (uint64_t)(ns / 1000000), 4);
	return true;
}

static bool is_decimal(const pq_type *t)
{
	return t->logical == PARQUET_LT_DECIMAL ||
	       (t->logical == 0 && t->converted == PARQUET_CT_DECIMAL);
}

/* The candidate for an INT32/INT64 column, by annotation. */
static bool int_candidate(const pq_type *t, const char *text, int64_t *v)
{
	const char *p = text;
	int64_t d, ns;

	if (is_decimal(t) || t->logical == 10 ||
	    (t->logical == 0 && (t->converted < 0 ||
				 (t->converted >= 11 && t->converted <= 18)))) {
		/* integers (signed, unsigned) and decimals: the digits */
		uint8_t be[DEC_MAX_BYTES];
		if (!take_decimal_be(text, is_decimal(t) ? t->scale : 0, be))
			return false;
		uint64_t x = 0;
		for (int i = DEC_MAX_BYTES - 8; i < DEC_MAX_BYTES; i++)
			x = x << 8 | be[i];
		*v = (int64_t)x;  /* the re-render rejects what did not fit */
		return true;
	}
	if (t->logical == PARQUET_LT_DATE ||
	    (t->logical == 0 && t->converted == PARQUET_CT_DATE))
		return take_date(&p, v) && !*p;
	if (t->logical == PARQUET_LT_TIME ||
	    (t->logical == 0 && (t->converted == PARQUET_CT_TIME_MILLIS ||
				 t->converted == PARQUET_CT_TIME_MICROS))) {
		int32_t unit = t->logical ? t->unit :
			       t->converted == PARQUET_CT_TIME_MILLIS ? 1 : 2;
		bool neg = take(&p, "-");
		if (!take_time(&p, &ns))
			return false;
		if (t->logical && t->utc && !take(&p, "+00"))
			return false;
		if (*p || ns % ns_per_unit(unit))
			return false;
		*v = (neg ? -ns : ns) / ns_per_unit(unit);
		return true;
	}
	if (t->logical == PARQUET_LT_TIMESTAMP ||
	    (t->logical == 0 && (t->converted == PARQUET_CT_TIMESTAMP_MILLIS ||
				 t->converted == PARQUET_CT_TIMESTAMP_MICROS))) {
		int32_t unit = t->logical ? t->unit :
			       t->converted == PARQUET_CT_TIMESTAMP_MILLIS ? 1 : 2;
		int64_t per = ns_per_unit(unit);
		if (!take_date(&p, &d) || !take(&p, " ") || !take_time(&p, &ns) ||
		    ns >= NS_PER_DAY)
			return false;
		if (t->logical && t->utc && !take(&p, "+00"))
			return false;
		if (*p || ns % per)
			return false;
		/* days * (units per day) + units of the day, in 128 bits */
		__int128 u = (__int128)d * (NS_PER_DAY / per) + ns / per;
		if (u > INT64_MAX || u < INT64_MIN)
			return false;
		*v = (int64_t)u;
		return true;
	}
	return false;
}

static bool render_matches(const pq_type *t, const pq_values *pv,
			   const char *text)
{
	colfs_buf b = COLFS_BUF_INIT;
	bool same;

	pq_render_value(&b, &colfs_render_text_default, t, pv, 0);
	same = !b.failed && b.len == strlen(text) &&
	       (b.len == 0 || !memcmp(b.data, text, b.len));
	colfs_buf_free(&b);
	return same;
}

bool pq_text_to_plain(const pq_type *t, const char *text, uint8_t *out,
		      size_t cap, size_t *len)
{
	pq_values pv = {.physical_type = t->physical, .count = 1};
	size_t tl = strlen(text);
	int64_t i64;
	int32_t i32;
	float f32;
	double f64;
	pq_bytes bytes;
	char *end;

	switch (t->physical) {
	case PARQUET_INT32:
	case PARQUET_INT64:
		if (cap < 8 || !int_candidate(t, text, &i64))
			return false;
		if (t->physical == PARQUET_INT32) {
			if (i64 < INT32_MIN || i64 > (int64_t)UINT32_MAX)
				return false;
			i32 = (int32_t)(uint32_t)i64;
			pv.v.i32 = &i32;
			put_le(out, (uint32_t)i32, 4);
			*len = 4;
		} else {
			pv.v.i64 = &i64;
			put_le(out, (uint64_t)i64, 8);
			*len = 8;
		}
		break;
	case PARQUET_FLOAT:
	case PARQUET_DOUBLE:
		if (cap < 8 || !*text)
			return false;
		f64 = strtod(text, &end);
		if (*end)
			return false;
		if (t->physical == PARQUET_FLOAT) {
			f32 = strtof(text, &end);
			uint32_t u;
			memcpy(&u, &f32, 4);
			put_le(out, u, 4);
			pv.v.f32 = &f32;
			*len = 4;
		} else {
			uint64_t u;
			memcpy(&u, &f64, 8);
			put_le(out, u, 8);
			pv.v.f64 = &f64;
			*len = 8;
		}
		break;
	case PARQUET_INT96: {
		const char *p = text;
		int64_t d, ns;
		if (cap < 12 || !take_date(&p, &d) || !take(&p, " ") ||
		    !take_time(&p, &ns) || ns >= NS_PER_DAY || *p)
			return false;
		if (d + 2440588 < INT32_MIN || d + 2440588 > INT32_MAX)
			return false;
		put_le(out, (uint64_t)ns, 8);
		put_le(out + 8, (uint32_t)(int32_t)(d + 2440588), 4);
		bytes = (pq_bytes){out, 12};
		pv.v.bytes = &bytes;
		*len = 12;
		break;
	}
	case PARQUET_BYTE_ARRAY:
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		if (is_decimal(t)) {
			uint8_t be[DEC_MAX_BYTES];
			size_t k;
			if (!take_decimal_be(text, t->scale, be))
				return false;
			k = redundant_sign_bytes(be);
			if (t->physical == PARQUET_FIXED_LEN_BYTE_ARRAY) {
				/* sign-extended to the column's width */
				if (t->type_length <= 0 ||
				    (size_t)t->type_length > cap ||
				    DEC_MAX_BYTES - k > (size_t)t->type_length)
					return false;
				size_t w = (size_t)t->type_length, pad;
				pad = w > DEC_MAX_BYTES ? w - DEC_MAX_BYTES : 0;
				memset(out, be[0] & 0x80 ? 0xff : 0, pad);
				memcpy(out + pad, be + DEC_MAX_BYTES - (w - pad),
				       w - pad);
				*len = w;
			} else {
				/* the minimal two's complement bytes */
				if (DEC_MAX_BYTES - k > cap)
					return false;
				memcpy(out, be + k, DEC_MAX_BYTES - k);
				*len = DEC_MAX_BYTES - k;
			}
		} else if (t->physical == PARQUET_FIXED_LEN_BYTE_ARRAY &&
			   t->logical == PARQUET_LT_UUID) {
			const char *p = text;
			if (tl != 36 || cap < 16)
				return false;
			for (int i = 0; i < 16; i++) {
				if (i == 4 || i == 6 || i == 8 || i == 10) {
					if (*p++ != '-')
						return false;
				}
				int hi = colfs_hex_digit(p[0]), lo = colfs_hex_digit(p[1]);
				if (hi < 0 || lo < 0)
					return false;
				out[i] = (uint8_t)(hi << 4 | lo);
				p += 2;
			}
			*len = 16;
		} else if (t->physical == PARQUET_FIXED_LEN_BYTE_ARRAY &&
			   t->logical == PARQUET_LT_FLOAT16) {
			uint16_t h;
			if (cap < 2 || !*text)
				return false;
			f32 = strtof(text, &end);
			if (*end || !float16_bits_of(f32, &h))
				return false;
			put_le(out, h, 2);
			*len = 2;
		} else if (t->physical == PARQUET_FIXED_LEN_BYTE_ARRAY &&
			   t->logical == 0 &&
			   t->converted == PARQUET_CT_INTERVAL) {
			if (cap < 12 || !take_interval(text, out))
				return false;
			*len = 12;
		} else {
			if (cap < tl)
				return false;
			*len = unescape(text, out);
		}
		if (t->physical == PARQUET_FIXED_LEN_BYTE_ARRAY &&
		    (int64_t)*len != t->type_length)
			return false;
		bytes = (pq_bytes){out, (uint32_t)*len};
		pv.v.bytes = &bytes;
		break;
	default:
		return false;   /* BOOLEAN: no bloom filters */
	}
	return render_matches(t, &pv, text);
}

/* colfs: rendering of typed values as text, shared by every format.
 *
 * One value becomes one line of text (the caller appends the newline), or
 * one JSON value when rendering nested data (columns/<field> of a nested
 * type, rows.jsonl).  The exact rules, with examples, are in
 * docs/values.md; the short form:
 *
 *   NULL        the null token (default `\N`); `null` in JSON
 *   integers    decimal digits; unsigned types never show a sign
 *   booleans    true / false
 *   floats      shortest digits that read back to the same value, printed
 *               as DuckDB prints them (1e+21, 1e-05, 0.1, 100.0);
 *               nan, inf, -inf (JSON: the strings "nan", "inf", "-inf")
 *   strings     UTF-8 kept; \\ \n \r \t escaped, other control bytes and
 *               invalid UTF-8 as \xHH (in a rows.csv field, CSV mode,
 *               only invalid UTF-8)
 *   binary      as DuckDB prints a BLOB: printable ASCII kept except
 *               \ ' " which, like every other byte, become \xHH (upper
 *               case hex)
 *   decimal     exact digits with exactly `scale` fraction digits
 *   date        YYYY-MM-DD (years before 1 as DuckDB: `0001-01-01 (BC)`)
 *   time        HH:MM:SS[.fraction], trailing fraction zeros dropped
 *   timestamp   YYYY-MM-DD HH:MM:SS[.fraction], `+00` appended when
 *               adjusted to UTC
 *   uuid        8-4-4-4-12 lower-case hex
 *   interval    as DuckDB: `1 year 2 months 3 days 04:05:06.007`
 *
 * Every function appends to a colfs_buf (whose failure is sticky: check
 * colfs_buf_status once at the end) and never fails otherwise: every input
 * value has a rendering. */
#ifndef COLFS_RENDER_H
#define COLFS_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "status.h"

/* How to render.  Zero-initialised means: text mode, null token `\N`. */
typedef struct colfs_render {
	const char *null_token;  /* text mode NULL; NULL pointer means "\\N" */
	bool json;               /* render JSON values instead of text */
	bool csv;                /* text mode for a rows.csv field
				  * (colfs_render_csv_mode) */
} colfs_render;

/* The time units of TIME/TIMESTAMP values. */
typedef enum colfs_time_unit {
	COLFS_UNIT_SECONDS = 0,
	COLFS_UNIT_MILLIS,
	COLFS_UNIT_MICROS,
	COLFS_UNIT_NANOS,
} colfs_time_unit;

extern const char colfs_digit_pairs[200];
/* How many decimal digits colfs_put_u64 writes for v (1 to 20). */
static inline unsigned colfs_u64_digits(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull,
		10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* floor(log10(v)) + 1 from the bit length (1233/4096 ~ log10 2) */
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
	unsigned n = (bits * 1233) >> 12;
	n += n < 20 && v >= p10[n];
	return n ? n : 1;
}

/* The decimal digits of v written at p (at most 20 bytes, no sign, no
 * terminator); returns the end.  Inline for the renderers' hot loops:
 * the length first, then two digits at a time from the end, so the digits
 * land in place (no temporary, no copy). */
static inline char *colfs_put_u64(char *p, uint64_t v)
{
	char *e = p + colfs_u64_digits(v), *q = e;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		q -= 2;
		q[0] = colfs_digit_pairs[2 * r];
		q[1] = colfs_digit_pairs[2 * r + 1];
	}
	if (v >= 10) {
		q -= 2;
		q[0] = colfs_digit_pairs[2 * v];
		q[1] = colfs_digit_pairs[2 * v + 1];
	} else {
		*--q = (char)('0' + v);
	}
	return e;
}

/* How many bytes colfs_put_i64 writes for v (1 to 20). */
static inline unsigned colfs_i64_len(int64_t v)
{
	/* no branch on the sign: random signs mispredict */
	uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	return (unsigned)(v < 0) + colfs_u64_digits(m);
}

/* The 8 decimal digits of v < 10^8, leading zeros included, as the 8
 * bytes of a little-endian word (the first digit in the lowest byte),
 * each byte the digit's value 0-9: v split in two halves of 4 digits,
 * each half in two of 2, each of those in two digits, all lanes at
 * once in one 64-bit register (a multiply by a reciprocal and a shift
 * per step: 5243 / 2^19 is 1/100 for lanes below 10^4, 103 / 2^10 is
 * 1/10 below 100).  OR 0x30 into every byte for ASCII; the count of
 * leading zero digits is the trailing zero bytes of the word. */
static inline uint64_t colfs_digits8(uint32_t v)
{
	uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
	uint64_t h = ((x * 5243) >> 19) & 0x0000007f0000007full;
	x = h | (x - h * 100) << 16;
	uint64_t t = ((x * 103) >> 10) & 0x000f000f000f000full;
	return t | (x - t * 10) << 8;
}

#define COLFS_ASCII_ZEROS8 0x3030303030303030ull

/* v < 10^8 without leading zeros, stored as 8 bytes at p (the bytes
 * after the digits are scratch); returns the end of the digits. */
static inline char *colfs_put_u32_wide8(char *p, uint32_t v)
{
	uint64_t z = colfs_digits8(v);
	unsigned lz = z ? (unsigned)__builtin_ctzll(z) >> 3 : 7;

	z = (z | COLFS_ASCII_ZEROS8) >> (8 * lz);
	__builtin_memcpy(p, &z, 8);
	return p + 8 - lz;
}

/* colfs_put_u64 for hot loops that checked their room once: the digits
 * of v at p, but the 24 bytes from p are scratch (those past the digits
 * hold garbage); returns the end of the digits.  Eight digits at a time
 * (colfs_digits8) instead of two: a 10-digit value takes two 8-byte
 * stores and no loop.  Always inlined: a call cost a fifth of a value's
 * rendering in the renderers' loops. */
static inline __attribute__((always_inline)) char *
colfs_put_u64_wide(char *p, uint64_t v)
{
	if (v < 100000000)
		return colfs_put_u32_wide8(p, (uint32_t)v);
	uint64_t hi = v / 100000000;
	uint32_t lo = (uint32_t)(v % 100000000);
	if (hi >= 100000000) {
		p = colfs_put_u32_wide8(p, (uint32_t)(hi / 100000000));
		uint64_t mid = colfs_digits8((uint32_t)(hi % 100000000)) |
			       COLFS_ASCII_ZEROS8;
		__builtin_memcpy(p, &mid, 8);
		p += 8;
	} else {
		p = colfs_put_u32_wide8(p, (uint32_t)hi);
	}
	uint64_t z = colfs_digits8(lo) | COLFS_ASCII_ZEROS8;
	__builtin_memcpy(p, &z, 8);
	return p + 8;
}

/* The same for a signed value (25 bytes of scratch from p). */
static inline __attribute__((always_inline)) char *
colfs_put_i64_wide(char *p, int64_t v)
{
	*p = '-';
	p += v < 0;
	return colfs_put_u64_wide(p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* The same for a signed value (at most 20 bytes). */
static inline char *colfs_put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return colfs_put_u64(p, 0 - (uint64_t)v);
	}
	return colfs_put_u64(p, (uint64_t)v);
}

/* 1 for the bytes a text-mode string keeps as they are (printable ASCII
 * but the backslash), 0 for those that need a look (escapes, UTF-8). */
extern const uint8_t colfs_render_text_plain[256];

/* Whether text-mode rendering keeps the n bytes at p as they are (every
 * byte colfs_render_text_plain): eight bytes at a time, a word at a
 * time tested for a byte of 0x80 or more, below 0x20, 0x7f or '\\'. */
static inline bool colfs_render_text_is_plain(const uint8_t *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t high = 0x8080808080808080ull;
	uint64_t bad = 0;
	size_t k = 0;

	for (; k + 8 <= n; k += 8) {
		uint64_t x, bs, del;
		__builtin_memcpy(&x, p + k, 8);
		bs = x ^ 0x5c5c5c5c5c5c5c5cull;         /* '\\' */
		del = x ^ 0x7f7f7f7f7f7f7f7full;
		bad |= x | ((x - 0x20 * ones) & ~x) | ((bs - ones) & ~bs) |
		       ((del - ones) & ~del);
	}
	if (bad & high)
		return false;
	for (; k < n; k++)
		if (!colfs_render_text_plain[p[k]])
			return false;
	return true;
}

/* Default options (text mode, `\N`) and JSON mode. */
extern const colfs_render colfs_render_text_default;
extern const colfs_render colfs_render_json_default;

void colfs_render_null(colfs_buf *b, const colfs_render *r);
void colfs_render_bool(colfs_buf *b, const colfs_render *r, bool v);
void colfs_render_i64(colfs_buf *b, const colfs_render *r, int64_t v);
void colfs_render_u64(colfs_buf *b, const colfs_render *r, uint64_t v);
void colfs_render_float(colfs_buf *b, const colfs_render *r, float v);
void colfs_render_double(colfs_buf *b, const colfs_render *r, double v);
/* A double's text-mode rendering in two steps, for renderers that size
 * a block before they fill it: _prepare finds the shortest digits and
 * the length of the text (the bytes colfs_render_double appends in text
 * mode, at most 25), _put writes exactly those len bytes at p and
 * returns their end. */
typedef struct colfs_double_text {
	uint64_t f;              /* the digits, no trailing zeros */
	int16_t exp10;           /* the exponent of the first digit */
	uint8_t ndig;            /* digits in f */
	uint8_t len;             /* bytes of the text */
	uint8_t neg;
	uint8_t token;           /* 0, or nan inf -inf 0.0 -0.0 (1 to 5) */
} colfs_double_text;
void colfs_double_text_prepare(double v, colfs_double_text *d);
char *colfs_double_text_put(char *p, const colfs_double_text *d);
/* The same bytes, for loops that checked their room once: the 40 bytes
 * from p are scratch (those past the text hold garbage). */
char *colfs_double_text_put_wide(char *p, const colfs_double_text *d);

/* IEEE 754 binary16 bits (Parquet FLOAT16 is 2 bytes little-endian);
 * rendered as the float32 of the same value, as DuckDB reads it. */
void colfs_render_float16(colfs_buf *b, const colfs_render *r, uint16_t bits);
/* Half-precision bits to float (exact). */
float colfs_float16_to_float(uint16_t bits);

/* UTF-8 text (any bytes accepted; see the escaping rules above). */
void colfs_render_string(colfs_buf *b, const colfs_render *r,
			 const uint8_t *p, size_t n);
/* Bytes without a string annotation. */
void colfs_render_binary(colfs_buf *b, const colfs_render *r,
			 const uint8_t *p, size_t n);

/* DECIMAL: unscaled value and scale (0..  any; a negative scale appends
 * zeros).  The _be form takes big-endian two's complement of any length
 * (Parquet FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY decimals); n == 0 is 0. */
void colfs_render_decimal_i64(colfs_buf *b, const colfs_render *r,
			      int64_t unscaled, int32_t scale);
void colfs_render_decimal_be(colfs_buf *b, const colfs_render *r,
			     const uint8_t *p, size_t n, int32_t scale);

/* Days since 1970-01-01 (any int64: the proleptic Gregorian calendar). */
/* Days since 1970-01-01 to a proleptic Gregorian (year, month, day):
 * the era-based civil-from-days computation (H. Hinnant's), in 128-bit
 * so that every int64 input works. */
void colfs_civil_from_days(int64_t days, __int128 *y, unsigned *m,
			   unsigned *d);
void colfs_render_date(colfs_buf *b, const colfs_render *r, int64_t days);
/* Time of day in `unit` since midnight.  Values outside one day are
 * rendered with hours past 23 (as DuckDB does for 24:00:00). */
void colfs_render_time(colfs_buf *b, const colfs_render *r, int64_t v,
		       colfs_time_unit unit);
/* Time of day with a UTC offset in seconds (ORC/DuckDB TIMETZ); printed as
 * HH:MM:SS[.f]+HH[:MM]. */
void colfs_render_timetz(colfs_buf *b, const colfs_render *r, int64_t v,
			 colfs_time_unit unit, int32_t offset_seconds);
/* Instant in `unit` since the epoch; `utc` appends `+00`. */
void colfs_render_timestamp(colfs_buf *b, const colfs_render *r, int64_t v,
			    colfs_time_unit unit, bool utc);
/* Seconds since the epoch plus nanoseconds 0..999999999 (for sources
 * whose range exceeds int64 nanoseconds, e.g. ORC, INT96). */
void colfs_render_timestamp_parts(colfs_buf *b, const colfs_render *r,
				  int64_t seconds, uint32_t nanos, bool utc);
/* Parquet INT96: 8 bytes nanoseconds of day LE, 4 bytes Julian day LE.
 * Rendered as a timestamp without time zone (as DuckDB reads it). */
void colfs_render_int96(colfs_buf *b, const colfs_render *r,
			const uint8_t p[12]);
/* 16 bytes, big-endian as stored. */
void colfs_render_uuid(colfs_buf *b, const colfs_render *r,
		       const uint8_t p[16]);
/* Parquet INTERVAL: 12 bytes, three u32 LE: months, days, milliseconds. */
void colfs_render_interval_parquet(colfs_buf *b, const colfs_render *r,
				   const uint8_t p[12]);
/* General interval (DuckDB's model): months, days, microseconds. */
void colfs_render_interval(colfs_buf *b, const colfs_render *r,
			   int64_t months, int64_t days, int64_t micros);

/* A JSON string from raw bytes (for object keys and strings of nested
 * values): UTF-8 kept, JSON escapes for quote, backslash and control
 * characters, each invalid UTF-8 byte becomes the four characters \xHH
 * (written \\xHH inside the JSON string). */
void colfs_render_json_string(colfs_buf *b, const uint8_t *p, size_t n);

/* A geometry given as WKB (ISO and extended WKB, either byte order;
 * Z/M/ZM), rendered as WKT exactly as DuckDB prints geometry::VARCHAR,
 * in the view's quoting like a string (wkb.c; used by
 * Parquet GEOMETRY/GEOGRAPHY and GeoParquet columns and ORC's geo
 * kinds).  Malformed WKB appends nothing and returns COLFS_ECORRUPT with
 * `*bad_at` the byte offset within the value where it goes wrong and
 * `why` (static text) what is wrong. */
colfs_status colfs_render_wkb(colfs_buf *b, const colfs_render *r,
			      const uint8_t *wkb, size_t n, size_t *bad_at,
			      const char **why);
/* The malformed WKB among a run of values (a page, a piece's rows), for
 * the one problem a format files about them: each value goes through
 * colfs_wkb_scan_value; `bad` counts those that do not parse, and the
 * first of them is value `first` (its bytes at `first_ptr`), wrong at
 * byte `at` of itself because `why`.  colfs_wkb_scan_done frees the
 * scratch text. */
typedef struct colfs_wkb_scan {
	colfs_buf tmp;
	size_t bad, first, at;
	const uint8_t *first_ptr;
	const char *why;
} colfs_wkb_scan;
void colfs_wkb_scan_value(colfs_wkb_scan *sc, size_t i, const uint8_t *p,
			  size_t n);
void colfs_wkb_scan_done(colfs_wkb_scan *sc);

/* rows.csv is RFC 4180 as DuckDB writes it (docs/values.md, "rows.csv").
 * A row's field is rendered in CSV mode into scratch, then written by
 * colfs_render_csv_value.  CSV mode is text mode but for strings, whose
 * bytes are kept as they are (commas, quotes, newlines, backslashes;
 * only bytes that are not UTF-8 become \xHH), and a top-level NULL, which
 * is the marker COLFS_RENDER_CSV_NULL: a byte that is not UTF-8, so no
 * other CSV-mode rendering holds it. */
#define COLFS_RENDER_CSV_NULL "\xff"
colfs_render colfs_render_csv_mode(void);
/* One field of a header or a row: quoted (inner quotes doubled) when it
 * holds a comma, quote, CR or LF, and the empty string as "", else as
 * is. */
void colfs_render_csv_field(colfs_buf *b, const char *p, size_t n);
/* A field rendered in CSV mode (p, n) as rows.csv writes it: the
 * marker COLFS_RENDER_CSV_NULL becomes `null_text` unquoted (the
 * options' csv_null: empty by default), any other text a field as
 * colfs_render_csv_field writes it, quoted too when it equals a
 * non-empty `null_text` (so that it does not read as NULL). */
void colfs_render_csv_value(colfs_buf *b, const char *p, size_t n,
			    const char *null_text);

#endif

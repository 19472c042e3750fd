/* tests/values: formats/core/render.c against DuckDB's text.
 *
 *   values_render_oracle FILE
 *
 * FILE comes from render-oracle.mjs: one value per line with DuckDB's
 * CAST(x AS VARCHAR) (see that script for the line kinds).  Every value is
 * rendered by colfs and must equal DuckDB's text, except where
 * docs/values.md documents a difference: DECIMAL with precision == scale
 * (DuckDB drops the leading 0, colfs writes `0.`) and FLOAT, where the
 * line carries DuckDB's text and, last, the shortest form computed by
 * float32.mjs with exact arithmetic, which colfs must equal.  Exit 0 when all match,
 * 1 otherwise (the first mismatches are printed). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/render.h"

static const colfs_render *T = &colfs_render_text_default;

/* Split a line at tabs into at most n fields. */
static int split(char *line, char **f, int n)
{
	int k = 0;

	f[k++] = line;
	for (char *p = line; *p && k < n; p++)
		if (*p == '\t') {
			*p = 0;
			f[k++] = p + 1;
		}
	return k;
}

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;

	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return false;
	*v = x;
	return true;
}

/* A signed decimal string of up to 39 digits as 16 bytes big-endian two's
 * complement. */
static bool parse_i128_be(const char *s, uint8_t be[16])
{
	bool neg = *s == '-';
	unsigned __int128 v = 0;

	if (neg)
		s++;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned)(*s - '0');
	}
	if (neg)
		v = ~v + 1;
	for (int i = 15; i >= 0; i--) {
		be[i] = (uint8_t)v;
		v >>= 8;
	}
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long n = 0, bad = 0, lineno = 0;
	colfs_buf out = COLFS_BUF_INIT;

	while ((len = getline(&line, &cap, in)) > 0) {
		char *f[8];
		int nf;
		const char *want;
		char fixed[128];
		bool ok = true;

		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = 0;
		nf = split(line, f, 8);
		want = f[nf - 1];
		out.len = 0;
		if (!strcmp(f[0], "d") && nf == 3) {
			uint64_t bits = strtoull(f[1], NULL, 16);
			double d;
			memcpy(&d, &bits, 8);
			colfs_render_double(&out, T, d);
		} else if (!strcmp(f[0], "f") && nf == 4) {
			uint32_t bits = (uint32_t)strtoul(f[1], NULL, 16);
			float x;
			memcpy(&x, &bits, 4);
			colfs_render_float(&out, T, x);
		} else if (!strcmp(f[0], "dec") && nf == 4) {
			uint8_t be[16];
			int64_t scale, small;
			ok = parse_i64(f[1], &scale) && parse_i128_be(f[2], be);
			if (ok)
				colfs_render_decimal_be(&out, T, be, 16,
							(int32_t)scale);
			/* the int64 path must agree when the value fits */
			if (ok && parse_i64(f[2], &small)) {
				colfs_buf alt = COLFS_BUF_INIT;
				colfs_render_decimal_i64(&alt, T, small,
							 (int32_t)scale);
				if (alt.len != out.len ||
				    memcmp(alt.data, out.data, out.len)) {
					fprintf(stderr, "line %ld: int64 and bytes paths differ\n",
						lineno);
					bad++;
				}
				colfs_buf_free(&alt);
			}
			/* DuckDB writes ".5" for DECIMAL(p, p); colfs "0.5" */
			if (want[0] == '.' || (want[0] == '-' && want[1] == '.')) {
				snprintf(fixed, sizeof(fixed), "%s0%s",
					 want[0] == '-' ? "-" : "",
					 want + (want[0] == '-'));
				want = fixed;
			}
		} else if (!strcmp(f[0], "date") && nf == 3) {
			int64_t d;
			ok = parse_i64(f[1], &d);
			if (ok)
				colfs_render_date(&out, T, d);
		} else if (!strcmp(f[0], "time") && nf == 3) {
			int64_t us;
			ok = parse_i64(f[1], &us);
			if (ok)
				colfs_render_time(&out, T, us, COLFS_UNIT_MICROS);
		} else if (!strcmp(f[0], "ts") && nf == 5) {
			int64_t v;
			colfs_time_unit u = !strcmp(f[1], "s")  ? COLFS_UNIT_SECONDS :
					    !strcmp(f[1], "ms") ? COLFS_UNIT_MILLIS :
					    !strcmp(f[1], "us") ? COLFS_UNIT_MICROS :
								  COLFS_UNIT_NANOS;
			ok = parse_i64(f[2], &v);
			if (ok)
				colfs_render_timestamp(&out, T, v, u,
						       f[3][0] == '1');
		} else if (!strcmp(f[0], "iv") && nf == 5) {
			int64_t m, d, us;
			ok = parse_i64(f[1], &m) && parse_i64(f[2], &d) &&
			     parse_i64(f[3], &us);
			if (ok)
				colfs_render_interval(&out, T, m, d, us);
		} else if (!strcmp(f[0], "blob") && nf == 3) {
			uint8_t bytes[256];
			size_t nb = strlen(f[1]) / 2;
			for (size_t i = 0; i < nb && i < sizeof(bytes); i++) {
				unsigned x;
				sscanf(f[1] + 2 * i, "%2x", &x);
				bytes[i] = (uint8_t)x;
			}
			colfs_render_binary(&out, T, bytes, nb);
		} else {
			ok = false;
		}
		n++;
		if (!ok) {
			fprintf(stderr, "line %ld: cannot parse\n", lineno);
			bad++;
			continue;
		}
		if (colfs_buf_status(&out) != COLFS_OK) {
			fprintf(stderr, "line %ld: out of memory\n", lineno);
			return 1;
		}
		if (out.len != strlen(want) || memcmp(out.data, want, out.len)) {
			if (bad < 20)
				fprintf(stderr, "line %ld (%s %s): colfs \"%.*s\", DuckDB \"%s\"\n",
					lineno, f[0], f[1], (int)out.len,
					out.data, want);
			bad++;
		}
	}
	free(line);
	fclose(in);
	colfs_buf_free(&out);
	printf("%ld values, %ld differ from DuckDB\n", n, bad);
	return bad || n == 0 ? 1 : 0;
}

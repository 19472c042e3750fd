/* http-fetch: the HTTP exchange of formats/remote/http.c from the command
 * line, for the fault tests (tests/remote/faults.py).
 *
 *   http-fetch [-o key=value]... URL tail LEN
 *       the last LEN bytes to stdout; stderr: "size N"
 *   http-fetch [-o key=value]... URL ranges OFF:LEN...
 *       the tail first (as a mount does: it learns the size and the
 *       validators), then the ranges, all in flight at once, their bytes
 *       to stdout in the order given
 *   http-fetch [-o key=value]... URL stream CHUNK
 *       the tail, then the whole object in ranges of CHUNK bytes, 4 in
 *       flight per call, to stdout
 * After the exchanges, stderr gets "stats requests=N bytes=N retries=N
 * failures=N".  A failure prints "http-fetch: STATUS: MESSAGE" and exits
 * 1; bad usage exits 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colfs.h"
#include "remote/remote.h"

static void stats(colfs_http *h)
{
	colfs_http_stats s;

	colfs_http_stats_get(h, &s);
	fprintf(stderr,
		"stats requests=%" PRIu64 " bytes=%" PRIu64 " retries=%" PRIu64
		" failures=%" PRIu64 "\n",
		s.requests, s.bytes, s.retries, s.failures);
}

static int fail(colfs_http *h, const colfs_err *e)
{
	if (h)
		stats(h);
	fprintf(stderr, "http-fetch: %s: %s\n", colfs_status_name(e->status),
		e->msg);
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: http-fetch [-o k=v]... URL tail LEN | "
			"ranges OFF:LEN... | stream CHUNK\n");
	return 2;
}

int main(int argc, char **argv)
{
	colfs_options o = {0};
	colfs_remote_target t = {0};
	colfs_http *h = NULL;
	colfs_err e = {0};
	char why[512];
	int i = 1;

	while (i + 1 < argc && !strcmp(argv[i], "-o")) {
		if (colfs_options_set(&o, argv[i + 1]))
			return usage();
		i += 2;
	}
	if (argc - i < 3)
		return usage();
	const char *url = argv[i], *mode = argv[i + 1];

	t.url = (char *)url;
	t.display = (char *)url;
	t.cafile = (char *)o.cafile;
	if (colfs_http_create(&t, &o, &h, why, sizeof why)) {
		fprintf(stderr, "http-fetch: %s\n", why);
		return 1;
	}
	uint64_t len = 65536, size;
	uint8_t *data;
	size_t got;

	if (strcmp(mode, "ranges") &&
	    !(len = strtoull(argv[i + 2], NULL, 10)))
		return usage();
	if (colfs_http_get_tail(h, len, &data,
				&got, &size, &e))
		return fail(h, &e);
	if (!strcmp(mode, "tail")) {
		fprintf(stderr, "size %" PRIu64 "\n", size);
		fwrite(data, 1, got, stdout);
	} else if (!strcmp(mode, "ranges")) {
		int n = argc - i - 2;
		colfs_http_range *r = calloc((size_t)n, sizeof *r);

		for (int k = 0; k < n; k++) {
			char *colon;

			r[k].offset = strtoull(argv[i + 2 + k], &colon, 10);
			if (*colon != ':')
				return usage();
			r[k].len = strtoull(colon + 1, NULL, 10);
			r[k].buf = malloc(r[k].len ? r[k].len : 1);
		}
		if (colfs_http_get_ranges(h, r, (size_t)n, &e))
			return fail(h, &e);
		for (int k = 0; k < n; k++) {
			fwrite(r[k].buf, 1, r[k].len, stdout);
			free(r[k].buf);
		}
		free(r);
	} else if (!strcmp(mode, "stream")) {
		colfs_http_range r[4];
		uint64_t at = 0;

		for (int k = 0; k < 4; k++)
			r[k].buf = malloc(len);
		while (at < size) {
			size_t n = 0;

			for (; n < 4 && at < size; n++) {
				r[n].offset = at;
				r[n].len = size - at < len ? size - at : len;
				at += r[n].len;
			}
			if (colfs_http_get_ranges(h, r, n, &e))
				return fail(h, &e);
			for (size_t k = 0; k < n; k++)
				fwrite(r[k].buf, 1, r[k].len, stdout);
		}
		for (int k = 0; k < 4; k++)
			free(r[k].buf);
	} else {
		return usage();
	}
	free(data);
	if (colfs_http_check(h, &e))
		return fail(h, &e);
	stats(h);
	colfs_http_destroy(h);
	return fflush(stdout) ? 1 : 0;
}

/* http-fetch: the HTTP exchange of formats/remote/http.c from the command
 * line, for the fault tests (tests/remote/faults.py).
 *
 * Options: -o key=value (a colfs option), -u USER:PASSWORD (the target's
 * userpwd), -t TOKEN (its session_token).
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
 *   http-fetch [-o key=value]... URL threads CHUNK
 *       the same by 4 readers at once over the one exchange (its shared
 *       connections, DNS and TLS sessions), each into its own copy, on
 *       the core's colfs_parallel_for (4 threads, the caller's one of
 *       them); the copies must be equal, the first goes to stdout
 * After the exchanges, stderr gets "stats requests=N bytes=N retries=N
 * failures=N".  A failure prints "http-fetch: STATUS: MESSAGE" and exits
 * 1; bad usage exits 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colfs.h"
#include "core/thread.h"
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

/* Read [0, size) in ranges of `chunk`, 4 per call, into `out`. */
static colfs_status read_all(colfs_http *h, uint64_t size, uint64_t chunk,
			     uint8_t *out, colfs_err *e)
{
	uint64_t at = 0;

	while (at < size) {
		colfs_http_range r[4];
		size_t k = 0;

		for (; k < 4 && at < size; k++) {
			r[k].offset = at;
			r[k].len = size - at < chunk ? size - at : chunk;
			r[k].buf = out + at;
			at += r[k].len;
		}
		COLFS_TRY(colfs_http_get_ranges(h, r, k, e));
		/* As a mount's `io` document does, while others read. */
		colfs_http_stats s;

		colfs_http_stats_get(h, &s);
	}
	return COLFS_OK;
}

/* The "threads" mode: readers of the whole object over one exchange,
 * each into its own copy. */
#define READERS 4

typedef struct readers {
	colfs_http *h;
	uint64_t size, chunk;
	uint8_t *out[READERS];
	colfs_status st[READERS];
	colfs_err e[READERS];
} readers;

static void reader_main(void *arg, size_t i)
{
	readers *r = arg;

	r->st[i] = read_all(r->h, r->size, r->chunk, r->out[i], &r->e[i]);
}

static int usage(void)
{
	fprintf(stderr, "usage: http-fetch [-o k=v] [-u U:P] [-t TOKEN]... "
			"URL tail LEN | "
			"ranges OFF:LEN... | stream CHUNK | threads CHUNK\n");
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

	while (i + 1 < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-o")) {
			if (colfs_options_set(&o, argv[i + 1]))
				return usage();
		} else if (!strcmp(argv[i], "-u")) {
			t.userpwd = argv[i + 1];
		} else if (!strcmp(argv[i], "-t")) {
			t.session_token = argv[i + 1];
		} else {
			return usage();
		}
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
	uint8_t *data = NULL;
	colfs_http_range *r = NULL;
	size_t got, n = 0;
	int rc = 0;

	if (strcmp(mode, "ranges") &&
	    !(len = strtoull(argv[i + 2], NULL, 10))) {
		rc = usage();
		goto out;
	}
	if (colfs_http_get_tail(h, len, &data, &got, &size, &e))
		goto failed;
	if (!strcmp(mode, "tail")) {
		fprintf(stderr, "size %" PRIu64 "\n", size);
		fwrite(data, 1, got, stdout);
	} else if (!strcmp(mode, "ranges")) {
		n = (size_t)(argc - i - 2);
		r = calloc(n, sizeof *r);
		for (size_t k = 0; r && k < n; k++) {
			char *colon;

			r[k].offset = strtoull(argv[i + 2 + k], &colon, 10);
			r[k].len = *colon == ':' ? strtoull(colon + 1, NULL, 10)
						 : 0;
			r[k].buf = malloc(r[k].len ? r[k].len : 1);
		}
		if (!r) {
			rc = 1;
			goto out;
		}
		if (colfs_http_get_ranges(h, r, n, &e))
			goto failed;
		for (size_t k = 0; k < n; k++)
			fwrite(r[k].buf, 1, r[k].len, stdout);
	} else if (!strcmp(mode, "threads")) {
		readers rd = {.h = h, .size = size, .chunk = len};
		int bad = 0, k;

		for (k = 0; k < READERS; k++)
			if (!(rd.out[k] = malloc(size ? size : 1)))
				break;
		if (k == READERS)
			colfs_parallel_for(READERS, READERS, reader_main, &rd);
		for (int j = 0; k == READERS && j < READERS && !bad; j++)
			if (rd.st[j]) {
				e = rd.e[j];
				bad = 1;
			} else if (memcmp(rd.out[j], rd.out[0], size)) {
				fprintf(stderr, "http-fetch: thread %d read other bytes than thread 0\n", j);
				bad = 2;
			}
		if (k == READERS && !bad)
			fwrite(rd.out[0], 1, size, stdout);
		for (int j = 0; j < READERS; j++)
			free(rd.out[j]);
		if (bad == 1)
			goto failed;
		if (bad || k < READERS) {
			rc = 1;
			goto out;
		}
	} else if (!strcmp(mode, "stream")) {
		uint64_t at = 0;

		r = calloc(4, sizeof *r);
		n = 4;
		for (size_t k = 0; r && k < n; k++)
			r[k].buf = malloc(len);
		while (r && at < size) {
			size_t k = 0;

			for (; k < 4 && at < size; k++) {
				r[k].offset = at;
				r[k].len = size - at < len ? size - at : len;
				at += r[k].len;
			}
			if (colfs_http_get_ranges(h, r, k, &e))
				goto failed;
			for (size_t j = 0; j < k; j++)
				fwrite(r[j].buf, 1, r[j].len, stdout);
		}
	} else {
		rc = usage();
		goto out;
	}
	if (colfs_http_check(h, &e))
		goto failed;
	stats(h);
	rc = fflush(stdout) ? 1 : 0;
	goto out;
failed:
	stats(h);
	fprintf(stderr, "http-fetch: %s: %s\n", colfs_status_name(e.status),
		e.msg);
	rc = 1;
out:
	for (size_t k = 0; r && k < n; k++)
		free(r[k].buf);
	free(r);
	free(data);
	colfs_http_destroy(h);
	return rc;
}

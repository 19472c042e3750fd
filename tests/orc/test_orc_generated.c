/* tests/orc: a file written by our own small writer (orc_gen.c) reads
 * back with the values it was given: rows.jsonl, columns/ and per-stripe
 * views, across stripe and piece boundaries. */
#define ORC_GEN_NO_MAIN
#include "orc_gen.c"

#include <colfs.h>
#include <unistd.h>

static int failures;

static char *read_all(colfs_tree *t, const char *path, size_t *len)
{
	colfs_node *n;
	colfs_handle *h;
	size_t cap = 1 << 20, got;
	char *buf = malloc(cap);

	*len = 0;
	if (colfs_tree_resolve(t, path, &n) || colfs_node_open(t, n, &h)) {
		fprintf(stderr, "FAIL: %s: cannot open\n", path);
		failures++;
		free(buf);
		return NULL;
	}
	for (;;) {
		if (*len + 65536 > cap)
			buf = realloc(buf, cap *= 2);
		if (colfs_handle_read(h, *len, 65536, buf + *len, &got)) {
			fprintf(stderr, "FAIL: %s: read failed\n", path);
			failures++;
			break;
		}
		*len += got;
		if (got < 65536)
			break;
	}
	colfs_handle_close(h);
	return buf;
}

static void expect(colfs_tree *t, const char *path, uint64_t first,
		   uint64_t count, int what)
{
	size_t len;
	char *got = read_all(t, path, &len);
	char line[256];
	size_t pos = 0;

	if (!got)
		return;
	for (uint64_t r = first; r < first + count; r++) {
		int l = 0;
		char name[32];

		if (r % 7 == 3)
			snprintf(name, sizeof(name), "%s",
				 what == 0 ? "null" : "\\N");
		else
			snprintf(name, sizeof(name), what == 0 ? "\"name-%llu\""
							       : "name-%llu",
				 (unsigned long long)(r % 1000));
		switch (what) {
		case 0:
			l = snprintf(line, sizeof(line),
				     "{\"id\": %llu, \"name\": %s, \"score\": "
				     "%.14g, \"flag\": %s}\n",
				     (unsigned long long)r, name, r * 0.5,
				     r % 3 == 0 ? "true" : "false");
			break;
		case 1:
			l = snprintf(line, sizeof(line), "%llu\n",
				     (unsigned long long)r);
			break;
		case 2:
			l = snprintf(line, sizeof(line), "%s\n", name);
			break;
		}
		if (pos + (size_t)l > len || memcmp(got + pos, line, (size_t)l)) {
			fprintf(stderr, "FAIL: %s: row %llu: want %s", path,
				(unsigned long long)r, line);
			failures++;
			break;
		}
		pos += (size_t)l;
	}
	if (!failures && pos != len) {
		fprintf(stderr, "FAIL: %s: %zu bytes after the last row\n",
			path, len - pos);
		failures++;
	}
	free(got);
}

int main(void)
{
	char path[] = "/tmp/colfs-orc-genXXXXXX";
	int fd = mkstemp(path);
	colfs_tree *t;
	char why[256];
	const uint64_t rows = 123457, per = 25000;

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	if (orc_gen_write(path, rows, per))
		return 1;
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		fprintf(stderr, "FAIL: open: %s\n", why);
		unlink(path);
		return 1;
	}
	expect(t, "rows.jsonl", 0, rows, 0);
	expect(t, "columns/id", 0, rows, 1);
	expect(t, "columns/name", 0, rows, 2);
	expect(t, "stripes/2/rows.jsonl", 2 * per, per, 0);
	expect(t, "stripes/4/columns/name", 4 * per, rows - 4 * per, 2);
	colfs_tree_destroy(t);
	/* a stripe whose streams do not add up to its StripeInformation
	 * lengths is reported (and only that stripe) */
	orc_gen_short_stripe = 1;
	if (orc_gen_write(path, rows, per))
		return 1;
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		fprintf(stderr, "FAIL: open: %s\n", why);
		unlink(path);
		return 1;
	}
	for (int s = 0; s < 5; s++) {
		char p[64];
		colfs_node *n;
		colfs_node *const *kids;
		size_t nk;
		snprintf(p, sizeof p, "stripes/%d/streams", s);
		if (!colfs_tree_resolve(t, p, &n))
			(void)colfs_dir_list(t, n, &kids, &nk);
	}
	size_t elen;
	char *raw = read_all(t, "errors", &elen);
	char *errs = raw ? strndup(raw, elen) : NULL;
	free(raw);
	const char *want = "stripe 1: its 6 streams add up to ";
	(void)0;
	if (!errs || !strstr(errs, want) ||
	    strstr(strstr(errs, want) + strlen(want), "streams add up to")) {
		fprintf(stderr, "FAIL: expected one '%s...' in errors:\n%.2000s\n",
			want, errs ? errs : "(none)");
		failures++;
	}
	free(errs);
	colfs_tree_destroy(t);
	/* row indexes: one entry per stride; stripe 3's has one too few */
	orc_gen_short_stripe = -1;
	orc_gen_index_stride = 10000;
	orc_gen_index_short_stripe = 3;
	if (orc_gen_write(path, rows, per))
		return 1;
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		fprintf(stderr, "FAIL: open: %s\n", why);
		unlink(path);
		return 1;
	}
	expect(t, "stripes/2/rows.jsonl", 2 * per, per, 0);
	for (int s = 0; s < 5; s++) {
		char p[64];
		snprintf(p, sizeof p, "stripes/%d/indexes/1/row_index.json", s);
		raw = read_all(t, p, &elen);
		free(raw);
	}
	raw = read_all(t, "errors", &elen);
	errs = raw ? strndup(raw, elen) : NULL;
	free(raw);
	want = "stripe 3, column 1: the row index has 2 entries, 25000 rows at a stride of 10000 need 3";
	if (!errs || !strstr(errs, want) ||
	    strstr(strstr(errs, want) + strlen(want), "row index has")) {
		fprintf(stderr, "FAIL: expected one '%s' in errors:\n%.2000s\n",
			want, errs ? errs : "(none)");
		failures++;
	}
	free(errs);
	colfs_tree_destroy(t);
	unlink(path);
	if (failures)
		return 1;
	printf("generated file of %llu rows reads back\n",
	       (unsigned long long)rows);
	return 0;
}

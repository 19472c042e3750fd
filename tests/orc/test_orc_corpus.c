/* tests/orc: every ORC file of the corpus of one MANIFEST kind is opened,
 * its whole tree walked and every node read.
 *
 *   test_orc_corpus CORPUS_DIR KIND
 *
 * orc, orc-encrypted: the open succeeds; every .json parses; every file's
 *   reported size equals the bytes read; columns/ files have one line per
 *   row (whole file and per stripe); rows.jsonl equals the expected rows
 *   (upstream .jsn.gz or derived .jsn) byte for byte; the summary's facts
 *   equal orc/expected/derived/orc_reader_facts.tsv and
 *   orc_metadata_facts.tsv where the file is listed there; every
 *   stripes/N/verify and verify ends with its mismatch count, 0 except
 *   for the writer bugs listed in `known` below (docs/orc-tree.md,
 *   "verify"), whose counts are exact, so a new mismatch fails.
 * orc-bad: the open either refuses with a reason or succeeds; the walk
 *   finishes; `errors` is not empty and every line names an offset.
 *
 * Exit 77 (skip) when the corpus is missing. */
#include <colfs.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int failures;
static size_t files_checked;
static bool sanitized; /* COLFS_SANITIZED=1: see walk_dir */

#define FAIL(...)                                                           \
	do {                                                                \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                      \
		fputc('\n', stderr);                                        \
		failures++;                                                 \
	} while (0)

typedef struct blob {
	char *data;
	size_t len;
} blob;

static bool read_node(colfs_tree *t, colfs_node *n, blob *out,
		      const char *path)
{
	colfs_handle *h;
	size_t cap = 1 << 16, len = 0, got;
	uint64_t size;
	bool exact;
	char *buf;

	out->data = NULL;
	out->len = 0;
	if (colfs_node_open(t, n, &h) != COLFS_OK)
		return false;
	buf = malloc(cap);
	for (;;) {
		if (len + (1 << 16) > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		if (colfs_handle_read(h, len, 1 << 16, buf + len, &got) !=
		    COLFS_OK) {
			colfs_handle_close(h);
			free(buf);
			return false;
		}
		len += got;
		if (got == 0)
			break;
		/* a short read ends the file, or stops before a part that
		 * cannot be read: the next read then fails (a file whose
		 * size is known from the start, arrays/, shows it) */
	}
	colfs_handle_close(h);
	if (colfs_node_size(t, n, &size, &exact) == COLFS_OK && exact &&
	    size != len)
		FAIL("%s: size %llu but %zu bytes read", path,
		     (unsigned long long)size, len);
	out->data = buf;
	out->len = len;
	return true;
}

static size_t count_lines(const blob *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n;
}

/* A "key: value" line of a summary. */
static bool summary_get(const blob *s, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	const char *p = s->data, *end = s->data + s->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > kl + 1 && !memcmp(p, key, kl) &&
		    p[kl] == ':' && p[kl + 1] == ' ') {
			size_t vl = (size_t)(nl - p) - kl - 2;

			if (vl >= len)
				vl = len - 1;
			memcpy(out, p + kl + 2, vl);
			out[vl] = '\0';
			return true;
		}
		p = nl + 1;
	}
	return false;
}

typedef struct walk {
	colfs_tree *t;
	const char *file;
	uint64_t rows;
	bool bad;
	size_t nodes;
} walk;

static uint64_t stripe_rows(walk *w, const char *stripe_dir)
{
	char p[512];
	colfs_node *n;
	blob b;
	json_t *j;
	uint64_t rows = UINT64_MAX;

	snprintf(p, sizeof(p), "%s/info.json", stripe_dir);
	if (colfs_tree_resolve(w->t, p, &n) || !read_node(w->t, n, &b, p))
		return UINT64_MAX;
	j = json_loadb(b.data, b.len, 0, NULL);
	if (j && json_integer_value(json_object_get(j, "numberOfRows")) >= 0)
		rows = (uint64_t)json_integer_value(
			json_object_get(j, "numberOfRows"));
	json_decref(j);
	free(b.data);
	return rows;
}

static void walk_dir(walk *w, colfs_node *dir, const char *path, int depth)
{
	colfs_node *const *kids;
	size_t n;

	if (depth > 32) {
		FAIL("%s: %s: tree deeper than 32", w->file, path);
		return;
	}
	if (colfs_dir_list(w->t, dir, &kids, &n) != COLFS_OK) {
		if (!w->bad)
			FAIL("%s: %s: listing failed", w->file, path);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = colfs_node_name(kids[i]);
		char p[1024];
		blob b;

		snprintf(p, sizeof(p), "%s/%s", path, name);
		w->nodes++;
		if (colfs_node_is_dir(kids[i])) {
			/* Under the sanitizers (COLFS_SANITIZED=1, tests/run)
			 * a stripe's columns/ and arrays/ are left out: the
			 * root's decode every stripe with the same code, and
			 * the plain run reads them all (they doubled this
			 * test's time under ASan). */
			if (sanitized && !strncmp(p, "/stripes/", 9) &&
			    (!strcmp(name, "columns") ||
			     !strcmp(name, "arrays")))
				continue;
			walk_dir(w, kids[i], p, depth + 1);
			continue;
		}
		if (!read_node(w->t, kids[i], &b, p)) {
			if (!w->bad)
				FAIL("%s: %s: read failed", w->file, p);
			continue;
		}
		if (strlen(name) > 5 && !strcmp(name + strlen(name) - 5,
						".json")) {
			json_error_t je;
			json_t *j = json_loadb(b.data, b.len, JSON_DECODE_ANY,
					       &je);

			if (!j)
				FAIL("%s: %s: not JSON: %s", w->file, p,
				     je.text);
			json_decref(j);
		}
		/* columns/<field>: one line per row */
		if (!w->bad && strstr(p, "/columns/")) {
			uint64_t want = w->rows;
			char sd[1024];
			const char *c = strstr(p, "/columns/");

			if (!strncmp(p, "/stripes/", 9)) {
				snprintf(sd, sizeof(sd), "%.*s",
					 (int)(c - p), p);
				want = stripe_rows(w, sd);
			}
			if (count_lines(&b) != want)
				FAIL("%s: %s: %zu lines, expected %llu",
				     w->file, p, count_lines(&b),
				     (unsigned long long)want);
		}
		free(b.data);
	}
}

static bool gunzip_file(const char *path, blob *out)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 16;
	int got;

	out->len = 0;
	out->data = NULL;
	if (!g)
		return false;
	out->data = malloc(cap);
	while ((got = gzread(g, out->data + out->len,
			     (unsigned)(cap - out->len))) > 0) {
		out->len += (size_t)got;
		if (cap - out->len < (1 << 15)) {
			cap *= 2;
			out->data = realloc(out->data, cap);
		}
	}
	gzclose(g);
	return got == 0;
}

static char *path_join(const char *a, const char *b)
{
	char *p = malloc(strlen(a) + strlen(b) + 2);

	sprintf(p, "%s/%s", a, b);
	return p;
}

/* Compare the summary to a facts table: header names map to summary keys. */
static void check_facts(walk *w, const blob *summary, const char *corpus,
			const char *table, const char *base)
{
	static const struct {
		const char *col, *key;
	} map[] = {
		{"type_string", "type"},
		{"type_string_as_printed", "type"},
		{"format_version", "format version"},
		{"format", "format version"},
		{"writer_version", "writer version"},
		{"software_version", "software version"},
		{"row_count", "rows"},
		{"rows", "rows"},
		{"content_length", "content length"},
		{"stripe_count", "stripes"},
		{"compression", "compression"},
		{"compression_block_size", "compression block size"},
		{"compression_block", "compression block size"},
		{"row_index_stride", "row index stride"},
		{"file_length", "file length"},
		{"stripe_stats_length", "stripe statistics length"},
		{"footer_length", "footer length"},
		{"postscript_length", "postscript length"},
	};
	char *path = path_join(corpus, table);
	FILE *fp = fopen(path, "r");
	char line[8192], hdr[8192];
	char *cols[32];
	size_t ncols = 0;

	free(path);
	if (!fp || !fgets(hdr, sizeof(hdr), fp)) {
		FAIL("%s: cannot read", table);
		if (fp)
			fclose(fp);
		return;
	}
	hdr[strcspn(hdr, "\r\n")] = '\0';
	for (char *s = strtok(hdr, "\t"); s && ncols < 32; s = strtok(NULL, "\t"))
		cols[ncols++] = s;
	while (fgets(line, sizeof(line), fp)) {
		char *vals[32], *p = line;
		size_t nv = 0;
		long stripe = -1;

		line[strcspn(line, "\r\n")] = '\0';
		while (nv < 32) {
			char *tab = strchr(p, '\t');

			vals[nv++] = p;
			if (!tab)
				break;
			*tab = '\0';
			p = tab + 1;
		}
		if (nv < 1 || strcmp(vals[0], base))
			continue;
		files_checked++;
		for (size_t c = 1; c < nv && c < ncols; c++) {
			char got[4096];

			if (!strcmp(cols[c], "stripe"))
				stripe = atol(vals[c]);
			if (!vals[c][0])
				continue;
			for (size_t m = 0; m < sizeof(map) / sizeof(map[0]); m++) {
				if (strcmp(cols[c], map[m].col))
					continue;
				if (!summary_get(summary, map[m].key, got,
						 sizeof(got)))
					FAIL("%s: summary has no '%s'",
					     w->file, map[m].key);
				else if (strcasecmp(got, vals[c]))
					FAIL("%s: summary %s = '%s', facts "
					     "say '%s'", w->file, map[m].key,
					     got, vals[c]);
			}
			if (!strcmp(cols[c], "user_metadata")) {
				char want[32];

				summary_get(summary, "user metadata", got,
					    sizeof(got));
				snprintf(want, sizeof(want), "%ld keys",
					 atol(vals[c]));
				if (strncmp(got, want, strlen(want)))
					FAIL("%s: user metadata '%s', facts "
					     "'%s'", w->file, got, vals[c]);
			}
		}
		if (stripe >= 0) {
			/* stripe, stripe_rows, stripe_offset, stripe_length,
			 * stripe_index_length, stripe_data_length,
			 * stripe_footer_length */
			char key[32], got[512], want[512];
			const char *sv[6] = {0};

			for (size_t c = 0; c < nv && c < ncols; c++) {
				static const char *names[6] = {
					"stripe_rows", "stripe_offset",
					"stripe_length", "stripe_index_length",
					"stripe_data_length",
					"stripe_footer_length"};

				for (int k = 0; k < 6; k++)
					if (!strcmp(cols[c], names[k]))
						sv[k] = vals[c];
			}
			snprintf(key, sizeof(key), "stripe %ld", stripe);
			snprintf(want, sizeof(want),
				 "rows %s offset %s length %s index %s data "
				 "%s footer %s", sv[0], sv[1], sv[2], sv[3],
				 sv[4], sv[5]);
			if (!summary_get(summary, key, got, sizeof(got)) ||
			    strcmp(got, want))
				FAIL("%s: '%s' is '%s', facts '%s'", w->file,
				     key, got, want);
		}
	}
	fclose(fp);
}

/* Expected rows as one JSON object per line (ORC Java `orc-tools data`
 * without the key): compare each row as JSON values. */
static void check_json_rows(colfs_tree *t, const char *corpus, const char *c,
			    const char *rel)
{
	char *cp = path_join(corpus, c);
	FILE *fp = fopen(cp, "rb");
	blob got = {0};
	colfs_node *n;
	char line[65536];
	const char *p;
	size_t row = 0;

	free(cp);
	if (!fp) {
		FAIL("%s: cannot read %s", rel, c);
		return;
	}
	if (colfs_tree_resolve(t, "rows.jsonl", &n) ||
	    !read_node(t, n, &got, "/rows.jsonl")) {
		FAIL("%s: rows.jsonl unreadable", rel);
		fclose(fp);
		return;
	}
	p = got.data;
	while (fgets(line, sizeof(line), fp)) {
		const char *nl = p ? memchr(p, '\n',
					    (size_t)(got.data + got.len - p))
				   : NULL;
		json_t *a = json_loads(line, 0, NULL), *b;

		row++;
		if (!nl) {
			FAIL("%s: rows.jsonl has fewer rows than %s", rel, c);
			json_decref(a);
			break;
		}
		b = json_loadb(p, (size_t)(nl - p), 0, NULL);
		if (!a || !b || !json_equal(a, b))
			FAIL("%s: row %zu differs from %s", rel, row, c);
		json_decref(a);
		json_decref(b);
		p = nl + 1;
	}
	if (row && p != got.data + got.len)
		FAIL("%s: rows.jsonl has more rows than %s", rel, c);
	if (row)
		files_checked++;
	fclose(fp);
	free(got.data);
}

/* orc-contents tool output: like rows.jsonl but decimals quoted and
 * trimmed ("63351.7" where rows.jsonl has 63351.70).  Rows are compared
 * field by field; a quoted expected value compares as a number. */
static void check_contents_rows(colfs_tree *t, const char *corpus,
				const char *c, const char *rel)
{
	char *cp = path_join(corpus, c);
	FILE *fp = fopen(cp, "rb");
	blob got = {0};
	colfs_node *n;
	char line[65536];
	const char *p;
	size_t row = 0;

	free(cp);
	if (!fp) {
		FAIL("%s: cannot read %s", rel, c);
		return;
	}
	if (colfs_tree_resolve(t, "rows.jsonl", &n) ||
	    !read_node(t, n, &got, "/rows.jsonl")) {
		FAIL("%s: rows.jsonl unreadable", rel);
		fclose(fp);
		return;
	}
	p = got.data;
	while (p && fgets(line, sizeof(line), fp)) {
		const char *nl = memchr(p, '\n',
					(size_t)(got.data + got.len - p));
		json_t *a = json_loads(line, 0, NULL), *b;
		const char *key;
		json_t *av;

		row++;
		if (!nl) {
			FAIL("%s: rows.jsonl has fewer rows than %s", rel, c);
			json_decref(a);
			break;
		}
		b = json_loadb(p, (size_t)(nl - p), 0, NULL);
		if (!a || !b || json_object_size(a) != json_object_size(b)) {
			FAIL("%s: row %zu differs from %s", rel, row, c);
		} else {
			json_object_foreach(a, key, av) {
				json_t *bv = json_object_get(b, key);
				bool same;

				if (json_is_string(av) && json_is_number(bv)) {
					double x = strtod(json_string_value(av),
							  NULL);
					double y = json_number_value(bv);

					same = x == y ||
					       (x - y < 1e-9 * (x < 0 ? -x : x) &&
						y - x < 1e-9 * (x < 0 ? -x : x));
				} else {
					same = bv && json_equal(av, bv);
				}
				if (!same)
					FAIL("%s: row %zu field %s differs "
					     "from %s", rel, row, key, c);
			}
		}
		json_decref(a);
		json_decref(b);
		p = nl + 1;
	}
	if (row && p != got.data + got.len)
		FAIL("%s: rows.jsonl has more rows than %s", rel, c);
	if (row)
		files_checked++;
	fclose(fp);
	free(got.data);
}

/* --- verify: the statistics against the values --------------------------- */

/* The writer bugs of the corpus (docs/orc-tree.md, "verify"): mismatches
 * of all stripes together and of the file statistics. */
static const struct known {
	const char *file;
	long stripes, file_stats;
} known[] = {
	/* ORC Java without a row index: zero stripe and file statistics */
	{"TestOrcFile.testMemoryManagementV11.orc", 100, 4},
	{"TestOrcFile.testMemoryManagementV12.orc", 16, 4},
	{"TestOrcFile.testWithoutIndex.orc", 40, 4},
	{"TestOrcFile.testSargSkipPickupGroupWithoutIndexJava.orc", 4, 4},
	/* ORC Java: 1024 children (the batch size) for a 1-row list/map */
	{"complextypes_iceberg.orc", 60, 30},
	/* ORC Java pre-2.0 decimal64: minimum 0 */
	{"decimal64_v2.orc", 4, 2},
	/* ORC C++ 1.9.1: totalChildren 0 */
	{"orc-rust/nested_array_float.orc", 2, 1},
	{"orc-rust/nested_array_struct.orc", 2, 1},
	/* ORC Java 1.8.0-SNAPSHOT: double sums of repeating batches */
	{"orc_split_elim_new.orc", 4, 1},
};

/* The count of a verify document's last line, "N mismatch(es)"; -1 when
 * there is none. */
static long verify_count(const blob *b)
{
	const char *last;
	char tmp[32];
	long k;

	if (b->len < 2 || b->data[b->len - 1] != '\n')
		return -1;
	last = b->data + b->len - 1;
	while (last > b->data && last[-1] != '\n')
		last--;
	snprintf(tmp, sizeof tmp, "%.*s",
		 (int)(b->data + b->len - last), last);
	if (sscanf(tmp, "%ld mismatch", &k) != 1)
		return -1;
	return k;
}

/* After the walk the documents are cached: reading them again is cheap. */
static void check_verify(colfs_tree *t, const char *rel)
{
	const char *name = strncmp(rel, "orc/good/", 9) ? rel : rel + 9;
	long want_s = 0, want_f = 0, got_s = 0, got_f;
	colfs_node *n;
	blob b;
	char p[64];

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i].file, name)) {
			want_s = known[i].stripes;
			want_f = known[i].file_stats;
		}
	for (size_t s = 0;; s++) {
		long k;

		snprintf(p, sizeof p, "stripes/%zu/verify", s);
		if (colfs_tree_resolve(t, p, &n))
			break;
		if (!read_node(t, n, &b, p)) {
			FAIL("%s: %s unreadable", rel, p);
			return;
		}
		k = verify_count(&b);
		free(b.data);
		if (k < 0)
			FAIL("%s: %s does not end with its mismatch count",
			     rel, p);
		got_s += k;
	}
	if (colfs_tree_resolve(t, "verify", &n) ||
	    !read_node(t, n, &b, "verify")) {
		FAIL("%s: verify unreadable", rel);
		return;
	}
	got_f = verify_count(&b);
	free(b.data);
	if (got_s != want_s || got_f != want_f)
		FAIL("%s: verify: %ld stripe and %ld file statistics "
		     "mismatches, expected %ld and %ld", rel, got_s, got_f,
		     want_s, want_f);
	else
		files_checked++;
}

static void check_file(const char *corpus, const char *rel, const char *kind,
		       const char *companions)
{
	char *path = path_join(corpus, rel);
	char why[512] = "";
	colfs_tree *t = NULL;
	colfs_status st;
	walk w = {0};
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	colfs_node *n;
	blob summary = {0}, errors = {0};
	bool bad = !strcmp(kind, "orc-bad");

	st = colfs_tree_open(path, NULL, &t, why, sizeof(why));
	if (st) {
		if (!bad)
			FAIL("%s: open: %s", rel, why);
		else if (!why[0])
			FAIL("%s: refused without a reason", rel);
		free(path);
		return;
	}
	w.t = t;
	w.file = rel;
	w.bad = bad;
	if (!colfs_tree_resolve(t, "summary", &n) &&
	    read_node(t, n, &summary, "/summary")) {
		char v[64];

		if (summary_get(&summary, "rows", v, sizeof(v)))
			w.rows = strtoull(v, NULL, 10);
	} else if (!bad) {
		FAIL("%s: no summary", rel);
	}
	walk_dir(&w, colfs_tree_root(t), "", 0);

	/* rows.jsonl against the expected rows */
	if (!bad && companions) {
		char comp[2048], *save = NULL;

		snprintf(comp, sizeof(comp), "%s", companions);
		for (char *c = strtok_r(comp, ";", &save); c;
		     c = strtok_r(NULL, ";", &save)) {
			size_t cl = strlen(c);
			blob want = {0}, got = {0};
			char *cp;
			bool ok;

			if (strstr(c, "orc-contents") &&
			    !strstr(c, "selected-columns")) {
				check_contents_rows(t, corpus, c, rel);
				continue;
			}
			if (strstr(c, "orc-contents") || strstr(c, "facts"))
				continue;
			if (cl > 11 && !strcmp(c + cl - 11, "-nokey.json")) {
				check_json_rows(t, corpus, c, rel);
				continue;
			}
			cp = path_join(corpus, c);
			if (cl > 7 && !strcmp(c + cl - 7, ".jsn.gz")) {
				ok = gunzip_file(cp, &want);
			} else if (cl > 4 && !strcmp(c + cl - 4, ".jsn")) {
				FILE *fp = fopen(cp, "rb");

				ok = fp != NULL;
				if (fp) {
					want.data = malloc(1 << 24);
					want.len = fread(want.data, 1, 1 << 24,
							 fp);
					fclose(fp);
				}
			} else {
				free(cp);
				continue;
			}
			free(cp);
			if (!ok) {
				FAIL("%s: cannot read %s", rel, c);
			} else if (colfs_tree_resolve(t, "rows.jsonl", &n) ||
				   !read_node(t, n, &got, "/rows.jsonl")) {
				FAIL("%s: rows.jsonl unreadable", rel);
			} else if (got.len != want.len ||
				   memcmp(got.data, want.data, got.len)) {
				size_t i = 0, line = 1;

				while (i < got.len && i < want.len &&
				       got.data[i] == want.data[i])
					line += got.data[i++] == '\n';
				FAIL("%s: rows.jsonl differs from %s at line "
				     "%zu (byte %zu)", rel, c, line, i);
			} else {
				files_checked++;
			}
			free(want.data);
			free(got.data);
		}
	}
	if (!bad && summary.data) {
		check_facts(&w, &summary, corpus,
			    "orc/expected/derived/orc_reader_facts.tsv", base);
		check_facts(&w, &summary, corpus,
			    "orc/expected/derived/orc_metadata_facts.tsv", base);
	}

	if (!bad)
		check_verify(t, rel);
	if (colfs_tree_resolve(t, "errors", &n) ||
	    !read_node(t, n, &errors, "/errors")) {
		FAIL("%s: errors unreadable", rel);
	} else if (bad) {
		const char *p = errors.data, *end = errors.data + errors.len;

		if (errors.len == 0)
			FAIL("%s: bad file but errors is empty", rel);
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl)
				nl = end;
			if (!memmem(p, (size_t)(nl - p), "offset ", 7))
				FAIL("%s: error line without offset: %.*s",
				     rel, (int)(nl - p), p);
			p = nl + 1;
		}
	} else {
		/* a healthy file may still carry a writer's wrong statistics:
		 * check_verify counts those exactly */
		const char *p = errors.data, *end = errors.data + errors.len;

		while (p && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl)
				nl = end;
			if (!memmem(p, (size_t)(nl - p),
				    "statistics disagree with the data: ", 35)) {
				FAIL("%s: healthy file has errors: %.*s", rel,
				     (int)(nl - p > 400 ? 400 : nl - p), p);
				break;
			}
			p = nl + 1;
		}
	}
	free(errors.data);
	free(summary.data);
	printf("%s: %zu nodes\n", rel, w.nodes);
	colfs_tree_destroy(t);
	free(path);
}

int main(int argc, char **argv)
{
	char *manifest;
	FILE *fp;
	char line[16384];
	size_t n = 0;

	sanitized = getenv("COLFS_SANITIZED") &&
		    !strcmp(getenv("COLFS_SANITIZED"), "1");

	if (argc != 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR KIND\n", argv[0]);
		return 2;
	}
	manifest = path_join(argv[1], "MANIFEST.tsv");
	fp = fopen(manifest, "r");
	free(manifest);
	if (!fp) {
		printf("corpus not found at %s: skipping\n", argv[1]);
		return 77;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *f[8];
		size_t nf = 0;
		char *p = line;

		line[strcspn(line, "\r\n")] = '\0';
		while (nf < 8) {
			char *tab = strchr(p, '\t');

			f[nf++] = p;
			if (!tab)
				break;
			*tab = '\0';
			p = tab + 1;
		}
		if (nf < 8 || strcmp(f[7], argv[2]))
			continue;
		check_file(argv[1], f[0], argv[2], f[5][0] ? f[5] : NULL);
		n++;
	}
	fclose(fp);
	printf("%zu files of kind %s, %zu expectations compared, %d "
	       "failures\n", n, argv[2], files_checked, failures);
	if (n == 0) {
		printf("no files of kind %s\n", argv[2]);
		return 77;
	}
	return failures ? 1 : 0;
}

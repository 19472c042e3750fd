/* colfs tests: the Parquet value views read through colfs.h.
 *
 *   test_pq_values matrix DIR        the DuckDB matrix (gen-matrix.mjs):
 *                                    every columns/<col> equals
 *                                    DIR/<file>.expected/<col>
 *   test_pq_values good CORPUS       every good Parquet file of the
 *                                    corpus: each columns/ file has
 *                                    num_rows lines, rows.jsonl parses line
 *                                    by line, *_expect.csv companions match
 *   test_pq_values bad CORPUS KIND   every file of KIND: read every value
 *                                    view; nothing may crash or hang
 *   test_pq_values bloom CORPUS MKSAMPLE TMPDIR
 *                                    bloom_filter/might_contain/<value>:
 *                                    every stored value is found, most
 *                                    absent values are not
 *   test_pq_values bigpage CORPUS    large_string_map.brotli.parquet is
 *                                    refused with a max_alloc error, not
 *                                    decompressed past 2 GiB
 *   test_pq_values variant CORPUS    parquet/good/shredded_variant: each
 *                                    row of columns/var (and rows.jsonl,
 *                                    row_groups/0/columns/var) equals the
 *                                    case's expected variant bytes
 *                                    (case-N_row-K.variant.bin, from the
 *                                    reference reader) decoded by
 *                                    pq_variant.c
 *
 * Exit 0 on success, 1 on a failure, 77 when the input is missing. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colfs.h"
#include "parquet/decode/pq_variant.h"
#include "../testio.h"

static long n_fail, n_checked;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	n_fail++;
}

/* The whole content of a file node, NUL-terminated; NULL on failure
 * (`*st` says why). */
static char *node_read(colfs_tree *t, colfs_node *n, size_t *len,
		       colfs_status *st)
{
	colfs_handle *h;
	size_t cap = 1 << 16, got;
	char *p = malloc(cap + 1);

	*len = 0;
	*st = colfs_node_open(t, n, &h);
	if (*st) {
		free(p);
		return NULL;
	}
	for (;;) {
		if (cap - *len < (1 << 16)) {
			char *q = realloc(p, cap * 2 + 1);
			if (!q)
				break;
			p = q;
			cap *= 2;
		}
		*st = colfs_handle_read(h, *len, cap - *len, p + *len, &got);
		if (*st || got == 0)
			break;
		*len += got;
	}
	colfs_handle_close(h);
	if (*st) {
		free(p);
		return NULL;
	}
	p[*len] = 0;
	return p;
}

static char *path_read(colfs_tree *t, const char *path, size_t *len,
		       colfs_status *st)
{
	colfs_node *n;

	*st = colfs_tree_resolve(t, path, &n);
	if (*st)
		return NULL;
	return node_read(t, n, len, st);
}

static size_t count_lines(const char *p, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += p[i] == '\n';
	return n;
}

static void first_diff(const char *what, const char *want, size_t wlen,
		       const char *got, size_t glen)
{
	size_t i = 0, line = 1;
	while (i < wlen && i < glen && want[i] == got[i])
		line += want[i++] == '\n';
	size_t a = i, b = i;
	while (a > 0 && want[a - 1] != '\n')
		a--;
	while (b > 0 && got[b - 1] != '\n')
		b--;
	fail("%s: differs at line %zu: want \"%.*s\" got \"%.*s\"", what,
	     line, (int)strcspn(want + a, "\n"), want + a,
	     (int)strcspn(got + b, "\n"), got + b);
}

/* --- matrix --------------------------------------------------------------- */

static int run_matrix(const char *dir)
{
	char path[4096], *manifest, *line, *save = NULL;
	size_t len;

	snprintf(path, sizeof path, "%s/manifest.tsv", dir);
	manifest = testio_slurp(path, &len);
	if (!manifest) {
		fprintf(stderr, "%s: missing\n", path);
		return 1;
	}
	for (line = strtok_r(manifest, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		colfs_tree *t;
		char why[256];
		colfs_node *cols;
		colfs_node *const *kids;
		size_t nk;

		if (line[0] == '#')
			continue;
		line[strcspn(line, "\t")] = 0;
		snprintf(path, sizeof path, "%s/%s.parquet", dir, line);
		if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
			fail("%s: %s", path, why);
			continue;
		}
		if (colfs_tree_resolve(t, "columns", &cols) ||
		    colfs_dir_list(t, cols, &kids, &nk)) {
			fail("%s: no columns/", path);
			colfs_tree_destroy(t);
			continue;
		}
		for (size_t i = 0; i < nk; i++) {
			const char *name = colfs_node_name(kids[i]);
			size_t wl, gl;
			colfs_status st;
			snprintf(path, sizeof path, "%s/%s.expected/%s", dir,
				 line, name);
			char *want = testio_slurp(path, &wl);
			if (!want)
				continue;
			char *got = node_read(t, kids[i], &gl, &st);
			snprintf(path, sizeof path, "%s/columns/%s", line, name);
			if (!got)
				fail("%s: read failed: %s", path,
				     colfs_status_name(st));
			else if (gl != wl || memcmp(want, got, wl))
				first_diff(path, want, wl, got, gl);
			else
				n_checked++;
			free(want);
			free(got);
		}
		colfs_tree_destroy(t);
	}
	free(manifest);
	printf("matrix: %ld columns equal DuckDB's, %ld failures\n",
	       n_checked, n_fail);
	return n_fail || !n_checked ? 1 : 0;
}

/* --- corpus --------------------------------------------------------------- */

/* Parquet files of one kind from MANIFEST.tsv (path column 1, kind last). */
static char **manifest_files(const char *corpus, const char *kind, size_t *n)
{
	char path[4096], *m, *line, *save = NULL;
	size_t len, cap = 0;
	char **out = NULL;

	*n = 0;
	snprintf(path, sizeof path, "%s/MANIFEST.tsv", corpus);
	m = testio_slurp(path, &len);
	if (!m)
		return NULL;
	for (line = strtok_r(m, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *k = strrchr(line, '\t');
		if (!k || strcmp(k + 1, kind))
			continue;
		line[strcspn(line, "\t")] = 0;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			out = realloc(out, cap * sizeof *out);
		}
		snprintf(path, sizeof path, "%s/%s", corpus, line);
		out[(*n)++] = strdup(path);
	}
	free(m);
	return out;
}

/* The rows the views show: the sum of the row groups' num_rows (some
 * writers leave FileMetaData.num_rows 0). */
static long long file_rows(colfs_tree *t)
{
	size_t len;
	colfs_status st;
	char *p = path_read(t, "metadata.json", &len, &st);
	long long rows = -1;

	if (p) {
		json_t *j = json_loads(p, 0, NULL);
		json_t *rgs = j ? json_object_get(j, "row_groups") : NULL;
		size_t i;
		json_t *rg;
		if (json_is_array(rgs)) {
			rows = 0;
			json_array_foreach(rgs, i, rg) {
				json_t *r = json_object_get(rg, "num_rows");
				if (json_is_integer(r) && json_integer_value(r) > 0)
					rows += json_integer_value(r);
			}
		}
		json_decref(j);
	}
	free(p);
	return rows;
}

/* A CSV header name as the column is called in the file: trimmed of
 * spaces and of a trailing ':' (delta_encoding_required_column names its
 * columns "c_customer_sk:"). */
static bool same_name(const char *csv, const char *col)
{
	while (*csv == ' ')
		csv++;
	while (*col == ' ')
		col++;
	size_t a = strlen(csv), b = strlen(col);
	while (a && csv[a - 1] == ' ')
		a--;
	while (b && (col[b - 1] == ' ' || col[b - 1] == ':'))
		b--;
	return a == b && !memcmp(csv, col, a);
}

/* One CSV field (RFC 4180) from *pp; `*null` when empty and unquoted. */
static char *csv_field(const char **pp, bool *null, bool *eol)
{
	const char *p = *pp;
	size_t cap = 64, n = 0;
	char *o = malloc(cap);

	*null = false;
	if (*p == '"') {
		p++;
		for (;;) {
			if (!*p)
				break;
			if (*p == '"' && p[1] == '"') {
				p++;
			} else if (*p == '"') {
				p++;
				break;
			}
			if (n + 2 > cap)
				o = realloc(o, cap *= 2);
			o[n++] = *p++;
		}
	} else {
		while (*p && *p != ',' && *p != '\n' && *p != '\r') {
			if (n + 2 > cap)
				o = realloc(o, cap *= 2);
			o[n++] = *p++;
		}
		*null = n == 0;
	}
	o[n] = 0;
	if (*p == '\r')
		p++;
	*eol = *p == '\n' || !*p;
	if (*p)
		p++;
	*pp = p;
	return o;
}

/* Compare columns/<name> with the companion CSV's columns. */
static void check_expect_csv(colfs_tree *t, const char *file, const char *csv)
{
	size_t len;
	char *text = testio_slurp(csv, &len);
	const char *p = text;
	char *names[512];
	size_t nn = 0;
	bool null, eol = false;

	if (!text)
		return;
	while (!eol && nn < 512)
		names[nn++] = csv_field(&p, &null, &eol);
	const char *rows = p;
	for (size_t c = 0; c < nn; c++) {
		char path[1024];
		size_t gl;
		colfs_status st;
		colfs_node *cols, *col = NULL;
		colfs_node *const *kids;
		size_t nk;
		char *got = NULL;
		snprintf(path, sizeof path, "columns/%s", names[c]);
		st = COLFS_ENOENT;
		if (!colfs_tree_resolve(t, "columns", &cols) &&
		    !colfs_dir_list(t, cols, &kids, &nk))
			for (size_t k = 0; k < nk && !col; k++)
				if (same_name(names[c], colfs_node_name(kids[k])))
					col = kids[k];
		if (col)
			got = node_read(t, col, &gl, &st);
		if (!got) {
			fail("%s: %s: %s", file, path, colfs_status_name(st));
			continue;
		}
		const char *q = rows, *g = got;
		size_t row = 0;
		bool bad = false;
		while (*q && !bad) {
			char *want = NULL;
			for (size_t k = 0; k < nn; k++) {
				char *f = csv_field(&q, &null, &eol);
				if (k == c) {
					want = null ? strdup("\\N") : f;
					if (null)
						free(f);
				} else {
					free(f);
				}
			}
			size_t gl1 = strcspn(g, "\n");
			if (!want || strlen(want) != gl1 || memcmp(want, g, gl1)) {
				fail("%s: %s row %zu: want \"%s\" got \"%.*s\"",
				     file, path, row, want ? want : "?",
				     (int)gl1, g);
				bad = true;
			}
			free(want);
			g += gl1 + (g[gl1] == '\n');
			row++;
		}
		if (!bad)
			n_checked++;
		free(got);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(text);
}

/* case-128: the problem of the value that cannot be rebuilt names the
 * file offset of the page holding it (var.value's data page), not 0. */
static bool variant_offset_ok(colfs_tree *t, const char *file)
{
	size_t len;
	colfs_status st;
	char *e = path_read(t, "errors", &len, &st);
	char *m = path_read(t, "row_groups/0/chunks/var.value/meta.json", &len,
			    &st);
	json_t *j = m ? json_loads(m, 0, NULL) : NULL;
	json_t *md = json_object_get(j, "meta_data");
	long long want = (long long)json_integer_value(
		json_object_get(md ? md : j, "data_page_offset"));
	const char *l = e ? strstr(e, "is not an object") : NULL;
	char expect[64];
	bool ok = false;

	snprintf(expect, sizeof expect, "/rows.jsonl: offset %lld (", want);
	if (!l || want <= 0) {
		fail("%s: no problem reported, or no data page offset", file);
	} else {
		while (l > e && l[-1] != '\n')
			l--;
		ok = strncmp(l, expect, strlen(expect)) == 0;
		if (!ok)
			fail("%s: the problem does not name the page at %lld: %.*s",
			     file, want, (int)strcspn(l, "\n"), l);
	}
	json_decref(j);
	free(m);
	free(e);
	return ok;
}

static int run_good(const char *corpus)
{
	size_t n;
	char **files = manifest_files(corpus, "parquet", &n);

	if (!files) {
		fprintf(stderr, "SKIP: no corpus at %s\n", corpus);
		return 77;
	}
	for (size_t f = 0; f < n; f++) {
		colfs_tree *t;
		char why[256];
		colfs_node *cols;
		colfs_node *const *kids;
		size_t nk, len;
		colfs_status st;
		struct stat sb;

		if (strstr(files[f], "large_string_map"))
			continue;    /* run_bigpage */
		colfs_options opts = {0};
		bool p816 = strstr(files[f], "nation.dict-malformed") != NULL;
		/* a non-object variant value beside shredded object fields
		 * (docs/values.md, VARIANT) */
		bool flawed = strstr(files[f], "shredded_variant/case-128.") != NULL;
		if (strstr(files[f], "corrupt-checksum")) {
			/* refused by default, served with checksums=ignore */
			if (colfs_tree_open(files[f], NULL, &t, why, sizeof why)) {
				fail("%s: %s", files[f], why);
				continue;
			}
			char *p = path_read(t, "rows.jsonl", &len, &st);
			char *e = path_read(t, "errors", &len, &st);
			if (p || !e || !strstr(e, "CRC mismatch"))
				fail("%s: a page CRC mismatch was not refused",
				     files[f]);
			else
				n_checked++;
			free(p);
			free(e);
			colfs_tree_destroy(t);
			opts.checksums_ignore = true;
		}
		if (colfs_tree_open(files[f], &opts, &t, why, sizeof why)) {
			fail("%s: %s", files[f], why);
			continue;
		}
		long long rows = file_rows(t);
		if (p816) {
			/* PARQUET-816: pages overrun the chunk's declared
			 * size; an old parquet-mr wrote it, so they are read
			 * (within 100 bytes) and the overrun is reported. */
			char *p = path_read(t, "rows.jsonl", &len, &st);
			char *e = path_read(t, "errors", &len, &st);
			if (!p || !e || !strstr(e, "(PARQUET-816); read anyway"))
				fail("%s: not read, or the overrun not reported",
				     files[f]);
			free(p);
			free(e);
		}
		if (flawed) {
			/* case-128: the variant cannot be rebuilt; the views
			 * holding it must fail, not show a wrong value. */
			char *p = path_read(t, "rows.jsonl", &len, &st);
			if (p)
				fail("%s: served a variant that cannot be rebuilt",
				     files[f]);
			else if (variant_offset_ok(t, files[f]))
				n_checked++;
			free(p);
			colfs_tree_destroy(t);
			continue;
		}
		if (rows < 0 || colfs_tree_resolve(t, "columns", &cols) ||
		    colfs_dir_list(t, cols, &kids, &nk)) {
			/* encrypted footers and the like: no values */
			colfs_tree_destroy(t);
			continue;
		}
		for (size_t i = 0; i < nk; i++) {
			char *p = node_read(t, kids[i], &len, &st);
			if (!p) {
				fail("%s: columns/%s: %s", files[f],
				     colfs_node_name(kids[i]),
				     colfs_status_name(st));
				continue;
			}
			if ((long long)count_lines(p, len) != rows)
				fail("%s: columns/%s: %zu lines, num_rows %lld",
				     files[f], colfs_node_name(kids[i]),
				     count_lines(p, len), rows);
			else
				n_checked++;
			free(p);
		}
		char *j = path_read(t, "rows.jsonl", &len, &st);
		if (!j && nk) {
			fail("%s: rows.jsonl: %s", files[f],
			     colfs_status_name(st));
		} else if (j) {
			long long lines = 0;
			char *save = NULL;
			for (char *l = strtok_r(j, "\n", &save); l;
			     l = strtok_r(NULL, "\n", &save), lines++) {
				json_error_t je;
				json_t *o = json_loads(l, 0, &je);
				if (!json_is_object(o)) {
					fail("%s: rows.jsonl line %lld: %s",
					     files[f], lines + 1, je.text);
					json_decref(o);
					break;
				}
				json_decref(o);
			}
			if (lines != rows)
				fail("%s: rows.jsonl: %lld lines, num_rows %lld",
				     files[f], lines, rows);
			free(j);
		}
		/* row_groups/N/columns/<leaf> of a flat leaf equals the
		 * chunk's values (batches and cursors vs whole pages) */
		colfs_node *rgs;
		colfs_node *const *rk;
		size_t nr;
		if (!colfs_tree_resolve(t, "row_groups", &rgs) &&
		    !colfs_dir_list(t, rgs, &rk, &nr)) {
			for (size_t g = 0; g < nr; g++) {
				char rp[512];
				colfs_node *rc;
				colfs_node *const *ck;
				size_t nc;
				snprintf(rp, sizeof rp, "row_groups/%s/columns",
					 colfs_node_name(rk[g]));
				if (colfs_tree_resolve(t, rp, &rc) ||
				    colfs_dir_list(t, rc, &ck, &nc))
					continue;
				for (size_t c = 0; c < nc; c++) {
					char cp[1024];
					size_t al, bl;
					colfs_status as, bs;
					snprintf(cp, sizeof cp,
						 "row_groups/%s/chunks/%s/values",
						 colfs_node_name(rk[g]),
						 colfs_node_name(ck[c]));
					colfs_node *vn, *ln;
					if (colfs_tree_resolve(t, cp, &vn))
						continue;
					/* repeated leaves are assembled: skip */
					snprintf(cp + strlen(cp) - 6, 7, "levels");
					if (!colfs_tree_resolve(t, cp, &ln)) {
						size_t ll;
						colfs_status ls;
						char *lv = node_read(t, ln, &ll, &ls);
						bool rep = !lv;
						for (size_t x = 0; lv && x < ll; x++)
							if ((x == 0 || lv[x - 1] == '\n') &&
							    lv[x] != '0')
								rep = true;
						free(lv);
						if (rep)
							continue;
					}
					snprintf(cp + strlen(cp) - 6, 7, "values");
					char *a = node_read(t, ck[c], &al, &as);
					char *b = node_read(t, vn, &bl, &bs);
					if (!a || !b)
						fail("%s: %s: %s / %s", files[f], cp,
						     colfs_status_name(as),
						     colfs_status_name(bs));
					else if (al != bl || memcmp(a, b, al))
						first_diff(cp, b, bl, a, al);
					else
						n_checked++;
					free(a);
					free(b);
				}
			}
		}
		char csv[4096];
		snprintf(csv, sizeof csv, "%.*s_expect.csv",
			 (int)(strlen(files[f]) - strlen(".parquet")),
			 files[f]);
		if (stat(csv, &sb) == 0)
			check_expect_csv(t, files[f], csv);
		colfs_tree_destroy(t);
	}
	for (size_t f = 0; f < n; f++)
		free(files[f]);
	free(files);
	printf("good: %ld checks passed, %ld failures\n", n_checked, n_fail);
	return n_fail ? 1 : 0;
}

/* Read every file below `n` (value views included). */
static void read_all(colfs_tree *t, colfs_node *n, int depth)
{
	colfs_node *const *kids;
	size_t nk, len;
	colfs_status st;

	if (depth > 12)
		return;
	if (!colfs_node_is_dir(n)) {
		free(node_read(t, n, &len, &st));
		n_checked++;
		return;
	}
	if (colfs_dir_list(t, n, &kids, &nk))
		return;
	for (size_t i = 0; i < nk; i++)
		read_all(t, kids[i], depth + 1);
}

static int run_bad(const char *corpus, const char *kind)
{
	size_t n;
	char **files = manifest_files(corpus, kind, &n);

	if (!files) {
		fprintf(stderr, "SKIP: no corpus at %s\n", corpus);
		return 77;
	}
	for (size_t f = 0; f < n; f++) {
		colfs_tree *t;
		char why[256];
		if (!colfs_tree_open(files[f], NULL, &t, why, sizeof why)) {
			read_all(t, colfs_tree_root(t), 0);
			colfs_tree_destroy(t);
		}
		free(files[f]);
	}
	free(files);
	printf("%s: %zu files, %ld nodes read without a crash\n", kind, n,
	       n_checked);
	return 0;
}

static int run_bigpage(const char *corpus)
{
	char path[4096], why[256];
	colfs_tree *t;
	colfs_node *cols;
	colfs_node *const *kids;
	size_t nk, len;
	colfs_status st;

	snprintf(path, sizeof path,
		 "%s/parquet/good/large_string_map.brotli.parquet", corpus);
	if (access(path, R_OK)) {
		fprintf(stderr, "SKIP: %s missing\n", path);
		return 77;
	}
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		fprintf(stderr, "%s: %s\n", path, why);
		return 1;
	}
	if (colfs_tree_resolve(t, "columns", &cols) ||
	    colfs_dir_list(t, cols, &kids, &nk) || !nk) {
		fprintf(stderr, "no columns/\n");
		return 1;
	}
	char *p = node_read(t, kids[0], &len, &st);
	char *errs = path_read(t, "errors", &len, &st);
	int rc = 0;
	if (p) {
		fprintf(stderr, "columns/%s was served (%zu bytes) past max_alloc\n",
			colfs_node_name(kids[0]), len);
		rc = 1;
	} else if (!errs || !strstr(errs, "max_alloc")) {
		fprintf(stderr, "no max_alloc error in errors:\n%s\n",
			errs ? errs : "(none)");
		rc = 1;
	} else {
		printf("refused as expected:\n%s", errs);
	}
	free(p);
	free(errs);
	colfs_tree_destroy(t);
	return rc;
}

/* Look up every line of columns/<col> under `dir`/might_contain, then
 * `absent` values that are not in the column. */
static void bloom_check(colfs_tree *t, const char *file, const char *col,
			const char *dir, char *const *absent, size_t n_absent)
{
	char path[1024], *vals, *save = NULL;
	size_t len, found = 0, total = 0, neg = 0;
	colfs_status st;
	colfs_node *n;

	snprintf(path, sizeof path, "columns/%s", col);
	vals = path_read(t, path, &len, &st);
	if (!vals) {
		fail("%s: %s: %s", file, path, colfs_status_name(st));
		return;
	}
	for (char *l = strtok_r(vals, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(l, "\\N"))
			continue;
		snprintf(path, sizeof path, "%s/might_contain/%s", dir, l);
		total++;
		if (!colfs_tree_resolve(t, path, &n))
			found++;
		else
			fail("%s: %s: a stored value is not found", file, path);
	}
	for (size_t i = 0; i < n_absent; i++) {
		snprintf(path, sizeof path, "%s/might_contain/%s", dir,
			 absent[i]);
		neg += colfs_tree_resolve(t, path, &n) == COLFS_ENOENT;
	}
	if (!total || neg * 4 < n_absent * 3)
		fail("%s: %s: %zu values, only %zu of %zu absent values rejected",
		     file, dir, total, neg, n_absent);
	else
		n_checked++;
	free(vals);
}

static int run_bloom(const char *corpus, const char *mksample,
		     const char *tmpdir)
{
	char path[4096], why[256], cmd[8192], *absent[40];
	colfs_tree *t;

	for (int i = 0; i < 40; i++) {
		absent[i] = malloc(32);
		snprintf(absent[i], 32, i % 2 ? "absent-%d" : "%d",
			 i % 2 ? i : 100000000 + i);
	}
	snprintf(path, sizeof path,
		 "%s/parquet/good/data_index_bloom_encoding_stats.parquet",
		 corpus);
	if (!access(path, R_OK)) {
		if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
			fail("%s: %s", path, why);
		} else {
			bloom_check(t, path, "String",
				    "row_groups/0/chunks/String/bloom_filter",
				    absent, 40);
			colfs_tree_destroy(t);
		}
	}
	snprintf(path, sizeof path, "%s/bloom-sample.parquet", tmpdir);
	snprintf(cmd, sizeof cmd, "'%s' '%s' --rows 3000 --row-groups 1",
		 mksample, path);
	if (system(cmd) != 0) {
		fail("%s failed", cmd);
	} else if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		fail("%s: %s", path, why);
	} else {
		bloom_check(t, path, "id", "row_groups/0/chunks/id/bloom_filter",
			    absent, 40);
		bloom_check(t, path, "name",
			    "row_groups/0/chunks/name/bloom_filter", absent,
			    40);
		colfs_tree_destroy(t);
	}
	for (int i = 0; i < 40; i++)
		free(absent[i]);
	printf("bloom: %ld filters checked, %ld failures\n", n_checked,
	       n_fail);
	return n_fail ? 1 : 0;
}

/* The JSON text of an expected variant (metadata bytes, then value
 * bytes) as a top-level columns/ line (a variant null is the null
 * token); NULL with *why on a malformed file. */
static char *variant_bin_line(const uint8_t *p, size_t n, char *why,
			      size_t whylen)
{
	pq_variant_meta m;
	colfs_err e = {0};
	colfs_buf out = {0};
	size_t w, keys, need, last;

	/* the metadata's length: header, dictionary size, offsets, bytes */
	if (n < 1) {
		snprintf(why, whylen, "empty");
		return NULL;
	}
	w = (size_t)(p[0] >> 6) + 1;
	if (n < 1 + w) {
		snprintf(why, whylen, "metadata cut short");
		return NULL;
	}
	keys = 0;
	for (size_t i = w; i-- > 0;)
		keys = keys << 8 | p[1 + i];
	need = 1 + w + (keys + 1) * w;
	if (keys > n || need > n) {
		snprintf(why, whylen, "metadata offsets cut short");
		return NULL;
	}
	last = 0;
	for (size_t i = w; i-- > 0;)
		last = last << 8 | p[1 + w + keys * w + i];
	if (last > n - need) {
		snprintf(why, whylen, "metadata bytes cut short");
		return NULL;
	}
	if (pq_variant_meta_parse(p, need + last, &m, &e) ||
	    pq_variant_to_json(&m, p + need + last, n - need - last, &out,
			       &e)) {
		snprintf(why, whylen, "%s", e.msg);
		colfs_buf_free(&out);
		return NULL;
	}
	if (out.len == 4 && !memcmp(out.data, "null", 4)) {
		out.len = 0;
		colfs_buf_puts(&out, "\\N");
	}
	colfs_buf_putc(&out, 0);
	return out.data;
}

static int run_variant(const char *corpus)
{
	char dir[4096], path[4200], why[256];
	json_error_t je;
	json_t *cases, *c;
	size_t i, n_rows = 0, n_notes = 0;

	snprintf(dir, sizeof dir, "%s/parquet/good/shredded_variant", corpus);
	snprintf(path, sizeof path, "%s/cases.json", dir);
	cases = json_load_file(path, 0, &je);
	if (!cases) {
		fprintf(stderr, "SKIP: no %s\n", path);
		return 77;
	}
	json_array_foreach(cases, i, c) {
		const char *pf = json_string_value(json_object_get(c, "parquet_file"));
		json_t *one = json_object_get(c, "variant_file");
		json_t *many = json_object_get(c, "variant_files");
		const char *err_msg = json_string_value(json_object_get(c, "error_message"));
		colfs_tree *t;
		colfs_status st;
		size_t len, len2, len3;

		if (!pf)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, pf);
		if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
			fail("%s: %s", pf, why);
			continue;
		}
		char *col = path_read(t, "columns/var", &len, &st);
		if (err_msg) {
			/* the reference reader refuses it; colfs's choice is
			 * docs/values.md's (VARIANT): only noted */
			printf("note: %s: the reference reader refuses it (%s); colfs: %s",
			       pf, err_msg, col ? col : colfs_status_name(st));
			if (!col)
				putchar('\n');
			n_notes++;
			free(col);
			colfs_tree_destroy(t);
			continue;
		}
		if (!col) {
			fail("%s: columns/var: %s", pf, colfs_status_name(st));
			colfs_tree_destroy(t);
			continue;
		}
		/* the row group's view and rows.jsonl agree with columns/ */
		char *rg = path_read(t, "row_groups/0/columns/var", &len2, &st);
		if (!rg || strcmp(rg, col))
			fail("%s: row_groups/0/columns/var differs from columns/var",
			     pf);
		char *jl = path_read(t, "rows.jsonl", &len3, &st);
		const char *line = col, *jline = jl;
		size_t nexp = one ? 1 : json_array_size(many);
		for (size_t k = 0; k < nexp; k++) {
			json_t *f = one ? one : json_array_get(many, k);
			const char *eol = line ? strchr(line, '\n') : NULL;
			char *want = NULL;
			if (!eol) {
				fail("%s: row %zu missing from columns/var", pf, k);
				break;
			}
			if (json_is_null(f)) {
				want = strdup("\\N");
			} else {
				size_t bl;
				snprintf(path, sizeof path, "%s/%s", dir,
					 json_string_value(f));
				uint8_t *b = (uint8_t *)testio_slurp(path, &bl);
				if (b)
					want = variant_bin_line(b, bl, why,
								sizeof why);
				else
					snprintf(why, sizeof why, "cannot read");
				free(b);
				if (!want) {
					fail("%s: %s", path, why);
					line = eol + 1;
					continue;
				}
			}
			bool same = (size_t)(eol - line) == strlen(want) &&
				    !memcmp(line, want, strlen(want));
			if (!same && strstr(pf, "-INVALID")) {
				/* the specification lets readers choose */
				printf("note: %s row %zu (invalid per the specification): reference %s, colfs %.*s\n",
				       pf, k, want, (int)(eol - line), line);
				n_notes++;
			} else if (!same) {
				fail("%s row %zu: expected %s, colfs %.*s", pf, k,
				     want, (int)(eol - line), line);
			}
			/* rows.jsonl holds the same JSON (null for NULL) */
			json_t *row = jline ? json_loads(jline,
							 JSON_DISABLE_EOF_CHECK |
							 JSON_DECODE_ANY, &je) : NULL;
			json_t *v = row ? json_object_get(row, "var") : NULL;
			char *vs = v ? json_dumps(v, JSON_COMPACT |
						  JSON_ENCODE_ANY |
						  JSON_PRESERVE_ORDER) : NULL;
			json_t *lj = json_loadb(line, (size_t)(eol - line),
						JSON_DECODE_ANY, &je);
			char *ls = lj ? json_dumps(lj, JSON_COMPACT |
						   JSON_ENCODE_ANY |
						   JSON_PRESERVE_ORDER) :
					strdup("null");
			if (!vs || strcmp(vs, ls))
				fail("%s row %zu: rows.jsonl var %s, columns/var %s",
				     pf, k, vs ? vs : "(none)", ls);
			free(vs);
			free(ls);
			json_decref(lj);
			json_decref(row);
			jline = jline ? strchr(jline, '\n') : NULL;
			if (jline)
				jline++;
			free(want);
			line = eol + 1;
			n_rows++;
			n_checked++;
		}
		if (line && *line)
			fail("%s: columns/var has more rows than expected", pf);
		free(jl);
		free(rg);
		free(col);
		colfs_tree_destroy(t);
	}
	json_decref(cases);
	printf("shredded_variant: %zu rows equal to the expected variants "
	       "checked, %zu notes, %ld failures\n", n_rows, n_notes, n_fail);
	return n_fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "variant"))
		return run_variant(argv[2]);
	if (argc >= 5 && !strcmp(argv[1], "bloom"))
		return run_bloom(argv[2], argv[3], argv[4]);
	if (argc >= 3 && !strcmp(argv[1], "matrix"))
		return run_matrix(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "good"))
		return run_good(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "bad"))
		return run_bad(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "bigpage"))
		return run_bigpage(argv[2]);
	/* harness.sh calls FLATCHECK DIR */
	if (argc == 2)
		return run_matrix(argv[1]);
	fprintf(stderr, "usage: %s matrix DIR | good CORPUS | bad CORPUS KIND | bigpage CORPUS\n",
		argv[0]);
	return 2;
}

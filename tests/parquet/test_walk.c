/* colfs tests: open Parquet files of one corpus kind through colfs.h, walk
 * the whole tree, read every file, and check the invariants of
 * docs/parquet-tree.md.
 *
 *   test_walk CORPUS_DIR KIND          every file of KIND in MANIFEST.tsv
 *   test_walk --file PATH [KIND]       one file (default kind "parquet")
 *
 * Kinds: parquet (must open; JSON parses; summary rows = the row groups'
 * num_rows, FileMetaData.num_rows beside them when it differs; pages
 * tile each chunk and account for its num_values; range sizes match the
 * metadata), parquet-bad / parquet-fuzz-bad / parquet-encrypted (must not
 * crash or hang; when anything fails, `errors` is non-empty and each line
 * names an offset).  Exit 77 when the corpus is missing. */
#include "colfs.h"
#include "core/cursor.h"
#include "core/source.h"
#include "parquet/parquet.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIG_RAW (64ull << 20)

typedef struct walk {
	const char *file;
	bool strict;          /* kind parquet */
	int fd;
	int failures;         /* invariant violations */
	int read_failures;    /* nodes that could not be listed/opened/read */
	uint64_t nodes;
} walk;

static void fail(walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(walk *w, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "FAIL %s: ", w->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	w->failures++;
}

/* Read a whole file node; NULL (and *len 0) when it cannot be read. */
static char *read_node(colfs_tree *t, colfs_node *n, size_t *len, walk *w,
		       const char *path)
{
	colfs_handle *h;
	uint64_t size;
	bool exact;
	size_t cap = 65536, got_total = 0;
	char *buf;

	*len = 0;
	if (colfs_node_size(t, n, &size, &exact)) {
		w->read_failures++;
		return NULL;
	}
	if (colfs_node_open(t, n, &h)) {
		w->read_failures++;
		return NULL;
	}
	if (exact && size + 1 > cap)
		cap = (size_t)size + 1;
	buf = malloc(cap);
	if (!buf) {
		colfs_handle_close(h);
		return NULL;
	}
	for (;;) {
		size_t got = 0;
		if (got_total == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		if (colfs_handle_read(h, got_total, cap - got_total,
				      buf + got_total, &got)) {
			w->read_failures++;
			free(buf);
			colfs_handle_close(h);
			return NULL;
		}
		if (!got)
			break;
		got_total += got;
	}
	colfs_handle_close(h);
	/* A volatile document (`errors`) may grow between the size and the
	 * read: a worker decoding ahead can still be finding a problem in a
	 * piece past the end of a view the walk has left (the mount serves
	 * these with direct I/O, so no size is promised there). */
	if (exact && got_total != size && !colfs_node_is_volatile(n))
		fail(w, "%s: size says %llu, read %zu bytes", path,
		     (unsigned long long)size, got_total);
	*len = got_total;
	return buf;
}

static json_t *load_json(colfs_tree *t, const char *path, walk *w)
{
	colfs_node *n;
	size_t len;
	char *buf;
	json_t *j;
	json_error_t je;

	if (colfs_tree_resolve(t, path, &n))
		return NULL;
	buf = read_node(t, n, &len, w, path);
	if (!buf)
		return NULL;
	j = json_loadb(buf, len, 0, &je);
	free(buf);
	return j;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

static void walk_dir(colfs_tree *t, colfs_node *dir, walk *w, int depth)
{
	colfs_node *const *kids;
	size_t n;
	char path[4096];

	if (depth > 64) {
		fail(w, "tree deeper than 64 levels");
		return;
	}
	if (colfs_dir_list(t, dir, &kids, &n)) {
		w->read_failures++;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		colfs_node *k = kids[i];
		w->nodes++;
		colfs_node_path(k, path, sizeof path);
		if (colfs_node_is_dir(k)) {
			walk_dir(t, k, w, depth + 1);
			continue;
		}
		{
			uint64_t off, len;
			if (colfs_node_range(k, &off, &len) && len > BIG_RAW)
				continue;
		}
		size_t len;
		char *buf = read_node(t, k, &len, w, path);
		if (buf && ends_with(path, ".json")) {
			json_error_t je;
			json_t *j = json_loadb(buf, len, 0, &je);
			if (!j)
				fail(w, "%s does not parse: %s (line %d)", path,
				     je.text, je.line);
			json_decref(j);
		}
		free(buf);
	}
}

static json_int_t jint(json_t *o, const char *key, json_int_t dflt)
{
	json_t *v = o ? json_object_get(o, key) : NULL;
	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static bool node_range(colfs_tree *t, const char *path, uint64_t *off,
		       uint64_t *len)
{
	colfs_node *n;
	return !colfs_tree_resolve(t, path, &n) && colfs_node_range(n, off, len);
}

/* Pages of one chunk: tile the chunk's range, account for num_values. */
static void check_chunk(colfs_tree *t, const char *cpath, walk *w,
			const char *errors)
{
	char p[4096];
	json_t *meta, *md;
	uint64_t coff, clen, pos;
	json_int_t num_values, tcs, values = 0;
	colfs_node *pages;
	colfs_node *const *kids;
	size_t n;

	snprintf(p, sizeof p, "%s/meta.json", cpath);
	meta = load_json(t, p, w);
	md = meta ? json_object_get(meta, "meta_data") : NULL;
	if (!md) {
		json_decref(meta);
		return;
	}
	num_values = jint(md, "num_values", -1);
	tcs = jint(md, "total_compressed_size", -1);
	snprintf(p, sizeof p, "%s/raw", cpath);
	if (!node_range(t, p, &coff, &clen)) {
		fail(w, "%s: no raw range", cpath);
		json_decref(meta);
		return;
	}
	if ((json_int_t)clen != tcs)
		fail(w, "%s/raw has %llu bytes, total_compressed_size is %lld",
		     cpath, (unsigned long long)clen, (long long)tcs);
	snprintf(p, sizeof p, "%s/pages", cpath);
	if (colfs_tree_resolve(t, p, &pages) ||
	    colfs_dir_list(t, pages, &kids, &n)) {
		fail(w, "%s: pages/ cannot be listed", cpath);
		json_decref(meta);
		return;
	}
	/* a walk that reported a problem is checked by its error only */
	snprintf(p, sizeof p, "\n%s/pages: offset ", cpath);
	if (strstr(errors, p)) {
		json_decref(meta);
		return;
	}
	pos = coff;
	for (size_t k = 0; k < n; k++) {
		uint64_t roff, rlen;
		json_t *h, *sub;
		uint8_t hb[1 << 16];
		ssize_t got;
		colfs_cursor c;
		parquet_page_header ph;
		colfs_err e;

		snprintf(p, sizeof p, "%s/pages/%zu/raw", cpath, k);
		if (!node_range(t, p, &roff, &rlen)) {
			fail(w, "%s: not a range", p);
			break;
		}
		snprintf(p, sizeof p, "%s/pages/%zu/header.json", cpath, k);
		h = load_json(t, p, w);
		if (!h) {
			fail(w, "%s: cannot be read", p);
			break;
		}
		if ((json_int_t)rlen != jint(h, "compressed_page_size", -2))
			fail(w, "%s: raw has %llu bytes, compressed_page_size %lld",
			     p, (unsigned long long)rlen,
			     (long long)jint(h, "compressed_page_size", -2));
		sub = json_object_get(h, "data_page_header");
		if (!sub)
			sub = json_object_get(h, "data_page_header_v2");
		if (sub)
			values += jint(sub, "num_values", 0);
		json_decref(h);
		/* the header sits between the previous page and this data */
		if (roff < pos || roff - pos > sizeof hb) {
			fail(w, "%s: page %zu data at %llu does not follow the previous page end %llu",
			     cpath, k, (unsigned long long)roff,
			     (unsigned long long)pos);
			break;
		}
		got = pread(w->fd, hb, (size_t)(roff - pos), (off_t)pos);
		colfs_cursor_init(&c, hb, got > 0 ? (size_t)got : 0, pos);
		if (got != (ssize_t)(roff - pos) ||
		    parquet_pages_header_parse(&c, &ph, &e) ||
		    ph.header_len != roff - pos ||
		    (uint64_t)ph.compressed_size != rlen)
			fail(w, "%s: page %zu: the bytes between %llu and %llu are not exactly its header",
			     cpath, k, (unsigned long long)pos,
			     (unsigned long long)roff);
		pos = roff + rlen;
	}
	if (values != num_values)
		fail(w, "%s: pages hold %lld values, metadata says %lld", cpath,
		     (long long)values, (long long)num_values);
	if (pos != coff + clen)
		fail(w, "%s: pages end at %llu, the chunk at %llu", cpath,
		     (unsigned long long)pos,
		     (unsigned long long)(coff + clen));
	json_decref(meta);
}

static void check_good(colfs_tree *t, walk *w)
{
	json_t *md = load_json(t, "/metadata.json", w);
	colfs_node *n, *rgs;
	colfs_node *const *kids;
	size_t len, nk;
	char *sum, *errs;
	const char *rows;

	if (!md) {
		fail(w, "metadata.json missing or unreadable");
		return;
	}
	if (json_object_get(md, "decode_error"))
		fail(w, "metadata.json has a decode_error");
	if (colfs_tree_resolve(t, "/summary", &n) ||
	    !(sum = read_node(t, n, &len, w, "/summary"))) {
		fail(w, "summary unreadable");
		json_decref(md);
		return;
	}
	sum = realloc(sum, len + 1);
	sum[len] = 0;
	/* summary's rows are the rows the views hold, the row groups'; a
	 * FileMetaData.num_rows that differs is shown beside them */
	{
		json_t *rgl = json_object_get(md, "row_groups");
		long long total = 0, footer = jint(md, "num_rows", -1);
		char note[128];
		for (size_t g = 0; g < json_array_size(rgl); g++)
			total += jint(json_array_get(rgl, g), "num_rows", 0);
		snprintf(note, sizeof note,
			 " (the row groups'; FileMetaData num_rows says %lld)\n",
			 footer);
		rows = strstr(sum, "\nrows: ");
		char *end = NULL;
		if (!rows || strtoll(rows + 7, &end, 10) != total)
			fail(w, "summary rows differ from the row groups' %lld",
			     total);
		else if (total != footer && strncmp(end, note, strlen(note)))
			fail(w, "summary does not give FileMetaData.num_rows %lld beside the row groups' %lld",
			     footer, total);
	}
	free(sum);
	json_decref(md);
	/* raw/ sizes */
	{
		uint64_t off, l;
		uint8_t tail[8];
		if (!node_range(t, "/raw/magic_head", &off, &l) || off || l != 4)
			fail(w, "raw/magic_head is not bytes 0..4");
		if (pread(w->fd, tail, 8, lseek(w->fd, 0, SEEK_END) - 8) == 8 &&
		    (!node_range(t, "/raw/footer", &off, &l) ||
		     l != colfs_le32(tail)))
			fail(w, "raw/footer size differs from the footer length");
	}
	if (colfs_tree_resolve(t, "/row_groups", &rgs) ||
	    colfs_dir_list(t, rgs, &kids, &nk))
		return;
	/* the walk listed every pages/: their problems are known */
	if (colfs_tree_resolve(t, "/errors", &n) ||
	    !(errs = read_node(t, n, &len, w, "/errors")))
		return;
	errs = realloc(errs, len + 2);
	memmove(errs + 1, errs, len);
	errs[0] = '\n';
	errs[len + 1] = 0;
	for (size_t g = 0; g < nk; g++) {
		char p[4096];
		colfs_node *chunks;
		colfs_node *const *ck;
		size_t nc;
		snprintf(p, sizeof p, "/row_groups/%s/chunks",
			 colfs_node_name(kids[g]));
		if (colfs_tree_resolve(t, p, &chunks) ||
		    colfs_dir_list(t, chunks, &ck, &nc))
			continue;
		for (size_t c = 0; c < nc; c++) {
			char cp[4096];
			snprintf(cp, sizeof cp, "%s/%s", p,
				 colfs_node_name(ck[c]));
			check_chunk(t, cp, w, errs);
		}
	}
	free(errs);
}

static void check_errors_named(colfs_tree *t, walk *w)
{
	colfs_node *n;
	size_t len;
	char *buf;

	if (colfs_tree_resolve(t, "/errors", &n) ||
	    !(buf = read_node(t, n, &len, w, "/errors"))) {
		fail(w, "errors unreadable");
		return;
	}
	if (!len)
		fail(w, "something failed (%d reads) but errors is empty",
		     w->read_failures);
	for (size_t i = 0; i < len;) {
		char *nl = memchr(buf + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - buf) : len;
		if (!memmem(buf + i, e - i, ": offset ", 9) &&
		    !memmem(buf + i, e - i, "more problems", 13))
			fail(w, "errors line without an offset: %.*s",
			     (int)(e - i), buf + i);
		i = e + 1;
	}
	free(buf);
}

static int run_one(const char *file, const char *kind, bool verbose,
		   uint64_t *nodes)
{
	walk w = {.file = file, .strict = strcmp(kind, "parquet") == 0};
	/* good/ files whose values are flawed on purpose: their value views
	 * must fail with a named, located error (test_values.c checks how),
	 * so they are walked as damaged files. */
	static const char *const flawed_values[] = {
		"corrupt-checksum", "nation.dict-malformed",
		"large_string_map.brotli",
		/* a VARIANT whose value is not an object beside shredded
		 * object fields (invalid per VariantShredding.md; the
		 * reference reader refuses it too) */
		"shredded_variant/case-128.parquet",
	};
	for (size_t i = 0; i < sizeof flawed_values / sizeof *flawed_values;
	     i++)
		if (strstr(file, flawed_values[i]))
			w.strict = false;
	colfs_tree *t;
	char why[512];
	colfs_status st;

	st = colfs_tree_open(file, NULL, &t, why, sizeof why);
	if (st) {
		if (w.strict) {
			fail(&w, "open failed: %s", why);
			return 1;
		}
		if (verbose)
			printf("refused %s: %s\n", file, why);
		return 0;
	}
	w.fd = open(file, O_RDONLY);
	walk_dir(t, colfs_tree_root(t), &w, 0);
	if (w.strict) {
		if (w.read_failures)
			fail(&w, "%d nodes could not be listed or read",
			     w.read_failures);
		check_good(t, &w);
	} else if (w.read_failures || colfs_tree_error_count(t)) {
		check_errors_named(t, &w);
	}
	if (verbose && colfs_tree_error_count(t)) {
		colfs_node *en;
		size_t el;
		char *eb;
		if (!colfs_tree_resolve(t, "/errors", &en) &&
		    (eb = read_node(t, en, &el, &w, "/errors"))) {
			fwrite(eb, 1, el, stdout);
			free(eb);
		}
	}
	if (verbose)
		printf("%s: %llu nodes, %zu problems, %d unreadable\n", file,
		       (unsigned long long)w.nodes, colfs_tree_error_count(t),
		       w.read_failures);
	if (nodes)
		*nodes = w.nodes;
	colfs_tree_destroy(t);
	close(w.fd);
	return w.failures ? 1 : 0;
}

/* Mutants walk at most about this many nodes per healthy file: a file
 * whose tree is larger (overflow_i16_page_cnt.parquet has 40,000 pages)
 * gets every k-th mutant only, truncations and footer changes alike. */
#define MUTANT_NODE_BUDGET (48u * 20000u)

/* Damaged copies of a good file, written to a temporary file and walked
 * with the rules of a bad file: truncations at 16 points and, with a
 * fixed seed, random byte changes inside the footer. */
static int mutate_one(const char *file, unsigned *seed)
{
	uint64_t nodes = 0;
	unsigned stride;
	FILE *f = fopen(file, "rb");
	uint8_t *data, *copy;
	long size;
	int failed = 0;
	char tmp[] = "/tmp/colfs-pq-mutant-XXXXXX";
	int fd;

	if (!f)
		return 1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (size < 12 || size > (8l << 20)) {
		fclose(f);
		return 0;
	}
	data = malloc((size_t)size);
	copy = malloc((size_t)size);
	if (!data || !copy || fread(data, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(data);
		free(copy);
		return 1;
	}
	fclose(f);
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(data);
		free(copy);
		return 1;
	}
	/* the healthy file's walk gives the cost of one mutant's walk */
	run_one(file, "parquet-mutant", false, &nodes);
	stride = (unsigned)(nodes * 48 / MUTANT_NODE_BUDGET) + 1;
	if (stride > 1)
		printf("%s: %llu nodes, every %u-th mutant\n", file,
		       (unsigned long long)nodes, stride);
	for (int m = 0; m < 48; m++) {
		size_t len = (size_t)size;
		unsigned draws = 1 + (unsigned)m % 4;

		if (stride > 1 && m % (int)stride != 0) {
			/* keep the seed's sequence as if the mutant ran */
			if (m >= 16)
				for (unsigned k = 0; k < 2 * draws; k++)
					rand_r(seed);
			continue;
		}
		memcpy(copy, data, len);
		if (m < 16) {
			len = (size_t)((uint64_t)size * (size_t)m / 16);
			if (m == 0)
				len = (size_t)size - 1;
		} else {
			uint32_t flen = colfs_le32(data + size - 8);
			size_t lo = flen < (uint64_t)size - 8
				    ? (size_t)size - 8 - flen : 0;
			int flips = 1 + m % 4;
			for (int k = 0; k < flips; k++) {
				size_t at = lo + (size_t)rand_r(seed) %
						 ((size_t)size - lo);
				copy[at] = (uint8_t)rand_r(seed);
			}
		}
		if (ftruncate(fd, 0) || pwrite(fd, copy, len, 0) != (ssize_t)len) {
			failed = 1;
			break;
		}
		if (run_one(tmp, "parquet-mutant",
			    getenv("COLFS_TEST_VERBOSE") != NULL, NULL)) {
			printf("failed: mutant %d of %s\n", m, file);
			failed = 1;
		}
	}
	close(fd);
	unlink(tmp);
	free(data);
	free(copy);
	return failed;
}

int main(int argc, char **argv)
{
	char path[4096], line[8192];
	const char *dir, *kind;
	bool verbose = getenv("COLFS_TEST_VERBOSE") != NULL;
	int failed = 0, count = 0;
	FILE *m;

	if (argc == 3 && strcmp(argv[1], "--mutate") == 0) {
		/* fixed by default; COLFS_MUTATE_SEED explores other cases */
		unsigned seed = getenv("COLFS_MUTATE_SEED")
				? (unsigned)atoi(getenv("COLFS_MUTATE_SEED"))
				: 12345;
		const int every = getenv("COLFS_MUTATE_EVERY")
				  ? atoi(getenv("COLFS_MUTATE_EVERY")) : 1;
		snprintf(path, sizeof path, "%s/MANIFEST.tsv", argv[2]);
		m = fopen(path, "r");
		if (!m) {
			printf("SKIP: corpus not found (%s)\n", path);
			return 77;
		}
		while (fgets(line, sizeof line, m)) {
			char *name = line, *k = strrchr(line, '\t');
			line[strcspn(line, "\n")] = 0;
			if (!k || strcmp(k + 1, "parquet"))
				continue;
			*strchr(line, '\t') = 0;
			snprintf(path, sizeof path, "%s/%s", argv[2], name);
			count++;
			/* COLFS_MUTATE_EVERY=N: one file in N (the sanitizer
			 * run, where each mutant costs ten times as much) */
			if (every > 1 && count % every != 1)
				continue;
			failed += mutate_one(path, &seed);
		}
		fclose(m);
		printf("mutants of %d files (one in %d), %d failed\n", count,
		       every > 1 ? every : 1, failed);
		return failed ? 1 : 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--file") == 0)
		return run_one(argv[2], argc > 3 ? argv[3] : "parquet", true,
			       NULL);
	if (argc != 3) {
		fprintf(stderr, "usage: %s CORPUS_DIR KIND | --file PATH [KIND]\n",
			argv[0]);
		return 2;
	}
	dir = argv[1];
	kind = argv[2];
	snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
	m = fopen(path, "r");
	if (!m) {
		printf("SKIP: corpus not found (%s: %s)\n", path,
		       strerror(errno));
		return 77;
	}
	while (fgets(line, sizeof line, m)) {
		char *f[8] = {0};
		char *s = line;
		int nf = 0;
		line[strcspn(line, "\n")] = 0;
		while (nf < 8 && s) {
			f[nf++] = s;
			s = strchr(s, '\t');
			if (s)
				*s++ = 0;
		}
		if (nf < 8 || strcmp(f[7], kind))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, f[0]);
		count++;
		if (run_one(path, kind, verbose, NULL)) {
			failed++;
			printf("failed: %s\n", f[0]);
		}
	}
	fclose(m);
	printf("%s: %d files, %d failed\n", kind, count, failed);
	if (!count) {
		printf("SKIP: no files of kind %s\n", kind);
		return 77;
	}
	return failed ? 1 : 0;
}

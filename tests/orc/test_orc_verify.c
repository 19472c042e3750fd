/* tests/orc: stripes/N/verify and verify on files of our own writer
 * (orc_gen.c): with true statistics they find 0 mismatches; each lie (row
 * index, stripe and file statistics: count, hasNull, minimum, maximum,
 * sum, true count) is found, reported once, and nothing else is.  (The
 * corpus is verified by test_orc_corpus, after its walk, with the writer
 * bugs it knows.) */
#define ORC_GEN_NO_MAIN
#include "orc_gen.c"

#include <colfs.h>

#include <unistd.h>

static int failures;

#define FAIL(...)                                                           \
	do {                                                                \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                      \
		fputc('\n', stderr);                                        \
		failures++;                                                 \
	} while (0)

static char *read_path(colfs_tree *t, const char *path)
{
	colfs_node *n;
	colfs_handle *h;
	size_t cap = 1 << 16, len = 0, got;
	char *buf;

	if (colfs_tree_resolve(t, path, &n) || colfs_node_open(t, n, &h))
		return NULL;
	buf = malloc(cap + 1);
	for (;;) {
		if (len + 65536 > cap)
			buf = realloc(buf, (cap *= 2) + 1);
		if (colfs_handle_read(h, len, 65536, buf + len, &got)) {
			free(buf);
			colfs_handle_close(h);
			return NULL;
		}
		len += got;
		if (got < 65536)
			break;
	}
	colfs_handle_close(h);
	buf[len] = '\0';
	return buf;
}

/* The count of the document's last line, "N mismatch(es)"; -1 if none. */
static long doc_count(const char *doc)
{
	const char *last;
	size_t n = strlen(doc);
	long k;

	if (n < 2 || doc[n - 1] != '\n')
		return -1;
	last = doc + n - 1;
	while (last > doc && last[-1] != '\n')
		last--;
	if (sscanf(last, "%ld mismatch", &k) != 1)
		return -1;
	return k;
}

/* The mismatches of every stripes/N/verify (summed) and of verify. */
static bool verify_all(colfs_tree *t, const char *name, long *stripes,
		       long *file, char **file_doc, size_t *n_stripes)
{
	char p[64];
	char *doc;

	*stripes = 0;
	*n_stripes = 0;
	for (size_t s = 0;; s++) {
		colfs_node *n;
		long k;

		snprintf(p, sizeof p, "stripes/%zu", s);
		if (colfs_tree_resolve(t, p, &n))
			break;
		snprintf(p, sizeof p, "stripes/%zu/verify", s);
		doc = read_path(t, p);
		if (!doc) {
			FAIL("%s: %s cannot be read", name, p);
			return false;
		}
		k = doc_count(doc);
		if (k < 0)
			FAIL("%s: %s does not end with its mismatch count", name,
			     p);
		*stripes += k;
		free(doc);
		(*n_stripes)++;
	}
	doc = read_path(t, "verify");
	if (!doc) {
		FAIL("%s: verify cannot be read", name);
		return false;
	}
	*file = doc_count(doc);
	if (*file < 0)
		FAIL("%s: verify does not end with its mismatch count", name);
	if (file_doc)
		*file_doc = doc;
	else
		free(doc);
	return true;
}

/* --- generated files --------------------------------------------------- */

/* Write with the lie `lie` (ORC_GEN_LIE_*) and check that verify finds
 * `want_stripes` + `want_file` mismatches, each containing `text`. */
static void generated(const char *path, int lie, long want_stripes,
		      long want_file, const char *text)
{
	colfs_tree *t;
	char why[256];
	long s, fl;
	size_t ns;
	char *fdoc = NULL;

	orc_gen_lie = lie;
	if (orc_gen_write(path, 45000, 20000)) {
		FAIL("lie %d: cannot write", lie);
		return;
	}
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		FAIL("lie %d: open: %s", lie, why);
		return;
	}
	if (verify_all(t, "generated", &s, &fl, &fdoc, &ns)) {
		char *errs = read_path(t, "errors");
		size_t hits = 0;

		if (s != want_stripes || fl != want_file)
			FAIL("lie %d: %ld stripe and %ld file mismatches, "
			     "expected %ld and %ld", lie, s, fl, want_stripes,
			     want_file);
		for (const char *p = errs; p && (p = strstr(p, "statistics disagree"));
		     p++) {
			const char *eol = strchr(p, '\n');

			hits++;
			if (text && (!eol || !memmem(p, (size_t)(eol - p), text,
						     strlen(text))))
				FAIL("lie %d: unexpected problem: %.*s", lie,
				     eol ? (int)(eol - p) : 200, p);
		}
		if (hits != (size_t)(want_stripes + want_file))
			FAIL("lie %d: %zu problems in errors, expected %ld",
			     lie, hits, want_stripes + want_file);
		if (ns != 3)
			FAIL("lie %d: %zu stripes", lie, ns);
		free(errs);
	}
	free(fdoc);
	colfs_tree_destroy(t);
}

static int run_generated(void)
{
	char path[] = "/tmp/colfs-orc-verifyXXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	orc_gen_index_stride = 10000;
	orc_gen_stats = 1;
	generated(path, ORC_GEN_LIE_NONE, 0, 0, NULL);
	generated(path, ORC_GEN_LIE_INDEX_MIN, 1, 0,
		  "stripe 1, column 1 (LONG), row group 1: minimum 30001, the data's is 30000");
	generated(path, ORC_GEN_LIE_INDEX_COUNT, 1, 0,
		  "stripe 2, column 1 (LONG), row group 0: numberOfValues 4999, the data has 5000");
	generated(path, ORC_GEN_LIE_STRIPE_MAX, 1, 0,
		  "stripe 0, column 2 (STRING): maximum \"name-998\", the data's is \"name-999\"");
	generated(path, ORC_GEN_LIE_STRIPE_HASNULL, 1, 0,
		  "stripe 1, column 2 (STRING): hasNull false, the data has nulls");
	generated(path, ORC_GEN_LIE_STRIPE_SUM, 1, 0,
		  "stripe 2, column 3 (DOUBLE): sum 1");
	generated(path, ORC_GEN_LIE_FILE_COUNT, 0, 1,
		  "column 0 (STRUCT): numberOfValues 45001, the data has 45000");
	generated(path, ORC_GEN_LIE_FILE_SUM, 0, 1,
		  "column 1 (LONG): sum 1012477501, the data's is 1012477500");
	generated(path, ORC_GEN_LIE_FILE_TRUE, 0, 1,
		  "column 4 (BOOLEAN): true count 0, the data has 15000");
	unlink(path);
	if (failures)
		return 1;
	printf("generated: true statistics verify, each lie is found\n");
	return 0;
}

int main(void)
{
	return run_generated();
}

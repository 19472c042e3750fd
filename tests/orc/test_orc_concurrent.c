/* tests/orc: the pieces of one ORC view rendered at once on several
 * threads (the `concurrent` contract of colfs_node_ops) are the pieces a
 * single reader renders front to back.  Each thread asks for the pieces
 * in its own order (backwards, strided, from the middle), so the view's
 * readers are taken from its pool at other rows than they stand at and
 * seek: through the row index where the file has one (the corpus files
 * below have stripes of several pieces and a row index), by decoding
 * from the stripe's start where it has none (the generated file's index
 * covers one column, with positions that cannot seek).  Meant to run
 * under ThreadSanitizer too.
 *
 *   test_orc_concurrent [CORPUS_DIR]
 *
 * Corpus files that are absent are skipped with a message. */
#define ORC_GEN_NO_MAIN
#include "orc_gen.c"

#include "core/thread.h"
#include "orc_internal.h"

#include <colfs.h>
#include <unistd.h>

#define THREADS 4
#define MAX_PIECES 4096
/* pieces each thread renders of a long view (kept short for the
 * sanitizer builds) */
#define THREAD_PIECES 40

static int failures;

typedef struct view_run {
	colfs_tree *t;
	colfs_node *n;
	const char *path;
	colfs_buf want[MAX_PIECES];
	size_t pieces;
	int bad[THREADS];       /* set by the thread of that order */
} view_run;

static colfs_status render(view_run *v, uint64_t i, colfs_buf *out)
{
	out->len = 0;
	return orc_read_view_piece(v->t, v->n, i, out);
}

/* The k-th piece a thread of `order` asks for. */
static size_t nth(size_t k, size_t n, int order)
{
	switch (order % 4) {
	case 0:
		return n - 1 - k;                        /* backwards */
	case 1:
		return (k * 7 + 3) % n;                  /* strided */
	case 2:
		return (k + n / 2) % n;                  /* from the middle */
	default:
		return k % 2 ? n - 1 - k / 2 : k / 2;    /* both ends */
	}
}

/* The thread of `order`: its pieces in its own order, each checked. */
static void work(void *arg, size_t order)
{
	view_run *v = arg;
	colfs_buf b = COLFS_BUF_INIT;

	for (size_t k = 0; k < v->pieces && k < THREAD_PIECES; k++) {
		size_t i = nth(k, v->pieces, (int)order);
		colfs_status st = render(v, i, &b);

		if (st || b.len != v->want[i].len ||
		    memcmp(b.data, v->want[i].data, b.len)) {
			fprintf(stderr,
				"FAIL: %s: piece %zu (order %zu): status %d, "
				"%zu bytes, want %zu\n",
				v->path, i, order, (int)st, b.len,
				v->want[i].len);
			v->bad[order] = 1;
			break;
		}
	}
	colfs_buf_free(&b);
}

static void check_view(colfs_tree *t, const char *path)
{
	static view_run v;
	colfs_status st = COLFS_OK;

	memset(&v, 0, sizeof(v));
	v.t = t;
	v.path = path;
	if (colfs_tree_resolve(t, path, &v.n)) {
		fprintf(stderr, "FAIL: %s: not found\n", path);
		failures++;
		return;
	}
	/* front to back: the bytes to expect */
	while (v.pieces < MAX_PIECES) {
		st = render(&v, v.pieces, &v.want[v.pieces]);
		if (st)
			break;
		v.pieces++;
	}
	if (st != COLFS_END || v.pieces < 2) {
		fprintf(stderr, "FAIL: %s: %zu pieces, then status %d\n", path,
			v.pieces, (int)st);
		failures++;
		goto out;
	}
	colfs_parallel_for(THREADS, THREADS, work, &v);
	for (int i = 0; i < THREADS; i++)
		failures += v.bad[i];
	printf("ok: %s: %zu pieces, %d threads\n", path, v.pieces, THREADS);
out:
	for (size_t i = 0; i <= v.pieces && i < MAX_PIECES; i++)
		colfs_buf_free(&v.want[i]);
}

static void check_file(const char *file, const char *const *views)
{
	colfs_tree *t;
	char why[256];

	if (access(file, R_OK)) {
		printf("skip: %s not found\n", file);
		return;
	}
	if (colfs_tree_open(file, NULL, &t, why, sizeof(why))) {
		fprintf(stderr, "FAIL: open %s: %s\n", file, why);
		failures++;
		return;
	}
	for (size_t i = 0; views[i]; i++)
		check_view(t, views[i]);
	colfs_tree_destroy(t);
}

int main(int argc, char **argv)
{
	char gen[] = "/tmp/colfs-orc-concXXXXXX";
	int fd = mkstemp(gen);
	char p[4096];
	static const char *const gen_views[] = {
		"rows.jsonl", "rows.csv", "columns/id", "columns/name",
		"columns/score", "columns/flag", "stripes/1/rows.jsonl", NULL};
	static const struct {
		const char *name;
		const char *views[8];
	} corpus[] = {
		/* one stripe of 1.92M rows, RLE v2 and dictionaries */
		{"demo-12-zlib.orc", {"columns/_col1", NULL}},
		/* nulls (PRESENT streams) in every type, snappy */
		{"nulls-at-end-snappy.orc", {"rows.jsonl", "rows.csv", NULL}},
		/* decimals and timestamps */
		{"orc_split_elim_new.orc", {"rows.jsonl", NULL}},
		/* a stride (4096) that is not the piece's 10000 rows */
		{"TestStringDictionary.testRowIndex.orc", {"rows.jsonl", NULL}},
		/* timestamps and dates, stripes of 15000 rows */
		{"TestOrcFile.testDate2038.orc", {"rows.jsonl", NULL}},
	};

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	orc_gen_index_stride = 10000;
	if (orc_gen_write(gen, 123457, 50000))
		return 1;
	check_file(gen, gen_views);
	unlink(gen);
	if (argc > 1) {
		for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) {
			snprintf(p, sizeof(p), "%s/orc/good/%s", argv[1],
				 corpus[i].name);
			check_file(p, corpus[i].views);
		}
	}
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	return 0;
}

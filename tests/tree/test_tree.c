/* Tests of the tree model (formats/core/tree.c) through a synthetic format
 * defined here: names and escaping, stable inodes and listings, documents,
 * ranges, streams through a small cache, errors, hidden lookups, and
 * concurrent stream reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "core/tree.h"
#include "core/piececache.h"

#define NPIECES 300

static unsigned piece_calls;

/* Piece i is i+1 lines "p<i> l<k>\n"; piece 7 is empty. */
static void expected_piece(uint64_t i, colfs_buf *out)
{
	if (i == 7)
		return;
	for (uint64_t k = 0; k <= i; k++)
		colfs_buf_printf(out, "p%llu l%llu\n", (unsigned long long)i,
				 (unsigned long long)k);
}

static colfs_status test_piece(colfs_tree *t, colfs_node *f, uint64_t i,
			       colfs_buf *out)
{
	(void)t;
	(void)f;
	__atomic_add_fetch(&piece_calls, 1, __ATOMIC_RELAXED);
	if (i >= NPIECES)
		return COLFS_END;
	expected_piece(i, out);
	return COLFS_OK;
}

static colfs_status bad_piece(colfs_tree *t, colfs_node *f, uint64_t i,
			      colfs_buf *out)
{
	(void)t;
	if (i == 2) {
		colfs_tree_report(t, f, 1234, COLFS_ECORRUPT, "piece 2 is bad");
		return COLFS_ECORRUPT;
	}
	colfs_buf_printf(out, "ok %llu\n", (unsigned long long)i);
	return COLFS_OK;
}

static colfs_status gen_doc(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	(void)t;
	colfs_buf_printf(out, "doc a=%llu\n", (unsigned long long)colfs_node_a(f));
	return COLFS_OK;
}

static colfs_status lookup_dyn(colfs_tree *t, colfs_node *dir,
			       const char *name, colfs_node **out)
{
	if (strncmp(name, "yes", 3) != 0)
		return COLFS_ENOENT;
	*out = colfs_dir_make_hidden(t, dir, name, COLFS_CONTENT_DOC, NULL, NULL);
	return *out ? COLFS_OK : COLFS_ENOMEM;
}

static colfs_status populate_fail(colfs_tree *t, colfs_node *dir)
{
	colfs_tree_report(t, dir, 99, COLFS_ETRUNCATED, "cannot list");
	return COLFS_ETRUNCATED;
}

static const colfs_node_ops stream_ops = { .piece = test_piece };
/* a report: a stream made whole by generate (tree.h) */
static const colfs_node_ops report_ops = { .generate = gen_doc };
static const colfs_node_ops bad_stream_ops = { .piece = bad_piece };
static const colfs_node_ops doc_ops = { .generate = gen_doc };
static const colfs_node_ops dyn_ops = { .lookup = lookup_dyn };
static const colfs_node_ops fail_ops = { .populate = populate_fail };

static colfs_status populate_sub(colfs_tree *t, colfs_node *dir)
{
	for (int i = 0; i < 100; i++) {
		char name[32];
		snprintf(name, sizeof name, "f%d", i);
		colfs_node *n = colfs_dir_add_doc(t, dir, name, &doc_ops, NULL);
		if (!n)
			return COLFS_ENOMEM;
		colfs_node_set_args(n, (uint64_t)i, 0, 0);
	}
	return COLFS_OK;
}

static const colfs_node_ops sub_ops = { .populate = populate_sub };

/* deep/s: 30 streams */
static colfs_status populate_streams(colfs_tree *t, colfs_node *dir)
{
	for (int i = 0; i < 30; i++) {
		char name[32];
		snprintf(name, sizeof name, "s%d", i);
		if (!colfs_dir_add_stream(t, dir, name, &stream_ops, NULL))
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static const colfs_node_ops streams_ops = { .populate = populate_streams };

/* deep: d0 and d1 (as sub), and s */
static colfs_status populate_deep(colfs_tree *t, colfs_node *dir)
{
	if (!colfs_dir_add_dir(t, dir, "d0", &sub_ops, NULL) ||
	    !colfs_dir_add_dir(t, dir, "d1", &sub_ops, NULL) ||
	    !colfs_dir_add_dir(t, dir, "s", &streams_ops, NULL))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops deep_ops = { .populate = populate_deep };

static colfs_status populate_root(colfs_tree *t, colfs_node *root)
{
	colfs_dir_add_text(t, root, "hello", "hello\n", 6);
	colfs_dir_add_range(t, root, "range", 2, 5);
	colfs_dir_add_dir(t, root, "sub", &sub_ops, NULL);
	colfs_dir_add_dir(t, root, "a/b", &sub_ops, NULL);
	colfs_dir_add_text(t, root, "a/b", "dup\n", 4);
	colfs_dir_add_text(t, root, "..", "x", 1);
	colfs_dir_add_stream(t, root, "stream", &stream_ops, NULL);
	colfs_dir_add_stream(t, root, "bad", &bad_stream_ops, NULL);
	colfs_dir_add_dir(t, root, "dyn", &dyn_ops, NULL);
	colfs_dir_add_dir(t, root, "broken", &fail_ops, NULL);
	colfs_node_set_args(colfs_dir_add_stream(t, root, "report",
						 &report_ops, NULL), 7, 0, 0);
	colfs_dir_add_dir(t, root, "deep", &deep_ops, NULL);
	colfs_dir_add_errors(t, root);
	return COLFS_OK;
}

static const colfs_node_ops root_ops = { .populate = populate_root };

static colfs_status test_open(colfs_tree *t, colfs_err *err)
{
	(void)err;
	colfs_node_set_ops(colfs_tree_root(t), &root_ops, NULL);
	return COLFS_OK;
}

static bool test_probe(const uint8_t *h, size_t hl, const uint8_t *tl,
		       size_t tll, uint64_t size)
{
	(void)h; (void)hl; (void)tl; (void)tll; (void)size;
	return true;
}

static const colfs_format test_format = {
	.name = "test", .probe = test_probe, .open = test_open,
};

/* The test tree over a 10-byte file, with up to two options. */
static colfs_tree *open_test_tree_with(const char *opt1, const char *opt2)
{
	char path[] = "/tmp/colfs-tree-test-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	unlink(path);
	colfs_options o = {0};
	if (opt1)
		assert_int_equal(colfs_options_set(&o, opt1), COLFS_OK);
	if (opt2)
		assert_int_equal(colfs_options_set(&o, opt2), COLFS_OK);
	colfs_tree *t;
	char why[256];
	assert_int_equal(colfs_tree_open_format(fd, "test", &test_format, &o,
						&t, why, sizeof why),
			 COLFS_OK);
	return t;
}

static colfs_tree *open_test_tree(const char *cache)
{
	return open_test_tree_with(cache, NULL);
}

static char *read_all(colfs_tree *t, colfs_node *n, size_t chunk, size_t *len)
{
	colfs_handle *h;
	assert_int_equal(colfs_node_open(t, n, &h), COLFS_OK);
	colfs_buf b = COLFS_BUF_INIT;
	char *tmp = malloc(chunk);
	for (;;) {
		size_t got;
		assert_int_equal(colfs_handle_read(h, b.len, chunk, tmp, &got),
				 COLFS_OK);
		if (!got)
			break;
		colfs_buf_append(&b, tmp, got);
	}
	free(tmp);
	colfs_handle_close(h);
	return colfs_buf_take(&b, len);
}

static void test_escape(void **state)
{
	(void)state;
	struct { const char *in, *out; } cases[] = {
		{"plain", "plain"}, {"a/b", "a%2Fb"}, {".", "%2E"},
		{"..", "%2E%2E"}, {"", "%00"}, {"50%", "50%25"},
		{"tab\there", "tab%09here"}, {"nl\n", "nl%0A"},
		{"del\x7f", "del%7F"}, {"...", "..."}, {"été", "été"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *e = colfs_name_escape(cases[i].in);
		assert_string_equal(e, cases[i].out);
		free(e);
	}
	char longname[600];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	char *e = colfs_name_escape(longname);
	assert_true(strlen(e) <= 211);
	assert_non_null(strstr(e, "%~"));
	longname[5] = 'y';
	char *e2 = colfs_name_escape(longname);
	assert_string_not_equal(e, e2);
	free(e);
	free(e2);
}

static void test_listing(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *root = colfs_tree_root(t);
	assert_int_equal(colfs_node_ino(root), 1);
	colfs_node *const *kids;
	size_t n;
	assert_int_equal(colfs_dir_list(t, root, &kids, &n), COLFS_OK);
	const char *want[] = {"hello", "range", "sub", "a%2Fb", "a%2Fb%1",
			      "%2E%2E", "stream", "bad", "dyn", "broken",
			      "report", "deep", "errors"};
	assert_int_equal(n, sizeof want / sizeof *want);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(colfs_node_name(kids[i]), want[i]);
	colfs_node *const *again;
	size_t n2;
	assert_int_equal(colfs_dir_list(t, root, &again, &n2), COLFS_OK);
	assert_ptr_equal(kids, again);
	colfs_node *sub;
	assert_int_equal(colfs_tree_resolve(t, "/sub/f42", &sub), COLFS_OK);
	uint64_t ino = colfs_node_ino(sub);
	assert_ptr_equal(colfs_tree_node(t, ino), sub);
	char path[256];
	colfs_node_path(sub, path, sizeof path);
	assert_string_equal(path, "/sub/f42");
	colfs_node *same;
	assert_int_equal(colfs_tree_resolve(t, "sub//f42", &same), COLFS_OK);
	assert_ptr_equal(same, sub);
	assert_int_equal(colfs_tree_resolve(t, "/sub/nope", &same), COLFS_ENOENT);
	assert_int_equal(colfs_tree_resolve(t, "/hello/x", &same), COLFS_ENOENT);
	/* A document: exact size before open. */
	uint64_t size;
	bool exact;
	assert_int_equal(colfs_node_size(t, sub, &size, &exact), COLFS_OK);
	assert_true(exact);
	assert_int_equal(size, strlen("doc a=42\n"));
	size_t len;
	char *s = read_all(t, sub, 3, &len);
	assert_int_equal(len, size);
	assert_memory_equal(s, "doc a=42\n", len);
	free(s);
	/* A range. */
	colfs_node *r;
	assert_int_equal(colfs_tree_resolve(t, "range", &r), COLFS_OK);
	uint64_t off, rl;
	assert_true(colfs_node_range(r, &off, &rl));
	assert_int_equal(off, 2);
	s = read_all(t, r, 2, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(s, "23456", 5);
	free(s);
	/* Hidden nodes from lookup: stable, not listed. */
	colfs_node *dyn, *y1, *y2;
	assert_int_equal(colfs_tree_resolve(t, "dyn/yes1", &y1), COLFS_OK);
	assert_int_equal(colfs_tree_resolve(t, "dyn/yes1", &y2), COLFS_OK);
	assert_ptr_equal(y1, y2);
	assert_int_equal(colfs_tree_resolve(t, "dyn/no", &y2), COLFS_ENOENT);
	assert_int_equal(colfs_tree_resolve(t, "dyn", &dyn), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, dyn, &kids, &n), COLFS_OK);
	assert_int_equal(n, 0);
	/* A directory that fails to populate answers its error every time;
	 * the problem shows in errors. */
	colfs_node *broken;
	assert_int_equal(colfs_tree_resolve(t, "broken", &broken), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, broken, &kids, &n), COLFS_ETRUNCATED);
	assert_int_equal(colfs_dir_list(t, broken, &kids, &n), COLFS_ETRUNCATED);
	colfs_node *errs;
	assert_int_equal(colfs_tree_resolve(t, "errors", &errs), COLFS_OK);
	assert_true(colfs_node_is_volatile(errs));
	s = read_all(t, errs, 100, &len);
	assert_non_null(strstr(s, "/broken: offset 99 (0x63): truncated: cannot list\n"));
	free(s);
	colfs_tree_destroy(t);
}

static void check_stream(colfs_tree *t, size_t chunk)
{
	colfs_buf want = COLFS_BUF_INIT;
	for (uint64_t i = 0; i < NPIECES; i++)
		expected_piece(i, &want);
	colfs_node *s;
	assert_int_equal(colfs_tree_resolve(t, "stream", &s), COLFS_OK);
	size_t len;
	char *got = read_all(t, s, chunk, &len);
	assert_int_equal(len, want.len);
	assert_memory_equal(got, want.data, len);
	free(got);
	uint64_t size;
	bool exact;
	assert_int_equal(colfs_node_size(t, s, &size, &exact), COLFS_OK);
	assert_true(exact);
	assert_int_equal(size, want.len);
	/* Random reads. */
	colfs_handle *h;
	assert_int_equal(colfs_node_open(t, s, &h), COLFS_OK);
	srand(7);
	char buf[5000];
	for (int k = 0; k < 500; k++) {
		uint64_t off = (uint64_t)rand() % (want.len + 10);
		size_t n = (size_t)rand() % sizeof buf;
		size_t g;
		assert_int_equal(colfs_handle_read(h, off, n, buf, &g), COLFS_OK);
		size_t expect = off >= want.len ? 0 : want.len - off;
		if (expect > n)
			expect = n;
		assert_int_equal(g, expect);
		if (g)
			assert_memory_equal(buf, want.data + off, g);
	}
	colfs_handle_close(h);
	colfs_buf_free(&want);
}

/* colfs_dir_release: the nodes under a directory are freed (their inode
 * numbers answer NULL and are never given again), the directory lists
 * afresh with new nodes of the same names, nothing is freed while a
 * handle is open under it, and a stream read after a release reads the
 * same bytes.  Under ASan a node used after it is freed would show. */
static void test_release(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *sub, *f42, *again, *root = colfs_tree_root(t);
	colfs_node *const *kids;
	size_t n, len1, len2;
	uint64_t ino, most;
	colfs_handle *h;
	char *a, *b;

	assert_int_equal(colfs_tree_resolve(t, "/sub/f42", &f42), COLFS_OK);
	sub = colfs_node_parent(f42);
	ino = colfs_node_ino(f42);
	/* an open handle under it: refused, nothing freed */
	assert_int_equal(colfs_node_open(t, f42, &h), COLFS_OK);
	assert_int_equal(colfs_dir_release(t, sub), COLFS_EIO);
	assert_ptr_equal(colfs_tree_node(t, ino), f42);
	colfs_handle_close(h);
	assert_int_equal(colfs_dir_release(t, sub), COLFS_OK);
	assert_null(colfs_tree_node(t, ino));
	/* listed afresh: same names, new numbers past every one given */
	assert_int_equal(colfs_dir_list(t, root, &kids, &n), COLFS_OK);
	most = 0;
	for (size_t i = 0; i < n; i++)
		if (colfs_node_ino(kids[i]) > most)
			most = colfs_node_ino(kids[i]);
	assert_int_equal(colfs_dir_list(t, sub, &kids, &n), COLFS_OK);
	assert_int_equal(n, 100);
	assert_string_equal(colfs_node_name(kids[42]), "f42");
	assert_true(colfs_node_ino(kids[42]) > ino);
	assert_true(colfs_node_ino(kids[0]) > most);
	assert_int_equal(colfs_tree_resolve(t, "/sub/f42", &again), COLFS_OK);
	assert_ptr_equal(again, kids[42]);
	a = read_all(t, again, 3, &len1);
	assert_int_equal(len1, 9);
	assert_memory_equal(a, "doc a=42\n", 9);
	free(a);
	/* the root's streams: release the root, read again */
	assert_int_equal(colfs_tree_resolve(t, "/stream", &again), COLFS_OK);
	a = read_all(t, again, 4096, &len1);
	assert_int_equal(colfs_dir_release(t, root), COLFS_OK);
	assert_int_equal(colfs_tree_resolve(t, "/stream", &again), COLFS_OK);
	b = read_all(t, again, 4096, &len2);
	assert_int_equal(len1, len2);
	assert_memory_equal(a, b, len1);
	free(a);
	free(b);
	/* a hidden node made by a lookup goes too; a file is no directory */
	assert_int_equal(colfs_tree_resolve(t, "/dyn/yes1", &again), COLFS_OK);
	ino = colfs_node_ino(again);
	assert_int_equal(colfs_dir_release(t, again), COLFS_ENOENT);
	assert_int_equal(colfs_dir_release(t, colfs_node_parent(again)),
			 COLFS_OK);
	assert_null(colfs_tree_node(t, ino));
	/* a directory never listed: nothing to do */
	assert_int_equal(colfs_tree_resolve(t, "/a%2Fb", &again), COLFS_OK);
	assert_int_equal(colfs_dir_release(t, again), COLFS_OK);
	colfs_tree_destroy(t);
}

/* A mount's lookups (fs/ll.c): a directory's children are freed only
 * once every node under it is forgotten as many times as it was given,
 * nothing under it is open and no handle of its own is; the core names
 * the highest such directory below the root; after the release the
 * directory lists the same names with new numbers, its old numbers answer
 * NULL, and the nodes alive count falls by what was freed.  A failed
 * directory listed again does not file its problem twice. */
static void test_forget(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *root = colfs_tree_root(t), *sub, *f42, *broken;
	colfs_node *const *kids;
	colfs_node *listed[100];
	size_t n, alive, peak, errors;
	uint64_t dirs[100], ones[100], inos[100], sub_ino, old42;
	colfs_handle *h;

	for (size_t i = 0; i < 100; i++)
		ones[i] = 1;
	/* lookup "sub" (held once), then a readdirplus of it */
	assert_int_equal(colfs_dir_lookup_ref(t, root, "sub", &sub), COLFS_OK);
	sub_ino = colfs_node_ino(sub);
	colfs_dir_opened(t, sub);
	assert_int_equal(colfs_dir_list(t, sub, &kids, &n), COLFS_OK);
	assert_int_equal(n, 100);
	memcpy(listed, kids, sizeof listed);
	colfs_nodes_ref(t, listed, n);
	for (size_t i = 0; i < n; i++)
		inos[i] = colfs_node_ino(listed[i]);
	old42 = inos[42];
	assert_int_equal(colfs_dir_closed(t, sub), 0);  /* its kids are held */
	alive = colfs_tree_nodes_alive(t, &peak);
	assert_true(peak >= alive);
	/* all but one forgotten: nothing to free; f42 twice (looked up
	 * once more), once is not enough */
	assert_int_equal(colfs_dir_lookup_ref(t, sub, "f42", &f42), COLFS_OK);
	assert_ptr_equal(f42, listed[42]);
	assert_int_equal(colfs_tree_forget(t, inos, ones, 99, dirs), 0);
	assert_int_equal(colfs_tree_forget(t, inos + 99, ones, 1, dirs), 0);
	/* an open handle keeps it, and unknown numbers are ignored */
	assert_int_equal(colfs_node_open(t, f42, &h), COLFS_OK);
	assert_int_equal(colfs_tree_forget(t, &old42, ones, 1, dirs), 1);
	assert_int_equal(dirs[0], sub_ino);
	assert_false(colfs_tree_release_unused(t, sub_ino, NULL));
	assert_ptr_equal(colfs_tree_node(t, old42), f42);
	colfs_handle_close(h);
	/* a handle of the directory keeps its children too */
	colfs_dir_opened(t, sub);
	assert_false(colfs_tree_release_unused(t, sub_ino, NULL));
	assert_int_equal(colfs_dir_closed(t, sub), sub_ino);
	/* nor is the root ever freed, nor a file */
	assert_false(colfs_tree_release_unused(t, colfs_node_ino(root), NULL));
	assert_false(colfs_tree_release_unused(t, old42, NULL));
	assert_true(colfs_tree_release_unused(t, sub_ino, NULL));
	assert_int_equal(colfs_tree_nodes_alive(t, NULL), alive - 100);
	assert_null(colfs_tree_node(t, old42));
	assert_ptr_equal(colfs_tree_node(t, sub_ino), sub);  /* it stays */
	assert_int_equal(colfs_tree_forget(t, &old42, ones, 1, dirs), 0);
	/* listed again: the same names, new numbers, the same bytes */
	assert_int_equal(colfs_dir_lookup_ref(t, sub, "f42", &f42), COLFS_OK);
	assert_true(colfs_node_ino(f42) > old42);
	assert_string_equal(colfs_node_name(f42), "f42");
	size_t len;
	char *a = read_all(t, f42, 4, &len);
	assert_int_equal(len, 9);
	assert_memory_equal(a, "doc a=42\n", 9);
	free(a);
	/* f42 held, sub not: forgetting sub frees nothing; forgetting f42
	 * then names sub (the root is never named) */
	assert_int_equal(colfs_tree_forget(t, &sub_ino, ones, 1, dirs), 0);
	old42 = colfs_node_ino(f42);
	assert_int_equal(colfs_tree_forget(t, &old42, ones, 1, dirs), 1);
	assert_int_equal(dirs[0], sub_ino);
	assert_true(colfs_tree_release_unused(t, sub_ino, NULL));
	assert_false(colfs_tree_release_unused(t, sub_ino, NULL));  /* done */
	/* the failed directory: its problem is filed once, however often it
	 * is listed */
	assert_int_equal(colfs_dir_lookup_ref(t, root, "broken", &broken),
			 COLFS_OK);
	assert_int_equal(colfs_dir_list(t, broken, &kids, &n),
			 COLFS_ETRUNCATED);
	errors = colfs_tree_error_count(t);
	uint64_t bino = colfs_node_ino(broken);
	assert_int_equal(colfs_tree_forget(t, &bino, ones, 1, dirs), 1);
	assert_true(colfs_tree_release_unused(t, bino, NULL));
	assert_int_equal(colfs_dir_list(t, broken, &kids, &n),
			 COLFS_ETRUNCATED);
	assert_int_equal(colfs_tree_error_count(t), errors);
	colfs_tree_destroy(t);
}

/* Past the node budget, the listings dropped first are the least
 * recently used, a directory being used with each one under it: the
 * subtree a walk has left goes whole (deep, not d0 then d1), a recent
 * listing only when the old ones are not enough, a listing given is not
 * given again until it is used, and the walk's ancestors (deep, once d0
 * is used again) stay. */
static void test_pick_listings(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *root = colfs_tree_root(t), *deep, *d0, *d1, *sub;
	colfs_node *const *kids;
	colfs_listing got[8];
	size_t n;

	assert_int_equal(colfs_tree_resolve(t, "/deep/d0", &d0), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, d0, &kids, &n), COLFS_OK);
	assert_int_equal(colfs_tree_resolve(t, "/deep/d1", &d1), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, d1, &kids, &n), COLFS_OK);
	deep = colfs_node_parent(d0);
	assert_int_equal(colfs_tree_resolve(t, "/sub", &sub), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, sub, &kids, &n), COLFS_OK);
	/* sub used since, again and again: deep's subtree is old */
	for (int i = 0; i < COLFS_RECENT_USES + 8; i++) {
		colfs_dir_opened(t, sub);
		assert_int_equal(colfs_dir_closed(t, sub), colfs_node_ino(sub));
	}
	assert_int_equal(colfs_tree_pick_listings(t, 1, got, 8), 1);
	assert_int_equal(got[0].parent, colfs_node_ino(root));
	assert_string_equal(got[0].name, "deep");
	assert_int_equal(got[0].nodes, 3 + 100 + 100);
	free(got[0].name);
	/* deep's were given: sub, recent, comes next, and nothing after */
	assert_int_equal(colfs_tree_pick_listings(t, 1000, got, 8), 1);
	assert_int_equal(got[0].parent, colfs_node_ino(root));
	assert_string_equal(got[0].name, "sub");
	assert_int_equal(got[0].nodes, 100);
	free(got[0].name);
	assert_int_equal(colfs_tree_pick_listings(t, 1000, got, 8), 0);
	/* d0 used again, lately (and so deep): d1 is old, deep is not */
	for (int i = 0; i < COLFS_RECENT_USES + 8; i++) {
		colfs_dir_opened(t, sub);
		assert_int_equal(colfs_dir_closed(t, sub), colfs_node_ino(sub));
	}
	colfs_dir_opened(t, d0);
	assert_int_equal(colfs_tree_pick_listings(t, 1, got, 8), 1);
	assert_int_equal(got[0].parent, colfs_node_ino(deep));
	assert_string_equal(got[0].name, "d1");
	assert_int_equal(got[0].nodes, 100);
	free(got[0].name);
	assert_int_equal(colfs_dir_closed(t, d0), colfs_node_ino(deep));
	colfs_tree_destroy(t);
}

/* A directory the kernel has forgotten all of is freed with its highest
 * unused ancestor (deep, with d0 and d1), unless something else under
 * that is open (a file of d1: d0 alone). */
static void test_release_climbs(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *d0, *d1, *f;
	colfs_node *const *kids;
	colfs_handle *h;
	size_t n, alive;
	uint64_t d0_ino, d1_ino, held;

	assert_int_equal(colfs_tree_resolve(t, "/deep/d0", &d0), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, d0, &kids, &n), COLFS_OK);
	assert_int_equal(colfs_tree_resolve(t, "/deep/d1/f7", &f), COLFS_OK);
	d1 = colfs_node_parent(f);
	d0_ino = colfs_node_ino(d0);
	d1_ino = colfs_node_ino(d1);
	alive = colfs_tree_nodes_alive(t, NULL);
	assert_int_equal(colfs_node_open(t, f, &h), COLFS_OK);
	assert_true(colfs_tree_release_unused(t, d0_ino, &held));
	assert_int_equal(colfs_tree_nodes_alive(t, NULL), alive - 100);
	assert_ptr_equal(colfs_tree_node(t, d0_ino), d0);
	assert_ptr_equal(colfs_tree_node(t, d1_ino), d1);
	colfs_handle_close(h);
	assert_int_equal(colfs_dir_list(t, d0, &kids, &n), COLFS_OK);
	assert_true(colfs_tree_release_unused(t, d0_ino, &held));
	assert_int_equal(held, 0);
	assert_int_equal(colfs_tree_nodes_alive(t, NULL), alive - 203);
	assert_null(colfs_tree_node(t, d0_ino));
	assert_null(colfs_tree_node(t, d1_ino));
	colfs_tree_destroy(t);
}

/* The sizes of freed nodes kept for the nodes made again are bounded by
 * the node budget: the newest are kept (with sizes=lazy a stat learns
 * nothing: s29 made again knows its size, s0 does not). */
static void test_kept_sizes_bounded(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree_with("sizes=lazy", "node_budget=10");
	colfs_node *s, *f;
	colfs_node *const *kids;
	size_t n, len;
	uint64_t size, held;
	bool exact;

	assert_int_equal(colfs_tree_resolve(t, "/deep/s", &s), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, s, &kids, &n), COLFS_OK);
	assert_int_equal(n, 30);
	for (size_t i = 0; i < n; i++)
		free(read_all(t, kids[i], 65536, &len));
	assert_int_equal(colfs_node_size(t, kids[29], &size, &exact), COLFS_OK);
	assert_true(exact);
	assert_int_equal(size, len);
	assert_int_equal(colfs_tree_kept_sizes(t), 0);
	assert_true(colfs_tree_release_unused(t, colfs_node_ino(s), &held));
	assert_int_equal(held, 0);  /* no kernel holds it */
	assert_true(colfs_tree_kept_sizes(t) > 0);
	assert_true(colfs_tree_kept_sizes(t) <= 10);
	assert_int_equal(colfs_tree_resolve(t, "/deep/s/s29", &f), COLFS_OK);
	assert_int_equal(colfs_node_size(t, f, &size, &exact), COLFS_OK);
	assert_true(exact);
	assert_int_equal(size, len);
	assert_int_equal(colfs_tree_resolve(t, "/deep/s/s0", &f), COLFS_OK);
	assert_int_equal(colfs_node_size(t, f, &size, &exact), COLFS_OK);
	assert_false(exact);
	colfs_tree_destroy(t);
}

/* A walk that lists and releases the same directory again and again
 * (colfs-tool check) makes its nodes in the slots the released ones
 * held: the node table does not grow (the slot, an inode number's lower
 * half, stays within those given before), while every inode number is
 * new and the old ones answer NULL. */
static void test_release_reuses_slots(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *sub, *f42;
	colfs_node *const *kids;
	size_t n;
	uint64_t most = 0, last = 0;

	assert_int_equal(colfs_tree_resolve(t, "/sub/f42", &f42), COLFS_OK);
	sub = colfs_node_parent(f42);
	assert_int_equal(colfs_dir_list(t, sub, &kids, &n), COLFS_OK);
	for (size_t i = 0; i < n; i++) {
		if ((uint32_t)colfs_node_ino(kids[i]) > most)
			most = (uint32_t)colfs_node_ino(kids[i]);
		if (colfs_node_ino(kids[i]) > last)
			last = colfs_node_ino(kids[i]);
	}
	for (int round = 0; round < 1000; round++) {
		uint64_t old = colfs_node_ino(kids[42]);

		assert_int_equal(colfs_dir_release(t, sub), COLFS_OK);
		assert_null(colfs_tree_node(t, old));
		assert_int_equal(colfs_dir_list(t, sub, &kids, &n), COLFS_OK);
		assert_int_equal(n, 100);
		for (size_t i = 0; i < n; i++) {
			uint64_t ino = colfs_node_ino(kids[i]);

			assert_true((uint32_t)ino <= most);
			assert_true(ino > last);
			assert_ptr_equal(colfs_tree_node(t, ino), kids[i]);
		}
		last = 0;
		for (size_t i = 0; i < n; i++)
			if (colfs_node_ino(kids[i]) > last)
				last = colfs_node_ino(kids[i]);
	}
	colfs_tree_destroy(t);
}

/* The piece cache's buckets grow with its blobs, and keys that differ
 * only in the inode number's upper half (the slots of released nodes
 * made again) spread over them: every chain stays short. */
static void test_cache_spreads(void **state)
{
	(void)state;
	colfs_piece_cache c = {0};  /* init fills in the lock, buckets, cap */
	size_t longest = 0;
	enum { NBLOBS = 40000 };

	assert_int_equal(colfs_piece_cache_init(&c, UINT64_MAX / 4),
			 COLFS_OK);
	for (uint64_t k = 0; k < NBLOBS; k++) {
		colfs_buf buf = COLFS_BUF_INIT;
		colfs_blob *b;

		colfs_buf_printf(&buf, "%llu", (unsigned long long)k);
		b = colfs_blob_from_buf((k / 8) << 32 | (k % 8 + 1),
					k % 3 ? UINT64_MAX : k, &buf);
		assert_non_null(b);
		colfs_piece_cache_put(&c, b);
		colfs_piece_cache_release(&c, b);
	}
	assert_true(c.nbuckets >= NBLOBS / 2);
	for (size_t i = 0; i < c.nbuckets; i++) {
		size_t len = 0;

		for (colfs_blob *b = c.buckets[i]; b; b = b->hnext)
			len++;
		if (len > longest)
			longest = len;
	}
	assert_true(longest <= 16);
	for (uint64_t k = 0; k < NBLOBS; k += 97) {
		colfs_blob *b = colfs_piece_cache_get(
			&c, (k / 8) << 32 | (k % 8 + 1),
			k % 3 ? UINT64_MAX : k);
		char want[24];

		assert_non_null(b);
		snprintf(want, sizeof want, "%llu", (unsigned long long)k);
		assert_int_equal(b->len, strlen(want));
		assert_memory_equal(b->data, want, b->len);
		colfs_piece_cache_release(&c, b);
	}
	colfs_piece_cache_destroy(&c);
}

/* A piece of `len` bytes of `fill`, put in the cache (no reference kept). */
static void cache_put_piece(colfs_piece_cache *c, uint64_t piece, size_t len,
			    char fill)
{
	colfs_buf buf = COLFS_BUF_INIT;
	colfs_blob *b;

	assert_true(colfs_buf_reserve_exact(&buf, len));
	memset(buf.data, fill, len);
	buf.len = len;
	b = colfs_blob_from_buf(1, piece, &buf);
	assert_non_null(b);
	colfs_piece_cache_put(c, b);
	colfs_piece_cache_release(c, b);
}

/* The pool of large decode buffers in the piece cache: a block given back
 * is handed to the next request it fits (need to 2 x need), idle blocks
 * and the charge share half of the cap, and idle blocks are the first
 * memory given up when pieces or a charge need room. */
static void test_cache_bufs(void **state)
{
	(void)state;
	const size_t mib = (size_t)1 << 20;
	colfs_piece_cache c = {0};
	size_t cap8, cap20, cap;
	char *b8, *b20, *b;

	assert_int_equal(colfs_piece_cache_init(&c, 64 * mib), COLFS_OK);
	cache_put_piece(&c, 0, 10 * mib, 'a');
	cache_put_piece(&c, 1, 10 * mib, 'b');
	/* nothing idle yet: new blocks of `want` bytes */
	b8 = colfs_piece_cache_buf_get(&c, 8 * mib, 8 * mib + mib / 8, &cap8);
	assert_non_null(b8);
	assert_int_equal(cap8, 8 * mib + mib / 8);
	memset(b8, 1, cap8);
	b20 = colfs_piece_cache_buf_get(&c, 20 * mib, 0, &cap20);
	assert_non_null(b20);
	assert_int_equal(cap20, 20 * mib);
	memset(b20, 2, cap20);
	/* kept idle, counted, no piece evicted (20 + 28 MiB fit in 64) */
	colfs_piece_cache_buf_put(&c, b8, cap8);
	colfs_piece_cache_buf_put(&c, b20, cap20);
	assert_int_equal(c.idle_bytes, cap8 + cap20);
	assert_int_equal(c.bytes, 20 * mib);
	/* a block over half of the cap is freed, not kept */
	b = colfs_piece_cache_buf_get(&c, 33 * mib, 0, &cap);
	assert_non_null(b);
	assert_true(b != b8 && b != b20);
	colfs_piece_cache_buf_put(&c, b, cap);
	assert_int_equal(c.idle_bytes, cap8 + cap20);
	/* the smallest that fits; not one more than twice the need */
	assert_ptr_equal(colfs_piece_cache_buf_get(&c, 6 * mib, 0, &cap), b8);
	assert_int_equal(cap, cap8);
	assert_int_equal(c.idle_bytes, cap20);
	b = colfs_piece_cache_buf_get(&c, 9 * mib, 0, &cap);
	assert_true(b != b20);
	assert_int_equal(cap, 9 * mib);
	assert_int_equal(c.idle_bytes, cap20);
	colfs_piece_cache_buf_put(&c, b, cap);
	assert_ptr_equal(colfs_piece_cache_buf_get(&c, 12 * mib, 0, &cap), b20);
	assert_int_equal(cap, cap20);
	assert_int_equal(c.idle_bytes, 9 * mib);
	colfs_piece_cache_buf_put(&c, b20, cap20);
	colfs_piece_cache_buf_put(&c, b8, cap8);
	/* idle 37 MiB would pass half of the cap: b8 was freed */
	assert_int_equal(c.idle_bytes, 9 * mib + cap20);
	/* a charge takes the room of idle blocks first */
	assert_true(colfs_piece_cache_charge(&c, 10 * mib));
	assert_true(c.charged + c.idle_bytes <= 32 * mib);
	assert_int_equal(c.bytes, 20 * mib);
	colfs_piece_cache_uncharge(&c, 10 * mib);
	/* pieces that need room evict the idle blocks before any piece */
	uint64_t idle = c.idle_bytes;
	cache_put_piece(&c, 2, 64 * mib - 20 * mib - (size_t)idle + mib, 'c');
	assert_true(c.idle_bytes < idle);
	for (uint64_t k = 0; k < 3; k++) {
		colfs_blob *p = colfs_piece_cache_get(&c, 1, k);
		assert_non_null(p);
		colfs_piece_cache_release(&c, p);
	}
	assert_true(c.bytes + c.charged + c.idle_bytes <= c.cap);
	/* a block given back to a full cache makes room for itself by
	 * evicting pieces (the least recently used: piece 0) */
	cache_put_piece(&c, 3, c.cap - c.bytes - c.idle_bytes, 'd');
	assert_int_equal(c.bytes + c.idle_bytes, c.cap);
	assert_int_equal(c.idle_bytes, 0);   /* given up for piece 2 */
	b = colfs_piece_cache_buf_get(&c, 8 * mib, 0, &cap);
	assert_non_null(b);
	memset(b, 3, cap);
	colfs_piece_cache_buf_put(&c, b, cap);
	assert_int_equal(c.idle_bytes, 8 * mib);
	assert_true(c.bytes + c.charged + c.idle_bytes <= c.cap);
	assert_null(colfs_piece_cache_get(&c, 1, 0));
	b = (char *)colfs_piece_cache_get(&c, 1, 3);
	assert_non_null(b);
	colfs_piece_cache_release(&c, (colfs_blob *)b);
	/* no cache: plain malloc and free */
	b = colfs_piece_cache_buf_get(NULL, 5 * mib, 0, &cap);
	assert_non_null(b);
	assert_int_equal(cap, 5 * mib);
	colfs_piece_cache_buf_put(NULL, b, cap);
	colfs_piece_cache_destroy(&c);
}

/* What the cache evicts first: pieces a reader has gone past
 * (colfs_piece_cache_passed), least recently passed first, then the
 * others least recently used first; a piece gotten again (a seek back)
 * is in the LRU again. */
static void test_cache_passed(void **state)
{
	(void)state;
	colfs_piece_cache c = {0};
	colfs_blob *b;

	assert_int_equal(colfs_piece_cache_init(&c, 8 * 1000), COLFS_OK);
	/* pieces 0-7 of 1000 bytes: rendered ahead, 0 the oldest */
	for (uint64_t k = 0; k < 8; k++)
		cache_put_piece(&c, k, 1000, (char)('a' + k));
	/* the reader reads 2, 1, 3 to their ends, in that order */
	uint64_t read[] = {2, 1, 3};
	for (size_t k = 0; k < 3; k++) {
		b = colfs_piece_cache_get(&c, 1, read[k]);
		assert_non_null(b);
		colfs_piece_cache_passed(&c, b);
		colfs_piece_cache_release(&c, b);
	}
	/* not again: passed once is enough (the list's order stays) */
	b = colfs_piece_cache_get(&c, 1, 2);
	colfs_piece_cache_passed(&c, b);
	colfs_piece_cache_passed(&c, b);
	colfs_piece_cache_release(&c, b);
	/* a new piece evicts the least recently passed: 1 (then 3, 2),
	 * before 0, the least recently used of all */
	cache_put_piece(&c, 8, 1000, 'i');
	assert_null(colfs_piece_cache_get(&c, 1, 1));
	cache_put_piece(&c, 9, 1000, 'j');
	assert_null(colfs_piece_cache_get(&c, 1, 3));
	/* 2, passed, is read again: back in the LRU, most recent */
	b = colfs_piece_cache_get(&c, 1, 2);
	assert_non_null(b);
	assert_int_equal(b->data[0], 'c');
	/* held: not evicted, whatever its list */
	colfs_piece_cache_passed(&c, b);
	cache_put_piece(&c, 10, 1000, 'k');
	assert_true(b->cached && b->passed);
	colfs_piece_cache_release(&c, b);
	/* with none passed unheld left, the least recently used: 0 went
	 * for 10; now 2 (passed, unheld) goes first, then 4 */
	cache_put_piece(&c, 11, 1000, 'l');
	assert_null(colfs_piece_cache_get(&c, 1, 0));
	assert_null(colfs_piece_cache_get(&c, 1, 2));
	cache_put_piece(&c, 12, 1000, 'm');
	assert_null(colfs_piece_cache_get(&c, 1, 4));
	for (uint64_t k = 5; k <= 12; k++) {
		b = colfs_piece_cache_get(&c, 1, k);
		assert_non_null(b);
		assert_int_equal(b->data[0], (char)('a' + k));
		colfs_piece_cache_release(&c, b);
	}
	assert_int_equal(c.bytes, 8 * 1000);
	colfs_piece_cache_destroy(&c);
}

static void test_stream(void **state)
{
	(void)state;
	/* sizes=lazy: a stat never decodes, the size is known once read. */
	colfs_tree *t = open_test_tree("sizes=lazy");
	colfs_node *s;
	assert_int_equal(colfs_tree_resolve(t, "stream", &s), COLFS_OK);
	uint64_t size;
	bool exact;
	assert_int_equal(colfs_node_size(t, s, &size, &exact), COLFS_OK);
	assert_false(exact);
	assert_int_equal(size, 0);
	piece_calls = 0;
	check_stream(t, 4096);
	/* With a big cache every piece was rendered once (plus the END probe). */
	assert_int_equal(piece_calls, NPIECES + 1);
	colfs_tree_destroy(t);
}

/* A report stream: its one piece is generate's output; with sizes=lazy
 * a stat does not make it, a read does, and the size is then exact. */
static void test_report(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree("sizes=lazy");
	colfs_node *r;
	uint64_t size;
	bool exact;
	size_t len;

	assert_int_equal(colfs_tree_resolve(t, "report", &r), COLFS_OK);
	assert_int_equal(colfs_node_content(r), COLFS_CONTENT_STREAM);
	assert_int_equal(colfs_node_size(t, r, &size, &exact), COLFS_OK);
	assert_false(exact);
	char *s = read_all(t, r, 3, &len);
	assert_int_equal(len, strlen("doc a=7\n"));
	assert_memory_equal(s, "doc a=7\n", len);
	free(s);
	assert_int_equal(colfs_node_size(t, r, &size, &exact), COLFS_OK);
	assert_true(exact);
	assert_int_equal(size, strlen("doc a=7\n"));
	colfs_tree_destroy(t);
}

/* The value of the xattr `name` of the node at `path`, NUL-terminated in
 * buf (cap bytes); false when the node lacks it. */
static bool xattr_of(colfs_tree *t, const char *path, const char *name,
		     char *buf, size_t cap)
{
	colfs_node *n;
	size_t need = 0;

	assert_int_equal(colfs_tree_resolve(t, path, &n), COLFS_OK);
	colfs_status st = colfs_node_xattr_get(t, n, name, buf, cap - 1, &need);
	if (st == COLFS_ENOENT)
		return false;
	assert_int_equal(st, COLFS_OK);
	assert_true(need < cap);
	buf[need] = '\0';
	return true;
}

/* A directory's problem count (the sorted index of problems.c) counts the
 * paths at it and under it, not its name's neighbours ("/sub-x" and
 * "/sub.a" sort between "/sub" and "/sub/..."), and follows problems
 * filed after an earlier count; one getxattr gives one value, a listxattr
 * every name. */
static void test_xattr_problems(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree("sizes=lazy");
	static const char *const paths[] = {
		"/sub/x", "/sub-x", "/sub", "/sub.a", "/subx", "/su", "/",
		"/sub/y/z", "/sub/y", "/a"};
	char v[256], names[512];
	colfs_node *sub;
	size_t need = 0;

	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
		colfs_tree_report_path(t, paths[i], i, COLFS_ECORRUPT,
				       "problem %zu", i);
	/* the same problem again is dropped */
	colfs_tree_report_path(t, "/sub", 2, COLFS_ECORRUPT, "problem 2");
	assert_true(xattr_of(t, "sub", "user.colfs.problems", v, sizeof v));
	assert_string_equal(v, "4");
	assert_true(xattr_of(t, "", "user.colfs.problems", v, sizeof v));
	assert_string_equal(v, "10");
	colfs_tree_report_path(t, "/sub/w", 99, COLFS_ECORRUPT, "later");
	colfs_tree_report_path(t, "/sub0", 99, COLFS_ECORRUPT, "later");
	assert_true(xattr_of(t, "sub", "user.colfs.problems", v, sizeof v));
	assert_string_equal(v, "5");
	assert_true(xattr_of(t, "sub", "user.colfs.path", v, sizeof v));
	assert_string_equal(v, "/sub");
	assert_true(xattr_of(t, "sub", "user.colfs.kind", v, sizeof v));
	assert_string_equal(v, "dir");
	assert_false(xattr_of(t, "sub", "user.colfs.offset", v, sizeof v));
	assert_false(xattr_of(t, "sub", "user.colfs.", v, sizeof v));
	assert_false(xattr_of(t, "hello", "user.colfs.problems", v, sizeof v));
	assert_true(xattr_of(t, "range", "user.colfs.length", v, sizeof v));
	assert_string_equal(v, "5");
	assert_int_equal(colfs_tree_resolve(t, "sub", &sub), COLFS_OK);
	assert_int_equal(colfs_node_xattr_list(t, sub, names, sizeof names,
					       &need), COLFS_OK);
	static const char want[] = "user.colfs.kind\0user.colfs.path\0"
				   "user.colfs.problems";
	assert_int_equal(need, sizeof want);
	assert_memory_equal(names, want, sizeof want);
	colfs_tree_destroy(t);
}

/* The rows a damaged part hides (colfs_tree_note_hidden): the ranges
 * noted under one path are merged (views failing on the same rows count
 * them once; adjacent and nested ranges join), an unknown count stays
 * unknown, and the parts come back in the order found. */
static void test_hidden_rows(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree("sizes=lazy");
	colfs_damaged_part d;

	assert_int_equal(colfs_tree_damaged_count(t), 0);
	colfs_tree_note_hidden(t, "/a", 10, 0, 400);
	colfs_tree_note_hidden(t, "/b", 20, 0, COLFS_ROWS_UNKNOWN);
	colfs_tree_note_hidden(t, "/a", 11, 0, 400);     /* again */
	colfs_tree_note_hidden(t, "/a", 11, 400, 400);   /* adjacent */
	colfs_tree_note_hidden(t, "/a", 11, 100, 100);   /* inside */
	colfs_tree_note_hidden(t, "/a", 11, 1000, 100);  /* apart */
	colfs_tree_note_hidden(t, "/a", 11, 800, 200);   /* joins two */
	colfs_tree_note_hidden(t, "/c", 30, 5, 10);
	colfs_tree_note_hidden(t, "/c", 30, 5, COLFS_ROWS_UNKNOWN);
	colfs_tree_note_hidden(t, "/d", 40, 0, 0);
	colfs_tree_note_hidden(t, "/e", 50, UINT64_MAX - 1, 5); /* overflows */
	assert_int_equal(colfs_tree_damaged_count(t), 5);
	assert_int_equal(colfs_tree_damaged_get(t, 0, &d), COLFS_OK);
	assert_string_equal(d.path, "/a");
	assert_int_equal(d.offset, 10);
	assert_int_equal(d.rows, 1100);
	assert_int_equal(colfs_tree_damaged_get(t, 1, &d), COLFS_OK);
	assert_string_equal(d.path, "/b");
	assert_true(d.rows == COLFS_ROWS_UNKNOWN);
	assert_int_equal(colfs_tree_damaged_get(t, 2, &d), COLFS_OK);
	assert_string_equal(d.path, "/c");
	assert_true(d.rows == COLFS_ROWS_UNKNOWN);
	assert_int_equal(colfs_tree_damaged_get(t, 3, &d), COLFS_OK);
	assert_string_equal(d.path, "/d");
	assert_int_equal(d.rows, 0);
	assert_int_equal(colfs_tree_damaged_get(t, 4, &d), COLFS_OK);
	assert_true(d.rows == COLFS_ROWS_UNKNOWN);
	assert_int_equal(colfs_tree_damaged_get(t, 5, &d), COLFS_ENOENT);
	colfs_tree_destroy(t);
}

static void test_stream_small_cache(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree("cache_size=4096");
	check_stream(t, 777);
	colfs_tree_destroy(t);
}

static void test_stream_tail_first(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *s;
	assert_int_equal(colfs_tree_resolve(t, "stream", &s), COLFS_OK);
	colfs_handle *h;
	assert_int_equal(colfs_node_open(t, s, &h), COLFS_OK);
	char buf[64];
	size_t got;
	/* Past the end: learns everything, returns nothing. */
	assert_int_equal(colfs_handle_read(h, 1ull << 40, sizeof buf, buf, &got),
			 COLFS_OK);
	assert_int_equal(got, 0);
	colfs_handle_close(h);
	check_stream(t, 65536);
	colfs_tree_destroy(t);
}

static void test_stream_error(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree(NULL);
	colfs_node *s;
	assert_int_equal(colfs_tree_resolve(t, "bad", &s), COLFS_OK);
	colfs_handle *h;
	assert_int_equal(colfs_node_open(t, s, &h), COLFS_OK);
	char buf[100];
	size_t got;
	/* The pieces before the bad one are served, then the error. */
	assert_int_equal(colfs_handle_read(h, 0, sizeof buf, buf, &got), COLFS_OK);
	assert_int_equal(got, 10);
	assert_memory_equal(buf, "ok 0\nok 1\n", 10);
	assert_int_equal(colfs_handle_read(h, 10, sizeof buf, buf, &got),
			 COLFS_ECORRUPT);
	colfs_handle_close(h);
	assert_int_equal(colfs_tree_error_count(t), 1);
	colfs_tree_destroy(t);
}

static void *reader_thread(void *arg)
{
	colfs_tree *t = arg;
	check_stream(t, 1000);
	return NULL;
}

static void test_stream_threads(void **state)
{
	(void)state;
	colfs_tree *t = open_test_tree("cache_size=20000");
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, reader_thread, t);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	colfs_tree_destroy(t);
}

/* --- sizes ------------------------------------------------------------ */

/* "big": 600 pieces of 8000 bytes (4.8 MB); "small": the stream of the
 * test format; "big2" like big; "bad" fails at piece 2. */
static colfs_status big_piece(colfs_tree *t, colfs_node *f, uint64_t i,
			      colfs_buf *out)
{
	(void)t;
	(void)f;
	if (i >= 600)
		return COLFS_END;
	for (int k = 0; k < 1000; k++)
		colfs_buf_printf(out, "%07llu\n", (unsigned long long)(i * 1000 + k));
	return COLFS_OK;
}

static const colfs_node_ops big_ops = { .piece = big_piece };

static colfs_status populate_sizes(colfs_tree *t, colfs_node *root)
{
	colfs_dir_add_stream(t, root, "big", &big_ops, NULL);
	colfs_dir_add_stream(t, root, "small", &stream_ops, NULL);
	colfs_dir_add_stream(t, root, "big2", &big_ops, NULL);
	colfs_dir_add_stream(t, root, "bad", &bad_stream_ops, NULL);
	return COLFS_OK;
}

static const colfs_node_ops sizes_root_ops = { .populate = populate_sizes };

static colfs_status sizes_open(colfs_tree *t, colfs_err *err)
{
	(void)err;
	colfs_node_set_ops(colfs_tree_root(t), &sizes_root_ops, NULL);
	return COLFS_OK;
}

static const colfs_format sizes_format = {
	.name = "sizes", .probe = test_probe, .open = sizes_open,
};

#define BIG_LEN (600u * 8000u)

/* The sizes tree over the file at `path` with up to two options. */
static colfs_tree *open_sizes_tree(const char *path, const char *o1,
				   const char *o2)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	colfs_options o = {0};
	if (o1)
		assert_int_equal(colfs_options_set(&o, o1), COLFS_OK);
	if (o2)
		assert_int_equal(colfs_options_set(&o, o2), COLFS_OK);
	colfs_tree *t;
	char why[256];
	assert_int_equal(colfs_tree_open_format(fd, path, &sizes_format, &o,
						&t, why, sizeof why),
			 COLFS_OK);
	return t;
}

static void size_of(colfs_tree *t, const char *name, uint64_t *size,
		    bool *exact)
{
	colfs_node *n;
	assert_int_equal(colfs_tree_resolve(t, name, &n), COLFS_OK);
	assert_int_equal(colfs_node_size(t, n, size, exact), COLFS_OK);
}

/* A source file: 10 bytes, or (large) past COLFS_SIZE_PROBE_SOURCE. */
static char *sizes_source(bool large)
{
	static char path[] = "/tmp/colfs-sizes-src-XXXXXX";
	strcpy(path, "/tmp/colfs-sizes-src-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	if (large)
		assert_int_equal(ftruncate(fd, COLFS_SIZE_PROBE_SOURCE + 1), 0);
	close(fd);
	return path;
}

static void test_sizes_modes(void **state)
{
	(void)state;
	char *src = sizes_source(true);
	uint64_t size;
	bool exact;
	colfs_buf want = COLFS_BUF_INIT;
	for (uint64_t i = 0; i < NPIECES; i++)
		expected_piece(i, &want);

	/* auto, a large source: no view is decoded at stat. */
	colfs_tree *t = open_sizes_tree(src, "size_index=off", NULL);
	size_of(t, "small", &size, &exact);
	assert_false(exact);
	size_of(t, "big", &size, &exact);
	assert_false(exact);
	assert_int_equal(size, 0);
	/* Read whole, the big one is exact. */
	colfs_node *n;
	assert_int_equal(colfs_tree_resolve(t, "big", &n), COLFS_OK);
	size_t len;
	free(read_all(t, n, 65536, &len));
	assert_int_equal(len, BIG_LEN);
	size_of(t, "big", &size, &exact);
	assert_true(exact);
	assert_int_equal(size, BIG_LEN);
	colfs_tree_destroy(t);

	/* exact: every stat decodes. */
	t = open_sizes_tree(src, "size_index=off", "sizes=exact");
	size_of(t, "big2", &size, &exact);
	assert_true(exact);
	assert_int_equal(size, BIG_LEN);
	colfs_tree_destroy(t);

	/* Several at once, on threads. */
	t = open_sizes_tree(src, "size_index=off", "sizes=lazy");
	colfs_node *const *kids;
	size_t nkids;
	assert_int_equal(colfs_dir_list(t, colfs_tree_root(t), &kids, &nkids),
			 COLFS_OK);
	colfs_nodes_learn_sizes(t, kids, nkids, 4, true, NULL, NULL);
	size_of(t, "big", &size, &exact);
	assert_true(exact && size == BIG_LEN);
	size_of(t, "big2", &size, &exact);
	assert_true(exact && size == BIG_LEN);
	size_of(t, "small", &size, &exact);
	assert_true(exact && size == want.len);
	colfs_tree_destroy(t);
	unlink(src);

	/* auto, a small source: every view is sized at stat. */
	src = sizes_source(false);
	t = open_sizes_tree(src, "size_index=off", NULL);
	size_of(t, "big", &size, &exact);
	assert_true(exact && size == BIG_LEN);
	size_of(t, "small", &size, &exact);
	assert_true(exact && size == want.len);
	/* A view that fails to decode has no size; the stat still works. */
	size_of(t, "bad", &size, &exact);
	assert_false(exact);
	colfs_tree_destroy(t);
	colfs_buf_free(&want);
	unlink(src);
}

static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	colfs_buf b = COLFS_BUF_INIT;
	char tmp[4096];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		colfs_buf_append(&b, tmp, n);
	fclose(f);
	return colfs_buf_take(&b, len);
}

static void spit_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* With sizes=lazy, only the index can make "big" exact at stat. */
static bool big_known(const char *src, const char *opt)
{
	colfs_tree *t = open_sizes_tree(src, opt, "sizes=lazy");
	uint64_t size;
	bool exact;
	size_of(t, "big", &size, &exact);
	if (exact)
		assert_int_equal(size, BIG_LEN);
	colfs_tree_destroy(t);
	return exact;
}

static void test_sizes_index(void **state)
{
	(void)state;
	char *src = sizes_source(false);
	char dir[] = "/tmp/colfs-sizes-idx-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char idx[256], opt[300], why[1024];
	/* In a directory that does not exist yet: it is made. */
	snprintf(idx, sizeof idx, "%s/sub/dir/s.sizes", dir);
	snprintf(opt, sizeof opt, "size_index=%s", idx);

	assert_false(big_known(src, opt));
	uint64_t size;
	bool exact;
	/* Compare only (check): sizes learned are not kept to be written. */
	colfs_tree *t = open_sizes_tree(src, opt, "sizes=exact");
	colfs_tree_sizes_compare_only(t);
	size_of(t, "big", &size, &exact);
	assert_true(exact);
	assert_int_equal(colfs_tree_save_sizes(t, why, sizeof why), COLFS_OK);
	assert_non_null(strstr(why, "up to date"));
	colfs_tree_destroy(t);
	assert_int_equal(access(idx, F_OK), -1);
	assert_false(big_known(src, opt));

	t = open_sizes_tree(src, opt, "sizes=exact");
	assert_non_null(strstr(colfs_tree_size_index_note(t), "none yet"));
	size_of(t, "big", &size, &exact);
	size_of(t, "small", &size, &exact);
	assert_int_equal(colfs_tree_save_sizes(t, why, sizeof why), COLFS_OK);
	assert_non_null(strstr(why, ": 2 sizes"));
	colfs_tree_destroy(t);
	assert_true(big_known(src, opt));

	size_t len;
	char *good = slurp_file(idx, &len);
	/* Every byte flipped in turn: never trusted, never a crash. */
	for (size_t i = 0; i < len; i++) {
		char *bad = malloc(len);
		memcpy(bad, good, len);
		bad[i] ^= 0x01;
		spit_file(idx, bad, len);
		free(bad);
		assert_false(big_known(src, opt));
	}
	/* Every truncation. */
	for (size_t cut = 0; cut < len; cut++) {
		spit_file(idx, good, cut);
		assert_false(big_known(src, opt));
	}
	/* Appended garbage, an empty line. */
	char *more = malloc(len + 8);
	memcpy(more, good, len);
	memcpy(more + len, "1 /x\n", 5);
	spit_file(idx, more, len + 5);
	assert_false(big_known(src, opt));
	free(more);
	/* Not a file. */
	unlink(idx);
	assert_int_equal(mkdir(idx, 0700), 0);
	assert_false(big_known(src, opt));
	rmdir(idx);

	/* Stale: the source's mtime changed (same bytes). */
	spit_file(idx, good, len);
	assert_true(big_known(src, opt));
	struct timespec ts[2] = {{0, UTIME_OMIT}, {12345, 0}};
	assert_int_equal(utimensat(AT_FDCWD, src, ts, 0), 0);
	t = open_sizes_tree(src, opt, "sizes=lazy");
	assert_non_null(strstr(colfs_tree_size_index_note(t), "stale"));
	colfs_tree_destroy(t);
	assert_false(big_known(src, opt));
	/* Stale: other options (null= changes the rendering). */
	assert_int_equal(utimensat(AT_FDCWD, src, NULL, 0), 0);
	t = open_sizes_tree(src, opt, "sizes=exact");
	size_of(t, "big", &size, &exact);
	assert_int_equal(colfs_tree_save_sizes(t, why, sizeof why), COLFS_OK);
	colfs_tree_destroy(t);
	assert_true(big_known(src, opt));
	t = open_sizes_tree(src, opt, "null=NULL");
	assert_non_null(strstr(colfs_tree_size_index_note(t), "stale"));
	colfs_tree_destroy(t);

	/* off: nothing read, nothing written. */
	t = open_sizes_tree(src, "size_index=off", NULL);
	assert_null(colfs_tree_size_index_path(t));
	assert_int_equal(colfs_tree_save_sizes(t, why, sizeof why), COLFS_OK);
	colfs_tree_destroy(t);

	free(good);
	unlink(idx);
	snprintf(idx, sizeof idx, "%s/sub/dir", dir);
	rmdir(idx);
	snprintf(idx, sizeof idx, "%s/sub", dir);
	rmdir(idx);
	rmdir(dir);
	unlink(src);
}

static void test_options(void **state)
{
	(void)state;
	colfs_options o = {0};
	assert_int_equal(colfs_options_set(&o, "cache_size=64M"), COLFS_OK);
	assert_int_equal(o.cache_bytes, 64ull << 20);
	assert_int_equal(colfs_options_set(&o, "cache_size=1GiB"), COLFS_OK);
	assert_int_equal(o.cache_bytes, 1ull << 30);
	assert_int_equal(colfs_options_set(&o, "cache_size=lots"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "null=NULL"), COLFS_OK);
	assert_string_equal(o.null_token, "NULL");
	assert_int_equal(colfs_options_set(&o, "checksums=ignore"), COLFS_OK);
	assert_true(o.checksums_ignore);
	assert_int_equal(colfs_options_set(&o, "checksums=maybe"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "frobnicate=1"), COLFS_ENOENT);
	assert_int_equal(colfs_options_set(&o, "salvage_effort=8"), COLFS_OK);
	assert_int_equal(o.salvage_effort, 8);
	assert_int_equal(colfs_options_set(&o, "salvage_effort=1000"), COLFS_OK);
	assert_int_equal(colfs_options_set(&o, "salvage_effort=0"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "salvage_effort=1001"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "salvage_effort=2x"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "salvage_effort"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "sizes=exact"), COLFS_OK);
	assert_int_equal(o.sizes, COLFS_SIZES_EXACT);
	assert_int_equal(colfs_options_set(&o, "sizes=lazy"), COLFS_OK);
	assert_int_equal(o.sizes, COLFS_SIZES_LAZY);
	assert_int_equal(colfs_options_set(&o, "sizes=auto"), COLFS_OK);
	assert_int_equal(o.sizes, COLFS_SIZES_AUTO);
	assert_int_equal(colfs_options_set(&o, "sizes=some"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "sizes"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "size_index=off"), COLFS_OK);
	assert_string_equal(o.size_index, "off");
	assert_int_equal(colfs_options_set(&o, "size_index="), COLFS_ECORRUPT);
}

/* The key options: column_keys= and the "COL:KEY" items after it, the
 * process title and the messages without the keys */
static void test_key_options(void **state)
{
	(void)state;
	colfs_options o = {0};
	const char *k = "000102030405060708090a0b0c0d0e0f";
	char item[128], arg[512], shown[128];

	snprintf(item, sizeof item, "column_keys=a.b:%s;c:%s", k, k);
	assert_int_equal(colfs_options_set(&o, item), COLFS_OK);
	snprintf(item, sizeof item, "d:%s", k);
	assert_int_equal(colfs_options_set(&o, item), COLFS_OK);
	assert_int_equal(o.n_column_keys, 2);
	assert_string_equal(o.column_keys[1], item);
	/* a pair whose key is bad is a bad value, not an unknown option */
	assert_int_equal(colfs_options_set(&o, "d:0123"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, ":0123"), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "column_keys="), COLFS_ECORRUPT);
	assert_int_equal(colfs_options_set(&o, "footer-key=1"), COLFS_ENOENT);
	/* the title: every key of the list overwritten, the rest kept */
	snprintf(arg, sizeof arg, "-oro,footer_key=%s,column_keys=a:%s,b:%s,"
		 "null=x:y", k, k, k);
	colfs_options_hide_keys(arg);
	assert_string_equal(arg, "-oro,footer_key=********************************,"
		"column_keys=**********************************,"
		"b:********************************,null=x:y");
	/* messages */
	colfs_options_shown("footer_key=0123", shown, sizeof shown);
	assert_string_equal(shown, "footer_key=****");
	colfs_options_shown("Footer-Key=0123", shown, sizeof shown);
	assert_string_equal(shown, "Footer-Key=****");
	colfs_options_shown("a.b:0123", shown, sizeof shown);
	assert_string_equal(shown, "a.b:****");
	colfs_options_shown("key_file=/k.json", shown, sizeof shown);
	assert_string_equal(shown, "key_file=/k.json");
	colfs_options_shown("cache_size=lots", shown, sizeof shown);
	assert_string_equal(shown, "cache_size=lots");
}

static void test_refusals(void **state)
{
	(void)state;
	colfs_tree *t;
	char why[512];
	assert_int_not_equal(colfs_tree_open("/nonexistent/x.parquet", NULL, &t,
					     why, sizeof why), COLFS_OK);
	assert_non_null(strstr(why, "No such file"));
	/* a directory is a dataset (formats/dataset): an empty one is
	 * refused */
	char dir[] = "/tmp/colfs-emptydir-XXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_int_not_equal(colfs_tree_open(dir, NULL, &t, why, sizeof why),
			     COLFS_OK);
	assert_non_null(strstr(why, "no Parquet, ORC or CFile file in this directory"));
	rmdir(dir);
	char path[] = "/tmp/colfs-empty-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	assert_int_not_equal(colfs_tree_open(path, NULL, &t, why, sizeof why),
			     COLFS_OK);
	assert_non_null(strstr(why, "empty file"));
	fd = open(path, O_WRONLY);
	assert_int_equal(write(fd, "hello, world\n", 13), 13);
	close(fd);
	assert_int_not_equal(colfs_tree_open(path, NULL, &t, why, sizeof why),
			     COLFS_OK);
	assert_non_null(strstr(why, "text file"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_release_reuses_slots),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_pick_listings),
		cmocka_unit_test(test_kept_sizes_bounded),
		cmocka_unit_test(test_release_climbs),
		cmocka_unit_test(test_cache_spreads),
		cmocka_unit_test(test_cache_bufs),
		cmocka_unit_test(test_cache_passed),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_xattr_problems),
		cmocka_unit_test(test_hidden_rows),
		cmocka_unit_test(test_stream_small_cache),
		cmocka_unit_test(test_stream_tail_first),
		cmocka_unit_test(test_stream_error),
		cmocka_unit_test(test_stream_threads),
		cmocka_unit_test(test_sizes_modes),
		cmocka_unit_test(test_sizes_index),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_key_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* colfs tests: small Parquet files built byte by byte here (a compact-
 * protocol writer of a few lines), opened through colfs.h.  Each test pins
 * one promise of docs/parquet-tree.md: the exact shape of the tree, name
 * escaping, the schema text, and how each kind of damage is reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colfs.h"
#include "../testio.h"

typedef struct w {
	uint8_t b[1 << 16];
	size_t n;
	int16_t last[16];
	int depth;
} w;

static void put(w *m, uint8_t v)
{
	assert_true(m->n < sizeof m->b);
	m->b[m->n++] = v;
}

static void uvar(w *m, uint64_t v)
{
	while (v >= 0x80) {
		put(m, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put(m, (uint8_t)v);
}

static void svar(w *m, int64_t v)
{
	uvar(m, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void fh(w *m, int16_t id, uint8_t type)
{
	int16_t d = (int16_t)(id - m->last[m->depth]);
	if (d > 0 && d <= 15) {
		put(m, (uint8_t)(d << 4 | type));
	} else {
		put(m, type);
		svar(m, id);
	}
	m->last[m->depth] = id;
}

static void begin(w *m) { m->last[++m->depth] = 0; }
static void end(w *m) { put(m, 0); m->depth--; }
static void fi32(w *m, int16_t id, int64_t v) { fh(m, id, 5); svar(m, v); }
static void fi64(w *m, int16_t id, int64_t v) { fh(m, id, 6); svar(m, v); }
static void bin(w *m, const char *s)
{
	uvar(m, strlen(s));
	for (const char *p = s; *p; p++)
		put(m, (uint8_t)*p);
}
static void fbin(w *m, int16_t id, const char *s) { fh(m, id, 8); bin(m, s); }
static void list(w *m, int16_t id, uint8_t et, uint32_t n)
{
	fh(m, id, 9);
	if (n < 15) {
		put(m, (uint8_t)(n << 4 | et));
	} else {
		put(m, 0xf0 | et);
		uvar(m, n);
	}
}

/* A file of required INT32 columns named `names`, one row group, each
 * chunk holding `pages` PLAIN pages of `rows / pages` values. */
typedef struct spec {
	const char *const *names;
	int ncols;
	int rows;
	int pages;
	int64_t chunk_size_delta;   /* added to total_compressed_size */
	int64_t data_offset_delta;  /* added to data_page_offset */
	int32_t footer_len_delta;   /* added to the footer length field */
	const char *tail_magic;
	size_t cut_tail;            /* drop this many bytes at the end */
} spec;

static size_t build(const spec *s, uint8_t *out)
{
	static w f, meta;
	uint64_t chunk_off[16], chunk_len[16];
	size_t n = 0;

	memset(&f, 0, sizeof f);
	memcpy(f.b, "PAR1", 4);
	f.n = 4;
	for (int c = 0; c < s->ncols; c++) {
		chunk_off[c] = f.n;
		for (int p = 0; p < s->pages; p++) {
			int vals = s->rows / s->pages;
			f.depth = 0;
			f.last[0] = 0;
			begin(&f);
			fi32(&f, 1, 0);           /* DATA_PAGE */
			fi32(&f, 2, vals * 4);
			fi32(&f, 3, vals * 4);
			fh(&f, 5, 12);
			begin(&f);
			fi32(&f, 1, vals);
			fi32(&f, 2, 0);
			fi32(&f, 3, 3);
			fi32(&f, 4, 3);
			end(&f);
			end(&f);
			for (int v = 0; v < vals; v++) {
				int32_t x = p * 1000 + v;
				for (int k = 0; k < 4; k++)
					put(&f, (uint8_t)(x >> (8 * k)));
			}
		}
		chunk_len[c] = f.n - chunk_off[c];
	}
	memset(&meta, 0, sizeof meta);
	begin(&meta);
	fi32(&meta, 1, 1);
	list(&meta, 2, 12, (uint32_t)s->ncols + 1);
	begin(&meta);
	fbin(&meta, 4, "schema");
	fi32(&meta, 5, s->ncols);
	end(&meta);
	for (int c = 0; c < s->ncols; c++) {
		begin(&meta);
		fi32(&meta, 1, 1);
		fi32(&meta, 3, 0);
		fbin(&meta, 4, s->names[c]);
		fi32(&meta, 9, c + 10);
		end(&meta);
	}
	fi64(&meta, 3, s->rows);
	list(&meta, 4, 12, 1);
	begin(&meta);
	list(&meta, 1, 12, (uint32_t)s->ncols);
	for (int c = 0; c < s->ncols; c++) {
		begin(&meta);
		fi64(&meta, 2, (int64_t)(chunk_off[c] + chunk_len[c]));
		fh(&meta, 3, 12);
		begin(&meta);
		fi32(&meta, 1, 1);
		list(&meta, 2, 5, 1);
		svar(&meta, 0);
		list(&meta, 3, 8, 1);
		bin(&meta, s->names[c]);
		fi32(&meta, 4, 0);
		fi64(&meta, 5, s->rows);
		fi64(&meta, 6, (int64_t)chunk_len[c]);
		fi64(&meta, 7, (int64_t)chunk_len[c] + s->chunk_size_delta);
		fi64(&meta, 9, (int64_t)chunk_off[c] + s->data_offset_delta);
		end(&meta);
		end(&meta);
	}
	fi64(&meta, 2, (int64_t)(f.n - 4));
	fi64(&meta, 3, s->rows);
	end(&meta);
	fbin(&meta, 6, "colfs crafted test");
	end(&meta);

	memcpy(out, f.b, f.n);
	n = f.n;
	memcpy(out + n, meta.b, meta.n);
	n += meta.n;
	{
		uint32_t len = (uint32_t)((int64_t)meta.n + s->footer_len_delta);
		for (int k = 0; k < 4; k++)
			out[n++] = (uint8_t)(len >> (8 * k));
	}
	memcpy(out + n, s->tail_magic ? s->tail_magic : "PAR1", 4);
	n += 4;
	return n - s->cut_tail;
}

static colfs_tree *open_spec(const spec *s, char *path)
{
	static uint8_t buf[1 << 17];
	size_t n = build(s, buf);
	colfs_tree *t;
	char why[256];
	FILE *f;

	strcpy(path, "/tmp/colfs-pq-crafted-XXXXXX");
	{
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		close(fd);
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		unlink(path);
		fail_msg("open failed: %s", why);
	}
	return t;
}

/* Walk everything (lists pages/ so that their problems are recorded). */
static void walk(colfs_tree *t, colfs_node *d)
{
	colfs_node *const *k;
	size_t n;
	if (colfs_dir_list(t, d, &k, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (colfs_node_is_dir(k[i]))
			walk(t, k[i]);
}

static const char *const plain_names[] = {"id", "value"};

static void test_shape_and_schema(void **state)
{
	spec s = {plain_names, 2, 12, 3, 0, 0, 0, NULL, 0};
	char path[64];
	colfs_tree *t = open_spec(&s, path);
	colfs_node *n, *const *kids;
	size_t nk;
	uint64_t off, len;
	const char *root[] = {"README", "format", "summary", "schema",
			      "schema.json", "metadata.json", "layout",
			      "layout.svg", "errors", "raw", "row_groups",
			      "columns", "arrays", "rows.jsonl", "rows.csv"};

	(void)state;
	assert_int_equal(colfs_dir_list(t, colfs_tree_root(t), &kids, &nk),
			 COLFS_OK);
	assert_int_equal(nk, 15);
	for (size_t i = 0; i < nk; i++)
		assert_string_equal(colfs_node_name(kids[i]), root[i]);
	assert_string_equal(testio_text(t, "/format"), "parquet 1\n");
	assert_string_equal(testio_text(t, "/schema"),
			    "message schema {\n"
			    "  required int32 id = 10;\n"
			    "  required int32 value = 11;\n"
			    "}\n");
	assert_non_null(strstr(testio_text(t, "/summary"), "\nrows: 12\n"));
	assert_non_null(strstr(testio_text(t, "/summary"),
			       "\ncreated by: colfs crafted test\n"));
	/* three pages tile the chunk: header + 16 bytes each */
	assert_int_equal(colfs_tree_resolve(t,
			 "/row_groups/0/chunks/value/pages", &n), COLFS_OK);
	assert_int_equal(colfs_dir_list(t, n, &kids, &nk), COLFS_OK);
	assert_int_equal(nk, 3);
	assert_int_equal(colfs_tree_resolve(t,
			 "/row_groups/0/chunks/value/pages/2/raw", &n), COLFS_OK);
	assert_true(colfs_node_range(n, &off, &len));
	assert_int_equal(len, 16);
	assert_non_null(strstr(testio_text(t,
			"/row_groups/0/chunks/value/pages/1/header.json"),
			"\"num_values\": 4"));
	walk(t, colfs_tree_root(t));
	assert_string_equal(testio_text(t, "/errors"), "");
	/* layout: magic, two chunks, footer, length, magic; no gaps */
	{
		const char *l = testio_text(t, "/layout");
		assert_non_null(strstr(l, "0 4 magic /raw/magic_head\n"));
		assert_non_null(strstr(l, " column_chunk /row_groups/0/chunks/id/raw\n"));
		assert_null(strstr(l, "gap"));
		assert_null(strstr(l, " overlap -"));
	}
	colfs_tree_destroy(t);
	unlink(path);
}

static void test_name_escaping(void **state)
{
	static const char *const names[] = {"a/b", ".", "..", "tab\there",
					    "100%"};
	static const char *const want[] = {"a%2Fb", "%2E", "%2E%2E",
					   "tab%09here", "100%25"};
	spec s = {names, 5, 2, 1, 0, 0, 0, NULL, 0};
	char path[64];
	colfs_tree *t = open_spec(&s, path);
	colfs_node *n, *const *kids;
	size_t nk;

	(void)state;
	assert_int_equal(colfs_tree_resolve(t, "/row_groups/0/chunks", &n),
			 COLFS_OK);
	assert_int_equal(colfs_dir_list(t, n, &kids, &nk), COLFS_OK);
	assert_int_equal(nk, 5);
	for (size_t i = 0; i < nk; i++)
		assert_string_equal(colfs_node_name(kids[i]), want[i]);
	/* the schema text keeps the raw names */
	assert_non_null(strstr(testio_text(t, "/schema"), "required int32 a/b = 10;"));
	colfs_tree_destroy(t);
	unlink(path);
}

static void test_footer_length_too_large(void **state)
{
	spec s = {plain_names, 2, 4, 1, 0, 0, 1 << 20, NULL, 0};
	char path[64];
	colfs_tree *t = open_spec(&s, path);
	colfs_node *n;
	const char *e;

	(void)state;
	e = testio_text(t, "/errors");
	assert_non_null(strstr(e, "footer length"));
	assert_non_null(strstr(e, "/: offset "));
	assert_int_equal(colfs_tree_resolve(t, "/row_groups", &n),
			 COLFS_ENOENT);
	assert_int_equal(colfs_tree_resolve(t, "/raw/magic_tail", &n),
			 COLFS_OK);
	assert_string_equal(testio_text(t, "/format"), "parquet unknown\n");
	colfs_tree_destroy(t);
	unlink(path);
}

static void test_bad_tail_magic(void **state)
{
	spec s = {plain_names, 2, 4, 1, 0, 0, 0, "PAR2", 0};
	char path[64];
	colfs_tree *t = open_spec(&s, path);

	(void)state;
	assert_non_null(strstr(testio_text(t, "/errors"), "tail magic"));
	colfs_tree_destroy(t);
	unlink(path);
}

static void test_truncated_tail_still_claimed(void **state)
{
	spec s = {plain_names, 2, 4, 1, 0, 0, 0, NULL, 3};
	char path[64];
	colfs_tree *t = open_spec(&s, path);

	(void)state;
	assert_string_equal(colfs_tree_format(t), "parquet");
	assert_true(colfs_tree_error_count(t) > 0);
	colfs_tree_destroy(t);
	unlink(path);
}

static void test_chunk_past_eof(void **state)
{
	spec s = {plain_names, 2, 4, 1, 1 << 20, 0, 0, NULL, 0};
	char path[64];
	colfs_tree *t = open_spec(&s, path);
	colfs_node *n;
	uint64_t off, len, size;
	bool exact;

	(void)state;
	assert_non_null(strstr(testio_text(t, "/errors"),
			       "run past the end of the file"));
	assert_int_equal(colfs_tree_resolve(t, "/row_groups/0/chunks/id/raw",
					    &n), COLFS_OK);
	assert_true(colfs_node_range(n, &off, &len));
	assert_int_equal(colfs_node_size(t, n, &size, &exact), COLFS_OK);
	assert_true(off + len <= 4096 && size == len);
	colfs_tree_destroy(t);
	unlink(path);
}

static void test_bad_page_offset(void **state)
{
	/* data_page_offset 3 bytes late: the walk meets garbage */
	spec s = {plain_names, 2, 8, 2, 0, 3, 0, NULL, 0};
	char path[64];
	colfs_tree *t = open_spec(&s, path);
	const char *e;

	(void)state;
	walk(t, colfs_tree_root(t));
	e = testio_text(t, "/errors");
	assert_non_null(strstr(e, "/row_groups/0/chunks/id/pages: offset "));
	/* the metadata documents still open */
	assert_non_null(testio_text(t, "/row_groups/0/chunks/id/meta.json"));
	assert_non_null(testio_text(t, "/metadata.json"));
	colfs_tree_destroy(t);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_and_schema),
		cmocka_unit_test(test_name_escaping),
		cmocka_unit_test(test_footer_length_too_large),
		cmocka_unit_test(test_bad_tail_magic),
		cmocka_unit_test(test_truncated_tail_still_claimed),
		cmocka_unit_test(test_chunk_past_eof),
		cmocka_unit_test(test_bad_page_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

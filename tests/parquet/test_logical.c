/* colfs tests: logical types of parquet-format master, in files the
 * project's Thrift writer (tools/thrift-writer.c) makes.  LogicalType 19 is
 * FILE (parquet-format #585); fields of proposals not merged (a
 * SchemaElement field 11, a repetition 3) have no name and are shown by
 * their field id or number, as any unknown field. */
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
#include "thrift-writer.h"

static char path[64];

/* A footer-only file (no row group): root { optional group doc (FILE) {
 * optional binary uri (STRING); optional int64 size } }; the leaf `size`
 * carries SchemaElement field 11 = 7, which parquet-format does not define. */
static void write_file(void)
{
	tw_buf meta = {0}, out = {0};
	tw w;
	FILE *f;
	int fd;

	tw_begin(&w, &meta);
	tw_field_i32(&w, 1, 2);                         /* version */
	tw_field_list_begin(&w, 2, TW_STRUCT, 4);       /* schema */
	tw_elem_struct_begin(&w);
	tw_field_string(&w, 4, "schema");
	tw_field_i32(&w, 5, 1);
	tw_struct_end(&w);
	tw_elem_struct_begin(&w);
	tw_field_i32(&w, 3, 1);                         /* OPTIONAL */
	tw_field_string(&w, 4, "doc");
	tw_field_i32(&w, 5, 2);
	tw_field_struct_begin(&w, 10);                  /* LogicalType */
	tw_field_struct_begin(&w, 19);                  /* FILE */
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_elem_struct_begin(&w);
	tw_field_i32(&w, 1, 6);                         /* BYTE_ARRAY */
	tw_field_i32(&w, 3, 1);
	tw_field_string(&w, 4, "uri");
	tw_field_i32(&w, 6, 0);                         /* UTF8 */
	tw_field_struct_begin(&w, 10);
	tw_field_struct_begin(&w, 1);                   /* STRING */
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_struct_end(&w);
	tw_elem_struct_begin(&w);
	tw_field_i32(&w, 1, 2);                         /* INT64 */
	tw_field_i32(&w, 3, 1);
	tw_field_string(&w, 4, "size");
	tw_field_i32(&w, 11, 7);                        /* not in parquet.thrift */
	tw_struct_end(&w);
	tw_field_i64(&w, 3, 0);                         /* num_rows */
	tw_field_list_begin(&w, 4, TW_STRUCT, 0);       /* row_groups */
	tw_struct_end(&w);
	assert_true(tw_ok(&w));

	tw_buf_put(&out, "PAR1", 4);
	tw_buf_put(&out, meta.data, meta.len);
	tw_buf_le32(&out, (uint32_t)meta.len);
	tw_buf_put(&out, "PAR1", 4);
	assert_false(out.failed);

	strcpy(path, "/tmp/colfs-pq-logical-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out.data, 1, out.len, f), out.len);
	fclose(f);
	tw_buf_free(&meta);
	tw_buf_free(&out);
}

static char *slurp(colfs_tree *t, const char *p)
{
	static char buf[1 << 16];
	colfs_node *n;
	colfs_handle *h;
	size_t got = 0, total = 0;

	if (colfs_tree_resolve(t, p, &n) || colfs_node_open(t, n, &h))
		return NULL;
	while (!colfs_handle_read(h, total, sizeof buf - 1 - total,
				  buf + total, &got) && got)
		total += got;
	colfs_handle_close(h);
	buf[total] = 0;
	return buf;
}

static void test_file_logical_type(void **state)
{
	colfs_tree *t;
	char why[256];
	const char *s;

	(void)state;
	write_file();
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		unlink(path);
		fail_msg("open failed: %s", why);
	}
	s = slurp(t, "/schema");
	assert_non_null(s);
	assert_string_equal(s, "message schema {\n"
			       "  optional group doc (FILE) {\n"
			       "    optional binary uri (STRING);\n"
			       "    optional int64 size;\n"
			       "  }\n"
			       "}\n");
	s = slurp(t, "/schema.json");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"kind\": \"FILE\""));
	assert_null(strstr(s, "VECTOR"));
	assert_null(strstr(s, "vector_length"));
	s = slurp(t, "/metadata.json");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"logicalType\": {\n"));
	assert_non_null(strstr(s, "\"FILE\": {}"));
	assert_non_null(strstr(s, "\"field_11\": 7"));
	assert_null(strstr(s, "VECTOR"));
	assert_null(strstr(s, "vector_length"));
	assert_string_equal(slurp(t, "/errors"), "");
	colfs_tree_destroy(t);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_logical_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

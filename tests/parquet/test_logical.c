/* colfs tests: logical types of parquet-format master, in files the
 * project's Thrift writer (tools/thrift-writer.c) makes.  LogicalType 19 is
 * FILE (parquet-format #585); fields of proposals not merged (a
 * SchemaElement field 11, a repetition 3) have no name and are shown by
 * their field id or number, as any unknown field.  And `verify` under each
 * ColumnOrder: floats by the IEEE 754 total order, nan_count and the
 * column index's nan_counts, INT96 statistics only under their order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colfs.h"
#include "thrift-writer.h"
#include "../testio.h"

static char path[64];

/* The bytes made into a fresh file under /tmp, named in `path`. */
static void save(const tw_buf *out)
{
	FILE *f;
	int fd;

	strcpy(path, "/tmp/colfs-pq-logical-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out->data, 1, out->len, f), out->len);
	fclose(f);
}

/* A file of the FileMetaData `meta` alone (no row group data), saved as
 * save() does; `meta` is freed. */
static void save_footer_only(tw_buf *meta)
{
	tw_buf out = {0};

	tw_buf_put(&out, "PAR1", 4);
	tw_buf_put(&out, meta->data, meta->len);
	tw_buf_le32(&out, (uint32_t)meta->len);
	tw_buf_put(&out, "PAR1", 4);
	assert_false(out.failed);
	save(&out);
	tw_buf_free(meta);
	tw_buf_free(&out);
}

/* A footer-only file (no row group): root { optional group doc (FILE) {
 * optional binary uri (STRING); optional int64 size } }; the leaf `size`
 * carries SchemaElement field 11 = 7, which parquet-format does not define. */
static void write_file(void)
{
	tw_buf meta = {0};
	tw w;

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

	save_footer_only(&meta);
}

/* One row group of one DOUBLE column `x` whose chunk holds one PLAIN data
 * page of 3 values (1.5, NaN, -2); the chunk's Statistics say nan_count
 * `nan_count` (1 is true) and FileMetaData.column_orders gives the column `order` (a ColumnOrder
 * member id). */
static void write_chunk(int16_t order, int32_t physical, const void *vals,
			size_t vals_len, int32_t n, const void *lo,
			const void *hi, size_t stat_len, int64_t nan_count);

static void write_ordered(int16_t order, int64_t nan_count)
{
	const double vals[3] = {1.5, __builtin_nan(""), -2};
	double lo = -2, hi = 1.5;

	write_chunk(order, 5, vals, sizeof vals, 3, &lo, &hi, 8, nan_count);
}

/* A ColumnIndex of one page for the next write_chunk (when `on`): its
 * min_values, max_values (`len` bytes each) and nan_counts. */
static struct {
	bool on;
	const void *lo, *hi;
	size_t len;
	int64_t nan_count;
} ci;

/* The file of write_ordered, of any fixed-width physical type: `n`
 * PLAIN values, Statistics min_value `lo`, max_value `hi` (`stat_len`
 * bytes each) and nan_count when >= 0; `order` 0: no column_orders;
 * the ColumnIndex `ci` after the page when ci.on. */
static void write_chunk(int16_t order, int32_t physical, const void *vals,
			size_t vals_len, int32_t n, const void *lo,
			const void *hi, size_t stat_len, int64_t nan_count)
{
	tw_buf meta = {0}, page = {0}, hdr = {0}, out = {0}, cix = {0};
	tw w;

	tw_buf_put(&page, vals, vals_len);
	tw_begin(&w, &hdr);                             /* PageHeader */
	tw_field_i32(&w, 1, 0);                         /* DATA_PAGE */
	tw_field_i32(&w, 2, (int32_t)page.len);
	tw_field_i32(&w, 3, (int32_t)page.len);
	tw_field_struct_begin(&w, 5);                   /* DataPageHeader */
	tw_field_i32(&w, 1, n);
	tw_field_i32(&w, 2, 0);                         /* PLAIN */
	tw_field_i32(&w, 3, 3);                         /* RLE */
	tw_field_i32(&w, 4, 3);
	tw_struct_end(&w);
	tw_struct_end(&w);
	assert_true(tw_ok(&w));
	if (ci.on) {
		tw_begin(&w, &cix);                     /* ColumnIndex */
		tw_field_list_begin(&w, 1, TW_BOOL_TRUE, 1); /* null_pages */
		tw_elem_bool(&w, false);
		tw_field_list_begin(&w, 2, TW_BINARY, 1);
		tw_elem_binary(&w, ci.lo, ci.len);
		tw_field_list_begin(&w, 3, TW_BINARY, 1);
		tw_elem_binary(&w, ci.hi, ci.len);
		tw_field_i32(&w, 4, 0);                 /* UNORDERED */
		tw_field_list_begin(&w, 8, TW_I64, 1);  /* nan_counts */
		tw_elem_i64(&w, ci.nan_count);
		tw_struct_end(&w);
		assert_true(tw_ok(&w));
	}

	tw_begin(&w, &meta);
	tw_field_i32(&w, 1, 2);
	tw_field_list_begin(&w, 2, TW_STRUCT, 2);
	tw_elem_struct_begin(&w);
	tw_field_string(&w, 4, "schema");
	tw_field_i32(&w, 5, 1);
	tw_struct_end(&w);
	tw_elem_struct_begin(&w);
	tw_field_i32(&w, 1, physical);
	tw_field_i32(&w, 3, 0);                         /* REQUIRED */
	tw_field_string(&w, 4, "x");
	tw_struct_end(&w);
	tw_field_i64(&w, 3, n);
	tw_field_list_begin(&w, 4, TW_STRUCT, 1);       /* row_groups */
	tw_elem_struct_begin(&w);
	tw_field_list_begin(&w, 1, TW_STRUCT, 1);       /* columns */
	tw_elem_struct_begin(&w);
	tw_field_i64(&w, 2, 4);                         /* file_offset */
	tw_field_struct_begin(&w, 3);                   /* ColumnMetaData */
	tw_field_i32(&w, 1, physical);
	tw_field_list_begin(&w, 2, TW_I32, 1);
	tw_elem_i32(&w, 0);
	tw_field_list_begin(&w, 3, TW_BINARY, 1);
	tw_elem_string(&w, "x");
	tw_field_i32(&w, 4, 0);                         /* UNCOMPRESSED */
	tw_field_i64(&w, 5, n);
	tw_field_i64(&w, 6, (int64_t)(hdr.len + page.len));
	tw_field_i64(&w, 7, (int64_t)(hdr.len + page.len));
	tw_field_i64(&w, 9, 4);                         /* data_page_offset */
	tw_field_struct_begin(&w, 12);                  /* Statistics */
	tw_field_i64(&w, 3, 0);
	tw_field_binary(&w, 5, hi, stat_len);
	tw_field_binary(&w, 6, lo, stat_len);
	if (nan_count >= 0)
		tw_field_i64(&w, 9, nan_count);
	tw_struct_end(&w);
	tw_struct_end(&w);
	if (ci.on) {
		tw_field_i64(&w, 6, (int64_t)(4 + hdr.len + page.len));
		tw_field_i32(&w, 7, (int32_t)cix.len);
	}
	tw_struct_end(&w);
	tw_field_i64(&w, 2, (int64_t)(hdr.len + page.len));
	tw_field_i64(&w, 3, n);
	tw_struct_end(&w);
	if (order) {
		tw_field_list_begin(&w, 7, TW_STRUCT, 1); /* column_orders */
		tw_elem_struct_begin(&w);
		tw_field_struct_begin(&w, order);
		tw_struct_end(&w);
		tw_struct_end(&w);
	}
	tw_struct_end(&w);
	assert_true(tw_ok(&w));

	tw_buf_put(&out, "PAR1", 4);
	tw_buf_put(&out, hdr.data, hdr.len);
	tw_buf_put(&out, page.data, page.len);
	tw_buf_put(&out, cix.data, cix.len);
	tw_buf_put(&out, meta.data, meta.len);
	tw_buf_le32(&out, (uint32_t)meta.len);
	tw_buf_put(&out, "PAR1", 4);
	assert_false(out.failed);

	save(&out);
	tw_buf_free(&meta);
	tw_buf_free(&page);
	tw_buf_free(&hdr);
	tw_buf_free(&out);
	tw_buf_free(&cix);
}

/* The tree of the file just written (the test fails, and the file is
 * removed, when it does not open). */
static colfs_tree *open_written(void)
{
	colfs_tree *t;
	char why[256];

	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		unlink(path);
		fail_msg("open failed: %s", why);
	}
	return t;
}

static void test_file_logical_type(void **state)
{
	colfs_tree *t;
	const char *s;

	(void)state;
	write_file();
	t = open_written();
	s = testio_text(t, "/schema");
	assert_non_null(s);
	assert_string_equal(s, "message schema {\n"
			       "  optional group doc (FILE) {\n"
			       "    optional binary uri (STRING);\n"
			       "    optional int64 size;\n"
			       "  }\n"
			       "}\n");
	s = testio_text(t, "/schema.json");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"kind\": \"FILE\""));
	assert_null(strstr(s, "VECTOR"));
	assert_null(strstr(s, "vector_length"));
	s = testio_text(t, "/metadata.json");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"logicalType\": {\n"));
	assert_non_null(strstr(s, "\"FILE\": {}"));
	assert_non_null(strstr(s, "\"field_11\": 7"));
	assert_null(strstr(s, "VECTOR"));
	assert_null(strstr(s, "vector_length"));
	assert_string_equal(testio_text(t, "/errors"), "");
	colfs_tree_destroy(t);
	unlink(path);
}

/* statistics.json names the column's ColumnOrder and shows nan_count */
static void test_column_orders(void **state)
{
	static const char *const names[] = {
		NULL, "TYPE_ORDER", "IEEE_754_TOTAL_ORDER",
		"INT96_TIMESTAMP_ORDER",
	};
	colfs_tree *t;
	char want[64];
	const char *s;

	(void)state;
	for (int16_t k = 1; k <= 3; k++) {
		write_ordered(k, 1);
		t = open_written();
		s = testio_text(t, "/row_groups/0/chunks/x/statistics.json");
		assert_non_null(s);
		snprintf(want, sizeof want, "\"column_order\": \"%s\"",
			 names[k]);
		assert_non_null(strstr(s, want));
		assert_non_null(strstr(s, "\"nan_count\": 1"));
		assert_non_null(strstr(s, "\"min_value\": -2"));
		s = testio_text(t, "/columns/x");
		assert_non_null(s);
		assert_string_equal(s, "1.5\nnan\n-2.0\n");
		s = testio_text(t, "/row_groups/0/chunks/x/verify");
		assert_non_null(s);
		assert_non_null(strstr(s, "statistics: agree with the data"));
		assert_string_equal(testio_text(t, "/errors"), "");
		colfs_tree_destroy(t);
		unlink(path);
	}
}

/* The file `node` of the chunk of the file just written; the file is
 * removed unless `keep`. */
static char *chunk_text(const char *node, bool keep)
{
	static char text[4096];
	colfs_tree *t;
	char p[128];
	const char *s;

	t = open_written();
	snprintf(p, sizeof p, "/row_groups/0/chunks/x/%s", node);
	s = testio_text(t, p);
	assert_non_null(s);
	snprintf(text, sizeof text, "%s", s);
	colfs_tree_destroy(t);
	if (!keep)
		unlink(path);
	return text;
}

/* The verify document of the file just written (the file removed). */
static char *verify_text(void)
{
	return chunk_text("verify", false);
}

/* verify names a nan_count that is not the decoded NaNs, under either
 * order of floats */
static void test_nan_count_lie(void **state)
{
	(void)state;
	for (int16_t order = 1; order <= 2; order++) {
		write_ordered(order, 2);
		assert_string_equal(verify_text(),
			"data pages: 1\n"
			"entries: 3 (3 values, 0 nulls)\n"
			"rows: 3, as the row group says\n"
			"decoded min: -2.0\n"
			"decoded max: 1.5\n"
			"MISMATCH: statistics nan_count 2, the data has 1 NaNs\n"
			"1 mismatch\n");
	}
}

/* One INT96 timestamp: nanoseconds of the day, then the Julian day. */
static void int96(uint8_t out[12], uint64_t nanos, uint32_t day)
{
	for (int k = 0; k < 8; k++)
		out[k] = (uint8_t)(nanos >> (8 * k));
	for (int k = 0; k < 4; k++)
		out[8 + k] = (uint8_t)(day >> (8 * k));
}

/* INT96 statistics are checked under INT96_TIMESTAMP_ORDER, and ignored
 * without it (no column_orders, TYPE_ORDER, IEEE_754_TOTAL_ORDER): a min
 * that lies is named only with the order */
static void test_int96_order(void **state)
{
	uint8_t vals[36], lo[12], hi[12];

	(void)state;
	int96(vals, 5, 2459000);
	int96(vals + 12, 1, 2459001);          /* the largest: a later day */
	int96(vals + 24, 9, 2459000);
	int96(lo, 7, 2459000);                 /* a lie: the min is 5 ns */
	int96(hi, 1, 2459001);
	for (int16_t order = 0; order <= 3; order++) {
		write_chunk(order, 3, vals, sizeof vals, 3, lo, hi, 12, -1);
		if (order == 3)
			assert_string_equal(verify_text(),
				"data pages: 1\n"
				"entries: 3 (3 values, 0 nulls)\n"
				"rows: 3, as the row group says\n"
				"decoded min: 2020-05-30 00:00:00.000000005\n"
				"decoded max: 2020-05-31 00:00:00.000000001\n"
				"MISMATCH: statistics min_value is above the minimum of the data (2020-05-30 00:00:00.000000007, decoded 2020-05-30 00:00:00.000000005)\n"
				"1 mismatch\n");
		else
			assert_string_equal(verify_text(),
				"data pages: 1\n"
				"entries: 3 (3 values, 0 nulls)\n"
				"rows: 3, as the row group says\n"
				"min/max: the type has no defined order, not compared\n"
				"statistics: agree with the data\n"
				"0 mismatches\n");
	}
	/* the same file with a true min agrees under the order */
	int96(lo, 5, 2459000);
	write_chunk(3, 3, vals, sizeof vals, 3, lo, hi, 12, -1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: 2020-05-30 00:00:00.000000005\n"
		"decoded max: 2020-05-31 00:00:00.000000001\n"
		"statistics: agree with the data\n"
		"0 mismatches\n");
	/* the nanoseconds are signed: -1 is below 5 (unsigned it would be
	 * the largest), so a min of 5 ns lies */
	int96(vals + 12, UINT64_MAX, 2459000);
	write_chunk(3, 3, vals, sizeof vals, 3, lo, hi, 12, -1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: 2020-05-29 23:59:59.999999999\n"
		"decoded max: 2020-05-30 00:00:00.000000009\n"
		"MISMATCH: statistics min_value is above the minimum of the data (2020-05-30 00:00:00.000000005, decoded 2020-05-29 23:59:59.999999999)\n"
		"1 mismatch\n");
}

static double double_of(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

#define NEG_NAN 0xfff8000000000000ULL
#define POS_NAN 0x7ff8000000000000ULL

/* Under IEEE_754_TOTAL_ORDER -0 is below +0: a min_value of +0 over data
 * holding -0 is a lie there, and agrees under TYPE_ORDER */
static void test_total_order_zero(void **state)
{
	const double vals[3] = {-0.0, 1.5, __builtin_nan("")};
	double lo = 0.0, hi = 1.5;

	(void)state;
	write_chunk(2, 5, vals, sizeof vals, 3, &lo, &hi, 8, 1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: -0.0 (negative, bits 8000000000000000)\n"
		"decoded max: 1.5\n"
		"MISMATCH: statistics min_value is above the minimum of the data (0.0 (positive, bits 0000000000000000), decoded -0.0 (negative, bits 8000000000000000))\n"
		"1 mismatch\n");
	write_chunk(1, 5, vals, sizeof vals, 3, &lo, &hi, 8, 1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: -0.0\n"
		"decoded max: 1.5\n"
		"statistics: agree with the data\n"
		"0 mismatches\n");
}

/* Under IEEE_754_TOTAL_ORDER NaN bounds are allowed: a negative NaN is
 * below every value, a positive one above; NaNs are left out of the
 * decoded bounds unless every value is NaN */
static void test_total_order_nan_bounds(void **state)
{
	const double vals[3] = {1.5, __builtin_nan(""), -2};
	const double nans[2] = {double_of(POS_NAN), double_of(NEG_NAN)};
	double lo = double_of(NEG_NAN), hi = double_of(POS_NAN);

	(void)state;
	write_chunk(2, 5, vals, sizeof vals, 3, &lo, &hi, 8, 1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: -2.0\n"
		"decoded max: 1.5\n"
		"statistics: agree with the data\n"
		"0 mismatches\n");
	/* all NaN: the bounds are the smallest and the largest NaN */
	write_chunk(2, 5, nans, sizeof nans, 2, &lo, &hi, 8, 2);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 2 (2 values, 0 nulls)\n"
		"rows: 2, as the row group says\n"
		"decoded min: nan (negative, bits fff8000000000000)\n"
		"decoded max: nan (positive, bits 7ff8000000000000)\n"
		"statistics: agree with the data\n"
		"0 mismatches\n");
	/* a positive NaN is no lower bound of a negative one */
	lo = double_of(POS_NAN);
	write_chunk(2, 5, nans, sizeof nans, 2, &lo, &hi, 8, 2);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 2 (2 values, 0 nulls)\n"
		"rows: 2, as the row group says\n"
		"decoded min: nan (negative, bits fff8000000000000)\n"
		"decoded max: nan (positive, bits 7ff8000000000000)\n"
		"MISMATCH: statistics min_value is above the minimum of the data (nan (positive, bits 7ff8000000000000), decoded nan (negative, bits fff8000000000000))\n"
		"1 mismatch\n");
	/* nor of a number */
	write_chunk(2, 5, vals, sizeof vals, 3, &lo, &hi, 8, 1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: -2.0\n"
		"decoded max: 1.5\n"
		"MISMATCH: statistics min_value is above the minimum of the data (nan (positive, bits 7ff8000000000000), decoded -2.0)\n"
		"1 mismatch\n");
}

/* The column index of a page: its nan_counts against the page's NaNs, its
 * min under the total order */
static void test_column_index_nan_counts(void **state)
{
	const double vals[3] = {1.5, __builtin_nan(""), -2};
	double lo = -2, hi = 1.5, ci_lo = -1;

	(void)state;
	ci.on = true;
	ci.lo = &lo;
	ci.hi = &hi;
	ci.len = 8;
	ci.nan_count = 1;
	write_chunk(2, 5, vals, sizeof vals, 3, &lo, &hi, 8, 1);
	assert_string_equal(verify_text(),
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: -2.0\n"
		"decoded max: 1.5\n"
		"statistics: agree with the data\n"
		"column index: 1 pages agree with the data\n"
		"0 mismatches\n");
	ci.nan_count = 0;
	ci.lo = &ci_lo;
	write_chunk(2, 5, vals, sizeof vals, 3, &lo, &hi, 8, 1);
	ci.on = false;
	/* column_index.json shows the order and nan_counts as they are */
	const char *j = chunk_text("column_index.json", true);
	assert_non_null(strstr(j, "\"nan_counts\": [\n    0\n  ]"));
	assert_non_null(strstr(j, "\"min_values\": [\n    -1.0\n  ]"));
	assert_non_null(strstr(j,
		"\"column_order\": \"IEEE_754_TOTAL_ORDER\""));
	assert_string_equal(verify_text(),
		"MISMATCH: column index page 0: nan_counts 0, the page has 1 NaNs\n"
		"MISMATCH: column index page 0 min is above the minimum of the data (-1.0, decoded -2.0)\n"
		"data pages: 1\n"
		"entries: 3 (3 values, 0 nulls)\n"
		"rows: 3, as the row group says\n"
		"decoded min: -2.0\n"
		"decoded max: 1.5\n"
		"statistics: agree with the data\n"
		"2 mismatches\n");
}

/* GeoParquet metadata naming WKB columns (a PROJJSON crs, a string one,
 * none) and a native-encoded group (a null crs) */
static const char geo_json[] =
	"{\"version\":\"1.1.0\",\"primary_column\":\"geometry\","
	"\"columns\":{"
	"\"geometry\":{\"encoding\":\"WKB\","
	"\"geometry_types\":[\"Point\",\"Polygon Z\"],"
	"\"crs\":{\"type\":\"ProjectedCRS\",\"name\":\"NAD83 / Conus Albers\","
	"\"id\":{\"authority\":\"EPSG\",\"code\":5070}},"
	"\"edges\":\"spherical\",\"bbox\":[1,2,3,4]},"
	"\"g3\":{\"encoding\":\"WKB\",\"geometry_types\":[]},"
	"\"g4\":{\"encoding\":\"WKB\",\"geometry_types\":[\"LineString\"],"
	"\"crs\":\"EPSG:4326\"},"
	"\"pt\":{\"encoding\":\"point\",\"geometry_types\":[],\"crs\":null}}}";

/* A footer-only file: root { optional binary geometry, other, g3, g4;
 * optional group pt { required double x, y } } with `geo` key-value
 * metadata `geo` (none when NULL). */
static void write_geo_file(const char *geo)
{
	static const char *const leaves[] = {"geometry", "other", "g3", "g4"};
	tw_buf meta = {0};
	tw w;

	tw_begin(&w, &meta);
	tw_field_i32(&w, 1, 2);                         /* version */
	tw_field_list_begin(&w, 2, TW_STRUCT, 8);       /* schema */
	tw_elem_struct_begin(&w);
	tw_field_string(&w, 4, "schema");
	tw_field_i32(&w, 5, 5);
	tw_struct_end(&w);
	for (size_t i = 0; i < 4; i++) {
		tw_elem_struct_begin(&w);
		tw_field_i32(&w, 1, 6);                 /* BYTE_ARRAY */
		tw_field_i32(&w, 3, 1);                 /* OPTIONAL */
		tw_field_string(&w, 4, leaves[i]);
		tw_struct_end(&w);
	}
	tw_elem_struct_begin(&w);
	tw_field_i32(&w, 3, 1);
	tw_field_string(&w, 4, "pt");
	tw_field_i32(&w, 5, 2);
	tw_struct_end(&w);
	for (int i = 0; i < 2; i++) {
		tw_elem_struct_begin(&w);
		tw_field_i32(&w, 1, 5);                 /* DOUBLE */
		tw_field_i32(&w, 3, 0);                 /* REQUIRED */
		tw_field_string(&w, 4, i ? "y" : "x");
		tw_struct_end(&w);
	}
	tw_field_i64(&w, 3, 0);                         /* num_rows */
	tw_field_list_begin(&w, 4, TW_STRUCT, 0);       /* row_groups */
	if (geo) {
		tw_field_list_begin(&w, 5, TW_STRUCT, 1); /* key_value_metadata */
		tw_elem_struct_begin(&w);
		tw_field_string(&w, 1, "geo");
		tw_field_string(&w, 2, geo);
		tw_struct_end(&w);
	}
	tw_struct_end(&w);
	assert_true(tw_ok(&w));

	save_footer_only(&meta);
}

/* schema and schema.json mark the fields GeoParquet's `geo` names: their
 * encoding, geometry types, CRS, edges and the primary column */
static void test_geoparquet_schema(void **state)
{
	colfs_tree *t;
	const char *s;

	(void)state;
	write_geo_file(geo_json);
	t = open_written();
	s = testio_text(t, "/schema");
	assert_non_null(s);
	assert_string_equal(s, "message schema {\n"
		"  optional binary geometry;  # GeoParquet: WKB, geometry types Point, Polygon Z, crs EPSG:5070 (NAD83 / Conus Albers), edges spherical, primary\n"
		"  optional binary other;\n"
		"  optional binary g3;  # GeoParquet: WKB, geometry types any, crs OGC:CRS84 (default)\n"
		"  optional binary g4;  # GeoParquet: WKB, geometry types LineString, crs EPSG:4326\n"
		"  optional group pt {  # GeoParquet: point, geometry types any, crs unknown (null)\n"
		"    required double x;\n"
		"    required double y;\n"
		"  }\n"
		"}\n");
	s = testio_text(t, "/schema.json");
	assert_non_null(s);
	assert_non_null(strstr(s,
		"\"geoparquet\": {\n"
		"        \"encoding\": \"WKB\",\n"
		"        \"geometry_types\": [\n"
		"          \"Point\",\n"
		"          \"Polygon Z\"\n"
		"        ],\n"
		"        \"crs\": {\n"
		"          \"type\": \"ProjectedCRS\",\n"
		"          \"name\": \"NAD83 / Conus Albers\",\n"));
	assert_non_null(strstr(s, "\"edges\": \"spherical\",\n"
				  "        \"primary\": true\n"));
	assert_non_null(strstr(s, "\"crs\": null"));
	assert_null(strstr(s, "bbox"));
	assert_string_equal(testio_text(t, "/errors"), "");
	colfs_tree_destroy(t);
	unlink(path);

	/* the same file without `geo`: nothing marked */
	write_geo_file(NULL);
	t = open_written();
	assert_null(strstr(testio_text(t, "/schema"), "GeoParquet"));
	assert_null(strstr(testio_text(t, "/schema.json"), "geoparquet"));
	colfs_tree_destroy(t);
	unlink(path);
}

/* A footer-only file of four BYTE_ARRAY leaves: g1 GEOMETRY with crs
 * "OGC:CRS84", g2 GEOGRAPHY with crs "srid:4326" and algorithm KARNEY
 * (4), g3 GEOGRAPHY with algorithm 9 (no name), g4 GEOMETRY with
 * neither. */
static void write_geo_types(void)
{
	static const struct {
		const char *name, *crs;
		int16_t kind;
		int32_t algorithm;
	} leaves[] = {
		{"g1", "OGC:CRS84", 17, -1},
		{"g2", "srid:4326", 18, 4},
		{"g3", NULL, 18, 9},
		{"g4", NULL, 17, -1},
	};
	tw_buf meta = {0};
	tw w;

	tw_begin(&w, &meta);
	tw_field_i32(&w, 1, 2);                         /* version */
	tw_field_list_begin(&w, 2, TW_STRUCT, 5);       /* schema */
	tw_elem_struct_begin(&w);
	tw_field_string(&w, 4, "schema");
	tw_field_i32(&w, 5, 4);
	tw_struct_end(&w);
	for (size_t i = 0; i < 4; i++) {
		tw_elem_struct_begin(&w);
		tw_field_i32(&w, 1, 6);                 /* BYTE_ARRAY */
		tw_field_i32(&w, 3, 1);                 /* OPTIONAL */
		tw_field_string(&w, 4, leaves[i].name);
		tw_field_struct_begin(&w, 10);          /* LogicalType */
		tw_field_struct_begin(&w, leaves[i].kind);
		if (leaves[i].crs)
			tw_field_string(&w, 1, leaves[i].crs);
		if (leaves[i].algorithm >= 0)
			tw_field_i32(&w, 2, leaves[i].algorithm);
		tw_struct_end(&w);
		tw_struct_end(&w);
		tw_struct_end(&w);
	}
	tw_field_i64(&w, 3, 0);                         /* num_rows */
	tw_field_list_begin(&w, 4, TW_STRUCT, 0);       /* row_groups */
	tw_struct_end(&w);
	assert_true(tw_ok(&w));

	save_footer_only(&meta);
}

/* GEOMETRY's CRS, GEOGRAPHY's CRS and edge interpolation algorithm in
 * schema and schema.json (an algorithm without a name as its number) */
static void test_geo_crs_algorithm(void **state)
{
	colfs_tree *t;
	const char *s;

	(void)state;
	write_geo_types();
	t = open_written();
	s = testio_text(t, "/schema");
	assert_non_null(s);
	assert_string_equal(s, "message schema {\n"
			       "  optional binary g1 (GEOMETRY(OGC:CRS84));\n"
			       "  optional binary g2 (GEOGRAPHY(srid:4326,KARNEY));\n"
			       "  optional binary g3 (GEOGRAPHY(,9));\n"
			       "  optional binary g4 (GEOMETRY);\n"
			       "}\n");
	s = testio_text(t, "/schema.json");
	assert_non_null(s);
	assert_non_null(strstr(s, "\"logical_type\": {\n"
				  "        \"kind\": \"GEOMETRY\",\n"
				  "        \"crs\": \"OGC:CRS84\"\n"
				  "      }"));
	assert_non_null(strstr(s, "\"logical_type\": {\n"
				  "        \"kind\": \"GEOGRAPHY\",\n"
				  "        \"crs\": \"srid:4326\",\n"
				  "        \"algorithm\": \"KARNEY\"\n"
				  "      }"));
	assert_non_null(strstr(s, "\"logical_type\": {\n"
				  "        \"kind\": \"GEOGRAPHY\",\n"
				  "        \"algorithm\": 9\n"
				  "      }"));
	assert_string_equal(testio_text(t, "/errors"), "");
	colfs_tree_destroy(t);
	unlink(path);
}

/* The corpus's geospatial files: `schema` marks a field GeoParquet only
 * when the file has `geo` key-value metadata (skipped, with a message,
 * without the corpus) */
static void test_geoparquet_corpus(void **state)
{
	const char *corpus = getenv("COLFS_CORPUS");
	char dir[1024], file[1400], why[256];
	struct dirent *d;
	unsigned n = 0, with_geo = 0;
	DIR *dp;

	(void)state;
	snprintf(dir, sizeof dir, "%s/parquet/good/geospatial",
		 corpus ? corpus : "(COLFS_CORPUS unset)");
	if (!corpus || !(dp = opendir(dir))) {
		printf("SKIP: geoparquet corpus check: %s absent\n", dir);
		skip();
	}
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);
		colfs_tree *t;
		if (len < 9 || strcmp(d->d_name + len - 8, ".parquet"))
			continue;
		snprintf(file, sizeof file, "%s/%s", dir, d->d_name);
		if (colfs_tree_open(file, NULL, &t, why, sizeof why))
			fail_msg("%s: open failed: %s", file, why);
		const char *m = testio_text(t, "/metadata.json");
		assert_non_null(m);
		const bool geo = strstr(m, "\"key\": \"geo\"") != NULL;
		const char *sc = testio_text(t, "/schema");
		assert_non_null(sc);
		if ((strstr(sc, "# GeoParquet: ") != NULL) != geo)
			fail_msg("%s: `geo` metadata %s, schema %s", file,
				 geo ? "present" : "absent", sc);
		n++;
		with_geo += geo;
		colfs_tree_destroy(t);
	}
	closedir(dp);
	printf("geoparquet corpus check: %u files, %u with `geo` metadata\n",
	       n, with_geo);
	assert_true(n > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_logical_type),
		cmocka_unit_test(test_geo_crs_algorithm),
		cmocka_unit_test(test_column_orders),
		cmocka_unit_test(test_nan_count_lie),
		cmocka_unit_test(test_int96_order),
		cmocka_unit_test(test_total_order_zero),
		cmocka_unit_test(test_total_order_nan_bounds),
		cmocka_unit_test(test_column_index_nan_counts),
		cmocka_unit_test(test_geoparquet_schema),
		cmocka_unit_test(test_geoparquet_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The source kinds of the registry (core/sourcekind.h): which kind
 * claims a name, in the registry's order (a prefix before an object, a
 * Kudu pair before a file, a directory before a file), the name shown
 * and hidden, what tells a change, and the core's calls that reach a
 * source of any kind (open, list, peek, stat). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sourcekind.h"

static char dir[] = "/tmp/colfs-test-kinds-XXXXXX";

static void put(const char *name, const char *bytes)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(bytes, f);
	fclose(f);
}

static const char *kind(const char *name)
{
	return colfs_source_kind_of(name)->name;
}

static void test_kind_of(void **state)
{
	(void)state;
	char p[256];
	assert_string_equal(kind("http://h/x.parquet"), "http");
	assert_string_equal(kind("https://u:p@h/x.parquet"), "http");
	assert_string_equal(kind("s3://bucket"), "s3-prefix");
	assert_string_equal(kind("s3://bucket/"), "s3-prefix");
	assert_string_equal(kind("s3://bucket/table/"), "s3-prefix");
	assert_string_equal(kind("s3://bucket/x.parquet"), "s3");
	/* a mistyped S3 URL is S3's to name, not a file to look up */
	assert_string_equal(kind("s3:bucket/x.parquet"), "s3");
	assert_string_equal(kind(dir), "directory");
	snprintf(p, sizeof p, "%s/plain.parquet", dir);
	assert_string_equal(kind(p), "file");
	assert_string_equal(kind("/no/such/file"), "file");
	/* a Kudu container by either name of its pair */
	snprintf(p, sizeof p, "%s/c.data", dir);
	assert_string_equal(kind(p), "kudu");
	snprintf(p, sizeof p, "%s/c.metadata", dir);
	assert_string_equal(kind(p), "kudu");
	/* a .data whose .metadata is not Kudu's is a file */
	snprintf(p, sizeof p, "%s/d.data", dir);
	assert_string_equal(kind(p), "file");
}

static void test_shown_and_hidden(void **state)
{
	(void)state;
	char *d = colfs_source_display("https://user:secret@h/x.parquet");
	assert_string_equal(d, "https://h/x.parquet");
	free(d);
	d = colfs_source_display("s3://key:secret@bucket/x.parquet");
	assert_null(strstr(d, "secret"));
	free(d);
	d = colfs_source_display("/a/user:secret@b");
	assert_string_equal(d, "/a/user:secret@b"); /* a path has no secret */
	free(d);

	char arg[] = "https://user:secret@h/x.parquet";
	colfs_source_hide(arg);
	assert_string_equal(arg, "https://***********@h/x.parquet");
	char plain[] = "-ofooter_key=x";
	colfs_source_hide(plain);
	assert_string_equal(plain, "-ofooter_key=x");

	/* fsname: a local path made absolute, a URL without credentials */
	char cwd[256], *c;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(dir), 0);
	c = colfs_source_canonical("plain.parquet");
	assert_true(strncmp(c, "/", 1) == 0);
	assert_non_null(strstr(c, "/plain.parquet"));
	free(c);
	assert_int_equal(chdir(cwd), 0);
	c = colfs_source_canonical("http://u:p@h/x");
	assert_string_equal(c, "http://h/x");
	free(c);
}

static void test_changes(void **state)
{
	(void)state;
	assert_true(colfs_source_is_local(dir));
	assert_true(colfs_source_is_local("/no/such/file"));
	assert_false(colfs_source_is_local("s3://bucket/x.parquet"));
	assert_false(colfs_source_is_local("s3://bucket/"));
	assert_false(colfs_source_is_local("https://h/x"));
}

static void test_reach(void **state)
{
	(void)state;
	char p[256], why[256];
	colfs_source *src = NULL;
	uint8_t b[4];
	colfs_source_entry *e = (colfs_source_entry *)1;
	size_t n = 1;

	snprintf(p, sizeof p, "%s/plain.parquet", dir);
	assert_int_equal(colfs_source_open(p, NULL, &src, why, sizeof why),
			 COLFS_OK);
	assert_int_equal(colfs_source_size(src), 4);
	size_t got = 0;
	colfs_err err = {0};
	assert_int_equal(colfs_source_pread(src, 0, 4, b, &got, &err),
			 COLFS_OK);
	assert_int_equal(got, 4);
	assert_memory_equal(b, "PAR1", 4);
	colfs_source_destroy(src);

	snprintf(p, sizeof p, "%s/missing", dir);
	assert_int_equal(colfs_source_open(p, NULL, &src, why, sizeof why),
			 COLFS_ENOENT);
	assert_null(src);
	assert_non_null(strstr(why, "missing"));

	/* a directory is listed by the directory module, not opened */
	assert_int_equal(colfs_source_open(dir, NULL, &src, why, sizeof why),
			 COLFS_EUNSUPPORTED);
	/* only a kind with a lister lists, only one with peek peeks, only
	 * one with stat stats (an http:// object has none of them: no
	 * request is made) */
	assert_int_equal(colfs_source_list("http://h/x/", NULL, &e, &n, why,
					   sizeof why),
			 COLFS_EUNSUPPORTED);
	assert_null(e);
	assert_int_equal(n, 0);
	assert_int_equal(colfs_source_peek("http://h/x", NULL, 4, 4, b, b, why,
					   sizeof why),
			 COLFS_EUNSUPPORTED);
	colfs_source_stat_info si;
	assert_int_equal(colfs_source_stat("http://h/x", NULL, &si, why,
					   sizeof why),
			 COLFS_EUNSUPPORTED);
	/* the local kinds have all three (tests/core/test_dirlist.c) */
	assert_int_equal(colfs_source_list(dir, NULL, &e, &n, why, sizeof why),
			 COLFS_OK);
	assert_int_equal(n, 5);
	colfs_source_entries_free(e, n);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	put("plain.parquet", "PAR1");
	put("c.data", "anything");
	put("c.metadata", "kuducntr and more");
	put("d.data", "anything");
	put("d.metadata", "not kudu");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	const char *names[] = {"plain.parquet", "c.data", "c.metadata",
			       "d.data", "d.metadata"};
	char p[256];
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		unlink(p);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_of),
		cmocka_unit_test(test_shown_and_hidden),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_reach),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* A local directory reached through the core's source kinds alone
 * (core/sourcekind.h), as the dataset layer and its table kinds reach it:
 * colfs_source_list walks it with the core's lister (core/dirwalk.h) and
 * no name left out (keys relative to it, sizes, in byte order of the
 * keys, hidden and `_` names kept, empty files kept, a link to a file in
 * it followed, a link loop, a dangling link and a link out of it not,
 * the last followed with follow_links); colfs_source_peek gives a file's
 * first and last bytes; colfs_source_stat what a name is;
 * colfs_source_open_file names a table's file as the table does. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/sourcekind.h"

static char top[] = "/tmp/colfs-test-dirlist-XXXXXX";
static char root[300], outside[300];

static void put(const char *base, const char *name, const char *bytes)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", base, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(bytes, f);
	assert_int_equal(fclose(f), 0);
}

static void folder(const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", root, name);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void link_to(const char *target, const char *name)
{
	char path[600];
	snprintf(path, sizeof path, "%s/%s", root, name);
	assert_int_equal(symlink(target, path), 0);
}

static void check_list(const colfs_options *o, const char *const *keys,
		       const uint64_t *sizes, size_t want)
{
	colfs_source_entry *e = NULL;
	size_t n = 0;
	char why[512] = "";
	assert_int_equal(colfs_source_list(root, o, &e, &n, why, sizeof why),
			 COLFS_OK);
	for (size_t i = 0; i < n && i < want; i++) {
		assert_string_equal(e[i].key, keys[i]);
		assert_int_equal(e[i].size, sizes[i]);
	}
	assert_int_equal(n, want);
	colfs_source_entries_free(e, n);
}

static void test_list(void **state)
{
	(void)state;
	/* byte order of the whole key: "a-b" ('-' 0x2d) before "a/..." ('/'
	 * 0x2f), '.' and 'Z' before '_' before 'a' */
	static const char *const keys[] = {
		".dot", "Z", "_under", "a-b", "a/.hidden/h", "a/z.bin",
		"b.txt", "empty", "lnk",
	};
	static const uint64_t sizes[] = {1, 1, 2, 8, 1, 5, 3, 0, 3};
	check_list(NULL, keys, sizes, 9);

	/* with follow_links the link out of the directory is followed too */
	static const char *const keys2[] = {
		".dot", "Z", "_under", "a-b", "a/.hidden/h", "a/z.bin",
		"b.txt", "empty", "lnk", "out",
	};
	static const uint64_t sizes2[] = {1, 1, 2, 8, 1, 5, 3, 0, 3, 7};
	colfs_options o = {0};
	o.follow_links = true;
	check_list(&o, keys2, sizes2, 10);

	/* a trailing slash names the same folder (as a table's
	 * "ROOT/_delta_log/" does); keys are relative to it */
	char sub[600];
	colfs_source_entry *e = NULL;
	size_t n = 0;
	char why[512] = "";
	snprintf(sub, sizeof sub, "%s/a/", root);
	assert_int_equal(colfs_source_list(sub, NULL, &e, &n, why, sizeof why),
			 COLFS_OK);
	assert_int_equal(n, 2);
	assert_string_equal(e[0].key, ".hidden/h");
	assert_string_equal(e[1].key, "z.bin");
	colfs_source_entries_free(e, n);
}

static void test_list_fails(void **state)
{
	(void)state;
	colfs_source_entry *e = NULL;
	size_t n = 7;
	char p[600], why[512] = "";

	/* no such folder, and a file that is no folder: the system's
	 * reason, naming what was listed */
	snprintf(p, sizeof p, "%s/missing/", root);
	assert_int_not_equal(colfs_source_list(p, NULL, &e, &n, why,
					       sizeof why), COLFS_OK);
	assert_null(e);
	assert_int_equal(n, 0);
	assert_non_null(strstr(why, "missing"));
	assert_non_null(strstr(why, strerror(ENOENT)));
	snprintf(p, sizeof p, "%s/b.txt", root);
	assert_int_not_equal(colfs_source_list(p, NULL, &e, &n, why,
					       sizeof why), COLFS_OK);
	assert_non_null(strstr(why, strerror(ENOTDIR)));
}

static void test_peek(void **state)
{
	(void)state;
	uint8_t head[8], tail[8];
	char p[600], why[512] = "";

	snprintf(p, sizeof p, "%s/a-b", root);
	assert_int_equal(colfs_source_peek(p, NULL, 8, 4, head, tail, why,
					   sizeof why), COLFS_OK);
	assert_memory_equal(head, "1234", 4);
	assert_memory_equal(tail, "5678", 4);
	/* listed bigger than it is now: opened, fewer bytes */
	assert_int_equal(colfs_source_peek(p, NULL, 12, 4, head, tail, why,
					   sizeof why), COLFS_ETRUNCATED);
	/* more bytes asked than listed */
	assert_int_equal(colfs_source_peek(p, NULL, 2, 4, head, tail, why,
					   sizeof why), COLFS_EBOUNDS);
	snprintf(p, sizeof p, "%s/gone", root);
	assert_int_equal(colfs_source_peek(p, NULL, 8, 4, head, tail, why,
					   sizeof why), COLFS_ENOENT);
	assert_non_null(strstr(why, "gone"));
}

static void test_stat(void **state)
{
	(void)state;
	colfs_source_stat_info si;
	char p[600], why[512] = "";

	assert_int_equal(colfs_source_stat(root, NULL, &si, why, sizeof why),
			 COLFS_OK);
	assert_true(si.dir);
	assert_false(si.regular);
	snprintf(p, sizeof p, "%s/lnk", root);
	assert_int_equal(colfs_source_stat(p, NULL, &si, why, sizeof why),
			 COLFS_OK);
	assert_true(si.regular);
	assert_int_equal(si.size, 3);
	assert_true(si.ino != 0);
	snprintf(p, sizeof p, "%s/gone", root);
	assert_int_equal(colfs_source_stat(p, NULL, &si, why, sizeof why),
			 COLFS_ENOENT);
	assert_string_equal(why, strerror(ENOENT)); /* the reason alone */
}

static void test_open_file(void **state)
{
	(void)state;
	colfs_source *src = NULL;
	char p[600], why[512] = "";

	snprintf(p, sizeof p, "%s/b.txt", root);
	assert_int_equal(colfs_source_open_file(p, "t/b.txt", NULL, &src, why,
						sizeof why), COLFS_OK);
	assert_int_equal(colfs_source_size(src), 3);
	colfs_source_destroy(src);
	snprintf(p, sizeof p, "%s/gone", root);
	assert_int_equal(colfs_source_open_file(p, "t/gone", NULL, &src, why,
						sizeof why), COLFS_ENOENT);
	assert_null(src);
	char want[256];
	snprintf(want, sizeof want, "t/gone: %s", strerror(ENOENT));
	assert_string_equal(why, want);
	snprintf(p, sizeof p, "%s/a", root);
	assert_int_equal(colfs_source_open_file(p, "t/a", NULL, &src, why,
						sizeof why), COLFS_EIO);
	assert_string_equal(why, "t/a is not a regular file");
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(top))
		return -1;
	snprintf(root, sizeof root, "%s/root", top);
	snprintf(outside, sizeof outside, "%s/outside", top);
	if (mkdir(root, 0755) || mkdir(outside, 0755))
		return -1;
	put(outside, "o.txt", "outside");
	put(root, "b.txt", "abc");
	put(root, "a-b", "12345678");
	put(root, "Z", "Z");
	put(root, "_under", "__");
	put(root, ".dot", "d");
	put(root, "empty", "");
	folder("a");
	folder("a/.hidden");
	put(root, "a/z.bin", "hello");
	put(root, "a/.hidden/h", "x");
	link_to("..", "a/loop");          /* a folder that holds it */
	link_to(".", "a/self");
	link_to("b.txt", "lnk");          /* a file in the directory */
	link_to("nowhere", "dangling");
	link_to("../outside/o.txt", "out");
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_fails),
		cmocka_unit_test(test_peek),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_open_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

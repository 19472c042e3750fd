/* Sources: memory and file descriptor, read_at inside, at and past the
 * end, short preads, a file that changes under the source (shrinks, is
 * rewritten with the same size, grows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/source.h"

#define SIZE 1000

static uint8_t data[SIZE];

static void fill(void)
{
	for (size_t i = 0; i < SIZE; i++)
		data[i] = (uint8_t)(i * 7 + i / 256);
}

static int temp_file(void)
{
	char path[] = "/tmp/colfs-test-source-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, SIZE), SIZE);
	return fd;
}

/* The same contract for both kinds of source. */
static void check_source(colfs_source *src)
{
	uint8_t buf[SIZE + 16];
	colfs_err err;
	size_t got;

	assert_true(colfs_source_size(src) == SIZE);

	/* Inside, and ending exactly at the end. */
	assert_int_equal(colfs_source_read_at(src, 10, 100, buf, &err),
			 COLFS_OK);
	assert_memory_equal(buf, data + 10, 100);
	assert_int_equal(colfs_source_read_at(src, 0, SIZE, buf, &err),
			 COLFS_OK);
	assert_memory_equal(buf, data, SIZE);
	assert_int_equal(colfs_source_read_at(src, SIZE - 4, 4, buf, &err),
			 COLFS_OK);
	assert_memory_equal(buf, data + SIZE - 4, 4);
	assert_int_equal(colfs_source_read_at(src, SIZE, 0, buf, &err),
			 COLFS_OK);

	/* One byte past the end, starting at the end, starting past it. */
	memset(&err, 0, sizeof err);
	assert_int_equal(colfs_source_read_at(src, SIZE - 4, 5, buf, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.status, COLFS_ETRUNCATED);
	assert_int_equal(err.offset, SIZE - 4);
	assert_true(err.msg[0] != '\0');
	assert_int_equal(colfs_source_read_at(src, SIZE, 1, buf, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, SIZE);
	assert_int_equal(colfs_source_read_at(src, SIZE + 50, 1, buf, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, SIZE + 50);
	assert_int_equal(colfs_source_read_at(src, SIZE + 50, 0, buf, &err),
			 COLFS_ETRUNCATED);
	/* offset + len would wrap around. */
	assert_int_equal(colfs_source_read_at(src, UINT64_MAX - 1, 4, buf,
					      &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(colfs_source_read_at(src, 4, SIZE_MAX, buf, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, 4);

	/* pread stops at the end. */
	memset(buf, 0xcc, sizeof buf);
	assert_int_equal(colfs_source_pread(src, SIZE - 3, 10, buf, &got,
					    &err),
			 COLFS_OK);
	assert_int_equal(got, 3);
	assert_memory_equal(buf, data + SIZE - 3, 3);
	assert_int_equal(buf[3], 0xcc);
	assert_int_equal(colfs_source_pread(src, SIZE, 10, buf, &got, &err),
			 COLFS_OK);
	assert_int_equal(got, 0);
	assert_int_equal(colfs_source_pread(src, UINT64_MAX, 10, buf, &got,
					    &err),
			 COLFS_OK);
	assert_int_equal(got, 0);
	assert_int_equal(colfs_source_pread(src, 100, 50, buf, &got, &err),
			 COLFS_OK);
	assert_int_equal(got, 50);
	assert_memory_equal(buf, data + 100, 50);
}

static void test_memory(void **state)
{
	(void)state;
	colfs_source *src;
	fill();
	assert_int_equal(colfs_source_create_memory(data, SIZE, &src),
			 COLFS_OK);
	assert_int_equal(colfs_source_fd(src), -1);
	check_source(src);
	colfs_source_destroy(src);
}

/* The memory source keeps its own copy. */
static void test_memory_copies(void **state)
{
	(void)state;
	colfs_source *src;
	uint8_t mine[4] = {1, 2, 3, 4}, buf[4];
	colfs_err err;
	assert_int_equal(colfs_source_create_memory(mine, 4, &src), COLFS_OK);
	mine[0] = 9;
	assert_int_equal(colfs_source_read_at(src, 0, 4, buf, &err), COLFS_OK);
	assert_int_equal(buf[0], 1);
	colfs_source_destroy(src);
}

static void test_memory_empty(void **state)
{
	(void)state;
	colfs_source *src;
	uint8_t buf[1];
	colfs_err err;
	size_t got = 5;
	assert_int_equal(colfs_source_create_memory(NULL, 0, &src), COLFS_OK);
	assert_true(colfs_source_size(src) == 0);
	assert_int_equal(colfs_source_read_at(src, 0, 0, buf, &err), COLFS_OK);
	assert_int_equal(colfs_source_read_at(src, 0, 1, buf, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.offset, 0);
	assert_int_equal(colfs_source_pread(src, 0, 1, buf, &got, &err),
			 COLFS_OK);
	assert_int_equal(got, 0);
	colfs_source_destroy(src);
	colfs_source_destroy(NULL);
}

static void test_fd(void **state)
{
	(void)state;
	colfs_source *src;
	fill();
	int fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 0, &src), COLFS_OK);
	assert_int_equal(colfs_source_fd(src), fd);
	check_source(src);
	colfs_source_destroy(src);
	/* Not owned: still open. */
	assert_true(fcntl(fd, F_GETFD) >= 0);
	close(fd);
}

static void test_fd_owned(void **state)
{
	(void)state;
	colfs_source *src;
	fill();
	int fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	colfs_source_destroy(src);
	/* Owned: closed by destroy. */
	errno = 0;
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
}

/* The file is cut after the source measured it: a read that comes up
 * short fails with COLFS_EIO "source changed since mount" naming both
 * sizes, and so does every read after it (the change is sticky), inside
 * the part that is left or not. */
static void test_fd_shrinks(void **state)
{
	(void)state;
	colfs_source *src;
	uint8_t buf[SIZE];
	colfs_err err;
	size_t got;
	fill();
	int fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	assert_int_equal(colfs_source_check(src, &err), COLFS_OK);
	assert_false(colfs_source_changed(src));
	assert_int_equal(ftruncate(fd, 600), 0);
	assert_int_equal(colfs_source_read_at(src, 500, 200, buf, &err),
			 COLFS_EIO);
	assert_int_equal(err.status, COLFS_EIO);
	assert_non_null(strstr(err.msg, "source changed since mount (size 1000 -> 600, mtime "));
	assert_non_null(strstr(err.msg, "): remount"));
	assert_true(colfs_source_changed(src));
	assert_int_equal(colfs_source_pread(src, 0, 100, buf, &got, &err),
			 COLFS_EIO);
	assert_int_equal(got, 0);
	/* Back to its old length: still changed. */
	assert_int_equal(ftruncate(fd, SIZE), 0);
	assert_int_equal(colfs_source_read_at(src, 0, 10, buf, &err),
			 COLFS_EIO);
	colfs_source_destroy(src);
}

/* Rewritten in place with the same size: the modification time tells. */
static void test_fd_rewritten(void **state)
{
	(void)state;
	colfs_source *src;
	uint8_t buf[16];
	colfs_err err;
	fill();
	int fd = temp_file();
	struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 5}};
	assert_int_equal(futimens(fd, times), 0);
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	assert_int_equal(colfs_source_read_at(src, 0, 16, buf, &err),
			 COLFS_OK);
	assert_int_equal(pwrite(fd, "x", 1, 0), 1);
	times[1].tv_nsec = 6; /* whatever the clock's granularity */
	assert_int_equal(futimens(fd, times), 0);
	/* A full read does not check by itself (the reader checks once it
	 * has what it needs); the check sees it, and from then on every
	 * read fails. */
	assert_false(colfs_source_changed(src));
	assert_int_equal(colfs_source_check(src, &err), COLFS_EIO);
	assert_true(colfs_source_changed(src));
	assert_int_equal(colfs_source_read_at(src, 0, 16, buf, &err),
			 COLFS_EIO);
	assert_string_equal(err.msg,
			    "source changed since mount (size 1000 -> 1000, "
			    "mtime 2001-09-09T01:46:40.000000005Z -> "
			    "2001-09-09T01:46:40.000000006Z): remount");
	colfs_source_destroy(src);
}

/* Appended to: the bytes that were there are still there, but the file
 * is another one. */
static void test_fd_appended(void **state)
{
	(void)state;
	colfs_source *src;
	uint8_t buf[16];
	colfs_err err;
	fill();
	int fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	assert_int_equal(pwrite(fd, data, 10, SIZE), 10);
	assert_int_equal(colfs_source_check(src, &err), COLFS_EIO);
	assert_int_equal(colfs_source_read_at(src, 0, 16, buf, &err),
			 COLFS_EIO);
	assert_non_null(strstr(err.msg, "(size 1000 -> 1010, mtime "));
	colfs_source_destroy(src);
}

/* With an interval (colfs-tool's), colfs_source_check_often makes its
 * fstat at most once an interval: a change inside one is not seen by it,
 * the next interval's check sees it; colfs_source_check (a short read, a
 * problem about to be filed) always looks.  Without one, every check
 * looks. */
static void test_fd_check_interval(void **state)
{
	(void)state;
	colfs_source *src;
	colfs_err err;
	uint8_t buf[16];
	fill();
	int fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	colfs_source_set_check_interval(src, 200);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_OK);
	assert_int_equal(pwrite(fd, data, 10, SIZE), 10);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_OK);
	assert_false(colfs_source_changed(src));
	usleep(250 * 1000);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_EIO);
	assert_true(colfs_source_changed(src));
	assert_int_equal(colfs_source_read_at(src, 0, 16, buf, &err),
			 COLFS_EIO);
	colfs_source_destroy(src);

	fill();
	fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	colfs_source_set_check_interval(src, 60000);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_OK);
	assert_int_equal(ftruncate(fd, 600), 0);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_OK);
	assert_int_equal(colfs_source_check(src, &err), COLFS_EIO);
	assert_non_null(strstr(err.msg, "(size 1000 -> 600, mtime "));
	colfs_source_destroy(src);

	fill();
	fd = temp_file();
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_OK);
	assert_int_equal(pwrite(fd, data, 10, SIZE), 10);
	assert_int_equal(colfs_source_check_often(src, &err), COLFS_EIO);
	colfs_source_destroy(src);
}

/* A memory source never changes. */
static void test_memory_check(void **state)
{
	(void)state;
	colfs_source *src;
	colfs_err err;
	assert_int_equal(colfs_source_create_memory(data, SIZE, &src),
			 COLFS_OK);
	assert_int_equal(colfs_source_check(src, &err), COLFS_OK);
	assert_false(colfs_source_changed(src));
	colfs_source_destroy(src);
}

static void test_fd_bad(void **state)
{
	(void)state;
	colfs_source *src = NULL;
	assert_int_equal(colfs_source_create_fd(-1, 0, &src), COLFS_EIO);
	assert_null(src);
}

/* A descriptor that cannot be read (opened write-only) gives COLFS_EIO
 * with the offset, not a short read. */
static void test_fd_io_error(void **state)
{
	(void)state;
	char path[] = "/tmp/colfs-test-source-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fill();
	assert_int_equal(write(fd, data, SIZE), SIZE);
	close(fd);
	fd = open(path, O_WRONLY);
	unlink(path);
	assert_true(fd >= 0);
	colfs_source *src;
	uint8_t buf[8];
	colfs_err err;
	assert_int_equal(colfs_source_create_fd(fd, 1, &src), COLFS_OK);
	assert_int_equal(colfs_source_read_at(src, 40, 8, buf, &err),
			 COLFS_EIO);
	assert_int_equal(err.offset, 40);
	colfs_source_destroy(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_memory_copies),
		cmocka_unit_test(test_memory_empty),
		cmocka_unit_test(test_fd),
		cmocka_unit_test(test_fd_owned),
		cmocka_unit_test(test_fd_shrinks),
		cmocka_unit_test(test_fd_rewritten),
		cmocka_unit_test(test_fd_appended),
		cmocka_unit_test(test_fd_check_interval),
		cmocka_unit_test(test_memory_check),
		cmocka_unit_test(test_fd_bad),
		cmocka_unit_test(test_fd_io_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

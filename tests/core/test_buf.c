/* The growable buffer: appends, printf past the 256-byte stack buffer,
 * sticky failure, take and free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"

static void test_append(void **state)
{
	(void)state;
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_puts(&b, "abc");
	colfs_buf_putc(&b, '-');
	colfs_buf_append(&b, "xyz", 3);
	colfs_buf_append(&b, NULL, 0);
	colfs_buf_puts(&b, "");
	assert_int_equal(b.len, 7);
	assert_memory_equal(b.data, "abc-xyz", 7);
	assert_int_equal(colfs_buf_status(&b), COLFS_OK);
	colfs_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	colfs_buf_free(&b);     /* twice is fine */
	colfs_buf_free(NULL);
}

/* Many small appends grow the buffer through several reallocations. */
static void test_growth(void **state)
{
	(void)state;
	colfs_buf b = COLFS_BUF_INIT;
	for (int i = 0; i < 10000; i++)
		colfs_buf_putc(&b, (char)('a' + i % 26));
	assert_int_equal(b.len, 10000);
	assert_true(b.cap >= b.len);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(b.data[i], 'a' + i % 26);
	colfs_buf_free(&b);
}

static void test_printf(void **state)
{
	(void)state;
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_printf(&b, "%d-%s", 42, "x");
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "42-x", 4);

	/* 255, 256 and 257 characters: either side of the stack buffer. */
	char big[1200];
	for (size_t n = 255; n <= 257; n++) {
		colfs_buf c = COLFS_BUF_INIT;
		memset(big, 'q', n);
		big[n] = '\0';
		colfs_buf_puts(&c, "<");
		colfs_buf_printf(&c, "%s", big);
		colfs_buf_puts(&c, ">");
		assert_int_equal(c.len, n + 2);
		assert_int_equal(c.data[0], '<');
		assert_memory_equal(c.data + 1, big, n);
		assert_int_equal(c.data[n + 1], '>');
		colfs_buf_free(&c);
	}

	/* Past 256 bytes with arguments, appended to existing content. */
	for (size_t i = 0; i < 1100; i++)
		big[i] = (char)('A' + i % 26);
	big[1100] = '\0';
	colfs_buf_printf(&b, "[%s|%05d]", big, 7);
	assert_int_equal(b.len, 4 + 1 + 1100 + 7);
	assert_memory_equal(b.data + 5, big, 1100);
	assert_memory_equal(b.data + 1105, "|00007]", 7);
	assert_int_equal(colfs_buf_status(&b), COLFS_OK);
	colfs_buf_free(&b);
}

static void test_take(void **state)
{
	(void)state;
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_printf(&b, "%s", "hello");
	size_t len = 0;
	char *p = colfs_buf_take(&b, &len);
	assert_non_null(p);
	assert_int_equal(len, 5);
	assert_memory_equal(p, "hello", 5);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	/* The buffer is usable again after take. */
	colfs_buf_puts(&b, "again");
	assert_int_equal(b.len, 5);
	free(p);
	p = colfs_buf_take(&b, NULL);
	assert_memory_equal(p, "again", 5);
	free(p);
	/* An empty buffer hands over nothing. */
	assert_null(colfs_buf_take(&b, &len));
	assert_int_equal(len, 0);
}

/* A reservation that cannot be satisfied marks the buffer failed; every
 * later append is a no-op until free. */
static void test_sticky_failure(void **state)
{
	(void)state;
	colfs_buf b = COLFS_BUF_INIT;
	colfs_buf_puts(&b, "keep");
	assert_false(colfs_buf_reserve(&b, SIZE_MAX));
	assert_int_equal(colfs_buf_status(&b), COLFS_ENOMEM);
	colfs_buf_puts(&b, "lost");
	colfs_buf_putc(&b, '!');
	colfs_buf_printf(&b, "%d", 1);
	char big[400];
	memset(big, 'z', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	colfs_buf_printf(&b, "%s", big);
	assert_false(colfs_buf_reserve(&b, 1));
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "keep", 4);
	assert_int_equal(colfs_buf_status(&b), COLFS_ENOMEM);
	colfs_buf_free(&b);
	assert_int_equal(colfs_buf_status(&b), COLFS_OK);
	colfs_buf_puts(&b, "new");
	assert_int_equal(b.len, 3);
	colfs_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_printf),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_sticky_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

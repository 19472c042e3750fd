/* The shared helpers of the core: hex digits, percent-decoding
 * (core/hex.h) and colfs_grow (core/buf.h): every digit, a '%' too near
 * the end, non-hex digits, "%00", and growth that would overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/buf.h"
#include "core/hex.h"

static void test_hex_digit(void **state)
{
	(void)state;
	const char *lower = "0123456789abcdef", *upper = "0123456789ABCDEF";
	for (int i = 0; i < 16; i++) {
		assert_int_equal(colfs_hex_digit(lower[i]), i);
		assert_int_equal(colfs_hex_digit(upper[i]), i);
	}
	const char *not_hex = "gG/:@`\xff \0";
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(colfs_hex_digit(not_hex[i]), -1);
}

static void check_decode(const char *in, size_t len, const char *want,
			 size_t want_len)
{
	char out[64];
	memset(out, 'X', sizeof out);
	assert_int_equal(colfs_percent_decode(in, len, out), want_len);
	assert_memory_equal(out, want, want_len);
	assert_int_equal(out[want_len], '\0');
}

static void test_percent_decode(void **state)
{
	(void)state;
	check_decode("a%2Fb", 5, "a/b", 3);
	check_decode("%41%62%7e", 9, "Ab~", 3);
	check_decode("%zz%4", 5, "%zz%4", 5);
	check_decode("100%", 4, "100%", 4);
	/* the digits must lie within `len` */
	check_decode("%41", 2, "%4", 2);
	check_decode("x%00y", 5, "x\0y", 3);
	check_decode("%%41", 4, "%A", 2);
	check_decode("", 0, "", 0);
}

static void test_grow(void **state)
{
	(void)state;
	int *a = NULL;
	size_t cap = 0;
	assert_true(colfs_grow((void **)&a, &cap, 1, sizeof *a));
	assert_int_equal(cap, 16);
	assert_true(colfs_grow((void **)&a, &cap, 17, sizeof *a));
	assert_int_equal(cap, 32);
	assert_true(colfs_grow((void **)&a, &cap, 100, sizeof *a));
	assert_int_equal(cap, 128);
	a[127] = 7;
	/* a count whose bytes size_t cannot hold: refused, array kept */
	assert_false(colfs_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof *a));
	assert_false(colfs_grow((void **)&a, &cap, SIZE_MAX, 1));
	assert_int_equal(cap, 128);
	assert_int_equal(a[127], 7);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_digit),
		cmocka_unit_test(test_percent_decode),
		cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

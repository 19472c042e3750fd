/* The bounds-checked cursor: every read at and past the end of its window,
 * sub-cursors fenced by their parent, absolute offsets in errors for file
 * and virtual windows, LEB128 varints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/cursor.h"

#define BASE 1000u   /* file offset of the test windows */

static const uint8_t bytes16[16] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
};

/* A failing read leaves the cursor where it was and fills err. */
static void expect_fail(colfs_status got, colfs_status want,
			const colfs_cursor *c, size_t pos_before,
			const colfs_err *err, uint64_t offset)
{
	assert_int_equal(got, want);
	assert_int_equal(err->status, want);
	assert_int_equal(err->offset, offset);
	assert_true(err->msg[0] != '\0');
	assert_int_equal(c->pos, pos_before);
}

static void test_init_and_offsets(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	colfs_cursor_init(&c, bytes16, 16, BASE);
	assert_int_equal(colfs_cursor_left(&c), 16);
	assert_int_equal(colfs_cursor_offset(&c), BASE);
	assert_ptr_equal(colfs_cursor_ptr(&c), bytes16);
	assert_int_equal(colfs_cursor_skip(&c, 5, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_offset(&c), BASE + 5);
	assert_int_equal(colfs_cursor_left(&c), 11);
	assert_ptr_equal(colfs_cursor_ptr(&c), bytes16 + 5);
}

static void test_fixed_width_values(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	colfs_cursor_init(&c, bytes16, 16, BASE);
	assert_int_equal(colfs_cursor_u8(&c, &u8, &err), COLFS_OK);
	assert_int_equal(u8, 0x01);
	assert_int_equal(colfs_cursor_u16le(&c, &u16, &err), COLFS_OK);
	assert_int_equal(u16, 0x0302);
	assert_int_equal(colfs_cursor_u32le(&c, &u32, &err), COLFS_OK);
	assert_int_equal(u32, 0x07060504);
	assert_int_equal(colfs_cursor_u32be(&c, &u32, &err), COLFS_OK);
	assert_int_equal(u32, 0x08090a0b);
	assert_int_equal(colfs_cursor_seek(&c, 8, &err), COLFS_OK);
	/* The last 8 bytes exactly. */
	assert_int_equal(colfs_cursor_u64le(&c, &u64, &err), COLFS_OK);
	assert_true(u64 == 0x100f0e0d0c0b0a09ull);
	assert_int_equal(colfs_cursor_left(&c), 0);
}

/* Each fixed-width read with one byte too few fails, reports the absolute
 * offset of the attempted read and does not move the cursor. */
static void test_reads_past_end(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	const uint8_t *p;
	uint8_t dst[16];

	/* u8 at the very end. */
	colfs_cursor_init(&c, bytes16, 16, BASE);
	assert_int_equal(colfs_cursor_skip(&c, 16, &err), COLFS_OK);
	expect_fail(colfs_cursor_u8(&c, &u8, &err), COLFS_ETRUNCATED, &c, 16,
		    &err, BASE + 16);

	/* Width w with w - 1 bytes left. */
	colfs_cursor_init(&c, bytes16, 16, BASE);
	assert_int_equal(colfs_cursor_seek(&c, 15, &err), COLFS_OK);
	expect_fail(colfs_cursor_u16le(&c, &u16, &err), COLFS_ETRUNCATED, &c,
		    15, &err, BASE + 15);
	assert_int_equal(colfs_cursor_seek(&c, 13, &err), COLFS_OK);
	expect_fail(colfs_cursor_u32le(&c, &u32, &err), COLFS_ETRUNCATED, &c,
		    13, &err, BASE + 13);
	expect_fail(colfs_cursor_u32be(&c, &u32, &err), COLFS_ETRUNCATED, &c,
		    13, &err, BASE + 13);
	assert_int_equal(colfs_cursor_seek(&c, 9, &err), COLFS_OK);
	expect_fail(colfs_cursor_u64le(&c, &u64, &err), COLFS_ETRUNCATED, &c,
		    9, &err, BASE + 9);
	/* The bytes are still readable one narrower. */
	assert_int_equal(colfs_cursor_u32le(&c, &u32, &err), COLFS_OK);
	assert_int_equal(u32, 0x0d0c0b0a);

	/* bytes/copy/skip: exactly what is left works, one more does not. */
	colfs_cursor_init(&c, bytes16, 16, BASE);
	assert_int_equal(colfs_cursor_skip(&c, 4, &err), COLFS_OK);
	expect_fail(colfs_cursor_bytes(&c, 13, &p, &err), COLFS_ETRUNCATED,
		    &c, 4, &err, BASE + 4);
	expect_fail(colfs_cursor_copy(&c, dst, 13, &err), COLFS_ETRUNCATED, &c,
		    4, &err, BASE + 4);
	expect_fail(colfs_cursor_skip(&c, 13, &err), COLFS_ETRUNCATED, &c, 4,
		    &err, BASE + 4);
	/* Huge sizes must not wrap around. */
	expect_fail(colfs_cursor_skip(&c, SIZE_MAX, &err), COLFS_ETRUNCATED,
		    &c, 4, &err, BASE + 4);
	expect_fail(colfs_cursor_bytes(&c, SIZE_MAX - 3, &p, &err),
		    COLFS_ETRUNCATED, &c, 4, &err, BASE + 4);
	assert_int_equal(colfs_cursor_copy(&c, dst, 12, &err), COLFS_OK);
	assert_memory_equal(dst, bytes16 + 4, 12);
	assert_int_equal(colfs_cursor_bytes(&c, 0, &p, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_skip(&c, 0, &err), COLFS_OK);
	expect_fail(colfs_cursor_skip(&c, 1, &err), COLFS_ETRUNCATED, &c, 16,
		    &err, BASE + 16);
}

static void test_seek(void **state)
{
	(void)state;
	colfs_cursor c;
	colfs_err err;
	colfs_cursor_init(&c, bytes16, 16, BASE);
	assert_int_equal(colfs_cursor_seek(&c, 16, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_left(&c), 0);
	assert_int_equal(colfs_cursor_seek(&c, 3, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_offset(&c), BASE + 3);
	assert_int_equal(colfs_cursor_seek(&c, 17, &err), COLFS_EBOUNDS);
	assert_int_equal(err.status, COLFS_EBOUNDS);
	assert_int_equal(c.pos, 3);
	assert_int_equal(colfs_cursor_seek(&c, SIZE_MAX, &err),
			 COLFS_EBOUNDS);
	assert_int_equal(c.pos, 3);
	assert_int_equal(colfs_cursor_seek(&c, 0, &err), COLFS_OK);
}

/* A child cannot be larger than what its parent has left, and cannot read
 * past its own end even when the parent has more. */
static void test_sub_fenced(void **state)
{
	(void)state;
	colfs_cursor parent, child, grandchild;
	colfs_err err;
	uint8_t u8;
	uint32_t u32;

	colfs_cursor_init(&parent, bytes16, 10, BASE);
	assert_int_equal(colfs_cursor_skip(&parent, 4, &err), COLFS_OK);
	/* 7 > 6 bytes left in the parent window (the memory has more). */
	expect_fail(colfs_cursor_sub(&parent, 7, &child, &err),
		    COLFS_ETRUNCATED, &parent, 4, &err, BASE + 4);
	expect_fail(colfs_cursor_sub(&parent, SIZE_MAX, &child, &err),
		    COLFS_ETRUNCATED, &parent, 4, &err, BASE + 4);

	assert_int_equal(colfs_cursor_sub(&parent, 3, &child, &err), COLFS_OK);
	assert_int_equal(parent.pos, 7);
	assert_int_equal(child.len, 3);
	assert_int_equal(colfs_cursor_offset(&child), BASE + 4);
	assert_false(child.virtual_base);
	/* The parent still has 3 bytes, the child only 3 of its own. */
	expect_fail(colfs_cursor_u32le(&child, &u32, &err), COLFS_ETRUNCATED,
		    &child, 0, &err, BASE + 4);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(colfs_cursor_u8(&child, &u8, &err), COLFS_OK);
		assert_int_equal(u8, 5 + i);
	}
	expect_fail(colfs_cursor_u8(&child, &u8, &err), COLFS_ETRUNCATED,
		    &child, 3, &err, BASE + 7);

	/* Nested: offsets accumulate. */
	assert_int_equal(colfs_cursor_sub(&parent, 3, &child, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_skip(&child, 1, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_sub(&child, 2, &grandchild, &err),
			 COLFS_OK);
	assert_int_equal(colfs_cursor_offset(&grandchild), BASE + 8);
	assert_int_equal(colfs_cursor_skip(&grandchild, 2, &err), COLFS_OK);
	expect_fail(colfs_cursor_u8(&grandchild, &u8, &err), COLFS_ETRUNCATED,
		    &grandchild, 2, &err, BASE + 10);
	expect_fail(colfs_cursor_sub(&child, 1, &grandchild, &err),
		    COLFS_ETRUNCATED, &child, 3, &err, BASE + 10);

	/* A zero-length child at the end is fine and empty. */
	assert_int_equal(colfs_cursor_sub(&parent, 0, &child, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_left(&child), 0);
	expect_fail(colfs_cursor_u8(&child, &u8, &err), COLFS_ETRUNCATED,
		    &child, 0, &err, BASE + 10);
}

static void test_slice(void **state)
{
	(void)state;
	colfs_cursor c, s;
	colfs_err err;
	uint16_t u16;
	colfs_cursor_init(&c, bytes16, 12, BASE);
	assert_int_equal(colfs_cursor_skip(&c, 2, &err), COLFS_OK);

	assert_int_equal(colfs_cursor_slice(&c, 10, 2, &s, &err), COLFS_OK);
	assert_int_equal(c.pos, 2); /* the parent does not move */
	assert_int_equal(colfs_cursor_offset(&s), BASE + 10);
	assert_int_equal(colfs_cursor_u16le(&s, &u16, &err), COLFS_OK);
	assert_int_equal(u16, 0x0c0b);
	expect_fail(colfs_cursor_u8(&s, (uint8_t *)&u16, &err),
		    COLFS_ETRUNCATED, &s, 2, &err, BASE + 12);

	assert_int_equal(colfs_cursor_slice(&c, 12, 0, &s, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_slice(&c, 11, 2, &s, &err),
			 COLFS_EBOUNDS);
	assert_int_equal(err.status, COLFS_EBOUNDS);
	assert_int_equal(colfs_cursor_slice(&c, 13, 0, &s, &err),
			 COLFS_EBOUNDS);
	/* start + len would wrap around. */
	assert_int_equal(colfs_cursor_slice(&c, 4, SIZE_MAX - 2, &s, &err),
			 COLFS_EBOUNDS);
	assert_int_equal(colfs_cursor_slice(&c, SIZE_MAX, 1, &s, &err),
			 COLFS_EBOUNDS);
}

/* A virtual window (decoded bytes) reports the region's offset for every
 * position, and so do its children. */
static void test_virtual_offsets(void **state)
{
	(void)state;
	colfs_cursor c, child, s;
	colfs_err err;
	uint32_t u32;
	uint64_t v;
	const uint64_t region = 0x123456789ull;

	colfs_cursor_init_virtual(&c, bytes16, 16, region);
	assert_true(c.virtual_base);
	assert_true(colfs_cursor_offset(&c) == region);
	assert_int_equal(colfs_cursor_skip(&c, 14, &err), COLFS_OK);
	assert_true(colfs_cursor_offset(&c) == region);
	expect_fail(colfs_cursor_u32le(&c, &u32, &err), COLFS_ETRUNCATED, &c,
		    14, &err, region);

	assert_int_equal(colfs_cursor_seek(&c, 2, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_sub(&c, 4, &child, &err), COLFS_OK);
	assert_true(child.virtual_base);
	assert_true(colfs_cursor_offset(&child) == region);
	assert_int_equal(colfs_cursor_skip(&child, 4, &err), COLFS_OK);
	expect_fail(colfs_cursor_u8(&child, (uint8_t *)&u32, &err),
		    COLFS_ETRUNCATED, &child, 4, &err, region);
	expect_fail(colfs_cursor_sub(&c, 11, &child, &err), COLFS_ETRUNCATED,
		    &c, 6, &err, region);

	assert_int_equal(colfs_cursor_slice(&c, 8, 8, &s, &err), COLFS_OK);
	assert_true(s.virtual_base);
	assert_true(colfs_cursor_offset(&s) == region);
	assert_int_equal(colfs_cursor_slice(&c, 8, 9, &s, &err),
			 COLFS_EBOUNDS);
	assert_true(err.offset == region);
	assert_int_equal(colfs_cursor_seek(&c, 17, &err), COLFS_EBOUNDS);
	assert_true(err.offset == region);

	/* A truncated varint in a virtual window. */
	static const uint8_t cut[] = {0x80, 0x80};
	colfs_cursor_init_virtual(&c, cut, 2, region);
	assert_int_equal(colfs_cursor_uvarint(&c, &v, &err), COLFS_ETRUNCATED);
	assert_true(err.offset == region);
}

static colfs_status uvarint_of(const uint8_t *p, size_t n, uint64_t *v,
			       size_t *used, colfs_err *err)
{
	colfs_cursor c;
	colfs_cursor_init(&c, p, n, BASE);
	colfs_status st = colfs_cursor_uvarint(&c, v, err);
	*used = c.pos;
	return st;
}

static void test_uvarint(void **state)
{
	(void)state;
	struct {
		uint8_t in[10];
		size_t len;
		uint64_t want;
	} ok[] = {
		{{0x00}, 1, 0},
		{{0x01}, 1, 1},
		{{0x7f}, 1, 127},
		{{0x80, 0x01}, 2, 128},
		{{0xac, 0x02}, 2, 300},
		{{0xff, 0xff, 0xff, 0xff, 0x0f}, 5, 0xffffffffull},
		{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, 9,
		 0x7fffffffffffffffull},
		{{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
		 10, 0x8000000000000000ull},
		{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		 10, UINT64_MAX},
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		uint8_t buf[12];
		memcpy(buf, ok[i].in, ok[i].len);
		buf[ok[i].len] = 0xee; /* the next field, not read */
		uint64_t v;
		size_t used;
		colfs_err err;
		assert_int_equal(uvarint_of(buf, ok[i].len + 1, &v, &used,
					    &err),
				 COLFS_OK);
		assert_true(v == ok[i].want);
		assert_int_equal(used, ok[i].len);
	}
}

static void test_uvarint_bad(void **state)
{
	(void)state;
	uint64_t v;
	size_t used;
	colfs_err err;

	/* Tenth byte carrying bits above 2^63. */
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x02};
	assert_int_equal(uvarint_of(over, sizeof over, &v, &used, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(err.offset, BASE);
	static const uint8_t over7f[] = {0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x7f};
	assert_int_equal(uvarint_of(over7f, sizeof over7f, &v, &used, &err),
			 COLFS_ECORRUPT);

	/* Eleven bytes: the tenth still says "more". */
	static const uint8_t eleven[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x81, 0x00};
	assert_int_equal(uvarint_of(eleven, sizeof eleven, &v, &used, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(err.offset, BASE);
	static const uint8_t eleven0[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x00};
	assert_int_equal(uvarint_of(eleven0, sizeof eleven0, &v, &used, &err),
			 COLFS_ECORRUPT);

	/* Runs off the end of its window (the memory has more). */
	static const uint8_t cut[] = {0x80, 0x80, 0x80, 0x01};
	assert_int_equal(uvarint_of(cut, 3, &v, &used, &err),
			 COLFS_ETRUNCATED);
	assert_int_equal(err.status, COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE);
	assert_int_equal(uvarint_of(cut, 0, &v, &used, &err),
			 COLFS_ETRUNCATED);

	/* At an offset inside the window the error names the varint's
	 * absolute start. */
	colfs_cursor c;
	colfs_cursor_init(&c, cut, 3, BASE);
	assert_int_equal(colfs_cursor_skip(&c, 1, &err), COLFS_OK);
	assert_int_equal(colfs_cursor_uvarint(&c, &v, &err), COLFS_ETRUNCATED);
	assert_int_equal(err.offset, BASE + 1);
}

static void test_svarint(void **state)
{
	(void)state;
	struct {
		uint8_t in[10];
		size_t len;
		int64_t want;
	} cases[] = {
		{{0x00}, 1, 0},
		{{0x01}, 1, -1},
		{{0x02}, 1, 1},
		{{0x03}, 1, -2},
		{{0x7f}, 1, -64},
		{{0x80, 0x01}, 2, 64},
		{{0xfe, 0xff, 0xff, 0xff, 0x0f}, 5, INT32_MAX},
		{{0xff, 0xff, 0xff, 0xff, 0x0f}, 5, INT32_MIN},
		{{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		 10, INT64_MAX},
		{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		 10, INT64_MIN},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		colfs_cursor c;
		colfs_err err;
		int64_t v;
		colfs_cursor_init(&c, cases[i].in, cases[i].len, BASE);
		assert_int_equal(colfs_cursor_svarint(&c, &v, &err), COLFS_OK);
		assert_true(v == cases[i].want);
		assert_int_equal(colfs_cursor_left(&c), 0);
	}
	/* Failures pass through. */
	colfs_cursor c;
	colfs_err err;
	int64_t v;
	static const uint8_t cut[] = {0xff};
	colfs_cursor_init(&c, cut, 1, BASE);
	assert_int_equal(colfs_cursor_svarint(&c, &v, &err), COLFS_ETRUNCATED);
}

/* err may be NULL: the status alone still comes back. */
static void test_null_err(void **state)
{
	(void)state;
	colfs_cursor c;
	uint32_t u32;
	uint64_t v;
	colfs_cursor_init(&c, bytes16, 2, BASE);
	assert_int_equal(colfs_cursor_u32le(&c, &u32, NULL), COLFS_ETRUNCATED);
	assert_int_equal(colfs_cursor_seek(&c, 3, NULL), COLFS_EBOUNDS);
	static const uint8_t cut[] = {0x80};
	colfs_cursor_init(&c, cut, 1, BASE);
	assert_int_equal(colfs_cursor_uvarint(&c, &v, NULL), COLFS_ETRUNCATED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_and_offsets),
		cmocka_unit_test(test_fixed_width_values),
		cmocka_unit_test(test_reads_past_end),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_sub_fenced),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_virtual_offsets),
		cmocka_unit_test(test_uvarint),
		cmocka_unit_test(test_uvarint_bad),
		cmocka_unit_test(test_svarint),
		cmocka_unit_test(test_null_err),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* colfs tests: the Thrift compact-protocol decoder (formats/core/thrift.c)
 * and the typed PageHeader parser, on hand-built byte strings, including
 * malformed ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/thrift.h"
#include "parquet/parquet.h"

/* --- a tiny writer for hand-built messages ---------------------------------- */

typedef struct msg {
	uint8_t b[4096];
	size_t n;
} msg;

static void put(msg *m, uint8_t v)
{
	assert_true(m->n < sizeof m->b);
	m->b[m->n++] = v;
}

static void uvar(msg *m, uint64_t v)
{
	while (v >= 0x80) {
		put(m, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put(m, (uint8_t)v);
}

static void svar(msg *m, int64_t v)
{
	uvar(m, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* short-form field header (delta 1..15) */
static void field(msg *m, int delta, uint8_t type)
{
	put(m, (uint8_t)(delta << 4 | type));
}

static void binary(msg *m, const char *s)
{
	size_t n = strlen(s);
	uvar(m, n);
	memcpy(m->b + m->n, s, n);
	m->n += n;
}

/* Decode `len` bytes of `m` as a struct into JSON (with an exact-size
 * heap copy, so that ASan sees any read past the end). */
static colfs_status to_json(const uint8_t *p, size_t len,
			    const colfs_thrift_sdesc *d, json_t **out,
			    colfs_err *err, size_t *consumed)
{
	uint8_t *copy = malloc(len ? len : 1);
	colfs_cursor c;
	colfs_thrift r;
	colfs_status st;

	assert_non_null(copy);
	memcpy(copy, p, len);
	colfs_cursor_init(&c, copy, len, 1000);
	colfs_thrift_init(&r, &c);
	*out = NULL;
	st = colfs_thrift_struct_json(&r, d, out, err);
	if (consumed)
		*consumed = c.pos;
	free(copy);
	return st;
}

/* A descriptor for the tests. */
static const char *const color_names[] = {"RED", "GREEN", "BLUE"};
static const colfs_thrift_fdesc inner_fields[] = {
	{1, "x", COLFS_THRIFT_I32, 0, NULL, NULL, 0},
};
static const colfs_thrift_sdesc inner_desc = {"Inner", inner_fields, 1};
static const colfs_thrift_fdesc outer_fields[] = {
	{1, "count", COLFS_THRIFT_I32, 0, NULL, NULL, 0},
	{2, "big", COLFS_THRIFT_I64, 0, NULL, NULL, 0},
	{3, "name", COLFS_THRIFT_BINARY, 0, NULL, NULL, 0},
	{4, "flag", COLFS_THRIFT_BOOL, 0, NULL, NULL, 0},
	{5, "ratio", COLFS_THRIFT_DOUBLE, 0, NULL, NULL, 0},
	{6, "inner", COLFS_THRIFT_STRUCT, 0, &inner_desc, NULL, 0},
	{7, "colors", COLFS_THRIFT_LIST, COLFS_THRIFT_I32, NULL, color_names, 3},
	{8, "flags", COLFS_THRIFT_LIST, COLFS_THRIFT_BOOL, NULL, NULL, 0},
	{300, "far", COLFS_THRIFT_I32, 0, NULL, NULL, 0},
};
static const colfs_thrift_sdesc outer_desc = {"Outer", outer_fields, 9};

/* A valid message using every construct. */
static void build_valid(msg *m)
{
	m->n = 0;
	field(m, 1, COLFS_THRIFT_I32);  svar(m, -42);          /* 1 count */
	field(m, 1, COLFS_THRIFT_I64);  svar(m, 1ll << 40);    /* 2 big */
	field(m, 1, COLFS_THRIFT_BINARY); binary(m, "héllo");  /* 3 name */
	field(m, 1, 1);                                        /* 4 flag=true */
	field(m, 1, COLFS_THRIFT_DOUBLE);                      /* 5 ratio */
	{
		double d = 0.5;
		uint64_t bits;
		memcpy(&bits, &d, 8);
		for (int i = 0; i < 8; i++)
			put(m, (uint8_t)(bits >> (8 * i)));
	}
	field(m, 1, COLFS_THRIFT_STRUCT);                      /* 6 inner */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 7);
	put(m, 0);
	field(m, 1, COLFS_THRIFT_LIST);                        /* 7 colors */
	put(m, 3 << 4 | COLFS_THRIFT_I32); svar(m, 0); svar(m, 2); svar(m, 9);
	field(m, 1, COLFS_THRIFT_LIST);                        /* 8 flags */
	put(m, 3 << 4 | 1); put(m, 1); put(m, 2); put(m, 0);
	field(m, 2, COLFS_THRIFT_MAP);                         /* 10 unknown map */
	uvar(m, 2); put(m, COLFS_THRIFT_BINARY << 4 | COLFS_THRIFT_I32);
	binary(m, "a"); svar(m, 1); binary(m, "b"); svar(m, 2);
	put(m, 0 << 4 | COLFS_THRIFT_I32); svar(m, 300); svar(m, 5); /* 300 far, long form */
	put(m, 0);                                             /* STOP */
}

static void test_valid_struct_json(void **state)
{
	msg m;
	json_t *j;
	colfs_err err;
	size_t used;

	(void)state;
	build_valid(&m);
	assert_int_equal(to_json(m.b, m.n, &outer_desc, &j, &err, &used),
			 COLFS_OK);
	assert_int_equal(used, m.n);
	assert_int_equal(json_integer_value(json_object_get(j, "count")), -42);
	assert_int_equal(json_integer_value(json_object_get(j, "big")),
			 1ll << 40);
	assert_string_equal(json_string_value(json_object_get(j, "name")),
			    "héllo");
	assert_true(json_is_true(json_object_get(j, "flag")));
	assert_true(json_real_value(json_object_get(j, "ratio")) == 0.5);
	assert_int_equal(json_integer_value(json_object_get(
			 json_object_get(j, "inner"), "x")), 7);
	{
		json_t *c = json_object_get(j, "colors");
		assert_int_equal(json_array_size(c), 3);
		assert_string_equal(json_string_value(json_array_get(c, 0)),
				    "RED");
		assert_string_equal(json_string_value(json_array_get(c, 1)),
				    "BLUE");
		/* out of the enum's range: the number */
		assert_int_equal(json_integer_value(json_array_get(c, 2)), 9);
	}
	{
		json_t *f = json_object_get(j, "flags");
		assert_int_equal(json_array_size(f), 3);
		assert_true(json_is_true(json_array_get(f, 0)));
		assert_true(json_is_false(json_array_get(f, 1)));
		assert_true(json_is_false(json_array_get(f, 2)));
	}
	/* unknown field kept under field_<id> with its value */
	{
		json_t *u = json_object_get(j, "field_10");
		assert_int_equal(json_array_size(u), 2);
		assert_string_equal(json_string_value(json_object_get(
				    json_array_get(u, 1), "key")), "b");
	}
	assert_int_equal(json_integer_value(json_object_get(j, "far")), 5);
	json_decref(j);
}

/* Truncation at every byte must fail cleanly with an offset inside. */
static void test_truncation_every_byte(void **state)
{
	msg m;
	(void)state;
	build_valid(&m);
	for (size_t len = 0; len < m.n; len++) {
		json_t *j;
		colfs_err err = {0};
		colfs_status st = to_json(m.b, len, &outer_desc, &j, &err,
					  NULL);
		assert_int_not_equal(st, COLFS_OK);
		assert_null(j);
		assert_true(err.offset >= 1000 && err.offset <= 1000 + len);
		/* the generic skipper fails the same way */
		{
			uint8_t *copy = malloc(len ? len : 1);
			colfs_cursor c;
			colfs_thrift r;
			memcpy(copy, m.b, len);
			colfs_cursor_init(&c, copy, len, 1000);
			colfs_thrift_init(&r, &c);
			assert_int_not_equal(colfs_thrift_skip_struct(&r, &err),
					     COLFS_OK);
			free(copy);
		}
	}
}

static void test_skip_consumes_exactly(void **state)
{
	msg m;
	colfs_cursor c;
	colfs_thrift r;
	colfs_err err;

	(void)state;
	build_valid(&m);
	put(&m, 0xAA); /* trailing byte after the struct */
	colfs_cursor_init(&c, m.b, m.n, 0);
	colfs_thrift_init(&r, &c);
	assert_int_equal(colfs_thrift_skip_struct(&r, &err), COLFS_OK);
	assert_int_equal(c.pos, m.n - 1);
	assert_int_equal(r.depth, 0);
}

static void test_delta_zero_vs_stop(void **state)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_err err;
	int16_t last = 0;
	/* 0x00 is STOP */
	static const uint8_t stop[] = {0x00};
	/* delta 0, type i32: the id follows as zigzag varint (id 2 -> 4),
	 * then the value 3 (-> 6) */
	static const uint8_t longform[] = {0x05, 0x04, 0x06, 0x00};
	/* type nibble 0 with a delta: not STOP, not a type */
	static const uint8_t bad_type[] = {0x10};
	/* type 14 does not exist */
	static const uint8_t bad_type2[] = {0x1e};
	/* long-form id out of i16 range */
	static const uint8_t big_id[] = {0x05, 0x80, 0x80, 0x04, 0x00};

	(void)state;
	colfs_cursor_init(&c, stop, sizeof stop, 0);
	colfs_thrift_init(&r, &c);
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_END);

	colfs_cursor_init(&c, longform, sizeof longform, 0);
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_OK);
	assert_int_equal(f.id, 2);
	assert_int_equal(f.type, COLFS_THRIFT_I32);
	{
		int32_t v;
		assert_int_equal(colfs_thrift_read_i32(&r, f.type, &v, &err),
				 COLFS_OK);
		assert_int_equal(v, 3);
	}
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_END);

	colfs_cursor_init(&c, bad_type, sizeof bad_type, 500);
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(err.offset, 500);
	colfs_cursor_init(&c, bad_type2, sizeof bad_type2, 0);
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_ECORRUPT);
	colfs_cursor_init(&c, big_id, sizeof big_id, 0);
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_ECORRUPT);
}

static void test_delta_accumulates(void **state)
{
	/* ids 1, 16 (delta 15), 17, then long form 5, then delta 1 -> 6 */
	static const uint8_t b[] = {0x15, 0x00, 0xf5, 0x00, 0x15, 0x00,
				    0x05, 0x0a, 0x00, 0x15, 0x00, 0x00};
	static const int ids[] = {1, 16, 17, 5, 6};
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_err err;
	int16_t last = 0;

	(void)state;
	colfs_cursor_init(&c, b, sizeof b, 0);
	colfs_thrift_init(&r, &c);
	for (int i = 0; i < 5; i++) {
		int64_t v;
		assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
				 COLFS_OK);
		assert_int_equal(f.id, ids[i]);
		assert_int_equal(colfs_thrift_read_int(&r, f.type, &v, &err),
				 COLFS_OK);
	}
	assert_int_equal(colfs_thrift_field_next(&r, &last, &f, &err),
			 COLFS_END);
}

static void test_huge_list_counts(void **state)
{
	msg m = {0};
	json_t *j;
	colfs_err err;

	(void)state;
	/* field 1: list, long-form size 2^32-1 of i32 */
	field(&m, 1, COLFS_THRIFT_LIST);
	put(&m, 0xf0 | COLFS_THRIFT_I32);
	uvar(&m, 0xffffffffu);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL),
			 COLFS_ECORRUPT);
	assert_int_equal(err.offset, 1001); /* the list header */

	/* 5 doubles need 40 bytes; only 8 present */
	m.n = 0;
	field(&m, 1, COLFS_THRIFT_LIST);
	put(&m, 5 << 4 | COLFS_THRIFT_DOUBLE);
	for (int i = 0; i < 8; i++)
		put(&m, 0);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL),
			 COLFS_ECORRUPT);

	/* a map whose count exceeds the bytes */
	m.n = 0;
	field(&m, 1, COLFS_THRIFT_MAP);
	uvar(&m, 1000000);
	put(&m, COLFS_THRIFT_I32 << 4 | COLFS_THRIFT_I32);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL),
			 COLFS_ECORRUPT);

	/* a binary longer than what is left */
	m.n = 0;
	field(&m, 1, COLFS_THRIFT_BINARY);
	uvar(&m, 1u << 30);
	put(&m, 'x');
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL),
			 COLFS_ETRUNCATED);
}

static void test_bool_lists(void **state)
{
	msg m = {0};
	json_t *j;
	colfs_err err;

	(void)state;
	/* both element type codes (1 and 2) mean bool; one byte each */
	field(&m, 8, COLFS_THRIFT_LIST);
	put(&m, 2 << 4 | 2);
	put(&m, 1);
	put(&m, 2);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, &outer_desc, &j, &err, NULL),
			 COLFS_OK);
	assert_true(json_is_true(json_array_get(json_object_get(j, "flags"),
						0)));
	assert_true(json_is_false(json_array_get(json_object_get(j, "flags"),
						 1)));
	json_decref(j);
	/* an element byte other than 0, 1, 2 is corrupt */
	m.n = 0;
	field(&m, 8, COLFS_THRIFT_LIST);
	put(&m, 1 << 4 | 1);
	put(&m, 7);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, &outer_desc, &j, &err, NULL),
			 COLFS_ECORRUPT);
	/* 3 bools announced, 2 bytes left: refused by the count check */
	m.n = 0;
	field(&m, 8, COLFS_THRIFT_LIST);
	put(&m, 3 << 4 | 1);
	put(&m, 1);
	put(&m, 1);
	assert_int_not_equal(to_json(m.b, m.n, &outer_desc, &j, &err, NULL),
			     COLFS_OK);
}

static void test_deep_nesting(void **state)
{
	msg m = {0};
	json_t *j;
	colfs_err err;
	colfs_cursor c;
	colfs_thrift r;

	(void)state;
	for (int i = 0; i < 100; i++)
		field(&m, 1, COLFS_THRIFT_STRUCT);
	for (int i = 0; i < 101; i++)
		put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL),
			 COLFS_EOVERFLOW);
	colfs_cursor_init(&c, m.b, m.n, 0);
	colfs_thrift_init(&r, &c);
	assert_int_equal(colfs_thrift_skip_struct(&r, &err), COLFS_EOVERFLOW);

	/* lists of lists nest too */
	m.n = 0;
	field(&m, 1, COLFS_THRIFT_LIST);
	for (int i = 0; i < 100; i++)
		put(&m, 1 << 4 | COLFS_THRIFT_LIST);
	put(&m, 0 << 4 | COLFS_THRIFT_I32);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL),
			 COLFS_EOVERFLOW);

	/* 40 levels are fine */
	m.n = 0;
	for (int i = 0; i < 40; i++)
		field(&m, 1, COLFS_THRIFT_STRUCT);
	for (int i = 0; i < 41; i++)
		put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, NULL, &j, &err, NULL), COLFS_OK);
	json_decref(j);
}

static void test_int_ranges(void **state)
{
	msg m = {0};
	json_t *j;
	colfs_err err;

	(void)state;
	field(&m, 1, COLFS_THRIFT_I32);
	svar(&m, 1ll << 31);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, &outer_desc, &j, &err, NULL),
			 COLFS_ECORRUPT);
	/* a varint longer than 10 bytes */
	m.n = 0;
	field(&m, 2, COLFS_THRIFT_I64);
	for (int i = 0; i < 11; i++)
		put(&m, 0xff);
	put(&m, 0);
	put(&m, 0);
	assert_int_equal(to_json(m.b, m.n, &outer_desc, &j, &err, NULL),
			 COLFS_ECORRUPT);
}

static void test_binary_rendering(void **state)
{
	json_t *j;
	static const uint8_t bin[] = {0x00, 0xff, 0x10};
	static const uint8_t bad_utf8[] = {'a', 0xc3};

	(void)state;
	j = colfs_thrift_binary_json((const uint8_t *)"plain text", 10);
	assert_string_equal(json_string_value(j), "plain text");
	json_decref(j);
	j = colfs_thrift_binary_json(bin, sizeof bin);
	assert_string_equal(json_string_value(json_object_get(j, "hex")),
			    "00ff10");
	json_decref(j);
	j = colfs_thrift_binary_json(bad_utf8, sizeof bad_utf8);
	assert_string_equal(json_string_value(json_object_get(j, "hex")),
			    "61c3");
	json_decref(j);
	assert_false(colfs_thrift_text_ok((const uint8_t *)"\xed\xa0\x80", 3));
	assert_true(colfs_thrift_text_ok((const uint8_t *)"tab\tok", 6));
}

static void test_unknown_fields_typed_skip(void **state)
{
	/* an unknown struct field between two known ones is skipped whole */
	msg m = {0};
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_err err;
	int16_t last;
	int32_t a = 0, b = 0;

	(void)state;
	field(&m, 1, COLFS_THRIFT_I32);
	svar(&m, 11);
	put(&m, 0 << 4 | COLFS_THRIFT_STRUCT); /* id 99, long form */
	svar(&m, 99);
	field(&m, 1, COLFS_THRIFT_LIST);
	put(&m, 2 << 4 | COLFS_THRIFT_BINARY);
	binary(&m, "x");
	binary(&m, "yz");
	field(&m, 1, COLFS_THRIFT_DOUBLE);
	for (int i = 0; i < 8; i++)
		put(&m, 0);
	put(&m, 0);
	put(&m, 0 << 4 | COLFS_THRIFT_I32);
	svar(&m, 2);
	svar(&m, 22);
	put(&m, 0);
	colfs_cursor_init(&c, m.b, m.n, 0);
	colfs_thrift_init(&r, &c);
	assert_int_equal(colfs_thrift_struct_enter(&r, &last, &err), COLFS_OK);
	while (colfs_thrift_field_next(&r, &last, &f, &err) == COLFS_OK) {
		if (f.id == 1)
			assert_int_equal(colfs_thrift_read_i32(&r, f.type, &a,
							       &err), COLFS_OK);
		else if (f.id == 2)
			assert_int_equal(colfs_thrift_read_i32(&r, f.type, &b,
							       &err), COLFS_OK);
		else
			assert_int_equal(colfs_thrift_skip(&r, f.type, &err),
					 COLFS_OK);
	}
	assert_int_equal(a, 11);
	assert_int_equal(b, 22);
	assert_int_equal(c.pos, m.n);
}

/* A PageHeader: DATA_PAGE_V2 with every field. */
static void build_page_header_sized(msg *m, int compressed)
{
	m->n = 0;
	field(m, 1, COLFS_THRIFT_I32); svar(m, PARQUET_PAGE_DATA_V2);
	field(m, 1, COLFS_THRIFT_I32); svar(m, 100);   /* uncompressed */
	field(m, 1, COLFS_THRIFT_I32); svar(m, compressed);
	field(m, 1, COLFS_THRIFT_I32); svar(m, -5);    /* crc */
	field(m, 4, COLFS_THRIFT_STRUCT);              /* 8: v2 header */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 10);    /* num_values */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 2);     /* num_nulls */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 10);    /* num_rows */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 0);     /* encoding */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 6);     /* def len */
	field(m, 1, COLFS_THRIFT_I32); svar(m, 4);     /* rep len */
	field(m, 1, 2);                                /* is_compressed false */
	field(m, 1, COLFS_THRIFT_STRUCT);              /* statistics */
	field(m, 3, COLFS_THRIFT_I64); svar(m, 2);
	put(m, 0);
	put(m, 0);
	put(m, 0);
}

static void build_page_header(msg *m)
{
	build_page_header_sized(m, 80);
}

static void test_page_header(void **state)
{
	msg m;
	colfs_cursor c;
	parquet_page_header h;
	colfs_err err;

	(void)state;
	build_page_header(&m);
	put(&m, 0x99); /* first data byte */
	colfs_cursor_init(&c, m.b, m.n, 4);
	assert_int_equal(parquet_pages_header_parse(&c, &h, &err), COLFS_OK);
	assert_int_equal(h.type, PARQUET_PAGE_DATA_V2);
	assert_int_equal(h.uncompressed_size, 100);
	assert_int_equal(h.compressed_size, 80);
	assert_true(h.has_crc);
	assert_int_equal(h.crc, (uint32_t)-5);
	assert_true(h.has_data_v2);
	assert_int_equal(h.num_values, 10);
	assert_int_equal(h.num_nulls, 2);
	assert_int_equal(h.num_rows, 10);
	assert_int_equal(h.def_levels_len, 6);
	assert_int_equal(h.rep_levels_len, 4);
	assert_false(h.is_compressed);
	assert_true(h.has_statistics);
	assert_int_equal(h.header_len, m.n - 1);
	assert_int_equal(c.pos, m.n - 1);
	/* JSON view of the same bytes */
	build_page_header(&m);
	for (size_t len = 0; len < m.n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, m.b, len);
		colfs_cursor_init(&c, copy, len, 4);
		assert_int_not_equal(parquet_pages_header_parse(&c, &h, &err),
				     COLFS_OK);
		assert_true(err.offset >= 4 && err.offset <= 4 + len);
		free(copy);
	}
}

static void test_page_header_invalid(void **state)
{
	msg m = {0};
	colfs_cursor c;
	parquet_page_header h;
	colfs_err err;

	(void)state;
	/* DATA_PAGE without its data_page_header */
	field(&m, 1, COLFS_THRIFT_I32); svar(&m, PARQUET_PAGE_DATA);
	field(&m, 1, COLFS_THRIFT_I32); svar(&m, 1);
	field(&m, 1, COLFS_THRIFT_I32); svar(&m, 1);
	put(&m, 0);
	colfs_cursor_init(&c, m.b, m.n, 0);
	assert_int_equal(parquet_pages_header_parse(&c, &h, &err),
			 COLFS_ECORRUPT);
	/* negative compressed size */
	m.n = 0;
	field(&m, 1, COLFS_THRIFT_I32); svar(&m, PARQUET_PAGE_INDEX);
	field(&m, 1, COLFS_THRIFT_I32); svar(&m, 1);
	field(&m, 1, COLFS_THRIFT_I32); svar(&m, -1);
	put(&m, 0);
	colfs_cursor_init(&c, m.b, m.n, 0);
	assert_int_equal(parquet_pages_header_parse(&c, &h, &err),
			 COLFS_ECORRUPT);
	/* v2 level lengths larger than the page */
	build_page_header_sized(&m, 9);
	colfs_cursor_init(&c, m.b, m.n, 0);
	assert_int_equal(parquet_pages_header_parse(&c, &h, &err),
			 COLFS_ECORRUPT);
	assert_non_null(strstr(err.msg, "level lengths"));
	build_page_header_sized(&m, 10);
	colfs_cursor_init(&c, m.b, m.n, 0);
	assert_int_equal(parquet_pages_header_parse(&c, &h, &err), COLFS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_struct_json),
		cmocka_unit_test(test_truncation_every_byte),
		cmocka_unit_test(test_skip_consumes_exactly),
		cmocka_unit_test(test_delta_zero_vs_stop),
		cmocka_unit_test(test_delta_accumulates),
		cmocka_unit_test(test_huge_list_counts),
		cmocka_unit_test(test_bool_lists),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_int_ranges),
		cmocka_unit_test(test_binary_rendering),
		cmocka_unit_test(test_unknown_fields_typed_skip),
		cmocka_unit_test(test_page_header),
		cmocka_unit_test(test_page_header_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

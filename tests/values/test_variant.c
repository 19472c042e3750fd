/* tests/values: the Variant binary decoder (formats/parquet/decode/
 * pq_variant.c).  Byte strings are written here from parquet-format
 * VariantEncoding.md: every primitive type, short and long strings,
 * objects and arrays (with 1..4 byte ids and offsets, small and large
 * counts, values stored out of key order), and malformed inputs that must
 * fail with the right status (never crash, never read outside the
 * bytes: every input is copied to a heap buffer of exactly its size, so
 * ASan sees any over-read). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parquet/decode/pq_variant.h"

/* metadata: version 1, 1-byte offsets, keys "a", "b", "c", "d", "e" */
static const uint8_t META5[] = {0x11, 5, 0, 1, 2, 3, 4, 5,
				'a', 'b', 'c', 'd', 'e'};
static const uint8_t META0[] = {0x01, 0, 0};

/* Decode value v with metadata m; returns the status, *json the text
 * (malloc'd, NUL-terminated) on success. */
static colfs_status decode(const uint8_t *m, size_t mn, const uint8_t *v,
			   size_t vn, char **json, colfs_err *err)
{
	uint8_t *mc = malloc(mn ? mn : 1), *vc = malloc(vn ? vn : 1);
	pq_variant_meta meta;
	colfs_buf out = {0};
	colfs_status st;

	assert_non_null(mc);
	assert_non_null(vc);
	memcpy(mc, m, mn);
	memcpy(vc, v, vn);
	memset(err, 0, sizeof *err);
	st = pq_variant_meta_parse(mc, mn, &meta, err);
	if (!st)
		st = pq_variant_to_json(&meta, vc, vn, &out, err);
	if (json) {
		colfs_buf_putc(&out, 0);
		*json = st ? NULL : strdup(out.data);
	}
	colfs_buf_free(&out);
	free(mc);
	free(vc);
	return st;
}

static void expect_json(const uint8_t *m, size_t mn, const uint8_t *v,
			size_t vn, const char *want)
{
	colfs_err err;
	char *got = NULL;
	colfs_status st = decode(m, mn, v, vn, &got, &err);

	if (st)
		fail_msg("want %s, got status %d: %s", want, st, err.msg);
	if (strcmp(got, want) != 0)
		fail_msg("want %s, got %s", want, got);
	free(got);
}

static void expect_fail(const uint8_t *m, size_t mn, const uint8_t *v,
			size_t vn, colfs_status want, const char *msg_part)
{
	colfs_err err;
	char *got = NULL;
	colfs_status st = decode(m, mn, v, vn, &got, &err);

	if (st != want)
		fail_msg("want status %d (%s), got %d: %s / %s", want, msg_part,
			 st, err.msg, got ? got : "");
	if (msg_part && !strstr(err.msg, msg_part))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg_part);
	assert_int_equal(err.status, want);
}

#define J(v, want) do { static const uint8_t b_[] = v; \
	expect_json(META0, sizeof META0, b_, sizeof b_, want); } while (0)
#define BYTES(...) {__VA_ARGS__}

static void test_primitives(void **state)
{
	(void)state;
	J(BYTES(0x00), "null");
	J(BYTES(0x04), "true");
	J(BYTES(0x08), "false");
	J(BYTES(0x0C, 0xDE), "-34");                        /* int8 */
	J(BYTES(0x10, 0xD2, 0x04), "1234");                 /* int16 */
	J(BYTES(0x14, 0xC7, 0xCF, 0xFF, 0xFF), "-12345");   /* int32 */
	J(BYTES(0x18, 0xEA, 0x16, 0xB0, 0x4C, 0x02, 0, 0, 0), "9876543210");
	J(BYTES(0x18, 0, 0, 0, 0, 0, 0, 0, 0x80), "-9223372036854775808");
	J(BYTES(0x1C, 0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0x2c, 0x40), "14.3");
	J(BYTES(0x1C, 0, 0, 0, 0, 0, 0, 0xF0, 0x7F), "\"inf\"");
	J(BYTES(0x38, 0x8f, 0xc2, 0x21, 0xc1), "-10.11");     /* float */
	J(BYTES(0x38, 0, 0, 0, 0x80), "-0.0");
	/* decimal4 scale 4, 123456789 */
	J(BYTES(0x20, 4, 0x15, 0xCD, 0x5B, 0x07), "12345.6789");
	/* decimal8 scale 9, -123456789987654321 */
	J(BYTES(0x24, 9, 0x4F, 0x05, 0xAD, 0x1F, 0xB4, 0x64, 0x49, 0xFE),
	  "-123456789.987654321");
	/* decimal16 scale 2, -1 */
	J(BYTES(0x28, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF), "-0.01");
	/* decimal16 scale 0, 2^64 */
	J(BYTES(0x28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
	  "18446744073709551616");
	J(BYTES(0x2C, 0x42, 0x4E, 0, 0), "\"2024-11-07\"");   /* date 20034 */
	J(BYTES(0x2C, 0xFF, 0xFF, 0xFF, 0xFF), "\"1969-12-31\"");
	/* timestamp (UTC) and ntz micros: 1 s + 5 us */
	J(BYTES(0x30, 0x45, 0x42, 0x0F, 0, 0, 0, 0, 0),
	  "\"1970-01-01 00:00:01.000005+00\"");
	J(BYTES(0x34, 0x45, 0x42, 0x0F, 0, 0, 0, 0, 0),
	  "\"1970-01-01 00:00:01.000005\"");
	/* timestamp nanos, with and without UTC: -1 ns */
	J(BYTES(0x48, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF),
	  "\"1969-12-31 23:59:59.999999999+00\"");
	J(BYTES(0x4C, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF),
	  "\"1969-12-31 23:59:59.999999999\"");
	/* time micros: 12:33:54.123456 = 45234123456 us */
	J(BYTES(0x44, 0xC0, 0xF2, 0x29, 0x88, 0x0A, 0, 0, 0),
	  "\"12:33:54.123456\"");
	/* binary, string (long form), short string */
	J(BYTES(0x3C, 3, 0, 0, 0, 0x0A, 'A', 0xFF), "\"\\\\x0AA\\\\xFF\"");
	J(BYTES(0x40, 4, 0, 0, 0, 'a', '"', '\n', 'b'), "\"a\\\"\\nb\"");
	J(BYTES(0x40, 0, 0, 0, 0), "\"\"");
	J(BYTES(0x0D, 'i', 'c', 'e'), "\"ice\"");
	J(BYTES(0x01), "\"\"");
	/* uuid */
	J(BYTES(0x50, 0xf2, 0x4f, 0x9b, 0x64, 0x81, 0xfa, 0x49, 0xd1, 0xb7,
		0x4e, 0x8c, 0x09, 0xa6, 0xe3, 0x1c, 0x56),
	  "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\"");
}

static void test_nested(void **state)
{
	(void)state;
	/* {"a": 1, "d": "x"}: values stored d first (offsets out of order) */
	static const uint8_t obj[] = {0x02, 2, 0, 3, 2, 0, 4,
				      0x05, 'x', 0x0C, 1};
	expect_json(META5, sizeof META5, obj, sizeof obj,
		    "{\"a\":1,\"d\":\"x\"}");
	/* the same with 2-byte ids, 4-byte offsets, a 4-byte count:
	 * header (is_large << 4 | id_size-1 << 2 | off_size-1) << 2 | 2 */
	static const uint8_t big[] = {((1 << 4 | 1 << 2 | 3) << 2) | 2,
				      2, 0, 0, 0, 0, 0, 3, 0,
				      2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0,
				      0x05, 'x', 0x0C, 1};
	expect_json(META5, sizeof META5, big, sizeof big,
		    "{\"a\":1,\"d\":\"x\"}");
	/* [true, [], {}, null] */
	static const uint8_t arr[] = {0x03, 4, 0, 1, 4, 7, 8,
				      0x04, 0x03, 0, 0, 0x02, 0, 0, 0x00};
	expect_json(META0, sizeof META0, arr, sizeof arr,
		    "[true,[],{},null]");
	/* a large array header with 2-byte offsets: [1] */
	static const uint8_t larr[] = {((1 << 2 | 1) << 2) | 3, 1, 0, 0, 0,
				       0, 0, 2, 0, 0x0C, 1};
	expect_json(META0, sizeof META0, larr, sizeof larr, "[1]");
	/* {"b": [{"c": -1}]} */
	static const uint8_t deep[] = {0x02, 1, 1, 0, 11,
				       0x03, 1, 0, 7,
				       0x02, 1, 2, 0, 2, 0x0C, 0xFF};
	expect_json(META5, sizeof META5, deep, sizeof deep,
		    "{\"b\":[{\"c\":-1}]}");
	/* metadata with 2-byte offsets and keys needing escapes */
	static const uint8_t m2[] = {0x41, 2, 0, 0, 0, 2, 0, 3, 0,
				     'k', '"', 0xFF};
	static const uint8_t o2[] = {0x02, 2, 0, 1, 0, 1, 2, 0x00, 0x04};
	expect_json(m2, sizeof m2, o2, sizeof o2,
		    "{\"k\\\"\":null,\"\\\\xFF\":true}");
}

static void test_object_fields(void **state)
{
	static const uint8_t obj[] = {0x02, 2, 0, 3, 2, 0, 4,
				      0x05, 'x', 0x0C, 1};
	pq_variant_meta m;
	pq_variant_object o;
	colfs_err err = {0};
	const uint8_t *k, *v;
	size_t kn, vn;

	(void)state;
	assert_int_equal(pq_variant_meta_parse(META5, sizeof META5, &m, &err),
			 COLFS_OK);
	assert_true(pq_variant_is_object(obj, sizeof obj));
	assert_int_equal(pq_variant_object_open(obj, sizeof obj, &o, &err),
			 COLFS_OK);
	assert_int_equal(o.n, 2);
	assert_int_equal(pq_variant_object_field(&o, &m, 1, &k, &kn, &v, &vn,
						 &err), COLFS_OK);
	assert_int_equal(kn, 1);
	assert_int_equal(k[0], 'd');
	assert_int_equal(vn, 2);
	assert_int_equal(v[0], 0x05);
	assert_int_equal(pq_variant_object_field(&o, &m, 2, &k, &kn, &v, &vn,
						 &err), COLFS_ECORRUPT);
	static const uint8_t s[] = {0x05, 'x'};
	assert_false(pq_variant_is_object(s, sizeof s));
	assert_int_equal(pq_variant_object_open(s, sizeof s, &o, &err),
			 COLFS_ECORRUPT);
	static const uint8_t null1[] = {0};
	assert_true(pq_variant_is_null(null1, 1));
	assert_false(pq_variant_is_null(s, sizeof s));
}

#define F(v, st, part) do { static const uint8_t b_[] = v; \
	expect_fail(META5, sizeof META5, b_, sizeof b_, st, part); } while (0)

static void test_malformed_values(void **state)
{
	(void)state;
	expect_fail(META0, sizeof META0, (const uint8_t *)"", 0,
		    COLFS_ECORRUPT, "no bytes left");
	F(BYTES(0x18, 1, 2, 3), COLFS_ECORRUPT, "needs 8 bytes");
	F(BYTES(0x54), COLFS_EUNSUPPORTED, "primitive type 21");
	F(BYTES(0xFC), COLFS_EUNSUPPORTED, "primitive type 63");
	F(BYTES(0x40, 5, 0, 0, 0, 'a'), COLFS_ECORRUPT, "5 bytes of data");
	F(BYTES(0x40, 0xFF, 0xFF, 0xFF, 0xFF), COLFS_ECORRUPT,
	  "4294967295 bytes");
	F(BYTES(0x3C, 1, 0), COLFS_ECORRUPT, "inside its length");
	F(BYTES(0x0D, 'a'), COLFS_ECORRUPT, "short string of 3 bytes");
	F(BYTES(0x0C, 1, 0), COLFS_ECORRUPT, "a value of 2 bytes in a slot of 3");
	F(BYTES(0x20, 39, 0, 0, 0, 0), COLFS_ECORRUPT, "scale 39");
	/* object: count beyond the bytes, huge large count */
	F(BYTES(0x02, 9, 0, 0), COLFS_ECORRUPT, "9 elements");
	F(BYTES(0x42, 0xFF, 0xFF, 0xFF, 0xFF, 0), COLFS_ECORRUPT,
	  "4294967295 elements");
	F(BYTES(0x02), COLFS_ECORRUPT, "inside its element count");
	/* fields end beyond the bytes */
	F(BYTES(0x02, 1, 0, 0, 9, 0x00), COLFS_ECORRUPT, "fields end at 9");
	/* a field offset at the end of the fields */
	F(BYTES(0x02, 1, 0, 1, 1, 0x00), COLFS_ECORRUPT, "element 0 at offset 1");
	/* a field id beyond the dictionary */
	F(BYTES(0x02, 1, 7, 0, 1, 0x00), COLFS_ECORRUPT, "field id 7");
	/* a field value longer than the fields */
	F(BYTES(0x02, 1, 0, 0, 1, 0x0C), COLFS_ECORRUPT, "needs 1 bytes");
	/* array elements: a value cut by the end of the fields */
	F(BYTES(0x03, 2, 0, 1, 2, 0x04, 0x0D), COLFS_ECORRUPT,
	  "short string of 3 bytes");
	/* trailing bytes after a whole value */
	F(BYTES(0x03, 0, 0, 0xAA), COLFS_ECORRUPT, "a value of 3 bytes in a slot of 4");
}

static void test_depth(void **state)
{
	/* PQ_VARIANT_MAX_DEPTH + 1 nested one-element arrays with 4-byte
	 * offsets, around a null */
	const unsigned levels = PQ_VARIANT_MAX_DEPTH + 1;
	size_t n = (size_t)levels * 10 + 1, inner = 1;
	uint8_t *v = malloc(n);
	colfs_err err;

	(void)state;
	assert_non_null(v);
	v[n - 1] = 0x00;
	for (unsigned i = 0; i < levels; i++) {
		uint8_t *h = v + n - inner - 10;
		h[0] = (3 << 2) | 3;          /* array, 4-byte offsets */
		h[1] = 1;
		memset(h + 2, 0, 4);
		h[6] = (uint8_t)inner;
		h[7] = (uint8_t)(inner >> 8);
		h[8] = (uint8_t)(inner >> 16);
		h[9] = 0;
		inner += 10;
	}
	expect_fail(META0, sizeof META0, v, n, COLFS_ECORRUPT,
		    "nesting deeper than 128 levels");
	/* one level less is fine */
	char *got = NULL;
	assert_int_equal(decode(META0, sizeof META0, v + 10, n - 10, &got, &err),
			 COLFS_OK);
	assert_int_equal(strlen(got), 2 * PQ_VARIANT_MAX_DEPTH + 4);
	free(got);
	free(v);
}

/* Elements pointing at the same bytes: 8 levels of arrays of 200
 * elements, all at offset 0, would describe 200^8 values in ~1.6 KB;
 * the value budget stops it after as many values as bytes. */
static void test_shared_offsets(void **state)
{
	const unsigned levels = 8, k = 200;
	const size_t hdr = 2 + (size_t)(k + 1) * 2;   /* 2-byte offsets */
	size_t n = (size_t)levels * hdr + 1, inner = 1;
	uint8_t *v = malloc(n);

	(void)state;
	assert_non_null(v);
	v[n - 1] = 0x04;     /* true */
	for (unsigned l = 0; l < levels; l++) {
		uint8_t *h = v + n - inner - hdr;
		h[0] = (1 << 2) | 3;          /* array, 2-byte offsets */
		h[1] = (uint8_t)k;
		for (unsigned i = 0; i < k; i++) {
			h[2 + 2 * i] = 0;
			h[3 + 2 * i] = 0;
		}
		h[2 + 2 * k] = (uint8_t)inner;
		h[3 + 2 * k] = (uint8_t)(inner >> 8);
		inner += hdr;
	}
	expect_fail(META0, sizeof META0, v, n, COLFS_ECORRUPT,
		    "more values than bytes");
	free(v);
}

static void test_malformed_metadata(void **state)
{
	static const uint8_t v[] = {0x00};
	(void)state;
#define M(m, st, part) do { static const uint8_t m_[] = m; \
	expect_fail(m_, sizeof m_, v, sizeof v, st, part); } while (0)
	expect_fail((const uint8_t *)"", 0, v, 1, COLFS_ECORRUPT, "is empty");
	M(BYTES(0x02, 0, 0), COLFS_EUNSUPPORTED, "version 2");
	M(BYTES(0x01), COLFS_ECORRUPT, "dictionary size");
	M(BYTES(0xC1, 0xFF, 0xFF, 0xFF, 0xFF), COLFS_ECORRUPT,
	  "4294967295 keys");
	M(BYTES(0x01, 2, 0, 3, 1, 'a', 'b', 'c'), COLFS_ECORRUPT,
	  "key offset 2 is 1");
	M(BYTES(0x01, 1, 1, 1, 'a'), COLFS_ECORRUPT, "key offset 0 is 1");
	M(BYTES(0x01, 1, 0, 5, 'a'), COLFS_ECORRUPT, "key offset 1 is 5");
	M(BYTES(0x01, 1, 0, 1, 'a', 'b'), COLFS_ECORRUPT, "end at 1");
#undef M
}

/* Every prefix and every single-byte change of a valid nested value
 * either decodes or fails with a status: never a crash or an over-read
 * (run under ASan). */
static void test_mutations(void **state)
{
	static const uint8_t deep[] = {0x02, 2, 1, 3, 0, 16, 23,
				       0x03, 2, 0, 7, 11,
				       0x02, 1, 2, 0, 2, 0x0C, 0xFF,
				       0x0D, 'x', 'y', 'z',
				       0x40, 2, 0, 0, 0, 'h', 'i'};
	uint8_t *buf = malloc(sizeof deep);
	colfs_err err;
	char *got;

	(void)state;
	assert_non_null(buf);
	got = NULL;
	assert_int_equal(decode(META5, sizeof META5, deep, sizeof deep, &got,
				&err), COLFS_OK);
	assert_string_equal(got, "{\"b\":[{\"c\":-1},\"xyz\"],\"d\":\"hi\"}");
	free(got);
	for (size_t n = 0; n < sizeof deep; n++) {
		colfs_status st = decode(META5, sizeof META5, deep, n, NULL,
					 &err);
		assert_int_not_equal(st, COLFS_OK);
		assert_int_equal(err.status, st);
	}
	for (size_t i = 0; i < sizeof deep; i++)
		for (unsigned b = 0; b < 256; b++) {
			memcpy(buf, deep, sizeof deep);
			buf[i] = (uint8_t)b;
			got = NULL;
			colfs_status st = decode(META5, sizeof META5, buf,
						 sizeof deep, &got, &err);
			if (st)
				assert_int_equal(err.status, st);
			else
				assert_non_null(got);
			free(got);
		}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primitives),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_object_fields),
		cmocka_unit_test(test_malformed_values),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_shared_offsets),
		cmocka_unit_test(test_malformed_metadata),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* CRC-32 and CRC-32C: published check values, chaining at every split,
 * agreement with a plain bit-at-a-time CRC-32C for every length and
 * alignment up to a few words, and CRC-32C shifting (spans from prefix
 * registers, zero-byte shifts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/codec.h"

/* Bit-at-a-time reference, independent of the table code under test. */
static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return ~crc;
}

static void test_check_values(void **state)
{
	(void)state;
	const char *s = "123456789";
	assert_int_equal(colfs_crc32c(0, s, 9), 0xE3069283u);
	assert_int_equal(colfs_crc32(0, s, 9), 0xCBF43926u);
	assert_int_equal(colfs_crc32c(0, s, 0), 0);
	assert_int_equal(colfs_crc32(0, s, 0), 0);
	assert_int_equal(colfs_crc32c(0, "a", 1), 0xC1D04330u);
	assert_int_equal(colfs_crc32(0, "a", 1), 0xE8B7BE43u);
}

/* RFC 3720 (iSCSI), appendix B.4. */
static void test_crc32c_rfc3720(void **state)
{
	(void)state;
	uint8_t buf[32];
	memset(buf, 0, sizeof buf);
	assert_int_equal(colfs_crc32c(0, buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, sizeof buf);
	assert_int_equal(colfs_crc32c(0, buf, 32), 0x62A8AB43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(colfs_crc32c(0, buf, 32), 0x46DD794Eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(colfs_crc32c(0, buf, 32), 0x113FDB5Cu);
}

static void test_chaining(void **state)
{
	(void)state;
	uint8_t data[300];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 131 + 7);
	uint32_t whole_c = colfs_crc32c(0, data, sizeof data);
	uint32_t whole = colfs_crc32(0, data, sizeof data);
	for (size_t cut = 0; cut <= sizeof data; cut++) {
		assert_int_equal(colfs_crc32c(colfs_crc32c(0, data, cut),
					      data + cut, sizeof data - cut),
				 whole_c);
		assert_int_equal(colfs_crc32(colfs_crc32(0, data, cut),
					     data + cut, sizeof data - cut),
				 whole);
	}
	/* Three pieces. */
	uint32_t c = colfs_crc32c(0, data, 5);
	c = colfs_crc32c(c, data + 5, 100);
	c = colfs_crc32c(c, data + 105, sizeof data - 105);
	assert_int_equal(c, whole_c);
}

static void test_against_bitwise(void **state)
{
	(void)state;
	uint8_t data[96];
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)(i * 37 ^ 0x5a);
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; off + len <= sizeof data; len++)
			assert_int_equal(colfs_crc32c(0, data + off, len),
					 crc32c_bitwise(0, data + off, len));
	/* A nonzero starting value behaves like the reference too. */
	assert_int_equal(colfs_crc32c(0xdeadbeef, data, 77),
			 crc32c_bitwise(0xdeadbeef, data, 77));
}

/* CRC-32C shifting: the CRC of every span of a buffer, from the prefix
 * registers and the shift, equals the CRC computed over the span; and
 * shifting a register by n zero bytes equals running n zero bytes. */
static void test_shift(void **state)
{
	(void)state;
	enum { N = 700 };
	uint8_t p[N];
	static uint32_t regs[N + 1];
	static uint8_t zeros[70000];
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		p[i] = (uint8_t)(x >> 56);
	}
	colfs_crc32c_prefixes(p, N, regs);
	for (size_t s = 0; s <= N; s += 7)
		for (size_t e = s; e <= N; e += 13)
			assert_int_equal(colfs_crc32c_span(regs, s, e),
					 crc32c_bitwise(0, p + s, e - s));
	assert_int_equal(colfs_crc32c_span(regs, 0, N),
			 colfs_crc32c(0, p, N));
	/* the raw register (no inversions) after n zero bytes */
	const size_t ns[] = {0, 1, 2, 3, 8, 255, 256, 4096, 65537, 70000};
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		uint32_t reg = 0xDEADBEEFu;
		uint32_t direct = ~colfs_crc32c(~reg, zeros, ns[k]);

		assert_int_equal(colfs_crc32c_shift(reg, ns[k]), direct);
	}
	/* a shift is a composition: 2^40 = 2^39 + 2^39 */
	assert_int_equal(colfs_crc32c_shift(0x12345678u, 1ull << 40),
			 colfs_crc32c_shift(colfs_crc32c_shift(0x12345678u,
							       1ull << 39),
					    1ull << 39));
	assert_int_equal(colfs_crc32c_shift(0, 1ull << 40), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_values),
		cmocka_unit_test(test_crc32c_rfc3720),
		cmocka_unit_test(test_chaining),
		cmocka_unit_test(test_against_bitwise),
		cmocka_unit_test(test_shift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

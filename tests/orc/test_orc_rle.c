/* tests/orc: the run-length decoders and the compression chunk framing,
 * from hand-built byte vectors: the worked examples of the ORC
 * specification, plus malformed runs that must fail cleanly. */
#include "orc/orc_internal.h"
#include "orc/orc_rle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int failures;

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__,      \
				__LINE__, #cond);                           \
			failures++;                                         \
		}                                                           \
	} while (0)

static orc_in cur(const uint8_t *p, size_t n)
{
	orc_in c;

	orc_in_init_memory(&c, p, n, 1000);
	return c;
}

static void test_byte_rle(void)
{
	static const uint8_t run[] = {0x61, 0x00};
	static const uint8_t lit[] = {0xfe, 0x44, 0x45};
	uint8_t out[100];
	orc_rle_byte d;
	orc_in c = cur(run, sizeof(run));
	colfs_err err = {0};

	orc_rle_byte_init(&d, &c);
	CHECK(orc_rle_byte_next(&d, out, 100, &err) == COLFS_OK);
	for (int i = 0; i < 100; i++)
		CHECK(out[i] == 0);
	CHECK(orc_rle_byte_next(&d, out, 1, &err) == COLFS_ETRUNCATED);
	c = cur(lit, sizeof(lit));
	orc_rle_byte_init(&d, &c);
	CHECK(orc_rle_byte_next(&d, out, 2, &err) == COLFS_OK);
	CHECK(out[0] == 0x44 && out[1] == 0x45);
	/* a literal run that claims more bytes than there are */
	c = cur(lit, 2);
	orc_rle_byte_init(&d, &c);
	CHECK(orc_rle_byte_next(&d, out, 2, &err) == COLFS_ETRUNCATED);
}

static void test_bool_rle(void)
{
	static const uint8_t in[] = {0xff, 0x80};
	uint8_t out[8];
	orc_rle_bool d;
	orc_in c = cur(in, sizeof(in));
	colfs_err err = {0};

	orc_rle_bool_init(&d, &c);
	CHECK(orc_rle_bool_next(&d, out, 8, &err) == COLFS_OK);
	CHECK(out[0] == 1);
	for (int i = 1; i < 8; i++)
		CHECK(out[i] == 0);
	CHECK(orc_rle_bool_next(&d, out, 1, &err) == COLFS_ETRUNCATED);
}

static void expect_ints(const uint8_t *in, size_t n, bool v2, bool sign,
			const int64_t *want, size_t count)
{
	int64_t out[600];
	orc_rle_int d;
	orc_in c = cur(in, n);
	colfs_err err = {0};

	orc_rle_int_init(&d, &c, v2, sign);
	CHECK(orc_rle_int_next(&d, out, count, &err) == COLFS_OK);
	for (size_t i = 0; i < count; i++)
		if (out[i] != want[i]) {
			fprintf(stderr, "value %zu: got %lld want %lld\n", i,
				(long long)out[i], (long long)want[i]);
			failures++;
			break;
		}
	CHECK(!orc_in_more(&d.in));
}

static void test_rle_v1(void)
{
	static const uint8_t run[] = {0x61, 0x00, 0x07};
	static const uint8_t down[] = {0x61, 0xff, 0x64};
	static const uint8_t lit[] = {0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b};
	int64_t want[100];

	for (int i = 0; i < 100; i++)
		want[i] = 7;
	expect_ints(run, sizeof(run), false, false, want, 100);
	for (int i = 0; i < 100; i++)
		want[i] = 100 - i;
	expect_ints(down, sizeof(down), false, false, want, 100);
	{
		static const int64_t w[] = {2, 3, 6, 7, 11};

		expect_ints(lit, sizeof(lit), false, false, w, 5);
	}
	{
		/* signed: zigzag 1 = -1, 4 = 2 */
		static const uint8_t s[] = {0xfe, 0x01, 0x04};
		static const int64_t w[] = {-1, 2};

		expect_ints(s, sizeof(s), false, true, w, 2);
	}
}

static void test_rle_v2(void)
{
	{
		static const uint8_t in[] = {0x0a, 0x27, 0x10};
		static const int64_t w[] = {10000, 10000, 10000, 10000, 10000};

		expect_ints(in, sizeof(in), true, false, w, 5);
	}
	{
		static const uint8_t in[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab,
					     0x1e, 0xde, 0xad, 0xbe, 0xef};
		static const int64_t w[] = {23713, 43806, 57005, 48879};

		expect_ints(in, sizeof(in), true, false, w, 4);
	}
	{
		static const uint8_t in[] = {
			0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14,
			0x70, 0x28, 0x32, 0x3c, 0x46, 0x50, 0x5a, 0x64, 0x6e,
			0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc,
			0xe8};
		static const int64_t w[] = {
			2030, 2000, 2020, 1000000, 2040, 2050, 2060,
			2070, 2080, 2090, 2100, 2110, 2120, 2130,
			2140, 2150, 2160, 2170, 2180, 2190};

		expect_ints(in, sizeof(in), true, false, w, 20);
	}
	{
		static const uint8_t in[] = {0xc6, 0x09, 0x02, 0x02,
					     0x22, 0x42, 0x42, 0x46};
		static const int64_t w[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};

		expect_ints(in, sizeof(in), true, false, w, 10);
	}
	{
		/* delta with width 0: a fixed step; signed base -3 (zigzag
		 * 5), step +2 (zigzag 4), 4 values */
		static const uint8_t in[] = {0xc0, 0x03, 0x05, 0x04};
		static const int64_t w[] = {-3, -1, 1, 3};

		expect_ints(in, sizeof(in), true, true, w, 4);
	}
	{
		/* signed short repeat: zigzag 3 = -2, three times */
		static const uint8_t in[] = {0x00, 0x03};
		static const int64_t w[] = {-2, -2, -2};

		expect_ints(in, sizeof(in), true, true, w, 3);
	}
}

static colfs_status decode_v2(const uint8_t *in, size_t n, size_t count)
{
	int64_t out[600];
	orc_rle_int d;
	orc_in c = cur(in, n);
	colfs_err err = {0};
	colfs_status st;

	orc_rle_int_init(&d, &c, true, false);
	st = orc_rle_int_next(&d, out, count, &err);
	if (st)
		CHECK(err.offset >= 1000 && err.msg[0]);
	return st;
}

static void test_rle_v2_malformed(void)
{
	/* patched base: 2 values of 8 bits, one patch whose gap (5) points
	 * past the run */
	static const uint8_t pb[] = {0x8e, 0x01, 0x07, 0xe1, 0x00,
				     0x01, 0x02, 0x05, 0x01};
	/* direct run cut short */
	static const uint8_t direct[] = {0x5e, 0x03, 0x5c, 0xa1, 0xab};
	/* patched base with patch width 64 + gap width 8 > 64 */
	static const uint8_t pw[] = {0x8e, 0x00, 0x1f, 0xe1, 0x00, 0x00};
	/* delta cut inside the varints */
	static const uint8_t delta[] = {0xc6, 0x09, 0x82};

	CHECK(decode_v2(pb, sizeof(pb), 2) == COLFS_ECORRUPT);
	CHECK(decode_v2(direct, sizeof(direct), 4) == COLFS_ETRUNCATED);
	CHECK(decode_v2(pw, sizeof(pw), 1) == COLFS_ECORRUPT);
	CHECK(decode_v2(delta, sizeof(delta), 10) != COLFS_OK);
	CHECK(decode_v2(direct, 0, 1) == COLFS_ETRUNCATED);
}

static void test_chunks(void)
{
	orc_file f;
	uint8_t in[256], *out;
	size_t n = 0, out_len;
	colfs_err err = {0};
	static const char text[] = "hello hello hello hello hello hello";
	z_stream z;
	uint8_t def[128];
	size_t dl;

	memset(&f, 0, sizeof(f));
	f.compressed = true;
	f.codec = COLFS_CODEC_DEFLATE_RAW;
	f.block_size = 64;
	f.max_alloc = 1 << 20;

	/* the specification's header of 5 original bytes: 0x0b 0x00 0x00 */
	in[n++] = 0x0b;
	in[n++] = 0x00;
	in[n++] = 0x00;
	memcpy(in + n, "abcde", 5);
	n += 5;
	/* a raw deflate chunk */
	memset(&z, 0, sizeof(z));
	CHECK(deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) ==
	      Z_OK);
	z.next_in = (Bytef *)text;
	z.avail_in = sizeof(text) - 1;
	z.next_out = def;
	z.avail_out = sizeof(def);
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	dl = sizeof(def) - z.avail_out;
	deflateEnd(&z);
	in[n++] = (uint8_t)(dl << 1);
	in[n++] = (uint8_t)(dl >> 7);
	in[n++] = (uint8_t)(dl >> 15);
	memcpy(in + n, def, dl);
	n += dl;
	CHECK(orc_in_decompress(&f, in, n, 0, &out, &out_len, &err) == COLFS_OK);
	CHECK(out_len == 5 + sizeof(text) - 1);
	CHECK(out && memcmp(out, "abcde", 5) == 0 &&
	      memcmp(out + 5, text, sizeof(text) - 1) == 0);
	free(out);

	/* a header claiming more bytes than the stream has */
	CHECK(orc_in_decompress(&f, in, 6, 0, &out, &out_len, &err) ==
	      COLFS_ETRUNCATED);
	/* a chunk that inflates past the compression block size */
	f.block_size = 8;
	CHECK(orc_in_decompress(&f, in, n, 0, &out, &out_len, &err) != COLFS_OK);
	/* the header 0x40 0x0d 0x03 says 100000 compressed bytes */
	{
		static const uint8_t h[] = {0x40, 0x0d, 0x03};
		uint32_t v = (uint32_t)h[0] | (uint32_t)h[1] << 8 |
			     (uint32_t)h[2] << 16;

		CHECK((v >> 1) == 100000 && (v & 1) == 0);
		CHECK(orc_in_decompress(&f, h, 3, 0, &out, &out_len, &err) ==
		      COLFS_ETRUNCATED);
	}
}

/* The TZif reader: transitions from the table, and the POSIX rule of the
 * footer after the last transition (northern and southern DST). */
static void test_tz(void)
{
	static const struct {
		const char *zone;
		int64_t t;
		int64_t off;
	} cases[] = {
		{"America/Los_Angeles", 946684800, -28800},  /* 2000-01-01 */
		{"America/Los_Angeles", 962409600, -25200},  /* 2000-07-01 */
		/* 2040-07-01 00:00 UTC and later: the footer's rule */
		{"America/Los_Angeles", 2224713600, -25200},
		{"America/Los_Angeles", 2224713600 + 86400 * 182, -28800},
		/* 2040-03-11 10:00 UTC: DST starts at 02:00 PST */
		{"America/Los_Angeles", 2215072800 - 1, -28800},
		{"America/Los_Angeles", 2215072800, -25200},
		{"Australia/Sydney", 2224713600 + 86400 * 10, 36000},
		{"Australia/Sydney", 2224713600 + 86400 * 180, 39600},
		{"Europe/Berlin", 2224713600, 7200},
		{"Europe/Berlin", 2224713600 + 86400 * 180, 3600},
		{"Asia/Kolkata", 2224713600, 19800},
	};
	orc_file f;
	colfs_err err = {0};
	FILE *probe = fopen("/usr/share/zoneinfo/America/Los_Angeles", "rb");

	if (!probe) {
		printf("no tzdata: time zone cases skipped\n");
		return;
	}
	fclose(probe);
	memset(&f, 0, sizeof(f));
	pthread_mutex_init(&f.lock, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const orc_tz *tz;

		CHECK(orc_tz_get(&f, cases[i].zone, &tz, &err) == COLFS_OK);
		if (orc_tz_offset(tz, cases[i].t) != cases[i].off) {
			fprintf(stderr, "%s at %lld: offset %lld, want %lld\n",
				cases[i].zone, (long long)cases[i].t,
				(long long)orc_tz_offset(tz, cases[i].t),
				(long long)cases[i].off);
			failures++;
		}
	}
	{
		const orc_tz *tz;

		CHECK(orc_tz_get(&f, "GMT", &tz, &err) == COLFS_OK &&
		      tz == NULL);
		CHECK(orc_tz_get(&f, "../etc/passwd", &tz, &err) ==
		      COLFS_EUNSUPPORTED);
		CHECK(orc_tz_get(&f, "No/Such_Zone", &tz, &err) ==
		      COLFS_EUNSUPPORTED);
	}
	orc_tz_free_all(&f);
	pthread_mutex_destroy(&f.lock);
}

int main(void)
{
	test_tz();
	test_byte_rle();
	test_bool_rle();
	test_rle_v1();
	test_rle_v2();
	test_rle_v2_malformed();
	test_chunks();
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("all ORC RLE and chunk tests passed\n");
	return 0;
}

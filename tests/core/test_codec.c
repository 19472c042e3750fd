/* Round trips through every codec against the libraries' own compressors,
 * output bounds (a canary past out_cap must survive), malformed input,
 * empty input and error context. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include <brotli/encode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lzo/lzo1x.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "core/codec.h"

#define CANARY 0xA5
#define CANARY_LEN 64
#define REGION_OFFSET 123456789ull

/* ------------------------------------------------------------------ */
/* Fixtures                                                            */

typedef struct bytes {
	uint8_t *p;
	size_t n;
} bytes;

static uint64_t rng_state;

static uint32_t rng_next(void)
{
	/* xorshift64*: deterministic, good enough for test data. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

/* Compressible text-like data: words and numbers. */
static bytes sample(size_t n, uint64_t seed)
{
	static const char *const words[] = {
		"parquet", "orc", "cfile", "column", "stripe", "page",
		"dictionary", "null", "row group", "footer", "\n", ", ",
	};
	bytes b = {malloc(n), n};
	assert_non_null(b.p);
	rng_state = seed | 1;
	size_t i = 0;
	while (i < n) {
		char tmp[32];
		uint32_t r = rng_next();
		int k = (r & 3) == 0
				? snprintf(tmp, sizeof tmp, "%u ", r % 100000)
				: snprintf(tmp, sizeof tmp, "%s ",
					   words[r % (sizeof words /
						      sizeof words[0])]);
		for (int j = 0; j < k && i < n; j++)
			b.p[i++] = (uint8_t)tmp[j];
	}
	return b;
}

static bytes concat(bytes a, bytes b)
{
	bytes c = {malloc(a.n + b.n + 1), a.n + b.n};
	assert_non_null(c.p);
	if (a.n)
		memcpy(c.p, a.p, a.n);
	if (b.n)
		memcpy(c.p + a.n, b.p, b.n);
	return c;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static bytes zlib_deflate(const uint8_t *in, size_t n, int window_bits)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8,
				      Z_DEFAULT_STRATEGY),
			 Z_OK);
	bytes out = {malloc(deflateBound(&zs, n) + 32), 0};
	assert_non_null(out.p);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out.p;
	zs.avail_out = (uInt)deflateBound(&zs, n) + 32;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out.n = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static bytes snappy_pack(const uint8_t *in, size_t n)
{
	size_t cap = snappy_max_compressed_length(n);
	bytes out = {malloc(cap), cap};
	assert_non_null(out.p);
	assert_int_equal(snappy_compress((const char *)in, n, (char *)out.p,
					 &out.n),
			 SNAPPY_OK);
	return out;
}

static bytes lz4_pack(const uint8_t *in, size_t n)
{
	int cap = LZ4_compressBound((int)n);
	bytes out = {malloc((size_t)cap), 0};
	assert_non_null(out.p);
	int k = LZ4_compress_default((const char *)in, (char *)out.p, (int)n,
				     cap);
	assert_true(k > 0);
	out.n = (size_t)k;
	return out;
}

static bytes lz4_frame_pack(const uint8_t *in, size_t n)
{
	size_t cap = LZ4F_compressFrameBound(n, NULL);
	bytes out = {malloc(cap), 0};
	assert_non_null(out.p);
	out.n = LZ4F_compressFrame(out.p, cap, in, n, NULL);
	assert_false(LZ4F_isError(out.n));
	return out;
}

static bytes zstd_pack(const uint8_t *in, size_t n, int with_size)
{
	size_t cap = ZSTD_compressBound(n);
	bytes out = {malloc(cap), 0};
	assert_non_null(out.p);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	assert_non_null(cc);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, with_size);
	ZSTD_inBuffer ib = {in, with_size ? n : 0, 0};
	ZSTD_outBuffer ob = {out.p, cap, 0};
	if (with_size) {
		out.n = ZSTD_compress2(cc, out.p, cap, in, n);
		assert_false(ZSTD_isError(out.n));
	} else {
		/* Streamed: the frame header carries no content size. */
		ib.size = n;
		size_t r;
		do {
			r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
			assert_false(ZSTD_isError(r));
		} while (r != 0);
		out.n = ob.pos;
		assert_true(ZSTD_getFrameContentSize(out.p, out.n) ==
			    ZSTD_CONTENTSIZE_UNKNOWN);
	}
	ZSTD_freeCCtx(cc);
	return out;
}

static bytes brotli_pack(const uint8_t *in, size_t n)
{
	size_t cap = BrotliEncoderMaxCompressedSize(n) + 16;
	bytes out = {malloc(cap), cap};
	assert_non_null(out.p);
	assert_true(BrotliEncoderCompress(5, BROTLI_DEFAULT_WINDOW,
					  BROTLI_MODE_GENERIC, n, in, &out.n,
					  out.p));
	return out;
}

static bytes lzo_pack(const uint8_t *in, size_t n)
{
	static unsigned char wrk[LZO1X_1_MEM_COMPRESS];
	bytes out = {malloc(n + n / 16 + 64 + 3), 0};
	assert_non_null(out.p);
	lzo_uint k = 0;
	assert_int_equal(lzo_init(), LZO_E_OK);
	assert_int_equal(lzo1x_1_compress(in, n, out.p, &k, wrk), LZO_E_OK);
	out.n = k;
	return out;
}

typedef bytes (*pack_fn)(const uint8_t *in, size_t n);

/* Hadoop BlockCompressorStream framing: one chunk per piece,
 * [u32 BE ulen][u32 BE clen][block] each. */
static bytes hadoop_frame(const uint8_t *in, size_t n, size_t pieces,
			  pack_fn pack)
{
	bytes out = {NULL, 0};
	size_t at = 0;
	for (size_t i = 0; i < pieces; i++) {
		size_t len = i + 1 == pieces ? n - at : n / pieces;
		bytes blk = pack(in + at, len);
		out.p = realloc(out.p, out.n + 8 + blk.n);
		assert_non_null(out.p);
		put_be32(out.p + out.n, (uint32_t)len);
		put_be32(out.p + out.n + 4, (uint32_t)blk.n);
		memcpy(out.p + out.n + 8, blk.p, blk.n);
		out.n += 8 + blk.n;
		free(blk.p);
		at += len;
	}
	return out;
}

/* One Hadoop chunk holding two compressed sub-blocks:
 * [u32 BE ulen][u32 BE clen1][block1][u32 BE clen2][block2]. */
static bytes hadoop_chunk_two_blocks(const uint8_t *in, size_t n,
				     pack_fn pack)
{
	bytes a = pack(in, n / 2), b = pack(in + n / 2, n - n / 2);
	bytes out = {malloc(12 + a.n + b.n), 12 + a.n + b.n};
	assert_non_null(out.p);
	put_be32(out.p, (uint32_t)n);
	put_be32(out.p + 4, (uint32_t)a.n);
	memcpy(out.p + 8, a.p, a.n);
	put_be32(out.p + 8 + a.n, (uint32_t)b.n);
	memcpy(out.p + 12 + a.n, b.p, b.n);
	free(a.p);
	free(b.p);
	return out;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */

/* Decompress into a buffer of exactly `cap` bytes followed by a canary;
 * the canary must survive whatever the outcome. */
static colfs_status decompress_fenced(colfs_codec codec, const bytes *in,
				      size_t cap, uint8_t **out,
				      size_t *out_len, colfs_err *err)
{
	uint8_t *buf = malloc(cap + CANARY_LEN);
	assert_non_null(buf);
	memset(buf, CANARY, cap + CANARY_LEN);
	memset(err, 0, sizeof *err);
	*out_len = (size_t)-1;
	colfs_status st = colfs_codec_decompress(codec, in->p, in->n, buf, cap,
						 out_len, REGION_OFFSET, err);
	for (size_t i = 0; i < CANARY_LEN; i++)
		if (buf[cap + i] != CANARY)
			fail_msg("%s wrote byte %zu past out_cap %zu",
				 colfs_codec_name(codec), i, cap);
	if (st == COLFS_OK) {
		assert_true(*out_len <= cap);
	} else {
		assert_int_equal(*out_len, 0);
		assert_int_equal(err->status, st);
		assert_true(err->offset == REGION_OFFSET);
		const char *name = colfs_codec_name(codec);
		if (strncmp(err->msg, name, strlen(name)) != 0)
			fail_msg("error message does not name %s: '%s'", name,
				 err->msg);
	}
	if (out)
		*out = buf;
	else
		free(buf);
	return st;
}

/* The full contract for one valid compressed input of `orig`. */
static void check_round_trip(colfs_codec codec, bytes comp, bytes orig)
{
	uint8_t *out;
	size_t n;
	colfs_err err;

	/* Exact capacity. */
	colfs_status st = decompress_fenced(codec, &comp, orig.n, &out, &n,
					    &err);
	if (st)
		fail_msg("%s: %s", colfs_status_name(st), err.msg);
	assert_int_equal(n, orig.n);
	assert_memory_equal(out, orig.p, orig.n);
	free(out);

	/* Room to spare. */
	st = decompress_fenced(codec, &comp, orig.n + 1000, &out, &n, &err);
	assert_int_equal(st, COLFS_OK);
	assert_int_equal(n, orig.n);
	assert_memory_equal(out, orig.p, orig.n);
	free(out);

	/* One byte short, much too short, nothing at all. */
	const size_t short_caps[] = {orig.n - 1, orig.n / 3, 7, 0};
	for (size_t i = 0; i < sizeof short_caps / sizeof short_caps[0];
	     i++) {
		st = decompress_fenced(codec, &comp, short_caps[i], NULL, &n,
				       &err);
		if (st != COLFS_EOVERFLOW)
			fail_msg("%s cap %zu of %zu: expected overflow, got "
				 "%s (%s)", colfs_codec_name(codec),
				 short_caps[i], orig.n, colfs_status_name(st),
				 err.msg);
	}
	free(comp.p);
}

/* Flipped bytes and cut-short copies of a valid input must never crash,
 * never write past out_cap, and never decode to the original. */
static void check_mangled(colfs_codec codec, const bytes *comp,
			  const bytes *orig, uint64_t seed)
{
	bytes m = {malloc(comp->n), comp->n};
	assert_non_null(m.p);
	rng_state = seed | 1;
	for (int round = 0; round < 300; round++) {
		memcpy(m.p, comp->p, comp->n);
		m.n = comp->n;
		int flips = 1 + (int)(rng_next() % 4);
		for (int f = 0; f < flips; f++)
			m.p[rng_next() % m.n] ^= (uint8_t)(1 + rng_next() % 255);
		if (round % 3 == 0)
			m.n = rng_next() % comp->n;
		uint8_t *out;
		size_t n;
		colfs_err err;
		colfs_status st = decompress_fenced(codec, &m, orig->n, &out,
						    &n, &err);
		(void)st;
		free(out);
	}
	/* Cut short by one byte and by half: never the full original. */
	const size_t cuts[] = {comp->n - 1, comp->n / 2};
	for (size_t i = 0; i < 2; i++) {
		bytes cut = {comp->p, cuts[i]};
		uint8_t *out;
		size_t n;
		colfs_err err;
		colfs_status st = decompress_fenced(codec, &cut, orig->n, &out,
						    &n, &err);
		if (st == COLFS_OK && n == orig->n)
			fail_msg("%s: %zu of %zu bytes decoded to the whole "
				 "original", colfs_codec_name(codec), cuts[i],
				 comp->n);
		free(out);
	}
	free(m.p);
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(colfs_codec_name(COLFS_CODEC_NONE), "UNCOMPRESSED");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_SNAPPY), "SNAPPY");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_GZIP), "GZIP");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_LZO), "LZO");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_BROTLI), "BROTLI");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_LZ4_HADOOP), "LZ4");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_ZSTD), "ZSTD");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_LZ4_RAW), "LZ4_RAW");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_DEFLATE_RAW),
			    "ZLIB(raw)");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_ZLIB), "ZLIB");
	assert_string_equal(colfs_codec_name(COLFS_CODEC_LZO_RAW), "LZO(raw)");
}

static void test_none(void **state)
{
	(void)state;
	bytes orig = sample(5000, 1);
	bytes copy = {malloc(orig.n), orig.n};
	memcpy(copy.p, orig.p, orig.n);
	check_round_trip(COLFS_CODEC_NONE, copy, orig);
	free(orig.p);
}

static void test_snappy(void **state)
{
	(void)state;
	bytes orig = sample(100000, 2);
	bytes comp = snappy_pack(orig.p, orig.n);
	check_mangled(COLFS_CODEC_SNAPPY, &comp, &orig, 21);
	check_round_trip(COLFS_CODEC_SNAPPY, comp, orig);
	free(orig.p);
}

static void test_gzip(void **state)
{
	(void)state;
	bytes orig = sample(100000, 3);
	bytes comp = zlib_deflate(orig.p, orig.n, 15 + 16);
	check_mangled(COLFS_CODEC_GZIP, &comp, &orig, 31);
	check_round_trip(COLFS_CODEC_GZIP, comp, orig);

	/* A zlib-wrapped stream is accepted too. */
	check_round_trip(COLFS_CODEC_GZIP, zlib_deflate(orig.p, orig.n, 15),
			 orig);
	free(orig.p);
}

static void test_gzip_members(void **state)
{
	(void)state;
	bytes orig = sample(60000, 4);
	bytes a = zlib_deflate(orig.p, 25000, 15 + 16);
	bytes b = zlib_deflate(orig.p + 25000, orig.n - 25000, 15 + 16);
	bytes both = concat(a, b);
	check_round_trip(COLFS_CODEC_GZIP, both, orig);

	/* Zero padding after the last member is tolerated. */
	bytes pad = {calloc(1, 512), 512};
	bytes ab = concat(a, b);
	check_round_trip(COLFS_CODEC_GZIP, concat(ab, pad), orig);
	free(ab.p);

	/* Anything else after a member is a header error. */
	bytes junk = concat(a, (bytes){(uint8_t *)"junk!", 5});
	size_t n;
	colfs_err err;
	assert_int_equal(decompress_fenced(COLFS_CODEC_GZIP, &junk, orig.n,
					   NULL, &n, &err),
			 COLFS_ECORRUPT);
	assert_non_null(strstr(err.msg, "member 2"));

	/* A damaged CRC in the trailer is caught by zlib. */
	bytes bad = concat(a, (bytes){NULL, 0});
	bad.p[bad.n - 6] ^= 0x40;
	assert_int_equal(decompress_fenced(COLFS_CODEC_GZIP, &bad, orig.n,
					   NULL, &n, &err),
			 COLFS_ECORRUPT);
	free(junk.p);
	free(bad.p);
	free(pad.p);
	free(a.p);
	free(b.p);
	free(orig.p);
}

static void test_deflate_raw(void **state)
{
	(void)state;
	bytes orig = sample(100000, 5);
	bytes comp = zlib_deflate(orig.p, orig.n, -15);
	check_mangled(COLFS_CODEC_DEFLATE_RAW, &comp, &orig, 51);

	/* Bytes after the end of the stream are not padding for ORC. */
	bytes tail = concat(comp, (bytes){(uint8_t *)"\0", 1});
	size_t n;
	colfs_err err;
	assert_int_equal(decompress_fenced(COLFS_CODEC_DEFLATE_RAW, &tail,
					   orig.n, NULL, &n, &err),
			 COLFS_ECORRUPT);
	free(tail.p);
	check_round_trip(COLFS_CODEC_DEFLATE_RAW, comp, orig);
	free(orig.p);
}

static void test_zlib(void **state)
{
	(void)state;
	bytes orig = sample(100000, 6);
	bytes comp = zlib_deflate(orig.p, orig.n, 15);
	check_mangled(COLFS_CODEC_ZLIB, &comp, &orig, 61);

	/* A raw deflate stream has no zlib header. */
	bytes raw = zlib_deflate(orig.p, orig.n, -15);
	size_t n;
	colfs_err err;
	assert_int_equal(decompress_fenced(COLFS_CODEC_ZLIB, &raw, orig.n,
					   NULL, &n, &err),
			 COLFS_ECORRUPT);
	free(raw.p);
	check_round_trip(COLFS_CODEC_ZLIB, comp, orig);
	free(orig.p);
}

static void test_brotli(void **state)
{
	(void)state;
	bytes orig = sample(100000, 7);
	bytes comp = brotli_pack(orig.p, orig.n);
	check_mangled(COLFS_CODEC_BROTLI, &comp, &orig, 71);
	check_round_trip(COLFS_CODEC_BROTLI, comp, orig);
	free(orig.p);
}

static void test_zstd(void **state)
{
	(void)state;
	bytes orig = sample(100000, 8);
	bytes comp = zstd_pack(orig.p, orig.n, 1);
	check_mangled(COLFS_CODEC_ZSTD, &comp, &orig, 81);
	check_round_trip(COLFS_CODEC_ZSTD, comp, orig);

	/* Without a declared content size the bound still holds. */
	comp = zstd_pack(orig.p, orig.n, 0);
	check_mangled(COLFS_CODEC_ZSTD, &comp, &orig, 82);
	check_round_trip(COLFS_CODEC_ZSTD, comp, orig);
	free(orig.p);
}

static void test_zstd_frames(void **state)
{
	(void)state;
	bytes orig = sample(70000, 9);
	bytes a = zstd_pack(orig.p, 30000, 1);
	bytes b = zstd_pack(orig.p + 30000, orig.n - 30000, 0);
	check_round_trip(COLFS_CODEC_ZSTD, concat(a, b), orig);
	free(a.p);
	free(b.p);
	free(orig.p);
}

typedef struct zstd_thread_arg {
	const bytes *comp;
	const bytes *orig;
	int ok;
} zstd_thread_arg;

static void *zstd_thread(void *p)
{
	zstd_thread_arg *a = p;
	uint8_t *out = malloc(a->orig->n);
	a->ok = 1;
	for (int i = 0; i < 50 && out; i++) {
		size_t n;
		colfs_err err;
		if (colfs_codec_decompress(COLFS_CODEC_ZSTD, a->comp->p,
					   a->comp->n, out, a->orig->n, &n, 0,
					   &err) != COLFS_OK ||
		    n != a->orig->n || memcmp(out, a->orig->p, n) != 0)
			a->ok = 0;
	}
	if (!out)
		a->ok = 0;
	free(out);
	return NULL;
}

/* Each thread decodes with its own context. */
static void test_zstd_threads(void **state)
{
	(void)state;
	bytes orig = sample(50000, 10);
	bytes comp = zstd_pack(orig.p, orig.n, 1);
	pthread_t t[4];
	zstd_thread_arg args[4];
	for (int i = 0; i < 4; i++) {
		args[i] = (zstd_thread_arg){&comp, &orig, 0};
		assert_int_equal(pthread_create(&t[i], NULL, zstd_thread,
						&args[i]),
				 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_true(args[i].ok);
	}
	free(comp.p);
	free(orig.p);
}

static void test_lz4_raw(void **state)
{
	(void)state;
	bytes orig = sample(100000, 11);
	bytes comp = lz4_pack(orig.p, orig.n);
	check_mangled(COLFS_CODEC_LZ4_RAW, &comp, &orig, 111);
	check_round_trip(COLFS_CODEC_LZ4_RAW, comp, orig);
	free(orig.p);
}

static void test_lz4_hadoop(void **state)
{
	(void)state;
	bytes orig = sample(100000, 12);

	/* Two Hadoop chunks (what parquet-mr writes for larger pages). */
	bytes framed = hadoop_frame(orig.p, orig.n, 2, lz4_pack);
	check_mangled(COLFS_CODEC_LZ4_HADOOP, &framed, &orig, 121);
	check_round_trip(COLFS_CODEC_LZ4_HADOOP, framed, orig);

	/* One chunk, two compressed sub-blocks. */
	check_round_trip(COLFS_CODEC_LZ4_HADOOP,
			 hadoop_chunk_two_blocks(orig.p, orig.n, lz4_pack),
			 orig);

	/* A bare block (parquet-cpp before the Hadoop framing). */
	check_round_trip(COLFS_CODEC_LZ4_HADOOP, lz4_pack(orig.p, orig.n),
			 orig);

	/* An LZ4 frame, and two concatenated frames. */
	bytes frame = lz4_frame_pack(orig.p, orig.n);
	check_mangled(COLFS_CODEC_LZ4_HADOOP, &frame, &orig, 122);
	check_round_trip(COLFS_CODEC_LZ4_HADOOP, frame, orig);
	bytes f1 = lz4_frame_pack(orig.p, 40000);
	bytes f2 = lz4_frame_pack(orig.p + 40000, orig.n - 40000);
	check_round_trip(COLFS_CODEC_LZ4_HADOOP, concat(f1, f2), orig);
	free(f1.p);
	free(f2.p);
	free(orig.p);
}

/* The framing's lengths are checked: a chunk that decodes to a different
 * size than it declares is not accepted as Hadoop framing. */
static void test_lz4_hadoop_inconsistent(void **state)
{
	(void)state;
	bytes orig = sample(1000, 13);
	bytes framed = hadoop_frame(orig.p, orig.n, 1, lz4_pack);
	uint8_t *out;
	size_t n;
	colfs_err err;

	put_be32(framed.p, 999); /* declares one byte less */
	assert_int_not_equal(decompress_fenced(COLFS_CODEC_LZ4_HADOOP,
					       &framed, orig.n, &out, &n,
					       &err),
			     COLFS_OK);
	free(out);

	put_be32(framed.p, 1000);
	put_be32(framed.p + 4, (uint32_t)framed.n); /* clen past the end */
	assert_int_not_equal(decompress_fenced(COLFS_CODEC_LZ4_HADOOP,
					       &framed, orig.n, &out, &n,
					       &err),
			     COLFS_OK);
	free(out);

	/* Framing that declares more than fits is an overflow. */
	put_be32(framed.p + 4, (uint32_t)framed.n - 8);
	assert_int_equal(decompress_fenced(COLFS_CODEC_LZ4_HADOOP, &framed,
					   999, &out, &n, &err),
			 COLFS_EOVERFLOW);
	assert_non_null(strstr(err.msg, "Hadoop framing"));
	free(out);

	/* A damaged block inside good framing: the framing's story is told. */
	framed.p[framed.n - 3] ^= 0xff;
	framed.p[framed.n - 20] = 0xff;
	assert_int_equal(decompress_fenced(COLFS_CODEC_LZ4_HADOOP, &framed,
					   orig.n, &out, &n, &err),
			 COLFS_ECORRUPT);
	assert_non_null(strstr(err.msg, "framed block at compressed byte 8"));
	free(out);
	free(framed.p);
	free(orig.p);
}

static void test_lzo(void **state)
{
	(void)state;
	bytes orig = sample(100000, 14);
	bytes framed = hadoop_frame(orig.p, orig.n, 2, lzo_pack);
	check_mangled(COLFS_CODEC_LZO, &framed, &orig, 141);
	check_round_trip(COLFS_CODEC_LZO, framed, orig);
	check_round_trip(COLFS_CODEC_LZO,
			 hadoop_chunk_two_blocks(orig.p, orig.n, lzo_pack),
			 orig);
	/* Without framing: a bare lzo1x stream. */
	check_round_trip(COLFS_CODEC_LZO, lzo_pack(orig.p, orig.n), orig);
	free(orig.p);
}

static void test_lzo_raw(void **state)
{
	(void)state;
	bytes orig = sample(100000, 15);
	bytes comp = lzo_pack(orig.p, orig.n);
	check_mangled(COLFS_CODEC_LZO_RAW, &comp, &orig, 151);
	check_round_trip(COLFS_CODEC_LZO_RAW, comp, orig);
	free(orig.p);
}

/* Random bytes: an error for every codec that has any structure. */
static void test_garbage(void **state)
{
	(void)state;
	const colfs_codec codecs[] = {
		COLFS_CODEC_SNAPPY, COLFS_CODEC_GZIP, COLFS_CODEC_LZO,
		COLFS_CODEC_BROTLI, COLFS_CODEC_LZ4_HADOOP, COLFS_CODEC_ZSTD,
		COLFS_CODEC_LZ4_RAW, COLFS_CODEC_DEFLATE_RAW, COLFS_CODEC_ZLIB,
		COLFS_CODEC_LZO_RAW,
	};
	const size_t sizes[] = {1, 2, 3, 7, 8, 9, 64, 1000, 4096};
	rng_state = 0x5eed;
	for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			for (int round = 0; round < 20; round++) {
				bytes g = {malloc(sizes[s]), sizes[s]};
				for (size_t i = 0; i < g.n; i++)
					g.p[i] = (uint8_t)rng_next();
				size_t n;
				colfs_err err;
				colfs_status st = decompress_fenced(
					codecs[c], &g, 2048, NULL, &n, &err);
				/* A few random bytes can be a valid tiny
				 * LZ4 block of literals; larger inputs are
				 * refused. */
				if (sizes[s] >= 64)
					assert_int_not_equal(st, COLFS_OK);
				free(g.p);
			}
		}
	}
	/* Some fixed shapes. */
	bytes zeros = {calloc(1, 100), 100};
	size_t n;
	colfs_err err;
	assert_int_equal(decompress_fenced(COLFS_CODEC_ZSTD, &zeros, 100, NULL,
					   &n, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(decompress_fenced(COLFS_CODEC_GZIP, &zeros, 100, NULL,
					   &n, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(decompress_fenced(COLFS_CODEC_SNAPPY,
					   &(bytes){(uint8_t *)"\xff\xff", 2},
					   100, NULL, &n, &err),
			 COLFS_ECORRUPT);
	free(zeros.p);
}

/* Empty input decodes to zero bytes; so do the compressors' own
 * encodings of nothing. */
static void test_empty(void **state)
{
	(void)state;
	for (int c = COLFS_CODEC_NONE; c <= COLFS_CODEC_LZO_RAW; c++) {
		uint8_t out[1] = {CANARY};
		size_t n = 99;
		colfs_err err;
		assert_int_equal(colfs_codec_decompress((colfs_codec)c, NULL,
							0, out, 0, &n, 0,
							&err),
				 COLFS_OK);
		assert_int_equal(n, 0);
		assert_int_equal(out[0], CANARY);
	}
	static const uint8_t nothing[1];
	struct {
		colfs_codec codec;
		bytes comp;
	} cases[] = {
		{COLFS_CODEC_SNAPPY, snappy_pack(nothing, 0)},
		{COLFS_CODEC_GZIP, zlib_deflate(nothing, 0, 15 + 16)},
		{COLFS_CODEC_DEFLATE_RAW, zlib_deflate(nothing, 0, -15)},
		{COLFS_CODEC_ZLIB, zlib_deflate(nothing, 0, 15)},
		{COLFS_CODEC_ZSTD, zstd_pack(nothing, 0, 1)},
		{COLFS_CODEC_BROTLI, brotli_pack(nothing, 0)},
		{COLFS_CODEC_LZ4_RAW, lz4_pack(nothing, 0)},
		{COLFS_CODEC_LZ4_HADOOP, lz4_pack(nothing, 0)},
		{COLFS_CODEC_LZ4_HADOOP, hadoop_frame(nothing, 0, 1, lz4_pack)},
		{COLFS_CODEC_LZ4_HADOOP, lz4_frame_pack(nothing, 0)},
		{COLFS_CODEC_LZO_RAW, lzo_pack(nothing, 0)},
		{COLFS_CODEC_LZO, hadoop_frame(nothing, 0, 1, lzo_pack)},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n;
		colfs_err err;
		colfs_status st = decompress_fenced(cases[i].codec,
						    &cases[i].comp, 0, NULL,
						    &n, &err);
		if (st || n)
			fail_msg("case %zu (%s): %s, %zu bytes: %s", i,
				 colfs_codec_name(cases[i].codec),
				 colfs_status_name(st), n, err.msg);
		free(cases[i].comp.p);
	}
}

/* err may be NULL: statuses come back all the same. */
static void test_null_err(void **state)
{
	(void)state;
	uint8_t out[64];
	size_t n;
	static const uint8_t junk[] = "not compressed by anything at all";
	for (int c = COLFS_CODEC_SNAPPY; c <= COLFS_CODEC_LZO_RAW; c++)
		assert_int_not_equal(colfs_codec_decompress((colfs_codec)c,
							    junk, sizeof junk,
							    out, sizeof out,
							    &n, 0, NULL),
				     COLFS_OK);
	assert_int_equal(colfs_codec_decompress(COLFS_CODEC_NONE, junk,
						sizeof junk, out, 3, &n, 0,
						NULL),
			 COLFS_EOVERFLOW);
}

static void test_unknown_codec(void **state)
{
	(void)state;
	uint8_t in[4] = {1, 2, 3, 4}, out[8];
	size_t n;
	colfs_err err;
	assert_int_equal(colfs_codec_decompress((colfs_codec)99, in, 4, out,
						8, &n, 77, &err),
			 COLFS_EUNSUPPORTED);
	assert_int_equal(err.offset, 77);
	assert_int_equal(n, 0);
}

/* Stream ends (colfs_codec_stream_end): a stream made by the library,
 * followed by unrelated bytes, ends where the library's output ended; a
 * wrong size, a cut stream or a codec without a finder gives 0. */
static void check_stream_end(colfs_codec codec, bytes comp, bytes orig)
{
	bytes tail = sample(300, 99);
	bytes both = concat(comp, tail);
	uint8_t *scratch = malloc(orig.n + 1);

	assert_non_null(scratch);
	assert_int_equal(colfs_codec_stream_end(codec, both.p, both.n, orig.n,
						scratch),
			 comp.n);
	assert_memory_equal(scratch, orig.p, orig.n);
	/* the stream alone, nothing after it */
	assert_int_equal(colfs_codec_stream_end(codec, comp.p, comp.n, orig.n,
						scratch),
			 comp.n);
	/* it does not decode to one byte less or more */
	assert_int_equal(colfs_codec_stream_end(codec, both.p, both.n,
						orig.n - 1, scratch),
			 0);
	assert_int_equal(colfs_codec_stream_end(codec, both.p, both.n,
						orig.n + 1, scratch),
			 0);
	/* cut short: no end */
	assert_int_equal(colfs_codec_stream_end(codec, comp.p, comp.n / 2,
						orig.n, scratch),
			 0);
	free(scratch);
	free(both.p);
	free(tail.p);
	free(comp.p);
}

static void test_stream_end(void **state)
{
	(void)state;
	const size_t sizes[] = {1, 17, 1000, 65536, 300000};

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		bytes orig = sample(sizes[i], 200 + i);

		check_stream_end(COLFS_CODEC_LZ4_RAW,
				 lz4_pack(orig.p, orig.n), orig);
		check_stream_end(COLFS_CODEC_SNAPPY,
				 snappy_pack(orig.p, orig.n), orig);
		check_stream_end(COLFS_CODEC_ZLIB,
				 zlib_deflate(orig.p, orig.n, 15), orig);
		free(orig.p);
	}
	/* codecs without a finder */
	bytes orig = sample(1000, 7);
	bytes comp = zstd_pack(orig.p, orig.n, 1);
	uint8_t *scratch = malloc(orig.n);

	assert_non_null(scratch);
	assert_int_equal(colfs_codec_stream_end(COLFS_CODEC_ZSTD, comp.p,
						comp.n, orig.n, scratch),
			 0);
	free(scratch);
	free(comp.p);
	free(orig.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_snappy),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_gzip_members),
		cmocka_unit_test(test_deflate_raw),
		cmocka_unit_test(test_zlib),
		cmocka_unit_test(test_brotli),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_zstd_frames),
		cmocka_unit_test(test_zstd_threads),
		cmocka_unit_test(test_lz4_raw),
		cmocka_unit_test(test_lz4_hadoop),
		cmocka_unit_test(test_lz4_hadoop_inconsistent),
		cmocka_unit_test(test_lzo),
		cmocka_unit_test(test_lzo_raw),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_null_err),
		cmocka_unit_test(test_unknown_codec),
		cmocka_unit_test(test_stream_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

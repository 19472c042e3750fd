/* tests/fuzz: every codec of codec.h on arbitrary input.
 *
 * Input: one byte picks the codec, two bytes the output capacity (0 ..
 * 65535, so that "the output does not fit" is met often), the rest is the
 * compressed data.  The output buffer is followed by a guard region
 * filled with a pattern that must be intact afterwards; the reported
 * length never exceeds the capacity; failures carry the input's offset.
 * Successful output is decompressed again into an exact-size buffer and
 * must come out the same (decompression is deterministic).  CRCs are run
 * over the data too (incremental and whole must agree). */
#include "core/codec.h"
#include "fuzz_util.h"

#define GUARD 64
#define N_CODECS (COLFS_CODEC_LZO_RAW + 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	colfs_codec codec = (colfs_codec)(fuzz_u8(&in) % N_CODECS);
	size_t cap = fuzz_u16(&in);
	uint8_t *src = fuzz_dup(in.p, in.n);
	uint8_t *out = malloc(cap + GUARD);
	size_t out_len = (size_t)-1;
	colfs_err err;
	colfs_status st;

	if (!src || !out)
		goto done;
	FUZZ_CHECK(colfs_codec_name(codec) != NULL);
	memset(out, 0xA5, cap + GUARD);
	memset(&err, 0, sizeof(err));
	st = colfs_codec_decompress(codec, src, in.n, out, cap, &out_len,
				    FUZZ_BASE, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, in.n);
	for (size_t i = 0; i < GUARD; i++)
		FUZZ_CHECK(out[cap + i] == 0xA5);
	if (st == COLFS_OK) {
		uint8_t *again;
		size_t again_len = (size_t)-1;

		FUZZ_CHECK(out_len <= cap);
		if (codec == COLFS_CODEC_NONE)
			FUZZ_CHECK(out_len == in.n &&
				   !memcmp(out, src, in.n));
		again = malloc(out_len + GUARD);
		FUZZ_CHECK(again != NULL);
		memset(again, 0x5A, out_len + GUARD);
		st = colfs_codec_decompress(codec, src, in.n, again, out_len,
					    &again_len, FUZZ_BASE, &err);
		FUZZ_CHECK(st == COLFS_OK);
		FUZZ_CHECK(again_len == out_len);
		FUZZ_CHECK(!memcmp(again, out, out_len));
		for (size_t i = 0; i < GUARD; i++)
			FUZZ_CHECK(again[out_len + i] == 0x5A);
		free(again);
	}
	{
		size_t half = in.n / 2;
		uint32_t a = colfs_crc32(0, src, in.n);
		uint32_t b = colfs_crc32(colfs_crc32(0, src, half),
					 src + half, in.n - half);
		uint32_t c = colfs_crc32c(0, src, in.n);
		uint32_t d = colfs_crc32c(colfs_crc32c(0, src, half),
					  src + half, in.n - half);

		FUZZ_CHECK(a == b);
		FUZZ_CHECK(c == d);
	}
done:
	free(src);
	free(out);
	return 0;
}

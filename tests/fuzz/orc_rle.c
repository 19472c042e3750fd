/* tests/fuzz: the ORC run-length decoders (orc_rle.h) over a memory
 * stream: byte RLE, boolean RLE and integer RLE v1/v2, signed and
 * unsigned.  Values are asked for in batches of varying size, as column
 * readers do.  Invariants: statuses are enum values and failures carry an
 * offset inside the stream; booleans are 0 or 1; a decoder that failed
 * stays failed or at least does not crash when asked again; the v2 width
 * table gives widths of at most 64 bits. */
#include "fuzz_util.h"
#include "orc/orc_rle.h"

#define MAX_VALUES 100000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	uint8_t op = fuzz_u8(&in);
	uint8_t step = fuzz_u8(&in);
	uint32_t want = fuzz_u16(&in) % MAX_VALUES;
	uint8_t *p = fuzz_dup(in.p, in.n);
	size_t n = in.n;
	uint8_t bytes[1024];
	int64_t ints[1024];
	colfs_err err;
	colfs_status st = COLFS_OK;
	orc_in src;
	uint32_t done = 0;
	int again = 0;
	/* after a failure, ask once more (a reader may be asked again for
	 * the next piece): regression orc-rle-int-reuse-after-error */
	int tries = 2;

	if (!p)
		return 0;
	for (unsigned code = 0; code < 32; code++) {
		FUZZ_CHECK(orc_rle_width_decode(code, false) <= 64);
		FUZZ_CHECK(orc_rle_width_decode(code, true) <= 64);
	}
	orc_in_init_memory(&src, p, n, FUZZ_BASE);
	memset(&err, 0, sizeof(err));
	switch (op % 6) {
	case 0: {
		orc_rle_byte d;

		orc_rle_byte_init(&d, &src);
		while (done < want && again < tries) {
			size_t k = 1 + (size_t)(step % 200);

			if (k > want - done)
				k = want - done;
			st = orc_rle_byte_next(&d, bytes, k, &err);
			fuzz_check_err(st, &err, FUZZ_BASE, n);
			if (st) {
				again++;
				continue;
			}
			done += (uint32_t)k;
			step = (uint8_t)(step * 31 + 7);
		}
		orc_rle_byte_close(&d);
		break;
	}
	case 1: {
		orc_rle_bool d;

		orc_rle_bool_init(&d, &src);
		while (done < want && again < tries) {
			size_t k = 1 + (size_t)(step % 250);

			if (k > want - done)
				k = want - done;
			memset(bytes, 0x77, k);
			st = orc_rle_bool_next(&d, bytes, k, &err);
			fuzz_check_err(st, &err, FUZZ_BASE, n);
			if (st) {
				again++;
				continue;
			}
			for (size_t i = 0; i < k; i++)
				FUZZ_CHECK(bytes[i] <= 1);
			done += (uint32_t)k;
			step = (uint8_t)(step * 31 + 7);
		}
		orc_rle_bool_close(&d);
		break;
	}
	default: {
		orc_rle_int d;
		bool v2 = (op % 6) >= 4;
		bool sign = (op % 6) & 1;

		orc_rle_int_init(&d, &src, v2, sign);
		while (done < want && again < tries) {
			size_t k = 1 + (size_t)(step % 1000);

			if (k > want - done)
				k = want - done;
			st = orc_rle_int_next(&d, ints, k, &err);
			fuzz_check_err(st, &err, FUZZ_BASE, n);
			if (st) {
				again++;
				continue;
			}
			done += (uint32_t)k;
			step = (uint8_t)(step * 31 + 7);
		}
		orc_rle_int_close(&d);
		break;
	}
	}
	/* a decoder produces nothing from nothing */
	if (n == 0)
		FUZZ_CHECK(done == 0);
	free(p);
	return 0;
}

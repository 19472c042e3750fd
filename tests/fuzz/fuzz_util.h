/* tests/fuzz: helpers shared by the fuzz targets.
 *
 * Each target is one C file defining LLVMFuzzerTestOneInput.  Built with
 * clang and libFuzzer by build.sh, and with the project's compiler by
 * meson for the replay driver (replay.c), which feeds it saved inputs.
 * Invariants are checked with FUZZ_CHECK, which aborts (a finding for
 * libFuzzer, a failure for the replay driver) with the condition named.
 */
#ifndef COLFS_FUZZ_UTIL_H
#define COLFS_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: invariant failed: %s\n",    \
				__FILE__, __LINE__, #cond);                 \
			abort();                                            \
		}                                                           \
	} while (0)

/* Known problems of the core that are not fixed yet (listed with their
 * tags in tests/fuzz/KNOWN-CRASHES.md): the check or the input path that
 * meets one is skipped unless COLFS_FUZZ_STRICT is set in the
 * environment, so that the default runs stay green while the problem is
 * open.  When the core is fixed, delete the FUZZ_KNOWN use and the entry. */
static inline bool fuzz_known_issue(const char *tag)
{
	static int strict = -1;

	(void)tag;
	if (strict < 0)
		strict = getenv("COLFS_FUZZ_STRICT") != NULL;
	return !strict;
}

/* A status is one of the enum's values. */
static inline bool fuzz_status_valid(colfs_status st)
{
	return st >= COLFS_OK && st <= COLFS_END;
}

/* A failure about the input carries an offset inside the input (the
 * region [base, base + len]; one past the end names "cut short here")
 * and a NUL-terminated message.  ENOMEM and EIO are not about the input. */
static inline void fuzz_check_err(colfs_status st, const colfs_err *err,
				  uint64_t base, size_t len)
{
	FUZZ_CHECK(fuzz_status_valid(st));
	if (st == COLFS_OK || st == COLFS_END)
		return;
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL);
	if (st == COLFS_ENOMEM || st == COLFS_EIO)
		return;
	FUZZ_CHECK(err->status == st);
	FUZZ_CHECK(err->offset >= base && err->offset <= base + len);
}

/* Consume parameters from the front of the input. */
typedef struct fuzz_in {
	const uint8_t *p;
	size_t n;
} fuzz_in;

static inline uint8_t fuzz_u8(fuzz_in *in)
{
	uint8_t v = 0;

	if (in->n) {
		v = in->p[0];
		in->p++;
		in->n--;
	}
	return v;
}

static inline uint16_t fuzz_u16(fuzz_in *in)
{
	uint16_t v = fuzz_u8(in);

	return (uint16_t)(v | (uint16_t)fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(fuzz_in *in)
{
	uint32_t v = fuzz_u16(in);

	return v | (uint32_t)fuzz_u16(in) << 16;
}

/* A copy of the rest of the input in its own allocation, so that ASan
 * sees a read one byte past the end (the libFuzzer buffer is exact too,
 * but the replay driver's may not be). */
static inline uint8_t *fuzz_dup(const uint8_t *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (d && n)
		memcpy(d, p, n);
	return d;
}

/* The absolute offset the targets give their cursors, so that an offset
 * of 0 (the classic "forgot to set it") is caught as outside. */
#define FUZZ_BASE 1000000u

#endif

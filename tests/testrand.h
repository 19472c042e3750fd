/* colfs tests: the pseudo-random numbers of the tests that make random
 * inputs (xorshift64: fast, and the same sequence on every machine for
 * a given seed, so a failure replays). */
#ifndef COLFS_TESTS_TESTRAND_H
#define COLFS_TESTS_TESTRAND_H

#include <stdint.h>

/* The seed the tests start from unless told another. */
#define TESTRAND_SEED 0x9e3779b97f4a7c15ull

/* The next number of the sequence `*state` (never 0) holds. */
static inline uint64_t testrand_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

#endif

/* tests/fuzz: open arbitrary bytes as an Arrow IPC file or stream (no
 * probing, so that even inputs whose magic is damaged reach the format's
 * reader), walk every node and read every byte (bounded: see
 * fuzz_walk.h). */
#include "fuzz_walk.h"

extern const colfs_format colfs_format_arrow;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_walk_bytes(data, size, &colfs_format_arrow, NULL);
	return 0;
}

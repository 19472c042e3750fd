/* s3-list: colfs_s3_list (formats/remote/s3_list.c) from the command
 * line, for tests/remote/s3-list.sh.
 *
 *   s3-list [-o key=value]... [-m MAX_KEYS] s3://BUCKET/PREFIX
 *
 * Prints one line per object, "SIZE<TAB>KEY" (the key relative to the
 * prefix, as listed), then "objects N" on stderr.  -m asks at most
 * MAX_KEYS keys a page (colfs_s3_list_paged), so that a few objects make
 * many pages.  A failure prints "s3-list: MESSAGE" and exits 1; bad usage
 * exits 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colfs.h"
#include "remote/remote.h"

int main(int argc, char **argv)
{
	colfs_options o = {0};
	unsigned max_keys = 0;
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-o")) {
			if (colfs_options_set(&o, argv[i + 1])) {
				fprintf(stderr, "s3-list: bad option %s\n",
					argv[i + 1]);
				return 2;
			}
		} else if (!strcmp(argv[i], "-m")) {
			max_keys = (unsigned)strtoul(argv[i + 1], NULL, 10);
		} else {
			break;
		}
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: s3-list [-o key=value]... [-m MAX_KEYS] "
				"s3://BUCKET/PREFIX\n");
		return 2;
	}
	colfs_remote_entry *e = NULL;
	size_t n = 0;
	char why[512];
	colfs_status st = colfs_s3_list_paged(argv[i], &o, max_keys, &e, &n,
					      why, sizeof why);
	if (st) {
		fprintf(stderr, "s3-list: %s\n", why);
		return 1;
	}
	for (size_t k = 0; k < n; k++)
		printf("%" PRIu64 "\t%s\n", e[k].size, e[k].key);
	fprintf(stderr, "objects %zu\n", n);
	colfs_remote_entries_free(e, n);
	return fflush(stdout) == 0 ? 0 : 1;
}

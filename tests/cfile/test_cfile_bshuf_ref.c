/* Bitshuffle streams produced by the reference bitshuffle library (Debian's
 * python3 `bitshuffle` module, run through /usr/bin/python3 bshuf_ref.py)
 * decode through colfs to the same values.  Skips (77) when the module
 * is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cfile/cfile.h"
#include "cft.h"

int main(int argc, char **argv)
{
	char cmd[1200], path[700], name[64];
	int failures = 0, cases = 0;
	char *dir;

	if (argc < 2) {
		fprintf(stderr, "usage: %s bshuf_ref.py\n", argv[0]);
		return 2;
	}
	dir = cft_tmpdir();
	if (!dir)
		return 1;
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s'", argv[1], dir);
	int rc = system(cmd);
	if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0) {
		cft_rmdir(dir);
		free(dir);
		if (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
			printf("SKIP: python3 bitshuffle module not installed "
			       "(apt-get install bitshuffle)\n");
			return 77;
		}
		printf("FAIL: %s exited with %d\n", cmd, rc);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/cases.txt", dir);
	FILE *idx = fopen(path, "r");
	int type;
	unsigned count;
	while (idx && fscanf(idx, "%63s %d %u", name, &type, &count) == 3) {
		size_t blen, flen;
		char why[256];
		colfs_tree *t;

		cases++;
		snprintf(path, sizeof(path), "%s/%s.block", dir, name);
		uint8_t *blk = (uint8_t *)testio_slurp(path, &blen);
		snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
		char *want = testio_slurp(path, NULL);
		uint8_t *file = cft_wrap_block(blk, blen, type,
					       CFILE_BIT_SHUFFLE, 1, 0, 0, count,
					       &flen);
		snprintf(path, sizeof(path), "%s/%s.cfile", dir, name);
		FILE *f = fopen(path, "wb");
		fwrite(file, 1, flen, f);
		fclose(f);
		if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
			printf("FAIL %s: open: %s\n", name, why);
			failures++;
		} else {
			char *got = cft_read(t, "values", NULL);
			char *errs = cft_read(t, "errors", NULL);
			if (!got || !want || strcmp(got, want) ||
			    !errs || errs[0]) {
				printf("FAIL %s: values %s, errors: %s\n", name,
				       got && want && !strcmp(got, want)
					       ? "equal" : "differ",
				       errs ? errs : "?");
				failures++;
			}
			free(got);
			free(errs);
			colfs_tree_destroy(t);
		}
		free(blk);
		free(want);
		free(file);
	}
	if (idx)
		fclose(idx);
	cft_rmdir(dir);
	free(dir);
	printf("%d cases, %d failures\n", cases, failures);
	return failures || cases == 0 ? 1 : 0;
}

/* DeltaFiles and BloomFiles (§13): `deltas` shows every delta as the
 * writer describes it, `deltafilestats.json` decodes the footer metadata,
 * `bloom` lists every bloom block; damaged copies never crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"

static int failures;

static void check(const char *dir, const cw_params *p, const char *label)
{
	char path[600], exp[600], why[256];
	colfs_tree *t;

	snprintf(path, sizeof(path), "%s/s.cfile", dir);
	snprintf(exp, sizeof(exp), "%s/s.txt", dir);
	if (cw_write(p, path, exp, why, sizeof(why))) {
		printf("FAIL %s: writer: %s\n", label, why);
		failures++;
		return;
	}
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		printf("FAIL %s: open: %s\n", label, why);
		failures++;
		return;
	}
	char *want = testio_slurp(exp, NULL);
	char *got;
	if (p->role == CW_DELTA) {
		got = cft_read(t, "deltas", NULL);
		char *stats = cft_read(t, "deltafilestats.json", NULL);
		char needle[64];
		snprintf(needle, sizeof(needle), "\"delete_count\": %u",
			 (p->count + 4) / 5);
		if (!stats || !strstr(stats, needle)) {
			printf("FAIL %s: deltafilestats.json lacks %s:\n%s\n",
			       label, needle, stats ? stats : "(unreadable)");
			failures++;
		}
		free(stats);
	} else {
		char *b = cft_read(t, "bloom", NULL);
		char *nl = b ? strchr(b, '\n') : NULL;
		got = nl ? strdup(nl + 1) : NULL;
		free(b);
	}
	if (!got || !want || strcmp(got, want)) {
		printf("FAIL %s: content differs\n", label);
		failures++;
	}
	char *errs = cft_read(t, "errors", NULL);
	if (!errs || errs[0]) {
		printf("FAIL %s: errors: %s\n", label, errs ? errs : "?");
		failures++;
	}
	free(errs);
	free(got);
	free(want);
	colfs_tree_destroy(t);

	/* A flipped bit at 500 places: never a crash, always reported
	 * (checksums are on). */
	size_t n;
	char *base = testio_slurp(path, &n);
	size_t step = n / 500 + 1;
	for (size_t at = 0; base && at < n; at += step) {
		base[at] ^= 0x04;
		FILE *f = fopen(path, "wb");
		fwrite(base, 1, n, f);
		fclose(f);
		base[at] ^= 0x04;
		if (colfs_tree_open(path, NULL, &t, why, sizeof(why)))
			continue;
		cft_walk(t);
		errs = cft_read(t, "errors", NULL);
		if (!errs || !errs[0]) {
			printf("FAIL %s: flip at %zu not reported\n", label,
			       at);
			failures++;
		}
		free(errs);
		colfs_tree_destroy(t);
	}
	free(base);
}

int main(void)
{
	char *dir = cft_tmpdir();
	cw_params p;

	if (!dir)
		return 1;
	for (int c = 1; c <= 4; c++) {
		cw_params_default(&p);
		p.role = CW_DELTA;
		p.compression = c;
		p.count = c == 3 ? 3000 : 400;
		p.block_rows = 150;
		p.index_block_size = c % 2 ? 100 : 32768;
		check(dir, &p, c == 3 ? "DeltaFile LZ4 3000" : "DeltaFile");
	}
	cw_params_default(&p);
	p.role = CW_BLOOM;
	p.count = 3000;
	p.block_rows = 100;
	p.index_block_size = 120;
	check(dir, &p, "BloomFile");
	cft_rmdir(dir);
	free(dir);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}

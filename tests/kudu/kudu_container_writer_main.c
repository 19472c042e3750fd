/* kudu-container-writer: a small Kudu log block container for the mount
 * tests and by hand (docs/kudu-tree.md, "The test container writer").
 *
 *   kudu-container-writer [--v1] STEM
 *
 * writes STEM.data and STEM.metadata holding three CFiles (INT32 PLAIN,
 * STRING DICT nullable, DOUBLE BIT_SHUFFLE LZ4) as blocks 1, 2 and 3, and
 * two deleted blocks: 4 (punched out) and 5 (its bytes kept); each CFile
 * also alone as STEM.N.cfile, its values in STEM.N.txt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"
#include "kcw.h"

int main(int argc, char **argv)
{
	int version = 2;
	const char *stem;
	kcw c;

	if (argc == 3 && strcmp(argv[1], "--v1") == 0)
		version = 1;
	else if (argc != 2 || argv[1][0] == '-') {
		fputs("usage: kudu-container-writer [--v1] STEM\n", stderr);
		return 2;
	}
	stem = argv[argc - 1];
	if (kcw_open(&c, stem, version)) {
		perror(stem);
		return 1;
	}
	for (int i = 1; i <= 3; i++) {
		cw_params p;
		char path[4200], exp[4200], why[256];
		size_t len;
		char *b;
		cw_params_default(&p);
		p.version = version;
		p.checksums = version == 2;
		p.count = 700;
		p.block_rows = 100;
		p.seed = (uint32_t)i;
		if (i == 2) {
			p.type = cw_type_parse("STRING");
			p.encoding = cw_encoding_parse("DICT");
			p.nullable = true;
		} else if (i == 3) {
			p.type = cw_type_parse("DOUBLE");
			p.encoding = cw_encoding_parse("BIT_SHUFFLE");
			p.compression = CFILE_LZ4;
		}
		snprintf(path, sizeof path, "%s.%d.cfile", stem, i);
		snprintf(exp, sizeof exp, "%s.%d.txt", stem, i);
		if (cw_write(&p, path, exp, why, sizeof why)) {
			fprintf(stderr, "kudu-container-writer: %s\n", why);
			return 1;
		}
		if (!(b = testio_slurp(path, &len)) ||
		    kcw_add(&c, (uint64_t)i, b, len)) {
			perror(path);
			return 1;
		}
		free(b);
	}
	char junk[6000];
	memset(junk, 0x33, sizeof junk);
	if (kcw_add(&c, 4, junk, sizeof junk) || kcw_add(&c, 5, junk, 100) ||
	    kcw_delete(&c, 4, true) || kcw_delete(&c, 5, false) ||
	    kcw_close(&c)) {
		perror(stem);
		return 1;
	}
	return 0;
}

/* Round trips over the writer matrix: every DataType x legal encoding x
 * compression x nullable x (v2 + checksums, v2, v1) x index shapes; each
 * file is opened through colfs.h, `values` must equal what was written,
 * `errors` must be empty and the whole tree must walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"

static int failures, files;

static void check(const char *dir, const cw_params *p, const char *label,
		  bool walk)
{
	char path[600], exp[600], why[256];
	colfs_tree *t;
	size_t got_len = 0, exp_len = 0;

	snprintf(path, sizeof(path), "%s/f.cfile", dir);
	snprintf(exp, sizeof(exp), "%s/f.txt", dir);
	files++;
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
	char *want = testio_slurp(exp, &exp_len);
	char *got = cft_read(t, "values", &got_len);
	if (!want || !got || got_len != exp_len || memcmp(want, got, exp_len)) {
		size_t line = 1, i = 0;
		while (got && want && i < got_len && i < exp_len &&
		       got[i] == want[i])
			line += got[i++] == '\n';
		printf("FAIL %s: values differ (got %zu bytes, want %zu; first "
		       "difference on line %zu)\n", label, got_len, exp_len,
		       line);
		failures++;
	}
	char *errs = cft_read(t, "errors", NULL);
	if (!errs || errs[0]) {
		printf("FAIL %s: errors: %s\n", label, errs ? errs : "(none)");
		failures++;
	}
	if (walk)
		cft_walk(t);
	errs = (free(errs), cft_read(t, "errors", NULL));
	if (!errs || errs[0]) {
		printf("FAIL %s: errors after walk: %s\n", label,
		       errs ? errs : "(none)");
		failures++;
	}
	free(errs);
	free(want);
	free(got);
	colfs_tree_destroy(t);
}

int main(void)
{
	char *dir = cft_tmpdir();
	char label[200];

	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	for (int32_t type = 0; type < CFILE_TYPE_COUNT; type++) {
		const cfile_type_info *ti = cfile_types_get(type);
		if (!ti)
			continue;
		for (int32_t enc = 1; enc < CFILE_ENCODING_COUNT; enc++) {
			if (!cfile_types_encoding_legal(type, enc))
				continue;
			for (int v = 0; v < 24; v++) {
				cw_params p;
				cw_params_default(&p);
				p.type = type;
				p.encoding = enc;
				p.compression = CFILE_NO_COMPRESSION + v % 4;
				p.nullable = (v / 4) % 2;
				p.version = v / 8 == 2 ? 1 : 2;
				p.checksums = v / 8 == 0;
				p.seed = (uint32_t)(type * 100 + enc * 10 + v);
				p.count = v % 11 == 10 ? 0 : v % 11 == 9 ? 1
								      : 2500;
				p.block_rows = 100 + (uint32_t)(v * 37 % 200);
				p.index_block_size = v % 3 == 0 ? 48 : 4096;
				p.validx = !p.nullable && v % 2 == 0 &&
					   ti->phys != CFILE_PHYS_FLOAT &&
					   ti->phys != CFILE_PHYS_BOOL;
				p.posidx = !(p.validx && v % 6 == 0);
				p.header_metadata = v % 5 == 1;
				p.restart_interval = v % 2 ? 16 : 3;
				p.distinct = v % 7 == 0 ? 300 : 50;
				p.dict_limit = v % 3 == 1 ? 20 : 0;
				snprintf(label, sizeof(label),
					 "%s/%s/%s%s v%d%s count=%u "
					 "block_rows=%u ibs=%u%s%s",
					 cfile_types_type_name(type),
					 cfile_types_encoding_name(enc),
					 cfile_types_compression_name(p.compression),
					 p.nullable ? " nullable" : "",
					 p.version, p.checksums ? " crc" : "",
					 p.count, p.block_rows,
					 p.index_block_size,
					 p.posidx ? " posidx" : "",
					 p.validx ? " validx" : "");
				check(dir, &p, label, v % 4 == 0);
			}
		}
	}
	/* Array columns (§7.3): every type x legal encoding x codec x
	 * nullable elements. */
	for (int32_t type = 0; type < CFILE_TYPE_COUNT; type++) {
		if (!cfile_types_get(type))
			continue;
		for (int32_t enc = 1; enc < CFILE_ENCODING_COUNT; enc++) {
			if (!cfile_types_encoding_legal(type, enc))
				continue;
			for (int v = 0; v < 8; v++) {
				cw_params p;
				cw_params_default(&p);
				p.type = type;
				p.encoding = enc;
				p.array = true;
				p.compression = CFILE_NO_COMPRESSION + v % 4;
				p.nullable = v / 4;
				p.checksums = v % 3 != 0;
				p.count = 700;
				p.block_rows = 150 + 17 * (uint32_t)v;
				p.index_block_size = 64;
				p.seed = (uint32_t)(type * 31 + enc * 7 + v);
				snprintf(label, sizeof(label),
					 "ARRAY<%s>/%s/%s%s",
					 cfile_types_type_name(type),
					 cfile_types_encoding_name(enc),
					 cfile_types_compression_name(p.compression),
					 p.nullable ? " nullable" : "");
				check(dir, &p, label, v == 0);
			}
		}
	}
	/* Dictionaries with 2- and 4-byte codewords. */
	{
		cw_params p;
		cw_params_default(&p);
		p.type = CFILE_STRING;
		p.encoding = CFILE_DICT;
		p.compression = CFILE_LZ4;
		p.count = 140000;
		p.block_rows = 20000;
		p.distinct = 70000;
		p.dict_limit = 1000000;
		check(dir, &p, "STRING/DICT 70000 distinct", false);
		p.type = CFILE_BINARY;
		p.distinct = 1000;
		p.count = 5000;
		p.block_rows = 4000;
		check(dir, &p, "BINARY/DICT 1000 distinct", false);
	}
	/* Bitshuffle blocks above one chunk, every element size. */
	{
		static const int32_t types[] = {CFILE_INT8, CFILE_INT16,
						CFILE_INT32, CFILE_INT64,
						CFILE_INT128, CFILE_UINT32};
		for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++) {
			cw_params p;
			cw_params_default(&p);
			p.type = types[i];
			p.encoding = CFILE_BIT_SHUFFLE;
			p.count = 20003;
			p.block_rows = 10001;
			p.compression = CFILE_ZLIB;
			snprintf(label, sizeof(label), "%s/BIT_SHUFFLE big",
				 cfile_types_type_name(types[i]));
			check(dir, &p, label, false);
		}
	}
	cft_rmdir(dir);
	free(dir);
	printf("%d files, %d failures\n", files, failures);
	return failures ? 1 : 0;
}

/* `verify` of CFiles (docs/cfile-tree.md): healthy files of every shape the
 * writer makes verify with 0 mismatches and nothing in `errors`; each lie
 * the writer can build in (a wrong value index key, a wrong min_key or
 * max_key, unsorted primary-key values, wrong deltafilestats) is found,
 * once, and nothing else is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"

static int failures, files;

static unsigned count_lines(const char *s, const char *needle)
{
	unsigned n = 0;

	for (const char *p = s; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Write, open, read verify; `want` NULL: healthy. */
static void check(const char *dir, const cw_params *p, const char *label,
		  const char *want)
{
	char path[600], why[256];
	colfs_tree *t;

	snprintf(path, sizeof(path), "%s/v.cfile", dir);
	files++;
	if (cw_write(p, path, NULL, why, sizeof(why))) {
		printf("FAIL %s: writer: %s\n", label, why);
		failures++;
		return;
	}
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		printf("FAIL %s: open: %s\n", label, why);
		failures++;
		return;
	}
	char *v = cft_read(t, "verify", NULL);
	char *errs = cft_read(t, "errors", NULL);
	unsigned mism = count_lines(v, "MISMATCH: ");
	unsigned errn = count_lines(errs, "\n");
	if (!v || !errs) {
		printf("FAIL %s: verify or errors unreadable\n", label);
		failures++;
	} else if (!want) {
		if (mism || errn || !strstr(v, "\n0 mismatches\n")) {
			printf("FAIL %s: healthy file:\n%s%s", label, v, errs);
			failures++;
		}
	} else if (mism != 1 || errn != 1 || !strstr(v, want) ||
		   !strstr(errs, want) || !strstr(v, "\n1 mismatch\n") ||
		   !strstr(errs, "/verify: offset ")) {
		printf("FAIL %s: want one mismatch \"%s\":\n%s%s", label, want,
		       v, errs);
		failures++;
	}
	free(v);
	free(errs);
	colfs_tree_destroy(t);
}

static void healthy(const char *dir)
{
	char label[200];

	/* Primary-key columns: every type with a key encoding x legal
	 * encoding, multi-level value indexes, with and without a positional
	 * index, each codec, v1. */
	for (int32_t type = 0; type < CFILE_TYPE_COUNT; type++) {
		const cfile_type_info *ti = cfile_types_get(type);
		if (!ti || ti->phys == CFILE_PHYS_FLOAT ||
		    ti->phys == CFILE_PHYS_BOOL)
			continue;
		for (int32_t enc = 1; enc < CFILE_ENCODING_COUNT; enc++) {
			if (!cfile_types_encoding_legal(type, enc))
				continue;
			cw_params p;
			cw_params_default(&p);
			p.type = type;
			p.encoding = enc;
			p.validx = true;
			p.compression = CFILE_NO_COMPRESSION + (type + enc) % 4;
			p.posidx = (type + enc) % 3 != 0;
			p.version = (type + enc) % 5 == 0 ? 1 : 2;
			p.checksums = p.version == 2;
			p.count = 700;
			p.block_rows = 60;
			p.index_block_size = 48;
			p.distinct = 300;
			p.dict_limit = 40;
			snprintf(label, sizeof(label), "%s/%s/%s%s pk",
				 cfile_types_type_name(type), cfile_types_encoding_name(enc),
				 cfile_types_compression_name(p.compression),
				 p.posidx ? " posidx" : "");
			check(dir, &p, label, NULL);
		}
	}
	/* One block, one row, no rows. */
	for (uint32_t n = 0; n < 3; n++) {
		cw_params p;
		cw_params_default(&p);
		p.type = CFILE_STRING;
		p.encoding = CFILE_PREFIX;
		p.validx = true;
		p.count = n == 2 ? 50 : n;
		snprintf(label, sizeof(label), "STRING pk, %u rows", p.count);
		check(dir, &p, label, NULL);
	}
	/* Columns without a value index: unsorted, nullable, arrays. */
	{
		cw_params p;
		cw_params_default(&p);
		p.type = CFILE_DOUBLE;
		p.encoding = CFILE_BIT_SHUFFLE;
		p.nullable = true;
		p.count = 900;
		p.block_rows = 100;
		check(dir, &p, "DOUBLE nullable", NULL);
		p.type = CFILE_INT32;
		p.encoding = CFILE_RLE;
		p.array = true;
		check(dir, &p, "ARRAY<INT32>", NULL);
	}
	/* DeltaFiles (REDO and UNDO, each codec, a two-level index) and a
	 * BloomFile. */
	for (int k = 0; k < 8; k++) {
		cw_params p;
		cw_params_default(&p);
		p.role = CW_DELTA;
		p.undo = k % 2;
		p.compression = CFILE_NO_COMPRESSION + k / 2;
		p.count = 600;
		p.block_rows = 40;
		p.index_block_size = k < 2 ? 64 : 4096;
		snprintf(label, sizeof(label), "DeltaFile %s %s",
			 p.undo ? "UNDO" : "REDO",
			 cfile_types_compression_name(p.compression));
		check(dir, &p, label, NULL);
	}
	{
		cw_params p;
		cw_params_default(&p);
		p.role = CW_BLOOM;
		p.count = 600;
		p.block_rows = 40;
		p.index_block_size = 64;
		check(dir, &p, "BloomFile", NULL);
	}
}

static void lies(const char *dir)
{
	cw_params p;

	cw_params_default(&p);
	p.type = CFILE_INT32;
	p.validx = true;
	p.count = 400;
	p.block_rows = 10;
	p.index_block_size = 48;
	p.damage = CW_DAMAGE_VALIDX_KEY;
	check(dir, &p, "INT32 wrong value index key",
	      "value index key 0x06666667 of data block 1 is not its first "
	      "value's key 0x06666666");
	p.damage = CW_DAMAGE_MIN_KEY;
	check(dir, &p, "INT32 wrong min_key",
	      "metadata min_key is 0x00a3d70a, the first value's key is "
	      "0x00000000");
	p.damage = CW_DAMAGE_MAX_KEY;
	check(dir, &p, "INT32 wrong max_key",
	      "metadata max_key is 0x00000000, the last value's key is "
	      "0xff5c28f5");
	p.damage = CW_DAMAGE_UNSORTED;
	check(dir, &p, "INT32 unsorted",
	      "data block 1: 1 of its values sort below the value before "
	      "them (the first: value 4 of the block)");
	/* the same on strings, with only a value index */
	p.type = CFILE_STRING;
	p.encoding = CFILE_PREFIX;
	p.posidx = false;
	p.distinct = 1000;
	p.damage = CW_DAMAGE_VALIDX_KEY;
	check(dir, &p, "STRING wrong value index key",
	      "of data block 1 is not its first value's key");
	p.damage = CW_DAMAGE_UNSORTED;
	check(dir, &p, "STRING unsorted",
	      "data block 1: 1 of its values sort below");

	cw_params_default(&p);
	p.role = CW_DELTA;
	p.compression = CFILE_LZ4;
	p.count = 400;
	p.block_rows = 50;
	p.damage = CW_DAMAGE_DELTA_DELETES;
	check(dir, &p, "DeltaFile delete_count",
	      "deltafilestats delete_count 81, the deltas hold 80 DELETEs");
	p.damage = CW_DAMAGE_DELTA_MAX_TS;
	p.undo = true;
	check(dir, &p, "UNDO DeltaFile max_timestamp",
	      "deltafilestats max_timestamp 6553600001642496003, the largest "
	      "delta timestamp is 6553600001642496002");
	p.damage = CW_DAMAGE_DELTA_COLUMN;
	check(dir, &p, "DeltaFile column update_count",
	      "deltafilestats column 3 update_count 42, the deltas update it "
	      "41 times");
}

int main(void)
{
	char *dir = cft_tmpdir();

	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	healthy(dir);
	lies(dir);
	cft_rmdir(dir);
	free(dir);
	printf("%d files, %d failures\n", files, failures);
	return failures ? 1 : 0;
}

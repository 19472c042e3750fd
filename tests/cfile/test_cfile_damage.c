/* Damaged CFiles never crash or hang, and `errors` names the problem with
 * an offset: a flipped bit in every region (header, blocks, index,
 * dictionary, footer), every truncation, a B-tree pointer into itself, an
 * out-of-range dictionary codeword, a wrong block ordinal, an unknown
 * feature bit, a wrong num_values.  Undamaged blocks stay readable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"

static int failures;

static void write_bytes(const char *path, const char *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/* Open, walk everything; returns the errors text (or a copy of `why` when
 * the open failed, prefixed "OPEN: "). */
static char *probe_file(const char *path)
{
	colfs_tree *t;
	char why[512];

	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		char *s = malloc(strlen(why) + 8);
		sprintf(s, "OPEN: %s", why);
		return s;
	}
	cft_walk(t);
	char *errs = cft_read(t, "errors", NULL);
	colfs_tree_destroy(t);
	return errs ? errs : strdup("(errors unreadable)");
}

static void expect_errors(const char *label, const char *errs,
			  const char *needle)
{
	bool open_failed = !strncmp(errs, "OPEN: ", 6);
	if (!errs[0] || (!open_failed && !strstr(errs, "offset ")) ||
	    (needle && !strstr(errs, needle))) {
		printf("FAIL %s: expected an error%s%s with an offset, got: "
		       "%s\n", label, needle ? " mentioning " : "",
		       needle ? needle : "", errs[0] ? errs : "(none)");
		failures++;
	}
}

static void flips_and_truncations(const char *dir, const cw_params *p,
				  const char *name)
{
	char path[600], dmg[600], why[256], label[256];
	size_t n;

	snprintf(path, sizeof(path), "%s/base.cfile", dir);
	snprintf(dmg, sizeof(dmg), "%s/dmg.cfile", dir);
	if (cw_write(p, path, NULL, why, sizeof(why))) {
		printf("FAIL %s: writer: %s\n", name, why);
		failures++;
		return;
	}
	char *base = testio_slurp(path, &n);
	char *copy = malloc(n);
	/* One flipped bit at every offset (a different bit each time). */
	for (size_t at = 0; at < n; at++) {
		memcpy(copy, base, n);
		copy[at] ^= (char)(1u << (at % 8));
		write_bytes(dmg, copy, n);
		char *errs = probe_file(dmg);
		snprintf(label, sizeof(label), "%s: bit %zu flipped at %zu",
			 name, at % 8, at);
		if (p->checksums)
			expect_errors(label, errs, NULL);
		free(errs);
	}
	/* Every truncation. */
	for (size_t len = 1; len < n; len++) {
		write_bytes(dmg, base, len);
		char *errs = probe_file(dmg);
		snprintf(label, sizeof(label), "%s: truncated to %zu", name,
			 len);
		if (strncmp(errs, "OPEN: ", 6) && !errs[0]) {
			printf("FAIL %s: opened clean\n", label);
			failures++;
		}
		free(errs);
	}
	free(copy);
	free(base);
}

static void built_in(const char *dir, cw_params p, enum cw_damage d,
		     const char *needle)
{
	char path[600], why[256], label[128];

	snprintf(path, sizeof(path), "%s/damage.cfile", dir);
	p.damage = d;
	if (cw_write(&p, path, NULL, why, sizeof(why))) {
		printf("FAIL damage %d: writer: %s\n", d, why);
		failures++;
		return;
	}
	char *errs = probe_file(path);
	snprintf(label, sizeof(label), "damage %d", d);
	expect_errors(label, errs, needle);
	free(errs);
}

/* A flipped bit in block 1 leaves blocks 0 and 2 readable. */
static void siblings_survive(const char *dir)
{
	char path[600], exp[600], why[256];
	cw_params p;
	colfs_tree *t;
	size_t n;

	cw_params_default(&p);
	p.count = 300;
	p.block_rows = 100;
	snprintf(path, sizeof(path), "%s/sib.cfile", dir);
	snprintf(exp, sizeof(exp), "%s/sib.txt", dir);
	if (cw_write(&p, path, exp, why, sizeof(why)))
		exit(1);
	char *b = testio_slurp(path, &n);
	/* block 1 starts after the header (16) and block 0 (8+400+4) */
	b[16 + 412 + 20] ^= 0x10;
	write_bytes(path, b, n);
	free(b);
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		printf("FAIL siblings: open: %s\n", why);
		failures++;
		return;
	}
	char *want = testio_slurp(exp, NULL);
	char *b0 = cft_read(t, "blocks/0/values", NULL);
	char *b1 = cft_read(t, "blocks/1/values", NULL);
	char *b2 = cft_read(t, "blocks/2/values", NULL);
	char *v = cft_read(t, "values", NULL);
	char *errs = cft_read(t, "errors", NULL);
	char *nl = want;
	for (int i = 0; i < 200; i++)
		nl = strchr(nl, '\n') + 1;
	if (!b0 || strncmp(b0, want, strlen(b0)) || !b2 ||
	    strcmp(b2, nl) || b1 || v || !errs ||
	    !strstr(errs, "checksum mismatch")) {
		printf("FAIL siblings: b0 %s b1 %s b2 %s values %s errors %s\n",
		       b0 ? "ok" : "missing", b1 ? "readable" : "EIO",
		       b2 ? "ok" : "missing", v ? "readable" : "EIO",
		       errs ? errs : "?");
		failures++;
	}
	free(want), free(b0), free(b1), free(b2), free(v), free(errs);
	colfs_tree_destroy(t);
}

/* Random byte overwrites (1 to 4 bytes) in files of every encoding,
 * arrays and DeltaFiles: nothing may crash, hang or leak. */
static void random_damage(const char *dir)
{
	static const struct {
		int32_t type, enc, comp;
		bool nullable, array;
		int role;
	} cfg[] = {
		{CFILE_INT32, CFILE_PLAIN, 1, true, false, 0},
		{CFILE_BOOL, CFILE_PLAIN, 2, true, false, 0},
		{CFILE_BOOL, CFILE_RLE, 1, true, false, 0},
		{CFILE_INT64, CFILE_RLE, 3, false, false, 0},
		{CFILE_UINT32, CFILE_GROUP_VARINT, 1, false, false, 0},
		{CFILE_UINT32, CFILE_BIT_SHUFFLE, 4, true, false, 0},
		{CFILE_INT128, CFILE_BIT_SHUFFLE, 1, false, false, 0},
		{CFILE_STRING, CFILE_PLAIN, 1, true, false, 0},
		{CFILE_BINARY, CFILE_PREFIX, 1, true, false, 0},
		{CFILE_STRING, CFILE_DICT, 1, true, false, 0},
		{CFILE_INT16, CFILE_PLAIN, 1, true, true, 0},
		{CFILE_STRING, CFILE_DICT, 1, true, true, 0},
		{0, 0, 1, false, false, CW_DELTA},
		{0, 0, 1, false, false, CW_BLOOM},
	};
	char path[600], dmg[600], why[256];
	uint64_t rnd = 0x2545F4914F6CDD1Dull;

	snprintf(path, sizeof(path), "%s/rnd.cfile", dir);
	snprintf(dmg, sizeof(dmg), "%s/rnd-dmg.cfile", dir);
	for (size_t c = 0; c < sizeof(cfg) / sizeof(*cfg); c++) {
		cw_params p;
		size_t n;
		cw_params_default(&p);
		p.type = cfg[c].type;
		p.encoding = cfg[c].enc;
		p.compression = cfg[c].comp;
		p.nullable = cfg[c].nullable;
		p.array = cfg[c].array;
		p.role = (enum cw_role)cfg[c].role;
		p.checksums = false; /* let the damage reach the decoders */
		p.count = 120;
		p.block_rows = 40;
		p.index_block_size = 48;
		p.distinct = 30;
		p.dict_limit = 10;
		if (cw_write(&p, path, NULL, why, sizeof(why))) {
			printf("FAIL random %zu: writer: %s\n", c, why);
			failures++;
			continue;
		}
		char *base = testio_slurp(path, &n);
		for (int k = 0; base && k < 300; k++) {
			char *copy = malloc(n);
			memcpy(copy, base, n);
			int bytes = 1 + k % 4;
			for (int b = 0; b < bytes; b++) {
				rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
				/* mostly the data area, not the footer */
				size_t at = (size_t)(rnd % (n > 80 ? n - 60 : n));
				copy[at] = (char)(rnd >> 40);
			}
			write_bytes(dmg, copy, n);
			free(copy);
			free(probe_file(dmg));
		}
		free(base);
	}
}

int main(void)
{
	char *dir = cft_tmpdir();
	cw_params p;

	if (!dir)
		return 1;
	/* Small files with every region: DICT (dictionary block), nullable,
	 * a two-level posidx and a validx, LZ4. */
	cw_params_default(&p);
	p.type = CFILE_STRING;
	p.encoding = CFILE_DICT;
	p.compression = CFILE_LZ4;
	p.count = 60;
	p.block_rows = 20;
	p.index_block_size = 40;
	p.validx = true;
	p.header_metadata = true;
	flips_and_truncations(dir, &p, "STRING/DICT/LZ4");
	cw_params_default(&p);
	p.type = CFILE_INT64;
	p.encoding = CFILE_BIT_SHUFFLE;
	p.nullable = true;
	p.count = 40;
	p.block_rows = 20;
	flips_and_truncations(dir, &p, "INT64/BIT_SHUFFLE nullable");
	cw_params_default(&p);
	p.type = CFILE_INT16;
	p.encoding = CFILE_RLE;
	p.compression = CFILE_SNAPPY;
	p.checksums = false;
	p.count = 40;
	p.block_rows = 20;
	flips_and_truncations(dir, &p, "INT16/RLE/SNAPPY no checksums");
	cw_params_default(&p);
	p.type = CFILE_STRING;
	p.encoding = CFILE_PREFIX;
	p.version = 1;
	p.checksums = false;
	p.compression = CFILE_ZLIB;
	p.count = 40;
	p.block_rows = 20;
	flips_and_truncations(dir, &p, "STRING/PREFIX/ZLIB v1");

	cw_params_default(&p);
	p.count = 400;
	p.block_rows = 10;
	p.index_block_size = 48;
	built_in(dir, p, CW_DAMAGE_INDEX_CYCLE, "cycle");
	built_in(dir, p, CW_DAMAGE_ORDINAL, "first-ordinal");
	built_in(dir, p, CW_DAMAGE_UNKNOWN_FEATURE,
		 "unknown incompatible feature");
	built_in(dir, p, CW_DAMAGE_NUM_VALUES, "num_values");
	/* Only a value index: ordinals and the row total are checked while
	 * reading. */
	p.posidx = false;
	p.validx = true;
	built_in(dir, p, CW_DAMAGE_ORDINAL, "the rows before it end at");
	built_in(dir, p, CW_DAMAGE_NUM_VALUES, "num_values says");
	p.posidx = true;
	p.validx = false;
	p.type = CFILE_STRING;
	p.encoding = CFILE_DICT;
	built_in(dir, p, CW_DAMAGE_BAD_CODEWORD, "codeword 200");
	siblings_survive(dir);

	random_damage(dir);
	cft_rmdir(dir);
	free(dir);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}

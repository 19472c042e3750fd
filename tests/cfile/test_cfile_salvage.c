/* CFiles whose footer is lost: files from our writer (cw.c), damaged in a
 * temporary copy (truncated at the footer, truncated inside a data block,
 * the trailing magic overwritten), must open; salvage/ must list the
 * intact data blocks and, with -o cfile_type / cfile_encoding /
 * cfile_nullable, their values must equal the healthy file's
 * blocks/N/values (and salvage/values their concatenation).  Without the
 * type options there are no values; the damaged copy never changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"

static int failures;

#define FAIL(...)                                                           \
	do {                                                                \
		printf("FAIL: " __VA_ARGS__);                               \
		putchar('\n');                                              \
		failures++;                                                 \
	} while (0)

static void write_bytes(const char *path, const char *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

typedef struct region {
	unsigned long long off, len;
	char kind[32];
} region;

/* The healthy file's data blocks and footer start, from `layout`. */
static size_t data_blocks(colfs_tree *t, region *r, size_t max,
			  unsigned long long *footer)
{
	char *lay = cft_read(t, "layout", NULL), *line;
	size_t n = 0;

	*footer = 0;
	if (!lay)
		return 0;
	for (line = strtok(lay, "\n"); line; line = strtok(NULL, "\n")) {
		region x;

		if (sscanf(line, "%llu %llu %31s", &x.off, &x.len, x.kind) != 3)
			continue;
		if (!strcmp(x.kind, "data_block") && n < max)
			r[n++] = x;
		if (!strcmp(x.kind, "footer"))
			*footer = x.off;
	}
	free(lay);
	return n;
}

/* Damage `good` (bytes g, gl) and compare what salvage recovers: `want`
 * data blocks. */
static void check(const char *label, colfs_tree *healthy, const char *path,
		  const char *g, size_t keep, long overwrite_at, size_t want,
		  const char *const *opts, bool values, size_t listed)
{
	colfs_options o = {0};
	colfs_tree *t;
	char why[512], p[128], q[128];
	char *copy = malloc(keep ? keep : 1), *after, *all = NULL;
	size_t all_len = 0, alen;
	colfs_node *n;

	memcpy(copy, g, keep);
	if (overwrite_at >= 0)
		memcpy(copy + overwrite_at, "XXXXXXXX", 8);
	write_bytes(path, copy, keep);

	/* no options: blocks listed, no values */
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		FAIL("%s: does not open: %s", label, why);
		goto out;
	}
	{
		char *s = cft_read(t, "salvage/summary", NULL);

		/* without the encoding a dictionary block counts as data */
		snprintf(p, sizeof(p), "(data %zu)", listed);
		if (!s || !strstr(s, p))
			FAIL("%s: salvage/summary does not say %s:\n%s", label,
			     p, s ? s : "(unreadable)");
		if (s && !strstr(s, "values need -o cfile_type"))
			FAIL("%s: summary does not ask for the type", label);
		free(s);
	}
	if (colfs_tree_resolve(t, "salvage/values", &n) == COLFS_OK)
		FAIL("%s: salvage/values without the type options", label);
	snprintf(p, sizeof(p), "salvage/blocks/%zu/raw",
		 listed ? listed - 1 : 0);
	if (listed && colfs_tree_resolve(t, p, &n) != COLFS_OK)
		FAIL("%s: %s missing", label, p);
	colfs_tree_destroy(t);

	for (size_t i = 0; opts[i]; i++)
		if (colfs_options_set(&o, opts[i]) != COLFS_OK)
			FAIL("%s: option %s refused", label, opts[i]);
	if (colfs_tree_open(path, &o, &t, why, sizeof(why))) {
		FAIL("%s: does not open with options: %s", label, why);
		goto out;
	}
	snprintf(p, sizeof(p), "salvage/blocks/%zu", want);
	if (colfs_tree_resolve(t, p, &n) == COLFS_OK)
		FAIL("%s: %s exists: a damaged block was listed", label, p);
	if (!values) {
		/* DICT without its dictionary (written last): no values */
		char *s = cft_read(t, "salvage/summary", NULL);

		if (colfs_tree_resolve(t, "salvage/values", &n) == COLFS_OK)
			FAIL("%s: salvage/values without a dictionary", label);
		if (!s || !strstr(s, "DICT_ENCODING needs the dictionary"))
			FAIL("%s: summary does not say the dictionary is "
			     "missing", label);
		free(s);
		colfs_tree_destroy(t);
		goto out;
	}
	for (size_t k = 0; k < want; k++) {
		size_t hl, sl;
		char *h, *s;

		snprintf(p, sizeof(p), "blocks/%zu/values", k);
		snprintf(q, sizeof(q), "salvage/blocks/%zu/values", k);
		h = cft_read(healthy, p, &hl);
		s = cft_read(t, q, &sl);
		if (!h || !s || hl != sl || memcmp(h, s, hl))
			FAIL("%s: %s differs from the healthy %s", label, q, p);
		snprintf(p, sizeof(p), "blocks/%zu/decompressed", k);
		snprintf(q, sizeof(q), "salvage/blocks/%zu/decompressed", k);
		free(s);
		s = cft_read(t, q, &sl);
		free(h);
		h = cft_read(healthy, p, &hl);
		if (!h || !s || hl != sl || memcmp(h, s, hl))
			FAIL("%s: %s differs from the healthy %s", label, q, p);
		if (h && hl) {
			free(h);
			snprintf(p, sizeof(p), "blocks/%zu/values", k);
			h = cft_read(healthy, p, &hl);
			all = realloc(all, all_len + hl + 1);
			memcpy(all + all_len, h, hl);
			all_len += hl;
		}
		free(h);
		free(s);
	}
	{
		size_t sl;
		char *s = cft_read(t, "salvage/values", &sl);

		if (!s || sl != all_len || (all_len && memcmp(s, all, sl)))
			FAIL("%s: salvage/values (%zu bytes) differs from the "
			     "healthy blocks' values (%zu bytes)", label,
			     s ? sl : 0, all_len);
		free(s);
	}
	cft_walk(t);
	colfs_tree_destroy(t);
	after = testio_slurp(path, &alen);
	if (!after || alen != keep || memcmp(after, copy, keep))
		FAIL("%s: the damaged file changed", label);
	free(after);
	printf("done %s: %zu blocks\n", label, want);
out:
	free(all);
	free(copy);
}

static void run(const char *dir, const cw_params *cp, const char *name,
		const char *const *opts)
{
	bool dict = cp->encoding == CFILE_DICT;
	/* uncompressed without checksums: blocks are delimited by their
	 * encoding, so nothing is listed without the type options */
	bool bare = !cp->checksums && cp->compression == CFILE_NO_COMPRESSION;
	char path[600], dmg[600], why[256], label[300];
	region r[256];
	unsigned long long footer;
	size_t n, gl;
	colfs_tree *h;
	char *g;

	snprintf(path, sizeof(path), "%s/%s.cfile", dir, name);
	snprintf(dmg, sizeof(dmg), "%s/%s-damaged.cfile", dir, name);
	if (cw_write(cp, path, NULL, why, sizeof(why))) {
		FAIL("%s: writer: %s", name, why);
		return;
	}
	if (colfs_tree_open(path, NULL, &h, why, sizeof(why))) {
		FAIL("%s: healthy file does not open: %s", name, why);
		return;
	}
	n = data_blocks(h, r, 256, &footer);
	g = testio_slurp(path, &gl);
	if (n < 3 || !footer || !g) {
		FAIL("%s: %zu data blocks, footer at %llu", name, n, footer);
		colfs_tree_destroy(h);
		free(g);
		return;
	}
	snprintf(label, sizeof(label), "%s cut at the footer", name);
	check(label, h, dmg, g, (size_t)footer, -1, n, opts, true,
	      bare ? 0 : n + dict);
	snprintf(label, sizeof(label), "%s cut inside data block %zu", name,
		 n - 2);
	check(label, h, dmg, g, (size_t)(r[n - 2].off + r[n - 2].len / 2), -1,
	      n - 2, opts, !dict, bare ? 0 : n - 2);
	snprintf(label, sizeof(label), "%s with its trailing magic overwritten",
		 name);
	check(label, h, dmg, g, gl, (long)gl - 12, n, opts, true,
	      bare ? 0 : n + dict);
	free(g);
	colfs_tree_destroy(h);
}

/* Blocks 1 and 4 damaged (with checksums: 8 bytes overwritten in the
 * middle; without: the size prefix made impossible) and the footer cut
 * off: the walk must skip each damaged block, report its range, and
 * recover every other data block with the writer's values. */
static void damaged_middle(const char *dir, const cw_params *cp,
			   const char *name, const char *const *opts)
{
	char path[600], exp[600], dmg[600], why[256], q[128], *want = NULL;
	region r[256];
	unsigned long long footer;
	size_t n, gl, wl;
	colfs_tree *h = NULL, *t = NULL;
	colfs_options o = {0};
	char *g = NULL, *sum = NULL, *errs = NULL;
	const size_t bad[2] = {1, 4};
	uint32_t br = cp->block_rows;

	snprintf(path, sizeof(path), "%s/%s.cfile", dir, name);
	snprintf(exp, sizeof(exp), "%s/%s.txt", dir, name);
	snprintf(dmg, sizeof(dmg), "%s/%s-middle.cfile", dir, name);
	if (cw_write(cp, path, exp, why, sizeof(why)) ||
	    colfs_tree_open(path, NULL, &h, why, sizeof(why))) {
		FAIL("%s: %s", name, why);
		return;
	}
	n = data_blocks(h, r, 256, &footer);
	g = testio_slurp(path, &gl);
	want = testio_slurp(exp, &wl);
	if (n < 7 || !footer || !g || !want) {
		FAIL("%s: %zu data blocks", name, n);
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		const region *x = &r[bad[k]];
		if (cp->checksums)
			memcpy(g + x->off + x->len / 2, "XXXXXXXX", 8);
		else
			memset(g + x->off, 0xff, 4);
	}
	write_bytes(dmg, g, (size_t)footer);
	for (size_t i = 0; opts[i]; i++)
		if (colfs_options_set(&o, opts[i]) != COLFS_OK)
			FAIL("%s: option %s refused", name, opts[i]);
	if (colfs_tree_open(dmg, &o, &t, why, sizeof(why))) {
		FAIL("%s: damaged copy does not open: %s", name, why);
		goto out;
	}
	sum = cft_read(t, "salvage/summary", NULL);
	errs = cft_read(t, "salvage/errors", NULL);
	if (!sum || !errs) {
		FAIL("%s: salvage unreadable", name);
		goto out;
	}
	if (!strstr(sum, "caps: 1048576 blocks, 1024 skipped ranges, 4096 "
			 "candidate starts"))
		FAIL("%s: summary does not show the caps:\n%s", name, sum);
	{
		colfs_options o3 = o;
		colfs_tree *t3;
		char *s3;

		if (colfs_options_set(&o3, "salvage_effort=3") ||
		    colfs_tree_open(dmg, &o3, &t3, why, sizeof(why))) {
			FAIL("%s: salvage_effort=3: does not open", name);
		} else {
			s3 = cft_read(t3, "salvage/summary", NULL);
			if (!s3 || !strstr(s3, "caps: 3145728 blocks, 3072 "
					       "skipped ranges, 12288 "
					       "candidate starts"))
				FAIL("%s: salvage_effort=3: caps not tripled",
				     name);
			free(s3);
			colfs_tree_destroy(t3);
		}
	}
	for (int k = 0; k < 2; k++) {
		snprintf(q, sizeof(q), "skipped: offset %llu length %llu",
			 r[bad[k]].off, r[bad[k]].len);
		if (!strstr(sum, q))
			FAIL("%s: summary does not say \"%s\":\n%s", name, q,
			     sum);
		snprintf(q, sizeof(q), "offset %llu (0x%llx): corrupt: "
			 "salvage: bytes %llu to %llu", r[bad[k]].off,
			 r[bad[k]].off, r[bad[k]].off,
			 r[bad[k]].off + r[bad[k]].len);
		if (!strstr(errs, q))
			FAIL("%s: errors do not say \"%s\":\n%s", name, q, errs);
	}
	/* every other block: the writer's values, block_rows lines each */
	const char *line = want;
	for (size_t j = 0, m = 0; j < n; j++) {
		const char *end = line;
		for (uint32_t k = 0; k < br && *end; k++)
			end = strchr(end, '\n') + 1;
		if (j != bad[0] && j != bad[1]) {
			char p[64];
			size_t sl;
			char *sv;
			snprintf(q, sizeof(q), "block at %llu size %llu: data "
				 "%zu\n", r[j].off, r[j].len, m);
			snprintf(p, sizeof(p), "salvage/blocks/%zu/values", m);
			sv = cft_read(t, p, &sl);
			if (!strstr(sum, q) || !sv ||
			    sl != (size_t)(end - line) ||
			    memcmp(sv, line, sl))
				FAIL("%s: block %zu is not salvaged as data "
				     "block %zu with the writer's values", name,
				     j, m);
			free(sv);
			m++;
		}
		line = end;
	}
	printf("done %s: damage in the middle\n", name);
out:
	free(sum);
	free(errs);
	free(g);
	free(want);
	if (t)
		colfs_tree_destroy(t);
	if (h)
		colfs_tree_destroy(h);
}

int main(void)
{
	char *dir = cft_tmpdir();
	cw_params p;

	cw_params_default(&p);
	p.type = CFILE_INT64;
	p.encoding = CFILE_BIT_SHUFFLE;
	p.compression = CFILE_LZ4;
	p.count = 5000;
	p.block_rows = 700;
	run(dir, &p, "int64-bshuf-lz4-crc",
	    (const char *const[]){"cfile_type=INT64",
				  "cfile_encoding=BIT_SHUFFLE", NULL});

	p.checksums = false;
	run(dir, &p, "int64-bshuf-lz4",
	    (const char *const[]){"cfile_type=INT64",
				  "cfile_encoding=BIT_SHUFFLE", NULL});

	cw_params_default(&p);
	p.type = CFILE_INT32;
	p.encoding = CFILE_PLAIN;
	p.compression = CFILE_NO_COMPRESSION;
	p.nullable = true;
	p.count = 6000;
	p.block_rows = 1000;
	run(dir, &p, "int32-plain-nullable-crc",
	    (const char *const[]){"cfile_type=INT32", "cfile_encoding=PLAIN",
				  "cfile_nullable=true", NULL});

	cw_params_default(&p);
	p.type = CFILE_STRING;
	p.encoding = CFILE_DICT;
	p.compression = CFILE_SNAPPY;
	p.count = 5000;
	p.block_rows = 600;
	p.distinct = 2000;
	p.dict_limit = 300;
	run(dir, &p, "string-dict-snappy-crc",
	    (const char *const[]){"cfile_type=STRING",
				  "cfile_encoding=DICT_ENCODING",
				  "cfile_compression=SNAPPY", NULL});

	cw_params_default(&p);
	p.type = CFILE_DOUBLE;
	p.encoding = CFILE_PLAIN;
	p.compression = CFILE_ZLIB;
	p.checksums = false;
	p.count = 4000;
	p.block_rows = 900;
	run(dir, &p, "double-plain-zlib",
	    (const char *const[]){"cfile_type=DOUBLE", "cfile_encoding=PLAIN",
				  NULL});

	cw_params_default(&p);
	p.version = 1;
	p.checksums = false;
	p.type = CFILE_STRING;
	p.encoding = CFILE_PREFIX;
	p.compression = CFILE_SNAPPY;
	p.count = 4000;
	p.block_rows = 800;
	run(dir, &p, "v1-string-prefix-snappy",
	    (const char *const[]){"cfile_type=STRING",
				  "cfile_encoding=PREFIX", NULL});

	/* uncompressed without checksums: the encodings' own lengths */
	cw_params_default(&p);
	p.checksums = false;
	p.type = CFILE_INT32;
	p.encoding = CFILE_PLAIN;
	p.compression = CFILE_NO_COMPRESSION;
	p.nullable = true;
	p.count = 5000;
	p.block_rows = 700;
	run(dir, &p, "int32-plain-nullable-bare",
	    (const char *const[]){"cfile_type=INT32", "cfile_encoding=PLAIN",
				  "cfile_nullable=true", NULL});
	p.type = CFILE_STRING;
	p.nullable = false;
	run(dir, &p, "string-plain-bare",
	    (const char *const[]){"cfile_type=STRING", "cfile_encoding=PLAIN",
				  NULL});
	p.type = CFILE_DOUBLE;
	p.encoding = CFILE_BIT_SHUFFLE;
	run(dir, &p, "double-bshuf-bare",
	    (const char *const[]){"cfile_type=DOUBLE",
				  "cfile_encoding=BIT_SHUFFLE", NULL});

	/* RLE and PREFIX: the run stream and the restart array end them */
	p.type = CFILE_INT16;
	p.encoding = CFILE_RLE;
	p.nullable = true;
	run(dir, &p, "int16-rle-nullable-bare",
	    (const char *const[]){"cfile_type=INT16", "cfile_encoding=RLE",
				  "cfile_nullable=true", NULL});
	p.type = CFILE_BOOL;
	p.nullable = false;
	run(dir, &p, "bool-rle-bare",
	    (const char *const[]){"cfile_type=BOOL", "cfile_encoding=RLE",
				  NULL});
	p.type = CFILE_VARCHAR;
	p.encoding = CFILE_PREFIX;
	p.restart_interval = 3;
	run(dir, &p, "varchar-prefix-bare",
	    (const char *const[]){"cfile_type=VARCHAR",
				  "cfile_encoding=PREFIX", NULL});

	/* blocks larger than the walk's first 64 KiB read */
	cw_params_default(&p);
	p.type = CFILE_INT64;
	p.encoding = CFILE_PLAIN;
	p.compression = CFILE_NO_COMPRESSION;
	p.count = 60000;
	p.block_rows = 20000;
	run(dir, &p, "int64-plain-big-blocks-crc",
	    (const char *const[]){"cfile_type=INT64", "cfile_encoding=PLAIN",
				  NULL});

	/* damage in the middle: the walk goes on after it */
	cw_params_default(&p);
	p.type = CFILE_INT64;
	p.encoding = CFILE_BIT_SHUFFLE;
	p.compression = CFILE_LZ4;
	p.count = 5000;
	p.block_rows = 600;
	damaged_middle(dir, &p, "mid-int64-bshuf-lz4-crc",
		       (const char *const[]){"cfile_type=INT64",
					     "cfile_encoding=BIT_SHUFFLE",
					     NULL});
	p.checksums = false;
	damaged_middle(dir, &p, "mid-int64-bshuf-lz4",
		       (const char *const[]){"cfile_type=INT64",
					     "cfile_encoding=BIT_SHUFFLE",
					     NULL});
	cw_params_default(&p);
	p.type = CFILE_STRING;
	p.encoding = CFILE_DICT;
	p.compression = CFILE_SNAPPY;
	p.count = 5000;
	p.block_rows = 600;
	p.distinct = 2000;
	p.dict_limit = 300;
	damaged_middle(dir, &p, "mid-string-dict-snappy-crc",
		       (const char *const[]){"cfile_type=STRING",
					     "cfile_encoding=DICT",
					     "cfile_compression=SNAPPY", NULL});
	cw_params_default(&p);
	p.type = CFILE_DOUBLE;
	p.encoding = CFILE_PLAIN;
	p.compression = CFILE_ZLIB;
	p.checksums = false;
	p.count = 4000;
	p.block_rows = 500;
	damaged_middle(dir, &p, "mid-double-plain-zlib",
		       (const char *const[]){"cfile_type=DOUBLE",
					     "cfile_encoding=PLAIN", NULL});
	cw_params_default(&p);
	p.version = 1;
	p.checksums = false;
	p.type = CFILE_STRING;
	p.encoding = CFILE_PREFIX;
	p.compression = CFILE_SNAPPY;
	p.count = 4000;
	p.block_rows = 500;
	damaged_middle(dir, &p, "mid-v1-string-prefix-snappy",
		       (const char *const[]){"cfile_type=STRING",
					     "cfile_encoding=PREFIX", NULL});
	/* uncompressed with checksums: the type options give the lengths */
	cw_params_default(&p);
	p.type = CFILE_INT32;
	p.encoding = CFILE_PLAIN;
	p.compression = CFILE_NO_COMPRESSION;
	p.nullable = true;
	p.count = 6000;
	p.block_rows = 700;
	damaged_middle(dir, &p, "mid-int32-plain-nullable-crc",
		       (const char *const[]){"cfile_type=INT32",
					     "cfile_encoding=PLAIN",
					     "cfile_nullable=true", NULL});
	p.type = CFILE_STRING;
	p.encoding = CFILE_PREFIX;
	p.nullable = false;
	damaged_middle(dir, &p, "mid-string-prefix-crc",
		       (const char *const[]){"cfile_type=STRING",
					     "cfile_encoding=PREFIX", NULL});

	cft_rmdir(dir);
	free(dir);
	if (failures)
		printf("%d failures\n", failures);
	return failures ? 1 : 0;
}

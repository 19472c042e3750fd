/* A Kudu data root (docs/kudu-tree.md, "Data roots"): an instance file,
 * data/ with two log block containers, tablet-meta/ with two tablets whose
 * rowsets' blocks are spread over both containers.  Every column of every
 * rowset, and each tablet's columns/<name> over its rowsets, read the
 * values the CFile writer wrote; bloom and delta blocks show their CFile
 * trees; a block missing from every container and a damaged superblock
 * are problems, the rest readable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"
#include "kcw.h"
#include "kudu/kudu.pb-c.h"

static int failures;

#define FAIL(...)                                                          \
	do {                                                               \
		printf("FAIL " __VA_ARGS__);                               \
		printf("\n");                                              \
		failures++;                                                \
	} while (0)

/* A superblock of table `name`: columns key (INT64 key), s (STRING
 * NULL), d (DOUBLE NULL); `nrs` rowsets, rowset r's column c in block
 * 100 * (r + 1) + c, its bloom 100 * (r + 1) + 50, one REDO and one UNDO
 * delta in 100 * (r + 1) + 60 and + 70.  Returns packed bytes (malloc). */
static uint8_t *superblock(const char *name, size_t nrs, uint64_t base, size_t *len)
{
	Kudu__Fs__TabletSuperBlockPB sb = KUDU__FS__TABLET_SUPER_BLOCK_PB__INIT;
	Kudu__Fs__SchemaPB schema = KUDU__FS__SCHEMA_PB__INIT;
	Kudu__Fs__ColumnSchemaPB cols[3], *colp[3];
	static const char *const names[] = {"key", "s", "d"};
	static const Kudu__Fs__DataType types[] = {
		KUDU__FS__DATA_TYPE__INT64, KUDU__FS__DATA_TYPE__STRING,
		KUDU__FS__DATA_TYPE__DOUBLE};
	for (int i = 0; i < 3; i++) {
		kudu__fs__column_schema_pb__init(&cols[i]);
		cols[i].has_id = true;
		cols[i].id = 10 + (uint32_t)i;
		cols[i].name = (char *)names[i];
		cols[i].type = types[i];
		cols[i].has_is_key = true;
		cols[i].is_key = i == 0;
		cols[i].has_is_nullable = true;
		cols[i].is_nullable = i != 0;
		colp[i] = &cols[i];
	}
	schema.n_columns = 3;
	schema.columns = colp;
	Kudu__Fs__RowSetDataPB rs[4], *rsp[4];
	Kudu__Fs__ColumnDataPB cd[4][3], *cdp[4][3];
	Kudu__Fs__DeltaDataPB redo[4], undo[4], *redop[4], *undop[4];
	Kudu__Fs__BlockIdPB ids[4][6];
	for (size_t r = 0; r < nrs && r < 4; r++) {
		kudu__fs__row_set_data_pb__init(&rs[r]);
		for (int b = 0; b < 6; b++) {
			kudu__fs__block_id_pb__init(&ids[r][b]);
			ids[r][b].id = base + 100 * r + (b < 3 ? (uint64_t)b
						     : 50 + 10 * (uint64_t)(b - 3));
		}
		rs[r].id = r;
		for (int c = 0; c < 3; c++) {
			kudu__fs__column_data_pb__init(&cd[r][c]);
			cd[r][c].block = &ids[r][c];
			cd[r][c].has_column_id = true;
			cd[r][c].column_id = 10 + c;
			cdp[r][c] = &cd[r][c];
		}
		rs[r].n_columns = 3;
		rs[r].columns = cdp[r];
		rs[r].bloom_block = &ids[r][3];
		kudu__fs__delta_data_pb__init(&redo[r]);
		kudu__fs__delta_data_pb__init(&undo[r]);
		redo[r].block = &ids[r][4];
		undo[r].block = &ids[r][5];
		redop[r] = &redo[r];
		undop[r] = &undo[r];
		rs[r].n_redo_deltas = 1;
		rs[r].redo_deltas = &redop[r];
		rs[r].n_undo_deltas = 1;
		rs[r].undo_deltas = &undop[r];
		rsp[r] = &rs[r];
	}
	sb.table_id.data = (uint8_t *)"5a1b2c3d4e5f60718293a4b5c6d7e8f9";
	sb.table_id.len = 32;
	sb.tablet_id.data = (uint8_t *)"0f1e2d3c4b5a69788796a5b4c3d2e1f0";
	sb.tablet_id.len = 32;
	sb.table_name = (char *)name;
	sb.schema = &schema;
	sb.schema_version = 3;
	sb.n_rowsets = nrs;
	sb.rowsets = rsp;
	sb.has_tablet_data_state = true;
	sb.tablet_data_state = KUDU__FS__TABLET_DATA_STATE__TABLET_DATA_READY;
	*len = kudu__fs__tablet_super_block_pb__get_packed_size(&sb);
	uint8_t *out = malloc(*len);
	if (out)
		kudu__fs__tablet_super_block_pb__pack(&sb, out);
	return out;
}


static const char *const col_names[] = {"key", "s", "d"};

/* Write the blocks of one rowset (ids base + 100 r + ...) into `c`; the
 * expected values of column i go to `<dir>/exp-<base+100r+i>.txt`. */
static void rowset_blocks(kcw *c, const char *dir, uint64_t base, size_t r)
{
	for (int b = 0; b < 6; b++) {
		cw_params p;
		char path[700], exp[700], why[256];
		uint64_t id = base + 100 * r + (b < 3 ? (uint64_t)b : 50 + 10 * (uint64_t)(b - 3));
		cw_params_default(&p);
		p.seed = (uint32_t)id;
		p.count = 200 + (uint32_t)(id % 97);
		if (b == 0) {
			p.type = cw_type_parse("INT64");
			p.encoding = cw_encoding_parse("BIT_SHUFFLE");
		} else if (b == 1) {
			p.type = cw_type_parse("STRING");
			p.encoding = cw_encoding_parse("DICT");
			p.nullable = true;
		} else if (b == 2) {
			p.type = cw_type_parse("DOUBLE");
			p.nullable = true;
		} else if (b == 3) {
			p.role = CW_BLOOM;
			p.block_rows = 64;
		} else {
			p.role = CW_DELTA;
			p.undo = b == 5;
			p.compression = CFILE_LZ4;
		}
		snprintf(path, sizeof path, "%s/blk-%llu.cfile", dir, (unsigned long long)id);
		snprintf(exp, sizeof exp, "%s/exp-%llu.txt", dir, (unsigned long long)id);
		size_t len;
		char *bytes;
		if (cw_write(&p, path, exp, why, sizeof why) ||
		    !(bytes = testio_slurp(path, &len)) || kcw_add(c, id, bytes, len)) {
			FAIL("write block %llu: %s", (unsigned long long)id, why);
			continue;
		}
		free(bytes);
	}
}

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

static void same_file(colfs_tree *t, const char *node, const char *file,
		      const char *label)
{
	size_t gl = 0, wl = 0;
	char *got = cft_read(t, node, &gl), *want = testio_slurp(file, &wl);
	if (!got || !want || gl != wl || memcmp(got, want, gl))
		FAIL("%s: %s differs from %s (%zu bytes, want %zu)", label, node,
		     file, gl, wl);
	free(got);
	free(want);
}

static const char *const tablet_ids[] = {"11112222333344445555666677778888",
					 "9999aaaabbbbccccddddeeeeffff0000"};

static void write_root(const char *dir, const char *root, bool missing)
{
	char p[800];
	kcw a, b;
	snprintf(p, sizeof p, "%s/data", root);
	mkdir(root, 0755);
	mkdir(p, 0755);
	snprintf(p, sizeof p, "%s/tablet-meta", root);
	mkdir(p, 0755);
	/* the instance file: an InstanceMetadataPB (uuid, format_stamp) */
	static const uint8_t inst[] = {0x0a, 4, 'u', 'u', 'i', 'd', 0x12, 4, 't', 'e', 's', 't'};
	const uint8_t *ib[] = {inst};
	size_t il = sizeof inst;
	snprintf(p, sizeof p, "%s/instance", root);
	if (kcw_pb_file(p, 2, "kudu.InstanceMetadataPB", ib, &il, 1))
		FAIL("instance");
	snprintf(p, sizeof p, "%s/data/aaaa0000aaaa0000aaaa0000aaaa0000", root);
	kcw_open(&a, p, 2);
	snprintf(p, sizeof p, "%s/data/bbbb1111bbbb1111bbbb1111bbbb1111", root);
	kcw_open(&b, p, 1);
	rowset_blocks(&a, dir, 1000, 0);
	rowset_blocks(&b, dir, 1000, 1);
	if (!missing)
		rowset_blocks(&b, dir, 5000, 0);
	kcw_close(&a);
	kcw_close(&b);
	for (int i = 0; i < 2; i++) {
		size_t len;
		uint8_t *sb = superblock(i ? "events" : "metrics", i ? 1 : 2,
					 i ? 5000 : 1000, &len);
		const uint8_t *bodies[] = {sb};
		snprintf(p, sizeof p, "%s/tablet-meta/%s", root, tablet_ids[i]);
		if (!sb || kcw_pb_file(p, 2, "kudu.tablet.TabletSuperBlockPB",
				       bodies, &len, 1))
			FAIL("superblock %d", i);
		free(sb);
	}
}

int main(void)
{
	char *dir = cft_tmpdir();
	char root[700], why[600], node[300], file[800];
	colfs_tree *t;
	if (!dir)
		return 1;
	snprintf(root, sizeof root, "%s/root", dir);
	write_root(dir, root, false);
	if (colfs_tree_open(root, NULL, &t, why, sizeof why)) {
		FAIL("open: %s", why);
		goto out;
	}
	char *s = cft_read(t, "summary", NULL);
	if (!has(s, "containers: 2 (18 live blocks, 0 deleted)") ||
	    !has(s, "tablets: 2 of 2 superblocks readable, 3 rowsets"))
		FAIL("summary: %s", s ? s : "(none)");
	free(s);
	static const uint64_t bases[] = {1000, 1000, 5000};
	static const size_t rowsets[] = {0, 1, 0};
	for (int k = 0; k < 3; k++) {
		const char *tid = tablet_ids[k == 2];
		uint64_t base = bases[k] + 100 * rowsets[k];
		for (int c = 0; c < 3; c++) {
			snprintf(node, sizeof node, "tablets/%s/rowsets/%zu/columns/%s/values",
				 tid, rowsets[k], col_names[c]);
			snprintf(file, sizeof file, "%s/exp-%llu.txt", dir,
				 (unsigned long long)(base + (uint64_t)c));
			same_file(t, node, file, "rowset column");
		}
		snprintf(node, sizeof node, "tablets/%s/rowsets/%zu/redo/0/deltas", tid, rowsets[k]);
		snprintf(file, sizeof file, "%s/exp-%llu.txt", dir, (unsigned long long)(base + 60));
		same_file(t, node, file, "redo");
		snprintf(node, sizeof node, "tablets/%s/rowsets/%zu/undo/0/deltas", tid, rowsets[k]);
		snprintf(file, sizeof file, "%s/exp-%llu.txt", dir, (unsigned long long)(base + 70));
		same_file(t, node, file, "undo");
		snprintf(node, sizeof node, "tablets/%s/rowsets/%zu/bloom/summary", tid, rowsets[k]);
		char *b = cft_read(t, node, NULL);
		if (!has(b, "BloomFile"))
			FAIL("%s: %s", node, b ? b : "(none)");
		free(b);
	}
	/* tablet 1's columns over its two rowsets */
	for (int c = 0; c < 3; c++) {
		size_t l0, l1, gl;
		snprintf(file, sizeof file, "%s/exp-%d.txt", dir, 1000 + c);
		char *w0 = testio_slurp(file, &l0);
		snprintf(file, sizeof file, "%s/exp-%d.txt", dir, 1100 + c);
		char *w1 = testio_slurp(file, &l1);
		snprintf(node, sizeof node, "tablets/%s/columns/%s", tablet_ids[0], col_names[c]);
		char *got = cft_read(t, node, &gl);
		if (!w0 || !w1 || !got || gl != l0 + l1 || memcmp(got, w0, l0) ||
		    memcmp(got + l0, w1, l1))
			FAIL("%s: not the two rowsets' values in turn", node);
		free(w0);
		free(w1);
		free(got);
	}
	/* byte ranges of a block's tree (streams of another file's bytes
	 * here) equal those of the CFile alone */
	{
		static const char *const raws[] = {"raw/header", "raw/footer",
						   "blocks/0/raw", "layout"};
		colfs_tree *alone;
		snprintf(file, sizeof file, "%s/blk-1101.cfile", dir);
		if (colfs_tree_open(file, NULL, &alone, why, sizeof why)) {
			FAIL("open %s: %s", file, why);
		} else {
			for (int i = 0; i < 4; i++) {
				size_t al = 0, gl = 0;
				char *a = cft_read(alone, raws[i], &al);
				snprintf(node, sizeof node,
					 "tablets/%s/rowsets/1/columns/s/%s",
					 tablet_ids[0], raws[i]);
				char *g = cft_read(t, node, &gl);
				if (!a || !g || al != gl || memcmp(a, g, al) || !al)
					FAIL("%s: differs from the CFile alone", node);
				free(a);
				free(g);
			}
			colfs_tree_destroy(alone);
		}
	}
	snprintf(node, sizeof node, "containers/bbbb1111bbbb1111bbbb1111bbbb1111/blocks/0000000000005001/values");
	snprintf(file, sizeof file, "%s/exp-5001.txt", dir);
	same_file(t, node, file, "containers/");
	cft_walk(t);
	char *e = cft_read(t, "errors", NULL);
	if (!e || e[0])
		FAIL("errors: %s", e ? e : "(none)");
	free(e);
	colfs_tree_destroy(t);
	printf("data root: ok\n");

	/* tablet 2's blocks missing, tablet 1's superblock damaged */
	snprintf(root, sizeof root, "%s/root2", dir);
	write_root(dir, root, true);
	snprintf(file, sizeof file, "%s/tablet-meta/%s", root, tablet_ids[0]);
	if (truncate(file, 40))
		FAIL("truncate");
	if (colfs_tree_open(root, NULL, &t, why, sizeof why)) {
		FAIL("open 2: %s", why);
		goto out;
	}
	snprintf(node, sizeof node, "tablets/%s/rowsets/0/columns/key/values", tablet_ids[1]);
	char *v = cft_read(t, node, NULL);
	if (v)
		FAIL("a block in no container read: %s", node);
	free(v);
	cft_walk(t);
	e = cft_read(t, "errors", NULL);
	char want[200];
	snprintf(want, sizeof want, "/tablets/%s: offset 0 (0x0): corrupt: superblock not readable: no record holds", tablet_ids[0]);
	if (!has(e, want) || !has(e, "block 0000000000005000 is in no container of the data root"))
		FAIL("errors 2: %s", e ? e : "(none)");
	else
		printf("damaged data root: ok\n");
	free(e);
	colfs_tree_destroy(t);
out:
	if (!getenv("KUDU_TEST_KEEP"))
		cft_rmdir(dir);
	else
		printf("kept %s\n", dir);
	free(dir);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}

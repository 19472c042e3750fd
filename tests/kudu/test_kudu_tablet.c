/* Kudu tablet superblocks (tablet-meta/<tablet id>; docs/kudu-tree.md,
 * "Tablet superblocks"): a TabletSuperBlockPB written with protobuf-c in
 * a protobuf container of either version; the schema, the rowsets and
 * their blocks read back; a damaged last record falls back to the one
 * before it, with the problem at its offset; mutants open or are refused
 * with a reason, and walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cft.h"
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
static uint8_t *superblock(const char *name, size_t nrs, size_t *len)
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
			ids[r][b].id = 100 * (r + 1) + (b < 3 ? (uint64_t)b
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

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

static void expect(colfs_tree *t, const char *path, const char *want,
		   const char *label)
{
	char *got = cft_read(t, path, NULL);
	if (!has(got, want))
		FAIL("%s: %s lacks '%s':\n%s", label, path, want, got ? got : "(none)");
	free(got);
}

int main(void)
{
	char *dir = cft_tmpdir();
	char path[600], why[512];
	colfs_tree *t;
	if (!dir)
		return 1;
	for (int v = 1; v <= 2; v++) {
		char label[32];
		size_t len;
		uint8_t *b = superblock("metrics", 2, &len);
		const uint8_t *bodies[] = {b};
		snprintf(label, sizeof label, "superblock v%d", v);
		snprintf(path, sizeof path, "%s/0f1e2d3c4b5a69788796a5b4c3d2e1f0-v%d", dir, v);
		if (!b || kcw_pb_file(path, v, "kudu.tablet.TabletSuperBlockPB",
				      bodies, &len, 1))
			FAIL("%s: write", label);
		free(b);
		if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
			FAIL("%s: open: %s", label, why);
			continue;
		}
		char fmt[64];
		snprintf(fmt, sizeof fmt, "kudu tablet superblock v%d\n", v);
		expect(t, "format", fmt, label);
		expect(t, "schema",
		       "key INT64 NOT NULL KEY (id 10)\ns STRING NULL (id 11)\nd DOUBLE NULL (id 12)\n",
		       label);
		expect(t, "rowsets/1/blocks",
		       "0000000000000200 column key\n0000000000000201 column s\n"
		       "0000000000000202 column d\n0000000000000250 bloom\n"
		       "0000000000000260 redo 0\n0000000000000270 undo 0\n",
		       label);
		expect(t, "superblock.json", "\"table_name\": \"metrics\"", label);
		expect(t, "summary", "tablet: 0f1e2d3c4b5a69788796a5b4c3d2e1f0\n", label);
		expect(t, "summary", "rowsets: 2\n", label);
		expect(t, "summary", "data state: TABLET_DATA_READY\n", label);
		expect(t, "records/1.json", "\"type\": \"TabletSuperBlockPB\"", label);
		char *e = cft_read(t, "errors", NULL);
		if (!e || e[0])
			FAIL("%s: errors: %s", label, e ? e : "(none)");
		free(e);
		cft_walk(t);
		colfs_tree_destroy(t);
		printf("%s: ok\n", label);
	}

	/* two records, the last one's body damaged: the first one is
	 * shown, the problem at the last one's checksum */
	size_t l1, l2;
	uint8_t *b1 = superblock("old", 1, &l1), *b2 = superblock("new", 2, &l2);
	const uint8_t *bodies[] = {b1, b2};
	size_t lens[] = {l1, l2};
	snprintf(path, sizeof path, "%s/two", dir);
	if (!b1 || !b2 || kcw_pb_file(path, 2, "kudu.tablet.TabletSuperBlockPB",
				      bodies, lens, 2))
		FAIL("two: write");
	FILE *f = fopen(path, "r+b");
	if (f) {
		fseek(f, -10, SEEK_END);
		int ch = fgetc(f);
		fseek(f, -1, SEEK_CUR);
		fputc(ch ^ 0x08, f);
		fclose(f);
	}
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		FAIL("two: open: %s", why);
	} else {
		char want[160];
		struct stat st;
		stat(path, &st);
		snprintf(want, sizeof want, "/records/2: offset %lld (0x%llx): corrupt: ",
			 (long long)st.st_size - 4, (long long)st.st_size - 4);
		expect(t, "errors", want, "two");
		expect(t, "errors", "record checksum mismatch", "two");
		expect(t, "superblock.json", "\"table_name\": \"old\"", "two");
		expect(t, "summary", "the superblock is record 1", "two");
		cft_walk(t);
		colfs_tree_destroy(t);
		printf("two records, the last damaged: ok\n");
	}

	/* a container of other records: refused by name */
	snprintf(path, sizeof path, "%s/other", dir);
	kcw_pb_file(path, 2, "kudu.consensus.ConsensusMetadataPB", bodies, lens, 1);
	if (colfs_tree_open(path, NULL, &t, why, sizeof why) == COLFS_OK) {
		FAIL("other: opened");
		colfs_tree_destroy(t);
	} else if (!has(why, "kudu.consensus.ConsensusMetadataPB records")) {
		FAIL("other: %s", why);
	}

	/* mutants of the healthy v2 file: every byte flipped, cut at every
	 * third length */
	size_t n = 0, opened = 0;
	snprintf(path, sizeof path, "%s/0f1e2d3c4b5a69788796a5b4c3d2e1f0-v2", dir);
	size_t flen;
	char *orig = testio_slurp(path, &flen);
	char mpath[700];
	snprintf(mpath, sizeof mpath, "%s/mutant", dir);
	for (size_t i = 0; orig && i < 2 * flen; i += i < flen ? 1 : 3, n++) {
		FILE *m = fopen(mpath, "wb");
		if (!m)
			break;
		if (i < flen) {
			orig[i] ^= 0x81;
			fwrite(orig, 1, flen, m);
			orig[i] ^= 0x81;
		} else {
			fwrite(orig, 1, i - flen, m);
		}
		fclose(m);
		if (colfs_tree_open(mpath, NULL, &t, why, sizeof why) == COLFS_OK) {
			cft_walk(t);
			colfs_tree_destroy(t);
			opened++;
		} else if (!why[0]) {
			FAIL("mutant %zu refused without a reason", i);
		}
	}
	printf("mutants: %zu written, %zu opened and walked\n", n, opened);
	free(orig);
	free(b1);
	free(b2);
	cft_rmdir(dir);
	free(dir);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}

/* tests/iceberg: which rows an Iceberg snapshot's deletes remove
 * (formats/dataset/iceberg/ice_deletes.c, ice_puffin.c).
 *
 *   test_ice_deletes FIXTURES CORPUS
 *   test_ice_deletes --table FILES.json ROWS
 *
 * FIXTURES holds the files deletes-fixtures.mjs (Parquet data and delete
 * files, written by DuckDB) and deletes-fixtures.py (Puffin files) wrote,
 * expected.json (each case's deleted rows, DuckDB's anti-join of the data
 * file with the delete files) and puffin.json (each deletion vector's
 * offset and length).  Each case builds the ice_file arrays a manifest
 * would give, by hand, asks ice_deletes_rows and compares the rows with
 * DuckDB's, exactly.  The failing cases (the corpus's bare deletion
 * vector, a truncated Puffin file, a CRC mismatch, missing delete files)
 * must fail with their status and the file named.  CORPUS: the shared
 * corpus (../shared/corpus), for the bare deletion vector; its case is
 * skipped with a message when the corpus is absent.
 *
 * --table: the files of one snapshot of a table make_table.py wrote, as
 * table_files.py read them from its manifests (python3-avro): the
 * snapshot must hold ROWS rows (DuckDB's count, expected.json) once the
 * rows ice_deletes_rows gives for each data file are left out. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/options.h"
#include "core/thread.h"
#include "dataset/iceberg/ice_deletes.h"

static const char *fx, *corpus;
static json_t *expected, *puffins;
static colfs_options opts;
static int failures, cases;

#define PA "s3://warehouse/db/t/data/cat=a/data_a.parquet"
#define PB "s3://warehouse/db/t/data/cat=b/tab\there\\b.parquet"
#define POLD "s3://warehouse/db/t/data/cat=a/data_old.parquet"
#define PNOID "s3://warehouse/db/t/data/cat=a/data_noid.parquet"
#define PBIG "s3://warehouse/db/t/data/big.parquet"

static int32_t eq_id[] = {1}, eq_id_name[] = {1, 2}, eq_name[] = {2};

static const ice_field_ref fields[] = {
	{1, "id"}, {2, "name"}, {3, "cat"},
};

/* An ice_file as a manifest entry gives it. */
static ice_file file(const char *path, const char *local_name, int content,
		     int64_t seq, int32_t spec, const char *partition)
{
	ice_file f;
	char *local = malloc(strlen(fx) + strlen(local_name) + 2);

	memset(&f, 0, sizeof f);
	sprintf(local, "%s/%s", fx, local_name);
	f.path = strdup(path);
	f.local = local;
	f.content = content;
	f.seq = seq;
	f.spec_id = spec;
	f.partition = partition ? json_loads(partition, 0, NULL)
				: json_object();
	f.record_count = -1;
	f.content_offset = -1;
	f.content_size = -1;
	f.manifest = strdup("s3://warehouse/db/t/metadata/m0.avro");
	return f;
}

static ice_file data_file(const char *path, const char *name, int64_t seq,
			  int32_t spec, const char *partition, int64_t rows)
{
	ice_file f = file(path, name, 0, seq, spec, partition);
	f.record_count = rows;
	return f;
}

static ice_file pos_file(const char *name, int64_t seq, int32_t spec,
			 const char *partition)
{
	return file(name, name, 1, seq, spec,
		    partition);
}

static ice_file eq_file(const char *name, int32_t *ids, size_t n, int64_t seq,
			int32_t spec, const char *partition)
{
	ice_file f = file(name, name, 2, seq, spec, partition);
	f.equality_ids = ids;
	f.n_equality_ids = n;
	return f;
}

/* A deletion vector of `name` for data file `data`, at the offset and
 * length deletes-fixtures.py wrote it at. */
static ice_file dv_file(const char *name, const char *data, int64_t seq,
			int32_t spec, const char *partition)
{
	ice_file f = file(name, name, 1, seq, spec, partition);
	json_t *w = json_object_get(json_object_get(puffins, name), data);
	f.referenced_data_file = strdup(data);
	f.content_offset = json_integer_value(json_array_get(w, 0));
	f.content_size = json_integer_value(json_array_get(w, 1));
	return f;
}

static void files_free(ice_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].path);
		free(f[i].local);
		free(f[i].manifest);
		free(f[i].referenced_data_file);
		json_decref(f[i].partition);
	}
}

static void fail(const char *name, const char *fmt, const char *detail)
{
	failures++;
	printf("FAIL %s: ", name);
	printf(fmt, detail);
	printf("\n");
}

/* Data file `which` of `data` must lose exactly expected.json's `name`
 * rows to `dels`. */
static void expect_rows(const char *name, ice_file *data, size_t n_data,
			size_t which, ice_file *dels, size_t n_dels)
{
	ice_deletes *d;
	colfs_err err = {0};
	uint64_t *rows;
	size_t n;
	json_t *want = json_object_get(expected, name);

	cases++;
	if (!json_is_array(want)) {
		fail(name, "%s", "no expected rows");
		return;
	}
	if (ice_deletes_new(data, n_data, dels, n_dels, fields, 3, &opts, &d,
			    &err)) {
		fail(name, "ice_deletes_new: %s", err.msg);
		return;
	}
	if (ice_deletes_rows(d, which, &rows, &n, &err)) {
		fail(name, "ice_deletes_rows: %s", err.msg);
		ice_deletes_free(d);
		return;
	}
	bool same = n == json_array_size(want);
	for (size_t i = 0; same && i < n; i++)
		same = rows[i] == (uint64_t)json_integer_value(
					  json_array_get(want, i));
	if (!same) {
		char got[512] = "";
		size_t at = 0;
		for (size_t i = 0; i < n && i < 20 && at < 400; i++)
			at += (size_t)snprintf(got + at, sizeof got - at,
					       "%" PRIu64 " ", rows[i]);
		fail(name, "rows differ from DuckDB's; got %s", got);
		printf("  got %zu rows, DuckDB %zu\n", n, json_array_size(want));
	} else {
		printf("ok %s (%zu rows)\n", name, n);
	}
	/* asked again: the same answer, from the cache */
	uint64_t *again;
	size_t n2;
	if (ice_deletes_rows(d, which, &again, &n2, &err) || n2 != n ||
	    (n && memcmp(again, rows, n * sizeof *rows)))
		fail(name, "%s", "a second call answers differently");
	free(again);
	free(rows);
	ice_deletes_free(d);
}

/* Data file 0 must fail with `st`, its message naming `names`. */
static void expect_fail(const char *name, ice_file *data, size_t n_data,
			ice_file *dels, size_t n_dels, colfs_status st,
			const char *names, const char *says)
{
	ice_deletes *d;
	colfs_err err = {0};
	uint64_t *rows = (uint64_t *)1;
	size_t n = 1;

	cases++;
	if (ice_deletes_new(data, n_data, dels, n_dels, fields, 3, &opts, &d,
			    &err)) {
		fail(name, "ice_deletes_new: %s", err.msg);
		return;
	}
	colfs_status got = ice_deletes_rows(d, 0, &rows, &n, &err);
	if (got != st)
		fail(name, "status %s", colfs_status_name(got));
	else if (!strstr(err.msg, names))
		fail(name, "message does not name the file: %s", err.msg);
	else if (says && !strstr(err.msg, says))
		fail(name, "message does not say why: %s", err.msg);
	else if (rows || n)
		fail(name, "%s", "a partial answer");
	else
		printf("ok %s (%s: %s)\n", name, colfs_status_name(got),
		       err.msg);
	ice_deletes_free(d);
}

/* The fill of field 2 (name) for data files that lack it: "n1". */
static colfs_status fill_name(void *arg, size_t i, int32_t id, char **text)
{
	(void)arg;
	(void)i;
	*text = id == 2 ? strdup("n1") : NULL;
	return COLFS_OK;
}

/* Several threads asking at once for the deleted rows of the first data
 * file get the same rows: asker k's count and status. */
typedef struct race {
	ice_deletes *d;
	size_t n[4];
	colfs_status st[4];
} race;

static void race_run(void *arg, size_t k)
{
	race *r = arg;
	uint64_t *rows;
	colfs_err err;
	r->st[k] = ice_deletes_rows(r->d, 0, &rows, &r->n[k], &err);
	free(rows);
}

/* The ice_file of one entry of table_files.py's list. */
static ice_file table_file(json_t *j)
{
	ice_file f;
	json_t *ids = json_object_get(j, "equality_ids");
	json_t *v;
	size_t k;

	memset(&f, 0, sizeof f);
	f.path = strdup(json_string_value(json_object_get(j, "path")));
	f.local = strdup(json_string_value(json_object_get(j, "local")));
	f.content = (int)json_integer_value(json_object_get(j, "content"));
	v = json_object_get(j, "file_format");
	f.avro = json_is_string(v) && !strcasecmp(json_string_value(v), "avro");
	f.seq = json_integer_value(json_object_get(j, "seq"));
	f.spec_id = (int32_t)json_integer_value(json_object_get(j, "spec_id"));
	f.partition = json_incref(json_object_get(j, "partition"));
	f.record_count = json_integer_value(json_object_get(j, "record_count"));
	f.size = (uint64_t)json_integer_value(json_object_get(j, "size"));
	f.n_equality_ids = json_array_size(ids);
	f.equality_ids = calloc(f.n_equality_ids + 1, sizeof *f.equality_ids);
	json_array_foreach(ids, k, v)
		f.equality_ids[k] = (int32_t)json_integer_value(v);
	v = json_object_get(j, "referenced_data_file");
	f.referenced_data_file = json_is_string(v) ? strdup(json_string_value(v))
						   : NULL;
	v = json_object_get(j, "content_offset");
	f.content_offset = json_is_integer(v) ? json_integer_value(v) : -1;
	v = json_object_get(j, "content_size");
	f.content_size = json_is_integer(v) ? json_integer_value(v) : -1;
	f.manifest = strdup(json_string_value(json_object_get(j, "manifest")));
	return f;
}

static int table_main(const char *files, long long want)
{
	json_t *doc = json_load_file(files, 0, NULL);
	json_t *jd = json_object_get(doc, "data"), *jx = json_object_get(doc, "deletes");
	json_t *jf = json_object_get(doc, "fields");
	size_t nd = json_array_size(jd), nx = json_array_size(jx);
	size_t nf = json_array_size(jf);
	ice_file *data = calloc(nd + 1, sizeof *data);
	ice_file *dels = calloc(nx + 1, sizeof *dels);
	ice_field_ref *fr = calloc(nf + 1, sizeof *fr);
	ice_deletes *d;
	colfs_err err = {0};
	long long rows = 0;
	int rc = 0;

	if (!doc) {
		fprintf(stderr, "test_ice_deletes: cannot read %s\n", files);
		return 1;
	}
	for (size_t i = 0; i < nd; i++)
		data[i] = table_file(json_array_get(jd, i));
	for (size_t i = 0; i < nx; i++)
		dels[i] = table_file(json_array_get(jx, i));
	for (size_t i = 0; i < nf; i++) {
		fr[i].id = (int32_t)json_integer_value(
			json_object_get(json_array_get(jf, i), "id"));
		fr[i].name = json_string_value(
			json_object_get(json_array_get(jf, i), "name"));
	}
	if (ice_deletes_new(data, nd, dels, nx, fr, nf, &opts, &d, &err)) {
		printf("FAIL ice_deletes_new: %s\n", err.msg);
		return 1;
	}
	for (size_t i = 0; i < nd && !rc; i++) {
		uint64_t *r;
		size_t n, *idx, na;
		if (ice_deletes_rows(d, i, &r, &n, &err)) {
			printf("FAIL %s: %s\n", data[i].path, err.msg);
			rc = 1;
			break;
		}
		ice_deletes_applying(d, i, &idx, &na);
		printf("%s: %lld rows, %zu deleted by %zu delete files\n",
		       strrchr(data[i].path, '/') + 1,
		       (long long)data[i].record_count, n, na);
		rows += data[i].record_count - (long long)n;
		free(r);
		free(idx);
	}
	ice_deletes_free(d);
	if (!rc && rows != want) {
		printf("FAIL: %lld rows after deletes, DuckDB %lld\n", rows, want);
		rc = 1;
	} else if (!rc) {
		printf("ok: %lld rows after deletes, as DuckDB\n", rows);
	}
	for (size_t i = 0; i < nd; i++)
		free(data[i].equality_ids);
	for (size_t i = 0; i < nx; i++)
		free(dels[i].equality_ids);
	files_free(data, nd);
	files_free(dels, nx);
	free(data);
	free(dels);
	free(fr);
	json_decref(doc);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--table")) {
		colfs_options_defaults(&opts);
		opts.size_index = "off";
		return table_main(argv[2], atoll(argv[3]));
	}
	if (argc != 3) {
		fprintf(stderr, "usage: test_ice_deletes FIXTURES CORPUS\n");
		return 2;
	}
	fx = argv[1];
	corpus = argv[2];
	char p[4096];
	snprintf(p, sizeof p, "%s/expected.json", fx);
	expected = json_load_file(p, 0, NULL);
	snprintf(p, sizeof p, "%s/puffin.json", fx);
	puffins = json_load_file(p, 0, NULL);
	if (!expected || !puffins) {
		fprintf(stderr, "test_ice_deletes: no %s/expected.json or puffin.json\n",
			fx);
		return 1;
	}
	colfs_options_defaults(&opts);
	opts.size_index = "off";

	const char *pa = "{\"cat\":\"a\"}", *pb = "{\"cat\":\"b\"}";
	ice_file data[4], dels[4];

	/* position deletes, unpartitioned: the same sequence number applies
	 * (two files, a row in both) */
	data[0] = data_file(PA, "data_a.parquet", 5, 0, NULL, 12);
	dels[0] = pos_file("pos_1.parquet", 5, 0, NULL);
	dels[1] = pos_file("pos_2.parquet", 5, 0, NULL);
	expect_rows("pos_same_seq", data, 1, 0, dels, 2);
	files_free(dels, 2);
	/* a lower one does not */
	dels[0] = pos_file("pos_1.parquet", 4, 0, NULL);
	expect_rows("pos_lower_seq", data, 1, 0, dels, 1);
	files_free(dels, 1);
	files_free(data, 1);

	/* partitioned: the file of partition a deletes in a's file only,
	 * though it names rows of b's */
	data[0] = data_file(PA, "data_a.parquet", 5, 1, pa, 12);
	data[1] = data_file(PB, "data_b.parquet", 5, 1, pb, 8);
	dels[0] = pos_file("pos_1.parquet", 5, 1, pa);
	expect_rows("pos_partition_a", data, 2, 0, dels, 1);
	expect_rows("pos_partition_b_other", data, 2, 1, dels, 1);
	files_free(dels, 1);
	dels[0] = pos_file("pos_1.parquet", 6, 1, pb);
	expect_rows("pos_partition_b", data, 2, 1, dels, 1);
	files_free(dels, 1);
	/* the same partition values under another spec: not the same */
	dels[0] = pos_file("pos_1.parquet", 5, 2, pa);
	expect_rows("pos_other_spec", data, 2, 0, dels, 1);
	files_free(dels, 1);
	/* referenced_data_file: its file only */
	dels[0] = pos_file("pos_1.parquet", 5, 1, pa);
	dels[0].referenced_data_file = strdup(PA);
	expect_rows("pos_referenced", data, 2, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = pos_file("pos_1.parquet", 5, 1, pa);
	dels[0].referenced_data_file =
		strdup("s3://warehouse/db/t/data/cat=a/other.parquet");
	expect_rows("pos_referenced_other", data, 2, 0, dels, 1);
	files_free(dels, 1);

	/* equality deletes: a greater sequence number applies, an equal one
	 * does not */
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 1, pa);
	expect_rows("eq_one_greater", data, 2, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 5, 1, pa);
	expect_rows("eq_one_equal", data, 2, 0, dels, 1);
	files_free(dels, 1);
	/* two columns, NULL equal to NULL */
	dels[0] = eq_file("eq_id_name.parquet", eq_id_name, 2, 6, 1, pa);
	expect_rows("eq_two_nulls", data, 2, 0, dels, 1);
	files_free(dels, 1);
	/* another partition: no; the same: yes; unpartitioned: global */
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 1, pb);
	expect_rows("eq_other_partition", data, 2, 0, dels, 1);
	expect_rows("eq_same_partition", data, 2, 1, dels, 1);
	files_free(dels, 1);
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 0, NULL);
	expect_rows("eq_global", data, 2, 0, dels, 1);
	files_free(dels, 1);
	/* a NULL in the delete file deletes the NULLs */
	dels[0] = eq_file("eq_name.parquet", eq_name, 1, 6, 0, NULL);
	expect_rows("eq_null_only", data, 2, 0, dels, 1);
	files_free(dels, 1);
	/* all kinds at once over file a: position deletes at the data's
	 * sequence number, equality deletes after it */
	data[0].seq = 1;
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 2, 1, pa);
	dels[1] = eq_file("eq_name.parquet", eq_name, 1, 3, 0, NULL);
	dels[2] = pos_file("pos_1.parquet", 1, 1, pa);
	expect_rows("mixed", data, 2, 0, dels, 3);
	{
		/* which delete files apply, for files/ and summary */
		ice_deletes *d;
		colfs_err err;
		size_t *idx, n;
		cases++;
		if (ice_deletes_new(data, 2, dels, 3, fields, 3, &opts, &d,
				    &err) ||
		    ice_deletes_applying(d, 0, &idx, &n) || n != 3 ||
		    idx[0] != 0 || idx[1] != 1 || idx[2] != 2)
			fail("applying", "%s", "file a: not dels 0, 1, 2");
		else {
			free(idx);
			/* file b (seq 5): only the global equality delete's
			 * sequence number is not greater: none */
			if (ice_deletes_applying(d, 1, &idx, &n) || n != 0)
				fail("applying", "%s", "file b: not none");
			else
				printf("ok applying\n");
			free(idx);
		}
		/* four threads at once on a fresh index */
		ice_deletes_free(d);
		cases++;
		if (ice_deletes_new(data, 2, dels, 3, fields, 3, &opts, &d,
				    &err) == COLFS_OK) {
			race r = {.d = d};
			colfs_parallel_for(4, 4, race_run, &r);
			bool ok = true;
			for (int k = 0; k < 4; k++)
				ok = ok && r.st[k] == COLFS_OK &&
				     r.n[k] == json_array_size(json_object_get(
							expected, "mixed"));
			if (ok)
				printf("ok threads\n");
			else
				fail("threads", "%s", "answers differ");
			ice_deletes_free(d);
		} else {
			fail("threads", "%s", "ice_deletes_new");
		}
	}
	files_free(dels, 3);
	files_free(data, 2);

	/* a data file written before the name field: its names are NULL */
	data[0] = data_file(POLD, "data_old.parquet", 5, 0, NULL, 6);
	dels[0] = eq_file("eq_id_name.parquet", eq_id_name, 2, 6, 0, NULL);
	expect_rows("eq_two_lacking", data, 1, 0, dels, 1);
	{
		/* an unpartitioned equality delete over an unpartitioned
		 * data file: listed once, though both partition and global */
		ice_deletes *d;
		colfs_err err;
		size_t *idx = NULL, n = 0;
		cases++;
		if (ice_deletes_new(data, 1, dels, 1, fields, 3, &opts, &d,
				    &err) == COLFS_OK) {
			if (ice_deletes_applying(d, 0, &idx, &n) || n != 1)
				fail("applying_global_once", "%s",
				     "not listed once");
			else
				printf("ok applying_global_once\n");
			free(idx);
			ice_deletes_free(d);
		} else {
			fail("applying_global_once", "%s", err.msg);
		}
	}
	/* the same, the name field filled (as an initial-default or an
	 * identity partition's value would) */
	{
		ice_deletes *d;
		colfs_err err = {0};
		uint64_t *rows = NULL;
		size_t n = 0;
		json_t *want = json_object_get(expected, "eq_two_lacking_fill");
		cases++;
		if (ice_deletes_new(data, 1, dels, 1, fields, 3, &opts, &d,
				    &err)) {
			fail("eq_two_lacking_fill", "%s", err.msg);
		} else {
			ice_deletes_set_fill(d, fill_name, NULL);
			if (ice_deletes_rows(d, 0, &rows, &n, &err))
				fail("eq_two_lacking_fill", "%s", err.msg);
			else if (n != json_array_size(want) ||
				 (n && rows[0] != (uint64_t)json_integer_value(
						json_array_get(want, 0))))
				fail("eq_two_lacking_fill", "%s",
				     "rows differ from DuckDB's");
			else
				printf("ok eq_two_lacking_fill (%zu rows)\n", n);
			free(rows);
			ice_deletes_free(d);
		}
	}
	files_free(dels, 1);
	files_free(data, 1);
	/* a data file without field ids: its columns found by name */
	data[0] = data_file(PNOID, "data_noid.parquet", 5, 0, NULL, 10);
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 0, NULL);
	expect_rows("eq_no_field_ids", data, 1, 0, dels, 1);
	files_free(dels, 1);
	files_free(data, 1);

	/* deletion vectors: bitmap and array containers; the footer plain,
	 * LZ4- and zstd-compressed */
	data[0] = data_file(PBIG, "big.parquet", 3, 0, NULL, 200000);
	dels[0] = dv_file("dv_big.puffin", PBIG, 3, 0, NULL);
	expect_rows("dv_big", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = dv_file("dv_big_lz4.puffin", PBIG, 4, 0, NULL);
	expect_rows("dv_big_lz4", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = dv_file("dv_big_lz4_nosize.puffin", PBIG, 4, 0, NULL);
	expect_rows("dv_big_lz4_nosize", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = dv_file("dv_big_zstd.puffin", PBIG, 4, 0, NULL);
	/* the blob found by its referenced-data-file property when the
	 * manifest gives no offset */
	dels[0].content_offset = -1;
	dels[0].content_size = -1;
	expect_rows("dv_big_zstd", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = dv_file("dv_big.puffin", PBIG, 2, 0, NULL);
	expect_rows("dv_lower_seq", data, 1, 0, dels, 1);
	files_free(dels, 1);
	files_free(data, 1);
	/* a vector replaces the position delete files of its data file */
	data[0] = data_file(PA, "data_a.parquet", 5, 1, pa, 12);
	data[1] = data_file(PB, "data_b.parquet", 5, 1, pb, 8);
	dels[0] = pos_file("pos_1.parquet", 5, 1, pa);
	dels[1] = dv_file("dv_ab.puffin", PA, 5, 1, pa);
	dels[2] = dv_file("dv_ab.puffin", PB, 5, 1, pb);
	expect_rows("dv_replaces_pos", data, 2, 0, dels, 3);
	expect_rows("dv_second_blob", data, 2, 1, dels, 3);
	files_free(dels, 3);

	/* damage: a CRC mismatch, a cut file, the corpus's bare blob */
	dels[0] = dv_file("dv_crc.puffin", PA, 5, 1, pa);
	expect_fail("dv_crc", data, 1, dels, 1, COLFS_ECORRUPT,
		    "dv_crc.puffin", "CRC");
	files_free(dels, 1);
	dels[0] = dv_file("dv_trunc.puffin", PA, 5, 1, pa);
	expect_fail("dv_truncated", data, 1, dels, 1, COLFS_ECORRUPT,
		    "dv_trunc.puffin", "Puffin");
	files_free(dels, 1);
	dels[0] = dv_file("dv_ab.puffin", PA, 5, 1, pa);
	dels[0].content_size = 45;
	expect_fail("dv_wrong_length", data, 1, dels, 1, COLFS_ECORRUPT,
		    "dv_ab.puffin", "bytes");
	files_free(dels, 1);
	/* a delete file of another size than its manifest's: not the file
	 * it lists */
	dels[0] = pos_file("pos_1.parquet", 5, 1, pa);
	dels[0].size = 1234;
	expect_fail("pos_changed", data, 1, dels, 1, COLFS_ECORRUPT,
		    "pos_1.parquet", "its manifest says 1234");
	files_free(dels, 1);
	dels[0] = dv_file("dv_ab.puffin", PA, 5, 1, pa);
	dels[0].size = 12;
	expect_fail("dv_changed", data, 1, dels, 1, COLFS_ECORRUPT,
		    "dv_ab.puffin", "its manifest says 12");
	files_free(dels, 1);
	/* a position delete file with a NULL position */
	dels[0] = pos_file("pos_null.parquet", 5, 1, pa);
	expect_fail("pos_null", data, 1, dels, 1, COLFS_ECORRUPT,
		    "pos_null.parquet", "row 1 is no file path and position");
	files_free(dels, 1);
	/* a folder where a file should be */
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 1, pa);
	free(dels[0].local);
	dels[0].local = strdup(fx);
	expect_fail("eq_folder", data, 1, dels, 1, COLFS_EIO, "eq_id.parquet",
		    "not a regular file");
	files_free(dels, 1);
	/* missing files: EIO, named */
	dels[0] = pos_file("pos_missing.parquet", 5, 1, pa);
	expect_fail("pos_missing", data, 1, dels, 1, COLFS_EIO,
		    "pos_missing.parquet", "missing");
	files_free(dels, 1);
	dels[0] = eq_file("eq_missing.parquet", eq_id, 1, 6, 1, pa);
	expect_fail("eq_missing", data, 1, dels, 1, COLFS_EIO,
		    "eq_missing.parquet", "missing");
	files_free(dels, 1);
	dels[0] = dv_file("dv_ab.puffin", PA, 5, 1, pa);
	free(dels[0].local);
	dels[0].local = strdup("/nonexistent/dv_missing.puffin");
	expect_fail("dv_missing", data, 1, dels, 1, COLFS_EIO,
		    "dv_ab.puffin", "missing");
	files_free(dels, 1);
	/* a data file that is missing, for equality deletes */
	free(data[0].local);
	data[0].local = strdup("/nonexistent/data_a.parquet");
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 1, pa);
	expect_fail("eq_data_missing", data, 1, dels, 1, COLFS_EIO,
		    "data_a.parquet", "missing");
	files_free(dels, 1);
	files_free(data, 2);

	/* Avro delete files (ice_avrodel.c): the rows of their Parquet
	 * twins; one cut short and one whose equality field is a record
	 * fail, named */
	data[0] = data_file(PA, "data_a.parquet", 5, 0, NULL, 12);
	dels[0] = pos_file("pos_avro.avro", 5, 0, NULL);
	dels[0].avro = true;
	expect_rows("pos_avro", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = eq_file("eq_avro.avro", eq_id_name, 2, 6, 0, NULL);
	dels[0].avro = true;
	expect_rows("eq_avro", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = pos_file("pos_avro_trunc.avro", 5, 0, NULL);
	dels[0].avro = true;
	expect_fail("pos_avro_trunc", data, 1, dels, 1, COLFS_ECORRUPT,
		    "pos_avro_trunc.avro", "position delete file");
	files_free(dels, 1);
	dels[0] = eq_file("eq_avro_nested.avro", eq_id, 1, 6, 0, NULL);
	dels[0].avro = true;
	expect_fail("eq_avro_nested", data, 1, dels, 1, COLFS_ECORRUPT,
		    "eq_avro_nested.avro", "is of no primitive type");
	files_free(dels, 1);
	/* the manifest says AVRO of a Parquet file: named, never read as
	 * deleting nothing */
	dels[0] = pos_file("pos_2.parquet", 5, 0, NULL);
	dels[0].avro = true;
	expect_fail("pos_avro_not", data, 1, dels, 1, COLFS_ECORRUPT,
		    "pos_2.parquet", "position delete file");
	files_free(dels, 1);
	/* ORC delete files: found by the type attribute iceberg.id (columns
	 * named unlike the table's fields), else by name */
	dels[0] = pos_file("pos_orc.orc", 5, 0, NULL);
	expect_rows("pos_orc", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = eq_file("eq_orc_id.orc", eq_id, 1, 6, 0, NULL);
	expect_rows("eq_orc_id", data, 1, 0, dels, 1);
	files_free(dels, 1);
	dels[0] = eq_file("eq_orc_name.orc", eq_id, 1, 6, 0, NULL);
	expect_rows("eq_orc_name", data, 1, 0, dels, 1);
	files_free(dels, 1);
	files_free(data, 1);
	/* an ORC data file's equality column found by its iceberg.id */
	data[0] = data_file(PA, "eq_orc_id.orc", 5, 0, NULL, 4);
	dels[0] = eq_file("eq_id.parquet", eq_id, 1, 6, 0, NULL);
	expect_rows("eq_orc_data", data, 1, 0, dels, 1);
	files_free(dels, 1);
	files_free(data, 1);

	/* the corpus's legacy deletion vector: a bare blob, no Puffin file */
	const char *legacy = "iceberg/legacy_bare_deletion_vector/data/"
			     "legacy-bare-deletion-vector.puffin";
	snprintf(p, sizeof p, "%s/%s", corpus, legacy);
	if (access(p, R_OK) != 0) {
		printf("skip dv_legacy_bare: %s is absent (the shared corpus)\n",
		       p);
	} else {
		const char *tp = "data/persistent/legacy_bare_deletion_vector/"
				 "warehouse/default/legacy_bare_deletion_vector/data/";
		char dpath[512], vpath[512];
		snprintf(dpath, sizeof dpath,
			 "%s00000-0-cac6cfea-266f-44f8-9a3a-70dd8fb68014.parquet",
			 tp);
		snprintf(vpath, sizeof vpath,
			 "%slegacy-bare-deletion-vector.puffin", tp);
		/* as its manifest gives it: offset 0, 42 bytes, sequence 2 */
		data[0] = data_file(dpath, "data_a.parquet", 1, 0, NULL, 3);
		dels[0] = file(vpath, "x", 1, 2, 0, NULL);
		free(dels[0].local);
		dels[0].local = strdup(p);
		dels[0].referenced_data_file = strdup(dpath);
		dels[0].content_offset = 0;
		dels[0].content_size = 42;
		expect_fail("dv_legacy_bare", data, 1, dels, 1, COLFS_ECORRUPT,
			    "legacy-bare-deletion-vector.puffin",
			    "not a Puffin file");
		files_free(dels, 1);
		files_free(data, 1);
	}

	json_decref(expected);
	json_decref(puffins);
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}

/* tests/fuzz: an Iceberg table's metadata JSON (formats/dataset/iceberg/
 * ice_meta.c) and what is read from it.
 *
 * The input is written as metadata/v1.metadata.json of a table folder of
 * its own (one per process, under $TMPDIR), beside a version-hint.text
 * naming it; the table is loaded (the snapshot the metadata makes
 * current; for an input of odd length, -o ref=main instead), its files
 * read (manifest lists and manifests are named by the input and are not
 * there: problems, or a failure naming the manifest list), and every
 * snapshot's paths mapped.  Invariants: statuses are enum values; a
 * failure leaves no table and a message; a table has a format version
 * of 1 to 3, a schema, a snapshot exactly when its id is not -1, a
 * location, and its files sorted by path. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/options.h"
#include "dataset/iceberg/ice_int.h"
#include "fuzz_util.h"

static char dir[PATH_MAX];

static int put(const char *name, const void *data, size_t n)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof path, "%s/metadata/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = n ? fwrite(data, 1, n, f) : 0;
	return fclose(f) == 0 && w == n ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/colfs-fuzz-ice-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			dir[0] = 0;
			return 0;
		}
		char md[PATH_MAX + 16];
		snprintf(md, sizeof md, "%s/metadata", dir);
		if (mkdir(md, 0700) != 0)
			return 0;
		if (put("version-hint.text", "1", 1) != 0)
			return 0;
	}
	if (put("v1.metadata.json", data, size) != 0)
		return 0;
	colfs_options o = {0};
	colfs_options_defaults(&o);
	o.max_alloc = 64u << 20;
	if (size % 2)
		o.ice_ref = "main";
	ice_table *tb = NULL;
	colfs_err err;
	memset(&err, 0, sizeof err);
	colfs_status st = ice_table_load(dir, &o, &tb, &err);
	FUZZ_CHECK(colfs_status_name(st) != NULL);
	if (st != COLFS_OK) {
		FUZZ_CHECK(tb == NULL);
		FUZZ_CHECK(err.msg[0] != 0);
		return 0;
	}
	FUZZ_CHECK(tb != NULL);
	FUZZ_CHECK(tb->format_version >= 1 && tb->format_version <= 3);
	FUZZ_CHECK(tb->schema != NULL);
	FUZZ_CHECK((tb->snap == NULL) == (tb->snap_id == -1));
	FUZZ_CHECK(tb->location != NULL && tb->meta_rel != NULL);
	memset(&err, 0, sizeof err);
	st = ice_table_files(tb, &err);
	FUZZ_CHECK(colfs_status_name(st) != NULL);
	if (st == COLFS_OK) {
		for (size_t i = 1; i < tb->n_data; i++)
			FUZZ_CHECK(strcmp(tb->data[i - 1].path, tb->data[i].path) <= 0);
		/* a second call answers the same */
		FUZZ_CHECK(ice_table_files(tb, &err) == COLFS_OK);
	} else {
		FUZZ_CHECK(err.msg[0] != 0);
	}
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(tb->meta, "snapshots"), i, s) {
		const char *ml = json_string_value(json_object_get(s, "manifest-list"));
		if (!ml)
			continue;
		char *m = ice_map_path(tb, ml);
		FUZZ_CHECK(m != NULL);
		free(m);
		free(ice_rel_path(tb, ml));
	}
	ice_table_free(tb);
	return 0;
}

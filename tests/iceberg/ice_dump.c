/* tests/iceberg: print what formats/dataset/iceberg makes of an Iceberg
 * table, so that tests check its bytes before the dataset tree shows
 * them.
 *
 *   ice-dump [-o KEY=VALUE]... [--tree] TABLE
 *
 * Prints the metadata file chosen, the format version, the location
 * mapped onto the root, the snapshot (and how it was chosen), the schema
 * id, then one line per live data file and per delete file of the
 * snapshot (path relative to the root, content, data sequence number,
 * spec id, partition tuple, record count, size) and each problem met
 * reading the manifests.  With --tree, also every entry of the
 * `iceberg/` folder (on a tree of a test format whose root holds only
 * `iceberg/`), documents with their content.  A load that fails prints
 * "error: <status>: <message>" and exits 1.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colfs.h"
#include "core/options.h"
#include "core/tree.h"
#include "../testio.h"
#include "dataset/iceberg/ice_int.h"

static const ice_table *table;

static colfs_status ice_dir_populate(colfs_tree *t, colfs_node *dir)
{
	return ice_tree_add(t, dir, table);
}

static void print_file(const ice_table *tb, const ice_file *f)
{
	char *rel = ice_rel_path(tb, f->path);
	char *pv = json_dumps(f->partition, JSON_COMPACT | JSON_SORT_KEYS);
	printf("%s %s content %d seq %" PRId64 " spec %d partition %s "
	       "records %" PRId64 " size %" PRIu64,
	       f->content ? "delete" : "data", rel ? rel : f->path, f->content,
	       f->seq, f->spec_id, pv ? pv : "?", f->record_count, f->size);
	if (f->n_equality_ids) {
		printf(" equality_ids");
		for (size_t k = 0; k < f->n_equality_ids; k++)
			printf("%s%d", k ? "," : " ", f->equality_ids[k]);
	}
	if (f->referenced_data_file)
		printf(" references %s", f->referenced_data_file);
	if (f->content_offset >= 0)
		printf(" blob %" PRId64 "+%" PRId64, f->content_offset,
		       f->content_size);
	printf("\n");
	free(rel);
	free(pv);
}

int main(int argc, char **argv)
{
	colfs_options o = {0};
	bool tree = false;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--tree") == 0) {
			tree = true;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			if (colfs_options_set(&o, argv[++i]) != COLFS_OK) {
				fprintf(stderr, "ice-dump: bad option %s\n",
					argv[i]);
				return 2;
			}
		} else {
			break;
		}
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: ice-dump [-o KEY=VALUE]... [--tree] TABLE\n");
		return 2;
	}
	colfs_options_defaults(&o);
	ice_table *tb;
	colfs_err err = {0};
	colfs_status st = ice_table_load(argv[i], &o, &tb, &err);
	if (st) {
		printf("error: %s: %s\n", colfs_status_name(st), err.msg);
		return 1;
	}
	table = tb;
	printf("metadata %s\nformat-version %d\nlocation %s%s\n", tb->meta_rel,
	       tb->format_version, tb->location,
	       tb->location_given ? " (given)" : "");
	printf("snapshot %" PRId64 " (%s)\nschema %" PRId64 "\n", tb->snap_id,
	       tb->snap_why, tb->schema_id);
	st = ice_table_files(tb, &err);
	if (st) {
		printf("error: %s: %s\n", colfs_status_name(st), err.msg);
		ice_table_free(tb);
		return 1;
	}
	printf("%zu manifests, %zu data files, %zu delete files\n",
	       tb->n_manifests, tb->n_data, tb->n_dels);
	for (size_t k = 0; k < tb->n_data; k++)
		print_file(tb, &tb->data[k]);
	for (size_t k = 0; k < tb->n_dels; k++)
		print_file(tb, &tb->dels[k]);
	for (size_t k = 0; k < tb->n_problems; k++)
		printf("problem: %s\n", tb->problems[k]);

	int rc = 0;
	if (tree) {
		rc = testio_folder_dump("ice-dump", "iceberg-test", "iceberg",
					ice_dir_populate, &o);
	}
	ice_table_free(tb);
	return rc;
}

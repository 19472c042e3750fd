/* tests/delta: print what formats/dataset/delta.c makes of a Delta table,
 * so that tests check its bytes before the dataset tree shows them.
 *
 *   delta-dump [-o version=N] [--tree | --json] TABLE
 *
 * Prints the snapshot (colfs_delta_load): version, schema fields with
 * their physical names, partition columns, then one line per active file
 * with size, record count, partition values and the rows its deletion
 * vector deletes.  With --tree, also every entry of the `delta/`
 * directory colfs_delta_add_tree builds (on a tree of a test format
 * whose root holds only `delta/`), documents with their content.
 * With --json, the snapshot as one JSON object instead (for
 * rows-oracle.mjs): version, fields {name, physical}, partition_columns,
 * files {path, size, num_records, partition_values, deleted_rows}.
 * A load that fails prints "error: <status>: <message>" and exits 1.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colfs.h"
#include "core/tree.h"
#include "../testio.h"
#include "dataset/delta.h"

static const char *table_root;
static const colfs_delta_snapshot *table_snap;

static colfs_status delta_dir_populate(colfs_tree *t, colfs_node *dir)
{
	return colfs_delta_add_tree(t, dir, table_root, table_snap);
}

static void print_json(const colfs_delta_snapshot *s)
{
	json_t *o = json_object(), *fields = json_array(), *pc = json_array(),
	       *files = json_array();

	for (size_t k = 0; k < s->tb.n_fields; k++)
		json_array_append_new(fields,
				      json_pack("{s:s, s:s}", "name",
						s->tb.fields[k].name, "physical",
						s->tb.fields[k].physical_name));
	for (size_t k = 0; k < s->tb.n_partition_columns; k++)
		json_array_append_new(pc, json_string(s->tb.partition_columns[k]));
	for (size_t f = 0; f < s->tb.n_files; f++) {
		const colfs_delta_file *df = &s->tb.files[f];
		json_t *pv = json_array(), *del = json_array();
		for (size_t k = 0; k < df->n_partitions; k++)
			json_array_append_new(pv, df->partition_values[k]
					      ? json_string(df->partition_values[k])
					      : json_null());
		for (size_t r = 0; r < df->n_deleted_rows; r++)
			json_array_append_new(del, json_integer((json_int_t)df->deleted_rows[r]));
		json_array_append_new(files, json_pack(
			"{s:s, s:I, s:I, s:o, s:o}", "path", df->path, "size",
			(json_int_t)df->size, "num_records",
			(json_int_t)df->num_records, "partition_values", pv,
			"deleted_rows", del));
	}
	json_object_set_new(o, "version", json_integer(s->tb.version));
	json_object_set_new(o, "fields", fields);
	json_object_set_new(o, "partition_columns", pc);
	json_object_set_new(o, "files", files);
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	puts(text ? text : "null");
	free(text);
	json_decref(o);
}

int main(int argc, char **argv)
{
	colfs_options o = {0};
	bool tree = false, json = false;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--tree") == 0) {
			tree = true;
		} else if (strcmp(argv[i], "--json") == 0) {
			json = true;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			if (colfs_options_set(&o, argv[++i]) != COLFS_OK) {
				fprintf(stderr, "delta-dump: bad option %s\n",
					argv[i]);
				return 2;
			}
		} else {
			break;
		}
	}
	if (i + 1 != argc) {
		fprintf(stderr,
			"usage: delta-dump [-o version=N] [--tree] TABLE\n");
		return 2;
	}
	table_root = argv[i];

	colfs_delta_snapshot *s;
	colfs_err err = {0};
	colfs_status st = colfs_delta_load(
		table_root, o.delta_version_set ? o.delta_version : -1, &o, &s,
		&err);
	if (st) {
		printf("error: %s: %s\n", colfs_status_name(st), err.msg);
		return 1;
	}
	if (json) {
		print_json(s);
		colfs_delta_free(s);
		return 0;
	}
	printf("version %" PRId64 " of %" PRId64 "\n", s->tb.version, s->latest);
	printf("protocol reader %d writer %d, column mapping %s\n",
	       s->min_reader_version, s->min_writer_version,
	       s->tb.column_mapping_mode);
	for (size_t k = 0; k < s->tb.n_fields; k++)
		printf("field %s physical %s type %s%s\n", s->tb.fields[k].name,
		       s->tb.fields[k].physical_name, s->tb.fields[k].type_json,
		       s->tb.fields[k].nullable ? "" : " not null");
	printf("partition columns:");
	for (size_t k = 0; k < s->tb.n_partition_columns; k++)
		printf(" %s", s->tb.partition_columns[k]);
	printf("\n%zu files\n", s->tb.n_files);
	for (size_t f = 0; f < s->tb.n_files; f++) {
		const colfs_delta_file *df = &s->tb.files[f];
		printf("file %s size %" PRIu64 " records %" PRId64, df->path,
		       df->size, df->num_records);
		for (size_t k = 0; k < df->n_partitions; k++)
			printf(" %s=%s", s->tb.partition_columns[k],
			       df->partition_values[k] ? df->partition_values[k]
						       : "(null)");
		if (df->n_deleted_rows) {
			printf(" deleted");
			for (size_t r = 0; r < df->n_deleted_rows; r++)
				printf("%s%" PRIu64, r ? "," : " ",
				       df->deleted_rows[r]);
		}
		printf("\n");
	}

	int rc = 0;
	if (tree) {
		table_snap = s;
		rc = testio_folder_dump("delta-dump", "delta-test", "delta",
					delta_dir_populate, &o);
	}
	colfs_delta_free(s);
	return rc;
}

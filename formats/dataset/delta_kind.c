/* colfs: Delta Lake as a table kind (table.h): a directory or prefix
 * holding `_delta_log/`, read from its log (delta.c), its own folder
 * `delta/` (delta_tree.c). */
#include <stdio.h>
#include <string.h>

#include "delta.h"

extern const ds_table_kind ds_table_delta;

static bool delta_is_listing_key(const char *key)
{
	return strncmp(key, "_delta_log/", 11) == 0;
}

static colfs_status delta_kind_load(const char *root, const colfs_options *o,
				    ds_table **out, colfs_err *err)
{
	/* The version goes to the log reader as an argument: the options it
	 * keeps (and opens checkpoints with) have none, which a file's own
	 * tree would refuse. */
	if (o->ice_snapshot_set || o->ice_as_of_set || o->ice_ref ||
	    o->ice_location)
		return colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "-o snapshot=, as_of=, ref= and location= "
				  "apply to Apache Iceberg tables; a Delta "
				  "table's is -o version=N");
	colfs_options lo = *o;
	lo.delta_version_set = false;
	colfs_delta_snapshot *s;
	colfs_status st = colfs_delta_load(root, o->delta_version_set
					   ? o->delta_version : -1, &lo, &s,
					   err);
	if (st != COLFS_OK)
		return st;
	s->tb.kind = &ds_table_delta;
	snprintf(s->tb.version_label, sizeof s->tb.version_label,
		 "Delta log at version %lld", (long long)s->tb.version);
	*out = &s->tb;
	return COLFS_OK;
}

static colfs_status delta_kind_add_tree(struct colfs_tree *t,
					struct colfs_node *dir,
					const char *root, ds_table *tb)
{
	return colfs_delta_add_tree(t, dir, root, (colfs_delta_snapshot *)tb);
}

static void delta_kind_free(ds_table *tb)
{
	colfs_delta_free((colfs_delta_snapshot *)tb);
}

const ds_table_kind ds_table_delta = {
	.name = "Delta Lake",
	.folder = "delta",
	.records_name = "numRecords",
	.metadata_noun = "log",
	.deletes_noun = "deletion vectors",
	.is_table = colfs_delta_is_table,
	.is_listing_key = delta_is_listing_key,
	.load = delta_kind_load,
	.add_tree = delta_kind_add_tree,
	.free = delta_kind_free,
};

/* colfs: the table kinds (table.h), in the order a directory is tried. */
#include <stddef.h>
#include <stdlib.h>

#include "table.h"

extern const ds_table_kind ds_table_delta;
extern const ds_table_kind ds_table_iceberg;

const ds_table_kind *const ds_table_kinds[] = {
	&ds_table_delta,
	&ds_table_iceberg,
	NULL,
};

const ds_table_kind *ds_table_kind_of_dir(const char *root)
{
	for (size_t i = 0; ds_table_kinds[i]; i++)
		if (ds_table_kinds[i]->is_table &&
		    ds_table_kinds[i]->is_table(root))
			return ds_table_kinds[i];
	return NULL;
}

const ds_table_kind *ds_table_kind_of_key(const char *key)
{
	for (size_t i = 0; ds_table_kinds[i]; i++)
		if (ds_table_kinds[i]->is_listing_key &&
		    ds_table_kinds[i]->is_listing_key(key))
			return ds_table_kinds[i];
	return NULL;
}

const ds_table_kind *ds_table_kind_of_metadata(const char *name,
					       char **root)
{
	for (size_t i = 0; ds_table_kinds[i]; i++) {
		char *r;
		if (!ds_table_kinds[i]->metadata_root ||
		    !(r = ds_table_kinds[i]->metadata_root(name)))
			continue;
		if (root)
			*root = r;
		else
			free(r);
		return ds_table_kinds[i];
	}
	if (root)
		*root = NULL;
	return NULL;
}

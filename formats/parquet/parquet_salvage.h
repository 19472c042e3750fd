/* colfs: salvage/ for a file whose footer is unusable (parquet_salvage.c;
 * module-private). */
#ifndef COLFS_PARQUET_SALVAGE_H
#define COLFS_PARQUET_SALVAGE_H

#include "parquet_region.h"

bool parquet_salvage_wanted(const parquet_region_state *s);
colfs_status parquet_salvage_add(colfs_tree *t, colfs_node *root, parquet_region_state *s);
void parquet_salvage_destroy(parquet_salvage *sv);

#endif

/* colfs: salvage/ for a file whose footer is unusable (parquet_salvage.c;
 * module-private). */
#ifndef COLFS_PARQUET_SALVAGE_H
#define COLFS_PARQUET_SALVAGE_H

#include "parquet_region.h"

bool pq_salvage_wanted(const pq_state *s);
colfs_status pq_salvage_add(colfs_tree *t, colfs_node *root, pq_state *s);
void pq_salvage_destroy(pq_salvage *sv);

#endif

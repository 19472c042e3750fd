/* colfs: grafts (graft.c): a directory of one tree (the host) showing the
 * whole tree of another (the guest), as proxies made lazily.
 *
 * Proxies are nodes of the host (inode numbers stay in one tree, so fs/
 * needs nothing new); each keeps the guest's key and its path in the
 * guest, and finds the guest's node again at every list, lookup, size and
 * open.  So the guest may be closed and reopened between two uses (a
 * bounded set of open files): `acquire` opens it when it is closed and
 * holds it until `release`, and an open handle holds it while open.
 */
#ifndef COLFS_GRAFT_H
#define COLFS_GRAFT_H

#include "tree.h"

typedef struct colfs_graft_ops {
	/* The guest `key`, opened when it is not; held until release.
	 * A guest that cannot be opened fails (its problem is the host's
	 * to report). */
	colfs_status (*acquire)(void *ctx, uint64_t key, colfs_tree **guest);
	void (*release)(void *ctx, uint64_t key, colfs_tree *guest);
} colfs_graft_ops;

/* Add directory `raw_name` to `dir`, showing guest `key`'s root. */
colfs_node *colfs_dir_add_graft(colfs_tree *t, colfs_node *dir,
				const char *raw_name,
				const colfs_graft_ops *ops, void *ctx,
				uint64_t key);

#endif

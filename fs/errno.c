/* colfs daemon: colfs_status -> errno, in exactly one place.
 *
 * The mapping is deliberately coarse.  Everything that says "this node's
 * bytes cannot be produced" becomes EIO, whatever the reason: corrupt,
 * truncated, out of bounds, overflow (including a declared size above the
 * max_alloc cap) and unsupported (an unknown codec, an encrypted footer).
 * Scripts then test for one errno, and the reason, with its byte offset,
 * is in the `errors` file of the tree.  EOPNOTSUPP was considered for
 * COLFS_EUNSUPPORTED and rejected: programs read it as "this operation is
 * not supported on this file system" (cp falls back, editors give up), not
 * as "this file could not be decoded".
 */
#include <errno.h>

#include "colfsd.h"

int colfsd_errno(colfs_status st)
{
	switch (st) {
	case COLFS_OK:
		return 0;
	case COLFS_ENOENT:
		return ENOENT;
	case COLFS_ENOMEM:
		return ENOMEM;
	case COLFS_ECORRUPT:
	case COLFS_ETRUNCATED:
	case COLFS_EBOUNDS:
	case COLFS_EOVERFLOW:
	case COLFS_EUNSUPPORTED:
	case COLFS_EIO:
		return EIO;
	case COLFS_END:
		/* Never an answer to a request; reaching here is a core bug. */
		return EIO;
	}
	return EIO;
}

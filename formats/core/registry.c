/* colfs: the list of format modules.  Adding a format is one line here. */
#include "tree.h"

const colfs_format *const colfs_formats[] = {
	NULL,
};

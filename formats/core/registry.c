/* colfs: the list of format modules.  Adding a format is one line here. */
#include "tree.h"

extern const colfs_format colfs_format_parquet;
extern const colfs_format colfs_format_orc;
extern const colfs_format colfs_format_cfile;
extern const colfs_format colfs_format_kudu;
extern const colfs_format colfs_format_arrow;

const colfs_format *const colfs_formats[] = {
	&colfs_format_parquet,
	&colfs_format_orc,
	&colfs_format_kudu,
	&colfs_format_cfile,
	&colfs_format_arrow,
	NULL,
};

/* colfs: the -o options (options.c).  colfs.h declares the public part
 * (colfs_options_set, colfs_options_resolve_paths, colfs_options_help).
 */
#ifndef COLFS_OPTIONS_H
#define COLFS_OPTIONS_H

#include "../colfs.h"

/* Fill in the defaults of the options left unset (null token \\N,
 * cache_size 64M, max_alloc 1G, salvage_effort 1). */
void colfs_options_defaults(colfs_options *o);

#endif

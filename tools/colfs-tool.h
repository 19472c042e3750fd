/* colfs-tool's own declarations: the state of a run (colfs-tool.c) and
 * what its commands' files share (colfs-tool-check.c: the check
 * command). */
#ifndef COLFS_TOOL_H
#define COLFS_TOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "colfs.h"

#define TOOL_READ_SIZE (128 * 1024)

enum { TOOL_OK = 0, TOOL_FAIL = 1, TOOL_USAGE = 2 };

typedef struct tool {
	const char *file;     /* as given on the command line */
	colfs_tree *tree;
	colfs_options opts;
	char **owned;         /* option strings split from -o a=b,c=d */
	size_t nowned;
	/* option paths made absolute (colfs_options_resolve_paths) */
	char *paths[COLFS_PATH_OPTIONS];
	bool long_form;       /* ls -l */
	long depth;           /* tree --depth; < 0 = unlimited */
	int status;           /* worst exit status so far */
	bool pipe_closed;     /* stdout's reader went away: stop quietly */
	bool json;            /* check --json */
	bool progress;        /* check --progress */
	bool all;             /* check --all: derived views too */
	bool stats;           /* --stats: the tree's counts at the end */
	size_t err_mark;      /* problems recorded before the current read */
} tool;

/* colfs-tool.c: printf to stdout, noting a closed pipe (tl->pipe_closed)
 * and a failed write in tl->status */
void tool_printf(tool *tl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* colfs-tool-check.c: the check command (colfs-tool.1), and what the
 * index command and main share with it: the monotonic clock in seconds
 * and a string written as a JSON string */
int tool_check(tool *tl);
double check_now(void);
void check_json_str(tool *tl, const char *s);

#endif

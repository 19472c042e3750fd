/* colfs: a file of a Delta table as bytes (colfs_delta_source_open,
 * delta_int.h): a local path, opened here with the log reader's own
 * messages, or an object under an S3 prefix, opened through the core's
 * source kinds.  Both the log reader (delta.c) and the deletion vectors
 * (delta_dv.c) read their files through it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delta_int.h"
#include "../core/sourcekind.h"

colfs_status colfs_delta_source_open(const char *path, const char *shown,
				     const colfs_options *o,
				     colfs_source **out, char *why,
				     size_t why_len)
{
	struct stat sb;
	*out = NULL;
	if (!colfs_source_is_local(path))
		return colfs_source_open(path, o, out, why, why_len);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", shown, strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(why, why_len, "%s is not a regular file", shown);
		return COLFS_EIO;
	}
	colfs_status st = colfs_source_create_fd(fd, 1, out);
	if (st != COLFS_OK) {
		close(fd);
		snprintf(why, why_len, "%s: %s", shown, colfs_status_name(st));
	}
	return st;
}

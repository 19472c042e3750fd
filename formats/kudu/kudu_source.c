/* colfs: the Kudu source kind.  A Kudu file is known by its name and its
 * siblings, not by its bytes alone: a container is `<id>.data` beside an
 * `<id>.metadata` that starts with "kuducntr" (either name claims the
 * pair), and a data root is a directory with Kudu's `instance` file,
 * `data/` and `tablet-meta/` (kudu_claim_path, kudu.c).  The tree reads
 * the file the claim names (the data file, the instance file) as Kudu,
 * without probing, and is named by the name given. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/sourcekind.h"
#include "kudu_int.h"

extern const colfs_format colfs_format_kudu;

static bool kudu_source_claims(const char *name)
{
	char source[4096];
	return kudu_claim_path(name, source, sizeof source);
}

static colfs_status kudu_source_open(const char *name, const colfs_options *o,
				     colfs_source_opened *out, char *why,
				     size_t why_len)
{
	char source[4096];
	(void)o;
	if (!kudu_claim_path(name, source, sizeof source)) {
		snprintf(why, why_len, "%s: not a Kudu file", name);
		return COLFS_EUNSUPPORTED;
	}
	int fd = colfs_source_open_local(source);
	if (fd < 0) {
		if (strcmp(source, name) == 0)
			snprintf(why, why_len, "%s: %s", name, strerror(errno));
		else
			snprintf(why, why_len, "%s: %s file %s: %s", name,
				 colfs_format_kudu.name, source,
				 strerror(errno));
		return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
	}
	out->fd = fd;
	return COLFS_OK;
}

const colfs_source_kind colfs_source_kind_kudu = {
	.name = "kudu",
	.claims = kudu_source_claims,
	.open = kudu_source_open,
	.format = &colfs_format_kudu,
	/* the name's own bytes and facts (a dataset peeking at its files) */
	.peek = colfs_source_peek_local,
	.stat = colfs_source_stat_local,
	.changes = COLFS_SOURCE_CHANGES_STAT,
};

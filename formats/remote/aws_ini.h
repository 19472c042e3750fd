/* colfs: the AWS credentials and config files (~/.aws/credentials,
 * ~/.aws/config): INI as the AWS tools read it, for s3.c.
 * Sections "[name]"; settings "key = value" or "key: value" (spaces
 * around the delimiter, keys case-insensitive); comment lines starting
 * with '#' or ';'; an indented line after a setting continues it (a
 * nested block such as "s3 =" and its indented settings), and is
 * ignored here.
 *
 * A file is read whole into a buffer that aws_ini_free wipes (it
 * holds secrets); no message quotes a value, only the file and line.
 */
#ifndef COLFS_AWS_INI_H
#define COLFS_AWS_INI_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/status.h"

typedef struct ini_entry {
	const char *section;
	const char *key;
	const char *value;
} ini_entry;

typedef struct aws_ini {
	const char *path;   /* for messages */
	bool exists;
	char *text;         /* the file, cut in place; wiped at free */
	size_t len;
	ini_entry *entries;
	size_t n;
} aws_ini;

/* Read and parse `path`.  A file that does not exist is not an error
 * unless `must_exist` (a file the user named): f->exists says. */
colfs_status aws_ini_load(aws_ini *f, const char *path, bool must_exist,
			  char *why, size_t why_len);
void aws_ini_free(aws_ini *f);
/* Has the file a section of `profile`?  In the credentials file a
 * profile's section is [NAME]; in the config file (`config`) [profile
 * NAME], and [default] for the default profile. */
bool aws_ini_has_profile(const aws_ini *f, const char *profile, bool config);
/* The last value of `key` in the profile's sections, or NULL. */
const char *aws_ini_get(const aws_ini *f, const char *profile, bool config,
			const char *key);

#endif

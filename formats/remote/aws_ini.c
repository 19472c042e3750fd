/* colfs: the AWS credentials and config files read as the AWS tools
 * read them (aws_ini.h).
 */
#include "aws_ini.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The credentials and config files are small; a larger one is refused
 * rather than read. */
#define AWS_INI_MAX (1u << 20)

void aws_ini_free(aws_ini *f)
{
	if (f->text) {
		explicit_bzero(f->text, f->len);
		free(f->text);
	}
	free(f->entries);
	f->text = NULL;
	f->entries = NULL;
	f->n = 0;
}

static char *trim(char *s, char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*end = '\0';
	return s;
}

static colfs_status ini_parse(aws_ini *f, char *why, size_t why_len)
{
	/* a section or a setting per line at most */
	size_t lines = 1;
	for (size_t i = 0; i < f->len; i++)
		lines += f->text[i] == '\n';
	f->entries = calloc(lines, sizeof *f->entries);
	if (!f->entries)
		return colfs_fail_why(COLFS_ENOMEM, why, why_len,
			       "%s: out of memory", f->path);

	const char *section = NULL;
	bool have_key = false;
	char *p = f->text, *end = f->text + f->len;
	for (size_t line = 1; p < end; line++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		char *next = nl ? nl + 1 : end;
		if (eol > p && eol[-1] == '\r')
			eol--;
		bool indented = *p == ' ' || *p == '\t';
		char *s = trim(p, eol);
		p = next;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (indented && have_key)
			continue;
		if (*s == '[') {
			size_t n = strlen(s);
			if (s[n - 1] != ']')
				return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					       "%s:%zu: a section header "
					       "without its ']'",
					       f->path, line);
			char *name = trim(s + 1, s + n - 1);
			if (!*name)
				return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					       "%s:%zu: a section without a "
					       "name", f->path, line);
			section = name;
			have_key = false;
			/* the section is known even with no settings */
			f->entries[f->n++] = (ini_entry){section, NULL, NULL};
			continue;
		}
		char *delim = strpbrk(s, "=:");
		if (!delim)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s:%zu: expected '[section]' or "
				       "'key = value'", f->path, line);
		if (!section)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s:%zu: a setting before any "
				       "[section]", f->path, line);
		char *value = trim(delim + 1, s + strlen(s));
		char *key = trim(s, delim);
		if (!*key)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s:%zu: a setting without a name",
				       f->path, line);
		f->entries[f->n++] = (ini_entry){section, key, value};
		have_key = true;
	}
	return COLFS_OK;
}

/* Read and parse `path`.  A file that does not exist is not an error
 * unless `must_exist` (a file the user named): f->exists says. */
colfs_status aws_ini_load(aws_ini *f, const char *path, bool must_exist,
			  char *why, size_t why_len)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !must_exist)
			return COLFS_OK;
		return colfs_fail_why(COLFS_EIO, why, why_len, "%s: %s", path,
			       strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return colfs_fail_why(COLFS_EIO, why, why_len, "%s: %s", path,
			       strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return colfs_fail_why(COLFS_EIO, why, why_len,
			       "%s: not a regular file", path);
	}
	if (st.st_size > AWS_INI_MAX) {
		close(fd);
		return colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
			       "%s: %lld bytes, more than the %u a credentials "
			       "or config file may have", path,
			       (long long)st.st_size, AWS_INI_MAX);
	}
	f->text = malloc((size_t)st.st_size + 1);
	if (!f->text) {
		close(fd);
		return colfs_fail_why(COLFS_ENOMEM, why, why_len,
			       "%s: out of memory", path);
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, f->text + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			f->len = got;
			aws_ini_free(f);
			return colfs_fail_why(COLFS_EIO, why, why_len, "%s: %s", path,
				       strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	f->text[got] = '\0';
	f->len = got;
	f->exists = true;
	if (memchr(f->text, '\0', got)) {
		aws_ini_free(f);
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: a NUL byte: not a text file", path);
	}
	colfs_status st2 = ini_parse(f, why, why_len);
	if (st2)
		aws_ini_free(f);
	return st2;
}

/* Is `section` the profile `profile`?  In the credentials file a
 * profile's section is [NAME]; in the config file [profile NAME], and
 * [default] for the default profile. */
static bool section_is_profile(const char *section, const char *profile,
			       bool config)
{
	if (!config)
		return strcmp(section, profile) == 0;
	if (strcmp(profile, "default") == 0 && strcmp(section, "default") == 0)
		return true;
	if (strncmp(section, "profile", 7) != 0 ||
	    (section[7] != ' ' && section[7] != '\t'))
		return false;
	const char *name = section + 7;
	while (*name == ' ' || *name == '\t')
		name++;
	return strcmp(name, profile) == 0;
}

bool aws_ini_has_profile(const aws_ini *f, const char *profile, bool config)
{
	for (size_t i = 0; i < f->n; i++)
		if (section_is_profile(f->entries[i].section, profile, config))
			return true;
	return false;
}

/* The last value of `key` in the profile's sections, or NULL. */
const char *aws_ini_get(const aws_ini *f, const char *profile, bool config,
			const char *key)
{
	const char *v = NULL;

	for (size_t i = 0; i < f->n; i++)
		if (f->entries[i].key &&
		    section_is_profile(f->entries[i].section, profile,
				       config) &&
		    strcasecmp(f->entries[i].key, key) == 0)
			v = f->entries[i].value;
	return v;
}

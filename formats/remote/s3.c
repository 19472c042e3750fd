/* colfs: s3://bucket/key as an HTTP target (remote.h): the URL checked
 * and turned into the request URL (AWS virtual-host style, or path style
 * on -o s3_endpoint), the region and the credentials found where the AWS
 * tools look for them, in the same order, and the signing parameters for
 * libcurl's Signature V4.
 *
 * Secrets (the secret key, the session token, and the access key id with
 * them) are copied only into the target's userpwd and session_token; the
 * credentials and config files are read into a buffer that is wiped
 * before it is freed.  No message quotes a value read from the
 * environment or from those files: messages name the variable, the file,
 * the line and the profile instead.
 */
#include "../core/source.h"
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* S3's limits: a key is at most 1024 bytes, a bucket name 3 to 63. */
#define S3_KEY_MAX 1024
#define S3_BUCKET_MIN 3
#define S3_BUCKET_MAX 63
/* A region name goes into a host name and the signing scope. */
#define S3_REGION_MAX 63
/* The credentials and config files are small; a larger one is refused
 * rather than read. */
#define S3_INI_MAX (1u << 20)

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

void colfs_remote_target_clear(colfs_remote_target *t)
{
	if (!t)
		return;
	wipe_free(t->userpwd);
	wipe_free(t->session_token);
	wipe_free(t->azure_key);
	wipe_free(t->azure_sas);
	wipe_free(t->bearer);
	wipe_free(t->relocate_token);
	free(t->relocate_from);
	free(t->azure_account);
	free(t->url);
	free(t->display);
	free(t->aws_sigv4);
	free(t->cafile);
	memset(t, 0, sizeof *t);
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* The URL */

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Four dot-separated groups of digits: a name S3 refuses because it
 * reads as an IP address. */
static bool looks_like_ipv4(const char *b, size_t n)
{
	int dots = 0;

	for (size_t i = 0; i < n; i++) {
		if (b[i] == '.')
			dots++;
		else if (b[i] < '0' || b[i] > '9')
			return false;
	}
	return dots == 3;
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t pn = strlen(p);
	return n >= pn && memcmp(s, p, pn) == 0;
}

static bool has_suffix(const char *s, size_t n, const char *p)
{
	size_t pn = strlen(p);
	return n >= pn && memcmp(s + n - pn, p, pn) == 0;
}

/* S3's naming rules for general purpose buckets.  NULL when `b` follows
 * them, else the rule it breaks. */
static const char *bucket_rule_broken(const char *b, size_t n)
{
	static const char *const prefixes[] = {"xn--", "sthree-",
					       "amzn-s3-demo-"};
	static const char *const suffixes[] = {"-s3alias", "--ol-s3", ".mrap",
					       "--x-s3", "--table-s3"};

	if (n < S3_BUCKET_MIN || n > S3_BUCKET_MAX)
		return "a bucket name has 3 to 63 characters";
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(b[i]) && b[i] != '.' && b[i] != '-')
			return "a bucket name has only lowercase letters, "
			       "digits, '.' and '-'";
	if (!is_lower_alnum(b[0]) || !is_lower_alnum(b[n - 1]))
		return "a bucket name begins and ends with a letter or a "
		       "digit";
	for (size_t i = 0; i + 1 < n; i++)
		if (b[i] == '.' && b[i + 1] == '.')
			return "a bucket name has no two adjacent '.'";
	if (looks_like_ipv4(b, n))
		return "a bucket name is not written like an IP address";
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (has_prefix(b, n, prefixes[i]))
			return "a bucket name does not begin with xn--, sthree- "
			       "or amzn-s3-demo-";
	for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
		if (has_suffix(b, n, suffixes[i]))
			return "a bucket name does not end with -s3alias, "
			       "--ol-s3, .mrap, --x-s3 or --table-s3 (access "
			       "points and directory or table buckets are not "
			       "supported)";
	return NULL;
}

/* Does the key hold a "." or ".." segment?  HTTP clients remove those
 * from a path, so the object asked would not be the one signed. */
static bool key_has_dot_segment(const char *k, size_t n)
{
	size_t i = 0;

	while (i <= n) {
		size_t j = i;
		while (j < n && k[j] != '/')
			j++;
		size_t len = j - i;
		if ((len == 1 && k[i] == '.') ||
		    (len == 2 && k[i] == '.' && k[i + 1] == '.'))
			return true;
		i = j + 1;
	}
	return false;
}

/* The key as a URL path, each segment percent-encoded as Signature V4's
 * canonical URI has it for S3: every byte but the unreserved ones
 * (A-Z a-z 0-9 - . _ ~) becomes %XX, '/' stays. */
static char *key_encode(const char *k, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(3 * n + 1), *p = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)k[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || c == '/') {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = '\0';
	return out;
}

typedef struct s3_url {
	char bucket[S3_BUCKET_MAX + 1];
	const char *key; /* inside the URL given */
	size_t key_len;
} s3_url;

/* s3://BUCKET/KEY, the key taken as written (as the AWS tools take it:
 * '%', '?', '#' and spaces are part of the key).  With `prefix` (a
 * listing) the key is a prefix and may be empty: s3://BUCKET,
 * s3://BUCKET/, s3://BUCKET/PREFIX. */
static colfs_status s3_url_parse(const char *url, bool prefix, s3_url *u,
				 char *why, size_t why_len)
{
	if (has_control(url))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "an S3 URL with a control character is not "
			       "supported");
	/* A URL that does not parse may hold user information anywhere:
	 * with an '@', it is not echoed. */
	const char *echo = strchr(url, '@') ? "s3:..." : url;
	if (strncmp(url, "s3://", 5) != 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: not an S3 URL: write s3://BUCKET/KEY", echo);
	const char *b = url + 5;
	const char *slash = strchr(b, '/');
	size_t bn = slash ? (size_t)(slash - b) : strlen(b);
	if (memchr(b, '@', bn))
		/* user information: maybe a secret, never echoed */
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "an S3 URL with user information (s3://...@...) "
			       "is not supported: give credentials in "
			       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or "
			       "in a profile");
	if (bn == 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: the bucket name is empty: write "
			       "s3://BUCKET/KEY", echo);
	const char *rule = bucket_rule_broken(b, bn);
	if (rule)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: not a bucket name: %s", url, rule);
	if (!prefix && (!slash || !slash[1]))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: no object key: write s3://BUCKET/KEY", url);
	memcpy(u->bucket, b, bn);
	u->bucket[bn] = '\0';
	u->key = slash ? slash + 1 : b + bn;
	u->key_len = strlen(u->key);
	if (u->key_len > S3_KEY_MAX)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "s3://%s/...: the key has %zu bytes, S3 allows "
			       "at most %d", u->bucket, u->key_len, S3_KEY_MAX);
	/* (a prefix goes into the query, where no segment is removed) */
	if (!prefix && key_has_dot_segment(u->key, u->key_len))
		return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
			       "%s: a key with a '.' or '..' segment is not "
			       "supported", url);
	return COLFS_OK;
}

/* ------------------------------------------------------------------ */
/* The credentials and config files: INI as the AWS tools read it.
 * Sections "[name]"; settings "key = value" or "key: value" (spaces
 * around the delimiter, keys case-insensitive); comment lines starting
 * with '#' or ';'; an indented line after a setting continues it (a
 * nested block such as "s3 =" and its indented settings), and is
 * ignored here. */

typedef struct ini_entry {
	const char *section;
	const char *key;
	const char *value;
} ini_entry;

typedef struct ini_file {
	const char *path;   /* for messages */
	bool exists;
	char *text;         /* the file, cut in place; wiped at free */
	size_t len;
	ini_entry *entries;
	size_t n;
} ini_file;

static void ini_free(ini_file *f)
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

static colfs_status ini_parse(ini_file *f, char *why, size_t why_len)
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
static colfs_status ini_load(ini_file *f, const char *path, bool must_exist,
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
	if (st.st_size > S3_INI_MAX) {
		close(fd);
		return colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
			       "%s: %lld bytes, more than the %u a credentials "
			       "or config file may have", path,
			       (long long)st.st_size, S3_INI_MAX);
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
			ini_free(f);
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
		ini_free(f);
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: a NUL byte: not a text file", path);
	}
	colfs_status st2 = ini_parse(f, why, why_len);
	if (st2)
		ini_free(f);
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

static bool ini_has_profile(const ini_file *f, const char *profile,
			    bool config)
{
	for (size_t i = 0; i < f->n; i++)
		if (section_is_profile(f->entries[i].section, profile, config))
			return true;
	return false;
}

/* The last value of `key` in the profile's sections, or NULL. */
static const char *ini_get(const ini_file *f, const char *profile,
			   bool config, const char *key)
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

/* ------------------------------------------------------------------ */
/* Region and credentials */

typedef struct s3_env {
	const char *profile;     /* AWS_PROFILE, else "default" */
	bool profile_named;      /* AWS_PROFILE was set */
	char config_path[4096];  /* "" when there is none (no HOME) */
	bool config_named;       /* AWS_CONFIG_FILE was set */
	char creds_path[4096];
	bool creds_named;        /* AWS_SHARED_CREDENTIALS_FILE was set */
	ini_file config;
	bool config_loaded;
	ini_file creds;
	bool creds_loaded;
} s3_env;

static const char *env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* `named` from the variable, else HOME/.aws/NAME; "" when neither. */
static colfs_status file_path(const char *var, const char *name,
			      char *out, size_t out_len, bool *named,
			      char *why, size_t why_len)
{
	const char *v = env_nonempty(var);
	const char *home = env_nonempty("HOME");
	int n;

	*named = v != NULL;
	if (v)
		n = snprintf(out, out_len, "%s", v);
	else if (home)
		n = snprintf(out, out_len, "%s/.aws/%s", home, name);
	else
		n = snprintf(out, out_len, "%s", "");
	if (n < 0 || (size_t)n >= out_len)
		return colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
			       "%s is too long for a path (%zu bytes at most)",
			       v ? var : "HOME", out_len - 1);
	return COLFS_OK;
}

static colfs_status env_config(s3_env *e, char *why, size_t why_len)
{
	if (!e->config_loaded) {
		e->config_loaded = true;
		if (e->config_path[0])
			COLFS_TRY(ini_load(&e->config, e->config_path,
					   e->config_named, why, why_len));
	}
	return COLFS_OK;
}

static colfs_status env_creds(s3_env *e, char *why, size_t why_len)
{
	if (!e->creds_loaded) {
		e->creds_loaded = true;
		if (e->creds_path[0])
			COLFS_TRY(ini_load(&e->creds, e->creds_path,
					   e->creds_named, why, why_len));
	}
	return COLFS_OK;
}

static bool region_ok(const char *r)
{
	size_t n = strlen(r);

	if (n == 0 || n > S3_REGION_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_alnum(r[i]) && r[i] != '-')
			return false;
	return r[0] != '-' && r[n - 1] != '-';
}

/* AWS_REGION, AWS_DEFAULT_REGION, the profile's region in the config
 * file, else us-east-1. */
static colfs_status s3_region(s3_env *e, const char **region, char *why,
			      size_t why_len)
{
	static const char *const vars[] = {"AWS_REGION", "AWS_DEFAULT_REGION"};

	for (size_t i = 0; i < 2; i++) {
		const char *v = env_nonempty(vars[i]);
		if (!v)
			continue;
		if (!region_ok(v))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s is not a region name (lowercase "
				       "letters, digits and '-')", vars[i]);
		*region = v;
		return COLFS_OK;
	}
	COLFS_TRY(env_config(e, why, why_len));
	const char *v = e->config.exists ?
		ini_get(&e->config, e->profile, true, "region") : NULL;
	if (v && *v) {
		if (!region_ok(v))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: the region of profile '%s' is not a "
				       "region name (lowercase letters, digits "
				       "and '-')", e->config_path, e->profile);
		*region = v;
		return COLFS_OK;
	}
	*region = "us-east-1";
	return COLFS_OK;
}

/* The ways of getting credentials the AWS tools know and colfs does
 * not: a profile that uses one of them is refused by name rather than
 * read anonymously. */
static const char *const unsupported_keys[] = {
	"role_arn", "credential_process", "sso_session", "sso_start_url",
	"web_identity_token_file", "credential_source", "source_profile",
};

typedef struct s3_creds {
	const char *access_key;
	const char *secret_key;
	const char *token; /* NULL: none */
} s3_creds;

/* The access keys of the profile in one file.  *found false: none there
 * (then neither key is set). */
static colfs_status profile_keys(const ini_file *f, const char *profile,
				 bool config, s3_creds *c, bool *found,
				 char *why, size_t why_len)
{
	const char *ak = ini_get(f, profile, config, "aws_access_key_id");
	const char *sk = ini_get(f, profile, config, "aws_secret_access_key");

	*found = false;
	if (ak && !*ak)
		ak = NULL;
	if (sk && !*sk)
		sk = NULL;
	if (ak && !sk)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: profile '%s' has aws_access_key_id but no "
			       "aws_secret_access_key", f->path, profile);
	if (sk && !ak)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: profile '%s' has aws_secret_access_key but "
			       "no aws_access_key_id", f->path, profile);
	if (ak) {
		const char *tok = ini_get(f, profile, config,
					  "aws_session_token");
		c->access_key = ak;
		c->secret_key = sk;
		c->token = tok && *tok ? tok : NULL;
		*found = true;
		return COLFS_OK;
	}
	for (size_t i = 0;
	     i < sizeof unsupported_keys / sizeof *unsupported_keys; i++)
		if (ini_get(f, profile, config, unsupported_keys[i]))
			return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				       "%s: profile '%s' gets its credentials "
				       "through %s, which colfs does not "
				       "support: give access keys "
				       "(aws_access_key_id and "
				       "aws_secret_access_key, or "
				       "AWS_ACCESS_KEY_ID and "
				       "AWS_SECRET_ACCESS_KEY)",
				       f->path, profile, unsupported_keys[i]);
	return COLFS_OK;
}

/* AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), else
 * the profile's keys in the credentials file, then in the config file;
 * none: anonymous (*found false). */
static colfs_status s3_credentials(s3_env *e, s3_creds *c, bool *found,
				   char *why, size_t why_len)
{
	const char *ak = env_nonempty("AWS_ACCESS_KEY_ID");
	const char *sk = env_nonempty("AWS_SECRET_ACCESS_KEY");

	memset(c, 0, sizeof *c);
	*found = false;
	if (ak && !sk)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "AWS_ACCESS_KEY_ID is set but "
			       "AWS_SECRET_ACCESS_KEY is not");
	if (sk && !ak)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "AWS_SECRET_ACCESS_KEY is set but "
			       "AWS_ACCESS_KEY_ID is not");
	if (ak) {
		c->access_key = ak;
		c->secret_key = sk;
		c->token = env_nonempty("AWS_SESSION_TOKEN");
		*found = true;
		return COLFS_OK;
	}
	COLFS_TRY(env_creds(e, why, why_len));
	if (e->creds.exists) {
		COLFS_TRY(profile_keys(&e->creds, e->profile, false, c, found,
				       why, why_len));
		if (*found)
			return COLFS_OK;
	}
	COLFS_TRY(env_config(e, why, why_len));
	if (e->config.exists) {
		COLFS_TRY(profile_keys(&e->config, e->profile, true, c, found,
				       why, why_len));
		if (*found)
			return COLFS_OK;
	}
	if (e->profile_named &&
	    !(e->creds.exists && ini_has_profile(&e->creds, e->profile,
						 false)) &&
	    !(e->config.exists && ini_has_profile(&e->config, e->profile,
						  true)))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "AWS_PROFILE names profile '%s', which is in "
			       "neither %s nor %s", e->profile,
			       e->creds_path[0] ? e->creds_path
						: "a credentials file",
			       e->config_path[0] ? e->config_path
						 : "a config file");
	return COLFS_OK;
}

/* Each secret is checked where it came from; the message names that, never
 * the value. */
static colfs_status creds_check(const s3_creds *c, char *why, size_t why_len)
{
	if (strchr(c->access_key, ':'))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "the AWS access key id contains ':'");
	if (has_control(c->access_key) || has_control(c->secret_key) ||
	    (c->token && has_control(c->token)))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "an AWS access key, secret key or session "
			       "token contains a control character");
	return COLFS_OK;
}

/* ------------------------------------------------------------------ */
/* The request URL */

/* ENDPOINT/BUCKET/KEY: the endpoint without a trailing '/', checked. */
static colfs_status endpoint_base(const char *ep, size_t *len, char *why,
				  size_t why_len)
{
	const char *host = strstr(ep, "://");
	size_t n = strlen(ep);

	if (!host || has_control(ep))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "s3_endpoint is not an http:// or https:// URL");
	host += 3;
	size_t hn = strcspn(host, "/");
	if (memchr(host, '@', hn))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "s3_endpoint with user information (user@host) "
			       "is not supported: give credentials in "
			       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or "
			       "in a profile");
	if (hn == 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "s3_endpoint %s has no host", ep);
	if (strpbrk(ep, "?#"))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "s3_endpoint %s has a query or a fragment", ep);
	while (n > (size_t)(host - ep) + hn && ep[n - 1] == '/')
		n--;
	*len = n;
	return COLFS_OK;
}

static char *str_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* The object's URL, or with `bucket_only` the bucket's (a listing adds
 * its query to it). */
static colfs_status s3_request_url(const s3_url *u, bool bucket_only,
				   const char *region,
				   const colfs_options *o, char **out,
				   char *why, size_t why_len)
{
	char *key = key_encode(u->key, bucket_only ? 0 : u->key_len);

	if (!key)
		return colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
	if (o && o->s3_endpoint) {
		size_t n = 0;
		colfs_status st = endpoint_base(o->s3_endpoint, &n, why,
						why_len);
		if (st) {
			free(key);
			return st;
		}
		*out = bucket_only ?
			str_printf("%.*s/%s", (int)n, o->s3_endpoint,
				   u->bucket) :
			str_printf("%.*s/%s/%s", (int)n, o->s3_endpoint,
				   u->bucket, key);
	} else {
		/* A dotted name would not match the *.s3 wildcard
		 * certificate: such buckets are reached path style. */
		const char *domain = strncmp(region, "cn-", 3) == 0 ?
			"amazonaws.com.cn" : "amazonaws.com";
		if (strchr(u->bucket, '.') && bucket_only)
			*out = str_printf("https://s3.%s.%s/%s", region,
					  domain, u->bucket);
		else if (strchr(u->bucket, '.'))
			*out = str_printf("https://s3.%s.%s/%s/%s", region,
					  domain, u->bucket, key);
		else
			*out = str_printf("https://%s.s3.%s.%s/%s", u->bucket,
					  region, domain, key);
	}
	free(key);
	if (!*out)
		return colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
	return COLFS_OK;
}

static char *str_dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The target of an object (`prefix` NULL) or of a bucket's listing
 * (*prefix: the prefix, malloc'd, maybe ""). */
static colfs_status s3_target(const char *url, const colfs_options *o,
			      colfs_remote_target *out, char **prefix,
			      char *why, size_t why_len)
{
	s3_env *e = calloc(1, sizeof *e);
	s3_url u;
	const char *region = NULL;
	s3_creds c;
	bool signed_ = false;
	colfs_status st;

	memset(out, 0, sizeof *out);
	if (!e)
		return colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
	if (prefix)
		*prefix = NULL;
	st = s3_url_parse(url, prefix != NULL, &u, why, why_len);
	if (st)
		goto done;
	e->profile = env_nonempty("AWS_PROFILE");
	e->profile_named = e->profile != NULL;
	if (!e->profile)
		e->profile = "default";
	if (has_control(e->profile)) {
		st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			     "AWS_PROFILE contains a control character");
		goto done;
	}
	st = file_path("AWS_CONFIG_FILE", "config", e->config_path,
		       sizeof e->config_path, &e->config_named, why, why_len);
	if (!st)
		st = file_path("AWS_SHARED_CREDENTIALS_FILE", "credentials",
			       e->creds_path, sizeof e->creds_path,
			       &e->creds_named, why, why_len);
	if (!st)
		st = s3_region(e, &region, why, why_len);
	if (!st)
		st = s3_credentials(e, &c, &signed_, why, why_len);
	if (!st && signed_)
		st = creds_check(&c, why, why_len);
	if (st)
		goto done;

	st = s3_request_url(&u, prefix != NULL, region, o, &out->url, why,
			    why_len);
	if (st)
		goto done;
	out->display = str_printf("s3://%s/%.*s", u.bucket, (int)u.key_len,
				  u.key);
	if (!out->display)
		goto nomem;
	if (signed_) {
		out->aws_sigv4 = str_printf("aws:amz:%s:s3", region);
		out->userpwd = str_printf("%s:%s", c.access_key,
					  c.secret_key);
		if (!out->aws_sigv4 || !out->userpwd)
			goto nomem;
		if (c.token && !(out->session_token = strdup(c.token)))
			goto nomem;
	}
	if (o && o->cafile && !(out->cafile = str_dup(o->cafile)))
		goto nomem;
	if (prefix && !(*prefix = strndup(u.key, u.key_len)))
		goto nomem;
	goto done;
nomem:
	st = colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
done:
	if (st)
		colfs_remote_target_clear(out);
	ini_free(&e->config);
	ini_free(&e->creds);
	explicit_bzero(e, sizeof *e);
	free(e);
	return st;
}

colfs_status colfs_s3_target(const char *url, const colfs_options *o,
			     colfs_remote_target *out, char *why,
			     size_t why_len)
{
	return s3_target(url, o, out, NULL, why, why_len);
}

colfs_status colfs_s3_prefix_target(const char *url, const colfs_options *o,
				    colfs_remote_target *out, char **prefix,
				    char *why, size_t why_len)
{
	return s3_target(url, o, out, prefix, why, why_len);
}

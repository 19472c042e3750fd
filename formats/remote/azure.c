/* colfs: Azure Blob Storage names as HTTP targets (remote.h): the three
 * ways of writing a blob or a prefix, the account and its credentials
 * from the environment (a connection string, or the account, key and SAS
 * variables), the Blob endpoint's URL, and the peek of a listed blob
 * (Shared Key signing is azure_sign.c's, below http.c).
 *
 * Azure's Range header takes only bytes=A-B and bytes=A-: a target is
 * marked `azure` so that http.c learns an object's size by a range from
 * its start rather than by a suffix range.
 *
 * Secrets (the account key, the SAS token) are copied only into the
 * target's azure_key and azure_sas; no message quotes a value read from
 * the environment (messages name the variable instead), and names given
 * to colfs hold none (a SAS in a name is refused).
 */
#include "remote.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Azure's limits: a container name has 3 to 63 characters, a blob name
 * at most 1024, an account name 3 to 24. */
#define AZ_CONTAINER_MAX 63
#define AZ_BLOB_MAX 1024
#define AZ_ACCOUNT_MAX 24
/* The longest connection string read. */
#define AZ_CONN_MAX 4096

static bool az_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static const char *az_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* ------------------------------------------------------------------ */
/* Names */

typedef struct az_name {
	char account[AZ_ACCOUNT_MAX + 1]; /* "" when the name has none */
	char container[AZ_CONTAINER_MAX + 1];
	const char *path; /* the blob or the prefix, inside the name */
} az_name;

bool colfs_azure_claims(const char *name)
{
	return strncmp(name, "az:", 3) == 0 || strncmp(name, "abfss:", 6) == 0;
}

static bool az_account_ok(const char *s, size_t n)
{
	if (n < 3 || n > AZ_ACCOUNT_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* Container naming: 3 to 63 of lowercase letters, digits and single
 * '-', beginning and ending with a letter or a digit ($root and $web
 * are the two special names). */
static bool az_container_ok(const char *s, size_t n)
{
	if ((n == 5 && !memcmp(s, "$root", 5)) ||
	    (n == 4 && !memcmp(s, "$web", 4)))
		return true;
	if (n < 3 || n > AZ_CONTAINER_MAX || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		bool ok = (s[i] >= 'a' && s[i] <= 'z') ||
			  (s[i] >= '0' && s[i] <= '9') || s[i] == '-';
		if (!ok || (s[i] == '-' && i && s[i - 1] == '-'))
			return false;
	}
	return true;
}

/* The account of HOST when it is ACCOUNT.SERVICE.core.windows.net. */
static bool az_host_account(const char *h, size_t n, const char *service,
			    az_name *u)
{
	char suffix[64];
	size_t sn = (size_t)snprintf(suffix, sizeof suffix,
				     ".%s.core.windows.net", service);
	if (n <= sn || memcmp(h + n - sn, suffix, sn) != 0 ||
	    !az_account_ok(h, n - sn))
		return false;
	memcpy(u->account, h, n - sn);
	u->account[n - sn] = '\0';
	return true;
}

static colfs_status az_parse(const char *url, bool prefix, az_name *u,
			     char *why, size_t why_len)
{
	memset(u, 0, sizeof *u);
	if (az_has_control(url))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "an Azure URL with a control character is not "
			       "supported");
	if (strstr(url, "sig=") || strchr(url, '?'))
		/* a SAS pasted into the name: a secret, never echoed */
		return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
			       "an Azure URL with a query (a SAS token?) is "
			       "not supported: give the token in "
			       "AZURE_STORAGE_SAS_TOKEN");
	const char *c, *rest;
	size_t cn;
	if (strncmp(url, "az://", 5) == 0) {
		const char *s = url + 5;
		size_t first = strcspn(s, "/");
		if (memchr(s, '@', first))
			/* user information: maybe a secret, never echoed */
			return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				       "an az:// URL with user information "
				       "(az://...@...) is not supported: give "
				       "credentials in AZURE_STORAGE_KEY, "
				       "AZURE_STORAGE_SAS_TOKEN or "
				       "AZURE_STORAGE_CONNECTION_STRING");
		if (memchr(s, '.', first)) {
			if (!az_host_account(s, first, "blob", u))
				return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					       "%s: the host is not "
					       "ACCOUNT.blob.core.windows.net",
					       url);
			if (!s[first])
				return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					       "%s: no container: write "
					       "az://ACCOUNT.blob.core.windows.net/"
					       "CONTAINER/PATH", url);
			s += first + 1;
		}
		c = s;
		cn = strcspn(s, "/");
		rest = c[cn] ? c + cn + 1 : c + cn;
	} else if (strncmp(url, "abfss://", 8) == 0) {
		const char *s = url + 8;
		size_t auth = strcspn(s, "/");
		const char *at = memchr(s, '@', auth);
		if (!at)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: write abfss://FILESYSTEM@ACCOUNT."
				       "dfs.core.windows.net/PATH", url);
		if (!az_host_account(at + 1, (size_t)(s + auth - at - 1), "dfs",
				     u))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: the host is not "
				       "ACCOUNT.dfs.core.windows.net", url);
		c = s;
		cn = (size_t)(at - s);
		rest = s[auth] ? s + auth + 1 : s + auth;
		if (!az_container_ok(c, cn))
			/* maybe user information: not echoed */
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "abfss://...@%.*s: not a file system name "
				       "before the '@' (3 to 63 lowercase "
				       "letters, digits and single '-')",
				       (int)(s + auth - at - 1), at + 1);
	} else {
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: not an Azure URL: write "
			       "az://CONTAINER/PATH or abfss://FILESYSTEM@"
			       "ACCOUNT.dfs.core.windows.net/PATH", url);
	}
	if (!az_container_ok(c, cn))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: not a container name (3 to 63 lowercase "
			       "letters, digits and single '-')", url);
	memcpy(u->container, c, cn);
	u->container[cn] = '\0';
	u->path = rest;
	size_t pn = strlen(rest);
	if (!prefix && (!pn || rest[pn - 1] == '/'))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: no blob name: write az://CONTAINER/PATH",
			       url);
	if (pn > AZ_BLOB_MAX)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s...: the blob name has %zu bytes, Azure "
			       "allows at most %d", u->container, pn,
			       AZ_BLOB_MAX);
	for (const char *p = rest; *p; p++)
		if (*p == '.' && (p == rest || p[-1] == '/') &&
		    (p[1] == '/' || !p[1] ||
		     (p[1] == '.' && (p[2] == '/' || !p[2]))) && !prefix)
			return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				       "%s: a blob name with a '.' or '..' "
				       "segment is not supported", url);
	return COLFS_OK;
}

bool colfs_azure_is_prefix(const char *name)
{
	az_name u;
	char why[8];

	if (!colfs_azure_claims(name) || az_parse(name, true, &u, why,
						  sizeof why))
		return false;
	size_t n = strlen(u.path);
	return n == 0 || u.path[n - 1] == '/';
}

/* ------------------------------------------------------------------ */
/* Credentials */

typedef struct az_creds {
	char account[AZ_ACCOUNT_MAX + 1];
	char *key;      /* secret */
	char *sas;      /* secret, without a leading '?' */
	char *endpoint; /* BlobEndpoint of a connection string */
	const char *from; /* the variable, for messages */
} az_creds;

static void az_wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static void az_creds_clear(az_creds *c)
{
	az_wipe_free(c->key);
	az_wipe_free(c->sas);
	free(c->endpoint);
	memset(c, 0, sizeof *c);
}

static colfs_status az_set_account(az_creds *c, const char *v, size_t n,
				   const char *from, char *why, size_t why_len)
{
	if (!az_account_ok(v, n))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: the account name is not 3 to 24 lowercase "
			       "letters and digits", from);
	memcpy(c->account, v, n);
	c->account[n] = '\0';
	return COLFS_OK;
}

static char *az_strip_q(const char *v, size_t n)
{
	if (n && v[0] == '?') {
		v++;
		n--;
	}
	return strndup(v, n);
}

/* AccountName=...;AccountKey=...;BlobEndpoint=...;SharedAccessSignature=...
 * (DefaultEndpointsProtocol and EndpointSuffix are read for the
 * endpoint, other settings ignored). */
static colfs_status az_conn_string(const char *s, az_creds *c, char *why,
				   size_t why_len)
{
	const char *from = "AZURE_STORAGE_CONNECTION_STRING";
	const char *proto = NULL, *suffix = NULL;
	size_t proto_n = 0, suffix_n = 0;

	if (strlen(s) > AZ_CONN_MAX)
		return colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
			       "%s is longer than %d bytes", from, AZ_CONN_MAX);
	while (*s) {
		size_t n = strcspn(s, ";");
		const char *eq = memchr(s, '=', n);
		if (n && !eq)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: a setting without '=' (write "
				       "Name=value;Name=value)", from);
		if (n) {
			size_t kn = (size_t)(eq - s), vn = n - kn - 1;
			const char *v = eq + 1;
#define K(name) (kn == strlen(name) && !strncasecmp(s, name, kn))
			if (K("AccountName"))
				COLFS_TRY(az_set_account(c, v, vn, from, why,
							 why_len));
			else if (K("AccountKey") &&
				 !(c->key = strndup(v, vn)))
				return COLFS_ENOMEM;
			else if (K("SharedAccessSignature") &&
				 !(c->sas = az_strip_q(v, vn)))
				return COLFS_ENOMEM;
			else if (K("BlobEndpoint") &&
				 !(c->endpoint = strndup(v, vn)))
				return COLFS_ENOMEM;
			else if (K("DefaultEndpointsProtocol")) {
				proto = v;
				proto_n = vn;
			} else if (K("EndpointSuffix")) {
				suffix = v;
				suffix_n = vn;
			}
#undef K
		}
		s += n;
		if (*s == ';')
			s++;
	}
	if (!c->endpoint && suffix && c->account[0] &&
	    asprintf(&c->endpoint, "%.*s://%s.blob.%.*s",
		     proto ? (int)proto_n : 5, proto ? proto : "https",
		     c->account, (int)suffix_n, suffix) < 0) {
		c->endpoint = NULL;
		return COLFS_ENOMEM;
	}
	if (c->key && !c->account[0])
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s has an AccountKey but no AccountName", from);
	c->from = from;
	return COLFS_OK;
}

/* A connection string, else AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_KEY
 * and AZURE_STORAGE_SAS_TOKEN; none: anonymous. */
static colfs_status az_credentials(az_creds *c, char *why, size_t why_len)
{
	const char *cs = az_env("AZURE_STORAGE_CONNECTION_STRING");

	memset(c, 0, sizeof *c);
	if (cs) {
		if (az_has_control(cs))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "AZURE_STORAGE_CONNECTION_STRING "
				       "contains a control character");
		return az_conn_string(cs, c, why, why_len);
	}
	const char *acct = az_env("AZURE_STORAGE_ACCOUNT");
	const char *key = az_env("AZURE_STORAGE_KEY");
	const char *sas = az_env("AZURE_STORAGE_SAS_TOKEN");
	if (acct)
		COLFS_TRY(az_set_account(c, acct, strlen(acct),
					 "AZURE_STORAGE_ACCOUNT", why,
					 why_len));
	if (key && !acct)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "AZURE_STORAGE_KEY is set but "
			       "AZURE_STORAGE_ACCOUNT is not");
	if ((key && az_has_control(key)) || (sas && az_has_control(sas)))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN "
			       "contains a control character");
	if (key && !(c->key = strdup(key)))
		return COLFS_ENOMEM;
	if (sas && !(c->sas = az_strip_q(sas, strlen(sas))))
		return COLFS_ENOMEM;
	c->from = key ? "AZURE_STORAGE_KEY" : "AZURE_STORAGE_SAS_TOKEN";
	return COLFS_OK;
}

/* ------------------------------------------------------------------ */
/* Targets */

/* The blob's path as encodeURI writes it (what Azurite canonicalizes, and
 * Azure signs the path as sent): every byte but A-Z a-z 0-9, '/' and
 * - _ . ! ~ * ' ( ) ; , : @ & = + $ becomes %XX. */
static char *az_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(3 * strlen(s) + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~' || c == '/' ||
		    (c && strchr("!*'();,:@&=+$", c))) {
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

static colfs_status az_endpoint_check(const char *ep, const char *what,
				      char *why, size_t why_len)
{
	const char *host = strstr(ep, "://");
	if (!host || (strncmp(ep, "http://", 7) && strncmp(ep, "https://", 8)))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s is not an http:// or https:// URL", what);
	size_t hn = strcspn(host + 3, "/");
	if (memchr(host + 3, '@', hn) || strpbrk(ep, "?#") || hn == 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			       "%s: a URL with a host and no user information, "
			       "query or fragment is expected", what);
	return COLFS_OK;
}

colfs_status colfs_azure_target(const char *url, const colfs_options *o,
				colfs_remote_target *out, char **prefix,
				char *why, size_t why_len)
{
	az_name u;
	az_creds c;
	colfs_status st;
	char *ep = NULL, *path = NULL;

	memset(out, 0, sizeof *out);
	if (prefix)
		*prefix = NULL;
	COLFS_TRY(az_parse(url, prefix != NULL, &u, why, why_len));
	st = az_credentials(&c, why, why_len);
	if (st) {
		az_creds_clear(&c);
		return st == COLFS_ENOMEM ?
			colfs_fail_why(st, why, why_len, "out of memory") : st;
	}
	/* The name's account is the one asked; the environment's key signs
	 * for it. */
	const char *account = u.account[0] ? u.account : c.account;
	if (o && o->azure_endpoint) {
		st = az_endpoint_check(o->azure_endpoint, "azure_endpoint",
				       why, why_len);
		ep = st ? NULL : strdup(o->azure_endpoint);
	} else if (c.endpoint && !u.account[0]) {
		st = az_endpoint_check(c.endpoint,
				       "the connection string's BlobEndpoint",
				       why, why_len);
		ep = st ? NULL : strdup(c.endpoint);
	} else if (account[0]) {
		if (asprintf(&ep, "https://%s.blob.core.windows.net",
			     account) < 0)
			ep = NULL;
	} else {
		st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			     "%s: no storage account: write "
			     "az://ACCOUNT.blob.core.windows.net/CONTAINER/PATH "
			     "or set AZURE_STORAGE_ACCOUNT", url);
	}
	if (!st && !ep)
		st = COLFS_ENOMEM;
	if (!st) {
		size_t n = strlen(ep);
		while (n && ep[n - 1] == '/')
			ep[--n] = '\0';
		path = az_encode(prefix ? "" : u.path);
		if (!path ||
		    asprintf(&out->url, prefix ? "%s/%s" : "%s/%s/%s", ep,
			     u.container, path) < 0) {
			out->url = NULL;
			st = COLFS_ENOMEM;
		}
	}
	if (!st) {
		out->azure = true;
		out->display = strdup(url);
		if (!out->display)
			st = COLFS_ENOMEM;
	}
	if (!st && c.key) {
		unsigned char k[128];
		int kn = colfs_azure_key_decode(c.key, k, sizeof k);
		explicit_bzero(k, sizeof k);
		if (kn <= 0)
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				     "%s: the account key is not base64",
				     c.from);
		else if (!(out->azure_key = strdup(c.key)) ||
			 !(out->azure_account = strdup(account)))
			st = COLFS_ENOMEM;
	} else if (!st && c.sas && !(out->azure_sas = strdup(c.sas))) {
		st = COLFS_ENOMEM;
	}
	if (!st && o && o->cafile && !(out->cafile = strdup(o->cafile)))
		st = COLFS_ENOMEM;
	if (!st && prefix && !(*prefix = strdup(u.path)))
		st = COLFS_ENOMEM;
	if (st == COLFS_ENOMEM)
		colfs_fail_why(st, why, why_len, "out of memory");
	if (st)
		colfs_remote_target_clear(out);
	free(ep);
	free(path);
	az_creds_clear(&c);
	return st;
}

colfs_status colfs_azure_peek(const char *url, const colfs_options *o,
			      uint64_t size, size_t n, uint8_t *head,
			      uint8_t *tail, char *why, size_t why_len)
{
	colfs_remote_target t;
	colfs_status st;

	COLFS_TRY(colfs_azure_target(url, o, &t, NULL, why, why_len));
	st = colfs_remote_peek_target(&t, o, size, n, head, tail, why,
				      why_len);
	colfs_remote_target_clear(&t);
	return st;
}

/* colfs: Google Cloud Storage names as HTTP targets (remote.h): gs://
 * names checked and turned into the XML API's URLs
 * (https://storage.googleapis.com/BUCKET/OBJECT, or path style on
 * -o gcs_endpoint), an HMAC key from the environment, and the signing
 * parameters for libcurl's Signature V4 with Google's names
 * (GOOG4-HMAC-SHA256, x-goog-date, scope DATE/auto/storage/goog4_request).
 * The XML API answers as S3 does where colfs cares: suffix ranges, 206
 * with Content-Range, ETag and Last-Modified, and the list-type=2 listing
 * (s3_list.c reads it for both stores).
 *
 * Secrets (the HMAC secret, and the access id with it) are copied only
 * into the target's userpwd; no message quotes a value read from the
 * environment (messages name the variable), and names given to colfs
 * hold none (user information in a name is refused, never echoed).
 * OAuth (service-account keys, GOOGLE_APPLICATION_CREDENTIALS) is not
 * supported: with that variable set and no HMAC key the name is refused
 * naming it, rather than read anonymously.
 */
#include "remote.h"
#include "xml_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GCS's limits: a bucket name has 3 to 63 characters, or up to 222 when
 * it holds dots (each dot-separated part at most 63); an object name at
 * most 1024 bytes. */
#define GCS_BUCKET_MAX 222
#define GCS_PART_MAX 63
#define GCS_OBJECT_MAX 1024
#define GCS_ENDPOINT "https://storage.googleapis.com"
/* libcurl's CURLOPT_AWS_SIGV4 for GCS: provider "goog" gives the
 * algorithm GOOG4-HMAC-SHA256, the header x-goog-date and the request
 * type goog4_request; region "auto", service "storage". */
#define GCS_SIGV4 "goog:goog:auto:storage"

static bool gcs_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static const char *gcs_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

bool colfs_gcs_claims(const char *name)
{
	return strncmp(name, "gs:", 3) == 0;
}

/* ------------------------------------------------------------------ */
/* Names */

typedef struct gcs_name {
	char bucket[GCS_BUCKET_MAX + 1];
	const char *object; /* inside the name given; "" for none */
} gcs_name;

static bool gcs_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* GCS's bucket naming rules.  NULL when `b` follows them, else the rule
 * it breaks. */
static const char *gcs_bucket_rule_broken(const char *b, size_t n)
{
	size_t part = 0, dots = 0;
	bool digits_dots = true;

	if (n < 3 || n > GCS_BUCKET_MAX)
		return "a bucket name has 3 to 63 characters (222 with dots)";
	for (size_t i = 0; i < n; i++) {
		if (!gcs_lower_alnum(b[i]) && b[i] != '-' && b[i] != '_' &&
		    b[i] != '.')
			return "a bucket name has only lowercase letters, "
			       "digits, '-', '_' and '.'";
		if (b[i] != '.' && (b[i] < '0' || b[i] > '9'))
			digits_dots = false;
		if (b[i] == '.') {
			dots++;
			if (part == 0)
				return "a bucket name has no empty "
				       "dot-separated part";
			part = 0;
		} else if (++part > GCS_PART_MAX) {
			return "a bucket name has at most 63 characters "
			       "between dots (and 222 in all)";
		}
	}
	if (!gcs_lower_alnum(b[0]) || !gcs_lower_alnum(b[n - 1]))
		return "a bucket name begins and ends with a letter or a "
		       "digit";
	if (digits_dots && dots == 3)
		return "a bucket name is not written like an IP address";
	if (n >= 4 && memcmp(b, "goog", 4) == 0)
		return "a bucket name does not begin with \"goog\"";
	for (size_t i = 0; i + 6 <= n; i++)
		if (memcmp(b + i, "google", 6) == 0)
			return "a bucket name does not contain \"google\"";
	return NULL;
}

/* Does the object name hold a "." or ".." segment?  HTTP clients remove
 * those from a path, so the object asked would not be the one signed. */
static bool gcs_dot_segment(const char *k)
{
	for (const char *p = k; *p; p++)
		if (*p == '.' && (p == k || p[-1] == '/') &&
		    (p[1] == '/' || !p[1] ||
		     (p[1] == '.' && (p[2] == '/' || !p[2]))))
			return true;
	return false;
}

/* gs://BUCKET/OBJECT, the object name taken as written (as gsutil takes
 * it).  With `prefix` (a listing) the object part is a prefix and may be
 * empty: gs://BUCKET, gs://BUCKET/, gs://BUCKET/PREFIX/. */
static colfs_status gcs_parse(const char *url, bool prefix, gcs_name *u,
			      char *why, size_t why_len)
{
	memset(u, 0, sizeof *u);
	if (gcs_has_control(url))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "a gs:// URL with a control character is "
				      "not supported");
	/* A name that does not parse may hold user information: with an
	 * '@', it is not echoed. */
	const char *echo = strchr(url, '@') ? "gs:..." : url;
	if (strncmp(url, "gs://", 5) != 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: not a Google Cloud Storage URL: "
				      "write gs://BUCKET/OBJECT", echo);
	const char *b = url + 5;
	size_t bn = strcspn(b, "/");
	if (memchr(b, '@', bn))
		return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				      "a gs:// URL with user information "
				      "(gs://...@...) is not supported: give an "
				      "HMAC key in GCS_ACCESS_KEY_ID and "
				      "GCS_SECRET_ACCESS_KEY");
	if (bn == 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: the bucket name is empty: write "
				      "gs://BUCKET/OBJECT", echo);
	const char *rule = gcs_bucket_rule_broken(b, bn);
	if (rule)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: not a bucket name: %s", url, rule);
	memcpy(u->bucket, b, bn);
	u->bucket[bn] = '\0';
	u->object = b[bn] ? b + bn + 1 : b + bn;
	size_t on = strlen(u->object);
	if (!prefix && (on == 0 || u->object[on - 1] == '/'))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: no object name: write "
				      "gs://BUCKET/OBJECT", url);
	if (on > GCS_OBJECT_MAX)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "gs://%s/...: the object name has %zu "
				      "bytes, GCS allows at most %d",
				      u->bucket, on, GCS_OBJECT_MAX);
	/* (a prefix goes into the query, where no segment is removed) */
	if (!prefix && gcs_dot_segment(u->object))
		return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				      "%s: an object name with a '.' or '..' "
				      "segment is not supported", url);
	return COLFS_OK;
}

bool colfs_gcs_is_prefix(const char *name)
{
	gcs_name u;
	char why[8];

	if (!colfs_gcs_claims(name) || gcs_parse(name, true, &u, why,
						 sizeof why))
		return false;
	size_t n = strlen(u.object);
	return n == 0 || u.object[n - 1] == '/';
}

/* ------------------------------------------------------------------ */
/* Targets */

/* The object name as a URL path: each '/'-separated segment
 * percent-encoded as the canonical request has it (every byte but
 * A-Z a-z 0-9 - . _ ~), the '/' kept. */
static char *gcs_path_encode(const char *s)
{
	size_t n = strlen(s), len = 0;
	char *out = malloc(3 * n + 1);

	if (!out)
		return NULL;
	out[0] = '\0';
	while (true) {
		size_t sn = strcspn(s, "/");
		char *seg = strndup(s, sn), *enc;
		if (!seg || !(enc = colfs_xml_query_encode(seg))) {
			free(seg);
			free(out);
			return NULL;
		}
		size_t en = strlen(enc);
		memcpy(out + len, enc, en + 1);
		len += en;
		free(seg);
		free(enc);
		if (!s[sn])
			break;
		out[len++] = '/';
		out[len] = '\0';
		s += sn + 1;
	}
	return out;
}

static colfs_status gcs_endpoint(const colfs_options *o, const char **ep,
				 size_t *len, char *why, size_t why_len)
{
	const char *e = o && o->gcs_endpoint ? o->gcs_endpoint : GCS_ENDPOINT;
	const char *host = strstr(e, "://");

	if (!host || (strncmp(e, "http://", 7) && strncmp(e, "https://", 8)) ||
	    gcs_has_control(e))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "gcs_endpoint is not an http:// or "
				      "https:// URL");
	size_t hn = strcspn(host + 3, "/");
	if (memchr(host + 3, '@', hn) || strpbrk(e, "?#") || hn == 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "gcs_endpoint: a URL with a host and no "
				      "user information, query or fragment is "
				      "expected");
	size_t n = strlen(e);
	while (n > (size_t)(host + 3 - e) + hn && e[n - 1] == '/')
		n--;
	*ep = e;
	*len = n;
	return COLFS_OK;
}

/* GCS_ACCESS_KEY_ID + GCS_SECRET_ACCESS_KEY: "ID:SECRET" in *userpwd
 * (malloc'd), or NULL: anonymous. */
static colfs_status gcs_credentials(char **userpwd, char *why,
				    size_t why_len)
{
	const char *id = gcs_env("GCS_ACCESS_KEY_ID");
	const char *secret = gcs_env("GCS_SECRET_ACCESS_KEY");

	*userpwd = NULL;
	if (id && !secret)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "GCS_ACCESS_KEY_ID is set but "
				      "GCS_SECRET_ACCESS_KEY is not");
	if (secret && !id)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "GCS_SECRET_ACCESS_KEY is set but "
				      "GCS_ACCESS_KEY_ID is not");
	if (!id) {
		if (gcs_env("GOOGLE_APPLICATION_CREDENTIALS"))
			return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				      "GOOGLE_APPLICATION_CREDENTIALS is set, "
				      "but colfs does not support OAuth "
				      "(service-account keys): give an HMAC "
				      "key in GCS_ACCESS_KEY_ID and "
				      "GCS_SECRET_ACCESS_KEY, or unset "
				      "GOOGLE_APPLICATION_CREDENTIALS to read "
				      "a public bucket anonymously");
		return COLFS_OK;
	}
	if (strchr(id, ':'))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "GCS_ACCESS_KEY_ID contains ':'");
	if (gcs_has_control(id) || gcs_has_control(secret))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "GCS_ACCESS_KEY_ID or "
				      "GCS_SECRET_ACCESS_KEY contains a control "
				      "character");
	if (asprintf(userpwd, "%s:%s", id, secret) < 0) {
		*userpwd = NULL;
		return colfs_fail_why(COLFS_ENOMEM, why, why_len,
				      "out of memory");
	}
	return COLFS_OK;
}

colfs_status colfs_gcs_target(const char *url, const colfs_options *o,
			      colfs_remote_target *out, char **prefix,
			      char *why, size_t why_len)
{
	gcs_name u;
	const char *ep = NULL;
	size_t epn = 0;
	char *path = NULL;
	colfs_status st;

	memset(out, 0, sizeof *out);
	if (prefix)
		*prefix = NULL;
	COLFS_TRY(gcs_parse(url, prefix != NULL, &u, why, why_len));
	COLFS_TRY(gcs_endpoint(o, &ep, &epn, why, why_len));
	st = gcs_credentials(&out->userpwd, why, why_len);
	if (st)
		return st;
	path = prefix ? NULL : gcs_path_encode(u.object);
	if (!prefix && !path)
		goto nomem;
	if ((prefix ? asprintf(&out->url, "%.*s/%s", (int)epn, ep, u.bucket)
		    : asprintf(&out->url, "%.*s/%s/%s", (int)epn, ep,
			       u.bucket, path)) < 0) {
		out->url = NULL;
		goto nomem;
	}
	if (asprintf(&out->display, "gs://%s/%s", u.bucket, u.object) < 0) {
		out->display = NULL;
		goto nomem;
	}
	if (out->userpwd && !(out->aws_sigv4 = strdup(GCS_SIGV4)))
		goto nomem;
	if (o && o->cafile && !(out->cafile = strdup(o->cafile)))
		goto nomem;
	if (prefix && !(*prefix = strdup(u.object)))
		goto nomem;
	free(path);
	return COLFS_OK;
nomem:
	free(path);
	colfs_remote_target_clear(out);
	return colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
}

static colfs_status gcs_list(const char *url, const colfs_options *o,
			     unsigned max_pages, colfs_source_entry **out,
			     size_t *n, char *why, size_t why_len)
{
	colfs_remote_target t;
	char *prefix = NULL;
	colfs_status st;

	*out = NULL;
	*n = 0;
	COLFS_TRY(colfs_gcs_target(url, o, &t, &prefix, why, why_len));
	st = colfs_list_v2(&t, prefix, o, 0, max_pages, out, n, why,
			   why_len);
	free(prefix);
	colfs_remote_target_clear(&t);
	return st;
}

colfs_status colfs_gcs_list(const char *url, const colfs_options *o,
			    colfs_source_entry **out, size_t *n, char *why,
			    size_t why_len)
{
	return gcs_list(url, o, 0, out, n, why, why_len);
}

colfs_status colfs_gcs_list_first(const char *url, const colfs_options *o,
				  colfs_source_entry **out, size_t *n,
				  char *why, size_t why_len)
{
	return gcs_list(url, o, 1, out, n, why, why_len);
}

colfs_status colfs_gcs_peek(const char *url, const colfs_options *o,
			    uint64_t size, size_t n, uint8_t *head,
			    uint8_t *tail, char *why, size_t why_len)
{
	colfs_remote_target t;
	colfs_status st;

	COLFS_TRY(colfs_gcs_target(url, o, &t, NULL, why, why_len));
	st = colfs_remote_peek_target(&t, o, size, n, head, tail, why,
				      why_len);
	colfs_remote_target_clear(&t);
	return st;
}

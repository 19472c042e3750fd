/* colfs: the Hugging Face Hub as a source (remote.h): hf:// names, the
 * token and the endpoint, the Hub's requests, and where a file's bytes
 * are (docs/remote.md, "Hugging Face").
 *
 * A file hf://datasets/OWNER/NAME@REV/PATH is the Hub's
 * ENDPOINT/datasets/OWNER/NAME/resolve/REV/PATH.  The Hub serves a small
 * file itself and answers a large one (LFS, Xet) with a redirect to a
 * storage host, whose signed URL serves the bytes with Range.  The Hub's
 * requests are made here, one HEAD without following the redirect: the
 * token goes to the Hub only, as "Authorization: Bearer", and the
 * redirect's target is requested by http.c without it.  The target is
 * kept for the mount (hf_cache, shared by a dataset's peeks and opens);
 * a target that answers 403 or 410 (a signed URL that expired) is asked
 * of the Hub again once (colfs_hf_relocate, called by http.c).
 *
 * The token: HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, else the file
 * huggingface_hub writes (HF_TOKEN_PATH, else $HF_HOME/token, HF_HOME
 * defaulting to $XDG_CACHE_HOME/huggingface, else
 * ~/.cache/huggingface), cleaned as huggingface_hub cleans it (CR and
 * LF dropped, blanks around it trimmed).  It is copied only into a
 * target's bearer and relocate_token and the header of a request to the
 * Hub; messages
 * name where it came from, never its value, and names hold none (an
 * hf:// name has no user information).
 */
#include "../core/hex.h"
#include "remote.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define HF_DEFAULT_ENDPOINT "https://huggingface.co"
/* Tries of one Hub request in all, and the first backoff (doubled on
 * each retry, times a jitter in [0.5, 1.5)), as http.c's. */
#define HF_TRIES 4
#define HF_BACKOFF_MS 100
/* Relative redirects followed on the Hub (a renamed repository). */
#define HF_HUB_REDIRS 5
#define HF_CONNECT_TIMEOUT_S 10L
#define HF_LOW_SPEED_TIME_S 30L
/* The longest token read, header value kept, redirect target taken. */
#define HF_TOKEN_MAX 4096
#define HF_URL_MAX 16384
/* Redirect targets kept for the mount. */
#define HF_CACHE 4096

static const char *hf_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* ------------------------------------------------------------------ */
/* Names */

bool colfs_hf_claims(const char *name)
{
	return strncmp(name, "hf:", 3) == 0;
}

/* A repository's owner or name: the Hub's letters, digits, '-', '_'
 * and '.', not "." or "..". */
static bool hf_repo_part_ok(const char *s, size_t n)
{
	if (n == 0 || n > 96 || (n <= 2 && strncmp(s, "..", n) == 0))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' &&
		    s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

void colfs_hf_repo_clear(colfs_hf_repo *r)
{
	if (!r)
		return;
	free(r->repo);
	free(r->revision);
	free(r->path);
	free(r->endpoint);
	free(r->cafile);
	if (r->token) {
		explicit_bzero(r->token, strlen(r->token));
		free(r->token);
	}
	memset(r, 0, sizeof *r);
}

/* Split an hf:// name (see remote.h).  The revision is percent-decoded
 * ("refs%2Fconvert%2Fparquet") and "~parquet" is refs/convert/parquet,
 * as DuckDB writes it; refs/convert/X and refs/pr/N may be written with
 * their slashes, as huggingface_hub reads them. */
static colfs_status hf_parse(const char *name, colfs_hf_repo *r, char *why,
			     size_t why_len)
{
	const char *p, *owner, *rest;
	size_t n;

	memset(r, 0, sizeof *r);
	r->name = name;
	if (strncmp(name, "hf://", 5) != 0)
		return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
			"%s: not an hf:// name (hf://datasets/OWNER/NAME[@REVISION]/PATH, models/ or spaces/)",
			name);
	for (p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"hf://...: a name may not hold control characters");
	p = name + 5;
	if (strncmp(p, "datasets/", 9) == 0) {
		strcpy(r->type, "datasets");
		p += 9;
	} else if (strncmp(p, "spaces/", 7) == 0) {
		strcpy(r->type, "spaces");
		p += 7;
	} else {
		/* models/OWNER/NAME, or OWNER/NAME as huggingface_hub
		 * writes a model */
		strcpy(r->type, "models");
		if (strncmp(p, "models/", 7) == 0)
			p += 7;
	}
	owner = p;
	n = strcspn(owner, "/");
	if (!hf_repo_part_ok(owner, n) || owner[n] != '/')
		goto bad;
	rest = owner + n + 1;
	n = strcspn(rest, "/@");
	if (!hf_repo_part_ok(rest, n))
		goto bad;
	r->repo = strndup(owner, (size_t)(rest + n - owner));
	if (!r->repo)
		goto nomem;
	p = rest + n;
	if (*p == '@') {
		const char *rev = p + 1;
		size_t rl;

		if (strncmp(rev, "refs/convert/", 13) == 0)
			rl = 13 + strcspn(rev + 13, "/");
		else if (strncmp(rev, "refs/pr/", 8) == 0)
			rl = 8 + strcspn(rev + 8, "/");
		else
			rl = strcspn(rev, "/");
		if (rl == 0 || rl > 256)
			goto bad;
		if (rl == 8 && strncmp(rev, "~parquet", 8) == 0) {
			r->revision = strdup("refs/convert/parquet");
		} else {
			r->revision = malloc(rl + 1);
			if (r->revision &&
			    colfs_percent_decode(rev, rl, r->revision) !=
				    strlen(r->revision)) {
				free(r->revision);
				r->revision = NULL;
				goto bad;
			}
		}
		if (!r->revision)
			goto nomem;
		if (!r->revision[0])
			goto bad;
		p = rev + rl;
	} else {
		r->revision = strdup("main");
		if (!r->revision)
			goto nomem;
	}
	for (const char *c = r->revision; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			goto bad;
	if (*p == '/')
		p++;
	/* The path in the repository: a file, or a folder (empty or
	 * ending in '/'); no "." or ".." segment, no "//". */
	for (const char *s = p; *s;) {
		size_t sl = strcspn(s, "/");

		if ((sl == 0 && s[sl] == '/') || (sl == 1 && s[0] == '.') ||
		    (sl == 2 && s[0] == '.' && s[1] == '.'))
			goto bad;
		s += sl + (s[sl] == '/');
	}
	if (strlen(p) > 4096)
		goto bad;
	r->path = strdup(p);
	if (!r->path)
		goto nomem;
	r->dir = !*p || p[strlen(p) - 1] == '/';
	return COLFS_OK;
bad:
	colfs_hf_repo_clear(r);
	/* a name with user information (hf://USER:TOKEN@...) is not
	 * repeated: it may hold a token */
	n = strcspn(name + 5, "/");
	return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
		"%s: not an hf:// name: hf://datasets/OWNER/NAME[@REVISION]/PATH (or models/, spaces/; a folder ends in '/')",
		memchr(name + 5, '@', n) || memchr(name + 5, ':', n)
			? "hf://..." : name);
nomem:
	colfs_hf_repo_clear(r);
	return colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
}

bool colfs_hf_is_prefix(const char *name)
{
	colfs_hf_repo r;
	bool dir;

	if (hf_parse(name, &r, NULL, 0))
		return false;
	dir = r.dir;
	colfs_hf_repo_clear(&r);
	return dir;
}

/* ------------------------------------------------------------------ */
/* The endpoint and the token */

/* A token as huggingface_hub cleans it: its CR and LF bytes dropped,
 * then the blanks around it (in place); NULL when nothing is left. */
static char *hf_token_clean(char *t)
{
	size_t k = 0, n;

	for (size_t i = 0; t[i]; i++)
		if (t[i] != '\r' && t[i] != '\n')
			t[k++] = t[i];
	t[k] = '\0';
	for (n = 0; t[n] == ' ' || t[n] == '\t'; n++)
		;
	memmove(t, t + n, k - n + 1);
	k -= n;
	while (k && (t[k - 1] == ' ' || t[k - 1] == '\t'))
		t[--k] = '\0';
	return k ? t : NULL;
}

/* The token in the file `path` (malloc'd), NULL when the file is absent
 * or holds none. */
static char *hf_token_file(const char *path)
{
	char buf[HF_TOKEN_MAX + 2];
	FILE *f = fopen(path, "re");
	size_t n;
	char *t = NULL;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strlen(buf) == n && hf_token_clean(buf))
		t = strdup(buf);
	explicit_bzero(buf, sizeof buf);
	return t;
}

/* The token and where it came from (a variable's or a file's name, for
 * messages); none is no error. */
static colfs_status hf_token(colfs_hf_repo *r, char *why, size_t why_len)
{
	static const char *const vars[] = {"HF_TOKEN",
					   "HUGGING_FACE_HUB_TOKEN"};
	char path[4096];
	const char *v;

	for (size_t i = 0; i < 2 && !r->token; i++)
		if ((v = hf_env(vars[i]))) {
			snprintf(r->token_from, sizeof r->token_from, "%s",
				 vars[i]);
			r->token = strdup(v);
			if (!r->token)
				return colfs_fail_why(COLFS_ENOMEM, why,
						      why_len, "out of memory");
			if (!hf_token_clean(r->token)) {
				free(r->token); /* only blanks: none */
				r->token = NULL;
			}
		}
	if (!r->token) {
		if ((v = hf_env("HF_TOKEN_PATH")))
			snprintf(path, sizeof path, "%s", v);
		else if ((v = hf_env("HF_HOME")))
			snprintf(path, sizeof path, "%s/token", v);
		else if ((v = hf_env("XDG_CACHE_HOME")))
			snprintf(path, sizeof path, "%s/huggingface/token", v);
		else if ((v = hf_env("HOME")))
			snprintf(path, sizeof path,
				 "%s/.cache/huggingface/token", v);
		else
			path[0] = '\0';
		if (path[0] && (r->token = hf_token_file(path)))
			snprintf(r->token_from, sizeof r->token_from,
				 "the token file %.200s", path);
	}
	if (!r->token)
		return COLFS_OK;
	/* It goes into a header: nothing a header cannot carry. */
	for (const char *c = r->token; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: the token from %s holds a space or a control character",
				r->name, r->token_from);
	if (strlen(r->token) > HF_TOKEN_MAX)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			"%s: the token from %s is longer than %d bytes",
			r->name, r->token_from, HF_TOKEN_MAX);
	return COLFS_OK;
}

colfs_status colfs_hf_repo_open(const char *name, const colfs_options *o,
				colfs_hf_repo *r, char *why, size_t why_len)
{
	const char *ep, *what;
	size_t n;

	COLFS_TRY(hf_parse(name, r, why, why_len));
	if (o && o->hf_endpoint) {
		ep = o->hf_endpoint;
		what = "hf_endpoint";
	} else if ((ep = hf_env("HF_ENDPOINT"))) {
		what = "HF_ENDPOINT";
	} else {
		ep = HF_DEFAULT_ENDPOINT;
		what = "the endpoint";
	}
	n = strlen(ep);
	while (n && ep[n - 1] == '/')
		n--;
	bool http = !strncmp(ep, "http://", 7), https = !strncmp(ep, "https://", 8);
	const char *host = ep + (https ? 8 : http ? 7 : 0);
	if ((!http && !https) || strcspn(host, "/?#@") == 0 ||
	    strcspn(host, "?#@") < strlen(host)) {
		colfs_hf_repo_clear(r);
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			"%s: %s is not an http:// or https:// URL with a host and no user information, query or fragment",
			name, what);
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)ep[i] <= 0x20 || ep[i] == 0x7f) {
			colfs_hf_repo_clear(r);
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: %s holds a space or a control character",
				name, what);
		}
	r->endpoint = strndup(ep, n);
	if (!r->endpoint || (o && o->cafile && !(r->cafile = strdup(o->cafile)))) {
		colfs_hf_repo_clear(r);
		return colfs_fail_why(COLFS_ENOMEM, why, why_len,
				      "out of memory");
	}
	colfs_status st = hf_token(r, why, why_len);
	if (st)
		colfs_hf_repo_clear(r);
	return st;
}

/* `s` percent-encoded but for the unreserved characters (and '/' when
 * `keep_slash`), appended to `out` at *len (of room `cap`). */
static bool hf_encode(const char *s, bool keep_slash, char *out, size_t *len,
		      size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool plain = isalnum(c) || c == '-' || c == '_' || c == '.' ||
			     c == '~' || (keep_slash && c == '/');

		if (*len + (plain ? 1 : 3) >= cap)
			return false;
		if (plain) {
			out[(*len)++] = (char)c;
		} else {
			out[(*len)++] = '%';
			out[(*len)++] = hex[c >> 4];
			out[(*len)++] = hex[c & 15];
		}
	}
	out[*len] = '\0';
	return true;
}

char *colfs_hf_url(const colfs_hf_repo *r, bool api, const char *path)
{
	char *u;
	size_t len, cap = strlen(r->endpoint) + strlen(r->repo) +
			  3 * (strlen(r->revision) + strlen(path)) + 64;

	u = malloc(cap);
	if (!u)
		return NULL;
	/* resolve: models have no prefix in the Hub's URLs; the API names
	 * every type */
	if (api)
		len = (size_t)snprintf(u, cap, "%s/api/%s/%s/tree/",
				       r->endpoint, r->type, r->repo);
	else
		len = (size_t)snprintf(u, cap, "%s/%s%s%s/resolve/",
				       r->endpoint,
				       strcmp(r->type, "models") ? r->type : "",
				       strcmp(r->type, "models") ? "/" : "",
				       r->repo);
	if (len >= cap || !hf_encode(r->revision, false, u, &len, cap) ||
	    len + 1 >= cap) {
		free(u);
		return NULL;
	}
	u[len++] = '/';
	u[len] = '\0';
	if (!hf_encode(path, true, u, &len, cap)) {
		free(u);
		return NULL;
	}
	return u;
}

/* ------------------------------------------------------------------ */
/* Requests to the Hub */

void colfs_hf_reply_clear(colfs_hf_reply *y)
{
	free(y->location);
	free(y->link);
	free(y->body);
	memset(y, 0, sizeof *y);
}

typedef struct hf_xfer {
	colfs_hf_reply *y;
	size_t max;
	bool too_long;
} hf_xfer;

/* A header's value without surrounding blanks, made printable, at most
 * `room` - 1 bytes (a longer one is cut). */
static void hf_header_value(const char *v, size_t n, char *out, size_t room)
{
	size_t k = 0;

	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n && isspace((unsigned char)v[n - 1]))
		n--;
	for (size_t i = 0; i < n && k + 1 < room; i++)
		out[k++] = isprint((unsigned char)v[i]) ? v[i] : '?';
	out[k] = '\0';
}

static bool hf_header_is(const char *line, size_t name, const char *want)
{
	return strlen(want) == name && !strncasecmp(line, want, name);
}

static size_t hf_on_header(char *line, size_t size, size_t n, void *ctx)
{
	hf_xfer *x = ctx;
	colfs_hf_reply *y = x->y;
	size_t len = size * n, name;
	const char *colon;

	if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
		const char *p = memchr(line, ' ', len);

		free(y->location);
		free(y->link);
		y->location = y->link = NULL;
		y->status = 0;
		y->etag[0] = y->linked_etag[0] = y->commit[0] = '\0';
		y->error_code[0] = y->error_message[0] = '\0';
		y->have_linked_size = false;
		if (p && (size_t)(p - line) + 4 <= len &&
		    isdigit((unsigned char)p[1]) &&
		    isdigit((unsigned char)p[2]) &&
		    isdigit((unsigned char)p[3]))
			y->status = (p[1] - '0') * 100 + (p[2] - '0') * 10 +
				    (p[3] - '0');
		return len;
	}
	colon = memchr(line, ':', len);
	if (!colon)
		return len;
	name = (size_t)(colon - line);
	colon++;
	len -= name + 1;
	if (hf_header_is(line, name, "Location") ||
	    hf_header_is(line, name, "Link")) {
		char **to = line[1] == 'o' || line[1] == 'O' ? &y->location
							     : &y->link;

		if (len > HF_URL_MAX) {
			x->too_long = true;
			return size * n;
		}
		free(*to);
		*to = malloc(len + 1);
		if (!*to)
			return 0;
		hf_header_value(colon, len, *to, len + 1);
	} else if (hf_header_is(line, name, "ETag")) {
		hf_header_value(colon, len, y->etag, sizeof y->etag);
	} else if (hf_header_is(line, name, "X-Linked-Etag")) {
		hf_header_value(colon, len, y->linked_etag,
				sizeof y->linked_etag);
	} else if (hf_header_is(line, name, "X-Repo-Commit")) {
		hf_header_value(colon, len, y->commit, sizeof y->commit);
	} else if (hf_header_is(line, name, "X-Error-Code")) {
		hf_header_value(colon, len, y->error_code,
				sizeof y->error_code);
	} else if (hf_header_is(line, name, "X-Error-Message")) {
		hf_header_value(colon, len, y->error_message,
				sizeof y->error_message);
	} else if (hf_header_is(line, name, "X-Linked-Size")) {
		char v[32], *end;

		hf_header_value(colon, len, v, sizeof v);
		errno = 0;
		unsigned long long s = strtoull(v, &end, 10);
		y->have_linked_size = isdigit((unsigned char)v[0]) && !*end &&
				      !errno;
		y->linked_size = s;
	}
	return size * n;
}

static size_t hf_on_body(char *data, size_t size, size_t n, void *ctx)
{
	hf_xfer *x = ctx;
	colfs_hf_reply *y = x->y;
	size_t len = size * n;

	if (len > x->max - y->len) {
		x->too_long = true;
		return 0;
	}
	uint8_t *nb = realloc(y->body, y->len + len + 1);
	if (!nb)
		return 0;
	y->body = nb;
	memcpy(y->body + y->len, data, len);
	y->len += len;
	y->body[y->len] = 0;
	return len;
}

static void hf_sleep_backoff(int tries)
{
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&seed;
	int64_t base = (int64_t)HF_BACKOFF_MS << (tries - 1);
	unsigned r = (unsigned)rand_r(&seed);
	int64_t ms = base / 2 + (int64_t)(r % (unsigned)(base + 1));
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

static pthread_once_t hf_curl_once = PTHREAD_ONCE_INIT;
static CURLcode hf_curl_rc = CURLE_FAILED_INIT;

static void hf_curl_init(void)
{
	hf_curl_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

colfs_status colfs_hf_request(const colfs_hf_repo *r, const char *url,
			      bool head, size_t max, colfs_hf_reply *y,
			      unsigned *requests, char *why, size_t why_len)
{
	struct curl_slist *hdr = NULL;
	char line[HF_TOKEN_MAX + 32];
	CURLcode rc = CURLE_OK;
	colfs_status st = COLFS_OK;
	hf_xfer x = {y, max, false};

	memset(y, 0, sizeof *y);
	pthread_once(&hf_curl_once, hf_curl_init);
	if (hf_curl_rc != CURLE_OK)
		return colfs_fail_why(COLFS_EIO, why, why_len,
				      "cannot start libcurl: %s",
				      curl_easy_strerror(hf_curl_rc));
	if (r->token) {
		snprintf(line, sizeof line, "Authorization: Bearer %s",
			 r->token);
		hdr = curl_slist_append(NULL, line);
		explicit_bzero(line, sizeof line);
		if (!hdr)
			return colfs_fail_why(COLFS_ENOMEM, why, why_len,
					      "out of memory");
	}
	for (int tries = 1;; tries++) {
		CURL *e = curl_easy_init();

		if (!e) {
			st = colfs_fail_why(COLFS_ENOMEM, why, why_len,
					    "out of memory");
			break;
		}
		colfs_hf_reply_clear(y);
		x.too_long = false;
		if (requests)
			(*requests)++;
#define SET(opt, val)                                                       \
	do {                                                                \
		if (rc == CURLE_OK)                                         \
			rc = curl_easy_setopt(e, opt, val);                 \
	} while (0)
		rc = CURLE_OK;
		SET(CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
		SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
		SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
		/* Never followed: the redirect's target gets no token. */
		SET(CURLOPT_FOLLOWLOCATION, 0L);
		SET(CURLOPT_NOBODY, head ? 1L : 0L);
		SET(CURLOPT_CONNECTTIMEOUT, HF_CONNECT_TIMEOUT_S);
		SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
		SET(CURLOPT_LOW_SPEED_TIME, HF_LOW_SPEED_TIME_S);
		SET(CURLOPT_NOSIGNAL, 1L);
		SET(CURLOPT_HEADERFUNCTION, hf_on_header);
		SET(CURLOPT_HEADERDATA, &x);
		SET(CURLOPT_WRITEFUNCTION, hf_on_body);
		SET(CURLOPT_WRITEDATA, &x);
		SET(CURLOPT_USERAGENT, "colfs/" COLFS_VERSION);
		if (hdr)
			SET(CURLOPT_HTTPHEADER, hdr);
		if (r->cafile)
			SET(CURLOPT_CAINFO, r->cafile);
#undef SET
		if (rc == CURLE_OK)
			rc = curl_easy_perform(e);
		curl_easy_cleanup(e);
		if (x.too_long) {
			st = colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
				"%s: the Hub's reply (HTTP %d) is longer than the %zu bytes accepted",
				r->name, y->status, max);
			break;
		}
		bool again = rc == CURLE_OK
			? y->status >= 500 || y->status == 429
			: rc == CURLE_COULDNT_CONNECT ||
			  rc == CURLE_OPERATION_TIMEDOUT ||
			  rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR ||
			  rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING ||
			  rc == CURLE_SSL_CONNECT_ERROR;
		if (again && tries < HF_TRIES) {
			hf_sleep_backoff(tries);
			continue;
		}
		if (rc == CURLE_PEER_FAILED_VERIFICATION)
			st = colfs_fail_why(COLFS_EIO, why, why_len,
				"%s: the Hub's TLS certificate is not trusted (verified against the system's CA store%s); -o cafile=PATH trusts a private CA",
				r->name, r->cafile ? " and cafile" : "");
		else if (rc != CURLE_OK)
			st = colfs_fail_why(COLFS_EIO, why, why_len,
				"%s: %s (%s) from the Hub after %d tries", r->name,
				curl_easy_strerror(rc),
				y->status ? "a reply cut short" : "no reply",
				tries);
		else if (again)
			st = colfs_fail_why(COLFS_EIO, why, why_len,
				"%s: HTTP %d from the Hub after %d tries",
				r->name, y->status, tries);
		break;
	}
	curl_slist_free_all(hdr); /* curl copied the token */
	if (st)
		colfs_hf_reply_clear(y);
	return st;
}

colfs_status colfs_hf_refused(const colfs_hf_repo *r,
			      const colfs_hf_reply *y, const char *what,
			      char *why, size_t why_len)
{
	const char *code = y->error_code, *says = "refused by the Hub";
	char detail[300] = "";
	char repo[160];

	snprintf(repo, sizeof repo, "%s/%s", r->type, r->repo);
	if (y->status == 401 && !r->token)
		says = "the repository is private or gated, or does not exist: a token is needed (HF_TOKEN)";
	else if (y->status == 401)
		says = "the token was refused";
	else if (y->status == 403 && !r->token)
		says = "a token is needed (HF_TOKEN)";
	else if (y->status == 403)
		says = "the token has no access (a gated repository whose conditions are not accepted, or a token without read access)";
	else if (y->status == 404 && !strcmp(code, "RepoNotFound"))
		says = "the repository does not exist";
	else if (y->status == 404 && !strcmp(code, "RevisionNotFound"))
		says = "the revision does not exist";
	else if (y->status == 404 && !strcmp(code, "EntryNotFound"))
		says = "no such file or folder at this revision (a folder's name ends in '/')";
	else if (y->status == 404)
		says = "the repository, the revision or the file does not exist";
	if (y->error_message[0])
		snprintf(detail, sizeof detail, " (the Hub: %.200s)",
			 y->error_message);
	return colfs_fail_why(COLFS_EIO, why, why_len,
		"%s: HTTP %d (%s) for %s of %s at revision %.100s: %s%s%s%s",
		r->name, y->status,
		y->status == 401   ? "unauthorized"
		: y->status == 403 ? "forbidden"
		: y->status == 404 ? "not found"
		: y->status == 416 ? "range not satisfiable"
				   : "refused",
		what, repo, r->revision, says, r->token && y->status / 100 == 4
			? "; token from " : "",
		r->token && y->status / 100 == 4 ? r->token_from : "", detail);
}

/* ------------------------------------------------------------------ */
/* Where a file's bytes are: the redirect targets of the mount */

typedef struct hf_cached {
	char *from;  /* the Hub's resolve URL */
	char *to;    /* where the bytes are */
	bool hub;    /* `to` is on the Hub: the token goes with it */
	uint64_t used;
} hf_cached;

static pthread_mutex_t hf_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static hf_cached hf_cache[HF_CACHE];
static uint64_t hf_cache_tick;

/* The cached place of `from` (*to malloc'd); false when none is kept. */
static bool hf_cache_get(const char *from, char **to, bool *hub)
{
	*to = NULL;
	pthread_mutex_lock(&hf_cache_lock);
	for (size_t i = 0; i < HF_CACHE && !*to; i++)
		if (hf_cache[i].from && !strcmp(hf_cache[i].from, from)) {
			hf_cache[i].used = ++hf_cache_tick;
			*hub = hf_cache[i].hub;
			*to = strdup(hf_cache[i].to);
		}
	pthread_mutex_unlock(&hf_cache_lock);
	return *to != NULL;
}

static void hf_cache_put(const char *from, const char *to, bool hub)
{
	size_t at = 0;
	char *f = strdup(from), *t = strdup(to);

	if (!f || !t) {
		free(f);
		free(t);
		return;
	}
	pthread_mutex_lock(&hf_cache_lock);
	for (size_t i = 0; i < HF_CACHE; i++) {
		if (hf_cache[i].from && !strcmp(hf_cache[i].from, from)) {
			at = i;
			break;
		}
		if (hf_cache[i].used < hf_cache[at].used)
			at = i;
	}
	free(hf_cache[at].from);
	free(hf_cache[at].to);
	hf_cache[at] = (hf_cached){f, t, hub, ++hf_cache_tick};
	pthread_mutex_unlock(&hf_cache_lock);
}

/* The length of "scheme://host[:port]" of `url`. */
static size_t hf_origin_len(const char *url)
{
	const char *h = strstr(url, "://");

	return h ? (size_t)(h + 3 - url) + strcspn(h + 3, "/") : 0;
}

bool colfs_hf_on_hub(const colfs_hf_repo *r, const char *location,
		     char **url)
{
	size_t ol = hf_origin_len(r->endpoint);
	bool rel = location[0] == '/' && location[1] != '/';

	*url = NULL;
	if (!rel && (strncmp(location, r->endpoint, ol) || location[ol] != '/'))
		return false;
	*url = malloc(ol + strlen(location) + 1);
	if (*url)
		sprintf(*url, "%.*s%s", rel ? (int)ol : 0, r->endpoint,
			location);
	return true;
}

/* Ask the Hub where the bytes of `from` are: *to (malloc'd) the
 * redirect's target, or with *hub the Hub's URL that serves them itself.
 * A redirect on the Hub (relative, or to the endpoint's own scheme and
 * host: a renamed repository, the Hub's resolve cache) is followed with
 * the token; one to another host is the storage host's. */
static colfs_status hf_locate(const colfs_hf_repo *r, const char *from,
			      char **to, bool *hub, unsigned *requests,
			      char *why, size_t why_len)
{
	char *url = strdup(from);
	colfs_hf_reply y;
	colfs_status st = COLFS_OK;

	*to = NULL;
	*hub = false;
	for (int hops = 0; url; hops++) {
		st = colfs_hf_request(r, url, true, 1 << 16, &y, requests,
				      why, why_len);
		if (st)
			break;
		char *next = NULL;

		if (y.status >= 300 && y.status <= 399 && y.location &&
		    colfs_hf_on_hub(r, y.location, &next)) {
			/* on the Hub: the token may go there */
			free(url);
			url = next;
			colfs_hf_reply_clear(&y);
			if (hops < HF_HUB_REDIRS)
				continue;
			st = colfs_fail_why(COLFS_EIO, why, why_len,
				"%s: more than %d redirects on the Hub",
				r->name, HF_HUB_REDIRS);
			break;
		}
		if (y.status >= 300 && y.status <= 399) {
			if (!y.location || (strncmp(y.location, "https://", 8) &&
					    strncmp(y.location, "http://", 7)))
				st = colfs_fail_why(COLFS_EIO, why, why_len,
					"%s: HTTP %d from the Hub without an http(s) Location",
					r->name, y.status);
			else
				*to = y.location;
			y.location = NULL;
		} else if (y.status != 200) {
			st = colfs_hf_refused(r, &y, "the file", why, why_len);
		} else {
			*to = url;
			*hub = true;
			url = NULL;
		}
		colfs_hf_reply_clear(&y);
		break;
	}
	if (!st && !*to)
		st = colfs_fail_why(COLFS_ENOMEM, why, why_len, "out of memory");
	free(url);
	if (st) {
		free(*to);
		*to = NULL;
	}
	return st;
}

/* http.c's colfs_remote_relocate_fn: `from` asked of the Hub again.  The
 * name is not at hand: messages name the Hub's URL (it holds no secret). */
static colfs_status hf_relocate(const char *from, const char *token,
				const char *cafile, char **url,
				unsigned *requests, char *why, size_t why_len)
{
	colfs_hf_repo r;
	colfs_status st;
	bool hub;

	memset(&r, 0, sizeof r);
	r.name = from;
	r.token = (char *)token;
	snprintf(r.token_from, sizeof r.token_from, "the mount's token");
	r.cafile = (char *)cafile;
	strcpy(r.type, "repository");
	r.repo = (char *)"";
	r.revision = (char *)"";
	r.endpoint = strndup(from, hf_origin_len(from));
	if (!r.endpoint)
		return colfs_fail_why(COLFS_ENOMEM, why, why_len,
				      "out of memory");
	st = hf_locate(&r, from, url, &hub, requests, why, why_len);
	free(r.endpoint);
	if (!st && hub) {
		/* the token may not follow: the mount's target stays */
		free(*url);
		*url = NULL;
		st = colfs_fail_why(COLFS_EIO, why, why_len,
			"%s: the storage host refused the bytes (HTTP 403 or 410) and the Hub no longer redirects",
			from);
	}
	if (!st)
		hf_cache_put(from, *url, false);
	return st;
}

colfs_status colfs_hf_target(const char *name, const colfs_options *o,
			     colfs_remote_target *t, char *why,
			     size_t why_len)
{
	colfs_hf_repo r;
	char *from = NULL, *to = NULL;
	bool hub = false;
	colfs_status st;

	memset(t, 0, sizeof *t);
	COLFS_TRY(colfs_hf_repo_open(name, o, &r, why, why_len));
	if (r.dir) {
		colfs_hf_repo_clear(&r);
		return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
				      "%s: a folder, not a file", name);
	}
	from = colfs_hf_url(&r, false, r.path);
	if (!from) {
		st = colfs_fail_why(COLFS_ENOMEM, why, why_len,
				    "out of memory");
		goto out;
	}
	if (!hf_cache_get(from, &to, &hub)) {
		st = hf_locate(&r, from, &to, &hub, &t->lookups, why,
			       why_len);
		if (st)
			goto out;
		hf_cache_put(from, to, hub);
	}
	st = COLFS_ENOMEM;
	t->display = strdup(name);
	if (!t->display || (r.cafile && !(t->cafile = strdup(r.cafile))))
		goto nomem;
	if (hub) {
		/* The Hub serves the bytes: the token goes with each
		 * request, to the Hub only (http.c follows no redirect). */
		t->url = to;
		to = NULL;
		if (r.token && !(t->bearer = strdup(r.token)))
			goto nomem;
	} else {
		t->url = to;
		to = NULL;
		t->relocate = hf_relocate;
		t->relocate_from = from;
		from = NULL;
		if (r.token && !(t->relocate_token = strdup(r.token)))
			goto nomem;
	}
	st = COLFS_OK;
	goto out;
nomem:
	colfs_remote_target_clear(t);
	colfs_fail_why(st, why, why_len, "out of memory");
out:
	free(from);
	free(to);
	colfs_hf_repo_clear(&r);
	return st;
}

colfs_status colfs_hf_peek(const char *name, const colfs_options *o,
			   uint64_t size, size_t n, uint8_t *head,
			   uint8_t *tail, char *why, size_t why_len)
{
	colfs_remote_target t;
	colfs_http *h = NULL;
	colfs_err err;
	colfs_status st;

	if (n == 0 || n > size)
		return colfs_fail_why(COLFS_EBOUNDS, why, why_len,
				      "%s: %zu bytes cannot be peeked", name,
				      n);
	memset(&err, 0, sizeof err);
	COLFS_TRY(colfs_hf_target(name, o, &t, why, why_len));
	st = colfs_http_create(&t, o, &h, why, why_len);
	if (!st) {
		/* Two plain ranges in flight together; each reply's
		 * Content-Range must give the size the listing gave. */
		colfs_http_range rg[2] = {{0, n, head}, {size - n, n, tail}};

		st = colfs_http_get_ranges(h, rg, 2, &err);
		if (st)
			colfs_fail_why(st, why, why_len, "%s", err.msg);
	}
	colfs_http_destroy(h);
	colfs_remote_target_clear(&t);
	return st;
}

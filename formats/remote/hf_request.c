/* colfs: the Hugging Face Hub's requests (remote.h: colfs_hf_request,
 * colfs_hf_refused), made for hf.c (where a file's bytes are) and
 * hf_list.c (a folder's listing).
 *
 * One request to the Hub by libcurl, never following a redirect: the
 * token goes to the Hub only, as "Authorization: Bearer"; the reply's
 * Location, Link, ETag, X-Linked-* and X-Error-* headers and a bounded
 * body are kept; 5xx, timeouts and resets are tried again after a
 * backoff.  A refusal becomes a message naming the repository and where
 * the token came from, never its value.
 */
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

/* Tries of one Hub request in all, and the first backoff (doubled on
 * each retry, times a jitter in [0.5, 1.5)), as http_run.c's. */
#define HF_TRIES 4
#define HF_BACKOFF_MS 100
#define HF_CONNECT_TIMEOUT_S 10L
#define HF_LOW_SPEED_TIME_S 30L
/* The longest header value kept, redirect target taken. */
#define HF_URL_MAX 16384

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
	int status;

	if (colfs_http_status_line(line, len, &status)) {
		free(y->location);
		free(y->link);
		y->location = y->link = NULL;
		y->status = status;
		y->etag[0] = y->linked_etag[0] = y->commit[0] = '\0';
		y->error_code[0] = y->error_message[0] = '\0';
		y->have_linked_size = false;
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
	char line[COLFS_HF_TOKEN_MAX + 32];
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

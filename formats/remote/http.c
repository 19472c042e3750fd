/* colfs: the exchanges with one remote object over HTTP(S) (remote.h).
 *
 * Every request is a ranged GET (Range: bytes=A-B, or bytes=-LEN for the
 * tail) made by libcurl.  The handles of one object share a curl share
 * (DNS, TLS sessions); each call makes its own easy handles and takes a
 * multi handle of its own from a pool, whose connections the calls before
 * it left open, so calls from any thread reuse connections and never
 * wait on each other.
 *
 * Nothing a server says is trusted.  Before the first body byte is kept
 * the reply is checked against what was asked: the status (206; a 200 is
 * a server that ignored Range), Content-Range (exactly the bytes asked,
 * of the size the object had), Content-Length (present and equal to the
 * range) and the validators (ETag, else Last-Modified, equal to those of
 * the first reply).  The body is written straight into the caller's
 * buffer and never past its end: a server that sends more is cut off.
 * A reply that fails a check is an error naming the URL (display form,
 * never credentials) and the status; 5xx, timeouts and resets are tried
 * again, at most HTTP_TRIES times in all, after a backoff that doubles
 * with some jitter.  A change of the validators or of the size is a
 * changed source for good: every later call fails with the message of a
 * changed local file.
 */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../core/source.h"
#include "remote.h"

/* Tries of one range in all, the first included. */
#define HTTP_TRIES 4
/* First backoff; doubled on each retry, times a jitter in [0.5, 1.5). */
#define HTTP_BACKOFF_MS 100
/* Redirects followed before the reply counts as a loop. */
#define HTTP_MAX_REDIRS 5
/* Connecting (TCP and TLS) may take this long. */
#define HTTP_CONNECT_TIMEOUT_S 10L
/* A transfer slower than HTTP_LOW_SPEED bytes/s for this long is a
 * timeout (a server that stopped sending). */
#define HTTP_LOW_SPEED 1L
#define HTTP_LOW_SPEED_TIME_S 30L
/* Transfers of one call in flight at once. */
#define HTTP_MAX_ACTIVE 8
/* The body of an error reply (dropped) may be this long. */
#define HTTP_ERROR_BODY_MAX (1 << 20)
/* Of a 4xx reply to a whole-body GET, this much is kept for the caller
 * (an S3 error document is a few hundred bytes). */
#define HTTP_WHOLE_ERROR_KEEP (64 << 10)
/* What a write callback returns to stop its transfer. */
#ifdef CURL_WRITEFUNC_ERROR
#define HTTP_WRITE_STOP CURL_WRITEFUNC_ERROR
#else
#define HTTP_WRITE_STOP 0 /* never called with 0 bytes */
#endif
/* Idle multi handles kept (with their open connections) between calls. */
#define HTTP_POOL 8
/* Connections one multi handle keeps open. */
#define HTTP_MAX_CONNECTS 16L
/* The longest validator compared (an ETag is a few dozen bytes; a
 * message quotes at most 80 bytes of it). */
#define HTTP_VALIDATOR_MAX 256

struct colfs_http {
	char *url;
	char *display;
	char *aws_sigv4;
	char *userpwd;       /* secret */
	char *session_token; /* secret, in `token_header` too */
	char *token_header;  /* "x-amz-security-token: ..." */
	char *cafile;
	char *capath;        /* libcurl's CA directory, kept with a cafile */
	bool azure;          /* x-ms-version; the size by a head range */
	char *azure_account;
	char *azure_key;     /* secret: Shared Key signing */
	char *azure_sas;     /* secret: appended to each URL */
	char *bearer_header; /* secret: "Authorization: Bearer ..." (hf.c) */
	char *relocate_from, *relocate_token; /* the target's (remote.h) */
	colfs_remote_relocate_fn relocate;
	uint64_t url_gen;    /* relocations so far (under lock, with url) */
	uint8_t *head;       /* the object's first bytes, fetched with the
			      * size (colfs_http_take_head) */
	size_t head_len;
	bool allow_full;
	uint64_t full_cap;   /* the largest whole object accepted */

	CURLSH *share;
	pthread_mutex_t share_lock[CURL_LOCK_DATA_LAST];
	/* Idle multi handles, each with the connections it keeps open. */
	pthread_mutex_t pool_lock;
	CURLM *pool[HTTP_POOL];
	size_t n_pool;

	pthread_mutex_t lock; /* everything below */
	bool have_validators;
	char etag[HTTP_VALIDATOR_MAX];     /* "" none */
	char modified[HTTP_VALIDATOR_MAX]; /* "" none */
	uint64_t size;                     /* UINT64_MAX: not known yet */
	bool changed;
	char changed_msg[sizeof(((colfs_err *)0)->msg)];
	colfs_http_stats stats;
	size_t n_slowest;  /* entries of stats.slowest in use */
	unsigned seed;
};

/* One range being fetched (or the tail). */
typedef struct http_xfer {
	colfs_http *h;
	CURL *e;
	struct curl_slist *headers;
	char range[48];
	bool tail;        /* Range: bytes=-len */
	bool whole;       /* no Range: the whole body (colfs_http_get_body) */
	bool head;        /* (tail) asked as Range: bytes=0-(len-1) */
	char *sas_url;    /* the URL with the SAS token (secret) */
	char *url;        /* (whole) the URL asked: the object's + a query */
	const char *what; /* (whole) what was asked, for messages */
	size_t max;       /* (whole) the largest body kept */
	size_t tail_len;  /* the tail asked (len becomes what came) */
	uint64_t offset;  /* the range asked (not for the tail) */
	size_t len;
	uint8_t *buf;     /* the caller's, or (tail) our own */
	size_t buf_len;   /* room in buf to fill */
	size_t buf_alloc; /* (tail) the size of our buffer */
	size_t got;       /* body bytes kept */
	uint64_t skip;    /* full body: bytes before the range to drop */
	size_t dropped;   /* body bytes of an error reply, not kept */
	int tries;
	bool relocated;   /* asked where the bytes are now (hf.c) */
	uint64_t url_gen; /* h->url_gen when the URL was set */
	int64_t not_before_ms; /* a retry waits until then */
	bool active;
	bool done;

	/* Of the reply being received (reset on each status line). */
	int status;
	bool checked;    /* the headers passed the checks */
	bool full;       /* a 200 accepted: the whole object */
	bool cut;        /* stopped on purpose (full body past the range) */
	bool have_cl;
	uint64_t cl;
	bool have_cr;
	char cr[96];
	char etag[HTTP_VALIDATOR_MAX];
	char modified[HTTP_VALIDATOR_MAX];
	uint64_t total;  /* from Content-Range (or the full body) */
	/* A check failed: the error to return, not retried. */
	colfs_status fail_st;
	colfs_err fail;
} http_xfer;

static pthread_once_t http_global_once = PTHREAD_ONCE_INIT;
static CURLcode http_global_rc = CURLE_FAILED_INIT;

static void http_global_init(void)
{
	http_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int64_t http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void http_share_lock(CURL *e, curl_lock_data d, curl_lock_access a,
			    void *ctx)
{
	colfs_http *h = ctx;

	(void)e;
	(void)a;
	if ((int)d >= 0 && d < CURL_LOCK_DATA_LAST)
		pthread_mutex_lock(&h->share_lock[d]);
}

static void http_share_unlock(CURL *e, curl_lock_data d, void *ctx)
{
	colfs_http *h = ctx;

	(void)e;
	if ((int)d >= 0 && d < CURL_LOCK_DATA_LAST)
		pthread_mutex_unlock(&h->share_lock[d]);
}

static void http_wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static colfs_status http_dup(const char *s, char **out)
{
	*out = NULL;
	if (!s)
		return COLFS_OK;
	*out = strdup(s);
	return *out ? COLFS_OK : COLFS_ENOMEM;
}

colfs_status colfs_http_create(const colfs_remote_target *t,
			       const colfs_options *o, colfs_http **out,
			       char *why, size_t why_len)
{
	colfs_http *h;

	*out = NULL;
	pthread_once(&http_global_once, http_global_init);
	if (http_global_rc != CURLE_OK) {
		snprintf(why, why_len, "cannot start libcurl: %s",
			 curl_easy_strerror(http_global_rc));
		return COLFS_EIO;
	}
	if (!t || !t->url || !t->display) {
		snprintf(why, why_len, "no URL to fetch");
		return COLFS_EUNSUPPORTED;
	}
	h = calloc(1, sizeof *h);
	if (!h)
		goto nomem;
	pthread_mutex_init(&h->lock, NULL);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&h->share_lock[i], NULL);
	pthread_mutex_init(&h->pool_lock, NULL);
	h->size = UINT64_MAX;
	h->seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)h;
	h->allow_full = o && o->allow_full_download;
	h->full_cap = o && o->remote_cache_bytes ? o->remote_cache_bytes
						 : 64ull << 20;
	if (http_dup(t->url, &h->url) || http_dup(t->display, &h->display) ||
	    http_dup(t->aws_sigv4, &h->aws_sigv4) ||
	    http_dup(t->userpwd, &h->userpwd) ||
	    http_dup(t->session_token, &h->session_token) ||
	    http_dup(t->cafile, &h->cafile) ||
	    http_dup(t->azure_account, &h->azure_account) ||
	    http_dup(t->azure_key, &h->azure_key) ||
	    http_dup(t->azure_sas, &h->azure_sas) ||
	    http_dup(t->relocate_from, &h->relocate_from) ||
	    http_dup(t->relocate_token, &h->relocate_token))
		goto nomem;
	h->azure = t->azure;
	h->relocate = t->relocate;
	h->stats.lookups = t->lookups;
	if (t->bearer && asprintf(&h->bearer_header,
				  "Authorization: Bearer %s", t->bearer) < 0) {
		h->bearer_header = NULL;
		goto nomem;
	}
	if (h->session_token &&
	    asprintf(&h->token_header, "x-amz-security-token: %s",
		     h->session_token) < 0) {
		h->token_header = NULL;
		goto nomem;
	}
	if (h->cafile) {
		/* CURLOPT_CAINFO replaces libcurl's CA bundle file; its CA
		 * directory (the system store as hashed files, /etc/ssl/certs
		 * on Debian) stays in use, so the cafile is trusted besides
		 * the system's CAs.  Set again explicitly, since setting
		 * CAINFO must not be what drops it. */
#if LIBCURL_VERSION_NUM >= 0x075400
		CURL *probe = curl_easy_init();
		char *capath = NULL;

		if (probe && curl_easy_getinfo(probe, CURLINFO_CAPATH,
					       &capath) == CURLE_OK &&
		    capath && !(h->capath = strdup(capath))) {
			curl_easy_cleanup(probe);
			goto nomem;
		}
		if (probe)
			curl_easy_cleanup(probe);
#endif
	}
	h->share = curl_share_init();
	if (!h->share)
		goto nomem;
	if (curl_share_setopt(h->share, CURLSHOPT_LOCKFUNC, http_share_lock) ||
	    curl_share_setopt(h->share, CURLSHOPT_UNLOCKFUNC,
			      http_share_unlock) ||
	    curl_share_setopt(h->share, CURLSHOPT_USERDATA, h) ||
	    curl_share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) ||
	    curl_share_setopt(h->share, CURLSHOPT_SHARE,
			      CURL_LOCK_DATA_SSL_SESSION)) {
		snprintf(why, why_len, "%s: cannot set up libcurl's share",
			 t->display);
		colfs_http_destroy(h);
		return COLFS_EIO;
	}
	*out = h;
	return COLFS_OK;
nomem:
	snprintf(why, why_len, "out of memory");
	colfs_http_destroy(h);
	return COLFS_ENOMEM;
}

void colfs_http_destroy(colfs_http *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_pool; i++)
		curl_multi_cleanup(h->pool[i]);
	if (h->share)
		curl_share_cleanup(h->share);
	free(h->url);
	free(h->display);
	free(h->aws_sigv4);
	http_wipe_free(h->userpwd);
	http_wipe_free(h->session_token);
	http_wipe_free(h->token_header);
	http_wipe_free(h->azure_key);
	http_wipe_free(h->azure_sas);
	http_wipe_free(h->bearer_header);
	http_wipe_free(h->relocate_token);
	free(h->relocate_from);
	free(h->azure_account);
	free(h->head);
	free(h->cafile);
	free(h->capath);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&h->share_lock[i]);
	pthread_mutex_destroy(&h->pool_lock);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* ---- replies ---------------------------------------------------------- */

/* A decimal number of at most 19 digits (no sign, no overflow); `*end`
 * after it. */
static bool http_parse_u64(const char *s, const char **end, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0;

	while (isdigit((unsigned char)s[n])) {
		if (n == 19)
			return false;
		x = x * 10 + (uint64_t)(s[n] - '0');
		n++;
	}
	if (!n)
		return false;
	*v = x;
	*end = s + n;
	return true;
}

/* "bytes A-B/TOTAL" exactly (A <= B < TOTAL), or "bytes * /TOTAL"
 * (without the space; `*a` = UINT64_MAX) as a 416 carries it. */
static bool http_parse_content_range(const char *s, uint64_t *a, uint64_t *b,
				     uint64_t *total)
{
	const char *p;

	if (strncasecmp(s, "bytes ", 6))
		return false;
	s += 6;
	if (*s == '*') {
		*a = *b = UINT64_MAX;
		if (s[1] != '/' || !http_parse_u64(s + 2, &p, total))
			return false;
		return *p == '\0';
	}
	if (!http_parse_u64(s, &p, a) || *p != '-' ||
	    !http_parse_u64(p + 1, &p, b) || *p != '/' ||
	    !http_parse_u64(p + 1, &p, total) || *p != '\0')
		return false;
	return *a <= *b && *b < *total;
}

/* Copy a header value without its surrounding blanks, cut to the room
 * and made printable (a validator goes into messages).  False when it
 * had to be cut. */
static bool http_header_value(const char *v, size_t n, char *out,
			      size_t room)
{
	size_t k = 0;

	while (n && (*v == ' ' || *v == '\t')) {
		v++;
		n--;
	}
	while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' ||
		     v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n && k + 1 < room; i++)
		out[k++] = isprint((unsigned char)v[i]) ? v[i] : '?';
	out[k] = '\0';
	return k == n;
}

static void http_reply_reset(http_xfer *x)
{
	x->status = 0;
	x->checked = x->full = x->cut = false;
	x->have_cl = x->have_cr = false;
	x->cl = x->total = 0;
	x->cr[0] = x->etag[0] = x->modified[0] = '\0';
	x->got = 0;
	x->skip = 0;
	x->dropped = 0;
	if (x->tail)
		x->len = x->buf_len = x->tail_len;
}

static size_t http_on_header(char *line, size_t size, size_t n, void *ctx)
{
	http_xfer *x = ctx;
	size_t len = size * n;
	const char *colon;
	size_t name;

	if (len >= 5 && !strncmp(line, "HTTP/", 5)) {
		/* A new reply (after a redirect or a 100 Continue). */
		const char *p = memchr(line, ' ', len);

		http_reply_reset(x);
		if (p && (size_t)(p - line) + 4 <= len &&
		    isdigit((unsigned char)p[1]) &&
		    isdigit((unsigned char)p[2]) &&
		    isdigit((unsigned char)p[3]))
			x->status = (p[1] - '0') * 100 + (p[2] - '0') * 10 +
				    (p[3] - '0');
		return len;
	}
	colon = memchr(line, ':', len);
	if (!colon)
		return len;
	name = (size_t)(colon - line);
	colon++;
	len -= name + 1;
	if (name == 14 && !strncasecmp(line, "Content-Length", 14)) {
		char v[32];
		const char *end;
		uint64_t cl;

		http_header_value(colon, len, v, sizeof v);
		/* Two different lengths are no length at all. */
		if (http_parse_u64(v, &end, &cl) && !*end &&
		    (!x->have_cl || x->cl == cl)) {
			x->have_cl = true;
			x->cl = cl;
		} else {
			x->have_cl = false;
			x->cl = UINT64_MAX;
		}
	} else if (name == 13 && !strncasecmp(line, "Content-Range", 13)) {
		/* One too long to be "bytes A-B/SIZE" stays invalid. */
		if (!http_header_value(colon, len, x->cr, sizeof x->cr))
			snprintf(x->cr, sizeof x->cr, "(%zu bytes)", len);
		x->have_cr = true;
	} else if (name == 4 && !strncasecmp(line, "ETag", 4)) {
		http_header_value(colon, len, x->etag, sizeof x->etag);
	} else if (name == 13 && !strncasecmp(line, "Last-Modified", 13)) {
		http_header_value(colon, len, x->modified, sizeof x->modified);
	}
	return size * n;
}

/* "bytes 100-199" or "the last 200 bytes": what a transfer asked. */
static void http_asked(const http_xfer *x, char *buf, size_t len)
{
	if (x->whole)
		snprintf(buf, len, "%s", x->what);
	else if (x->tail)
		snprintf(buf, len, x->head ? "the first %zu bytes"
					   : "the last %zu bytes", x->len);
	else if (x->len)
		snprintf(buf, len, "bytes %" PRIu64 "-%" PRIu64, x->offset,
			 x->offset + x->len - 1);
	else
		snprintf(buf, len, "no bytes");
}

/* Where a transfer's problem is: the range asked, 0 for the tail. */
static uint64_t http_off(const http_xfer *x)
{
	return x->tail ? 0 : x->offset;
}

/* The object changed (under h->lock): remember why, for good. */
static void http_changed_locked(colfs_http *h, const char *what,
				const char *was, const char *now)
{
	if (h->changed)
		return;
	h->changed = true;
	snprintf(h->changed_msg, sizeof h->changed_msg, "%s %.80s -> %.80s",
		 what, was, now);
}

static colfs_status http_changed_err(colfs_http *h, colfs_err *err)
{
	char why[sizeof h->changed_msg];

	pthread_mutex_lock(&h->lock);
	memcpy(why, h->changed_msg, sizeof why);
	pthread_mutex_unlock(&h->lock);
	return colfs_fail(err, COLFS_EIO, 0,
			  "source changed since mount (%s): remount", why);
}

/* Validators and size of a good reply against the first reply's. */
static colfs_status http_check_validators(http_xfer *x, uint64_t total)
{
	colfs_http *h = x->h;
	bool changed;

	pthread_mutex_lock(&h->lock);
	if (!h->changed && !h->have_validators) {
		h->have_validators = true;
		memcpy(h->etag, x->etag, sizeof h->etag);
		memcpy(h->modified, x->modified, sizeof h->modified);
	} else if (!h->changed && strcmp(h->etag, x->etag)) {
		http_changed_locked(h, "ETag", h->etag[0] ? h->etag : "none",
				    x->etag[0] ? x->etag : "none");
	} else if (!h->changed && !h->etag[0] &&
		   strcmp(h->modified, x->modified)) {
		http_changed_locked(h, "Last-Modified",
				    h->modified[0] ? h->modified : "none",
				    x->modified[0] ? x->modified : "none");
	}
	if (!h->changed && h->size == UINT64_MAX) {
		h->size = total;
	} else if (!h->changed && h->size != total) {
		char was[24], now[24];

		snprintf(was, sizeof was, "%" PRIu64, h->size);
		snprintf(now, sizeof now, "%" PRIu64, total);
		http_changed_locked(h, "size", was, now);
	}
	changed = h->changed;
	pthread_mutex_unlock(&h->lock);
	if (changed) {
		colfs_err e;

		http_changed_err(h, &e);
		x->fail_st = COLFS_EIO;
		x->fail = e;
		x->fail.offset = x->tail ? 0 : x->offset;
		return COLFS_EIO;
	}
	return COLFS_OK;
}

/* The headers of a final reply, before its first body byte is kept (or
 * at its end when it has no body).  A status that may be retried passes
 * (the transfer's result decides); everything else that is not exactly
 * what was asked fails the transfer. */
static colfs_status http_check_reply(http_xfer *x)
{
	colfs_http *h = x->h;
	char asked[64];
	uint64_t a, b, total;

	if (x->checked)
		return COLFS_OK;
	x->checked = true;
	http_asked(x, asked, sizeof asked);
	if (x->status >= 500 && x->status <= 599)
		return COLFS_OK; /* retried (the body is dropped) */
	if (x->whole) {
		/* No range, no validators: a 200 of at most `max` bytes.  A
		 * 4xx body is kept for the caller (an S3 error document
		 * names the error); the transfer fails at its end. */
		if (x->status == 200 && x->have_cl && x->cl > x->max)
			return x->fail_st = colfs_fail(&x->fail, COLFS_EOVERFLOW, 0,
					"%s: a reply of %" PRIu64 " bytes for %s, more than the %zu accepted",
					h->display, x->cl, asked, x->max);
		if (x->status == 200 ||
		    (x->status >= 400 && x->status <= 499))
			return COLFS_OK;
	}
	if (x->status == 401 || x->status == 403 || x->status == 404 ||
	    x->status == 410)
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: HTTP %d (%s) for %s",
				h->display, x->status,
				x->status == 401   ? "unauthorized"
				: x->status == 403 ? "forbidden"
				: x->status == 404 ? "not found"
						   : "gone",
				asked);
	if (x->status == 416) {
		/* The only good 416: an empty object asked for its tail. */
		if (x->tail && x->have_cr &&
		    http_parse_content_range(x->cr, &a, &b, &total) &&
		    a == UINT64_MAX && total == 0) {
			x->total = 0;
			x->len = x->buf_len = 0;
			return http_check_validators(x, 0);
		}
		if (x->have_cr && http_parse_content_range(x->cr, &a, &b, &total) &&
		    a == UINT64_MAX && http_check_validators(x, total))
			return COLFS_EIO; /* the object shrank: changed */
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: HTTP 416 (range not satisfiable) for %s%s%s",
				h->display, asked,
				x->have_cr ? ", Content-Range " : "",
				x->have_cr ? x->cr : "");
	}
	if (x->status >= 300 && x->status <= 399)
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: HTTP %d redirect not followed or without a usable Location for %s",
				h->display, x->status, asked);
	if (x->status != 200 && x->status != 206)
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: HTTP %d for %s",
				h->display, x->status, asked);
	if (!x->have_cl)
		return x->fail_st = colfs_fail(&x->fail, COLFS_EUNSUPPORTED, http_off(x),
				"%s: reply without a valid Content-Length (HTTP %d for %s): the size of the body is not known",
				h->display, x->status, asked);
	if (x->status == 200) {
		/* The whole object.  For a tail asked larger than the object
		 * it is exactly what was asked; otherwise the server ignored
		 * Range, and the object is taken whole only if allowed and
		 * small (never a silent full download). */
		bool small = x->tail && x->cl <= x->len;

		if (!small && !h->allow_full)
			return x->fail_st = colfs_fail(&x->fail, COLFS_EUNSUPPORTED, http_off(x),
					"%s: server ignored the Range request (HTTP 200 with the whole object of %" PRIu64 " bytes for %s); -o allow_full_download accepts this for objects up to remote_cache",
					h->display, x->cl, asked);
		if (!small && x->cl > h->full_cap)
			return x->fail_st = colfs_fail(&x->fail, COLFS_EOVERFLOW, http_off(x),
					"%s: server ignored the Range request (HTTP 200 for %s) and the whole object of %" PRIu64 " bytes is larger than remote_cache (%" PRIu64 " bytes): not downloaded",
					h->display, asked, x->cl, h->full_cap);
		if (!x->tail && x->offset + x->len > x->cl)
			return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: the whole object (HTTP 200) is %" PRIu64 " bytes, too short for %s",
					h->display, x->cl, asked);
		x->full = true;
		x->total = x->cl;
		x->skip = x->tail ? 0 : x->offset;
		if (x->tail && x->cl > x->buf_alloc) {
			/* Room for the whole object (at most the cap). */
			uint8_t *nb = realloc(x->buf, (size_t)x->cl);

			if (!nb)
				return x->fail_st = colfs_fail(&x->fail, COLFS_ENOMEM, http_off(x),
						"%s: out of memory for %" PRIu64 " bytes",
						h->display, x->cl);
			x->buf = nb;
			x->buf_alloc = (size_t)x->cl;
		}
		if (x->tail)
			x->buf_len = (size_t)x->cl;
		return http_check_validators(x, x->cl);
	}
	/* 206 */
	if (!x->have_cr || !http_parse_content_range(x->cr, &a, &b, &total) ||
	    a == UINT64_MAX)
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: HTTP 206 with %s Content-Range%s%s%s for %s",
				h->display,
				x->have_cr ? "an invalid" : "no",
				x->have_cr ? " \"" : "", x->have_cr ? x->cr : "",
				x->have_cr ? "\"" : "", asked);
	if (x->tail) {
		uint64_t want = total < x->len ? total : x->len;

		if (x->head ? a != 0 || b != want - 1
			    : b != total - 1 || b - a + 1 != want)
			return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: Content-Range \"%s\" is not the range asked (%s)",
					h->display, x->cr, asked);
		x->offset = a;
		x->len = x->buf_len = (size_t)want;
	} else if (a != x->offset || b != x->offset + x->len - 1) {
		/* The object may have shrunk: the size says which. */
		if (http_check_validators(x, total))
			return COLFS_EIO;
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: Content-Range \"%s\" is not the range asked (%s)",
				h->display, x->cr, asked);
	}
	if (x->cl != b - a + 1)
		return x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: Content-Length %" PRIu64 " disagrees with Content-Range \"%s\" (HTTP 206 for %s)",
				h->display, x->cl, x->cr, asked);
	x->total = total;
	return http_check_validators(x, total);
}

/* A whole body: appended to our own buffer (one byte of room kept for
 * a terminating NUL), at most `max` bytes of a 200; of a 4xx reply the
 * first HTTP_WHOLE_ERROR_KEEP bytes are kept and the rest dropped. */
static bool http_whole_body(http_xfer *x, const char *data, size_t len)
{
	size_t cap = x->max;

	if (x->status != 200) {
		if (cap > HTTP_WHOLE_ERROR_KEEP)
			cap = HTTP_WHOLE_ERROR_KEEP;
		x->dropped += len;
		if (x->dropped > HTTP_ERROR_BODY_MAX) {
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, 0,
					"%s: HTTP %d with a body of more than %d bytes",
					x->h->display, x->status,
					HTTP_ERROR_BODY_MAX);
			return false;
		}
		if (len > cap - x->got)
			len = cap - x->got;
	} else if (len > cap - x->got) {
		x->fail_st = colfs_fail(&x->fail, COLFS_EOVERFLOW, 0,
				"%s: a reply of more than %zu bytes for %s",
				x->h->display, cap, x->what);
		return false;
	}
	if (x->got + len + 1 > x->buf_alloc) {
		size_t want = x->buf_alloc ? x->buf_alloc : 16384;
		uint8_t *nb;

		while (want < x->got + len + 1)
			want = want > cap / 2 ? cap + 1 : want * 2;
		nb = realloc(x->buf, want);
		if (!nb) {
			x->fail_st = colfs_fail(&x->fail, COLFS_ENOMEM, 0,
					"%s: out of memory for a reply of %zu bytes",
					x->h->display, x->got + len);
			return false;
		}
		x->buf = nb;
		x->buf_alloc = want;
	}
	memcpy(x->buf + x->got, data, len);
	x->got += len;
	x->buf[x->got] = 0;
	return true;
}

static size_t http_on_body(char *data, size_t size, size_t n, void *ctx)
{
	http_xfer *x = ctx;
	size_t len = size * n;

	__atomic_add_fetch(&x->h->stats.bytes, len, __ATOMIC_RELAXED);
	if (!x->checked && http_check_reply(x))
		return HTTP_WRITE_STOP;
	if (x->fail_st)
		return HTTP_WRITE_STOP;
	if (x->whole && (x->status < 500 || x->status > 599))
		return http_whole_body(x, data, len) ? size * n
						     : HTTP_WRITE_STOP;
	if (x->status != 200 && x->status != 206) {
		/* A 5xx page: dropped, retried; a page without end is not. */
		x->dropped += len;
		if (x->dropped > HTTP_ERROR_BODY_MAX) {
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: HTTP %d with a body of more than %d bytes",
				   x->h->display, x->status,
				   HTTP_ERROR_BODY_MAX);
			return HTTP_WRITE_STOP;
		}
		return len;
	}
	if (x->skip) {
		size_t drop = x->skip < len ? (size_t)x->skip : len;

		x->skip -= drop;
		data += drop;
		len -= drop;
	}
	if (len > x->buf_len - x->got) {
		if (x->full && !x->tail) {
			/* The whole object past the range: keep what was
			 * asked and stop the transfer. */
			len = x->buf_len - x->got;
			memcpy(x->buf + x->got, data, len);
			x->got += len;
			x->cut = true;
			return HTTP_WRITE_STOP;
		}
		x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: server sent more than the %zu bytes asked (HTTP %d)",
			   x->h->display, x->buf_len, x->status);
		return HTTP_WRITE_STOP;
	}
	memcpy(x->buf + x->got, data, len);
	x->got += len;
	if (x->full && !x->tail && x->got == x->buf_len && x->skip == 0) {
		x->cut = true;
		return HTTP_WRITE_STOP;
	}
	return size * n;
}

/* ---- transfers -------------------------------------------------------- */

static bool http_append(struct curl_slist **l, const char *line)
{
	struct curl_slist *n = curl_slist_append(*l, line);

	if (n)
		*l = n;
	return n != NULL;
}

/* Azure Blob's headers: the version every request names, and with a
 * Shared Key the date and the signature over them (azure.c).  The date
 * is fixed for the transfer's retries: Azure accepts it for 15 minutes,
 * longer than the retries last. */
static bool http_azure_headers(colfs_http *h, http_xfer *x, const char *url)
{
	char date[64], line[256], range[64];
	time_t now = time(NULL);
	struct tm tm;

	if (!http_append(&x->headers, "x-ms-version: " COLFS_AZURE_VERSION))
		return true;
	if (!h->azure_key)
		return false;
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	snprintf(line, sizeof line, "x-ms-date: %s", date);
	if (!http_append(&x->headers, line))
		return true;
	snprintf(range, sizeof range, "bytes=%s", x->range);
	memcpy(line, "Authorization: ", 15);
	if (!colfs_azure_authorization(h->azure_account, h->azure_key, url,
				       x->range[0] ? range : NULL, date,
				       line + 15, sizeof line - 15))
		return true;
	bool ok = http_append(&x->headers, line);
	explicit_bzero(line, sizeof line);
	return !ok;
}

static colfs_status http_xfer_setup(colfs_http *h, http_xfer *x)
{
	CURL *e = curl_easy_init();

	x->h = h;
	x->e = e;
	if (!e)
		return COLFS_ENOMEM;
	if (x->whole)
		x->range[0] = '\0';
	else if (x->head)
		snprintf(x->range, sizeof x->range, "0-%zu", x->len - 1);
	else if (x->tail)
		snprintf(x->range, sizeof x->range, "-%zu", x->len);
	else
		snprintf(x->range, sizeof x->range, "%" PRIu64 "-%" PRIu64,
			 x->offset, x->offset + x->len - 1);
	if (h->token_header || h->bearer_header) {
		x->headers = curl_slist_append(NULL, h->token_header
			? h->token_header : h->bearer_header);
		if (!x->headers)
			return COLFS_ENOMEM;
	}
	if (h->aws_sigv4) {
		/* S3 wants the payload's hash in a signed request; libcurl
		 * before 8.x does not send it (this is an empty body's). */
		struct curl_slist *l = curl_slist_append(x->headers,
			"x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb924"
			"27ae41e4649b934ca495991b7852b855");
		if (!l)
			return COLFS_ENOMEM;
		x->headers = l;
	}
	/* h->url may be replaced (http_relocate): read under the lock */
	pthread_mutex_lock(&h->lock);
	const char *url = x->whole ? x->url : h->url;
	x->url_gen = h->url_gen;
	if (h->azure && http_azure_headers(h, x, url)) {
		pthread_mutex_unlock(&h->lock);
		return COLFS_ENOMEM;
	}
	if (h->azure_sas) {
		if (asprintf(&x->sas_url, "%s%c%s", url,
			     strchr(url, '?') ? '&' : '?', h->azure_sas) < 0) {
			x->sas_url = NULL;
			pthread_mutex_unlock(&h->lock);
			return COLFS_ENOMEM;
		}
		url = x->sas_url;
	}
	CURLcode rc = CURLE_OK;
#define SET(opt, val)                                                       \
	do {                                                                \
		if (rc == CURLE_OK)                                         \
			rc = curl_easy_setopt(e, opt, val);                 \
	} while (0)
	SET(CURLOPT_URL, url);
	pthread_mutex_unlock(&h->lock);
	SET(CURLOPT_SHARE, h->share);
	if (!x->whole)
		SET(CURLOPT_RANGE, x->range);
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	SET(CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	/* a token goes to url's host only (hf.c follows the Hub's redirect) */
	SET(CURLOPT_FOLLOWLOCATION, h->bearer_header ? 0L : 1L);
	SET(CURLOPT_MAXREDIRS, (long)HTTP_MAX_REDIRS);
	SET(CURLOPT_CONNECTTIMEOUT, HTTP_CONNECT_TIMEOUT_S);
	SET(CURLOPT_LOW_SPEED_LIMIT, HTTP_LOW_SPEED);
	SET(CURLOPT_LOW_SPEED_TIME, HTTP_LOW_SPEED_TIME_S);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_HEADERFUNCTION, http_on_header);
	SET(CURLOPT_HEADERDATA, x);
	SET(CURLOPT_WRITEFUNCTION, http_on_body);
	SET(CURLOPT_WRITEDATA, x);
	SET(CURLOPT_USERAGENT, "colfs/" COLFS_VERSION);
	if (h->userpwd)
		SET(CURLOPT_USERPWD, h->userpwd);
	if (h->aws_sigv4)
		SET(CURLOPT_AWS_SIGV4, h->aws_sigv4);
	if (x->headers)
		SET(CURLOPT_HTTPHEADER, x->headers);
	if (h->cafile) {
		SET(CURLOPT_CAINFO, h->cafile);
		if (h->capath)
			SET(CURLOPT_CAPATH, h->capath);
	}
#undef SET
	return rc == CURLE_OK ? COLFS_OK : COLFS_EIO;
}

static void http_xfer_clear(http_xfer *x)
{
	if (x->e)
		curl_easy_cleanup(x->e);
	x->e = NULL;
	curl_slist_free_all(x->headers); /* curl copied the secret */
	x->headers = NULL;
	http_wipe_free(x->sas_url);
	x->sas_url = NULL;
}

/* Is a finished attempt worth another?  5xx, timeouts, resets. */
static bool http_retryable(CURLcode rc, int status)
{
	switch (rc) {
	case CURLE_OK:
		return status >= 500 && status <= 599;
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		return true;
	default:
		return false;
	}
}

/* Keep the COLFS_HTTP_SLOWEST slowest attempts, slowest first.  The tail
 * is kept as len 0 (no range asked: `io` shows it as the tail). */
static void http_note_slowest(colfs_http *h, const http_xfer *x, double ms)
{
	colfs_http_stats *s = &h->stats;
	size_t i;

	pthread_mutex_lock(&h->lock);
	for (i = 0; i < h->n_slowest; i++)
		if (ms > s->slowest[i].ms)
			break;
	if (i < COLFS_HTTP_SLOWEST) {
		memmove(&s->slowest[i + 1], &s->slowest[i],
			(COLFS_HTTP_SLOWEST - 1 - i) * sizeof s->slowest[0]);
		s->slowest[i].ms = ms;
		s->slowest[i].offset = x->tail ? 0 : x->offset;
		s->slowest[i].len = x->tail ? 0 : x->len;
		s->slowest[i].status = x->status;
		if (h->n_slowest < COLFS_HTTP_SLOWEST)
			h->n_slowest++;
	}
	pthread_mutex_unlock(&h->lock);
}

static int64_t http_backoff_ms(colfs_http *h, int tries)
{
	unsigned r;
	int64_t base = (int64_t)HTTP_BACKOFF_MS << (tries - 1);

	pthread_mutex_lock(&h->lock);
	r = (unsigned)rand_r(&h->seed);
	pthread_mutex_unlock(&h->lock);
	return base / 2 + (int64_t)(r % (unsigned)(base + 1));
}

/* A signed URL that expired (403 or 410; hf.c): where the bytes are now,
 * asked once per transfer and once for all the transfers that failed
 * together (relocations are one at a time: the others find the URL
 * moved), and the transfer pointed there. */
static pthread_mutex_t http_relocate_lock = PTHREAD_MUTEX_INITIALIZER;
static colfs_status http_relocate(colfs_http *h, http_xfer *x)
{
	char why[sizeof x->fail.msg] = "", *url = NULL, *old = NULL;
	unsigned n = 0;
	colfs_status st = COLFS_OK;

	x->relocated = true;
	pthread_mutex_lock(&http_relocate_lock);
	pthread_mutex_lock(&h->lock);
	bool moved = h->url_gen != x->url_gen;
	pthread_mutex_unlock(&h->lock);
	if (!moved) {
		st = h->relocate(h->relocate_from, h->relocate_token, h->cafile,
				 &url, &n, why, sizeof why);
		__atomic_add_fetch(&h->stats.lookups, n, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&h->lock);
	if (url) {
		old = h->url;
		h->url = url;
		h->url_gen++;
	}
	x->url_gen = h->url_gen;
	if (!st && curl_easy_setopt(x->e, CURLOPT_URL, h->url) != CURLE_OK)
		st = colfs_fail_why(COLFS_ENOMEM, why, sizeof why, "out of memory");
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_unlock(&http_relocate_lock);
	free(old);
	x->fail_st = st ? colfs_fail(&x->fail, st, http_off(x), "%s", why)
			: COLFS_OK; /* the 403 is past: sent again */
	return st;
}

/* An attempt ended (`rc` from curl): done, to be retried, or failed (the
 * error kept in x->fail).  Returns true when the transfer is over. */
static bool http_xfer_finish(http_xfer *x, CURLcode rc)
{
	colfs_http *h = x->h;
	curl_off_t us = 0;
	char asked[64];

	curl_easy_getinfo(x->e, CURLINFO_TOTAL_TIME_T, &us);
	http_note_slowest(h, x, (double)us / 1000.0);
	http_asked(x, asked, sizeof asked);
	if ((x->status == 403 || x->status == 410) && h->relocate &&
	    !x->relocated && !x->whole && http_relocate(h, x) == COLFS_OK)
		return false; /* sent again, to where the bytes are now */
	if (x->fail_st) /* a check failed: said why, not retried */
		goto failed;
	if (rc == CURLE_WRITE_ERROR && x->cut)
		rc = CURLE_OK; /* stopped on purpose, range complete */
	if (rc == CURLE_OK && !x->checked && http_check_reply(x))
		goto failed;
	/* A whole body cut short before its first byte: its headers may
	 * already say it is not wanted (a length past the bound). */
	if (x->whole && !x->checked && x->status && http_check_reply(x))
		goto failed;
	if (http_retryable(rc, x->status)) {
		if (x->tries < HTTP_TRIES) {
			__atomic_add_fetch(&h->stats.retries, 1,
					   __ATOMIC_RELAXED);
			x->not_before_ms =
				http_now_ms() + http_backoff_ms(h, x->tries);
			return false;
		}
		if (rc == CURLE_OK)
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: HTTP %d for %s after %d tries",
				   h->display, x->status, asked, x->tries);
		else if (x->status)
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: %s (HTTP %d) for %s after %d tries",
				   h->display, curl_easy_strerror(rc),
				   x->status, asked, x->tries);
		else
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: %s (no reply) for %s after %d tries",
				   h->display, curl_easy_strerror(rc), asked,
				   x->tries);
		goto failed;
	}
	if (rc == CURLE_TOO_MANY_REDIRECTS) {
		x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: more than %d redirects for %s (a redirect loop?), last HTTP %d",
			   h->display, HTTP_MAX_REDIRS, asked, x->status);
		goto failed;
	}
	if (rc == CURLE_PEER_FAILED_VERIFICATION) {
		x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: the server's TLS certificate is not trusted (verified against the system's CA store%s); -o cafile=PATH trusts a private CA",
				h->display, h->cafile ? " and cafile" : "");
		goto failed;
	}
	if (rc == CURLE_SSL_CACERT_BADFILE) {
		x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: cannot read the CA certificates of cafile=%s",
				h->display, h->cafile ? h->cafile : "(none)");
		goto failed;
	}
	if (rc != CURLE_OK) {
		if (x->status)
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: %s (HTTP %d) for %s",
				   h->display, curl_easy_strerror(rc),
				   x->status, asked);
		else
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
					"%s: %s (no reply) for %s",
				   h->display, curl_easy_strerror(rc), asked);
		goto failed;
	}
	if (x->whole) {
		/* status is 200 or 4xx here */
		if (x->status != 200) {
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, 0,
					"%s: HTTP %d%s%s%s for %s", h->display,
					x->status,
					x->status == 401 || x->status == 403 ||
					x->status == 404 || x->status == 410 ? " (" : "",
					x->status == 401   ? "unauthorized"
					: x->status == 403 ? "forbidden"
					: x->status == 404 ? "not found"
					: x->status == 410 ? "gone" : "",
					x->status == 401 || x->status == 403 ||
					x->status == 404 || x->status == 410 ? ")" : "",
					asked);
			goto failed;
		}
		if (x->have_cl && x->got != x->cl) {
			x->fail_st = colfs_fail(&x->fail, COLFS_EIO, 0,
					"%s: reply ended after %zu of %" PRIu64 " bytes (HTTP 200 for %s)",
					h->display, x->got, x->cl, asked);
			goto failed;
		}
		x->done = true;
		return true;
	}
	/* status is 200 or 206 here, checked. */
	if (x->got != (x->full && x->tail ? x->buf_len : x->len)) {
		x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
				"%s: reply ended after %zu of %zu bytes (HTTP %d for %s)",
			   h->display, x->got,
			   x->full && x->tail ? x->buf_len : x->len, x->status,
			   asked);
		goto failed;
	}
	x->done = true;
	return true;
failed:
	__atomic_add_fetch(&h->stats.failures, 1, __ATOMIC_RELAXED);
	x->done = true;
	return true;
}

/* A multi handle for one call: an idle one of the pool (its connections
 * are reused), else a new one.  A multi handle and its connection cache
 * are used by one thread at a time: libcurl does not support a connection
 * cache shared by concurrent threads (CURL_LOCK_DATA_CONNECT), so the
 * share holds only DNS and TLS sessions. */
static CURLM *http_multi_get(colfs_http *h)
{
	CURLM *m = NULL;

	pthread_mutex_lock(&h->pool_lock);
	if (h->n_pool)
		m = h->pool[--h->n_pool];
	pthread_mutex_unlock(&h->pool_lock);
	if (!m && (m = curl_multi_init()))
		curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, HTTP_MAX_CONNECTS);
	return m;
}

static void http_multi_put(colfs_http *h, CURLM *m)
{
	pthread_mutex_lock(&h->pool_lock);
	if (h->n_pool < HTTP_POOL) {
		h->pool[h->n_pool++] = m;
		m = NULL;
	}
	pthread_mutex_unlock(&h->pool_lock);
	if (m)
		curl_multi_cleanup(m);
}

/* Run transfers until each is done or failed; the first failure (in the
 * order given) is returned.  Already-failed setups are reported too. */
static colfs_status http_run(colfs_http *h, http_xfer *xs, size_t n,
			     colfs_err *err)
{
	CURLM *m = http_multi_get(h);
	size_t left = n, active = 0;
	colfs_status st = COLFS_OK;

	if (!m)
		return colfs_fail(err, COLFS_ENOMEM, 0,
				  "%s: out of memory for a transfer",
				  h->display);
	while (left) {
		int64_t now = http_now_ms(), wait_ms = 100;

		/* Start what may start. */
		for (size_t i = 0; i < n && active < HTTP_MAX_ACTIVE; i++) {
			http_xfer *x = &xs[i];

			if (x->done || x->active)
				continue;
			if (x->not_before_ms > now) {
				if (x->not_before_ms - now < wait_ms)
					wait_ms = x->not_before_ms - now;
				continue;
			}
			http_reply_reset(x);
			x->tries++;
			__atomic_add_fetch(&h->stats.requests, 1,
					   __ATOMIC_RELAXED);
			if (curl_multi_add_handle(m, x->e) != CURLM_OK) {
				x->fail_st = colfs_fail(&x->fail, COLFS_EIO, http_off(x),
						"%s: cannot start a transfer",
					   h->display);
				x->done = true;
				left--;
				continue;
			}
			x->active = true;
			active++;
		}
		if (!left)
			break;
		if (!active) { /* every one left waits for its retry */
			struct timespec ts = {wait_ms / 1000,
					      (wait_ms % 1000) * 1000000};

			nanosleep(&ts, NULL);
			continue;
		}
		int running = 0;

		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		CURLMsg *msg;
		int q;

		while ((msg = curl_multi_info_read(m, &q))) {
			http_xfer *x = NULL;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
					  (char **)&x);
			CURLcode rc = msg->data.result;

			curl_multi_remove_handle(m, msg->easy_handle);
			x->active = false;
			active--;
			if (http_xfer_finish(x, rc))
				left--;
		}
		if (!left)
			break;
		if (active)
			curl_multi_poll(m, NULL, 0,
					(int)(wait_ms < 100 ? wait_ms : 100),
					NULL);
	}
	for (size_t i = 0; i < n; i++) {
		if (xs[i].active)
			curl_multi_remove_handle(m, xs[i].e);
		if (!xs[i].done && !xs[i].fail_st)
			xs[i].fail_st = colfs_fail(&xs[i].fail, COLFS_EIO, http_off(&xs[i]),
					"%s: transfer interrupted", h->display);
	}
	http_multi_put(h, m);
	for (size_t i = 0; i < n && !st; i++)
		if (xs[i].fail_st) {
			st = xs[i].fail_st;
			if (err)
				*err = xs[i].fail;
		}
	return st;
}

colfs_status colfs_http_get_tail(colfs_http *h, uint64_t len, uint8_t **data,
				 size_t *got, uint64_t *object_size,
				 colfs_err *err)
{
	http_xfer x;
	colfs_status st;

	*data = NULL;
	*got = 0;
	*object_size = 0;
	if (colfs_http_check(h, err))
		return COLFS_EIO;
	if (len == 0 || len > SIZE_MAX / 2)
		return colfs_fail(err, COLFS_EOVERFLOW, 0,
				  "%s: a tail of %" PRIu64 " bytes cannot be asked",
				  h->display, len);
	memset(&x, 0, sizeof x);
	x.tail = true;
	/* A store without suffix ranges: the first `len` bytes, whose
	 * Content-Range gives the size; a larger object's tail is then a
	 * second, plain range. */
	x.head = h->azure;
	x.len = x.tail_len = (size_t)len;
	x.buf = malloc(x.len);
	x.buf_len = x.buf_alloc = x.len;
	if (!x.buf)
		return colfs_fail(err, COLFS_ENOMEM, 0,
				  "%s: out of memory for %" PRIu64 " bytes",
				  h->display, len);
	st = http_xfer_setup(h, &x);
	if (!st)
		st = curl_easy_setopt(x.e, CURLOPT_PRIVATE, &x) ? COLFS_EIO
								 : COLFS_OK;
	if (st) {
		http_xfer_clear(&x);
		free(x.buf);
		return colfs_fail(err, st, 0, "%s: cannot set up a transfer",
				  h->display);
	}
	st = http_run(h, &x, 1, err);
	http_xfer_clear(&x);
	if (!st && x.head && x.total > len) {
		/* The head is kept for the caller (a format reads its magic
		 * there); the tail goes to a buffer of its own. */
		uint8_t *tb = malloc((size_t)len);
		colfs_http_range r = {x.total - len, (size_t)len, tb};

		st = tb ? colfs_http_get_ranges(h, &r, 1, err)
			: colfs_fail(err, COLFS_ENOMEM, 0,
				     "%s: out of memory for %" PRIu64 " bytes",
				     h->display, len);
		if (!st) {
			pthread_mutex_lock(&h->lock);
			free(h->head);
			h->head = x.buf;
			h->head_len = (size_t)len;
			pthread_mutex_unlock(&h->lock);
			x.buf = tb;
			x.got = (size_t)len;
		} else {
			free(tb);
		}
	}
	if (st) {
		free(x.buf);
		return st;
	}
	*data = x.buf;
	*got = x.got;
	*object_size = x.total;
	return COLFS_OK;
}

colfs_status colfs_http_get_ranges(colfs_http *h, const colfs_http_range *r,
				   size_t n, colfs_err *err)
{
	http_xfer *xs;
	colfs_status st = COLFS_OK;
	uint64_t size;

	if (colfs_http_check(h, err))
		return COLFS_EIO;
	if (!n)
		return COLFS_OK;
	pthread_mutex_lock(&h->lock);
	size = h->size;
	pthread_mutex_unlock(&h->lock);
	for (size_t i = 0; i < n; i++)
		if (!r[i].len || r[i].offset > UINT64_MAX - r[i].len ||
		    (size != UINT64_MAX && r[i].offset + r[i].len > size))
			return colfs_fail(err, COLFS_EBOUNDS, r[i].offset,
					  "%s: range of %zu bytes at %" PRIu64 " is not inside the object (%" PRIu64 " bytes)",
					  h->display, r[i].len, r[i].offset,
					  size == UINT64_MAX ? 0 : size);
	xs = calloc(n, sizeof *xs);
	if (!xs)
		return colfs_fail(err, COLFS_ENOMEM, 0,
				  "%s: out of memory for %zu transfers",
				  h->display, n);
	for (size_t i = 0; i < n && !st; i++) {
		xs[i].offset = r[i].offset;
		xs[i].len = r[i].len;
		xs[i].buf = r[i].buf;
		xs[i].buf_len = r[i].len;
		st = http_xfer_setup(h, &xs[i]);
		if (!st && curl_easy_setopt(xs[i].e, CURLOPT_PRIVATE, &xs[i]))
			st = COLFS_EIO;
	}
	if (st)
		colfs_fail(err, st, 0, "%s: cannot set up a transfer",
			   h->display);
	else
		st = http_run(h, xs, n, err);
	for (size_t i = 0; i < n; i++)
		http_xfer_clear(&xs[i]);
	free(xs);
	return st;
}

size_t colfs_http_take_head(colfs_http *h, uint8_t **data)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	*data = h->head;
	n = h->head_len;
	h->head = NULL;
	h->head_len = 0;
	pthread_mutex_unlock(&h->lock);
	return n;
}

colfs_status colfs_http_check(colfs_http *h, colfs_err *err)
{
	bool changed;

	pthread_mutex_lock(&h->lock);
	changed = h->changed;
	pthread_mutex_unlock(&h->lock);
	return changed ? http_changed_err(h, err) : COLFS_OK;
}

void colfs_http_stats_get(colfs_http *h, colfs_http_stats *out)
{
	/* The counters are atomic (added to without the lock), the slowest
	 * requests are kept under the lock. */
	pthread_mutex_lock(&h->lock);
	memcpy(out->slowest, h->stats.slowest, sizeof out->slowest);
	out->requests = __atomic_load_n(&h->stats.requests, __ATOMIC_RELAXED);
	out->bytes = __atomic_load_n(&h->stats.bytes, __ATOMIC_RELAXED);
	out->retries = __atomic_load_n(&h->stats.retries, __ATOMIC_RELAXED);
	out->failures = __atomic_load_n(&h->stats.failures, __ATOMIC_RELAXED);
	out->lookups = __atomic_load_n(&h->stats.lookups, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&h->lock);
}

colfs_status colfs_http_get_body(colfs_http *h, const char *query,
				 const char *what, size_t max, uint8_t **body,
				 size_t *len, int *status, colfs_err *err)
{
	http_xfer x;
	colfs_status st;

	*body = NULL;
	*len = 0;
	*status = 0;
	if (!max || max > SIZE_MAX / 4)
		return colfs_fail(err, COLFS_EOVERFLOW, 0,
				  "%s: a reply of at most %zu bytes cannot be asked",
				  h->display, max);
	memset(&x, 0, sizeof x);
	x.whole = true;
	x.what = what;
	x.max = max;
	if (asprintf(&x.url, "%s%s", h->url, query ? query : "") < 0)
		return colfs_fail(err, COLFS_ENOMEM, 0, "%s: out of memory",
				  h->display);
	st = http_xfer_setup(h, &x);
	if (!st)
		st = curl_easy_setopt(x.e, CURLOPT_PRIVATE, &x) ? COLFS_EIO
								 : COLFS_OK;
	if (st) {
		http_xfer_clear(&x);
		free(x.url);
		return colfs_fail(err, st, 0, "%s: cannot set up a transfer",
				  h->display);
	}
	st = http_run(h, &x, 1, err);
	http_xfer_clear(&x);
	free(x.url);
	*status = x.status;
	if (st && !(x.status >= 400 && x.status <= 499)) {
		free(x.buf);
		return st;
	}
	if (!x.buf) { /* an empty body */
		x.buf = malloc(1);
		if (!x.buf)
			return st ? st : colfs_fail(err, COLFS_ENOMEM, 0,
					  "%s: out of memory", h->display);
		x.buf[0] = 0;
	}
	*body = x.buf;
	*len = x.got;
	return st;
}

/* colfs: what the files of the HTTP exchange share (remote.h's
 * colfs_http_*).  Only http.c and the http_*.c files below it include it.
 * Calls go down this list, never up:
 *
 *   http.c          the calls of remote.h: a handle made and destroyed,
 *                   the tail, ranges, a whole body, the counters;
 *   http_run.c      transfers run together on one multi handle: each
 *                   attempt's end (done, retried after a backoff, sent to
 *                   where a signed URL's bytes are now, or failed with a
 *                   message), the slowest attempts noted;
 *   http_request.c  one request as a curl easy handle: its URL, range,
 *                   headers (tokens, Azure's signature), TLS and limits;
 *   http_pool.c     libcurl started once, the curl share of DNS and TLS
 *                   sessions, the pool of idle multi handles;
 *   http_reply.c    a reply's headers checked against what was asked,
 *                   its body written into the caller's buffer;
 *   http_changed.c  the validators and size of the first reply, a change
 *                   of either a changed object for good.
 */
#ifndef COLFS_HTTP_INTERNAL_H
#define COLFS_HTTP_INTERNAL_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"

/* Redirects followed before the reply counts as a loop. */
#define HTTP_MAX_REDIRS 5
/* Idle multi handles kept (with their open connections) between calls. */
#define HTTP_POOL 8
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


/* A secret's memory wiped before it is freed. */
static inline void http_wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* http_pool.c */
CURLcode http_curl_start(void);
bool http_share_setup(colfs_http *h);
CURLM *http_multi_get(colfs_http *h);
void http_multi_put(colfs_http *h, CURLM *m);
void http_pool_clear(colfs_http *h);

/* http_reply.c: curl's header and write callbacks (`ctx` an http_xfer) */
void http_reply_reset(http_xfer *x);
size_t http_on_header(char *line, size_t size, size_t n, void *ctx);
size_t http_on_body(char *data, size_t size, size_t n, void *ctx);
colfs_status http_check_reply(http_xfer *x);
void http_asked(const http_xfer *x, char *buf, size_t len);
uint64_t http_off(const http_xfer *x);

/* http_changed.c */
colfs_status http_check_validators(http_xfer *x, uint64_t total);

/* http_request.c */
colfs_status http_xfer_setup(colfs_http *h, http_xfer *x);
void http_xfer_clear(http_xfer *x);

/* http_run.c */
colfs_status http_run(colfs_http *h, http_xfer *xs, size_t n, colfs_err *err);

#endif

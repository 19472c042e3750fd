/* colfs: the exchanges with one remote object over HTTP(S) (remote.h):
 * a handle made and destroyed, the tail, ranges, a whole body, the head
 * kept with the size, the counters.
 *
 * Every request is a ranged GET (Range: bytes=A-B, or bytes=-LEN for the
 * tail) made by libcurl (http_request.c), or a whole-body GET of a
 * listing.  The transfers of one call run together (http_run.c) on a
 * multi handle of the object's pool (http_pool.c); each reply is checked
 * against what was asked before its first body byte is kept
 * (http_reply.c), and its validators and size against the first reply's
 * (http_changed.c).  http_internal.h says how the files share the work.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_internal.h"

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
	CURLcode started;

	*out = NULL;
	started = http_curl_start();
	if (started != CURLE_OK) {
		snprintf(why, why_len, "cannot start libcurl: %s",
			 curl_easy_strerror(started));
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
	if (!http_share_setup(h)) {
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
	http_pool_clear(h);
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

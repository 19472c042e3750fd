/* colfs: the transfers of one call of the HTTP exchange run together
 * (http_internal.h).
 *
 * At most HTTP_MAX_ACTIVE are in flight at once on the call's multi
 * handle.  Each attempt that ends is done, failed (its error named), or
 * tried again: 5xx, timeouts and resets at most HTTP_TRIES times in all,
 * after a backoff that doubles with some jitter; a signed URL that
 * expired is asked once where the bytes are now (the target's relocate
 * function, hf.c).  The slowest attempts and the counters are kept for
 * the `io` document.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "http_internal.h"

/* Tries of one range in all, the first included. */
#define HTTP_TRIES 4
/* First backoff; doubled on each retry, times a jitter in [0.5, 1.5). */
#define HTTP_BACKOFF_MS 100
/* Transfers of one call in flight at once. */
#define HTTP_MAX_ACTIVE 8

static int64_t http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

/* Run transfers until each is done or failed; the first failure (in the
 * order given) is returned.  Already-failed setups are reported too. */
colfs_status http_run(colfs_http *h, http_xfer *xs, size_t n,
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

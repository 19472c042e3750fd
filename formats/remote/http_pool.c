/* colfs: the connections of the HTTP exchange (http_internal.h).
 *
 * libcurl is started once for the process.  The handles of one object
 * share a curl share (DNS, TLS sessions); each call takes a multi handle
 * of its own from the object's pool, whose connections the calls before
 * it left open, so calls from any thread reuse connections and never
 * wait on each other.
 */
#include <pthread.h>

#include "http_internal.h"

/* Connections one multi handle keeps open. */
#define HTTP_MAX_CONNECTS 16L

static pthread_once_t http_global_once = PTHREAD_ONCE_INIT;
static CURLcode http_global_rc = CURLE_FAILED_INIT;

static void http_global_init(void)
{
	http_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* libcurl started (once for the process): how that went. */
CURLcode http_curl_start(void)
{
	pthread_once(&http_global_once, http_global_init);
	return http_global_rc;
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

/* The share of h's handles: DNS and TLS sessions, under h's locks. */
bool http_share_setup(colfs_http *h)
{
	return !(curl_share_setopt(h->share, CURLSHOPT_LOCKFUNC,
				   http_share_lock) ||
		 curl_share_setopt(h->share, CURLSHOPT_UNLOCKFUNC,
				   http_share_unlock) ||
		 curl_share_setopt(h->share, CURLSHOPT_USERDATA, h) ||
		 curl_share_setopt(h->share, CURLSHOPT_SHARE,
				   CURL_LOCK_DATA_DNS) ||
		 curl_share_setopt(h->share, CURLSHOPT_SHARE,
				   CURL_LOCK_DATA_SSL_SESSION));
}

/* A multi handle for one call: an idle one of the pool (its connections
 * are reused), else a new one.  A multi handle and its connection cache
 * are used by one thread at a time: libcurl does not support a connection
 * cache shared by concurrent threads (CURL_LOCK_DATA_CONNECT), so the
 * share holds only DNS and TLS sessions. */
CURLM *http_multi_get(colfs_http *h)
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

void http_multi_put(colfs_http *h, CURLM *m)
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

/* The idle multi handles closed, with their connections. */
void http_pool_clear(colfs_http *h)
{
	for (size_t i = 0; i < h->n_pool; i++)
		curl_multi_cleanup(h->pool[i]);
	h->n_pool = 0;
}

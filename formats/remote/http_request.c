/* colfs: one request of the HTTP exchange as a curl easy handle
 * (http_internal.h): the range asked (or none, for a whole body), the
 * headers (a session or bearer token, S3's payload hash, Azure's version
 * and Shared Key signature), the URL (with Azure's SAS), the protocols,
 * the redirects followed, the timeouts, TLS, and the callbacks of
 * http_reply.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "http_internal.h"

/* Connecting (TCP and TLS) may take this long. */
#define HTTP_CONNECT_TIMEOUT_S 10L
/* A transfer slower than HTTP_LOW_SPEED bytes/s for this long is a
 * timeout (a server that stopped sending). */
#define HTTP_LOW_SPEED 1L
/* A transfer slower than HTTP_LOW_SPEED bytes/s for this long is a
 * timeout (a server that stopped sending). */
#define HTTP_LOW_SPEED_TIME_S 30L

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

colfs_status http_xfer_setup(colfs_http *h, http_xfer *x)
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

void http_xfer_clear(http_xfer *x)
{
	if (x->e)
		curl_easy_cleanup(x->e);
	x->e = NULL;
	curl_slist_free_all(x->headers); /* curl copied the secret */
	x->headers = NULL;
	http_wipe_free(x->sas_url);
	x->sas_url = NULL;
}

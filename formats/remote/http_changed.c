/* colfs: change detection of the HTTP exchange (http_internal.h).
 *
 * The first good reply gives the object's validators (ETag, else
 * Last-Modified) and size; every later reply must carry the same.  A
 * change of either is a changed source for good: every later call fails
 * with the message of a changed local file.
 */
#include <inttypes.h>
#include <stdio.h>

#include "http_internal.h"

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
colfs_status http_check_validators(http_xfer *x, uint64_t total)
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

colfs_status colfs_http_check(colfs_http *h, colfs_err *err)
{
	bool changed;

	pthread_mutex_lock(&h->lock);
	changed = h->changed;
	pthread_mutex_unlock(&h->lock);
	return changed ? http_changed_err(h, err) : COLFS_OK;
}

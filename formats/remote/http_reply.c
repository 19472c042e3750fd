/* colfs: a reply of the HTTP exchange as it arrives (http_internal.h):
 * curl's header and write callbacks.
 *
 * Nothing a server says is trusted.  Before the first body byte is kept
 * the reply is checked against what was asked: the status (206; a 200 is
 * a server that ignored Range), Content-Range (exactly the bytes asked,
 * of the size the object had), Content-Length (present and equal to the
 * range) and the validators (http_changed.c).  The body is written
 * straight into the caller's buffer and never past its end: a server
 * that sends more is cut off.  A reply that fails a check is an error
 * naming the URL (display form, never credentials) and the status, kept
 * in the transfer (http_run.c ends it).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <strings.h>

#include "http_internal.h"

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

void http_reply_reset(http_xfer *x)
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

bool colfs_http_status_line(const char *line, size_t len, int *status)
{
	if (len < 5 || strncmp(line, "HTTP/", 5) != 0)
		return false;
	const char *p = memchr(line, ' ', len);
	*status = 0;
	if (p && (size_t)(p - line) + 4 <= len &&
	    isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
	    isdigit((unsigned char)p[3]))
		*status = (p[1] - '0') * 100 + (p[2] - '0') * 10 +
			  (p[3] - '0');
	return true;
}

size_t http_on_header(char *line, size_t size, size_t n, void *ctx)
{
	http_xfer *x = ctx;
	size_t len = size * n;
	const char *colon;
	size_t name;
	int status;

	if (colfs_http_status_line(line, len, &status)) {
		/* a new reply (after a redirect or a 100 Continue) */
		http_reply_reset(x);
		x->status = status;
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
void http_asked(const http_xfer *x, char *buf, size_t len)
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
uint64_t http_off(const http_xfer *x)
{
	return x->tail ? 0 : x->offset;
}

/* The headers of a final reply, before its first body byte is kept (or
 * at its end when it has no body).  A status that may be retried passes
 * (the transfer's result decides); everything else that is not exactly
 * what was asked fails the transfer. */
colfs_status http_check_reply(http_xfer *x)
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

size_t http_on_body(char *data, size_t size, size_t n, void *ctx)
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

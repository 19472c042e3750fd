/* colfs: the objects under an S3 or a GCS prefix (remote.h,
 * colfs_list_v2): the ListObjectsV2 listing both stores serve (GCS's XML
 * API as list-type=2), page after page.
 *
 * Each page is a GET of the bucket's URL with the query
 *   ?continuation-token=T&encoding-type=url&list-type=2&max-keys=N&prefix=P
 * (parameters in code-point order and values percent-encoded as
 * Signature V4's canonical query has them, so that a libcurl that signs
 * the query as written and one that canonicalises it sign the same
 * string), signed as the store's target signs an object's GET (S3's
 * AWS4-HMAC-SHA256, GCS's GOOG4-HMAC-SHA256).  The reply is XML, parsed by
 * xml_list.c (expat; a DOCTYPE refused, nesting and each text field
 * capped); GCS's elements S3 does not send (Generation, MetaGeneration)
 * are not read.
 *
 * Nothing in a reply is trusted: the bucket and prefix echoed must be the
 * ones asked, every key must lie under the prefix and come after the key
 * before it (both stores list in UTF-8 binary order: a server going back
 * or repeating itself is caught here, not looped on), a size is decimal
 * digits, a truncated page must carry a new continuation token, KeyCount
 * (which GCS may leave out) must count the keys given, and the number of
 * keys and pages is capped.  Keys are URL-decoded only when the reply
 * says EncodingType url (a server that ignores encoding-type sends them
 * as they are).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "xml_list.h"

/* The largest page body accepted: 1000 keys of 1024 bytes, each byte
 * escaped as a 6-byte character reference, is about 6 MiB. */
#define LIST_PAGE_MAX (32u << 20)
/* The keys one listing may give (a dataset of a million files), and the
 * pages (a server sending empty truncated pages is stopped). */
#define LIST_KEYS_MAX 1000000u
#define LIST_PAGES_MAX 100000u
/* S3's and GCS's longest key. */
#define LIST_KEY_MAX 1024u
/* How much of a server's error message is quoted. */
#define LIST_QUOTE_MAX 160

/* A page (colfs_xml_list_v2): the indexes of its fields, in the order
 * xml_list.c lists them. */
enum list_field {
	F_NAME,
	F_PREFIX,
	F_TRUNCATED,
	F_TOKEN,
	F_KEY_COUNT,
	F_ENCODING,
};

/* "?continuation-token=...&encoding-type=url&list-type=2&max-keys=N&prefix=..."
 * (names in code-point order). */
static char *list_query(const char *token, unsigned max_keys,
			const char *prefix)
{
	char *out = NULL, *tok = NULL, *pre = NULL, num[32];

	if (token && !(tok = colfs_xml_query_encode(token)))
		goto done;
	if (!(pre = colfs_xml_query_encode(prefix)))
		goto done;
	if (max_keys)
		snprintf(num, sizeof num, "&max-keys=%u", max_keys);
	else
		num[0] = '\0';
	if (asprintf(&out,
		     "?%s%s%sencoding-type=url&list-type=2%s&prefix=%s",
		     token ? "continuation-token=" : "", token ? tok : "",
		     token ? "&" : "", num, pre) < 0)
		out = NULL;
done:
	free(tok);
	free(pre);
	return out;
}

/* %XX decoding of a key sent with EncodingType url ('+' is a space, as
 * S3 form-encodes).  False on a bad escape or a NUL. */
static bool url_decode(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (*r == '+') {
			*w++ = ' ';
		} else if (*r == '%') {
			int v = 0;
			for (int i = 1; i <= 2; i++) {
				char c = r[i];
				int d = c >= '0' && c <= '9'   ? c - '0'
					: c >= 'a' && c <= 'f' ? c - 'a' + 10
					: c >= 'A' && c <= 'F' ? c - 'A' + 10
							       : -1;
				if (d < 0)
					return false;
				v = v * 16 + d;
			}
			if (v == 0)
				return false;
			*w++ = (char)v;
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return true;
}

/* The reason of a 4xx from its error document, when it has one. */
static void error_reason(const char *body, size_t len, char *out,
			 size_t out_len)
{
	char code[LIST_QUOTE_MAX + 1], msg[LIST_QUOTE_MAX + 1];

	out[0] = '\0';
	if (!colfs_xml_error(body, len, code, msg, sizeof code))
		return;
	snprintf(out, out_len, " %s%s%s%s", code, msg[0] ? " (" : "", msg,
		 msg[0] ? ")" : "");
}

void colfs_remote_entries_free(colfs_remote_entry *e, size_t n)
{
	if (!e)
		return;
	for (size_t i = 0; i < n; i++)
		free(e[i].key);
	free(e);
}

typedef struct list_state {
	const char *display; /* s3://BUCKET/PREFIX, gs://BUCKET/PREFIX */
	char bucket[256];
	const char *prefix;
	size_t prefix_len;
	colfs_remote_entry *e;
	size_t n, cap;
	char *last;          /* the last key (full), for the order */
} list_state;

/* Check one page and take its objects.  *token: the next page's token
 * (malloc'd), NULL when this was the last page. */
static colfs_status page_take(list_state *ls, colfs_xml_page *pg,
			      unsigned page_no, char **token, char *why,
			      size_t why_len)
{
	const char *d = ls->display;
	bool encoded = false;

	*token = NULL;
	if (pg->field[F_ENCODING]) {
		if (strcmp(pg->field[F_ENCODING], "url") != 0)
			return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
					 "%s: listing page %u: EncodingType "
					 "is not 'url'", d, page_no);
		encoded = true;
	}
	if (pg->field[F_NAME] && strcmp(pg->field[F_NAME], ls->bucket) != 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				 "%s: listing page %u names another bucket",
				 d, page_no);
	if (pg->field[F_PREFIX]) {
		if (encoded && !url_decode(pg->field[F_PREFIX]))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: the prefix "
					 "echoed is not URL-encoded", d,
					 page_no);
		if (strcmp(pg->field[F_PREFIX], ls->prefix) != 0)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u echoes another "
					 "prefix", d, page_no);
	}
	if (!pg->field[F_TRUNCATED] || (strcmp(pg->field[F_TRUNCATED], "true") &&
				    strcmp(pg->field[F_TRUNCATED], "false")))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				 "%s: listing page %u has no IsTruncated "
				 "true or false", d, page_no);
	bool truncated = !strcmp(pg->field[F_TRUNCATED], "true");
	for (size_t i = 0; i < pg->n; i++)
		if (!pg->items[i].key || !pg->items[i].size)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: an object "
					 "(Contents %zu) without %s", d,
					 page_no, i + 1,
					 pg->items[i].key ? "a Size" : "a Key");
	if (pg->field[F_KEY_COUNT]) {
		uint64_t kc;
		if (!colfs_xml_digits(pg->field[F_KEY_COUNT], &kc) || kc != pg->n)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: KeyCount is "
					 "not the %zu objects it lists", d,
					 page_no, pg->n);
	}
	if (pg->n > LIST_KEYS_MAX - ls->n)
		return colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
				 "%s: more than %u objects under the prefix "
				 "(the most a listing takes)", d,
				 LIST_KEYS_MAX);
	for (size_t i = 0; i < pg->n; i++) {
		char *key = pg->items[i].key;
		uint64_t size;


		if (encoded && !url_decode(key))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: key %zu is not "
					 "URL-encoded (or encodes a NUL)", d,
					 page_no, i + 1);
		size_t kl = strlen(key);
		if (kl == 0 || kl > LIST_KEY_MAX)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: key %zu has "
					 "%zu bytes (keys have 1 to %u)",
					 d, page_no, i + 1, kl, LIST_KEY_MAX);
		if (kl < ls->prefix_len ||
		    memcmp(key, ls->prefix, ls->prefix_len) != 0)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: key %zu is not "
					 "under the prefix", d, page_no, i + 1);
		if (ls->last && strcmp(key, ls->last) <= 0)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: key %zu does "
					 "not come after the key before it "
					 "(the store lists keys in UTF-8 binary "
					 "order, each once)", d, page_no,
					 i + 1);
		if (!colfs_xml_digits(pg->items[i].size, &size))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: the Size of "
					 "key %zu is not a number", d, page_no,
					 i + 1);
		free(ls->last);
		ls->last = key;
		pg->items[i].key = NULL;
		/* A "directory" (a key ending in '/') and the prefix
		 * itself are not entries. */
		if (kl == ls->prefix_len || key[kl - 1] == '/')
			continue;
		if (ls->n == ls->cap) {
			size_t nc = ls->cap ? 2 * ls->cap : 64;
			colfs_remote_entry *ne =
				realloc(ls->e, nc * sizeof *ls->e);
			if (!ne)
				return colfs_fail_why(COLFS_ENOMEM, why, why_len,
						 "%s: out of memory", d);
			ls->e = ne;
			ls->cap = nc;
		}
		ls->e[ls->n].key = strdup(key + ls->prefix_len);
		if (!ls->e[ls->n].key)
			return colfs_fail_why(COLFS_ENOMEM, why, why_len,
					 "%s: out of memory", d);
		ls->e[ls->n].size = size;
		ls->n++;
	}
	if (truncated) {
		if (!pg->field[F_TOKEN] || !pg->field[F_TOKEN][0])
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u is truncated "
					 "but has no NextContinuationToken",
					 d, page_no);
		*token = pg->field[F_TOKEN];
		pg->field[F_TOKEN] = NULL;
	}
	return COLFS_OK;
}

colfs_status colfs_list_v2(const colfs_remote_target *t, const char *prefix,
			   const colfs_options *o, unsigned max_keys,
			   unsigned max_pages, colfs_remote_entry **out,
			   size_t *n, char *why, size_t why_len)
{
	colfs_http *h = NULL;
	char *token = NULL;
	list_state ls;
	colfs_status st;

	*out = NULL;
	*n = 0;
	memset(&ls, 0, sizeof ls);
	ls.display = t->display;
	ls.prefix = prefix;
	ls.prefix_len = strlen(prefix);
	/* the bucket as the display has it: SCHEME://BUCKET/... */
	const char *b = strstr(t->display, "://");
	b = b ? b + 3 : t->display;
	size_t bl = strcspn(b, "/");
	if (bl >= sizeof ls.bucket)
		bl = sizeof ls.bucket - 1;
	memcpy(ls.bucket, b, bl);
	ls.bucket[bl] = '\0';
	st = colfs_http_create(t, o, &h, why, why_len);
	for (unsigned page = 1; !st; page++) {
		char *q = list_query(token, max_keys, prefix);
		uint8_t *body = NULL;
		size_t len = 0;
		int status = 0;
		colfs_err err;
		colfs_xml_page pg;
		char *next = NULL;

		if (page > LIST_PAGES_MAX) {
			st = colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
				       "%s: more than %u listing pages",
				       t->display, LIST_PAGES_MAX);
			break;
		}
		if (!q) {
			st = colfs_fail_why(COLFS_ENOMEM, why, why_len,
				       "%s: out of memory", t->display);
			break;
		}
		memset(&err, 0, sizeof err);
		st = colfs_http_get_body(h, q, "a listing (ListObjectsV2)",
					 LIST_PAGE_MAX, &body, &len, &status,
					 &err);
		free(q);
		if (st) {
			char reason[2 * LIST_QUOTE_MAX + 8];

			error_reason((const char *)body, len, reason,
				     sizeof reason);
			if (reason[0])
				colfs_fail_why(st, why, why_len,
					  "%s: cannot list: HTTP %d%s", t->display,
					  status, reason);
			else
				colfs_fail_why(st, why, why_len, "%s", err.msg);
			free(body);
			break;
		}
		if (!colfs_xml_page_parse(&colfs_xml_list_v2,
					  (const char *)body, len,
					  &pg)) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: listing page %u is not a "
				       "ListObjectsV2 reply: %s", t->display,
				       page, pg.fail);
			free(body);
			colfs_xml_page_clear(&pg);
			break;
		}
		free(body);
		st = page_take(&ls, &pg, page, &next, why, why_len);
		colfs_xml_page_clear(&pg);
		if (!st && next && token && strcmp(next, token) == 0)
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: listing page %u gives the same "
				       "continuation token again", t->display,
				       page);
		free(token);
		token = next;
		if (st || !token || (max_pages && page >= max_pages))
			break;
	}
	free(token);
	free(ls.last);
	colfs_http_destroy(h);
	if (st) {
		colfs_remote_entries_free(ls.e, ls.n);
		return st;
	}
	*out = ls.e;
	*n = ls.n;
	return COLFS_OK;
}

colfs_status colfs_s3_list_paged(const char *url, const colfs_options *o,
				 unsigned max_keys, colfs_remote_entry **out,
				 size_t *n, char *why, size_t why_len)
{
	colfs_remote_target t;
	char *prefix = NULL;
	colfs_status st;

	*out = NULL;
	*n = 0;
	st = colfs_s3_prefix_target(url, o, &t, &prefix, why, why_len);
	if (st)
		return st;
	st = colfs_list_v2(&t, prefix, o, max_keys, 0, out, n, why,
			   why_len);
	free(prefix);
	colfs_remote_target_clear(&t);
	return st;
}

bool colfs_s3_is_prefix(const char *url)
{
	size_t n = strlen(url);

	if (strncmp(url, "s3://", 5) != 0 || n <= 5)
		return false;
	return url[n - 1] == '/' || !strchr(url + 5, '/');
}

colfs_status colfs_s3_list(const char *url, const colfs_options *o,
			   colfs_remote_entry **out, size_t *n, char *why,
			   size_t why_len)
{
	return colfs_s3_list_paged(url, o, 0, out, n, why, why_len);
}

colfs_status colfs_remote_peek_target(const colfs_remote_target *t,
				      const colfs_options *o, uint64_t size,
				      size_t n, uint8_t *head, uint8_t *tail,
				      char *why, size_t why_len)
{
	colfs_http *h = NULL;
	colfs_err err;
	colfs_status st;

	if (n == 0 || n > size)
		return colfs_fail_why(COLFS_EBOUNDS, why, why_len,
				 "%s: %zu bytes cannot be peeked", t->display,
				 n);
	memset(&err, 0, sizeof err);
	st = colfs_http_create(t, o, &h, why, why_len);
	if (!st) {
		/* Two plain ranges (not a suffix range, which some stores
		 * answer wrongly or, as Azure, refuse), in flight together;
		 * each reply's Content-Range must give the size the listing
		 * gave. */
		colfs_http_range r[2] = {{0, n, head}, {size - n, n, tail}};
		st = colfs_http_get_ranges(h, r, 2, &err);
		if (st)
			colfs_fail_why(st, why, why_len, "%s", err.msg);
	}
	colfs_http_destroy(h);
	return st;
}

colfs_status colfs_remote_peek(const char *url, const colfs_options *o,
			       uint64_t size, size_t n, uint8_t *head,
			       uint8_t *tail, char *why, size_t why_len)
{
	colfs_remote_target t;
	colfs_status st;

	COLFS_TRY(colfs_s3_target(url, o, &t, why, why_len));
	st = colfs_remote_peek_target(&t, o, size, n, head, tail, why,
				      why_len);
	colfs_remote_target_clear(&t);
	return st;
}

/* colfs: the objects under an S3 prefix (remote.h, colfs_s3_list): S3's
 * ListObjectsV2, page after page.
 *
 * Each page is a GET of the bucket's URL with the query
 *   ?continuation-token=T&encoding-type=url&list-type=2&max-keys=N&prefix=P
 * (parameters in code-point order and values percent-encoded as
 * Signature V4's canonical query has them, so that a libcurl that signs
 * the query as written and one that canonicalises it sign the same
 * string), signed as colfs_s3_target signs an object's GET.  The reply is
 * XML, parsed by expat (the well-kept library; nothing is parsed by
 * hand): a DOCTYPE is refused (no entity is ever declared, so none is
 * expanded), nesting is capped, each text field is capped before it is
 * kept.
 *
 * Nothing in a reply is trusted: the bucket and prefix echoed must be the
 * ones asked, every key must lie under the prefix and come after the key
 * before it (S3 lists in UTF-8 binary order: a server going back or
 * repeating itself is caught here, not looped on), a size is decimal
 * digits, a truncated page must carry a new continuation token, KeyCount
 * must count the keys given, and the number of keys and pages is capped.
 * Keys are URL-decoded only when the reply says EncodingType url (a
 * server that ignores encoding-type sends them as they are).
 */
#include <expat.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"

/* The largest page body accepted: 1000 keys of 1024 bytes, each byte
 * escaped as a 6-byte character reference, is about 6 MiB. */
#define LIST_PAGE_MAX (32u << 20)
/* The keys one listing may give (a dataset of a million files), and the
 * pages (a server sending empty truncated pages is stopped). */
#define LIST_KEYS_MAX 1000000u
#define LIST_PAGES_MAX 100000u
/* A text field kept from a reply: a key is at most 1024 bytes, 3072
 * URL-encoded; a continuation token a few hundred. */
#define LIST_FIELD_MAX 4096u
/* Elements nested deeper than this are refused (S3's are 3 deep). */
#define LIST_DEPTH_MAX 32
/* S3's longest key. */
#define LIST_KEY_MAX 1024u
/* How much of a server's error message is quoted. */
#define LIST_QUOTE_MAX 160

/* The fields kept from a page (children of ListBucketResult), of the
 * Contents being read, and of an error document (children of Error). */
enum list_field {
	F_NONE,
	F_NAME,
	F_PREFIX,
	F_TRUNCATED,
	F_TOKEN,
	F_KEY_COUNT,
	F_ENCODING,
	F_KEY,  /* Contents/Key */
	F_SIZE, /* Contents/Size */
	F_CODE,    /* Error/Code */
	F_MESSAGE, /* Error/Message */
	F_COUNT
};

typedef struct list_page {
	XML_Parser xp;
	bool error_doc;    /* parsing an error reply */
	int depth;
	bool in_contents;
	enum list_field field; /* the text being collected */
	char text[LIST_FIELD_MAX + 1];
	size_t text_len;
	/* The fields met, their text (malloc'd). */
	char *f[F_COUNT];
	bool seen[F_COUNT];
	/* This page's objects: raw keys as sent (decoded later). */
	struct { char *key; char *size; } *c;
	size_t n, cap;
	bool key_seen, size_seen; /* in the Contents being read */
	char fail[256];           /* "" none */
} list_page;

static void page_failf(list_page *pg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void page_failf(list_page *pg, const char *fmt, ...)
{
	va_list ap;

	if (pg->fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(pg->fail, sizeof pg->fail, fmt, ap);
	va_end(ap);
	XML_StopParser(pg->xp, XML_FALSE);
}

static void page_clear(list_page *pg)
{
	for (int i = 0; i < F_COUNT; i++)
		free(pg->f[i]);
	for (size_t i = 0; i < pg->n; i++) {
		free(pg->c[i].key);
		free(pg->c[i].size);
	}
	free(pg->c);
}

static const struct {
	const char *name;
	enum list_field field;
} top_fields[] = {
	{"Name", F_NAME},
	{"Prefix", F_PREFIX},
	{"IsTruncated", F_TRUNCATED},
	{"NextContinuationToken", F_TOKEN},
	{"KeyCount", F_KEY_COUNT},
	{"EncodingType", F_ENCODING},
}, error_fields[] = {
	{"Code", F_CODE},
	{"Message", F_MESSAGE},
};

static void XMLCALL on_start(void *ud, const XML_Char *name,
			     const XML_Char **attrs)
{
	list_page *pg = ud;

	(void)attrs;
	pg->depth++;
	pg->field = F_NONE;
	pg->text_len = 0;
	if (pg->depth > LIST_DEPTH_MAX) {
		page_failf(pg, "elements nested more than %d deep",
			   LIST_DEPTH_MAX);
		return;
	}
	if (pg->depth == 1) {
		const char *want = pg->error_doc ? "Error" : "ListBucketResult";
		if (strcmp(name, want) != 0)
			page_failf(pg, "the document is <%.40s>, not <%s>",
				   name, want);
		return;
	}
	if (pg->depth == 2 && pg->error_doc) {
		for (size_t i = 0; i < 2; i++)
			if (!strcmp(name, error_fields[i].name))
				pg->field = error_fields[i].field;
	} else if (pg->depth == 2 && !strcmp(name, "Contents")) {
		pg->in_contents = true;
		pg->key_seen = pg->size_seen = false;
		if (pg->n == pg->cap) {
			size_t nc = pg->cap ? 2 * pg->cap : 64;
			void *c = realloc(pg->c, nc * sizeof *pg->c);
			if (!c) {
				page_failf(pg, "out of memory");
				return;
			}
			pg->c = c;
			pg->cap = nc;
		}
		pg->c[pg->n].key = pg->c[pg->n].size = NULL;
		pg->n++;
	} else if (pg->depth == 2) {
		for (size_t i = 0; i < sizeof top_fields / sizeof *top_fields;
		     i++)
			if (!strcmp(name, top_fields[i].name))
				pg->field = top_fields[i].field;
	} else if (pg->depth == 3 && pg->in_contents) {
		if (!strcmp(name, "Key"))
			pg->field = F_KEY;
		else if (!strcmp(name, "Size"))
			pg->field = F_SIZE;
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	list_page *pg = ud;

	if (pg->field == F_NONE || len <= 0)
		return;
	if ((size_t)len > LIST_FIELD_MAX - pg->text_len) {
		page_failf(pg, "a field longer than %u bytes", LIST_FIELD_MAX);
		return;
	}
	memcpy(pg->text + pg->text_len, s, (size_t)len);
	pg->text_len += (size_t)len;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	list_page *pg = ud;
	enum list_field f = pg->field;

	(void)name;
	pg->field = F_NONE;
	if (pg->depth == 2 && pg->in_contents) {
		pg->in_contents = false;
		if (!pg->key_seen || !pg->size_seen)
			page_failf(pg, "an object (Contents %zu) without %s",
				   pg->n, pg->key_seen ? "a Size" : "a Key");
	}
	pg->depth--;
	if (f == F_NONE)
		return;
	pg->text[pg->text_len] = '\0';
	if (memchr(pg->text, '\0', pg->text_len)) {
		page_failf(pg, "a field holding a NUL character");
		return;
	}
	char *copy = strdup(pg->text);
	if (!copy) {
		page_failf(pg, "out of memory");
		return;
	}
	if (f == F_KEY || f == F_SIZE) {
		bool *seen = f == F_KEY ? &pg->key_seen : &pg->size_seen;
		char **slot = f == F_KEY ? &pg->c[pg->n - 1].key
					 : &pg->c[pg->n - 1].size;
		if (*seen) {
			free(copy);
			page_failf(pg, "an object (Contents %zu) with two %s",
				   pg->n, f == F_KEY ? "Keys" : "Sizes");
			return;
		}
		*seen = true;
		*slot = copy;
		return;
	}
	if (pg->seen[f]) {
		free(copy);
		page_failf(pg, "a field given twice");
		return;
	}
	pg->seen[f] = true;
	pg->f[f] = copy;
}

static void XMLCALL on_doctype(void *ud, const XML_Char *name,
			       const XML_Char *sysid, const XML_Char *pubid,
			       int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	page_failf(ud, "a DOCTYPE (not an S3 reply)");
}

/* Parse one reply body.  False with pg->fail set when it is not a
 * well-formed document of the kind expected. */
static bool page_parse(list_page *pg, const char *body, size_t len,
		       bool error_doc)
{
	memset(pg, 0, sizeof *pg);
	pg->error_doc = error_doc;
	if (len > INT32_MAX) {
		snprintf(pg->fail, sizeof pg->fail, "a reply too large");
		return false;
	}
	pg->xp = XML_ParserCreate("UTF-8");
	if (!pg->xp) {
		snprintf(pg->fail, sizeof pg->fail, "out of memory");
		return false;
	}
	XML_SetUserData(pg->xp, pg);
	XML_SetElementHandler(pg->xp, on_start, on_end);
	XML_SetCharacterDataHandler(pg->xp, on_text);
	XML_SetStartDoctypeDeclHandler(pg->xp, on_doctype);
	if (XML_Parse(pg->xp, body, (int)len, XML_TRUE) != XML_STATUS_OK &&
	    !pg->fail[0])
		snprintf(pg->fail, sizeof pg->fail,
			 "not well-formed XML (%s at line %lu)",
			 XML_ErrorString(XML_GetErrorCode(pg->xp)),
			 (unsigned long)XML_GetCurrentLineNumber(pg->xp));
	XML_ParserFree(pg->xp);
	pg->xp = NULL;
	return !pg->fail[0];
}

/* ------------------------------------------------------------------ */

/* Append `s` percent-encoded as Signature V4's canonical query wants
 * (every byte but A-Z a-z 0-9 - . _ ~ as %XX). */
static bool query_add(char **q, size_t *len, size_t *cap, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);

	if (n > (SIZE_MAX - *len) / 3 - 1)
		return false;
	if (*len + 3 * n + 1 > *cap) {
		size_t nc = *len + 3 * n + 64;
		char *nq = realloc(*q, nc);
		if (!nq)
			return false;
		*q = nq;
		*cap = nc;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			(*q)[(*len)++] = (char)c;
		} else {
			(*q)[(*len)++] = '%';
			(*q)[(*len)++] = hex[c >> 4];
			(*q)[(*len)++] = hex[c & 15];
		}
	}
	(*q)[*len] = '\0';
	return true;
}

/* "?continuation-token=...&encoding-type=url&list-type=2&max-keys=N&prefix=..."
 * (names in code-point order). */
static char *list_query(const char *token, unsigned max_keys,
			const char *prefix)
{
	char *out = NULL, *tok = NULL, *pre = NULL, num[32];
	size_t tl = 0, tc = 0, pl = 0, pc = 0;

	if (token && !query_add(&tok, &tl, &tc, token))
		goto done;
	if (!query_add(&pre, &pl, &pc, prefix))
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

static bool parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;

	for (; s[n] >= '0' && s[n] <= '9'; n++) {
		if (n == 19)
			return false;
		x = x * 10 + (uint64_t)(s[n] - '0');
	}
	if (n == 0 || s[n])
		return false;
	*v = x;
	return true;
}

/* Printable ASCII of a server's text, cut, for a message. */
static void quote(char *out, size_t out_len, const char *s)
{
	size_t k = 0;

	for (; s && *s && k + 1 < out_len && k < LIST_QUOTE_MAX; s++)
		out[k++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
	out[k] = '\0';
}

/* The reason of a 4xx from its S3 error document, when it has one. */
static void error_reason(const char *body, size_t len, char *out,
			 size_t out_len)
{
	list_page pg;
	char code[LIST_QUOTE_MAX + 1], msg[LIST_QUOTE_MAX + 1];

	out[0] = '\0';
	if (!body || !len || !page_parse(&pg, body, len, true) ||
	    !pg.f[F_CODE]) {
		page_clear(&pg);
		return;
	}
	quote(code, sizeof code, pg.f[F_CODE]);
	quote(msg, sizeof msg, pg.f[F_MESSAGE]);
	snprintf(out, out_len, " %s%s%s%s", code, msg[0] ? " (" : "", msg,
		 msg[0] ? ")" : "");
	page_clear(&pg);
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
	const char *display; /* s3://BUCKET/PREFIX */
	char bucket[64];
	const char *prefix;
	size_t prefix_len;
	colfs_remote_entry *e;
	size_t n, cap;
	char *last;          /* the last key (full), for the order */
} list_state;

/* Check one page and take its objects.  *token: the next page's token
 * (malloc'd), NULL when this was the last page. */
static colfs_status page_take(list_state *ls, list_page *pg,
			      unsigned page_no, char **token, char *why,
			      size_t why_len)
{
	const char *d = ls->display;
	bool encoded = false;

	*token = NULL;
	if (pg->f[F_ENCODING]) {
		if (strcmp(pg->f[F_ENCODING], "url") != 0)
			return colfs_fail_why(COLFS_EUNSUPPORTED, why, why_len,
					 "%s: listing page %u: EncodingType "
					 "is not 'url'", d, page_no);
		encoded = true;
	}
	if (pg->f[F_NAME] && strcmp(pg->f[F_NAME], ls->bucket) != 0)
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				 "%s: listing page %u names another bucket",
				 d, page_no);
	if (pg->f[F_PREFIX]) {
		if (encoded && !url_decode(pg->f[F_PREFIX]))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: the prefix "
					 "echoed is not URL-encoded", d,
					 page_no);
		if (strcmp(pg->f[F_PREFIX], ls->prefix) != 0)
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u echoes another "
					 "prefix", d, page_no);
	}
	if (!pg->f[F_TRUNCATED] || (strcmp(pg->f[F_TRUNCATED], "true") &&
				    strcmp(pg->f[F_TRUNCATED], "false")))
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				 "%s: listing page %u has no IsTruncated "
				 "true or false", d, page_no);
	bool truncated = !strcmp(pg->f[F_TRUNCATED], "true");
	if (pg->f[F_KEY_COUNT]) {
		uint64_t kc;
		if (!parse_u64(pg->f[F_KEY_COUNT], &kc) || kc != pg->n)
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
		char *key = pg->c[i].key;
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
					 "%zu bytes (S3 keys have 1 to %u)",
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
					 "(S3 lists keys in UTF-8 binary "
					 "order, each once)", d, page_no,
					 i + 1);
		if (!parse_u64(pg->c[i].size, &size))
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u: the Size of "
					 "key %zu is not a number", d, page_no,
					 i + 1);
		free(ls->last);
		ls->last = key;
		pg->c[i].key = NULL;
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
		if (!pg->f[F_TOKEN] || !pg->f[F_TOKEN][0])
			return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					 "%s: listing page %u is truncated "
					 "but has no NextContinuationToken",
					 d, page_no);
		*token = pg->f[F_TOKEN];
		pg->f[F_TOKEN] = NULL;
	}
	return COLFS_OK;
}

colfs_status colfs_s3_list_paged(const char *url, const colfs_options *o,
				 unsigned max_keys, colfs_remote_entry **out,
				 size_t *n, char *why, size_t why_len)
{
	colfs_remote_target t;
	colfs_http *h = NULL;
	char *prefix = NULL, *token = NULL;
	list_state ls;
	colfs_status st;

	*out = NULL;
	*n = 0;
	memset(&ls, 0, sizeof ls);
	st = colfs_s3_prefix_target(url, o, &t, &prefix, why, why_len);
	if (st)
		return st;
	ls.display = t.display;
	ls.prefix = prefix;
	ls.prefix_len = strlen(prefix);
	/* the bucket as the display has it: s3://BUCKET/... */
	size_t bl = strcspn(t.display + 5, "/");
	if (bl >= sizeof ls.bucket)
		bl = sizeof ls.bucket - 1;
	memcpy(ls.bucket, t.display + 5, bl);
	ls.bucket[bl] = '\0';
	st = colfs_http_create(&t, o, &h, why, why_len);
	for (unsigned page = 1; !st; page++) {
		char *q = list_query(token, max_keys, prefix);
		uint8_t *body = NULL;
		size_t len = 0;
		int status = 0;
		colfs_err err;
		list_page pg;
		char *next = NULL;

		if (page > LIST_PAGES_MAX) {
			st = colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
				       "%s: more than %u listing pages",
				       t.display, LIST_PAGES_MAX);
			break;
		}
		if (!q) {
			st = colfs_fail_why(COLFS_ENOMEM, why, why_len,
				       "%s: out of memory", t.display);
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
					  "%s: cannot list: HTTP %d%s", t.display,
					  status, reason);
			else
				colfs_fail_why(st, why, why_len, "%s", err.msg);
			free(body);
			break;
		}
		if (!page_parse(&pg, (const char *)body, len, false)) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: listing page %u is not a "
				       "ListObjectsV2 reply: %s", t.display,
				       page, pg.fail);
			free(body);
			page_clear(&pg);
			break;
		}
		free(body);
		st = page_take(&ls, &pg, page, &next, why, why_len);
		page_clear(&pg);
		if (!st && next && token && strcmp(next, token) == 0)
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				       "%s: listing page %u gives the same "
				       "continuation token again", t.display,
				       page);
		free(token);
		token = next;
		if (st || !token)
			break;
	}
	free(token);
	free(ls.last);
	free(prefix);
	colfs_http_destroy(h);
	colfs_remote_target_clear(&t);
	if (st) {
		colfs_remote_entries_free(ls.e, ls.n);
		return st;
	}
	*out = ls.e;
	*n = ls.n;
	return COLFS_OK;
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

colfs_status colfs_remote_peek(const char *url, const colfs_options *o,
			       uint64_t size, size_t n, uint8_t *head,
			       uint8_t *tail, char *why, size_t why_len)
{
	colfs_remote_target t;
	colfs_http *h = NULL;
	colfs_err err;
	colfs_status st;

	if (n == 0 || n > size)
		return colfs_fail_why(COLFS_EBOUNDS, why, why_len,
				 "%s: %zu bytes cannot be peeked", url, n);
	memset(&err, 0, sizeof err);
	st = colfs_s3_target(url, o, &t, why, why_len);
	if (st)
		return st;
	st = colfs_http_create(&t, o, &h, why, why_len);
	if (!st) {
		/* Two plain ranges (not a suffix range, which some stores
		 * answer wrongly), in flight together; each reply's
		 * Content-Range must give the size the listing gave. */
		colfs_http_range r[2] = {{0, n, head}, {size - n, n, tail}};
		st = colfs_http_get_ranges(h, r, 2, &err);
		if (st)
			colfs_fail_why(st, why, why_len, "%s", err.msg);
	}
	colfs_http_destroy(h);
	colfs_remote_target_clear(&t);
	return st;
}

/* colfs: the blobs under an Azure prefix (remote.h, colfs_azure_list):
 * the Blob service's List Blobs, page after page.
 *
 * Each page is a GET of the container's URL with the query
 *   ?restype=container&comp=list&prefix=P[&marker=M]
 * signed as an object's GET is (azure.c).  The reply is XML parsed by
 * expat: a DOCTYPE is refused (no entity is ever declared, so none is
 * expanded), nesting and each text field are capped.
 *
 * Nothing in a reply is trusted: every name must lie under the prefix
 * and come after the name before it (Azure lists in UTF-8 binary order:
 * a server going back or repeating itself is caught, not looped on), a
 * Content-Length is decimal digits, a NextMarker must change, and the
 * number of names and pages is capped.  Names ending in '/' (the
 * directories of a hierarchical namespace, which are empty blobs) are
 * not entries.
 */
#include <expat.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"

#define AZL_PAGE_MAX (32u << 20)
#define AZL_KEYS_MAX 1000000u
#define AZL_PAGES_MAX 100000u
#define AZL_FIELD_MAX 4096u
#define AZL_DEPTH_MAX 32
#define AZL_QUOTE_MAX 160

enum azl_field { AF_NONE, AF_NAME, AF_SIZE, AF_MARKER, AF_CODE, AF_MESSAGE };

typedef struct azl_blob {
	char *name;
	char *size;
} azl_blob;

typedef struct azl_page {
	XML_Parser xp;
	bool error_doc;
	int depth;
	bool in_blob, in_props;
	enum azl_field field;
	char text[AZL_FIELD_MAX + 1];
	size_t text_len;
	char *marker, *code, *message;
	azl_blob *b;
	size_t n, cap;
	char fail[256];
} azl_page;

static void azl_page_fail(azl_page *pg, const char *msg)
{
	if (!pg->fail[0])
		snprintf(pg->fail, sizeof pg->fail, "%s", msg);
	XML_StopParser(pg->xp, XML_FALSE);
}

static void azl_page_clear(azl_page *pg)
{
	for (size_t i = 0; i < pg->n; i++) {
		free(pg->b[i].name);
		free(pg->b[i].size);
	}
	free(pg->b);
	free(pg->marker);
	free(pg->code);
	free(pg->message);
}

static void XMLCALL azl_start(void *ud, const XML_Char *name,
			      const XML_Char **attrs)
{
	azl_page *pg = ud;

	(void)attrs;
	pg->depth++;
	pg->field = AF_NONE;
	pg->text_len = 0;
	if (pg->depth > AZL_DEPTH_MAX) {
		azl_page_fail(pg, "elements nested too deep");
		return;
	}
	if (pg->depth == 1) {
		const char *want = pg->error_doc ? "Error"
						 : "EnumerationResults";
		if (strcmp(name, want))
			azl_page_fail(pg, pg->error_doc
				      ? "not an error document"
				      : "the document is not "
					"<EnumerationResults>");
		return;
	}
	if (pg->error_doc) {
		if (pg->depth == 2 && !strcmp(name, "Code"))
			pg->field = AF_CODE;
		else if (pg->depth == 2 && !strcmp(name, "Message"))
			pg->field = AF_MESSAGE;
		return;
	}
	if (pg->depth == 2 && !strcmp(name, "NextMarker")) {
		pg->field = AF_MARKER;
	} else if (pg->depth == 3 && !strcmp(name, "Blob")) {
		pg->in_blob = true;
		if (pg->n == pg->cap) {
			size_t nc = pg->cap ? 2 * pg->cap : 64;
			azl_blob *b = realloc(pg->b, nc * sizeof *b);
			if (!b) {
				azl_page_fail(pg, "out of memory");
				return;
			}
			pg->b = b;
			pg->cap = nc;
		}
		pg->b[pg->n++] = (azl_blob){NULL, NULL};
	} else if (pg->depth == 4 && pg->in_blob && !strcmp(name, "Name")) {
		pg->field = AF_NAME;
	} else if (pg->depth == 4 && pg->in_blob &&
		   !strcmp(name, "Properties")) {
		pg->in_props = true;
	} else if (pg->depth == 5 && pg->in_props &&
		   !strcmp(name, "Content-Length")) {
		pg->field = AF_SIZE;
	}
}

static void XMLCALL azl_text(void *ud, const XML_Char *s, int len)
{
	azl_page *pg = ud;

	if (pg->field == AF_NONE || len <= 0)
		return;
	if ((size_t)len > AZL_FIELD_MAX - pg->text_len) {
		azl_page_fail(pg, "a field longer than 4096 bytes");
		return;
	}
	memcpy(pg->text + pg->text_len, s, (size_t)len);
	pg->text_len += (size_t)len;
}

static void XMLCALL azl_end(void *ud, const XML_Char *name)
{
	azl_page *pg = ud;
	enum azl_field f = pg->field;
	char **slot = NULL;

	(void)name;
	pg->field = AF_NONE;
	if (pg->depth == 3 && pg->in_blob)
		pg->in_blob = false;
	if (pg->depth == 4 && pg->in_props)
		pg->in_props = false;
	pg->depth--;
	if (f == AF_NONE)
		return;
	if (f == AF_NAME)
		slot = &pg->b[pg->n - 1].name;
	else if (f == AF_SIZE)
		slot = &pg->b[pg->n - 1].size;
	else if (f == AF_MARKER)
		slot = &pg->marker;
	else if (f == AF_CODE)
		slot = &pg->code;
	else
		slot = &pg->message;
	if (*slot) {
		azl_page_fail(pg, "a field given twice");
		return;
	}
	pg->text[pg->text_len] = '\0';
	if (memchr(pg->text, '\0', pg->text_len)) {
		azl_page_fail(pg, "a NUL character in a field");
		return;
	}
	*slot = strdup(pg->text);
	if (!*slot)
		azl_page_fail(pg, "out of memory");
}

static void XMLCALL azl_doctype(void *ud, const XML_Char *name,
				const XML_Char *sysid, const XML_Char *pubid,
				int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	azl_page_fail(ud, "a DOCTYPE is not accepted");
}

static bool azl_parse(azl_page *pg, const char *body, size_t len,
		      bool error_doc)
{
	memset(pg, 0, sizeof *pg);
	pg->error_doc = error_doc;
	pg->xp = XML_ParserCreate("UTF-8");
	if (!pg->xp) {
		snprintf(pg->fail, sizeof pg->fail, "out of memory");
		return false;
	}
	XML_SetUserData(pg->xp, pg);
	XML_SetElementHandler(pg->xp, azl_start, azl_end);
	XML_SetCharacterDataHandler(pg->xp, azl_text);
	XML_SetStartDoctypeDeclHandler(pg->xp, azl_doctype);
	if (len > INT32_MAX ||
	    XML_Parse(pg->xp, body, (int)len, XML_TRUE) != XML_STATUS_OK) {
		if (!pg->fail[0])
			snprintf(pg->fail, sizeof pg->fail, "%s",
				 XML_ErrorString(XML_GetErrorCode(pg->xp)));
	}
	XML_ParserFree(pg->xp);
	pg->xp = NULL;
	return !pg->fail[0];
}

/* The store's own words for a 4xx: " (Code: Message)", each cut short;
 * "" when the body is not an Azure error document. */
static void azl_reason(const char *body, size_t len, char *out, size_t n)
{
	azl_page pg;

	out[0] = '\0';
	if (body && len && azl_parse(&pg, body, len, true) && pg.code) {
		char *m = pg.message;
		if (m)
			m[strcspn(m, "\r\n")] = '\0';
		snprintf(out, n, " (%.*s%s%.*s)", AZL_QUOTE_MAX, pg.code,
			 m ? ": " : "", AZL_QUOTE_MAX, m ? m : "");
	}
	azl_page_clear(&pg);
}

/* `s` percent-encoded for a query value (every byte but the unreserved
 * ones). */
static char *azl_qenc(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(3 * strlen(s) + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		    c == '_' || c == '~') {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	*p = '\0';
	return out;
}

static char *azl_query(const char *prefix, const char *marker)
{
	char *p = azl_qenc(prefix), *m = marker ? azl_qenc(marker) : NULL;
	char *q = NULL;

	if (p && (!marker || m) &&
	    asprintf(&q, "?restype=container&comp=list&prefix=%s%s%s", p,
		     m ? "&marker=" : "", m ? m : "") < 0)
		q = NULL;
	free(p);
	free(m);
	return q;
}

static bool azl_digits(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s || strlen(s) > 19)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

colfs_status colfs_azure_list(const char *url, const colfs_options *o,
			      colfs_source_entry **out, size_t *n, char *why,
			      size_t why_len)
{
	colfs_remote_target t;
	colfs_http *h = NULL;
	char *prefix = NULL, *marker = NULL, *last = NULL;
	colfs_source_entry *e = NULL;
	size_t ne = 0, cap = 0, plen;
	colfs_status st;

	*out = NULL;
	*n = 0;
	COLFS_TRY(colfs_azure_target(url, o, &t, &prefix, why, why_len));
	plen = strlen(prefix);
	const char *d = t.display;
	st = colfs_http_create(&t, o, &h, why, why_len);
	for (unsigned page = 1; !st; page++) {
		char *q = azl_query(prefix, marker);
		uint8_t *body = NULL;
		size_t len = 0;
		int status = 0;
		colfs_err err;
		azl_page pg;

		if (page > AZL_PAGES_MAX) {
			free(q);
			st = colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
				      "%s: more than %u listing pages", d,
				      AZL_PAGES_MAX);
			break;
		}
		if (!q) {
			st = colfs_fail_why(COLFS_ENOMEM, why, why_len,
				      "%s: out of memory", d);
			break;
		}
		memset(&err, 0, sizeof err);
		st = colfs_http_get_body(h, q, "a listing (List Blobs)",
					 AZL_PAGE_MAX, &body, &len, &status,
					 &err);
		free(q);
		if (st) {
			char reason[2 * AZL_QUOTE_MAX + 8];

			azl_reason((const char *)body, len, reason,
				   sizeof reason);
			if (reason[0])
				colfs_fail_why(st, why, why_len,
					 "%s: cannot list: HTTP %d%s%s", d,
					 status,
					 status == 403 ? " forbidden" :
					 status == 404 ? " not found" :
					 status == 401 ? " unauthorized" : "",
					 reason);
			else
				colfs_fail_why(st, why, why_len, "%s", err.msg);
			free(body);
			break;
		}
		if (!azl_parse(&pg, (const char *)body, len, false)) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: listing page %u is not a List Blobs "
				      "reply: %s", d, page, pg.fail);
			free(body);
			azl_page_clear(&pg);
			break;
		}
		free(body);
		for (size_t i = 0; i < pg.n && !st; i++) {
			const char *nm = pg.b[i].name;
			uint64_t size;

			if (!nm || !pg.b[i].size) {
				st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					      "%s: listing page %u has a Blob "
					      "without its Name or "
					      "Content-Length", d, page);
				break;
			}
			if (strncmp(nm, prefix, plen) || !nm[plen]) {
				st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					      "%s: the listing gives a blob "
					      "outside the prefix", d);
				break;
			}
			if (last && strcmp(nm, last) <= 0) {
				st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					      "%s: the listing is not in "
					      "order (a name repeated or "
					      "going back)", d);
				break;
			}
			if (!azl_digits(pg.b[i].size, &size)) {
				st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					      "%s: a Content-Length that is "
					      "not a number", d);
				break;
			}
			free(last);
			last = strdup(nm);
			if (!last) {
				st = COLFS_ENOMEM;
				break;
			}
			if (nm[strlen(nm) - 1] == '/')
				continue; /* a directory */
			if (ne == AZL_KEYS_MAX) {
				st = colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
					      "%s: more than %u blobs", d,
					      AZL_KEYS_MAX);
				break;
			}
			if (ne == cap) {
				size_t nc = cap ? 2 * cap : 64;
				colfs_source_entry *ee =
					realloc(e, nc * sizeof *e);
				if (!ee) {
					st = COLFS_ENOMEM;
					break;
				}
				e = ee;
				cap = nc;
			}
			e[ne].key = strdup(nm + plen);
			if (!e[ne].key) {
				st = COLFS_ENOMEM;
				break;
			}
			e[ne++].size = size;
		}
		if (!st && pg.marker && pg.marker[0] && marker &&
		    !strcmp(pg.marker, marker))
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: listing page %u gives the same "
				      "NextMarker again", d, page);
		free(marker);
		marker = NULL;
		if (!st && pg.marker && pg.marker[0]) {
			marker = pg.marker;
			pg.marker = NULL;
		}
		azl_page_clear(&pg);
		if (st == COLFS_ENOMEM)
			colfs_fail_why(st, why, why_len, "%s: out of memory", d);
		if (st || !marker)
			break;
	}
	free(marker);
	free(last);
	free(prefix);
	colfs_http_destroy(h);
	colfs_remote_target_clear(&t);
	if (st) {
		colfs_source_entries_free(e, ne);
		return st;
	}
	*out = e;
	*n = ne;
	return COLFS_OK;
}

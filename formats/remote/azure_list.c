/* colfs: the blobs under an Azure prefix (remote.h, colfs_azure_list):
 * the Blob service's List Blobs, page after page.
 *
 * Each page is a GET of the container's URL with the query
 *   ?restype=container&comp=list&prefix=P[&marker=M]
 * signed as an object's GET is (azure.c).  The reply is XML, parsed by
 * xml_list.c (expat; a DOCTYPE refused, nesting and each text field
 * capped).
 *
 * Nothing in a reply is trusted: every name must lie under the prefix
 * and come after the name before it (Azure lists in UTF-8 binary order:
 * a server going back or repeating itself is caught, not looped on), a
 * Content-Length is decimal digits, a NextMarker must change, and the
 * number of names and pages is capped.  Names ending in '/' (the
 * directories of a hierarchical namespace, which are empty blobs) are
 * not entries.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"
#include "xml_list.h"

#define AZL_PAGE_MAX (32u << 20)
#define AZL_KEYS_MAX 1000000u
#define AZL_PAGES_MAX 100000u
#define AZL_QUOTE_MAX 160

/* The store's own words for a 4xx: " (Code: Message)", each cut short;
 * "" when the body is not an Azure error document. */
static void azl_reason(const char *body, size_t len, char *out, size_t n)
{
	char code[AZL_QUOTE_MAX + 1], msg[AZL_QUOTE_MAX + 1];

	out[0] = '\0';
	if (colfs_xml_error(body, len, code, msg, sizeof code))
		snprintf(out, n, " (%s%s%s)", code, msg[0] ? ": " : "", msg);
}

static char *azl_query(const char *prefix, const char *marker)
{
	char *p = colfs_xml_query_encode(prefix);
	char *m = marker ? colfs_xml_query_encode(marker) : NULL;
	char *q = NULL;

	if (p && (!marker || m) &&
	    asprintf(&q, "?restype=container&comp=list&prefix=%s%s%s", p,
		     m ? "&marker=" : "", m ? m : "") < 0)
		q = NULL;
	free(p);
	free(m);
	return q;
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
		colfs_xml_page pg;

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
		if (!colfs_xml_page_parse(&colfs_xml_list_blobs,
					  (const char *)body, len,
					  &pg)) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: listing page %u is not a List Blobs "
				      "reply: %s", d, page, pg.fail);
			free(body);
			colfs_xml_page_clear(&pg);
			break;
		}
		free(body);
		for (size_t i = 0; i < pg.n && !st; i++) {
			const char *nm = pg.items[i].key;
			uint64_t size;

			if (!nm || !pg.items[i].size) {
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
			if (!colfs_xml_digits(pg.items[i].size, &size)) {
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
		char *next = pg.field[0];
		if (!st && next && next[0] && marker && !strcmp(next, marker))
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				      "%s: listing page %u gives the same "
				      "NextMarker again", d, page);
		free(marker);
		marker = NULL;
		if (!st && next && next[0]) {
			marker = next;
			pg.field[0] = NULL;
		}
		colfs_xml_page_clear(&pg);
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

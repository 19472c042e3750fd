/* colfs: the files under an hf:// folder (remote.h, docs/remote.md,
 * "Hugging Face"): the Hub's tree API,
 * GET ENDPOINT/api/TYPE/OWNER/NAME/tree/REVISION/FOLDER?recursive=true,
 * a JSON array of {"type": "file" | "directory", "path", "size",
 * "lfs": {"size", ...}, ...} read through jansson, page after page by
 * the Link header's rel="next" URL.
 *
 * Nothing the Hub says is trusted: a path outside the folder, a size
 * that is not a non-negative integer, a file listed twice, a next page on
 * another host or outside the endpoint (the token goes to the Hub
 * only), a next page that is the
 * page itself, more than HF_LIST_MAX_FILES files or HF_LIST_MAX_PAGES
 * pages end in an error naming the folder.  Keys are sorted into byte
 * order (the Hub lists a folder's subfolders first).
 */
#include "remote.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HF_LIST_MAX_FILES 1000000
#define HF_LIST_MAX_PAGES 100000
/* One page's JSON (a thousand entries are a few hundred KB). */
#define HF_LIST_PAGE_MAX (64u << 20)

/* The URL of rel="next" in a Link header (malloc'd), or NULL. */
static char *hf_link_next(const char *link)
{
	const char *p = link;

	while (p && (p = strchr(p, '<'))) {
		const char *end = strchr(p, '>');

		if (!end)
			return NULL;
		const char *params = end + 1;
		size_t pl = strcspn(params, ",");
		/* rel="next" or rel=next among this link's parameters */
		for (const char *q = params; q < params + pl; q++) {
			if (strncasecmp(q, "rel=", 4))
				continue;
			q += 4;
			if (*q == '"')
				q++;
			if (!strncasecmp(q, "next", 4) &&
			    (q[4] == '"' || q[4] == ';' || q[4] == ',' ||
			     q[4] == ' ' || q[4] == '\0'))
				return strndup(p + 1, (size_t)(end - p - 1));
			break;
		}
		p = params + pl;
	}
	return NULL;
}

static int hf_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const colfs_source_entry *)a)->key,
		      ((const colfs_source_entry *)b)->key);
}

/* The files of one page appended to *e (of *n, room *cap). */
static colfs_status hf_list_page(const colfs_hf_repo *r, const char *folder,
				 const colfs_hf_reply *y,
				 colfs_source_entry **e, size_t *n,
				 size_t *cap, char *why, size_t why_len)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)y->body, y->len, 0, &jerr);
	colfs_status st = COLFS_OK;
	size_t fl = strlen(folder), i;
	json_t *it;

	if (!doc || !json_is_array(doc)) {
		json_decref(doc);
		return colfs_fail_why(COLFS_ECORRUPT, why, why_len,
			"%s: the Hub's listing is not a JSON array%s%.120s",
			r->name, doc ? "" : ": ", doc ? "" : jerr.text);
	}
	json_array_foreach(doc, i, it) {
		const char *type = json_string_value(json_object_get(it, "type"));
		const char *path = json_string_value(json_object_get(it, "path"));
		json_t *lfs = json_object_get(it, "lfs");
		json_t *size = json_object_get(json_is_object(lfs) ? lfs : it,
					       "size");

		if (!json_is_object(it) || !type || !path) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: entry %zu of the Hub's listing has no type or path",
				r->name, i);
			break;
		}
		if (strcmp(type, "file"))
			continue; /* a folder: its files are listed too */
		if ((fl && (strncmp(path, folder, fl) || path[fl] != '/')) ||
		    !path[fl ? fl + 1 : 0]) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: the Hub listed \"%.200s\", outside the folder",
				r->name, path);
			break;
		}
		if (!json_is_integer(size) || json_integer_value(size) < 0) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: the Hub listed \"%.200s\" without a size that is a non-negative integer",
				r->name, path);
			break;
		}
		for (const char *c = path; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f) {
				st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
					"%s: the Hub listed a path with a control character",
					r->name);
				break;
			}
		if (st)
			break;
		if (*n >= HF_LIST_MAX_FILES) {
			st = colfs_fail_why(COLFS_EOVERFLOW, why, why_len,
				"%s: more than %d files", r->name,
				HF_LIST_MAX_FILES);
			break;
		}
		if (!colfs_grow((void **)e, cap, *n + 1, sizeof **e) ||
		    !((*e)[*n].key = strdup(path + (fl ? fl + 1 : 0)))) {
			st = colfs_fail_why(COLFS_ENOMEM, why, why_len,
					    "out of memory");
			break;
		}
		(*e)[(*n)++].size = (uint64_t)json_integer_value(size);
	}
	json_decref(doc);
	return st;
}

colfs_status colfs_hf_list(const char *name, const colfs_options *o,
			   colfs_source_entry **out, size_t *n, char *why,
			   size_t why_len)
{
	colfs_hf_repo r;
	colfs_hf_reply y;
	colfs_source_entry *e = NULL;
	size_t cap = 0, pages = 0, hops = 0;
	char *folder = NULL, *url = NULL, *base = NULL;
	colfs_status st;

	*out = NULL;
	*n = 0;
	COLFS_TRY(colfs_hf_repo_open(name, o, &r, why, why_len));
	memset(&y, 0, sizeof y);
	folder = strdup(r.path);
	st = COLFS_ENOMEM;
	if (!folder)
		goto fail;
	if (*folder)
		folder[strlen(folder) - 1] = '\0'; /* its '/' */
	base = colfs_hf_url(&r, true, folder);
	if (!base)
		goto fail;
	if (!*folder)
		base[strlen(base) - 1] = '\0'; /* tree/REV, no '/' */
	if (asprintf(&url, "%s?recursive=true&expand=false", base) < 0) {
		url = NULL;
		goto fail;
	}
	for (;;) {
		st = colfs_hf_request(&r, url, false, HF_LIST_PAGE_MAX, &y,
				      NULL, why, why_len);
		if (st)
			goto out;
		char *moved = NULL;

		if (y.status >= 300 && y.status <= 399 && y.location &&
		    colfs_hf_on_hub(&r, y.location, &moved) && moved &&
		    ++hops <= 5) {
			/* a renamed repository: the Hub's own redirect */
			free(url);
			url = moved;
			colfs_hf_reply_clear(&y);
			continue;
		}
		free(moved);
		if (y.status != 200) {
			st = colfs_hf_refused(&r, &y, "the listing", why,
					      why_len);
			goto out;
		}
		st = hf_list_page(&r, folder, &y, &e, n, &cap, why, why_len);
		if (st)
			goto out;
		char *next = y.link ? hf_link_next(y.link) : NULL;
		size_t ol = strlen(r.endpoint);

		if (!next)
			break;
		if (strncmp(next, r.endpoint, ol) || next[ol] != '/') {
			free(next);
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: the Hub's next page is on another host: not followed (the token goes to the Hub only)",
				name);
			goto out;
		}
		if (!strcmp(next, url) || ++pages >= HF_LIST_MAX_PAGES) {
			free(next);
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: the Hub's listing does not end (%s)", name,
				pages >= HF_LIST_MAX_PAGES ? "too many pages"
							   : "a page names itself next");
			goto out;
		}
		free(url);
		url = next;
		colfs_hf_reply_clear(&y);
	}
	if (*n > 1)
		qsort(e, *n, sizeof *e, hf_entry_cmp);
	for (size_t i = 1; i < *n; i++)
		if (!strcmp(e[i - 1].key, e[i].key)) {
			st = colfs_fail_why(COLFS_ECORRUPT, why, why_len,
				"%s: the Hub listed \"%.200s\" twice", name,
				e[i].key);
			goto out;
		}
	*out = e;
	e = NULL;
	st = COLFS_OK;
	goto out;
fail:
	colfs_fail_why(st, why, why_len, "out of memory");
out:
	if (e) {
		colfs_source_entries_free(e, *n);
		*n = 0;
	}
	colfs_hf_reply_clear(&y);
	free(url);
	free(base);
	free(folder);
	colfs_hf_repo_clear(&r);
	return st;
}

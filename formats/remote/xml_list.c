/* colfs: one page of a store's XML listing (xml_list.h), parsed by expat
 * (the well-kept library; nothing is parsed by hand), and the helpers the
 * listings share: the error document's Code and Message, the query's
 * percent-encoding, the digits of a size.
 *
 * The parser walks the elements with the state of each open one (the
 * root, the items' parent, an item, its properties, a kept text, anything
 * else), so that a name counts only where the caller's spec puts it: a
 * <Key> outside an item, or an item nested in another element, is not
 * read.
 */
#include <expat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xml_list.h"

/* S3's elements are 3 deep, Azure's 5. */
#define XML_DEPTH_MAX 32
/* A kept text: a key is at most 1024 bytes, 3072 URL-encoded; a
 * continuation token a few hundred. */
#define XML_FIELD_MAX 4096u

enum xml_state {
	XS_OTHER,
	XS_ROOT,
	XS_ITEMS,
	XS_ITEM,
	XS_PROPS,
	XS_KEY,
	XS_SIZE,
	XS_FIELD, /* + the field's index */
};

typedef struct xml_parse {
	XML_Parser xp;
	const colfs_xml_spec *spec;
	colfs_xml_page *page;
	size_t cap;
	int depth;
	int state[XML_DEPTH_MAX + 1];
	char text[XML_FIELD_MAX + 1];
	size_t text_len;
} xml_parse;

static void xml_failf(xml_parse *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void xml_failf(xml_parse *x, const char *fmt, ...)
{
	va_list ap;

	if (x->page->fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(x->page->fail, sizeof x->page->fail, fmt, ap);
	va_end(ap);
	XML_StopParser(x->xp, XML_FALSE);
}

static bool xml_is(const char *name, const char *want)
{
	return want && strcmp(name, want) == 0;
}

static int xml_item_new(xml_parse *x)
{
	colfs_xml_page *pg = x->page;

	if (pg->n == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 64;
		colfs_xml_item *it = realloc(pg->items, nc * sizeof *it);
		if (!it) {
			xml_failf(x, "out of memory");
			return XS_OTHER;
		}
		pg->items = it;
		x->cap = nc;
	}
	pg->items[pg->n++] = (colfs_xml_item){NULL, NULL};
	return XS_ITEM;
}

/* The state of an element named `name` whose parent is in `parent`. */
static int xml_child_state(xml_parse *x, int parent, const char *name)
{
	const colfs_xml_spec *s = x->spec;

	switch (parent) {
	case XS_ROOT:
		if (s->item && !s->items && xml_is(name, s->item))
			return xml_item_new(x);
		if (s->item && xml_is(name, s->items))
			return XS_ITEMS;
		for (int i = 0; i < COLFS_XML_FIELDS_MAX && s->fields[i]; i++)
			if (xml_is(name, s->fields[i]))
				return XS_FIELD + i;
		return XS_OTHER;
	case XS_ITEMS:
		return xml_is(name, s->item) ? xml_item_new(x) : XS_OTHER;
	case XS_ITEM:
		if (xml_is(name, s->key))
			return XS_KEY;
		if (!s->props && xml_is(name, s->size))
			return XS_SIZE;
		if (xml_is(name, s->props))
			return XS_PROPS;
		return XS_OTHER;
	case XS_PROPS:
		return xml_is(name, s->size) ? XS_SIZE : XS_OTHER;
	default:
		return XS_OTHER;
	}
}

static void XMLCALL xml_on_start(void *ud, const XML_Char *name,
				 const XML_Char **attrs)
{
	xml_parse *x = ud;
	int st;

	(void)attrs;
	if (x->page->fail[0])
		return;
	if (x->depth >= XML_DEPTH_MAX) {
		xml_failf(x, "elements nested more than %d deep",
			  XML_DEPTH_MAX);
		return;
	}
	x->depth++;
	if (x->depth == 1) {
		if (strcmp(name, x->spec->root) != 0)
			xml_failf(x, "the document is <%.40s>, not <%s>", name,
				  x->spec->root);
		st = XS_ROOT;
	} else {
		st = xml_child_state(x, x->state[x->depth - 1], name);
	}
	x->state[x->depth] = st;
	x->text_len = 0;
}

static void XMLCALL xml_on_text(void *ud, const XML_Char *s, int len)
{
	xml_parse *x = ud;

	if (x->page->fail[0] || x->depth < 1 ||
	    x->state[x->depth] < XS_KEY || len <= 0)
		return;
	if ((size_t)len > XML_FIELD_MAX - x->text_len) {
		xml_failf(x, "a field longer than %u bytes", XML_FIELD_MAX);
		return;
	}
	memcpy(x->text + x->text_len, s, (size_t)len);
	x->text_len += (size_t)len;
}

/* "Key" -> "Keys", for "an object with two Keys". */
static void xml_twice(xml_parse *x, const char *what)
{
	xml_failf(x, "an object (%s %zu) with two %ss", x->spec->item,
		  x->page->n, what);
}

static void XMLCALL xml_on_end(void *ud, const XML_Char *name)
{
	xml_parse *x = ud;
	colfs_xml_page *pg = x->page;

	(void)name;
	if (pg->fail[0] || x->depth < 1)
		return;
	int st = x->state[x->depth--];
	if (st < XS_KEY)
		return;
	char **slot;
	if (st == XS_KEY || st == XS_SIZE) {
		slot = st == XS_KEY ? &pg->items[pg->n - 1].key
				    : &pg->items[pg->n - 1].size;
		if (*slot) {
			xml_twice(x, st == XS_KEY ? x->spec->key
						  : x->spec->size);
			return;
		}
	} else {
		slot = &pg->field[st - XS_FIELD];
		if (*slot) {
			xml_failf(x, "a field given twice (<%.40s>)",
				  x->spec->fields[st - XS_FIELD]);
			return;
		}
	}
	if (memchr(x->text, '\0', x->text_len)) {
		xml_failf(x, "a field holding a NUL character");
		return;
	}
	*slot = strndup(x->text, x->text_len);
	if (!*slot)
		xml_failf(x, "out of memory");
}

static void XMLCALL xml_on_doctype(void *ud, const XML_Char *name,
				   const XML_Char *sysid,
				   const XML_Char *pubid,
				   int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	xml_failf(ud, "a DOCTYPE (not a store's reply)");
}

bool colfs_xml_page_parse(const colfs_xml_spec *spec, const char *body,
			  size_t len, colfs_xml_page *page)
{
	xml_parse *x;

	memset(page, 0, sizeof *page);
	if (len > INT32_MAX) {
		snprintf(page->fail, sizeof page->fail, "a reply too large");
		return false;
	}
	x = calloc(1, sizeof *x);
	if (!x || !(x->xp = XML_ParserCreate("UTF-8"))) {
		free(x);
		snprintf(page->fail, sizeof page->fail, "out of memory");
		return false;
	}
	x->spec = spec;
	x->page = page;
	XML_SetUserData(x->xp, x);
	XML_SetElementHandler(x->xp, xml_on_start, xml_on_end);
	XML_SetCharacterDataHandler(x->xp, xml_on_text);
	XML_SetStartDoctypeDeclHandler(x->xp, xml_on_doctype);
	if (XML_Parse(x->xp, body ? body : "", (int)len, XML_TRUE) !=
		    XML_STATUS_OK &&
	    !page->fail[0])
		snprintf(page->fail, sizeof page->fail,
			 "not well-formed XML (%s at line %lu)",
			 XML_ErrorString(XML_GetErrorCode(x->xp)),
			 (unsigned long)XML_GetCurrentLineNumber(x->xp));
	XML_ParserFree(x->xp);
	free(x);
	return !page->fail[0];
}

void colfs_xml_page_clear(colfs_xml_page *page)
{
	for (int i = 0; i < COLFS_XML_FIELDS_MAX; i++)
		free(page->field[i]);
	for (size_t i = 0; i < page->n; i++) {
		free(page->items[i].key);
		free(page->items[i].size);
	}
	free(page->items);
	memset(page, 0, sizeof *page);
}

/* Printable ASCII of a server's text on one line, cut, for a message. */
static void xml_quote(char *out, size_t n, const char *s)
{
	size_t k = 0;

	/* the text up to its first line break, after leading white space
	 * (a store's element may start with a line break) */
	while (s && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
		s++;
	for (; s && *s && k + 1 < n; s++) {
		if (*s == '\r' || *s == '\n')
			break;
		out[k++] = *s >= 0x20 && *s < 0x7f ? *s : '?';
	}
	out[k] = '\0';
}

const colfs_xml_spec colfs_xml_list_v2 = {
	.root = "ListBucketResult",
	.fields = {"Name", "Prefix", "IsTruncated", "NextContinuationToken",
		   "KeyCount", "EncodingType"},
	.item = "Contents",
	.key = "Key",
	.size = "Size",
};

const colfs_xml_spec colfs_xml_list_blobs = {
	.root = "EnumerationResults",
	.fields = {"NextMarker"},
	.items = "Blobs",
	.item = "Blob",
	.key = "Name",
	.props = "Properties",
	.size = "Content-Length",
};

const colfs_xml_spec colfs_xml_error_doc = {
	.root = "Error",
	.fields = {"Code", "Message"},
};

bool colfs_xml_error(const char *body, size_t len, char *code, char *msg,
		     size_t n)
{
	colfs_xml_page pg;
	bool ok;

	code[0] = msg[0] = '\0';
	if (!body || !len)
		return false;
	ok = colfs_xml_page_parse(&colfs_xml_error_doc, body, len, &pg) &&
	     pg.field[0] && pg.field[0][0];
	if (ok) {
		xml_quote(code, n, pg.field[0]);
		xml_quote(msg, n, pg.field[1]);
	}
	/* a Code of white space alone is no code */
	if (ok && !code[0]) {
		msg[0] = '\0';
		ok = false;
	}
	colfs_xml_page_clear(&pg);
	return ok;
}

char *colfs_xml_query_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out, *p;

	if (n > (SIZE_MAX - 1) / 3)
		return NULL;
	out = p = malloc(3 * n + 1);
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

bool colfs_xml_digits(const char *s, uint64_t *v)
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

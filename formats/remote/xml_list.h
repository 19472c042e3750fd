/* colfs: one page of a store's XML listing, parsed (xml_list.c).  S3's
 * and GCS's ListObjectsV2 (s3_list.c), Azure's List Blobs (azure_list.c)
 * and the three stores' error documents are read by this one parser; each
 * document is described once (colfs_xml_spec, below) and its caller
 * checks what the fields say.
 */
#ifndef COLFS_XML_LIST_H
#define COLFS_XML_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The fields kept of a page (children of the document element). */
#define COLFS_XML_FIELDS_MAX 8

/* Where a document keeps what is read of it.  Names are element names,
 * compared whole; the document element must be `root`. */
typedef struct colfs_xml_spec {
	const char *root;
	/* Children of the root kept as text (NULL-ended, at most
	 * COLFS_XML_FIELDS_MAX): page->field[i] holds fields[i]'s. */
	const char *fields[COLFS_XML_FIELDS_MAX + 1];
	/* The listed objects: `item` elements, children of `items` (NULL:
	 * of the root); NULL `item`: the document lists none. */
	const char *items;
	const char *item;
	/* An item's key, a child of the item; its size, a child of `props`
	 * (NULL: of the item). */
	const char *key;
	const char *props;
	const char *size;
} colfs_xml_spec;

/* The documents the stores send, each described once (xml_list.c), for
 * their readers and the fuzz target alike:
 *   colfs_xml_list_v2     a page of ListObjectsV2 (S3, GCS: s3_list.c),
 *                         its fields Name, Prefix, IsTruncated,
 *                         NextContinuationToken, KeyCount and
 *                         EncodingType, its Contents (Key, Size);
 *   colfs_xml_list_blobs  a page of List Blobs (Azure: azure_list.c), its
 *                         one field NextMarker, its Blobs/Blob (Name,
 *                         Properties/Content-Length);
 *   colfs_xml_error_doc   an <Error> document (colfs_xml_error), its
 *                         fields Code and Message. */
extern const colfs_xml_spec colfs_xml_list_v2;
extern const colfs_xml_spec colfs_xml_list_blobs;
extern const colfs_xml_spec colfs_xml_error_doc;

/* One listed object as sent: the texts (malloc'd), NULL when the item
 * had no such element (the caller says which is missing). */
typedef struct colfs_xml_item {
	char *key;
	char *size;
} colfs_xml_item;

typedef struct colfs_xml_page {
	char *field[COLFS_XML_FIELDS_MAX]; /* NULL: not in the page */
	colfs_xml_item *items;
	size_t n;
	char fail[256]; /* why the parse failed; "" when it did not */
} colfs_xml_page;

/* Parse one reply body with expat: a DOCTYPE is refused (no entity is
 * ever declared, so none is expanded), elements nested more than 32 deep
 * are refused, a kept text longer than 4096 bytes, holding a NUL, or
 * given twice (a field, an item's key or size) is refused.  False with
 * page->fail set when the body is not such a document; the page is to be
 * cleared either way. */
bool colfs_xml_page_parse(const colfs_xml_spec *spec, const char *body,
			  size_t len, colfs_xml_page *page);
void colfs_xml_page_clear(colfs_xml_page *page);

/* The Code and Message of a store's <Error> document (S3's, GCS's and
 * Azure's share the shape), printable ASCII only, each cut to `n - 1`
 * bytes; false (both "") when the body is not one. */
bool colfs_xml_error(const char *body, size_t len, char *code, char *msg,
		     size_t n);

/* `s` percent-encoded as Signature V4's canonical query has a value
 * (every byte but A-Z a-z 0-9 - . _ ~ as %XX), malloc'd; NULL when out
 * of memory. */
char *colfs_xml_query_encode(const char *s);

/* A size or a count: 1 to 19 decimal digits and nothing else. */
bool colfs_xml_digits(const char *s, uint64_t *v);

#endif

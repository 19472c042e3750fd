/* tests/fuzz: the XML listing parser (formats/remote/xml_list.c).
 *
 * One input is parsed as each document the stores send, by the specs
 * their readers use (xml_list.h): a page of ListObjectsV2 (S3, GCS), a
 * page of List Blobs (Azure, items two levels down and sizes under
 * Properties) and an error document, then read for
 * its Code and Message, percent-encoded as a query value and read as
 * digits.  Invariants: a parse succeeds exactly when it gives no reason;
 * a reason is a NUL-terminated line; every text kept is NUL-free and at
 * most 4096 bytes; there are no more items than start tags in the input;
 * an error's code and message are printable ASCII of the length asked;
 * a percent-encoding holds only unreserved bytes and %XX and decodes back
 * to its input; digits parse only when all are digits. */
#include "fuzz_util.h"
#include "remote/xml_list.h"

static void check_text(const char *s)
{
	if (!s)
		return;
	FUZZ_CHECK(strlen(s) <= 4096);
}

static void parse(const colfs_xml_spec *spec, const uint8_t *p, size_t n)
{
	colfs_xml_page pg;
	size_t tags = 0;
	bool ok = colfs_xml_page_parse(spec, (const char *)p, n, &pg);

	FUZZ_CHECK(memchr(pg.fail, '\0', sizeof pg.fail) != NULL);
	FUZZ_CHECK(ok == (pg.fail[0] == '\0'));
	FUZZ_CHECK(strchr(pg.fail, '\n') == NULL);
	for (size_t i = 0; i < n; i++)
		tags += p[i] == '<';
	FUZZ_CHECK(pg.n <= tags);
	FUZZ_CHECK(pg.n == 0 || spec->item);
	for (int i = 0; i < COLFS_XML_FIELDS_MAX; i++) {
		check_text(pg.field[i]);
		FUZZ_CHECK(!pg.field[i] || spec->fields[i]);
	}
	for (size_t i = 0; i < pg.n; i++) {
		check_text(pg.items[i].key);
		check_text(pg.items[i].size);
	}
	colfs_xml_page_clear(&pg);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ?
		c - 'A' + 10 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char code[161], msg[161];

	parse(&colfs_xml_list_v2, data, size);
	parse(&colfs_xml_list_blobs, data, size);
	parse(&colfs_xml_error_doc, data, size);

	if (colfs_xml_error((const char *)data, size, code, msg,
			    sizeof code)) {
		FUZZ_CHECK(code[0] != '\0');
	} else {
		FUZZ_CHECK(code[0] == '\0' && msg[0] == '\0');
	}
	for (const char *s = code; *s; s++)
		FUZZ_CHECK(*s >= 0x20 && *s < 0x7f);
	for (const char *s = msg; *s; s++)
		FUZZ_CHECK(*s >= 0x20 && *s < 0x7f);
	FUZZ_CHECK(strlen(code) <= 160 && strlen(msg) <= 160);

	/* the input up to its first NUL, as a string */
	size_t sn = size > 4096 ? 4096 : size;
	char *s = malloc(sn + 1);
	FUZZ_CHECK(s != NULL);
	memcpy(s, data, sn);
	s[sn] = '\0';
	char *q = colfs_xml_query_encode(s);
	FUZZ_CHECK(q != NULL);
	size_t k = 0;
	for (const char *r = q; *r; r++) {
		if (*r == '%') {
			int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
			FUZZ_CHECK(hi >= 0 && lo >= 0);
			FUZZ_CHECK((unsigned char)s[k] == hi * 16 + lo);
			r += 2;
		} else {
			FUZZ_CHECK((*r >= 'A' && *r <= 'Z') ||
				   (*r >= 'a' && *r <= 'z') ||
				   (*r >= '0' && *r <= '9') || *r == '-' ||
				   *r == '.' || *r == '_' || *r == '~');
			FUZZ_CHECK(s[k] == *r);
		}
		k++;
	}
	FUZZ_CHECK(s[k] == '\0');
	free(q);

	uint64_t v;
	if (colfs_xml_digits(s, &v)) {
		size_t dn = strlen(s);
		FUZZ_CHECK(dn >= 1 && dn <= 19);
		for (size_t i = 0; i < dn; i++)
			FUZZ_CHECK(s[i] >= '0' && s[i] <= '9');
	}
	free(s);
	return 0;
}

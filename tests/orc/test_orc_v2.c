/* tests/orc: ORC 2.x additions in hand-built files (packed with the
 * protobuf-c code of colfs' own orc.proto): BROTLI compression (every
 * stream and the tail in Brotli chunks), the GEOMETRY and GEOGRAPHY type
 * kinds with their crs and edge algorithm, their values as WKT (a
 * malformed one, a point cut short, as its bytes, and filed under its
 * stripe), GeospatialStatistics
 * (ColumnStatistics 13) in statistics.json, and the older bloom filter
 * layout of over1k_bloom.orc.
 *
 * The file: struct<g:geometry(OGC:CRS84),h:geography(,KARNEY)>, one
 * stripe of 2 rows, DIRECT encoding (RLE v1 lengths). */
#include "orc.pb-c.h"
#include "../testio.h"

#include <brotli/encode.h>
#include <colfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(c, ...)                                                       \
	do {                                                                \
		if (!(c)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			failures++;                                         \
		}                                                           \
	} while (0)

typedef struct wbuf {
	uint8_t p[1 << 14];
	size_t len;
} wbuf;

static void put(wbuf *b, const void *d, size_t n)
{
	if (b->len + n > sizeof b->p) {
		fprintf(stderr, "test file too large\n");
		exit(1);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* One ORC compression chunk: a 3-byte header (length * 2, bit 0 clear:
 * compressed) and the Brotli stream of `d`.  Returns the bytes written. */
static size_t put_brotli(wbuf *b, const void *d, size_t n)
{
	uint8_t out[4096], h[3];
	size_t on = sizeof out;

	if (!BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
				   BROTLI_MODE_GENERIC, n, d, &on, out)) {
		fprintf(stderr, "brotli failed\n");
		exit(1);
	}
	h[0] = (uint8_t)(on << 1);
	h[1] = (uint8_t)(on >> 7);
	h[2] = (uint8_t)(on >> 15);
	put(b, h, 3);
	put(b, out, on);
	return on + 3;
}

static size_t put_msg(wbuf *b, const ProtobufCMessage *m)
{
	uint8_t tmp[4096];
	size_t n = protobuf_c_message_get_packed_size(m);

	if (n > sizeof tmp)
		exit(1);
	protobuf_c_message_pack(m, tmp);
	return put_brotli(b, tmp, n);
}

static void wkb_point(wbuf *b, double x, double y)
{
	static const uint8_t head[] = {1, 1, 0, 0, 0};

	put(b, head, sizeof head);
	put(b, &x, 8);
	put(b, &y, 8);
}

static void wkb_line2(wbuf *b, double x0, double y0, double x1, double y1)
{
	static const uint8_t head[] = {1, 2, 0, 0, 0, 2, 0, 0, 0};

	put(b, head, sizeof head);
	put(b, &x0, 8);
	put(b, &y0, 8);
	put(b, &x1, 8);
	put(b, &y1, 8);
}

/* where write_file put h's DATA stream */
static size_t h_data_at;

static void write_file(const char *path)
{
	static wbuf file, data_g, data_h;
	/* RLE v1 literals: 2 values (header -2) */
	static const uint8_t len_g[] = {0xfe, 21, 41};
	static const uint8_t len_h[] = {0xfe, 21, 9};
	/* a point cut short: malformed WKB, shown as its bytes */
	static const uint8_t cut[] = {1, 1, 0, 0, 0, 0, 0, 0, 0};
	Orcpb__Stream s[5];
	Orcpb__Stream *sp[5];
	/* the older bloom filter layout (orc.proto BloomFilterOld), as in
	 * ORC's examples/over1k_bloom.orc */
	Orcpb__BloomFilterOld bf = ORCPB__BLOOM_FILTER_OLD__INIT, *bfp = &bf;
	Orcpb__BloomFilterIndexOld bfi = ORCPB__BLOOM_FILTER_INDEX_OLD__INIT;
	uint64_t words[] = {0, 1u << 20, 0x8000000000000000u};
	size_t ixl;
	Orcpb__ColumnEncoding enc[3], *encp[3];
	Orcpb__StripeFooter sf = ORCPB__STRIPE_FOOTER__INIT;
	Orcpb__StripeInformation si = ORCPB__STRIPE_INFORMATION__INIT, *sip = &si;
	Orcpb__Type ty[3], *typ[3];
	uint32_t sub[] = {1, 2};
	char *names[] = {"g", "h"};
	Orcpb__BoundingBox bb = ORCPB__BOUNDING_BOX__INIT;
	Orcpb__GeospatialStatistics gs = ORCPB__GEOSPATIAL_STATISTICS__INIT;
	int32_t gtypes[] = {1, 2};
	Orcpb__ColumnStatistics cs[3], *csp[3];
	Orcpb__Footer ft = ORCPB__FOOTER__INIT;
	Orcpb__PostScript ps = ORCPB__POST_SCRIPT__INIT;
	uint32_t version[] = {0, 12};
	uint8_t psb[256];
	size_t pl, fl, off, data_len, sfl;
	FILE *f;

	file.len = data_g.len = data_h.len = 0;
	wkb_point(&data_g, 1, 2);
	wkb_line2(&data_g, 0, 0, 1.5, -1);
	wkb_point(&data_h, -122.5, 37.25);
	put(&data_h, cut, sizeof cut);

	put(&file, "ORC", 3);
	off = file.len;
	bf.has_field_1 = bf.has_field_2 = 1;
	bf.field_1 = 10000;
	bf.field_2 = 0.05;
	bf.n_field_3 = 3;
	bf.field_3 = words;
	bfi.n_bloomfilter = 1;
	bfi.bloomfilter = &bfp;
	ixl = put_msg(&file, &bfi.base);
	/* streams, in file order: g BLOOM_FILTER, then g DATA, g LENGTH,
	 * h DATA, h LENGTH */
	orcpb__stream__init(&s[4]);
	s[4].has_kind = s[4].has_column = s[4].has_length = 1;
	s[4].kind = ORCPB__STREAM__KIND__BLOOM_FILTER;
	s[4].column = 1;
	s[4].length = ixl;
	sp[0] = &s[4];
	for (int i = 0; i < 4; i++) {
		orcpb__stream__init(&s[i]);
		s[i].has_kind = s[i].has_column = s[i].has_length = 1;
		s[i].kind = i % 2 ? ORCPB__STREAM__KIND__LENGTH
				  : ORCPB__STREAM__KIND__DATA;
		s[i].column = 1 + i / 2;
		sp[i + 1] = &s[i];
	}
	s[0].length = put_brotli(&file, data_g.p, data_g.len);
	s[1].length = put_brotli(&file, len_g, sizeof len_g);
	h_data_at = file.len;
	s[2].length = put_brotli(&file, data_h.p, data_h.len);
	s[3].length = put_brotli(&file, len_h, sizeof len_h);
	data_len = file.len - off - ixl;
	for (int i = 0; i < 3; i++) {
		orcpb__column_encoding__init(&enc[i]);
		enc[i].has_kind = 1;
		enc[i].kind = ORCPB__COLUMN_ENCODING__KIND__DIRECT;
		encp[i] = &enc[i];
	}
	sf.n_streams = 5;
	sf.streams = sp;
	sf.n_columns = 3;
	sf.columns = encp;
	sfl = put_msg(&file, &sf.base);
	si.has_offset = si.has_indexlength = si.has_datalength = 1;
	si.has_footerlength = si.has_numberofrows = 1;
	si.offset = off;
	si.indexlength = ixl;
	si.datalength = data_len;
	si.footerlength = sfl;
	si.numberofrows = 2;

	for (int i = 0; i < 3; i++) {
		orcpb__type__init(&ty[i]);
		orcpb__column_statistics__init(&cs[i]);
		ty[i].has_kind = 1;
		typ[i] = &ty[i];
		cs[i].has_numberofvalues = cs[i].has_hasnull = 1;
		cs[i].numberofvalues = 2;
		csp[i] = &cs[i];
	}
	ty[0].kind = ORCPB__TYPE__KIND__STRUCT;
	ty[0].n_subtypes = 2;
	ty[0].subtypes = sub;
	ty[0].n_fieldnames = 2;
	ty[0].fieldnames = names;
	ty[1].kind = ORCPB__TYPE__KIND__GEOMETRY;
	ty[1].crs = "OGC:CRS84";
	ty[2].kind = ORCPB__TYPE__KIND__GEOGRAPHY;
	ty[2].has_algorithm = 1;
	ty[2].algorithm = ORCPB__TYPE__EDGE_INTERPOLATION_ALGORITHM__KARNEY;
	bb.has_xmin = bb.has_xmax = bb.has_ymin = bb.has_ymax = 1;
	bb.xmin = 0;
	bb.xmax = 1.5;
	bb.ymin = -1;
	bb.ymax = 2;
	gs.bbox = &bb;
	gs.n_geospatial_types = 2;
	gs.geospatial_types = gtypes;
	cs[1].geospatialstatistics = &gs;

	ft.has_headerlength = ft.has_contentlength = 1;
	ft.headerlength = 3;
	ft.contentlength = file.len;
	ft.n_stripes = 1;
	ft.stripes = &sip;
	ft.n_types = 3;
	ft.types = typ;
	ft.has_numberofrows = 1;
	ft.numberofrows = 2;
	ft.n_statistics = 3;
	ft.statistics = csp;
	ft.softwareversion = "colfs-test-writer";
	fl = put_msg(&file, &ft.base);

	ps.has_footerlength = ps.has_compression = 1;
	ps.has_compressionblocksize = ps.has_metadatalength = 1;
	ps.footerlength = fl;
	ps.compression = ORCPB__COMPRESSION_KIND__BROTLI;
	ps.compressionblocksize = 65536;
	ps.n_version = 2;
	ps.version = version;
	ps.metadatalength = 0;
	ps.magic = "ORC";
	pl = protobuf_c_message_get_packed_size(&ps.base);
	protobuf_c_message_pack(&ps.base, psb);
	put(&file, psb, pl);
	psb[0] = (uint8_t)pl;
	put(&file, psb, 1);

	f = fopen(path, "wb");
	if (!f || fwrite(file.p, 1, file.len, f) != file.len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void expect(colfs_tree *t, const char *p, const char *want)
{
	const char *got = testio_text(t, p);

	CHECK(got && strcmp(got, want) == 0, "%s: got [%s], want [%s]", p,
	      got ? got : "(unreadable)", want);
}

static void expect_has(colfs_tree *t, const char *p, const char *want)
{
	const char *got = testio_text(t, p);

	CHECK(got && strstr(got, want), "%s: [%s] lacks [%s]", p,
	      got ? got : "(unreadable)", want);
}

int main(void)
{
	char path[] = "/tmp/colfs-orc-v2-XXXXXX", why[256];
	colfs_tree *t;
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	write_file(path);
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		fprintf(stderr, "FAIL: open: %s\n", why);
		unlink(path);
		return 1;
	}
	expect_has(t, "/summary", "BROTLI");
	expect_has(t, "/schema",
		   "struct<g:geometry(OGC:CRS84),h:geography(,KARNEY)>");
	expect(t, "/columns/g", "POINT (1 2)\nLINESTRING (0 0, 1.5 -1)\n");
	/* the malformed value as its bytes, as binary shows them */
	expect(t, "/columns/h", "POINT (-122.5 37.25)\n"
				"\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\n");
	expect_has(t, "/rows.jsonl",
		   "{\"g\": \"POINT (1 2)\", \"h\": \"POINT (-122.5 37.25)\"}\n"
		   "{\"g\": \"LINESTRING (0 0, 1.5 -1)\", \"h\": [1, 1, 0, 0, 0, 0, 0, 0, 0]}\n");
	expect(t, "/rows.csv", "g,h\nPOINT (1 2),POINT (-122.5 37.25)\n"
			      "\"LINESTRING (0 0, 1.5 -1)\",\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\n");
	expect_has(t, "/statistics.json", "\"geospatialStatistics\"");
	expect_has(t, "/statistics.json", "\"xmax\": 1.5");
	expect_has(t, "/statistics.json", "\"geospatial_types\"");
	expect_has(t, "/footer.json", "\"algorithm\": \"KARNEY\"");
	expect_has(t, "/stripes/0/indexes/1/bloom_filter.json",
		   "\"field_1\": 10000");
	expect_has(t, "/stripes/0/indexes/1/bloom_filter.json",
		   "\"field_2\": 0.05");
	expect_has(t, "/stripes/0/indexes/1/bloom_filter.json",
		   "\"layout\": \"older");
	expect_has(t, "/stripes/0/indexes/1/bloom_filter.json",
		   "9223372036854775808");
	/* the malformed value filed under its stripe, at h's DATA stream */
	{
		char want[256];

		snprintf(want, sizeof want, "/stripes/0: offset %zu (0x%zx): corrupt: column 2, row 1 of the stripe: malformed WKB (WKB ends inside a point, byte 5 of the value): shown as its bytes\n",
			 h_data_at, h_data_at);
		expect(t, "/errors", want);
		expect(t, "/stripes/0/errors", want);
	}
	colfs_tree_destroy(t);
	unlink(path);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("ok\n");
	return failures ? 1 : 0;
}

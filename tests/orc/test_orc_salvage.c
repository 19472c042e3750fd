/* tests/orc: salvage of ORC files whose tail is lost.
 *
 *   test_orc_salvage generated
 *   test_orc_salvage corpus CORPUS_DIR
 *
 * A healthy file (written by orc_gen.c, also rewritten as ZLIB in 64-byte
 * compression chunks so that its stripe footers span several chunks, or
 * read from the corpus) is
 * damaged in a temporary copy: truncated in the middle of its last stripe,
 * truncated right after its last stripe, or with its PostScript length
 * byte zeroed.  The damaged copy must open; with schema_from= the healthy
 * file, salvage/ must recover exactly the intact stripes, with the same
 * rows (rows.jsonl, per stripe and over all), columns and stream bytes as
 * the healthy file; without schema_from salvage/summary must say that it
 * is needed; the damaged copy must not change.  The corpus mode exits 77
 * (skip) when the corpus is missing. */
#define ORC_GEN_NO_MAIN
#include "orc_gen.c"

#include <colfs.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static int failures;

#define FAIL(...)                                                           \
	do {                                                                \
		fprintf(stderr, "FAIL: " __VA_ARGS__);                      \
		fputc('\n', stderr);                                        \
		failures++;                                                 \
	} while (0)

typedef struct blob {
	char *data;
	size_t len;
} blob;

static bool read_path(colfs_tree *t, const char *path, blob *out)
{
	colfs_node *n;
	colfs_handle *h;
	size_t cap = 1 << 16, got;

	out->len = 0;
	out->data = NULL;
	if (colfs_tree_resolve(t, path, &n) || colfs_node_open(t, n, &h))
		return false;
	out->data = malloc(cap);
	for (;;) {
		if (out->len + 65536 > cap)
			out->data = realloc(out->data, cap *= 2);
		if (colfs_handle_read(h, out->len, 65536,
				      out->data + out->len, &got)) {
			colfs_handle_close(h);
			free(out->data);
			out->data = NULL;
			return false;
		}
		out->len += got;
		if (got < 65536)
			break;
	}
	colfs_handle_close(h);
	return true;
}

static bool read_file(const char *path, blob *out)
{
	FILE *fp = fopen(path, "rb");
	long n;

	out->data = NULL;
	out->len = 0;
	if (!fp)
		return false;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	out->data = malloc(n > 0 ? (size_t)n : 1);
	out->len = fread(out->data, 1, (size_t)n, fp);
	fclose(fp);
	return out->len == (size_t)n;
}

static bool write_file(const char *path, const void *p, size_t n)
{
	FILE *fp = fopen(path, "wb");
	bool ok = fp && fwrite(p, 1, n, fp) == n;

	if (fp && fclose(fp) != 0)
		ok = false;
	return ok;
}

/* Stripe offsets and ends of the healthy file, from its summary. */
static size_t stripe_extents(colfs_tree *t, uint64_t *off, uint64_t *end,
			     uint64_t *flen, size_t max)
{
	blob b;
	size_t n = 0;
	char *line;

	if (!read_path(t, "summary", &b))
		return 0;
	b.data = realloc(b.data, b.len + 1);
	b.data[b.len] = '\0';
	for (line = b.data; line && *line; line = strchr(line, '\n')) {
		unsigned long long rows, o, l, ix, d, fl;
		size_t s;

		if (*line == '\n')
			line++;
		if (sscanf(line, "stripe %zu: rows %llu offset %llu length %llu "
			   "index %llu data %llu footer %llu",
			   &s, &rows, &o, &l, &ix, &d, &fl) == 7 && s == n &&
		    n < max) {
			off[n] = o;
			end[n] = o + l;
			flen[n] = fl;
			n++;
		}
	}
	free(b.data);
	return n;
}

static void expect_same(colfs_tree *h, const char *hpath, colfs_tree *d,
			const char *dpath, const char *label)
{
	blob a, b;

	if (!read_path(h, hpath, &a)) {
		FAIL("%s: healthy %s cannot be read", label, hpath);
		return;
	}
	if (!read_path(d, dpath, &b)) {
		FAIL("%s: %s cannot be read", label, dpath);
		free(a.data);
		return;
	}
	if (a.len != b.len || memcmp(a.data, b.data, a.len))
		FAIL("%s: %s (%zu bytes) differs from the healthy %s (%zu "
		     "bytes)", label, dpath, b.len, hpath, a.len);
	free(a.data);
	free(b.data);
}

static bool contains(colfs_tree *t, const char *path, const char *text)
{
	blob b;
	bool found;

	if (!read_path(t, path, &b))
		return false;
	b.data = realloc(b.data, b.len + 1);
	b.data[b.len] = '\0';
	found = strstr(b.data, text) != NULL;
	free(b.data);
	return found;
}

/* Damage a copy of `good` (`keep` bytes of it; `zero_last`: zero its last
 * byte) and check what salvage recovers: `want` stripes. */
static void check_damaged(const char *good, colfs_tree *healthy,
			  const blob *g, size_t keep, bool zero_last,
			  uint64_t zero_from, uint64_t zero_len, size_t skip,
			  size_t want, const char *label)
{
	char path[] = "/tmp/colfs-orc-salvXXXXXX";
	int fd = mkstemp(path);
	colfs_options opts = {0};
	colfs_tree *t;
	char why[256], buf[64], hp[96], dp[128];
	blob before, after, all;
	colfs_node *n;
	size_t lines = 0;

	if (fd < 0) {
		FAIL("%s: mkstemp", label);
		return;
	}
	close(fd);
	before.data = malloc(keep ? keep : 1);
	memcpy(before.data, g->data, keep);
	before.len = keep;
	if (zero_last && keep)
		before.data[keep - 1] = 0;
	if (zero_len)
		memset(before.data + zero_from, 0, (size_t)zero_len);
	if (!write_file(path, before.data, before.len)) {
		FAIL("%s: cannot write %s", label, path);
		goto out;
	}

	/* without schema_from: mounts, says what is needed */
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why))) {
		FAIL("%s: damaged copy does not open: %s", label, why);
		goto out;
	}
	if (!contains(t, "errors", "the file tail (PostScript and Footer) "
				   "cannot be read"))
		FAIL("%s: errors does not name the lost tail", label);
	if (!contains(t, "salvage/summary", "schema_from is needed"))
		FAIL("%s: salvage/summary does not ask for schema_from",
		     label);
	if (colfs_tree_resolve(t, "salvage/rows.jsonl", &n) == COLFS_OK)
		FAIL("%s: salvage/rows.jsonl without a schema", label);
	colfs_tree_destroy(t);

	/* with schema_from */
	opts.schema_from = good;
	if (colfs_tree_open(path, &opts, &t, why, sizeof(why))) {
		FAIL("%s: damaged copy does not open with schema_from: %s",
		     label, why);
		goto out;
	}
	snprintf(buf, sizeof(buf), "stripes recovered: %zu\n", want);
	if (!contains(t, "salvage/summary", buf))
		FAIL("%s: salvage/summary does not say \"%.*s\"", label,
		     (int)strlen(buf) - 1, buf);
	snprintf(dp, sizeof(dp), "salvage/stripes/%zu", want);
	if (colfs_tree_resolve(t, dp, &n) == COLFS_OK)
		FAIL("%s: %s exists: a damaged stripe was recovered", label,
		     dp);
	all.data = NULL;
	all.len = 0;
	for (size_t s = 0; s < want; s++) {
		blob r;
		/* healthy stripe of salvaged stripe s (`skip` is lost) */
		size_t hs = s < skip ? s : s + 1;

		snprintf(hp, sizeof(hp), "stripes/%zu/rows.jsonl", hs);
		snprintf(dp, sizeof(dp), "salvage/stripes/%zu/rows.jsonl", s);
		expect_same(healthy, hp, t, dp, label);
		snprintf(hp, sizeof(hp), "stripes/%zu/rows.csv", hs);
		snprintf(dp, sizeof(dp), "salvage/stripes/%zu/rows.csv", s);
		expect_same(healthy, hp, t, dp, label);
		if (hs == s) {
			/* info.json has the stripe number and first row */
			snprintf(hp, sizeof(hp), "stripes/%zu/info.json", s);
			snprintf(dp, sizeof(dp),
				 "salvage/stripes/%zu/info.json", s);
			expect_same(healthy, hp, t, dp, label);
		}
		snprintf(hp, sizeof(hp), "stripes/%zu/rows.jsonl", hs);
		if (read_path(healthy, hp, &r)) {
			all.data = realloc(all.data, all.len + r.len + 1);
			memcpy(all.data + all.len, r.data, r.len);
			all.len += r.len;
			free(r.data);
		}
	}
	{
		blob sr;

		if (!read_path(t, "salvage/rows.jsonl", &sr)) {
			FAIL("%s: salvage/rows.jsonl cannot be read", label);
		} else {
			for (size_t i = 0; i < sr.len; i++)
				lines += sr.data[i] == '\n';
			if (sr.len != all.len ||
			    memcmp(sr.data, all.data, all.len))
				FAIL("%s: salvage/rows.jsonl (%zu bytes, %zu "
				     "lines) differs from the healthy "
				     "stripes' rows (%zu bytes)", label,
				     sr.len, lines, all.len);
			free(sr.data);
		}
	}
	if (skip != SIZE_MAX &&
	    !contains(t, "errors", "bytes are not part of a recovered stripe"))
		FAIL("%s: errors does not name the lost stripe's bytes", label);
	/* the first stripe's footer and streams, byte for byte */
	expect_same(healthy, "stripes/0/footer.json", t,
		    "salvage/stripes/0/footer.json", label);
	if (colfs_tree_resolve(healthy, "stripes/0/streams", &n) == COLFS_OK) {
		colfs_node *const *kids;
		size_t nk = 0;

		if (colfs_dir_list(healthy, n, &kids, &nk) || nk == 0)
			FAIL("%s: healthy stripes/0/streams is empty", label);
		for (size_t i = 0; i < nk; i++) {
			snprintf(hp, sizeof(hp), "stripes/0/streams/%s/raw",
				 colfs_node_name(kids[i]));
			snprintf(dp, sizeof(dp), "salvage/%s", hp);
			expect_same(healthy, hp, t, dp, label);
			snprintf(hp, sizeof(hp),
				 "stripes/0/streams/%s/decompressed",
				 colfs_node_name(kids[i]));
			snprintf(dp, sizeof(dp), "salvage/%s", hp);
			expect_same(healthy, hp, t, dp, label);
		}
	}
	colfs_tree_destroy(t);

	/* salvage is read-only */
	if (!read_file(path, &after) || after.len != before.len ||
	    memcmp(after.data, before.data, before.len))
		FAIL("%s: the damaged file changed", label);
	free(after.data);
	if (!failures)
		printf("%s: %zu stripes, %zu rows recovered\n", label, want,
		       lines);
	free(all.data);
out:
	free(before.data);
	unlink(path);
}

/* Damage `good` three ways. */
static void check_file(const char *good, const char *name)
{
	colfs_tree *h;
	char why[256], label[300];
	uint64_t off[4096], end[4096], flen[4096];
	size_t n;
	blob g;

	if (colfs_tree_open(good, NULL, &h, why, sizeof(why))) {
		FAIL("%s: healthy file does not open: %s", name, why);
		return;
	}
	n = stripe_extents(h, off, end, flen, 4096);
	if (n < 2 || !read_file(good, &g)) {
		FAIL("%s: needs at least 2 stripes (has %zu)", name, n);
		colfs_tree_destroy(h);
		return;
	}
	snprintf(label, sizeof(label), "%s cut in the last stripe", name);
	check_damaged(good, h, &g, (size_t)(off[n - 1] + end[n - 1]) / 2,
		      false, 0, 0, SIZE_MAX, n - 1, label);
	snprintf(label, sizeof(label), "%s cut after the last stripe", name);
	check_damaged(good, h, &g, (size_t)end[n - 1], false, 0, 0, SIZE_MAX,
		      n, label);
	snprintf(label, sizeof(label), "%s with its PostScript length zeroed",
		 name);
	check_damaged(good, h, &g, g.len, true, 0, 0, SIZE_MAX, n, label);
	snprintf(label, sizeof(label), "%s without its tail and stripe 1's "
		 "footer", name);
	check_damaged(good, h, &g, (size_t)end[n - 1], false,
		      end[1] - flen[1], flen[1], 1, n - 1, label);
	free(g.data);
	colfs_tree_destroy(h);
}

/* --- a compressed copy with a small block size ------------------------------ */

/* Append `n` bytes to `out` in ORC compression chunks of at most `block`
 * bytes each: raw deflate when it is smaller, else stored (original). */
static void put_chunked(wbuf *out, const uint8_t *p, size_t n, size_t block)
{
	uint8_t z[1024];

	for (size_t i = 0; i < n; i += block) {
		size_t k = n - i < block ? n - i : block, zl = 0;
		z_stream zs = {0};
		uint32_t h;

		if (k <= sizeof(z) - 64 &&
		    deflateInit2(&zs, 9, Z_DEFLATED, -15, 8,
				 Z_DEFAULT_STRATEGY) == Z_OK) {
			zs.next_in = (Bytef *)(p + i);
			zs.avail_in = (uInt)k;
			zs.next_out = z;
			zs.avail_out = sizeof(z);
			if (deflate(&zs, Z_FINISH) == Z_STREAM_END)
				zl = zs.total_out;
			deflateEnd(&zs);
		}
		if (zl && zl < k) {
			h = (uint32_t)zl << 1;
			put(out, &(uint8_t[3]){(uint8_t)h, (uint8_t)(h >> 8),
					       (uint8_t)(h >> 16)}, 3);
			put(out, z, zl);
		} else {
			h = (uint32_t)k << 1 | 1;
			put(out, &(uint8_t[3]){(uint8_t)h, (uint8_t)(h >> 8),
					       (uint8_t)(h >> 16)}, 3);
			put(out, p + i, k);
		}
	}
}

/* Rewrite an uncompressed ORC file without row indexes (orc_gen's) as a
 * ZLIB file with compression block size `block`: every stream, stripe
 * footer, the Metadata and the Footer in chunks.  With a block smaller
 * than the stripe footers, each footer spans several chunks. */
static bool reframe(const blob *in, const char *out_path, size_t block)
{
	const uint8_t *b = (const uint8_t *)in->data;
	size_t n = in->len, ps_len, foot_at, meta_at;
	Orcpb__PostScript *ps;
	Orcpb__Footer *ft;
	wbuf out = {0};
	bool ok = false;
	uint8_t *packed;
	size_t plen;

	if (n < 4)
		return false;
	ps_len = b[n - 1];
	ps = orcpb__post_script__unpack(NULL, ps_len, b + n - 1 - ps_len);
	if (!ps || ps->compression != ORCPB__COMPRESSION_KIND__NONE)
		return false;
	foot_at = n - 1 - ps_len - (size_t)ps->footerlength;
	meta_at = foot_at - (size_t)ps->metadatalength;
	ft = orcpb__footer__unpack(NULL, (size_t)ps->footerlength, b + foot_at);
	if (!ft)
		goto out;
	put(&out, "ORC", 3);
	for (size_t k = 0; k < ft->n_stripes; k++) {
		Orcpb__StripeInformation *si = ft->stripes[k];
		const uint8_t *sp = b + si->offset;
		uint64_t at = 0, new_off = out.len, data_len = 0;
		Orcpb__StripeFooter *sf = orcpb__stripe_footer__unpack(
			NULL, (size_t)si->footerlength,
			sp + si->indexlength + si->datalength);

		if (!sf || si->indexlength)
			goto out;
		for (size_t j = 0; j < sf->n_streams; j++) {
			size_t before = out.len;

			put_chunked(&out, sp + at, (size_t)sf->streams[j]->length,
				    block);
			at += sf->streams[j]->length;
			sf->streams[j]->length = out.len - before;
			data_len += sf->streams[j]->length;
		}
		plen = orcpb__stripe_footer__get_packed_size(sf);
		packed = malloc(plen);
		orcpb__stripe_footer__pack(sf, packed);
		{
			size_t before = out.len;

			put_chunked(&out, packed, plen, block);
			si->footerlength = out.len - before;
		}
		free(packed);
		orcpb__stripe_footer__free_unpacked(sf, NULL);
		si->offset = new_off;
		si->datalength = data_len;
	}
	{
		size_t before = out.len;

		put_chunked(&out, b + meta_at, (size_t)ps->metadatalength,
			    block);
		ps->metadatalength = out.len - before;
	}
	ft->has_contentlength = true;
	ft->contentlength = out.len;
	plen = orcpb__footer__get_packed_size(ft);
	packed = malloc(plen);
	orcpb__footer__pack(ft, packed);
	{
		size_t before = out.len;

		put_chunked(&out, packed, plen, block);
		ps->footerlength = out.len - before;
	}
	free(packed);
	ps->compression = ORCPB__COMPRESSION_KIND__ZLIB;
	ps->has_compression = true;
	ps->compressionblocksize = block;
	ps->has_compressionblocksize = true;
	plen = orcpb__post_script__get_packed_size(ps);
	packed = malloc(plen);
	orcpb__post_script__pack(ps, packed);
	put(&out, packed, plen);
	put_u8(&out, (uint8_t)plen);
	free(packed);
	ok = write_file(out_path, out.p, out.len);
out:
	free(out.p);
	if (ft)
		orcpb__footer__free_unpacked(ft, NULL);
	orcpb__post_script__free_unpacked(ps, NULL);
	return ok;
}

static int run_generated(void)
{
	char path[] = "/tmp/colfs-orc-salvgenXXXXXX";
	int fd = mkstemp(path);
	colfs_options opts = {0};
	colfs_tree *t;
	char why[256];

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	if (orc_gen_write(path, 123457, 25000))
		return 1;
	check_file(path, "generated");

	/* ZLIB in 64-byte chunks: every stripe footer spans two chunks */
	{
		char z[] = "/tmp/colfs-orc-salvzlibXXXXXX";
		blob g;

		fd = mkstemp(z);
		close(fd);
		if (!orc_gen_write(z, 20000, 5000) && read_file(z, &g) &&
		    reframe(&g, z, 64))
			check_file(z, "generated, ZLIB in 64-byte chunks");
		else
			FAIL("the ZLIB copy could not be written");
		free(g.data);
		unlink(z);
	}

	/* a schema_from that is not there: reported, the mount stands */
	{
		char cut[] = "/tmp/colfs-orc-salvcutXXXXXX";
		blob g;

		fd = mkstemp(cut);
		close(fd);
		if (read_file(path, &g) && write_file(cut, g.data, g.len / 2)) {
			opts.schema_from = "/nonexistent/colfs-schema.orc";
			if (colfs_tree_open(cut, &opts, &t, why, sizeof(why))) {
				FAIL("missing schema_from: open fails: %s",
				     why);
			} else {
				if (!contains(t, "salvage/summary",
					      "cannot be opened"))
					FAIL("missing schema_from: summary "
					     "does not say so");
				if (!contains(t, "errors", "salvage: "
							   "schema_from file"))
					FAIL("missing schema_from: not in "
					     "errors");
				colfs_tree_destroy(t);
			}
			/* salvage_effort multiplies the scan's caps */
			opts.schema_from = path;
			opts.salvage_effort = 2;
			if (colfs_tree_open(cut, &opts, &t, why, sizeof(why))) {
				FAIL("salvage_effort=2: open fails: %s", why);
			} else {
				if (!contains(t, "salvage/summary",
					      "(cap 8388608), candidates cap "
					      "131072"))
					FAIL("salvage_effort=2: the summary "
					     "does not show the doubled caps");
				colfs_tree_destroy(t);
			}
			opts.salvage_effort = 0;
		}
		free(g.data);
		unlink(cut);
	}
	unlink(path);
	return failures ? 1 : 0;
}

static int run_corpus(const char *dir)
{
	static const char *const files[] = {
		"TestOrcFile.testSeek.orc",          /* ZLIB, row index */
		"TestOrcFile.testWithoutIndex.orc",  /* SNAPPY, no index */
		"TestOrcFile.columnProjection.orc",  /* NONE, row index */
		"TestOrcFile.testMemoryManagementV11.orc", /* NONE, 25 */
		"TestVectorOrcFile.testLzo.orc",     /* LZO */
	};
	char path[4096];
	struct stat st;
	size_t done = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(path, sizeof(path), "%s/orc/good/%s", dir, files[i]);
		if (stat(path, &st) != 0)
			continue;
		check_file(path, files[i]);
		done++;
	}
	if (!done) {
		printf("corpus not found at %s/orc/good: skipping\n", dir);
		return 77;
	}
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "generated"))
		return run_generated();
	if (argc >= 3 && !strcmp(argv[1], "corpus"))
		return run_corpus(argv[2]);
	fprintf(stderr, "usage: %s generated | corpus CORPUS_DIR\n", argv[0]);
	return 2;
}

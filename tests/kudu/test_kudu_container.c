/* Kudu log block containers (docs/kudu-tree.md): a container holding a
 * CFile of every type x legal encoding of the writer's matrix (versions 1
 * and 2, deleted and punched blocks); each blocks/<id>/ must equal the
 * tree of the same CFile opened alone, file for file.  Then damaged
 * metadata and data: clear problems, intact blocks readable, walks that
 * end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfile/cfile.h"
#include "cft.h"
#include "cw.h"
#include "kcw.h"

static int failures;

#define FAIL(...)                                                          \
	do {                                                               \
		printf("FAIL " __VA_ARGS__);                               \
		printf("\n");                                              \
		failures++;                                                \
	} while (0)

static char *read_all(colfs_tree *t, colfs_node *n, size_t *len)
{
	colfs_handle *h;
	size_t have = 0, cap = 65536;
	char *buf = malloc(cap + 1);
	if (!buf || colfs_node_open(t, n, &h)) {
		free(buf);
		return NULL;
	}
	for (;;) {
		size_t got = 0;
		if (have == cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		if (colfs_handle_read(h, have, cap - have, buf + have, &got)) {
			colfs_handle_close(h);
			free(buf);
			return NULL;
		}
		if (!got)
			break;
		have += got;
	}
	colfs_handle_close(h);
	buf[have] = 0;
	*len = have;
	return buf;
}

/* Are the trees under `a` (in ta) and `b` (in tb) the same, name for name,
 * kind for kind, byte for byte?  Reports the first difference. */
/* Drop lines 3 and 6 of an SVG of `*len` bytes in place (the lines that
 * name the file). */
static void svg_unname(char *d, size_t *len)
{
	size_t w = 0, line = 1;

	for (size_t r = 0; r < *len; r++) {
		if (line != 3 && line != 6)
			d[w++] = d[r];
		if (d[r] == '\n')
			line++;
	}
	*len = w;
}

static bool same_tree(colfs_tree *ta, colfs_node *a, colfs_tree *tb,
		      colfs_node *b, const char *path, const char *label)
{
	colfs_node *const *ka, *const *kb;
	size_t na, nb;
	if (colfs_dir_list(ta, a, &ka, &na) != colfs_dir_list(tb, b, &kb, &nb)) {
		FAIL("%s: %s: listing differs", label, path);
		return false;
	}
	if (na != nb) {
		FAIL("%s: %s: %zu entries, alone %zu", label, path, na, nb);
		return false;
	}
	for (size_t i = 0; i < na; i++) {
		char p[1024];
		snprintf(p, sizeof p, "%s/%s", path, colfs_node_name(ka[i]));
		if (strcmp(colfs_node_name(ka[i]), colfs_node_name(kb[i])) ||
		    colfs_node_content(ka[i]) != colfs_node_content(kb[i])) {
			FAIL("%s: %s: is %s alone", label, p,
			     colfs_node_name(kb[i]));
			return false;
		}
		if (colfs_node_is_dir(ka[i])) {
			if (!same_tree(ta, ka[i], tb, kb[i], p, label))
				return false;
			continue;
		}
		size_t la = 0, lb = 0;
		char *da = read_all(ta, ka[i], &la);
		char *db = read_all(tb, kb[i], &lb);
		/* A README's first line names the file: the block's name
		 * in the container, the file's path alone. */
		size_t skip_a = 0, skip_b = 0;
		if (da && db && !strcmp(colfs_node_name(ka[i]), "README")) {
			skip_a = strcspn(da, "\n");
			skip_b = strcspn(db, "\n");
			if ((skip_a != skip_b || memcmp(da, db, skip_a)) &&
			    !strstr(da, " block "))
				FAIL("%s: %s: first line %.*s", label, p,
				     (int)skip_a, da);
		}
		/* layout.svg names the file in its lines 3 (<title>) and 6
		 * (the heading): compare the rest. */
		size_t drop_a = 0, drop_b = 0;
		if (da && db && !strcmp(colfs_node_name(ka[i]), "layout.svg")) {
			drop_a = la;
			drop_b = lb;
			svg_unname(da, &la);
			svg_unname(db, &lb);
			drop_a -= la;
			drop_b -= lb;
		}
		bool eq = (!da && !db) ||
			  (da && db && la - skip_a == lb - skip_b &&
			   !memcmp(da + skip_a, db + skip_b, la - skip_a));
		free(da);
		free(db);
		if (!eq) {
			FAIL("%s: %s: %zu bytes, alone %zu (or differ)", label,
			     p, la, lb);
			return false;
		}
		uint64_t sa, sb;
		bool ea, eb;
		if (!colfs_node_size(ta, ka[i], &sa, &ea) &&
		    !colfs_node_size(tb, kb[i], &sb, &eb) && ea && eb &&
		    sa - skip_a - drop_a != sb - skip_b - drop_b) {
			FAIL("%s: %s: size %llu, alone %llu", label, p,
			     (unsigned long long)sa, (unsigned long long)sb);
			return false;
		}
	}
	return true;
}

static colfs_tree *open_or_fail(const char *path, const char *label)
{
	colfs_tree *t;
	char why[512];
	if (colfs_tree_open(path, NULL, &t, why, sizeof why)) {
		FAIL("%s: open %s: %s", label, path, why);
		return NULL;
	}
	return t;
}

static bool has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle);
}

static char *read_path(colfs_tree *t, const char *path)
{
	return cft_read(t, path, NULL);
}

typedef struct shape {
	char path[600];
	uint64_t id;
	bool deleted, punched;
} shape;

/* The matrix container: every type x legal encoding, compression and
 * nullability varying, a DeltaFile and a BloomFile; between them junk
 * blocks that are deleted (every other one punched). */
static void matrix(const char *dir, int version)
{
	char stem[600], label[64];
	shape *s = calloc(512, sizeof *s);
	size_t ns = 0;
	kcw c;
	snprintf(stem, sizeof stem, "%s/m%d", dir, version);
	snprintf(label, sizeof label, "matrix v%d", version);
	if (!s || kcw_open(&c, stem, version)) {
		FAIL("%s: writer open", label);
		free(s);
		return;
	}
	int k = 0;
	for (int32_t type = 0; type < CFILE_TYPE_COUNT; type++) {
		const cfile_type_info *ti = cfile_types_get(type);
		if (!ti)
			continue;
		for (int32_t enc = 1; enc <= CFILE_ENCODING_COUNT; enc++) {
			cw_params p;
			char why[256];
			cw_params_default(&p);
			if (enc == CFILE_ENCODING_COUNT) {
				if (type != 0)
					continue;
				p.role = CW_DELTA; /* one DeltaFile */
				p.count = 300;
			} else if (!cfile_types_encoding_legal(type, enc)) {
				continue;
			} else {
				p.type = type;
				p.encoding = enc;
				p.count = 300 + (uint32_t)k * 7;
			}
			p.compression = CFILE_NO_COMPRESSION + k % 4;
			p.nullable = p.role == CW_COLUMN && k % 2;
			p.version = version == 1 ? 1 : 2;
			p.checksums = version == 2 && k % 3 != 2;
			p.block_rows = 64 + (uint32_t)k % 50;
			p.seed = (uint32_t)k;
			shape *x = &s[ns++];
			snprintf(x->path, sizeof x->path, "%s/b%d.cfile", dir, k);
			x->id = 1000000 + (uint64_t)k * 17;
			if (cw_write(&p, x->path, NULL, why, sizeof why)) {
				FAIL("%s: cw_write: %s", label, why);
				ns--;
				continue;
			}
			size_t len;
			char *bytes = testio_slurp(x->path, &len);
			if (!bytes || kcw_add(&c, x->id, bytes, len))
				FAIL("%s: kcw_add", label);
			free(bytes);
			if (k % 4 == 1) { /* a block that is deleted */
				shape *j = &s[ns++];
				char junk[5000];
				memset(junk, 0x5a, sizeof junk);
				j->id = 77000 + (uint64_t)k;
				j->deleted = true;
				j->punched = k % 8 == 1;
				if (kcw_add(&c, j->id, junk, sizeof junk) ||
				    kcw_delete(&c, j->id, j->punched))
					FAIL("%s: kcw delete", label);
			}
			k++;
		}
	}
	if (kcw_close(&c))
		FAIL("%s: writer close", label);

	char data[700], meta[700];
	snprintf(data, sizeof data, "%s.data", stem);
	snprintf(meta, sizeof meta, "%s.metadata", stem);
	colfs_tree *t = open_or_fail(data, label);
	colfs_tree *tm = open_or_fail(meta, label);
	if (!t || !tm)
		goto out;
	size_t live = 0, deleted = 0;
	for (size_t i = 0; i < ns; i++) {
		char p[128], lab[700];
		colfs_node *n;
		snprintf(lab, sizeof lab, "%s block %016llu", label,
			 (unsigned long long)s[i].id);
		snprintf(p, sizeof p, "blocks/%016llu", (unsigned long long)s[i].id);
		bool in_blocks = colfs_tree_resolve(t, p, &n) == COLFS_OK;
		if (s[i].deleted) {
			deleted++;
			if (in_blocks)
				FAIL("%s: deleted, yet under blocks/", lab);
			snprintf(p, sizeof p, "deleted/%016llu/raw",
				 (unsigned long long)s[i].id);
			bool raw = colfs_tree_resolve(t, p, &n) == COLFS_OK;
			if (raw == s[i].punched)
				FAIL("%s: deleted/%016llu/raw %s", lab,
				     (unsigned long long)s[i].id,
				     raw ? "shown for a punched block"
					 : "missing for an unpunched one");
			snprintf(p, sizeof p, "deleted/%016llu/block.json",
				 (unsigned long long)s[i].id);
			char *j = read_path(t, p);
			if (!has(j, s[i].punched ? "\"punched\": true"
						 : "\"punched\": false"))
				FAIL("%s: block.json: %s", lab, j ? j : "(none)");
			free(j);
			continue;
		}
		live++;
		if (!in_blocks) {
			FAIL("%s: not under blocks/", lab);
			continue;
		}
		colfs_tree *alone = open_or_fail(s[i].path, lab);
		if (!alone)
			continue;
		same_tree(t, n, alone, colfs_tree_root(alone), p, lab);
		/* the same through the .metadata name (version 2; version
		 * 1 takes the same path) */
		colfs_node *nm;
		if (version == 2 &&
		    (colfs_tree_resolve(tm, p, &nm) ||
		     !same_tree(tm, nm, alone, colfs_tree_root(alone), p, lab)))
			FAIL("%s: through the .metadata name", lab);
		colfs_tree_destroy(alone);
	}
	char *errs = read_path(t, "errors");
	if (!errs || errs[0])
		FAIL("%s: errors: %s", label, errs ? errs : "(none)");
	free(errs);
	char *sum = read_path(t, "summary");
	char want[128];
	snprintf(want, sizeof want, "live blocks: %zu", live);
	if (!has(sum, want))
		FAIL("%s: summary lacks '%s': %s", label, want, sum ? sum : "");
	snprintf(want, sizeof want, "deleted blocks: %zu", deleted);
	if (!has(sum, want))
		FAIL("%s: summary lacks '%s'", label, want);
	free(sum);
	char *lay = read_path(t, "layout");
	if (!has(lay, " block /blocks/") || !has(lay, " padding -") ||
	    !has(lay, " punched_block /deleted/") ||
	    !has(lay, " deleted_block /deleted/"))
		FAIL("%s: layout: %s", label, lay ? lay : "(none)");
	free(lay);
	char *rec = read_path(t, "records/1.json");
	if (!has(rec, "\"op_type\": \"CREATE\"") || !has(rec, "\"block\": \"0000000001000000\""))
		FAIL("%s: records/1.json: %s", label, rec ? rec : "(none)");
	free(rec);
	printf("%s: %zu live blocks, %zu deleted\n", label, live, deleted);
out:
	colfs_tree_destroy(t);
	colfs_tree_destroy(tm);
	free(s);
}

/* A small healthy container of three CFiles (ids 1, 2, 3) and the bytes of
 * the first. */
static void small(const char *dir, const char *name, int version,
		  char *stem, size_t stem_len)
{
	kcw c;
	snprintf(stem, stem_len, "%s/%s", dir, name);
	if (kcw_open(&c, stem, version)) {
		FAIL("%s: writer", name);
		return;
	}
	for (int i = 1; i <= 3; i++) {
		cw_params p;
		char path[700], exp[700], why[256];
		cw_params_default(&p);
		(void)i; /* INT32 PLAIN, the default */
		p.count = 500;
		p.seed = (uint32_t)i;
		p.version = version == 1 ? 1 : 2;
		p.checksums = version != 1;
		snprintf(path, sizeof path, "%s.%d.cfile", stem, i);
		snprintf(exp, sizeof exp, "%s.%d.txt", stem, i);
		size_t len;
		char *b;
		if (cw_write(&p, path, exp, why, sizeof why) ||
		    !(b = testio_slurp(path, &len)) || kcw_add(&c, (uint64_t)i, b, len))
			FAIL("%s: write block %d", name, i);
		else
			free(b);
	}
	kcw_close(&c);
}

static void flip(const char *path, long off, uint8_t mask)
{
	FILE *f = fopen(path, "r+b");
	if (!f)
		return;
	fseek(f, off < 0 ? off : off, off < 0 ? SEEK_END : SEEK_SET);
	int ch = fgetc(f);
	fseek(f, -1, SEEK_CUR);
	fputc(ch ^ mask, f);
	fclose(f);
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* Block `i` of the small container reads its values. */
static void values_ok(colfs_tree *t, const char *stem, int i, const char *label)
{
	char p[64], exp[700];
	snprintf(p, sizeof p, "blocks/%016d/values", i);
	snprintf(exp, sizeof exp, "%s.%d.txt", stem, i);
	size_t gl = 0, wl = 0;
	char *got = cft_read(t, p, &gl);
	char *want = testio_slurp(exp, &wl);
	if (!got || !want || gl != wl || memcmp(got, want, gl))
		FAIL("%s: block %d values differ", label, i);
	free(got);
	free(want);
}

/* Open, check `errors` holds `want`, the blocks in `intact` read right,
 * walk everything. */
static void damaged(const char *stem, const char *label, const char *want,
		    const int *intact, size_t nintact)
{
	char data[700];
	snprintf(data, sizeof data, "%s.data", stem);
	colfs_tree *t = open_or_fail(data, label);
	if (!t)
		return;
	for (size_t i = 0; i < nintact; i++)
		values_ok(t, stem, intact[i], label);
	cft_walk(t);
	char *errs = read_path(t, "errors");
	if (!has(errs, want))
		FAIL("%s: errors lack '%s':\n%s", label, want, errs ? errs : "");
	else {
		const char *line = strstr(errs, want);
		while (line > errs && line[-1] != '\n')
			line--;
		printf("%s: ok: %.*s\n", label, (int)strcspn(line, "\n"),
		       line);
	}
	free(errs);
	colfs_tree_destroy(t);
}

static void damage(const char *dir)
{
	char stem[600], meta[700], data[700];
	static const int all[] = {1, 2, 3};
	static const int first_two[] = {1, 2};

	/* a flipped byte in record 2's body (v2): its checksum fails,
	 * blocks 1 and 3 stay */
	small(dir, "flip2", 2, stem, sizeof stem);
	snprintf(meta, sizeof meta, "%s.metadata", stem);
	/* header 16, sup header 8+22+4=34 -> record 1 at 50, 8+~22+4;
	 * record 2 starts at 50+34=84: its body at 92 */
	long rec = 16 + 8 + 22 + 4;
	long rlen = 8 + 4;
	FILE *f = fopen(meta, "rb");
	uint8_t l4[4] = {0};
	if (f) {
		fseek(f, rec, SEEK_SET);
		if (fread(l4, 1, 4, f) != 4)
			FAIL("read");
		fclose(f);
	}
	rlen += l4[0];
	flip(meta, rec + rlen + 8 + 3, 0x40);
	damaged(stem, "v2 record body flipped",
		"/records/2: offset unknown: corrupt: metadata file offset",
		(const int[]){1, 3}, 2);

	/* a flipped length (v2): the length checksum stops the framing */
	small(dir, "flipl", 2, stem, sizeof stem);
	snprintf(meta, sizeof meta, "%s.metadata", stem);
	flip(meta, rec + rlen, 0x01);
	damaged(stem, "v2 length flipped", "length checksum mismatch", all, 1);

	/* v1: a flipped body byte */
	small(dir, "flipv1", 1, stem, sizeof stem);
	snprintf(meta, sizeof meta, "%s.metadata", stem);
	flip(meta, -6, 0x10);
	damaged(stem, "v1 last record flipped", "record checksum mismatch",
		first_two, 2);

	/* the last record cut short */
	small(dir, "trunc", 2, stem, sizeof stem);
	snprintf(meta, sizeof meta, "%s.metadata", stem);
	if (truncate(meta, file_size(meta) - 5))
		FAIL("truncate");
	damaged(stem, "truncated last record", "truncated last record",
		first_two, 2);

	/* a torn write: a record of zero bytes at the end */
	{
		kcw c;
		small(dir, "zeros", 2, stem, sizeof stem);
		snprintf(meta, sizeof meta, "%s.metadata", stem);
		FILE *z = fopen(meta, "ab");
		static const uint8_t zero[20];
		if (z) {
			fwrite(zero, 1, sizeof zero, z);
			fclose(z);
		}
		(void)c;
		damaged(stem, "zero tail", "the rest of the file is zero bytes",
			all, 3);
	}

	/* records pointing past the data file, a DELETE of an unknown
	 * block, a CREATE of an existing one, an overlap, an unknown op */
	{
		kcw c;
		small(dir, "bad", 2, stem, sizeof stem);
		snprintf(meta, sizeof meta, "%s.metadata", stem);
		FILE *m = fopen(meta, "ab");
		if (m) {
			c.meta = m;
			c.version = 2;
			c.timestamp = 1;
			kcw_record(&c, 9, KCW_CREATE, true, 1 << 20, 4096);
			kcw_record(&c, 10, KCW_DELETE, false, 0, 0);
			kcw_record(&c, 2, KCW_CREATE, true, 0, 10);
			kcw_record(&c, 11, KCW_CREATE, true, 8, 100);
			kcw_record(&c, 12, 7, false, 0, 0);
			kcw_record(&c, 13, KCW_CREATE, false, 0, 0);
			fclose(m);
		}
		damaged(stem, "past the data file", "lie outside the data file",
			all, 3);
		damaged(stem, "delete unknown", "DELETE of block 0000000000000010, which does not exist", all, 3);
		damaged(stem, "create existing", "CREATE of block 0000000000000002, which already exists", all, 3);
		damaged(stem, "overlap", "blocks overlap: block 0000000000000011", all, 3);
		damaged(stem, "unknown op", "record of unknown type 7", all, 3);
		damaged(stem, "no extent", "CREATE record without a valid offset", all, 3);
	}

	/* version 3: refused, by name */
	{
		kcw c;
		snprintf(stem, sizeof stem, "%s/v3", dir);
		kcw_open(&c, stem, 3);
		kcw_add(&c, 1, "kuducfl2xxxxxxxxxx", 18);
		kcw_close(&c);
		snprintf(data, sizeof data, "%s.data", stem);
		colfs_tree *t;
		char why[512];
		if (colfs_tree_open(data, NULL, &t, why, sizeof why) == COLFS_OK) {
			FAIL("version 3 opened");
			colfs_tree_destroy(t);
		} else if (!has(why, "version 3 (colfs reads versions 1 and 2)")) {
			FAIL("version 3: %s", why);
		} else {
			printf("version 3: ok: %s\n", why);
		}
	}

	/* the data file: a flipped byte in block 2's first data block (its
	 * CRC fails inside the CFile), a data file cut inside block 3 */
	small(dir, "data", 2, stem, sizeof stem);
	snprintf(data, sizeof data, "%s.data", stem);
	flip(data, 4096 + 12 + 5, 0x01);
	damaged(stem, "data byte flipped", "/blocks/0000000000000002", first_two, 1);
	if (truncate(data, 4096 * 2 + 100))
		FAIL("truncate data");
	damaged(stem, "data cut", "block 0000000000000003: bytes 8192..", first_two, 1);
}

static bool copy_file(const char *from, const char *to, long cut)
{
	size_t len;
	char *b = testio_slurp(from, &len);
	FILE *f = fopen(to, "wb");
	bool ok = b && f;
	if (ok && cut >= 0 && (size_t)cut < len)
		len = (size_t)cut;
	if (ok)
		ok = fwrite(b, 1, len, f) == len;
	if (f)
		fclose(f);
	free(b);
	return ok;
}

/* Open and walk one mutant: no crash, no hang (ASan, the test's timeout). */
static void open_walk(const char *data, size_t *opened)
{
	colfs_tree *t;
	char why[512];
	if (colfs_tree_open(data, NULL, &t, why, sizeof why) == COLFS_OK) {
		cft_walk(t);
		char *e = read_path(t, "errors");
		free(e);
		colfs_tree_destroy(t);
		++*opened;
	} else if (!why[0]) {
		FAIL("mutant refused without a reason: %s", data);
	}
}

/* Every byte of a small container's metadata flipped, the metadata cut at
 * every length, bytes of the data file flipped and the data file cut:
 * each mutant opened (or refused with a reason) and walked. */
static void mutants(const char *dir)
{
	char stem[600], meta[700], data[700], mstem[700], mmeta[800], mdata[800];
	size_t n = 0, opened = 0;
	small(dir, "mut", 2, stem, sizeof stem);
	snprintf(meta, sizeof meta, "%s.metadata", stem);
	snprintf(data, sizeof data, "%s.data", stem);
	snprintf(mstem, sizeof mstem, "%s/mutant", dir);
	snprintf(mmeta, sizeof mmeta, "%s.metadata", mstem);
	snprintf(mdata, sizeof mdata, "%s.data", mstem);
	long ml = file_size(meta), dl = file_size(data);
	if (!copy_file(data, mdata, -1))
		FAIL("copy");
	for (long i = 0; i < ml; i++, n++) {
		copy_file(meta, mmeta, -1);
		flip(mmeta, i, (uint8_t)(0x01 << (i % 8)) | 0x80);
		open_walk(mdata, &opened);
	}
	for (long i = 0; i < ml; i += 3, n++) {
		copy_file(meta, mmeta, i);
		open_walk(mdata, &opened);
	}
	copy_file(meta, mmeta, -1);
	for (long i = 0; i < dl; i += 211, n++) {
		copy_file(data, mdata, -1);
		flip(mdata, i, 0x24);
		open_walk(mdata, &opened);
	}
	for (long i = 1; i < dl; i += 1531, n++) {
		copy_file(data, mdata, i);
		open_walk(mdata, &opened);
	}
	printf("mutants: %zu written, %zu opened and walked\n", n, opened);
}

int main(void)
{
	char *dir = cft_tmpdir();
	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	matrix(dir, 2);
	matrix(dir, 1);
	damage(dir);
	mutants(dir);
	cft_rmdir(dir);
	free(dir);
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}

/* colfs tests: listing the root and row_groups/ (down to every chunk
 * directory) and reading the footer documents must read nothing of the
 * file but its head magic, its tail and its footer.
 *
 * Every pread of the core is counted through the linker (--wrap=pread64):
 * the test fails when a read touches the bytes between the head magic and
 * the footer.  Runs over every `parquet` file of the corpus (exit 77 when
 * the corpus is missing). */
#include "colfs.h"
#include "core/cursor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t __real_pread64(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread64(int fd, void *buf, size_t n, off_t off);

static bool watching;
static uint64_t low, high;      /* forbidden range [low, high) */
static uint64_t bad_off, bad_len;
static int bad_reads;

ssize_t __wrap_pread64(int fd, void *buf, size_t n, off_t off)
{
	if (watching && (uint64_t)off < high && (uint64_t)off + n > low) {
		if (!bad_reads) {
			bad_off = (uint64_t)off;
			bad_len = n;
		}
		bad_reads++;
	}
	return __real_pread64(fd, buf, n, off);
}

static int list_all(colfs_tree *t, colfs_node *dir, int depth,
		    int max_depth)
{
	colfs_node *const *kids;
	size_t n;

	if (colfs_dir_list(t, dir, &kids, &n))
		return 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t size;
		bool exact;
		/* what `ls -l` asks for: the size of every entry */
		if (!colfs_node_is_dir(kids[i]) &&
		    strcmp(colfs_node_name(kids[i]), "column_index.json") &&
		    strcmp(colfs_node_name(kids[i]), "offset_index.json"))
			colfs_node_size(t, kids[i], &size, &exact);
		if (colfs_node_is_dir(kids[i]) && depth < max_depth &&
		    strcmp(colfs_node_name(kids[i]), "pages") &&
		    /* listing salvage/ scans the file (by design) */
		    strcmp(colfs_node_name(kids[i]), "salvage") &&
		    strcmp(colfs_node_name(kids[i]), "bloom_filter"))
			list_all(t, kids[i], depth + 1, max_depth);
	}
	return 0;
}

static int check_file(const char *path)
{
	colfs_tree *t;
	char why[512];
	uint8_t tail[8];
	int fd = open(path, O_RDONLY);
	off_t size;

	if (fd < 0)
		return 1;
	size = lseek(fd, 0, SEEK_END);
	if (size < 12 || __real_pread64(fd, tail, 8, size - 8) != 8) {
		close(fd);
		return 0;
	}
	close(fd);
	low = 16;   /* the probe reads 16 bytes of each end */
	high = (uint64_t)size - 8 - colfs_le32(tail);
	if (high > (uint64_t)size - 16)
		high = (uint64_t)size - 16;
	if (high <= low)
		return 0;
	bad_reads = 0;
	watching = true;
	/* sizes=lazy: under the default, a stat of a small file's value
	 * views decodes them to learn their sizes (docs/tree.md, "Sizes");
	 * this test is about what listing and the metadata cost. */
	colfs_options o = {0};
	if (colfs_options_set(&o, "sizes=lazy") != COLFS_OK) {
		printf("FAIL: sizes=lazy refused\n");
		return 1;
	}
	if (colfs_tree_open(path, &o, &t, why, sizeof why)) {
		watching = false;
		printf("FAIL %s: open: %s\n", path, why);
		return 1;
	}
	/* root, row_groups/N/, chunks/, every chunk directory */
	list_all(t, colfs_tree_root(t), 0, 4);
	watching = false;
	colfs_tree_destroy(t);
	if (bad_reads) {
		printf("FAIL %s: listing read %d times inside the data (first: %llu bytes at %llu; data region %llu..%llu)\n",
		       path, bad_reads, (unsigned long long)bad_len,
		       (unsigned long long)bad_off, (unsigned long long)low,
		       (unsigned long long)high);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096], line[8192];
	int failed = 0, count = 0;
	FILE *m;

	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof path, "%s/MANIFEST.tsv", argv[1]);
	m = fopen(path, "r");
	if (!m) {
		printf("SKIP: corpus not found (%s: %s)\n", path,
		       strerror(errno));
		return 77;
	}
	while (fgets(line, sizeof line, m)) {
		char *f[8] = {0}, *s = line;
		int nf = 0;
		line[strcspn(line, "\n")] = 0;
		while (nf < 8 && s) {
			f[nf++] = s;
			s = strchr(s, '\t');
			if (s)
				*s++ = 0;
		}
		if (nf < 8 || strcmp(f[7], "parquet"))
			continue;
		snprintf(path, sizeof path, "%s/%s", argv[1], f[0]);
		count++;
		failed += check_file(path);
	}
	fclose(m);
	printf("%d files, %d read data while listing\n", count, failed);
	return count ? (failed ? 1 : 0) : 77;
}

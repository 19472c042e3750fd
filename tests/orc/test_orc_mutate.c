/* tests/orc: damaged copies of small corpus ORC files (deterministic byte
 * changes and truncations, mostly in the tail and stripe footers) must
 * open or be refused, and the whole tree must be walkable and every node
 * readable or failing with a status, never crashing or hanging.  Meant to
 * run under ASan+UBSan.
 *
 *   test_orc_mutate CORPUS_DIR [MUTATIONS_PER_FILE [SEED]]
 *
 * Exit 77 when the corpus is missing. */
#include <colfs.h>

#include "../testrand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SIZE (24 * 1024)
#define READ_CAP (4u << 20)

static uint64_t rng_state = TESTRAND_SEED;

static uint64_t rng(void)
{
	return testrand_next(&rng_state);
}

static size_t nodes_read;

static void read_all(colfs_tree *t, colfs_node *n)
{
	colfs_handle *h;
	static char buf[1 << 16];
	uint64_t off = 0;
	size_t got;

	if (colfs_node_open(t, n, &h) != COLFS_OK)
		return;
	while (off < READ_CAP &&
	       colfs_handle_read(h, off, sizeof(buf), buf, &got) == COLFS_OK &&
	       got > 0)
		off += got;
	colfs_handle_close(h);
	nodes_read++;
}

static void walk(colfs_tree *t, colfs_node *dir, int depth)
{
	colfs_node *const *kids;
	size_t n;

	if (depth > 32 || colfs_dir_list(t, dir, &kids, &n) != COLFS_OK)
		return;
	for (size_t i = 0; i < n; i++) {
		if (colfs_node_is_dir(kids[i]))
			walk(t, kids[i], depth + 1);
		else
			read_all(t, kids[i]);
	}
}

static void try_bytes(const uint8_t *data, size_t len)
{
	char path[] = "/tmp/colfs-orc-mutXXXXXX";
	int fd = mkstemp(path);
	colfs_tree *t;
	char why[256];

	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		perror("temp file");
		exit(1);
	}
	close(fd);
	if (colfs_tree_open(path, NULL, &t, why, sizeof(why)) == COLFS_OK) {
		walk(t, colfs_tree_root(t), 0);
		colfs_tree_destroy(t);
	}
	unlink(path);
}

static void mutate_file(const char *path, unsigned count)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *orig, *buf;
	size_t len;

	if (!fp)
		return;
	orig = malloc(MAX_SIZE);
	buf = malloc(MAX_SIZE);
	len = fread(orig, 1, MAX_SIZE, fp);
	fclose(fp);
	for (unsigned m = 0; m < count && len > 8; m++) {
		unsigned edits = 1 + (unsigned)(rng() % 4);

		memcpy(buf, orig, len);
		for (unsigned e = 0; e < edits; e++) {
			size_t pos;
			uint64_t r = rng();

			/* half of the edits in the last 512 bytes: the tail */
			if (r & 1)
				pos = len - 1 - (size_t)((r >> 8) %
							 (len < 512 ? len : 512));
			else
				pos = (size_t)((r >> 8) % len);
			switch ((r >> 40) % 4) {
			case 0:
				buf[pos] ^= (uint8_t)(1u << ((r >> 48) % 8));
				break;
			case 1:
				buf[pos] = (uint8_t)(r >> 48);
				break;
			case 2:
				buf[pos] = 0xff;
				break;
			default:
				buf[pos] = 0;
				break;
			}
		}
		try_bytes(buf, len);
		/* and a truncation that keeps the original tail byte */
		if (m % 8 == 0) {
			size_t cut = 1 + (size_t)(rng() % (len - 1));

			memcpy(buf, orig, len);
			buf[len - cut - 1] = orig[len - 1];
			try_bytes(buf + 0, len - cut);
		}
	}
	free(orig);
	free(buf);
}

int main(int argc, char **argv)
{
	char line[16384], path[4096];
	unsigned count = argc > 2 ? (unsigned)atoi(argv[2]) : 60;
	size_t files = 0;
	FILE *fp;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR [N [SEED]]\n", argv[0]);
		return 2;
	}
	if (argc > 3 && strtoull(argv[3], NULL, 0))
		rng_state = strtoull(argv[3], NULL, 0);
	snprintf(path, sizeof(path), "%s/MANIFEST.tsv", argv[1]);
	fp = fopen(path, "r");
	if (!fp) {
		printf("corpus not found at %s: skipping\n", argv[1]);
		return 77;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *f[8], *p = line;
		size_t nf = 0;

		line[strcspn(line, "\r\n")] = '\0';
		while (nf < 8) {
			char *tab = strchr(p, '\t');

			f[nf++] = p;
			if (!tab)
				break;
			*tab = '\0';
			p = tab + 1;
		}
		if (nf < 8 || (strcmp(f[7], "orc") && strcmp(f[7], "orc-bad") &&
			       strcmp(f[7], "orc-encrypted")))
			continue;
		if (atol(f[3]) > MAX_SIZE || atol(f[3]) < 16)
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], f[0]);
		mutate_file(path, count);
		files++;
	}
	fclose(fp);
	printf("%zu files mutated %u times each, %zu nodes read\n", files,
	       count, nodes_read);
	return files ? 0 : 77;
}

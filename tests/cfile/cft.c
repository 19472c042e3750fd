#include "cft.h"

#include "core/codec.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *read_node(colfs_tree *t, colfs_node *n, size_t cap, size_t *len)
{
	colfs_handle *h;
	size_t have = 0, size = 65536;
	char *buf = malloc(size + 1);

	if (!buf || colfs_node_open(t, n, &h)) {
		free(buf);
		return NULL;
	}
	for (;;) {
		size_t got = 0;
		if (have == size) {
			if (size >= cap)
				break;
			size *= 2;
			char *nb = realloc(buf, size + 1);
			if (!nb)
				break;
			buf = nb;
		}
		if (colfs_handle_read(h, have, size - have, buf + have, &got)) {
			colfs_handle_close(h);
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		have += got;
	}
	colfs_handle_close(h);
	buf[have] = 0;
	if (len)
		*len = have;
	return buf;
}

char *cft_read(colfs_tree *t, const char *path, size_t *len)
{
	colfs_node *n;

	if (colfs_tree_resolve(t, path, &n))
		return NULL;
	return read_node(t, n, (size_t)1 << 32, len);
}

static size_t walk(colfs_tree *t, colfs_node *dir, int depth)
{
	colfs_node *const *kids;
	size_t n, count = 1;

	if (depth > 64 || colfs_dir_list(t, dir, &kids, &n))
		return count;
	for (size_t i = 0; i < n; i++) {
		if (colfs_node_is_dir(kids[i])) {
			count += walk(t, kids[i], depth + 1);
		} else {
			uint64_t size;
			bool exact;
			colfs_node_size(t, kids[i], &size, &exact);
			free(read_node(t, kids[i], 4u << 20, NULL));
			count++;
		}
	}
	return count;
}

size_t cft_walk(colfs_tree *t)
{
	return walk(t, colfs_tree_root(t), 0);
}

char *cft_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char tmpl[512];

	snprintf(tmpl, sizeof(tmpl), "%s/colfs-cfile-XXXXXX",
		 base ? base : "/tmp");
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

void cft_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[1024];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	return 4;
}

uint8_t *cft_wrap_block(const uint8_t *blk, size_t blen, int type, int enc,
			int comp, int nullable, int array, uint32_t count,
			size_t *len)
{
	static const uint8_t head[16] = {0x6b, 0x75, 0x64, 0x75, 0x63, 0x66,
					 0x6c, 0x32, 0, 0, 0, 0,
					 0x02, 0x94, 0x3a, 0xd3};
	uint8_t *out = malloc(blen + 256);
	uint8_t leaf[64], pb[96];
	size_t n, l = 0, p = 0, lat, lsize, bsize = blen + 4;

	if (!out)
		return NULL;
	memcpy(out, head, 16);
	n = 16;
	memcpy(out + n, blk, blen);
	n += blen;
	n += put_le32(out + n, colfs_crc32c(0, blk, blen));
	lat = n;
	if (comp != 1)
		l += 4; /* the raw-stored prefix, filled below */
	leaf[l++] = 4;
	leaf[l++] = 0, leaf[l++] = 0, leaf[l++] = 0, leaf[l++] = 0;
	l += put_varint(leaf + l, 16);
	l += put_varint(leaf + l, bsize);
	l += put_le32(leaf + l, 0); /* entry 0 at the decoded block's start */
	leaf[l++] = 0x08, leaf[l++] = 0x01, leaf[l++] = 0x10, leaf[l++] = 0x00;
	l += put_le32(leaf + l, 4);
	if (comp != 1) /* stored raw: c == uncompressed size */
		put_le32(leaf, (uint32_t)(l - 4));
	memcpy(out + n, leaf, l);
	n += l;
	n += put_le32(out + n, colfs_crc32c(0, leaf, l));
	lsize = l + 4;
	pb[p++] = 0x08, pb[p++] = (uint8_t)type;
	pb[p++] = 0x10, pb[p++] = (uint8_t)enc;
	pb[p++] = 0x18;
	p += put_varint(pb + p, count);
	uint8_t ptr[24], root[28];
	size_t pl = 0, rl = 0;
	ptr[pl++] = 0x08;
	pl += put_varint(ptr + pl, lat);
	ptr[pl++] = 0x10;
	pl += put_varint(ptr + pl, lsize);
	root[rl++] = 0x0a;
	root[rl++] = (uint8_t)pl;
	memcpy(root + rl, ptr, pl);
	rl += pl;
	pb[p++] = 0x22;
	pb[p++] = (uint8_t)rl;
	memcpy(pb + p, root, rl);
	p += rl;
	pb[p++] = 0x30, pb[p++] = (uint8_t)comp;
	pb[p++] = 0x40, pb[p++] = (uint8_t)nullable;
	pb[p++] = 0x50, pb[p++] = array ? 0x03 : 0x01;
	if (array)
		pb[p++] = 0x60, pb[p++] = 0x01;
	uint32_t F = (uint32_t)p;
	memcpy(pb + p, "kuducfl2", 8);
	p += 8;
	p += put_le32(pb + p, F);
	n += put_le32(out + n, colfs_crc32c(0, pb, p));
	memcpy(out + n, pb, p);
	n += p;
	*len = n;
	return out;
}

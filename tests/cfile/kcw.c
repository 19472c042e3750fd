/* colfs tests: the Kudu log block container writer (kcw.h). */
#include "kcw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/codec.h"

#define KCW_ALIGN 4096

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

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One record of the protobuf container around `body`. */
static int put_record(kcw *c, const uint8_t *body, size_t len)
{
	uint8_t head[8], crc[4];
	put_le32(head, (uint32_t)len);
	if (c->version == 1) {
		uint32_t x = colfs_crc32c(0, head, 4);
		x = colfs_crc32c(x, body, len);
		put_le32(crc, x);
		if (fwrite(head, 1, 4, c->meta) != 4)
			return -1;
	} else {
		put_le32(head + 4, colfs_crc32c(0, head, 4));
		put_le32(crc, colfs_crc32c(0, body, len));
		if (fwrite(head, 1, 8, c->meta) != 8)
			return -1;
	}
	if (fwrite(body, 1, len, c->meta) != len ||
	    fwrite(crc, 1, 4, c->meta) != 4)
		return -1;
	return 0;
}

int kcw_open(kcw *c, const char *stem, int version)
{
	char path[4096];
	uint8_t h[16];
	memset(c, 0, sizeof *c);
	c->version = version;
	c->timestamp = 1700000000000000ull;
	snprintf(path, sizeof path, "%s.data", stem);
	c->data = fopen(path, "w+b");
	snprintf(path, sizeof path, "%s.metadata", stem);
	c->meta = fopen(path, "wb");
	if (!c->data || !c->meta)
		return -1;
	c->data_fd = fileno(c->data);
	memcpy(h, "kuducntr", 8);
	put_le32(h + 8, (uint32_t)version);
	put_le32(h + 12, colfs_crc32c(0, h, 12));
	if (fwrite(h, 1, version == 1 ? 12 : 16, c->meta) !=
	    (version == 1 ? 12u : 16u))
		return -1;
	/* ContainerSupHeaderPB: protos (an empty FileDescriptorSet), pb_type */
	static const char type[] = "kudu.BlockRecordPB";
	uint8_t body[64];
	size_t n = 0;
	body[n++] = 0x0a;
	body[n++] = 0;
	body[n++] = 0x12;
	body[n++] = (uint8_t)(sizeof type - 1);
	memcpy(body + n, type, sizeof type - 1);
	n += sizeof type - 1;
	return put_record(c, body, n);
}

int kcw_record(kcw *c, uint64_t id, int op, bool with_extent, int64_t off,
	       int64_t len)
{
	uint8_t b[64];
	size_t n = 0;
	b[n++] = 0x0a; /* block_id: BlockIdPB { fixed64 id = 1 } */
	b[n++] = 9;
	b[n++] = 0x09;
	for (int i = 0; i < 8; i++)
		b[n++] = (uint8_t)(id >> (8 * i));
	b[n++] = 0x10;
	n += put_varint(b + n, (uint64_t)op);
	b[n++] = 0x18;
	n += put_varint(b + n, c->timestamp++);
	if (with_extent) {
		b[n++] = 0x20;
		n += put_varint(b + n, (uint64_t)off);
		b[n++] = 0x28;
		n += put_varint(b + n, (uint64_t)len);
	}
	return put_record(c, b, n);
}

int kcw_add(kcw *c, uint64_t id, const void *bytes, size_t len)
{
	uint64_t off = c->next;
	if (fseeko(c->data, (off_t)off, SEEK_SET) != 0 ||
	    fwrite(bytes, 1, len, c->data) != len || fflush(c->data) != 0)
		return -1;
	if (c->nblocks == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		struct kcw_blk *p = realloc(c->blocks, c->cap * sizeof *p);
		if (!p)
			return -1;
		c->blocks = p;
	}
	c->blocks[c->nblocks++] = (struct kcw_blk){id, off, len};
	c->next = (off + len + KCW_ALIGN - 1) / KCW_ALIGN * KCW_ALIGN;
	return kcw_record(c, id, KCW_CREATE, true, (int64_t)off, (int64_t)len);
}

int kcw_delete(kcw *c, uint64_t id, bool punch)
{
	for (size_t i = 0; punch && i < c->nblocks; i++) {
		if (c->blocks[i].id != id)
			continue;
		if (fflush(c->data) != 0 ||
		    fallocate(c->data_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)c->blocks[i].off,
			      (off_t)c->blocks[i].len) != 0)
			return -1;
	}
	return kcw_record(c, id, KCW_DELETE, false, 0, 0);
}

int kcw_raw(kcw *c, const void *bytes, size_t len)
{
	return fwrite(bytes, 1, len, c->meta) == len ? 0 : -1;
}

int kcw_close(kcw *c)
{
	int rc = 0;
	if (c->data && (ftruncate(c->data_fd, (off_t)c->next) != 0 ||
			fclose(c->data) != 0))
		rc = -1;
	if (c->meta && fclose(c->meta) != 0)
		rc = -1;
	free(c->blocks);
	memset(c, 0, sizeof *c);
	return rc;
}

int kcw_pb_file(const char *path, int version, const char *pb_type,
		const uint8_t *const *bodies, const size_t *lens, size_t n)
{
	kcw c;
	uint8_t h[16], sup[300];
	size_t tl = strlen(pb_type), k = 0;
	memset(&c, 0, sizeof c);
	c.version = version;
	if (tl > 200 || !(c.meta = fopen(path, "wb")))
		return -1;
	memcpy(h, "kuducntr", 8);
	put_le32(h + 8, (uint32_t)version);
	put_le32(h + 12, colfs_crc32c(0, h, 12));
	sup[k++] = 0x0a;
	sup[k++] = 0;
	sup[k++] = 0x12;
	k += put_varint(sup + k, tl);
	memcpy(sup + k, pb_type, tl);
	k += tl;
	int rc = fwrite(h, 1, version == 1 ? 12 : 16, c.meta) ==
				 (version == 1 ? 12u : 16u) &&
			 !put_record(&c, sup, k)
		 ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = put_record(&c, bodies[i], lens[i]);
	if (fclose(c.meta) != 0)
		rc = -1;
	return rc;
}

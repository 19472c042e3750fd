#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct colfs_source {
	int fd;
	int own_fd;
	uint64_t size;
	unsigned char *mem; /* memory source when fd < 0 */
};

colfs_status colfs_source_create_fd(int fd, int own_fd, colfs_source **out)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return COLFS_EIO;
	colfs_source *s = calloc(1, sizeof *s);
	if (!s)
		return COLFS_ENOMEM;
	s->fd = fd;
	s->own_fd = own_fd;
	s->size = (uint64_t)st.st_size;
	*out = s;
	return COLFS_OK;
}

colfs_status colfs_source_create_memory(const void *data, size_t len,
					colfs_source **out)
{
	colfs_source *s = calloc(1, sizeof *s);
	if (!s)
		return COLFS_ENOMEM;
	s->fd = -1;
	s->size = len;
	s->mem = malloc(len ? len : 1);
	if (!s->mem) {
		free(s);
		return COLFS_ENOMEM;
	}
	if (len)
		memcpy(s->mem, data, len);
	*out = s;
	return COLFS_OK;
}

void colfs_source_destroy(colfs_source *src)
{
	if (!src)
		return;
	if (src->fd >= 0 && src->own_fd)
		close(src->fd);
	free(src->mem);
	free(src);
}

uint64_t colfs_source_size(const colfs_source *src)
{
	return src->size;
}

int colfs_source_fd(const colfs_source *src)
{
	return src->fd;
}

colfs_status colfs_source_pread(const colfs_source *src, uint64_t offset,
				size_t len, void *buf, size_t *got,
				colfs_err *err)
{
	*got = 0;
	if (offset >= src->size)
		return COLFS_OK;
	if (len > src->size - offset)
		len = (size_t)(src->size - offset);
	if (src->fd < 0) {
		memcpy(buf, src->mem + offset, len);
		*got = len;
		return COLFS_OK;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(src->fd, (char *)buf + done, len - done,
				  (off_t)(offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return colfs_fail(err, COLFS_EIO, offset + done,
					  "read failed: %s", strerror(errno));
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return COLFS_OK;
}

colfs_status colfs_source_read_at(const colfs_source *src, uint64_t offset,
				  size_t len, void *buf, colfs_err *err)
{
	if (offset > src->size || len > src->size - offset)
		return colfs_fail(err, COLFS_ETRUNCATED, offset,
				  "expected %zu bytes at offset %llu, file has %llu",
				  len, (unsigned long long)offset,
				  (unsigned long long)src->size);
	size_t got;
	COLFS_TRY(colfs_source_pread(src, offset, len, buf, &got, err));
	if (got != len)
		return colfs_fail(err, COLFS_ETRUNCATED, offset + got,
				  "file ended after %zu of %zu bytes", got, len);
	return COLFS_OK;
}

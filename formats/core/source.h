/* colfs: where file bytes come from.  All I/O of the core goes through a
 * source's read_at; tests back a source with memory.
 *
 * A file source remembers the size and modification time its descriptor
 * had when it was created; colfs_source_check compares them again (one
 * fstat).  A file rewritten, truncated or appended to since then is
 * "changed" for good: every read from then on fails with COLFS_EIO
 * "source changed since mount (...): remount", so that bytes of the new
 * file are never decoded against metadata of the old one.  A read that
 * comes up short checks at once (a cut file is not blamed for being
 * short).  Otherwise the caller checks after it has read what it needs
 * (the tree does, after rendering each piece and document): a writer
 * updates the modification time before it copies its bytes, so bytes
 * read before an unchanged check are the old ones. */
#ifndef COLFS_SOURCE_H
#define COLFS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "status.h"

typedef struct colfs_source colfs_source;

/* A source over an open file descriptor (pread).  The source does not own
 * the descriptor unless `own_fd` is set. */
colfs_status colfs_source_create_fd(int fd, int own_fd, colfs_source **out);
/* A source over `len` bytes of memory, copied. */
colfs_status colfs_source_create_memory(const void *data, size_t len,
					colfs_source **out);
/* A source whose bytes come from elsewhere (a remote object,
 * formats/remote): the source keeps the bounds checks and the counters,
 * the backend does the I/O.  Every function may be called from several
 * threads at once. */
typedef struct colfs_source_ops {
	/* Read at most `len` bytes at `offset` (inside the size) into `buf`;
	 * `*got` is how many.  A failure names itself in `err`. */
	colfs_status (*pread)(void *ctx, uint64_t offset, size_t len,
			      void *buf, size_t *got, colfs_err *err);
	/* Has the object changed since creation?  COLFS_EIO with the
	 * "source changed since mount (...): remount" message if so; may be
	 * NULL (never changes). */
	colfs_status (*check)(void *ctx, colfs_err *err);
	/* A hint: [offset, offset + len) is about to be read (a column
	 * chunk, a stripe, a block); may be NULL. */
	void (*will_need)(void *ctx, uint64_t offset, uint64_t len);
	/* The text of the mount's `io` document (requests, bytes, cache),
	 * rendered again at each open; may be NULL (no `io`). */
	colfs_status (*io)(void *ctx, colfs_buf *out);
	void (*destroy)(void *ctx);
	/* When the backend last got bytes from where they live (a server's
	 * reply, not its cache): CLOCK_REALTIME nanoseconds, 0 never; may
	 * be NULL.  A failure filed before it is past (problems.c). */
	int64_t (*answered)(void *ctx);
} colfs_source_ops;
/* A source of `size` bytes over a backend; takes `ctx` (destroyed with
 * the source, also when the creation fails). */
colfs_status colfs_source_create_ops(const colfs_source_ops *ops, void *ctx,
				     uint64_t size, colfs_source **out);
/* A source over [offset, offset + len) of `parent` (borrowed: it must
 * outlive the window): a part of one file that is a file of its own (a
 * block of a Kudu container).  Byte 0 of the window is `offset` of the
 * parent; reads past the window fail as past the end of a file; checks
 * and hints go to the parent.  A window not wholly inside the parent is
 * COLFS_EBOUNDS. */
colfs_status colfs_source_create_window(colfs_source *parent, uint64_t offset,
					uint64_t len, colfs_source **out);
/* The backend's context, or NULL for a file or memory source. */
void *colfs_source_ops_ctx(const colfs_source *src);
void colfs_source_destroy(colfs_source *src);

/* The size at creation (the size the format's metadata was read from). */
uint64_t colfs_source_size(const colfs_source *src);
/* The descriptor behind the source, or -1 for a memory or backend
 * source. */
int colfs_source_fd(const colfs_source *src);

/* Read exactly `len` bytes at `offset`.  A range that is not wholly inside
 * the source fails with COLFS_ETRUNCATED (offset = where the range starts);
 * an operating-system error gives COLFS_EIO. */
colfs_status colfs_source_read_at(const colfs_source *src, uint64_t offset,
				  size_t len, void *buf, colfs_err *err);

/* A region the metadata names, read whole into a new buffer (`*out`, to
 * free(); never NULL on success, even for an empty region).  A region that
 * does not lie inside the source is COLFS_EBOUNDS and one larger than
 * `max_alloc` COLFS_EOVERFLOW, both at `offset`, before anything is
 * allocated or read. */
colfs_status colfs_source_read_region(const colfs_source *src,
				      uint64_t offset, uint64_t len,
				      uint64_t max_alloc, uint8_t **out,
				      colfs_err *err);

/* Read at most `len` bytes at `offset`, stopping at the end of the source;
 * `*got` is how many were read. */
colfs_status colfs_source_pread(const colfs_source *src, uint64_t offset,
				size_t len, void *buf, size_t *got,
				colfs_err *err);

/* Check the descriptor against its state at creation (one fstat; none for
 * a memory source, and none once a change was seen).  COLFS_EIO with
 * "source changed since mount (size A -> B, mtime T1 -> T2): remount" in
 * `err` when it changed, now or before. */
colfs_status colfs_source_check(const colfs_source *src, colfs_err *err);
/* colfs_source_check for the checks made at every open, read, document
 * and piece (the tree's): with an interval set, one fstat at most every
 * interval (an unchanged answer stands that long); else the same. */
colfs_status colfs_source_check_often(const colfs_source *src,
				      colfs_err *err);
/* A file source read once, offline (colfs-tool): colfs_source_check_often
 * makes its fstat at most once every `ms` milliseconds, so a change is
 * seen within `ms` rather than at the next open or piece.  0 (the
 * default, the daemon's): at every check.  colfs_source_check itself
 * (a short read, a problem about to be filed, the summary) always looks.
 * Nothing for a memory or backend source; a window's checks are its
 * parent's. */
void colfs_source_set_check_interval(colfs_source *src, uint32_t ms);
/* Tell the source a range is about to be read: a backend may fetch it
 * in one request; a file source does nothing. */
void colfs_source_will_need(const colfs_source *src, uint64_t offset,
			    uint64_t len);
/* Render the backend's `io` document into `out`; COLFS_ENOENT when the
 * source has none (a file or memory source). */
colfs_status colfs_source_io(const colfs_source *src, colfs_buf *out);
/* How many reads of the file were made so far (all threads): a caller
 * that read nothing since its last check need not check again. */
uint64_t colfs_source_reads(const colfs_source *src);
/* The backend's `answered` (0 for a file or memory source, or a backend
 * without it). */
int64_t colfs_source_answered(const colfs_source *src);
/* Has a check (or a read) seen a change?  No system call. */
bool colfs_source_changed(const colfs_source *src);

#endif

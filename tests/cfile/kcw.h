/* colfs tests: a writer of Kudu log block containers (`<stem>.data` and
 * `<stem>.metadata`) for the test suite, after the facts of Kudu's
 * pb_util.cc (the protobuf container) and log_block_manager.cc (blocks at
 * 4096-byte aligned offsets, CREATE and DELETE records, deleted blocks
 * punched out).  docs/kudu-tree.md documents it.  The records are encoded
 * by hand so that tests can also write the ones Kudu never would. */
#ifndef COLFS_TESTS_KCW_H
#define COLFS_TESTS_KCW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { KCW_CREATE = 1, KCW_DELETE = 2 };

typedef struct kcw {
	FILE *data, *meta;
	int version;             /* 1 or 2 */
	uint64_t next;           /* where the next block goes */
	uint64_t timestamp;      /* of the next record, microseconds */
	struct kcw_blk { uint64_t id, off, len; } *blocks;
	size_t nblocks, cap;
	int data_fd;
} kcw;

/* Create `<stem>.data` and `<stem>.metadata`: the header of `version`
 * (any number: 3 writes a container colfs must refuse) and the
 * supplemental header naming kudu.BlockRecordPB.  0, or -1 (errno). */
int kcw_open(kcw *c, const char *stem, int version);
/* Append a block at the next 4096-byte boundary and its CREATE record. */
int kcw_add(kcw *c, uint64_t id, const void *bytes, size_t len);
/* A DELETE record of `id`; with `punch`, the block's bytes are punched
 * out of the data file (fallocate PUNCH_HOLE), as Kudu does. */
int kcw_delete(kcw *c, uint64_t id, bool punch);
/* Any record: op KCW_CREATE / KCW_DELETE / other; offset and length are
 * written when `with_extent`. */
int kcw_record(kcw *c, uint64_t id, int op, bool with_extent, int64_t off,
	       int64_t len);
/* Bytes to the metadata file as they are (a torn record). */
int kcw_raw(kcw *c, const void *bytes, size_t len);
/* Close both files (padding the data file to the last block's aligned
 * end, as a container that was preallocated). 0 or -1. */
int kcw_close(kcw *c);

/* A protobuf container file of `n` records of type `pb_type` (a tablet
 * superblock: "kudu.tablet.TabletSuperBlockPB"), each the bytes given.
 * 0 or -1. */
int kcw_pb_file(const char *path, int version, const char *pb_type,
		const uint8_t *const *bodies, const size_t *lens, size_t n);

#endif

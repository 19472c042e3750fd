/* colfs: the Kudu module's own types, shared by its files (kudu.c reads
 * a container's metadata, kudu_container.c makes its tree, kudu_tablet.c
 * a tablet superblock's, kudu_root.c a data root's).  Nothing outside
 * formats/kudu/ includes this.
 */
#ifndef COLFS_KUDU_INT_H
#define COLFS_KUDU_INT_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/codec.h"
#include "core/proto.h"
#include "core/tree.h"
#include "kudu/kudu.pb-c.h"

#define KUDU_MAGIC "kuducntr"
/* The file system block size Kudu aligns blocks to when nothing says
 * otherwise (the common one). */
#define KUDU_ALIGN 4096

typedef struct kudu_record {
	uint64_t off;            /* in the metadata file */
	uint64_t body_off;
	uint32_t body_len;
	bool framed;             /* length and body present, length checked */
	bool ok;                 /* body checksum right and decoded */
	int op;                  /* KUDU__FS__BLOCK_RECORD_TYPE__* */
	uint64_t id;
	int64_t boff, blen;
	bool has_off, has_len;
	const char *problem;     /* why not ok (static text), or NULL */
} kudu_record;

typedef struct kudu_block {
	uint64_t id;
	uint64_t off, len;
	size_t create_rec;
	long delete_rec;         /* -1: live */
	bool punched;            /* deleted, and its bytes read as zeros */
} kudu_block;

typedef struct kudu_state {
	char *meta_path;
	uint8_t *meta;
	size_t meta_len;
	uint32_t version;
	char *pb_type;
	kudu_record *recs;
	size_t nrecs, caprecs;
	kudu_block *blocks;      /* in the order of their CREATE records */
	size_t nblocks, capblocks;
	size_t live, deleted, punched;
	uint64_t data_size;
	uint64_t hole_bytes;
	/* A tablet superblock (tablet-meta/<tablet id>): the file is the
	 * tree's source, its last record the superblock. */
	bool tablet;
	colfs_proto_msg sb;
	size_t sb_rec;
	/* Inside a data root: the tree path of this container or tablet
	 * ("/containers/<stem>", "/tablets/<id>"), its problems' paths
	 * start with it; "" otherwise. */
	char prefix[300];
	struct kudu_root *root;  /* a data root (the tree's own state) */
} kudu_state;

typedef struct kudu_root {
	struct kroot_container {
		char *stem;           /* file name without ".data" */
		colfs_source *src;    /* the data file */
		kudu_state *st;
	} *cont;
	size_t ncont;
	struct kroot_tablet {
		char *id;
		kudu_state *st;
	} *tab;
	size_t ntab;
	char *dir;
} kudu_root;

static inline kudu_state *state_of(colfs_tree *t)
{
	return colfs_tree_format_state(t);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void block_name(uint64_t id, char *buf, size_t len)
{
	/* as Kudu's BlockId::ToString prints it */
	snprintf(buf, len, "%016llu", (unsigned long long)id);
}


/* kudu.c */
void kudu_close(void *state);
void kudu_meta_report(colfs_tree *t, const char *path, colfs_status st,
			uint64_t moff, const char *what);
colfs_status kudu_meta_read(kudu_state *k, uint64_t max_alloc,
			      colfs_err *err);
colfs_status kudu_pbc_read(colfs_tree *t, kudu_state *k, const char *meta,
			     uint64_t max_alloc, colfs_err *err);
colfs_status kudu_blocks_check(colfs_tree *t, kudu_state *k,
				 colfs_source *src);
long kudu_block_find_live(const kudu_state *k, uint64_t id);
int kudu_block_cmp(const void *a, const void *b);
bool kudu_starts_with_magic(const char *path);
bool kudu_ends_with(const char *s, const char *suffix);
kudu_state *kudu_tablet_state(colfs_tree *t, uint64_t tablet);

/* kudu_container.c */
colfs_status kudu_records_populate(colfs_tree *t, colfs_node *dir);
extern const colfs_node_ops kudu_container_ops;

/* kudu_tablet.c */
colfs_status kudu_tablet_open(colfs_tree *t, colfs_err *err);
colfs_status kudu_tablet_decode(colfs_tree *t, kudu_state *k,
				  uint64_t max_alloc, colfs_err *err);
const Kudu__Fs__ColumnSchemaPB *kudu_column_by_id(
	const Kudu__Fs__TabletSuperBlockPB *sb, int32_t id);
extern const colfs_node_ops kudu_superblock_ops;
extern const colfs_node_ops kudu_schema_ops;
extern const colfs_node_ops kudu_rowset_json_ops;
extern const colfs_node_ops kudu_rowset_blocks_ops;

/* kudu_root.c */
bool kudu_root_claim(const char *path, char *source, size_t source_len);
void kudu_root_free(kudu_root *r);
colfs_status kudu_root_open(colfs_tree *t, colfs_err *err);
bool kudu_is_dir(const char *path);

#endif

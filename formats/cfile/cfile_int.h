/* colfs: the Kudu CFile reader, internals shared by its modules.
 *
 *   cfile.c        the format table: probe, open, close; tree or salvage
 *   cfile_file.c   header and footer (§1-§4) and their JSON
 *   cfile_index.c  index blocks and the B-tree walk (§10)
 *   cfile_block.c  block framing (§5, §6) and the encodings (§7-§9)
 *   cfile_tree.c   the mounted tree
 *   cfile_special.c DeltaFiles and BloomFiles (§13)
 *   cfile_types.c  the type table and names of types, encodings, codecs
 *   cfile_verify.c `verify`: the file's claims against its decoded data
 *   cfile_salvage.c salvage/ of a file whose footer is lost
 */
#ifndef COLFS_CFILE_INT_H
#define COLFS_CFILE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cfile.h"
#include "cfile/cfile.pb-c.h"
#include "core/cursor.h"
#include "core/proto.h"
#include "core/tree.h"

/* Caps (fact sheet §1.2, §5.2, §10.3). */
#define CFILE_MAX_PB 65536u
#define CFILE_MAX_BLOCK (16u << 20)
#define CFILE_MAX_DEPTH 32u

typedef struct cfile_ptr {
	uint64_t offset;
	uint32_t size;
} cfile_ptr;

/* One entry of an index block, as read. */
typedef struct cfile_ientry {
	uint8_t *key;
	uint32_t key_len;
	cfile_ptr ptr;
	int32_t child;          /* index node this entry points to, or -1 */
	int64_t block;          /* leaf: data block number, or -1 */
} cfile_ientry;

/* One index block (B-tree node) reached from a root. */
typedef struct cfile_inode {
	cfile_ptr ptr;
	uint32_t depth;
	bool leaf;
	bool ok;                /* read and parsed */
	cfile_ientry *e;
	uint32_t n;
} cfile_inode;

typedef struct cfile_index {
	bool present;
	cfile_inode *node;      /* node[0] is the root */
	uint32_t n;
	size_t cap;
	uint32_t depth;         /* levels below the root reached */
} cfile_index;

/* A data block as found by the index walk. */
typedef struct cfile_dblock {
	cfile_ptr ptr;
	uint64_t first_row;     /* posidx key, or running total */
	bool key_known;         /* first_row came from a posidx key */
	uint64_t rows;          /* from the next key / num_values; 0 unknown */
	/* Files without a positional index: what decoding found (under
	 * cfile_file.seen_lock). */
	bool seen;
	uint32_t seen_ordinal, seen_rows;
} cfile_dblock;

typedef struct cfile_file {
	colfs_source *src;
	uint64_t size;
	int version;                 /* 1 or 2 */
	bool checksums;
	bool verify;                 /* verify CRCs (false with checksums_ignore) */
	uint64_t max_alloc;

	/* header_msg.msg and footer_msg.msg, typed (salvage points footer
	 * at a footer it made up) */
	Kudu__Cfile__CFileHeaderPB *header;
	Kudu__Cfile__CFileFooterPB *footer;
	colfs_proto_msg header_msg, footer_msg;
	uint8_t *header_bytes;       /* [0, header_len) */
	uint32_t header_len;         /* 12 + H (+4) */
	uint64_t footer_start;       /* first byte of the footer area (CRC or PB) */
	uint32_t footer_pb_len;      /* F */

	int32_t type;
	const cfile_type_info *ti;
	int32_t encoding;            /* AUTO resolved */
	int32_t compression;
	bool nullable;
	bool array;                  /* array data blocks (§7.3) */
	uint64_t num_values;
	enum cfile_role {
		CFILE_ROLE_COLUMN = 0,
		CFILE_ROLE_DELTA,       /* footer metadata "deltafilestats" */
		CFILE_ROLE_BLOOM,       /* BINARY PLAIN, validx only, 0 values */
	} role;

	cfile_index posidx, validx;
	cfile_dblock *blocks;
	uint32_t nblocks;
	bool walk_complete;          /* every data block pointer was found */
	pthread_mutex_t seen_lock;

	/* The dictionary (DICT only), loaded on first use. */
	pthread_mutex_t dict_lock;
	bool dict_tried;
	colfs_status dict_status;
	colfs_err dict_err;
	uint8_t *dict_data;
	const uint8_t **dict_str;
	uint32_t *dict_len;
	uint32_t dict_n;

	struct cfile_salvage *salvage; /* salvage/ of a file without footer */
} cfile_file;

/* A block read from the file: the stored bytes and the decoded bytes. */
typedef struct cfile_raw {
	uint8_t *stored;        /* size bytes, CRC included */
	uint32_t stored_len;
	uint8_t *data;          /* decoded: after CRC and decompression */
	uint32_t data_len;
	bool data_owned;        /* data is its own allocation */
} cfile_raw;

void cfile_block_raw_free(cfile_raw *r);

/* A decoded data block. */
typedef struct cfile_values {
	uint32_t rows;          /* rows in the block, NULLs included */
	uint32_t ordinal;       /* the inner block's first-ordinal field */
	uint8_t *present;       /* per row (nullable files), else NULL */
	uint32_t bitmap_off;    /* nullable: bitmap position in the block */
	uint32_t bitmap_len;
	uint32_t n;             /* values (non-null) */
	uint32_t width;         /* bytes per fixed value; 0 for BINARY */
	uint8_t *fixed;         /* n * width */
	const uint8_t **str;    /* BINARY: n pointers (into the block or dict) */
	uint32_t *len;
	int32_t dict_mode;      /* DICT: 1 or 2; 0 otherwise */
	/* Arrays (§7.3): rows are cells; `present` is the cell bitmap. */
	uint16_t *elems;        /* elements per cell */
	uint8_t *flat_present;  /* per flattened element */
	uint32_t flat_count;
	uint8_t *owned;         /* PREFIX: the rebuilt strings */
} cfile_values;

void cfile_block_values_free(cfile_values *v);

/* cfile_file.c: the fields of a CFile protobuf message (header, footer,
 * DeltaStatsPB) added to `obj` in the shape header.json and footer.json
 * promise: every field (absent ones with their default), type, encoding
 * and compression by name, keys and values as text or {"hex": ...}. */
void cfile_file_pb_json_into(const cfile_file *f, struct json_t *obj,
			const ProtobufCMessage *m);

/* cfile_block.c */
colfs_status cfile_block_ptr_check(const cfile_file *f, cfile_ptr p,
			     uint64_t where, colfs_err *err);
/* Read, verify and decompress one block. */
colfs_status cfile_block_read(cfile_file *f, cfile_ptr p, cfile_raw *out,
			      colfs_err *err);
/* Decode a data block's bytes (after cfile_block_read). */
colfs_status cfile_block_decode(cfile_file *f, const cfile_raw *raw,
				cfile_ptr p, cfile_values *out, colfs_err *err);
/* Load the dictionary if needed (thread safe). */
colfs_status cfile_block_dict_load(cfile_file *f, colfs_err *err);
/* Decode a PLAIN BINARY block (§9.3) from a window: strings point into it. */
colfs_status cfile_block_plain_binary_decode(colfs_cursor *c, uint32_t *ordinal,
				       uint32_t *count, const uint8_t ***str,
				       uint32_t **len, uint64_t max_alloc,
				       colfs_err *err);
/* Render rows of a decoded block (one per line) for `values` files. */
void cfile_block_values_render(const cfile_file *f, const cfile_values *v,
			 const char *null_token, colfs_buf *out);

/* cfile_index.c */
colfs_status cfile_index_walk(colfs_tree *t, cfile_file *f, cfile_index *ix,
			      cfile_ptr root, bool positional,
			      bool collect_blocks);
void cfile_index_free(cfile_index *ix);
/* "key" rendering: posidx keys as numbers, value keys as hex + text. */
void cfile_index_key_render(colfs_buf *out, const uint8_t *k, uint32_t n,
		      bool positional);

/* cfile_special.c: DeltaFiles (§13.1) and BloomFiles (§13.2) */
enum cfile_role cfile_special_role_detect(const cfile_file *f);
/* One memcmp-sortable varint of a DeltaKey (§13.1). */
colfs_status cfile_special_memcmp_varint(colfs_cursor *c, uint64_t *out,
				 colfs_err *err);
/* Render one DeltaFile value (DeltaKey + RowChangeList) as one line. */
colfs_status cfile_special_delta_render(const uint8_t *p, size_t n, colfs_buf *out,
				uint64_t where, colfs_err *err);
/* The `deltafilestats` footer metadata as JSON (NULL when absent). */
colfs_status cfile_special_delta_stats_json(const cfile_file *f, colfs_buf *out);
/* One bloom block (decoded bytes): "hash_functions=H bitmap_bytes=B
 * bits_set=K". */
colfs_status cfile_special_bloom_describe(const uint8_t *p, size_t n, colfs_buf *out,
				  uint64_t where, colfs_err *err);

/* cfile_salvage.c: salvage/ of a file whose footer cannot be used */
colfs_status cfile_salvage_add(colfs_tree *t, cfile_file *f, colfs_node *root);
void cfile_salvage_free(cfile_file *f);

/* cfile_verify.c: the `verify` stream (what the file claims against the
 * decoded data) */
colfs_status cfile_verify_gen(colfs_tree *t, colfs_node *file,
			      colfs_buf *out);

/* cfile_decoded.c: read and decode data block i of the tree's file, its
 * problems filed under /blocks/i (cfile_block_report). */
colfs_status cfile_decoded_block(colfs_tree *t, uint32_t i, cfile_raw *raw,
				 cfile_values *v);
/* blocks/N: the part a block's problem is filed under, whichever view
 * (values, deltas, bloom, the block's own files) found it. */
#define cfile_block_report(t, i, off, st, ...)                              \
	do {                                                                \
		char bpath_[32];                                            \
		snprintf(bpath_, sizeof bpath_, "/blocks/%u", (unsigned)(i)); \
		colfs_tree_report_path((t), bpath_, (off), (st), __VA_ARGS__); \
	} while (0)

/* cfile_file.c: the footer (§1.2; on failure the file has no usable
 * footer and the problem is reported) and the header (§1.1; problems are
 * reported, the file stays readable) */
colfs_status cfile_file_read_footer(colfs_tree *t, cfile_file *f);
void cfile_file_read_header(colfs_tree *t, cfile_file *f);

/* cfile_tree.c: the root's entries every CFile has (README, format,
 * layout, errors, raw/), then those of a file with its footer; cfile.c
 * chooses these or salvage/.  Block directories: numbered blocks/N/ made
 * with `ops` (args a = N), and a block's `decompressed` document read
 * through `f` (salvage passes its own cfile_file). */
colfs_status cfile_tree_add_common(colfs_tree *t, colfs_node *root);
/* cfile_arrays.c: the directory arrays/ at the root; does the column
 * have an array? */
extern const colfs_node_ops cfile_arrays_ops;
bool cfile_arrays_any(const cfile_file *f);
colfs_status cfile_tree_add_file(colfs_tree *t, colfs_node *root);
colfs_status cfile_tree_add_blocks(colfs_tree *t, colfs_node *dir, uint32_t n,
				   const colfs_node_ops *ops, void *ctx);
colfs_node *cfile_tree_add_decompressed(colfs_tree *t, colfs_node *dir,
					cfile_file *f, cfile_ptr p);

#endif

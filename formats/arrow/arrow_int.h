/* colfs: the Arrow IPC module's shared state (file and stream formats).
 *
 * arrow.c      the format table: probe, open (walks the messages), close
 * arrow_meta.c schema and message flatbuffers to the structs below
 * arrow_load.c a record batch's buffers read (decompressed, byte-swapped)
 *              and checked into arrow_arr trees
 * arrow_render.c one value of an arrow_arr as text or JSON
 * arrow_tree.c the tree (docs/arrow-tree.md)
 * arrow_arrays.c arrays/ through core/arrays.c
 */
#ifndef COLFS_ARROW_INT_H
#define COLFS_ARROW_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/render.h"
#include "../core/tree.h"

/* Type union ids of Schema.fbs. */
enum {
	AT_NONE = 0, AT_NULL, AT_INT, AT_FLOAT, AT_BINARY, AT_UTF8, AT_BOOL,
	AT_DECIMAL, AT_DATE, AT_TIME, AT_TIMESTAMP, AT_INTERVAL, AT_LIST,
	AT_STRUCT, AT_UNION, AT_FSB, AT_FSL, AT_MAP, AT_DURATION, AT_LBINARY,
	AT_LUTF8, AT_LLIST, AT_REE, AT_BINVIEW, AT_UTF8VIEW, AT_LISTVIEW,
	AT_LLISTVIEW, AT_COUNT
};

/* Message header kinds of Message.fbs. */
enum { AM_NONE = 0, AM_SCHEMA, AM_DICT, AM_BATCH, AM_TENSOR, AM_SPARSE };

/* The deepest nesting of fields accepted (a schema deeper than this is
 * refused: rendering recurses once per level). */
#define ARROW_MAX_DEPTH 64

typedef struct arrow_kv {
	char *key, *value;
} arrow_kv;

typedef struct arrow_field {
	char *name;
	bool nullable;
	uint8_t type;          /* AT_* */
	int bits;              /* Int/Time/Decimal bit width; FloatingPoint precision */
	bool is_signed;
	int unit;              /* Date/Time/Timestamp/Interval/Duration unit */
	int32_t precision, scale;
	int32_t width;         /* FixedSizeBinary bytes, FixedSizeList items */
	int union_mode;        /* 0 sparse, 1 dense */
	int32_t *type_ids;     /* Union typeIds (NULL: 0..n-1) */
	uint32_t n_type_ids;
	char *tz;              /* Timestamp timezone (NULL: none) */
	bool keys_sorted;
	char *ext_name;        /* ARROW:extension:name */
	bool dict;             /* dictionary-encoded */
	int64_t dict_id;
	int idx_bits;
	bool idx_signed;
	uint32_t dict_slot;    /* index into arrow_file.dict_ids */
	struct arrow_field *children;
	uint32_t nchildren;
	arrow_kv *md;
	uint32_t nmd;
} arrow_field;

typedef struct arrow_msg {
	uint64_t off;          /* where its prefix starts */
	uint64_t meta_off;     /* its flatbuffer */
	uint64_t meta_len;
	uint64_t body_off;
	uint64_t body_len;
	uint8_t kind;          /* AM_* */
	int16_t version;       /* MetadataVersion: V1 = 0 .. V5 = 4 */
	int64_t length;        /* rows (record and dictionary batches) */
	int64_t dict_id;
	bool delta;
	int codec;             /* -1 none, 0 LZ4_FRAME, 1 ZSTD */
	uint8_t *meta;         /* the flatbuffer bytes (owned) */
	bool bad;              /* cannot be read (reported) */
} arrow_msg;

/* One loaded buffer. */
typedef struct arrow_bufref {
	const uint8_t *p;
	uint64_t len;
	uint64_t off;          /* absolute offset in the file (stored form) */
	uint64_t stored_len;
} arrow_bufref;

struct arrow_dict;

typedef struct arrow_arr {
	const arrow_field *f;
	bool values;           /* a dictionary's values: f->dict ignored */
	int64_t len, nulls;
	arrow_bufref b[3];     /* validity, then the type's buffers */
	arrow_bufref *vb;      /* view types: the variadic data buffers */
	uint32_t nvb;
	struct arrow_arr *ch;
	uint32_t nch;
} arrow_arr;

/* LZ4 buffers whose frames hold another length than the 8 bytes before
 * them announce (read as the frame says; the batch's loader reports). */
typedef struct arrow_mismatch {
	uint32_t count;
	uint64_t off;          /* the first one's */
	int64_t announced, actual;
} arrow_mismatch;

/* A batch (record or dictionary) loaded: what it owns. */
typedef struct arrow_batch {
	uint32_t msg;
	arrow_mismatch mismatch;
	arrow_arr *cols;       /* one per top-level field (or one: a dictionary) */
	uint32_t ncols;
	uint8_t **owned;
	size_t nowned, capowned;
	arrow_arr **arrs;      /* the arr blocks allocated */
	size_t narrs, caparrs;
} arrow_batch;

/* A dictionary as a batch sees it: its messages' values in order (the
 * last replacement and the deltas after it). */
typedef struct arrow_dict {
	arrow_arr **chunks;
	int64_t *starts;       /* first index of each chunk */
	uint32_t n;
	int64_t total;
} arrow_dict;

typedef struct arrow_file {
	colfs_source *src;
	uint64_t size;
	uint64_t max_alloc;
	bool is_file;          /* the file format (ARROW1 magic and footer) */
	bool big_endian;
	bool have_schema;
	arrow_field root;      /* a struct of the schema's fields */
	arrow_kv *md;
	uint32_t nmd;
	uint64_t schema_off, schema_len;   /* the schema's flatbuffer */
	uint64_t smsg_off, smsg_len;       /* the schema message (0: none) */
	uint64_t eos_off, eos_len;         /* the end-of-stream marker */
	uint64_t footer_off, footer_len;
	arrow_msg *msgs;
	uint32_t nmsgs, capmsgs;
	uint32_t *batches;     /* message indices of record batches */
	uint32_t nbatches;
	uint64_t total_rows;
	/* dictionaries: distinct ids, and for each record batch and id the
	 * range [lo, hi) of dmsgs[id] making its dictionary */
	int64_t *dict_ids;
	arrow_field **dict_fields;
	uint32_t ndict;
	uint32_t **dmsgs;      /* per id: message indices in order */
	uint32_t *ndmsgs;
	uint32_t *batch_dlo, *batch_dhi; /* nbatches * ndict */
	pthread_mutex_t lock;  /* the cache of loaded dictionary messages */
	arrow_batch **dcache;  /* per message index */
	arrow_dict **dviews;   /* per batch * ndict, made once */
	void *views;           /* the views' piece numbering (arrow_tree.c) */
	struct arrow_view **vstates; /* every view's state, freed at close */
	size_t nvstates, capvstates;
	void *arrays;          /* arrays/'s context (arrow_arrays.c) */
} arrow_file;

/* A value view's state: which column and the batch it holds. */
typedef struct arrow_view {
	uint32_t col;          /* UINT32_MAX: every column */
	uint32_t bi;
	arrow_batch *b;
} arrow_view;

/* arrow_meta.c */
colfs_status arrow_schema_parse(arrow_file *f, const uint8_t *buf, size_t len,
				size_t pos, colfs_err *err);
colfs_status arrow_message_parse(arrow_file *f, arrow_msg *m, colfs_err *err);
void arrow_field_free(arrow_field *fl);
const char *arrow_type_name(uint8_t type);
/* The type as text (schema), appended to `b`. */
void arrow_type_text(colfs_buf *b, const arrow_field *fl);
/* Buffers a field of this type has in a message of `version`. */
unsigned arrow_type_nbuffers(const arrow_field *fl, int version);
const char *arrow_codec_name(int codec);

/* arrow_load.c: load message `mi` (a record batch: all fields when `col`
 * is UINT32_MAX, else top-level field `col` only; a dictionary batch:
 * its value field).  The batch is checked: every buffer inside the body,
 * sizes and offsets inside their buffers. */
colfs_status arrow_batch_load(arrow_file *f, uint32_t mi, uint32_t col,
			      arrow_batch **out, colfs_err *err);
void arrow_batch_free(arrow_batch *b);
/* The dictionary of slot `k` as record batch `bi` sees it (made once,
 * kept until the file is closed). */
colfs_status arrow_dict_get(arrow_file *f, uint32_t bi, uint32_t k,
			    arrow_dict **out, colfs_err *err);
/* The bytes of buffer `k` of message `mi` as stored and as the reader
 * sees them (decompressed): for the buffers/ tree.  `*out` malloc'd. */
colfs_status arrow_buffer_read(arrow_file *f, uint32_t mi, uint32_t k,
			       bool decompressed, uint8_t **out,
			       uint64_t *len, colfs_err *err);
/* Buffer `k` of message `mi`: offset and length in the body (checked). */
bool arrow_msg_buffer(const arrow_file *f, uint32_t mi, uint32_t k,
		      int64_t *off, int64_t *len, uint32_t *nbuf);
bool arrow_msg_node(const arrow_file *f, uint32_t mi, uint32_t k,
		    int64_t *len, int64_t *nulls, uint32_t *nnodes);

/* arrow_render.c: value `i` of `a`.  Text mode: scalars as docs/values.md,
 * nested values as compact JSON, a NULL as the null token. */
colfs_status arrow_render_value(colfs_buf *b, const colfs_render *r,
				arrow_file *f, uint32_t bi,
				const arrow_arr *a, int64_t i, colfs_err *err);

/* arrow_arrays.c: the directory `arrays/` (core/arrays.c) of the
 * fixed-width fields. */
extern const colfs_node_ops arrow_arrays_ops;
void arrow_arrays_free(arrow_file *f);
/* Has the schema a top-level field arrays/ shows? */
bool arrow_arrays_any(const arrow_file *f);

/* arrow_tree.c */
colfs_status arrow_tree_root(colfs_tree *t, colfs_node *root);

#endif

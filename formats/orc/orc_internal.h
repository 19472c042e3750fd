/* colfs ORC: state shared by the files of the ORC module.
 *
 * An ORC file is read from its tail (ORC specification, "File Tail"): the
 * last byte is the PostScript length, the PostScript gives the codec and
 * the lengths of the Footer and Metadata, which are decompressed through
 * the ORC chunk framing and decoded with protobuf-c from our own
 * orc.proto.  Stripe footers are read when a stripe is first looked into,
 * under the file's lock, and kept. */
#ifndef COLFS_ORC_INTERNAL_H
#define COLFS_ORC_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "../core/buf.h"
#include "../core/codec.h"
#include "../core/cursor.h"
#include "../core/proto.h"
#include "../core/source.h"
#include "../core/tree.h"
#include "orc.pb-c.h"

/* ORC's default compression chunk size, used when the PostScript has
 * none (as ORC's own readers do). */
#define ORC_DEFAULT_BLOCK_SIZE (256u * 1024u)
/* Rows per piece of a streamed view (columns/, rows.jsonl, rows.csv). */
#define ORC_ROWS_PER_PIECE 10000u
/* Deepest type nesting accepted. */
#define ORC_MAX_DEPTH 64

/* One stream of a stripe as located from the stripe footer. */
typedef struct orc_stream_loc {
	uint32_t kind;      /* Orcpb__Stream__Kind */
	uint32_t column;
	uint64_t offset;    /* absolute */
	uint64_t length;
	bool in_file;       /* offset+length inside the stripe and the file */
	uint32_t variant;   /* encrypted streams: StripeEncryptionVariant */
	uint32_t index;     /* encrypted streams: position in the variant */
} orc_stream_loc;

typedef struct orc_stripe {
	bool loaded;
	colfs_status status;       /* of loading the footer */
	colfs_err err;
	colfs_proto_msg footer;            /* Orcpb__StripeFooter */
	orc_stream_loc *streams;   /* one per footer stream */
	size_t n_streams;
	/* the streams of the footer's StripeEncryptionVariants, located
	 * inside the ENCRYPTED_INDEX / ENCRYPTED_DATA areas (no key: raw) */
	orc_stream_loc *enc;
	size_t n_enc;
	uint64_t piece_start;      /* first global row piece of this stripe */
	uint64_t row_start;        /* first row of this stripe in the file */
} orc_stripe;

typedef struct orc_file {
	colfs_tree *tree;
	colfs_source *src;
	uint64_t size;
	uint64_t max_alloc;

	/* tail */
	uint32_t ps_len;
	uint64_t ps_off;
	colfs_proto_msg ps_msg;
	const Orcpb__PostScript *ps;
	uint64_t footer_off, footer_len;
	colfs_proto_msg footer_msg;
	const Orcpb__Footer *footer;
	uint64_t meta_off, meta_len;
	colfs_proto_msg meta_msg;
	const Orcpb__Metadata *meta;   /* NULL when absent or unreadable */

	colfs_codec codec;
	bool compressed;
	uint64_t block_size;
	uint32_t version_major, version_minor;
	bool has_version;
	uint64_t num_rows;

	/* schema: types checked once at open */
	size_t n_types;
	bool schema_ok;
	uint32_t *parent;          /* parent type id per type (root: itself) */

	/* stripes */
	size_t n_stripes;
	orc_stripe *stripes;
	uint64_t n_pieces;         /* global row pieces */

	pthread_mutex_t lock;      /* stripe footers, timezone cache */
	struct orc_view *views;    /* streamed views with reader state */
	struct orc_tz *tzs;        /* loaded time zones */
	struct orc_sdec *sdecs;    /* streams/.../decoded views */

	struct orc_salvage *salvage; /* salvage/ of a file without a tail */
	/* stripes/N/verify, done (one per stripe, under the lock) */
	struct orc_verify_stripe *verify;
} orc_file;

/* --- orc_in.c: the compression chunk framing ---------------------------- */
/* Decompress an ORC stream (chunk framing when the file is compressed) of
 * `len` bytes at absolute `offset` into a malloc'd buffer. */
colfs_status orc_in_read_decompressed(orc_file *f, uint64_t offset, uint64_t len,
				   uint8_t **out, size_t *out_len,
				   colfs_err *err);
/* Decompress bytes already in memory. */
colfs_status orc_in_decompress(orc_file *f, const uint8_t *in, size_t len,
			    uint64_t offset, uint8_t **out, size_t *out_len,
			    colfs_err *err);

/* --- orc_tail.c ---------------------------------------------------------- */
colfs_status orc_tail_read(orc_file *f, colfs_err *err);
/* The stripe's footer, loaded on first use (thread-safe). */
colfs_status orc_tail_stripe_load(orc_file *f, size_t s, orc_stripe **out,
			     colfs_err *err);
/* The tree path of the part of stripe `s` where problem `err` lies (the
 * directory of the stream that holds its offset, or that ends there for a
 * truncation; else the stripe's), whether or not it was listed: problems
 * found by any view are filed there (colfs_tree_report_path). */
void orc_tail_part_path(orc_file *f, size_t s, const colfs_err *err, char *buf,
			size_t len);
const char *orc_tail_compression_name(uint32_t kind);
const char *orc_tail_stream_kind_name(uint32_t kind);
const char *orc_tail_encoding_name(uint32_t kind);
const char *orc_tail_type_kind_name(uint32_t kind);
const char *orc_tail_writer_name(uint32_t writer);
const char *orc_tail_writer_version_name(uint32_t v);
/* "0.12", "0.11" (no version), "UNSTABLE-PRE-2.0" (1.9999). */
void orc_tail_format_version(const orc_file *f, char *buf, size_t len);
/* The type tree in Hive notation. */
void orc_tail_type_string(const orc_file *f, uint32_t id, colfs_buf *out);

/* --- orc_read.c ---------------------------------------------------------- */
/* A streamed view: rows.jsonl / rows.csv / columns/<field>, whole file or
 * one stripe. */
typedef enum orc_view_kind {
	ORC_VIEW_ROWS = 0,     /* orc-contents lines */
	ORC_VIEW_COLUMN,       /* one top-level field, values.md rendering */
	ORC_VIEW_CSV,          /* rows.csv: piece 0 the header, then rows */
} orc_view_kind;

/* Readers a view keeps between pieces: pieces may be rendered at once on
 * several threads (decode ahead), each with a reader of its own. */
#define ORC_VIEW_READERS 4

typedef struct orc_view {
	struct orc_view *next;
	orc_file *file;
	orc_view_kind kind;
	uint32_t column;        /* type id of the field (ORC_VIEW_COLUMN) */
	long stripe;            /* -1: whole file */
	pthread_mutex_t lock;   /* the pool and the size estimate */
	/* idle readers, each positioned at its own row (NULL: empty) */
	struct orc_reader *pool[ORC_VIEW_READERS];
	uint64_t row_bytes;     /* bytes a row took in the last piece */
} orc_view;

colfs_status orc_read_view_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			    colfs_buf *out);
void orc_read_view_free(orc_view *v);

/* streams/<i>/decoded: one stream decoded alone. */
typedef enum orc_sdec_kind {
	ORC_SDEC_NONE = 0,
	ORC_SDEC_BOOL,     /* boolean RLE: 0/1 (padding bits included) */
	ORC_SDEC_BYTE,     /* byte RLE, as signed bytes */
	ORC_SDEC_UBYTE,    /* byte RLE, as unsigned bytes (union tags) */
	ORC_SDEC_SINT,     /* signed integer RLE */
	ORC_SDEC_UINT,     /* unsigned integer RLE */
	ORC_SDEC_FLOAT,
	ORC_SDEC_DOUBLE,
} orc_sdec_kind;

typedef struct orc_sdec {
	struct orc_sdec *next;
	orc_file *file;
	size_t stripe, ordinal;
	orc_sdec_kind kind;
	bool v2;
	void *state;             /* decoder positioned after next_piece */
	uint64_t next_piece;
} orc_sdec;

/* What `decoded` shows for stream `ordinal` of a loaded stripe. */
orc_sdec_kind orc_sdec_kind_of(const orc_file *f, const orc_stripe *sp,
			       size_t ordinal, bool *v2);
colfs_status orc_sdec_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			    colfs_buf *out);
void orc_sdec_free_state(orc_sdec *d);

/* --- orc_verify.c -------------------------------------------------------- */
/* stripes/N/verify (a = stripe) and verify: one piece each. */
colfs_status orc_verify_stripe_piece(colfs_tree *t, colfs_node *file,
				     uint64_t index, colfs_buf *out);
colfs_status orc_verify_file_piece(colfs_tree *t, colfs_node *file,
				   uint64_t index, colfs_buf *out);
void orc_verify_free(orc_file *f);

/* --- orc_tz.c ------------------------------------------------------------ */
typedef struct orc_tz orc_tz;
/* A time zone by name (e.g. "America/Los_Angeles", "GMT"); cached in the
 * file; NULL name or "" means GMT. */
colfs_status orc_tz_get(orc_file *f, const char *name, const orc_tz **out,
			colfs_err *err);
/* UTC offset in seconds at instant `t` (seconds since the epoch). */
int64_t orc_tz_offset(const orc_tz *tz, int64_t t);
void orc_tz_free_all(orc_file *f);

/* --- orc_tree.c ---------------------------------------------------------- */
/* What every ORC root shows (README, format, errors, raw/, layout), then
 * the tree of a file whose tail was read (orc.c chooses it or salvage/). */
colfs_status orc_tree_build_common(orc_file *f, colfs_node *root);
colfs_status orc_tree_build(orc_file *f, colfs_node *root);
/* Nodes whose context is `f` (the file or a salvaged copy of it). */
colfs_node *orc_tree_add_view(colfs_tree *t, orc_file *f, colfs_node *dir,
			       const char *name, orc_view_kind kind,
			       uint32_t column, long stripe);
colfs_node *orc_tree_add_stripes(colfs_tree *t, orc_file *f, colfs_node *dir);
colfs_node *orc_tree_add_columns(colfs_tree *t, orc_file *f, colfs_node *dir);
/* --- orc_arrays.c -------------------------------------------------------- */
/* arrays/ in `dir`: a = stripe + 1, or ORC_TREE_COLUMNS_FILE for the
 * whole file (as columns/). */
colfs_node *orc_arrays_add(colfs_tree *t, orc_file *f, colfs_node *dir,
			   uint64_t a);
/* Has a top-level field an array? */
bool orc_arrays_any(const orc_file *f);

/* --- orc_salvage.c ------------------------------------------------------- */
/* Add salvage/ to the root of a file whose tail is lost. */
colfs_status orc_salvage_add(orc_file *f, colfs_node *root);
/* Free the salvage state (the recovered stripes, the schema file). */
void orc_salvage_free(orc_file *f);

/* --- orc_xattr.c: extended attributes of stripes/N/ and
 * stripes/N/streams/<stream>/ (tree.h `xattrs`) ---------------------- */
colfs_status orc_xattr_stripe(colfs_tree *t, colfs_node *n, colfs_xattrs *x);
colfs_status orc_xattr_stream(colfs_tree *t, colfs_node *n, colfs_xattrs *x);

#endif

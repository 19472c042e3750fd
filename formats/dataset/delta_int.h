/* colfs: what the Delta log reader's files share (delta.c, delta_dv.c).
 * Not part of the dataset contract (delta.h). */
#ifndef COLFS_DELTA_INT_H
#define COLFS_DELTA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/status.h"

struct json_t;
struct colfs_source;

/* Z85 (ZeroMQ RFC 32) text to bytes: `len` must be a multiple of 5; `out`
 * gets len / 5 * 4 bytes.  COLFS_ECORRUPT (with the character's index in
 * `err->offset`) on a character outside the alphabet or a group above
 * 2^32 - 1. */
colfs_status colfs_z85_decode(const char *text, size_t len, uint8_t *out,
			      colfs_err *err);

/* The rows a deletion vector descriptor (the `deletionVector` object of an
 * add action) marks deleted, ascending, into a malloc'd array: storage
 * type 'i' (inline, Z85), 'u' (a file under the table `root` named from a
 * UUID) or 'p' (an absolute path, a file: URI or a plain one).
 * `num_records` (-1: unknown) bounds the row indices; the count is
 * checked against the descriptor's cardinality and `o->max_alloc`.
 * `where` names the action in messages ("_delta_log/...json line 3"). */
colfs_status colfs_delta_dv_read(const char *root, struct json_t *dv,
				 int64_t num_records, const colfs_options *o,
				 const char *where, uint64_t **rows, size_t *n,
				 colfs_err *err);

/* The RoaringBitmapArray serialization of a deletion vector (magic
 * 1681511377, then 64-bit portable Roaring: a count, then per 32-bit
 * bitmap its high key and a portable 32-bit Roaring bitmap) to the
 * ascending row indices.  At most `max_rows` rows (else
 * COLFS_EOVERFLOW). */
colfs_status colfs_delta_dv_decode(const uint8_t *data, size_t len,
				   uint64_t max_rows, uint64_t **rows,
				   size_t *n, colfs_err *err);

/* A Delta table's log and the state of its loading (delta.c), which
 * delta_tree.c renders. */
#include <jansson.h>
#include "delta.h"
#include "../core/options.h"

enum { LOG_COMMIT, LOG_CLASSIC, LOG_MULTI, LOG_V2 };

typedef struct log_file {
	int64_t version;
	int kind;
	uint32_t part, parts;   /* multi-part */
	char *name;
} log_file;

typedef struct delta_action {
	char *path;             /* %-decoded, relative to the root */
	char *dv_id;            /* "" when none */
	size_t seq;
	bool add;
	json_t *body;           /* add actions only */
	uint32_t src, line;     /* where: sources[src], line */
} delta_action;

/* The snapshot with what delta.c keeps for `delta/`; the public part
 * first, so that colfs_delta_free finds the whole. */
typedef struct delta_state {
	colfs_delta_snapshot pub;
	char *root;
	json_t *protocol, *metadata, *last_checkpoint, *schema;
	json_t *checkpoint;     /* {"version", "files"} or null */
	int64_t oldest;
	int64_t *commits;       /* versions of the commit files, ascending */
	size_t n_commits;
	json_t **active;        /* the add action of each file of pub.files */
	/* while loading */
	log_file *log;
	size_t n_log;
	delta_action *acts;
	size_t n_acts, cap_acts;
	char **sources;
	size_t n_sources;
	char **sidecars;
	size_t n_sidecars;
	bool in_sidecars;       /* a sidecar's own sidecar actions are ignored */
	bool has_last_checkpoint; /* the listing holds _last_checkpoint */
	const colfs_options *opts;
	colfs_options opt_copy;
} delta_state;

/* delta.c: a small file of the log read whole (at most the log's cap) */
char *delta_read_small(const char *path, const char *shown,
			const colfs_options *o, size_t *len, colfs_err *err);

#endif

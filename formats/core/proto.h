/* colfs: protobuf help shared by the formats whose metadata is protobuf
 * (ORC, Kudu CFile): unpacking with protobuf-c under a cap on what one
 * message may allocate, and any decoded message as JSON, field by field,
 * from its descriptor.
 *
 * The JSON writer shows every field of the .proto by its name (enums by
 * name, strings kept when they are UTF-8, bytes as hex) and fields a newer
 * writer added as "unknown_fields".  A format whose documents were
 * promised in another shape states the differences in a
 * colfs_proto_json_opts rather than writing its JSON by hand. */
#ifndef COLFS_PROTO_H
#define COLFS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "status.h"

/* The allocator given to protobuf-c: counts what it hands out and refuses
 * past `cap`.  It must outlive the message (free uses it). */
typedef struct colfs_proto_alloc {
	ProtobufCAllocator a;
	size_t used;
	size_t cap;
} colfs_proto_alloc;

/* A decoded message and the allocator that bounds it. */
typedef struct colfs_proto_msg {
	ProtobufCMessage *msg;
	colfs_proto_alloc alloc;
} colfs_proto_msg;

/* The allocation cap for a message of `len` encoded bytes: protobuf-c's
 * structures are a bounded multiple of the encoding (64 times, plus 1 MiB),
 * never more than `max_alloc`. */
size_t colfs_proto_cap(size_t len, uint64_t max_alloc);

/* Unpack `len` bytes as `desc`, allocating at most `cap` bytes.  Returns
 * COLFS_OK, COLFS_EOVERFLOW when the cap was (half) spent before it failed,
 * else COLFS_ECORRUPT; no message is written (the caller words it). */
colfs_status colfs_proto_unpack_status(colfs_proto_msg *m,
				       const ProtobufCMessageDescriptor *desc,
				       const uint8_t *data, size_t len,
				       size_t cap);
/* The same, failing through `err` at `offset` with a message naming the
 * descriptor ("<Name>: N bytes are not a valid protobuf message", or
 * "decoding needs more than N bytes of memory"). */
colfs_status colfs_proto_unpack(colfs_proto_msg *m,
				const ProtobufCMessageDescriptor *desc,
				const uint8_t *data, size_t len, size_t cap,
				uint64_t offset, colfs_err *err);
/* Free the message (NULL or never unpacked: nothing). */
void colfs_proto_free(colfs_proto_msg *m);

struct json_t;

/* What a field hook decides. */
typedef enum colfs_proto_json_act {
	COLFS_PROTO_JSON_DEFAULT = 0, /* write the field as without the hook */
	COLFS_PROTO_JSON_SET,         /* write *out (a new reference) */
	COLFS_PROTO_JSON_OMIT,        /* leave the field out */
} colfs_proto_json_act;

typedef struct colfs_proto_json_opts {
	/* Write absent optional fields too (numbers, bools and bytes as
	 * their default value, strings and messages as null) and empty
	 * repeated fields as []. */
	bool all_fields;
	/* Leave out the "unknown_fields" list. */
	bool skip_unknown;
	/* Field names written first, in this order (NULL-terminated); the
	 * other fields follow in the order of the .proto. */
	const char *const *order;
	/* Render strings and bytes (NULL: colfs_proto_json_text and
	 * colfs_proto_json_hex). */
	struct json_t *(*text)(const uint8_t *p, size_t n);
	struct json_t *(*bytes)(const uint8_t *p, size_t n);
	/* Called for every field of every message written (nested ones
	 * too), present or not, before the default rendering. */
	colfs_proto_json_act (*field)(void *ctx, const ProtobufCMessage *m,
				      const ProtobufCFieldDescriptor *fd,
				      struct json_t **out);
	void *ctx;
} colfs_proto_json_opts;

/* Every field of a decoded message as a JSON object (NULL opts: the
 * defaults above).  NULL when out of memory. */
struct json_t *colfs_proto_json(const ProtobufCMessage *m,
				const colfs_proto_json_opts *opts);
/* The same, added to the object `obj` after what it already holds. */
void colfs_proto_json_into(struct json_t *obj, const ProtobufCMessage *m,
			   const colfs_proto_json_opts *opts);
/* Bytes as lower-case hex. */
struct json_t *colfs_proto_json_hex(const uint8_t *p, size_t n);
/* Text from a file: kept when it is UTF-8 (no NUL), else with each byte
 * that is not printable ASCII written as \xHH. */
struct json_t *colfs_proto_json_text(const uint8_t *p, size_t n);

#endif

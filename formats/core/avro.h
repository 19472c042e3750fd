/* colfs: a bounded reader of Apache Avro object container files, for the
 * table formats whose metadata is Avro (Iceberg's manifest lists and
 * manifests).  It plays the role thrift.c and proto.c play for Parquet
 * and ORC: every byte comes through a colfs_source (so remote files and
 * damage reports work), every failure names the absolute byte offset
 * where it was found.
 *
 * A container is the magic "Obj\1", a metadata map (avro.schema, the
 * writer's schema as JSON; avro.codec: null, deflate, snappy, zstandard),
 * a 16-byte sync marker, then blocks: a record count, a byte size, the
 * (compressed) records, the sync marker again.  The reader parses the
 * header at open and then reads one block at a time: records are decoded
 * one by one as the caller asks for them, in the writer's schema, so
 * listing one entry of a manifest of 10,000 decodes only what precedes
 * it in its block.
 *
 * Distrust of the input:
 *   - a negative count, length or block size is COLFS_ECORRUPT;
 *   - a block larger than the bytes left is COLFS_ETRUNCATED, a block or
 *     a decompressed block larger than max_alloc COLFS_EOVERFLOW, both
 *     before anything is allocated;
 *   - a sync marker that differs from the header's is COLFS_ECORRUPT at
 *     its offset; the records of the blocks before it were read;
 *   - a record count larger than the block's bytes (for a schema whose
 *     records take at least one byte; else larger than
 *     COLFS_AVRO_MAX_EMPTY_RECORDS), an array or map count larger than
 *     the bytes left (items of at least one byte), a string or bytes
 *     length past the block are refused; what one record's values may
 *     allocate is capped at 64 times its block's bytes plus 1 MiB (never
 *     more than max_alloc);
 *   - schemas and values nest at most COLFS_AVRO_MAX_DEPTH deep;
 *   - a snappy block's CRC-32 of its decompressed bytes is checked.
 * Offsets inside a compressed block are the offset of the block's data. */
#ifndef COLFS_AVRO_H
#define COLFS_AVRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "status.h"

#define COLFS_AVRO_MAX_DEPTH 64
#define COLFS_AVRO_MAX_EMPTY_RECORDS (1u << 20)

typedef enum colfs_avro_type {
	COLFS_AVRO_NULL = 0,
	COLFS_AVRO_BOOLEAN,
	COLFS_AVRO_INT,
	COLFS_AVRO_LONG,
	COLFS_AVRO_FLOAT,
	COLFS_AVRO_DOUBLE,
	COLFS_AVRO_BYTES,
	COLFS_AVRO_STRING,
	COLFS_AVRO_RECORD,
	COLFS_AVRO_ENUM,
	COLFS_AVRO_ARRAY,
	COLFS_AVRO_MAP,
	COLFS_AVRO_UNION,
	COLFS_AVRO_FIXED,
} colfs_avro_type;

/* A logical type the reader recognised on a type it is valid for (as the
 * specification says, one that is not valid is ignored: NONE). */
typedef enum colfs_avro_logical {
	COLFS_AVRO_LOGICAL_NONE = 0,
	COLFS_AVRO_LOGICAL_DECIMAL,           /* bytes, fixed */
	COLFS_AVRO_LOGICAL_UUID,              /* string, fixed(16) */
	COLFS_AVRO_LOGICAL_DATE,              /* int: days */
	COLFS_AVRO_LOGICAL_TIME_MILLIS,       /* int */
	COLFS_AVRO_LOGICAL_TIME_MICROS,       /* long */
	COLFS_AVRO_LOGICAL_TIMESTAMP_MILLIS,  /* long */
	COLFS_AVRO_LOGICAL_TIMESTAMP_MICROS,  /* long */
	COLFS_AVRO_LOGICAL_TIMESTAMP_NANOS,   /* long */
	COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS,
	COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS,
	COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS,
} colfs_avro_logical;

struct json_t;
typedef struct colfs_avro_schema colfs_avro_schema;

typedef struct colfs_avro_field {
	const char *name;
	const colfs_avro_schema *type;
	bool has_id;                 /* the field carries "field-id" (Iceberg) */
	int64_t id;
	struct json_t *json;         /* the field's JSON object (borrowed): doc, default, ... */
} colfs_avro_field;

/* One node of a schema.  A reference to a named type is the node of that
 * type (records may refer to themselves). */
struct colfs_avro_schema {
	colfs_avro_type type;
	colfs_avro_logical logical;
	int32_t precision, scale;    /* decimal */
	const char *name;            /* full name of a record, enum or fixed */
	uint64_t size;               /* fixed */
	size_t n;                    /* fields, symbols or branches */
	colfs_avro_field *fields;    /* record */
	const char **symbols;        /* enum */
	const colfs_avro_schema **branches; /* union */
	const colfs_avro_schema *items;     /* array items, map values */
	/* The type's JSON (borrowed; a JSON string for a primitive named by
	 * itself): every attribute the writer gave, for callers that need
	 * more than the above. */
	struct json_t *json;
	uint64_t min_size;           /* fewest bytes one value takes */
};

/* A decoded value.  For a union, `type` is the branch's and `branch` its
 * index (else -1).  Pointers into the block (bytes, strings) and the
 * arrays of items stay valid until the next colfs_avro_next. */
typedef struct colfs_avro_value {
	const colfs_avro_schema *type;
	int32_t branch;
	bool b;                      /* boolean */
	int64_t l;                   /* int, long, enum symbol index */
	double d;                    /* float, double */
	const uint8_t *p;            /* bytes, string, fixed */
	size_t n;                    /* their length; items of a record, array or map */
	struct colfs_avro_value *items; /* record fields (in schema order), array items, map values */
	struct colfs_avro_value *keys;  /* map keys (strings) */
} colfs_avro_value;

typedef struct colfs_avro_reader colfs_avro_reader;

/* Open the container in [offset, offset + len) of `src` (borrowed: it
 * must outlive the reader), parsing its header (magic, metadata, schema,
 * codec, sync marker).  `max_alloc` caps any one allocation a declared
 * size asks for (0: 1 GiB). */
colfs_status colfs_avro_open(const colfs_source *src, uint64_t offset,
			     uint64_t len, uint64_t max_alloc,
			     colfs_avro_reader **out, colfs_err *err);
/* The same over `len` bytes of memory (copied); offsets count from 0. */
colfs_status colfs_avro_open_memory(const void *data, size_t len,
				    uint64_t max_alloc,
				    colfs_avro_reader **out, colfs_err *err);
void colfs_avro_close(colfs_avro_reader *r);

/* The writer's schema, its JSON document, the codec name and the
 * metadata map as a JSON object (values as text, as colfs_avro_json
 * writes bytes) — all borrowed from the reader. */
const colfs_avro_schema *colfs_avro_schema_root(const colfs_avro_reader *r);
struct json_t *colfs_avro_schema_json(const colfs_avro_reader *r);
const char *colfs_avro_codec(const colfs_avro_reader *r);
struct json_t *colfs_avro_metadata(const colfs_avro_reader *r);
/* A metadata value's bytes (`*n` its length), or NULL when absent. */
const uint8_t *colfs_avro_meta(const colfs_avro_reader *r, const char *key,
			       size_t *n);

/* The next record: `*out` points to a value owned by the reader, valid
 * until the next call.  COLFS_END after the last block; a failure fills
 * `err` and every later call fails the same way.  `*offset` (may be NULL)
 * receives the offset of the record's block. */
colfs_status colfs_avro_next(colfs_avro_reader *r,
			     const colfs_avro_value **out, uint64_t *offset,
			     colfs_err *err);
/* How many records and blocks were returned so far. */
uint64_t colfs_avro_records(const colfs_avro_reader *r);
uint64_t colfs_avro_blocks(const colfs_avro_reader *r);

/* A record's field by name, or by Iceberg field id: the value, or NULL
 * when the record (a union's branch counts) has no such field. */
const colfs_avro_value *colfs_avro_field_by_name(const colfs_avro_value *rec,
					 const char *name);
const colfs_avro_value *colfs_avro_field_by_id(const colfs_avro_value *rec,
					    int64_t id);
/* An enum value's symbol. */
const char *colfs_avro_symbol(const colfs_avro_value *v);

/* A value as JSON (a new reference; NULL when out of memory), in the
 * Avro JSON encoding with these colfs choices: a union's value is
 * written bare (not {"type": value}); bytes and fixed as text in the
 * form docs/values.md gives binary ("\x00A"); strings as text kept when
 * UTF-8, other bytes as \xHH; a float or double that is not finite as
 * the string "nan", "inf" or "-inf"; a decimal as a string of its exact
 * digits ("-1.50"); a uuid on fixed(16) as 8-4-4-4-12 hex; an enum as
 * its symbol; a map as an object; dates, times and timestamps as the
 * integers stored. */
struct json_t *colfs_avro_json(const colfs_avro_value *v);

#endif

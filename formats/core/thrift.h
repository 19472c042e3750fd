/* colfs: a Thrift compact-protocol decoder, written for this project.
 *
 * The decoder reads from a colfs_cursor and never past it.  It is a pull
 * reader: a typed parser walks a struct with colfs_thrift_field_next and
 * reads each value with the read function of its type; anything it does not
 * know it hands to colfs_thrift_skip.  Every failure fills a colfs_err with
 * the absolute offset of the byte that was wrong.
 *
 * Distrust of the input:
 *   - nesting (structs, lists, maps) is capped at COLFS_THRIFT_MAX_DEPTH
 *     (COLFS_EOVERFLOW beyond it);
 *   - a list, set or map count larger than the bytes left is refused
 *     (COLFS_ECORRUPT): every element takes at least one byte, a double 8;
 *   - binary lengths are checked against the bytes left (COLFS_ETRUNCATED);
 *   - integers are range-checked against their declared width.
 *
 * The second half is a descriptor-driven converter from a Thrift struct to
 * a jansson value: a static table per struct (field id -> name, type,
 * nested descriptor, enum names) so that every field is shown by name.
 * Fields the table does not know are kept as "field_<id>" with their
 * decoded value.  Binary values are JSON strings when they are valid UTF-8
 * without control characters (other than tab, CR, LF), and otherwise an
 * object {"hex": "<lower-case hex>"}.
 */
#ifndef COLFS_THRIFT_H
#define COLFS_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "status.h"

#define COLFS_THRIFT_MAX_DEPTH 64

/* Compact-protocol wire types.  A bool field carries its value in the
 * type nibble (1 = true, 2 = false); colfs_thrift_field_next reports both
 * as COLFS_THRIFT_BOOL with the value in `bool_value`. */
enum colfs_thrift_type {
	COLFS_THRIFT_STOP = 0,
	COLFS_THRIFT_BOOL = 1,        /* also BOOLEAN_TRUE on the wire */
	COLFS_THRIFT_BOOL_FALSE = 2,  /* wire only */
	COLFS_THRIFT_BYTE = 3,
	COLFS_THRIFT_I16 = 4,
	COLFS_THRIFT_I32 = 5,
	COLFS_THRIFT_I64 = 6,
	COLFS_THRIFT_DOUBLE = 7,
	COLFS_THRIFT_BINARY = 8,
	COLFS_THRIFT_LIST = 9,
	COLFS_THRIFT_SET = 10,
	COLFS_THRIFT_MAP = 11,
	COLFS_THRIFT_STRUCT = 12,
	COLFS_THRIFT_UUID = 13,       /* 16 raw bytes */
};

typedef struct colfs_thrift {
	colfs_cursor *cur;  /* borrowed */
	unsigned depth;     /* current nesting */
} colfs_thrift;

typedef struct colfs_thrift_field {
	int16_t id;
	uint8_t type;       /* colfs_thrift_type; bools are COLFS_THRIFT_BOOL */
	bool bool_value;    /* the value of a bool field */
	uint64_t offset;    /* absolute offset of the field header */
} colfs_thrift_field;

void colfs_thrift_init(colfs_thrift *r, colfs_cursor *c);
/* A short name for a wire type ("i32", "list", ...). */
const char *colfs_thrift_type_name(uint8_t type);

/* Enter a struct (counts one level of nesting; `*last_id` is the field-id
 * state for the deltas and must be kept by the caller) and leave it. */
colfs_status colfs_thrift_struct_enter(colfs_thrift *r, int16_t *last_id,
				       colfs_err *err);
void colfs_thrift_struct_leave(colfs_thrift *r);
/* The next field header of the current struct; COLFS_END at STOP. */
colfs_status colfs_thrift_field_next(colfs_thrift *r, int16_t *last_id,
				     colfs_thrift_field *f, colfs_err *err);

/* Collections.  For a list or set: element type and count (checked against
 * the bytes left).  Bool elements are one byte each (1 = true).  Callers
 * must call colfs_thrift_collection_leave after the last element. */
colfs_status colfs_thrift_list_begin(colfs_thrift *r, uint8_t *elem_type,
				     uint32_t *count, colfs_err *err);
colfs_status colfs_thrift_map_begin(colfs_thrift *r, uint8_t *key_type,
				    uint8_t *val_type, uint32_t *count,
				    colfs_err *err);
void colfs_thrift_collection_leave(colfs_thrift *r);

/* Scalars.  `type` is the wire type of the value as announced by the field
 * header or the collection; a read of the wrong type is COLFS_ECORRUPT. */
colfs_status colfs_thrift_read_int(colfs_thrift *r, uint8_t type,
				   int64_t *out, colfs_err *err);
/* An integer field that must fit in 32 bits (byte, i16 or i32 on the wire). */
colfs_status colfs_thrift_read_i32(colfs_thrift *r, uint8_t type,
				   int32_t *out, colfs_err *err);
colfs_status colfs_thrift_read_i64(colfs_thrift *r, uint8_t type,
				   int64_t *out, colfs_err *err);
colfs_status colfs_thrift_read_double(colfs_thrift *r, uint8_t type,
				      double *out, colfs_err *err);
/* Binary/string: borrowed pointer into the cursor's window. */
colfs_status colfs_thrift_read_binary(colfs_thrift *r, uint8_t type,
				      const uint8_t **out, size_t *len,
				      colfs_err *err);
/* One bool element of a list (not a field: fields carry their value). */
colfs_status colfs_thrift_read_bool_elem(colfs_thrift *r, bool *out,
					 colfs_err *err);

/* Skip a value of wire type `type` (for a bool field: nothing to skip). */
colfs_status colfs_thrift_skip(colfs_thrift *r, uint8_t type, colfs_err *err);
/* Skip the rest of the current struct up to and including its STOP. */
colfs_status colfs_thrift_skip_rest(colfs_thrift *r, int16_t *last_id,
				    colfs_err *err);
/* Skip one whole struct (from its first field header to its STOP). */
colfs_status colfs_thrift_skip_struct(colfs_thrift *r, colfs_err *err);

/* --- descriptor-driven JSON ------------------------------------------ */

struct colfs_thrift_sdesc;

typedef struct colfs_thrift_fdesc {
	int16_t id;
	const char *name;
	uint8_t type;      /* wire type: BOOL, BYTE.., BINARY, LIST, STRUCT */
	uint8_t elem;      /* LIST/SET: element wire type */
	const struct colfs_thrift_sdesc *sub;  /* STRUCT, or list of STRUCT */
	const char *const *enum_names;        /* i32 enums: names by value */
	uint16_t n_enum;
} colfs_thrift_fdesc;

typedef struct colfs_thrift_sdesc {
	const char *name;
	const colfs_thrift_fdesc *fields;
	uint16_t n_fields;
} colfs_thrift_sdesc;

struct json_t;
/* Decode one struct (from its first field header to its STOP) into a
 * jansson object described by `d` (NULL: every field as field_<id>). */
colfs_status colfs_thrift_struct_json(colfs_thrift *r,
				      const colfs_thrift_sdesc *d,
				      struct json_t **out, colfs_err *err);
/* The same object as JSON text, written into `out` as json_dumps with
 * JSON_INDENT(2) | JSON_PRESERVE_ORDER writes it (no '\n' after), its
 * lines indented by `depth` more levels of two spaces, without building
 * the tree.  Anything it cannot be sure to write exactly so (a double, a
 * string to escape, a key twice), and any failure, returns a status with
 * part of the text written: truncate `out` and render through
 * colfs_thrift_struct_json, which gives the failure's status and message. */
struct colfs_buf;
colfs_status colfs_thrift_struct_text(colfs_thrift *r,
				      const colfs_thrift_sdesc *d,
				      unsigned depth, struct colfs_buf *out,
				      colfs_err *err);
/* Render bytes the way binary fields are rendered (string or {"hex"}). */
struct json_t *colfs_thrift_binary_json(const uint8_t *p, size_t len);
/* True when `p` is valid UTF-8 without control characters (tab, CR and
 * LF allowed). */
bool colfs_thrift_text_ok(const uint8_t *p, size_t len);
/* A finite double as a JSON real; NaN and infinities as strings. */
struct json_t *colfs_thrift_double_json(double v);

#endif

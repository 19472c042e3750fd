/* colfs-mksample: a Thrift compact-protocol encoder, just big enough to
 * write Parquet metadata (FileMetaData, PageHeader, ColumnIndex,
 * OffsetIndex).  Written for this project from the protocol description;
 * the format core has its own decoder (formats/core/thrift.c).
 *
 * Output goes into a tw_buf, a growable byte buffer whose allocation
 * failure is sticky (every later append is a no-op and `failed` stays
 * set), so callers append freely and check once.
 *
 * Usage:
 *	tw w;
 *	tw_begin(&w, &buf);            -- the outermost struct
 *	tw_field_i32(&w, 1, version);
 *	tw_field_list_begin(&w, 2, TW_STRUCT, n);
 *	for (...) { tw_elem_struct_begin(&w); ...fields...; tw_struct_end(&w); }
 *	tw_struct_end(&w);             -- STOP of the outermost struct
 * Field ids must increase within a struct (the encoder uses deltas when it
 * can and the long form otherwise, so any order is still valid output).
 */
#ifndef COLFS_THRIFT_WRITER_H
#define COLFS_THRIFT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tw_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	bool failed;
} tw_buf;

void tw_buf_put(tw_buf *b, const void *p, size_t n);
void tw_buf_u8(tw_buf *b, uint8_t v);
void tw_buf_le32(tw_buf *b, uint32_t v);
void tw_buf_le64(tw_buf *b, uint64_t v);
/* Unsigned LEB128, as Thrift compact and Parquet's RLE headers use. */
void tw_buf_uvarint(tw_buf *b, uint64_t v);
/* Forget the content, keep the memory. */
void tw_buf_reset(tw_buf *b);
void tw_buf_free(tw_buf *b);

/* Compact-protocol type codes (field headers and list element types). */
enum tw_type {
	TW_BOOL_TRUE = 1,
	TW_BOOL_FALSE = 2,
	TW_BYTE = 3,
	TW_I16 = 4,
	TW_I32 = 5,
	TW_I64 = 6,
	TW_DOUBLE = 7,
	TW_BINARY = 8,
	TW_LIST = 9,
	TW_SET = 10,
	TW_MAP = 11,
	TW_STRUCT = 12,
};

#define TW_MAX_DEPTH 32

typedef struct tw {
	tw_buf *out;
	int16_t last[TW_MAX_DEPTH]; /* last field id per open struct */
	int depth;                  /* open structs */
	bool failed;                /* nesting misuse (too deep, unbalanced) */
} tw;

/* Start the outermost struct. */
void tw_begin(tw *w, tw_buf *out);
/* Write STOP and close the innermost open struct. */
void tw_struct_end(tw *w);
/* True when everything was written (no allocation failure, balanced). */
bool tw_ok(const tw *w);

void tw_field_bool(tw *w, int16_t id, bool v);
void tw_field_i16(tw *w, int16_t id, int16_t v);
void tw_field_i32(tw *w, int16_t id, int32_t v);
void tw_field_i64(tw *w, int16_t id, int64_t v);
void tw_field_double(tw *w, int16_t id, double v);
void tw_field_binary(tw *w, int16_t id, const void *p, size_t n);
void tw_field_string(tw *w, int16_t id, const char *s);
/* Open a struct-valued field; close it with tw_struct_end. */
void tw_field_struct_begin(tw *w, int16_t id);
/* A list field header; then exactly `count` tw_elem_* calls follow. */
void tw_field_list_begin(tw *w, int16_t id, enum tw_type elem,
			 uint32_t count);

void tw_elem_bool(tw *w, bool v);
void tw_elem_i32(tw *w, int32_t v);
void tw_elem_i64(tw *w, int64_t v);
void tw_elem_binary(tw *w, const void *p, size_t n);
void tw_elem_string(tw *w, const char *s);
/* A struct element of a list; close it with tw_struct_end. */
void tw_elem_struct_begin(tw *w);

#endif

/* colfs: the Variant binary encoding (parquet-format VariantEncoding.md)
 * decoded to compact JSON.
 *
 * A variant is two byte strings: the metadata (a version byte and a
 * dictionary of key strings) and the value (a self-describing tree of
 * primitives, short strings, objects and arrays whose object keys are
 * dictionary ids).  pq_variant_meta_parse checks the metadata once per
 * row; pq_variant_to_json renders a value with it.
 *
 * Every size, count, offset and id is checked against the bytes it comes
 * from before it is used: a value may only describe bytes inside the
 * slice it was handed, objects and arrays nest at most
 * PQ_VARIANT_MAX_DEPTH deep, a binary of n bytes yields at most n values,
 * and the top-level value must fill its bytes exactly.  A problem is COLFS_ECORRUPT (a malformed encoding) or
 * COLFS_EUNSUPPORTED (a metadata version other than 1, a primitive type id
 * beyond 20) with a message that gives the byte position inside the value
 * or metadata; nothing is allocated, output goes to a colfs_buf.
 *
 * The JSON forms are those of docs/values.md ("VARIANT"): each primitive
 * as colfs renders the equivalent Parquet type in JSON mode (integers and
 * decimals as bare numbers, floats shortest, dates, times, timestamps,
 * uuids and binaries as JSON strings), objects with their keys in stored
 * order, arrays in order.
 */
#ifndef COLFS_PQ_VARIANT_H
#define COLFS_PQ_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/status.h"

#define PQ_VARIANT_MAX_DEPTH 128

/* A parsed metadata: borrowed views into the caller's bytes. */
typedef struct pq_variant_meta {
	const uint8_t *offs;     /* n_keys + 1 offsets of off_size bytes */
	const uint8_t *strs;     /* the key bytes */
	size_t strs_len;
	uint32_t n_keys;
	uint8_t off_size;        /* 1..4 */
	bool sorted;
} pq_variant_meta;

/* Parse the metadata p[0..n): version 1, the offsets non-decreasing from 0
 * and ending at the length of the string bytes, which end the metadata. */
colfs_status pq_variant_meta_parse(const uint8_t *p, size_t n,
				   pq_variant_meta *m, colfs_err *err);

/* Key `id` of the dictionary (borrowed). */
colfs_status pq_variant_meta_key(const pq_variant_meta *m, uint32_t id,
				 const uint8_t **key, size_t *len,
				 colfs_err *err);

/* The size in bytes of the value starting at v (v[0..n) available):
 * checks the header and that the value's bytes lie inside n, not the
 * contents of nested values. */
colfs_status pq_variant_value_size(const uint8_t *v, size_t n, size_t *size,
				   colfs_err *err);

/* Append the JSON of the value v[0..n) (which must be exactly one value)
 * to out.  On failure out may hold part of the value.  At most n values
 * are decoded (each value of a well-formed encoding has a byte of its
 * own): elements whose offsets share bytes cannot make a few bytes
 * describe an exponentially large tree. */
colfs_status pq_variant_to_json(const pq_variant_meta *m, const uint8_t *v,
				size_t n, colfs_buf *out, colfs_err *err);
/* The same with the count of values allowed in *budget, decremented:
 * for values cut from one binary (the fields of a partially shredded
 * object), which share the budget of that binary's length. */
colfs_status pq_variant_to_json_budget(const pq_variant_meta *m,
				       const uint8_t *v, size_t n,
				       size_t *budget, colfs_buf *out,
				       colfs_err *err);

/* True when v[0..n) starts with the header of an object. */
bool pq_variant_is_object(const uint8_t *v, size_t n);
/* True when v[0..n) is exactly the variant null (one byte 0x00). */
bool pq_variant_is_null(const uint8_t *v, size_t n);

/* An object opened for reading its fields one by one (borrowed). */
typedef struct pq_variant_object {
	const uint8_t *ids, *offs, *fields;
	size_t fields_len;
	uint32_t n;
	uint8_t id_size, off_size;
} pq_variant_object;

/* Open the object v[0..n) (exactly one value, an object). */
colfs_status pq_variant_object_open(const uint8_t *v, size_t n,
				    pq_variant_object *o, colfs_err *err);
/* Field i (< o->n): its key from `m` and its value's bytes (exactly the
 * value, checked with pq_variant_value_size). */
colfs_status pq_variant_object_field(const pq_variant_object *o,
				     const pq_variant_meta *m, uint32_t i,
				     const uint8_t **key, size_t *klen,
				     const uint8_t **val, size_t *vlen,
				     colfs_err *err);

#endif

/* colfs: an Iceberg snapshot's deletes: which rows of each data file
 * its position deletes, equality deletes and deletion vectors remove. */
#ifndef COLFS_ICE_DELETES_H
#define COLFS_ICE_DELETES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "../../colfs.h"
#include "../../core/status.h"

/* A data or delete file as its manifest entry gives it: the fields scan
 * planning needs (the Iceberg spec, "Scan Planning"). */
typedef struct ice_file {
	char *path;          /* file_path as the manifest writes it */
	char *local;         /* where colfs reads it: a local path or a URL,
			      * after the table location is mapped */
	int content;         /* 0 data, 1 position deletes, 2 equality deletes */
	bool avro;           /* its file_format is AVRO: a delete file read
			      * through ice_avrodel.c, not as a tree */
	int64_t seq;         /* data sequence number (inherited as the spec says) */
	int32_t spec_id;     /* partition spec id */
	json_t *partition;   /* the partition tuple, {partition field name: value}
			      * as the manifest's Avro gives it (owned) */
	int64_t record_count;
	uint64_t size;       /* file_size_in_bytes */
	int32_t *equality_ids;       /* equality deletes: field ids */
	size_t n_equality_ids;
	char *referenced_data_file;  /* position deletes / DVs: the one data file they apply to, or NULL */
	int64_t content_offset;      /* a v3 deletion vector: its blob in the Puffin file; -1: none */
	int64_t content_size;
	char *manifest;      /* the manifest that listed it (for messages) */
} ice_file;

/* The current schema's fields by id, for reading equality delete columns
 * from data files (by Parquet field id; by name when a file has none). */
typedef struct ice_field_ref {
	int32_t id;
	const char *name;
} ice_field_ref;

typedef struct ice_deletes ice_deletes;

/* Index the delete files `dels` against the data files `data` (both
 * borrowed: they outlive the index).  `o` opens the files. */
colfs_status ice_deletes_new(const ice_file *data, size_t n_data,
			     const ice_file *dels, size_t n_dels,
			     const ice_field_ref *fields, size_t n_fields,
			     const colfs_options *o, ice_deletes **out,
			     colfs_err *err);
/* The rows of data file `i` the deletes remove: ascending, no repeats,
 * 0-based positions, malloc'd for the caller (NULL/0: none).  Reads the
 * delete files that apply, each once (cached): position delete files and
 * deletion vectors by position, equality delete files by value against
 * data file i's equality columns.  A delete file that cannot be read or
 * is damaged (a deletion vector that is not valid Puffin) fails with the
 * file named in `err` (COLFS_EIO missing, COLFS_ECORRUPT damaged): never
 * a partial answer.  Safe to call from several threads. */
colfs_status ice_deletes_rows(ice_deletes *d, size_t i, uint64_t **rows,
			      size_t *n, colfs_err *err);
/* The indexes (into `dels`) of the delete files that apply to data file
 * `i`, for files/ and summary; malloc'd for the caller. */
colfs_status ice_deletes_applying(ice_deletes *d, size_t i, size_t **idx,
				  size_t *n);
void ice_deletes_free(ice_deletes *d);

/* Optional: what data file `i` reads for field `field_id` it lacks (its
 * identity partition's value, the field's initial-default), as the text
 * colfs renders for it in columns/ (malloc'd into *text), or NULL in
 * *text: NULL.  Equality deletes compare it with their own columns.
 * Without it (or before it is set) a lacking field reads as NULL.  Set
 * once, before the first ice_deletes_rows; called from the threads that
 * call ice_deletes_rows. */
typedef colfs_status (*ice_fill_fn)(void *arg, size_t i, int32_t field_id,
				    char **text);
void ice_deletes_set_fill(ice_deletes *d, ice_fill_fn fill, void *arg);
#endif

/* colfs: Iceberg delete files written in Avro (the spec allows Parquet,
 * ORC and Avro delete files; Java writers write Avro ones when
 * write.delete.format.default says so): their rows read through the
 * core's Avro reader (formats/core/avro.c, the one the manifests use),
 * each value given as the text colfs renders for the same Iceberg type
 * in a Parquet file's columns/ (docs/values.md), so that ice_deletes.c
 * reads them as it reads a Parquet delete file's columns.
 * ice_avrodel.c. */
#ifndef COLFS_ICE_AVRODEL_H
#define COLFS_ICE_AVRODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../colfs.h"
#include "../../core/status.h"

typedef struct ice_avrodel ice_avrodel;

/* Open the Avro delete file at `local` to read its top-level fields of
 * ids `ids` (names `names[k]`, which may be NULL) row by row: each found
 * by its Iceberg field id, else, when no field of the file has one, by
 * its name.  A field the file lacks: COLFS_ENOENT with its id in
 * *missing; one of a nested type (record, array, map; the spec's delete
 * columns are primitives): COLFS_EUNSUPPORTED with its id in *missing;
 * a container that is not valid Avro fails as the reader says, `err`
 * holding its message and offset (`err.msg` without the file's name). */
colfs_status ice_avrodel_open(const char *local, const colfs_options *o,
			      const int32_t *ids, const char *const *names,
			      size_t n, ice_avrodel **out, int32_t *missing,
			      colfs_err *err);
/* The next row: texts[k] (valid until the next call) the value of the
 * k-th field as colfs renders it in text mode, NULL as `\N`.  *end true
 * after the last row. */
colfs_status ice_avrodel_next(ice_avrodel *a, char ***texts,
			      bool *end, colfs_err *err);
void ice_avrodel_close(ice_avrodel *a);
#endif

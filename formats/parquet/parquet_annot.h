/* colfs: a Parquet schema's annotations against what they annotate
 * (parquet_annot.c; module-private).
 *
 * parquet-format's LogicalTypes.md gives each logical type and converted
 * type the physical types it may annotate (DATE on INT32, TIMESTAMP on
 * INT64, INTEGER(8|16|32) on INT32, UUID on a 16-byte
 * FIXED_LEN_BYTE_ARRAY, ...), and a VARIANT group its fields.  A schema
 * that breaks these rules is not refused: its values render as the
 * renderer takes the annotation and the physical type (docs/values.md),
 * which may be far from what the writer meant, so each clash is a
 * problem of the file naming the column, the annotation, the physical
 * type and the schema element's offset.
 */
#ifndef COLFS_PARQUET_ANNOT_H
#define COLFS_PARQUET_ANNOT_H

#include "parquet.h"

/* Check every schema element of `pf` (its tree built) and pass each
 * clash to `report` (may be NULL). */
void parquet_annot_check(const parquet_file *pf, parquet_report_fn report,
			 void *report_ctx);

/* A TIME column's day in its unit (86,400,000 for MILLIS, 86,400,000,000
 * for MICROS, 86,400,000,000,000 for NANOS), and the unit's name in
 * `*unit`; 0 for a column that is not a TIME. */
int64_t parquet_annot_time_day(const parquet_schema_elem *e,
			       const char **unit);

#endif

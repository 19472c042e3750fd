/* tests/fuzz: the Avro container reader (formats/core/avro.c).
 *
 * The input is a whole container file, opened over a window at FUZZ_BASE
 * of a memory source (the bytes before it are zeros) with max_alloc
 * 64 MiB; every record (at most 10,000) is read, turned into JSON and
 * written out, and its fields looked up by name and by field id.
 * Invariants: statuses are enum values, failures name an offset inside
 * the container, a failure is sticky (the next call fails the same way),
 * the records and blocks counted match what was returned, every record
 * serialises. */
#include <jansson.h>

#include "core/avro.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = calloc(1, FUZZ_BASE + size + 1);
	colfs_source *src;
	colfs_avro_reader *r;
	const colfs_avro_value *v;
	colfs_err err;
	colfs_status st;
	uint64_t n = 0;

	if (!buf)
		return 0;
	memcpy(buf + FUZZ_BASE, data, size);
	if (colfs_source_create_memory(buf, FUZZ_BASE + size, &src)) {
		free(buf);
		return 0;
	}
	free(buf);
	memset(&err, 0, sizeof(err));
	st = colfs_avro_open(src, FUZZ_BASE, size, 64u << 20, &r, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, size);
	if (st) {
		FUZZ_CHECK(r == NULL);
		colfs_source_destroy(src);
		return 0;
	}
	FUZZ_CHECK(colfs_avro_schema_root(r) != NULL);
	FUZZ_CHECK(colfs_avro_codec(r) != NULL);
	while (n < 10000) {
		uint64_t at = 0;

		memset(&err, 0, sizeof(err));
		st = colfs_avro_next(r, &v, &at, &err);
		fuzz_check_err(st, &err, FUZZ_BASE, size);
		if (st)
			break;
		n++;
		FUZZ_CHECK(v != NULL);
		FUZZ_CHECK(at >= FUZZ_BASE && at < FUZZ_BASE + size);
		json_t *j = colfs_avro_json(v);
		if (j) {
			char *s = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);

			FUZZ_CHECK(s != NULL);
			free(s);
			json_decref(j);
		}
		if (v->type->type == COLFS_AVRO_RECORD) {
			for (size_t i = 0; i < v->type->n; i++) {
				const colfs_avro_field *f = &v->type->fields[i];

				FUZZ_CHECK(colfs_avro_field_by_name(v, f->name) != NULL);
				if (f->has_id)
					FUZZ_CHECK(colfs_avro_field_by_id(v, f->id) != NULL);
			}
		}
	}
	FUZZ_CHECK(colfs_avro_records(r) == n);
	if (st && st != COLFS_END) {
		colfs_err again;
		memset(&again, 0, sizeof(again));
		FUZZ_CHECK(colfs_avro_next(r, &v, NULL, &again) == st);
		FUZZ_CHECK(again.offset == err.offset);
	}
	colfs_avro_close(r);
	colfs_source_destroy(src);
	return 0;
}

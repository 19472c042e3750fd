/* tests/fuzz: Iceberg Puffin files and deletion vectors
 * (formats/dataset/iceberg/ice_puffin.c).
 *
 * The input is a Puffin file in a memory source (max_alloc 1 MiB, at
 * most 65536 rows a vector): its footer, then each blob it lists (at
 * most 64) read as the deletion vector of the data file its properties
 * name, by offset and by that name.  The input is also read as a bare
 * deletion-vector-v1 blob, as it is and with its length and CRC-32 made
 * right (so that the Roaring bitmaps behind them are reached).
 * Invariants: statuses are enum values, failures name an offset inside
 * the input (a blob found by name has none to give), a vector's rows are
 * strictly ascending and at most the bound. */
#include <jansson.h>

#include "core/codec.h"
#include "core/source.h"
#include "dataset/iceberg/ice_puffin.h"
#include "fuzz_util.h"

#define MAX_ROWS 65536u
#define MAX_ALLOC (1u << 20)

static void check_rows(const uint64_t *rows, size_t n)
{
	FUZZ_CHECK(n <= MAX_ROWS);
	for (size_t i = 1; i < n; i++)
		FUZZ_CHECK(rows[i - 1] < rows[i]);
}

static void blob(const uint8_t *b, size_t size)
{
	uint64_t *rows = NULL;
	size_t n = 0;
	colfs_err err = {0};
	colfs_status st = ice_dv_blob_decode(b, size, MAX_ROWS, &rows, &n,
					     &err);

	fuzz_check_err(st, &err, 0, size);
	if (st == COLFS_OK)
		check_rows(rows, n);
	else
		FUZZ_CHECK(rows == NULL && n == 0);
	free(rows);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = fuzz_dup(data, size);
	colfs_source *src;
	json_t *footer = NULL;
	colfs_err err = {0};

	if (!buf)
		return 0;
	if (colfs_source_create_memory(buf, size, &src)) {
		free(buf);
		return 0;
	}
	colfs_status st = ice_puffin_footer(src, MAX_ALLOC, &footer, &err);
	fuzz_check_err(st, &err, 0, size);
	if (st == COLFS_OK) {
		json_t *blobs = json_object_get(footer, "blobs");
		size_t i;
		json_t *b;
		FUZZ_CHECK(json_is_array(blobs));
		json_array_foreach(blobs, i, b) {
			if (i >= 64)
				break;
			const char *ref = json_string_value(json_object_get(
				json_object_get(b, "properties"),
				"referenced-data-file"));
			int64_t off = json_integer_value(json_object_get(b, "offset"));
			int64_t len = json_integer_value(json_object_get(b, "length"));
			uint64_t *rows = NULL;
			size_t n = 0;
			memset(&err, 0, sizeof err);
			st = ice_puffin_dv(src, footer, ref ? ref : "data.parquet",
					   off, len, MAX_ROWS, MAX_ALLOC, &rows,
					   &n, &err);
			fuzz_check_err(st, &err, 0, size);
			if (st == COLFS_OK)
				check_rows(rows, n);
			free(rows);
			rows = NULL;
			n = 0;
			st = ice_puffin_dv(src, footer, ref ? ref : "data.parquet",
					   -1, -1, MAX_ROWS, MAX_ALLOC, &rows, &n,
					   &err);
			FUZZ_CHECK(fuzz_status_valid(st));
			if (st == COLFS_OK)
				check_rows(rows, n);
			free(rows);
		}
		json_decref(footer);
	} else {
		FUZZ_CHECK(footer == NULL);
	}
	colfs_source_destroy(src);
	blob(buf, size);
	if (size >= 12) {
		uint32_t vlen = (uint32_t)(size - 8);
		uint32_t crc = colfs_crc32(0, buf + 4, vlen);
		buf[0] = (uint8_t)(vlen >> 24);
		buf[1] = (uint8_t)(vlen >> 16);
		buf[2] = (uint8_t)(vlen >> 8);
		buf[3] = (uint8_t)vlen;
		buf[size - 4] = (uint8_t)(crc >> 24);
		buf[size - 3] = (uint8_t)(crc >> 16);
		buf[size - 2] = (uint8_t)(crc >> 8);
		buf[size - 1] = (uint8_t)crc;
		blob(buf, size);
	}
	free(buf);
	return 0;
}

/* tests/fuzz: the Thrift compact decoder.
 *
 * One input is decoded four ways: skipped as one struct, converted to
 * JSON as a FileMetaData, as a PageHeader (and as an unknown struct), and
 * parsed by parquet_pages_header_parse.  Invariants: statuses are enum
 * values, failures name an offset inside the input, the cursor never
 * moves past its window, nesting comes back to zero, a successful skip
 * and a successful JSON conversion consume the same bytes, and a parsed
 * page header is self-consistent. */
#include <jansson.h>

#include "core/cursor.h"
#include "core/thrift.h"
#include "fuzz_util.h"
#include "parquet/parquet.h"
#include "parquet/parquet_desc.h"

static size_t skip_len(const uint8_t *p, size_t n, colfs_status *st_out)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_err err;
	colfs_status st;

	memset(&err, 0, sizeof(err));
	colfs_cursor_init(&c, p, n, FUZZ_BASE);
	colfs_thrift_init(&r, &c);
	st = colfs_thrift_skip_struct(&r, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, n);
	FUZZ_CHECK(c.pos <= c.len);
	if (st == COLFS_OK)
		FUZZ_CHECK(r.depth == 0);
	*st_out = st;
	return c.pos;
}

static void to_json(const uint8_t *p, size_t n, const colfs_thrift_sdesc *d,
		    colfs_status skip_st, size_t skipped)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_err err;
	colfs_status st;
	json_t *j = NULL;

	memset(&err, 0, sizeof(err));
	colfs_cursor_init(&c, p, n, FUZZ_BASE);
	colfs_thrift_init(&r, &c);
	st = colfs_thrift_struct_json(&r, d, &j, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, n);
	FUZZ_CHECK(c.pos <= c.len);
	if (st == COLFS_OK) {
		char *s;

		FUZZ_CHECK(j != NULL && json_is_object(j));
		FUZZ_CHECK(r.depth == 0);
		/* what decodes also skips, over the same bytes */
		FUZZ_CHECK(skip_st == COLFS_OK);
		FUZZ_CHECK(c.pos == skipped);
		s = json_dumps(j, JSON_COMPACT);
		FUZZ_CHECK(s != NULL);
		free(s);
	}
	json_decref(j);
}

static void page_header(const uint8_t *p, size_t n)
{
	colfs_cursor c;
	colfs_err err;
	colfs_status st;
	parquet_page_header h;

	memset(&err, 0, sizeof(err));
	colfs_cursor_init(&c, p, n, FUZZ_BASE);
	st = parquet_pages_header_parse(&c, &h, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, n);
	FUZZ_CHECK(c.pos <= c.len);
	if (st != COLFS_OK)
		return;
	FUZZ_CHECK(h.header_len == c.pos);
	FUZZ_CHECK(h.compressed_size >= 0 && h.uncompressed_size >= 0);
	FUZZ_CHECK(h.num_values >= 0);
	if (h.has_data_v2) {
		FUZZ_CHECK(h.def_levels_len >= 0 && h.rep_levels_len >= 0);
		FUZZ_CHECK((int64_t)h.def_levels_len + h.rep_levels_len <=
			   h.compressed_size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_dup(data, size);
	colfs_status skip_st;
	size_t skipped;

	if (!p)
		return 0;
	skipped = skip_len(p, size, &skip_st);
	to_json(p, size, &parquet_desc_file_metadata, skip_st, skipped);
	to_json(p, size, &parquet_desc_page_header, skip_st, skipped);
	to_json(p, size, NULL, skip_st, skipped);
	page_header(p, size);
	free(p);
	return 0;
}

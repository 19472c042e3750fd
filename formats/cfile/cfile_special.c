/* colfs: the two Kudu files with special meaning (§13): DeltaFiles (each
 * value = DeltaKey + RowChangeList) and BloomFiles (raw bloom blocks).
 * A CFile does not record its role; it is recognised from its shape. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"

enum cfile_role cfile_special_role_detect(const cfile_file *f)
{
	const Kudu__Cfile__CFileFooterPB *ft = f->footer;
	bool binary_plain = f->ti && f->ti->phys == CFILE_PHYS_BINARY &&
			    f->encoding == CFILE_PLAIN;

	if (!ft || !binary_plain)
		return CFILE_ROLE_COLUMN;
	for (size_t i = 0; i < ft->n_metadata; i++)
		if (ft->metadata[i]->key &&
		    !strcmp(ft->metadata[i]->key, "deltafilestats"))
			return CFILE_ROLE_DELTA;
	if (f->num_values == 0 && !ft->posidx_info && ft->validx_info &&
	    f->compression == CFILE_NO_COMPRESSION)
		return CFILE_ROLE_BLOOM;
	return CFILE_ROLE_COLUMN;
}

/* The memcmp-sortable varint of SQLite4 (§13.1). */
colfs_status cfile_special_memcmp_varint(colfs_cursor *c, uint64_t *out,
				  colfs_err *err)
{
	uint8_t a0;
	const uint8_t *p;

	COLFS_TRY(colfs_cursor_u8(c, &a0, err));
	if (a0 <= 240) {
		*out = a0;
	} else if (a0 <= 248) {
		COLFS_TRY(colfs_cursor_bytes(c, 1, &p, err));
		*out = 240 + 256 * (uint64_t)(a0 - 241) + p[0];
	} else if (a0 == 249) {
		COLFS_TRY(colfs_cursor_bytes(c, 2, &p, err));
		*out = 2288 + 256 * (uint64_t)p[0] + p[1];
	} else {
		unsigned n = a0 - 250 + 3;
		COLFS_TRY(colfs_cursor_bytes(c, n, &p, err));
		*out = 0;
		for (unsigned i = 0; i < n; i++)
			*out = *out << 8 | p[i];
	}
	return COLFS_OK;
}

static void value_bytes(colfs_buf *out, const uint8_t *p, uint32_t n)
{
	bool text = n > 0;

	for (uint32_t i = 0; i < n && text; i++)
		text = p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' &&
		       p[i] != '\\';
	if (text) {
		colfs_buf_putc(out, '"');
		colfs_buf_append(out, p, n);
		colfs_buf_putc(out, '"');
		return;
	}
	colfs_buf_puts(out, "0x");
	for (uint32_t i = 0; i < n; i++)
		colfs_buf_printf(out, "%02x", p[i]);
}

colfs_status cfile_special_delta_render(const uint8_t *p, size_t n, colfs_buf *out,
				uint64_t where, colfs_err *err)
{
	colfs_cursor c;
	uint64_t row, ts;
	uint8_t type;
	static const char *const names[] = {"", "UPDATE", "DELETE",
					    "REINSERT"};

	colfs_cursor_init_virtual(&c, p, n, where);
	COLFS_TRY(cfile_special_memcmp_varint(&c, &row, err));
	COLFS_TRY(cfile_special_memcmp_varint(&c, &ts, err));
	COLFS_TRY(colfs_cursor_u8(&c, &type, err));
	if (type < 1 || type > 3)
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "row change list type %u (expected 1 "
				  "UPDATE, 2 DELETE, 3 REINSERT)", type);
	if (type == 2 && colfs_cursor_left(&c))
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "DELETE followed by %zu bytes",
				  colfs_cursor_left(&c));
	if (type == 1 && !colfs_cursor_left(&c))
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "UPDATE without columns");
	colfs_buf_printf(out, "row=%llu ts=%llu (physical=%llu logical=%llu) "
			 "%s", (unsigned long long)row,
			 (unsigned long long)ts,
			 (unsigned long long)(ts >> 12),
			 (unsigned long long)(ts & 0xfff), names[type]);
	while (colfs_cursor_left(&c)) {
		uint64_t col, len1;
		const uint8_t *v;
		COLFS_TRY(colfs_cursor_uvarint(&c, &col, err));
		COLFS_TRY(colfs_cursor_uvarint(&c, &len1, err));
		if (col > UINT32_MAX || len1 > colfs_cursor_left(&c) + 1)
			return colfs_fail(err, COLFS_ECORRUPT, where,
					  "change list entry (column %llu, "
					  "length %llu) does not fit",
					  (unsigned long long)col,
					  (unsigned long long)len1);
		colfs_buf_printf(out, " c%llu=", (unsigned long long)col);
		if (len1 == 0) {
			colfs_buf_puts(out, "NULL");
			continue;
		}
		COLFS_TRY(colfs_cursor_bytes(&c, (size_t)(len1 - 1), &v, err));
		value_bytes(out, v, (uint32_t)(len1 - 1));
	}
	colfs_buf_putc(out, '\n');
	return COLFS_OK;
}

colfs_status cfile_special_delta_stats_json(const cfile_file *f, colfs_buf *out)
{
	const Kudu__Cfile__CFileFooterPB *ft = f->footer;

	for (size_t i = 0; i < ft->n_metadata; i++) {
		const Kudu__Cfile__FileMetadataPairPB *m = ft->metadata[i];
		if (!m->key || strcmp(m->key, "deltafilestats"))
			continue;
		colfs_proto_msg pm = {0};

		if (colfs_proto_unpack_status(
			    &pm, &kudu__cfile__delta_stats_pb__descriptor,
			    m->value.data, m->value.len,
			    colfs_proto_cap(m->value.len, f->max_alloc)))
			return COLFS_ECORRUPT;
		json_t *o = json_object();
		if (o)
			cfile_file_pb_json_into(f, o, pm.msg);
		colfs_proto_free(&pm);
		return colfs_buf_json(out, o);
	}
	return COLFS_ENOENT;
}

colfs_status cfile_special_bloom_describe(const uint8_t *p, size_t n, colfs_buf *out,
				  uint64_t where, colfs_err *err)
{
	uint32_t h;
	uint64_t bits = 0;
	colfs_proto_msg m = {0};
	const Kudu__Cfile__BloomBlockHeaderPB *hdr = NULL;

	if (n < 4)
		return colfs_fail(err, COLFS_ETRUNCATED, where,
				  "bloom block of %zu bytes", n);
	h = colfs_le32(p);
	if (h > n - 4)
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "bloom header length %u does not fit the "
				  "%zu-byte block", h, n);
	/* at most n bytes: the cap needs no file option */
	if (colfs_proto_unpack_status(
		    &m, &kudu__cfile__bloom_block_header_pb__descriptor, p + 4,
		    h, colfs_proto_cap(h, UINT64_MAX)) == COLFS_OK)
		hdr = (const Kudu__Cfile__BloomBlockHeaderPB *)m.msg;
	if (!hdr || !hdr->has_num_hash_functions ||
	    hdr->num_hash_functions <= 0) {
		colfs_proto_free(&m);
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "bloom block header is not a valid "
				  "BloomBlockHeaderPB");
	}
	for (size_t i = 4 + h; i < n; i++)
		bits += (uint64_t)__builtin_popcount(p[i]);
	colfs_buf_printf(out, "hash_functions=%d bitmap_bytes=%zu bits_set=%llu",
			 hdr->num_hash_functions, n - 4 - h,
			 (unsigned long long)bits);
	colfs_proto_free(&m);
	return COLFS_OK;
}

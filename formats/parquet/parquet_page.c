/* colfs: Parquet page headers (typed, fast) and the page walk of a chunk. */
#include "parquet_internal.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t t_page_header[] = {
	0, COLFS_THRIFT_I32, COLFS_THRIFT_I32, COLFS_THRIFT_I32,
	COLFS_THRIFT_I32, COLFS_THRIFT_STRUCT, COLFS_THRIFT_STRUCT,
	COLFS_THRIFT_STRUCT, COLFS_THRIFT_STRUCT,
};

static const char *sub_field_name(int kind, int16_t id)
{
	static const char *const v1[] = {
		"", "num_values", "encoding", "definition_level_encoding",
		"repetition_level_encoding",
	};
	static const char *const v2[] = {
		"", "num_values", "num_nulls", "num_rows", "encoding",
		"definition_levels_byte_length",
		"repetition_levels_byte_length",
	};
	static const char *const dict[] = {"", "num_values", "encoding"};

	if (kind == 5 && id > 0 && id < 5)
		return v1[id];
	if (kind == 8 && id > 0 && id < 7)
		return v2[id];
	if (kind == 7 && id > 0 && id < 3)
		return dict[id];
	return "?";
}

/* Read the fields of a sub-header (DataPageHeader, DataPageHeaderV2,
 * DictionaryPageHeader) into `h`.  `kind` is the PageHeader field id. */
static colfs_status parse_sub(colfs_thrift *r, int kind,
			      parquet_page_header *h, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(r->cur);
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	unsigned seen = 0;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, err));
	while ((st = colfs_thrift_field_next(r, &last, &f, err)) == COLFS_OK) {
		int32_t *dst = NULL;
		if (f.id > 0 && f.id < 16)
			seen |= 1u << f.id;
		switch (kind * 16 + f.id) {
		case 5 * 16 + 1: dst = &h->num_values; break;
		case 5 * 16 + 2: dst = &h->encoding; break;
		case 5 * 16 + 3: dst = &h->def_encoding; break;
		case 5 * 16 + 4: dst = &h->rep_encoding; break;
		case 7 * 16 + 1: dst = &h->num_values; break;
		case 7 * 16 + 2: dst = &h->encoding; break;
		case 8 * 16 + 1: dst = &h->num_values; break;
		case 8 * 16 + 2: dst = &h->num_nulls; break;
		case 8 * 16 + 3: dst = &h->num_rows; break;
		case 8 * 16 + 4: dst = &h->encoding; break;
		case 8 * 16 + 5: dst = &h->def_levels_len; break;
		case 8 * 16 + 6: dst = &h->rep_levels_len; break;
		case 7 * 16 + 3:
			if (f.type != COLFS_THRIFT_BOOL)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "is_sorted is not a bool");
			h->dict_sorted = f.bool_value;
			continue;
		case 8 * 16 + 7:
			if (f.type != COLFS_THRIFT_BOOL)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "is_compressed is not a bool");
			h->is_compressed = f.bool_value;
			continue;
		case 5 * 16 + 5:
		case 8 * 16 + 8:
			h->has_statistics = true;
			COLFS_TRY(colfs_thrift_skip(r, f.type, err));
			continue;
		default:
			COLFS_TRY(colfs_thrift_skip(r, f.type, err));
			continue;
		}
		COLFS_TRY(colfs_thrift_read_i32(r, f.type, dst, err));
		if (*dst < 0)
			return colfs_fail(err, COLFS_ECORRUPT, f.offset,
					  "%s.%s is negative (%d)",
					  kind == 5 ? "DataPageHeader"
					  : kind == 7 ? "DictionaryPageHeader"
					  : "DataPageHeaderV2",
					  sub_field_name(kind, f.id), *dst);
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(r);
	{
		unsigned need = kind == 5 ? 0x1e : kind == 7 ? 0x06 : 0x7e;
		if ((seen & need) != need)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "%s lacks required fields",
					  kind == 5 ? "DataPageHeader"
					  : kind == 7 ? "DictionaryPageHeader"
					  : "DataPageHeaderV2");
	}
	return COLFS_OK;
}

colfs_status parquet_page_header_parse(colfs_cursor *c,
				       parquet_page_header *h,
				       colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	size_t start = c->pos;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;
	unsigned seen = 0;
	int32_t crc;

	memset(h, 0, sizeof *h);
	h->is_compressed = true;
	colfs_thrift_init(&r, c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, err));
	while ((st = colfs_thrift_field_next(&r, &last, &f, err)) == COLFS_OK) {
		if (PARQUET_MISFIT(t_page_header, f)) {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
			continue;
		}
		if (f.id > 0 && f.id < 16)
			seen |= 1u << f.id;
		switch (f.id) {
		case 1:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type, &h->type,
							err));
			break;
		case 2:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type,
							&h->uncompressed_size,
							err));
			break;
		case 3:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type,
							&h->compressed_size,
							err));
			break;
		case 4:
			COLFS_TRY(colfs_thrift_read_i32(&r, f.type, &crc, err));
			h->crc = (uint32_t)crc;
			h->has_crc = true;
			break;
		case 5:
		case 7:
		case 8:
			if (f.type != COLFS_THRIFT_STRUCT)
				return colfs_fail(err, COLFS_ECORRUPT, f.offset,
						  "page sub-header %d is a %s, not a struct",
						  f.id,
						  colfs_thrift_type_name(f.type));
			COLFS_TRY(parse_sub(&r, f.id, h, err));
			if (f.id == 5)
				h->has_data_v1 = true;
			else if (f.id == 7)
				h->has_dictionary = true;
			else
				h->has_data_v2 = true;
			break;
		case 6:
			h->has_index = true;
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
			break;
		default:
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
		}
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&r);
	h->header_len = (uint32_t)(c->pos - start);
	if ((seen & 0xe) != 0xe)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PageHeader lacks %s",
				  !(seen & 2) ? "type"
				  : !(seen & 4) ? "uncompressed_page_size"
				  : "compressed_page_size");
	if (h->compressed_size < 0 || h->uncompressed_size < 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PageHeader has negative page size (%d compressed, %d uncompressed)",
				  h->compressed_size, h->uncompressed_size);
	switch (h->type) {
	case PARQUET_PAGE_DATA:
		if (!h->has_data_v1)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE without data_page_header");
		break;
	case PARQUET_PAGE_DATA_V2:
		if (!h->has_data_v2)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE_V2 without data_page_header_v2");
		if ((int64_t)h->def_levels_len + h->rep_levels_len >
		    h->compressed_size)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE_V2 level lengths %d + %d exceed compressed_page_size %d",
					  h->rep_levels_len, h->def_levels_len,
					  h->compressed_size);
		if (h->num_nulls > h->num_values)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DATA_PAGE_V2 has more nulls (%d) than values (%d)",
					  h->num_nulls, h->num_values);
		break;
	case PARQUET_PAGE_DICTIONARY:
		if (!h->has_dictionary)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "DICTIONARY_PAGE without dictionary_page_header");
		break;
	case PARQUET_PAGE_INDEX:
		break;
	default:
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "unknown page type %d", h->type);
	}
	return COLFS_OK;
}

/* First read of a header; grows (x4) up to max_header when the header
 * (e.g. with large statistics) does not fit. */
#define HEADER_FIRST_READ 4096

colfs_status parquet_chunk_walk(const colfs_source *src,
				const parquet_chunk *ch, uint64_t max_header,
				parquet_page **pages, size_t *n_pages,
				colfs_err *stop, colfs_err *note)
{
	parquet_page *list = NULL;
	size_t n = 0, cap = 0;
	uint64_t pos = ch->start, declared = ch->start + ch->length;
	uint64_t end = declared + ch->slack;
	int64_t values = 0;
	uint8_t *buf = NULL;
	size_t buf_cap = 0;

	*pages = NULL;
	*n_pages = 0;
	stop->status = COLFS_OK;
	stop->offset = ch->start;
	stop->msg[0] = 0;
	if (max_header < HEADER_FIRST_READ)
		max_header = HEADER_FIRST_READ;
	if (ch->encrypted) {
		colfs_fail(stop, COLFS_EUNSUPPORTED, ch->start,
			   "the column chunk is encrypted (Parquet modular encryption); colfs has no keys to read its page headers");
		return COLFS_OK;
	}
	if (!ch->has_meta) {
		colfs_fail(stop, COLFS_ECORRUPT, ch->start,
			   "the column chunk has no ColumnMetaData");
		return COLFS_OK;
	}
	/* Walk to the chunk's end, but stop after the data page that
	 * completes num_values (what follows would not be pages). */
	while (pos < end &&
	       !(n && values >= ch->num_values &&
		 (list[n - 1].hdr.type == PARQUET_PAGE_DATA ||
		  list[n - 1].hdr.type == PARQUET_PAGE_DATA_V2))) {
		uint64_t avail = end - pos, want = HEADER_FIRST_READ;
		parquet_page_header h;
		colfs_cursor c;
		colfs_status st;
		uint64_t data_end;

		for (;;) {
			size_t got;
			if (want > avail)
				want = avail;
			if (want > buf_cap) {
				uint8_t *nb = realloc(buf, (size_t)want);
				if (!nb)
					goto nomem;
				buf = nb;
				buf_cap = (size_t)want;
			}
			st = colfs_source_pread(src, pos, (size_t)want, buf,
						&got, stop);
			if (st)
				goto out;
			colfs_cursor_init(&c, buf, got, pos);
			st = parquet_page_header_parse(&c, &h, stop);
			if (st != COLFS_ETRUNCATED || got < want ||
			    want >= avail || want >= max_header)
				break;
			want *= 4;
			if (want > max_header)
				want = max_header;
		}
		if (!st) {
			/* a failed shorter attempt left its error behind */
			stop->status = COLFS_OK;
			stop->msg[0] = 0;
		}
		if (st == COLFS_ENOMEM)
			goto nomem;
		if (st) {
			char why[sizeof stop->msg];
			memcpy(why, stop->msg, sizeof why);
			if (st == COLFS_ETRUNCATED && want >= avail)
				colfs_fail(stop, COLFS_ETRUNCATED, pos,
					   "page %zu: header at %llu runs past the end of the chunk (%llu bytes left): %s",
					   n, (unsigned long long)pos,
					   (unsigned long long)avail, why);
			else
				colfs_fail(stop, st, stop->offset,
					   "page %zu (header at %llu): %s", n,
					   (unsigned long long)pos, why);
			goto out;
		}
		data_end = pos + h.header_len + (uint64_t)h.compressed_size;
		if (data_end > end) {
			colfs_fail(stop, COLFS_EBOUNDS, pos,
				   "page %zu at %llu (%u header + %d data bytes) runs %llu bytes past the end of its chunk",
				   n, (unsigned long long)pos, h.header_len,
				   h.compressed_size,
				   (unsigned long long)(data_end - end));
			goto out;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			parquet_page *nl = realloc(list, nc * sizeof *nl);
			if (!nl)
				goto nomem;
			list = nl;
			cap = nc;
		}
		if (data_end > declared && note && !note->status)
			colfs_fail(note, COLFS_ECORRUPT, pos,
				   "page %zu ends %llu bytes past the chunk's total_compressed_size: the writer (parquet-mr before 1.2.9) left the dictionary page header out of it (PARQUET-816); read anyway",
				   n, (unsigned long long)(data_end - declared));
		list[n].offset = pos;
		list[n].hdr = h;
		n++;
		if (h.type == PARQUET_PAGE_DATA || h.type == PARQUET_PAGE_DATA_V2)
			values += h.num_values;
		pos = data_end;
	}
	if (values != ch->num_values)
		colfs_fail(stop, COLFS_ECORRUPT, pos,
			   "the pages hold %lld values, the chunk metadata says %lld",
			   (long long)values, (long long)ch->num_values);
	else if (pos < declared)
		colfs_fail(stop, COLFS_ECORRUPT, pos,
			   "%llu bytes of the chunk follow its last page",
			   (unsigned long long)(declared - pos));
out:
	free(buf);
	*pages = list;
	*n_pages = n;
	return COLFS_OK;
nomem:
	free(buf);
	free(list);
	return colfs_fail(stop, COLFS_ENOMEM, pos,
			  "out of memory walking the pages");
}

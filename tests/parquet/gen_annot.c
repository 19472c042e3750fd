/* colfs tests: Parquet files whose annotations, counts or values break
 * the format's rules, made with the project's Thrift writer
 * (tools/thrift-writer.c); tests/parquet/annot.sh reads them.
 *   gen_annot DIR
 * writes into DIR (one row group, required columns, one PLAIN data page
 * a column, uncompressed unless said):
 *   ts-int32-8byte.parquet  INT32 `ts` annotated TIMESTAMP(MICROS) (and
 *                           TIMESTAMP_MICROS) whose page holds 3 8-byte
 *                           values (694224000000000, 1992-01-01) where
 *                           its header says 3 values: 12 bytes left over
 *   ts-int32-snappy.parquet the same, its page compressed (SNAPPY)
 *   int-width.parquet       INTEGER(64) on INT32, INTEGER(32) and
 *                           INTEGER(8) on INT64, INT_16 on INT64,
 *                           INTEGER(12) on INT32
 *   group-clash.parquet     STRING on a group, LIST on an INT32,
 *                           DECIMAL on a DOUBLE
 *   rows-footer-0.parquet   FileMetaData num_rows 0, its row group 6
 *   variant-no-metadata.parquet  a VARIANT group of `value` alone
 *   time-outside-day.parquet     TIME(MILLIS) 0, 90000000, -5, 86400000
 *                           and TIME(MICROS) within the day
 *   time-dict.parquet       TIME(MILLIS) by a dictionary of -1 and
 *                           3600000 with 4 bytes after its 2 values
 *   fits.parquet            every annotation on a physical type the
 *                           format allows for it (no problem expected)
 * Exit 0 when every file was written. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "thrift-writer.h"

typedef struct elem {
	const char *name;
	int32_t physical;       /* -1: a group */
	int32_t type_length;    /* FIXED_LEN_BYTE_ARRAY */
	int32_t children;       /* a group's */
	int32_t converted;      /* -1: none */
	int16_t lt;             /* LogicalType member id, 0: none */
	int32_t a, b;           /* TIME/TIMESTAMP: unit member id and
				   isAdjustedToUTC; INTEGER: bitWidth and
				   isSigned */
	const char *path;       /* a leaf's path_in_schema, dotted */
	const void *vals;       /* a leaf's PLAIN page (RLE_DICTIONARY
				   indices when dict is set) */
	size_t len;
	int32_t n;              /* its values (rows) */
	const void *dict;       /* a leaf's PLAIN dictionary page, or NULL */
	size_t dict_len;
	int32_t dict_n;
	bool snappy;            /* its data page stored as one Snappy literal
				   (of at most 60 bytes) */
} elem;

static const char *dir;
static int failed;

static void logical(tw *w, const elem *e)
{
	if (!e->lt)
		return;
	tw_field_struct_begin(w, 10);
	tw_field_struct_begin(w, e->lt);
	if (e->lt == 7 || e->lt == 8) {        /* TIME, TIMESTAMP */
		tw_field_bool(w, 1, e->b);
		tw_field_struct_begin(w, 2);   /* TimeUnit */
		tw_field_struct_begin(w, (int16_t)e->a);
		tw_struct_end(w);
		tw_struct_end(w);
	} else if (e->lt == 10) {              /* INTEGER */
		tw_field_i32(w, 1, e->a);
		tw_field_bool(w, 2, e->b);
	}
	tw_struct_end(w);
	tw_struct_end(w);
}

/* The file `name` of the schema `el` (after the root), `footer_rows` in
 * FileMetaData, `rg_rows` in its row group. */
static void write_file(const char *name, const elem *el, int n_el,
		       int64_t footer_rows, int64_t rg_rows)
{
	tw_buf out = {0}, meta = {0};
	int64_t at[32], data_at[32], size[32];
	int32_t top = 0;
	int n_leaf = 0;
	tw w;

	tw_buf_put(&out, "PAR1", 4);
	for (int i = 0; i < n_el && n_leaf < 32; i++) {
		tw_buf hdr = {0};
		if (el[i].physical < 0)
			continue;
		at[n_leaf] = (int64_t)out.len;
		data_at[n_leaf] = at[n_leaf];
		if (el[i].dict) {
			tw_begin(&w, &hdr);              /* PageHeader */
			tw_field_i32(&w, 1, 2);          /* DICTIONARY_PAGE */
			tw_field_i32(&w, 2, (int32_t)el[i].dict_len);
			tw_field_i32(&w, 3, (int32_t)el[i].dict_len);
			tw_field_struct_begin(&w, 7);    /* DictionaryPageHeader */
			tw_field_i32(&w, 1, el[i].dict_n);
			tw_field_i32(&w, 2, 0);          /* PLAIN */
			tw_struct_end(&w);
			tw_struct_end(&w);
			tw_buf_put(&out, hdr.data, hdr.len);
			tw_buf_put(&out, el[i].dict, el[i].dict_len);
			tw_buf_reset(&hdr);
			data_at[n_leaf] = (int64_t)out.len;
		}
		tw_buf stored = {0};
		if (el[i].snappy) {    /* the length, one literal's tag */
			tw_buf_uvarint(&stored, el[i].len);
			tw_buf_u8(&stored, (uint8_t)((el[i].len - 1) << 2));
		}
		tw_buf_put(&stored, el[i].vals, el[i].len);
		tw_begin(&w, &hdr);                      /* PageHeader */
		tw_field_i32(&w, 1, 0);                  /* DATA_PAGE */
		tw_field_i32(&w, 2, (int32_t)el[i].len);
		tw_field_i32(&w, 3, (int32_t)stored.len);
		tw_field_struct_begin(&w, 5);            /* DataPageHeader */
		tw_field_i32(&w, 1, el[i].n);
		tw_field_i32(&w, 2, el[i].dict ? 8 : 0); /* RLE_DICTIONARY, PLAIN */
		tw_field_i32(&w, 3, 3);                  /* RLE */
		tw_field_i32(&w, 4, 3);
		tw_struct_end(&w);
		tw_struct_end(&w);
		failed |= !tw_ok(&w);
		tw_buf_put(&out, hdr.data, hdr.len);
		tw_buf_put(&out, stored.data, stored.len);
		failed |= stored.failed;
		tw_buf_free(&stored);
		size[n_leaf] = (int64_t)out.len - at[n_leaf];
		n_leaf++;
		tw_buf_free(&hdr);
	}
	/* the root's children: the elements not inside a group before */
	for (int i = 0, inside = 0; i < n_el; i++) {
		if (inside) {
			inside--;
			continue;
		}
		top++;
		if (el[i].physical < 0)
			inside = el[i].children;
	}

	tw_begin(&w, &meta);
	tw_field_i32(&w, 1, 2);                          /* version */
	tw_field_list_begin(&w, 2, TW_STRUCT, (uint32_t)n_el + 1);
	tw_elem_struct_begin(&w);
	tw_field_string(&w, 4, "schema");
	tw_field_i32(&w, 5, top);
	tw_struct_end(&w);
	for (int i = 0; i < n_el; i++) {
		const elem *e = &el[i];
		tw_elem_struct_begin(&w);
		if (e->physical >= 0)
			tw_field_i32(&w, 1, e->physical);
		if (e->physical == 7)                    /* FIXED_LEN_BYTE_ARRAY */
			tw_field_i32(&w, 2, e->type_length);
		tw_field_i32(&w, 3, 0);                  /* REQUIRED */
		tw_field_string(&w, 4, e->name);
		if (e->physical < 0)
			tw_field_i32(&w, 5, e->children);
		if (e->converted >= 0)
			tw_field_i32(&w, 6, e->converted);
		logical(&w, e);
		tw_struct_end(&w);
	}
	tw_field_i64(&w, 3, footer_rows);                /* num_rows */
	tw_field_list_begin(&w, 4, TW_STRUCT, 1);        /* row_groups */
	tw_elem_struct_begin(&w);
	tw_field_list_begin(&w, 1, TW_STRUCT, (uint32_t)n_leaf);
	for (int i = 0, k = 0; i < n_el; i++) {
		const elem *e = &el[i];
		char path[64], *dot;
		if (e->physical < 0)
			continue;
		snprintf(path, sizeof path, "%s", e->path ? e->path : e->name);
		dot = strchr(path, '.');
		if (dot)
			*dot = 0;
		tw_elem_struct_begin(&w);
		tw_field_i64(&w, 2, at[k]);              /* file_offset */
		tw_field_struct_begin(&w, 3);            /* ColumnMetaData */
		tw_field_i32(&w, 1, e->physical);
		tw_field_list_begin(&w, 2, TW_I32, e->dict ? 2 : 1);
		tw_elem_i32(&w, 0);                      /* PLAIN */
		if (e->dict)
			tw_elem_i32(&w, 8);              /* RLE_DICTIONARY */
		tw_field_list_begin(&w, 3, TW_BINARY, dot ? 2 : 1);
		tw_elem_string(&w, path);
		if (dot)
			tw_elem_string(&w, dot + 1);
		tw_field_i32(&w, 4, e->snappy ? 1 : 0);  /* SNAPPY, UNCOMPRESSED */
		tw_field_i64(&w, 5, e->n);
		tw_field_i64(&w, 6, size[k] + (e->snappy ? -2 : 0));
		tw_field_i64(&w, 7, size[k]);
		tw_field_i64(&w, 9, data_at[k]);         /* data_page_offset */
		if (e->dict)
			tw_field_i64(&w, 11, at[k]); /* dictionary_page_offset */
		tw_struct_end(&w);
		tw_struct_end(&w);
		k++;
	}
	tw_field_i64(&w, 2, (int64_t)out.len);           /* total_byte_size */
	tw_field_i64(&w, 3, rg_rows);
	tw_struct_end(&w);
	tw_struct_end(&w);
	failed |= !tw_ok(&w);

	tw_buf_put(&out, meta.data, meta.len);
	tw_buf_le32(&out, (uint32_t)meta.len);
	tw_buf_put(&out, "PAR1", 4);
	failed |= out.failed || meta.failed;

	char file[4096];
	snprintf(file, sizeof file, "%s/%s", dir, name);
	FILE *f = fopen(file, "wb");
	if (!f || fwrite(out.data, 1, out.len, f) != out.len) {
		perror(file);
		failed = 1;
	}
	if (f && fclose(f))
		failed = 1;
	tw_buf_free(&meta);
	tw_buf_free(&out);
}

/* Little-endian integers and PLAIN BYTE_ARRAY values into `b`. */
static void put32(tw_buf *b, int32_t v) { tw_buf_le32(b, (uint32_t)v); }
static void put64(tw_buf *b, int64_t v) { tw_buf_le64(b, (uint64_t)v); }
static void put_bytes(tw_buf *b, const void *p, uint32_t n)
{
	tw_buf_le32(b, n);
	tw_buf_put(b, p, n);
}

#define LEAF(nm, phys, conv, l, a_, b_, buf, count) \
	{.name = nm, .physical = phys, .converted = conv, .lt = l, .a = a_, \
	 .b = b_, .vals = (buf).data, .len = (buf).len, .n = count}

int main(int argc, char **argv)
{
	tw_buf ts = {0}, i32 = {0}, i64 = {0}, six = {0}, var = {0}, ms = {0},
	       us = {0}, one32 = {0}, one64 = {0}, str = {0}, u16 = {0},
	       f16 = {0}, iv = {0}, vmeta = {0}, tdict = {0}, tidx = {0};
	static const uint8_t variant_value[2] = {0x0c, 42}; /* int8 42 */
	static const uint8_t variant_meta[3] = {0x01, 0, 0}; /* no keys */

	if (argc != 2) {
		fprintf(stderr, "usage: gen_annot DIR\n");
		return 2;
	}
	dir = argv[1];

	for (int i = 0; i < 3; i++) {
		put64(&ts, INT64_C(694224000000000));
		put32(&i32, 7 * i - 3);
		put64(&i64, 5 - 4 * i);
	}
	for (int i = 0; i < 6; i++)
		put64(&six, 10 * i);
	for (int i = 0; i < 3; i++) {
		put_bytes(&var, variant_value, sizeof variant_value);
		put_bytes(&vmeta, variant_meta, sizeof variant_meta);
	}
	put32(&ms, 0);
	put32(&ms, 90000000);
	put32(&ms, -5);
	put32(&ms, 86400000);
	put64(&us, 0);
	put64(&us, INT64_C(86400000000));
	put64(&us, INT64_C(43200000000));
	put64(&us, 1);
	put32(&one32, 1);
	put64(&one64, 1);
	put_bytes(&str, "ok", 2);
	tw_buf_put(&u16, "0123456789abcdef", 16);
	tw_buf_put(&f16, "\x00\x3c", 2);                 /* 1.0 */
	tw_buf_put(&iv, "\x01\0\0\0\x02\0\0\0\x03\0\0\0", 12);

	/* INT32 = 1, INT64 = 2, BYTE_ARRAY = 6, FIXED_LEN_BYTE_ARRAY = 7;
	 * LogicalType TIME 7, TIMESTAMP 8, INTEGER 10; TimeUnit MILLIS 1,
	 * MICROS 2, NANOS 3 */
	const elem ts_el[] = {LEAF("ts", 1, 10, 8, 2, 1, ts, 3)};
	write_file("ts-int32-8byte.parquet", ts_el, 1, 3, 3);
	elem ts_snappy_el[] = {LEAF("ts", 1, 10, 8, 2, 1, ts, 3)};
	ts_snappy_el[0].snappy = true;
	write_file("ts-int32-snappy.parquet", ts_snappy_el, 1, 3, 3);

	const elem width_el[] = {
		LEAF("i64_on_i32", 1, -1, 10, 64, 1, i32, 3),
		LEAF("i32_on_i64", 2, -1, 10, 32, 1, i64, 3),
		LEAF("i8_on_i64", 2, -1, 10, 8, 1, i64, 3),
		LEAF("i16_on_i64", 2, 16, 0, 0, 0, i64, 3),
		LEAF("i12", 1, -1, 10, 12, 1, i32, 3),
	};
	write_file("int-width.parquet", width_el, 5, 3, 3);

	elem group_el[] = {
		{.name = "s", .physical = -1, .children = 1, .converted = -1,
		 .lt = 1},
		LEAF("a", 1, -1, 0, 0, 0, i32, 3),
		LEAF("l", 1, -1, 3, 0, 0, i32, 3),
		LEAF("d", 5, 5, 0, 0, 0, i64, 3),
	};
	group_el[1].path = "s.a";
	write_file("group-clash.parquet", group_el, 4, 3, 3);

	const elem rows_el[] = {LEAF("x", 2, -1, 0, 0, 0, six, 6)};
	write_file("rows-footer-0.parquet", rows_el, 1, 0, 6);

	elem var_el[] = {
		{.name = "v", .physical = -1, .children = 1, .converted = -1,
		 .lt = 16},
		LEAF("value", 6, -1, 0, 0, 0, var, 3),
	};
	var_el[1].path = "v.value";
	write_file("variant-no-metadata.parquet", var_el, 2, 3, 3);

	const elem time_el[] = {
		LEAF("t_ms", 1, -1, 7, 1, 0, ms, 4),
		LEAF("t_us", 2, -1, 7, 2, 0, us, 4),
	};
	write_file("time-outside-day.parquet", time_el, 2, 4, 4);

	/* a dictionary of -1 and 3600000 with 4 bytes after them; indices
	 * 0, 1, 0: bit width 1, one bit-packed group */
	put32(&tdict, -1);
	put32(&tdict, 3600000);
	put32(&tdict, 7);
	tw_buf_put(&tidx, "\x01\x03\x02", 3);
	elem tdict_el[] = {LEAF("t", 1, -1, 7, 1, 0, tidx, 3)};
	tdict_el[0].dict = tdict.data;
	tdict_el[0].dict_len = tdict.len;
	tdict_el[0].dict_n = 2;
	write_file("time-dict.parquet", tdict_el, 1, 3, 3);

	elem fits_el[] = {
		LEAF("date", 1, 6, 6, 0, 0, one32, 1),
		LEAF("time_ms", 1, 7, 7, 1, 1, one32, 1),
		LEAF("time_ns", 2, -1, 7, 3, 0, one64, 1),
		LEAF("ts_ms", 2, 9, 8, 1, 1, one64, 1),
		LEAF("int8", 1, 15, 10, 8, 1, one32, 1),
		LEAF("uint16", 1, 12, 10, 16, 0, one32, 1),
		LEAF("int64", 2, 18, 10, 64, 1, one64, 1),
		LEAF("uint64", 2, 14, 0, 0, 0, one64, 1),
		LEAF("str", 6, 0, 1, 0, 0, str, 1),
		LEAF("json", 6, 19, 12, 0, 0, str, 1),
		LEAF("uuid", 7, -1, 14, 0, 0, u16, 1),
		LEAF("half", 7, -1, 15, 0, 0, f16, 1),
		LEAF("interval", 7, 21, 0, 0, 0, iv, 1),
		{.name = "var", .physical = -1, .children = 2, .converted = -1,
		 .lt = 16},
		LEAF("metadata", 6, -1, 0, 0, 0, vmeta, 1),
		LEAF("value", 6, -1, 0, 0, 0, var, 1),
	};
	fits_el[10].type_length = 16;
	fits_el[11].type_length = 2;
	fits_el[12].type_length = 12;
	fits_el[14].path = "var.metadata";
	fits_el[15].path = "var.value";
	/* one value of each: the BYTE_ARRAY pages hold their first value */
	fits_el[8].len = fits_el[9].len = 6;
	fits_el[14].len = 4 + sizeof variant_meta;
	fits_el[15].len = 4 + sizeof variant_value;
	write_file("fits.parquet", fits_el, 16, 1, 1);

	tw_buf_free(&ts);
	tw_buf_free(&i32);
	tw_buf_free(&i64);
	tw_buf_free(&six);
	tw_buf_free(&var);
	tw_buf_free(&vmeta);
	tw_buf_free(&ms);
	tw_buf_free(&us);
	tw_buf_free(&one32);
	tw_buf_free(&one64);
	tw_buf_free(&str);
	tw_buf_free(&u16);
	tw_buf_free(&f16);
	tw_buf_free(&iv);
	tw_buf_free(&tdict);
	tw_buf_free(&tidx);
	return failed ? 1 : 0;
}

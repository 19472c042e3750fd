/* tests/values: the value decoders and renderers end to end on real files.
 *
 *   values_flat_check DIR
 *
 * DIR holds the DuckDB matrix written by gen-matrix.mjs.  For every file
 * and every top-level column that is a flat leaf (no repetition), this
 * walks all pages of all row groups with the metadata model
 * (formats/parquet/parquet.h), decompresses them (core/codec.h), decodes
 * levels and values (formats/parquet/decode/), renders each row
 * (pq_render_value) and compares the lines with DIR/<file>.expected/<col>.
 * Nested columns are left to record assembly.  Exit 0 when every value
 * matches, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codec.h"
#include "core/source.h"
#include "parquet/decode/pq_decode.h"
#include "parquet/parquet_pages.h"
#include "parquet/parquet.h"
#include "../testio.h"

static long n_bad, n_values, n_columns;

/* Decode one chunk's rows, appending one rendered line per row. */
static int chunk_lines(const uint8_t *file, const colfs_source *src,
		       const parquet_chunk *ch, const parquet_column *col,
		       colfs_buf *lines)
{
	parquet_page *pages = NULL;
	size_t n_pages = 0;
	colfs_err stop = { 0 }, err = { 0 };
	pq_values dict = { 0 };
	uint8_t *dict_page = NULL;      /* the views of `dict` point into it */
	bool have_dict = false;
	pq_type t = parquet_pages_type_of(col->elem);
	const colfs_render *r = &colfs_render_text_default;
	int rc = 0;

	if (parquet_pages_walk(src, ch, 1 << 20, &pages, &n_pages, &stop, NULL) ||
	    stop.status) {
		fprintf(stderr, "%s: chunk walk: %s\n", col->path, stop.msg);
		free(pages);
		return -1;
	}
	for (size_t k = 0; k < n_pages && rc == 0; k++) {
		const parquet_page_header *h = &pages[k].hdr;
		const uint64_t data_off = pages[k].offset + h->header_len;
		const uint8_t *raw = file + data_off;
		size_t raw_len = (size_t)h->compressed_size;
		size_t ulen = (size_t)h->uncompressed_size;
		uint8_t *page = NULL;
		size_t got = 0, lvl_len = 0;
		colfs_cursor c;
		uint32_t *def = NULL;
		size_t nv = (size_t)h->num_values, nonnull = 0;
		pq_values vals = { 0 };

		if (h->type == PARQUET_PAGE_DATA_V2)
			lvl_len = (size_t)h->def_levels_len +
				  (size_t)h->rep_levels_len;
		page = malloc(ulen + 1);
		memcpy(page, raw, lvl_len);
		if (h->type == PARQUET_PAGE_DATA_V2 && !h->is_compressed) {
			memcpy(page + lvl_len, raw + lvl_len, raw_len - lvl_len);
			got = raw_len - lvl_len;
		} else if (raw_len - lvl_len == 0) {
			got = 0;
		} else if (colfs_codec_decompress((colfs_codec)ch->codec,
						  raw + lvl_len,
						  raw_len - lvl_len,
						  page + lvl_len, ulen - lvl_len,
						  &got, data_off, &err)) {
			fprintf(stderr, "%s: page %zu: %s\n", col->path, k,
				err.msg);
			rc = -1;
			goto next;
		}
		colfs_cursor_init_virtual(&c, page, lvl_len + got, data_off);
		if (h->type == PARQUET_PAGE_DICTIONARY) {
			pq_values_free(&dict);
			if (pq_values_decode(&c, col->elem->type,
					     col->elem->type_length, 0, nv, 0,
					     1 << 28, &dict, &err)) {
				fprintf(stderr, "%s: dictionary: %s\n",
					col->path, err.msg);
				rc = -1;
			}
			have_dict = true;
			free(dict_page);
			dict_page = page;
			page = NULL;
			goto next;
		}
		def = calloc(nv + 1, sizeof(*def));
		if (h->type == PARQUET_PAGE_DATA_V2) {
			colfs_cursor lv;
			colfs_cursor_slice(&c, (size_t)h->rep_levels_len,
					   (size_t)h->def_levels_len, &lv, NULL);
			if (pq_levels_decode_v2(&lv, (uint32_t)col->max_def, def,
						nv, &err))
				rc = -1;
			colfs_cursor_skip(&c, lvl_len, NULL);
		} else {
			if (pq_levels_decode_v1(&c, h->def_encoding,
						(uint32_t)col->max_def, def, nv,
						&err))
				rc = -1;
		}
		if (rc) {
			fprintf(stderr, "%s: levels: %s\n", col->path, err.msg);
			goto next;
		}
		for (size_t i = 0; i < nv; i++)
			nonnull += def[i] == (uint32_t)col->max_def;
		if (pq_values_decode(&c, col->elem->type,
				     col->elem->type_length, h->encoding,
				     nonnull, have_dict ? (uint32_t)dict.count : 0,
				     1 << 28, &vals, &err)) {
			fprintf(stderr, "%s: page %zu (%s): %s\n", col->path, k,
				parquet_encoding_name(h->encoding), err.msg);
			rc = -1;
			goto next;
		}
		for (size_t i = 0, j = 0; i < nv; i++) {
			if (def[i] != (uint32_t)col->max_def) {
				colfs_render_null(lines, r);
			} else if (vals.indices) {
				pq_render_value(lines, r, &t, &dict,
						vals.v.idx[j++]);
			} else {
				pq_render_value(lines, r, &t, &vals, j++);
			}
			colfs_buf_putc(lines, '\n');
		}
next:
		pq_values_free(&vals);
		free(def);
		free(page);
	}
	pq_values_free(&dict);
	free(dict_page);
	free(pages);
	return rc;
}

static void check_file(const char *dir, const char *name)
{
	char path[4096];
	size_t len;

	snprintf(path, sizeof(path), "%s/%s.parquet", dir, name);
	uint8_t *file = (uint8_t *)testio_slurp(path, &len);
	if (!file || len < 12) {
		fprintf(stderr, "%s: cannot read\n", path);
		n_bad++;
		free(file);
		return;
	}
	uint32_t flen = colfs_le32(file + len - 8);
	parquet_file *pf = NULL;
	colfs_err err = { 0 };
	colfs_source *src = NULL;
	if (flen > len - 12 ||
	    parquet_file_parse(file + len - 8 - flen, flen, len - 8 - flen, len,
			       false, NULL, NULL, &pf, &err) ||
	    colfs_source_create_memory(file, len, &src)) {
		fprintf(stderr, "%s: footer: %s\n", path, err.msg);
		n_bad++;
		parquet_file_destroy(pf);
		free(file);
		return;
	}
	for (uint32_t ci = 0; ci < pf->n_columns; ci++) {
		const parquet_column *col = &pf->columns[ci];
		if (col->n_parts != 1 || col->max_rep != 0)
			continue;
		colfs_buf lines = COLFS_BUF_INIT;
		int rc = 0;
		for (uint32_t g = 0; g < pf->n_row_groups && !rc; g++)
			rc = chunk_lines(file, src, &pf->row_groups[g].chunks[ci],
					 col, &lines);
		snprintf(path, sizeof(path), "%s/%s.expected/%s", dir, name,
			 col->path);
		size_t elen = 0;
		char *want = testio_slurp(path, &elen);
		n_columns++;
		if (rc || !want || colfs_buf_status(&lines) ||
		    elen != lines.len || memcmp(want, lines.data, elen)) {
			n_bad++;
			/* the first differing line */
			size_t line = 1, i = 0;
			while (want && i < elen && i < lines.len &&
			       want[i] == lines.data[i])
				line += want[i++] == '\n';
			fprintf(stderr, "%s/%s: differs at line %zu (rc %d)",
				name, col->path, line, rc);
			if (want && i < elen && i < lines.len) {
				size_t a = i, bb = i;
				while (a > 0 && want[a - 1] != '\n')
					a--;
				while (bb > 0 && lines.data[bb - 1] != '\n')
					bb--;
				fprintf(stderr, ": want \"%.*s\" got \"%.*s\"",
					(int)strcspn(want + a, "\n"), want + a,
					(int)(strchr(lines.data + bb, '\n') ?
					      strchr(lines.data + bb, '\n') -
						      (lines.data + bb) :
					      0),
					lines.data + bb);
			}
			fprintf(stderr, "\n");
		} else {
			for (size_t i = 0; i < elen; i++)
				n_values += want[i] == '\n';
		}
		free(want);
		colfs_buf_free(&lines);
	}
	colfs_source_destroy(src);
	parquet_file_destroy(pf);
	free(file);
}

int main(int argc, char **argv)
{
	char path[4096], *manifest, *line, *save = NULL;
	size_t len;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/manifest.tsv", argv[1]);
	manifest = testio_slurp(path, &len);
	if (!manifest) {
		perror(path);
		return 1;
	}
	for (line = strtok_r(manifest, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\t")] = 0;
		check_file(argv[1], line);
	}
	free(manifest);
	printf("%ld flat columns, %ld values match DuckDB, %ld columns differ\n",
	       n_columns, n_values, n_bad);
	return n_bad || !n_columns ? 1 : 0;
}

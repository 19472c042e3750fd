/* colfs: Parquet bloom filter lookups: bloom_filter/might_contain/, a
 * directory that answers a lookup of a value's rendered text when the
 * chunk's split-block bloom filter may contain the value; and the
 * filter's header (its length, and header.json). */
#include "parquet_bloom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../core/render.h"
#include "parquet_json.h"
#include "parquet_crypt.h"
#include "../core/buf.h"
#include <jansson.h>
#include "parquet_pages.h"
#include "decode/pq_decode.h"

/* --- the header ---------------------------------------------------------- */

/* The bloom filter header: its typed numBytes and its length. */
colfs_status parquet_bloom_header_read(parquet_region_state *s, const parquet_chunk *ch,
				       uint64_t *hdr_len, int32_t *num_bytes,
				       colfs_err *err)
{
	uint64_t off = (uint64_t)ch->bloom_filter_offset;
	uint64_t want = 4096, left;
	colfs_status st;
	uint8_t *buf;
	size_t got;

	if (off >= s->size)
		return colfs_fail(err, COLFS_EBOUNDS, off,
				  "bloom filter offset %llu is past the end of the file",
				  (unsigned long long)off);
	left = s->size - off;
	if (ch->bloom_filter_length > 0 &&
	    (uint64_t)ch->bloom_filter_length < left)
		left = (uint64_t)ch->bloom_filter_length;
	if (want > left)
		want = left;
	if (ch->dek) {
		/* an encrypted header: one module, decrypted */
		uint8_t len4[4];
		uint64_t mlen;
		size_t plen;
		if (left < 4)
			return colfs_fail(err, COLFS_ETRUNCATED, off,
					  "encrypted bloom filter header: %llu bytes left",
					  (unsigned long long)left);
		COLFS_TRY(colfs_source_read_at(s->src, off, 4, len4, err));
		mlen = 4 + (uint64_t)colfs_le32(len4);
		if (mlen > left)
			return colfs_fail(err, COLFS_EBOUNDS, off,
					  "encrypted bloom filter header of %llu bytes runs past the filter (%llu bytes)",
					  (unsigned long long)mlen,
					  (unsigned long long)left);
		COLFS_TRY(parquet_crypt_read(s, ch, PARQUET_CRYPT_BLOOM_HEADER,
					     off, mlen, &buf, &plen, err));
		got = plen;
		st = COLFS_OK;
		want = mlen;
	} else {
		buf = malloc((size_t)want ? (size_t)want : 1);
		if (!buf)
			return colfs_fail(err, COLFS_ENOMEM, off,
					  "out of memory");
		st = colfs_source_pread(s->src, off, (size_t)want, buf, &got,
					err);
	}
	if (!st) {
		colfs_cursor c;
		colfs_thrift r;
		colfs_thrift_field f;
		int16_t last;
		bool have = false;
		colfs_cursor_init(&c, buf, got, off);
		colfs_thrift_init(&r, &c);
		st = colfs_thrift_struct_enter(&r, &last, err);
		while (!st &&
		       (st = colfs_thrift_field_next(&r, &last, &f, err)) ==
			       COLFS_OK) {
			if (f.id == 1) {
				st = colfs_thrift_read_i32(&r, f.type,
							   num_bytes, err);
				have = true;
			} else {
				st = colfs_thrift_skip(&r, f.type, err);
			}
		}
		if (st == COLFS_END) {
			st = COLFS_OK;
			/* encrypted: the module's length */
			*hdr_len = ch->dek ? want : c.pos;
			if (!have || *num_bytes < 0)
				st = colfs_fail(err, COLFS_ECORRUPT, off,
						"BloomFilterHeader lacks a valid numBytes");
		}
	}
	free(buf);
	return st;
}

colfs_status parquet_bloom_header_gen(colfs_tree *t, colfs_node *file,
				      colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
					      colfs_node_b(file));
	colfs_err e = {0};
	uint64_t hlen;
	int32_t nb;

	if (parquet_bloom_header_read(s, ch, &hlen, &nb, &e)) {
		colfs_tree_report_err(t, file, &e);
		return e.status ? e.status : COLFS_ECORRUPT;
	}
	if (ch->dek) {
		uint8_t *buf;
		size_t len;
		json_t *j;
		colfs_status st;

		if (parquet_crypt_read(s, ch, PARQUET_CRYPT_BLOOM_HEADER,
				       (uint64_t)ch->bloom_filter_offset, hlen,
				       &buf, &len, &e)) {
			colfs_tree_report_err(t, file, &e);
			return e.status;
		}
		st = parquet_region_json(buf, len,
					 (uint64_t)ch->bloom_filter_offset + 16,
					 &parquet_desc_bloom_filter_header, &j,
					 &e);
		free(buf);
		if (st) {
			colfs_tree_report_err(t, file, &e);
			return st;
		}
		return colfs_buf_json(out, j);
	}
	return parquet_json_region_doc(t, file, out,
				       (uint64_t)ch->bloom_filter_offset, hlen,
				       &parquet_desc_bloom_filter_header);
}

/* --- bloom_filter/might_contain/<value> -----------------------------------
 *
 * The split-block bloom filter of parquet-format BloomFilter.md: blocks of
 * eight 32-bit words; the block is chosen by the upper 32 bits of the
 * XXH64 (seed 0) of the value's PLAIN encoding, and one bit per word by
 * the lower 32 bits times a salt. */

static const uint32_t sbbf_salt[8] = {
	0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
	0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U,
};

static bool sbbf_check(const uint8_t *bits, size_t len, uint64_t hash)
{
	uint64_t blocks = len / 32;
	uint64_t b = ((hash >> 32) * blocks) >> 32;
	uint32_t key = (uint32_t)hash;

	for (int i = 0; i < 8; i++) {
		uint32_t word = colfs_le32(bits + b * 32 + 4 * (size_t)i);
		if (!(word & (1U << ((key * sbbf_salt[i]) >> 27))))
			return false;
	}
	return true;
}

static colfs_status empty_gen(colfs_tree *t, colfs_node *f, colfs_buf *out)
{
	(void)t;
	(void)f;
	(void)out;
	return COLFS_OK;
}

static const colfs_node_ops maybe_ops = {.generate = empty_gen};

/* Node args: a = row group, b = chunk, c = bitset offset; the bitset
 * length is in the ctx. */
typedef struct parquet_bloom_lookup {
	parquet_region_state *s;
	uint32_t g, c;
	uint64_t off;
	uint32_t len;
} parquet_bloom_lookup;

static colfs_status might_contain_lookup(colfs_tree *t, colfs_node *dir,
					 const char *name, colfs_node **out)
{
	const parquet_bloom_lookup *bl = colfs_node_ctx(dir);
	parquet_region_state *s = bl->s;
	const parquet_chunk *ch = parquet_region_chunk(s, bl->g, bl->c);
	size_t nlen = strlen(name), vlen, k = 0;
	colfs_err e = {0};
	uint8_t *bits;
	bool hit;

	if (!ch || ch->column >= s->pf->n_columns || bl->len < 32)
		return COLFS_ENOENT;
	/* the name as the tree escapes it: %XX back to bytes */
	const parquet_schema_elem *el = s->pf->columns[ch->column].elem;
	/* PLAIN bytes are at most as long as the text, or the FLBA width */
	size_t cap = nlen + 16;
	if (el->type == PARQUET_FIXED_LEN_BYTE_ARRAY && el->type_length > 0 &&
	    (size_t)el->type_length > cap) {
		if (el->type_length > (1 << 20))
			return COLFS_ENOENT;
		cap = (size_t)el->type_length;
	}
	char *raw = malloc(nlen + 1);
	uint8_t *val = malloc(cap);
	if (!raw || !val) {
		free(raw);
		free(val);
		return COLFS_ENOMEM;
	}
	k = colfs_name_unescape(name, nlen, raw);
	pq_type ty = parquet_pages_type_of(el);
	if (strlen(raw) != k || !pq_text_to_plain(&ty, raw, val, cap, &vlen)) {
		free(raw);
		free(val);
		return COLFS_ENOENT;
	}
	size_t blen = bl->len;
	if (ch->dek ? parquet_crypt_read(s, ch, PARQUET_CRYPT_BLOOM_BITSET,
					 bl->off, (uint64_t)bl->len + 32, &bits,
					 &blen, &e)
		    : parquet_region_read(s, bl->off, bl->len, &bits, &e)) {
		colfs_tree_report_err(t, dir, &e);
		free(raw);
		free(val);
		return e.status;
	}
	if (blen != bl->len) {
		free(bits);
		free(raw);
		free(val);
		return COLFS_ENOENT;
	}
	hit = sbbf_check(bits, bl->len, XXH64(val, vlen, 0));
	free(bits);
	free(val);
	if (!hit) {
		free(raw);
		return COLFS_ENOENT;
	}
	*out = colfs_dir_make_hidden(t, dir, raw, COLFS_CONTENT_DOC,
				     &maybe_ops, s);
	free(raw);
	return *out ? COLFS_OK : COLFS_ENOMEM;
}

static colfs_status might_contain_populate(colfs_tree *t, colfs_node *dir)
{
	(void)t;
	(void)dir;
	return COLFS_OK;        /* nothing listed: names are looked up */
}

static const colfs_node_ops might_contain_ops = {
	.populate = might_contain_populate,
	.lookup = might_contain_lookup,
};

colfs_status parquet_bloom_add(colfs_tree *t, colfs_node *dir, parquet_region_state *s,
				 uint32_t g, uint32_t c, uint64_t bitset_off,
				 uint32_t bitset_len)
{
	const parquet_chunk *ch = parquet_region_chunk(s, g, c);
	parquet_bloom_lookup *bl;

	if (!ch || ch->column >= s->pf->n_columns)
		return COLFS_OK;
	if (bitset_len % 32 || bitset_len < 32) {
		colfs_tree_report(t, dir, bitset_off, COLFS_ECORRUPT,
				  "bloom filter bitset of %u bytes is not a whole number of 32-byte blocks",
				  bitset_len);
		return COLFS_OK;
	}
	bl = colfs_dir_alloc(t, dir, sizeof *bl);
	if (!bl)
		return COLFS_ENOMEM;
	*bl = (parquet_bloom_lookup){ .s = s, .g = g, .c = c, .off = bitset_off,
			   .len = bitset_len };
	return colfs_dir_add_dir(t, dir, "might_contain", &might_contain_ops,
				 bl) ? COLFS_OK : COLFS_ENOMEM;
}

colfs_status parquet_bloom_bitset_gen(colfs_tree *t, colfs_node *file,
				      colfs_buf *out)
{
	parquet_region_state *s = colfs_node_ctx(file);
	const parquet_chunk *ch = parquet_region_chunk(s, colfs_node_a(file),
					      colfs_node_b(file));
	colfs_err e = {0};
	uint64_t hlen;
	int32_t nb;
	uint8_t *bits;
	size_t len;

	if (!ch || !ch->dek)
		return COLFS_ENOENT;
	if (parquet_bloom_header_read(s, ch, &hlen, &nb, &e) ||
	    parquet_crypt_read(s, ch, PARQUET_CRYPT_BLOOM_BITSET,
			       (uint64_t)ch->bloom_filter_offset + hlen,
			       (uint64_t)nb + 32, &bits, &len, &e)) {
		colfs_tree_report_err(t, file, &e);
		return e.status ? e.status : COLFS_ECORRUPT;
	}
	colfs_buf_append(out, bits, len);
	free(bits);
	return colfs_buf_status(out);
}

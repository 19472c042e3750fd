/* colfs: Iceberg Puffin files and their deletion vectors (the Iceberg
 * Puffin spec, "File structure", "Footer structure" and the blob type
 * `deletion-vector-v1`).
 *
 * A Puffin file is "PFA1", its blobs, then the footer: "PFA1", the
 * payload (UTF-8 JSON: {"blobs": [{"type", "fields", "snapshot-id",
 * "sequence-number", "offset", "length", "compression-codec",
 * "properties"}], "properties"}), the payload's size (4 bytes,
 * little-endian), 4 bytes of flags (bit 0 of the first: the payload is
 * compressed, as one LZ4 frame; a zstd frame is accepted too, told by
 * its magic) and "PFA1" again.
 *
 * A deletion vector blob is its length (4 bytes, big-endian: magic and
 * vector), the magic D1 D3 39 64, the vector and a big-endian CRC-32 of
 * magic and vector.  The vector is a 64-bit Roaring bitmap in the
 * "portable" serialization: a little-endian 64-bit count of 32-bit keys,
 * then each key (little-endian) and a portable 32-bit Roaring bitmap of
 * the low 32 bits.  The magic read little-endian is 1681511377, and magic
 * and vector together are byte for byte Delta Lake's RoaringBitmapArray:
 * colfs_delta_dv_decode (delta_dv.c) reads them, through CRoaring's
 * 32-bit portable reader (libroaring 0.2 has no 64-bit one), checking
 * every count and order itself.
 *
 * Every size and offset comes from the file and is checked against the
 * file's size and max_alloc before anything is allocated.
 */
#include "ice_puffin.h"
#include "../delta_int.h"
#include "../../core/codec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static const uint8_t puffin_magic[4] = {'P', 'F', 'A', '1'};
static const uint8_t dv_magic[4] = {0xD1, 0xD3, 0x39, 0x64};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* The footer payload `in` (`len` bytes at `at`), compressed, into a new
 * buffer: an LZ4 frame or a zstd frame, told by its magic, decoded by
 * the core's codecs.  A zstd frame gives its content size; an LZ4 frame
 * need not, and decodes to at most 255 times its size (LZ4's largest
 * ratio) or max_alloc, whichever is less. */
static colfs_status footer_inflate(const uint8_t *in, size_t len,
				   uint64_t max_alloc, uint64_t at,
				   uint8_t **out, size_t *out_len,
				   colfs_err *err)
{
	colfs_codec codec;
	uint64_t cap;

	*out = NULL;
	*out_len = 0;
	if (len >= 4 && le32(in) == 0x184D2204u) {
		codec = COLFS_CODEC_LZ4_HADOOP; /* which reads LZ4 frames too */
		cap = (uint64_t)len * 255 + 64;
	} else if (len >= 4 && le32(in) == 0xFD2FB528u) {
		codec = COLFS_CODEC_ZSTD;
		unsigned long long cs = ZSTD_getFrameContentSize(in, len);
		if (cs == ZSTD_CONTENTSIZE_ERROR ||
		    cs == ZSTD_CONTENTSIZE_UNKNOWN)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "Puffin footer: a zstd frame without its content size");
		cap = cs;
	} else {
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "Puffin footer flagged compressed is neither an LZ4 nor a zstd frame");
	}
	if (cap > max_alloc) {
		if (codec == COLFS_CODEC_ZSTD)
			return colfs_fail(err, COLFS_EOVERFLOW, at,
					  "Puffin footer: zstd content size %llu (at most max_alloc)",
					  (unsigned long long)cap);
		cap = max_alloc;
	}
	if (cap == 0 || cap > SIZE_MAX - 1)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "Puffin footer: a compressed payload of no bytes");
	uint8_t *buf = malloc((size_t)cap + 1);
	if (!buf)
		return colfs_fail(err, COLFS_ENOMEM, at,
				  "Puffin footer: out of memory");
	colfs_status st = colfs_codec_decompress(codec, in, len, buf,
						 (size_t)cap, out_len, at, err);
	if (st == COLFS_OK && codec == COLFS_CODEC_ZSTD && *out_len != cap)
		st = colfs_fail(err, COLFS_ECORRUPT, at,
				"Puffin footer: zstd frame gives %zu bytes, its header says %llu",
				*out_len, (unsigned long long)cap);
	if (st) {
		free(buf);
		*out_len = 0;
		return st;
	}
	*out = buf;
	return COLFS_OK;
}

colfs_status ice_puffin_footer(colfs_source *src, uint64_t max_alloc,
			       json_t **footer, colfs_err *err)
{
	uint64_t size = colfs_source_size(src);
	uint8_t head[4], tail[12];
	colfs_status st;

	*footer = NULL;
	/* magic, footer magic, payload size, flags, magic */
	if (size < 4 + 4 + 12)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "not a Puffin file: %" PRIu64 " bytes, fewer than its two magics and footer need",
				  size);
	COLFS_TRY(colfs_source_read_at(src, 0, 4, head, err));
	COLFS_TRY(colfs_source_read_at(src, size - 12, 12, tail, err));
	if (memcmp(head, puffin_magic, 4) || memcmp(tail + 8, puffin_magic, 4))
		return colfs_fail(err, COLFS_ECORRUPT,
				  memcmp(head, puffin_magic, 4) ? 0 : size - 4,
				  "not a Puffin file: no PFA1 magic at its %s",
				  memcmp(head, puffin_magic, 4) ? "start" : "end");
	uint32_t plen = le32(tail);
	uint32_t flags = le32(tail + 4);
	/* the payload and the footer's own magic lie after the file's magic */
	if ((uint64_t)plen > size - 4 - 12 - 4)
		return colfs_fail(err, COLFS_ETRUNCATED, size - 12,
				  "Puffin footer payload of %u bytes in a file of %" PRIu64,
				  (unsigned)plen, size);
	uint64_t fstart = size - 12 - plen - 4;
	uint8_t fmagic[4];
	COLFS_TRY(colfs_source_read_at(src, fstart, 4, fmagic, err));
	if (memcmp(fmagic, puffin_magic, 4))
		return colfs_fail(err, COLFS_ECORRUPT, fstart,
				  "Puffin footer does not start with PFA1 (payload size %u)",
				  (unsigned)plen);
	if (flags & ~1u)
		return colfs_fail(err, COLFS_EUNSUPPORTED, size - 8,
				  "Puffin footer flags 0x%08x: unknown bits set",
				  (unsigned)flags);
	uint8_t *payload;
	COLFS_TRY(colfs_source_read_region(src, fstart + 4, plen, max_alloc,
					   &payload, err));
	uint8_t *text = payload;
	size_t tlen = plen;
	if (flags & 1) {
		st = footer_inflate(payload, plen, max_alloc, fstart + 4, &text,
				    &tlen, err);
		free(payload);
		if (st)
			return st;
	}
	json_error_t je;
	json_t *doc = json_loadb((const char *)text, tlen, JSON_REJECT_DUPLICATES,
				 &je);
	free(text);
	if (!doc || !json_is_object(doc)) {
		json_decref(doc);
		return colfs_fail(err, COLFS_ECORRUPT, fstart + 4,
				  "Puffin footer payload is not a JSON object%s%s",
				  doc ? "" : ": ", doc ? "" : je.text);
	}
	json_t *blobs = json_object_get(doc, "blobs");
	if (!json_is_array(blobs)) {
		json_decref(doc);
		return colfs_fail(err, COLFS_ECORRUPT, fstart + 4,
				  "Puffin footer has no \"blobs\" array");
	}
	size_t i;
	json_t *b;
	json_array_foreach(blobs, i, b) {
		json_t *o = json_object_get(b, "offset");
		json_t *l = json_object_get(b, "length");
		if (!json_is_string(json_object_get(b, "type")) ||
		    !json_is_integer(o) || !json_is_integer(l) ||
		    json_integer_value(o) < 4 || json_integer_value(l) < 0 ||
		    (uint64_t)json_integer_value(o) > fstart ||
		    (uint64_t)json_integer_value(l) >
			    fstart - (uint64_t)json_integer_value(o)) {
			json_decref(doc);
			return colfs_fail(err, COLFS_ECORRUPT, fstart + 4,
					  "Puffin footer blob %zu: no type, or its offset and length are not inside the blobs (%" PRIu64 " bytes)",
					  i, fstart);
		}
	}
	*footer = doc;
	return COLFS_OK;
}

colfs_status ice_dv_blob_decode(const uint8_t *blob, size_t len,
				uint64_t max_rows, uint64_t **rows, size_t *n,
				colfs_err *err)
{
	*rows = NULL;
	*n = 0;
	if (len < 12)
		return colfs_fail(err, COLFS_ETRUNCATED, 0,
				  "deletion vector blob of %zu bytes: too short for its length, magic and CRC",
				  len);
	uint32_t vlen = be32(blob);
	if ((uint64_t)vlen != len - 8)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "deletion vector blob of %zu bytes says its magic and vector take %u (expected %zu)",
				  len, (unsigned)vlen, len - 8);
	if (memcmp(blob + 4, dv_magic, 4))
		return colfs_fail(err, COLFS_ECORRUPT, 4,
				  "deletion vector magic %02X %02X %02X %02X (expected D1 D3 39 64)",
				  blob[4], blob[5], blob[6], blob[7]);
	uint32_t want = be32(blob + len - 4);
	uint32_t got = colfs_crc32(0, blob + 4, vlen);
	if (want != got)
		return colfs_fail(err, COLFS_ECORRUPT, len - 4,
				  "deletion vector CRC-32 %08" PRIX32 " does not match its bytes' %08" PRIX32,
				  want, got);
	colfs_status st = colfs_delta_dv_decode(blob + 4, vlen, max_rows, rows,
						n, err);
	if (st && err && err->offset != COLFS_OFFSET_UNKNOWN)
		err->offset += 4;
	return st;
}

/* The blob property `key` as a string, or NULL. */
static const char *blob_prop(const json_t *b, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(b, "properties"), key));
}

colfs_status ice_puffin_dv(colfs_source *src, const json_t *footer,
			   const char *data_path, int64_t offset,
			   int64_t length, uint64_t max_rows,
			   uint64_t max_alloc, uint64_t **rows, size_t *n,
			   colfs_err *err)
{
	json_t *blobs = json_object_get(footer, "blobs");
	const json_t *found = NULL;
	size_t i;
	json_t *b;

	*rows = NULL;
	*n = 0;
	json_array_foreach(blobs, i, b) {
		if (offset >= 0) {
			if (json_integer_value(json_object_get(b, "offset")) ==
			    offset) {
				found = b;
				break;
			}
		} else {
			const char *ref = blob_prop(b, "referenced-data-file");
			if (ref && !strcmp(ref, data_path)) {
				found = b;
				break;
			}
		}
	}
	if (!found) {
		if (offset >= 0)
			return colfs_fail(err, COLFS_ECORRUPT, (uint64_t)offset,
					  "the Puffin footer lists no blob at offset %" PRId64,
					  offset);
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "the Puffin footer lists no deletion vector for %s",
				  data_path);
	}
	const char *type = json_string_value(json_object_get(found, "type"));
	uint64_t bo = (uint64_t)json_integer_value(json_object_get(found, "offset"));
	uint64_t bl = (uint64_t)json_integer_value(json_object_get(found, "length"));
	if (strcmp(type, "deletion-vector-v1"))
		return colfs_fail(err, COLFS_ECORRUPT, bo,
				  "the Puffin blob at offset %" PRIu64 " is a \"%s\", not a deletion-vector-v1",
				  bo, type);
	if (length >= 0 && (uint64_t)length != bl)
		return colfs_fail(err, COLFS_ECORRUPT, bo,
				  "the manifest gives the deletion vector at offset %" PRIu64 " %" PRId64 " bytes, the Puffin footer %" PRIu64,
				  bo, length, bl);
	const char *codec = json_string_value(
		json_object_get(found, "compression-codec"));
	if (codec && strcmp(codec, "none"))
		return colfs_fail(err, COLFS_ECORRUPT, bo,
				  "the deletion vector at offset %" PRIu64 " is compressed (%s): deletion vectors never are",
				  bo, codec);
	const char *ref = blob_prop(found, "referenced-data-file");
	if (ref && strcmp(ref, data_path))
		return colfs_fail(err, COLFS_ECORRUPT, bo,
				  "the deletion vector at offset %" PRIu64 " is for %s, not %s",
				  bo, ref, data_path);
	uint8_t *blob;
	COLFS_TRY(colfs_source_read_region(src, bo, bl, max_alloc, &blob, err));
	colfs_status st = ice_dv_blob_decode(blob, (size_t)bl, max_rows, rows, n,
					     err);
	free(blob);
	if (st) {
		if (err && err->offset != COLFS_OFFSET_UNKNOWN)
			err->offset += bo;
		return st;
	}
	const char *card = blob_prop(found, "cardinality");
	if (card) {
		char *end;
		unsigned long long c = strtoull(card, &end, 10);
		if (*card < '0' || *card > '9' || *end || c != *n) {
			size_t had = *n;
			free(*rows);
			*rows = NULL;
			*n = 0;
			return colfs_fail(err, COLFS_ECORRUPT, bo,
					  "the deletion vector at offset %" PRIu64 " holds %zu rows, its \"cardinality\" says %s",
					  bo, had, card);
		}
	}
	return COLFS_OK;
}

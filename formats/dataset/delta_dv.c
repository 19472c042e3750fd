/* colfs: Delta Lake deletion vectors (PROTOCOL.md, "Deletion Vectors" and
 * "Deletion Vector Format").
 *
 * A descriptor names the vector inline (storage type 'i': the serialized
 * bitmap as Z85 text) or in a file next to the table ('u': a UUID, Z85,
 * after an optional directory prefix, naming <prefix>/deletion_vector_<uuid>.bin;
 * 'p': an absolute path).  A file starts with a version byte (1); at the
 * descriptor's offset it holds a big-endian 32-bit size, the serialized
 * bitmap and a big-endian CRC-32 of it.  The bitmap is a RoaringBitmapArray:
 * a little-endian magic 1681511377, a 64-bit count of 32-bit bitmaps, and
 * for each its high 32 bits and a portable Roaring bitmap of the low ones.
 *
 * The 32-bit Roaring bitmaps are read by CRoaring (libroaring); its values
 * are taken one by one through roaring_iterate and checked here (ascending,
 * at most the count the descriptor declares), so a bitmap whose headers
 * lie cannot make colfs write past what it allocated.
 */
#include "delta_int.h"
#include "../core/codec.h"
#include "../core/cursor.h"
#include "../core/hex.h"
#include "../core/source.h"
#include "../core/sourcekind.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <roaring/roaring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DV_MAGIC 1681511377u

static const char z85_chars[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	".-:+=^!/*?&<>()[]{}@%$#";

colfs_status colfs_z85_decode(const char *text, size_t len, uint8_t *out,
			      colfs_err *err)
{
	if (len % 5)
		return colfs_fail(err, COLFS_ECORRUPT, len,
				  "Z85 text of %zu characters (not a multiple of 5)",
				  len);
	for (size_t i = 0; i < len; i += 5) {
		uint64_t v = 0;

		for (size_t k = 0; k < 5; k++) {
			const char *p = text[i + k]
				? strchr(z85_chars, text[i + k]) : NULL;
			if (!p)
				return colfs_fail(err, COLFS_ECORRUPT, i + k,
						  "character %zu of Z85 text is not in its alphabet",
						  i + k);
			v = v * 85 + (uint64_t)(p - z85_chars);
		}
		if (v > UINT32_MAX)
			return colfs_fail(err, COLFS_ECORRUPT, i,
					  "Z85 group at character %zu is over 2^32 - 1",
					  i);
		out[i / 5 * 4] = (uint8_t)(v >> 24);
		out[i / 5 * 4 + 1] = (uint8_t)(v >> 16);
		out[i / 5 * 4 + 2] = (uint8_t)(v >> 8);
		out[i / 5 * 4 + 3] = (uint8_t)v;
	}
	return COLFS_OK;
}

typedef struct dv_rows {
	uint64_t *rows;
	size_t n, cap;
	uint64_t max_rows;
	uint64_t high;          /* the 32-bit bitmap's key, shifted */
	bool have_last;
	uint64_t last;
	bool too_many, unordered, nomem;
} dv_rows;

static bool dv_rows_add(uint32_t low, void *arg)
{
	dv_rows *d = arg;
	uint64_t v = d->high | low;

	if (d->have_last && v <= d->last) {
		d->unordered = true;
		return false;
	}
	if (d->n >= d->max_rows) {
		d->too_many = true;
		return false;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		if (cap > d->max_rows)
			cap = (size_t)d->max_rows;
		uint64_t *r = realloc(d->rows, cap * sizeof *r);
		if (!r) {
			d->nomem = true;
			return false;
		}
		d->rows = r;
		d->cap = cap;
	}
	d->rows[d->n++] = v;
	d->last = v;
	d->have_last = true;
	return true;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

colfs_status colfs_delta_dv_decode(const uint8_t *data, size_t len,
				   uint64_t max_rows, uint64_t **rows,
				   size_t *n, colfs_err *err)
{
	dv_rows d = {.max_rows = max_rows};
	colfs_status st = COLFS_OK;

	*rows = NULL;
	*n = 0;
	if (len < 12)
		return colfs_fail(err, COLFS_ETRUNCATED, 0,
				  "deletion vector of %zu bytes: too short for its magic and count",
				  len);
	if (get_le32(data) != DV_MAGIC)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "deletion vector magic %u (expected %u, a RoaringBitmapArray)",
				  get_le32(data), DV_MAGIC);
	uint64_t count = (uint64_t)get_le32(data + 4) |
			 (uint64_t)get_le32(data + 8) << 32;
	size_t pos = 12;
	/* each bitmap takes a key and at least 8 bytes of header */
	if (count > (len - pos) / 12)
		return colfs_fail(err, COLFS_ETRUNCATED, 4,
				  "deletion vector declares %" PRIu64 " bitmaps in %zu bytes",
				  count, len - pos);
	for (uint64_t i = 0; i < count; i++) {
		if (len - pos < 4) {
			st = colfs_fail(err, COLFS_ETRUNCATED, pos,
					"deletion vector ends before bitmap %" PRIu64,
					i);
			break;
		}
		uint32_t key = get_le32(data + pos);
		if (i > 0 && ((uint64_t)key << 32) <= d.high) {
			st = colfs_fail(err, COLFS_ECORRUPT, pos,
					"deletion vector bitmap keys not ascending (%u after %" PRIu64 ")",
					key, d.high >> 32);
			break;
		}
		pos += 4;
		size_t used = roaring_bitmap_portable_deserialize_size(
			(const char *)data + pos, len - pos);
		roaring_bitmap_t *bm = used
			? roaring_bitmap_portable_deserialize_safe(
				  (const char *)data + pos, used)
			: NULL;
		if (!bm) {
			st = colfs_fail(err, COLFS_ECORRUPT, pos,
					"deletion vector bitmap %" PRIu64 " is not a portable Roaring bitmap",
					i);
			break;
		}
		d.high = (uint64_t)key << 32;
		roaring_iterate(bm, dv_rows_add, &d);
		roaring_bitmap_free(bm);
		if (d.nomem) {
			st = colfs_fail(err, COLFS_ENOMEM, pos,
					"deletion vector: out of memory");
			break;
		}
		if (d.too_many) {
			st = colfs_fail(err, COLFS_EOVERFLOW, pos,
					"deletion vector holds more than %" PRIu64 " rows",
					max_rows);
			break;
		}
		if (d.unordered) {
			st = colfs_fail(err, COLFS_ECORRUPT, pos,
					"deletion vector bitmap %" PRIu64 " has rows out of order",
					i);
			break;
		}
		pos += used;
	}
	if (!st && pos != len)
		st = colfs_fail(err, COLFS_ECORRUPT, pos,
				"deletion vector has %zu bytes after its bitmaps",
				len - pos);
	if (st) {
		free(d.rows);
		return st;
	}
	*rows = d.rows;
	*n = d.n;
	return COLFS_OK;
}

/* 16 bytes as a UUID's text (8-4-4-4-12 lower-case hex). */
static void uuid_text(const uint8_t u[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[u[i] >> 4];
		out[o++] = hex[u[i] & 15];
	}
	out[o] = '\0';
}

/* Read the vector at `offset` of the file `path`: version byte, size,
 * data, CRC-32. */
static colfs_status dv_file_read(const char *path, const char *shown,
				 int64_t offset, int64_t size,
				 const colfs_options *o, uint8_t **out,
				 colfs_err *err)
{
	uint8_t head[4], ver;
	colfs_status st = COLFS_OK;
	colfs_source *src;
	char why[512];

	*out = NULL;
	st = colfs_source_open_file(path, shown, o, &src, why, sizeof why);
	if (st != COLFS_OK)
		return colfs_fail(err, st == COLFS_ENOENT ? COLFS_ETRUNCATED : COLFS_EIO,
				  0, "deletion vector file %s", why);
	uint64_t fsize = colfs_source_size(src);
	uint64_t end;
	if (offset < 1 || size < 0 ||
	    colfs_add_overflows((uint64_t)offset, (uint64_t)size + 8, &end) ||
	    end > fsize) {
		colfs_source_destroy(src);
		return colfs_fail(err, COLFS_EBOUNDS, (uint64_t)offset,
				  "deletion vector at offset %" PRId64 " (%" PRId64 " bytes) is outside %s (%" PRIu64 " bytes)",
				  offset, size, shown, fsize);
	}
	if ((uint64_t)size > o->max_alloc) {
		colfs_source_destroy(src);
		return colfs_fail(err, COLFS_EOVERFLOW, (uint64_t)offset,
				  "deletion vector of %" PRId64 " bytes is over max_alloc",
				  size);
	}
	uint8_t *buf = malloc((size_t)size + 4);
	if (!buf) {
		colfs_source_destroy(src);
		return colfs_fail(err, COLFS_ENOMEM, 0,
				  "deletion vector: out of memory");
	}
	colfs_err rerr = {0};
	if (colfs_source_read_at(src, 0, 1, &ver, &rerr) ||
	    colfs_source_read_at(src, (uint64_t)offset, 4, head, &rerr) ||
	    colfs_source_read_at(src, (uint64_t)offset + 4, (size_t)size + 4,
				 buf, &rerr)) {
		st = colfs_fail(err, COLFS_EIO, (uint64_t)offset,
				"deletion vector file %s: cannot read it",
				shown);
	} else if (ver != 1) {
		st = colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				"deletion vector file %s has format version %u (colfs reads 1)",
				shown, ver);
	} else if (get_be32(head) != (uint64_t)size) {
		st = colfs_fail(err, COLFS_ECORRUPT, (uint64_t)offset,
				"deletion vector in %s holds %u bytes, its descriptor says %" PRId64,
				shown, get_be32(head), size);
	} else {
		uint32_t want = get_be32(buf + size);
		uint32_t got = colfs_crc32(0, buf, (size_t)size);
		if (want != got)
			st = colfs_fail(err, COLFS_ECORRUPT,
					(uint64_t)offset + 4 + (uint64_t)size,
					"deletion vector CRC mismatch in %s: stored %08x, the bytes give %08x",
					shown, want, got);
	}
	colfs_source_destroy(src);
	if (st) {
		free(buf);
		return st;
	}
	*out = buf;
	return COLFS_OK;
}

static const char *json_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool json_int(json_t *o, const char *key, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		return false;
	*out = json_integer_value(v);
	return true;
}

colfs_status colfs_delta_dv_read(const char *root, json_t *dv,
				 int64_t num_records, const colfs_options *o,
				 const char *where, uint64_t **rows, size_t *n,
				 colfs_err *err)
{
	const char *type = json_str(dv, "storageType");
	const char *pod = json_str(dv, "pathOrInlineDv");
	int64_t size, card, offset = -1;
	uint8_t *data = NULL;
	colfs_status st;

	*rows = NULL;
	*n = 0;
	if (!json_is_object(dv) || !type || !pod ||
	    !json_int(dv, "sizeInBytes", &size) ||
	    !json_int(dv, "cardinality", &card) || size < 0 || card < 0)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "%s: deletionVector lacks storageType, pathOrInlineDv, sizeInBytes or cardinality",
				  where);
	/* rows are kept as 8-byte indices */
	uint64_t max_rows = o->max_alloc / sizeof(uint64_t);
	if ((uint64_t)card > max_rows)
		return colfs_fail(err, COLFS_EOVERFLOW, 0,
				  "%s: deletion vector of %" PRId64 " rows is over max_alloc",
				  where, card);
	if (num_records >= 0 && card > num_records)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "%s: deletion vector deletes %" PRId64 " rows of %" PRId64,
				  where, card, num_records);
	json_int(dv, "offset", &offset);

	if (strcmp(type, "i") == 0) {
		size_t tlen = strlen(pod);
		if (tlen / 5 * 4 < (uint64_t)size)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "%s: inline deletion vector of %zu characters cannot hold %" PRId64 " bytes",
					  where, tlen, size);
		data = malloc(tlen / 5 * 4 + 1);
		if (!data)
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "deletion vector: out of memory");
		colfs_err zerr = {0};
		st = colfs_z85_decode(pod, tlen, data, &zerr);
		if (st) {
			free(data);
			return colfs_fail(err, st, 0, "%s: inline deletion vector: %s",
					  where, zerr.msg);
		}
	} else if (strcmp(type, "u") == 0 || strcmp(type, "p") == 0) {
		char *path = NULL, shown[600];
		if (type[0] == 'u') {
			size_t plen = strlen(pod);
			uint8_t u[16];
			char uuid[37];
			colfs_err zerr = {0};

			if (plen < 20 ||
			    colfs_z85_decode(pod + plen - 20, 20, u, &zerr))
				return colfs_fail(err, COLFS_ECORRUPT, 0,
						  "%s: deletion vector path '%s' does not end in a Z85 UUID",
						  where, pod);
			size_t pre = plen - 20;
			if (memchr(pod, '/', pre) || (pre && pod[0] == '.'))
				return colfs_fail(err, COLFS_ECORRUPT, 0,
						  "%s: deletion vector prefix '%.*s' is not a plain directory name",
						  where, (int)pre, pod);
			uuid_text(u, uuid);
			snprintf(shown, sizeof shown, "%.*s%sdeletion_vector_%s.bin",
				 (int)pre, pod, pre ? "/" : "", uuid);
			if (asprintf(&path, "%s/%s", root, shown) < 0)
				path = NULL;
		} else {
			const char *p = pod;
			if (strncmp(p, "file://", 7) == 0)
				p += 7;
			else if (strncmp(p, "file:", 5) == 0)
				p += 5;
			else if (p[0] != '/')
				return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
						  "%s: deletion vector stored at '%s' (only local files are read)",
						  where, pod);
			if (p[0] != '/')
				return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
						  "%s: deletion vector stored at '%s' (only local files are read)",
						  where, pod);
			/* %-decoded */
			path = malloc(strlen(p) + 1);
			if (path) {
				size_t k = colfs_percent_decode(p, strlen(p),
								path);
				if (strlen(path) != k) {
					free(path);
					return colfs_fail(err, COLFS_ECORRUPT, 0,
							  "%s: deletion vector path has a NUL byte",
							  where);
				}
				snprintf(shown, sizeof shown, "%s", path);
			}
		}
		if (!path)
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "deletion vector: out of memory");
		if (offset < 0)
			offset = 1;
		colfs_err ferr = {0};
		st = dv_file_read(path, shown, offset, size, o, &data, &ferr);
		free(path);
		if (st)
			return colfs_fail(err, st, ferr.offset, "%s: %s", where,
					  ferr.msg);
	} else {
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "%s: deletion vector storage type '%s' (colfs reads 'i', 'u' and 'p')",
				  where, type);
	}

	colfs_err derr = {0};
	st = colfs_delta_dv_decode(data, (size_t)size, (uint64_t)card, rows, n,
				   &derr);
	free(data);
	if (st)
		return colfs_fail(err, st, derr.offset, "%s: %s", where,
				  derr.msg);
	if (*n != (uint64_t)card ||
	    (num_records >= 0 && *n && (*rows)[*n - 1] >= (uint64_t)num_records)) {
		size_t got = *n;
		uint64_t last = got ? (*rows)[got - 1] : 0;
		free(*rows);
		*rows = NULL;
		*n = 0;
		if (got != (uint64_t)card)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "%s: deletion vector holds %zu rows, its cardinality says %" PRId64,
					  where, got, card);
		return colfs_fail(err, COLFS_EBOUNDS, 0,
				  "%s: deletion vector deletes row %" PRIu64 " of a file of %" PRId64 " rows",
				  where, last, num_records);
	}
	return COLFS_OK;
}

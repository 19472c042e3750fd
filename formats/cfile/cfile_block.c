/* colfs: Kudu CFile blocks: framing (§5, §6), the nullable prefix (§7.2),
 * the RLE hybrid (§8) and the inner block encodings (§9).
 *
 * The bitshuffle transpose (§9.7) is written here by hand: Debian packages
 * no C library for it as -dev (only the Python module and an HDF5 filter).
 * LZ4, snappy and zlib come from core/codec.h. */
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"
#include "core/codec.h"

/* Rows of one block: a cap against a tiny RLE stream claiming billions. */
#define CFILE_MAX_ROWS (1u << 26)
/* Rebuilt PREFIX strings of one block. */
#define CFILE_MAX_PREFIX_BYTES (256u << 20)

void cfile_block_raw_free(cfile_raw *r)
{
	if (!r)
		return;
	if (r->data_owned)
		free(r->data);
	free(r->stored);
	memset(r, 0, sizeof(*r));
}

void cfile_block_values_free(cfile_values *v)
{
	if (!v)
		return;
	free(v->present);
	free(v->fixed);
	free(v->str);
	free(v->len);
	free(v->owned);
	free(v->elems);
	free(v->flat_present);
	memset(v, 0, sizeof(*v));
}

/* --- framing ------------------------------------------------------------- */

colfs_status cfile_block_ptr_check(const cfile_file *f, cfile_ptr p, uint64_t where,
			     colfs_err *err)
{
	uint64_t end;

	if (p.offset == 0 || p.offset < f->header_len)
		return colfs_fail(err, COLFS_EBOUNDS, where,
				  "block pointer offset %llu lies inside the "
				  "file header (ends at %u)",
				  (unsigned long long)p.offset, f->header_len);
	if (colfs_add_overflows(p.offset, p.size, &end) ||
	    end > f->footer_start)
		return colfs_fail(err, COLFS_EBOUNDS, where,
				  "block pointer %llu+%u runs past the start "
				  "of the footer at %llu",
				  (unsigned long long)p.offset, p.size,
				  (unsigned long long)f->footer_start);
	if (p.size == 0 || (f->checksums && p.size < 4))
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "block pointer size %u is too small", p.size);
	return COLFS_OK;
}

static colfs_codec codec_of(int32_t compression)
{
	switch (compression) {
	case CFILE_SNAPPY:
		return COLFS_CODEC_SNAPPY;
	case CFILE_LZ4:
		return COLFS_CODEC_LZ4_RAW;
	case CFILE_ZLIB:
		return COLFS_CODEC_ZLIB;
	default:
		return COLFS_CODEC_NONE;
	}
}

colfs_status cfile_block_read(cfile_file *f, cfile_ptr p, cfile_raw *out,
			      colfs_err *err)
{
	uint32_t payload;
	colfs_status st;

	memset(out, 0, sizeof(*out));
	COLFS_TRY(cfile_block_ptr_check(f, p, p.offset, err));
	if (p.size > f->max_alloc)
		return colfs_fail(err, COLFS_EOVERFLOW, p.offset,
				  "block of %u bytes is over the %llu-byte cap",
				  p.size, (unsigned long long)f->max_alloc);
	out->stored = malloc(p.size);
	if (!out->stored)
		return colfs_fail(err, COLFS_ENOMEM, p.offset,
				  "no memory for a %u-byte block", p.size);
	out->stored_len = p.size;
	st = colfs_source_read_at(f->src, p.offset, p.size, out->stored, err);
	if (st)
		goto fail;
	payload = p.size;
	if (f->checksums) {
		payload -= 4;
		uint32_t want = colfs_le32(out->stored + payload);
		uint32_t got = colfs_crc32c(0, out->stored, payload);
		if (want != got && f->verify) {
			st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
					"block checksum mismatch: stored "
					"0x%08x, computed 0x%08x", want, got);
			goto fail;
		}
	}
	if (f->compression == CFILE_NO_COMPRESSION) {
		out->data = out->stored;
		out->data_len = payload;
		return COLFS_OK;
	}

	uint32_t prefix = f->version == 1 ? 8 : 4;
	if (payload < prefix) {
		st = colfs_fail(err, COLFS_ETRUNCATED, p.offset,
				"compressed block of %u bytes has no room for "
				"its %u-byte size prefix", payload, prefix);
		goto fail;
	}
	uint32_t c = payload - prefix;
	uint32_t u = colfs_le32(out->stored + prefix - 4);
	if (f->version == 1 && colfs_le32(out->stored) != c) {
		st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
				"v1 compressed size %u does not match the %u "
				"bytes that follow",
				colfs_le32(out->stored), c);
		goto fail;
	}
	if (c > u && f->version == 2) {
		st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
				"compressed length %u exceeds the declared "
				"uncompressed size %u", c, u);
		goto fail;
	}
	if (u > CFILE_MAX_BLOCK || u > f->max_alloc) {
		st = colfs_fail(err, COLFS_EOVERFLOW, p.offset,
				"uncompressed size %u is over the %u-byte "
				"block limit", u, CFILE_MAX_BLOCK);
		goto fail;
	}
	if (f->version == 2 && c == u) { /* stored raw (§5.2) */
		out->data = out->stored + prefix;
		out->data_len = u;
		return COLFS_OK;
	}
	out->data = malloc(u ? u : 1);
	if (!out->data) {
		st = colfs_fail(err, COLFS_ENOMEM, p.offset,
				"no memory for %u decompressed bytes", u);
		goto fail;
	}
	out->data_owned = true;
	size_t got = 0;
	st = colfs_codec_decompress(codec_of(f->compression),
				    out->stored + prefix, c, out->data, u, &got,
				    p.offset + prefix, err);
	if (st)
		goto fail;
	if (got != u) {
		st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
				"%s block decompressed to %zu bytes, header "
				"says %u",
				cfile_types_compression_name(f->compression), got, u);
		goto fail;
	}
	out->data_len = u;
	return COLFS_OK;
fail:
	cfile_block_raw_free(out);
	return st;
}

/* --- primitives ------------------------------------------------------------ */

static colfs_status read_varint32(colfs_cursor *c, uint32_t *out,
				  const char *what, colfs_err *err)
{
	uint64_t v;
	uint64_t at = colfs_cursor_offset(c);

	COLFS_TRY(colfs_cursor_uvarint(c, &v, err));
	if (v > UINT32_MAX)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "%s varint %llu does not fit 32 bits", what,
				  (unsigned long long)v);
	*out = (uint32_t)v;
	return COLFS_OK;
}

/* One group-varint group (§9.3.1). */
static colfs_status read_gvint(colfs_cursor *c, uint32_t v[4], colfs_err *err)
{
	uint8_t sel;

	COLFS_TRY(colfs_cursor_u8(c, &sel, err));
	for (int i = 0; i < 4; i++) {
		unsigned len = ((sel >> (6 - 2 * i)) & 3) + 1;
		const uint8_t *p;
		COLFS_TRY(colfs_cursor_bytes(c, len, &p, err));
		v[i] = 0;
		for (unsigned k = len; k-- > 0;)
			v[i] = v[i] << 8 | p[k];
	}
	return COLFS_OK;
}

/* The RLE / bit-packing hybrid (§8): `count` values of `bits` bits into
 * `out`, `stride` bytes each (little-endian; for bits == 1 one byte 0/1).
 * Returns the number of 1s for bits == 1 in `*ones` (if not NULL). */
static colfs_status rle_decode(colfs_cursor *c, unsigned bits, uint32_t count,
			       uint8_t *out, unsigned stride, uint32_t *ones,
			       colfs_err *err)
{
	unsigned vbytes = (bits + 7) / 8;
	uint32_t got = 0, n1 = 0;

	while (got < count) {
		uint64_t at = colfs_cursor_offset(c);
		uint64_t ind;
		if (colfs_cursor_left(c) == 0)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "RLE data ran out after %u of %u "
					  "values", got, count);
		COLFS_TRY(colfs_cursor_uvarint(c, &ind, err));
		if (ind >= (1ull << 31))
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "RLE run indicator %llu is too large",
					  (unsigned long long)ind);
		uint32_t want = count - got;
		if (!(ind & 1)) {
			uint32_t run = (uint32_t)(ind >> 1);
			const uint8_t *vp;
			if (run == 0)
				return colfs_fail(err, COLFS_ECORRUPT, at,
						  "RLE repeated run of length 0");
			COLFS_TRY(colfs_cursor_bytes(c, vbytes, &vp, err));
			uint32_t take = run < want ? run : want;
			if (bits == 1) {
				uint8_t b = vp[0] & 1;
				memset(out + got, b, take);
				if (b)
					n1 += take;
			} else {
				for (uint32_t i = 0; i < take; i++)
					memcpy(out + (size_t)(got + i) * stride,
					       vp, vbytes);
			}
			got += take;
			continue;
		}
		uint64_t vals = (ind >> 1) * 8;
		if (vals == 0)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "RLE literal run of 0 groups");
		uint32_t take = vals < want ? (uint32_t)vals : want;
		uint64_t nominal = (ind >> 1) * bits;    /* bytes */
		uint64_t need = ((uint64_t)take * bits + 7) / 8;
		size_t left = colfs_cursor_left(c);
		if (need > left)
			return colfs_fail(err, COLFS_ETRUNCATED,
					  colfs_cursor_offset(c),
					  "RLE literal run needs %llu bytes, "
					  "%zu left",
					  (unsigned long long)need, left);
		if (take == vals && nominal > left)
			return colfs_fail(err, COLFS_ETRUNCATED,
					  colfs_cursor_offset(c),
					  "RLE literal run of %llu bytes, %zu "
					  "left", (unsigned long long)nominal,
					  left);
		const uint8_t *p = colfs_cursor_ptr(c);
		if (bits == 1) {
			for (uint32_t i = 0; i < take; i++) {
				uint8_t b = p[i >> 3] >> (i & 7) & 1;
				out[got + i] = b;
				n1 += b;
			}
		} else {
			for (uint32_t i = 0; i < take; i++)
				memcpy(out + (size_t)(got + i) * stride,
				       p + (size_t)i * vbytes, vbytes);
		}
		got += take;
		/* A final literal may be cut short (§8): consume what is there. */
		COLFS_TRY(colfs_cursor_skip(c, nominal < left ? nominal : left,
					    err));
	}
	if (ones)
		*ones = n1;
	return COLFS_OK;
}

/* --- bitshuffle (§9.7) ------------------------------------------------------ */

/* Transpose the 8x8 bit matrix held in x (byte r, bit c) -> (byte c, bit r). */
static inline uint64_t transpose8(uint64_t x)
{
	uint64_t t;

	t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
	x = x ^ t ^ (t << 7);
	t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
	x = x ^ t ^ (t << 14);
	t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
	x = x ^ t ^ (t << 28);
	return x;
}

/* Undo the transpose of one chunk of m elements (m % 8 == 0) of s bytes. */
static void unshuffle(const uint8_t *in, size_t m, unsigned s, uint8_t *out)
{
	size_t plane = m / 8;

	for (unsigned j = 0; j < s; j++) {
		const uint8_t *pl = in + (size_t)8 * j * plane;
		for (size_t b = 0; b < plane; b++) {
			uint64_t x = 0;
			for (unsigned k = 0; k < 8; k++)
				x |= (uint64_t)pl[k * plane + b] << (8 * k);
			x = transpose8(x);
			uint8_t *o = out + b * 8 * s + j;
			for (unsigned t = 0; t < 8; t++)
				o[t * s] = (uint8_t)(x >> (8 * t));
		}
	}
}

/* A bitshuffle block filling the rest of `c`: elements of `esz` bytes are
 * widened to `width` bytes each in a new array `*out`.  `allowed` is a
 * bit set of the element sizes accepted (1 << size). */
static colfs_status bshuf_decode(colfs_cursor *c, unsigned width,
				 unsigned allowed, uint32_t *ordinal,
				 uint32_t *count, uint8_t **out,
				 uint64_t max_alloc, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	size_t avail = colfs_cursor_left(c);
	uint32_t size, padded, esz;
	uint8_t *elems = NULL, *tmp = NULL, *wide = NULL;
	colfs_status st;

	*out = NULL;
	if (avail < 20)
		return colfs_fail(err, COLFS_ETRUNCATED, at,
				  "bitshuffle block of %zu bytes is shorter "
				  "than its 20-byte header", avail);
	COLFS_TRY(colfs_cursor_u32le(c, ordinal, err));
	COLFS_TRY(colfs_cursor_u32le(c, count, err));
	COLFS_TRY(colfs_cursor_u32le(c, &size, err));
	COLFS_TRY(colfs_cursor_u32le(c, &padded, err));
	COLFS_TRY(colfs_cursor_u32le(c, &esz, err));
	if (size != avail)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "bitshuffle size field %u, block has %zu "
				  "bytes", size, avail);
	if (padded != (uint32_t)(((uint64_t)*count + 7) / 8 * 8))
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "bitshuffle padded count %u for %u values",
				  padded, *count);
	if (esz > 16 || !(allowed >> esz & 1))
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "bitshuffle element size %u is not valid "
				  "for this type", esz);
	if (*count > CFILE_MAX_ROWS ||
	    (uint64_t)padded * width > max_alloc)
		return colfs_fail(err, COLFS_EOVERFLOW, at,
				  "bitshuffle count %u is over the cap",
				  *count);
	elems = calloc((size_t)padded * esz + 1, 1);
	size_t chunk_max = 8192 / esz / 8 * 8;
	if (chunk_max < 128)
		chunk_max = 128;
	tmp = malloc(chunk_max * esz);
	if (!elems || !tmp) {
		st = colfs_fail(err, COLFS_ENOMEM, at, "no memory");
		goto out;
	}
	for (size_t done = 0; done < padded;) {
		size_t m = padded - done >= chunk_max ? chunk_max
						      : (padded - done) / 8 * 8;
		uint32_t L;
		const uint8_t *in;
		size_t got = 0;
		uint64_t cat = colfs_cursor_offset(c);
		if ((st = colfs_cursor_u32be(c, &L, err)))
			goto out;
		if ((st = colfs_cursor_bytes(c, L, &in, err)))
			goto out;
		st = colfs_codec_decompress(COLFS_CODEC_LZ4_RAW, in, L, tmp,
					    m * esz, &got, cat, err);
		if (st)
			goto out;
		if (got != m * esz) {
			st = colfs_fail(err, COLFS_ECORRUPT, cat,
					"bitshuffle chunk decompressed to %zu "
					"bytes, expected %zu", got, m * esz);
			goto out;
		}
		unshuffle(tmp, m, esz, elems + done * esz);
		done += m;
	}
	if (colfs_cursor_left(c)) {
		st = colfs_fail(err, COLFS_ECORRUPT, colfs_cursor_offset(c),
				"%zu bytes after the bitshuffle stream",
				colfs_cursor_left(c));
		goto out;
	}
	if (esz == width) {
		*out = elems;
		elems = NULL;
	} else {
		wide = calloc((size_t)*count * width + 1, 1);
		if (!wide) {
			st = colfs_fail(err, COLFS_ENOMEM, at, "no memory");
			goto out;
		}
		for (uint32_t i = 0; i < *count; i++)
			memcpy(wide + (size_t)i * width, elems + (size_t)i * esz,
			       esz);
		*out = wide;
	}
	st = COLFS_OK;
out:
	free(elems);
	free(tmp);
	return st;
}

/* --- BINARY blocks ----------------------------------------------------------- */

colfs_status cfile_block_plain_binary_decode(colfs_cursor *c, uint32_t *ordinal,
				       uint32_t *count, const uint8_t ***str,
				       uint32_t **len, uint64_t max_alloc,
				       colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	const uint8_t *base = colfs_cursor_ptr(c);
	size_t size = colfs_cursor_left(c);
	size_t start0 = c->pos;
	uint32_t pos, n;
	colfs_cursor g;

	*str = NULL;
	*len = NULL;
	COLFS_TRY(colfs_cursor_u32le(c, ordinal, err));
	COLFS_TRY(colfs_cursor_u32le(c, count, err));
	COLFS_TRY(colfs_cursor_u32le(c, &pos, err));
	n = *count;
	if (pos < 12 || pos > size)
		return colfs_fail(err, COLFS_EBOUNDS, at,
				  "string offsets position %u outside [12, "
				  "%zu]", pos, size);
	/* ceil(n/4) groups of at least 5 bytes must fit after `pos`. */
	if (((uint64_t)n + 3) / 4 * 5 > size - pos)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "%u strings cannot have their offsets in the "
				  "%zu bytes left", n, size - pos);
	if ((uint64_t)n * (sizeof(**str) + sizeof(**len)) > max_alloc)
		return colfs_fail(err, COLFS_EOVERFLOW, at,
				  "%u strings is over the cap", n);
	COLFS_TRY(colfs_cursor_slice(c, start0 + pos, size - pos, &g, err));
	const uint8_t **s = malloc(((size_t)n + 1) * sizeof(*s));
	uint32_t *l = malloc(((size_t)n + 1) * sizeof(*l));
	if (!s || !l) {
		free(s), free(l);
		return colfs_fail(err, COLFS_ENOMEM, at, "no memory");
	}
	/* first pass: offsets into l[] */
	uint32_t prev = 12;
	colfs_status st = COLFS_OK;
	for (uint32_t i = 0; i < n; i += 4) {
		uint32_t v[4];
		uint64_t gat = colfs_cursor_offset(&g);
		if ((st = read_gvint(&g, v, err)))
			break;
		for (uint32_t k = 0; k < 4 && i + k < n; k++) {
			if (v[k] < prev || v[k] > pos) {
				st = colfs_fail(err, COLFS_ECORRUPT, gat,
						"string %u offset %u outside "
						"[%u, %u]", i + k, v[k], prev,
						pos);
				break;
			}
			l[i + k] = v[k];
			prev = v[k];
		}
		if (st)
			break;
	}
	if (st) {
		free(s), free(l);
		return st;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t end = i + 1 < n ? l[i + 1] : pos;
		s[i] = base + l[i];
		l[i] = end - l[i];
	}
	c->pos = c->len; /* the block is consumed */
	*str = s;
	*len = l;
	return COLFS_OK;
}

static colfs_status prefix_decode(colfs_cursor *c, cfile_values *v,
				  uint64_t max_alloc, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	size_t size = colfs_cursor_left(c);
	const uint8_t *base = colfs_cursor_ptr(c);
	size_t start0 = c->pos;
	uint32_t hdr[4], R, n, interval;
	colfs_cursor e;
	colfs_buf out = COLFS_BUF_INIT;
	uint32_t *offs = NULL;
	colfs_status st;

	COLFS_TRY(read_gvint(c, hdr, err));
	n = hdr[0];
	v->ordinal = hdr[1];
	interval = hdr[2];
	if (interval == 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PREFIX restart interval is 0");
	size_t hend = c->pos - start0; /* header end, from the block start */
	if (size < 4 + hend)
		return colfs_fail(err, COLFS_ETRUNCATED, at,
				  "PREFIX block has no restart count");
	R = colfs_le32(base + size - 4);
	if ((uint64_t)R * 4 + 4 > size - hend)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PREFIX restart count %u does not fit the "
				  "block", R);
	size_t limit = size - 4 - (size_t)R * 4;
	COLFS_TRY(colfs_cursor_slice(c, c->pos, limit - hend, &e, err));
	if (n > (limit - hend) / 2)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PREFIX count %u cannot fit in %zu bytes", n,
				  limit - hend);
	offs = malloc(((size_t)n + 1) * sizeof(*offs));
	v->len = malloc(((size_t)n + 1) * sizeof(*v->len));
	v->str = malloc(((size_t)n + 1) * sizeof(*v->str));
	if (!offs || !v->len || !v->str) {
		st = colfs_fail(err, COLFS_ENOMEM, at, "no memory");
		goto out;
	}
	size_t prev_off = 0, prev_len = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t shared, unshared;
		const uint8_t *p;
		uint64_t eat = colfs_cursor_offset(&e);
		if ((st = read_varint32(&e, &shared, "PREFIX shared", err)) ||
		    (st = read_varint32(&e, &unshared, "PREFIX length", err)))
			goto out;
		if (shared > prev_len || ((i % interval == 0) && shared)) {
			st = colfs_fail(err, COLFS_ECORRUPT, eat,
					"PREFIX entry %u shares %u bytes of a "
					"%zu-byte predecessor", i, shared,
					i % interval ? prev_len : 0);
			goto out;
		}
		if ((st = colfs_cursor_bytes(&e, unshared, &p, err)))
			goto out;
		if (out.len + shared + (uint64_t)unshared >
		    CFILE_MAX_PREFIX_BYTES) {
			st = colfs_fail(err, COLFS_EOVERFLOW, eat,
					"PREFIX strings exceed %u bytes",
					CFILE_MAX_PREFIX_BYTES);
			goto out;
		}
		size_t start = out.len;
		if (!colfs_buf_reserve(&out, (size_t)shared + unshared + 1)) {
			st = colfs_fail(err, COLFS_ENOMEM, eat, "no memory");
			goto out;
		}
		memmove(out.data + out.len, out.data + prev_off, shared);
		out.len += shared;
		colfs_buf_append(&out, p, unshared);
		offs[i] = (uint32_t)start;
		v->len[i] = shared + unshared;
		prev_off = start;
		prev_len = v->len[i];
	}
	if (colfs_cursor_left(&e)) {
		st = colfs_fail(err, COLFS_ECORRUPT, colfs_cursor_offset(&e),
				"%zu bytes between the last PREFIX entry and "
				"the restart array", colfs_cursor_left(&e));
		goto out;
	}
	v->n = n;
	v->owned = (uint8_t *)colfs_buf_take(&out, &prev_len);
	for (uint32_t i = 0; i < n; i++)
		v->str[i] = v->owned + offs[i];
	st = COLFS_OK;
out:
	(void)max_alloc;
	colfs_buf_free(&out);
	free(offs);
	return st;
}

/* --- the dictionary ------------------------------------------------------------ */

colfs_status cfile_block_dict_load(cfile_file *f, colfs_err *err)
{
	colfs_status st;

	pthread_mutex_lock(&f->dict_lock);
	if (!f->dict_tried) {
		const Kudu__Cfile__BlockPointerPB *bp =
			f->footer->dict_block_ptr;
		cfile_ptr p = {(uint64_t)bp->offset, (uint32_t)bp->size};
		cfile_raw raw;
		colfs_cursor c;
		uint32_t ord, n;

		f->dict_tried = true;
		st = cfile_block_read(f, p, &raw, &f->dict_err);
		if (!st) {
			colfs_cursor_init_virtual(&c, raw.data, raw.data_len,
						  p.offset);
			st = cfile_block_plain_binary_decode(&c, &ord, &n,
						       &f->dict_str,
						       &f->dict_len,
						       f->max_alloc,
						       &f->dict_err);
			if (!st) {
				f->dict_n = n;
				/* keep the bytes the strings point into */
				if (raw.data_owned) {
					f->dict_data = raw.data;
					raw.data_owned = false;
				} else {
					f->dict_data = raw.stored;
					raw.stored = NULL;
				}
			}
			cfile_block_raw_free(&raw);
		}
		f->dict_status = st;
	}
	st = f->dict_status;
	if (st && err)
		*err = f->dict_err;
	pthread_mutex_unlock(&f->dict_lock);
	return st;
}

/* --- data blocks --------------------------------------------------------------- */

static colfs_status decode_fixed_plain(cfile_file *f, colfs_cursor *c,
				       cfile_values *v, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	uint32_t count;
	uint64_t need;
	bool is_bool = f->ti->phys == CFILE_PHYS_BOOL;

	COLFS_TRY(colfs_cursor_u32le(c, &count, err));
	COLFS_TRY(colfs_cursor_u32le(c, &v->ordinal, err));
	need = is_bool ? ((uint64_t)count + 7) / 8
		       : (uint64_t)count * v->width;
	if (need != colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "PLAIN block of %u values needs %llu bytes, "
				  "has %zu", count, (unsigned long long)need,
				  colfs_cursor_left(c));
	v->n = count;
	v->fixed = malloc((size_t)count * v->width + 1);
	if (!v->fixed)
		return colfs_fail(err, COLFS_ENOMEM, at, "no memory");
	const uint8_t *p = colfs_cursor_ptr(c);
	if (is_bool)
		for (uint32_t i = 0; i < count; i++)
			v->fixed[i] = p[i >> 3] >> (i & 7) & 1;
	else
		memcpy(v->fixed, p, (size_t)count * v->width);
	c->pos = c->len;
	return COLFS_OK;
}

static colfs_status decode_rle(cfile_file *f, colfs_cursor *c,
			       cfile_values *v, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	uint32_t count;
	bool is_bool = f->ti->phys == CFILE_PHYS_BOOL;

	COLFS_TRY(colfs_cursor_u32le(c, &count, err));
	COLFS_TRY(colfs_cursor_u32le(c, &v->ordinal, err));
	if (count > CFILE_MAX_ROWS)
		return colfs_fail(err, COLFS_EOVERFLOW, at,
				  "RLE block count %u is over the cap", count);
	v->fixed = calloc((size_t)count * v->width + 1, 1);
	if (!v->fixed)
		return colfs_fail(err, COLFS_ENOMEM, at, "no memory");
	COLFS_TRY(rle_decode(c, is_bool ? 1 : 8 * v->width, count, v->fixed,
			     v->width, NULL, err));
	v->n = count;
	/* trailing bytes after an RLE stream are tolerated (§16.5) */
	return COLFS_OK;
}

static colfs_status decode_group_varint(cfile_file *f, colfs_cursor *c,
					cfile_values *v, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	uint32_t hdr[4];

	(void)f;
	COLFS_TRY(read_gvint(c, hdr, err));
	uint32_t count = hdr[0], min = hdr[1];
	v->ordinal = hdr[2];
	if (((uint64_t)count + 3) / 4 * 5 > colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "GROUP_VARINT count %u cannot fit in %zu "
				  "bytes", count, colfs_cursor_left(c));
	v->fixed = malloc((size_t)count * 4 + 1);
	if (!v->fixed)
		return colfs_fail(err, COLFS_ENOMEM, at, "no memory");
	for (uint32_t i = 0; i < count; i += 4) {
		uint32_t g[4];
		COLFS_TRY(read_gvint(c, g, err));
		for (uint32_t k = 0; k < 4 && i + k < count; k++) {
			uint32_t x = g[k] + min;
			uint8_t *o = v->fixed + (size_t)(i + k) * 4;
			o[0] = (uint8_t)x;
			o[1] = (uint8_t)(x >> 8);
			o[2] = (uint8_t)(x >> 16);
			o[3] = (uint8_t)(x >> 24);
		}
	}
	v->n = count;
	return COLFS_OK;
}

static colfs_status decode_dict(cfile_file *f, colfs_cursor *c,
				cfile_values *v, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	uint32_t mode, count;
	uint8_t *cw = NULL;

	COLFS_TRY(colfs_cursor_u32le(c, &mode, err));
	v->dict_mode = (int32_t)mode;
	if (mode == 2)
		return cfile_block_plain_binary_decode(c, &v->ordinal, &v->n, &v->str,
						 &v->len, f->max_alloc, err);
	if (mode != 1)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "dictionary block mode %u (expected 1 or 2)",
				  mode);
	COLFS_TRY(cfile_block_dict_load(f, err));
	COLFS_TRY(bshuf_decode(c, 4, 1u << 1 | 1u << 2 | 1u << 4, &v->ordinal,
			       &count, &cw, f->max_alloc, err));
	v->str = malloc(((size_t)count + 1) * sizeof(*v->str));
	v->len = malloc(((size_t)count + 1) * sizeof(*v->len));
	if (!v->str || !v->len) {
		free(cw);
		return colfs_fail(err, COLFS_ENOMEM, at, "no memory");
	}
	for (uint32_t i = 0; i < count; i++) {
		uint32_t k = colfs_le32(cw + (size_t)i * 4);
		if (k >= f->dict_n) {
			free(cw);
			return colfs_fail(err, COLFS_EBOUNDS, at,
					  "codeword %u of value %u is past the "
					  "%u-entry dictionary", k, i,
					  f->dict_n);
		}
		v->str[i] = f->dict_str[k];
		v->len[i] = f->dict_len[k];
	}
	free(cw);
	v->n = count;
	return COLFS_OK;
}

/* The array prefix (§7.3); `*ones` = present elements. */
static colfs_status array_prefix(colfs_cursor *c, cfile_values *v,
				 uint32_t *ones, uint64_t where,
				 colfs_err *err)
{
	uint32_t len, cell_ones;
	colfs_cursor sub;
	uint64_t sum = 0;

	COLFS_TRY(read_varint32(c, &v->flat_count, "array elements", err));
	COLFS_TRY(read_varint32(c, &v->rows, "array cells", err));
	if (v->flat_count > CFILE_MAX_ROWS || v->rows > CFILE_MAX_ROWS)
		return colfs_fail(err, COLFS_EOVERFLOW, where,
				  "array block of %u elements in %u cells is "
				  "over the cap", v->flat_count, v->rows);
	v->flat_present = malloc((size_t)v->flat_count + 1);
	v->elems = malloc(((size_t)v->rows + 1) * sizeof(*v->elems));
	v->present = malloc((size_t)v->rows + 1);
	uint8_t *counts = malloc((size_t)v->rows * 2 + 1);
	if (!v->flat_present || !v->elems || !v->present || !counts) {
		free(counts);
		return colfs_fail(err, COLFS_ENOMEM, where, "no memory");
	}
	colfs_status st;
	if ((st = read_varint32(c, &len, "element bitmap length", err)) ||
	    (st = colfs_cursor_sub(c, len, &sub, err)) ||
	    (st = rle_decode(&sub, 1, v->flat_count, v->flat_present, 1, ones,
			     err)) ||
	    (st = read_varint32(c, &len, "element counts length", err)) ||
	    (st = colfs_cursor_sub(c, len, &sub, err)) ||
	    (st = rle_decode(&sub, 16, v->rows, counts, 2, NULL, err)) ||
	    (st = read_varint32(c, &len, "cell bitmap length", err)) ||
	    (st = colfs_cursor_sub(c, len, &sub, err)) ||
	    (st = rle_decode(&sub, 1, v->rows, v->present, 1, &cell_ones,
			     err))) {
		free(counts);
		return st;
	}
	for (uint32_t i = 0; i < v->rows; i++) {
		v->elems[i] = colfs_le16(counts + 2 * (size_t)i);
		sum += v->elems[i];
		if (!v->present[i] && v->elems[i]) {
			free(counts);
			return colfs_fail(err, COLFS_ECORRUPT, where,
					  "NULL array cell %u has %u elements",
					  i, v->elems[i]);
		}
	}
	free(counts);
	if (sum != v->flat_count)
		return colfs_fail(err, COLFS_ECORRUPT, where,
				  "array cells hold %llu elements, the block "
				  "says %u", (unsigned long long)sum,
				  v->flat_count);
	return COLFS_OK;
}

colfs_status cfile_block_decode(cfile_file *f, const cfile_raw *raw,
				cfile_ptr p, cfile_values *v, colfs_err *err)
{
	colfs_cursor c;
	uint32_t ones = 0;
	colfs_status st;

	memset(v, 0, sizeof(*v));
	v->width = f->ti->width;
	colfs_cursor_init_virtual(&c, raw->data, raw->data_len, p.offset);
	if (f->array) {
		st = array_prefix(&c, v, &ones, p.offset, err);
		if (st)
			goto fail;
	} else if (f->nullable) {
		uint32_t blen;
		colfs_cursor bm;
		COLFS_TRY(read_varint32(&c, &v->rows, "null bitmap rows", err));
		COLFS_TRY(read_varint32(&c, &blen, "null bitmap length", err));
		if (v->rows > CFILE_MAX_ROWS)
			return colfs_fail(err, COLFS_EOVERFLOW, p.offset,
					  "block claims %u rows, over the cap",
					  v->rows);
		v->bitmap_off = (uint32_t)c.pos;
		v->bitmap_len = blen;
		if (blen > colfs_cursor_left(&c))
			return colfs_fail(err, COLFS_ETRUNCATED, p.offset,
					  "null bitmap of %u bytes, %zu left "
					  "in the block", blen,
					  colfs_cursor_left(&c));
		COLFS_TRY(colfs_cursor_sub(&c, blen, &bm, err));
		v->present = malloc((size_t)v->rows + 1);
		if (!v->present)
			return colfs_fail(err, COLFS_ENOMEM, p.offset,
					  "no memory");
		st = rle_decode(&bm, 1, v->rows, v->present, 1, &ones, err);
		if (st)
			goto fail;
	}
	switch (f->encoding) {
	case CFILE_PLAIN:
		if (f->ti->phys == CFILE_PHYS_BINARY)
			st = cfile_block_plain_binary_decode(&c, &v->ordinal, &v->n,
						       &v->str, &v->len,
						       f->max_alloc, err);
		else
			st = decode_fixed_plain(f, &c, v, err);
		break;
	case CFILE_PREFIX:
		st = prefix_decode(&c, v, f->max_alloc, err);
		break;
	case CFILE_DICT:
		st = decode_dict(f, &c, v, err);
		break;
	case CFILE_RLE:
		st = decode_rle(f, &c, v, err);
		break;
	case CFILE_GROUP_VARINT:
		st = decode_group_varint(f, &c, v, err);
		break;
	case CFILE_BIT_SHUFFLE: {
		unsigned allowed = 1u << v->width;
		if (f->type == CFILE_UINT32)
			allowed |= 1u << 1 | 1u << 2;
		st = bshuf_decode(&c, v->width, allowed, &v->ordinal, &v->n,
				  &v->fixed, f->max_alloc, err);
		break;
	}
	default:
		st = colfs_fail(err, COLFS_EUNSUPPORTED, p.offset,
				"encoding %d", f->encoding);
		break;
	}
	if (st)
		goto fail;
	if (f->array) {
		if (ones != v->n) {
			st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
					"element bitmap has %u present "
					"elements, the block holds %u values",
					ones, v->n);
			goto fail;
		}
	} else if (f->nullable) {
		if (ones != v->n) {
			st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
					"null bitmap has %u present rows, the "
					"block holds %u values", ones, v->n);
			goto fail;
		}
	} else {
		v->rows = v->n;
	}
	return COLFS_OK;
fail:
	cfile_block_values_free(v);
	return st;
}

void cfile_block_values_render(const cfile_file *f, const cfile_values *v,
			 const char *null_token, colfs_buf *out)
{
	uint32_t j = 0;

	if (v->elems) { /* arrays: one JSON array per cell */
		uint32_t e = 0;
		for (uint32_t r = 0; r < v->rows; r++) {
			if (!v->present[r]) {
				colfs_buf_puts(out, null_token);
				colfs_buf_putc(out, '\n');
				continue;
			}
			colfs_buf_putc(out, '[');
			for (uint32_t k = 0; k < v->elems[r]; k++, e++) {
				if (k)
					colfs_buf_putc(out, ',');
				if (e >= v->flat_count || !v->flat_present[e] ||
				    j >= v->n) {
					colfs_buf_puts(out, "null");
				} else if (v->width == 0) {
					cfile_types_value_render_json(out, f->type,
								v->str[j],
								v->len[j]);
					j++;
				} else {
					cfile_types_value_render_json(
						out, f->type,
						v->fixed + (size_t)j * v->width,
						v->width);
					j++;
				}
			}
			colfs_buf_puts(out, "]\n");
		}
		return;
	}
	for (uint32_t r = 0; r < v->rows; r++) {
		if (v->present && !v->present[r]) {
			colfs_buf_puts(out, null_token);
		} else if (j < v->n) {
			if (v->width == 0)
				cfile_types_value_render(out, f->type, v->str[j],
						   v->len[j]);
			else
				cfile_types_value_render(out, f->type,
						   v->fixed + (size_t)j *
								      v->width,
						   v->width);
			j++;
		}
		colfs_buf_putc(out, '\n');
	}
}

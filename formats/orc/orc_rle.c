/* colfs ORC: byte, boolean and integer run-length decoding (ORC
 * specification, "Run Length Encoding").  Written for colfs. */
#include "orc_rle.h"

#include <string.h>

static colfs_status rle_fail(const orc_in *in, colfs_err *err,
			     colfs_status st, const char *what)
{
	return colfs_fail(err, st, orc_in_offset(in), "%s", what);
}

/* --- byte RLE ------------------------------------------------------------ */

void orc_rle_byte_init(orc_rle_byte *d, const orc_in *in)
{
	memset(d, 0, sizeof(*d));
	d->in = *in;
}

static colfs_status byte_rle_fill(orc_rle_byte *d, colfs_err *err)
{
	uint8_t ctl;

	d->run_len = 0;
	d->run_pos = 0;
	if (!orc_in_more(&d->in))
		return rle_fail(&d->in, err, COLFS_ETRUNCATED,
				"byte RLE: stream ended before all values");
	COLFS_TRY(orc_in_u8(&d->in, &ctl, err));
	if (ctl < 0x80) {
		uint8_t v;

		COLFS_TRY(orc_in_u8(&d->in, &v, err));
		d->run_len = (size_t)ctl + 3;
		memset(d->run, v, d->run_len);
	} else {
		d->run_len = 256 - (size_t)ctl;
		COLFS_TRY(orc_in_copy(&d->in, d->run, d->run_len, err));
	}
	d->run_pos = 0;
	return COLFS_OK;
}

colfs_status orc_rle_byte_next(orc_rle_byte *d, uint8_t *out, size_t n,
			       colfs_err *err)
{
	while (n > 0) {
		size_t take;

		if (d->run_pos == d->run_len)
			COLFS_TRY(byte_rle_fill(d, err));
		take = d->run_len - d->run_pos;
		if (take > n)
			take = n;
		memcpy(out, d->run + d->run_pos, take);
		d->run_pos += take;
		out += take;
		n -= take;
	}
	return COLFS_OK;
}

colfs_status orc_rle_byte_seek(orc_rle_byte *d, const uint64_t *pos,
			       size_t n, size_t *used, colfs_err *err)
{
	uint64_t skip;

	COLFS_TRY(orc_in_seek(&d->in, pos, n, used, err));
	d->run_len = d->run_pos = 0;
	if (*used >= n)
		return rle_fail(&d->in, err, COLFS_ECORRUPT,
				"row index: too few positions");
	skip = pos[(*used)++];
	while (skip > 0) {
		size_t take;

		if (d->run_pos == d->run_len)
			COLFS_TRY(byte_rle_fill(d, err));
		take = d->run_len - d->run_pos;
		if (take > skip)
			take = (size_t)skip;
		d->run_pos += take;
		skip -= take;
	}
	return COLFS_OK;
}

void orc_rle_byte_close(orc_rle_byte *d)
{
	orc_in_close(&d->in);
}

/* --- boolean RLE --------------------------------------------------------- */

void orc_rle_bool_init(orc_rle_bool *d, const orc_in *in)
{
	orc_rle_byte_init(&d->bytes, in);
	d->cur_byte = 0;
	d->bits_left = 0;
}

colfs_status orc_rle_bool_next(orc_rle_bool *d, uint8_t *out, size_t n,
			       colfs_err *err)
{
	for (size_t i = 0; i < n; i++) {
		if (d->bits_left == 0) {
			COLFS_TRY(orc_rle_byte_next(&d->bytes, &d->cur_byte, 1,
						    err));
			d->bits_left = 8;
		}
		d->bits_left--;
		out[i] = (d->cur_byte >> d->bits_left) & 1;
	}
	return COLFS_OK;
}

colfs_status orc_rle_bool_seek(orc_rle_bool *d, const uint64_t *pos,
			       size_t n, size_t *used, colfs_err *err)
{
	uint64_t bits;

	COLFS_TRY(orc_rle_byte_seek(&d->bytes, pos, n, used, err));
	d->bits_left = 0;
	if (*used >= n)
		return rle_fail(&d->bytes.in, err, COLFS_ECORRUPT,
				"row index: too few positions");
	bits = pos[(*used)++];
	if (bits > 8)
		return rle_fail(&d->bytes.in, err, COLFS_ECORRUPT,
				"row index: more than 8 bits to skip in a "
				"byte");
	if (bits > 0) {
		COLFS_TRY(orc_rle_byte_next(&d->bytes, &d->cur_byte, 1, err));
		d->bits_left = 8 - (unsigned)bits;
	}
	return COLFS_OK;
}

void orc_rle_bool_close(orc_rle_bool *d)
{
	orc_rle_byte_close(&d->bytes);
}

/* --- integer RLE --------------------------------------------------------- */

void orc_rle_int_close(orc_rle_int *d)
{
	orc_in_close(&d->in);
}

void orc_rle_int_init(orc_rle_int *d, const orc_in *in, bool v2,
		      bool is_signed)
{
	d->in = *in;
	d->v2 = v2;
	d->is_signed = is_signed;
	d->run_len = 0;
	d->run_pos = 0;
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}

static colfs_status read_varint(orc_rle_int *d, bool is_signed, int64_t *out,
				colfs_err *err)
{
	uint64_t u;

	COLFS_TRY(orc_in_uvarint(&d->in, &u, err));
	*out = is_signed ? unzigzag(u) : (int64_t)u;
	return COLFS_OK;
}

static colfs_status v1_fill(orc_rle_int *d, colfs_err *err)
{
	uint8_t ctl;

	COLFS_TRY(orc_in_u8(&d->in, &ctl, err));
	if (ctl < 0x80) {
		uint8_t db;
		int64_t base;
		size_t count = (size_t)ctl + 3;

		COLFS_TRY(orc_in_u8(&d->in, &db, err));
		COLFS_TRY(read_varint(d, d->is_signed, &base, err));
		for (size_t i = 0; i < count; i++)
			d->run[i] = (int64_t)((uint64_t)base +
					      (uint64_t)(int64_t)(int8_t)db *
						      (uint64_t)i);
		d->run_len = count;
	} else {
		size_t count = 256 - (size_t)ctl;

		for (size_t i = 0; i < count; i++)
			COLFS_TRY(read_varint(d, d->is_signed, &d->run[i], err));
		d->run_len = count;
	}
	d->run_pos = 0;
	return COLFS_OK;
}

unsigned orc_rle_width_decode(unsigned code, bool delta)
{
	static const unsigned high[8] = {26, 28, 30, 32, 40, 48, 56, 64};

	if (delta && code == 0)
		return 0;
	if (code < 24)
		return code + 1;
	return high[(code - 24) & 7];
}

/* The smallest of the fixed widths the writers use that holds n bits. */
static unsigned closest_fixed_bits(unsigned n)
{
	if (n == 0)
		return 1;
	if (n <= 24)
		return n;
	if (n <= 26)
		return 26;
	if (n <= 28)
		return 28;
	if (n <= 30)
		return 30;
	if (n <= 32)
		return 32;
	if (n <= 40)
		return 40;
	if (n <= 48)
		return 48;
	if (n <= 56)
		return 56;
	return 64;
}

/* Unpack `count` big-endian values of `width` bits (1..64).  The byte
 * length is checked once; the loop then runs unchecked. */
static colfs_status unpack_bits(orc_in *c, unsigned width, size_t count,
				uint64_t *out, colfs_err *err)
{
	uint64_t bits = (uint64_t)width * count;
	size_t nbytes = (size_t)((bits + 7) / 8);
	const uint8_t *p;
	uint64_t acc = 0;
	unsigned have = 0;

	if (width == 0 || width > 64)
		return rle_fail(c, err, COLFS_ECORRUPT,
				"RLE v2: bad bit width");
	COLFS_TRY(orc_in_bytes(c, nbytes, &p, err));
	for (size_t i = 0; i < count; i++) {
		uint64_t v = 0;
		unsigned need = width;

		while (need > 0) {
			unsigned take;

			if (have == 0) {
				acc = *p++;
				have = 8;
			}
			take = need < have ? need : have;
			v = (take == 64 ? 0 : v << take) |
			    ((acc >> (have - take)) & ((1u << take) - 1));
			have -= take;
			need -= take;
		}
		out[i] = v;
	}
	return COLFS_OK;
}

static colfs_status v2_short_repeat(orc_rle_int *d, uint8_t h, colfs_err *err)
{
	unsigned width = ((h >> 3) & 7) + 1;
	size_t count = (size_t)(h & 7) + 3;
	const uint8_t *p;
	uint64_t v = 0;

	COLFS_TRY(orc_in_bytes(&d->in, width, &p, err));
	for (unsigned i = 0; i < width; i++)
		v = v << 8 | p[i];
	for (size_t i = 0; i < count; i++)
		d->run[i] = d->is_signed ? unzigzag(v) : (int64_t)v;
	d->run_len = count;
	return COLFS_OK;
}

static colfs_status v2_direct(orc_rle_int *d, uint8_t h, colfs_err *err)
{
	uint8_t h2;
	unsigned width = orc_rle_width_decode((h >> 1) & 0x1f, false);
	size_t count;
	uint64_t *tmp = (uint64_t *)d->run;

	COLFS_TRY(orc_in_u8(&d->in, &h2, err));
	count = ((size_t)(h & 1) << 8 | h2) + 1;
	COLFS_TRY(unpack_bits(&d->in, width, count, tmp, err));
	if (d->is_signed)
		for (size_t i = 0; i < count; i++)
			d->run[i] = unzigzag(tmp[i]);
	d->run_len = count;
	return COLFS_OK;
}

static colfs_status v2_patched_base(orc_rle_int *d, uint8_t h, colfs_err *err)
{
	const uint64_t at = orc_in_offset(&d->in);
	uint8_t hb[3];
	unsigned width = orc_rle_width_decode((h >> 1) & 0x1f, false);
	size_t count;
	unsigned base_bytes, patch_width, gap_width, patch_count, entry_bits;
	const uint8_t *p;
	uint64_t base_u = 0, patches[32];
	uint64_t *vals = (uint64_t *)d->run;
	int64_t base;
	size_t idx = 0;

	COLFS_TRY(orc_in_copy(&d->in, hb, 3, err));
	count = ((size_t)(h & 1) << 8 | hb[0]) + 1;
	base_bytes = ((hb[1] >> 5) & 7) + 1;
	patch_width = orc_rle_width_decode(hb[1] & 0x1f, false);
	gap_width = ((hb[2] >> 5) & 7) + 1;
	patch_count = hb[2] & 0x1f;
	if (patch_width + gap_width > 64)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "RLE v2 patched base: patch width %u + gap "
				  "width %u exceeds 64 bits",
				  patch_width, gap_width);
	if (width >= 64 && patch_count > 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "RLE v2 patched base: 64-bit values cannot "
				  "take patches");
	COLFS_TRY(orc_in_bytes(&d->in, base_bytes, &p, err));
	for (unsigned i = 0; i < base_bytes; i++)
		base_u = base_u << 8 | p[i];
	{
		uint64_t sign = (uint64_t)1 << (base_bytes * 8 - 1);

		if (base_u & sign)
			base = -(int64_t)(base_u & ~sign);
		else
			base = (int64_t)base_u;
	}
	COLFS_TRY(unpack_bits(&d->in, width, count, vals, err));
	entry_bits = closest_fixed_bits(patch_width + gap_width);
	if (patch_count > 0)
		COLFS_TRY(unpack_bits(&d->in, entry_bits, patch_count,
				      patches, err));
	for (unsigned i = 0; i < patch_count; i++) {
		uint64_t gap = patches[i] >> patch_width;
		uint64_t patch = patch_width == 64
					 ? patches[i]
					 : patches[i] & (((uint64_t)1 << patch_width) - 1);

		idx += (size_t)gap;
		if (idx >= count)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "RLE v2 patched base: patch %u at "
					  "index %zu past the run of %zu",
					  i, idx, count);
		if (patch == 0)
			continue; /* a gap longer than the gap width holds */
		if (patch_width + width > 64 &&
		    (patch >> (64 - width)) != 0)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "RLE v2 patched base: patch overflows "
					  "64 bits");
		vals[idx] |= patch << width;
	}
	for (size_t i = 0; i < count; i++)
		d->run[i] = (int64_t)((uint64_t)base + vals[i]);
	d->run_len = count;
	return COLFS_OK;
}

static colfs_status v2_delta(orc_rle_int *d, uint8_t h, colfs_err *err)
{
	uint8_t h2;
	unsigned width = orc_rle_width_decode((h >> 1) & 0x1f, true);
	size_t count;
	int64_t base, delta;

	COLFS_TRY(orc_in_u8(&d->in, &h2, err));
	count = ((size_t)(h & 1) << 8 | h2) + 1;
	COLFS_TRY(read_varint(d, d->is_signed, &base, err));
	COLFS_TRY(read_varint(d, true, &delta, err));
	d->run[0] = base;
	if (width == 0) {
		for (size_t i = 1; i < count; i++)
			d->run[i] = (int64_t)((uint64_t)d->run[i - 1] +
					      (uint64_t)delta);
	} else {
		uint64_t *tmp = (uint64_t *)d->run + 2;

		if (count < 2)
			return rle_fail(&d->in, err, COLFS_ECORRUPT,
					"RLE v2 delta: run of 1 with deltas");
		d->run[1] = (int64_t)((uint64_t)base + (uint64_t)delta);
		/* Unpack into run[2..] in place: each value is read before
		 * its slot is rewritten. */
		COLFS_TRY(unpack_bits(&d->in, width, count - 2, tmp, err));
		for (size_t i = 2; i < count; i++) {
			uint64_t dv = tmp[i - 2];
			uint64_t prev = (uint64_t)d->run[i - 1];

			d->run[i] = (int64_t)(delta < 0 ? prev - dv
							: prev + dv);
		}
	}
	d->run_len = count;
	return COLFS_OK;
}

static colfs_status v2_fill(orc_rle_int *d, colfs_err *err)
{
	uint8_t h;

	COLFS_TRY(orc_in_u8(&d->in, &h, err));
	switch (h >> 6) {
	case 0:
		COLFS_TRY(v2_short_repeat(d, h, err));
		break;
	case 1:
		COLFS_TRY(v2_direct(d, h, err));
		break;
	case 2:
		COLFS_TRY(v2_patched_base(d, h, err));
		break;
	default:
		COLFS_TRY(v2_delta(d, h, err));
		break;
	}
	d->run_pos = 0;
	return COLFS_OK;
}

/* The next run of an integer stream (v1 or v2). */
static colfs_status int_rle_fill(orc_rle_int *d, colfs_err *err)
{
	if (!orc_in_more(&d->in))
		return rle_fail(&d->in, err, COLFS_ETRUNCATED,
				"integer RLE: stream ended before all values");
	/* Reset both, so a failed fill leaves an empty run behind, never a
	 * stale position past its end. */
	d->run_len = 0;
	d->run_pos = 0;
	return d->v2 ? v2_fill(d, err) : v1_fill(d, err);
}

colfs_status orc_rle_int_next(orc_rle_int *d, int64_t *out, size_t n,
			      colfs_err *err)
{
	while (n > 0) {
		size_t take;

		if (d->run_pos == d->run_len)
			COLFS_TRY(int_rle_fill(d, err));
		take = d->run_len - d->run_pos;
		if (take > n)
			take = n;
		memcpy(out, d->run + d->run_pos, take * sizeof(*out));
		d->run_pos += take;
		out += take;
		n -= take;
	}
	return COLFS_OK;
}

colfs_status orc_rle_int_seek(orc_rle_int *d, const uint64_t *pos, size_t n,
			      size_t *used, colfs_err *err)
{
	uint64_t skip;

	COLFS_TRY(orc_in_seek(&d->in, pos, n, used, err));
	d->run_len = d->run_pos = 0;
	if (*used >= n)
		return rle_fail(&d->in, err, COLFS_ECORRUPT,
				"row index: too few positions");
	skip = pos[(*used)++];
	while (skip > 0) {
		size_t take;

		if (d->run_pos == d->run_len)
			COLFS_TRY(int_rle_fill(d, err));
		take = d->run_len - d->run_pos;
		if (take > skip)
			take = (size_t)skip;
		d->run_pos += take;
		skip -= take;
	}
	return COLFS_OK;
}

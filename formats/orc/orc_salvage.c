/* colfs ORC: salvage of a file whose tail (PostScript, Footer) is lost
 * (docs/orc-tree.md, "Salvage").
 *
 * A stripe is its index streams, its data streams and its StripeFooter,
 * back to back; the footer lists the streams with their lengths.  Without
 * the file Footer the stripes can still be found: the damaged file is
 * scanned for byte positions where a StripeFooter decodes (through the
 * compression chunk framing of the codec of a healthy file of the same
 * dataset, `-o schema_from`), fits that file's schema (one encoding per
 * type, every stream a kind its column's type has, index streams before
 * data streams) and lists streams whose lengths add up to no more than the
 * bytes before it.  The stripe then starts at footer offset - sum of the
 * stream lengths.  Stripes follow each other from offset 3 (after the
 * "ORC" header), so the recovered stripes are a chain: from offset 3, the
 * candidate with the smallest start at or after the end of the previous
 * stripe's footer.  Each recovered stripe gets a synthetic
 * StripeInformation and the whole set is read by the ordinary stripe code
 * through a second orc_file whose Footer is synthetic (the schema file's
 * types, the recovered stripes).
 *
 * The number of rows of a stripe is taken from the data: the sum of the
 * numberOfValues statistics of column 0's ROW_INDEX entries (checked
 * against the row index stride), else the number of values in the stream
 * of a top-level column without a PRESENT stream.  A stripe whose row
 * count cannot be found this way is reported and not recovered.
 *
 * Bounds: the file is read in windows of SALVAGE_WINDOW bytes; a footer is
 * one compression chunk (at most the block size), a full chunk and the
 * chunks after it (at most SALVAGE_MAX_FOOTER bytes more) or,
 * uncompressed, at most SALVAGE_MAX_FOOTER bytes; at most SALVAGE_MAX_ATTEMPTS decompressions
 * and protobuf decodes are tried over the whole scan and at most
 * SALVAGE_MAX_CANDIDATES candidates kept (both times -o salvage_effort).  Memory is one window plus one
 * footer span plus one decompressed block plus the candidates.  The source
 * file is only read. */
#include "orc_in.h"
#include "orc_internal.h"
#include "orc_rle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SALVAGE_WINDOW (4u << 20)
#define SALVAGE_MAX_FOOTER (1u << 20)
#define SALVAGE_MAX_BLOCK (16u << 20)
#define SALVAGE_MAX_ATTEMPTS (1u << 22)
#define SALVAGE_MAX_CANDIDATES 65536u
#define SALVAGE_MAX_BOUNDARIES 16
#define SALVAGE_SUMMARY_CANDIDATES 1000
/* values counted in one stream to find a stripe's rows */
#define SALVAGE_MAX_COUNT (1ull << 32)

typedef struct salvage_cand {
	uint64_t start;       /* first byte of the stripe */
	uint64_t footer_off;
	uint64_t footer_len;
	uint64_t index_len;
	uint64_t data_len;
	size_t n_streams;
	size_t n_columns;
	long stripe;          /* recovered stripe number, -1: not chosen */
} salvage_cand;

typedef struct orc_salvage {
	bool scanned;
	bool have_schema;
	char why[600];            /* no schema: the reason */
	colfs_tree *sib_tree;     /* the schema_from file */
	orc_file *sib;
	/* scan parameters */
	bool compressed;
	colfs_codec codec;
	uint64_t block_size;
	/* scan results */
	salvage_cand *cands;
	size_t n_cands, cap_cands;
	uint64_t attempts;
	uint64_t scan_end;        /* first offset not scanned */
	bool capped;
	uint8_t *joined, *comp;   /* try_chunks: joined footer, one chunk */
	/* the caps, times the salvage_effort option */
	uint64_t max_attempts;
	size_t max_cands;
	/* the recovered stripes as a file (schema only) */
	orc_file *s;
	Orcpb__Footer footer;
	Orcpb__StripeInformation *si;
	Orcpb__StripeInformation **sip;
	const char **rows_from;   /* per recovered stripe */
	colfs_buf summary;
} orc_salvage;

/* --- the schema file ------------------------------------------------------- */

static void open_schema(orc_file *f, orc_salvage *sv)
{
	const colfs_options *o = colfs_tree_options(f->tree);
	colfs_options so;
	char why[256];
	orc_file *sib;

	if (!o->schema_from) {
		snprintf(sv->why, sizeof(sv->why),
			 "schema_from is needed to recover stripes: mount "
			 "with -o schema_from=OTHER.orc (a healthy ORC file "
			 "of the same dataset: its types, compression and "
			 "block size are used)");
		return;
	}
	so = *o;
	so.schema_from = NULL;
	if (colfs_tree_open(o->schema_from, &so, &sv->sib_tree, why,
			    sizeof(why)) != COLFS_OK) {
		sv->sib_tree = NULL;
		snprintf(sv->why, sizeof(sv->why),
			 "schema_from file %s cannot be opened: %s",
			 o->schema_from, why);
		goto refuse;
	}
	if (strcmp(colfs_tree_format(sv->sib_tree), "orc") != 0) {
		snprintf(sv->why, sizeof(sv->why),
			 "schema_from file %s is %s, not ORC", o->schema_from,
			 colfs_tree_format(sv->sib_tree));
		goto refuse;
	}
	sib = colfs_tree_format_state(sv->sib_tree);
	if (!sib || !sib->footer || !sib->schema_ok) {
		snprintf(sv->why, sizeof(sv->why),
			 "schema_from file %s has no readable schema",
			 o->schema_from);
		goto refuse;
	}
	if (sib->compressed && sib->block_size > SALVAGE_MAX_BLOCK) {
		snprintf(sv->why, sizeof(sv->why),
			 "schema_from file %s has a compression block size "
			 "of %llu bytes, more than salvage handles (%u)",
			 o->schema_from,
			 (unsigned long long)sib->block_size,
			 SALVAGE_MAX_BLOCK);
		goto refuse;
	}
	sv->sib = sib;
	sv->have_schema = true;
	sv->compressed = sib->compressed;
	sv->codec = sib->codec;
	sv->block_size = sib->block_size;
	return;
refuse:
	colfs_tree_report(f->tree, NULL, 0, COLFS_EUNSUPPORTED,
			  "salvage: %s", sv->why);
	colfs_tree_destroy(sv->sib_tree);
	sv->sib_tree = NULL;
}

/* --- validating a candidate footer ------------------------------------------ */

static bool is_index_kind(uint32_t k)
{
	return k == ORCPB__STREAM__KIND__ROW_INDEX ||
	       k == ORCPB__STREAM__KIND__BLOOM_FILTER ||
	       k == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8 ||
	       k == ORCPB__STREAM__KIND__ENCRYPTED_INDEX;
}

static bool is_string_type(uint32_t t)
{
	return t == ORCPB__TYPE__KIND__STRING ||
	       t == ORCPB__TYPE__KIND__VARCHAR ||
	       t == ORCPB__TYPE__KIND__CHAR;
}

/* Can a column of type kind `t` have a stream of kind `k`? */
static bool stream_fits(uint32_t t, uint32_t k)
{
	switch (k) {
	case ORCPB__STREAM__KIND__PRESENT:
	case ORCPB__STREAM__KIND__ROW_INDEX:
	case ORCPB__STREAM__KIND__BLOOM_FILTER:
	case ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8:
	case ORCPB__STREAM__KIND__ENCRYPTED_INDEX:
	case ORCPB__STREAM__KIND__ENCRYPTED_DATA:
		return true;
	case ORCPB__STREAM__KIND__DATA:
		return t != ORCPB__TYPE__KIND__STRUCT &&
		       t != ORCPB__TYPE__KIND__LIST &&
		       t != ORCPB__TYPE__KIND__MAP;
	case ORCPB__STREAM__KIND__LENGTH:
		return is_string_type(t) || t == ORCPB__TYPE__KIND__BINARY ||
		       t == ORCPB__TYPE__KIND__GEOMETRY ||
		       t == ORCPB__TYPE__KIND__GEOGRAPHY ||
		       t == ORCPB__TYPE__KIND__LIST ||
		       t == ORCPB__TYPE__KIND__MAP;
	case ORCPB__STREAM__KIND__DICTIONARY_DATA:
	case ORCPB__STREAM__KIND__DICTIONARY_COUNT:
		return is_string_type(t);
	case ORCPB__STREAM__KIND__SECONDARY:
		return t == ORCPB__TYPE__KIND__DECIMAL ||
		       t == ORCPB__TYPE__KIND__TIMESTAMP ||
		       t == ORCPB__TYPE__KIND__TIMESTAMP_INSTANT;
	default:
		return false;
	}
}

/* Does `sf`, found at `off`, describe a stripe?  Fills `c`. */
static bool footer_fits(const orc_salvage *sv, const Orcpb__StripeFooter *sf,
			uint64_t off, salvage_cand *c)
{
	size_t ncols = sv->have_schema ? sv->sib->n_types : sf->n_columns;
	uint64_t sum = 0, index = 0;
	bool in_data = false;

	if (sf->n_streams == 0 || sf->n_columns == 0 ||
	    sf->n_columns != ncols)
		return false;
	for (size_t i = 0; i < sf->n_columns; i++) {
		uint32_t k = sf->columns[i]->kind;

		if (k > ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2)
			return false;
		if (sv->have_schema &&
		    (k == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY ||
		     k == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2) &&
		    !is_string_type(sv->sib->footer->types[i]->kind))
			return false;
	}
	for (size_t i = 0; i < sf->n_streams; i++) {
		const Orcpb__Stream *st = sf->streams[i];

		if (st->kind > ORCPB__STREAM__KIND__ENCRYPTED_DATA ||
		    st->column >= ncols)
			return false;
		if (sv->have_schema &&
		    !stream_fits(sv->sib->footer->types[st->column]->kind,
				 st->kind))
			return false;
		if (is_index_kind(st->kind)) {
			if (in_data)
				return false;
			index += st->length; /* <= sum: no overflow */
		} else {
			in_data = true;
		}
		if (colfs_add_overflows(sum, st->length, &sum))
			return false;
	}
	if (sum == 0 || off < 3 || sum > off - 3)
		return false;
	c->start = off - sum;
	c->footer_off = off;
	c->index_len = index;
	c->data_len = sum - index;
	c->n_streams = sf->n_streams;
	c->n_columns = sf->n_columns;
	c->stripe = -1;
	return true;
}

/* Decode `len` bytes (already decompressed) as a StripeFooter found at
 * `off` with `stored` bytes; keep it when it fits. */
static bool try_footer(orc_file *f, orc_salvage *sv, const uint8_t *data,
		       size_t len, uint64_t off, uint64_t stored)
{
	colfs_proto_msg m = {0};
	salvage_cand c;
	bool ok;
	uint64_t cap = (uint64_t)len * 64 + (1u << 20);

	if (cap > f->max_alloc)
		cap = f->max_alloc;
	sv->attempts++;
	if (colfs_proto_unpack(&m, &orcpb__stripe_footer__descriptor, data, len,
			   (size_t)cap, off, NULL) != COLFS_OK)
		return false;
	ok = footer_fits(sv, (const Orcpb__StripeFooter *)m.msg, off, &c);
	colfs_proto_free(&m);
	if (!ok)
		return false;
	c.footer_len = stored;
	if (sv->n_cands >= sv->max_cands) {
		sv->capped = true;
		return true;
	}
	if (sv->n_cands == sv->cap_cands) {
		size_t nc = sv->cap_cands ? sv->cap_cands * 2 : 64;
		salvage_cand *nb = realloc(sv->cands, nc * sizeof(*nb));

		if (!nb) {
			sv->capped = true; /* out of memory: stop the scan */
			return true;
		}
		sv->cands = nb;
		sv->cap_cands = nc;
	}
	sv->cands[sv->n_cands++] = c;
	return true;
}

/* A varint of at most 5 bytes (a length) from p[0..n). */
static bool small_varint(const uint8_t *p, size_t n, size_t *used,
			 uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < n && i < 5; i++) {
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*used = i + 1;
			return true;
		}
	}
	return false;
}

/* An uncompressed footer: its end is not stored anywhere.  Writers write
 * the fields in field-number order (streams 1, columns 2, writerTimezone
 * 3, encryption 4), each length-delimited, so the footer can only end at
 * a field boundary after the columns where that order holds; the
 * boundaries are tried from the longest. */
static void try_plain(orc_file *f, orc_salvage *sv, const uint8_t *p,
		      size_t avail, uint64_t off)
{
	size_t pos = 0, used, bounds[SALVAGE_MAX_BOUNDARIES], nb = 0;
	unsigned last = 0;
	uint64_t len;

	if (avail < 4 || p[0] != 0x0a)
		return;
	/* the first stream entry starts with its kind (field 1, varint) */
	if (!small_varint(p + 1, avail - 1, &used, &len) || 1 + used >= avail ||
	    p[1 + used] != 0x08)
		return;
	if (avail > SALVAGE_MAX_FOOTER)
		avail = SALVAGE_MAX_FOOTER;
	while (pos < avail) {
		unsigned field = p[pos] >> 3;

		if ((p[pos] & 7) != 2 || field < 1 || field > 4 ||
		    field < last)
			break;
		if (!small_varint(p + pos + 1, avail - pos - 1, &used, &len) ||
		    len > avail - pos - 1 - used)
			break;
		pos += 1 + used + (size_t)len;
		last = field;
		if (field >= 2) {
			if (nb == SALVAGE_MAX_BOUNDARIES) {
				memmove(bounds, bounds + 1,
					(nb - 1) * sizeof(*bounds));
				nb--;
			}
			bounds[nb++] = pos;
		}
	}
	while (nb > 0 && sv->attempts < sv->max_attempts) {
		nb--;
		if (try_footer(f, sv, p, bounds[nb], off, bounds[nb]))
			return;
	}
}

/* A footer longer than one compression chunk.  Writers cut a stream into
 * chunks of block_size uncompressed bytes, so a first chunk that holds
 * exactly block_size bytes and does not decode alone may go on in the
 * chunks that follow it: they are read from the file, joined (up to
 * SALVAGE_MAX_FOOTER bytes after the first chunk) and the footer is tried
 * again after each. */
static void try_chunks(orc_file *f, orc_salvage *sv, const uint8_t *first,
		       size_t len, uint64_t off, uint64_t stored)
{
	size_t cap = (size_t)sv->block_size + SALVAGE_MAX_FOOTER;
	uint64_t at = off + stored;

	if (!sv->joined) {
		sv->joined = malloc(cap);
		sv->comp = malloc((size_t)sv->block_size);
		if (!sv->joined || !sv->comp)
			return;
	}
	memcpy(sv->joined, first, len);
	while (len + sv->block_size <= cap &&
	       sv->attempts < sv->max_attempts) {
		uint8_t hb[3];
		size_t clen, got = 0;
		bool original;

		if (at + 3 > f->size ||
		    colfs_source_read_at(f->src, at, 3, hb, NULL))
			return;
		clen = orc_in_chunk_header(hb, &original);
		if (clen == 0 || clen > sv->block_size ||
		    at + 3 + clen > f->size ||
		    colfs_source_read_at(f->src, at + 3, clen, sv->comp, NULL))
			return;
		sv->attempts++;
		if (original) {
			memcpy(sv->joined + len, sv->comp, clen);
			got = clen;
		} else if (colfs_codec_decompress(sv->codec, sv->comp, clen,
						  sv->joined + len,
						  (size_t)sv->block_size, &got,
						  at + 3, NULL) != COLFS_OK) {
			return;
		}
		len += got;
		at += 3 + clen;
		if (try_footer(f, sv, sv->joined, len, off, at - off) ||
		    got != sv->block_size)
			return;
	}
}

/* A compressed footer: one compression chunk, or a full one and those
 * after it. */
static void try_chunk(orc_file *f, orc_salvage *sv, const uint8_t *p,
		      size_t avail, uint64_t off, uint8_t *dec)
{
	const uint8_t *body = dec;
	bool original;
	size_t clen, got = 0;

	if (avail < 4)
		return;
	clen = orc_in_chunk_header(p, &original);
	if (clen == 0 || clen > sv->block_size || clen > avail - 3)
		return;
	if (original) {
		if (p[3] != 0x0a)
			return;
		body = p + 3;
		got = clen;
	} else {
		sv->attempts++;
		if (colfs_codec_decompress(sv->codec, p + 3, clen, dec,
					   (size_t)sv->block_size, &got,
					   off + 3, NULL) != COLFS_OK ||
		    got < 2 || dec[0] != 0x0a)
			return;
	}
	if (try_footer(f, sv, body, got, off, 3 + (uint64_t)clen))
		return;
	if (got == sv->block_size)
		try_chunks(f, sv, body, got, off, 3 + (uint64_t)clen);
}

static int cand_cmp(const void *a, const void *b)
{
	const salvage_cand *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->footer_off < y->footer_off ? -1 :
	       x->footer_off > y->footer_off;
}

static colfs_status scan(orc_file *f, orc_salvage *sv, colfs_err *err)
{
	size_t over = sv->compressed ? (size_t)sv->block_size + 3
				     : SALVAGE_MAX_FOOTER;
	uint8_t *buf, *dec = NULL;
	colfs_status st = COLFS_OK;
	uint64_t pos = 3;

	buf = malloc(SALVAGE_WINDOW + over);
	if (sv->compressed)
		dec = malloc((size_t)sv->block_size);
	if (!buf || (sv->compressed && !dec)) {
		st = colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
		goto out;
	}
	sv->scan_end = f->size;
	for (uint64_t ws = 3; ws < f->size; ws += SALVAGE_WINDOW) {
		size_t n = f->size - ws < SALVAGE_WINDOW + over
				   ? (size_t)(f->size - ws)
				   : SALVAGE_WINDOW + over;
		size_t lim = n < SALVAGE_WINDOW ? n : SALVAGE_WINDOW;

		st = colfs_source_read_at(f->src, ws, n, buf, err);
		if (st)
			goto out;
		for (size_t i = 0; i < lim; i++) {
			if (sv->attempts >= sv->max_attempts ||
			    sv->n_cands >= sv->max_cands) {
				sv->capped = true;
				sv->scan_end = ws + i;
				goto done;
			}
			if (sv->compressed)
				try_chunk(f, sv, buf + i, n - i, ws + i, dec);
			else
				try_plain(f, sv, buf + i, n - i, ws + i);
		}
	}
done:
	if (sv->n_cands > 1)
		qsort(sv->cands, sv->n_cands, sizeof(*sv->cands), cand_cmp);
	/* the chain: from offset 3, the candidate with the smallest start at
	 * or after the end of the previous footer */
	for (size_t i = 0, k = 0; i < sv->n_cands; i++) {
		salvage_cand *c = &sv->cands[i];

		if (c->start < pos)
			continue;
		c->stripe = (long)k++;
		pos = c->footer_off + c->footer_len;
	}
out:
	free(buf);
	free(dec);
	free(sv->joined);
	free(sv->comp);
	sv->joined = sv->comp = NULL;
	return st;
}

/* --- rows of a recovered stripe ------------------------------------------------ */

/* The sum of column 0's row index statistics, when every entry has one
 * and the count fits the row index stride. */
static bool rows_from_index(orc_salvage *sv, orc_file *s, size_t k,
			    uint64_t *rows)
{
	orc_stripe *sp;
	const orc_stream_loc *ri = NULL;
	uint64_t stride = sv->sib->footer->rowindexstride, sum = 0;
	uint8_t *data;
	size_t len;
	colfs_proto_msg m = {0};
	const Orcpb__RowIndex *ix;
	bool ok = true;
	uint64_t cap;

	if (orc_tail_stripe_load(s, k, &sp, NULL) != COLFS_OK)
		return false;
	for (size_t i = 0; i < sp->n_streams && !ri; i++)
		if (sp->streams[i].column == 0 &&
		    sp->streams[i].kind == ORCPB__STREAM__KIND__ROW_INDEX &&
		    sp->streams[i].in_file)
			ri = &sp->streams[i];
	if (!ri || orc_in_read_decompressed(s, ri->offset, ri->length, &data,
					 &len, NULL) != COLFS_OK)
		return false;
	cap = (uint64_t)len * 64 + (1u << 20);
	if (cap > s->max_alloc)
		cap = s->max_alloc;
	if (colfs_proto_unpack(&m, &orcpb__row_index__descriptor, data, len,
			   (size_t)cap, ri->offset, NULL) != COLFS_OK) {
		free(data);
		return false;
	}
	free(data);
	ix = (const Orcpb__RowIndex *)m.msg;
	if (ix->n_entry == 0)
		ok = false;
	for (size_t i = 0; ok && i < ix->n_entry; i++) {
		const Orcpb__ColumnStatistics *cs = ix->entry[i]->statistics;

		if (!cs || !cs->has_numberofvalues ||
		    colfs_add_overflows(sum, cs->numberofvalues, &sum))
			ok = false;
	}
	if (ok && stride > 0) {
		uint64_t lo, hi;

		if (colfs_mul_overflows(ix->n_entry - 1, stride, &lo) ||
		    colfs_mul_overflows(ix->n_entry, stride, &hi) ||
		    sum <= lo || sum > hi)
			ok = false;
	}
	colfs_proto_free(&m);
	if (ok)
		*rows = sum;
	return ok;
}

/* Count the values of one integer-RLE or byte-RLE stream to its end. */
static bool count_stream(orc_file *s, const orc_stream_loc *l, int how,
			 bool v2, uint64_t *n)
{
	orc_in in;
	uint64_t count = 0;
	bool ok = true;

	orc_in_init_file(&in, s, l->offset, l->length);
	if (how == 0) {
		orc_rle_byte d;

		orc_rle_byte_init(&d, &in);
		while (d.run_pos < d.run_len || orc_in_more(&d.in)) {
			uint8_t b;

			if (count >= SALVAGE_MAX_COUNT ||
			    orc_rle_byte_next(&d, &b, 1, NULL) != COLFS_OK) {
				ok = false;
				break;
			}
			count++;
		}
		orc_rle_byte_close(&d);
	} else {
		orc_rle_int d;

		orc_rle_int_init(&d, &in, v2, how == 1);
		while (d.run_pos < d.run_len || orc_in_more(&d.in)) {
			int64_t v;

			if (count >= SALVAGE_MAX_COUNT ||
			    orc_rle_int_next(&d, &v, 1, NULL) != COLFS_OK) {
				ok = false;
				break;
			}
			count++;
		}
		orc_rle_int_close(&d);
	}
	*n = count;
	return ok && count > 0;
}

/* The number of values of a top-level column without PRESENT stream. */
static bool rows_from_column(orc_salvage *sv, orc_file *s, size_t k,
			     uint64_t *rows, uint32_t *col)
{
	orc_stripe *sp;
	const Orcpb__StripeFooter *sf;
	const Orcpb__Footer *ft = sv->sib->footer;
	const Orcpb__Type *root = ft->types[0];
	size_t nc = root->kind == ORCPB__TYPE__KIND__STRUCT ? root->n_subtypes
							   : 1;

	if (orc_tail_stripe_load(s, k, &sp, NULL) != COLFS_OK)
		return false;
	sf = (const Orcpb__StripeFooter *)sp->footer.msg;
	for (size_t i = 0; i < nc; i++) {
		uint32_t c = root->kind == ORCPB__TYPE__KIND__STRUCT
				     ? root->subtypes[i] : 0;
		uint32_t t = ft->types[c]->kind, enc;
		const orc_stream_loc *data = NULL, *length = NULL;
		bool present = false, v2, dict;
		int how = -1;
		uint32_t want = ORCPB__STREAM__KIND__DATA;
		uint64_t n;

		if (c >= sf->n_columns)
			continue;
		enc = sf->columns[c]->kind;
		v2 = enc == ORCPB__COLUMN_ENCODING__KIND__DIRECT_V2 ||
		     enc == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2;
		dict = enc == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY ||
		       enc == ORCPB__COLUMN_ENCODING__KIND__DICTIONARY_V2;
		for (size_t j = 0; j < sp->n_streams; j++) {
			const orc_stream_loc *l = &sp->streams[j];

			if (l->column != c)
				continue;
			if (l->kind == ORCPB__STREAM__KIND__PRESENT)
				present = true;
			if (l->kind == ORCPB__STREAM__KIND__DATA)
				data = l;
			if (l->kind == ORCPB__STREAM__KIND__LENGTH)
				length = l;
		}
		if (present)
			continue;
		switch (t) {
		case ORCPB__TYPE__KIND__BYTE:
			how = 0;
			break;
		case ORCPB__TYPE__KIND__SHORT:
		case ORCPB__TYPE__KIND__INT:
		case ORCPB__TYPE__KIND__LONG:
		case ORCPB__TYPE__KIND__DATE:
		case ORCPB__TYPE__KIND__TIMESTAMP:
		case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
			how = 1;
			break;
		case ORCPB__TYPE__KIND__STRING:
		case ORCPB__TYPE__KIND__VARCHAR:
		case ORCPB__TYPE__KIND__CHAR:
			how = 2;
			if (!dict)
				want = ORCPB__STREAM__KIND__LENGTH;
			break;
		case ORCPB__TYPE__KIND__BINARY:
		case ORCPB__TYPE__KIND__GEOMETRY:
		case ORCPB__TYPE__KIND__GEOGRAPHY:
		case ORCPB__TYPE__KIND__LIST:
		case ORCPB__TYPE__KIND__MAP:
			how = 2;
			want = ORCPB__STREAM__KIND__LENGTH;
			break;
		default:
			break;
		}
		if (how < 0)
			continue;
		{
			const orc_stream_loc *l =
				want == ORCPB__STREAM__KIND__DATA ? data
								  : length;

			if (!l || !l->in_file)
				continue;
			if (count_stream(s, l, how, v2, &n)) {
				*rows = n;
				*col = c;
				return true;
			}
		}
	}
	return false;
}

/* --- the recovered stripes as a file -------------------------------------- */

static void stripes_free(orc_file *s)
{
	for (size_t k = 0; k < s->n_stripes && s->stripes; k++) {
		colfs_proto_free(&s->stripes[k].footer);
		free(s->stripes[k].streams);
		free(s->stripes[k].enc);
	}
	free(s->stripes);
	s->stripes = NULL;
}

static colfs_status build_file(orc_file *f, orc_salvage *sv, colfs_err *err)
{
	orc_file *s = calloc(1, sizeof(*s));
	const orc_file *sib = sv->sib;
	size_t n = 0, keep = 0;
	uint64_t rows = 0, piece = 0;
	uint64_t *nrows = NULL;

	if (!s)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	pthread_mutex_init(&s->lock, NULL);
	sv->s = s;
	s->tree = f->tree;
	s->src = f->src;
	s->size = f->size;
	s->max_alloc = f->max_alloc;
	s->codec = sib->codec;
	s->compressed = sib->compressed;
	s->block_size = sib->block_size;
	s->version_major = sib->version_major;
	s->version_minor = sib->version_minor;
	s->has_version = sib->has_version;
	s->n_types = sib->n_types;
	s->parent = sib->parent;
	s->schema_ok = true;
	orcpb__footer__init(&sv->footer);
	sv->footer.n_types = sib->footer->n_types;
	sv->footer.types = sib->footer->types;
	sv->footer.has_writer = sib->footer->has_writer;
	sv->footer.writer = sib->footer->writer;
	sv->footer.softwareversion = sib->footer->softwareversion;
	sv->footer.has_rowindexstride = sib->footer->has_rowindexstride;
	sv->footer.rowindexstride = sib->footer->rowindexstride;
	s->footer = &sv->footer;

	for (size_t i = 0; i < sv->n_cands; i++)
		if (sv->cands[i].stripe >= 0)
			n++;
	if (n == 0)
		return COLFS_OK;
	sv->si = calloc(n, sizeof(*sv->si));
	sv->sip = calloc(n, sizeof(*sv->sip));
	sv->rows_from = calloc(n, sizeof(*sv->rows_from));
	s->stripes = calloc(n, sizeof(*s->stripes));
	nrows = calloc(n, sizeof(*nrows));
	if (!sv->si || !sv->sip || !sv->rows_from || !s->stripes || !nrows) {
		free(nrows);
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	}
	for (size_t i = 0, k = 0; i < sv->n_cands; i++) {
		const salvage_cand *c = &sv->cands[i];
		Orcpb__StripeInformation *si = &sv->si[k];

		if (c->stripe < 0)
			continue;
		orcpb__stripe_information__init(si);
		si->has_offset = si->has_indexlength = si->has_datalength = 1;
		si->has_footerlength = si->has_numberofrows = 1;
		si->offset = c->start;
		si->indexlength = c->index_len;
		si->datalength = c->data_len;
		si->footerlength = c->footer_len;
		sv->sip[k++] = si;
	}
	sv->footer.stripes = sv->sip;
	sv->footer.n_stripes = n;
	s->n_stripes = n;

	/* rows, from the data; stripes without are dropped */
	for (size_t k = 0; k < n; k++) {
		uint32_t col = 0;
		uint64_t r = 0;

		if (rows_from_index(sv, s, k, &r)) {
			sv->rows_from[k] = "the row index statistics of "
					   "column 0";
		} else if (rows_from_column(sv, s, k, &r, &col)) {
			char *why = colfs_tree_alloc(f->tree, 64);

			if (why)
				snprintf(why, 64, "the values of column %u",
					 col);
			sv->rows_from[k] = why ? why : "a column's values";
		} else {
			colfs_tree_report(f->tree, NULL, sv->si[k].offset,
					  COLFS_EUNSUPPORTED,
					  "salvage: the stripe footer at "
					  "offset %llu fits, but the stripe's "
					  "number of rows cannot be found (no "
					  "row index statistics, no top-level "
					  "column without nulls whose values "
					  "count it); the stripe is not "
					  "recovered",
					  (unsigned long long)
						  sv->si[k].offset +
						  sv->si[k].indexlength +
						  sv->si[k].datalength);
			sv->rows_from[k] = NULL;
		}
		nrows[k] = r;
	}
	/* drop the footers loaded for counting, keep the stripes with rows */
	stripes_free(s);
	for (size_t i = 0, k = 0; i < sv->n_cands; i++) {
		salvage_cand *c = &sv->cands[i];

		if (c->stripe < 0)
			continue;
		k = (size_t)c->stripe;
		c->stripe = sv->rows_from[k] ? (long)keep : -1;
		if (!sv->rows_from[k])
			continue;
		sv->si[k].numberofrows = nrows[k];
		sv->si[keep] = sv->si[k];
		sv->rows_from[keep] = sv->rows_from[k];
		sv->sip[keep] = &sv->si[keep];
		keep++;
	}
	free(nrows);
	sv->footer.n_stripes = keep;
	s->n_stripes = keep;
	s->stripes = calloc(keep ? keep : 1, sizeof(*s->stripes));
	if (!s->stripes)
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	for (size_t k = 0; k < keep; k++) {
		s->stripes[k].row_start = rows;
		s->stripes[k].piece_start = piece;
		if (colfs_add_overflows(rows, sv->si[k].numberofrows, &rows))
			rows = UINT64_MAX;
		piece += (sv->si[k].numberofrows + ORC_ROWS_PER_PIECE - 1) /
			 ORC_ROWS_PER_PIECE;
	}
	s->n_pieces = piece;
	s->num_rows = rows;
	sv->footer.has_numberofrows = 1;
	sv->footer.numberofrows = rows;
	return COLFS_OK;
}

/* --- summary ------------------------------------------------------------------ */

static void summarize(orc_file *f, orc_salvage *sv)
{
	colfs_buf *b = &sv->summary;
	const colfs_options *o = colfs_tree_options(f->tree);
	uint64_t covered = 3;
	size_t shown = 0;

	colfs_buf_puts(b, "salvage of an ORC file whose tail cannot be read\n");
	if (sv->have_schema)
		colfs_buf_printf(b,
				 "schema from: %s (compression %s, block size "
				 "%llu, %zu types)\nschema: ",
				 o->schema_from,
				 orc_tail_compression_name(
					 sv->sib->ps->compression),
				 (unsigned long long)sv->block_size,
				 sv->sib->n_types);
	else
		colfs_buf_printf(b, "%s\n", sv->why);
	if (sv->have_schema) {
		orc_tail_type_string(sv->sib, 0, b);
		colfs_buf_putc(b, '\n');
	}
	colfs_buf_printf(b,
			 "scan: offsets 3 to %llu of %llu bytes, %s, "
			 "%llu decode attempts (cap %llu), candidates cap %zu\n",
			 (unsigned long long)sv->scan_end,
			 (unsigned long long)f->size,
			 !sv->have_schema ? "uncompressed footers only"
			 : sv->compressed ? "compressed footers"
					  : "uncompressed footers",
			 (unsigned long long)sv->attempts,
			 (unsigned long long)sv->max_attempts, sv->max_cands);
	if (sv->capped)
		colfs_buf_printf(b, "scan stopped at offset %llu: cap "
				 "reached (-o salvage_effort=N raises the caps "
				 "N times)\n", (unsigned long long)sv->scan_end);
	colfs_buf_printf(b, "candidates: %zu\n", sv->n_cands);
	for (size_t i = 0; i < sv->n_cands; i++) {
		const salvage_cand *c = &sv->cands[i];

		if (shown++ == SALVAGE_SUMMARY_CANDIDATES) {
			colfs_buf_printf(b, "(%zu more candidates)\n",
					 sv->n_cands - i);
			break;
		}
		colfs_buf_printf(b,
				 "candidate %zu: start %llu index %llu data "
				 "%llu footer offset %llu length %llu streams "
				 "%zu columns %zu",
				 i, (unsigned long long)c->start,
				 (unsigned long long)c->index_len,
				 (unsigned long long)c->data_len,
				 (unsigned long long)c->footer_off,
				 (unsigned long long)c->footer_len,
				 c->n_streams, c->n_columns);
		if (c->stripe >= 0)
			colfs_buf_printf(b, ": %s %ld", sv->s ? "stripe"
					 : "chain", c->stripe);
		colfs_buf_putc(b, '\n');
	}
	if (!sv->s)
		return;
	colfs_buf_printf(b, "stripes recovered: %zu\nrows recovered: %llu\n",
			 sv->s->n_stripes,
			 (unsigned long long)sv->s->num_rows);
	for (size_t k = 0; k < sv->s->n_stripes; k++) {
		const Orcpb__StripeInformation *si = &sv->si[k];
		uint64_t end = si->offset + si->indexlength + si->datalength +
			       si->footerlength;

		if (si->offset > covered)
			colfs_buf_printf(b, "not recovered: offset %llu "
					 "length %llu\n",
					 (unsigned long long)covered,
					 (unsigned long long)(si->offset -
							      covered));
		colfs_buf_printf(b,
				 "stripe %zu: rows %llu (from %s) offset %llu "
				 "length %llu index %llu data %llu footer "
				 "%llu\n",
				 k, (unsigned long long)si->numberofrows,
				 sv->rows_from[k],
				 (unsigned long long)si->offset,
				 (unsigned long long)(end - si->offset),
				 (unsigned long long)si->indexlength,
				 (unsigned long long)si->datalength,
				 (unsigned long long)si->footerlength);
		covered = end;
	}
	if (covered < f->size)
		colfs_buf_printf(b, "not recovered: offset %llu length %llu\n",
				 (unsigned long long)covered,
				 (unsigned long long)(f->size - covered));
}

/* --- salvage/ ------------------------------------------------------------------ */

static colfs_status salvage_dir_populate(colfs_tree *t, colfs_node *dir)
{
	orc_file *f = colfs_node_ctx(dir);
	orc_salvage *sv = f->salvage;
	colfs_err err = {0};
	colfs_status st;
	orc_file *s;

	if (!sv->scanned) {
		sv->scanned = true;
		st = scan(f, sv, &err);
		if (!st && sv->have_schema)
			st = build_file(f, sv, &err);
		if (st) {
			colfs_tree_report_err(t, dir, &err);
			return st;
		}
		summarize(f, sv);
		if (colfs_buf_status(&sv->summary))
			return COLFS_ENOMEM;
		if (sv->capped)
			colfs_tree_report(t, dir, sv->scan_end, COLFS_EOVERFLOW,
					  "salvage: the scan stopped at a cap "
					  "(%llu decode attempts, %zu candidates; "
					  "-o salvage_effort=N raises them N "
					  "times): later stripes are not found",
					  (unsigned long long)sv->max_attempts,
					  sv->max_cands);
		if (sv->s) {
			uint64_t covered = 3;

			for (size_t k = 0; k < sv->s->n_stripes; k++) {
				if (sv->si[k].offset > covered)
					colfs_tree_report(
						t, dir, covered,
						COLFS_ECORRUPT,
						"salvage: %llu bytes are not "
						"part of a recovered stripe",
						(unsigned long long)(
							sv->si[k].offset -
							covered));
				covered = sv->si[k].offset +
					  sv->si[k].indexlength +
					  sv->si[k].datalength +
					  sv->si[k].footerlength;
			}
			if (covered < f->size)
				colfs_tree_report(
					t, dir, covered, COLFS_ECORRUPT,
					"salvage: %llu bytes are not part of "
					"a recovered stripe",
					(unsigned long long)(f->size -
							     covered));
		}
	}
	if (!colfs_dir_add_text(t, dir, "summary", sv->summary.data,
				sv->summary.len))
		return COLFS_ENOMEM;
	s = sv->s;
	if (!s)
		return COLFS_OK;
	if (!orc_tree_add_columns(t, s, dir) ||
	    !orc_tree_add_view(t, s, dir, "rows.jsonl", ORC_VIEW_ROWS, 0, -1) ||
	    !orc_tree_add_view(t, s, dir, "rows.csv", ORC_VIEW_CSV, 0, -1) ||
	    !orc_tree_add_stripes(t, s, dir) || !colfs_dir_add_errors(t, dir))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

static const colfs_node_ops salvage_dir_ops = {
	.populate = salvage_dir_populate,
};

colfs_status orc_salvage_add(orc_file *f, colfs_node *root)
{
	orc_salvage *sv = calloc(1, sizeof(*sv));

	uint32_t effort = colfs_tree_options(f->tree)->salvage_effort;

	if (!sv)
		return COLFS_ENOMEM;
	effort = effort ? effort : 1;
	sv->max_attempts = (uint64_t)SALVAGE_MAX_ATTEMPTS * effort;
	sv->max_cands = (size_t)SALVAGE_MAX_CANDIDATES * effort;
	f->salvage = sv;
	open_schema(f, sv);
	if (!colfs_dir_add_dir(f->tree, root, "salvage", &salvage_dir_ops, f))
		return COLFS_ENOMEM;
	return COLFS_OK;
}

void orc_salvage_free(orc_file *f)
{
	orc_salvage *sv = f ? f->salvage : NULL;
	orc_file *s;

	if (!sv)
		return;
	s = sv->s;
	if (s) {
		for (orc_view *v = s->views; v; v = v->next)
			orc_read_view_free(v);
		for (orc_sdec *d = s->sdecs; d; d = d->next)
			orc_sdec_free_state(d);
		stripes_free(s);
		orc_tz_free_all(s);
		pthread_mutex_destroy(&s->lock);
		free(s);
	}
	free(sv->si);
	free(sv->sip);
	free(sv->rows_from);
	free(sv->cands);
	colfs_buf_free(&sv->summary);
	colfs_tree_destroy(sv->sib_tree);
	free(sv);
	f->salvage = NULL;
}

/* colfs ORC: the file tail (PostScript, Footer, Metadata), names of the
 * tail's enums, and stripe footers (the chunk framing is orc_in.c's).  Written for colfs
 * from the ORC specification. */
#include "orc_in.h"
#include "orc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- names ---------------------------------------------------------------- */

const char *orc_tail_compression_name(uint32_t kind)
{
	static const char *const names[] = {"NONE", "ZLIB", "SNAPPY",
					    "LZO", "LZ4", "ZSTD", "BROTLI"};

	return kind < 7 ? names[kind] : "UNKNOWN";
}

const char *orc_tail_stream_kind_name(uint32_t kind)
{
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&orcpb__stream__kind__descriptor, (int)kind);

	return v ? v->name : "UNKNOWN";
}

const char *orc_tail_encoding_name(uint32_t kind)
{
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&orcpb__column_encoding__kind__descriptor, (int)kind);

	return v ? v->name : "UNKNOWN";
}

const char *orc_tail_type_kind_name(uint32_t kind)
{
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&orcpb__type__kind__descriptor, (int)kind);

	return v ? v->name : "UNKNOWN";
}

const char *orc_tail_writer_name(uint32_t writer)
{
	static const char *const names[] = {"ORC Java", "ORC C++", "Presto",
					    "Scritchley Go", "Trino",
					    "CUDF"};

	return writer < 6 ? names[writer] : "Unknown";
}

const char *orc_tail_writer_version_name(uint32_t v)
{
	static const char *const names[] = {
		"original",   "HIVE-8732", "HIVE-4243", "HIVE-12055",
		"HIVE-13083", "ORC-101",   "ORC-135",   "ORC-517",
		"ORC-203",    "ORC-14",
	};

	return v < 10 ? names[v] : "future";
}

void orc_tail_format_version(const orc_file *f, char *buf, size_t len)
{
	if (!f->has_version)
		snprintf(buf, len, "0.11");
	else if (f->version_major == 1 && f->version_minor == 9999)
		snprintf(buf, len, "UNSTABLE-PRE-2.0");
	else
		snprintf(buf, len, "%u.%u", f->version_major,
			 f->version_minor);
}

static void type_string_rec(const orc_file *f, uint32_t id, colfs_buf *out,
			    unsigned depth)
{
	const Orcpb__Type *ty;

	if (id >= f->n_types || depth > ORC_MAX_DEPTH) {
		colfs_buf_puts(out, "<bad type>");
		return;
	}
	ty = f->footer->types[id];
	switch (ty->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN: colfs_buf_puts(out, "boolean"); break;
	case ORCPB__TYPE__KIND__BYTE: colfs_buf_puts(out, "tinyint"); break;
	case ORCPB__TYPE__KIND__SHORT: colfs_buf_puts(out, "smallint"); break;
	case ORCPB__TYPE__KIND__INT: colfs_buf_puts(out, "int"); break;
	case ORCPB__TYPE__KIND__LONG: colfs_buf_puts(out, "bigint"); break;
	case ORCPB__TYPE__KIND__FLOAT: colfs_buf_puts(out, "float"); break;
	case ORCPB__TYPE__KIND__DOUBLE: colfs_buf_puts(out, "double"); break;
	case ORCPB__TYPE__KIND__STRING: colfs_buf_puts(out, "string"); break;
	case ORCPB__TYPE__KIND__BINARY: colfs_buf_puts(out, "binary"); break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
		colfs_buf_puts(out, "timestamp");
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		colfs_buf_puts(out, "timestamp with local time zone");
		break;
	case ORCPB__TYPE__KIND__DATE: colfs_buf_puts(out, "date"); break;
	case ORCPB__TYPE__KIND__DECIMAL:
		colfs_buf_printf(out, "decimal(%u,%u)", ty->precision,
				 ty->scale);
		break;
	case ORCPB__TYPE__KIND__VARCHAR:
		colfs_buf_printf(out, "varchar(%u)", ty->maximumlength);
		break;
	case ORCPB__TYPE__KIND__CHAR:
		colfs_buf_printf(out, "char(%u)", ty->maximumlength);
		break;
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY: {
		const ProtobufCEnumValue *a = NULL;

		if (ty->has_algorithm)
			a = protobuf_c_enum_descriptor_get_value(
				&orcpb__type__edge_interpolation_algorithm__descriptor,
				(int)ty->algorithm);
		colfs_buf_puts(out, ty->kind == ORCPB__TYPE__KIND__GEOMETRY
				    ? "geometry" : "geography");
		if (ty->crs || ty->has_algorithm) {
			colfs_buf_printf(out, "(%s", ty->crs ? ty->crs : "");
			if (ty->has_algorithm) {
				if (a)
					colfs_buf_printf(out, ",%s", a->name);
				else
					colfs_buf_printf(out, ",%d",
							 (int)ty->algorithm);
			}
			colfs_buf_putc(out, ')');
		}
		break;
	}
	case ORCPB__TYPE__KIND__LIST:
		colfs_buf_puts(out, "array<");
		if (ty->n_subtypes > 0)
			type_string_rec(f, ty->subtypes[0], out, depth + 1);
		colfs_buf_putc(out, '>');
		break;
	case ORCPB__TYPE__KIND__MAP:
		colfs_buf_puts(out, "map<");
		for (size_t i = 0; i < ty->n_subtypes && i < 2; i++) {
			if (i)
				colfs_buf_putc(out, ',');
			type_string_rec(f, ty->subtypes[i], out, depth + 1);
		}
		colfs_buf_putc(out, '>');
		break;
	case ORCPB__TYPE__KIND__UNION:
		colfs_buf_puts(out, "uniontype<");
		for (size_t i = 0; i < ty->n_subtypes; i++) {
			if (i)
				colfs_buf_putc(out, ',');
			type_string_rec(f, ty->subtypes[i], out, depth + 1);
		}
		colfs_buf_putc(out, '>');
		break;
	case ORCPB__TYPE__KIND__STRUCT:
		colfs_buf_puts(out, "struct<");
		for (size_t i = 0; i < ty->n_subtypes; i++) {
			if (i)
				colfs_buf_putc(out, ',');
			if (i < ty->n_fieldnames)
				colfs_buf_puts(out, ty->fieldnames[i]);
			colfs_buf_putc(out, ':');
			type_string_rec(f, ty->subtypes[i], out, depth + 1);
		}
		colfs_buf_putc(out, '>');
		break;
	default:
		colfs_buf_printf(out, "<unknown type kind %d>", (int)ty->kind);
		break;
	}
}

void orc_tail_type_string(const orc_file *f, uint32_t id, colfs_buf *out)
{
	type_string_rec(f, id, out, 0);
}

/* --- decompression ----------------------------------------------------------- */

static colfs_codec codec_of(uint32_t kind, bool *known)
{
	*known = true;
	switch (kind) {
	case ORCPB__COMPRESSION_KIND__NONE: return COLFS_CODEC_NONE;
	case ORCPB__COMPRESSION_KIND__ZLIB: return COLFS_CODEC_DEFLATE_RAW;
	case ORCPB__COMPRESSION_KIND__SNAPPY: return COLFS_CODEC_SNAPPY;
	case ORCPB__COMPRESSION_KIND__LZO: return COLFS_CODEC_LZO_RAW;
	case ORCPB__COMPRESSION_KIND__LZ4: return COLFS_CODEC_LZ4_RAW;
	case ORCPB__COMPRESSION_KIND__ZSTD: return COLFS_CODEC_ZSTD;
	case ORCPB__COMPRESSION_KIND__BROTLI: return COLFS_CODEC_BROTLI;
	default:
		*known = false;
		return COLFS_CODEC_NONE;
	}
}

/* --- the tail ----------------------------------------------------------------- */

static colfs_status read_section(orc_file *f, uint64_t off, uint64_t len,
				 const ProtobufCMessageDescriptor *desc,
				 colfs_proto_msg *m, colfs_err *err)
{
	uint8_t *data;
	size_t n;
	colfs_status st;

	COLFS_TRY(orc_in_read_decompressed(f, off, len, &data, &n, err));
	st = colfs_proto_unpack(m, desc, data, n, colfs_proto_cap(n, f->max_alloc), off, err);
	free(data);
	return st;
}

static colfs_status check_types(orc_file *f, colfs_err *err)
{
	const Orcpb__Footer *ft = f->footer;
	uint64_t at = f->footer_off;

	f->n_types = ft->n_types;
	if (f->n_types == 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "footer has no types");
	f->parent = colfs_tree_alloc(f->tree,
				     f->n_types * sizeof(*f->parent));
	if (!f->parent)
		return colfs_fail(err, COLFS_ENOMEM, at, "out of memory");
	for (size_t i = 0; i < f->n_types; i++)
		f->parent[i] = UINT32_MAX;
	f->parent[0] = 0;
	/* Types are a pre-order flattening: every subtype id is larger than
	 * its parent's and has exactly one parent. */
	for (size_t i = 0; i < f->n_types; i++) {
		const Orcpb__Type *ty = ft->types[i];

		if (f->parent[i] == UINT32_MAX)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "type %zu is not reachable from the "
					  "root type", i);
		if (ty->kind == ORCPB__TYPE__KIND__STRUCT &&
		    ty->n_fieldnames != ty->n_subtypes)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "struct type %zu has %zu subtypes "
					  "but %zu field names", i,
					  ty->n_subtypes, ty->n_fieldnames);
		if (ty->kind == ORCPB__TYPE__KIND__LIST && ty->n_subtypes != 1)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "list type %zu has %zu subtypes", i,
					  ty->n_subtypes);
		if (ty->kind == ORCPB__TYPE__KIND__MAP && ty->n_subtypes != 2)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "map type %zu has %zu subtypes", i,
					  ty->n_subtypes);
		if (ty->kind == ORCPB__TYPE__KIND__UNION &&
		    (ty->n_subtypes == 0 || ty->n_subtypes > 256))
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "union type %zu has %zu variants", i,
					  ty->n_subtypes);
		if (ty->kind > ORCPB__TYPE__KIND__GEOGRAPHY)
			return colfs_fail(err, COLFS_EUNSUPPORTED, at,
					  "type %zu has unknown kind %d", i,
					  (int)ty->kind);
		for (size_t k = 0; k < ty->n_subtypes; k++) {
			uint32_t sub = ty->subtypes[k];

			if (sub <= i || sub >= f->n_types ||
			    f->parent[sub] != UINT32_MAX)
				return colfs_fail(err, COLFS_ECORRUPT, at,
						  "type %zu: subtype %u is "
						  "out of order or shared", i,
						  sub);
			f->parent[sub] = (uint32_t)i;
		}
	}
	{
		/* depth check */
		for (size_t i = 0; i < f->n_types; i++) {
			unsigned d = 0;

			for (uint32_t p = (uint32_t)i; p != 0; p = f->parent[p])
				if (++d > ORC_MAX_DEPTH)
					return colfs_fail(
						err, COLFS_EUNSUPPORTED, at,
						"types nest deeper than %d",
						ORC_MAX_DEPTH);
		}
	}
	f->schema_ok = true;
	return COLFS_OK;
}

colfs_status orc_tail_read(orc_file *f, colfs_err *err)
{
	uint8_t last;
	uint8_t ps_buf[256];
	const Orcpb__PostScript *ps;
	uint64_t tail_end;
	bool known;
	colfs_status st;

	if (f->size < 4)
		return colfs_fail(err, COLFS_ETRUNCATED, 0,
				  "file of %llu bytes is too short for ORC",
				  (unsigned long long)f->size);
	COLFS_TRY(colfs_source_read_at(f->src, f->size - 1, 1, &last, err));
	f->ps_len = last;
	if (last == 0 || (uint64_t)last + 1 > f->size)
		return colfs_fail(err, COLFS_ECORRUPT, f->size - 1,
				  "PostScript length %u does not fit in a "
				  "file of %llu bytes", last,
				  (unsigned long long)f->size);
	f->ps_off = f->size - 1 - last;
	COLFS_TRY(colfs_source_read_at(f->src, f->ps_off, last, ps_buf, err));
	COLFS_TRY(colfs_proto_unpack(&f->ps_msg, &orcpb__post_script__descriptor,
				 ps_buf, last, 1u << 20, f->ps_off, err));
	f->ps = ps = (const Orcpb__PostScript *)f->ps_msg.msg;
	if (ps->magic && strcmp(ps->magic, "ORC") != 0)
		return colfs_fail(err, COLFS_ECORRUPT, f->ps_off,
				  "PostScript magic is not \"ORC\"");
	if (!ps->magic) {
		uint8_t head[3];

		if (colfs_source_read_at(f->src, 0, 3, head, NULL) ||
		    memcmp(head, "ORC", 3) != 0)
			return colfs_fail(err, COLFS_ECORRUPT, f->ps_off,
					  "PostScript has no magic and the "
					  "file does not start with \"ORC\"");
	}
	if (ps->n_version >= 2) {
		f->has_version = true;
		f->version_major = ps->version[0];
		f->version_minor = ps->version[1];
	}
	if (f->has_version && f->version_major > 1)
		colfs_tree_report(f->tree, NULL, f->ps_off, COLFS_EUNSUPPORTED,
				  "written by a future ORC version %u.%u; "
				  "reading as 0.12", f->version_major,
				  f->version_minor);
	f->codec = codec_of(ps->compression, &known);
	if (!known)
		return colfs_fail(err, COLFS_EUNSUPPORTED, f->ps_off,
				  "unknown compression kind %d",
				  (int)ps->compression);
	f->compressed = ps->compression != ORCPB__COMPRESSION_KIND__NONE;
	f->block_size = ps->has_compressionblocksize && ps->compressionblocksize
				? ps->compressionblocksize
				: ORC_DEFAULT_BLOCK_SIZE;
	if (f->block_size > f->max_alloc)
		return colfs_fail(err, COLFS_EOVERFLOW, f->ps_off,
				  "compression block size %llu exceeds the "
				  "allocation cap",
				  (unsigned long long)f->block_size);

	tail_end = f->ps_off;
	f->footer_len = ps->footerlength;
	if (f->footer_len > tail_end)
		return colfs_fail(err, COLFS_ECORRUPT, f->ps_off,
				  "footer length %llu exceeds the %llu bytes "
				  "before the PostScript",
				  (unsigned long long)f->footer_len,
				  (unsigned long long)tail_end);
	f->footer_off = tail_end - f->footer_len;
	f->meta_len = ps->metadatalength;
	if (f->meta_len > f->footer_off)
		return colfs_fail(err, COLFS_ECORRUPT, f->ps_off,
				  "metadata length %llu exceeds the %llu bytes "
				  "before the footer",
				  (unsigned long long)f->meta_len,
				  (unsigned long long)f->footer_off);
	f->meta_off = f->footer_off - f->meta_len;

	COLFS_TRY(read_section(f, f->footer_off, f->footer_len,
			       &orcpb__footer__descriptor, &f->footer_msg,
			       err));
	f->footer = (const Orcpb__Footer *)f->footer_msg.msg;
	if (f->meta_len > 0) {
		colfs_err merr = {0};

		st = read_section(f, f->meta_off, f->meta_len,
				  &orcpb__metadata__descriptor, &f->meta_msg,
				  &merr);
		if (st)
			colfs_tree_report_err(f->tree, NULL, &merr);
		else
			f->meta = (const Orcpb__Metadata *)f->meta_msg.msg;
	}

	st = check_types(f, err);
	if (st) {
		colfs_tree_report_err(f->tree, NULL, err);
		f->schema_ok = false;
	}

	/* stripes */
	f->n_stripes = f->footer->n_stripes;
	if (f->n_stripes > 0) {
		uint64_t rows = 0, piece = 0;

		f->stripes = calloc(f->n_stripes, sizeof(*f->stripes));
		if (!f->stripes)
			return colfs_fail(err, COLFS_ENOMEM, f->footer_off,
					  "out of memory");
		for (size_t s = 0; s < f->n_stripes; s++) {
			const Orcpb__StripeInformation *si =
				f->footer->stripes[s];
			uint64_t n = si->numberofrows;

			f->stripes[s].row_start = rows;
			f->stripes[s].piece_start = piece;
			if (colfs_add_overflows(rows, n, &rows))
				rows = UINT64_MAX;
			piece += (n + ORC_ROWS_PER_PIECE - 1) /
				 ORC_ROWS_PER_PIECE;
		}
		f->n_pieces = piece;
		if (f->footer->has_numberofrows &&
		    f->footer->numberofrows != rows)
			colfs_tree_report(f->tree, NULL, f->footer_off,
					  COLFS_ECORRUPT,
					  "footer says %llu rows, stripes add "
					  "up to %llu",
					  (unsigned long long)
						  f->footer->numberofrows,
					  (unsigned long long)rows);
		f->num_rows = rows;
	} else {
		f->num_rows = f->footer->numberofrows;
		if (f->num_rows)
			colfs_tree_report(f->tree, NULL, f->footer_off,
					  COLFS_ECORRUPT,
					  "footer says %llu rows but has no "
					  "stripes",
					  (unsigned long long)f->num_rows);
		f->num_rows = 0;
	}
	return COLFS_OK;
}

/* --- stripe footers ------------------------------------------------------- */

/* ORC C++ writers before 1.6.12 (ORC-1024) hashed numeric values
 * inconsistently in their bloom filters. */
static bool orc_cpp_bloom_suspect(const orc_file *f)
{
	const char *v = f->footer->softwareversion;
	unsigned a = 0, b = 0, c = 0;

	if (f->footer->writer != 1)
		return false;
	if (!v || sscanf(v, "%u.%u.%u", &a, &b, &c) < 2)
		return true;
	return a < 1 || (a == 1 && (b < 6 || (b == 6 && c < 12)));
}

static bool stream_in_index_area(uint32_t kind)
{
	return kind == ORCPB__STREAM__KIND__ROW_INDEX ||
	       kind == ORCPB__STREAM__KIND__BLOOM_FILTER ||
	       kind == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8;
}

/* Locate the streams of the StripeEncryptionVariants.  As ORC's writer
 * lays them out, the footer's stream list carries one virtual stream per
 * area (ENCRYPTED_INDEX for the index area, ENCRYPTED_DATA for the data
 * area) whose bytes are the variants' streams of that area back to back,
 * variant after variant, each variant's streams in its list's order. */
static colfs_status stripe_locate_encrypted(orc_file *f, size_t s,
					    orc_stripe *sp, uint64_t foff,
					    colfs_err *err)
{
	const Orcpb__StripeFooter *sf =
		(const Orcpb__StripeFooter *)sp->footer.msg;
	const orc_stream_loc *area[2] = {NULL, NULL};
	uint64_t used[2] = {0, 0};
	size_t n = 0;

	for (size_t v = 0; v < sf->n_encryption; v++) {
		if (sf->encryption[v]->n_streams > SIZE_MAX / 2 - n)
			return colfs_fail(err, COLFS_ECORRUPT, foff,
					  "stripe %zu: too many encrypted "
					  "streams", s);
		n += sf->encryption[v]->n_streams;
	}
	if (!n)
		return COLFS_OK;
	/* n is bounded: protobuf-c decoded them under the footer's cap */
	sp->enc = calloc(n, sizeof(*sp->enc));
	if (!sp->enc)
		return colfs_fail(err, COLFS_ENOMEM, foff, "out of memory");
	sp->n_enc = n;
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];
		int a = l->kind == ORCPB__STREAM__KIND__ENCRYPTED_INDEX ? 0 :
			l->kind == ORCPB__STREAM__KIND__ENCRYPTED_DATA ? 1 : -1;

		if (a < 0)
			continue;
		if (area[a])
			colfs_tree_report(f->tree, NULL, l->offset,
					  COLFS_EUNSUPPORTED,
					  "stripe %zu: more than one %s "
					  "stream; the encrypted streams are "
					  "located in the first only", s,
					  orc_tail_stream_kind_name(l->kind));
		else
			area[a] = l;
	}
	n = 0;
	for (size_t v = 0; v < sf->n_encryption; v++) {
		const Orcpb__StripeEncryptionVariant *ev = sf->encryption[v];

		for (size_t i = 0; i < ev->n_streams; i++) {
			orc_stream_loc *loc = &sp->enc[n++];
			int a = stream_in_index_area(ev->streams[i]->kind) ?
				0 : 1;
			const orc_stream_loc *r = area[a];

			loc->kind = ev->streams[i]->kind;
			loc->column = ev->streams[i]->column;
			loc->length = ev->streams[i]->length;
			loc->variant = (uint32_t)v;
			loc->index = (uint32_t)i;
			if (!r) {
				colfs_tree_report(f->tree, NULL, foff,
						  COLFS_ECORRUPT,
						  "stripe %zu: encrypted stream "
						  "%zu of variant %zu has no %s "
						  "area", s, i, v, a ?
						  "ENCRYPTED_DATA" :
						  "ENCRYPTED_INDEX");
				continue;
			}
			loc->offset = r->offset + used[a];
			loc->in_file = r->in_file &&
				       used[a] <= r->length &&
				       loc->length <= r->length - used[a];
			if (!loc->in_file)
				colfs_tree_report(f->tree, NULL, r->offset,
						  COLFS_EBOUNDS,
						  "stripe %zu: encrypted stream "
						  "%zu of variant %zu (column "
						  "%u, %s) of %llu bytes runs "
						  "past its %s area", s, i, v,
						  loc->column,
						  orc_tail_stream_kind_name(
							  loc->kind),
						  (unsigned long long)
							  loc->length,
						  orc_tail_stream_kind_name(
							  r->kind));
			if (colfs_add_overflows(used[a], loc->length,
						&used[a]))
				used[a] = UINT64_MAX;
		}
	}
	for (int a = 0; a < 2; a++)
		if (area[a] && used[a] != area[a]->length)
			colfs_tree_report(f->tree, NULL, area[a]->offset,
					  COLFS_ECORRUPT,
					  "stripe %zu: the encrypted streams "
					  "fill %llu bytes of the %llu-byte "
					  "%s area", s,
					  (unsigned long long)used[a],
					  (unsigned long long)area[a]->length,
					  orc_tail_stream_kind_name(area[a]->kind));
	return COLFS_OK;
}

static colfs_status stripe_load_locked(orc_file *f, size_t s, orc_stripe *sp,
				       colfs_err *err)
{
	const Orcpb__StripeInformation *si = f->footer->stripes[s];
	const Orcpb__StripeFooter *sf;
	uint64_t foff, start, end, pos;

	if (colfs_add_overflows(si->offset, si->indexlength, &foff) ||
	    colfs_add_overflows(foff, si->datalength, &foff) ||
	    colfs_add_overflows(foff, si->footerlength, &end) ||
	    end > f->size)
		return colfs_fail(err, COLFS_ETRUNCATED, si->offset,
				  "stripe %zu (offset %llu) runs past the end "
				  "of the file", s,
				  (unsigned long long)si->offset);
	COLFS_TRY(read_section(f, foff, si->footerlength,
			       &orcpb__stripe_footer__descriptor, &sp->footer,
			       err));
	sf = (const Orcpb__StripeFooter *)sp->footer.msg;
	sp->n_streams = sf->n_streams;
	sp->streams = calloc(sf->n_streams ? sf->n_streams : 1,
			     sizeof(*sp->streams));
	if (!sp->streams)
		return colfs_fail(err, COLFS_ENOMEM, foff, "out of memory");
	start = si->offset;
	pos = start;
	for (size_t i = 0; i < sf->n_streams; i++) {
		const Orcpb__Stream *st = sf->streams[i];
		orc_stream_loc *loc = &sp->streams[i];
		uint64_t e;

		loc->kind = st->kind;
		loc->column = st->column;
		loc->offset = pos;
		loc->length = st->length;
		loc->in_file = !colfs_add_overflows(pos, st->length, &e) &&
			       e <= foff;
		if (!loc->in_file && st->kind != ORCPB__STREAM__KIND__ENCRYPTED_INDEX &&
		    st->kind != ORCPB__STREAM__KIND__ENCRYPTED_DATA)
			colfs_tree_report(f->tree, NULL, pos, COLFS_EBOUNDS,
					  "stripe %zu: stream %zu (column %u, "
					  "%s) of %llu bytes runs past the "
					  "stripe footer", s, i, st->column,
					  orc_tail_stream_kind_name(st->kind),
					  (unsigned long long)st->length);
		if (colfs_add_overflows(pos, st->length, &pos))
			pos = UINT64_MAX;
	}
	/* the streams tile index + data exactly (ORC writers lay them out
	 * back to back; the encrypted areas are streams of the list too) */
	if (pos != foff)
		colfs_tree_report(f->tree, NULL, pos < foff ? pos : start,
				  COLFS_ECORRUPT,
				  "stripe %zu: its %zu streams add up to %llu "
				  "bytes, StripeInformation says %llu (index "
				  "%llu + data %llu)", s, sf->n_streams,
				  pos == UINT64_MAX ? 0ull :
				  (unsigned long long)(pos - start),
				  (unsigned long long)(foff - start),
				  (unsigned long long)si->indexlength,
				  (unsigned long long)si->datalength);
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];

		if ((l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER ||
		     l->kind == ORCPB__STREAM__KIND__BLOOM_FILTER_UTF8) &&
		    orc_cpp_bloom_suspect(f)) {
			colfs_tree_report(f->tree, NULL, l->offset,
					  COLFS_ECORRUPT,
					  "stripe %zu: bloom filters written "
					  "by ORC C++ before 1.6.12 hash "
					  "numbers inconsistently (ORC-1024); "
					  "they are shown but must not be "
					  "trusted", s);
			break;
		}
	}
	COLFS_TRY(stripe_locate_encrypted(f, s, sp, foff, err));
	if (f->schema_ok && sf->n_columns != f->n_types)
		colfs_tree_report(f->tree, NULL, foff, COLFS_ECORRUPT,
				  "stripe %zu: bad number of column encodings "
				  "in the stripe footer: expected %zu, found "
				  "%zu", s, f->n_types, sf->n_columns);
	return COLFS_OK;
}

colfs_status orc_tail_stripe_load(orc_file *f, size_t s, orc_stripe **out,
			     colfs_err *err)
{
	orc_stripe *sp, tmp;
	colfs_status st;
	bool done;

	if (s >= f->n_stripes)
		return colfs_fail(err, COLFS_EBOUNDS, f->footer_off,
				  "no stripe %zu", s);
	sp = &f->stripes[s];
	*out = sp;
	pthread_mutex_lock(&f->lock);
	done = sp->loaded;
	pthread_mutex_unlock(&f->lock);
	if (!done) {
		/* Load without the lock (reports take the tree's locks);
		 * the first to finish installs its result. */
		memset(&tmp, 0, sizeof(tmp));
		st = stripe_load_locked(f, s, &tmp, &tmp.err);
		tmp.status = st;
		if (st) {
			colfs_tree_report_err(f->tree, NULL, &tmp.err);
			colfs_proto_free(&tmp.footer);
			free(tmp.streams);
			tmp.streams = NULL;
			tmp.n_streams = 0;
			free(tmp.enc);
			tmp.enc = NULL;
			tmp.n_enc = 0;
		}
		pthread_mutex_lock(&f->lock);
		if (!sp->loaded) {
			sp->footer = tmp.footer;
			sp->footer.alloc.a.allocator_data = &sp->footer.alloc;
			sp->streams = tmp.streams;
			sp->n_streams = tmp.n_streams;
			sp->enc = tmp.enc;
			sp->n_enc = tmp.n_enc;
			sp->status = tmp.status;
			sp->err = tmp.err;
			sp->loaded = true;
			tmp.footer.msg = NULL;
			tmp.streams = NULL;
			tmp.enc = NULL;
		}
		pthread_mutex_unlock(&f->lock);
		colfs_proto_free(&tmp.footer);
		free(tmp.streams);
		free(tmp.enc);
	}
	st = sp->status;
	if (st && err)
		*err = sp->err;
	return st;
}

/* A stream holds the bytes [offset, offset + length); a stream that ran
 * out is reported at its end, so a truncation at `off` belongs to the
 * stream that ends there. */
static bool stream_holds(const orc_stream_loc *l, uint64_t off, bool ended)
{
	if (!l->length || off < l->offset)
		return false;
	return ended ? off - l->offset <= l->length && off > l->offset
		     : off - l->offset < l->length;
}

void orc_tail_part_path(orc_file *f, size_t s, const colfs_err *err, char *buf,
			size_t len)
{
	uint64_t off = err->offset;
	bool ended = err->status == COLFS_ETRUNCATED;
	orc_stripe *sp;
	colfs_err lerr = {0};
	int w = snprintf(buf, len, "/stripes/%zu", s);

	if (w < 0 || (size_t)w >= len || s >= f->n_stripes ||
	    orc_tail_stripe_load(f, s, &sp, &lerr))
		return;
	/* the names orc_tree.c's streams_dir_populate gives */
	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];
		if (stream_holds(l, off, ended)) {
			snprintf(buf + w, len - (size_t)w, "/streams/%zu-%u-%s",
				 i, l->column, orc_tail_stream_kind_name(l->kind));
			return;
		}
	}
	for (size_t i = 0; i < sp->n_enc; i++) {
		const orc_stream_loc *l = &sp->enc[i];
		if (stream_holds(l, off, ended)) {
			snprintf(buf + w, len - (size_t)w,
				 "/streams/encrypted-%u-%u-%u-%s", l->variant,
				 l->index, l->column,
				 orc_tail_stream_kind_name(l->kind));
			return;
		}
	}
}

/* colfs: Kudu CFile header and footer (§1-§4, §6): read, checked, and
 * shown as JSON (header.json, footer.json, deltafilestats.json). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"
#include "core/codec.h"

static int magic_version(const uint8_t *m)
{
	if (!memcmp(m, CFILE_MAGIC_V2, 8))
		return 2;
	if (!memcmp(m, CFILE_MAGIC_V1, 8))
		return 1;
	return 0;
}

/* The footer (§1.2).  On failure the file has no usable footer; the tree
 * then shows what it can (raw bytes, layout, errors). */
colfs_status cfile_file_read_footer(colfs_tree *t, cfile_file *f)
{
	uint8_t tail[12];
	colfs_err err = {0};
	uint8_t *buf;
	uint32_t F;

	if (f->size < 16) {
		colfs_tree_report(t, NULL, 0, COLFS_ETRUNCATED,
				  "file of %llu bytes is too small for a CFile",
				  (unsigned long long)f->size);
		return COLFS_ETRUNCATED;
	}
	COLFS_TRY(colfs_source_read_at(f->src, f->size - 12, 12, tail, &err));
	f->version = magic_version(tail);
	F = colfs_le32(tail + 8);
	f->footer_pb_len = F;
	if (!f->version) {
		colfs_tree_report(t, NULL, f->size - 12, COLFS_ECORRUPT,
				  "footer magic is not kuducfl2 or kuducfil");
		return COLFS_ECORRUPT;
	}
	if (F > CFILE_MAX_PB || (uint64_t)F + 16 > f->size) {
		colfs_tree_report(t, NULL, f->size - 4, COLFS_ECORRUPT,
				  "footer length %u does not fit a %llu-byte "
				  "file (max %u)", F,
				  (unsigned long long)f->size, CFILE_MAX_PB);
		return COLFS_ECORRUPT;
	}
	buf = malloc((size_t)F + 16);
	if (!buf)
		return COLFS_ENOMEM;
	uint64_t pb_at = f->size - 12 - F;
	/* the 4 bytes before the PB are the CRC if the CHECKSUM bit is set */
	if (colfs_source_read_at(f->src, pb_at - 4, (size_t)F + 16, buf,
				 &err)) {
		free(buf);
		colfs_tree_report_err(t, NULL, &err);
		return err.status;
	}
	if (colfs_proto_unpack_status(&f->footer_msg,
				      &kudu__cfile__cfile_footer_pb__descriptor,
				      buf + 4, F,
				      colfs_proto_cap(F, f->max_alloc)) ==
	    COLFS_OK)
		f->footer = (Kudu__Cfile__CFileFooterPB *)f->footer_msg.msg;
	if (!f->footer) {
		free(buf);
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "footer is not a valid CFileFooterPB "
				  "(%u bytes)", F);
		return COLFS_ECORRUPT;
	}
	const Kudu__Cfile__CFileFooterPB *ft = f->footer;
	uint32_t inc = ft->has_incompatible_features
			       ? ft->incompatible_features : 0;
	f->checksums = inc & CFILE_FEATURE_CHECKSUM;
	f->footer_start = f->checksums ? pb_at - 4 : pb_at;
	if (f->checksums) {
		uint32_t want = colfs_le32(buf);
		uint32_t got = colfs_crc32c(0, buf + 4, (size_t)F + 12);
		if (want != got) {
			colfs_tree_report(t, NULL, pb_at - 4, COLFS_ECORRUPT,
					  "footer checksum mismatch: stored "
					  "0x%08x, computed 0x%08x", want, got);
			if (f->verify) {
				free(buf);
				return COLFS_ECORRUPT;
			}
		}
	}
	free(buf);
	if (inc & ~(CFILE_FEATURE_CHECKSUM | CFILE_FEATURE_ARRAY)) {
		colfs_tree_report(t, NULL, pb_at, COLFS_EUNSUPPORTED,
				  "unknown incompatible feature bits 0x%x "
				  "(known: 0x1 CHECKSUM, 0x2 ARRAY_DATA_BLOCK)",
				  inc & ~3u);
		return COLFS_EUNSUPPORTED;
	}
	bool arr = ft->has_is_type_array && ft->is_type_array;
	if (!!(inc & CFILE_FEATURE_ARRAY) != arr) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "ARRAY_DATA_BLOCK bit and is_type_array "
				  "disagree");
		return COLFS_ECORRUPT;
	}
	f->array = arr;
	if (!ft->has_data_type || !ft->has_encoding || !ft->has_num_values) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "footer lacks a required field (%s)",
				  !ft->has_data_type  ? "data_type"
				  : !ft->has_encoding ? "encoding"
						      : "num_values");
		return COLFS_ECORRUPT;
	}
	f->type = ft->data_type;
	f->ti = cfile_types_get(f->type);
	if (!f->ti) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "data_type %d (%s) cannot be stored in a "
				  "CFile", f->type, cfile_types_type_name(f->type));
		return COLFS_ECORRUPT;
	}
	f->encoding = ft->encoding;
	if (!cfile_types_encoding_legal(f->type, f->encoding)) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "encoding %d (%s) is not valid for %s",
				  f->encoding,
				  cfile_types_encoding_name(f->encoding),
				  f->ti->name);
		return COLFS_ECORRUPT;
	}
	if (f->encoding == CFILE_AUTO_ENCODING)
		f->encoding = cfile_types_encoding_default(f->type);
	f->compression = ft->has_compression ? ft->compression
					     : CFILE_NO_COMPRESSION;
	if (f->compression < CFILE_NO_COMPRESSION ||
	    f->compression > CFILE_ZLIB) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "compression %d is not one of 1-4",
				  f->compression);
		return COLFS_ECORRUPT;
	}
	if (ft->num_values < 0 || ft->num_values > UINT32_MAX) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "num_values %lld out of range",
				  (long long)ft->num_values);
		return COLFS_ECORRUPT;
	}
	f->num_values = (uint64_t)ft->num_values;
	f->nullable = ft->has_is_type_nullable && ft->is_type_nullable;
	if (ft->dict_block_ptr && f->encoding != CFILE_DICT) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "dict_block_ptr in a file that is not "
				  "dictionary encoded");
		return COLFS_ECORRUPT;
	}
	if (!ft->dict_block_ptr && f->encoding == CFILE_DICT) {
		colfs_tree_report(t, NULL, pb_at, COLFS_ECORRUPT,
				  "dictionary encoding without a "
				  "dict_block_ptr");
		return COLFS_ECORRUPT;
	}
	return COLFS_OK;
}

/* The header (§1.1); problems are reported, the file stays readable. */
void cfile_file_read_header(colfs_tree *t, cfile_file *f)
{
	uint8_t head[12];
	colfs_err err = {0};
	uint32_t H;

	if (colfs_source_read_at(f->src, 0, 12, head, &err)) {
		colfs_tree_report_err(t, NULL, &err);
		return;
	}
	int v = magic_version(head);
	if (v != f->version)
		colfs_tree_report(t, NULL, 0, COLFS_ECORRUPT,
				  "header magic %s the footer magic",
				  v ? "differs from" : "is not a CFile magic; "
						       "expected");
	H = colfs_le32(head + 8);
	uint64_t end = 12 + (uint64_t)H + (f->checksums ? 4 : 0);
	if (H > CFILE_MAX_PB || end > f->footer_start) {
		colfs_tree_report(t, NULL, 8, COLFS_ECORRUPT,
				  "header length %u runs into the footer", H);
		f->header_len = 12;
		return;
	}
	f->header_len = (uint32_t)end;
	f->header_bytes = malloc(end);
	if (!f->header_bytes ||
	    colfs_source_read_at(f->src, 0, end, f->header_bytes, &err)) {
		f->header_len = 12;
		return;
	}
	if (colfs_proto_unpack_status(&f->header_msg,
				      &kudu__cfile__cfile_header_pb__descriptor,
				      f->header_bytes + 12, H,
				      colfs_proto_cap(H, f->max_alloc)) ==
	    COLFS_OK)
		f->header = (Kudu__Cfile__CFileHeaderPB *)f->header_msg.msg;
	if (!f->header)
		colfs_tree_report(t, NULL, 12, COLFS_ECORRUPT,
				  "header is not a valid CFileHeaderPB");
	if (f->checksums) {
		uint32_t want = colfs_le32(f->header_bytes + 12 + H);
		uint32_t got = colfs_crc32c(0, f->header_bytes, 12 + H);
		if (want != got)
			colfs_tree_report(t, NULL, 12 + H, COLFS_ECORRUPT,
					  "header checksum mismatch: stored "
					  "0x%08x, computed 0x%08x", want,
					  got);
	}
}


/* --- header and footer messages as JSON ---------------------------------- */

/* Text kept as it is when jansson takes it (UTF-8), else {"hex": ...}. */
static json_t *pb_bytes_json(const uint8_t *p, size_t n)
{
	json_t *s = n ? json_stringn((const char *)p, n) : json_string("");
	char *hex;

	if (s)
		return s;
	hex = malloc(2 * n + 1);
	if (!hex)
		return NULL;
	hex[0] = 0;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", p[i]);
	json_t *o = json_pack("{s:s}", "hex", hex);
	free(hex);
	return o;
}

static bool field_is(const ProtobufCMessage *m,
		     const ProtobufCMessageDescriptor *d,
		     const ProtobufCFieldDescriptor *fd, const char *name)
{
	return m->descriptor == d && !strcmp(fd->name, name);
}

/* What differs from the core writer's rendering of every field. */
static colfs_proto_json_act pb_field_json(void *ctx, const ProtobufCMessage *m,
					  const ProtobufCFieldDescriptor *fd,
					  json_t **out)
{
	const cfile_file *f = ctx;
	const ProtobufCMessageDescriptor *F =
		&kudu__cfile__cfile_footer_pb__descriptor;
	const ProtobufCMessageDescriptor *H =
		&kudu__cfile__cfile_header_pb__descriptor;

	if (m->descriptor == F) {
		const Kudu__Cfile__CFileFooterPB *ft = (const void *)m;

		if (field_is(m, F, fd, "data_type"))
			*out = json_string(cfile_types_type_name(ft->data_type));
		else if (field_is(m, F, fd, "encoding"))
			*out = json_string(cfile_types_encoding_name(ft->encoding));
		else if (field_is(m, F, fd, "compression"))
			*out = json_string(
				cfile_types_compression_name(f->compression));
		else if (field_is(m, F, fd, "is_type_nullable"))
			*out = json_boolean(f->nullable);
		else if (field_is(m, F, fd, "posidx_info"))
			return ft->posidx_info ? COLFS_PROTO_JSON_DEFAULT
					       : COLFS_PROTO_JSON_OMIT;
		else if (field_is(m, F, fd, "validx_info"))
			return ft->validx_info ? COLFS_PROTO_JSON_DEFAULT
					       : COLFS_PROTO_JSON_OMIT;
		else if (field_is(m, F, fd, "dict_block_ptr"))
			return ft->dict_block_ptr ? COLFS_PROTO_JSON_DEFAULT
						  : COLFS_PROTO_JSON_OMIT;
		else if (field_is(m, F, fd, "compatible_features"))
			return ft->has_compatible_features
				       ? COLFS_PROTO_JSON_DEFAULT
				       : COLFS_PROTO_JSON_OMIT;
		else if (field_is(m, F, fd, "is_type_array"))
			return ft->has_is_type_array ? COLFS_PROTO_JSON_DEFAULT
						     : COLFS_PROTO_JSON_OMIT;
		else
			return COLFS_PROTO_JSON_DEFAULT;
		return COLFS_PROTO_JSON_SET;
	}
	if (m->descriptor == H) {
		const Kudu__Cfile__CFileHeaderPB *h = (const void *)m;

		if (field_is(m, H, fd, "major_version"))
			return h->has_major_version ? COLFS_PROTO_JSON_DEFAULT
						    : COLFS_PROTO_JSON_OMIT;
		if (field_is(m, H, fd, "minor_version"))
			return h->has_minor_version ? COLFS_PROTO_JSON_DEFAULT
						    : COLFS_PROTO_JSON_OMIT;
	}
	return COLFS_PROTO_JSON_DEFAULT;
}

void cfile_file_pb_json_into(const cfile_file *f, json_t *obj,
			const ProtobufCMessage *m)
{
	/* DeltaStatsPB: the counts before the per-column list */
	static const char *const order[] = {"delete_count", "min_timestamp",
					    "max_timestamp", "reinsert_count",
					    NULL};
	const colfs_proto_json_opts opts = {
		.all_fields = true,
		.skip_unknown = true,
		.order = order,
		.text = pb_bytes_json,
		.bytes = pb_bytes_json,
		.field = pb_field_json,
		.ctx = (void *)f,
	};

	colfs_proto_json_into(obj, m, &opts);
}

/* colfs: protobuf help shared by ORC and Kudu CFile (see proto.h): a
 * capped allocator for protobuf-c, and any decoded message as JSON from
 * its descriptor (so every field of the .proto shows, and fields a newer
 * writer added show as "unknown_fields"). */
#include "proto.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* --- unpacking with a cap on what one message may allocate ------------- */

static void *pb_alloc(void *data, size_t size)
{
	colfs_proto_alloc *al = data;

	if (size > al->cap || al->used > al->cap - size)
		return NULL;
	al->used += size;
	return malloc(size);
}

static void pb_free(void *data, void *ptr)
{
	(void)data;
	free(ptr);
}

size_t colfs_proto_cap(size_t len, uint64_t max_alloc)
{
	uint64_t cap = (uint64_t)len * 64 + (1u << 20);

	if (cap > max_alloc)
		cap = max_alloc;
	return (size_t)cap;
}

colfs_status colfs_proto_unpack_status(colfs_proto_msg *m,
				       const ProtobufCMessageDescriptor *desc,
				       const uint8_t *data, size_t len,
				       size_t cap)
{
	m->alloc.a.alloc = pb_alloc;
	m->alloc.a.free = pb_free;
	m->alloc.a.allocator_data = &m->alloc;
	m->alloc.used = 0;
	m->alloc.cap = cap;
	m->msg = protobuf_c_message_unpack(desc, &m->alloc.a, len, data);
	if (m->msg)
		return COLFS_OK;
	return m->alloc.used >= m->alloc.cap / 2 ? COLFS_EOVERFLOW
						 : COLFS_ECORRUPT;
}

colfs_status colfs_proto_unpack(colfs_proto_msg *m,
				const ProtobufCMessageDescriptor *desc,
				const uint8_t *data, size_t len, size_t cap,
				uint64_t offset, colfs_err *err)
{
	colfs_status st = colfs_proto_unpack_status(m, desc, data, len, cap);

	if (st == COLFS_EOVERFLOW)
		return colfs_fail(err, COLFS_EOVERFLOW, offset,
				  "%s: decoding needs more than %zu "
				  "bytes of memory",
				  desc->short_name, cap);
	if (st != COLFS_OK)
		return colfs_fail(err, COLFS_ECORRUPT, offset,
				  "%s: %zu bytes are not a valid protobuf "
				  "message", desc->short_name, len);
	return COLFS_OK;
}

void colfs_proto_free(colfs_proto_msg *m)
{
	if (m->msg)
		protobuf_c_message_free_unpacked(m->msg, &m->alloc.a);
	m->msg = NULL;
}

/* --- JSON ----------------------------------------------------------------- */

static bool utf8_valid(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = p[i];
		size_t k;
		uint32_t cp;

		if (c < 0x80) {
			if (c == 0)
				return false;
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			k = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((p[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + j] & 0x3f);
		}
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

json_t *colfs_proto_json_hex(const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *s = malloc(n * 2 + 1);
	json_t *j;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = hex[p[i] >> 4];
		s[2 * i + 1] = hex[p[i] & 15];
	}
	j = json_stringn(s, n * 2);
	free(s);
	return j;
}

json_t *colfs_proto_json_text(const uint8_t *p, size_t n)
{
	colfs_buf b = COLFS_BUF_INIT;
	json_t *j;

	if (!p)
		p = (const uint8_t *)"";
	if (utf8_valid(p, n))
		return json_stringn((const char *)p, n);
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f)
			colfs_buf_putc(&b, (char)p[i]);
		else
			colfs_buf_printf(&b, "\\x%02X", p[i]);
	}
	if (colfs_buf_status(&b)) {
		colfs_buf_free(&b);
		return NULL;
	}
	j = json_stringn(b.data ? b.data : "", b.len);
	colfs_buf_free(&b);
	return j;
}

static const colfs_proto_json_opts default_opts;

static json_t *scalar_json(const ProtobufCFieldDescriptor *fd,
			   const void *p, const colfs_proto_json_opts *o)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return json_integer(*(const int32_t *)p);
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return json_integer(*(const uint32_t *)p);
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return json_integer(*(const int64_t *)p);
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64: {
		uint64_t v = *(const uint64_t *)p;

		if (v > (uint64_t)INT64_MAX) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%llu",
				 (unsigned long long)v);
			return json_string(buf);
		}
		return json_integer((json_int_t)v);
	}
	case PROTOBUF_C_TYPE_FLOAT:
		return json_real(*(const float *)p);
	case PROTOBUF_C_TYPE_DOUBLE: {
		double d = *(const double *)p;

		if (d != d)
			return json_string("nan");
		if (d > 1.7976931348623157e308)
			return json_string("inf");
		if (d < -1.7976931348623157e308)
			return json_string("-inf");
		return json_real(d);
	}
	case PROTOBUF_C_TYPE_BOOL:
		return json_boolean(*(const protobuf_c_boolean *)p);
	case PROTOBUF_C_TYPE_ENUM: {
		int v = *(const int *)p;
		const ProtobufCEnumValue *ev =
			protobuf_c_enum_descriptor_get_value(fd->descriptor,
							     v);

		return ev ? json_string(ev->name) : json_integer(v);
	}
	case PROTOBUF_C_TYPE_STRING: {
		const char *s = *(char *const *)p;

		if (!s)
			return json_null();
		return (o->text ? o->text : colfs_proto_json_text)(
			(const uint8_t *)s, strlen(s));
	}
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *bd = p;

		return (o->bytes ? o->bytes : colfs_proto_json_hex)(bd->data,
								   bd->len);
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		const ProtobufCMessage *m = *(ProtobufCMessage *const *)p;

		return m ? colfs_proto_json(m, o) : json_null();
	}
	}
	return json_null();
}

static size_t elem_size(const ProtobufCFieldDescriptor *fd)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
		return sizeof(char *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(ProtobufCMessage *);
	}
	return 0;
}

/* Field `fd` of `m` into `obj`, as the options say. */
static void field_json(json_t *obj, const ProtobufCMessage *m,
		       const ProtobufCFieldDescriptor *fd,
		       const colfs_proto_json_opts *o)
{
	const char *base = (const char *)m;
	const void *member = base + fd->offset;

	if (o->field) {
		json_t *v = NULL;

		switch (o->field(o->ctx, m, fd, &v)) {
		case COLFS_PROTO_JSON_SET:
			json_object_set_new(obj, fd->name, v);
			return;
		case COLFS_PROTO_JSON_OMIT:
			return;
		case COLFS_PROTO_JSON_DEFAULT:
			break;
		}
	}
	if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
		size_t n = *(const size_t *)(base + fd->quantifier_offset);
		const char *arr = *(char *const *)member;
		json_t *ja;

		if (n == 0 && !o->all_fields)
			return;
		ja = json_array();
		for (size_t k = 0; k < n && ja; k++)
			json_array_append_new(
				ja, scalar_json(fd, arr + k * elem_size(fd), o));
		json_object_set_new(obj, fd->name, ja);
		return;
	}
	if (!o->all_fields) {
		if (fd->quantifier_offset &&
		    fd->type != PROTOBUF_C_TYPE_STRING &&
		    fd->type != PROTOBUF_C_TYPE_MESSAGE &&
		    !*(const protobuf_c_boolean *)(base + fd->quantifier_offset))
			return;
		if ((fd->type == PROTOBUF_C_TYPE_STRING ||
		     fd->type == PROTOBUF_C_TYPE_MESSAGE) &&
		    !*(void *const *)member)
			return;
	}
	json_object_set_new(obj, fd->name, scalar_json(fd, member, o));
}

static bool listed(const char *const *order, const char *name)
{
	for (; order && *order; order++)
		if (!strcmp(*order, name))
			return true;
	return false;
}

void colfs_proto_json_into(json_t *obj, const ProtobufCMessage *m,
			   const colfs_proto_json_opts *opts)
{
	const colfs_proto_json_opts *o = opts ? opts : &default_opts;
	const ProtobufCMessageDescriptor *d = m->descriptor;

	for (const char *const *name = o->order; name && *name; name++) {
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field_by_name(d,
									 *name);

		if (fd)
			field_json(obj, m, fd, o);
	}
	for (unsigned i = 0; i < d->n_fields; i++)
		if (!listed(o->order, d->fields[i].name))
			field_json(obj, m, &d->fields[i], o);
	if (m->n_unknown_fields > 0 && !o->skip_unknown) {
		json_t *ja = json_array();

		for (unsigned i = 0; i < m->n_unknown_fields && ja; i++) {
			const ProtobufCMessageUnknownField *u =
				&m->unknown_fields[i];
			json_t *uo = json_object();

			json_object_set_new(uo, "field", json_integer(u->tag));
			json_object_set_new(uo, "wire_type",
					    json_integer(u->wire_type));
			json_object_set_new(uo, "bytes",
					    colfs_proto_json_hex(u->data,
								 u->len));
			json_array_append_new(ja, uo);
		}
		json_object_set_new(obj, "unknown_fields", ja);
	}
}

json_t *colfs_proto_json(const ProtobufCMessage *m,
			 const colfs_proto_json_opts *opts)
{
	json_t *obj = json_object();

	if (obj)
		colfs_proto_json_into(obj, m, opts);
	return obj;
}

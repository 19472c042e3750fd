/* colfs ORC: any decoded protobuf-c message as JSON, field by field, from
 * the message descriptors (so every field of orc.proto shows, and fields
 * a newer writer added show as "unknown_fields"). */
#include "orc_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

json_t *orc_json_bytes(const uint8_t *p, size_t n)
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

/* Text from the file: kept when it is UTF-8, else with each byte that is
 * not valid UTF-8 written as \xHH. */
json_t *orc_json_text(const char *s, size_t n)
{
	colfs_buf b = COLFS_BUF_INIT;
	json_t *j;
	const uint8_t *p = (const uint8_t *)s;

	if (utf8_valid(p, n))
		return json_stringn(s, n);
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

static json_t *scalar_json(const ProtobufCFieldDescriptor *fd,
			   const void *p)
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

		return s ? orc_json_text(s, strlen(s)) : json_null();
	}
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *bd = p;

		return orc_json_bytes(bd->data, bd->len);
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		const ProtobufCMessage *m = *(ProtobufCMessage *const *)p;

		return m ? orc_msg_json(m) : json_null();
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

json_t *orc_msg_json(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	json_t *obj = json_object();

	if (!obj)
		return NULL;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		const char *base = (const char *)m;
		const void *member = base + fd->offset;

		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + fd->quantifier_offset);
			const char *arr = *(char *const *)member;
			json_t *ja;

			if (n == 0)
				continue;
			ja = json_array();
			for (size_t k = 0; k < n && ja; k++)
				json_array_append_new(
					ja, scalar_json(fd, arr + k * elem_size(fd)));
			json_object_set_new(obj, fd->name, ja);
			continue;
		}
		if (fd->quantifier_offset &&
		    fd->type != PROTOBUF_C_TYPE_STRING &&
		    fd->type != PROTOBUF_C_TYPE_MESSAGE &&
		    !*(const protobuf_c_boolean *)(base + fd->quantifier_offset))
			continue;
		if ((fd->type == PROTOBUF_C_TYPE_STRING ||
		     fd->type == PROTOBUF_C_TYPE_MESSAGE) &&
		    !*(void *const *)member)
			continue;
		json_object_set_new(obj, fd->name, scalar_json(fd, member));
	}
	if (m->n_unknown_fields > 0) {
		json_t *ja = json_array();

		for (unsigned i = 0; i < m->n_unknown_fields && ja; i++) {
			const ProtobufCMessageUnknownField *u =
				&m->unknown_fields[i];
			json_t *o = json_object();

			json_object_set_new(o, "field", json_integer(u->tag));
			json_object_set_new(o, "wire_type",
					    json_integer(u->wire_type));
			json_object_set_new(o, "bytes",
					    orc_json_bytes(u->data, u->len));
			json_array_append_new(ja, o);
		}
		json_object_set_new(obj, "unknown_fields", ja);
	}
	return obj;
}

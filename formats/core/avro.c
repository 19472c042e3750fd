/* colfs: a bounded reader of Avro object container files (see avro.h).
 *
 * Why not Debian's libavro (avro-c 1.11): it has no zstandard codec
 * (Iceberg writers use it), it reads containers only from a path or a
 * FILE* (colfs reads every byte through a colfs_source, so that remote
 * files, changed-file checks and damage reports with offsets work), and
 * its 1.11.1 build lacks the later fixes for negative lengths and block
 * sizes in crafted files.  The format is small: a header, blocks, and a
 * binary encoding of zigzag varints and length-prefixed bytes, decoded
 * here through the core's cursor and codecs under the bounds avro.h
 * lists. */
#include "avro.h"

#include <jansson.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "buf.h"
#include "codec.h"
#include "cursor.h"
#include "proto.h"
#include "render.h"

#define AVRO_MAGIC "Obj\x01"
#define AVRO_SYNC 16
#define AVRO_DEFAULT_MAX_ALLOC (1ull << 30)
#define AVRO_HEADER_WINDOW (4u << 10)
#define AVRO_ARENA_CHUNK (64u << 10)

typedef enum avro_codec {
	AVRO_CODEC_NULL, AVRO_CODEC_DEFLATE, AVRO_CODEC_SNAPPY, AVRO_CODEC_ZSTD,
} avro_codec;

/* A schema node with what it owns. */
typedef struct avro_node {
	colfs_avro_schema s;
	char *fullname;
	struct avro_node *next;
} avro_node;

typedef struct avro_meta {
	char *key;
	uint8_t *val;
	size_t n;
} avro_meta;

typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	max_align_t data[];
} arena_chunk;

struct colfs_avro_reader {
	colfs_source *own_src;       /* a memory source we made, or NULL */
	const colfs_source *src;
	uint64_t start, end, max_alloc;
	json_t *schema_doc;
	json_t *names;               /* full name -> its node's address */
	json_t *meta_json;
	avro_meta *meta;
	size_t nmeta;
	avro_node *nodes;
	const colfs_avro_schema *root;
	avro_codec codec;
	uint8_t sync[AVRO_SYNC];
	/* the current block */
	uint64_t pos;                /* offset of the next block */
	uint64_t block_off;          /* offset of the current block */
	uint8_t *raw, *dec;
	colfs_cursor cur;
	int64_t left;                /* records left in the block */
	bool in_block;
	uint64_t records, blocks;
	/* the current record's values */
	arena_chunk *arena;
	uint64_t budget, used;
	colfs_avro_value val;
	colfs_err failed;            /* sticky failure (status 0: none) */
};

/* --- schema ------------------------------------------------------------ */

typedef struct schema_ctx {
	colfs_avro_reader *r;
	uint64_t offset;             /* where avro.schema is in the file */
	colfs_err *err;
} schema_ctx;

static const struct {
	const char *name;
	colfs_avro_type type;
} primitives[] = {
	{ "null", COLFS_AVRO_NULL }, { "boolean", COLFS_AVRO_BOOLEAN },
	{ "int", COLFS_AVRO_INT }, { "long", COLFS_AVRO_LONG },
	{ "float", COLFS_AVRO_FLOAT }, { "double", COLFS_AVRO_DOUBLE },
	{ "bytes", COLFS_AVRO_BYTES }, { "string", COLFS_AVRO_STRING },
};

/* The fewest bytes a value takes, for the types whose size does not
 * depend on others (records and unions are summed when parsed). */
static uint64_t fixed_min_size(colfs_avro_type t)
{
	switch (t) {
	case COLFS_AVRO_NULL: return 0;
	case COLFS_AVRO_FLOAT: return 4;
	case COLFS_AVRO_DOUBLE: return 8;
	default: return 1;
	}
}

static avro_node *node_new(colfs_avro_reader *r, colfs_avro_type t,
			   json_t *json)
{
	avro_node *n = calloc(1, sizeof *n);

	if (!n)
		return NULL;
	n->s.type = t;
	/* a record, union or fixed is sized once parsed; until then (a
	 * record that refers to itself) it counts 0, which only loosens
	 * the count checks */
	if (t != COLFS_AVRO_RECORD && t != COLFS_AVRO_UNION &&
	    t != COLFS_AVRO_FIXED)
		n->s.min_size = fixed_min_size(t);
	n->s.json = json;
	n->next = r->nodes;
	r->nodes = n;
	return n;
}

static void nodes_free(avro_node *n)
{
	while (n) {
		avro_node *next = n->next;

		free(n->s.fields);
		free(n->s.symbols);
		free(n->s.branches);
		free(n->fullname);
		free(n);
		n = next;
	}
}

/* Named types by full name: a JSON object of their addresses, so that a
 * schema of many names is looked up in constant time. */
static const colfs_avro_schema *named_find(colfs_avro_reader *r,
					   const char *full)
{
	json_t *p = json_object_get(r->names, full);

	return p ? (const colfs_avro_schema *)(uintptr_t)json_integer_value(p)
		 : NULL;
}

/* A name as written, resolved against the enclosing namespace. */
static char *full_name(const char *name, const char *ns)
{
	size_t a, b;
	char *s;

	if (strchr(name, '.') || !ns || !*ns)
		return strdup(name);
	a = strlen(ns);
	b = strlen(name);
	s = malloc(a + b + 2);
	if (!s)
		return NULL;
	memcpy(s, ns, a);
	s[a] = '.';
	memcpy(s + a + 1, name, b + 1);
	return s;
}

static colfs_status schema_fail(schema_ctx *c, colfs_status st,
				const char *what, const char *detail)
{
	return colfs_fail(c->err, st, c->offset, "avro.schema: %s%s%s", what,
			  detail ? ": " : "", detail ? detail : "");
}

static colfs_status parse_type(schema_ctx *c, json_t *j, const char *ns,
			       unsigned depth, const colfs_avro_schema **out);

static const colfs_avro_schema *reference(schema_ctx *c, const char *name,
					  const char *ns)
{
	char *full = full_name(name, ns);
	const colfs_avro_schema *s = NULL;

	if (full)
		s = named_find(c->r, full);
	free(full);
	if (!s)
		s = named_find(c->r, name);
	return s;
}

/* The logical type of a node, when valid for its type (else none, as the
 * specification asks of readers). */
static void logical_set(colfs_avro_schema *s, json_t *obj)
{
	const char *lt = json_string_value(json_object_get(obj, "logicalType"));
	colfs_avro_type t = s->type;

	if (!lt)
		return;
	if (strcmp(lt, "decimal") == 0 &&
	    (t == COLFS_AVRO_BYTES || t == COLFS_AVRO_FIXED)) {
		json_t *p = json_object_get(obj, "precision");
		json_t *sc = json_object_get(obj, "scale");
		json_int_t prec = json_is_integer(p) ? json_integer_value(p) : 0;
		json_int_t scale = sc ? (json_is_integer(sc) ?
					 json_integer_value(sc) : -1) : 0;

		if (prec < 1 || prec > 1000 || scale < 0 || scale > prec)
			return;
		s->precision = (int32_t)prec;
		s->scale = (int32_t)scale;
		s->logical = COLFS_AVRO_LOGICAL_DECIMAL;
	} else if (strcmp(lt, "uuid") == 0 &&
		   (t == COLFS_AVRO_STRING ||
		    (t == COLFS_AVRO_FIXED && s->size == 16))) {
		s->logical = COLFS_AVRO_LOGICAL_UUID;
	} else if (strcmp(lt, "date") == 0 && t == COLFS_AVRO_INT) {
		s->logical = COLFS_AVRO_LOGICAL_DATE;
	} else if (strcmp(lt, "time-millis") == 0 && t == COLFS_AVRO_INT) {
		s->logical = COLFS_AVRO_LOGICAL_TIME_MILLIS;
	} else if (t == COLFS_AVRO_LONG) {
		static const struct {
			const char *n;
			colfs_avro_logical l;
		} longs[] = {
			{ "time-micros", COLFS_AVRO_LOGICAL_TIME_MICROS },
			{ "timestamp-millis", COLFS_AVRO_LOGICAL_TIMESTAMP_MILLIS },
			{ "timestamp-micros", COLFS_AVRO_LOGICAL_TIMESTAMP_MICROS },
			{ "timestamp-nanos", COLFS_AVRO_LOGICAL_TIMESTAMP_NANOS },
			{ "local-timestamp-millis", COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS },
			{ "local-timestamp-micros", COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS },
			{ "local-timestamp-nanos", COLFS_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS },
		};
		for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
			if (strcmp(lt, longs[i].n) == 0)
				s->logical = longs[i].l;
	}
}

/* record, enum or fixed: its name, registered before its body so that
 * the body may refer to it. */
static colfs_status named_new(schema_ctx *c, json_t *j, colfs_avro_type t,
			      const char *ns, avro_node **out)
{
	const char *name = json_string_value(json_object_get(j, "name"));
	const char *own_ns =
		json_string_value(json_object_get(j, "namespace"));
	avro_node *n;

	if (!name || !*name)
		return schema_fail(c, COLFS_ECORRUPT,
				   "a named type without a name", NULL);
	if (own_ns)
		ns = own_ns;
	n = node_new(c->r, t, j);
	if (!n || !(n->fullname = full_name(name, ns)))
		return colfs_fail(c->err, COLFS_ENOMEM, c->offset,
				  "no memory for the schema");
	/* a redefinition is refused (the specification's rule) */
	if (named_find(c->r, n->fullname))
		return schema_fail(c, COLFS_ECORRUPT, "a name defined twice",
				   n->fullname);
	if (json_object_set_new(c->r->names, n->fullname,
				json_integer((json_int_t)(uintptr_t)&n->s)))
		return colfs_fail(c->err, COLFS_ENOMEM, c->offset,
				  "no memory for the schema");
	n->s.name = n->fullname;
	*out = n;
	return COLFS_OK;
}

static colfs_status parse_record(schema_ctx *c, json_t *j, const char *ns,
				 unsigned depth, avro_node *n)
{
	json_t *fields = json_object_get(j, "fields");
	const char *dot = strrchr(n->fullname, '.');
	char *rns = NULL;
	colfs_status st = COLFS_OK;

	if (!json_is_array(fields))
		return schema_fail(c, COLFS_ECORRUPT,
				   "a record without a fields array",
				   n->fullname);
	n->s.n = json_array_size(fields);
	n->s.fields = calloc(n->s.n ? n->s.n : 1, sizeof *n->s.fields);
	if (dot)
		rns = strndup(n->fullname, (size_t)(dot - n->fullname));
	if (!n->s.fields || (dot && !rns)) {
		free(rns);
		return colfs_fail(c->err, COLFS_ENOMEM, c->offset,
				  "no memory for the schema");
	}
	(void)ns;
	for (size_t i = 0; i < n->s.n && !st; i++) {
		json_t *f = json_array_get(fields, i);
		colfs_avro_field *fd = &n->s.fields[i];
		json_t *id = json_object_get(f, "field-id");

		fd->name = json_string_value(json_object_get(f, "name"));
		fd->json = f;
		if (!fd->name) {
			st = schema_fail(c, COLFS_ECORRUPT,
					 "a field without a name", n->fullname);
			break;
		}
		for (size_t k = 0; k < i; k++)
			if (strcmp(n->s.fields[k].name, fd->name) == 0)
				st = schema_fail(c, COLFS_ECORRUPT,
						 "a field name used twice",
						 fd->name);
		if (json_is_integer(id)) {
			fd->has_id = true;
			fd->id = json_integer_value(id);
		}
		if (!st)
			st = parse_type(c, json_object_get(f, "type"), rns,
					depth + 1, &fd->type);
	}
	free(rns);
	for (size_t i = 0; !st && i < n->s.n; i++) {
		uint64_t f = n->s.fields[i].type->min_size, m = n->s.min_size;

		n->s.min_size = m + f < m ? UINT64_MAX : m + f;
	}
	return st;
}

static colfs_status parse_type(schema_ctx *c, json_t *j, const char *ns,
			       unsigned depth, const colfs_avro_schema **out)
{
	avro_node *n;
	const char *t;

	if (depth > COLFS_AVRO_MAX_DEPTH)
		return colfs_fail(c->err, COLFS_EOVERFLOW, c->offset,
				  "avro.schema: types nested deeper than %d",
				  COLFS_AVRO_MAX_DEPTH);
	if (!j)
		return schema_fail(c, COLFS_ECORRUPT, "a type is missing",
				   NULL);
	if (json_is_string(j)) {
		t = json_string_value(j);
		for (size_t i = 0; i < sizeof primitives / sizeof primitives[0];
		     i++)
			if (strcmp(t, primitives[i].name) == 0) {
				n = node_new(c->r, primitives[i].type, j);
				if (!n)
					return colfs_fail(c->err, COLFS_ENOMEM,
							  c->offset,
							  "no memory for the schema");
				*out = &n->s;
				return COLFS_OK;
			}
		*out = reference(c, t, ns);
		if (!*out)
			return schema_fail(c, COLFS_ECORRUPT,
					   "an unknown type name", t);
		return COLFS_OK;
	}
	if (json_is_array(j)) {
		size_t nb = json_array_size(j);

		n = node_new(c->r, COLFS_AVRO_UNION, j);
		if (!n || !(n->s.branches = calloc(nb ? nb : 1,
						   sizeof *n->s.branches)))
			return colfs_fail(c->err, COLFS_ENOMEM, c->offset,
					  "no memory for the schema");
		if (nb == 0)
			return schema_fail(c, COLFS_ECORRUPT,
					   "a union without branches", NULL);
		n->s.n = nb;
		for (size_t i = 0; i < nb; i++) {
			COLFS_TRY(parse_type(c, json_array_get(j, i), ns,
					     depth + 1, &n->s.branches[i]));
			if (n->s.branches[i]->type == COLFS_AVRO_UNION)
				return schema_fail(c, COLFS_ECORRUPT,
						   "a union inside a union",
						   NULL);
		}
		n->s.min_size = UINT64_MAX;
		for (size_t i = 0; i < nb; i++)
			if (n->s.branches[i]->min_size < n->s.min_size)
				n->s.min_size = n->s.branches[i]->min_size;
		n->s.min_size = n->s.min_size == UINT64_MAX ? UINT64_MAX
							     : n->s.min_size + 1;
		*out = &n->s;
		return COLFS_OK;
	}
	if (!json_is_object(j))
		return schema_fail(c, COLFS_ECORRUPT,
				   "a type that is not a name, union or object",
				   NULL);
	t = json_string_value(json_object_get(j, "type"));
	if (!t)
		/* {"type": [..]} or {"type": {..}}: the inner type */
		return parse_type(c, json_object_get(j, "type"), ns, depth + 1,
				  out);
	for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++)
		if (strcmp(t, primitives[i].name) == 0) {
			n = node_new(c->r, primitives[i].type, j);
			if (!n)
				return colfs_fail(c->err, COLFS_ENOMEM,
						  c->offset,
						  "no memory for the schema");
			logical_set(&n->s, j);
			*out = &n->s;
			return COLFS_OK;
		}
	if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0) {
		COLFS_TRY(named_new(c, j, COLFS_AVRO_RECORD, ns, &n));
		*out = &n->s;
		return parse_record(c, j, ns, depth, n);
	}
	if (strcmp(t, "enum") == 0) {
		json_t *sym = json_object_get(j, "symbols");

		COLFS_TRY(named_new(c, j, COLFS_AVRO_ENUM, ns, &n));
		if (!json_is_array(sym) || json_array_size(sym) == 0)
			return schema_fail(c, COLFS_ECORRUPT,
					   "an enum without symbols",
					   n->fullname);
		n->s.n = json_array_size(sym);
		n->s.symbols = calloc(n->s.n, sizeof *n->s.symbols);
		if (!n->s.symbols)
			return colfs_fail(c->err, COLFS_ENOMEM, c->offset,
					  "no memory for the schema");
		for (size_t i = 0; i < n->s.n; i++) {
			n->s.symbols[i] =
				json_string_value(json_array_get(sym, i));
			if (!n->s.symbols[i])
				return schema_fail(c, COLFS_ECORRUPT,
						   "an enum symbol that is not a string",
						   n->fullname);
		}
		*out = &n->s;
		return COLFS_OK;
	}
	if (strcmp(t, "fixed") == 0) {
		json_t *size = json_object_get(j, "size");

		COLFS_TRY(named_new(c, j, COLFS_AVRO_FIXED, ns, &n));
		if (!json_is_integer(size) || json_integer_value(size) < 0)
			return schema_fail(c, COLFS_ECORRUPT,
					   "a fixed without a size",
					   n->fullname);
		n->s.size = (uint64_t)json_integer_value(size);
		n->s.min_size = n->s.size;
		logical_set(&n->s, j);
		*out = &n->s;
		return COLFS_OK;
	}
	if (strcmp(t, "array") == 0 || strcmp(t, "map") == 0) {
		bool arr = t[0] == 'a';

		n = node_new(c->r, arr ? COLFS_AVRO_ARRAY : COLFS_AVRO_MAP, j);
		if (!n)
			return colfs_fail(c->err, COLFS_ENOMEM, c->offset,
					  "no memory for the schema");
		*out = &n->s;
		return parse_type(c, json_object_get(j, arr ? "items" : "values"),
				  ns, depth + 1, &n->s.items);
	}
	*out = reference(c, t, ns);
	if (!*out)
		return schema_fail(c, COLFS_ECORRUPT, "an unknown type name", t);
	return COLFS_OK;
}

/* --- header -------------------------------------------------------------- */

static colfs_status read_long(colfs_cursor *c, int64_t *v, colfs_err *err)
{
	return colfs_cursor_svarint(c, v, err);
}

/* A count or length: negative is refused. */
static colfs_status read_len(colfs_cursor *c, const char *what, int64_t *v,
			     colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);

	COLFS_TRY(read_long(c, v, err));
	if (*v < 0)
		return colfs_fail(err, COLFS_ECORRUPT, at, "%s %lld is negative",
				  what, (long long)*v);
	return COLFS_OK;
}

static colfs_status read_bytes(colfs_cursor *c, const char *what,
			       const uint8_t **p, size_t *n, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	int64_t len;

	COLFS_TRY(read_len(c, what, &len, err));
	if ((uint64_t)len > colfs_cursor_left(c))
		return colfs_fail(err, COLFS_ETRUNCATED, at,
				  "%s of %lld bytes runs past the %zu bytes left",
				  what, (long long)len, colfs_cursor_left(c));
	*n = (size_t)len;
	return colfs_cursor_bytes(c, *n, p, err);
}

static colfs_status parse_header(colfs_avro_reader *r, colfs_cursor *c,
				 uint64_t *schema_at, colfs_err *err)
{
	const uint8_t *p;

	COLFS_TRY(colfs_cursor_bytes(c, 4, &p, err));
	if (memcmp(p, AVRO_MAGIC, 4) != 0)
		return colfs_fail(err, COLFS_ECORRUPT, r->start,
				  "not an Avro object container file (magic "
				  "%02x %02x %02x %02x, expected 4f 62 6a 01)",
				  p[0], p[1], p[2], p[3]);
	for (;;) {
		uint64_t at = colfs_cursor_offset(c);
		int64_t count, size;

		COLFS_TRY(read_long(c, &count, err));
		if (count == 0)
			break;
		if (count < 0) {
			if (count == INT64_MIN)
				return colfs_fail(err, COLFS_ECORRUPT, at,
						  "metadata count %lld is out of range",
						  (long long)count);
			count = -count;
			COLFS_TRY(read_len(c, "metadata block size", &size,
					   err));
		}
		if ((uint64_t)count > colfs_cursor_left(c) / 2)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "metadata count %lld is more than the "
					  "%zu bytes left can hold",
					  (long long)count, colfs_cursor_left(c));
		for (int64_t i = 0; i < count; i++) {
			const uint8_t *k, *v;
			size_t kn, vn;
			uint64_t vat;
			avro_meta *m;

			COLFS_TRY(read_bytes(c, "metadata key", &k, &kn, err));
			vat = colfs_cursor_offset(c);
			COLFS_TRY(read_bytes(c, "metadata value", &v, &vn, err));
			m = realloc(r->meta, (r->nmeta + 1) * sizeof *m);
			if (!m)
				return colfs_fail(err, COLFS_ENOMEM, at,
						  "no memory for the header");
			r->meta = m;
			m = &r->meta[r->nmeta];
			m->key = strndup((const char *)k, kn);
			m->val = malloc(vn + 1);
			if (!m->key || !m->val) {
				free(m->key);
				free(m->val);
				return colfs_fail(err, COLFS_ENOMEM, at,
						  "no memory for the header");
			}
			memcpy(m->val, v, vn);
			m->val[vn] = 0;
			m->n = vn;
			r->nmeta++;
			json_object_set_new(r->meta_json, m->key,
					    colfs_proto_json_text(v, vn));
			if (strcmp(m->key, "avro.schema") == 0)
				*schema_at = vat;
		}
	}
	COLFS_TRY(colfs_cursor_copy(c, r->sync, AVRO_SYNC, err));
	return COLFS_OK;
}

static colfs_status setup(colfs_avro_reader *r, uint64_t schema_at,
			  colfs_err *err)
{
	size_t n;
	const uint8_t *s = colfs_avro_meta(r, "avro.schema", &n);
	const uint8_t *codec = colfs_avro_meta(r, "avro.codec", NULL);
	json_error_t je;
	schema_ctx c = { r, schema_at, err };

	if (!s)
		return colfs_fail(err, COLFS_ECORRUPT, r->start,
				  "the header has no avro.schema");
	r->schema_doc = json_loadb((const char *)s, n,
				   JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
	if (!r->schema_doc)
		return colfs_fail(err, COLFS_ECORRUPT, schema_at,
				  "avro.schema is not JSON: %s (line %d, "
				  "column %d)", je.text, je.line, je.column);
	COLFS_TRY(parse_type(&c, r->schema_doc, NULL, 0, &r->root));
	if (!codec || strcmp((const char *)codec, "null") == 0)
		r->codec = AVRO_CODEC_NULL;
	else if (strcmp((const char *)codec, "deflate") == 0)
		r->codec = AVRO_CODEC_DEFLATE;
	else if (strcmp((const char *)codec, "snappy") == 0)
		r->codec = AVRO_CODEC_SNAPPY;
	else if (strcmp((const char *)codec, "zstandard") == 0)
		r->codec = AVRO_CODEC_ZSTD;
	else
		return colfs_fail(err, COLFS_EUNSUPPORTED, r->start,
				  "avro.codec \"%.64s\" is not supported "
				  "(null, deflate, snappy, zstandard are)",
				  (const char *)codec);
	return COLFS_OK;
}

colfs_status colfs_avro_open(const colfs_source *src, uint64_t offset,
			     uint64_t len, uint64_t max_alloc,
			     colfs_avro_reader **out, colfs_err *err)
{
	colfs_avro_reader *r;
	uint64_t window, schema_at = offset;
	colfs_status st;

	*out = NULL;
	if (offset > colfs_source_size(src) ||
	    len > colfs_source_size(src) - offset)
		return colfs_fail(err, COLFS_EBOUNDS, offset,
				  "Avro container of %llu bytes is not inside "
				  "the file", (unsigned long long)len);
	r = calloc(1, sizeof *r);
	if (!r || !(r->meta_json = json_object()) ||
	    !(r->names = json_object())) {
		if (r)
			json_decref(r->meta_json);
		free(r);
		return colfs_fail(err, COLFS_ENOMEM, offset,
				  "no memory for the Avro reader");
	}
	r->src = src;
	r->start = offset;
	r->end = offset + len;
	r->max_alloc = max_alloc ? max_alloc : AVRO_DEFAULT_MAX_ALLOC;
	/* the header's length is known only once it is parsed: a window
	 * that turns out too short is read again, larger */
	window = len < AVRO_HEADER_WINDOW ? len : AVRO_HEADER_WINDOW;
	if (window > r->max_alloc)
		window = r->max_alloc;
	for (;;) {
		uint8_t *buf = NULL;
		colfs_cursor c;

		st = colfs_source_read_region(src, offset, window, r->max_alloc,
					      &buf, err);
		if (st)
			break;
		colfs_cursor_init(&c, buf, (size_t)window, offset);
		for (size_t i = 0; i < r->nmeta; i++) {
			free(r->meta[i].key);
			free(r->meta[i].val);
		}
		r->nmeta = 0;
		json_object_clear(r->meta_json);
		st = parse_header(r, &c, &schema_at, err);
		r->pos = colfs_cursor_offset(&c);
		free(buf);
		if (st != COLFS_ETRUNCATED || window == len)
			break;
		window = window * 4 < len ? window * 4 : len;
		if (window > r->max_alloc)
			window = r->max_alloc + 1; /* fails as too large */
	}
	if (st == COLFS_OK)
		st = setup(r, schema_at, err);
	if (st) {
		colfs_avro_close(r);
		return st;
	}
	*out = r;
	return COLFS_OK;
}

colfs_status colfs_avro_open_memory(const void *data, size_t len,
				    uint64_t max_alloc,
				    colfs_avro_reader **out, colfs_err *err)
{
	colfs_source *src;
	colfs_status st = colfs_source_create_memory(data, len, &src);

	*out = NULL;
	if (st)
		return colfs_fail(err, st, 0, "no memory for the Avro source");
	st = colfs_avro_open(src, 0, len, max_alloc, out, err);
	if (st) {
		colfs_source_destroy(src);
		return st;
	}
	(*out)->own_src = src;
	return COLFS_OK;
}

static void arena_reset(colfs_avro_reader *r, bool all)
{
	arena_chunk *keep = NULL;

	while (r->arena) {
		arena_chunk *next = r->arena->next;

		if (!all && !keep && r->arena->cap == AVRO_ARENA_CHUNK) {
			keep = r->arena;
			keep->used = 0;
			keep->next = NULL;
		} else {
			free(r->arena);
		}
		r->arena = next;
	}
	r->arena = keep;
	r->used = 0;
}

void colfs_avro_close(colfs_avro_reader *r)
{
	if (!r)
		return;
	arena_reset(r, true);
	for (size_t i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].val);
	}
	free(r->meta);
	json_decref(r->meta_json);
	json_decref(r->names);
	nodes_free(r->nodes);
	json_decref(r->schema_doc);
	free(r->raw);
	free(r->dec);
	if (r->own_src)
		colfs_source_destroy(r->own_src);
	free(r);
}

const colfs_avro_schema *colfs_avro_schema_root(const colfs_avro_reader *r)
{
	return r->root;
}

json_t *colfs_avro_schema_json(const colfs_avro_reader *r)
{
	return r->schema_doc;
}

const char *colfs_avro_codec(const colfs_avro_reader *r)
{
	static const char *names[] = { "null", "deflate", "snappy",
				       "zstandard" };
	return names[r->codec];
}

json_t *colfs_avro_metadata(const colfs_avro_reader *r)
{
	return r->meta_json;
}

const uint8_t *colfs_avro_meta(const colfs_avro_reader *r, const char *key,
			       size_t *n)
{
	for (size_t i = 0; i < r->nmeta; i++)
		if (strcmp(r->meta[i].key, key) == 0) {
			if (n)
				*n = r->meta[i].n;
			return r->meta[i].val;
		}
	return NULL;
}

uint64_t colfs_avro_records(const colfs_avro_reader *r)
{
	return r->records;
}

uint64_t colfs_avro_blocks(const colfs_avro_reader *r)
{
	return r->blocks;
}

/* --- values -------------------------------------------------------------- */

static void *arena_alloc(colfs_avro_reader *r, uint64_t n, uint64_t at,
			 colfs_err *err)
{
	arena_chunk *c = r->arena;
	size_t need;
	void *p;

	n = (n + 15) & ~(uint64_t)15;
	if (n > r->budget || r->used > r->budget - n) {
		colfs_fail(err, COLFS_EOVERFLOW, at,
			   "a record's values need more than %llu bytes of "
			   "memory", (unsigned long long)r->budget);
		return NULL;
	}
	need = (size_t)n;
	if (!c || c->cap - c->used < need) {
		size_t cap = need > AVRO_ARENA_CHUNK ? need : AVRO_ARENA_CHUNK;

		c = malloc(sizeof *c + cap);
		if (!c) {
			colfs_fail(err, COLFS_ENOMEM, at,
				   "no memory for a record's values");
			return NULL;
		}
		c->cap = cap;
		c->used = 0;
		c->next = r->arena;
		r->arena = c;
	}
	p = (uint8_t *)c->data + c->used;
	c->used += need;
	r->used += n;
	memset(p, 0, need);
	return p;
}

static colfs_status decode(colfs_avro_reader *r, colfs_cursor *c,
			   const colfs_avro_schema *s, colfs_avro_value *v,
			   unsigned depth, colfs_err *err);

/* The type of map keys. */
static const colfs_avro_schema avro_key_type = {
	.type = COLFS_AVRO_STRING, .min_size = 1,
};

/* The items of an array or map: blocks of a count (negative: its
 * absolute value, then the block's byte size) until a count of 0. */
static colfs_status decode_items(colfs_avro_reader *r, colfs_cursor *c,
				 const colfs_avro_schema *s,
				 colfs_avro_value *v, unsigned depth,
				 colfs_err *err)
{
	bool map = s->type == COLFS_AVRO_MAP;
	uint64_t item_min = s->items->min_size;

	if (map && item_min < UINT64_MAX)
		item_min++; /* the key's length */

	v->n = 0;
	for (;;) {
		uint64_t at = colfs_cursor_offset(c), total;
		int64_t count, size;
		colfs_avro_value *items, *keys = NULL;

		COLFS_TRY(read_long(c, &count, err));
		if (count == 0)
			return COLFS_OK;
		if (count < 0) {
			if (count == INT64_MIN)
				return colfs_fail(err, COLFS_ECORRUPT, at,
						  "%s count %lld is out of range",
						  map ? "map" : "array",
						  (long long)count);
			count = -count;
			COLFS_TRY(read_len(c, map ? "map block size"
						  : "array block size",
					   &size, err));
		}
		if (item_min && (uint64_t)count > colfs_cursor_left(c) / item_min)
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "%s count %lld is more than the %zu "
					  "bytes left can hold",
					  map ? "map" : "array",
					  (long long)count, colfs_cursor_left(c));
		if (colfs_add_overflows(v->n, (uint64_t)count, &total) ||
		    colfs_mul_overflows(total, sizeof *items, &total))
			return colfs_fail(err, COLFS_EOVERFLOW, at,
					  "%s count %lld is out of range",
					  map ? "map" : "array",
					  (long long)count);
		items = arena_alloc(r, total, at, err);
		if (!items)
			return err->status;
		if (map && !(keys = arena_alloc(r, total, at, err)))
			return err->status;
		if (v->n) {
			memcpy(items, v->items, v->n * sizeof *items);
			if (map)
				memcpy(keys, v->keys, v->n * sizeof *keys);
		}
		v->items = items;
		v->keys = keys;
		for (int64_t i = 0; i < count; i++) {
			if (map) {
				keys[v->n].type = &avro_key_type;
				keys[v->n].branch = -1;
				COLFS_TRY(read_bytes(c, "map key",
						     &keys[v->n].p,
						     &keys[v->n].n, err));
			}
			COLFS_TRY(decode(r, c, s->items, &items[v->n],
					 depth + 1, err));
			v->n++;
		}
	}
}

static colfs_status decode(colfs_avro_reader *r, colfs_cursor *c,
			   const colfs_avro_schema *s, colfs_avro_value *v,
			   unsigned depth, colfs_err *err)
{
	uint64_t at = colfs_cursor_offset(c);
	int64_t l;
	uint8_t b;

	if (depth > COLFS_AVRO_MAX_DEPTH)
		return colfs_fail(err, COLFS_EOVERFLOW, at,
				  "values nested deeper than %d",
				  COLFS_AVRO_MAX_DEPTH);
	v->type = s;
	v->branch = -1;
	switch (s->type) {
	case COLFS_AVRO_NULL:
		return COLFS_OK;
	case COLFS_AVRO_BOOLEAN:
		COLFS_TRY(colfs_cursor_u8(c, &b, err));
		if (b > 1)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "boolean byte %u is neither 0 nor 1",
					  b);
		v->b = b;
		return COLFS_OK;
	case COLFS_AVRO_INT:
	case COLFS_AVRO_LONG:
		COLFS_TRY(read_long(c, &l, err));
		if (s->type == COLFS_AVRO_INT && (l < INT32_MIN || l > INT32_MAX))
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "int %lld is out of range",
					  (long long)l);
		v->l = l;
		return COLFS_OK;
	case COLFS_AVRO_FLOAT: {
		uint32_t u;
		float f;

		COLFS_TRY(colfs_cursor_u32le(c, &u, err));
		memcpy(&f, &u, 4);
		v->d = f;
		return COLFS_OK;
	}
	case COLFS_AVRO_DOUBLE: {
		uint64_t u;

		COLFS_TRY(colfs_cursor_u64le(c, &u, err));
		memcpy(&v->d, &u, 8);
		return COLFS_OK;
	}
	case COLFS_AVRO_BYTES:
	case COLFS_AVRO_STRING:
		return read_bytes(c, s->type == COLFS_AVRO_BYTES ? "bytes"
								  : "string",
				  &v->p, &v->n, err);
	case COLFS_AVRO_FIXED:
		if (s->size > colfs_cursor_left(c))
			return colfs_fail(err, COLFS_ETRUNCATED, at,
					  "fixed of %llu bytes runs past the "
					  "%zu bytes left",
					  (unsigned long long)s->size,
					  colfs_cursor_left(c));
		v->n = (size_t)s->size;
		return colfs_cursor_bytes(c, v->n, &v->p, err);
	case COLFS_AVRO_ENUM:
		COLFS_TRY(read_long(c, &l, err));
		if (l < 0 || (uint64_t)l >= s->n)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "enum index %lld is not one of the "
					  "%zu symbols of %s", (long long)l,
					  s->n, s->name);
		v->l = l;
		return COLFS_OK;
	case COLFS_AVRO_UNION:
		COLFS_TRY(read_long(c, &l, err));
		if (l < 0 || (uint64_t)l >= s->n)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "union branch %lld is not one of its "
					  "%zu", (long long)l, s->n);
		COLFS_TRY(decode(r, c, s->branches[l], v, depth + 1, err));
		v->branch = (int32_t)l;
		return COLFS_OK;
	case COLFS_AVRO_RECORD:
		v->n = s->n;
		v->items = arena_alloc(r, (uint64_t)s->n * sizeof *v->items, at,
				       err);
		if (!v->items)
			return err->status;
		for (size_t i = 0; i < s->n; i++)
			COLFS_TRY(decode(r, c, s->fields[i].type, &v->items[i],
					 depth + 1, err));
		return COLFS_OK;
	case COLFS_AVRO_ARRAY:
	case COLFS_AVRO_MAP:
		return decode_items(r, c, s, v, depth, err);
	}
	return colfs_fail(err, COLFS_ECORRUPT, at, "unknown Avro type");
}

/* --- blocks -------------------------------------------------------------- */

/* Decompress into r->dec with a capacity that grows (by four) up to
 * max_alloc, for codecs whose output size is not declared. */
static colfs_status inflate_grow(colfs_avro_reader *r, colfs_codec codec,
				 const uint8_t *in, size_t n, uint64_t first,
				 uint64_t at, size_t *out_len, colfs_err *err)
{
	uint64_t cap = first;

	for (;;) {
		colfs_status st;
		uint8_t *d;

		if (cap > r->max_alloc)
			cap = r->max_alloc;
		d = realloc(r->dec, cap ? (size_t)cap : 1);
		if (!d)
			return colfs_fail(err, COLFS_ENOMEM, at,
					  "no memory for a block of %llu bytes",
					  (unsigned long long)cap);
		r->dec = d;
		st = colfs_codec_decompress(codec, in, n, d, (size_t)cap,
					    out_len, at, err);
		if (st != COLFS_EOVERFLOW)
			return st;
		if (cap >= r->max_alloc)
			return colfs_fail(err, COLFS_EOVERFLOW, at,
					  "block decompresses to more than "
					  "max_alloc (%llu bytes)",
					  (unsigned long long)r->max_alloc);
		cap *= 4;
	}
}

/* deflate: raw deflate, as zlib's inflate with -15 window bits.  Writers
 * leave bytes after the end of the stream (Python's avro keeps three of
 * the zlib trailer's Adler-32, as Java's did): they are ignored, as
 * those readers ignore them.  The output grows by four up to
 * max_alloc. */
static colfs_status avro_inflate(colfs_avro_reader *r, size_t n,
				 uint64_t first, uint64_t at, size_t *out_len,
				 colfs_err *err)
{
	z_stream zs;
	uint64_t cap = first > r->max_alloc ? r->max_alloc : first;
	colfs_status st = COLFS_OK;
	int zr;

	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, -15) != Z_OK)
		return colfs_fail(err, COLFS_ENOMEM, at,
				  "no memory for inflate");
	zs.next_in = r->raw;
	zs.avail_in = (uInt)n;
	for (;;) {
		uint8_t *d = realloc(r->dec, cap ? (size_t)cap : 1);

		if (!d) {
			st = colfs_fail(err, COLFS_ENOMEM, at,
					"no memory for a block of %llu bytes",
					(unsigned long long)cap);
			break;
		}
		r->dec = d;
		zs.next_out = d + zs.total_out;
		zs.avail_out = cap - zs.total_out > UINT32_MAX ?
			       UINT32_MAX : (uInt)(cap - zs.total_out);
		zr = inflate(&zs, Z_FINISH);
		if (zr == Z_STREAM_END)
			break;
		if ((zr == Z_BUF_ERROR || zr == Z_OK) && zs.total_out == cap) {
			if (cap >= r->max_alloc) {
				st = colfs_fail(err, COLFS_EOVERFLOW, at,
						"block decompresses to more "
						"than max_alloc (%llu bytes)",
						(unsigned long long)r->max_alloc);
				break;
			}
			cap = cap * 4 > r->max_alloc ? r->max_alloc : cap * 4;
			continue;
		}
		st = colfs_fail(err, COLFS_ECORRUPT, at,
				"deflate block is not a valid raw deflate "
				"stream (%s, at compressed byte %lu)",
				zr == Z_BUF_ERROR ? "cut short" :
				zs.msg ? zs.msg : "zlib error",
				(unsigned long)zs.total_in);
		break;
	}
	*out_len = (size_t)zs.total_out;
	inflateEnd(&zs);
	return st;
}

static colfs_status block_decompress(colfs_avro_reader *r, size_t n,
				     uint64_t at, colfs_cursor *out,
				     colfs_err *err)
{
	size_t dn = 0;
	uint64_t first = (uint64_t)n * 4 < 4096 ? 4096 : (uint64_t)n * 4;

	switch (r->codec) {
	case AVRO_CODEC_NULL:
		colfs_cursor_init(out, r->raw, n, at);
		return COLFS_OK;
	case AVRO_CODEC_DEFLATE:
		COLFS_TRY(avro_inflate(r, n, first, at, &dn, err));
		break;
	case AVRO_CODEC_ZSTD: {
		unsigned long long fs = ZSTD_getFrameContentSize(r->raw, n);

		if (fs != ZSTD_CONTENTSIZE_UNKNOWN &&
		    fs != ZSTD_CONTENTSIZE_ERROR) {
			if (fs > r->max_alloc)
				return colfs_fail(err, COLFS_EOVERFLOW, at,
						  "zstd block declares %llu "
						  "bytes, more than max_alloc "
						  "(%llu)", fs,
						  (unsigned long long)r->max_alloc);
			first = fs ? fs : 1;
		}
		COLFS_TRY(inflate_grow(r, COLFS_CODEC_ZSTD, r->raw, n, first,
				       at, &dn, err));
		break;
	}
	case AVRO_CODEC_SNAPPY: {
		size_t declared;
		uint8_t *d;

		if (n < 4)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "snappy block of %zu bytes has no "
					  "room for its CRC-32", n);
		if (snappy_uncompressed_length((const char *)r->raw, n - 4,
					       &declared) != SNAPPY_OK)
			return colfs_fail(err, COLFS_ECORRUPT, at,
					  "snappy block has no valid length");
		if (declared > r->max_alloc)
			return colfs_fail(err, COLFS_EOVERFLOW, at,
					  "snappy block declares %zu bytes, "
					  "more than max_alloc (%llu)",
					  declared,
					  (unsigned long long)r->max_alloc);
		d = realloc(r->dec, declared ? declared : 1);
		if (!d)
			return colfs_fail(err, COLFS_ENOMEM, at,
					  "no memory for a block of %zu bytes",
					  declared);
		r->dec = d;
		COLFS_TRY(colfs_codec_decompress(COLFS_CODEC_SNAPPY, r->raw,
						 n - 4, d, declared, &dn, at,
						 err));
		if (colfs_crc32(0, d, dn) != colfs_be32(r->raw + n - 4))
			return colfs_fail(err, COLFS_ECORRUPT, at + n - 4,
					  "snappy block CRC-32 %08x, its "
					  "data's is %08x",
					  colfs_be32(r->raw + n - 4),
					  colfs_crc32(0, d, dn));
		break;
	}
	}
	colfs_cursor_init_virtual(out, r->dec, dn, at);
	return COLFS_OK;
}

/* Read the next block's header, data and sync marker; COLFS_END at the
 * end of the container. */
static colfs_status block_next(colfs_avro_reader *r, colfs_err *err)
{
	uint8_t hdr[20];
	size_t got;
	colfs_cursor c;
	int64_t count, size;
	uint64_t at = r->pos, data_at, left;
	uint8_t sync[AVRO_SYNC];
	colfs_status st;

	if (r->pos >= r->end)
		return COLFS_END;
	COLFS_TRY(colfs_source_pread(r->src, at,
				     r->end - at < sizeof hdr ? r->end - at
							      : sizeof hdr,
				     hdr, &got, err));
	colfs_cursor_init(&c, hdr, got, at);
	st = read_long(&c, &count, err);
	if (!st)
		st = read_long(&c, &size, err);
	if (st == COLFS_ETRUNCATED)
		return colfs_fail(err, COLFS_ETRUNCATED, at,
				  "block header cut short (%zu bytes left)",
				  got);
	if (st)
		return st;
	if (count < 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "block record count %lld is negative",
				  (long long)count);
	if (size < 0)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "block size %lld is negative",
				  (long long)size);
	data_at = colfs_cursor_offset(&c);
	left = r->end - data_at;
	if ((uint64_t)size > left || left - (uint64_t)size < AVRO_SYNC)
		return colfs_fail(err, COLFS_ETRUNCATED, at,
				  "block of %lld bytes and its sync marker "
				  "run past the %llu bytes left",
				  (long long)size, (unsigned long long)left);
	free(r->raw);
	r->raw = NULL;
	COLFS_TRY(colfs_source_read_region(r->src, data_at, (uint64_t)size,
					   r->max_alloc, &r->raw, err));
	COLFS_TRY(colfs_source_read_at(r->src, data_at + (uint64_t)size,
				       AVRO_SYNC, sync, err));
	if (memcmp(sync, r->sync, AVRO_SYNC) != 0)
		return colfs_fail(err, COLFS_ECORRUPT, data_at + (uint64_t)size,
				  "sync marker after the block at offset %llu "
				  "differs from the header's",
				  (unsigned long long)at);
	COLFS_TRY(block_decompress(r, (size_t)size, data_at, &r->cur, err));
	if (r->root->min_size ?
	    (uint64_t)count > colfs_cursor_left(&r->cur) / r->root->min_size :
	    (uint64_t)count > COLFS_AVRO_MAX_EMPTY_RECORDS)
		return colfs_fail(err, COLFS_ECORRUPT, at,
				  "block record count %lld is more than its "
				  "%zu bytes can hold", (long long)count,
				  colfs_cursor_left(&r->cur));
	r->budget = (uint64_t)colfs_cursor_left(&r->cur) * 64 + (1u << 20);
	if (r->budget > r->max_alloc)
		r->budget = r->max_alloc;
	r->block_off = at;
	r->left = count;
	r->in_block = true;
	r->pos = data_at + (uint64_t)size + AVRO_SYNC;
	r->blocks++;
	return COLFS_OK;
}

static colfs_status next_record(colfs_avro_reader *r, colfs_err *err)
{
	while (!r->in_block || r->left == 0) {
		if (r->in_block && colfs_cursor_left(&r->cur))
			return colfs_fail(err, COLFS_ECORRUPT,
					  colfs_cursor_offset(&r->cur),
					  "%zu bytes after the last record of "
					  "the block at offset %llu",
					  colfs_cursor_left(&r->cur),
					  (unsigned long long)r->block_off);
		r->in_block = false;
		COLFS_TRY(block_next(r, err));
	}
	arena_reset(r, false);
	memset(&r->val, 0, sizeof r->val);
	COLFS_TRY(decode(r, &r->cur, r->root, &r->val, 0, err));
	r->left--;
	r->records++;
	return COLFS_OK;
}

colfs_status colfs_avro_next(colfs_avro_reader *r,
			     const colfs_avro_value **out, uint64_t *offset,
			     colfs_err *err)
{
	colfs_status st;

	*out = NULL;
	if (r->failed.status) {
		if (err)
			*err = r->failed;
		return r->failed.status;
	}
	st = next_record(r, err ? err : &r->failed);
	if (st == COLFS_END)
		return st;
	if (st) {
		if (err)
			r->failed = *err;
		else if (!r->failed.status)
			r->failed.status = st;
		return st;
	}
	*out = &r->val;
	if (offset)
		*offset = r->block_off;
	return COLFS_OK;
}

/* --- access and JSON ---------------------------------------------------- */

const colfs_avro_value *colfs_avro_field_by_name(const colfs_avro_value *rec,
					 const char *name)
{
	if (!rec || rec->type->type != COLFS_AVRO_RECORD)
		return NULL;
	for (size_t i = 0; i < rec->type->n; i++)
		if (strcmp(rec->type->fields[i].name, name) == 0)
			return &rec->items[i];
	return NULL;
}

const colfs_avro_value *colfs_avro_field_by_id(const colfs_avro_value *rec,
					    int64_t id)
{
	if (!rec || rec->type->type != COLFS_AVRO_RECORD)
		return NULL;
	for (size_t i = 0; i < rec->type->n; i++)
		if (rec->type->fields[i].has_id &&
		    rec->type->fields[i].id == id)
			return &rec->items[i];
	return NULL;
}

const char *colfs_avro_symbol(const colfs_avro_value *v)
{
	if (!v || v->type->type != COLFS_AVRO_ENUM)
		return NULL;
	return v->type->symbols[v->l];
}

static json_t *json_rendered(const colfs_avro_value *v)
{
	colfs_buf b = { 0 };
	json_t *j;
	const colfs_avro_schema *s = v->type;

	if (s->logical == COLFS_AVRO_LOGICAL_DECIMAL)
		colfs_render_decimal_be(&b, &colfs_render_text_default, v->p,
					v->n, s->scale);
	else if (s->logical == COLFS_AVRO_LOGICAL_UUID)
		colfs_render_uuid(&b, &colfs_render_text_default, v->p);
	else
		colfs_render_binary(&b, &colfs_render_text_default, v->p, v->n);
	if (colfs_buf_status(&b)) {
		colfs_buf_free(&b);
		return NULL;
	}
	j = json_stringn(b.data ? b.data : "", b.len);
	colfs_buf_free(&b);
	return j;
}

static json_t *json_double(double d)
{
	if (d != d)
		return json_string("nan");
	if (d > 1.7976931348623157e308)
		return json_string("inf");
	if (d < -1.7976931348623157e308)
		return json_string("-inf");
	return json_real(d);
}

json_t *colfs_avro_json(const colfs_avro_value *v)
{
	const colfs_avro_schema *s = v->type;
	json_t *j;

	switch (s->type) {
	case COLFS_AVRO_NULL: return json_null();
	case COLFS_AVRO_BOOLEAN: return json_boolean(v->b);
	case COLFS_AVRO_INT:
	case COLFS_AVRO_LONG: return json_integer(v->l);
	case COLFS_AVRO_FLOAT:
	case COLFS_AVRO_DOUBLE: return json_double(v->d);
	case COLFS_AVRO_STRING: return colfs_proto_json_text(v->p, v->n);
	case COLFS_AVRO_BYTES:
	case COLFS_AVRO_FIXED: return json_rendered(v);
	case COLFS_AVRO_ENUM: return json_string(s->symbols[v->l]);
	case COLFS_AVRO_UNION: return NULL; /* values hold their branch */
	case COLFS_AVRO_RECORD:
		j = json_object();
		for (size_t i = 0; j && i < v->n; i++)
			if (json_object_set_new(j, s->fields[i].name,
						colfs_avro_json(&v->items[i]))) {
				json_decref(j);
				return NULL;
			}
		return j;
	case COLFS_AVRO_ARRAY:
		j = json_array();
		for (size_t i = 0; j && i < v->n; i++)
			if (json_array_append_new(j,
						  colfs_avro_json(&v->items[i]))) {
				json_decref(j);
				return NULL;
			}
		return j;
	case COLFS_AVRO_MAP:
		j = json_object();
		for (size_t i = 0; j && i < v->n; i++) {
			/* keys as text, as strings are (UTF-8 kept, other
			 * bytes and NUL as \xHH) */
			json_t *k = colfs_proto_json_text(v->keys[i].p,
							  v->keys[i].n);

			if (!k || json_object_set_new(j, json_string_value(k),
					colfs_avro_json(&v->items[i]))) {
				json_decref(k);
				json_decref(j);
				return NULL;
			}
			json_decref(k);
		}
		return j;
	}
	return NULL;
}

/* colfs: how a table's fields are found in a file (dataset_members.h):
 * field ids, and a nested value read through a table's name mapping
 * (the members of each struct as the table names them, found in the
 * file's value by the names the mapping gives). */
#include "dataset_members.h"
#include "dataset_jsonl.h"
#include "../core/names.h"
#include "../core/render.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DS_MEMBERS_MAX_DEPTH 64

bool ds_field_id(json_t *child, int64_t *id)
{
	json_t *fid = json_object_get(child, "field_id");
	const char *a = json_string_value(json_object_get(
		json_object_get(child, "attributes"), "iceberg.id"));
	if (json_is_integer(fid)) {
		*id = json_integer_value(fid);
		return true;
	}
	if (!a || *a < '0' || *a > '9')
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(a, &end, 10);
	if (*end || errno || v > INT32_MAX)
		return false;
	*id = v;
	return true;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The end of the JSON value starting at s[i] (strings, brackets and
 * braces matched; a scalar ends at ',', ']' or '}'); len when it runs
 * past the text. */
static size_t value_end(const char *s, size_t i, size_t len)
{
	size_t depth = 0;
	while (i < len) {
		char c = s[i];
		if (c == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= len)
				return len;
			i++;
			if (!depth)
				return i;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (!depth && (c == ',' || space(c))) {
			return i;
		}
		i++;
	}
	return depth ? len : i;
}

/* The members of the object at p (n bytes), in a growing array. */
static bool members(const char *p, size_t n, ds_member **m, size_t *cap,
		    size_t *nm)
{
	if (!*m) {
		*cap = 8;
		if (!(*m = malloc(*cap * sizeof **m)))
			return false;
	}
	while (!ds_jsonl_members(p, n, *m, *cap, nm)) {
		if (*nm < *cap)
			return false;
		ds_member *g = realloc(*m, 2 * *cap * sizeof *g);
		if (!g)
			return false;
		*m = g;
		*cap *= 2;
	}
	return true;
}

static bool apply(colfs_buf *out, const char *p, size_t n, const json_t *node,
		  int depth);

/* A struct: the table's members in its order, each the file's member of
 * one of its mapped names (its value mapped in turn), else null. */
static bool apply_struct(colfs_buf *out, const char *p, size_t n,
			 const json_t *list, int depth)
{
	ds_member *m = NULL;
	size_t cap = 0, nm = 0, i;
	const json_t *e;
	colfs_buf key = COLFS_BUF_INIT;
	bool ok = members(p, n, &m, &cap, &nm);

	colfs_buf_putc(out, '{');
	json_array_foreach(list, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const json_t *names = json_object_get(e, "names"), *fn;
		const ds_member *hit = NULL;
		size_t k;
		if (!ok || !name)
			break;
		json_array_foreach(names, k, fn) {
			key.len = 0;
			const char *s = json_string_value(fn);
			if (!s)
				continue;
			colfs_render_json_string(&key, (const uint8_t *)s,
						 strlen(s));
			for (size_t j = 0; !hit && j < nm && !colfs_buf_status(&key); j++)
				if (m[j].key_len == key.len &&
				    !memcmp(m[j].key, key.data, key.len))
					hit = &m[j];
			if (hit)
				break;
		}
		if (i)
			colfs_buf_putc(out, ',');
		colfs_render_json_string(out, (const uint8_t *)name,
					 strlen(name));
		colfs_buf_putc(out, ':');
		if (hit)
			ok = apply(out, hit->val, hit->val_len,
				   json_object_get(e, "node"), depth + 1);
		else
			colfs_buf_puts(out, "null");
	}
	colfs_buf_putc(out, '}');
	colfs_buf_free(&key);
	free(m);
	return ok;
}

/* A map: its keys as they are, each value mapped. */
static bool apply_map(colfs_buf *out, const char *p, size_t n,
		      const json_t *node, int depth)
{
	ds_member *m = NULL;
	size_t cap = 0, nm = 0;
	bool ok = members(p, n, &m, &cap, &nm);

	colfs_buf_putc(out, '{');
	for (size_t j = 0; ok && j < nm; j++) {
		if (j)
			colfs_buf_putc(out, ',');
		colfs_buf_append(out, m[j].key, m[j].key_len);
		colfs_buf_putc(out, ':');
		ok = apply(out, m[j].val, m[j].val_len, node, depth + 1);
	}
	colfs_buf_putc(out, '}');
	free(m);
	return ok;
}

/* A list: each element mapped. */
static bool apply_list(colfs_buf *out, const char *p, size_t n,
		       const json_t *node, int depth)
{
	size_t i = 1;
	bool first = true;

	colfs_buf_putc(out, '[');
	for (;;) {
		while (i < n && space(p[i]))
			i++;
		if (i >= n)
			return false;
		if (p[i] == ']')
			break;
		if (!first) {
			if (p[i] != ',')
				return false;
			for (i++; i < n && space(p[i]); i++)
				;
			colfs_buf_putc(out, ',');
		}
		size_t e = value_end(p, i, n);
		if (e >= n || e == i)
			return false;
		if (!apply(out, p + i, e - i, node, depth + 1))
			return false;
		first = false;
		i = e;
	}
	colfs_buf_putc(out, ']');
	return true;
}

static bool apply(colfs_buf *out, const char *p, size_t n, const json_t *node,
		  int depth)
{
	while (n && space(*p)) {
		p++;
		n--;
	}
	while (n && space(p[n - 1]))
		n--;
	const json_t *s = json_object_get(node, "struct");
	const json_t *l = json_object_get(node, "list");
	const json_t *mp = json_object_get(node, "map");
	if (!node || (n == 4 && !memcmp(p, "null", 4))) {
		colfs_buf_append(out, p, n);
		return true;
	}
	if (depth > DS_MEMBERS_MAX_DEPTH || !n)
		return false;
	if (s)
		return p[0] == '{' && apply_struct(out, p, n, s, depth);
	if (mp)
		return p[0] == '{' && apply_map(out, p, n, mp, depth);
	if (l)
		return p[0] == '[' && p[n - 1] == ']' &&
		       apply_list(out, p, n, l, depth);
	colfs_buf_append(out, p, n);
	return true;
}

bool ds_members_apply(colfs_buf *out, const char *p, size_t n,
		      const json_t *node)
{
	return apply(out, p, n, node, 0);
}

/* The names a mapping entry gives (its "names"), as a JSON array. */
static json_t *entry_of(const json_t *mapping, int64_t id)
{
	size_t i;
	const json_t *e;
	json_array_foreach(mapping, i, e) {
		json_t *fid = json_object_get(e, "field-id");
		if (json_is_integer(fid) && json_integer_value(fid) == id)
			return (json_t *)e;
	}
	return NULL;
}

static json_t *build(const json_t *type, const json_t *mapping, int depth)
{
	const char *kind = json_string_value(json_object_get(type, "type"));
	/* no nested fields in the mapping: the file's members as they are */
	if (!kind || !json_is_object(type) || !json_is_array(mapping) ||
	    depth > DS_MEMBERS_MAX_DEPTH)
		return NULL;
	if (!strcmp(kind, "struct")) {
		json_t *list = json_array(), *f;
		size_t i;
		if (!list)
			return NULL;
		json_array_foreach(json_object_get(type, "fields"), i, f) {
			json_t *id = json_object_get(f, "id");
			json_t *name = json_object_get(f, "name");
			json_t *e = json_is_integer(id)
				? entry_of(mapping, json_integer_value(id)) : NULL;
			json_t *names = json_object_get(e, "names");
			if (!json_is_string(name)) {
				json_decref(list);
				return NULL;
			}
			json_t *sub = build(json_object_get(f, "type"),
					    json_object_get(e, "fields"), depth + 1);
			json_t *o = json_pack("{s:O, s:o, s:o*}", "name", name,
					      "names", json_is_array(names)
						       ? json_incref(names)
						       : json_array(),
					      "node", sub);
			if (!o || json_array_append_new(list, o)) {
				json_decref(list);
				return NULL;
			}
		}
		return json_pack("{s:o}", "struct", list);
	}
	if (!strcmp(kind, "list")) {
		json_t *id = json_object_get(type, "element-id");
		json_t *e = json_is_integer(id)
			? entry_of(mapping, json_integer_value(id)) : NULL;
		json_t *sub = build(json_object_get(type, "element"),
				    json_object_get(e, "fields"), depth + 1);
		return sub ? json_pack("{s:o}", "list", sub) : NULL;
	}
	if (!strcmp(kind, "map")) {
		json_t *id = json_object_get(type, "value-id");
		json_t *e = json_is_integer(id)
			? entry_of(mapping, json_integer_value(id)) : NULL;
		json_t *sub = build(json_object_get(type, "value"),
				    json_object_get(e, "fields"), depth + 1);
		return sub ? json_pack("{s:o}", "map", sub) : NULL;
	}
	return NULL;
}

json_t *ds_members_map(const json_t *type, const json_t *mapping)
{
	return build(type, mapping, 0);
}

char *ds_members_leaf(const json_t *node, const char *rest)
{
	colfs_buf out = COLFS_BUF_INIT;
	while (*rest == '.') {
		const char *comp = rest + 1, *dot = strchr(comp, '.');
		size_t cl = dot ? (size_t)(dot - comp) : strlen(comp);
		const json_t *list = json_object_get(node, "struct"), *e;
		const json_t *hit = NULL;
		size_t i, k;
		json_array_foreach(list, i, e) {
			const json_t *fn;
			json_array_foreach(json_object_get(e, "names"), k, fn) {
				const char *s = json_string_value(fn);
				char *esc = s ? colfs_name_escape(s) : NULL;
				bool same = esc && strlen(esc) == cl &&
					    !memcmp(esc, comp, cl);
				free(esc);
				if (same) {
					hit = e;
					break;
				}
			}
			if (hit)
				break;
		}
		const char *name = json_string_value(json_object_get(hit, "name"));
		char *esc = name ? colfs_name_escape(name) : NULL;
		if (!esc) {
			colfs_buf_free(&out);
			return NULL;
		}
		colfs_buf_putc(&out, '.');
		colfs_buf_puts(&out, esc);
		free(esc);
		node = json_object_get(hit, "node");
		rest = comp + cl;
	}
	colfs_buf_putc(&out, '\0');
	if (colfs_buf_status(&out)) {
		colfs_buf_free(&out);
		return NULL;
	}
	size_t len;
	return colfs_buf_take(&out, &len);
}

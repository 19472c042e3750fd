/* colfs: the members of one line of a file's rows.jsonl
 * (dataset_jsonl.h).  The union's rows.jsonl is built from each file's
 * own rows.jsonl, whatever format wrote it: the modules agree on JSON,
 * not on its spacing (Parquet's lines are compact, ORC's put a space
 * after ':' and ','), so a line is split by JSON's grammar, and a key
 * is compared by the name it stands for, not by its bytes. */
#include "dataset_jsonl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hex.h"
#include "../core/names.h"

static bool jl_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The end of the string token starting at s[i] (a '"'): the index after
 * its closing quote, or `len` when it is not closed. */
static size_t jl_string_end(const char *s, size_t i, size_t len)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return len;
}

bool ds_jsonl_members(const char *s, size_t len, ds_member *m, size_t cap,
		      size_t *nm)
{
	size_t i = 0;
	*nm = 0;
	while (i < len && jl_space(s[i]))
		i++;
	if (i == len || s[i] != '{')
		return false;
	i++;
	while (i < len && jl_space(s[i]))
		i++;
	if (i < len && s[i] == '}') {
		for (i++; i < len && jl_space(s[i]); i++)
			;
		return i == len;
	}
	for (;;) {
		while (i < len && jl_space(s[i]))
			i++;
		if (i == len || s[i] != '"')
			return false;
		size_t k = i;
		i = jl_string_end(s, i, len);
		if (i == len)
			return false;
		size_t kn = i - k;
		while (i < len && jl_space(s[i]))
			i++;
		if (i == len || s[i] != ':')
			return false;
		i++;
		while (i < len && jl_space(s[i]))
			i++;
		/* the value: up to a ',' or '}' outside strings and brackets */
		size_t v = i, depth = 0;
		while (i < len) {
			char c = s[i];
			if (c == '"') {
				i = jl_string_end(s, i, len);
				continue;
			}
			if (c == '{' || c == '[') {
				depth++;
			} else if (c == '}' || c == ']') {
				if (!depth)
					break;
				depth--;
			} else if (c == ',' && !depth) {
				break;
			}
			i++;
		}
		if (i == len)
			return false;
		size_t e = i;
		while (e > v && jl_space(s[e - 1]))
			e--;
		if (e == v || *nm == cap)
			return false;
		m[*nm] = (ds_member){s + k, kn, s + v, e - v};
		(*nm)++;
		if (s[i] == ',') {
			i++;
			continue;
		}
		if (s[i] != '}')
			return false;
		for (i++; i < len && jl_space(s[i]); i++)
			;
		return i == len;
	}
}

static int jl_hex4(const char *p, const char *end)
{
	int v = 0;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = colfs_hex_digit(p[i]);
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static size_t jl_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A JSON string token (quotes included) decoded into `out` (room for
 * `len` bytes): \uXXXX (with surrogate pairs) as UTF-8, the other
 * escapes as their bytes.  Returns the byte count, or (size_t)-1 when
 * the token is no JSON string. */
static size_t jl_string(const char *tok, size_t len, char *out)
{
	/* every escape is at least as long as the bytes it stands for
	 * (\uXXXX: 6 for at most 3, a pair: 12 for 4), so `len` bytes of
	 * `out` suffice */
	const char *p = tok + 1, *end = tok + len - 1;
	size_t n = 0;
	if (len < 2 || tok[0] != '"' || tok[len - 1] != '"')
		return (size_t)-1;
	while (p < end) {
		if (*p != '\\') {
			out[n++] = *p++;
			continue;
		}
		if (++p == end)
			return (size_t)-1;
		char c = *p++;
		switch (c) {
		case '"': case '\\': case '/':
			out[n++] = c;
			break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': {
			int u = jl_hex4(p, end);
			if (u < 0)
				return (size_t)-1;
			p += 4;
			uint32_t cp = (uint32_t)u;
			if (u >= 0xd800 && u < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u') {
				int lo = jl_hex4(p + 2, end);
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + (((uint32_t)u - 0xd800) << 10) +
					     ((uint32_t)lo - 0xdc00);
					p += 6;
				}
			}
			n += jl_utf8(out + n, cp);
			break;
		}
		default:
			return (size_t)-1;
		}
	}
	return n;
}

/* Member j's key decoded and escaped as a path component (a key whose
 * escapes do not decode, which colfs never writes, by the bytes between
 * its quotes); NULL when out of memory. */
static char *jl_escaped_key(void *ctx, size_t j)
{
	const ds_member *m = (const ds_member *)ctx + j;
	char *raw = malloc(m->key_len + 1);
	if (!raw)
		return NULL;
	size_t n = jl_string(m->key, m->key_len, raw);
	if (n == (size_t)-1) {
		n = m->key_len >= 2 ? m->key_len - 2 : 0;
		memcpy(raw, m->key + (m->key_len >= 2), n);
	}
	raw[n] = '\0';
	char *esc = colfs_name_escape(raw);
	free(raw);
	return esc;
}

char *ds_jsonl_member_name(const ds_member *m, size_t j)
{
	/* a repeat, an earlier key with the same name, is named as the
	 * tree names a repeated entry */
	return colfs_name_nth_escaped(jl_escaped_key, (void *)m, j);
}

/* colfs: names from the file made into safe path components (names.h).
 */
#include "names.h"
#include "hex.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
size_t colfs_name_unescape(const char *name, size_t len, char *out)
{
	return colfs_percent_decode(name, len, out);
}

uint32_t colfs_name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}


typedef struct name_raw {
	colfs_name_fn raw;
	void *ctx;
} name_raw;

static char *name_raw_escaped(void *ctx, size_t j)
{
	const name_raw *r = ctx;
	char tmp[64];
	return colfs_name_escape(r->raw(r->ctx, j, tmp, sizeof tmp));
}

char *colfs_name_nth(colfs_name_fn raw, void *ctx, size_t i)
{
	name_raw r = {raw, ctx};
	return colfs_name_nth_escaped(name_raw_escaped, &r, i);
}

char *colfs_name_nth_escaped(colfs_escaped_fn esc, void *ctx, size_t i)
{
	char *name = esc(ctx, i);
	unsigned dup = 0;
	if (!name)
		return NULL;
	/* unique_name gives the k-th repeat of a name "name%k".  Exact
	 * unless "name%k" is also the escape of another entry (a name that
	 * ends in a control byte, say "a\x12" beside twelve "a"): hostile
	 * files only, where the problem then lands on that twin. */
	for (size_t j = 0; j < i; j++) {
		char *other = esc(ctx, j);
		if (!other) {
			free(name);
			return NULL;
		}
		dup += strcmp(other, name) == 0;
		free(other);
	}
	if (dup) {
		char *alt = colfs_name_repeat(name, dup);
		free(name);
		name = alt;
	}
	return name;
}

char *colfs_name_repeat(const char *name, unsigned k)
{
	size_t n = strlen(name) + 16; /* '%', up to 10 digits, NUL */
	char *alt = malloc(n);
	if (alt)
		snprintf(alt, n, "%s%%%u", name, k);
	return alt;
}

char *colfs_name_escape(const char *raw)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!raw)
		raw = "";
	if (raw[0] == '\0')
		return strdup("%00");
	if (strcmp(raw, ".") == 0)
		return strdup("%2E");
	if (strcmp(raw, "..") == 0)
		return strdup("%2E%2E");
	size_t n = strlen(raw);
	char *out = malloc(n * 3 + 1);
	if (!out)
		return NULL;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)raw[i];
		if (c == '%' || c == '/' || c < 0x20 || c == 0x7f) {
			out[j++] = '%';
			out[j++] = hex[c >> 4];
			out[j++] = hex[c & 15];
		} else {
			out[j++] = (char)c;
		}
	}
	out[j] = '\0';
	if (j > 200) {
		/* Cut at 200 bytes, not inside an escape or a UTF-8 sequence. */
		size_t cut = 200;
		while (cut > 0 && ((out[cut] & 0xc0) == 0x80))
			cut--;
		for (size_t k = cut >= 2 ? cut - 2 : 0; k < cut; k++)
			if (out[k] == '%')
				cut = k;
		snprintf(out + cut, 12, "%%~%08x", colfs_name_hash(raw));
	}
	return out;
}

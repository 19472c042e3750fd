/* tests/dataset: dataset_jsonl.c, the split of one line of a file's
 * rows.jsonl into its members (the union's rows.jsonl is built from
 * them): Parquet's compact lines, ORC's spaced ones, values holding
 * separators inside strings and brackets, escaped keys, repeated keys,
 * and lines that are not one object (never read past the line). */
#include "../../formats/dataset/dataset_jsonl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(c)                                                          \
	do {                                                              \
		if (!(c)) {                                               \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
			failures++;                                       \
		}                                                         \
	} while (0)

/* Split `line` (copied to an exact-size heap buffer, so ASan sees a read
 * past its end) and compare "key=value|..." with `want` (NULL: refused). */
static void split(const char *line, size_t cap, const char *want)
{
	size_t len = strlen(line), nm = 0;
	char *copy = malloc(len ? len : 1);
	ds_member m[8];
	char got[1024] = "";
	memcpy(copy, line, len);
	bool ok = ds_jsonl_members(copy, len, m, cap, &nm);
	if (!want) {
		if (ok)
			printf("FAIL: %s: split, expected a refusal\n", line);
		failures += ok;
		free(copy);
		return;
	}
	for (size_t j = 0; ok && j < nm; j++)
		snprintf(got + strlen(got), sizeof got - strlen(got),
			 "%s%.*s=%.*s", j ? "|" : "", (int)m[j].key_len,
			 m[j].key, (int)m[j].val_len, m[j].val);
	if (!ok || strcmp(got, want)) {
		printf("FAIL: %s: %s, expected %s\n", line,
		       ok ? got : "refused", want);
		failures++;
	}
	free(copy);
}

static void name(const char *line, size_t j, const char *want)
{
	ds_member m[8];
	size_t nm = 0;
	CHECK(ds_jsonl_members(line, strlen(line), m, 8, &nm) && j < nm);
	char *n = j < nm ? ds_jsonl_member_name(m, j) : NULL;
	if (!n || strcmp(n, want)) {
		printf("FAIL: %s: member %zu names %s, expected %s\n", line, j,
		       n ? n : "(none)", want);
		failures++;
	}
	free(n);
}

int main(void)
{
	/* Parquet's and ORC's spacing */
	split("{\"a\":1,\"b\":\"x\"}", 8, "\"a\"=1|\"b\"=\"x\"");
	split("{\"a\": 1, \"b\": \"x\"}", 8, "\"a\"=1|\"b\"=\"x\"");
	split(" { \"a\" :\t1 ,\"b\" : null } ", 8, "\"a\"=1|\"b\"=null");
	split("{}", 8, "");
	split("{ }", 8, "");
	/* separators inside values */
	split("{\"s\": \"a, b}\", \"l\": [1, [2, 3]], \"o\": {\"k\": \"}\"}}", 8,
	      "\"s\"=\"a, b}\"|\"l\"=[1, [2, 3]]|\"o\"={\"k\": \"}\"}");
	split("{\"q\":\"say \\\"hi\\\", \\\\\",\"n\":-1.5e3}", 8,
	      "\"q\"=\"say \\\"hi\\\", \\\\\"|\"n\"=-1.5e3");
	split("{\"k\\\"ey\":true}", 8, "\"k\\\"ey\"=true");
	/* not one object of members */
	split("", 8, NULL);
	split("[1]", 8, NULL);
	split("{\"a\":1", 8, NULL);
	split("{\"a\":1,}", 8, NULL);
	split("{\"a\" 1}", 8, NULL);
	split("{\"a\":}", 8, NULL);
	split("{a:1}", 8, NULL);
	split("{\"a\":1]}", 8, NULL);
	split("{\"a\":\"open}", 8, NULL);
	split("{\"a\":\"x\\", 8, NULL);
	split("{\"a\":1} x", 8, NULL);
	split("{\"a\":1,\"b\":2,\"c\":3}", 2, NULL);
	/* keys named as columns/ names them */
	name("{\"a\":1,\"b\":2}", 1, "b");
	name("{\"x\\u00e9\\/y\":1}", 0, "x\xc3\xa9%2Fy");
	name("{\"\\ud83d\\ude00\":1}", 0, "\xf0\x9f\x98\x80");
	name("{\"t\\tab\":1}", 0, "t%09ab");
	name("{\"a\":1,\"b\":2,\"a\":3,\"a\":4}", 3, "a%2");
	name("{\"a\":1,\"b\":2,\"a\":3}", 0, "a");
	name("{\"\":1}", 0, "%00");
	/* a key whose escapes do not decode: by its bytes, and no repeat of
	 * the keys after it */
	name("{\"\\q\":1,\"a\":2,\"a\":3}", 0, "\\q");
	name("{\"\\q\":1,\"a\":2,\"a\":3}", 2, "a%1");
	if (failures)
		printf("%d failures\n", failures);
	else
		printf("ok: rows.jsonl lines split and keys named\n");
	return failures != 0;
}

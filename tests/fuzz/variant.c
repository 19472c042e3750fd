/* tests/fuzz: the Variant binary decoder (formats/parquet/decode/
 * pq_variant.c) on arbitrary metadata and value bytes.
 *
 * Input: one byte k, then k bytes of metadata (fewer when the input is
 * shorter), then the value.  Nothing may crash or read outside the two
 * copies; a failure is COLFS_ECORRUPT or COLFS_EUNSUPPORTED with that
 * status and a message in the error (variant errors carry no offset: the
 * bytes come from decoded pages, the message names the byte inside the
 * value); a success is exactly one valid JSON value on one line; an
 * object's fields read one by one agree with the whole decoding. */
#include <jansson.h>

#include "core/buf.h"
#include "parquet/decode/pq_variant.h"
#include "fuzz_util.h"

static void check_fail(colfs_status st, const colfs_err *err)
{
	FUZZ_CHECK(st == COLFS_ECORRUPT || st == COLFS_EUNSUPPORTED);
	FUZZ_CHECK(err->status == st);
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL);
	FUZZ_CHECK(err->msg[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	size_t k = fuzz_u8(&in);
	uint8_t *meta, *val;
	size_t vn;
	pq_variant_meta m;
	colfs_err err = {0};
	colfs_buf out = COLFS_BUF_INIT;
	colfs_status st;

	if (k > in.n)
		k = in.n;
	meta = fuzz_dup(in.p, k);
	vn = in.n - k;
	val = fuzz_dup(in.p + k, vn);
	if (!meta || !val)
		goto done;
	st = pq_variant_meta_parse(meta, k, &m, &err);
	if (st) {
		check_fail(st, &err);
		goto done;
	}
	memset(&err, 0, sizeof err);
	st = pq_variant_to_json(&m, val, vn, &out, &err);
	if (st) {
		check_fail(st, &err);
		goto done;
	}
	FUZZ_CHECK(!out.failed && out.len > 0);
	FUZZ_CHECK(memchr(out.data, '\n', out.len) == NULL);
	json_error_t je;
	json_t *j = json_loadb(out.data, out.len, JSON_DECODE_ANY |
			       JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &je);
	/* jansson cannot hold an object key with a NUL ("\u0000", valid
	 * JSON, which a variant key may be); every other refusal is ours */
	if (!j && strstr(je.text, "NUL byte in object key"))
		goto done;
	if (!j)
		fprintf(stderr, "not JSON: %.*s (%s)\n", (int)out.len,
			out.data, je.text);
	FUZZ_CHECK(j != NULL);
	json_decref(j);
	if (pq_variant_is_object(val, vn)) {
		pq_variant_object o;
		FUZZ_CHECK(pq_variant_object_open(val, vn, &o, &err) ==
			   COLFS_OK);
		for (uint32_t i = 0; i < o.n; i++) {
			const uint8_t *key, *fv;
			size_t kl, fl;
			colfs_buf one = COLFS_BUF_INIT;
			FUZZ_CHECK(pq_variant_object_field(&o, &m, i, &key, &kl,
							   &fv, &fl, &err) ==
				   COLFS_OK);
			FUZZ_CHECK(fv >= val && fv + fl <= val + vn);
			FUZZ_CHECK(pq_variant_to_json(&m, fv, fl, &one, &err) ==
				   COLFS_OK);
			FUZZ_CHECK(one.len < out.len);
			colfs_buf_free(&one);
		}
	}
done:
	colfs_buf_free(&out);
	free(meta);
	free(val);
	return 0;
}

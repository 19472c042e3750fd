/* tests/fuzz: every function of render.h on arbitrary bytes.
 *
 * Nothing may crash; the buffer never fails on these small inputs; the
 * text rendering of one value holds no newline (one value is one line)
 * and is not empty except for empty strings and binaries; in JSON mode
 * every value rendered is one valid JSON value (checked with jansson). */
#include <jansson.h>

#include "core/buf.h"
#include "core/cursor.h"
#include "core/render.h"
#include "fuzz_util.h"

/* jansson refuses numbers beyond a double's range; the decimals of a
 * large scale are such numbers, valid JSON all the same. */
static bool json_number_lexically(const char *p, size_t n)
{
	size_t i = 0, d;

	if (i < n && p[i] == '-')
		i++;
	d = i;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == d || (p[d] == '0' && i - d > 1))
		return false;
	if (i < n && p[i] == '.') {
		d = ++i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		d = i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == d)
			return false;
	}
	return i == n;
}

static void check_value(const colfs_buf *b, size_t from, bool json,
			bool may_be_empty)
{
	FUZZ_CHECK(!b->failed);
	FUZZ_CHECK(b->len >= from);
	FUZZ_CHECK(memchr(b->data + from, '\n', b->len - from) == NULL);
	if (!may_be_empty || json)
		FUZZ_CHECK(b->len > from);
	if (json) {
		json_error_t je;
		json_t *j = json_loadb(b->data + from, b->len - from,
				       JSON_DECODE_ANY | JSON_ALLOW_NUL |
				       JSON_DECODE_INT_AS_REAL, &je);

		if (!j && json_number_lexically(b->data + from,
						b->len - from))
			return;
		if (!j)
			fprintf(stderr, "not JSON: %.*s (%s)\n",
				(int)(b->len - from), b->data + from, je.text);
		FUZZ_CHECK(j != NULL);
		json_decref(j);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	uint8_t op = fuzz_u8(&in);
	uint8_t flags = fuzz_u8(&in);
	colfs_render r = (flags & 1) ? colfs_render_json_default
				     : colfs_render_text_default;
	colfs_time_unit unit = (colfs_time_unit)((flags >> 2) & 3);
	bool utc = flags & 0x10;
	uint8_t raw[16];
	int64_t a, b2, c3;
	int32_t scale;
	uint8_t *rest;
	size_t rest_n;
	colfs_buf b = COLFS_BUF_INIT;
	bool empty_ok = false, is_json = r.json;

	if (flags & 2)
		r.null_token = "NULL";
	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = fuzz_u8(&in);
	a = (int64_t)colfs_le64(raw);
	b2 = (int64_t)colfs_le64(raw + 8);
	c3 = (int64_t)(int32_t)colfs_le32(raw + 4);
	scale = (int32_t)(int8_t)raw[15];
	rest_n = in.n;
	rest = fuzz_dup(in.p, in.n);
	if (!rest)
		return 0;
	/* something before, to check the functions append */
	colfs_buf_puts(&b, "x");
	switch (op % 25) {
	case 0:
		colfs_render_null(&b, &r);
		break;
	case 1:
		colfs_render_bool(&b, &r, raw[0] & 1);
		break;
	case 2:
		colfs_render_i64(&b, &r, a);
		break;
	case 3:
		colfs_render_u64(&b, &r, (uint64_t)a);
		break;
	case 4: {
		float f;
		uint32_t u = colfs_le32(raw);

		memcpy(&f, &u, 4);
		colfs_render_float(&b, &r, f);
		break;
	}
	case 5: {
		double d;
		uint64_t u = (uint64_t)a;

		memcpy(&d, &u, 8);
		colfs_render_double(&b, &r, d);
		break;
	}
	case 6:
		colfs_render_float16(&b, &r, colfs_le16(raw));
		(void)colfs_float16_to_float(colfs_le16(raw));
		break;
	case 7:
		colfs_render_string(&b, &r, rest, rest_n);
		empty_ok = true;
		break;
	case 8:
		colfs_render_binary(&b, &r, rest, rest_n);
		empty_ok = true;
		break;
	case 9:
		colfs_render_decimal_i64(&b, &r, a, scale);
		break;
	case 10:
		colfs_render_decimal_be(&b, &r, rest, rest_n, scale);
		break;
	case 11:
		colfs_render_date(&b, &r, a);
		break;
	case 12:
		colfs_render_time(&b, &r, a, unit);
		break;
	case 13:
		colfs_render_timetz(&b, &r, a, unit,
				    (int32_t)colfs_le32(raw + 8));
		break;
	case 14:
		colfs_render_timestamp(&b, &r, a, unit, utc);
		break;
	case 15:
		colfs_render_timestamp_parts(&b, &r, a,
					     colfs_le32(raw + 8), utc);
		break;
	case 16:
		colfs_render_int96(&b, &r, raw);
		break;
	case 17:
		colfs_render_uuid(&b, &r, raw);
		break;
	case 18:
		colfs_render_interval_parquet(&b, &r, raw);
		break;
	case 19:
		colfs_render_interval(&b, &r, a, c3, b2);
		break;
	case 20:
		colfs_render_json_string(&b, rest, rest_n);
		is_json = true;
		break;
	case 21: {
		/* a CSV field: quoted when it must be; check round trip of
		 * the quoting (what is inside the quotes, undoubled, is the
		 * input) */
		colfs_render_csv_field(&b, (const char *)rest, rest_n);
		if (b.len > 1 && b.data[1] == '"' && rest_n &&
		    rest[0] != '"') {
			size_t j = 2, k = 0;

			while (j + 1 < b.len && k < rest_n) {
				FUZZ_CHECK(b.data[j] == (char)rest[k]);
				j += b.data[j] == '"' ? 2 : 1;
				k++;
			}
			FUZZ_CHECK(k == rest_n);
		}
		FUZZ_CHECK(!b.failed);
		/* rows.csv's CSV mode: a string's rendering never holds the
		 * NULL marker's byte, and its field is never empty (the
		 * empty string is "", an empty field is NULL) */
		colfs_render cm = colfs_render_csv_mode();
		colfs_buf v = COLFS_BUF_INIT, f = COLFS_BUF_INIT;
		colfs_render_string(&v, &cm, rest, rest_n);
		FUZZ_CHECK(!v.failed && !memchr(v.data ? v.data : "", 0xff,
						v.len));
		colfs_render_csv_value(&f, v.data, v.len, "");
		FUZZ_CHECK(!f.failed && f.len > 0);
		colfs_buf_free(&v);
		colfs_buf_free(&f);
		goto done;
	}
	case 22:
		/* far out-of-range timestamps in every unit */
		colfs_render_timestamp(&b, &r, a, unit, utc);
		colfs_buf_putc(&b, ' ');
		colfs_render_timestamp(&b, &r, INT64_MIN + (a & 7), unit,
				       utc);
		is_json = false;
		break;
	case 24: {
		/* WKB: rendered (one line, JSON a string) or refused with
		 * nothing appended, a reason and a place inside the value */
		size_t bad = SIZE_MAX;
		const char *why = NULL;
		if (colfs_render_wkb(&b, &r, rest, rest_n, &bad, &why) !=
		    COLFS_OK) {
			FUZZ_CHECK(b.len == 1 && !b.failed);
			FUZZ_CHECK(why != NULL && bad <= rest_n);
			goto done;
		}
		break;
	}
	default:
		colfs_render_date(&b, &r, INT64_MAX - (a & 7));
		colfs_buf_putc(&b, ' ');
		colfs_render_date(&b, &r, INT64_MIN + (a & 7));
		is_json = false;
		break;
	}
	FUZZ_CHECK(b.len >= 1 && b.data[0] == 'x');
	check_value(&b, 1, is_json, empty_ok);
done:
	colfs_buf_free(&b);
	free(rest);
	return 0;
}

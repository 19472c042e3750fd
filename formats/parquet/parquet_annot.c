/* colfs: a Parquet schema's annotations against the physical types and
 * fields they annotate (parquet_annot.h), after parquet-format's
 * LogicalTypes.md. */
#include "parquet_annot.h"

#include <stdio.h>
#include <string.h>

/* The physical types an annotation allows, as a mask of 1 << type, and
 * the FIXED_LEN_BYTE_ARRAY length it wants (0: any). */
#define P(t) (1u << (t))
#define GROUP 0u   /* a group annotation: no physical type */

typedef struct annot_rule {
	unsigned types;
	int32_t flba_len;
} annot_rule;

typedef struct annot_ctx {
	const parquet_file *pf;
	parquet_report_fn report;
	void *report_ctx;
} annot_ctx;

static void annot_report(const annot_ctx *a, const colfs_err *e)
{
	if (a->report)
		a->report(a->report_ctx, e);
}

static const char *unit_of(int32_t u)
{
	switch (u) {
	case PARQUET_UNIT_MILLIS: return "MILLIS";
	case PARQUET_UNIT_MICROS: return "MICROS";
	case PARQUET_UNIT_NANOS: return "NANOS";
	default: return "unknown unit";
	}
}

/* The rule of the element's logicalType, its name in `name`; false when
 * there is none to check (absent, unknown, DECIMAL: check_decimal). */
static bool logical_rule(const parquet_logical *lt, annot_rule *r,
			 char *name, size_t size)
{
	static const struct {
		int32_t kind;
		const char *name;
		annot_rule rule;
	} fixed[] = {
		{PARQUET_LT_STRING, "STRING", {P(PARQUET_BYTE_ARRAY), 0}},
		{PARQUET_LT_ENUM, "ENUM", {P(PARQUET_BYTE_ARRAY), 0}},
		{PARQUET_LT_JSON, "JSON", {P(PARQUET_BYTE_ARRAY), 0}},
		{PARQUET_LT_BSON, "BSON", {P(PARQUET_BYTE_ARRAY), 0}},
		{PARQUET_LT_GEOMETRY, "GEOMETRY", {P(PARQUET_BYTE_ARRAY), 0}},
		{PARQUET_LT_GEOGRAPHY, "GEOGRAPHY", {P(PARQUET_BYTE_ARRAY), 0}},
		{PARQUET_LT_DATE, "DATE", {P(PARQUET_INT32), 0}},
		{PARQUET_LT_UUID, "UUID", {P(PARQUET_FIXED_LEN_BYTE_ARRAY), 16}},
		{PARQUET_LT_FLOAT16, "FLOAT16",
		 {P(PARQUET_FIXED_LEN_BYTE_ARRAY), 2}},
		{PARQUET_LT_MAP, "MAP", {GROUP, 0}},
		{PARQUET_LT_LIST, "LIST", {GROUP, 0}},
		{PARQUET_LT_VARIANT, "VARIANT", {GROUP, 0}},
	};

	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		if (fixed[i].kind == lt->kind) {
			snprintf(name, size, "%s", fixed[i].name);
			*r = fixed[i].rule;
			return true;
		}
	r->flba_len = 0;
	switch (lt->kind) {
	case PARQUET_LT_TIME:
		snprintf(name, size, "TIME(%s)", unit_of(lt->unit));
		if (lt->unit == PARQUET_UNIT_MILLIS)
			r->types = P(PARQUET_INT32);
		else if (lt->unit == PARQUET_UNIT_MICROS ||
			 lt->unit == PARQUET_UNIT_NANOS)
			r->types = P(PARQUET_INT64);
		else
			return false;
		return true;
	case PARQUET_LT_TIMESTAMP:
		snprintf(name, size, "TIMESTAMP(%s)", unit_of(lt->unit));
		r->types = P(PARQUET_INT64);
		return true;
	case PARQUET_LT_INTEGER:
		snprintf(name, size, "INTEGER(%d,%s)", lt->bit_width,
			 lt->is_signed ? "signed" : "unsigned");
		r->types = lt->bit_width == 64 ? P(PARQUET_INT64)
			   : P(PARQUET_INT32);
		return true;
	default:
		return false;
	}
}

/* The rule of the element's converted_type, as logical_rule. */
static bool converted_rule(int32_t ct, annot_rule *r, char *name,
			   size_t size)
{
	const char *n = parquet_converted_name(ct);

	r->flba_len = 0;
	switch (ct) {
	case PARQUET_CT_UTF8: case PARQUET_CT_ENUM:
	case PARQUET_CT_JSON: case PARQUET_CT_BSON:
		r->types = P(PARQUET_BYTE_ARRAY);
		break;
	case PARQUET_CT_DATE: case PARQUET_CT_TIME_MILLIS:
	case PARQUET_CT_UINT_8: case PARQUET_CT_UINT_16:
	case PARQUET_CT_UINT_32: case PARQUET_CT_INT_8:
	case PARQUET_CT_INT_16: case PARQUET_CT_INT_32:
		r->types = P(PARQUET_INT32);
		break;
	case PARQUET_CT_TIME_MICROS: case PARQUET_CT_TIMESTAMP_MILLIS:
	case PARQUET_CT_TIMESTAMP_MICROS: case PARQUET_CT_UINT_64:
	case PARQUET_CT_INT_64:
		r->types = P(PARQUET_INT64);
		break;
	case PARQUET_CT_INTERVAL:
		r->types = P(PARQUET_FIXED_LEN_BYTE_ARRAY);
		r->flba_len = 12;
		break;
	case PARQUET_CT_MAP: case PARQUET_CT_MAP_KEY_VALUE:
	case PARQUET_CT_LIST:
		r->types = GROUP;
		break;
	default:
		return false;
	}
	snprintf(name, size, "%s", n ? n : "?");
	return true;
}

/* "INT32", "FIXED_LEN_BYTE_ARRAY(16)", ... of a rule's mask, or "a group". */
static void rule_text(const annot_rule *r, char *out, size_t size)
{
	size_t j = 0;

	out[0] = 0;
	if (r->types == GROUP) {
		snprintf(out, size, "a group");
		return;
	}
	for (int32_t t = PARQUET_BOOLEAN; t <= PARQUET_FIXED_LEN_BYTE_ARRAY;
	     t++) {
		if (!(r->types & P(t)) || j >= size)
			continue;
		j += (size_t)snprintf(out + j, size - j, "%s%s", j ? " or " : "",
				      parquet_type_name(t));
		if (t == PARQUET_FIXED_LEN_BYTE_ARRAY && r->flba_len && j < size)
			j += (size_t)snprintf(out + j, size - j, "(%d)",
					      r->flba_len);
	}
}

/* What the element is: "INT32", "FIXED_LEN_BYTE_ARRAY(3)", "a group". */
static void elem_text(const parquet_schema_elem *e, char *out, size_t size)
{
	const char *n = parquet_type_name(e->type);

	if (e->type < 0)
		snprintf(out, size, "a group");
	else if (e->type == PARQUET_FIXED_LEN_BYTE_ARRAY)
		snprintf(out, size, "FIXED_LEN_BYTE_ARRAY(%d)", e->type_length);
	else if (n)
		snprintf(out, size, "%s", n);
	else
		snprintf(out, size, "physical type %d", e->type);
}

static bool rule_fits(const annot_rule *r, const parquet_schema_elem *e)
{
	if (r->types == GROUP)
		return e->type < 0;
	if (e->type < PARQUET_BOOLEAN || e->type > PARQUET_FIXED_LEN_BYTE_ARRAY ||
	    !(r->types & P(e->type)))
		return false;
	return !r->flba_len || e->type != PARQUET_FIXED_LEN_BYTE_ARRAY ||
	       e->type_length == r->flba_len;
}

/* The element's dotted path from the root's children ("a.b.c"). */
static void elem_path(const parquet_file *pf, uint32_t i, char *out,
		      size_t size)
{
	const char *parts[64];
	int n = 0;
	size_t j = 0;

	for (int32_t k = (int32_t)i; k > 0 && n < 64; k = pf->schema[k].parent)
		parts[n++] = pf->schema[k].name;
	out[0] = 0;
	while (n-- > 0 && j < size)
		j += (size_t)snprintf(out + j, size - j, "%s%s", j ? "." : "",
				      parts[n]);
}

/* Digits a two's complement integer of `bytes` bytes always holds:
 * floor(log10(2^(8*bytes-1) - 1)). */
static int32_t decimal_digits_of_bytes(int64_t bytes)
{
	static const int32_t d[] = {0, 2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26,
				    28, 31, 33, 35, 38};
	if (bytes <= 0)
		return 0;
	if (bytes < (int64_t)(sizeof d / sizeof d[0]))
		return d[bytes];
	return INT32_MAX; /* wider than 16 bytes: any precision one asks for */
}

/* A DECIMAL leaf's precision and scale must fit each other and the
 * physical type.  Values still render from the stored integer and the
 * scale. */
static void check_decimal(const annot_ctx *a, const parquet_schema_elem *e,
			  const char *path)
{
	int32_t prec, scale, most;
	colfs_err err;

	if (e->logical.kind == PARQUET_LT_DECIMAL) {
		prec = e->logical.precision;
		scale = e->logical.scale;
	} else if (e->converted_type == PARQUET_CT_DECIMAL) {
		prec = e->precision;
		scale = e->scale < 0 ? 0 : e->scale;
	} else {
		return;
	}
	switch (e->type) {
	case PARQUET_INT32: most = 9; break;
	case PARQUET_INT64: most = 18; break;
	case PARQUET_FIXED_LEN_BYTE_ARRAY:
		most = decimal_digits_of_bytes(e->type_length);
		break;
	case PARQUET_BYTE_ARRAY: most = INT32_MAX; break;
	default: {
		char have[64];
		elem_text(e, have, sizeof have);
		colfs_fail(&err, COLFS_ECORRUPT, e->offset,
			   "schema element %s: DECIMAL on %s (only INT32, INT64, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY carry decimals)",
			   path, have);
		annot_report(a, &err);
		return;
	}
	}
	if (prec < 1) {
		colfs_fail(&err, COLFS_ECORRUPT, e->offset,
			   "schema element %s: DECIMAL precision %d, at least 1 expected",
			   path, prec);
		annot_report(a, &err);
	} else if (prec > most) {
		colfs_fail(&err, COLFS_ECORRUPT, e->offset,
			   "schema element %s: DECIMAL precision %d does not fit its physical type (at most %d digits)",
			   path, prec, most);
		annot_report(a, &err);
	}
	if (scale < 0 || (prec >= 1 && scale > prec)) {
		colfs_fail(&err, COLFS_ECORRUPT, e->offset,
			   "schema element %s: DECIMAL scale %d outside 0..precision (%d)",
			   path, scale, prec);
		annot_report(a, &err);
	}
}

/* A VARIANT group holds a required binary `metadata` and a binary
 * `value`, or a `typed_value` where it is shredded
 * (VariantEncoding.md, VariantShredding.md). */
static void check_variant(const annot_ctx *a, uint32_t i, const char *path)
{
	const parquet_file *pf = a->pf;
	const parquet_schema_elem *meta = NULL, *value = NULL, *typed = NULL;
	colfs_err err;

	for (uint32_t k = i + 1; k < pf->n_schema; k++) {
		const parquet_schema_elem *c = &pf->schema[k];
		if (c->parent != (int32_t)i || !c->name)
			continue;
		if (strcmp(c->name, "metadata") == 0)
			meta = c;
		else if (strcmp(c->name, "value") == 0)
			value = c;
		else if (strcmp(c->name, "typed_value") == 0)
			typed = c;
	}
	if (!meta || meta->type != PARQUET_BYTE_ARRAY ||
	    meta->repetition != PARQUET_REQUIRED) {
		colfs_fail(&err, COLFS_ECORRUPT, pf->schema[i].offset,
			   "schema element %s: VARIANT group without its required binary field 'metadata' (%s): its values cannot be decoded as variants and are shown as the group's fields",
			   path, !meta ? "there is none"
			   : meta->type != PARQUET_BYTE_ARRAY ? "it is not binary"
							      : "it is not required");
		annot_report(a, &err);
	}
	if ((!value || value->type != PARQUET_BYTE_ARRAY) && !typed) {
		colfs_fail(&err, COLFS_ECORRUPT, pf->schema[i].offset,
			   "schema element %s: VARIANT group without a binary field 'value' or a 'typed_value'",
			   path);
		annot_report(a, &err);
	}
}

void parquet_annot_check(const parquet_file *pf, parquet_report_fn report,
			 void *report_ctx)
{
	const annot_ctx a = {pf, report, report_ctx};

	for (uint32_t i = 1; i < pf->n_schema; i++) {
		const parquet_schema_elem *e = &pf->schema[i];
		char path[512], name[64], want[96], have[64];
		annot_rule r;
		bool logical;
		colfs_err err;

		/* elements outside the tree (after a damaged one) have no
		 * parent and were reported already */
		if (e->parent < 0 || !e->name)
			continue;
		elem_path(pf, i, path, sizeof path);
		check_decimal(&a, e, path);
		if (e->logical.kind == PARQUET_LT_INTEGER &&
		    e->logical.bit_width != 8 && e->logical.bit_width != 16 &&
		    e->logical.bit_width != 32 && e->logical.bit_width != 64) {
			colfs_fail(&err, COLFS_ECORRUPT, e->offset,
				   "schema element %s: INTEGER of bit width %d, which the format does not allow (only 8, 16, 32 or 64): its values are shown as their physical type's integers",
				   path, e->logical.bit_width);
			annot_report(&a, &err);
		}
		if (e->logical.kind == PARQUET_LT_VARIANT && e->type < 0)
			check_variant(&a, i, path);
		logical = logical_rule(&e->logical, &r, name, sizeof name);
		/* a logical type that fits, or that is not checked, speaks
		 * for the element: a converted type beside it is checked
		 * only when there is none (one problem an element) */
		if (logical ? rule_fits(&r, e)
			    : e->logical.kind != PARQUET_LT_NONE ||
			      !converted_rule(e->converted_type, &r, name,
					      sizeof name) ||
			      rule_fits(&r, e))
			continue;
		rule_text(&r, want, sizeof want);
		elem_text(e, have, sizeof have);
		colfs_fail(&err, COLFS_ECORRUPT, e->offset,
			   "schema element %s: %s %s annotates %s, which the format does not allow (only %s): its values may not be what the writer meant",
			   path, logical ? "logical type" : "converted type",
			   name, have, want);
		annot_report(&a, &err);
	}
}

int64_t parquet_annot_time_day(const parquet_schema_elem *e,
			       const char **unit)
{
	int32_t u;

	if (e->logical.kind == PARQUET_LT_TIME)
		u = e->logical.unit;
	else if (e->logical.kind == PARQUET_LT_NONE &&
		 e->converted_type == PARQUET_CT_TIME_MILLIS)
		u = PARQUET_UNIT_MILLIS;
	else if (e->logical.kind == PARQUET_LT_NONE &&
		 e->converted_type == PARQUET_CT_TIME_MICROS)
		u = PARQUET_UNIT_MICROS;
	else
		return 0;
	*unit = unit_of(u);
	switch (u) {
	case PARQUET_UNIT_MILLIS: return INT64_C(86400000);
	case PARQUET_UNIT_MICROS: return INT64_C(86400000000);
	case PARQUET_UNIT_NANOS: return INT64_C(86400000000000);
	default: return 0;
	}
}

/* tests/values: Parquet record assembly (formats/parquet/decode/
 * pq_assemble.c).  Schemas are built here element by element (as the
 * footer lists them, depth first) and the tree fields filled in as
 * parquet_file_parse does; levels and values are written by hand for each
 * shape: the Dremel paper's Document example, three-level and legacy
 * lists, repeated fields without annotation, maps (MAP, MAP_KEY_VALUE,
 * without values, with optional keys), lists of structs of lists, and the
 * shapes of corpus files (nested_lists, repeated_no_annotation, null_list,
 * map_no_value, incorrect_map_schema, repeated_primitive_no_list).
 * Malformed levels must fail with COLFS_ECORRUPT, and random levels must
 * never crash.
 *
 *   values_test_assemble                 the unit tests
 *   values_test_assemble --matrix DIR    every nested top-level column of
 *                                        the DuckDB matrix (gen-matrix.mjs)
 *                                        decoded, assembled and compared
 *                                        with DIR/<file>.expected/<col>;
 *                                        exit 77 when DIR has no matrix
 *   values_test_assemble --dump FILE     print every nested field of a
 *                                        Parquet file, assembled */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/codec.h"
#include "core/render.h"
#include "core/source.h"
#include "parquet/decode/pq_assemble.h"
#include "parquet/decode/pq_decode.h"
#include "parquet/parquet_pages.h"
#include "../testio.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

enum { REQ = PARQUET_REQUIRED, OPT = PARQUET_OPTIONAL, RPT = PARQUET_REPEATED };

/* ---- schemas ----------------------------------------------------------- */

typedef struct sn {
	const char *name;
	int32_t type;        /* -1: group */
	int32_t rep;
	int32_t nch;
	int32_t conv;        /* converted type, -1: none */
	int32_t lt;          /* logical type kind, 0: none */
} sn;

#define ROOT(n)          {"schema", -1, -1, n, -1, 0}
#define GRP(nm, r, n)    {nm, -1, r, n, -1, 0}
#define LIST(nm, r)      {nm, -1, r, 1, PARQUET_CT_LIST, PARQUET_LT_LIST}
#define MAP(nm, r)       {nm, -1, r, 1, PARQUET_CT_MAP, PARQUET_LT_MAP}
#define I32(nm, r)       {nm, PARQUET_INT32, r, 0, -1, 0}
#define I64(nm, r)       {nm, PARQUET_INT64, r, 0, -1, 0}
#define STR(nm, r)       {nm, PARQUET_BYTE_ARRAY, r, 0, PARQUET_CT_UTF8, \
			  PARQUET_LT_STRING}

typedef struct schema {
	parquet_schema_elem *e;
	uint32_t n;
} schema;

/* Fill the tree fields as parquet_file_parse does. */
static schema mk_schema(const sn *s, uint32_t n)
{
	schema sc = {calloc(n, sizeof(parquet_schema_elem)), n};
	uint32_t stack[64], left[64], sp = 0, i, leaves = 0;

	assert_non_null(sc.e);
	for (i = 0; i < n; i++) {
		parquet_schema_elem *e = &sc.e[i];
		e->name = s[i].name;
		e->type = s[i].type;
		e->repetition = s[i].rep;
		e->num_children = s[i].nch ? s[i].nch : -1;
		e->converted_type = s[i].conv;
		e->logical.kind = s[i].lt;
		e->leaf = -1;
		e->parent = -1;
	}
	stack[sp] = 0;
	left[sp++] = (uint32_t)s[0].nch;
	for (i = 1; i < n; i++) {
		parquet_schema_elem *e = &sc.e[i], *p;
		while (sp && left[sp - 1] == 0)
			sp--;
		assert_true(sp > 0);
		left[sp - 1]--;
		p = &sc.e[stack[sp - 1]];
		e->parent = (int32_t)stack[sp - 1];
		if (!p->n_children)
			p->first_child = i;
		p->n_children++;
		e->max_def = p->max_def + (e->repetition != REQ);
		e->max_rep = p->max_rep + (e->repetition == RPT);
		if (s[i].nch > 0) {
			assert_true(sp < 64);
			stack[sp] = i;
			left[sp++] = (uint32_t)s[i].nch;
		} else {
			e->leaf = (int32_t)leaves++;
		}
	}
	return sc;
}

static uint32_t field_of(const schema *sc, const char *name)
{
	for (uint32_t i = 1; i < sc->n; i++)
		if (sc->e[i].parent == 0 && strcmp(sc->e[i].name, name) == 0)
			return i;
	fail_msg("no field %s", name);
	return 0;
}

/* ---- leaves and assembly ------------------------------------------------- */

typedef struct lv {
	const uint32_t *rep, *def;
	size_t n;
	const char *const *vals;     /* NULL-terminated JSON texts */
} lv;

#define LEAF(r, d, v) {r, d, N_OF(d), v}

typedef struct run {
	colfs_buf out;
	colfs_err err;
	size_t records;
	colfs_status st;
} run;

/* Assemble one batch holding every leaf's entries; all records as lines. */
static run assemble(const schema *sc, const char *field, const lv *leaves,
		    uint32_t n_leaves, const char *top_null)
{
	run r = {COLFS_BUF_INIT, {0}, 0, COLFS_OK};
	pq_asm_plan *plan = NULL;
	pq_asm *a = NULL;
	pq_asm_leaf_batch b[16];
	colfs_buf text[16];
	size_t *off[16];
	uint32_t l;

	assert_true(n_leaves <= 16);
	r.st = pq_asm_plan_create(sc->e, sc->n, field_of(sc, field), &plan,
				  &r.err);
	if (r.st)
		return r;
	assert_int_equal(pq_asm_plan_leaves(plan), n_leaves);
	memset(b, 0, sizeof b);
	for (l = 0; l < n_leaves; l++) {
		size_t nv = 0, k;
		while (leaves[l].vals && leaves[l].vals[nv])
			nv++;
		text[l] = (colfs_buf)COLFS_BUF_INIT;
		off[l] = calloc(nv + 1, sizeof(size_t));
		assert_non_null(off[l]);
		for (k = 0; k < nv; k++) {
			colfs_buf_puts(&text[l], leaves[l].vals[k]);
			off[l][k + 1] = text[l].len;
		}
		b[l].rep = leaves[l].rep;
		b[l].def = leaves[l].def;
		b[l].n = leaves[l].n;
		b[l].n_values = nv;
		b[l].text = text[l].data ? text[l].data : "";
		b[l].off = off[l];
	}
	assert_int_equal(pq_asm_create(plan, &a, &r.err), COLFS_OK);
	r.st = pq_asm_batch_set(a, b, &r.records, &r.err);
	if (!r.st) {
		size_t done = 0;
		r.st = pq_asm_lines(a, &r.out, top_null, SIZE_MAX, &done,
				    &r.err);
		if (!r.st)
			assert_int_equal(done, r.records);
		assert_int_equal(colfs_buf_status(&r.out), COLFS_OK);
	}
	for (l = 0; l < n_leaves; l++) {
		colfs_buf_free(&text[l]);
		free(off[l]);
	}
	pq_asm_destroy(a);
	pq_asm_plan_destroy(plan);
	return r;
}

static void expect(const schema *sc, const char *field, const lv *leaves,
		   uint32_t n_leaves, const char *top_null, const char *want)
{
	run r = assemble(sc, field, leaves, n_leaves, top_null);

	if (r.st)
		fail_msg("%s: %s: %s", field, colfs_status_name(r.st),
			 r.err.msg);
	colfs_buf_putc(&r.out, 0);
	if (strcmp(r.out.data, want) != 0)
		fail_msg("%s:\n got: %s\nwant: %s", field, r.out.data, want);
	colfs_buf_free(&r.out);
}

static void expect_corrupt(const schema *sc, const char *field,
			   const lv *leaves, uint32_t n_leaves,
			   const char *msg_part)
{
	run r = assemble(sc, field, leaves, n_leaves, NULL);

	if (r.st != COLFS_ECORRUPT)
		fail_msg("%s: expected corrupt, got %s", field,
			 colfs_status_name(r.st));
	if (msg_part && !strstr(r.err.msg, msg_part))
		fail_msg("%s: message \"%s\" lacks \"%s\"", field, r.err.msg,
			 msg_part);
	colfs_buf_free(&r.out);
}

static void expect_plan(const schema *sc, const char *field, const char *want)
{
	pq_asm_plan *plan = NULL;
	colfs_err err = {0};
	colfs_buf b = COLFS_BUF_INIT;

	assert_int_equal(pq_asm_plan_create(sc->e, sc->n, field_of(sc, field),
					    &plan, &err), COLFS_OK);
	pq_asm_plan_describe(plan, &b);
	colfs_buf_putc(&b, 0);
	if (strcmp(b.data, want) != 0)
		fail_msg("plan of %s:\n%s\nwant:\n%s", field, b.data, want);
	colfs_buf_free(&b);
	pq_asm_plan_destroy(plan);
}

/* ---- the Dremel paper's Document --------------------------------------- */

static const sn doc_sn[] = {
	ROOT(3),
	I64("DocId", REQ),
	GRP("Links", OPT, 2),
	I64("Backward", RPT),
	I64("Forward", RPT),
	GRP("Name", RPT, 2),
	GRP("Language", RPT, 2),
	STR("Code", REQ),
	STR("Country", OPT),
	STR("Url", OPT),
};

/* r1 and r2 of the paper, column by column with the paper's levels. */
static const uint32_t bw_r[] = {0, 0, 1}, bw_d[] = {1, 2, 2};
static const char *const bw_v[] = {"10", "30", NULL};
static const uint32_t fw_r[] = {0, 1, 1, 0}, fw_d[] = {2, 2, 2, 2};
static const char *const fw_v[] = {"20", "40", "60", "80", NULL};
static const uint32_t code_r[] = {0, 2, 1, 1, 0}, code_d[] = {2, 2, 1, 2, 1};
static const char *const code_v[] = {"\"en-us\"", "\"en\"", "\"en-gb\"", NULL};
static const uint32_t ctry_r[] = {0, 2, 1, 1, 0}, ctry_d[] = {3, 2, 1, 3, 1};
static const char *const ctry_v[] = {"\"us\"", "\"gb\"", NULL};
static const uint32_t url_r[] = {0, 1, 1, 0}, url_d[] = {2, 2, 1, 2};
static const char *const url_v[] = {"\"http://A\"", "\"http://B\"",
				    "\"http://C\"", NULL};

static void test_dremel_document(void **state)
{
	(void)state;
	schema sc = mk_schema(doc_sn, N_OF(doc_sn));
	const lv links[] = {LEAF(bw_r, bw_d, bw_v), LEAF(fw_r, fw_d, fw_v)};
	const lv name[] = {LEAF(code_r, code_d, code_v),
			   LEAF(ctry_r, ctry_d, ctry_v),
			   LEAF(url_r, url_d, url_v)};

	assert_true(pq_asm_field_is_flat(sc.e, sc.n, 1));
	assert_false(pq_asm_field_is_flat(sc.e, sc.n, 2));
	assert_false(pq_asm_field_is_flat(sc.e, sc.n, 5));
	assert_false(pq_asm_field_is_flat(sc.e, sc.n, 3));  /* not top */
	assert_false(pq_asm_field_is_flat(sc.e, sc.n, 0));
	assert_false(pq_asm_field_is_flat(sc.e, sc.n, 99));
	expect(&sc, "Links", links, 2, "\\N",
	       "{\"Backward\":[],\"Forward\":[20,40,60]}\n"
	       "{\"Backward\":[10,30],\"Forward\":[80]}\n");
	expect(&sc, "Name", name, 3, "\\N",
	       "[{\"Language\":[{\"Code\":\"en-us\",\"Country\":\"us\"},"
	       "{\"Code\":\"en\",\"Country\":null}],\"Url\":\"http://A\"},"
	       "{\"Language\":[],\"Url\":\"http://B\"},"
	       "{\"Language\":[{\"Code\":\"en-gb\",\"Country\":\"gb\"}],"
	       "\"Url\":null}]\n"
	       "[{\"Language\":[],\"Url\":\"http://C\"}]\n");
	expect_plan(&sc, "Name",
		    "list def=0 rep=1 rep_def=1\n"
		    "  struct def=1\n"
		    "    \"Language\":list def=1 rep=2 rep_def=2\n"
		    "      struct def=2\n"
		    "        \"Code\":leaf def=2 leaf=0\n"
		    "        \"Country\":leaf def=3 nullable leaf=1\n"
		    "    \"Url\":leaf def=2 nullable leaf=2\n");
	free(sc.e);
}

/* The Document with levels that do not describe it. */
static void test_dremel_malformed(void **state)
{
	(void)state;
	schema sc = mk_schema(doc_sn, N_OF(doc_sn));
	/* Url says two Names in r1, Code/Country say three. */
	static const uint32_t u2_r[] = {0, 1, 0}, u2_d[] = {2, 2, 2};
	static const char *const u2_v[] = {"\"a\"", "\"b\"", "\"c\"", NULL};
	const lv fewer[] = {LEAF(code_r, code_d, code_v),
			    LEAF(ctry_r, ctry_d, ctry_v),
			    LEAF(u2_r, u2_d, u2_v)};
	/* Country repeats Language where Code does not. */
	static const uint32_t c2_r[] = {0, 1, 1, 1, 0}, c2_d[] = {3, 2, 1, 3, 1};
	const lv skew[] = {LEAF(code_r, code_d, code_v),
			   LEAF(c2_r, c2_d, ctry_v),
			   LEAF(url_r, url_d, url_v)};
	/* rep beyond max_rep, def beyond max_def */
	static const uint32_t big_r[] = {0, 3, 1, 1, 0};
	static const uint32_t big_d[] = {2, 2, 1, 4, 1};
	const lv rep_big[] = {LEAF(big_r, code_d, code_v),
			      LEAF(ctry_r, ctry_d, ctry_v),
			      LEAF(url_r, url_d, url_v)};
	const lv def_big[] = {LEAF(code_r, code_d, code_v),
			      LEAF(ctry_r, big_d, ctry_v),
			      LEAF(url_r, url_d, url_v)};
	/* record counts disagree */
	static const uint32_t u3_r[] = {0, 1, 1, 1}, u3_d[] = {2, 2, 1, 2};
	const lv recs[] = {LEAF(code_r, code_d, code_v),
			   LEAF(ctry_r, ctry_d, ctry_v),
			   LEAF(u3_r, u3_d, url_v)};
	/* batch starting inside a record */
	static const uint32_t fw2_r[] = {1, 1, 1, 0};
	const lv inside[] = {LEAF(bw_r, bw_d, bw_v), LEAF(fw2_r, fw_d, fw_v)};
	/* values missing / too many */
	static const char *const fw_short[] = {"20", "40", NULL};
	const lv short_v[] = {LEAF(bw_r, bw_d, bw_v),
			      LEAF(fw_r, fw_d, fw_short)};
	/* Links null on one leaf, present on the other */
	static const uint32_t n_r[] = {0}, n_d0[] = {0}, n_d2[] = {2};
	static const char *const one[] = {"1", NULL};
	const lv half_null[] = {LEAF(n_r, n_d0, NULL), LEAF(n_r, n_d2, one)};
	/* a required Code (def 2) with def 1 inside a present Language */
	static const uint32_t cd_r[] = {0}, cd_d[] = {1}, ct_d[] = {3};
	static const uint32_t ur_d[] = {2};
	static const char *const us[] = {"\"us\"", NULL};
	const lv req_null[] = {LEAF(cd_r, cd_d, NULL), LEAF(cd_r, ct_d, us),
			       LEAF(cd_r, ur_d, one)};

	expect_corrupt(&sc, "Name", fewer, 3, NULL);
	expect_corrupt(&sc, "Name", skew, 3, NULL);
	expect_corrupt(&sc, "Name", rep_big, 3, "beyond the maxima");
	expect_corrupt(&sc, "Name", def_big, 3, "beyond the maxima");
	expect_corrupt(&sc, "Name", recs, 3, "records");
	expect_corrupt(&sc, "Links", inside, 2, "inside a record");
	expect_corrupt(&sc, "Links", short_v, 2, "values expected");
	expect_corrupt(&sc, "Links", half_null, 2, "definition level");
	expect_corrupt(&sc, "Name", req_null, 3, NULL);
	free(sc.e);
}

/* ---- lists ---------------------------------------------------------------- */

static void test_list_three_level(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(2),
		LIST("c_list", OPT), GRP("list", RPT, 1), I32("element", OPT),
		LIST("req_list", REQ), GRP("list", RPT, 1), I32("element", REQ),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* NULL, [], [null], [1,null,3], [7] */
	static const uint32_t r[] = {0, 0, 0, 0, 1, 1, 0};
	static const uint32_t d[] = {0, 1, 2, 3, 2, 3, 3};
	static const char *const v[] = {"1", "3", "7", NULL};
	const lv l1[] = {LEAF(r, d, v)};
	/* [], [5,6] */
	static const uint32_t r2[] = {0, 0, 1}, d2[] = {0, 1, 1};
	static const char *const v2[] = {"5", "6", NULL};
	const lv l2[] = {LEAF(r2, d2, v2)};

	expect(&sc, "c_list", l1, 1, "\\N",
	       "\\N\n[]\n[null]\n[1,null,3]\n[7]\n");
	expect(&sc, "c_list", l1, 1, NULL,
	       "null\n[]\n[null]\n[1,null,3]\n[7]\n");
	expect(&sc, "req_list", l2, 1, "\\N", "[]\n[5,6]\n");
	free(sc.e);
}

/* LogicalTypes.md backward-compatibility rules 1-5. */
static void test_list_legacy(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(7),
		/* rule 1: repeated primitive */
		LIST("r1", OPT), I32("element", RPT),
		/* rule 2: repeated group with two fields */
		LIST("r2", OPT), GRP("element", RPT, 2), STR("str", REQ),
		I32("num", REQ),
		/* rule 3: repeated group whose one field is repeated */
		LIST("r3", OPT), {"array", -1, RPT, 1, PARQUET_CT_LIST, 0},
		I32("array", RPT),
		/* rule 4: named array */
		LIST("r4", OPT), GRP("array", RPT, 1), STR("str", REQ),
		/* rule 4: named <list>_tuple */
		LIST("r4t", OPT), GRP("r4t_tuple", RPT, 1), STR("str", REQ),
		/* rule 5: otherwise the one field is the element */
		LIST("r5", OPT), GRP("element", RPT, 1), STR("str", OPT),
		/* a LIST group with a non-repeated child: read as a struct */
		LIST("odd", OPT), I32("x", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* r1: NULL, [], [1,2] */
	static const uint32_t a_r[] = {0, 0, 0, 1}, a_d[] = {0, 1, 2, 2};
	static const char *const a_v[] = {"1", "2", NULL};
	const lv r1[] = {LEAF(a_r, a_d, a_v)};
	/* r2: [{"str":"a","num":1},{"str":"b","num":2}], NULL */
	static const uint32_t b_r[] = {0, 1, 0}, b_d[] = {2, 2, 0};
	static const char *const b_s[] = {"\"a\"", "\"b\"", NULL};
	static const char *const b_n[] = {"1", "2", NULL};
	const lv r2[] = {LEAF(b_r, b_d, b_s), LEAF(b_r, b_d, b_n)};
	/* r3: [[1,2],[],[3]] */
	static const uint32_t c_r[] = {0, 2, 1, 1}, c_d[] = {3, 3, 2, 3};
	static const char *const c_v[] = {"1", "2", "3", NULL};
	const lv r3[] = {LEAF(c_r, c_d, c_v)};
	/* r4 / r4t: [{"str":"x"},{"str":"y"}], [] */
	static const uint32_t e_r[] = {0, 1, 0}, e_d[] = {2, 2, 1};
	static const char *const e_v[] = {"\"x\"", "\"y\"", NULL};
	const lv r4[] = {LEAF(e_r, e_d, e_v)};
	/* r5: ["x", null], [] (str optional: max_def 3) */
	static const uint32_t f_r[] = {0, 1, 0}, f_d[] = {3, 2, 1};
	static const char *const f_v[] = {"\"x\"", NULL};
	const lv r5[] = {LEAF(f_r, f_d, f_v)};
	/* odd: {"x":4}, {"x":null}, NULL */
	static const uint32_t g_r[] = {0, 0, 0}, g_d[] = {2, 1, 0};
	static const char *const g_v[] = {"4", NULL};
	const lv odd[] = {LEAF(g_r, g_d, g_v)};

	expect(&sc, "r1", r1, 1, "\\N", "\\N\n[]\n[1,2]\n");
	expect(&sc, "r2", r2, 2, "\\N",
	       "[{\"str\":\"a\",\"num\":1},{\"str\":\"b\",\"num\":2}]\n\\N\n");
	expect(&sc, "r3", r3, 1, "\\N", "[[1,2],[],[3]]\n");
	expect(&sc, "r4", r4, 1, "\\N",
	       "[{\"str\":\"x\"},{\"str\":\"y\"}]\n[]\n");
	expect(&sc, "r4t", r4, 1, "\\N",
	       "[{\"str\":\"x\"},{\"str\":\"y\"}]\n[]\n");
	expect(&sc, "r5", r5, 1, "\\N", "[\"x\",null]\n[]\n");
	expect(&sc, "odd", odd, 1, "\\N", "{\"x\":4}\n{\"x\":null}\n\\N\n");
	free(sc.e);
}

/* repeated_primitive_no_list.parquet: repeated fields without LIST. */
static void test_repeated_no_list(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(3),
		I32("Int32_list", RPT),
		STR("String_list", RPT),
		GRP("group_of_lists", REQ, 2),
		I32("Int32_list_in_group", RPT),
		STR("String_list_in_group", RPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* [0,1,2,3], [], [4] */
	static const uint32_t i_r[] = {0, 1, 1, 1, 0, 0}, i_d[] = {1, 1, 1, 1, 0, 1};
	static const char *const i_v[] = {"0", "1", "2", "3", "4", NULL};
	/* ["foo","zero"], ["three"], [] */
	static const uint32_t s_r[] = {0, 1, 0, 0}, s_d[] = {1, 1, 1, 0};
	static const char *const s_v[] = {"\"foo\"", "\"zero\"", "\"three\"",
					  NULL};
	const lv il[] = {LEAF(i_r, i_d, i_v)};
	const lv grp[] = {LEAF(i_r, i_d, i_v), LEAF(s_r, s_d, s_v)};

	assert_false(pq_asm_field_is_flat(sc.e, sc.n, 1));
	expect(&sc, "Int32_list", il, 1, "\\N", "[0,1,2,3]\n[]\n[4]\n");
	expect(&sc, "group_of_lists", grp, 2, "\\N",
	       "{\"Int32_list_in_group\":[0,1,2,3],"
	       "\"String_list_in_group\":[\"foo\",\"zero\"]}\n"
	       "{\"Int32_list_in_group\":[],"
	       "\"String_list_in_group\":[\"three\"]}\n"
	       "{\"Int32_list_in_group\":[4],\"String_list_in_group\":[]}\n");
	free(sc.e);
}

/* repeated_no_annotation.parquet: an optional group holding a repeated
 * group (DuckDB: STRUCT(phone STRUCT(number, kind)[])). */
static void test_repeated_no_annotation(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(2),
		I32("id", REQ),
		GRP("phoneNumbers", OPT, 1),
		GRP("phone", RPT, 2),
		I64("number", REQ),
		STR("kind", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	static const uint32_t r[] = {0, 0, 0, 0, 0, 1};
	static const uint32_t dn[] = {0, 0, 1, 2, 2, 2};
	static const uint32_t dk[] = {0, 0, 1, 2, 3, 3};
	static const char *const nv[] = {"5555555555", "1111111111",
					 "2222222222", NULL};
	static const char *const kv[] = {"\"home\"", "\"mobile\"", NULL};
	const lv l[] = {LEAF(r, dn, nv), LEAF(r, dk, kv)};

	expect(&sc, "phoneNumbers", l, 2, "\\N",
	       "\\N\n\\N\n{\"phone\":[]}\n"
	       "{\"phone\":[{\"number\":5555555555,\"kind\":null}]}\n"
	       "{\"phone\":[{\"number\":1111111111,\"kind\":\"home\"},"
	       "{\"number\":2222222222,\"kind\":\"mobile\"}]}\n");
	free(sc.e);
}

/* nested_lists.snappy.parquet: three LIST levels of optional strings. */
static void test_nested_lists(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(2),
		LIST("a", OPT), GRP("list", RPT, 1),
		LIST("element", OPT), GRP("list", RPT, 1),
		LIST("element", OPT), GRP("list", RPT, 1),
		STR("element", OPT),
		I32("b", REQ),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* [[["a","b"],["c"]],[null,["d"]]]
	 * [[["a","b"],["c","d"]],[null,["e"]]]
	 * [[[null],[]],[]], [], NULL */
	static const uint32_t r[] = {0, 3, 2, 1, 2,  0, 3, 2, 3, 1, 2,
				     0, 2, 1,  0,  0};
	static const uint32_t d[] = {7, 7, 7, 4, 7,  7, 7, 7, 7, 4, 7,
				     6, 5, 3,  1,  0};
	static const char *const v[] = {"\"a\"", "\"b\"", "\"c\"", "\"d\"",
					"\"a\"", "\"b\"", "\"c\"", "\"d\"",
					"\"e\"", NULL};
	const lv l[] = {LEAF(r, d, v)};

	expect(&sc, "a", l, 1, "\\N",
	       "[[[\"a\",\"b\"],[\"c\"]],[null,[\"d\"]]]\n"
	       "[[[\"a\",\"b\"],[\"c\",\"d\"]],[null,[\"e\"]]]\n"
	       "[[[null],[]],[]]\n[]\n\\N\n");
	free(sc.e);
}

/* null_list.parquet: one empty list. */
static void test_null_list(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(1),
		LIST("emptylist", OPT), GRP("list", RPT, 1), I32("item", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	static const uint32_t r[] = {0}, d[] = {1};
	const lv l[] = {LEAF(r, d, NULL)};

	expect(&sc, "emptylist", l, 1, "\\N", "[]\n");
	free(sc.e);
}

/* c_list_struct: STRUCT(x INTEGER, ys VARCHAR[])[] as DuckDB writes it. */
static void test_list_struct_list(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(1),
		LIST("c_list_struct", OPT), GRP("list", RPT, 1),
		GRP("element", OPT, 2),
		I32("x", OPT),
		LIST("ys", OPT), GRP("list", RPT, 1), STR("element", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* [{"x":null,"ys":null},null,{"x":1,"ys":[]}]
	 * [{"x":0,"ys":[]},{"x":1,"ys":["y0"]}]
	 * [{"x":2,"ys":["y0",null]}], NULL, [] */
	static const uint32_t xr[] = {0, 1, 1, 0, 1, 0, 0, 0};
	static const uint32_t xd[] = {3, 2, 4, 4, 4, 4, 0, 1};
	static const char *const xv[] = {"1", "0", "1", "2", NULL};
	static const uint32_t yr[] = {0, 1, 1, 0, 1, 0, 2, 0, 0};
	static const uint32_t yd[] = {3, 2, 4, 4, 6, 6, 5, 0, 1};
	static const char *const yv[] = {"\"y0\"", "\"y0\"", NULL};
	const lv l[] = {LEAF(xr, xd, xv), LEAF(yr, yd, yv)};

	expect(&sc, "c_list_struct", l, 2, "\\N",
	       "[{\"x\":null,\"ys\":null},null,{\"x\":1,\"ys\":[]}]\n"
	       "[{\"x\":0,\"ys\":[]},{\"x\":1,\"ys\":[\"y0\"]}]\n"
	       "[{\"x\":2,\"ys\":[\"y0\",null]}]\n\\N\n[]\n");
	free(sc.e);
}

/* Null struct vs struct of nulls. */
static void test_struct(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(2),
		GRP("c_struct", OPT, 3), I32("a", OPT), STR("b", OPT),
		GRP("inner", REQ, 1), I32("c", REQ),
		GRP("req", REQ, 2), I32("a", REQ), I32("b", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	static const uint32_t r[] = {0, 0, 0}, ad[] = {0, 1, 2};
	static const uint32_t bd[] = {0, 1, 2}, cd[] = {0, 1, 1};
	static const char *const av[] = {"1", NULL};
	static const char *const bv[] = {"\"x\\\"y\"", NULL};
	static const char *const cv[] = {"5", "6", NULL};
	const lv l[] = {LEAF(r, ad, av), LEAF(r, bd, bv), LEAF(r, cd, cv)};
	static const uint32_t qr[] = {0, 0}, qa[] = {0, 0}, qb[] = {0, 1};
	static const char *const qav[] = {"1", "2", NULL};
	static const char *const qbv[] = {"3", NULL};
	const lv q[] = {{qr, NULL, 2, qav}, LEAF(qr, qb, qbv)};

	(void)qa;
	expect(&sc, "c_struct", l, 3, "\\N",
	       "\\N\n{\"a\":null,\"b\":null,\"inner\":{\"c\":5}}\n"
	       "{\"a\":1,\"b\":\"x\\\"y\",\"inner\":{\"c\":6}}\n");
	expect(&sc, "c_struct", l, 3, NULL,
	       "null\n{\"a\":null,\"b\":null,\"inner\":{\"c\":5}}\n"
	       "{\"a\":1,\"b\":\"x\\\"y\",\"inner\":{\"c\":6}}\n");
	/* required struct: NULL def arrays mean "all at max_def" */
	expect(&sc, "req", q, 2, "\\N",
	       "{\"a\":1,\"b\":null}\n{\"a\":2,\"b\":3}\n");
	free(sc.e);
}

/* ---- maps ----------------------------------------------------------------- */

static void test_maps(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(5),
		/* DuckDB's MAP(VARCHAR, INTEGER) */
		MAP("c_map", OPT), GRP("key_value", RPT, 2), STR("key", REQ),
		I32("value", OPT),
		/* integer keys, required map */
		MAP("imap", REQ), GRP("key_value", RPT, 2), I32("key", REQ),
		STR("value", REQ),
		/* legacy MAP_KEY_VALUE on the outer group */
		{"legacy", -1, OPT, 1, PARQUET_CT_MAP_KEY_VALUE, 0},
		GRP("map", RPT, 2), STR("str", REQ), I32("num", REQ),
		/* map_no_value.parquet: no value field */
		MAP("my_map_no_v", REQ), GRP("key_value", RPT, 1),
		I32("key", REQ),
		/* incorrect_map_schema.parquet: optional key, MAP_KEY_VALUE
		 * on the repeated group */
		MAP("my_map", OPT),
		{"key_value", -1, RPT, 2, PARQUET_CT_MAP_KEY_VALUE, 0},
		STR("key", OPT), STR("value", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* {}, {"k\"1":null,"k2":2}, NULL, {"a":1,"a":2} */
	static const uint32_t m_r[] = {0, 0, 1, 0, 0, 1};
	static const uint32_t k_d[] = {1, 2, 2, 0, 2, 2};
	static const uint32_t v_d[] = {1, 2, 3, 0, 3, 3};
	static const char *const kv[] = {"\"k\\\"1\"", "\"k2\"", "\"a\"",
					 "\"a\"", NULL};
	static const char *const vv[] = {"2", "1", "2", NULL};
	const lv cm[] = {LEAF(m_r, k_d, kv), LEAF(m_r, v_d, vv)};
	/* {"1":"one","-2":"two"}, {} */
	static const uint32_t i_r[] = {0, 1, 0}, i_d[] = {1, 1, 0};
	static const char *const ik[] = {"1", "-2", NULL};
	static const char *const iv[] = {"\"one\"", "\"two\"", NULL};
	const lv im[] = {LEAF(i_r, i_d, ik), LEAF(i_r, i_d, iv)};
	/* legacy: {"x":1}, NULL */
	static const uint32_t l_r[] = {0, 0}, l_d[] = {2, 0};
	static const char *const lk[] = {"\"x\"", NULL};
	static const char *const lvv[] = {"1", NULL};
	const lv lg[] = {LEAF(l_r, l_d, lk), LEAF(l_r, l_d, lvv)};
	/* no value: {"1":null,"2":null}, {} */
	static const char *const nk[] = {"1", "-2", NULL};
	const lv nv[] = {LEAF(i_r, i_d, nk)};
	/* optional key: {"parent":"another","null":"x"}, NULL */
	static const uint32_t o_r[] = {0, 1, 0};
	static const uint32_t ok_d[] = {3, 2, 0}, ov_d[] = {3, 3, 0};
	static const char *const ok[] = {"\"parent\"", NULL};
	static const char *const ov[] = {"\"another\"", "\"x\"", NULL};
	const lv om[] = {LEAF(o_r, ok_d, ok), LEAF(o_r, ov_d, ov)};

	expect(&sc, "c_map", cm, 2, "\\N",
	       "{}\n{\"k\\\"1\":null,\"k2\":2}\n\\N\n{\"a\":1,\"a\":2}\n");
	expect(&sc, "imap", im, 2, "\\N",
	       "{\"1\":\"one\",\"-2\":\"two\"}\n{}\n");
	expect(&sc, "legacy", lg, 2, "\\N", "{\"x\":1}\n\\N\n");
	expect(&sc, "my_map_no_v", nv, 1, "\\N",
	       "{\"1\":null,\"-2\":null}\n{}\n");
	expect(&sc, "my_map", om, 2, "\\N",
	       "{\"parent\":\"another\",\"null\":\"x\"}\n\\N\n");
	expect_plan(&sc, "my_map",
		    "map def=1 nullable rep=1 rep_def=2\n"
		    "  leaf def=3 nullable leaf=0\n"
		    "  leaf def=3 nullable leaf=1\n");
	free(sc.e);
}

/* A key that renders as something other than a string (a struct here)
 * becomes the JSON string of its text. */
static void test_map_struct_key(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(1),
		MAP("m", REQ), GRP("key_value", RPT, 2),
		GRP("key", REQ, 1), STR("s", REQ), I32("value", REQ),
	};
	schema sc = mk_schema(s, N_OF(s));
	static const uint32_t r[] = {0}, d[] = {1};
	static const char *const kv[] = {"\"a\\\\b\"", NULL};
	static const char *const vv[] = {"9", NULL};
	const lv l[] = {LEAF(r, d, kv), LEAF(r, d, vv)};

	expect(&sc, "m", l, 2, "\\N", "{\"{\\\"s\\\":\\\"a\\\\\\\\b\\\"}\":9}\n");
	free(sc.e);
}

/* ---- batches, callbacks, skipping ----------------------------------------- */

static void render_cb(void *ctx, uint32_t leaf, size_t k, colfs_buf *out)
{
	const int *base = ctx;
	colfs_buf_printf(out, "%d", base[leaf] + (int)k);
}

static void test_batches(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(1),
		LIST("c_list", OPT), GRP("list", RPT, 1), I32("element", OPT),
	};
	schema sc = mk_schema(s, N_OF(s));
	/* [100,101] NULL [102] [] [null,103] | [104] */
	static const uint32_t r[] = {0, 1, 0, 0, 0, 0, 1, 0};
	static const uint32_t d[] = {3, 3, 0, 3, 1, 2, 3, 3};
	int base[1] = {100};
	pq_asm_plan *plan = NULL;
	pq_asm *a = NULL;
	colfs_err err = {0};
	colfs_buf out = COLFS_BUF_INIT;
	size_t recs = 0, done = 0, entries = 0, values = 0, n;
	pq_asm_leaf_batch b = {0};

	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 1, &plan, &err),
			 COLFS_OK);
	assert_true(pq_asm_plan_nullable(plan));
	assert_int_equal(pq_asm_plan_leaf_column(plan, 0), 0);
	assert_int_equal(pq_asm_plan_leaf_schema(plan, 0), 3);
	assert_int_equal(pq_asm_plan_leaf_max_def(plan, 0), 3);
	assert_int_equal(pq_asm_plan_leaf_max_rep(plan, 0), 1);
	assert_int_equal(pq_asm_plan_leaf_column(plan, 1), -1);
	assert_int_equal(pq_asm_create(plan, &a, &err), COLFS_OK);

	/* Cutting: without the end, the last record is not complete. */
	n = pq_asm_complete_records(r, d, 3, N_OF(r), false, SIZE_MAX,
				    &entries, &values);
	assert_int_equal(n, 5);
	assert_int_equal(entries, 7);
	assert_int_equal(values, 4);
	n = pq_asm_complete_records(r, d, 3, N_OF(r), true, SIZE_MAX,
				    &entries, &values);
	assert_int_equal(n, 6);
	assert_int_equal(entries, 8);
	assert_int_equal(values, 5);
	n = pq_asm_complete_records(r, d, 3, N_OF(r), true, 2, &entries,
				    &values);
	assert_int_equal(n, 2);
	assert_int_equal(entries, 3);
	assert_int_equal(values, 2);
	n = pq_asm_complete_records(r, d, 3, 2, false, SIZE_MAX, &entries,
				    &values);
	assert_int_equal(n, 0);
	assert_int_equal(entries, 0);
	n = pq_asm_complete_records(NULL, NULL, 0, 4, false, 10, &entries,
				    &values);
	assert_int_equal(n, 3);
	assert_int_equal(entries, 3);
	assert_int_equal(values, 3);

	/* First batch: 5 records through the callback. */
	b.rep = r;
	b.def = d;
	b.n = 7;
	b.n_values = 4;
	b.render = render_cb;
	b.ctx = base;
	assert_int_equal(pq_asm_batch_set(a, &b, &recs, &err), COLFS_OK);
	assert_int_equal(recs, 5);
	assert_int_equal(pq_asm_next(a, &out, "\\N", &err), COLFS_OK);
	assert_int_equal(pq_asm_records_left(a), 4);
	assert_int_equal(pq_asm_skip(a, 2, &done, &err), COLFS_OK);
	assert_int_equal(done, 2);
	colfs_buf_putc(&out, '|');
	assert_int_equal(pq_asm_lines(a, &out, "\\N", 1, &done, &err),
			 COLFS_OK);
	assert_int_equal(done, 1);
	assert_int_equal(pq_asm_lines(a, &out, "\\N", 10, &done, &err),
			 COLFS_OK);
	assert_int_equal(done, 1);
	assert_int_equal(pq_asm_next(a, &out, "\\N", &err), COLFS_END);
	assert_int_equal(pq_asm_skip(a, 5, &done, &err), COLFS_OK);
	assert_int_equal(done, 0);

	/* Second batch: the last record; values counted from 0 again. */
	b.rep = r + 7;
	b.def = d + 7;
	b.n = 1;
	b.n_values = 1;
	base[0] = 104;
	assert_int_equal(pq_asm_batch_set(a, &b, &recs, &err), COLFS_OK);
	assert_int_equal(recs, 1);
	assert_int_equal(pq_asm_lines(a, &out, "\\N", 10, &done, &err),
			 COLFS_OK);
	colfs_buf_putc(&out, 0);
	assert_string_equal(out.data, "[100,101]|[]\n[null,103]\n[104]\n");

	/* An empty batch holds no records. */
	b.n = 0;
	b.n_values = 0;
	assert_int_equal(pq_asm_batch_set(a, &b, &recs, &err), COLFS_OK);
	assert_int_equal(recs, 0);
	assert_int_equal(pq_asm_next(a, &out, NULL, &err), COLFS_END);

	colfs_buf_free(&out);
	pq_asm_destroy(a);
	pq_asm_plan_destroy(plan);
	pq_asm_destroy(NULL);
	pq_asm_plan_destroy(NULL);
	free(sc.e);
}

/* Plans of schemas that do not hold together are refused. */
static void test_bad_schemas(void **state)
{
	(void)state;
	static const sn s[] = {
		ROOT(2),
		GRP("g", OPT, 1), I32("x", OPT),
		I32("y", REQ),
	};
	schema sc = mk_schema(s, N_OF(s));
	pq_asm_plan *plan = NULL;
	colfs_err err = {0};

	/* not a top-level field */
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 2, &plan, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 0, &plan, &err),
			 COLFS_ECORRUPT);
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 9, &plan, &err),
			 COLFS_ECORRUPT);
	assert_null(plan);
	/* a group whose children the schema does not hold */
	sc.e[1].n_children = 2;
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 1, &plan, &err),
			 COLFS_ECORRUPT);
	sc.e[1].n_children = 1;
	/* a leaf without a column */
	sc.e[2].leaf = -1;
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 1, &plan, &err),
			 COLFS_ECORRUPT);
	sc.e[2].leaf = 0;
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 1, &plan, &err),
			 COLFS_OK);
	pq_asm_plan_destroy(plan);
	/* a flat field has a plan of one scalar */
	assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 3, &plan, &err),
			 COLFS_OK);
	assert_int_equal(pq_asm_plan_leaves(plan), 1);
	pq_asm_plan_destroy(plan);
	free(sc.e);
}

/* A chain of `depth` optional groups around one optional INT32. */
static schema mk_chain(uint32_t depth)
{
	schema sc = {calloc(depth + 2, sizeof(parquet_schema_elem)),
		     depth + 2};
	uint32_t i;

	assert_non_null(sc.e);
	for (i = 0; i < sc.n; i++) {
		parquet_schema_elem *e = &sc.e[i];
		e->name = i ? "g" : "schema";
		e->type = i == sc.n - 1 ? PARQUET_INT32 : -1;
		e->repetition = i ? OPT : -1;
		e->converted_type = -1;
		e->parent = (int32_t)i - 1;
		e->first_child = i + 1;
		e->n_children = i == sc.n - 1 ? 0 : 1;
		e->max_def = (int16_t)i;
		e->leaf = i == sc.n - 1 ? 0 : -1;
	}
	return sc;
}

static void test_deep_and_wide(void **state)
{
	(void)state;
	schema deep = mk_chain(PQ_ASM_MAX_DEPTH + 5);
	schema ok = mk_chain(100);
	pq_asm_plan *plan = NULL;
	pq_asm *a = NULL;
	colfs_err err = {0};
	colfs_buf out = COLFS_BUF_INIT;
	static const uint32_t r[] = {0, 0, 0};
	uint32_t d[3] = {3, 101, 0};
	pq_asm_leaf_batch b = {r, d, 3, 1, render_cb, NULL, NULL, NULL};
	int base[1] = {42};
	size_t recs, done;

	assert_int_equal(pq_asm_plan_create(deep.e, deep.n, 1, &plan, &err),
			 COLFS_EUNSUPPORTED);
	assert_null(plan);
	assert_int_equal(pq_asm_plan_create(ok.e, ok.n, 1, &plan, &err),
			 COLFS_OK);
	assert_int_equal(pq_asm_create(plan, &a, &err), COLFS_OK);
	b.ctx = base;
	assert_int_equal(pq_asm_batch_set(a, &b, &recs, &err), COLFS_OK);
	assert_int_equal(recs, 3);
	assert_int_equal(pq_asm_lines(a, &out, "\\N", 10, &done, &err),
			 COLFS_OK);
	/* def 3: three groups present; def 101: 100 groups around 42; then
	 * the null token */
	{
		colfs_buf want = COLFS_BUF_INIT;
		int i;
		colfs_buf_puts(&want, "{\"g\":{\"g\":{\"g\":null}}}\n");
		for (i = 0; i < 100; i++)
			colfs_buf_puts(&want, "{\"g\":");
		colfs_buf_puts(&want, "42");
		for (i = 0; i < 100; i++)
			colfs_buf_putc(&want, '}');
		colfs_buf_puts(&want, "\n\\N\n");
		assert_int_equal(out.len, want.len);
		assert_memory_equal(out.data, want.data, want.len);
		colfs_buf_free(&want);
	}
	colfs_buf_free(&out);
	pq_asm_destroy(a);
	pq_asm_plan_destroy(plan);
	free(deep.e);
	free(ok.e);

	/* 20000 fields in one struct: the plan is built in one pass. */
	{
		const uint32_t nf = 20000;
		schema w = {calloc(nf + 2, sizeof(parquet_schema_elem)), nf + 2};
		uint32_t i;
		assert_non_null(w.e);
		for (i = 0; i < w.n; i++) {
			parquet_schema_elem *e = &w.e[i];
			e->name = i == 0 ? "schema" : i == 1 ? "wide" : "f";
			e->type = i < 2 ? -1 : PARQUET_INT32;
			e->repetition = i ? REQ : -1;
			e->converted_type = -1;
			e->parent = i == 0 ? -1 : i == 1 ? 0 : 1;
			e->first_child = i + 1;
			e->n_children = i == 0 ? 1 : i == 1 ? nf : 0;
			e->leaf = i < 2 ? -1 : (int32_t)(i - 2);
		}
		assert_int_equal(pq_asm_plan_create(w.e, w.n, 1, &plan, &err),
				 COLFS_OK);
		assert_int_equal(pq_asm_plan_leaves(plan), nf);
		assert_int_equal(pq_asm_plan_leaf_column(plan, nf - 1),
				 nf - 1);
		pq_asm_plan_destroy(plan);
		free(w.e);
	}
}

/* Random levels within the maxima on the Document and on three nested
 * lists: assembly either succeeds (the output then has one line per
 * record) or fails with COLFS_ECORRUPT; it never crashes. */
static void fuzz_one(const schema *sc, const char *field, uint32_t n_leaves,
		     uint64_t *seed, size_t *ok)
{
	pq_asm_plan *plan = NULL;
	pq_asm *a = NULL;
	colfs_err err = {0};
	pq_asm_leaf_batch b[4];
	uint32_t rep[4][12], def[4][12], l;
	int base[4] = {0};
	size_t i, recs, done;
	colfs_buf out = COLFS_BUF_INIT;
	colfs_status st;

	assert_int_equal(pq_asm_plan_create(sc->e, sc->n, field_of(sc, field),
					    &plan, &err), COLFS_OK);
	assert_int_equal(pq_asm_create(plan, &a, &err), COLFS_OK);
	memset(b, 0, sizeof b);
	for (l = 0; l < n_leaves; l++) {
		uint32_t mr = pq_asm_plan_leaf_max_rep(plan, l);
		uint32_t md = pq_asm_plan_leaf_max_def(plan, l);
		size_t n = 1 + (*seed >> 33) % 12;
		for (i = 0; i < n; i++) {
			*seed = *seed * 6364136223846793005ULL +
				1442695040888963407ULL;
			rep[l][i] = i ? (uint32_t)(*seed >> 40) % (mr + 1) : 0;
			/* lean towards record starts so counts agree */
			if ((*seed >> 20) % 4 == 0)
				rep[l][i] = 0;
			def[l][i] = (uint32_t)(*seed >> 50) % (md + 1);
			if (def[l][i] == md)
				b[l].n_values++;
		}
		b[l].rep = rep[l];
		b[l].def = def[l];
		b[l].n = n;
		b[l].render = render_cb;
		b[l].ctx = base;
	}
	st = pq_asm_batch_set(a, b, &recs, &err);
	if (!st) {
		st = pq_asm_lines(a, &out, "\\N", SIZE_MAX, &done, &err);
		if (!st) {
			size_t lines = 0;
			for (i = 0; i < out.len; i++)
				lines += out.data[i] == '\n';
			assert_int_equal(lines, recs);
			(*ok)++;
		}
	}
	assert_true(st == COLFS_OK || st == COLFS_ECORRUPT);
	if (st)
		assert_true(err.msg[0] != 0);
	colfs_buf_free(&out);
	pq_asm_destroy(a);
	pq_asm_plan_destroy(plan);
}

static void test_random_levels(void **state)
{
	(void)state;
	static const sn ls[] = {
		ROOT(1),
		LIST("a", OPT), GRP("list", RPT, 1),
		LIST("element", OPT), GRP("list", RPT, 1),
		STR("element", OPT),
	};
	schema doc = mk_schema(doc_sn, N_OF(doc_sn));
	schema lists = mk_schema(ls, N_OF(ls));
	uint64_t seed = 12345;
	size_t ok_doc = 0, ok_links = 0, ok_lists = 0;

	for (int i = 0; i < 20000; i++) {
		fuzz_one(&doc, "Name", 3, &seed, &ok_doc);
		fuzz_one(&doc, "Links", 2, &seed, &ok_links);
		fuzz_one(&lists, "a", 1, &seed, &ok_lists);
	}
	/* some random sequences are valid: the walk accepted them */
	assert_true(ok_lists > 100);
	assert_true(ok_links > 10);
	free(doc.e);
	free(lists.e);
}

/* ---- the DuckDB matrix ------------------------------------------------- */

/* One leaf's chunk decoded: levels and JSON-rendered values. */
typedef struct leaf_data {
	uint32_t *rep, *def;
	size_t n, cap;
	colfs_buf text;
	size_t *off;
	size_t n_values, cap_values;
} leaf_data;

static void leaf_data_free(leaf_data *d)
{
	free(d->rep);
	free(d->def);
	free(d->off);
	colfs_buf_free(&d->text);
}

static void push_value(leaf_data *d)
{
	if (d->n_values + 2 > d->cap_values) {
		d->cap_values = d->cap_values * 2 + 64;
		d->off = realloc(d->off, d->cap_values * sizeof(size_t));
		if (!d->off)
			abort();
	}
	d->off[++d->n_values] = d->text.len;
}

static int decode_chunk(const uint8_t *file, const colfs_source *src,
			const parquet_chunk *ch, const parquet_column *col,
			leaf_data *d)
{
	parquet_page *pages = NULL;
	size_t n_pages = 0;
	colfs_err stop = {0}, err = {0};
	pq_values dict = {0};
	uint8_t *dict_page = NULL;
	bool have_dict = false;
	const pq_type t = parquet_pages_type_of(col->elem);
	const colfs_render *r = &colfs_render_json_default;
	const uint32_t md = (uint32_t)col->max_def, mr = (uint32_t)col->max_rep;
	int rc = 0;

	memset(d, 0, sizeof *d);
	push_value(d);          /* allocates off[] */
	d->n_values = 0;
	d->off[0] = 0;
	if (parquet_pages_walk(src, ch, 1 << 20, &pages, &n_pages, &stop, NULL) ||
	    stop.status) {
		fprintf(stderr, "%s: chunk walk: %s\n", col->path, stop.msg);
		free(pages);
		return -1;
	}
	for (size_t k = 0; k < n_pages && rc == 0; k++) {
		const parquet_page_header *h = &pages[k].hdr;
		const uint64_t data_off = pages[k].offset + h->header_len;
		const uint8_t *raw = file + data_off;
		size_t raw_len = (size_t)h->compressed_size;
		size_t ulen = (size_t)h->uncompressed_size;
		size_t got = 0, lvl_len = 0, nv = (size_t)h->num_values;
		size_t nonnull = 0;
		uint8_t *page;
		colfs_cursor c;
		pq_values vals = {0};

		if (h->type == PARQUET_PAGE_DATA_V2)
			lvl_len = (size_t)h->def_levels_len +
				  (size_t)h->rep_levels_len;
		page = malloc(ulen + 1);
		memcpy(page, raw, lvl_len);
		if (h->type == PARQUET_PAGE_DATA_V2 && !h->is_compressed) {
			memcpy(page + lvl_len, raw + lvl_len, raw_len - lvl_len);
			got = raw_len - lvl_len;
		} else if (raw_len - lvl_len != 0 &&
			   colfs_codec_decompress((colfs_codec)ch->codec,
						  raw + lvl_len,
						  raw_len - lvl_len,
						  page + lvl_len, ulen - lvl_len,
						  &got, data_off, &err)) {
			fprintf(stderr, "%s: page %zu: %s\n", col->path, k,
				err.msg);
			rc = -1;
			goto next;
		}
		colfs_cursor_init_virtual(&c, page, lvl_len + got, data_off);
		if (h->type == PARQUET_PAGE_DICTIONARY) {
			pq_values_free(&dict);
			if (pq_values_decode(&c, col->elem->type,
					     col->elem->type_length, 0, nv, 0,
					     1 << 28, &dict, &err)) {
				fprintf(stderr, "%s: dictionary: %s\n",
					col->path, err.msg);
				rc = -1;
			}
			have_dict = true;
			free(dict_page);
			dict_page = page;
			page = NULL;
			goto next;
		}
		if (d->n + nv > d->cap) {
			d->cap = (d->n + nv) * 2;
			d->rep = realloc(d->rep, d->cap * sizeof(uint32_t));
			d->def = realloc(d->def, d->cap * sizeof(uint32_t));
			if (!d->rep || !d->def)
				abort();
		}
		if (h->type == PARQUET_PAGE_DATA_V2) {
			colfs_cursor rl, dl;
			colfs_cursor_slice(&c, 0, (size_t)h->rep_levels_len,
					   &rl, NULL);
			colfs_cursor_slice(&c, (size_t)h->rep_levels_len,
					   (size_t)h->def_levels_len, &dl, NULL);
			if (pq_levels_decode_v2(&rl, mr, d->rep + d->n, nv,
						&err) ||
			    pq_levels_decode_v2(&dl, md, d->def + d->n, nv,
						&err))
				rc = -1;
			colfs_cursor_skip(&c, lvl_len, NULL);
		} else if (pq_levels_decode_v1(&c, h->rep_encoding, mr,
					       d->rep + d->n, nv, &err) ||
			   pq_levels_decode_v1(&c, h->def_encoding, md,
					       d->def + d->n, nv, &err)) {
			rc = -1;
		}
		if (rc) {
			fprintf(stderr, "%s: levels: %s\n", col->path, err.msg);
			goto next;
		}
		for (size_t i = 0; i < nv; i++)
			nonnull += d->def[d->n + i] == md;
		d->n += nv;
		if (pq_values_decode(&c, col->elem->type,
				     col->elem->type_length, h->encoding,
				     nonnull, have_dict ? (uint32_t)dict.count : 0,
				     1 << 28, &vals, &err)) {
			fprintf(stderr, "%s: page %zu: %s\n", col->path, k,
				err.msg);
			rc = -1;
			goto next;
		}
		for (size_t j = 0; j < nonnull; j++) {
			if (vals.indices)
				pq_render_value(&d->text, r, &t, &dict,
						vals.v.idx[j]);
			else
				pq_render_value(&d->text, r, &t, &vals, j);
			push_value(d);
		}
next:
		pq_values_free(&vals);
		free(page);
	}
	pq_values_free(&dict);
	free(dict_page);
	free(pages);
	return rc;
}

static long m_bad, m_columns, m_rows;

/* With dir NULL, `name` is a file path and every nested field's lines are
 * printed instead of compared. */
static void matrix_file(const char *dir, const char *name)
{
	char path[4096];
	size_t len;
	uint8_t *file;
	parquet_file *pf = NULL;
	colfs_err err = {0};
	colfs_source *src = NULL;
	uint32_t flen;

	if (dir)
		snprintf(path, sizeof(path), "%s/%s.parquet", dir, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	file = (uint8_t *)testio_slurp(path, &len);
	if (!file || len < 12) {
		fprintf(stderr, "%s: cannot read\n", path);
		m_bad++;
		free(file);
		return;
	}
	flen = colfs_le32(file + len - 8);
	if (flen > len - 12 ||
	    parquet_file_parse(file + len - 8 - flen, flen, len - 8 - flen, len,
			       false, NULL, NULL, &pf, &err) ||
	    colfs_source_create_memory(file, len, &src)) {
		fprintf(stderr, "%s: footer: %s\n", path, err.msg);
		m_bad++;
		parquet_file_destroy(pf);
		free(file);
		return;
	}
	for (uint32_t f = 1; f < pf->n_schema; f++) {
		pq_asm_plan *plan = NULL;
		pq_asm *a = NULL;
		colfs_buf out = COLFS_BUF_INIT;
		char *want;
		size_t wlen = 0;
		int rc = 0;

		if (pf->schema[f].parent != 0 ||
		    pq_asm_field_is_flat(pf->schema, pf->n_schema, f))
			continue;
		if (pq_asm_plan_create(pf->schema, pf->n_schema, f, &plan,
				       &err) ||
		    pq_asm_create(plan, &a, &err)) {
			fprintf(stderr, "%s/%s: plan: %s\n", name,
				pf->schema[f].name, err.msg);
			rc = -1;
		}
		for (uint32_t g = 0; g < pf->n_row_groups && !rc; g++) {
			uint32_t nl = pq_asm_plan_leaves(plan), l;
			leaf_data *ld = calloc(nl, sizeof *ld);
			pq_asm_leaf_batch *b = calloc(nl, sizeof *b);
			size_t recs = 0, done = 0;
			for (l = 0; l < nl && !rc; l++) {
				int32_t ci = pq_asm_plan_leaf_column(plan, l);
				rc = decode_chunk(file, src,
						  &pf->row_groups[g].chunks[ci],
						  &pf->columns[ci], &ld[l]);
				b[l].rep = ld[l].rep;
				b[l].def = ld[l].def;
				b[l].n = ld[l].n;
				b[l].n_values = ld[l].n_values;
				b[l].text = ld[l].text.data;
				b[l].off = ld[l].off;
			}
			if (!rc && (pq_asm_batch_set(a, b, &recs, &err) ||
				    pq_asm_lines(a, &out, "\\N", SIZE_MAX,
						 &done, &err))) {
				fprintf(stderr, "%s/%s: %s\n", name,
					pf->schema[f].name, err.msg);
				rc = -1;
			}
			if (!rc && recs != (size_t)pf->row_groups[g].num_rows) {
				fprintf(stderr, "%s/%s: %zu records, %lld rows\n",
					name, pf->schema[f].name, recs,
					(long long)pf->row_groups[g].num_rows);
				rc = -1;
			}
			for (l = 0; l < nl; l++)
				leaf_data_free(&ld[l]);
			free(ld);
			free(b);
		}
		if (!dir) {
			printf("== %s (rc %d)\n%.*s", pf->schema[f].name, rc,
			       (int)out.len, out.data ? out.data : "");
			m_bad += rc != 0;
			goto next_field;
		}
		snprintf(path, sizeof(path), "%s/%s.expected/%s", dir, name,
			 pf->schema[f].name);
		want = testio_slurp(path, &wlen);
		m_columns++;
		if (rc || !want || colfs_buf_status(&out) || wlen != out.len ||
		    memcmp(want, out.data, wlen)) {
			size_t line = 1, i = 0;
			while (want && i < wlen && i < out.len &&
			       want[i] == out.data[i])
				line += want[i++] == '\n';
			fprintf(stderr, "%s/%s: differs at line %zu (rc %d)\n",
				name, pf->schema[f].name, line, rc);
			if (want && i < wlen && i < out.len) {
				size_t a0 = i, b0 = i;
				while (a0 > 0 && want[a0 - 1] != '\n')
					a0--;
				while (b0 > 0 && out.data[b0 - 1] != '\n')
					b0--;
				fprintf(stderr, "  want %.*s\n  got  %.*s\n",
					(int)strcspn(want + a0, "\n"), want + a0,
					(int)strcspn(out.data + b0, "\n"),
					out.data + b0);
			}
			m_bad++;
		} else {
			for (size_t i = 0; i < wlen; i++)
				m_rows += want[i] == '\n';
		}
		free(want);
next_field:
		colfs_buf_free(&out);
		pq_asm_destroy(a);
		pq_asm_plan_destroy(plan);
	}
	colfs_source_destroy(src);
	parquet_file_destroy(pf);
	free(file);
}

static int matrix_main(const char *dir)
{
	char path[4096], *manifest, *line, *save = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/manifest.tsv", dir);
	manifest = testio_slurp(path, &len);
	if (!manifest) {
		printf("no DuckDB matrix in %s (the duckdb_harness test "
		       "writes it): skipped\n", dir);
		return 77;
	}
	for (line = strtok_r(manifest, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\t")] = 0;
		matrix_file(dir, line);
	}
	free(manifest);
	printf("%ld nested columns, %ld rows match DuckDB, %ld columns differ\n",
	       m_columns, m_rows, m_bad);
	return m_bad || !m_columns ? 1 : 0;
}

/* ---- VARIANT groups ---------------------------------------------------- */

#define BA(nm, r)        {nm, PARQUET_BYTE_ARRAY, r, 0, -1, 0}
#define VARIANT(nm, r, n) {nm, -1, r, n, -1, PARQUET_LT_VARIANT}

/* A leaf whose values are byte strings with lengths (variant binaries
 * hold 0x00) or JSON texts. */
typedef struct bv {
	const uint32_t *rep, *def;
	size_t n;
	const uint8_t *const *vals;
	const size_t *lens;
	size_t nv;
} bv;

static run assemble_bytes(const schema *sc, const char *field,
			  const bv *leaves, uint32_t n_leaves,
			  const char *top_null)
{
	run r = {COLFS_BUF_INIT, {0}, 0, COLFS_OK};
	pq_asm_plan *plan = NULL;
	pq_asm *a = NULL;
	pq_asm_leaf_batch b[16];
	colfs_buf text[16];
	size_t *off[16];

	assert_true(n_leaves <= 16);
	r.st = pq_asm_plan_create(sc->e, sc->n, field_of(sc, field), &plan,
				  &r.err);
	if (r.st)
		return r;
	assert_int_equal(pq_asm_plan_leaves(plan), n_leaves);
	memset(b, 0, sizeof b);
	for (uint32_t l = 0; l < n_leaves; l++) {
		text[l] = (colfs_buf)COLFS_BUF_INIT;
		off[l] = calloc(leaves[l].nv + 1, sizeof(size_t));
		assert_non_null(off[l]);
		for (size_t k = 0; k < leaves[l].nv; k++) {
			colfs_buf_append(&text[l], leaves[l].vals[k],
					 leaves[l].lens[k]);
			off[l][k + 1] = text[l].len;
		}
		b[l] = (pq_asm_leaf_batch){
			.rep = leaves[l].rep, .def = leaves[l].def,
			.n = leaves[l].n, .n_values = leaves[l].nv,
			.text = text[l].data ? text[l].data : "",
			.off = off[l],
		};
	}
	assert_int_equal(pq_asm_create(plan, &a, &r.err), COLFS_OK);
	r.st = pq_asm_batch_set(a, b, &r.records, &r.err);
	if (!r.st) {
		size_t done = 0;
		r.st = pq_asm_lines(a, &r.out, top_null, SIZE_MAX, &done,
				    &r.err);
	}
	colfs_buf_putc(&r.out, 0);
	for (uint32_t l = 0; l < n_leaves; l++) {
		colfs_buf_free(&text[l]);
		free(off[l]);
	}
	pq_asm_destroy(a);
	pq_asm_plan_destroy(plan);
	return r;
}

/* metadata: keys "a", "b", "c" */
static const uint8_t V_META[] = {0x01, 3, 0, 1, 2, 3, 'a', 'b', 'c'};
static const uint8_t V_OBJ_C[] = {0x02, 1, 2, 0, 1, 0x04};      /* {c: true} */
static const uint8_t V_HI[] = {0x09, 'h', 'i'};                 /* "hi" */
static const uint8_t V_NULL[] = {0x00};
/* {a: "zz", b: false} */
static const uint8_t V_OBJ_AB[] = {0x02, 2, 0, 1, 0, 3, 4,
				   0x09, 'z', 'z', 0x08};
static const uint8_t V_I8[] = {0x0C, 42};
static const uint8_t V_CUT[] = {0x18, 1, 2};                    /* int64, cut */

#define S(x) (const char *)(x)

/* s: optional struct {x, v (VARIANT: metadata, value, typed_value {a:
 * {value, typed_value int32}, b: {value}})}: a variant inside a struct,
 * partially shredded objects, missing and null fields, a key both in value
 * and shredded. */
static const sn variant_schema[] = {
	ROOT(1),
	GRP("s", OPT, 2),
	I32("x", REQ),
	VARIANT("v", OPT, 3),
	BA("metadata", REQ),
	BA("value", OPT),
	GRP("typed_value", OPT, 2),
	GRP("b", REQ, 1),              /* out of key order in the schema */
	BA("value", OPT),
	GRP("a", REQ, 2),
	BA("value", OPT),
	I32("typed_value", OPT),
};

static void test_variant_struct(void **state)
{
	schema sc = mk_schema(variant_schema, N_OF(variant_schema));
	/* records: 1 partial object + shredded a; 2 v null; 3 value only;
	 * 4 b present as variant null; 5 s null; 6 a in both (shredded
	 * wins), b from value (shredded b missing) */
	static const uint32_t r0[6] = {0};
	static const uint32_t dx[] = {1, 1, 1, 1, 0, 1};
	static const uint32_t dm[] = {2, 1, 2, 2, 0, 2};
	static const uint32_t dv[] = {3, 1, 3, 2, 0, 3};
	static const uint32_t dbv[] = {3, 1, 2, 4, 0, 3};
	static const uint32_t dav[] = {3, 1, 2, 3, 0, 3};
	static const uint32_t dat[] = {4, 1, 2, 3, 0, 4};
	static const uint8_t *const xs[] = {(const uint8_t *)"1",
		(const uint8_t *)"2", (const uint8_t *)"3",
		(const uint8_t *)"4", (const uint8_t *)"6"};
	static const size_t xl[] = {1, 1, 1, 1, 1};
	static const uint8_t *const ms[] = {V_META, V_META, V_META, V_META};
	static const size_t ml[] = {sizeof V_META, sizeof V_META,
				    sizeof V_META, sizeof V_META};
	static const uint8_t *const vs[] = {V_OBJ_C, V_HI, V_OBJ_AB};
	static const size_t vl[] = {sizeof V_OBJ_C, sizeof V_HI,
				    sizeof V_OBJ_AB};
	static const uint8_t *const bs[] = {V_NULL};
	static const size_t bl[] = {1};
	static const uint8_t *const ats[] = {(const uint8_t *)"5",
					     (const uint8_t *)"7"};
	static const size_t atl[] = {1, 1};
	const bv leaves[] = {
		{r0, dx, 6, xs, xl, 5},
		{r0, dm, 6, ms, ml, 4},
		{r0, dv, 6, vs, vl, 3},
		{r0, dbv, 6, bs, bl, 1},
		{r0, dav, 6, NULL, NULL, 0},
		{r0, dat, 6, ats, atl, 2},
	};
	run r;

	(void)state;
	r = assemble_bytes(&sc, "s", leaves, N_OF(leaves), "\\N");
	if (r.st)
		fail_msg("%s", r.err.msg);
	assert_string_equal(r.out.data,
		"{\"x\":1,\"v\":{\"a\":5,\"c\":true}}\n"
		"{\"x\":2,\"v\":null}\n"
		"{\"x\":3,\"v\":\"hi\"}\n"
		"{\"x\":4,\"v\":{\"b\":null}}\n"
		"\\N\n"
		"{\"x\":6,\"v\":{\"a\":7,\"b\":false}}\n");
	colfs_buf_free(&r.out);
	free(sc.e);
}

/* A top-level variant shredded as a LIST of elements with a string
 * typed_value; a missing variant and the variant null are NULL. */
static const sn variant_list_schema[] = {
	ROOT(1),
	VARIANT("v", OPT, 3),
	BA("metadata", REQ),
	BA("value", OPT),
	LIST("typed_value", OPT),
	GRP("list", RPT, 1),
	GRP("element", REQ, 2),
	BA("value", OPT),
	STR("typed_value", OPT),
};

static void test_variant_list(void **state)
{
	schema sc = mk_schema(variant_list_schema, N_OF(variant_list_schema));
	/* ["x", null, 42], [], value 42, missing, variant null, NULL */
	static const uint32_t rm[] = {0, 0, 0, 0, 0, 0};
	static const uint32_t dm[] = {1, 1, 1, 1, 1, 0};
	static const uint32_t dv[] = {1, 1, 2, 1, 2, 0};
	static const uint32_t re[] = {0, 1, 1, 0, 0, 0, 0, 0};
	static const uint32_t dev[] = {3, 4, 4, 2, 1, 1, 1, 0};
	static const uint32_t det[] = {4, 3, 3, 2, 1, 1, 1, 0};
	static const uint8_t *const ms[] = {V_META, V_META, V_META, V_META,
					    V_META};
	static const size_t ml[] = {sizeof V_META, sizeof V_META,
				    sizeof V_META, sizeof V_META,
				    sizeof V_META};
	static const uint8_t *const vs[] = {V_I8, V_NULL};
	static const size_t vl[] = {sizeof V_I8, 1};
	static const uint8_t *const evs[] = {V_NULL, V_I8};
	static const size_t evl[] = {1, sizeof V_I8};
	static const uint8_t *const ets[] = {(const uint8_t *)"\"x\""};
	static const size_t etl[] = {3};
	const bv leaves[] = {
		{rm, dm, 6, ms, ml, 5},
		{rm, dv, 6, vs, vl, 2},
		{re, dev, 8, evs, evl, 2},
		{re, det, 8, ets, etl, 1},
	};
	run r;

	(void)state;
	r = assemble_bytes(&sc, "v", leaves, N_OF(leaves), "\\N");
	if (r.st)
		fail_msg("%s", r.err.msg);
	assert_string_equal(r.out.data,
		"[\"x\",null,42]\n[]\n42\n\\N\n\\N\n\\N\n");
	colfs_buf_free(&r.out);
	/* in JSON mode the NULLs are null */
	r = assemble_bytes(&sc, "v", leaves, N_OF(leaves), "null");
	assert_int_equal(r.st, COLFS_OK);
	assert_string_equal(r.out.data,
		"[\"x\",null,42]\n[]\n42\nnull\nnull\nnull\n");
	colfs_buf_free(&r.out);
	free(sc.e);
}

static void test_variant_malformed(void **state)
{
	schema sc = mk_schema(variant_schema, N_OF(variant_schema));
	static const uint32_t r0[1] = {0};
	static const uint32_t d1[] = {1}, d2[] = {2}, d3[] = {3};
	static const uint8_t *const xs[] = {(const uint8_t *)"1"};
	static const size_t xl[] = {1};
	static const uint8_t *const ms[] = {V_META};
	static const size_t ml[] = {sizeof V_META};
	static const uint8_t BAD_META[] = {0x01, 3, 0, 1, 2, 9, 'a', 'b',
						 'c'};
	static const uint8_t *const bms[] = {BAD_META};
	static const size_t bml[] = {sizeof BAD_META};
	static const uint8_t *const cut[] = {V_CUT};
	static const size_t cutl[] = {sizeof V_CUT};
	static const uint8_t *const hi[] = {V_HI};
	static const size_t hil[] = {sizeof V_HI};
	run r;

	(void)state;
	/* a cut value */
	{
		const bv leaves[] = {
			{r0, d1, 1, xs, xl, 1}, {r0, d2, 1, ms, ml, 1},
			{r0, d3, 1, cut, cutl, 1}, {r0, d2, 1, NULL, NULL, 0},
			{r0, d2, 1, NULL, NULL, 0}, {r0, d2, 1, NULL, NULL, 0},
		};
		r = assemble_bytes(&sc, "s", leaves, N_OF(leaves), "\\N");
		assert_int_equal(r.st, COLFS_ECORRUPT);
		assert_non_null(strstr(r.err.msg,
			"variant of record 0: variant value byte 0: primitive type 6 needs 8 bytes"));
		colfs_buf_free(&r.out);
	}
	/* bad metadata */
	{
		const bv leaves[] = {
			{r0, d1, 1, xs, xl, 1}, {r0, d2, 1, bms, bml, 1},
			{r0, d3, 1, hi, hil, 1}, {r0, d2, 1, NULL, NULL, 0},
			{r0, d2, 1, NULL, NULL, 0}, {r0, d2, 1, NULL, NULL, 0},
		};
		r = assemble_bytes(&sc, "s", leaves, N_OF(leaves), "\\N");
		assert_int_equal(r.st, COLFS_ECORRUPT);
		assert_non_null(strstr(r.err.msg, "key offset 3 is 9"));
		colfs_buf_free(&r.out);
	}
	/* a shredded object beside a value that is not an object */
	{
		static const uint32_t d3b[] = {3};
		const bv leaves[] = {
			{r0, d1, 1, xs, xl, 1}, {r0, d2, 1, ms, ml, 1},
			{r0, d3, 1, hi, hil, 1}, {r0, d3b, 1, NULL, NULL, 0},
			{r0, d3b, 1, NULL, NULL, 0}, {r0, d3b, 1, NULL, NULL, 0},
		};
		r = assemble_bytes(&sc, "s", leaves, N_OF(leaves), "\\N");
		assert_int_equal(r.st, COLFS_ECORRUPT);
		assert_non_null(strstr(r.err.msg, "value is not an object"));
		colfs_buf_free(&r.out);
	}
	/* raw leaves refuse a renderer */
	{
		pq_asm_plan *plan;
		pq_asm *a;
		colfs_err err = {0};
		pq_asm_leaf_batch b[6];
		assert_int_equal(pq_asm_plan_create(sc.e, sc.n, 1, &plan, &err),
				 COLFS_OK);
		assert_false(pq_asm_plan_leaf_raw(plan, 0));
		assert_true(pq_asm_plan_leaf_raw(plan, 1));
		assert_true(pq_asm_plan_leaf_raw(plan, 2));
		assert_false(pq_asm_plan_leaf_raw(plan, 5));
		assert_int_equal(pq_asm_create(plan, &a, &err), COLFS_OK);
		memset(b, 0, sizeof b);
		for (int l = 0; l < 6; l++) {
			b[l].def = l == 0 ? d1 : d2;
			b[l].rep = r0;
			b[l].n = 1;
		}
		b[0].n_values = b[1].n_values = 1;
		b[0].render = b[1].render = (pq_asm_render_fn)1;
		assert_int_equal(pq_asm_batch_set(a, b, NULL, &err),
				 COLFS_ECORRUPT);
		assert_non_null(strstr(err.msg, "not a renderer"));
		pq_asm_destroy(a);
		pq_asm_plan_destroy(plan);
	}
	free(sc.e);
}

/* A VARIANT annotation on a group of another shape: read by structure. */
static void test_variant_misfit(void **state)
{
	static const sn misfit[] = {
		ROOT(1),
		VARIANT("v", OPT, 2),
		BA("metadata", REQ),
		I32("other", OPT),
	};
	schema sc = mk_schema(misfit, N_OF(misfit));
	static const uint32_t r0[1] = {0};
	static const uint32_t d1[] = {1}, d2[] = {2};
	static const uint8_t *const ms[] = {(const uint8_t *)"\"\\\\x01\""};
	static const size_t ml[] = {7};
	static const uint8_t *const os[] = {(const uint8_t *)"3"};
	static const size_t ol[] = {1};
	const bv leaves[] = {{r0, d1, 1, ms, ml, 1}, {r0, d2, 1, os, ol, 1}};
	run r;

	(void)state;
	r = assemble_bytes(&sc, "v", leaves, N_OF(leaves), "\\N");
	assert_int_equal(r.st, COLFS_OK);
	assert_string_equal(r.out.data, "{\"metadata\":\"\\\\x01\",\"other\":3}\n");
	colfs_buf_free(&r.out);
	free(sc.e);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dremel_document),
		cmocka_unit_test(test_variant_struct),
		cmocka_unit_test(test_variant_list),
		cmocka_unit_test(test_variant_malformed),
		cmocka_unit_test(test_variant_misfit),
		cmocka_unit_test(test_dremel_malformed),
		cmocka_unit_test(test_list_three_level),
		cmocka_unit_test(test_list_legacy),
		cmocka_unit_test(test_repeated_no_list),
		cmocka_unit_test(test_repeated_no_annotation),
		cmocka_unit_test(test_nested_lists),
		cmocka_unit_test(test_null_list),
		cmocka_unit_test(test_list_struct_list),
		cmocka_unit_test(test_struct),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_map_struct_key),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_bad_schemas),
		cmocka_unit_test(test_deep_and_wide),
		cmocka_unit_test(test_random_levels),
	};
	if (argc == 3 && strcmp(argv[1], "--matrix") == 0)
		return matrix_main(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--dump") == 0) {
		matrix_file(NULL, argv[2]);
		return m_bad ? 1 : 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--matrix DIR | --dump FILE]\n",
			argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* colfs: Parquet record assembly into compact JSON (see pq_assemble.h).
 *
 * The plan is a small tree of nodes built from the schema subtree of one
 * top-level field.  Every node knows the definition level at which it is
 * present (`def`: the schema element's max_def; a node can only be absent
 * when it is nullable, i.e. optional and not the element of a repeated
 * field), and lists and maps the repetition level at which a new element
 * starts (`rep`) and the definition level at which there is at least one
 * element (`rep_def`).
 *
 * Assembly walks the plan once per value instance.  Every leaf under a
 * node has exactly one entry for each absent (null or empty) instance of
 * the node, and the first leaf under a list tells where its elements end
 * (the next entry repeats at the list's level or not).  Each consumed
 * entry is checked against what the walk expects: its repetition level
 * equals the level at which the instance starts, its definition level lies
 * between the level of the nearest present ancestor and the level that
 * made the walk decide.  Together with the check that every leaf stands at
 * a record start after each record, this catches every level sequence
 * that does not describe the schema.
 */
#include "pq_assemble.h"

#include <stdlib.h>
#include <string.h>

#include "core/render.h"
#include "pq_variant.h"

enum pq_asm_kind {
	PQ_ASM_LEAF = 0,
	PQ_ASM_STRUCT,
	PQ_ASM_LIST,
	PQ_ASM_MAP,
	PQ_ASM_VARIANT,   /* a VARIANT-annotated group */
	PQ_ASM_VPART,     /* a group of value and/or typed_value */
	PQ_ASM_VOBJECT,   /* a shredded object: fields are VPART nodes */
};

#define PQ_ASM_NONE UINT32_MAX

typedef struct pq_asm_node {
	uint8_t kind;
	bool nullable;
	uint32_t def;            /* present when def level >= def */
	uint32_t rep;            /* LIST/MAP: repetition level of elements */
	uint32_t rep_def;        /* LIST/MAP: at least one element */
	uint32_t leaf0, n_leaves;/* plan leaves under the node */
	uint32_t kids, n_kids;   /* children: plan->kids[kids .. +n_kids) */
	size_t name_off, name_len; /* `"name":` of a struct member */
	size_t raw_off, raw_len;   /* the raw name (VOBJECT fields) */
	uint32_t schema;
	/* VARIANT and VPART: plan leaf of `metadata` (VARIANT only) and
	 * `value`, node of `typed_value` (PQ_ASM_NONE when absent) */
	uint32_t vmeta, vvalue, vtyped;
} pq_asm_node;

typedef struct pq_asm_leaf {
	uint32_t schema;
	int32_t column;
	uint32_t max_def, max_rep;
	bool raw;                /* values are raw bytes (variant binaries) */
} pq_asm_leaf;

struct pq_asm_plan {
	pq_asm_node *nodes;
	uint32_t n_nodes, cap_nodes;
	uint32_t *kids;
	uint32_t n_kids, cap_kids;
	pq_asm_leaf *leaves;
	uint32_t n_leaves, cap_leaves;
	colfs_buf names;
};

/* ---- the plan ------------------------------------------------------------ */

typedef struct plan_ctx {
	const parquet_schema_elem *schema;
	uint32_t n_schema;
	pq_asm_plan *plan;
	colfs_err *err;
} plan_ctx;

static bool is_group(const parquet_schema_elem *e)
{
	return e->n_children > 0 || e->type < 0;
}

static bool is_list(const parquet_schema_elem *e)
{
	return e->logical.kind == PARQUET_LT_LIST ||
	       e->converted_type == PARQUET_CT_LIST;
}

static bool is_map(const parquet_schema_elem *e)
{
	return e->logical.kind == PARQUET_LT_MAP ||
	       e->converted_type == PARQUET_CT_MAP ||
	       e->converted_type == PARQUET_CT_MAP_KEY_VALUE;
}

/* Schema index of the child of `idx` after child `prev` (prev == idx: the
 * first child).  The children follow their parent in depth-first order;
 * siblings are found by their parent index, so walking all children of a
 * node costs one pass over its subtree. */
static colfs_status child_next(plan_ctx *x, uint32_t idx, uint32_t prev,
			       uint32_t *out)
{
	const parquet_schema_elem *p = &x->schema[idx];
	uint32_t i;

	if (prev == idx) {
		i = p->first_child;
		if (p->n_children && i > idx && i < x->n_schema &&
		    x->schema[i].parent == (int32_t)idx) {
			*out = i;
			return COLFS_OK;
		}
	} else {
		for (i = prev + 1; i < x->n_schema; i++) {
			if (x->schema[i].parent == (int32_t)idx) {
				*out = i;
				return COLFS_OK;
			}
		}
	}
	return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
			  "schema element %u (%s): %u children declared, not found in the schema",
			  idx, p->name ? p->name : "?", p->n_children);
}

/* Child k (0 or 1) of `idx`. */
static colfs_status child_at(plan_ctx *x, uint32_t idx, uint32_t k,
			     uint32_t *out)
{
	uint32_t c = idx;

	for (uint32_t i = 0; i <= k; i++)
		COLFS_TRY(child_next(x, idx, c, &c));
	*out = c;
	return COLFS_OK;
}

static colfs_status plan_grow(pq_asm_plan *pl, colfs_err *err)
{
	if (pl->n_nodes == pl->cap_nodes) {
		uint32_t cap = pl->cap_nodes ? pl->cap_nodes * 2 : 16;
		pq_asm_node *n = realloc(pl->nodes, (size_t)cap * sizeof *n);
		if (!n)
			goto nomem;
		pl->nodes = n;
		pl->cap_nodes = cap;
	}
	return COLFS_OK;
nomem:
	return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory building the "
			  "assembly plan");
}

static colfs_status plan_node(plan_ctx *x, uint32_t idx, bool as_element,
			      uint32_t depth, uint32_t *out);

/* A list or map node whose repeated schema element is `rep_idx`. */
static colfs_status plan_repeated(plan_ctx *x, pq_asm_node *n,
				  uint32_t rep_idx)
{
	const parquet_schema_elem *r = &x->schema[rep_idx];

	if (r->max_rep <= 0 || r->max_def < 1 ||
	    (uint32_t)r->max_def <= n->def)
		return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema element %u (%s): repeated field with "
				  "levels rep %d def %d under def %u", rep_idx,
				  r->name ? r->name : "?", r->max_rep,
				  r->max_def, n->def);
	n->rep = (uint32_t)r->max_rep;
	n->rep_def = (uint32_t)r->max_def;
	return COLFS_OK;
}

/* Append kid indexes to node `ni` (contiguous in plan->kids): the caller
 * collects them first, since building a child appends to kids too. */
static colfs_status plan_set_kids(plan_ctx *x, uint32_t ni,
				  const uint32_t *k, uint32_t n)
{
	pq_asm_plan *pl = x->plan;

	if (pl->n_kids + n > pl->cap_kids) {
		uint32_t cap = pl->n_kids + n + 16;
		uint32_t *nk = realloc(pl->kids, (size_t)cap * sizeof *nk);
		if (!nk)
			return colfs_fail(x->err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
					  "out of memory building the assembly plan");
		pl->kids = nk;
		pl->cap_kids = cap;
	}
	if (n)
		memcpy(pl->kids + pl->n_kids, k, (size_t)n * sizeof *k);
	pl->nodes[ni].kids = pl->n_kids;
	pl->nodes[ni].n_kids = n;
	pl->n_kids += n;
	return COLFS_OK;
}

static colfs_status plan_struct(plan_ctx *x, uint32_t ni, uint32_t idx,
				uint32_t depth)
{
	const parquet_schema_elem *e = &x->schema[idx];
	uint32_t nk = e->n_children, i, c = idx, *tmp;
	colfs_status st = COLFS_OK;

	if (!nk)
		return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema element %u (%s): group without fields",
				  idx, e->name ? e->name : "?");
	tmp = malloc((size_t)nk * sizeof *tmp);
	if (!tmp)
		return colfs_fail(x->err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory");
	for (i = 0; i < nk && !st; i++) {
		st = child_next(x, idx, c, &c);
		if (!st)
			st = plan_node(x, c, false, depth + 1, &tmp[i]);
		if (!st) {
			pq_asm_node *cn = &x->plan->nodes[tmp[i]];
			const char *nm = x->schema[c].name ?
					 x->schema[c].name : "";
			colfs_buf *b = &x->plan->names;
			cn->name_off = b->len;
			colfs_render_json_string(b, (const uint8_t *)nm,
						 strlen(nm));
			colfs_buf_putc(b, ':');
			cn->name_len = b->len - cn->name_off;
			if (colfs_buf_status(b))
				st = colfs_fail(x->err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
						"out of memory");
		}
	}
	if (!st)
		st = plan_set_kids(x, ni, tmp, nk);
	free(tmp);
	return st;
}

/* LIST: which schema element is the element (LogicalTypes.md, lists,
 * backward-compatibility rules).  `*as_elem` tells whether it is the
 * repeated field itself (its repetition ignored, elements required). */
static colfs_status list_element(plan_ctx *x, uint32_t list_idx,
				 uint32_t rep_idx, uint32_t *elem,
				 bool *as_elem)
{
	const parquet_schema_elem *l = &x->schema[list_idx];
	const parquet_schema_elem *r = &x->schema[rep_idx];
	uint32_t c;

	*as_elem = true;
	*elem = rep_idx;
	if (!is_group(r) || r->n_children > 1)
		return COLFS_OK;                       /* rules 1 and 2 */
	COLFS_TRY(child_at(x, rep_idx, 0, &c));
	if (x->schema[c].repetition == PARQUET_REPEATED)
		return COLFS_OK;                       /* rule 3 */
	if (r->name && strcmp(r->name, "array") == 0)
		return COLFS_OK;                       /* rule 4 */
	if (r->name && l->name) {
		size_t ln = strlen(l->name);
		if (strncmp(r->name, l->name, ln) == 0 &&
		    strcmp(r->name + ln, "_tuple") == 0)
			return COLFS_OK;               /* rule 4 */
	}
	*as_elem = false;                              /* rule 5 */
	*elem = c;
	return COLFS_OK;
}

/* ---- VARIANT groups (parquet-format VariantEncoding.md and
 * VariantShredding.md) ---------------------------------------------------
 *
 * A VARIANT group has a required binary `metadata`, a binary `value` and
 * optionally a shredded `typed_value`: a primitive, a three-level LIST of
 * element groups, or a group of field groups; element and field groups
 * hold `value` and/or `typed_value` again.  A group annotated VARIANT that
 * does not have this shape is read by its structure, as a LIST or MAP
 * annotation that does not fit. */

static bool is_binary_leaf(const parquet_schema_elem *e)
{
	return !is_group(e) && e->type == PARQUET_BYTE_ARRAY &&
	       e->repetition != PARQUET_REPEATED;
}

static bool name_is(const parquet_schema_elem *e, const char *name)
{
	return e->name && strcmp(e->name, name) == 0;
}

static bool typed_fits(plan_ctx *x, uint32_t idx, uint32_t depth);

/* A group of `value` and/or `typed_value` (with `metadata` too when
 * `top`), each at most once. */
static bool vpart_fits(plan_ctx *x, uint32_t idx, bool top, uint32_t depth)
{
	const parquet_schema_elem *e = &x->schema[idx];
	uint32_t c = idx, seen_meta = 0, seen_value = 0, seen_typed = 0;
	colfs_err quiet = {0};
	colfs_err *keep = x->err;
	bool ok = true;

	if (depth > PQ_ASM_MAX_DEPTH || !is_group(e) || !e->n_children ||
	    (!top && e->repetition == PARQUET_REPEATED))
		return false;
	x->err = &quiet;
	for (uint32_t i = 0; i < e->n_children && ok; i++) {
		if (child_next(x, idx, c, &c)) {
			ok = false;
			break;
		}
		const parquet_schema_elem *k = &x->schema[c];
		if (top && name_is(k, "metadata"))
			ok = is_binary_leaf(k) &&
			     k->repetition == PARQUET_REQUIRED && !seen_meta++;
		else if (name_is(k, "value"))
			ok = is_binary_leaf(k) && !seen_value++;
		else if (name_is(k, "typed_value"))
			ok = !seen_typed++ && typed_fits(x, c, depth + 1);
		else
			ok = false;
	}
	x->err = keep;
	return ok && (top ? seen_meta == 1 : seen_value + seen_typed > 0);
}

/* A shredded typed_value: a primitive, a LIST of element groups, or a
 * group of field groups. */
static bool typed_fits(plan_ctx *x, uint32_t idx, uint32_t depth)
{
	const parquet_schema_elem *e = &x->schema[idx];
	uint32_t c = idx;

	if (depth > PQ_ASM_MAX_DEPTH || e->repetition == PARQUET_REPEATED)
		return false;
	if (!is_group(e))
		return e->leaf >= 0;
	if (!e->n_children)
		return false;
	if (is_list(e)) {
		const parquet_schema_elem *r;
		if (e->n_children != 1 || child_next(x, idx, idx, &c))
			return false;
		r = &x->schema[c];
		if (r->repetition != PARQUET_REPEATED || !is_group(r) ||
		    r->n_children != 1 || child_next(x, c, c, &c))
			return false;
		return x->schema[c].repetition == PARQUET_REQUIRED &&
		       vpart_fits(x, c, false, depth + 1);
	}
	for (uint32_t i = 0; i < e->n_children; i++)
		if (child_next(x, idx, c, &c) ||
		    !vpart_fits(x, c, false, depth + 1))
			return false;
	return true;
}

static colfs_status node_new(plan_ctx *x, uint32_t idx, uint8_t kind,
			     uint32_t *ni)
{
	const parquet_schema_elem *e = &x->schema[idx];
	pq_asm_node *n;

	COLFS_TRY(plan_grow(x->plan, x->err));
	*ni = x->plan->n_nodes++;
	n = &x->plan->nodes[*ni];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->schema = idx;
	n->leaf0 = x->plan->n_leaves;
	n->def = (uint32_t)e->max_def;
	n->nullable = e->repetition == PARQUET_OPTIONAL;
	n->vmeta = n->vvalue = n->vtyped = PQ_ASM_NONE;
	return COLFS_OK;
}

static colfs_status node_done(plan_ctx *x, uint32_t ni, uint32_t *out)
{
	pq_asm_node *n = &x->plan->nodes[ni];

	n->n_leaves = x->plan->n_leaves - n->leaf0;
	if (!n->n_leaves)
		return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema element %u has no leaf columns",
				  n->schema);
	*out = ni;
	return COLFS_OK;
}

/* A binary leaf whose values the caller hands over as raw bytes. */
static colfs_status plan_raw_leaf(plan_ctx *x, uint32_t idx, uint32_t depth,
				  uint32_t *leaf)
{
	uint32_t k;

	COLFS_TRY(plan_node(x, idx, false, depth, &k));
	*leaf = x->plan->nodes[k].leaf0;
	x->plan->leaves[*leaf].raw = true;
	return COLFS_OK;
}

static colfs_status plan_typed(plan_ctx *x, uint32_t idx, uint32_t depth,
			       uint32_t *out);

/* The value/typed_value (and metadata) children of a VARIANT or VPART
 * node `ni` (schema element idx). */
static colfs_status plan_vparts(plan_ctx *x, uint32_t ni, uint32_t idx,
				uint32_t depth)
{
	const parquet_schema_elem *e = &x->schema[idx];
	uint32_t c = idx, leaf, k;

	for (uint32_t i = 0; i < e->n_children; i++) {
		COLFS_TRY(child_next(x, idx, c, &c));
		if (name_is(&x->schema[c], "typed_value")) {
			COLFS_TRY(plan_typed(x, c, depth + 1, &k));
			x->plan->nodes[ni].vtyped = k;
			continue;
		}
		COLFS_TRY(plan_raw_leaf(x, c, depth + 1, &leaf));
		if (name_is(&x->schema[c], "metadata"))
			x->plan->nodes[ni].vmeta = leaf;
		else
			x->plan->nodes[ni].vvalue = leaf;
	}
	return COLFS_OK;
}

static colfs_status plan_vpart(plan_ctx *x, uint32_t idx, uint32_t depth,
			       uint32_t *out)
{
	uint32_t ni;

	if (depth > PQ_ASM_MAX_DEPTH)
		return colfs_fail(x->err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "nesting deeper than %d levels",
				  PQ_ASM_MAX_DEPTH);
	COLFS_TRY(node_new(x, idx, PQ_ASM_VPART, &ni));
	COLFS_TRY(plan_vparts(x, ni, idx, depth));
	return node_done(x, ni, out);
}

static int raw_name_cmp(const pq_asm_plan *pl, uint32_t a, uint32_t b)
{
	const pq_asm_node *x = &pl->nodes[a], *y = &pl->nodes[b];
	size_t n = x->raw_len < y->raw_len ? x->raw_len : y->raw_len;
	int c = memcmp(pl->names.data + x->raw_off,
		       pl->names.data + y->raw_off, n);

	if (c)
		return c;
	return x->raw_len < y->raw_len ? -1 : x->raw_len > y->raw_len;
}

static colfs_status plan_typed(plan_ctx *x, uint32_t idx, uint32_t depth,
			       uint32_t *out)
{
	const parquet_schema_elem *e = &x->schema[idx];
	pq_asm_plan *pl = x->plan;
	uint32_t ni, c = idx, nk = e->n_children, *tmp;
	colfs_status st = COLFS_OK;

	if (depth > PQ_ASM_MAX_DEPTH)
		return colfs_fail(x->err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "nesting deeper than %d levels",
				  PQ_ASM_MAX_DEPTH);
	if (!is_group(e))
		return plan_node(x, idx, false, depth, out);
	if (is_list(e)) {
		uint32_t rep_child, el;
		COLFS_TRY(node_new(x, idx, PQ_ASM_LIST, &ni));
		COLFS_TRY(child_at(x, idx, 0, &rep_child));
		COLFS_TRY(plan_repeated(x, &pl->nodes[ni], rep_child));
		COLFS_TRY(child_at(x, rep_child, 0, &el));
		COLFS_TRY(plan_vpart(x, el, depth + 1, &el));
		COLFS_TRY(plan_set_kids(x, ni, &el, 1));
		return node_done(x, ni, out);
	}
	COLFS_TRY(node_new(x, idx, PQ_ASM_VOBJECT, &ni));
	tmp = malloc((size_t)nk * sizeof *tmp);
	if (!tmp)
		return colfs_fail(x->err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory");
	for (uint32_t i = 0; i < nk && !st; i++) {
		st = child_next(x, idx, c, &c);
		if (!st)
			st = plan_vpart(x, c, depth + 1, &tmp[i]);
		if (!st) {
			pq_asm_node *cn = &pl->nodes[tmp[i]];
			const char *nm = x->schema[c].name ?
					 x->schema[c].name : "";
			colfs_buf *b = &pl->names;
			cn->name_off = b->len;
			colfs_render_json_string(b, (const uint8_t *)nm,
						 strlen(nm));
			colfs_buf_putc(b, ':');
			cn->name_len = b->len - cn->name_off;
			cn->raw_off = b->len;
			colfs_buf_append(b, nm, strlen(nm));
			cn->raw_len = b->len - cn->raw_off;
			if (b->failed)
				st = colfs_fail(x->err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
						"out of memory building the assembly plan");
		}
	}
	/* fields in key order (as a variant object lists them), so that
	 * they merge with the fields of a partially shredded value; the
	 * leaves of each field are read independently of that order */
	for (uint32_t i = 1; i < nk && !st; i++)
		for (uint32_t j = i; j > 0 &&
		     raw_name_cmp(pl, tmp[j - 1], tmp[j]) > 0; j--) {
			uint32_t t = tmp[j];
			tmp[j] = tmp[j - 1];
			tmp[j - 1] = t;
		}
	if (!st)
		st = plan_set_kids(x, ni, tmp, nk);
	free(tmp);
	COLFS_TRY(st);
	return node_done(x, ni, out);
}

/* A VARIANT group (its shape checked by vpart_fits) as node ni. */
static colfs_status plan_variant(plan_ctx *x, uint32_t ni, uint32_t idx,
				 uint32_t depth)
{
	pq_asm_node *n = &x->plan->nodes[ni];

	n->kind = PQ_ASM_VARIANT;
	n->vmeta = n->vvalue = n->vtyped = PQ_ASM_NONE;
	return plan_vparts(x, ni, idx, depth);
}

static colfs_status plan_node(plan_ctx *x, uint32_t idx, bool as_element,
			      uint32_t depth, uint32_t *out)
{
	pq_asm_plan *pl = x->plan;
	const parquet_schema_elem *e;
	pq_asm_node *n;
	uint32_t ni, rep_child = 0;
	bool repeated_child = false;

	if (idx >= x->n_schema)
		return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema index %u out of range", idx);
	if (depth > PQ_ASM_MAX_DEPTH)
		return colfs_fail(x->err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "nesting deeper than %d levels",
				  PQ_ASM_MAX_DEPTH);
	e = &x->schema[idx];
	if (e->max_def < 0 || e->max_rep < 0)
		return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema element %u: negative levels", idx);
	COLFS_TRY(plan_grow(pl, x->err));
	ni = pl->n_nodes++;
	n = &pl->nodes[ni];
	memset(n, 0, sizeof *n);
	n->schema = idx;
	n->leaf0 = pl->n_leaves;

	if (e->repetition == PARQUET_REPEATED && !as_element) {
		/* A repeated field without a LIST around it: an array of
		 * required elements of its type. */
		uint32_t el;
		n->kind = PQ_ASM_LIST;
		n->def = (uint32_t)e->max_def - 1;
		COLFS_TRY(plan_repeated(x, n, idx));
		COLFS_TRY(plan_node(x, idx, true, depth + 1, &el));
		COLFS_TRY(plan_set_kids(x, ni, &el, 1));
		goto done;
	}
	n->def = (uint32_t)e->max_def;
	n->nullable = e->repetition == PARQUET_OPTIONAL && !as_element;
	if (!is_group(e)) {
		pq_asm_leaf *lf;
		if (e->leaf < 0)
			return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "schema element %u (%s) is not a leaf column",
					  idx, e->name ? e->name : "?");
		if (pl->n_leaves == pl->cap_leaves) {
			uint32_t cap = pl->cap_leaves ? pl->cap_leaves * 2 : 8;
			lf = realloc(pl->leaves, (size_t)cap * sizeof *lf);
			if (!lf)
				return colfs_fail(x->err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
						  "out of memory");
			pl->leaves = lf;
			pl->cap_leaves = cap;
		}
		lf = &pl->leaves[pl->n_leaves++];
		lf->schema = idx;
		lf->column = e->leaf;
		lf->max_def = (uint32_t)e->max_def;
		lf->max_rep = (uint32_t)e->max_rep;
		lf->raw = false;
		n = &pl->nodes[ni];
		n->kind = PQ_ASM_LEAF;
		goto done;
	}
	if (e->logical.kind == PARQUET_LT_VARIANT &&
	    vpart_fits(x, idx, true, depth)) {
		COLFS_TRY(plan_variant(x, ni, idx, depth));
		goto done;
	}
	if (e->n_children == 1) {
		COLFS_TRY(child_at(x, idx, 0, &rep_child));
		repeated_child = x->schema[rep_child].repetition ==
				 PARQUET_REPEATED;
	}
	if (is_list(e) && repeated_child) {
		uint32_t el;
		bool as_elem;
		n->kind = PQ_ASM_LIST;
		COLFS_TRY(plan_repeated(x, n, rep_child));
		COLFS_TRY(list_element(x, idx, rep_child, &el, &as_elem));
		COLFS_TRY(plan_node(x, el, as_elem, depth + 1, &el));
		COLFS_TRY(plan_set_kids(x, ni, &el, 1));
		goto done;
	}
	if (is_map(e) && repeated_child && is_group(&x->schema[rep_child]) &&
	    x->schema[rep_child].n_children <= 2) {
		uint32_t kv[2], c, nk = x->schema[rep_child].n_children, i;
		n->kind = PQ_ASM_MAP;
		COLFS_TRY(plan_repeated(x, n, rep_child));
		for (i = 0; i < nk; i++) {
			COLFS_TRY(child_at(x, rep_child, i, &c));
			COLFS_TRY(plan_node(x, c, false, depth + 1, &kv[i]));
		}
		COLFS_TRY(plan_set_kids(x, ni, kv, nk));
		goto done;
	}
	/* A plain group (or an annotation whose shape does not fit: read by
	 * structure). */
	pl->nodes[ni].kind = PQ_ASM_STRUCT;
	COLFS_TRY(plan_struct(x, ni, idx, depth));
done:
	n = &pl->nodes[ni];
	n->n_leaves = pl->n_leaves - n->leaf0;
	if (!n->n_leaves)
		return colfs_fail(x->err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema element %u has no leaf columns", idx);
	*out = ni;
	return COLFS_OK;
}

bool pq_asm_field_is_flat(const parquet_schema_elem *schema,
			  uint32_t n_schema, uint32_t field)
{
	const parquet_schema_elem *e;

	if (!schema || field == 0 || field >= n_schema)
		return false;
	e = &schema[field];
	return e->parent == 0 && !is_group(e) &&
	       e->repetition != PARQUET_REPEATED;
}

void pq_asm_plan_destroy(pq_asm_plan *plan)
{
	if (!plan)
		return;
	free(plan->nodes);
	free(plan->kids);
	free(plan->leaves);
	colfs_buf_free(&plan->names);
	free(plan);
}

colfs_status pq_asm_plan_create(const parquet_schema_elem *schema,
				uint32_t n_schema, uint32_t field,
				pq_asm_plan **out, colfs_err *err)
{
	plan_ctx x = {schema, n_schema, NULL, err};
	uint32_t root;
	colfs_status st;

	*out = NULL;
	if (!schema || field == 0 || field >= n_schema ||
	    schema[field].parent != 0)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "schema index %u is not a top-level field",
				  field);
	x.plan = calloc(1, sizeof *x.plan);
	if (!x.plan)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory");
	st = plan_node(&x, field, false, 0, &root);
	if (st) {
		pq_asm_plan_destroy(x.plan);
		return st;
	}
	*out = x.plan;
	return COLFS_OK;
}

uint32_t pq_asm_plan_leaves(const pq_asm_plan *plan)
{
	return plan->n_leaves;
}

int32_t pq_asm_plan_leaf_column(const pq_asm_plan *plan, uint32_t i)
{
	return i < plan->n_leaves ? plan->leaves[i].column : -1;
}

uint32_t pq_asm_plan_leaf_schema(const pq_asm_plan *plan, uint32_t i)
{
	return i < plan->n_leaves ? plan->leaves[i].schema : 0;
}

uint32_t pq_asm_plan_leaf_max_def(const pq_asm_plan *plan, uint32_t i)
{
	return i < plan->n_leaves ? plan->leaves[i].max_def : 0;
}

uint32_t pq_asm_plan_leaf_max_rep(const pq_asm_plan *plan, uint32_t i)
{
	return i < plan->n_leaves ? plan->leaves[i].max_rep : 0;
}

bool pq_asm_plan_leaf_raw(const pq_asm_plan *plan, uint32_t i)
{
	return i < plan->n_leaves && plan->leaves[i].raw;
}

bool pq_asm_plan_nullable(const pq_asm_plan *plan)
{
	return plan->nodes[0].nullable;
}

static void describe(const pq_asm_plan *pl, uint32_t ni, unsigned indent,
		     colfs_buf *out)
{
	static const char *const kinds[] = {"leaf", "struct", "list", "map",
					    "variant", "variant-part",
					    "shredded-object"};
	const pq_asm_node *n = &pl->nodes[ni];
	uint32_t i;

	for (i = 0; i < indent; i++)
		colfs_buf_puts(out, "  ");
	if (n->name_len)
		colfs_buf_append(out, pl->names.data + n->name_off,
				 n->name_len);
	colfs_buf_printf(out, "%s def=%u%s", kinds[n->kind], n->def,
			 n->nullable ? " nullable" : "");
	if (n->kind == PQ_ASM_LIST || n->kind == PQ_ASM_MAP)
		colfs_buf_printf(out, " rep=%u rep_def=%u", n->rep, n->rep_def);
	if (n->kind == PQ_ASM_LEAF)
		colfs_buf_printf(out, " leaf=%u", n->leaf0);
	if (n->vmeta != PQ_ASM_NONE && n->kind == PQ_ASM_VARIANT)
		colfs_buf_printf(out, " metadata=%u", n->vmeta);
	if (n->vvalue != PQ_ASM_NONE &&
	    (n->kind == PQ_ASM_VARIANT || n->kind == PQ_ASM_VPART))
		colfs_buf_printf(out, " value=%u", n->vvalue);
	colfs_buf_putc(out, '\n');
	for (i = 0; i < n->n_kids; i++)
		describe(pl, pl->kids[n->kids + i], indent + 1, out);
}

void pq_asm_plan_describe(const pq_asm_plan *plan, colfs_buf *out)
{
	describe(plan, 0, 0, out);
}

/* ---- assembly ------------------------------------------------------------ */

/* Appends without a call when the buffer has room (the sticky failure of
 * colfs_buf is kept: a failed buffer goes the slow way and stays
 * failed). */
static inline void out_putc(colfs_buf *b, char c)
{
	if (b->len < b->cap && !b->failed)
		b->data[b->len++] = c;
	else
		colfs_buf_putc(b, c);
}

static inline void out_append(colfs_buf *b, const void *p, size_t n)
{
	if (n <= b->cap - b->len && !b->failed) {
		if (n)
			memcpy(b->data + b->len, p, n);
		b->len += n;
	} else {
		colfs_buf_append(b, p, n);
	}
}

typedef struct asm_leaf {
	pq_asm_leaf_batch b;
	size_t pos;      /* next entry */
	size_t k;        /* next value */
} asm_leaf;

struct pq_asm {
	const pq_asm_plan *plan;
	asm_leaf *lv;
	size_t records, done;
	colfs_buf scratch;
	pq_variant_meta meta;    /* of the variant being assembled */
	uint64_t v_off;          /* file offset of the page of the last raw
				    value taken (COLFS_OFFSET_UNKNOWN) */
};

colfs_status pq_asm_create(const pq_asm_plan *plan, pq_asm **out,
			   colfs_err *err)
{
	pq_asm *a;

	*out = NULL;
	a = calloc(1, sizeof *a);
	if (a)
		a->lv = calloc(plan->n_leaves, sizeof *a->lv);
	if (!a || !a->lv) {
		free(a);
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN, "out of memory");
	}
	a->plan = plan;
	*out = a;
	return COLFS_OK;
}

void pq_asm_destroy(pq_asm *a)
{
	if (!a)
		return;
	free(a->lv);
	colfs_buf_free(&a->scratch);
	free(a);
}

static void batch_drop(pq_asm *a)
{
	memset(a->lv, 0, a->plan->n_leaves * sizeof *a->lv);
	a->records = a->done = 0;
}

colfs_status pq_asm_batch_set(pq_asm *a, const pq_asm_leaf_batch *leaves,
			      size_t *records, colfs_err *err)
{
	const pq_asm_plan *pl = a->plan;
	size_t recs = 0;
	uint32_t l;

	batch_drop(a);
	a->v_off = COLFS_OFFSET_UNKNOWN;
	if (records)
		*records = 0;
	for (l = 0; l < pl->n_leaves; l++) {
		const pq_asm_leaf_batch *b = &leaves[l];
		const uint32_t mr = pl->leaves[l].max_rep;
		const uint32_t md = pl->leaves[l].max_def;
		size_t i, r = 0, v = 0;

		if (b->n && b->rep && b->rep[0] != 0)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u: batch starts inside a record (rep %u)",
					  l, b->rep[0]);
		if (!b->render && b->n_values && (!b->text || !b->off))
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u: values without text or renderer",
					  l);
		if (pl->leaves[l].raw && b->render && b->n_values)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u: variant bytes need text and offsets, not a renderer",
					  l);
		for (i = 0; i < b->n; i++) {
			uint32_t rl = b->rep ? b->rep[i] : 0;
			uint32_t dl = b->def ? b->def[i] : md;
			if (rl > mr || dl > md)
				return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
						  "leaf %u entry %zu: levels rep %u def %u beyond the maxima rep %u def %u",
						  l, i, rl, dl, mr, md);
			r += rl == 0;
			v += dl == md;
		}
		if (v != b->n_values)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u: %zu values expected from the levels, %zu given",
					  l, v, b->n_values);
		if (!b->render)
			for (i = 0; i < v; i++)
				if (b->off[i] > b->off[i + 1])
					return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
							  "leaf %u: value offsets decrease at %zu",
							  l, i);
		if (l == 0)
			recs = r;
		else if (r != recs)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u holds %zu records, leaf 0 %zu",
					  l, r, recs);
	}
	for (l = 0; l < pl->n_leaves; l++)
		a->lv[l].b = leaves[l];
	a->records = recs;
	if (records)
		*records = recs;
	return COLFS_OK;
}

size_t pq_asm_records_left(const pq_asm *a)
{
	return a->records - a->done;
}

static inline uint32_t lv_rep(const asm_leaf *L)
{
	return L->b.rep ? L->b.rep[L->pos] : 0;
}

static inline uint32_t lv_def(const asm_leaf *L, uint32_t max_def)
{
	return L->b.def ? L->b.def[L->pos] : max_def;
}

static colfs_status bad_entry(const pq_asm *a, uint32_t leaf, const char *what,
			      uint32_t got, uint32_t want, colfs_err *err)
{
	return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
			  "leaf %u entry %zu (record %zu): %s %u, expected %u",
			  leaf, a->lv[leaf].pos, a->done, what, got, want);
}

/* Every leaf under `n` has one entry for an absent instance: repetition
 * level r_exp, definition level in [floor, below). */
static colfs_status consume_absent(pq_asm *a, const pq_asm_node *n,
				   uint32_t r_exp, uint32_t floor,
				   uint32_t below, colfs_err *err)
{
	uint32_t l;

	for (l = n->leaf0; l < n->leaf0 + n->n_leaves; l++) {
		asm_leaf *L = &a->lv[l];
		uint32_t d, r;
		if (L->pos >= L->b.n)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u ends inside record %zu", l,
					  a->done);
		r = lv_rep(L);
		d = lv_def(L, a->plan->leaves[l].max_def);
		if (r != r_exp)
			return bad_entry(a, l, "repetition level", r, r_exp,
					 err);
		if (d < floor || d >= below)
			return bad_entry(a, l, "definition level", d,
					 d < floor ? floor : below - 1, err);
		L->pos++;
	}
	return COLFS_OK;
}

static void put_value(asm_leaf *L, uint32_t leaf, colfs_buf *out)
{
	const pq_asm_leaf_batch *b = &L->b;
	size_t k = L->k++;

	if (b->render)
		b->render(b->ctx, leaf, k, out);
	else
		out_append(out, b->text + b->off[k],
				 b->off[k + 1] - b->off[k]);
}

static colfs_status emit(pq_asm *a, uint32_t ni, uint32_t r_exp,
			 uint32_t floor, colfs_buf *out, colfs_err *err);

/* A map key: its JSON as rendered, turned into a JSON string when it is
 * not one already (numbers, booleans, null, nested values). */
static colfs_status emit_key(pq_asm *a, uint32_t ni, uint32_t r_exp,
			     uint32_t floor, colfs_buf *out, colfs_err *err)
{
	size_t at = out->len;

	COLFS_TRY(emit(a, ni, r_exp, floor, out, err));
	if (out->failed || (out->len > at && out->data[at] == '"'))
		return COLFS_OK;
	a->scratch.len = 0;
	colfs_buf_append(&a->scratch, out->data + at, out->len - at);
	if (a->scratch.failed) {
		out->failed = true;
		return COLFS_OK;
	}
	out->len = at;
	colfs_render_json_string(out, (const uint8_t *)a->scratch.data,
				 a->scratch.len);
	return COLFS_OK;
}

/* ---- variants ------------------------------------------------------------ */

/* The entry of leaf l for an instance starting at repetition level r_exp
 * under a present ancestor at definition level floor; *d its level. */
static colfs_status entry_at(const pq_asm *a, uint32_t l, uint32_t r_exp,
			     uint32_t floor, uint32_t *d, colfs_err *err)
{
	const asm_leaf *L = &a->lv[l];
	uint32_t r;

	if (L->pos >= L->b.n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "leaf %u ends inside record %zu", l, a->done);
	r = lv_rep(L);
	*d = lv_def(L, a->plan->leaves[l].max_def);
	if (r != r_exp)
		return bad_entry(a, l, "repetition level", r, r_exp, err);
	if (*d < floor)
		return bad_entry(a, l, "definition level", *d, floor, err);
	return COLFS_OK;
}

/* The bytes of the next value of a raw leaf (borrowed from the batch). */
static void raw_take(pq_asm *a, asm_leaf *L, const uint8_t **p, size_t *n)
{
	const size_t k = L->k++;

	a->v_off = L->b.page_off ? L->b.page_off[k] : COLFS_OFFSET_UNKNOWN;
	*p = (const uint8_t *)L->b.text + L->b.off[k];
	*n = L->b.off[k + 1] - L->b.off[k];
}

/* A decoder error, with the record it belongs to. */
static colfs_status variant_err(const pq_asm *a, colfs_status st,
				colfs_err *err)
{
	char inner[sizeof err->msg];

	memcpy(inner, err->msg, sizeof inner);
	inner[sizeof inner - 1] = 0;
	return colfs_fail(err, st, a->v_off, "variant of record %zu: %s",
			  a->done, inner);
}

/* The JSON of value v[0..n), which may draw on a shared budget (NULL:
 * its own). */
static colfs_status variant_json(pq_asm *a, const uint8_t *v, size_t n,
				 size_t *budget, colfs_buf *out,
				 colfs_err *err)
{
	size_t own = n;
	colfs_status st = pq_variant_to_json_budget(&a->meta, v, n,
						    budget ? budget : &own,
						    out, err);

	if (st == COLFS_OK || out->failed)
		return COLFS_OK;	/* a failed buffer: the caller sees it */
	return variant_err(a, st, err);
}

static int key_cmp(const char *a, size_t an, const uint8_t *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

static colfs_status emit_vbody(pq_asm *a, const pq_asm_node *n,
			       uint32_t r_exp, colfs_buf *out, bool *missing,
			       colfs_err *err);

/* A value/typed_value group that may be absent as a whole (an optional
 * field group): *missing when it is, or when both parts are null. */
static colfs_status emit_vpart(pq_asm *a, uint32_t ni, uint32_t r_exp,
			       uint32_t floor, colfs_buf *out, bool *missing,
			       colfs_err *err)
{
	const pq_asm_node *n = &a->plan->nodes[ni];
	uint32_t d;

	COLFS_TRY(entry_at(a, n->leaf0, r_exp, floor, &d, err));
	if (d < n->def) {
		if (!n->nullable)
			return bad_entry(a, n->leaf0, "definition level", d,
					 n->def, err);
		COLFS_TRY(consume_absent(a, n, r_exp, floor, n->def, err));
		*missing = true;
		return COLFS_OK;
	}
	return emit_vbody(a, n, r_exp, out, missing, err);
}

/* A shredded object (node ti, present) merged with the fields of the
 * partially shredded value v[0..vn) when has_v: both in key order; a
 * shredded field that is present wins over a value field of the same
 * key, a missing one lets it through. */
static colfs_status emit_vobject(pq_asm *a, uint32_t ti, uint32_t r_exp,
				 const uint8_t *v, size_t vn, bool has_v,
				 colfs_buf *out, colfs_err *err)
{
	const pq_asm_plan *pl = a->plan;
	const pq_asm_node *t = &pl->nodes[ti];
	pq_variant_object o;
	uint32_t i = 0, k = 0;
	bool first = true;
	size_t budget = vn;    /* the fields share the object's bytes */

	memset(&o, 0, sizeof o);
	if (has_v) {
		if (!pq_variant_is_object(v, vn))
			return colfs_fail(err, COLFS_ECORRUPT, a->v_off,
					  "variant of record %zu: typed_value holds shredded object fields but value is not an object",
					  a->done);
		if (pq_variant_object_open(v, vn, &o, err))
			return variant_err(a, err->status, err);
	}
	out_putc(out, '{');
	while (k < t->n_kids || i < o.n) {
		const uint8_t *key = NULL, *val = NULL;
		size_t klen = 0, vlen = 0;
		if (i < o.n && pq_variant_object_field(&o, &a->meta, i, &key,
							&klen, &val, &vlen,
							err))
			return variant_err(a, err->status, err);
		if (k < t->n_kids) {
			const uint32_t fi = pl->kids[t->kids + k];
			const pq_asm_node *f = &pl->nodes[fi];
			int c = i < o.n ? key_cmp(pl->names.data + f->raw_off,
						  f->raw_len, key, klen) : -1;
			if (c <= 0) {
				const size_t mark = out->len;
				bool miss = false;
				if (!first)
					out_putc(out, ',');
				out_append(out, pl->names.data + f->name_off,
					   f->name_len);
				COLFS_TRY(emit_vpart(a, fi, r_exp, t->def, out,
						     &miss, err));
				k++;
				if (miss) {
					if (!out->failed)
						out->len = mark;
				} else {
					first = false;
					i += c == 0;
				}
				continue;
			}
		}
		if (!first)
			out_putc(out, ',');
		colfs_render_json_string(out, key, klen);
		out_putc(out, ':');
		COLFS_TRY(variant_json(a, val, vlen, &budget, out, err));
		first = false;
		i++;
	}
	out_putc(out, '}');
	return COLFS_OK;
}

/* The value and typed_value of a present VARIANT or VPART node n
 * (VariantShredding.md, "Reconstructing a Shredded Variant"):
 * typed_value when it is not null (an object merged with the fields of
 * value), else value, else *missing. */
static colfs_status emit_vbody(pq_asm *a, const pq_asm_node *n,
			       uint32_t r_exp, colfs_buf *out, bool *missing,
			       colfs_err *err)
{
	const uint8_t *vp = NULL;
	size_t vn = 0;
	bool has_v = false;
	uint32_t d;

	*missing = false;
	if (n->vvalue != PQ_ASM_NONE) {
		asm_leaf *L = &a->lv[n->vvalue];
		COLFS_TRY(entry_at(a, n->vvalue, r_exp, n->def, &d, err));
		if (d == a->plan->leaves[n->vvalue].max_def) {
			raw_take(a, L, &vp, &vn);
			has_v = true;
		}
		L->pos++;
	}
	if (n->vtyped != PQ_ASM_NONE) {
		const pq_asm_node *t = &a->plan->nodes[n->vtyped];
		COLFS_TRY(entry_at(a, t->leaf0, r_exp, n->def, &d, err));
		if (d >= t->def) {
			if (t->kind == PQ_ASM_VOBJECT)
				return emit_vobject(a, n->vtyped, r_exp, vp,
						    vn, has_v, out, err);
			/* a primitive or an array: typed_value wins over
			 * a value written beside it (which the
			 * specification forbids) */
			return emit(a, n->vtyped, r_exp, n->def, out, err);
		}
		COLFS_TRY(consume_absent(a, t, r_exp, n->def, t->def, err));
	}
	if (!has_v) {
		*missing = true;
		return COLFS_OK;
	}
	return variant_json(a, vp, vn, NULL, out, err);
}

/* A present VARIANT group: its metadata, then its value. */
static colfs_status emit_variant(pq_asm *a, const pq_asm_node *n,
				 uint32_t r_exp, colfs_buf *out,
				 colfs_err *err)
{
	const pq_variant_meta keep = a->meta;
	const uint8_t *mp;
	size_t mn;
	uint32_t d;
	bool missing;
	colfs_status st;

	COLFS_TRY(entry_at(a, n->vmeta, r_exp, n->def, &d, err));
	if (d != a->plan->leaves[n->vmeta].max_def)
		return bad_entry(a, n->vmeta, "definition level", d,
				 a->plan->leaves[n->vmeta].max_def, err);
	raw_take(a, &a->lv[n->vmeta], &mp, &mn);
	a->lv[n->vmeta].pos++;
	if (pq_variant_meta_parse(mp, mn, &a->meta, err))
		st = variant_err(a, err->status, err);
	else
		st = emit_vbody(a, n, r_exp, out, &missing, err);
	if (!st && missing)
		out_append(out, "null", 4);	/* a missing variant is null */
	a->meta = keep;
	return st;
}

static colfs_status emit(pq_asm *a, uint32_t ni, uint32_t r_exp,
			 uint32_t floor, colfs_buf *out, colfs_err *err)
{
	const pq_asm_plan *pl = a->plan;
	const pq_asm_node *n = &pl->nodes[ni];
	asm_leaf *L = &a->lv[n->leaf0];
	uint32_t r, d, i;

	if (L->pos >= L->b.n)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "leaf %u ends inside record %zu", n->leaf0,
				  a->done);
	r = lv_rep(L);
	d = lv_def(L, pl->leaves[n->leaf0].max_def);
	if (r != r_exp)
		return bad_entry(a, n->leaf0, "repetition level", r, r_exp,
				 err);
	if (d < floor)
		return bad_entry(a, n->leaf0, "definition level", d, floor,
				 err);
	if (d < n->def) {
		if (!n->nullable)
			return bad_entry(a, n->leaf0, "definition level", d,
					 n->def, err);
		COLFS_TRY(consume_absent(a, n, r_exp, floor, n->def, err));
		out_append(out, "null", 4);
		return COLFS_OK;
	}
	switch (n->kind) {
	case PQ_ASM_LEAF:
		put_value(L, n->leaf0, out);
		L->pos++;
		return COLFS_OK;
	case PQ_ASM_VARIANT:
		return emit_variant(a, n, r_exp, out, err);
	case PQ_ASM_VPART: {
		bool missing;
		COLFS_TRY(emit_vbody(a, n, r_exp, out, &missing, err));
		if (missing)	/* an array element must be there: null */
			out_append(out, "null", 4);
		return COLFS_OK;
	}
	case PQ_ASM_VOBJECT:
		return emit_vobject(a, ni, r_exp, NULL, 0, false, out, err);
	case PQ_ASM_STRUCT:
		out_putc(out, '{');
		for (i = 0; i < n->n_kids; i++) {
			const pq_asm_node *c = &pl->nodes[pl->kids[n->kids + i]];
			if (i)
				out_putc(out, ',');
			out_append(out, pl->names.data + c->name_off,
					 c->name_len);
			COLFS_TRY(emit(a, pl->kids[n->kids + i], r_exp, n->def,
				       out, err));
		}
		out_putc(out, '}');
		return COLFS_OK;
	case PQ_ASM_LIST:
	case PQ_ASM_MAP: {
		const bool map = n->kind == PQ_ASM_MAP;
		if (d < n->rep_def) {
			COLFS_TRY(consume_absent(a, n, r_exp, n->def,
						 n->rep_def, err));
			out_append(out, map ? "{}" : "[]", 2);
			return COLFS_OK;
		}
		out_putc(out, map ? '{' : '[');
		if (!map && pl->nodes[pl->kids[n->kids]].kind == PQ_ASM_LEAF) {
			/* The common list of scalars, without recursion:
			 * the same checks as emit() on each element. */
			const pq_asm_node *el = &pl->nodes[pl->kids[n->kids]];
			const uint32_t md = pl->leaves[n->leaf0].max_def;
			for (;;) {
				if (d == md) {
					put_value(L, n->leaf0, out);
				} else if (el->nullable) {
					out_append(out, "null", 4);
				} else {
					return bad_entry(a, n->leaf0,
							 "definition level", d,
							 md, err);
				}
				L->pos++;
				if (L->pos >= L->b.n || lv_rep(L) != n->rep)
					break;
				d = lv_def(L, md);
				if (d < n->rep_def)
					return bad_entry(a, n->leaf0,
							 "definition level", d,
							 n->rep_def, err);
				out_putc(out, ',');
			}
			out_putc(out, ']');
			return COLFS_OK;
		}
		for (i = 0;; i++) {
			if (i)
				out_putc(out, ',');
			if (!map) {
				COLFS_TRY(emit(a, pl->kids[n->kids], r_exp,
					       n->rep_def, out, err));
			} else {
				COLFS_TRY(emit_key(a, pl->kids[n->kids], r_exp,
						   n->rep_def, out, err));
				out_putc(out, ':');
				if (n->n_kids > 1)
					COLFS_TRY(emit(a, pl->kids[n->kids + 1],
						       r_exp, n->rep_def, out,
						       err));
				else
					out_append(out, "null", 4);
			}
			if (L->pos >= L->b.n || lv_rep(L) != n->rep)
				break;
			r_exp = n->rep;
		}
		out_putc(out, map ? '}' : ']');
		return COLFS_OK;
	}
	}
	return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN, "bad plan node");
}

/* After a record every leaf stands at the start of the next one. */
static colfs_status check_record_end(pq_asm *a, colfs_err *err)
{
	uint32_t l;

	for (l = 0; l < a->plan->n_leaves; l++) {
		const asm_leaf *L = &a->lv[l];
		if (L->pos < L->b.n && lv_rep(L) != 0)
			return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					  "leaf %u entry %zu (record %zu): repetition level %u does not fit the schema",
					  l, L->pos, a->done, lv_rep(L));
	}
	return COLFS_OK;
}

colfs_status pq_asm_next(pq_asm *a, colfs_buf *out, const char *top_null,
			 colfs_err *err)
{
	const pq_asm_node *root = &a->plan->nodes[0];
	const asm_leaf *L = &a->lv[root->leaf0];
	colfs_status st;

	const size_t at = out->len;

	if (a->done >= a->records)
		return COLFS_END;
	/* every leaf must stand at a record start (level 0): a chunk whose
	 * first entry continues a row has no record to put it in */
	if ((st = check_record_end(a, err)))
		return st;
	if (top_null && root->nullable && L->pos < L->b.n &&
	    lv_def(L, a->plan->leaves[root->leaf0].max_def) < root->def) {
		st = consume_absent(a, root, 0, 0, root->def, err);
		if (!st)
			colfs_buf_puts(out, top_null);
	} else {
		st = emit(a, 0, 0, 0, out, err);
	}
	if (!st)
		st = check_record_end(a, err);
	if (st) {
		batch_drop(a);
		return st;
	}
	/* a variant holding the variant null is a NULL value, as DuckDB
	 * reads it (docs/values.md, VARIANT) */
	if (top_null && root->kind == PQ_ASM_VARIANT && !out->failed &&
	    out->len - at == 4 && memcmp(out->data + at, "null", 4) == 0) {
		out->len = at;
		colfs_buf_puts(out, top_null);
	}
	a->done++;
	return COLFS_OK;
}

colfs_status pq_asm_lines(pq_asm *a, colfs_buf *out, const char *top_null,
			  size_t max, size_t *done, colfs_err *err)
{
	size_t n = 0;
	colfs_status st = COLFS_OK;

	while (n < max) {
		size_t at = out->len;
		st = pq_asm_next(a, out, top_null, err);
		if (st == COLFS_END) {
			st = COLFS_OK;
			break;
		}
		if (st) {
			if (!out->failed)
				out->len = at;
			break;
		}
		out_putc(out, '\n');
		n++;
	}
	if (done)
		*done = n;
	return st;
}

colfs_status pq_asm_skip(pq_asm *a, size_t n, size_t *done, colfs_err *err)
{
	size_t left = a->records - a->done;
	uint32_t l;

	(void)err;
	if (n > left)
		n = left;
	for (l = 0; l < a->plan->n_leaves && n; l++) {
		asm_leaf *L = &a->lv[l];
		const uint32_t md = a->plan->leaves[l].max_def;
		size_t seen = 0;
		while (L->pos < L->b.n) {
			if (lv_rep(L) == 0 && seen++ == n)
				break;
			L->k += lv_def(L, md) == md;
			L->pos++;
		}
	}
	a->done += n;
	if (done)
		*done = n;
	return COLFS_OK;
}

size_t pq_asm_complete_records(const uint32_t *rep, const uint32_t *def,
			       uint32_t max_def, size_t n, bool at_end,
			       size_t max_records, size_t *entries,
			       size_t *values)
{
	size_t i, starts = 0, last = 0, vals = 0, vals_last = 0;
	size_t cut, cut_vals, recs;

	for (i = 0; i < n; i++) {
		if (!rep || rep[i] == 0) {
			if (starts == max_records) {
				/* records 0 .. starts-1 end here */
				cut = i;
				cut_vals = vals;
				recs = starts;
				goto out;
			}
			starts++;
			last = i;
			vals_last = vals;
		}
		vals += !def || def[i] == max_def;
	}
	if (at_end) {
		recs = starts;
		cut = n;
		cut_vals = vals;
	} else if (starts) {
		recs = starts - 1;
		cut = last;
		cut_vals = vals_last;
	} else {
		recs = cut = cut_vals = 0;
	}
out:
	if (entries)
		*entries = cut;
	if (values)
		*values = cut_vals;
	return recs;
}

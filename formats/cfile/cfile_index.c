/* colfs: Kudu CFile index blocks and the B-tree walk (§10).
 *
 * The walk runs at open (index blocks are metadata): every node reached
 * from a root is read once, depth first, entries in order.  Leaves yield
 * the data blocks in ordinal order.  A node is never visited twice (no
 * cycles, no shared children) and the depth is bounded. */
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"
#include "core/buf.h"

void cfile_index_free(cfile_index *ix)
{
	if (!ix)
		return;
	for (uint32_t i = 0; i < ix->n; i++) {
		for (uint32_t k = 0; k < ix->node[i].n; k++)
			free(ix->node[i].e[k].key);
		free(ix->node[i].e);
	}
	free(ix->node);
	memset(ix, 0, sizeof(*ix));
}

void cfile_index_key_render(colfs_buf *out, const uint8_t *k, uint32_t n,
		      bool positional)
{
	if (positional && n == 4) {
		colfs_buf_printf(out, "%u", colfs_be32(k));
		return;
	}
	colfs_buf_puts(out, "0x");
	for (uint32_t i = 0; i < n; i++)
		colfs_buf_printf(out, "%02x", k[i]);
}

/* Parse one decoded index block into `node` (§10.1). */
static colfs_status index_parse(const cfile_raw *raw, cfile_ptr p,
				cfile_inode *node, uint64_t max_alloc,
				colfs_err *err)
{
	const uint8_t *d = raw->data;
	uint32_t len = raw->data_len;
	uint32_t tlen, n, table;
	colfs_proto_msg m = {0};
	const Kudu__Cfile__IndexBlockTrailerPB *tr;

	if (len < 4)
		return colfs_fail(err, COLFS_ETRUNCATED, p.offset,
				  "index block of %u bytes has no trailer "
				  "length", len);
	tlen = colfs_le32(d + len - 4);
	if (tlen == 0 || tlen > len - 4)
		return colfs_fail(err, COLFS_ECORRUPT, p.offset,
				  "index trailer length %u does not fit the "
				  "%u-byte block", tlen, len);
	if (colfs_proto_unpack_status(
		    &m, &kudu__cfile__index_block_trailer_pb__descriptor,
		    d + len - 4 - tlen, tlen, colfs_proto_cap(tlen, max_alloc)))
		return colfs_fail(err, COLFS_ECORRUPT, p.offset,
				  "index trailer is not a valid "
				  "IndexBlockTrailerPB");
	tr = (const Kudu__Cfile__IndexBlockTrailerPB *)m.msg;
	if (!tr->has_num_entries || !tr->has_type || tr->num_entries < 0 ||
	    (tr->type != 0 && tr->type != 1)) {
		colfs_status st = colfs_fail(
			err, COLFS_ECORRUPT, p.offset,
			"index trailer: num_entries %d, type %d (need >= 0 "
			"and LEAF 0 or INTERNAL 1)",
			tr->has_num_entries ? tr->num_entries : -1,
			tr->has_type ? tr->type : -1);
		colfs_proto_free(&m);
		return st;
	}
	n = (uint32_t)tr->num_entries;
	node->leaf = tr->type == 0;
	colfs_proto_free(&m);
	if ((uint64_t)n * 7 > len - 4 - tlen)
		return colfs_fail(err, COLFS_ECORRUPT, p.offset,
				  "index block claims %u entries in %u bytes",
				  n, len);
	table = len - 4 - tlen - 4 * n;
	node->e = calloc((size_t)n + 1, sizeof(*node->e));
	if (!node->e)
		return colfs_fail(err, COLFS_ENOMEM, p.offset, "no memory");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = colfs_le32(d + table + 4 * i);
		uint32_t lim = i + 1 < n ? colfs_le32(d + table + 4 * (i + 1))
					 : table;
		colfs_cursor c;
		uint64_t klen, boff, bsize;
		const uint8_t *k;
		cfile_ientry *e = &node->e[i];

		e->child = -1;
		e->block = -1;
		if (lim > table || off >= lim)
			return colfs_fail(err, COLFS_ECORRUPT, p.offset,
					  "index entry %u at %u is outside "
					  "[0, %u) or out of order", i, off,
					  lim > table ? table : lim);
		colfs_cursor_init_virtual(&c, d + off, lim - off, p.offset);
		COLFS_TRY(colfs_cursor_uvarint(&c, &klen, err));
		if (klen > colfs_cursor_left(&c))
			return colfs_fail(err, COLFS_ECORRUPT, p.offset,
					  "index entry %u key of %llu bytes "
					  "runs into the next entry", i,
					  (unsigned long long)klen);
		COLFS_TRY(colfs_cursor_bytes(&c, (size_t)klen, &k, err));
		COLFS_TRY(colfs_cursor_uvarint(&c, &boff, err));
		COLFS_TRY(colfs_cursor_uvarint(&c, &bsize, err));
		if (boff > INT64_MAX || bsize > INT32_MAX)
			return colfs_fail(err, COLFS_ECORRUPT, p.offset,
					  "index entry %u pointer %llu+%llu "
					  "is out of range", i,
					  (unsigned long long)boff,
					  (unsigned long long)bsize);
		e->key = malloc(klen ? klen : 1);
		if (!e->key)
			return colfs_fail(err, COLFS_ENOMEM, p.offset,
					  "no memory");
		memcpy(e->key, k, klen);
		e->key_len = (uint32_t)klen;
		e->ptr.offset = boff;
		e->ptr.size = (uint32_t)bsize;
		node->n = i + 1;
	}
	return COLFS_OK;
}

typedef struct walk {
	colfs_tree *t;
	cfile_file *f;
	cfile_index *ix;
	const char *name;
	bool positional;
	bool collect;
	bool have_prev;
	uint32_t prev_key;
	bool complete;
} walk;

static bool visited(const cfile_index *ix, uint64_t offset)
{
	for (uint32_t i = 0; i < ix->n; i++)
		if (ix->node[i].ptr.offset == offset)
			return true;
	return false;
}

static int32_t node_add(walk *w, cfile_ptr p, uint32_t depth)
{
	cfile_index *ix = w->ix;

	if (!colfs_grow((void **)&ix->node, &ix->cap, (size_t)ix->n + 1,
			sizeof(ix->node[0])))
		return -1;
	memset(&ix->node[ix->n], 0, sizeof(ix->node[0]));
	ix->node[ix->n].ptr = p;
	ix->node[ix->n].depth = depth;
	if (depth > ix->depth)
		ix->depth = depth;
	return (int32_t)ix->n++;
}

static colfs_status block_add(walk *w, cfile_ientry *e)
{
	cfile_file *f = w->f;

	if (f->nblocks % 64 == 0) {
		cfile_dblock *nb = realloc(f->blocks, ((size_t)f->nblocks + 64) *
							      sizeof(*nb));
		if (!nb)
			return COLFS_ENOMEM;
		f->blocks = nb;
	}
	cfile_dblock *b = &f->blocks[f->nblocks];
	memset(b, 0, sizeof(*b));
	b->ptr = e->ptr;
	if (w->positional && e->key_len == 4) {
		b->first_row = colfs_be32(e->key);
		b->key_known = true;
	}
	e->block = f->nblocks++;
	return COLFS_OK;
}

static colfs_status walk_node(walk *w, int32_t idx)
{
	cfile_file *f = w->f;
	cfile_raw raw;
	colfs_err err = {0};
	colfs_status st;
	cfile_ptr p = w->ix->node[idx].ptr;
	uint32_t depth = w->ix->node[idx].depth;

	st = cfile_block_read(f, p, &raw, &err);
	if (!st) {
		cfile_inode tmp = w->ix->node[idx];
		st = index_parse(&raw, p, &tmp, f->max_alloc, &err);
		w->ix->node[idx] = tmp;
		cfile_block_raw_free(&raw);
	}
	if (st) {
		colfs_tree_report(w->t, NULL, err.offset, st,
				  "%s index node: %s", w->name, err.msg);
		w->complete = false;
		return st == COLFS_ENOMEM ? st : COLFS_OK;
	}
	w->ix->node[idx].ok = true;
	for (uint32_t i = 0; i < w->ix->node[idx].n; i++) {
		cfile_ientry *e = &w->ix->node[idx].e[i];
		colfs_err perr = {0};

		if (cfile_block_ptr_check(f, e->ptr, p.offset, &perr)) {
			colfs_tree_report(w->t, NULL, perr.offset, perr.status,
					  "%s index node entry %u: %s", w->name,
					  i, perr.msg);
			w->complete = false;
			continue;
		}
		if (!w->ix->node[idx].leaf) {
			if (depth + 1 >= CFILE_MAX_DEPTH) {
				colfs_tree_report(w->t, NULL, p.offset,
						  COLFS_ECORRUPT,
						  "%s index deeper than %u "
						  "levels", w->name,
						  CFILE_MAX_DEPTH);
				w->complete = false;
				continue;
			}
			if (visited(w->ix, e->ptr.offset)) {
				colfs_tree_report(w->t, NULL, p.offset,
						  COLFS_ECORRUPT,
						  "%s index node entry %u "
						  "points to node %llu again "
						  "(a cycle)", w->name, i,
						  (unsigned long long)
							  e->ptr.offset);
				w->complete = false;
				continue;
			}
			int32_t kid = node_add(w, e->ptr, depth + 1);
			if (kid < 0)
				return COLFS_ENOMEM;
			/* the array may have moved */
			w->ix->node[idx].e[i].child = kid;
			COLFS_TRY(walk_node(w, kid));
			continue;
		}
		if (w->positional) {
			uint32_t key;
			if (e->key_len != 4) {
				colfs_tree_report(w->t, NULL, p.offset,
						  COLFS_ECORRUPT,
						  "positional index key of %u "
						  "bytes (must be 4)",
						  e->key_len);
				w->complete = false;
				continue;
			}
			key = colfs_be32(e->key);
			if (w->have_prev && key <= w->prev_key) {
				colfs_tree_report(w->t, NULL, p.offset,
						  COLFS_ECORRUPT,
						  "positional index key %u "
						  "after %u (must increase)",
						  key, w->prev_key);
				w->complete = false;
				continue;
			}
			w->have_prev = true;
			w->prev_key = key;
		}
		if (w->collect)
			COLFS_TRY(block_add(w, &w->ix->node[idx].e[i]));
	}
	return COLFS_OK;
}

colfs_status cfile_index_walk(colfs_tree *t, cfile_file *f, cfile_index *ix,
			      cfile_ptr root, bool positional,
			      bool collect_blocks)
{
	walk w = {t, f, ix, positional ? "positional" : "value", positional,
		  collect_blocks, false, 0, true};
	colfs_err err = {0};

	ix->present = true;
	if (cfile_block_ptr_check(f, root, f->footer_start, &err)) {
		colfs_tree_report(t, NULL, err.offset, err.status,
				  "%s index root: %s", w.name, err.msg);
		if (collect_blocks)
			f->walk_complete = false;
		return COLFS_OK;
	}
	if (node_add(&w, root, 0) < 0)
		return COLFS_ENOMEM;
	COLFS_TRY(walk_node(&w, 0));
	if (collect_blocks)
		f->walk_complete = w.complete;
	return COLFS_OK;
}

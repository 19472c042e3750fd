/* colfs: `verify` of a Kudu CFile: what the file claims about its data,
 * checked against the decoded data (docs/cfile-tree.md, "verify").
 *
 * Reading `verify` walks the value index (already read at open) and, when
 * something needs the values, decodes every data block once, in order,
 * one block at a time.  It compares
 *   - value index (§10.2, §10.3): leaf keys against the key encoding of
 *     the first value of their block (a prefix of it: Kudu shortens keys
 *     to a separator above the previous block's last value; DeltaFile keys
 *     are whole DeltaKeys), internal keys against their child's first key,
 *     key order, and that leaves and the positional index name the same
 *     blocks;
 *   - the values of a column with a value index (a primary key) are
 *     sorted;
 *   - footer metadata min_key / max_key (§13) against the first and last
 *     value's key;
 *   - DeltaFiles (§13.1): deltas sorted by row, timestamps within a row
 *     one way (REDO ascending, UNDO descending), and `deltafilestats`
 *     (DeltaStatsPB) against the decoded deltas;
 *   - BloomFiles (§13.2): only key order (blocks store no keys).
 * Each disagreement is a `MISMATCH:` line and a problem under /verify;
 * the document is always produced.  Ordinals and num_values are checked
 * by the tree (cfile_tree.c) and not again here. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfile_int.h"

/* Mismatches listed (document lines and problems) before the rest are
 * only counted. */
#define CV_MAX_LISTED 32
/* Distinct column ids counted for deltafilestats (Kudu's schemas hold at
 * most a few hundred columns). */
#define CV_MAX_COLUMNS 65536u
/* Key bytes shown in a message. */
#define CV_KEY_SHOWN 40u

typedef struct cv_key {
	uint8_t *p;
	size_t len, cap;
	bool set;
} cv_key;

typedef struct cv_leaf {
	const cfile_ientry *e;
	uint64_t node_off;       /* the leaf index block holding it */
} cv_leaf;

typedef struct cv_col {
	uint32_t id;
	uint64_t updates;
} cv_col;

typedef struct cv {
	colfs_tree *t;
	cfile_file *f;
	const colfs_node *where;
	colfs_buf *out;
	unsigned problems;
	bool oom;

	cv_leaf *leaves;
	uint32_t nleaves;
	cv_leaf *leaf_of_block;  /* per data block, .e NULL when none */

	/* columns */
	bool keyed;              /* the type has a key encoding */
	bool check_sorted;
	cv_key first, prev;      /* first value of the file; last one seen */
	uint64_t values, nulls, unsorted;

	/* DeltaFiles */
	uint64_t deltas, deletes, reinserts, min_ts, max_ts;
	uint64_t prev_row, prev_ts;
	bool ts_up, ts_down;     /* seen within one row */
	uint64_t row_back;       /* deltas whose row is below the one before */
	bool stats_ok;           /* the deltas parsed: counts are complete */
	cv_col *cols;
	uint32_t ncols, capcols;
} cv;

/* --- helpers -------------------------------------------------------------- */

/* A line of the document (core/verify.h). */
#define cv_line(v, ...) colfs_verify_line((v)->out, __VA_ARGS__)

static const colfs_verify_style cv_style = {
	"metadata disagrees with the data", CV_MAX_LISTED, false};

/* A mismatch: a MISMATCH: line and a problem (core/verify.h). */
#define cv_problem(v, off, ...) \
	colfs_verify_mismatch((v)->t, (v)->where, (v)->out, &cv_style, \
			      &(v)->problems, (off), __VA_ARGS__)

/* "0x" + hex of a key, cut after CV_KEY_SHOWN bytes. */
static const char *hex(char *buf, size_t cap, const uint8_t *p, size_t n)
{
	size_t at = 0;

	at += (size_t)snprintf(buf, cap, "0x");
	for (size_t i = 0; i < n && i < CV_KEY_SHOWN && at + 3 < cap; i++)
		at += (size_t)snprintf(buf + at, cap - at, "%02x", p[i]);
	if (n > CV_KEY_SHOWN && at + 4 < cap)
		snprintf(buf + at, cap - at, "...");
	if (n == 0)
		snprintf(buf, cap, "(empty)");
	return buf;
}

#define HEXBUF (2 * CV_KEY_SHOWN + 16)

/* memcmp order, a shorter key first on a common prefix (§10.2). */
static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

static bool key_prefix(const uint8_t *k, size_t kn, const uint8_t *of,
		       size_t on)
{
	return kn <= on && (kn == 0 || !memcmp(k, of, kn));
}

static bool key_copy(cv *v, cv_key *k, const uint8_t *p, size_t n)
{
	if (n > k->cap) {
		uint8_t *q = realloc(k->p, n);
		if (!q) {
			v->oom = true;
			return false;
		}
		k->p = q;
		k->cap = n;
	}
	if (n)
		memcpy(k->p, p, n);
	k->len = n;
	k->set = true;
	return true;
}

/* The memcmp key of non-null value j (§10.2): integers big-endian with
 * the sign bit flipped, BINARY the bytes. */
static void value_key(const cfile_file *f, const cfile_values *vals,
		      uint32_t j, uint8_t tmp[16], const uint8_t **p,
		      size_t *n)
{
	if (f->ti->phys == CFILE_PHYS_BINARY) {
		*p = vals->str[j];
		*n = vals->len[j];
		return;
	}
	uint32_t w = vals->width;
	const uint8_t *x = vals->fixed + (size_t)j * w;
	for (uint32_t k = 0; k < w; k++)
		tmp[k] = x[w - 1 - k];
	if (f->ti->is_signed && w)
		tmp[0] ^= 0x80;
	*p = tmp;
	*n = w;
}

/* Metadata lookup: header pairs first, then footer; first match wins
 * (§13).  `*off` gets where the pairs live. */
static const Kudu__Cfile__FileMetadataPairPB *meta_find(const cfile_file *f,
							 const char *key,
							 uint64_t *off)
{
	if (f->header)
		for (size_t i = 0; i < f->header->n_metadata; i++)
			if (f->header->metadata[i]->key &&
			    !strcmp(f->header->metadata[i]->key, key)) {
				*off = 12;
				return f->header->metadata[i];
			}
	for (size_t i = 0; i < f->footer->n_metadata; i++)
		if (f->footer->metadata[i]->key &&
		    !strcmp(f->footer->metadata[i]->key, key)) {
			*off = f->footer_start;
			return f->footer->metadata[i];
		}
	return NULL;
}

/* --- the value index, without the data -------------------------------------- */

static colfs_status leaves_collect(cv *v)
{
	const cfile_index *ix = &v->f->validx;
	uint32_t n = 0;

	for (uint32_t k = 0; k < ix->n; k++)
		if (ix->node[k].ok && ix->node[k].leaf)
			n += ix->node[k].n;
	v->leaves = calloc((size_t)n + 1, sizeof(*v->leaves));
	if (!v->leaves)
		return COLFS_ENOMEM;
	/* nodes are numbered in depth-first pre-order: leaf entries come
	 * out in the order of the tree */
	for (uint32_t k = 0; k < ix->n; k++) {
		const cfile_inode *nd = &ix->node[k];
		if (!nd->ok || !nd->leaf)
			continue;
		for (uint32_t i = 0; i < nd->n; i++)
			v->leaves[v->nleaves++] =
				(cv_leaf){&nd->e[i], nd->ptr.offset};
	}
	return COLFS_OK;
}

/* Internal keys: each is the first key of its child (or a prefix of it, a
 * shortened separator), in order within the node. */
static void index_internal_check(cv *v)
{
	const cfile_index *ix = &v->f->validx;
	char a[HEXBUF], b[HEXBUF];
	bool ordered = v->f->role != CFILE_ROLE_DELTA;

	for (uint32_t k = 0; k < ix->n; k++) {
		const cfile_inode *nd = &ix->node[k];
		if (!nd->ok || nd->leaf)
			continue;
		for (uint32_t i = 0; i < nd->n; i++) {
			const cfile_ientry *e = &nd->e[i];
			if (ordered && i > 0 &&
			    key_cmp(nd->e[i - 1].key, nd->e[i - 1].key_len,
				    e->key, e->key_len) > 0)
				cv_problem(v, nd->ptr.offset,
					   "value index node at %llu: key %u "
					   "%s sorts below key %u %s",
					   (unsigned long long)nd->ptr.offset,
					   i, hex(a, sizeof a, e->key,
						  e->key_len),
					   i - 1,
					   hex(b, sizeof b, nd->e[i - 1].key,
					       nd->e[i - 1].key_len));
			if (e->child < 0 || (uint32_t)e->child >= ix->n)
				continue;
			const cfile_inode *c = &ix->node[e->child];
			if (!c->ok || c->n == 0)
				continue;
			if (!key_prefix(e->key, e->key_len, c->e[0].key,
					c->e[0].key_len))
				cv_problem(v, nd->ptr.offset,
					   "value index node at %llu: key %u "
					   "%s is not the first key %s of its "
					   "child node at %llu",
					   (unsigned long long)nd->ptr.offset,
					   i, hex(a, sizeof a, e->key,
						  e->key_len),
					   hex(b, sizeof b, c->e[0].key,
					       c->e[0].key_len),
					   (unsigned long long)c->ptr.offset);
		}
	}
}

static int off_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Which leaf entry names which data block.  Without a positional index
 * the walk numbered the blocks from the value index itself; with one, the
 * leaves must name the positional index's blocks, in the same order. */
static colfs_status leaves_map(cv *v)
{
	cfile_file *f = v->f;
	char a[HEXBUF], b[HEXBUF];

	v->leaf_of_block = calloc((size_t)f->nblocks + 1,
				  sizeof(*v->leaf_of_block));
	if (!v->leaf_of_block)
		return COLFS_ENOMEM;
	/* leaf key order (not for DeltaFiles: UNDO files sort timestamps
	 * down, §13.1; their keys are compared whole below) */
	if (f->role != CFILE_ROLE_DELTA)
		for (uint32_t j = 1; j < v->nleaves; j++) {
			const cfile_ientry *p = v->leaves[j - 1].e;
			const cfile_ientry *e = v->leaves[j].e;
			if (key_cmp(p->key, p->key_len, e->key, e->key_len) > 0)
				cv_problem(v, v->leaves[j].node_off,
					   "value index leaf entry %u key %s "
					   "sorts below the key %s before it",
					   j, hex(a, sizeof a, e->key,
						  e->key_len),
					   hex(b, sizeof b, p->key,
					       p->key_len));
		}
	if (!f->posidx.present) {
		for (uint32_t j = 0; j < v->nleaves; j++) {
			int64_t blk = v->leaves[j].e->block;
			if (blk >= 0 && (uint64_t)blk < f->nblocks)
				v->leaf_of_block[blk] = v->leaves[j];
		}
		return COLFS_OK;
	}
	bool all_read = true;
	for (uint32_t k = 0; k < f->validx.n; k++)
		all_read &= f->validx.node[k].ok;
	/* an unreadable node is a problem of its own (errors) */
	if (v->nleaves != f->nblocks && f->walk_complete && all_read)
		cv_problem(v, f->validx.n ? f->validx.node[0].ptr.offset : 0,
			   "the value index has %u leaf entries, the "
			   "positional index %u data blocks", v->nleaves,
			   f->nblocks);
	uint64_t *by_off = calloc((size_t)f->nblocks + 1, 2 * sizeof(uint64_t));
	if (!by_off)
		return COLFS_ENOMEM;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		by_off[2 * i] = f->blocks[i].ptr.offset;
		by_off[2 * i + 1] = i;
	}
	qsort(by_off, f->nblocks, 2 * sizeof(uint64_t), off_cmp);
	for (uint32_t j = 0; j < v->nleaves; j++) {
		const cfile_ientry *e = v->leaves[j].e;
		uint64_t key[2] = {e->ptr.offset, 0};
		const uint64_t *hit = bsearch(key, by_off, f->nblocks,
					      2 * sizeof(uint64_t), off_cmp);
		if (!hit) {
			cv_problem(v, v->leaves[j].node_off,
				   "value index leaf entry %u points to "
				   "offset %llu, which is no data block of "
				   "the positional index", j,
				   (unsigned long long)e->ptr.offset);
			continue;
		}
		uint32_t blk = (uint32_t)hit[1];
		if (blk != j)
			cv_problem(v, v->leaves[j].node_off,
				   "value index leaf entry %u points to data "
				   "block %u: the two indexes order the "
				   "blocks differently", j, blk);
		else if (f->blocks[blk].ptr.size != e->ptr.size)
			cv_problem(v, v->leaves[j].node_off,
				   "value index leaf entry %u gives data "
				   "block %u a size of %u, the positional "
				   "index %u", j, blk, e->ptr.size,
				   f->blocks[blk].ptr.size);
		if (!v->leaf_of_block[blk].e)
			v->leaf_of_block[blk] = v->leaves[j];
	}
	free(by_off);
	return COLFS_OK;
}

/* --- columns ------------------------------------------------------------- */

static void column_block(cv *v, uint32_t i, const cfile_values *vals)
{
	cfile_file *f = v->f;
	const cv_leaf *lf = &v->leaf_of_block[i];
	uint8_t tmp[2][16];
	const uint8_t *prev = NULL, *k = NULL;
	size_t prev_n = 0, kn = 0;
	uint64_t down = 0, down_at = 0;
	char a[HEXBUF], b[HEXBUF], c[HEXBUF];

	v->nulls += vals->rows - vals->n;
	v->values += vals->n;
	if (!v->keyed || vals->width > 16)
		return;
	for (uint32_t j = 0; j < vals->n; j++) {
		value_key(f, vals, j, tmp[j & 1], &k, &kn);
		if (j == 0) {
			if (!v->first.set && !key_copy(v, &v->first, k, kn))
				return;
			if (lf->e && !key_prefix(lf->e->key, lf->e->key_len,
						 k, kn))
				cv_problem(v, lf->node_off,
					   "value index key %s of data block "
					   "%u is not its first value's key "
					   "%s (nor a prefix of it)",
					   hex(a, sizeof a, lf->e->key,
					       lf->e->key_len), i,
					   hex(b, sizeof b, k, kn));
			else if (lf->e && lf->e->key_len < kn &&
				 v->prev.set &&
				 key_cmp(lf->e->key, lf->e->key_len,
					 v->prev.p, v->prev.len) <= 0)
				cv_problem(v, lf->node_off,
					   "value index key %s of data block "
					   "%u is shortened from %s but does "
					   "not sort above the previous "
					   "block's last value %s",
					   hex(a, sizeof a, lf->e->key,
					       lf->e->key_len), i,
					   hex(b, sizeof b, k, kn),
					   hex(c, sizeof c, v->prev.p,
					       v->prev.len));
			if (v->prev.set) {
				prev = v->prev.p;
				prev_n = v->prev.len;
			}
		}
		if (v->check_sorted && prev &&
		    key_cmp(prev, prev_n, k, kn) > 0) {
			if (!down)
				down_at = j;
			down++;
		}
		prev = k;
		prev_n = kn;
	}
	if (vals->n == 0 && lf->e)
		cv_problem(v, lf->node_off,
			   "data block %u has a value index key but no "
			   "values", i);
	if (down) {
		v->unsorted += down;
		cv_problem(v, f->blocks[i].ptr.offset,
			   "data block %u: %llu of its values sort below the "
			   "value before them (the first: value %llu of the "
			   "block); a column with a value index is sorted",
			   i, (unsigned long long)down,
			   (unsigned long long)down_at);
	}
	if (vals->n)
		key_copy(v, &v->prev, k, kn);
}

static void minmax_check(cv *v)
{
	char a[HEXBUF], b[HEXBUF];
	const char *names[2] = {"min_key", "max_key"};
	const cv_key *have[2] = {&v->first, &v->prev};

	for (int m = 0; m < 2; m++) {
		uint64_t off = 0;
		const Kudu__Cfile__FileMetadataPairPB *p =
			meta_find(v->f, names[m], &off);
		if (!p)
			continue;
		if (!have[m]->set) {
			cv_problem(v, off, "metadata %s is %s, the file holds "
				   "no values", names[m],
				   hex(a, sizeof a, p->value.data,
				       p->value.len));
			continue;
		}
		if (p->value.len != have[m]->len ||
		    (p->value.len &&
		     memcmp(p->value.data, have[m]->p, p->value.len)))
			cv_problem(v, off, "metadata %s is %s, the %s value's "
				   "key is %s", names[m],
				   hex(a, sizeof a, p->value.data,
				       p->value.len),
				   m ? "last" : "first",
				   hex(b, sizeof b, have[m]->p, have[m]->len));
		else
			cv_line(v, "%s: %s, the %s value's key", names[m],
				hex(a, sizeof a, p->value.data, p->value.len),
				m ? "last" : "first");
	}
}

/* --- DeltaFiles ------------------------------------------------------------ */

static cv_col *col_get(cv *v, uint32_t id)
{
	uint32_t lo = 0, hi = v->ncols;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v->cols[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < v->ncols && v->cols[lo].id == id)
		return &v->cols[lo];
	if (v->ncols >= CV_MAX_COLUMNS)
		return NULL;
	if (v->ncols == v->capcols) {
		uint32_t cap = v->capcols ? 2 * v->capcols : 64;
		cv_col *n = realloc(v->cols, cap * sizeof(*n));
		if (!n) {
			v->oom = true;
			return NULL;
		}
		v->cols = n;
		v->capcols = cap;
	}
	memmove(&v->cols[lo + 1], &v->cols[lo],
		(v->ncols - lo) * sizeof(*v->cols));
	v->cols[lo] = (cv_col){id, 0};
	v->ncols++;
	return &v->cols[lo];
}

/* One delta: its key against the leaf key (first of a block), order,
 * counts.  False when it does not parse (counts are then incomplete). */
static bool delta_one(cv *v, uint32_t i, uint32_t j, const uint8_t *p,
		      size_t n)
{
	colfs_cursor c;
	colfs_err err = {0};
	uint64_t row, ts;
	uint8_t type;
	const cv_leaf *lf = &v->leaf_of_block[i];
	char a[HEXBUF], b[HEXBUF];

	colfs_cursor_init_virtual(&c, p, n, v->f->blocks[i].ptr.offset);
	if (cfile_special_memcmp_varint(&c, &row, &err) ||
	    cfile_special_memcmp_varint(&c, &ts, &err))
		return false;
	size_t kl = n - colfs_cursor_left(&c);
	if (j == 0 && lf->e &&
	    (lf->e->key_len != kl || memcmp(lf->e->key, p, kl)))
		cv_problem(v, lf->node_off,
			   "value index key %s of data block %u is not its "
			   "first delta's DeltaKey %s (DeltaFile keys are "
			   "not shortened)",
			   hex(a, sizeof a, lf->e->key, lf->e->key_len), i,
			   hex(b, sizeof b, p, kl));
	if (v->deltas) {
		if (row < v->prev_row) {
			if (!v->row_back)
				cv_problem(v, v->f->blocks[i].ptr.offset,
					   "delta %llu (data block %u) is for "
					   "row %llu, after row %llu: deltas "
					   "are sorted by row",
					   (unsigned long long)v->deltas, i,
					   (unsigned long long)row,
					   (unsigned long long)v->prev_row);
			v->row_back++;
		} else if (row == v->prev_row) {
			if (ts > v->prev_ts)
				v->ts_up = true;
			else if (ts < v->prev_ts)
				v->ts_down = true;
		}
	}
	if (!v->deltas || ts < v->min_ts)
		v->min_ts = ts;
	if (!v->deltas || ts > v->max_ts)
		v->max_ts = ts;
	v->prev_row = row;
	v->prev_ts = ts;
	v->deltas++;
	if (colfs_cursor_u8(&c, &type, &err))
		return false;
	if (type == 2) {
		v->deletes++;
		return true;
	}
	if (type == 3) {
		v->reinserts++;
		return true;
	}
	if (type != 1)
		return false;
	/* UPDATE: Kudu counts one update per column entry (DeltaStats) */
	while (colfs_cursor_left(&c)) {
		uint64_t col, len1;
		const uint8_t *skip;
		if (colfs_cursor_uvarint(&c, &col, &err) ||
		    colfs_cursor_uvarint(&c, &len1, &err) || col > UINT32_MAX ||
		    len1 > colfs_cursor_left(&c) + 1)
			return false;
		if (len1 && colfs_cursor_bytes(&c, (size_t)(len1 - 1), &skip,
					       &err))
			return false;
		cv_col *cc = col_get(v, (uint32_t)col);
		if (!cc)
			return false;
		cc->updates++;
	}
	return true;
}

static void delta_stats_check(cv *v)
{
	cfile_file *f = v->f;
	uint64_t off = 0;
	const Kudu__Cfile__FileMetadataPairPB *m =
		meta_find(f, "deltafilestats", &off);
	Kudu__Cfile__DeltaStatsPB *s;

	if (!m)
		return;
	s = kudu__cfile__delta_stats_pb__unpack(NULL, m->value.len,
						m->value.data);
	if (!s) {
		cv_problem(v, off, "deltafilestats is not a valid "
			   "DeltaStatsPB");
		return;
	}
	if (!s->has_delete_count || !s->has_min_timestamp ||
	    !s->has_max_timestamp)
		cv_problem(v, off, "deltafilestats lacks a required field "
			   "(delete_count, min_timestamp, max_timestamp)");
	if (!v->stats_ok) {
		cv_line(v, "deltafilestats: not compared");
		kudu__cfile__delta_stats_pb__free_unpacked(s, NULL);
		return;
	}
	unsigned before = v->problems;
	if (s->has_delete_count && (uint64_t)s->delete_count != v->deletes)
		cv_problem(v, off, "deltafilestats delete_count %lld, the "
			   "deltas hold %llu DELETEs",
			   (long long)s->delete_count,
			   (unsigned long long)v->deletes);
	if ((uint64_t)(s->has_reinsert_count ? s->reinsert_count : 0) !=
	    v->reinserts)
		cv_problem(v, off, "deltafilestats reinsert_count %lld, the "
			   "deltas hold %llu REINSERTs",
			   (long long)s->reinsert_count,
			   (unsigned long long)v->reinserts);
	if (v->deltas && s->has_min_timestamp && s->min_timestamp != v->min_ts)
		cv_problem(v, off, "deltafilestats min_timestamp %llu, the "
			   "smallest delta timestamp is %llu",
			   (unsigned long long)s->min_timestamp,
			   (unsigned long long)v->min_ts);
	if (v->deltas && s->has_max_timestamp && s->max_timestamp != v->max_ts)
		cv_problem(v, off, "deltafilestats max_timestamp %llu, the "
			   "largest delta timestamp is %llu",
			   (unsigned long long)s->max_timestamp,
			   (unsigned long long)v->max_ts);
	/* every listed column once, with the count of the deltas; every
	 * updated column listed */
	uint8_t *listed = calloc((size_t)v->ncols + 1, 1);
	if (!listed) {
		v->oom = true;
		kudu__cfile__delta_stats_pb__free_unpacked(s, NULL);
		return;
	}
	for (size_t k = 0; k < s->n_column_stats; k++) {
		const Kudu__Cfile__DeltaColumnStatsPB *cs = s->column_stats[k];
		uint64_t got = 0;
		bool dup = false;
		for (size_t q = 0; q < k; q++)
			dup |= s->column_stats[q]->col_id == cs->col_id;
		if (dup) {
			cv_problem(v, off, "deltafilestats lists column %d "
				   "twice", cs->col_id);
			continue;
		}
		for (uint32_t q = 0; q < v->ncols; q++)
			if ((int64_t)v->cols[q].id == (int64_t)cs->col_id) {
				got = v->cols[q].updates;
				listed[q] = 1;
			}
		if ((uint64_t)cs->update_count != got)
			cv_problem(v, off, "deltafilestats column %d "
				   "update_count %lld, the deltas update it "
				   "%llu times", cs->col_id,
				   (long long)cs->update_count,
				   (unsigned long long)got);
	}
	for (uint32_t q = 0; q < v->ncols; q++)
		if (!listed[q] && v->cols[q].updates)
			cv_problem(v, off, "deltafilestats has no column_stats "
				   "for column %u, the deltas update it %llu "
				   "times", v->cols[q].id,
				   (unsigned long long)v->cols[q].updates);
	free(listed);
	if (v->problems == before)
		cv_line(v, "deltafilestats: agrees with the deltas (%llu "
			"DELETE, %llu REINSERT, %u columns updated%s)",
			(unsigned long long)v->deletes,
			(unsigned long long)v->reinserts, v->ncols,
			v->deltas ? "" : "; no deltas: timestamps not "
				       "compared");
	kudu__cfile__delta_stats_pb__free_unpacked(s, NULL);
}

/* --- the pass over the data ------------------------------------------------ */

static colfs_status data_pass(cv *v)
{
	cfile_file *f = v->f;

	v->stats_ok = true;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		cfile_raw raw;
		cfile_values vals;
		colfs_err err = {0};
		colfs_status st = cfile_block_read(f, f->blocks[i].ptr, &raw,
						   &err);
		if (!st) {
			st = cfile_block_decode(f, &raw, f->blocks[i].ptr,
						&vals, &err);
			if (st)
				cfile_block_raw_free(&raw);
		}
		if (st == COLFS_ENOMEM)
			return st;
		if (st) {
			colfs_tree_report(v->t, v->where, err.offset, st,
					  "block %u: %s", i, err.msg);
			cv_line(v, "stopped: data block %u does not decode "
				"(%s); see errors", i, colfs_status_name(st));
			v->stats_ok = false;
			return COLFS_ECORRUPT;
		}
		if (f->role == CFILE_ROLE_DELTA) {
			for (uint32_t j = 0; j < vals.n && v->stats_ok; j++)
				v->stats_ok = delta_one(v, i, j, vals.str[j],
							vals.len[j]);
		} else {
			column_block(v, i, &vals);
		}
		cfile_block_values_free(&vals);
		cfile_block_raw_free(&raw);
		if (v->oom)
			return COLFS_ENOMEM;
	}
	return COLFS_OK;
}

static void cv_free(cv *v)
{
	free(v->leaves);
	free(v->leaf_of_block);
	free(v->first.p);
	free(v->prev.p);
	free(v->cols);
}

colfs_status cfile_verify_gen(colfs_tree *t, colfs_node *file, colfs_buf *out)
{
	cfile_file *f = colfs_tree_format_state(t);
	cv v = {.t = t, .f = f, .where = file, .out = out};
	uint64_t moff;
	bool minmax = f->role == CFILE_ROLE_COLUMN &&
		      (meta_find(f, "min_key", &moff) ||
		       meta_find(f, "max_key", &moff));
	bool have_validx = f->validx.present;
	colfs_status st = COLFS_OK;

	v.keyed = !f->array && (f->ti->phys == CFILE_PHYS_INT ||
				f->ti->phys == CFILE_PHYS_BINARY);
	v.check_sorted = have_validx && f->role == CFILE_ROLE_COLUMN &&
			 v.keyed;
	cv_line(&v, "verify: what this CFile claims, checked against its "
		"decoded data");
	cv_line(&v, "role: %s", f->role == CFILE_ROLE_DELTA   ? "DeltaFile"
				: f->role == CFILE_ROLE_BLOOM ? "BloomFile"
							      : "column");
	if (have_validx) {
		if ((st = leaves_collect(&v)))
			goto done;
		cv_line(&v, "value index: %u nodes, %u leaf entries",
			f->validx.n, v.nleaves);
		if ((st = leaves_map(&v)))
			goto done;
		index_internal_check(&v);
		if (!v.keyed && f->role == CFILE_ROLE_COLUMN)
			cv_line(&v, "value index keys: not compared (%s has "
				"no key encoding)", f->ti->name);
	} else {
		v.leaf_of_block = calloc((size_t)f->nblocks + 1,
					 sizeof(*v.leaf_of_block));
		if (!v.leaf_of_block) {
			st = COLFS_ENOMEM;
			goto done;
		}
		cv_line(&v, "value index: none");
	}
	if (f->role == CFILE_ROLE_BLOOM) {
		cv_line(&v, "bloom blocks: keys checked for order only: a bloom "
			"block stores no keys, and a membership test needs "
			"Kudu's own CityHash64 copy (fact sheet 16.7)");
	} else if (have_validx || minmax || f->role == CFILE_ROLE_DELTA) {
		st = data_pass(&v);
		if (st == COLFS_ENOMEM)
			goto done;
		if (!st && f->role == CFILE_ROLE_DELTA) {
			cv_line(&v, "deltas: %llu", (unsigned long long)v.deltas);
			if (!v.stats_ok)
				cv_line(&v, "order and counts: not compared (a "
					"delta does not decode, see deltas; or "
					"more than %u column ids)",
					CV_MAX_COLUMNS);
			else if (v.ts_up && v.ts_down)
				cv_problem(&v, f->footer_start,
					   "timestamps within a row go both up "
					   "and down: neither REDO (ascending) "
					   "nor UNDO (descending) order");
			else
				cv_line(&v, "order: by row, timestamps %s",
					v.ts_down ? "descending within a row "
						    "(UNDO)"
					: v.ts_up ? "ascending within a row "
						    "(REDO)"
						  : "never repeat a row (REDO "
						    "or UNDO)");
			delta_stats_check(&v);
		} else if (!st) {
			cv_line(&v, "values: %llu (%llu NULL)",
				(unsigned long long)v.values,
				(unsigned long long)v.nulls);
			if (v.check_sorted && !v.unsorted)
				cv_line(&v, "values: sorted, as a column with a "
					"value index is%s", v.nulls ?
					" (NULLs left out)" : "");
			if (minmax && !v.keyed)
				cv_line(&v, "min_key/max_key: not compared "
					"(%s has no key encoding)",
					f->ti->name);
			else if (minmax)
				minmax_check(&v);
		}
		st = COLFS_OK;
	} else {
		cv_line(&v, "nothing to compare: no value index, no "
			"min_key/max_key (num_values and ordinals are "
			"checked by values)");
	}
	if (v.problems > CV_MAX_LISTED)
		cv_line(&v, "%u mismatches (the first %u listed)", v.problems,
			CV_MAX_LISTED);
	else
		cv_line(&v, "%u mismatch%s", v.problems,
			v.problems == 1 ? "" : "es");
done:
	cv_free(&v);
	if (v.oom)
		return COLFS_ENOMEM;
	return st ? st : colfs_buf_status(out);
}

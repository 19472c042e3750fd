/* colfs: the Arrow IPC format table (probe, open, close).
 *
 * Two forms share one tree: the file format (Feather v2: "ARROW1", two
 * bytes of padding, the stream, a footer flatbuffer naming the schema
 * and the blocks of dictionary and record batches, its int32 length,
 * "ARROW1") and the stream format (encapsulated messages until an
 * end-of-stream marker or the end of the file).  Open lists every
 * message: from the footer's blocks, or, for a stream or a file whose
 * footer cannot be used, by walking the messages from the start.  The
 * message metadata is kept (it is small); bodies are read when a view
 * needs them (arrow_load.c).
 */
#include <stdlib.h>
#include <string.h>

#include "arrow_fb.h"
#include "arrow_int.h"

#define MAGIC "ARROW1"
/* A message's metadata larger than this is refused (Arrow C++ refuses
 * flatbuffers past 2 GiB; real ones are kilobytes). */
#define META_MAX (64u << 20)
/* At most this many messages are listed. */
#define MSGS_MAX (1u << 22)

static bool probe(const uint8_t *head, size_t head_len, const uint8_t *tail,
		  size_t tail_len, uint64_t size)
{
	(void)tail;
	(void)tail_len;
	if (head_len >= 6 && !memcmp(head, MAGIC, 6))
		return true;
	if (head_len < 12 || size < 16)
		return false;
	uint32_t a = afb_u32(head), n, root;
	if (a == 0xFFFFFFFFu) {
		/* the continuation marker: a stream, even one whose first
		 * message is cut short (open reports it) */
		n = afb_u32(head + 4);
		return n >= 8 && n != 0xFFFFFFFFu;
	}
	/* before Arrow 0.15 a message began with its length alone */
	n = a;
	root = afb_u32(head + 4);
	return n >= 12 && n < size && n % 4 == 0 && root >= 4 && root < n &&
	       root % 4 == 0;
}

static void file_free(void *state)
{
	arrow_file *f = state;
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nmsgs; i++) {
		free(f->msgs[i].meta);
		if (f->dcache && f->dcache[i])
			arrow_batch_free(f->dcache[i]);
	}
	if (f->dviews)
		for (size_t i = 0; i < (size_t)f->nbatches * f->ndict; i++)
			if (f->dviews[i]) {
				free(f->dviews[i]->chunks);
				free(f->dviews[i]->starts);
				free(f->dviews[i]);
			}
	free(f->dviews);
	for (size_t i = 0; i < f->nvstates; i++) {
		arrow_batch_free(f->vstates[i]->b);
		free(f->vstates[i]);
	}
	free(f->vstates);
	arrow_arrays_free(f);
	free(f->dcache);
	free(f->msgs);
	free(f->batches);
	for (uint32_t i = 0; i < f->ndict; i++)
		free(f->dmsgs ? f->dmsgs[i] : NULL);
	free(f->dmsgs);
	free(f->ndmsgs);
	free(f->batch_dlo);
	free(f->batch_dhi);
	free(f->dict_ids);
	free(f->dict_fields);
	arrow_field_free(&f->root);
	for (uint32_t i = 0; i < f->nmd; i++) {
		free(f->md[i].key);
		free(f->md[i].value);
	}
	free(f->md);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* Read the message whose prefix starts at `off`: its metadata (kept),
 * kind and body.  `*end` is set to the end of the prefix and metadata
 * (the body follows).  COLFS_END at an end-of-stream marker. */
static colfs_status msg_read(arrow_file *f, uint64_t off, arrow_msg *m,
			     colfs_err *err)
{
	uint8_t p[8];
	uint64_t meta_off;
	uint32_t n;

	memset(m, 0, sizeof(*m));
	m->off = off;
	m->codec = -1;
	if (off > f->size || f->size - off < 4)
		return colfs_fail(err, COLFS_ETRUNCATED, off,
				  "message prefix cut short by the end of the "
				  "file");
	size_t got = 0;
	COLFS_TRY(colfs_source_pread(f->src, off, 8, p, &got, err));
	n = afb_u32(p);
	if (n == 0xFFFFFFFFu) {
		if (got < 8)
			return colfs_fail(err, COLFS_ETRUNCATED, off,
					  "message prefix cut short by the "
					  "end of the file");
		n = afb_u32(p + 4);
		meta_off = off + 8;
	} else {
		meta_off = off + 4;
	}
	m->meta_off = meta_off;
	if (n == 0)
		return COLFS_END;
	if (n > META_MAX)
		return colfs_fail(err, COLFS_EOVERFLOW, off,
				  "message metadata of %u bytes (more than "
				  "%u)", n, META_MAX);
	if (meta_off + n > f->size)
		return colfs_fail(err, COLFS_ETRUNCATED, off,
				  "message metadata of %u bytes runs past the "
				  "end of the file (%llu)", n,
				  (unsigned long long)f->size);
	m->meta_off = meta_off;
	m->meta_len = n;
	COLFS_TRY(colfs_source_read_region(f->src, meta_off, n, f->max_alloc,
					   &m->meta, err));
	m->body_off = meta_off + n;
	colfs_status st = arrow_message_parse(f, m, err);
	if (st)
		return st;
	if (m->body_off + m->body_len > f->size || m->body_off + m->body_len <
						     m->body_off)
		return colfs_fail(err, COLFS_ETRUNCATED, m->body_off,
				  "message body of %llu bytes runs past the "
				  "end of the file (%llu)",
				  (unsigned long long)m->body_len,
				  (unsigned long long)f->size);
	return COLFS_OK;
}

static colfs_status msg_add(arrow_file *f, const arrow_msg *m, colfs_err *err)
{
	if (f->nmsgs == f->capmsgs) {
		if (f->nmsgs >= MSGS_MAX)
			return colfs_fail(err, COLFS_EOVERFLOW, m->off,
					  "more than %u messages", MSGS_MAX);
		uint32_t cap = f->capmsgs ? f->capmsgs * 2 : 16;
		arrow_msg *nm = realloc(f->msgs, cap * sizeof(*nm));
		if (!nm)
			return colfs_fail(err, COLFS_ENOMEM, m->off,
					  "no memory");
		f->msgs = nm;
		f->capmsgs = cap;
	}
	f->msgs[f->nmsgs++] = *m;
	return COLFS_OK;
}

static colfs_status schema_from_msg(arrow_file *f, arrow_msg *m,
				    colfs_err *err)
{
	afb_table mt;
	if (!afb_root(m->meta, m->meta_len, &mt))
		return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
				  "schema message is not a valid flatbuffer");
	size_t hp = afb_deref(&mt, 2);
	f->smsg_off = m->off;
	f->smsg_len = m->body_off + m->body_len - m->off;
	f->schema_off = m->meta_off;
	f->schema_len = m->meta_len;
	return arrow_schema_parse(f, m->meta, m->meta_len, hp, err);
}

/* Walk the messages from `off` (a stream, or a file's stream part). */
static colfs_status walk(colfs_tree *t, arrow_file *f, uint64_t off,
			 uint64_t stop)
{
	colfs_err err = {0};
	for (;;) {
		arrow_msg m;
		if (off >= stop) {
			if (!f->is_file)
				colfs_tree_report(t, NULL, off,
						  COLFS_ETRUNCATED,
						  "stream ends without an "
						  "end-of-stream marker");
			return COLFS_OK;
		}
		colfs_status st = msg_read(f, off, &m, &err);
		if (st == COLFS_END) {
			f->eos_off = off;
			f->eos_len = m.meta_off ? m.meta_off - off : 8;
			return COLFS_OK;
		}
		if (st) {
			free(m.meta);
			if (st == COLFS_ENOMEM)
				return st;
			colfs_tree_report_err(t, NULL, &err);
			return COLFS_OK;
		}
		if (m.kind == AM_SCHEMA) {
			if (f->have_schema) {
				colfs_tree_report(t, NULL, m.off,
						  COLFS_ECORRUPT,
						  "a second schema message");
				free(m.meta);
			} else {
				st = schema_from_msg(f, &m, &err);
				free(m.meta);
				if (st) {
					colfs_tree_report_err(t, NULL, &err);
					return st == COLFS_ENOMEM ? st
								  : COLFS_OK;
				}
			}
		} else {
			if (!f->have_schema) {
				colfs_tree_report(t, NULL, m.off,
						  COLFS_ECORRUPT,
						  "a %s before the schema",
						  m.kind == AM_DICT
							  ? "dictionary batch"
							  : "record batch");
				free(m.meta);
				return COLFS_OK;
			}
			uint64_t next = m.body_off + m.body_len;
			if ((st = msg_add(f, &m, &err))) {
				free(m.meta);
				colfs_tree_report_err(t, NULL, &err);
				return st == COLFS_ENOMEM ? st : COLFS_OK;
			}
			off = next;
			continue;
		}
		off = m.body_off + m.body_len;
	}
}

/* The file format's footer: schema and blocks.  Non-zero when it cannot
 * be used (reported); the caller then walks the stream part. */
static colfs_status footer_read(colfs_tree *t, arrow_file *f)
{
	colfs_err err = {0};
	uint8_t tl[10];
	uint8_t *fb = NULL;
	colfs_status st;

	if (f->size < 18) {
		colfs_tree_report(t, NULL, 0, COLFS_ETRUNCATED,
				  "file of %llu bytes is too short for the "
				  "Arrow file format",
				  (unsigned long long)f->size);
		return COLFS_ETRUNCATED;
	}
	if ((st = colfs_source_read_at(f->src, f->size - 10, 10, tl, &err))) {
		colfs_tree_report_err(t, NULL, &err);
		return st;
	}
	if (memcmp(tl + 4, MAGIC, 6)) {
		colfs_tree_report(t, NULL, f->size - 6, COLFS_ETRUNCATED,
				  "no ARROW1 magic at the end: the file is cut "
				  "short or is not finished");
		return COLFS_ETRUNCATED;
	}
	uint32_t flen = afb_u32(tl);
	if ((uint64_t)flen + 18 > f->size || flen > META_MAX) {
		colfs_tree_report(t, NULL, f->size - 10, COLFS_EBOUNDS,
				  "footer length %u does not fit in the file "
				  "(%llu bytes)", flen,
				  (unsigned long long)f->size);
		return COLFS_EBOUNDS;
	}
	f->footer_off = f->size - 10 - flen;
	f->footer_len = flen;
	if ((st = colfs_source_read_region(f->src, f->footer_off, flen,
					   f->max_alloc, &fb, &err))) {
		colfs_tree_report_err(t, NULL, &err);
		return st;
	}
	afb_table ft, sch;
	if (!afb_root(fb, flen, &ft) || !afb_sub(&ft, 1, &sch)) {
		colfs_tree_report(t, NULL, f->footer_off, COLFS_ECORRUPT,
				  "footer is not a valid flatbuffer with a "
				  "schema");
		free(fb);
		return COLFS_ECORRUPT;
	}
	f->schema_off = f->footer_off;
	f->schema_len = flen;
	if ((st = arrow_schema_parse(f, fb, flen, sch.pos, &err))) {
		colfs_tree_report_err(t, NULL, &err);
		free(fb);
		return st;
	}
	for (unsigned which = 2; which <= 3; which++) {
		afb_vec v;
		if (!afb_vector(&ft, which, 24, &v))
			continue;
		for (uint32_t i = 0; i < v.n; i++) {
			const uint8_t *b = v.buf + v.pos + 24 * (size_t)i;
			uint64_t off = afb_u64(b);
			int32_t ml = (int32_t)afb_u32(b + 8);
			int64_t bl = (int64_t)afb_u64(b + 16);
			arrow_msg m;
			const char *what = which == 2 ? "dictionary"
						      : "record batch";
			if (off >= f->footer_off || ml <= 0 || bl < 0) {
				colfs_tree_report(t, NULL, f->footer_off,
						  COLFS_EBOUNDS,
						  "footer: %s block %u (offset "
						  "%llu, metadata %d, body "
						  "%lld) lies outside the file",
						  what, i,
						  (unsigned long long)off, ml,
						  (long long)bl);
				continue;
			}
			st = msg_read(f, off, &m, &err);
			if (st == COLFS_END)
				st = colfs_fail(&err, COLFS_ECORRUPT, off,
						"footer: %s block %u points at "
						"an end-of-stream marker",
						what, i);
			if (!st && m.body_off != off + (uint64_t)ml)
				colfs_tree_report(t, NULL, off, COLFS_ECORRUPT,
						  "footer: %s block %u says "
						  "metadata of %d bytes, the "
						  "message has %llu", what, i,
						  ml,
						  (unsigned long long)(
							  m.body_off - off));
			if (!st && m.body_len != (uint64_t)bl)
				colfs_tree_report(t, NULL, off, COLFS_ECORRUPT,
						  "footer: %s block %u says a "
						  "body of %lld bytes, the "
						  "message %llu", what, i,
						  (long long)bl,
						  (unsigned long long)
							  m.body_len);
			if (!st && m.kind != (which == 2 ? AM_DICT : AM_BATCH))
				st = colfs_fail(&err, COLFS_ECORRUPT, off,
						"footer: %s block %u holds "
						"another kind of message",
						what, i);
			if (st) {
				free(m.meta);
				if (st == COLFS_ENOMEM) {
					free(fb);
					return st;
				}
				colfs_tree_report_err(t, NULL, &err);
				continue;
			}
			if ((st = msg_add(f, &m, &err))) {
				free(m.meta);
				free(fb);
				return st;
			}
		}
	}
	free(fb);
	/* the stream part's schema message and end-of-stream marker, for
	 * layout and raw/ */
	arrow_msg sm;
	if (!msg_read(f, 8, &sm, &err) && sm.kind == AM_SCHEMA) {
		f->smsg_off = 8;
		f->smsg_len = sm.body_off + sm.body_len - 8;
	}
	free(sm.meta);
	sm.meta = NULL;
	uint64_t end = f->smsg_len ? 8 + f->smsg_len : 8;
	for (uint32_t i = 0; i < f->nmsgs; i++)
		if (f->msgs[i].body_off + f->msgs[i].body_len > end)
			end = f->msgs[i].body_off + f->msgs[i].body_len;
	if (end < f->footer_off && msg_read(f, end, &sm, &err) == COLFS_END) {
		f->eos_off = end;
		f->eos_len = sm.meta_off - end;
	}
	free(sm.meta);
	return COLFS_OK;
}

/* Dictionaries as each batch sees them, and the batches' row total. */
static colfs_status index_batches(colfs_tree *t, arrow_file *f)
{
	uint32_t nb = 0;
	for (uint32_t i = 0; i < f->nmsgs; i++)
		nb += f->msgs[i].kind == AM_BATCH;
	f->batches = calloc(nb ? nb : 1, sizeof(uint32_t));
	f->dmsgs = calloc(f->ndict ? f->ndict : 1, sizeof(uint32_t *));
	f->ndmsgs = calloc(f->ndict ? f->ndict : 1, sizeof(uint32_t));
	f->batch_dlo = calloc((size_t)(nb ? nb : 1) * (f->ndict ? f->ndict : 1),
			      sizeof(uint32_t));
	f->batch_dhi = calloc((size_t)(nb ? nb : 1) * (f->ndict ? f->ndict : 1),
			      sizeof(uint32_t));
	f->dcache = calloc(f->nmsgs ? f->nmsgs : 1, sizeof(arrow_batch *));
	f->dviews = calloc((size_t)(nb ? nb : 1) * (f->ndict ? f->ndict : 1),
			   sizeof(arrow_dict *));
	uint32_t *lo = calloc(f->ndict ? f->ndict : 1, sizeof(uint32_t));
	if (!f->batches || !f->dmsgs || !f->ndmsgs || !f->batch_dlo ||
	    !f->batch_dhi || !f->dcache || !f->dviews || !lo) {
		free(lo);
		return COLFS_ENOMEM;
	}
	for (uint32_t k = 0; k < f->ndict; k++)
		if (!(f->dmsgs[k] = calloc(f->nmsgs ? f->nmsgs : 1,
					   sizeof(uint32_t)))) {
			free(lo);
			return COLFS_ENOMEM;
		}
	/* the file format: every dictionary applies to every batch */
	for (uint32_t i = 0; i < f->nmsgs; i++) {
		arrow_msg *m = &f->msgs[i];
		if (m->kind == AM_DICT) {
			uint32_t k;
			for (k = 0; k < f->ndict; k++)
				if (f->dict_ids[k] == m->dict_id)
					break;
			if (k == f->ndict) {
				colfs_tree_report(t, NULL, m->off,
						  COLFS_ECORRUPT,
						  "dictionary batch for id %lld, "
						  "which no field of the schema "
						  "uses", (long long)m->dict_id);
				m->bad = true;
				continue;
			}
			if (!m->delta && f->ndmsgs[k] > lo[k]) {
				if (f->is_file) {
					colfs_tree_report(
						t, NULL, m->off,
						COLFS_ECORRUPT,
						"dictionary %lld replaced in "
						"the file format (only deltas "
						"are allowed): this batch is "
						"not used",
						(long long)m->dict_id);
					m->bad = true;
					continue;
				}
				lo[k] = f->ndmsgs[k];
			}
			f->dmsgs[k][f->ndmsgs[k]++] = i;
		} else if (m->kind == AM_BATCH) {
			f->batches[f->nbatches++] = i;
			f->total_rows += (uint64_t)m->length;
		}
	}
	for (uint32_t b = 0; b < f->nbatches; b++)
		for (uint32_t k = 0; k < f->ndict; k++) {
			size_t s = (size_t)b * f->ndict + k;
			if (f->is_file) {
				f->batch_dlo[s] = 0;
				f->batch_dhi[s] = f->ndmsgs[k];
			} else {
				/* the dictionary messages before the batch */
				uint32_t hi = 0, l = 0;
				for (uint32_t j = 0; j < f->ndmsgs[k]; j++) {
					uint32_t mi = f->dmsgs[k][j];
					if (mi > f->batches[b])
						break;
					if (!f->msgs[mi].delta)
						l = j;
					hi = j + 1;
				}
				f->batch_dlo[s] = l;
				f->batch_dhi[s] = hi;
			}
		}
	free(lo);
	return COLFS_OK;
}

static colfs_status file_open(colfs_tree *t, colfs_err *err)
{
	arrow_file *f = calloc(1, sizeof(*f));
	const colfs_options *o = colfs_tree_options(t);
	uint8_t head[8] = {0};
	size_t got = 0;
	colfs_status st;

	if (!f)
		return colfs_fail(err, COLFS_ENOMEM, 0, "no memory");
	pthread_mutex_init(&f->lock, NULL);
	colfs_tree_set_format_state(t, f);
	f->src = colfs_tree_source(t);
	f->size = colfs_source_size(f->src);
	f->max_alloc = o->max_alloc ? o->max_alloc : (1ull << 30);
	COLFS_TRY(colfs_source_pread(f->src, 0, 8, head, &got, err));
	f->is_file = got >= 6 && !memcmp(head, MAGIC, 6);
	if (f->is_file) {
		st = footer_read(t, f);
		if (st == COLFS_ENOMEM)
			return colfs_fail(err, st, 0, "no memory");
		if (st) {
			/* what the stream part still holds */
			for (uint32_t i = 0; i < f->nmsgs; i++)
				free(f->msgs[i].meta);
			f->nmsgs = 0;
			arrow_field_free(&f->root);
			f->have_schema = false;
			f->ndict = 0;
			f->footer_len = 0;
			f->footer_off = f->size;
			colfs_tree_report(t, NULL, 8, COLFS_ECORRUPT,
					  "footer unusable: the messages are "
					  "listed by walking the file from "
					  "offset 8");
			if ((st = walk(t, f, 8, f->size)))
				return colfs_fail(err, st, 0, "no memory");
			f->is_file = false;
		}
	} else if ((st = walk(t, f, 0, f->size))) {
		return colfs_fail(err, st, 0, "no memory");
	}
	if (!f->have_schema)
		colfs_tree_report(t, NULL, 0, COLFS_ECORRUPT,
				  "no schema could be read: no values can be "
				  "shown");
	if ((st = index_batches(t, f)))
		return colfs_fail(err, st, 0, "no memory");
	return arrow_tree_root(t, colfs_tree_root(t));
}

const colfs_format colfs_format_arrow = {
	.name = "arrow",
	.probe = probe,
	.open = file_open,
	.close = file_free,
};

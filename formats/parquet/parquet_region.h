/* colfs: the state of one open Parquet file, shared by every file of the
 * module, and the reads and lookups of parquet_region.c (module-private). */
#ifndef COLFS_PARQUET_REGION_H
#define COLFS_PARQUET_REGION_H

#include "../core/tree.h"
#include "parquet_desc.h"

struct json_t;
struct pqv_state;
typedef struct pq_salvage pq_salvage;

typedef struct pq_state {
	colfs_source *src;          /* borrowed from the tree */
	uint64_t size;
	uint64_t max_alloc;
	uint8_t head_magic[4];
	uint8_t tail_magic[4];
	bool encrypted_footer;      /* tail magic PARE */
	bool footer_ok;             /* footer bytes located and read */
	uint32_t footer_len_field;
	uint64_t footer_offset, footer_len;
	colfs_err footer_why;       /* why the footer did not decode */
	parquet_file *pf;           /* NULL when no footer could be decoded */
	struct pqv_state *values;   /* the page pipeline (parquet_pages.c) */
	pq_salvage *salvage;        /* salvage/ (parquet_salvage.c), or NULL */
	/* The stand-in state salvage builds over schema_from: its problems
	 * are reported under the node being read (its row groups are not in
	 * the tree), and only row groups [0, table_groups) feed columns/ and
	 * rows.* over the whole file. */
	bool synthetic;
	uint32_t table_groups;
} pq_state;

/* `len` bytes at `off`, malloc'd; the region must lie in the file and fit
 * the max_alloc cap. */
colfs_status pq_read_region(pq_state *s, uint64_t off, uint64_t len,
			    uint8_t **out, colfs_err *err);
/* The Thrift struct `d` in `p` (file offset `off`) as JSON. */
colfs_status pq_json_struct(const uint8_t *p, size_t len, uint64_t off,
			    const colfs_thrift_sdesc *d, struct json_t **out,
			    colfs_err *err);

/* The one footer reader, of an open file and of schema_from: locate the
 * footer from the tail (its magic and length), read it and decode it into
 * s->pf, filling the footer fields of `s` (src, size, max_alloc and
 * head_magic set by the caller).  Every problem goes to `report` (may be
 * NULL), none fails: only an I/O error (and, with a reporter, running out
 * of memory) is returned.  `*stage` (may be NULL) says how far it got;
 * with `plain_only` an encrypted footer (PARE) is not read. */
typedef enum pq_footer_stage {
	PQ_FOOTER_NOT_FOUND,   /* too short, tail unread, no (plain) magic */
	PQ_FOOTER_BAD_LENGTH,  /* the length does not fit the file or cap */
	PQ_FOOTER_UNREAD,      /* the footer bytes could not be read */
	PQ_FOOTER_READ,        /* read; s->pf when it decoded */
} pq_footer_stage;
colfs_status pq_footer_read(pq_state *s, bool plain_only,
			    parquet_report_fn report, void *ctx,
			    pq_footer_stage *stage);

/* Chunk c of row group g, or NULL when there is none (nodes carry g and c
 * as their a and b arguments). */
const parquet_chunk *pq_chunk_at(const pq_state *s, uint64_t g, uint64_t c);
/* The raw (unescaped) name of chunk directory `c`. */
const char *pq_chunk_name(const pq_state *s, const parquet_row_group *rg,
			  uint32_t c, char *tmp, size_t tmp_len);
/* The tree path of chunk `c` of row group `g` (k == PQ_NO_PAGE), of its
 * page walk (k == PQ_PAGES: its pages/ directory) or of its page `k`, for
 * filing a problem under the broken part whether or not it was listed
 * (colfs_tree_report_path).  False when the part has no place in the
 * tree (salvage's stand-in state) or the path does not fit. */
#define PQ_NO_PAGE ((size_t)-1)
#define PQ_PAGES ((size_t)-2)
bool pq_part_path(const pq_state *s, uint32_t g, uint32_t c, size_t k,
		  char *buf, size_t len);

/* Report a problem of chunk (g, c), or of its page k (PQ_NO_PAGE: the
 * chunk; PQ_PAGES: its walk), under that part's directory whether or not
 * it was listed; under `fallback` when the part has no place in the tree. */
void pq_part_report(colfs_tree *t, const pq_state *s, uint32_t g, uint32_t c,
		    size_t k, const colfs_node *fallback, const colfs_err *e);
/* A problem of row group g as a whole (records that do not assemble):
 * under its directory, or `fallback` in salvage's stand-in state. */
void pq_rg_report(colfs_tree *t, const pq_state *s, uint32_t g,
		  const colfs_node *fallback, uint64_t off, colfs_status st,
		  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

#endif

/* colfs: the state of one open Parquet file, shared by every file of the
 * module, and the reads and lookups of parquet_region.c (module-private). */
#ifndef COLFS_PARQUET_REGION_H
#define COLFS_PARQUET_REGION_H

#include "../core/tree.h"
#include "parquet_desc.h"

struct json_t;
struct parquet_pages_state;
typedef struct parquet_salvage parquet_salvage;

typedef struct parquet_region_state {
	colfs_source *src;          /* borrowed from the tree */
	uint64_t size;
	uint64_t max_alloc;
	uint8_t head_magic[4];
	uint8_t tail_magic[4];
	bool encrypted_footer;      /* tail magic PARE */
	/* Parquet modular encryption with the user's keys (parquet_crypt.c):
	 * NULL without key options; footer_decrypted when a PARE footer
	 * was decrypted into pf. */
	struct parquet_crypt *crypt;
	bool footer_decrypted;
	bool footer_ok;             /* footer bytes located and read */
	uint32_t footer_len_field;
	uint64_t footer_offset, footer_len;
	colfs_err footer_why;       /* why the footer did not decode */
	parquet_file *pf;           /* NULL when no footer could be decoded */
	struct parquet_pages_state *values;   /* the page pipeline (parquet_pages.c) */
	parquet_salvage *salvage;        /* salvage/ (parquet_salvage.c), or NULL */
	/* The stand-in state salvage builds over schema_from: its problems
	 * are reported under the node being read (its row groups are not in
	 * the tree), and only row groups [0, table_groups) feed columns/ and
	 * rows.* over the whole file. */
	bool synthetic;
	uint32_t table_groups;
} parquet_region_state;

/* The model of the file is shown: a plaintext footer, or an encrypted
 * one decrypted. */
static inline bool parquet_region_footer_plain(const parquet_region_state *s)
{
	return !s->encrypted_footer || s->footer_decrypted;
}

/* `len` bytes at `off`, malloc'd; the region must lie in the file and fit
 * the max_alloc cap. */
colfs_status parquet_region_read(parquet_region_state *s, uint64_t off, uint64_t len,
			    uint8_t **out, colfs_err *err);
/* The Thrift struct `d` in `p` (file offset `off`) as JSON. */
colfs_status parquet_region_json(const uint8_t *p, size_t len, uint64_t off,
			    const colfs_thrift_sdesc *d, struct json_t **out,
			    colfs_err *err);

/* The same as indented JSON text appended to `out` (as colfs_buf_json
 * writes it, without the last '\n'), its lines after the first indented
 * by `depth` more levels of two spaces: written straight from the Thrift
 * (colfs_thrift_struct_text), through the jansson tree where that cannot
 * be sure of the same bytes.  A failure leaves `out` as it was (unless
 * out of memory) and says why in `err`, as parquet_region_json does. */
colfs_status parquet_region_json_text(const uint8_t *p, size_t len,
				      uint64_t off, const colfs_thrift_sdesc *d,
				      unsigned depth, colfs_buf *out,
				      colfs_err *err);

/* The one footer reader, of an open file and of schema_from: locate the
 * footer from the tail (its magic and length), read it and decode it into
 * s->pf, filling the footer fields of `s` (src, size, max_alloc and
 * head_magic set by the caller).  Every problem goes to `report` (may be
 * NULL), none fails: only an I/O error (and, with a reporter, running out
 * of memory) is returned.  `*stage` (may be NULL) says how far it got;
 * with `plain_only` an encrypted footer (PARE) is not read. */
typedef enum parquet_region_footer_stage {
	PARQUET_REGION_FOOTER_NOT_FOUND,   /* too short, tail unread, no (plain) magic */
	PARQUET_REGION_FOOTER_BAD_LENGTH,  /* the length does not fit the file or cap */
	PARQUET_REGION_FOOTER_UNREAD,      /* the footer bytes could not be read */
	PARQUET_REGION_FOOTER_READ,        /* read; s->pf when it decoded */
} parquet_region_footer_stage;
colfs_status parquet_region_footer_read(parquet_region_state *s, bool plain_only,
			    parquet_report_fn report, void *ctx,
			    parquet_region_footer_stage *stage);

/* A footer over this many bytes is large: the documents that grow with
 * it (metadata.json, whose JSON runs to about 14 bytes a footer byte, and
 * layout, a line a chunk) are streams, made when read and not to answer
 * a stat (docs/tree.md, "Sizes"); the others stay documents.  So is a
 * row group's meta.json when its RowGroup spans more than this. */
#define PARQUET_REGION_LARGE_FOOTER (64 * 1024)
static inline bool parquet_region_footer_large(const parquet_region_state *s)
{
	return s->footer_ok && s->footer_len > PARQUET_REGION_LARGE_FOOTER;
}

/* Chunk c of row group g, or NULL when there is none (nodes carry g and c
 * as their a and b arguments). */
const parquet_chunk *parquet_region_chunk(const parquet_region_state *s, uint64_t g, uint64_t c);
/* The raw (unescaped) name of chunk directory `c`. */
const char *parquet_region_chunk_name(const parquet_region_state *s, const parquet_row_group *rg,
			  uint32_t c, char *tmp, size_t tmp_len);
/* The tree path of chunk `c` of row group `g` (k == PARQUET_REGION_NO_PAGE), of its
 * page walk (k == PARQUET_REGION_PAGES: its pages/ directory) or of its page `k`, for
 * filing a problem under the broken part whether or not it was listed
 * (colfs_tree_report_path).  False when the part has no place in the
 * tree (salvage's stand-in state) or the path does not fit. */
#define PARQUET_REGION_NO_PAGE ((size_t)-1)
#define PARQUET_REGION_PAGES ((size_t)-2)
bool parquet_region_part_path(const parquet_region_state *s, uint32_t g, uint32_t c, size_t k,
		  char *buf, size_t len);

/* Report a problem of chunk (g, c), or of its page k (PARQUET_REGION_NO_PAGE: the
 * chunk; PARQUET_REGION_PAGES: its walk), under that part's directory whether or not
 * it was listed; under `fallback` when the part has no place in the tree. */
void parquet_region_part_report(colfs_tree *t, const parquet_region_state *s, uint32_t g, uint32_t c,
		    size_t k, const colfs_node *fallback, const colfs_err *e);
/* Part (g, c, k) hides rows [first, first + rows) (COLFS_ROWS_UNKNOWN:
 * how many is not known): colfs_tree_note_hidden under the part's path,
 * or under `fallback` when it has no place in the tree. */
void parquet_region_part_hidden(colfs_tree *t, const parquet_region_state *s,
				uint32_t g, uint32_t c, size_t k,
				const colfs_node *fallback, uint64_t off,
				uint64_t first, uint64_t rows);
/* A problem of row group g as a whole (records that do not assemble):
 * under its directory, or `fallback` in salvage's stand-in state. */
void parquet_region_rg_report(colfs_tree *t, const parquet_region_state *s, uint32_t g,
		  const colfs_node *fallback, uint64_t off, colfs_status st,
		  const char *fmt, ...) __attribute__((format(printf, 7, 8)));

#endif

/* colfs: state and documents of the Parquet tree (module-private). */
#ifndef COLFS_PQ_TREE_H
#define COLFS_PQ_TREE_H

#include "../core/tree.h"
#include "parquet_internal.h"

struct json_t;

/* The page walk of one chunk, done once when pages/ is first listed. */
typedef struct pq_page_list {
	bool walked;
	parquet_page *pages;   /* tree memory */
	size_t n;
} pq_page_list;

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
	parquet_file *pf;           /* NULL when no footer could be decoded */
	pq_page_list **walks;       /* [row group][chunk], tree memory */
	struct pqv_state *values;   /* the value pipeline (parquet_values.c) */
	pq_salvage *salvage;        /* salvage/ (parquet_salvage.c), or NULL */
	/* The stand-in state salvage builds over schema_from: its problems
	 * are reported under the node being read (its row groups are not in
	 * the tree), and only row groups [0, table_groups) feed columns/ and
	 * rows.* over the whole file. */
	bool synthetic;
	uint32_t table_groups;
} pq_state;

colfs_status pq_read_region(pq_state *s, uint64_t off, uint64_t len,
			    uint8_t **out, colfs_err *err);
colfs_status pq_json_struct(const uint8_t *p, size_t len, uint64_t off,
			    const colfs_thrift_sdesc *d, struct json_t **out,
			    colfs_err *err);
const parquet_chunk *pq_node_chunk(pq_state *s, const colfs_node *n);
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

/* parquet_salvage.c: salvage/ for a file whose footer is unusable */
bool pq_salvage_wanted(const pq_state *s);
colfs_status pq_salvage_add(colfs_tree *t, colfs_node *root, pq_state *s);
void pq_salvage_destroy(pq_salvage *sv);

/* parquet_docs.c */
colfs_status pq_summary_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status pq_readme_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status pq_schema_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status pq_schema_json_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status pq_layout_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);
colfs_status pq_statistics_gen(colfs_tree *t, colfs_node *f, colfs_buf *out);

#endif

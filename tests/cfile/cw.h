/* colfs tests: a writer of Kudu CFiles for the test suite (and the
 * `cfile-writer` command).  It follows the fact sheet
 * (/work/shared/docs/cfile-format.md); docs/cfile-tree.md documents it.
 *
 * The values are generated from (type, count, seed, nullable) so a test can
 * regenerate them; the writer also writes them, rendered one per line, to
 * an "expected" file. */
#ifndef COLFS_TESTS_CW_H
#define COLFS_TESTS_CW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deliberate damage the writer can build in (things a byte flip cannot). */
enum cw_damage {
	CW_DAMAGE_NONE = 0,
	CW_DAMAGE_INDEX_CYCLE,     /* root index node: last entry points to itself */
	CW_DAMAGE_BAD_CODEWORD,    /* first codeword block: one codeword past the dictionary */
	CW_DAMAGE_ORDINAL,         /* second data block: first-ordinal field off by one */
	CW_DAMAGE_UNKNOWN_FEATURE, /* incompatible_features gets bit 0x80 */
	CW_DAMAGE_NUM_VALUES,      /* footer num_values one too many */
	/* Lies `verify` must find (each one mismatch, nothing else): */
	CW_DAMAGE_VALIDX_KEY,      /* value index: block 1's key is its first
				    * value's key with the last bit flipped */
	CW_DAMAGE_MIN_KEY,         /* min_key: the second value's key */
	CW_DAMAGE_MAX_KEY,         /* max_key: the first value's key */
	CW_DAMAGE_UNSORTED,        /* block 1: values 3 and 4 swapped */
	CW_DAMAGE_DELTA_DELETES,   /* deltafilestats delete_count + 1 */
	CW_DAMAGE_DELTA_MAX_TS,    /* deltafilestats max_timestamp + 1 */
	CW_DAMAGE_DELTA_COLUMN,    /* deltafilestats: column 3 update_count + 1 */
};

typedef struct cw_params {
	int version;             /* 1 (kuducfil) or 2 (kuducfl2) */
	int32_t type;            /* enum cfile_type */
	int32_t encoding;        /* enum cfile_encoding */
	int32_t compression;     /* enum cfile_compression */
	bool nullable;
	bool checksums;          /* CHECKSUM feature bit (v2 only) */
	bool posidx;
	bool validx;             /* value index; the column is then a primary
				  * key: its values are sorted and the footer
				  * has min_key / max_key (§13) */
	bool header_metadata;    /* a non-empty CFileHeaderPB */
	bool array;              /* array cells of the type (§7.3, feature 0x2):
				  * NULL cells, empty arrays, NULL elements
				  * (with `nullable`) */
	uint32_t count;          /* rows */
	uint32_t block_rows;     /* rows per data block (0: 1000) */
	uint32_t index_block_size; /* bytes (0: 32768) */
	uint32_t restart_interval; /* PREFIX (0: 16) */
	uint32_t dict_limit;     /* DICT: distinct strings before plain mode (0: 1000) */
	uint32_t distinct;       /* strings: distinct values generated (0: 50) */
	uint32_t seed;
	enum cw_damage damage;
	/* What kind of file (§13): a column, a DeltaFile (BINARY PLAIN,
	 * value index with full DeltaKeys, `deltafilestats`; `count` deltas)
	 * or a BloomFile (raw bloom blocks of `block_rows` keys each, value
	 * index, num_values 0, no compression; `count` keys).  For these the
	 * expected file holds what `deltas` / the block lines of `bloom`
	 * show. */
	enum cw_role { CW_COLUMN = 0, CW_DELTA, CW_BLOOM } role;
	bool undo;               /* DeltaFile: UNDO order, timestamps
				  * descending within a row (§13.1) */
} cw_params;

/* Fill `p` with defaults (v2, INT32, PLAIN, none, checksums, posidx). */
void cw_params_default(cw_params *p);

/* Write the CFile to `path` and, if `expected_path` is not NULL, the
 * rendered values (one per line, NULL as \N).  Returns 0, or -1 with a
 * reason in `why`. */
int cw_write(const cw_params *p, const char *path, const char *expected_path,
	     char *why, size_t why_len);

/* Parse names as the command line spells them ("INT32", "BIT_SHUFFLE",
 * "LZ4"); -1 if unknown. */
int32_t cw_type_parse(const char *s);
int32_t cw_encoding_parse(const char *s);
int32_t cw_compression_parse(const char *s);

#endif

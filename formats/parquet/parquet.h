/* colfs: the typed model of a Parquet file's metadata.
 *
 * parquet_file_parse decodes FileMetaData once (from the footer bytes) into
 * the structures below; the tree and the value decoders work from them.
 * Everything here is read-only after parsing and may be shared by threads.
 * Strings are NUL-terminated copies owned by the parquet_file (binary data,
 * such as key/value values, also carries an explicit length).
 *
 * Every number in the model is what the file says.  The only derived and
 * validated numbers are the chunk extents (parquet_chunk.start/.length),
 * the schema tree (parent/children, leaf index, max levels, dotted paths)
 * and the chunk-to-leaf mapping (parquet_chunk.column).
 */
#ifndef COLFS_PARQUET_H
#define COLFS_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/cursor.h"
#include "../core/source.h"
#include "../core/status.h"
#include "../core/thrift.h"
#include "parquet_thrift.h"

/* Enum value -> name ("INT32", "SNAPPY", ...); NULL when unknown. */
const char *parquet_type_name(int32_t v);
const char *parquet_repetition_name(int32_t v);
const char *parquet_converted_name(int32_t v);
const char *parquet_encoding_name(int32_t v);
const char *parquet_codec_name(int32_t v);
const char *parquet_page_type_name(int32_t v);

/* SchemaElement.logicalType, decoded. */
typedef struct parquet_logical {
	int32_t kind;          /* parquet_logical_kind; 0 = absent; other
				  ids are kept as read */
	int32_t scale;         /* DECIMAL */
	int32_t precision;     /* DECIMAL */
	int32_t unit;          /* TIME, TIMESTAMP: parquet_time_unit */
	bool utc;              /* TIME, TIMESTAMP: isAdjustedToUTC */
	int32_t bit_width;     /* INTEGER */
	bool is_signed;        /* INTEGER */
	int32_t variant_version; /* VARIANT, -1 when absent */
	const char *crs;       /* GEOMETRY, GEOGRAPHY (NULL when absent) */
	int32_t algorithm;     /* GEOGRAPHY, -1 when absent */
} parquet_logical;

/* One SchemaElement plus its place in the schema tree.  Optional fields
 * that are absent hold -1 (has_* for the ones where -1 is a value). */
typedef struct parquet_schema_elem {
	const char *name;
	int32_t type;            /* parquet_type, -1: group */
	int32_t type_length;
	int32_t repetition;      /* parquet_repetition, -1: absent (root) */
	int32_t num_children;    /* -1: absent */
	int32_t converted_type;  /* parquet_converted, -1: absent */
	int32_t scale, precision;
	bool has_field_id;
	int32_t field_id;
	parquet_logical logical;
	/* the tree */
	int32_t parent;          /* index of the parent, -1 for the root */
	uint32_t first_child;    /* index of the first child (if any) */
	uint32_t n_children;     /* children actually found */
	int16_t max_def, max_rep;/* levels of this node (root: 0, 0) */
	int32_t leaf;            /* index into parquet_file.columns, -1: group */
	/* a top-level BYTE_ARRAY column without a logical type that
	 * GeoParquet's `geo` key-value metadata lists with encoding WKB:
	 * its values render as GEOMETRY (docs/values.md) */
	bool geoparquet_wkb;
	/* a top-level field GeoParquet's `geo` names (of any encoding): its
	 * entry's encoding, geometry_types, crs and edges as stored, and
	 * "primary": true for the primary column, as compact JSON text;
	 * NULL when not named (shown by `schema` and `schema.json`) */
	const char *geoparquet;
	/* where the SchemaElement starts in the file (its problems point
	 * there) */
	uint64_t offset;
} parquet_schema_elem;

/* A leaf column of the schema. */
typedef struct parquet_column {
	uint32_t schema_index;   /* into parquet_file.schema */
	const parquet_schema_elem *elem;
	const char *path;        /* "a.b.c": components joined by '.' */
	const char *const *parts;/* the path components, raw */
	uint32_t n_parts;
	int16_t max_def, max_rep;
} parquet_column;

/* A column chunk: ColumnChunk + the ColumnMetaData fields needed to find
 * and decode its pages.  Offsets into the footer (`*_span_*`) locate the
 * serialized structs for re-decoding into JSON. */
typedef struct parquet_chunk {
	/* (8-byte fields first, then 4-byte, then flags: a footer of
	 * 200,000 chunks holds 200,000 of these) */
	int64_t file_offset;     /* ColumnChunk.file_offset */
	int64_t num_values;
	int64_t total_uncompressed_size;
	int64_t total_compressed_size;
	int64_t data_page_offset;
	int64_t index_page_offset;       /* -1: absent */
	int64_t dictionary_page_offset;  /* -1: absent */
	int64_t bloom_filter_offset;     /* -1: absent */
	int64_t offset_index_offset;     /* -1: absent */
	int64_t column_index_offset;     /* -1: absent */
	const char *file_path;   /* ColumnChunk.file_path, NULL when absent */
	/* The next two may be shared with the same chunk of the row group
	 * before when equal (read-only). */
	const int32_t *encodings;        /* ColumnMetaData.encodings */
	const char *path_in_schema;      /* joined by '.', NULL when absent */
	/* Derived: the stored bytes of the chunk, from the dictionary page
	 * (when dictionary_page_offset is set and lies before the data page)
	 * or the first data page, for total_compressed_size bytes, clamped to
	 * the file.  extent_ok is false when it had to be clamped or the
	 * numbers make no sense (then start/length are what is left). */
	uint64_t start, length;
	/* PARQUET-816: parquet-mr before 1.2.9 left the dictionary page
	 * header out of total_compressed_size (and some of its files do not
	 * set dictionary_page_offset).  For chunks of such writers (as Arrow
	 * does), the page walk may read this many bytes
	 * (at most 100, never into the footer) past start + length, and says
	 * so when it does. */
	uint64_t slack;
	uint32_t column;         /* leaf index (= position in the row group) */
	uint32_t n_encodings;
	int32_t type;            /* ColumnMetaData.type */
	int32_t codec;
	int32_t bloom_filter_length;     /* -1: absent */
	int32_t offset_index_length;     /* -1: absent */
	int32_t column_index_length;     /* -1: absent */
	/* Offsets into the footer (its length is a 4-byte field) of the
	 * serialized structs, for re-decoding into JSON. */
	uint32_t stats_span_off, stats_span_len;   /* Statistics */
	uint32_t span_off, span_len;               /* ColumnChunk */
	uint32_t meta_span_off, meta_span_len;     /* ColumnMetaData */
	uint32_t geo_span_off, geo_span_len;       /* GeospatialStatistics */
	/* Parquet modular encryption: ColumnChunk.crypto_metadata (a
	 * ColumnCryptoMetaData) and the payload of encrypted_column_metadata
	 * (len 0: absent) */
	uint32_t crypto_span_off, crypto_span_len;
	uint32_t enc_meta_span_off, enc_meta_span_len;
	/* The key that decrypts the chunk's modules, set by parquet_crypt.c
	 * when the chunk is encrypted and its key is known (`encrypted` is
	 * then false: everything reads through the decryption), with the
	 * row group ordinal the modules' AADs carry. */
	const struct parquet_crypt_key *dek;
	uint32_t rg_ordinal;
	bool has_meta;           /* ColumnChunk.meta_data present */
	bool encrypted;          /* crypto_metadata or encrypted_column_metadata,
				    and no key to read it (dek) */
	bool has_crypto_metadata;
	bool has_encrypted_metadata;
	bool has_statistics;
	bool has_geo_statistics; /* ColumnMetaData.geospatial_statistics */
	bool extent_ok;
} parquet_chunk;

typedef struct parquet_row_group {
	int64_t num_rows;
	int64_t total_byte_size;
	int64_t total_compressed_size;   /* -1: absent */
	int64_t file_offset;             /* -1: absent */
	int32_t ordinal;                 /* -1: absent */
	parquet_chunk *chunks;
	uint32_t n_chunks;
	size_t span_off, span_len;       /* RowGroup in the footer */
} parquet_row_group;

typedef struct parquet_kv {
	const char *key;
	const uint8_t *value;    /* NULL when absent; NUL-terminated copy */
	size_t value_len;
} parquet_kv;

typedef struct parquet_file {
	uint64_t file_size;
	/* The footer: for a plaintext footer the FileMetaData bytes (plus
	 * the 28-byte signature of a signed plaintext footer); for PARE the
	 * FileCryptoMetaData followed by the encrypted FileMetaData. */
	const uint8_t *footer;
	size_t footer_len;
	uint64_t footer_offset;  /* absolute offset of footer[0] */
	bool encrypted_footer;   /* tail magic PARE */
	size_t meta_len;         /* bytes FileMetaData (or FileCryptoMetaData)
				    actually took */
	bool meta_ok;            /* FileMetaData decoded completely */

	int32_t version;
	int64_t num_rows;
	const char *created_by;  /* NULL when absent */
	parquet_schema_elem *schema;
	uint32_t n_schema;
	parquet_column *columns;
	uint32_t n_columns;
	parquet_row_group *row_groups;
	uint32_t n_row_groups;
	parquet_kv *kv;
	uint32_t n_kv;
	bool has_column_orders;
	int32_t *column_orders;  /* per leaf: the ColumnOrder member id */
	uint32_t n_column_orders;
	bool has_encryption_algorithm;   /* plaintext footer, encrypted file */
	bool has_footer_signing_key;
	int32_t encryption_algorithm;    /* 1 AES_GCM_V1, 2 AES_GCM_CTR_V1, -1 */

	struct parquet_arena *arena;
} parquet_file;

/* Decode FileMetaData from `footer` (copied into the model; `offset` is its
 * absolute file offset), build the schema tree and validate the chunks
 * against `file_size`.  Problems that leave part of the metadata usable
 * are passed to `report` (may be NULL) and parsing goes on; only an
 * unusable footer fails.  `*out` is set even on failure when anything was
 * decoded (destroy it either way). */
typedef void (*parquet_report_fn)(void *ctx, const colfs_err *err);
colfs_status parquet_file_parse(const uint8_t *footer, size_t len,
				uint64_t offset, uint64_t file_size,
				bool encrypted_footer, parquet_report_fn report,
				void *report_ctx, parquet_file **out,
				colfs_err *err);
/* The same, keeping `footer` (malloc'd, len bytes) as the model's copy:
 * it is freed with the model, or here when the model cannot be made. */
colfs_status parquet_file_parse_owned(uint8_t *footer, size_t len,
				      uint64_t offset, uint64_t file_size,
				      bool encrypted_footer,
				      parquet_report_fn report, void *report_ctx,
				      parquet_file **out, colfs_err *err);
/* A decrypted ColumnMetaData placed in the footer buffer after the
 * (decrypted) FileMetaData: chunk c of row group g, at byte `off` of the
 * buffer, `len` bytes (parquet_crypt.c builds the buffer).  Its byte i
 * is the module's ciphertext byte i, at file offset `file_off` + i:
 * the offset its problems give (docs/errors.md, "Offsets"). */
typedef struct parquet_meta_extra {
	uint32_t g, c;
	size_t off, len;
	uint64_t file_off;
} parquet_meta_extra;
/* parquet_file_parse_owned of a plaintext footer followed by decrypted
 * ColumnMetaData structs: each replaces (or supplies) its chunk's
 * meta_data. */
colfs_status parquet_file_parse_decrypted(uint8_t *footer, size_t len,
					  uint64_t offset, uint64_t file_size,
					  const parquet_meta_extra *extra,
					  size_t n_extra,
					  parquet_report_fn report,
					  void *report_ctx, parquet_file **out,
					  colfs_err *err);
void parquet_file_destroy(parquet_file *pf);

/* The rows the views hold: the sum of the row groups' num_rows, which
 * FileMetaData.num_rows should equal.  False when the sum is not known
 * (a negative count, or a sum past INT64_MAX). */
bool parquet_file_rows(const parquet_file *pf, int64_t *sum);

/* Total uncompressed/compressed bytes of all chunks (from metadata). */
void parquet_file_sizes(const parquet_file *pf, uint64_t *compressed,
			uint64_t *uncompressed);

/* --- pages ---------------------------------------------------------------- */

/* A PageHeader, typed.  Fields of page kinds that are absent are 0. */
typedef struct parquet_page_header {
	int32_t type;                 /* parquet_page_type */
	int32_t uncompressed_size;    /* uncompressed_page_size */
	int32_t compressed_size;      /* compressed_page_size */
	bool has_crc;
	uint32_t crc;
	bool has_data_v1, has_data_v2, has_dictionary, has_index;
	int32_t num_values;           /* data v1/v2 and dictionary pages */
	int32_t encoding;             /* data v1/v2 and dictionary pages */
	int32_t def_encoding;         /* data v1 */
	int32_t rep_encoding;         /* data v1 */
	int32_t num_nulls;            /* data v2 */
	int32_t num_rows;             /* data v2 */
	int32_t def_levels_len;       /* data v2: definition_levels_byte_length */
	int32_t rep_levels_len;       /* data v2: repetition_levels_byte_length */
	bool is_compressed;           /* data v2 (default true); else true */
	bool has_statistics;
	bool dict_sorted;             /* dictionary: is_sorted */
	uint32_t header_len;          /* bytes the serialized header took */
} parquet_page_header;

/* Decode one PageHeader at the cursor (which advances past it).  Checks:
 * required fields present, sizes and counts >= 0, the sub-header matching
 * the page type present, v2 level lengths within compressed_size. */
colfs_status parquet_pages_header_parse(colfs_cursor *c,
				       parquet_page_header *hdr,
				       colfs_err *err);

/* One page found by walking a chunk. */
typedef struct parquet_page {
	uint64_t offset;          /* absolute offset of the page header */
	uint32_t ordinal;         /* data pages: the how-manyth data page of
				     the chunk (an encrypted page's AAD) */
	parquet_page_header hdr;  /* data follow at offset + hdr.header_len */
} parquet_page;

/* Walk the page headers of a chunk from its start, reading through `src`:
 * stops at the chunk's end, once the data pages account for num_values, or
 * at a header that does not decode or does not fit in the chunk.  Pages
 * before a bad one are returned; `*stop` then holds the problem
 * (stop->status is COLFS_OK for a clean walk).  `*pages` is malloc'd (free
 * it).  Fails only when out of memory.  Encrypted chunks are refused with
 * COLFS_EUNSUPPORTED in `*stop`. */
colfs_status parquet_pages_walk(const colfs_source *src,
				const parquet_chunk *ch, uint64_t max_header,
				parquet_page **pages, size_t *n_pages,
				colfs_err *stop, colfs_err *note);
/* `*note` (optional) receives a problem that did not stop the walk: pages
 * read past the declared end within ch->slack (PARQUET-816). */

#endif

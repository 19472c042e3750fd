/* colfs: Parquet modular encryption with the user's keys (parquet_crypt.c;
 * module-private): the keys of a file (options and key_file), the
 * decryption of one module (AES_GCM_V1, AES_GCM_CTR_V1 through OpenSSL's
 * libcrypto), and the footer: an encrypted footer (PARE) decrypted, a
 * plaintext footer's signature verified, encrypted ColumnMetaData
 * decrypted, and the key of every chunk whose key is known set on it
 * (parquet_chunk.dek).  docs/parquet-tree.md, "Encryption".
 */
#ifndef COLFS_PARQUET_CRYPT_H
#define COLFS_PARQUET_CRYPT_H

#include "parquet_region.h"

/* The module types of the AADs (parquet-format Encryption.md). */
enum parquet_crypt_module {
	PARQUET_CRYPT_FOOTER = 0,
	PARQUET_CRYPT_COLUMN_META = 1,
	PARQUET_CRYPT_DATA_PAGE = 2,
	PARQUET_CRYPT_DICT_PAGE = 3,
	PARQUET_CRYPT_DATA_PAGE_HEADER = 4,
	PARQUET_CRYPT_DICT_PAGE_HEADER = 5,
	PARQUET_CRYPT_COLUMN_INDEX = 6,
	PARQUET_CRYPT_OFFSET_INDEX = 7,
	PARQUET_CRYPT_BLOOM_HEADER = 8,
	PARQUET_CRYPT_BLOOM_BITSET = 9,
};

typedef struct parquet_crypt parquet_crypt;

/* A data encryption key, and whose it is for messages ("footer",
 * "column 'a.b'"); owned by the parquet_crypt. */
typedef struct parquet_crypt_key {
	uint8_t key[32];
	size_t len;                 /* 16, 24 or 32 */
	char who[160];
	const parquet_crypt *file;
} parquet_crypt_key;

/* The keys the options give (footer_key, column_keys, aad_prefix,
 * key_file, read here).  `*out` is NULL when no key option is set.  A
 * key file that cannot be read or is not a JSON object of keys fails
 * with a one-line reason in `why` (no key text in it). */
colfs_status parquet_crypt_create(const colfs_options *o, parquet_crypt **out,
				  char *why, size_t why_len);
void parquet_crypt_destroy(parquet_crypt *c);

/* The footer of an encrypted file, read by parquet_region_footer_read:
 * with PARE, `footer` (flen bytes, borrowed) is decrypted and decoded
 * into s->pf (s->footer_decrypted); with a plaintext footer already in
 * s->pf, its signature is verified and the encrypted ColumnMetaData
 * whose keys are known replace the model's.  Then every encrypted chunk
 * whose key is known gets it.  Problems (no key, a wrong key, a missing
 * AAD prefix) go to `report`; `*done` says whether s->pf was made here
 * (PARE; else the caller goes on as without keys).  Fails only when out
 * of memory or the source fails. */
colfs_status parquet_crypt_footer(parquet_region_state *s,
				  const uint8_t *footer, size_t flen,
				  parquet_report_fn report, void *ctx,
				  bool *done);

/* File the problems of single chunks that parquet_crypt_footer found (a
 * column key not given, a ColumnMetaData that does not decrypt) under
 * their chunks' paths, now that the tree has them
 * (parquet_crypt_read.c). */
void parquet_crypt_report_chunks(colfs_tree *t, parquet_region_state *s);
/* Those problems, each given to `fn` (row group, column, problem), then
 * forgotten (c NULL: none). */
void parquet_crypt_pending_drain(parquet_crypt *c,
				 void (*fn)(void *ctx, uint32_t g, uint32_t col,
					    const colfs_err *e),
				 void *ctx);

/* Decrypt one module of a chunk (`mod`: its bytes, at file offset `off`,
 * `avail` of them readable): the 4-byte length, the nonce, the
 * ciphertext (and the GCM tag).  `rg`, `col` and `page` are the
 * ordinals of the AAD (page: data pages and their headers only).
 * `*out` is malloc'd (`*out_len` bytes); `*used` the module's size. */
colfs_status parquet_crypt_module(const parquet_crypt_key *k, int module,
				  uint32_t rg, uint32_t col, uint32_t page,
				  const uint8_t *mod, size_t avail,
				  uint64_t off, uint8_t **out, size_t *out_len,
				  size_t *used, colfs_err *e);

/* Read `len` bytes at `off` (parquet_region_read) and, for a chunk with
 * a key (ch->dek), decrypt them as one module of type `module`
 * (parquet_crypt_read.c, as the page header below). */
colfs_status parquet_crypt_read(parquet_region_state *s,
				const parquet_chunk *ch, int module,
				uint64_t off, uint64_t len, uint8_t **out,
				size_t *out_len, colfs_err *e);

/* The decrypted PageHeader of page `pg` of a chunk with a key. */
colfs_status parquet_crypt_read_page_header(parquet_region_state *s,
					    const parquet_chunk *ch,
					    const parquet_page *pg,
					    uint8_t **out, size_t *out_len,
					    colfs_err *e);

/* The bytes of the stored page data of a decrypted chunk, decrypted
 * (pages/K/decrypted; parquet_crypt_page.c). */
colfs_status parquet_crypt_page_gen(colfs_tree *t, colfs_node *file,
				    colfs_buf *out);

/* The decrypted bytes of an encrypted footer (raw/footer.decrypted). */
const uint8_t *parquet_crypt_footer_plain(const parquet_crypt *c,
					  size_t *len);

/* What a page's module adds to the compressed_page_size of its header:
 * 0 as the spec says (the size is the module's), 32 in DuckDB's files
 * (the size is the plaintext's). */
size_t parquet_crypt_page_extra(const parquet_crypt_key *k);

/* The file's algorithm (1 AES_GCM_V1, 2 AES_GCM_CTR_V1), -1 unknown. */
int32_t parquet_crypt_algorithm(const parquet_crypt *c);

/* What a plaintext module of this type is short of its stored size
 * (32 for AES-GCM: length, nonce, tag; 16 for AES-CTR: length, nonce). */
size_t parquet_crypt_overhead(const parquet_crypt_key *k, int module);

#endif

/* colfs: Parquet modular encryption with the user's keys (parquet_crypt.h).
 *
 * A module is the 4-byte little-endian length of what follows, a 12-byte
 * nonce, the ciphertext and, for AES-GCM, a 16-byte tag.  AES_GCM_V1
 * encrypts every module with AES-GCM; AES_GCM_CTR_V1 encrypts page data
 * (data and dictionary pages) with AES-CTR (IV: the nonce, then the
 * counter 1 in four big-endian bytes) and the rest with AES-GCM.  The
 * AAD of a GCM module is the file AAD (aad_prefix then aad_file_unique)
 * followed by the module type (one byte) and, but for the footer, the
 * row group and column ordinals and, for data pages and their headers,
 * the page ordinal (two bytes little-endian each).  The ciphers are
 * OpenSSL's; nothing here is hand-written cryptography.
 *
 * Keys live in this module's structures only: never in a message, a
 * file of the tree or a log; they are wiped when freed.
 */
#include "parquet_crypt.h"

#include <jansson.h>
#include <stdarg.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "parquet_pages.h"

struct parquet_crypt {
	/* as given */
	parquet_crypt_key footer;       /* footer_key=, len 0: not given */
	struct {
		char *path;
		parquet_crypt_key key;
	} *cols;                        /* column_keys= */
	size_t n_cols;
	const char *aad_prefix;         /* borrowed from the options */
	json_t *keyfile;                /* key_file's object, or NULL */
	/* of the open file */
	int32_t algorithm;              /* 1 AES_GCM_V1, 2 AES_GCM_CTR_V1 */
	uint8_t *aad;                   /* the file AAD */
	size_t aad_len;
	parquet_crypt_key file_footer;  /* the key the footer was read with */
	parquet_crypt_key *leaf_keys;   /* per leaf column (len 0: none) */
	size_t n_leaf_keys;
	/* DuckDB (1.x) writes files without aad_file_unique whose modules
	 * carry no AAD at all (not the module AADs of the spec): found
	 * when the footer decrypts only so */
	bool no_aad;
	uint8_t *footer_plain;          /* a PARE footer decrypted */
	size_t footer_plain_len;
	/* problems of one chunk found with the footer, before the tree
	 * has the chunk's place: parquet_crypt_pending_drain gives them to
	 * parquet_crypt_report_chunks (parquet_crypt_read.c) */
	struct crypt_pending {
		uint32_t g, c;
		colfs_err e;
	} *pending;
	size_t n_pending;
};

/* --- keys ------------------------------------------------------------------ */

static void key_free_json(json_t *o)
{
	const char *k;
	json_t *v;

	if (!o)
		return;
	json_object_foreach(o, k, v) {
		if (json_is_string(v))
			colfs_key_wipe((char *)json_string_value(v),
				       json_string_length(v));
	}
	json_decref(o);
}

void parquet_crypt_destroy(parquet_crypt *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_cols; i++)
		free(c->cols[i].path);
	colfs_key_wipe(c->cols, c->n_cols * sizeof *c->cols);
	free(c->cols);
	colfs_key_wipe(c->leaf_keys, c->n_leaf_keys * sizeof *c->leaf_keys);
	free(c->pending);
	free(c->leaf_keys);
	key_free_json(c->keyfile);
	free(c->aad);
	free(c->footer_plain);
	colfs_key_wipe(c, sizeof *c);
	free(c);
}

static colfs_status keyfile_load(parquet_crypt *c, const char *path,
				 char *why, size_t why_len)
{
	json_error_t je;
	FILE *f = fopen(path, "re");
	uint8_t *text = NULL;
	size_t n = 0, cap = 0;
	const char *k;
	json_t *v;

	if (!f) {
		snprintf(why, why_len, "key_file=%s: cannot be opened", path);
		return COLFS_EIO;
	}
	for (;;) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			uint8_t *nt;
			if (nc > (1u << 20)) {
				snprintf(why, why_len,
					 "key_file=%s: larger than 1 MiB", path);
				goto fail;
			}
			nt = malloc(nc);
			if (!nt) {
				snprintf(why, why_len, "out of memory");
				goto fail;
			}
			if (text) {
				memcpy(nt, text, n);
				colfs_key_wipe(text, cap);
				free(text);
			}
			text = nt;
			cap = nc;
		}
		size_t got = fread(text + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	f = NULL;
	c->keyfile = json_loadb((const char *)text, n, JSON_REJECT_DUPLICATES,
				&je);
	colfs_key_wipe(text, cap);
	free(text);
	text = NULL;
	if (!c->keyfile || !json_is_object(c->keyfile)) {
		/* line and column only: the text may hold keys */
		snprintf(why, why_len,
			 "key_file=%s: not a JSON object of keys (line %d, column %d)",
			 path, je.line, je.column);
		return COLFS_ECORRUPT;
	}
	json_object_foreach(c->keyfile, k, v) {
		uint8_t b[32];
		size_t len;
		if (!json_is_string(v) ||
		    colfs_key_decode(json_string_value(v), json_string_length(v),
				     b, &len)) {
			colfs_key_wipe(b, sizeof b);
			snprintf(why, why_len,
				 "key_file=%s: the key of \"%.100s\" is not 32, 48 or 64 hex digits or base64:... of 16, 24 or 32 bytes",
				 path, k);
			return COLFS_ECORRUPT;
		}
		colfs_key_wipe(b, sizeof b);
	}
	return COLFS_OK;
fail:
	if (f)
		fclose(f);
	if (text) {
		colfs_key_wipe(text, cap);
		free(text);
	}
	return COLFS_ENOMEM;
}

colfs_status parquet_crypt_create(const colfs_options *o, parquet_crypt **out,
				  char *why, size_t why_len)
{
	parquet_crypt *c;
	colfs_status st;

	*out = NULL;
	if (!o->footer_key && !o->n_column_keys && !o->key_file &&
	    !o->aad_prefix)
		return COLFS_OK;
	c = calloc(1, sizeof *c);
	if (!c)
		return COLFS_ENOMEM;
	c->aad_prefix = o->aad_prefix;
	if (o->footer_key &&
	    colfs_key_decode(o->footer_key, strlen(o->footer_key),
			     c->footer.key, &c->footer.len)) {
		snprintf(why, why_len, "footer_key: not a key");
		parquet_crypt_destroy(c);
		return COLFS_ECORRUPT;
	}
	for (uint32_t i = 0; i < o->n_column_keys; i++) {
		const char *v = o->column_keys[i];
		while (*v) {
			const char *end = strchr(v, ';');
			size_t n = end ? (size_t)(end - v) : strlen(v);
			const char *colon = memrchr(v, ':', n);
			void *grown = realloc(c->cols,
					      (c->n_cols + 1) * sizeof *c->cols);
			if (!grown) {
				parquet_crypt_destroy(c);
				return COLFS_ENOMEM;
			}
			c->cols = grown;
			memset(&c->cols[c->n_cols], 0, sizeof *c->cols);
			if (!colon ||
			    !(c->cols[c->n_cols].path =
				      strndup(v, (size_t)(colon - v))) ||
			    colfs_key_decode(colon + 1,
					     n - (size_t)(colon + 1 - v),
					     c->cols[c->n_cols].key.key,
					     &c->cols[c->n_cols].key.len)) {
				free(c->cols[c->n_cols].path);
				snprintf(why, why_len,
					 "column_keys: not COLUMN:KEY");
				parquet_crypt_destroy(c);
				return COLFS_ECORRUPT;
			}
			c->n_cols++;
			v += n + (end ? 1 : 0);
		}
	}
	if (o->key_file &&
	    (st = keyfile_load(c, o->key_file, why, why_len))) {
		parquet_crypt_destroy(c);
		return st;
	}
	*out = c;
	return COLFS_OK;
}

/* The key file's key for `name` (a column path, "footer" or a key id). */
static bool keyfile_key(const parquet_crypt *c, const char *name, size_t n,
			parquet_crypt_key *k)
{
	json_t *v;
	char tmp[512];

	if (!c->keyfile || !n || n >= sizeof tmp || memchr(name, 0, n))
		return false;
	memcpy(tmp, name, n);
	tmp[n] = 0;
	v = json_object_get(c->keyfile, tmp);
	return v && json_is_string(v) &&
	       colfs_key_decode(json_string_value(v), json_string_length(v),
				k->key, &k->len) == COLFS_OK;
}

/* Key metadata that is parquet-mr's key material (its key tools, with
 * a KMS: a JSON object with "keyMaterialType"): the key in it is wrapped
 * by a KMS's master key, which colfs does not reach.  `ref` gets the
 * material's "keyReference" (stored outside the file) or "", `what` a
 * few words for messages; names from the file are kept to printable
 * ASCII.  False when the metadata is not key material. */
static bool kms_material(const uint8_t *md, size_t md_len, char *ref,
			 size_t ref_len, char *what, size_t what_len)
{
	json_t *o, *v;
	const char *names[] = {"keyReference", "masterKeyID",
			       "kmsInstanceID"};
	char val[3][48];

	ref[0] = what[0] = 0;
	if (!md_len || md[0] != '{')
		return false;
	o = json_loadb((const char *)md, md_len, 0, NULL);
	if (!o || !json_is_object(o) ||
	    !json_is_string(json_object_get(o, "keyMaterialType"))) {
		json_decref(o);
		return false;
	}
	for (int i = 0; i < 3; i++) {
		size_t j = 0;
		const char *t;

		val[i][0] = 0;
		v = json_object_get(o, names[i]);
		if (!json_is_string(v))
			continue;
		t = json_string_value(v);
		for (; t[j] && j + 1 < sizeof val[i]; j++)
			val[i][j] = t[j] >= 0x20 && t[j] < 0x7f && t[j] != '\''
					    ? t[j] : '?';
		val[i][j] = 0;
	}
	snprintf(ref, ref_len, "%s", val[0]);
	v = json_object_get(o, "internalStorage");
	snprintf(what, what_len, "%s%s%s%s%s%s%s",
		 json_is_false(v) ? "stored outside the file" : "in the file",
		 val[0][0] ? ", reference '" : "", val[0],
		 val[0][0] ? "'" : "",
		 val[1][0] ? ", master key '" : "", val[1],
		 val[1][0] ? "'" : "");
	json_decref(o);
	return true;
}

/* The key file's key for a KMS-wrapped key by its key reference. */
static bool keyfile_ref_key(const parquet_crypt *c, const uint8_t *md,
			    size_t md_len, parquet_crypt_key *k)
{
	char ref[48], what[160];

	return kms_material(md, md_len, ref, sizeof ref, what, sizeof what) &&
	       ref[0] && keyfile_key(c, ref, strlen(ref), k);
}

/* The footer key: footer_key=, else the key file's "footer", else its
 * entry for the footer's key metadata (a key id, or the key reference of
 * parquet-mr's key material). */
static bool footer_key(const parquet_crypt *c, const uint8_t *md,
		       size_t md_len, parquet_crypt_key *k)
{
	memset(k, 0, sizeof *k);
	if (c->footer.len)
		*k = c->footer;
	else if (!keyfile_key(c, "footer", 6, k) &&
		 !keyfile_key(c, (const char *)md, md_len, k) &&
		 !keyfile_ref_key(c, md, md_len, k))
		return false;
	snprintf(k->who, sizeof k->who, "footer");
	k->file = c;
	return true;
}

/* A column's key: column_keys=, else the key file's entry for its path,
 * else for its key metadata. */
static bool column_key(const parquet_crypt *c, const char *path,
		       const uint8_t *md, size_t md_len, parquet_crypt_key *k)
{
	bool found = false;

	memset(k, 0, sizeof *k);
	for (size_t i = 0; i < c->n_cols && !found; i++)
		if (strcmp(c->cols[i].path, path) == 0) {
			*k = c->cols[i].key;
			found = true;
		}
	if (!found)
		found = keyfile_key(c, path, strlen(path), k) ||
			keyfile_key(c, (const char *)md, md_len, k) ||
			keyfile_ref_key(c, md, md_len, k);
	if (!found)
		return false;
	snprintf(k->who, sizeof k->who, "column '%.140s'", path);
	k->file = c;
	return true;
}

/* --- one module -------------------------------------------------------------- */

static const EVP_CIPHER *cipher_of(size_t len, bool ctr)
{
	switch (len) {
	case 16: return ctr ? EVP_aes_128_ctr() : EVP_aes_128_gcm();
	case 24: return ctr ? EVP_aes_192_ctr() : EVP_aes_192_gcm();
	case 32: return ctr ? EVP_aes_256_ctr() : EVP_aes_256_gcm();
	}
	return NULL;
}

static bool module_ctr(const parquet_crypt *c, int module)
{
	return c->algorithm == 2 && (module == PARQUET_CRYPT_DATA_PAGE ||
				     module == PARQUET_CRYPT_DICT_PAGE);
}

const uint8_t *parquet_crypt_footer_plain(const parquet_crypt *c,
					  size_t *len)
{
	*len = c ? c->footer_plain_len : 0;
	return c ? c->footer_plain : NULL;
}

size_t parquet_crypt_page_extra(const parquet_crypt_key *k)
{
	return k && k->file->no_aad ? 32 : 0;
}

int32_t parquet_crypt_algorithm(const parquet_crypt *c)
{
	return c && c->algorithm ? c->algorithm : -1;
}

size_t parquet_crypt_overhead(const parquet_crypt_key *k, int module)
{
	return module_ctr(k->file, module) ? 16 : 32;
}

static const char *module_name(int module)
{
	static const char *const names[] = {
		"footer", "ColumnMetaData", "data page", "dictionary page",
		"data page header", "dictionary page header", "column index",
		"offset index", "bloom filter header", "bloom filter bitset"};
	return module >= 0 && module <= 9 ? names[module] : "module";
}

/* The AAD of a module: file AAD, type, ordinals. */
static uint8_t *module_aad(const parquet_crypt *c, int module, uint32_t rg,
			   uint32_t col, uint32_t page, size_t *len)
{
	uint8_t *a = malloc(c->aad_len + 7);
	size_t n = c->aad_len;

	if (!a)
		return NULL;
	if (c->no_aad) {
		*len = 0;
		return a;
	}
	if (c->aad_len)
		memcpy(a, c->aad, c->aad_len);
	a[n++] = (uint8_t)module;
	if (module != PARQUET_CRYPT_FOOTER) {
		a[n++] = (uint8_t)rg;
		a[n++] = (uint8_t)(rg >> 8);
		a[n++] = (uint8_t)col;
		a[n++] = (uint8_t)(col >> 8);
		if (module == PARQUET_CRYPT_DATA_PAGE ||
		    module == PARQUET_CRYPT_DATA_PAGE_HEADER) {
			a[n++] = (uint8_t)page;
			a[n++] = (uint8_t)(page >> 8);
		}
	}
	*len = n;
	return a;
}

/* AES-GCM over `in` with `nonce`; decrypting checks `tag`, encrypting
 * (a signature) writes it.  False on a tag mismatch or a cipher failure. */
static bool gcm(const parquet_crypt_key *k, bool decrypt,
		const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
		const uint8_t *in, size_t n, uint8_t *out, uint8_t tag[16])
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int got = 0, fin = 0;
	bool ok;

	if (!x)
		return false;
	ok = EVP_CipherInit_ex(x, cipher_of(k->len, false), NULL, NULL, NULL,
			       decrypt ? 0 : 1) == 1 &&
	     EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
	     EVP_CipherInit_ex(x, NULL, NULL, k->key, nonce, -1) == 1 &&
	     EVP_CipherUpdate(x, NULL, &got, aad, (int)aad_len) == 1 &&
	     (!n || EVP_CipherUpdate(x, out, &got, in, (int)n) == 1) &&
	     (!decrypt ||
	      EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1) &&
	     EVP_CipherFinal_ex(x, out + (n ? got : 0), &fin) == 1 &&
	     (decrypt ||
	      EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1);
	EVP_CIPHER_CTX_free(x);
	return ok;
}

static bool ctr(const parquet_crypt_key *k, const uint8_t *nonce,
		const uint8_t *in, size_t n, uint8_t *out)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	uint8_t iv[16];
	int got = 0, fin = 0;
	bool ok;

	if (!x)
		return false;
	memcpy(iv, nonce, 12);
	iv[12] = iv[13] = iv[14] = 0;
	iv[15] = 1;
	ok = EVP_DecryptInit_ex(x, cipher_of(k->len, true), NULL, k->key,
				iv) == 1 &&
	     (!n || EVP_DecryptUpdate(x, out, &got, in, (int)n) == 1) &&
	     EVP_DecryptFinal_ex(x, out + got, &fin) == 1;
	EVP_CIPHER_CTX_free(x);
	return ok;
}

colfs_status parquet_crypt_module(const parquet_crypt_key *k, int module,
				  uint32_t rg, uint32_t col, uint32_t page,
				  const uint8_t *mod, size_t avail,
				  uint64_t off, uint8_t **out, size_t *out_len,
				  size_t *used, colfs_err *e)
{
	const parquet_crypt *c = k->file;
	const bool use_ctr = module_ctr(c, module);
	const size_t min = use_ctr ? 12 : 28;
	uint8_t *aad = NULL, *plain;
	size_t aad_len = 0, n;
	uint32_t len;
	bool ok;

	*out = NULL;
	*out_len = 0;
	*used = 0;
	if (rg > 0xffff || col > 0xffff || page > 0xffff)
		return colfs_fail(e, COLFS_EUNSUPPORTED, off,
				  "%s of %s: row group %u, column %u or page %u is beyond the 65535 an encryption AAD can name",
				  module_name(module), k->who, rg, col, page);
	if (avail < 4)
		return colfs_fail(e, COLFS_ETRUNCATED, off,
				  "encrypted %s of %s: %zu bytes, too short for the module length",
				  module_name(module), k->who, avail);
	len = colfs_le32(mod);
	if (len > avail - 4 || len < min)
		return colfs_fail(e, len > avail - 4 ? COLFS_EBOUNDS
						     : COLFS_ECORRUPT, off,
				  "encrypted %s of %s: module length %u does not fit the %zu bytes there (nonce and tag need %zu)",
				  module_name(module), k->who, len, avail - 4,
				  use_ctr ? (size_t)12 : (size_t)28);
	n = len - (use_ctr ? 12 : 28);
	plain = malloc(n ? n : 1);
	if (!plain)
		return colfs_fail(e, COLFS_ENOMEM, off,
				  "out of memory for a decrypted module of %zu bytes", n);
	if (use_ctr) {
		ok = ctr(k, mod + 4, mod + 16, n, plain);
	} else {
		uint8_t tag[16];
		aad = module_aad(c, module, rg, col, page, &aad_len);
		if (!aad) {
			free(plain);
			return colfs_fail(e, COLFS_ENOMEM, off, "out of memory");
		}
		memcpy(tag, mod + 16 + n, 16);
		ok = gcm(k, true, mod + 4, aad, aad_len, mod + 16, n, plain,
			 tag);
		free(aad);
	}
	if (!ok) {
		colfs_key_wipe(plain, n);
		free(plain);
		return colfs_fail(e, COLFS_ECORRUPT, off,
				  "%s: the %s does not decrypt (AES-GCM tag mismatch): wrong key for the %s, wrong aad_prefix, or the bytes were altered",
				  k->who, module_name(module), k->who);
	}
	*out = plain;
	*out_len = n;
	*used = 4 + (size_t)len;
	return COLFS_OK;
}

/* --- Thrift pieces ---------------------------------------------------------- */

/* EncryptionAlgorithm, and FileCryptoMetaData's key metadata. */
typedef struct crypt_algo {
	int32_t id;                   /* 1 AES_GCM_V1, 2 AES_GCM_CTR_V1 */
	const uint8_t *prefix, *unique;
	size_t prefix_len, unique_len;
	bool has_prefix, supply;
} crypt_algo;

static colfs_status parse_algo(colfs_thrift *r, crypt_algo *a,
			       colfs_err *err)
{
	colfs_thrift_field f, g;
	colfs_status st;
	int16_t last, last2;

	COLFS_TRY(colfs_thrift_struct_enter(r, &last, err));
	while ((st = colfs_thrift_field_next(r, &last, &f, err)) == COLFS_OK) {
		if ((f.id != 1 && f.id != 2) || f.type != COLFS_THRIFT_STRUCT ||
		    a->id) {
			COLFS_TRY(colfs_thrift_skip(r, f.type, err));
			continue;
		}
		a->id = f.id;
		COLFS_TRY(colfs_thrift_struct_enter(r, &last2, err));
		while ((st = colfs_thrift_field_next(r, &last2, &g, err)) ==
		       COLFS_OK) {
			if (g.id == 1 && g.type == COLFS_THRIFT_BINARY) {
				COLFS_TRY(colfs_thrift_read_binary(
					r, g.type, &a->prefix, &a->prefix_len,
					err));
				a->has_prefix = true;
			} else if (g.id == 2 && g.type == COLFS_THRIFT_BINARY) {
				COLFS_TRY(colfs_thrift_read_binary(
					r, g.type, &a->unique, &a->unique_len,
					err));
			} else if (g.id == 3 && g.type == COLFS_THRIFT_BOOL) {
				a->supply = g.bool_value;
			} else {
				COLFS_TRY(colfs_thrift_skip(r, g.type, err));
			}
		}
		if (st != COLFS_END)
			return st;
		colfs_thrift_struct_leave(r);
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(r);
	return COLFS_OK;
}

/* Fields `alg_id` (the EncryptionAlgorithm) and `md_id` (a binary: key
 * metadata) of the struct at the cursor; its length in `*len`. */
static colfs_status parse_top(const uint8_t *p, size_t n, uint64_t off,
			      int16_t alg_id, int16_t md_id, crypt_algo *a,
			      const uint8_t **md, size_t *md_len, size_t *len,
			      colfs_err *err)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f;
	colfs_status st;
	int16_t last;

	memset(a, 0, sizeof *a);
	*md = NULL;
	*md_len = 0;
	colfs_cursor_init(&c, p, n, off);
	colfs_thrift_init(&r, &c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, err));
	while ((st = colfs_thrift_field_next(&r, &last, &f, err)) ==
	       COLFS_OK) {
		if (f.id == alg_id && f.type == COLFS_THRIFT_STRUCT)
			COLFS_TRY(parse_algo(&r, a, err));
		else if (f.id == md_id && f.type == COLFS_THRIFT_BINARY)
			COLFS_TRY(colfs_thrift_read_binary(&r, f.type, md,
							   md_len, err));
		else
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
	}
	if (st != COLFS_END)
		return st;
	colfs_thrift_struct_leave(&r);
	*len = c.pos;
	return COLFS_OK;
}

/* ColumnCryptoMetaData: with the footer key (`*footer`), or with a column
 * key and its key metadata. */
static colfs_status parse_column_crypto(const uint8_t *p, size_t n,
					uint64_t off, bool *footer,
					const uint8_t **md, size_t *md_len,
					colfs_err *err)
{
	colfs_cursor c;
	colfs_thrift r;
	colfs_thrift_field f, g;
	colfs_status st;
	int16_t last, last2;

	*footer = false;
	*md = NULL;
	*md_len = 0;
	colfs_cursor_init(&c, p, n, off);
	colfs_thrift_init(&r, &c);
	COLFS_TRY(colfs_thrift_struct_enter(&r, &last, err));
	while ((st = colfs_thrift_field_next(&r, &last, &f, err)) ==
	       COLFS_OK) {
		if (f.id == 1 && f.type == COLFS_THRIFT_STRUCT) {
			*footer = true;
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
		} else if (f.id == 2 && f.type == COLFS_THRIFT_STRUCT) {
			COLFS_TRY(colfs_thrift_struct_enter(&r, &last2, err));
			while ((st = colfs_thrift_field_next(&r, &last2, &g,
							     err)) == COLFS_OK) {
				if (g.id == 2 && g.type == COLFS_THRIFT_BINARY)
					COLFS_TRY(colfs_thrift_read_binary(
						&r, g.type, md, md_len, err));
				else
					COLFS_TRY(colfs_thrift_skip(&r, g.type,
								    err));
			}
			if (st != COLFS_END)
				return st;
			colfs_thrift_struct_leave(&r);
		} else {
			COLFS_TRY(colfs_thrift_skip(&r, f.type, err));
		}
	}
	return st == COLFS_END ? COLFS_OK : st;
}

/* --- the footer -------------------------------------------------------------- */

static void report(parquet_report_fn rep, void *ctx, colfs_status st,
			 uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void report(parquet_report_fn rep, void *ctx, colfs_status st,
			 uint64_t off, const char *fmt, ...)
{
	colfs_err e = {0};
	va_list ap;

	e.status = st;
	e.offset = off;
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof e.msg, fmt, ap);
	va_end(ap);
	if (rep)
		rep(ctx, &e);
}

/* The file AAD from the algorithm and aad_prefix=; false (reported) when
 * the prefix is needed and missing or differs from the stored one. */
static bool file_aad(parquet_crypt *c, const crypt_algo *a,
		     parquet_report_fn rep, void *ctx, uint64_t off)
{
	const uint8_t *prefix = a->prefix;
	size_t plen = a->prefix_len;

	if (c->aad_prefix) {
		if (a->has_prefix &&
		    (plen != strlen(c->aad_prefix) ||
		     memcmp(prefix, c->aad_prefix, plen))) {
			report(rep, ctx, COLFS_ECORRUPT, off,
				     "the aad_prefix option differs from the AAD prefix the file stores");
			return false;
		}
		prefix = (const uint8_t *)c->aad_prefix;
		plen = strlen(c->aad_prefix);
	} else if (a->supply && !a->has_prefix) {
		report(rep, ctx, COLFS_EUNSUPPORTED, off,
			     "the file's AAD prefix is not stored in it (supply_aad_prefix): give it with -o aad_prefix=...");
		return false;
	}
	free(c->aad);
	c->aad_len = plen + a->unique_len;
	c->aad = malloc(c->aad_len ? c->aad_len : 1);
	if (!c->aad)
		return false;
	if (plen)
		memcpy(c->aad, prefix, plen);
	if (a->unique_len)
		memcpy(c->aad + plen, a->unique, a->unique_len);
	c->algorithm = a->id;
	return true;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* Keep a problem of chunk (g, k) for parquet_crypt_report_chunks. */
static colfs_status pend(parquet_crypt *c, uint32_t g, uint32_t k,
			 const colfs_err *e)
{
	struct crypt_pending *np;

	np = realloc(c->pending, (c->n_pending + 1) * sizeof *np);
	if (!np)
		return COLFS_ENOMEM;
	c->pending = np;
	np[c->n_pending++] = (struct crypt_pending){.g = g, .c = k, .e = *e};
	return COLFS_OK;
}

void parquet_crypt_pending_drain(parquet_crypt *c,
				  void (*fn)(void *ctx, uint32_t g, uint32_t col,
					     const colfs_err *e),
				  void *ctx)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_pending; i++)
		fn(ctx, c->pending[i].g, c->pending[i].c, &c->pending[i].e);
	free(c->pending);
	c->pending = NULL;
	c->n_pending = 0;
}

/* Decrypt the encrypted ColumnMetaData whose keys are known and the
 * footer `fm` (FileMetaData, meta_len bytes at file offset `off`) into
 * one buffer with them after it; parse it into s->pf. */
static colfs_status rebuild(parquet_region_state *s, parquet_crypt *c,
			    const uint8_t *fm, size_t meta_len, uint64_t off,
			    parquet_report_fn rep, void *ctx)
{
	parquet_file *pre = NULL, *pf = NULL;
	parquet_meta_extra *ex = NULL;
	size_t n_ex = 0, total = meta_len;
	uint8_t *buf = NULL;
	bool *asked = NULL;
	uint8_t *missing = NULL;   /* 1 a key not given, 2 a KMS's key */
	char **kms = NULL, ref[48], what[160];
	colfs_err e = {0};
	colfs_status st;

	c->n_pending = 0;
	/* a first reading, to find the chunks and their crypto metadata */
	st = parquet_file_parse(fm, meta_len, off, s->size, false, NULL, NULL,
				&pre, &e);
	if (st == COLFS_ENOMEM) {
		parquet_file_destroy(pre);
		return st;
	}
	if (!pre || !pre->meta_ok) {
		/* parse it for real below: its problems are reported */
		parquet_file_destroy(pre);
		pre = NULL;
	} else if (pre->meta_len < meta_len) {
		/* parquet-java (1.17) pads the encrypted footer's plaintext
		 * with zeros after FileMetaData: not a problem */
		size_t i = pre->meta_len;
		while (i < meta_len && !fm[i])
			i++;
		if (i == meta_len)
			total = meta_len = pre->meta_len;
	}
	free(c->leaf_keys);
	c->leaf_keys = NULL;
	c->n_leaf_keys = 0;
	if (pre && pre->n_columns) {
		c->leaf_keys = calloc(pre->n_columns, sizeof *c->leaf_keys);
		if (!c->leaf_keys)
			goto nomem;
		c->n_leaf_keys = pre->n_columns;
	}
	/* each leaf's key, from the first row group that names it */
	asked = pre ? calloc(pre->n_columns + 1, 1) : NULL;
	missing = pre ? calloc(pre->n_columns + 1, 1) : NULL;
	kms = pre ? calloc(pre->n_columns + 1, sizeof *kms) : NULL;
	if (pre && (!asked || !missing || !kms))
		goto nomem;
	for (uint32_t g = 0; pre && g < pre->n_row_groups; g++) {
		const parquet_row_group *rg = &pre->row_groups[g];
		for (uint32_t k = 0; k < rg->n_chunks && k < pre->n_columns;
		     k++) {
			const parquet_chunk *ch = &rg->chunks[k];
			parquet_crypt_key *lk = &c->leaf_keys[k];
			const uint8_t *md;
			size_t md_len;
			bool with_footer;

			if (!ch->crypto_span_len && c->no_aad && !asked[k] &&
			    c->file_footer.len) {
				/* DuckDB: every column, with the footer key,
				 * and no ColumnCryptoMetaData */
				asked[k] = true;
				*lk = c->file_footer;
				snprintf(lk->who, sizeof lk->who,
					 "column '%.100s' (footer key)",
					 pre->columns[k].path);
				continue;
			}
			if (!ch->crypto_span_len || asked[k])
				continue;
			asked[k] = true;
			if (parse_column_crypto(pre->footer + ch->crypto_span_off,
						ch->crypto_span_len,
						off + ch->crypto_span_off,
						&with_footer, &md, &md_len,
						&e)) {
				report(rep, ctx, e.status, e.offset,
					     "column '%s': ColumnCryptoMetaData does not decode: %s",
					     pre->columns[k].path, e.msg);
				continue;
			}
			if (with_footer) {
				if (c->file_footer.len) {
					*lk = c->file_footer;
					snprintf(lk->who, sizeof lk->who,
						 "column '%.100s' (footer key)",
						 pre->columns[k].path);
				}
			} else if (!column_key(c, pre->columns[k].path, md,
					       md_len, lk)) {
				missing[k] = kms_material(md, md_len, ref,
							  sizeof ref, what,
							  sizeof what) ? 2 : 1;
				if (missing[k] == 2 && !(kms[k] = strdup(what)))
					goto nomem;
			}
		}
	}
	free(asked);
	asked = NULL;
	/* a column without its key: under each of its chunks */
	for (uint32_t g = 0; pre && rep && g < pre->n_row_groups; g++) {
		const parquet_row_group *rg = &pre->row_groups[g];
		for (uint32_t k = 0; k < rg->n_chunks && k < pre->n_columns;
		     k++) {
			const parquet_chunk *ch = &rg->chunks[k];
			colfs_err me;

			if (!missing[k] || !ch->crypto_span_len)
				continue;
			if (missing[k] == 2)
				colfs_fail(&me, COLFS_EUNSUPPORTED,
					   off + ch->span_off,
					   "column '%s': its key is wrapped by a KMS (parquet-mr key material, %s); colfs does not unwrap keys: key_file may give it unwrapped by path or reference",
					   pre->columns[k].path, kms[k]);
			else
				colfs_fail(&me, COLFS_EUNSUPPORTED,
					   off + ch->span_off,
					   "column '%s' is encrypted with a column key that colfs was not given (column_keys= or key_file): shown, not decoded",
					   pre->columns[k].path);
			if (pend(c, g, k, &me))
				goto nomem;
		}
	}
	free(missing);
	missing = NULL;
	free_strs(kms, pre ? pre->n_columns : 0);
	kms = NULL;
	/* the encrypted ColumnMetaData of every chunk with a key */
	for (uint32_t g = 0; pre && g < pre->n_row_groups; g++) {
		const parquet_row_group *rg = &pre->row_groups[g];
		for (uint32_t k = 0; k < rg->n_chunks && k < pre->n_columns;
		     k++) {
			const parquet_chunk *ch = &rg->chunks[k];
			uint8_t *plain, *nb;
			size_t plen, used;
			void *ng;

			if (!ch->enc_meta_span_len || !c->leaf_keys[k].len)
				continue;
			/* the payload is a whole module: length first */
			st = parquet_crypt_module(
				&c->leaf_keys[k], PARQUET_CRYPT_COLUMN_META, g,
				k, 0, pre->footer + ch->enc_meta_span_off - 0,
				ch->enc_meta_span_len,
				off + ch->enc_meta_span_off, &plain, &plen,
				&used, &e);
			if (st == COLFS_ENOMEM)
				goto nomem;
			if (st) {
				if (rep && pend(c, g, k, &e))
					goto nomem;
				/* a wrong key: the column stays unread */
				memset(&c->leaf_keys[k], 0,
				       sizeof c->leaf_keys[k]);
				continue;
			}
			ng = realloc(ex, (n_ex + 1) * sizeof *ex);
			nb = ng ? realloc(buf, total + plen) : NULL;
			if (!ng || !nb) {
				if (ng)
					ex = ng;
				free(plain);
				goto nomem;
			}
			ex = ng;
			if (!buf)
				memcpy(nb, fm, meta_len);
			buf = nb;
			memcpy(buf + total, plain, plen);
			/* length and nonce before the ciphertext (AES-GCM
			 * and AES-CTR alike) */
			ex[n_ex++] = (parquet_meta_extra){
				.g = g, .c = k, .off = total, .len = plen,
				.file_off = off + ch->enc_meta_span_off + 16};
			total += plen;
			free(plain);
		}
	}
	if (!buf) {
		buf = malloc(meta_len ? meta_len : 1);
		if (!buf)
			goto nomem;
		memcpy(buf, fm, meta_len);
	}
	parquet_file_destroy(pre);
	pre = NULL;
	memset(&e, 0, sizeof e);
	st = parquet_file_parse_decrypted(buf, total, off, s->size, ex, n_ex,
					  rep, ctx, &pf, &e);
	free(ex);
	if (st == COLFS_ENOMEM) {
		parquet_file_destroy(pf);
		return st;
	}
	if (st && rep)
		rep(ctx, &e);
	if (pf) {
		/* FileMetaData's own length: raw/footer.decrypted */
		for (uint32_t g = 0; g < pf->n_row_groups; g++) {
			parquet_row_group *rg = &pf->row_groups[g];
			for (uint32_t k = 0; k < rg->n_chunks; k++) {
				parquet_chunk *ch = &rg->chunks[k];
				if (!(ch->encrypted || c->no_aad) ||
				    k >= c->n_leaf_keys ||
				    !c->leaf_keys[k].len || !ch->has_meta)
					continue;
				ch->dek = &c->leaf_keys[k];
				ch->rg_ordinal = g;
				ch->encrypted = false;
			}
		}
	}
	parquet_file_destroy(s->pf);
	s->pf = pf;
	return COLFS_OK;
nomem:
	free_strs(kms, pre ? pre->n_columns : 0);
	parquet_file_destroy(pre);
	free(asked);
	free(missing);
	free(ex);
	free(buf);
	return COLFS_ENOMEM;
}

colfs_status parquet_crypt_footer(parquet_region_state *s,
				  const uint8_t *footer, size_t flen,
				  parquet_report_fn rep, void *ctx,
				  bool *done)
{
	parquet_crypt *c = s->crypt;
	const uint64_t off = s->footer_offset;
	crypt_algo a;
	const uint8_t *md;
	size_t md_len, hlen;
	colfs_err e = {0};

	*done = false;
	if (!c)
		return COLFS_OK;
	if (s->encrypted_footer) {
		uint8_t *fm;
		size_t fm_len, used;
		colfs_status st;

		/* FileCryptoMetaData: 1 algorithm, 2 key metadata */
		if (parse_top(footer, flen, off, 1, 2, &a, &md, &md_len, &hlen,
			      &e))
			return COLFS_OK;   /* the plain reading reports it */
		if (a.id != 1 && a.id != 2) {
			report(rep, ctx, COLFS_EUNSUPPORTED, off,
				     "encryption algorithm %d is not supported (AES_GCM_V1 and AES_GCM_CTR_V1 are)",
				     a.id);
			return COLFS_OK;
		}
		if (!footer_key(c, md, md_len, &c->file_footer)) {
			char ref[48], what[160];
			if (kms_material(md, md_len, ref, sizeof ref, what,
					 sizeof what))
				report(rep, ctx, COLFS_EUNSUPPORTED, off,
				       "the footer's key is wrapped by a KMS (parquet-mr key material, %s); colfs does not unwrap keys: footer_key= or key_file (\"footer\" or the reference) may give it unwrapped",
				       what);
			else
				report(rep, ctx, COLFS_EUNSUPPORTED, off,
				       "the footer is encrypted and colfs was not given its key (footer_key= or key_file)");
			return COLFS_OK;
		}
		if (!file_aad(c, &a, rep, ctx, off))
			return COLFS_OK;
		st = parquet_crypt_module(&c->file_footer, PARQUET_CRYPT_FOOTER,
					  0, 0, 0, footer + hlen, flen - hlen,
					  off + hlen, &fm, &fm_len, &used, &e);
		if (st == COLFS_ECORRUPT && !a.unique_len && !a.has_prefix &&
		    !c->aad_prefix) {
			/* DuckDB's files: no AADs */
			colfs_err e2;
			c->no_aad = true;
			st = parquet_crypt_module(&c->file_footer,
						  PARQUET_CRYPT_FOOTER, 0, 0, 0,
						  footer + hlen, flen - hlen,
						  off + hlen, &fm, &fm_len,
						  &used, &e2);
			if (st)
				c->no_aad = false;
		}
		if (st == COLFS_ENOMEM)
			return st;
		if (st) {
			if (rep)
				rep(ctx, &e);
			memset(&c->file_footer, 0, sizeof c->file_footer);
			return COLFS_OK;
		}
		/* plaintext byte i is ciphertext byte i: offsets are the
		 * ciphertext's */
		st = rebuild(s, c, fm, fm_len, off + hlen + 16, rep, ctx);
		if (st) {
			free(fm);
			return st;
		}
		free(c->footer_plain);
		c->footer_plain = fm;   /* raw/footer.decrypted */
		c->footer_plain_len = fm_len;
		if (s->pf) {
			*done = true;
			s->footer_decrypted = true;
		}
		return COLFS_OK;
	}
	/* a plaintext footer: FileMetaData (8 the algorithm, 9 the footer
	 * signing key metadata), then nonce and tag */
	if (!s->pf || !s->pf->meta_ok || !s->pf->has_encryption_algorithm)
		return COLFS_OK;
	if (parse_top(s->pf->footer, s->pf->footer_len, off, 8, 9, &a, &md,
		      &md_len, &hlen, &e))
		return COLFS_OK;
	if (a.id != 1 && a.id != 2) {
		report(rep, ctx, COLFS_EUNSUPPORTED, off,
			     "encryption algorithm %d is not supported (AES_GCM_V1 and AES_GCM_CTR_V1 are)",
			     a.id);
		return COLFS_OK;
	}
	if (!file_aad(c, &a, rep, ctx, off))
		return COLFS_OK;
	if (footer_key(c, md, md_len, &c->file_footer)) {
		/* the signature: GCM of FileMetaData with the footer AAD */
		uint8_t tag[16], *tmp, *aad;
		size_t aad_len;
		bool ok;

		if (flen - hlen != 28) {
			report(rep, ctx, COLFS_ECORRUPT, off + hlen,
				     "the plaintext footer's signature is %zu bytes, not 28 (nonce and tag)",
				     flen - hlen);
		} else {
			tmp = malloc(hlen ? hlen : 1);
			aad = module_aad(c, PARQUET_CRYPT_FOOTER, 0, 0, 0,
					 &aad_len);
			if (!tmp || !aad) {
				free(tmp);
				free(aad);
				return COLFS_ENOMEM;
			}
			ok = gcm(&c->file_footer, false, footer + hlen, aad,
				 aad_len, footer, hlen, tmp, tag) &&
			     CRYPTO_memcmp(tag, footer + hlen + 12, 16) == 0;
			free(tmp);
			free(aad);
			if (!ok) {
				report(rep, ctx, COLFS_ECORRUPT,
					     off + hlen,
					     "footer: the plaintext footer's signature does not verify (wrong footer key, wrong aad_prefix, or the footer was altered)");
				memset(&c->file_footer, 0,
				       sizeof c->file_footer);
			}
		}
	}
	return rebuild(s, c, footer, hlen, off, rep, ctx);
}

/* tests/parquet/crypt_mutant.c: make a damaged encrypted Parquet file
 * for the crypt test: one byte of a decrypted module changed and the
 * module encrypted again with its key, nonce and AAD, so that it still
 * decrypts and its plaintext is what is broken.
 *
 *   crypt_mutant IN OUT FOOTER_KEY COLUMN_KEY FILE_AAD MODULE BYTE VALUE
 *
 * IN has a plaintext footer (PAR1) signed with FOOTER_KEY (hex); the
 * module is the first in the file, at or after its start, that decrypts
 * with COLUMN_KEY (hex) as a module of type MODULE (1 ColumnMetaData,
 * 4 data page header) of row group 0, any column ordinal below 256, page
 * 0; FILE_AAD (hex) is the file's AAD (aad_prefix and aad_file_unique).
 * Byte BYTE of its plaintext becomes VALUE; the footer is signed again.
 * Prints "MODULE_OFFSET COLUMN_ORDINAL" (decimal).  AES-GCM only (the
 * modules of both algorithms that this touches are GCM).
 */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unhex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	*len = n / 2;
	return 0;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* AES-GCM with a 16-byte key: encrypt (tag out) or decrypt (tag in,
 * checked); 0 when it works. */
static int gcm(int enc, const uint8_t *key, const uint8_t *nonce,
	       const uint8_t *aad, size_t aad_len, const uint8_t *in,
	       size_t n, uint8_t *out, uint8_t *tag)
{
	EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
	int got = 0, fin = 0, ok;

	ok = x && EVP_CipherInit_ex(x, EVP_aes_128_gcm(), NULL, NULL, NULL,
				    enc) == 1 &&
	     EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
	     EVP_CipherInit_ex(x, NULL, NULL, key, nonce, enc) == 1 &&
	     EVP_CipherUpdate(x, NULL, &got, aad, (int)aad_len) == 1 &&
	     (!n || EVP_CipherUpdate(x, out, &got, in, (int)n) == 1) &&
	     (enc || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, 16,
					 tag) == 1) &&
	     EVP_CipherFinal_ex(x, out + got, &fin) == 1 &&
	     (!enc || EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16,
					  tag) == 1);
	EVP_CIPHER_CTX_free(x);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint8_t fk[32], ck[32], aad[300], *buf;
	size_t fkl, ckl, aadl, size;
	FILE *f;
	long sz;

	if (argc != 9 || unhex(argv[3], fk, 16, &fkl) || fkl != 16 ||
	    unhex(argv[4], ck, 16, &ckl) || ckl != 16 ||
	    unhex(argv[5], aad, 256, &aadl)) {
		fprintf(stderr, "usage: crypt_mutant IN OUT FOOTER_KEY COLUMN_KEY FILE_AAD MODULE BYTE VALUE (16-byte keys, hex)\n");
		return 2;
	}
	int module = atoi(argv[6]);
	size_t byte = strtoul(argv[7], NULL, 0);
	uint8_t value = (uint8_t)strtoul(argv[8], NULL, 0);

	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) ||
	    (sz = ftell(f)) < 12 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)sz)) ||
	    fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fprintf(stderr, "crypt_mutant: cannot read %s\n", argv[1]);
		return 1;
	}
	fclose(f);
	size = (size_t)sz;
	uint32_t flen = le32(buf + size - 8);
	if (memcmp(buf + size - 4, "PAR1", 4) || flen < 28 ||
	    flen > size - 12) {
		fprintf(stderr, "crypt_mutant: %s has no plaintext footer\n",
			argv[1]);
		return 1;
	}
	size_t foot = size - 8 - flen, meta_len = flen - 28;

	/* the module: length, nonce, ciphertext, tag */
	size_t found = 0, col = 0;
	uint8_t *plain = NULL;
	for (size_t p = 4; !plain && p + 4 + 28 <= foot + meta_len; p++) {
		uint32_t len = le32(buf + p);
		if (len < 28 || len > foot + meta_len - p - 4)
			continue;
		size_t n = len - 28;
		uint8_t *out = malloc(n + 1);
		for (size_t c = 0; c < 256 && !plain; c++) {
			uint8_t a[320];
			size_t al = aadl;
			memcpy(a, aad, aadl);
			a[al++] = (uint8_t)module;
			a[al++] = 0, a[al++] = 0;            /* row group 0 */
			a[al++] = (uint8_t)c, a[al++] = 0;
			if (module == 4)
				a[al++] = 0, a[al++] = 0;    /* page 0 */
			if (!gcm(0, ck, buf + p + 4, a, al, buf + p + 16, n,
				 out, buf + p + 16 + n)) {
				if (byte >= n) {
					fprintf(stderr, "crypt_mutant: the module has %zu bytes\n", n);
					return 1;
				}
				out[byte] = value;
				if (gcm(1, ck, buf + p + 4, a, al, out, n,
					buf + p + 16, buf + p + 16 + n))
					return 1;
				plain = out;
				found = p;
				col = c;
			}
		}
		if (!plain)
			free(out);
	}
	if (!plain) {
		fprintf(stderr, "crypt_mutant: no module of type %d decrypts with that key\n", module);
		return 1;
	}
	free(plain);
	/* the footer's signature: GCM of FileMetaData, footer AAD */
	{
		uint8_t a[320], *tmp = malloc(meta_len + 1);
		memcpy(a, aad, aadl);
		a[aadl] = 0;
		if (!tmp || gcm(1, fk, buf + foot + meta_len, a, aadl + 1,
				buf + foot, meta_len, tmp,
				buf + foot + meta_len + 12))
			return 1;
		free(tmp);
	}
	if (!(f = fopen(argv[2], "wb")) || fwrite(buf, 1, size, f) != size ||
	    fclose(f)) {
		fprintf(stderr, "crypt_mutant: cannot write %s\n", argv[2]);
		return 1;
	}
	free(buf);
	printf("%zu %zu\n", found, col);
	return 0;
}

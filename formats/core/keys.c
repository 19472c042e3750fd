/* colfs: encryption keys as the options and key files write them (hex or
 * base64, colfs.h colfs_key_decode), and their wiping.  The decoding is
 * OpenSSL's (EVP_DecodeBlock); nothing here puts key text in a message.
 */
#include "../colfs.h"
#include "hex.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>

static bool key_len_ok(size_t n)
{
	return n == 16 || n == 24 || n == 32;
}

colfs_status colfs_key_decode(const char *text, size_t n, uint8_t out[32],
			      size_t *len)
{
	*len = 0;
	if (n > 7 && memcmp(text, "base64:", 7) == 0) {
		/* 16/24/32 bytes are 24/32/44 characters with padding */
		unsigned char tmp[48];
		size_t b = n - 7, pad = 0;
		int got;

		if (b == 0 || b % 4 || b > 44)
			return COLFS_ECORRUPT;
		while (pad < 2 && text[7 + b - 1 - pad] == '=')
			pad++;
		got = EVP_DecodeBlock(tmp, (const unsigned char *)text + 7,
				      (int)b);
		if (got < 0 || (size_t)got < pad ||
		    !key_len_ok((size_t)got - pad)) {
			colfs_key_wipe(tmp, sizeof tmp);
			return COLFS_ECORRUPT;
		}
		memcpy(out, tmp, (size_t)got - pad);
		*len = (size_t)got - pad;
		colfs_key_wipe(tmp, sizeof tmp);
		return COLFS_OK;
	}
	if (!key_len_ok(n / 2) || n % 2)
		return COLFS_ECORRUPT;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = colfs_hex_digit(text[2 * i]),
		    lo = colfs_hex_digit(text[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			colfs_key_wipe(out, 32);
			return COLFS_ECORRUPT;
		}
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return COLFS_OK;
}

void colfs_key_wipe(void *p, size_t n)
{
	if (p && n)
		OPENSSL_cleanse(p, n);
}

/* colfs: Azure Blob Storage's Shared Key signature (remote.h,
 * colfs_azure_authorization): the string the Blob service signs for a GET
 * and its HMAC-SHA256 with the account key (libcrypto).  A file of its
 * own: http_request.c signs each request with it, below azure.c, which
 * makes the targets and calls http.c.
 *
 * The key is decoded into a buffer on the stack, wiped after use.
 */
#include "remote.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/hex.h"

/* ------------------------------------------------------------------ */
/* Shared Key */

/* Base64 of `n` bytes into `out` (at least 4 * ((n + 2) / 3) + 1). */
static void az_b64(const unsigned char *in, size_t n, char *out)
{
	EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

/* remote.h */
int colfs_azure_key_decode(const char *s, unsigned char *out, size_t cap)
{
	size_t n = strlen(s);
	if (n == 0 || n % 4 || n / 4 * 3 > cap)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			  (ch >= '0' && ch <= '9') || ch == '+' || ch == '/' ||
			  (ch == '=' && i >= n - 2);
		if (!ok || (ch != '=' && i && s[i - 1] == '='))
			return -1;
	}
	int got = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
	if (got < 0)
		return -1;
	got -= (s[n - 1] == '=') + (s[n - 2] == '=');
	return got;
}

typedef struct az_param {
	char *name;
	char *value;
} az_param;

static int az_param_cmp(const void *a, const void *b)
{
	const az_param *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->value, y->value);
}

/* The string Shared Key signs for a GET (version 2015-02-21 and later:
 * an empty Content-Length), the query's parameters canonicalized: names
 * lowercased and sorted, values decoded, one "\nname:value" each (the
 * values of a repeated name joined by ','). */
static char *az_string_to_sign(const char *account, const char *url,
			       const char *range, const char *date)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	p += strcspn(p, "/");
	size_t pathn = strcspn(p, "?");
	const char *q = p[pathn] == '?' ? p + pathn + 1 : "";
	size_t nq = 0;
	for (const char *s = q; *s; s++)
		nq += *s == '&';
	nq += *q != '\0';
	az_param *ps = calloc(nq + 1, sizeof *ps);
	char *out = NULL;
	size_t np = 0;
	if (!ps)
		return NULL;
	while (*q) {
		size_t n = strcspn(q, "&");
		const char *eq = memchr(q, '=', n);
		size_t kn = eq ? (size_t)(eq - q) : n;
		size_t vn = eq ? n - kn - 1 : 0;
		char *k = malloc(kn + 1), *v = malloc(vn + 1);
		if (!k || !v) {
			free(k);
			free(v);
			goto done;
		}
		colfs_percent_decode(q, kn, k);
		colfs_percent_decode(eq ? eq + 1 : "", vn, v);
		for (char *c = k; *c; c++)
			if (*c >= 'A' && *c <= 'Z')
				*c = (char)(*c - 'A' + 'a');
		ps[np++] = (az_param){k, v};
		q += n;
		if (*q == '&')
			q++;
	}
	qsort(ps, np, sizeof *ps, az_param_cmp);
	size_t len = 512 + strlen(account) + pathn + (range ? strlen(range) : 0);
	for (size_t i = 0; i < np; i++)
		len += strlen(ps[i].name) + strlen(ps[i].value) + 3;
	out = malloc(len);
	if (!out)
		goto done;
	int w = snprintf(out, len,
			 "GET\n\n\n\n\n\n\n\n\n\n\n%s\n"
			 "x-ms-date:%s\nx-ms-version:" COLFS_AZURE_VERSION "\n"
			 "/%s%.*s", range ? range : "", date, account,
			 (int)pathn, p);
	size_t at = w > 0 ? (size_t)w : 0;
	for (size_t i = 0; i < np; i++) {
		bool same = i && !strcmp(ps[i].name, ps[i - 1].name);
		at += (size_t)snprintf(out + at, len - at,
				       same ? ",%s" : "\n%s:%s",
				       same ? ps[i].value : ps[i].name,
				       ps[i].value);
	}
done:
	for (size_t i = 0; i < np; i++) {
		free(ps[i].name);
		free(ps[i].value);
	}
	free(ps);
	return out;
}

bool colfs_azure_authorization(const char *account, const char *key_b64,
			       const char *url, const char *range,
			       const char *date, char *out, size_t out_len)
{
	unsigned char key[128], mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0;
	char sig[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
	int kn = colfs_azure_key_decode(key_b64, key, sizeof key);
	char *sts;
	bool ok;

	if (kn <= 0 || !account)
		return false;
	sts = az_string_to_sign(account, url, range, date);
	ok = sts && HMAC(EVP_sha256(), key, kn, (unsigned char *)sts,
			 strlen(sts), mac, &maclen);
	explicit_bzero(key, sizeof key);
	free(sts);
	if (!ok)
		return false;
	az_b64(mac, maclen, sig);
	int w = snprintf(out, out_len, "SharedKey %s:%s", account, sig);
	return w > 0 && (size_t)w < out_len;
}


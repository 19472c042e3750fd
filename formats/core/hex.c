/* colfs: hex digits and percent-decoding (hex.h). */
#include "hex.h"

int colfs_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t colfs_percent_decode(const char *s, size_t len, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < len &&
		    (hi = colfs_hex_digit(s[i + 1])) >= 0 &&
		    (lo = colfs_hex_digit(s[i + 2])) >= 0) {
			out[k++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = '\0';
	return k;
}

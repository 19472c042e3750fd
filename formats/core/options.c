/* colfs: the -o options: parsing one `key=value`, the paths they name
 * made absolute, the defaults an open fills in, and the help text.
 */
#include "options.h"
#include "cursor.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define COLFS_DEFAULT_CACHE (64ull << 20)
#define COLFS_DEFAULT_MAX_ALLOC (1ull << 30)

static colfs_status parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return COLFS_ECORRUPT;
	uint64_t mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	case '\0': break;
	default: return COLFS_ECORRUPT;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end)
		return COLFS_ECORRUPT;
	if (colfs_mul_overflows(v, mul, out))
		return COLFS_ECORRUPT;
	return COLFS_OK;
}

/* A whole number in [lo, hi], written in decimal and nothing else. */
static colfs_status parse_count(const char *s, unsigned long lo,
				unsigned long hi, unsigned long *out)
{
	char *end;

	if (!s || !*s)
		return COLFS_ECORRUPT;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (*end || errno || *out < lo || *out > hi)
		return COLFS_ECORRUPT;
	return COLFS_OK;
}

/* `v` (any case) is one of the NULL-terminated `names`. */
/* An instant as -o as_of= gives it: milliseconds since the epoch (all
 * digits), or YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|(+|-)HH[:MM]]
 * (UTC when no offset is given), to milliseconds since the epoch. */
static colfs_status parse_instant_ms(const char *s, int64_t *out)
{
	const char *p = s;
	bool digits = *p != 0;

	for (const char *q = s; *q; q++)
		if (*q < '0' || *q > '9')
			digits = false;
	if (digits) {
		char *end;
		errno = 0;
		long long n = strtoll(s, &end, 10);
		if (*end || errno)
			return COLFS_ECORRUPT;
		*out = n;
		return COLFS_OK;
	}
	int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
	if (sscanf(p, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return COLFS_ECORRUPT;
	p += n;
	int64_t ms = 0;
	if (*p == ' ' || *p == 'T') {
		n = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &n) != 2 || n != 5)
			return COLFS_ECORRUPT;
		p += 1 + n;
		if (*p == ':') {
			n = 0;
			if (sscanf(p + 1, "%2d%n", &sec, &n) != 1 || n != 2)
				return COLFS_ECORRUPT;
			p += 1 + n;
			if (*p == '.') {
				int scale = 100;
				p++;
				if (*p < '0' || *p > '9')
					return COLFS_ECORRUPT;
				for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
					ms += (*p - '0') * scale;
			}
		}
	}
	int64_t off_s = 0;
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh = 0, om = 0, sign = *p == '-' ? -1 : 1;
		n = 0;
		if (sscanf(p + 1, "%2d%n", &oh, &n) != 1 || n != 2)
			return COLFS_ECORRUPT;
		p += 3;
		if (*p == ':')
			p++;
		if (*p) {
			n = 0;
			if (sscanf(p, "%2d%n", &om, &n) != 1 || n != 2)
				return COLFS_ECORRUPT;
			p += 2;
		}
		off_s = sign * (oh * 3600 + om * 60);
	}
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    sec > 60 || h < 0 || mi < 0 || sec < 0)
		return COLFS_ECORRUPT;
	/* days from the civil date (proleptic Gregorian; H. Hinnant's) */
	int64_t yy = y - (mo <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	*out = ((days * 86400 + h * 3600 + mi * 60 + sec) - off_s) * 1000 + ms;
	return COLFS_OK;
}

static bool name_in(const char *v, const char *const *names)
{
	for (; *names; names++)
		if (strcasecmp(v, *names) == 0)
			return true;
	return false;
}

/* Kudu CFile names (kudu.DataType, EncodingType, CompressionType). */
static const char *const cfile_type_names[] = {
	"UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "UINT64",
	"INT64", "STRING", "BOOL", "FLOAT", "DOUBLE", "BINARY",
	"UNIXTIME_MICROS", "INT128", "DECIMAL32", "DECIMAL64", "DECIMAL128",
	"VARCHAR", "DATE", NULL};
static const char *const cfile_encoding_names[] = {
	"PLAIN", "PLAIN_ENCODING", "PREFIX", "PREFIX_ENCODING", "RLE",
	"DICT", "DICT_ENCODING", "BIT_SHUFFLE", "GROUP_VARINT", NULL};
static const char *const cfile_compression_names[] = {
	"NONE", "NO_COMPRESSION", "SNAPPY", "LZ4", "ZLIB", NULL};

/* A key as colfs_key_decode takes it (the bytes are wiped at once). */
static bool key_text_ok(const char *v, size_t n)
{
	uint8_t k[32];
	size_t len;
	colfs_status st = colfs_key_decode(v, n, k, &len);

	colfs_key_wipe(k, sizeof k);
	return st == COLFS_OK;
}

/* "COL:KEY" pairs separated by ';' (the column path is everything
 * before the last ':' of a pair).  The pairs after the first may also be
 * items of their own in the -o list ("column_keys=a:K1,b:K2": the list
 * is cut at its commas before colfs_options_set sees "b:K2"). */
static bool column_keys_ok(const char *v)
{
	while (*v) {
		const char *end = strchr(v, ';'), *colon;
		size_t n = end ? (size_t)(end - v) : strlen(v);

		colon = memrchr(v, ':', n);
		if (!colon || colon == v ||
		    !key_text_ok(colon + 1, n - (size_t)(colon + 1 - v)))
			return false;
		v += n + (end ? 1 : 0);
	}
	return true;
}

/* An item of an -o list without '=' that is a "COL:KEY" pair (the key
 * after its last ':' a key colfs_key_decode takes): the pairs of
 * column_keys= after the first ("column_keys=a:K1,b:K2"). */
static bool column_pair_item(const char *p, size_t n)
{
	const char *colon = memrchr(p, ':', n);

	return colon && colon != p && !memchr(p, '=', n) &&
	       key_text_ok(colon + 1, n - (size_t)(colon + 1 - p));
}

void colfs_options_hide_keys(char *arg)
{
	static const char *const names[] = {"footer_key=", "column_keys=",
					    NULL};

	if (arg[0] == '-' && (arg[1] == 'o' || arg[1] == '-'))
		arg += 2;
	for (char *p = arg; *p;) {
		bool hit = false;
		for (size_t i = 0; names[i]; i++) {
			size_t n = strlen(names[i]);
			if (strncmp(p, names[i], n) == 0) {
				p += n;
				hit = true;
				break;
			}
		}
		if (!hit && column_pair_item(p, strcspn(p, ","))) {
			/* a pair continuing column_keys=: its key */
			p = memrchr(p, ':', strcspn(p, ",")) + 1;
			hit = true;
		}
		if (hit) {
			/* to the next item (a comma not escaped) */
			for (; *p && *p != ','; p++) {
				if (*p == '\\' && p[1])
					*p++ = '*';
				*p = '*';
			}
		} else {
			p += strcspn(p, ",");
		}
		if (*p == ',')
			p++;
	}
}

void colfs_options_shown(const char *kv, char *out, size_t out_len)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv), keep;
	bool secret = false;

	if (!out_len)
		return;
	if (eq) {
		/* footer_key=, column_keys=, and a misspelt key option
		 * (footer-key=, column_key=): every name with "key" in it
		 * but key_file */
		for (size_t i = 0; i + 3 <= klen; i++)
			if (strncasecmp(kv + i, "key", 3) == 0)
				secret = true;
		if (klen == 8 && strncmp(kv, "key_file", 8) == 0)
			secret = false;
		keep = klen + 1;
	} else {
		/* a "COL:KEY" pair, good or bad: what follows its last ':' */
		const char *colon = strrchr(kv, ':');
		secret = colon != NULL;
		keep = colon ? (size_t)(colon + 1 - kv) : 0;
	}
	if (!secret) {
		snprintf(out, out_len, "%s", kv);
		return;
	}
	snprintf(out, out_len, "%.*s****", (int)(keep < 4096 ? keep : 4096),
		 kv);
}

colfs_status colfs_options_set(colfs_options *o, const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
	const char *v = eq ? eq + 1 : NULL;
#define KEY(s) (klen == sizeof(s) - 1 && memcmp(kv, s, klen) == 0)
	if (KEY("null")) {
		if (!v)
			return COLFS_ECORRUPT;
		o->null_token = v;
		o->csv_null = v;
	} else if (KEY("cache_size")) {
		if (!v)
			return COLFS_ECORRUPT;
		COLFS_TRY(parse_size(v, &o->cache_bytes));
	} else if (KEY("max_alloc")) {
		if (!v)
			return COLFS_ECORRUPT;
		COLFS_TRY(parse_size(v, &o->max_alloc));
		if (o->max_alloc < 4096)
			return COLFS_ECORRUPT;
	} else if (KEY("checksums")) {
		if (v && strcmp(v, "ignore") == 0)
			o->checksums_ignore = true;
		else if (v && strcmp(v, "verify") == 0)
			o->checksums_ignore = false;
		else
			return COLFS_ECORRUPT;
	} else if (KEY("schema_from")) {
		if (!v || !*v)
			return COLFS_ECORRUPT;
		o->schema_from = v;
	} else if (KEY("salvage_effort")) {
		unsigned long n;

		COLFS_TRY(parse_count(v, 1, COLFS_MAX_SALVAGE_EFFORT, &n));
		o->salvage_effort = (uint32_t)n;
	} else if (KEY("cfile_type")) {
		if (!v || !name_in(v, cfile_type_names))
			return COLFS_ECORRUPT;
		o->cfile_type = v;
	} else if (KEY("cfile_encoding")) {
		if (!v || !name_in(v, cfile_encoding_names))
			return COLFS_ECORRUPT;
		o->cfile_encoding = v;
	} else if (KEY("cfile_compression")) {
		if (!v || !name_in(v, cfile_compression_names))
			return COLFS_ECORRUPT;
		o->cfile_compression = v;
	} else if (KEY("sizes")) {
		if (v && strcmp(v, "auto") == 0)
			o->sizes = COLFS_SIZES_AUTO;
		else if (v && strcmp(v, "lazy") == 0)
			o->sizes = COLFS_SIZES_LAZY;
		else if (v && strcmp(v, "exact") == 0)
			o->sizes = COLFS_SIZES_EXACT;
		else
			return COLFS_ECORRUPT;
	} else if (KEY("page_cache")) {
		if (v && strcmp(v, "arrays") == 0)
			o->page_cache_all = false;
		else if (v && strcmp(v, "all") == 0)
			o->page_cache_all = true;
		else
			return COLFS_ECORRUPT;
	} else if (KEY("size_index")) {
		if (!v || !*v)
			return COLFS_ECORRUPT;
		o->size_index = v;
	} else if (KEY("max_open_files")) {
		unsigned long n;

		COLFS_TRY(parse_count(v, 1, COLFS_MAX_OPEN_FILES, &n));
		o->max_open_files = (uint32_t)n;
	} else if (KEY("node_budget")) {
		unsigned long n;

		COLFS_TRY(parse_count(v, 0, COLFS_MAX_NODE_BUDGET, &n));
		o->node_budget = n ? n : UINT64_MAX;
	} else if (KEY("decode_threads")) {
		unsigned long n;

		COLFS_TRY(parse_count(v, 0, COLFS_MAX_DECODE_THREADS, &n));
		o->decode_threads = n ? (int)n : -1;
	} else if (KEY("remote_cache")) {
		if (!v)
			return COLFS_ECORRUPT;
		COLFS_TRY(parse_size(v, &o->remote_cache_bytes));
		if (o->remote_cache_bytes < (1ull << 20))
			return COLFS_ECORRUPT;
	} else if (KEY("s3_endpoint")) {
		if (!v || (strncmp(v, "http://", 7) != 0 &&
			   strncmp(v, "https://", 8) != 0))
			return COLFS_ECORRUPT;
		o->s3_endpoint = v;
	} else if (KEY("azure_endpoint")) {
		if (!v || (strncmp(v, "http://", 7) != 0 &&
			   strncmp(v, "https://", 8) != 0))
			return COLFS_ECORRUPT;
		o->azure_endpoint = v;
	} else if (KEY("gcs_endpoint")) {
		if (!v || (strncmp(v, "http://", 7) != 0 &&
			   strncmp(v, "https://", 8) != 0))
			return COLFS_ECORRUPT;
		o->gcs_endpoint = v;
	} else if (KEY("hf_endpoint")) {
		if (!v || (strncmp(v, "http://", 7) != 0 &&
			   strncmp(v, "https://", 8) != 0))
			return COLFS_ECORRUPT;
		o->hf_endpoint = v;
	} else if (KEY("cafile")) {
		if (!v || !*v)
			return COLFS_ECORRUPT;
		o->cafile = v;
	} else if (KEY("on_damage")) {
		if (v && strcmp(v, "error") == 0)
			o->on_damage = COLFS_ON_DAMAGE_ERROR;
		else if (v && strcmp(v, "null") == 0)
			o->on_damage = COLFS_ON_DAMAGE_NULL;
		else if (v && strcmp(v, "skip") == 0)
			o->on_damage = COLFS_ON_DAMAGE_SKIP;
		else
			return COLFS_ECORRUPT;
	} else if (KEY("follow_links")) {
		if (v)
			return COLFS_ECORRUPT;
		o->follow_links = true;
	} else if (KEY("allow_full_download")) {
		if (v)
			return COLFS_ECORRUPT;
		o->allow_full_download = true;
	} else if (KEY("version")) {
		char *end;
		long long n;

		if (!v || *v < '0' || *v > '9')
			return COLFS_ECORRUPT;
		errno = 0;
		n = strtoll(v, &end, 10);
		if (*end || errno)
			return COLFS_ECORRUPT;
		o->delta_version = n;
		o->delta_version_set = true;
	} else if (KEY("snapshot")) {
		char *end;
		long long n;

		if (!v || !((*v >= '0' && *v <= '9') || *v == '-'))
			return COLFS_ECORRUPT;
		errno = 0;
		n = strtoll(v, &end, 10);
		if (*end || errno || end == v)
			return COLFS_ECORRUPT;
		o->ice_snapshot = n;
		o->ice_snapshot_set = true;
	} else if (KEY("as_of")) {
		if (!v || parse_instant_ms(v, &o->ice_as_of_ms) != COLFS_OK)
			return COLFS_ECORRUPT;
		o->ice_as_of_set = true;
	} else if (KEY("ref")) {
		if (!v || !*v)
			return COLFS_ECORRUPT;
		o->ice_ref = v;
	} else if (KEY("location")) {
		if (!v || !*v)
			return COLFS_ECORRUPT;
		o->ice_location = v;
	} else if (KEY("footer_key")) {
		if (!v || !key_text_ok(v, strlen(v)))
			return COLFS_ECORRUPT;
		o->footer_key = v;
	} else if (KEY("column_keys") || (!v && memchr(kv, ':', klen))) {
		/* column_keys=COL:KEY[;COL:KEY...], and each further "COL:KEY"
		 * item of the list ("column_keys=a:K1,b:K2"): a bad one is a
		 * bad value, never an unknown option handed on to FUSE (which
		 * would print it) */
		const char *pairs = v ? v : kv;
		if (!column_keys_ok(pairs) || !*pairs ||
		    o->n_column_keys >= COLFS_MAX_COLUMN_KEYS)
			return COLFS_ECORRUPT;
		o->column_keys[o->n_column_keys++] = pairs;
	} else if (KEY("aad_prefix")) {
		if (!v)
			return COLFS_ECORRUPT;
		o->aad_prefix = v;
	} else if (KEY("key_file")) {
		if (!v || !*v)
			return COLFS_ECORRUPT;
		o->key_file = v;
	} else if (KEY("cfile_nullable")) {
		if (!v || strcmp(v, "true") == 0)
			o->cfile_nullable = true;
		else if (strcmp(v, "false") == 0)
			o->cfile_nullable = false;
		else
			return COLFS_ECORRUPT;
	} else {
		return COLFS_ENOENT;
	}
#undef KEY
	return COLFS_OK;
}

/* The options that name a file, in the order of the `owned` slots. */
static const struct {
	const char *name;
	size_t field;
} path_options[COLFS_PATH_OPTIONS] = {
	{"schema_from", offsetof(colfs_options, schema_from)},
	{"cafile", offsetof(colfs_options, cafile)},
	{"key_file", offsetof(colfs_options, key_file)},
};

colfs_status colfs_options_resolve_paths(colfs_options *o,
					 char *owned[COLFS_PATH_OPTIONS],
					 char *why, size_t why_len)
{
	for (size_t i = 0; i < COLFS_PATH_OPTIONS; i++)
		owned[i] = NULL;
	for (size_t i = 0; i < COLFS_PATH_OPTIONS; i++) {
		const char **v = (const char **)((char *)o +
						 path_options[i].field);
		struct stat st;
		int fd;

		if (!*v)
			continue;
		char *abs = realpath(*v, NULL);
		if (!abs) {
			snprintf(why, why_len, "%s=%s: %s",
				 path_options[i].name, *v, strerror(errno));
			return errno == ENOENT ? COLFS_ENOENT : COLFS_EIO;
		}
		/* O_NONBLOCK: a FIFO must not block the check. */
		fd = open(abs, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			bool dir = fd >= 0 && S_ISDIR(st.st_mode);
			snprintf(why, why_len, "%s=%s: %s",
				 path_options[i].name, *v,
				 fd < 0 ? strerror(errno)
				 : dir  ? "is a directory"
					: "not a regular file");
			if (fd >= 0)
				close(fd);
			free(abs);
			return COLFS_EUNSUPPORTED;
		}
		close(fd);
		owned[i] = abs;
		*v = abs;
	}
	return COLFS_OK;
}

const char *colfs_options_help(void)
{
	return "    -o null=STRING         how NULL values are shown (default \\N; rows.csv: empty)\n"
	       "    -o cache_size=SIZE     decoded-data cache, e.g. 16M (default 64M)\n"
	       "    -o max_alloc=SIZE      largest single buffer a file may ask for (default 1G)\n"
	       "    -o checksums=verify|ignore  serve data whose checksum fails (default verify)\n"
	       "    -o schema_from=FILE    healthy file of the same dataset, for salvage\n"
	       "    -o salvage_effort=N    salvage scans may take N times their caps (1-1000, default 1)\n"
	       "    -o cfile_type=TYPE     CFile salvage: the column type (INT32, INT64, STRING, ...)\n"
	       "    -o cfile_encoding=ENC  CFile salvage: PLAIN, BIT_SHUFFLE, RLE, PREFIX, DICT\n"
	       "    -o cfile_compression=C CFile salvage: NONE, SNAPPY, LZ4, ZLIB (default: detected)\n"
	       "    -o cfile_nullable=true|false  CFile salvage: nullable column (default false)\n"
	       "    -o sizes=auto|exact|lazy  when a stat decodes a view to know its size:\n"
	       "                           auto when cheap (default), exact always, lazy never\n"
	       "    -o page_cache=arrays|all  views of known size the kernel caches: arrays/\n"
	       "                           (default; text views direct I/O, no shared mmap), all\n"
	       "    -o size_index=PATH|off the file keeping learned sizes (default in\n"
	       "                           $XDG_CACHE_HOME/colfs, else ~/.cache/colfs)\n"
	       "    -o decode_threads=N    threads decoding ahead of sequential reads\n"
	       "                           (0-64; default one per online CPU, 0 none)\n"
	       "    -o on_damage=error|null|skip  rows of an unreadable page, stream or\n"
	       "                           block (a directory: of a file missing, changed\n"
	       "                           or not decodable): the read fails (default),\n"
	       "                           NULL, left out\n"
	       "    -o max_open_files=N    a directory (dataset): files kept open at once\n"
	       "                           (1-65536, default 64)\n"
	       "    -o follow_links        a directory: follow links that lead out of it\n"
	       "    -o node_budget=N       a mount: nodes kept before the kernel is asked to\n"
	       "                           forget the least recently used listings (default\n"
	       "                           200000, 0 no bound)\n"
	       "  encrypted Parquet (Parquet modular encryption; KEY: 32/48/64 hex digits\n"
	       "  or base64:...; key_file keeps keys out of the process title):\n"
	       "    -o footer_key=KEY      the footer key (and of columns encrypted with it)\n"
	       "    -o column_keys=COL:KEY[,COL:KEY...]  column keys (';' also separates pairs)\n"
	       "    -o aad_prefix=STR      the AAD prefix of a file that does not store it\n"
	       "    -o key_file=PATH       JSON object: \"footer\", a column path or a key id -> KEY\n"
	       "  remote sources (http://, https://, s3://bucket/key, az://container/blob,\n"
	       "  gs://bucket/object, hf://datasets/owner/name/path):\n"
	       "    -o remote_cache=SIZE   cache of fetched bytes (at least 1M, default 64M)\n"
	       "    -o s3_endpoint=URL     S3-compatible store (path-style requests)\n"
	       "    -o azure_endpoint=URL  Azure Blob endpoint (e.g. Azurite's, path-style)\n"
	       "    -o gcs_endpoint=URL    Google Cloud Storage XML API endpoint (path-style)\n"
	       "    -o hf_endpoint=URL     Hugging Face Hub endpoint (default HF_ENDPOINT, else\n"
	       "                           https://huggingface.co)\n"
	       "    -o cafile=PATH         CA certificates to trust besides the system's\n"
	       "    -o allow_full_download accept a server that ignores Range requests\n"
	       "  Delta Lake tables (a directory with _delta_log/):\n"
	       "    -o version=N           the table as of version N (default the latest)\n"
	       "  Apache Iceberg tables (a directory with metadata/*.metadata.json):\n"
	       "    -o snapshot=ID         the table as of snapshot ID (default the current)\n"
	       "    -o as_of=TIME          the snapshot current at TIME (ms since the epoch,\n"
	       "                           or YYYY-MM-DD[ HH:MM[:SS[.f]]][Z|+HH:MM], UTC)\n"
	       "    -o ref=NAME            the snapshot of branch or tag NAME\n"
	       "    -o location=PREFIX     the metadata's path prefix mapped onto the table's\n"
	       "                           directory (default the metadata's location)\n";
}

void colfs_options_defaults(colfs_options *o)
{
	if (!o->null_token)
		o->null_token = "\\N";
	if (!o->csv_null)
		o->csv_null = "";
	if (!o->cache_bytes)
		o->cache_bytes = COLFS_DEFAULT_CACHE;
	if (!o->max_alloc)
		o->max_alloc = COLFS_DEFAULT_MAX_ALLOC;
	if (!o->salvage_effort)
		o->salvage_effort = 1;
	if (!o->remote_cache_bytes)
		o->remote_cache_bytes = COLFS_DEFAULT_CACHE;
	if (!o->max_open_files)
		o->max_open_files = 64;
	if (!o->node_budget)
		o->node_budget = COLFS_DEFAULT_NODE_BUDGET;
}

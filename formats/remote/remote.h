/* colfs: files over HTTP(S), S3, Azure Blob Storage and Google Cloud
 * Storage.  The format code keeps
 * calling colfs_source_read_at; a remote source answers it from a block
 * cache filled by ranged GETs.  A store's name becomes an HTTP target in
 * its own file, the rest is shared:
 *
 *   s3.c             s3://bucket/key -> an HTTP target: endpoint (AWS or
 *                    -o s3_endpoint, path-style), region, credentials
 *                    from the usual places in the usual order;
 *   azure*.c, gcs.c  the same for az://, abfss:// and gs:// names;
 *   s3_list.c,       the listings of a prefix (ListObjectsV2 for S3 and
 *   azure_list.c,    GCS, List Blobs for Azure), their XML read by one
 *   xml_list.c       parser;
 *   http*.c          the exchanges with the server through libcurl:
 *                    ranged and suffix GETs, several in flight (multi),
 *                    each reply checked against what was asked (206 and
 *                    Content-Range, Content-Length, validators), bounded
 *                    retries with backoff, the request counters;
 *   remote_source.c  a colfs_source over an HTTP exchange: the tail by one
 *                    suffix GET, a bounded block cache (-o remote_cache),
 *                    coalescing of nearby ranges, read-ahead, and the
 *                    `io` document of a remote mount.
 *
 * Secrets (userpwd, session_token) are only ever handed to libcurl: they
 * never go into a message, a file of the mount, a log or the process
 * title, and colfs_remote_target_clear wipes them.
 */
#ifndef COLFS_REMOTE_H
#define COLFS_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "../core/sourcekind.h"
#include "../core/status.h"

struct colfs_source; /* core/source.h */

/* Does `s` name a remote source (http://, https://, s3:, az:, abfss:,
 * gs: or hf:, so that a mistyped URL is named as such rather than looked
 * up as a file)? */
bool colfs_remote_is_url(const char *s);

/* Where the bytes of a target are now, its url (a signed URL) having
 * answered 403 or 410: *url (malloc'd) from asking `from` again, with
 * `token` (NULL: none) sent there only; *requests the requests made
 * (counted as lookups).  On
 * failure `why` says why in one line naming the source. */
typedef colfs_status (*colfs_remote_relocate_fn)(const char *from,
						  const char *token,
						  const char *cafile,
						  char **url, unsigned *requests,
						  char *why, size_t why_len);

/* What to request and how to sign it. */
typedef struct colfs_remote_target {
	char *url;           /* the http(s) URL requested; no credentials */
	char *display;       /* the user's URL with any credentials stripped:
			      * the only form used in messages and `io` */
	char *aws_sigv4;     /* CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3",
			      * "goog:goog:auto:storage"), or NULL: not
			      * signed (plain HTTP, anonymous S3 or GCS) */
	char *userpwd;       /* secret: "ACCESS_KEY:SECRET_KEY", or NULL */
	char *session_token; /* secret: sent as x-amz-security-token, or NULL */
	char *cafile;        /* -o cafile (absolute), or NULL */
	/* Azure Blob (azure.c): every request carries x-ms-version, and the
	 * size is learnt without a suffix range, which Azure refuses. */
	bool azure;
	char *azure_account; /* with azure_key: the account signed for */
	char *azure_key;     /* secret: the Shared Key (base64), or NULL */
	char *azure_sas;     /* secret: a SAS token (a query, no '?'), or
			      * NULL; appended to each request's URL */
	/* Hugging Face (hf.c). */
	char *bearer;        /* secret: sent as "Authorization: Bearer" to
			      * url's host only (its redirects are then not
			      * followed), or NULL */
	colfs_remote_relocate_fn relocate; /* NULL: url does not expire */
	char *relocate_from; /* the URL that redirected to url */
	char *relocate_token; /* secret: for relocate_from only, or NULL */
	unsigned lookups;    /* requests made to find url (hf.c's Hub
			      * requests: io's "hub lookups") */
} colfs_remote_target;

/* http:// and https:// (remote_source.c).  User information in the URL
 * (user:password@) is moved to userpwd and stripped from display. */
colfs_status colfs_http_target(const char *url, const colfs_options *o,
			       colfs_remote_target *out, char *why,
			       size_t why_len);
/* s3://bucket/key (s3.c): AWS (virtual-host style,
 * https://BUCKET.s3.REGION.amazonaws.com/KEY) or, with -o s3_endpoint,
 * path style (ENDPOINT/BUCKET/KEY).  Credentials: AWS_ACCESS_KEY_ID +
 * AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), else the profile
 * AWS_PROFILE (default "default") of AWS_SHARED_CREDENTIALS_FILE (default
 * ~/.aws/credentials); none: anonymous (unsigned).  Region: AWS_REGION,
 * AWS_DEFAULT_REGION, the profile's region in AWS_CONFIG_FILE (default
 * ~/.aws/config), else us-east-1. */
colfs_status colfs_s3_target(const char *url, const colfs_options *o,
			     colfs_remote_target *out, char *why,
			     size_t why_len);
/* Does `url` name an S3 prefix rather than an object: s3://BUCKET,
 * s3://BUCKET/ or s3://BUCKET/PREFIX/ (ending in '/')?  A dataset. */
bool colfs_s3_is_prefix(const char *url);
/* s3://BUCKET/PREFIX for a listing (s3_list.c): the target's url is the
 * bucket's (ENDPOINT/BUCKET, or https://BUCKET.s3.REGION.amazonaws.com),
 * signed as colfs_s3_target signs; *prefix (malloc'd) is PREFIX as
 * written, maybe empty (s3://BUCKET/ and s3://BUCKET list the bucket). */
colfs_status colfs_s3_prefix_target(const char *url, const colfs_options *o,
				    colfs_remote_target *out, char **prefix,
				    char *why, size_t why_len);
/* Free the strings, wiping the secrets first. */
void colfs_remote_target_clear(colfs_remote_target *t);

/* Azure Blob Storage (azure.c, azure_sign.c, azure_list.c).  Names:
 * az://CONTAINER/PATH, az://ACCOUNT.blob.core.windows.net/CONTAINER/PATH
 * and abfss://FILESYSTEM@ACCOUNT.dfs.core.windows.net/PATH (served
 * through the Blob endpoint); ending in '/' or naming only the
 * container: a prefix (a dataset).  Credentials: AZURE_STORAGE_ACCOUNT +
 * AZURE_STORAGE_KEY (Shared Key), AZURE_STORAGE_SAS_TOKEN, or
 * AZURE_STORAGE_CONNECTION_STRING; none: anonymous.  -o azure_endpoint
 * (e.g. Azurite's http://127.0.0.1:10000/devstoreaccount1) replaces
 * https://ACCOUNT.blob.core.windows.net. */
#define COLFS_AZURE_VERSION "2021-08-06"
bool colfs_azure_claims(const char *name);
bool colfs_azure_is_prefix(const char *name);
/* An object's target; with `prefix` non-NULL the container's (a
 * listing), *prefix (malloc'd) the prefix as written, maybe "". */
colfs_status colfs_azure_target(const char *url, const colfs_options *o,
				colfs_remote_target *out, char **prefix,
				char *why, size_t why_len);
/* The Authorization header's value (SharedKey ACCOUNT:SIGNATURE) of a GET
 * of `url` (as sent, SAS excluded) with `range` ("bytes=A-B" or NULL) and
 * `date` (x-ms-date); false when the key does not decode. */
bool colfs_azure_authorization(const char *account, const char *key_b64,
			       const char *url, const char *range,
			       const char *date, char *out, size_t out_len);
/* The account key's bytes (at most `cap`) from its base64 (azure_sign.c),
 * or -1 when it is not base64. */
int colfs_azure_key_decode(const char *b64, unsigned char *out, size_t cap);
colfs_status colfs_azure_list(const char *url, const colfs_options *o,
			      colfs_source_entry **out, size_t *n, char *why,
			      size_t why_len);
colfs_status colfs_azure_peek(const char *url, const colfs_options *o,
			      uint64_t size, size_t n, uint8_t *head,
			      uint8_t *tail, char *why, size_t why_len);

/* Google Cloud Storage (gcs.c), through its XML API.  Names:
 * gs://BUCKET/OBJECT; gs://BUCKET, gs://BUCKET/ and names ending in '/'
 * are prefixes (a dataset), and so is an object name under which objects
 * lie when no object has that name (remote_kinds.c).  Credentials: an HMAC
 * key in GCS_ACCESS_KEY_ID + GCS_SECRET_ACCESS_KEY, signed
 * GOOG4-HMAC-SHA256 by libcurl; none: anonymous, unless
 * GOOGLE_APPLICATION_CREDENTIALS is set (OAuth is not supported: refused,
 * naming it).  -o gcs_endpoint replaces https://storage.googleapis.com
 * (path style: ENDPOINT/BUCKET/OBJECT). */
bool colfs_gcs_claims(const char *name);
bool colfs_gcs_is_prefix(const char *name);
/* An object's target; with `prefix` non-NULL the bucket's (a listing),
 * *prefix (malloc'd) the prefix as written, maybe "". */
colfs_status colfs_gcs_target(const char *url, const colfs_options *o,
			      colfs_remote_target *out, char **prefix,
			      char *why, size_t why_len);
/* The objects under a gs:// prefix: colfs_list_v2 on its bucket.
 * colfs_gcs_list_first: those of the first page only (up to 1000), to
 * learn whether any object lies under it. */
colfs_status colfs_gcs_list(const char *url, const colfs_options *o,
			    colfs_source_entry **out, size_t *n, char *why,
			    size_t why_len);
colfs_status colfs_gcs_list_first(const char *url, const colfs_options *o,
				  colfs_source_entry **out, size_t *n,
				  char *why, size_t why_len);
/* colfs_remote_peek_target of a gs:// object. */
colfs_status colfs_gcs_peek(const char *url, const colfs_options *o,
			    uint64_t size, size_t n, uint8_t *head,
			    uint8_t *tail, char *why, size_t why_len);

/* The Hugging Face Hub (hf.c, hf_request.c, hf_list.c).  Names:
 * hf://datasets/OWNER/NAME[@REVISION]/PATH, hf://spaces/..., and
 * hf://models/OWNER/NAME/... or hf://OWNER/NAME/... (a model); the
 * revision (default main) percent-decoded, "~parquet" standing for
 * refs/convert/parquet; a PATH empty or ending in '/' is a folder (a
 * dataset).  The endpoint: -o hf_endpoint, else HF_ENDPOINT, else
 * https://huggingface.co.  The token: HF_TOKEN, HUGGING_FACE_HUB_TOKEN,
 * or huggingface_hub's token file; sent to the Hub only. */
bool colfs_hf_claims(const char *name);
bool colfs_hf_is_prefix(const char *name);
/* A file's target: where the Hub's redirect leads (the token not sent
 * there; asked again once when it answers 403 or 410), or the Hub's own
 * resolve URL with the token as bearer. */
colfs_status colfs_hf_target(const char *name, const colfs_options *o,
			     colfs_remote_target *t, char *why,
			     size_t why_len);
colfs_status colfs_hf_list(const char *name, const colfs_options *o,
			   colfs_source_entry **out, size_t *n, char *why,
			   size_t why_len);
colfs_status colfs_hf_peek(const char *name, const colfs_options *o,
			   uint64_t size, size_t n, uint8_t *head,
			   uint8_t *tail, char *why, size_t why_len);
/* What hf.c, hf_list.c and hf_request.c share: a name read with its
 * endpoint and token, and one request to the Hub (hf_request.c). */
/* The longest token read (a request's header holds it). */
#define COLFS_HF_TOKEN_MAX 4096
typedef struct colfs_hf_repo {
	const char *name;    /* as given: what messages show */
	char type[16];       /* "datasets", "models" or "spaces" */
	char *repo;          /* OWNER/NAME */
	char *revision;      /* decoded */
	char *path;          /* in the repository, as written */
	bool dir;            /* path is a folder */
	char *endpoint;      /* without a trailing '/' */
	char *token;         /* secret, or NULL */
	char token_from[256]; /* where the token came from, for messages */
	char *cafile;
} colfs_hf_repo;
colfs_status colfs_hf_repo_open(const char *name, const colfs_options *o,
				colfs_hf_repo *r, char *why, size_t why_len);
void colfs_hf_repo_clear(colfs_hf_repo *r);
/* The resolve URL of `path` (api false) or the tree API's URL of the
 * folder `path` (api true), percent-encoded; malloc'd, NULL when out of
 * memory. */
char *colfs_hf_url(const colfs_hf_repo *r, bool api, const char *path);
typedef struct colfs_hf_reply {
	int status;
	char *location, *link;      /* malloc'd, or NULL */
	char etag[256], linked_etag[256], commit[96];
	char error_code[64], error_message[256]; /* X-Error-Code, -Message */
	bool have_linked_size;
	uint64_t linked_size;
	uint8_t *body;              /* NUL-terminated after len bytes */
	size_t len;
} colfs_hf_reply;
void colfs_hf_reply_clear(colfs_hf_reply *y);
/* One request (HEAD or GET) of `url` with the token, redirects not
 * followed, a body of at most `max` bytes; 5xx, 429, timeouts and resets
 * tried again with backoff.  Any final status is COLFS_OK (the caller
 * reads it); *requests counts the requests sent. */
colfs_status colfs_hf_request(const colfs_hf_repo *r, const char *url,
			      bool head, size_t max, colfs_hf_reply *y,
			      unsigned *requests, char *why, size_t why_len);
/* Does the redirect to `location` stay on the Hub (relative, or to the
 * endpoint's scheme and host), where the token may go?  *url its
 * absolute URL (malloc'd; NULL when out of memory). */
bool colfs_hf_on_hub(const colfs_hf_repo *r, const char *location,
		     char **url);
/* A 4xx or other refusal of `what` told in one line: the status, what it
 * means on the Hub (a token needed, naming HF_TOKEN; the repository, the
 * revision or the file not found), the Hub's X-Error-Message. */
colfs_status colfs_hf_refused(const colfs_hf_repo *r,
			      const colfs_hf_reply *y, const char *what,
			      char *why, size_t why_len);

/* http.c (its parts: http_internal.h): exchanges with one object.
 * Every function may be called from several threads at once (each call
 * has its own curl handles; they share connections, DNS and TLS
 * sessions). */
typedef struct colfs_http colfs_http;

#define COLFS_HTTP_SLOWEST 5
typedef struct colfs_http_stats {
	uint64_t requests;  /* requests sent, retries included */
	uint64_t bytes;     /* body bytes received */
	uint64_t retries;   /* requests sent again after a 5xx, a timeout
			     * or a reset */
	uint64_t failures;  /* exchanges given up (an error returned) */
	uint64_t lookups;   /* requests that asked where the bytes are (the
			     * Hub's answer to hf.c; not in `requests`) */
	struct {
		double ms;       /* from sending to the last byte */
		uint64_t offset; /* the range asked; len 0: none */
		uint64_t len;
		int status;      /* HTTP status, 0: no reply */
	} slowest[COLFS_HTTP_SLOWEST]; /* slowest first */
} colfs_http_stats;

/* Takes copies of what it needs from `t`; no request is made. */
colfs_status colfs_http_create(const colfs_remote_target *t,
			       const colfs_options *o, colfs_http **out,
			       char *why, size_t why_len);
void colfs_http_destroy(colfs_http *h);

/* Is the header line curl gives (`len` bytes) a reply's status line
 * ("HTTP/1.1 206 ...", a new reply after a redirect or a 100 Continue)?
 * Then *status is its code, 0 when it has none. */
bool colfs_http_status_line(const char *line, size_t len, int *status);

/* The last `len` bytes of the object (Range: bytes=-LEN), the first
 * request of a mount: `*object_size` from the reply's Content-Range, the
 * validators (ETag, Last-Modified) remembered.  `*data` (malloc'd) holds
 * `*got` bytes, the last `*got` of the object (fewer than `len` when the
 * object is smaller).  A server that ignores Range is an error unless
 * allow_full_download is set, then the whole body is the object. */
colfs_status colfs_http_get_tail(colfs_http *h, uint64_t len, uint8_t **data,
				 size_t *got, uint64_t *object_size,
				 colfs_err *err);

typedef struct colfs_http_range {
	uint64_t offset;
	size_t len;
	void *buf; /* `len` bytes */
} colfs_http_range;
/* Fetch each range whole (each inside the object), several in flight at
 * once.  A reply that is not exactly the range asked (200 for a range,
 * a wrong Content-Range, no Content-Length, 416, a redirect loop, other
 * validators than the first reply's) is an error naming the URL (display
 * form) and the status; 5xx, timeouts and resets are retried a bounded
 * number of times with backoff. */
colfs_status colfs_http_get_ranges(colfs_http *h, const colfs_http_range *r,
				   size_t n, colfs_err *err);

/* A GET without Range of the object's URL followed by `query` (e.g.
 * "?list-type=2&prefix=a%2F", already encoded), its whole body: for S3's
 * ListObjectsV2 (s3_list.c).  A 200 of at most `max` bytes gives
 * *body (malloc'd, NUL-terminated after its *len bytes); validators are
 * not compared (a listing is not the object).  Any other status is an
 * error naming the URL (display form), the status and `what`; for a 4xx
 * *body still holds the start of the reply (an S3 error document) and
 * *status its status, for the caller to say more.  5xx, timeouts and
 * resets are retried as the ranged GETs are. */
colfs_status colfs_http_get_body(colfs_http *h, const char *query,
				 const char *what, size_t max, uint8_t **body,
				 size_t *len, int *status, colfs_err *err);

/* The object's first bytes when colfs_http_get_tail fetched them apart
 * from the tail (a store without suffix ranges: Azure), handed over once
 * (malloc'd; 0 and NULL: none). */
size_t colfs_http_take_head(colfs_http *h, uint8_t **data);

/* COLFS_EIO "source changed since mount (ETag A -> B): remount" once any
 * reply carried other validators than the first; no request is made. */
colfs_status colfs_http_check(colfs_http *h, colfs_err *err);
void colfs_http_stats_get(colfs_http *h, colfs_http_stats *out);

/* A source over a remote object (remote_source.c): the target from the
 * URL's scheme, then one suffix GET for the tail, which also gives the
 * size; `*display` (malloc'd) the URL as messages show it.  Ownership
 * of the source goes to the caller (the tree).  On failure `why` says
 * why in one line naming the URL (display form) and, for an HTTP reply,
 * its status.  The core reaches it through the source kinds
 * (remote_kinds.c). */
colfs_status colfs_remote_open(const char *url, const colfs_options *o,
			       struct colfs_source **out, char **display,
			       char *why, size_t why_len);
/* A URL's user information ("user:password@") overwritten in place with
 * '*' (for argv: the process title); a URL without any is left alone. */
void colfs_remote_url_hide(char *url);
/* A copy of `url` without its user information (malloc'd; NULL when out
 * of memory): the form shown in messages and fsname. */
char *colfs_remote_url_display(const char *url);

/* The objects under an S3 prefix (s3_list.c; datasets): ListObjectsV2
 * on s3://bucket/prefix/, every page (continuation tokens), signed as
 * colfs_s3_target signs.  Keys are relative to the prefix, in the order
 * the server lists them (UTF-8 binary order); "directories" are not
 * entries.  Every field of each reply is distrusted (a key outside the
 * prefix, a size that does not parse, a truncated page without a token:
 * an error naming the URL). */
typedef colfs_source_entry colfs_remote_entry; /* key: relative to the
							* prefix */
colfs_status colfs_s3_list(const char *url, const colfs_options *o,
			   colfs_remote_entry **out, size_t *n, char *why,
			   size_t why_len);
void colfs_remote_entries_free(colfs_remote_entry *e, size_t n);
/* The first and last `n` bytes of the object of target `t` (s3_list.c)
 * whose listing gave it `size` bytes, by two small ranged GETs in flight
 * together (not a suffix range, which some stores answer wrongly), for
 * a dataset telling columnar files by their magic (formats/dataset).  An
 * object of another size gives an error or other bytes, never bytes
 * from outside the buffers.  colfs_remote_peek: of an s3:// URL
 * (colfs_azure_peek and colfs_gcs_peek: of theirs). */
colfs_status colfs_remote_peek_target(const colfs_remote_target *t,
				      const colfs_options *o, uint64_t size,
				      size_t n, uint8_t *head, uint8_t *tail,
				      char *why, size_t why_len);
colfs_status colfs_remote_peek(const char *url, const colfs_options *o,
			       uint64_t size, size_t n, uint8_t *head,
			       uint8_t *tail, char *why, size_t why_len);
/* ListObjectsV2 under `prefix` of the bucket whose listing target is `t`
 * (t->url the bucket's URL, t->display SCHEME://BUCKET/...): S3's, and
 * GCS's XML API listing (list-type=2), with the checks colfs_s3_list
 * describes; `max_keys` as colfs_s3_list_paged's; at most `max_pages`
 * pages (0: every page). */
colfs_status colfs_list_v2(const colfs_remote_target *t, const char *prefix,
			   const colfs_options *o, unsigned max_keys,
			   unsigned max_pages, colfs_remote_entry **out,
			   size_t *n, char *why, size_t why_len);
/* colfs_s3_list asking at most `max_keys` keys a page (0: the server's
 * default, 1000 on S3): tests use a few to make many pages. */
colfs_status colfs_s3_list_paged(const char *url, const colfs_options *o,
				 unsigned max_keys, colfs_remote_entry **out,
				 size_t *n, char *why, size_t why_len);

#endif

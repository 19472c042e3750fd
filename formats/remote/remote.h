/* colfs: files over HTTP(S) and S3 (issue 15).  The format code keeps
 * calling colfs_source_read_at; a remote source answers it from a block
 * cache filled by ranged GETs.  Three parts, one file each:
 *
 *   s3.c             s3://bucket/key -> an HTTP target: endpoint (AWS or
 *                    -o s3_endpoint, path-style), region, credentials
 *                    from the usual places in the usual order;
 *   http.c           the exchanges with the server through libcurl:
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
#include "../core/status.h"

/* Does `s` name a remote source (http://, https:// or s3://)? */
bool colfs_remote_is_url(const char *s);

/* What to request and how to sign it. */
typedef struct colfs_remote_target {
	char *url;           /* the http(s) URL requested; no credentials */
	char *display;       /* the user's URL with any credentials stripped:
			      * the only form used in messages and `io` */
	char *aws_sigv4;     /* CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3"), or
			      * NULL: not signed (plain HTTP, anonymous S3) */
	char *userpwd;       /* secret: "ACCESS_KEY:SECRET_KEY", or NULL */
	char *session_token; /* secret: sent as x-amz-security-token, or NULL */
	char *cafile;        /* -o cafile (absolute), or NULL */
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
/* Free the strings, wiping the secrets first. */
void colfs_remote_target_clear(colfs_remote_target *t);

/* A source over a remote object (remote_source.c): the target from the
 * URL's scheme, then one suffix GET for the tail, which also gives the
 * size.  Ownership of the source goes to the caller (the tree).  On
 * failure `why` says why in one line naming the URL (display form) and,
 * for an HTTP reply, its status. */
colfs_status colfs_remote_source_open(const char *url,
				      const colfs_options *o,
				      struct colfs_source **out, char *why,
				      size_t why_len);

#endif

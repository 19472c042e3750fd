/* colfs: the remote source kinds (core/sourcekind.h): an http:// or
 * https:// object, an s3:// prefix (a listing: s3://BUCKET,
 * s3://BUCKET/ or s3://BUCKET/PREFIX/) and an s3:// object, an Azure
 * prefix and blob, a gs:// prefix and object, a Hugging Face folder and
 * file.  Their changes are seen by the validators of the server's replies (http.c);
 * their names are shown without user information. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote.h"

static bool http_claims(const char *name)
{
	return strncmp(name, "http://", 7) == 0 ||
	       strncmp(name, "https://", 8) == 0;
}

/* "s3:" and not only "s3://": a mistyped S3 URL is named as such (by
 * colfs_s3_target) rather than looked up as a file. */
static bool s3_claims(const char *name)
{
	return strncmp(name, "s3:", 3) == 0;
}

static bool s3_prefix_claims(const char *name)
{
	return s3_claims(name) && colfs_s3_is_prefix(name);
}

static colfs_status remote_kind_open(const char *name, const colfs_options *o,
				     colfs_source_opened *out, char *why,
				     size_t why_len)
{
	return colfs_remote_open(name, o, &out->src, &out->shown, why,
				 why_len);
}

/* A prefix (S3, Azure or GCS) is listed by the directory module
 * (colfs_source_list); the
 * tree has no source bytes to open. */
static colfs_status s3_prefix_open(const char *name, const colfs_options *o,
				   colfs_source_opened *out, char *why,
				   size_t why_len)
{
	(void)name;
	(void)o;
	(void)out;
	(void)why;
	(void)why_len;
	return COLFS_OK;
}

const colfs_source_kind colfs_source_kind_http = {
	.name = "http",
	.claims = http_claims,
	.open = remote_kind_open,
	.display = colfs_remote_url_display,
	.hide = colfs_remote_url_hide,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

const colfs_source_kind colfs_source_kind_s3_prefix = {
	.name = "s3-prefix",
	.claims = s3_prefix_claims,
	.open = s3_prefix_open,
	.listing = true,
	.list = colfs_s3_list,
	.display = colfs_remote_url_display,
	.hide = colfs_remote_url_hide,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

const colfs_source_kind colfs_source_kind_s3 = {
	.name = "s3",
	.claims = s3_claims,
	.open = remote_kind_open,
	.peek = colfs_remote_peek,
	.display = colfs_remote_url_display,
	.hide = colfs_remote_url_hide,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

/* Azure Blob Storage (azure.c): "az:" and "abfss:" are claimed whole, so
 * that a mistyped name is named as such; a name ending in '/' or naming
 * only a container is a prefix, listed by colfs_azure_list.  Names hold
 * no secret (a query is refused), so they are shown as given. */
static bool azure_prefix_claims(const char *name)
{
	return colfs_azure_claims(name) && colfs_azure_is_prefix(name);
}

const colfs_source_kind colfs_source_kind_azure_prefix = {
	.name = "azure-prefix",
	.claims = azure_prefix_claims,
	.open = s3_prefix_open,
	.listing = true,
	.list = colfs_azure_list,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

const colfs_source_kind colfs_source_kind_azure = {
	.name = "azure",
	.claims = colfs_azure_claims,
	.open = remote_kind_open,
	.peek = colfs_azure_peek,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

/* Google Cloud Storage (gcs.c): "gs:" is claimed whole, so that a
 * mistyped name is named as such; gs://BUCKET, gs://BUCKET/ and a name
 * ending in '/' are prefixes, listed by colfs_gcs_list.  A name with user
 * information (gs://ID:SECRET@...) is refused, and hidden in the process
 * title and shown without it in the meantime, as an s3:// URL's. */
static bool gcs_prefix_claims(const char *name)
{
	return colfs_gcs_claims(name) && colfs_gcs_is_prefix(name);
}

const colfs_source_kind colfs_source_kind_gcs_prefix = {
	.name = "gcs-prefix",
	.claims = gcs_prefix_claims,
	.open = s3_prefix_open,
	.listing = true,
	.list = colfs_gcs_list,
	.display = colfs_remote_url_display,
	.hide = colfs_remote_url_hide,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

/* An object, or, when no object has the name (HTTP 404) and objects lie
 * under NAME/, that prefix: gsutil and the console show such a name as a
 * folder, so gs://BUCKET/ds mounts as gs://BUCKET/ds/ would (a dataset;
 * one page of the listing is asked only after the object's 404, and the
 * dataset lists it again whole).  http.c names a 404 "HTTP 404 (not
 * found)" (docs/errors.md). */
static colfs_status gcs_open(const char *name, const colfs_options *o,
			     colfs_source_opened *out, char *why,
			     size_t why_len)
{
	colfs_status st = colfs_remote_open(name, o, &out->src, &out->shown,
					    why, why_len);
	if (st != COLFS_EIO || !strstr(why, "HTTP 404 (not found)"))
		return st;
	char *dir = NULL, lwhy[256];
	colfs_source_entry *e = NULL;
	size_t n = 0;
	if (asprintf(&dir, "%s/", name) < 0)
		return st;
	if (colfs_gcs_list_first(dir, o, &e, &n, lwhy, sizeof lwhy) ==
		    COLFS_OK &&
	    n > 0) {
		colfs_source_entries_free(e, n);
		out->shown = dir;
		return COLFS_OK;
	}
	colfs_source_entries_free(e, n);
	free(dir);
	return st;
}

const colfs_source_kind colfs_source_kind_gcs = {
	.name = "gcs",
	.claims = colfs_gcs_claims,
	.open = gcs_open,
	.peek = colfs_gcs_peek,
	.display = colfs_remote_url_display,
	.hide = colfs_remote_url_hide,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

/* The Hugging Face Hub (hf.c, hf_list.c): "hf:" is claimed whole, so
 * that a mistyped name is named as such; a folder (a name ending in '/',
 * or a repository's root) is a prefix, listed by the tree API.  Names
 * hold no secret (the token comes from the environment), so they are
 * shown as given. */
static bool hf_prefix_claims(const char *name)
{
	return colfs_hf_claims(name) && colfs_hf_is_prefix(name);
}

const colfs_source_kind colfs_source_kind_hf_prefix = {
	.name = "hf-prefix",
	.claims = hf_prefix_claims,
	.open = s3_prefix_open,
	.listing = true,
	.list = colfs_hf_list,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

const colfs_source_kind colfs_source_kind_hf = {
	.name = "hf",
	.claims = colfs_hf_claims,
	.open = remote_kind_open,
	.peek = colfs_hf_peek,
	.changes = COLFS_SOURCE_CHANGES_VALIDATORS,
};

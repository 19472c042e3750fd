/* gs:// targets (formats/remote/gcs.c) and the source kinds that claim
 * gs:// names: good names and the request URL they give (the XML API's,
 * or -o gcs_endpoint's, the object name percent-encoded segment by
 * segment), bad bucket names (each GCS rule), object names with a dot
 * segment or too long, a control character, user information (refused,
 * not echoed), prefixes, the HMAC key from the environment (and its
 * halves alone), OAuth's GOOGLE_APPLICATION_CREDENTIALS refused by name,
 * anonymous access, a name's user information hidden in argv and shown
 * without it.  No message may quote the secret. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sourcekind.h"
#include "remote/remote.h"

#define SECRET "gcs-s3cr3t-XYZZY"

static int setup(void **state)
{
	(void)state;
	unsetenv("GCS_ACCESS_KEY_ID");
	unsetenv("GCS_SECRET_ACCESS_KEY");
	unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
	return 0;
}

typedef struct result {
	colfs_status st;
	colfs_remote_target t;
	char *prefix;
	char why[512];
} result;

static void target(result *r, const char *url, const char *endpoint,
		   bool listing)
{
	colfs_options o;

	memset(r, 0, sizeof *r);
	memset(&o, 0, sizeof o);
	o.gcs_endpoint = endpoint;
	r->st = colfs_gcs_target(url, &o, &r->t, listing ? &r->prefix : NULL,
				 r->why, sizeof r->why);
	assert_null(strstr(r->why, SECRET));
}

static void done(result *r)
{
	colfs_remote_target_clear(&r->t);
	free(r->prefix);
}

static void good(const char *url, const char *want_url,
		 const char *want_display)
{
	result r;

	target(&r, url, NULL, false);
	if (r.st)
		fail_msg("%s: %s", url, r.why);
	assert_string_equal(r.t.url, want_url);
	assert_string_equal(r.t.display, want_display);
	assert_null(r.t.aws_sigv4);
	assert_null(r.t.userpwd);
	done(&r);
}

static void bad(const char *url, colfs_status want, const char *words)
{
	result r;

	target(&r, url, NULL, false);
	if (r.st != want || !strstr(r.why, words))
		fail_msg("%s: status %d, '%s' (wanted %d, '%s')", url, r.st,
			 r.why, want, words);
	assert_null(r.t.url);
	done(&r);
}

static void test_names(void **state)
{
	(void)state;
	good("gs://my-bucket/a/b.parquet",
	     "https://storage.googleapis.com/my-bucket/a/b.parquet",
	     "gs://my-bucket/a/b.parquet");
	good("gs://b_u.c-k/with space+plus=%.parquet",
	     "https://storage.googleapis.com/b_u.c-k/"
	     "with%20space%2Bplus%3D%25.parquet",
	     "gs://b_u.c-k/with space+plus=%.parquet");
	good("gs://abc/d\xc3\xa9j\xc3\xa0/x?y#z",
	     "https://storage.googleapis.com/abc/d%C3%A9j%C3%A0/x%3Fy%23z",
	     "gs://abc/d\xc3\xa9j\xc3\xa0/x?y#z");
	good("gs://abc/a//b", "https://storage.googleapis.com/abc/a//b",
	     "gs://abc/a//b");
	good("gs://abc/.hidden/..x", "https://storage.googleapis.com/abc/"
	     ".hidden/..x", "gs://abc/.hidden/..x");
	/* a dotted bucket of 222 characters, parts of 63 */
	char url[300], want[400];
	char part[64];
	memset(part, 'a', 63);
	part[63] = '\0';
	snprintf(url, sizeof url, "gs://%s.%s.%s.%.30s/o", part, part, part,
		 part);
	snprintf(want, sizeof want, "https://storage.googleapis.com/%s",
		 url + 5);
	good(url, want, url);
}

static void test_bad_names(void **state)
{
	(void)state;
	bad("gs:/abc/x", COLFS_ECORRUPT, "not a Google Cloud Storage URL");
	bad("gs://ab/x", COLFS_ECORRUPT, "3 to 63 characters");
	bad("gs://Abc/x", COLFS_ECORRUPT, "only lowercase letters");
	bad("gs://-abc/x", COLFS_ECORRUPT, "begins and ends");
	bad("gs://abc-/x", COLFS_ECORRUPT, "begins and ends");
	bad("gs://a..bc/x", COLFS_ECORRUPT, "no empty dot-separated part");
	bad("gs://192.168.5.4/x", COLFS_ECORRUPT, "IP address");
	bad("gs://goog-data/x", COLFS_ECORRUPT, "begin with \"goog\"");
	bad("gs://my-google-data/x", COLFS_ECORRUPT, "contain \"google\"");
	char url[300];
	memset(url, 'a', sizeof url);
	memcpy(url, "gs://", 5);
	url[5 + 64] = '/';
	url[5 + 65] = 'x';
	url[5 + 66] = '\0';
	bad(url, COLFS_ECORRUPT, "at most 63 characters between dots");
	bad("gs:///x", COLFS_ECORRUPT, "the bucket name is empty");
	bad("gs://abc", COLFS_ECORRUPT, "no object name");
	bad("gs://abc/dir/", COLFS_ECORRUPT, "no object name");
	bad("gs://abc/a/../b", COLFS_EUNSUPPORTED, "'.' or '..' segment");
	bad("gs://abc/./b", COLFS_EUNSUPPORTED, "'.' or '..' segment");
	bad("gs://abc/a\nb", COLFS_ECORRUPT, "control character");
	/* user information: maybe a secret, never echoed */
	bad("gs://id:" SECRET "@abc/x", COLFS_EUNSUPPORTED,
	    "user information");
	bad("gs:/" SECRET "@abc/x", COLFS_ECORRUPT, "gs:...: not a Google");
	char big[1100] = "gs://abc/";
	memset(big + 9, 'k', 1025);
	big[9 + 1025] = '\0';
	bad(big, COLFS_ECORRUPT, "GCS allows at most 1024");
}

static void test_endpoint_and_prefix(void **state)
{
	result r;

	(void)state;
	target(&r, "gs://abc/d/e.parquet", "http://127.0.0.1:9/x//", false);
	assert_int_equal(r.st, COLFS_OK);
	assert_string_equal(r.t.url, "http://127.0.0.1:9/x/abc/d/e.parquet");
	done(&r);
	target(&r, "gs://abc/ds/", "http://127.0.0.1:9", true);
	assert_int_equal(r.st, COLFS_OK);
	assert_string_equal(r.t.url, "http://127.0.0.1:9/abc");
	assert_string_equal(r.t.display, "gs://abc/ds/");
	assert_string_equal(r.prefix, "ds/");
	done(&r);
	target(&r, "gs://abc", NULL, true);
	assert_int_equal(r.st, COLFS_OK);
	assert_string_equal(r.t.url, "https://storage.googleapis.com/abc");
	assert_string_equal(r.prefix, "");
	done(&r);
	target(&r, "gs://abc/x", "http://u:" SECRET "@h/", false);
	assert_int_equal(r.st, COLFS_ECORRUPT);
	assert_non_null(strstr(r.why, "gcs_endpoint"));
	done(&r);
	target(&r, "gs://abc/x", "http://h/?q", false);
	assert_int_equal(r.st, COLFS_ECORRUPT);
	done(&r);

	assert_true(colfs_gcs_is_prefix("gs://abc"));
	assert_true(colfs_gcs_is_prefix("gs://abc/"));
	assert_true(colfs_gcs_is_prefix("gs://abc/a/b/"));
	assert_false(colfs_gcs_is_prefix("gs://abc/a/b"));
	assert_false(colfs_gcs_is_prefix("gs://Abc/"));
	assert_false(colfs_gcs_is_prefix("s3://abc/"));
	/* the kinds: a prefix is a listing, an object is not; gs: typos are
	 * claimed (and named) rather than looked up as files */
	assert_string_equal(colfs_source_kind_of("gs://abc/ds/")->name,
			    "gcs-prefix");
	assert_true(colfs_source_kind_of("gs://abc/ds/")->listing);
	assert_string_equal(colfs_source_kind_of("gs://abc/ds")->name, "gcs");
	assert_string_equal(colfs_source_kind_of("gs:/abc/x")->name, "gcs");
	assert_false(colfs_source_is_local("gs://abc/x"));
	/* a name with user information: refused, and meanwhile hidden in
	 * argv and shown without it */
	char arg[] = "gs://id:" SECRET "@abc/x";
	char *shown = colfs_source_display(arg);
	assert_non_null(shown);
	assert_string_equal(shown, "gs://abc/x");
	free(shown);
	colfs_source_hide(arg);
	assert_null(strstr(arg, SECRET));
	assert_non_null(strstr(arg, "@abc/x"));
	shown = colfs_source_display("gs://abc/ds/");
	assert_string_equal(shown, "gs://abc/ds/");
	free(shown);
}

static void test_credentials(void **state)
{
	result r;

	(void)state;
	setenv("GCS_ACCESS_KEY_ID", "GOOGTS7C7FUP3AIRVJTE2BCD", 1);
	setenv("GCS_SECRET_ACCESS_KEY", SECRET, 1);
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_OK);
	assert_string_equal(r.t.aws_sigv4, "goog:goog:auto:storage");
	assert_string_equal(r.t.userpwd, "GOOGTS7C7FUP3AIRVJTE2BCD:" SECRET);
	assert_null(strstr(r.t.url, SECRET));
	assert_null(strstr(r.t.display, SECRET));
	done(&r);
	/* an HMAC key wins over GOOGLE_APPLICATION_CREDENTIALS */
	setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/sa.json", 1);
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_OK);
	assert_non_null(r.t.userpwd);
	done(&r);
	unsetenv("GCS_SECRET_ACCESS_KEY");
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_ECORRUPT);
	assert_non_null(strstr(r.why, "GCS_SECRET_ACCESS_KEY is not"));
	done(&r);
	unsetenv("GCS_ACCESS_KEY_ID");
	setenv("GCS_SECRET_ACCESS_KEY", SECRET, 1);
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_ECORRUPT);
	assert_non_null(strstr(r.why, "GCS_ACCESS_KEY_ID is not"));
	done(&r);
	setenv("GCS_ACCESS_KEY_ID", "id:colon", 1);
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_ECORRUPT);
	assert_non_null(strstr(r.why, "contains ':'"));
	done(&r);
	setenv("GCS_ACCESS_KEY_ID", "id", 1);
	setenv("GCS_SECRET_ACCESS_KEY", SECRET "\n", 1);
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_ECORRUPT);
	assert_non_null(strstr(r.why, "control character"));
	done(&r);
	/* OAuth alone: refused by name, for an object and a listing */
	unsetenv("GCS_ACCESS_KEY_ID");
	unsetenv("GCS_SECRET_ACCESS_KEY");
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_EUNSUPPORTED);
	assert_non_null(strstr(r.why, "GOOGLE_APPLICATION_CREDENTIALS is set"));
	done(&r);
	target(&r, "gs://abc/ds/", NULL, true);
	assert_int_equal(r.st, COLFS_EUNSUPPORTED);
	done(&r);
	/* nothing: anonymous */
	unsetenv("GOOGLE_APPLICATION_CREDENTIALS");
	target(&r, "gs://abc/x", NULL, false);
	assert_int_equal(r.st, COLFS_OK);
	assert_null(r.t.userpwd);
	assert_null(r.t.aws_sigv4);
	done(&r);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, NULL)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_names),
		T(test_bad_names),
		T(test_endpoint_and_prefix),
		T(test_credentials),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

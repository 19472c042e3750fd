/* s3://bucket/key targets (formats/remote/s3.c): the URL (good forms,
 * bad buckets and keys, s3:/ typos), the request URL (AWS virtual host,
 * path style on -o s3_endpoint and for dotted buckets), the region order,
 * the credential order (environment over profile, profile selection,
 * missing and malformed files, unsupported kinds of profile) and
 * anonymous access.  Each test runs in a fresh HOME with every AWS
 * variable unset; no message may quote a secret. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/source.h"
#include "remote/remote.h"

/* Every secret of these tests holds this: no message may. */
#define SECRET "s3cr3t-XYZZY"
#define SECRET_KEY "wJalr" SECRET "EXAMPLEKEY"
#define TOKEN "FwoGZ" SECRET "token"

static const char *const aws_vars[] = {
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CONFIG_FILE",
	"AWS_SHARED_CREDENTIALS_FILE",
};

static char home[64];

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	strcpy(home, "/tmp/colfs-test-s3-XXXXXX");
	assert_non_null(mkdtemp(home));
	setenv("HOME", home, 1);
	for (size_t i = 0; i < sizeof aws_vars / sizeof *aws_vars; i++)
		unsetenv(aws_vars[i]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(home, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* HOME/REL with `text` (directories made). */
static void write_home_file(const char *rel, const char *text)
{
	char path[256];

	snprintf(path, sizeof path, "%s/.aws", home);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/%s", home, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

typedef struct result {
	colfs_status st;
	colfs_remote_target t;
	char why[512];
} result;

static void run(result *r, const char *url, const colfs_options *o)
{
	memset(r, 0, sizeof *r);
	r->st = colfs_s3_target(url, o, &r->t, r->why, sizeof r->why);
	assert_null(strstr(r->why, SECRET));
	if (r->st) {
		/* a failure leaves nothing behind */
		assert_null(r->t.url);
		assert_null(r->t.userpwd);
		assert_null(r->t.session_token);
	}
}

static void expect_ok(result *r, const char *url, const colfs_options *o)
{
	run(r, url, o);
	if (r->st)
		fail_msg("%s: %s", url, r->why);
	assert_non_null(r->t.url);
	assert_null(strstr(r->t.url, SECRET));
	assert_null(strstr(r->t.display, SECRET));
}

/* The call fails with `st` and a message holding `part`. */
static void expect_fail(const char *url, const colfs_options *o,
			colfs_status st, const char *part)
{
	result r;

	run(&r, url, o);
	if (r.st != st)
		fail_msg("%s: status %d (%s), expected %d", url, r.st, r.why,
			 st);
	if (!strstr(r.why, part))
		fail_msg("%s: message \"%s\" lacks \"%s\"", url, r.why, part);
	colfs_remote_target_clear(&r.t);
}

/* ---- URLs ---------------------------------------------------------- */

static void test_url_virtual_host(void **state)
{
	result r;

	(void)state;
	setenv("AWS_REGION", "eu-west-1", 1);
	expect_ok(&r, "s3://my-bucket-01/path/to/file.parquet", NULL);
	assert_string_equal(r.t.url, "https://my-bucket-01.s3.eu-west-1."
				     "amazonaws.com/path/to/file.parquet");
	assert_string_equal(r.t.display,
			    "s3://my-bucket-01/path/to/file.parquet");
	/* no credentials anywhere: anonymous, unsigned */
	assert_null(r.t.aws_sigv4);
	assert_null(r.t.userpwd);
	assert_null(r.t.session_token);
	assert_null(r.t.cafile);
	colfs_remote_target_clear(&r.t);
	assert_null(r.t.url);
	colfs_remote_target_clear(&r.t); /* twice is harmless */
	colfs_remote_target_clear(NULL);
}

static void test_url_key_encoding(void **state)
{
	result r;

	(void)state;
	/* each segment encoded, '/' kept, unreserved bytes as they are;
	 * '%', '?', '#', '+' and '=' are part of the key */
	expect_ok(&r, "s3://bkt/dir/a b+c%d?e#f=g~h_i.j-k/\xc3\xa9t\xc3\xa9"
		      "//x", NULL);
	assert_string_equal(r.t.url,
			    "https://bkt.s3.us-east-1.amazonaws.com/dir/"
			    "a%20b%2Bc%25d%3Fe%23f%3Dg~h_i.j-k/%C3%A9t%C3%A9"
			    "//x");
	colfs_remote_target_clear(&r.t);
	/* dots inside a segment are fine */
	expect_ok(&r, "s3://bkt/.hidden/a..b/...", NULL);
	assert_string_equal(r.t.url, "https://bkt.s3.us-east-1.amazonaws.com/"
				     ".hidden/a..b/...");
	colfs_remote_target_clear(&r.t);
}

static void test_url_dotted_bucket_and_china(void **state)
{
	result r;

	(void)state;
	/* a dotted bucket would not match the wildcard certificate */
	setenv("AWS_REGION", "ap-south-1", 1);
	expect_ok(&r, "s3://logs.example.com/k", NULL);
	assert_string_equal(r.t.url, "https://s3.ap-south-1.amazonaws.com/"
				     "logs.example.com/k");
	colfs_remote_target_clear(&r.t);
	setenv("AWS_REGION", "cn-north-1", 1);
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.url,
			    "https://bkt.s3.cn-north-1.amazonaws.com.cn/k");
	colfs_remote_target_clear(&r.t);
}

static void test_url_bad(void **state)
{
	char long_bucket[80], long_key[1100];

	(void)state;
	expect_fail("s3://bucket", NULL, COLFS_ECORRUPT, "no object key");
	expect_fail("s3://bucket/", NULL, COLFS_ECORRUPT, "no object key");
	expect_fail("s3:///key", NULL, COLFS_ECORRUPT,
		    "the bucket name is empty");
	expect_fail("s3://", NULL, COLFS_ECORRUPT, "the bucket name is empty");
	expect_fail("s3:/bucket/key", NULL, COLFS_ECORRUPT,
		    "not an S3 URL: write s3://BUCKET/KEY");
	expect_fail("s3:bucket/key", NULL, COLFS_ECORRUPT, "not an S3 URL");
	expect_fail("s3//bucket/key", NULL, COLFS_ECORRUPT, "not an S3 URL");
	expect_fail("S3://bucket/key", NULL, COLFS_ECORRUPT, "not an S3 URL");
	expect_fail("http://bucket/key", NULL, COLFS_ECORRUPT,
		    "not an S3 URL");
	expect_fail("s3://ab/key", NULL, COLFS_ECORRUPT, "3 to 63");
	memset(long_bucket, 'a', 64);
	strcpy(long_bucket + 64, "/k");
	char url[1200];
	snprintf(url, sizeof url, "s3://%s", long_bucket);
	expect_fail(url, NULL, COLFS_ECORRUPT, "3 to 63");
	expect_fail("s3://My-Bucket/key", NULL, COLFS_ECORRUPT,
		    "only lowercase letters");
	expect_fail("s3://my_bucket/key", NULL, COLFS_ECORRUPT,
		    "only lowercase letters");
	expect_fail("s3://-bucket/key", NULL, COLFS_ECORRUPT,
		    "begins and ends");
	expect_fail("s3://bucket./key", NULL, COLFS_ECORRUPT,
		    "begins and ends");
	expect_fail("s3://a..b/key", NULL, COLFS_ECORRUPT, "adjacent");
	expect_fail("s3://192.168.5.4/key", NULL, COLFS_ECORRUPT,
		    "IP address");
	expect_fail("s3://xn--bucket/key", NULL, COLFS_ECORRUPT, "xn--");
	expect_fail("s3://sthree-x/key", NULL, COLFS_ECORRUPT, "begin with");
	expect_fail("s3://ap-s3alias/key", NULL, COLFS_ECORRUPT, "-s3alias");
	expect_fail("s3://b--usw2-az1--x-s3/key", NULL, COLFS_ECORRUPT,
		    "directory");
	/* user information may be a secret: refused, never echoed */
	expect_fail("s3://AKID:" SECRET_KEY "@bucket/key", NULL,
		    COLFS_ECORRUPT, "user information");
	expect_fail("s3:/AKID:" SECRET_KEY "@bucket/key", NULL,
		    COLFS_ECORRUPT, "s3:...: not an S3 URL");
	expect_fail("s3:///AKID:" SECRET_KEY "@bucket/key", NULL,
		    COLFS_ECORRUPT, "the bucket name is empty");
	expect_fail("s3://bucket/a/../b", NULL, COLFS_EUNSUPPORTED,
		    "'.' or '..' segment");
	expect_fail("s3://bucket/./b", NULL, COLFS_EUNSUPPORTED, "segment");
	expect_fail("s3://bucket/b/..", NULL, COLFS_EUNSUPPORTED, "segment");
	expect_fail("s3://bucket/a\nb", NULL, COLFS_ECORRUPT,
		    "control character");
	memset(long_key, 'k', 1025);
	long_key[1025] = '\0';
	snprintf(url, sizeof url, "s3://bucket/%s", long_key);
	expect_fail(url, NULL, COLFS_ECORRUPT, "the key has 1025 bytes");
	long_key[1024] = '\0';
	snprintf(url, sizeof url, "s3://bucket/%s", long_key);
	result r;
	expect_ok(&r, url, NULL);
	colfs_remote_target_clear(&r.t);
}

/* ---- -o s3_endpoint ------------------------------------------------ */

static void test_endpoint_path_style(void **state)
{
	colfs_options o = {0};
	result r;

	(void)state;
	o.s3_endpoint = "http://127.0.0.1:9000";
	o.cafile = "/etc/ssl/my-ca.pem";
	expect_ok(&r, "s3://bkt/dir/a b.orc", &o);
	assert_string_equal(r.t.url, "http://127.0.0.1:9000/bkt/dir/a%20b.orc");
	assert_string_equal(r.t.display, "s3://bkt/dir/a b.orc");
	assert_string_equal(r.t.cafile, "/etc/ssl/my-ca.pem");
	colfs_remote_target_clear(&r.t);
	/* trailing slashes go; a path prefix stays; dotted buckets too */
	o.s3_endpoint = "https://minio.example:443/s3//";
	expect_ok(&r, "s3://my.bkt/k", &o);
	assert_string_equal(r.t.url, "https://minio.example:443/s3/my.bkt/k");
	colfs_remote_target_clear(&r.t);
	o.s3_endpoint = "http://h/";
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.url, "http://h/bkt/k");
	colfs_remote_target_clear(&r.t);

	o.s3_endpoint = "http://u:" SECRET_KEY "@h:9000";
	expect_fail("s3://bkt/k", &o, COLFS_ECORRUPT, "user information");
	o.s3_endpoint = "http://h:9000/?x=1";
	expect_fail("s3://bkt/k", &o, COLFS_ECORRUPT, "query or a fragment");
	o.s3_endpoint = "http:///bkt";
	expect_fail("s3://bkt/k", &o, COLFS_ECORRUPT, "has no host");
	o.s3_endpoint = "ftp:host";
	expect_fail("s3://bkt/k", &o, COLFS_ECORRUPT,
		    "not an http:// or https:// URL");
}

/* ---- region -------------------------------------------------------- */

static void test_region_order(void **state)
{
	colfs_options o = {.s3_endpoint = "http://127.0.0.1:1"};
	result r;

	(void)state;
	setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
	setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY, 1);
	/* nothing: us-east-1 */
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:us-east-1:s3");
	colfs_remote_target_clear(&r.t);
	/* the default profile's region in ~/.aws/config */
	write_home_file(".aws/config",
			"[default]\nregion = eu-central-1\n"
			"[profile other]\nregion=ap-northeast-2\n");
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:eu-central-1:s3");
	colfs_remote_target_clear(&r.t);
	/* AWS_PROFILE selects [profile NAME] */
	setenv("AWS_PROFILE", "other", 1);
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:ap-northeast-2:s3");
	colfs_remote_target_clear(&r.t);
	/* AWS_DEFAULT_REGION over the profile */
	setenv("AWS_DEFAULT_REGION", "sa-east-1", 1);
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:sa-east-1:s3");
	colfs_remote_target_clear(&r.t);
	/* AWS_REGION over AWS_DEFAULT_REGION */
	setenv("AWS_REGION", "us-west-2", 1);
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:us-west-2:s3");
	colfs_remote_target_clear(&r.t);
	/* an empty variable is not set */
	setenv("AWS_REGION", "", 1);
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:sa-east-1:s3");
	colfs_remote_target_clear(&r.t);
	/* AWS_CONFIG_FILE names another file */
	unsetenv("AWS_REGION");
	unsetenv("AWS_DEFAULT_REGION");
	write_home_file("cfg", "[profile other]\n  region :  me-south-1  \n");
	char path[128];
	snprintf(path, sizeof path, "%s/cfg", home);
	setenv("AWS_CONFIG_FILE", path, 1);
	expect_ok(&r, "s3://bkt/k", &o);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:me-south-1:s3");
	colfs_remote_target_clear(&r.t);
	/* the region goes into a host name and the signature scope */
	setenv("AWS_REGION", "EU_WEST:1", 1);
	expect_fail("s3://bkt/k", &o, COLFS_ECORRUPT,
		    "AWS_REGION is not a region name");
	unsetenv("AWS_REGION");
	write_home_file("cfg", "[profile other]\nregion = eu/west\n");
	expect_fail("s3://bkt/k", &o, COLFS_ECORRUPT,
		    "the region of profile 'other' is not a region name");
	/* a named config file that is missing */
	setenv("AWS_CONFIG_FILE", "/nonexistent/colfs/config", 1);
	expect_fail("s3://bkt/k", &o, COLFS_EIO,
		    "/nonexistent/colfs/config: No such file");
}

/* ---- credentials --------------------------------------------------- */

static const char creds_file[] =
	"# a comment\n"
	"; another\n"
	"\n"
	"[default]\n"
	"aws_access_key_id=AKIDDEFAULT\n"
	"aws_secret_access_key = default-" SECRET "\n"
	"\n"
	"[work]\r\n"
	"  AWS_Access_Key_Id   =   AKIDWORK  \r\n"
	"aws_secret_access_key: work-" SECRET "\r\n"
	"aws_session_token = " TOKEN "\r\n"
	"s3 =\n"
	"    region = not-this-one\n";

static void test_credentials_env(void **state)
{
	result r;

	(void)state;
	write_home_file(".aws/credentials", creds_file);
	setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY, 1);
	/* the environment over the profile */
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.userpwd, "AKIDENV:" SECRET_KEY);
	assert_null(r.t.session_token);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:us-east-1:s3");
	colfs_remote_target_clear(&r.t);
	assert_null(r.t.userpwd);
	setenv("AWS_SESSION_TOKEN", TOKEN, 1);
	setenv("AWS_PROFILE", "work", 1);
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.userpwd, "AKIDENV:" SECRET_KEY);
	assert_string_equal(r.t.session_token, TOKEN);
	colfs_remote_target_clear(&r.t);
	/* half a pair is an error, not a fall back */
	unsetenv("AWS_SECRET_ACCESS_KEY");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is "
		    "not");
	unsetenv("AWS_ACCESS_KEY_ID");
	setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY, 1);
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is "
		    "not");
	setenv("AWS_ACCESS_KEY_ID", "AK:ID", 1);
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT, "contains ':'");
	setenv("AWS_ACCESS_KEY_ID", "AKID", 1);
	setenv("AWS_SESSION_TOKEN", "tok\r\nX-Injected: " SECRET, 1);
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT, "control character");
}

static void test_credentials_profile(void **state)
{
	result r;

	(void)state;
	write_home_file(".aws/credentials", creds_file);
	/* the default profile */
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.userpwd, "AKIDDEFAULT:default-" SECRET);
	assert_null(r.t.session_token);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:us-east-1:s3");
	colfs_remote_target_clear(&r.t);
	/* AWS_PROFILE: spaces, ':' as the delimiter, CRLF, the key names'
	 * case, a nested block */
	setenv("AWS_PROFILE", "work", 1);
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.userpwd, "AKIDWORK:work-" SECRET);
	assert_string_equal(r.t.session_token, TOKEN);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:us-east-1:s3");
	colfs_remote_target_clear(&r.t);
	/* AWS_SHARED_CREDENTIALS_FILE names another file */
	write_home_file("creds2", "[work]\naws_access_key_id = AKID2\n"
				  "aws_secret_access_key = two-" SECRET "\n");
	char path[128];
	snprintf(path, sizeof path, "%s/creds2", home);
	setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.userpwd, "AKID2:two-" SECRET);
	assert_null(r.t.session_token);
	colfs_remote_target_clear(&r.t);
	/* a profile in neither file */
	setenv("AWS_PROFILE", "nosuch", 1);
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "AWS_PROFILE names profile 'nosuch', which is in neither");
	/* a named file that is missing */
	setenv("AWS_PROFILE", "work", 1);
	setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/colfs/creds", 1);
	expect_fail("s3://bkt/k", NULL, COLFS_EIO,
		    "/nonexistent/colfs/creds: No such file");
	setenv("AWS_SHARED_CREDENTIALS_FILE", home, 1);
	expect_fail("s3://bkt/k", NULL, COLFS_EIO, "not a regular file");
}

static void test_credentials_config_file(void **state)
{
	result r;

	(void)state;
	/* no credentials file: the keys of the config file's profile */
	write_home_file(".aws/config",
			"[profile cfg]\nregion = eu-north-1\n"
			"aws_access_key_id = AKIDCFG\n"
			"aws_secret_access_key = cfg-" SECRET "\n");
	setenv("AWS_PROFILE", "cfg", 1);
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.userpwd, "AKIDCFG:cfg-" SECRET);
	assert_string_equal(r.t.aws_sigv4, "aws:amz:eu-north-1:s3");
	assert_string_equal(r.t.url,
			    "https://bkt.s3.eu-north-1.amazonaws.com/k");
	colfs_remote_target_clear(&r.t);
	/* a profile that is only in the config file, with no keys:
	 * anonymous */
	write_home_file(".aws/config", "[profile cfg]\nregion = eu-north-1\n");
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_null(r.t.aws_sigv4);
	assert_null(r.t.userpwd);
	colfs_remote_target_clear(&r.t);
	/* an empty section still names the profile */
	write_home_file(".aws/config", "[profile cfg]\n");
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_null(r.t.aws_sigv4);
	colfs_remote_target_clear(&r.t);
	/* roles, SSO and processes are refused by name */
	write_home_file(".aws/config",
			"[profile cfg]\nrole_arn = arn:aws:iam::1:role/r\n"
			"source_profile = default\n");
	expect_fail("s3://bkt/k", NULL, COLFS_EUNSUPPORTED,
		    "profile 'cfg' gets its credentials through role_arn, "
		    "which colfs does not support");
	write_home_file(".aws/config",
			"[profile cfg]\nsso_session = corp\n");
	expect_fail("s3://bkt/k", NULL, COLFS_EUNSUPPORTED,
		    "through sso_session");
	/* [profile default] serves as [default] too */
	unsetenv("AWS_PROFILE");
	write_home_file(".aws/config",
			"[profile default]\nregion = us-east-2\n");
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_string_equal(r.t.url, "https://bkt.s3.us-east-2.amazonaws.com/k");
	colfs_remote_target_clear(&r.t);
	/* [default] of the config file is not [profile NAME] of another */
	setenv("AWS_PROFILE", "default2", 1);
	write_home_file(".aws/config", "[default2]\nregion = us-east-2\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "AWS_PROFILE names profile 'default2'");
}

static void test_credentials_malformed(void **state)
{
	(void)state;
	/* the message names the file and the line, never the text */
	write_home_file(".aws/credentials",
			"[default]\naws_access_key_id = AKID\n"
			"aws_secret_access_key " SECRET "\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "/.aws/credentials:3: expected '[section]' or "
		    "'key = value'");
	write_home_file(".aws/credentials", "[default\naws_access_key_id=A\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "credentials:1: a section header without its ']'");
	write_home_file(".aws/credentials", "[ ]\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "credentials:1: a section without a name");
	write_home_file(".aws/credentials",
			"aws_secret_access_key = " SECRET "\n[default]\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "credentials:1: a setting before any [section]");
	write_home_file(".aws/credentials", "[default]\n = " SECRET "\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "credentials:2: a setting without a name");
	/* half a pair */
	write_home_file(".aws/credentials",
			"[default]\naws_access_key_id = AKID\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "profile 'default' has aws_access_key_id but no "
		    "aws_secret_access_key");
	write_home_file(".aws/credentials",
			"[default]\naws_secret_access_key = " SECRET "\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT,
		    "has aws_secret_access_key but no aws_access_key_id");
	/* a malformed config file, read for the region */
	write_home_file(".aws/credentials", "[other]\n");
	write_home_file(".aws/config", "[default]\nregion\n");
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT, "config:2: expected");
	/* a binary file */
	write_home_file(".aws/config", "");
	char path[128];
	snprintf(path, sizeof path, "%s/.aws/config", home);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fwrite("[default]\n\0x=1\n", 1, 15, f);
	fclose(f);
	expect_fail("s3://bkt/k", NULL, COLFS_ECORRUPT, "a NUL byte");
}

static void test_anonymous(void **state)
{
	result r;

	(void)state;
	/* no HOME at all, no variables */
	unsetenv("HOME");
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_null(r.t.aws_sigv4);
	assert_null(r.t.userpwd);
	assert_null(r.t.session_token);
	colfs_remote_target_clear(&r.t);
	setenv("HOME", home, 1);
	/* a credentials file without the profile */
	write_home_file(".aws/credentials",
			"[other]\naws_access_key_id = AKID\n"
			"aws_secret_access_key = " SECRET "\n");
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_null(r.t.aws_sigv4);
	assert_null(r.t.userpwd);
	colfs_remote_target_clear(&r.t);
	/* the session token alone signs nothing */
	setenv("AWS_SESSION_TOKEN", TOKEN, 1);
	expect_ok(&r, "s3://bkt/k", NULL);
	assert_null(r.t.session_token);
	assert_null(r.t.aws_sigv4);
	colfs_remote_target_clear(&r.t);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_url_virtual_host),
		T(test_url_key_encoding),
		T(test_url_dotted_bucket_and_china),
		T(test_url_bad),
		T(test_endpoint_path_style),
		T(test_region_order),
		T(test_credentials_env),
		T(test_credentials_profile),
		T(test_credentials_config_file),
		T(test_credentials_malformed),
		T(test_anonymous),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

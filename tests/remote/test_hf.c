/* hf:// names (formats/remote/hf.c), without a request: the forms a name
 * takes (datasets/, models/ or none, spaces/; the revision plain,
 * percent-encoded, "~parquet", refs/convert/X and refs/pr/N with their
 * slashes; a folder), the URLs made of them (the Hub's resolve/ and tree
 * API, each part percent-encoded), names refused, the endpoint's order
 * (-o hf_endpoint, HF_ENDPOINT, the Hub) and the token's (HF_TOKEN,
 * HUGGING_FACE_HUB_TOKEN, HF_TOKEN_PATH, $HF_HOME/token,
 * $XDG_CACHE_HOME/huggingface/token, ~/.cache/huggingface/token), the
 * token cleaned as huggingface_hub cleans it, one a header cannot carry
 * refused without being quoted.  Each test
 * runs with every variable of these unset and HOME a fresh folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/source.h"
#include "remote/remote.h"

#define SECRET "hf_XYZZYsecret"

static const char *const hf_vars[] = {
	"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HOME",
	"XDG_CACHE_HOME", "HF_ENDPOINT",
};

static char home[64];

static void put_file(const char *path, const char *text)
{
	char dir[256];
	FILE *f;

	snprintf(dir, sizeof dir, "%s", path);
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof hf_vars / sizeof *hf_vars; i++)
		unsetenv(hf_vars[i]);
	snprintf(home, sizeof home, "/tmp/colfs-test-hf.XXXXXX");
	if (!mkdtemp(home))
		return -1;
	setenv("HOME", home, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
	return system(cmd) == 0 ? 0 : -1;
}

/* The resolve URL and the tree API's of `name` on the default Hub. */
static void urls(const char *name, const colfs_options *o,
		 const char *resolve, const char *api)
{
	colfs_hf_repo r;
	char why[512] = "";
	char *u;

	assert_int_equal(colfs_hf_repo_open(name, o, &r, why, sizeof why),
			 COLFS_OK);
	u = colfs_hf_url(&r, false, r.path);
	assert_non_null(u);
	assert_string_equal(u, resolve);
	free(u);
	u = colfs_hf_url(&r, true, r.path);
	assert_non_null(u);
	assert_string_equal(u, api);
	free(u);
	colfs_hf_repo_clear(&r);
}

static void test_names(void **state)
{
	(void)state;
	urls("hf://datasets/o/n/data/x.parquet", NULL,
	     "https://huggingface.co/datasets/o/n/resolve/main/data/x.parquet",
	     "https://huggingface.co/api/datasets/o/n/tree/main/data/x.parquet");
	urls("hf://models/o/n/w.parquet", NULL,
	     "https://huggingface.co/o/n/resolve/main/w.parquet",
	     "https://huggingface.co/api/models/o/n/tree/main/w.parquet");
	urls("hf://o/n/w.parquet", NULL,
	     "https://huggingface.co/o/n/resolve/main/w.parquet",
	     "https://huggingface.co/api/models/o/n/tree/main/w.parquet");
	urls("hf://spaces/o/my-space.v2@v1.0/app/d.parquet", NULL,
	     "https://huggingface.co/spaces/o/my-space.v2/resolve/v1.0/app/d.parquet",
	     "https://huggingface.co/api/spaces/o/my-space.v2/tree/v1.0/app/d.parquet");
	/* the revision: encoded in one segment, however it was written */
	urls("hf://datasets/o/n@~parquet/default/train/0000.parquet", NULL,
	     "https://huggingface.co/datasets/o/n/resolve/refs%2Fconvert%2Fparquet/default/train/0000.parquet",
	     "https://huggingface.co/api/datasets/o/n/tree/refs%2Fconvert%2Fparquet/default/train/0000.parquet");
	urls("hf://datasets/o/n@refs%2Fconvert%2Fparquet/a.parquet", NULL,
	     "https://huggingface.co/datasets/o/n/resolve/refs%2Fconvert%2Fparquet/a.parquet",
	     "https://huggingface.co/api/datasets/o/n/tree/refs%2Fconvert%2Fparquet/a.parquet");
	urls("hf://datasets/o/n@refs/convert/parquet/a.parquet", NULL,
	     "https://huggingface.co/datasets/o/n/resolve/refs%2Fconvert%2Fparquet/a.parquet",
	     "https://huggingface.co/api/datasets/o/n/tree/refs%2Fconvert%2Fparquet/a.parquet");
	urls("hf://datasets/o/n@refs/pr/12/a.parquet", NULL,
	     "https://huggingface.co/datasets/o/n/resolve/refs%2Fpr%2F12/a.parquet",
	     "https://huggingface.co/api/datasets/o/n/tree/refs%2Fpr%2F12/a.parquet");
	/* the path: each byte but the unreserved and '/' encoded */
	urls("hf://datasets/o/n/a b+c%d/\xc3\xa9=1.parquet", NULL,
	     "https://huggingface.co/datasets/o/n/resolve/main/a%20b%2Bc%25d/%C3%A9%3D1.parquet",
	     "https://huggingface.co/api/datasets/o/n/tree/main/a%20b%2Bc%25d/%C3%A9%3D1.parquet");
}

static void test_folders(void **state)
{
	(void)state;
	assert_true(colfs_hf_is_prefix("hf://datasets/o/n"));
	assert_true(colfs_hf_is_prefix("hf://datasets/o/n/"));
	assert_true(colfs_hf_is_prefix("hf://datasets/o/n@v2"));
	assert_true(colfs_hf_is_prefix("hf://datasets/o/n/data/"));
	assert_true(colfs_hf_is_prefix("hf://o/n/"));
	assert_false(colfs_hf_is_prefix("hf://datasets/o/n/data"));
	assert_false(colfs_hf_is_prefix("hf://datasets/o/n/x.parquet"));
	assert_false(colfs_hf_is_prefix("hf://datasets/o")); /* refused */
	assert_true(colfs_hf_claims("hf:datasets/o/n/x")); /* to be named */
	assert_false(colfs_hf_claims("https://huggingface.co/x"));
}

static void refused(const char *name, colfs_status want, const char *says)
{
	colfs_hf_repo r;
	char why[512] = "";

	assert_int_equal(colfs_hf_repo_open(name, NULL, &r, why, sizeof why),
			 want);
	if (!strstr(why, says))
		fail_msg("%s: \"%s\" does not say \"%s\"", name, why, says);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"hf://", "hf://datasets/", "hf://datasets/o", "hf://datasets/o/",
		"hf://datasets//n/x", "hf://datasets/o/n@/x",
		"hf://datasets/o/n@a%00b/x", "hf://datasets/o/n/../m/x",
		"hf://datasets/o/n/./x", "hf://datasets/o/n/a//x",
		"hf://datasets/o n/n/x", "hf://datasets/o/n:x/y",
		"hf://user:" SECRET "@datasets/o/n/x", "hf://datasets/../n/x",
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		refused(bad[i], COLFS_ECORRUPT, "not an hf:// name");
	refused("hf:datasets/o/n/x", COLFS_EUNSUPPORTED, "not an hf:// name");
	/* user information is not repeated */
	refused("hf://user:" SECRET "@datasets/o/n/x", COLFS_ECORRUPT,
		"hf://...: not an hf:// name");
	refused("hf://" SECRET "@o/n/x", COLFS_ECORRUPT,
		"hf://...: not an hf:// name");
	refused("hf://datasets/o/n/\x01x", COLFS_ECORRUPT,
		"hf://...: a name may not hold control characters");
}

static void endpoint(const colfs_options *o, const char *want)
{
	colfs_hf_repo r;
	char why[512] = "";

	assert_int_equal(colfs_hf_repo_open("hf://datasets/o/n/x", o, &r, why,
					    sizeof why),
			 COLFS_OK);
	assert_string_equal(r.endpoint, want);
	colfs_hf_repo_clear(&r);
}

static void test_endpoint(void **state)
{
	colfs_options o = {0};
	colfs_hf_repo r;
	char why[512] = "";

	(void)state;
	endpoint(NULL, "https://huggingface.co");
	setenv("HF_ENDPOINT", "http://127.0.0.1:9/", 1);
	endpoint(NULL, "http://127.0.0.1:9");
	o.hf_endpoint = "http://127.0.0.1:8/hub//";
	endpoint(&o, "http://127.0.0.1:8/hub");
	setenv("HF_ENDPOINT", "127.0.0.1", 1);
	assert_int_equal(colfs_hf_repo_open("hf://datasets/o/n/x", NULL, &r,
					    why, sizeof why),
			 COLFS_ECORRUPT);
	assert_non_null(strstr(why, "HF_ENDPOINT is not an http://"));
	setenv("HF_ENDPOINT", "http://u:" SECRET "@h", 1);
	assert_int_equal(colfs_hf_repo_open("hf://datasets/o/n/x", NULL, &r,
					    why, sizeof why),
			 COLFS_ECORRUPT);
	assert_null(strstr(why, SECRET));
}

/* The token found, and where it came from. */
static void token(const char *want, const char *from)
{
	colfs_hf_repo r;
	char why[512] = "";

	assert_int_equal(colfs_hf_repo_open("hf://datasets/o/n/x", NULL, &r,
					    why, sizeof why),
			 COLFS_OK);
	if (!want) {
		assert_null(r.token);
	} else {
		assert_non_null(r.token);
		assert_string_equal(r.token, want);
		assert_non_null(strstr(r.token_from, from));
	}
	colfs_hf_repo_clear(&r);
}

static void test_token(void **state)
{
	char path[256];
	colfs_hf_repo r;
	char why[512] = "";

	(void)state;
	token(NULL, NULL);
	snprintf(path, sizeof path, "%s/.cache/huggingface/token", home);
	put_file(path, SECRET "-home\n");
	token(SECRET "-home", "/.cache/huggingface/token");
	setenv("XDG_CACHE_HOME", home, 1);
	snprintf(path, sizeof path, "%s/huggingface/token", home);
	put_file(path, " \t" SECRET "-xdg \r\n");
	token(SECRET "-xdg", "huggingface/token");
	snprintf(path, sizeof path, "%s/hfhome/token", home);
	put_file(path, SECRET "-hfhome");
	snprintf(path, sizeof path, "%s/hfhome", home);
	setenv("HF_HOME", path, 1);
	token(SECRET "-hfhome", "hfhome/token");
	snprintf(path, sizeof path, "%s/elsewhere", home);
	put_file(path, SECRET "-path\n");
	setenv("HF_TOKEN_PATH", path, 1);
	token(SECRET "-path", "elsewhere");
	setenv("HUGGING_FACE_HUB_TOKEN", SECRET "-old", 1);
	token(SECRET "-old", "HUGGING_FACE_HUB_TOKEN");
	setenv("HF_TOKEN", SECRET "-env", 1);
	token(SECRET "-env", "HF_TOKEN");
	/* a token a header cannot carry: refused, named, not quoted */
	setenv("HF_TOKEN", SECRET "\r\nX-Other: y", 1);
	assert_int_equal(colfs_hf_repo_open("hf://datasets/o/n/x", NULL, &r,
					    why, sizeof why),
			 COLFS_ECORRUPT);
	assert_non_null(strstr(why, "the token from HF_TOKEN holds a space"));
	assert_null(strstr(why, SECRET));
}

static void test_token_inner_blank(void **state)
{
	char path[256];
	colfs_hf_repo r;
	char why[512] = "";

	(void)state;
	/* huggingface_hub drops CR and LF and trims the blanks around the
	 * token; a blank inside cannot go into a header: refused, not
	 * quoted; a variable of blanks only is no token */
	setenv("HF_TOKEN", " \n ", 1);
	token(NULL, NULL);
	snprintf(path, sizeof path, "%s/t", home);
	put_file(path, SECRET " second\n");
	setenv("HF_TOKEN_PATH", path, 1);
	assert_int_equal(colfs_hf_repo_open("hf://datasets/o/n/x", NULL, &r,
					    why, sizeof why),
			 COLFS_ECORRUPT);
	assert_non_null(strstr(why, "holds a space or a control character"));
	assert_null(strstr(why, SECRET));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_names),    T(test_folders), T(test_refused),
		T(test_endpoint), T(test_token),   T(test_token_inner_blank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

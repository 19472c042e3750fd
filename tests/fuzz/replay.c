/* tests/fuzz: the replay driver.  Runs a fuzz target's
 * LLVMFuzzerTestOneInput on every file of the given directories (and on
 * given files), without libFuzzer, so that the seed corpus and every
 * saved crash run in the ordinary test build.
 *
 *	replay-<target> [--skip-list FILE] DIR|FILE...
 *
 * Files are run in name order.  A missing directory is skipped (a target
 * may have no saved crashes yet).  --skip-list names a file of known,
 * unfixed crashes (tests/fuzz/KNOWN-CRASHES.md): any input whose file
 * name appears in it between backquotes is not run and is reported as
 * skipped.  An input that trips an invariant or a sanitizer aborts the
 * run, which is the test's failure; the name of the input is printed
 * first. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *skip_text;

static int skipped(const char *path)
{
	const char *base = strrchr(path, '/');
	char pat[512];

	if (!skip_text)
		return 0;
	base = base ? base + 1 : path;
	snprintf(pat, sizeof(pat), "`%s`", base);
	return strstr(skip_text, pat) != NULL;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (n == cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int run_file(const char *path, size_t *runs, size_t *skips)
{
	size_t len;
	char *data;
	uint8_t *exact;

	if (skipped(path)) {
		printf("skip (known crash): %s\n", path);
		(*skips)++;
		return 0;
	}
	data = slurp(path, &len);
	if (!data) {
		fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* an exact-size copy, so that ASan sees reads past the end */
	exact = malloc(len ? len : 1);
	if (!exact) {
		free(data);
		return 1;
	}
	memcpy(exact, data, len);
	free(data);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*runs)++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *runs, size_t *skips)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		printf("no directory %s: nothing to replay there\n", dir);
		return 0;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names) {
				closedir(d);
				return 1;
			}
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc |= run_file(path, runs, skips);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t runs = 0, skips = 0;
	struct timespec t0, t1;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (!strcmp(argv[i], "--skip-list") && i + 1 < argc) {
			size_t len;

			skip_text = slurp(argv[++i], &len);
			continue;
		}
		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			rc |= run_file(argv[i], &runs, &skips);
		else
			rc |= run_dir(argv[i], &runs, &skips);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%zu inputs replayed, %zu known crashes skipped, %.1f s\n",
	       runs, skips,
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return rc;
}

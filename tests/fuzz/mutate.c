/* tests/fuzz: mutation tests over whole files.
 *
 *	mutate [options] FILE|DIR...
 *
 * For every Parquet, ORC, CFile or Arrow IPC (file format) file given (directories are searched
 * recursively; other files are ignored), apply a deterministic set of
 * mutations:
 *   - bit flips at positions in each region: head (first 64 bytes),
 *     middle, footer (last 1 KiB) and the last 64 bytes;
 *   - truncations at structural boundaries: the footer's start (from the
 *     format's tail), up to 12 region starts and ends of the file's own
 *     `layout` document (column chunks, stripes, blocks, index blocks,
 *     footers), the magic, half the file, a few bytes off the end;
 *   - 4-byte fields near the end (the footer / postscript length fields
 *     and positions inside the footer) set to 0, 0xFFFFFFFF and
 *     0x7FFFFFFF;
 * then open the result through colfs.h (probing by magic), walk every
 * node and read every byte (bounded as in fuzz_walk.h).  Each case runs
 * in a forked child with an alarm() time limit and an RLIMIT_AS memory
 * limit (not under AddressSanitizer, whose shadow memory needs the
 * address space); a crash, an invariant failure, a hang or running out of
 * the memory limit is reported with the file, the mutation and the case
 * number, and makes the run fail.
 *
 * Options:
 *   --jobs N        cases run at once (default: online CPUs)
 *   --timeout S     seconds per case (default 30)
 *   --mem MB        address-space limit per case (default 1024)
 *   --max-size B    skip files larger than B bytes (default 1 MiB)
 *   --every K       take every K-th file (in name order) only (default 1)
 *   --list          print each case as it finishes
 *   --mount COLFS   run each case through a FUSE mount instead: write the
 *                   mutant to a temporary file, mount it with the daemon
 *                   COLFS (`colfs -f`), walk the mount (every directory,
 *                   every file read, bounded as in fuzz_walk.h), check
 *                   that the daemon is still alive and within --mem MiB
 *                   of peak resident memory (not under ASan), unmount
 *                   with fusermount3 -u and check that the daemon exits
 *                   with status 0.  A daemon that refuses the file (exit
 *                   1 before mounting, with its one-line reason) passes.
 *   --sample K      run every K-th case only (counted over all files;
 *                   default 1)
 * Exit: 0 all cases passed, 1 a case failed, 77 nothing to test. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/cursor.h"
#include "fuzz_walk.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static unsigned opt_jobs, opt_timeout = 30, opt_every = 1, opt_sample = 1;
static unsigned long opt_mem = 1024, opt_max_size = 1u << 20;
static bool opt_list;
static const char *opt_mount;   /* the colfs daemon, for --mount */
static size_t n_planned;        /* cases planned so far, for --sample */
static size_t n_refused;        /* --mount: mutants the daemon refused */
static unsigned long *peak_kb;  /* --mount: largest daemon peak (shared) */

typedef struct mcase {
	char what[96];          /* the mutation, in words */
	size_t len;             /* bytes of the mutated file */
	enum { M_FLIP, M_TRUNC, M_SET32 } kind;
	size_t pos;
	uint32_t value;         /* M_FLIP: bit; M_SET32: the value */
} mcase;

typedef struct running {
	pid_t pid;
	const char *file;
	mcase c;
	struct timespec t0;
} running;

static running *slots;
static size_t n_cases, n_failed, n_files, n_skipped;
static double slowest;
static char slowest_what[512];

/* --- choosing the mutations ------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

enum fmt { F_NONE, F_PARQUET, F_ORC, F_CFILE, F_ARROW };

static enum fmt sniff(const uint8_t *p, size_t n)
{
	if (n >= 4 && (!memcmp(p, "PAR1", 4) || !memcmp(p, "PARE", 4)))
		return F_PARQUET;
	if (n >= 3 && !memcmp(p, "ORC", 3))
		return F_ORC;
	if (n >= 8 && (!memcmp(p, "kuducfil", 8) || !memcmp(p, "kuducfl2", 8)))
		return F_CFILE;
	if (n >= 6 && !memcmp(p, "ARROW1", 6))
		return F_ARROW;
	return F_NONE;
}

/* Where the footer (the metadata everything hangs from) starts, from the
 * format's tail; 0 when the tail does not say. */
static size_t footer_start(enum fmt f, const uint8_t *p, size_t n)
{
	uint64_t len;

	switch (f) {
	case F_PARQUET:   /* FileMetaData, u32 length, "PAR1" */
		if (n < 12)
			return 0;
		len = colfs_le32(p + n - 8);
		return len + 8 <= n ? n - 8 - (size_t)len : 0;
	case F_ORC:       /* ... PostScript, u8 length */
		len = p[n - 1];
		return len + 1 <= n ? n - 1 - (size_t)len : 0;
	case F_CFILE:     /* footer PB, u32 length, magic */
		if (n < 12)
			return 0;
		len = colfs_le32(p + n - 12);
		return len + 12 <= n ? n - 12 - (size_t)len : 0;
	case F_ARROW:     /* footer flatbuffer, u32 length, "ARROW1" */
		if (n < 18)
			return 0;
		len = colfs_le32(p + n - 10);
		return len + 10 <= n ? n - 10 - (size_t)len : 0;
	default:
		return 0;
	}
}

/* The structural boundaries of the original file: the starts and ends of
 * the regions its `layout` document lists (chunks, pages' chunks, stripes,
 * blocks, index blocks, footers), read in a child (the original may be a
 * damaged corpus file too).  Up to `cap`, spread over the file. */
static size_t layout_cuts(const uint8_t *data, size_t n, size_t *cuts,
			  size_t cap)
{
	static char text[1 << 18];
	size_t len = 0, all_n = 0, k = 0;
	size_t *all;
	int pfd[2], status;
	pid_t pid;
	char *line;

	if (pipe(pfd))
		return 0;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return 0;
	}
	if (pid == 0) {
		colfs_tree *t;
		colfs_node *lay;
		colfs_handle *h;
		size_t got = 0;

		close(pfd[0]);
		alarm(opt_timeout);
		if (fuzz_open_bytes(data, n, NULL, &t) == COLFS_OK &&
		    colfs_tree_resolve(t, "layout", &lay) == COLFS_OK &&
		    colfs_node_open(t, lay, &h) == COLFS_OK) {
			if (colfs_handle_read(h, 0, sizeof(text) - 1, text,
					      &got) == COLFS_OK &&
			    write(pfd[1], text, got) != (ssize_t)got)
				_exit(1);
		}
		_exit(0);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t r = read(pfd[0], text + len, sizeof(text) - 1 - len);

		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 0;   /* the walk cases will report what went wrong */
	text[len] = '\0';
	all = malloc(2 * (len / 4 + 1) * sizeof(*all));
	if (!all)
		return 0;
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long off, l;

		if (sscanf(line, "%llu %llu", &off, &l) != 2)
			continue;
		if (off > 0 && off < n)
			all[all_n++] = (size_t)off;
		if (off + l > 0 && off + l < n)
			all[all_n++] = (size_t)(off + l);
	}
	/* sorted, distinct, then `cap` of them evenly spaced */
	for (size_t i = 1; i < all_n; i++)
		for (size_t j = i; j > 0 && all[j - 1] > all[j]; j--) {
			size_t x = all[j];

			all[j] = all[j - 1];
			all[j - 1] = x;
		}
	for (size_t i = 0; i < all_n; i++)
		if (!k || all[i] != all[k - 1])
			all[k++] = all[i];
	all_n = k;
	k = 0;
	for (size_t i = 0; i < cap && i < all_n; i++)
		cuts[k++] = all[all_n <= cap ? i : i * all_n / cap];
	free(all);
	return k;
}

static size_t plan(const char *file, enum fmt f, const uint8_t *p, size_t n,
		   mcase *out, size_t cap)
{
	size_t lcuts[12];
	size_t n_lcuts = layout_cuts(p, n, lcuts, 12);
	uint64_t h = name_hash(file);
	size_t k = 0, fs = footer_start(f, p, n);
	struct {
		const char *name;
		size_t start, len;
	} regions[4] = {
		{"head", 0, n < 64 ? n : 64},
		{"middle", n / 2 > 32 ? n / 2 - 32 : 0, n < 64 ? n : 64},
		{"footer", n > 1024 ? n - 1024 : 0, n < 1024 ? n : 1024},
		{"last 64 bytes", n > 64 ? n - 64 : 0, n < 64 ? n : 64},
	};
	size_t cuts[] = {fs, fs + 1, fs ? fs - 1 : 0, n / 2, 8, 4, n - 1,
			 n > 4 ? n - 4 : 0, n > 8 ? n - 8 : 0,
			 n > 12 ? n - 12 : 0};
	size_t fields[] = {n > 8 ? n - 8 : n, n > 12 ? n - 12 : n,
			   n > 16 ? n - 16 : n, fs, fs + 4,
			   fs + ((n - fs) / 2 & ~(size_t)3),
			   n > 4 ? (size_t)(mix(h) % (n - 4)) : n};
	static const uint32_t values[] = {0, 0xFFFFFFFFu, 0x7FFFFFFFu};

#define ADD(...)                                                            \
	do {                                                                \
		if (k < cap) {                                              \
			snprintf(out[k].what, sizeof(out[k].what),          \
				 __VA_ARGS__);                              \
			k++;                                                \
		}                                                           \
	} while (0)

	if (n == 0)
		return 0;
	for (size_t r = 0; r < 4; r++)
		for (unsigned j = 0; j < 3 && regions[r].len; j++) {
			uint64_t x = mix(h ^ (r << 8 | j));
			size_t pos = regions[r].start +
				     (size_t)(x % regions[r].len);
			unsigned bit = (unsigned)(x >> 40) % 8;

			out[k].kind = M_FLIP;
			out[k].pos = pos;
			out[k].value = bit;
			out[k].len = n;
			ADD("flip bit %u of byte %zu (%s)", bit, pos,
			    regions[r].name);
		}
	for (size_t j = 0; j < sizeof(cuts) / sizeof(cuts[0]); j++) {
		bool dup = false;

		if (cuts[j] == 0 || cuts[j] >= n)
			continue;
		for (size_t i = 0; i < j; i++)
			dup |= cuts[i] == cuts[j];
		if (dup)
			continue;
		out[k].kind = M_TRUNC;
		out[k].pos = cuts[j];
		out[k].len = cuts[j];
		ADD("truncate to %zu bytes%s", cuts[j],
		    cuts[j] == fs ? " (footer start)" : "");
	}
	for (size_t j = 0; j < n_lcuts; j++) {
		bool dup = false;

		for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
			dup |= cuts[i] == lcuts[j];
		if (dup)
			continue;
		out[k].kind = M_TRUNC;
		out[k].pos = lcuts[j];
		out[k].len = lcuts[j];
		ADD("truncate to %zu bytes (a region boundary of the layout)",
		    lcuts[j]);
	}
	for (size_t j = 0; j < sizeof(fields) / sizeof(fields[0]); j++) {
		bool dup = false;

		if (fields[j] + 4 > n || (j >= 3 && fs == 0 && j < 6))
			continue;
		for (size_t i = 0; i < j; i++)
			dup |= fields[i] == fields[j];
		if (dup)
			continue;
		for (size_t v = 0; v < 3; v++) {
			out[k].kind = M_SET32;
			out[k].pos = fields[j];
			out[k].value = values[v];
			out[k].len = n;
			ADD("set the 4 bytes at %zu to 0x%X", fields[j],
			    values[v]);
		}
	}
#undef ADD
	return k;
}

static void apply(const mcase *c, uint8_t *buf)
{
	switch (c->kind) {
	case M_FLIP:
		buf[c->pos] ^= (uint8_t)(1u << c->value);
		break;
	case M_SET32:
		buf[c->pos] = (uint8_t)c->value;
		buf[c->pos + 1] = (uint8_t)(c->value >> 8);
		buf[c->pos + 2] = (uint8_t)(c->value >> 16);
		buf[c->pos + 3] = (uint8_t)(c->value >> 24);
		break;
	case M_TRUNC:
		break;
	}
}

/* --- running the cases ----------------------------------------------------- */

/* Exit codes of a mount case (the in-process cases use 0 and 3 too). */
enum {
	MC_OK = 0, MC_OOM = 3, MC_CRASH = 4, MC_HANG = 5, MC_LOST = 6,
	MC_EXIT = 7, MC_NOMOUNT = 8, MC_SETUP = 9, MC_REFUSED = 10,
};

static double since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void finish(running *r, int status)
{
	double secs = since(&r->t0);
	char verdict[128] = "";

	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (sig == SIGALRM)
			snprintf(verdict, sizeof(verdict),
				 "HANG (over %u s)", opt_timeout);
		else
			snprintf(verdict, sizeof(verdict), "CRASH (signal %d, "
				 "%s)", sig, strsignal(sig));
	} else if (opt_mount && WIFEXITED(status) &&
		   WEXITSTATUS(status) >= MC_CRASH &&
		   WEXITSTATUS(status) <= MC_SETUP) {
		static const char *const why[] = {
			"DAEMON CRASH (killed by a signal)",
			"HANG (the walk of the mount ran over the time limit)",
			"DAEMON LOST (the mount stopped answering during the walk)",
			"DAEMON EXIT (did not exit 0 after fusermount3 -u)",
			"NO MOUNT (the daemon neither mounted nor refused)",
			"SETUP (the case could not be prepared)",
		};

		snprintf(verdict, sizeof(verdict), "%s",
			 why[WEXITSTATUS(status) - MC_CRASH]);
	} else if (opt_mount && WIFEXITED(status) &&
		   WEXITSTATUS(status) == MC_REFUSED) {
		n_refused++;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		snprintf(verdict, sizeof(verdict),
			 "OOM (over the %lu MiB limit)", opt_mem);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(verdict, sizeof(verdict), "FAILED (exit %d)",
			 WEXITSTATUS(status));
	}
	if (secs > slowest) {
		slowest = secs;
		snprintf(slowest_what, sizeof(slowest_what), "%s: %s",
			 r->file, r->c.what);
	}
	if (verdict[0]) {
		n_failed++;
		printf("%s: %s: %s\n", verdict, r->file, r->c.what);
		fflush(stdout);
	} else if (opt_list) {
		printf("ok %.2f s: %s: %s\n", secs, r->file, r->c.what);
	}
	r->pid = 0;
}

static running *free_slot(void)
{
	for (;;) {
		int status;
		pid_t pid;

		for (unsigned i = 0; i < opt_jobs; i++)
			if (!slots[i].pid)
				return &slots[i];
		pid = wait(&status);
		if (pid < 0) {
			perror("wait");
			exit(2);
		}
		for (unsigned i = 0; i < opt_jobs; i++)
			if (slots[i].pid == pid)
				finish(&slots[i], status);
	}
}

static void drain(void)
{
	for (unsigned i = 0; i < opt_jobs; i++)
		while (slots[i].pid) {
			int status;
			pid_t pid = wait(&status);

			if (pid < 0)
				return;
			for (unsigned j = 0; j < opt_jobs; j++)
				if (slots[j].pid == pid)
					finish(&slots[j], status);
		}
}

/* --- --mount: one case through a FUSE mount --------------------------------- */


static double mc_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void mc_nap(void)
{
	struct timespec ts = {0, 10 * 1000 * 1000};

	nanosleep(&ts, NULL);
}

static bool mc_mounted(const char *dir, const char *mnt)
{
	struct stat a, b;

	return !stat(dir, &a) && !stat(mnt, &b) && a.st_dev != b.st_dev;
}

/* Peak resident memory of a process in KiB, 0 when unknown. */
static unsigned long mc_vmhwm(pid_t pid)
{
	char path[64], line[256];
	unsigned long kb = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(fp = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmHWM: %lu kB", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

/* The walk of the mount, in its own process: every directory listed,
 * every entry stat'ed, every regular file read (the bounds of
 * fuzz_walk.h).  Errors from the daemon (EIO, ENOENT, ...) are answers;
 * ENOTCONN and ECONNABORTED mean the daemon is gone: exit MC_LOST. */
static unsigned mc_nodes;
static char mc_buf[65536];

static void mc_lost(int err)
{
	if (err == ENOTCONN || err == ECONNABORTED)
		_exit(MC_LOST);
}

static void mc_walk(const char *path, unsigned depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > FUZZ_WALK_MAX_DEPTH || !(d = opendir(path))) {
		if (depth <= FUZZ_WALK_MAX_DEPTH)
			mc_lost(errno);
		return;
	}
	while ((errno = 0, e = readdir(d)) &&
	       mc_nodes < FUZZ_WALK_MAX_NODES) {
		char sub[4096];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		mc_nodes++;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (lstat(sub, &st)) {
			mc_lost(errno);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			mc_walk(sub, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(sub, O_RDONLY);
			size_t got = 0;
			ssize_t r = 0;

			if (fd < 0) {
				mc_lost(errno);
				continue;
			}
			while (got < FUZZ_WALK_MAX_READ &&
			       (r = read(fd, mc_buf, sizeof(mc_buf))) > 0)
				got += (size_t)r;
			if (r < 0)
				mc_lost(errno);
			close(fd);
		}
	}
	if (!e && errno)
		mc_lost(errno);
	closedir(d);
}

/* Run argv with stdin/stdout on /dev/null and stderr into err_path; with
 * `group`, in a process group of its own (so that a failed case can end
 * the daemon and anything it started: a request the daemon has taken but
 * not answered keeps the walker in the kernel until the daemon's /dev/fuse
 * is closed). */
static pid_t mc_spawn(char *const argv[], const char *err_path, bool group)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (group)
			setpgid(0, 0);
		int null = open("/dev/null", O_RDWR);
		int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		if (err >= 0)
			dup2(err, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait for `pid` until `deadline`; true and *status when it ended. */
static bool mc_wait(pid_t pid, double deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0 || mc_now() > deadline)
			return false;
		mc_nap();
	}
}

/* Print the first lines of the daemon's stderr under a failed case. */
static void mc_show(const char *err_path)
{
	FILE *fp = fopen(err_path, "r");
	char line[512];

	for (int i = 0; fp && i < 8 && fgets(line, sizeof(line), fp); i++)
		printf("    colfs: %s", line);
	if (fp)
		fclose(fp);
	fflush(stdout);
}

static int mount_case(const uint8_t *buf, size_t len)
{
	char dir[] = "/tmp/colfs-mutate.XXXXXX";
	char file[64], mnt[64], err_path[64];
	double deadline = mc_now() + opt_timeout;
	int rc = MC_OK, status, fd;
	pid_t daemon, walker = 0;
	unsigned long hwm = 0;

	if (!mkdtemp(dir))
		return MC_SETUP;
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(mnt, sizeof(mnt), "%s/m", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len || close(fd) ||
	    mkdir(mnt, 0700))
		return MC_SETUP;
	{
		char *argv[] = {(char *)opt_mount, "-f", "-o",
				"cache_size=16M", file, mnt, NULL};

		daemon = mc_spawn(argv, err_path, true);
	}
	if (daemon < 0)
		return MC_SETUP;
	while (!mc_mounted(dir, mnt)) {
		if (waitpid(daemon, &status, WNOHANG) == daemon) {
			/* ended before mounting: a refusal is an answer */
			if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
				rc = MC_REFUSED;
			else
				rc = WIFSIGNALED(status) ? MC_CRASH : MC_EXIT;
			daemon = 0;
			goto out;
		}
		if (mc_now() > deadline) {
			rc = MC_NOMOUNT;
			goto out;
		}
		mc_nap();
	}
	walker = fork();
	if (walker == 0) {
		mc_walk(mnt, 0);
		_exit(0);
	}
	if (walker < 0) {
		rc = MC_SETUP;
		goto out;
	}
	if (!mc_wait(walker, deadline, &status)) {
		kill(walker, SIGKILL);   /* reaped below, once the daemon is gone */
		rc = MC_HANG;
	} else {
		walker = 0;
		if (WIFEXITED(status) && WEXITSTATUS(status) == MC_LOST)
			rc = MC_LOST;
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = MC_SETUP;
	}
	if (waitpid(daemon, &status, WNOHANG) == daemon) {
		kill(-daemon, SIGKILL);   /* whatever it left behind */
		daemon = 0;
		rc = WIFSIGNALED(status) ? MC_CRASH : MC_LOST;
		goto out;
	}
	hwm = mc_vmhwm(daemon);
	for (unsigned long seen = *peak_kb; hwm > seen;)
		if (__atomic_compare_exchange_n(peak_kb, &seen, hwm, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
	if (!UNDER_ASAN && rc == MC_OK && hwm > opt_mem * 1024) {
		printf("    daemon peak memory %lu KiB\n", hwm);
		rc = MC_OOM;
	}
out:
	if (daemon > 0) {
		char *argv[] = {"fusermount3", "-u", mnt, NULL};
		pid_t um = -1;

		if (rc == MC_OK)
			um = mc_spawn(argv, "/dev/null", false);
		else
			kill(-daemon, SIGKILL);   /* a failed case: end it */
		if (um > 0)
			waitpid(um, NULL, 0);
		if (!mc_wait(daemon, mc_now() + 10, &status)) {
			kill(-daemon, SIGKILL);
			waitpid(daemon, &status, 0);
			if (rc == MC_OK)
				rc = MC_EXIT;
		} else if (rc == MC_OK &&
			   (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
			rc = WIFSIGNALED(status) ? MC_CRASH : MC_EXIT;
		}
	}
	if (walker > 0)
		waitpid(walker, NULL, 0);
	if (rc != MC_OK && rc != MC_REFUSED)
		mc_show(err_path);
	unlink(file);
	unlink(err_path);
	if (rmdir(mnt) && errno != ENOENT) {
		/* still mounted (a dead daemon's mount fails stat, so ask
		 * rmdir): detach it */
		char *lazy[] = {"fusermount3", "-u", "-z", mnt, NULL};
		pid_t um = mc_spawn(lazy, "/dev/null", false);

		if (um > 0)
			waitpid(um, NULL, 0);
		rmdir(mnt);
	}
	rmdir(dir);
	return rc;
}

static void child(const uint8_t *orig, size_t n, const mcase *c)
{
	uint8_t *buf = malloc(n ? n : 1);

	if (opt_mount) {
		/* the daemon's own limits are checked; a backstop alarm only,
		 * since mount_case ends its processes itself */
		alarm(opt_timeout + 30);
		if (!buf)
			_exit(MC_SETUP);
		memcpy(buf, orig, n);
		apply(c, buf);
		_exit(mount_case(buf, c->len));
	}
	if (!UNDER_ASAN) {
		struct rlimit rl;

		rl.rlim_cur = rl.rlim_max = (rlim_t)opt_mem << 20;
		setrlimit(RLIMIT_AS, &rl);
	}
	alarm(opt_timeout);
	if (!buf)
		_exit(3);
	memcpy(buf, orig, n);
	apply(c, buf);
	fuzz_walk_bytes(buf, c->len, NULL, NULL);
	free(buf);
	_exit(0);
}

static void run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	struct stat st;
	uint8_t *data;
	mcase cases[96];
	size_t nc;
	enum fmt f;

	if (!fp)
		return;
	if (fstat(fileno(fp), &st) || (unsigned long)st.st_size > opt_max_size ||
	    st.st_size < 4) {
		if (st.st_size >= 4)
			n_skipped++;
		fclose(fp);
		return;
	}
	data = malloc((size_t)st.st_size);
	if (!data || fread(data, 1, (size_t)st.st_size, fp) !=
			     (size_t)st.st_size) {
		free(data);
		fclose(fp);
		return;
	}
	fclose(fp);
	f = sniff(data, (size_t)st.st_size);
	if (f == F_NONE) {
		free(data);
		return;
	}
	n_files++;
	nc = plan(path, f, data, (size_t)st.st_size, cases, 96);
	fflush(stdout);
	for (size_t i = 0; i < nc; i++) {
		running *r;
		pid_t pid;

		if (n_planned++ % opt_sample)
			continue;
		r = free_slot();

		r->file = path;
		r->c = cases[i];
		clock_gettime(CLOCK_MONOTONIC, &r->t0);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			exit(2);
		}
		if (pid == 0)
			child(data, (size_t)st.st_size, &cases[i]);
		r->pid = pid;
		n_cases++;
	}
	/* children have their copy; the path must outlive them */
	drain();
	free(data);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *path, char ***list, size_t *n, size_t *cap)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (stat(path, &st))
		return;
	if (S_ISREG(st.st_mode)) {
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			*list = realloc(*list, *cap * sizeof(**list));
			if (!*list)
				exit(2);
		}
		(*list)[(*n)++] = strdup(path);
		return;
	}
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char sub[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		collect(sub, list, n, cap);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	char **files = NULL;
	size_t n = 0, cap = 0;
	struct timespec t0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	opt_jobs = cpus > 0 ? (unsigned)cpus : 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--jobs") && i + 1 < argc)
			opt_jobs = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--timeout") && i + 1 < argc)
			opt_timeout = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--mem") && i + 1 < argc)
			opt_mem = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--max-size") && i + 1 < argc)
			opt_max_size = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(a, "--every") && i + 1 < argc)
			opt_every = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--sample") && i + 1 < argc)
			opt_sample = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--mount") && i + 1 < argc)
			opt_mount = argv[++i];
		else if (!strcmp(a, "--list"))
			opt_list = true;
		else
			collect(a, &files, &n, &cap);
	}
	if (opt_jobs < 1)
		opt_jobs = 1;
	if (opt_every < 1)
		opt_every = 1;
	if (opt_sample < 1)
		opt_sample = 1;
	peak_kb = mmap(NULL, sizeof(*peak_kb), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (peak_kb == MAP_FAILED)
		return 2;
	if (opt_mount && (access("/dev/fuse", R_OK | W_OK) ||
			  system("command -v fusermount3 >/dev/null 2>&1"))) {
		printf("--mount: /dev/fuse or fusermount3 is not available: "
		       "skipping\n");
		return 77;
	}
	slots = calloc(opt_jobs, sizeof(*slots));
	if (!slots)
		return 2;
	if (n)
		qsort(files, n, sizeof(*files), by_name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i++) {
		if (i % opt_every == 0)
			run_file(files[i]);
		free(files[i]);
	}
	free(files);
	drain();
	if (opt_mount)
		printf("through mounts of %s: %zu of the cases refused before "
		       "mounting; largest daemon peak resident memory %lu "
		       "KiB (limit %lu MiB%s)\n", opt_mount, n_refused,
		       *peak_kb, opt_mem,
		       UNDER_ASAN ? ", not checked under ASan" : "");
	printf("%zu files, %zu cases, %zu failed, %zu skipped as larger than "
	       "%lu bytes; %.1f s; slowest case %.2f s (%s)%s\n",
	       n_files, n_cases, n_failed, n_skipped, opt_max_size,
	       since(&t0), slowest, slowest_what,
	       UNDER_ASAN ? "; no memory limit under ASan" : "");
	free(slots);
	if (!n_files) {
		printf("no Parquet, ORC or CFile files found: skipping\n");
		return 77;
	}
	return n_failed ? 1 : 0;
}

/* colfs: mount a columnar file (Parquet, ORC, Kudu CFile, Arrow IPC), a
 * directory of them (a dataset, a Delta Lake table) or a remote object or
 * prefix as a read-only directory tree.
 *
 *   colfs [options] FILE|DIR|URL MOUNTPOINT
 *
 * FILE, DIR and URL are one SOURCE to this file: the core's registry of
 * source kinds tells them apart (colfs_tree_open), so nothing here
 * branches on a kind.  The order of events is what makes refusal clean:
 * the options are parsed and checked (colfs's own and FUSE's; the files
 * options name are made absolute and opened once), MOUNTPOINT is checked
 * (a directory, not already a FUSE mount), then SOURCE is opened and its
 * metadata read, and
 * only when that worked is anything mounted and the daemon sent to the
 * background (which changes directory to /).  Anything refused leaves one
 * line on stderr and exit status 1, with nothing mounted.
 *
 * mount(8) and /etc/fstab reach us through mount.fuse3, which runs
 * "colfs SOURCE MOUNTPOINT -o opts": options may follow the positionals, and
 * the generic mount options mount.fuse3 or mount(8) pass along are
 * accepted (see colfsd_opt_ignored).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "colfsd.h"

/* What the first pass over the arguments collects. */
typedef struct colfsd_args {
	char *source;          /* FILE or URL (the first positional) */
	char *mountpoint;      /* MOUNTPOINT as given, for messages */
	int positionals;       /* how many seen */
	colfs_options opts;    /* colfs's own -o options */
	/* colfs_options_set keeps pointers into its strings: they live here
	 * until exit. */
	char **kept;
	size_t kept_n;
} colfsd_args;

/* Mount options that only mean something to mount(8), to mount.fuse3, or
 * to a writable file system.  They are accepted and dropped: the mount is
 * read-only whatever is asked ("rw" included), and "ro" is always added. */
static bool colfsd_opt_ignored(const char *opt)
{
	static const char *const names[] = {
		"rw", "defaults", "auto", "noauto", "user", "nouser", "users",
		"owner", "group", "nofail", "_netdev", "comment", NULL,
	};

	for (size_t i = 0; names[i]; i++)
		if (strcmp(opt, names[i]) == 0)
			return true;
	/* x-systemd.*, x-gvfs-*, comment=...: meant for other readers of
	 * fstab. */
	return strncmp(opt, "x-", 2) == 0 || strncmp(opt, "comment=", 8) == 0;
}

static int colfsd_opt_keep(colfsd_args *a, char *s)
{
	char **k = realloc(a->kept, (a->kept_n + 1) * sizeof *k);
	if (!k) {
		free(s);
		return -1;
	}
	a->kept = k;
	a->kept[a->kept_n++] = s;
	return 0;
}

static int colfsd_opt_proc(void *data, const char *arg, int key,
			   struct fuse_args *outargs)
{
	colfsd_args *a = data;

	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT) {
		a->positionals++;
		if (a->positionals == 1) {
			a->source = strdup(arg);
			if (!a->source) {
				fprintf(stderr, "colfs: out of memory\n");
				return -1;
			}
			return 0;
		}
		if (a->positionals == 2) {
			a->mountpoint = strdup(arg);
			if (!a->mountpoint) {
				fprintf(stderr, "colfs: out of memory\n");
				return -1;
			}
			return 1; /* MOUNTPOINT, for fuse_parse_cmdline */
		}
		fprintf(stderr,
			"colfs: unexpected argument '%s' (usage: colfs "
			"[options] FILE|DIR|URL MOUNTPOINT)\n", arg);
		return -1;
	}
	/* -f, -d, -s, -h, -V and FUSE's dashed options. */
	if (arg[0] == '-')
		return 1;
	/* One item of an -o list. */
	if (colfsd_opt_ignored(arg))
		return 0;
	char *copy = strdup(arg);
	if (!copy || colfsd_opt_keep(a, copy) != 0) {
		fprintf(stderr, "colfs: out of memory\n");
		return -1;
	}
	colfs_status st = colfs_options_set(&a->opts, copy);
	char shown[256];
	if (st == COLFS_OK)
		return 0;
	/* never a key in a message: an unknown option that names a key
	 * (footer-key=...) is said here, not by FUSE, which would print it */
	colfs_options_shown(arg, shown, sizeof shown);
	if (st == COLFS_ENOENT && strcmp(shown, arg) != 0) {
		fprintf(stderr, "colfs: unknown option '%s' (see colfs "
				"--help)\n", shown);
		return -1;
	}
	if (st == COLFS_ENOENT)
		return 1; /* not ours: FUSE's, or unknown (FUSE says so) */
	fprintf(stderr, "colfs: bad value in option '%s' (see colfs --help)\n",
		shown);
	return -1;
}

static void colfsd_usage(const char *prog)
{
	printf("usage: %s [options] FILE|DIR|URL MOUNTPOINT\n"
	       "\n"
	       "Mount read-only, as a directory tree of its metadata and "
	       "values:\n"
	       "  FILE  a Parquet, ORC, Kudu CFile or Arrow IPC (Feather) file\n"
	       "  DIR   a directory of them as one dataset (Hive partitions "
	       "too), or a\n"
	       "        Delta Lake table (a directory holding _delta_log/) or "
	       "Apache Iceberg\n"
	       "        table (holding metadata/; also named by one of its "
	       "metadata files:\n"
	       "        TABLE/metadata/v3.metadata.json, local or under a "
	       "prefix URL)\n"
	       "  URL   a file by http://, https://, s3://bucket/key, "
	       "az://container/path,\n"
	       "        abfss://filesystem@account.dfs.core.windows.net/path,\n"
	       "        gs://bucket/object or hf://datasets/owner/name/path; a "
	       "dataset by a\n"
	       "        prefix ending in '/': s3://bucket/prefix/, "
	       "az://container/prefix/,\n"
	       "        gs://bucket/prefix/, hf://datasets/owner/name/folder/\n"
	       "Unmount with 'fusermount3 -u MOUNTPOINT'.\n"
	       "\n"
	       "colfs options (-o name=value):\n", prog);
	fputs(colfs_options_help(), stdout);
	printf("\n"
	       "Always set: ro, default_permissions, fsname=FILE or DIR (or the URL "
	       "without credentials).  "
	       "Accepted and ignored:\n"
	       "    rw, defaults, auto, noauto, user, nouser, users, "
	       "nofail, _netdev, x-*\n"
	       "\n"
	       "FUSE options:\n");
	fflush(stdout);
	fuse_cmdline_help();
	fuse_lowlevel_help();
	printf("    -o max_readahead=N, -o [no_]splice_write, "
	       "-o sync_read, ...\n"
	       "                           FUSE connection options "
	       "(see colfs(1))\n");
}

/* Is `dir` (absolute, resolved) the mount point of a FUSE file system?
 * Its type goes in `type` ("fuse.colfs", "fuse.sshfs", ...). */
static bool colfsd_is_fuse_mount(const char *dir, char *type, size_t type_len)
{
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	bool found = false;

	if (!mi) {
		/* No /proc: the file system type of the directory itself
		 * (FUSE_SUPER_MAGIC), which is also that of a directory
		 * inside a FUSE mount. */
		struct statfs sf;
		snprintf(type, type_len, "fuse");
		return statfs(dir, &sf) == 0 && sf.f_type == 0x65735546;
	}
	/* "36 35 98:0 / /mnt/x rw,... shared:1 - fuse.colfs /data/x ro,..."
	 * with ' ', '\t', '\n' and '\\' in paths written as \ooo. */
	while (!found && fgets(line, sizeof line, mi)) {
		char *save = NULL, *point = NULL, *tok;
		int field = 0;

		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save), field++) {
			if (field == 4)
				point = tok;
			if (strcmp(tok, "-") == 0)
				break;
		}
		tok = strtok_r(NULL, " ", &save);
		if (!point || !tok || strncmp(tok, "fuse", 4) != 0)
			continue;
		/* Unescape the mount point in place. */
		char *w = point;
		for (const char *r = point; *r; r++) {
			if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
			    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
			    r[3] <= '7') {
				*w++ = (char)((r[1] - '0') * 64 +
					      (r[2] - '0') * 8 + (r[3] - '0'));
				r += 3;
			} else {
				*w++ = *r;
			}
		}
		*w = '\0';
		if (strcmp(point, dir) == 0) {
			snprintf(type, type_len, "%s", tok);
			found = true;
		}
	}
	fclose(mi);
	return found;
}

/* MOUNTPOINT must be a directory that is not a FUSE mount already (a
 * second mount would stack on the first and hide it).  `given` is as the
 * user wrote it, `dir` as libfuse resolved it.  A directory with files in
 * it is allowed, with a warning: they are hidden while mounted. */
static int colfsd_check_mountpoint(const char *given, const char *dir)
{
	struct stat st;
	char type[256];

	if (stat(dir, &st) != 0) {
		fprintf(stderr, "colfs: %s: %s\n", given, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "colfs: %s: MOUNTPOINT is not a directory "
			"(usage: colfs [options] FILE|DIR|URL MOUNTPOINT)\n", given);
		return -1;
	}
	if (colfsd_is_fuse_mount(dir, type, sizeof type)) {
		fprintf(stderr, "colfs: %s: already a FUSE mount (%s); "
			"unmount it first: fusermount3 -u %s\n", given, type,
			given);
		return -1;
	}
	DIR *dd = opendir(dir);
	if (dd) {
		struct dirent *e;
		size_t n = 0;
		while ((e = readdir(dd)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				n++;
		closedir(dd);
		if (n)
			fprintf(stderr, "colfs: warning: %s is not empty "
				"(%zu %s): hidden while colfs is mounted "
				"there\n", given, n,
				n == 1 ? "entry" : "entries");
	}
	return 0;
}

/* A directory mounted at a mount point inside it (directly, or the
 * directory inside the mount point) would read the mount itself: the
 * listing's read of the mount point waits for an answer that only this
 * daemon, busy with that listing, can give.  `given` is MOUNTPOINT as the
 * user wrote it, `dir` as libfuse resolved it.  A link inside the
 * directory that reaches the mount point is the listing's to stop
 * (formats/dataset/dataset_list.c: it never follows a link out of the
 * directory, nor with -o follow_links one into options.mount_point). */
static int colfsd_check_nesting(const char *source, const char *given,
				const char *dir)
{
	char src[PATH_MAX], mnt[PATH_MAX];
	struct stat st;

	/* not a local directory, or not there: the open says why */
	if (stat(source, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    !realpath(source, src) || !realpath(dir, mnt))
		return 0;
	size_t ls = strlen(src), lm = strlen(mnt);
	if (strncmp(mnt, src, ls) == 0 &&
	    (mnt[ls] == '\0' || mnt[ls] == '/' || ls == 1)) {
		fprintf(stderr, "colfs: %s: MOUNTPOINT is inside the directory "
			"%s: the dataset would list the mount itself; choose a "
			"mount point outside it\n", given, src);
		return -1;
	}
	if (strncmp(src, mnt, lm) == 0 && (src[lm] == '/' || lm == 1)) {
		fprintf(stderr, "colfs: %s: the directory %s is inside "
			"MOUNTPOINT: the mount would hide it from colfs itself; "
			"choose a mount point outside it\n", given, src);
		return -1;
	}
	return 0;
}

/* The source watcher.  The core finds a changed source when it reads
 * (every file then answers EIO), but pages the kernel has cached are
 * served without asking us: a file kept open, or mapped, would go on
 * showing old bytes.  So a thread waits for inotify to say the source was
 * written to, checks it as the core does (when the writing has paused),
 * and once it has changed drops
 * the kernel's cached pages and attributes of every node, so that every
 * read comes to us and answers EIO.  Without inotify (a limit reached)
 * the checks at open and read still hold. */
typedef struct colfsd_watch {
	colfsd *d;
	struct fuse_session *se;
	int ifd;         /* inotify */
	int stop[2];     /* a byte written to stop[1] ends the thread */
	/* -1, or how often the tree is checked without an event: a
	 * dataset's folders below its top one are not watched (there may
	 * be thousands), and the core's check of them is cheap only
	 * because it is rationed (formats/dataset/dataset_change.c) */
	int poll_ms;
	pthread_t thread;
	bool running;
} colfsd_watch;

static void *colfsd_watch_run(void *arg)
{
	colfsd_watch *w = arg;
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		struct pollfd p[2] = {{w->ifd, POLLIN, 0}, {w->stop[0], POLLIN, 0}};

		int r = poll(p, 2, w->poll_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (p[1].revents)
			return NULL;
		if (r > 0 && read(w->ifd, ev, sizeof ev) < 0 && errno != EAGAIN)
			return NULL;
		/* Let the writer finish (until 100 ms pass without an event,
		 * 20 rounds at most), so that `errors` names the size it
		 * left rather than that of its O_TRUNC. */
		for (int quiet = 0; r > 0 && quiet < 20; quiet++) {
			p[0].revents = p[1].revents = 0;
			if (poll(p, 2, 100) <= 0)
				break;
			if (p[1].revents)
				return NULL;
			if (read(w->ifd, ev, sizeof ev) < 0 && errno != EAGAIN)
				return NULL;
		}
		colfs_tree *t = w->d->tree;
		if (colfs_node_check(t, colfs_tree_root(t)) == COLFS_OK)
			continue;
		/* Changed (and filed in errors by the check): from now on
		 * nothing cached may be served. */
		/* (the numbers, not the nodes: a node the kernel has
		 * forgotten may be freed meanwhile, fs/forget.c) */
		uint64_t *inos;
		size_t n;
		if (colfs_tree_file_inos(t, &inos, &n)) {
			for (size_t i = 0; i < n; i++)
				fuse_lowlevel_notify_inval_inode(w->se, inos[i],
								 0, 0);
			free(inos);
		}
		return NULL;
	}
}

static void colfsd_watch_start(colfsd_watch *w, colfsd *d,
			       struct fuse_session *se)
{
	char fdpath[64];

	memset(w, 0, sizeof *w);
	w->d = d;
	w->se = se;
	w->stop[0] = w->stop[1] = -1;
	w->poll_ms = S_ISDIR(d->source.st_mode) ? 1000 : -1;
	w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->ifd < 0)
		return;
	/* The open descriptor, not the path: the file that is mounted,
	 * wherever it is renamed to. */
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d",
		 colfs_tree_fd(d->tree));
	/* (a directory: an entry added, removed or renamed) */
	if (inotify_add_watch(w->ifd, fdpath, IN_MODIFY | IN_ATTRIB |
			      IN_CREATE | IN_DELETE | IN_MOVED_FROM |
			      IN_MOVED_TO) < 0 ||
	    pipe2(w->stop, O_CLOEXEC) != 0) {
		close(w->ifd);
		w->ifd = -1;
		return;
	}
	/* The thread takes no signal: SIGTERM and friends must reach a
	 * thread of the session loop, whose read they interrupt. */
	w->running = colfs_thread_create(&w->thread, colfsd_watch_run, w) == 0;
}

static void colfsd_watch_stop(colfsd_watch *w)
{
	if (w->running) {
		char b = 0;
		if (write(w->stop[1], &b, 1) != 1) {
			/* the pipe is empty and open: cannot happen */
		}
		pthread_join(w->thread, NULL);
	}
	if (w->ifd >= 0)
		close(w->ifd);
	if (w->stop[0] >= 0)
		close(w->stop[0]);
	if (w->stop[1] >= 0)
		close(w->stop[1]);
}

/* The process title (/proc/PID/cmdline) is the argument strings as
 * given: what the source's kind calls secret in its name is overwritten
 * there (colfs_source_hide: a URL's user information, "user:password@",
 * with '*'), and so are the keys of footer_key= and column_keys=, so
 * that no other process reads them.  The options parser took copies
 * before this. */
static void colfsd_hide_credentials(int argc, char *argv[])
{
	for (int i = 1; i < argc; i++) {
		colfs_source_hide(argv[i]);
		/* and the values of footer_key= and column_keys= */
		colfs_options_hide_keys(argv[i]);
	}
}

static void colfsd_args_free(colfsd_args *a)
{
	for (size_t i = 0; i < a->kept_n; i++) {
		/* some hold keys (footer_key=, column_keys=) */
		colfs_key_wipe(a->kept[i], strlen(a->kept[i]));
		free(a->kept[i]);
	}
	free(a->kept);
	free(a->source);
	free(a->mountpoint);
}

/* "-o default_permissions,fsname=<FILE>", inserted before the user's own
 * options so that a user's fsname= wins.  The source is named as
 * colfs_source_canonical names it (a path made absolute, a URL without
 * credentials), escaped for the option parser (commas, backslashes). */
static int colfsd_args_defaults(struct fuse_args *args, const char *source)
{
	char *name = colfs_source_canonical(source);
	char *fsname = name ? malloc(strlen(name) + sizeof "fsname=") : NULL;
	char *opts = NULL;
	int rc = -1;

	if (!fsname) {
		free(name);
		return -1;
	}
	strcpy(fsname, "fsname=");
	strcat(fsname, name);
	if (fuse_opt_add_opt(&opts, "default_permissions") == 0 &&
	    fuse_opt_add_opt_escaped(&opts, fsname) == 0 &&
	    fuse_opt_insert_arg(args, 1, "-o") == 0 &&
	    fuse_opt_insert_arg(args, 2, opts) == 0 &&
	    fuse_opt_add_arg(args, "-oro") == 0)
		rc = 0;
	free(opts);
	free(fsname);
	free(name);
	return rc;
}

int main(int argc, char *argv[])
{
	colfs_malloc_setup();   /* colfs.h: why */

	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cmd;
	colfsd_args a;
	char *paths[COLFS_PATH_OPTIONS] = {NULL};
	colfsd d;
	struct fuse_session *se = NULL;
	char *display = NULL;  /* the source as messages name it */
	int status = 1;

	memset(&a, 0, sizeof a);
	memset(&d, 0, sizeof d);
	pthread_mutex_init(&d.files_lock, NULL);
	memset(&cmd, 0, sizeof cmd);

	if (fuse_opt_parse(&args, &a, NULL, colfsd_opt_proc) != 0)
		goto out;
	colfsd_hide_credentials(argc, argv);
	if (a.source && !(display = colfs_source_display(a.source))) {
		fprintf(stderr, "colfs: out of memory\n");
		goto out;
	}
	if (fuse_parse_cmdline(&args, &cmd) != 0)
		goto out;
	if (cmd.show_help) {
		colfsd_usage(argv[0]);
		status = 0;
		goto out;
	}
	if (cmd.show_version) {
		printf("colfs %s\n", COLFS_VERSION);
		printf("FUSE library version %s\n", fuse_pkgversion());
		fflush(stdout);
		fuse_lowlevel_version();
		status = 0;
		goto out;
	}
	if (!a.source || !cmd.mountpoint) {
		fprintf(stderr, "colfs: missing %s (usage: colfs [options] "
			"FILE|DIR|URL MOUNTPOINT; see colfs --help)\n",
			a.source ? "MOUNTPOINT" : "FILE and MOUNTPOINT");
		goto out;
	}

	/* Options naming files, made absolute: the daemon changes
	 * directory to / when it goes to the background. */
	char why[512] = "";
	if (colfs_options_resolve_paths(&a.opts, paths, why, sizeof why)) {
		fprintf(stderr, "colfs: -o %s\n", why);
		goto out;
	}
	if (colfsd_check_mountpoint(a.mountpoint ? a.mountpoint
						  : cmd.mountpoint,
				    cmd.mountpoint) != 0 ||
	    colfsd_check_nesting(a.source, a.mountpoint ? a.mountpoint
							: cmd.mountpoint,
				 cmd.mountpoint) != 0)
		goto out;

	d.conn_opts = fuse_parse_conn_info_opts(&args);
	if (!d.conn_opts ||
	    colfsd_args_defaults(&args, a.source) != 0) {
		fprintf(stderr, "colfs: cannot parse the options\n");
		goto out;
	}

	/* Checks every remaining option: an unknown one ends here, with
	 * FUSE's message naming it. */
	se = fuse_session_new(&args, &colfsd_ll_ops, sizeof colfsd_ll_ops, &d);
	if (!se) {
		fprintf(stderr, "colfs: see 'colfs --help' for the options\n");
		goto out;
	}
	d.se = se;

	/* a dataset's listing never looks inside the mount itself */
	a.opts.mount_point = cmd.mountpoint;
	colfs_status st = colfs_tree_open(a.source, &a.opts, &d.tree, why,
					  sizeof why);
	if (st) {
		/* `why` names the file (a URL without credentials) and the
		 * reason, on one line. */
		if (why[0])
			fprintf(stderr, "colfs: %s\n", why);
		else
			fprintf(stderr, "colfs: %s: %s\n", display,
				colfs_status_name(st));
		goto out;
	}
	d.sizes_mode = a.opts.sizes;
	d.page_cache_all = a.opts.page_cache_all;
	d.node_budget = !a.opts.node_budget ? COLFS_DEFAULT_NODE_BUDGET
			: a.opts.node_budget > SIZE_MAX
				? SIZE_MAX
				: (size_t)a.opts.node_budget;
	const bool watched =
		colfs_tree_source_changes(d.tree) == COLFS_SOURCE_CHANGES_STAT;
	if (!watched) {
		/* No file to stat: the mounting user's, readable by all (as
		 * the object is to whoever has its URL), the times of the
		 * mount, the object's size. */
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		d.source.st_mode = S_IFREG | 0444;
		d.source.st_uid = getuid();
		d.source.st_gid = getgid();
		d.source.st_atim = d.source.st_mtim = d.source.st_ctim = now;
		d.source.st_size = (off_t)colfs_tree_source_size(d.tree);
	} else if (fstat(colfs_tree_fd(d.tree), &d.source) != 0) {
		fprintf(stderr, "colfs: %s: %s\n", a.source, strerror(errno));
		goto out;
	}

	if (fuse_set_signal_handlers(se) != 0) {
		fprintf(stderr, "colfs: cannot install signal handlers\n");
		goto out;
	}
	colfsd_nodes_signal(&d);
	if (fuse_session_mount(se, cmd.mountpoint) != 0) {
		/* libfuse has said why ("bad mount point ..."). */
		fuse_remove_signal_handlers(se);
		goto out;
	}
	if (fuse_daemonize(cmd.foreground) != 0) {
		fuse_session_unmount(se);
		fuse_remove_signal_handlers(se);
		goto out;
	}

	/* After fuse_daemonize: a thread would not survive its fork.  A
	 * remote source has nothing to watch: a change shows in the
	 * validators of the next reply (http.c). */
	colfsd_watch watch;
	if (!watched) {
		memset(&watch, 0, sizeof watch);
		watch.ifd = watch.stop[0] = watch.stop[1] = -1;
	} else {
		colfsd_watch_start(&watch, &d, se);
	}
	/* After fuse_daemonize too; d.se is the session. */
	colfsd_forget_start(&d);
	int ret;
	if (cmd.singlethread) {
		ret = fuse_session_loop(se);
	} else {
		struct fuse_loop_config *cfg = fuse_loop_cfg_create();
		if (!cfg) {
			ret = -ENOMEM;
		} else {
			fuse_loop_cfg_set_clone_fd(cfg, (unsigned)cmd.clone_fd);
			/* UINT_MAX means "not given"; libfuse 3.14 warns
			 * about it instead of taking its default. */
			if (cmd.max_idle_threads != UINT_MAX)
				fuse_loop_cfg_set_idle_threads(
					cfg, cmd.max_idle_threads);
			fuse_loop_cfg_set_max_threads(cfg, cmd.max_threads);
			ret = fuse_session_loop_mt(se, cfg);
			fuse_loop_cfg_destroy(cfg);
		}
	}
	/* 0: unmounted from outside (fusermount3 -u, umount); > 0: the
	 * signal that asked us to stop.  Both are a clean end. */
	status = ret < 0 ? 1 : 0;
	colfsd_forget_stop(&d);
	colfsd_watch_stop(&watch);
	fuse_session_unmount(se);
	fuse_remove_signal_handlers(se);
	/* Keep the sizes learned for the next mount (size index). */
	char swhy[700];
	if (colfs_tree_save_sizes(d.tree, swhy, sizeof swhy) != COLFS_OK)
		fprintf(stderr, "colfs: size index not written: %s\n", swhy);

out:
	if (se)
		fuse_session_destroy(se);
	colfsd_files_close_all(&d);
	colfs_tree_destroy(d.tree);
	pthread_mutex_destroy(&d.files_lock);
	free(d.conn_opts);
	free(cmd.mountpoint);
	free(display);
	fuse_opt_free_args(&args);
	colfsd_args_free(&a);
	for (size_t i = 0; i < COLFS_PATH_OPTIONS; i++)
		free(paths[i]);
	return status;
}

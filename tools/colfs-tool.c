/* colfs-tool: walk the tree colfs would mount, without FUSE.
 *
 *	colfs-tool [OPTIONS] ls [-l] FILE [PATH]
 *	colfs-tool [OPTIONS] tree [--depth N] FILE [PATH]
 *	colfs-tool [OPTIONS] cat FILE PATH...
 *	colfs-tool [OPTIONS] stat FILE [PATH...]
 *	colfs-tool [OPTIONS] check [--json] FILE
 *	colfs-tool [OPTIONS] index FILE
 *
 * It uses only formats/colfs.h, the same interface as the daemon, so the
 * names, the order and the bytes are the ones the mount shows.  Exit
 * status: 0 success, 1 a path does not exist or a node cannot be listed
 * or read, 2 bad usage or the file cannot be opened.  check: 0 healthy,
 * 1 problems found, 2 bad usage or the file cannot be opened.  See
 * docs/colfs-tool.1.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "colfs.h"

#ifndef COLFS_TOOL_VERSION
#define COLFS_TOOL_VERSION COLFS_VERSION
#endif

#include "colfs-tool.h"

static void tool_usage(FILE *f)
{
	fprintf(f,
"usage: colfs-tool [OPTIONS] COMMAND FILE [PATH...]\n"
"\n"
"Walk the tree that `colfs FILE MOUNTPOINT` would mount, without mounting.\n"
"FILE may also be a directory (a dataset, a Delta Lake table) or a URL.\n"
"An Apache Iceberg table is its directory, or one of its metadata files\n"
"(TABLE/metadata/v3.metadata.json, locally or under a prefix URL).\n"
"URLs: http://, https://, s3://, az://, abfss://, gs://, hf:// (a prefix\n"
"ending in '/' of an object store, a folder of the Hub, is a dataset).\n"
"\n"
"commands:\n"
"  ls [-l] FILE [PATH]         names in a directory, in the tree's order\n"
"                              (-l: kind, size and name)\n"
"  tree [--depth N] FILE [PATH]\n"
"                              the subtree, drawn like tree(1)\n"
"  cat FILE PATH...            the bytes of file nodes, as the mount serves\n"
"  stat FILE [PATH...]         inode, kind, size, and source range\n"
"  check [--json] [--all] FILE list every directory and read every file\n"
"                              node (decoding every value, verifying every\n"
"                              checksum), then print each problem with its\n"
"                              byte offset, the rows each damaged part\n"
"                              hides, and a summary (--json: one JSON\n"
"                              document); a progress bar on a terminal;\n"
"                              views derived from parts read elsewhere\n"
"                              (rows.jsonl, the root's columns/, a chunk's\n"
"                              values) are read only in damaged parts,\n"
"                              unless --all\n"
"  index FILE                  learn the exact size of every view (decoding\n"
"                              each, several at once) and write the size\n"
"                              index the mount reads (-o size_index);\n"
"                              a progress bar on a terminal\n"
"\n"
"options:\n"
"  -o KEY=VALUE[,KEY=VALUE]    a colfs option (the daemon's -o options);\n"
"  --KEY=VALUE                 the same\n"
"  --stats                     at the end, on stderr: the pages decoded\n"
"                              and the pieces rendered\n"
"  -h, --help                  this text\n"
"  --version                   the version\n"
"\n"
"colfs options:\n"
"%s"
"\n"
"Exit status: 0 success; 1 a PATH does not exist or a node cannot be\n"
"listed or read; 2 bad usage or FILE cannot be opened.  check: 0 the file\n"
"is healthy, 1 problems were found, 2 bad usage or FILE cannot be opened.\n",
		colfs_options_help());
}

/* --- messages ------------------------------------------------------------ */

static void tool_fail(tool *tl, int code)
{
	if (code > tl->status)
		tl->status = code;
}

/* The node's own error from the tree's `errors` document: the last line
 * about `path` itself, else the last about its nearest ancestor below the
 * root (a directory whose listing failed takes its children down with it).
 * Lines read "<path>: offset N (0xN): <status>: <message>".  Empty when
 * there is none. */
static void tool_node_error(tool *tl, const char *path, char *out,
			    size_t out_len)
{
	colfs_node *root = colfs_tree_root(tl->tree);
	colfs_node *errs = NULL;
	colfs_handle *h = NULL;
	char *text = NULL;
	size_t len = 0, cap = 0, got = 0, plen = strlen(path), best = 0;

	out[0] = '\0';
	if (colfs_dir_lookup(tl->tree, root, "errors", &errs) ||
	    colfs_node_is_dir(errs) || colfs_node_open(tl->tree, errs, &h))
		return;
	do {
		if (cap - len < 65536) {
			char *p = realloc(text, cap + 65536 + 1);

			if (!p)
				break;
			text = p;
			cap += 65536;
		}
		if (colfs_handle_read(h, len, cap - len, text + len, &got))
			break;
		len += got;
	} while (got > 0 && len < (16u << 20));
	colfs_handle_close(h);
	if (!text)
		return;
	text[len] = '\0';
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		const char *sep;
		size_t lplen;

		if (nl)
			*nl = '\0';
		sep = strstr(line, ": offset ");
		lplen = sep ? (size_t)(sep - line) : 0;
		if (lplen > 1 && lplen <= plen && lplen >= best &&
		    !strncmp(line, path, lplen) &&
		    (path[lplen] == '\0' || path[lplen] == '/')) {
			best = lplen;
			snprintf(out, out_len, "%s", line);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
}

/* "colfs-tool: FILE: PATH: what" plus the node's recorded error, if any. */
static void tool_report(tool *tl, const char *path, colfs_status st,
			const char *what)
{
	char detail[1024];
	char canon[4096];
	size_t n;

	/* the errors document names nodes as "/a/b" */
	snprintf(canon, sizeof(canon), "%s%s", path[0] == '/' ? "" : "/",
		 path);
	n = strlen(canon);
	while (n > 1 && canon[n - 1] == '/')
		canon[--n] = '\0';
	detail[0] = '\0';
	if (st != COLFS_ENOENT && st != COLFS_OK && tl->tree)
		tool_node_error(tl, canon, detail, sizeof(detail));
	if (detail[0]) {
		fprintf(stderr, "colfs-tool: %s: %s\n", tl->file, detail);
	} else {
		size_t nerr = tl->tree ? colfs_tree_error_count(tl->tree) : 0;

		fprintf(stderr, "colfs-tool: %s: %s: %s\n", tl->file, canon,
			what ? what : colfs_status_name(st));
		/* A view fails because of a part elsewhere in the tree (the
		 * page a column file needed): show the problems this read
		 * found, which name that part and its offset. */
		for (size_t i = tl->err_mark;
		     st != COLFS_OK && st != COLFS_ENOENT && i < nerr &&
		     i < tl->err_mark + 8; i++) {
			colfs_problem pr;

			if (colfs_tree_error_get(tl->tree, i, &pr))
				break;
			char where[48];

			fprintf(stderr, "colfs-tool: %s:   because %s: %s: %s: %s\n",
				tl->file, pr.path,
				colfs_offset_text(pr.offset, where,
						  sizeof where),
				colfs_status_name(pr.status), pr.message);
		}
	}
	tool_fail(tl, TOOL_FAIL);
}

static const char *tool_kind_name(colfs_content c)
{
	switch (c) {
	case COLFS_CONTENT_DIR:
		return "dir";
	case COLFS_CONTENT_RANGE:
		return "range";
	case COLFS_CONTENT_DOC:
		return "doc";
	case COLFS_CONTENT_STREAM:
		return "stream";
	}
	return "?";
}

/* --- output -------------------------------------------------------------- */

/* Write all of buf to stdout; false when stdout is gone (EPIPE, quietly)
 * or failed (with a message). */
static bool tool_write(tool *tl, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(STDOUT_FILENO, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) {
			tl->pipe_closed = true;
			return false;
		}
		if (n <= 0) {
			fprintf(stderr, "colfs-tool: write error: %s\n",
				n < 0 ? strerror(errno) : "short write");
			tool_fail(tl, TOOL_FAIL);
			tl->pipe_closed = true;
			return false;
		}
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* stdio output of ls, tree and stat.  A failed write is seen by the
 * printf that flushes the buffer, so errno is checked right there: EPIPE
 * (the reader went away) stops output quietly, anything else is reported. */
void tool_printf(tool *tl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void tool_printf(tool *tl, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (tl->pipe_closed)
		return;
	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	if (n >= 0)
		return;
	if (errno != EPIPE) {
		fprintf(stderr, "colfs-tool: write error: %s\n",
			strerror(errno));
		tool_fail(tl, TOOL_FAIL);
	}
	tl->pipe_closed = true;
}

static bool tool_stdout_ok(const tool *tl)
{
	return !tl->pipe_closed;
}

/* --- commands ------------------------------------------------------------ */

static colfs_node *tool_resolve(tool *tl, const char *path)
{
	colfs_node *n = NULL;
	colfs_status st = colfs_tree_resolve(tl->tree, path, &n);

	if (st == COLFS_ENOENT) {
		tool_report(tl, path, st, "no such file or directory");
		return NULL;
	}
	if (st || !n) {
		tool_report(tl, path, st ? st : COLFS_ENOENT, NULL);
		return NULL;
	}
	return n;
}

/* The size column of ls -l: bytes, "?" for a stream whose size is not
 * known yet, "-" for a directory. */
static bool tool_size_text(tool *tl, colfs_node *n, char *buf, size_t len)
{
	uint64_t size = 0;
	bool exact = false;
	colfs_status st;

	if (colfs_node_is_dir(n)) {
		snprintf(buf, len, "-");
		return true;
	}
	st = colfs_node_size(tl->tree, n, &size, &exact);
	if (st) {
		char path[4096];

		colfs_node_path(n, path, sizeof(path));
		tool_report(tl, path, st, NULL);
		snprintf(buf, len, "!");
		return false;
	}
	if (exact)
		snprintf(buf, len, "%" PRIu64, size);
	else
		snprintf(buf, len, "?");
	return true;
}

static void tool_ls_one(tool *tl, colfs_node *n)
{
	char size[32];

	if (!tl->long_form) {
		tool_printf(tl, "%s\n", colfs_node_name(n));
		return;
	}
	tool_size_text(tl, n, size, sizeof(size));
	tool_printf(tl, "%-6s %12s %s\n", tool_kind_name(colfs_node_content(n)), size,
	       colfs_node_name(n));
}

static int tool_ls(tool *tl, const char *path)
{
	colfs_node *n = tool_resolve(tl, path);
	colfs_node *const *kids;
	size_t nkids;
	colfs_status st;

	if (!n)
		return tl->status;
	if (!colfs_node_is_dir(n)) {
		tool_ls_one(tl, n);
		return tl->status;
	}
	st = colfs_dir_list(tl->tree, n, &kids, &nkids);
	if (st) {
		tool_report(tl, path, st, NULL);
		return tl->status;
	}
	for (size_t i = 0; i < nkids && tool_stdout_ok(tl); i++)
		tool_ls_one(tl, kids[i]);
	return tl->status;
}

/* complete FILE PREFIX (not in the usage: for the shell's completion,
 * completions/colfs-tool): the tree paths that begin with PREFIX, one a
 * line, those of directories ending in '/'.  PREFIX's last component is
 * matched against the names of the directory before it (the root when
 * there is no '/'); a directory that cannot be listed gives nothing. */
static int tool_complete(tool *tl, const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	size_t dir_len = slash ? (size_t)(slash - prefix) + 1 : 0;
	const char *base = prefix + dir_len;
	size_t base_len = strlen(base);
	char dir[4096];
	colfs_node *n = NULL;
	colfs_node *const *kids;
	size_t nkids;

	if (dir_len >= sizeof dir)
		return TOOL_FAIL;
	memcpy(dir, prefix, dir_len);
	dir[dir_len] = '\0';
	if (colfs_tree_resolve(tl->tree, dir_len ? dir : "/", &n) || !n ||
	    !colfs_node_is_dir(n) ||
	    colfs_dir_list(tl->tree, n, &kids, &nkids))
		return TOOL_FAIL;
	for (size_t i = 0; i < nkids && tool_stdout_ok(tl); i++) {
		const char *name = colfs_node_name(kids[i]);

		if (strncmp(name, base, base_len) == 0)
			tool_printf(tl, "%s%s%s\n", dir, name,
				    colfs_node_is_dir(kids[i]) ? "/" : "");
	}
	return tl->status;
}

typedef struct tool_tree_count {
	uint64_t dirs;
	uint64_t files;
} tool_tree_count;

/* `prefix` holds the drawing of the ancestors' columns. */
static void tool_tree_walk(tool *tl, colfs_node *dir, long depth,
			   char *prefix, size_t prefix_len, size_t prefix_cap,
			   tool_tree_count *count)
{
	colfs_node *const *kids;
	size_t nkids;
	colfs_status st;

	if (tl->depth >= 0 && depth >= tl->depth)
		return;
	st = colfs_dir_list(tl->tree, dir, &kids, &nkids);
	if (st) {
		char path[4096];

		colfs_node_path(dir, path, sizeof(path));
		tool_printf(tl, "%.*s└── [cannot list: %s]\n", (int)prefix_len, prefix,
		       colfs_status_name(st));
		tool_report(tl, path, st, NULL);
		return;
	}
	for (size_t i = 0; i < nkids && tool_stdout_ok(tl); i++) {
		colfs_node *k = kids[i];
		bool last = i + 1 == nkids;
		static const char cont[] = "│   ", blank[] = "    ";
		const char *add = last ? blank : cont;
		size_t add_len = strlen(add);

		tool_printf(tl, "%.*s%s%s\n", (int)prefix_len, prefix,
		       last ? "└── " : "├── ", colfs_node_name(k));
		if (!colfs_node_is_dir(k)) {
			count->files++;
			continue;
		}
		count->dirs++;
		if (prefix_len + add_len + 1 > prefix_cap) {
			/* deeper than any sane tree: draw no further */
			continue;
		}
		memcpy(prefix + prefix_len, add, add_len);
		tool_tree_walk(tl, k, depth + 1, prefix, prefix_len + add_len,
			       prefix_cap, count);
	}
}

static int tool_tree(tool *tl, const char *path)
{
	colfs_node *n = tool_resolve(tl, path);
	tool_tree_count count = { 0, 0 };
	char name[4096];
	char prefix[4096];

	if (!n)
		return tl->status;
	colfs_node_path(n, name, sizeof(name));
	tool_printf(tl, "%s\n", name);
	if (colfs_node_is_dir(n))
		tool_tree_walk(tl, n, 0, prefix, 0, sizeof(prefix), &count);
	if (tool_stdout_ok(tl))
		tool_printf(tl, "\n%" PRIu64 " director%s, %" PRIu64 " file%s\n",
		       count.dirs, count.dirs == 1 ? "y" : "ies", count.files,
		       count.files == 1 ? "" : "s");
	return tl->status;
}

static int tool_cat_one(tool *tl, const char *path, char *buf)
{
	colfs_node *n = tool_resolve(tl, path);
	colfs_handle *h = NULL;
	uint64_t off = 0;
	colfs_status st;

	if (!n)
		return tl->status;
	if (colfs_node_is_dir(n)) {
		tool_report(tl, path, COLFS_OK, "is a directory");
		return tl->status;
	}
	tl->err_mark = colfs_tree_error_count(tl->tree);
	st = colfs_node_open(tl->tree, n, &h);
	if (st) {
		tool_report(tl, path, st, NULL);
		return tl->status;
	}
	for (;;) {
		size_t got = 0;

		st = colfs_handle_read(h, off, TOOL_READ_SIZE, buf, &got);
		if (st) {
			tool_report(tl, path, st, NULL);
			break;
		}
		if (got > TOOL_READ_SIZE)
			got = TOOL_READ_SIZE;
		if (got && !tool_write(tl, buf, got))
			break;
		off += got;
		/* a short read is not the end: the tree serves the bytes
		 * before a failing piece first, and the next read fails */
		if (got == 0)
			break;
	}
	colfs_handle_close(h);
	return tl->status;
}

static int tool_cat(tool *tl, char **paths, int npaths)
{
	char *buf = malloc(TOOL_READ_SIZE);

	if (!buf) {
		fprintf(stderr, "colfs-tool: out of memory\n");
		return TOOL_FAIL;
	}
	for (int i = 0; i < npaths && !tl->pipe_closed; i++)
		tool_cat_one(tl, paths[i], buf);
	free(buf);
	return tl->status;
}

/* One block of "key: value" lines; `*shown` counts the blocks printed so
 * far, so several paths get an empty line between their blocks. */
static int tool_stat(tool *tl, const char *path, int *shown)
{
	colfs_node *n = tool_resolve(tl, path);
	char buf[4096];
	colfs_content kind;

	if (!n)
		return tl->status;
	if ((*shown)++)
		tool_printf(tl, "\n");
	kind = colfs_node_content(n);
	colfs_node_path(n, buf, sizeof(buf));
	tool_printf(tl, "path: %s\n", buf);
	tool_printf(tl, "inode: %" PRIu64 "\n", colfs_node_ino(n));
	tool_printf(tl, "kind: %s\n", tool_kind_name(kind));
	if (kind == COLFS_CONTENT_DIR) {
		colfs_node *const *kids;
		size_t nkids;
		colfs_status st = colfs_dir_list(tl->tree, n, &kids, &nkids);

		if (st)
			tool_report(tl, buf, st, NULL);
		else
			tool_printf(tl, "entries: %zu\n", nkids);
		return tl->status;
	}
	{
		uint64_t size = 0, off = 0, len = 0;
		bool exact = false;
		colfs_status st = colfs_node_size(tl->tree, n, &size, &exact);

		if (st)
			tool_report(tl, buf, st, NULL);
		else if (exact)
			tool_printf(tl, "size: %" PRIu64 " (exact)\n", size);
		else
			tool_printf(tl, "size: ? (not known until read to the end)\n");
		if (kind == COLFS_CONTENT_RANGE &&
		    colfs_node_range(n, &off, &len)) {
			tool_printf(tl, "offset: %" PRIu64 "\n", off);
			tool_printf(tl, "length: %" PRIu64 "\n", len);
		}
		tool_printf(tl, "volatile: %s\n",
		       colfs_node_is_volatile(n) ? "yes" : "no");
	}
	return tl->status;
}

/* --- index ---------------------------------------------------------------- */

/* index: list the whole tree, learn the size of every stream on all
 * cores, write the size index. */
typedef struct index_state {
	bool progress;        /* stderr is a terminal */
	double last;
	bool shown;
} index_state;

static void index_progress(void *arg, size_t done, size_t total)
{
	index_state *is = arg;
	double now = check_now();
	char bar[21];
	int fill;

	if (!is->progress || (is->shown && now - is->last < 0.1 &&
			      done < total))
		return;
	is->last = now;
	fill = total ? (int)(20.0 * (double)done / (double)total) : 20;
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, ' ', (size_t)(20 - fill));
	bar[20] = '\0';
	fprintf(stderr, "\r[%s] %zu/%zu views", bar, done, total);
	fflush(stderr);
	is->shown = true;
}

static int tool_index(tool *tl)
{
	colfs_tree *t = tl->tree;
	colfs_node **stack = NULL, **streams = NULL;
	size_t depth = 0, cap = 0, nstreams = 0, capstreams = 0;
	index_state is = { .progress = isatty(STDERR_FILENO) == 1 };
	char why[1024];
	colfs_status st;
	int rc = TOOL_OK;

	if (!colfs_tree_size_index_path(t)) {
		fprintf(stderr, "colfs-tool: %s: no size index: %s\n", tl->file,
			colfs_tree_size_index_note(t));
		return TOOL_USAGE;
	}
	/* Every directory listed, every non-volatile stream kept. */
	stack = malloc(sizeof(*stack));
	if (!stack)
		goto oom;
	cap = 1;
	stack[depth++] = colfs_tree_root(t);
	while (depth > 0) {
		colfs_node *dir = stack[--depth];
		colfs_node *const *kids;
		size_t nkids;

		st = colfs_dir_list(t, dir, &kids, &nkids);
		if (st) {
			char path[4096];

			colfs_node_path(dir, path, sizeof(path));
			tool_report(tl, path, st, NULL);
			continue;
		}
		for (size_t i = nkids; i-- > 0;) {
			colfs_node *k = kids[i];
			colfs_node **grown;

			if (colfs_node_is_dir(k)) {
				if (depth == cap) {
					grown = realloc(stack, 2 * cap *
							sizeof(*stack));
					if (!grown)
						goto oom;
					stack = grown;
					cap *= 2;
				}
				stack[depth++] = k;
			} else if (colfs_node_content(k) ==
					   COLFS_CONTENT_STREAM &&
				   !colfs_node_is_volatile(k)) {
				if (nstreams == capstreams) {
					size_t nc = capstreams ? 2 * capstreams
							       : 64;
					grown = realloc(streams,
							nc * sizeof(*streams));
					if (!grown)
						goto oom;
					streams = grown;
					capstreams = nc;
				}
				streams[nstreams++] = k;
			}
		}
	}
	colfs_nodes_learn_sizes(t, streams, nstreams, 0, true, index_progress,
				&is);
	if (is.shown)
		fprintf(stderr, "\r%60s\r", "");
	/* A view that could not be decoded has no size: say which. */
	size_t sized = 0;
	for (size_t i = 0; i < nstreams; i++) {
		uint64_t size;
		bool exact;

		if (colfs_node_size(t, streams[i], &size, &exact) == COLFS_OK &&
		    exact) {
			sized++;
		} else {
			char path[4096];

			colfs_node_path(streams[i], path, sizeof(path));
			tool_report(tl, path, COLFS_EIO,
				    "cannot be decoded to its end: no size");
		}
	}
	tool_printf(tl, "previous index: %s\n", colfs_tree_size_index_note(t));
	st = colfs_tree_save_sizes(t, why, sizeof(why));
	if (st) {
		fprintf(stderr, "colfs-tool: size index not written: %s\n", why);
		rc = TOOL_FAIL;
	} else {
		tool_printf(tl, "%zu of %zu views sized; index %s\n", sized,
			    nstreams, why);
	}
	free(stack);
	free(streams);
	return rc > tl->status ? rc : tl->status;
oom:
	free(stack);
	free(streams);
	fprintf(stderr, "colfs-tool: out of memory\n");
	return TOOL_FAIL;
}

/* --- options ------------------------------------------------------------- */

/* Apply "a=b,c=d" (each piece kept alive in tl->owned). */
static bool tool_option(tool *tl, const char *arg)
{
	char *copy = strdup(arg);
	char **grown;
	char *save = NULL;

	if (!copy)
		return false;
	grown = realloc(tl->owned, (tl->nowned + 1) * sizeof(*grown));
	if (!grown) {
		free(copy);
		return false;
	}
	tl->owned = grown;
	tl->owned[tl->nowned++] = copy;
	for (char *kv = strtok_r(copy, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		colfs_status st = colfs_options_set(&tl->opts, kv);
		char shown[256];

		/* never a key in a message */
		colfs_options_shown(kv, shown, sizeof shown);
		if (st == COLFS_ENOENT) {
			fprintf(stderr, "colfs-tool: unknown option '%s'\n",
				shown);
			return false;
		}
		if (st) {
			fprintf(stderr, "colfs-tool: bad value in option "
					"'%s'\n", shown);
			return false;
		}
	}
	return true;
}

static bool tool_parse_depth(const char *s, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0)
		return false;
	*out = v;
	return true;
}

static void tool_free(tool *tl)
{
	colfs_tree_destroy(tl->tree);
	for (size_t i = 0; i < tl->nowned; i++) {
		/* option copies may hold keys (footer_key=, column_keys=);
		 * strtok_r cut them at the commas */
		colfs_key_wipe(tl->owned[i], malloc_usable_size(tl->owned[i]));
		free(tl->owned[i]);
	}
	free(tl->owned);
	for (size_t i = 0; i < COLFS_PATH_OPTIONS; i++)
		free(tl->paths[i]);
}

int main(int argc, char **argv)
{
	tool tl;
	char **pos;
	int npos = 0, rc;
	bool dashdash = false;

	colfs_malloc_setup();   /* colfs.h: why */
	const char *cmd;
	char why[512];
	colfs_status st;
	char *url = NULL, *shown = NULL; /* the source, and its display form */

	memset(&tl, 0, sizeof(tl));
	tl.depth = -1;
	/* a closed pipe shows up as EPIPE from write(), handled quietly */
	signal(SIGPIPE, SIG_IGN);

	pos = calloc((size_t)argc + 1, sizeof(*pos));
	if (!pos) {
		fprintf(stderr, "colfs-tool: out of memory\n");
		return TOOL_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (dashdash || a[0] != '-' || !a[1]) {
			pos[npos++] = argv[i];
		} else if (!strcmp(a, "--")) {
			dashdash = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			tool_usage(stdout);
			rc = TOOL_OK;
			goto out;
		} else if (!strcmp(a, "--version")) {
			printf("colfs-tool %s\n", COLFS_TOOL_VERSION);
			rc = TOOL_OK;
			goto out;
		} else if (!strcmp(a, "--json")) {
			tl.json = true;
		} else if (!strcmp(a, "--progress")) {
			tl.progress = true;
		} else if (!strcmp(a, "--all")) {
			tl.all = true;
		} else if (!strcmp(a, "--stats")) {
			tl.stats = true;
		} else if (!strcmp(a, "-l")) {
			tl.long_form = true;
		} else if (!strcmp(a, "--depth") || !strcmp(a, "-L")) {
			if (!tool_parse_depth(i + 1 < argc ? argv[i + 1] : NULL,
					      &tl.depth)) {
				fprintf(stderr, "colfs-tool: %s needs a "
						"number >= 0\n", a);
				rc = TOOL_USAGE;
				goto out;
			}
			i++;
		} else if (!strncmp(a, "--depth=", 8)) {
			if (!tool_parse_depth(a + 8, &tl.depth)) {
				fprintf(stderr, "colfs-tool: --depth needs a "
						"number >= 0\n");
				rc = TOOL_USAGE;
				goto out;
			}
		} else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "colfs-tool: -o needs "
						"KEY=VALUE\n");
				rc = TOOL_USAGE;
				goto out;
			}
			if (!tool_option(&tl, argv[++i])) {
				rc = TOOL_USAGE;
				goto out;
			}
		} else if (!strncmp(a, "-o", 2)) {
			if (!tool_option(&tl, a + 2)) {
				rc = TOOL_USAGE;
				goto out;
			}
		} else if (!strncmp(a, "--", 2) && strchr(a, '=')) {
			if (!tool_option(&tl, a + 2)) {
				rc = TOOL_USAGE;
				goto out;
			}
		} else {
			fprintf(stderr, "colfs-tool: unknown option '%s' "
					"(try --help)\n", a);
			rc = TOOL_USAGE;
			goto out;
		}
	}
	if (npos < 2) {
		tool_usage(stderr);
		rc = TOOL_USAGE;
		goto out;
	}
	cmd = pos[0];
	if (strcmp(cmd, "ls") && strcmp(cmd, "tree") && strcmp(cmd, "cat") &&
	    strcmp(cmd, "stat") && strcmp(cmd, "check") &&
	    strcmp(cmd, "index") && strcmp(cmd, "complete")) {
		fprintf(stderr, "colfs-tool: unknown command '%s' (try "
				"--help)\n", cmd);
		rc = TOOL_USAGE;
		goto out;
	}
	if ((!strcmp(cmd, "cat") && npos < 3) ||
	    ((!strcmp(cmd, "check") || !strcmp(cmd, "index")) && npos > 2) ||
	    ((!strcmp(cmd, "ls") || !strcmp(cmd, "tree")) && npos > 3) ||
	    (!strcmp(cmd, "complete") && npos != 3)) {
		fprintf(stderr, "colfs-tool: %s takes %s\n", cmd,
			!strcmp(cmd, "cat") ? "FILE PATH..." :
			!strcmp(cmd, "check") || !strcmp(cmd, "index")
				? "FILE" :
			!strcmp(cmd, "complete") ? "FILE PREFIX"
				: "FILE [PATH]");
		rc = TOOL_USAGE;
		goto out;
	}
	if (tl.long_form && strcmp(cmd, "ls")) {
		fprintf(stderr, "colfs-tool: -l is an option of ls\n");
		rc = TOOL_USAGE;
		goto out;
	}
	if ((tl.json || tl.progress || tl.all) && strcmp(cmd, "check")) {
		fprintf(stderr, "colfs-tool: %s is an option of check\n",
			tl.json ? "--json" : tl.progress ? "--progress" : "--all");
		rc = TOOL_USAGE;
		goto out;
	}
	if (tl.depth >= 0 && strcmp(cmd, "tree")) {
		fprintf(stderr, "colfs-tool: --depth is an option of tree\n");
		rc = TOOL_USAGE;
		goto out;
	}

	tl.file = pos[1];
	why[0] = '\0';
	/* Messages name the source without credentials (a URL's user
	 * information), and the process title does not show them. */
	url = strdup(tl.file);
	shown = colfs_source_display(tl.file);
	if (!url || !shown) {
		fprintf(stderr, "colfs-tool: out of memory\n");
		rc = TOOL_USAGE;
		goto out;
	}
	for (int i = 1; i < argc; i++)
		colfs_source_hide(argv[i]);
	tl.file = shown;
	/* The process title does not show keys (footer_key=, column_keys=:
	 * the options keep copies). */
	for (int i = 1; i < argc; i++)
		colfs_options_hide_keys(argv[i]);
	/* Resolved as the daemon resolves them: a missing schema_from is
	 * refused, not found missing later by the salvage. */
	if (colfs_options_resolve_paths(&tl.opts, tl.paths, why,
					sizeof(why))) {
		fprintf(stderr, "colfs-tool: -o %s\n", why);
		rc = TOOL_USAGE;
		goto out;
	}
	/* One run reads the file once: a change is seen within a second
	 * rather than by an fstat at every open and read (docs/tree.md,
	 * "A changed source"). */
	tl.opts.source_check_ms = 1000;
	st = colfs_tree_open(url, &tl.opts, &tl.tree, why,
			     sizeof(why));
	if (st || !tl.tree) {
		/* the reason names the file already */
		if (!why[0])
			snprintf(why, sizeof(why), "%s: %s", tl.file,
				 colfs_status_name(st ? st : COLFS_EIO));
		fprintf(stderr, "colfs-tool: %s\n", why);
		tl.tree = NULL;
		if (tl.json) {
			/* check --json answers with one document, always */
			tool_printf(&tl, "{\"file\": ");
			check_json_str(&tl, tl.file);
			tool_printf(&tl, ", \"readable\": false, \"error\": ");
			check_json_str(&tl, why);
			tool_printf(&tl, "}\n");
			fflush(stdout);
		}
		rc = TOOL_USAGE;
		goto out;
	}

	if (!strcmp(cmd, "ls"))
		rc = tool_ls(&tl, npos > 2 ? pos[2] : "/");
	else if (!strcmp(cmd, "tree"))
		rc = tool_tree(&tl, npos > 2 ? pos[2] : "/");
	else if (!strcmp(cmd, "stat")) {
		int shown = 0;

		rc = tool_stat(&tl, npos > 2 ? pos[2] : "/", &shown);
		for (int i = 3; i < npos; i++)
			rc = tool_stat(&tl, pos[i], &shown);
	}
	else if (!strcmp(cmd, "check"))
		rc = tool_check(&tl);
	else if (!strcmp(cmd, "index"))
		rc = tool_index(&tl);
	else if (!strcmp(cmd, "complete"))
		rc = tool_complete(&tl, pos[2]);
	else
		rc = tool_cat(&tl, pos + 2, npos - 2);
	if (tl.stats && tl.tree) {
		colfs_tree_stats ts;
		colfs_tree_stats_get(tl.tree, &ts);
		fprintf(stderr, "colfs-tool: stats: pages_decoded=%" PRIu64
			" pieces_rendered=%" PRIu64 "\n", ts.pages_decoded,
			ts.pieces_rendered);
	}

	if (!tl.pipe_closed && fflush(stdout) != 0 && errno != EPIPE) {
		fprintf(stderr, "colfs-tool: write error: %s\n",
			strerror(errno));
		rc = TOOL_FAIL;
	}
out:
	free(pos);
	tool_free(&tl);
	if (url)
		explicit_bzero(url, strlen(url));
	free(url);
	free(shown);
	return rc;
}

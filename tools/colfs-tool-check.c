/* colfs-tool check: list every directory and read every file node of
 * the tree, then print the problems found (docs/colfs-tool.1). */
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

#include "colfs-tool.h"

/* --- check --------------------------------------------------------------- */

/* check walks the whole tree: every directory listed, every file node
 * opened and read to its end, so each format decodes every value and
 * verifies every checksum it knows.  The problems the tree collected are
 * printed afterwards.  Nodes are visited once each (the listing is a tree,
 * lookups of unlisted names are never made), up to CHECK_MAX_NODES.
 *
 * One pass, depth first in the tree's order: a directory is listed, then
 * each entry is read (a file) or walked (a directory) before the next, and
 * once a directory is walked the tree frees the nodes under it
 * (colfs_dir_release), so memory follows the depth of the tree, not its
 * size (a 15 MB footer's 200,000 chunks make millions of nodes).
 *
 * The progress bar shows the stored bytes checked: the union of the byte
 * ranges of the range files read so far (a chunk's, a page's, a stripe's
 * streams') over the size of the source.  Documents and value views move
 * it by nothing; it ends at 100% once the walk is complete. */
#define CHECK_MAX_NODES 10000000u
#define CHECK_MAX_UNREADABLE_KEPT 1000u

typedef struct check_unreadable {
	char *path;
	colfs_status status;
	bool explained;       /* the tree recorded a problem meanwhile */
} check_unreadable;

typedef struct check_extent {
	uint64_t off, end;
} check_extent;

typedef struct check_frame {
	colfs_node *dir;
	colfs_node *const *kids;
	size_t nkids, next;
	size_t errors0;       /* problems recorded when it was entered */
	uint64_t unreadable0; /* nodes found unreadable then */
	bool skip;            /* derived views under it are not read */
	bool deferring;       /* its derived entries are being visited */
	colfs_node **later;   /* its derived entries, visited last */
	size_t nlater, caplater, ilater;
} check_frame;

typedef struct check_state {
	tool *tl;
	uint64_t nodes;       /* nodes visited (listed or read) */
	uint64_t unreadable;
	uint64_t skipped;     /* derived views of healthy parts, not read */
	check_unreadable *bad;
	size_t nbad;
	bool capped;          /* stopped at CHECK_MAX_NODES */
	bool progress;        /* stderr is a terminal */
	bool progress_lines;  /* --progress on a pipe: one line per file */
	bool bar_shown;
	bool complete;        /* the walk reached its end */
	double total;         /* the source's size */
	uint64_t covered;     /* bytes in `ext` */
	check_extent *ext;    /* disjoint byte ranges read, sorted */
	size_t next, capext;
	char *buf;
	bool root_noted;      /* the root's `errors` has held a problem */
	char **own;           /* its lines the tree's problems do not hold */
	bool *own_note;       /* each a note ("path: message"), no damage */
	size_t nown, nown_problems;
} check_state;

double check_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double check_fraction(const check_state *cs, double extra)
{
	double frac;

	if (cs->complete)
		return 1;
	frac = cs->total > 0 ? ((double)cs->covered + extra) / cs->total : 0;
	if (frac < 0)
		frac = 0;
	/* a dataset's files have ranges of their own sources */
	if (frac > 0.999)
		frac = 0.999;
	return frac;
}

/* On a terminal: a bar, at most ten updates a second.  With --progress
 * on a pipe or file: "PCT% PATH" once per file read. */
static void check_progress(check_state *cs, double extra)
{
	static double last;
	double now, frac;
	char bar[21];
	int fill;

	if (!cs->progress)
		return;
	now = check_now();
	if (cs->bar_shown && now - last < 0.1)
		return;
	last = now;
	frac = check_fraction(cs, extra);
	fill = (int)(frac * 20);
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, ' ', (size_t)(20 - fill));
	bar[20] = '\0';
	fprintf(stderr, "\r[%s] %3d%% %" PRIu64 " nodes", bar,
		(int)(frac * 100), cs->nodes);
	fflush(stderr);
	cs->bar_shown = true;
}

static void check_progress_line(check_state *cs, colfs_node *n)
{
	char path[4096];

	if (!cs->progress_lines)
		return;
	colfs_node_path(n, path, sizeof(path));
	fprintf(stderr, "%5.1f%% %s\n", 100 * check_fraction(cs, 0), path);
}

static void check_progress_clear(check_state *cs)
{
	if (!cs->bar_shown)
		return;
	fprintf(stderr, "\r%60s\r", "");
	fflush(stderr);
	cs->bar_shown = false;
}

/* The first extent that ends at or after `off` (the extents are disjoint
 * and sorted, so their ends are sorted too): a binary search, since a
 * wide file's walk may leave hundreds of thousands of them. */
static size_t check_first_ext(const check_state *cs, uint64_t off)
{
	size_t lo = 0, hi = cs->next;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->ext[mid].end < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The bytes of [off, end) not yet in the union of ranges read. */
static uint64_t check_fresh(const check_state *cs, uint64_t off, uint64_t end)
{
	uint64_t fresh = end - off;

	for (size_t k = check_first_ext(cs, off); k < cs->next; k++) {
		uint64_t lo = cs->ext[k].off > off ? cs->ext[k].off : off;
		uint64_t hi = cs->ext[k].end < end ? cs->ext[k].end : end;

		if (cs->ext[k].off >= end)
			break;
		if (hi > lo)
			fresh -= hi - lo;
	}
	return fresh;
}

/* Add [off, end) to the union of ranges read.  A walk in the tree's
 * order reads a file's parts mostly in order and nested (a chunk, then
 * its pages), so the list stays short. */
static bool check_cover(check_state *cs, uint64_t off, uint64_t end)
{
	size_t lo, hi;

	if (end <= off)
		return true;
	cs->covered += check_fresh(cs, off, end);
	lo = check_first_ext(cs, off);
	hi = lo;
	while (hi < cs->next && cs->ext[hi].off <= end) {
		if (cs->ext[hi].off < off)
			off = cs->ext[hi].off;
		if (cs->ext[hi].end > end)
			end = cs->ext[hi].end;
		hi++;
	}
	if (hi == lo) {  /* a new extent at lo */
		if (cs->next == cs->capext) {
			size_t want = cs->capext ? cs->capext * 2 : 64;
			check_extent *grown = realloc(cs->ext,
						      want * sizeof(*grown));

			if (!grown)
				return false;
			cs->ext = grown;
			cs->capext = want;
		}
		memmove(cs->ext + lo + 1, cs->ext + lo,
			(cs->next - lo) * sizeof(*cs->ext));
		cs->next++;
	} else if (hi > lo + 1) {  /* extents lo..hi-1 merge into lo */
		memmove(cs->ext + lo + 1, cs->ext + hi,
			(cs->next - hi) * sizeof(*cs->ext));
		cs->next -= hi - lo - 1;
	}
	cs->ext[lo] = (check_extent){off, end};
	return true;
}

/* The bytes of the root's `errors` document (NUL-terminated; NULL when
 * the tree has none or it cannot be read).  A dataset or table keeps
 * problems of its own there (a file missing, changed or cut, with the
 * table's version) that the tree's problem list does not hold. */
static char *check_root_errors(check_state *cs)
{
	colfs_tree *t = cs->tl->tree;
	colfs_node *n;
	colfs_handle *h = NULL;
	char *text = NULL;
	size_t len = 0;

	if (colfs_tree_resolve(t, "/errors", &n) || colfs_node_is_dir(n) ||
	    colfs_node_open(t, n, &h))
		return NULL;
	for (;;) {
		size_t got = 0;
		char *grown;

		if (colfs_handle_read(h, len, TOOL_READ_SIZE, cs->buf, &got) ||
		    got > TOOL_READ_SIZE ||
		    !(grown = realloc(text, len + got + 1))) {
			free(text);
			text = NULL;
			break;
		}
		text = grown;
		memcpy(text + len, cs->buf, got);
		len += got;
		text[len] = '\0';
		if (got == 0)
			break;
	}
	colfs_handle_close(h);
	return text;
}

/* Does `line` hold ": offset N (0x" (a problem at a byte)? */
static bool check_has_offset(const char *line)
{
	for (const char *p = strstr(line, ": offset "); p;
	     p = strstr(p + 1, ": offset ")) {
		const char *d = p + strlen(": offset ");

		if (*d >= '0' && *d <= '9')
			return true;
	}
	return false;
}

/* A line of `errors` that is a note of a dataset as a whole (schema
 * drift: "path: message", no damage), not a problem (its offset after
 * the path). */
static bool check_is_note(const char *line)
{
	return !strstr(line, ": offset unknown: ") && !check_has_offset(line);
}

/* Has any problem been recorded: in the tree's list, or only in the
 * root's `errors` (a dataset's own)?  Once yes, always yes. */
static bool check_any_problem(check_state *cs)
{
	char *text;

	if (cs->root_noted || colfs_tree_error_count(cs->tl->tree) > 0)
		return true;
	text = check_root_errors(cs);
	for (char *line = text; line && *line && !cs->root_noted;) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		cs->root_noted = !check_is_note(line);
		line = nl ? nl + 1 : line + strlen(line);
	}
	free(text);
	return cs->root_noted;
}

static int check_line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of the root's `errors` that are none of the tree's problems
 * as check prints them (`mine`, sorted), into cs->own, in the order
 * `errors` has them.  A line may end in a note on a remote source's
 * past failure (" (past: ..."): it is the problem before it. */
static bool check_own_lines(check_state *cs, char **mine, size_t nmine)
{
	char *text = check_root_errors(cs), *line, *next;

	for (line = text; line && *line; line = next) {
		char *nl = strchr(line, '\n'), *past, *key = line, **grown;
		bool *note;

		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (bsearch(&key, mine, nmine, sizeof(*mine), check_line_cmp))
			continue;
		past = strstr(line, " (past: ");
		if (past) {
			*past = '\0';
			if (bsearch(&key, mine, nmine, sizeof(*mine),
				    check_line_cmp))
				continue;
			*past = ' ';
		}
		/* "/: N more problems not listed": check counts those */
		if (strstr(line, " more problems not listed") &&
		    colfs_tree_error_count(cs->tl->tree) > nmine)
			continue;
		grown = realloc(cs->own, (cs->nown + 1) * sizeof(*grown));
		if (grown)
			cs->own = grown;
		note = realloc(cs->own_note, (cs->nown + 1) * sizeof(*note));
		if (note)
			cs->own_note = note;
		if (!grown || !note || !(grown[cs->nown] = strdup(line))) {
			free(text);
			return false;
		}
		note[cs->nown] = check_is_note(line);
		if (!note[cs->nown])
			cs->nown_problems++;
		cs->nown++;
	}
	free(text);
	return true;
}

static void check_note_unreadable(check_state *cs, colfs_node *n,
				  colfs_status st)
{
	char path[4096];
	check_unreadable *grown;

	cs->unreadable++;
	if (cs->nbad >= CHECK_MAX_UNREADABLE_KEPT)
		return;
	grown = realloc(cs->bad, (cs->nbad + 1) * sizeof(*grown));
	if (!grown)
		return;
	cs->bad = grown;
	colfs_node_path(n, path, sizeof(path));
	grown[cs->nbad].path = strdup(path);
	if (!grown[cs->nbad].path)
		return;
	grown[cs->nbad].status = st;
	/* a node that fails after the damage was reported once fails for
	 * the same reason (the tree drops duplicates): only a failure with
	 * no problem recorded at all needs a line of its own */
	grown[cs->nbad].explained = check_any_problem(cs);
	cs->nbad++;
}

/* Read one file node to its end; a range's fresh bytes move the bar as
 * they are read. */
static bool check_read(check_state *cs, colfs_node *n)
{
	colfs_tree *t = cs->tl->tree;
	colfs_handle *h = NULL;
	uint64_t off = 0, roff = 0, rlen = 0, end = 0, fresh = 0;
	bool range = colfs_node_range(n, &roff, &rlen) && rlen &&
		     !__builtin_add_overflow(roff, rlen, &end);
	colfs_status st;

	if (range)
		fresh = check_fresh(cs, roff, end);
	st = colfs_node_open(t, n, &h);
	if (st) {
		check_note_unreadable(cs, n, st);
		return true;
	}
	for (;;) {
		size_t got = 0;

		st = colfs_handle_read(h, off, TOOL_READ_SIZE, cs->buf, &got);
		if (st) {
			check_note_unreadable(cs, n, st);
			break;
		}
		if (got == 0 || got > TOOL_READ_SIZE)
			break;
		off += got;
		check_progress(cs, (double)(off < fresh ? off : fresh));
	}
	colfs_handle_close(h);
	return !range || check_cover(cs, roff, end);
}

/* Visit one node: count it; a file is read (unless `skip`), a directory
 * listed and pushed.  False when out of memory. */
static bool check_visit(check_state *cs, colfs_node *n, bool skip,
			check_frame **stack, size_t *depth, size_t *cap)
{
	colfs_tree *t = cs->tl->tree;
	colfs_node *const *kids;
	size_t nkids;
	colfs_status st;

	cs->nodes++;
	if (!colfs_node_is_dir(n)) {
		/* `errors` documents report, they hold no data */
		if (colfs_node_is_volatile(n))
			return true;
		check_progress_line(cs, n);
		if (skip) {
			cs->skipped++;
			return true;
		}
		if (!check_read(cs, n))
			return false;
		check_progress(cs, 0);
		return true;
	}
	check_progress(cs, 0);
	st = colfs_dir_list(t, n, &kids, &nkids);
	if (st) {
		check_note_unreadable(cs, n, st);
		return true;
	}
	if (*depth == *cap) {
		size_t want = *cap ? *cap * 2 : 32;
		check_frame *grown = realloc(*stack, want * sizeof(*grown));

		if (!grown)
			return false;
		*stack = grown;
		*cap = want;
	}
	(*stack)[(*depth)++] = (check_frame){
		.dir = n, .kids = kids, .nkids = nkids, .skip = skip,
		.errors0 = colfs_tree_error_count(t),
		.unreadable0 = cs->unreadable};
	return true;
}

/* Did the walk of `f`'s directory find anything: a problem recorded
 * meanwhile or filed under its path, or a node it could not read? */
static bool check_dirty(check_state *cs, const check_frame *f)
{
	colfs_tree *t = cs->tl->tree;
	char path[4096];

	if (colfs_tree_error_count(t) != f->errors0 ||
	    cs->unreadable != f->unreadable0)
		return true;
	colfs_node_path(f->dir, path, sizeof(path));
	return colfs_tree_error_count_under(t, path) > 0;
}

static bool check_walk(check_state *cs)
{
	colfs_tree *t = cs->tl->tree;
	colfs_node *root = colfs_tree_root(t);
	check_frame *stack = NULL;
	size_t depth = 0, cap = 0;
	bool ok;

	cs->total = (double)colfs_tree_source_size(t);
	ok = check_visit(cs, root, false, &stack, &depth, &cap);
	while (ok && depth > 0) {
		check_frame *f = &stack[depth - 1];
		colfs_node *n;

		if (f->next == f->nkids && !f->deferring) {
			/* its derived views last, and only when the rest of
			 * it turned out damaged (colfs_node_is_derived) */
			f->deferring = true;
			if (f->nlater && !f->skip && !check_dirty(cs, f))
				f->skip = true;
		}
		if (f->deferring && f->ilater == f->nlater) {
			/* walked: its nodes are not used again (the root's
			 * stay: the output reads nothing through them, but
			 * they are few) */
			if (f->dir != root)
				colfs_dir_release(t, f->dir);
			free(f->later);
			depth--;
			continue;
		}
		if (cs->nodes >= CHECK_MAX_NODES) {
			cs->capped = true;
			break;
		}
		if (f->deferring) {
			n = f->later[f->ilater++];
		} else {
			n = f->kids[f->next++];
			if (colfs_node_is_derived(n) && !f->skip &&
			    !cs->tl->all) {
				if (f->nlater == f->caplater) {
					size_t want = f->caplater ?
						      f->caplater * 2 : 8;
					colfs_node **grown = realloc(
						f->later, want * sizeof(*grown));

					if (!grown) {
						ok = false;
						break;
					}
					f->later = grown;
					f->caplater = want;
				}
				f->later[f->nlater++] = n;
				continue;
			}
		}
		ok = check_visit(cs, n, f->skip, &stack, &depth, &cap);
	}
	while (depth > 0)
		free(stack[--depth].later);
	free(stack);
	if (!ok)
		return false;
	cs->complete = !cs->capped;
	if (cs->progress_lines)
		fprintf(stderr, "%5.1f%% done\n", 100 * check_fraction(cs, 0));
	return true;
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 when invalid. */
static size_t check_utf8_len(const unsigned char *p)
{
	size_t n;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)  /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* JSON string literal of `s`.  Messages quote names from the file, which
 * need not be UTF-8: a byte that is not part of valid UTF-8 is written as
 * the four characters \xNN, so the document stays valid JSON. */
void check_json_str(tool *tl, const char *s)
{
	tool_printf(tl, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = check_utf8_len(p);

		if (n == 0)
			tool_printf(tl, "\\\\x%02x", *p);
		else if (n > 1)
			tool_printf(tl, "%.*s", (int)n, (const char *)p);
		else if (*p == '"' || *p == '\\')
			tool_printf(tl, "\\%c", *p);
		else if (*p == '\n')
			tool_printf(tl, "\\n");
		else if (*p == '\t')
			tool_printf(tl, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			tool_printf(tl, "\\u%04x", *p);
		else
			tool_printf(tl, "%c", *p);
		p += n ? n : 1;
	}
	tool_printf(tl, "\"");
}

/* The damaged parts and the rows each hides (colfs_tree_damaged_get):
 * one line each, then the total, before the summary; in --json the
 * list "damaged_parts" and the totals "hidden_rows" (of the parts whose
 * count is known) and "hidden_rows_unknown" (parts whose count is not). */
static void check_hidden_output(check_state *cs, bool json)
{
	tool *tl = cs->tl;
	size_t n = colfs_tree_damaged_count(tl->tree), unknown = 0;
	uint64_t total = 0;
	colfs_damaged_part *d = malloc(sizeof(*d));
	size_t i;

	if (json)
		tool_printf(tl, ", \"damaged_parts\": [");
	for (i = 0; d && i < n; i++) {
		char where[48];

		if (colfs_tree_damaged_get(tl->tree, i, d))
			break;
		if (d->rows == COLFS_ROWS_UNKNOWN)
			unknown++;
		else
			total += d->rows;
		if (json) {
			tool_printf(tl, "%s\n  {\"path\": ", i ? "," : "");
			check_json_str(tl, d->path);
			if (d->offset == COLFS_OFFSET_UNKNOWN)
				tool_printf(tl, ", \"offset\": null");
			else
				tool_printf(tl, ", \"offset\": %" PRIu64,
					    d->offset);
			if (d->rows == COLFS_ROWS_UNKNOWN)
				tool_printf(tl, ", \"rows\": null}");
			else
				tool_printf(tl, ", \"rows\": %" PRIu64 "}",
					    d->rows);
		} else if (d->rows == COLFS_ROWS_UNKNOWN) {
			tool_printf(tl, "%s: %s: hides rows, how many is "
				    "unknown\n", d->path,
				    colfs_offset_text(d->offset, where,
						      sizeof where));
		} else {
			tool_printf(tl, "%s: %s: hides %" PRIu64 " row%s\n",
				    d->path,
				    colfs_offset_text(d->offset, where,
						      sizeof where),
				    d->rows, d->rows == 1 ? "" : "s");
		}
	}
	free(d);
	if (json) {
		tool_printf(tl, "%s], \"hidden_rows\": %" PRIu64
			    ", \"hidden_rows_unknown\": %zu", i ? "\n" : "",
			    total, unknown);
	} else if (i) {
		tool_printf(tl, "%s: %" PRIu64 " row%s hidden by %zu damaged "
			    "part%s", tl->file, total, total == 1 ? "" : "s",
			    i - unknown, i - unknown == 1 ? "" : "s");
		if (unknown)
			tool_printf(tl, "; %zu more part%s hide%s rows, how "
				    "many is unknown", unknown,
				    unknown == 1 ? "" : "s",
				    unknown == 1 ? "s" : "");
		tool_printf(tl, "\n");
	}
}

static int check_output(check_state *cs, bool json)
{
	tool *tl = cs->tl;
	size_t total = colfs_tree_error_count(tl->tree);
	size_t kept = 0, nmine = 0;
	bool healthy;
	colfs_problem *p = malloc(sizeof(*p));
	char **mine = calloc(total + 1, sizeof(*mine));

	if (!p || !mine) {
		free(p);
		free(mine);
		fprintf(stderr, "colfs-tool: out of memory\n");
		return TOOL_FAIL;
	}
	/* the tree's problems as lines, then the root's `errors` lines
	 * that are none of them: a dataset's own */
	for (size_t i = 0; i < total; i++) {
		char where[48], line[sizeof(p->path) + sizeof(p->message) + 96];

		if (colfs_tree_error_get(tl->tree, i, p))
			break;
		snprintf(line, sizeof(line), "%s: %s: %s: %s", p->path,
			 colfs_offset_text(p->offset, where, sizeof where),
			 colfs_status_name(p->status), p->message);
		if (!(mine[nmine] = strdup(line)))
			break;
		nmine++;
	}
	qsort(mine, nmine, sizeof(*mine), check_line_cmp);
	if (nmine < total || !check_own_lines(cs, mine, nmine)) {
		for (size_t i = 0; i < nmine; i++)
			free(mine[i]);
		free(mine);
		free(p);
		fprintf(stderr, "colfs-tool: out of memory\n");
		return TOOL_FAIL;
	}
	for (size_t i = 0; i < nmine; i++)
		free(mine[i]);
	free(mine);
	total += cs->nown_problems;
	healthy = total == 0 && cs->unreadable == 0 && !cs->capped;
	if (json) {
		tool_printf(tl, "{\"file\": ");
		check_json_str(tl, tl->file);
		tool_printf(tl, ", \"readable\": true, \"format\": ");
		check_json_str(tl, colfs_tree_format(tl->tree));
		tool_printf(tl, ", \"healthy\": %s, \"nodes\": %" PRIu64
			    ", \"unreadable\": %" PRIu64
			    ", \"derived_not_read\": %" PRIu64
			    ", \"complete\": %s, \"problem_count\": %zu"
			    ", \"problems\": [",
			    healthy ? "true" : "false", cs->nodes,
			    cs->unreadable, cs->skipped,
			    cs->capped ? "false" : "true", total);
	}
	for (size_t i = 0; i < total - cs->nown_problems; i++) {
		if (colfs_tree_error_get(tl->tree, i, p))
			break;
		if (json) {
			tool_printf(tl, "%s\n  {\"path\": ", kept ? "," : "");
			check_json_str(tl, p->path);
			if (p->offset == COLFS_OFFSET_UNKNOWN)
				tool_printf(tl, ", \"offset\": null, \"kind\": ");
			else
				tool_printf(tl, ", \"offset\": %" PRIu64
					    ", \"kind\": ", p->offset);
			check_json_str(tl, colfs_status_name(p->status));
			tool_printf(tl, ", \"message\": ");
			check_json_str(tl, p->message);
			tool_printf(tl, "}");
		} else {
			char where[48];

			tool_printf(tl, "%s: %s: %s: %s\n", p->path,
				    colfs_offset_text(p->offset, where,
						      sizeof where),
				    colfs_status_name(p->status), p->message);
		}
		kept++;
	}
	free(p);
	if (json) {
		for (int notes = 0; notes < 2; notes++) {
			size_t shown = 0;

			tool_printf(tl, "%s], \"%s\": [",
				    notes ? "" : kept ? "\n" : "",
				    notes ? "dataset_notes" : "dataset_problems");
			for (size_t i = 0; i < cs->nown; i++) {
				if (cs->own_note[i] != (notes == 1))
					continue;
				tool_printf(tl, "%s\n  ", shown++ ? "," : "");
				check_json_str(tl, cs->own[i]);
			}
			if (shown)
				tool_printf(tl, "\n");
		}
		tool_printf(tl, "], \"unreadable_nodes\": [");
		for (size_t i = 0; i < cs->nbad; i++) {
			tool_printf(tl, "%s\n  {\"path\": ", i ? "," : "");
			check_json_str(tl, cs->bad[i].path);
			tool_printf(tl, ", \"kind\": ");
			check_json_str(tl, colfs_status_name(cs->bad[i].status));
			tool_printf(tl, "}");
		}
		tool_printf(tl, "%s]", cs->nbad ? "\n" : "");
		check_hidden_output(cs, true);
		tool_printf(tl, "}\n");
	} else {
		for (size_t i = 0; i < cs->nown; i++)
			tool_printf(tl, "%s\n", cs->own[i]);
		/* a node that failed without the tree saying why */
		for (size_t i = 0; i < cs->nbad; i++)
			if (!cs->bad[i].explained)
				tool_printf(tl, "%s: unreadable: %s\n",
					    cs->bad[i].path,
					    colfs_status_name(
						    cs->bad[i].status));
		if (kept + cs->nown_problems < total)
			tool_printf(tl, "%s: %zu more problems not kept\n",
				    tl->file, total - cs->nown_problems - kept);
		if (cs->capped)
			tool_printf(tl, "%s: stopped after %u nodes\n",
				    tl->file, CHECK_MAX_NODES);
		check_hidden_output(cs, false);
		if (healthy)
			tool_printf(tl, "%s: healthy, %" PRIu64
				    " nodes read\n", tl->file, cs->nodes);
		else
			tool_printf(tl, "%s: %zu problem%s in %" PRIu64
				    " nodes; %" PRIu64 " node%s unreadable\n",
				    tl->file, total, total == 1 ? "" : "s",
				    cs->nodes, cs->unreadable,
				    cs->unreadable == 1 ? "" : "s");
	}
	return healthy ? TOOL_OK : TOOL_FAIL;
}

int tool_check(tool *tl)
{
	check_state cs;
	int rc;

	memset(&cs, 0, sizeof(cs));
	cs.tl = tl;
	cs.progress = isatty(STDERR_FILENO) == 1;
	cs.progress_lines = tl->progress && !cs.progress;
	cs.buf = malloc(TOOL_READ_SIZE);
	/* check writes no index: what it learns would only be held */
	colfs_tree_sizes_compare_only(tl->tree);
	if (!cs.buf || !check_walk(&cs)) {
		check_progress_clear(&cs);
		fprintf(stderr, "colfs-tool: out of memory\n");
		for (size_t i = 0; i < cs.nbad; i++)
			free(cs.bad[i].path);
		free(cs.bad);
		free(cs.ext);
		free(cs.buf);
		return TOOL_FAIL;
	}
	check_progress_clear(&cs);
	rc = check_output(&cs, tl->json);
	for (size_t i = 0; i < cs.nbad; i++)
		free(cs.bad[i].path);
	free(cs.bad);
	for (size_t i = 0; i < cs.nown; i++)
		free(cs.own[i]);
	free(cs.own);
	free(cs.own_note);
	free(cs.ext);
	free(cs.buf);
	if (tl->status > rc)
		rc = tl->status;
	return rc;
}

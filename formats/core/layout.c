/* colfs: the `layout` document and its picture, `layout.svg` (layout.h;
 * docs/tree.md, "layout" and "layout.svg"). */
#include "layout.h"
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void colfs_layout_add(colfs_layout *l, uint64_t off, uint64_t len,
		      const char *kind, const char *path_fmt, ...)
{
	char *path = NULL;
	va_list ap;

	if (l->failed)
		return;
	va_start(ap, path_fmt);
	if (vasprintf(&path, path_fmt, ap) < 0)
		path = NULL;
	va_end(ap);
	if (!path) {
		l->failed = true;
		return;
	}
	if (!colfs_grow((void **)&l->r, &l->cap, l->n + 1, sizeof *l->r)) {
		free(path);
		l->failed = true;
		return;
	}
	l->r[l->n++] = (colfs_layout_region){off, len, kind, path};
}

void colfs_layout_free(colfs_layout *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->r[i].path);
	free(l->r);
	*l = (colfs_layout)COLFS_LAYOUT_INIT;
}

static int region_cmp(const void *a, const void *b)
{
	const colfs_layout_region *x = a, *y = b;
	int c;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = strcmp(x->path, y->path);
	return c ? c : strcmp(x->kind, y->kind);
}

static void line(colfs_buf *out, uint64_t off, uint64_t len, const char *kind,
		 const char *path)
{
	colfs_buf_printf(out, "%llu %llu %s %s\n", (unsigned long long)off,
			 (unsigned long long)len, kind, path);
}

colfs_status colfs_layout_write(colfs_layout *l, uint64_t size,
				colfs_buf *out)
{
	/* covered: the end of the bytes the regions so far claim. */
	uint64_t covered = 0;

	if (l->failed) {
		colfs_layout_free(l);
		return COLFS_ENOMEM;
	}
	if (l->n > 1)
		qsort(l->r, l->n, sizeof *l->r, region_cmp);
	for (size_t i = 0; i < l->n; i++) {
		const colfs_layout_region *r = &l->r[i];
		/* lengths come from the file: a region may claim bytes past
		 * the end, or past 2^64 (cut there) */
		uint64_t end = r->len > UINT64_MAX - r->off ? UINT64_MAX
							    : r->off + r->len;

		if (r->off > covered && covered < size)
			line(out, covered,
			     (r->off < size ? r->off : size) - covered, "gap",
			     "-");
		line(out, r->off, r->len, r->kind, r->path);
		if (r->off < covered && end > r->off)
			line(out, r->off,
			     (covered < end ? covered : end) - r->off,
			     "overlap", "-");
		if (end > covered)
			covered = end;
	}
	if (covered < size)
		line(out, covered, size - covered, "gap", "-");
	colfs_layout_free(l);
	return colfs_buf_status(out);
}

/* ------------------------------------------------------------------------
 * layout.svg: the picture of a `layout` (docs/tree.md, "layout.svg").
 *
 * Made from the text of the layout node beside it (so the picture and the
 * text never disagree), in one pass over its lines: one band scaled to the
 * file (or, in a row group or stripe, to the span of its regions), one
 * <rect> per line in scope with a <title> giving its path, offset and
 * length, colored by the category of its kind.  The innermost region
 * holding the byte offset of a problem filed so far is drawn in the
 * damage color; overlaps
 * are drawn in a strip above the band, gaps hatched.  Volatile (made again
 * at each open, as `errors`): the damage shown is what is known now.
 */
#include "tree_int.h"

#define SVG_W 1200          /* band width, pixels */
#define SVG_X 20            /* left margin */
#define SVG_BAND_Y 70
#define SVG_BAND_H 80
#define SVG_DAMAGE "#e41a1c"

typedef struct svg_line {
	uint64_t off, len;
	const char *kind;       /* points into the layout text */
	size_t kind_len;
	const char *path;
	size_t path_len;
} svg_line;

/* A picture's marks on a line (an array beside the lines: the lines of
 * a large layout are shared by every picture, svg_lines_of). */
enum { SVG_IN_SCOPE = 1, SVG_DAMAGED = 2 };


/* Categories of region kinds, with their colors (the legend lists those
 * present). */
static const struct svg_cat {
	const char *name, *color, *kinds;   /* kinds: " k1 k2 ... " */
} svg_cats[] = {
	{"data", "#4e79a7",
	 " column_chunk stripe_data data_block "},
	{"index", "#f28e2b",
	 " column_index offset_index stripe_index positional_index_block "
	 "value_index_block "},
	{"dictionary", "#edc948", " dictionary_block dictionary_page "},
	{"bloom filter", "#b07aa1", " bloom_filter "},
	{"footer", "#59a14f",
	 " footer footer_length stripe_footer metadata postscript "
	 "postscript_length header "},
	{"magic", "#555555", " magic "},
	{"other", "#76b7b2", ""},
	{"gap", "#d9d9d9", " gap "},
	{"overlap", "#000000", " overlap "},
};
#define SVG_NCATS (sizeof svg_cats / sizeof svg_cats[0])
#define SVG_OTHER 6

/* The parsed lines of a layout that is a stream (a large footer's: its
 * text, some megabytes, is made from the file's metadata alone, so it
 * never changes): made once for the tree, kept with it (tree_int.h), and
 * read by each row group's picture, which otherwise made and parsed the
 * whole file's layout again (a row group of a 200-row-group file paid
 * for all 200).  Only the kinds and paths of the text are kept (the
 * numbers are in the lines).  The root picture of such a layout is a
 * stream of pieces made from these lines (svg_piece); its marks are
 * taken at its first piece and kept, so that every piece, made again
 * after the cache dropped it, shows the same damage. */
struct colfs_svg_lines {
	char *text;             /* the kinds (each once) and paths */
	svg_line *v;
	size_t n;
	bool marked;            /* the root picture's marks, once taken: */
	uint8_t *fl;            /* SVG_IN_SCOPE, SVG_DAMAGED of each line */
	size_t shown, damaged;
	bool present[SVG_NCATS];
};

static size_t svg_cat_of(const char *kind, size_t len)
{
	for (size_t c = 0; c < SVG_NCATS; c++) {
		const char *k = svg_cats[c].kinds;
		for (const char *p = strstr(k, " "); p && p[1];
		     p = strchr(p + 1, ' ')) {
			const char *w = p + 1, *e = strchr(w, ' ');
			if (e && (size_t)(e - w) == len &&
			    memcmp(w, kind, len) == 0)
				return c;
		}
	}
	return SVG_OTHER;
}

/* Text for XML: the five markup characters as entities, bytes that are
 * not UTF-8 as "\xHH" (names keep the file's bytes; docs/tree.md "Names"). */
static void svg_text(colfs_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 :
			   (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
		bool ok = n > 0 && i + n <= len && (c < 0x80 || c >= 0xC2);
		for (size_t k = 1; ok && k < n; k++)
			ok = (p[i + k] & 0xC0) == 0x80;
		if (!ok || (c < 0x20 && c != '\t')) {
			colfs_buf_printf(out, "\\x%02X", c);
			i++;
			continue;
		}
		switch (c) {
		case '<': colfs_buf_puts(out, "&lt;"); break;
		case '>': colfs_buf_puts(out, "&gt;"); break;
		case '&': colfs_buf_puts(out, "&amp;"); break;
		case '"': colfs_buf_puts(out, "&quot;"); break;
		case '\'': colfs_buf_puts(out, "&apos;"); break;
		default: colfs_buf_append(out, p + i, n);
		}
		i += n;
	}
}

/* The lines of a layout text (malloc'd array; false when out of memory
 * or a line not in the grammar, which colfs_layout_write never makes). */
static bool svg_parse(const char *text, size_t len, svg_line **out, size_t *n)
{
	svg_line *v = NULL;
	size_t k = 0, cap = 0;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char num[24];
		svg_line l = {0};
		const char *sp1 = memchr(p, ' ', (size_t)(le - p));
		const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(le - sp1 - 1)) : NULL;
		const char *sp3 = sp2 ? memchr(sp2 + 1, ' ', (size_t)(le - sp2 - 1)) : NULL;

		if (!sp3 || (size_t)(sp1 - p) >= sizeof num ||
		    (size_t)(sp2 - sp1 - 1) >= sizeof num)
			goto bad;
		memcpy(num, p, (size_t)(sp1 - p));
		num[sp1 - p] = '\0';
		l.off = strtoull(num, NULL, 10);
		memcpy(num, sp1 + 1, (size_t)(sp2 - sp1 - 1));
		num[sp2 - sp1 - 1] = '\0';
		l.len = strtoull(num, NULL, 10);
		l.kind = sp2 + 1;
		l.kind_len = (size_t)(sp3 - sp2 - 1);
		l.path = sp3 + 1;
		l.path_len = (size_t)(le - sp3 - 1);
		if (!colfs_grow((void **)&v, &cap, k + 1, sizeof *v))
			goto bad;
		v[k++] = l;
		p = nl ? nl + 1 : end;
	}
	*out = v;
	*n = k;
	return true;
bad:
	free(v);
	return false;
}

/* Point the lines at a copy of their kinds and paths alone (a kind seen
 * before is not copied again) and free the text: the numbers, the spaces
 * and the newlines are dropped (false when out of memory: nothing
 * changed). */
static bool svg_keep_names(struct colfs_svg_lines *sl)
{
	enum { KINDS = 32 };
	const char *kind[KINDS];
	size_t kind_len[KINDS], nk, need = 0, at = 0;
	char *names = NULL;

	/* two passes: the room needed, then the copy (the same kinds are
	 * met in the same order in both) */
	for (int pass = 0; pass < 2; pass++) {
		nk = 0;
		for (size_t i = 0; i < sl->n; i++) {
			svg_line *l = &sl->v[i];
			const char *k = NULL;

			for (size_t j = 0; j < nk && !k; j++)
				if (kind_len[j] == l->kind_len &&
				    memcmp(kind[j], l->kind, l->kind_len) == 0)
					k = kind[j];
			if (!k) {
				if (pass == 0) {
					k = l->kind;
					need += l->kind_len;
				} else {
					memcpy(names + at, l->kind, l->kind_len);
					k = names + at;
					at += l->kind_len;
				}
				if (nk < KINDS) {
					kind[nk] = k;
					kind_len[nk++] = l->kind_len;
				}
			}
			if (pass == 0) {
				need += l->path_len;
				continue;
			}
			l->kind = k;
			memcpy(names + at, l->path, l->path_len);
			l->path = names + at;
			at += l->path_len;
		}
		if (pass == 0 && !(names = malloc(need ? need : 1)))
			return false;
	}
	free(sl->text);
	sl->text = names;
	return true;
}

/* The shared lines of `layout` (a stream), made at the first call. */
static colfs_status svg_lines_of(colfs_tree *t, colfs_node *layout,
				 const struct colfs_svg_lines **out)
{
	colfs_status st = COLFS_OK;
	colfs_buf text = COLFS_BUF_INIT;
	struct colfs_svg_lines *sl = NULL;
	size_t len = 0;

	*out = NULL;
	/* a stream's generate runs under no tree lock; the tree lock is
	 * never held while a stream lock is taken (tree_read.c) */
	colfs_tree_lock(t);
	if (t->svg_lines && t->svg_layout != layout) {
		/* another layout stream: not shared (only the root's layout
		 * is ever one) */
		colfs_tree_unlock(t);
		return COLFS_OK;
	}
	sl = t->svg_lines;
	if (!sl) {
		sl = calloc(1, sizeof *sl);
		st = sl ? layout->ops->generate(t, layout, &text) : COLFS_ENOMEM;
		if (st == COLFS_OK)
			st = colfs_buf_status(&text);
		if (st == COLFS_OK) {
			sl->text = colfs_buf_take(&text, &len);
			if (!svg_parse(sl->text, len, &sl->v, &sl->n) ||
			    !svg_keep_names(sl))
				st = COLFS_ENOMEM;
		}
		if (st == COLFS_OK) {
			t->svg_lines = sl;
			t->svg_layout = layout;
			t->svg_lines_free = colfs_svg_lines_free;
		} else {
			colfs_buf_free(&text);
			colfs_svg_lines_free(sl);
			sl = NULL;
		}
	}
	colfs_tree_unlock(t);
	*out = sl;
	return st;
}

void colfs_svg_lines_free(struct colfs_svg_lines *sl)
{
	if (!sl)
		return;
	free(sl->text);
	free(sl->v);
	free(sl->fl);
	free(sl);
}

static bool svg_is(const svg_line *l, const char *kind)
{
	return l->kind_len == strlen(kind) &&
	       memcmp(l->kind, kind, l->kind_len) == 0;
}

/* Mark the regions that hold a problem's offset: each offset goes to the
 * innermost region holding it (the one starting last), so a footer that
 * claims a chunk's bytes too is not blamed for the chunk's problem.  The
 * lines are sorted by offset. */
static void svg_damage(const svg_line *v, uint8_t *fl, size_t n,
		       const uint64_t *offs, size_t noffs)
{
	for (size_t k = 0; k < noffs; k++) {
		uint64_t o = offs[k];
		size_t lo = 0, hi = n;

		/* the first line starting past o */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].off <= o)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* back to the nearest region holding o (a bounded walk: the
		 * regions between are short ones that end before o) */
		for (size_t i = lo, steps = 0; i > 0 && steps < 4096;
		     i--, steps++) {
			const svg_line *l = &v[i - 1];
			if (svg_is(l, "gap") || svg_is(l, "overlap"))
				continue;
			if (l->len > o - l->off) {
				fl[i - 1] |= SVG_DAMAGED;
				break;
			}
		}
	}
}

static double svg_x(uint64_t at, uint64_t lo, uint64_t span)
{
	if (at < lo)
		at = lo;
	if (at - lo > span)
		at = lo + span;
	return SVG_X + (span ? (double)(at - lo) / (double)span * SVG_W : 0);
}

/* Mark the lines in scope: the regions under `dir` (all for NULL), the
 * overlap lines after such a region, and the gaps between them. */
static void svg_scope(const svg_line *v, uint8_t *fl, size_t n,
		      const char *dir, uint64_t *lo, uint64_t *hi)
{
	size_t dl = dir ? strlen(dir) : 0;
	bool prev = false;

	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t i = 0; i < n; i++) {
		const svg_line *l = &v[i];
		bool gap = svg_is(l, "gap"), over = svg_is(l, "overlap");
		bool in = false;

		if (over)
			in = prev;
		else if (!gap)
			in = !dir ||
			     (l->path_len >= dl &&
			      memcmp(l->path, dir, dl) == 0 &&
			      (l->path_len == dl || l->path[dl] == '/'));
		if (in)
			fl[i] |= SVG_IN_SCOPE;
		if (!gap && !over) {
			prev = in;
			if (in) {
				uint64_t e = l->len > UINT64_MAX - l->off
						     ? UINT64_MAX
						     : l->off + l->len;
				if (l->off < *lo)
					*lo = l->off;
				if (e > *hi)
					*hi = e;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (svg_is(&v[i], "gap") &&
		    (!dir || (*lo < *hi && v[i].off >= *lo &&
			      v[i].off + v[i].len <= *hi)))
			fl[i] |= SVG_IN_SCOPE;
	if (*lo > *hi)
		*lo = *hi = 0;
}

/* The file's base name: the same picture for a path and a URL. */
static const char *svg_name(colfs_tree *t)
{
	const char *name = colfs_tree_display_name(t);

	if (strrchr(name, '/') && strrchr(name, '/')[1])
		name = strrchr(name, '/') + 1;
	return name;
}

/* The picture up to its regions: heading, axis, band (`where`: the
 * directory, NULL at the root). */
static void svg_head(colfs_buf *out, const char *name, const char *where,
		     uint64_t lo, uint64_t hi, uint64_t size, size_t shown,
		     size_t damaged)
{
	const unsigned height = SVG_BAND_Y + SVG_BAND_H + 110;

	colfs_buf_printf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" "
		"font-size=\"12\">\n",
		SVG_W + 2 * SVG_X, height, SVG_W + 2 * SVG_X, height);
	colfs_buf_puts(out, "<title>");
	svg_text(out, name, strlen(name));
	colfs_buf_printf(out, "%s%s layout</title>\n", where ? " " : "",
			 where ? where : "");
	colfs_buf_puts(out,
		"<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"6\" height=\"6\" fill=\"#d9d9d9\"/>"
		"<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" "
		"stroke-width=\"2\"/></pattern></defs>\n"
		"<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	colfs_buf_printf(out, "<text x=\"%d\" y=\"20\" font-size=\"14\">",
			 SVG_X);
	svg_text(out, name, strlen(name));
	if (where) {
		colfs_buf_putc(out, ' ');
		svg_text(out, where, strlen(where));
	}
	colfs_buf_printf(out,
		": bytes %llu to %llu of %llu, %zu lines of layout, %zu damaged"
		"</text>\n",
		(unsigned long long)lo, (unsigned long long)hi,
		(unsigned long long)size, shown, damaged);
	/* the axis: five ticks */
	for (int k = 0; k <= 4; k++) {
		uint64_t at = lo + (hi - lo) / 4 * (uint64_t)k;
		double x = svg_x(k == 4 ? hi : at, lo, hi - lo);
		colfs_buf_printf(out,
			"<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
			"stroke=\"#888888\"/><text x=\"%.2f\" y=\"%d\" "
			"text-anchor=\"%s\" fill=\"#444444\">%llu</text>\n",
			x, SVG_BAND_Y + SVG_BAND_H, x,
			SVG_BAND_Y + SVG_BAND_H + 6, x,
			SVG_BAND_Y + SVG_BAND_H + 20,
			k == 0 ? "start" : k == 4 ? "end" : "middle",
			(unsigned long long)(k == 4 ? hi : at));
	}
	colfs_buf_printf(out,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#888888\"/>\n",
		SVG_X, SVG_BAND_Y, SVG_W, SVG_BAND_H);
}

/* One region of the picture, its band scaled to [lo, hi). */
static void svg_rect(colfs_buf *out, const svg_line *l, bool bad,
		     uint64_t lo, uint64_t hi)
{
	const size_t c = svg_cat_of(l->kind, l->kind_len);
	const bool over = c == SVG_NCATS - 1, gap = c == SVG_NCATS - 2;
	const uint64_t end = l->len > UINT64_MAX - l->off ? UINT64_MAX
							  : l->off + l->len;
	double x0 = svg_x(l->off, lo, hi - lo);
	double w = svg_x(end, lo, hi - lo) - x0;

	/* a region too small to see still shows as a line; a white
	 * edge parts neighbours wide enough not to be hidden by it */
	const bool edge = w >= 4 && !gap && !over;
	if (w < 1)
		w = 1;
	colfs_buf_printf(out,
		"<rect class=\"region %s%s\" x=\"%.2f\" y=\"%d\" "
		"width=\"%.2f\" height=\"%d\" fill=\"%s\"%s>"
		"<title>",
		over ? "overlap" : gap ? "gap" : "part",
		bad ? " damaged" : "", x0,
		over ? SVG_BAND_Y - 14 : SVG_BAND_Y, w,
		over ? 10 : SVG_BAND_H,
		bad ? SVG_DAMAGE : gap ? "url(#hatch)" : svg_cats[c].color,
		edge ? " stroke=\"#ffffff\" stroke-width=\"0.5\"" : "");
	if (gap || over)
		svg_text(out, l->kind, l->kind_len);
	else
		svg_text(out, l->path, l->path_len);
	colfs_buf_puts(out, " (");
	svg_text(out, l->kind, l->kind_len);
	colfs_buf_printf(out, "%s): offset %llu length %llu</title></rect>\n",
			 bad ? ", damaged" : "", (unsigned long long)l->off,
			 (unsigned long long)l->len);
}

/* The end of the picture: the legend (the categories present, and damage
 * when there is some). */
static void svg_tail(colfs_buf *out, const bool *present, size_t damaged)
{
	int x = SVG_X, y = SVG_BAND_Y + SVG_BAND_H + 50;

	for (size_t c = 0; c <= SVG_NCATS; c++) {
		const char *name, *color;
		if (c == SVG_NCATS) {
			if (!damaged)
				break;
			name = "damaged";
			color = SVG_DAMAGE;
		} else {
			if (!present[c])
				continue;
			name = svg_cats[c].name;
			color = svg_cats[c].color;
		}
		colfs_buf_printf(out,
			"<rect x=\"%d\" y=\"%d\" width=\"14\" "
			"height=\"14\" fill=\"%s\" stroke=\"#888888\"/>"
			"<text x=\"%d\" y=\"%d\">%s</text>\n",
			x, y, strcmp(name, "gap") == 0 ? "url(#hatch)" : color,
			x + 20, y + 12, name);
		x += 30 + 8 * (int)strlen(name);
	}
	colfs_buf_puts(out, "</svg>\n");
}

static colfs_status svg_generate(colfs_tree *t, colfs_node *file,
				 colfs_buf *out)
{
	colfs_node *layout = colfs_node_ctx(file);
	colfs_node *dir = colfs_node_parent(file);
	colfs_buf text = COLFS_BUF_INIT;
	svg_line *v = NULL;
	const svg_line *lines;
	uint8_t *fl = NULL;
	uint64_t *offs = NULL;
	size_t n = 0, noffs = 0, shown = 0, damaged = 0;
	uint64_t size = colfs_tree_source_size(t), lo = 0, hi = size;
	bool present[SVG_NCATS] = {false};
	char where[4096];
	const bool root = dir == colfs_tree_root(t);
	colfs_status st;

	if (!layout->ops || !layout->ops->generate)
		return COLFS_EUNSUPPORTED;
	const struct colfs_svg_lines *sl = NULL;

	if (layout->kind == COLFS_CONTENT_STREAM) {
		st = svg_lines_of(t, layout, &sl);
		if (st != COLFS_OK)
			return st;
	}
	if (sl) {
		lines = sl->v;
		n = sl->n;
	} else {
		st = layout->ops->generate(t, layout, &text);
		if (st == COLFS_OK)
			st = colfs_buf_status(&text);
		if (st != COLFS_OK) {
			colfs_buf_free(&text);
			return st;
		}
		if (!svg_parse(text.data, text.len, &v, &n)) {
			colfs_buf_free(&text);
			return COLFS_ENOMEM;
		}
		lines = v;
	}
	fl = calloc(n ? n : 1, 1);
	if (!fl || !colfs_tree_problem_offsets(t, &offs, &noffs)) {
		free(fl);
		free(v);
		colfs_buf_free(&text);
		return COLFS_ENOMEM;
	}
	colfs_node_path(dir, where, sizeof where);
	svg_scope(lines, fl, n, root ? NULL : where, &lo, &hi);
	svg_damage(lines, fl, n, offs, noffs);
	if (root) {
		lo = 0;
		hi = size;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(fl[i] & SVG_IN_SCOPE))
			continue;
		shown++;
		present[svg_cat_of(lines[i].kind, lines[i].kind_len)] = true;
		if (fl[i] & SVG_DAMAGED)
			damaged++;
	}
	svg_head(out, svg_name(t), root ? NULL : where, lo, hi, size, shown,
		 damaged);
	for (size_t i = 0; i < n; i++)
		if (fl[i] & SVG_IN_SCOPE)
			svg_rect(out, &lines[i], fl[i] & SVG_DAMAGED, lo, hi);
	svg_tail(out, present, damaged);
	free(fl);
	free(v);
	free(offs);
	colfs_buf_free(&text);
	return colfs_buf_status(out);
}

/* ------------------------------------------------------------------------
 * The root picture of a large footer's layout: a stream of pieces made
 * from the shared lines, the same bytes as svg_generate makes of them
 * (piece 0 the heading, then SVG_PIECE_LINES regions a piece, then the
 * legend), so that no picture of 200,000 chunks (97 MB) is made whole.
 */
#define SVG_PIECE_LINES 1024

/* Take the root picture's marks (all lines are in its scope) once. */
static colfs_status svg_root_marks(colfs_tree *t,
				   struct colfs_svg_lines *sl)
{
	uint64_t *offs = NULL, lo, hi;
	size_t noffs = 0;
	uint8_t *fl = NULL;
	colfs_status st = COLFS_OK;

	colfs_tree_lock(t);
	if (sl->marked) {
		colfs_tree_unlock(t);
		return COLFS_OK;
	}
	fl = calloc(sl->n ? sl->n : 1, 1);
	if (!fl || !colfs_tree_problem_offsets(t, &offs, &noffs)) {
		st = COLFS_ENOMEM;
		goto out;
	}
	svg_scope(sl->v, fl, sl->n, NULL, &lo, &hi);
	svg_damage(sl->v, fl, sl->n, offs, noffs);
	for (size_t i = 0; i < sl->n; i++) {
		if (!(fl[i] & SVG_IN_SCOPE))
			continue;
		sl->shown++;
		sl->present[svg_cat_of(sl->v[i].kind, sl->v[i].kind_len)] = true;
		if (fl[i] & SVG_DAMAGED)
			sl->damaged++;
	}
	sl->fl = fl;
	fl = NULL;
	sl->marked = true;
out:
	colfs_tree_unlock(t);
	free(fl);
	free(offs);
	return st;
}

static colfs_status svg_piece(colfs_tree *t, colfs_node *file,
			      uint64_t index, colfs_buf *out)
{
	colfs_node *layout = colfs_node_ctx(file);
	const struct colfs_svg_lines *sl = NULL;
	uint64_t npieces, size = colfs_tree_source_size(t);
	colfs_status st;

	if (!layout->ops || !layout->ops->generate)
		return COLFS_EUNSUPPORTED;
	st = svg_lines_of(t, layout, &sl);
	if (st != COLFS_OK)
		return st;
	if (!sl)
		/* the lines of another layout stream: one piece */
		return index ? COLFS_END : svg_generate(t, file, out);
	st = svg_root_marks(t, (struct colfs_svg_lines *)sl);
	if (st != COLFS_OK)
		return st;
	npieces = (sl->n + SVG_PIECE_LINES - 1) / SVG_PIECE_LINES;
	if (index == 0) {
		svg_head(out, svg_name(t), NULL, 0, size, size, sl->shown,
			 sl->damaged);
	} else if (index <= npieces) {
		size_t i = (size_t)(index - 1) * SVG_PIECE_LINES;
		size_t end = sl->n - i < SVG_PIECE_LINES ? sl->n
							 : i + SVG_PIECE_LINES;
		for (; i < end; i++)
			if (sl->fl[i] & SVG_IN_SCOPE)
				svg_rect(out, &sl->v[i],
					 sl->fl[i] & SVG_DAMAGED, 0, size);
	} else if (index == npieces + 1) {
		svg_tail(out, sl->present, sl->damaged);
	} else {
		return COLFS_END;
	}
	return colfs_buf_status(out);
}

static const colfs_node_ops svg_ops = {.generate = svg_generate};
static const colfs_node_ops svg_stream_ops = {.piece = svg_piece};

colfs_node *colfs_dir_add_layout_svg(colfs_tree *t, colfs_node *dir,
				     colfs_node *layout)
{
	colfs_node *n;

	if (!layout &&
	    colfs_dir_lookup(t, colfs_tree_root(t), "layout", &layout) != COLFS_OK)
		return NULL;
	if (layout->kind == COLFS_CONTENT_STREAM)
		/* a large footer's layout is a report: its picture is a
		 * stream, of pieces at the root (svg_piece) */
		return colfs_dir_add_stream(t, dir, "layout.svg",
					    dir == colfs_tree_root(t)
						    ? &svg_stream_ops
						    : &svg_ops,
					    layout);
	n = colfs_dir_add_doc(t, dir, "layout.svg", &svg_ops, layout);
	if (n)
		n->is_volatile = true;
	return n;
}

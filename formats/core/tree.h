/* colfs: the tree model as format modules see it.
 *
 * A format builds its tree lazily: each directory node carries ops whose
 * `populate` adds the children the first time the directory is listed or
 * looked into.  A file node is one of
 *   - a range of the source file (colfs_dir_add_range),
 *   - a generated document (colfs_dir_add_doc: `generate` renders it whole,
 *     small; the tree caches its size and its bytes in the piece cache),
 *   - a stream (colfs_dir_add_stream: `piece` renders piece i of the view;
 *     the tree maps byte offsets to pieces, caches rendered pieces in a
 *     bounded LRU, and learns the exact size once `piece` answers
 *     COLFS_END).
 *
 * Node state for formats: `ctx` (a borrowed pointer, e.g. the parsed file)
 * and three integers a, b, c (e.g. row group, column, page index).  Memory
 * that must live as long as the tree comes from colfs_tree_alloc; what a
 * populate makes for the entries it adds, from colfs_dir_alloc.
 *
 * Populate and generate run under the tree's (recursive) lock; `piece`
 * runs under the stream's own lock, so decoding different views proceeds
 * in parallel.  A format must make its shared state safe for that.
 */
#ifndef COLFS_TREE_H
#define COLFS_TREE_H

#include "../colfs.h"
#include "buf.h"
#include "layout.h"
#include "names.h"
#include "readme.h"
#include "source.h"
#include "verify.h"

struct colfs_xattrs;

typedef struct colfs_node_ops {
	/* Directories: add the children. */
	colfs_status (*populate)(colfs_tree *t, colfs_node *dir);
	/* Directories, optional: produce a child for a name not listed.
	 * Answer COLFS_ENOENT when there is none. */
	colfs_status (*lookup)(colfs_tree *t, colfs_node *dir, const char *name,
			       colfs_node **out);
	/* Documents: render the whole content into `out`. */
	colfs_status (*generate)(colfs_tree *t, colfs_node *file, colfs_buf *out);
	/* Streams: render piece `index` into `out`; COLFS_END past the last.
	 * Pieces must be rendered the same way every time.  A stream with
	 * `generate` and no `piece` is a report: one piece, `generate`'s
	 * output (its size is known once it is read, and a stat does not
	 * make it unless the sizes option says so). */
	colfs_status (*piece)(colfs_tree *t, colfs_node *file, uint64_t index,
			      colfs_buf *out);
	/* Streams: `piece` may run at once on several threads for different
	 * indices of the same node (each call keeps its own reading state).
	 * The core decodes ahead of a sequential reader on worker threads
	 * only for such streams. */
	bool concurrent;
	/* Optional: a proxy of a node of another tree (a graft,
	 * core/graft.c).  `forward` finds the node it shows, taking a
	 * reference on that tree, which `unforward` gives back; sizes, opens
	 * and reads of a proxy file, and the xattrs of any proxy, are those
	 * of the node found.  A proxy range is no range of this tree's
	 * source (colfs_node_range says no). */
	colfs_status (*forward)(colfs_tree *t, colfs_node *n,
				colfs_tree **guest, colfs_node **target);
	void (*unforward)(colfs_tree *t, colfs_node *n, colfs_tree *guest);
	/* Optional, any node: add the node's facts as extended attributes
	 * (xattr.c; docs/tree.md, "Extended attributes") with
	 * colfs_xattrs_set.  Made from the metadata already parsed: it must
	 * never decode values (getfattr -R walks every node). */
	colfs_status (*xattrs)(colfs_tree *t, colfs_node *n,
			       struct colfs_xattrs *x);
	/* Optional, any node: colfs_dir_release is freeing it (no handle is
	 * open on it, no worker renders it): free what the format keeps for
	 * this node alone (a view's decoding state, its ctx if the node owns
	 * it).  Never called for nodes freed with the tree. */
	void (*release)(colfs_tree *t, colfs_node *n);
	/* Optional, streams and the documents a stat does not make
	 * (colfs_node_set_size_when_read): the bytes of source a whole
	 * render of the node reads (a dataset's view: its files'), or false
	 * when they cannot be known.  sizes=auto renders a node at its stat
	 * to learn its size when they are at most COLFS_SIZE_PROBE_SOURCE;
	 * without this op a stream counts its tree's source (unless the
	 * format's `sized_by_nodes`) and such a document is never made by a
	 * stat.  Called without the tree's lock; it must not render. */
	bool (*decodes)(colfs_tree *t, colfs_node *n, uint64_t *bytes);
} colfs_node_ops;

/* A format module: one const table each, listed in registry.c. */
typedef struct colfs_format {
	const char *name;
	/* Does this look like ours?  `head` and `tail` are up to 16 bytes of
	 * each end of the file (fewer for small files). */
	bool (*probe)(const uint8_t *head, size_t head_len, const uint8_t *tail,
		      size_t tail_len, uint64_t size);
	/* Read the metadata, fill the root directory (its ops set with
	 * colfs_node_set_ops on colfs_tree_root, or children added
	 * directly) and keep state with colfs_tree_set_format_state.
	 * Damage goes to colfs_tree_report and the open still succeeds;
	 * fail only when nothing at all can be shown. */
	colfs_status (*open)(colfs_tree *t, colfs_err *err);
	/* Free the format state. */
	void (*close)(void *state);
	/* The source's size says nothing of what a view costs (a
	 * directory): sizes=auto sizes at a stat only the nodes whose
	 * `decodes` op answers. */
	bool sized_by_nodes;
	/* Optional: has what the tree shows changed beyond its source (a
	 * dataset's folders below its top one)?  COLFS_EIO with the "source
	 * changed since mount (...): remount" message if so, and at every
	 * call after.  Called with the checks of the source (every open,
	 * read, document and piece), so it must be cheap; `force` (a watcher
	 * or the summary asking) wants a full look now. */
	colfs_status (*check)(colfs_tree *t, bool force, colfs_err *err);
	/* Optional (the directory module): when `name` is, by its name, the
	 * metadata file of a table (an Iceberg vN.metadata.json), the
	 * table's root (malloc'd), which colfs_tree_open opens instead with
	 * `name` as colfs_options.table_metadata; NULL: `name` is itself. */
	char *(*table_root)(const char *name);
} colfs_format;

/* Open `fd` (owned) as `format` without probing: for tests and for
 * salvage, where the magic bytes are gone. */
colfs_status colfs_tree_open_format(int fd, const char *display_name,
				    const colfs_format *format,
				    const colfs_options *opts,
				    colfs_tree **out, char *why,
				    size_t why_len);

/* A tree over `src` (taken, destroyed on failure), named `display_name`
 * in messages: a remote object (formats/remote).  Its root gets an `io`
 * document when the source renders one (colfs_source_io). */
colfs_status colfs_tree_open_source(colfs_source *src,
				    const char *display_name,
				    const colfs_options *opts, colfs_tree **out,
				    char *why, size_t why_len);
/* A tree over [offset, offset + len) of t's source (a window, source.h),
 * its format found by probing, named `display_name` in messages: a file
 * held whole inside another (a block of a Kudu container).  It lives
 * until given to colfs_dir_graft or destroyed. */
colfs_status colfs_tree_open_window(colfs_tree *t, uint64_t offset,
				    uint64_t len, const char *display_name,
				    colfs_tree **out, char *why,
				    size_t why_len);
/* Show `sub` (taken, destroyed with `t`, also on failure) inside `dir`:
 * dir gets the children of sub's root, and below them every node of sub
 * with its name, kind and bytes, as proxies (graft.c).  `base` is where
 * sub's source begins in t's (the window's offset): sub's ranges are
 * t's ranges moved by it.  sub's problems are listed by
 * t's `errors` under dir's path, their offsets moved by `base`.  Call it
 * from dir's populate. */
colfs_status colfs_dir_graft(colfs_tree *t, colfs_node *dir, colfs_tree *sub,
			     uint64_t base);
/* `base` for a tree over another file than t's source: its ranges are
 * proxies read from that file, its problems keep their offsets. */
#define COLFS_GRAFT_FOREIGN UINT64_MAX
/* A dataset named by a URL (an S3 prefix, s3://BUCKET/PREFIX/): the
 * directory module (colfs_format_directory) opened on `display_name`,
 * which lists the files itself; no source bytes are read.  Its views
 * are sized lazily unless sizes=exact, as a local directory's. */
colfs_status colfs_tree_open_dataset_url(const char *display_name,
					 const colfs_options *opts,
					 colfs_tree **out, char *why,
					 size_t why_len);
/* Does the root have `io` (a remote source)? */
bool colfs_tree_has_io(const colfs_tree *t);

/* registry.c */
extern const colfs_format *const colfs_formats[];
/* The module a directory or another listing opens as (a dataset;
 * formats/dataset/dataset.c). */
extern const colfs_format *const colfs_format_directory;

/* --- tree-wide ---------------------------------------------------------- */
const colfs_options *colfs_tree_options(const colfs_tree *t);
colfs_source *colfs_tree_source(colfs_tree *t);
const char *colfs_tree_display_name(const colfs_tree *t);
void colfs_tree_set_format_state(colfs_tree *t, void *state);
void *colfs_tree_format_state(colfs_tree *t);
/* Run fn(t, arg, true) once on a worker of the tree's pool decoding
 * ahead (ahead.c), before the pieces it has queued; with no pool (-o
 * decode_threads=0, or none could start) or out of memory: false, and
 * fn is not called.  A job not run when the tree ends is called with
 * `run` false.  fn frees arg. */
bool colfs_tree_background(colfs_tree *t,
			   void (*fn)(colfs_tree *t, void *arg, bool run),
			   void *arg);
/* Count `bytes` of memory a format holds beyond its bound (a page decoded
 * ahead) against the piece cache (-o cache_size), which evicts to make
 * room; false when that would take more than half of the cache.
 * The memory bound (docs/performance.md, "Memory") holds with it. */
bool colfs_tree_mem_charge(colfs_tree *t, uint64_t bytes);
/* Up to `max` pieces of stream `n` in [lo, hi) being rendered now, by
 * the workers decoding ahead or by a reader (colfs_ahead_rendering,
 * ahead.h), into `out`; their count (0 without workers). */
size_t colfs_tree_pieces_rendering(colfs_tree *t, const colfs_node *n,
				   uint64_t lo, uint64_t hi, uint64_t *out,
				   size_t max);
/* Whether this thread renders a piece of `t` ahead of its reader (a
 * decode-ahead worker): then the piece is marked to be dropped and true
 * is returned, and the caller files nothing of what it found (nor keeps
 * any mark of it); the reader that reaches the piece renders it again
 * and files it.  Problems then come in the reader's order, whatever
 * the workers did (colfs_tree_report and colfs_tree_note_hidden do it
 * themselves). */
bool colfs_tree_ahead_defer(colfs_tree *t);
/* Whether this thread renders a piece of `t` ahead of its reader, the
 * piece left as it is (to keep from a mark the reader would make). */
bool colfs_tree_ahead_of(const colfs_tree *t);
/* Wait until piece `i` of stream `n` is no longer among those
 * (colfs_ahead_wait_left); at once without workers. */
void colfs_tree_piece_wait_left(colfs_tree *t, const colfs_node *n,
				uint64_t i);
/* Pieces numbered across parts (a view's row groups, an array's units):
 * first[u] is part u's first piece, nondecreasing from first[0] <= i.
 * The part piece i is in: the last u < n with first[u] <= i (a part
 * without pieces has first[u] == first[u + 1] and is passed over). */
size_t colfs_part_of_piece(const uint64_t *first, size_t n, uint64_t i);
/* A page (a unit of stored values) was decompressed and decoded:
 * counted for colfs_tree_stats_get. */
void colfs_tree_count_page(colfs_tree *t);
void colfs_tree_mem_uncharge(colfs_tree *t, uint64_t bytes);
/* The pool a format takes its large decode buffers from and gives them
 * back to (colfs_piece_cache_buf_get/_put, piececache.h: idle ones are
 * counted against the piece cache); NULL without a cache. */
struct colfs_piece_cache *colfs_tree_bufs(colfs_tree *t);
/* Zeroed memory that lives as long as the tree (NULL when out of memory). */
void *colfs_tree_alloc(colfs_tree *t, size_t size);
char *colfs_tree_strdup(colfs_tree *t, const char *s);
/* Zeroed memory that lives as long as the listing of `dir`: for what a
 * populate of `dir` makes for the entries it adds (a context they share).
 * Freed with them when colfs_dir_release frees them (of `dir` or of a
 * directory above it), or with the tree; so a walk that releases what it
 * has walked holds none of it for the parts behind (a wide file's 200,000
 * bloom filters, 200 row groups' arrays/).  NULL when out of memory. */
void *colfs_dir_alloc(colfs_tree *t, colfs_node *dir, size_t size);
char *colfs_dir_strdup(colfs_tree *t, colfs_node *dir, const char *s);

/* Record a problem: tree path of the node it concerns (NULL = root), the
 * absolute byte offset, and a message.  Duplicates are dropped. */
void colfs_tree_report(colfs_tree *t, const colfs_node *where, uint64_t offset,
		       colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void colfs_tree_report_err(colfs_tree *t, const colfs_node *where,
			   const colfs_err *err);
/* The same under a tree path ("/row_groups/0/chunks/x/pages/3"): the
 * broken part's path, built from indices, whether or not its node was
 * listed yet.  The `errors` of every directory the path lies under show
 * it. */
void colfs_tree_report_path(colfs_tree *t, const char *path, uint64_t offset,
			    colfs_status st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void colfs_tree_report_err_path(colfs_tree *t, const char *path,
				const colfs_err *err);
/* A damaged part hides rows: rows [first, first + rows) of the part at
 * tree path `path` (in the part's own numbering: a page's, a stripe's, a
 * block's rows) cannot be read because of it (`offset`: the part's).
 * Noted where a read of its values fails, each time; the ranges noted
 * under one path are merged, so a part several views fail on counts its
 * rows once.  rows == COLFS_ROWS_UNKNOWN: it hides rows, how many is not
 * known (never guessed).  colfs-tool check lists them
 * (colfs_tree_damaged_get). */
void colfs_tree_note_hidden(colfs_tree *t, const char *path, uint64_t offset,
			    uint64_t first, uint64_t rows);
/* All problems so far as text, one per line:
 * "<path>: offset <dec> (0x<hex>): <status>: <message>".  With `under`,
 * only those whose path is `under` or below it. */
void colfs_tree_errors_render(colfs_tree *t, const colfs_node *under,
			      colfs_buf *out);

/* --- building ----------------------------------------------------------- */
/* The root directory: a format sets its ops (populate) at open. */
void colfs_node_set_ops(colfs_node *n, const colfs_node_ops *ops, void *ctx);

/* Each add_* escapes `raw_name` into one safe path component (see
 * colfs_name_escape) and makes it unique in the directory.  They return
 * NULL only when out of memory. */
colfs_node *colfs_dir_add_dir(colfs_tree *t, colfs_node *dir,
			      const char *raw_name, const colfs_node_ops *ops,
			      void *ctx);
colfs_node *colfs_dir_add_range(colfs_tree *t, colfs_node *dir,
				const char *raw_name, uint64_t offset,
				uint64_t len);
colfs_node *colfs_dir_add_doc(colfs_tree *t, colfs_node *dir,
			      const char *raw_name, const colfs_node_ops *ops,
			      void *ctx);
/* A document with fixed text (copied). */
colfs_node *colfs_dir_add_text(colfs_tree *t, colfs_node *dir,
			       const char *raw_name, const char *text,
			       size_t len);
colfs_node *colfs_dir_add_stream(colfs_tree *t, colfs_node *dir,
				 const char *raw_name,
				 const colfs_node_ops *ops, void *ctx);
/* A stream whose pieces' lengths are known before any is rendered:
 * ends[i] is the offset just past piece i (`ends`, malloc'd, is taken,
 * and freed on failure).  Its size is exact from the start (arrays.c);
 * `piece` must render each piece at exactly its length. */
colfs_node *colfs_dir_add_sized_stream(colfs_tree *t, colfs_node *dir,
				       const char *raw_name,
				       const colfs_node_ops *ops, void *ctx,
				       uint64_t *ends, size_t n);
/* The `errors` document of a directory (volatile: problems so far in the
 * subtree of `dir`). */
colfs_node *colfs_dir_add_errors(colfs_tree *t, colfs_node *dir);
/* The root `summary`: a document made by `ops->generate` again at every
 * open (volatile), after the lines the core puts first when the source is
 * no longer the file that was mounted (changed in place, or its path now
 * names another file). */
colfs_node *colfs_dir_add_summary(colfs_tree *t, colfs_node *dir,
				  const colfs_node_ops *ops, void *ctx);
/* The entries a file's root starts with (readme.c; docs/tree.md), those
 * its README lists first: `README` made by
 * `readme`, `format` holding the text `format`, `layout` made by `layout`
 * and its layout.svg, `errors`, and `raw/` filled by `raw` (the ops get
 * no context).  False when out of memory. */
bool colfs_root_add_common(colfs_tree *t, colfs_node *root,
			   const colfs_node_ops *readme, const char *format,
			   const colfs_node_ops *layout,
			   const colfs_node_ops *raw);
/* A node made by a lookup callback: not listed, but kept and stable. */
colfs_node *colfs_dir_make_hidden(colfs_tree *t, colfs_node *dir,
				  const char *raw_name, colfs_content kind,
				  const colfs_node_ops *ops, void *ctx);

void *colfs_node_ctx(const colfs_node *n);
/* Mark a document volatile (made again at every open, never cached). */
void colfs_node_set_volatile(colfs_node *n);
/* Mark a document costly to make (a dataset's summary reads every footer):
 * a stat does not make it to learn its size unless the sizes mode is
 * exact.  Until it has been made its size is unknown (0, not exact); a
 * volatile one's stays unknown.  Listing its directory stays instant. */
void colfs_node_set_size_when_read(colfs_node *n);
/* Mark a view (or a directory of views) derived: every value it serves
 * comes from parts its parent directory shows elsewhere, decoded the same
 * way (a row group's rows.jsonl from its columns/, a chunk's values from
 * its pages' values), so it can fail only where those do.  colfs-tool
 * check reads it only when that directory turned out damaged
 * (colfs_node_is_derived). */
void colfs_node_set_derived(colfs_node *n);
void colfs_node_set_args(colfs_node *n, uint64_t a, uint64_t b, uint64_t c);
uint64_t colfs_node_a(const colfs_node *n);
uint64_t colfs_node_b(const colfs_node *n);
uint64_t colfs_node_c(const colfs_node *n);

/* --- extended attributes (xattr.c) ------------------------------------- */
/* Set the attribute "user.colfs.<name>" of the node being described
 * (`name`: a string literal of lower-case letters, digits, '_'; it is
 * kept, not copied): a value set again replaces the first one in place.
 * Values are text without NUL bytes; a request that does not want the
 * value (a listxattr, a getxattr of another name) does not format it. */
typedef struct colfs_xattrs colfs_xattrs;
void colfs_xattrs_set(colfs_xattrs *x, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* `user.colfs.offset` and `user.colfs.length` of a part of the file. */
void colfs_xattrs_range(colfs_xattrs *x, uint64_t offset, uint64_t len);

/* --- layout.svg (layout.c) ------------------------------------------------ */
/* Add `layout.svg` to `dir`: the picture of `layout` (NULL: the root's
 * `layout`; a document or a
 * report stream of the tree made by colfs_layout_write, whose generate
 * makes its text), restricted to the regions whose path lies under
 * `dir` unless `dir` is the root (docs/tree.md, "layout.svg").  Regions
 * holding the offset of a problem found so far are drawn as damaged. */
colfs_node *colfs_dir_add_layout_svg(colfs_tree *t, colfs_node *dir,
				     colfs_node *layout);

/* --- JSON ---------------------------------------------------------------- */
/* Render a jansson value (stolen reference) as indented JSON plus '\n'. */
struct json_t;
colfs_status colfs_buf_json(colfs_buf *out, struct json_t *value);
/* The whole bytes of the file node at `path` (relative to the root) of
 * tree `t`, appended to `out` (tree_read.c): a reader of another tree's
 * view (a dataset reading its files' schema.json, a table kind its
 * delete files' rows). */
colfs_status colfs_tree_read_path(colfs_tree *t, const char *path,
				  colfs_buf *out);

#endif

/* colfs: the public interface of the format core.
 *
 * This is the only header fs/ (the FUSE daemon) and tools/ (colfs-tool)
 * include from formats/.  It opens a columnar file as a tree of nodes and
 * reads their bytes.  Nothing here knows about FUSE.
 *
 * A tree is safe to use from many threads at once.  Nodes live as long as
 * the tree, unless an offline reader releases them (colfs_dir_release) or
 * a mount's kernel has forgotten them (colfs_tree_forget,
 * colfs_tree_release_unused); a node pointer held under those rules never
 * dangles and an inode number is never given to another node.
 */
#ifndef COLFS_H
#define COLFS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define COLFS_VERSION "0.1.0"

typedef struct colfs_tree colfs_tree;
typedef struct colfs_node colfs_node;
typedef struct colfs_handle colfs_handle;

/* What a file node's content is. */
typedef enum colfs_content {
	COLFS_CONTENT_DIR = 0,  /* a directory */
	COLFS_CONTENT_RANGE,    /* a byte range of the source file, exact size */
	COLFS_CONTENT_DOC,      /* a generated document, exact size */
	COLFS_CONTENT_STREAM,   /* decoded piece by piece; size exact once known */
} colfs_content;

/* Options a user can set (-o key=value on the daemon, --key=value on the
 * tool).  Zeroed fields take the defaults. */
/* The largest salvage_effort accepted. */
#define COLFS_MAX_SALVAGE_EFFORT 1000

/* How a stat finds the size of a stream whose size is not known yet
 * (docs/tree.md, "Sizes"). */
typedef enum colfs_sizes_mode {
	COLFS_SIZES_AUTO = 0,  /* when cheap (COLFS_SIZE_PROBE_SOURCE) */
	COLFS_SIZES_LAZY,      /* never: 0 until read to its end */
	COLFS_SIZES_EXACT,     /* always: decode it whole when first asked */
} colfs_sizes_mode;

/* What a value view does with the rows of a part it cannot decode (a
 * page, stream or block; docs/tree.md, "Reading past damage"). */
typedef enum colfs_on_damage {
	COLFS_ON_DAMAGE_ERROR = 0,  /* the read fails (EIO) from there */
	COLFS_ON_DAMAGE_NULL,       /* the rows read as NULL */
	COLFS_ON_DAMAGE_SKIP,       /* the rows are left out */
} colfs_on_damage;
/* The most column_keys= options one mount takes. */
#define COLFS_MAX_COLUMN_KEYS 64

typedef struct colfs_options {
	const char *null_token;     /* how NULL renders; default "\\N" */
	const char *csv_null;       /* NULL in rows.csv: "" (an empty field),
				     * or -o null= when given */
	uint64_t cache_bytes;       /* decoded-piece cache; default 64 MiB */
	uint64_t max_alloc;         /* cap on one declared size; default 1 GiB */
	bool checksums_ignore;      /* serve data whose checksum fails */
	const char *schema_from;    /* healthy sibling file for salvage */
	uint32_t salvage_effort;    /* salvage scan caps times this; default 1 */
	/* CFile salvage (a file whose footer is lost): how to decode the
	 * blocks found.  Names as colfs_options_help lists them; NULL: not
	 * given. */
	const char *cfile_type;        /* INT32, STRING, ... */
	const char *cfile_encoding;    /* PLAIN, BIT_SHUFFLE, RLE, ... */
	const char *cfile_compression; /* NONE, SNAPPY, LZ4, ZLIB */
	bool cfile_nullable;
	colfs_sizes_mode sizes;     /* default auto */
	/* -o page_cache=all: a mount serves text views of known size
	 * through the kernel's page cache (shared mmap works, a second read
	 * is the kernel's); default arrays: only arrays/, text views with
	 * direct I/O (a read's bytes copied once). */
	bool page_cache_all;
	/* The size index file: NULL the default (XDG cache directory), "off"
	 * none, else a path. */
	const char *size_index;
	/* Worker threads decoding ahead of sequential readers: 0 the
	 * default (one per online CPU), -1 none (-o decode_threads=0). */
	int decode_threads;
	/* Remote sources (http://, https://, s3://; formats/remote). */
	uint64_t remote_cache_bytes; /* block cache of fetched bytes; default 64 MiB */
	const char *s3_endpoint;     /* S3-compatible store, path-style; NULL: AWS */
	const char *azure_endpoint;  /* Azure Blob endpoint (Azurite); NULL: Azure's */
	const char *gcs_endpoint;    /* GCS XML API endpoint, path-style; NULL: Google's */
	const char *hf_endpoint;     /* Hugging Face Hub; NULL: HF_ENDPOINT, else the Hub */
	const char *cafile;          /* extra CA bundle for TLS; NULL: system store */
	bool allow_full_download;    /* accept a server that ignores Range (small files) */
	colfs_on_damage on_damage;   /* default error */
	/* A dataset (a directory, formats/dataset): how many of its files'
	 * trees stay open at once; 0: the default (64). */
	uint32_t max_open_files;
	/* A dataset: follow symbolic links that lead out of the directory
	 * (-o follow_links), never into `mount_point`. */
	bool follow_links;
	/* Not an -o option: where the daemon mounts the tree (resolved), so
	 * that a dataset's listing never looks inside it; NULL: none. */
	const char *mount_point;
	/* A mount (fs/forget.c): nodes alive past which the kernel is asked
	 * to forget the directories least recently used; 0: the default
	 * (COLFS_DEFAULT_NODE_BUDGET), UINT64_MAX: no bound
	 * (-o node_budget=0).  The tree keeps the sizes of as many freed
	 * nodes (colfs_tree_release_unused). */
	uint64_t node_budget;
	/* A Delta table's snapshot (-o version=N; formats/dataset/delta.h):
	 * delta_version when delta_version_set, else the latest. */
	bool delta_version_set;
	int64_t delta_version;
	/* An Apache Iceberg table's snapshot (formats/dataset/iceberg,
	 * docs/iceberg-tree.md): -o snapshot=ID, -o as_of=TIMESTAMP (kept
	 * as milliseconds since the epoch, UTC), -o ref=NAME (a branch or
	 * tag); at most one of them.  -o location=PREFIX: the prefix of the
	 * metadata's paths mapped onto the mounted root (default the
	 * metadata's own `location`). */
	bool ice_snapshot_set;
	int64_t ice_snapshot;
	bool ice_as_of_set;
	int64_t ice_as_of_ms;
	const char *ice_ref;
	const char *ice_location;
	/* A table named by its metadata file (colfs_format.table_root): that
	 * file's path or URL, which the table's kind reads instead of finding
	 * its current metadata.  Set by colfs_tree_open, never by -o. */
	const char *table_metadata;
	/* Parquet modular encryption (docs/parquet-tree.md, "Encryption"):
	 * keys as written (hex or base64:..., checked by colfs_options_set;
	 * colfs_key_decode), NULL when not given.  column_keys holds each
	 * column_keys= value ("COL:KEY", several separated by ';') and each
	 * "COL:KEY" item after it ("column_keys=a:K1,b:K2"). */
	const char *footer_key;
	const char *column_keys[COLFS_MAX_COLUMN_KEYS];
	uint32_t n_column_keys;
	const char *aad_prefix;
	const char *key_file;        /* JSON object: key id or column path -> key */
	/* Not an -o option: how often the source is checked for changes
	 * (docs/tree.md "A changed source"), in milliseconds; 0 (the
	 * daemon) at every check, colfs-tool once a second. */
	uint32_t source_check_ms;
} colfs_options;
/* node_budget's default and the most accepted. */
#define COLFS_DEFAULT_NODE_BUDGET 200000u
#define COLFS_MAX_NODE_BUDGET 1000000000u
/* The most max_open_files accepted. */
#define COLFS_MAX_OPEN_FILES 65536
/* The most decode_threads accepted. */
#define COLFS_MAX_DECODE_THREADS 64

/* Parse one "key=value" (or "key") option into `opts`.  Returns
 * COLFS_ENOENT for a key colfs does not know, COLFS_ECORRUPT for a bad
 * value.  The string must outlive `opts`. */
colfs_status colfs_options_set(colfs_options *opts, const char *kv);
/* How many options name a file (schema_from, cafile, key_file). */
#define COLFS_PATH_OPTIONS 3
/* Make every option that names a file absolute (realpath) and check that
 * it opens for reading as a regular file, so that a wrong name is refused
 * before anything starts and a daemon that changes directory still finds
 * it.  A path that fails is refused with a one-line reason in `why`
 * ("schema_from=X: No such file or directory").  The absolute paths are
 * malloc'd into `owned` (NULL where unused); free them once `opts` is no
 * longer used. */
colfs_status colfs_options_resolve_paths(colfs_options *opts,
					 char *owned[COLFS_PATH_OPTIONS],
					 char *why, size_t why_len);
/* One line per option, for --help. */
const char *colfs_options_help(void);
/* Overwrite with '*', in place, the values of the key options
 * (footer_key=, column_keys=) in one argument string ("-o a=b,...",
 * "a=b,..."), so that the process title (/proc/PID/cmdline, ps) does not
 * show them; call it once the options are parsed (they keep copies). */
void colfs_options_hide_keys(char *arg);
/* One item of an -o list as a message may show it (`out`, cut to
 * `out_len`): the value of footer_key=, column_keys= (and of any option
 * whose name has "key" in it but key_file) and the key of a "COL:KEY"
 * item replaced by "****". */
void colfs_options_shown(const char *kv, char *out, size_t out_len);
/* A key as an option or key file writes it: 32, 48 or 64 hex digits, or
 * "base64:" and the base64 of 16, 24 or 32 bytes.  The bytes go to `out`
 * (`*len` of them).  COLFS_ECORRUPT for anything else (the key text is
 * never put in a message). */
colfs_status colfs_key_decode(const char *text, size_t text_len,
			      uint8_t out[32], size_t *len);
/* Overwrite `n` bytes at `p` with zeros in a way the compiler keeps (key
 * material, before it is freed). */
void colfs_key_wipe(void *p, size_t n);

/* The process's malloc settings for decoding, in one place (the daemon
 * and colfs-tool call it first thing in main):
 * - one arena: FUSE worker threads would each get one, and decoded
 *   pieces, large and short-lived, spread over many arenas keep freed
 *   memory resident (measured: 296 MB -> 254 MB peak for a 50M-row
 *   string column with two; 180 -> 160 MB with one, the cache and the
 *   pieces rendered ahead sharing one heap's holes; allocations are
 *   few and large, one per piece or page, so threads hardly contend);
 * - pieces (hundreds of KiB to a few MiB) are served from the heap, not
 *   by mmap: glibc maps each large block afresh and unmaps it on free,
 *   so every piece faulted in and zeroed new pages (a fifth of the time
 *   of `cat columns/X`); from the heap, a piece the cache evicts makes
 *   room for the next one;
 * - blocks of 4 MiB and more (decompressed pages, their value arrays)
 *   are mapped on their own and unmapped when freed: the cursors reuse
 *   them from page to page, the tree's pool keeps a few given back for
 *   the next view within the cache's cap (piececache.h,
 *   colfs_piece_cache_buf_get), and in the heap a freed 16 MB array would
 *   stay resident (measured on a 5M-row md5 column with cache_size=8M:
 *   160 MB peak without, 102 MB with); a fixed threshold also stops
 *   glibc's sliding one from moving them into the heap;
 * - free memory above 4 MiB at the top of a heap is given back.
 * Together they keep the daemon under docs/performance.md's memory bound
 * (test fs-memory-bound).  core/buf.c. */
void colfs_malloc_setup(void);

/* pthread_create of a thread that takes no signal (its mask full from its
 * start): the daemon's session ends from a signal handled on one of
 * libfuse's threads, which a signal taken by ours would not wake.
 * Returns pthread_create's result.  core/thread.c. */
int colfs_thread_create(pthread_t *tid, void *(*fn)(void *), void *arg);

/* Open the source `path` names, whatever its kind (a file, a directory,
 * a Kudu data root, an http(s):// or s3:// object, an s3:// prefix:
 * core/sourcekind.h), find its format by magic bytes and read its
 * metadata.  Files that are damaged still open (the problems show in
 * `errors`); a file that is not a supported format, is empty, or cannot
 * be opened fails with a one-line reason in `why`. */
colfs_status colfs_tree_open(const char *path, const colfs_options *opts,
			     colfs_tree **out, char *why, size_t why_len);
/* A source name as messages show it, its secrets (a URL's user
 * information, "user:password@") removed (malloc'd; NULL when out of
 * memory). */
char *colfs_source_display(const char *name);
/* The same as fsname shows it: a local path made absolute. */
char *colfs_source_canonical(const char *name);
/* A source name's secrets overwritten in place with '*' (for argv: the
 * process title); any other string is left alone. */
void colfs_source_hide(char *arg);
/* What tells that a tree's source changed since it was opened: its
 * descriptor's stat (a local file or directory: device, inode, size,
 * mtime, ctime, and a watcher can watch it), or the validators of the
 * server's replies (ETag, Last-Modified: a remote object, whose tree has
 * no descriptor). */
typedef enum colfs_source_changes {
	COLFS_SOURCE_CHANGES_STAT,
	COLFS_SOURCE_CHANGES_VALIDATORS,
} colfs_source_changes;
colfs_source_changes colfs_tree_source_changes(const colfs_tree *t);
/* The source as named in messages: the path given, or the URL with any
 * credentials stripped. */
const char *colfs_tree_display_name(const colfs_tree *t);
/* The source's size when the tree was opened. */
uint64_t colfs_tree_source_size(const colfs_tree *t);
/* The same over an already-open descriptor (the tree owns it). */
colfs_status colfs_tree_open_fd(int fd, const char *display_name,
				const colfs_options *opts, colfs_tree **out,
				char *why, size_t why_len);
void colfs_tree_destroy(colfs_tree *t);

/* "parquet", "orc" or "cfile". */
const char *colfs_tree_format(const colfs_tree *t);
/* The source file's descriptor (for zero-copy reads of range nodes); -1
 * for a remote source, whose range nodes are read with colfs_node_open
 * and colfs_handle_read (from its block cache). */
int colfs_tree_fd(const colfs_tree *t);
colfs_node *colfs_tree_root(colfs_tree *t);
/* The node with inode number `ino` (root is 1), or NULL. */
colfs_node *colfs_tree_node(colfs_tree *t, uint64_t ino);
/* Walk a '/'-separated path from the root (leading '/' optional). */
colfs_status colfs_tree_resolve(colfs_tree *t, const char *path,
				colfs_node **out);
/* What the tree has done so far (colfs-tool --stats): pages decoded
 * (a Parquet data page decompressed and decoded, by a reader or ahead of
 * one: a sequential read of a view decodes each of its pages once) and
 * pieces rendered (a piece made again after the cache let it go counts
 * again); with the trees shown inside it. */
typedef struct colfs_tree_stats {
	uint64_t pages_decoded;
	uint64_t pieces_rendered;
} colfs_tree_stats;
void colfs_tree_stats_get(const colfs_tree *t, colfs_tree_stats *out);
/* Number of problems reported so far. */
size_t colfs_tree_error_count(colfs_tree *t);
/* Those of them filed at the tree path `path` or under it ("/": all). */
size_t colfs_tree_error_count_under(colfs_tree *t, const char *path);

/* One reported problem (copied out, so it stays valid). */
typedef struct colfs_problem {
	char path[1024];        /* tree path of the node it concerns */
	uint64_t offset;        /* absolute byte offset in the source file */
	colfs_status status;
	char message[1024];
} colfs_problem;

/* Problem number `i` (0-based, in the order found); COLFS_ENOENT past the
 * last.  Problems beyond the tree's cap are counted but not kept. */
colfs_status colfs_tree_error_get(colfs_tree *t, size_t i, colfs_problem *out);

/* A damaged part: the rows whose values cannot be read because of it
 * (colfs-tool check).  rows is COLFS_ROWS_UNKNOWN when the part hides
 * rows but how many is not known (e.g. its page header is unreadable). */
#define COLFS_ROWS_UNKNOWN UINT64_MAX
typedef struct colfs_damaged_part {
	char path[1024];        /* tree path of the part (page, chunk's
				 * pages/, stream, stripe, block) */
	uint64_t offset;        /* absolute: the part's first byte, or
				 * where its damage was found */
	uint64_t rows;          /* rows hidden, or COLFS_ROWS_UNKNOWN */
} colfs_damaged_part;

/* Number of damaged parts noted so far, and part `i` (in the order
 * found; COLFS_ENOENT past the last). */
size_t colfs_tree_damaged_count(colfs_tree *t);
colfs_status colfs_tree_damaged_get(colfs_tree *t, size_t i,
				    colfs_damaged_part *out);

uint64_t colfs_node_ino(const colfs_node *n);
const char *colfs_node_name(const colfs_node *n);  /* escaped, one component */
colfs_node *colfs_node_parent(const colfs_node *n); /* root's parent is root */
colfs_content colfs_node_content(const colfs_node *n);
static inline bool colfs_node_is_dir(const colfs_node *n)
{
	return colfs_node_content(n) == COLFS_CONTENT_DIR;
}
/* Documents whose content changes during the mount (`errors`): never cache. */
bool colfs_node_is_volatile(const colfs_node *n);
/* A document costly to make, whose size a stat leaves unknown unless the
 * sizes mode is exact (colfs_node_set_size_when_read, tree.h). */
bool colfs_node_size_when_read(const colfs_node *n);
/* A derived view, or a directory of them: every value it serves comes
 * from parts its parent directory shows elsewhere (under it or beside
 * it), decoded the same way: a row group's rows.jsonl, rows.csv and
 * arrays/ from its columns/, the root's table views from the row groups'
 * or stripes', a chunk's values from its pages' values.  It fails only
 * where those fail, so a reader checking every part (colfs-tool check)
 * reads it only when its parent directory turned out damaged. */
bool colfs_node_is_derived(const colfs_node *n);
/* A stream meant to be mapped as well as read: its size known from the
 * metadata before any piece is made (the .npy files of arrays/, which
 * numpy.load(mmap_mode='r') maps).  The daemon serves these through the
 * kernel's page cache, and every other stream with direct I/O unless
 * -o page_cache=all (colfs_options.page_cache_all). */
bool colfs_node_is_mappable(const colfs_node *n);
/* The node's path from the root ("/row_groups/0/meta.json"). */
void colfs_node_path(const colfs_node *n, char *buf, size_t len);

/* Extended attributes (docs/tree.md, "Extended attributes"), made from
 * the metadata alone (no values are decoded): every node has
 * user.colfs.kind and user.colfs.path; the others depend on the node.
 * colfs_node_xattr_list writes the names, each followed by a NUL, and
 * colfs_node_xattr_get the value of `name` (no NUL at its end), into
 * `buf` of `cap` bytes when they fit; `*need` is their whole length
 * either way (the caller compares).  colfs_node_xattr_get answers
 * COLFS_ENOENT for a name the node does not have. */
colfs_status colfs_node_xattr_list(colfs_tree *t, colfs_node *n, char *buf,
				   size_t cap, size_t *need);
colfs_status colfs_node_xattr_get(colfs_tree *t, colfs_node *n,
				  const char *name, char *buf, size_t cap,
				  size_t *need);

/* The children of a directory, produced on first call.  The array is
 * borrowed and stays valid and unchanged for the life of the tree. */
colfs_status colfs_dir_list(colfs_tree *t, colfs_node *dir,
			    colfs_node *const **kids, size_t *n);
/* Free the nodes under `dir` (its children, theirs, ...) and forget its
 * listing, for a reader that has finished with them and will not use
 * their pointers again (colfs-tool check walks a huge tree this way in
 * bounded memory; the node table's slots they held are used again).
 * Their inode numbers are never given again:
 * colfs_tree_node answers NULL for them; a later colfs_dir_list of `dir`
 * lists it afresh, with new nodes and numbers.  COLFS_EIO, and nothing
 * freed, while a handle is open on a node under it.  Not for the FUSE
 * daemon, which hands out inode numbers the kernel may still use: it
 * frees what the kernel has forgotten (below). */
colfs_status colfs_dir_release(colfs_tree *t, colfs_node *dir);

/* A mount's lookups (fs/ll.c), counted as the FUSE protocol does: each
 * reply that gives the kernel a node (a lookup's, each readdirplus entry
 * other than "." and "..") holds it once more, until the kernel's FORGET
 * of that many.  A directory whose nodes below it (at any depth) are
 * neither held nor open, nor its own handle, may have its children freed
 * as colfs_dir_release does: the directory stays, listed afresh (same
 * names, sizes, bytes; new inode numbers) when next asked.
 *
 * colfs_dir_lookup_ref: colfs_dir_lookup, and the node found is held
 * once (atomically: it cannot be freed in between).  colfs_nodes_ref: hold
 * each of `nodes` once more; the caller must know they cannot be freed
 * meanwhile (their directory's handle is open: colfs_dir_opened, or each
 * or a node below it is held).  colfs_tree_forget: the node numbered
 * ino[i] is held count[i] fewer times, for i < n (unknown numbers are
 * ignored); answers how many inode numbers of directories whose children
 * may now be freed it put in `dirs` (room for n).  colfs_dir_opened and
 * _closed: a directory's handle, which keeps its children (a readdir walks
 * them without the tree lock); _closed answers such a directory, or 0. */
colfs_status colfs_dir_lookup_ref(colfs_tree *t, colfs_node *dir,
				  const char *name, colfs_node **out);
void colfs_nodes_ref(colfs_tree *t, colfs_node *const *nodes, size_t n);
size_t colfs_tree_forget(colfs_tree *t, const uint64_t *ino,
			 const uint64_t *count, size_t n, uint64_t *dirs);
void colfs_dir_opened(colfs_tree *t, colfs_node *dir);
uint64_t colfs_dir_closed(colfs_tree *t, colfs_node *dir);
/* Free the children of directory `ino` (an answer of colfs_tree_forget
 * or colfs_dir_closed) if nothing under it is held or open still, or
 * those of its highest ancestor below the root of which that is true;
 * true when they were freed, and *held (if not NULL) is then the number
 * of the directory freed if the kernel still holds it (its cached listing
 * names the numbers freed), else 0.  Waits for the workers decoding ahead
 * to be idle (colfs_ahead_quiesce): call it from a thread of its own,
 * holding nothing a request needs.  The sizes those nodes knew that a
 * stat would not learn again cheaply are kept for the nodes made again
 * (the newest, at most the node_budget option's count). */
bool colfs_tree_release_unused(colfs_tree *t, uint64_t ino, uint64_t *held);
/* Nodes alive now; *peak (if not NULL) the most alive at once.  Read
 * without a lock (a signal handler may call it). */
size_t colfs_tree_nodes_alive(const colfs_tree *t, size_t *peak);
/* The inode numbers of the file nodes alive now, malloc'd into *out (*n
 * of them; the table's slots are not in order of age, and a freed one
 * is a hole); false when out of memory. */
bool colfs_tree_file_inos(colfs_tree *t, uint64_t **out, size_t *n);
/* A listing the kernel may be asked to drop (a mount past its node
 * budget): the directory's name (malloc'd) in its parent (an inode
 * number), and the nodes alive under it, at any depth. */
typedef struct colfs_listing {
	uint64_t parent;
	char *name;
	size_t nodes;
} colfs_listing;
/* The listings used by the COLFS_RECENT_USES latest uses are dropped
 * only when the older ones are not enough. */
#define COLFS_RECENT_USES 64
/* Directories whose nodes, dropped, would bring the nodes alive down by
 * `want`, least recently used first, at most `max` into `out`; answers
 * how many.  A directory is used when it is listed or opened, and so is
 * every directory above it: a walk's ancestors stay the newest, and the
 * oldest are the subtrees it left, each given whole (the highest
 * directory above the oldest listing not used lately).  A directory given
 * is not given again, nor one under it, until it is used again. */
size_t colfs_tree_pick_listings(colfs_tree *t, size_t want,
				colfs_listing *out, size_t max);
/* How many sizes of freed nodes are kept (colfs_tree_release_unused):
 * at most the tree's node_budget option. */
size_t colfs_tree_kept_sizes(colfs_tree *t);
/* Find a child by name; some directories also answer names they do not
 * list (bloom_filter/might_contain/<value>). */
colfs_status colfs_dir_lookup(colfs_tree *t, colfs_node *dir, const char *name,
			      colfs_node **out);

/* Size of a file node.  A stream's size is known once it has been read to
 * its end, or from the size index, or learned here as the tree's sizes
 * mode asks (auto: when the source is at most COLFS_SIZE_PROBE_SOURCE
 * bytes; exact: always).  `*exact` is false for a stream
 * whose length is still not known; `*size` is then 0 and the file must be
 * served with direct I/O.  A size is never a guess. */
colfs_status colfs_node_size(colfs_tree *t, colfs_node *n, uint64_t *size,
			     bool *exact);
/* The same, but a stream whose size is not known is never decoded here
 * (whatever the sizes mode): for listings that may not need sizes. */
colfs_status colfs_node_size_known(colfs_tree *t, colfs_node *n,
				   uint64_t *size, bool *exact);
/* sizes=auto: a stat decodes a stream whole to learn its size when the
 * source file is at most this many bytes (any view of it decodes in a
 * fraction of a second); a view of a larger source keeps size 0 until it
 * is read, or sized by the index or sizes=exact.  (A budget on rendered
 * bytes does not bound the cost: the first lines of a column may need a
 * whole 36 MB page, and verify decodes a chunk for a few lines.) */
#define COLFS_SIZE_PROBE_SOURCE (4u << 20)
/* Learn the sizes of `n` nodes as colfs_node_size would, on up to
 * `threads` threads at once (0: one per online CPU; at most 64).  With
 * `exact`, every stream is decoded to its end whatever the sizes mode.
 * `progress` (may be NULL) is called after each node, never two at once,
 * with how many are done. */
void colfs_nodes_learn_sizes(colfs_tree *t, colfs_node *const *nodes,
			     size_t n, unsigned threads, bool exact,
			     void (*progress)(void *arg, size_t done,
					      size_t total),
			     void *arg);
/* The size index file (NULL with size_index=off or when no cache
 * directory is known) and what reading it at open gave: "PATH: N sizes",
 * or why it was ignored (missing, damaged, stale). */
const char *colfs_tree_size_index_path(const colfs_tree *t);
const char *colfs_tree_size_index_note(const colfs_tree *t);
/* Sizes learned from now on are only compared with the index (a wrong
 * one is still reported), not kept for colfs_tree_save_sizes: for a
 * reader that never writes the index and reads every view (check: the
 * paths of 1.4 million views of a wide file were 150 MiB). */
void colfs_tree_sizes_compare_only(colfs_tree *t);
/* Write the index when sizes were learned that it lacks.  COLFS_OK when
 * written or when there was nothing to write; `why` says what was done. */
colfs_status colfs_tree_save_sizes(colfs_tree *t, char *why, size_t why_len);
/* For a range node: where its bytes are in the source file. */
bool colfs_node_range(const colfs_node *n, uint64_t *offset, uint64_t *len);

/* Can `n`'s content still be served?  COLFS_EIO once the source file has
 * changed (size or modification time) since the tree was opened: then
 * every file answers it except the volatile ones (`errors`, `summary`),
 * which say what changed.  One fstat.  colfs_node_open and
 * colfs_handle_read check by themselves; a caller serving a range node's
 * bytes straight from colfs_tree_fd checks here first. */
colfs_status colfs_node_check(colfs_tree *t, const colfs_node *n);

/* Open a file node for reading.  A document is generated (or taken from
 * the cache) here, so a node that cannot be produced fails at open. */
colfs_status colfs_node_open(colfs_tree *t, colfs_node *n, colfs_handle **out);
/* Read up to `len` bytes at `offset`; `*got` < len at the end, or, in a
 * stream whose size is not known yet, before a part that cannot be read
 * (the read at the next offset then fails).  A read of a file whose size
 * is known fails at once: a short read would look like its end. */
colfs_status colfs_handle_read(colfs_handle *h, uint64_t offset, size_t len,
			       void *buf, size_t *got);

/* Bytes of a read lent without a copy (colfs_handle_read_lent): `data`
 * points into a cached piece or document, which stays alive until
 * colfs_lent_release; the caller only reads it. */
typedef struct colfs_lent {
	const char *data;
	size_t len;
	struct colfs_blob *pin;          /* held (NULL: nothing to give back) */
	struct colfs_piece_cache *cache; /* whose blob `pin` is (NULL: none's,
					  * freed at release) */
} colfs_lent;
/* colfs_handle_read, its bytes lent in place: `*count` (at most `max`,
 * at least 2) spans of `*got` bytes in all, in order; `*got` < len as
 * colfs_handle_read says.  Bytes that no cached piece holds (a range, a
 * read needing more than `max` spans) are copied into a span of their
 * own.  On error nothing is held and *count is 0.  Release the spans
 * (colfs_lent_release) once their bytes are used, before closing `h`. */
colfs_status colfs_handle_read_lent(colfs_handle *h, uint64_t offset,
				    size_t len, colfs_lent *out, size_t max,
				    size_t *count, size_t *got);
void colfs_lent_release(colfs_lent *lent, size_t count);
void colfs_handle_close(colfs_handle *h);

#endif

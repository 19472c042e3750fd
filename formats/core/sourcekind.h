/* colfs: kinds of source, as the modules that define them see them.
 *
 * A name given to colfs (a path, a URL) is read by the first kind of
 * colfs_source_kinds (registry.c) that claims it: a local file or
 * directory (sourcekind.c), a Kudu data root or container
 * (formats/kudu), an http(s):// object, an object or a prefix of S3,
 * Azure, Google Cloud Storage or the Hugging Face Hub (formats/remote).  A kind opens its name either as bytes (a
 * colfs_source, which a format reads) or as a listing (the objects under
 * it, which the directory module, formats/dataset, walks); it may list
 * the objects under a name, peek at an object's first and last bytes and
 * say what a name is (a file, a folder, its size); it says how its name
 * is shown with any secret hidden, and what the core compares to find
 * that the source changed.  The dataset layer and its table kinds reach
 * storage, local or remote, through these alone.  Adding a kind is its
 * own file and one line of registry.c; the core, fs/ and tools/ never
 * name a kind.
 */
#ifndef COLFS_SOURCEKIND_H
#define COLFS_SOURCEKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../colfs.h"
#include "source.h"
#include "status.h"

struct colfs_format; /* tree.h */

/* One object of a listing: its key relative to the listed name, and its
 * size.  The keys and the array are malloc'd
 * (colfs_source_entries_free). */
typedef struct colfs_source_entry {
	char *key;
	uint64_t size;
} colfs_source_entry;

/* What a name is (a kind's `stat`): a folder, a regular file, its size
 * and what tells that it changed. */
typedef struct colfs_source_stat_info {
	bool dir;
	bool regular;
	uint64_t size;
	uint64_t dev, ino;
	int64_t mtime_ns;
} colfs_source_stat_info;

/* What a kind's open gives: a descriptor (fd >= 0, owned by the caller;
 * the core stats it, and a directory opens as the directory module), or
 * a source without one (src), or, for a listing kind, neither (the
 * directory module lists the name itself). */
typedef struct colfs_source_opened {
	int fd;
	colfs_source *src;
	char *shown; /* the tree's name (malloc'd); NULL: the name given */
} colfs_source_opened;

typedef struct colfs_source_kind {
	const char *name;
	/* Is `name` this kind's? */
	bool (*claims)(const char *name);
	/* Open `name` (out->fd is -1, the rest NULL on entry).  On
	 * failure `why` names the source (its shown form) and the reason on
	 * one line. */
	colfs_status (*open)(const char *name, const colfs_options *o,
			     colfs_source_opened *out, char *why,
			     size_t why_len);
	/* The format its bytes are read as, without probing; NULL: the
	 * format is found by its magic bytes. */
	const struct colfs_format *format;
	/* A listing: the tree is the directory module's, which lists the
	 * objects under the name (a local directory by the core's walk,
	 * core/dirwalk.h, with the module's rules; a prefix by `list`). */
	bool listing;
	/* Optional: the objects under `name`, in byte order of their keys
	 * (a local directory: every regular file under it, recursively, as
	 * core/dirwalk.h walks it, no name left out). */
	colfs_status (*list)(const char *name, const colfs_options *o,
			     colfs_source_entry **out, size_t *n, char *why,
			     size_t why_len);
	/* Optional: the first and last `n` bytes of the object `name`,
	 * whose listing gave it `size` bytes (a dataset telling columnar
	 * files by their magic).  The local kinds': COLFS_ETRUNCATED when
	 * the file was opened but gave fewer bytes than that, another
	 * failure when it could not be opened. */
	colfs_status (*peek)(const char *name, const colfs_options *o,
			     uint64_t size, size_t n, uint8_t *head,
			     uint8_t *tail, char *why, size_t why_len);
	/* Optional: what `name` is now, links followed (a local path: its
	 * stat).  On failure `why` holds the reason alone (the system's
	 * words): the caller names the file as its messages do. */
	colfs_status (*stat)(const char *name, const colfs_options *o,
			     colfs_source_stat_info *out, char *why,
			     size_t why_len);
	/* Optional: `name` as messages and fsname show it (malloc'd), its
	 * secrets removed; NULL: the name as given. */
	char *(*display)(const char *name);
	/* Optional: overwrite the secrets of `arg` in place (argv). */
	void (*hide)(char *arg);
	/* What tells that the source changed since it was opened. */
	colfs_source_changes changes;
} colfs_source_kind;

/* registry.c: the kinds, in the order they are asked; the last claims
 * every name. */
extern const colfs_source_kind *const colfs_source_kinds[];

/* The kind that claims `name` (never NULL). */
const colfs_source_kind *colfs_source_kind_of(const char *name);
/* Is `name` a path of the local file system (its changes seen by stat)? */
bool colfs_source_is_local(const char *name);
/* The local file `path` opened for a source's reads (read-only,
 * close-on-exec; a FIFO opened without waiting for a writer, refused as
 * "not a regular file" when the tree stats it): its descriptor, or -1
 * with errno set.  For a kind whose bytes are a local file. */
int colfs_source_open_local(const char *path);
/* `name` as bytes, whatever its kind: a local file, a remote object. */
colfs_status colfs_source_open(const char *name, const colfs_options *o,
			       colfs_source **out, char *why, size_t why_len);
/* colfs_source_open of a file a table names: a local one must be a
 * regular file ("SHOWN is not a regular file"), and its messages name it
 * `shown` (the table's own name for it: "SHOWN: the system's reason");
 * a remote one's are its kind's, which show its name, secrets hidden. */
colfs_status colfs_source_open_file(const char *name, const char *shown,
				    const colfs_options *o,
				    colfs_source **out, char *why,
				    size_t why_len);
/* The objects under `name` (a kind with `list`; others: unsupported). */
colfs_status colfs_source_list(const char *name, const colfs_options *o,
			       colfs_source_entry **out, size_t *n, char *why,
			       size_t why_len);
void colfs_source_entries_free(colfs_source_entry *e, size_t n);
/* The first and last `n` bytes of `name` (a kind with `peek`). */
colfs_status colfs_source_peek(const char *name, const colfs_options *o,
			       uint64_t size, size_t n, uint8_t *head,
			       uint8_t *tail, char *why, size_t why_len);
/* What `name` is (a kind with `stat`; others: COLFS_EUNSUPPORTED). */
colfs_status colfs_source_stat(const char *name, const colfs_options *o,
			       colfs_source_stat_info *out, char *why,
			       size_t why_len);
/* The local kinds' peek and stat, for another kind whose names are
 * local files (a Kudu container's). */
colfs_status colfs_source_peek_local(const char *name, const colfs_options *o,
				     uint64_t size, size_t n, uint8_t *head,
				     uint8_t *tail, char *why, size_t why_len);
colfs_status colfs_source_stat_local(const char *name, const colfs_options *o,
				     colfs_source_stat_info *out, char *why,
				     size_t why_len);

#endif

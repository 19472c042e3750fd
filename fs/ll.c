/* colfs daemon: the FUSE low-level operations.
 *
 * Thin glue between the kernel's requests and the format core.  The inode
 * number of a node is colfs_node_ino().  The core counts the kernel's
 * lookups of each node as the protocol defines them (a lookup's reply, a
 * readdirplus entry other than "." and ".."; `forget` subtracts), and an
 * open directory handle keeps the directory's children: a node the kernel
 * still holds, or may reach through an open directory, is never freed.
 * What it has forgotten is freed by forget.c's thread, which also asks the
 * kernel to forget the listings least recently used as -o node_budget
 * nears; a directory freed is listed again, with the same names and new
 * inode numbers, when asked.
 * Readdir offsets are positions in the directory's child array (0 is ".",
 * 1 is "..", 2 + i is child i), the same in every listing of it, so a
 * listing resumes without per-open state.
 *
 * Everything is read-only: every request that would change something
 * answers EROFS (the mount is also made with `ro`, so the kernel usually
 * answers first).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "colfsd.h"

static colfsd *colfsd_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* The node behind an inode number the kernel got from us. */
static colfs_node *colfsd_node(fuse_req_t req, fuse_ino_t ino)
{
	return colfs_tree_node(colfsd_of(req)->tree, ino);
}

/* Permission bits follow the source file minus every write bit.  Files
 * keep only the read bits (their content is data, never a program);
 * directories get search (x) wherever the source has read. */
static mode_t colfsd_mode(const colfsd *d, bool dir)
{
	mode_t r = d->source.st_mode & 0444;

	if (dir)
		return S_IFDIR | r | (r >> 2);
	return S_IFREG | r;
}

/* Attributes of a node, and how long the kernel may keep them
 * (`*timeout`): the life of the mount, but never for volatile documents
 * (`errors`) nor for a stream whose size a stat could still learn.  With
 * `learn`, a stream's size is learned as the sizes mode says; without,
 * only a known size is given (a listing: `ls -R` and `find` need no
 * sizes, and the stat of `ls -l` that follows learns them).  A stream
 * whose size stays unknown after that is kept a short while
 * (COLFSD_TIMEOUT_UNKNOWN_SIZE).  Returns 0 or an errno. */
static int colfsd_stat(colfsd *d, colfs_node *n, struct stat *st,
		       double *timeout, bool learn)
{
	const bool dir = colfs_node_is_dir(n);

	memset(st, 0, sizeof *st);
	st->st_ino = colfs_node_ino(n);
	st->st_mode = colfsd_mode(d, dir);
	st->st_uid = d->source.st_uid;
	st->st_gid = d->source.st_gid;
	st->st_atim = d->source.st_atim;
	st->st_mtim = d->source.st_mtim;
	st->st_ctim = d->source.st_ctim;
	st->st_blksize = 4096;
	*timeout = COLFSD_TIMEOUT_IMMUTABLE;
	if (dir) {
		st->st_nlink = 2;
		return 0;
	}

	uint64_t size = 0;
	bool exact = true;
	/* A document that cannot be produced (damaged input) still has
	 * attributes, so that `ls -l`, `find` and `du` walk past it: it shows
	 * size 0, is never cached, and its open answers the error (EIO). */
	colfs_status cs = learn ? colfs_node_size(d->tree, n, &size, &exact)
			       : colfs_node_size_known(d->tree, n, &size,
						       &exact);
	if (cs == COLFS_ENOMEM)
		return colfsd_errno(cs);
	if (cs || !exact)
		size = 0;
	if (cs)
		exact = false;
	st->st_nlink = 1;
	st->st_size = (off_t)size;
	/* Decoded files: cat, cp and dd read st_blksize bytes at a time
	 * (coreutils: at least 128 KiB); 1 MiB is what one FUSE request
	 * carries (max_pages 256), so each read is one round trip instead of
	 * eight, and the core answers it from one or two cached pieces. */
	if (colfs_node_content(n) != COLFS_CONTENT_RANGE)
		st->st_blksize = COLFSD_STREAM_BLKSIZE;
	/* du: a range takes its stored bytes; a generated file what it
	 * would take written to disk (whole 4 KiB blocks). */
	if (colfs_node_content(n) == COLFS_CONTENT_RANGE)
		st->st_blocks = (blkcnt_t)((size + 511) / 512);
	else
		st->st_blocks = (blkcnt_t)((size + 4095) / 4096 * 8);
	if (colfs_node_is_volatile(n) || cs)
		*timeout = 0.0;
	else if (!exact)
		*timeout = learn || d->sizes_mode == COLFS_SIZES_LAZY
				   ? COLFSD_TIMEOUT_UNKNOWN_SIZE
				   : 0.0;
	return 0;
}

static int colfsd_entry(colfsd *d, colfs_node *n, struct fuse_entry_param *e,
			bool learn)
{
	memset(e, 0, sizeof *e);
	int err = colfsd_stat(d, n, &e->attr, &e->attr_timeout, learn);
	if (err)
		return err;
	e->ino = e->attr.st_ino;
	e->entry_timeout = COLFSD_TIMEOUT_IMMUTABLE;
	return 0;
}

/* --- connection ----------------------------------------------------------- */

static void colfsd_init(void *userdata, struct fuse_conn_info *conn)
{
	colfsd *d = userdata;

	/* Range nodes are answered with fuse_reply_data from the source
	 * descriptor: splicing them into /dev/fuse avoids a copy through
	 * our memory.  SPLICE_READ (receiving requests by splice) only helps
	 * file systems that take writes; SPLICE_MOVE cannot steal page-cache
	 * pages of the source file, so neither is asked for. */
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	if (conn->capable & FUSE_CAP_READDIRPLUS)
		conn->want |= FUSE_CAP_READDIRPLUS;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	if (conn->capable & FUSE_CAP_ASYNC_READ)
		conn->want |= FUSE_CAP_ASYNC_READ;
	/* The user's -o connection options come last and may override the
	 * above, except the write-back cache, which has no meaning here. */
	if (d->conn_opts)
		fuse_apply_conn_info_opts(d->conn_opts, conn);
	conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	/* max_read stays at the kernel's default. */
}

/* --- names and attributes ------------------------------------------------- */

static void colfsd_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	colfsd *d = colfsd_of(req);
	colfs_node *dir = colfsd_node(req, parent);
	colfs_node *kid = NULL;
	struct fuse_entry_param e;

	if (!dir) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	if (!colfs_node_is_dir(dir)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	/* The node found is held once (the kernel's lookup count) until
	 * its forget; undone when no entry reaches the kernel. */
	if (strcmp(name, ".") == 0) {
		kid = dir;
		colfs_nodes_ref(d->tree, &kid, 1);
	} else if (strcmp(name, "..") == 0) {
		kid = colfs_node_parent(dir);
		colfs_nodes_ref(d->tree, &kid, 1);
	} else {
		colfs_status cs = colfs_dir_lookup_ref(d->tree, dir, name,
						       &kid);
		if (cs == COLFS_ENOENT) {
			/* A negative entry: names never appear later. */
			memset(&e, 0, sizeof e);
			e.entry_timeout = COLFSD_TIMEOUT_IMMUTABLE;
			fuse_reply_entry(req, &e);
			return;
		}
		if (cs) {
			fuse_reply_err(req, colfsd_errno(cs));
			return;
		}
	}
	uint64_t ino = colfs_node_ino(kid);
	int err = colfsd_entry(d, kid, &e, true);
	__atomic_add_fetch(&d->n_lookups, 1, __ATOMIC_RELAXED);
	if (err) {
		colfsd_unref(d, ino, 1);
		fuse_reply_err(req, err);
	} else if (fuse_reply_entry(req, &e) != 0) {
		colfsd_unref(d, ino, 1);
	}
	colfsd_budget_check(d);
}

/* The kernel holds `ino` `nlookup` fewer times (forget.c frees what no
 * one holds). */
static void colfsd_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	colfsd *d = colfsd_of(req);

	__atomic_add_fetch(&d->n_forgets, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&d->n_forget_msgs, 1, __ATOMIC_RELAXED);
	colfsd_unref(d, ino, nlookup);
	fuse_reply_none(req);
}

static void colfsd_forget_multi(fuse_req_t req, size_t count,
				struct fuse_forget_data *forgets)
{
	colfsd *d = colfsd_of(req);
	/* one call of the core (one lock) for the batch */
	uint64_t *v = malloc(count * 2 * sizeof *v);

	__atomic_add_fetch(&d->n_forgets, count, __ATOMIC_RELAXED);
	__atomic_add_fetch(&d->n_forget_msgs, 1, __ATOMIC_RELAXED);
	if (!v) {
		for (size_t i = 0; i < count; i++)
			colfsd_unref(d, forgets[i].ino, forgets[i].nlookup);
	} else {
		for (size_t i = 0; i < count; i++) {
			v[i] = forgets[i].ino;
			v[count + i] = forgets[i].nlookup;
		}
		colfsd_unref_many(d, v, v + count, count);
		free(v);
	}
	fuse_reply_none(req);
}

static void colfsd_getattr(fuse_req_t req, fuse_ino_t ino,
			   struct fuse_file_info *fi)
{
	colfs_node *n = colfsd_node(req, ino);
	struct stat st;
	double timeout;

	(void)fi;
	if (!n) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	int err = colfsd_stat(colfsd_of(req), n, &st, &timeout, true);
	if (err)
		fuse_reply_err(req, err);
	else
		fuse_reply_attr(req, &st, timeout);
}

/* --- files ------------------------------------------------------------------ */

/* What an open file carries in fi->fh. */
typedef struct colfsd_file {
	struct colfsd_file *prev, *next; /* colfsd.files */
	colfs_node *node;
	bool range;           /* served zero-copy from the source fd (a
			       * remote source's ranges have a handle) */
	uint64_t offset, len; /* for a range: where in the source file */
	bool size_pending;    /* a stream opened before its size was known:
			       * the kernel is told when a read learns it */
	/* For documents and streams.  Reads on one handle may come from
	 * several threads at once (parallel read-ahead): the core allows it
	 * (a handle holds no position; streams lock inside the core). */
	colfs_handle *handle;
	/* The open (1, until its release) and each read in progress: a
	 * read's bytes are lent from the handle's document or pieces, and
	 * once its reply is written the kernel may deliver the release
	 * (of a readahead read's file, closed meanwhile) to another thread
	 * while this one still holds them. */
	unsigned refs;
} colfsd_file;

static void colfsd_file_destroy(colfsd_file *f)
{
	if (!f)
		return;
	colfs_handle_close(f->handle);
	free(f);
}

static void colfsd_file_put(colfsd_file *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0)
		colfsd_file_destroy(f);
}

static void colfsd_file_link(colfsd *d, colfsd_file *f)
{
	pthread_mutex_lock(&d->files_lock);
	f->prev = NULL;
	f->next = d->files;
	if (d->files)
		d->files->prev = f;
	d->files = f;
	pthread_mutex_unlock(&d->files_lock);
}

static void colfsd_file_unlink(colfsd *d, colfsd_file *f)
{
	pthread_mutex_lock(&d->files_lock);
	if (f->prev)
		f->prev->next = f->next;
	else
		d->files = f->next;
	if (f->next)
		f->next->prev = f->prev;
	pthread_mutex_unlock(&d->files_lock);
}

void colfsd_files_close_all(colfsd *d)
{
	pthread_mutex_lock(&d->files_lock);
	while (d->files) {
		colfsd_file *f = d->files;
		d->files = f->next;
		colfsd_file_destroy(f);
	}
	pthread_mutex_unlock(&d->files_lock);
}

static void colfsd_open(fuse_req_t req, fuse_ino_t ino,
			struct fuse_file_info *fi)
{
	colfsd *d = colfsd_of(req);
	colfs_node *n = colfsd_node(req, ino);
	colfs_status cs;

	if (!n) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	if (colfs_node_is_dir(n)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
		fuse_reply_err(req, EROFS);
		return;
	}

	colfsd_file *f = calloc(1, sizeof *f);
	if (!f) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	f->refs = 1;
	f->node = n;

	switch (colfs_node_content(n)) {
	case COLFS_CONTENT_RANGE:
		f->range = colfs_tree_fd(d->tree) >= 0 &&
			   colfs_node_range(n, &f->offset, &f->len);
		if (!f->range) {
			/* A remote source: no descriptor to splice from;
			 * the bytes come through the core, from the source's
			 * block cache (its errors go to `errors`).  A graft's
			 * range of another file: through the core too. */
			cs = colfs_node_open(d->tree, n, &f->handle);
			if (cs) {
				colfsd_file_destroy(f);
				fuse_reply_err(req, colfsd_errno(cs));
				return;
			}
			fi->keep_cache = 1;
			break;
		}
		/* A changed source: EIO at open, before the page cache
		 * (keep_cache) can serve old bytes of an earlier read. */
		cs = colfs_node_check(d->tree, n);
		if (cs) {
			colfsd_file_destroy(f);
			fuse_reply_err(req, colfsd_errno(cs));
			return;
		}
		fi->keep_cache = 1;
		break;
	case COLFS_CONTENT_DOC:
		cs = colfs_node_open(d->tree, n, &f->handle);
		if (cs) {
			colfsd_file_destroy(f);
			fuse_reply_err(req, colfsd_errno(cs));
			return;
		}
		/* a costly document's size may have been unknown (0) to
		 * the stat before this open made it: past the page cache,
		 * which would stop at that size */
		if (colfs_node_is_volatile(n) || colfs_node_size_when_read(n))
			fi->direct_io = 1;
		else
			fi->keep_cache = 1;
		/* made now: its size is known to the next stat */
		if (!colfs_node_is_volatile(n) &&
		    colfs_node_size_when_read(n) && d->se)
			fuse_lowlevel_notify_inval_inode(d->se, ino, -1, 0);
		break;
	case COLFS_CONTENT_STREAM: {
		uint64_t size = 0;
		bool exact = false;

		cs = colfs_node_open(d->tree, n, &f->handle);
		if (!cs)
			cs = colfs_node_size(d->tree, n, &size, &exact);
		if (cs) {
			colfsd_file_destroy(f);
			fuse_reply_err(req, colfsd_errno(cs));
			return;
		}
		/* Size 0 until known: the page cache would stop at 0 bytes,
		 * so bypass it until the exact size is learnt.  A view of
		 * known size is read with direct I/O too, unless it is meant
		 * to be mapped (arrays/): through the page cache each reply
		 * is copied into fresh page-cache pages (256 KiB readahead
		 * requests) and again into the reader's buffer; with direct
		 * I/O the kernel copies it once, into the reader's own
		 * pages, in requests of the reader's size (1 MiB for cat,
		 * st_blksize).  A second read asks the daemon again
		 * (docs/performance.md).  A shared mmap of a
		 * direct-I/O file answers ENODEV: -o page_cache=all serves
		 * every view of known size through the page cache (the first
		 * cat of the benchmark's columns took 4 to 33 % more CPU,
		 * docs/performance.md; a second read is the kernel's). */
		if (exact && !colfs_node_is_volatile(n) &&
		    (colfs_node_is_mappable(n) || d->page_cache_all))
			fi->keep_cache = 1;
		else
			fi->direct_io = 1;
		f->size_pending = !exact && !colfs_node_is_volatile(n);
		/* Read through the page cache, the kernel stops at the size
		 * it holds: one kept while the size was unknown (0, for
		 * COLFSD_TIMEOUT_UNKNOWN_SIZE) would end the read at once
		 * when the size was learnt since without a read of ours
		 * telling it (a graft's tree read through another path).
		 * Its attributes are dropped, so it asks at the end. */
		if (fi->keep_cache && d->se)
			fuse_lowlevel_notify_inval_inode(d->se, ino, -1, 0);
		break;
	}
	case COLFS_CONTENT_DIR:
		colfsd_file_destroy(f);
		fuse_reply_err(req, EISDIR);
		return;
	}

	fi->fh = (uintptr_t)f;
	colfsd_file_link(d, f);
	/* When the reply cannot be sent (interrupted) no release follows. */
	if (fuse_reply_open(req, fi) != 0) {
		colfsd_file_unlink(d, f);
		colfsd_file_destroy(f);
	}
}

/* A read of a stream opened before its size was known: once the size is
 * known (this read or one before reached the end), the kernel forgets the
 * attributes it keeps (size 0, COLFSD_TIMEOUT_UNKNOWN_SIZE), so that the
 * stat after `cat` shows the size.  Told before the read is answered, so
 * the reader's next stat asks again; only attributes are invalidated (a
 * negative offset), which takes no lock a pending read holds. */
static void colfsd_size_learnt(colfsd *d, colfsd_file *f, fuse_ino_t ino)
{
	uint64_t size;
	bool exact = false;

	if (colfs_node_size_known(d->tree, f->node, &size, &exact) ||
	    !exact)
		return;
	if (!__atomic_exchange_n(&f->size_pending, false, __ATOMIC_RELAXED))
		return;
	if (d->se)
		fuse_lowlevel_notify_inval_inode(d->se, ino, -1, 0);
}

static void colfsd_read(fuse_req_t req, fuse_ino_t ino, size_t size,
			off_t off, struct fuse_file_info *fi)
{
	colfsd *d = colfsd_of(req);
	colfsd_file *f = (colfsd_file *)(uintptr_t)fi->fh;

	if (off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (f->range) {
		uint64_t at = (uint64_t)off;
		if (at >= f->len || size == 0) {
			fuse_reply_buf(req, NULL, 0);
			return;
		}
		colfs_status cs = colfs_node_check(d->tree, f->node);
		if (cs) {
			fuse_reply_err(req, colfsd_errno(cs));
			return;
		}
		size_t n = f->len - at < size ? (size_t)(f->len - at) : size;
		struct fuse_bufvec bv = FUSE_BUFVEC_INIT(n);
		bv.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		bv.buf[0].fd = colfs_tree_fd(d->tree);
		bv.buf[0].pos = (off_t)(f->offset + at);
		fuse_reply_data(req, &bv, 0);
		return;
	}

	/* Answered from the cached pieces themselves: the core lends their
	 * bytes, held until writev has handed them to the kernel (a read,
	 * 256 KiB through the page cache, 1 MiB with direct I/O, is one to
	 * three pieces of a value view).  fuse_reply_iov and
	 * not fuse_reply_data: libfuse copies a bufvec of several memory
	 * buffers into one before writing it. */
	colfs_lent lent[COLFSD_READ_SPANS];
	struct iovec iov[COLFSD_READ_SPANS];
	size_t count = 0, got = 0;
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_ACQ_REL);
	colfs_status cs = colfs_handle_read_lent(f->handle, (uint64_t)off,
						 size, lent, COLFSD_READ_SPANS,
						 &count, &got);
	/* (several threads may read one handle: the flag is atomic) */
	if (!cs && __atomic_load_n(&f->size_pending, __ATOMIC_RELAXED))
		colfsd_size_learnt(d, f, ino);
	if (cs) {
		fuse_reply_err(req, colfsd_errno(cs));
		colfsd_file_put(f);
		return;
	}
	for (size_t i = 0; i < count; i++)
		iov[i] = (struct iovec){.iov_base = (void *)lent[i].data,
					.iov_len = lent[i].len};
	fuse_reply_iov(req, iov, (int)count);
	colfs_lent_release(lent, count);
	colfsd_file_put(f);
}

static void colfsd_release(fuse_req_t req, fuse_ino_t ino,
			   struct fuse_file_info *fi)
{
	colfsd_file *f = (colfsd_file *)(uintptr_t)fi->fh;

	(void)ino;
	colfsd_file_unlink(colfsd_of(req), f);
	colfsd_file_put(f);
	fuse_reply_err(req, 0);
}

/* --- directories ------------------------------------------------------------ */

static void colfsd_opendir(fuse_req_t req, fuse_ino_t ino,
			   struct fuse_file_info *fi)
{
	colfs_node *n = colfsd_node(req, ino);

	if (!n) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	if (!colfs_node_is_dir(n)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	/* A listing never changes during the mount (forget.c drops the
	 * kernel's copy when it frees the children it names). */
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	/* The handle keeps its children: a readdir walks them unlocked. */
	colfs_dir_opened(colfsd_of(req)->tree, n);
	if (fuse_reply_open(req, fi) != 0)
		colfsd_dir_close(colfsd_of(req), n);
}

/* Before answering a readdirplus with sizes=exact: learn the sizes of the
 * streams about to be listed (those of kids[pos - 2 ...] that fit in
 * `size` bytes) on several threads at once, rather than one by one in the
 * stats that follow.  With sizes=auto a listing learns nothing (`ls -R`
 * and `find` must not decode); the stat of `ls -l` probes each view. */
static void colfsd_learn_sizes(colfsd *d, colfs_node *const *kids,
			       size_t count, uint64_t pos, size_t size)
{
	size_t first = pos < 2 ? 0 : (size_t)(pos - 2);
	/* An entry takes more than 64 bytes of the reply. */
	size_t last = first + size / 64 + 1;
	size_t streams = 0;

	if (d->sizes_mode != COLFS_SIZES_EXACT)
		return;
	if (last > count)
		last = count;
	for (size_t i = first; i < last && streams < 2; i++)
		if (colfs_node_content(kids[i]) == COLFS_CONTENT_STREAM)
			streams++;
	if (streams >= 2)
		colfs_nodes_learn_sizes(d->tree, kids + first, last - first, 0,
					false, NULL, NULL);
}

static void colfsd_readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size,
				  off_t off, bool plus)
{
	colfsd *d = colfsd_of(req);
	colfs_node *dir = colfsd_node(req, ino);
	colfs_node *const *kids = NULL;
	size_t count = 0;

	if (!dir) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	if (!colfs_node_is_dir(dir)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	colfs_status cs = colfs_dir_list(d->tree, dir, &kids, &count);
	if (cs) {
		fuse_reply_err(req, colfsd_errno(cs));
		return;
	}
	char *buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (plus && off >= 0 && (uint64_t)off < count + 2)
		colfsd_learn_sizes(d, kids, count, (uint64_t)off, size);
	/* The entries a readdirplus gives the kernel (held once each, as a
	 * lookup's node, before the reply; undone when it does not reach
	 * the kernel).  An entry takes more than 128 bytes of the reply. */
	colfs_node **given = NULL;
	size_t ngiven = 0, capgiven = size / 128 + 1;
	if (plus && !(given = malloc(capgiven * sizeof *given))) {
		free(buf);
		fuse_reply_err(req, ENOMEM);
		return;
	}

	size_t used = 0;
	for (uint64_t pos = off < 0 ? 0 : (uint64_t)off; pos < count + 2;
	     pos++) {
		colfs_node *kid;
		const char *name;

		if (plus && ngiven == capgiven)
			break;
		if (pos == 0) {
			kid = dir;
			name = ".";
		} else if (pos == 1) {
			kid = colfs_node_parent(dir);
			name = "..";
		} else {
			kid = kids[pos - 2];
			name = colfs_node_name(kid);
		}

		size_t want;
		bool entry = false;
		if (plus) {
			struct fuse_entry_param e;
			/* "." and ".." carry no entry (the kernel knows them);
			 * a node whose attributes fail is listed without
			 * one, so its lookup answers the error. */
			entry = pos >= 2 && colfsd_entry(d, kid, &e, false) == 0;
			if (!entry) {
				memset(&e, 0, sizeof e);
				e.attr.st_ino = colfs_node_ino(kid);
				e.attr.st_mode = colfsd_mode(
					d, colfs_node_is_dir(kid));
			}
			want = fuse_add_direntry_plus(req, buf + used,
						      size - used, name, &e,
						      (off_t)(pos + 1));
		} else {
			struct stat st;
			memset(&st, 0, sizeof st);
			st.st_ino = colfs_node_ino(kid);
			st.st_mode = colfsd_mode(d, colfs_node_is_dir(kid));
			want = fuse_add_direntry(req, buf + used, size - used,
						 name, &st, (off_t)(pos + 1));
		}
		if (want > size - used)
			break;
		used += want;
		if (entry)
			given[ngiven++] = kid;
	}
	if (ngiven)
		colfs_nodes_ref(d->tree, given, ngiven);
	if (fuse_reply_buf(req, buf, used) != 0)
		for (size_t i = 0; i < ngiven; i++)
			colfsd_unref(d, colfs_node_ino(given[i]), 1);
	free(given);
	free(buf);
	colfsd_budget_check(d);
}

static void colfsd_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	colfsd_readdir_common(req, ino, size, off, false);
}

static void colfsd_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			       off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	colfsd_readdir_common(req, ino, size, off, true);
}

static void colfsd_releasedir(fuse_req_t req, fuse_ino_t ino,
			      struct fuse_file_info *fi)
{
	colfs_node *n = colfsd_node(req, ino);

	(void)fi;
	if (n)
		colfsd_dir_close(colfsd_of(req), n);
	fuse_reply_err(req, 0);
}

/* --- file system -------------------------------------------------------------- */

static void colfsd_statfs(fuse_req_t req, fuse_ino_t ino)
{
	const colfsd *d = colfsd_of(req);
	struct statvfs sv;

	(void)ino;
	memset(&sv, 0, sizeof sv);
	sv.f_bsize = 4096;
	sv.f_frsize = 4096;
	sv.f_blocks = (fsblkcnt_t)((d->source.st_size + 4095) / 4096);
	sv.f_namemax = 255;
	sv.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &sv);
}

/* Extended attributes come from the core (colfs_node_xattr_*): a size-0
 * request learns the exact size, a short buffer answers ERANGE, a name
 * the node does not have ENODATA.  They are made again at each request
 * (the problem count grows as the file is read), so nothing is cached. */
static void colfsd_xattr_reply(fuse_req_t req, colfs_status st,
			       const char *buf, size_t need, size_t size)
{
	if (st == COLFS_ENOENT)
		fuse_reply_err(req, ENODATA);
	else if (st != COLFS_OK)
		fuse_reply_err(req, colfsd_errno(st));
	else if (size == 0)
		fuse_reply_xattr(req, need);
	else if (need > size)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, buf, need);
}

/* Attributes are short (a path of at most a few KiB): a buffer of the
 * kernel's largest xattr size holds any of them. */
#define COLFSD_XATTR_MAX 65536

static void colfsd_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			    size_t size)
{
	colfsd *d = colfsd_of(req);
	colfs_node *n = colfsd_node(req, ino);
	size_t cap = size < COLFSD_XATTR_MAX ? size : COLFSD_XATTR_MAX;
	char *buf = NULL;
	size_t need = 0;
	colfs_status st;

	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (cap && !(buf = malloc(cap))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	st = colfs_node_xattr_get(d->tree, n, name, buf, cap, &need);
	colfsd_xattr_reply(req, st, buf, need, size);
	free(buf);
}

static void colfsd_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	colfsd *d = colfsd_of(req);
	colfs_node *n = colfsd_node(req, ino);
	size_t cap = size < COLFSD_XATTR_MAX ? size : COLFSD_XATTR_MAX;
	char *buf = NULL;
	size_t need = 0;
	colfs_status st;

	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (cap && !(buf = malloc(cap))) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	st = colfs_node_xattr_list(d->tree, n, buf, cap, &need);
	colfsd_xattr_reply(req, st, buf, need, size);
	free(buf);
}

/* --- everything that writes: EROFS --------------------------------------------- */

static void colfsd_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			   int to_set, struct fuse_file_info *fi)
{
	(void)ino;
	(void)attr;
	(void)to_set;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void colfsd_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
			 mode_t mode, dev_t rdev)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)rdev;
	fuse_reply_err(req, EROFS);
}

static void colfsd_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
			 mode_t mode)
{
	(void)parent;
	(void)name;
	(void)mode;
	fuse_reply_err(req, EROFS);
}

static void colfsd_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	(void)parent;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void colfsd_symlink(fuse_req_t req, const char *link,
			   fuse_ino_t parent, const char *name)
{
	(void)link;
	(void)parent;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void colfsd_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
			  fuse_ino_t newparent, const char *newname,
			  unsigned int flags)
{
	(void)parent;
	(void)name;
	(void)newparent;
	(void)newname;
	(void)flags;
	fuse_reply_err(req, EROFS);
}

static void colfsd_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
			const char *newname)
{
	(void)ino;
	(void)newparent;
	(void)newname;
	fuse_reply_err(req, EROFS);
}

static void colfsd_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
			 size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)ino;
	(void)buf;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void colfsd_create(fuse_req_t req, fuse_ino_t parent, const char *name,
			  mode_t mode, struct fuse_file_info *fi)
{
	(void)parent;
	(void)name;
	(void)mode;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void colfsd_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			    const char *value, size_t size, int flags)
{
	(void)ino;
	(void)name;
	(void)value;
	(void)size;
	(void)flags;
	fuse_reply_err(req, EROFS);
}

static void colfsd_removexattr(fuse_req_t req, fuse_ino_t ino,
			       const char *name)
{
	(void)ino;
	(void)name;
	fuse_reply_err(req, EROFS);
}

static void colfsd_fallocate(fuse_req_t req, fuse_ino_t ino, int mode,
			     off_t offset, off_t length,
			     struct fuse_file_info *fi)
{
	(void)ino;
	(void)mode;
	(void)offset;
	(void)length;
	(void)fi;
	fuse_reply_err(req, EROFS);
}

static void colfsd_copy_file_range(fuse_req_t req, fuse_ino_t ino_in,
				   off_t off_in, struct fuse_file_info *fi_in,
				   fuse_ino_t ino_out, off_t off_out,
				   struct fuse_file_info *fi_out, size_t len,
				   int flags)
{
	(void)ino_in;
	(void)off_in;
	(void)fi_in;
	(void)ino_out;
	(void)off_out;
	(void)fi_out;
	(void)len;
	(void)flags;
	/* The destination is in this file system: it cannot be written. */
	fuse_reply_err(req, EROFS);
}

const struct fuse_lowlevel_ops colfsd_ll_ops = {
	.init = colfsd_init,
	.lookup = colfsd_lookup,
	.forget = colfsd_forget,
	.forget_multi = colfsd_forget_multi,
	.getattr = colfsd_getattr,
	.open = colfsd_open,
	.read = colfsd_read,
	.release = colfsd_release,
	.opendir = colfsd_opendir,
	.readdir = colfsd_readdir,
	.readdirplus = colfsd_readdirplus,
	.releasedir = colfsd_releasedir,
	.statfs = colfsd_statfs,
	.getxattr = colfsd_getxattr,
	.listxattr = colfsd_listxattr,
	.setattr = colfsd_setattr,
	.mknod = colfsd_mknod,
	.mkdir = colfsd_mkdir,
	.unlink = colfsd_unlink,
	.rmdir = colfsd_unlink,
	.symlink = colfsd_symlink,
	.rename = colfsd_rename,
	.link = colfsd_link,
	.write = colfsd_write,
	.create = colfsd_create,
	.setxattr = colfsd_setxattr,
	.removexattr = colfsd_removexattr,
	.fallocate = colfsd_fallocate,
	.copy_file_range = colfsd_copy_file_range,
};

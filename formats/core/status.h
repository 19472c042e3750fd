/* colfs: the one status enum of the format core.
 *
 * Every function of the core that can fail returns a colfs_status.  Values
 * are small positive integers so that `if (st)` reads as "if it failed".
 * fs/ turns a status into an errno in exactly one place (fs/errno.c).
 */
#ifndef COLFS_STATUS_H
#define COLFS_STATUS_H

#include <stddef.h>
#include <stdint.h>

typedef enum colfs_status {
	/* Success. */
	COLFS_OK = 0,
	/* The bytes are present but make no sense: a bad magic, a field of the
	 * wrong type, a value outside its domain, a checksum mismatch. */
	COLFS_ECORRUPT,
	/* The structure claims more bytes than the file (or its parent region)
	 * holds: the data was cut short. */
	COLFS_ETRUNCATED,
	/* An offset or index points outside the region it must stay in (a page
	 * past its chunk, a dictionary id past the dictionary). */
	COLFS_EBOUNDS,
	/* Arithmetic on file-supplied numbers would overflow, or a declared size
	 * is larger than the configured cap. */
	COLFS_EOVERFLOW,
	/* The input is well formed but uses something colfs does not implement
	 * (an unknown codec, an encrypted footer without keys). */
	COLFS_EUNSUPPORTED,
	/* An allocation failed. */
	COLFS_ENOMEM,
	/* The operating system refused a read. */
	COLFS_EIO,
	/* No such entry (lookups only; never a property of the data). */
	COLFS_ENOENT,
	/* End of a sequence (stream pieces, iteration); not an error. */
	COLFS_END,
} colfs_status;

/* A stable lower-case word for a status ("corrupt", "truncated", ...). */
const char *colfs_status_name(colfs_status st);

/* Error context: what went wrong, at which absolute byte offset of the
 * source file.  Filled by the cursor and decoders at the point of failure;
 * the tree adds the node path when the error is reported. */
typedef struct colfs_err {
	colfs_status status;
	uint64_t offset;      /* absolute offset in the source file */
	char msg[240];        /* expected vs found, in words */
} colfs_err;

/* The offset of a problem whose place in the file is not known (a value
 * that failed far from any byte the decoder can name).  Rendered as
 * "offset unknown" in `errors` and as null in JSON. */
#define COLFS_OFFSET_UNKNOWN UINT64_MAX

/* "offset <dec> (0x<hex>)", or "offset unknown" for COLFS_OFFSET_UNKNOWN:
 * the one way a problem's place is written.  Returns `buf`. */
const char *colfs_offset_text(uint64_t offset, char *buf, size_t size);

/* Fill `err` (if not NULL) and return `st`.  printf-style message. */
colfs_status colfs_fail(colfs_err *err, colfs_status st, uint64_t offset,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Write the message into `why` (of `why_len` bytes; nothing when NULL
 * or 0) and return `st`: the form of a failure that has no byte offset,
 * a name refused or a request that failed, told in one line. */
colfs_status colfs_fail_why(colfs_status st, char *why, size_t why_len,
			    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Forward a failing status from an expression. */
#define COLFS_TRY(expr)                                                     \
	do {                                                                \
		colfs_status colfs_try_st_ = (expr);                        \
		if (colfs_try_st_ != COLFS_OK)                              \
			return colfs_try_st_;                               \
	} while (0)

#endif

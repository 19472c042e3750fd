#include "status.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

const char *colfs_status_name(colfs_status st)
{
	switch (st) {
	case COLFS_OK: return "ok";
	case COLFS_ECORRUPT: return "corrupt";
	case COLFS_ETRUNCATED: return "truncated";
	case COLFS_EBOUNDS: return "out of bounds";
	case COLFS_EOVERFLOW: return "overflow";
	case COLFS_EUNSUPPORTED: return "unsupported";
	case COLFS_ENOMEM: return "out of memory";
	case COLFS_EIO: return "I/O error";
	case COLFS_ENOENT: return "not found";
	case COLFS_END: return "end";
	}
	return "unknown status";
}

colfs_status colfs_fail_why(colfs_status st, char *why, size_t why_len,
			    const char *fmt, ...)
{
	if (why && why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return st;
}

colfs_status colfs_fail(colfs_err *err, colfs_status st, uint64_t offset,
			const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->status = st;
		err->offset = offset;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return st;
}

const char *colfs_offset_text(uint64_t offset, char *buf, size_t size)
{
	if (offset == COLFS_OFFSET_UNKNOWN)
		snprintf(buf, size, "offset unknown");
	else
		snprintf(buf, size, "offset %" PRIu64 " (0x%" PRIx64 ")",
			 offset, offset);
	return buf;
}

/* colfs: decompression for every codec of Parquet, ORC and Kudu CFile,
 * through the libraries that own each format (zlib, snappy-c, liblz4,
 * libzstd, libbrotlidec, liblzo2).
 *
 * Every decoder writes only inside [out, out + out_cap).  Output that would
 * not fit is COLFS_EOVERFLOW, malformed input COLFS_ECORRUPT.  Errors carry
 * the absolute offset of the compressed region (`offset`); the message names
 * the codec, the position inside the region where it is known, and what was
 * expected against what was found.
 *
 * Empty input decodes to zero bytes for every codec: the callers compare
 * *out_len with the uncompressed size the file declares, so a region that
 * should have held data is still reported, with both sizes, by them.
 */
#include "codec.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <brotli/decode.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lzo/lzo1x.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "cursor.h"

const char *colfs_codec_name(colfs_codec codec)
{
	switch (codec) {
	case COLFS_CODEC_NONE: return "UNCOMPRESSED";
	case COLFS_CODEC_SNAPPY: return "SNAPPY";
	case COLFS_CODEC_GZIP: return "GZIP";
	case COLFS_CODEC_LZO: return "LZO";
	case COLFS_CODEC_BROTLI: return "BROTLI";
	case COLFS_CODEC_LZ4_HADOOP: return "LZ4";
	case COLFS_CODEC_ZSTD: return "ZSTD";
	case COLFS_CODEC_LZ4_RAW: return "LZ4_RAW";
	case COLFS_CODEC_DEFLATE_RAW: return "ZLIB(raw)";
	case COLFS_CODEC_ZLIB: return "ZLIB";
	case COLFS_CODEC_LZO_RAW: return "LZO(raw)";
	}
	return "UNKNOWN";
}

/* The arguments every decoder needs, passed as one object. */
typedef struct codec_job {
	colfs_codec codec;
	const uint8_t *in;
	size_t in_len;
	uint8_t *out;
	size_t out_cap;
	uint64_t offset;  /* absolute offset of in[0] */
	colfs_err *err;
	bool bare;        /* message without the codec name (inner attempts) */
} codec_job;

#define JOB_FAIL(job, st, ...)                                              \
	codec_job_fail((job), (st), __VA_ARGS__)

static colfs_status codec_job_fail(const codec_job *job, colfs_status st,
				   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static colfs_status codec_job_fail(const codec_job *job, colfs_status st,
				   const char *fmt, ...)
{
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (job->bare)
		return colfs_fail(job->err, st, job->offset, "%s", what);
	return colfs_fail(job->err, st, job->offset, "%s: %s",
			  colfs_codec_name(job->codec), what);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* NONE                                                                */

static colfs_status codec_copy(const codec_job *job, size_t *out_len)
{
	if (job->in_len > job->out_cap)
		return JOB_FAIL(job, COLFS_EOVERFLOW,
				"%zu stored bytes do not fit the %zu expected",
				job->in_len, job->out_cap);
	if (job->in_len)
		memcpy(job->out, job->in, job->in_len);
	*out_len = job->in_len;
	return COLFS_OK;
}

/* ------------------------------------------------------------------ */
/* SNAPPY                                                              */

static colfs_status codec_snappy(const codec_job *job, size_t *out_len)
{
	size_t want;
	if (snappy_uncompressed_length((const char *)job->in, job->in_len,
				       &want) != SNAPPY_OK)
		return JOB_FAIL(job, COLFS_ECORRUPT,
				"block does not start with a valid length "
				"varint (%zu bytes of input)", job->in_len);
	if (want > job->out_cap)
		return JOB_FAIL(job, COLFS_EOVERFLOW,
				"block declares %zu uncompressed bytes, "
				"expected at most %zu", want, job->out_cap);
	size_t got = job->out_cap;
	snappy_status st = snappy_uncompress((const char *)job->in,
					     job->in_len, (char *)job->out,
					     &got);
	if (st == SNAPPY_BUFFER_TOO_SMALL)
		return JOB_FAIL(job, COLFS_EOVERFLOW,
				"block needs more than %zu bytes",
				job->out_cap);
	if (st != SNAPPY_OK)
		return JOB_FAIL(job, COLFS_ECORRUPT,
				"malformed block of %zu bytes declaring %zu "
				"uncompressed bytes", job->in_len, want);
	if (got != want)
		return JOB_FAIL(job, COLFS_ECORRUPT,
				"block declares %zu uncompressed bytes, "
				"decoded %zu", want, got);
	*out_len = got;
	return COLFS_OK;
}

/* ------------------------------------------------------------------ */
/* GZIP, ZLIB, DEFLATE_RAW: zlib inflate                               */

static uInt clamp_uint(size_t n)
{
	return n > UINT_MAX ? UINT_MAX : (uInt)n;
}

/* Inflate with `window_bits`.  With `members`, a stream end followed by
 * more input starts the next member (concatenated gzip files); trailing
 * zero bytes after a stream end are padding. */
static colfs_status codec_inflate(const codec_job *job, int window_bits,
				  bool members, size_t *out_len)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	int zr = inflateInit2(&zs, window_bits);
	if (zr == Z_MEM_ERROR)
		return JOB_FAIL(job, COLFS_ENOMEM, "no memory for inflate");
	if (zr != Z_OK)
		return JOB_FAIL(job, COLFS_EUNSUPPORTED,
				"inflateInit2 refused window bits %d",
				window_bits);

	colfs_status st = COLFS_OK;
	size_t in_pos = 0, produced = 0;
	unsigned member = 1;
	uint8_t spill; /* one byte to learn whether output goes on */

	for (;;) {
		char which[32] = "stream";
		if (members)
			snprintf(which, sizeof which, "member %u", member);
		bool full = produced == job->out_cap;
		uInt avail_in = clamp_uint(job->in_len - in_pos);
		uInt avail_out = full ? 1 : clamp_uint(job->out_cap - produced);
		zs.next_in = (Bytef *)(uintptr_t)(job->in + in_pos);
		zs.avail_in = avail_in;
		zs.next_out = full ? &spill : job->out + produced;
		zs.avail_out = avail_out;

		zr = inflate(&zs, Z_NO_FLUSH);
		in_pos += avail_in - zs.avail_in;
		if (full && zs.avail_out == 0) {
			st = JOB_FAIL(job, COLFS_EOVERFLOW,
				      "output exceeds the %zu bytes expected "
				      "(at compressed byte %zu of %zu)",
				      job->out_cap, in_pos, job->in_len);
			break;
		}
		if (!full)
			produced += avail_out - zs.avail_out;

		if (zr == Z_STREAM_END) {
			size_t rest = job->in_len - in_pos;
			if (rest == 0)
				break;
			if (members && all_zero(job->in + in_pos, rest))
				break;
			if (!members) {
				st = JOB_FAIL(job, COLFS_ECORRUPT,
					      "stream ends at compressed byte "
					      "%zu, expected it to end at %zu",
					      in_pos, job->in_len);
				break;
			}
			member++;
			inflateReset(&zs);
			continue;
		}
		if (zr == Z_OK)
			continue;
		if (zr == Z_BUF_ERROR && in_pos == job->in_len) {
			st = JOB_FAIL(job, COLFS_ECORRUPT,
				      "input ends after %zu bytes inside the "
				      "%s, expected its end marker",
				      job->in_len, which);
			break;
		}
		if (zr == Z_NEED_DICT) {
			st = JOB_FAIL(job, COLFS_EUNSUPPORTED,
				      "stream needs a preset dictionary "
				      "(at compressed byte %zu)", in_pos);
			break;
		}
		if (zr == Z_MEM_ERROR) {
			st = JOB_FAIL(job, COLFS_ENOMEM,
				      "no memory for inflate");
			break;
		}
		st = JOB_FAIL(job, COLFS_ECORRUPT,
			      "%s at compressed byte %zu of %zu: %s", which,
			      in_pos, job->in_len,
			      zs.msg ? zs.msg : "invalid deflate data");
		break;
	}
	inflateEnd(&zs);
	if (st == COLFS_OK)
		*out_len = produced;
	return st;
}

/* ------------------------------------------------------------------ */
/* BROTLI                                                              */

static colfs_status codec_brotli(const codec_job *job, size_t *out_len)
{
	BrotliDecoderState *bs = BrotliDecoderCreateInstance(NULL, NULL, NULL);
	if (!bs)
		return JOB_FAIL(job, COLFS_ENOMEM, "no memory for the decoder");

	colfs_status st = COLFS_OK;
	const uint8_t *next_in = job->in;
	size_t avail_in = job->in_len;
	size_t produced = 0;
	uint8_t spill;

	for (;;) {
		bool full = produced == job->out_cap;
		uint8_t *next_out = full ? &spill : job->out + produced;
		size_t avail_out = full ? 1 : job->out_cap - produced;
		size_t before = avail_out;
		BrotliDecoderResult r = BrotliDecoderDecompressStream(
			bs, &avail_in, &next_in, &avail_out, &next_out, NULL);
		size_t in_pos = job->in_len - avail_in;
		if (full && avail_out == 0) {
			st = JOB_FAIL(job, COLFS_EOVERFLOW,
				      "output exceeds the %zu bytes expected "
				      "(at compressed byte %zu of %zu)",
				      job->out_cap, in_pos, job->in_len);
			break;
		}
		if (!full)
			produced += before - avail_out;

		if (r == BROTLI_DECODER_RESULT_SUCCESS) {
			if (avail_in)
				st = JOB_FAIL(job, COLFS_ECORRUPT,
					      "stream ends at compressed byte "
					      "%zu, expected it to end at %zu",
					      in_pos, job->in_len);
			break;
		}
		if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
			if (full || avail_out == 0)
				continue;
			/* Room left yet no progress: never loop on it. */
			st = JOB_FAIL(job, COLFS_ECORRUPT,
				      "decoder stalled at compressed byte %zu",
				      in_pos);
			break;
		}
		if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
			st = JOB_FAIL(job, COLFS_ECORRUPT,
				      "input ends after %zu bytes, expected "
				      "the end of the stream", job->in_len);
			break;
		}
		BrotliDecoderErrorCode code = BrotliDecoderGetErrorCode(bs);
		st = JOB_FAIL(job,
			      code <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
					      code >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES
				      ? COLFS_ENOMEM
				      : COLFS_ECORRUPT,
			      "at compressed byte %zu of %zu: %s", in_pos,
			      job->in_len, BrotliDecoderErrorString(code));
		break;
	}
	BrotliDecoderDestroyInstance(bs);
	if (st == COLFS_OK)
		*out_len = produced;
	return st;
}

/* ------------------------------------------------------------------ */
/* ZSTD                                                                */

/* One decompression context per thread, freed when the thread exits. */
static pthread_once_t zstd_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t zstd_key;
static bool zstd_key_ok;
static __thread ZSTD_DCtx *zstd_dctx;

static void zstd_dctx_release(void *p)
{
	ZSTD_freeDCtx(p);
	zstd_dctx = NULL;   /* runs in the exiting thread itself */
}

static void zstd_key_create(void)
{
	zstd_key_ok = pthread_key_create(&zstd_key, zstd_dctx_release) == 0;
}

static ZSTD_DCtx *zstd_thread_dctx(void)
{
	if (zstd_dctx)
		return zstd_dctx;
	pthread_once(&zstd_key_once, zstd_key_create);
	if (!zstd_key_ok)
		return NULL;
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	if (dctx && pthread_setspecific(zstd_key, dctx) != 0) {
		ZSTD_freeDCtx(dctx);
		dctx = NULL;
	}
	zstd_dctx = dctx;
	return dctx;
}

static colfs_status codec_zstd(const codec_job *job, size_t *out_len)
{
	ZSTD_DCtx *dctx = zstd_thread_dctx();
	if (!dctx)
		return JOB_FAIL(job, COLFS_ENOMEM,
				"no memory for a decompression context");
	/* Single pass straight into the caller's buffer: all frames one
	 * after another, no window buffer, never past out_cap. */
	size_t r = ZSTD_decompressDCtx(dctx, job->out, job->out_cap, job->in,
				       job->in_len);
	if (!ZSTD_isError(r)) {
		*out_len = r;
		return COLFS_OK;
	}
	ZSTD_ErrorCode code = ZSTD_getErrorCode(r);
	if (code == ZSTD_error_dstSize_tooSmall) {
		unsigned long long fcs =
			ZSTD_getFrameContentSize(job->in, job->in_len);
		if (fcs != ZSTD_CONTENTSIZE_UNKNOWN &&
		    fcs != ZSTD_CONTENTSIZE_ERROR && fcs > job->out_cap)
			return JOB_FAIL(job, COLFS_EOVERFLOW,
					"frame declares %llu bytes, expected "
					"at most %zu", fcs, job->out_cap);
		return JOB_FAIL(job, COLFS_EOVERFLOW,
				"output exceeds the %zu bytes expected",
				job->out_cap);
	}
	if (code == ZSTD_error_memory_allocation)
		return JOB_FAIL(job, COLFS_ENOMEM, "%s", ZSTD_getErrorName(r));
	if (code == ZSTD_error_frameParameter_windowTooLarge ||
	    code == ZSTD_error_dictionary_wrong ||
	    code == ZSTD_error_frameParameter_unsupported)
		return JOB_FAIL(job, COLFS_EUNSUPPORTED,
				"%s (%zu bytes of input)", ZSTD_getErrorName(r),
				job->in_len);
	return JOB_FAIL(job, COLFS_ECORRUPT, "%s (%zu bytes of input)",
			ZSTD_getErrorName(r), job->in_len);
}

/* ------------------------------------------------------------------ */
/* LZ4                                                                 */

/* Length an LZ4 block decodes to, walking its sequences without writing
 * anything (per the LZ4 block format description).  Returns false if the
 * block is malformed.  Used after LZ4_decompress_safe failed, to tell
 * "does not fit" from "malformed", and after it succeeded, because
 * liblz4 (1.9.4) accepts some blocks whose last sequence is a match when
 * the output has room to spare (and refuses the same block with an
 * exact-size output): the format requires literals last. */
static bool lz4_block_length(const uint8_t *in, size_t len, uint64_t *total)
{
	size_t i = 0;
	uint64_t out = 0, last_match = UINT64_MAX;  /* where it starts */
	while (i < len) {
		uint8_t token = in[i++];
		uint64_t lit = token >> 4;
		if (lit == 15) {
			uint8_t b;
			do {
				if (i >= len)
					return false;
				b = in[i++];
				lit += b;
			} while (b == 255);
		}
		if (lit > len - i)
			return false;
		i += (size_t)lit;
		out += lit;
		if (i == len) {
			/* last sequence: literals only; encoders write its
			 * token's match nibble as 0, and after a match the
			 * last 5 bytes are literals and the last match starts
			 * at least 12 bytes before the end (liblz4 accepts
			 * blocks that break these or not depending on the
			 * output's room) */
			*total = out;
			return (token & 15u) == 0 &&
			       (last_match == UINT64_MAX ||
				(lit >= 5 && out - last_match >= 12));
		}
		if (len - i < 2)
			return false;
		uint16_t dist = colfs_le16(in + i);
		i += 2;
		if (dist == 0 || dist > out)
			return false;
		last_match = out;
		uint64_t match = (token & 15u) + 4u;
		if ((token & 15u) == 15u) {
			uint8_t b;
			do {
				if (i >= len)
					return false;
				b = in[i++];
				match += b;
			} while (b == 255);
		}
		out += match;
	}
	return false;   /* a block cannot end with a match */
}

/* Decode one bare LZ4 block into out[0..cap). */
static colfs_status lz4_block(const codec_job *job, const uint8_t *in,
			      size_t in_len, uint8_t *out, size_t cap,
			      size_t *got, const char *what, size_t at)
{
	if (in_len > (size_t)LZ4_MAX_INPUT_SIZE)
		return JOB_FAIL(job, COLFS_EUNSUPPORTED,
				"%s at compressed byte %zu: %zu bytes is more "
				"than an LZ4 block can hold", what, at, in_len);
	int icap = cap > (size_t)INT_MAX ? INT_MAX : (int)cap;
	int n = LZ4_decompress_safe((const char *)in, (char *)out,
				    (int)in_len, icap);
	uint64_t total = 0;
	bool formed = lz4_block_length(in, in_len, &total);
	if (n >= 0 && formed && total == (uint64_t)n) {
		*got = (size_t)n;
		return COLFS_OK;
	}
	if (n >= 0)
		return JOB_FAIL(job, COLFS_ECORRUPT,
				"%s at compressed byte %zu (%zu bytes) is not a "
				"valid LZ4 block: it does not end as the "
				"format requires (a literals-only sequence, "
				"the last 5 bytes literals, no match in the "
				"last 12)",
				what, at, in_len);
	if (formed && total > cap)
		return JOB_FAIL(job, COLFS_EOVERFLOW,
				"%s at compressed byte %zu decodes to %llu "
				"bytes, expected at most %zu", what, at,
				(unsigned long long)total, cap);
	return JOB_FAIL(job, COLFS_ECORRUPT,
			"%s at compressed byte %zu (%zu bytes) is not a "
			"valid LZ4 block", what, at, in_len);
}

static colfs_status codec_lz4_raw(const codec_job *job, size_t *out_len)
{
	return lz4_block(job, job->in, job->in_len, job->out, job->out_cap,
			 out_len, "block", 0);
}

/* One or more LZ4 frames (the lz4 command's format). */
static colfs_status lz4_frames(const codec_job *job, size_t *out_len)
{
	LZ4F_dctx *dctx;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return JOB_FAIL(job, COLFS_ENOMEM,
				"no memory for a frame decoder");
	colfs_status st = COLFS_OK;
	size_t in_pos = 0, produced = 0;
	size_t hint = 1;
	uint8_t spill;
	while (in_pos < job->in_len) {
		bool full = produced == job->out_cap;
		size_t dst = full ? 1 : job->out_cap - produced;
		size_t src = job->in_len - in_pos;
		hint = LZ4F_decompress(dctx, full ? &spill : job->out + produced,
				       &dst, job->in + in_pos, &src, NULL);
		if (LZ4F_isError(hint)) {
			st = JOB_FAIL(job, COLFS_ECORRUPT,
				      "frame at compressed byte %zu: %s",
				      in_pos, LZ4F_getErrorName(hint));
			break;
		}
		if (full && dst) {
			st = JOB_FAIL(job, COLFS_EOVERFLOW,
				      "frames decode to more than the %zu "
				      "bytes expected", job->out_cap);
			break;
		}
		in_pos += src;
		if (!full)
			produced += dst;
		if (src == 0 && dst == 0 && !full) {
			st = JOB_FAIL(job, COLFS_ECORRUPT,
				      "frame decoder stalled at compressed "
				      "byte %zu", in_pos);
			break;
		}
	}
	/* Input consumed: the last frame must be complete, and any output
	 * the decoder still holds must fit. */
	while (st == COLFS_OK && hint != 0) {
		bool full = produced == job->out_cap;
		size_t dst = full ? 1 : job->out_cap - produced;
		size_t src = 0;
		hint = LZ4F_decompress(dctx, full ? &spill : job->out + produced,
				       &dst, job->in + in_pos, &src, NULL);
		if (LZ4F_isError(hint)) {
			st = JOB_FAIL(job, COLFS_ECORRUPT, "frame: %s",
				      LZ4F_getErrorName(hint));
		} else if (full && dst) {
			st = JOB_FAIL(job, COLFS_EOVERFLOW,
				      "frames decode to more than the %zu "
				      "bytes expected", job->out_cap);
		} else if (dst == 0) {
			if (hint != 0)
				st = JOB_FAIL(job, COLFS_ECORRUPT,
					      "input ends after %zu bytes "
					      "inside a frame, expected %zu "
					      "more", job->in_len, hint);
		} else {
			produced += dst;
		}
	}
	LZ4F_freeDecompressionContext(dctx);
	if (st == COLFS_OK)
		*out_len = produced;
	return st;
}

/* Hadoop block framing, as Hadoop's BlockCompressorStream writes it for
 * Parquet's LZ4 and LZO: chunks of [u32 BE uncompressed length] followed by
 * one or more [u32 BE compressed length][compressed block] whose outputs
 * add up to that length.  `block` decodes one block. */
typedef colfs_status (*block_fn)(const codec_job *job, const uint8_t *in,
				 size_t in_len, uint8_t *out, size_t cap,
				 size_t *got, const char *what, size_t at);

typedef struct hadoop_result {
	colfs_err err;    /* why the framing did not decode (no codec name) */
	bool plausible;   /* the first header's lengths fit the input */
	bool overflow;    /* consistent framing, but more output than fits */
} hadoop_result;

/* COLFS_OK only if the framing walks the input exactly and every block
 * decodes to what its chunk declares. */
static colfs_status hadoop_frames(const codec_job *job, block_fn block,
				  size_t *out_len, hadoop_result *res)
{
	codec_job quiet = *job;
	quiet.err = &res->err;
	quiet.bare = true;
	size_t pos = 0, produced = 0;
	res->plausible = false;
	res->overflow = false;

	while (pos < job->in_len) {
		if (job->in_len - pos < 8)
			return JOB_FAIL(&quiet, COLFS_ECORRUPT,
					"chunk header at compressed byte %zu "
					"needs 8 bytes, %zu left", pos,
					job->in_len - pos);
		uint32_t ulen = colfs_be32(job->in + pos);
		size_t chunk_at = pos;
		pos += 4;
		size_t chunk = 0;
		do {
			if (job->in_len - pos < 4)
				return JOB_FAIL(&quiet, COLFS_ECORRUPT,
						"chunk at compressed byte %zu "
						"declares %u bytes, has %zu",
						chunk_at, ulen, chunk);
			uint32_t clen = colfs_be32(job->in + pos);
			pos += 4;
			if (clen > job->in_len - pos)
				return JOB_FAIL(&quiet, COLFS_ECORRUPT,
						"block length %u at compressed "
						"byte %zu exceeds the %zu bytes "
						"left", clen, pos - 4,
						job->in_len - pos);
			if (chunk_at == 0)
				res->plausible = true;
			/* Decode up to what the chunk declares, or up to what
			 * fits if that is less: a block that then runs out of
			 * room shows the framing wants more than out_cap. */
			size_t room = job->out_cap - produced;
			size_t want = ulen - chunk;
			bool cap_limited = room < want;
			size_t got;
			colfs_status st = block(&quiet, job->in + pos, clen,
						job->out + produced,
						cap_limited ? room : want,
						&got, "framed block", pos);
			if (st == COLFS_EOVERFLOW && cap_limited)
				res->overflow = true;
			if (st)
				return st;
			pos += clen;
			chunk += got;
			produced += got;
		} while (chunk < ulen);
	}
	*out_len = produced;
	return COLFS_OK;
}

/* After Hadoop framing and the fallbacks all failed: overflow if any
 * reading found well-formed data that does not fit, otherwise corrupt,
 * with the detail of the reading that got furthest. */
static colfs_status hadoop_verdict(const codec_job *job,
				   const hadoop_result *framed,
				   const colfs_err *bare, const char *kinds)
{
	if (framed->overflow)
		return JOB_FAIL(job, COLFS_EOVERFLOW, "Hadoop framing: %s",
				framed->err.msg);
	if (bare->status == COLFS_EOVERFLOW)
		return JOB_FAIL(job, COLFS_EOVERFLOW, "%s", bare->msg);
	return JOB_FAIL(job, COLFS_ECORRUPT, "%zu bytes are not %s (%s)",
			job->in_len, kinds,
			framed->plausible ? framed->err.msg : bare->msg);
}

static colfs_status codec_lz4_hadoop(const codec_job *job, size_t *out_len)
{
	hadoop_result framed;
	if (hadoop_frames(job, lz4_block, out_len, &framed) == COLFS_OK)
		return COLFS_OK;

	/* Not Hadoop-framed: parquet-cpp before 2.0 wrote a bare block. */
	colfs_err bare;
	codec_job quiet = *job;
	quiet.err = &bare;
	quiet.bare = true;
	if (lz4_block(&quiet, job->in, job->in_len, job->out, job->out_cap,
		      out_len, "bare block", 0) == COLFS_OK)
		return COLFS_OK;

	/* Some writers put the lz4 frame format here. */
	if (job->in_len >= 4 && colfs_le32(job->in) == 0x184D2204u) {
		colfs_err frame;
		quiet.err = &frame;
		colfs_status st = lz4_frames(&quiet, out_len);
		if (st == COLFS_OK)
			return COLFS_OK;
		return JOB_FAIL(job, st, "%s", frame.msg);
	}
	return hadoop_verdict(job, &framed, &bare,
			      "Hadoop-framed blocks, a bare block or a frame");
}

/* ------------------------------------------------------------------ */
/* LZO                                                                 */

static pthread_once_t lzo_once = PTHREAD_ONCE_INIT;
static int lzo_init_result = LZO_E_ERROR;

static void lzo_init_once(void)
{
	lzo_init_result = lzo_init();
}

static const char *lzo_error_name(int r)
{
	switch (r) {
	case LZO_E_INPUT_OVERRUN: return "input ends inside the stream";
	case LZO_E_OUTPUT_OVERRUN: return "output overrun";
	case LZO_E_LOOKBEHIND_OVERRUN: return "match refers before the start";
	case LZO_E_EOF_NOT_FOUND: return "no end-of-stream marker";
	case LZO_E_INPUT_NOT_CONSUMED: return "bytes after the end marker";
	}
	return "malformed stream";
}

static colfs_status lzo_block(const codec_job *job, const uint8_t *in,
			      size_t in_len, uint8_t *out, size_t cap,
			      size_t *got, const char *what, size_t at)
{
	lzo_uint n = cap;
	int r = lzo1x_decompress_safe(in, in_len, out, &n, NULL);
	if (r == LZO_E_OK) {
		*got = n;
		return COLFS_OK;
	}
	if (r == LZO_E_OUTPUT_OVERRUN)
		return JOB_FAIL(job, COLFS_EOVERFLOW,
				"%s at compressed byte %zu decodes to more "
				"than the %zu bytes expected", what, at, cap);
	return JOB_FAIL(job, COLFS_ECORRUPT,
			"%s at compressed byte %zu (%zu bytes): %s (lzo "
			"error %d)", what, at, in_len, lzo_error_name(r), r);
}

static colfs_status lzo_ready(const codec_job *job)
{
	pthread_once(&lzo_once, lzo_init_once);
	if (lzo_init_result != LZO_E_OK)
		return JOB_FAIL(job, COLFS_EUNSUPPORTED,
				"liblzo2 failed to initialise (error %d)",
				lzo_init_result);
	return COLFS_OK;
}

static colfs_status codec_lzo_raw(const codec_job *job, size_t *out_len)
{
	COLFS_TRY(lzo_ready(job));
	return lzo_block(job, job->in, job->in_len, job->out, job->out_cap,
			 out_len, "stream", 0);
}

static colfs_status codec_lzo(const codec_job *job, size_t *out_len)
{
	COLFS_TRY(lzo_ready(job));
	hadoop_result framed;
	if (hadoop_frames(job, lzo_block, out_len, &framed) == COLFS_OK)
		return COLFS_OK;

	/* Not Hadoop-framed: a bare lzo1x stream. */
	colfs_err bare;
	codec_job quiet = *job;
	quiet.err = &bare;
	quiet.bare = true;
	if (lzo_block(&quiet, job->in, job->in_len, job->out, job->out_cap,
		      out_len, "bare stream", 0) == COLFS_OK)
		return COLFS_OK;
	return hadoop_verdict(job, &framed, &bare,
			      "Hadoop-framed lzo1x blocks or a bare lzo1x "
			      "stream");
}

/* ------------------------------------------------------------------ */

colfs_status colfs_codec_decompress(colfs_codec codec, const uint8_t *in,
				    size_t in_len, uint8_t *out,
				    size_t out_cap, size_t *out_len,
				    uint64_t offset, colfs_err *err)
{
	const codec_job job = {
		.codec = codec, .in = in, .in_len = in_len, .out = out,
		.out_cap = out_cap, .offset = offset, .err = err,
	};
	size_t n = 0;
	colfs_status st;

	*out_len = 0;
	if (in_len == 0)
		return codec <= COLFS_CODEC_LZO_RAW
			       ? COLFS_OK
			       : colfs_fail(err, COLFS_EUNSUPPORTED, offset,
					    "unknown codec %d", (int)codec);
	switch (codec) {
	case COLFS_CODEC_NONE: st = codec_copy(&job, &n); break;
	case COLFS_CODEC_SNAPPY: st = codec_snappy(&job, &n); break;
	case COLFS_CODEC_GZIP: st = codec_inflate(&job, 15 + 32, true, &n); break;
	case COLFS_CODEC_LZO: st = codec_lzo(&job, &n); break;
	case COLFS_CODEC_BROTLI: st = codec_brotli(&job, &n); break;
	case COLFS_CODEC_LZ4_HADOOP: st = codec_lz4_hadoop(&job, &n); break;
	case COLFS_CODEC_ZSTD: st = codec_zstd(&job, &n); break;
	case COLFS_CODEC_LZ4_RAW: st = codec_lz4_raw(&job, &n); break;
	case COLFS_CODEC_DEFLATE_RAW: st = codec_inflate(&job, -15, false, &n); break;
	case COLFS_CODEC_ZLIB: st = codec_inflate(&job, 15, false, &n); break;
	case COLFS_CODEC_LZO_RAW: st = codec_lzo_raw(&job, &n); break;
	default:
		return colfs_fail(err, COLFS_EUNSUPPORTED, offset,
				  "unknown codec %d", (int)codec);
	}
	if (st == COLFS_OK)
		*out_len = n;
	return st;
}

/* --- stream ends (codec.h, colfs_codec_stream_end) ------------------------ */

/* The end of a bare LZ4 block that decodes to `u` bytes, or 0. */
static size_t lz4_span(const uint8_t *p, size_t n, uint64_t u)
{
	size_t i = 0;
	uint64_t o = 0;

	while (i < n) {
		unsigned tok = p[i++];
		uint64_t lit = tok >> 4, ml = tok & 15, off;

		if (lit == 15) {
			uint8_t b;
			do {
				if (i >= n)
					return 0;
				b = p[i++];
				lit += b;
			} while (b == 255 && lit < u);
		}
		if (lit > n - i)
			return 0;
		i += (size_t)lit;
		o += lit;
		if (o >= u)
			return o == u ? i : 0;
		if (n - i < 2)
			return 0;
		off = (uint64_t)p[i] | (uint64_t)p[i + 1] << 8;
		i += 2;
		if (off == 0 || off > o)
			return 0;
		if (ml == 15) {
			uint8_t b;
			do {
				if (i >= n)
					return 0;
				b = p[i++];
				ml += b;
			} while (b == 255 && ml < u);
		}
		o += ml + 4;
		if (o >= u)
			return 0; /* a block ends with literals */
	}
	return 0;
}

/* The end of a raw snappy stream that decodes to `u` bytes, or 0. */
static size_t snappy_span(const uint8_t *p, size_t n, uint64_t u)
{
	size_t i = 0;
	uint64_t o = 0, pre = 0;
	unsigned sh = 0;

	do {
		if (i >= n || sh > 28)
			return 0;
		pre |= (uint64_t)(p[i] & 0x7f) << sh;
		sh += 7;
	} while (p[i++] & 0x80);
	if (pre != u)
		return 0;
	while (o < u) {
		unsigned tag;
		uint64_t len, extra = 0;

		if (i >= n)
			return 0;
		tag = p[i++];
		switch (tag & 3) {
		case 0:
			len = (tag >> 2) + 1;
			if (len > 60) {
				unsigned nb = (unsigned)len - 60;
				len = 0;
				if (n - i < nb)
					return 0;
				for (unsigned k = 0; k < nb; k++)
					len |= (uint64_t)p[i + k] << (8 * k);
				len++;
				i += nb;
			}
			if (len > n - i)
				return 0;
			i += (size_t)len;
			break;
		case 1:
			len = 4 + ((tag >> 2) & 7);
			extra = 1;
			break;
		case 2:
			len = (tag >> 2) + 1;
			extra = 2;
			break;
		default:
			len = (tag >> 2) + 1;
			extra = 4;
			break;
		}
		if (extra) {
			if (n - i < extra || o == 0)
				return 0;
			i += (size_t)extra;
		}
		o += len;
	}
	return o == u ? i : 0;
}

/* The end of a zlib stream that inflates to exactly `u` bytes, or 0. */
static size_t zlib_span(const uint8_t *p, size_t n, uint64_t u, uint8_t *out)
{
	z_stream z;
	int r;
	size_t used;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return 0;
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)u;
	r = inflate(&z, Z_FINISH);
	used = z.total_in;
	if (r != Z_STREAM_END || z.total_out != u)
		used = 0;
	inflateEnd(&z);
	return used;
}

size_t colfs_codec_stream_end(colfs_codec codec, const uint8_t *in, size_t n,
			      uint64_t u, uint8_t *scratch)
{
	size_t c, got = 0;

	switch (codec) {
	case COLFS_CODEC_LZ4_RAW: c = lz4_span(in, n, u); break;
	case COLFS_CODEC_SNAPPY: c = snappy_span(in, n, u); break;
	case COLFS_CODEC_ZLIB: return zlib_span(in, n, u, scratch);
	default: return 0;
	}
	if (!c || colfs_codec_decompress(codec, in, c, scratch, (size_t)u,
					 &got, 0, NULL) != COLFS_OK ||
	    got != u)
		return 0;
	return c;
}

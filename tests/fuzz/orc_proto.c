/* tests/fuzz: the ORC metadata messages and the ORC stream framing.
 *
 * Input: one byte picks a message type of orc.proto (or the compression
 * chunk framing), the rest is the encoded message.  A message is
 * unpacked with the capped allocator the reader uses (colfs_proto_unpack),
 * converted to JSON (colfs_proto_json, what footer.json etc. show) and
 * packed again.  (Not unpacked again: protobuf-c keeps an unknown field
 * numbered 0 that it then refuses, a library quirk, not ours.)  The framing is decoded with orc_in_decompress
 * for each codec ORC uses, with a small block size.  Invariants: statuses
 * are enum values, failures carry an offset inside the input, the
 * allocator's cap holds, a decoded message converts to a JSON object,
 * decompressed output stays under the allocation cap. */
#include <jansson.h>

#include "fuzz_util.h"
#include "orc/orc_internal.h"

static const ProtobufCMessageDescriptor *const msgs[] = {
	&orcpb__post_script__descriptor,
	&orcpb__footer__descriptor,
	&orcpb__metadata__descriptor,
	&orcpb__stripe_footer__descriptor,
	&orcpb__row_index__descriptor,
	&orcpb__bloom_filter_index__descriptor,
	&orcpb__column_statistics__descriptor,
	&orcpb__type__descriptor,
	&orcpb__stripe_information__descriptor,
	&orcpb__encryption__descriptor,
	&orcpb__stripe_statistics__descriptor,
	&orcpb__file_statistics__descriptor,
};
#define N_MSGS (sizeof(msgs) / sizeof(msgs[0]))

static void message(const ProtobufCMessageDescriptor *d, const uint8_t *p,
		    size_t n)
{
	colfs_proto_msg m;
	colfs_err err;
	colfs_status st;
	size_t cap = 64 * n + 4096;

	memset(&m, 0, sizeof(m));
	memset(&err, 0, sizeof(err));
	st = colfs_proto_unpack(&m, d, p, n, cap, FUZZ_BASE, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, n);
	FUZZ_CHECK(m.alloc.used <= m.alloc.cap);
	if (st == COLFS_OK) {
		json_t *j;
		char *s;
		size_t plen = protobuf_c_message_get_packed_size(m.msg);
		uint8_t *packed = malloc(plen + 1);

		FUZZ_CHECK(m.msg != NULL);
		j = colfs_proto_json(m.msg, NULL);
		FUZZ_CHECK(j != NULL && json_is_object(j));
		s = json_dumps(j, JSON_COMPACT);
		FUZZ_CHECK(s != NULL);
		free(s);
		json_decref(j);
		FUZZ_CHECK(packed != NULL);
		FUZZ_CHECK(protobuf_c_message_pack(m.msg, packed) == plen);
		free(packed);
	} else {
		FUZZ_CHECK(m.msg == NULL);
	}
	colfs_proto_free(&m);
}

static void framing(uint8_t which, const uint8_t *p, size_t n)
{
	static const colfs_codec codecs[] = {
		COLFS_CODEC_DEFLATE_RAW, COLFS_CODEC_SNAPPY,
		COLFS_CODEC_LZO_RAW, COLFS_CODEC_LZ4_RAW, COLFS_CODEC_ZSTD,
		COLFS_CODEC_NONE,
	};
	orc_file f;
	uint8_t *out = NULL;
	size_t out_len = 0;
	colfs_err err;
	colfs_status st;

	memset(&f, 0, sizeof(f));
	f.codec = codecs[which % (sizeof(codecs) / sizeof(codecs[0]))];
	f.compressed = f.codec != COLFS_CODEC_NONE || (which & 0x80);
	f.block_size = 1u << (8 + (which >> 3) % 10);   /* 256 B .. 128 KiB */
	f.max_alloc = 1u << 20;
	memset(&err, 0, sizeof(err));
	st = orc_in_decompress(&f, p, n, FUZZ_BASE, &out, &out_len, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, n);
	if (st == COLFS_OK) {
		FUZZ_CHECK(out != NULL);
		FUZZ_CHECK(out_len <= f.max_alloc);
		if (!f.compressed)
			FUZZ_CHECK(out_len == n && !memcmp(out, p, n));
	} else {
		FUZZ_CHECK(out == NULL);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	uint8_t op = fuzz_u8(&in);
	uint8_t which = op >= 0xC0 ? fuzz_u8(&in) : 0;
	uint8_t *p = fuzz_dup(in.p, in.n);

	if (!p)
		return 0;
	if (op < 0xC0)
		message(msgs[op % N_MSGS], p, in.n);
	else
		framing((uint8_t)(which ^ op), p, in.n);
	free(p);
	return 0;
}

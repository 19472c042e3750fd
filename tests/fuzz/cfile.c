/* tests/fuzz: the Kudu CFile pieces below the tree.
 *
 * Input: one byte picks what to decode, a few bytes the column's type,
 * encoding, nullability and array flag, the rest is the data:
 *   - a data block, decoded by cfile_block_decode as the reader does after
 *     reading and decompressing it (with a three-entry dictionary loaded
 *     for DICT blocks), then rendered one row per line;
 *   - the protobuf messages of cfile.proto (header, footer, index block
 *     trailer, bloom block header, delta stats);
 *   - a DeltaFile value (cfile_special_delta_render), a bloom block
 *     (cfile_special_bloom_describe), one value (cfile_types_value_render, text and
 *     JSON) and an index key (cfile_index_key_render).
 * Invariants: statuses are enum values, failures carry an offset inside
 * the block, decoded blocks are self-consistent (non-null values not
 * more than rows, width as the type says) and render to exactly one
 * line per row. */
#include "cfile/cfile_int.h"
#include "fuzz_util.h"

static const ProtobufCMessageDescriptor *const msgs[] = {
	&kudu__cfile__cfile_header_pb__descriptor,
	&kudu__cfile__cfile_footer_pb__descriptor,
	&kudu__cfile__index_block_trailer_pb__descriptor,
	&kudu__cfile__bloom_block_header_pb__descriptor,
	&kudu__cfile__delta_stats_pb__descriptor,
	&kudu__cfile__btree_info_pb__descriptor,
};
#define N_MSGS (sizeof(msgs) / sizeof(msgs[0]))

static const uint8_t dict_bytes[] = "alphabravocharlie";

static void block(fuzz_in *in)
{
	uint8_t sel = fuzz_u8(in);
	uint8_t flags = fuzz_u8(in);
	int32_t type = sel % CFILE_TYPE_COUNT;
	int32_t enc = 1 + (sel >> 5) % 6;
	static const uint8_t *dstr[3] = {dict_bytes, dict_bytes + 5,
					 dict_bytes + 10};
	static uint32_t dlen[3] = {5, 5, 7};
	cfile_file f;
	cfile_raw raw;
	cfile_values v;
	cfile_ptr ptr;
	colfs_err err;
	colfs_status st;
	uint8_t *p;

	memset(&f, 0, sizeof(f));
	f.ti = cfile_types_get(type);
	if (!f.ti)
		return;
	if (!cfile_types_encoding_legal(type, enc))
		enc = cfile_types_encoding_default(type);
	f.type = type;
	f.encoding = enc;
	f.version = 2;
	f.nullable = flags & 1;
	f.array = (flags & 2) != 0;
	f.compression = CFILE_NO_COMPRESSION;
	f.max_alloc = 16u << 20;
	pthread_mutex_init(&f.dict_lock, NULL);
	pthread_mutex_init(&f.seen_lock, NULL);
	f.dict_tried = true;
	f.dict_status = COLFS_OK;
	f.dict_str = dstr;
	f.dict_len = dlen;
	f.dict_n = 3;

	p = fuzz_dup(in->p, in->n);
	if (!p)
		return;
	memset(&raw, 0, sizeof(raw));
	raw.data = p;
	raw.data_len = (uint32_t)in->n;
	ptr.offset = FUZZ_BASE;
	ptr.size = (uint32_t)in->n;
	memset(&err, 0, sizeof(err));
	st = cfile_block_decode(&f, &raw, ptr, &v, &err);
	fuzz_check_err(st, &err, FUZZ_BASE, in->n);
	if (st == COLFS_OK) {
		colfs_buf b = COLFS_BUF_INIT;
		size_t lines = 0;

		FUZZ_CHECK(v.width == f.ti->width);
		if (!f.array)
			FUZZ_CHECK(v.n <= v.rows);
		if (v.width && v.n)
			FUZZ_CHECK(v.fixed != NULL);
		if (!v.width && v.n)
			FUZZ_CHECK(v.str != NULL && v.len != NULL);
		if (v.rows <= 100000) {
			cfile_block_values_render(&f, &v, "\\N", &b);
			FUZZ_CHECK(!b.failed);
			for (size_t i = 0; i < b.len; i++)
				lines += b.data[i] == '\n';
			FUZZ_CHECK(lines == v.rows);
		}
		colfs_buf_free(&b);
		cfile_block_values_free(&v);
	}
	pthread_mutex_destroy(&f.dict_lock);
	pthread_mutex_destroy(&f.seen_lock);
	free(p);
}

static void message(uint8_t which, const uint8_t *p, size_t n)
{
	ProtobufCMessage *m;

	m = protobuf_c_message_unpack(msgs[which % N_MSGS], NULL, n, p);
	if (m) {
		size_t plen = protobuf_c_message_get_packed_size(m);
		uint8_t *buf = malloc(plen + 1);

		FUZZ_CHECK(buf != NULL);
		FUZZ_CHECK(protobuf_c_message_pack(m, buf) == plen);
		free(buf);
		protobuf_c_message_free_unpacked(m, NULL);
	}
}

static void pieces(uint8_t which, const uint8_t *p, size_t n)
{
	colfs_buf b = COLFS_BUF_INIT;
	colfs_err err;
	colfs_status st;

	memset(&err, 0, sizeof(err));
	switch (which % 4) {
	case 0:
		st = cfile_special_delta_render(p, n, &b, FUZZ_BASE, &err);
		fuzz_check_err(st, &err, FUZZ_BASE, n);
		break;
	case 1:
		st = cfile_special_bloom_describe(p, n, &b, FUZZ_BASE, &err);
		fuzz_check_err(st, &err, FUZZ_BASE, n);
		break;
	case 2: {
		int32_t type = (which >> 2) % (CFILE_TYPE_COUNT + 2);
		const cfile_type_info *ti = cfile_types_get(type);
		size_t len = n;

		/* values come in their block width */
		if (!ti)
			break;
		if (ti->width) {
			if (n < ti->width)
				break;
			len = ti->width;
		}
		cfile_types_value_render(&b, type, p, len);
		FUZZ_CHECK(!b.len || !memchr(b.data, '\n', b.len));
		cfile_types_value_render_json(&b, type, p, len);
		break;
	}
	default:
		cfile_index_key_render(&b, p, (uint32_t)n, which & 4);
		break;
	}
	FUZZ_CHECK(!b.failed);
	colfs_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_in in = {data, size};
	uint8_t op = fuzz_u8(&in);

	if (op < 0x80) {
		block(&in);
	} else {
		uint8_t which = fuzz_u8(&in);
		uint8_t *p = fuzz_dup(in.p, in.n);

		if (!p)
			return 0;
		if (op < 0xC0)
			message(which, p, in.n);
		else
			pieces(which, p, in.n);
		free(p);
	}
	return 0;
}

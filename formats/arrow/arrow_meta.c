/* colfs: Arrow IPC metadata (Schema.fbs, Message.fbs) read through the
 * bounded flatbuffer reader into arrow_field and arrow_msg. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_fb.h"
#include "arrow_int.h"

static const char *const type_names[AT_COUNT] = {
	"none", "null", "int", "floatingpoint", "binary", "utf8", "bool",
	"decimal", "date", "time", "timestamp", "interval", "list", "struct",
	"union", "fixedsizebinary", "fixedsizelist", "map", "duration",
	"largebinary", "largeutf8", "largelist", "runendencoded", "binaryview",
	"utf8view", "listview", "largelistview",
};

const char *arrow_type_name(uint8_t type)
{
	return type < AT_COUNT ? type_names[type] : "unknown";
}

const char *arrow_codec_name(int codec)
{
	return codec == 0 ? "LZ4_FRAME" : codec == 1 ? "ZSTD"
			   : codec < 0 ? "none" : "unknown";
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void arrow_field_free(arrow_field *fl)
{
	for (uint32_t i = 0; i < fl->nchildren; i++)
		arrow_field_free(&fl->children[i]);
	free(fl->children);
	for (uint32_t i = 0; i < fl->nmd; i++) {
		free(fl->md[i].key);
		free(fl->md[i].value);
	}
	free(fl->md);
	free(fl->name);
	free(fl->tz);
	free(fl->ext_name);
	free(fl->type_ids);
	memset(fl, 0, sizeof(*fl));
}

static colfs_status kv_parse(const afb_table *t, unsigned id, arrow_kv **out,
			     uint32_t *n, colfs_err *err, uint64_t base)
{
	afb_vec v;
	*out = NULL;
	*n = 0;
	if (!afb_vector(t, id, 4, &v) || !v.n)
		return COLFS_OK;
	arrow_kv *kv = calloc(v.n, sizeof(*kv));
	if (!kv)
		return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
	*out = kv;
	for (uint32_t i = 0; i < v.n; i++) {
		afb_table e;
		const char *s;
		size_t sl;
		if (!afb_vec_table(&v, i, &e))
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "custom_metadata entry %u is not a "
					  "valid table", i);
		kv[i].key = afb_string(&e, 0, &s, &sl) ? dup_n(s, sl)
						      : dup_n("", 0);
		kv[i].value = afb_string(&e, 1, &s, &sl) ? dup_n(s, sl)
							: dup_n("", 0);
		*n = i + 1;
		if (!kv[i].key || !kv[i].value)
			return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
	}
	return COLFS_OK;
}

static colfs_status field_parse(arrow_file *f, const afb_table *ft,
				arrow_field *fl, int depth, uint64_t base,
				colfs_err *err)
{
	const char *s;
	size_t sl;
	afb_table ty;

	if (depth > ARROW_MAX_DEPTH)
		return colfs_fail(err, COLFS_EUNSUPPORTED, base,
				  "fields nested deeper than %d",
				  ARROW_MAX_DEPTH);
	fl->name = afb_string(ft, 0, &s, &sl) ? dup_n(s, sl) : dup_n("", 0);
	if (!fl->name)
		return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
	fl->nullable = afb_int(ft, 1, 1, false, 0) != 0;
	fl->type = (uint8_t)afb_int(ft, 2, 1, false, 0);
	if (fl->type == AT_NONE || fl->type >= AT_COUNT)
		return colfs_fail(err, COLFS_EUNSUPPORTED, base,
				  "field \"%s\": type id %u is not an Arrow "
				  "type this reader knows", fl->name,
				  fl->type);
	bool have = afb_sub(ft, 3, &ty);
	if (!have && fl->type != AT_NULL && fl->type != AT_BINARY &&
	    fl->type != AT_UTF8 && fl->type != AT_BOOL &&
	    fl->type != AT_LIST && fl->type != AT_STRUCT &&
	    fl->type != AT_LBINARY && fl->type != AT_LUTF8 &&
	    fl->type != AT_LLIST && fl->type != AT_REE &&
	    fl->type != AT_BINVIEW && fl->type != AT_UTF8VIEW &&
	    fl->type != AT_LISTVIEW && fl->type != AT_LLISTVIEW &&
	    fl->type != AT_MAP)
		return colfs_fail(err, COLFS_ECORRUPT, base,
				  "field \"%s\": %s type table missing or "
				  "malformed", fl->name,
				  arrow_type_name(fl->type));
	switch (fl->type) {
	case AT_INT:
		fl->bits = (int)afb_int(&ty, 0, 4, true, 0);
		fl->is_signed = afb_int(&ty, 1, 1, false, 0) != 0;
		if (fl->bits != 8 && fl->bits != 16 && fl->bits != 32 &&
		    fl->bits != 64)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": int bitWidth %d",
					  fl->name, fl->bits);
		break;
	case AT_FLOAT:
		fl->bits = (int)afb_int(&ty, 0, 2, true, 0);
		if (fl->bits < 0 || fl->bits > 2)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": floating point "
					  "precision %d", fl->name, fl->bits);
		break;
	case AT_DECIMAL:
		fl->precision = (int32_t)afb_int(&ty, 0, 4, true, 0);
		fl->scale = (int32_t)afb_int(&ty, 1, 4, true, 0);
		fl->bits = (int)afb_int(&ty, 2, 4, true, 128);
		if (fl->bits != 32 && fl->bits != 64 && fl->bits != 128 &&
		    fl->bits != 256)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": decimal bitWidth %d",
					  fl->name, fl->bits);
		if (fl->scale < -1000 || fl->scale > 1000)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": decimal scale %d",
					  fl->name, fl->scale);
		break;
	case AT_DATE:
		fl->unit = (int)afb_int(&ty, 0, 2, true, 1);
		if (fl->unit < 0 || fl->unit > 1)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": date unit %d",
					  fl->name, fl->unit);
		break;
	case AT_TIME:
		fl->unit = (int)afb_int(&ty, 0, 2, true, 1);
		fl->bits = (int)afb_int(&ty, 1, 4, true, 32);
		if (fl->unit < 0 || fl->unit > 3 ||
		    (fl->bits != 32 && fl->bits != 64))
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": time unit %d, "
					  "bitWidth %d", fl->name, fl->unit,
					  fl->bits);
		break;
	case AT_TIMESTAMP:
	case AT_DURATION:
		fl->unit = (int)afb_int(&ty, 0, 2, true,
					fl->type == AT_DURATION ? 1 : 0);
		if (fl->unit < 0 || fl->unit > 3)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": %s unit %d", fl->name,
					  arrow_type_name(fl->type), fl->unit);
		if (fl->type == AT_TIMESTAMP && afb_string(&ty, 1, &s, &sl) &&
		    !(fl->tz = dup_n(s, sl)))
			return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
		break;
	case AT_INTERVAL:
		fl->unit = (int)afb_int(&ty, 0, 2, true, 0);
		if (fl->unit < 0 || fl->unit > 2)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": interval unit %d",
					  fl->name, fl->unit);
		break;
	case AT_UNION: {
		afb_vec v;
		fl->union_mode = (int)afb_int(&ty, 0, 2, true, 0);
		if (fl->union_mode < 0 || fl->union_mode > 1)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": union mode %d",
					  fl->name, fl->union_mode);
		if (afb_vector(&ty, 1, 4, &v) && v.n) {
			fl->type_ids = calloc(v.n, sizeof(int32_t));
			if (!fl->type_ids)
				return colfs_fail(err, COLFS_ENOMEM, base,
						  "no memory");
			for (uint32_t i = 0; i < v.n; i++)
				fl->type_ids[i] = (int32_t)afb_u32(
					v.buf + v.pos + 4 * (size_t)i);
			fl->n_type_ids = v.n;
		}
		break;
	}
	case AT_FSB:
	case AT_FSL:
		fl->width = (int32_t)afb_int(&ty, 0, 4, true, 0);
		if (fl->width < 0 || (fl->type == AT_FSB && fl->width == 0 &&
				      0))
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": %s size %d", fl->name,
					  arrow_type_name(fl->type),
					  fl->width);
		break;
	case AT_MAP:
		fl->keys_sorted = have && afb_int(&ty, 0, 1, false, 0) != 0;
		break;
	default:
		break;
	}
	/* dictionary encoding */
	afb_table de;
	if (afb_sub(ft, 4, &de)) {
		afb_table it;
		fl->dict = true;
		fl->dict_id = afb_int(&de, 0, 8, true, 0);
		fl->idx_bits = 32;
		fl->idx_signed = true;
		if (afb_sub(&de, 1, &it)) {
			fl->idx_bits = (int)afb_int(&it, 0, 4, true, 0);
			fl->idx_signed = afb_int(&it, 1, 1, false, 0) != 0;
		}
		if (fl->idx_bits != 8 && fl->idx_bits != 16 &&
		    fl->idx_bits != 32 && fl->idx_bits != 64)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": dictionary index "
					  "bitWidth %d", fl->name,
					  fl->idx_bits);
		uint32_t k;
		for (k = 0; k < f->ndict; k++)
			if (f->dict_ids[k] == fl->dict_id)
				break;
		if (k == f->ndict) {
			int64_t *ids = realloc(f->dict_ids,
					       (k + 1) * sizeof(*ids));
			if (ids)
				f->dict_ids = ids;
			arrow_field **fs = realloc(f->dict_fields,
						   (k + 1) * sizeof(*fs));
			if (fs)
				f->dict_fields = fs;
			if (!ids || !fs)
				return colfs_fail(err, COLFS_ENOMEM, base,
						  "no memory");
			f->dict_ids[k] = fl->dict_id;
			f->dict_fields[k] = fl;
			f->ndict++;
		}
		fl->dict_slot = k;
	}
	COLFS_TRY(kv_parse(ft, 6, &fl->md, &fl->nmd, err, base));
	for (uint32_t i = 0; i < fl->nmd; i++)
		if (!strcmp(fl->md[i].key, "ARROW:extension:name") &&
		    !(fl->ext_name = strdup(fl->md[i].value)))
			return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
	afb_vec ch;
	if (afb_vector(ft, 5, 4, &ch) && ch.n) {
		fl->children = calloc(ch.n, sizeof(*fl->children));
		if (!fl->children)
			return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
		fl->nchildren = ch.n;
		for (uint32_t i = 0; i < ch.n; i++) {
			afb_table ct;
			if (!afb_vec_table(&ch, i, &ct))
				return colfs_fail(err, COLFS_ECORRUPT, base,
						  "field \"%s\": child %u is "
						  "not a valid table",
						  fl->name, i);
			COLFS_TRY(field_parse(f, &ct, &fl->children[i],
					      depth + 1, base, err));
		}
	}
	/* the children each type needs */
	uint32_t need = 0;
	bool exact = true;
	switch (fl->type) {
	case AT_LIST: case AT_LLIST: case AT_FSL: case AT_MAP:
	case AT_LISTVIEW: case AT_LLISTVIEW:
		need = 1;
		break;
	case AT_REE:
		need = 2;
		break;
	case AT_STRUCT: case AT_UNION:
		exact = false;
		break;
	default:
		need = 0;
	}
	if (exact && fl->nchildren != need)
		return colfs_fail(err, COLFS_ECORRUPT, base,
				  "field \"%s\": %s with %u children, not %u",
				  fl->name, arrow_type_name(fl->type),
				  fl->nchildren, need);
	if (fl->type == AT_MAP && (fl->children[0].type != AT_STRUCT ||
				   fl->children[0].nchildren != 2 ||
				   fl->children[0].dict))
		return colfs_fail(err, COLFS_ECORRUPT, base,
				  "field \"%s\": map entries are not a struct "
				  "of two fields", fl->name);
	if (fl->type == AT_REE) {
		const arrow_field *re = &fl->children[0];
		if (re->type != AT_INT || !re->is_signed || re->bits < 16 ||
		    re->dict)
			return colfs_fail(err, COLFS_ECORRUPT, base,
					  "field \"%s\": run ends are not "
					  "int16/32/64", fl->name);
	}
	if (fl->type == AT_UNION && fl->type_ids &&
	    fl->n_type_ids != fl->nchildren)
		return colfs_fail(err, COLFS_ECORRUPT, base,
				  "field \"%s\": union of %u children with %u "
				  "type ids", fl->name, fl->nchildren,
				  fl->n_type_ids);
	return COLFS_OK;
}

colfs_status arrow_schema_parse(arrow_file *f, const uint8_t *buf, size_t len,
				size_t pos, colfs_err *err)
{
	afb_table st;
	uint64_t base = f->schema_off;

	if (!afb_table_at(buf, len, pos, &st))
		return colfs_fail(err, COLFS_ECORRUPT, base,
				  "schema is not a valid flatbuffer table");
	f->big_endian = afb_int(&st, 0, 2, true, 0) == 1;
	f->root.type = AT_STRUCT;
	f->root.name = strdup("");
	if (!f->root.name)
		return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
	COLFS_TRY(kv_parse(&st, 2, &f->md, &f->nmd, err, base));
	afb_vec fv;
	if (afb_vector(&st, 1, 4, &fv) && fv.n) {
		f->root.children = calloc(fv.n, sizeof(arrow_field));
		if (!f->root.children)
			return colfs_fail(err, COLFS_ENOMEM, base, "no memory");
		f->root.nchildren = fv.n;
		for (uint32_t i = 0; i < fv.n; i++) {
			afb_table ft;
			if (!afb_vec_table(&fv, i, &ft))
				return colfs_fail(err, COLFS_ECORRUPT, base,
						  "schema field %u is not a "
						  "valid table", i);
			COLFS_TRY(field_parse(f, &ft, &f->root.children[i], 1,
					      base, err));
		}
	}
	f->have_schema = true;
	return COLFS_OK;
}

/* A message's flatbuffer (m->meta, m->meta_len bytes): its kind,
 * version, body length and the batch facts. */
colfs_status arrow_message_parse(arrow_file *f, arrow_msg *m, colfs_err *err)
{
	afb_table mt, h, rb;
	(void)f;

	if (!afb_root(m->meta, m->meta_len, &mt))
		return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
				  "message is not a valid flatbuffer");
	m->version = (int16_t)afb_int(&mt, 0, 2, true, 0);
	m->kind = (uint8_t)afb_int(&mt, 1, 1, false, 0);
	int64_t bl = afb_int(&mt, 3, 8, true, 0);
	if (bl < 0)
		return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
				  "message bodyLength %lld is negative",
				  (long long)bl);
	m->body_len = (uint64_t)bl;
	m->codec = -1;
	if (m->kind != AM_SCHEMA && m->kind != AM_DICT && m->kind != AM_BATCH)
		return m->kind == AM_TENSOR || m->kind == AM_SPARSE
			       ? colfs_fail(err, COLFS_EUNSUPPORTED,
					    m->meta_off,
					    "%s message: tensors are not "
					    "read", m->kind == AM_TENSOR
						    ? "Tensor"
						    : "SparseTensor")
			       : colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
					    "message header type %u is not "
					    "an Arrow message", m->kind);
	if (!afb_sub(&mt, 2, &h))
		return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
				  "message header missing or malformed");
	if (m->kind == AM_SCHEMA)
		return COLFS_OK;
	if (m->kind == AM_DICT) {
		m->dict_id = afb_int(&h, 0, 8, true, 0);
		m->delta = afb_int(&h, 2, 1, false, 0) != 0;
		if (!afb_sub(&h, 1, &rb))
			return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
					  "dictionary batch %lld has no "
					  "record batch",
					  (long long)m->dict_id);
	} else {
		rb = h;
	}
	m->length = afb_int(&rb, 0, 8, true, 0);
	if (m->length < 0)
		return colfs_fail(err, COLFS_ECORRUPT, m->meta_off,
				  "batch length %lld is negative",
				  (long long)m->length);
	afb_table comp;
	if (afb_sub(&rb, 3, &comp)) {
		m->codec = (int)afb_int(&comp, 0, 1, true, 0);
		int method = (int)afb_int(&comp, 1, 1, true, 0);
		if (m->codec != 0 && m->codec != 1)
			return colfs_fail(err, COLFS_EUNSUPPORTED, m->meta_off,
					  "body compression codec %d is not "
					  "LZ4_FRAME or ZSTD", m->codec);
		if (method != 0)
			return colfs_fail(err, COLFS_EUNSUPPORTED, m->meta_off,
					  "body compression method %d is not "
					  "BUFFER", method);
	}
	return COLFS_OK;
}

/* The record batch table of message `m` (a dictionary batch's data). */
static bool msg_batch(const arrow_msg *m, afb_table *rb)
{
	afb_table mt, h;
	if (!afb_root(m->meta, m->meta_len, &mt) || !afb_sub(&mt, 2, &h))
		return false;
	if (m->kind == AM_DICT)
		return afb_sub(&h, 1, rb);
	*rb = h;
	return m->kind == AM_BATCH;
}

bool arrow_msg_buffer(const arrow_file *f, uint32_t mi, uint32_t k,
		      int64_t *off, int64_t *len, uint32_t *nbuf)
{
	afb_table rb;
	afb_vec v;
	if (mi >= f->nmsgs || !msg_batch(&f->msgs[mi], &rb) ||
	    !afb_vector(&rb, 2, 16, &v)) {
		if (nbuf)
			*nbuf = 0;
		return false;
	}
	if (nbuf)
		*nbuf = v.n;
	if (k >= v.n)
		return false;
	*off = (int64_t)afb_u64(v.buf + v.pos + 16 * (size_t)k);
	*len = (int64_t)afb_u64(v.buf + v.pos + 16 * (size_t)k + 8);
	return true;
}

bool arrow_msg_node(const arrow_file *f, uint32_t mi, uint32_t k,
		    int64_t *len, int64_t *nulls, uint32_t *nnodes)
{
	afb_table rb;
	afb_vec v;
	if (mi >= f->nmsgs || !msg_batch(&f->msgs[mi], &rb) ||
	    !afb_vector(&rb, 1, 16, &v)) {
		if (nnodes)
			*nnodes = 0;
		return false;
	}
	if (nnodes)
		*nnodes = v.n;
	if (k >= v.n)
		return false;
	*len = (int64_t)afb_u64(v.buf + v.pos + 16 * (size_t)k);
	*nulls = (int64_t)afb_u64(v.buf + v.pos + 16 * (size_t)k + 8);
	return true;
}

/* Variadic buffer counts of the view fields, in order. */
bool arrow_msg_variadic(const arrow_file *f, uint32_t mi, uint32_t k,
			int64_t *count);
bool arrow_msg_variadic(const arrow_file *f, uint32_t mi, uint32_t k,
			int64_t *count)
{
	afb_table rb;
	afb_vec v;
	if (mi >= f->nmsgs || !msg_batch(&f->msgs[mi], &rb) ||
	    !afb_vector(&rb, 4, 8, &v) || k >= v.n)
		return false;
	*count = (int64_t)afb_u64(v.buf + v.pos + 8 * (size_t)k);
	return true;
}

unsigned arrow_type_nbuffers(const arrow_field *fl, int version)
{
	if (fl->dict)
		return 2;
	switch (fl->type) {
	case AT_NULL: case AT_REE:
		return 0;
	case AT_STRUCT: case AT_FSL:
		return 1;
	case AT_UNION:
		/* before V5 a union had a validity buffer too */
		return (fl->union_mode ? 2 : 1) + (version < 4 ? 1 : 0);
	case AT_BINARY: case AT_UTF8: case AT_LBINARY: case AT_LUTF8:
	case AT_LISTVIEW: case AT_LLISTVIEW:
		return 3;
	case AT_LIST: case AT_LLIST: case AT_MAP:
		return 2;
	default:
		return 2;  /* validity and data (views: and the variadic ones) */
	}
}

static const char *unit_name(int u)
{
	static const char *const n[] = {"s", "ms", "us", "ns"};
	return u >= 0 && u < 4 ? n[u] : "?";
}

void arrow_type_text(colfs_buf *b, const arrow_field *fl)
{
	if (fl->dict) {
		colfs_buf_printf(b, "dictionary<values=");
		arrow_field v = *fl;
		v.dict = false;
		v.ext_name = NULL;
		arrow_type_text(b, &v);
		colfs_buf_printf(b, ", indices=%sint%d, id=%lld>",
				 fl->idx_signed ? "" : "u", fl->idx_bits,
				 (long long)fl->dict_id);
		return;
	}
	if (fl->ext_name)
		colfs_buf_printf(b, "extension<%s, ", fl->ext_name);
	switch (fl->type) {
	case AT_INT:
		colfs_buf_printf(b, "%sint%d", fl->is_signed ? "" : "u",
				 fl->bits);
		break;
	case AT_FLOAT:
		colfs_buf_puts(b, fl->bits == 0 ? "halffloat"
				  : fl->bits == 1 ? "float" : "double");
		break;
	case AT_DECIMAL:
		colfs_buf_printf(b, "decimal%d(%d, %d)", fl->bits,
				 fl->precision, fl->scale);
		break;
	case AT_DATE:
		colfs_buf_puts(b, fl->unit == 0 ? "date32[day]"
						: "date64[ms]");
		break;
	case AT_TIME:
		colfs_buf_printf(b, "time%d[%s]", fl->bits,
				 unit_name(fl->unit));
		break;
	case AT_TIMESTAMP:
		colfs_buf_printf(b, "timestamp[%s", unit_name(fl->unit));
		if (fl->tz)
			colfs_buf_printf(b, ", tz=%s", fl->tz);
		colfs_buf_putc(b, ']');
		break;
	case AT_DURATION:
		colfs_buf_printf(b, "duration[%s]", unit_name(fl->unit));
		break;
	case AT_INTERVAL:
		colfs_buf_puts(b, fl->unit == 0 ? "interval[year_month]"
				  : fl->unit == 1 ? "interval[day_time]"
						  : "interval[month_day_nano]");
		break;
	case AT_FSB:
		colfs_buf_printf(b, "fixed_size_binary[%d]", fl->width);
		break;
	case AT_FSL: case AT_LIST: case AT_LLIST: case AT_LISTVIEW:
	case AT_LLISTVIEW:
		colfs_buf_puts(b, fl->type == AT_FSL ? "fixed_size_list"
				  : fl->type == AT_LIST ? "list"
				  : fl->type == AT_LLIST ? "large_list"
				  : fl->type == AT_LISTVIEW ? "list_view"
							    : "large_list_view");
		colfs_buf_putc(b, '<');
		colfs_buf_puts(b, fl->children[0].name);
		colfs_buf_puts(b, ": ");
		arrow_type_text(b, &fl->children[0]);
		if (fl->type == AT_FSL)
			colfs_buf_printf(b, ">[%d]", fl->width);
		else
			colfs_buf_putc(b, '>');
		break;
	case AT_MAP:
		colfs_buf_puts(b, "map<");
		arrow_type_text(b, &fl->children[0].children[0]);
		colfs_buf_puts(b, ", ");
		arrow_type_text(b, &fl->children[0].children[1]);
		colfs_buf_puts(b, fl->keys_sorted ? ", keys_sorted>" : ">");
		break;
	case AT_STRUCT: case AT_UNION: case AT_REE:
		if (fl->type == AT_UNION)
			colfs_buf_printf(b, "%s_union<",
					 fl->union_mode ? "dense" : "sparse");
		else
			colfs_buf_puts(b, fl->type == AT_STRUCT
						  ? "struct<"
						  : "run_end_encoded<");
		for (uint32_t i = 0; i < fl->nchildren; i++) {
			if (i)
				colfs_buf_puts(b, ", ");
			colfs_buf_puts(b, fl->children[i].name);
			if (fl->type == AT_UNION)
				colfs_buf_printf(b, "=%d",
						 fl->type_ids
							 ? fl->type_ids[i]
							 : (int)i);
			colfs_buf_puts(b, ": ");
			arrow_type_text(b, &fl->children[i]);
		}
		colfs_buf_putc(b, '>');
		break;
	case AT_LBINARY:
		colfs_buf_puts(b, "large_binary");
		break;
	case AT_LUTF8:
		colfs_buf_puts(b, "large_utf8");
		break;
	case AT_BINVIEW:
		colfs_buf_puts(b, "binary_view");
		break;
	case AT_UTF8VIEW:
		colfs_buf_puts(b, "utf8_view");
		break;
	default:
		colfs_buf_puts(b, arrow_type_name(fl->type));
	}
	if (fl->ext_name)
		colfs_buf_putc(b, '>');
}

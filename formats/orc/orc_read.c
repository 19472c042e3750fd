/* colfs ORC: the streamed views rows.jsonl, rows.csv and columns/<field>,
 * and the printing of values (as orc-contents prints them, and as
 * docs/values.md says).  A view keeps its readers (orc_reader.c) between
 * pieces so that reading a file front to back decodes each stripe once. */
#include "orc_read.h"

#include "../core/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- printing: orc-contents ------------------------------------------------------ */

/* Append n bytes in place when they fit (a piece reserves its room up
 * front), else through colfs_buf_append, which grows the buffer. */
static inline void put(colfs_buf *b, const void *p, size_t n)
{
	if (b->data && n <= b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	} else {
		colfs_buf_append(b, p, n);
	}
}

static inline void put1(colfs_buf *b, char c)
{
	if (b->data && b->len < b->cap)
		b->data[b->len++] = c;
	else
		colfs_buf_putc(b, c);
}

#define PUTS(b, lit) put((b), (lit), sizeof(lit) - 1)

/* A 128-bit integer in decimal. */
void orc_read_put_i128(colfs_buf *b, i128 v)
{
	char tmp[48];
	size_t k = sizeof(tmp);
	bool neg = v < 0;
	unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v
				  : (unsigned __int128)v;

	tmp[--k] = '\0';
	do {
		tmp[--k] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (neg)
		tmp[--k] = '-';
	colfs_buf_puts(b, tmp + k);
}

/* A decimal with exactly `scale` fraction digits. */
static void put_decimal(colfs_buf *b, i128 v, int32_t scale)
{
	char digits[64];
	colfs_buf t = COLFS_BUF_INIT;
	bool neg = v < 0;
	size_t n;

	orc_read_put_i128(&t, neg ? -v : v);
	if (colfs_buf_status(&t) || !t.data) {
		colfs_buf_free(&t);
		b->failed = true;
		return;
	}
	n = t.len < sizeof(digits) - 1 ? t.len : sizeof(digits) - 1;
	memcpy(digits, t.data, n);
	digits[n] = '\0';
	colfs_buf_free(&t);
	if (neg)
		colfs_buf_putc(b, '-');
	if (scale <= 0) {
		colfs_buf_puts(b, digits);
		return;
	}
	if ((size_t)scale >= n) {
		colfs_buf_puts(b, "0.");
		for (size_t i = n; i < (size_t)scale; i++)
			colfs_buf_putc(b, '0');
		colfs_buf_puts(b, digits);
		return;
	}
	colfs_buf_append(b, digits, n - (size_t)scale);
	colfs_buf_putc(b, '.');
	colfs_buf_puts(b, digits + n - scale);
}

static void put_i64(colfs_buf *b, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v, t = u;
	size_t n = 1 + (v < 0);
	char *p;

	while (t >= 10) {
		t /= 10;
		n++;
	}
	if (!colfs_buf_reserve(b, n))
		return;
	/* the digits written in place, last first */
	p = b->data + b->len + n;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	b->len += n;
}

static void put_contents_string(colfs_buf *b, const uint8_t *p, size_t n)
{
	size_t run = 0;

	put1(b, '"');
	for (size_t i = 0; i < n; i++) {
		const char *esc;

		/* the characters orc-contents escapes are all below '#',
		 * but for the backslash */
		if (p[i] >= '#' && p[i] != '\\')
			continue;
		switch (p[i]) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default: continue;
		}
		put(b, p + run, i - run);
		put(b, esc, 2);
		run = i + 1;
	}
	put(b, p + run, n - run);
	put1(b, '"');
}

static char *put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

/* "YYYY-MM-DD" of day `days` into p (10 bytes); false for years outside
 * 1000..9999, which take strftime's path. */
static bool put_ymd(char *p, int64_t days)
{
	__int128 y;
	unsigned m, d;

	if (days < -354285 || days > 2932896)  /* 1000-01-01 .. 9999-12-31 */
		return false;
	colfs_civil_from_days(days, &y, &m, &d);
	if (y < 1000 || y > 9999)
		return false;
	p = put2(p, (unsigned)(y / 100));
	p = put2(p, (unsigned)(y % 100));
	*p++ = '-';
	p = put2(p, m);
	*p++ = '-';
	put2(p, d);
	return true;
}

static void put_timestamp_contents(colfs_buf *b, int64_t secs, int64_t nanos)
{
	struct tm tm;
	time_t t = (time_t)secs;
	char buf[64];
	int zeros = 0;

	if (nanos < 0) {
		t -= 1;
		nanos = -nanos;
	}
	{
		/* the common years written directly: "YYYY-MM-DD HH:MM:SS." */
		int64_t days = (int64_t)t / 86400, sod = (int64_t)t % 86400;
		char *p;

		if (sod < 0) {
			sod += 86400;
			days--;
		}
		if (colfs_buf_reserve(b, 32) &&
		    put_ymd(b->data + b->len + 1, days)) {
			p = b->data + b->len;
			*p = '"';
			p += 11;
			*p++ = ' ';
			p = put2(p, (unsigned)(sod / 3600));
			*p++ = ':';
			p = put2(p, (unsigned)(sod / 60 % 60));
			*p++ = ':';
			p = put2(p, (unsigned)(sod % 60));
			*p++ = '.';
			b->len = (size_t)(p - b->data);
			if (nanos == 0) {
				PUTS(b, "0\"");
				return;
			}
			while (nanos % 10 == 0) {
				nanos /= 10;
				zeros++;
			}
			/* 9 - zeros digits, zero-padded */
			if (colfs_buf_reserve(b, 12)) {
				p = b->data + b->len + (9 - zeros);
				for (int k = 0; k < 9 - zeros; k++) {
					*--p = (char)('0' + nanos % 10);
					nanos /= 10;
				}
				b->len += (size_t)(9 - zeros);
				put1(b, '"');
			}
			return;
		}
	}
	if (!gmtime_r(&t, &tm)) {
		colfs_buf_printf(b, "\"%lld\"", (long long)secs);
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	colfs_buf_printf(b, "\"%s.", buf);
	if (nanos == 0) {
		zeros = 8;
	} else {
		while (nanos % 10 == 0) {
			nanos /= 10;
			zeros++;
		}
	}
	colfs_buf_printf(b, "%0*lld\"", 9 - zeros, (long long)nanos);
}

static void put_date_contents(colfs_buf *b, int64_t days)
{
	struct tm tm;
	time_t t;
	char buf[64];

	if (days > ((int64_t)1 << 40) || days < -((int64_t)1 << 40)) {
		colfs_buf_printf(b, "\"%lld\"", (long long)days);
		return;
	}
	if (colfs_buf_reserve(b, 12) && put_ymd(b->data + b->len + 1, days)) {
		b->data[b->len] = '"';
		b->data[b->len + 11] = '"';
		b->len += 12;
		return;
	}
	t = (time_t)(days * 86400);
	if (!gmtime_r(&t, &tm)) {
		colfs_buf_printf(b, "\"%lld\"", (long long)days);
		return;
	}
	strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
	colfs_buf_printf(b, "\"%s\"", buf);
}

static void print_contents(colfs_buf *b, const orc_col *c, size_t row,
			   unsigned depth)
{
	const orc_vec *v = &c->v;

	if (!v->present[row] || depth > ORC_MAX_DEPTH) {
		PUTS(b, "null");
		return;
	}
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN:
		colfs_buf_puts(b, v->i[row] ? "true" : "false");
		break;
	case ORCPB__TYPE__KIND__BYTE:
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
		put_i64(b, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
		colfs_buf_printf(b, "%.7g", v->d[row]);
		break;
	case ORCPB__TYPE__KIND__DOUBLE:
		colfs_buf_printf(b, "%.14g", v->d[row]);
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
		put_contents_string(b, v->sp[row], (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY: {
		/* WKT as a JSON string (render.h); malformed WKB shows as
		 * its bytes, as binary */
		static const colfs_render js = {NULL, true};

		if (colfs_render_wkb(b, &js, v->sp[row], (size_t)v->sl[row],
				     NULL, NULL) == COLFS_OK)
			break;
	}
		/* fall through */
	case ORCPB__TYPE__KIND__BINARY:
		put1(b, '[');
		for (uint64_t k = 0; k < v->sl[row]; k++) {
			if (k)
				PUTS(b, ", ");
			put_i64(b, v->sp[row][k]);
		}
		put1(b, ']');
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		put_timestamp_contents(b, v->i[row], v->j[row]);
		break;
	case ORCPB__TYPE__KIND__DATE:
		put_date_contents(b, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__DECIMAL:
		put_decimal(b, v->dec[row], c->scale);
		break;
	case ORCPB__TYPE__KIND__STRUCT:
		put1(b, '{');
		for (size_t k = 0; k < c->n_kids; k++) {
			if (!c->kids[k]->selected)
				continue;
			put(b, c->keys[k], c->key_len[k]);
			print_contents(b, c->kids[k], row, depth + 1);
		}
		put1(b, '}');
		break;
	case ORCPB__TYPE__KIND__LIST:
		put1(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			if (k)
				PUTS(b, ", ");
			print_contents(b, c->kids[0], (size_t)(v->i[row] + k),
				       depth + 1);
		}
		put1(b, ']');
		break;
	case ORCPB__TYPE__KIND__MAP:
		put1(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			size_t e = (size_t)(v->i[row] + k);

			colfs_buf_puts(b, k ? ", {\"key\": " : "{\"key\": ");
			print_contents(b, c->kids[0], e, depth + 1);
			PUTS(b, ", \"value\": ");
			print_contents(b, c->kids[1], e, depth + 1);
			put1(b, '}');
		}
		put1(b, ']');
		break;
	case ORCPB__TYPE__KIND__UNION:
		colfs_buf_printf(b, "{\"tag\": %u, \"value\": ", v->tag[row]);
		print_contents(b, c->kids[v->tag[row]], (size_t)v->i[row],
			       depth + 1);
		put1(b, '}');
		break;
	default:
		PUTS(b, "null");
		break;
	}
}

/* --- printing: values.md ------------------------------------------------------ */

static void i128_be(i128 v, uint8_t out[16])
{
	unsigned __int128 u = (unsigned __int128)v;

	for (int i = 15; i >= 0; i--) {
		out[i] = (uint8_t)u;
		u >>= 8;
	}
}

static void print_value(colfs_buf *b, const colfs_render *rd,
			const orc_col *c, size_t row, unsigned depth)
{
	const orc_vec *v = &c->v;
	colfs_render js = *rd;

	js.json = true;
	if (!v->present[row] || depth > ORC_MAX_DEPTH) {
		colfs_render_null(b, rd);
		return;
	}
	switch (c->kind) {
	case ORCPB__TYPE__KIND__BOOLEAN:
		colfs_render_bool(b, rd, v->i[row] != 0);
		break;
	case ORCPB__TYPE__KIND__BYTE:
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
		colfs_render_i64(b, rd, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
		colfs_render_float(b, rd, (float)v->d[row]);
		break;
	case ORCPB__TYPE__KIND__DOUBLE:
		colfs_render_double(b, rd, v->d[row]);
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
		colfs_render_string(b, rd, v->sp[row], (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__BINARY:
		colfs_render_binary(b, rd, v->sp[row], (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__GEOMETRY:
	case ORCPB__TYPE__KIND__GEOGRAPHY:
		/* WKT (render.h); malformed WKB shows as its bytes */
		if (colfs_render_wkb(b, rd, v->sp[row], (size_t)v->sl[row],
				     NULL, NULL) != COLFS_OK)
			colfs_render_binary(b, rd, v->sp[row],
					    (size_t)v->sl[row]);
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
		colfs_render_timestamp_parts(b, rd, v->i[row],
					     (uint32_t)v->j[row], false);
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		colfs_render_timestamp_parts(b, rd, v->i[row],
					     (uint32_t)v->j[row], true);
		break;
	case ORCPB__TYPE__KIND__DATE:
		colfs_render_date(b, rd, v->i[row]);
		break;
	case ORCPB__TYPE__KIND__DECIMAL: {
		uint8_t be[16];

		i128_be(v->dec[row], be);
		colfs_render_decimal_be(b, rd, be, 16, c->scale);
		break;
	}
	case ORCPB__TYPE__KIND__STRUCT:
		colfs_buf_putc(b, '{');
		for (size_t k = 0; k < c->n_kids; k++) {
			put(b, c->jkeys[k], c->jkey_len[k]);
			print_value(b, &js, c->kids[k], row, depth + 1);
		}
		colfs_buf_putc(b, '}');
		break;
	case ORCPB__TYPE__KIND__LIST:
		colfs_buf_putc(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			if (k)
				colfs_buf_putc(b, ',');
			print_value(b, &js, c->kids[0],
				    (size_t)(v->i[row] + k), depth + 1);
		}
		colfs_buf_putc(b, ']');
		break;
	case ORCPB__TYPE__KIND__MAP:
		colfs_buf_putc(b, '[');
		for (int64_t k = 0; k < v->j[row]; k++) {
			size_t e = (size_t)(v->i[row] + k);

			colfs_buf_puts(b, k ? ",{\"key\":" : "{\"key\":");
			print_value(b, &js, c->kids[0], e, depth + 1);
			colfs_buf_puts(b, ",\"value\":");
			print_value(b, &js, c->kids[1], e, depth + 1);
			colfs_buf_putc(b, '}');
		}
		colfs_buf_putc(b, ']');
		break;
	case ORCPB__TYPE__KIND__UNION:
		colfs_buf_printf(b, "{\"tag\":%u,\"value\":", v->tag[row]);
		print_value(b, &js, c->kids[v->tag[row]], (size_t)v->i[row],
			    depth + 1);
		colfs_buf_putc(b, '}');
		break;
	default:
		colfs_render_null(b, rd);
		break;
	}
}

/* --- views ----------------------------------------------------------------------- */

void orc_read_view_free(orc_view *v)
{
	for (size_t i = 0; i < ORC_VIEW_READERS; i++) {
		orc_reader_free(v->pool[i]);
		v->pool[i] = NULL;
	}
	pthread_mutex_destroy(&v->lock);
}

/* Take the view's idle reader best placed for row `target` of `stripe`
 * (one already there, then one of that stripe, then any to reuse), or
 * NULL: the caller makes one. */
static orc_reader *view_take(orc_view *v, size_t stripe, uint64_t target)
{
	orc_reader *r = NULL, *spare = NULL;
	size_t best = ORC_VIEW_READERS, rank = 4;

	pthread_mutex_lock(&v->lock);
	for (size_t i = 0; i < ORC_VIEW_READERS; i++) {
		orc_reader *p = v->pool[i];
		size_t k;

		if (!p)
			continue;
		if (p->stripe != stripe)
			k = 3;
		else if (p->row == target)
			k = 0;
		else if (p->row < target)
			k = 1;
		else
			k = 2;
		if (k < rank) {
			rank = k;
			best = i;
		}
	}
	if (best < ORC_VIEW_READERS) {
		r = v->pool[best];
		v->pool[best] = NULL;
		if (rank == 3) {
			spare = r;
			r = NULL;
		}
	}
	pthread_mutex_unlock(&v->lock);
	orc_reader_free(spare);
	return r;
}

/* Give a reader back to the view's pool (freed when the pool is full). */
static void view_give(orc_view *v, orc_reader *r, uint64_t rows,
		      size_t bytes)
{
	pthread_mutex_lock(&v->lock);
	if (rows)
		v->row_bytes = bytes / rows + 1;
	for (size_t i = 0; r && i < ORC_VIEW_READERS; i++) {
		if (!v->pool[i]) {
			v->pool[i] = r;
			r = NULL;
		}
	}
	pthread_mutex_unlock(&v->lock);
	orc_reader_free(r);
}

static uint64_t view_row_bytes(orc_view *v)
{
	uint64_t b;

	pthread_mutex_lock(&v->lock);
	b = v->row_bytes;
	pthread_mutex_unlock(&v->lock);
	return b;
}

/* The stripe and the batch within it of global piece `index`. */
static bool piece_locate(const orc_file *f, const orc_view *v, uint64_t index,
			 size_t *stripe, uint64_t *batch)
{
	if (v->stripe >= 0) {
		uint64_t rows = f->footer->stripes[v->stripe]->numberofrows;
		uint64_t n = (rows + ORC_ROWS_PER_PIECE - 1) /
			     ORC_ROWS_PER_PIECE;

		if (index >= n)
			return false;
		*stripe = (size_t)v->stripe;
		*batch = index;
		return true;
	}
	if (index >= f->n_pieces)
		return false;
	{
		size_t lo = 0, hi = f->n_stripes;

		/* last stripe whose first piece is <= index and that has
		 * pieces */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (f->stripes[mid].piece_start <= index)
				lo = mid;
			else
				hi = mid;
		}
		while (lo + 1 < f->n_stripes &&
		       f->stripes[lo + 1].piece_start <= index)
			lo++;
		*stripe = lo;
		*batch = index - f->stripes[lo].piece_start;
	}
	return true;
}

/* rows.csv header: the top-level field names (one field `value` when the
 * root is not a struct, as columns/ names it). */
static colfs_status csv_header(const orc_file *f, colfs_buf *out)
{
	const Orcpb__Type *root = f->footer->types[0];

	if (root->kind != ORCPB__TYPE__KIND__STRUCT) {
		colfs_buf_puts(out, "value");
	} else {
		for (size_t k = 0; k < root->n_subtypes; k++) {
			const char *fn = root->fieldnames[k];

			if (k)
				colfs_buf_putc(out, ',');
			colfs_render_csv_field(out, fn, strlen(fn));
		}
	}
	colfs_buf_putc(out, '\n');
	return colfs_buf_status(out);
}

/* One rows.csv line without its newline: each top-level field rendered
 * in CSV mode (`rd`: strings as they are, nested values JSON), then
 * written as rows.csv writes a field (core/render.h; NULL is
 * `null_text`).  `tmp` is the reader's. */
static void print_csv_row(colfs_buf *out, colfs_buf *tmp,
			  const colfs_render *rd, const char *null_text,
			  const orc_col *root, size_t row)
{
	if (root->kind != ORCPB__TYPE__KIND__STRUCT) {
		tmp->len = 0;
		print_value(tmp, rd, root, row, 0);
		colfs_render_csv_value(out, tmp->data, tmp->len, null_text);
		return;
	}
	for (size_t k = 0; k < root->n_kids; k++) {
		const orc_col *c = root->kids[k];

		if (k)
			colfs_buf_putc(out, ',');
		tmp->len = 0;
		if (!root->v.present[row] || !c->v.present[row])
			colfs_render_null(tmp, rd);
		else
			print_value(tmp, rd, c, row, 0);
		colfs_render_csv_value(out, tmp->data, tmp->len, null_text);
	}
}

/* A reader of the view's columns at row `target` of `stripe`: one from
 * the pool moved there, else a new one. */
static colfs_status view_reader(orc_view *v, size_t stripe, uint64_t target,
				orc_reader **out, colfs_err *err)
{
	orc_file *f = v->file;
	uint32_t column = v->kind == ORC_VIEW_COLUMN ? v->column : 0;
	orc_reader *r = view_take(v, stripe, target);
	colfs_status st;

	if (r) {
		colfs_err ignored = {0};

		if (!orc_reader_seek(r, target, &ignored)) {
			*out = r;
			return COLFS_OK;
		}
		/* behind, or a row index that does not seek */
		orc_reader_free(r);
	}
	COLFS_TRY(orc_reader_create(f, stripe, column, &r, err));
	st = orc_reader_seek(r, target, err);
	if (st && r->ri_ok) {
		/* the row index led astray: decode from the stripe's start */
		orc_reader_free(r);
		COLFS_TRY(orc_reader_create(f, stripe, column, &r, err));
		r->ri_loaded = true;
		st = orc_reader_seek(r, target, err);
	}
	if (st) {
		orc_reader_free(r);
		return st;
	}
	*out = r;
	return COLFS_OK;
}

/* -o on_damage=null, rows.jsonl and rows.csv: rows [r0, r0 + rows) of
 * `stripe` failed to decode together, so each top-level field is read
 * on its own; a field that fails reads as NULL in those rows (filed
 * under the view with its name), the others keep their values, and
 * every row keeps its line.  A stripe whose footer is lost fails every
 * field: its rows are all NULL. */
static colfs_status rows_past_damage(colfs_tree *t, colfs_node *file,
				     size_t stripe, uint64_t r0, size_t rows,
				     colfs_buf *out)
{
	orc_view *v = colfs_node_ctx(file);
	orc_file *f = v->file;
	const Orcpb__Type *rt = f->footer->types[0];
	size_t nk = rt->kind == ORCPB__TYPE__KIND__STRUCT ? rt->n_subtypes : 0;
	orc_reader **rk = calloc(nk ? nk : 1, sizeof *rk);
	const orc_col **col = calloc(nk ? nk : 1, sizeof *col);
	colfs_render rd = {0};
	colfs_buf tmp = COLFS_BUF_INIT;
	colfs_status st = COLFS_OK;

	if (!rk || !col) {
		free(rk);
		free(col);
		return COLFS_ENOMEM;
	}
	rd.null_token = colfs_tree_options(t)->null_token;
	if (v->kind == ORC_VIEW_CSV)
		rd = colfs_render_csv_mode();
	for (size_t k = 0; k < nk; k++) {
		colfs_err e = {0};
		uint32_t id = rt->subtypes[k];
		colfs_status s2 = orc_reader_at(f, stripe, id, r0, &rk[k], &e);

		if (!s2 && (s2 = orc_reader_read(rk[k], rows, &e)) != COLFS_OK) {
			orc_reader_free(rk[k]);
			rk[k] = NULL;
		}
		if (s2 == COLFS_ENOMEM || s2 == COLFS_EIO) {
			st = s2;
			goto done;
		}
		if (s2) {
			colfs_tree_report(t, file, e.offset, s2,
					  "rows %llu to %llu of stripe %zu, "
					  "field %s: read as NULL: on_damage",
					  (unsigned long long)r0,
					  (unsigned long long)(r0 + rows - 1),
					  stripe, k < rt->n_fieldnames
					  ? rt->fieldnames[k] : "");
			continue;
		}
		col[k] = orc_reader_column(rk[k], id);
	}
	if (!nk)
		colfs_tree_report(t, file, COLFS_OFFSET_UNKNOWN, COLFS_ECORRUPT,
				  "rows %llu to %llu of stripe %zu read as "
				  "NULL: on_damage", (unsigned long long)r0,
				  (unsigned long long)(r0 + rows - 1), stripe);
	for (size_t i = 0; i < rows; i++) {
		if (v->kind == ORC_VIEW_ROWS)
			colfs_buf_putc(out, nk ? '{' : 'n');
		for (size_t k = 0; k < nk; k++) {
			const char *fn = k < rt->n_fieldnames
						 ? rt->fieldnames[k] : "";
			bool null = !col[k] || !rk[k]->root->v.present[i] ||
				    !col[k]->v.present[i];

			if (v->kind == ORC_VIEW_ROWS) {
				/* the keys of struct_keys */
				colfs_buf_puts(out, k ? ", \"" : "\"");
				colfs_buf_puts(out, fn);
				colfs_buf_puts(out, "\": ");
				if (null)
					colfs_buf_puts(out, "null");
				else
					print_contents(out, col[k], i, 1);
				continue;
			}
			if (k)
				colfs_buf_putc(out, ',');
			tmp.len = 0;
			if (null)
				colfs_render_null(&tmp, &rd);
			else
				print_value(&tmp, &rd, col[k], i, 0);
			colfs_render_csv_value(out, tmp.data, tmp.len,
					       colfs_tree_options(t)->csv_null);
		}
		if (v->kind == ORC_VIEW_ROWS)
			colfs_buf_puts(out, nk ? "}" : "ull");
		else if (!nk)
			colfs_buf_puts(out, colfs_tree_options(t)->csv_null);
		colfs_buf_putc(out, '\n');
	}
	st = colfs_buf_status(&tmp);
	if (!st)
		st = colfs_buf_status(out);
done:
	for (size_t k = 0; k < nk; k++)
		orc_reader_free(rk[k]);
	free(rk);
	free(col);
	colfs_buf_free(&tmp);
	return st;
}

/* GEOMETRY/GEOGRAPHY values of a piece (a top-level field, or those of
 * the root struct): the first malformed WKB of the column in the piece is
 * filed under the stripe (the value itself shows as its bytes,
 * docs/values.md), at the column's DATA stream (its dictionary's place
 * is not tracked: the stripe's start then), with the value's row in the
 * stripe and the byte of the value where the WKB goes wrong. */
static void check_wkb(colfs_tree *t, const orc_file *f, size_t stripe,
		      uint64_t r0, const orc_col *c, size_t rows)
{
	colfs_wkb_scan sc = {0};
	char path[64];

	if (!c)
		return;
	if (c->id == 0) {           /* the root: its fields, row by row */
		for (size_t k = 0; k < c->n_kids; k++)
			check_wkb(t, f, stripe, r0, c->kids[k], rows);
		return;
	}
	if (c->kind != ORCPB__TYPE__KIND__GEOMETRY &&
	    c->kind != ORCPB__TYPE__KIND__GEOGRAPHY)
		return;
	for (size_t i = 0; i < rows; i++)
		if (c->v.present[i])
			colfs_wkb_scan_value(&sc, i, c->v.sp[i],
					     (size_t)c->v.sl[i]);
	colfs_wkb_scan_done(&sc);
	if (!sc.bad)
		return;
	snprintf(path, sizeof path, "/stripes/%zu", stripe);
	colfs_tree_report_path(t, path,
			       c->dict ? f->footer->stripes[stripe]->offset
				       : c->data.start,
			       COLFS_ECORRUPT,
			       "column %u, row %llu of the stripe: malformed WKB (%s, byte %zu of the value)%s: shown as its bytes",
			       c->id, (unsigned long long)(r0 + sc.first), sc.why,
			       sc.at,
			       sc.bad > 1 ? " and more in the rows read with it"
					  : "");
}

colfs_status orc_read_view_piece(colfs_tree *t, colfs_node *file, uint64_t index,
			    colfs_buf *out)
{
	orc_view *v = colfs_node_ctx(file);
	orc_file *f = v->file;
	colfs_err err = {0};
	size_t stripe;
	uint64_t batch, rows, est;
	colfs_status st = COLFS_OK;
	const orc_col *target;
	orc_reader *r = NULL;
	colfs_render rd = {0};
	size_t start = out->len;

	if (v->kind == ORC_VIEW_CSV) {
		/* piece 0 is the header line, row pieces follow */
		if (index == 0)
			return csv_header(f, out);
		index--;
	}
	if (!piece_locate(f, v, index, &stripe, &batch))
		return COLFS_END;
	rows = f->footer->stripes[stripe]->numberofrows -
	       batch * ORC_ROWS_PER_PIECE;
	if (rows > ORC_ROWS_PER_PIECE)
		rows = ORC_ROWS_PER_PIECE;
	st = view_reader(v, stripe, batch * ORC_ROWS_PER_PIECE, &r, &err);
	if (!st)
		st = orc_reader_read(r, (size_t)rows, &err);
	if (st)
		goto fail;

	target = r->root;
	if (v->kind == ORC_VIEW_COLUMN && v->column != 0) {
		for (size_t k = 0; k < target->n_kids; k++)
			if (target->kids[k]->id == v->column) {
				target = target->kids[k];
				break;
			}
	}
	check_wkb(t, f, stripe, batch * ORC_ROWS_PER_PIECE, target,
		  (size_t)rows);
	/* room for the whole piece at once, from the last piece's bytes a
	 * row (no growing copy after copy) */
	est = view_row_bytes(v);
	if (est && rows && est < (64u << 20) / rows)
		colfs_buf_reserve(out, (size_t)(est * rows + est * rows / 8));
	rd.null_token = colfs_tree_options(t)->null_token;
	if (v->kind == ORC_VIEW_CSV)
		rd = colfs_render_csv_mode();
	for (size_t i = 0; i < rows; i++) {
		if (v->kind == ORC_VIEW_ROWS)
			print_contents(out, target, i, 0);
		else if (v->kind == ORC_VIEW_CSV)
			print_csv_row(out, &r->tmp, &rd,
				      colfs_tree_options(t)->csv_null, target,
				      i);
		else if (!target->v.present[i])
			colfs_render_null(out, &rd);
		else
			print_value(out, &rd, target, i, 0);
		colfs_buf_putc(out, '\n');
	}
	st = colfs_buf_status(&r->tmp);
	if (!st)
		st = colfs_buf_status(out);
	view_give(v, r, rows, out->len - start);
	return st;
fail:
	orc_reader_free(r);
	{
		/* filed under the stripe (and stream) that is broken */
		char path[256];
		orc_tail_part_path(f, stripe, &err, path, sizeof path);
		colfs_tree_report_err_path(t, path, &err);
		/* the piece's rows are hidden by that part (colfs-tool
		 * check), numbered in its stripe: what on_damage below
		 * replaces */
		if (st != COLFS_ENOMEM && st != COLFS_EIO)
			colfs_tree_note_hidden(t, path, err.offset,
					       batch * ORC_ROWS_PER_PIECE,
					       rows);
	}
	{
		/* -o on_damage: a column view's rows of the piece as NULL
		 * lines, or none; filed under the view */
		colfs_on_damage d = colfs_tree_options(t)->on_damage;
		if (v->kind != ORC_VIEW_COLUMN && st != COLFS_ENOMEM &&
		    st != COLFS_EIO && d == COLFS_ON_DAMAGE_NULL) {
			out->len = start;
			return rows_past_damage(t, file, stripe,
						batch * ORC_ROWS_PER_PIECE,
						(size_t)rows, out);
		}
		if (st != COLFS_ENOMEM && st != COLFS_EIO &&
		    d != COLFS_ON_DAMAGE_ERROR) {
			uint64_t r0 = batch * ORC_ROWS_PER_PIECE;
			colfs_tree_report(t, file, err.offset, st,
					  "rows %llu to %llu of stripe %zu %s: "
					  "on_damage", (unsigned long long)r0,
					  (unsigned long long)(r0 + rows - 1),
					  stripe, d == COLFS_ON_DAMAGE_NULL
					  ? "read as NULL" : "left out");
			out->len = start;
			rd.null_token = colfs_tree_options(t)->null_token;
			if (d == COLFS_ON_DAMAGE_NULL)
				for (uint64_t i = 0; i < rows; i++) {
					colfs_render_null(out, &rd);
					colfs_buf_putc(out, '\n');
				}
			return colfs_buf_status(out);
		}
	}
	return st;
}


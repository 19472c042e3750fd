/* colfs ORC: stripes/N/verify and verify, the statistics of an ORC file
 * checked against its decoded values (docs/orc-tree.md).
 *
 * stripes/N/verify decodes every column of stripe N, one row group
 * (rowIndexStride rows) at a time, and compares each ROW_INDEX entry's
 * ColumnStatistics with the values of its row group, then the stripe's
 * ColumnStatistics from the file Metadata with the whole stripe.  The
 * per-stripe totals are kept in the file (orc_file.verify) so that the
 * top-level `verify`, which compares the Footer's statistics with the
 * merge of all stripes, decodes only the stripes not verified yet.
 *
 * Values are counted as ORC's writers count them: a column's
 * numberOfValues is its non-null values among the slots its parent gives
 * it (a child of a null struct has no slot; the children of lists and maps
 * have one per element, a union's variant one per row of its tag).
 * Statistics that ORC's own readers ignore for the file's writer version
 * are "not checked", with the reason, rather than mismatches. */
#include "orc_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Problems reported per stripe (and for the file) before the rest are
 * only counted. */
#define OV_MAX_REPORTS 32

/* Writer versions (PostScript.writerVersion). */
#define OV_HIVE_8732 1
#define OV_ORC_135 6

typedef struct ov_bytes {
	uint8_t *p;
	size_t len;
} ov_bytes;

/* What the values of one column in one range of rows hold. */
typedef struct ov_acc {
	uint64_t count;          /* non-null values */
	bool has_null;
	bool parent_null;        /* a slot under a null struct */
	bool set;                /* lo/hi hold a value */
	i128 lo, hi;             /* ints, dates, decimals; timestamps: millis */
	int32_t nlo, nhi;        /* timestamps: nanoseconds below the ms */
	i128 sum;                /* ints, decimals; true count; bytes */
	bool sum_over;
	double dlo, dhi, dsum, dabs;
	bool dset, nan;
	ov_bytes slo, shi;
	uint64_t clo, chi, ctotal;
	bool cset;
} ov_acc;

/* A stripe's verification, kept in the file once done. */
struct orc_verify_stripe {
	bool done;
	colfs_status st;         /* decoding failed: no totals */
	ov_acc *acc;             /* one per type id */
	char *doc;
	size_t doc_len;
	unsigned problems;
};

/* notes: each printed once per document */
enum {
	NOTE_STRING_OLD = 1u << 0,
	NOTE_TS_OLD = 1u << 1,
	NOTE_NAN = 1u << 2,
	NOTE_TS_LEGACY = 1u << 3,
	NOTE_DEC_OVER = 1u << 4,
	NOTE_ENCRYPTED = 1u << 5,
	NOTE_NO_META = 1u << 6,
	NOTE_DEC_HIVE11 = 1u << 7,
};

typedef struct ov {
	colfs_tree *t;
	orc_file *f;
	const colfs_node *where;
	colfs_buf *out;
	unsigned problems;
	unsigned notes;
	bool *encrypted;         /* per type id */
} ov;

/* --- accumulating ------------------------------------------------------ */

static void acc_free(ov_acc *a)
{
	free(a->slo.p);
	free(a->shi.p);
	memset(a, 0, sizeof(*a));
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b,
		     size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c || (an == 0 && bn == 0))
		return c;
	return an < bn ? -1 : an > bn;
}

static bool bytes_set(ov_bytes *d, const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);

	if (!q)
		return false;
	if (n)
		memcpy(q, p, n);
	free(d->p);
	d->p = q;
	d->len = n;
	return true;
}

static void add_sum(ov_acc *a, i128 x)
{
	if (__builtin_add_overflow(a->sum, x, &a->sum))
		a->sum_over = true;
}

static void acc_int(ov_acc *a, i128 x)
{
	if (!a->set || x < a->lo)
		a->lo = x;
	if (!a->set || x > a->hi)
		a->hi = x;
	a->set = true;
}

static void acc_ts(ov_acc *a, int64_t secs, int64_t nanos)
{
	i128 ms = (i128)secs * 1000 + nanos / 1000000;
	int32_t sub = (int32_t)(nanos % 1000000);

	if (!a->set || ms < a->lo || (ms == a->lo && sub < a->nlo)) {
		a->lo = ms;
		a->nlo = sub;
	}
	if (!a->set || ms > a->hi || (ms == a->hi && sub > a->nhi)) {
		a->hi = ms;
		a->nhi = sub;
	}
	a->set = true;
}

static void acc_double(ov_acc *a, double x)
{
	if (isnan(x)) {
		a->nan = true;
		return;
	}
	if (!a->dset || x < a->dlo)
		a->dlo = x;
	if (!a->dset || x > a->dhi)
		a->dhi = x;
	a->dset = true;
	a->dsum += x;
	a->dabs += fabs(x);
}

static bool acc_string(ov_acc *a, const uint8_t *p, size_t n)
{
	add_sum(a, (i128)n);
	if (!a->set) {
		a->set = true;
		return bytes_set(&a->slo, p, n) && bytes_set(&a->shi, p, n);
	}
	if (bytes_cmp(p, n, a->slo.p, a->slo.len) < 0 &&
	    !bytes_set(&a->slo, p, n))
		return false;
	if (bytes_cmp(p, n, a->shi.p, a->shi.len) > 0 &&
	    !bytes_set(&a->shi, p, n))
		return false;
	return true;
}

/* Merge `b` into `a` (the totals of a stripe, of the file). */
static bool acc_merge(ov_acc *a, const ov_acc *b, uint32_t kind)
{
	a->count += b->count;
	a->has_null |= b->has_null;
	a->parent_null |= b->parent_null;
	a->sum_over |= b->sum_over;
	add_sum(a, b->sum);
	a->nan |= b->nan;
	if (b->dset) {
		if (!a->dset || b->dlo < a->dlo)
			a->dlo = b->dlo;
		if (!a->dset || b->dhi > a->dhi)
			a->dhi = b->dhi;
		a->dset = true;
		a->dsum += b->dsum;
		a->dabs += b->dabs;
	}
	if (b->cset) {
		if (!a->cset || b->clo < a->clo)
			a->clo = b->clo;
		if (!a->cset || b->chi > a->chi)
			a->chi = b->chi;
		a->cset = true;
	}
	a->ctotal += b->ctotal;
	if (!b->set)
		return true;
	switch (kind) {
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
		if (!a->set || bytes_cmp(b->slo.p, b->slo.len, a->slo.p,
					 a->slo.len) < 0)
			if (!bytes_set(&a->slo, b->slo.p, b->slo.len))
				return false;
		if (!a->set || bytes_cmp(b->shi.p, b->shi.len, a->shi.p,
					 a->shi.len) > 0)
			if (!bytes_set(&a->shi, b->shi.p, b->shi.len))
				return false;
		break;
	default:
		if (!a->set || b->lo < a->lo || (b->lo == a->lo &&
						 b->nlo < a->nlo)) {
			a->lo = b->lo;
			a->nlo = b->nlo;
		}
		if (!a->set || b->hi > a->hi || (b->hi == a->hi &&
						 b->nhi > a->nhi)) {
			a->hi = b->hi;
			a->nhi = b->nhi;
		}
		break;
	}
	a->set = true;
	return true;
}

/* Add the slots of column `c` (n of them; `domain` NULL or which slots
 * exist) and of its subtree to `acc` (indexed by type id). */
static colfs_status acc_column(const orc_col *c, size_t n,
			       const uint8_t *domain, ov_acc *acc,
			       unsigned depth)
{
	const orc_vec *v = &c->v;
	ov_acc *a = &acc[c->id];
	uint64_t total = 0;

	if (!c->selected || depth > ORC_MAX_DEPTH)
		return COLFS_OK;
	for (size_t i = 0; i < n; i++) {
		if (domain && !domain[i]) {
			a->parent_null = true;
			continue;
		}
		if (!v->present[i]) {
			a->has_null = true;
			continue;
		}
		a->count++;
		switch (c->kind) {
		case ORCPB__TYPE__KIND__BOOLEAN:
			add_sum(a, v->i[i] != 0);
			break;
		case ORCPB__TYPE__KIND__BYTE:
		case ORCPB__TYPE__KIND__SHORT:
		case ORCPB__TYPE__KIND__INT:
		case ORCPB__TYPE__KIND__LONG:
			add_sum(a, v->i[i]);
			acc_int(a, v->i[i]);
			break;
		case ORCPB__TYPE__KIND__DATE:
			acc_int(a, v->i[i]);
			break;
		case ORCPB__TYPE__KIND__FLOAT:
		case ORCPB__TYPE__KIND__DOUBLE:
			acc_double(a, v->d[i]);
			break;
		case ORCPB__TYPE__KIND__STRING:
		case ORCPB__TYPE__KIND__VARCHAR:
		case ORCPB__TYPE__KIND__CHAR:
			if (!acc_string(a, v->sp[i], (size_t)v->sl[i]))
				return COLFS_ENOMEM;
			break;
		case ORCPB__TYPE__KIND__BINARY:
			add_sum(a, (i128)v->sl[i]);
			break;
		case ORCPB__TYPE__KIND__TIMESTAMP:
		case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
			acc_ts(a, v->i[i], v->j[i]);
			break;
		case ORCPB__TYPE__KIND__DECIMAL:
			add_sum(a, v->dec[i]);
			acc_int(a, v->dec[i]);
			break;
		case ORCPB__TYPE__KIND__LIST:
		case ORCPB__TYPE__KIND__MAP: {
			uint64_t k = (uint64_t)v->j[i];

			if (!a->cset || k < a->clo)
				a->clo = k;
			if (!a->cset || k > a->chi)
				a->chi = k;
			a->cset = true;
			a->ctotal += k;
			break;
		}
		default:
			break;
		}
	}
	switch (c->kind) {
	case ORCPB__TYPE__KIND__STRUCT:
		for (size_t k = 0; k < c->n_kids; k++)
			COLFS_TRY(acc_column(c->kids[k], n, v->present, acc,
					     depth + 1));
		break;
	case ORCPB__TYPE__KIND__LIST:
	case ORCPB__TYPE__KIND__MAP:
		/* the reader lays the elements of the batch out in row order */
		for (size_t i = 0; i < n; i++)
			if (v->present[i])
				total += (uint64_t)v->j[i];
		for (size_t k = 0; k < c->n_kids; k++)
			COLFS_TRY(acc_column(c->kids[k], (size_t)total, NULL,
					     acc, depth + 1));
		break;
	case ORCPB__TYPE__KIND__UNION:
		for (size_t k = 0; k < c->n_kids; k++) {
			size_t m = 0;

			for (size_t i = 0; i < n; i++)
				m += v->present[i] && v->tag[i] == k;
			COLFS_TRY(acc_column(c->kids[k], m, NULL, acc,
					     depth + 1));
		}
		break;
	default:
		break;
	}
	return COLFS_OK;
}

/* --- reporting --------------------------------------------------------- */

static const colfs_verify_style ov_style = {
	"statistics disagree with the data", OV_MAX_REPORTS, false};

/* A mismatch: a MISMATCH: line and a problem (core/verify.h). */
#define ov_problem(v, off, ...) \
	colfs_verify_mismatch((v)->t, (v)->where, (v)->out, &ov_style, \
			      &(v)->problems, (off), __VA_ARGS__)

/* A value for a message: printable bytes as they are (cut at 64), others
 * as \xHH. */
static void put_text(colfs_buf *b, const uint8_t *p, size_t n)
{
	colfs_buf_putc(b, '"');
	for (size_t i = 0; i < n && i < 64; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			colfs_buf_putc(b, (char)p[i]);
		else
			colfs_buf_printf(b, "\\x%02x", p[i]);
	}
	colfs_buf_puts(b, n > 64 ? "...\"" : "\"");
}

/* "stripe 3, column 2 (int), row group 1" into b (NUL-terminated). */
static void what_text(char *b, size_t len, long stripe, uint32_t col,
		      uint32_t kind, long group)
{
	int k = 0;

	if (stripe >= 0)
		k = snprintf(b, len, "stripe %ld, ", stripe);
	if (k < 0 || (size_t)k >= len)
		return;
	k += snprintf(b + k, len - (size_t)k, "column %u (%s)", col,
		      orc_tail_type_kind_name(kind));
	if (group >= 0 && k > 0 && (size_t)k < len)
		snprintf(b + k, len - (size_t)k, ", row group %ld", group);
}

/* --- comparing --------------------------------------------------------- */

/* A decimal string ("-12.340", "1E+3") as unscaled value and scale. */
static bool dec_parse(const char *s, i128 *val, int32_t *scale)
{
	bool neg = false, digits = false, dot = false;
	i128 v = 0;
	int32_t sc = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *s - '0', &v))
			return false;
		digits = true;
		sc += dot;
	}
	if (*s == 'e' || *s == 'E') {
		char *end;
		long e = strtol(s + 1, &end, 10);

		if (*end || e > 76 || e < -76)
			return false;
		sc -= (int32_t)e;
	} else if (*s) {
		return false;
	}
	if (!digits)
		return false;
	while (sc < 0) {
		if (__builtin_mul_overflow(v, 10, &v))
			return false;
		sc++;
	}
	*val = neg ? -v : v;
	*scale = sc;
	return true;
}

/* Compare a decimal string with x at scale `scale`: -1, 0, 1 or 2 when it
 * cannot be compared (does not parse, does not fit 128 bits).  With
 * `trunc` the string is first cut to `scale` digits, as the reader cuts
 * Hive 0.11 decimals (no fixed scale). */
static int dec_cmp(const char *s, i128 x, int32_t scale, bool trunc)
{
	i128 y;
	int32_t sy;

	if (!dec_parse(s, &y, &sy))
		return 2;
	while (trunc && sy > scale) {
		y /= 10;
		sy--;
	}
	while (sy < scale) {
		if (__builtin_mul_overflow(y, 10, &y))
			return 2;
		sy++;
	}
	while (scale < sy) {
		if (__builtin_mul_overflow(x, 10, &x))
			return 2;
		scale++;
	}
	return y < x ? -1 : y > x;
}

static void put_dec(colfs_buf *b, i128 x, int32_t scale)
{
	colfs_buf t = COLFS_BUF_INIT;
	size_t n;

	if (x < 0) {
		colfs_buf_putc(b, '-');
		x = -x;
	}
	orc_read_put_i128(&t, x);
	if (colfs_buf_status(&t) || !t.data) {
		colfs_buf_free(&t);
		return;
	}
	n = t.len;
	if (scale <= 0) {
		colfs_buf_append(b, t.data, n);
	} else if ((size_t)scale >= n) {
		colfs_buf_puts(b, "0.");
		for (size_t i = n; i < (size_t)scale; i++)
			colfs_buf_putc(b, '0');
		colfs_buf_append(b, t.data, n);
	} else {
		colfs_buf_append(b, t.data, n - (size_t)scale);
		colfs_buf_putc(b, '.');
		colfs_buf_append(b, t.data + n - (size_t)scale,
				 (size_t)scale);
	}
	colfs_buf_free(&t);
}

/* One statistic being checked: where it is and what it is of. */
typedef struct ov_site {
	ov *v;
	const char *w;           /* "stripe N, column C (KIND), row group G" */
	uint64_t off;
	const ov_acc *a;
} ov_site;

/* "CLAIM, the data's is GOT" for two byte strings. */
static void bytes_problem(const ov_site *x, const char *field,
			  const char *relation, const char *claim,
			  const ov_bytes *got, bool have)
{
	colfs_buf b = COLFS_BUF_INIT;

	put_text(&b, (const uint8_t *)claim, strlen(claim));
	colfs_buf_puts(&b, relation);
	put_text(&b, got->p, have ? got->len : 0);
	colfs_buf_putc(&b, '\0');
	ov_problem(x->v, x->off, "%s: %s %s", x->w, field,
		   colfs_buf_status(&b) ? "?" : b.data);
	colfs_buf_free(&b);
}

static int bytes_cmp_str(const char *s, const ov_bytes *b)
{
	return bytes_cmp((const uint8_t *)s, strlen(s), b->p, b->len);
}

static void check_int(const ov_site *x, const Orcpb__IntegerStatistics *s)
{
	const ov_acc *a = x->a;
	colfs_buf b = COLFS_BUF_INIT;

	if (s->has_minimum && (!a->set || s->minimum != a->lo))
		ov_problem(x->v, x->off, "%s: minimum %lld, the data's is %s%lld",
			   x->w, (long long)s->minimum,
			   a->set ? "" : "(no values) ", (long long)a->lo);
	if (s->has_maximum && (!a->set || s->maximum != a->hi))
		ov_problem(x->v, x->off, "%s: maximum %lld, the data's is %s%lld",
			   x->w, (long long)s->maximum,
			   a->set ? "" : "(no values) ", (long long)a->hi);
	/* a writer whose running sum overflows leaves it out */
	if (s->has_sum && (a->sum_over || a->sum != s->sum)) {
		orc_read_put_i128(&b, a->sum);
		colfs_buf_putc(&b, '\0');
		ov_problem(x->v, x->off, "%s: sum %lld, the data's is %s", x->w,
			   (long long)s->sum,
			   colfs_buf_status(&b) ? "?" : b.data);
	}
	colfs_buf_free(&b);
}

static void check_double(const ov_site *x, const Orcpb__DoubleStatistics *s)
{
	const ov_acc *a = x->a;

	if (a->nan) {
		/* NaN ends ORC's comparisons: what the writer kept depends on
		 * where the NaN came */
		x->v->notes |= NOTE_NAN;
		return;
	}
	if (s->has_minimum && (!a->dset || s->minimum != a->dlo))
		ov_problem(x->v, x->off, "%s: minimum %.17g, the data's is %.17g",
			   x->w, s->minimum, a->dlo);
	if (s->has_maximum && (!a->dset || s->maximum != a->dhi))
		ov_problem(x->v, x->off, "%s: maximum %.17g, the data's is %.17g",
			   x->w, s->maximum, a->dhi);
	/* (+inf and -inf add up to NaN) */
	if (s->has_sum &&
	    !(fabs(s->sum - a->dsum) <= 1e-9 * a->dabs + 1e-300) &&
	    !(isinf(s->sum) && s->sum == a->dsum) &&
	    !(isnan(s->sum) && isnan(a->dsum)))
		ov_problem(x->v, x->off, "%s: sum %.17g, the data's is %.17g",
			   x->w, s->sum, a->dsum);
}

static void check_string(const ov_site *x, const Orcpb__StringStatistics *s)
{
	const ov_acc *a = x->a;

	if (s->has_sum && (a->sum_over || a->sum != s->sum))
		ov_problem(x->v, x->off, "%s: sum %lld, the data has %lld bytes",
			   x->w, (long long)s->sum, (long long)a->sum);
	if (x->v->f->ps->writerversion < OV_HIVE_8732) {
		x->v->notes |= NOTE_STRING_OLD;
		return;
	}
	if (s->minimum && (!a->set || bytes_cmp_str(s->minimum, &a->slo)))
		bytes_problem(x, "minimum", ", the data's is ", s->minimum,
			      &a->slo, a->set);
	if (s->maximum && (!a->set || bytes_cmp_str(s->maximum, &a->shi)))
		bytes_problem(x, "maximum", ", the data's is ", s->maximum,
			      &a->shi, a->set);
	/* ORC-203: values too long for the statistics are cut to bounds */
	if (s->lowerbound && a->set && bytes_cmp_str(s->lowerbound, &a->slo) > 0)
		bytes_problem(x, "lowerBound", " is above the data's minimum ",
			      s->lowerbound, &a->slo, true);
	if (s->upperbound && a->set && bytes_cmp_str(s->upperbound, &a->shi) < 0)
		bytes_problem(x, "upperBound", " is below the data's maximum ",
			      s->upperbound, &a->shi, true);
}

static void check_timestamp(const ov_site *x,
			    const Orcpb__TimestampStatistics *s)
{
	const ov_acc *a = x->a;

	if (x->v->f->ps->writerversion < OV_ORC_135) {
		x->v->notes |= NOTE_TS_OLD;
		return;
	}
	if (!s->has_minimumutc && !s->has_maximumutc) {
		if (s->has_minimum || s->has_maximum)
			x->v->notes |= NOTE_TS_LEGACY;
		return;
	}
	/* minimumUtc/maximumUtc: milliseconds of the wall-clock time read
	 * as UTC; the nanos fields, when present, hold the nanoseconds below
	 * the millisecond plus one */
	if (s->has_minimumutc &&
	    (!a->set || s->minimumutc != a->lo ||
	     (s->has_minimumnanos && s->minimumnanos - 1 != a->nlo)))
		ov_problem(x->v, x->off,
			   "%s: minimumUtc %lld ms + %d ns, the data's is %lld ms + %d ns",
			   x->w, (long long)s->minimumutc,
			   s->has_minimumnanos ? s->minimumnanos - 1 : 0,
			   (long long)a->lo, a->nlo);
	if (s->has_maximumutc &&
	    (!a->set || s->maximumutc != a->hi ||
	     (s->has_maximumnanos && s->maximumnanos - 1 != a->nhi)))
		ov_problem(x->v, x->off,
			   "%s: maximumUtc %lld ms + %d ns, the data's is %lld ms + %d ns",
			   x->w, (long long)s->maximumutc,
			   s->has_maximumnanos ? s->maximumnanos - 1 : 999999,
			   (long long)a->hi, a->nhi);
}

static void dec_problem(const ov_site *x, const char *field,
			const char *claim, i128 got, int32_t scale)
{
	colfs_buf b = COLFS_BUF_INIT;

	put_dec(&b, got, scale);
	colfs_buf_putc(&b, '\0');
	ov_problem(x->v, x->off, "%s: %s %s, the data's is %s", x->w, field,
		   claim, colfs_buf_status(&b) ? "?" : b.data);
	colfs_buf_free(&b);
}

static void check_decimal(const ov_site *x, const Orcpb__DecimalStatistics *s,
			  const Orcpb__Type *ty)
{
	const ov_acc *a = x->a;
	/* Hive 0.11 decimals have no fixed scale: the reader cuts them */
	bool hive11 = ty->precision == 0;
	int32_t sc = hive11 ? ORC_HIVE11_SCALE : (int32_t)ty->scale;
	int r;

	if (s->minimum && (!a->set ||
			   ((r = dec_cmp(s->minimum, a->lo, sc, hive11)) != 0 &&
			    r != 2)))
		dec_problem(x, "minimum", s->minimum, a->lo, sc);
	if (s->maximum && (!a->set ||
			   ((r = dec_cmp(s->maximum, a->hi, sc, hive11)) != 0 &&
			    r != 2)))
		dec_problem(x, "maximum", s->maximum, a->hi, sc);
	if (!s->sum)
		return;
	if (hive11) {
		x->v->notes |= NOTE_DEC_HIVE11;
		return;
	}
	r = a->sum_over ? 2 : dec_cmp(s->sum, a->sum, sc, false);
	if (r == 2)
		x->v->notes |= NOTE_DEC_OVER;
	else if (r != 0)
		dec_problem(x, "sum", s->sum, a->sum, sc);
}

static void check_collection(const ov_site *x,
			     const Orcpb__CollectionStatistics *s)
{
	const ov_acc *a = x->a;

	if (s->has_minchildren && (!a->cset || s->minchildren != a->clo))
		ov_problem(x->v, x->off, "%s: minChildren %llu, the data's is %llu",
			   x->w, (unsigned long long)s->minchildren,
			   (unsigned long long)a->clo);
	if (s->has_maxchildren && (!a->cset || s->maxchildren != a->chi))
		ov_problem(x->v, x->off, "%s: maxChildren %llu, the data's is %llu",
			   x->w, (unsigned long long)s->maxchildren,
			   (unsigned long long)a->chi);
	if (s->has_totalchildren && s->totalchildren != a->ctotal)
		ov_problem(x->v, x->off, "%s: totalChildren %llu, the data has %llu",
			   x->w, (unsigned long long)s->totalchildren,
			   (unsigned long long)a->ctotal);
}

/* Check one ColumnStatistics against the values `a` of column `col`
 * (stripe and group -1 when not one). */
static void check_stats(ov *v, const Orcpb__ColumnStatistics *cs,
			const ov_acc *a, uint32_t col, long stripe, long group,
			uint64_t off)
{
	const Orcpb__Type *ty = v->f->footer->types[col];
	char w[128];
	const ov_site x = {.v = v, .w = w, .off = off, .a = a};

	if (!cs)
		return;
	what_text(w, sizeof(w), stripe, col, ty->kind, group);
	if (cs->has_numberofvalues && cs->numberofvalues != a->count)
		ov_problem(v, off, "%s: numberOfValues %llu, the data has %llu",
			   w, (unsigned long long)cs->numberofvalues,
			   (unsigned long long)a->count);
	/* ORC C++ counts the slots of a null struct's children as nulls */
	if (cs->has_hasnull && cs->hasnull != a->has_null &&
	    !(cs->hasnull && a->parent_null))
		ov_problem(v, off, "%s: hasNull %s, the data has %s", w,
			   cs->hasnull ? "true" : "false",
			   a->has_null ? "nulls" : "no nulls");
	switch (ty->kind) {
	case ORCPB__TYPE__KIND__BYTE:
	case ORCPB__TYPE__KIND__SHORT:
	case ORCPB__TYPE__KIND__INT:
	case ORCPB__TYPE__KIND__LONG:
		if (cs->intstatistics)
			check_int(&x, cs->intstatistics);
		break;
	case ORCPB__TYPE__KIND__FLOAT:
	case ORCPB__TYPE__KIND__DOUBLE:
		if (cs->doublestatistics)
			check_double(&x, cs->doublestatistics);
		break;
	case ORCPB__TYPE__KIND__STRING:
	case ORCPB__TYPE__KIND__VARCHAR:
	case ORCPB__TYPE__KIND__CHAR:
		if (cs->stringstatistics)
			check_string(&x, cs->stringstatistics);
		break;
	case ORCPB__TYPE__KIND__BINARY:
		if (cs->binarystatistics && cs->binarystatistics->has_sum &&
		    (a->sum_over || a->sum != cs->binarystatistics->sum))
			ov_problem(v, off, "%s: sum %lld, the data has %lld bytes",
				   w, (long long)cs->binarystatistics->sum,
				   (long long)a->sum);
		break;
	case ORCPB__TYPE__KIND__BOOLEAN:
		if (cs->bucketstatistics &&
		    cs->bucketstatistics->n_count >= 1 &&
		    (i128)cs->bucketstatistics->count[0] != a->sum)
			ov_problem(v, off, "%s: true count %llu, the data has %lld",
				   w,
				   (unsigned long long)cs->bucketstatistics->count[0],
				   (long long)a->sum);
		break;
	case ORCPB__TYPE__KIND__DATE:
		if (!cs->datestatistics)
			break;
		if (cs->datestatistics->has_minimum &&
		    (!a->set || cs->datestatistics->minimum != a->lo))
			ov_problem(v, off, "%s: minimum %d, the data's is %lld",
				   w, cs->datestatistics->minimum,
				   (long long)a->lo);
		if (cs->datestatistics->has_maximum &&
		    (!a->set || cs->datestatistics->maximum != a->hi))
			ov_problem(v, off, "%s: maximum %d, the data's is %lld",
				   w, cs->datestatistics->maximum,
				   (long long)a->hi);
		break;
	case ORCPB__TYPE__KIND__TIMESTAMP:
	case ORCPB__TYPE__KIND__TIMESTAMP_INSTANT:
		if (cs->timestampstatistics)
			check_timestamp(&x, cs->timestampstatistics);
		break;
	case ORCPB__TYPE__KIND__DECIMAL:
		if (cs->decimalstatistics)
			check_decimal(&x, cs->decimalstatistics, ty);
		break;
	case ORCPB__TYPE__KIND__LIST:
	case ORCPB__TYPE__KIND__MAP:
		if (cs->collectionstatistics)
			check_collection(&x, cs->collectionstatistics);
		break;
	default:
		break;
	}
}

static void put_notes(ov *v)
{
	static const char *const text[] = {
		"not checked: string minimum/maximum of writer version "
		"original are unreliable (HIVE-8732; ORC's readers ignore "
		"them)",
		"not checked: timestamp statistics of writer versions before "
		"ORC-135 are in the writer's local time (ORC's readers ignore "
		"them)",
		"not checked: double minimum/maximum/sum of values that "
		"include NaN",
		"not checked: timestamp minimum/maximum without minimumUtc/"
		"maximumUtc (writer-local time)",
		"not checked: a decimal sum beyond 128 bits",
		"not checked: encrypted columns (their statistics and row "
		"indexes are encrypted)",
		"not checked: the stripe statistics (the file has no "
		"readable Metadata)",
		"not checked: the sum of Hive 0.11 decimals (no fixed scale: "
		"values are read at scale 6, minimum/maximum compared at that "
		"scale)",
	};

	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		if (v->notes & (1u << i))
			colfs_buf_printf(v->out, "%s\n", text[i]);
}

/* Which type ids are under an encryption variant's root. */
static bool *encrypted_columns(const orc_file *f)
{
	bool *e = calloc(f->n_types ? f->n_types : 1, sizeof(*e));
	const Orcpb__Encryption *en = f->footer->encryption;

	if (!e || !en)
		return e;
	for (size_t t = 0; t < f->n_types; t++) {
		uint32_t p = (uint32_t)t;

		for (unsigned d = 0; d <= ORC_MAX_DEPTH; d++) {
			for (size_t i = 0; i < en->n_variants; i++)
				if (en->variants[i]->root == p)
					e[t] = true;
			if (p == 0 || e[t])
				break;
			p = f->parent[p];
		}
	}
	return e;
}

/* --- a stripe ---------------------------------------------------------- */

typedef struct ov_index {
	colfs_proto_msg m;               /* Orcpb__RowIndex, or no message */
	uint64_t off;
} ov_index;

static void stripe_free(struct orc_verify_stripe *vs, size_t n_types)
{
	if (!vs)
		return;
	for (size_t i = 0; vs->acc && i < n_types; i++)
		acc_free(&vs->acc[i]);
	free(vs->acc);
	free(vs->doc);
	memset(vs, 0, sizeof(*vs));
}

static colfs_status load_indexes(ov *v, const orc_stripe *sp, ov_index *ix)
{
	orc_file *f = v->f;

	for (size_t i = 0; i < sp->n_streams; i++) {
		const orc_stream_loc *l = &sp->streams[i];
		colfs_err err = {0};
		uint8_t *data;
		size_t len;
		colfs_status st;

		if (l->kind != ORCPB__STREAM__KIND__ROW_INDEX ||
		    l->column >= f->n_types || ix[l->column].m.msg)
			continue;
		if (!l->in_file) {
			ov_problem(v, l->offset, "column %u: the row index runs past its stripe",
				   l->column);
			continue;
		}
		st = orc_in_read_decompressed(f, l->offset, l->length, &data,
					   &len, &err);
		if (!st) {
			size_t cap = (uint64_t)len * 64 + (1u << 20) <
						     f->max_alloc
					     ? (size_t)len * 64 + (1u << 20)
					     : (size_t)f->max_alloc;

			st = colfs_proto_unpack(&ix[l->column].m,
					    &orcpb__row_index__descriptor,
					    data, len, cap, l->offset, &err);
			free(data);
		}
		if (st == COLFS_ENOMEM)
			return st;
		if (st) {
			colfs_tree_report_err(v->t, v->where, &err);
			continue;
		}
		ix[l->column].off = l->offset;
	}
	return COLFS_OK;
}

/* Verify stripe s into vs (the document text, the totals). */
static colfs_status stripe_run(colfs_tree *t, orc_file *f, size_t s,
			       const colfs_node *where,
			       struct orc_verify_stripe *vs)
{
	colfs_buf out = COLFS_BUF_INIT;
	ov v = {.t = t, .f = f, .where = where, .out = &out};
	const Orcpb__StripeInformation *si = f->footer->stripes[s];
	const size_t nt = f->n_types;
	uint64_t rows = si->numberofrows, done = 0, stride;
	ov_acc *grp = NULL;
	ov_index *ix = NULL;
	orc_reader *r = NULL;
	orc_stripe *sp;
	colfs_err err = {0};
	colfs_status st;
	size_t groups = 0, n_ix = 0, n_checked = 0;
	const Orcpb__StripeStatistics *ss = NULL;

	memset(vs, 0, sizeof(*vs));
	vs->acc = calloc(nt ? nt : 1, sizeof(*vs->acc));
	grp = calloc(nt ? nt : 1, sizeof(*grp));
	ix = calloc(nt ? nt : 1, sizeof(*ix));
	v.encrypted = encrypted_columns(f);
	if (!vs->acc || !grp || !ix || !v.encrypted) {
		st = COLFS_ENOMEM;
		goto out;
	}
	stride = f->footer->rowindexstride;
	colfs_buf_printf(&out, "stripe %zu: %llu rows, %zu columns\n", s,
			 (unsigned long long)rows, nt);
	/* A row takes at least 1/520 byte of some stream (a run of 130
	 * bytes of PRESENT or boolean bits in 2 bytes), but a schema without
	 * leaf columns takes none: a row count no data can hold is not
	 * counted out batch by batch. */
	if (rows / 1024 > si->datalength + si->indexlength) {
		colfs_buf_printf(&out,
				 "not checked: %llu rows in %llu bytes of "
				 "data (more than 1024 a byte)\n",
				 (unsigned long long)rows,
				 (unsigned long long)si->datalength);
		vs->st = COLFS_ECORRUPT;
		goto done;
	}
	st = orc_tail_stripe_load(f, s, &sp, &err);
	if (!st)
		st = orc_reader_create(f, s, 0, &r, &err);
	if (st)
		goto fail;
	st = load_indexes(&v, sp, ix);
	if (st)
		goto out;
	for (size_t c = 0; c < nt; c++)
		n_ix += ix[c].m.msg != NULL;
	if (!n_ix || !stride)
		stride = rows ? rows : 1;
	while (done < rows) {
		uint64_t g_end = done + stride < rows ? done + stride : rows;

		while (done < g_end) {
			size_t n = g_end - done < ORC_ROWS_PER_PIECE
					   ? (size_t)(g_end - done)
					   : ORC_ROWS_PER_PIECE;

			st = orc_reader_read(r, n, &err);
			if (st)
				goto fail;
			st = acc_column(r->root, n, NULL, grp, 0);
			if (st)
				goto out;
			done += n;
		}
		for (size_t c = 0; c < nt; c++) {
			const Orcpb__RowIndex *ri =
				(const Orcpb__RowIndex *)ix[c].m.msg;

			if (ri && !v.encrypted[c] && groups < ri->n_entry)
				check_stats(&v, ri->entry[groups]->statistics,
					    &grp[c], (uint32_t)c, (long)s,
					    (long)groups, ix[c].off);
			if (!acc_merge(&vs->acc[c], &grp[c],
				       f->footer->types[c]->kind)) {
				st = COLFS_ENOMEM;
				goto out;
			}
			acc_free(&grp[c]);
		}
		groups++;
	}
	for (size_t c = 0; c < nt; c++) {
		const Orcpb__RowIndex *ri = (const Orcpb__RowIndex *)ix[c].m.msg;

		if (ri && !v.encrypted[c] && ri->n_entry != groups &&
		    !f->footer->encryption)
			ov_problem(&v, ix[c].off,
				   "stripe %zu, column %u: the row index has %zu entries for %zu row groups",
				   s, (unsigned)c, ri->n_entry, groups);
	}
	if (f->meta && s < f->meta->n_stripestats)
		ss = f->meta->stripestats[s];
	else
		v.notes |= NOTE_NO_META;
	for (size_t c = 0; c < nt; c++) {
		if (v.encrypted[c]) {
			v.notes |= NOTE_ENCRYPTED;
			continue;
		}
		n_checked++;
		if (ss && c < ss->n_colstats)
			check_stats(&v, ss->colstats[c], &vs->acc[c],
				    (uint32_t)c, (long)s, -1, f->meta_off);
	}
	colfs_buf_printf(&out,
			 "checked: %zu columns, %zu row groups, %zu row "
			 "indexes, stripe statistics %s\n",
			 n_checked, groups, n_ix,
			 ss ? "present" : "absent");
	put_notes(&v);
	goto done;
fail:
	colfs_tree_report_err(t, where, &err);
	colfs_buf_printf(&out, "not checked: the stripe does not decode (%s)\n",
			 err.msg);
	vs->st = st;
	st = COLFS_OK;
done:
	if (v.problems > OV_MAX_REPORTS)
		colfs_buf_printf(&out, "(%u more mismatches not listed)\n",
				 v.problems - OV_MAX_REPORTS);
	colfs_buf_printf(&out, "%u mismatch%s\n", v.problems,
			 v.problems == 1 ? "" : "es");
out:
	for (size_t c = 0; grp && c < nt; c++)
		acc_free(&grp[c]);
	free(grp);
	for (size_t c = 0; ix && c < nt; c++)
		colfs_proto_free(&ix[c].m);
	free(ix);
	free(v.encrypted);
	orc_reader_free(r);
	if (!st && colfs_buf_status(&out))
		st = colfs_buf_status(&out);
	if (st) {
		colfs_buf_free(&out);
		stripe_free(vs, nt);
		return st;
	}
	vs->doc = out.data;
	vs->doc_len = out.len;
	vs->problems = v.problems;
	vs->done = true;
	return COLFS_OK;
}

/* The verification of stripe s, run once and kept. */
static colfs_status stripe_get(colfs_tree *t, orc_file *f, size_t s,
			       const colfs_node *where,
			       const struct orc_verify_stripe **out)
{
	struct orc_verify_stripe tmp;

	pthread_mutex_lock(&f->lock);
	if (!f->verify)
		f->verify = calloc(f->n_stripes ? f->n_stripes : 1,
				   sizeof(*f->verify));
	if (!f->verify) {
		pthread_mutex_unlock(&f->lock);
		return COLFS_ENOMEM;
	}
	if (f->verify[s].done) {
		*out = &f->verify[s];
		pthread_mutex_unlock(&f->lock);
		return COLFS_OK;
	}
	pthread_mutex_unlock(&f->lock);
	COLFS_TRY(stripe_run(t, f, s, where, &tmp));
	pthread_mutex_lock(&f->lock);
	if (f->verify[s].done)
		stripe_free(&tmp, f->n_types);
	else
		f->verify[s] = tmp;
	*out = &f->verify[s];
	pthread_mutex_unlock(&f->lock);
	return COLFS_OK;
}

void orc_verify_free(orc_file *f)
{
	for (size_t s = 0; f->verify && s < f->n_stripes; s++)
		stripe_free(&f->verify[s], f->n_types);
	free(f->verify);
	f->verify = NULL;
}

/* stripes/N/verify: one piece, the whole document */
colfs_status orc_verify_stripe_piece(colfs_tree *t, colfs_node *file,
				     uint64_t index, colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(file);
	size_t s = (size_t)colfs_node_a(file);
	const struct orc_verify_stripe *vs;

	if (index > 0)
		return COLFS_END;
	if (!f->footer || !f->ps || !f->schema_ok || s >= f->n_stripes)
		return COLFS_ECORRUPT;
	COLFS_TRY(stripe_get(t, f, s, colfs_node_parent(file), &vs));
	colfs_buf_append(out, vs->doc, vs->doc_len);
	return colfs_buf_status(out);
}

/* verify: the Footer's statistics against the merge of the stripes */
colfs_status orc_verify_file_piece(colfs_tree *t, colfs_node *file,
				   uint64_t index, colfs_buf *out)
{
	orc_file *f = colfs_node_ctx(file);
	const size_t nt = f->n_types;
	ov v = {.t = t, .f = f, .where = NULL, .out = out};
	ov_acc *tot;
	size_t bad = 0, stripe_problems = 0;
	colfs_status st = COLFS_OK;

	if (index > 0)
		return COLFS_END;
	if (!f->footer || !f->ps || !f->schema_ok)
		return COLFS_ECORRUPT;
	tot = calloc(nt ? nt : 1, sizeof(*tot));
	v.encrypted = encrypted_columns(f);
	if (!tot || !v.encrypted) {
		st = COLFS_ENOMEM;
		goto out;
	}
	colfs_buf_printf(out, "file: %llu rows, %zu stripes, %zu columns\n",
			 (unsigned long long)f->num_rows, f->n_stripes, nt);
	for (size_t s = 0; s < f->n_stripes; s++) {
		const struct orc_verify_stripe *vs;

		/* problems of a stripe verified here are reported under
		 * the root, each naming its stripe */
		st = stripe_get(t, f, s, NULL, &vs);
		if (st)
			goto out;
		stripe_problems += vs->problems;
		if (vs->st) {
			bad++;
			continue;
		}
		for (size_t c = 0; c < nt; c++)
			if (!acc_merge(&tot[c], &vs->acc[c],
				       f->footer->types[c]->kind)) {
				st = COLFS_ENOMEM;
				goto out;
			}
	}
	if (bad) {
		colfs_buf_printf(out,
				 "not checked: the file statistics (%zu "
				 "stripes do not decode; see their verify)\n",
				 bad);
	} else {
		size_t n_checked = 0;

		for (size_t c = 0; c < nt; c++) {
			if (v.encrypted[c]) {
				v.notes |= NOTE_ENCRYPTED;
				continue;
			}
			n_checked++;
			if (c < f->footer->n_statistics)
				check_stats(&v, f->footer->statistics[c],
					    &tot[c], (uint32_t)c, -1, -1,
					    f->footer_off);
		}
		colfs_buf_printf(out,
				 "checked: %zu columns, file statistics %s\n",
				 n_checked,
				 f->footer->n_statistics ? "present"
							 : "absent");
	}
	put_notes(&v);
	colfs_buf_printf(out, "stripes: %zu mismatch%s (see stripes/N/verify)\n",
			 stripe_problems, stripe_problems == 1 ? "" : "es");
	if (v.problems > OV_MAX_REPORTS)
		colfs_buf_printf(out, "(%u more mismatches not listed)\n",
				 v.problems - OV_MAX_REPORTS);
	colfs_buf_printf(out, "%u mismatch%s\n", v.problems,
			 v.problems == 1 ? "" : "es");
out:
	for (size_t c = 0; tot && c < nt; c++)
		acc_free(&tot[c]);
	free(tot);
	free(v.encrypted);
	return st ? st : colfs_buf_status(out);
}

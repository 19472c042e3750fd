/* colfs ORC: time zones for TIMESTAMP columns, read from the TZif files of
 * tzdata (/usr/share/zoneinfo) by colfs itself: no TZ, no localtime, so it
 * is thread-safe.  Instants after the last transition follow the POSIX TZ
 * rule in the TZif footer (RFC 8536). */
#include "orc_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TZ_DIR "/usr/share/zoneinfo/"
#define TZ_FILE_MAX (1u << 20)

typedef struct tz_rule_date {
	char form;     /* 'M', 'J' or 'n' */
	int m, w, d;   /* M: month, week, weekday; J/n: day in d */
	int64_t time;  /* seconds after local midnight */
} tz_rule_date;

struct orc_tz {
	struct orc_tz *next;
	char *name;
	size_t n_trans;
	int64_t *trans;       /* transition instants */
	int32_t *trans_off;   /* UTC offset from each transition on */
	int32_t ancient_off;  /* before the first transition */
	bool has_rule;
	int32_t std_off, dst_off;  /* seconds east of UTC */
	bool rule_has_dst;
	tz_rule_date start, end;
};

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static int64_t year_of(int64_t days)
{
	int64_t z = days + 719468, era, y;
	unsigned doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	return y + (mp >= 10);
}

static bool is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Local seconds since the epoch at which a rule date happens in year y. */
static int64_t rule_local(const tz_rule_date *r, int64_t y)
{
	int64_t day;

	if (r->form == 'J') {
		day = days_from_civil(y, 1, 1) + r->d - 1;
		if (is_leap(y) && r->d >= 60)
			day++;
	} else if (r->form == 'n') {
		day = days_from_civil(y, 1, 1) + r->d;
	} else {
		static const int mdays[12] = {31, 28, 31, 30, 31, 30,
					      31, 31, 30, 31, 30, 31};
		int64_t first = days_from_civil(y, (unsigned)r->m, 1);
		int wd = (int)(((first + 4) % 7 + 7) % 7);
		int dim = mdays[r->m - 1] + (r->m == 2 && is_leap(y));
		int dom = 1 + (r->d - wd + 7) % 7 + (r->w - 1) * 7;

		while (dom > dim)
			dom -= 7;
		day = first + dom - 1;
	}
	return day * 86400 + r->time;
}

int64_t orc_tz_offset(const orc_tz *tz, int64_t t)
{
	size_t lo, hi;

	if (!tz)
		return 0;
	if (tz->n_trans == 0 || t < tz->trans[0]) {
		if (tz->n_trans == 0 && tz->has_rule)
			goto rule;
		return tz->ancient_off;
	}
	if (t >= tz->trans[tz->n_trans - 1] && tz->has_rule)
		goto rule;
	lo = 0;
	hi = tz->n_trans;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (tz->trans[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return tz->trans_off[lo];
rule:
	if (!tz->rule_has_dst)
		return tz->std_off;
	{
		int64_t y = year_of(floor_div(t + tz->std_off, 86400));
		int64_t s = rule_local(&tz->start, y) - tz->std_off;
		int64_t e = rule_local(&tz->end, y) - tz->dst_off;
		bool dst = s < e ? (t >= s && t < e) : !(t >= e && t < s);

		return dst ? tz->dst_off : tz->std_off;
	}
}

/* --- POSIX TZ strings ----------------------------------------------------- */

static bool parse_name(const char **p)
{
	const char *s = *p;

	if (*s == '<') {
		while (*s && *s != '>')
			s++;
		if (*s != '>')
			return false;
		*p = s + 1;
		return true;
	}
	while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
		s++;
	if (s - *p < 3)
		return false;
	*p = s;
	return true;
}

static bool parse_num(const char **p, int64_t *out, int max)
{
	int64_t v = 0;
	int n = 0;

	while (**p >= '0' && **p <= '9' && n < 4) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	if (n == 0 || v > max)
		return false;
	*out = v;
	return true;
}

/* [+-]hh[:mm[:ss]] to seconds (sign as written). */
static bool parse_time(const char **p, int64_t *out, int max_h)
{
	int64_t sign = 1, h, m = 0, s = 0;

	if (**p == '+' || **p == '-') {
		sign = **p == '-' ? -1 : 1;
		(*p)++;
	}
	if (!parse_num(p, &h, max_h))
		return false;
	if (**p == ':') {
		(*p)++;
		if (!parse_num(p, &m, 59))
			return false;
		if (**p == ':') {
			(*p)++;
			if (!parse_num(p, &s, 59))
				return false;
		}
	}
	*out = sign * (h * 3600 + m * 60 + s);
	return true;
}

static bool parse_rule_date(const char **p, tz_rule_date *r)
{
	int64_t a, b, c;

	r->time = 7200;
	if (**p == 'M') {
		(*p)++;
		if (!parse_num(p, &a, 12) || a < 1 || *(*p)++ != '.' ||
		    !parse_num(p, &b, 5) || b < 1 || *(*p)++ != '.' ||
		    !parse_num(p, &c, 6))
			return false;
		r->form = 'M';
		r->m = (int)a;
		r->w = (int)b;
		r->d = (int)c;
	} else if (**p == 'J') {
		(*p)++;
		if (!parse_num(p, &a, 365) || a < 1)
			return false;
		r->form = 'J';
		r->d = (int)a;
	} else {
		if (!parse_num(p, &a, 365))
			return false;
		r->form = 'n';
		r->d = (int)a;
	}
	if (**p == '/') {
		(*p)++;
		if (!parse_time(p, &r->time, 167))
			return false;
	}
	return true;
}

static bool parse_posix(orc_tz *tz, const char *s)
{
	int64_t off;

	if (!parse_name(&s) || !parse_time(&s, &off, 24))
		return false;
	tz->std_off = (int32_t)-off;
	tz->has_rule = true;
	if (*s == '\0')
		return true;
	if (!parse_name(&s))
		return false;
	tz->rule_has_dst = true;
	tz->dst_off = tz->std_off + 3600;
	if (*s != ',' && *s != '\0') {
		if (!parse_time(&s, &off, 24))
			return false;
		tz->dst_off = (int32_t)-off;
	}
	if (*s == '\0') {
		/* No rule: the US default of old POSIX. */
		tz->start = (tz_rule_date){'M', 3, 2, 0, 7200};
		tz->end = (tz_rule_date){'M', 11, 1, 0, 7200};
		return true;
	}
	if (*s++ != ',' || !parse_rule_date(&s, &tz->start) || *s++ != ',' ||
	    !parse_rule_date(&s, &tz->end))
		return false;
	return *s == '\0';
}

/* --- TZif ------------------------------------------------------------------ */

static colfs_status tzif_parse(orc_tz *tz, const uint8_t *p, size_t n,
			       colfs_err *err)
{
	colfs_cursor c;
	uint8_t ver;
	uint32_t cnt[6];
	int pass;
	const uint8_t *magic;

	colfs_cursor_init(&c, p, n, 0);
	for (pass = 0; pass < 2; pass++) {
		size_t tsize = pass == 0 ? 4 : 8;
		uint32_t isut, isstd, leap, timecnt, typecnt, charcnt;
		const uint8_t *times, *idx, *types;

		COLFS_TRY(colfs_cursor_bytes(&c, 4, &magic, err));
		if (memcmp(magic, "TZif", 4) != 0)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "time zone file is not TZif");
		COLFS_TRY(colfs_cursor_u8(&c, &ver, err));
		COLFS_TRY(colfs_cursor_skip(&c, 15, err));
		for (int i = 0; i < 6; i++)
			COLFS_TRY(colfs_cursor_u32be(&c, &cnt[i], err));
		isut = cnt[0];
		isstd = cnt[1];
		leap = cnt[2];
		timecnt = cnt[3];
		typecnt = cnt[4];
		charcnt = cnt[5];
		if (typecnt == 0 || (uint64_t)timecnt * (tsize + 1) +
					    (uint64_t)typecnt * 6 + charcnt +
					    (uint64_t)leap * (tsize + 4) +
					    isstd + isut >
				    colfs_cursor_left(&c))
			return colfs_fail(err, COLFS_ETRUNCATED, 0,
					  "time zone file is cut short");
		if (pass == 0 && ver >= '2') {
			COLFS_TRY(colfs_cursor_skip(
				&c,
				(size_t)timecnt * 5 + (size_t)typecnt * 6 +
					charcnt + (size_t)leap * 8 + isstd +
					isut,
				err));
			continue;
		}
		COLFS_TRY(colfs_cursor_bytes(&c, (size_t)timecnt * tsize,
					     &times, err));
		COLFS_TRY(colfs_cursor_bytes(&c, timecnt, &idx, err));
		COLFS_TRY(colfs_cursor_bytes(&c, (size_t)typecnt * 6, &types,
					     err));
		COLFS_TRY(colfs_cursor_skip(&c, charcnt + (size_t)leap *
							  (tsize + 4) +
						  isstd + isut,
					    err));
		tz->trans = calloc(timecnt ? timecnt : 1, sizeof(int64_t));
		tz->trans_off = calloc(timecnt ? timecnt : 1, sizeof(int32_t));
		if (!tz->trans || !tz->trans_off)
			return colfs_fail(err, COLFS_ENOMEM, 0,
					  "out of memory");
		tz->n_trans = timecnt;
		for (uint32_t i = 0; i < timecnt; i++) {
			uint8_t ti = idx[i];

			if (ti >= typecnt)
				return colfs_fail(err, COLFS_ECORRUPT, 0,
						  "time zone type index out "
						  "of range");
			tz->trans[i] =
				tsize == 4
					? (int64_t)(int32_t)colfs_be32(times +
								       4 * i)
					: (int64_t)((uint64_t)colfs_be32(
							    times + 8 * i)
						    << 32 |
						    colfs_be32(times + 8 * i +
							       4));
			tz->trans_off[i] =
				(int32_t)colfs_be32(types + 6 * ti);
		}
		/* Before the first transition: the first standard-time
		 * type, else type 0. */
		tz->ancient_off = (int32_t)colfs_be32(types);
		for (uint32_t i = 0; i < typecnt; i++)
			if (types[6 * i + 4] == 0) {
				tz->ancient_off =
					(int32_t)colfs_be32(types + 6 * i);
				break;
			}
		if (pass == 1) {
			/* footer: \n POSIX-TZ \n */
			size_t left = colfs_cursor_left(&c);
			const uint8_t *q = colfs_cursor_ptr(&c);

			if (left >= 2 && q[0] == '\n') {
				char rule[128];
				size_t k = 0;

				for (size_t i = 1; i < left && q[i] != '\n' &&
						   k + 1 < sizeof(rule);
				     i++)
					rule[k++] = (char)q[i];
				rule[k] = '\0';
				if (k > 0 && !parse_posix(tz, rule))
					tz->has_rule = false;
			}
		}
		break;
	}
	return COLFS_OK;
}

static bool tz_name_ok(const char *name)
{
	if (name[0] == '/' || strstr(name, "..") || strlen(name) > 200)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '/' || *p == '_' ||
		      *p == '-' || *p == '+'))
			return false;
	return true;
}

static void tz_free(orc_tz *tz)
{
	if (!tz)
		return;
	free(tz->name);
	free(tz->trans);
	free(tz->trans_off);
	free(tz);
}

static colfs_status tz_load(const char *name, orc_tz **out, colfs_err *err)
{
	char path[256];
	uint8_t *data;
	ssize_t n;
	size_t have = 0;
	int fd;
	orc_tz *tz;
	colfs_status st;

	if (!tz_name_ok(name))
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "writer time zone \"%.100s\" is not a time "
				  "zone name", name);
	snprintf(path, sizeof(path), TZ_DIR "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "writer time zone \"%s\" not found under "
				  TZ_DIR, name);
	data = malloc(TZ_FILE_MAX);
	if (!data) {
		close(fd);
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	}
	while (have < TZ_FILE_MAX &&
	       (n = read(fd, data + have, TZ_FILE_MAX - have)) > 0)
		have += (size_t)n;
	close(fd);
	tz = calloc(1, sizeof(*tz));
	if (!tz || !(tz->name = strdup(name))) {
		free(tz);
		free(data);
		return colfs_fail(err, COLFS_ENOMEM, 0, "out of memory");
	}
	st = tzif_parse(tz, data, have, err);
	free(data);
	if (st) {
		tz_free(tz);
		return st;
	}
	*out = tz;
	return COLFS_OK;
}

colfs_status orc_tz_get(orc_file *f, const char *name, const orc_tz **out,
			colfs_err *err)
{
	orc_tz *tz;
	colfs_status st;

	*out = NULL;
	if (!name || !*name || !strcmp(name, "GMT") || !strcmp(name, "UTC"))
		return COLFS_OK;
	pthread_mutex_lock(&f->lock);
	for (tz = f->tzs; tz; tz = tz->next)
		if (!strcmp(tz->name, name))
			break;
	pthread_mutex_unlock(&f->lock);
	if (tz) {
		*out = tz;
		return COLFS_OK;
	}
	st = tz_load(name, &tz, err);
	if (st)
		return st;
	pthread_mutex_lock(&f->lock);
	tz->next = f->tzs;
	f->tzs = tz;
	pthread_mutex_unlock(&f->lock);
	*out = tz;
	return COLFS_OK;
}

void orc_tz_free_all(orc_file *f)
{
	orc_tz *tz = f->tzs;

	while (tz) {
		orc_tz *next = tz->next;

		tz_free(tz);
		tz = next;
	}
	f->tzs = NULL;
}

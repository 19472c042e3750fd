/* tests/orc: a small ORC writer for fixtures and benchmarks, written for
 * colfs from the ORC specification (uncompressed, RLE v1).
 *
 *   orc_gen OUT ROWS [ROWS_PER_STRIPE [NAMES]]
 *
 * Schema struct<id:bigint,name:string,score:double,flag:boolean>; row i
 * holds id = i, name = "name-<i % 1000>" (null when i % 7 == 3), or with
 * NAMES (a file of strings each ended by a NUL byte: any other bytes,
 * for the rows.csv tests) its string i % count (the statistics
 * orc_gen_stats adds know only the default names),
 * score = i * 0.5, flag = (i % 3 == 0).  ORC_GEN_ICEBERG in the
 * environment ("NAME=ID,NAME=ID,NAME=ID,NAME=ID") renames the four
 * columns and gives each the type attribute iceberg.id, as Iceberg's ORC
 * writer marks its field ids.  The metadata is packed with the
 * protobuf-c code generated from colfs' own orc.proto. */
#include "orc.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wbuf {
	uint8_t *p;
	size_t len, cap;
} wbuf;

static void put(wbuf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		while (b->len + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_u8(wbuf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put_uvarint(wbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		put_u8(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put_u8(b, (uint8_t)v);
}

/* RLE v1 literal groups of unsigned or zigzagged values. */
static void rle1_literals(wbuf *b, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = n - i > 128 ? 128 : n - i;

		put_u8(b, (uint8_t)(256 - k));
		for (size_t j = 0; j < k; j++)
			put_uvarint(b, v[i + j]);
		i += k;
	}
}

/* Boolean RLE: bits MSB first, byte RLE literal groups. */
static void bool_rle(wbuf *b, const uint8_t *bits, size_t n)
{
	size_t nbytes = (n + 7) / 8;
	uint8_t *bytes = calloc(nbytes ? nbytes : 1, 1);

	for (size_t i = 0; i < n; i++)
		if (bits[i])
			bytes[i / 8] |= (uint8_t)(0x80 >> (i % 8));
	for (size_t i = 0; i < nbytes;) {
		size_t k = nbytes - i > 128 ? 128 : nbytes - i;

		put_u8(b, (uint8_t)(256 - k));
		put(b, bytes + i, k);
		i += k;
	}
	free(bytes);
}

static uint8_t *pack(const ProtobufCMessage *m, size_t *len)
{
	uint8_t *p;

	*len = protobuf_c_message_get_packed_size(m);
	p = malloc(*len ? *len : 1);
	protobuf_c_message_pack(m, p);
	return p;
}

/* For tests of the stripe checks: the stripe with this index lists its
 * last stream one byte shorter than it is (-1: none). */
static long orc_gen_short_stripe = -1;
/* With a stride: a ROW_INDEX stream for column 1 (id) in every stripe,
 * one entry per stride of rows; the stripe orc_gen_index_short_stripe
 * gets one entry too few. */
static uint64_t orc_gen_index_stride = 0;
static long orc_gen_index_short_stripe = -1;

/* With orc_gen_stats: statistics in the row index entries (column 1), the
 * Metadata (every stripe, every column) and the Footer, true but for the
 * one lie orc_gen_lie picks (test_orc_verify.c knows what each says). */
enum {
	ORC_GEN_LIE_NONE = 0,
	ORC_GEN_LIE_INDEX_MIN,      /* stripe 1, row group 1, id minimum + 1 */
	ORC_GEN_LIE_INDEX_COUNT,    /* stripe 2, row group 0, id count - 1 */
	ORC_GEN_LIE_STRIPE_MAX,     /* stripe 0, name maximum "name-998" */
	ORC_GEN_LIE_STRIPE_HASNULL, /* stripe 1, name hasNull false */
	ORC_GEN_LIE_STRIPE_SUM,     /* stripe 2, score sum 1 */
	ORC_GEN_LIE_FILE_COUNT,     /* file, root count + 1 */
	ORC_GEN_LIE_FILE_SUM,       /* file, id sum + 1 */
	ORC_GEN_LIE_FILE_TRUE,      /* file, flag true count 0 */
};
static int orc_gen_stats = 0;
/* NAMES: the strings of the name column, or none (name-<i % 1000>). */
static char **orc_gen_names;
static size_t orc_gen_nnames;
static int orc_gen_lie = ORC_GEN_LIE_NONE;

/* What rows [from, to) hold, per column of the fixed schema. */
typedef struct gen_stats {
	uint64_t rows, names, trues;
	int64_t idmin, idmax, idsum, namelen;
	char nmin[32], nmax[32];
	double dmin, dmax, dsum;
} gen_stats;

static void gen_stats_rows(gen_stats *g, uint64_t from, uint64_t to)
{
	memset(g, 0, sizeof(*g));
	for (uint64_t r = from; r < to; r++) {
		char name[32];
		double d = (double)r * 0.5;

		if (g->rows == 0) {
			g->idmin = g->idmax = (int64_t)r;
			g->dmin = g->dmax = d;
		}
		if ((int64_t)r < g->idmin)
			g->idmin = (int64_t)r;
		if ((int64_t)r > g->idmax)
			g->idmax = (int64_t)r;
		if (d < g->dmin)
			g->dmin = d;
		if (d > g->dmax)
			g->dmax = d;
		g->idsum += (int64_t)r;
		g->dsum += d;
		g->trues += r % 3 == 0;
		g->rows++;
		if (r % 7 == 3)
			continue;
		snprintf(name, sizeof(name), "name-%llu",
			 (unsigned long long)(r % 1000));
		if (g->names == 0 || strcmp(name, g->nmin) < 0)
			strcpy(g->nmin, name);
		if (g->names == 0 || strcmp(name, g->nmax) > 0)
			strcpy(g->nmax, name);
		g->namelen += (int64_t)strlen(name);
		g->names++;
	}
}

/* The ColumnStatistics of every column (5) for g, in `mem` (freed with
 * gen_stats_free). */
typedef struct gen_cs {
	Orcpb__ColumnStatistics cs[5];
	Orcpb__ColumnStatistics *csp[5];
	Orcpb__IntegerStatistics is;
	Orcpb__StringStatistics ss;
	Orcpb__DoubleStatistics ds;
	Orcpb__BucketStatistics bs;
	uint64_t bucket;
} gen_cs;

static void gen_cs_fill(gen_cs *m, const gen_stats *g)
{
	for (int k = 0; k < 5; k++) {
		orcpb__column_statistics__init(&m->cs[k]);
		m->cs[k].has_numberofvalues = m->cs[k].has_hasnull = 1;
		m->cs[k].numberofvalues = g->rows;
		m->csp[k] = &m->cs[k];
	}
	orcpb__integer_statistics__init(&m->is);
	m->is.has_minimum = m->is.has_maximum = m->is.has_sum = 1;
	m->is.minimum = g->idmin;
	m->is.maximum = g->idmax;
	m->is.sum = g->idsum;
	m->cs[1].intstatistics = &m->is;
	orcpb__string_statistics__init(&m->ss);
	m->ss.minimum = (char *)g->nmin;
	m->ss.maximum = (char *)g->nmax;
	m->ss.has_sum = 1;
	m->ss.sum = g->namelen;
	m->cs[2].stringstatistics = &m->ss;
	m->cs[2].numberofvalues = g->names;
	m->cs[2].hasnull = g->names < g->rows;
	orcpb__double_statistics__init(&m->ds);
	m->ds.has_minimum = m->ds.has_maximum = m->ds.has_sum = 1;
	m->ds.minimum = g->dmin;
	m->ds.maximum = g->dmax;
	m->ds.sum = g->dsum;
	m->cs[3].doublestatistics = &m->ds;
	orcpb__bucket_statistics__init(&m->bs);
	m->bucket = g->trues;
	m->bs.n_count = 1;
	m->bs.count = &m->bucket;
	m->cs[4].bucketstatistics = &m->bs;
}

static int orc_gen_write(const char *path, uint64_t rows, uint64_t per)
{
	FILE *out;
	uint64_t done = 0;
	wbuf file = {0};
	Orcpb__StripeInformation **sinfo = NULL;
	size_t nstripes = 0;
	gen_stats *sstats = NULL;

	if (per == 0)
		per = 100000;
	put(&file, "ORC", 3);
	while (done < rows) {
		uint64_t n = rows - done < per ? rows - done : per;
		wbuf s[6] = {{0}};
		uint64_t *ids = malloc(n * sizeof(*ids));
		uint64_t *lens = malloc(n * sizeof(*lens));
		uint8_t *present = malloc(n), *flags = malloc(n);
		size_t nlens = 0;
		Orcpb__Stream st[7], *stp[7];
		uint64_t index_len = 0;
		Orcpb__ColumnEncoding enc[5], *encp[5];
		Orcpb__StripeFooter sf = ORCPB__STRIPE_FOOTER__INIT;
		Orcpb__StripeInformation *si = malloc(sizeof(*si));
		static const uint32_t cols[6] = {1, 2, 2, 2, 3, 4};
		static const Orcpb__Stream__Kind kinds[6] = {
			ORCPB__STREAM__KIND__DATA, ORCPB__STREAM__KIND__PRESENT,
			ORCPB__STREAM__KIND__DATA, ORCPB__STREAM__KIND__LENGTH,
			ORCPB__STREAM__KIND__DATA, ORCPB__STREAM__KIND__DATA};
		uint64_t off = file.len, data_len = 0;
		uint8_t *fb;
		size_t fl;

		for (uint64_t i = 0; i < n; i++) {
			uint64_t r = done + i;
			double d = (double)r * 0.5;
			char name[32];

			ids[i] = (r << 1) ^ (uint64_t)((int64_t)r >> 63);
			present[i] = r % 7 != 3;
			if (present[i] && orc_gen_nnames) {
				const char *nm = orc_gen_names[r % orc_gen_nnames];

				put(&s[2], nm, strlen(nm));
				lens[nlens++] = (uint64_t)strlen(nm);
			} else if (present[i]) {
				int l = snprintf(name, sizeof(name), "name-%llu",
						 (unsigned long long)(r % 1000));

				put(&s[2], name, (size_t)l);
				lens[nlens++] = (uint64_t)l;
			}
			{
				uint64_t bits;
				uint8_t le[8];

				memcpy(&bits, &d, 8);
				for (int k = 0; k < 8; k++)
					le[k] = (uint8_t)(bits >> (8 * k));
				put(&s[4], le, 8);
			}
			flags[i] = r % 3 == 0;
		}
		rle1_literals(&s[0], ids, n);
		bool_rle(&s[1], present, n);
		rle1_literals(&s[3], lens, nlens);
		bool_rle(&s[5], flags, n);
		if (orc_gen_index_stride) {
			/* the row index comes first: index, then data */
			size_t ne = (size_t)((n + orc_gen_index_stride - 1) /
					     orc_gen_index_stride) -
				    ((long)nstripes == orc_gen_index_short_stripe);
			Orcpb__RowIndex ri = ORCPB__ROW_INDEX__INIT;
			Orcpb__RowIndexEntry *ents = calloc(ne + 1, sizeof(*ents));
			Orcpb__RowIndexEntry **entp = calloc(ne + 1, sizeof(*entp));
			uint64_t pos0 = 0;
			gen_stats *eg = calloc(ne + 1, sizeof(*eg));
			gen_cs *ecs = calloc(ne + 1, sizeof(*ecs));
			for (size_t e = 0; e < ne; e++) {
				uint64_t from = done + e * orc_gen_index_stride;
				uint64_t to = from + orc_gen_index_stride;

				orcpb__row_index_entry__init(&ents[e]);
				ents[e].n_positions = 1;
				ents[e].positions = &pos0;
				entp[e] = &ents[e];
				if (!orc_gen_stats)
					continue;
				gen_stats_rows(&eg[e], from,
					       to < done + n ? to : done + n);
				if (orc_gen_lie == ORC_GEN_LIE_INDEX_MIN &&
				    nstripes == 1 && e == 1)
					eg[e].idmin++;
				gen_cs_fill(&ecs[e], &eg[e]);
				if (orc_gen_lie == ORC_GEN_LIE_INDEX_COUNT &&
				    nstripes == 2 && e == 0)
					ecs[e].cs[1].numberofvalues--;
				ents[e].statistics = &ecs[e].cs[1];
			}
			ri.n_entry = ne;
			ri.entry = entp;
			size_t il;
			uint8_t *ib = pack(&ri.base, &il);
			put(&file, ib, il);
			free(ib);
			free(eg);
			free(ecs);
			free(ents);
			free(entp);
			orcpb__stream__init(&st[6]);
			st[6].has_kind = st[6].has_column = st[6].has_length = 1;
			st[6].kind = ORCPB__STREAM__KIND__ROW_INDEX;
			st[6].column = 1;
			st[6].length = il;
			index_len = il;
		}
		for (int k = 0; k < 6; k++) {
			orcpb__stream__init(&st[k]);
			st[k].has_kind = st[k].has_column = st[k].has_length = 1;
			st[k].kind = kinds[k];
			st[k].column = cols[k];
			st[k].length = s[k].len -
				       (k == 5 && (long)nstripes ==
						  orc_gen_short_stripe);
			stp[k + (index_len > 0)] = &st[k];
			put(&file, s[k].p, s[k].len);
			data_len += s[k].len;
			free(s[k].p);
		}
		for (int k = 0; k < 5; k++) {
			orcpb__column_encoding__init(&enc[k]);
			enc[k].has_kind = 1;
			enc[k].kind = ORCPB__COLUMN_ENCODING__KIND__DIRECT;
			encp[k] = &enc[k];
		}
		if (index_len)
			stp[0] = &st[6];
		sf.n_streams = 6 + (index_len > 0);
		sf.streams = stp;
		sf.n_columns = 5;
		sf.columns = encp;
		sf.writertimezone = "UTC";
		fb = pack(&sf.base, &fl);
		put(&file, fb, fl);
		free(fb);
		orcpb__stripe_information__init(si);
		si->has_offset = si->has_indexlength = si->has_datalength = 1;
		si->has_footerlength = si->has_numberofrows = 1;
		si->offset = off;
		si->indexlength = index_len;
		si->datalength = data_len;
		si->footerlength = fl;
		si->numberofrows = n;
		sinfo = realloc(sinfo, (nstripes + 1) * sizeof(*sinfo));
		sstats = realloc(sstats, (nstripes + 1) * sizeof(*sstats));
		gen_stats_rows(&sstats[nstripes], done, done + n);
		sinfo[nstripes++] = si;
		free(ids);
		free(lens);
		free(present);
		free(flags);
		done += n;
	}
	{
		Orcpb__Footer ft = ORCPB__FOOTER__INIT;
		Orcpb__PostScript ps = ORCPB__POST_SCRIPT__INIT;
		Orcpb__Type ty[5], *typ[5];
		static const Orcpb__Type__Kind kinds[5] = {
			ORCPB__TYPE__KIND__STRUCT, ORCPB__TYPE__KIND__LONG,
			ORCPB__TYPE__KIND__STRING, ORCPB__TYPE__KIND__DOUBLE,
			ORCPB__TYPE__KIND__BOOLEAN};
		uint32_t sub[4] = {1, 2, 3, 4};
		char *names[4] = {"id", "name", "score", "flag"};
		uint32_t version[2] = {0, 12};
		uint8_t *fb, *pb, pslen;
		size_t fl, pl, ml = 0;
		gen_cs *scs = calloc(nstripes + 1, sizeof(*scs));
		Orcpb__StripeStatistics *ssm = calloc(nstripes + 1, sizeof(*ssm));
		Orcpb__StripeStatistics **ssp = calloc(nstripes + 1, sizeof(*ssp));
		gen_cs fcs;
		gen_stats fg;
		uint64_t content_len = file.len - 3;

		if (orc_gen_stats) {
			Orcpb__Metadata md = ORCPB__METADATA__INIT;
			uint8_t *mb;

			for (size_t i = 0; i < nstripes; i++) {
				gen_stats *g = &sstats[i];

				if (orc_gen_lie == ORC_GEN_LIE_STRIPE_MAX && i == 0)
					strcpy(g->nmax, "name-998");
				if (orc_gen_lie == ORC_GEN_LIE_STRIPE_SUM && i == 2)
					g->dsum = 1;
				gen_cs_fill(&scs[i], g);
				if (orc_gen_lie == ORC_GEN_LIE_STRIPE_HASNULL &&
				    i == 1)
					scs[i].cs[2].hasnull = 0;
				orcpb__stripe_statistics__init(&ssm[i]);
				ssm[i].n_colstats = 5;
				ssm[i].colstats = scs[i].csp;
				ssp[i] = &ssm[i];
			}
			md.n_stripestats = nstripes;
			md.stripestats = ssp;
			mb = pack(&md.base, &ml);
			put(&file, mb, ml);
			free(mb);
			gen_stats_rows(&fg, 0, rows);
			if (orc_gen_lie == ORC_GEN_LIE_FILE_SUM)
				fg.idsum++;
			if (orc_gen_lie == ORC_GEN_LIE_FILE_TRUE)
				fg.trues = 0;
			gen_cs_fill(&fcs, &fg);
			if (orc_gen_lie == ORC_GEN_LIE_FILE_COUNT)
				fcs.cs[0].numberofvalues++;
			ft.n_statistics = 5;
			ft.statistics = fcs.csp;
		}

		for (int k = 0; k < 5; k++) {
			orcpb__type__init(&ty[k]);
			ty[k].has_kind = 1;
			ty[k].kind = kinds[k];
			typ[k] = &ty[k];
		}
		/* ORC_GEN_ICEBERG="NAME=ID,NAME=ID,NAME=ID,NAME=ID": the four
		 * columns renamed, each given its Iceberg field id as the type
		 * attribute iceberg.id, as Iceberg's ORC writer does */
		static char ice_spec[256];
		static Orcpb__StringPair ice_pair[4], *ice_pp[4];
		const char *ice = getenv("ORC_GEN_ICEBERG");
		if (ice && strlen(ice) < sizeof ice_spec) {
			char *save = NULL, *tok;
			int k = 0;
			strcpy(ice_spec, ice);
			for (tok = strtok_r(ice_spec, ",", &save); tok && k < 4;
			     tok = strtok_r(NULL, ",", &save), k++) {
				char *eq = strchr(tok, '=');
				if (!eq)
					break;
				*eq = '\0';
				names[k] = tok;
				orcpb__string_pair__init(&ice_pair[k]);
				ice_pair[k].key = "iceberg.id";
				ice_pair[k].value = eq + 1;
				ice_pp[k] = &ice_pair[k];
				ty[k + 1].n_attributes = 1;
				ty[k + 1].attributes = &ice_pp[k];
			}
		}
		ty[0].n_subtypes = 4;
		ty[0].subtypes = sub;
		ty[0].n_fieldnames = 4;
		ty[0].fieldnames = names;
		ft.has_headerlength = ft.has_contentlength = 1;
		ft.headerlength = 3;
		ft.contentlength = content_len + 3;
		ft.n_stripes = nstripes;
		ft.stripes = sinfo;
		ft.n_types = 5;
		ft.types = typ;
		ft.has_numberofrows = 1;
		ft.numberofrows = rows;
		ft.has_rowindexstride = 1;
		ft.rowindexstride = orc_gen_index_stride;
		ft.has_writer = 1;
		ft.writer = 0;
		ft.softwareversion = "colfs-test-writer";
		fb = pack(&ft.base, &fl);
		put(&file, fb, fl);
		ps.has_footerlength = ps.has_compression = 1;
		ps.footerlength = fl;
		ps.compression = ORCPB__COMPRESSION_KIND__NONE;
		ps.n_version = 2;
		ps.version = version;
		ps.has_metadatalength = 1;
		ps.metadatalength = ml;
		ps.has_writerversion = 1;
		ps.writerversion = 6;
		ps.magic = "ORC";
		pb = pack(&ps.base, &pl);
		put(&file, pb, pl);
		pslen = (uint8_t)pl;
		put(&file, &pslen, 1);
		free(fb);
		free(pb);
		free(scs);
		free(ssm);
		free(ssp);
	}
	free(sstats);
	for (size_t i = 0; i < nstripes; i++)
		free(sinfo[i]);
	free(sinfo);
	out = fopen(path, "wb");
	if (!out || fwrite(file.p, 1, file.len, out) != file.len ||
	    fclose(out) != 0) {
		perror(path);
		return 1;
	}
	free(file.p);
	return 0;
}

#ifndef ORC_GEN_NO_MAIN
int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT ROWS [ROWS_PER_STRIPE [NAMES]]\n",
			argv[0]);
		return 2;
	}
	if (argc > 4) {
		static char text[1 << 16];
		FILE *in = fopen(argv[4], "rb");
		size_t n = in ? fread(text, 1, sizeof(text) - 1, in) : 0;

		if (!in || ferror(in) || !feof(in)) {
			fprintf(stderr, "%s: cannot read all of it\n", argv[4]);
			return 1;
		}
		fclose(in);
		for (size_t i = 0; i < n; i += strlen(text + i) + 1) {
			char **nn = realloc(orc_gen_names, (orc_gen_nnames + 1) *
						   sizeof(*nn));
			if (!nn)
				return 1;
			orc_gen_names = nn;
			orc_gen_names[orc_gen_nnames++] = text + i;
		}
	}
	return orc_gen_write(argv[1], strtoull(argv[2], NULL, 10),
			     argc > 3 ? strtoull(argv[3], NULL, 10) : 100000);
}
#endif

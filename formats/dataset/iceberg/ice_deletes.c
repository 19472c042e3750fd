/* colfs: an Iceberg snapshot's deletes (ice_deletes.h), as the Iceberg
 * spec's "Scan Planning" says they apply:
 *
 * - a deletion vector (a position delete entry whose content offset is
 *   given (a blob is never at 0: the file starts with its magic), or
 *   whose file is a .puffin) applies to the data file its
 *   referenced_data_file names, when its data sequence number is >= the
 *   data file's and its partition (spec and values) is the data file's;
 *   a data file with a deletion vector reads no position delete file
 *   (a v3 table's vectors replace them);
 * - a position delete file applies when its data sequence number is >=
 *   the data file's and its partition (spec and values) is the data
 *   file's, and, when it names one, its referenced_data_file is it;
 * - an equality delete file applies when its data sequence number is
 *   strictly greater than the data file's and its partition (spec and
 *   values) is the data file's, or its spec is unpartitioned (an empty
 *   partition tuple: a global delete).
 *
 * The files are read through colfs's own trees (colfs_tree_open with the
 * mount's options, less those that change how values render or what a
 * damaged page gives), or, when the manifest says a delete file's format
 * is AVRO, through ice_avrodel.c (the core's Avro reader, each value
 * rendered as the tree renders the same type): a position delete
 * file's columns/file_path and columns/pos (found by their reserved
 * field ids 2147483546 and 2147483545, else by name); an equality delete
 * file's columns of its equality field ids, and the same columns of each
 * data file it applies to.  colfs renders the same type the same way in every file
 * (docs/values.md), so a delete row removes a data row when their
 * columns' text is the same, column for column; NULL (the null token)
 * equals NULL, as the spec says.  A column of the current schema that a
 * data file lacks (added after it was written) reads as the caller's
 * fill value (ice_deletes_set_fill: an identity partition's value, an
 * initial-default), else as NULL.
 *
 * Each delete file is read once, when a data file it applies to is
 * first asked for, and closed once read; what it gives is kept (position
 * pairs sorted by data file, equality rows as sorted keys, a vector's
 * rows) for the index's life.  Each kind has its cache and its lock; a
 * file is read by one thread with no lock held, and others asking for it
 * meanwhile wait.
 */
#include "ice_deletes.h"
#include "ice_avrodel.h"
#include "ice_puffin.h"
#include "../dataset_int.h"
#include "../dataset_members.h"
#include "../../core/names.h"
#include "../../core/sourcekind.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FIELD_ID_FILE_PATH 2147483546
#define FIELD_ID_POS 2147483545

typedef struct pos_pair {
	const char *path;     /* one of the entry's paths */
	uint64_t pos;
} pos_pair;

/* What one delete file gives, once read. */
typedef struct del_entry {
	bool ready;
	bool loading;         /* a thread is reading it: wait for it */
	char *text;           /* the column text the pairs and keys point into */
	pos_pair *pairs;      /* position deletes: by path, then pos */
	size_t n_pairs;
	char **paths;         /* their data file paths, each once in a run */
	size_t n_paths;
	char **keys;          /* equality deletes: each row's key, sorted */
	size_t n_keys;
	uint64_t *rows;       /* a deletion vector's rows */
	size_t n_rows;
} del_entry;

typedef struct del_cache {
	pthread_mutex_t lock;
	pthread_cond_t done;  /* an entry stopped loading */
	del_entry *e;         /* one per delete file; `ready` and `loading`
			       * under the lock */
} del_cache;

struct ice_deletes {
	const ice_file *data;
	size_t n_data;
	const ice_file *dels;
	size_t n_dels;
	ice_field_ref *fields;
	size_t n_fields;
	colfs_options o;
	size_t **applying;    /* per data file: indexes into dels */
	size_t *n_applying;
	del_cache pos, eq, dv;
	ice_fill_fn fill;     /* a lacking field's value; NULL: NULL */
	void *fill_arg;
};

static bool is_dv(const ice_file *f)
{
	size_t l = f->path ? strlen(f->path) : 0;
	return f->content == 1 &&
	       (f->content_offset > 0 ||
		(l >= 7 && !strcmp(f->path + l - 7, ".puffin")));
}

static bool unpartitioned(const ice_file *f)
{
	return !f->partition || (json_is_object(f->partition) &&
				 json_object_size(f->partition) == 0);
}

static bool same_partition(const ice_file *a, const ice_file *b)
{
	if (a->spec_id != b->spec_id)
		return false;
	if (unpartitioned(a) || unpartitioned(b))
		return unpartitioned(a) && unpartitioned(b);
	return json_equal(a->partition, b->partition);
}

static bool same_path(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/* Does delete file x apply to data file d (without the rule that a
 * deletion vector replaces position delete files)? */
static bool applies(const ice_file *x, const ice_file *d)
{
	if (x->content == 1) {
		if (x->seq < d->seq || !same_partition(x, d))
			return false;
		if (is_dv(x))
			return same_path(x->referenced_data_file, d->path);
		return !x->referenced_data_file ||
		       same_path(x->referenced_data_file, d->path);
	}
	if (x->content == 2)
		return x->seq > d->seq &&
		       (unpartitioned(x) || same_partition(x, d));
	return false;
}

/* Sort keys for the index: a delete file by (spec, partition) text. */
typedef struct part_key {
	char *key;            /* "<spec id>\n<partition JSON, sorted keys>" */
	size_t idx;
} part_key;

static char *partition_key(const ice_file *f)
{
	char *pj = unpartitioned(f)
		? strdup("{}")
		: json_dumps(f->partition, JSON_COMPACT | JSON_SORT_KEYS |
						   JSON_ENCODE_ANY);
	if (!pj)
		return NULL;
	size_t n = strlen(pj) + 16;
	char *k = malloc(n);
	if (k)
		snprintf(k, n, "%" PRId32 "\n%s", f->spec_id, pj);
	free(pj);
	return k;
}

static int part_key_cmp(const void *a, const void *b)
{
	const part_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The list of data file i: candidates found by partition key (and the
 * global equality deletes, and the vectors naming it), then the rules. */
static colfs_status index_one(ice_deletes *d, size_t i, const part_key *pk,
			      size_t n_pk, const size_t *global,
			      size_t n_global, const part_key *dvk,
			      size_t n_dvk)
{
	const ice_file *f = &d->data[i];
	size_t cap = 0, n = 0;
	size_t *idx = NULL;
	bool has_dv = false;
	char *k = partition_key(f);

	if (!k)
		return COLFS_ENOMEM;
	/* first entry with this key */
	size_t lo = 0, hi = n_pk;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(pk[mid].key, k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t dlo = 0, dhi = n_dvk;
	while (f->path && dlo < dhi) {
		size_t mid = dlo + (dhi - dlo) / 2;
		if (strcmp(dvk[mid].key, f->path) < 0)
			dlo = mid + 1;
		else
			dhi = mid;
	}
	/* vectors first: whether one applies decides the position files */
	for (size_t j = dlo; f->path && j < n_dvk && !strcmp(dvk[j].key, f->path);
	     j++)
		if (applies(&d->dels[dvk[j].idx], f)) {
			if (!colfs_grow((void **)&idx, &cap, n + 1, sizeof *idx)) {
				free(idx);
				free(k);
				return COLFS_ENOMEM;
			}
			idx[n++] = dvk[j].idx;
			has_dv = true;
		}
	/* the position and equality deletes of its partition (an
	 * unpartitioned equality delete among them is taken from the global
	 * list instead), then the global equality deletes */
	for (size_t m = 0, j = lo; m < n_global + n_pk; m++) {
		size_t x;
		if (m < n_pk) {
			if (j >= n_pk || strcmp(pk[j].key, k)) {
				m = n_pk - 1;
				continue;
			}
			x = pk[j++].idx;
			if (d->dels[x].content == 2 && unpartitioned(&d->dels[x]))
				continue;
		} else {
			x = global[m - n_pk];
		}
		const ice_file *del = &d->dels[x];
		if (is_dv(del) || (has_dv && del->content == 1) ||
		    !applies(del, f))
			continue;
		if (!colfs_grow((void **)&idx, &cap, n + 1, sizeof *idx)) {
			free(idx);
			free(k);
			return COLFS_ENOMEM;
		}
		idx[n++] = x;
	}
	free(k);
	if (n)
		qsort(idx, n, sizeof *idx, size_cmp);
	d->applying[i] = idx;
	d->n_applying[i] = n;
	return COLFS_OK;
}

static void cache_init(del_cache *c, size_t n)
{
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->done, NULL);
	c->e = calloc(n ? n : 1, sizeof *c->e);
}

static void entry_clear(del_entry *e)
{
	for (size_t i = 0; i < e->n_paths; i++)
		free(e->paths[i]);
	free(e->paths);
	free(e->text);
	free(e->pairs);
	free(e->keys);
	free(e->rows);
	memset(e, 0, sizeof *e);
}

static void cache_free(del_cache *c, size_t n)
{
	for (size_t i = 0; c->e && i < n; i++)
		entry_clear(&c->e[i]);
	free(c->e);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->lock);
}

colfs_status ice_deletes_new(const ice_file *data, size_t n_data,
			     const ice_file *dels, size_t n_dels,
			     const ice_field_ref *fields, size_t n_fields,
			     const colfs_options *o, ice_deletes **out,
			     colfs_err *err)
{
	ice_deletes *d = calloc(1, sizeof *d);
	colfs_status st = COLFS_OK;
	part_key *pk = NULL, *dvk = NULL;
	size_t n_pk = 0, n_dvk = 0, n_global = 0;
	size_t *global = NULL;

	*out = NULL;
	if (!d)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "Iceberg deletes: out of memory");
	d->data = data;
	d->n_data = n_data;
	d->dels = dels;
	d->n_dels = n_dels;
	d->o = *o;
	/* the delete and data files are read for their values as text,
	 * every value as it is: the default null token, a damaged page an
	 * error, no size index written for them, no threads of their own */
	d->o.null_token = "\\N";
	d->o.csv_null = "";
	d->o.on_damage = COLFS_ON_DAMAGE_ERROR;
	d->o.size_index = "off";
	d->o.decode_threads = -1;
	d->o.mount_point = NULL;
	cache_init(&d->pos, n_dels);
	cache_init(&d->eq, n_dels);
	cache_init(&d->dv, n_dels);
	d->fields = calloc(n_fields ? n_fields : 1, sizeof *d->fields);
	d->applying = calloc(n_data ? n_data : 1, sizeof *d->applying);
	d->n_applying = calloc(n_data ? n_data : 1, sizeof *d->n_applying);
	pk = calloc(n_dels ? n_dels : 1, sizeof *pk);
	dvk = calloc(n_dels ? n_dels : 1, sizeof *dvk);
	global = calloc(n_dels ? n_dels : 1, sizeof *global);
	if (!d->fields || !d->applying || !d->n_applying || !pk || !dvk ||
	    !global || !d->pos.e || !d->eq.e || !d->dv.e) {
		st = COLFS_ENOMEM;
		goto done;
	}
	d->n_fields = n_fields;
	for (size_t i = 0; i < n_fields; i++) {
		d->fields[i].id = fields[i].id;
		d->fields[i].name = fields[i].name ? strdup(fields[i].name)
						   : NULL;
		if (fields[i].name && !d->fields[i].name) {
			st = COLFS_ENOMEM;
			goto done;
		}
	}
	for (size_t x = 0; x < n_dels; x++) {
		const ice_file *f = &dels[x];
		if (f->content == 2 && f->n_equality_ids == 0) {
			st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					"equality delete file %s (in %s) has no equality field ids",
					f->path ? f->path : "?",
					f->manifest ? f->manifest : "?");
			goto done;
		}
		if (is_dv(f)) {
			if (!f->referenced_data_file) {
				st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
						"deletion vector %s (in %s) names no referenced data file",
						f->path ? f->path : "?",
						f->manifest ? f->manifest : "?");
				goto done;
			}
			dvk[n_dvk].key = f->referenced_data_file;
			dvk[n_dvk++].idx = x;
			continue;
		}
		if (f->content == 2 && unpartitioned(f))
			global[n_global++] = x;
		if (f->content == 1 || f->content == 2) {
			pk[n_pk].key = partition_key(f);
			pk[n_pk].idx = x;
			if (!pk[n_pk++].key) {
				st = COLFS_ENOMEM;
				goto done;
			}
		}
	}
	qsort(pk, n_pk, sizeof *pk, part_key_cmp);
	qsort(dvk, n_dvk, sizeof *dvk, part_key_cmp);
	for (size_t i = 0; i < n_data && !st; i++)
		st = index_one(d, i, pk, n_pk, global, n_global, dvk, n_dvk);
done:
	for (size_t j = 0; j < n_pk; j++)
		free(pk[j].key);
	free(pk);
	free(dvk);
	free(global);
	if (st) {
		if (st == COLFS_ENOMEM)
			colfs_fail(err, st, COLFS_OFFSET_UNKNOWN,
				   "Iceberg deletes: out of memory");
		ice_deletes_free(d);
		return st;
	}
	*out = d;
	return COLFS_OK;
}

void ice_deletes_free(ice_deletes *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->applying && i < d->n_data; i++)
		free(d->applying[i]);
	free(d->applying);
	free(d->n_applying);
	for (size_t i = 0; d->fields && i < d->n_fields; i++)
		free((char *)d->fields[i].name);
	free(d->fields);
	cache_free(&d->pos, d->n_dels);
	cache_free(&d->eq, d->n_dels);
	cache_free(&d->dv, d->n_dels);
	free(d);
}

void ice_deletes_set_fill(ice_deletes *d, ice_fill_fn fill, void *arg)
{
	d->fill = fill;
	d->fill_arg = arg;
}

colfs_status ice_deletes_applying(ice_deletes *d, size_t i, size_t **idx,
				  size_t *n)
{
	*idx = NULL;
	*n = 0;
	if (i >= d->n_data)
		return COLFS_ENOENT;
	if (!d->n_applying[i])
		return COLFS_OK;
	*idx = malloc(d->n_applying[i] * sizeof **idx);
	if (!*idx)
		return COLFS_ENOMEM;
	memcpy(*idx, d->applying[i], d->n_applying[i] * sizeof **idx);
	*n = d->n_applying[i];
	return COLFS_OK;
}

/* ---- reading files ---------------------------------------------------- */

static const char *shown(const ice_file *f)
{
	return f->path ? f->path : f->local ? f->local : "?";
}

static const char *from(const ice_file *f)
{
	return f->manifest ? f->manifest : "its manifest";
}

/* A local file f (one its source kind can stat): there (else
 * COLFS_EIO), a regular file, and, for a delete file whose manifest gives
 * its size, of that size (else COLFS_ECORRUPT: not the file the manifest
 * lists). */
static colfs_status check_local(const ice_file *f, const char *what,
				colfs_err *err)
{
	colfs_source_stat_info sb;
	char why[128];

	colfs_status st = colfs_source_stat(f->local, NULL, &sb, why,
					    sizeof why);
	if (st == COLFS_EUNSUPPORTED)
		return COLFS_OK; /* an object: its open says */
	if (st != COLFS_OK)
		return colfs_fail(err, COLFS_EIO, COLFS_OFFSET_UNKNOWN,
				  "%s %s (listed in %s) is missing: %s", what,
				  shown(f), from(f), why);
	if (!sb.regular)
		return colfs_fail(err, COLFS_EIO, COLFS_OFFSET_UNKNOWN,
				  "%s %s (listed in %s) is not a regular file",
				  what, shown(f), from(f));
	if (f->content != 0 && f->size && sb.size != f->size)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "%s %s (listed in %s) has %lld bytes, its manifest says %llu: not the file it lists",
				  what, shown(f), from(f),
				  (long long)sb.size,
				  (unsigned long long)f->size);
	return COLFS_OK;
}

/* Open file f's tree; a file that is not there is COLFS_EIO, one that
 * opens to no columnar file COLFS_ECORRUPT, both naming it. */
static colfs_status open_tree(ice_deletes *d, const ice_file *f,
			      const char *what, colfs_tree **g, colfs_err *err)
{
	char why[512];

	*g = NULL;
	if (!f->local)
		return colfs_fail(err, COLFS_EIO, COLFS_OFFSET_UNKNOWN,
				  "%s %s (listed in %s) has no location to read",
				  what, shown(f), from(f));
	COLFS_TRY(check_local(f, what, err));
	colfs_status st = colfs_tree_open(f->local, &d->o, g, why, sizeof why);
	if (st)
		return colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOENT
					       ? COLFS_EIO : COLFS_ECORRUPT,
				  COLFS_OFFSET_UNKNOWN,
				  "%s %s (listed in %s) cannot be read: %s", what,
				  shown(f), from(f), why);
	return COLFS_OK;
}

/* The columns/ name of the top-level field with field id `id` in tree g
 * (its schema.json), else, when no field of the file has an id, of the
 * field named `name`.  NULL in *col: the file has no such field. */
static colfs_status find_column(colfs_tree *g, int64_t id, const char *name,
				char **col)
{
	colfs_buf b = COLFS_BUF_INIT;
	json_t *doc = NULL;
	bool any_id = false;
	const char *by_name = NULL;
	size_t i;
	json_t *c;

	*col = NULL;
	colfs_status st = colfs_tree_read_path(g, "schema.json", &b);
	if (st == COLFS_OK)
		st = colfs_buf_status(&b);
	if (st == COLFS_OK)
		doc = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
	colfs_buf_free(&b);
	if (st)
		return st;
	if (!doc)
		return COLFS_ECORRUPT;
	json_array_foreach(json_object_get(doc, "children"), i, c) {
		int64_t fid;
		const char *nm = json_string_value(json_object_get(c, "name"));
		if (ds_field_id(c, &fid)) {
			any_id = true;
			if (fid == id && nm) {
				*col = colfs_name_escape(nm);
				break;
			}
		}
		if (!by_name && nm && name && !strcmp(nm, name))
			by_name = nm;
	}
	if (!*col && !any_id && by_name)
		*col = colfs_name_escape(by_name);
	json_decref(doc);
	return COLFS_OK;
}

/* The lines of columns/<col> of tree g: *text holds them, each
 * NUL-terminated, *lines points at each. */
static colfs_status read_lines(colfs_tree *g, const char *col, char **text,
			       char ***lines, size_t *n)
{
	colfs_buf b = COLFS_BUF_INIT;
	size_t plen = strlen(col) + sizeof "columns/";
	char *path = malloc(plen);

	*text = NULL;
	*lines = NULL;
	*n = 0;
	if (!path)
		return COLFS_ENOMEM;
	snprintf(path, plen, "columns/%s", col);
	colfs_status st = colfs_tree_read_path(g, path, &b);
	free(path);
	if (st == COLFS_OK)
		st = colfs_buf_status(&b);
	if (st == COLFS_OK && b.len && b.data[b.len - 1] != '\n')
		st = COLFS_ECORRUPT;
	size_t count = 0;
	for (size_t i = 0; st == COLFS_OK && i < b.len; i++)
		count += b.data[i] == '\n';
	char **l = NULL;
	if (st == COLFS_OK && count &&
	    !(l = malloc(count * sizeof *l)))
		st = COLFS_ENOMEM;
	if (st) {
		colfs_buf_free(&b);
		return st;
	}
	size_t k = 0, start = 0;
	for (size_t i = 0; i < b.len; i++)
		if (b.data[i] == '\n') {
			b.data[i] = '\0';
			l[k++] = b.data + start;
			start = i + 1;
		}
	size_t len;
	*text = colfs_buf_take(&b, &len);
	*lines = l;
	*n = count;
	return COLFS_OK;
}

/* A string value's text (docs/values.md, "Strings") to its bytes, in
 * place: \\ \n \r \t \xHH.  False when it is not such text. */
static bool unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		switch (*r) {
		case '\\': *w++ = '\\'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'x': {
			unsigned v = 0;
			for (int k = 1; k <= 2; k++) {
				char c = r[k];
				if (c >= '0' && c <= '9')
					v = v * 16 + (unsigned)(c - '0');
				else if (c >= 'A' && c <= 'F')
					v = v * 16 + (unsigned)(c - 'A' + 10);
				else if (c >= 'a' && c <= 'f')
					v = v * 16 + (unsigned)(c - 'a' + 10);
				else
					return false;
			}
			*w++ = (char)v;
			r += 2;
			break;
		}
		default:
			return false;
		}
	}
	*w = '\0';
	return true;
}

static int pair_cmp(const void *a, const void *b)
{
	const pos_pair *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Lines of a view read piece by piece (1 MiB at a time): a position
 * delete file's columns are read side by side without holding either
 * whole. */
typedef struct line_reader {
	colfs_handle *h;
	uint64_t at;          /* the view's next byte to read */
	char *buf;
	size_t len, pos, cap;
	bool end;
	uint64_t max;         /* the longest line taken (max_alloc) */
} line_reader;

static colfs_status line_open(colfs_tree *g, const char *col, uint64_t max,
			      line_reader *r)
{
	size_t plen = strlen(col) + sizeof "columns/";
	char *path = malloc(plen);
	colfs_node *n;

	memset(r, 0, sizeof *r);
	r->max = max;
	if (!path)
		return COLFS_ENOMEM;
	snprintf(path, plen, "columns/%s", col);
	colfs_status st = colfs_tree_resolve(g, path, &n);
	free(path);
	if (st == COLFS_OK)
		st = colfs_node_open(g, n, &r->h);
	return st;
}

static void line_close(line_reader *r)
{
	if (r->h)
		colfs_handle_close(r->h);
	free(r->buf);
}

/* The next line (NUL-terminated in place, valid until the next call), or
 * NULL in *line at the end.  A last line without its newline is
 * COLFS_ECORRUPT. */
static colfs_status line_next(line_reader *r, char **line)
{
	*line = NULL;
	for (;;) {
		char *nl = r->pos < r->len
			? memchr(r->buf + r->pos, '\n', r->len - r->pos) : NULL;
		if (nl) {
			*nl = '\0';
			*line = r->buf + r->pos;
			r->pos = (size_t)(nl - r->buf) + 1;
			return COLFS_OK;
		}
		if (r->end)
			return r->pos < r->len ? COLFS_ECORRUPT : COLFS_OK;
		/* keep the part line, read the next piece after it */
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		}
		if (r->cap - r->len < (1u << 20)) {
			if (r->len > r->max)
				return COLFS_EOVERFLOW;
			size_t cap = r->len + (1u << 20);
			char *b = realloc(r->buf, cap);
			if (!b)
				return COLFS_ENOMEM;
			r->buf = b;
			r->cap = cap;
		}
		size_t got = 0;
		COLFS_TRY(colfs_handle_read(r->h, r->at, r->cap - r->len,
					    r->buf + r->len, &got));
		r->at += got;
		r->len += got;
		r->end = got == 0;
	}
}

/* Delete file x opened as Avro when its manifest says its format is
 * AVRO (the spec allows Avro delete files): *av reads its fields `ids`
 * row by row (ice_avrodel.h); NULL in *av for another format (read it as
 * a tree).  A field it lacks is COLFS_ENOENT, one of a nested type
 * COLFS_EUNSUPPORTED, *missing its id, for the caller to name; any other
 * failure (a file that is no Avro container among them) is named here. */
static colfs_status open_avro(ice_deletes *d, const ice_file *x,
			      const char *what, const int32_t *ids,
			      const char *const *names, size_t n,
			      ice_avrodel **av, int32_t *missing,
			      colfs_err *err)
{
	colfs_err e2 = {0};

	*av = NULL;
	if (!x->avro || !x->local)
		return COLFS_OK; /* a tree; open_tree names one of no location */
	COLFS_TRY(check_local(x, what, err));
	colfs_status st = ice_avrodel_open(x->local, &d->o, ids, names, n, av,
					   missing, &e2);
	if (st == COLFS_ENOENT || st == COLFS_EUNSUPPORTED || !st)
		return st;
	char off[64];
	colfs_offset_text(e2.offset, off, sizeof off);
	return colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOMEM
				       ? st : COLFS_ECORRUPT,
			  e2.offset, "%s %s (listed in %s): %s (%s)", what,
			  shown(x), from(x), e2.msg, off);
}

/* The next row of Avro delete file x's two fields (NULL, NULL at its
 * end); a failure named. */
static colfs_status avro_row(ice_avrodel *av, const ice_file *x,
			     const char *what, char **a, char **b,
			     colfs_err *err)
{
	char **tx;
	bool end;
	colfs_err e2 = {0};
	colfs_status st = ice_avrodel_next(av, &tx, &end, &e2);

	*a = *b = NULL;
	if (st) {
		char off[64];
		colfs_offset_text(e2.offset, off, sizeof off);
		return colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOMEM
					       ? st : COLFS_ECORRUPT,
				  e2.offset, "%s %s (listed in %s): %s (%s)",
				  what, shown(x), from(x), e2.msg, off);
	}
	if (!end) {
		*a = tx[0];
		*b = tx[1];
	}
	return COLFS_OK;
}

/* Read position delete file x into e: its file_path and pos columns side
 * by side, each path kept once per run of equal paths (the spec has the
 * rows sorted by path: one copy of each). */
static colfs_status load_pos(ice_deletes *d, const ice_file *x, del_entry *e,
			     colfs_err *err)
{
	static const int32_t ids[2] = {FIELD_ID_FILE_PATH, FIELD_ID_POS};
	static const char *const names[2] = {"file_path", "pos"};
	colfs_tree *g = NULL;
	ice_avrodel *av = NULL;
	char *cp = NULL, *cn = NULL;
	line_reader rp = {0}, rn = {0};
	size_t cap_pairs = 0, cap_paths = 0, r = 0;
	bool named = false;   /* err says why already */
	int32_t missing = 0;

	colfs_status st = open_avro(d, x, "position delete file", ids, names, 2,
				    &av, &missing, err);
	if (st == COLFS_ENOENT || st == COLFS_EUNSUPPORTED) {
		st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				"position delete file %s (listed in %s) has no %s column (field id %" PRId32 ")%s",
				shown(x), from(x),
				missing == FIELD_ID_POS ? "pos" : "file_path",
				missing, st == COLFS_ENOENT ? ""
					 : " of a primitive type");
		goto out;
	}
	if (st)
		return st;
	if (!av) {
		COLFS_TRY(open_tree(d, x, "position delete file", &g, err));
		st = find_column(g, FIELD_ID_FILE_PATH, "file_path", &cp);
		if (st == COLFS_OK)
			st = find_column(g, FIELD_ID_POS, "pos", &cn);
	}
	if (st == COLFS_OK && !av && (!cp || !cn)) {
		st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				"position delete file %s (listed in %s) has no %s column (field id %d)",
				shown(x), from(x), cp ? "pos" : "file_path",
				cp ? FIELD_ID_POS : FIELD_ID_FILE_PATH);
		goto out;
	}
	if (st == COLFS_OK && !av)
		st = line_open(g, cp, d->o.max_alloc, &rp);
	if (st == COLFS_OK && !av)
		st = line_open(g, cn, d->o.max_alloc, &rn);
	for (; st == COLFS_OK; r++) {
		char *lp = NULL, *ln = NULL, *end;
		if (av) {
			st = avro_row(av, x, "position delete file", &lp, &ln,
				      err);
			named = st != COLFS_OK;
		} else {
			st = line_next(&rp, &lp);
			if (st == COLFS_OK)
				st = line_next(&rn, &ln);
		}
		if (st)
			break;
		if (!lp || !ln) {
			named = lp || ln;
			if (lp || ln)
				st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
						"position delete file %s (listed in %s): more %s than %s",
						shown(x), from(x),
						lp ? "file paths" : "positions",
						lp ? "positions" : "file paths");
			break;
		}
		errno = 0;
		long long p = strtoll(ln, &end, 10);
		if (!strcmp(lp, "\\N") || !strcmp(ln, "\\N") || !*ln || *end ||
		    errno || p < 0 || !unescape(lp)) {
			named = true;
			st = colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
					"position delete file %s (listed in %s): row %zu is no file path and position",
					shown(x), from(x), r);
			break;
		}
		if (!e->n_paths || strcmp(e->paths[e->n_paths - 1], lp)) {
			char *c = strdup(lp);
			if (!c || !colfs_grow((void **)&e->paths, &cap_paths,
					      e->n_paths + 1, sizeof *e->paths)) {
				free(c);
				st = COLFS_ENOMEM;
				break;
			}
			e->paths[e->n_paths++] = c;
		}
		if (!colfs_grow((void **)&e->pairs, &cap_pairs, e->n_pairs + 1,
				sizeof *e->pairs)) {
			st = COLFS_ENOMEM;
			break;
		}
		e->pairs[e->n_pairs].path = e->paths[e->n_paths - 1];
		e->pairs[e->n_pairs++].pos = (uint64_t)p;
	}
	if (st == COLFS_ENOMEM)
		st = colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				"position delete file %s: out of memory",
				shown(x));
	else if (st && !named)
		st = colfs_fail(err, st == COLFS_EIO ? COLFS_EIO : COLFS_ECORRUPT,
				COLFS_OFFSET_UNKNOWN,
				"position delete file %s (listed in %s): its columns cannot be read (%s)",
				shown(x), from(x), colfs_status_name(st));
	if (st == COLFS_OK && e->n_pairs)
		qsort(e->pairs, e->n_pairs, sizeof *e->pairs, pair_cmp);
out:
	line_close(&rp);
	line_close(&rn);
	free(cp);
	free(cn);
	colfs_tree_destroy(g);
	ice_avrodel_close(av);
	return st;
}

static const char *field_name(const ice_deletes *d, int32_t id)
{
	for (size_t i = 0; i < d->n_fields; i++)
		if (d->fields[i].id == id)
			return d->fields[i].name;
	return NULL;
}

/* Read an equality delete file's columns `ids` (tree g), one key per
 * row: the values' text joined by '\n' (a value's text never holds
 * one).  Every field must be there (else COLFS_ENOENT, its id in
 * *bad_id), every column of the same length. */
static colfs_status read_keys(ice_deletes *d, colfs_tree *g,
			      const int32_t *ids, size_t n_ids, char **text,
			      char ***keys, size_t *n, int32_t *bad_id)
{
	char **texts = calloc(n_ids, sizeof *texts);
	char ***cols = calloc(n_ids, sizeof *cols);
	size_t count = 0;
	colfs_status st = texts && cols ? COLFS_OK : COLFS_ENOMEM;

	*text = NULL;
	*keys = NULL;
	*n = 0;
	for (size_t k = 0; k < n_ids && st == COLFS_OK; k++) {
		char *col;
		size_t nl;
		st = find_column(g, ids[k], field_name(d, ids[k]), &col);
		if (st)
			break;
		if (!col) {
			*bad_id = ids[k];
			st = COLFS_ENOENT;
			break;
		}
		st = read_lines(g, col, &texts[k], &cols[k], &nl);
		free(col);
		if (st)
			break;
		if (k && nl != count) {
			*bad_id = ids[k];
			st = COLFS_ECORRUPT;
			break;
		}
		count = nl;
	}
	/* the keys' text: each row's values and separators */
	size_t total = 0;
	for (size_t r = 0; st == COLFS_OK && r < count; r++)
		for (size_t k = 0; k < n_ids; k++)
			total += strlen(cols[k][r]) + 1;
	char *buf = NULL;
	char **kv = NULL;
	if (st == COLFS_OK && count) {
		buf = malloc(total);
		kv = malloc(count * sizeof *kv);
		if (!buf || !kv)
			st = COLFS_ENOMEM;
	}
	size_t at = 0;
	for (size_t r = 0; st == COLFS_OK && r < count; r++) {
		kv[r] = buf + at;
		for (size_t k = 0; k < n_ids; k++) {
			size_t l = strlen(cols[k][r]);
			memcpy(buf + at, cols[k][r], l);
			at += l;
			buf[at++] = k + 1 < n_ids ? '\n' : '\0';
		}
	}
	for (size_t k = 0; texts && cols && k < n_ids; k++) {
		free(texts[k]);
		free(cols[k]);
	}
	free(texts);
	free(cols);
	if (st) {
		free(buf);
		free(kv);
		return st;
	}
	*text = buf;
	*keys = kv;
	*n = count;
	return COLFS_OK;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Equality delete file x read as Avro when it is an Avro container:
 * each row's key (its equality fields' text joined by '\n', as
 * read_keys makes them) into e, *is_avro true.  COLFS_OK with *is_avro
 * false: the file is no Avro.  A field it lacks is
 * COLFS_ENOENT, one of a nested type COLFS_EUNSUPPORTED, its id in
 * *bad; other failures are named. */
static colfs_status avro_keys(ice_deletes *d, const ice_file *x,
			      del_entry *e, bool *is_avro, int32_t *bad,
			      colfs_err *err)
{
	ice_avrodel *av = NULL;
	size_t n_ids = x->n_equality_ids;
	const char **names = calloc(n_ids ? n_ids : 1, sizeof *names);
	colfs_buf text = COLFS_BUF_INIT;
	size_t *at = NULL, cap = 0, n = 0;
	colfs_status st;

	if (!names)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "equality delete file %s: out of memory",
				  shown(x));
	for (size_t k = 0; k < n_ids; k++)
		names[k] = field_name(d, x->equality_ids[k]);
	st = open_avro(d, x, "equality delete file", x->equality_ids, names,
		       n_ids, &av, bad, err);
	free(names);
	*is_avro = av != NULL;
	if (st || !av)
		return st;
	for (;;) {
		char **tx;
		bool end;
		colfs_err e2 = {0};
		st = ice_avrodel_next(av, &tx, &end, &e2);
		if (st) {
			char off[64];
			colfs_offset_text(e2.offset, off, sizeof off);
			st = colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOMEM
						     ? st : COLFS_ECORRUPT,
					e2.offset, "equality delete file %s (listed in %s): %s (%s)",
					shown(x), from(x), e2.msg, off);
			break;
		}
		if (end)
			break;
		if (!colfs_grow((void **)&at, &cap, n + 1, sizeof *at)) {
			st = COLFS_ENOMEM;
			break;
		}
		at[n++] = text.len;
		for (size_t k = 0; k < n_ids; k++) {
			if (k)
				colfs_buf_putc(&text, '\n');
			colfs_buf_puts(&text, tx[k]);
		}
		colfs_buf_putc(&text, '\0');
		if ((st = colfs_buf_status(&text)))
			break;
		if (text.len > d->o.max_alloc) {
			st = colfs_fail(err, COLFS_EOVERFLOW, COLFS_OFFSET_UNKNOWN,
					"equality delete file %s (listed in %s): its keys pass max_alloc",
					shown(x), from(x));
			break;
		}
	}
	ice_avrodel_close(av);
	char **keys = st || !n ? NULL : malloc(n * sizeof *keys);
	if (!st && n && !keys)
		st = COLFS_ENOMEM;
	if (st) {
		free(at);
		colfs_buf_free(&text);
		if (st == COLFS_ENOMEM)
			colfs_fail(err, st, COLFS_OFFSET_UNKNOWN,
				   "equality delete file %s: out of memory",
				   shown(x));
		return st;
	}
	size_t len;
	e->text = colfs_buf_take(&text, &len);
	for (size_t r = 0; r < n; r++)
		keys[r] = e->text + at[r];
	free(at);
	e->keys = keys;
	e->n_keys = n;
	return COLFS_OK;
}

/* Read equality delete file x into e. */
static colfs_status load_eq(ice_deletes *d, const ice_file *x, del_entry *e,
			    colfs_err *err)
{
	colfs_tree *g;
	bool avro = false;
	int32_t bad = 0;
	colfs_status st;

	st = avro_keys(d, x, e, &avro, &bad, err);
	if (st == COLFS_EUNSUPPORTED)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "equality delete file %s (listed in %s): its column of equality field id %" PRId32 " is of no primitive type",
				  shown(x), from(x), bad);
	if (st != COLFS_ENOENT && (st || avro)) {
		if (st)
			return st;
		if (e->n_keys)
			qsort(e->keys, e->n_keys, sizeof *e->keys, str_cmp);
		return COLFS_OK;
	}
	if (st == COLFS_OK) {
		COLFS_TRY(open_tree(d, x, "equality delete file", &g, err));
		st = read_keys(d, g, x->equality_ids, x->n_equality_ids,
			       &e->text, &e->keys, &e->n_keys, &bad);
		colfs_tree_destroy(g);
	}
	if (st == COLFS_ENOENT || (st == COLFS_ECORRUPT && bad))
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "equality delete file %s (listed in %s) %s field id %" PRId32,
				  shown(x), from(x),
				  st == COLFS_ENOENT ? "has no column of its equality"
						     : "has a column of another row count:",
				  bad);
	if (st)
		return colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOMEM
					       ? st : COLFS_ECORRUPT,
				  COLFS_OFFSET_UNKNOWN,
				  "equality delete file %s (listed in %s): its columns cannot be read (%s)",
				  shown(x), from(x), colfs_status_name(st));
	if (e->n_keys)
		qsort(e->keys, e->n_keys, sizeof *e->keys, str_cmp);
	return COLFS_OK;
}

/* Read deletion vector x (for data file f) into e. */
static colfs_status load_dv(ice_deletes *d, const ice_file *x,
			    const ice_file *f, del_entry *e, colfs_err *err)
{
	colfs_source *src;
	json_t *footer = NULL;
	char why[512];

	if (!x->local)
		return colfs_fail(err, COLFS_EIO, COLFS_OFFSET_UNKNOWN,
				  "%s %s (listed in %s) has no location to read",
				  "deletion vector file", shown(x), from(x));
	COLFS_TRY(check_local(x, "deletion vector file", err));
	colfs_status st = colfs_source_open(x->local, &d->o, &src, why,
					    sizeof why);
	if (st)
		return colfs_fail(err, COLFS_EIO, COLFS_OFFSET_UNKNOWN,
				  "deletion vector file %s (listed in %s) cannot be read: %s",
				  shown(x), from(x), why);
	colfs_err e2 = {0};
	uint64_t max_rows = f->record_count >= 0 ? (uint64_t)f->record_count
						 : d->o.max_alloc / 8;
	st = ice_puffin_footer(src, d->o.max_alloc, &footer, &e2);
	if (st == COLFS_OK)
		st = ice_puffin_dv(src, footer, f->path, x->content_offset,
				   x->content_size, max_rows, d->o.max_alloc,
				   &e->rows, &e->n_rows, &e2);
	json_decref(footer);
	colfs_source_destroy(src);
	if (st) {
		char off[64];
		colfs_offset_text(e2.offset, off, sizeof off);
		return colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOMEM
					       ? st : COLFS_ECORRUPT,
				  e2.offset,
				  "deletion vector file %s: %s (%s; listed in %s)",
				  shown(x), e2.msg, off, from(x));
	}
	return COLFS_OK;
}

/* The entry of delete file x in cache c, read when not yet: by one
 * thread, with no lock held; another asking meanwhile waits for it (and
 * reads it itself when that failed). */
static colfs_status get_entry(ice_deletes *d, del_cache *c, size_t x,
			      const ice_file *f, const del_entry **out,
			      colfs_err *err)
{
	del_entry fresh = {0};
	colfs_status st;

	pthread_mutex_lock(&c->lock);
	while (c->e[x].loading)
		pthread_cond_wait(&c->done, &c->lock);
	if (c->e[x].ready) {
		pthread_mutex_unlock(&c->lock);
		*out = &c->e[x];
		return COLFS_OK;
	}
	c->e[x].loading = true;
	pthread_mutex_unlock(&c->lock);
	const ice_file *del = &d->dels[x];
	if (c == &d->dv)
		st = load_dv(d, del, f, &fresh, err);
	else if (c == &d->pos)
		st = load_pos(d, del, &fresh, err);
	else
		st = load_eq(d, del, &fresh, err);
	pthread_mutex_lock(&c->lock);
	if (st == COLFS_OK) {
		fresh.ready = true;
		c->e[x] = fresh;
	} else {
		entry_clear(&fresh);
		c->e[x].loading = false;
	}
	pthread_cond_broadcast(&c->done);
	pthread_mutex_unlock(&c->lock);
	if (st == COLFS_OK)
		*out = &c->e[x];
	return st;
}

typedef struct row_set {
	uint64_t *v;
	size_t n, cap;
} row_set;

static bool row_add(row_set *s, uint64_t r)
{
	if (!colfs_grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v))
		return false;
	s->v[s->n++] = r;
	return true;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static bool same_ids(const ice_file *a, const ice_file *b)
{
	return a->n_equality_ids == b->n_equality_ids &&
	       !memcmp(a->equality_ids, b->equality_ids,
		       a->n_equality_ids * sizeof *a->equality_ids);
}

/* The rows of data file i (f) that the equality delete files `eqs` (all
 * of the same ids) remove: its equality columns read side by side, piece
 * by piece, each row's key looked up in each file's sorted keys.  A
 * field the data file lacks (written before the field was added) reads
 * as the caller's fill (ice_deletes_set_fill), else NULL; when it lacks
 * them all, its rows are its record count. */
static colfs_status eq_rows(ice_deletes *d, size_t i, colfs_tree **g,
			    const size_t *eqs, size_t n_eqs, row_set *s,
			    colfs_err *err)
{
	const ice_file *f = &d->data[i];
	const ice_file *first = &d->dels[eqs[0]];
	size_t n_ids = first->n_equality_ids;
	const del_entry **es = calloc(n_eqs, sizeof *es);
	line_reader *rd = calloc(n_ids, sizeof *rd);
	char **fills = calloc(n_ids, sizeof *fills);
	bool *have = calloc(n_ids, sizeof *have);
	colfs_buf key = COLFS_BUF_INIT;
	int32_t bad = 0;
	bool any = false;
	size_t n_have = 0;
	colfs_status st = es && rd && fills && have ? COLFS_OK : COLFS_ENOMEM;

	for (size_t k = 0; k < n_eqs && st == COLFS_OK; k++)
		st = get_entry(d, &d->eq, eqs[k], f, &es[k], err);
	if (st == COLFS_OK && !*g)
		st = open_tree(d, f, "data file", g, err);
	if (st) {
		free(es);
		free(rd);
		free(fills);
		free(have);
		return st == COLFS_ENOMEM
			? colfs_fail(err, st, COLFS_OFFSET_UNKNOWN,
				     "Iceberg deletes of %s: out of memory",
				     shown(f))
			: st;
	}
	for (size_t k = 0; k < n_ids && st == COLFS_OK; k++) {
		int32_t id = first->equality_ids[k];
		char *col = NULL;
		bad = id;
		st = find_column(*g, id, field_name(d, id), &col);
		if (st == COLFS_OK && col) {
			st = line_open(*g, col, d->o.max_alloc, &rd[k]);
			have[k] = any = true;
			n_have++;
		} else if (st == COLFS_OK && d->fill) {
			st = d->fill(d->fill_arg, i, id, &fills[k]);
		}
		free(col);
	}
	if (st == COLFS_OK && !any && f->record_count < 0)
		st = COLFS_ENOENT;
	for (uint64_t r = 0; st == COLFS_OK; r++) {
		size_t ended = 0;
		if (!any && r >= (uint64_t)f->record_count)
			break;
		key.len = 0;
		for (size_t k = 0; k < n_ids && st == COLFS_OK; k++) {
			const char *v = fills[k] ? fills[k] : "\\N";
			if (have[k]) {
				char *line;
				st = line_next(&rd[k], &line);
				if (st)
					bad = first->equality_ids[k];
				if (!line) {
					ended++;
					continue;
				}
				v = line;
			}
			if (k)
				colfs_buf_putc(&key, '\n');
			colfs_buf_puts(&key, v);
		}
		if (st)
			break;
		if (ended) {
			/* every column ends on the same row */
			if (ended != n_have)
				st = COLFS_ECORRUPT;
			break;
		}
		colfs_buf_putc(&key, '\0');
		if ((st = colfs_buf_status(&key)))
			break;
		const char *kp = key.data;
		for (size_t k = 0; k < n_eqs; k++)
			if (es[k]->n_keys &&
			    bsearch(&kp, es[k]->keys, es[k]->n_keys,
				    sizeof *es[k]->keys, str_cmp)) {
				if (!row_add(s, r))
					st = COLFS_ENOMEM;
				break;
			}
	}
	for (size_t k = 0; rd && k < n_ids; k++) {
		line_close(&rd[k]);
		if (fills)
			free(fills[k]);
	}
	colfs_buf_free(&key);
	free(es);
	free(rd);
	free(fills);
	free(have);
	if (st)
		return colfs_fail(err, st == COLFS_EIO || st == COLFS_ENOMEM
					       ? st : COLFS_ECORRUPT,
				  COLFS_OFFSET_UNKNOWN,
				  "data file %s (listed in %s): its equality columns cannot be read (%s, field id %" PRId32 ")",
				  shown(f), from(f), colfs_status_name(st), bad);
	return COLFS_OK;
}

colfs_status ice_deletes_rows(ice_deletes *d, size_t i, uint64_t **rows,
			      size_t *n, colfs_err *err)
{
	row_set s = {0};
	colfs_status st = COLFS_OK;
	colfs_tree *g = NULL;

	*rows = NULL;
	*n = 0;
	if (i >= d->n_data)
		return colfs_fail(err, COLFS_ENOENT, COLFS_OFFSET_UNKNOWN,
				  "Iceberg deletes: no data file %zu", i);
	const ice_file *f = &d->data[i];
	const size_t *ap = d->applying[i];
	size_t na = d->n_applying[i];
	bool *done = na ? calloc(na, sizeof *done) : NULL;
	if (na && !done)
		st = COLFS_ENOMEM;
	for (size_t k = 0; k < na && st == COLFS_OK; k++) {
		const ice_file *x = &d->dels[ap[k]];
		const del_entry *e;
		if (done[k])
			continue;
		if (is_dv(x)) {
			st = get_entry(d, &d->dv, ap[k], f, &e, err);
			for (size_t r = 0; st == COLFS_OK && r < e->n_rows; r++)
				if (!row_add(&s, e->rows[r]))
					st = COLFS_ENOMEM;
		} else if (x->content == 1) {
			st = get_entry(d, &d->pos, ap[k], f, &e, err);
			if (st || !e->n_pairs || !f->path)
				continue;
			pos_pair key = {.path = f->path, .pos = 0};
			size_t lo = 0, hi = e->n_pairs;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (pair_cmp(&e->pairs[mid], &key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (size_t r = lo; r < e->n_pairs && st == COLFS_OK &&
					    !strcmp(e->pairs[r].path, f->path);
			     r++)
				if (!row_add(&s, e->pairs[r].pos))
					st = COLFS_ENOMEM;
		} else {
			/* every equality delete file of the same ids at once:
			 * the data file's columns are read once for them */
			size_t *group = malloc(na * sizeof *group);
			size_t ng = 0;
			if (!group) {
				st = COLFS_ENOMEM;
				break;
			}
			for (size_t m = k; m < na; m++)
				if (!done[m] && d->dels[ap[m]].content == 2 &&
				    same_ids(&d->dels[ap[m]], x)) {
					group[ng++] = ap[m];
					done[m] = true;
				}
			st = eq_rows(d, i, &g, group, ng, &s, err);
			free(group);
		}
	}
	free(done);
	if (g)
		colfs_tree_destroy(g);
	if (st == COLFS_OK && s.n) {
		qsort(s.v, s.n, sizeof *s.v, u64_cmp);
		size_t w = 0;
		for (size_t r = 0; r < s.n; r++) {
			/* a position past the file's rows deletes nothing */
			if (f->record_count >= 0 &&
			    s.v[r] >= (uint64_t)f->record_count)
				break;
			if (w == 0 || s.v[w - 1] != s.v[r])
				s.v[w++] = s.v[r];
		}
		s.n = w;
	}
	if (st) {
		free(s.v);
		if (st == COLFS_ENOMEM)
			colfs_fail(err, st, COLFS_OFFSET_UNKNOWN,
				   "Iceberg deletes of %s: out of memory",
				   shown(f));
		return st;
	}
	if (!s.n) {
		free(s.v);
		s.v = NULL;
	}
	*rows = s.v;
	*n = s.n;
	return COLFS_OK;
}

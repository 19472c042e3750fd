/* colfs: a Delta Lake table's snapshot from its `_delta_log/`, and
 * the `delta/` directory of the dataset tree.
 *
 * The log (delta-io/delta PROTOCOL.md): commits NNNNNNNNNNNNNNNNNNNN.json
 * (one action per line), checkpoints that hold the whole state at a
 * version (classic N.checkpoint.parquet, multi-part
 * N.checkpoint.PPPPPPPPPP.TTTTTTTTTT.parquet, V2 N.checkpoint.UUID.json or
 * .parquet whose `sidecar` actions name Parquet files in
 * `_delta_log/_sidecars/`) and `_last_checkpoint`, a hint naming the
 * newest checkpoint.  A snapshot at version V is the newest complete
 * checkpoint at or before V, then the commits after it up to V: add and
 * remove actions reconciled by (path, deletion vector id), the last one
 * winning; the last protocol and metaData actions win.
 *
 * Checkpoint Parquet files are read with colfs itself: each opens as a
 * colfs tree and its `rows.jsonl` gives one JSON object per row, the
 * actions as the commits write them.  Every number and string of the log
 * is checked before it is used.
 */
#include "delta.h"
#include "delta_int.h"
#include "../core/hex.h"
#include "../core/options.h"
#include "../core/source.h"
#include "../core/sourcekind.h"
#include "../core/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reader features whose data colfs reads right: column mapping (physical
 * names given to the dataset tree), deletion vectors (rows given), V2
 * checkpoints, timestamps without time zone (plain Parquet timestamps),
 * and the vacuum check (a writer concern). */
static const char *const supported_reader_features[] = {
	"columnMapping", "deletionVectors", "v2Checkpoint", "timestampNtz",
	"vacuumProtocolCheck", NULL};


static colfs_status nomem(colfs_err *err)
{
	return colfs_fail(err, COLFS_ENOMEM, 0, "Delta log: out of memory");
}

bool colfs_delta_is_table(const char *dir)
{
	char *p, why[128];
	colfs_source_stat_info si;
	bool yes;

	if (asprintf(&p, "%s/_delta_log", dir) < 0)
		return false;
	yes = colfs_source_stat(p, NULL, &si, why, sizeof why) == COLFS_OK &&
	      si.dir;
	free(p);
	return yes;
}

/* ------------------------------------------------------------------------
 * The listing of _delta_log/
 */
static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static int64_t num(const char *s, size_t n)
{
	int64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* What a file name of _delta_log/ is; false for other files (.crc,
 * _last_checkpoint, compacted logs, temporary files). */
static bool log_name_parse(const char *name, log_file *f)
{
	size_t len = strlen(name);

	/* 20 digits; a leading 0 keeps the version under 10^19, in an
	 * int64_t */
	if (len < 21 || !digits(name, 20) || name[20] != '.' || name[0] != '0')
		return false;
	f->version = num(name, 20);
	const char *rest = name + 21;
	if (strcmp(rest, "json") == 0) {
		f->kind = LOG_COMMIT;
		return true;
	}
	if (strncmp(rest, "checkpoint.", 11) != 0)
		return false;
	rest += 11;
	if (strcmp(rest, "parquet") == 0) {
		f->kind = LOG_CLASSIC;
		return true;
	}
	size_t rl = strlen(rest);
	if (rl == 29 && digits(rest, 10) && rest[10] == '.' &&
	    digits(rest + 11, 10) && strcmp(rest + 21, ".parquet") == 0) {
		int64_t part = num(rest, 10), parts = num(rest + 11, 10);
		if (part < 1 || parts < 1 || part > parts || parts > 100000)
			return false;
		f->kind = LOG_MULTI;
		f->part = (uint32_t)part;
		f->parts = (uint32_t)parts;
		return true;
	}
	const char *dot = strchr(rest, '.');
	if (dot && dot > rest &&
	    (strcmp(dot, ".json") == 0 || strcmp(dot, ".parquet") == 0)) {
		f->kind = LOG_V2;
		return true;
	}
	return false;
}

static int log_file_cmp(const void *a, const void *b)
{
	const log_file *x = a, *y = b;
	if (x->version != y->version)
		return x->version < y->version ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->parts != y->parts)
		return x->parts < y->parts ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Add the log entry `name` (a file of _delta_log/) when it is one. */
static colfs_status log_add(delta_state *s, const char *name, size_t *cap,
			    colfs_err *err)
{
	log_file f = {0};
	if (strcmp(name, "_last_checkpoint") == 0)
		s->has_last_checkpoint = true;
	if (!log_name_parse(name, &f))
		return COLFS_OK;
	if (s->n_log == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		log_file *n = realloc(s->log, nc * sizeof *n);
		if (!n)
			return nomem(err);
		s->log = n;
		*cap = nc;
	}
	f.name = strdup(name);
	if (!f.name)
		return nomem(err);
	s->log[s->n_log++] = f;
	return COLFS_OK;
}

/* _delta_log/'s files: the objects its source kind lists under
 * ROOT/_delta_log/ (a local folder walked by the core, a prefix's
 * ListObjectsV2, formats/remote), those of its folders (the sidecars')
 * left out. */
static colfs_status log_list(delta_state *s, colfs_err *err)
{
	char *url, why[512] = "";
	colfs_source_entry *e = NULL;
	size_t n = 0, cap = 0;
	if (asprintf(&url, "%s/_delta_log/", s->root) < 0)
		return nomem(err);
	colfs_status st = colfs_source_list(url, s->opts, &e, &n, why,
					    sizeof why);
	free(url);
	if (st != COLFS_OK)
		return colfs_fail(err, st, 0, "cannot list _delta_log: %s", why);
	for (size_t i = 0; st == COLFS_OK && i < n; i++)
		if (!strchr(e[i].key, '/'))
			st = log_add(s, e[i].key, &cap, err);
	colfs_source_entries_free(e, n);
	if (st == COLFS_OK && s->n_log)
		qsort(s->log, s->n_log, sizeof *s->log, log_file_cmp);
	return st;
}

static bool have_commit(const delta_state *s, int64_t v)
{
	size_t lo = 0, hi = s->n_log;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const log_file *f = &s->log[mid];
		if (f->version < v || (f->version == v && f->kind < LOG_COMMIT))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n_log && s->log[lo].version == v &&
	       s->log[lo].kind == LOG_COMMIT;
}

/* Is there a complete checkpoint at log entry i (the first of its
 * version and kind)?  For multi-part: all parts of one set present. */
static bool checkpoint_complete(const delta_state *s, size_t i, size_t *end)
{
	const log_file *f = &s->log[i];
	if (f->kind != LOG_MULTI) {
		*end = i + 1;
		return f->kind != LOG_COMMIT;
	}
	uint32_t want = 1;
	size_t j = i;
	while (j < s->n_log && s->log[j].version == f->version &&
	       s->log[j].kind == LOG_MULTI && s->log[j].parts == f->parts) {
		if (s->log[j].part == want)
			want++;
		j++;
	}
	*end = j;
	return want == f->parts + 1;
}

/* ------------------------------------------------------------------------
 * Actions
 */
/* An add or remove path (a URI-encoded relative path, or an absolute
 * file: URI under the table) as a path relative to the root, %-decoded;
 * NULL with `why` set when it cannot be one. */
static char *path_decode(const delta_state *s, const char *p,
			 const char **why)
{
	*why = NULL;
	if (strncmp(p, "file:", 5) == 0 || p[0] == '/') {
		const char *q = p;
		if (strncmp(q, "file://", 7) == 0)
			q += 7;
		else if (strncmp(q, "file:", 5) == 0)
			q += 5;
		size_t rl = strlen(s->root);
		if (strncmp(q, s->root, rl) != 0 || q[rl] != '/') {
			*why = "an absolute path outside the table";
			return NULL;
		}
		p = q + rl + 1;
	} else if (strstr(p, "://")) {
		*why = "a URI colfs cannot read (only files under the table)";
		return NULL;
	}
	char *out = malloc(strlen(p) + 1);
	if (!out) {
		*why = "out of memory";
		return NULL;
	}
	size_t k = colfs_percent_decode(p, strlen(p), out);
	/* no NUL inside, nothing that leaves the table, no empty component */
	bool bad = strlen(out) != k || k == 0 || out[0] == '/';
	for (const char *c = out; !bad && *c;) {
		const char *slash = strchr(c, '/');
		size_t cl = slash ? (size_t)(slash - c) : strlen(c);
		if (cl == 0 || (cl == 2 && c[0] == '.' && c[1] == '.') ||
		    (cl == 1 && c[0] == '.'))
			bad = true;
		c += cl + (slash ? 1 : 0);
	}
	if (bad) {
		free(out);
		*why = "not a path inside the table";
		return NULL;
	}
	return out;
}

/* The deletion vector's unique id (PROTOCOL.md: storage type, path or
 * inline data, and "@offset" when there is one); "" without one. */
static char *dv_unique_id(json_t *dv)
{
	if (!json_is_object(dv))
		return strdup("");
	json_t *t = json_object_get(dv, "storageType");
	json_t *p = json_object_get(dv, "pathOrInlineDv");
	json_t *o = json_object_get(dv, "offset");
	char *id;
	if (json_is_integer(o)) {
		if (asprintf(&id, "%s%s@%" JSON_INTEGER_FORMAT,
			     json_is_string(t) ? json_string_value(t) : "?",
			     json_is_string(p) ? json_string_value(p) : "",
			     json_integer_value(o)) < 0)
			return NULL;
	} else if (asprintf(&id, "%s%s",
			    json_is_string(t) ? json_string_value(t) : "?",
			    json_is_string(p) ? json_string_value(p) : "") < 0) {
		return NULL;
	}
	return id;
}

static void where_text(const delta_state *s, uint32_t src, uint32_t line,
		       char *buf, size_t len)
{
	snprintf(buf, len, "%s line %u", s->sources[src], line);
}

static colfs_status add_source(delta_state *s, const char *name,
			       colfs_err *err)
{
	char **n = realloc(s->sources, (s->n_sources + 1) * sizeof *n);
	if (!n)
		return nomem(err);
	s->sources = n;
	if (!(s->sources[s->n_sources] = strdup(name)))
		return nomem(err);
	s->n_sources++;
	return COLFS_OK;
}

/* One line of a commit or checkpoint: an object whose keys are action
 * kinds (a checkpoint row has them all, the unused ones null). */
static colfs_status take_actions(delta_state *s, json_t *row,
				 bool checkpoint, uint32_t line,
				 uint64_t offset, colfs_err *err)
{
	const char *kind;
	json_t *v;
	uint32_t src = (uint32_t)(s->n_sources - 1);
	char where[400];

	where_text(s, src, line, where, sizeof where);
	if (!json_is_object(row))
		return colfs_fail(err, COLFS_ECORRUPT, offset,
				  "%s: an action that is not a JSON object", where);
	json_object_foreach(row, kind, v) {
		if (json_is_null(v))
			continue;
		if (!json_is_object(v))
			return colfs_fail(err, COLFS_ECORRUPT, offset,
					  "%s: action '%s' is not a JSON object",
					  where, kind);
		bool add = strcmp(kind, "add") == 0;
		if (add || strcmp(kind, "remove") == 0) {
			if (!add && checkpoint)
				continue; /* a tombstone: not part of the state */
			json_t *jp = json_object_get(v, "path");
			const char *why;
			if (!json_is_string(jp))
				return colfs_fail(err, COLFS_ECORRUPT, offset,
						  "%s: %s action without a path",
						  where, kind);
			char *path = path_decode(s, json_string_value(jp), &why);
			if (!path)
				return colfs_fail(err, COLFS_EUNSUPPORTED, offset,
						  "%s: %s path '%s' is %s", where,
						  kind, json_string_value(jp), why);
			char *id = dv_unique_id(json_object_get(v, "deletionVector"));
			if (!id) {
				free(path);
				return nomem(err);
			}
			if (s->n_acts == s->cap_acts) {
				size_t nc = s->cap_acts ? s->cap_acts * 2 : 256;
				delta_action *na = realloc(s->acts, nc * sizeof *na);
				if (!na) {
					free(path);
					free(id);
					return nomem(err);
				}
				s->acts = na;
				s->cap_acts = nc;
			}
			s->acts[s->n_acts++] = (delta_action){
				.path = path, .dv_id = id, .seq = s->n_acts,
				.add = add, .body = add ? json_incref(v) : NULL,
				.src = src, .line = line};
		} else if (strcmp(kind, "protocol") == 0) {
			json_decref(s->protocol);
			s->protocol = json_incref(v);
		} else if (strcmp(kind, "metaData") == 0) {
			json_decref(s->metadata);
			s->metadata = json_incref(v);
		} else if (strcmp(kind, "sidecar") == 0 && checkpoint &&
			   !s->in_sidecars) {
			json_t *jp = json_object_get(v, "path");
			const char *p = json_is_string(jp) ? json_string_value(jp) : NULL;
			if (!p || !*p || strchr(p, '/') || p[0] == '.')
				return colfs_fail(err, COLFS_ECORRUPT, offset,
						  "%s: sidecar action without a plain file name",
						  where);
			char **n = realloc(s->sidecars,
					   (s->n_sidecars + 1) * sizeof *n);
			if (!n)
				return nomem(err);
			s->sidecars = n;
			if (!(s->sidecars[s->n_sidecars] = strdup(p)))
				return nomem(err);
			s->n_sidecars++;
		}
	}
	return COLFS_OK;
}

/* Parse each line of `data` as JSON and hand it to take_actions. */
static colfs_status take_lines(delta_state *s, const char *data, size_t len,
			       bool checkpoint, uint32_t *line,
			       uint64_t base, colfs_err *err)
{
	size_t pos = 0;
	while (pos < len) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		size_t l = end - pos;
		(*line)++;
		while (l && (data[pos + l - 1] == '\r' || data[pos + l - 1] == ' '))
			l--;
		if (l) {
			json_error_t je;
			json_t *row = json_loadb(data + pos, l, 0, &je);
			if (!row) {
				char where[400];
				where_text(s, (uint32_t)(s->n_sources - 1), *line,
					   where, sizeof where);
				return colfs_fail(err, COLFS_ECORRUPT,
						  base + pos + (je.position > 0 ? (size_t)je.position : 0),
						  "%s: not JSON: %s", where, je.text);
			}
			colfs_status st = take_actions(s, row, checkpoint, *line,
						       base + pos, err);
			json_decref(row);
			COLFS_TRY(st);
		}
		pos = end + 1;
	}
	return COLFS_OK;
}

/* A small file of the log, whole (at most max_alloc bytes): a local file
 * or an object under an S3 prefix.  NULL with `err` set when it cannot
 * be read. */
char *delta_read_small(const char *path, const char *shown,
			const colfs_options *o, size_t *len, colfs_err *err)
{
	colfs_source *src;
	char why[512];
	colfs_status st = colfs_source_open_file(path, shown, o, &src, why,
						 sizeof why);
	if (st != COLFS_OK) {
		colfs_fail(err, st == COLFS_ENOENT ? COLFS_EIO : st, 0, "%s", why);
		return NULL;
	}
	uint64_t size = colfs_source_size(src);
	if (size > o->max_alloc || size >= SIZE_MAX) {
		colfs_source_destroy(src);
		colfs_fail(err, COLFS_EOVERFLOW, 0,
			   "%s: %" PRIu64 " bytes is over max_alloc", shown, size);
		return NULL;
	}
	size_t n = (size_t)size;
	char *buf = malloc(n + 1);
	if (!buf) {
		colfs_source_destroy(src);
		nomem(err);
		return NULL;
	}
	colfs_err rerr = {0};
	st = n ? colfs_source_read_at(src, 0, n, buf, &rerr) : COLFS_OK;
	colfs_source_destroy(src);
	if (st != COLFS_OK) {
		free(buf);
		colfs_fail(err, COLFS_EIO, rerr.offset, "%s: cannot read it: %s",
			   shown, rerr.msg);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static colfs_status read_json_lines(delta_state *s, const char *rel,
				    bool checkpoint, colfs_err *err)
{
	char *path;
	size_t len;

	COLFS_TRY(add_source(s, rel, err));
	if (asprintf(&path, "%s/%s", s->root, rel) < 0)
		return nomem(err);
	char *data = delta_read_small(path, rel, s->opts, &len, err);
	free(path);
	if (!data)
		return err->status;
	uint32_t line = 0;
	colfs_status st = take_lines(s, data, len, checkpoint, &line, 0, err);
	free(data);
	return st;
}

/* A Parquet checkpoint (or sidecar): colfs opens it and reads its
 * rows.jsonl, one action row per line. */
static colfs_status read_parquet_rows(delta_state *s, const char *rel,
				      colfs_err *err)
{
	char *path, why[512] = "";
	colfs_tree *t = NULL;
	colfs_node *n;
	colfs_handle *h = NULL;
	colfs_options o = *s->opts;
	colfs_status st;

	char shown[700];
	snprintf(shown, sizeof shown, "%s rows.jsonl", rel);
	COLFS_TRY(add_source(s, shown, err));
	o.size_index = "off";
	o.sizes = COLFS_SIZES_LAZY;
	o.decode_threads = -1;
	o.delta_version_set = false; /* the table's, not the checkpoint's */
	if (asprintf(&path, "%s/%s", s->root, rel) < 0)
		return nomem(err);
	st = colfs_tree_open(path, &o, &t, why, sizeof why);
	free(path);
	if (st)
		return colfs_fail(err, st, 0, "checkpoint %s: %s", rel, why);
	if (strcmp(colfs_tree_format(t), "parquet") != 0) {
		colfs_tree_destroy(t);
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "checkpoint %s is not a Parquet file", rel);
	}
	st = colfs_tree_resolve(t, "rows.jsonl", &n);
	if (!st)
		st = colfs_node_open(t, n, &h);
	if (st) {
		colfs_tree_destroy(t);
		return colfs_fail(err, st, 0,
				  "checkpoint %s: its rows cannot be read", rel);
	}
	/* read in blocks; a line may span blocks */
	colfs_buf carry = COLFS_BUF_INIT;
	uint64_t off = 0, base = 0;
	uint32_t line = 0;
	char block[1 << 16];
	for (;;) {
		size_t got = 0;
		st = colfs_handle_read(h, off, sizeof block, block, &got);
		if (st) {
			st = colfs_fail(err, st, off,
					"checkpoint %s: reading its rows failed at byte %" PRIu64,
					rel, off);
			break;
		}
		if (got == 0)
			break;
		off += got;
		colfs_buf_append(&carry, block, got);
		if ((st = colfs_buf_status(&carry)))
			break;
		if (carry.len > s->opts->max_alloc) {
			st = colfs_fail(err, COLFS_EOVERFLOW, off,
					"checkpoint %s: a row of over max_alloc bytes",
					rel);
			break;
		}
		char *last = memrchr(carry.data, '\n', carry.len);
		if (!last)
			continue;
		size_t whole = (size_t)(last - carry.data) + 1;
		st = take_lines(s, carry.data, whole, true, &line, base, err);
		if (st)
			break;
		memmove(carry.data, carry.data + whole, carry.len - whole);
		carry.len -= whole;
		base += whole;
	}
	if (!st && carry.len)
		st = take_lines(s, carry.data, carry.len, true, &line, base, err);
	colfs_buf_free(&carry);
	colfs_handle_close(h);
	if (!st && colfs_tree_error_count(t) > 0) {
		colfs_problem p;
		if (colfs_tree_error_get(t, 0, &p) == COLFS_OK)
			st = colfs_fail(err, COLFS_ECORRUPT, p.offset,
					"checkpoint %s is damaged: %s: %s", rel,
					p.path, p.message);
	}
	colfs_tree_destroy(t);
	return st;
}

static colfs_status read_checkpoint_file(delta_state *s, const char *name,
					 colfs_err *err)
{
	char rel[600];
	size_t nl = strlen(name);

	snprintf(rel, sizeof rel, "_delta_log/%s", name);
	if (nl > 5 && strcmp(name + nl - 5, ".json") == 0)
		return read_json_lines(s, rel, true, err);
	return read_parquet_rows(s, rel, err);
}

/* ------------------------------------------------------------------------
 * The snapshot
 */
/* Same logical file: same path and deletion vector id. */
static int action_cmp_key(const delta_action *x, const delta_action *y)
{
	int c = strcmp(x->path, y->path);
	return c ? c : strcmp(x->dv_id, y->dv_id);
}

static int action_cmp(const void *a, const void *b)
{
	const delta_action *x = a, *y = b;
	int c = action_cmp_key(x, y);
	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *json_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static colfs_status protocol_check(delta_state *s, colfs_err *err)
{
	json_t *p = s->protocol;
	json_t *r = json_object_get(p, "minReaderVersion");
	json_t *w = json_object_get(p, "minWriterVersion");

	if (!p)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta log has no protocol action at version %" PRId64,
				  s->pub.tb.version);
	if (!json_is_integer(r) || !json_is_integer(w) ||
	    json_integer_value(r) < 1 || json_integer_value(w) < 1 ||
	    json_integer_value(r) > 1000 || json_integer_value(w) > 1000)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta protocol action without valid minReaderVersion and minWriterVersion");
	s->pub.min_reader_version = (int)json_integer_value(r);
	s->pub.min_writer_version = (int)json_integer_value(w);
	if (s->pub.min_reader_version > 3)
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "Delta reader version %d (colfs reads 1 to 3)",
				  s->pub.min_reader_version);
	if (s->pub.min_reader_version < 3)
		return COLFS_OK;
	json_t *feats = json_object_get(p, "readerFeatures");
	size_t i;
	json_t *f;
	if (!json_is_array(feats))
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta reader version 3 without readerFeatures");
	json_array_foreach(feats, i, f) {
		const char *name = json_is_string(f) ? json_string_value(f) : NULL;
		bool ok = false;
		if (!name)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "Delta readerFeatures holds a value that is not a name");
		for (const char *const *k = supported_reader_features; *k; k++)
			if (strcmp(*k, name) == 0)
				ok = true;
		if (!ok)
			return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
					  "Delta reader feature '%s' (colfs reads columnMapping, deletionVectors, v2Checkpoint, timestampNtz, vacuumProtocolCheck)",
					  name);
	}
	return COLFS_OK;
}

static colfs_status metadata_take(delta_state *s, colfs_err *err)
{
	json_t *m = s->metadata;
	colfs_delta_snapshot *p = &s->pub;

	if (!m)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta log has no metaData action at version %" PRId64,
				  p->tb.version);
	json_t *fmt = json_object_get(m, "format");
	const char *provider = json_str(fmt, "provider");
	if (provider && strcmp(provider, "parquet") != 0)
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "Delta table of data format '%s' (colfs reads parquet)",
				  provider);
	const char *schema = json_str(m, "schemaString");
	json_error_t je;
	if (!schema || !(s->schema = json_loads(schema, 0, &je)))
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta metaData has no schemaString that is JSON%s%s",
				  schema ? ": " : "", schema ? je.text : "");
	json_t *conf = json_object_get(m, "configuration");
	const char *mode = json_str(conf, "delta.columnMapping.mode");
	if (!mode)
		mode = "none";
	if (strcmp(mode, "none") && strcmp(mode, "name") && strcmp(mode, "id"))
		return colfs_fail(err, COLFS_EUNSUPPORTED, 0,
				  "Delta column mapping mode '%s' (colfs reads none, name and id)",
				  mode);
	if (!(p->tb.column_mapping_mode = strdup(mode)))
		return nomem(err);
	bool mapped = strcmp(mode, "none") != 0;

	json_t *fields = json_object_get(s->schema, "fields");
	if (!json_is_array(fields))
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta schema is not a struct with fields");
	size_t nf = json_array_size(fields);
	p->tb.fields = calloc(nf ? nf : 1, sizeof *p->tb.fields);
	if (!p->tb.fields)
		return nomem(err);
	for (size_t i = 0; i < nf; i++) {
		json_t *f = json_array_get(fields, i);
		const char *name = json_str(f, "name");
		json_t *type = json_object_get(f, "type");
		json_t *nullable = json_object_get(f, "nullable");
		json_t *meta = json_object_get(f, "metadata");
		const char *phys = json_str(meta, "delta.columnMapping.physicalName");
		if (!name || !type)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "Delta schema field %zu has no name or type",
					  i);
		if (mapped && !phys)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "Delta schema field '%s' has no delta.columnMapping.physicalName (column mapping mode %s)",
					  name, mode);
		colfs_delta_field *df = &p->tb.fields[p->tb.n_fields++];
		df->name = strdup(name);
		df->physical_name = strdup(mapped ? phys : name);
		df->type_json = json_dumps(type, JSON_COMPACT | JSON_ENCODE_ANY |
						 JSON_PRESERVE_ORDER);
		df->nullable = !json_is_false(nullable);
		json_t *id = json_object_get(meta, "delta.columnMapping.id");
		df->field_id = json_is_integer(id) && json_integer_value(id) >= 0 &&
			       json_integer_value(id) <= INT32_MAX
			       ? json_integer_value(id) : -1;
		if (strcmp(mode, "id") == 0 && df->field_id < 0)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "Delta schema field '%s' has no delta.columnMapping.id (column mapping mode id)",
					  name);
		if (!df->name || !df->physical_name || !df->type_json)
			return nomem(err);
	}

	json_t *pcols = json_object_get(m, "partitionColumns");
	if (pcols && !json_is_array(pcols))
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "Delta partitionColumns is not an array");
	size_t np = json_array_size(pcols);
	p->tb.partition_columns = calloc(np ? np : 1, sizeof(char *));
	if (!p->tb.partition_columns)
		return nomem(err);
	for (size_t i = 0; i < np; i++) {
		json_t *c = json_array_get(pcols, i);
		bool found = false;
		if (!json_is_string(c))
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "Delta partitionColumns holds a value that is not a name");
		for (size_t k = 0; k < p->tb.n_fields; k++)
			if (strcmp(p->tb.fields[k].name, json_string_value(c)) == 0)
				found = true;
		if (!found)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "Delta partition column '%s' is not in the schema",
					  json_string_value(c));
		if (!(p->tb.partition_columns[p->tb.n_partition_columns++] =
			      strdup(json_string_value(c))))
			return nomem(err);
	}
	return COLFS_OK;
}

static const char *physical_of(const colfs_delta_snapshot *p, const char *name)
{
	for (size_t k = 0; k < p->tb.n_fields; k++)
		if (strcmp(p->tb.fields[k].name, name) == 0)
			return p->tb.fields[k].physical_name;
	return name;
}

/* numRecords from the add action's stats (a JSON string) or from a
 * checkpoint's stats_parsed; -1 when neither says. */
static int64_t num_records_of(json_t *add)
{
	json_t *sp = json_object_get(add, "stats_parsed");
	json_t *n = json_object_get(sp, "numRecords");
	if (json_is_integer(n) && json_integer_value(n) >= 0)
		return json_integer_value(n);
	const char *stats = json_str(add, "stats");
	if (!stats)
		return -1;
	json_t *j = json_loads(stats, 0, NULL);
	int64_t r = -1;
	n = json_object_get(j, "numRecords");
	if (json_is_integer(n) && json_integer_value(n) >= 0)
		r = json_integer_value(n);
	json_decref(j);
	return r;
}

static colfs_status file_take(delta_state *s, const delta_action *a,
			      colfs_delta_file *f, colfs_err *err)
{
	colfs_delta_snapshot *p = &s->pub;
	json_t *add = a->body;
	char where[400];

	where_text(s, a->src, a->line, where, sizeof where);
	json_t *size = json_object_get(add, "size");
	if (!json_is_integer(size) || json_integer_value(size) < 0)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "%s: add action for %s without a valid size",
				  where, a->path);
	if (!(f->path = strdup(a->path)))
		return nomem(err);
	f->size = (uint64_t)json_integer_value(size);
	f->num_records = num_records_of(add);
	f->n_partitions = p->tb.n_partition_columns;
	f->partition_values = calloc(f->n_partitions ? f->n_partitions : 1,
				     sizeof(char *));
	if (!f->partition_values)
		return nomem(err);
	json_t *pv = json_object_get(add, "partitionValues");
	if (f->n_partitions && !json_is_object(pv))
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "%s: add action for %s without partitionValues",
				  where, a->path);
	for (size_t i = 0; i < f->n_partitions; i++) {
		const char *logical = p->tb.partition_columns[i];
		json_t *v = json_object_get(pv, physical_of(p, logical));
		if (!v)
			v = json_object_get(pv, logical);
		if (!v)
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "%s: add action for %s has no value for partition column '%s'",
					  where, a->path, logical);
		if (json_is_null(v))
			continue;
		if (!json_is_string(v))
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "%s: partition value of '%s' for %s is not a string",
					  where, logical, a->path);
		if (!(f->partition_values[i] = strdup(json_string_value(v))))
			return nomem(err);
	}
	json_t *dv = json_object_get(add, "deletionVector");
	if (dv && !json_is_null(dv)) {
		/* messages name the data file the vector deletes rows of */
		char dvwhere[1024];
		snprintf(dvwhere, sizeof dvwhere, "%s: %s", where, a->path);
		COLFS_TRY(colfs_delta_dv_read(s->root, dv, f->num_records,
					      s->opts, dvwhere, &f->deleted_rows,
					      &f->n_deleted_rows, err));
	}
	return COLFS_OK;
}

static colfs_status reconcile(delta_state *s, colfs_err *err)
{
	colfs_delta_snapshot *p = &s->pub;
	size_t n_active = 0;

	if (s->n_acts)
		qsort(s->acts, s->n_acts, sizeof *s->acts, action_cmp);
	for (size_t i = 0; i < s->n_acts; i++)
		if (s->acts[i].add &&
		    (i + 1 == s->n_acts || action_cmp_key(&s->acts[i], &s->acts[i + 1])))
			n_active++;
	p->tb.files = calloc(n_active ? n_active : 1, sizeof *p->tb.files);
	s->active = calloc(n_active ? n_active : 1, sizeof *s->active);
	if (!p->tb.files || !s->active)
		return nomem(err);
	for (size_t i = 0; i < s->n_acts; i++) {
		const delta_action *a = &s->acts[i];
		if (!a->add ||
		    (i + 1 < s->n_acts && !action_cmp_key(a, &s->acts[i + 1])))
			continue;
		if (p->tb.n_files &&
		    strcmp(p->tb.files[p->tb.n_files - 1].path, a->path) == 0) {
			char where[400];
			where_text(s, a->src, a->line, where, sizeof where);
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "%s: file %s is active twice (two deletion vectors)",
					  where, a->path);
		}
		colfs_delta_file *f = &p->tb.files[p->tb.n_files++];
		s->active[p->tb.n_files - 1] = json_incref(a->body);
		COLFS_TRY(file_take(s, a, f, err));
	}
	return COLFS_OK;
}

/* The checkpoint to start from: the newest complete one at or before
 * `target` from which the commits after it are all present (`tail`: the
 * first of the commits that run without a gap to the latest); among
 * several at one version, the one `_last_checkpoint` names.  SIZE_MAX
 * when there is none (the snapshot starts from commit 0). */
static size_t pick_checkpoint(const delta_state *s, int64_t target,
			      int64_t tail, size_t *end)
{
	size_t best = SIZE_MAX, best_end = 0;
	const char *hint = NULL;
	json_t *v2 = json_object_get(s->last_checkpoint, "v2Checkpoint");

	hint = json_str(v2, "path");
	for (size_t i = 0; i < s->n_log;) {
		size_t e;
		const log_file *f = &s->log[i];
		bool ok = checkpoint_complete(s, i, &e);
		if (ok && f->version <= target && f->version + 1 >= tail &&
		    (best == SIZE_MAX || f->version > s->log[best].version ||
		     (f->version == s->log[best].version && hint &&
		      strcmp(f->name, hint) == 0))) {
			best = i;
			best_end = e;
		}
		i = e > i ? e : i + 1;
	}
	*end = best_end;
	return best;
}

static void last_checkpoint_read(delta_state *s)
{
	char *path;
	size_t len;
	colfs_err ignored = {0};

	if (asprintf(&path, "%s/_delta_log/_last_checkpoint", s->root) < 0)
		return;
	if (s->has_last_checkpoint) {
		char *data = delta_read_small(path, "_last_checkpoint", s->opts, &len,
					&ignored);
		/* a hint only: one that is damaged is left aside */
		json_t *j = data ? json_loadb(data, len, 0, NULL) : NULL;
		json_t *v = json_object_get(j, "version");
		if (json_is_object(j) && json_is_integer(v) &&
		    json_integer_value(v) >= 0)
			s->last_checkpoint = j;
		else
			json_decref(j);
		free(data);
	}
	free(path);
}

static colfs_status load(delta_state *s, int64_t version, colfs_err *err)
{
	colfs_delta_snapshot *p = &s->pub;
	int64_t latest = -1;

	COLFS_TRY(log_list(s, err));
	last_checkpoint_read(s);
	size_t nc = 0;
	for (size_t i = 0; i < s->n_log;) {
		size_t e;
		if (s->log[i].kind == LOG_COMMIT)
			nc++;
		if ((s->log[i].kind == LOG_COMMIT ||
		     checkpoint_complete(s, i, &e)) &&
		    s->log[i].version > latest)
			latest = s->log[i].version;
		i++;
	}
	if (latest < 0)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "_delta_log holds no commit and no complete checkpoint");
	s->commits = calloc(nc ? nc : 1, sizeof *s->commits);
	if (!s->commits)
		return nomem(err);
	for (size_t i = 0; i < s->n_log; i++)
		if (s->log[i].kind == LOG_COMMIT)
			s->commits[s->n_commits++] = s->log[i].version;

	/* commits tail..latest are all there */
	int64_t tail = latest;
	while (tail >= 0 && have_commit(s, tail))
		tail--;
	tail++;
	size_t end;
	s->oldest = INT64_MAX;
	if (tail <= 1 && have_commit(s, 0))
		s->oldest = 0;
	for (size_t i = 0; i < s->n_log && s->oldest > 0; i++) {
		size_t e;
		if (s->log[i].version + 1 >= tail && checkpoint_complete(s, i, &e) &&
		    s->log[i].version < s->oldest)
			s->oldest = s->log[i].version;
	}
	if (s->oldest == INT64_MAX)
		return colfs_fail(err, COLFS_ECORRUPT, 0,
				  "_delta_log cannot reconstruct any version: commit %" PRId64 " is missing and no checkpoint follows it",
				  tail - 1);
	int64_t target = version < 0 ? latest : version;
	if (target > latest)
		return colfs_fail(err, COLFS_ENOENT, 0,
				  "Delta version %" PRId64 " does not exist: the table's versions are %" PRId64 " to %" PRId64 " (the latest)",
				  target, s->oldest, latest);
	if (target < s->oldest)
		return colfs_fail(err, COLFS_ENOENT, 0,
				  "Delta version %" PRId64 " no longer exists: its commits are removed, _delta_log reconstructs versions %" PRId64 " to %" PRId64,
				  target, s->oldest, latest);
	p->tb.version = target;
	p->latest = latest;

	size_t cp = pick_checkpoint(s, target, tail, &end);
	int64_t from = 0;
	if (cp != SIZE_MAX) {
		json_t *files = json_array();
		json_t *sidecars = json_array();
		s->checkpoint = json_object();
		if (!files || !sidecars || !s->checkpoint) {
			json_decref(files);
			json_decref(sidecars);
			return nomem(err);
		}
		json_object_set_new(s->checkpoint, "version",
				    json_integer(s->log[cp].version));
		json_object_set_new(s->checkpoint, "files", files);
		json_object_set_new(s->checkpoint, "sidecars", sidecars);
		for (size_t i = cp; i < end; i++) {
			json_array_append_new(files, json_string(s->log[i].name));
			COLFS_TRY(read_checkpoint_file(s, s->log[i].name, err));
		}
		s->in_sidecars = true;
		for (size_t i = 0; i < s->n_sidecars; i++) {
			char rel[600];
			json_array_append_new(sidecars,
					      json_string(s->sidecars[i]));
			snprintf(rel, sizeof rel, "_delta_log/_sidecars/%s",
				 s->sidecars[i]);
			COLFS_TRY(read_parquet_rows(s, rel, err));
		}
		from = s->log[cp].version + 1;
	} else {
		s->checkpoint = json_null();
	}
	for (int64_t v = from; v <= target; v++) {
		char rel[64];
		if (!have_commit(s, v))
			return colfs_fail(err, COLFS_ECORRUPT, 0,
					  "_delta_log has no commit %020" PRId64 ".json (needed for version %" PRId64 ")",
					  v, target);
		snprintf(rel, sizeof rel, "_delta_log/%020" PRId64 ".json", v);
		COLFS_TRY(read_json_lines(s, rel, false, err));
	}
	COLFS_TRY(protocol_check(s, err));
	COLFS_TRY(metadata_take(s, err));
	return reconcile(s, err);
}

static void loading_free(delta_state *s)
{
	for (size_t i = 0; i < s->n_log; i++)
		free(s->log[i].name);
	free(s->log);
	s->log = NULL;
	s->n_log = 0;
	for (size_t i = 0; i < s->n_acts; i++) {
		free(s->acts[i].path);
		free(s->acts[i].dv_id);
		json_decref(s->acts[i].body);
	}
	free(s->acts);
	s->acts = NULL;
	s->n_acts = 0;
	for (size_t i = 0; i < s->n_sources; i++)
		free(s->sources[i]);
	free(s->sources);
	s->sources = NULL;
	s->n_sources = 0;
	for (size_t i = 0; i < s->n_sidecars; i++)
		free(s->sidecars[i]);
	free(s->sidecars);
	s->sidecars = NULL;
	s->n_sidecars = 0;
}

colfs_status colfs_delta_load(const char *root, int64_t version,
			      const colfs_options *o,
			      colfs_delta_snapshot **out, colfs_err *err)
{
	delta_state *s = calloc(1, sizeof *s);

	*out = NULL;
	if (!s)
		return nomem(err);
	if (o)
		s->opt_copy = *o;
	colfs_options_defaults(&s->opt_copy);
	s->opts = &s->opt_copy;
	s->root = !colfs_source_is_local(root) ? strdup(root)
					      : realpath(root, NULL);
	if (!s->root) {
		int e = errno;
		free(s);
		return colfs_fail(err, e == ENOMEM ? COLFS_ENOMEM : COLFS_EIO, 0,
				  "Delta table %s: %s", root, strerror(e));
	}
	colfs_status st = load(s, version, err);
	loading_free(s);
	if (st) {
		colfs_delta_free(&s->pub);
		return st;
	}
	*out = &s->pub;
	return COLFS_OK;
}

void colfs_delta_free(colfs_delta_snapshot *p)
{
	if (!p)
		return;
	delta_state *s = (delta_state *)p;
	loading_free(s);
	for (size_t i = 0; i < p->tb.n_files; i++) {
		colfs_delta_file *f = &p->tb.files[i];
		free(f->path);
		for (size_t k = 0; k < f->n_partitions; k++)
			free(f->partition_values[k]);
		free(f->partition_values);
		free(f->deleted_rows);
		json_decref(s->active[i]);
	}
	free(p->tb.files);
	free(s->active);
	for (size_t i = 0; i < p->tb.n_fields; i++) {
		free(p->tb.fields[i].name);
		free(p->tb.fields[i].physical_name);
		free(p->tb.fields[i].type_json);
	}
	free(p->tb.fields);
	for (size_t i = 0; i < p->tb.n_partition_columns; i++)
		free(p->tb.partition_columns[i]);
	free(p->tb.partition_columns);
	free(p->tb.column_mapping_mode);
	json_decref(s->protocol);
	json_decref(s->metadata);
	json_decref(s->last_checkpoint);
	json_decref(s->schema);
	json_decref(s->checkpoint);
	free(s->commits);
	free(s->root);
	free(s);
}

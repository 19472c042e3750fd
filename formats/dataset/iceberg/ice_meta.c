/* colfs: an Apache Iceberg table's metadata JSON (docs/iceberg-tree.md):
 * finding the current metadata file as readers without a catalog do
 * (metadata/version-hint.text, else the highest version; gzip-compressed
 * files too), parsing it (format versions 1 to 3), picking the snapshot
 * the options ask for (-o snapshot=, as_of=, ref=) and mapping the
 * metadata's paths onto the mounted root. */
#include "ice_int.h"
#include "../../core/codec.h"
#include "../../core/source.h"
#include "../../core/sourcekind.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t ice_json_i64(json_t *v, bool *ok)
{
	*ok = true;
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		errno = 0;
		long long n = strtoll(s, &end, 10);
		if (*s && !*end && !errno)
			return n;
	}
	*ok = false;
	return -1;
}

/* The version a metadata file's name gives (vN.metadata.json,
 * NNNNN-<uuid>.metadata.json, either gzip-compressed as
 * .gz.metadata.json or .metadata.json.gz), or -1 when it is not one. */
static int64_t meta_version(const char *name)
{
	size_t n = strlen(name);
	static const char *const ends[] = {
		".gz.metadata.json", ".metadata.json.gz", ".metadata.json",
	};
	size_t stem = 0;
	for (size_t i = 0; i < 3; i++) {
		size_t e = strlen(ends[i]);
		if (n > e && strcmp(name + n - e, ends[i]) == 0) {
			stem = n - e;
			break;
		}
	}
	if (!stem)
		return -1;
	const char *p = name;
	if (*p == 'v')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	int64_t v = 0;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	size_t at = (size_t)(p - name);
	if (name[0] == 'v' ? at != stem : (at >= stem || *p != '-'))
		return -1;
	return v;
}

/* The names of the files in `root`/metadata/ (the keys its source
 * kind lists, a local folder's or a prefix's, those of its folders left
 * out), malloc'd. */
static colfs_status list_metadata(const char *root, const colfs_options *o,
				  char ***out, size_t *n, char *why,
				  size_t why_len)
{
	char **v = NULL, *url;
	size_t cnt = 0, cap = 0, ne = 0;
	colfs_source_entry *e = NULL;

	*out = NULL;
	*n = 0;
	if (asprintf(&url, "%s/metadata/", root) < 0)
		return COLFS_ENOMEM;
	colfs_status st = colfs_source_list(url, o, &e, &ne, why, why_len);
	free(url);
	if (st != COLFS_OK)
		return st;
	for (size_t i = 0; i < ne; i++) {
		if (strchr(e[i].key, '/'))
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof *v);
			if (!nv)
				goto nomem;
			v = nv;
		}
		if (!(v[cnt] = strdup(e[i].key)))
			goto nomem;
		cnt++;
		continue;
nomem:
		colfs_source_entries_free(e, ne);
		for (size_t k = 0; k < cnt; k++)
			free(v[k]);
		free(v);
		return COLFS_ENOMEM;
	}
	colfs_source_entries_free(e, ne);
	*out = v;
	*n = cnt;
	return COLFS_OK;
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

bool ice_is_table(const char *root)
{
	char **names;
	size_t n;
	char why[256];
	bool yes = false;

	if (list_metadata(root, NULL, &names, &n, why, sizeof why))
		return false;
	for (size_t i = 0; i < n && !yes; i++)
		yes = meta_version(names[i]) >= 0;
	names_free(names, n);
	return yes;
}

bool ice_is_listing_key(const char *key)
{
	if (strncmp(key, "metadata/", 9) != 0 || strchr(key + 9, '/'))
		return false;
	return meta_version(key + 9) >= 0;
}

char *ice_metadata_root(const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	if (meta_version(base) < 0)
		return NULL;
	bool remote = !colfs_source_is_local(name);
	/* the file's folder (name[0, dl)); the one above it when that is
	 * metadata/ (not a URL's host: "s3://metadata/...") */
	size_t dl = slash ? (size_t)(slash - name) : 0;
	size_t cut = dl;
	while (cut && name[cut - 1] != '/')
		cut--;
	if (dl - cut == 8 && strncmp(name + cut, "metadata", 8) == 0 &&
	    !(cut >= 3 && strncmp(name + cut - 3, "://", 3) == 0))
		dl = cut;
	while (dl > 1 && name[dl - 1] == '/')
		dl--;
	if (dl == 0 && name[0] == '/')
		dl = 1;
	char *root = NULL;
	if (remote) {
		if (dl && asprintf(&root, "%.*s/", (int)dl, name) < 0)
			root = NULL;
	} else {
		root = dl ? strndup(name, dl) : strdup(".");
	}
	/* a folder colfs lists (a local directory, a remote prefix); else
	 * the name is opened as what it is, and its error names it */
	if (root && !colfs_source_kind_of(root)->listing) {
		free(root);
		root = NULL;
	}
	return root;
}

/* A file of the table read whole (gzip-compressed metadata decompressed,
 * found by its magic), NUL-terminated. */
char *ice_read_whole(const char *local, const char *shown,
		     const colfs_options *o, size_t *len, colfs_err *err)
{
	colfs_source *src;
	char why[600] = "";
	uint64_t cap = o->max_alloc && o->max_alloc < ICE_MAX_META
			       ? o->max_alloc : ICE_MAX_META;
	colfs_status st = colfs_source_open(local, o, &src, why, sizeof why);
	if (st != COLFS_OK) {
		colfs_fail(err, st == COLFS_ENOENT ? COLFS_EIO : st,
			   COLFS_OFFSET_UNKNOWN, "%s: %s", shown,
			   why[0] ? why : colfs_status_name(st));
		return NULL;
	}
	uint64_t size = colfs_source_size(src);
	if (size > cap) {
		colfs_source_destroy(src);
		colfs_fail(err, COLFS_EOVERFLOW, 0, "%s: %" PRIu64
			   " bytes is more than colfs reads of a metadata file",
			   shown, size);
		return NULL;
	}
	char *buf = malloc((size_t)size + 1);
	if (!buf) {
		colfs_source_destroy(src);
		colfs_fail(err, COLFS_ENOMEM, 0, "%s: out of memory", shown);
		return NULL;
	}
	colfs_err rerr = {0};
	st = size ? colfs_source_read_at(src, 0, (size_t)size, buf, &rerr)
		  : COLFS_OK;
	colfs_source_destroy(src);
	if (st != COLFS_OK) {
		free(buf);
		colfs_fail(err, COLFS_EIO, rerr.offset, "%s: cannot read it: %s",
			   shown, rerr.msg);
		return NULL;
	}
	buf[size] = 0;
	if (size >= 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b) {
		/* gzip: the output's size is not written (but mod 2^32):
		 * grow until it fits, within the cap */
		size_t ocap = size * 8 + 4096;
		for (;;) {
			if (ocap > cap)
				ocap = (size_t)cap;
			char *out = malloc(ocap + 1);
			size_t olen = 0;
			colfs_err zerr = {0};
			if (!out) {
				free(buf);
				colfs_fail(err, COLFS_ENOMEM, 0, "%s: out of memory",
					   shown);
				return NULL;
			}
			st = colfs_codec_decompress(COLFS_CODEC_GZIP,
						    (const uint8_t *)buf, size,
						    (uint8_t *)out, ocap, &olen,
						    0, &zerr);
			if (st == COLFS_OK) {
				free(buf);
				out[olen] = 0;
				*len = olen;
				return out;
			}
			free(out);
			if (st != COLFS_EOVERFLOW || ocap >= cap) {
				free(buf);
				colfs_fail(err, st, zerr.offset,
					   "%s: gzip: %s", shown, zerr.msg);
				return NULL;
			}
			ocap *= 2;
		}
	}
	*len = size;
	return buf;
}

/* The name version-hint.text points to among `names`: a number N
 * (vN.metadata.json, or NNNNN-*.metadata.json of version N), or a file's
 * name with or without its .metadata.json ending. */
static const char *hinted(const char *hint, char **names, size_t n)
{
	bool digits = *hint != 0;
	for (const char *p = hint; *p; p++)
		if (!isdigit((unsigned char)*p))
			digits = false;
	if (digits) {
		errno = 0;
		char *end;
		long long v = strtoll(hint, &end, 10);
		if (errno)
			return NULL;
		const char *best = NULL;
		for (size_t i = 0; i < n; i++)
			if (meta_version(names[i]) == v &&
			    (!best || names[i][0] == 'v'))
				best = names[i];
		return best;
	}
	size_t hl = strlen(hint);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], hint) == 0)
			return names[i];
		if (strncmp(names[i], hint, hl) == 0 && meta_version(names[i]) >= 0 &&
		    names[i][hl] == '.')
			return names[i];
	}
	return NULL;
}

/* The current metadata file's name under metadata/. */
static colfs_status find_current(ice_table *tb, const colfs_options *o,
				 char **out, colfs_err *err)
{
	char **names;
	size_t n;
	char why[600] = "";

	*out = NULL;
	colfs_status st = list_metadata(tb->root, o, &names, &n, why,
					sizeof why);
	if (st != COLFS_OK)
		return colfs_fail(err, st, COLFS_OFFSET_UNKNOWN, "%s",
				  why[0] ? why : colfs_status_name(st));
	const char *pick = NULL;
	for (size_t i = 0; i < n && !pick; i++) {
		if (strcmp(names[i], "version-hint.text") != 0)
			continue;
		char *path, *hint;
		size_t len;
		colfs_err herr = {0};
		if (asprintf(&path, "%s/metadata/version-hint.text", tb->root) < 0)
			break;
		hint = ice_read_whole(path, "metadata/version-hint.text", o, &len,
				      &herr);
		free(path);
		if (!hint)
			break;
		char *s = hint;
		while (*s && isspace((unsigned char)*s))
			s++;
		size_t l = strlen(s);
		while (l && isspace((unsigned char)s[l - 1]))
			s[--l] = 0;
		pick = hinted(s, names, n);
		free(hint);
	}
	int64_t best = -1;
	for (size_t i = 0; i < n && !pick; i++) {
		int64_t v = meta_version(names[i]);
		if (v < 0)
			continue;
		if (v > best)
			best = v;
	}
	if (!pick && best >= 0) {
		/* the highest version; of two files of one version the
		 * greatest name */
		for (size_t i = 0; i < n; i++)
			if (meta_version(names[i]) == best &&
			    (!pick || strcmp(names[i], pick) > 0))
				pick = names[i];
	}
	if (pick && !(*out = strdup(pick)))
		st = COLFS_ENOMEM;
	names_free(names, n);
	if (st != COLFS_OK)
		return colfs_fail(err, st, COLFS_OFFSET_UNKNOWN, "out of memory");
	if (!pick)
		return colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "metadata/ holds no *.metadata.json file");
	return COLFS_OK;
}

/* Strip "scheme://" (s3://, s3a://, gs://, file://...) for comparing
 * two spellings of one location. */
static const char *no_scheme(const char *p)
{
	const char *c = strstr(p, "://");
	if (c && !memchr(p, '/', (size_t)(c - p)))
		return c + 3;
	if (strncmp(p, "file:", 5) == 0)
		return p + 5;
	return p;
}

/* The rest of `path` after `prefix` when the path is under it ("" when
 * they are the same), else NULL. */
static const char *under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	while (n && prefix[n - 1] == '/')
		n--;
	if (!n || strncmp(path, prefix, n) != 0)
		return NULL;
	if (path[n] == 0)
		return path + n;
	if (path[n] != '/')
		return NULL;
	while (path[n] == '/')
		n++;
	return path + n;
}

static const char *rest_under_location(const ice_table *tb, const char *path)
{
	const char *r = under(path, tb->location);
	if (!r)
		r = under(no_scheme(path), no_scheme(tb->location));
	return r;
}

char *ice_rel_path(const ice_table *tb, const char *path)
{
	const char *r = rest_under_location(tb, path);
	return r ? strdup(r) : NULL;
}

char *ice_map_path(const ice_table *tb, const char *path)
{
	char *out = NULL;
	const char *r = rest_under_location(tb, path);
	if (r) {
		if (asprintf(&out, "%s%s%s", tb->root, *r ? "/" : "", r) < 0)
			return NULL;
		return out;
	}
	if (strncmp(path, "file://", 7) == 0)
		return strdup(path + 7);
	if (strncmp(path, "file:/", 6) == 0)
		return strdup(path + 5);
	return strdup(path);
}

json_t *ice_snapshot_by_id(const ice_table *tb, int64_t id)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(tb->meta, "snapshots"), i, s) {
		bool ok;
		if (ice_json_i64(json_object_get(s, "snapshot-id"), &ok) == id && ok)
			return s;
	}
	return NULL;
}

static json_t *by_id(json_t *arr, const char *key, int64_t id)
{
	size_t i;
	json_t *s;
	json_array_foreach(arr, i, s) {
		bool ok;
		if (ice_json_i64(json_object_get(s, key), &ok) == id && ok)
			return s;
	}
	return NULL;
}

json_t *ice_schema_by_id(const ice_table *tb, int64_t id)
{
	json_t *s = by_id(json_object_get(tb->meta, "schemas"), "schema-id", id);
	if (!s)
		s = json_object_get(tb->meta, "schema");
	return json_is_object(s) ? s : NULL;
}

json_t *ice_spec_fields(const ice_table *tb, int64_t id)
{
	json_t *s = by_id(json_object_get(tb->meta, "partition-specs"), "spec-id",
			  id);
	if (s)
		return json_object_get(s, "fields");
	/* v1 may write only the one spec's fields, as spec 0 */
	s = json_object_get(tb->meta, "partition-spec");
	return id == 0 && json_is_array(s) ? s : NULL;
}

void ice_manifests_free(ice_manifest_ref *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].path);
		free(m[i].local);
		json_decref(m[i].entry);
	}
	free(m);
}

void ice_file_clear(ice_file *f)
{
	free(f->path);
	free(f->local);
	json_decref(f->partition);
	free(f->equality_ids);
	free(f->referenced_data_file);
	free(f->manifest);
	memset(f, 0, sizeof *f);
}

void ice_table_free(ice_table *tb)
{
	if (!tb)
		return;
	free(tb->root);
	free(tb->meta_rel);
	json_decref(tb->meta);
	free(tb->location);
	free(tb->snap_why);
	ice_manifests_free(tb->manifests, tb->n_manifests);
	for (size_t i = 0; i < tb->n_data; i++)
		ice_file_clear(&tb->data[i]);
	free(tb->data);
	for (size_t i = 0; i < tb->n_dels; i++)
		ice_file_clear(&tb->dels[i]);
	free(tb->dels);
	for (size_t i = 0; i < tb->n_problems; i++)
		free(tb->problems[i]);
	free(tb->problems);
	free(tb->dels_unknown);
	pthread_mutex_destroy(&tb->lock);
	free(tb);
}

/* The snapshot the options ask for, or the current one. */
static colfs_status pick_snapshot(ice_table *tb, const colfs_options *o,
				  colfs_err *err)
{
	bool ok;
	int asked = (o->ice_snapshot_set ? 1 : 0) + (o->ice_as_of_set ? 1 : 0) +
		    (o->ice_ref ? 1 : 0);
	char why[160];
	int64_t id = -1;

	if (asked > 1)
		return colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
				  "-o snapshot=, as_of= and ref= each choose the "
				  "snapshot: give one of them");
	if (o->ice_snapshot_set) {
		id = o->ice_snapshot;
		snprintf(why, sizeof why, "-o snapshot=%" PRId64, id);
	} else if (o->ice_ref) {
		json_t *ref = json_object_get(json_object_get(tb->meta, "refs"),
					      o->ice_ref);
		if (ref) {
			id = ice_json_i64(json_object_get(ref, "snapshot-id"), &ok);
			if (!ok)
				return colfs_fail(err, COLFS_ECORRUPT,
						  COLFS_OFFSET_UNKNOWN,
						  "%s: ref %s has no snapshot-id",
						  tb->meta_rel, o->ice_ref);
		} else if (strcmp(o->ice_ref, "main") == 0 &&
			   !json_object_get(tb->meta, "refs")) {
			/* v1 tables may have no refs: main is the current */
			id = ice_json_i64(json_object_get(tb->meta,
							  "current-snapshot-id"), &ok);
		} else {
			return colfs_fail(err, COLFS_EUNSUPPORTED,
					  COLFS_OFFSET_UNKNOWN,
					  "-o ref=%s: the table (%s) has no such "
					  "branch or tag", o->ice_ref,
					  tb->meta_rel);
		}
		snprintf(why, sizeof why, "-o ref=%s", o->ice_ref);
	} else if (o->ice_as_of_set) {
		/* the snapshot log's last entry at or before the instant */
		size_t i;
		json_t *e;
		int64_t best_ts = INT64_MIN;
		json_array_foreach(json_object_get(tb->meta, "snapshot-log"), i, e) {
			int64_t ts = ice_json_i64(json_object_get(e, "timestamp-ms"),
						  &ok);
			if (!ok || ts > o->ice_as_of_ms || ts < best_ts)
				continue;
			int64_t sid = ice_json_i64(json_object_get(e, "snapshot-id"),
						   &ok);
			if (ok) {
				best_ts = ts;
				id = sid;
			}
		}
		if (best_ts == INT64_MIN)
			return colfs_fail(err, COLFS_EUNSUPPORTED,
					  COLFS_OFFSET_UNKNOWN,
					  "-o as_of=%" PRId64 " (ms since the "
					  "epoch): the table (%s) has no "
					  "snapshot that early", o->ice_as_of_ms,
					  tb->meta_rel);
		snprintf(why, sizeof why, "-o as_of=%" PRId64 " (ms)",
			 o->ice_as_of_ms);
	} else {
		json_t *cur = json_object_get(tb->meta, "current-snapshot-id");
		id = json_is_null(cur) || !cur ? -1 : ice_json_i64(cur, &ok);
		snprintf(why, sizeof why, "current");
	}
	if (id == -1 && !asked) {
		tb->snap_id = -1;
		tb->snap = NULL;
	} else {
		tb->snap = ice_snapshot_by_id(tb, id);
		if (!tb->snap)
			return colfs_fail(err, asked ? COLFS_EUNSUPPORTED
						     : COLFS_ECORRUPT,
					  COLFS_OFFSET_UNKNOWN,
					  "%s: no snapshot %" PRId64 " (%s) in "
					  "its snapshots", tb->meta_rel, id, why);
		tb->snap_id = id;
	}
	if (!(tb->snap_why = strdup(why)))
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	/* the snapshot's schema; else the current one */
	int64_t sid = -1;
	if (tb->snap)
		sid = ice_json_i64(json_object_get(tb->snap, "schema-id"), &ok);
	if (sid < 0 || !ok)
		sid = ice_json_i64(json_object_get(tb->meta, "current-schema-id"),
				   &ok);
	if (!ok)
		sid = 0;
	tb->schema_id = sid;
	tb->schema = ice_schema_by_id(tb, sid);
	if (!tb->schema)
		return colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
				  "%s: no schema %" PRId64, tb->meta_rel, sid);
	return COLFS_OK;
}

/* The metadata file `given` (colfs_options.table_metadata) as read
 * (*path: absolute when local) and as tb->meta_rel names it: relative
 * to the root when under it, else by its file name. */
static colfs_status named_metadata(ice_table *tb, const char *given,
				   char **path, colfs_err *err)
{
	if (tb->remote) {
		*path = strdup(given);
	} else if (!(*path = realpath(given, NULL))) {
		int e = errno;
		return colfs_fail(err, e == ENOMEM ? COLFS_ENOMEM : COLFS_EIO,
				  COLFS_OFFSET_UNKNOWN, "%s: %s", given,
				  strerror(e));
	}
	if (!*path)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	size_t rl = strlen(tb->root);
	const char *rel = strrchr(*path, '/');
	rel = rel ? rel + 1 : *path;
	if (strncmp(*path, tb->root, rl) == 0 && (*path)[rl] == '/')
		rel = *path + rl + 1;
	else if (rl == 1 && tb->root[0] == '/' && (*path)[0] == '/')
		rel = *path + 1;
	if (!(tb->meta_rel = strdup(rel)))
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	return COLFS_OK;
}

colfs_status ice_table_load(const char *root, const colfs_options *o,
			    ice_table **out, colfs_err *err)
{
	ice_table *tb = calloc(1, sizeof *tb);
	colfs_status st;

	*out = NULL;
	if (!tb)
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	pthread_mutex_init(&tb->lock, NULL);
	tb->remote = !colfs_source_is_local(root);
	size_t rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	tb->root = strndup(root, rl);
	tb->opts = *o;
	tb->opts.ice_snapshot_set = false;
	tb->opts.ice_as_of_set = false;
	tb->opts.ice_ref = NULL;
	tb->opts.ice_location = NULL;
	tb->opts.table_metadata = NULL;
	tb->snap_id = -1;
	if (!tb->root) {
		ice_table_free(tb);
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	}
	char *path = NULL;
	if (o->table_metadata) {
		/* the table named by a metadata file: that one, whatever
		 * version-hint.text says */
		if ((st = named_metadata(tb, o->table_metadata, &path, err)) !=
		    COLFS_OK) {
			free(path);
			ice_table_free(tb);
			return st;
		}
	} else {
		char *name = NULL;
		if ((st = find_current(tb, o, &name, err)) != COLFS_OK) {
			ice_table_free(tb);
			return st;
		}
		if (asprintf(&tb->meta_rel, "metadata/%s", name) < 0 ||
		    asprintf(&path, "%s/%s", tb->root, tb->meta_rel) < 0) {
			free(name);
			ice_table_free(tb);
			return colfs_fail(err, COLFS_ENOMEM,
					  COLFS_OFFSET_UNKNOWN, "out of memory");
		}
		free(name);
	}
	size_t len;
	char *text = ice_read_whole(path, tb->meta_rel, o, &len, err);
	free(path);
	if (!text) {
		ice_table_free(tb);
		return err->status;
	}
	json_error_t je;
	tb->meta = json_loadb(text, len, 0, &je);
	free(text);
	if (!json_is_object(tb->meta)) {
		colfs_fail(err, COLFS_ECORRUPT, tb->meta ? 0 : (uint64_t)je.position,
			   "%s: %s", tb->meta_rel,
			   tb->meta ? "not a JSON object" : je.text);
		ice_table_free(tb);
		return COLFS_ECORRUPT;
	}
	bool ok;
	int64_t fv = ice_json_i64(json_object_get(tb->meta, "format-version"), &ok);
	if (!ok)
		fv = 1;
	if (fv < 1 || fv > 3) {
		colfs_fail(err, COLFS_EUNSUPPORTED, COLFS_OFFSET_UNKNOWN,
			   "%s: format-version %" PRId64 " (colfs reads 1 to 3)",
			   tb->meta_rel, fv);
		ice_table_free(tb);
		return COLFS_EUNSUPPORTED;
	}
	tb->format_version = (int)fv;
	const char *loc = json_string_value(json_object_get(tb->meta, "location"));
	if (o->ice_location) {
		loc = o->ice_location;
		tb->location_given = true;
	}
	if (!loc) {
		colfs_fail(err, COLFS_ECORRUPT, COLFS_OFFSET_UNKNOWN,
			   "%s: no location", tb->meta_rel);
		ice_table_free(tb);
		return COLFS_ECORRUPT;
	}
	size_t ll = strlen(loc);
	while (ll > 1 && loc[ll - 1] == '/')
		ll--;
	if (!(tb->location = strndup(loc, ll))) {
		ice_table_free(tb);
		return colfs_fail(err, COLFS_ENOMEM, COLFS_OFFSET_UNKNOWN,
				  "out of memory");
	}
	if ((st = pick_snapshot(tb, o, err)) != COLFS_OK) {
		ice_table_free(tb);
		return st;
	}
	*out = tb;
	return COLFS_OK;
}

/* colfs: a dataset's files that the union views cannot read whole
 * (docs/dataset-tree.md, "Damaged files").
 *
 * A file the listing or the Delta log names but the storage lacks, one
 * that changed since the mount (or, in a Delta table, is not the file
 * the log added: another size or another row count than its add
 * action's), and one that cannot be opened or decoded (an encrypted
 * file without its key, a max_alloc refusal, a damaged footer) are
 * damaged files.  The union views (columns/, rows.jsonl, rows.csv, and
 * those of partitions/) never show them as rows that are not there:
 * -o on_damage says what they do at such a file, as it says what a
 * single file's views do at a part they cannot decode (docs/tree.md,
 * "Reading past damage"): fail the read (error, the default), leave its
 * rows out (skip), or read its rows as NULL (null: as many as its
 * footer or the log's numRecords gives; none, and said so, when that
 * is unknown).  What a file is now (its size, its identity) is its
 * source kind's stat (a local file's; an object has none: not checked).
 */
#include "dataset_int.h"
#include "../core/sourcekind.h"
#include "../core/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* " (an active file of the Delta log at version N)" or "". */
static void damage_log_text(char *buf, size_t len, const char *snapshot)
{
	if (snapshot)
		snprintf(buf, len, " (an active file of the %s)", snapshot);
	else
		buf[0] = '\0';
}

colfs_status ds_damage_piece(colfs_tree *t, const colfs_node *view,
			     const ds_damaged *d, colfs_status st,
			     const char *why, uint64_t *nulls, char *msg,
			     size_t msg_len)
{
	colfs_on_damage mode = colfs_tree_options(t)->on_damage;
	char log[128], rows[64];
	*nulls = 0;
	/* a missing file is no missing view: the read fails with EIO */
	if (st == COLFS_OK || st == COLFS_END || st == COLFS_ENOENT)
		st = COLFS_EIO;
	if (!why || !why[0])
		why = colfs_status_name(st);
	/* the reason may name the snapshot already (a file it names
	 * missing) */
	damage_log_text(log, sizeof log, d->snapshot && strstr(why,
			d->snapshot) ? NULL : d->snapshot);
	if (d->rows >= 0)
		snprintf(rows, sizeof rows, "its %lld rows", (long long)d->rows);
	else
		snprintf(rows, sizeof rows, "its rows (how many is unknown)");
	if (mode == COLFS_ON_DAMAGE_NULL && d->rows >= 0) {
		snprintf(msg, msg_len, "%s%s: %s read as NULL in the union "
			 "views: on_damage", why, log, rows);
		*nulls = (uint64_t)d->rows;
	} else if (mode == COLFS_ON_DAMAGE_NULL || mode == COLFS_ON_DAMAGE_SKIP) {
		snprintf(msg, msg_len, "%s%s: %s left out of the union views: "
			 "on_damage", why, log, rows);
	} else {
		snprintf(msg, msg_len, "%s%s: a union view's read fails here "
			 "(on_damage=error)", why, log);
	}
	colfs_tree_report(t, view, UINT64_MAX, st, "%s: %s", d->rel, msg);
	return mode == COLFS_ON_DAMAGE_NULL || mode == COLFS_ON_DAMAGE_SKIP
	       ? COLFS_OK : st;
}

void ds_damage_summary(colfs_buf *out, colfs_on_damage mode, size_t files,
		       int64_t rows, size_t unknown)
{
	static const char *const what[] = {
		[COLFS_ON_DAMAGE_ERROR] = "not served (on_damage=error: a "
					  "read of a union view fails at "
					  "each file)",
		[COLFS_ON_DAMAGE_NULL] = "read as NULL (on_damage=null)",
		[COLFS_ON_DAMAGE_SKIP] = "left out (on_damage=skip)",
	};
	colfs_buf_printf(out, "damaged files: %zu (missing, changed or not "
			 "decodable: see errors)\n", files);
	if (!files)
		return;
	colfs_buf_printf(out, "damaged rows: %lld %s", (long long)rows,
			 what[mode <= COLFS_ON_DAMAGE_SKIP ? mode : 0]);
	if (unknown)
		colfs_buf_printf(out, ", and the rows of %zu file%s whose row "
				 "count is unknown%s", unknown,
				 unknown == 1 ? "" : "s",
				 mode == COLFS_ON_DAMAGE_NULL
				 ? " (left out: how many to read as NULL is "
				   "not known)" : "");
	colfs_buf_putc(out, '\n');
}

char *ds_table_disagrees(const char *path, const ds_table *tb, size_t i,
			 int64_t rows)
{
	const ds_table_file *lf = &tb->files[i];
	const ds_table_kind *k = tb->kind;
	char msg[512];
	colfs_source_stat_info sb;
	if (path && !k->sizes_unchecked &&
	    colfs_source_stat(path, NULL, &sb, msg, sizeof msg) == COLFS_OK &&
	    sb.size != lf->size) {
		snprintf(msg, sizeof msg, "%lld bytes, while the %s adds it "
			 "with size %llu: not the file the %s added",
			 (long long)sb.size, tb->version_label,
			 (unsigned long long)lf->size, k->metadata_noun);
		return strdup(msg);
	}
	if (rows >= 0 && lf->num_records >= 0 && rows != lf->num_records) {
		snprintf(msg, sizeof msg, "its footer gives %lld rows, while "
			 "the %s adds it with %s %lld: not the file the %s "
			 "added", (long long)rows, tb->version_label,
			 k->records_name, (long long)lf->num_records,
			 k->metadata_noun);
		return strdup(msg);
	}
	return NULL;
}

colfs_status ds_identity_check(const char *path, ds_identity *id,
			       uint64_t listed, char *why, size_t why_len)
{
	colfs_source_stat_info sb;
	char none[128];
	if (colfs_source_stat(path, NULL, &sb, none, sizeof none) != COLFS_OK)
		return COLFS_OK;   /* the open says why */
	int64_t mt = sb.mtime_ns;
	if (!id->known) {
		if (listed != UINT64_MAX && sb.size != listed) {
			snprintf(why, why_len, "changed since mount (size %llu "
				 "when listed, %llu now)",
				 (unsigned long long)listed,
				 (unsigned long long)sb.size);
			return COLFS_ECORRUPT;
		}
		*id = (ds_identity){true, sb.size, sb.ino, sb.dev, mt};
		return COLFS_OK;
	}
	if (sb.size != id->size || mt != id->mtime_ns ||
	    sb.ino != id->ino || sb.dev != id->dev) {
		snprintf(why, why_len, "changed since mount (size %llu -> "
			 "%llu%s)", (unsigned long long)id->size,
			 (unsigned long long)sb.size,
			 sb.ino != id->ino ? ", another file"
			 : mt != id->mtime_ns ? ", modified" : "");
		return COLFS_ECORRUPT;
	}
	return COLFS_OK;
}

/* colfs: the members of one line of a file's rows.jsonl, as the union's
 * rows.jsonl reads them (dataset_jsonl.c). */
#ifndef COLFS_DATASET_JSONL_H
#define COLFS_DATASET_JSONL_H

#include <stdbool.h>
#include <stddef.h>

/* One member of a JSON object: its key as written (the quoted string,
 * quotes included) and its value as written (no white space around). */
typedef struct ds_member {
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
} ds_member;

/* Split `line` (one JSON object, no newline) into its members, in
 * order, at most `cap`; white space between the tokens is allowed
 * wherever JSON allows it (Parquet writes `"k":v,`, ORC `"k": v, `).
 * False when the line is not one object of that shape or has more than
 * `cap` members.  The values are delimited, not validated. */
bool ds_jsonl_members(const char *line, size_t len, ds_member *m, size_t cap,
		      size_t *nm);

/* The name a member's key gives in a columns/ directory (escaped as
 * colfs_name_escape does; the k-th repeat of a key among members[0..j]
 * gets "%k", as the tree names repeats), for member `j` of `m`; a key
 * whose escapes do not decode (colfs never writes one) is named by the
 * bytes between its quotes.  A malloc'd string; NULL when out of
 * memory. */
char *ds_jsonl_member_name(const ds_member *m, size_t j);

#endif

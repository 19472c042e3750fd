/* colfs: how a table's fields are found in a file (dataset_members.c):
 * a file's field ids, and, for files written without them, the nested
 * fields of the table's name mapping (Iceberg's
 * schema.name-mapping.default): each struct's members as the table
 * names them, found by the names the mapping gives their ids.  Calls
 * only dataset_jsonl.c and the core (ice_deletes.c calls it too). */
#ifndef COLFS_DATASET_MEMBERS_H
#define COLFS_DATASET_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "../core/buf.h"

/* A top-level field's id in a file's schema.json (`child`: one of its
 * "children"): a Parquet field's field_id, or an ORC type's attribute
 * iceberg.id (Iceberg's ORC writer gives each type its field id so).
 * False: none. */
bool ds_field_id(json_t *child, int64_t *id);

/* The map of a field of table type `type` (Iceberg's schema JSON:
 * struct, list, map) from `mapping` (the mapping's "fields" of that
 * field): a struct node {"struct": [{"name", "names", "node"}, ...]} in
 * the table's member order, a list's {"list": node} of its element, a
 * map's {"map": node} of its value; NULL for a primitive type, a list
 * or map of nothing nested, or a mapping that gives no nested "fields"
 * (values read as the file has them).  New
 * reference; NULL also when memory ran out. */
json_t *ds_members_map(const json_t *type, const json_t *mapping);

/* The JSON value at `p` (`n` bytes, as a file renders it) with `node`
 * applied to `out`: each struct as the table's members in its order
 * (the file's member of a mapped name, its value mapped in turn; null
 * when the file has none), a map's keys kept, a list's elements each
 * mapped.  False when the text is not of the shape the node says. */
bool ds_members_apply(colfs_buf *out, const char *p, size_t n,
		      const json_t *node);

/* A nested leaf's columns/ name below its top-level field (`rest`:
 * ".a.b", each component escaped as colfs_name_escape does) as the
 * table names it (malloc'd, ".x.y"); NULL when a component is no member
 * the mapping names (or memory ran out). */
char *ds_members_leaf(const json_t *node, const char *rest);

#endif

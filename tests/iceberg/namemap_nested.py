#!/usr/bin/python3
"""tests/iceberg: a nested name mapping.

  namemap_nested.py COLFS_TOOL

A table whose data file (DuckDB, no field ids) names its struct members
unlike the table: `meta` {x_old, y_old, zz} for the table's `info`
{x, y}, `tags` a list of structs {p_old} for {p}, `attrs` a map whose
values are structs {q_old} for {q}; the table's
schema.name-mapping.default maps them by the nested `fields` of the
Iceberg spec's "Name Mapping" (a list's element and a map's key and
value by their ids).  columns/, rows.jsonl and rows.csv show the
table's members in its order (zz, which no mapping names, left out; a
member the file lacks null), with the file's values (DuckDB's own
reading of the file); columns/info.x is the file's meta.x_old.  Without
the nested fields the members keep the file's names.  Skips (77) when
DuckDB cannot be had.
"""
import json
import os
import sys
import tempfile

import icecheck
from icecheck import check, tool

TOOL = sys.argv[1]
icecheck.TOOL = TOOL
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import make_table  # noqa: E402

icecheck.need_duckdb()

SCHEMA = [
    {"id": 1, "name": "id", "required": True, "type": "long"},
    {"id": 2, "name": "info", "required": False, "type": {
        "type": "struct", "fields": [
            {"id": 3, "name": "x", "required": False, "type": "long"},
            {"id": 4, "name": "y", "required": False, "type": "string"},
            {"id": 12, "name": "w", "required": False, "type": "long"}]}},
    {"id": 5, "name": "tags", "required": False, "type": {
        "type": "list", "element-id": 6, "element-required": False,
        "element": {"type": "struct", "fields": [
            {"id": 7, "name": "p", "required": False, "type": "int"}]}}},
    {"id": 8, "name": "attrs", "required": False, "type": {
        "type": "map", "key-id": 9, "key": "string", "value-id": 10,
        "value-required": False, "value": {"type": "struct", "fields": [
            {"id": 11, "name": "q", "required": False, "type": "long"}]}}},
]
MAPPING = [
    {"field-id": 1, "names": ["id"]},
    {"field-id": 2, "names": ["meta"], "fields": [
        {"field-id": 3, "names": ["x_old"]},
        {"field-id": 4, "names": ["y", "y_old"]},
        {"field-id": 12, "names": ["w_old"]}]},
    {"field-id": 5, "names": ["tags"], "fields": [
        {"field-id": 6, "names": ["element"], "fields": [
            {"field-id": 7, "names": ["p_old"]}]}]},
    {"field-id": 8, "names": ["attrs"], "fields": [
        {"field-id": 9, "names": ["key"]},
        {"field-id": 10, "names": ["value"], "fields": [
            {"field-id": 11, "names": ["q_old"]}]}]},
]

with tempfile.TemporaryDirectory() as tmp:
    root = os.path.join(tmp, "t")
    os.makedirs(os.path.join(root, "data"))
    pq = os.path.join(root, "data", "d.parquet")
    sel = ("SELECT i::BIGINT AS id,"
           " CASE WHEN i = 2 THEN NULL ELSE {'x_old': i * 10, 'y_old': 'n' || i,"
           " 'zz': -i} END AS meta,"
           " [{'p_old': i::INTEGER}, {'p_old': NULL}] AS tags,"
           " MAP {'k' || i: {'q_old': i * 100}} AS attrs FROM range(4) t(i)")
    res = make_table.duckdb(
        ["COPY (%s) TO %s (FORMAT parquet)" % (sel, make_table.sq(pq))],
        {"rows": "SELECT CAST(id AS VARCHAR), CAST(meta.x_old AS VARCHAR), meta.y_old,"
                 " CAST(tags[1].p_old AS VARCHAR),"
                 " CAST(map_values(attrs)[1].q_old AS VARCHAR),"
                 " map_keys(attrs)[1], CAST(meta IS NULL AS VARCHAR)"
                 " FROM read_parquet(%s) ORDER BY id" % make_table.sq(pq)})
    rows = res["rows"]
    t = make_table.Table(root, root, 2, "null")
    t.schemas.append({"type": "struct", "schema-id": 0, "fields": SCHEMA})
    spec = {"spec-id": 0, "fields": []}
    t.specs.append(spec)
    f = {"content": 0, "rel": "data/d.parquet", "records": 4, "partition": {},
         "size": os.path.getsize(pq)}
    t.snapshot(1, 1, "append", [t.manifest(1, 1, spec, 0, [f])], 0,
               {"added-data-files": "1"})
    meta = t.write_metadata({"main": {"snapshot-id": 1, "type": "branch"}})

    def set_mapping(mapping):
        p = os.path.join(root, meta)
        md = json.load(open(p))
        md["properties"]["schema.name-mapping.default"] = json.dumps(mapping)
        json.dump(md, open(p, "w"))

    def want_row(r):
        i, x, y, p, q, k, null = r
        info = None if null == "true" else {"x": int(x), "y": y, "w": None}
        return {"id": int(i), "info": info, "tags": [{"p": int(p)}, {"p": None}],
                "attrs": {k: {"q": int(q)}}}

    set_mapping(MAPPING)
    want = [want_row(r) for r in rows]
    rc, out, err = tool("cat", root, "rows.jsonl")
    got = [json.loads(x) for x in out.splitlines()] if rc == 0 else None
    check("rows.jsonl: the table's members", got == want, (out, err, want))
    # the members in the table's order, byte for byte
    check("rows.jsonl: info's members in the table's order",
          rc == 0 and '"info":{"x":0,"y":"n0","w":null}' in out, out)
    rc, out, err = tool("cat", root, "columns/info")
    check("columns/info", rc == 0 and [None if x == "\\N" else json.loads(x)
                                       for x in out.splitlines()] ==
          [w["info"] for w in want], (out, err))
    rc, out, err = tool("cat", root, "columns/tags")
    check("columns/tags", rc == 0 and [json.loads(x) for x in out.splitlines()]
          == [w["tags"] for w in want], (out, err))
    rc, out, err = tool("cat", root, "columns/attrs")
    check("columns/attrs", rc == 0 and [json.loads(x) for x in out.splitlines()]
          == [w["attrs"] for w in want], (out, err))
    rc, out, err = tool("ls", root, "columns")
    check("columns/: info.x and info.y, no zz", rc == 0 and
          "info.x" in out.split() and "info.y" in out.split() and
          not any("zz" in c or "old" in c for c in out.split()), out + err)
    rc, out, err = tool("cat", root, "columns/info.x")
    check("columns/info.x is meta.x_old", rc == 0 and out.splitlines() ==
          ["\\N" if r[6] == "true" else r[1] for r in rows], (out, err))
    rc, out, err = tool("cat", root, "rows.csv")
    lines = out.splitlines()
    check("rows.csv: the table's members", rc == 0 and len(lines) == 5 and
          lines[1].startswith('0,"{""x"":0,""y"":""n0"",""w"":null}"'), out + err)
    rc, out, err = tool("cat", root, "errors")
    check("no problem", rc == 0 and out == "", (out, err))

    # without nested fields: the members as the file names them
    set_mapping([{k: v for k, v in e.items() if k != "fields"} for e in MAPPING])
    rc, out, err = tool("cat", root, "columns/info")
    check("no nested mapping: the file's members",
          rc == 0 and out.splitlines()[0] == '{"x_old":0,"y_old":"n0","zz":0}',
          (out, err))

icecheck.finish()

#!/usr/bin/python3
"""tests/iceberg: data files whose columns are not all the table's.

  orc_data.py COLFS_TOOL ORC_GEN

- An ORC data file as Iceberg's ORC writer makes it: each type's field
  id in its attribute iceberg.id (tests/orc/orc_gen with
  ORC_GEN_ICEBERG), its columns named unlike the table's fields (key,
  label for id, name) and two columns the table does not have: columns/,
  rows.jsonl and rows.csv read the table's fields by those ids; the
  expected rows are the file's own rows.jsonl (colfs-tool reading the
  file alone), its members renamed and the others left out.
- A Parquet data file (DuckDB, field ids) holding two columns the
  table's schema dropped: rows.jsonl and rows.csv hold the one field
  left, DuckDB's values.
Skips (77) when DuckDB cannot be had.
"""
import json
import os
import subprocess
import sys
import tempfile

import icecheck
from icecheck import check, tool

TOOL, ORC_GEN = sys.argv[1], sys.argv[2]
icecheck.TOOL = TOOL
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import make_table  # noqa: E402

icecheck.need_duckdb()


def table(root, fields, rel, records):
    """A table of one snapshot of the one data file `rel`."""
    t = make_table.Table(root, root, 2, "null")
    t.schemas.append({"type": "struct", "schema-id": 0, "fields": fields})
    spec = {"spec-id": 0, "fields": []}
    t.specs.append(spec)
    f = {"content": 0, "rel": rel, "records": records, "partition": {},
         "size": os.path.getsize(os.path.join(root, rel))}
    t.snapshot(1, 1, "append", [t.manifest(1, 1, spec, 0, [f])], 0,
               {"added-data-files": "1"})
    t.write_metadata({"main": {"snapshot-id": 1, "type": "branch"}})


with tempfile.TemporaryDirectory() as tmp:
    # ORC, fields by iceberg.id
    root = os.path.join(tmp, "orc")
    os.makedirs(os.path.join(root, "data"))
    orc = os.path.join(root, "data", "d.orc")
    env = dict(os.environ, ORC_GEN_ICEBERG="key=1,label=2,extra_s=30,extra_f=31")
    subprocess.run([ORC_GEN, orc, "20"], env=env, check=True, timeout=60,
                   stdout=subprocess.DEVNULL)
    table(root, [{"id": 1, "name": "id", "required": True, "type": "long"},
                 {"id": 2, "name": "name", "required": False, "type": "string"}],
          "data/d.orc", 20)
    rc, own, err = tool("cat", orc, "rows.jsonl")
    want = [{"id": r["key"], "name": r["label"]}
            for r in map(json.loads, own.splitlines())]
    check("orc: the file's own rows", rc == 0 and len(want) == 20, err)
    rc, out, err = tool("cat", root, "rows.jsonl")
    got = [json.loads(x) for x in out.splitlines()] if rc == 0 else None
    check("orc: rows.jsonl by iceberg.id", got == want, (out, err))
    rc, out, err = tool("cat", root, "rows.csv")
    csv = ["id,name"] + ["%d,%s" % (r["id"], "" if r["name"] is None else r["name"])
                         for r in want]
    check("orc: rows.csv by iceberg.id", rc == 0 and out.splitlines() == csv,
          (out, err))
    rc, out, err = tool("cat", root, "columns/name")
    check("orc: columns/name", rc == 0 and out.splitlines() ==
          ["\\N" if r["name"] is None else r["name"] for r in want], (out, err))
    rc, out, err = tool("cat", root, "errors")
    check("orc: no problem", rc == 0 and out == "", (out, err))

    # Parquet holding two columns the table dropped
    root = os.path.join(tmp, "dropped")
    os.makedirs(os.path.join(root, "data"))
    pq = os.path.join(root, "data", "d.parquet")
    res = make_table.duckdb(
        ["COPY (SELECT i::BIGINT AS a, i * 2 AS b, 'x' || i AS c FROM range(5) t(i))"
         " TO %s (FORMAT parquet, FIELD_IDS {a: 1, b: 2, c: 3})" % make_table.sq(pq)],
        {"a": "SELECT CAST(a AS VARCHAR) FROM read_parquet(%s)" % make_table.sq(pq)})
    want = [r[0] for r in res["a"]]
    table(root, [{"id": 1, "name": "a", "required": True, "type": "long"}],
          "data/d.parquet", 5)
    rc, out, err = tool("cat", root, "rows.jsonl")
    check("dropped: rows.jsonl", rc == 0 and out.splitlines() ==
          ['{"a":%s}' % v for v in want], (out, err))
    rc, out, err = tool("cat", root, "rows.csv")
    check("dropped: rows.csv", rc == 0 and out.splitlines() == ["a"] + want,
          (out, err))

icecheck.finish()

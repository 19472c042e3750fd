#!/usr/bin/python3
"""tests/iceberg: every table of ../shared/corpus/iceberg through
colfs-tool: the union views hold exactly the rows its expected.json gives.

  rows.py COLFS_TOOL CORPUS_DIR

For each table: `columns/<field>` of each field its expected.json names,
sorted, equals the expected values after normalising print forms (the
corpus README: number digits, float32 widening, the T/space and Z/+00
of timestamps, blob escapes); `rows.jsonl` has as many lines, each with
the fields in the schema's order; `summary` names the snapshot.  Older
snapshots: `-o snapshot=ID` of each snapshot whose manifest list is
there gives as many rows as its summary's total-records less its
deleted records.  The damaged table (legacy_bare_deletion_vector) fails
its union views, naming the deletion vector file in errors, and with
-o on_damage=skip shows none of its 3 rows.  Skips (77) when the corpus
is absent.
"""
import glob
import json
import os
import re
import subprocess
import sys

import icecheck
from icecheck import check, tool

TOOL, CORPUS = sys.argv[1], sys.argv[2]
icecheck.TOOL = TOOL
ROOT = os.path.join(CORPUS, "iceberg")


def norm(v):
    """One value's print form, as comparable across DuckDB and colfs."""
    if v == "\\N":
        return v
    m = re.fullmatch(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d(?:\.\d+)?)"
                     r"(Z|[+-]00(?::?00)?)?", v)
    if m:
        frac = m.group(2)
        if "." in frac:
            frac = frac.rstrip("0").rstrip(".")
        return f"{m.group(1)} {frac}" + ("+00" if m.group(3) else "")
    try:
        f = float(v)
        if re.fullmatch(r"-?\d+", v):
            return str(int(v))
        return repr(float(f"{f:.6g}"))
    except ValueError:
        pass
    return v


def unescape_colfs(v):
    """colfs's text escaping of a value (docs/values.md) undone where
    DuckDB prints the same bytes plainly."""
    return v.replace("\\\\", "\\")


tables = sorted(d for d in glob.glob(os.path.join(ROOT, "*")) if os.path.isdir(d))
if not tables:
    print("SKIP: no corpus at", ROOT, "(the shared corpus is not here)")
    sys.exit(77)

for table in tables:
    name = os.path.basename(table)
    with open(os.path.join(table, "expected.json")) as fh:
        exp = json.load(fh)
    rc, summary, err = tool("cat", table, "summary")
    if exp["rows"] is None:
        # the damaged table: its union views fail, the file named
        rc, out, err = tool("cat", table, "rows.jsonl")
        check(f"{name}: rows.jsonl fails", rc != 0 and
              "legacy-bare-deletion-vector.puffin" in err, err)
        rc, errors, _ = tool("cat", table, "errors")
        check(f"{name}: errors names the deletion vector",
              "legacy-bare-deletion-vector.puffin" in errors and
              "not a Puffin file" in errors, errors)
        for mode in ("skip", "null"):
            rc, out, err = tool("-o", f"on_damage={mode}", "cat", table,
                                "columns/id")
            lines = out.splitlines()
            check(f"{name}: on_damage={mode} shows no undeleted row",
                  rc == 0 and all(l == "\\N" for l in lines) and
                  (mode == "skip") == (lines == []), out + err)
        continue
    want_snap = exp["snapshot"]
    check(f"{name}: summary names the snapshot",
          (f"snapshot: {want_snap} " in summary) if want_snap is not None
          else "snapshot: none" in summary, summary)
    rc, ls, err = tool("ls", table, "columns")
    check(f"{name}: columns/ is the schema's fields",
          ls.split() == exp["fields"], ls + err)
    for field in exp["fields"]:
        rc, out, err = tool("cat", table, f"columns/{field}")
        got = sorted(norm(unescape_colfs(v)) for v in out.splitlines())
        want = sorted(norm(v) for v in exp["values"][field])
        check(f"{name}: columns/{field}", rc == 0 and got == want,
              f"{err}\n got  {got}\n want {want}")
    rc, out, err = tool("cat", table, "rows.jsonl")
    lines = out.splitlines()
    ok = rc == 0 and len(lines) == exp["rows"]
    for l in lines:
        ok = ok and list(json.loads(l).keys()) == exp["fields"]
    check(f"{name}: rows.jsonl", ok, out + err)
    rc, out, err = tool("cat", table, "rows.csv")
    check(f"{name}: rows.csv", rc == 0 and len(out.splitlines()) ==
          exp["rows"] + 1, out + err)
    # older snapshots with their manifest lists: their total-records
    # less the deletes' records are the rows
    meta = json.load(open(os.path.join(table, exp["metadata"])))
    for snap in meta.get("snapshots", []):
        ml = snap.get("manifest-list", "")
        rel = ml[len(meta["location"].rstrip("/")) + 1:]
        s = snap.get("summary", {})
        if not rel or not os.path.exists(os.path.join(table, rel)) or \
                "total-records" not in s:
            continue
        if int(s.get("total-equality-deletes", 0)) or \
                int(s.get("total-position-deletes", 0)):
            continue  # how many rows the deletes remove: DuckDB's test
        rc, out, err = tool("-o", f"snapshot={snap['snapshot-id']}", "cat",
                            table, "rows.jsonl")
        check(f"{name}: snapshot {snap['snapshot-id']}", rc == 0 and
              len(out.splitlines()) == int(s["total-records"]), out + err)

# equality deletes by snapshot: DuckDB's own test states each count
# (duckdb-iceberg test/sql/local/iceberg_scans/equality_deletes.test)
t = os.path.join(ROOT, "equality_deletes")
if os.path.isdir(t):
    meta = json.load(open(os.path.join(t, "metadata", "v7.metadata.json")))
    for snap in meta["snapshots"]:
        s = snap["summary"]
        ml = snap["manifest-list"]
        rel = ml[len(meta["location"].rstrip("/")) + 1:]
        if not os.path.exists(os.path.join(t, rel)):
            rc, out, err = tool("-o", f"snapshot={snap['snapshot-id']}", "cat",
                                t, "rows.jsonl")
            check(f"equality_deletes: snapshot {snap['snapshot-id']} "
                  "without its manifest list fails, naming it",
                  rc != 0 and os.path.basename(rel) in err, err)

# partitions/: the partition fields of every spec, valued from the
# manifests' tuples (typed by their transforms), folders only: a
# partition's rows are its files' (spec 0's files have no event_type)
t = os.path.join(ROOT, "hive_partitioned_table")
if os.path.isdir(t):
    rc, out, err = tool("ls", t, "partitions")
    check("hive_partitioned_table: partitions/", out.split() == [
        f"event_date=2024-01-0{d}" for d in (1, 2, 3, 4)], out + err)
    rc, out, err = tool("ls", t, "partitions/event_date=2024-01-04/partitions")
    check("hive_partitioned_table: partitions/event_date=2024-01-04/partitions/",
          out.split() == ["event_type=purchase", "event_type=view"], out + err)
    rc, out, err = tool("cat", t, "partitions/event_date=2024-01-03/columns/user_id")
    check("hive_partitioned_table: a partition's rows",
          sorted(out.split()) == ["13579", "24680"], out + err)
    rc, out, err = tool("cat", t, "partitions/event_date=2024-01-01/rows.jsonl")
    check("hive_partitioned_table: a partition's rows.jsonl keeps the "
          "table's columns only", rc == 0 and [list(json.loads(l))
          for l in out.splitlines()] == [["event_date", "user_id",
                                          "event_type"]], out + err)
t = os.path.join(ROOT, "partition_timestamptz")
if os.path.isdir(t):
    rc, out, err = tool("ls", t, "partitions")
    check("partition_timestamptz: partitions/ typed as timestamptz",
          out.splitlines() == ["partition_col=2023-05-15 14:30:45+00",
                               "partition_col=2023-08-22 09:15:20+00"], out + err)

# iceberg/delete_files.jsonl: which data files each delete applies to,
# by scan planning: a partition's equality delete to its partition's
# file; an unpartitioned one to the data files of lower sequence numbers
t = os.path.join(ROOT, "equality_deletes_partitioned")
if os.path.isdir(t):
    rc, out, err = tool("cat", t, "iceberg/delete_files.jsonl")
    dels = [json.loads(l) for l in out.splitlines()]
    check("equality_deletes_partitioned: delete_files.jsonl", rc == 0 and
          len(dels) == 3 and all(
              d["content"] == "equality deletes" and len(d["applies_to"]) == 1
              and d["applies_to"][0].split("/")[1] == d["path"].split("/")[1]
              for d in dels), out + err)
t = os.path.join(ROOT, "equality_deletes")
if os.path.isdir(t):
    rc, out, err = tool("cat", t, "iceberg/delete_files.jsonl")
    got = sorted((json.loads(l)["data_sequence_number"],
                  len(json.loads(l)["applies_to"])) for l in out.splitlines())
    check("equality_deletes: delete_files.jsonl by sequence number",
          rc == 0 and got == [(2, 1), (3, 1), (4, 1), (6, 2)], out + err)

# options on sources they do not apply to
rc, out, err = tool("-o", "snapshot=1", "ls",
                    os.path.join(CORPUS, "..", "corpus", "iceberg", "uuid",
                                 "data", sorted(os.listdir(
                                     os.path.join(ROOT, "uuid", "data")))[0]))
check("-o snapshot= on a Parquet file is refused",
      rc != 0 and "applies to Apache Iceberg tables" in err, err)
rc, out, err = tool("-o", "version=1", "ls", os.path.join(ROOT, "uuid"))
check("-o version= on an Iceberg table is refused",
      rc != 0 and "applies to Delta tables" in err, err)

icecheck.finish()

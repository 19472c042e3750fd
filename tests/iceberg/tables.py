#!/usr/bin/python3
"""tests/iceberg: tables written by make_table.py through colfs-tool.

  tables.py COLFS_TOOL

make_table.py writes a format version 2 table (position and equality
delete files; paths under s3a://warehouse/db/t2, mapped onto the
directory), the same with its delete files in Avro (`2-avro`: read
through the core's Avro reader, the rows as the Parquet ones give) and
a version 3 one (deletion vectors; a field added with an
initial-default).  Each has five snapshots: an append partitioned by
identity(category), a delete by position, a schema change (`name`
renamed `full_name` (same field id), `score` dropped, `rank` added), an
equality delete within a partition, and an overwrite under an
unpartitioned spec with a global equality delete and a position delete.
For every snapshot (-o snapshot=ID) each field's columns/ values, sorted,
are its expected.json's (DuckDB reading the data files less what the
delete files remove, by the specification's scan planning); rows.jsonl
has as many lines; -o ref= of the tag `first` and the branch `audit`,
and -o as_of= of each snapshot's timestamp, show those snapshots.
make_table.py --transforms writes a table partitioned by bucket,
truncate, day, hour, month and year: each data file is found under
partitions/ at the path of its partition values as Iceberg writes them.
Each feature fails a check when ignored: a rename read by name leaves
full_name NULL, a missed initial-default leaves rank NULL, an ignored
delete keeps rows.  Skips (77) when DuckDB cannot be had.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import icecheck
from icecheck import check, tool

TOOL = sys.argv[1]
icecheck.TOOL = TOOL
here = os.path.dirname(os.path.abspath(__file__))

icecheck.need_duckdb()


def norm(v):
    if v == "\\N":
        return v
    if re.fullmatch(r"-?\d+", v):
        return str(int(v))
    try:
        return repr(float(v))
    except ValueError:
        return v


with tempfile.TemporaryDirectory() as tmp:
    for v in (2, 3, "2-avro"):
        t = os.path.join(tmp, f"v{v}")
        args = ["/usr/bin/python3", os.path.join(here, "make_table.py"), t,
                "--format-version", str(v)[0]]
        if v == 2:
            args += ["--location", "s3a://warehouse/db/t2"]
        if v == "2-avro":
            args += ["--delete-format", "avro"]
        p = subprocess.run(args, capture_output=True, text=True, timeout=180)
        if p.returncode != 0:
            check(f"v{v}: make_table.py", False, p.stdout + p.stderr)
            continue
        exp = json.load(open(os.path.join(t, "expected.json")))
        meta = json.load(open(os.path.join(t, "metadata", sorted(
            f for f in os.listdir(os.path.join(t, "metadata"))
            if f.endswith(".metadata.json"))[-1])))
        for s in exp["snapshots"]:
            sid = s["snapshot"]
            rc, ls, err = tool("-o", f"snapshot={sid}", "ls", t, "columns")
            check(f"v{v} snapshot {sid}: columns/ {s['fields']}",
                  rc == 0 and ls.split() == s["fields"], ls + err)
            for f in s["fields"]:
                rc, out, err = tool("-o", f"snapshot={sid}", "cat", t,
                                    f"columns/{f}")
                got = sorted(norm(x) for x in out.splitlines())
                want = sorted(norm(x) for x in s["values"][f])
                check(f"v{v} snapshot {sid}: columns/{f}",
                      rc == 0 and got == want,
                      f"{err}\n got  {got}\n want {want}")
            rc, out, err = tool("-o", f"snapshot={sid}", "cat", t, "rows.jsonl")
            check(f"v{v} snapshot {sid}: rows.jsonl has {s['rows']} rows",
                  rc == 0 and len(out.splitlines()) == s["rows"], out + err)
        # partitions/: spec 0's identity(category) folders and, for the
        # file of the unpartitioned spec 1, the NULL folder; together
        # they hold the snapshot's rows
        rc, out, err = tool("ls", t, "partitions")
        parts = out.split()
        check(f"v{v}: partitions/", parts == [
            "category=__HIVE_DEFAULT_PARTITION__", "category=a", "category=b"],
            out + err)
        n = 0
        for p in parts:
            rc, out, err = tool("cat", t, f"partitions/{p}/columns/id")
            n += len(out.split())
        check(f"v{v}: partitions/ hold the rows", n == exp["rows"], n)
        # refs and time travel by timestamp
        for ref, r in meta.get("refs", {}).items():
            rc, out, err = tool("-o", f"ref={ref}", "cat", t, "summary")
            check(f"v{v} ref={ref}", f"snapshot: {r['snapshot-id']} (-o ref={ref})"
                  in out, out + err)
        for e in meta.get("snapshot-log", []):
            rc, out, err = tool("-o", f"as_of={e['timestamp-ms']}", "cat", t,
                                "summary")
            check(f"v{v} as_of={e['timestamp-ms']}",
                  f"snapshot: {e['snapshot-id']} " in out, out + err)
        # errors: at most the note that older files lack `rank` (v2: no
        # initial-default, NULL there)
        rc, out, err = tool("cat", t, "errors")
        other = [l for l in out.splitlines()
                 if not l.startswith("/schema: schema drift: field rank ")]
        check(f"v{v}: no problem", rc == 0 and not other and
              (v != 3) == bool(out), out + err)

    # make_table.py --transforms: bucket, truncate, day, hour, month and
    # year partition fields; each file is under partitions/ at the path
    # of its partition values as Iceberg writes them (a NULL value: the
    # __HIVE_DEFAULT_PARTITION__ folder), and the table's rows are there
    t = os.path.join(tmp, "transforms")
    p = subprocess.run(["/usr/bin/python3", os.path.join(here, "make_table.py"),
                        t, "--transforms"], capture_output=True, text=True,
                       timeout=180)
    if p.returncode != 0:
        check("transforms: make_table.py", False, p.stdout + p.stderr)
    else:
        exp = json.load(open(os.path.join(t, "expected.json")))
        total = 0
        for path, vals in sorted(exp["partitions"].items()):
            parts = "/partitions/".join(
                f"{k}={'__HIVE_DEFAULT_PARTITION__' if v in (None, 'null') else v}"
                for k, v in vals.items())
            rc, out, err = tool("ls", t, f"partitions/{parts}/files/" +
                                os.path.dirname(os.path.relpath(path, t)))
            check(f"transforms: partitions/{parts}",
                  rc == 0 and os.path.basename(path) in out.split(), out + err)
        rc, out, err = tool("cat", t, "rows.jsonl")
        check("transforms: rows.jsonl", rc == 0 and
              len(out.splitlines()) == exp["rows"], out + err)

icecheck.finish()

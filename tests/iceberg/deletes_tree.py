#!/usr/bin/python3
"""tests/iceberg: iceberg/deletes/ and the schema of a field no file holds.

  deletes_tree.py COLFS_TOOL CORPUS_DIR

For the corpus's equality_deletes tables and make_table.py's version 2
(position and equality deletes) and version 3 (deletion vectors) tables,
every snapshot (-o snapshot=ID): the folders under iceberg/deletes/ are
exactly the snapshot's live delete files, and each one's `applies_to`
lists exactly the data files an independent reading gives (and
iceberg/deleted_by.jsonl each data file's delete files) (python3-avro
reading the manifest list and manifests; the specification's scan
planning: a position delete applies at a data sequence number >= the
data file's within its partition (and to its referenced_data_file when
it names one), unless a deletion vector applies to that data file; a
deletion vector to its referenced data file; an equality delete at a
strictly greater one within its partition, or everywhere when
unpartitioned).  Each Parquet delete file's `file/columns/<col>` holds
DuckDB's values of it (file_path and pos of a position delete file); a
Puffin file has no `file/`, nor has an Avro delete file (make_table.py
--delete-format avro); a delete file removed fails its `file/` listing.  hive_partitioned_table's `schema` types
event_date, which no data file holds, as the table's date.
Skips (77) when DuckDB cannot be had.
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

import avro.datafile
import avro.io

import icecheck
from icecheck import check, tool

warnings.filterwarnings("ignore", module="avro")

TOOL, CORPUS = sys.argv[1], sys.argv[2]
icecheck.TOOL = TOOL
icecheck.PRINT_OK = False
here = os.path.dirname(os.path.abspath(__file__))

icecheck.need_duckdb()


def duckdb(query):
    with tempfile.TemporaryDirectory() as tmp:
        job, out = os.path.join(tmp, "job.json"), os.path.join(tmp, "out.json")
        with open(job, "w") as f:
            json.dump({"run": ["SET TimeZone = 'UTC'"], "query": query}, f)
        subprocess.run(["node", os.path.join(here, "make_table.mjs"), job, out],
                       check=True, timeout=300)
        with open(out) as f:
            return json.load(f)


def read_avro(path):
    with open(path, "rb") as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))


def expected(table, md, snap):
    """{delete file's relative path: set of data files' relative paths}."""
    loc = md["location"].rstrip("/")

    def rel(p):
        return p[len(loc) + 1:] if p.startswith(loc + "/") else p
    data, dels = [], []
    for m in read_avro(os.path.join(table, rel(snap["manifest-list"]))):
        for e in read_avro(os.path.join(table, rel(m["manifest_path"]))):
            if e["status"] == 2:
                continue
            d = e["data_file"]
            seq = e["sequence_number"]
            if seq is None:
                seq = m["sequence_number"]
            rec = {"path": d["file_path"], "content": d["content"], "seq": seq,
                   "spec": m["partition_spec_id"], "part": d["partition"] or {},
                   "ref": d.get("referenced_data_file"),
                   "dv": d.get("content_offset") is not None}
            (data if d["content"] == 0 else dels).append(rec)
    out = {rel(x["path"]): set() for x in dels}
    for d in data:
        same = [x for x in dels
                if x["spec"] == d["spec"] and x["part"] == d["part"]]
        dvs = [x for x in same if x["content"] == 1 and x["dv"]
               and x["ref"] == d["path"] and x["seq"] >= d["seq"]]
        for x in dvs:
            out[rel(x["path"])].add(rel(d["path"]))
        for x in dels:
            if x["content"] == 1 and not x["dv"] and not dvs and \
               x in same and x["seq"] >= d["seq"] and \
               x["ref"] in (None, d["path"]):
                out[rel(x["path"])].add(rel(d["path"]))
            if x["content"] == 2 and x["seq"] > d["seq"] and \
               (not x["part"] or x in same):
                out[rel(x["path"])].add(rel(d["path"]))
    return out


def folders(t, opt, path):
    """The delete-file folders under iceberg/deletes/PATH (those holding
    applies_to), as paths relative to iceberg/deletes/."""
    rc, out, err = tool("-o", opt, "ls", t, "/iceberg/deletes/" + path)
    if rc != 0:
        check("ls " + path, False, err)
        return []
    names = out.split()
    if "applies_to" in names:
        return [path]
    res = []
    for n in names:
        res += folders(t, opt, (path + "/" if path else "") + n)
    return res


tables = []
for name in ("equality_deletes", "equality_deletes_partitioned"):
    t = os.path.join(CORPUS, "iceberg", name)
    if os.path.isdir(t):
        tables.append((name, t))
    else:
        print("SKIP corpus table %s: not at %s" % (name, t))

parquet_checks = []   # (label, table, opt, folder, local file)
with tempfile.TemporaryDirectory() as tmp:
    for v in ("2", "3", "2-avro"):
        t = os.path.join(tmp, "v" + v)
        p = subprocess.run(["/usr/bin/python3", os.path.join(here, "make_table.py"),
                            t, "--format-version", v[0], "--location",
                            "s3a://warehouse/db/t" + v] +
                           (["--delete-format", "avro"] if "avro" in v else []),
                           capture_output=True, text=True, timeout=180)
        if p.returncode != 0:
            check("make_table.py v" + v, False, p.stdout + p.stderr)
            continue
        tables.append(("make_table v" + v, t))

    kinds_seen = set()
    for label, t in tables:
        rc, out, err = tool("cat", t, "/iceberg/metadata.json")
        if rc != 0:
            check(label + " metadata.json", False, err)
            continue
        md = json.loads(out)
        for snap in md.get("snapshots", []):
            sid = snap["snapshot-id"]
            opt = "snapshot=%d" % sid
            try:
                exp = expected(t, md, snap)
            except FileNotFoundError as e:
                # the corpus keeps the manifests of some snapshots only
                print("SKIP %s @%d: %s" % (label, sid, e))
                continue
            got = sorted(folders(t, opt, ""))
            check("%s @%d: delete folders" % (label, sid), got == sorted(exp),
                  (got, sorted(exp)))
            by = {}
            for key, datas in exp.items():
                for dfile in datas:
                    by.setdefault(dfile, set()).add(key)
            rc, out, err = tool("-o", opt, "cat", t, "/iceberg/deleted_by.jsonl")
            want = [{"path": k, "deletes": sorted(by[k])} for k in sorted(by)]
            check("%s @%d: deleted_by.jsonl" % (label, sid), rc == 0 and
                  [json.loads(x) for x in out.splitlines()] == want,
                  (out, want, err))
            for key in sorted(set(got) & set(exp)):
                rc, out, err = tool("-o", opt, "cat", t,
                                    "/iceberg/deletes/%s/applies_to" % key)
                check("%s @%d: %s applies_to" % (label, sid, key),
                      rc == 0 and out.splitlines() == sorted(exp[key]),
                      (out, sorted(exp[key]), err))
                rc, out, err = tool("-o", opt, "cat", t,
                                    "/iceberg/deletes/%s/entries.jsonl" % key)
                ents = [json.loads(x) for x in out.splitlines()] if rc == 0 else []
                check("%s @%d: %s entries" % (label, sid, key),
                      ents and all(e["path"] == key for e in ents), (out, err))
                rc, ls, err = tool("-o", opt, "ls", t, "/iceberg/deletes/" + key)
                if key.endswith(".puffin") or key.endswith(".avro"):
                    kinds_seen.update(e["content"] for e in ents)
                    check("%s: %s has no file/" % (label, key),
                          rc == 0 and "file" not in ls.split(), ls)
                else:
                    kinds_seen.update(e["content"] for e in ents)
                    parquet_checks.append((label, t, opt, key,
                                           os.path.join(t, key)))
    check("every kind of delete met", kinds_seen >= {
        "position deletes", "equality deletes", "deletion vector"}, kinds_seen)

    # each Parquet delete file's columns, as DuckDB reads them
    uniq = {}
    for c in parquet_checks:
        uniq.setdefault(c[4], c)
    files = sorted(uniq)
    cols = duckdb({str(i): "SELECT column_name FROM (DESCRIBE SELECT * FROM "
                   "read_parquet('%s', hive_partitioning = false))" % f.replace("'", "''")
                   for i, f in enumerate(files)})
    q = {}
    for i, f in enumerate(files):
        for (c,) in cols[str(i)]:
            q["%d/%s" % (i, c)] = 'SELECT CAST("%s" AS VARCHAR) FROM ' \
                "read_parquet('%s', hive_partitioning = false)" % (c.replace('"', '""'), f.replace("'", "''"))
    vals = duckdb(q)
    for i, f in enumerate(files):
        label, t, opt, key, _ = uniq[f]
        names = [c for (c,) in cols[str(i)]]
        if "file_path" in names or "pos" in names:
            check("%s: %s holds file_path and pos" % (label, key),
                  "file_path" in names and "pos" in names, names)
        for c in names:
            rc, out, err = tool("-o", opt, "cat", t, "/iceberg/deletes/%s/file/columns/%s"
                                % (key, c))
            want = ["\\N" if r[0] is None else r[0] for r in vals["%d/%s" % (i, c)]]
            check("%s: %s file/columns/%s" % (label, key, c),
                  rc == 0 and out.splitlines() == want, (out, want, err))

    # a delete file gone: its file/ cannot be listed (never an empty
    # tree), its entries still can
    gone = [c for c in parquet_checks if c[0] == "make_table v2"]
    if gone:
        label, t, opt, key, local = gone[-1]
        os.unlink(local)
        rc, out, err = tool("-o", opt, "ls", t, "/iceberg/deletes/%s/file" % key)
        check("%s: %s gone: file/ fails" % (label, key), rc != 0 and
              key.rsplit("/", 1)[-1] in err, (rc, out, err))
        rc, out, err = tool("-o", opt, "cat", t,
                            "/iceberg/deletes/%s/entries.jsonl" % key)
        check("%s: %s gone: entries.jsonl" % (label, key),
              rc == 0 and key in out, (rc, out, err))

# a field no data file holds: the table's own type in schema
t = os.path.join(CORPUS, "iceberg", "hive_partitioned_table")
if os.path.isdir(t):
    rc, out, err = tool("cat", t, "/schema")
    check("hive_partitioned_table schema types event_date",
          rc == 0 and "  optional int32 event_date (DATE) = 1; -- the table's "
          "type: no file holds this field\n" in out, (out, err))
else:
    print("SKIP hive_partitioned_table: not at %s" % t)

icecheck.finish()

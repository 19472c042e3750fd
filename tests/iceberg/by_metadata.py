#!/usr/bin/python3
"""tests/iceberg: tables named by a metadata file rather than by their
directory, through colfs-tool.

  by_metadata.py COLFS_TOOL CORPUS_DIR

For each table of ../shared/corpus/iceberg: named by the metadata file
its expected.json says is current, summary, iceberg/metadata.json,
columns/<field>, rows.jsonl and rows.csv are byte for byte what the
table's directory gives (the damaged table fails the same way, naming
its deletion vector).  Every older metadata file gives that version: its
summary names the file and the snapshot the file's own
current-snapshot-id says, iceberg/metadata.json is the file's bytes, and
where its manifest list is there and nothing is deleted its rows are its
snapshot summary's total-records; -o snapshot= of another snapshot of
that file still applies.  A gzip-compressed metadata file in a folder
that is not metadata/ (the table's root its folder), a metadata file
that does not exist and one that is not JSON (each error names the
file).  Skips (77) when the corpus is absent.
"""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

import icecheck
from icecheck import check, tool

TOOL, CORPUS = sys.argv[1], sys.argv[2]
icecheck.TOOL = TOOL
ROOT = os.path.join(CORPUS, "iceberg")


def metadata_files(table):
    return sorted(f for f in glob.glob(os.path.join(table, "metadata", "*"))
                  if ".metadata.json" in os.path.basename(f))


tables = sorted(d for d in glob.glob(os.path.join(ROOT, "*")) if os.path.isdir(d))
if not tables:
    print("SKIP: no corpus at", ROOT, "(the shared corpus is not here)")
    sys.exit(77)

for table in tables:
    name = os.path.basename(table)
    exp = json.load(open(os.path.join(table, "expected.json")))
    current = os.path.join(table, exp["metadata"])
    rc, cols, err = tool("ls", table, "columns")
    paths = ["summary", "iceberg/metadata.json", "rows.jsonl", "rows.csv"] + \
        ["columns/" + c for c in cols.split()]
    for p in paths:
        a = tool("cat", table, p)
        b = tool("cat", current, p)
        # messages name the source as given
        b = (b[0], b[1], b[2].replace(current, table))
        check(f"{name}: {exp['metadata']} {p} is the directory's",
              a == b and (a[0] == 0 or exp["rows"] is None), f"{a}\n{b}")
    if exp["rows"] is None:
        rc, out, err = tool("cat", current, "rows.jsonl")
        check(f"{name}: by its metadata file, rows.jsonl fails naming the "
              "deletion vector", rc != 0 and
              "legacy-bare-deletion-vector.puffin" in err, err)
    # each older metadata file: that version of the table
    for mf in metadata_files(table):
        if os.path.samefile(mf, current):
            continue
        rel = os.path.relpath(mf, table)
        raw = open(mf, "rb").read()
        meta = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b"
                          else raw)
        sid = meta.get("current-snapshot-id")
        if sid is not None and sid < 0:
            sid = None
        snaps = {s["snapshot-id"]: s for s in meta.get("snapshots", [])}
        s = snaps.get(sid)
        ml = s.get("manifest-list", "") if s else ""
        mrel = ml[len(meta["location"].rstrip("/")) + 1:]
        if mrel and not os.path.exists(os.path.join(table, mrel)):
            # the corpus left this snapshot's manifest list out
            rc, out, err = tool("cat", mf, "summary")
            check(f"{name}: {rel}: its snapshot without its manifest list "
                  "fails, naming it",
                  rc != 0 and os.path.basename(mrel) in err, err)
            continue
        rc, summary, err = tool("cat", mf, "summary")
        want = f"snapshot: {sid} " if sid is not None else "snapshot: none"
        check(f"{name}: {rel}: summary names the file and snapshot {sid}",
              rc == 0 and want in summary and rel in summary, summary + err)
        rc, doc, err = tool("cat", mf, "iceberg/metadata.json")
        check(f"{name}: {rel}: iceberg/metadata.json is the file's",
              rc == 0 and json.loads(doc) == meta, doc[:300] + err)
        if s is not None and exp["rows"] is not None:
            sm = s.get("summary", {})
            if mrel and os.path.exists(os.path.join(table, mrel)) and \
                    "total-records" in sm and \
                    not int(sm.get("total-equality-deletes", 0)) and \
                    not int(sm.get("total-position-deletes", 0)):
                rc, out, err = tool("cat", mf, "rows.jsonl")
                check(f"{name}: {rel}: rows.jsonl holds snapshot {sid}'s "
                      f"{sm['total-records']} rows", rc == 0 and
                      len(out.splitlines()) == int(sm["total-records"]),
                      out + err)
        # -o snapshot= within the file: another snapshot it lists
        for other in snaps:
            if other == sid:
                continue
            a = tool("-o", f"snapshot={other}", "cat", mf, "summary")
            check(f"{name}: {rel} -o snapshot={other}",
                  a[0] == 0 and f"snapshot: {other} " in a[1], a)
            break

work = tempfile.mkdtemp(prefix="colfs-ice-bymeta.")
try:
    # a gzip-compressed metadata file outside metadata/: the table's
    # root is its folder, where its data/ is found by the location
    t = os.path.abspath(os.path.join(ROOT, "equality_deletes_partitioned"))
    if os.path.isdir(t):
        exp = json.load(open(os.path.join(t, "expected.json")))
        d = os.path.join(work, "copy")
        os.makedirs(d)
        os.symlink(os.path.join(t, "data"), os.path.join(d, "data"))
        os.symlink(os.path.join(t, "metadata"), os.path.join(d, "metadata"))
        with open(os.path.join(t, exp["metadata"]), "rb") as fh, \
                open(os.path.join(d, "v6.metadata.json.gz"), "wb") as out:
            out.write(gzip.compress(fh.read()))
        gz = os.path.join(d, "v6.metadata.json.gz")
        for p in ("rows.jsonl", "iceberg/metadata.json"):
            a = tool("cat", t, p)
            b = tool("cat", gz, p)
            check(f"a .metadata.json.gz outside metadata/: {p}",
                  a == b and a[0] == 0, f"{a}\n{b}")
        rc, summary, err = tool("cat", gz, "summary")
        check("its summary names v6.metadata.json.gz",
              "v6.metadata.json.gz" in summary, summary + err)
    # errors name the file
    missing = os.path.join(tables[0], "metadata", "v999.metadata.json")
    rc, out, err = tool("cat", missing, "summary")
    check("a metadata file that does not exist", rc != 0 and
          "v999.metadata.json" in err and "No such file" in err, err)
    bad = os.path.join(work, "bad")
    os.makedirs(os.path.join(bad, "metadata"))
    with open(os.path.join(bad, "metadata", "v1.metadata.json"), "w") as fh:
        fh.write('{"format-version": 2, "location": ')
    rc, out, err = tool("cat", os.path.join(bad, "metadata",
                                            "v1.metadata.json"), "summary")
    check("a metadata file that is not JSON: the JSON error, naming it",
          rc != 0 and "metadata/v1.metadata.json: unexpected" in err, err)
finally:
    shutil.rmtree(work, ignore_errors=True)

icecheck.finish()

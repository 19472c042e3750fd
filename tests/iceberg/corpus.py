#!/usr/bin/python3
"""tests/iceberg: every table of ../shared/corpus/iceberg through ice-dump,
checked against an independent reading of its metadata.

  corpus.py ICE_DUMP CORPUS_DIR

For each table: the metadata file and current snapshot ice-dump picks are
the ones its expected.json names; for every snapshot of the table (-o
snapshot=ID), and for the snapshots -o ref= and -o as_of= resolve to,
the live data and delete files (path, content, data sequence number,
partition tuple, record count) are the ones Debian's python3-avro reads
from the manifest list and manifests, with sequence numbers inherited as
the Iceberg specification says; a table without delete files holds the
rows its expected.json gives; the iceberg/ folder lists every snapshot
and manifest and reads without a problem.  Skips (77) when the corpus is
absent.
"""
import datetime
import glob
import json
import os
import subprocess
import sys
import uuid

import avro.datafile
import avro.io

ICE_DUMP, CORPUS = sys.argv[1], sys.argv[2]
ROOT = os.path.join(CORPUS, "iceberg")
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def dump(table, *opts, tree=False):
    args = [ICE_DUMP]
    for o in opts:
        args += ["-o", o]
    if tree:
        args.append("--tree")
    args.append(table)
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout


def parse(out):
    """ice-dump's header fields and file lines."""
    head, files, problems = {}, [], []
    for line in out.splitlines():
        if line.startswith("data ") or line.startswith("delete "):
            parts = line.split(" ")
            f = {"path": parts[1]}
            i = 2
            while i < len(parts):
                k = parts[i]
                if k == "partition":
                    # the tuple is compact JSON without spaces
                    f[k] = json.loads(parts[i + 1])
                    i += 2
                elif k in ("content", "seq", "spec", "records", "size"):
                    f[k] = int(parts[i + 1])
                    i += 2
                else:
                    i += 1
            files.append(f)
        elif line.startswith("problem"):
            problems.append(line)
        elif line.startswith("/"):
            break
        elif " " in line:
            k, v = line.split(" ", 1)
            head[k] = v
    return head, files, problems


def read_avro(path):
    with open(path, "rb") as fh:
        return list(avro.datafile.DataFileReader(fh, avro.io.DatumReader()))


def rel(meta, path):
    loc = meta["location"].rstrip("/")
    assert path.startswith(loc + "/"), path
    return path[len(loc) + 1:]


def missing_list(table, meta, snap):
    """The snapshot's manifest list when it is not in the table (some
    corpus tables keep only the current snapshots' lists)."""
    ml = snap.get("manifest-list")
    if ml and not os.path.exists(os.path.join(table, rel(meta, ml))):
        return rel(meta, ml)
    return None


def stored(v):
    """A partition value as the manifest stores it: python3-avro gives
    dates and timestamps as objects, colfs the stored integers."""
    if isinstance(v, datetime.datetime):
        if v.tzinfo is None:
            v = v.replace(tzinfo=datetime.timezone.utc)
        d = v - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, uuid.UUID):
        return str(v)
    raise TypeError(type(v))


def live_files(table, meta, snap):
    """The snapshot's live files as the specification's scan planning
    reads them: (path, content, data sequence number, partition,
    record count), sorted."""
    fv = meta.get("format-version", 1)
    if "manifest-list" in snap:
        mlist = read_avro(os.path.join(table, rel(meta, snap["manifest-list"])))
    else:
        mlist = [{"manifest_path": p} for p in snap.get("manifests", [])]
    out = []
    for m in mlist:
        mseq = m.get("sequence_number") or 0
        for e in read_avro(os.path.join(table, rel(meta, m["manifest_path"]))):
            if e["status"] == 2:
                continue
            df = e["data_file"]
            seq = e.get("sequence_number")
            if seq is None:
                seq = 0 if fv == 1 else mseq
            content = df.get("content", 0) or 0
            out.append((rel(meta, df["file_path"]), content, seq,
                        json.dumps(df["partition"], sort_keys=True, default=stored),
                        df["record_count"]))
    return sorted(out)


def dumped_files(files):
    return sorted((f["path"], f["content"], f["seq"],
                   json.dumps(f["partition"], sort_keys=True), f["records"])
                  for f in files)


tables = sorted(d for d in glob.glob(os.path.join(ROOT, "*"))
                if os.path.isdir(d))
if not tables:
    print("SKIP: no corpus at", ROOT, "(the shared corpus is not here)")
    sys.exit(77)

for table in tables:
    name = os.path.basename(table)
    with open(os.path.join(table, "expected.json")) as fh:
        exp = json.load(fh)
    with open(os.path.join(table, exp["metadata"])) as fh:
        meta = json.load(fh)
    rc, out = dump(table)
    if rc != 0:
        fail(f"{name}: ice-dump failed: {out.strip()}")
        continue
    head, files, problems = parse(out)
    if head.get("metadata") != exp["metadata"]:
        fail(f"{name}: metadata {head.get('metadata')} != {exp['metadata']}")
    want_snap = exp["snapshot"] if exp["snapshot"] is not None else -1
    if not head.get("snapshot", "").startswith(f"{want_snap} "):
        fail(f"{name}: snapshot {head.get('snapshot')} != {want_snap}")
    if problems:
        fail(f"{name}: problems: {problems}")
    if exp["snapshot"] is not None:
        snap = [s for s in meta["snapshots"]
                if s["snapshot-id"] == exp["snapshot"]][0]
        if dumped_files(files) != live_files(table, meta, snap):
            fail(f"{name}: current files differ:\n {dumped_files(files)}\n"
                 f" {live_files(table, meta, snap)}")
        if exp["rows"] is not None and not any(f["content"] for f in files):
            n = sum(f["records"] for f in files)
            if n != exp["rows"]:
                fail(f"{name}: {n} rows != {exp['rows']}")
    elif files:
        fail(f"{name}: an empty table lists files")
    # every snapshot, by id; each log entry by as_of; each ref by name
    for snap in meta.get("snapshots", []):
        sid = snap["snapshot-id"]
        rc, out = dump(table, f"snapshot={sid}")
        h, fs, _ = parse(out)
        gone = missing_list(table, meta, snap)
        if gone:
            # named, with the snapshot, never an empty table
            if rc != 1 or gone not in out or f"snapshot {sid}:" not in out:
                fail(f"{name}: snapshot {sid} without {gone}: {out[-300:]}")
            continue
        if rc or not h.get("snapshot", "").startswith(f"{sid} "):
            fail(f"{name}: -o snapshot={sid}: {out.strip()[:200]}")
            continue
        if dumped_files(fs) != live_files(table, meta, snap):
            fail(f"{name}: snapshot {sid}: files differ")
    for e in meta.get("snapshot-log", []):
        rc, out = dump(table, f"as_of={e['timestamp-ms']}")
        h, _, _ = parse(out)
        if not h.get("snapshot", "").startswith(f"{e['snapshot-id']} "):
            fail(f"{name}: as_of={e['timestamp-ms']}: {h.get('snapshot')}")
    for ref, r in meta.get("refs", {}).items():
        rc, out = dump(table, f"ref={ref}")
        h, _, _ = parse(out)
        if not h.get("snapshot", "").startswith(f"{r['snapshot-id']} "):
            fail(f"{name}: ref={ref}: {h.get('snapshot')}")
    # the iceberg/ folder: each snapshot's manifests, no problem
    rc, out = dump(table, tree=True)
    listed = [l for l in out.splitlines() if l.startswith("/iceberg/")]
    for snap in meta.get("snapshots", []):
        d = f"/iceberg/snapshots/{snap['snapshot-id']}/"
        if d not in listed:
            fail(f"{name}: {d} not listed")
            continue
        if missing_list(table, meta, snap):
            n = 0
        elif "manifest-list" in snap:
            n = len(read_avro(os.path.join(table,
                                           rel(meta, snap["manifest-list"]))))
        else:
            n = len(snap.get("manifests", []))
        got = [l for l in listed if l.startswith(d + "manifests/")
               and l.endswith(" bytes)")]
        if len(got) != n:
            fail(f"{name}: {d}manifests/ holds {len(got)} of {n}")
    probs = [l for l in out.splitlines() if l.startswith("problem /")]
    gone = [missing_list(table, meta, s) for s in meta.get("snapshots", [])]
    gone = [g for g in gone if g]
    for g in gone:
        if not any(g in p for p in probs):
            fail(f"{name}: iceberg/: {g} missing but not a problem")
    if rc != (1 if gone else 0) or len(probs) != 2 * len(gone):
        fail(f"{name}: iceberg/ tree: rc {rc}, {probs}")
    print(f"ok {name}")

# options that choose no snapshot of the table
t = os.path.join(ROOT, "uuid")
for opts, words in ((["snapshot=1"], "no snapshot 1"),
                    (["ref=nosuch"], "no such branch or tag"),
                    (["as_of=1970-01-01"], "no snapshot that early"),
                    (["snapshot=1", "ref=main"], "give one of them")):
    rc, out = dump(t, *opts)
    if rc != 1 or words not in out:
        fail(f"uuid -o {opts}: {out.strip()[:200]}")
# as_of as a date and time: the snapshot current then
rc, out = dump(t, "as_of=2100-01-01 00:00:00Z")
if not parse(out)[0].get("snapshot", "").startswith("3974286791591741252 "):
    fail(f"as_of=2100-01-01: {out.strip()[:200]}")
# -o location= replaces the metadata's prefix: nothing maps, the files
# are read where written (relative paths: not there)
rc, out = dump(t, "location=/elsewhere")
h, fs, probs = parse(out)
if (h.get("location") != "/elsewhere (given)" or rc != 1 or
        "manifest list data/persistent/uuid/metadata/snap-" not in out):
    fail(f"location=/elsewhere: {out.strip()[:300]}")

print(f"{len(tables) + 6 - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)

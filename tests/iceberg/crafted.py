#!/usr/bin/python3
"""tests/iceberg: crafted variants of corpus tables through ice-dump.

  crafted.py ICE_DUMP CORPUS_DIR COLFS_TOOL

Each case copies a table of ../shared/corpus/iceberg into a temporary
folder, changes one thing and checks what ice-dump says: gzip-compressed
metadata, the forms of version-hint.text, a hint naming no file, a
missing or truncated manifest (a problem naming it and the snapshot, the
other manifests' files kept), metadata that is not JSON, an unknown
format version, a partition transform changed (month: YYYY-MM, day:
dates, neither filling a column); through colfs-tool, a missing manifest fails the union
views (on_damage=error) naming it while the tree lists, and
on_damage=skip shows the other manifests' rows.  Skips (77) when the
corpus is absent.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

ICE_DUMP, CORPUS, TOOL = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.join(CORPUS, "iceberg")
if not os.path.isdir(os.path.join(ROOT, "equality_deletes")):
    print("SKIP: no corpus at", ROOT, "(the shared corpus is not here)")
    sys.exit(77)

passed = failed = 0


def check(name, cond, out):
    global passed, failed
    if cond:
        passed += 1
        print("ok", name)
    else:
        failed += 1
        print("FAIL", name, "\n", out[-800:])


def dump(table, *opts):
    args = [ICE_DUMP]
    for o in opts:
        args += ["-o", o]
    p = subprocess.run(args + [table], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def copy(tmp, name):
    dst = os.path.join(tmp, name)
    shutil.copytree(os.path.join(ROOT, name), dst)
    return dst


with tempfile.TemporaryDirectory() as tmp:
    # equality_deletes: v1..v7, hint 7; snapshot of v7 is 1916084761853986166
    t = copy(tmp, "equality_deletes")
    md = os.path.join(t, "metadata")
    _, base = dump(t)
    cur = "snapshot 1916084761853986166 "

    # gzip-compressed current metadata, no hint: the highest version
    os.remove(os.path.join(md, "version-hint.text"))
    with open(os.path.join(md, "v7.metadata.json"), "rb") as fh:
        data = fh.read()
    os.remove(os.path.join(md, "v7.metadata.json"))
    with gzip.open(os.path.join(md, "v7.gz.metadata.json"), "wb") as fh:
        fh.write(data)
    rc, out = dump(t)
    check("gzip .gz.metadata.json, no hint", rc == 0 and
          "metadata metadata/v7.gz.metadata.json" in out and cur in out and
          out.split("schema", 1)[1] == base.split("schema", 1)[1], out)
    os.rename(os.path.join(md, "v7.gz.metadata.json"),
              os.path.join(md, "v7.metadata.json.gz"))
    rc, out = dump(t)
    check("gzip .metadata.json.gz", rc == 0 and cur in out, out)

    # hint forms: a number, a number with white space, a file name
    for hint, want in (("3", "metadata/v3.metadata.json"),
                       (" 5\n", "metadata/v5.metadata.json"),
                       ("v4.metadata.json", "metadata/v4.metadata.json"),
                       ("v6", "metadata/v6.metadata.json"),
                       ("99", "metadata/v7.metadata.json.gz")):
        with open(os.path.join(md, "version-hint.text"), "w") as fh:
            fh.write(hint)
        rc, out = dump(t)
        check(f"version-hint {hint!r}", f"metadata {want}\n" in out,
              out)
    os.remove(os.path.join(md, "version-hint.text"))

    # a manifest missing: named with the snapshot, the others' files kept
    t = copy(tmp, "equality_deletes_partitioned")
    rc, out = dump(t)
    files_before = [l for l in out.splitlines() if l.startswith(("data ", "delete "))]
    victim = os.path.join(t, "metadata",
                          "ff275eec-b23b-435f-a6a5-1ab7ce1c8749-m0.avro")
    os.remove(victim)
    rc, out = dump(t)
    probs = [l for l in out.splitlines() if l.startswith("problem: ")]
    files_after = [l for l in out.splitlines() if l.startswith(("data ", "delete "))]
    check("missing manifest", rc == 0 and len(probs) == 1 and
          "ff275eec-b23b-435f-a6a5-1ab7ce1c8749-m0.avro (snapshot "
          "3138177759849079112): I/O" in probs[0] and
          len(files_after) == len(files_before) - 1, out)

    # the same through the tree: the root lists, errors names the
    # manifest, the union views fail; skip shows the other rows
    def tool(*a):
        p = subprocess.run([TOOL] + list(a), capture_output=True,
                           text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr
    rc, ls, err = tool("ls", t)
    check("missing manifest: the root lists", rc == 0 and "iceberg" in ls,
          ls + err)
    rc, out, err = tool("cat", t, "rows.jsonl")
    check("missing manifest: rows.jsonl fails naming it", rc != 0 and
          "the table's files are not all known" in err and
          "ff275eec-b23b-435f-a6a5-1ab7ce1c8749-m0.avro" in err, out + err)
    rc, out, err = tool("cat", t, "errors")
    check("missing manifest: errors names it with the snapshot",
          "/iceberg: " in out and "ff275eec-b23b-435f-a6a5-1ab7ce1c8749-m0"
          ".avro (snapshot 3138177759849079112)" in out, out + err)
    # a delete manifest: every data file's deletes are unknown, so
    # skip shows no row (never one its deletes may remove) and null
    # shows each file's rows as NULL
    rc, out, err = tool("-o", "on_damage=skip", "cat", t, "columns/id")
    check("missing delete manifest: on_damage=skip shows no row",
          rc == 0 and out == "", out + err)
    rc, out, err = tool("-o", "on_damage=null", "cat", t, "columns/id")
    check("missing delete manifest: on_damage=null shows NULL rows",
          rc == 0 and out.split() == ["\\N"] * 6, out + err)
    rc, out, err = tool("-o", "on_damage=skip", "cat", t, "errors")
    check("missing delete manifest: each data file named",
          out.count("its deletes cannot be read: the snapshot's delete "
                    "manifest") == 6, out + err)
    # a data manifest: its files are unknown; skip shows the others',
    # their deletes applied (name=b and name=c's rows deleted)
    t2 = os.path.join(tmp, "data-manifest")
    shutil.copytree(os.path.join(ROOT, "equality_deletes_partitioned"), t2)
    os.remove(os.path.join(t2, "metadata",
                           "ec04e9ce-e03b-4fbe-a707-3645c1938319-m0.avro"))
    rc, out, err = tool("-o", "on_damage=skip", "cat", t2, "columns/id")
    check("missing data manifest: on_damage=skip shows the known rows",
          rc == 0 and sorted(out.split()) == ["1", "4"], out + err)

    # a manifest cut short: a problem naming it (truncated or corrupt)
    m = os.path.join(t, "metadata", "2b5d4ce3-154e-4498-a648-89be96ebd74a-m0.avro")
    with open(m, "rb") as fh:
        data = fh.read()
    with open(m, "wb") as fh:
        fh.write(data[:len(data) * 2 // 3])
    rc, out = dump(t)
    probs = [l for l in out.splitlines() if l.startswith("problem: ")]
    check("truncated manifest", rc == 0 and len(probs) == 2 and any(
        "2b5d4ce3-154e-4498-a648-89be96ebd74a-m0.avro (snapshot "
        "3138177759849079112)" in p for p in probs), out)

    # two files of one version, above the count of files in metadata/,
    # no hint: the greatest name of the highest version
    t3 = os.path.join(tmp, "same-version")
    shutil.copytree(os.path.join(ROOT, "uuid"), t3)
    md3 = os.path.join(t3, "metadata")
    os.remove(os.path.join(md3, "version-hint.text"))
    cur3 = "00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json"
    shutil.copy(os.path.join(md3, cur3), os.path.join(md3, "v99.metadata.json"))
    os.rename(os.path.join(md3, cur3),
              os.path.join(md3, "00099-43fda1f4.metadata.json"))
    rc, out = dump(t3)
    check("two files of the highest version", rc == 0 and
          "metadata metadata/v99.metadata.json\n" in out, out)

    # a partition field's transform decides its values' type and
    # whether it fills a column: event_date's spec fields made `month`
    # (the stored values 19723.. read as months since 1970-01, not days)
    # and `day` (dates)
    for tr, want in (("month", ["event_date=3613-08", "event_date=3613-09",
                                "event_date=3613-10", "event_date=3613-11"]),
                     ("day", ["event_date=2024-01-01", "event_date=2024-01-02",
                              "event_date=2024-01-03", "event_date=2024-01-04"])):
        t4 = os.path.join(tmp, "transform-" + tr)
        shutil.copytree(os.path.join(ROOT, "hive_partitioned_table"), t4)
        mp = os.path.join(t4, "metadata", "v4.metadata.json")
        m = json.load(open(mp))
        for spec in m["partition-specs"]:
            for f in spec["fields"]:
                if f["name"] == "event_date":
                    f["transform"] = tr
        json.dump(m, open(mp, "w"))
        p = subprocess.run([TOOL, "ls", t4, "partitions"], capture_output=True,
                           text=True, timeout=60)
        check(f"transform {tr}: partitions/", p.stdout.split() == want,
              p.stdout + p.stderr)
        # not an identity partition: a file lacking event_date reads NULL
        p = subprocess.run([TOOL, "cat", t4, "columns/event_date"],
                           capture_output=True, text=True, timeout=60)
        check(f"transform {tr}: no column value from it",
              p.stdout.split() == ["\\N"] * 6, p.stdout + p.stderr)

    # metadata that is not JSON; an unknown format version
    t = copy(tmp, "uuid")
    cur = os.path.join(t, "metadata",
                       "00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json")
    with open(cur) as fh:
        text = fh.read()
    with open(cur, "w") as fh:
        fh.write(text[:100])
    rc, out = dump(t)
    check("metadata not JSON", rc == 1 and "error: corrupt" in out.lower() and
          "00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json" in out,
          out)
    with open(cur, "w") as fh:
        fh.write(text.replace('"format-version" : 2', '"format-version" : 4'))
    rc, out = dump(t)
    check("format-version 4", rc == 1 and "format-version 4" in out, out)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)

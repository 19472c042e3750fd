#!/usr/bin/python3
"""on_damage: a damaged mount's columns/ against a healthy reading.

    damage-check.py MODE DAMAGED_DIR HEALTHY_DIR FIELD... -- ROW_RANGE...
    damage-check.py MODE DAMAGED_DIR HEALTHY_DIR --all NUM_ROWS -- ROW_RANGE...

MODE null: every DAMAGED_DIR/<field> has as many lines as
HEALTHY_DIR/<field>; the rows of each ROW_RANGE (A:B, B exclusive) are
\\N; every other row equals the healthy one.  MODE skip: the lines are
the healthy ones without those rows.  With --all, the fields are every
file of DAMAGED_DIR (a `columns/` directory: it must hold the same names
as HEALTHY_DIR), and every healthy file has NUM_ROWS lines (the file's
num_rows), so under null every damaged one has too.  A ROW_RANGE
FIELD=A:B applies to that field alone.  Exit 0 when all holds.
"""
import os
import sys

mode, bad_dir, good_dir = sys.argv[1:4]
sep = sys.argv.index("--")
fields, ranges = sys.argv[4:sep], sys.argv[sep + 1:]
num_rows = None
if fields[:1] == ["--all"]:
    num_rows = int(fields[1])
    fields = sorted(os.listdir(bad_dir))
    if not fields or fields != sorted(os.listdir(good_dir)):
        print("FAIL: %s holds %s, the healthy %s" % (
            bad_dir, fields, sorted(os.listdir(good_dir))), file=sys.stderr)
        sys.exit(1)
fails = 0
for f in fields:
    hidden = set()
    for r in ranges:
        name, _, r = r.rpartition("=")
        if name in ("", f):
            a, b = map(int, r.split(":"))
            hidden.update(range(a, b))
    got = open("%s/%s" % (bad_dir, f)).read().split("\n")[:-1]
    good = open("%s/%s" % (good_dir, f)).read().split("\n")[:-1]
    if num_rows is not None and len(good) != num_rows:
        fails += 1
        print("FAIL: healthy %s: %d lines, the file has %d rows"
              % (f, len(good), num_rows), file=sys.stderr)
        continue
    if mode == "null":
        want = ["\\N" if i in hidden else v for i, v in enumerate(good)]
    else:
        want = [v for i, v in enumerate(good) if i not in hidden]
    if got != want:
        fails += 1
        diff = [i for i in range(min(len(got), len(want))) if got[i] != want[i]]
        print("FAIL: %s: %d lines, expected %d; first difference at line %s"
              % (f, len(got), len(want), diff[:1]), file=sys.stderr)
    else:
        print("ok: %s: %d lines, %d %s" % (f, len(got), len(hidden),
              "NULL" if mode == "null" else "left out"))
sys.exit(1 if fails else 0)

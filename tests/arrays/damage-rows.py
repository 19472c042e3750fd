#!/usr/bin/python3
"""on_damage: a damaged mount's rows.jsonl or rows.csv against a healthy
reading.

    damage-rows.py MODE DAMAGED HEALTHY FIELD... -- ROW_RANGE...

MODE null: DAMAGED has as many rows as HEALTHY; in the rows of each
ROW_RANGE (A:B, B exclusive) the FIELDs are NULL (JSON null, or an
empty CSV field) and the other fields equal the healthy ones; every other
row equals the healthy one.  MODE skip: the rows are the healthy ones
without those rows.  A .csv file's header line must be the healthy one.
Exit 0 when all holds.
"""
import csv
import json
import sys

mode, bad, good = sys.argv[1:4]
sep = sys.argv.index("--")
fields, ranges = sys.argv[4:sep], sys.argv[sep + 1:]
hidden = set()
for r in ranges:
    a, b = map(int, r.split(":"))
    hidden.update(range(a, b))


def load(path):
    """The rows as dicts (and the CSV header, or None)."""
    with open(path, newline="") as f:
        if path.endswith(".csv"):
            rd = csv.reader(f)
            head = next(rd)
            return head, [dict(zip(head, row)) for row in rd]
        return None, [json.loads(line) for line in f]


gh, grows = load(good)
bh, brows = load(bad)
null = "" if good.endswith(".csv") else None
if mode == "null":
    want = []
    for i, row in enumerate(grows):
        if i in hidden:
            row = dict(row)
            for k in fields:
                row[k] = null
        want.append(row)
else:
    want = [row for i, row in enumerate(grows) if i not in hidden]
if bh != gh:
    print("FAIL: %s: header %s, expected %s" % (bad, bh, gh), file=sys.stderr)
    sys.exit(1)
if brows != want:
    diff = [i for i in range(min(len(brows), len(want))) if brows[i] != want[i]]
    print("FAIL: %s: %d rows, expected %d; first difference at row %s: %s"
          % (bad, len(brows), len(want), diff[:1],
             [brows[diff[0]], want[diff[0]]] if diff else ""), file=sys.stderr)
    sys.exit(1)
print("ok: %s: %d rows, %d %s" % (bad.rsplit("/", 1)[-1], len(brows),
      len(hidden), "with NULL fields" if mode == "null" else "left out"))

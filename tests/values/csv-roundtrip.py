#!/usr/bin/python3
"""rows.csv read back by pandas' read_csv gives the values of the rows it
was made of (csv-roundtrip.sh drives it).

    csv-roundtrip.py WANT.json GOT.csv

WANT.json is what `csv-roundtrip.mjs check` wrote: the fields (name,
DuckDB type) and every row as DuckDB's text of each value (nested values
as to_json), null for NULL.  GOT.csv is read with pandas' defaults but
for the NULL spellings (only an empty field is missing: `keep_default_na
= False, na_values = ['']`, so the strings "NULL" and "\\N" stay strings)
and round-trip float parsing.  Numeric fields must come back as numbers
(a NULL as NaN), booleans as booleans, every other field as the same text
(nested ones the same JSON).  pandas reads an empty field as missing
whether it is quoted or not, so an empty string reads as NaN there (the
DuckDB check tells "" from NULL).  The rows are compared in the order of
the first field.  Exit 0 when all holds."""
import json
import math
import sys

import pandas as pd

want_path, got_path = sys.argv[1:3]
with open(want_path) as f:
    want = json.load(f)
fields, rows = want["fields"], want["rows"]
names = [f["name"] for f in fields]
got = pd.read_csv(got_path, keep_default_na=False, na_values=[""],
                  float_precision="round_trip")
bad = []
if list(got.columns) != names:
    bad.append("header %r, want %r" % (list(got.columns), names))
if len(got) != len(rows):
    bad.append("%d rows, want %d" % (len(got), len(rows)))
if bad:
    print("FAIL: %s: %s" % (got_path, "; ".join(bad)), file=sys.stderr)
    sys.exit(1)
got = got.sort_values(names[0], kind="stable").reset_index(drop=True)
rows = sorted(rows, key=lambda r: float(r[names[0]]))

NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE",
           "DECIMAL")


def missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


for f in fields:
    name, typ = f["name"], f["type"]
    col = got[name]
    nested = any(c in typ for c in "[(") and not typ.startswith("DECIMAL")
    numeric = typ.startswith(NUMERIC) and not nested
    if numeric and col.dtype.kind not in "if":
        bad.append("%s (%s) read as %s, not a number" % (name, typ, col.dtype))
        continue
    for i, r in enumerate(rows):
        w, g = r[name], col[i]
        if numeric:
            ok = missing(g) if w is None else \
                not missing(g) and float(g) == float(w)
        elif typ == "BOOLEAN":
            ok = missing(g) if w is None else g is not None and \
                not missing(g) and bool(g) == (w == "true")
        elif w is None or w == "":
            ok = missing(g)
        elif nested:
            ok = isinstance(g, str) and json.loads(g) == json.loads(w)
        else:
            ok = isinstance(g, str) and g == w
        if not ok:
            bad.append("row %d %s (%s): pandas %r, want %r" %
                       (i, name, typ, g, w))
if bad:
    for b in bad[:10]:
        print("FAIL: %s: %s" % (got_path, b), file=sys.stderr)
    sys.exit(1)
print("ok: %s: pandas reads %d rows of %d fields, the same values"
      % (got_path, len(rows), len(fields)))

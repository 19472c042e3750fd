#!/usr/bin/python3
"""arrays/*.npy of a mount against the expected values, value by value.

    check-npy.py DIR CSV [FIRST_ROW]
    check-npy.py DIR --columns COLUMNS_DIR


DIR is an `arrays/` directory of a fresh mount; CSV has a header line of
field names and one line a row, every value a plain number (floats as
Python reads them, DATE as days and TIMESTAMP in its unit since the
epoch, DECIMAL unscaled, BOOLEAN 0/1) and NULL as an empty field.  With
FIRST_ROW, DIR holds rows FIRST_ROW.. of the CSV (a row group's arrays).

Checked: every file's size on the fresh mount (before any read) is the
.npy header plus rows x itemsize; every field of the CSV has a .npy and,
when it is nullable, a .nulls.npy; numpy.load of each equals the CSV
(NULL: the mask True and the value 0); numpy.load(mmap_mode='r') at
random rows answers the same values.  Exit 0 when all holds.

With --columns, the expected values are the text views COLUMNS_DIR/<field>
of the same mount for each <field>.npy of DIR (integers, floats, true and
false, DECIMALs with their scale's digits, dates and times as
docs/values.md renders them; \\N for NULL): for files whose writer is the
project's own, and files of the corpus that DuckDB cannot write (ORC,
FLOAT16).
"""
import csv
import os
import random
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from colfs_text import civil  # noqa: E402

d, csv_path = sys.argv[1], sys.argv[2]
first = int(sys.argv[3]) if len(sys.argv) > 3 and csv_path != "--columns" else 0
problems = []

# sizes first: nothing has been read from this mount yet
names = sorted(n for n in os.listdir(d) if n.endswith(".npy"))
sizes = {n: os.stat(os.path.join(d, n)).st_size for n in names}

def render_time(v, unit):
    per = {"D": 1, "s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    if unit == "D":
        days, frac = v, None
    else:
        secs, sub = divmod(v, per)
        days, sod = divmod(secs, 86400)
        frac = (sod, sub)
    y, m, d = civil(days)
    text = "%04d-%02d-%02d" % (y if y > 0 else 1 - y, m, d)
    bc = " (BC)" if y <= 0 else ""
    if frac is None:
        return text + bc
    sod, sub = frac
    text += bc + " %02d:%02d:%02d" % (sod // 3600, sod // 60 % 60, sod % 60)
    if sub:
        text += ("." + ("%0*d" % (len(str(per)) - 1, sub))).rstrip("0")
    return text + "+00"


from_columns = csv_path == "--columns"
if csv_path == "--columns":
    header = [n[:-4] for n in names if not n.endswith(".nulls.npy")]
    cols = []
    for h in header:
        with open(os.path.join(sys.argv[3], h)) as f:
            cols.append([{"\\N": "", "true": "1", "false": "0"}.get(x, x)
                         for x in f.read().split("\n")[:-1]])
    rows = [list(r) for r in zip(*cols)]
    first = 0
else:
    with open(csv_path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        rows = list(r)
nrows = None

for col, field in enumerate(header):
    path = os.path.join(d, field + ".npy")
    if not os.path.exists(path):
        problems.append("%s: no %s.npy" % (d, field))
        continue
    arr = np.load(path)
    if nrows is None:
        nrows = len(arr)
    want = [row[col] for row in rows[first:first + len(arr)]]
    if len(arr) != len(want):
        problems.append("%s: %d rows, expected %d" % (path, len(arr), len(want)))
        continue
    with open(path, "rb") as f:
        whole = f.read()
    # the size on the fresh mount: the header (a multiple of 64 bytes, its
    # length at bytes 8-9) and the values
    hlen = 10 + int.from_bytes(whole[8:10], "little")
    if hlen % 64 or sizes[field + ".npy"] != hlen + len(arr) * arr.dtype.itemsize \
            or len(whole) != sizes[field + ".npy"]:
        problems.append("%s: size %d on the fresh mount, %d read, header %d + %d x %d"
                        % (path, sizes[field + ".npy"], len(whole), hlen, len(arr),
                           arr.dtype.itemsize))
    npath = os.path.join(d, field + ".nulls.npy")
    nulls = np.load(npath) if os.path.exists(npath) else None
    if nulls is not None and (nulls.dtype != np.bool_ or len(nulls) != len(arr)):
        problems.append("%s: dtype %s, %d rows" % (npath, nulls.dtype, len(nulls)))
        nulls = None
    kind = arr.dtype.kind
    ints = arr.view("i8") if kind == "M" else arr
    empty = np.array([w == "" for w in want], dtype=bool)
    if kind == "M" and from_columns:
        # the text views show dates and times as docs/values.md says:
        # compare the array's values rendered the same way
        unit = np.datetime_data(arr.dtype)[0]
        exp_text = [w for w in want]
        got_text = [render_time(int(x), unit) for x in ints]
        # a time without a zone (ORC TIMESTAMP) is shown without "+00"
        got_text = [g[:-3] if g.endswith("+00") and not w.endswith("+00")
                    else g for g, w in zip(got_text, exp_text)]
        eq = np.array([g == w for g, w in zip(got_text, exp_text)], dtype=bool)
        exp = None
    elif kind == "f":
        exp = np.array([float(w) if w else 0.0 for w in want], dtype=arr.dtype)
        eq = (ints == exp) | (np.isnan(ints) & np.isnan(exp))
    elif kind == "b":
        exp = np.array([w == "1" for w in want], dtype=bool)
        eq = ints == exp
    else:
        # a DECIMAL's text has its scale's digits after the point: the
        # array holds the unscaled integer
        exp = np.array([int(w.replace(".", "")) if w else 0 for w in want],
                       dtype=ints.dtype)
        eq = ints == exp
    isnull = nulls if nulls is not None else np.zeros(len(arr), dtype=bool)
    # a NULL: masked, and 0 in the values; else unmasked and equal
    ok = np.where(empty, isnull & (ints == 0), ~isnull & eq)
    bad = int((~ok).sum())
    for i in np.flatnonzero(~ok)[:5]:
        problems.append("%s: row %d: %r (null %s), expected %r"
                        % (path, first + i, ints[i], isnull[i], want[i]))
    # random access through mmap: the pages holding these rows only
    m = np.load(path, mmap_mode="r")
    mi = m.view("i8") if kind == "M" else m
    rnd = random.Random(len(arr))
    for i in [len(arr) - 1, 0] + [rnd.randrange(len(arr)) for _ in range(50)]:
        if mi[i] != ints[i] and not (kind == "f" and np.isnan(mi[i]) and np.isnan(ints[i])):
            problems.append("%s: mmap row %d: %r, read whole %r" % (path, i, mi[i], ints[i]))
            break
    del m, mi
    print("ok: %s: %d rows, %s%s, %d NULL" % (
        field, len(arr), arr.dtype.str,
        " (+ nulls)" if nulls is not None else "",
        int(nulls.sum()) if nulls is not None else 0) if not bad else
        "FAIL: %s: %d rows differ" % (field, bad))
    if nulls is None and any(w == "" for w in want):
        problems.append("%s: NULLs and no .nulls.npy" % path)

extra = set(names) - {h + s for h in header for s in (".npy", ".nulls.npy")}
if extra:
    problems.append("%s: not expected: %s" % (d, ", ".join(sorted(extra))))
for p in problems:
    print("FAIL: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)

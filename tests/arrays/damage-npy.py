#!/usr/bin/python3
"""on_damage: a damaged mount's arrays/ against a healthy mount's.

    damage-npy.py DAMAGED_DIR HEALTHY_DIR ROW_RANGE...

Every <field>.npy of HEALTHY_DIR is in DAMAGED_DIR with the same length
and a <field>.nulls.npy (on_damage=null or skip: every field gets one);
the rows of each ROW_RANGE (A:B, B exclusive; FIELD=A:B for that field
alone) are masked with the value 0, every other row has the healthy value and mask (False where the
healthy field has no .nulls.npy).  The arrays keep every row under skip
too (docs/tree.md, "Reading past damage").  Exit 0 when all holds.
"""
import os
import sys

import numpy as np

bad_dir, good_dir = sys.argv[1:3]
fields = sorted(n[:-4] for n in os.listdir(good_dir)
                if n.endswith(".npy") and not n.endswith(".nulls.npy"))
fails = 0
if not fields:
    print("FAIL: %s has no arrays" % good_dir, file=sys.stderr)
    sys.exit(1)
for f in fields:
    good = np.load("%s/%s.npy" % (good_dir, f))
    gn_path = "%s/%s.nulls.npy" % (good_dir, f)
    gnull = (np.load(gn_path) if os.path.exists(gn_path)
             else np.zeros(len(good), dtype=bool))
    hidden = np.zeros(len(good), dtype=bool)
    for r in sys.argv[3:]:
        name, _, r = r.rpartition("=")
        if name in ("", f):
            a, b = map(int, r.split(":"))
            hidden[a:b] = True
    try:
        bad = np.load("%s/%s.npy" % (bad_dir, f))
        bnull = np.load("%s/%s.nulls.npy" % (bad_dir, f))
    except OSError as e:
        print("FAIL: %s: %s" % (f, e), file=sys.stderr)
        fails += 1
        continue
    gi = good.view("i8") if good.dtype.kind == "M" else good
    bi = bad.view("i8") if bad.dtype.kind == "M" else bad
    if bad.dtype != good.dtype or len(bad) != len(good) or len(bnull) != len(good):
        print("FAIL: %s: %s x %d (nulls %d), healthy %s x %d" % (
            f, bad.dtype, len(bad), len(bnull), good.dtype, len(good)),
            file=sys.stderr)
        fails += 1
        continue
    same = (bi == gi) | ((gi != gi) & (bi != bi))   # NaN equals NaN
    ok = np.where(hidden, bnull & (bi == 0), (bnull == gnull) & same)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        print("FAIL: %s: row %d: %r (null %s), healthy %r (null %s), hidden %s"
              % (f, i, bi[i], bnull[i], gi[i], gnull[i], hidden[i]),
              file=sys.stderr)
        fails += 1
    else:
        print("ok: %s.npy: %d rows, %d masked" % (f, len(bad), int(hidden.sum())))
sys.exit(1 if fails else 0)

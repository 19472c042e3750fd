#!/usr/bin/env python3
"""Count meson test results from testlog.json files into one line.

Each argument is PATH[:LABEL].  Prints one line per failed test (with its
log tail), one summary line per log, and last "N passed, N failed".
Skipped tests are neither: they are listed with their reason.
"""
import json
import sys

passed = failed = skipped = 0
for arg in sys.argv[1:]:
    path, _, label = arg.partition(":")
    try:
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(l) for l in f if l.strip()]
    except OSError as e:
        print(f"[{label}] no results: {e}")
        failed += 1
        continue
    p = fl = s = 0
    for t in lines:
        r = t.get("result")
        name = f"[{label}] {t.get('name')}"
        if r in ("OK", "EXPECTEDFAIL"):
            p += 1
        elif r == "SKIP":
            s += 1
            out = (t.get("stdout") or "").strip().splitlines()
            print(f"skipped {name}: {out[-1] if out else ''}")
        else:
            fl += 1
            print(f"FAILED {name} ({r})")
            out = ((t.get("stdout") or "") + (t.get("stderr") or "")).strip().splitlines()
            for l in out[-15:]:
                print(f"    {l}")
    print(f"[{label}] {p} passed, {fl} failed, {s} skipped")
    passed += p
    failed += fl
    skipped += s
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)

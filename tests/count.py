#!/usr/bin/env python3
"""Count meson test results from testlog.json files into one line.

Each argument is PATH[:LABEL].  Prints one line per failed test (with its
log tail), one summary line per log, and last "N passed, N failed".
Skipped tests are neither: they are listed with their reason (skip_reason).
"""
import json
import sys


def skip_reason(t):
    """Why a test skipped: what it printed, on stdout or on stderr (meson
    keeps a test's stderr apart when it wrote any; the shell tests say
    "SKIP: why" there).  The last line that speaks of a skip, else the
    last line of stderr, else of stdout."""
    lines = []
    for key in ('stdout', 'stderr'):
        lines += [l.strip() for l in (t.get(key) or '').splitlines()
                  if l.strip()]
    for l in reversed(lines):
        if 'skip' in l.lower():
            return l
    err = [l.strip() for l in (t.get('stderr') or '').splitlines()
           if l.strip()]
    if err:
        return err[-1]
    if lines:
        return lines[-1]
    return '(the test printed no reason: it must say why it skips)'


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
            print(f"skipped {name}: {skip_reason(t)}")
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

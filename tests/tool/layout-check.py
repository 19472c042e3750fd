#!/usr/bin/python3
"""Every `layout` follows the one grammar of docs/tree.md, "layout".

    layout-check.py TOOL FILE...     each FILE's layout (TOOL cat FILE layout)
    layout-check.py --text LAYOUT SIZE   a layout saved in LAYOUT, of a
                                     file of SIZE bytes

A layout holds, one per line:

    OFFSET LENGTH KIND PATH     a region (KIND: lower-case letters, digits
                                and '_'; PATH: the rest of the line, a tree
                                path starting with '/')
    OFFSET LENGTH gap -         bytes of the file that no region claims
    OFFSET LENGTH overlap -     bytes of the region above that an earlier
                                region claims too

Checked: each line parses (decimal numbers without leading zeros); the
regions are sorted by offset, then length, then path; the gap and overlap
lines are exactly those the regions call for, where they call for them
(a gap before the region that ends it, an overlap right after its
region); and the regions and gaps cover the file: every byte of the file
is in exactly one gap or in at least one region, gaps lie inside the
file, and region bytes - overlap bytes + gap bytes = size + the bytes the
regions claim past the end.

A FILE the tool refuses (exit 2: not readable at all) has no layout and
is counted, not checked.  Exit 0 when every layout holds, 1 otherwise
(each fault printed as FILE: line N: what).
"""
import re
import subprocess
import sys

LINE = re.compile(rb"^(0|[1-9][0-9]*) (0|[1-9][0-9]*) ([a-z0-9_]+) (.+)$")
U64 = (1 << 64) - 1


def expected_lines(regions, size):
    """The lines the grammar calls for around `regions` (sorted)."""
    out, covered = [], 0
    for off, length, kind, path in regions:
        end = min(off + length, U64)
        if off > covered and covered < size:
            out.append((covered, min(off, size) - covered, b"gap", b"-"))
        out.append((off, length, kind, path))
        if off < covered and end > off:
            out.append((off, min(covered, end) - off, b"overlap", b"-"))
        covered = max(covered, end)
    if covered < size:
        out.append((covered, size - covered, b"gap", b"-"))
    return out


def union(intervals):
    """Merged [start, end) intervals, sorted."""
    merged = []
    for s, e in sorted(i for i in intervals if i[1] > i[0]):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged


def check(text, size):
    """The faults of one layout, as (line number or 0, message)."""
    faults = []
    if text and not text.endswith(b"\n"):
        faults.append((0, "the last line has no newline"))
    lines = []
    for n, raw in enumerate(text.split(b"\n")[:-1] if text else [], 1):
        m = LINE.match(raw)
        if not m:
            faults.append((n, "not OFFSET LENGTH KIND PATH: %r" % raw))
            continue
        off, length = int(m.group(1)), int(m.group(2))
        kind, path = m.group(3), m.group(4)
        if off > U64 or length > U64:
            faults.append((n, "a number past 2^64"))
        if kind in (b"gap", b"overlap"):
            if path != b"-":
                faults.append((n, "a %s line's path is not '-'" %
                               kind.decode()))
        elif not path.startswith(b"/"):
            faults.append((n, "a region's path does not start with /"))
        lines.append((n, (off, length, kind, path)))
    if faults:
        return faults
    regions = [l for _, l in lines if l[2] not in (b"gap", b"overlap")]
    for a, b in zip(regions, regions[1:]):
        if (a[0], a[1], a[3]) > (b[0], b[1], b[3]):
            n = next(n for n, l in lines if l is b)
            faults.append((n, "regions not sorted by offset, length, path"))
            return faults
    want = expected_lines(regions, size)
    got = [l for _, l in lines]
    if got != want:
        for i, (g, w) in enumerate(zip(got + [None] * len(want),
                                       want + [None] * len(got))):
            if g != w:
                n = lines[i][0] if i < len(lines) else len(lines) + 1
                faults.append((n, "expected %s, found %s" % (
                    b" ".join(str(x).encode() if isinstance(x, int) else x
                              for x in w).decode(errors="replace")
                    if w else "the end",
                    b" ".join(str(x).encode() if isinstance(x, int) else x
                              for x in g).decode(errors="replace")
                    if g else "the end")))
                break
        return faults
    # the cover: gaps inside the file, disjoint from the regions, and
    # together with them every byte of the file
    gaps = [(o, o + l) for o, l, k, _ in got if k == b"gap"]
    claimed = union((o, min(o + l, U64)) for o, l, _, _ in regions)
    for s, e in gaps:
        if e > size:
            faults.append((0, "a gap past the end of the file"))
        if any(s < ce and cs < e for cs, ce in claimed):
            faults.append((0, "a gap inside a region"))
    inside = union([(s, min(e, size)) for s, e in claimed if s < size] +
                   gaps)
    if size and inside != [[0, size]]:
        faults.append((0, "regions and gaps cover %s, not [0, %d)" %
                       (inside, size)))
    past = sum(e - max(s, size) for s, e in claimed if e > size)
    total = (sum(l for o, l, k, _ in got if k not in (b"gap", b"overlap"))
             - sum(l for o, l, k, _ in got if k == b"overlap")
             + sum(l for o, l, k, _ in got if k == b"gap"))
    if total != size + past:
        faults.append((0, "regions - overlaps + gaps = %d, not %d + %d "
                       "past the end" % (total, size, past)))
    return faults


def report(name, faults):
    for n, msg in faults:
        print("%s: line %d: %s" % (name, n, msg) if n else
              "%s: %s" % (name, msg))
    return 1 if faults else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--text":
        with open(argv[2], "rb") as f:
            return report(argv[2], check(f.read(), int(argv[3])))
    if len(argv) < 3:
        raise SystemExit(__doc__)
    tool, bad, checked, refused = argv[1], 0, 0, 0
    for name in argv[2:]:
        with open(name, "rb") as f:
            size = f.seek(0, 2)
        p = subprocess.run([tool, "cat", name, "layout"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        if p.returncode == 2:
            refused += 1
            continue
        if p.returncode != 0:
            bad += report(name, [(0, "colfs-tool cat layout: exit %d: %s" %
                                  (p.returncode,
                                   p.stderr.decode(errors="replace")))])
            continue
        checked += 1
        bad += report(name, check(p.stdout, size))
    print("layout-check: %d layouts checked, %d files refused by the tool, "
          "%d with faults" % (checked, refused, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

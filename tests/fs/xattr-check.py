#!/usr/bin/env python3
"""tests/fs: checks of a mount's extended attributes and layout.svg.

  xattr-check.py layout MNT            every layout line's node: its
                                       user.colfs.offset/length equal the
                                       line (getfattr -d dumps, read here)
  xattr-check.py attrs MNT PATH k=v... the attributes of one node (v '*':
                                       present, any value; '!': absent)
  xattr-check.py errno MNT PATH        ENODATA, ERANGE and exact sizes
                                       through the system calls (ctypes)
  xattr-check.py svg MNT DIR           DIR/layout.svg against `layout`:
                                       one region per line in scope, each
                                       titled with its path and numbers
  xattr-check.py png FILE.png yes|no   the damage color is (or is not) in
                                       a PNG (read with zlib)
  xattr-check.py batch MNT             the checks above on MNT, one a line
                                       from stdin ("attrs PATH k=v...",
                                       "layout", "errno PATH", "svg DIR"):
                                       one interpreter for a case
  xattr-check.py dump MNT DUMP N       DUMP is `getfattr -R -d -m -
                                       --absolute-names -e text MNT`: it
                                       names every node of MNT once, each
                                       with its kind and its tree path;
                                       every Nth node's attributes equal
                                       its own `getfattr -d`; then the
                                       `attrs` and `layout` lines of stdin
                                       are checked against DUMP
Exit 0 when it holds, 1 with the reason on stderr.
"""
import ctypes
import ctypes.util
import errno
import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

DAMAGE = (0xE4, 0x1A, 0x1C)   # formats/core/layout.c SVG_DAMAGE
PREFIX = "user.colfs."


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


# path -> attributes, from a `getfattr -R` dump (check_dump)
DUMP = None


def parse_attrs(lines, out):
    for line in lines:
        m = re.match(r'^([^=#][^=]*)="(.*)"$', line)
        if m:
            out[m.group(1)] = m.group(2).replace('\\"', '"').replace(
                "\\\\", "\\")
    return out


def getfattr(path, fresh=False):
    """The node's attributes as getfattr -d prints them (from the dump
    when one is loaded, unless `fresh`)."""
    if DUMP is not None and not fresh:
        if path.endswith("/") and path[:-1] in DUMP:
            path = path[:-1]   # the root: MNT + "/"
        if path not in DUMP:
            fail("%s is not in the getfattr -R output" % path)
        return DUMP[path]
    r = subprocess.run(["getfattr", "-d", "-m", "-", "--absolute-names",
                        "-e", "text", path], capture_output=True, timeout=20)
    if r.returncode != 0:
        fail("getfattr %s: %s" % (path, r.stderr.decode(errors="replace")))
    return parse_attrs(r.stdout.decode().splitlines(), {})


def layout_lines(mnt, name="layout"):
    with open(os.path.join(mnt, name)) as f:
        lines = []
        for l in f.read().splitlines():
            off, ln, kind, path = l.split(" ", 3)
            lines.append((int(off), int(ln), kind, path))
    return lines


def check_layout(mnt):
    by_path = {}
    for off, ln, kind, path in layout_lines(mnt):
        if path != "-":
            by_path.setdefault(path, []).append((off, ln, kind))
    checked = 0
    for path, regions in by_path.items():
        node = mnt + path
        if not os.path.exists(node):
            continue
        a = getfattr(node)
        if a.get(PREFIX + "path") != path:
            fail("%s: user.colfs.path %r" % (path, a.get(PREFIX + "path")))
        # a range, a stripe or a block shows its place; documents (an
        # index's JSON, a footer.json) need not
        must = (a.get(PREFIX + "kind") in ("range", "stripe", "block",
                                            "chunk", "page", "stream"))
        if PREFIX + "offset" not in a:
            if must:
                fail("%s: kind %s has no user.colfs.offset" %
                     (path, a.get(PREFIX + "kind")))
            continue
        want_off = min(r[0] for r in regions)
        want_len = sum(r[1] for r in regions)
        got = (int(a[PREFIX + "offset"]), int(a[PREFIX + "length"]))
        # a stripe's lines are its index and data; its footer.json has
        # its own: the stripe's length covers all three
        if a.get(PREFIX + "kind") == "stripe":
            foot = by_path.get(path + "/footer.json", [])
            want_len += sum(r[1] for r in foot)
        if got != (want_off, want_len):
            fail("%s: offset/length %s, layout says %s" %
                 (path, got, (want_off, want_len)))
        checked += 1
    if not checked:
        fail("no layout line's node had user.colfs.offset")
    print("layout: %d nodes' offsets and lengths equal their lines" % checked)


def check_dump(mnt, dump, every):
    """Load the dump of `getfattr -R` over mnt and check it against the
    tree and against getfattr -d of every `every`th node."""
    global DUMP
    files, cur = {}, None
    # getfattr escapes a name's control bytes and backslashes; colfs
    # names have none in these checks
    with open(dump, encoding="utf-8", errors="surrogateescape") as f:
        for line in f.read().split("\n"):
            if line.startswith("# file: "):
                cur = line[len("# file: "):]
                if cur in files:
                    fail("%s twice in the getfattr -R output" % cur)
                files[cur] = []
            elif cur is not None and line:
                files[cur].append(line)
    nodes = [mnt]
    for top, dirs, names in os.walk(mnt):
        nodes += [os.path.join(top, x) for x in dirs + names]
    if sorted(nodes) != sorted(files):
        extra = sorted(set(files) - set(nodes))[:3]
        missing = sorted(set(nodes) - set(files))[:3]
        fail("getfattr -R names %d nodes, the tree has %d (extra %s, "
             "missing %s)" % (len(files), len(nodes), extra, missing))
    DUMP = {p: parse_attrs(l, {}) for p, l in files.items()}
    for p, a in DUMP.items():
        tree = p[len(mnt):] or "/"
        if a.get(PREFIX + "path") != tree or PREFIX + "kind" not in a:
            fail("%s: kind %r path %r in the getfattr -R output" %
                 (tree, a.get(PREFIX + "kind"), a.get(PREFIX + "path")))
    same = 0
    for p in sorted(DUMP)[::every]:
        one = getfattr(p, fresh=True)
        if one != DUMP[p]:
            fail("%s: getfattr -d %s, getfattr -R %s" % (p, one, DUMP[p]))
        same += 1
    print("getfattr -R: %d nodes, each with its kind and path; %d of them "
          "equal their own getfattr -d" % (len(DUMP), same))


def check_attrs(mnt, path, wants):
    a = getfattr(mnt + path)
    for w in wants:
        k, v = w.split("=", 1)
        got = a.get(PREFIX + k)
        if v == "*":
            if got is None:
                fail("%s: no %s%s (has %s)" % (path, PREFIX, k, sorted(a)))
        elif v == "!":
            if got is not None:
                fail("%s: %s%s=%r should be absent" % (path, PREFIX, k, got))
        elif got != v:
            fail("%s: %s%s=%r, want %r" % (path, PREFIX, k, got, v))
    print("%s: %s" % (path, " ".join(wants)))


def check_errno(mnt, path):
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    p = (mnt + path).encode()
    n = libc.listxattr(p, None, 0)
    if n <= 0:
        fail("listxattr size query: %d" % n)
    buf = ctypes.create_string_buffer(n)
    if libc.listxattr(p, buf, n) != n:
        fail("listxattr with the exact size")
    names = buf.raw[:n].split(b"\0")[:-1]
    if b"user.colfs.kind" not in names:
        fail("listxattr: %r" % names)
    short = ctypes.create_string_buffer(n - 1)
    if libc.listxattr(p, short, n - 1) != -1 or ctypes.get_errno() != errno.ERANGE:
        fail("listxattr with a short buffer: not ERANGE")
    for name in names:
        v = os.getxattr(mnt + path, name.decode())
        m = libc.getxattr(p, name, None, 0)
        if m != len(v):
            fail("getxattr %s: size query %d, value %d bytes" %
                 (name, m, len(v)))
        if m > 1:   # (a buffer of 0 bytes is a size query)
            small = ctypes.create_string_buffer(m - 1)
            if (libc.getxattr(p, name, small, m - 1) != -1 or
                    ctypes.get_errno() != errno.ERANGE):
                fail("getxattr %s with a short buffer: not ERANGE" % name)
    for absent in ("user.colfs.nope", "user.other", "trusted.x"):
        try:
            os.getxattr(mnt + path, absent)
            fail("getxattr %s answered" % absent)
        except OSError as e:
            if e.errno != errno.ENODATA:
                fail("getxattr %s: %s, want ENODATA" % (absent, e))
    for call in (lambda: os.setxattr(mnt + path, "user.x", b"1"),
                 lambda: os.removexattr(mnt + path, "user.colfs.kind")):
        try:
            call()
            fail("a write of an attribute succeeded")
        except OSError as e:
            if e.errno != errno.EROFS:
                fail("write of an attribute: %s, want EROFS" % e)
    print("%s: %d attributes, exact sizes, ERANGE, ENODATA, EROFS" %
          (path, len(names)))


def svg_regions(path):
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    if root.tag != ns + "svg":
        fail("%s: root element %s" % (path, root.tag))
    out = []
    for r in root.iter(ns + "rect"):
        cls = (r.get("class") or "").split()
        if "region" not in cls:
            continue
        t = r.find(ns + "title")
        if t is None:
            fail("%s: a region without <title>" % path)
        out.append((cls, t.text, r.get("fill")))
    return out


def check_svg(mnt, d):
    svg = os.path.join(mnt + d, "layout.svg")
    lines = layout_lines(mnt)
    regs = svg_regions(svg)
    if d == "/":
        want = lines
    else:
        # the lines of the part: its regions, the overlaps that follow
        # them, and the gaps inside their span (docs/tree.md, layout.svg)
        want, prev = [], False
        inside = [l for l in lines if l[3] == d or l[3].startswith(d + "/")]
        lo = min(l[0] for l in inside)
        hi = max(l[0] + l[1] for l in inside)
        for l in lines:
            if l[2] == "overlap":
                if prev:
                    want.append(l)
            elif l[2] == "gap":
                if l[0] >= lo and l[0] + l[1] <= hi:
                    want.append(l)
            else:
                prev = l[3] == d or l[3].startswith(d + "/")
                if prev:
                    want.append(l)
    if len(regs) != len(want):
        fail("%s: %d regions, %d layout lines" % (svg, len(regs), len(want)))
    for (cls, title, fill), (off, ln, kind, path) in zip(regs, want):
        who = path if path != "-" else kind
        tail = "offset %d length %d" % (off, ln)
        if not (title.startswith(who + " (" + kind) and title.endswith(tail)):
            fail("%s: title %r for line %s" % (svg, title,
                                                (off, ln, kind, path)))
        if ("damaged" in cls) != (fill == "#e41a1c"):
            fail("%s: %r drawn %s" % (svg, title, fill))
        # gaps hatched, overlaps their own bars (docs/tree.md, layout.svg)
        if kind == "gap" and (cls != ["region", "gap"] or
                              fill != "url(#hatch)"):
            fail("%s: gap %r drawn %s %s" % (svg, title, cls, fill))
        if kind == "overlap" and cls != ["region", "overlap"]:
            fail("%s: overlap %r drawn %s" % (svg, title, cls))
        if kind not in ("gap", "overlap") and "part" not in cls:
            fail("%s: %r drawn as %s" % (svg, title, cls))
    print("%s: %d regions, one per layout line" % (svg, len(regs)))


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                fail("%s: PNG depth %d type %d interlace %d" %
                     (path, depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    i = 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pr) & 255
        yield from (tuple(line[x:x + 3]) for x in range(0, stride, bpp))
        prev = line


def check_png(path, want):
    n = sum(1 for p in png_pixels(path)
            if all(abs(p[k] - DAMAGE[k]) <= 6 for k in range(3)))
    if want == "yes" and n < 20:
        fail("%s: %d pixels of the damage color" % (path, n))
    if want == "no" and n:
        fail("%s: %d pixels of the damage color in a healthy file" %
             (path, n))
    print("%s: %d pixels of the damage color" % (path, n))


def main(argv):
    what = argv[1]
    if what == "layout":
        check_layout(argv[2])
    elif what == "attrs":
        check_attrs(argv[2], argv[3], argv[4:])
    elif what == "errno":
        check_errno(argv[2], argv[3])
    elif what == "svg":
        check_svg(argv[2], argv[3])
    elif what == "png":
        check_png(argv[2], argv[3])
    elif what == "dump":
        check_dump(argv[2], argv[3], int(argv[4]))
        main([argv[0], "batch", argv[2]])
    elif what == "batch":
        for line in sys.stdin.read().splitlines():
            words = line.split()
            if words:
                main([argv[0], words[0], argv[2]] + words[1:])
    else:
        fail("unknown check " + what)


if __name__ == "__main__":
    main(sys.argv)

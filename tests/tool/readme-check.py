#!/usr/bin/python3
"""The in-mount README lists exactly the entries that exist.

    readme-check.py TOOL FILE [MOUNTPOINT]

Reads FILE's README (colfs-tool cat), parses its list of entries (the
layout of docs/tree.md, "README": two spaces of indent per level, a
trailing / for a directory, N, K or <...> for each numbered or named
entry, [decodes] for a value view) and compares it with the tree that
`colfs-tool tree` lists and, with MOUNTPOINT (FILE mounted there), with
os.walk of the mount:

  - every name listed in a directory the README describes matches a
    described entry of the same kind (directory or file);
  - every described entry exists somewhere in the file's tree (in at least
    one of the directories its pattern stands for);
  - every stream (`colfs-tool ls -l`: decoded as read) is marked
    [decodes], in one directory of each pattern;
  - what every format writes the same way is the same: the first line,
    README, format, layout and errors first (layout and errors with one
    text), the note on escaped names after the list.

A directory the README names without describing its content (salvage/,
might_contain/) is not looked into.  Exit 0 when all holds, 1 otherwise.
"""
import os
import re
import subprocess
import sys

ENTRY = re.compile(r"^( *)(\S+)(?: +(\[decodes\] )?(.*))?$")


class Pattern:
    def __init__(self, name, is_dir, decodes, line):
        self.name, self.is_dir, self.decodes = name, is_dir, decodes
        self.line = line
        self.kids = []
        self.seen = False

    def wild(self):
        return self.name in ("N", "K") or self.name.startswith("<")

    def matches(self, name):
        if self.name in ("N", "K"):
            return name.isdigit()
        return self.wild() or name == self.name


def parse_readme(text):
    lines = text.split("\n")
    try:
        start = next(i for i, l in enumerate(lines)
                     if l.startswith("Entries ("))
    except StopIteration:
        raise SystemExit("README: no 'Entries (' paragraph")
    i = start
    while i < len(lines) and lines[i] != "":
        i += 1
    i += 1
    root = Pattern("/", True, False, "")
    stack = [(-1, root)]
    for line in lines[i:]:
        if line == "":
            break
        m = ENTRY.match(line)
        if not m or len(m.group(1)) % 2:
            raise SystemExit("README: not an entry line: %r" % line)
        depth = len(m.group(1)) // 2
        name = m.group(2)
        while stack[-1][0] >= depth:
            stack.pop()
        if stack[-1][0] != depth - 1:
            raise SystemExit("README: indent jumps at %r" % line)
        parent = stack[-1][1]
        is_dir = name.endswith("/")
        p = Pattern(name.rstrip("/"), is_dir, bool(m.group(3)), line)
        if any(k.name == p.name for k in parent.kids):
            raise SystemExit("README: %r described twice" % line)
        parent.kids.append(p)
        if is_dir:
            stack.append((depth, p))
    return root


def tool_tree(tool, path):
    """{dir path: [(name, is_dir)]} from `colfs-tool tree`."""
    out = subprocess.run([tool, "tree", path], capture_output=True,
                         check=False).stdout.decode("utf-8", "replace")
    rows = out.split("\n")
    assert rows[0] == "/", rows[:3]
    entries = []
    for row in rows[1:]:
        if not row or re.match(r"^\d+ director", row):
            continue
        m = re.match(r"^((?:│   |    )*)(?:├── |└── )(.*)$", row)
        if not m:
            break
        entries.append((len(m.group(1)) // 4, m.group(2)))
    listing = {"/": []}
    stack = ["/"]
    for n, (depth, name) in enumerate(entries):
        del stack[depth + 1:]
        is_dir = n + 1 < len(entries) and entries[n + 1][0] > depth
        parent = stack[-1]
        path = parent.rstrip("/") + "/" + name
        listing[parent].append((name, is_dir))
        if is_dir:
            listing[path] = []
        stack.append(path)
    return listing


def mount_tree(mnt):
    listing = {}
    for top, dirs, files in os.walk(mnt):
        rel = "/" + os.path.relpath(top, mnt)
        rel = "/" if rel == "/." else rel
        listing[rel] = ([(d, True) for d in dirs] +
                        [(f, False) for f in files])
    return listing


def stat_kind(path):
    out = subprocess.run([TOOL, "stat", FILE, path], capture_output=True,
                         check=False).stdout.decode("utf-8", "replace")
    m = re.search(r"^kind: (\S+)", out, re.M)
    return m.group(1) if m else "?"


problems = []
TOOL = FILE = None


def check(listing, pat, dirs, kinds):
    """`dirs`: the actual directories `pat` stands for."""
    if not pat.kids:
        return
    for d in dirs:
        for name, is_dir in listing.get(d, []):
            exact = [k for k in pat.kids if not k.wild() and k.name == name]
            cands = exact or [k for k in pat.kids if k.matches(name)]
            path = d.rstrip("/") + "/" + name
            if not cands:
                problems.append("%s: listed, not in the README" % path)
                continue
            k = cands[0]
            k.seen = True
            if k.is_dir and not is_dir and path not in listing:
                # `tree` shows an empty directory as a leaf: ask stat, once
                # for each pattern
                if k not in kinds:
                    kinds[k] = stat_kind(path)
                is_dir = kinds[k] == "dir"
            if k.is_dir != is_dir:
                problems.append("%s: a %s, the README says a %s" % (
                    path, "directory" if is_dir else "file",
                    "directory" if k.is_dir else "file"))
    for k in pat.kids:
        if not k.seen:
            problems.append("%s: described (%r), exists nowhere" % (
                "/".join(dirs[:1]) or "/", k.line.strip()))
        if k.is_dir:
            sub = [d.rstrip("/") + "/" + name for d in dirs
                   for name, is_dir in listing.get(d, [])
                   if is_dir and (k.matches(name)) and not any(
                       o is not k and not o.wild() and o.name == name
                       for o in pat.kids)]
            check(listing, k, sub, kinds)


def check_decodes(tool, path, listing, pat, dirs):
    if not pat.kids or not dirs:
        return
    d = dirs[0]
    out = subprocess.run([tool, "ls", "-l", path, d], capture_output=True,
                         check=False).stdout.decode("utf-8", "replace")
    for row in out.splitlines():
        kind, _size, name = row.split(None, 2)
        exact = [k for k in pat.kids if not k.wild() and k.name == name]
        cands = exact or [k for k in pat.kids if k.matches(name)]
        if cands and kind == "stream" and not cands[0].decodes:
            problems.append("%s/%s: a value view, not marked [decodes]" % (
                d.rstrip("/"), name))
        if cands and cands[0].decodes and kind in ("range", "dir"):
            problems.append("%s/%s: a %s, marked [decodes]" % (
                d.rstrip("/"), name, kind))
    for k in pat.kids:
        if k.is_dir:
            sub = [dd.rstrip("/") + "/" + name for dd in dirs
                   for name, is_dir in listing.get(dd, [])
                   if is_dir and k.matches(name)]
            check_decodes(tool, path, listing, k, sub[:1])


# What every format's README writes the same way (core/readme.c): the
# first line, the first four entries, the note on names after the list.
FIRST = re.compile(r"^.+: an Apache (Parquet file|ORC file|Kudu CFile of one "
                   r"column|Arrow IPC file) \(\d+ bytes\), mounted "
                   r"read-only by colfs\.$")
COMMON = [
    "README                      this text",
    None,  # format: the format's own text
    "layout                      byte map: `offset length kind tree-path` "
    "per region, sorted; gaps and overlaps marked (docs/tree.md, "
    "\"layout\")",
    "errors                      every problem found so far: `path: offset "
    "N (0xN): status: message`",
]
NAMES_NOTE = ("Names from the file are escaped into one path component: "
              "'%', '/',")


def check_form(text):
    lines = text.split("\n")
    if not FIRST.match(lines[0]):
        problems.append("README: first line not in the one form: %r" %
                        lines[0])
    start = next(i for i, l in enumerate(lines) if l.startswith("Entries ("))
    i = lines.index("", start) + 1
    for want, got in zip(COMMON, lines[i:i + 4]):
        if want is None:
            if not got.startswith("format "):
                problems.append("README: %r where format belongs" % got)
        elif got != want:
            problems.append("README: %r, the common entry is %r" % (got, want))
    end = lines.index("", i)
    if lines[end + 1] != NAMES_NOTE:
        problems.append("README: no note on escaped names after the list")


def reset(p):
    p.seen = False
    for k in p.kids:
        reset(k)


def main():
    global TOOL, FILE
    tool, path = sys.argv[1], sys.argv[2]
    TOOL, FILE = tool, path
    mnt = sys.argv[3] if len(sys.argv) > 3 else None
    text = subprocess.run([tool, "cat", path, "README"], capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")
    root = parse_readme(text)
    check_form(text)
    listing = tool_tree(tool, path)
    check(listing, root, ["/"], {})
    check_decodes(tool, path, listing, root, ["/"])
    if mnt:
        with open(os.path.join(mnt, "README"), "rb") as f:
            mtext = f.read().decode("utf-8", "replace")
        if parse_readme(mtext) is None:
            problems.append("mount: README does not parse")
        mlisting = mount_tree(mnt)
        reset(root)
        check(mlisting, root, ["/"], {})  # os.walk knows directories
        # the mount lists what the tool lists, in every directory the
        # README describes (an empty directory is a file to `tree`)
        for d, names in listing.items():
            got = sorted(n for n, _ in mlisting.get(d, []))
            if d in mlisting and got != sorted(n for n, _ in names):
                problems.append("%s: the mount lists %s, the tool %s" % (
                    d, got, sorted(n for n, _ in names)))
    for p in problems[:40]:
        print("%s: %s" % (path, p), file=sys.stderr)
    if len(problems) > 40:
        print("%s: ... %d more" % (path, len(problems) - 40),
              file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

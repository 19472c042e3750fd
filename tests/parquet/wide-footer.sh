#!/bin/bash
# tests/parquet/wide-footer.sh COLFS_TOOL COLFS WORKDIR: footers of many
# chunks.  DuckDB writes two files whose footer is over 64 KiB
# (docs/parquet-tree.md: metadata.json and layout are then streams):
#   wide.parquet  300 INT columns x 20 row groups of 2048 rows (6,000
#                 chunks; a 24-bit row-group list header) plus one column
#                 of 128-byte strings, stored uncompressed, so that the
#                 file is over the 4 MiB up to which a stat decodes a view
#                 (docs/tree.md, "Sizes");
#   few.parquet   1000 INT columns x 2 row groups (a one-byte list header).
# Checked:
#   - through a mount (default options, no size index): `ls -l` of the
#     root shows metadata.json and layout at size 0 (not made to learn
#     their size), and the daemon's peak RSS after it stays under 40 MiB
#     (17 MiB here, 35 MiB under AddressSanitizer with libcurl linked in;
#     51 MiB without sanitizers when listing made metadata.json);
#     after `cat metadata.json` its size is the exact byte count;
#   - metadata.json through the mount equals `colfs-tool cat` of it, is
#     valid JSON, and holds the footer's content: num_rows, the schema's
#     leaf count and, chunk by chunk, path_in_schema, num_values,
#     total_compressed_size and data_page_offset as DuckDB's
#     parquet_metadata() reports them; each row group in it equals that
#     row group's meta.json;
#   - layout through colfs-tool follows the grammar (layout-check.py);
#   - a row group of 1000 chunks (over 64 KiB of footer) has a meta.json
#     stream, not a document;
#   - the pictures of a damaged few.parquet: each row group's shows its
#     own regions and damage; the root's, a stream of pieces, has one
#     region per line of `layout` with its title, the damaged chunk red,
#     and the same bytes when read twice.
# Skips (77) without node or DuckDB.
set -u
tool=${1:?usage: wide-footer.sh COLFS_TOOL COLFS WORKDIR}
colfs=${2:?usage: wide-footer.sh COLFS_TOOL COLFS WORKDIR}
work=${3:?usage: wide-footer.sh COLFS_TOOL COLFS WORKDIR}
dir=$(cd "$(dirname "$0")" && pwd)
sql() { node "$dir/../../tools/bench/duckdb-sql.cjs" "$@"; }

sh "$dir/../values/duckdb-setup.sh" || exit $?
mkdir -p "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cols() { # N: "(i//2048)::INT c0, ..."
	awk -v n="$1" 'BEGIN { for (k = 0; k < n; k++)
		printf "%s(i//2048 + %d)::INT c%d", k ? ", " : "", k, k }'
}
wide=$work/wide.parquet few=$work/few.parquet
if [ ! -f "$wide" ]; then
	sql "COPY (SELECT $(cols 300), repeat(md5(i::VARCHAR), 4) s
	       FROM range(40960) t(i))
	     TO '$wide.tmp' (FORMAT parquet, ROW_GROUP_SIZE 2048,
	                     COMPRESSION uncompressed)" >/dev/null &&
		mv "$wide.tmp" "$wide" || { echo "FAIL: DuckDB did not write $wide"; exit 1; }
fi
if [ ! -f "$few" ]; then
	sql "COPY (SELECT $(cols 1000) FROM range(4096) t(i))
	     TO '$few.tmp' (FORMAT parquet, ROW_GROUP_SIZE 2048)" >/dev/null &&
		mv "$few.tmp" "$few" || { echo "FAIL: DuckDB did not write $few"; exit 1; }
fi

# --- the mount ---------------------------------------------------------------
mnt=$(mktemp -d "$work/mnt.XXXXXX")
pid=
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
	fi
	[ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT
"$colfs" -f -o size_index=off "$wide" "$mnt" &
pid=$!
for _ in $(seq 500); do mountpoint -q "$mnt" && break; sleep 0.02; done
mountpoint -q "$mnt" || { echo "FAIL: $wide did not mount"; exit 1; }
size_of() { stat -c %s "$mnt/$1"; }
# What the listing adds to the daemon's peak, past the footer's parse
# (the mount): under AddressSanitizer about 6 MiB (41 MiB after 35 at
# the mount; the plain build 14 after 12); a listing that makes
# metadata.json to learn its size adds about 16 MiB.
hwm0=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
timeout 60 ls -l "$mnt" >"$work/ls" || fail "ls -l of the root"
hwm=$(awk '/^VmHWM/ {print $2}' /proc/$pid/status)
for f in metadata.json layout; do
	[ "$(size_of $f)" = 0 ] || fail "$f: size $(size_of $f) after ls -l: made to learn its size"
done
echo "note: daemon peak RSS $hwm0 kB after the mount, $hwm kB after ls -l of the root"
[ $(( ${hwm:-999999} - ${hwm0:-0} )) -lt $((10 * 1024)) ] ||
	fail "daemon peak RSS ${hwm} kB after ls -l of the root, ${hwm0} kB before"
timeout 60 cat "$mnt/metadata.json" >"$work/m-mount.json" || fail "cat metadata.json"
n=$(wc -c <"$work/m-mount.json")
[ "$(size_of metadata.json)" = "$n" ] ||
	fail "metadata.json: size $(size_of metadata.json) after a full read of $n bytes"
for g in 0 7 19; do
	timeout 60 cat "$mnt/row_groups/$g/meta.json" >"$work/rg$g.json" || fail "cat row_groups/$g/meta.json"
done
fusermount3 -u "$mnt"
wait "$pid"
pid=

# --- the documents -------------------------------------------------------------
"$tool" -o size_index=off cat "$wide" metadata.json >"$work/m-tool.json" || fail "colfs-tool cat metadata.json"
cmp -s "$work/m-mount.json" "$work/m-tool.json" || fail "metadata.json: the mount and colfs-tool differ"
"$tool" -o size_index=off cat "$few" metadata.json >"$work/m-few.json" || fail "colfs-tool cat metadata.json ($few)"
"$tool" -o size_index=off ls -l "$few" >"$work/ls-few" || fail "colfs-tool ls -l $few"
grep -q '^stream .* metadata.json$' "$work/ls-few" || fail "$few: metadata.json is not a stream"
# a RowGroup of 1000 chunks spans over 64 KiB of the footer
"$tool" -o size_index=off ls -l "$few" row_groups/1 | grep -q '^stream .* meta.json$' ||
	fail "$few: row_groups/1/meta.json is not a stream"
for f in "$wide" "$few"; do
	python3 "$dir/../tool/layout-check.py" "$tool" "$f" || fail "$f: layout"
done

# chunk by chunk, against DuckDB
for f in wide few; do
	sql "SELECT row_group_id, column_id, path_in_schema, num_values,
	            total_compressed_size, data_page_offset
	     FROM parquet_metadata('$work/$f.parquet')
	     ORDER BY row_group_id, column_id" >"$work/duck-$f.tsv" ||
		fail "DuckDB parquet_metadata($f)"
done
python3 - "$work" <<'PY' || fails=$((fails + 1))
import json, sys
work = sys.argv[1]
bad = []
def check(name, meta, rows, leaves):
    if meta["num_rows"] != rows:
        bad.append(f"{name}: num_rows {meta['num_rows']}, expected {rows}")
    got_leaves = sum(1 for e in meta["schema"] if "num_children" not in e)
    if got_leaves != leaves:
        bad.append(f"{name}: {got_leaves} leaves in the schema, expected {leaves}")
    mine = []
    for g, rg in enumerate(meta["row_groups"]):
        for c, ch in enumerate(rg["columns"]):
            m = ch["meta_data"]
            mine.append([str(g), str(c), ".".join(m["path_in_schema"]),
                         str(m["num_values"]), str(m["total_compressed_size"]),
                         str(m["data_page_offset"])])
    duck = [l.rstrip("\n").split("\t") for l in open(f"{work}/duck-{name}.tsv")]
    if mine != duck:
        diff = next((i for i, (a, b) in enumerate(zip(mine, duck)) if a != b), min(len(mine), len(duck)))
        bad.append(f"{name}: {len(mine)} chunks, DuckDB {len(duck)}; first difference at {diff}: "
                   f"{mine[diff] if diff < len(mine) else None} vs {duck[diff] if diff < len(duck) else None}")
    return meta
try:
    wide = check("wide", json.load(open(f"{work}/m-mount.json")), 40960, 301)
    check("few", json.load(open(f"{work}/m-few.json")), 4096, 1000)
    for g in (0, 7, 19):
        if json.load(open(f"{work}/rg{g}.json")) != wide["row_groups"][g]:
            bad.append(f"wide: row_groups[{g}] differs from row_groups/{g}/meta.json")
except (ValueError, KeyError, TypeError) as e:
    bad.append(f"metadata.json is not the footer as JSON: {e!r}")
for b in bad:
    print("FAIL:", b)
if not bad:
    print("ok: metadata.json of both files matches DuckDB's parquet_metadata, chunk by chunk")
sys.exit(1 if bad else 0)
PY
# --- layout.svg of a row group of a stream layout ----------------------------
# The root's layout is a stream: every row group's picture reads the one
# parse of it (core/layout.c), and marks its own damage: a chunk of row
# group 1 whose first page header is overwritten is red in row group 1's
# picture (its values read first, so the problem is filed), and row group
# 0's picture made after it from the same lines shows its own 1000 chunks
# and nothing red.
bad=$work/few-bad.parquet
line=$("$tool" -o size_index=off cat "$few" layout |
	grep ' column_chunk /row_groups/1/chunks/c5/raw$')
off=${line%% *}
if [ -z "$off" ]; then
	fail "$few: no layout line for row_groups/1/chunks/c5"
else
	cp "$few" "$bad" &&
		printf '\377\377\377\377\377\377\377\377' |
		dd of="$bad" bs=1 seek="$off" conv=notrunc status=none ||
		fail "cannot damage $bad"
	"$tool" -o size_index=off cat "$bad" row_groups/1/chunks/c5/values \
		row_groups/1/layout.svg row_groups/0/layout.svg \
		>"$work/svg-bad" 2>/dev/null
	python3 - "$work/svg-bad" <<'PY' || fail "$bad: row group pictures"
import re, sys
text = open(sys.argv[1], errors="replace").read()
svgs = re.findall(r"<svg .*?</svg>", text, re.S)
assert len(svgs) == 2, f"{len(svgs)} pictures"
one, zero = svgs
red = re.findall(r'class="region part damaged"[^>]*><title>([^ ]*) ', one)
assert red == ["/row_groups/1/chunks/c5/raw"], red
assert "/row_groups/0/" not in one and "/row_groups/1/" not in zero
assert "damaged" not in zero.replace("0 damaged", ""), "row group 0 red"
chunks = re.findall(r' \(column_chunk\): offset ', zero)
assert len(chunks) == 1000, len(chunks)
PY
	# The root picture of a stream layout is a stream of pieces of 1024
	# regions (core/layout.c): one region per line of `layout`, in its
	# order, the one damaged chunk red, the heading's counts those of the
	# whole file, and the same bytes when read again (its damage is the
	# damage known when its first piece was made).
	"$tool" -o size_index=off cat "$bad" layout >"$work/layout-bad" ||
		fail "$bad: cannot read layout"
	# (the values fail: the status is that of the damage)
	"$tool" -o size_index=off cat "$bad" row_groups/1/chunks/c5/values \
		layout.svg layout.svg >"$work/svg-root" 2>/dev/null
	python3 - "$work/layout-bad" "$work/svg-root" <<'PY' || fail "$bad: root picture"
import re, sys
import xml.etree.ElementTree as ET
lines = open(sys.argv[1]).read().splitlines()
text = open(sys.argv[2], errors="replace").read()
svgs = re.findall(r"<\?xml .*?</svg>\n", text, re.S)
assert len(svgs) == 2 and svgs[0] == svgs[1], "not the same twice"
svg = svgs[0]
assert len(lines) > 2 * 1024, f"{len(lines)} lines: one piece"
assert f", {len(lines)} lines of layout, 1 damaged</text>" in svg
ns = "{http://www.w3.org/2000/svg}"
rects = [r for r in ET.fromstring(svg.split("\n", 1)[1]).iter(ns + "rect")
         if "region" in r.get("class", "")]
assert len(rects) == len(lines), (len(rects), len(lines))
red = []
for r, l in zip(rects, lines):
    off, ln, kind, path = l.split(" ", 3)
    t = r.find(ns + "title").text
    name = kind if kind in ("gap", "overlap") else path
    bad = "damaged" in r.get("class")
    want = f"{name} ({kind}{', damaged' if bad else ''}): offset {off} length {ln}"
    assert t == want, (t, want)
    if bad:
        red.append(path)
assert red == ["/row_groups/1/chunks/c5/raw"], red
print(f"ok: root picture of {len(lines)} layout lines, streamed")
PY
fi

[ "$fails" = 0 ] && echo "ok: wide footers" && exit 0
exit 1

#!/bin/sh
# tests/parquet/nested-nulls.sh COLFS_TOOL COLFS WORKDIR: statistics
# null_count of DuckDB-written leaves under lists, structs and maps with
# NULLs at every level (gen-nested-nulls.mjs).  DuckDB counts a null
# struct below a list twice in a chunk's null_count; `verify` takes that
# away for DuckDB's files, so `colfs-tool check` says healthy and the
# mount's `errors` is empty after every `verify` was read.  The same file
# with one null_count made one more than DuckDB's is still named.  Skips
# (77) without node or DuckDB; the mount part without FUSE.
set -u
tool=${1:?usage: nested-nulls.sh COLFS_TOOL COLFS WORKDIR}
colfs=${2:?usage: nested-nulls.sh COLFS_TOOL COLFS WORKDIR}
work=${3:?usage: nested-nulls.sh COLFS_TOOL COLFS WORKDIR}
dir=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

sh "$dir/../values/duckdb-setup.sh" || exit $?
rm -rf "$work" && mkdir -p "$work/mnt" || exit 1
f=$work/nested.parquet
timeout 120 node "$dir/gen-nested-nulls.mjs" "$work" >"$work/stats" ||
	fail "generator"

timeout 60 "$tool" check "$f" >"$work/out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "check of the DuckDB file (rc $rc): $(cat "$work/out")"
grep -qx "$f: healthy, [0-9]* nodes read" "$work/out" ||
	fail "check: $(cat "$work/out")"
# the file holds the double count this is about
timeout 30 "$tool" cat "$f" row_groups/0/chunks/ls.list.element.p/verify \
	>"$work/verify" || fail "cat verify"
grep -q "^statistics null_count [0-9]* is DuckDB's count: the [0-9]* nulls, and the [1-9][0-9]* null structs under the list again\$" \
	"$work/verify" || fail "verify of ls.list.element.p: $(cat "$work/verify")"

# one null_count made one more than DuckDB wrote: the Statistics of
# ls.list.element.p are max (binary), min (binary: INT32 1), null_count
# (field header 0x16, zigzag varint)
n=$(awk -F'\t' '$2 == "ls, list, element, p" { print $3 }' "$work/stats")
[ -n "$n" ] || fail "no null_count of ls.list.element.p: $(cat "$work/stats")"
python3 - "$f" "$work/bad.parquet" "$n" <<'PY' || fail "patch"
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def varint(x):
    b = bytearray()
    while True:
        if x < 0x80:
            b.append(x); return bytes(b)
        b.append(x & 0x7f | 0x80); x >>= 7
data = open(src, 'rb').read()
pat = b'\x18\x04\x01\x00\x00\x00\x16' + varint(2 * n)
new = b'\x18\x04\x01\x00\x00\x00\x16' + varint(2 * (n + 1))
assert data.count(pat) == 1 and len(new) == len(pat), data.count(pat)
open(dst, 'wb').write(data.replace(pat, new))
PY
timeout 60 "$tool" check "$work/bad.parquet" >"$work/out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "check of the patched file (rc $rc): $(cat "$work/out")"
grep -q "^/row_groups/0/chunks/ls.list.element.p: offset [0-9]* (0x[0-9a-f]*): corrupt: metadata disagrees with the data: statistics null_count $((n + 1)), the data has [0-9]* nulls\$" \
	"$work/out" || fail "patched null_count not named: $(cat "$work/out")"
[ "$(grep -c ': corrupt: ' "$work/out")" = 1 ] ||
	fail "patched file: other problems: $(cat "$work/out")"
echo "ok: check: healthy; a null_count of $((n + 1)) instead of $n is named"

[ -e /dev/fuse ] && command -v fusermount3 >/dev/null 2>&1 || {
	echo "nested-nulls: no /dev/fuse or fusermount3: skipping the mount" >&2
	exit 77
}
mnt=$work/mnt
trap 'fusermount3 -u "$mnt" 2>/dev/null' EXIT INT TERM
timeout 20 "$colfs" "$f" "$mnt" || fail "mount"
for v in "$mnt"/row_groups/*/chunks/*/verify; do
	timeout 30 cat "$v" >/dev/null || fail "read $v"
done
[ -s "$mnt/errors" ] && fail "errors of the DuckDB file: $(head -5 "$mnt/errors")"
fusermount3 -u "$mnt" || fail "unmount"
timeout 20 "$colfs" "$work/bad.parquet" "$mnt" || fail "mount"
timeout 30 cat "$mnt/row_groups/0/chunks/ls.list.element.p/verify" >/dev/null ||
	fail "read verify"
grep -q "^/row_groups/0/chunks/ls.list.element.p: .*statistics null_count $((n + 1)), the data has" \
	"$mnt/errors" || fail "errors of the patched file: $(cat "$mnt/errors")"
fusermount3 -u "$mnt" || fail "unmount"
echo "ok: mount: errors empty; the patched null_count is in errors"

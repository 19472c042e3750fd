#!/bin/bash
# tests/delta/damage.sh: Delta tables whose data files are not the ones
# the log names (formats/dataset/dataset_damage.c; docs/dataset-tree.md,
# "Damaged files").
#   damage.sh DELTA_DUMP CORPUS_DIR SOURCE_DIR   (COLFS_TOOL, COLFS set)
# Every corpus table is copied with its first active file deleted (the
# tables whose data files the corpus lacks, delta-rs's `checkpoints`
# among them, as they are): the file is named in `errors` with the log's
# version, `summary` counts it, a read of rows.jsonl fails (EIO through
# a mount; a partition's view when it holds the file), and the union views equal DuckDB's reading of the other
# files (rows-oracle.mjs) under -o on_damage=skip, and with the missing
# file's numRecords rows of NULL under on_damage=null.  A file replaced
# by another of other size and rows: both disagreements with its add
# action named (file, version, both counts).
# Exit 77 without the corpus or DuckDB.
set -u
dump=${1:?delta-dump}
corpus=${2:?corpus dir}/delta
src=${3:?source dir}
: "${COLFS_TOOL:?COLFS_TOOL is not set}"
[ -d "$corpus" ] || { echo "SKIP: no Delta corpus at $corpus (../shared is absent)" >&2; exit 77; }
sh "$src/tests/values/duckdb-setup.sh" || exit 77
T=30
# $WORK made, the mount undone and $WORK removed on exit
. "$src/tests/mount-cleanup.sh" colfs-delta-damage
fail() { echo "FAIL: $*" >&2; exit 1; }
tool() { timeout $T "$COLFS_TOOL" "$@"; }

copies=()
n=0
for t in "$corpus"/*/; do
	t=${t%/}
	name=$(basename "$t")
	json=$(timeout $T "$dump" --json "$t") || fail "$name: delta-dump"
	read -r version path < <(python3 -c 'import json, sys
s = json.load(sys.stdin)
print(s["version"], s["files"][0]["path"] if s["files"] else "")' <<< "$json")
	[ -n "$path" ] || continue   # no active file: nothing to lose
	c=$WORK/$name
	cp -r "$t" "$c"
	rm -f "$c/$path"
	copies+=("$c")
	n=$((n + 1))
	base=$(basename "$path")
	if tool cat "$c" rows.jsonl > "$WORK/out" 2> "$WORK/err"; then
		fail "$name without $path: rows.jsonl read: $(head -3 "$WORK/out")"
	fi
	grep -qF "$base" "$WORK/err" || fail "$name: the failed read does not name $base: $(cat "$WORK/err")"
	tool cat "$c" errors > "$WORK/errors" || fail "$name: errors"
	grep -F "$base" "$WORK/errors" | grep -q "not opened: No such file or directory (an active file of the Delta log at version $version)" ||
		fail "$name: errors does not name $base with version $version: $(cat "$WORK/errors")"
	tool cat "$c" summary > "$WORK/summary" || fail "$name: summary"
	grep -q '^damaged files: [1-9]' "$WORK/summary" && grep -q '^damaged rows: .* not served (on_damage=error' "$WORK/summary" ||
		fail "$name: summary: $(cat "$WORK/summary")"
done
[ "$n" -ge 10 ] || fail "only $n tables with active files in $corpus"
# the union views of each copy, value by value, against DuckDB
for m in skip null; do
	ROWS_ORACLE_MISSING=$m timeout 120 node "$src/tests/delta/rows-oracle.mjs" "$dump" "${copies[@]}" > "$WORK/oracle-$m" ||
		fail "on_damage=$m: the union views are not the other files' rows: $(tail -3 "$WORK/oracle-$m")"
done
# under null, summary counts the rows read as NULL: the log's numRecords
# less the deleted rows (table-with-dv-small: 10 - 2)
tool -o on_damage=null cat "$WORK/table-with-dv-small" summary > "$WORK/summary"
grep -qx 'damaged rows: 8 read as NULL (on_damage=null)' "$WORK/summary" && grep -qx 'rows: 8' "$WORK/summary" ||
	fail "on_damage=null summary: $(cat "$WORK/summary")"
[ "$(tool -o on_damage=null cat "$WORK/table-with-dv-small" columns/value | tr '\n' ' ')" = '\N \N \N \N \N \N \N \N ' ] ||
	fail "on_damage=null columns/value: $(tool -o on_damage=null cat "$WORK/table-with-dv-small" columns/value)"
# numRecords unknown (no stats): on_damage=null says so, leaves them out
tool -o on_damage=null cat "$WORK/simple_table" summary | grep -q '^damaged rows: 0 read as NULL (on_damage=null), and the rows of 1 file whose row count is unknown' ||
	fail "simple_table under null: $(tool -o on_damage=null cat "$WORK/simple_table" summary)"

# partitions/: the partition holding the missing file fails, skip leaves
# its rows out there as in the whole table; another partition reads
c=$WORK/delta-0.8.0-partitioned
if tool cat "$c" partitions/year=2020/rows.jsonl > "$WORK/out" 2>&1; then
	fail "partitions/year=2020/rows.jsonl read without its file: $(cat "$WORK/out")"
fi
tool -o on_damage=skip cat "$c" rows.jsonl | grep '"year":"2020"' | cmp -s - <(tool -o on_damage=skip cat "$c" partitions/year=2020/rows.jsonl) ||
	fail "on_damage=skip partitions/year=2020/rows.jsonl: $(tool -o on_damage=skip cat "$c" partitions/year=2020/rows.jsonl)"
tool cat "$c" rows.jsonl 2> /dev/null | grep -q . && fail "rows.jsonl: the missing file sorts first, nothing is served before it"
[ "$(tool cat "$c" partitions/year=2021/rows.jsonl | wc -l)" -ge 1 ] || fail "partitions/year=2021/rows.jsonl: a partition without the missing file"

# a file replaced by another: other size and other rows than its add action
t=$corpus/checkpoint-v2-table
json=$(timeout $T "$dump" --json "$t")
read -r version one ten < <(python3 -c 'import json, sys
s = json.load(sys.stdin)
f = s["files"]
print(s["version"], next(x["path"] for x in f if x["num_records"] == 1), next(x["path"] for x in f if x["num_records"] == 10))' <<< "$json")
c=$WORK/replaced
cp -r "$t" "$c"
cp "$t/$ten" "$c/$one"
tool cat "$c" errors > "$WORK/errors" || fail "replaced: errors"
grep -F "/files/$one:" "$WORK/errors" | grep -q "its footer gives 10 rows, while the Delta log at version $version adds it with numRecords 1: not the file the log added" ||
	fail "replaced: no numRecords disagreement named: $(cat "$WORK/errors")"
grep -F "/files/$one:" "$WORK/errors" | grep -q "bytes, while the Delta log at version $version adds it with size 10" ||
	fail "replaced: no size disagreement named: $(cat "$WORK/errors")"
if tool cat "$c" columns/id > "$WORK/out" 2> "$WORK/err"; then
	fail "replaced: columns/id read: $(tr '\n' ' ' < "$WORK/out")"
fi
# skip: one row fewer than the table (the replaced file's one row out)
[ "$(tool -o on_damage=skip cat "$c" columns/id | wc -l)" = $(( $(tool cat "$t" columns/id | wc -l) - 1 )) ] ||
	fail "replaced, on_damage=skip: $(tool -o on_damage=skip cat "$c" columns/id | wc -l) rows"

# through a mount: the read fails with EIO
if [ -c /dev/fuse ] && command -v fusermount3 > /dev/null && [ -n "${COLFS:-}" ]; then
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	timeout $T "$COLFS" "$WORK/table-with-dv-small" "$MNT" || fail "mount"
	if timeout $T cat "$MNT/rows.jsonl" > "$WORK/out" 2> "$WORK/err"; then
		fail "mount: rows.jsonl read: $(cat "$WORK/out")"
	fi
	grep -q 'Input/output error' "$WORK/err" || fail "mount: rows.jsonl: $(cat "$WORK/err")"
	timeout $T cat "$MNT/summary" > "$WORK/summary" || fail "mount: summary"
	grep -q '^damaged files: 1 ' "$WORK/summary" || fail "mount: summary: $(cat "$WORK/summary")"
	timeout $T fusermount3 -u "$MNT" || fail "unmount"
else
	echo "note: no FUSE here: the mount part is not run"
fi
echo "ok: $n tables without one active file: named, counted, reads fail; on_damage=skip and null equal DuckDB's other files; a replaced file's size and numRecords named"

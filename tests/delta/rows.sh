#!/bin/sh
# tests/delta/rows.sh: the rows of each corpus table's snapshot, as DuckDB
# reads the active files formats/dataset/delta.c lists (rows-oracle.mjs:
# sizes, numRecords, physical column names and deleted rows checked on
# the way), equal expected/rows.txt: among them simple_table's ids 5, 7
# and 9 (delta-rs's own test of the table), table-with-dv-small's values
# 1 to 8 (its DELETE removed 0 and 9), checkpoint-v2-table's ids 1 to 44.
# With COLFS_TOOL (meson sets it) the oracle also reads each snapshot's
# union views (columns/<field>, rows.jsonl, rows.csv) through colfs-tool
# and compares them with these rows value by value, in order: deletion
# vectors and column mapping applied.
#   rows.sh DELTA_DUMP CORPUS_DIR SOURCE_DIR [--update]
# Exit 77 without the corpus or DuckDB (tests/values/duckdb-setup.sh).
set -u
dump=${1:?delta-dump}
corpus=${2:?corpus dir}/delta
src=${3:?source dir}
[ -d "$corpus" ] || { echo "SKIP: no Delta corpus at $corpus (../shared is absent)" >&2; exit 77; }
sh "$src/tests/values/duckdb-setup.sh" || exit 77
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set --
for t in "$corpus"/*/; do
	set -- "$@" "${t%/}"
done
timeout 120 node "$src/tests/delta/rows-oracle.mjs" "$dump" "$@" \
	"$corpus/simple_table@0" "$corpus/simple_table@1" \
	"$corpus/simple_table@2" "$corpus/simple_table@3" \
	"$corpus/checkpoint-v2-table@6" >"$out" 2>&1 || echo "FAILED: rows-oracle.mjs" >>"$out"
if [ "${4:-}" = --update ]; then
	cp "$out" "$src/tests/delta/expected/rows.txt"
	exit 0
fi
if ! cmp -s "$src/tests/delta/expected/rows.txt" "$out"; then
	echo "FAIL: the snapshots' rows differ from expected/rows.txt:" >&2
	diff -u "$src/tests/delta/expected/rows.txt" "$out" | head -60 >&2
	exit 1
fi
echo "rows of $(grep -c ' files' "$out") snapshots: as expected"

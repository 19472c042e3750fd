#!/bin/sh
# tests/delta/corpus.sh: every Delta table of ../shared/corpus/delta loads,
# and its snapshot is the one expected (expected/*.txt: the active files,
# partition values, record counts and deleted rows delta-dump prints,
# checked by hand against each table's _delta_log).
#   corpus.sh DELTA_DUMP CORPUS_DIR SOURCE_DIR [--update]
# Cases: each table at its latest version; older snapshots with
# -o version=N (before and after a checkpoint, a V2 checkpoint, a
# checkpoint without _last_checkpoint; a version past the latest is
# refused); the delta/ directory of three tables.  Exit 77 without the
# corpus.
set -u
dump=${1:?delta-dump}
corpus=${2:?corpus dir}/delta
src=${3:?source dir}
update=${4:-}
exp=$src/tests/delta/expected
[ -d "$corpus" ] || { echo "SKIP: no Delta corpus at $corpus (../shared is absent)" >&2; exit 77; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0

check() { # name, then delta-dump's arguments
	name=$1
	shift
	timeout 60 "$dump" "$@" >"$out/$name.txt" 2>&1
	if [ "$update" = --update ]; then
		cp "$out/$name.txt" "$exp/$name.txt"
	elif ! cmp -s "$exp/$name.txt" "$out/$name.txt"; then
		echo "FAIL: $name: delta-dump $*" >&2
		diff -u "$exp/$name.txt" "$out/$name.txt" | head -40 >&2
		fails=$((fails + 1))
	fi
}

n=0
for t in "$corpus"/*/; do
	t=${t%/}
	check "$(basename "$t")" "$t"
	n=$((n + 1))
done
for v in 0 1 2 3; do
	check "simple_table@$v" -o version=$v "$corpus/simple_table"
done
for v in 5 9 10; do
	check "simple_table_with_checkpoint@$v" -o version=$v "$corpus/simple_table_with_checkpoint"
done
for v in 1 6 7 8; do
	check "checkpoint-v2-table@$v" -o version=$v "$corpus/checkpoint-v2-table"
done
for v in 1 2; do
	check "with_checkpoint_no_last_checkpoint@$v" -o version=$v "$corpus/with_checkpoint_no_last_checkpoint"
done
check "checkpoints@13" -o version=13 "$corpus/checkpoints"
for t in table-with-dv-small table_with_column_mapping delta-0.8-empty; do
	check "tree-$t" --tree "$corpus/$t"
done
[ "$n" -ge 12 ] || { echo "FAIL: only $n tables in $corpus" >&2; exit 1; }
[ "$fails" = 0 ] || exit 1
echo "$n tables and their older versions: as expected"

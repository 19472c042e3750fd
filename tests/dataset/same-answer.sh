#!/bin/bash
# tests/dataset/same-answer.sh: a dataset with damaged files gives the
# same answer every time it is asked (docs/errors.md, "The order of
# problems"; docs/dataset-tree.md, "Damaged files").
#
#   same-answer.sh    (COLFS_TOOL, COLFS, CORPUS in the environment)
#
# The corpus's Delta table delta-0.8.0-partitioned with three of its six
# data files deleted, and a Hive dataset DuckDB writes (oracle.mjs hive)
# with two cut short (their footers lost): `colfs-tool check`, and
# `errors` and `summary` read after the union views (one colfs-tool run
# each), are the same bytes in five runs with the default decode-ahead
# workers and five with one (-o decode_threads=1); each union view that
# fails names the first damaged file in its own order (path order),
# never a later one; check prints the dataset's own problems (the lines
# of its `errors`: the missing files with the table's version) and
# exits 1.  Through a mount (default workers and one), the Delta
# table's views, errors and summary are colfs-tool's bytes.  A drifting
# dataset (oracle.mjs drift): check prints its notes and calls it
# healthy.
# Skips (77) without the corpus or DuckDB; the mount part without FUSE.
# Every mount is undone by a trap; every command runs under `timeout`.
set -u
: "${COLFS_TOOL:?COLFS_TOOL is not set}"
here=$(cd "$(dirname "$0")" && pwd)
C=${CORPUS:-$here/../../../shared/corpus}/delta/delta-0.8.0-partitioned
T=60
# $WORK made and removed on exit
. "$here/../mount-cleanup.sh" colfs-same-answer
. "$here/../need.sh"
tool() { timeout $T "$COLFS_TOOL" "$@"; }

# same TABLE LABEL VIEW...: ten runs of each question, one answer each
# (the union views VIEW... read, then errors and summary)
same() {
	local t=$1 label=$2 o i n
	shift 2
	for o in "" "-o decode_threads=1"; do
		for i in 1 2 3 4 5; do
			# shellcheck disable=SC2086
			tool $o check "$t" > "$WORK/check.$i" 2>&1
			echo "exit $?" >> "$WORK/check.$i"
			# shellcheck disable=SC2086
			tool $o cat "$t" "$@" errors summary > "$WORK/read.$i" 2>&1
			[ "$o" ] && n=b || n=a
			same_bytes "$WORK/check.1" "$WORK/check.$i" \
				"$label: check ${o:-(default workers)}: run $i differs from run 1"
			same_bytes "$WORK/read.1" "$WORK/read.$i" \
				"$label: errors after the union views ${o:-(default workers)}: run $i differs from run 1"
		done
		cp "$WORK/check.1" "$WORK/check-$n"
		cp "$WORK/read.1" "$WORK/read-$n"
	done
	cmp -s "$WORK/check-a" "$WORK/check-b" ||
		fail "$label: check with one worker differs: $(diff "$WORK/check-a" "$WORK/check-b" | head -4)"
	cmp -s "$WORK/read-a" "$WORK/read-b" ||
		fail "$label: errors with one worker differs: $(diff "$WORK/read-a" "$WORK/read-b" | head -4)"
}

# named VIEW FIRST LATER...: check's line for the union view VIEW
# (a path of the tree) names FIRST and none of the LATER files
named() {
	local view=$1 first=$2 line f
	shift 2
	line=$(awk -v v="$view: offset unknown: corrupt: " 'index($0, v) == 1' "$WORK/check-a")
	[ "$line" ] || fail "check has no line for $view: $(head -5 "$WORK/check-a")"
	[ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || fail "$view failed more than once: $line"
	case $line in
	*"$first"*) ;;
	*) fail "$view does not name its first damaged file $first: $line" ;;
	esac
	for f in "$@"; do
		case $line in
		*"$f"*) fail "$view names $f, after its first damaged file $first: $line" ;;
		esac
	done
}

# --- the Delta table ----------------------------------------------------
[ -d "$C" ] || { echo "SKIP: $C is absent (../shared is not there)" >&2; exit 77; }
D=$WORK/delta
cp -r "$C" "$D"
# path order: year=2020/month=1/day=1, 2020/2/3, 2020/2/5, 2021/12/20,
# 2021/12/4, 2021/4/5; three deleted, the first of them third
gone=(year=2020/month=2/day=5 year=2021/month=12/day=4 year=2021/month=4/day=5)
for g in "${gone[@]}"; do
	ls "$D/$g"/*.parquet > /dev/null 2>&1 || fail "$D/$g holds no file"
	rm "$D/$g"/*.parquet
done
same "$D" "Delta table" rows.jsonl columns/value partitions/year=2021/rows.csv
named /rows.jsonl "${gone[0]}/" "${gone[1]}/" "${gone[2]}/"
named /columns/value "${gone[0]}/" "${gone[1]}/" "${gone[2]}/"
named /partitions/year=2021/rows.csv "${gone[1]}/" "${gone[2]}/"
named /partitions/year=2021/partitions/month=4/rows.jsonl "${gone[2]}/"
# the table's own problems: each missing file with the log's version
for g in "${gone[@]}"; do
	grep -q "^/files/$g/part-[^:]*: offset unknown: not found: not opened: No such file or directory (an active file of the Delta log at version 0)$" "$WORK/check-a" ||
		fail "check does not print the table's problem of $g: $(grep -F "/files/$g" "$WORK/check-a" | head -3)"
done
grep -q ': unreadable: ' "$WORK/check-a" &&
	fail "check says a node is unreadable without a reason, though the table's problems say why: $(grep ': unreadable: ' "$WORK/check-a" | head -2)"
[ "$(tail -1 "$WORK/check-a")" = "exit 1" ] || fail "check of a damaged table: $(tail -2 "$WORK/check-a")"
# --json: the same lines under dataset_problems
tool check --json "$D" > "$WORK/json" 2>&1
python3 - "$WORK/json" "$WORK/check-a" <<'EOF' || fail "check --json: $(head -c 400 "$WORK/json")"
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
own = doc["dataset_problems"]
assert own and all(line in text for line in own), own
assert not doc["healthy"] and doc["problem_count"] == len(doc["problems"]) + len(own)
EOF
# through a mount, the same reads give colfs-tool's bytes (views, then
# errors and summary), with the default workers and with one
if [ -c /dev/fuse ] && command -v fusermount3 > /dev/null && [ -n "${COLFS:-}" ]; then
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	views=(rows.jsonl columns/value partitions/year=2021/rows.csv)
	tool cat "$D" "${views[@]}" errors summary > "$WORK/tool.out" 2> /dev/null
	for o in "" "-o decode_threads=1"; do
		# shellcheck disable=SC2086
		timeout $T "$COLFS" $o "$D" "$MNT" || fail "mount $D $o"
		for v in "${views[@]}"; do
			if timeout $T cat "$MNT/$v" 2> /dev/null; then
				fail "mount $o: $v read without its files"
			fi
		done > "$WORK/mnt.out"
		timeout $T cat "$MNT/errors" "$MNT/summary" >> "$WORK/mnt.out" || fail "mount $o: errors, summary"
		timeout $T fusermount3 -u "$MNT" || fail "unmount"
		same_bytes "$WORK/tool.out" "$WORK/mnt.out" \
			"mount ${o:-(default workers)}: not colfs-tool's bytes"
	done
else
	echo "note: no FUSE here (or COLFS unset): the mount part is not run"
fi
echo "ok: a Delta table without three files: the same check, errors and summary in 20 runs and through a mount; each view names its first damaged file"

# --- a Hive dataset ------------------------------------------------------
sh "$here/../values/duckdb-setup.sh" || exit $?
timeout 120 node "$here/oracle.mjs" "$WORK" hive || fail "DuckDB could not write the hive dataset"
H=$WORK/hive
cp -r "$WORK/hive2/." "$H/" && rm -rf "$WORK/hive2"
mapfile -t all < <(cd "$H" && find . -name '*.parquet' | sed 's|^\./||' | LC_ALL=C sort)
[ "${#all[@]}" -ge 8 ] || fail "the hive dataset has ${#all[@]} files"
first=${all[2]} last=${all[${#all[@]}-1]}
# cut in half: the listing takes them, their footers are lost
for g in "$first" "$last"; do
	truncate -s $(($(stat -c %s "$H/$g") / 2)) "$H/$g"
done
same "$H" "Hive dataset" rows.jsonl columns/id partitions/a=1/rows.csv
named /rows.jsonl "$first" "$last"
named /columns/id "$first" "$last"
for g in "$first" "$last"; do
	# files/ escapes a '%' of a name (docs/tree.md)
	grep -qF "/files/${g//%/%25}: offset unknown: " "$WORK/check-a" ||
		fail "check does not print the dataset's problem of $g"
done
[ "$(tail -1 "$WORK/check-a")" = "exit 1" ] || fail "check of a damaged dataset: $(tail -2 "$WORK/check-a")"
echo "ok: a Hive dataset with two files cut short: the same answers in 20 runs; each view names its first damaged file"

# --- schema drift: notes, no damage ---------------------------------------
# check prints a dataset's notes from its errors (no byte, no kind) and
# counts none of them: the dataset is healthy
timeout 120 node "$here/oracle.mjs" "$WORK" drift || fail "DuckDB could not write the drift dataset"
tool check "$WORK/drift" > "$WORK/check" 2>&1 || fail "check of a drifting dataset: $(tail -3 "$WORK/check")"
grep -q '^/schema: schema drift: field name is missing in 1 of 2 files (NULL there): p2.parquet$' "$WORK/check" &&
	grep -q ': healthy, [0-9]* nodes read$' "$WORK/check" || fail "check of a drifting dataset: $(cat "$WORK/check")"
echo "ok: schema drift: check prints the notes, the dataset healthy"

#!/bin/bash
# tests/tool/check-same.sh: `colfs-tool check` of a damaged Parquet file
# gives the same bytes every time it is asked: five runs with the default
# decode-ahead workers, five with one (-o decode_threads=1), and one at
# the lowest priority beside a busy loop per CPU (a loaded machine), all
# alike.
#
#   check-same.sh    (COLFS_TOOL, COLFS_MKSAMPLE, CORPUS_DIR in the
#                     environment)
#
# The files: the sample of colfs-mksample with two page headers
# overwritten (row group 0's column id has no data page its walk can
# find, row group 1's only the first of its pages), and the corpus's
# fuzzed files whose chunks lie past their end or stop at a header that
# does not parse (left out, with a line on stderr, without the corpus).
# Those chunks' `verify` says the walk stopped and compares none of the
# chunk's totals: the damage is the pages' problem, filed once.
# Every command runs under `timeout`.
set -u
: "${COLFS_TOOL:?COLFS_TOOL is not set}"
: "${COLFS_MKSAMPLE:?COLFS_MKSAMPLE is not set}"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../need.sh"
T=120
work=$(mktemp -d "${TMPDIR:-/tmp}/colfs-check-same.XXXXXX") || exit 1
hogs=()
trap '[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; rm -rf "$work"' EXIT
tool() { timeout $T "$COLFS_TOOL" "$@"; }

# damage FILE FROM TO: bytes [FROM, TO) of FILE overwritten with 0xff
damage() {
	[ "$2" -lt "$3" ] || fail "damage $1: empty range $2-$3"
	head -c $(($3 - $2)) /dev/zero | tr '\0' '\377' |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none ||
		fail "damage $1 at $2"
}

# raw_at FILE PAGE FIELD: the offset or length of PAGE's stored bytes
raw_at() {
	tool stat "$1" "$2/raw" | sed -n "s/^$3: //p"
}

# the generated file
s=$work/sample.parquet d=$work/damaged.parquet
timeout $T "$COLFS_MKSAMPLE" "$s" >/dev/null || fail "colfs-mksample"
cp "$s" "$d" || fail "cp"
# the file's first chunk follows the 4-byte magic: its first header
damage "$d" 4 "$(raw_at "$s" row_groups/0/chunks/id/pages/0 offset)"
q=row_groups/1/chunks/id/pages
h1=$(($(raw_at "$s" $q/0 offset) + $(raw_at "$s" $q/0 length)))
damage "$d" "$h1" "$(raw_at "$s" $q/1 offset)"
tool cat "$d" row_groups/0/chunks/id/verify row_groups/1/chunks/id/verify \
	>"$work/verify" 2>&1 || fail "cat verify: $(cat "$work/verify")"
{
	echo "stopped: the pages found hold 0 of the chunk's 1000 values (the walk: corrupt at offset 4); see errors"
	echo "stopped: the pages found hold 400 of the chunk's 1000 values (the walk: corrupt at offset $h1); see errors"
} >"$work/want"
same_bytes "$work/want" "$work/verify" "verify of the chunks whose walk stops"

files=("$d")
corpus=${CORPUS_DIR:-$here/../../../shared/corpus}/parquet/bad/arrow-testing-fuzzing
for id in minimized-parquet-arrow-fuzz-5157653963866112 \
	minimized-parquet-arrow-fuzz-5205317732532224 \
	minimized-parquet-arrow-fuzz-5638988460785664 \
	minimized-parquet-arrow-fuzz-5667493425446912 \
	minimized-parquet-arrow-fuzz-5707695493742592 \
	minimized-parquet-arrow-fuzz-5725463236575232 \
	minimized-parquet-arrow-fuzz-5761340172140544 \
	parquet-arrow-fuzz-5634357839790080; do
	f=$corpus/clusterfuzz-testcase-$id
	if [ -f "$f" ]; then
		files+=("$f")
	else
		echo "not in the corpus, left out: $f" >&2
	fi
done

# the hog: one busy loop per CPU at normal priority, beside a run at the
# lowest
hog_start() {
	local n
	n=$(nproc 2>/dev/null || echo 2)
	for _ in $(seq "$n"); do
		timeout $T sh -c 'while :; do :; done' &
		hogs+=($!)
	done
}
hog_stop() {
	kill "${hogs[@]}" 2>/dev/null
	wait "${hogs[@]}" 2>/dev/null
	hogs=()
}

for f in "${files[@]}"; do
	tool check "$f" >"$work/c.1" 2>&1
	echo "exit $?" >>"$work/c.1"
	grep -q 'Sanitizer\|runtime error' "$work/c.1" &&
		{ cat "$work/c.1" >&2; fail "$f: sanitizer report"; }
	i=1
	for o in "" "" "" "" "-o decode_threads=1" "-o decode_threads=1" \
		"-o decode_threads=1" "-o decode_threads=1" \
		"-o decode_threads=1" nice; do
		i=$((i + 1))
		if [ "$o" = nice ]; then
			hog_start
			timeout $T nice -n 19 "$COLFS_TOOL" check "$f" \
				>"$work/c.$i" 2>&1
			echo "exit $?" >>"$work/c.$i"
			hog_stop
		else
			# shellcheck disable=SC2086
			tool $o check "$f" >"$work/c.$i" 2>&1
			echo "exit $?" >>"$work/c.$i"
		fi
		same_bytes "$work/c.1" "$work/c.$i" \
			"$f: check ${o:-(default workers)}: run $i differs from run 1"
	done
done
echo "PASS: ${#files[@]} files, 11 runs each, one answer each"

#!/bin/sh
# tests/arrow/apache-arrow.sh: files written by the npm apache-arrow
# package (tests/arrow/write.mjs: every type it writes, three batches,
# nulls, a dictionary; the file format, the stream format, and the file
# format with LZ4_FRAME bodies through lz4js) read back through
# colfs-tool: rows.jsonl byte for byte equal to the rows the writer
# rendered from the values it wrote; the uncompressed files without any
# problem; the LZ4 file's problem naming the writer's wrong lengths; the
# file and the stream in one folder read as a dataset.
#
#	apache-arrow.sh COLFS_TOOL
#
# Exit 0 pass, 1 fail, 77 skip (no node, npm or registry).
set -u
tool=$1
dir=$(cd "$(dirname "$0")" && pwd)

sh "$dir/../npm-setup.sh" apache-arrow "$dir" ci \
	"require('apache-arrow'); require('lz4js')" apache-arrow "the test" ||
	exit $?

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 120 node "$dir/write.mjs" "$tmp" || { echo "FAIL: write.mjs"; exit 1; }

fail=0
for f in all.arrow all.arrows all-lz4.arrow; do
	if ! timeout 60 "$tool" cat "$tmp/$f" rows.jsonl errors >"$tmp/$f.out" 2>"$tmp/$f.err"; then
		echo "FAIL $f: $(head -3 "$tmp/$f.err")"
		fail=1
		continue
	fi
	n=$(wc -l <"$tmp/expected.jsonl")
	head -n "$n" "$tmp/$f.out" >"$tmp/$f.rows"
	tail -n +"$((n + 1))" "$tmp/$f.out" >"$tmp/$f.errors"
	if ! cmp -s "$tmp/$f.rows" "$tmp/expected.jsonl"; then
		echo "FAIL $f: rows.jsonl differs from what the writer wrote:"
		diff "$tmp/expected.jsonl" "$tmp/$f.rows" | head -6 | cut -c1-400
		fail=1
		continue
	fi
	case $f in
	all-lz4.arrow)
		grep -q "LZ4 buffer(s) announce another length than their frames hold" \
			"$tmp/$f.errors" || {
			echo "FAIL $f: the writer's wrong LZ4 lengths are not reported"
			fail=1
			continue
		} ;;
	*)
		if [ -s "$tmp/$f.errors" ]; then
			echo "FAIL $f: errors: $(head -2 "$tmp/$f.errors")"
			fail=1
			continue
		fi ;;
	esac
	echo "ok   $f ($n rows equal)"
done
# a scalar column as text, and rows.csv's header and record count (a
# quoted field may span lines: records counted by a CSV reader)
"$tool" cat "$tmp/all.arrow" columns/i8 >"$tmp/i8" 2>&1 || fail=1
node -e '
const fs = require("fs");
const want = fs.readFileSync(process.argv[1], "utf8").trim().split("\n")
  .map((l) => { const v = JSON.parse(l).i8; return v === null ? "\\N" : String(v); });
const got = fs.readFileSync(process.argv[2], "utf8").trim().split("\n");
if (want.join("\n") !== got.join("\n")) { console.log("FAIL columns/i8 differs"); process.exit(1); }
console.log("ok   columns/i8 (" + got.length + " values)");
' "$tmp/expected.jsonl" "$tmp/i8" || fail=1
"$tool" cat "$tmp/all.arrows" rows.csv >"$tmp/csv" 2>&1 || fail=1
[ "$(python3 -c 'import csv, sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], newline=""))))' "$tmp/csv")" -eq "$(($(wc -l <"$tmp/expected.jsonl") + 1))" ] &&
	head -1 "$tmp/csv" | grep -q '^nul,b,i8,u16,' || {
	echo "FAIL rows.csv: header or record count"
	fail=1
}
# the folder of the file and the stream as a dataset: both files' rows
mkdir "$tmp/ds" && cp "$tmp/all.arrow" "$tmp/all.arrows" "$tmp/ds/" || fail=1
if timeout 60 "$tool" cat "$tmp/ds" rows.jsonl >"$tmp/ds.rows" 2>"$tmp/ds.err" &&
	cat "$tmp/expected.jsonl" "$tmp/expected.jsonl" | cmp -s - "$tmp/ds.rows"; then
	echo "ok   a dataset of the file and the stream"
else
	echo "FAIL dataset: $(head -2 "$tmp/ds.err")"
	fail=1
fi
exit $fail

#!/bin/bash
# tests/parquet/bloom-types.sh COLFS_TOOL WORKDIR: bloom filter lookups
# (bloom_filter/might_contain/<value>) for every type DuckDB writes a
# filter for (gen-bloom-types.mjs: integers signed and unsigned, decimals,
# float, double, strings, blobs, dates incl. BC, times with and without
# UTC adjustment, timestamps in s/ms/us/ns and with time zone, UUID,
# INTERVAL).  Every value of a column, as colfs renders it in columns/,
# must be found in the column's filter; of 40 values of the same type that
# the column does not hold, at most a quarter may be (false positives of
# the filter).  Skips (77) without node or DuckDB.
set -u
tool=${1:?usage: bloom-types.sh COLFS_TOOL WORKDIR}
work=${2:?usage: bloom-types.sh COLFS_TOOL WORKDIR}
dir=$(cd "$(dirname "$0")" && pwd)

sh "$dir/../values/duckdb-setup.sh" || exit $?
mkdir -p "$work" || exit 1
node "$dir/gen-bloom-types.mjs" "$work" || { echo "FAIL: generator"; exit 1; }
f=$work/present.parquet
a=$work/absent.parquet

# a value's text as one path component (docs/tree.md escaping)
esc() { printf '%s' "$1" | sed 's/%/%25/g; s#/#%2F#g'; }

fails=0 filters=0
for c in $("$tool" ls "$f" columns); do
	bf=row_groups/0/chunks/$c/bloom_filter
	if ! "$tool" stat "$f" "$bf" >/dev/null 2>&1; then
		echo "note: $c: DuckDB wrote no bloom filter"
		continue
	fi
	filters=$((filters + 1))
	"$tool" cat "$f" "columns/$c" | grep -vx '\\N' | sort -u >"$work/present.txt"
	"$tool" cat "$a" "columns/$c" | grep -vx '\\N' | sort -u >"$work/absent.txt"
	np=$(wc -l <"$work/present.txt") na=$(wc -l <"$work/absent.txt")
	[ "$np" -gt 0 ] && [ "$na" -gt 0 ] || { echo "FAIL: $c: no values"; fails=$((fails + 1)); continue; }
	# one stat per column and side: each value found prints one block
	# ("path: ..."), a value not in the filter one line on stderr
	while IFS= read -r v; do
		printf '%s\n' "$bf/might_contain/$(esc "$v")"
	done <"$work/present.txt" >"$work/present.paths"
	xargs -d '\n' "$tool" stat "$f" <"$work/present.paths" 2>"$work/err" |
		grep -c '^path: ' >"$work/found"
	miss=$((np - $(cat "$work/found")))
	[ "$miss" = 0 ] || sed "s/^/FAIL: $c: not found: /" "$work/err" | head -5
	grep -vxF -f "$work/present.txt" "$work/absent.txt" |
		while IFS= read -r v; do
			printf '%s\n' "$bf/might_contain/$(esc "$v")"
		done >"$work/absent.paths"
	fp=$(xargs -d '\n' -r "$tool" stat "$f" <"$work/absent.paths" 2>/dev/null |
		grep -c '^path: ')
	if [ "$miss" -gt 0 ] || [ $((fp * 4)) -gt "$na" ]; then
		echo "FAIL: $c: $miss of $np stored values missed, $fp of $na absent values found"
		fails=$((fails + 1))
	else
		echo "ok: $c: $np stored values found, $fp of $na absent values found"
	fi
done
# the generator writes 27 columns; DuckDB 1.5 filters all but DECIMAL(38)
[ "$filters" -ge 24 ] || { echo "FAIL: only $filters columns have a bloom filter"; fails=$((fails + 1)); }
echo "$filters filters checked, $fails failed"
[ "$fails" -eq 0 ]

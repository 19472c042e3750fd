#!/bin/sh
# tests/values/geo-oracle.sh COLFS_TOOL OUTDIR: the geometry columns of
# every file of ../shared/corpus/parquet/good/geospatial/ and of a file
# DuckDB writes with GEOMETRY values of every kind, read by colfs
# (columns/NAME) and by DuckDB (::VARCHAR), compared value by value.
# Skips (77) when DuckDB cannot be installed; the corpus files are left
# out, with a message, when ../shared is absent.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
tool=${1:?usage: geo-oracle.sh COLFS_TOOL OUTDIR}
out=${2:?usage: geo-oracle.sh COLFS_TOOL OUTDIR}
corpus=$dir/../../../shared/corpus/parquet/good/geospatial

sh "$dir/duckdb-setup.sh" || exit $?
rm -rf "$out" && mkdir -p "$out" || exit 1
set --
if [ -d "$corpus" ]; then
	for f in "$corpus"/*.parquet; do
		set -- "$@" "$f"
	done
else
	echo "geo-oracle: $corpus absent: only the DuckDB-written file" >&2
fi
(cd "$dir" && timeout 300 node geo-oracle.mjs "$out" "$@") || exit 1
[ -s "$out/list" ] || { echo "geo-oracle: no geometry column found" >&2; exit 1; }

fails=0 n=0
tab=$(printf '\t')
while IFS="$tab" read -r f col exp; do
	n=$((n + 1))
	if ! timeout 60 "$tool" cat "$f" "columns/$col" > "$out/got-$n.txt"; then
		echo "FAIL: colfs-tool cat $f columns/$col" >&2
		fails=$((fails + 1))
	elif ! cmp -s "$exp" "$out/got-$n.txt"; then
		echo "FAIL: $f columns/$col differs from DuckDB:" >&2
		diff "$exp" "$out/got-$n.txt" | head -10 >&2
		fails=$((fails + 1))
	else
		echo "ok: $(basename "$f") $col: $(wc -l < "$exp") values"
	fi
done < "$out/list"
echo "$n columns, $fails failed"
[ "$fails" -eq 0 ]

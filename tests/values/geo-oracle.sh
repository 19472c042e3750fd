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

# malformed WKB: shown as bytes, the first bad value of the page reported
# at its bad byte (the point cut short: 5 bytes into the value)
bad=$out/malformed-wkb.parquet
got=$(timeout 60 "$tool" cat "$bad" columns/g) || {
	echo "FAIL: colfs-tool cat $bad columns/g" >&2; fails=$((fails + 1)); }
want='POINT (1 2)
\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xF0?
\x01\x02\x00\x00\x00\xFF\xFF\xFF\x7F
\x01\x08\x00\x00\x00\x00\x00\x00\x00'
if [ "$(printf '%s\n' "$got" | head -4)" != "$want" ] ||
   [ "$(printf '%s\n' "$got" | tail -1)" != '\N' ] ||
   [ "$(printf '%s\n' "$got" | wc -l)" -ne 6 ]; then
	echo "FAIL: malformed WKB values:" >&2
	printf '%s\n' "$got" | cut -c1-100 >&2
	fails=$((fails + 1))
fi
at=$(python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); v = bytes.fromhex("0d0000000101000000000000000000f03f"); print(d.find(v) + 4 + 5)' "$bad")
# (errors lists what this walk found: read the values first)
errs=$(timeout 60 "$tool" cat "$bad" columns/g errors)
case $errs in
*"offset $at "*"data page value 1: malformed WKB (WKB ends inside a point, byte 5 of the value) and more in the page"*)
	echo "ok: malformed WKB reported at offset $at" ;;
*)
	echo "FAIL: malformed WKB not reported at offset $at:" >&2
	printf '%s\n' "$errs" >&2
	fails=$((fails + 1)) ;;
esac
echo "$n columns, $fails failed"
[ "$fails" -eq 0 ]

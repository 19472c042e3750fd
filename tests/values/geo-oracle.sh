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

# the same values in rows.jsonl (a JSON string, null) and rows.csv (a
# quoted field when it holds a comma; NULL an empty field, here an empty
# line, which the csv module reads as no field: shown as columns/ shows it)
v2=$out/duckdb-geometry-v2.parquet
exp=$(awk -F "$tab" -v f="$v2" '$1 == f { print $3 }' "$out/list")
timeout 60 "$tool" cat "$v2" rows.jsonl | jq -r '.g // "\\N"' > "$out/jsonl.txt"
timeout 60 "$tool" cat "$v2" rows.csv | python3 -c 'import csv, sys; r = csv.reader(sys.stdin); next(r); [print((x or [""])[0] or "\\N") for x in r]' > "$out/csv.txt"
for v in jsonl csv; do
	if cmp -s "$exp" "$out/$v.txt"; then
		echo "ok: rows.$v of $(basename "$v2")"
	else
		echo "FAIL: rows.$v of $v2 differs from DuckDB:" >&2
		diff "$exp" "$out/$v.txt" | head -5 >&2
		fails=$((fails + 1))
	fi
done

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

# WKB mutants in a file: random bytes of the uncompressed GEOMETRY page
# changed (fixed seed; page CRCs ignored so that the values are decoded),
# each read through columns/, rows.jsonl and errors: no crash, no
# sanitizer report, no hang (a 30-second limit each); some (at least 10)
# hold malformed WKB that errors names
if ! python3 - "$tool" "$out/duckdb-geometry-plain.parquet" "$out/mutant.parquet" <<'PY'
import random, subprocess, sys
tool, src, dst = sys.argv[1:4]
data = open(src, 'rb').read()
flen = int.from_bytes(data[-8:-4], 'little')
hi = len(data) - 8 - flen          # the pages end where the footer starts
rng = random.Random(17)
bad = 0
malformed = 0
for m in range(100):
    b = bytearray(data)
    for _ in range(1 + m % 4):
        b[rng.randrange(4, hi)] = rng.randrange(256)
    open(dst, 'wb').write(b)
    try:
        # one process: the values, then the rows, then what they found
        r = subprocess.run([tool, '-o', 'checksums=ignore', 'cat', dst,
                            'columns/g', 'rows.jsonl', 'errors'],
                           capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        print(f'FAIL: WKB mutant {m} hangs'); bad += 1; continue
    err = r.stderr.decode('utf-8', 'replace')
    if r.returncode not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
        print(f'FAIL: WKB mutant {m}: exit {r.returncode}: {err[:300]}')
        bad += 1
    malformed += b'malformed WKB' in r.stdout
print(f'ok: 100 WKB mutants read, {malformed} with malformed WKB reported'
      if not bad else f'{bad} WKB mutants failed')
sys.exit(1 if bad or malformed < 10 else 0)
PY
then
	fails=$((fails + 1))
fi

# GeospatialStatistics in statistics.json, named: DuckDB's bounding box of
# the V2 file (x 0..1e20, y 0..123456789012, z 1..7, m 3..8) and types
stats() {
	got=$(timeout 60 "$tool" cat "$1" "$2" | jq -c '.geospatial_statistics | [.bbox.xmin, .bbox.xmax, .bbox.ymin, .bbox.ymax, .bbox.zmin, .bbox.zmax, .bbox.mmin, .bbox.mmax, (.geospatial_types | length), .geospatial_types[-1]]')
	if [ "$got" = "$3" ]; then
		echo "ok: $(basename "$1") $2: $got"
	else
		echo "FAIL: $1 $2: $got, expected $3" >&2
		fails=$((fails + 1))
	fi
}
stats "$out/duckdb-geometry-v2.parquet" row_groups/0/chunks/g/statistics.json \
	'[0,1e+20,0,123456789012,1,7,3,8,14,"LINESTRING ZM"]'
# GeoParquet's `geo` metadata beside the column in schema: DuckDB's
# GeoParquet 1.0 file (the default) and the malformed-WKB file's own
for f in "$out/duckdb-geometry.parquet" "$bad"; do
	line=$(timeout 60 "$tool" cat "$f" schema | grep ' g;')
	case $line in
	*"g;  # GeoParquet: WKB, geometry types "*", crs "*)
		echo "ok: $(basename "$f") schema: $line" ;;
	*)
		echo "FAIL: $f schema does not mark g as GeoParquet: $line" >&2
		fails=$((fails + 1)) ;;
	esac
done
if [ -d "$corpus" ]; then
	# geospatial.yaml: x, y in 10..40, z = x + y, m = z * y; every kind
	stats "$corpus/geospatial.parquet" row_groups/0/chunks/geometry/statistics.json \
		'[10,40,10,40,30,80,200,1600,28,"GEOMETRYCOLLECTION ZM"]'
fi
echo "$n columns, $fails failed"
[ "$fails" -eq 0 ]

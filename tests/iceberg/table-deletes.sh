#!/bin/sh
# tests/iceberg/table-deletes.sh: Iceberg deletes over whole tables
# (suite iceberg-deletes).  make_table.py writes a format version 2 table
# (position and equality delete files), the same with Avro delete files
# and a version 3 one (deletion vectors), five snapshots each; for every snapshot table_files.py reads
# its manifests with python3-avro, and test_ice_deletes --table checks
# that the data files less the rows ice_deletes_rows gives hold
# expected.json's rows (DuckDB's).  The benchmark table's mode too, small,
# and the partition transforms' table.
#
#   table-deletes.sh TEST_ICE_DELETES
#
# Exit 77 (skipped) when DuckDB cannot be had (tests/values/duckdb-setup.sh).
set -u
exe=$1
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../values/duckdb-setup.sh" || exit 77
dir=$(mktemp -d "${TMPDIR:-/tmp}/colfs-ice-tables.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
fail=0
for v in 2 3 2-avro; do
	t=$dir/v$v
	extra=
	[ "$v" = 2-avro ] && extra="--delete-format avro"
	timeout 120 /usr/bin/python3 "$here/make_table.py" "$t" --format-version ${v%-avro} \
		--location "s3a://warehouse/db/t$v" $extra || {
		echo "FAIL make_table.py --format-version $v"
		exit 1
	}
	/usr/bin/python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["snapshots"]:
    print(s["snapshot"], s["rows"])' "$t/expected.json" >"$dir/snaps" || exit 1
	while read -r snap rows; do
		echo "== v$v snapshot $snap"
		timeout 60 /usr/bin/python3 "$here/table_files.py" "$t" "$snap" "$dir/files.json" &&
		timeout 60 "$exe" --table "$dir/files.json" "$rows" || fail=1
	done <"$dir/snaps"
done
# the benchmark table's mode, small: 60 files in 3 manifests, one
# snapshot, no deletes
t=$dir/scale
timeout 120 /usr/bin/python3 "$here/make_table.py" "$t" --scale --files 60 --manifests 3 || {
	echo "FAIL make_table.py --scale"
	exit 1
}
set -- $(/usr/bin/python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
print(e["snapshot"], e["rows"], len(e["values"]["id"]))' "$t/expected.json")
echo "== scale snapshot $1"
[ "$2" = 120 ] && [ "$3" = 120 ] || { echo "FAIL: the scale table holds $2 rows ($3 values), not 120"; fail=1; }
n=$(ls "$t"/metadata/*-m0.avro | wc -l)
[ "$n" = 3 ] || { echo "FAIL: the scale table has $n manifests, not 3"; fail=1; }
timeout 60 /usr/bin/python3 "$here/table_files.py" "$t" "$1" "$dir/files.json" &&
timeout 60 "$exe" --table "$dir/files.json" "$2" >"$dir/out" || fail=1
tail -1 "$dir/out"
# the partition transforms' table: its manifest's partition tuples, read
# by python3-avro, are the human forms expected.json gives (bucket,
# truncate, day, hour, month, year), and its rows all there
t=$dir/transforms
timeout 120 /usr/bin/python3 "$here/make_table.py" "$t" --transforms || {
	echo "FAIL make_table.py --transforms"
	exit 1
}
snap=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["snapshot"])' "$t/expected.json")
echo "== transforms snapshot $snap"
timeout 60 /usr/bin/python3 "$here/table_files.py" "$t" "$snap" "$dir/files.json" &&
/usr/bin/python3 - "$dir/files.json" "$t/expected.json" <<'PY' || fail=1
import datetime, json, sys
files = json.load(open(sys.argv[1]))["data"]
want = json.load(open(sys.argv[2]))["partitions"]
epoch = datetime.datetime(1970, 1, 1)
def human(k, v):
    if v is None:
        return None
    if k == "ts_day":
        return str(v)
    if k == "ts_hour":
        return (epoch + datetime.timedelta(hours=v)).strftime("%Y-%m-%d-%H")
    if k == "d_month":
        return "%04d-%02d" % (1970 + v // 12, v % 12 + 1)
    if k == "d_year":
        return "%04d" % (1970 + v)
    return str(v)
bad = [f["path"] for f in files
       if {k: human(k, v) for k, v in f["partition"].items()} != want.get(f["path"])]
if len(files) != len(want) or bad:
    print("FAIL: partition tuples differ from expected.json's:", bad or len(files))
    sys.exit(1)
print("ok: %d files, their partition tuples as expected.json's" % len(files))
PY
timeout 60 "$exe" --table "$dir/files.json" 8 >"$dir/out" || fail=1
tail -1 "$dir/out"
exit $fail

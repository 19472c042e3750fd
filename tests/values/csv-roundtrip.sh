#!/bin/bash
# tests/values/csv-roundtrip.sh OUTDIR: rows.csv (RFC 4180, docs/values.md)
# read back through a mount by DuckDB's read_csv(header = true,
# allow_quoted_nulls = false) equals the rows it was made of (EXCEPT ALL
# both ways empty, csv-roundtrip.mjs), and pandas' read_csv gives the
# same values (csv-roundtrip.py), for
#   - a Parquet file DuckDB writes: commas, quotes, CR, LF, backslashes,
#     the string \N, empty strings and NULLs in every type;
#   - the same rows as a Hive dataset (the union's rows.csv);
#   - an ORC file of tests/orc/orc_gen with the same strings as names;
# and with -o null=NULL (colfs-tool): read_csv(nullstr = 'NULL') gives the
# same rows, the string "NULL" among them.
# COLFS, COLFS_TOOL and ORC_GEN in the environment.  Skips (77) with a
# message without DuckDB (npm), pandas or FUSE.  Every mount is undone by
# a trap; every command runs under `timeout`.
set -euo pipefail
out=${1:?usage: csv-roundtrip.sh OUTDIR}
: "${COLFS:?COLFS is not set}" "${COLFS_TOOL:?COLFS_TOOL is not set}" "${ORC_GEN:?ORC_GEN is not set}"
here=$(cd "$(dirname "$0")" && pwd)
T=30
py=/usr/bin/python3
[ -x "$py" ] || py=python3

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

rc=0
sh "$here/duckdb-setup.sh" || rc=$?
[ $rc = 0 ] || exit $rc
"$py" -c 'import pandas' 2>/dev/null || skip "python3-pandas is not installed"
[ -c /dev/fuse ] || skip "/dev/fuse is not available"
command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"

rm -rf "$out" && mkdir -p "$out/mnt"
export XDG_CACHE_HOME=$out/cache
MNT=$out/mnt
mounted=0
cleanup() {
	if [ $mounted = 1 ]; then
		timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

(cd "$here" && timeout 120 node csv-roundtrip.mjs gen "$out/gen") || fail "DuckDB could not write the fixtures"
timeout $T "$ORC_GEN" "$out/o.orc" 40 16 "$out/gen/names" || fail "orc_gen"

# SOURCE WANT NAME: SOURCE mounted, its rows.csv against WANT
check() {
	timeout $T "$COLFS" "$1" "$MNT" || fail "mount $1"
	mounted=1
	timeout $T cat "$MNT/rows.csv" > "$out/$3.csv" || fail "$3: cat rows.csv"
	timeout $T fusermount3 -u "$MNT" || fail "unmount $1"
	mounted=0
	(cd "$here" && timeout 120 node csv-roundtrip.mjs check "$2" "$out/$3.csv" "$out/$3.json") ||
		fail "$3: DuckDB's read_csv"
	timeout 120 "$py" "$here/csv-roundtrip.py" "$out/$3.json" "$out/$3.csv" ||
		fail "$3: pandas' read_csv"
}
check "$out/gen/t.parquet" "$out/gen/t.parquet" parquet
check "$out/gen/ds" "$out/gen/ds" dataset
check "$out/o.orc" "$out/gen/orc.parquet" orc

# -o null=NULL: NULL is the unquoted text NULL, the string "NULL" quoted
timeout $T "$COLFS_TOOL" -o null=NULL cat "$out/gen/t.parquet" rows.csv > "$out/null.csv" ||
	fail "colfs-tool -o null=NULL cat rows.csv"
grep -q '^16,.*,"NULL",' "$out/null.csv" || fail "-o null=NULL: the string NULL is not quoted: $(sed -n 18p "$out/null.csv")"
(cd "$here" && COLFS_CSV_NULLSTR=NULL timeout 120 node csv-roundtrip.mjs check "$out/gen/t.parquet" "$out/null.csv" "$out/null.json") ||
	fail "-o null=NULL: DuckDB's read_csv(nullstr = 'NULL')"
echo "ok: rows.csv of a Parquet file, a dataset and an ORC file read back by DuckDB and pandas"

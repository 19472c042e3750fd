#!/bin/sh
# tests/iceberg/deletes.sh: the Iceberg deletes test (suite
# iceberg-deletes).  Writes the fixtures into a fresh folder (Parquet
# files and the expected rows by DuckDB, deletes-fixtures.mjs; Puffin
# files by deletes-fixtures.py with Debian's python3) and runs
# test_ice_deletes over them.
#
#   deletes.sh TEST_ICE_DELETES CORPUS
#
# Exit 77 (skipped) when DuckDB cannot be had (tests/values/duckdb-setup.sh).
set -u
exe=$1
corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../values/duckdb-setup.sh" || exit 77
dir=$(mktemp -d "${TMPDIR:-/tmp}/colfs-ice-deletes.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
timeout 120 node "$here/deletes-fixtures.mjs" "$dir" || {
	echo "deletes.sh: the DuckDB fixtures failed" >&2
	exit 1
}
timeout 60 /usr/bin/python3 "$here/deletes-fixtures.py" "$dir" || {
	echo "deletes.sh: the Puffin fixtures failed" >&2
	exit 1
}
timeout 120 "$exe" "$dir" "$corpus"

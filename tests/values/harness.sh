#!/bin/sh
# tests/values/harness.sh OUTDIR [FLATCHECK]: the DuckDB oracle harness
# tests itself: it writes the type x compression x version x dictionary
# matrix, then checks that DuckDB reads every file back with the expected
# row count and that every expected-value file has one line per row.  With
# FLATCHECK (the values_flat_check program), every flat column of every
# file is then decoded and rendered by colfs and compared with DuckDB's.
# Skips (77) when DuckDB cannot be installed.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: harness.sh OUTDIR [FLATCHECK]}
flat=${2:-}

sh "$dir/duckdb-setup.sh" || exit $?
rm -rf "$out"
(cd "$dir" && node gen-matrix.mjs "$out") || exit 1
(cd "$dir" && node gen-matrix.mjs "$out" --check) || exit 1
if [ -n "$flat" ]; then
	"$flat" "$out" || exit 1
fi

#!/bin/sh
# tests/values/render-oracle.sh CHECKER OUTFILE: formats/core/render.c
# against DuckDB's text for ~260000 random values of every scalar type
# (CHECKER is the values_render_oracle program).  Skips (77) when DuckDB
# cannot be installed.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
checker=${1:?usage: render-oracle.sh CHECKER OUTFILE}
out=${2:?usage: render-oracle.sh CHECKER OUTFILE}

sh "$dir/duckdb-setup.sh" || exit $?
(cd "$dir" && node render-oracle.mjs "$out") || exit 1
exec "$checker" "$out"

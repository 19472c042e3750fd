#!/bin/sh
# tests/values/duckdb-setup.sh: make the npm package @duckdb/node-api
# available to the DuckDB oracle scripts of this folder (it is installed
# into tests/values/node_modules, which git ignores) through
# tests/npm-setup.sh.
#
# Exit 0 when it can be loaded, 77 (the meson "skip" code) with a message
# when node or npm is missing or the npm registry cannot be reached.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
exec sh "$dir/../npm-setup.sh" duckdb-setup "$dir" install \
	"import('@duckdb/node-api').then(() => process.exit(0), () => process.exit(1))" \
	@duckdb/node-api "the DuckDB oracle"

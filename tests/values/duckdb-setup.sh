#!/bin/sh
# tests/values/duckdb-setup.sh: make the npm package @duckdb/node-api
# available to the DuckDB oracle scripts of this folder (it is installed
# into tests/values/node_modules, which git ignores).
#
# Exit 0 when it can be loaded, 77 (the meson "skip" code) with a message
# when node or npm is missing or the npm registry cannot be reached.
set -u
dir=$(cd "$(dirname "$0")" && pwd)

skip() {
	echo "duckdb-setup: $*: skipping the DuckDB oracle" >&2
	exit 77
}

loadable() {
	(cd "$dir" && node -e "import('@duckdb/node-api').then(() => process.exit(0), () => process.exit(1))") >/dev/null 2>&1
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
loadable && exit 0
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

# One installer at a time (tests may run in parallel).
exec 9>"${TMPDIR:-/tmp}/colfs-duckdb-setup.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi
loadable && exit 0

timeout 30 npm ping >/dev/null 2>&1 ||
	skip "the npm registry is not reachable"
(cd "$dir" && timeout 600 npm install --no-audit --no-fund \
	--loglevel=error >/dev/null 2>&1) ||
	skip "npm install @duckdb/node-api failed"
loadable || skip "@duckdb/node-api installed but cannot be loaded"
exit 0

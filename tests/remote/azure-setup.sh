#!/bin/sh
# tests/remote/azure-setup.sh: make Azurite (npm azurite 3.35.0, the last
# release that runs on Node 20) available to azure.sh: `npm ci` from
# tests/remote/azure/package-lock.json into tests/remote/azure/node_modules,
# which git ignores.
#
# Exit 0 when azurite-blob is there, 77 (the meson "skip" code) with a
# message when node or npm is missing or the npm registry cannot be
# reached.
set -u
dir=$(cd "$(dirname "$0")/azure" && pwd)

skip() {
	echo "azure-setup: $*: skipping the Azure test" >&2
	exit 77
}

loadable() {
	[ -x "$dir/node_modules/.bin/azurite-blob" ] &&
		(cd "$dir" && node -e "require('azurite/package.json')") >/dev/null 2>&1
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
loadable && exit 0
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

# One installer at a time (tests may run in parallel).
exec 9>"${TMPDIR:-/tmp}/colfs-azurite-setup.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi
loadable && exit 0

timeout 30 npm ping >/dev/null 2>&1 ||
	skip "the npm registry is not reachable"
(cd "$dir" && timeout 600 npm ci --no-audit --no-fund \
	--loglevel=error >/dev/null 2>&1) ||
	skip "npm ci azurite failed"
loadable || skip "azurite installed but cannot be loaded"
exit 0

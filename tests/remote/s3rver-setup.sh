#!/bin/sh
# tests/remote/s3rver-setup.sh: make the npm package @20minutes/s3rver
# (an S3-compatible server that checks Signature V4) available to
# s3-server.js: `npm ci` from package-lock.json into
# tests/remote/node_modules, which git ignores.
#
# Exit 0 when it can be loaded, 77 (the meson "skip" code) with a message
# when node or npm is missing or the npm registry cannot be reached.
set -u
dir=$(cd "$(dirname "$0")" && pwd)

skip() {
	echo "s3rver-setup: $*: skipping the S3 test" >&2
	exit 77
}

loadable() {
	(cd "$dir" && node -e "require('@20minutes/s3rver'); require('@20minutes/s3rver/lib/models/account')") >/dev/null 2>&1
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
loadable && exit 0
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

# One installer at a time (tests may run in parallel).
exec 9>"${TMPDIR:-/tmp}/colfs-s3rver-setup.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi
loadable && exit 0

timeout 30 npm ping >/dev/null 2>&1 ||
	skip "the npm registry is not reachable"
(cd "$dir" && timeout 600 npm ci --no-audit --no-fund \
	--loglevel=error >/dev/null 2>&1) ||
	skip "npm ci @20minutes/s3rver failed"
loadable || skip "@20minutes/s3rver installed but cannot be loaded"
exit 0

#!/bin/sh
# tests/npm-setup.sh: make npm packages that a test needs available in a
# folder of the tests (installed into its node_modules, which git
# ignores): the one installer behind tests/values/duckdb-setup.sh,
# tests/remote/s3rver-setup.sh, tests/remote/azure-setup.sh and
# tests/arrow/apache-arrow.sh.
#
#	npm-setup.sh TAG DIR install|ci CHECK PACKAGE SKIPPED
#
# TAG names the lock and starts each message; DIR holds package.json (and,
# for ci, package-lock.json); CHECK is JavaScript that node runs in DIR and
# that throws unless the packages can be used; PACKAGE names them in the
# messages; SKIPPED is what the caller leaves out without them.
#
# Exit 0 when CHECK passes, 77 (the meson "skip" code) with a message when
# node or npm is missing, the npm registry cannot be reached or the
# install fails.
set -u
[ $# -eq 6 ] || {
	echo "usage: npm-setup.sh TAG DIR install|ci CHECK PACKAGE SKIPPED" >&2
	exit 2
}
tag=$1
dir=$2
how=$3
check=$4
package=$5
skipped=$6

skip() {
	echo "$tag: $*: skipping $skipped" >&2
	exit 77
}

loadable() {
	(cd "$dir" && node -e "$check") >/dev/null 2>&1
}

command -v node >/dev/null 2>&1 || skip "node is not installed"
loadable && exit 0
command -v npm >/dev/null 2>&1 || skip "npm is not installed"

# One installer at a time (tests may run in parallel).
exec 9>"${TMPDIR:-/tmp}/colfs-$tag.lock"
if command -v flock >/dev/null 2>&1; then
	flock 9
fi
loadable && exit 0

timeout 30 npm ping >/dev/null 2>&1 ||
	skip "the npm registry is not reachable"
(cd "$dir" && timeout 600 npm "$how" --no-audit --no-fund \
	--loglevel=error >/dev/null 2>&1) ||
	skip "npm $how $package failed"
loadable || skip "$package installed but cannot be loaded"
exit 0

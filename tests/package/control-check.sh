#!/bin/sh
# tests/package/control-check.sh: debian/control's Build-Depends are the
# build packages of tools/bootstrap.sh (its list without the test tools),
# but for those a Debian build has anyway or does not need: gcc and
# libc6-dev (build-essential), fuse3 (the package's dependency, not the
# build's), tzdata and libcmocka-dev (the tests, not built).  A library
# added to one list and not the other fails here, not in a package build.
# Exit 0 pass, 1 fail.
#   control-check.sh SOURCE_ROOT
set -u
root=${1:?source root}
fail() { echo "FAIL: $*" >&2; exit 1; }

want=$(COLFS_WITH_TEST_TOOLS=0 sh "$root/tools/bootstrap.sh" --list |
	tr ' ' '\n' | grep -vxE 'gcc|libc6-dev|fuse3|tzdata|libcmocka-dev' |
	grep . | LC_ALL=C sort)
# The Build-Depends field and its continuation lines, without versions.
got=$(sed -n '/^Build-Depends:/,/^[^ ]/p' "$root/debian/control" |
	sed -e 's/^Build-Depends://' -e '/^[A-Z]/d' | tr ',' '\n' |
	sed -e 's/([^)]*)//g' -e 's/[[:space:]]//g' | grep . |
	grep -vx 'debhelper-compat' | LC_ALL=C sort)
[ -n "$want" ] || fail "tools/bootstrap.sh --list gives nothing"
if [ "$want" != "$got" ]; then
	echo "in tools/bootstrap.sh only: $(echo "$want" | grep -vxF "$got" | tr '\n' ' ')" >&2
	echo "in debian/control only: $(echo "$got" | grep -vxF "$want" | tr '\n' ' ')" >&2
	fail "debian/control's Build-Depends differ from tools/bootstrap.sh's build list"
fi
grep -q '^Depends:.*\bfuse3\b' "$root/debian/control" ||
	fail "the colfs package does not depend on fuse3"
echo "ok: $(echo "$got" | wc -l) build dependencies, as tools/bootstrap.sh installs"
echo PASS

#!/bin/sh
# tests/need.sh: what a shell test checks before it runs, sourced (sh or
# bash) first:
#
#	. "$dir/../need.sh"
#
#   fail MSG     "FAIL: MSG" on stderr, exit 1
#   skip MSG     "SKIP: MSG" on stderr, exit 77 (tests/count.py shows the
#                reason of each skip)
#   need_fuse    skip unless /dev/fuse and fusermount3 are there
#   need_numpy   skip unless /usr/bin/python3 imports numpy
#   same_bytes A B MSG
#                fail MSG unless files A and B hold the same bytes (their
#                first differing lines shown on stderr)
#   mounted DIR [TENTHS]
#                wait up to TENTHS tenths of a second (default 50) for
#                a FUSE mount at DIR: status 0 once it is there
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

need_fuse() {
	[ -c /dev/fuse ] || skip "/dev/fuse is not available"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
}

need_numpy() {
	/usr/bin/python3 -c 'import numpy' 2>/dev/null ||
		skip "python3-numpy is not installed"
}

mounted() {
	for _ in $(seq "${2:-50}"); do
		grep -qs " $1 fuse" /proc/self/mounts && return 0
		sleep 0.1
	done
	grep -qs " $1 fuse" /proc/self/mounts
}

same_bytes() {
	cmp -s "$1" "$2" && return 0
	diff "$1" "$2" | head -8 >&2
	fail "$3"
}

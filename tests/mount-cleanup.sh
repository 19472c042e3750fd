#!/bin/bash
# tests/mount-cleanup.sh: sourced by a bash test that holds at most one
# mount at a time at $MNT (empty when none):
#
#	. "$dir/../mount-cleanup.sh" NAME
#
# makes the test's scratch folder $WORK (/tmp/NAME.XXXXXX), with the size
# index's $XDG_CACHE_HOME in it, and sets MNT empty.  On exit (and on
# TERM, INT, HUP) the mount is undone, its daemon waited for and $WORK
# removed.
WORK=$(mktemp -d "/tmp/${1:?usage: . mount-cleanup.sh NAME}.XXXXXX")
export XDG_CACHE_HOME=$WORK/cache
MNT=

# The daemon of $MNT (named on its command line) gone, for up to 10 s:
# after the unmount it still writes the size index under $XDG_CACHE_HOME,
# and rm -rf of $WORK meanwhile failed ("Directory not empty").
daemon_gone() {
	local pid i
	pid=$(pgrep -f -- " $MNT" | head -n1 || true)
	[ -n "$pid" ] || return 0
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
cleanup() {
	if [ -n "$MNT" ] && grep -qs " $MNT fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
	fi
	[ -z "$MNT" ] || daemon_gone || true
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

#!/bin/bash
# tests/mount-cleanup.sh: sourced by a bash test that mounts at $MNT (its
# latest mount, empty when none) and, when it holds several at once, adds
# each to MOUNTS:
#
#	. "$dir/../mount-cleanup.sh" NAME
#
# makes the test's scratch folder $WORK (/tmp/NAME.XXXXXX), with the size
# index's $XDG_CACHE_HOME in it, and sets MNT empty and MOUNTS to none.
# On exit (and on TERM, INT, HUP) every mount is undone, the daemon of
# $MNT waited for, the function CLEANUP_MORE names run if the test sets
# it (to stop a server it started, say), and $WORK removed.
WORK=$(mktemp -d "/tmp/${1:?usage: . mount-cleanup.sh NAME}.XXXXXX")
export XDG_CACHE_HOME=$WORK/cache
MNT=
MOUNTS=()
CLEANUP_MORE=

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
	local m
	for m in ${MNT:+"$MNT"} "${MOUNTS[@]+"${MOUNTS[@]}"}"; do
		if grep -qs " $m fuse" /proc/self/mounts; then
			timeout 10 fusermount3 -u -z "$m" 2>/dev/null || true
		fi
	done
	[ -z "$MNT" ] || daemon_gone || true
	[ -z "$CLEANUP_MORE" ] || "$CLEANUP_MORE" || true
	rm -rf "$WORK" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

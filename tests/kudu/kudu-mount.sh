#!/bin/bash
# tests/kudu: a Kudu log block container through the mount (the colfs
# daemon): opened by its .data and by its .metadata name, each
# blocks/<id>/ equal to a mount of the CFile alone (diff -r; the READMEs'
# first lines name the file), deleted blocks under deleted/ only, the
# values of every block equal to what the writer wrote, `errors` empty,
# each block's xattrs the CFile's own (but its path and its ranges'
# offsets), `getfattr -R` over the mount naming every node.
#
#   kudu-mount.sh KUDU_CONTAINER_WRITER COLFS
#
# Every command runs under `timeout`; a trap always unmounts and kills the
# daemons it started.  Exit 77 (skip) when FUSE is not available.
set -euo pipefail

WRITER=${1:?usage: kudu-mount.sh KUDU_CONTAINER_WRITER COLFS}
COLFS=${2:?}
T=30

[ -c /dev/fuse ] && command -v fusermount3 >/dev/null ||
	{ echo "SKIP: FUSE is not available" >&2; exit 77; }

WORK=$(mktemp -d /tmp/colfs-kudu-mount.XXXXXX)
PIDS=()
MNTS=()

cleanup() {
	for m in "${MNTS[@]}"; do
		if grep -qs " $m fuse" /proc/self/mounts; then
			timeout 10 fusermount3 -u -z "$m" 2>/dev/null || true
		fi
	done
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	rm -rf "$WORK" 2>/dev/null || true
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

mount_it() { # FILE MNT
	mkdir -p "$2"
	MNTS+=("$2")
	"$COLFS" -f "$1" "$2" 2>"$WORK/daemon.err" &
	PIDS+=($!)
	for _ in $(seq 50); do
		grep -qs " $2 fuse" /proc/self/mounts && return 0
		sleep 0.1
	done
	fail "$1: mount did not appear: $(cat "$WORK/daemon.err")"
}

unmount_it() { # MNT
	timeout $T fusermount3 -u "$1" || fail "$1: fusermount3 -u failed"
}

for v in 2 1; do
	stem=$WORK/c$v
	if [ $v = 1 ]; then
		timeout $T "$WRITER" --v1 "$stem" || fail "writer --v1"
	else
		timeout $T "$WRITER" "$stem" || fail "writer"
	fi
	names="data metadata"
	[ $v = 2 ] || names=data
	for name in $names; do
		M=$WORK/m-$v-$name
		mount_it "$stem.$name" "$M"
		[ "$(timeout $T cat "$M/format")" = "kudu container v$v" ] ||
			fail "v$v $name: format: $(cat "$M/format")"
		[ "$(timeout $T ls "$M/blocks")" = "$(printf '%016d\n' 1 2 3)" ] ||
			fail "v$v $name: blocks/: $(ls "$M/blocks")"
		[ "$(timeout $T ls "$M/deleted")" = "$(printf '%016d\n' 4 5)" ] ||
			fail "v$v $name: deleted/: $(ls "$M/deleted")"
		[ -e "$M/deleted/0000000000000005/raw" ] ||
			fail "v$v: deleted block 5 has no raw"
		[ ! -e "$M/deleted/0000000000000004/raw" ] ||
			fail "v$v: punched block 4 has a raw"
		for i in 1 2 3; do
			b=$M/blocks/$(printf '%016d' $i)
			timeout $T cmp "$b/values" "$stem.$i.txt" ||
				fail "v$v $name block $i: values differ"
			# the whole tree once (version 2, the .data mount);
			# test_kudu_container compares every block of both
			# versions and names in-process
			[ $name = data ] && [ $v = 2 ] || continue
			A=$WORK/alone
			mount_it "$stem.$i.cfile" "$A"
			timeout $T diff -r -q -x README -x layout.svg "$b" "$A" ||
				fail "v$v $name block $i: differs from the CFile alone"
			cmp <(tail -n +2 "$b/README") <(tail -n +2 "$A/README") ||
				fail "v$v $name block $i: README differs"
			# layout.svg names the file in lines 3 and 6
			cmp <(sed '3d;6d' "$b/layout.svg") <(sed '3d;6d' "$A/layout.svg") ||
				fail "v$v $name block $i: layout.svg differs"
			# its nodes' xattrs are the CFile's own (docs/tree.md),
			# but for their paths in the mount and their ranges'
			# offsets, which are the container's; blocks/<id>/
			# itself is the container's directory (no format, size)
			xa() { (cd "$1" && timeout $T getfattr -R -d -m - .) |
				awk '/^# file: /{top = $3 == "."}
				!/^user.colfs.(path|offset)=/ &&
				!(top && /^user.colfs.(format|size)=/)'; }
			xa "$b" >"$WORK/xa-b" && xa "$A" >"$WORK/xa-a" ||
				fail "v$v block $i: getfattr -R failed"
			[ "$(grep -c '^user.colfs.kind=' "$WORK/xa-a")" -ge 20 ] ||
				fail "v$v block $i: getfattr -R of the CFile: $(head "$WORK/xa-a")"
			diff "$WORK/xa-b" "$WORK/xa-a" >"$WORK/xattr.diff" ||
				fail "v$v block $i: xattrs differ from the CFile alone: $(head -20 "$WORK/xattr.diff")"
			[ "$(getfattr --only-values -n user.colfs.path "$b/blocks/0")" = \
			  "/blocks/$(printf '%016d' $i)/blocks/0" ] ||
				fail "v$v block $i: path $(getfattr --only-values -n user.colfs.path "$b/blocks/0")"
			unmount_it "$A"
		done
		# getfattr -R over the whole mount completes, every node once
		[ "$(timeout $T getfattr -R -d -m - --absolute-names "$M" | grep -c '^# file: ')" = \
		  "$(find "$M" | wc -l)" ] || fail "v$v $name: getfattr -R did not name every node"
		[ ! -s "$M/errors" ] || fail "v$v $name: errors: $(cat "$M/errors")"
		timeout $T grep -q '^16384 6000 punched_block /deleted/0000000000000004$' "$M/layout" ||
			fail "v$v: layout has no punched block: $(cat "$M/layout")"
		unmount_it "$M"
	done
done
for p in "${PIDS[@]}"; do
	timeout $T tail --pid="$p" -f /dev/null || fail "a daemon did not exit"
done
PIDS=()
echo "kudu-mount: ok"

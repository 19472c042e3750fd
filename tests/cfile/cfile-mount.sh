#!/bin/bash
# tests/cfile: CFiles written by cfile-writer read back through the mount
# (the colfs daemon) and through colfs-tool: `values` (or `deltas`) must
# equal what the writer wrote, byte for byte.
#
#   cfile-mount.sh WRITER COLFS COLFS_TOOL
#
# Every command runs under `timeout`; a trap always unmounts and kills the
# daemons it started.  Exit 77 (skip) when FUSE is not available.
set -euo pipefail

WRITER=${1:?usage: cfile-mount.sh WRITER COLFS COLFS_TOOL}
COLFS=${2:?}
TOOL=${3:?}
T=30
. "$(dirname "$0")/../need.sh"

WORK=$(mktemp -d /tmp/colfs-cfile-mount.XXXXXX)
MNT=$WORK/mnt
PID=

cleanup() {
	if grep -qs " $MNT fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
	fi
	if [ -n "$PID" ]; then
		kill -KILL "$PID" 2>/dev/null || true
	fi
	rm -rf "$WORK" 2>/dev/null || true
}
trap cleanup EXIT

mkdir -p "$MNT"
have_fuse=1
[ -c /dev/fuse ] && command -v fusermount3 >/dev/null || have_fuse=0

n=0
check() { # NAME VIEW WRITER-ARGS...
	local name=$1 view=$2
	shift 2
	local f=$WORK/$name.cfile x=$WORK/$name.txt
	timeout $T "$WRITER" "$@" "$f" "$x" || fail "$name: writer failed"
	timeout $T "$TOOL" cat "$f" "$view" > "$WORK/tool.out" ||
		fail "$name: colfs-tool cat $view failed"
	cmp -s "$WORK/tool.out" "$x" || fail "$name: colfs-tool $view differs"
	n=$((n + 1))
	[ $have_fuse = 1 ] || return 0
	"$COLFS" -f "$f" "$MNT" 2>"$WORK/daemon.err" &
	PID=$!
	mounted "$MNT" ||
		fail "$name: mount did not appear: $(cat "$WORK/daemon.err")"
	timeout $T cat "$MNT/$view" > "$WORK/mount.out" ||
		fail "$name: cat $view through the mount failed"
	cmp -s "$WORK/mount.out" "$x" || fail "$name: mounted $view differs"
	timeout $T cat "$MNT/errors" > "$WORK/errors.out"
	[ ! -s "$WORK/errors.out" ] ||
		fail "$name: errors: $(cat "$WORK/errors.out")"
	timeout 10 fusermount3 -u "$MNT" || fail "$name: unmount failed"
	wait "$PID" || true
	PID=
	! grep -q "Sanitizer\|runtime error" "$WORK/daemon.err" ||
		fail "$name: daemon: $(cat "$WORK/daemon.err")"
}

check int64_bshuf_lz4 values --type INT64 --encoding BIT_SHUFFLE \
	--compression LZ4 --count 100000 --block-rows 4096
check string_dict_nullable values --type STRING --encoding DICT \
	--nullable --count 20000 --block-rows 3000 --distinct 400 --dict-limit 200
check double_plain_zlib values --type DOUBLE --encoding PLAIN \
	--compression ZLIB --count 5000 --block-rows 700
check bool_rle_v1 values --type BOOL --encoding RLE --v1 --compression SNAPPY \
	--count 5000 --block-rows 900
check varchar_prefix_validx values --type VARCHAR --encoding PREFIX \
	--validx --count 3000 --block-rows 200 --index-block-size 64
check int128_array values --type INT128 --encoding PLAIN --array --nullable \
	--count 2000 --block-rows 300
check deltafile deltas --delta --count 3000 --block-rows 250

# A damaged file through the mount: a flipped bit in block 1 makes
# `values` and blocks/1/values fail with EIO, blocks 0 and 2 stay readable,
# `errors` names the block's offset, and the daemon keeps serving.
damaged() {
	local f=$WORK/dmg.cfile x=$WORK/dmg.txt
	timeout $T "$WRITER" --count 300 --block-rows 100 "$f" "$x" ||
		fail "damaged: writer failed"
	# block 1 starts at 16 + 412 (header, block 0 with its CRC)
	printf '\x55' | dd of="$f" bs=1 seek=$((16 + 412 + 20)) conv=notrunc \
		status=none
	"$COLFS" -f "$f" "$MNT" 2>"$WORK/daemon.err" &
	PID=$!
	for _ in $(seq 50); do
		grep -qs " $MNT fuse" /proc/self/mounts && break
		sleep 0.1
	done
	grep -qs " $MNT fuse" /proc/self/mounts || fail "damaged: no mount"
	if timeout $T cat "$MNT/values" > /dev/null 2>&1; then
		fail "damaged: values read without error"
	fi
	if timeout $T cat "$MNT/blocks/1/values" > /dev/null 2>&1; then
		fail "damaged: blocks/1/values read without error"
	fi
	timeout $T cat "$MNT/blocks/0/values" > "$WORK/b0" ||
		fail "damaged: blocks/0/values unreadable"
	head -n 100 "$x" | cmp -s - "$WORK/b0" || fail "damaged: block 0 differs"
	timeout $T cat "$MNT/blocks/2/values" > "$WORK/b2" ||
		fail "damaged: blocks/2/values unreadable"
	tail -n 100 "$x" | cmp -s - "$WORK/b2" || fail "damaged: block 2 differs"
	timeout $T cat "$MNT/errors" | grep -q "offset 428 .*checksum mismatch" ||
		fail "damaged: errors: $(cat "$MNT/errors")"
	kill -0 "$PID" || fail "damaged: the daemon died"
	timeout 10 fusermount3 -u "$MNT" || fail "damaged: unmount failed"
	wait "$PID" || true
	PID=
	! grep -q "Sanitizer\|runtime error" "$WORK/daemon.err" ||
		fail "damaged: daemon: $(cat "$WORK/daemon.err")"
}
[ $have_fuse = 0 ] || damaged

if [ $have_fuse = 0 ]; then
	echo "SKIP: $n files checked through colfs-tool; /dev/fuse or fusermount3 missing, mount not tested" >&2
	exit 77
fi
echo "$n files equal through colfs-tool and the mount"

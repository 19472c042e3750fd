#!/bin/sh
# colfs ORC benchmark (issue 4).  For each input file, through a real
# mount: wall time of `cat mnt/rows.jsonl`, `cat mnt/rows.csv` and of each
# `cat mnt/columns/<field>` (to /dev/null, bytes counted), then the
# daemon's peak memory (VmHWM from /proc/PID/status) after all of them;
# once with the default cache and once with -o cache_size=32M.  Each
# measurement mounts afresh, so every cat starts cold in colfs (the file
# itself stays in the page cache after the first run).
#
# Inputs: the corpus file orc/good/demo-11-zlib.orc (1,920,800 rows) and a
# file written by colfs' own ORC writer (tests/orc/orc_gen.c, uncompressed,
# RLE v1, struct<id:bigint,name:string,score:double,flag:boolean>) of ROWS
# rows (default 10M) in $COLFS_BENCH_DIR.
#
# Usage: tools/bench/bench-orc.sh [ROWS]
# Environment: COLFS_BUILD (build directory, default build), CORPUS
# (default /work/shared/corpus), COLFS_BENCH_DIR (default /tmp/colfs-bench).
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-10000000}
B=${COLFS_BUILD:-build}
CORPUS=${CORPUS:-/work/shared/corpus}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
mkdir -p "$DIR"
GEN="$DIR/orc-gen-$ROWS.orc"
if [ ! -f "$GEN" ]; then
	echo "generating $GEN ($ROWS rows)..." >&2
	"$B"/tests/orc/orc_gen "$GEN.tmp" "$ROWS" 1000000
	mv "$GEN.tmp" "$GEN"
fi
MNT=$(mktemp -d /tmp/colfs-bench-orc.XXXXXX)
PID=
cleanup() {
	if mountpoint -q "$MNT"; then
		fusermount3 -u "$MNT" 2>/dev/null || true
	fi
	if [ -n "$PID" ]; then
		wait "$PID" 2>/dev/null || true
	fi
	rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mount_it() { # FILE OPTS
	if [ -n "$2" ]; then
		"$B"/fs/colfs -f -o "$2" "$1" "$MNT" &
	else
		"$B"/fs/colfs -f "$1" "$MNT" &
	fi
	PID=$!
	i=0
	while ! mountpoint -q "$MNT"; do
		i=$((i + 1))
		[ $i -lt 1000 ] || { echo "mount timed out" >&2; exit 1; }
		kill -0 "$PID" 2>/dev/null || { echo "colfs died" >&2; exit 1; }
		sleep 0.01
	done
}
unmount_it() {
	fusermount3 -u "$MNT"
	wait "$PID" || true
	PID=
}
now() { date +%s.%N; }
# seconds from $1 to $2 (two `now` readings)
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
hwm() { awk '/^VmHWM/ {print $2 " kB"}' /proc/"$PID"/status; }

# one timed cat: prints "path  bytes  seconds"
timed_cat() {
	t0=$(now)
	n=$(cat "$MNT/$1" | wc -c)
	t1=$(now)
	printf '  %-28s %12s bytes %8.2f s\n' "$1" "$n" \
		"$(secs $t0 $t1)"
}

run() { # FILE OPTS
	f=$1
	o=$2
	if [ -n "$o" ]; then
		echo "== $(basename "$f") ($(stat -c %s "$f") bytes) -o $o"
	else
		echo "== $(basename "$f") ($(stat -c %s "$f") bytes) default cache"
	fi
	mount_it "$f" "$o"
	echo "  rows: $(awk '/^rows:/ {print $2}' "$MNT/summary")"
	timed_cat rows.jsonl
	timed_cat rows.csv
	for c in "$MNT"/columns/*; do
		timed_cat "columns/$(basename "$c")"
	done
	echo "  daemon peak memory (VmHWM): $(hwm)"
	unmount_it
}

for f in "$CORPUS/orc/good/demo-11-zlib.orc" "$GEN"; do
	if [ ! -f "$f" ]; then
		echo "skip: $f not found" >&2
		continue
	fi
	run "$f" ""
	run "$f" cache_size=32M
done

#!/bin/sh
# colfs benchmark: text views of known size read with direct I/O (-o
# page_cache=arrays, the default) against through the kernel's page
# cache (-o page_cache=all), on bench.sh's file (run `bench.sh cat ROWS`
# first: it writes the file, and its mount leaves the size index that
# makes every column's size known here).  Each round mounts once per
# setting, alternating, and cats each column twice; a line per cat: the
# wall, cat's CPU (user + system), the daemon's CPU (user + system, from
# /proc/PID/stat) and the load average.  CPU times move less than walls
# on a loaded machine.
# Usage: tools/bench/bench-pagecache.sh [ROWS] [ROUNDS]
# Environment: COLFS_BUILD (default build), COLFS_BENCH_DIR (default
# /tmp/colfs-bench), XDG_CACHE_HOME (where bench.sh's mount left the
# index: the same as for bench.sh).
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-50000000}
ROUNDS=${2:-3}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
B=${COLFS_BUILD:-build}
FILE="$DIR/bench-$ROWS.parquet"
[ -f "$FILE" ] || { echo "no $FILE: run tools/bench/bench.sh cat $ROWS first" >&2; exit 1; }
MNT=$(mktemp -d /tmp/colfs-bench-mnt.XXXXXX)
T=$(mktemp /tmp/colfs-bench-time.XXXXXX)
cleanup() {
	fusermount3 -u "$MNT" 2>/dev/null || true
	rmdir "$MNT" 2>/dev/null || true
	rm -f "$T"
}
trap cleanup EXIT INT TERM
TCK=$(getconf CLK_TCK)
dcpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
i=1
while [ "$i" -le "$ROUNDS" ]; do
	for pc in arrays all; do
		"$B"/fs/colfs -f -o page_cache=$pc "$FILE" "$MNT" &
		PID=$!
		n=0
		while ! mountpoint -q "$MNT"; do
			n=$((n + 1))
			[ $n -lt 500 ] || { echo "mount timed out" >&2; exit 1; }
			sleep 0.01
		done
		for col in seq rnd dbl low md5; do
			for pass in 1 2; do
				c0=$(dcpu $PID)
				/usr/bin/time -f "%e %U %S" -o "$T" cat "$MNT/columns/$col" > /dev/null
				c1=$(dcpu $PID)
				awk -v r="$i" -v pc="$pc" -v col="$col" -v pass="$pass" \
				    -v a="$c0" -v b="$c1" -v t="$TCK" \
				    -v load="$(cut -d' ' -f1 /proc/loadavg)" '{
					printf "round %d page_cache=%s %s cat %d: wall %.2f s, cat CPU %.2f s, daemon CPU %.2f s (load %s)\n",
					       r, pc, col, pass, $1, $2 + $3, (b - a) / t, load }' "$T"
			done
		done
		fusermount3 -u "$MNT"
		wait $PID || true
	done
	i=$((i + 1))
done

#!/bin/sh
# colfs benchmarks.  Generates a large Parquet file with DuckDB (50M rows:
# sequential bigint, random bigint, double, low-cardinality string, md5
# string; snappy; 1M-row groups) once into $COLFS_BENCH_DIR, then measures
#   mount: time to mount and list the root, and how many bytes the daemon
#          read doing so (from /proc/PID/io), against the file size;
#   cat:   for each column, `cat mnt/columns/X > /dev/null` (wall time, and
#          the daemon's peak RSS) against DuckDB's
#          COPY (SELECT X FROM file) TO ... (FORMAT csv) with threads=1.
# Usage: tools/bench/bench.sh [mount|cat|all] [ROWS]
# Environment: COLFS_BUILD (build directory, default build), COLFS_OPTS
# (daemon -o options, e.g. cache_size=64M), COLFS_BENCH_DIR.
set -eu
cd "$(dirname "$0")/../.."
WHAT=${1:-all}
ROWS=${2:-50000000}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
SQL="node tools/bench/duckdb-sql.cjs"
B=${COLFS_BUILD:-build}
mkdir -p "$DIR"
FILE="$DIR/bench-$ROWS.parquet"
if [ ! -f "$FILE" ]; then
	echo "generating $FILE ($ROWS rows)..." >&2
	$SQL "COPY (SELECT range AS seq, hash(range) % 1000000007 AS rnd,
	        (range * 0.37)::DOUBLE AS dbl,
	        ['red','green','blue','cyan','magenta'][range % 5 + 1] AS low,
	        md5(range::VARCHAR) AS md5
	      FROM range($ROWS))
	      TO '$FILE.tmp' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1000000)"
	mv "$FILE.tmp" "$FILE"
fi
SIZE=$(stat -c %s "$FILE")
MNT=$(mktemp -d /tmp/colfs-bench-mnt.XXXXXX)
PID=
cleanup() {
	fusermount3 -u "$MNT" 2>/dev/null || true
	rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

mount_it() {
	"$B"/fs/colfs -f ${COLFS_OPTS:+-o "$COLFS_OPTS"} "$FILE" "$MNT" &
	PID=$!
	i=0
	while ! mountpoint -q "$MNT"; do
		i=$((i + 1))
		[ $i -lt 500 ] || { echo "mount timed out" >&2; exit 1; }
		sleep 0.01
	done
}
now() { date +%s.%N; }
# seconds from $1 to $2 (two `now` readings)
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

if [ "$WHAT" = mount ] || [ "$WHAT" = all ]; then
	t0=$(now)
	mount_it
	ls "$MNT" >/dev/null
	cat "$MNT/summary" >/dev/null
	t1=$(now)
	ls -R "$MNT/row_groups" >/dev/null
	t2=$(now)
	rchar=$(awk '/^rchar/ {print $2}' /proc/$PID/io)
	echo "mount: file $SIZE bytes; mount + ls + cat summary $(secs $t0 $t1) s;" \
	     "ls -R row_groups $(secs $t1 $t2) s; daemon read() returned $rchar bytes in all, FUSE requests included; see docs/performance.md for the file bytes alone" \
	     "($(awk -v a="$rchar" -v b="$SIZE" 'BEGIN { printf "%.4f", 100 * a / b }')% of the file)"
	fusermount3 -u "$MNT"
	wait $PID || true
fi

if [ "$WHAT" = cat ] || [ "$WHAT" = all ]; then
	mount_it
	for col in seq rnd dbl low md5; do
		[ -e "$MNT/columns/$col" ] || { echo "cat: no columns/$col (values not wired yet)"; continue; }
		t0=$(now)
		cat "$MNT/columns/$col" >/dev/null
		t1=$(now)
		rss=$(awk '/^VmHWM/ {print $2}' /proc/$PID/status)
		t2=$(now)
		$SQL "SET threads=1" "COPY (SELECT $col FROM '$FILE') TO '/dev/null' (FORMAT csv, HEADER false)"
		t3=$(now)
		echo "cat columns/$col: colfs $(secs $t0 $t1) s (daemon peak RSS ${rss} kB);" \
		     "duckdb COPY csv threads=1 $(secs $t2 $t3) s"
	done
	fusermount3 -u "$MNT"
	wait $PID || true
fi

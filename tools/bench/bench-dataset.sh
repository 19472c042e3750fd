#!/bin/sh
# The dataset benchmark (docs/performance.md, "Datasets"): DuckDB
# writes FILES small Parquet files (default 10,000: one per Hive
# partition p=0..FILES-1, 100 rows each: id BIGINT, x DOUBLE, s VARCHAR)
# once into $COLFS_BENCH_DIR, then one run measures, on a fresh mount of
# the directory:
#   mount          colfs started to the mount point answering
#   ls files       `ls files` (the magic bytes of every file read)
#   cat summary    every footer read (the pool of threads)
#   columns/x      `cat columns/x` across all files, against DuckDB's
#                  COPY (SELECT x FROM read_parquet('DIR/**/*.parquet'))
#                  TO '/dev/null' (FORMAT csv) with one thread per core
#                  (the statement's own time), as a ratio
#   peak RSS       the daemon's VmHWM at the end
# Each step also gives the daemon's CPU time (user + system, from
# /proc/PID/stat): on a loaded machine the wall times are noisy, the CPU
# times much less so; the load average is printed with them.
# Usage: tools/bench/bench-dataset.sh [FILES]
# Environment: COLFS_BUILD (default build), COLFS_OPTS (daemon -o options),
# COLFS_BENCH_DIR (default /tmp/colfs-bench).
set -eu
cd "$(dirname "$0")/../.."
FILES=${1:-10000}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}/dataset-$FILES
SQL="node tools/bench/duckdb-sql.cjs"
B=${COLFS_BUILD:-build}
sh tests/values/duckdb-setup.sh || { echo "bench-dataset: DuckDB is needed" >&2; exit 1; }
if [ ! -d "$DIR" ]; then
	echo "generating $DIR ($FILES files)..." >&2
	$SQL "SET threads=$(nproc)" \
	     "COPY (SELECT range AS id, range * 0.5 AS x, 's' || (range % 97) AS s,
	            range % $FILES AS p FROM range($FILES * 100))
	      TO '$DIR.tmp' (FORMAT parquet, PARTITION_BY (p))"
	mv "$DIR.tmp" "$DIR"
fi
MNT=$(mktemp -d /tmp/colfs-bench-mnt.XXXXXX)
cleanup() {
	fusermount3 -u "$MNT" 2>/dev/null || true
	rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT INT TERM
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
HZ=$(getconf CLK_TCK)
# the daemon's CPU seconds so far (utime + stime: fields 14 and 15, after
# the parenthesized command name)
cpu() { sed 's/.*) //' "/proc/$PID/stat" | awk -v hz="$HZ" '{ printf "%.2f", ($12 + $13) / hz }'; }

t0=$(now)
"$B"/fs/colfs -f ${COLFS_OPTS:+-o "$COLFS_OPTS"} "$DIR" "$MNT" &
PID=$!
i=0
while ! mountpoint -q "$MNT"; do
	i=$((i + 1))
	[ $i -lt 3000 ] || { echo "mount timed out" >&2; exit 1; }
	sleep 0.005
done
t1=$(now)
c1=$(cpu)
n=$(ls "$MNT/files" | wc -l)
t2=$(now)
c2=$(cpu)
cat "$MNT/summary" > /dev/null
t3=$(now)
c3=$(cpu)
bytes=$(cat "$MNT/columns/x" | wc -c)
t4=$(now)
c4=$(cpu)
rss=$(awk '/^VmHWM/ {print $2}' /proc/$PID/status)
d=$(DUCKDB_SQL_TIME=1 $SQL "SET threads=$(nproc)" "COPY (SELECT x FROM read_parquet('$DIR/**/*.parquet')) TO '/dev/null' (FORMAT csv, HEADER false)" 2>&1 >/dev/null | awk '/^time / {print $2}')
echo "dataset: $FILES files ($n entries in files/), $(du -sb "$DIR" | cut -f1) bytes"
echo "mount $(secs $t0 $t1) s; ls files $(secs $t1 $t2) s; cat summary $(secs $t2 $t3) s"
echo "cat columns/x: $bytes bytes in $(secs $t3 $t4) s; DuckDB $d s; ratio $(awk -v a="$t3" -v b="$t4" -v d="$d" 'BEGIN { printf "%.2f", (b - a) / d }')"
echo "daemon peak RSS: $((rss / 1024)) MiB"
echo "daemon CPU: mount $c1 s; ls files $(secs $c1 $c2) s; cat summary $(secs $c2 $c3) s; cat columns/x $(secs $c3 $c4) s"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
fusermount3 -u "$MNT"
wait $PID || true

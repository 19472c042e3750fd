#!/bin/sh
# colfs benchmarks.  Generates a large Parquet file with DuckDB (50M rows:
# sequential bigint, random bigint, double, low-cardinality string, md5
# string; snappy; 1M-row groups) once into $COLFS_BENCH_DIR, then measures
#   mount: time to mount and list the root, and how many bytes the daemon
#          read doing so (from /proc/PID/io), against the file size;
#   cat:   for each column, `cat mnt/columns/X > /dev/null` (wall time, and
#          the daemon's peak RSS) against DuckDB's
#          COPY (SELECT X FROM file) TO ... (FORMAT csv) with threads=1
#          and with one thread per core, as ratios (DuckDB's time is the
#          statement's own, node's start excluded); and the daemon's CPU
#          time for that cat (user + system, from /proc/PID/stat), which
#          a loaded machine changes less than the wall time.
#          COLFS_OPTS=page_cache=all measures text views read through
#          the page cache instead of with direct I/O (once their sizes
#          are known: from the size index a first run leaves).
#   sizes: `ls -l columns/` on a fresh mount (sizes=auto, no index), with
#          -o sizes=exact, `colfs-tool index FILE`, and `ls -l columns/` on
#          a mount that reads that index (docs/tree.md, "Sizes").
# Usage: tools/bench/bench.sh [mount|cat|sizes|all] [ROWS]
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

mount_it() { # [extra -o options]
	"$B"/fs/colfs -f ${COLFS_OPTS:+-o "$COLFS_OPTS"} ${1:+-o "$1"} "$FILE" "$MNT" &
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
	CPUS=$(nproc)
	echo "cat: ratio = colfs time / DuckDB time (below 1: colfs is faster); DuckDB with threads=1 and threads=$CPUS"
	for col in seq rnd dbl low md5; do
		[ -e "$MNT/columns/$col" ] || { echo "cat: no columns/$col (values not wired yet)"; continue; }
		c0=$(awk '{print $14 + $15}' /proc/$PID/stat)
		t0=$(now)
		bytes=$(cat "$MNT/columns/$col" | wc -c)
		t1=$(now)
		c1=$(awk '{print $14 + $15}' /proc/$PID/stat)
		cpu=$(awk -v a="$c0" -v b="$c1" -v t="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / t }')
		rss=$(awk '/^VmHWM/ {print $2}' /proc/$PID/status)
		# DuckDB's own time for the statement (node's start excluded)
		d1=$(DUCKDB_SQL_TIME=1 $SQL "SET threads=1" "COPY (SELECT $col FROM '$FILE') TO '/dev/null' (FORMAT csv, HEADER false)" 2>&1 >/dev/null | awk '/^time / {print $2}')
		dn=$(DUCKDB_SQL_TIME=1 $SQL "SET threads=$CPUS" "COPY (SELECT $col FROM '$FILE') TO '/dev/null' (FORMAT csv, HEADER false)" 2>&1 >/dev/null | awk '/^time / {print $2}')
		awk -v col="$col" -v a="$t0" -v b="$t1" -v d1="$d1" -v dn="$dn" \
		    -v bytes="$bytes" -v rss="$rss" -v cpus="$CPUS" -v cpu="$cpu" 'BEGIN {
			colfs = b - a
			printf "cat columns/%s: colfs %.3f s (%.2f GB/s, daemon CPU %s s, daemon peak RSS %d kB); duckdb threads=1 %.3f s, ratio %.2f; duckdb threads=%d %.3f s, ratio %.2f\n",
			       col, colfs, bytes / colfs / 1e9, cpu, rss, d1, colfs / d1, cpus, dn, colfs / dn }'
	done
	fusermount3 -u "$MNT"
	wait $PID || true
fi

if [ "$WHAT" = sizes ] || [ "$WHAT" = all ]; then
	IDX=$(mktemp -d /tmp/colfs-bench-index.XXXXXX)
	# ls_columns LABEL: time `ls -l columns/`, and how many sizes are known.
	ls_columns() {
		t0=$(now)
		ls -l "$MNT/columns/" > "$IDX/ls"
		t1=$(now)
		known=$(awk 'NR > 1 && $5 > 0' "$IDX/ls" | wc -l)
		total=$(awk 'NR > 1' "$IDX/ls" | wc -l)
		echo "sizes: $1: ls -l columns/ $(secs $t0 $t1) s, $known of $total sizes known"
		fusermount3 -u "$MNT"
		wait $PID || true
	}
	mount_it size_index=off
	ls_columns "fresh mount (sizes=auto)"
	mount_it size_index=off,sizes=exact
	ls_columns "fresh mount, -o sizes=exact"
	t0=$(now)
	XDG_CACHE_HOME=$IDX "$B"/tools/colfs-tool index "$FILE"
	t1=$(now)
	echo "sizes: colfs-tool index $(secs $t0 $t1) s ($(wc -c < "$IDX"/colfs/*.sizes) bytes of index)"
	export XDG_CACHE_HOME="$IDX"
	mount_it
	ls_columns "second mount, reading the index"
	rm -rf "$IDX"
fi

#!/bin/sh
# colfs benchmark of wide footers.  Generates two DuckDB files
# of 1000 INT columns into $COLFS_BENCH_DIR once: 200 row groups of 2048
# rows (200,000 chunks, a 15 MB footer) and 49 row groups (49,000 chunks,
# a 3.2 MB footer).  For each, through a real mount with the default
# options and no size index (size_index=off):
#   mount + first `ls` of the root + `cat summary` (wall time, and each of
#   the three on its own: the daemon parses the footer before it mounts),
#   the daemon's CPU time and peak RSS (VmHWM);
#   `cat metadata.json` (bytes, wall time);
#   `ls -R` of the whole tree (wall time, then the daemon's peak RSS);
#   `colfs-tool check FILE` (wall time and peak RSS from /usr/bin/time);
# side by side with DuckDB's parquet_metadata(FILE) and parquet_schema(FILE)
# (the query's own time inside node, node's start excluded; the process's
# peak RSS, node included).
# Usage: tools/bench/bench-wide.sh [200|49|all] [--no-check] [--no-lsr]
# Environment: COLFS_BUILD (build directory, default build), COLFS_OPTS
# (daemon -o options), COLFS_BENCH_DIR (default /tmp/colfs-bench),
# WIDE_TIMEOUT (seconds allowed to each colfs step, default 300).
set -eu
cd "$(dirname "$0")/../.."
WHICH=${1:-all}
[ $# -gt 0 ] && shift
CHECK=1 LSR=1
for a in "$@"; do
	case $a in
	--no-check) CHECK=0 ;;
	--no-lsr) LSR=0 ;;
	*) echo "usage: $0 [200|49|all] [--no-check] [--no-lsr]" >&2; exit 2 ;;
	esac
done
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
SQL="node tools/bench/duckdb-sql.cjs"
B=${COLFS_BUILD:-build}
TMO=${WIDE_TIMEOUT:-300}
mkdir -p "$DIR"
MNT=$(mktemp -d /tmp/colfs-bench-wide.XXXXXX)
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

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
hwm() { awk '/^VmHWM/ {printf "%d MiB", $2 / 1024}' /proc/$PID/status; }
# the daemon's CPU time so far (user + system), in seconds
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' /proc/$PID/stat; }

# make ROWGROUPS: the file of 1000 INT columns and ROWGROUPS x 2048 rows
make_file() {
	f="$DIR/wide-1000x$1.parquet"
	if [ ! -f "$f" ]; then
		echo "generating $f..." >&2
		cols=$(awk 'BEGIN { for (k = 0; k < 1000; k++)
			printf "%s(i//2048)::INT c%d", k ? ", " : "", k }')
		$SQL "COPY (SELECT $cols FROM range($(($1 * 2048))) t(i))
		      TO '$f.tmp' (FORMAT parquet, ROW_GROUP_SIZE 2048)" >/dev/null
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

mount_it() { # FILE
	"$B"/fs/colfs -f -o size_index=off${COLFS_OPTS:+,$COLFS_OPTS} "$1" "$MNT" &
	PID=$!
	i=0
	while ! mountpoint -q "$MNT"; do
		i=$((i + 1))
		[ $i -lt 1000 ] || { echo "mount timed out" >&2; exit 1; }
		sleep 0.005
	done
}
unmount_it() {
	fusermount3 -u "$MNT"
	wait $PID || true
	PID=
}

bench_one() { # ROWGROUPS
	f=$(make_file "$1")
	echo "== $f ($(stat -c %s "$f") bytes)"
	t0=$(now)
	mount_it "$f"
	tm=$(now)
	timeout "$TMO" ls "$MNT" >/dev/null
	tl=$(now)
	timeout "$TMO" cat "$MNT/summary" >/dev/null
	t1=$(now)
	# the daemon opens the file (parses the footer) before it mounts:
	# the first ls of the root is measured on its own
	echo "colfs: mount + ls + cat summary $(secs $t0 $t1) s (mount $(secs $t0 $tm) s," \
	     "first ls of the root $(secs $tm $tl) s, cat summary $(secs $tl $t1) s);" \
	     "daemon CPU $(cpu) s; daemon peak RSS $(hwm)"
	t0=$(now)
	n=$(timeout "$TMO" cat "$MNT/metadata.json" | wc -c)
	t1=$(now)
	echo "colfs: cat metadata.json ($n bytes) $(secs $t0 $t1) s; daemon peak RSS $(hwm)"
	if [ $LSR = 1 ]; then
		t0=$(now)
		n=$(timeout "$TMO" ls -R "$MNT" | wc -l || true)
		t1=$(now)
		echo "colfs: ls -R ($n lines) $(secs $t0 $t1) s; daemon CPU $(cpu) s (all so far); daemon peak RSS $(hwm)"
	fi
	unmount_it
	if [ $CHECK = 1 ]; then
		t0=$(now)
		/usr/bin/time -f '%M' -o "$MNT.time" timeout "$TMO" \
			"$B"/tools/colfs-tool check "$f" >/dev/null || true
		t1=$(now)
		echo "colfs-tool check $(secs $t0 $t1) s; peak RSS $(($(tail -1 "$MNT.time") / 1024)) MiB"
		rm -f "$MNT.time"
	fi
	for q in parquet_metadata parquet_schema; do
		out=$(DUCKDB_SQL_TIME=1 /usr/bin/time -f 'rss %M' \
			$SQL "SELECT count(*) FROM $q('$f')" 2>&1 >/dev/null)
		echo "duckdb: SELECT count(*) FROM $q(FILE)" \
		     "$(echo "$out" | awk '/^time/ {print $2}') s;" \
		     "peak RSS $(($(echo "$out" | awk '/^rss/ {print $2}') / 1024)) MiB (node included)"
	done
}

case $WHICH in
200 | 49) bench_one "$WHICH" ;;
all) bench_one 49; bench_one 200 ;;
*) echo "usage: $0 [200|49|all] [--no-check] [--no-lsr]" >&2; exit 2 ;;
esac

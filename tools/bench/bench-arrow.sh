#!/bin/sh
# colfs Arrow IPC benchmark: `cat mnt/columns/X > /dev/null` of a 50M-row
# Arrow IPC file (uncompressed, int64 `seq`, double `dbl`, utf8 `str`,
# batches of 1M rows; written once by tools/bench/arrow-bench.cjs into
# $COLFS_BENCH_DIR) through a real mount, against the apache-arrow
# JavaScript reader writing the same column's values as text
# (arrow-bench.cjs cat); one run each, the wall times, their ratio (colfs
# / apache-arrow, lower is better) and the colfs daemon's peak RSS.
# apache-arrow comes from tests/arrow/node_modules (run
# `npm ci` in tests/arrow first).
# Usage: tools/bench/bench-arrow.sh [ROWS]
# Environment: COLFS_BUILD (default build), COLFS_BENCH_DIR.
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-50000000}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
B=${COLFS_BUILD:-build}
mkdir -p "$DIR"
FILE="$DIR/bench-$ROWS.arrow"
if [ ! -f "$FILE" ]; then
	echo "generating $FILE ($ROWS rows)..." >&2
	node tools/bench/arrow-bench.cjs gen "$FILE.tmp" "$ROWS"
	mv "$FILE.tmp" "$FILE"
fi
MNT=$(mktemp -d /tmp/colfs-bench-arrow.XXXXXX)
PID=
cleanup() {
	if mountpoint -q "$MNT"; then
		fusermount3 -u "$MNT" 2>/dev/null || true
	fi
	[ -z "$PID" ] || wait "$PID" 2>/dev/null || true
	rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

secs() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }
printf '%-6s %10s %10s %8s %9s %14s\n' column colfs_s arrow_s ratio peak_MiB bytes
for col in seq dbl str; do
	"$B"/fs/colfs -f "$FILE" "$MNT" &
	PID=$!
	i=0
	while ! mountpoint -q "$MNT"; do
		i=$((i + 1))
		[ $i -lt 1000 ] || { echo "mount timed out" >&2; exit 1; }
		sleep 0.01
	done
	t0=$(secs)
	n=$(cat "$MNT/columns/$col" | wc -c)
	t1=$(secs)
	peak=$(awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' /proc/"$PID"/status)
	fusermount3 -u "$MNT"
	wait "$PID" || true
	PID=
	a0=$(secs)
	m=$(node tools/bench/arrow-bench.cjs cat "$FILE" "$col" 2>/dev/null | wc -c)
	a1=$(secs)
	[ "$n" = "$m" ] || echo "note: $col: colfs wrote $n bytes, apache-arrow $m" >&2
	python3 -c "import sys; c=$t1-$t0; a=$a1-$a0; print('%-6s %10.2f %10.2f %8.2f %9s %14s' % ('$col', c, a, c / a, '$peak', '$n'))"
done

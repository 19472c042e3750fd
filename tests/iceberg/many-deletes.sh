#!/bin/bash
# tests/iceberg/many-deletes.sh: a table of one data file and 200
# position delete files (make_table.py --many-deletes: half Parquet, half
# Avro), through a real mount: columns/id holds exactly the ids the
# deletes leave (expected.json), and the daemon's open descriptors
# (/proc/PID/fd) after reading it are as many as before, give or take
# two: each delete file is closed once its deletes are read and kept,
# never held for the mount's life.  A second read gives the same bytes
# (the deletes from the cache).
#   many-deletes.sh   (COLFS in the environment)
# Exit 77 when DuckDB or FUSE cannot be had.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../need.sh"
: "${COLFS:?COLFS is not set}"
need_fuse
sh "$here/../values/duckdb-setup.sh" || exit 77
N=200
T=60
WORK=$(mktemp -d "${TMPDIR:-/tmp}/colfs-iceberg-many.XXXXXX")
MNT=$WORK/mnt
PID=
mkdir -p "$MNT"
cleanup() {
	if grep -qs " $MNT fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u "$MNT" 2>/dev/null ||
			timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
	fi
	[ -n "$PID" ] && wait "$PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
timeout 120 /usr/bin/python3 "$here/make_table.py" "$WORK/t" --many-deletes $N ||
	fail "make_table.py --many-deletes"
python3 -c 'import json,sys; print("\n".join(map(str, json.load(open(sys.argv[1]))["ids"])))' \
	"$WORK/t/expected.json" > "$WORK/want"
"$COLFS" -f "$WORK/t" "$MNT" 2> "$WORK/daemon.err" &
PID=$!
mounted "$MNT" 100 ||
	fail "mount did not appear: $(cat "$WORK/daemon.err")"
# the manifests read first (listing files/), so that "before" counts
# what the mount holds once it knows its files
timeout $T ls "$MNT/files/data" > /dev/null || fail "ls files/data"
before=$(ls /proc/$PID/fd | wc -l)
timeout $T cat "$MNT/columns/id" > "$WORK/got" || fail "cat columns/id"
after=$(ls /proc/$PID/fd | wc -l)
cmp -s "$WORK/got" "$WORK/want" ||
	fail "columns/id: $(wc -l < "$WORK/got") ids, want $(wc -l < "$WORK/want"): $(diff "$WORK/got" "$WORK/want" | head -5)"
echo "ok columns/id holds the $(wc -l < "$WORK/want") ids $N delete files leave"
[ "$after" -le $((before + 2)) ] ||
	fail "descriptors: $before before reading, $after after ($N delete files)"
echo "ok descriptors: $before before reading, $after after ($N delete files read)"
timeout $T cat "$MNT/rows.jsonl" | wc -l > "$WORK/n"
[ "$(cat "$WORK/n")" = "$(wc -l < "$WORK/want")" ] ||
	fail "rows.jsonl: $(cat "$WORK/n") rows"
again=$(ls /proc/$PID/fd | wc -l)
[ "$again" -le $((before + 2)) ] || fail "descriptors after rows.jsonl: $again"
echo "ok rows.jsonl: the same rows, $again descriptors"
! grep -q "Sanitizer\|runtime error" "$WORK/daemon.err" ||
	fail "daemon: $(cat "$WORK/daemon.err")"
echo "3 passed, 0 failed"

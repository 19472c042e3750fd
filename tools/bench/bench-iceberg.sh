#!/bin/sh
# The Iceberg benchmark (docs/performance.md, "Iceberg tables"):
# tests/iceberg/make_table.py --scale writes a table of FILES small data
# files (default 10,000, two rows each, identity partition on `part`) in
# MANIFESTS manifests (default 20) of one snapshot, once, into
# $COLFS_BENCH_DIR; then one run measures, each step on a fresh mount:
#   mount                 colfs started to the mount point answering
#                         (the metadata JSON only)
#   snapshots/<id>/       `ls iceberg/snapshots/ID/` then
#                         `ls .../manifests/` (the manifest list read)
#   manifests             ice-dump: the 20 manifests read on the pool,
#                         every entry decoded (no mount: the reader alone)
#   peer                  the same manifests read by Apache Avro's Python
#                         reader (Debian's python3-avro, the reader of
#                         Python Iceberg tools before pyiceberg's own):
#                         tests/iceberg/table_files.py, which lists the
#                         snapshot's live files; the ratio is colfs's
#                         time over the peer's
#   summary               `cat summary` on a fresh mount: the manifests,
#                         then every data file's footer
#   peak RSS              the daemon's VmHWM after summary
# Usage: tools/bench/bench-iceberg.sh [FILES [MANIFESTS]]
# Environment: COLFS_BUILD (default build), COLFS_BENCH_DIR (default
# /tmp/colfs-bench).
set -eu
cd "$(dirname "$0")/../.."
FILES=${1:-10000}
MANIFESTS=${2:-20}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}/iceberg-$FILES-$MANIFESTS
B=${COLFS_BUILD:-build}
if [ ! -d "$DIR" ]; then
	echo "generating $DIR ($FILES files in $MANIFESTS manifests)..." >&2
	/usr/bin/python3 tests/iceberg/make_table.py "$DIR.tmp" --scale \
		--files "$FILES" --manifests "$MANIFESTS" > /dev/null
	mv "$DIR.tmp" "$DIR"
fi
MNT=$(mktemp -d /tmp/colfs-bench-mnt.XXXXXX)
cleanup() {
	fusermount3 -u "$MNT" 2>/dev/null || true
	rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.3f", $2 - $1}'; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(now); "$B/fs/colfs" "$DIR" "$MNT"; t1=$(now)
echo "mount: $(secs "$t0" "$t1") s"
sid=$(ls "$MNT/iceberg/snapshots" | head -n1)
t0=$(now); ls "$MNT/iceberg/snapshots/$sid/" > /dev/null
ls "$MNT/iceberg/snapshots/$sid/manifests/" > /dev/null; t1=$(now)
echo "ls iceberg/snapshots/$sid/ and manifests/: $(secs "$t0" "$t1") s"
fusermount3 -u "$MNT"
t0=$(now); "$B/tests/iceberg/ice-dump" "$DIR" > /dev/null; t1=$(now)
echo "manifests read (ice-dump): $(secs "$t0" "$t1") s"
ours=$(secs "$t0" "$t1")
snap=$(/usr/bin/python3 -c 'import json, sys
d = sys.argv[1] + "/metadata/"
v = open(d + "version-hint.text").read().strip()
print(json.load(open(d + "v" + v + ".metadata.json"))["current-snapshot-id"])' "$DIR")
t0=$(now); /usr/bin/python3 tests/iceberg/table_files.py "$DIR" "$snap" "$MNT.peer.json"; t1=$(now)
rm -f "$MNT.peer.json"
peer=$(secs "$t0" "$t1")
echo "manifests read (peer, python3-avro): $peer s; ratio colfs/peer: $(echo "$ours $peer" | awk '{printf "%.3f", $1 / $2}')"
"$B/fs/colfs" "$DIR" "$MNT"
pid=$(pgrep -f -- " $MNT" | head -n1)
t0=$(now); cat "$MNT/summary" > /dev/null; t1=$(now)
echo "cat summary (fresh mount): $(secs "$t0" "$t1") s"
echo "daemon peak RSS: $(awk '/VmHWM/ {printf "%.1f MiB", $2 / 1024}' /proc/$pid/status)"

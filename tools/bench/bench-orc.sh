#!/bin/sh
# colfs ORC benchmark: colfs through a real mount side by side
# with ORC's own C++ reader, orc-contents.  For each input file, each of
#   rows.jsonl   against  orc-contents FILE
#   rows.csv     against  orc-contents FILE (the same rows, other text)
#   columns/X    against  orc-contents --columns=N FILE (X the N-th field)
# the wall time of both sides, their ratio (colfs / orc-contents, lower is
# better) and the peak memory of each: the colfs daemon's VmHWM (a fresh
# mount for every file read, so each peak is that read's alone) and
# orc-contents' maximum resident set.  Both write to a pipe whose bytes
# are counted.  The source file is in the page cache after the first run.
#
# Inputs: the corpus file orc/good/demo-11-zlib.orc (1,920,800 rows) and a
# generated file of ROWS rows (default 10M) in $COLFS_BENCH_DIR:
# struct<id:bigint,name:string,score:double,ts:timestamp,qty:int>, zlib,
# row index, written by ORC's own csv-import from generated CSV when it
# is found next to orc-contents; else by colfs' own small writer
# (tests/orc/orc_gen.c: uncompressed, RLE v1, no timestamp).
#
# orc-contents is looked for in $ORC_CONTENTS, then on PATH, then in
# $HOME/.cache/orc-tools/bin (where ../shared/tools/orc-oracle-setup.sh
# builds it); without it the colfs side runs alone, with a message.
#
# Usage: tools/bench/bench-orc.sh [ROWS]
# Environment: COLFS_BUILD (build directory, default build), CORPUS
# (default /work/shared/corpus), COLFS_BENCH_DIR (default /tmp/colfs-bench),
# ORC_CONTENTS, COLFS_BENCH_OPTS (extra -o options for the mount).
set -eu
cd "$(dirname "$0")/../.."
ROWS=${1:-10000000}
B=${COLFS_BUILD:-build}
CORPUS=${CORPUS:-/work/shared/corpus}
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
OPTS=${COLFS_BENCH_OPTS:-}
mkdir -p "$DIR"

OC=${ORC_CONTENTS:-}
if [ -z "$OC" ]; then
	OC=$(command -v orc-contents 2>/dev/null || true)
fi
if [ -z "$OC" ] && [ -x "$HOME/.cache/orc-tools/bin/orc-contents" ]; then
	OC=$HOME/.cache/orc-tools/bin/orc-contents
fi
if [ -z "$OC" ]; then
	echo "skip orc-contents: not found (ORC_CONTENTS, PATH," \
		"~/.cache/orc-tools/bin; ../shared/tools/orc-oracle-setup.sh" \
		"builds it): colfs side only" >&2
fi
IMPORT=
if [ -n "$OC" ] && [ -x "$(dirname "$OC")/csv-import" ]; then
	IMPORT=$(dirname "$OC")/csv-import
fi

# The generated file: ORC's writer when it is there, else ours.
if [ -n "$IMPORT" ]; then
	GEN="$DIR/orc-import-$ROWS.orc"
	if [ ! -f "$GEN" ]; then
		echo "generating $GEN ($ROWS rows, csv-import)..." >&2
		awk -v n="$ROWS" 'BEGIN {
			for (i = 0; i < n; i++) {
				s = 1577836800 + i * 37
				printf "%d,name-%d,%.3f,%s.%03d,%d\n", i, i % 1000,
					i * 0.25, strftime("%Y-%m-%d %H:%M:%S", s, 1),
					i % 1000, (i * 7) % 100000
			}
		}' >"$GEN.csv"
		"$IMPORT" "struct<id:bigint,name:string,score:double,ts:timestamp,qty:int>" \
			"$GEN.csv" "$GEN.tmp" >/dev/null
		rm -f "$GEN.csv"
		mv "$GEN.tmp" "$GEN"
	fi
else
	GEN="$DIR/orc-gen-$ROWS.orc"
	if [ ! -f "$GEN" ]; then
		echo "generating $GEN ($ROWS rows, orc_gen)..." >&2
		"$B"/tests/orc/orc_gen "$GEN.tmp" "$ROWS" 1000000
		mv "$GEN.tmp" "$GEN"
	fi
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

mount_it() { # FILE
	if [ -n "$OPTS" ]; then
		"$B"/fs/colfs -f -o "$OPTS" "$1" "$MNT" &
	else
		"$B"/fs/colfs -f "$1" "$MNT" &
	fi
	PID=$!
	i=0
	while ! mountpoint -q "$MNT"; do
		i=$((i + 1))
		[ $i -lt 1000 ] || {
			echo "mount timed out" >&2
			exit 1
		}
		kill -0 "$PID" 2>/dev/null || {
			echo "colfs died" >&2
			exit 1
		}
		sleep 0.01
	done
}
unmount_it() {
	fusermount3 -u "$MNT"
	wait "$PID" || true
	PID=
}
hwm() { awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' /proc/"$PID"/status; }

# run COMMAND...: prints "SECONDS BYTES PEAK_MIB" (the command's output
# counted through a pipe; the peak is its largest resident set)
run() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
n = 0
while True:
    b = p.stdout.read(1 << 20)
    if not b:
        break
    n += len(b)
p.wait()
dt = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%.3f %d %.0f" % (dt, n, rss))
EOF
}

# one line: colfs view against orc-contents ARGS
compare() { # FILE VIEW [ORC-CONTENTS ARGS...]
	f=$1
	view=$2
	shift 2
	mount_it "$f"
	c=$(run cat "$MNT/$view")
	peak=$(hwm)
	unmount_it
	cs=${c%% *}
	cb=$(echo "$c" | awk '{print $2}')
	if [ -n "$OC" ]; then
		o=$(run "$OC" "$@" "$f")
		os=${o%% *}
		ob=$(echo "$o" | awk '{print $2}')
		op=$(echo "$o" | awk '{print $3}')
		printf '  %-16s %11s B %7.2f s %5s MiB | orc-contents %11s B %7.2f s %5s MiB | ratio %5.2f\n' \
			"$view" "$cb" "$cs" "$peak" "$ob" "$os" "$op" \
			"$(awk -v a="$cs" -v b="$os" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')"
	else
		printf '  %-16s %11s B %7.2f s %5s MiB\n' "$view" "$cb" "$cs" \
			"$peak"
	fi
}

bench_file() { # FILE
	f=$1
	echo "== $(basename "$f") ($(stat -c %s "$f") bytes)${OPTS:+ -o $OPTS}"
	mount_it "$f"
	echo "  rows: $(awk '/^rows:/ {print $2}' "$MNT/summary")"
	# the top-level fields in schema order (rows.csv's header), which
	# orc-contents --columns counts from 0
	cols=$(head -n 1 "$MNT/rows.csv" | tr ',' ' ')
	unmount_it
	compare "$f" rows.jsonl
	compare "$f" rows.csv
	n=0
	for c in $cols; do
		compare "$f" "columns/$c" "--columns=$n"
		n=$((n + 1))
	done
}

for f in "$CORPUS/orc/good/demo-11-zlib.orc" "$GEN"; do
	if [ ! -f "$f" ]; then
		echo "skip: $f not found" >&2
		continue
	fi
	bench_file "$f"
done

#!/bin/sh
# tree-hash.sh: one line per file of the tree colfs mounts for each file
# of the shared corpus and for the samples colfs-mksample writes, so that
# two builds (before and after a change meant to keep behaviour) can be
# compared with diff.  Mounts through the public command only (colfs),
# reads with find and sha256sum.
#
# Usage: tools/bench/tree-hash.sh [OUT]    (default: standard output)
# Environment:
#   COLFS_BUILD   the build directory whose fs/colfs mounts (default build)
#   COLFS_MKSAMPLE  the colfs-mksample that writes the samples (default the
#                 build's own; give both runs the same one, so that the
#                 samples are the same bytes: their sha256 is listed too)
#   COLFS_CORPUS  the corpus (default ../shared/corpus from the worktree)
#   COLFS_HASH_ONLY  a grep -E pattern: only the sources it matches
#   COLFS_HASH_SAMPLES  where the samples are written (default
#                 /tmp/colfs-tree-hash-samples, emptied first): a fixed
#                 folder, since a sample's summary names its path
#
# Lines: SOURCE<TAB>PATH<TAB>SIZE<TAB>SHA256, where SIZE is the size a
# stat gives when the file is first listed (before it is read) and SHA256
# that of the bytes a read gives; a source colfs refuses gives one line
# SOURCE<TAB>-<TAB>refused<TAB>its message; a mount whose reads did not end
# within the time left gives SOURCE<TAB>-<TAB>timeout; a file whose read
# fails has EIO for its SHA256.
#
# Left out: each `io` document (it counts the reads of the mount, so it
# differs at each read).  Options: -o size_index=off, so no size learned
# by one run is read by the next.  Volatile documents (errors, summary,
# README's problem count, layout.svg) hold what the reads before them
# found, in the order they were read here (sorted paths); where reads
# race, so do they: a Delta table whose active files are missing
# (delta/checkpoints) lists its union views' failed reads in an order
# that differs from run to run.
set -eu
# bytes, not characters: a name from a damaged file need not be UTF-8
export LC_ALL=C
cd "$(dirname "$0")/../.."
B=${COLFS_BUILD:-build}
CORPUS=${COLFS_CORPUS:-../shared/corpus}
MKSAMPLE=${COLFS_MKSAMPLE:-$B/tools/colfs-mksample}
ONLY=${COLFS_HASH_ONLY:-}
SAMPLES=${COLFS_HASH_SAMPLES:-/tmp/colfs-tree-hash-samples}
OUT=${1:-/dev/stdout}
COLFS=$B/fs/colfs
[ -x "$COLFS" ] || { echo "tree-hash: no $COLFS (build first)" >&2; exit 1; }
[ -d "$CORPUS" ] || { echo "tree-hash: no corpus at $CORPUS" >&2; exit 1; }

WORK=$(mktemp -d /tmp/colfs-tree-hash.XXXXXX)
MNT=$WORK/mnt
mkdir "$MNT"
cleanup() {
	if mountpoint -q "$MNT" 2>/dev/null; then
		timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
	fi
	rm -rf "$WORK" "$SAMPLES"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The samples: every shape and codec colfs-mksample writes, each a file
# whose every value is known.
rm -rf "$SAMPLES"
mkdir -p "$SAMPLES"
sample() { # NAME [options]
	n=$1
	shift
	"$MKSAMPLE" "$SAMPLES/$n.parquet" "$@" >/dev/null
}
sample default
sample snappy --codec snappy
sample gzip --codec gzip
sample zstd --codec zstd
sample lz4_raw --codec lz4_raw
sample v2 --data-page-v2
sample struct --struct
sample bare --no-page-index --no-bloom
sample bad-crc --bad-crc
sample bad-meta --bad-meta
sample onegroup --rows 5000 --row-groups 1 --page-rows 1000

# The sources: the corpus's columnar files (its text files, the expected
# outputs, left out), each Delta table as a directory, and the samples.
sources() {
	find "$CORPUS/parquet" "$CORPUS/orc" "$CORPUS/arrow" -type f \
		! -name '*.json' ! -name '*.jsonl' ! -name '*.csv' \
		! -name '*.gz' ! -name '*.md' ! -name '*.tsv' ! -name '*.yaml' \
		! -name '*.jsn' ! -name '*.txt' ! -name '*.avro'
	find "$CORPUS/delta" -mindepth 1 -maxdepth 1 -type d
	find "$SAMPLES" -type f
}

hash_source() { # SRC NAME
	src=$1
	name=$2
	if ! timeout 60 "$COLFS" -o size_index=off "$src" "$MNT" \
		>"$WORK/err" 2>&1; then
		printf '%s\t-\trefused\t%s\n' "$name" \
			"$(sed "s|$CORPUS/||g; s|$SAMPLES/||g" "$WORK/err" | head -3 | tr '\n\t' '  ')"
		return
	fi
	# Sizes as a first stat gives them, then the bytes of each read.
	(cd "$MNT" && timeout 300 find . -type f ! -name io -printf '%P\t%s\n') \
		| LC_ALL=C sort >"$WORK/sizes" || true
	# A file whose read fails is listed with EIO for its hash.
	rc=0
	(cd "$MNT" && cut -f1 "$WORK/sizes" | tr '\n' '\0' |
		timeout 300 xargs -0 -r sha256sum -- >"$WORK/sums" 2>/dev/null) ||
		rc=$?
	if [ "$rc" = 124 ]; then
		printf '%s\t-\ttimeout\n' "$name"
	else
		# sha256sum writes "HASH  PATH"; join by path with the sizes.
		sed 's/^\([0-9a-f]*\)  \(.*\)$/\2\t\1/' "$WORK/sums" |
			LC_ALL=C sort >"$WORK/sums.by"
		LC_ALL=C join -t "$(printf '\t')" -a 1 -e EIO -o auto \
			"$WORK/sizes" "$WORK/sums.by" | sed "s|^|$name\t|"
	fi
	timeout 10 fusermount3 -u "$MNT" 2>/dev/null ||
		timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
}

{
	for f in "$SAMPLES"/*; do
		printf 'sample-bytes\t%s\t%s\t%s\n' "${f##*/}" "$(stat -c %s "$f")" \
			"$(sha256sum <"$f" | cut -d' ' -f1)"
	done
	sources | LC_ALL=C sort | while read -r src; do
		case $src in
		"$SAMPLES"/*) name=samples/${src#"$SAMPLES"/} ;;
		*) name=${src#"$CORPUS"/} ;;
		esac
		if [ -n "$ONLY" ] && ! printf '%s\n' "$name" | grep -qE "$ONLY"; then
			continue
		fi
		hash_source "$src" "$name"
	done
} >"$OUT"

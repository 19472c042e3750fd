#!/bin/sh
# tests/arrays/arrays-test.sh CASE OUTDIR: arrays/ (docs/values.md,
# "Arrays") read through a mount with numpy, value by value.
#
#   duckdb   a Parquet file DuckDB writes with every fixed-width type and
#            NULLs (tests/values/arrays-oracle.mjs), in 2 row groups (the first of two pieces):
#            arrays/ and row_groups/1/arrays/ against DuckDB's reading
#            of the same file, sizes exact on a fresh mount, mmap random
#            access (check-npy.py)
#   orc      a file of the project's ORC writer (tests/orc/orc_gen.c):
#            arrays/ and stripes/1/arrays/ against columns/
#   cfile    files of the project's CFile writer (tests/cfile/cw.c) of
#            each fixed-width type, nullable or not, against `values`; a
#            file without a positional index has no array
#
# Environment: COLFS (the daemon), ORC_GEN, CFILE_WRITER.  Skips (77) with a message when FUSE,
# numpy or DuckDB is missing.  Every mount is undone by a trap.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
case_=${1:?usage: arrays-test.sh CASE OUTDIR}
out=${2:?usage: arrays-test.sh CASE OUTDIR}
py=/usr/bin/python3

skip() {
	echo "arrays-test: $*: skipping" >&2
	exit 77
}
[ -e /dev/fuse ] || skip "no /dev/fuse"
command -v fusermount3 >/dev/null 2>&1 || skip "fusermount3 is not installed"
"$py" -c 'import numpy' 2>/dev/null || skip "python3-numpy is not installed"
[ -x "${COLFS:-}" ] || skip "COLFS is not set"

rm -rf "$out" && mkdir -p "$out/mnt" || exit 1
mnt=$out/mnt
trap 'fusermount3 -u "$mnt" 2>/dev/null' EXIT INT TERM

mount_() {
	timeout 20 "$COLFS" "$@" "$mnt" || { echo "FAIL: colfs $*" >&2; exit 1; }
}
umount_() {
	fusermount3 -u "$mnt" || { echo "FAIL: unmount" >&2; exit 1; }
}

case $case_ in
duckdb)
	sh "$dir/../values/duckdb-setup.sh" || exit $?
	(cd "$dir/../values" && timeout 120 node arrays-oracle.mjs "$out") ||
		{ echo "FAIL: arrays-oracle.mjs" >&2; exit 1; }
	mount_ "$out/fixed.parquet"
	# row group 1's first row: row group 0's rows
	first=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["num_rows"])' \
		"$mnt/row_groups/0/meta.json") || exit 1
	timeout 120 "$py" "$dir/check-npy.py" "$mnt/arrays" "$out/fixed.csv" || exit 1
	timeout 60 "$py" "$dir/check-npy.py" "$mnt/row_groups/1/arrays" \
		"$out/fixed.csv" "$first" >/dev/null || exit 1
	echo "ok: row_groups/1/arrays (rows from $first)"
	umount_
	;;
orc)
	[ -x "${ORC_GEN:-}" ] || skip "ORC_GEN is not set"
	"$ORC_GEN" "$out/g.orc" 30000 12000 >/dev/null || exit 1
	mount_ "$out/g.orc"
	timeout 60 "$py" "$dir/check-npy.py" "$mnt/arrays" --columns "$mnt/columns" || exit 1
	timeout 60 "$py" "$dir/check-npy.py" "$mnt/stripes/1/arrays" \
		--columns "$mnt/stripes/1/columns" >/dev/null || exit 1
	echo "ok: stripes/1/arrays"
	umount_
	;;
cfile)
	[ -x "${CFILE_WRITER:-}" ] || skip "CFILE_WRITER is not set"
	for ty in INT8:--nullable UINT8 INT16:--nullable UINT16:--nullable \
		INT32 UINT32:--nullable INT64:--nullable UINT64:--nullable \
		BOOL:--nullable FLOAT:--nullable DOUBLE UNIXTIME_MICROS:--nullable \
		DATE:--nullable; do
		null=${ty#*:} ty=${ty%%:*}
		[ "$null" = "$ty" ] && null=
		"$CFILE_WRITER" --type "$ty" $null --count 3000 --block-rows 700 \
			"$out/$ty.cfile" >/dev/null || exit 1
		mount_ "$out/$ty.cfile"
		printf '%s %s: ' "$ty" "${null:-not nullable}"
		timeout 60 "$py" "$dir/check-npy.py" "$mnt/arrays" --columns "$mnt" ||
			exit 1
		umount_
	done
	# no positional index: the blocks' rows are not known without
	# decoding them, so there is no array (arrays/ holds the README)
	"$CFILE_WRITER" --type INT32 --no-posidx --count 5000 --block-rows 700 \
		"$out/noidx.cfile" >/dev/null || exit 1
	mount_ "$out/noidx.cfile"
	[ "$(ls "$mnt/arrays")" = README ] ||
		{ echo "FAIL: noidx.cfile: arrays/ holds $(ls "$mnt/arrays")" >&2; exit 1; }
	echo "ok: no positional index: no array"
	umount_
	;;
*)
	echo "arrays-test: unknown case $case_" >&2
	exit 2
	;;
esac
exit 0

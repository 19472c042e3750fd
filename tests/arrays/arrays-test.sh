#!/bin/sh
# tests/arrays/arrays-test.sh CASE OUTDIR: arrays/ (docs/values.md,
# "Arrays") read through a mount with numpy, value by value.
#
#   duckdb   a Parquet file DuckDB writes with every fixed-width type and
#            NULLs (tests/values/arrays-oracle.mjs), in 2 row groups (the first of two pieces):
#            arrays/ and row_groups/1/arrays/ against DuckDB's reading
#            of the same file, sizes exact on a fresh mount, mmap random
#            access (check-npy.py); the DECIMALs' scales in arrays/README
#   orc      a file of the project's ORC writer (tests/orc/orc_gen.c):
#            arrays/ and stripes/1/arrays/ against columns/; corpus files
#            of the types it does not write (BYTE to DOUBLE, DATE,
#            TIMESTAMP, DECIMAL) against their columns/
#   damage   -o on_damage=null and skip on the corpus's
#            datapage_v1-corrupt-checksum.parquet and on ORC and CFile
#            files of the project's writers damaged here: every file of
#            columns/ (CFile: values) has num_rows lines (null), the
#            damaged rows NULL (or left out), the rest the healthy values
#            (damage-check.py); every arrays/*.npy keeps every row, the
#            damaged ones masked, under null and skip (damage-npy.py)
#   damage-rows  -o on_damage=null and skip on rows.jsonl, rows.csv and
#            columns/ (damage-rows.py, damage-check.py): Parquet files of
#            colfs-mksample damaged here (a page of a flat column in
#            data pages v1; a page of the list `tags` in data pages v2;
#            a leaf of the struct `pt`), a DuckDB file (a list of
#            structs and a map, a leaf page of each in row group 1), ORC
#            files of the project's writer (stripe 1's footer lost;
#            one stream of `name` in stripe 1 overwritten), each against
#            the undamaged file
#   random   numpy.load(mmap_mode='r') at two rows of a sample damaged
#            in two other pieces decodes only the pieces read: the
#            values equal the healthy file's, no damaged page is decoded
#            (errors stays empty); a read in a damaged page fails with EIO
#   cfile    files of the project's CFile writer (tests/cfile/cw.c) of
#            each fixed-width type, nullable or not, against `values`; a
#            file without a positional index has no array
#
# Environment: COLFS (the daemon), ORC_GEN, CFILE_WRITER, MKSAMPLE, CORPUS.  Skips (77) with a message when FUSE,
# numpy or DuckDB is missing.  Every mount is undone by a trap.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
case_=${1:?usage: arrays-test.sh CASE OUTDIR}
out=${2:?usage: arrays-test.sh CASE OUTDIR}
py=/usr/bin/python3
. "$dir/../need.sh"
need_fuse
need_numpy
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
# the mounted file's row count (its summary's "rows: N"; a CFile's
# "values: N")
num_rows() {
	sed -n 's/^\(rows\|values\): \([0-9][0-9]*\)$/\2/p' "$mnt/summary" | grep . ||
		{ echo "FAIL: no rows line in summary" >&2; return 1; }
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
	# the DECIMALs' scale, which the .npy header cannot carry, is in
	# arrays/README (DECIMAL(4,1), (9,2), (18,4) in arrays-oracle.mjs)
	for d in 'dec4.npy: int64 (<i8), from INT32 DECIMAL, precision 4, scale 1;' \
		'dec9.npy: int64 (<i8), from INT32 DECIMAL, precision 9, scale 2;' \
		'dec18.npy: int64 (<i8), from INT64 DECIMAL, precision 18, scale 4;'; do
		grep -qF "$d" "$mnt/arrays/README" ||
			{ echo "FAIL: arrays/README lacks '$d'" >&2; exit 1; }
	done
	echo "ok: arrays/README gives each DECIMAL's precision and scale"
	timeout 60 "$py" "$dir/check-npy.py" "$mnt/row_groups/1/arrays" \
		"$out/fixed.csv" "$first" >/dev/null || exit 1
	echo "ok: row_groups/1/arrays (rows from $first)"
	umount_
	# FLOAT16, which DuckDB does not write: the corpus's file against
	# its columns/
	f16=${CORPUS:-}/parquet/good/float16_zeros_and_nans.parquet
	if [ -f "$f16" ]; then
		mount_ "$f16" -o size_index=off
		timeout 60 "$py" "$dir/check-npy.py" "$mnt/arrays" --columns "$mnt/columns" || exit 1
		umount_
	else
		echo "arrays-test: $f16 absent: FLOAT16 left out" >&2
	fi
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
	# the types the project's writer leaves out, in files of the corpus:
	# BYTE to DOUBLE (test1), DATE and TIMESTAMP (testDate2038,
	# testTimestamp, orc_split_elim), DECIMAL (decimal), NULLs
	# (nulls-at-end-snappy), against their columns/
	for f in TestOrcFile.test1.orc TestOrcFile.testDate2038.orc \
		TestOrcFile.testTimestamp.orc orc_split_elim.orc decimal.orc \
		nulls-at-end-snappy.orc; do
		f=${CORPUS:-}/orc/good/$f
		[ -f "$f" ] || { echo "arrays-test: $f absent: left out" >&2; continue; }
		mount_ "$f" -o size_index=off
		timeout 120 "$py" "$dir/check-npy.py" "$mnt/arrays" --columns "$mnt/columns" \
			>"$out/npy.txt" || { cat "$out/npy.txt"; exit 1; }
		echo "ok: ${f##*/}: $(grep '^ok: ' "$out/npy.txt" | cut -d: -f2 | tr '\n' ' ')"
		umount_
	done
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
damage)
	# -o on_damage=null|skip against the healthy values: the corpus's
	# datapage_v1-corrupt-checksum.parquet (one page of each column
	# fails its CRC; the healthy values are those of its twin
	# datapage_v1-uncompressed-checksum.parquet), an ORC
	# file whose stripe 1 footer is destroyed, a CFile whose block 1
	# fails its CRC
	[ -x "${ORC_GEN:-}" ] && [ -x "${CFILE_WRITER:-}" ] ||
		skip "ORC_GEN or CFILE_WRITER is not set"
	good=$out/good
	mkdir -p "$good" || exit 1
	pq=${CORPUS:-}/parquet/good/datapage_v1-corrupt-checksum.parquet
	twin=${CORPUS:-}/parquet/good/datapage_v1-uncompressed-checksum.parquet
	if [ -f "$pq" ]; then
		# the healthy values: its twin's, whose CRCs are all right (the
		# same rows outside the two damaged pages, whose bytes differ)
		if [ -f "$twin" ]; then
			mount_ "$twin" -o size_index=off
		else
			echo "arrays-test: $twin absent: the healthy values read with checksums=ignore" >&2
			mount_ "$pq" -o checksums=ignore,size_index=off
		fi
		cp -r "$mnt/columns" "$good/pq" || exit 1
		cp -r "$mnt/arrays" "$good/pq-arrays" || exit 1
		n=$(num_rows) || exit 1
		umount_
		for m in null skip; do
			mount_ "$pq" -o on_damage=$m,size_index=off
			# every file of columns/ (a and b), num_rows lines each:
			# page 0 of a and page 1 of b, rows 0-2559 and 2560-5119,
			# NULL (or left out), the others the healthy values; under
			# skip rows.csv keeps no row (each has a damaged field),
			# arrays/ mask them as under null
			"$py" "$dir/damage-check.py" $m "$mnt/columns" "$good/pq" --all "$n" -- \
				a=0:2560 b=2560:5120 || exit 1
			"$py" "$dir/damage-npy.py" "$mnt/arrays" "$good/pq-arrays" \
				a=0:2560 b=2560:5120 || exit 1
			lines=5121 what='read as NULL'
			[ $m = skip ] && lines=1 what='left out'
			[ "$(wc -l < "$mnt/rows.csv")" = $lines ] ||
				{ echo "FAIL: rows.csv: $(wc -l < "$mnt/rows.csv") lines" >&2; exit 1; }
			grep -q "rows 0 to 2559 of row group 0 (column 0, page 0) $what" "$mnt/errors" ||
				{ echo "FAIL: errors does not list the rows replaced" >&2; exit 1; }
			umount_
		done
	else
		echo "arrays-test: $pq absent: its case left out" >&2
	fi
	# ORC: stripe 1 (rows 12000-23999) loses its footer
	"$ORC_GEN" "$out/d.orc" 30000 12000 >/dev/null || exit 1
	mount_ "$out/d.orc" -o size_index=off
	cp -r "$mnt/columns" "$good/orc" || exit 1
	cp -r "$mnt/arrays" "$good/orc-arrays" || exit 1
	n=$(num_rows) || exit 1
	foot=$("$py" -c 'import json, sys; i = json.load(open(sys.argv[1]))
print(i["offset"] + i["indexLength"] + i["dataLength"], i["footerLength"])' \
		"$mnt/stripes/1/info.json") || exit 1
	umount_
	"$py" -c 'import sys; off, n = map(int, sys.argv[2:4])
f = open(sys.argv[1], "r+b"); f.seek(off); f.write(b"\xff" * n)' "$out/d.orc" $foot || exit 1
	for m in null skip; do
		mount_ "$out/d.orc" -o on_damage=$m,size_index=off
		"$py" "$dir/damage-check.py" $m "$mnt/columns" "$good/orc" --all "$n" -- 12000:24000 || exit 1
		"$py" "$dir/damage-npy.py" "$mnt/arrays" "$good/orc-arrays" 12000:24000 || exit 1
		umount_
	done
	# CFile: block 1 (rows 700-1399) fails its CRC
	"$CFILE_WRITER" --type INT64 --nullable --count 3000 --block-rows 700 \
		"$out/d.cfile" >/dev/null || exit 1
	mount_ "$out/d.cfile" -o size_index=off
	cp "$mnt/values" "$good/values" || exit 1
	cp -r "$mnt/arrays" "$good/cfile-arrays" || exit 1
	n=$(num_rows) || exit 1
	[ "$(wc -l < "$good/values")" = "$n" ] ||
		{ echo "FAIL: d.cfile: values has $(wc -l < "$good/values") lines, $n rows" >&2; exit 1; }
	blk=$("$py" -c 'import json, sys; i = json.load(open(sys.argv[1]))
print(i["offset"] + i["size"] // 2)' "$mnt/blocks/1/info.json") || exit 1
	umount_
	"$py" -c 'import sys; off = int(sys.argv[2])
f = open(sys.argv[1], "r+b"); f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0xff]))' "$out/d.cfile" "$blk" || exit 1
	for m in null skip; do
		mount_ "$out/d.cfile" -o on_damage=$m,size_index=off
		"$py" "$dir/damage-check.py" $m "$mnt" "$good" values -- 700:1400 || exit 1
		"$py" "$dir/damage-npy.py" "$mnt/arrays" "$good/cfile-arrays" 700:1400 || exit 1
		umount_
	done
	mount_ "$out/d.cfile" -o size_index=off
	if cat "$mnt/values" >/dev/null 2>&1; then
		echo "FAIL: on_damage=error (the default) read past block 1" >&2
		exit 1
	fi
	echo "ok: error: values fails at block 1"
	umount_
	;;
damage-rows)
	[ -x "${ORC_GEN:-}" ] && [ -x "${MKSAMPLE:-}" ] ||
		skip "ORC_GEN or MKSAMPLE is not set"
	# flip bytes of a part found through its xattrs on a healthy mount:
	# damage FILE PART DELTA LENGTH, DELTA from the part's data (past a
	# page's header), LENGTH 0: the whole part
	damage() {
		"$py" -c 'import os, sys
p = sys.argv[2]
try: hl = int(os.getxattr(p, "user.colfs.header_length"))
except OSError: hl = 0
off = int(os.getxattr(p, "user.colfs.offset")) + hl + int(sys.argv[3])
n = int(sys.argv[4]) or int(os.getxattr(p, "user.colfs.length"))
f = open(sys.argv[1], "r+b"); f.seek(off); b = f.read(n); f.seek(off)
f.write(bytes(x ^ 0xff for x in b))' "$@" || exit 1
	}
	# case NAME: the damaged file $out/NAME.bad against $out/NAME
	# (healthy views in $out/NAME.good/), under null and skip
	views() {
		name=$1 range=$2 col=$3; shift 3
		for m in null skip; do
			mount_ "$out/$name.bad" -o on_damage=$m,size_index=off
			for v in rows.jsonl rows.csv; do
				timeout 60 "$py" "$dir/damage-rows.py" $m "$mnt/$v" \
					"$out/$name.good/$v" "$@" -- $range || exit 1
			done
			"$py" "$dir/damage-check.py" $m "$mnt/columns" \
				"$out/$name.good/columns" $col -- $range || exit 1
			r0=${range%:*} r1=${range#*:}
			grep -q "rows .* $([ $m = null ] && echo 'read as NULL' || echo 'left out'): on_damage" \
				"$mnt/errors" || { echo "FAIL: $name: errors lists no rows $m" >&2; exit 1; }
			umount_
		done
		echo "ok: $name"
	}
	healthy() {
		mkdir -p "$out/$1.good" || exit 1
		mount_ "$out/$1" -o size_index=off
		cp -r "$mnt/columns" "$mnt/rows.jsonl" "$mnt/rows.csv" "$out/$1.good/" || exit 1
		cp "$out/$1" "$out/$1.bad" || exit 1
	}
	# Parquet, data pages v1: page 1 of `price` in row group 0 (rows
	# 400-799): its values' bytes flipped, the CRC fails
	"$MKSAMPLE" "$out/v1.parquet" >/dev/null || exit 1
	healthy v1.parquet
	damage "$out/v1.parquet.bad" "$mnt/row_groups/0/chunks/price/pages/1" 40 8
	umount_
	views v1.parquet 400:800 price price
	# data pages v2: page 1 of the list `tags` (rows 400-799, from the
	# page header's num_rows): the whole list reads NULL
	"$MKSAMPLE" "$out/v2.parquet" --data-page-v2 >/dev/null || exit 1
	healthy v2.parquet
	damage "$out/v2.parquet.bad" "$mnt/row_groups/0/chunks/tags.list.element/pages/1" 1000 1
	umount_
	views v2.parquet 400:800 tags tags
	# a field of several leaves: page 1 of `pt.y` (rows 400-799) in
	# row group 0; the whole struct `pt` reads NULL in those rows (its
	# leaf pt.x alone is no consistent value), or they are left out
	"$MKSAMPLE" "$out/s.parquet" --struct >/dev/null || exit 1
	healthy s.parquet
	damage "$out/s.parquet.bad" "$mnt/row_groups/0/chunks/pt.y/pages/1" 40 8
	umount_
	views s.parquet 400:800 pt pt
	# repeated leaves of fields of several leaves (a list of structs, a
	# map) in DuckDB's files: one data page per chunk in v1, no offset
	# index, so a damaged page's rows are its row group's; row group 1
	# (rows 2048-4095) of l.list.element.b and m.key_value.value lose
	# their zstd frame's magic: l and m read NULL there, id keeps its
	# values
	if sh "$dir/../values/duckdb-setup.sh"; then
		(cd "$dir/../values" && timeout 120 node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run(\"COPY (SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE [{'a': i, 'b': 'x' || i}, {'a': -i, 'b': NULL}] END AS l, CASE WHEN i % 5 = 0 THEN NULL ELSE MAP {'k' || i: i, 'z': NULL} END AS m FROM range(6000) t(i)) TO '$out/n.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048)\");
") || { echo "FAIL: DuckDB did not write n.parquet" >&2; exit 1; }
		healthy n.parquet
		damage "$out/n.parquet.bad" "$mnt/row_groups/1/chunks/l.list.element.b/pages/0" 0 4
		damage "$out/n.parquet.bad" "$mnt/row_groups/1/chunks/m.key_value.value/pages/0" 0 4
		umount_
		views n.parquet 2048:4096 "l m" l m
	fi
	# ORC: stripe 1 (rows 2000-3999) loses its footer: every field
	"$ORC_GEN" "$out/o.orc" 6000 2000 >/dev/null || exit 1
	healthy o.orc
	foot=$("$py" -c 'import json, sys; i = json.load(open(sys.argv[1]))
print(i["offset"] + i["indexLength"] + i["dataLength"], i["footerLength"])' \
		"$mnt/stripes/1/info.json") || exit 1
	umount_
	"$py" -c 'import sys; off, n = map(int, sys.argv[2:4])
f = open(sys.argv[1], "r+b"); f.seek(off); f.write(b"\xff" * n)' "$out/o.orc.bad" $foot || exit 1
	views o.orc 2000:4000 "id name score flag" id name score flag
	# one stream: the lengths of `name` in stripe 1; the other fields
	# keep their values
	"$ORC_GEN" "$out/n.orc" 6000 2000 >/dev/null || exit 1
	healthy n.orc
	damage "$out/n.orc.bad" "$mnt/stripes/1/streams/3-2-LENGTH" 0 0
	umount_
	views n.orc 2000:4000 name name
	;;
random)
	# numpy.load(mmap_mode='r')[k] decodes only the piece under row k
	# (65536 rows of a row group: docs/values.md, "Arrays"): a sample of
	# 600000 rows in one row group, 10000-row pages, with the data of
	# id's pages 28 and 48 (rows 280000-289999 and 480000-489999:
	# pieces 4 and 7) flipped.  Under on_damage=error (the default),
	# np.load (whose header read takes st_blksize, 1 MiB, and the
	# kernel's readahead past it: pieces 0 to 2) and rows 30000 and
	# 400000 (piece 6) read through mmap equal the healthy file's, and
	# errors stays empty (no damaged page was decoded); a read of row
	# 285000 then fails with EIO and files page 28, and page 48 is still
	# not decoded.  (Row 400000 is inside piece 6 and 5 beyond the 128
	# KiB, 16384 rows, the kernel reads around a fault.  With decode_threads=0: otherwise the workers decode the
	# piece after each one read, as for a sequential reader: docs/tree.md,
	# Options.)
	[ -x "${MKSAMPLE:-}" ] || skip "MKSAMPLE is not set"
	"$MKSAMPLE" "$out/r.parquet" --rows 600000 --row-groups 1 --page-rows 10000 \
		>/dev/null || exit 1
	cp "$out/r.parquet" "$out/r.bad" || exit 1
	mount_ "$out/r.parquet" -o size_index=off
	"$py" -c 'import numpy as np, sys
a = np.load(sys.argv[1] + "/arrays/id.npy")
print(a[30000], a[400000])' "$mnt" >"$out/want" || exit 1
	"$py" -c 'import os, sys
f = open(sys.argv[1], "r+b")
for pg in (28, 48):
    p = "%s/row_groups/0/chunks/id/pages/%d" % (sys.argv[2], pg)
    assert os.getxattr(p, "user.colfs.num_values") == b"10000", p
    off = int(os.getxattr(p, "user.colfs.offset")) + \
        int(os.getxattr(p, "user.colfs.header_length")) + 800
    f.seek(off); b = f.read(8); f.seek(off); f.write(bytes(x ^ 0xff for x in b))' \
		"$out/r.bad" "$mnt" || exit 1
	umount_
	mount_ "$out/r.bad" -o size_index=off,decode_threads=0
	timeout 60 "$py" -c 'import errno, numpy as np, os, sys
mnt = sys.argv[1]
m = np.load(mnt + "/arrays/id.npy", mmap_mode="r")
got = "%d %d" % (m[30000], m[400000])
want = open(sys.argv[2]).read().split()
assert got == " ".join(want), "mmap read %s, healthy %s" % (got, want)
errs = open(mnt + "/errors").read()
assert errs == "", "errors after rows 30000 and 400000: " + errs
print("ok: mmap rows 30000 and 400000 equal the healthy file, no damaged page decoded")
fd = os.open(mnt + "/arrays/id.npy", os.O_RDONLY)
hdr = 10 + int.from_bytes(os.pread(fd, 10, 0)[8:10], "little")
try:
    os.pread(fd, 8, hdr + 285000 * 8)
    raise SystemExit("FAIL: row 285000 (damaged page 28) was read")
except OSError as e:
    assert e.errno == errno.EIO, e
errs = open(mnt + "/errors").read()
assert "/row_groups/0/chunks/id/pages/28:" in errs, "errors: " + errs
assert "/pages/48:" not in errs, "page 48 decoded: " + errs
print("ok: row 285000: EIO, page 28 filed, page 48 not decoded")' "$mnt" "$out/want" ||
		{ echo "FAIL: random access" >&2; exit 1; }
	umount_
	;;
*)
	echo "arrays-test: unknown case $case_" >&2
	exit 2
	;;
esac
exit 0

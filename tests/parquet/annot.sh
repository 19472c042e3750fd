#!/bin/bash
# tests/parquet/annot.sh COLFS_TOOL COLFS GEN_ANNOT WORKDIR [CORPUS]: files that
# break the format's rules quietly are named in errors (docs/errors.md,
# parquet_annot.c, parquet_pagecheck.c; the files: tests/parquet/gen_annot.c):
#   - an annotation on a physical type the format does not allow for it
#     (TIMESTAMP(MICROS) on INT32, INTEGER(64) on INT32, INTEGER(32|8)
#     and INT_16 on INT64, STRING on a group, LIST on INT32, DECIMAL on
#     DOUBLE, INTEGER(12)),
#     with the schema element's offset;
#   - bytes left in a page after its declared values (an INT32 page
#     holding 8-byte values), at the first such byte;
#   - a FileMetaData num_rows (0) other than its row groups' (6): named,
#     and summary gives the 6 rows the views hold;
#   - a VARIANT group without its `metadata` field;
#   - TIME(MILLIS) values outside a day (90,000,000 and -5; 86,400,000,
#     the day's end, is allowed, and so is a TIME(MICROS) of a day), in a
#     data page and in a dictionary page (which has 4 bytes left over);
#   - a file with every annotation on a type it fits has no problem;
#   - the corpus's repeated_no_annotation.parquet (parquet-rs 0.3: its
#     footer says 0 rows, its row group 6) is named the same way, when
#     the corpus is present.
# `colfs-tool check` lists exactly the problems expected (bytes compared),
# the values stay as they were shown, and a mount's `errors` says the
# same.  Exit 0 pass, 1 fail.
set -u
tool=${1:?usage: annot.sh COLFS_TOOL COLFS GEN_ANNOT WORKDIR}
colfs=${2:?usage: annot.sh COLFS_TOOL COLFS GEN_ANNOT WORKDIR}
gen=${3:?usage: annot.sh COLFS_TOOL COLFS GEN_ANNOT WORKDIR}
work=${4:?usage: annot.sh COLFS_TOOL COLFS GEN_ANNOT WORKDIR}
corpus=${5:-}
rm -rf "$work" && mkdir -p "$work" || exit 1
"$gen" "$work" || { echo "FAIL: gen_annot did not write the files"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check FILE EXPECTED: colfs-tool check's output, the file's own path
# taken out of its last line
check() {
	local got
	got=$(timeout 60 "$tool" check "$work/$1" 2>&1 | sed "s|^$work/||")
	if [ "$got" != "$2" ]; then
		fail "check $1:"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$got") | sed 's/^/    /'
	fi
}

check ts-int32-8byte.parquet \
"/: offset 60 (0x3c): corrupt: schema element ts: logical type TIMESTAMP(MICROS) annotates INT32, which the format does not allow (only INT64): its values may not be what the writer meant
/row_groups/0/chunks/ts/pages/0: offset 33 (0x21): corrupt: data page: 12 bytes after its 3 PLAIN values belong to no value (the page holds 24 bytes, its values end at byte 12)
ts-int32-8byte.parquet: 2 problems in 46 nodes; 0 nodes unreadable"

check ts-int32-snappy.parquet \
"/: offset 62 (0x3e): corrupt: schema element ts: logical type TIMESTAMP(MICROS) annotates INT32, which the format does not allow (only INT64): its values may not be what the writer meant
/row_groups/0/chunks/ts/pages/0: offset 21 (0x15): corrupt: data page: 12 bytes after its 3 PLAIN values belong to no value (the decompressed page holds 24 bytes, its values end at byte 12)
ts-int32-snappy.parquet: 2 problems in 46 nodes; 0 nodes unreadable"

check int-width.parquet \
"/: offset 200 (0xc8): corrupt: schema element i64_on_i32: logical type INTEGER(64,signed) annotates INT32, which the format does not allow (only INT64): its values may not be what the writer meant
/: offset 225 (0xe1): corrupt: schema element i32_on_i64: logical type INTEGER(32,signed) annotates INT64, which the format does not allow (only INT32): its values may not be what the writer meant
/: offset 249 (0xf9): corrupt: schema element i8_on_i64: logical type INTEGER(8,signed) annotates INT64, which the format does not allow (only INT32): its values may not be what the writer meant
/: offset 272 (0x110): corrupt: schema element i16_on_i64: converted type INT_16 annotates INT64, which the format does not allow (only INT32): its values may not be what the writer meant
/: offset 291 (0x123): corrupt: schema element i12: INTEGER of bit width 12, which the format does not allow (only 8, 16, 32 or 64): its values are shown as their physical type's integers
int-width.parquet: 5 problems in 106 nodes; 0 nodes unreadable"

check group-clash.parquet \
"/: offset 118 (0x76): corrupt: schema element s: logical type STRING annotates a group, which the format does not allow (only BYTE_ARRAY): its values may not be what the writer meant
/: offset 138 (0x8a): corrupt: schema element l: logical type LIST annotates INT32, which the format does not allow (only a group): its values may not be what the writer meant
/: offset 150 (0x96): corrupt: schema element d: DECIMAL on DOUBLE (only INT32, INT64, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY carry decimals)
group-clash.parquet: 3 problems in 78 nodes; 0 nodes unreadable"

check rows-footer-0.parquet \
"/: offset 69 (0x45): corrupt: FileMetaData num_rows is 0, its row groups' num_rows add up to 6: the views and summary give the row groups' rows
rows-footer-0.parquet: 1 problem in 48 nodes; 0 nodes unreadable"

check variant-no-metadata.parquet \
"/: offset 54 (0x36): corrupt: schema element v: VARIANT group without its required binary field 'metadata' (there is none): its values cannot be decoded as variants and are shown as the group's fields
variant-no-metadata.parquet: 1 problem in 48 nodes; 0 nodes unreadable"

check time-outside-day.parquet \
"/row_groups/0/chunks/t_ms/pages/0: offset 21 (0x15): corrupt: data page: 2 of its 4 TIME(MILLIS) values are outside a day (0 to 86400000), the first is value 1, 90000000: shown as they are
time-outside-day.parquet: 1 problem in 61 nodes; 0 nodes unreadable"

check time-dict.parquet \
"/row_groups/0/chunks/t/pages/0: offset 25 (0x19): corrupt: dictionary page: 4 bytes after its 2 PLAIN values belong to no value (the page holds 12 bytes, its values end at byte 8)
/row_groups/0/chunks/t/pages/0: offset 17 (0x11): corrupt: dictionary page: 1 of its 2 TIME(MILLIS) values are outside a day (0 to 86400000), the first is value 0, -1: shown as they are
time-dict.parquet: 2 problems in 52 nodes; 0 nodes unreadable"

check fits.parquet "fits.parquet: healthy, 272 nodes read"

# the values stay as they were shown
cat_is() { # FILE PATH EXPECTED
	local got
	got=$(timeout 60 "$tool" cat "$work/$1" "$2" 2>&1)
	[ "$got" = "$3" ] || fail "$1 $2: got '$got', expected '$3'"
}
cat_is rows-footer-0.parquet rows.jsonl \
'{"x":0}
{"x":10}
{"x":20}
{"x":30}
{"x":40}
{"x":50}'
got=$(timeout 60 "$tool" cat "$work/rows-footer-0.parquet" summary | grep '^rows: ')
[ "$got" = "rows: 6 (the row groups'; FileMetaData num_rows says 0)" ] ||
	fail "rows-footer-0.parquet summary: '$got'"
cat_is time-outside-day.parquet columns/t_ms \
'00:00:00
25:00:00
-00:00:00.005
24:00:00'
cat_is time-dict.parquet columns/t \
'-00:00:00.001
01:00:00
-00:00:00.001'
cat_is ts-int32-8byte.parquet columns/ts \
'1969-12-31 23:32:51.176448+00
1970-01-01 00:00:00.161636+00
1969-12-31 23:32:51.176448+00'

rna=$corpus/parquet/good/repeated_no_annotation.parquet
if [ -n "$corpus" ] && [ -f "$rna" ]; then
	got=$(timeout 60 "$tool" check "$rna" 2>&1 | head -1)
	[ "$got" = "/: offset 348 (0x15c): corrupt: FileMetaData num_rows is 0, its row groups' num_rows add up to 6: the views and summary give the row groups' rows" ] ||
		fail "repeated_no_annotation.parquet: $got"
	got=$(timeout 60 "$tool" cat "$rna" summary | grep '^rows: ')
	[ "$got" = "rows: 6 (the row groups'; FileMetaData num_rows says 0)" ] ||
		fail "repeated_no_annotation.parquet summary: '$got'"
	[ "$(timeout 60 "$tool" cat "$rna" rows.jsonl | wc -l)" = 6 ] ||
		fail "repeated_no_annotation.parquet: rows.jsonl is not 6 rows"
else
	echo "corpus part skipped: no corpus file at '$rna'"
fi

# --- a mount's errors ------------------------------------------------------------
mnt=$(mktemp -d "$work/mnt.XXXXXX")
pid=
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
	fi
	[ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	rmdir "$mnt" 2>/dev/null
}
trap cleanup EXIT
if ! command -v fusermount3 >/dev/null || [ ! -e /dev/fuse ]; then
	echo "mount part skipped: no fusermount3 or /dev/fuse"
else
	"$colfs" -f -o size_index=off "$work/ts-int32-8byte.parquet" "$mnt" &
	pid=$!
	for _ in $(seq 500); do mountpoint -q "$mnt" && break; sleep 0.02; done
	if ! mountpoint -q "$mnt"; then
		fail "ts-int32-8byte.parquet did not mount"
	else
		# the clash is known at mount; the page's bytes once it is read
		timeout 20 cat "$mnt/errors" | grep -q \
			'^/: offset 60 (0x3c): corrupt: schema element ts: logical type TIMESTAMP(MICROS) annotates INT32' ||
			fail "the mount's errors lacks the schema clash"
		timeout 20 cat "$mnt/rows.jsonl" >/dev/null || fail "rows.jsonl does not read"
		timeout 20 cat "$mnt/errors" | grep -qF \
			'/row_groups/0/chunks/ts/pages/0: offset 33 (0x21): corrupt: data page: 12 bytes after its 3 PLAIN values belong to no value' ||
			fail "the mount's errors lacks the page's bytes left over"
		grep -q '^problems: 2 ' <(timeout 20 cat "$mnt/summary") ||
			fail "the mount's summary does not count 2 problems"
	fi
fi

[ "$fails" = 0 ] && echo "PASS: annotation clashes, bytes left over, counts and TIME values named"
[ "$fails" = 0 ]

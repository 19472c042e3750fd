#!/bin/bash
# tests/fs: extended attributes and layout.svg (docs/tree.md), one case per
# meson test.
#
#   xattr-test.sh CASE
#
#   xattr-parquet  the colfs-mksample sample: getfattr on the root, a row
#                  group, a chunk, a page and a range shows the documented
#                  attributes; every layout line's node has the line's
#                  offset and length; sizes, ERANGE, ENODATA and EROFS
#                  through the system calls and setfattr; getfattr -R over
#                  the whole mount completes
#   xattr-orc      the same for an ORC file of the corpus (stripe, stream)
#   xattr-cfile    the same for a CFile written by cfile-writer (block)
#   xattr-recursive  getfattr -R -d -m - over a mount of a sample of about
#                  20,000 nodes (colfs-mksample, 100-row pages) completes
#                  (a generous timeout, not a time limit) and names every
#                  node once with its kind and path; every 250th node's
#                  attributes equal its own getfattr -d; the attributes of
#                  xattr-parquet and the layout offsets hold in its output
#   layout-svg     layout.svg of the root and of a row group (Parquet), a
#                  stripe (ORC), a CFile, corpus files with gaps and with
#                  overlaps: xmllint parses it, one region per layout line
#                  with its title (gaps hatched, overlaps as bars); a damaged copy of the sample
#                  has its broken chunk in red, and headless Chromium's
#                  picture of it shows the red
#
# Environment (tests/fs/meson.build): COLFS, SAMPLE, MKSAMPLE, CORPUS,
# CFILE_WRITER.
# Every mount is undone by the exit trap; every command runs under
# `timeout`.  Exit 77 (skip) with a message when FUSE, a tool or the input
# is missing.
set -euo pipefail

CASE=${1:?usage: xattr-test.sh CASE}
: "${COLFS:?COLFS is not set}"
T=${TEST_TIMEOUT:-30}
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="$HERE/xattr-check.py"
. "$HERE/../need.sh"

# $WORK made; every mount undone and $WORK removed on exit
. "$HERE/../mount-cleanup.sh" colfs-xattr-test

need_fuse
command -v getfattr >/dev/null || skip "getfattr (Debian attr) is not installed: tools/bootstrap.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

# mount FILE: mounts it on a new directory, sets MNT.
mount_file() {
	MNT=$(mktemp -d "$WORK/mnt.XXXXXX")
	MOUNTS+=("$MNT")
	timeout "$T" "$COLFS" -o size_index=off "$1" "$MNT" ||
		fail "colfs $1 exited with $?"
	grep -qs " $MNT fuse" /proc/self/mounts || fail "$MNT is not mounted"
}

check() { timeout "$T" python3 "$CHECK" "$@" || fail "xattr-check.py $*"; }
# checks "LINE..." of MNT in one python3 (xattr-check.py batch)
checks() {
	printf '%s\n' "$@" | timeout "$T" python3 "$CHECK" batch "$MNT" ||
		fail "xattr-check.py batch $MNT"
}

# getfattr -R over the whole mount: completes, and names every node.
recursive() {
	local n f
	timeout "$T" getfattr -R -d -m - --absolute-names "$MNT" \
		> "$WORK/all.txt" || fail "getfattr -R -d -m - $MNT"
	n=$(grep -c '^# file: ' "$WORK/all.txt")
	f=$(timeout "$T" find "$MNT" | wc -l)
	[ "$n" = "$f" ] || fail "getfattr -R named $n nodes, find $f"
	grep -q '^user.colfs.kind=' "$WORK/all.txt" || fail "getfattr -R: no kind"
	echo "getfattr -R: $n nodes"
}

# setfattr and setfattr -x answer EROFS.
read_only() {
	local out
	if out=$(timeout "$T" setfattr -n user.x -v 1 "$1" 2>&1); then
		fail "setfattr succeeded on $1"
	fi
	case "$out" in *"Read-only file system"*) ;;
	*) fail "setfattr: $out (want EROFS)" ;; esac
	if out=$(timeout "$T" setfattr -x user.colfs.kind "$1" 2>&1); then
		fail "setfattr -x succeeded on $1"
	fi
	case "$out" in *"Read-only file system"*) ;;
	*) fail "setfattr -x: $out (want EROFS)" ;; esac
	echo "setfattr: EROFS"
}

sample() {
	[ -n "${SAMPLE:-}" ] && [ -s "$SAMPLE" ] ||
		skip "the colfs-mksample sample is not built"
}

orc_file() {
	ORC=${CORPUS:-/nonexistent}/orc/good/TestOrcFile.test1.orc
	[ -s "$ORC" ] || skip "no ORC input: the corpus ($CORPUS) is absent"
}

cfile() {
	[ -n "${CFILE_WRITER:-}" ] && [ -x "$CFILE_WRITER" ] ||
		skip "cfile-writer (tests/cfile) is not built"
	timeout "$T" "$CFILE_WRITER" --type INT64 --encoding BIT_SHUFFLE \
		--compression LZ4 --count 5000 --block-rows 1000 \
		"$WORK/i.cfile" > /dev/null || fail "cfile-writer"
}

case_xattr_parquet() {
	sample
	mount_file "$SAMPLE"
	local c=/row_groups/0/chunks/name
	checks "attrs / kind=dir path=/ format=parquet problems=0 size=$(stat -c %s "$SAMPLE")" \
		"attrs /row_groups/0 kind=row_group num_rows=1000 chunks=5 compressed_size=* uncompressed_size=* problems=0" \
		"attrs $c kind=chunk column=name type=BYTE_ARRAY codec=UNCOMPRESSED encodings=PLAIN,RLE,RLE_DICTIONARY num_values=1000 null_count=* compressed_size=* uncompressed_size=* dictionary=yes offset=* length=*" \
		"attrs $c/pages/0 kind=page page_type=DICTIONARY_PAGE encoding=PLAIN num_values=* compressed_size=* crc=*" \
		"attrs $c/pages/1 kind=page page_type=DATA_PAGE num_values=* encoding=*" \
		"attrs $c/raw kind=range path=$c/raw offset=* length=* problems=!" \
		"attrs /columns/id kind=view offset=!" \
		"attrs /README kind=document" \
		layout "errno $c"
	# the chunk's place is its raw bytes'; its page 0 starts there
	[ "$(getfattr --only-values -n user.colfs.offset "$MNT$c")" = \
	  "$(getfattr --only-values -n user.colfs.offset "$MNT$c/raw")" ] ||
		fail "chunk and raw offsets differ"
	[ "$(getfattr --only-values -n user.colfs.offset "$MNT$c/pages/0")" = \
	  "$(getfattr --only-values -n user.colfs.offset "$MNT$c")" ] ||
		fail "page 0 does not start at the chunk"
	# the values against other readings of the file: the chunk's
	# null_count is row group 0's NULL lines of columns/name (decoded),
	# its compressed_size its raw file's size, its data pages'
	# num_values add up to its num_values
	[ "$(getfattr --only-values -n user.colfs.null_count "$MNT$c")" = \
	  "$(head -n 1000 "$MNT/columns/name" | grep -cx '\\N')" ] ||
		fail "null_count differs from the NULLs of columns/name"
	[ "$(getfattr --only-values -n user.colfs.compressed_size "$MNT$c")" = \
	  "$(stat -c %s "$MNT$c/raw")" ] || fail "compressed_size is not raw's size"
	local p sum=0
	for p in "$MNT$c"/pages/*; do
		case $(getfattr --only-values -n user.colfs.page_type "$p") in
		DATA_PAGE*) sum=$((sum + $(getfattr --only-values -n user.colfs.num_values "$p"))) ;;
		esac
	done
	[ "$sum" = 1000 ] || fail "the data pages' num_values add up to $sum"
	read_only "$MNT$c"
	read_only "$MNT/README"
	recursive
}

case_xattr_orc() {
	orc_file
	mount_file "$ORC"
	local s
	s=$(cd "$MNT/stripes/0/streams" && ls | grep -m1 -- '-DATA$') ||
		fail "no DATA stream in stripes/0/streams"
	checks "attrs / kind=dir format=orc problems=0" \
		"attrs /stripes/0 kind=stripe num_rows=* codec=ZLIB index_length=* data_length=* footer_length=* offset=* length=*" \
		"attrs /stripes/0/streams/$s kind=stream stream_kind=DATA column=* codec=ZLIB encoding=* offset=* length=*" \
		layout "errno /stripes/0"
	[ "$(getfattr --only-values -n user.colfs.offset "$MNT/stripes/0/streams/$s")" = \
	  "$(getfattr --only-values -n user.colfs.offset "$MNT/stripes/0/streams/$s/raw")" ] ||
		fail "stream and raw offsets differ"
	# num_rows is the stripe's lines of columns/, length its three parts
	[ "$(getfattr --only-values -n user.colfs.num_rows "$MNT/stripes/0")" = \
	  "$(wc -l < "$MNT/stripes/0/columns/int1")" ] ||
		fail "stripe num_rows differs from stripes/0/columns/int1"
	local a
	a=$(getfattr -d -m - --absolute-names "$MNT/stripes/0")
	[ "$(echo "$a" | sed -n 's/^user.colfs.length="\(.*\)"/\1/p')" = \
	  "$(($(echo "$a" | sed -n 's/^user.colfs.\(index\|data\|footer\)_length="\(.*\)"/\2/p' |
	     paste -sd+)))" ] || fail "stripe length is not index + data + footer"
	read_only "$MNT/stripes/0"
	recursive
}

case_xattr_cfile() {
	cfile
	mount_file "$WORK/i.cfile"
	checks "attrs / kind=dir format=cfile problems=0" \
		"attrs /blocks/0 kind=block type=INT64 encoding=BIT_SHUFFLE codec=LZ4 num_values=1000 offset=* length=* problems=0" \
		layout "errno /blocks/1"
	read_only "$MNT/blocks/0"
	recursive
}

case_xattr_recursive() {
	local c=/row_groups/0/chunks/name
	[ -n "${MKSAMPLE:-}" ] && [ -x "$MKSAMPLE" ] ||
		skip "colfs-mksample is not built"
	timeout "$T" "$MKSAMPLE" "$WORK/many.parquet" --rows 60000 \
		--row-groups 4 --page-rows 100 > /dev/null || fail "colfs-mksample"
	mount_file "$WORK/many.parquet"
	# generous: about 10 s on the shared machine (docs/performance.md,
	# "xattrs"); it only catches a walk that no longer ends
	local t0=$SECONDS
	timeout 600 getfattr -R -d -m - --absolute-names -e text "$MNT" \
		> "$WORK/all.txt" || fail "getfattr -R -d -m - $MNT: status $?"
	echo "getfattr -R: $((SECONDS - t0)) s"
	printf '%s\n' \
		"attrs / kind=dir path=/ format=parquet problems=0 size=$(stat -c %s "$WORK/many.parquet")" \
		"attrs /row_groups/0 kind=row_group num_rows=15000 chunks=5 compressed_size=* uncompressed_size=* problems=0" \
		"attrs $c kind=chunk column=name type=BYTE_ARRAY codec=UNCOMPRESSED encodings=PLAIN,RLE,RLE_DICTIONARY num_values=15000 null_count=* compressed_size=* uncompressed_size=* dictionary=yes offset=* length=*" \
		"attrs $c/pages/0 kind=page page_type=DICTIONARY_PAGE encoding=PLAIN num_values=* compressed_size=* crc=*" \
		"attrs $c/pages/150 kind=page page_type=DATA_PAGE num_values=100 encoding=*" \
		"attrs $c/raw kind=range path=$c/raw offset=* length=* problems=!" \
		"attrs /columns/id kind=view offset=!" \
		"attrs /README kind=document" \
		layout |
		timeout 300 python3 "$CHECK" dump "$MNT" "$WORK/all.txt" 250 ||
		fail "xattr-check.py dump"
}

svg_parses() {
	command -v xmllint >/dev/null ||
		skip "xmllint (Debian libxml2-utils) is not installed: tools/bootstrap.sh"
	timeout "$T" xmllint --noout "$1" || fail "xmllint: $1 does not parse"
}

case_layout_svg() {
	local off chrome
	sample
	mount_file "$SAMPLE"
	svg_parses "$MNT/layout.svg"
	svg_parses "$MNT/row_groups/1/layout.svg"
	checks "svg /" "svg /row_groups/1"
	# a healthy file: no region in the damage color
	! grep -q 'class="region[^"]*damaged' "$MNT/layout.svg" || fail "healthy file drawn damaged"
	off=$(getfattr --only-values -n user.colfs.offset \
		"$MNT/row_groups/0/chunks/name")
	timeout 10 fusermount3 -u "$MNT"
	if [ -n "${CFILE_WRITER:-}" ] && [ -x "$CFILE_WRITER" ]; then
		cfile
		mount_file "$WORK/i.cfile"
		svg_parses "$MNT/layout.svg"
		checks "svg /"
		timeout 10 fusermount3 -u "$MNT"
	fi
	if [ -s "${CORPUS:-/nonexistent}/orc/good/TestOrcFile.test1.orc" ]; then
		orc_file
		mount_file "$ORC"
		svg_parses "$MNT/stripes/0/layout.svg"
		checks "svg /" "svg /stripes/0"
		timeout 10 fusermount3 -u "$MNT"
	else
		echo "ORC part skipped: no corpus at $CORPUS"
	fi
	# gaps (alltypes_plain.parquet: 11) and overlaps (a bad file whose
	# footer claims a chunk's bytes: 4), each a region of its own
	local f n
	for f in parquet/good/alltypes_plain.parquet \
		parquet/bad/ARROW-RS-GH-6229-DICTHEADER.parquet; do
		[ -s "${CORPUS:-/nonexistent}/$f" ] ||
			{ echo "$f part skipped: no corpus at $CORPUS"; continue; }
		mount_file "$CORPUS/$f"
		svg_parses "$MNT/layout.svg"
		checks "svg /"
		n=$(grep -c ' \(gap\|overlap\) -$' "$MNT/layout")
		[ "$n" -ge 4 ] || fail "$f: $n gap and overlap lines in layout"
		echo "$f: $n gap and overlap lines drawn"
		timeout 10 fusermount3 -u "$MNT"
	done
	# made without decoding data: the sample with the values of name's
	# page 1 flipped (its CRC fails only when decoded); on a fresh
	# mount layout.svg, layout and the xattrs of the row group, chunk,
	# pages and raw leave errors empty, and the damage is there
	# (columns/name fails, errors names the page).  (Not getfattr -R:
	# its lstat of each view sizes a small file's views by decoding
	# them, as ls -l does: "Sizes".)
	local p hl poff
	p=$(mktemp -d "$WORK/x.XXXXXX")
	mount_file "$SAMPLE"
	poff=$(getfattr --only-values -n user.colfs.offset "$MNT/row_groups/0/chunks/name/pages/1")
	hl=$(getfattr --only-values -n user.colfs.header_length "$MNT/row_groups/0/chunks/name/pages/1")
	timeout 10 fusermount3 -u "$MNT"
	cp "$SAMPLE" "$p/data.parquet"
	printf '\377\377\377\377' |
		dd of="$p/data.parquet" bs=1 seek=$((poff + hl + 4)) conv=notrunc status=none
	mount_file "$p/data.parquet"
	svg_parses "$MNT/layout.svg"
	timeout "$T" cat "$MNT/layout" "$MNT/row_groups/0/layout.svg" > /dev/null
	timeout "$T" getfattr -d -m - "$MNT" "$MNT/row_groups/0" \
		"$MNT/row_groups/0/chunks/name" "$MNT/row_groups/0/chunks/name/raw" \
		"$MNT"/row_groups/0/chunks/name/pages/* > /dev/null 2>&1 || fail "getfattr -d"
	[ ! -s "$MNT/errors" ] || fail "layout.svg or xattrs decoded data: $(cat "$MNT/errors")"
	! timeout "$T" cat "$MNT/columns/name" > /dev/null 2>&1 || fail "columns/name read past the damage"
	grep -q '^/row_groups/0/chunks/name/pages/1: ' "$MNT/errors" ||
		fail "errors does not name the damaged page: $(cat "$MNT/errors")"
	echo "layout.svg and xattrs of a data-damaged file: nothing decoded"
	timeout 10 fusermount3 -u "$MNT"
	# the sample with its name chunk's first page header overwritten
	cp "$SAMPLE" "$WORK/bad.parquet"
	printf '\377\377\377\377\377\377\377\377' |
		dd of="$WORK/bad.parquet" bs=1 seek="$off" conv=notrunc \
			status=none
	mount_file "$WORK/bad.parquet"
	ls "$MNT/row_groups/0/chunks/name/pages" > /dev/null
	[ "$(getfattr --only-values -n user.colfs.problems \
		"$MNT/row_groups/0/chunks/name")" -ge 1 ] ||
		fail "the damaged chunk has no problems"
	cp "$MNT/layout.svg" "$WORK/bad.svg"
	svg_parses "$WORK/bad.svg"
	checks "svg /"
	grep -q 'class="region part damaged"[^>]*><title>/row_groups/0/chunks/name/raw ' \
		"$WORK/bad.svg" || fail "the damaged chunk is not drawn damaged"
	chrome=$(command -v chromium || true)
	[ -n "$chrome" ] ||
		skip "chromium is not installed (tools/bootstrap.sh): the picture is not checked"
	# As root Chromium runs only without its sandbox; a profile of our own.
	HOME=$WORK timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --disable-extensions \
		--disable-dev-shm-usage --user-data-dir="$WORK/chrome" \
		--window-size=1240,260 --screenshot="$WORK/bad.png" \
		"file://$WORK/bad.svg" > "$WORK/chrome.log" 2>&1 ||
		{ cat "$WORK/chrome.log" >&2; fail "chromium --screenshot"; }
	check png "$WORK/bad.png" yes
}

fn="case_${CASE//-/_}"
declare -F "$fn" > /dev/null || fail "unknown case $CASE"
"$fn"

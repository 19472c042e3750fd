#!/bin/bash
# tests/dataset: the sizes of a dataset's views (docs/tree.md, "Sizes";
# docs/dataset-tree.md), one case per meson test.
#
#   sizes-test.sh CASE      (COLFS in the environment)
#
# copy   tar, rsync -a and cp -r, each of its own fresh mount
#        (size_index=off: nothing known but what a stat learns), of a
#        small Hive dataset DuckDB writes and of one of its files: the
#        three copies are byte for byte the same, and every view has its
#        size at its first stat (sizes=auto), none with -o sizes=lazy
# large  a dataset whose big file is past the 4 MiB a stat may decode: a
#        stat of its root views decodes nothing (size 0, in well under
#        the time a decode takes), while partitions/ of its small file
#        (the files a view reads are what counts) has its sizes at once
# Skips (77) with a message without DuckDB (npm), FUSE, tar or rsync.
# Every mount is undone by a trap; every command runs under `timeout`.
set -euo pipefail

CASE=${1:?usage: sizes-test.sh CASE}
: "${COLFS:?COLFS is not set}"
here=$(cd "$(dirname "$0")" && pwd)
T=60
. "$here/../need.sh"
# $WORK made; on exit the mount undone, its daemon given up to 10 s to
# write nothing more under $WORK, and $WORK removed
. "$here/../mount-cleanup.sh" colfs-dataset-sizes
MNT=$WORK/mnt
mkdir -p "$MNT"

need_fuse
command -v tar > /dev/null || skip "tar is not installed"
command -v rsync > /dev/null || skip "rsync is not installed (tools/bootstrap.sh)"
sh "$here/../values/duckdb-setup.sh" || exit $?
timeout 120 node "$here/sizes.mjs" "$WORK" || fail "DuckDB could not write the datasets"

mount_it() { # SOURCE [OPTIONS]
	timeout $T "$COLFS" -o "size_index=off${2:+,$2}" "$1" "$MNT" || fail "mount $1"
}
umount_it() {
	timeout $T fusermount3 -u "$MNT" || fail "unmount"
	daemon_gone || fail "the daemon did not exit after the unmount"
}

# copy_each SOURCE LABEL: cp -r, tar and rsync -a of a fresh mount each,
# compared byte for byte with cp -r's copy.
copy_each() {
	local src=$1 label=$2 tool out
	for tool in cp tar rsync; do
		out=$WORK/$label-$tool
		mkdir "$out"
		mount_it "$src"
		case $tool in
		cp) timeout 300 cp -r "$MNT/." "$out/" || fail "$label: cp -r" ;;
		tar)
			timeout 300 tar cf "$WORK/$label.tar" -C "$MNT" . || fail "$label: tar cf"
			tar xf "$WORK/$label.tar" -C "$out" || fail "$label: tar xf" ;;
		rsync) timeout 300 rsync -a "$MNT/" "$out/" || fail "$label: rsync -a" ;;
		esac
		umount_it
	done
	for tool in tar rsync; do
		diff -r "$WORK/$label-cp" "$WORK/$label-$tool" > "$WORK/diff" 2>&1 ||
			fail "$label: $tool's copy differs from cp -r's: $(head -c 600 "$WORK/diff")"
	done
	[ -s "$WORK/$label-cp/rows.jsonl" ] || fail "$label: cp -r copied an empty rows.jsonl"
	echo "ok: $label: tar and rsync -a copy what cp -r copies ($(find "$WORK/$label-cp" -type f | wc -l) files)"
}

case $CASE in
copy)
	D=$WORK/small
	# a fresh mount: every view of the root and of a partition has its
	# size at its first stat, the number of bytes a read gives
	mount_it "$D"
	for v in rows.jsonl rows.csv summary schema columns/id columns/name \
		columns/price columns/k columns/j partitions/k=1/rows.jsonl \
		partitions/k=1/partitions/j=y/columns/name; do
		s=$(timeout $T stat -c %s "$MNT/$v") || fail "stat $v"
		[ "$s" -gt 0 ] || fail "$v: size $s at its first stat"
		[ "$(timeout $T cat "$MNT/$v" | wc -c)" = "$s" ] || fail "$v: size $s, cat gives other bytes"
	done
	n=$(timeout $T cat "$MNT/rows.jsonl" | wc -l)
	[ "$n" = 240 ] || fail "rows.jsonl: $n rows"
	e=$(timeout $T cat "$MNT/errors") || fail "errors unreadable"
	[ -z "$e" ] || fail "errors: $e"
	umount_it
	# -o sizes=lazy: a stat decodes nothing
	mount_it "$D" sizes=lazy
	s=$(timeout $T stat -c %s "$MNT/rows.jsonl" "$MNT/columns/id" "$MNT/summary" | tr '\n' ' ')
	[ "$s" = "0 0 0 " ] || fail "sizes=lazy: sizes at a stat: $s"
	umount_it
	copy_each "$D" dataset
	copy_each "$D/k=1/j=y/b.parquet" file
	;;
large)
	D=$WORK/large
	big=$(stat -c %s "$D/k=1/big.parquet")
	[ "$big" -gt $((4 << 20)) ] || fail "the big file has only $big bytes"
	mount_it "$D"
	t0=$(date +%s%N)
	sizes=$(timeout $T stat -c %s "$MNT/rows.jsonl" "$MNT/rows.csv" "$MNT/columns/id" \
		"$MNT/columns/name" "$MNT/columns/k" "$MNT/summary" "$MNT/schema" | tr '\n' ' ')
	t1=$(date +%s%N)
	[ "$sizes" = "0 0 0 0 0 0 0 " ] || fail "a stat decoded a view of $big bytes of files: sizes $sizes"
	# the small partition's views: sized at their first stat
	for v in rows.jsonl columns/name summary; do
		s=$(timeout $T stat -c %s "$MNT/partitions/k=2/$v")
		[ "$s" -gt 0 ] || fail "partitions/k=2/$v: size $s at its first stat"
		[ "$(timeout $T cat "$MNT/partitions/k=2/$v" | wc -c)" = "$s" ] ||
			fail "partitions/k=2/$v: size $s, cat gives other bytes"
	done
	[ "$(timeout $T stat -c %s "$MNT/partitions/k=1/rows.jsonl")" = 0 ] ||
		fail "partitions/k=1/rows.jsonl (the big file) sized at a stat"
	# read once, a view has its size
	n=$(timeout $T cat "$MNT/columns/name" | wc -c)
	[ "$(timeout $T stat -c %s "$MNT/columns/name")" = "$n" ] || fail "columns/name: size after a read"
	t2=$(date +%s%N)
	umount_it
	echo "ok: a dataset of $big bytes: 7 stats of its root views in $(( (t1 - t0) / 1000000 )) ms decode nothing (reading columns/name took $(( (t2 - t1) / 1000000 )) ms with the rest); its small partition is sized at stat"
	;;
*)
	fail "unknown case $CASE"
	;;
esac

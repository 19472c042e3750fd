#!/bin/bash
# tests/dataset: what a dataset's listing takes and refuses
# (docs/dataset-tree.md, "Which files"), one case per meson test.
#
#   listing-test.sh CASE   (COLFS, COLFS_TOOL, MKSAMPLE in the environment)
#
# mountpoint  a mount point inside the directory, or the directory
#             inside the mount point: refused at mount, nothing mounted;
#             a link in the directory to the mount point: not followed
#             (the mount reads, the link named in errors), nor with
#             -o follow_links, which follows one to another folder;
#             another mount inside the directory: not entered, named in
#             errors
# loop        `ln -s . loop` and a link cycle: skipped and named in
#             errors; summary, errors and rows.jsonl read (colfs-tool and
#             a mount), the rows those of the files
# depth       a file added to and another removed from year=2024/ of a
#             mounted Hive dataset: every view then answers EIO and
#             summary names the folder, never the removed file's rows; a
#             new mount shows the new set
# foreign     Hudi (.hoodie/) and Paimon directories refused naming the
#             format; an Iceberg directory whose metadata cannot be read
#             refused naming its metadata file, never read as plain files
# silent      -o version=N on a Parquet file and on a plain dataset
#             refused; a 0-byte .parquet and a dangling link named in
#             errors and counted; a folder of a CSV file refused as an
#             empty one is, naming what it holds
# Every mount's daemon runs in the foreground of a background job: the
# trap kills it by its pid (a daemon that hangs ignores SIGTERM) and
# unmounts; every command runs under `timeout`.
set -euo pipefail

CASE=${1:?usage: listing-test.sh CASE}
: "${COLFS:?COLFS is not set}" "${COLFS_TOOL:?COLFS_TOOL is not set}"
: "${MKSAMPLE:?MKSAMPLE is not set}"
T=20
WORK=$(mktemp -d /tmp/colfs-listing-test.XXXXXX)
export XDG_CACHE_HOME=$WORK/cache
PIDS=()
MNTS=()
# A daemon that waits on its own mount (a listing of the mount point)
# does not end even by SIGKILL: its FUSE connection is aborted first,
# where the kernel's fusectl is mounted.
abort_fuse() { # MOUNTPOINT
	local dev
	dev=$(awk -v m="$1" '$5 == m && / - fuse/ { print $3; exit }' /proc/self/mountinfo)
	[ -n "$dev" ] || return 0
	[ -w "/sys/fs/fuse/connections/${dev#*:}/abort" ] &&
		echo 1 > "/sys/fs/fuse/connections/${dev#*:}/abort" 2>/dev/null || true
}
cleanup() {
	local p m i
	for m in "${MNTS[@]}"; do
		mounted "$m" && abort_fuse "$m"
	done
	for p in "${PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for m in "${MNTS[@]}"; do
		if mounted "$m"; then
			timeout 10 fusermount3 -u -z "$m" 2>/dev/null || true
		fi
	done
	# (no `wait`: a daemon stuck on its own mount never ends)
	for p in "${PIDS[@]}"; do
		for i in $(seq 1 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
	done
	rm -rf "$WORK" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
tool() { timeout $T "$COLFS_TOOL" "$@"; }
sample() { timeout $T "$MKSAMPLE" "$1" --rows "$2" --row-groups 1 > /dev/null; }
need_fuse() {
	[ -c /dev/fuse ] || skip "/dev/fuse is not available"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
}
mounted() { grep -qs " $1 fuse" /proc/self/mounts; }
# mount SOURCE MOUNTPOINT [OPTIONS...]: the daemon in the foreground of
# a background job; 0 once mounted, 1 when the daemon ended first (its
# messages in $WORK/mount.err)
mount_bg() {
	local src=$1 mnt=$2 i
	shift 2
	MNTS+=("$mnt")
	# (its output not on ours: a daemon that never ends would hold it)
	"$COLFS" -f "$@" "$src" "$mnt" > /dev/null 2> "$WORK/mount.err" &
	PIDS+=($!)
	for i in $(seq 1 100); do
		mounted "$mnt" && return 0
		kill -0 "${PIDS[-1]}" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
unmount() {
	timeout $T fusermount3 -u "$1" || fail "unmount $1"
	timeout $T tail --pid="${PIDS[-1]}" -f /dev/null || true
}

case $CASE in
mountpoint)
	need_fuse
	D=$WORK/d
	mkdir -p "$D/inner" "$WORK/m"
	sample "$D/a.parquet" 10
	# inside the directory: refused, with a word, nothing mounted
	if mount_bg "$D" "$D/inner"; then
		timeout -s KILL 5 cat "$D/inner/summary" > /dev/null 2>&1 || true
		fail "a mount point inside the directory was mounted"
	fi
	grep -q "MOUNTPOINT is inside the directory" "$WORK/mount.err" ||
		fail "mount inside: $(cat "$WORK/mount.err")"
	# the directory inside the mount point: refused too
	if mount_bg "$D" "$WORK"; then
		fail "a mount point holding the directory was mounted"
	fi
	grep -q "is inside MOUNTPOINT" "$WORK/mount.err" ||
		fail "mount around: $(cat "$WORK/mount.err")"
	# a link in the directory to the mount point: not followed, so the
	# views read (no wait on the mount itself) and errors names it
	ln -s "$WORK/m" "$D/to-mount"
	ln -s "$WORK/m/files" "$D/into-mount"
	mount_bg "$D" "$WORK/m" || fail "mount: $(cat "$WORK/mount.err")"
	timeout -s KILL 10 cat "$WORK/m/summary" > "$WORK/summary" ||
		fail "summary of a directory linking to its mount point"
	grep -qx 'files: 1 (parquet 1, orc 0, cfile 0)' "$WORK/summary" ||
		fail "summary: $(cat "$WORK/summary")"
	timeout -s KILL 10 cat "$WORK/m/errors" > "$WORK/errors" || fail "errors"
	grep -q '^/files/to-mount: .*symbolic link to .*, into this mount: not followed' "$WORK/errors" &&
		grep -q '^/files/into-mount: .*symbolic link to .*/files, into this mount: not followed' "$WORK/errors" ||
		fail "errors: $(cat "$WORK/errors")"
	[ "$(timeout -s KILL 10 cat "$WORK/m/rows.jsonl")" = "$(tool cat "$D/a.parquet" rows.jsonl)" ] ||
		fail "rows.jsonl"
	unmount "$WORK/m"
	rm "$D/into-mount"
	# -o follow_links: a link out of the directory followed, never one
	# into the mount itself
	mkdir "$WORK/far"
	sample "$WORK/far/e.parquet" 4
	ln -s "$WORK/far" "$D/far"
	[ "$(tool ls "$D" files)" = a.parquet ] || fail "a link out of the directory followed without -o follow_links"
	tool cat "$D" errors | grep -q "^/files/far: .*out of the dataset's directory: not followed (-o follow_links follows it)" ||
		fail "errors without follow_links: $(tool cat "$D" errors)"
	mount_bg "$D" "$WORK/m" -o follow_links || fail "mount -o follow_links: $(cat "$WORK/mount.err")"
	timeout -s KILL 10 cat "$WORK/m/summary" > "$WORK/summary" || fail "summary with follow_links"
	grep -qx 'files: 2 (parquet 2, orc 0, cfile 0)' "$WORK/summary" || fail "follow_links summary: $(cat "$WORK/summary")"
	[ "$(timeout -s KILL 10 cat "$WORK/m/files/far/e.parquet/columns/id")" = "$(tool cat "$WORK/far/e.parquet" columns/id)" ] ||
		fail "follow_links: files/far/e.parquet"
	timeout -s KILL 10 cat "$WORK/m/errors" | grep -q '^/files/to-mount: .*symbolic link to .*, into this mount: not followed' ||
		fail "follow_links errors: $(timeout -s KILL 10 cat "$WORK/m/errors")"
	unmount "$WORK/m"
	rm "$D/to-mount" "$D/far"
	# another filesystem mounted inside the directory (here a mount of
	# a file by colfs): not entered
	sample "$WORK/other.parquet" 5
	mount_bg "$WORK/other.parquet" "$D/inner" || fail "mount of a file: $(cat "$WORK/mount.err")"
	tool ls "$D" files > "$WORK/ls"
	[ "$(cat "$WORK/ls")" = a.parquet ] || fail "files/ enters a mount point: $(cat "$WORK/ls")"
	tool cat "$D" errors | grep -q '^/files/inner: .*a mount point (another filesystem): not entered' ||
		fail "errors: $(tool cat "$D" errors)"
	unmount "$D/inner"
	echo "ok: mount points inside the directory refused or not entered, links to the mount point not followed"
	;;
loop)
	D=$WORK/d
	mkdir -p "$D/x" "$D/y"
	sample "$D/a.parquet" 10
	sample "$D/x/b.parquet" 7
	ln -s . "$D/loop"
	ln -s .. "$D/x/up"
	# a cycle of two links: each followed once, until it comes back
	# to a folder it is inside
	ln -s ../y "$D/x/to-y"
	ln -s ../x "$D/y/to-x"
	check() { # READ: a command reading a view
		"$@" summary > "$WORK/summary" || fail "summary of a dataset with a loop"
		grep -qx 'files: 3 (parquet 3, orc 0, cfile 0)' "$WORK/summary" &&
			grep -qx 'rows: 24' "$WORK/summary" ||
			fail "summary: $(cat "$WORK/summary")"
		"$@" errors > "$WORK/errors" || fail "errors of a dataset with a loop"
		grep -q '^/files/loop: .*symbolic link loop (to \.' "$WORK/errors" ||
			fail "errors: $(cat "$WORK/errors")"
		grep -q '^/files/x/up: .*symbolic link loop (to \.\.,' "$WORK/errors" &&
			grep -q '^/files/x/to-y/to-x: .*symbolic link loop (to \.\./x,' "$WORK/errors" &&
			grep -q '^/files/y/to-x/to-y: .*symbolic link loop (to \.\./y,' "$WORK/errors" ||
			fail "errors (the cycle): $(cat "$WORK/errors")"
		# x/b.parquet, and again as y/to-x/b.parquet
		[ "$("$@" rows.jsonl)" = "$(tool cat "$D/a.parquet" rows.jsonl; tool cat "$D/x/b.parquet" rows.jsonl; tool cat "$D/x/b.parquet" rows.jsonl)" ] ||
			fail "rows.jsonl: $("$@" rows.jsonl | head -3)"
	}
	check tool cat "$D"
	need_fuse
	mkdir "$WORK/m"
	mount_bg "$D" "$WORK/m" || fail "mount: $(cat "$WORK/mount.err")"
	mcat() { timeout -s KILL $T cat "$WORK/m/$1"; }
	check mcat
	unmount "$WORK/m"
	echo "ok: symbolic link loops skipped and named in errors, the rest read"
	;;
depth)
	need_fuse
	D=$WORK/d
	mkdir -p "$D/year=2024" "$D/year=2025" "$WORK/m"
	sample "$D/year=2024/a.parquet" 10
	sample "$D/year=2024/b.parquet" 20
	sample "$D/year=2025/c.parquet" 5
	sample "$WORK/d.parquet" 3
	mount_bg "$D" "$WORK/m" || fail "mount: $(cat "$WORK/mount.err")"
	m=$WORK/m
	[ "$(timeout $T cat "$m/rows.jsonl" | wc -l)" = 35 ] || fail "rows.jsonl before"
	timeout $T cat "$m/summary" | grep -qx 'rows: 35' || fail "summary before"
	timeout $T cat "$m/columns/id" > /dev/null || fail "columns/id before"
	# below the top folder: one added, one removed
	mv "$WORK/d.parquet" "$D/year=2024/d.parquet"
	rm "$D/year=2024/b.parquet"
	for v in rows.jsonl rows.csv columns/id schema; do
		if timeout $T cat "$m/$v" > "$WORK/out" 2> "$WORK/err"; then
			fail "$v after the change: read $(wc -l < "$WORK/out") lines"
		fi
		grep -q 'Input/output error' "$WORK/err" || fail "$v: $(cat "$WORK/err")"
	done
	timeout $T cat "$m/summary" > "$WORK/summary" || fail "summary after the change"
	grep -q '^source changed since mount (folder year=2024: .*): remount$' "$WORK/summary" ||
		fail "summary: $(cat "$WORK/summary")"
	timeout $T cat "$m/errors" | grep -q '^/: .*source changed since mount (folder year=2024' ||
		fail "errors: $(timeout $T cat "$m/errors")"
	unmount "$m"
	# a new mount: the new set
	mount_bg "$D" "$m" || fail "remount: $(cat "$WORK/mount.err")"
	[ "$(timeout $T cat "$m/rows.jsonl" | wc -l)" = 18 ] || fail "rows.jsonl after remount"
	[ "$(timeout $T cat "$m/files/year=2024/d.parquet/columns/id")" = "$(tool cat "$D/year=2024/d.parquet" columns/id)" ] ||
		fail "files/ after remount"
	unmount "$m"
	echo "ok: a change below the top folder makes every view answer EIO, summary and errors say where; a new mount shows the new set"
	;;
foreign)
	D=$WORK/ice
	mkdir -p "$D/data" "$D/metadata"
	sample "$D/data/a.parquet" 10
	echo '{"format-version": 2}' > "$D/metadata/v1.metadata.json"
	refused() { # DIR WORD
		if tool ls "$1" > "$WORK/out" 2> "$WORK/err"; then
			fail "$1 was read as a plain dataset: $(cat "$WORK/out")"
		fi
		grep -q "$2" "$WORK/err" && grep -q 'not supported yet' "$WORK/err" ||
			fail "$1: $(cat "$WORK/err")"
	}
	# an Iceberg table (formats/dataset/iceberg) whose metadata has no
	# location: refused naming the file, never read as plain files
	if tool ls "$D" > "$WORK/out" 2> "$WORK/err"; then
		fail "$D was read: $(cat "$WORK/out")"
	fi
	grep -q 'metadata/v1.metadata.json: no location' "$WORK/err" ||
		fail "$D: $(cat "$WORK/err")"
	H=$WORK/hudi
	mkdir -p "$H/.hoodie" "$H/p=1"
	sample "$H/p=1/a.parquet" 10
	refused "$H" 'an Apache Hudi table (.hoodie/)'
	P=$WORK/paimon
	mkdir -p "$P/snapshot" "$P/schema" "$P/bucket-0"
	: > "$P/snapshot/snapshot-1"
	: > "$P/schema/schema-0"
	sample "$P/bucket-0/data-1.parquet" 10
	refused "$P" 'an Apache Paimon table'
	if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
		mkdir "$WORK/m"
		if mount_bg "$D" "$WORK/m"; then
			fail "an Iceberg table without a location was mounted"
		fi
		grep -q 'metadata/v1.metadata.json: no location' "$WORK/mount.err" ||
			fail "mount: $(cat "$WORK/mount.err")"
	fi
	echo "ok: Hudi and Paimon directories refused, an unreadable Iceberg table named"
	;;
silent)
	F=$WORK/a.parquet
	sample "$F" 10
	D=$WORK/d
	mkdir -p "$D/p"
	sample "$D/p/a.parquet" 10
	for src in "$F" "$D"; do
		if tool -o version=1 ls "$src" > "$WORK/out" 2> "$WORK/err"; then
			fail "-o version=1 on $src accepted"
		fi
		grep -q -- '-o version=1 applies to Delta tables' "$WORK/err" ||
			fail "-o version=1 on $src: $(cat "$WORK/err")"
	done
	# a 0-byte .parquet and a dangling link: named in errors, counted
	: > "$D/p/empty.parquet"
	ln -s gone.parquet "$D/p/dangling.parquet"
	tool cat "$D" errors > "$WORK/errors"
	grep -qx '/files/p/empty.parquet: offset unknown: truncated: empty file (0 bytes): not shown' "$WORK/errors" &&
		grep -q '^/files/p/dangling.parquet: offset unknown: not found: dangling symbolic link (to gone.parquet' "$WORK/errors" ||
		fail "errors: $(cat "$WORK/errors")"
	tool cat "$D" summary > "$WORK/summary"
	grep -qx 'files: 1 (parquet 1, orc 0, cfile 0)' "$WORK/summary" &&
		grep -qx 'problems: 2 (see errors)' "$WORK/summary" ||
		fail "summary: $(cat "$WORK/summary")"
	# only a CSV file, or nothing: refused alike, saying what is there
	mkdir "$WORK/csv" "$WORK/empty"
	printf 'a,b\n1,2\n' > "$WORK/csv/x.csv"
	for c in csv:'(1 other file: x.csv)' empty:"(no files: names starting with '.' or '_' are skipped)"; do
		if tool ls "$WORK/${c%%:*}" > "$WORK/out" 2> "$WORK/err"; then
			fail "${c%%:*}: mounted: $(cat "$WORK/out")"
		fi
		grep -qF "no Parquet, ORC or CFile file in this directory ${c#*:}" "$WORK/err" ||
			fail "${c%%:*}: $(cat "$WORK/err")"
	done
	if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
		mkdir "$WORK/m"
		for src in "$F" "$D"; do
			if mount_bg "$src" "$WORK/m" -o version=1; then
				fail "-o version=1 on $src mounted"
			fi
			grep -q -- '-o version=1 applies to Delta tables' "$WORK/mount.err" ||
				fail "mount -o version=1 $src: $(cat "$WORK/mount.err")"
		done
		if mount_bg "$WORK/csv" "$WORK/m"; then
			fail "a folder of a CSV file was mounted"
		fi
	fi
	echo "ok: -o version on a non-Delta source, empty files, dangling links and a folder of a CSV file said"
	;;
*)
	fail "unknown case $CASE"
	;;
esac

#!/bin/bash
# tests/fs: the colfs daemon, one case per meson test.
#
#   fs-test.sh CASE
#
# Environment (set by tests/fs/meson.build):
#   COLFS          the built daemon
#   COLFS_TOOL     colfs-tool, when it is built (crosscheck cases,
#                  decode-once)
#   SAMPLE         a Parquet file written by colfs-mksample (may be unset)
#   CORPUS         the third-party corpus (may not exist)
#
# Every case that mounts: runs each command under `timeout`, and a trap
# always unmounts (fusermount3 -u -z) and kills the daemons it started, so
# a failing case never leaves a mount behind nor hangs CI.  Exit 77 (skip)
# with a message when FUSE or the input is not available.
set -euo pipefail

CASE=${1:?usage: fs-test.sh CASE}
: "${COLFS:?COLFS is not set}"
T=${TEST_TIMEOUT:-20}     # seconds for any one command

WORK=$(mktemp -d /tmp/colfs-fs-test.XXXXXX)
# The size index goes to $XDG_CACHE_HOME/colfs: keep it in the work
# directory, never in the user's cache.
export XDG_CACHE_HOME=$WORK/cache
MOUNTS=()                 # mount points to unmount at exit
PIDS=()                   # daemons to kill at exit

cleanup() {
	local m p
	for m in "${MOUNTS[@]+"${MOUNTS[@]}"}"; do
		if is_mounted "$m"; then
			timeout 10 fusermount3 -u -z "$m" 2>/dev/null ||
				timeout 10 umount -l "$m" 2>/dev/null || true
		fi
	done
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	# copies of the read-only tree (cp -a, tar) keep r-x directories
	chmod -R u+w "$WORK" 2>/dev/null || true
	rm -rf "$WORK" 2>/dev/null || true
}
trap cleanup EXIT
# meson's timeout ends a test with SIGTERM: leave through the EXIT trap.
trap 'exit 143' TERM INT HUP

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

is_mounted() {
	# /proc/self/mounts escapes spaces as \040; our paths have none.
	grep -qs " $1 fuse" /proc/self/mounts
}

need_fuse() {
	[ -c /dev/fuse ] || skip "/dev/fuse is not available"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
}

# A Parquet file to mount: the sample, else one from the corpus (copied to
# the work directory when the case changes its owner or mode).
pick_parquet() {
	if [ -n "${SAMPLE:-}" ] && [ -s "$SAMPLE" ]; then
		echo "$SAMPLE"
	elif [ -s "${CORPUS:-/nonexistent}/parquet/good/alltypes_plain.parquet" ]; then
		echo "$CORPUS/parquet/good/alltypes_plain.parquet"
	else
		skip "no Parquet input: neither the colfs-mksample sample nor the corpus ($CORPUS)"
	fi
}

# Is the format module there?  Until it is registered, every file is
# refused, and the mount cases have nothing to mount.
need_mountable() {
	local out
	if ! out=$(timeout "$T" "$COLFS" "$1" "$WORK/probe-nonexistent-dir" 2>&1); then
		case "$out" in
		*"not a Parquet"*|*"not a supported"*)
			skip "the Parquet module is not registered yet: $out" ;;
		esac
	fi
}

# Make a mount point and register it for the exit trap.  It sets NEWMNT
# rather than printing the name: a $(...) would run in a subshell and the
# registration would be lost.
newmnt() {
	NEWMNT=$(mktemp -d "$WORK/mnt.XXXXXX")
	MOUNTS+=("$NEWMNT")
}

wait_mounted() {
	local i
	for i in $(seq 1 100); do
		is_mounted "$1" && return 0
		sleep 0.1
	done
	return 1
}

wait_unmounted() {
	local i
	for i in $(seq 1 100); do
		is_mounted "$1" || return 0
		sleep 0.1
	done
	return 1
}

wait_gone() {
	local i
	for i in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# Mount in the background (daemon mode, the default): returns when the
# daemon has mounted, as colfs promises.
mount_bg() { # FILE MNT [options...]
	timeout "$T" "$COLFS" "$@" || fail "colfs $* exited with $?"
	is_mounted "$2" || fail "colfs returned but $2 is not mounted"
}

# Mount in the foreground as a child of this shell; sets FGPID.  The child
# gets SIGINT, SIGHUP and SIGTERM back (a background job of a script
# starts with SIGINT ignored, a run under nohup with SIGHUP ignored, and
# libfuse only installs its handlers over the default).
mount_fg() { # FILE MNT [options...]
	env --default-signal=INT,HUP,TERM "$COLFS" -f "$@" &
	FGPID=$!
	PIDS+=("$FGPID")
	wait_mounted "$2" || fail "colfs -f $* did not mount within 10 s"
}

umount_fuse() {
	timeout "$T" fusermount3 -u "$1" || fail "fusermount3 -u $1 failed"
}

# --- refusal ------------------------------------------------------------------

# colfs FILE MNT must exit non-zero with one line "colfs: FILE: reason"
# naming the file, and leave nothing mounted.
expect_refused() { # FILE WORDS-EXPECTED-IN-REASON
	local file=$1 reason=$2 mnt out rc=0
	newmnt; mnt=$NEWMNT
	out=$(timeout "$T" "$COLFS" "$file" "$mnt" 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || fail "colfs accepted $file"
	[ "$rc" -ne 124 ] || fail "colfs hung on $file"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
		fail "expected one line for $file, got: $out"
	case "$out" in
	"colfs: $file: "*) ;;
	*) fail "message does not start with 'colfs: $file: ': $out" ;;
	esac
	case "$out" in
	*"$reason"*) ;;
	*) fail "message for $file does not say '$reason': $out" ;;
	esac
	! is_mounted "$mnt" || fail "$file: something got mounted"
	echo "ok: $out"
}

case_refuse_text() {
	printf 'id,name\n1,alice\n2,bob\n' > "$WORK/table.csv"
	expect_refused "$WORK/table.csv" "text file"
}

case_refuse_empty() {
	: > "$WORK/empty.parquet"
	expect_refused "$WORK/empty.parquet" "empty"
}

case_refuse_missing() {
	expect_refused "$WORK/no-such-file.parquet" "No such file"
}

case_refuse_dir() {
	mkdir "$WORK/adir"
	expect_refused "$WORK/adir" "directory"
}

case_refuse_binary() {
	head -c 4096 /dev/zero | tr '\0' '\377' > "$WORK/junk.bin"
	expect_refused "$WORK/junk.bin" "not a"
}

# A file the user may not read.  Root reads everything, so as root the
# daemon runs as nobody (setpriv) for this case.
case_refuse_unreadable() {
	local run=()
	printf 'PAR1' > "$WORK/secret.parquet"
	chmod 0000 "$WORK/secret.parquet"
	chmod 0755 "$WORK"
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv > /dev/null || skip "setpriv is not installed"
		run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	# A checkout under /root (mode 0700) hides the build from nobody: run
	# a copy of the daemon (it links no library of the build tree).
	local colfs=$COLFS
	if [ "${#run[@]}" -gt 0 ] && ! "${run[@]}" test -x "$colfs"; then
		cp "$COLFS" "$WORK/colfs-copy" && chmod 0755 "$WORK/colfs-copy" ||
			fail "cannot copy $COLFS"
		colfs=$WORK/colfs-copy
		"${run[@]}" test -x "$colfs" || fail "user nobody cannot run $colfs"
	fi
	local mnt out rc=0
	newmnt; mnt=$NEWMNT
	chmod 0777 "$mnt"
	out=$(timeout "$T" "${run[@]+"${run[@]}"}" "$colfs" "$WORK/secret.parquet" "$mnt" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "unreadable file: exit $rc: $out"
	[ "$out" = "colfs: $WORK/secret.parquet: Permission denied" ] ||
		fail "unreadable file: $out"
	! is_mounted "$mnt" || fail "something got mounted"
	echo "ok: $out"
}

# A FIFO must be refused at once, not block the open waiting for a writer.
case_refuse_fifo() {
	mkfifo "$WORK/pipe.parquet"
	expect_refused "$WORK/pipe.parquet" "not a regular file"
}

# A bad option is refused before the file is even opened; so are missing
# and extra arguments.  --help and --version answer 0.
case_usage() {
	local mnt out rc
	newmnt; mnt=$NEWMNT
	out=$(timeout "$T" "$COLFS" --help) || fail "--help exited non-zero"
	for w in "FILE|DIR|URL MOUNTPOINT" "DIR   a directory" "Delta Lake table" "s3://bucket/prefix/" "null=" "max_alloc=" "-f" "-s" "-d" "allow_other"; do
		case "$out" in *"$w"*) ;; *) fail "--help does not mention $w" ;; esac
	done
	out=$(timeout "$T" "$COLFS" -V) || fail "-V exited non-zero"
	case "$out" in "colfs 0."*) ;; *) fail "-V: $out" ;; esac
	out=$(timeout "$T" "$COLFS" --version) || fail "--version exited non-zero"

	rc=0; out=$(timeout "$T" "$COLFS" -o no_such_option=1 /etc/hostname "$mnt" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "unknown option: exit $rc"
	case "$out" in *no_such_option*) ;; *) fail "unknown option not named: $out" ;; esac

	rc=0; out=$(timeout "$T" "$COLFS" -o max_alloc=lots /etc/hostname "$mnt" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "bad option value: exit $rc"
	case "$out" in *max_alloc=lots*) ;; *) fail "bad value not named: $out" ;; esac

	rc=0; out=$(timeout "$T" "$COLFS" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "no arguments: exit $rc"
	case "$out" in *usage*) ;; *) fail "no arguments: $out" ;; esac

	rc=0; out=$(timeout "$T" "$COLFS" /etc/hostname 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "no mount point: exit $rc"
	case "$out" in *MOUNTPOINT*) ;; *) fail "no mount point: $out" ;; esac

	rc=0; out=$(timeout "$T" "$COLFS" /etc/hostname "$mnt" extra 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "extra argument: exit $rc"
	case "$out" in *extra*) ;; *) fail "extra argument not named: $out" ;; esac

	! is_mounted "$mnt" || fail "something got mounted"
	echo "ok"
}

# --- mounting -------------------------------------------------------------------

# ls -R, owner, mode minus write bits, times, sizes of ranges.
case_mount_ls() {
	need_fuse
	local src mnt out
	src=$(pick_parquet)
	need_mountable "$src"
	cp "$src" "$WORK/src.parquet"
	chown 1234:2345 "$WORK/src.parquet"
	chmod 0664 "$WORK/src.parquet"
	touch -d '2001-02-03 04:05:06' "$WORK/src.parquet"
	newmnt; mnt=$NEWMNT
	mount_bg "$WORK/src.parquet" "$mnt"

	timeout "$T" ls -R "$mnt" > "$WORK/ls-R" || fail "ls -R failed"
	[ "$(wc -l < "$WORK/ls-R")" -gt 10 ] || fail "ls -R listed too little"
	for e in README format summary schema metadata.json errors row_groups; do
		grep -qx "$e" "$WORK/ls-R" || fail "ls -R does not show $e"
	done
	out=$(timeout "$T" stat -c '%u:%g %a %Y %F' "$mnt")
	[ "$out" = "1234:2345 555 981173106 directory" ] ||
		fail "root: expected '1234:2345 555 981173106 directory', got '$out'"
	out=$(timeout "$T" stat -c '%u:%g %a %Y %h %F' "$mnt/format")
	[ "$out" = "1234:2345 444 981173106 1 regular file" ] ||
		fail "format: expected '1234:2345 444 981173106 1 regular file', got '$out'"
	out=$(timeout "$T" cat "$mnt/format")
	case "$out" in parquet*) ;; *) fail "format says '$out'" ;; esac

	# Every file's reported size is the number of bytes read from it.
	local n=0 f size got
	while IFS= read -r -d '' f; do
		size=$(stat -c %s "$f")
		got=$(timeout "$T" cat "$f" | wc -c) || fail "cat $f failed"
		[ "$size" -eq "$got" ] || [ "$size" -eq 0 ] ||
			fail "$f: stat says $size bytes, read gives $got"
		n=$((n + 1))
	done < <(timeout "$T" find "$mnt" -type f -size -16M -print0)
	[ "$n" -gt 10 ] || fail "only $n files found"

	# A stricter mode follows the source: 0640 -> dirs 0550, files 0440.
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	chmod 0640 "$WORK/src.parquet"
	mount_bg "$WORK/src.parquet" "$mnt"
	out=$(timeout "$T" stat -c '%a' "$mnt" "$mnt/row_groups" "$mnt/summary" | tr '\n' ' ')
	[ "$out" = "550 550 440 " ] || fail "0640 source: modes '$out'"
	grep -q "$mnt fuse.colfs ro," /proc/self/mounts ||
		fail "not mounted ro as fuse.colfs: $(grep " $mnt " /proc/self/mounts)"
	grep -q "^$WORK/src.parquet $mnt " /proc/self/mounts ||
		fail "the mount's source is not the file"
	umount_fuse "$mnt"
	echo "ok: $n files, owner, mode and times follow the source"
}

# Nothing can be written: EROFS (Read-only file system) everywhere.
case_mount_erofs() {
	need_fuse
	local src mnt out
	src=$(pick_parquet)
	need_mountable "$src"
	newmnt; mnt=$NEWMNT
	# colfs options after the positionals, as mount.fuse3 passes them.
	mount_bg "$src" "$mnt" -o null=NULL,cache_size=16M -o max_alloc=64M
	expect_erofs() {
		local what=$1 out
		shift
		if out=$(timeout "$T" "$@" 2>&1); then
			fail "$what succeeded"
		fi
		case "$out" in
		*"Read-only file system"*) echo "ok: $what: EROFS" ;;
		*) fail "$what: expected EROFS, got: $out" ;;
		esac
	}
	expect_erofs "create" touch "$mnt/newfile"
	expect_erofs "write" sh -c "echo x >> '$mnt/format'"
	expect_erofs "truncate" truncate -s 0 "$mnt/format"
	expect_erofs "unlink" rm -f "$mnt/format"
	expect_erofs "mkdir" mkdir "$mnt/d"
	expect_erofs "rmdir" rmdir "$mnt/raw"
	expect_erofs "rename" mv "$mnt/format" "$mnt/format2"
	expect_erofs "chmod" chmod 0777 "$mnt/format"
	expect_erofs "chown" chown 1:1 "$mnt/format"
	expect_erofs "utimes" touch "$mnt/format"
	expect_erofs "symlink" ln -s x "$mnt/lnk"
	expect_erofs "link" ln "$mnt/format" "$mnt/hard"
	if command -v setfattr > /dev/null; then
		expect_erofs "setxattr" setfattr -n user.x -v 1 "$mnt/format"
	fi
	expect_erofs "open O_RDWR" sh -c "exec 3<>'$mnt/format'"
	# getxattr: no attributes (ENODATA), and the file is still there.
	out=$(timeout "$T" cat "$mnt/format")
	[ -n "$out" ] || fail "format vanished"
	umount_fuse "$mnt"
}

# SIGTERM, SIGINT and SIGHUP to the daemon unmount cleanly; so does
# fusermount3 -u, and the daemon then exits 0.
signal_case() { # SIGNAL
	need_fuse
	local src mnt rc=0
	src=$(pick_parquet)
	need_mountable "$src"
	newmnt; mnt=$NEWMNT
	mount_fg "$src" "$mnt"
	timeout "$T" cat "$mnt/summary" > /dev/null || fail "cat summary"
	kill -"$1" "$FGPID"
	timeout "$T" tail --pid="$FGPID" -f /dev/null ||
		fail "daemon still running 20 s after SIG$1"
	wait "$FGPID" || rc=$?
	[ "$rc" -eq 0 ] || fail "daemon exited $rc after SIG$1"
	! is_mounted "$mnt" || fail "still mounted after SIG$1"
	echo "ok: SIG$1 unmounts, exit 0"
}

case_signal_term() { signal_case TERM; }
case_signal_int() { signal_case INT; }
case_signal_hup() { signal_case HUP; }

case_fusermount() {
	need_fuse
	local src mnt rc=0 pid
	src=$(pick_parquet)
	need_mountable "$src"
	newmnt; mnt=$NEWMNT
	mount_fg "$src" "$mnt"
	umount_fuse "$mnt"
	timeout "$T" tail --pid="$FGPID" -f /dev/null ||
		fail "daemon still running after fusermount3 -u"
	wait "$FGPID" || rc=$?
	[ "$rc" -eq 0 ] || fail "daemon exited $rc after fusermount3 -u"

	# The same for a daemonized colfs: it goes away by itself.
	mount_bg "$src" "$mnt"
	# The daemon is the process whose command line names this (unique,
	# temporary) mount point.
	pid=$(pgrep -f -- " $mnt" | head -n1 || true)
	[ -n "$pid" ] || fail "cannot find the daemon of $mnt"
	PIDS+=("$pid")
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	if [ -n "$pid" ]; then
		wait_gone "$pid" || fail "daemon $pid still running"
	fi
	echo "ok: fusermount3 -u ends the daemon, exit 0"
}

# The daemon keeps the source open and stays consistent when several
# readers go at once.
case_concurrent() {
	need_fuse
	local src mnt i
	src=$(pick_parquet)
	need_mountable "$src"
	newmnt; mnt=$NEWMNT
	mount_bg "$src" "$mnt"
	timeout 60 find "$mnt" -type f -size -16M > "$WORK/files"
	local readers=()
	for i in 1 2 3 4; do
		timeout 120 bash -c 'while IFS= read -r f; do cat "$f"; done |
			sha256sum' < "$WORK/files" > "$WORK/sum.$i" &
		readers+=($!)
	done
	for i in "${readers[@]}"; do
		wait "$i" || fail "a reader failed or timed out"
	done
	for i in 2 3 4; do
		cmp -s "$WORK/sum.1" "$WORK/sum.$i" ||
			fail "reader $i saw different bytes than reader 1"
	done
	# And in single-threaded mode (-s) the same bytes again.
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	# Plain readdir instead of readdirplus, too: the same names.
	mount_bg "$src" "$mnt" -s -o readdirplus=no
	timeout 60 find "$mnt" -type f -size -16M > "$WORK/files.s"
	cmp -s "$WORK/files" "$WORK/files.s" ||
		fail "-s -o readdirplus=no lists other files"
	timeout 120 bash -c 'while IFS= read -r f; do cat "$f"; done |
		sha256sum' < "$WORK/files" > "$WORK/sum.s"
	cmp -s "$WORK/sum.1" "$WORK/sum.s" || fail "-s serves different bytes"
	umount_fuse "$mnt"
	echo "ok: 4 concurrent readers of $(wc -l < "$WORK/files") files agree"
}

# Decoding ahead: the value views of a file big enough for many pieces
# (BIG_SAMPLE: 100,000 rows in 2 row groups), read by four readers of one
# view at once, then by one reader of every view at once, serve the bytes
# a serial read serves with -o decode_threads=0.
case_concurrent_views() {
	need_fuse
	local src=${BIG_SAMPLE:-} mnt ref v i
	[ -n "$src" ] && [ -s "$src" ] || skip "no BIG_SAMPLE (colfs-mksample not built)"
	need_mountable "$src"
	newmnt; ref=$NEWMNT
	mount_bg "$src" "$ref" -o decode_threads=0,size_index=off
	(cd "$ref" && ls -d columns/* rows.jsonl rows.csv row_groups/1/columns/* \
		row_groups/0/chunks/*/values) > "$WORK/views"
	[ "$(wc -l < "$WORK/views")" -ge 10 ] || fail "too few views: $(cat "$WORK/views")"
	while IFS= read -r v; do
		timeout 120 cat "$ref/$v" | sha256sum > "$WORK/ref.$(echo "$v" | tr / _)"
	done < "$WORK/views"
	umount_fuse "$ref"
	newmnt; mnt=$NEWMNT
	mount_bg "$src" "$mnt" -o decode_threads=2,cache_size=8M,size_index=off
	local readers=()
	for i in 1 2 3 4; do
		timeout 120 sh -c 'cat "$1" | sha256sum' sh "$mnt/rows.jsonl" > "$WORK/one.$i" &
		readers+=($!)
	done
	for i in "${readers[@]}"; do
		wait "$i" || fail "a reader of rows.jsonl failed or timed out"
	done
	for i in 1 2 3 4; do
		cmp -s "$WORK/ref.rows.jsonl" "$WORK/one.$i" ||
			fail "reader $i of rows.jsonl saw other bytes than the serial read"
	done
	readers=()
	while IFS= read -r v; do
		timeout 120 sh -c 'cat "$1" | sha256sum' sh "$mnt/$v" > "$WORK/all.$(echo "$v" | tr / _)" &
		readers+=($!)
	done < "$WORK/views"
	for i in "${readers[@]}"; do
		wait "$i" || fail "a reader failed or timed out"
	done
	while IFS= read -r v; do
		v=$(echo "$v" | tr / _)
		cmp -s "$WORK/ref.$v" "$WORK/all.$v" || fail "$v differs from the serial read"
	done < "$WORK/views"
	umount_fuse "$mnt"
	echo "ok: $(wc -l < "$WORK/views") views read at once (and rows.jsonl by 4 readers) match a serial read"
}

# Each page decoded once in a sequential read (also under ThreadSanitizer,
# suite concurrency): `colfs-tool --stats cat` of each flat column of a
# sample of 6 row groups of 4 pages, with 2 and 4 workers decoding ahead,
# counts as many page decodes as the offset indexes list data pages, and
# serves the bytes of a serial read.  Workers render pieces on both sides
# of a page boundary at once: a page freed before a late piece of it took
# it was decoded again (26 to 38 decodes for 24 pages before).
case_decode_once() {
	need_tool
	local src=${GROUPS_SAMPLE:-} c g n pages got i threads
	[ -n "$src" ] && [ -s "$src" ] || skip "no GROUPS_SAMPLE (colfs-mksample not built)"
	for c in id name price day; do
		pages=0
		for g in 0 1 2 3 4 5; do
			n=$(timeout "$T" "$COLFS_TOOL" cat "$src" \
				"row_groups/$g/chunks/$c/offset_index.json" |
				grep -c '"first_row_index"') ||
				fail "no offset index for row group $g, $c"
			pages=$((pages + n))
		done
		[ "$pages" -ge 12 ] || fail "$c: only $pages pages"
		timeout 120 "$COLFS_TOOL" -o decode_threads=0 cat "$src" \
			"columns/$c" | sha256sum > "$WORK/ref.$c"
		for threads in 2 2 2 4; do
			timeout 120 "$COLFS_TOOL" --stats -o decode_threads=$threads \
				cat "$src" "columns/$c" 2> "$WORK/stats" |
				sha256sum > "$WORK/got.$c"
			cmp -s "$WORK/ref.$c" "$WORK/got.$c" ||
				fail "columns/$c with $threads workers differs from a serial read"
			got=$(sed -n 's/^colfs-tool: stats: pages_decoded=\([0-9]*\) .*/\1/p' \
				"$WORK/stats")
			[ "$got" = "$pages" ] ||
				fail "columns/$c with $threads workers: ${got:-no count} page decodes for $pages pages ($(cat "$WORK/stats"))"
		done
	done
	echo "ok: each page decoded once (id, name, price, day; 2 and 4 workers)"
}

# A dataset mount raced (also under ThreadSanitizer, suite concurrency):
# copies of the samples in Hive folders, mounted with -o max_open_files=2
# so the footer pool, the magic pool, the open-file LRU and the union
# views' opening ahead all run at once; readers of summary, schema,
# columns/*, rows.jsonl and each file's files/*/columns/* start together
# on a fresh mount and must serve the bytes a serial read of a
# single-threaded mount serves.
case_concurrent_dataset() {
	need_fuse
	need_two_samples
	local d=$WORK/ds ref mnt v i
	mkdir -p "$d/k=1" "$d/k=2" "$d/k=3/j=x"
	cp "$SAMPLE" "$d/k=1/a.parquet"
	cp "$SAMPLE_SNAPPY" "$d/k=1/b.parquet"
	cp "$SAMPLE_SNAPPY" "$d/k=2/a.parquet"
	cp "$SAMPLE" "$d/k=2/c.parquet"
	cp "$SAMPLE" "$d/k=3/j=x/d.parquet"
	cp "$SAMPLE_SNAPPY" "$d/k=3/e.parquet"
	echo "not columnar" > "$d/k=3/notes.txt"
	mkdir "$d/k=4"
	echo "not columnar" > "$d/k=4/notes.txt"
	newmnt; ref=$NEWMNT
	mount_bg "$d" "$ref" -s -o max_open_files=2,size_index=off
	# a folder is listed when first listed: one without a columnar file
	# shows empty
	[ "$(ls "$ref/files")" = "$(printf 'k=1\nk=2\nk=3\nk=4')" ] ||
		fail "files/: $(ls "$ref/files")"
	[ -z "$(ls "$ref/files/k=4")" ] || fail "files/k=4: $(ls "$ref/files/k=4")"
	[ "$(ls "$ref/files/k=3")" = "$(printf 'e.parquet\nj=x')" ] ||
		fail "files/k=3: $(ls "$ref/files/k=3")"
	grep -qx 'other files: 2 (not Parquet, ORC or CFile: not shown)' "$ref/summary" ||
		fail "summary: $(cat "$ref/summary")"
	(cd "$ref" && ls -d summary schema errors rows.jsonl rows.csv columns/* \
		files/*/*.parquet/columns/* files/*/*/*.parquet/columns/*) > "$WORK/views"
	[ "$(grep -c '^files/' "$WORK/views")" -ge 12 ] ||
		fail "too few file views: $(cat "$WORK/views")"
	while IFS= read -r v; do
		timeout 120 cat "$ref/$v" | sha256sum > "$WORK/ref.$(echo "$v" | tr / _)"
	done < "$WORK/views"
	grep -q '^rows: ' "$ref/summary" || fail "summary: $(cat "$ref/summary")"
	umount_fuse "$ref"
	for i in 1; do
		newmnt; mnt=$NEWMNT
		mount_bg "$d" "$mnt" -o max_open_files=2,size_index=off
		local readers=()
		while IFS= read -r v; do
			timeout 120 sh -c 'cat "$1" | sha256sum' sh "$mnt/$v" > "$WORK/all.$(echo "$v" | tr / _)" &
			readers+=($!)
		done < "$WORK/views"
		for v in 1 2 3; do
			timeout 120 sh -c 'cat "$1" | sha256sum' sh "$mnt/columns/$(ls "$mnt/columns" | head -n1)" > "$WORK/first.$v" &
			readers+=($!)
		done
		for v in "${readers[@]}"; do
			wait "$v" || fail "a reader failed or timed out"
		done
		while IFS= read -r v; do
			v=$(echo "$v" | tr / _)
			cmp -s "$WORK/ref.$v" "$WORK/all.$v" || fail "round $i: $v differs from the serial read"
		done < "$WORK/views"
		for v in 1 2 3; do
			cmp -s "$WORK/ref.columns_$(ls "$mnt/columns" | head -n1)" "$WORK/first.$v" ||
				fail "round $i: reader $v of the first column saw other bytes"
		done
		umount_fuse "$mnt"
		wait_unmounted "$mnt" || fail "still mounted"
	done
	echo "ok: $(wc -l < "$WORK/views") views of a 6-file dataset read at once (max_open_files=2) match a serial read"
}

# A dataset listed lazily (suite dataset too): the tree's first listing
# reads the root folder alone and files/ one folder at a time, so a file
# written into the folder k=2 after `ls files` and `ls files/k=1` (but
# before anything needs the whole dataset: -o sizes=lazy, so that the
# stats of `ls -l` do not) is counted by summary, which
# lists the rest (a change of the root folder itself would be a changed
# source); a file's tree under a folder listed so is the file's own.  A root whose `key=value` folder holds no file shows partitions/
# empty; keys found only below a plain folder, and a root of files alone,
# are listed at once.
case_dataset_lazy() {
	need_fuse
	need_two_samples
	local d=$WORK/lz mnt col
	mkdir -p "$d/k=1" "$d/k=2"
	cp "$SAMPLE" "$d/k=1/a.parquet"
	cp "$SAMPLE_SNAPPY" "$d/k=2/b.parquet"
	newmnt; mnt=$NEWMNT
	# sizes=lazy: with sizes=auto the stat of a view lists the whole
	# dataset, to learn whether its files are small enough to decode
	mount_bg "$d" "$mnt" -o size_index=off,sizes=lazy
	# ls -l of the root makes none of the documents that read every
	# footer (summary, schema, errors): their sizes are unknown, 0
	timeout "$T" ls -l "$mnt" >/dev/null || fail "ls -l of the root"
	[ "$(stat -c %s "$mnt/summary" "$mnt/schema" "$mnt/errors" | tr '\n' ' ')" = "0 0 0 " ] ||
		fail "sizes learnt by a stat: $(stat -c '%n %s' "$mnt/summary" "$mnt/schema" "$mnt/errors")"
	[ -d "$mnt/partitions" ] || fail "no partitions/ for the folders k=1, k=2"
	[ "$(ls "$mnt/files" | tr '\n' ' ')" = "k=1 k=2 " ] || fail "files/: $(ls "$mnt/files")"
	[ "$(ls "$mnt/files/k=1")" = a.parquet ] || fail "files/k=1: $(ls "$mnt/files/k=1")"
	cp "$SAMPLE" "$d/k=2/c.parquet"
	grep -qx 'files: 3 (parquet 3, orc 0, cfile 0)' "$mnt/summary" ||
		fail "summary (the root listed alone at ls): $(cat "$mnt/summary")"
	[ "$(ls "$mnt/files/k=2" | tr '\n' ' ')" = "b.parquet c.parquet " ] || fail "files/k=2: $(ls "$mnt/files/k=2")"
	[ "$(ls "$mnt" | tr '\n' ' ')" = "columns errors files partitions rows.csv rows.jsonl schema schemas summary " ] ||
		fail "root: $(ls "$mnt")"
	[ "$(ls "$mnt/partitions" | tr '\n' ' ')" = "k=1 k=2 " ] || fail "partitions/: $(ls "$mnt/partitions")"
	# schema, once read, has its exact size
	[ "$(timeout "$T" cat "$mnt/schema" | wc -c)" = "$(stat -c %s "$mnt/schema")" ] ||
		fail "schema: $(stat -c %s "$mnt/schema") bytes by stat after a read"
	umount_fuse "$mnt"
	# a file's tree under a folder listed before the dataset (the
	# dataset listed when the tree is first opened) is the file's own
	newmnt; mnt=$NEWMNT
	mount_bg "$d" "$mnt" -o size_index=off
	[ "$(ls "$mnt/files/k=1")" = a.parquet ] || fail "files/k=1: $(ls "$mnt/files/k=1")"
	col=$(ls "$mnt/files/k=1/a.parquet/columns" | head -n1)
	[ -n "$col" ] || fail "files/k=1/a.parquet/columns/ is empty"
	newmnt
	mount_bg "$SAMPLE" "$NEWMNT" -o size_index=off
	timeout "$T" cat "$mnt/files/k=1/a.parquet/columns/$col" | cmp -s - "$NEWMNT/columns/$col" ||
		fail "files/k=1/a.parquet/columns/$col differs from the file's own"
	umount_fuse "$NEWMNT"
	[ "$(ls "$mnt/partitions/k=2/files/k=2" | tr '\n' ' ')" = "b.parquet c.parquet " ] ||
		fail "partitions/k=2/files/k=2: $(ls "$mnt/partitions/k=2/files/k=2")"
	umount_fuse "$mnt"
	# a key=value folder holding no file
	d=$WORK/lz2
	mkdir -p "$d/k=1"
	cp "$SAMPLE" "$d/top.parquet"
	newmnt; mnt=$NEWMNT
	mount_bg "$d" "$mnt" -o size_index=off
	[ -d "$mnt/partitions" ] || fail "no partitions/ for the folder k=1: $(ls "$mnt")"
	[ -z "$(ls "$mnt/partitions")" ] || fail "partitions/: $(ls "$mnt/partitions")"
	grep -qx 'partition keys: none' "$mnt/summary" || fail "summary: $(cat "$mnt/summary")"
	umount_fuse "$mnt"
	# keys below a plain folder; files alone
	d=$WORK/lz3
	mkdir -p "$d/data/k=7" "$WORK/lz4"
	cp "$SAMPLE" "$d/data/k=7/a.parquet"
	cp "$SAMPLE" "$WORK/lz4/a.parquet"
	cp "$SAMPLE_SNAPPY" "$WORK/lz4/b.parquet"
	newmnt; mnt=$NEWMNT
	mount_bg "$d" "$mnt" -o size_index=off
	[ "$(ls "$mnt/partitions")" = k=7 ] || fail "lz3 partitions/: $(ls "$mnt")"
	umount_fuse "$mnt"
	newmnt; mnt=$NEWMNT
	mount_bg "$WORK/lz4" "$mnt" -o size_index=off
	[ ! -e "$mnt/partitions" ] || fail "lz4 has partitions/"
	[ "$(ls "$mnt/files" | tr '\n' ' ')" = "a.parquet b.parquet " ] || fail "lz4 files/: $(ls "$mnt/files")"
	grep -qx 'files: 2 (parquet 2, orc 0, cfile 0)' "$mnt/summary" || fail "lz4 summary: $(cat "$mnt/summary")"
	umount_fuse "$mnt"
	echo "ok: the root listed alone, files/ folder by folder, the rest listed by summary"
}

# `cat columns/md5` of file $1 on a fresh daemon at mount point $2 with a
# cache of $3 MiB: its peak against $3 MiB + 2 x $4 (the largest page)
# + 32 MiB.
memory_bound_md5() {
	local f=$1 mnt=$2 cache=$3 maxpage=$4 hwm bound
	mount_fg "$f" "$mnt" -o "cache_size=${cache}M,size_index=off"
	timeout 120 cat "$mnt/columns/md5" > /dev/null || fail "cat columns/md5 (${cache}M cache)"
	hwm=$(awk '/^VmHWM:/ { print $2 * 1024 }' "/proc/$FGPID/status")
	umount_fuse "$mnt"
	wait "$FGPID" || fail "daemon exited $? after columns/md5 (${cache}M cache)"
	[ -n "$hwm" ] || fail "no VmHWM for the daemon"
	bound=$((cache * 1048576 + 2 * maxpage + 32 * 1048576))
	echo "columns/md5, 3M rows, cache_size=${cache}M: peak $((hwm / 1048576)) MiB, bound $((bound / 1048576)) MiB"
	[ "$hwm" -le "$bound" ] ||
		fail "columns/md5 (3M rows): peak $hwm bytes is over the bound $bound (${cache} MiB cache + 2 x $maxpage + 32 MiB)"
}

# The memory bound of docs/performance.md: streaming any column keeps the
# daemon's peak resident memory (VmHWM) under cache_size + 2 x the largest
# decompressed page + 32 MiB.  The file is written by DuckDB (1M rows of
# the benchmark's five columns, 4 row groups: pages of up to 9 MB), the
# mount has a small cache (8 MiB) so the pages dominate, and each column
# is read by cat on a fresh daemon; then 3M md5 strings in 36 MB pages
# through a 32 MiB cache that fills and churns.
case_memory_bound() {
	need_fuse
	local here mnt f c maxpage bound hwm
	here=$(cd "$(dirname "$0")" && pwd)
	sh "$here/../values/duckdb-setup.sh" || skip "DuckDB (node, @duckdb/node-api) is not available"
	f=$WORK/mem.parquet
	timeout 120 node "$here/../../tools/bench/duckdb-sql.cjs" \
		"COPY (SELECT range AS seq, hash(range) % 1000000007 AS rnd,
		   (range * 0.37)::DOUBLE AS dbl,
		   ['red','green','blue','cyan','magenta'][range % 5 + 1] AS low,
		   md5(range::VARCHAR) AS md5 FROM range(1000000))
		 TO '$f' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 250000)" \
		> /dev/null || fail "DuckDB could not write $f"
	newmnt; mnt=$NEWMNT
	mount_bg "$f" "$mnt" -o size_index=off
	maxpage=$(timeout 60 find "$mnt/row_groups" -name header.json -path '*/pages/*' \
		-exec cat {} + | sed -n 's/.*"uncompressed_page_size": \([0-9]*\).*/\1/p' |
		sort -n | tail -n1)
	[ -n "$maxpage" ] && [ "$maxpage" -gt 1000000 ] || fail "no page sizes found ($maxpage)"
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	bound=$((8 * 1048576 + 2 * maxpage + 32 * 1048576))
	for c in seq rnd dbl low md5; do
		mount_fg "$f" "$mnt" -o cache_size=8M,size_index=off
		timeout 120 cat "$mnt/columns/$c" > /dev/null || fail "cat columns/$c"
		hwm=$(awk '/^VmHWM:/ { print $2 * 1024 }' "/proc/$FGPID/status")
		umount_fuse "$mnt"
		wait "$FGPID" || fail "daemon exited $? after columns/$c"
		[ -n "$hwm" ] || fail "no VmHWM for the daemon"
		echo "columns/$c: peak $((hwm / 1048576)) MiB, bound $((bound / 1048576)) MiB"
		[ "$hwm" -le "$bound" ] ||
			fail "columns/$c: peak $hwm bytes is over the bound $bound (8 MiB cache + 2 x $maxpage + 32 MiB)"
	done
	# Large string pages with the cache full and churning: 3M md5 strings
	# in 1M-row groups (one 36 MB page each, 33 MB stored) through a
	# 32 MiB cache, read ahead on the default workers.  Here a page's
	# stored bytes, decompressed bytes and value array held at once, and
	# the holes cached pieces left in the heap, took the peak 10 MB over.
	f=$WORK/mem-md5.parquet
	timeout 120 node "$here/../../tools/bench/duckdb-sql.cjs" \
		"COPY (SELECT hash(range) AS rnd, md5(range::VARCHAR) AS md5
		   FROM range(3000000))
		 TO '$f' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1000000)" \
		> /dev/null || fail "DuckDB could not write $f"
	mount_fg "$f" "$mnt" -o size_index=off
	maxpage=$(timeout 60 cat "$mnt"/row_groups/*/chunks/md5/pages/*/header.json |
		sed -n 's/.*"uncompressed_page_size": \([0-9]*\).*/\1/p' | sort -n | tail -n1)
	umount_fuse "$mnt"
	wait "$FGPID" || fail "daemon exited $? after the page sizes"
	[ -n "$maxpage" ] && [ "$maxpage" -gt 30000000 ] || fail "md5: no 30 MB page ($maxpage)"
	memory_bound_md5 "$f" "$mnt" 32 "$maxpage"
	# The same with a larger cache: two pages of the strings as they
	# lie in their decompressed bytes (in_page), and the next one's
	# stored bytes while it decompresses (charged to the cache).
	memory_bound_md5 "$f" "$mnt" 144 "$maxpage"
	# The default cache, where the next page is decoded ahead too: only
	# its stored bytes are charged (33 MB, just under half of 64 MiB).
	memory_bound_md5 "$f" "$mnt" 64 "$maxpage"
	# One mount: rnd (60 MB of text in 1.3 MB pieces) fills a 32 MiB
	# cache, then md5 (2.1 MB pieces) has its own peak (VmHWM reset by
	# clear_refs) within the bound.  Here the heap's holes that rnd's
	# pieces left, and rnd's last pages kept after its end (a piece
	# past the end, rendered ahead, cleared the view's end), took md5
	# to 122-143 MiB against 132: the case caught it in about half the
	# runs (docs/performance.md, "Memory while streaming a column").
	mount_fg "$f" "$mnt" -o cache_size=32M,size_index=off
	timeout 120 cat "$mnt/columns/rnd" > /dev/null || fail "cat columns/rnd (one mount)"
	echo 5 > "/proc/$FGPID/clear_refs" || skip "cannot reset the daemon's VmHWM"
	timeout 120 cat "$mnt/columns/md5" > /dev/null || fail "cat columns/md5 after rnd"
	hwm=$(awk '/^VmHWM:/ { print $2 * 1024 }' "/proc/$FGPID/status")
	umount_fuse "$mnt"
	wait "$FGPID" || fail "daemon exited $? after columns/rnd and md5"
	bound=$((32 * 1048576 + 2 * maxpage + 32 * 1048576))
	echo "columns/md5 after columns/rnd on one mount, cache_size=32M: peak $((hwm / 1048576)) MiB, bound $((bound / 1048576)) MiB"
	[ "$hwm" -le "$bound" ] ||
		fail "columns/md5 after rnd: peak $hwm bytes is over the bound $bound (32 MiB cache + 2 x $maxpage + 32 MiB)"
	echo "ok: every column streams within cache_size + 2 x largest page + 32 MiB"
}

# The nodes a mount holds, bounded (fs/forget.c): a wide file walked with
# a small -o node_budget shows the same tree as with none (names, types,
# sizes, the bytes and xattrs of sampled files, `errors` of a damaged
# column), twice over (the second walk lists freed directories again),
# while the daemon's count of nodes alive at once (SIGUSR1) stays near the
# budget, far under the walk's total.
forget_walk() { # MNT OUT
	local mnt=$1 out=$2 f
	( cd "$mnt" && timeout 120 find . -printf '%p %y %s\n' | LC_ALL=C sort ) > "$out.find" ||
		fail "find over $mnt"
	( cd "$mnt" && timeout 120 ls -R . ) > "$out.ls" || fail "ls -R $mnt"
	: > "$out.files"
	# every 53rd file, its bytes and attributes (a read of a freed part
	# lists it again)
	for f in $(awk '$2 == "f" && $1 != "./README" { print $1 }' "$out.find" | awk 'NR % 53 == 1'); do
		{ echo "$f $(timeout "$T" md5sum < "$mnt/$f" | cut -d' ' -f1)"
		  timeout "$T" getfattr -d -m - --absolute-names -e text "$mnt/$f" |
			sed "s#^\# file: $mnt/#\# file: #" | grep -v '^user.colfs.problems='
		} >> "$out.files" || fail "reading $f"
	done
	timeout "$T" cat "$mnt/columns/c7" > /dev/null 2>&1 && fail "columns/c7 of the damaged file read"
	timeout "$T" cat "$mnt/errors" > "$out.errors" || fail "cat errors"
	[ -s "$out.errors" ] || fail "errors is empty after reading the damaged column"
}

forget_nodes() { # PID ERRFILE -> "alive peak"
	local before
	before=$(grep -c '^colfs: nodes:' "$2" || true)
	kill -USR1 "$1"
	for _ in $(seq 50); do
		[ "$(grep -c '^colfs: nodes:' "$2" || true)" -gt "$before" ] && break
		sleep 0.1
	done
	grep '^colfs: nodes:' "$2" | tail -n1 |
		sed -n 's/^colfs: nodes: \([0-9]*\) alive, at most \([0-9]*\) at once.*/\1 \2/p'
}

case_forget() {
	need_fuse
	command -v getfattr >/dev/null || skip "getfattr is not installed"
	local here f mnt sel i k pid budget=1500 alive peak total w
	here=$(cd "$(dirname "$0")" && pwd)
	sh "$here/../values/duckdb-setup.sh" || skip "DuckDB (node, @duckdb/node-api) is not available"
	f=$WORK/wide.parquet
	sel=
	for i in $(seq 0 39); do
		sel="$sel${sel:+, }(range * $((i + 1))) % 1000 AS c$i"
	done
	timeout 120 node "$here/../../tools/bench/duckdb-sql.cjs" \
		"COPY (SELECT $sel FROM range(32768))
		 TO '$f' (FORMAT parquet, ROW_GROUP_SIZE 2048)" \
		> /dev/null || fail "DuckDB could not write $f"
	# damage column c7 in row group 5: 16 bytes in the middle of its
	# chunk, found in the file's own layout
	newmnt; mnt=$NEWMNT
	mount_bg "$f" "$mnt" -o size_index=off
	local off len
	read -r off len < <(awk '$4 == "/row_groups/5/chunks/c7/raw" { print $1, $2 }' "$mnt/layout")
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	[ -n "$off" ] && [ "$len" -gt 64 ] || fail "no chunk c7 in layout"
	printf '\377%.0s' $(seq 16) |
		dd of="$f" bs=1 seek="$((off + len / 2))" conv=notrunc status=none
	# with no bound: the reference walk and the nodes it made
	env --default-signal=INT "$COLFS" -f "$f" "$mnt" -o size_index=off,node_budget=0 2> "$WORK/none.err" &
	pid=$!; PIDS+=("$pid")
	wait_mounted "$mnt" || fail "did not mount"
	# (the second walk sees what the first found: `errors`, the damage
	# in layout.svg)
	forget_walk "$mnt" "$WORK/none1"
	forget_walk "$mnt" "$WORK/none2"
	read -r alive total < <(forget_nodes "$pid" "$WORK/none.err")
	umount_fuse "$mnt"
	wait "$pid" || fail "daemon exited $?"
	[ -n "$total" ] && [ "$total" -gt $((6 * budget)) ] ||
		fail "the walk made $total nodes: too few to test a budget of $budget"
	# with the budget: two walks, the same as the reference
	env --default-signal=INT "$COLFS" -f "$f" "$mnt" -o size_index=off,node_budget=$budget 2> "$WORK/bound.err" &
	pid=$!; PIDS+=("$pid")
	wait_mounted "$mnt" || fail "did not mount"
	for w in 1 2; do
		forget_walk "$mnt" "$WORK/bound$w"
		# The root README counts the problems found when it was made,
		# and is made again when the piece cache has dropped it: after
		# the first walk found the damage, when the cache churns (here
		# more, the nodes listed again being new keys) and not when.
		# (So with no budget too; docs/tree.md.)
		if [ "$w" = 2 ]; then
			sed -i '/^\.\/README /d' "$WORK/none2.find" "$WORK/bound2.find"
		fi
		for k in find ls files errors; do
			cmp -s "$WORK/none$w.$k" "$WORK/bound$w.$k" || {
				diff "$WORK/none$w.$k" "$WORK/bound$w.$k" | head -20 >&2
				fail "walk $w with node_budget=$budget: $k differs from the walk with none"
			}
		done
		# The kernel forgets, and the daemon frees, behind the walk (a
		# thread of the daemon, slower on a loaded machine): once it
		# has caught up, no more than the budget are alive; at the
		# walk's height, well under what it made.
		for _ in $(seq 50); do
			read -r alive peak < <(forget_nodes "$pid" "$WORK/bound.err")
			[ -n "$alive" ] && [ "$alive" -le "$budget" ] && break
			sleep 0.1
		done
		echo "walk $w: $(wc -l < "$WORK/none1.find") entries, $total nodes with no budget; with $budget: $alive alive after it, at most $peak at once"
		[ -n "$alive" ] && [ "$alive" -le "$budget" ] ||
			fail "walk $w: $alive nodes alive 5 s after it, budget $budget"
		[ "$peak" -le $((total / 2)) ] ||
			fail "walk $w: $peak nodes alive at once, of $total (budget $budget)"
	done
	umount_fuse "$mnt"
	wait "$pid" || fail "daemon exited $?"
	# A size learnt by reading (sizes=lazy: a stat does not decode) is
	# not forgotten with the node: the node made again after a walk
	# (a new inode number) shows it.
	local v=row_groups/3/chunks/c5/values ino1 ino2 size1 size2
	mount_bg "$f" "$mnt" -o size_index=off,sizes=lazy,node_budget=$budget
	[ "$(stat -c %s "$mnt/$v")" = 0 ] || fail "sizes=lazy: $v has a size before it was read"
	timeout "$T" cat "$mnt/$v" > /dev/null || fail "cat $v"
	read -r ino1 size1 < <(stat -c '%i %s' "$mnt/$v")
	[ "$size1" -gt 0 ] || fail "$v: no size after reading it"
	( cd "$mnt" && timeout 120 find . > /dev/null ) || fail "find"
	sleep 1
	read -r ino2 size2 < <(stat -c '%i %s' "$mnt/$v")
	[ "$ino1" != "$ino2" ] || fail "$v: not freed by the walk (inode $ino1)"
	[ "$size2" = "$size1" ] || fail "$v made again: size $size2, was $size1"
	umount_fuse "$mnt"
	echo "ok: a walk with node_budget=$budget holds at most $peak nodes of $total, the same tree; a size learnt is kept"
}

# mount.fuse3, the helper behind mount(8) and fstab, runs
# "colfs SOURCE MOUNTPOINT -o opts" with the generic options it got.
case_mount_helper() {
	need_fuse
	command -v mount.fuse3 >/dev/null || skip "mount.fuse3 is not installed"
	local src mnt
	src=$(pick_parquet)
	need_mountable "$src"
	mkdir "$WORK/bin"
	ln -s "$(readlink -f "$COLFS")" "$WORK/bin/colfs"
	newmnt; mnt=$NEWMNT
	PATH="$WORK/bin:$PATH" timeout "$T" mount.fuse3 "$src" "$mnt" \
		-t fuse.colfs -o rw,dev,suid,nofail,_netdev,noatime ||
		fail "mount.fuse3 failed"
	is_mounted "$mnt" || fail "mount.fuse3 returned, nothing mounted"
	grep -q "$mnt fuse.colfs ro," /proc/self/mounts || fail "not ro"
	timeout "$T" cat "$mnt/format" > /dev/null || fail "cat format"
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	# mount.fuse3's "type#source" form.
	PATH="$WORK/bin:$PATH" timeout "$T" mount.fuse3 "colfs#$src" "$mnt" \
		-o ro || fail "mount.fuse3 colfs#SOURCE failed"
	is_mounted "$mnt" || fail "colfs#SOURCE: nothing mounted"
	umount_fuse "$mnt"
	echo "ok: mount.fuse3 mounts with the options mount(8) passes"
}

# mount -t fuse.colfs and an fstab line.  mount(8) clears PATH, so the
# helper's shell finds colfs only in the default search path: the case
# runs in a private mount namespace where a directory holding colfs is
# bound over /usr/local/sbin.
case_mount_t() {
	need_fuse
	local src
	src=$(pick_parquet)
	need_mountable "$src"
	command -v unshare >/dev/null || skip "unshare is not installed"
	[ -d /usr/local/sbin ] || skip "/usr/local/sbin does not exist"
	timeout "$T" unshare --mount --propagation private true 2>/dev/null ||
		skip "cannot make a private mount namespace (unshare)"
	mkdir "$WORK/bin"
	ln -s "$(readlink -f "$COLFS")" "$WORK/bin/colfs"
	timeout 60 unshare --mount --propagation private \
		bash "$0" mount-t-inner "$src" "$WORK"
}

case_mount_t_inner() {
	local src=$2 work=$3 mnt out rc=0
	# Anything mounted here dies with the namespace, even on failure.
	mount --bind "$work/bin" /usr/local/sbin
	mnt="$work/mnt-t"
	mkdir -p "$mnt"
	MOUNTS+=("$mnt")
	timeout "$T" mount -t fuse.colfs "$src" "$mnt" ||
		fail "mount -t fuse.colfs failed"
	is_mounted "$mnt" || fail "mount -t: nothing mounted"
	timeout "$T" cat "$mnt/format" > /dev/null || fail "cat format"
	timeout "$T" umount "$mnt" || fail "umount failed"
	wait_unmounted "$mnt" || fail "still mounted after umount"

	printf '%s %s fuse.colfs ro,nofail,_netdev,noauto,x-systemd.device-timeout=5 0 0\n' \
		"$src" "$mnt" > "$work/fstab"
	timeout "$T" mount -T "$work/fstab" "$mnt" || fail "fstab mount failed"
	is_mounted "$mnt" || fail "fstab: nothing mounted"
	grep -q "^$src $mnt fuse.colfs ro," /proc/self/mounts ||
		fail "fstab: $(grep " $mnt " /proc/self/mounts)"
	timeout "$T" ls "$mnt" > /dev/null || fail "ls failed"
	timeout "$T" umount "$mnt" || fail "umount failed"
	wait_unmounted "$mnt" || fail "still mounted after umount"

	# A refused file through mount(8): its one line, and a failure.
	out=$(timeout "$T" mount -t fuse.colfs /etc/hostname "$mnt" 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || fail "mount -t accepted /etc/hostname"
	case "$out" in *"colfs: /etc/hostname: "*) ;; *) fail "refusal: $out" ;; esac
	! is_mounted "$mnt" || fail "refused file got mounted"
	echo "ok: mount -t fuse.colfs, fstab line, refusal through mount(8)"
}

# --- every kind of node: the daemon built against the toy format ---------------

# colfs-toy is this daemon linked with tests/tool/toy-registry.c: a format
# whose tree has a range, documents, a 320 KiB stream, a document that
# fails, a directory whose listing fails, an empty directory and `errors`.
case_toy() {
	need_fuse
	[ -n "${COLFS_TOY:-}" ] && [ -x "$COLFS_TOY" ] ||
		skip "colfs-toy is not built"
	local src mnt out rc
	src="$WORK/t.toy"
	{ printf 'TOYF'; seq 1 20000; } > "$src"
	newmnt; mnt=$NEWMNT
	# sizes=lazy: a stream's size is learned by reading it (the default,
	# sizes=auto, is checked at the end).
	timeout "$T" "$COLFS_TOY" -o sizes=lazy "$src" "$mnt" ||
		fail "colfs-toy did not mount"
	is_mounted "$mnt" || fail "nothing mounted"

	out=$(cd "$mnt" && timeout "$T" ls -U | tr '\n' ' ')
	[ "$out" = "README format data sub empty bad errors " ] ||
		fail "root lists '$out'"
	out=$(cd "$mnt/sub" && timeout "$T" ls -U | tr '\n' ' ')
	[ "$out" = "a%2Fb big broken head " ] || fail "sub lists '$out'"
	[ -z "$(timeout "$T" ls -A "$mnt/empty")" ] || fail "empty is not empty"

	# Range: the bytes of the source, at any offset.
	cmp <(tail -c +5 "$src") "$mnt/data" || fail "data differs from the source"
	out=$(timeout "$T" dd if="$mnt/data" bs=1 skip=100000 count=7 status=none)
	[ "$out" = "$(tail -c +100005 "$src" | head -c 7)" ] ||
		fail "data at offset 100000: '$out'"
	[ "$(stat -c %s "$mnt/sub/head")" -eq 4 ] || fail "head size"
	[ "$(cat "$mnt/sub/head")" = "TOYF" ] || fail "head bytes"
	[ "$(cat "$mnt/sub/a%2Fb")" = "slash" ] || fail "a%2Fb content"

	# Stream: size 0 until it has been read whole, then exact; read
	# whole, from the middle and from the end, the bytes are the same.
	[ "$(stat -c %s "$mnt/sub/big")" -eq 0 ] ||
		fail "big reports a size before being decoded"
	out=$(timeout "$T" tail -c 3 "$mnt/sub/big")
	[ "$out" = "nnn" ] || fail "tail -c 3 of big: '$out'"
	out=$(timeout "$T" cat "$mnt/sub/big" | wc -c)
	[ "$out" -eq 327680 ] || fail "big gives $out bytes, expected 327680"
	out=$(timeout "$T" dd if="$mnt/sub/big" bs=8192 skip=27 count=1 status=none |
		tr -d b | wc -c)
	[ "$out" -eq 0 ] || fail "piece 27 of big is not all 'b'"
	out=$(stat -c %s "$mnt/sub/big")
	[ "$out" -eq 327680 ] || fail "big reports $out after being read"
	out=$(timeout "$T" cat "$mnt/sub/big" | sha256sum)
	[ "$out" = "$(for i in $(seq 0 39); do
		head -c 8192 /dev/zero |
			tr '\0' "$(printf "\\$(printf %o $((97 + i % 26)))")"
		done | sha256sum)" ] || fail "big's bytes are wrong"

	# A document that cannot be produced: listed, stat works (size 0),
	# open answers EIO, and `errors` says why with its offset.
	timeout "$T" ls -l "$mnt/sub" > /dev/null || fail "ls -l sub failed"
	[ "$(stat -c %s "$mnt/sub/broken")" -eq 0 ] || fail "broken size"
	rc=0; out=$(timeout "$T" cat "$mnt/sub/broken" 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || fail "cat broken succeeded"
	case "$out" in *"Input/output error"*) ;; *) fail "broken: $out" ;; esac
	rc=0; out=$(timeout "$T" ls "$mnt/bad" 2>&1) || rc=$?
	[ "$rc" -ne 0 ] || fail "ls bad succeeded"
	case "$out" in *"Input/output error"*) ;; *) fail "bad: $out" ;; esac
	out=$(timeout "$T" cat "$mnt/errors")
	case "$out" in
	*"/sub/broken: offset 7 (0x7): corrupt: the toy says no"*) ;;
	*) fail "errors does not name broken: $out" ;;
	esac
	case "$out" in
	*"/bad: offset 99 (0x63): truncated: cannot list bad"*) ;;
	*) fail "errors does not name bad: $out" ;;
	esac
	# Volatile: its size is fresh, never a cached 0.
	[ "$(stat -c %s "$mnt/errors")" -eq "$(printf '%s\n' "$out" | wc -c)" ] ||
		fail "errors size is stale"
	rc=0; out=$(timeout "$T" cat "$mnt/no-such" 2>&1) || rc=$?
	case "$out" in *"No such file"*) ;; *) fail "no-such: $out" ;; esac
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"

	# sizes=auto (the default): big is small (320 KiB), so a stat
	# learns its size before any read.
	timeout "$T" "$COLFS_TOY" "$src" "$mnt" || fail "colfs-toy did not mount"
	out=$(stat -c %s "$mnt/sub/big")
	[ "$out" -eq 327680 ] || fail "sizes=auto: big reports $out before a read"
	umount_fuse "$mnt"
	echo "ok: range, documents, stream, broken nodes and errors over FUSE"
}

# --- the tool and the mount agree -------------------------------------------------

# Turn `colfs-tool tree` output into one relative path per line, in the
# tree's order (the order readdir serves, and find walks).
tree_paths() {
	LC_ALL=C awk '
	NR == 1 { next }
	/^$/ { exit 0 }
	{
		line = $0; depth = 0
		while (1) {
			if (substr(line, 1, 6) == "\342\224\202   ") { line = substr(line, 7); depth++ }
			else if (substr(line, 1, 4) == "    ") { line = substr(line, 5); depth++ }
			else break
		}
		if (substr(line, 1, 10) == "\342\224\234\342\224\200\342\224\200 " ||
		    substr(line, 1, 10) == "\342\224\224\342\224\200\342\224\200 ")
			line = substr(line, 11)
		else { print "unparsed tree line: " $0 > "/dev/stderr"; exit 1 }
		name[depth] = line
		p = name[0]
		for (i = 1; i <= depth; i++) p = p "/" name[i]
		print p
	}'
}

# Mount FILE and compare with colfs-tool: the listing of every directory
# (names and order), and the bytes of every file up to 16 MiB except
# streams and the volatile `errors` documents.
crosscheck_one() { # FILE
	local file=$1 mnt
	newmnt; mnt=$NEWMNT
	# sizes=lazy: a stream's size stays unknown (0) until it is read, so
	# the find below lists the tree without decoding every view of it
	# (sizes=auto would decode each one at its stat; the fs-sizes cases
	# test that).
	mount_bg "$file" "$mnt" -o sizes=lazy
	timeout 60 "$COLFS_TOOL" tree "$file" > "$WORK/tree.txt" ||
		fail "$file: colfs-tool tree failed"
	tree_paths < "$WORK/tree.txt" > "$WORK/tool.paths" ||
		fail "$file: cannot read the tree drawing"
	(cd "$mnt" && timeout 180 find . -mindepth 1 -printf '%P\n') \
		> "$WORK/mount.paths" || fail "$file: find on the mount failed"
	if ! cmp -s "$WORK/tool.paths" "$WORK/mount.paths"; then
		diff "$WORK/tool.paths" "$WORK/mount.paths" | head -20 >&2
		fail "$file: the mount lists other names than colfs-tool tree"
	fi
	# colfs-tool ls of the root and of every first-level directory,
	# against ls -U (readdir order).
	local d
	while IFS= read -r d; do
		cmp -s <(timeout "$T" "$COLFS_TOOL" ls "$file" "/$d") \
			<(cd "$mnt/$d" && timeout "$T" ls -U -A) ||
			fail "$file: colfs-tool ls /$d differs from ls -U"
	done < <(echo; cd "$mnt" && find . -mindepth 1 -maxdepth 1 -type d -printf '%P\n')

	# Files to compare: with sizes=lazy a stream reports size 0 until it
	# has been decoded (none has, on a fresh mount), so files of size 0
	# are skipped: that
	# skips the streams and loses nothing else (an empty document has no
	# bytes to compare).  Streams are checked by the values tests.
	(cd "$mnt" && timeout 180 find . -type f -printf '%s %P\n') |
		while read -r size p; do
			[ "$size" -gt 0 ] && [ "$size" -le $((16 << 20)) ] ||
				continue
			# Volatile: made again at every open (the root
			# summary counts the problems found so far, a
			# layout.svg colours the damage found so far).
			case "$p" in errors|*/errors|summary|layout.svg|*/layout.svg) continue ;; esac
			printf '%s\n' "$p"
		done > "$WORK/files"
	# A tree of hundreds of thousands of nodes (overflow_i16_page_cnt:
	# 40,000 pages) is compared on an even sample of at most 4,000 of
	# its files: every one of them took six minutes of a CI run, the
	# listings above still cover every name.
	local nf step
	nf=$(wc -l < "$WORK/files")
	if [ "$nf" -gt 4000 ]; then
		step=$(( (nf + 3999) / 4000 ))
		awk -v s="$step" '(NR - 1) % s == 0' "$WORK/files" > "$WORK/files.s"
		mv "$WORK/files.s" "$WORK/files"
	fi
	local ok=1
	(cd "$mnt" && xargs -r -d '\n' cat < "$WORK/files") > "$WORK/mount.bytes" 2>/dev/null || ok=0
	xargs -r -d '\n' timeout 120 "$COLFS_TOOL" cat "$file" < "$WORK/files" \
		> "$WORK/tool.bytes" 2>/dev/null || ok=0
	if [ "$ok" -eq 1 ] && cmp -s "$WORK/mount.bytes" "$WORK/tool.bytes"; then
		NFILES=$((NFILES + $(wc -l < "$WORK/files")))
	else
		# Find the file that differs; a node both refuse agrees.
		local p mrc trc
		while IFS= read -r p; do
			mrc=0; trc=0
			timeout "$T" cat "$mnt/$p" > "$WORK/m1" 2>/dev/null || mrc=$?
			timeout "$T" "$COLFS_TOOL" cat "$file" "$p" > "$WORK/t1" 2>/dev/null || trc=$?
			if [ "$mrc" -ne 0 ] || [ "$trc" -ne 0 ]; then
				[ "$mrc" -ne 0 ] && [ "$trc" -ne 0 ] ||
					fail "$file: $p: mount exit $mrc, colfs-tool exit $trc"
				continue
			fi
			cmp -s "$WORK/m1" "$WORK/t1" ||
				fail "$file: $p: the mount and colfs-tool cat differ"
			NFILES=$((NFILES + 1))
		done < "$WORK/files"
	fi
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "$file: still mounted"
	rmdir "$mnt"
}

need_tool() {
	[ -n "${COLFS_TOOL:-}" ] && [ -x "$COLFS_TOOL" ] ||
		skip "colfs-tool is not built"
}

case_crosscheck_sample() {
	need_fuse
	need_tool
	[ -n "${SAMPLE:-}" ] && [ -s "$SAMPLE" ] || skip "no colfs-mksample sample"
	need_mountable "$SAMPLE"
	NFILES=0
	crosscheck_one "$SAMPLE"
	[ -z "${SAMPLE_SNAPPY:-}" ] || crosscheck_one "$SAMPLE_SNAPPY"
	echo "ok: $NFILES files agree byte for byte with colfs-tool cat"
}

# crosscheck-corpus [K N]: the files of kind parquet in MANIFEST.tsv, or
# every N-th of them by decreasing size starting with the K-th (1-based),
# so that meson runs shards of similar weight in parallel.
case_crosscheck_corpus() {
	local shard=${2:-1} shards=${3:-1}
	need_fuse
	need_tool
	[ -s "${CORPUS:-/nonexistent}/MANIFEST.tsv" ] ||
		skip "the corpus is not at $CORPUS"
	need_mountable "$CORPUS/parquet/good/alltypes_plain.parquet"
	NFILES=0
	local n=0 rel
	while IFS= read -r rel; do
		crosscheck_one "$CORPUS/$rel"
		n=$((n + 1))
	done < <(awk -F'\t' 'NR > 1 && $8 == "parquet" { print $4 "\t" $1 }' \
			"$CORPUS/MANIFEST.tsv" | sort -t "$(printf '\t')" -k1,1nr -k2 |
		awk -F'\t' -v k="$shard" -v n="$shards" '(i++ % n) == k - 1 { print $2 }')
	[ "$n" -gt 0 ] || fail "no file of kind parquet in the manifest"
	echo "ok: shard $shard of $shards: $n corpus files, $NFILES files agree byte for byte with colfs-tool cat"
}

# Damaged files (kinds parquet-bad, parquet-fuzz-bad, parquet-encrypted):
# colfs either refuses one with its one line, or mounts it; then listing
# everything and reading every file (errors allowed: EIO) must neither
# hang nor kill the daemon, and `errors` stays readable.
case_bad_corpus() {
	need_fuse
	[ -s "${CORPUS:-/nonexistent}/MANIFEST.tsv" ] ||
		skip "the corpus is not at $CORPUS"
	need_mountable "$CORPUS/parquet/good/alltypes_plain.parquet"
	local rel file mnt out rc mounted=0 refused=0
	while IFS= read -r rel; do
		file="$CORPUS/$rel"
		newmnt; mnt=$NEWMNT
		rc=0; out=$(timeout "$T" "$COLFS" "$file" "$mnt" 2>&1) || rc=$?
		[ "$rc" -ne 124 ] || fail "$rel: colfs hung at mount"
		if [ "$rc" -ne 0 ]; then
			[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
				fail "$rel: refused with more than one line: $out"
			case "$out" in
			"colfs: $file: "*) ;;
			*) fail "$rel: refusal does not name the file: $out" ;;
			esac
			! is_mounted "$mnt" || fail "$rel: refused but mounted"
			refused=$((refused + 1))
			continue
		fi
		rc=0; timeout 60 ls -R "$mnt" > /dev/null 2>&1 || rc=$?
		[ "$rc" -ne 124 ] || fail "$rel: ls -R hung"
		rc=0
		(cd "$mnt" && timeout 120 find . -type f -size -16M -print0 |
			xargs -0 -r -n 64 cat > /dev/null 2>&1) || rc=$?
		[ "$rc" -ne 124 ] || fail "$rel: reading the files hung"
		timeout "$T" cat "$mnt/errors" > /dev/null ||
			fail "$rel: the daemon no longer answers (crashed?)"
		umount_fuse "$mnt"
		wait_unmounted "$mnt" || fail "$rel: still mounted"
		rmdir "$mnt"
		mounted=$((mounted + 1))
	done < <(awk -F'\t' 'NR > 1 && ($8 == "parquet-bad" ||
		$8 == "parquet-fuzz-bad" || $8 == "parquet-encrypted") { print $1 }' \
		"$CORPUS/MANIFEST.tsv")
	[ $((mounted + refused)) -gt 0 ] || fail "no damaged files in the manifest"
	echo "ok: $mounted damaged files mounted and read without a crash or a hang, $refused refused with one line"
}

# --- exact sizes (docs/tree.md, "Sizes") ------------------------------------

PY=/usr/bin/python3

# Every tool that trusts st_size (tar, cp -a, rsync -a, shutil.copytree,
# cmp, filecmp, mmap) must give each file of a FRESH mount byte for byte as
# cat gives it.  Each tool gets its own fresh mount (size_index=off, so
# nothing is known but what a stat learns).
sizes_tools_one() { # FILE LABEL
	local file=$1 label=$2 mnt d tool
	local out=$WORK/out-$label
	mkdir -p "$out"
	for tool in tar cp rsync copytree; do
		newmnt; mnt=$NEWMNT
		mount_bg "$file" "$mnt" -o size_index=off
		d=$out/$tool
		case $tool in
		tar)
			mkdir "$d"
			timeout 120 tar cf "$out/t.tar" -C "$mnt" . ||
				fail "$label: tar cf failed"
			tar xf "$out/t.tar" -C "$d" || fail "$label: tar xf" ;;
		cp)
			timeout 120 cp -a "$mnt" "$d" || fail "$label: cp -a failed" ;;
		rsync)
			timeout 120 rsync -a "$mnt/" "$d/" ||
				fail "$label: rsync -a failed" ;;
		copytree)
			timeout 120 "$PY" -c 'import shutil, sys
shutil.copytree(sys.argv[1], sys.argv[2])' "$mnt" "$d" ||
				fail "$label: shutil.copytree failed" ;;
		esac
		umount_fuse "$mnt"
		wait_unmounted "$mnt" || fail "$label: still mounted"
	done
	# cmp (compares sizes first), filecmp and mmap, against cat's bytes
	# from another fresh mount.
	newmnt; mnt=$NEWMNT
	mount_bg "$file" "$mnt" -o size_index=off
	local ref=$out/ref
	mkdir "$ref"
	(cd "$mnt" && find . -type d) | (cd "$ref" && xargs mkdir -p)
	# cat's bytes: a read loop to the end of each file (one process for
	# all of them: the tree has hundreds of files).
	timeout 120 "$PY" -c 'import os, sys
mnt, ref = sys.argv[1:3]
for root, dirs, files in os.walk(mnt):
    for name in files:
        p = os.path.join(root, name)
        with open(p, "rb") as f, open(os.path.join(ref, os.path.relpath(p, mnt)), "wb") as o:
            while True:
                b = f.read(131072)
                if not b:
                    break
                o.write(b)' "$mnt" "$ref" || fail "$label: reading the files failed"
	umount_fuse "$mnt"
	newmnt; mnt=$NEWMNT
	mount_bg "$file" "$mnt" -o size_index=off
	local n
	n=$( (cd "$mnt" && find . -type f -print0) | timeout 120 bash -c '
		n=0
		while IFS= read -r -d "" f; do
			cmp -s "$1/$f" "$2/$f" || { echo "cmp: $f"; exit 1; }
			n=$((n + 1))
		done
		echo "$n"' cmp "$ref" "$mnt") ||
		fail "$label: cmp says a file differs from cat's bytes: $n"
	umount_fuse "$mnt"
	newmnt; mnt=$NEWMNT
	mount_bg "$file" "$mnt" -o size_index=off
	timeout 120 "$PY" - "$ref" "$mnt" "$label" <<'PYEOF' || fail "$label: filecmp/mmap"
import errno, filecmp, mmap, os, sys
ref, mnt, label = sys.argv[1:4]
bad = []
for root, dirs, files in os.walk(mnt):
    for name in files:
        p = os.path.join(root, name)
        r = os.path.join(ref, os.path.relpath(p, mnt))
        want = open(r, 'rb').read()
        if not filecmp.cmp(r, p, shallow=False):
            bad.append('filecmp ' + p)
        if os.stat(p).st_size != len(want):
            bad.append('size %s: %d, cat gives %d' % (p, os.stat(p).st_size, len(want)))
            continue
        # errors, summary and layout.svg are volatile, and text views
        # (columns/, rows.*, values...) are read with direct I/O: the
        # kernel maps no direct-I/O file shared (ENODEV), as docs/tree.md
        # says, but maps it private; arrays/*.npy are mapped shared
        if want and name not in ('errors', 'summary', 'layout.svg'):
            array = '/arrays/' in p and name.endswith('.npy')
            with open(p, 'rb') as f:
                try:
                    m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
                except OSError as e:
                    if array or e.errno != errno.ENODEV:
                        bad.append('mmap %s: %s' % (p, e))
                        continue
                    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
                with m:
                    if m[:] != want:
                        bad.append('mmap ' + p)
if bad:
    sys.exit(label + ': ' + '; '.join(bad[:10]))
PYEOF
	umount_fuse "$mnt"
	for tool in tar cp rsync copytree; do
		diff -r "$ref" "$out/$tool" > "$out/diff" 2>&1 ||
			fail "$label: $tool copied differently from cat: $(head -5 "$out/diff")"
	done
	[ "$n" -gt 0 ] || fail "$label: no files"
	echo "ok: $label: $n files, tar, cp -a, rsync -a, copytree, cmp, filecmp, mmap as cat"
}

need_sizes_tools() {
	need_fuse
	command -v rsync > /dev/null || skip "rsync is not installed (tools/bootstrap.sh)"
	[ -x "$PY" ] || skip "$PY is not installed"
}

case_sizes_tools_sample() {
	need_sizes_tools
	local f
	f=$(pick_parquet)
	need_mountable "$f"
	sizes_tools_one "$f" sample
}

case_sizes_tools_cfile() {
	need_sizes_tools
	if [ -n "${CFILE_WRITER:-}" ] && [ -x "$CFILE_WRITER" ]; then
		timeout "$T" "$CFILE_WRITER" --type STRING --encoding PREFIX \
			--nullable --count 3000 --block-rows 500 \
			"$WORK/s.cfile" > /dev/null || fail "cfile-writer"
		sizes_tools_one "$WORK/s.cfile" cfile-string
		timeout "$T" "$CFILE_WRITER" --type INT64 --encoding BIT_SHUFFLE \
			--compression LZ4 --count 5000 "$WORK/i.cfile" > /dev/null ||
			fail "cfile-writer"
		sizes_tools_one "$WORK/i.cfile" cfile-int64
	else
		skip "cfile-writer (tests/cfile) is not built"
	fi
}

case_sizes_tools_corpus() {
	need_sizes_tools
	[ -d "${CORPUS:-/nonexistent}" ] || skip "no corpus at $CORPUS"
	local rel
	for rel in parquet/good/alltypes_plain.parquet \
		parquet/good/byte_stream_split.zstd.parquet \
		orc/good/TestOrcFile.test1.orc \
		orc/good/orc-rust/nested_map.orc orc/good/decimal.orc; do
		[ -s "$CORPUS/$rel" ] || fail "corpus file missing: $rel"
		sizes_tools_one "$CORPUS/$rel" "$(basename "$rel")"
	done
}

# A file whose views are far past the probe budget: `ls -l columns/` on a
# fresh mount stays under a second (nothing big is decoded); with
# -o sizes=exact every size is the number of bytes cat gives.
case_sizes_big() {
	need_fuse
	[ -n "${MKSAMPLE:-}" ] || skip "colfs-mksample is not built"
	local big=$WORK/big.parquet mnt t0 t1 ms best=999999 i f size got
	timeout 120 "$MKSAMPLE" "$big" --rows 4000000 --row-groups 4 \
		--page-rows 20000 --no-bloom > /dev/null || fail "colfs-mksample"
	need_mountable "$big"
	# Two fresh mounts; the better time counts (the machine may be busy).
	for i in 1; do
		newmnt; mnt=$NEWMNT
		mount_bg "$big" "$mnt" -o size_index=off
		t0=$(date +%s%N)
		timeout "$T" ls -l "$mnt/columns/" > "$WORK/ls" || fail "ls -l"
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		[ "$ms" -lt "$best" ] && best=$ms
		# Nothing there is a guess: unknown sizes are 0.
		awk 'NR > 1 && $5 != 0 { bad = 1 } END { exit bad }' "$WORK/ls" ||
			fail "a column of 4M rows was sized by a listing: $(cat "$WORK/ls")"
		umount_fuse "$mnt"
	done
	[ "$best" -lt 1000 ] ||
		fail "ls -l columns/ took $best ms on a fresh mount (limit 1000)"
	echo "ok: ls -l columns/ of 4M rows on a fresh mount: $best ms"

	newmnt; mnt=$NEWMNT
	mount_bg "$big" "$mnt" -o size_index=off,sizes=exact
	timeout 300 ls -l "$mnt/columns/" > "$WORK/ls" || fail "ls -l (exact)"
	for f in "$mnt"/columns/*; do
		size=$(stat -c %s "$f")
		got=$(timeout 300 cat "$f" | wc -c)
		[ "$size" -gt 0 ] && [ "$size" = "$got" ] ||
			fail "sizes=exact: $f has size $size, cat gives $got bytes"
	done
	umount_fuse "$mnt"
	echo "ok: sizes=exact: every column's size is what cat gives"
}

# The size index: sizes learned by one mount make the next one exact (with
# sizes=lazy, nothing else could); `colfs-tool index` writes the same
# file; a damaged, truncated or stale index is ignored.
case_sizes_index() {
	need_fuse
	local f mnt idx=$WORK/idx.sizes lines
	f=$(pick_parquet)
	need_mountable "$f"
	cp "$f" "$WORK/s.parquet"
	f=$WORK/s.parquet
	# A fresh lazy mount: no size known; reading columns/ learns them.
	newmnt; mnt=$NEWMNT
	mount_fg "$f" "$mnt" -o sizes=lazy,size_index="$idx"
	[ "$(stat -c %s "$mnt/columns/id")" = 0 ] || fail "lazy: id sized"
	cat "$mnt"/columns/* > /dev/null
	umount_fuse "$mnt"
	wait_gone "$FGPID" || fail "the daemon did not exit"
	[ -s "$idx" ] || fail "no size index written at $idx"
	grep -q ' /columns/id$' "$idx" || fail "index lacks /columns/id: $(cat "$idx")"
	cp "$idx" "$WORK/good.sizes"

	# lazy_sizes FILE MNT: the sizes of columns/* a lazy mount shows.
	lazy_sizes() {
		newmnt; mnt=$NEWMNT
		mount_bg "$f" "$mnt" -o sizes=lazy,size_index="$idx"
		stat -c '%s %n' "$mnt"/columns/* | sed "s|$mnt/||" > "$WORK/$1"
		if [ "$1" = known ]; then
			local s n
			while read -r s n; do
				[ "$s" = "$(cat "$mnt/$n" | wc -c)" ] ||
					fail "index size of $n is $s, cat gives another"
			done < "$WORK/known"
		fi
		umount_fuse "$mnt"
	}
	lazy_sizes known
	awk '$1 == 0 { exit 1 }' "$WORK/known" ||
		fail "second mount not exact from the index: $(cat "$WORK/known")"

	# Damaged: a flipped byte in a size; truncated; stale (the source
	# touched); garbage.  Each is ignored: sizes unknown (0) again.
	sed '3s/^\([0-9]\)/X/' "$WORK/good.sizes" > "$idx"
	cp "$WORK/good.sizes" "$idx"
	printf '%s' "$(sed -n 3p "$idx" | cut -c1 | tr '0-9' '1-90')" |
		dd of="$idx" bs=1 seek="$(($(sed -n 1,2p "$idx" | wc -c)))" \
			conv=notrunc 2> /dev/null
	cmp -s "$idx" "$WORK/good.sizes" && fail "the flip did not change the index"
	lazy_sizes flipped
	awk '$1 != 0 { exit 1 }' "$WORK/flipped" ||
		fail "a damaged index was trusted: $(cat "$WORK/flipped")"
	head -c -10 "$WORK/good.sizes" > "$idx"
	lazy_sizes truncated
	awk '$1 != 0 { exit 1 }' "$WORK/truncated" || fail "a truncated index was trusted"
	head -c 100000 /dev/urandom > "$idx"
	lazy_sizes garbage
	awk '$1 != 0 { exit 1 }' "$WORK/garbage" || fail "garbage was trusted"
	cp "$WORK/good.sizes" "$idx"
	touch -d '2001-01-01' "$f"
	lazy_sizes stale
	awk '$1 != 0 { exit 1 }' "$WORK/stale" || fail "a stale index was trusted"

	# colfs-tool index writes the index a mount reads (here the default
	# one, in $XDG_CACHE_HOME/colfs).
	if [ -n "${COLFS_TOOL:-}" ]; then
		timeout 120 "$COLFS_TOOL" index "$f" > "$WORK/tool.out" 2> "$WORK/tool.err" ||
			fail "colfs-tool index: $(cat "$WORK/tool.err")"
		[ ! -s "$WORK/tool.err" ] || fail "colfs-tool index wrote to stderr (not a terminal): $(cat "$WORK/tool.err")"
		grep -q "views sized; index $XDG_CACHE_HOME/colfs/s.parquet-" "$WORK/tool.out" ||
			fail "colfs-tool index: $(cat "$WORK/tool.out")"
		newmnt; mnt=$NEWMNT
		mount_bg "$f" "$mnt" -o sizes=lazy
		[ "$(stat -c %s "$mnt/rows.jsonl")" = "$(cat "$mnt/rows.jsonl" | wc -c)" ] ||
			fail "rows.jsonl not sized from colfs-tool's index"
		[ "$(stat -c %s "$mnt/columns/name")" -gt 0 ] || fail "columns/name not sized"
		umount_fuse "$mnt"
	fi
	echo "ok: the size index makes the next mount exact; damaged, truncated, garbage and stale ones are ignored"
}

# A file meant to be mapped (arrays/*.npy) goes through the page cache
# (keep_cache): after one cat every page of it is resident (mincore), so a
# second cat is served by the kernel.  A text view of known size is read
# with direct I/O (one copy of each reply, into the reader's buffer): none
# of it is left in the page cache, a shared mapping is refused (ENODEV)
# and a private one reads its bytes (docs/tree.md, "Sizes"); with
# -o page_cache=all a shared mapping reads it (Python's mmap.ACCESS_READ).
case_sizes_page_cache() {
	need_fuse
	[ -x "$PY" ] || skip "$PY is not installed"
	local f mnt npy
	f=$(pick_parquet)
	need_mountable "$f"
	newmnt; mnt=$NEWMNT
	mount_bg "$f" "$mnt" -o size_index=off
	npy=$(find "$mnt/arrays" -name '*.npy' -type f | head -1)
	[ -n "$npy" ] || fail "no arrays/*.npy in $f"
	cat "$npy" > "$WORK/n"
	cat "$mnt/rows.jsonl" > "$WORK/a"
	[ "$(stat -c %s "$mnt/rows.jsonl")" = "$(wc -c < "$WORK/a")" ] ||
		fail "rows.jsonl: size $(stat -c %s "$mnt/rows.jsonl") after a cat of $(wc -c < "$WORK/a") bytes"
	timeout "$T" "$PY" - "$npy" "$mnt/rows.jsonl" "$WORK/a" <<'PYEOF' || fail "page cache or mapping"
import ctypes, errno, mmap, os, sys
libc = ctypes.CDLL(None, use_errno=True)
page = os.sysconf('SC_PAGE_SIZE')

def resident(p):
    size = os.stat(p).st_size
    with open(p, 'rb') as f:
        m = mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        n = (size + page - 1) // page
        vec = (ctypes.c_ubyte * n)()
        if libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) != 0:
            sys.exit('mincore: errno %d' % ctypes.get_errno())
        r = sum(v & 1 for v in vec)
        del addr
        m.close()
        return r, n

npy, view, ref = sys.argv[1:4]
r, n = resident(npy)
if r != n:
    sys.exit('%s: %d of %d pages resident after a cat' % (npy, r, n))
want = open(ref, 'rb').read()
with open(view, 'rb') as f:
    try:
        mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        sys.exit('%s: a shared mapping of a direct-I/O view was accepted' % view)
    except OSError as e:
        if e.errno != errno.ENODEV:
            sys.exit('%s: shared mapping: %s' % (view, e))
    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) as m:
        if m[:] != want:
            sys.exit('%s: a private mapping differs from cat' % view)
PYEOF
	cat "$mnt/rows.jsonl" > "$WORK/b"
	cmp -s "$WORK/a" "$WORK/b" || fail "the second cat differs"
	# du: a generated file takes whole 4 KiB blocks, a range its bytes.
	[ "$(stat -c %b "$mnt/rows.jsonl")" = $(( ($(stat -c %s "$mnt/rows.jsonl") + 4095) / 4096 * 8 )) ] ||
		fail "st_blocks of rows.jsonl: $(stat -c '%s %b' "$mnt/rows.jsonl")"
	local fr
	fr=$(find "$mnt/row_groups/0/chunks" -name data -type f | head -1)
	[ -n "$fr" ] || fr=$mnt/raw/footer
	[ "$(stat -c %b "$fr")" = $(( ($(stat -c %s "$fr") + 511) / 512 )) ] ||
		fail "st_blocks of $fr: $(stat -c '%s %b' "$fr")"
	umount_fuse "$mnt"
	# -o page_cache=all: on a fresh mount, a shared mapping (Python's
	# mmap with ACCESS_READ: MAP_SHARED) of text views sized by their
	# stat, before any read, gives cat's bytes; after it the view is
	# in the page cache
	newmnt; mnt=$NEWMNT
	mount_bg "$f" "$mnt" -o size_index=off,page_cache=all
	local col
	col=$(ls "$mnt/columns" | head -1)
	timeout "$T" "$PY" - "$mnt/rows.jsonl" "$WORK/a" "$mnt/columns/$col" <<'PYEOF' || fail "page_cache=all: shared mapping"
import ctypes, mmap, os, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
page = os.sysconf('SC_PAGE_SIZE')
for view, ref in ((sys.argv[1], sys.argv[2]), (sys.argv[3], None)):
    size = os.stat(view).st_size
    if size == 0:
        sys.exit('%s: size 0 at its stat' % view)
    with open(view, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        got = m[:]
    want = open(ref, 'rb').read() if ref else subprocess.run(['cat', view], stdout=subprocess.PIPE, check=True).stdout
    if got != want:
        sys.exit('%s: a shared mapping (%d bytes) differs from cat (%d bytes)' % (view, len(got), len(want)))
    # resident after the mapping read it: a private mapping's mincore
    with open(view, 'rb') as f, mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY) as m:
        a = ctypes.addressof(ctypes.c_char.from_buffer(m))
        n = (size + page - 1) // page
        vec = (ctypes.c_ubyte * n)()
        if libc.mincore(ctypes.c_void_p(a), ctypes.c_size_t(size), vec) != 0:
            sys.exit('mincore: errno %d' % ctypes.get_errno())
        r = sum(v & 1 for v in vec)
        del a
    if r != n:
        sys.exit('%s: %d of %d pages resident after a shared mapping read it' % (view, r, n))
PYEOF
	umount_fuse "$mnt"
	echo "ok: an array is in the page cache after one cat, a known text view is read with direct I/O (shared mmap ENODEV), with -o page_cache=all mapped shared as cat reads it; st_blocks honest"
}

# --- a changed source -----------------------------------------------------------
# The source is changed while mounted (docs/tree.md, "A changed source"):
# every data file then answers EIO, those read before the change (cached by
# the core and by the kernel's page cache) included, and so do a stream
# and a byte range (its pages cached by the kernel) kept open across the
# change; `errors` holds one problem line and
# `summary` starts with the same message.

# Two different Parquet files: the two colfs-mksample samples.
need_two_samples() {
	[ -n "${SAMPLE:-}" ] && [ -s "$SAMPLE" ] &&
		[ -n "${SAMPLE_SNAPPY:-}" ] && [ -s "$SAMPLE_SNAPPY" ] ||
		skip "no colfs-mksample samples"
	need_mountable "$SAMPLE"
}

# Mount a copy of SAMPLE as $WORK/live.parquet on MNT, read a few files
# (so that they are cached) and keep one open on fd 3, half read.
CHANGE_FILES="raw/footer columns/id row_groups/0/columns/id rows.jsonl schema"
source_mount() {
	local f
	cp "$SAMPLE" "$WORK/live.parquet"
	newmnt; MNT=$NEWMNT
	mount_bg "$WORK/live.parquet" "$MNT"
	for f in $CHANGE_FILES; do
		timeout "$T" cat "$MNT/$f" > "$WORK/before.${f//\//_}" ||
			fail "cat $f before the change"
		[ -s "$WORK/before.${f//\//_}" ] || fail "$f is empty"
	done
	[ -z "$(timeout "$T" cat "$MNT/errors")" ] ||
		fail "errors is not empty before the change"
	exec 3< "$MNT/columns/name"
	timeout "$T" dd bs=100 count=1 status=none <&3 > "$WORK/part" ||
		fail "reading the open file before the change"
	[ "$(wc -c < "$WORK/part")" -eq 100 ] || fail "short read before"
	OLD_SIZE=$(stat -c %s "$WORK/live.parquet")
	# raw/footer kept open, its pages in the kernel's cache: once the
	# source changes, a read of it must come to colfs (which drops those
	# pages) and fail, never serve new bytes.  A helper holds it open and
	# reads it again (pread at 0) when $WORK/changed appears.
	rm -f "$WORK/changed" "$WORK/held"
	KEPT=
	if command -v python3 > /dev/null; then
		timeout 60 python3 - "$MNT/raw/footer" "$WORK" <<'PY' > "$WORK/kept.out" 2>&1 &
import errno, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
old = os.pread(fd, 1 << 20, 0)
open(sys.argv[2] + "/held", "w").close()
while not os.path.exists(sys.argv[2] + "/changed"):
    time.sleep(0.01)
for _ in range(500):
    try:
        now = os.pread(fd, 1 << 20, 0)
    except OSError as e:
        print("EIO" if e.errno == errno.EIO else e)
        sys.exit(0)
    if now != old:
        print("new bytes served")
        sys.exit(1)
    time.sleep(0.01)
print("old bytes still served after 5 s")
sys.exit(1)
PY
		KEPT=$!
		PIDS+=("$KEPT")
		for _ in $(seq 1 100); do
			[ -e "$WORK/held" ] && break
			sleep 0.1
		done
		[ -e "$WORK/held" ] || fail "the helper did not open raw/footer"
	fi
}

# After the change: EIO everywhere, one problem, the summary's first line.
# NEW_SIZE: the size the change left.
source_expect_changed() { # NEW_SIZE
	local f out rc line
	for f in $CHANGE_FILES columns/name row_groups/0/chunks; do
		rc=0; out=$(timeout "$T" cat "$MNT/$f" 2>&1 >/dev/null) || rc=$?
		[ "$rc" -ne 124 ] || fail "cat $f hung"
		[ "$rc" -ne 0 ] || [ -d "$MNT/$f" ] ||
			fail "cat $f succeeded after the change"
		case "$out" in
		*"Input/output error"*|*"Is a directory"*) ;;
		*) fail "cat $f after the change: expected EIO, got: $out" ;;
		esac
	done
	# The first chunk's raw bytes, never read before: EIO too.
	f=$(cd "$MNT/row_groups/0/chunks" && ls | head -n1)
	! timeout "$T" cat "$MNT/row_groups/0/chunks/$f/raw" > /dev/null 2>&1 ||
		fail "a chunk's raw bytes are served after the change"
	# The file kept open: its next read fails, nothing of the new file.
	rc=0; timeout "$T" cat <&3 > "$WORK/rest" 2>/dev/null || rc=$?
	[ "$rc" -ne 0 ] || fail "the file kept open read on after the change"
	exec 3<&-
	if [ -n "$KEPT" ]; then
		touch "$WORK/changed"
		wait "$KEPT" || fail "raw/footer kept open: $(cat "$WORK/kept.out")"
		[ "$(cat "$WORK/kept.out")" = EIO ] ||
			fail "raw/footer kept open: $(cat "$WORK/kept.out")"
	fi
	local re="source changed since mount \\(size $OLD_SIZE -> $1, mtime [0-9T:.-]+Z -> [0-9T:.-]+Z\\): remount"
	out=$(timeout "$T" cat "$MNT/errors") || fail "cat errors"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
		fail "errors should hold one line: $out"
	printf '%s\n' "$out" | grep -Eqx "/: offset 0 \\(0x0\\): I/O error: $re" ||
		fail "errors: $out"
	line=$(timeout "$T" head -n1 "$MNT/summary") || fail "cat summary"
	printf '%s\n' "$line" | grep -Eqx "$re" || fail "summary: $line"
	# The rest of the summary is still there.
	timeout "$T" grep -q '^format: parquet' "$MNT/summary" ||
		fail "the summary lost its body"
	echo "ok: EIO after the change; errors and summary: $line"
	umount_fuse "$MNT"
}

# cat B.parquet > live.parquet: rewritten in place, another size.
case_source_rewrite() {
	need_fuse
	need_two_samples
	source_mount
	cat "$SAMPLE_SNAPPY" > "$WORK/live.parquet"
	source_expect_changed "$(stat -c %s "$SAMPLE_SNAPPY")"
}

# One byte rewritten in place: the same size, a new modification time.
case_source_rewrite_same_size() {
	need_fuse
	need_two_samples
	source_mount
	sleep 0.05 # past the file system's timestamp granularity
	printf 'X' | dd of="$WORK/live.parquet" bs=1 seek=100 conv=notrunc \
		status=none
	source_expect_changed "$OLD_SIZE"
}

# truncate -s 3000: raw/footer no longer reads 0 bytes with exit 0.
case_source_truncate() {
	need_fuse
	need_two_samples
	source_mount
	truncate -s 3000 "$WORK/live.parquet"
	source_expect_changed 3000
}

case_source_append() {
	need_fuse
	need_two_samples
	source_mount
	cat "$SAMPLE" >> "$WORK/live.parquet"
	source_expect_changed $((OLD_SIZE * 2))
}

# Another file renamed over the path: the mount goes on serving the file
# it opened, byte for byte, and `summary` says the path names another
# file; once the path is removed, that it is gone.
case_source_rename() {
	need_fuse
	need_two_samples
	source_mount
	exec 3<&-
	if [ -n "$KEPT" ]; then
		kill "$KEPT" 2>/dev/null || true
		wait "$KEPT" 2>/dev/null || true
	fi
	cp "$SAMPLE_SNAPPY" "$WORK/new.parquet"
	mv "$WORK/new.parquet" "$WORK/live.parquet"
	local f out
	for f in $CHANGE_FILES; do
		timeout "$T" cat "$MNT/$f" > "$WORK/after" ||
			fail "cat $f after the rename"
		cmp -s "$WORK/after" "$WORK/before.${f//\//_}" ||
			fail "$f changed after the rename"
	done
	timeout "$T" cat "$MNT/row_groups/0/chunks/"*/raw > /dev/null ||
		fail "chunk raw bytes after the rename"
	[ -z "$(timeout "$T" cat "$MNT/errors")" ] ||
		fail "errors after a rename: $(cat "$MNT/errors")"
	out=$(timeout "$T" head -n1 "$MNT/summary")
	case "$out" in
	"source: $WORK/live.parquet was replaced since mount (now inode "*"); this mount still serves the file that was opened then: remount to see the new one") ;;
	*) fail "summary after the rename: $out" ;;
	esac
	rm "$WORK/live.parquet"
	out=$(timeout "$T" head -n1 "$MNT/summary")
	case "$out" in
	"source: $WORK/live.parquet: removed or renamed since mount; this mount still serves the file that was opened then") ;;
	*) fail "summary after rm: $out" ;;
	esac
	timeout "$T" cat "$MNT/columns/id" | cmp -s - "$WORK/before.columns_id" ||
		fail "columns/id changed after rm"
	echo "ok: a renamed-over source keeps serving the file opened: $out"
	umount_fuse "$MNT"
}

# --- mount-time checks ------------------------------------------------------------

# colfs must exit 1 with one line that starts with "colfs: " and says
# WORDS, and mount nothing on MNT.
expect_mount_refused() { # WORDS MNT colfs-arguments...
	local words=$1 mnt=$2 out rc=0
	shift 2
	out=$(timeout "$T" "$COLFS" "$@" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || fail "colfs $*: exit $rc: $out"
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
		fail "colfs $*: expected one line, got: $out"
	case "$out" in
	"colfs: "*"$words"*) ;;
	*) fail "colfs $*: the message does not say '$words': $out" ;;
	esac
	echo "ok: $out"
}

# The two arguments swapped: MOUNTPOINT is a regular file.
case_refuse_mountpoint_file() {
	need_fuse
	need_two_samples
	cp "$SAMPLE_SNAPPY" "$WORK/t.parquet"
	(cd "$WORK" && expect_mount_refused \
		"t.parquet: MOUNTPOINT is not a directory" t.parquet \
		"$SAMPLE" t.parquet)
	! grep -qs " $WORK/t.parquet " /proc/self/mounts ||
		{ fusermount3 -u "$WORK/t.parquet"; fail "t.parquet got mounted"; }
	cmp -s "$SAMPLE_SNAPPY" "$WORK/t.parquet" ||
		fail "t.parquet is no longer readable as it was"
}

# A second colfs onto a colfs mount does not stack; the first goes on.
case_refuse_mounted() {
	need_fuse
	need_two_samples
	local mnt n
	newmnt; mnt=$NEWMNT
	mount_bg "$SAMPLE" "$mnt"
	expect_mount_refused "$mnt: already a FUSE mount (fuse.colfs)" "$mnt" \
		"$SAMPLE_SNAPPY" "$mnt"
	n=$(grep -c " $mnt fuse" /proc/self/mounts)
	[ "$n" -eq 1 ] || fail "$n mounts on $mnt"
	timeout "$T" grep -qx "file: $SAMPLE" "$mnt/summary" ||
		fail "the first mount no longer serves its file"
	umount_fuse "$mnt"
}

# schema_from naming nothing, a directory, a missing relative name: refused
# before mounting; so by colfs-tool (exit 2).
case_refuse_schema_from() {
	need_fuse
	need_two_samples
	local mnt out rc
	newmnt; mnt=$NEWMNT
	expect_mount_refused "schema_from=/nonexistent: No such file or directory" \
		"$mnt" -o schema_from=/nonexistent "$SAMPLE" "$mnt"
	expect_mount_refused "schema_from=$WORK: is a directory" \
		"$mnt" "$SAMPLE" "$mnt" -o "schema_from=$WORK"
	(cd "$WORK" && expect_mount_refused \
		"schema_from=missing.parquet: No such file or directory" \
		"$mnt" -o schema_from=missing.parquet "$SAMPLE" "$mnt")
	! is_mounted "$mnt" || fail "something got mounted"
	if [ -n "${COLFS_TOOL:-}" ] && [ -x "$COLFS_TOOL" ]; then
		rc=0; out=$("$COLFS_TOOL" -o schema_from=/nonexistent ls "$SAMPLE" 2>&1) || rc=$?
		[ "$rc" -eq 2 ] && [ "$out" = "colfs-tool: -o schema_from=/nonexistent: No such file or directory" ] ||
			fail "colfs-tool: exit $rc: $out"
	fi
	echo "ok: a schema_from that cannot be opened is refused"
}

# A mount point with files in it: mounted, with a one-line warning.
case_warn_nonempty() {
	need_fuse
	need_two_samples
	local mnt err
	newmnt; mnt=$NEWMNT
	touch "$mnt/a" "$mnt/b"
	timeout "$T" "$COLFS" "$SAMPLE" "$mnt" 2> "$WORK/err" ||
		fail "colfs refused a non-empty mount point: $(cat "$WORK/err")"
	is_mounted "$mnt" || fail "not mounted"
	err=$(cat "$WORK/err")
	[ "$err" = "colfs: warning: $mnt is not empty (2 entries): hidden while colfs is mounted there" ] ||
		fail "warning: $err"
	[ -f "$mnt/summary" ] || fail "the mount does not show the tree"
	umount_fuse "$mnt"
	wait_unmounted "$mnt" || fail "still mounted"
	[ -e "$mnt/a" ] || fail "the hidden files are gone"
	echo "ok: $err"
}

# -o schema_from with a relative path, daemon in the background (it
# changes directory to /): the salvage of a file cut after its last column
# chunk uses it, and recovers the healthy file's values.
case_schema_from_relative() {
	need_fuse
	need_two_samples
	need_tool
	local end mnt hmnt out
	cp "$SAMPLE" "$WORK/healthy.parquet"
	end=$("$COLFS_TOOL" cat "$WORK/healthy.parquet" layout |
		awk '$3 == "column_chunk" { e = $1 + $2 } END { print e }')
	[ -n "$end" ] && [ "$end" -gt 0 ] || fail "no column chunk in the layout"
	head -c "$end" "$WORK/healthy.parquet" > "$WORK/died.parquet"
	newmnt; mnt=$NEWMNT
	(cd "$WORK" && mount_bg died.parquet "$mnt" -o schema_from=healthy.parquet)
	out=$(timeout "$T" cat "$mnt/salvage/summary") || fail "cat salvage/summary"
	case "$out" in
	*"schema_from: $WORK/healthy.parquet"*) ;;
	*) fail "salvage/summary does not use schema_from: $out" ;;
	esac
	newmnt; hmnt=$NEWMNT
	mount_bg "$WORK/healthy.parquet" "$hmnt"
	local c n=0
	for c in $(ls "$hmnt/columns"); do
		timeout "$T" cmp "$mnt/salvage/columns/$c" "$hmnt/columns/$c" ||
			fail "salvage/columns/$c differs from the healthy file's"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || fail "no columns"
	umount_fuse "$hmnt"
	umount_fuse "$mnt"
	echo "ok: relative schema_from in the background: $n columns recovered"
}

fn="case_${CASE//-/_}"
declare -F "$fn" > /dev/null || fail "unknown case $CASE"
"$fn" "$@" || fail "the test function returned status $?"

#!/bin/bash
# tests/remote/lib.sh: the shell helpers the remote tests share (s3.sh,
# s3-list.sh, s3-dataset.sh, azure.sh, gcs.sh, and tests/iceberg/s3.sh).
# Sourced, after the test sets T (the seconds any one command may take).
#
#   fail MSG, skip MSG        exit 1 or 77 with the message on stderr
#   need_programs VAR...      each VAR names an executable, or fail
#   need_fuse                 /dev/fuse and fusermount3, or skip
#   remote_work NAME          WORK (a temporary folder), MOUNTS, SERVER, and
#                             the trap that unmounts every one of MOUNTS,
#                             stops SERVER and removes WORK
#   newmnt                    NEWMNT: a new mountpoint in MOUNTS
#   wait_mounted MNT PID      true once MNT is mounted, false if PID exits
#   pathenc KEY               the key as a URL path (%XX but A-Za-z0-9._~/-)
#   make_samples              generated Parquet files in WORK: sample.parquet
#                             (5000 rows), big.parquet (more than 2 MiB),
#                             ds/a.parquet and ds/b.parquet (a dataset)
#
# With the S3 test server started (s3-server.sh: ENDPOINT, $WORK/curl.cfg)
# and BUCKET set:
#
#   s3_bucket                 the bucket BUCKET made (a signed PUT)
#   s3_queue DIR KEY [SKIP]   every file under DIR but SKIP (a path under
#                             DIR) queued for upload as KEY/<its path under
#                             DIR>: a request of $WORK/put.cfg each, PUTS
#                             counts them
#   s3_put_queued             the queued uploads by one curl, each answered
#                             200
#   s3_env                    colfs and colfs-tool signed with AKID and
#                             SECRET from the environment, none of the
#                             user's profiles, regions or files (HOME in
#                             WORK)
#   s3_same LOCAL NAME WHAT PATH...
#                             colfs-tool cat of the PATHs (on the server,
#                             -o s3_endpoint) gives on NAME the bytes it
#                             gives on LOCAL, or fail saying WHAT differs
#                             with the first lines of the difference
#
# With EP (the endpoint's colfs options, an array) and LEAKS (grep -F
# arguments, one `-e SECRET` each) set by the test:
#
#   mount_remote NAME         the daemon in the foreground (its stderr into
#                             $WORK/stderr.all): RM the mountpoint, PID the
#                             daemon; no secret in its command line or title
#   unmount_remote            RM unmounted, the daemon exited with 0
#   mount_same LOCAL NAME [SHOWN]
#                             the mount of NAME equals the local mount of
#                             LOCAL file by file (sha256), but for `io` and
#                             the summary's line naming the source (SHOWN,
#                             NAME by default); no file holds a secret
#   requests NAME MAX         mount + ls + cat summary take at most MAX
#                             requests (`io`)
#   refused_object WHAT NAME TOOL-RE COLFS-RE
#                             the server refuses NAME (the environment set
#                             by the caller): colfs-tool exits 1 or 2 and
#                             colfs 1, their messages match the grep
#                             patterns, nothing is mounted
#   refused_listing WHAT PREFIX RE
#                             colfs-tool's listing of PREFIX is refused
#                             with a message matching RE
#   delta_same DELTA NAME STORE
#                             colfs-tool's summary and schema of the Delta
#                             table NAME equal those of the local DELTA
#   messages_clean            messages were collected, none holds a
#                             secret, no sanitizer reported an error

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

need_programs() { # VAR...
	local v
	for v in "$@"; do
		[ -x "${!v:-}" ] || fail "$v is not set to a program"
	done
}

need_fuse() {
	[ -c /dev/fuse ] || skip "/dev/fuse is not available"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
}

remote_cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do
		grep -qs " $m fuse" /proc/self/mounts &&
			{ fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m"; }
	done
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}

remote_work() { # NAME
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/colfs-$1.XXXXXX") ||
		fail "cannot make a temporary folder"
	MOUNTS=()
	SERVER=
	trap remote_cleanup EXIT
	trap 'exit 143' TERM INT HUP
}

newmnt() {
	NEWMNT=$(mktemp -d "$WORK/mnt.XXXXXX")
	MOUNTS+=("$NEWMNT")
}

wait_mounted() { # MNT PID
	local i
	for i in $(seq 1 100); do
		grep -qs " $1 fuse" /proc/self/mounts && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

pathenc() { # KEY
	local LC_ALL=C s=$1 i c out=
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		case $c in
		[A-Za-z0-9._~/-]) out+=$c ;;
		*) out+=$(printf '%%%02X' "'$c") ;;
		esac
	done
	printf '%s' "$out"
}

s3_bucket() {
	local code
	printf 'url = "%s/%s"\nrequest = "PUT"\noutput = "/dev/null"\n' \
		"$ENDPOINT" "$BUCKET" >"$WORK/bucket.cfg"
	code=$(timeout "$T" curl -sS -K "$WORK/curl.cfg" -K "$WORK/bucket.cfg" \
		--aws-sigv4 aws:amz:us-east-1:s3 \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -w '%{http_code}') ||
		fail "making the bucket failed"
	[ "$code" = 200 ] || fail "making the bucket: HTTP $code"
}

PUTS=0
s3_queue() { # DIR KEY [SKIP]
	local f rel
	while IFS= read -r -d '' f; do
		rel=${f#"$1"/}
		[ "$rel" = "${3:-}" ] && continue
		printf 'url = "%s/%s/%s/%s"\nupload-file = "%s"\noutput = "/dev/null"\n' \
			"$ENDPOINT" "$BUCKET" "$2" "$(pathenc "$rel")" "$f" \
			>>"$WORK/put.cfg"
		PUTS=$((PUTS + 1))
	done < <(find "$1" -type f -print0)
}

s3_put_queued() {
	timeout 120 curl -sS -K "$WORK/curl.cfg" -K "$WORK/put.cfg" \
		--aws-sigv4 aws:amz:us-east-1:s3 \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -w '%{http_code}\n' \
		>"$WORK/put.codes" || fail "the uploads failed"
	[ "$(grep -c '^200$' "$WORK/put.codes")" = "$PUTS" ] ||
		fail "not all $PUTS uploads answered 200: $(sort "$WORK/put.codes" | uniq -c)"
}

s3_env() {
	export AWS_ACCESS_KEY_ID=$AKID AWS_SECRET_ACCESS_KEY=$SECRET
	export HOME=$WORK/home
	unset AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION AWS_CONFIG_FILE \
		AWS_SHARED_CREDENTIALS_FILE AWS_SESSION_TOKEN
}

s3_same() { # LOCAL NAME WHAT PATH...
	local l=$1 r=$2 what=$3
	shift 3
	timeout "$T" "$COLFS_TOOL" -o "s3_endpoint=$ENDPOINT" cat "$l" "$@" \
		>"$WORK/same.l" || fail "colfs-tool cat $l failed"
	timeout "$T" "$COLFS_TOOL" -o "s3_endpoint=$ENDPOINT" cat "$r" "$@" \
		>"$WORK/same.r" 2>"$WORK/err" ||
		fail "colfs-tool cat $r failed: $(head -3 "$WORK/err")"
	cmp -s "$WORK/same.l" "$WORK/same.r" || {
		diff "$WORK/same.l" "$WORK/same.r" | head -10 >&2
		fail "$what differs from the local one"
	}
}

make_samples() {
	mkdir -p "$WORK/ds" || fail "cannot make $WORK/ds"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/sample.parquet" --rows 5000 \
	--row-groups 2 --codec snappy >/dev/null || fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/big.parquet" --rows 200000 \
	--row-groups 2 --codec none >/dev/null || fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/ds/a.parquet" --rows 300 >/dev/null ||
	fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/ds/b.parquet" --rows 700 >/dev/null ||
	fail "colfs-mksample failed"
[ "$(stat -c %s "$WORK/big.parquet")" -gt $((2 << 20)) ] ||
	fail "big.parquet is not larger than 2 MiB"
}

mount_remote() { # NAME
	newmnt
	RM=$NEWMNT
	"$COLFS" -f "${EP[@]}" "$1" "$RM" 2>>"$WORK/stderr.all" &
	PID=$!
	wait_mounted "$RM" "$PID" ||
		fail "mounting '$1' failed: $(tail -1 "$WORK/stderr.all")"
	tr '\0' ' ' <"/proc/$PID/cmdline" >"$WORK/cmdline"
	grep -qF "${LEAKS[@]}" "$WORK/cmdline" &&
		fail "the daemon's command line holds a secret"
	ps -ww -o args= -p "$PID" | grep -qF "${LEAKS[@]}" &&
		fail "the daemon's process title holds a secret"
	return 0
}

unmount_remote() {
	fusermount3 -u "$RM" || fail "unmounting $RM failed"
	for _ in $(seq 1 100); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$PID" || fail "the daemon of $RM exited with status $?"
}

# Every name of the local mount is in the remote one (and `io` besides),
# every file hashes the same (but those naming the source: summary,
# README, layout.svg, whose naming line is compared apart), and no file
# holds a secret.
mount_same() { # LOCAL NAME [SHOWN]
	local lm shown=${3:-$2}
	newmnt
	lm=$NEWMNT
	timeout "$T" "$COLFS" "$1" "$lm" || fail "mounting $1 failed"
	mount_remote "$2"
	(cd "$lm" && timeout 60 find . -type f -print0 | sort -z |
		xargs -0 -r sha256sum) >"$WORK/local.sums" ||
		fail "hashing the local mount failed"
	(cd "$RM" && timeout 60 find . -type f -print0 | sort -z |
		xargs -0 -r sha256sum) >"$WORK/remote.sums" ||
		fail "hashing the mount of '$2' failed"
	grep -vE '  \./(.*/)?(summary|README|layout\.svg)$' "$WORK/local.sums" \
		>"$WORK/l" || fail "no file in the local mount"
	grep -vE '  \./(.*/)?(summary|README|layout\.svg|io)$' "$WORK/remote.sums" >"$WORK/r"
	diff "$WORK/l" "$WORK/r" >"$WORK/sums.diff" ||
		fail "files of the mount of '$2' differ from the local mount's: $(head -4 "$WORK/sums.diff")"
	diff <(sed 's/^[0-9a-f]*  //' "$WORK/local.sums") \
		<(sed 's/^[0-9a-f]*  //' "$WORK/remote.sums" | grep -vE '^\./(.*/)?io$') >"$WORK/names.diff" ||
		fail "the mount of '$2' has other files than the local mount: $(head -4 "$WORK/names.diff")"
	local root=${1%/}
	timeout "$T" sed -e "s|^file: $1\$|file: $shown|" \
		-e "s|^dataset: $root\$|dataset: ${shown%/}|" "$lm/summary" >"$WORK/l"
	diff "$WORK/l" "$RM/summary" >"$WORK/summary.diff" ||
		fail "the summary of the mount of '$2' differs from the local one: $(head -6 "$WORK/summary.diff")"
	timeout "$T" grep -rlF "${LEAKS[@]}" "$RM" >"$WORK/leaks" &&
		fail "files of the mount hold a secret: $(head -3 "$WORK/leaks")"
	unmount_remote
	fusermount3 -u "$lm" || fail "unmounting $lm failed"
	echo "ok: mount of '$2': the $(wc -l <"$WORK/local.sums") files of the local mount, same sha256"
}

# The mount, ls and cat summary: how many requests (`io`).
requests() { # NAME MAX
	mount_remote "$1"
	timeout "$T" ls "$RM" >/dev/null || fail "ls of the mount of '$1' failed"
	timeout "$T" cat "$RM/summary" >/dev/null || fail "cat summary of '$1' failed"
	local n
	n=$(sed -n 's/^requests: //p' "$RM/io")
	[ -n "$n" ] && [ "$n" -le "$2" ] ||
		fail "mount + ls + cat summary of '$1' took ${n:-?} requests, more than $2"
	unmount_remote
	echo "ok: mount + ls + cat summary of '$1': $n request(s)"
}

refused_object() { # WHAT NAME TOOL-RE COLFS-RE
	local rc m
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat "$2" schema >/dev/null \
		2>"$WORK/refused.err"
	rc=$?
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	[ "$rc" = 1 ] || [ "$rc" = 2 ] ||
		fail "$1: colfs-tool exited $rc, expected 1 or 2: $(cat "$WORK/refused.err")"
	grep -q "$3" "$WORK/refused.err" ||
		fail "$1: colfs-tool's message does not name '$3': $(cat "$WORK/refused.err")"
	newmnt
	m=$NEWMNT
	timeout "$T" "$COLFS" "${EP[@]}" "$2" "$m" 2>"$WORK/refused.err"
	rc=$?
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	[ "$rc" = 1 ] ||
		fail "$1: colfs exited $rc, expected 1: $(cat "$WORK/refused.err")"
	grep -q "$4" "$WORK/refused.err" ||
		fail "$1: colfs's message does not name '$4': $(cat "$WORK/refused.err")"
	if grep -qs " $m fuse" /proc/self/mounts; then
		fusermount3 -u "$m" # a subshell's MOUNTS is not the trap's
		fail "$1: colfs mounted"
	fi
	return 0
}

refused_listing() { # WHAT PREFIX RE
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat "$2" summary \
		>/dev/null 2>"$WORK/refused.err" && fail "$1: the listing was served"
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	grep -q "$3" "$WORK/refused.err" ||
		fail "$1: the listing's refusal does not name '$3': $(cat "$WORK/refused.err")"
	return 0
}

# A Delta table under a prefix (its log listed and read over the store):
# the summary (but for the line naming it) and the schema of the local
# table's.
delta_same() { # DELTA NAME STORE
	local p
	for p in summary schema; do
		timeout "$T" "$COLFS_TOOL" cat "$1" "$p" |
			sed "s|^dataset: $1\$|dataset: ${2%/}|" >"$WORK/l" ||
			fail "colfs-tool cat $1 $p failed"
		timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat "$2" "$p" \
			>"$WORK/r" 2>>"$WORK/stderr.all" ||
			fail "colfs-tool cat $2 $p failed: $(tail -1 "$WORK/stderr.all")"
		diff "$WORK/l" "$WORK/r" >&2 ||
			fail "the $p of the Delta table over $3 differs from the local one"
	done
	echo "ok: a Delta table under $2: summary and schema of the local table"
}

# Under the sanitizers (tests/run), a report lands on a daemon's stderr.
messages_clean() {
	[ -s "$WORK/stderr.all" ] || fail "no message was collected"
	grep -qF "${LEAKS[@]}" "$WORK/stderr.all" &&
		fail "a message holds a secret: $(grep -F "${LEAKS[@]}" "$WORK/stderr.all" | head -1)"
	grep -E 'Sanitizer|runtime error' "$WORK/stderr.all" >&2 &&
		fail "a sanitizer reported an error"
	return 0
}

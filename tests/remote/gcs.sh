#!/bin/bash
# tests/remote/gcs.sh: gs:// end to end, against gcs-server.py (a Google
# Cloud Storage XML API server written for the tests: Range requests,
# GOOG4-HMAC-SHA256 signatures checked as GCS checks them, the list-type=2
# listing, GCS's error documents) started on 127.0.0.1 on a free port with
# its buckets in a temporary directory, and -o gcs_endpoint pointing at it:
#   - an HMAC key (GCS_ACCESS_KEY_ID + GCS_SECRET_ACCESS_KEY): colfs-tool
#     cat of a generated Parquet file equals the local file's; anonymous
#     access to a public bucket too (a name with a space and a '+');
#   - mounts of a generated file and of a corpus file list the names of
#     the local mount of the same file (plus `io`), every file has the same
#     bytes;
#   - a prefix (gs://priv/ds/, listed two keys a page, so by continuation
#     tokens) mounts as a dataset equal, file by file, to the mount of the
#     local directory; so does gs://priv/ds, a name no object has;
#   - a corpus Delta table under a prefix gives the local table's summary
#     and schema;
#   - mount + ls + cat summary: 1 request for a small file, 2 for one
#     larger than the first request's 2 MiB (`io`); cat columns/X of the
#     larger gives the local file's bytes and fetches at most 1.05 x its
#     chunks' compressed size;
#   - a wrong secret is refused by the server (403 SignatureDoesNotMatch
#     in its log): colfs-tool and colfs name HTTP 403, the listing names
#     SignatureDoesNotMatch, nothing is mounted;
#   - GOOGLE_APPLICATION_CREDENTIALS without an HMAC key is refused,
#     naming the variable, before any request; a missing object and a
#     missing bucket are named (404, NoSuchBucket);
#   - the secret appears in no message, no file of any mount, not in the
#     daemon's command line nor in the server's request log.
# Exit 0 pass, 1 fail, 77 skip (no FUSE, no python3).
#   gcs.sh   (COLFS, COLFS_TOOL, COLFS_MKSAMPLE; CORPUS optional)
set -u
here=$(cd "$(dirname "$0")" && pwd)
T=30 # seconds any one command may take

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

for v in COLFS COLFS_TOOL COLFS_MKSAMPLE; do
	[ -x "${!v:-}" ] || fail "$v is not set to a program"
done
[ -c /dev/fuse ] || skip "/dev/fuse is not available"
command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is not installed"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/colfs-gcs.XXXXXX")
MOUNTS=()
SERVER=
cleanup() {
	local m
	for m in "${MOUNTS[@]}"; do
		grep -qs " $m fuse" /proc/self/mounts &&
			{ fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m"; }
	done
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

# The HMAC key: recognisable, so that a leak is found by grep.
KEY_ID="GOOGTS7C7FUP3AIRVJTE2BCD"
SECRET="Q7XZcolfsGcsTestSecret$$+bGsecretB64abcdef"
LEAK=Q7XZcolfsGcs

# ---- the objects -----------------------------------------------------------
B=$WORK/buckets
mkdir -p "$B/priv/data" "$B/priv/ds" "$B/pub" "$WORK/ds"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/sample.parquet" --rows 5000 \
	--row-groups 2 --codec snappy >/dev/null || fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/big.parquet" --rows 200000 \
	--row-groups 2 --codec none >/dev/null || fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/ds/a.parquet" --rows 300 >/dev/null ||
	fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/ds/b.parquet" --rows 700 >/dev/null ||
	fail "colfs-mksample failed"
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/ds/c.parquet" --rows 50 >/dev/null ||
	fail "colfs-mksample failed"
[ "$(stat -c %s "$WORK/big.parquet")" -gt $((2 << 20)) ] ||
	fail "big.parquet is not larger than 2 MiB"
cp "$WORK/sample.parquet" "$WORK/big.parquet" "$B/priv/data/"
cp "$WORK/ds/"*.parquet "$B/priv/ds/"
cp "$WORK/sample.parquet" "$B/pub/with space+plus.parquet"
CORPUS_FILE=${CORPUS:-}/parquet/good/alltypes_plain.snappy.parquet
if [ -f "$CORPUS_FILE" ]; then
	mkdir -p "$B/priv/corpus"
	cp "$CORPUS_FILE" "$B/priv/corpus/c.parquet"
else
	CORPUS_FILE=
fi
DELTA=${CORPUS:-}/delta/simple_table_with_checkpoint
if [ -n "${CORPUS:-}" ] && [ -d "$DELTA" ]; then
	DELTA=$(realpath "$DELTA")
	cp -r "$DELTA" "$B/priv/delta"
else
	DELTA=
fi

# ---- the server ------------------------------------------------------------
GCS_TEST_ID=$KEY_ID GCS_TEST_SECRET=$SECRET /usr/bin/python3 \
	"$here/gcs-server.py" --root "$B" --port-file "$WORK/port" \
	--public pub --page 2 --log "$WORK/requests.log" \
	2>"$WORK/server.err" &
SERVER=$!
for _ in $(seq 1 100); do
	[ -s "$WORK/port" ] && break
	kill -0 "$SERVER" 2>/dev/null ||
		fail "gcs-server.py did not start: $(tail -3 "$WORK/server.err")"
	sleep 0.1
done
[ -s "$WORK/port" ] || fail "gcs-server.py did not start within 10 s"
ENDPOINT="http://127.0.0.1:$(cat "$WORK/port")"
EP=(-o "gcs_endpoint=$ENDPOINT")

unset GOOGLE_APPLICATION_CREDENTIALS
export GCS_ACCESS_KEY_ID=$KEY_ID GCS_SECRET_ACCESS_KEY=$SECRET

# A bad signature must be refused, or the test proves nothing: curl signs
# as colfs does.
code=$(timeout "$T" curl -s -o "$WORK/curl.out" -w '%{http_code}' \
	--aws-sigv4 goog:goog:auto:storage --user "$KEY_ID:x$SECRET" \
	"$ENDPOINT/priv/data/sample.parquet")
[ "$code" = 403 ] && grep -q SignatureDoesNotMatch "$WORK/curl.out" ||
	fail "the server did not refuse a bad signature with 403 SignatureDoesNotMatch (HTTP $code)"
code=$(timeout "$T" curl -s -o /dev/null -w '%{http_code}' -r 0-3 \
	--aws-sigv4 goog:goog:auto:storage --user "$KEY_ID:$SECRET" \
	"$ENDPOINT/priv/data/sample.parquet")
[ "$code" = 206 ] || fail "the server refused a good signature (HTTP $code)"

# ---- colfs-tool ------------------------------------------------------------
tool_same() { # LOCAL NAME WHAT
	timeout "$T" "$COLFS_TOOL" cat "$1" schema layout rows.jsonl \
		columns/id >"$WORK/local.out" || fail "colfs-tool cat $1 failed"
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat "$2" schema layout \
		rows.jsonl columns/id >"$WORK/remote.out" 2>>"$WORK/stderr.all" ||
		fail "$3: colfs-tool cat '$2' failed: $(tail -1 "$WORK/stderr.all")"
	cmp -s "$WORK/local.out" "$WORK/remote.out" ||
		fail "$3: colfs-tool cat '$2' differs from the local file"
	echo "ok: $3: colfs-tool cat of '$2' equals the local file's"
}
tool_same "$WORK/sample.parquet" gs://priv/data/sample.parquet "HMAC key"
(
	unset GCS_ACCESS_KEY_ID GCS_SECRET_ACCESS_KEY
	tool_same "$WORK/sample.parquet" "gs://pub/with space+plus.parquet" \
		"anonymous, public bucket"
	n=$(grep -c ' /pub/with%20space%2Bplus.parquet ' "$WORK/requests.log")
	[ "$n" -ge 1 ] || fail "the object name was not sent percent-encoded"
) || exit 1

# ---- mounts ----------------------------------------------------------------
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
mount_remote() { # NAME: $RM the mountpoint, $PID the daemon
	newmnt
	RM=$NEWMNT
	"$COLFS" -f "${EP[@]}" "$1" "$RM" 2>>"$WORK/stderr.all" &
	PID=$!
	wait_mounted "$RM" "$PID" ||
		fail "mounting '$1' failed: $(tail -1 "$WORK/stderr.all")"
	tr '\0' ' ' <"/proc/$PID/cmdline" >"$WORK/cmdline"
	grep -qF "$LEAK" "$WORK/cmdline" &&
		fail "the daemon's command line holds the secret"
	ps -ww -o args= -p "$PID" | grep -qF "$LEAK" &&
		fail "the daemon's process title holds the secret"
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
# holds the secret.
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
	timeout "$T" grep -rlF "$LEAK" "$RM" >"$WORK/leaks" &&
		fail "files of the mount hold the secret: $(head -3 "$WORK/leaks")"
	unmount_remote
	fusermount3 -u "$lm" || fail "unmounting $lm failed"
	echo "ok: mount of '$2': the $(wc -l <"$WORK/local.sums") files of the local mount, same sha256"
}

mount_same "$WORK/sample.parquet" gs://priv/data/sample.parquet
if [ -n "$CORPUS_FILE" ]; then
	mount_same "$CORPUS_FILE" gs://priv/corpus/c.parquet
else
	echo "SKIP (part): no corpus at ${CORPUS:-<unset>}/parquet/good"
fi
before=$(grep -c 'list-type=2' "$WORK/requests.log")
mount_same "$WORK/ds/" gs://priv/ds/
pages=$(($(grep -c 'list-type=2' "$WORK/requests.log") - before))
[ "$pages" -ge 2 ] ||
	fail "the listing of gs://priv/ds/ (3 objects, 2 a page) took $pages request(s)"
grep -q 'continuation-token=' "$WORK/requests.log" ||
	fail "no listing page asked with a continuation token"
echo "ok: gs://priv/ds/ listed in $pages pages by continuation tokens"
# gs://priv/ds (no such object): one request more for the object, one
# more for the first page that finds objects under ds/.
before=$(grep -c 'list-type=2' "$WORK/requests.log")
mount_same "$WORK/ds/" gs://priv/ds gs://priv/ds/
more=$(($(grep -c 'list-type=2' "$WORK/requests.log") - before))
[ "$more" = $((pages + 1)) ] ||
	fail "gs://priv/ds took $more listing requests, not $((pages + 1))"
grep -q '^404 GET /priv/ds ' "$WORK/requests.log" ||
	fail "gs://priv/ds was not asked as an object first"
echo "ok: gs://priv/ds: the object asked (404), then one listing page more than gs://priv/ds/"

if [ -n "$DELTA" ]; then
	for p in summary schema; do
		timeout "$T" "$COLFS_TOOL" cat "$DELTA" "$p" |
			sed "s|^dataset: $DELTA\$|dataset: gs://priv/delta|" >"$WORK/l" ||
			fail "colfs-tool cat $DELTA $p failed"
		timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat gs://priv/delta/ "$p" \
			>"$WORK/r" 2>>"$WORK/stderr.all" ||
			fail "colfs-tool cat gs://priv/delta/ $p failed: $(tail -1 "$WORK/stderr.all")"
		diff "$WORK/l" "$WORK/r" >&2 ||
			fail "the $p of the Delta table over GCS differs from the local one"
	done
	echo "ok: a Delta table under gs://priv/delta/: summary and schema of the local table"
else
	echo "SKIP (part): no Delta corpus at ${CORPUS:-<unset>}/delta"
fi

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
requests gs://priv/data/sample.parquet 1
requests gs://priv/data/big.parquet 2

# cat columns/X of the larger file: its bytes, and at most 1.05 x its
# chunks' compressed bytes fetched (`io`'s count, before and after).
fetched() { sed -n 's/^bytes fetched: \([0-9]*\).*/\1/p' "$RM/io"; }
mount_remote gs://priv/data/big.parquet
for c in id name; do
	b0=$(fetched)
	timeout "$T" cat "$RM/columns/$c" >"$WORK/col.remote" ||
		fail "cat columns/$c of gs://priv/data/big.parquet failed"
	b1=$(fetched)
	comp=$(/usr/bin/python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(sum(c["meta_data"]["total_compressed_size"] for g in m["row_groups"]
          for c in g["columns"] if c["meta_data"]["path_in_schema"] == [sys.argv[2]]))' \
		"$RM/metadata.json" "$c") || fail "metadata.json does not parse"
	timeout "$T" "$COLFS_TOOL" cat "$WORK/big.parquet" "columns/$c" >"$WORK/col.local" ||
		fail "colfs-tool cat columns/$c failed"
	cmp -s "$WORK/col.local" "$WORK/col.remote" ||
		fail "columns/$c of gs://priv/data/big.parquet differs from the local file's"
	[ -n "$b0" ] && [ -n "$b1" ] && [ "$(((b1 - b0) * 100))" -le "$((comp * 105))" ] ||
		fail "cat columns/$c fetched $((b1 - b0)) bytes, over 1.05 x its chunks' $comp"
	echo "ok: cat columns/$c: its bytes, $((b1 - b0)) bytes fetched for $comp bytes of chunks"
done
unmount_remote

# ---- refusals --------------------------------------------------------------
refused() { # WHAT
	local rc m
	: >"$WORK/requests.log"
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat gs://priv/data/sample.parquet \
		schema >/dev/null 2>"$WORK/refused.err"
	rc=$?
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	[ "$rc" = 1 ] || [ "$rc" = 2 ] ||
		fail "$1: colfs-tool exited $rc: $(cat "$WORK/refused.err")"
	grep -q 'gs://priv/data/sample.parquet: HTTP 403 (forbidden)' "$WORK/refused.err" ||
		fail "$1: colfs-tool's message does not name HTTP 403: $(cat "$WORK/refused.err")"
	grep -q '^403 GET /priv/data/sample.parquet ' "$WORK/requests.log" ||
		fail "$1: the server did not refuse the request"
	newmnt
	m=$NEWMNT
	timeout "$T" "$COLFS" "${EP[@]}" gs://priv/data/sample.parquet "$m" \
		2>"$WORK/refused.err"
	rc=$?
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	[ "$rc" = 1 ] || fail "$1: colfs exited $rc: $(cat "$WORK/refused.err")"
	grep -q 'HTTP 403' "$WORK/refused.err" ||
		fail "$1: colfs's message does not name HTTP 403: $(cat "$WORK/refused.err")"
	if grep -qs " $m fuse" /proc/self/mounts; then
		fusermount3 -u "$m"
		fail "$1: colfs mounted"
	fi
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat gs://priv/ds/ summary \
		>/dev/null 2>"$WORK/refused.err" && fail "$1: the listing was served"
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	grep -q "HTTP 403 $2" "$WORK/refused.err" ||
		fail "$1: the listing's refusal does not name HTTP 403 $2: $(cat "$WORK/refused.err")"
	echo "ok: $1: refused with $(head -1 "$WORK/refused.err")"
}
(
	export GCS_SECRET_ACCESS_KEY="wrong-$SECRET"
	refused "a wrong secret" SignatureDoesNotMatch
) || exit 1
(
	unset GCS_ACCESS_KEY_ID GCS_SECRET_ACCESS_KEY
	refused "no key, a private bucket" AccessDenied
) || exit 1
(
	unset GCS_ACCESS_KEY_ID GCS_SECRET_ACCESS_KEY
	export GOOGLE_APPLICATION_CREDENTIALS=$WORK/sa.json
	: >"$WORK/requests.log"
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat gs://pub/x.parquet summary \
		>/dev/null 2>"$WORK/refused.err" &&
		fail "GOOGLE_APPLICATION_CREDENTIALS: read anonymously"
	grep -q 'GOOGLE_APPLICATION_CREDENTIALS is set, but colfs does not support OAuth' \
		"$WORK/refused.err" ||
		fail "GOOGLE_APPLICATION_CREDENTIALS: $(cat "$WORK/refused.err")"
	[ -s "$WORK/requests.log" ] &&
		fail "GOOGLE_APPLICATION_CREDENTIALS: a request was sent"
	echo "ok: GOOGLE_APPLICATION_CREDENTIALS without an HMAC key: $(cat "$WORK/refused.err")"
) || exit 1
# No such object (and nothing under NAME/), no such bucket: named.
timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat gs://priv/data/nosuch summary \
	>/dev/null 2>"$WORK/refused.err" && fail "a missing object was read"
grep -q 'gs://priv/data/nosuch: HTTP 404 (not found)' "$WORK/refused.err" ||
	fail "a missing object: $(cat "$WORK/refused.err")"
timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat gs://nosuch-bucket/ds/ summary \
	>/dev/null 2>"$WORK/refused.err" && fail "a missing bucket was listed"
grep -q 'cannot list: HTTP 404 NoSuchBucket' "$WORK/refused.err" ||
	fail "a missing bucket: $(cat "$WORK/refused.err")"
echo "ok: a missing object and a missing bucket are named (HTTP 404)"
for name in "gs://$KEY_ID:$SECRET@priv/x" "gs:/priv/x@$SECRET"; do
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat "$name" summary \
		>/dev/null 2>"$WORK/refused.err" && fail "a name with a secret was read"
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	grep -q 'not supported\|not a Google Cloud Storage URL' "$WORK/refused.err" ||
		fail "a name with a secret: $(cat "$WORK/refused.err")"
done
echo "ok: names holding a key are refused"

# ---- no secret anywhere ----------------------------------------------------
[ -s "$WORK/stderr.all" ] || fail "no message was collected"
grep -qF "$LEAK" "$WORK/stderr.all" &&
	fail "a message holds the secret: $(grep -F "$LEAK" "$WORK/stderr.all" | head -1)"
grep -qF "$LEAK" "$WORK/requests.log" &&
	fail "a request's path or range holds the secret"
echo "ok: no message, mount file, command line or request holds the secret"
grep -E 'Sanitizer|runtime error' "$WORK/stderr.all" >&2 &&
	fail "a sanitizer reported an error"
echo "PASS"

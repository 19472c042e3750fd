#!/bin/bash
# tests/remote/s3.sh: s3://bucket/key end to end, against an S3-compatible
# server that checks Signature V4 (@20minutes/s3rver, started by
# s3-server.js on 127.0.0.1 on a free port, objects in a temporary
# directory).
#
# The test makes a bucket and uploads a generated Parquet file and a
# generated ORC file (signed PUTs by curl --aws-sigv4; one key holds a
# space and a '+', which the key's percent-encoding and the signature
# must agree on), then, with credentials in the environment and
# -o s3_endpoint=http://127.0.0.1:PORT:
#   - colfs-tool cat of the schema, layout, row views and every column
#     equals that of the local file; the same with the keys in a
#     credentials file (AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE); and
#     anonymously (the server serves unsigned requests);
#   - one mount of each object lists the names of a local mount of the
#     same file (plus `io`) and every file has the same bytes (the
#     summary and the README but for the line naming the source, and the
#     README's line for `io`);
#   - wrong credentials (a bad secret, an unknown key): colfs-tool and
#     colfs exit 1 or 2 with a message naming HTTP 403, nothing mounted;
#   - the secret (and the session token) appear in no message, no file of
#     the mount (`io` included) and not in the daemon's /proc/PID/cmdline.
# Exit 0 pass, 1 fail, 77 skip (no node/npm registry, no FUSE, no curl).
#   s3.sh   (COLFS, COLFS_TOOL, COLFS_MKSAMPLE, ORC_GEN in the environment)
set -u
here=$(cd "$(dirname "$0")" && pwd)
T=30 # seconds any one command may take

. "$here/lib.sh"

need_programs COLFS COLFS_TOOL COLFS_MKSAMPLE ORC_GEN
command -v curl >/dev/null || skip "curl is not installed"
need_fuse
sh "$here/s3rver-setup.sh" || exit $?

remote_work s3

# The credentials: recognisable, so that any leak is found by grep.
SECRET="colfs-s3-test-secret-$$-Q7XZ"
TOKEN="colfs-s3-test-token-$$-Q7XZ"
LEAK=Q7XZ
LEAKS=(-e "$LEAK")
AKID=AKIDCOLFSTEST
BUCKET=colfs-test

# ---- the server ----------------------------------------------------------
# Signed requests by curl: the key pair from a config file (curl.cfg),
# never the command line.
S3_NODE_OPTS=
. "$here/s3-server.sh"
s3put() { # URL-PATH [FILE]: PUT, expect 200
	local code
	code=$(timeout "$T" curl -sS -K "$WORK/curl.cfg" \
		--aws-sigv4 aws:amz:us-east-1:s3 \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -o "$WORK/put.out" \
		-w '%{http_code}' ${2:+-T "$2"} -X PUT "$ENDPOINT/$1") ||
		fail "PUT $1: curl failed"
	[ "$code" = 200 ] || fail "PUT $1: HTTP $code: $(cat "$WORK/put.out")"
}

# A bad signature must be refused, or the test proves nothing.
code=$(timeout "$T" curl -sS --user "$AKID:wrong" \
	--aws-sigv4 aws:amz:us-east-1:s3 \
	-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -o /dev/null \
	-w '%{http_code}' -X PUT "$ENDPOINT/$BUCKET")
[ "$code" = 403 ] ||
	fail "the S3 server accepted a bad signature (HTTP $code)"

# ---- the files -------------------------------------------------------------
timeout "$T" "$COLFS_MKSAMPLE" "$WORK/sample.parquet" --rows 5000 \
	--row-groups 2 --codec snappy >/dev/null ||
	fail "colfs-mksample failed"
timeout "$T" "$ORC_GEN" "$WORK/sample.orc" 3000 1000 >/dev/null ||
	fail "orc_gen failed"
s3put "$BUCKET"
s3put "$BUCKET/data/sample.parquet" "$WORK/sample.parquet"
s3put "$BUCKET/data/with%20space%2Bplus.orc" "$WORK/sample.orc"
OBJ_PQ="s3://$BUCKET/data/sample.parquet"
OBJ_ORC="s3://$BUCKET/data/with space+plus.orc"

export AWS_ACCESS_KEY_ID=$AKID AWS_SECRET_ACCESS_KEY=$SECRET
export AWS_SESSION_TOKEN=$TOKEN
export HOME=$WORK/home
unset AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION AWS_CONFIG_FILE \
	AWS_SHARED_CREDENTIALS_FILE
mkdir "$HOME"

EP=(-o "s3_endpoint=$ENDPOINT")
tool() { timeout "$T" "$COLFS_TOOL" "${EP[@]}" "$@"; }

# The paths colfs-tool compares: documents, row views, every column.
tool_paths() { # LOCAL-FILE
	local p
	echo schema
	echo layout
	echo rows.jsonl
	echo rows.csv
	for p in $("$COLFS_TOOL" ls "$1" columns); do
		echo "columns/$p"
	done
}

# colfs-tool cat of OBJECT equals that of LOCAL: all the paths in one
# run each (a run per path would cost a process start per path).
tool_same() { # LOCAL OBJECT WHAT
	local paths
	mapfile -t paths < <(tool_paths "$1")
	[ "${#paths[@]}" -ge 6 ] || fail "$3: only ${#paths[@]} paths"
	timeout "$T" "$COLFS_TOOL" cat "$1" "${paths[@]}" >"$WORK/local.out" ||
		fail "colfs-tool cat $1 failed"
	tool cat "$2" "${paths[@]}" >"$WORK/remote.out" 2>>"$WORK/stderr.all" ||
		fail "$3: colfs-tool cat '$2' failed: $(tail -1 "$WORK/stderr.all")"
	[ -s "$WORK/local.out" ] || fail "colfs-tool cat $1 wrote nothing"
	cmp "$WORK/local.out" "$WORK/remote.out" >&2 ||
		fail "$3: colfs-tool cat '$2' differs from the local file"
	echo "ok: $3: colfs-tool cat of ${#paths[@]} paths of '$2' equals the local file's"
}

tool_same "$WORK/sample.parquet" "$OBJ_PQ" "environment credentials"
tool_same "$WORK/sample.orc" "$OBJ_ORC" "environment credentials"

# The keys in a credentials file, a named profile.
mkdir "$HOME/.aws"
printf '[default]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = x\n\n[colfs]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
	"$AKID" "$SECRET" >"$HOME/.aws/credentials"
(
	unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
	export AWS_PROFILE=colfs
	tool_same "$WORK/sample.parquet" "$OBJ_PQ" "profile credentials"
) || exit 1
# Anonymous: no credentials anywhere, requests unsigned.
(
	unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
	export HOME=$WORK/nohome
	tool_same "$WORK/sample.orc" "$OBJ_ORC" "anonymous"
) || exit 1

# ---- mounts ----------------------------------------------------------------
# Every name of the local mount is in the remote one (and `io` besides),
# and every file has the same bytes.  At most 3000 files.
mount_same_bytes() { # LOCAL OBJECT
	local lm rm pid n
	newmnt
	lm=$NEWMNT
	timeout "$T" "$COLFS" "$1" "$lm" || fail "mounting $1 failed"
	newmnt
	rm=$NEWMNT
	"$COLFS" -f -o "s3_endpoint=$ENDPOINT" "$2" "$rm" \
		2>>"$WORK/stderr.all" &
	pid=$!
	wait_mounted "$rm" "$pid" || fail "mounting '$2' failed: $(tail -1 "$WORK/stderr.all")"
	# The daemon's command line holds no secret.
	tr '\0' ' ' <"/proc/$pid/cmdline" >"$WORK/cmdline"
	grep -qF "$LEAK" "$WORK/cmdline" &&
		fail "the daemon's command line holds a secret"
	(cd "$lm" && timeout "$T" find . | sort) >"$WORK/local.list" ||
		fail "listing the local mount failed"
	(cd "$rm" && timeout "$T" find . | sort) >"$WORK/remote.list" ||
		fail "listing the mount of '$2' failed"
	[ "$(wc -l <"$WORK/local.list")" -le 3000 ] ||
		fail "the tree of $1 is larger than the walk's bound"
	diff "$WORK/local.list" "$WORK/remote.list" >"$WORK/list.diff"
	[ "$(grep '^[<>]' "$WORK/list.diff")" = "> ./io" ] ||
		fail "the mount of '$2' lists other names than the local mount: $(head -5 "$WORK/list.diff")"
	# No file of the mount, io included, holds a secret.
	timeout "$T" grep -rlF "$LEAK" "$rm" >"$WORK/leaks" &&
		fail "files of the mount hold a secret: $(head -3 "$WORK/leaks")"
	# Every file at once (diff -r: one process), then the two files that
	# name the source: the summary (with the URL for the path) and the
	# README but for its first line, and the README's line for io.
	n=$(grep -c . "$WORK/local.list")
	timeout 120 diff -r -x summary -x README -x io -x layout.svg "$lm" "$rm" \
		>"$WORK/tree.diff" 2>&1 ||
		fail "files of the mount of '$2' differ from the local mount's: $(head -3 "$WORK/tree.diff")"
	# each layout.svg names the file by its base name in lines 3 and 6
	local svg
	while IFS= read -r svg; do
		cmp -s <(timeout "$T" sed '3d;6d' "$lm/$svg") \
			<(timeout "$T" sed '3d;6d' "$rm/$svg") ||
			fail "$svg of the mount of '$2' differs from the local one"
	done < <(grep '/layout\.svg$' "$WORK/local.list")
	# (a Parquet summary names its file: "file: PATH")
	timeout "$T" sed "s|^file: $1\$|file: $2|" "$lm/summary" >"$WORK/local.out"
	timeout "$T" cat "$rm/summary" >"$WORK/remote.out"
	cmp -s "$WORK/local.out" "$WORK/remote.out" ||
		fail "the summary of the mount of '$2' differs from the local one"
	timeout "$T" tail -n +2 "$lm/README" >"$WORK/local.out"
	timeout "$T" tail -n +2 "$rm/README" | grep -v '^io ' >"$WORK/remote.out"
	cmp -s "$WORK/local.out" "$WORK/remote.out" ||
		fail "the README of the mount of '$2' differs from the local one"
	grep -q '^io ' "$rm/README" ||
		fail "the README of the mount of '$2' has no io"
	head -1 "$rm/README" | grep -qF "$2: an Apache" ||
		fail "the README of the mount of '$2' does not name it"
	grep -q '^requests: [1-9]' "$rm/io" || fail "io counts no request"
	fusermount3 -u "$rm" || fail "unmounting the mount of '$2' failed"
	fusermount3 -u "$lm" || fail "unmounting $lm failed"
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && fail "the daemon of '$2' did not exit"
	wait "$pid" || fail "the daemon of '$2' exited with status $?"
	echo "ok: mount of '$2': the $n entries of the local mount, byte for byte"
}

mount_same_bytes "$WORK/sample.parquet" "$OBJ_PQ"
mount_same_bytes "$WORK/sample.orc" "$OBJ_ORC"

# ---- wrong credentials -----------------------------------------------------
refused() { # WHAT (the environment set by the caller)
	refused_object "$1" "$OBJ_PQ" 403 403
	echo "ok: $1: refused with $(head -1 "$WORK/refused.err")"
}
(
	export AWS_SECRET_ACCESS_KEY="wrong-$SECRET"
	refused "a wrong secret"
) || exit 1
(
	export AWS_ACCESS_KEY_ID=AKIDUNKNOWN
	refused "an unknown access key"
) || exit 1

# ---- no message holds a secret --------------------------------------------
messages_clean
echo "ok: no message, mount file or command line holds the secret"
echo "PASS"

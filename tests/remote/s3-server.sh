# tests/remote: the S3 test server, shared by s3.sh, s3-list.sh,
# s3-dataset.sh and tests/iceberg/s3.sh.  Sourced by bash (after they set
# WORK, AKID, SECRET and fail(), and S3_NODE_OPTS: options for node, may
# be empty): starts s3-server.js (beside this file) on a free port of
# 127.0.0.1 with the key pair AKID/SECRET, its store in $WORK/store; sets
# SERVER (its pid, for the caller's cleanup), PORT and ENDPOINT; writes
# $WORK/curl.cfg, the key pair for curl -K (never on a command line).
mkdir "$WORK/store"
S3_ACCESS_KEY=$AKID S3_SECRET_KEY=$SECRET \
	node ${S3_NODE_OPTS:-} "$(dirname "${BASH_SOURCE[0]}")/s3-server.js" \
	"$WORK/store" \
	>"$WORK/server.out" 2>"$WORK/server.err" &
SERVER=$!
PORT=
for _ in $(seq 1 100); do
	PORT=$(sed -n 's/^port \([0-9]*\)$/\1/p' "$WORK/server.out")
	[ -n "$PORT" ] && break
	kill -0 "$SERVER" 2>/dev/null ||
		fail "the S3 server did not start: $(cat "$WORK/server.err")"
	sleep 0.1
done
[ -n "$PORT" ] || fail "the S3 server did not start in 10 s"
ENDPOINT=http://127.0.0.1:$PORT
umask 077
printf 'user = "%s:%s"\n' "$AKID" "$SECRET" >"$WORK/curl.cfg"
umask 022

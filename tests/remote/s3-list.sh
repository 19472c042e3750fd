#!/bin/bash
# tests/remote/s3-list.sh: colfs_s3_list (ListObjectsV2, paginated) against
# the S3-compatible server of s3.sh (@20minutes/s3rver through
# s3-server.js, which checks Signature V4), driven by tests/remote's
# s3-list program.
#
# Uploads 21 objects (signed PUTs by curl): 18 under data/ of sizes 0 to
# 17, keys with a space, unicode, '=', '+', '%' and '~', a folder marker
# (data/dir/, not an entry), a key beside the prefix (datax/, not under
# data/) and one at the top of the bucket.  Then, signed with the test
# key pair:
#   - s3://BUCKET/data/ with 3 keys a page (the server is first seen to
#     truncate such a page, so that the pages are real) and with the
#     server's default page: exactly the keys and sizes uploaded under
#     data/, relative, in byte order;
#   - a prefix holding a space, and an empty prefix (s3://BUCKET/ and
#     s3://BUCKET, 2 keys a page): every object of the bucket;
#   - a wrong bucket: exit 1 naming HTTP 404 and NoSuchBucket; a wrong
#     secret: exit 1 naming HTTP 403, the secret in no message.
# Exit 0 pass, 1 fail, 77 skip (no node/npm registry, no curl).
#   s3-list.sh   (S3_LIST in the environment)
set -u
here=$(cd "$(dirname "$0")" && pwd)
T=30 # seconds any one command may take

. "$here/lib.sh"

need_programs S3_LIST
command -v curl >/dev/null || skip "curl is not installed"
sh "$here/s3rver-setup.sh" || exit $?

remote_work s3-list

SECRET="colfs-s3-list-secret-$$-K3WV"
LEAK=K3WV
AKID=AKIDCOLFSLIST
BUCKET=colfs-list

# s3rver makes its continuation tokens with DES, which OpenSSL 3 keeps in
# its legacy provider: without it every truncated page is an HTTP 500.
S3_NODE_OPTS=--openssl-legacy-provider
. "$here/s3-server.sh"
# Signed requests by curl, the key pair from a config file.
s3curl() { # METHOD URL-PATH [curl args]: prints the HTTP status
	local m=$1 p=$2
	shift 2
	timeout "$T" curl -sS -K "$WORK/curl.cfg" \
		--aws-sigv4 aws:amz:us-east-1:s3 \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -o "$WORK/curl.out" \
		-w '%{http_code}' -X "$m" "$@" "$ENDPOINT/$p"
}
# The objects are queued, then uploaded by one curl (a process per object
# would cost more than the rest of the test).
: >"$WORK/all.tsv"
: >"$WORK/put.cfg"
put() { # KEY SIZE
	local f
	f=$WORK/obj.$(wc -l <"$WORK/all.tsv")
	head -c "$2" /dev/urandom >"$f"
	printf 'url = "%s/%s/%s"\nupload-file = "%s"\noutput = "/dev/null"\n' \
		"$ENDPOINT" "$BUCKET" "$(pathenc "$1")" "$f" >>"$WORK/put.cfg"
	printf '%s\t%s\n' "$2" "$1" >>"$WORK/all.tsv"
}

code=$(s3curl PUT "$BUCKET") || fail "making the bucket failed"
[ "$code" = 200 ] || fail "making the bucket: HTTP $code"
for i in $(seq 0 11); do
	put "$(printf 'data/part-%03d.parquet' "$i")" "$i"
done
put "data/a b/x=1/file 1.bin" 12
put "data/été/ünï.bin" 13
put "data/k=v+w%z~.bin" 14
put "data/z/deep/er/still.bin" 15
put "data/A.bin" 16
put "data/_hidden.bin" 17
put "datax/beside.bin" 7
put "top.bin" 8
timeout 60 curl -sS -K "$WORK/curl.cfg" -K "$WORK/put.cfg" \
	--aws-sigv4 aws:amz:us-east-1:s3 \
	-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -w '%{http_code}\n' \
	>"$WORK/put.codes" || fail "the uploads failed"
[ "$(grep -c '^200$' "$WORK/put.codes")" = 20 ] ||
	fail "not 20 uploads answered 200: $(sort "$WORK/put.codes" | uniq -c)"
# A folder marker (not an entry); -T would append the file's name to a
# key ending in '/'.
code=$(s3curl PUT "$BUCKET/data/dir/" --data-binary "") ||
	fail "PUT data/dir/: curl failed"
[ "$code" = 200 ] || fail "PUT data/dir/: HTTP $code"
printf '0\tdata/dir/\n' >>"$WORK/all.tsv"

# The server must truncate a page of 3 keys, or the pages prove nothing.
code=$(s3curl GET "$BUCKET?list-type=2&max-keys=3&prefix=data%2F") ||
	fail "listing by curl failed"
[ "$code" = 200 ] || fail "listing by curl: HTTP $code"
grep -q '<IsTruncated>true</IsTruncated>' "$WORK/curl.out" ||
	fail "the server does not truncate a page of 3 keys"

# What a listing of PREFIX must give: the keys under it, relative, in byte
# order, without folder markers.
expect() { # PREFIX
	local LC_ALL=C
	awk -F '\t' -v p="$1" 'index($2, p) == 1 && substr($2, length($2)) != "/" {
		print $1 "\t" substr($2, length(p) + 1) }' "$WORK/all.tsv" |
		sort -t "$(printf '\t')" -k2,2
}

export AWS_ACCESS_KEY_ID=$AKID AWS_SECRET_ACCESS_KEY=$SECRET
export HOME=$WORK/home
unset AWS_PROFILE AWS_REGION AWS_DEFAULT_REGION AWS_CONFIG_FILE \
	AWS_SHARED_CREDENTIALS_FILE AWS_SESSION_TOKEN
list() { timeout "$T" "$S3_LIST" -o "s3_endpoint=$ENDPOINT" "$@"; }

same() { # WHAT PREFIX URL [s3-list args]
	local what=$1 prefix=$2 url=$3 n
	shift 3
	expect "$prefix" >"$WORK/expect"
	list "$@" "$url" >"$WORK/got" 2>"$WORK/err" ||
		fail "$what: s3-list '$url' failed: $(cat "$WORK/err")"
	cmp -s "$WORK/expect" "$WORK/got" || {
		diff "$WORK/expect" "$WORK/got" | head -10 >&2
		fail "$what: the listing of '$url' is not the objects uploaded"
	}
	n=$(wc -l <"$WORK/got")
	[ "$n" -gt 0 ] || fail "$what: nothing listed"
	echo "ok: $what: '$url' lists its $n objects ($*)"
}

same "3 keys a page" "data/" "s3://$BUCKET/data/" -m 3
[ "$(wc -l <"$WORK/got")" = 18 ] || fail "not 18 objects under data/"
grep -qF "$(printf '13\tété/ünï.bin')" "$WORK/got" ||
	fail "the unicode key is not listed as uploaded"
same "the server's page" "data/" "s3://$BUCKET/data/"
same "a prefix with a space" "data/a b/" "s3://$BUCKET/data/a b/" -m 1
same "a prefix that is not a folder" "data" "s3://$BUCKET/data" -m 5
same "an empty prefix" "" "s3://$BUCKET/" -m 2
same "no prefix" "" "s3://$BUCKET" -m 7
expect "nothing/" >"$WORK/expect"
list "s3://$BUCKET/nothing/" >"$WORK/got" 2>"$WORK/err" ||
	fail "an empty listing failed: $(cat "$WORK/err")"
[ -s "$WORK/got" ] && fail "a prefix with no object lists something"
echo "ok: a prefix with no object lists nothing"

refused() { # WHAT CODE WORD URL
	local rc
	list "$4" >"$WORK/got" 2>"$WORK/err"
	rc=$?
	cat "$WORK/err" >>"$WORK/stderr.all"
	[ "$rc" = 1 ] || fail "$1: s3-list exited $rc: $(cat "$WORK/err")"
	grep -q "HTTP $2" "$WORK/err" ||
		fail "$1: the message does not name HTTP $2: $(cat "$WORK/err")"
	grep -q "$3" "$WORK/err" ||
		fail "$1: the message does not name $3: $(cat "$WORK/err")"
	echo "ok: $1: $(cat "$WORK/err")"
}
refused "a wrong bucket" 404 NoSuchBucket "s3://colfs-nosuch/data/"
(
	export AWS_SECRET_ACCESS_KEY="wrong-$SECRET"
	refused "a wrong secret" 403 "s3://$BUCKET/data/" "s3://$BUCKET/data/"
) || exit 1
grep -qF "$LEAK" "$WORK/stderr.all" && fail "a message holds the secret"
grep -E 'Sanitizer|runtime error' "$WORK/stderr.all" >&2 &&
	fail "a sanitizer reported an error"
echo PASS

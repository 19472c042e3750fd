#!/bin/bash
# tests/remote: colfs and colfs-tool on files served over HTTP(S) by a real
# nginx (docs/remote.md), one case per meson test.
#
#   remote-test.sh CASE
#
# Cases:
#   http-tree   Parquet (colfs-mksample), ORC (orc_gen) and CFile
#               (cfile-writer) files: every file of the http mount equals
#               the same path of a local mount of the same file, byte for
#               byte (README and summary name the source: compared with the
#               name put back; `io` exists only in the remote mount).
#   https       a certificate made by `openssl req`: mounted with -o cafile
#               the bytes are those of the local mount; without it the
#               mount is refused with a TLS verification error.
#   requests    counted from nginx's access log (the Range header and the
#               bytes sent): mount + ls + cat summary of a file with 400 row
#               groups is at most 2 requests and 2.1 MiB; cat columns/X
#               fetches at most 1.05 x the compressed size of X's chunks,
#               at most one request per chunk;
#               `io` counts what the log shows.
#   tool        colfs-tool ls/cat/stat on a URL answer as on the file; a
#               URL with user:password@ shows the password nowhere (argv
#               of the daemon, fsname, README, summary, io, messages).
#
# Environment (tests/remote/meson.build): COLFS, COLFS_TOOL, MKSAMPLE,
# ORC_GEN, CFILE_WRITER.  Each case starts its own nginx on 127.0.0.1 on a
# free port with a config it writes, and a trap stops it and unmounts
# everything; each command runs under `timeout`.  Exit 77 (skip) with a
# message when FUSE, nginx or an input generator is missing.
set -euo pipefail

CASE=${1:?usage: remote-test.sh CASE}
: "${COLFS:?COLFS is not set}"
T=${TEST_TIMEOUT:-30}

# $WORK made; every mount undone, nginx stopped and $WORK removed on exit
. "$(dirname "$0")/../need.sh"
. "$(dirname "$0")/../mount-cleanup.sh" colfs-remote-test
chmod 755 "$WORK"
NGINX_PID=
CLEANUP_MORE=nginx_stop

nginx_stop() {
	if [ -n "$NGINX_PID" ]; then
		kill -TERM "$NGINX_PID" 2>/dev/null || true
		local i
		for i in $(seq 1 50); do
			kill -0 "$NGINX_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$NGINX_PID" 2>/dev/null || true
	fi
}

need_nginx() {
	command -v nginx > /dev/null || skip "nginx is not installed (nginx-light, tools/bootstrap.sh)"
	command -v python3 > /dev/null || skip "python3 is not installed (tools/bootstrap.sh)"
}

# A port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_nginx [tls]: serve $WORK/www on 127.0.0.1:$PORT (https with the
# certificate $WORK/cert.pem when asked), access log $WORK/access.log with
# the Range header and the body bytes sent.
start_nginx() {
	local tls=${1:-} listen user_line='' i
	mkdir -p "$WORK/nginx/tmp"
	PORT=$(free_port)
	listen="listen 127.0.0.1:$PORT;"
	if [ "$tls" = tls ]; then
		listen="listen 127.0.0.1:$PORT ssl;
    ssl_certificate $WORK/cert.pem;
    ssl_certificate_key $WORK/key.pem;"
	fi
	# Run as ourselves: as root the workers would switch to nobody.
	if [ "$(id -u)" = 0 ]; then
		user_line="user root;"
	fi
	cat > "$WORK/nginx/nginx.conf" << EOF
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 256; }
http {
  log_format ranges '\$request_method \$uri "\$http_range" \$status \$body_bytes_sent';
  client_body_temp_path $WORK/nginx/tmp/body;
  proxy_temp_path $WORK/nginx/tmp/proxy;
  fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
  uwsgi_temp_path $WORK/nginx/tmp/uwsgi;
  scgi_temp_path $WORK/nginx/tmp/scgi;
  types { application/octet-stream parquet orc cfile; }
  server {
    $listen
    root $WORK/www;
    access_log $WORK/access.log ranges;
  }
}
EOF
	nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" \
		-c "$WORK/nginx/nginx.conf" > "$WORK/nginx/out" 2>&1 &
	NGINX_PID=$!
	for i in $(seq 1 100); do
		if python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2> /dev/null; then
			return 0
		fi
		kill -0 "$NGINX_PID" 2> /dev/null || break
		sleep 0.1
	done
	cat "$WORK/nginx/out" "$WORK/nginx/error.log" >&2 2> /dev/null || true
	fail "nginx did not start on port $PORT"
}

newmnt() {
	NEWMNT=$(mktemp -d "$WORK/mnt.XXXXXX")
	MOUNTS+=("$NEWMNT")
}

mount_it() { # SOURCE MOUNTPOINT [options...]
	local src=$1 mnt=$2
	shift 2
	timeout "$T" "$COLFS" "$@" "$src" "$mnt" ||
		fail "colfs $* $src did not mount"
}

unmount_it() {
	timeout 10 fusermount3 -u "$1" || fail "fusermount3 -u $1"
}

# Requests and body bytes in the access log so far.
log_requests() { grep -c . "$WORK/access.log" || true; }
log_bytes() { awk '{s += $NF} END {print s + 0}' "$WORK/access.log"; }

# Every file of the local mount $1 equals the same path of the http mount
# $2 (one python process walks both: a process per file would take
# minutes); the listings are the same but for `io`.  README and summary
# name the source: $3 (local name) and $4 (URL).
compare_trees() {
	timeout 300 python3 - "$@" << 'EOF'
import os, sys
lm, rm, lname, url = sys.argv[1:5]
def walk(top):
    out = set()
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(d, n), top))
    return out
local, remote = walk(lm), walk(rm)
if remote - local != {"io"} or local - remote:
    sys.exit("FAIL: the listings differ: only local %s, only remote %s"
             % (sorted(local - remote)[:5], sorted(remote - local)[:5]))
n = 0
for p in sorted(local):
    lp, rp = os.path.join(lm, p), os.path.join(rm, p)
    if os.path.isdir(lp):
        continue
    with open(lp, "rb") as f:
        a = f.read()
    with open(rp, "rb") as f:
        b = f.read()
    if p in ("README", "summary"):
        a = a.replace(lname.encode(), b"SOURCE")
        b = b.replace(url.encode(), b"SOURCE")
        b = b"".join(l for l in b.splitlines(True) if not l.startswith(b"io  "))
    if a != b:
        sys.exit("FAIL: %s differs between the local and the http mount (%s)"
                 % (p, url))
    n += 1
print("%s: %d files equal" % (url, n))
EOF
}

need_generators() {
	[ -n "${MKSAMPLE:-}" ] && [ -x "$MKSAMPLE" ] || skip "colfs-mksample is not built"
}

case_http_tree() {
	need_fuse
	need_nginx
	need_generators
	[ -n "${ORC_GEN:-}" ] && [ -x "$ORC_GEN" ] || skip "orc_gen (tests/orc) is not built"
	[ -n "${CFILE_WRITER:-}" ] && [ -x "$CFILE_WRITER" ] || skip "cfile-writer (tests/cfile) is not built"
	mkdir -p "$WORK/www"
	# Parquet: 3.6 MB, larger than the first request (2 MiB) and than
	# the cache (-o remote_cache=4M), so ranges, hints and evictions are
	# exercised; and a small one with every kind of node (page index,
	# bloom filters, dictionaries), served from the first request.
	timeout "$T" "$MKSAMPLE" "$WORK/www/s.parquet" --rows 120000 \
		--row-groups 4 --page-rows 15000 > /dev/null || fail "colfs-mksample"
	timeout "$T" "$MKSAMPLE" "$WORK/www/small.parquet" > /dev/null ||
		fail "colfs-mksample"
	timeout "$T" "$ORC_GEN" "$WORK/www/s.orc" 20000 5000 > /dev/null ||
		fail "orc_gen"
	timeout "$T" "$CFILE_WRITER" --type STRING --encoding PREFIX \
		--nullable --count 3000 --block-rows 500 "$WORK/www/s.cfile" \
		> /dev/null || fail "cfile-writer"
	start_nginx
	local f url
	for f in s.parquet small.parquet s.orc s.cfile; do
		url=http://127.0.0.1:$PORT/$f
		newmnt
		local lm=$NEWMNT
		newmnt
		local rm=$NEWMNT
		mount_it "$WORK/www/$f" "$lm"
		mount_it "$url" "$rm" -o remote_cache=4M
		compare_trees "$lm" "$rm" "$WORK/www/$f" "$url"
		# The tree's own errors are none, and io counts requests.
		[ ! -s "$rm/errors" ] || fail "$f: errors over http: $(head -3 "$rm/errors")"
		grep -q '^requests: [1-9]' "$rm/io" || fail "$f: io shows no request: $(cat "$rm/io")"
		unmount_it "$rm"
		unmount_it "$lm"
	done
	# A missing object: refused before mounting, naming the status.
	newmnt
	local out
	if out=$(timeout "$T" "$COLFS" "http://127.0.0.1:$PORT/none.parquet" "$NEWMNT" 2>&1); then
		fail "a missing object mounted"
	fi
	case $out in
	*404*) ;;
	*) fail "a missing object: no 404 in the message: $out" ;;
	esac
	echo "missing object: $out"
}

case_https() {
	need_fuse
	need_nginx
	need_generators
	command -v openssl > /dev/null || skip "openssl is not installed (tools/bootstrap.sh)"
	mkdir -p "$WORK/www"
	timeout "$T" "$MKSAMPLE" "$WORK/www/s.parquet" --rows 40000 \
		--row-groups 4 > /dev/null || fail "colfs-mksample"
	timeout "$T" openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		-subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
		-keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2> /dev/null ||
		fail "openssl req"
	start_nginx tls
	local url=https://127.0.0.1:$PORT/s.parquet out
	newmnt
	local lm=$NEWMNT
	newmnt
	local rm=$NEWMNT
	mount_it "$WORK/www/s.parquet" "$lm"
	mount_it "$url" "$rm" -o "cafile=$WORK/cert.pem"
	local p
	for p in metadata.json columns/id columns/name rows.jsonl \
		row_groups/2/chunks/price/raw; do
		timeout "$T" cmp "$lm/$p" "$rm/$p" > /dev/null ||
			fail "https: $p differs from the local mount"
	done
	unmount_it "$rm"
	unmount_it "$lm"
	# Without the CA: refused, the TLS verification named.
	newmnt
	if out=$(timeout "$T" "$COLFS" "$url" "$NEWMNT" 2>&1); then
		fail "https without cafile mounted"
	fi
	case $out in
	*certificate* | *verif* | *TLS* | *SSL*) ;;
	*) fail "https without cafile: not a TLS verification error: $out" ;;
	esac
	echo "without cafile: $out"
}

case_requests() {
	need_fuse
	need_nginx
	need_generators
	command -v jq > /dev/null || skip "jq is not installed (tools/bootstrap.sh)"
	mkdir -p "$WORK/www"
	# 400 row groups: a footer of several hundred KiB in a 6.7 MB file.
	timeout "$T" "$MKSAMPLE" "$WORK/www/many.parquet" --rows 400000 \
		--row-groups 400 --codec snappy > /dev/null || fail "colfs-mksample"
	start_nginx
	local url=http://127.0.0.1:$PORT/many.parquet
	newmnt
	local rm=$NEWMNT
	: > "$WORK/access.log"
	mount_it "$url" "$rm"
	timeout "$T" ls "$rm" > /dev/null || fail "ls"
	timeout "$T" cat "$rm/summary" > /dev/null || fail "cat summary"
	local n b
	n=$(log_requests)
	b=$(log_bytes)
	echo "mount + ls + cat summary: $n requests, $b bytes"
	[ "$n" -le 2 ] || fail "mount + ls + cat summary made $n requests (at most 2): $(cat "$WORK/access.log")"
	[ "$b" -le 2202009 ] || fail "mount + ls + cat summary fetched $b bytes (at most 2.1 MiB)"
	grep -q "^requests: $n\$" "$rm/io" || fail "io does not count $n requests: $(cat "$rm/io")"
	local c comp
	for c in id price; do
		comp=$(timeout "$T" jq "[.row_groups[].columns[] |
			select(.meta_data.path_in_schema == [\"$c\"]) |
			.meta_data.total_compressed_size] | add" "$rm/metadata.json")
		: > "$WORK/access.log"
		timeout "$T" cat "$rm/columns/$c" > "$WORK/$c.remote" || fail "cat columns/$c"
		n=$(log_requests)
		b=$(log_bytes)
		echo "cat columns/$c: $n requests, $b bytes; its chunks: $comp bytes compressed"
		[ "$((b * 100))" -le "$((comp * 105))" ] ||
			fail "cat columns/$c fetched $b bytes, over 1.05 x $comp"
		# A chunk is one request (the hint of its page walk), not one
		# per page header: at most one per row group.
		[ "$n" -le 400 ] || fail "cat columns/$c made $n requests for 400 chunks"
	done
	# The bytes are right too.
	newmnt
	mount_it "$WORK/www/many.parquet" "$NEWMNT"
	cmp "$WORK/price.remote" "$NEWMNT/columns/price" || fail "columns/price differs"
}

case_tool() {
	need_nginx
	need_generators
	[ -n "${COLFS_TOOL:-}" ] && [ -x "$COLFS_TOOL" ] || skip "colfs-tool is not built"
	mkdir -p "$WORK/www"
	timeout "$T" "$MKSAMPLE" "$WORK/www/s.parquet" --rows 30000 \
		--row-groups 3 > /dev/null || fail "colfs-mksample"
	start_nginx
	local url=http://127.0.0.1:$PORT/s.parquet f=$WORK/www/s.parquet p
	timeout "$T" "$COLFS_TOOL" ls "$url" > "$WORK/ls.r" || fail "colfs-tool ls URL"
	timeout "$T" "$COLFS_TOOL" ls "$f" > "$WORK/ls.l" || fail "colfs-tool ls FILE"
	grep -vx io "$WORK/ls.r" | cmp -s - "$WORK/ls.l" ||
		fail "colfs-tool ls differs: $(diff "$WORK/ls.l" "$WORK/ls.r")"
	for p in columns/id columns/name metadata.json row_groups/1/chunks/id/raw; do
		timeout "$T" "$COLFS_TOOL" cat "$url" "$p" > "$WORK/c.r" || fail "colfs-tool cat URL $p"
		timeout "$T" "$COLFS_TOOL" cat "$f" "$p" > "$WORK/c.l" || fail "colfs-tool cat FILE $p"
		cmp -s "$WORK/c.r" "$WORK/c.l" || fail "colfs-tool cat $p differs"
	done
	timeout "$T" "$COLFS_TOOL" cat "$url" io | grep -q '^requests: [1-9]' ||
		fail "colfs-tool cat URL io"
	# Credentials: shown nowhere (nginx does not ask for them).
	local secret=s3cr3t-pw-$$ curl_url out
	curl_url=http://alice:$secret@127.0.0.1:$PORT/s.parquet
	out=$(timeout "$T" "$COLFS_TOOL" cat "$curl_url" summary 2>&1) ||
		fail "colfs-tool with user:password@"
	case $out in *$secret*) fail "colfs-tool showed the password" ;; esac
	out=$(timeout "$T" "$COLFS_TOOL" cat "http://alice:$secret@127.0.0.1:$PORT/none.parquet" summary 2>&1) &&
		fail "a missing object opened"
	case $out in *$secret*) fail "the error message showed the password: $out" ;; esac
	if [ -c /dev/fuse ] && command -v fusermount3 > /dev/null; then
		newmnt
		local m=$NEWMNT pid
		mount_it "$curl_url" "$m"
		pid=$(pgrep -n -f "colfs .*127.0.0.1:$PORT/s.parquet $m") || fail "no daemon process"
		tr '\0' ' ' < "/proc/$pid/cmdline" > "$WORK/cmdline"
		grep -q "$secret" "$WORK/cmdline" && fail "the process title shows the password: $(cat "$WORK/cmdline")"
		grep -q "alice" "$WORK/cmdline" && fail "the process title shows the user: $(cat "$WORK/cmdline")"
		grep " $m " /proc/self/mounts | grep -q "$secret" && fail "fsname shows the password"
		for p in README summary io errors; do
			grep -q "$secret" "$m/$p" && fail "$p shows the password"
		done
		grep -q "^source: http://127.0.0.1:$PORT/s.parquet\$" "$m/io" ||
			fail "io does not name the URL without credentials: $(head -2 "$m/io")"
		unmount_it "$m"
	fi
	echo "colfs-tool on a URL: ls, cat and credentials ok"
}

case "$CASE" in
http-tree) case_http_tree ;;
https) case_https ;;
requests) case_requests ;;
tool) case_tool ;;
*) fail "unknown case $CASE" ;;
esac

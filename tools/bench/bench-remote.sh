#!/bin/sh
# colfs benchmark of a remote file.  The same Parquet file
# through three mounts, one after the other:
#   local   colfs FILE MNT
#   http    colfs http://127.0.0.1:P/FILE MNT, served by nginx
#   +50ms   the same through tests/remote/faultproxy.py in front of nginx,
#           which holds every request 50 ms (REMOTE_DELAY_MS)
# For each: mount + `ls` + `cat summary` (wall time), then `cat
# columns/seq` (wall time, bytes); for the remote ones the requests and
# body bytes nginx served for each step (its access log) and what the
# mount's `io` document counts (requests, bytes fetched), and the
# compressed size of the seq column's chunks (the sum of their `raw`).
# Usage: tools/bench/bench-remote.sh [FILE]
#   FILE default $COLFS_BENCH_DIR/bench-50000000.parquet (tools/bench/
#   bench.sh makes it; COLFS_BENCH_DIR default /tmp/colfs-bench).
# Environment: COLFS_BUILD (build directory, default build), COLFS_OPTS
# (daemon -o options), REMOTE_DELAY_MS (default 50), REMOTE_TIMEOUT
# (seconds allowed to each step, default 600).
set -eu
cd "$(dirname "$0")/../.."
DIR=${COLFS_BENCH_DIR:-/tmp/colfs-bench}
F=${1:-$DIR/bench-50000000.parquet}
B=${COLFS_BUILD:-build}
TMO=${REMOTE_TIMEOUT:-600}
DELAY=${REMOTE_DELAY_MS:-50}
[ -f "$F" ] || { echo "$F: no such file (tools/bench/bench.sh makes it)" >&2; exit 1; }
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] ||
	{ echo "nginx is not installed (COLFS_WITH_TEST_TOOLS=1 tools/bootstrap.sh installs nginx-light)" >&2; exit 1; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
F=$(realpath "$F")
W=$(mktemp -d /tmp/colfs-bench-remote.XXXXXX)
MNT=$W/mnt
mkdir "$MNT"
PID= PROXY=
cleanup() {
	if mountpoint -q "$MNT"; then
		fusermount3 -u "$MNT" 2>/dev/null || true
	fi
	if [ -n "$PID" ]; then
		wait "$PID" 2>/dev/null || true
	fi
	if [ -n "$PROXY" ]; then
		kill "$PROXY" 2>/dev/null || true
		wait "$PROXY" 2>/dev/null || true
	fi
	if [ -s "$W/nginx.pid" ]; then
		kill "$(cat "$W/nginx.pid")" 2>/dev/null || true
		i=0
		while [ -s "$W/nginx.pid" ] && [ $i -lt 100 ]; do
			i=$((i + 1))
			sleep 0.05
		done
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
mib() { awk -v n="$1" 'BEGIN { printf "%.2f MiB", n / 1048576 }'; }
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nginx serving the file's directory, as this user, on a free port; the
# access log has the status, body bytes and Range of each request.
PORT=$(free_port)
user=$(id -un)
group=$(id -gn)
cat >"$W/nginx.conf" <<EOF
worker_processes 2;
pid $W/nginx.pid;
error_log $W/error.log;
$([ "$(id -u)" = 0 ] && echo "user $user $group;")
events { worker_connections 256; }
http {
	log_format bench '\$status \$body_bytes_sent "\$http_range"';
	access_log $W/access.log bench;
	client_body_temp_path $W/body;
	sendfile on;
	server {
		listen 127.0.0.1:$PORT;
		root $(dirname "$F");
		location / { }
	}
}
EOF
"$NGINX" -p "$W" -c "$W/nginx.conf" -e "$W/error.log" 2>"$W/nginx.err" ||
	{ cat "$W/nginx.err" >&2; exit 1; }
python3 tests/remote/faultproxy.py --upstream "http://127.0.0.1:$PORT" \
	--mode "delay:$DELAY" --port-file "$W/proxy.port" &
PROXY=$!
i=0
while [ ! -s "$W/proxy.port" ]; do
	i=$((i + 1))
	[ $i -lt 400 ] || { echo "the proxy did not start" >&2; exit 1; }
	sleep 0.025
done
PPORT=$(cat "$W/proxy.port")
NAME=$(basename "$F")

mount_it() { # SOURCE
	"$B"/fs/colfs -f -o size_index=off${COLFS_OPTS:+,$COLFS_OPTS} "$1" "$MNT" &
	PID=$!
	i=0
	while ! mountpoint -q "$MNT"; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { echo "mount timed out" >&2; exit 1; }
		kill -0 $PID 2>/dev/null || { echo "colfs failed" >&2; exit 1; }
		sleep 0.005
	done
}
unmount_it() {
	fusermount3 -u "$MNT"
	wait $PID || true
	PID=
}
# The access log's requests and body bytes since line $1.
served() {
	awk -v from="$1" 'NR > from { n++; b += $2 }
		END { printf "%d requests, %d bytes", n, b }' "$W/access.log"
}
log_lines() { [ -f "$W/access.log" ] && wc -l <"$W/access.log" || echo 0; }
# "requests N, bytes fetched N" of the mount's io document.
io_counts() {
	awk '/^requests:/ { r = $2 } /^bytes fetched:/ { b = $3 }
		END { printf "%d %d", r, b }' "$MNT/io"
}

# The compressed size of the seq column: its chunks' raw bytes.
mount_it "$F"
seq_bytes=$(for d in "$MNT"/row_groups/*/chunks/seq; do
	stat -c %s "$d/raw"; done | awk '{ s += $1 } END { print s }')
unmount_it
echo "== $F ($(stat -c %s "$F") bytes; the seq column's chunks: $seq_bytes bytes, $(mib "$seq_bytes"))"

bench_one() { # LABEL SOURCE
	label=$1
	l0=$(log_lines)
	t0=$(now)
	mount_it "$2"
	timeout "$TMO" ls "$MNT" >/dev/null
	timeout "$TMO" cat "$MNT/summary" >/dev/null
	t1=$(now)
	l1=$(log_lines)
	line="$label: mount + ls + cat summary $(secs "$t0" "$t1") s"
	if [ -f "$MNT/io" ]; then
		set -- $(io_counts)
		r1=$1 b1=$2
		line="$line; nginx: $(served "$l0"); io: $r1 requests, $b1 bytes"
	fi
	echo "$line"
	t0=$(now)
	n=$(timeout "$TMO" cat "$MNT/columns/seq" | wc -c)
	t1=$(now)
	line="$label: cat columns/seq ($n bytes) $(secs "$t0" "$t1") s"
	if [ -f "$MNT/io" ]; then
		set -- $(io_counts)
		line="$line; nginx: $(served "$l1"); io: $(($1 - r1)) requests, $(($2 - b1)) bytes"
		line="$line ($(awk -v a="$(($2 - b1))" -v b="$seq_bytes" 'BEGIN { printf "%.3f", a / b }') x the chunks)"
	fi
	echo "$line"
	unmount_it
}

bench_one local "$F"
bench_one http "http://127.0.0.1:$PORT/$NAME"
bench_one "http +${DELAY}ms" "http://127.0.0.1:$PPORT/$NAME"

#!/bin/sh
# colfs: the README's first command.  Installs what is missing, builds,
# writes a sample Parquet file with colfs's own writer, mounts it, shows
# `ls` and a few files, and unmounts.  Give a file to mount your own:
#   tools/demo.sh [FILE]
set -eu
cd "$(dirname "$0")/.."
tools/bootstrap.sh

FILE=${1:-}
WORK=$(mktemp -d /tmp/colfs-demo.XXXXXX)
MNT="$WORK/mnt"
mkdir -p "$MNT"
cleanup() {
	cd /   # the shell's own working directory would keep the mount busy
	fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -u -z "$MNT" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE
if [ -z "$FILE" ]; then
	FILE="$WORK/sample.parquet"
	build/tools/colfs-mksample "$FILE"
fi

build/fs/colfs "$FILE" "$MNT"
show() {
	echo "\$ $*"
	"$@" || true
	echo
}
cd "$MNT"
show ls
show cat format
show cat summary
show cat schema
show ls row_groups/0/chunks
if [ -d columns ]; then
	show ls columns
	for c in $(ls columns | head -3); do show head -5 "columns/$c"; done
fi
show cat errors
cd /

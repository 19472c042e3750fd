#!/bin/sh
# colfs: install what is missing (Debian 12) and build into ./build.
# Used by tools/demo.sh and tests/run.  As root it runs apt-get itself;
# otherwise it prints the apt-get line to run and stops.
set -eu
cd "$(dirname "$0")/.."

PKGS="meson ninja-build pkg-config gcc libc6-dev fuse3 libfuse3-dev zlib1g-dev
libzstd-dev liblz4-dev libsnappy-dev libbrotli-dev liblzo2-dev libxxhash-dev
libprotobuf-c-dev protobuf-c-compiler libjansson-dev libcmocka-dev
libcurl4-openssl-dev libroaring-dev libssl-dev libexpat1-dev tzdata"
# Extra tools the tests use: clang for fuzzing, node/npm for the DuckDB
# oracle, python3 to count results, bitshuffle (the reference library for
# CFile bitshuffle blocks, a module of /usr/bin/python3), rsync (the exact
# sizes tests copy the mount with it), procps (pgrep), time (the
# benchmarks read a tool's peak memory with /usr/bin/time),
# man-db (the man page test), nginx-light and openssl (the remote tests
# serve files over HTTP and HTTPS with a certificate they make), curl
# (the S3 test uploads its files with signed PUTs), shfmt (tests/tool/commands-audit.py parses
# the scripts with it), ca-certificates (npm verifies the registry's TLS
# with the system's store; nodejs only recommends it), python3-numpy
# (tests/arrays loads the .npy files of arrays/ with numpy), python3-pandas
# (tests/values reads rows.csv back with pandas' read_csv), attr (getfattr and
# setfattr: the extended attributes tests), libxml2-utils (xmllint parses
# layout.svg), chromium (renders layout.svg headless), dpkg-dev and
# debhelper (tests/package builds the Debian package with
# dpkg-buildpackage and dh), lintian (and checks the .deb with it), git
# (the no-past-refs test lists the project's files with git grep).
# Every command a script runs must be in a minimal Debian 12 or come from
# this list: the commands-audit test checks it.
if [ "${COLFS_WITH_TEST_TOOLS:-0}" = 1 ]; then
	PKGS="$PKGS clang libclang-rt-14-dev python3 jq bitshuffle rsync procps
time man-db shfmt ca-certificates nodejs npm nginx-light openssl curl
python3-numpy python3-pandas attr libxml2-utils chromium dpkg-dev debhelper
lintian git"
fi
# --list: print the packages and stop (tests/tool/commands-audit.py checks
# that every command the scripts run comes from one of them or from a
# minimal Debian).
if [ "${1:-}" = --list ]; then
	echo $PKGS
	exit 0
fi

missing=""
for p in $PKGS; do
	# A node installed otherwise (e.g. from NodeSource, npm included) serves.
	case $p in
	nodejs) command -v node >/dev/null 2>&1 && continue ;;
	npm) command -v npm >/dev/null 2>&1 && continue ;;
	esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "colfs: installing:$missing" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q >/dev/null
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $missing >/dev/null
	else
		echo "colfs: missing packages; run as root:" >&2
		echo "  apt-get update && apt-get install -y$missing" >&2
		exit 1
	fi
fi

BUILD=${COLFS_BUILD:-build}
if [ ! -f "$BUILD/build.ninja" ]; then
	meson setup "$BUILD" ${COLFS_MESON_ARGS:-} >/dev/null
fi
# COLFS_TARGETS: only these targets (the ThreadSanitizer build of
# tests/run builds what its suite needs); default everything.
# shellcheck disable=SC2086
ninja -C "$BUILD" ${COLFS_TARGETS:-} >/dev/null || ninja -C "$BUILD" ${COLFS_TARGETS:-}

#!/bin/sh
# colfs: check the README's promise on a bare Debian 12 machine.
#
#   tools/bare-machine.sh [--no-shared | --shared DIR] [--keep] [--no-tests] [WORKDIR]
#
# Makes a minimal Debian 12 root (debootstrap --variant=minbase bookworm:
# nothing else installed, `apt-get update` never run), copies the project
# in with `git archive HEAD` (committed files only), binds /dev, /proc and
# /sys so that FUSE works inside, and runs the README's two commands there
# as a new user would: tools/demo.sh, then tests/run.  With --shared DIR
# (default: ../shared beside the project, when it exists) that folder is
# bound read-only beside the copy, as ../shared; --no-shared leaves it out.
# Prints how long each command took and ends with tests/run's last line.
# --no-tests: instead of tests/run, only install what the tests need and
# build (tools/bootstrap.sh with the test tools): a quick check of the
# package lists.  The root is made under WORKDIR (default
# /var/tmp/colfs-bare) and removed afterwards unless --keep.  Needs root; installs debootstrap when missing.
# The mirror is debootstrap's default unless COLFS_MIRROR is set.
set -eu
cd "$(dirname "$0")/.."
SRC=$(pwd)

SHARED=
[ -d ../shared ] && SHARED=$(cd ../shared && pwd)
KEEP=0
NOTESTS=0
WORKDIR=/var/tmp/colfs-bare
while [ $# -gt 0 ]; do
	case $1 in
	--no-shared) SHARED= ;;
	--shared) [ $# -ge 2 ] || { echo "bare-machine: --shared needs a folder" >&2; exit 2; }
		SHARED=$(cd "$2" && pwd); shift ;;
	--keep) KEEP=1 ;;
	--no-tests) NOTESTS=1 ;;
	-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "bare-machine: unknown option $1" >&2; exit 2 ;;
	*) WORKDIR=$1 ;;
	esac
	shift
done

[ "$(id -u)" = 0 ] || { echo "bare-machine: must run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
if ! command -v debootstrap >/dev/null 2>&1 || ! command -v git >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends debootstrap git >/dev/null
fi

git -C "$SRC" rev-parse --verify -q HEAD >/dev/null ||
	{ echo "bare-machine: $SRC is not a git checkout with a commit" >&2; exit 2; }
mkdir -p "$WORKDIR"
ROOT=$(mktemp -d "$WORKDIR/root.XXXXXX")
chmod 0755 "$ROOT"   # it is /: every user walks through it
BOUND=""
cleanup() {
	set +e
	# processes still running in the root (an interrupted run)
	for p in /proc/[0-9]*; do
		case $(readlink "$p/root" 2>/dev/null) in
		"$ROOT"|"$ROOT"/*) kill -9 "${p#/proc/}" 2>/dev/null ;;
		esac
	done
	# FUSE mounts a failed run left inside, then the binds, innermost first
	grep -F " $ROOT/" /proc/self/mounts | awk '{print $2}' | sort -r |
	while read -r m; do
		umount -l "$m" 2>/dev/null
	done
	grep -q -F " $ROOT " /proc/self/mounts && umount -l "$ROOT"
	if [ "$KEEP" = 1 ]; then
		echo "bare-machine: kept $ROOT"
	else
		rm -rf --one-file-system "$ROOT"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

now() { date +%s; }

t0=$(now)
# shellcheck disable=SC2086
debootstrap --variant=minbase bookworm "$ROOT" ${COLFS_MIRROR:-} \
	>"$WORKDIR/debootstrap.log" 2>&1 ||
	{ tail -20 "$WORKDIR/debootstrap.log" >&2; echo "bare-machine: debootstrap failed" >&2; exit 1; }
t1=$(now)
echo "bare-machine: minimal Debian 12 root in $ROOT ($((t1 - t0)) s)"

# The root is a mount point, as / is on a machine (unshare --mount, which
# a test uses, needs that).
mount --bind "$ROOT" "$ROOT"
mkdir -p "$ROOT/root/colfs"
git -C "$SRC" archive HEAD | tar -x -C "$ROOT/root/colfs"
for d in dev proc sys; do
	mount --rbind "/$d" "$ROOT/$d"
	mount --make-rslave "$ROOT/$d"
done
# This network's settings come in, as a machine on it has them: the name
# servers, and the extra CA certificates TLS is verified with here (node's
# NODE_EXTRA_CA_CERTS, for npm).
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
EXTRA_CA=
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
	cp "$NODE_EXTRA_CA_CERTS" "$ROOT/etc/colfs-host-ca.crt"
	EXTRA_CA=NODE_EXTRA_CA_CERTS=/etc/colfs-host-ca.crt
fi
if [ -n "$SHARED" ]; then
	mkdir -p "$ROOT/root/shared"
	mount --bind "$SHARED" "$ROOT/root/shared"
	mount -o remount,bind,ro "$ROOT/root/shared"
	echo "bare-machine: ../shared is $SHARED (read-only)"
else
	echo "bare-machine: no ../shared"
fi

# A login's environment, nothing of this machine's.
in_root() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 $EXTRA_CA \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /root/colfs && $1"
}

rc=0
t0=$(now)
in_root 'tools/demo.sh' >"$WORKDIR/demo.log" 2>&1 || rc=$?
t1=$(now)
echo "bare-machine: tools/demo.sh exit $rc in $((t1 - t0)) s (log: $WORKDIR/demo.log)"
[ "$rc" = 0 ] || tail -20 "$WORKDIR/demo.log"
drc=$rc

rc=0
t0=$(now)
if [ "$NOTESTS" = 1 ]; then
	in_root 'COLFS_WITH_TEST_TOOLS=1 tools/bootstrap.sh' >"$WORKDIR/tests.log" 2>&1 || rc=$?
	t1=$(now)
	echo "bare-machine: test tools installed and built, exit $rc in $((t1 - t0)) s (log: $WORKDIR/tests.log)"
	[ "$rc" = 0 ] || tail -20 "$WORKDIR/tests.log"
	[ "$drc" = 0 ] && [ "$rc" = 0 ]
	exit
fi
in_root 'tests/run' >"$WORKDIR/tests.log" 2>&1 || rc=$?
t1=$(now)
echo "bare-machine: tests/run exit $rc in $((t1 - t0)) s (log: $WORKDIR/tests.log)"
grep -E '^(FAILED|skipped) ' "$WORKDIR/tests.log" | sed 's/^/  /' || true
tail -n 1 "$WORKDIR/tests.log"
[ "$drc" = 0 ] && [ "$rc" = 0 ]

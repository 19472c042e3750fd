#!/bin/bash
# tests/package/package-build.sh: the Debian package, built and looked at.
#
# Runs in the ordinary test run whenever dpkg-buildpackage and dh are
# installed (tests/run installs them; README, "Installing the Debian
# package"); skips (77) without them or without the build dependencies.
# To stay inside the CI's time, the build is the package's alone: no test
# programs (debian/rules configures -Dtests=false), DEB_BUILD_OPTIONS
# nocheck, noautodbgsym (no debug-symbols package) and parallel=2; about 40 s
# of CPU (README).
#
# A copy of the source tree (without build directories and node_modules)
# is built with `dpkg-buildpackage -b -us -uc` (offline: the build
# dependencies are Debian's, checked first with dpkg-checkbuilddeps), then
#   - its control file names the colfs package and depends on fuse3, and
#     every package it depends on is installed here; `apt-get install -s
#     ./colfs_*.deb` (simulated) would install colfs and nothing else;
#   - the .deb is unpacked with `dpkg -x` into a scratch root, and holds
#     both programs (and no other: the test programs and colfs-mksample
#     are not packaged), which run and print their version, both man
#     pages (which man(1) renders without a warning), README and every
#     docs/*.md, the copyright, and the bash completion (colfs-tool a link
#     to colfs, both functions registered when it is sourced);
#   - when lintian is installed (tools/bootstrap.sh installs it), its
#     tags on the .deb (errors, warnings, info, pedantic) are printed, and
#     an error (E:) or a warning (W:) fails the test;
#   - as root with /dev/fuse, unshare and overlayfs: in a private mount
#     namespace, the package's usr/bin is laid over /usr/bin (an overlay,
#     in that namespace only), so the packaged colfs is /usr/bin/colfs as
#     after `apt install`; then `mount -t fuse.colfs FILE DIR -o
#     ro,dev,suid,exec,noatime,nofail,_netdev` and an fstab line (`mount
#     -T FSTAB DIR`) each mount a sample file through fuse3's mount
#     helper with no other step; rows.csv equals `colfs-tool cat`'s;
#     `umount` ends each.
# Exit 0 pass, 1 fail, 77 skip.
#   package-build.sh SOURCE_ROOT   (COLFS_TOOL, COLFS_MKSAMPLE in the environment)
set -u
src=$(cd "${1:?source root}" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

command -v dpkg-buildpackage >/dev/null ||
	skip "dpkg-buildpackage is not installed (Debian's dpkg-dev)"
command -v dh >/dev/null || skip "dh is not installed (Debian's debhelper)"
for v in COLFS_TOOL COLFS_MKSAMPLE; do
	[ -x "${!v:-}" ] || fail "$v is not set to a program"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/colfs-package.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/src"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=node_modules \
	--exclude=./debian/colfs --exclude=./debian/.debhelper \
	--exclude='./obj-*' -cf - . | tar -C "$WORK/src" -xf - ||
	fail "copying the source tree failed"
(cd "$WORK/src" && dpkg-checkbuilddeps) 2>"$WORK/deps.err" ||
	skip "build dependencies missing: $(cat "$WORK/deps.err")"
start=$(date +%s)
(cd "$WORK/src" && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=2" \
	timeout 900 dpkg-buildpackage -b -us -uc) >"$WORK/build.log" 2>&1 ||
	fail "dpkg-buildpackage failed: $(tail -20 "$WORK/build.log")"
deb=$(ls "$WORK"/colfs_*_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || fail "no colfs_*.deb was made"
echo "ok: built $(basename "$deb") in $(($(date +%s) - start)) s"

# ---- the control file ------------------------------------------------------
dpkg-deb -f "$deb" Package | grep -qx colfs || fail "the package is not named colfs"
dpkg-deb -f "$deb" Depends | grep -qw fuse3 ||
	fail "the package does not depend on fuse3: $(dpkg-deb -f "$deb" Depends)"
echo "ok: Depends: $(dpkg-deb -f "$deb" Depends)"
# each dependency (the first of its alternatives) is installed here
for d in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*//'); do
	dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" ||
		fail "the package depends on $d, which is not installed here"
done
# `apt install ./colfs_*.deb`, simulated (-s: nothing is installed): apt
# takes the local file and would install colfs alone
if command -v apt-get >/dev/null; then
	if timeout 120 apt-get install -s "$deb" >"$WORK/apt.txt" 2>&1; then
		grep -q "^Inst colfs ($(dpkg-deb -f "$deb" Version) local-deb" "$WORK/apt.txt" ||
			fail "apt-get install -s: $(tail -5 "$WORK/apt.txt")"
		[ "$(grep -c '^Inst ' "$WORK/apt.txt")" = 1 ] ||
			fail "apt would install more than colfs: $(grep '^Inst ' "$WORK/apt.txt")"
		echo "ok: apt-get install -s ./$(basename "$deb"): $(grep '^Inst ' "$WORK/apt.txt")"
	elif grep -q 'Could not get lock\|Unable to lock' "$WORK/apt.txt"; then
		echo "SKIP (part): apt-get install -s: apt is locked by another process"
	else
		fail "apt-get install -s failed: $(tail -5 "$WORK/apt.txt")"
	fi
fi

# ---- the files ---------------------------------------------------------------
root=$WORK/root
dpkg -x "$deb" "$root" || fail "dpkg -x failed"
[ "$(ls "$root/usr/bin" | tr '\n' ' ')" = "colfs colfs-tool " ] ||
	fail "usr/bin holds $(ls "$root/usr/bin" | tr '\n' ' '), not colfs and colfs-tool"
for f in usr/bin/colfs usr/bin/colfs-tool; do
	[ -x "$root/$f" ] || fail "$f is not executable in the package"
done
for f in usr/share/man/man1/colfs.1.gz usr/share/man/man1/colfs-tool.1.gz \
	usr/share/doc/colfs/copyright usr/share/doc/colfs/README.md.gz \
	usr/share/doc/colfs/tree.md.gz usr/share/doc/colfs/errors.md.gz \
	usr/share/bash-completion/completions/colfs; do
	[ -f "$root/$f" ] || fail "$f is not in the package"
done
for d in "$src"/docs/*.md; do
	[ -f "$root/usr/share/doc/colfs/$(basename "$d").gz" ] ||
		fail "docs/$(basename "$d") is not in the package"
done
[ "$(readlink "$root/usr/share/bash-completion/completions/colfs-tool")" = colfs ] ||
	fail "the completion of colfs-tool is not a link to colfs's"
"$root/usr/bin/colfs" --version 2>&1 | grep -q . ||
	fail "the packaged colfs does not run"
"$root/usr/bin/colfs-tool" --version | grep -q '^colfs-tool ' ||
	fail "the packaged colfs-tool does not run"
out=$(bash -c '. "$1"; complete -p colfs colfs-tool' _ \
	"$root/usr/share/bash-completion/completions/colfs-tool") ||
	fail "sourcing the packaged completion failed"
[ "$out" = "complete -F _colfs colfs
complete -F _colfs_tool colfs-tool" ] || fail "the packaged completion registers '$out'"
if command -v man >/dev/null; then
	for m in colfs colfs-tool; do
		w=$(MANWIDTH=80 timeout 30 man --warnings -l \
			"$root/usr/share/man/man1/$m.1.gz" 2>&1 >/dev/null) ||
			fail "man -l $m.1.gz failed: $w"
		[ -z "$w" ] || fail "man $m.1.gz warns: $w"
	done
fi
echo "ok: both programs, man pages, $(ls "$root/usr/share/doc/colfs" | wc -l) docs, the completion"

# ---- lintian, when installed -------------------------------------------------
if command -v lintian >/dev/null; then
	rc=0
	timeout 300 lintian --no-cfg -I -E --pedantic "$deb" >"$WORK/lintian.txt" 2>&1 || rc=$?
	# 1: tags at its fail-on level (checked below); more: it did not run
	[ "$rc" -le 1 ] || fail "lintian failed ($rc): $(tail -5 "$WORK/lintian.txt")"
	grep '^[A-Z]: ' "$WORK/lintian.txt" >"$WORK/tags.txt"
	echo "lintian: $(wc -l <"$WORK/tags.txt") tags"
	sed 's/^/  /' "$WORK/tags.txt"
	! grep -q '^[EW]: ' "$WORK/tags.txt" || fail "lintian reports errors or warnings"
else
	echo "lintian is not installed: its check left out"
fi

# ---- mount -t fuse.colfs and fstab -----------------------------------------
if [ "$(id -u)" != 0 ] || [ ! -c /dev/fuse ] || ! command -v unshare >/dev/null ||
	! command -v mount.fuse3 >/dev/null; then
	echo "SKIP (part): mount -t fuse.colfs needs root, /dev/fuse, unshare and mount.fuse3"
	echo PASS
	exit 0
fi
timeout 30 "$COLFS_MKSAMPLE" "$WORK/s.parquet" >/dev/null || fail "colfs-mksample failed"
timeout 30 "$COLFS_TOOL" cat "$WORK/s.parquet" rows.csv >"$WORK/want.csv" ||
	fail "colfs-tool cat failed"
mkdir "$WORK/mnt"
# In the namespace: everything it mounts goes with it when it ends.
cat >"$WORK/ns.sh" <<'NS'
set -eu
root=$1 work=$2
# /usr/bin as after `apt install`: the package's files over the system's
if ! mount -t overlay colfs-package-test \
	-o "lowerdir=$root/usr/bin:/usr/bin" /usr/bin 2>"$work/overlay.err"; then
	echo "overlayfs refused ($(cat "$work/overlay.err")): colfs put in /usr/local/bin" >&2
	mount -t tmpfs colfs-package-test /usr/local/bin
	cp "$root/usr/bin/colfs" /usr/local/bin/colfs
fi
trap 'umount "$work/mnt" 2>/dev/null || true' EXIT
timeout 30 mount -t fuse.colfs "$work/s.parquet" "$work/mnt" \
	-o ro,dev,suid,exec,noatime,nofail,_netdev
grep " $work/mnt fuse.colfs " /proc/self/mounts >"$work/mounts"
timeout 30 cat "$work/mnt/rows.csv" >"$work/got-t.csv"
timeout 30 umount "$work/mnt"
if grep -qs " $work/mnt " /proc/self/mounts; then echo "umount left $work/mnt mounted" >&2; exit 1; fi
printf '%s %s fuse.colfs ro,noatime,nofail,_netdev,noauto 0 0\n' \
	"$work/s.parquet" "$work/mnt" >"$work/fstab"
timeout 30 mount -T "$work/fstab" "$work/mnt"
grep " $work/mnt fuse.colfs " /proc/self/mounts >"$work/mounts-fstab"
timeout 30 cat "$work/mnt/rows.csv" >"$work/got-fstab.csv"
timeout 30 umount "$work/mnt"
if grep -qs " $work/mnt " /proc/self/mounts; then echo "umount left $work/mnt mounted" >&2; exit 1; fi
NS
timeout 120 unshare -m --propagation private sh "$WORK/ns.sh" "$root" "$WORK" \
	2>"$WORK/ns.err" || fail "mount -t fuse.colfs or fstab failed: $(cat "$WORK/ns.err")"
[ -s "$WORK/ns.err" ] && cat "$WORK/ns.err"
for how in t fstab; do
	m=$WORK/mounts; [ $how = fstab ] && m=$WORK/mounts-fstab
	grep -q " ro," "$m" || fail "$how: not mounted ro: $(cat "$m")"
	cmp -s "$WORK/want.csv" "$WORK/got-$how.csv" ||
		fail "$how: rows.csv of the mount differs from colfs-tool cat's"
done
grep -qs " $WORK/mnt " /proc/self/mounts && fail "the mount outlived its namespace"
echo "ok: mount -t fuse.colfs and an fstab line with the packaged /usr/bin/colfs: $(cat "$WORK/mounts")"
echo PASS

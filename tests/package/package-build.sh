#!/bin/bash
# tests/package/package-build.sh: the Debian package, built and looked at.
#
# Runs only with COLFS_TEST_PACKAGE=1 (suite 'package'): the build takes
# one to three minutes on two cores, more than the ordinary test run can
# spend (tests/run stays under its 40 minutes); README, "Installing the
# Debian package".
#
# A copy of the source tree (without build directories and node_modules)
# is built with `dpkg-buildpackage -b -us -uc` (offline: the build
# dependencies are Debian's, checked first with dpkg-checkbuilddeps), then
#   - the .deb is unpacked with `dpkg -x` into a scratch root, and holds
#     both programs (which run and print their version), both man pages,
#     README and docs, the copyright, and the bash completion (colfs-tool
#     a link to colfs, both functions registered when it is sourced);
#   - its control file names the colfs package, depends on fuse3;
#   - as root with /dev/fuse and unshare: in a private mount namespace,
#     the packaged colfs is put on mount(8)'s PATH (a tmpfs over
#     /usr/local/bin, in that namespace only) and `mount -t fuse.colfs
#     FILE DIR -o ro,dev,suid,exec,noatime,nofail,_netdev` mounts a sample
#     file through fuse3's mount helper, as an fstab line would; its
#     rows.csv equals `colfs-tool cat`'s; `umount` ends it.
# Exit 0 pass, 1 fail, 77 skip.
#   package-build.sh SOURCE_ROOT   (COLFS_TOOL, COLFS_MKSAMPLE in the environment)
set -u
src=$(cd "${1:?source root}" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

[ "${COLFS_TEST_PACKAGE:-0}" = 1 ] ||
	skip "the package build takes minutes: run with COLFS_TEST_PACKAGE=1"
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
(cd "$WORK/src" && timeout 900 dpkg-buildpackage -b -us -uc) \
	>"$WORK/build.log" 2>&1 ||
	fail "dpkg-buildpackage failed: $(tail -20 "$WORK/build.log")"
deb=$(ls "$WORK"/colfs_*_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || fail "no colfs_*.deb was made"
echo "ok: built $(basename "$deb") in $(($(date +%s) - start)) s"

# ---- the control file ------------------------------------------------------
dpkg-deb -f "$deb" Package | grep -qx colfs || fail "the package is not named colfs"
dpkg-deb -f "$deb" Depends | grep -qw fuse3 ||
	fail "the package does not depend on fuse3: $(dpkg-deb -f "$deb" Depends)"
echo "ok: Depends: $(dpkg-deb -f "$deb" Depends)"

# ---- the files ---------------------------------------------------------------
root=$WORK/root
dpkg -x "$deb" "$root" || fail "dpkg -x failed"
for f in usr/bin/colfs usr/bin/colfs-tool; do
	[ -x "$root/$f" ] || fail "$f is not in the package"
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
echo "ok: both programs, man pages, $(ls "$root/usr/share/doc/colfs" | wc -l) docs, the completion"

# ---- mount -t fuse.colfs -----------------------------------------------------
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
mount -t tmpfs colfs-package-test /usr/local/bin
cp "$root/usr/bin/colfs" /usr/local/bin/colfs
timeout 30 mount -t fuse.colfs "$work/s.parquet" "$work/mnt" \
	-o ro,dev,suid,exec,noatime,nofail,_netdev
trap 'umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt"' EXIT
grep " $work/mnt fuse.colfs " /proc/self/mounts >"$work/mounts"
timeout 30 cat "$work/mnt/rows.csv" >"$work/got.csv"
NS
timeout 120 unshare -m --propagation private sh "$WORK/ns.sh" "$root" "$WORK" \
	2>"$WORK/ns.err" || fail "mount -t fuse.colfs failed: $(cat "$WORK/ns.err")"
grep -q " ro," "$WORK/mounts" || fail "not mounted ro: $(cat "$WORK/mounts")"
cmp -s "$WORK/want.csv" "$WORK/got.csv" ||
	fail "rows.csv of the mount differs from colfs-tool cat's"
grep -qs " $WORK/mnt " /proc/self/mounts && fail "the mount outlived its namespace"
echo "ok: mount -t fuse.colfs with the packaged colfs: $(cat "$WORK/mounts")"
echo PASS

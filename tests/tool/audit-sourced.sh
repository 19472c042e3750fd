#!/bin/bash
# tests/tool/audit-sourced.sh (test commands-audit-sourced): the audit of
# the scripts' commands (commands-audit.py) takes a function of a project
# script that a script sources for no command, as tests/mount-cleanup.sh's
# daemon_gone in the tests that source it, and still names a name that
# no script defines.
# Exit 0 pass, 1 fail, 77 skip (no shfmt).
set -u
here=$(cd "$(dirname "$0")" && pwd)
command -v shfmt >/dev/null || { echo "SKIP: shfmt is not installed (tools/bootstrap.sh installs it)" >&2; exit 77; }
work=$(mktemp -d /tmp/colfs-audit-sourced.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$work/lib-funcs.sh" <<-'EOF'
#!/bin/sh
lib_wait() { sleep 0; }
EOF
cat >"$work/sourcing.sh" <<-'EOF'
#!/bin/sh
here=$(dirname "$0")
. "$here/lib-funcs.sh"
lib_wait
lib_nowhere
EOF
pkgs=$(COLFS_WITH_TEST_TOOLS=1 "$here/../../tools/bootstrap.sh" --list) ||
	fail "tools/bootstrap.sh --list"
cd "$work" || exit 1
timeout 120 /usr/bin/python3 "$here/commands-audit.py" --pkgs "$pkgs" \
	sourcing.sh lib-funcs.sh >out 2>&1
rc=$?
cat out
[ "$rc" = 1 ] || fail "exit status $rc, expected 1 (lib_nowhere is defined nowhere)"
grep -q -F "FAIL sourcing.sh:5: command 'lib_nowhere'" out ||
	fail "the audit did not name lib_nowhere"
grep -q "command 'lib_wait'" out &&
	fail "the audit named lib_wait, a function of the script it sources"
grep -q "1 not accounted for" out || fail "expected exactly 1 problem"
echo "PASS [commands-audit-sourced]"

#!/bin/bash
# tests/package/completion.sh: the bash completion of colfs and colfs-tool
# (completions/colfs), in a plain bash (no bash-completion package):
# `complete -p` names the functions, and each case sets COMP_WORDS and
# COMP_CWORD as bash does, calls the function and compares COMPREPLY:
#   colfs: options, -o names from `colfs --help` (one, after a comma, a
#   fixed value list, a file for schema_from=), FILE (or a URL scheme
#   --help names: gs://, s3://, az://, abfss://, hf://) then a directory;
#   colfs-tool: options, subcommands, -o names from `colfs-tool --help`,
#   and the tree paths of ls, cat, stat inside a sample Parquet file (they
#   must be what `colfs-tool ls` lists, directories with a '/').
# Exit 0 pass, 1 fail.
#   completion.sh   (COLFS, COLFS_TOOL, COLFS_MKSAMPLE in the environment)
set -u
here=$(cd "$(dirname "$0")" && pwd)
COMPLETION=$here/../../completions/colfs

fail() { echo "FAIL: $*" >&2; exit 1; }
for v in COLFS COLFS_TOOL COLFS_MKSAMPLE; do
	[ -x "${!v:-}" ] || fail "$v is not set to a program"
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/colfs-completion.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
timeout 30 "$COLFS_MKSAMPLE" "$WORK/s.parquet" >/dev/null ||
	fail "colfs-mksample failed"
mkdir "$WORK/mnt" "$WORK/mnt2"
: >"$WORK/mfile"

# shellcheck source=../../completions/colfs
. "$COMPLETION" || fail "sourcing $COMPLETION failed"
[ "$(complete -p colfs)" = "complete -F _colfs colfs" ] ||
	fail "complete -p colfs: $(complete -p colfs)"
[ "$(complete -p colfs-tool)" = "complete -F _colfs_tool colfs-tool" ] ||
	fail "complete -p colfs-tool: $(complete -p colfs-tool)"

# compgen -o/compopt only work inside a completion: stand in for it.
compopt() { :; }

n=0
check() { # WANT FUNCTION WORD... (the last word is the one completed)
	local want=$1 fn=$2 got
	shift 2
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$fn"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ')
	want=$(printf '%s\n' $want | LC_ALL=C sort | tr '\n' ' ')
	[ "$got" = "$want" ] ||
		fail "completing '$*': got '$got', wanted '$want'"
	n=$((n + 1))
}

cd "$WORK" || fail "cd $WORK"
check "--help" _colfs "$COLFS" --he
check "checksums=" _colfs "$COLFS" -o ch
check "cache_size= cfile_type= cfile_encoding= cfile_compression= cfile_nullable= cafile= checksums= clone_fd column_keys=" \
	_colfs "$COLFS" -o c
check "checksums=verify checksums=ignore" _colfs "$COLFS" -o checksums=
check "sizes=exact" _colfs "$COLFS" -o sizes=e
check "null=x,salvage_effort= null=x,schema_from= null=x,size_index= null=x,sizes= null=x,s3_endpoint= null=x,snapshot=" \
	_colfs "$COLFS" -o null=x,s
check "as_of=" _colfs "$COLFS" -o as
check "-onull=x,allow_full_download -onull=x,allow_other -onull=x,allow_root" \
	_colfs "$COLFS" -onull=x,allow
check "schema_from=s.parquet" _colfs "$COLFS" -o schema_from=s.
check "s.parquet" _colfs "$COLFS" s.
check "gs://" _colfs "$COLFS" g
check "hf://" _colfs "$COLFS" hf
check "s.parquet s3://" _colfs "$COLFS" s
check "az:// abfss://" _colfs "$COLFS" a
check "mnt mnt2" _colfs "$COLFS" s.parquet m
check "mnt mnt2" _colfs "$COLFS" -o null=x s.parquet -f m
check "" _colfs "$COLFS" s.parquet mnt x

check "ls" _colfs_tool "$COLFS_TOOL" l
check "cat check" _colfs_tool "$COLFS_TOOL" c
check "--json" _colfs_tool "$COLFS_TOOL" --j
check "max_alloc=" _colfs_tool "$COLFS_TOOL" -o max_a
check "s.parquet" _colfs_tool "$COLFS_TOOL" cat s.
check "gs://" _colfs_tool "$COLFS_TOOL" cat g
# Paths inside the file: what colfs-tool ls lists.
# (ls -l: kind, size, name; a directory's kind is "dir")
want=$("$COLFS_TOOL" ls -l s.parquet / |
	awk '$3 ~ /^row/ { print $3 ($1 == "dir" ? "/" : "") }')
[ -n "$want" ] || fail "colfs-tool ls lists no row* name"
check "$want" _colfs_tool "$COLFS_TOOL" ls s.parquet row
check "$want" _colfs_tool "$COLFS_TOOL" -o null=x stat s.parquet row
want=$("$COLFS_TOOL" ls s.parquet columns | sed 's|^|columns/|')
[ -n "$want" ] || fail "colfs-tool ls lists no column"
check "$want" _colfs_tool "$COLFS_TOOL" cat s.parquet schema columns/
check "" _colfs_tool "$COLFS_TOOL" ls s.parquet columns/ x
check "" _colfs_tool "$COLFS_TOOL" cat s.parquet nosuchdir/
check "" _colfs_tool "$COLFS_TOOL" check s.parquet x
echo "ok: $n completions"
echo PASS

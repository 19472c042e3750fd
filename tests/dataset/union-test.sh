#!/bin/bash
# tests/dataset: how the union views of a directory read each file's
# rows, and what a dataset mount says (docs/dataset-tree.md); one case
# per meson test.
#
#   union-test.sh CASE      (COLFS, COLFS_TOOL, ORC_GEN, CORPUS in the
#                            environment)
#
# orc      ORC files in a directory (orc_gen's, and the corpus's
#          TestOrcFile.test1.orc when the corpus is there): the union's
#          rows.jsonl holds, row by row and value by value, what each
#          file's own rows.jsonl holds (ORC writes `": "` and `", "`)
# long     a column name of 300 bytes (columns/ cuts it): the union's
#          rows.jsonl and rows.csv key it by its real name, as the file's
#          own do, with its values; columns/ names it as the file's does
# keycol   a Hive key that is also a column of the files: one field,
#          typed, valued and placed as DuckDB's hive_partitioning reads
#          it, in rows.jsonl, rows.csv, schema and columns/; the file whose
#          column disagrees with its folder named in errors
# words    colfs.1's and colfs-tool.1's NAME lines and colfs-tool --help
#          name a directory (a dataset, a Delta table) and a URL, and
#          colfs.1 no longer lists a directory among what is refused
# version  a Delta table (two commits) at a version past its log: refused
#          by colfs-tool and colfs with the versions that exist, never
#          as an unreadable "file"
# Skips (77) with its reason on stdout (where tests/count.py shows it)
# without DuckDB (npm).  Every command runs under `timeout`.
set -euo pipefail

CASE=${1:?usage: union-test.sh CASE}
: "${COLFS_TOOL:?COLFS_TOOL is not set}"
here=$(cd "$(dirname "$0")" && pwd)
T=30
WORK=$(mktemp -d /tmp/colfs-union-test.XXXXXX)
export XDG_CACHE_HOME=$WORK/cache
trap 'rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT HUP
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
tool() { timeout $T "$COLFS_TOOL" "$@"; }

# same_rows UNION FILE: the JSON lines of UNION equal those of FILE, value
# by value (keys compared as names, not as bytes)
same_rows() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
b = [json.loads(l) for l in open(sys.argv[2], encoding='utf-8')]
if len(a) != len(b):
    sys.exit(f'{len(a)} rows, the file has {len(b)}')
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        for k in y:
            if x.get(k, '<absent>') != y[k]:
                sys.exit(f'row {i}: {k!r}: {x.get(k, "<absent>")!r}, the file has {y[k]!r}')
        sys.exit(f'row {i}: keys {sorted(x)} differ from {sorted(y)}')
PY
}

case $CASE in
orc)
	: "${ORC_GEN:?ORC_GEN is not set}"
	mkdir "$WORK/d"
	timeout $T "$ORC_GEN" "$WORK/d/gen.orc" 300 100 > /dev/null || fail "orc_gen"
	files=gen.orc
	t1=${CORPUS:-$here/../../../shared/corpus}/orc/good/TestOrcFile.test1.orc
	if [ -f "$t1" ]; then
		# another directory: its fields are not orc_gen's
		mkdir "$WORK/c"
		cp "$t1" "$WORK/c/test1.orc"
	else
		echo "note: $t1 is absent: only orc_gen's file is read"
	fi
	for d in "$WORK/d" "$WORK/c"; do
		[ -d "$d" ] || continue
		f=$(ls "$d")
		tool cat "$d" rows.jsonl > "$WORK/union.jsonl" || fail "$d: rows.jsonl"
		tool cat "$d/$f" rows.jsonl > "$WORK/own.jsonl" || fail "$d/$f: rows.jsonl"
		grep -q '", "' "$WORK/own.jsonl" || fail "$f: its rows.jsonl no longer has ORC's separators: the case tests nothing"
		same_rows "$WORK/union.jsonl" "$WORK/own.jsonl" || fail "$d: the union's rows.jsonl is not $f's"
		echo "ok: $f: the union's $(wc -l < "$WORK/union.jsonl") rows are the file's, value by value"
	done
	;;
long|keycol)
	sh "$here/../values/duckdb-setup.sh" > "$WORK/setup" 2>&1 || {
		r=$?
		[ $r = 77 ] && skip "$(tail -n1 "$WORK/setup")"
		fail "duckdb-setup: $(cat "$WORK/setup")"
	}
	timeout 120 node "$here/union.mjs" "$WORK" "$CASE" || fail "DuckDB could not write the $CASE dataset"
	;;&
long)
	d=$WORK/long
	long=$(head -n1 "$WORK/long.names")
	tool ls "$d" columns > "$WORK/cols"
	grep -q '%~' "$WORK/cols" || fail "columns/ does not cut the long name: the case tests nothing"
	tool cat "$d" rows.jsonl > "$WORK/union.jsonl" || fail "rows.jsonl"
	tool cat "$d/p.parquet" rows.jsonl > "$WORK/own.jsonl" || fail "p.parquet: rows.jsonl"
	same_rows "$WORK/union.jsonl" "$WORK/own.jsonl" || fail "the union's rows.jsonl is not the file's"
	python3 -c 'import json, sys; k = list(json.loads(open(sys.argv[1]).readline())); sys.exit(0 if k == [l.rstrip("\n") for l in open(sys.argv[2])] else "keys: %r" % k)' \
		"$WORK/union.jsonl" "$WORK/long.names" || fail "rows.jsonl's keys are not the columns' names"
	# columns/ names it as the file's columns/ does; rows.csv has its
	# real name and the file's values
	[ "$(tool ls "$d" columns)" = "$(tool ls "$d/p.parquet" columns)" ] ||
		fail "columns/: $(tool ls "$d" columns), the file's $(tool ls "$d/p.parquet" columns)"
	tool cat "$d" rows.csv | cmp -s - <(tool cat "$d/p.parquet" rows.csv) ||
		fail "rows.csv: $(tool cat "$d" rows.csv | head -2)"
	[ "$(tool cat "$d" rows.csv | head -n1)" = "$long,$(tail -n1 "$WORK/long.names")" ] || fail "rows.csv's header"
	echo "ok: a 300-byte column name keys rows.jsonl and rows.csv by its real name, columns/ names it as the file does"
	;;
keycol)
	d=$WORK/keycol
	tool cat "$d" rows.jsonl > "$WORK/union.jsonl" || fail "rows.jsonl"
	# DuckDB's rows, ordered by id as the files are
	same_rows "$WORK/union.jsonl" "$WORK/keycol.jsonl" || fail "rows.jsonl is not DuckDB's"
	python3 -c 'import json, sys; sys.exit(0 if all(len(l.split("\"year\":")) == 2 for l in open(sys.argv[1])) else "year twice")' \
		"$WORK/union.jsonl" || fail "rows.jsonl: $(head -n1 "$WORK/union.jsonl")"
	grep -qx 'year BIGINT' "$WORK/keycol.types" || fail "DuckDB no longer types year BIGINT: $(cat "$WORK/keycol.types")"
	# DuckDB's columns, in its order: the key at the column's place
	cols=$(cut -d' ' -f1 "$WORK/keycol.types" | tr '\n' ' ')
	[ "$(tool ls "$d" columns | tr '\n' ' ')" = "$cols" ] || fail "columns/: $(tool ls "$d" columns), DuckDB's $cols"
	python3 -c 'import json, sys; k = " ".join(json.loads(open(sys.argv[1]).readline())) + " "; sys.exit(0 if k == sys.argv[2] else "keys: " + k)' \
		"$WORK/union.jsonl" "$cols" || fail "rows.jsonl's keys are not DuckDB's columns"
	[ "$(tool cat "$d" rows.csv | head -n1)" = "$(echo $cols | tr ' ' ',')" ] || fail "rows.csv: $(tool cat "$d" rows.csv | head -n1)"
	[ "$(tool cat "$d" schema | grep -c ' year ')" = 1 ] &&
		[ "$(tool cat "$d" schema | sed -n 3p)" = '  optional int64 year (INTEGER(64,true)); -- Hive partition key' ] ||
		fail "schema: $(tool cat "$d" schema)"
	[ "$(tool cat "$d" columns/year | tr '\n' ' ')" = "2023 2023 2024 2024 2024 " ] || fail "columns/year: $(tool cat "$d" columns/year)"
	tool cat "$d" errors > "$WORK/errors"
	grep -qx '/files/year=2023/f.parquet: offset unknown: corrupt: its column year is the Hive key of its folder year=2023, and 2 of its 2 values are not (the first in row 0: 1999): the union views show the folder'"'"'s value' "$WORK/errors" ||
		fail "errors: $(cat "$WORK/errors")"
	[ "$(wc -l < "$WORK/errors")" = 1 ] || fail "errors names the agreeing file too: $(cat "$WORK/errors")"
	echo "ok: a Hive key that is also a column: one field, the folder's values, the disagreement in errors"
	;;
words)
	docs=$here/../../docs
	for m in colfs.1 colfs-tool.1; do
		name=$(sed -n '/^\.SH NAME$/{n;p}' "$docs/$m")
		case $name in
		*"a directory of them (a dataset, a Delta Lake table) or a URL"* | \
		*"a columnar file, a dataset directory or a URL"*) ;;
		*) fail "$m: NAME: $name" ;;
		esac
	done
	! grep -q 'A path that does not exist, a directory,' "$docs/colfs.1" ||
		fail "colfs.1 still says a directory is refused"
	grep -q 'a directory with no files in it' "$docs/colfs.1" || fail "colfs.1: which directory is refused"
	tool --help | grep -q '^FILE may also be a directory (a dataset, a Delta Lake table) or a URL\.$' ||
		fail "colfs-tool --help: $(tool --help | head -5)"
	echo "ok: the man pages' NAME lines and colfs-tool --help name a directory and a URL"
	;;
version)
	: "${COLFS:?COLFS is not set}"
	d=$WORK/table
	mkdir -p "$d/_delta_log"
	cat > "$d/_delta_log/00000000000000000000.json" <<'J'
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":[],"configuration":{},"createdTime":0}}
J
	echo '{"commitInfo":{"operation":"WRITE"}}' > "$d/_delta_log/00000000000000000001.json"
	tool ls "$d" > /dev/null || fail "the table at its latest version: $(tool ls "$d" 2>&1)"
	want="$d: Delta version 7 does not exist: the table's versions are 0 to 1 (the latest)"
	if tool -o version=7 ls "$d" > /dev/null 2> "$WORK/err"; then
		fail "colfs-tool -o version=7 listed the table"
	fi
	[ "$(cat "$WORK/err")" = "colfs-tool: $want" ] || fail "colfs-tool: $(cat "$WORK/err")"
	mkdir "$WORK/mnt"
	if timeout $T "$COLFS" -o version=7 "$d" "$WORK/mnt" 2> "$WORK/err"; then
		timeout 10 fusermount3 -u "$WORK/mnt" || true
		fail "colfs -o version=7 mounted the table"
	fi
	[ "$(cat "$WORK/err")" = "colfs: $want" ] || fail "colfs: $(cat "$WORK/err")"
	echo "ok: a Delta version past the log: refused with the versions that exist"
	;;
*)
	fail "unknown case $CASE"
	;;
esac

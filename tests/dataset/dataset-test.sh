#!/bin/bash
# tests/dataset: a directory mounted as a dataset tree
# (docs/dataset-tree.md), one case per meson test.
#
#   dataset-test.sh CASE      (COLFS, COLFS_TOOL in the environment)
#
# tool     colfs-tool on a Hive dataset DuckDB writes (typed partition
#          values, a NULL partition, values needing %-escapes, two files
#          per partition): every columns/ file and rows.jsonl equal
#          DuckDB's read_parquet(..., hive_partitioning = true) in file
#          order; summary, partitions/, files/<path>/ (a file's own tree),
#          with two files open at most (-o max_open_files=2)
# drift    a field missing in one file, a field whose type changes:
#          both named in `errors` with the files; NULL where missing
# damaged  one file of three damaged (its footer lost): its problem in
#          `errors` under its path; a union view's read fails at it, and
#          with -o on_damage=skip or null gives the others' rows (its row
#          count unknown: none read as NULL, and said so); a page over
#          -o max_alloc in one file under each on_damage value
# changed  through FUSE: a file changed in place, or deleted, after the
#          mount read the footers: named in `errors`; reads fail (error),
#          leave its rows out (skip) or read them as NULL (null)
# mount    the same dataset through FUSE: the same names and bytes as
#          colfs-tool; the xattrs of files/<path>/ nodes are the file's
#          own (a chunk's raw at the file's offset)
# delta    the corpus's Delta tables (skipped without ../shared/corpus):
#          the snapshot's files with the log's partition values (a NULL
#          one), each file's rows as its own tree gives them; the union
#          views with deletion vectors and column mapping (name and id)
#          applied, through colfs-tool and a mount; a missing or damaged
#          deletion vector refused with its name
# corpus   apache/parquet-testing files (skipped without ../shared/corpus)
#          copied to a folder: a healthy one, one whose footer and
#          columns are encrypted (its row count unknown), one whose
#          columns alone are: the read fails at the second (error), goes
#          past it (skip, null), its page-level NULLs kept for the third
# Skips (77) with a message without DuckDB (npm) or FUSE.  Every mount is
# undone by a trap; every command runs under `timeout`.
set -euo pipefail

CASE=${1:?usage: dataset-test.sh CASE}
: "${COLFS:?COLFS is not set}" "${COLFS_TOOL:?COLFS_TOOL is not set}"
here=$(cd "$(dirname "$0")" && pwd)
T=30
# $WORK made, the mount undone and $WORK removed on exit
. "$here/../mount-cleanup.sh" colfs-dataset-test
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

if [ "$CASE" = delta ]; then
	C=${CORPUS:-$here/../../../shared/corpus}/delta
	[ -d "$C" ] || skip "$C is absent"
	tool() { timeout $T "$COLFS_TOOL" "$@"; }
	t=$C/delta-0.8.0-null-partition
	[ "$(tool cat "$t" rows.jsonl)" = "$(tool cat "$t" files/k=A/part-00000-b1f1dbbb-70bc-4970-893f-9bb772bf246e.c000.snappy.parquet/columns/v | sed 's/.*/{"v":&,"k":"A"}/'
		tool cat "$t" files/k=__HIVE_DEFAULT_PARTITION__/part-00001-8474ac85-360b-4f58-b3ea-23990c71b932.c000.snappy.parquet/columns/v | sed 's/.*/{"v":&,"k":null}/')" ] ||
		fail "$t rows.jsonl: $(tool cat "$t" rows.jsonl)"
	[ "$(tool ls "$t" partitions)" = "$(printf 'k=A\nk=__HIVE_DEFAULT_PARTITION__')" ] || fail "$t partitions/"
	tool ls "$t" delta > /dev/null || fail "$t has no delta/"
	# deletion vectors applied: the union views leave rows 0 and 9 out
	# (delta-rows-duckdb compares every table with DuckDB); files/
	# shows the file's stored rows
	t=$C/table-with-dv-small
	p=part-00000-fae5310a-a37d-4e51-827b-c3d5516560ca-c000.snappy.parquet
	[ "$(tool cat "$t" columns/value | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 " ] ||
		fail "$t columns/value: $(tool cat "$t" columns/value)"
	[ "$(tool cat "$t" rows.csv | tr '\n' ' ')" = "value 1 2 3 4 5 6 7 8 " ] || fail "$t rows.csv"
	[ "$(tool cat "$t" "files/$p/columns/value" | wc -l)" = 10 ] || fail "$t files/ is not the file's own tree"
	tool cat "$t" summary > "$WORK/summary"
	grep -qx 'rows: 8' "$WORK/summary" && grep -q '^deleted rows: 2 ' "$WORK/summary" ||
		fail "$t summary: $(cat "$WORK/summary")"
	# column mapping applied: logical names, the physical columns' values
	m=$C/table_with_column_mapping
	[ "$(tool ls "$m" columns)" = "$(printf 'Super Name\nCompany Very Short')" ] || fail "$m columns/: $(tool ls "$m" columns)"
	tool cat "$m" schema | grep -q '^  optional binary Super Name (STRING) = 2;$' || fail "$m schema: $(tool cat "$m" schema)"
	names=$(tool cat "$m" "columns/Super Name")
	[ "$(echo "$names" | wc -l)" = 5 ] && echo "$names" | grep -qx 'Timothy Lamb' || fail "$m columns/Super Name: $names"
	# a deletion vector file missing or damaged: a clear error naming
	# the vector's file and the data file, never rows
	dv=deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin
	cp -r "$t" "$WORK/dv-missing"
	rm "$WORK/dv-missing/$dv"
	cp -r "$t" "$WORK/dv-corrupt"
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(12); b = f.read(1); f.seek(12); f.write(bytes([b[0] ^ 1]))' "$WORK/dv-corrupt/$dv"
	for c in missing:'No such file or directory' corrupt:'CRC mismatch'; do
		if tool cat "$WORK/dv-${c%%:*}" columns/value > "$WORK/out" 2> "$WORK/err"; then
			fail "dv-${c%%:*}: read: $(cat "$WORK/out")"
		fi
		grep -q "$p: .*$dv.*${c#*:}\|$p: .*${c#*:}.*$dv" "$WORK/err" || fail "dv-${c%%:*}: $(cat "$WORK/err")"
	done
	# column mapping mode id: columns found by the files' field ids, not
	# by name (a physical name the files do not have); an id no file
	# has reads NULL; a file without field ids is refused
	idmap() { # TABLE COPY PYTHON-EXPR-ON-THE-SCHEMA
		cp -r "$1" "$2"
		python3 - "$2" "$3" <<'PY'
import json, os, sys
d = os.path.join(sys.argv[1], '_delta_log')
for n in sorted(os.listdir(d)):
    if not n.endswith('.json'):
        continue
    lines = [json.loads(l) for l in open(os.path.join(d, n)) if l.strip()]
    for l in lines:
        if 'metaData' in l:
            md = l['metaData']
            schema = json.loads(md['schemaString'])
            md.setdefault('configuration', {})['delta.columnMapping.mode'] = 'id'
            exec(sys.argv[2])
            md['schemaString'] = json.dumps(schema)
    with open(os.path.join(d, n), 'w') as f:
        f.writelines(json.dumps(l) + '\n' for l in lines)
PY
	}
	idmap "$m" "$WORK/id" "schema['fields'][1]['metadata']['delta.columnMapping.physicalName'] = 'col-not-in-the-files'"
	[ "$(tool cat "$WORK/id" "columns/Super Name")" = "$names" ] || fail "mode id: $(tool cat "$WORK/id" "columns/Super Name")"
	idmap "$m" "$WORK/id7" "schema['fields'][1]['metadata']['delta.columnMapping.id'] = 7"
	[ "$(tool cat "$WORK/id7" "columns/Super Name" | tr '\n' ' ')" = '\N \N \N \N \N ' ] || fail "mode id, an id no file has"
	idmap "$t" "$WORK/id-none" "schema['fields'][0]['metadata'] = {'delta.columnMapping.id': 1, 'delta.columnMapping.physicalName': 'value'}"
	if tool cat "$WORK/id-none" columns/value > "$WORK/out" 2> "$WORK/err"; then
		fail "mode id without field ids: read: $(cat "$WORK/out")"
	fi
	grep -q "$p: columns/value: column mapping mode id: the file's columns have no field ids (an active file of the Delta log at version 1): a union view's read fails here" "$WORK/err" || fail "mode id without field ids: $(cat "$WORK/err")"
	# ... or, as the protocol allows, read all NULL (its 10 rows less the
	# 2 its deletion vector deletes)
	[ "$(tool -o on_damage=null cat "$WORK/id-none" columns/value | tr '\n' ' ')" = '\N \N \N \N \N \N \N \N ' ] ||
		fail "mode id without field ids, on_damage=null: $(tool -o on_damage=null cat "$WORK/id-none" columns/value)"
	# through a mount: cat MNT/columns/x; a missing vector refuses the mount
	if [ -c /dev/fuse ] && command -v fusermount3 > /dev/null; then
		MNT=$WORK/mnt
		mkdir -p "$MNT"
		timeout $T "$COLFS" "$t" "$MNT" || fail "mount $t"
		[ "$(timeout $T cat "$MNT/columns/value" | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 " ] || fail "mount: columns/value"
		timeout $T cat "$MNT/rows.jsonl" | cmp -s - <(tool cat "$t" rows.jsonl) || fail "mount: rows.jsonl"
		timeout $T fusermount3 -u "$MNT" || fail "unmount"
		timeout $T "$COLFS" "$m" "$MNT" || fail "mount $m"
		[ "$(timeout $T cat "$MNT/columns/Super Name")" = "$names" ] || fail "mount: columns/Super Name"
		timeout $T fusermount3 -u "$MNT" || fail "unmount"
		if timeout $T "$COLFS" "$WORK/dv-missing" "$MNT" 2> "$WORK/err"; then
			fail "a table whose deletion vector is missing mounted"
		fi
		grep -q "$dv" "$WORK/err" || fail "mount dv-missing: $(cat "$WORK/err")"
	else
		echo "note: no FUSE here: the mount part is not run"
	fi
	echo "ok: Delta snapshots: files, partition values, delta/, deletion vectors and column mapping applied, a missing or damaged vector refused"
	exit 0
fi
if [ "$CASE" = corpus ]; then
	G=${CORPUS:-$here/../../../shared/corpus}/parquet/good
	[ -d "$G" ] || skip "$G is absent"
	tool() { timeout $T "$COLFS_TOOL" "$@"; }
	E=$WORK/enc
	mkdir -p "$E"
	cp "$G/alltypes_plain.parquet" "$G/encrypt_columns_and_footer.parquet.encrypted" \
		"$G/encrypt_columns_plaintext_footer.parquet.encrypted" "$E/"
	# the healthy file's 8 rows, then the failure naming the file
	if tool cat "$E" rows.jsonl > "$WORK/out" 2> "$WORK/err"; then
		fail "rows.jsonl read past a file without its key: $(wc -l < "$WORK/out") lines"
	fi
	[ "$(wc -l < "$WORK/out")" = 8 ] || fail "rows.jsonl before the damaged file: $(wc -l < "$WORK/out") lines"
	grep -q 'encrypt_columns_and_footer.parquet.encrypted: rows.jsonl: its summary gives no row count: a union view.s read fails here' "$WORK/err" ||
		fail "the failed read: $(cat "$WORK/err")"
	tool -o on_damage=skip cat "$E" rows.jsonl > "$WORK/skip" || fail "on_damage=skip: rows.jsonl failed"
	cmp -s "$WORK/out" "$WORK/skip" || fail "on_damage=skip: not the healthy file's rows"
	tool -o on_damage=null cat "$E" rows.jsonl > "$WORK/null" || fail "on_damage=null: rows.jsonl failed"
	[ "$(wc -l < "$WORK/null")" = 58 ] && [ "$(head -8 "$WORK/null")" = "$(cat "$WORK/out")" ] ||
		fail "on_damage=null: $(wc -l < "$WORK/null") lines"
	tool -o on_damage=null cat "$E" summary > "$WORK/summary"
	grep -qx 'rows: 58' "$WORK/summary" && grep -qx 'damaged files: 1 (missing, changed or not decodable: see errors)' "$WORK/summary" ||
		fail "on_damage=null summary: $(cat "$WORK/summary")"
	echo "ok: a file without its key: the read fails at it, skip and null go past it"
	exit 0
fi
sh "$here/../values/duckdb-setup.sh" || exit $?
which=$CASE
[ "$CASE" = tool ] || [ "$CASE" = mount ] && which=hive
[ "$CASE" = changed ] && which=damaged
timeout 120 node "$here/oracle.mjs" "$WORK" "$which" || fail "DuckDB could not write the $which dataset"
if [ "$which" = hive ]; then
	cp -r "$WORK/hive2/." "$WORK/hive/" && rm -rf "$WORK/hive2"
fi
D=$WORK/hive
tool() { timeout $T "$COLFS_TOOL" --max_open_files=2 "$@"; }

# compare the views under ROOT (a command prefix) with DuckDB's
compare_views() {
	local exp=$WORK/expect n=0
	timeout 120 node "$here/expect.mjs" "$D" "$exp" || fail "DuckDB could not read $D"
	while read -r col; do
		"$@" "columns/$col" > "$WORK/got.txt" || fail "columns/$col unreadable"
		cmp -s "$exp/$col.txt" "$WORK/got.txt" || {
			diff "$exp/$col.txt" "$WORK/got.txt" | head -5 >&2
			fail "columns/$col differs from DuckDB"
		}
		n=$((n + 1))
	done < "$exp/columns"
	"$@" rows.jsonl > "$WORK/got.jsonl" || fail "rows.jsonl unreadable"
	cmp -s "$exp/rows.jsonl" "$WORK/got.jsonl" || {
		diff "$exp/rows.jsonl" "$WORK/got.jsonl" | head -5 >&2
		fail "rows.jsonl differs from DuckDB"
	}
	echo "ok: $n columns and rows.jsonl ($(wc -l < "$exp/rows.jsonl") rows) equal DuckDB's"
}

mount_cat() { timeout $T cat "$MNT/$1"; }

case $CASE in
tool)
	compare_views tool cat "$D"
	tool cat "$D" summary > "$WORK/summary"
	grep -qx 'files: 24 (parquet 24, orc 0, cfile 0)' "$WORK/summary" || fail "summary: $(cat "$WORK/summary")"
	grep -qx 'rows: 300' "$WORK/summary" || fail "summary rows"
	grep -qx 'partition keys: a BIGINT, b VARCHAR, d DATE' "$WORK/summary" || fail "summary keys"
	[ "$(tool ls "$D" partitions)" = "$(printf 'a=0\na=1\na=2')" ] || fail "partitions: $(tool ls "$D" partitions)"
	[ "$(tool ls "$D" partitions/a=1/partitions)" = "$(printf 'b=__HIVE_DEFAULT_PARTITION__\nb=a%%2Fb=c\nb=plain\nb=x y')" ] ||
		fail "partitions/a=1/partitions: $(tool ls "$D" partitions/a=1/partitions)"
	# a partition is a dataset of its own: its rows are the parent's
	# rows of that value
	tool cat "$D" 'partitions/a=1/partitions/b=a%2Fb=c/rows.jsonl' > "$WORK/part.jsonl"
	grep -F '"a":1,"b":"a/b=c",' "$WORK/got.jsonl" | cmp -s - "$WORK/part.jsonl" || fail "partitions/a=1/partitions/b=a%2Fb=c/rows.jsonl"
	# files/<path>/: the file's own tree, byte for byte
	f='a=2/b=x%20y/d=2024-01-01/f2_0.parquet'
	tool cat "$D" "files/a=2/b=x%2520y/d=2024-01-01/f2_0.parquet/raw/magic_head" | cmp -s - <(head -c 4 "$D/$f") || fail "files/.../raw"
	tool cat "$D" "files/a=2/b=x%2520y/d=2024-01-01/f2_0.parquet/rows.csv" | cmp -s - <(tool cat "$D/$f" rows.csv) || fail "files/.../rows.csv"
	# rows.csv: a header, then the rows; the same count
	[ "$(tool cat "$D" rows.csv | head -1)" = "id,name,price,tags,st,ls,a,b,d" ] || fail "rows.csv header: $(tool cat "$D" rows.csv | head -1)"
	[ "$(tool cat "$D" rows.csv | wc -l)" = 301 ] || fail "rows.csv lines"
	[ -z "$(tool cat "$D" errors)" ] || fail "errors: $(tool cat "$D" errors)"
	echo "ok: summary, partitions/, files/, rows.csv"
	;;
drift)
	tool cat "$WORK/drift" errors > "$WORK/errors"
	grep -qx '/schema: schema drift: field name is missing in 1 of 2 files (NULL there): p2.parquet' "$WORK/errors" || fail "no drift of name: $(cat "$WORK/errors")"
	grep -qx '/schema: schema drift: field extra is missing in 1 of 2 files (NULL there): p1.parquet' "$WORK/errors" || fail "no drift of extra"
	grep -qx "/schema: schema drift: field id changes type: 'optional int64 id (INTEGER(64,true));' in the first file, another in 1 file (the first of them: 'optional int32 id (INTEGER(32,true));'; each shown as its file renders it): p2.parquet" "$WORK/errors" || fail "no type drift of id: $(cat "$WORK/errors")"
	[ "$(tool cat "$WORK/drift" columns/name | tr '\n' ' ')" = 'n0 n1 n2 n3 n4 \N \N \N ' ] || fail "columns/name: $(tool cat "$WORK/drift" columns/name)"
	[ "$(tool cat "$WORK/drift" rows.jsonl | tail -1)" = '{"id":2,"name":null,"extra":3.0}' ] || fail "rows.jsonl: $(tool cat "$WORK/drift" rows.jsonl | tail -1)"
	[ "$(tool cat "$WORK/drift" rows.csv | sed -n '1p;7p' | tr '\n' ' ')" = 'id,name,extra 0,,0.0 ' ] || fail "rows.csv: $(tool cat "$WORK/drift" rows.csv)"
	[ "$(tool ls "$WORK/drift" schemas)" = "$(printf '0\n1')" ] || fail "schemas/"
	[ "$(tool cat "$WORK/drift" schemas/1/files)" = p2.parquet ] || fail "schemas/1/files"
	echo "ok: drift named in errors, NULL where a field is missing"
	;;
damaged)
	d=$WORK/damaged/d2.parquet
	# the footer's length made huge: the file keeps its magic bytes
	size=$(stat -c %s "$d")
	printf '\377\377\377\177' | dd of="$d" bs=1 seek=$((size - 8)) conv=notrunc status=none
	tool cat "$WORK/damaged" errors > "$WORK/errors" || true
	grep -q '^/files/d2.parquet' "$WORK/errors" || fail "the damaged file's problem is not in errors: $(cat "$WORK/errors")"
	# on_damage=error (the default): the read fails at it, naming it
	if tool cat "$WORK/damaged" columns/id > "$WORK/out" 2> "$WORK/err"; then
		fail "columns/id read past the damaged file: $(tr '\n' ' ' < "$WORK/out")"
	fi
	grep -q 'd2.parquet' "$WORK/err" || fail "the failed read does not name d2.parquet: $(cat "$WORK/err")"
	[ "$(tr '\n' ' ' < "$WORK/out")" = "$(seq -s ' ' 0 9) " ] || fail "columns/id before the damaged file: $(tr '\n' ' ' < "$WORK/out")"
	# skip and null: the others' rows; its row count is unknown (its
	# footer is lost), so null reads none of them as NULL and says so
	for m in skip null; do
		[ "$(tool -o on_damage=$m cat "$WORK/damaged" columns/id | tr '\n' ' ')" = "$(seq -s ' ' 0 9) $(seq -s ' ' 200 209) " ] ||
			fail "on_damage=$m columns/id: $(tool -o on_damage=$m cat "$WORK/damaged" columns/id | tr '\n' ' ')"
		[ "$(tool -o on_damage=$m cat "$WORK/damaged" rows.jsonl | wc -l)" = 20 ] || fail "on_damage=$m rows.jsonl"
	done
	tool -o on_damage=null cat "$WORK/damaged" columns/id rows.csv errors > "$WORK/errors"
	grep -q '^/files/d2.parquet: .*its rows (how many is unknown) left out of the union views: on_damage$' "$WORK/errors" ||
		fail "on_damage=null: errors: $(cat "$WORK/errors")"
	tool -o on_damage=null cat "$WORK/damaged" summary > "$WORK/summary"
	grep -qx 'unreadable files: 1' "$WORK/summary" && grep -qx 'damaged files: 1 (missing, changed or not decodable: see errors)' "$WORK/summary" &&
		grep -q '^damaged rows: 0 read as NULL (on_damage=null), and the rows of 1 file whose row count is unknown' "$WORK/summary" &&
		grep -qx 'rows: 20' "$WORK/summary" || fail "summary: $(cat "$WORK/summary")"
	# a page over max_alloc (u2's s): the read fails; skip leaves u2's
	# rows out; null reads its s as NULL
	B=$WORK/big
	if tool -o max_alloc=64K cat "$B" rows.jsonl > "$WORK/out" 2> "$WORK/err"; then
		fail "max_alloc: rows.jsonl read: $(cat "$WORK/out")"
	fi
	grep -q 'u2.parquet' "$WORK/err" || fail "max_alloc: the failed read does not name u2.parquet: $(cat "$WORK/err")"
	[ "$(tool -o max_alloc=64K -o on_damage=skip cat "$B" rows.jsonl | tr '\n' ' ')" = "$(for i in $(seq 0 9) $(seq 200 209); do printf '{"id":%d,"s":"x%d"} ' "$i" "$i"; done)" ] ||
		fail "max_alloc, on_damage=skip: $(tool -o max_alloc=64K -o on_damage=skip cat "$B" rows.jsonl)"
	[ "$(tool -o max_alloc=64K -o on_damage=null cat "$B" columns/s | tr '\n' ' ')" = "$(printf 'x%d ' $(seq 0 9))$(printf '\\N %.0s' $(seq 10))$(printf 'x%d ' $(seq 200 209))" ] ||
		fail "max_alloc, on_damage=null: $(tool -o max_alloc=64K -o on_damage=null cat "$B" columns/s | tr '\n' ' ')"
	echo "ok: the damaged file in errors; reads fail at it, skip and null read the others"
	;;
changed)
	[ -c /dev/fuse ] || skip "/dev/fuse is not available"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	C=$WORK/damaged
	# MODE FILE ACTION: mount (one file open at a time: a file closed
	# meanwhile is known again by its size, mtime and inode), read the
	# footers, change FILE, read columns/id into $WORK/out (its status
	# in $WORK/rc)
	run() {
		timeout $T "$COLFS" -o on_damage=$1 -o max_open_files=1 "$C" "$MNT" || fail "mount ($1)"
		timeout $T cat "$MNT/summary" > /dev/null || fail "summary ($1)"
		case $3 in
		rewrite) cp "$WORK/other/$(basename "$2" .parquet)" "$C/$2" ;;
		delete) rm "$C/$2" ;;
		esac
		rc=0
		timeout $T cat "$MNT/columns/id" > "$WORK/out" 2> "$WORK/err" || rc=$?
		timeout $T cat "$MNT/errors" > "$WORK/errors" 2>&1 || true
		timeout $T fusermount3 -u "$MNT" || fail "unmount"
		daemon_gone || fail "the daemon did not exit after the unmount"
	}
	# each file rewritten in place with another file's bytes (d1's for
	# d2 and d3, d3's for d1)
	mkdir "$WORK/other"
	cp "$C/d3.parquet" "$WORK/other/d1"
	cp "$C/d1.parquet" "$WORK/other/d2"
	cp "$C/d1.parquet" "$WORK/other/d3"
	mkdir "$WORK/keep" && cp "$C"/d?.parquet "$WORK/keep/"
	restore() { rm -f "$C"/d?.parquet; cp "$WORK/keep"/d?.parquet "$C/"; sleep 0.01; }
	run error d1.parquet rewrite
	[ "$rc" != 0 ] && grep -q 'Input/output error' "$WORK/err" || fail "error: a changed file read: rc $rc: $(tr '\n' ' ' < "$WORK/out")"
	grep -q '^/files/d1.parquet: .*changed' "$WORK/errors" || fail "error: errors: $(cat "$WORK/errors")"
	restore
	run skip d3.parquet rewrite
	[ "$rc" = 0 ] && [ "$(tr '\n' ' ' < "$WORK/out")" = "$(seq -s ' ' 0 9) $(seq -s ' ' 100 109) " ] ||
		fail "skip: rc $rc: $(tr '\n' ' ' < "$WORK/out") $(cat "$WORK/err")"
	grep -q '^/files/d3.parquet: .*changed.*its 10 rows left out of the union views: on_damage' "$WORK/errors" || fail "skip: errors: $(cat "$WORK/errors")"
	restore
	run null d2.parquet rewrite
	[ "$rc" = 0 ] && [ "$(tr '\n' ' ' < "$WORK/out")" = "$(seq -s ' ' 0 9) $(printf '\\N %.0s' $(seq 10))$(seq -s ' ' 200 209) " ] ||
		fail "null: rc $rc: $(tr '\n' ' ' < "$WORK/out") $(cat "$WORK/err")"
	grep -q '^/files/d2.parquet: .*changed.*its 10 rows read as NULL in the union views: on_damage' "$WORK/errors" || fail "null: errors: $(cat "$WORK/errors")"
	restore
	# deleted after the mount: the read fails
	run error d2.parquet delete
	[ "$rc" != 0 ] && grep -q 'Input/output error' "$WORK/err" || fail "delete: rc $rc: $(tr '\n' ' ' < "$WORK/out")"
	echo "ok: a file changed or deleted after the mount: reads fail (error), its rows left out (skip) or read as NULL (null), named in errors"
	;;
mount)
	[ -c /dev/fuse ] || skip "/dev/fuse is not available"
	command -v fusermount3 >/dev/null || skip "fusermount3 is not installed"
	MNT=$WORK/mnt
	mkdir -p "$MNT"
	timeout $T "$COLFS" -o max_open_files=2 "$D" "$MNT" || fail "mount"
	[ "$(ls "$MNT")" = "$(tool ls "$D" | LC_ALL=C sort)" ] || fail "ls: $(ls "$MNT")"
	compare_views mount_cat
	f='a=2/b=x%2520y/d=2024-01-01/f2_0.parquet'
	for v in summary rows.csv "files/$f/rows.jsonl" "files/$f/row_groups/0/chunks/id/raw"; do
		timeout $T cat "$MNT/$v" | cmp -s - <(tool cat "$D" "$v") || fail "$v differs from colfs-tool's"
	done
	# xattrs of files/<path>/ come from the file's own tree: a chunk's
	# raw is a range at the file's offset (those bytes of the file), the
	# chunk names its column, the file's directory its format
	c="files/$f/row_groups/0/chunks/id" df="$D/a=2/b=x%20y/d=2024-01-01/f2_0.parquet"
	x() { timeout $T getfattr --only-values -n "user.colfs.$1" "$MNT/$2"; }
	[ "$(x kind "$c/raw")" = range ] || fail "$c/raw: kind $(x kind "$c/raw")"
	[ "$(x path "$c/raw")" = "/$c/raw" ] || fail "$c/raw: path $(x path "$c/raw")"
	off=$(tool stat "$df" row_groups/0/chunks/id/raw | sed -n 's/^offset: //p')
	len=$(tool stat "$df" row_groups/0/chunks/id/raw | sed -n 's/^length: //p')
	[ -n "$off" ] && [ "$(x offset "$c/raw")" = "$off" ] && [ "$(x length "$c/raw")" = "$len" ] ||
		fail "$c/raw: offset $(x offset "$c/raw") length $(x length "$c/raw"), the file's $off $len"
	cmp -s "$MNT/$c/raw" <(tail -c +$((off + 1)) "$df" | head -c "$len") || fail "$c/raw: not bytes $off.. of the file"
	[ "$(x column "$c")" = id ] || fail "$c: column $(x column "$c")"
	[ "$(x format "files/$f")" = parquet ] || fail "files/$f: format $(x format "files/$f")"
	timeout $T fusermount3 -u "$MNT" || fail "unmount"
	daemon_gone || fail "the daemon did not exit after the unmount"
	echo "ok: the mount serves the views and the files' trees, their xattrs"
	;;
*)
	fail "unknown case $CASE"
	;;
esac

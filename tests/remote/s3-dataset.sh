#!/bin/bash
# tests/remote/s3-dataset.sh: an S3 prefix mounted as a dataset:
# the Hive dataset DuckDB writes for tests/dataset (tests/dataset/oracle.mjs:
# typed partition values, a NULL partition, values needing %-escapes, two
# files per partition) is uploaded under s3://BUCKET/ds/ to the S3 server
# of s3.sh (s3rver, Signature V4 checked), and
#   - colfs-tool on s3://BUCKET/ds/ reads every columns/ file, rows.jsonl
#     and rows.csv, the partitions and the files/ listing with the same
#     bytes as colfs-tool on the local directory;
#   - a mount of s3://BUCKET/ds/ (colfs -o s3_endpoint=...) serves
#     rows.jsonl, every columns/ file and a file's own rows.csv with the
#     local dataset's bytes, and unmounts;
#   - with the corpus (CORPUS), two Delta tables copied to the server at
#     test time (checkpoint-v2-table: a V2 checkpoint with sidecars and
#     commits after it; table-with-dv-small: a deletion vector file):
#     their log is read over S3, and every document of delta/, the union
#     views and schema equal the local table's through colfs-tool; a
#     mount of the deletion-vector table serves columns/value.
# Exit 0 pass, 1 fail, 77 skip (no node/npm registry, no DuckDB, no FUSE,
# no curl).
#   s3-dataset.sh   (COLFS, COLFS_TOOL in the environment)
set -u
here=$(cd "$(dirname "$0")" && pwd)
T=60

. "$here/lib.sh"
need_programs COLFS COLFS_TOOL
command -v curl >/dev/null || skip "curl is not installed"
sh "$here/s3rver-setup.sh" || exit $?
sh "$here/../values/duckdb-setup.sh" || exit $?

remote_work s3-dataset
export XDG_CACHE_HOME=$WORK/cache

timeout 120 node "$here/../dataset/oracle.mjs" "$WORK" hive ||
	fail "DuckDB could not write the dataset"
cp -r "$WORK/hive2/." "$WORK/hive/" && rm -rf "$WORK/hive2"
D=$WORK/hive

SECRET="colfs-s3-dataset-secret-$$"
AKID=AKIDCOLFSDATASET
BUCKET=colfs-dataset
# (--openssl-legacy-provider: s3rver's continuation tokens use DES; see
# s3-list.sh)
S3_NODE_OPTS=--openssl-legacy-provider
. "$here/s3-server.sh"
# The bucket, then every file of the dataset by one curl.
s3_bucket
s3_queue "$D" ds
[ "$PUTS" -ge 20 ] || fail "DuckDB wrote only $PUTS files"
DELTA=(checkpoint-v2-table table-with-dv-small)
C=${CORPUS:-}/delta
[ -n "${CORPUS:-}" ] && [ -d "$C" ] || DELTA=()
for t in "${DELTA[@]}"; do
	cp -r "$C/$t" "$WORK/$t"
	s3_queue "$WORK/$t" "$t"
done
s3_put_queued

s3_env
URL=s3://$BUCKET/ds/
tool() { timeout "$T" "$COLFS_TOOL" -o "s3_endpoint=$ENDPOINT" "$@"; }

# ---- colfs-tool ----------------------------------------------------------
mapfile -t cols < <(tool ls "$D" columns)
[ "${#cols[@]}" -ge 5 ] || fail "the local dataset has ${#cols[@]} columns"
paths=(rows.jsonl rows.csv "${cols[@]/#/columns/}")
tool cat "$D" "${paths[@]}" >"$WORK/local.out" || fail "colfs-tool cat $D failed"
tool cat "$URL" "${paths[@]}" >"$WORK/remote.out" 2>"$WORK/err" ||
	fail "colfs-tool cat $URL failed: $(head -3 "$WORK/err"); its errors: $(tool cat "$URL" errors 2>&1 | head -5)"
[ -s "$WORK/local.out" ] || fail "colfs-tool cat $D wrote nothing"
cmp "$WORK/local.out" "$WORK/remote.out" >&2 ||
	fail "the views of $URL differ from the local dataset's"
for p in / files partitions partitions/a=1/partitions; do
	[ "$(tool ls "$URL" "$p")" = "$(tool ls "$D" "$p")" ] ||
		fail "ls $p of $URL differs: $(tool ls "$URL" "$p" | head -5)"
done
grep -qx 'files: 24 (parquet 24, orc 0, cfile 0)' <(tool cat "$URL" summary) ||
	fail "summary of $URL: $(tool cat "$URL" summary)"
echo "ok: colfs-tool: ${#paths[@]} views of $URL equal the local dataset's ($(wc -l <"$WORK/local.out") lines), the listings too"

# ---- Delta tables under a prefix: the log read over S3 -------------------
[ "${#DELTA[@]}" -gt 0 ] || echo "SKIP (part): no Delta corpus at ${CORPUS:-<unset>}/delta"
for t in "${DELTA[@]}"; do
	L=$WORK/$t
	mapfile -t dp < <(cd "$L/_delta_log" && ls | sed -n 's/^0*\([0-9][0-9]*\)\.json$/\1/p' |
		while read -r v; do tool ls "$L" "delta/versions/$v" | sed "s|^|delta/versions/$v/|"; done)
	mapfile -t dcols < <(tool ls "$L" columns)
	dpaths=(delta/snapshot.json delta/protocol.json delta/metadata.json
		delta/properties.json delta/schema.json delta/active_files.json
		"${dp[@]}" schema rows.jsonl rows.csv "${dcols[@]/#/columns/}")
	[ "${#dp[@]}" -ge 2 ] || fail "$t: ${#dp[@]} versions/ documents"
	s3_same "$L" "s3://$BUCKET/$t/" "the Delta table s3://$BUCKET/$t/" \
		"${dpaths[@]}"
	[ "$(tool ls "s3://$BUCKET/$t/" delta/versions)" = "$(tool ls "$L" delta/versions)" ] ||
		fail "delta/versions of s3://$BUCKET/$t/"
	echo "ok: the Delta table s3://$BUCKET/$t/: ${#dpaths[@]} documents and views equal the local table's"
done

# ---- a mount -------------------------------------------------------------
if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
	echo "SKIP (part): no FUSE for the mount"
	echo PASS
	exit 0
fi
MNT=$WORK/mnt
mkdir "$MNT"
MOUNTS+=("$MNT")
timeout "$T" "$COLFS" -o "s3_endpoint=$ENDPOINT" "$URL" "$MNT" 2>"$WORK/err" ||
	fail "mounting $URL failed: $(cat "$WORK/err")"
(for p in "${paths[@]}"; do timeout "$T" cat "$MNT/$p" || exit 1; done) \
	>"$WORK/mount.out" || fail "reading the mount of $URL failed"
cmp "$WORK/local.out" "$WORK/mount.out" >&2 ||
	fail "the mount of $URL differs from the local dataset"
f='files/a=2/b=x%2520y/d=2024-01-01/f2_0.parquet/rows.csv'
timeout "$T" cat "$MNT/$f" | cmp -s - <(tool cat "$D" "$f") ||
	fail "$f of the mount differs from the local dataset's"
fusermount3 -u "$MNT" || fail "unmounting failed"
echo "ok: the mount of $URL serves the local dataset's bytes"
for t in "${DELTA[@]:1}"; do
	timeout "$T" "$COLFS" -o "s3_endpoint=$ENDPOINT" "s3://$BUCKET/$t/" "$MNT" 2>"$WORK/err" ||
		fail "mounting s3://$BUCKET/$t/ failed: $(cat "$WORK/err")"
	timeout "$T" cat "$MNT/columns/value" | cmp -s - <(tool cat "$WORK/$t" columns/value) ||
		fail "columns/value of the mount of s3://$BUCKET/$t/"
	fusermount3 -u "$MNT" || fail "unmounting failed"
	echo "ok: the mount of s3://$BUCKET/$t/ serves its union views"
done
echo PASS

#!/bin/bash
# tests/iceberg/s3.sh: Iceberg tables under an S3 prefix.  Corpus tables
# (uuid; equality_deletes_partitioned: equality deletes per partition;
# hive_partitioned_table: two partition specs) are uploaded to the test
# S3 server of tests/remote (s3-server.js, Signature V4 checked) under
# s3://BUCKET/<table>/; colfs-tool on each prefix finds the table by its
# metadata/ keys, reads its metadata, manifest lists, manifests and data
# files over S3, and gives the same bytes as on the local directory for
# summary (after its first line), iceberg/ documents and the union views;
# named by its current metadata file's URL (s3://BUCKET/<table>/metadata/
# vN.metadata.json) the same bytes again, and by an older one's that
# version's snapshot.
# Exit 0 pass, 1 fail, 77 skip (no node, no corpus, no curl).
#   s3.sh CORPUS_DIR   (COLFS_TOOL in the environment)
set -u
corpus=$1/iceberg
here=$(cd "$(dirname "$0")" && pwd)
remote=$here/../remote
T=60
. "$remote/lib.sh"
need_programs COLFS_TOOL
[ -d "$corpus" ] || skip "no Iceberg corpus at $corpus"
command -v curl >/dev/null || skip "curl is not installed"
sh "$remote/s3rver-setup.sh" || exit $?
remote_work iceberg-s3
export XDG_CACHE_HOME=$WORK/cache
SECRET="colfs-iceberg-s3-secret-$$"
AKID=AKIDCOLFSICEBERG
BUCKET=colfs-iceberg
S3_NODE_OPTS=--openssl-legacy-provider
. "$remote/s3-server.sh"
s3_bucket
TABLES=(uuid equality_deletes_partitioned hive_partitioned_table)
for t in "${TABLES[@]}"; do
	s3_queue "$corpus/$t" "$t" expected.json
done
s3_put_queued
s3_env
tool() { timeout "$T" "$COLFS_TOOL" -o "s3_endpoint=$ENDPOINT" "$@"; }
passed=0
for t in "${TABLES[@]}"; do
	L=$corpus/$t
	U=s3://$BUCKET/$t/
	mapfile -t cols < <(tool ls "$L" columns)
	sid=$(tool ls "$L" iceberg/snapshots | tail -n1)
	paths=(iceberg/metadata.json iceberg/history.jsonl iceberg/delete_files.jsonl
		"iceberg/snapshots/$sid/snapshot.json"
		rows.jsonl rows.csv "${cols[@]/#/columns/}")
	s3_same "$L" "$U" "$t: the table $U" "${paths[@]}"
	# summary: all but the lines naming where the table is
	tool cat "$L" summary | grep -v '^dataset: \|^location: ' >"$WORK/local"
	tool cat "$U" summary | grep -v '^dataset: \|^location: ' >"$WORK/remote"
	cmp -s "$WORK/local" "$WORK/remote" || {
		diff "$WORK/local" "$WORK/remote" | head -10 >&2
		fail "$t: the summary of $U differs"
	}
	tool cat "$U" summary | grep -q "^location: .* read under s3://$BUCKET/$t\$" ||
		fail "$t: summary: $(tool cat "$U" summary | grep location)"
	# named by its current metadata file's URL: the same bytes
	m=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"])' \
		"$L/expected.json") || fail "$t: expected.json"
	s3_same "$L" "$U$m" "$t: the table $U$m" "${paths[@]}"
	tool cat "$U$m" summary | grep -q "^iceberg metadata: $m " ||
		fail "$t: the summary of $U$m: $(tool cat "$U$m" summary | head -3)"
	# an older metadata file's URL: its own current snapshot
	old=$(ls "$L/metadata" | grep -E '\.metadata\.json$' | sort -V | tail -n2 | head -n1)
	sid=$(python3 -c 'import json,sys; s = json.load(open(sys.argv[1])).get("current-snapshot-id")
print(s if s is not None and s >= 0 else "none")' "$L/metadata/$old") || fail "$t: $old"
	tool cat "${U}metadata/$old" summary 2>"$WORK/err" | grep -q "^snapshot: $sid\b" ||
		fail "$t: ${U}metadata/$old: not snapshot $sid: $(head -3 "$WORK/err")"
	echo "ok: $U: ${#paths[@]} documents and views and summary equal the local table's, by its metadata file's URL too"
	passed=$((passed + 1))
done
echo "$passed passed, 0 failed"

#!/bin/bash
# tests/iceberg/namemap.sh: a name mapping (schema.name-mapping.default)
# for data files written without field ids.  The corpus's uuid table is
# copied, its two data files written again by DuckDB (same rows, no
# Parquet field ids, the column renamed `u`):
#   - without a name mapping, each file is a damaged file (no field ids
#     to find the table's fields by): rows.jsonl fails, errors names
#     both files;
#   - with the mapping [{"field-id": 1, "names": ["u"]}] added to the
#     metadata's properties, columns/uuid holds the table's 10 uuids.
#   namemap.sh CORPUS_DIR   (COLFS_TOOL in the environment)
# Exit 77 when the corpus or DuckDB is not there.
set -u
corpus=$1/iceberg
here=$(cd "$(dirname "$0")" && pwd)
[ -x "${COLFS_TOOL:-}" ] || { echo "FAIL: COLFS_TOOL is not set"; exit 1; }
[ -d "$corpus/uuid" ] || { echo "SKIP: no Iceberg corpus at $corpus"; exit 77; }
sh "$here/../values/duckdb-setup.sh" || exit 77
WORK=$(mktemp -d "${TMPDIR:-/tmp}/colfs-iceberg-namemap.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
trap 'exit 143' TERM INT HUP
fail() { echo "FAIL: $*"; exit 1; }
T=$WORK/uuid
cp -r "$corpus/uuid" "$T"
# DuckDB writes each data file again: the same rows, column `u`, no ids
python3 - "$T" "$WORK/job.json" <<'PY'
import json, os, sys
t, job = sys.argv[1], sys.argv[2]
run = []
for f in sorted(os.listdir(os.path.join(t, "data"))):
    p = os.path.join(t, "data", f)
    os.rename(p, p + ".orig")
    run.append(f"COPY (SELECT uuid AS u FROM read_parquet('{p}.orig')) "
               f"TO '{p}' (FORMAT parquet)")
json.dump({"run": run}, open(job, "w"))
PY
timeout 120 node "$here/make_table.mjs" "$WORK/job.json" "$WORK/out.json" ||
	fail "DuckDB could not write the files"
rm "$T"/data/*.orig
"$COLFS_TOOL" cat "$T/data/$(ls "$T/data" | head -n1)" schema.json | grep -q field_id &&
	fail "DuckDB wrote field ids"
want=$(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["values"]["uuid"]))' "$corpus/uuid/expected.json")
# without a name mapping: both files damaged, named
if "$COLFS_TOOL" cat "$T" rows.jsonl > "$WORK/out" 2> "$WORK/err"; then
	fail "rows.jsonl of files without field ids read: $(head -c 300 "$WORK/out")"
fi
[ "$("$COLFS_TOOL" cat "$T" errors | grep -c 'no field ids')" = 2 ] ||
	fail "errors: $("$COLFS_TOOL" cat "$T" errors)"
echo "ok: without a name mapping, files without field ids are damaged, named"
# with one: the field found by its mapped name
meta=$T/metadata/00001-43fda1f4-1c96-4376-ad16-91beb71d0759.metadata.json
python3 - "$meta" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m.setdefault("properties", {})["schema.name-mapping.default"] = json.dumps(
    [{"field-id": 1, "names": ["u"]}])
json.dump(m, open(sys.argv[1], "w"))
PY
got=$("$COLFS_TOOL" cat "$T" columns/uuid | sort)
[ "$got" = "$want" ] || fail "columns/uuid with a name mapping: $got"
[ -z "$("$COLFS_TOOL" cat "$T" errors)" ] || fail "errors: $("$COLFS_TOOL" cat "$T" errors)"
echo "ok: with a name mapping, columns/uuid holds the table's 10 uuids"
echo "2 passed, 0 failed"

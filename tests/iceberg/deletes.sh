#!/bin/sh
# tests/iceberg/deletes.sh: the Iceberg deletes test (suite
# iceberg-deletes).  Writes the fixtures into a fresh folder (Parquet
# files and the expected rows by DuckDB, deletes-fixtures.mjs; Puffin
# files and Avro delete files by deletes-fixtures.py with Debian's
# python3; ORC delete files by tests/orc/orc_gen, one with Iceberg's
# field ids as type attributes iceberg.id and its columns named unlike
# the table's, one without) and runs test_ice_deletes over them.
#
#   deletes.sh TEST_ICE_DELETES CORPUS ORC_GEN
#
# Exit 77 (skipped) when DuckDB cannot be had (tests/values/duckdb-setup.sh).
set -u
exe=$1
corpus=$2
orcgen=$3
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../values/duckdb-setup.sh" || exit 77
dir=$(mktemp -d "${TMPDIR:-/tmp}/colfs-ice-deletes.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
timeout 120 node "$here/deletes-fixtures.mjs" "$dir" || {
	echo "deletes.sh: the DuckDB fixtures failed" >&2
	exit 1
}
timeout 60 /usr/bin/python3 "$here/deletes-fixtures.py" "$dir" || {
	echo "deletes.sh: the Puffin fixtures failed" >&2
	exit 1
}
printf 's3://warehouse/db/t/data/cat=a/data_a.parquet\0' > "$dir/orc_path" &&
ORC_GEN_ICEBERG="pos_x=2147483545,path_x=2147483546,s=7,f=8" \
	"$orcgen" "$dir/pos_orc.orc" 3 100000 "$dir/orc_path" >/dev/null &&
ORC_GEN_ICEBERG="key_x=1,label=2,s=7,f=8" "$orcgen" "$dir/eq_orc_id.orc" 4 \
	>/dev/null &&
"$orcgen" "$dir/eq_orc_name.orc" 3 >/dev/null || {
	echo "deletes.sh: the ORC fixtures failed" >&2
	exit 1
}
timeout 120 "$exe" "$dir" "$corpus"

#!/bin/sh
# tests/parquet/corpus-vs-duckdb.sh CORPUS_DIR COLFS_TOOL: every Parquet
# file of the corpus (kind `parquet`, up to 50 MB) column by column against
# DuckDB (corpus-vs-duckdb.mjs, known differences in
# duckdb-known-differences.tsv).  Skips (77) without node, DuckDB or the
# corpus.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
corpus=${1:?usage: corpus-vs-duckdb.sh CORPUS_DIR COLFS_TOOL}
tool=${2:?usage: corpus-vs-duckdb.sh CORPUS_DIR COLFS_TOOL}

if [ ! -f "$corpus/MANIFEST.tsv" ]; then
	echo "corpus-vs-duckdb: no corpus at $corpus: skipping" >&2
	exit 77
fi
sh "$dir/../values/duckdb-setup.sh" || exit $?
exec node "$dir/corpus-vs-duckdb.mjs" "$corpus" "$tool" \
	"$dir/duckdb-known-differences.tsv"

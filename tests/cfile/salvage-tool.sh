#!/bin/sh
# colfs-tool passes the salvage options through: an ORC file of our writer
# (orc_gen) cut after 4 of its 5 stripes is read with --schema_from= and
# with -o schema_from=; a CFile of our writer cut at its footer is read with
# --cfile_type= --cfile_encoding=.  The salvaged rows and values must equal
# the healthy files'; a bad option value is refused.
#   salvage-tool.sh COLFS_TOOL ORC_GEN CFILE_WRITER
set -eu
tool=$1 orcgen=$2 cw=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

"$orcgen" "$d/good.orc" 50000 10000
off=$("$tool" cat "$d/good.orc" summary |
	sed -n 's/^stripe 4: rows [0-9]* offset \([0-9]*\) .*/\1/p')
[ -n "$off" ] || { echo "FAIL: no stripe 4 in the summary"; exit 1; }
head -c $((off + 100)) "$d/good.orc" > "$d/cut.orc"
"$tool" cat "$d/cut.orc" salvage/summary | grep -q "schema_from is needed" ||
	{ echo "FAIL: summary without schema_from"; exit 1; }
"$tool" --schema_from="$d/good.orc" cat "$d/cut.orc" salvage/rows.jsonl \
	> "$d/s.jsonl"
for s in 0 1 2 3; do
	"$tool" cat "$d/good.orc" stripes/$s/rows.jsonl
done > "$d/h.jsonl"
cmp "$d/s.jsonl" "$d/h.jsonl" ||
	{ echo "FAIL: salvaged ORC rows differ"; exit 1; }
"$tool" -o schema_from="$d/good.orc" cat "$d/cut.orc" salvage/summary |
	grep -q '^stripes recovered: 4$' ||
	{ echo "FAIL: -o schema_from"; exit 1; }

"$cw" --type INT64 --encoding BIT_SHUFFLE --compression LZ4 --count 5000 \
	--block-rows 700 "$d/good.cfile" "$d/good.txt"
fstart=$("$tool" cat "$d/good.cfile" layout | awk '$3 == "footer" {print $1}')
head -c "$fstart" "$d/good.cfile" > "$d/cut.cfile"
"$tool" --cfile_type=INT64 --cfile_encoding=BIT_SHUFFLE \
	cat "$d/cut.cfile" salvage/values > "$d/s.txt"
cmp "$d/s.txt" "$d/good.txt" ||
	{ echo "FAIL: salvaged CFile values differ"; exit 1; }
if "$tool" --cfile_type=NOPE cat "$d/cut.cfile" salvage/summary \
	>/dev/null 2>&1; then
	echo "FAIL: cfile_type=NOPE accepted"
	exit 1
fi
echo "ok: ORC rows and CFile values salvaged through colfs-tool"

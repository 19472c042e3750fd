#!/bin/sh
# tests/arrow/layout.sh: the `layout` and README of every Arrow IPC file of the
# corpus (integration files, file and stream forms, and the fuzz cases
# colfs opens) follows docs/tree.md's grammar (tests/tool/layout-check.py),
# and a file's layout names its schema, batches, end-of-stream marker,
# footer and tail; the in-mount README of integration files of every
# shape (dictionaries, nesting, no batches, null columns only,
# compression, a pre-0.15 stream, shared dictionaries) lists exactly the
# entries each has (tests/tool/readme-check.py; all of them take two
# minutes).
#
#	layout.sh COLFS_TOOL CORPUS_DIR
#
# Exit 0 pass, 1 fail, 77 skip (no corpus).
set -u
tool=$1
a=$2/arrow
dir=$(cd "$(dirname "$0")" && pwd)
[ -d "$a/integration" ] || { echo "layout: corpus $a absent: skipping" >&2; exit 77; }
out=$(python3 "$dir/../tool/layout-check.py" "$tool" "$a"/integration/*/*.arrow_file \
	"$a"/integration/*/*.stream "$a"/fuzz-file/* "$a"/fuzz-stream/* 2>&1)
echo "$out" | tail -1
echo "$out" | grep -q ', 0 with faults$' || { echo "$out" | head -20; exit 1; }
l=$("$tool" cat "$a/integration/1.0.0-littleendian/generated_dictionary.arrow_file" layout) || exit 1
for want in ' magic /raw/magic$' ' schema /raw/schema$' \
	' dictionary_batch /dictionaries/0/0$' ' record_batch /record_batches/1$' \
	' end_of_stream /raw/end_of_stream$' ' footer /raw/footer$' ' tail /raw/tail$'; do
	echo "$l" | grep -q "$want" || { echo "FAIL: no '$want' in the layout"; exit 1; }
done
echo "ok: the dictionary file's layout names every part"
n=0
for f in 1.0.0-littleendian/generated_dictionary.arrow_file \
	1.0.0-bigendian/generated_nested.stream \
	1.0.0-littleendian/generated_primitive_no_batches.arrow_file \
	1.0.0-littleendian/generated_null_trivial.arrow_file \
	2.0.0-compression/generated_lz4.arrow_file \
	0.14.1/generated_primitive.stream \
	4.0.0-shareddict/generated_shared_dict.stream; do
	f=$a/integration/$f
	python3 "$dir/../tool/readme-check.py" "$tool" "$f" >"${TMPDIR:-/tmp}/arrow-readme.$$" 2>&1 || {
		echo "FAIL README of $f:"
		tail -5 "${TMPDIR:-/tmp}/arrow-readme.$$"
		rm -f "${TMPDIR:-/tmp}/arrow-readme.$$"
		exit 1
	}
	n=$((n + 1))
done
rm -f "${TMPDIR:-/tmp}/arrow-readme.$$"
echo "ok: $n READMEs list exactly their entries"

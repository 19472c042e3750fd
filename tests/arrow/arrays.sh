#!/bin/sh
# tests/arrow/arrays.sh: arrays/<field>.npy of Arrow IPC files through a
# real mount, against the same mount's columns/<field>, value by value
# (tests/arrays/check-npy.py --columns): the corpus's little- and
# big-endian primitive and date/time integration files (file and stream
# forms) and a ZSTD-compressed one.
#
#	arrays.sh COLFS CORPUS_DIR
#
# Exit 0 pass, 1 fail, 77 skip (no FUSE, numpy or corpus).
set -u
colfs=$1
corpus=$2
dir=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
. "$dir/../need.sh"
need_fuse
need_numpy
int=$corpus/arrow/integration
[ -d "$int" ] || skip "corpus $int absent"
mnt=$(mktemp -d)
trap 'fusermount3 -u "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT INT TERM
fail=0
for f in 1.0.0-littleendian/generated_primitive.arrow_file \
	1.0.0-bigendian/generated_primitive.stream \
	1.0.0-littleendian/generated_datetime.arrow_file \
	1.0.0-bigendian/generated_datetime.arrow_file \
	2.0.0-compression/generated_zstd.arrow_file; do
	timeout 20 "$colfs" "$int/$f" "$mnt" || { echo "FAIL: mount $f"; exit 1; }
	if timeout 120 "$py" "$dir/../arrays/check-npy.py" "$mnt/arrays" \
		--columns "$mnt/columns" >/dev/null; then
		echo "ok   $f: $(ls "$mnt/arrays" | grep -c '\.npy$') arrays"
	else
		echo "FAIL $f"
		timeout 120 "$py" "$dir/../arrays/check-npy.py" "$mnt/arrays" \
			--columns "$mnt/columns" 2>&1 | grep -v '^ok' | head -5
		fail=1
	fi
	fusermount3 -u "$mnt" || { echo "FAIL: unmount"; exit 1; }
done
exit $fail

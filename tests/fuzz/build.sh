#!/bin/sh
# tests/fuzz/build.sh: build the libFuzzer targets with clang.
#
#	tests/fuzz/build.sh OUTDIR [MESON_BUILDDIR]
#
# Compiles every C file of the format core and its layers (the sources
# meson compiles into the layers' libraries libcolfs_LAYER.a, read from
# MESON_BUILDDIR/compile_commands.json when given, else formats/**/*.c; plus the protobuf-c code generated here from
# formats/orc/orc.proto, formats/cfile/cfile.proto and formats/kudu/kudu.proto) with -fsanitize=fuzzer-no-link,address,undefined
# into OUTDIR/libcolfs_core_fuzz.a, then links each target
# (tests/fuzz/<target>.c) with libFuzzer into OUTDIR/fuzz-<target>.
# The build is skipped when nothing it reads has changed since the last
# one (a hash of the sources is kept in OUTDIR/stamp), and serialised by a
# lock, so parallel test runs build once.  Exits 77 without clang.
set -eu

out=${1:?usage: build.sh OUTDIR [MESON_BUILDDIR]}
mbuild=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
CC=${FUZZ_CC:-clang}
TARGETS="thrift codec pq_decode render orc_rle orc_proto cfile open_parquet open_orc open_cfile variant open_arrow avro puffin ice_meta xml_list"

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "build.sh: $CC not found: the fuzz targets need clang with libFuzzer" >&2
	exit 77
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

exec 9>"$out/.lock"
flock 9

# clang without the libFuzzer runtime or the sanitizers: skip too
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	> "$out/probe.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined "$out/probe.c" -o "$out/probe" \
	>/dev/null 2>&1; then
	echo "build.sh: $CC cannot link -fsanitize=fuzzer,address,undefined" >&2
	exit 77
fi

# the core's sources: what meson builds, or every C file under formats/
list_sources() {
	if [ -n "$mbuild" ] && [ -f "$mbuild/compile_commands.json" ]; then
		python3 -c '
import json, os, re, sys
for e in json.load(open(sys.argv[1])):
    if not re.search(r"(^|/)libcolfs_\w+\.a\.p/", e["output"]) or e["file"].endswith(".pb-c.c"):
        continue
    print(os.path.realpath(os.path.join(e["directory"], e["file"])))
' "$mbuild/compile_commands.json" | LC_ALL=C sort
	else
		find "$src/formats" -name '*.c' | LC_ALL=C sort
	fi
}
core_list=$(list_sources)

hash=$( (echo "$core_list"; cd "$src" && find formats tests/fuzz -name '*.[ch]' -o -name '*.proto' \
		-o -name build.sh | LC_ALL=C sort | xargs cat; echo "$CC") | sha256sum | cut -d' ' -f1)
have_all=1
for t in $TARGETS; do
	[ -x "$out/fuzz-$t" ] || have_all=0
done
if [ "$have_all" = 1 ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$hash" ]; then
	exit 0
fi
rm -f "$out/stamp"

PKGS="zlib libzstd liblz4 libbrotlidec lzo2 libxxhash libprotobuf-c jansson libcurl libcrypto expat"
PKG_CFLAGS=$(pkg-config --cflags $PKGS)
PKG_LIBS="$(pkg-config --libs $PKGS) -lsnappy -lroaring -lm -lpthread"
# UBSan checks stay recoverable so that ubsan.supp can silence known
# problems; UBSAN_OPTIONS=halt_on_error=1 makes every other report fatal.
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=gnu11 -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE -Wall -Wextra \
 -Wno-missing-field-initializers -Wno-unused-parameter \
 -I$src/formats -I$src/formats/orc -I$out/gen -I$out/gen/orc $PKG_CFLAGS"

gen="$out/gen"
mkdir -p "$gen/orc" "$gen/cfile" "$gen/kudu" "$out/obj"
protoc-c --proto_path="$src/formats/orc" --c_out="$gen/orc" "$src/formats/orc/orc.proto"
protoc-c --proto_path="$src/formats/cfile" --c_out="$gen/cfile" "$src/formats/cfile/cfile.proto"
protoc-c --proto_path="$src/formats/kudu" --c_out="$gen/kudu" "$src/formats/kudu/kudu.proto"

start=$(date +%s)
rm -f "$out"/obj/*.o
# every core source, and the generated protobuf code
{
	echo "$core_list"
	echo "$gen/orc/orc.pb-c.c"
	echo "$gen/cfile/cfile.pb-c.c"
	echo "$gen/kudu/kudu.pb-c.c"
} > "$out/sources.txt"
export CC CFLAGS SAN out
xargs -P "$(nproc)" -I{} sh -c '
	f="{}"
	o="$out/obj/$(echo "$f" | sed "s|.*/formats/||; s|^$out/gen/|gen_|; s|/|_|g; s|\.c$|.o|")"
	$CC $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$f" -o "$o"
' < "$out/sources.txt"
rm -f "$out/libcolfs_core_fuzz.a"
ar rcs "$out/libcolfs_core_fuzz.a" "$out"/obj/*.o

for t in $TARGETS; do
	echo "$t"
done | xargs -P "$(nproc)" -I{} sh -c '
	$CC $CFLAGS $SAN -fsanitize=fuzzer -I"'"$here"'" \
		"'"$here"'/{}.c" "$out/libcolfs_core_fuzz.a" '"$PKG_LIBS"' \
		-o "$out/fuzz-{}"
'
echo "$hash" > "$out/stamp"
echo "build.sh: fuzz targets built in $(( $(date +%s) - start )) s: $out"

#!/bin/sh
# tests/fuzz/run-target.sh: run one libFuzzer target for a bounded time.
#
#	run-target.sh TARGET SECONDS OUTDIR MESON_BUILDDIR
#
# Builds the targets with build.sh (once: later calls find them built),
# then runs OUTDIR/fuzz-TARGET for SECONDS under ASan+UBSan, starting from
# the seed corpus (tests/fuzz/corpus/TARGET, read only) and the saved
# crashes; new inputs go to OUTDIR/work/TARGET, findings to
# OUTDIR/findings/TARGET-*.  Exits 77 without clang, 1 on a finding (the
# reproducer's path is printed: save it under tests/fuzz/crashes/TARGET/
# with a name saying what it breaks).
set -eu
t=${1:?target}
secs=${2:?seconds}
out=${3:?outdir}
mbuild=${4:-}
here=$(cd "$(dirname "$0")" && pwd)

rc=0
mkdir -p "$out"
"$here/build.sh" "$out" "$mbuild" > "$out/build-$t.log" 2>&1 || rc=$?
if [ "$rc" = 77 ]; then
	echo "clang not found: skipping the libFuzzer run of $t"
	exit 77
elif [ "$rc" != 0 ]; then
	cat "$out/build-$t.log"
	exit "$rc"
fi
mkdir -p "$out/work/$t" "$out/findings"
dirs="$out/work/$t $here/corpus/$t"
[ -d "$here/crashes/$t" ] && dirs="$dirs $here/crashes/$t"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$here/ubsan.supp}"
log="$out/findings/$t.log"
# known crashes are in crashes/ and fuzz_known_issue() keeps their paths
# quiet; the run itself must find nothing new.  The seed is fixed
# (COLFS_FUZZ_SEED, default 1) so that a test run is reproducible: a
# machine explores the same inputs in the same order, as far as its time
# allows; COLFS_FUZZ_SEED=0 lets libFuzzer pick a random one.
set +e
"$out/fuzz-$t" -seed="${COLFS_FUZZ_SEED:-1}" \
	-max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
	-malloc_limit_mb=1024 -max_len=65536 -print_final_stats=1 \
	-artifact_prefix="$out/findings/$t-" $dirs > "$log" 2>&1
rc=$?
set -e
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" || true
if [ "$rc" != 0 ]; then
	grep -E 'ERROR|invariant|SUMMARY|^ +#[0-9]+ ' "$log" | head -40
	echo "FINDING: reproducer in $out/findings/$t-*; full log $log"
	exit 1
fi
echo "$t: no finding in $secs s"

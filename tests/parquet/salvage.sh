#!/bin/bash
# tests/parquet/salvage.sh: salvage/ of Parquet files whose footer is gone
# (docs/parquet-tree.md, "Salvage").
#
#   salvage.sh COLFS_TOOL COLFS_MKSAMPLE COLFS CORPUS_DIR WORK_DIR
#
# Healthy files are written here (colfs-mksample; DuckDB when
# tests/values/duckdb-setup.sh can load it), then damaged copies are made:
#   died     cut right after the last column chunk (a writer that died
#            before writing the page index and the footer)
#   zeroed   the footer bytes overwritten with zeros
#   midpage  cut in the middle of a page of the last row group
# and checked through colfs-tool: salvage/ lists exactly the healthy
# file's pages with the same header, stored and decompressed bytes; with
# -o schema_from=HEALTHY the recovered rows, columns and chunk values equal
# the healthy file's.  A mount of a damaged file is checked the same way
# when FUSE is available (always unmounted by a trap).  Every damaged file
# of the corpus, and truncated copies of healthy corpus files with and
# without schema_from, are walked by `colfs-tool check`, which must not
# crash.
set -u
TOOL=${1:?usage}; MKSAMPLE=${2:?usage}; COLFS=${3:?usage}
CORPUS=${4:?usage}; WORK=${5:?usage}/salvage-work
dir=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK"
MNT=$WORK/mnt
DAEMON=
cleanup() {
	if grep -qs " $MNT fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null ||
			timeout 10 umount -l "$MNT" 2>/dev/null
	fi
	[ -n "$DAEMON" ] && kill -KILL "$DAEMON" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# end of the last column chunk of a healthy file (from its layout)
chunks_end() {
	"$TOOL" cat "$1" layout |
		awk '$3 == "column_chunk" { e = $1 + $2 } END { print e }'
}

# "offset length" of a range node
range_of() {
	"$TOOL" stat "$1" "$2" | awk '$1 == "offset:" { o = $2 }
		$1 == "length:" { l = $2 } END { print o, l }'
}

# The healthy file's pages in file order: "rg/chunk/k" per line.
healthy_pages() {
	local f=$1 g c k
	for g in $("$TOOL" ls "$f" row_groups); do
		for c in $("$TOOL" ls "$f" "row_groups/$g/chunks"); do
			for k in $("$TOOL" ls "$f" "row_groups/$g/chunks/$c/pages"); do
				echo "$g/$c/$k"
			done
		done
	done
}

# salvage/pages/N equals the N-th healthy page (pages up to the count
# given, default all)
check_pages() {
	local healthy=$1 damaged=$2 name=$3 limit=${4:-}
	local n=0 bad=0 p
	healthy_pages "$healthy" > "$WORK/pages.txt"
	local total
	total=$(wc -l < "$WORK/pages.txt")
	[ -n "$limit" ] || limit=$total
	local found
	found=$("$TOOL" ls "$damaged" salvage/pages | wc -l)
	if [ "$found" != "$limit" ]; then
		fail "$name: salvage/pages has $found pages, expected $limit"
		return
	fi
	# One colfs-tool run per side and part: the pages' bytes one after
	# another.  The header.json documents carry each page's stored and
	# decompressed sizes, so equal streams mean equal pages, one by one.
	local hp=() dp=()
	while read -r p; do
		[ "$n" -lt "$limit" ] || break
		local g=${p%%/*} rest=${p#*/}
		local c=${rest%/*} k=${rest##*/}
		hp+=("row_groups/$g/chunks/$c/pages/$k")
		dp+=("salvage/pages/$n")
		n=$((n + 1))
	done < "$WORK/pages.txt"
	[ "$n" -gt 0 ] || return
	for what in header.json raw decompressed; do
		if ! cmp -s <("$TOOL" cat "$healthy" "${hp[@]/%//$what}") \
			<("$TOOL" cat "$damaged" "${dp[@]/%//$what}"); then
			# name the first page that differs
			local i
			for ((i = 0; i < n; i++)); do
				if ! cmp -s <("$TOOL" cat "$healthy" "${hp[i]}/$what") \
					<("$TOOL" cat "$damaged" "${dp[i]}/$what"); then
					fail "$name: ${dp[i]}/$what differs from ${hp[i]}/$what"
					break
				fi
			done
			[ "$i" -lt "$n" ] || fail "$name: the pages' $what differ"
			bad=1
		fi
	done
	[ $bad = 0 ] && ok "$name: $n pages with the healthy file's header, raw and decompressed bytes"
}

# with schema_from: rows.jsonl, columns/<field> and chunk values
check_values() {
	local healthy=$1 damaged=$2 name=$3 rows=${4:-}
	local S="-o schema_from=$healthy"
	"$TOOL" cat "$healthy" rows.jsonl > "$WORK/h.jsonl"
	[ -n "$rows" ] || rows=$(wc -l < "$WORK/h.jsonl")
	# shellcheck disable=SC2086
	"$TOOL" $S cat "$damaged" salvage/rows.jsonl > "$WORK/d.jsonl" ||
		fail "$name: salvage/rows.jsonl cannot be read"
	if [ "$(wc -l < "$WORK/d.jsonl")" != "$rows" ] ||
	   ! cmp -s <(head -n "$rows" "$WORK/h.jsonl") "$WORK/d.jsonl"; then
		fail "$name: salvage/rows.jsonl is not the healthy file's first $rows rows"
	else
		ok "$name: salvage/rows.jsonl = the healthy file's first $rows rows"
	fi
	local col
	for col in $("$TOOL" ls "$healthy" columns); do
		# shellcheck disable=SC2086
		if ! cmp -s <("$TOOL" cat "$healthy" "columns/$col" | head -n "$rows") \
			<("$TOOL" $S cat "$damaged" "salvage/columns/$col"); then
			fail "$name: salvage/columns/$col differs"
		fi
	done
	# every matched chunk's values equal its healthy chunk's values
	local m bad=0 checked=0
	# shellcheck disable=SC2086
	for m in $("$TOOL" $S ls "$damaged" salvage/chunks); do
		local info col2 g
		# shellcheck disable=SC2086
		info=$("$TOOL" $S cat "$damaged" "salvage/chunks/$m/info.json")
		col2=$(echo "$info" | sed -n 's/^  "column": "\(.*\)",$/\1/p')
		g=$(echo "$info" | sed -n 's/^  "row_group": \([0-9]*\),$/\1/p')
		echo "$info" | grep -q '"row_group_complete": true' || continue
		[ -n "$col2" ] && [ -n "$g" ] || { bad=1; continue; }
		checked=$((checked + 1))
		# shellcheck disable=SC2086
		if ! cmp -s <("$TOOL" cat "$healthy" "row_groups/$g/chunks/$col2/values") \
			<("$TOOL" $S cat "$damaged" "salvage/chunks/$m/values"); then
			fail "$name: salvage/chunks/$m/values differ from row_groups/$g/chunks/$col2/values"
			bad=1
		fi
	done
	[ $bad = 0 ] && [ $checked -gt 0 ] &&
		ok "$name: columns/ and the values of $checked matched chunks equal the healthy file's"
	[ $checked -gt 0 ] || fail "$name: no chunk was matched to a complete row group"
}

summary_has() {
	local damaged=$1 name=$2 want=$3; shift 3
	if ! "$TOOL" "$@" cat "$damaged" salvage/summary | grep -qF "$want"; then
		fail "$name: salvage/summary lacks '$want'"
		"$TOOL" "$@" cat "$damaged" salvage/summary
	fi
}

errors_have() {
	local damaged=$1 name=$2 want=$3; shift 3
	if ! "$TOOL" "$@" cat "$damaged" salvage/errors | grep -qF "$want"; then
		fail "$name: salvage/errors lacks '$want'"
		"$TOOL" "$@" cat "$damaged" errors
	fi
}

one_file() {
	local h=$1 name=$2
	local end size rows_total
	end=$(chunks_end "$h")
	size=$(stat -c %s "$h")
	rows_total=$("$TOOL" cat "$h" rows.jsonl | wc -l)

	if "$TOOL" ls "$h" | grep -qx salvage; then
		fail "$name: a healthy file shows salvage/"
	fi

	# died: the page index and footer were never written
	head -c "$end" "$h" > "$WORK/died.parquet"
	check_pages "$h" "$WORK/died.parquet" "$name/died"
	check_values "$h" "$WORK/died.parquet" "$name/died"
	summary_has "$WORK/died.parquet" "$name/died" "rows recovered: $rows_total" -o "schema_from=$h"
	summary_has "$WORK/died.parquet" "$name/died" "scan caps: 262144 pages, 20 seconds"
	summary_has "$WORK/died.parquet" "$name/died" "scan caps: 786432 pages, 60 seconds" -o salvage_effort=3
	"$TOOL" ls "$WORK/died.parquet" salvage | grep -qx columns &&
		fail "$name/died: salvage/columns without schema_from"

	# zeroed: the footer overwritten with zeros, the tail kept
	cp "$h" "$WORK/zeroed.parquet"
	local flen
	flen=$(od -An -tu4 -j $((size - 8)) -N4 "$h" | tr -d ' ')
	dd if=/dev/zero of="$WORK/zeroed.parquet" bs=1 seek=$((size - 8 - flen)) \
		count="$flen" conv=notrunc status=none
	check_pages "$h" "$WORK/zeroed.parquet" "$name/zeroed"
	check_values "$h" "$WORK/zeroed.parquet" "$name/zeroed"
	errors_have "$WORK/zeroed.parquet" "$name/zeroed" "hold no plausible page"

	# midpage: cut inside a page of the last row group's second chunk
	local lg second off len
	lg=$("$TOOL" ls "$h" row_groups | tail -1)
	second=$("$TOOL" ls "$h" "row_groups/$lg/chunks" | sed -n 2p)
	read -r off len < <(range_of "$h" "row_groups/$lg/chunks/$second/raw")
	if [ -z "${off:-}" ]; then
		fail "$name/midpage: no range for row_groups/$lg/chunks/$second/raw"
	else
		local cut=$((off + len - 5))
		head -c "$cut" "$h" > "$WORK/mid.parquet"
		# every page before the cut page is found
		local before=0 p
		healthy_pages "$h" > "$WORK/pages.txt"
		local keep
		keep=$(awk -v lg="$lg" -v c="$second" -F/ '
			{ n++ } $1 == lg && $2 == c { last = n } END { print last - 1 }' \
			"$WORK/pages.txt")
		check_pages "$h" "$WORK/mid.parquet" "$name/midpage" "$keep"
		local per
		per=$("$TOOL" cat "$h" "row_groups/$lg/meta.json" |
			sed -n 's/^  "num_rows": \([0-9]*\),*$/\1/p')
		check_values "$h" "$WORK/mid.parquet" "$name/midpage" \
			$((rows_total - per))
		errors_have "$WORK/mid.parquet" "$name/midpage" "the page is cut"
		errors_have "$WORK/mid.parquet" "$name/midpage" "the row group is incomplete" -o "schema_from=$h"
		summary_has "$WORK/mid.parquet" "$name/midpage" "1 incomplete" -o "schema_from=$h"
	fi
}

"$MKSAMPLE" "$WORK/v1.parquet" --codec snappy --no-bloom >/dev/null ||
	{ echo "FAIL: colfs-mksample"; exit 1; }
one_file "$WORK/v1.parquet" "sample-v1-snappy"
"$MKSAMPLE" "$WORK/v2.parquet" --codec zstd --data-page-v2 --rows 4321 \
	--row-groups 4 --page-rows 250 >/dev/null
one_file "$WORK/v2.parquet" "sample-v2-zstd"
"$MKSAMPLE" "$WORK/gz.parquet" --codec gzip --rows 2000 --row-groups 2 >/dev/null
one_file "$WORK/gz.parquet" "sample-v1-gzip"

# a page whose CRC does not match is found and reported
head -c "$(chunks_end "$WORK/v1.parquet")" "$WORK/v1.parquet" > "$WORK/crc.parquet"
read -r poff plen < <(range_of "$WORK/v1.parquet" row_groups/0/chunks/price/pages/1/raw)
printf '\377' | dd of="$WORK/crc.parquet" bs=1 seek=$((poff + plen / 2)) conv=notrunc status=none
if "$TOOL" cat "$WORK/crc.parquet" salvage/errors | grep -q "CRC mismatch" &&
   "$TOOL" cat "$WORK/crc.parquet" salvage/summary | grep -q "1 mismatch"; then
	ok "crc: a damaged page is found and its CRC mismatch reported"
else
	fail "crc: the CRC mismatch is not reported"
fi

# a page header destroyed in row group 1: matching resumes at the next
# page that starts a row group, so row groups 0 and 2 are recovered
head -c "$(chunks_end "$WORK/v1.parquet")" "$WORK/v1.parquet" > "$WORK/hole.parquet"
read -r doff _ < <(range_of "$WORK/v1.parquet" row_groups/1/chunks/name/pages/1/raw)
hoff=
for n in $("$TOOL" ls "$WORK/hole.parquet" salvage/pages); do
	info=$("$TOOL" cat "$WORK/hole.parquet" "salvage/pages/$n/info.json")
	if echo "$info" | grep -q "\"data_offset\": $doff,"; then
		hoff=$(echo "$info" | sed -n 's/^  "offset": \([0-9]*\),$/\1/p')
		break
	fi
done
if [ -z "$hoff" ]; then
	fail "hole: the page of row_groups/1/chunks/name/pages/1 is not in salvage/pages"
else
	dd if=/dev/zero of="$WORK/hole.parquet" bs=1 seek="$hoff" count=10 \
		conv=notrunc status=none
	per=$("$TOOL" cat "$WORK/v1.parquet" row_groups/0/meta.json |
		sed -n 's/^  "num_rows": \([0-9]*\),*$/\1/p')
	if cmp -s <("$TOOL" cat "$WORK/v1.parquet" rows.jsonl |
			sed -n "1,${per}p;$((2 * per + 1)),$((3 * per))p") \
		<("$TOOL" -o schema_from="$WORK/v1.parquet" cat "$WORK/hole.parquet" salvage/rows.jsonl) &&
	   "$TOOL" -o schema_from="$WORK/v1.parquet" cat "$WORK/hole.parquet" salvage/summary |
		grep -q "2 complete, 1 incomplete"; then
		ok "hole: row groups 0 and 2 recovered around a destroyed page header"
	else
		fail "hole: row groups 0 and 2 are not recovered"
		"$TOOL" -o schema_from="$WORK/v1.parquet" cat "$WORK/hole.parquet" salvage/summary salvage/errors
	fi
fi

# a missing schema_from is refused before the file is opened (exit 2,
# one line); one that is not Parquet is reported, the pages still listed
out=$("$TOOL" -o schema_from="$WORK/none.parquet" ls "$WORK/died.parquet" 2>&1)
rc=$?
if [ "$rc" -eq 2 ] &&
   [ "$out" = "colfs-tool: -o schema_from=$WORK/none.parquet: No such file or directory" ]; then
	ok "schema_from missing: refused"
else
	fail "schema_from missing: exit $rc: $out"
fi
echo "not parquet" > "$WORK/text.parquet"
if "$TOOL" -o schema_from="$WORK/text.parquet" cat "$WORK/died.parquet" salvage/errors |
	grep -q "schema_from .* does not end with a plaintext Parquet footer" &&
   [ "$("$TOOL" -o schema_from="$WORK/text.parquet" ls "$WORK/died.parquet" salvage/pages | wc -l)" -gt 0 ]; then
	ok "schema_from not Parquet: reported, pages still listed"
else
	fail "schema_from not Parquet: not reported"
fi

# A damaged copy of $1 salvaged with schema_from=$2, a file of the same
# schema whose row groups have other sizes: the recovered rows must be the
# first rows of $1, all of them for a file cut before its footer.
same_type_files() {
	local h=$1 other=$2 end size cut n
	end=$(chunks_end "$h")
	size=$(stat -c %s "$h")
	for cut in "$end" $((end * 2 / 3)) $((end * 9 / 10)); do
		head -c "$cut" "$h" > "$WORK/same-cut.parquet"
		"$TOOL" -o schema_from="$other" cat "$WORK/same-cut.parquet" \
			salvage/rows.csv > "$WORK/same-got.csv"
		n=$(($(wc -l < "$WORK/same-got.csv") - 1))
		if [ "$n" -le 0 ]; then
			fail "same-type/cut $cut of $size: no rows recovered"
		elif [ "$cut" = "$end" ] && [ "$n" != 30000 ]; then
			fail "same-type/died: $n of 30000 rows recovered"
		elif ! cmp -s "$WORK/same-got.csv" \
			<("$TOOL" cat "$h" rows.csv | head -n $((n + 1))); then
			fail "same-type/cut $cut of $size: the $n rows recovered differ from the file's first rows"
		else
			ok "same-type/cut $cut of $size: $n rows as the file's first rows"
		fi
	done
}

# DuckDB as the writer (nullable columns, decimals, booleans, lists)
if sh "$dir/../values/duckdb-setup.sh" 2>/dev/null; then
	cat > "$dir/../values/.salvage-gen.mjs" <<'EOF'
import { DuckDBInstance } from '@duckdb/node-api';
const [out] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`COPY (SELECT i AS id,
  CASE WHEN i % 7 = 3 THEN NULL ELSE 'name' || (i % 13) END AS name,
  i * 0.5 AS price, i % 2 = 0 AS flag, DATE '2020-01-01' + (i % 400)::INT AS day,
  CASE WHEN i % 5 = 0 THEN NULL ELSE [i % 3, i % 4] END AS xs,
  (i * 7) % 1000 AS small
  FROM range(0, 12000) t(i)) TO '${out}'
  (FORMAT PARQUET, COMPRESSION zstd, ROW_GROUP_SIZE 3000)`);
EOF
	if (cd "$dir/../values" && node .salvage-gen.mjs "$WORK/duck.parquet"); then
		one_file "$WORK/duck.parquet" "duckdb-zstd"
	else
		fail "duckdb: the fixture could not be written"
	fi
	# schema_from with other row-group sizes: three flat PLAIN columns of
	# one width (two BIGINT, one DOUBLE), so only the row counts can tell
	# where one column's chunk ends
	cat > "$dir/../values/.salvage-gen.mjs" <<'EOF'
import { DuckDBInstance } from '@duckdb/node-api';
const [out, rg] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`COPY (SELECT (i * 2654435761) % 1000000007 AS x,
  (i * 40503) % 998244353 AS y, i::DOUBLE / 3 AS z
  FROM range(30000) t(i)) TO '${out}'
  (FORMAT PARQUET, COMPRESSION zstd, ROW_GROUP_SIZE ${rg})`);
EOF
	if (cd "$dir/../values" && node .salvage-gen.mjs "$WORK/same-a.parquet" 10000 &&
	    node .salvage-gen.mjs "$WORK/same-b.parquet" 7000); then
		same_type_files "$WORK/same-b.parquet" "$WORK/same-a.parquet"
	else
		fail "duckdb: the same-type fixtures could not be written"
	fi
	rm -f "$dir/../values/.salvage-gen.mjs"
else
	echo "skip: DuckDB is not available (the colfs-mksample cases ran)"
fi

# a mount of a damaged file serves the same salvage tree
if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
	mkdir -p "$MNT"
	head -c "$(chunks_end "$WORK/v1.parquet")" "$WORK/v1.parquet" > "$WORK/mount.parquet"
	"$COLFS" -f -o schema_from="$WORK/v1.parquet" "$WORK/mount.parquet" "$MNT" &
	DAEMON=$!
	for _ in $(seq 50); do
		grep -qs " $MNT fuse" /proc/self/mounts && break
		sleep 0.1
	done
	if grep -qs " $MNT fuse" /proc/self/mounts &&
	   cmp -s <(timeout 20 cat "$MNT/salvage/rows.jsonl") \
		<("$TOOL" cat "$WORK/v1.parquet" rows.jsonl) &&
	   cmp -s <(timeout 20 cat "$MNT/salvage/pages/5/raw") \
		<("$TOOL" cat "$WORK/v1.parquet" row_groups/0/chunks/name/pages/2/raw); then
		ok "mount: salvage/rows.jsonl and a page's raw bytes as the healthy file's"
	else
		fail "mount: the salvage tree differs or the mount failed"
	fi
	timeout 10 fusermount3 -u "$MNT" || fail "mount: unmount failed"
	wait "$DAEMON" 2>/dev/null
	DAEMON=
else
	echo "skip: no FUSE here (the mount case did not run)"
fi

# the corpus: damaged files, and truncated healthy ones, must not crash
# (exit status 0-2; ASan and UBSan report with 99 and 98 here)
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=98}
walk() {
	local rc
	timeout 120 "$TOOL" "$@" >/dev/null 2>&1
	rc=$?
	[ $rc -le 2 ] || [ $rc = 124 ] || fail "corpus: colfs-tool $* exited $rc"
}
if [ -d "$CORPUS/parquet" ]; then
	n=0
	# the damaged files: under the sanitizers only (COLFS_SANITIZED=1,
	# tests/run), where no other test walks them, one in
	# COLFS_MUTATE_EVERY as for the mutants (this test took nearly ten
	# minutes under ASan); the plain run's check-corpus-parquet
	# (tests/tool) checks each of them more closely
	if [ "${COLFS_SANITIZED:-0}" = 1 ]; then
		every=${COLFS_MUTATE_EVERY:-1} i=0
		while IFS= read -r -d '' f; do
			i=$((i + 1))
			[ "$every" -le 1 ] || [ $((i % every)) = 1 ] || continue
			walk check "$f"
			n=$((n + 1))
		done < <(find "$CORPUS/parquet/bad" -type f -print0 2>/dev/null | sort -z)
	fi
	# the truncated copies are mutants: COLFS_MUTATE_EVERY=N (the
	# sanitizer run) walks one healthy file in N
	every=${COLFS_MUTATE_EVERY:-1} i=0
	while IFS= read -r -d '' f; do
		sz=$(stat -c %s "$f")
		[ "$sz" -le 20000000 ] || continue
		[ "$(head -c 4 "$f" | tr -d '\000')" = PAR1 ] || continue
		i=$((i + 1))
		[ "$every" -le 1 ] || [ $((i % every)) = 1 ] || continue
		head -c $((sz * 2 / 3)) "$f" > "$WORK/t.parquet"
		walk check "$WORK/t.parquet"
		# with its schema: every second one under the sanitizers
		if [ "$every" -le 1 ] || [ $(((i / every) % 2)) = 0 ]; then
			walk -o "schema_from=$f" check "$WORK/t.parquet"
		fi
		n=$((n + 1))
	done < <(find "$CORPUS/parquet/good" -type f -print0 2>/dev/null)
	ok "corpus: $n files walked by colfs-tool check"
else
	echo "skip: no corpus at $CORPUS (the corpus case did not run)"
fi

[ $fails = 0 ] && { echo "salvage: all passed"; exit 0; }
echo "salvage: $fails failed"
exit 1

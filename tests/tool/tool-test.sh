#!/bin/bash
# Tests of colfs-tool and colfs-mksample; one test per name (see
# meson.build for the list and the environment it sets).
#   tool-test.sh NAME
# Exit 0 pass, 1 fail, 77 skip.
set -u

name=${1:?test name}
work=$(mktemp -d "${TMPDIR:-/tmp}/colfs-tool-test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
# The size index (colfs-tool index) goes to $XDG_CACHE_HOME/colfs: keep it
# here, never in the user's cache.
export XDG_CACHE_HOME=$work/cache

fail() {
	echo "FAIL [$name]: $*" >&2
	exit 1
}

skip() {
	echo "SKIP [$name]: $*" >&2
	exit 77
}

# run CMD...: stdout to out, stderr to err, status in $rc
run() {
	"$@" >out 2>err
	rc=$?
}

expect_rc() {
	[ "$rc" -eq "$1" ] || {
		echo "--- stdout"; head -c 2000 out; echo "--- stderr"; cat err
		fail "exit status $rc, expected $1 (from: $2)"
	} >&2
}

# expect_file FILE EXPECTED-TEXT: FILE's content is exactly the text
expect_file() {
	printf '%s' "$2" >expected
	cmp -s "$1" expected || {
		echo "--- got"; cat "$1"; echo "--- expected"; cat expected
		diff expected "$1"
		fail "$1 differs from the expected text"
	} >&2
}

# --- the toy format ----------------------------------------------------------

make_toy() {
	printf 'TOYF0123456789' >toy.bin
}

toy() {
	run "$COLFS_TOOL_TOY" "$@"
}

# the tool's "-l" line for one node
long() {
	printf '%-6s %12s %s\n' "$1" "$2" "$3"
}

test_toy_ls() {
	make_toy
	toy ls toy.bin
	expect_rc 0 "ls"
	expect_file out 'README
format
data
sub
empty
bad
errors
'
	[ -s err ] && fail "ls wrote to stderr: $(cat err)"
	# a PATH that is a directory, with and without slashes
	for p in sub /sub sub/ /sub/; do
		toy ls toy.bin "$p"
		expect_rc 0 "ls $p"
		expect_file out 'a%2Fb
big
broken
head
'
	done
	# a PATH that is a file: its name
	toy ls toy.bin sub/a%2Fb
	expect_rc 0 "ls file"
	expect_file out 'a%2Fb
'
	# an empty directory lists nothing
	toy ls toy.bin empty
	expect_rc 0 "ls empty"
	expect_file out ''
	# "." and ".." resolve like on the mount
	toy ls toy.bin sub/../empty/.
	expect_rc 0 "ls dots"
	expect_file out ''
}

test_toy_ls_long() {
	make_toy
	toy ls -l toy.bin
	expect_rc 0 "ls -l"
	expect_file out "$(long doc 9 README; long doc 6 format;
		long range 10 data; long dir - sub; long dir - empty;
		long dir - bad; long doc 0 errors)
"
	# a stream of a small file is sized when listed (sizes=auto: the
	# source is under 4 MiB); the broken document cannot be sized: "!", an
	# error line, and status 1
	toy ls -l toy.bin sub
	expect_rc 1 "ls -l sub"
	expect_file out "$(long doc 6 'a%2Fb'; long stream 327680 big;
		long doc '!' broken; long range 4 head)
"
	# with sizes=lazy a stream's size is unknown until it has been read: "?"
	toy -o sizes=lazy ls -l toy.bin sub
	expect_rc 1 "ls -l sub (lazy)"
	expect_file out "$(long doc 6 'a%2Fb'; long stream '?' big;
		long doc '!' broken; long range 4 head)
"
	grep -q '/sub/broken: offset 7 (0x7): corrupt: the toy says no' err ||
		fail "ls -l sub: no error line for broken: $(cat err)"
	# options may come after the command
	toy ls toy.bin sub/head -l
	expect_rc 0 "ls PATH -l"
	expect_file out "$(long range 4 head)
"
}

test_toy_tree() {
	make_toy
	toy tree toy.bin
	expect_rc 1 "tree (bad/ cannot be listed)"
	expect_file out '/
├── README
├── format
├── data
├── sub
│   ├── a%2Fb
│   ├── big
│   ├── broken
│   └── head
├── empty
├── bad
│   └── [cannot list: truncated]
└── errors

3 directories, 8 files
'
	expect_file err 'colfs-tool: toy.bin: /bad: offset 99 (0x63): truncated: cannot list bad
'
	toy tree --depth 1 toy.bin
	expect_rc 0 "tree --depth 1"
	expect_file out '/
├── README
├── format
├── data
├── sub
├── empty
├── bad
└── errors

3 directories, 4 files
'
	toy tree toy.bin --depth=0
	expect_rc 0 "tree --depth=0"
	expect_file out '/

0 directories, 0 files
'
	toy tree toy.bin sub
	expect_rc 0 "tree sub"
	expect_file out '/sub
├── a%2Fb
├── big
├── broken
└── head

0 directories, 4 files
'
	toy tree toy.bin sub/head
	expect_rc 0 "tree FILE"
	expect_file out '/sub/head

0 directories, 0 files
'
	toy tree --depth x toy.bin
	expect_rc 2 "tree --depth x"
}

test_toy_cat() {
	make_toy
	toy cat toy.bin format
	expect_rc 0 "cat format"
	expect_file out 'toy 1
'
	# several paths, concatenated
	toy cat toy.bin README sub/a%2Fb format
	expect_rc 0 "cat 3"
	expect_file out 'toy tree
slash
toy 1
'
	# ranges are the file's bytes
	toy cat toy.bin data
	expect_rc 0 "cat data"
	expect_file out '0123456789'
	toy cat toy.bin sub/head
	expect_rc 0 "cat head"
	expect_file out 'TOYF'
	# a stream larger than one 128 KiB read, byte for byte
	toy cat toy.bin sub/big
	expect_rc 0 "cat big"
	: >big.expected
	for i in $(seq 0 39); do
		c=$(printf "\\$(printf '%03o' $((97 + i % 26)))")
		head -c 8192 /dev/zero | tr '\0' "$c" >>big.expected
	done
	cmp out big.expected || fail "cat sub/big differs"
	[ -s err ] && fail "cat wrote to stderr: $(cat err)"
	# a failing node between good ones: the others are still printed,
	# the node's error is named, the status is 1
	toy cat toy.bin format sub/broken README
	expect_rc 1 "cat broken"
	expect_file out 'toy 1
toy tree
'
	expect_file err 'colfs-tool: toy.bin: /sub/broken: offset 7 (0x7): corrupt: the toy says no
'
	toy cat toy.bin sub
	expect_rc 1 "cat dir"
	expect_file err 'colfs-tool: toy.bin: /sub: is a directory
'
	# after a read, errors holds the problem
	toy cat toy.bin sub/broken errors
	expect_rc 1 "cat broken errors"
	expect_file out '/sub/broken: offset 7 (0x7): corrupt: the toy says no
'
}

test_toy_stat() {
	make_toy
	toy stat toy.bin
	expect_rc 0 "stat /"
	expect_file out 'path: /
inode: 1
kind: dir
entries: 7
'
	toy stat toy.bin data
	expect_rc 0 "stat data"
	grep -q '^kind: range$' out || fail "stat data: $(cat out)"
	grep -q '^size: 10 (exact)$' out || fail "stat data: $(cat out)"
	grep -q '^offset: 4$' out || fail "stat data: $(cat out)"
	grep -q '^length: 10$' out || fail "stat data: $(cat out)"
	grep -q '^inode: [0-9][0-9]*$' out || fail "stat data: $(cat out)"
	toy -o sizes=lazy stat toy.bin sub/big
	expect_rc 0 "stat big"
	grep -q '^kind: stream$' out || fail "stat big: $(cat out)"
	grep -q '^size: ? ' out || fail "stat big: $(cat out)"
	toy stat toy.bin sub/big
	grep -q '^size: 327680 (exact)$' out || fail "stat big (auto): $(cat out)"
	toy stat toy.bin errors
	expect_rc 0 "stat errors"
	grep -q '^kind: doc$' out || fail "stat errors: $(cat out)"
	grep -q '^volatile: yes$' out || fail "stat errors: $(cat out)"
	toy stat toy.bin format
	grep -q '^volatile: no$' out || fail "stat format: $(cat out)"
	grep -q '^size: 6 (exact)$' out || fail "stat format: $(cat out)"
	# inodes are stable within a tree and differ between nodes
	a=$(grep '^inode:' out)
	toy stat toy.bin README
	b=$(grep '^inode:' out)
	[ "$a" != "$b" ] || fail "format and README share an $a"
	toy stat toy.bin bad
	expect_rc 1 "stat bad"
	grep -q 'cannot list bad' err || fail "stat bad: $(cat err)"
}

test_toy_errors() {
	make_toy
	for cmd in ls tree stat cat; do
		toy "$cmd" toy.bin nope/deeper
		expect_rc 1 "$cmd missing path"
		expect_file err 'colfs-tool: toy.bin: /nope/deeper: no such file or directory
'
		[ -s out ] && [ "$cmd" != tree ] &&
			fail "$cmd missing path wrote to stdout"
	done
	toy ls toy.bin bad
	expect_rc 1 "ls bad"
	expect_file err 'colfs-tool: toy.bin: /bad: offset 99 (0x63): truncated: cannot list bad
'
	# below a directory that cannot be listed: its error is the reason
	toy ls toy.bin bad/x
	expect_rc 1 "ls bad/x"
	expect_file err 'colfs-tool: toy.bin: /bad: offset 99 (0x63): truncated: cannot list bad
'
	toy cat toy.bin format/x
	expect_rc 1 "cat format/x"
	# usage errors are status 2
	toy ls toy.bin a b
	expect_rc 2 "ls with two paths"
	toy cat toy.bin
	expect_rc 2 "cat without a path"
	toy -l cat toy.bin format
	expect_rc 2 "-l on cat"
}

test_toy_pipe() {
	make_toy
	# the reader goes away after 10 bytes of 320 KiB: no message, status 0
	"$COLFS_TOOL_TOY" cat toy.bin sub/big sub/big 2>err | head -c 10 >out
	rc=${PIPESTATUS[0]}
	expect_rc 0 "cat | head"
	expect_file out 'aaaaaaaaaa'
	expect_file err ''
	"$COLFS_TOOL_TOY" tree toy.bin 2>err | head -n 1 >out
	rc=${PIPESTATUS[0]}
	[ "$rc" -le 1 ] || fail "tree | head: status $rc"
	expect_file out '/
'
	grep -v 'cannot list bad' err | grep -q . &&
		fail "tree | head wrote: $(cat err)"
	# a full disk is an error, not a closed pipe
	if [ -w /dev/full ]; then
		for cmd in "cat toy.bin sub/big" "ls toy.bin" "stat toy.bin"; do
			# shellcheck disable=SC2086
			"$COLFS_TOOL_TOY" $cmd >/dev/full 2>err
			rc=$?
			expect_rc 1 "$cmd >/dev/full"
			grep -q '^colfs-tool: write error: No space left' err ||
				fail "$cmd >/dev/full: $(cat err)"
		done
	fi
	true
}

# --- files that are no supported format ---------------------------------------

test_refuse() {
	printf 'hello, world\n' >text.txt
	: >empty.parquet
	mkdir adir
	for f in text.txt empty.parquet missing.parquet adir; do
		for cmd in ls tree stat "cat x"; do
			# shellcheck disable=SC2086
			run "$COLFS_TOOL" $cmd "$f"
			[ "$cmd" = "cat x" ] && run "$COLFS_TOOL" cat "$f" x
			expect_rc 2 "$cmd $f"
			[ "$(wc -l <err)" -eq 1 ] ||
				fail "$cmd $f: not one line: $(cat err)"
			grep -q "^colfs-tool: $f: ." err ||
				fail "$cmd $f: message does not name the file: $(cat err)"
			[ -s out ] && fail "$cmd $f wrote to stdout"
		done
	done
	run "$COLFS_TOOL" ls text.txt
	grep -q 'text file' err || fail "text: $(cat err)"
	run "$COLFS_TOOL" ls empty.parquet
	grep -q 'empty' err || fail "empty: $(cat err)"
	run "$COLFS_TOOL" ls missing.parquet
	grep -q 'No such file' err || fail "missing: $(cat err)"
	run "$COLFS_TOOL" ls adir
	grep -q 'directory' err || fail "directory: $(cat err)"
	true
}

test_usage() {
	run "$COLFS_TOOL" --help
	expect_rc 0 "--help"
	for w in ls tree cat stat check --json --depth -o null=; do
		grep -q -- "$w" out || fail "--help does not mention $w"
	done
	run "$COLFS_TOOL" --version
	expect_rc 0 "--version"
	grep -q '^colfs-tool [0-9]' out || fail "--version: $(cat out)"
	run "$COLFS_TOOL"
	expect_rc 2 "no arguments"
	grep -q usage err || fail "no arguments: $(cat err)"
	run "$COLFS_TOOL" frob x
	expect_rc 2 "unknown command"
	run "$COLFS_TOOL" --frob ls x
	expect_rc 2 "unknown option"
	run "$COLFS_TOOL" -o nosuchoption=1 ls x
	expect_rc 2 "unknown -o key"
	grep -q "unknown option 'nosuchoption=1'" err || fail "-o: $(cat err)"
	run "$COLFS_TOOL" -o max_alloc=banana ls x
	expect_rc 2 "bad -o value"
	# good options are accepted (then x does not exist: 2)
	run "$COLFS_TOOL" -o null=NULL,cache_size=8M --checksums=ignore ls x
	expect_rc 2 "good options, missing file"
	grep -q "^colfs-tool: x: No such file" err || fail "options: $(cat err)"
}

# colfs-tool uses the public header only (and its own colfs-tool.h), and
# no FUSE (habit 1: tools/ sit on formats/colfs.h like fs/ does).
test_layering() {
	for src in "$TESTS_TOOL_DIR"/../../tools/colfs-tool.c \
		   "$TESTS_TOOL_DIR"/../../tools/colfs-tool-check.c \
		   "$TESTS_TOOL_DIR"/../../tools/colfs-tool.h; do
	[ -r "$src" ] || fail "cannot read $src"
	bad=$(grep -E '^[[:space:]]*#[[:space:]]*include' "$src" |
		grep -vE '#[[:space:]]*include[[:space:]]*(<[a-z/]+\.h>|"colfs\.h"|"colfs-tool\.h")')
	[ -z "$bad" ] || fail "$(basename "$src") includes more than colfs.h: $bad"
	grep -qi fuse "$src" && grep -i 'include.*fuse' "$src" &&
		fail "$(basename "$src") includes a FUSE header"
	done
	if command -v ldd >/dev/null; then
		ldd "$COLFS_TOOL" | grep -q fuse && fail "colfs-tool links libfuse"
	fi
	true
}

# The man page renders without warnings and documents every command and
# option of --help.
test_manpage() {
	page="$TESTS_TOOL_DIR/../../docs/colfs-tool.1"
	[ -r "$page" ] || fail "no $page"
	command -v man >/dev/null || skip "man is not installed"
	MANWIDTH=80 man --warnings -l "$page" >rendered 2>warnings ||
		fail "man failed: $(cat warnings)"
	[ -s warnings ] && fail "man warnings: $(cat warnings)"
	for w in ls tree cat stat check index --json -l --depth -o --help --stats \
		--version null= cache_size= max_alloc= checksums= schema_from= \
		salvage_effort= sizes= size_index= 'EXIT STATUS'; do
		grep -q -- "$w" rendered || fail "the man page lacks $w"
	done
}

# --- the Parquet sample ----------------------------------------------------------

need_parquet() {
	run "$COLFS_TOOL" stat "$SAMPLE"
	if [ "$rc" -eq 2 ] && grep -q 'not a Parquet, ORC or Kudu' err; then
		skip "the Parquet format module is not registered yet ($(cat err))"
	fi
	expect_rc 0 "stat of the sample"
}

sample() {
	run "$COLFS_TOOL" "$@"
}

test_sample_ls() {
	need_parquet
	sample ls "$SAMPLE"
	expect_rc 0 "ls"
	for e in README format summary schema metadata.json row_groups errors; do
		grep -qx -- "$e" out || fail "root listing lacks $e: $(tr '\n' ' ' <out)"
	done
	[ "$(sort out | uniq -d)" = "" ] || fail "duplicate names in the root"
	sample ls "$SAMPLE" row_groups
	expect_rc 0 "ls row_groups"
	expect_file out '0
1
2
'
	sample ls "$SAMPLE" row_groups/0/chunks
	expect_rc 0 "ls chunks"
	for c in id name price day tags.list.element; do
		grep -qx -- "$c" out || fail "chunks lack $c: $(tr '\n' ' ' <out)"
	done
	# the listing order is stable
	sample ls "$SAMPLE"
	cp out first
	sample ls -l "$SAMPLE"
	expect_rc 0 "ls -l"
	awk '{ print $NF }' out | cmp -s - first || fail "ls -l names differ from ls"
	awk '$1 !~ /^(dir|doc|range|stream)$/ { exit 1 }' out ||
		fail "ls -l kinds: $(cat out)"
}

test_sample_tree() {
	need_parquet
	sample tree --depth 1 "$SAMPLE"
	expect_rc 0 "tree --depth 1"
	sample ls "$SAMPLE"
	mv out names
	sample tree --depth 1 "$SAMPLE"
	n=$(wc -l <names)
	{
		echo /
		head -n $((n - 1)) names | sed 's/^/├── /'
		tail -n 1 names | sed 's/^/└── /'
	} >expected.tree
	head -n $((n + 1)) out | cmp -s - expected.tree ||
		fail "tree --depth 1 does not match ls: $(cat out)"
	sample tree "$SAMPLE" row_groups/1
	expect_rc 0 "tree row_groups/1"
	grep -q '^├── meta.json$\|^└── meta.json$' out ||
		fail "tree row_groups/1 lacks meta.json: $(head -20 out)"
	grep -q '^[│ ]   [├└]── id$' out ||
		fail "tree row_groups/1 lacks chunks/id: $(head -40 out)"
	tail -n 1 out | grep -q '^[0-9]* director[a-z]*, [0-9]* files*$' ||
		fail "tree summary line: $(tail -n 1 out)"
}

test_sample_stat() {
	need_parquet
	sample stat "$SAMPLE"
	expect_rc 0 "stat /"
	grep -qx 'inode: 1' out || fail "root inode: $(cat out)"
	grep -qx 'kind: dir' out || fail "root kind: $(cat out)"
	sample stat "$SAMPLE" format
	expect_rc 0 "stat format"
	grep -qx 'kind: doc' out || fail "format kind: $(cat out)"
	size=$(sed -n 's/^size: \([0-9]*\) (exact)$/\1/p' out)
	sample cat "$SAMPLE" format
	[ "$size" = "$(wc -c <out)" ] ||
		fail "format: stat says $size bytes, cat gives $(wc -c <out)"
	sample stat "$SAMPLE" row_groups/0/chunks/id/raw
	expect_rc 0 "stat raw"
	grep -qx 'kind: range' out || fail "raw kind: $(cat out)"
	grep -qx 'offset: 4' out || fail "the first chunk starts at 4: $(cat out)"
}

test_sample_cat_format() {
	need_parquet
	sample cat "$SAMPLE" format
	expect_rc 0 "cat format"
	head -c 7 out | grep -qx 'parquet' || fail "format: $(cat out)"
	sample cat "$SAMPLE" errors
	expect_rc 0 "cat errors"
	expect_file out ''
	sample cat "$SAMPLE" summary
	expect_rc 0 "cat summary"
	grep -q 3000 out || fail "summary does not mention 3000 rows: $(cat out)"
	sample cat "$SAMPLE" metadata.json
	expect_rc 0 "cat metadata.json"
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' out ||
			fail "metadata.json does not parse"
	fi
	grep -q 'colfs.sample' out || fail "metadata.json lacks the key/value"
}

# every file node under DIR (recursively), as "kind path" lines
walk() {
	local dir=$1 kind size nm listing
	listing=$("$COLFS_TOOL" ls -l "$2" "$dir") || return 1
	[ -n "$listing" ] || return 0
	while read -r kind size nm; do
		if [ "$kind" = dir ]; then
			walk "${dir%/}/$nm" "$2" || return 1
		else
			echo "$kind ${dir%/}/$nm"
		fi
	done <<<"$listing"
}

test_sample_range_dd() {
	need_parquet
	for f in "$SAMPLE" "$SAMPLE_SNAPPY"; do
		walk / "$f" >nodes || fail "walking $f failed"
		grep -c '^range ' nodes >count
		[ "$(cat count)" -ge 10 ] || fail "only $(cat count) range nodes in $f"
		grep '^range ' nodes | while read -r kind p; do
			"$COLFS_TOOL" stat "$f" "$p" >st || fail "stat $p"
			off=$(sed -n 's/^offset: //p' st)
			len=$(sed -n 's/^length: //p' st)
			[ -n "$off" ] && [ -n "$len" ] || fail "stat $p: $(cat st)"
			"$COLFS_TOOL" cat "$f" "$p" >got || fail "cat $p"
			dd if="$f" of=want bs=65536 skip="$off" count="$len" \
				iflag=skip_bytes,count_bytes status=none ||
				fail "dd $p"
			cmp -s got want || fail "cat $p differs from dd at $off+$len"
		done || exit 1
	done
}

test_sample_sizes() {
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	for f in "$SAMPLE" "$SAMPLE_SNAPPY"; do
		walk / "$f" >nodes || fail "walking $f failed"
		[ "$(grep -c '^doc ' nodes)" -ge 50 ] ||
			fail "only $(grep -c '^doc ' nodes) documents in $f"
		# one stat of every document and range, then each one's bytes
		grep -E '^(doc|range) ' nodes | cut -d' ' -f2- >paths
		xargs -d '\n' "$COLFS_TOOL" stat "$f" <paths >st ||
			fail "stat of the documents and ranges of $f"
		python3 - "$COLFS_TOOL" "$f" paths st <<-'PY' || fail "sizes of $f"
			import json, subprocess, sys
			tool, f, paths, st = sys.argv[1:]
			paths = open(paths).read().split("\n")[:-1]
			# a block starts at its "path:" line (xargs may have made
			# several stat calls)
			blocks = ["path: " + b for b in
			          ("\n" + open(st).read()).split("\npath: ")[1:]]
			bad = 0
			if len(blocks) != len(paths):
			    sys.exit(f"{len(paths)} paths, {len(blocks)} stat blocks")
			for p, b in zip(paths, blocks):
			    kv = dict(l.split(": ", 1) for l in b.strip().split("\n"))
			    if kv.get("path") != p or not kv["size"].endswith(" (exact)"):
			        print(f"{p}: size not exact: {b}"); bad += 1; continue
			    size = int(kv["size"].split()[0])
			    got = subprocess.run([tool, "cat", f, p], capture_output=True)
			    if got.returncode != 0:
			        print(f"cat {p}: exit {got.returncode}"); bad += 1; continue
			    if len(got.stdout) != size:
			        print(f"{p}: stat says {size} bytes, cat gives {len(got.stdout)}")
			        bad += 1
			    elif p.endswith(".json"):
			        try:
			            json.loads(got.stdout)
			        except ValueError as e:
			            print(f"{p} does not parse as JSON: {e}"); bad += 1
			print(f"{len(paths)} documents and ranges of {f}: {bad} wrong")
			sys.exit(1 if bad else 0)
		PY
	done
}

# colfs-tool index: every stream's size, written to the size index that the
# next open (mount or tool) reads; a damaged one is ignored and replaced.
test_index() {
	need_parquet
	cp "$SAMPLE" s.parquet
	run "$COLFS_TOOL" index s.parquet
	expect_rc 0 "index"
	[ ! -s err ] || fail "index wrote to stderr (not a terminal): $(cat err)"
	grep -q "^previous index: none yet at $XDG_CACHE_HOME/colfs/s.parquet-[0-9a-f]*.sizes$" out ||
		fail "index: $(cat out)"
	grep -qE "^([0-9]+) of \1 views sized; index $XDG_CACHE_HOME/colfs/s.parquet-[0-9a-f]*.sizes: [0-9]+ sizes$" out ||
		fail "index: $(cat out)"
	idx=$(ls "$XDG_CACHE_HOME"/colfs/s.parquet-*.sizes)
	# Each size in the index is what cat gives.
	for p in /columns/id /columns/tags /rows.jsonl /rows.csv /row_groups/1/chunks/name/values; do
		size=$(awk -v p="$p" '$2 == p { print $1 }' "$idx")
		[ -n "$size" ] || fail "the index lacks $p"
		[ "$("$COLFS_TOOL" cat s.parquet "$p" | wc -c)" = "$size" ] ||
			fail "$p: the index says $size bytes, cat gives another count"
	done
	# Read back: with sizes=lazy only the index can know them.
	run "$COLFS_TOOL" -o sizes=lazy ls -l s.parquet columns
	expect_rc 0 "ls -l (lazy, indexed)"
	grep -q '?' out && fail "sizes not taken from the index: $(cat out)"
	run "$COLFS_TOOL" index s.parquet
	grep -q "^previous index: read $idx: [0-9]* sizes$" out || fail "index again: $(cat out)"
	# A flipped byte: ignored, and replaced by a good one.
	printf 'X' | dd of="$idx" bs=1 seek=60 conv=notrunc 2>/dev/null
	run "$COLFS_TOOL" -o sizes=lazy ls -l s.parquet columns
	grep -q ' ? id$' out || fail "a damaged index was trusted: $(cat out)"
	run "$COLFS_TOOL" index s.parquet
	expect_rc 0 "index over a damaged one"
	grep -q "^previous index: ignored $idx: " out || fail "damaged index: $(cat out)"
	run "$COLFS_TOOL" -o sizes=lazy ls -l s.parquet columns
	grep -q '?' out && fail "the index was not rewritten: $(cat out)"
	# -o size_index=PATH, and off.
	run "$COLFS_TOOL" -o size_index=mine.sizes index s.parquet
	expect_rc 0 "index to a path"
	[ -s mine.sizes ] || fail "no index at mine.sizes"
	run "$COLFS_TOOL" -o size_index=off index s.parquet
	expect_rc 2 "index with size_index=off"
	grep -q 'no size index' err || fail "size_index=off: $(cat err)"
	# A progress bar on a terminal.
	if command -v script >/dev/null; then
		script -qec "$COLFS_TOOL index s.parquet" /dev/null >tty 2>&1 ||
			fail "index on a terminal failed: $(cat tty)"
		grep -q 'views' tty || fail "no progress bar on a terminal: $(cat tty)"
	fi
}

# Every page of both samples: the CRC-32 in its header (as the tree shows
# it in header.json) is the CRC-32 of its stored bytes (pages/K/raw), and
# raw has compressed_page_size bytes.  Checks the writer's checksums and
# sizes against the reader's view of them.
test_sample_page_crc() {
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	for f in "$SAMPLE" "$SAMPLE_SNAPPY"; do
		walk / "$f" >nodes || fail "walking $f failed"
		grep -o '/row_groups/.*/pages/[0-9]*/header.json$' nodes |
			sed 's,/header.json$,,' >pages
		[ "$(wc -l <pages)" -ge 15 ] || fail "only $(wc -l <pages) pages in $f"
		python3 - "$COLFS_TOOL" "$f" pages <<-'PY' || fail "pages of $f"
			import json, subprocess, sys, zlib
			tool, f, pages = sys.argv[1:]
			bad = 0
			for p in open(pages).read().split():
			    cat = lambda what: subprocess.run([tool, "cat", f, f"{p}/{what}"],
			                                      capture_output=True, check=True).stdout
			    h = json.loads(cat("header.json"))
			    raw = cat("raw")
			    crc = zlib.crc32(raw)
			    if crc >= 2**31:
			        crc -= 2**32
			    if h.get('crc') != crc:
			        print(f"{p}: crc {h.get('crc')}, bytes give {crc}"); bad += 1
			    if h['compressed_page_size'] != len(raw):
			        print(f"{p}: {len(raw)} bytes, header says "
			              f"{h['compressed_page_size']}"); bad += 1
			sys.exit(1 if bad else 0)
			PY
	done
}

test_sample_missing_path() {
	need_parquet
	for cmd in ls tree stat cat; do
		sample "$cmd" "$SAMPLE" no/such/path
		expect_rc 1 "$cmd no/such/path"
		expect_file err "colfs-tool: $SAMPLE: /no/such/path: no such file or directory
"
	done
	sample cat "$SAMPLE" row_groups/3/meta.json
	expect_rc 1 "cat of a row group past the last"
	sample cat "$SAMPLE" row_groups
	expect_rc 1 "cat of a directory"
	grep -q 'is a directory' err || fail "cat dir: $(cat err)"
}

# --- check ---------------------------------------------------------------------------

# check FILE [--json]: text to out/err, status in $rc
check() {
	run "$COLFS_TOOL" check "$@"
}

# the problem lines of the text output ("PATH: offset N (0xN): KIND: MSG")
problem_lines() {
	LC_ALL=C grep -aE '^/.*: offset ([0-9]+ \(0x[0-9a-f]+\)|unknown): (corrupt|truncated|out of bounds|overflow|unsupported|out of memory|I/O error): ' out
}

# check_json FILE: --json parses, its problem count equals the number of
# problem lines of the text output, every problem has path, offset, kind
# and message, and healthy/exit status agree; its damaged parts are as
# many as the text's "hides" lines, and the totals are their sums.  Leaves the text in out.
# With a second argument (the exit status of a `check --json FILE` whose
# output is already in j.json), that run is not made again.
check_json() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	if [ $# -ge 2 ]; then
		jrc=$2
	else
		check --json "$1"
		jrc=$rc
		cp out j.json
	fi
	check "$1"
	[ "$rc" = "$jrc" ] || fail "$1: --json exits $jrc, text exits $rc"
	np=$(problem_lines | wc -l)
	nh=$(LC_ALL=C grep -caE '^/.*: offset ([0-9]+ \(0x[0-9a-f]+\)|unknown): hides ([0-9]+ rows?|rows, how many is unknown)$' out)
	python3 - j.json "$np" "$rc" "$nh" <<-'PY' || fail "$1: --json output is wrong"
	import json, sys
	j = json.load(open(sys.argv[1], encoding='utf-8'))
	n, rc = int(sys.argv[2]), int(sys.argv[3])
	# the damaged parts: one text line each, the totals their sums
	d = j['damaged_parts']
	assert len(d) == int(sys.argv[4]), (len(d), sys.argv[4])
	for p in d:
	    assert p['path'].startswith('/') and (p['rows'] is None or
	        (isinstance(p['rows'], int) and p['rows'] >= 0)), p
	assert j['hidden_rows'] == sum(p['rows'] or 0 for p in d), j['hidden_rows']
	assert j['hidden_rows_unknown'] == sum(p['rows'] is None for p in d)
	assert not (j['healthy'] and d), d
	for k in ('file', 'format', 'healthy', 'nodes', 'unreadable', 'problems'):
	    assert k in j, f"no {k}"
	assert len(j['problems']) == n, f"{len(j['problems'])} problems, text has {n}"
	for p in j['problems']:
	    assert set(p) >= {'path', 'offset', 'kind', 'message'}, p
	    assert (p['offset'] is None or isinstance(p['offset'], int)) and \
	        p['path'].startswith('/'), p
	assert j['healthy'] == (rc == 0), (j['healthy'], rc)
	assert j['nodes'] > 0
	PY
}

# the summary line: the last line of the text output
summary() {
	tail -n 1 out
}

test_check_sample() {
	need_parquet
	for f in "$SAMPLE" "$SAMPLE_SNAPPY"; do
		check "$f"
		expect_rc 0 "check $f"
		[ "$(wc -l <out)" -eq 1 ] || fail "more than a summary: $(cat out)"
		summary | grep -qE "^$f: healthy, [0-9]+ nodes read\$" ||
			fail "summary: $(summary)"
		[ -s err ] && fail "check wrote to stderr (not a terminal): $(cat err)"
		check_json "$f"
		grep -q '"healthy": true' j.json || fail "--json: $(cat j.json)"
		grep -q '"format": "parquet"' j.json || fail "--json: $(cat j.json)"
	done
	# every node the walk counts is one ls would show: tree's count + root
	sample tree "$SAMPLE"
	t=$(tail -n 1 out | awk '{print $1 + $3 + 1}')
	check "$SAMPLE"
	summary | grep -q " $t nodes read\$" ||
		fail "tree shows $t nodes, check: $(summary)"
}

# The page whose CRC --bad-crc damages is reported with the offset of its
# header; the pages and columns that need it are unreadable; exit 1.
test_check_bad_crc() {
	need_parquet
	"$COLFS_MKSAMPLE" bad.parquet --bad-crc || fail "mksample --bad-crc"
	check bad.parquet
	expect_rc 1 "check of a page with a bad CRC"
	problem_lines >problems
	[ "$(wc -l <problems)" -eq 1 ] || fail "problems: $(cat out)"
	# pages/0 is the first data page (a dictionary page has its own node)
	p=/row_groups/0/chunks/price/pages/0
	# the offset is that of the page's stored bytes (its raw node)
	off=$("$COLFS_TOOL" stat bad.parquet "$p/raw" | sed -n 's/^offset: //p')
	[ -n "$off" ] || fail "no offset for $p/raw"
	grep -q "^$p: offset $off (0x$(printf %x "$off")): corrupt: .*CRC" problems ||
		fail "expected $p at offset $off: $(cat problems)"
	summary | grep -qE '^bad.parquet: 1 problem in [0-9]+ nodes; [1-9][0-9]* nodes? unreadable$' ||
		fail "summary: $(summary)"
	check_json bad.parquet
	# checksums=ignore serves the page, but still reports it
	run "$COLFS_TOOL" -o checksums=ignore check bad.parquet
	expect_rc 1 "checksums=ignore"
	summary | grep -q '1 problem in [0-9]* nodes; 0 nodes unreadable$' ||
		fail "checksums=ignore: $(summary)"
}

# cat of a view that needs the broken page (columns/price) names that page
# and its offset, not only "corrupt"; the chunk's and the row group's own
# `errors` files list the problem once it is found, the healthy chunk's
# `errors` stays empty.
test_cat_names_cause() {
	need_parquet
	"$COLFS_MKSAMPLE" bad.parquet --bad-crc || fail "mksample --bad-crc"
	p=/row_groups/0/chunks/price/pages/0
	off=$("$COLFS_TOOL" stat bad.parquet "$p/raw" | sed -n 's/^offset: //p')
	[ -n "$off" ] || fail "no offset for $p/raw"
	run "$COLFS_TOOL" cat bad.parquet columns/price
	expect_rc 1 "cat of a column with a bad page"
	grep -q "/columns/price: corrupt\$" err || fail "first line: $(cat err)"
	grep -q "because $p: offset $off (0x$(printf %x "$off")): corrupt: page CRC mismatch" err ||
		fail "cause not named: $(cat err)"
	# the same process reads the column, then the subtree errors
	run "$COLFS_TOOL" cat bad.parquet columns/price \
		row_groups/0/chunks/price/errors row_groups/0/errors \
		row_groups/0/chunks/id/errors $p/errors
	grep -c "^$p: offset $off " out | grep -qx 3 ||
		fail "chunk, row group and page errors: $(cat out)"
	[ "$(wc -l <out)" -eq 3 ] || fail "healthy chunk errors not empty: $(cat out)"
}

# verify: every chunk of the healthy samples agrees with its metadata; in
# a --bad-meta sample each price chunk shows exactly the four lies
# colfs-mksample told (statistics null_count and max_value, column index
# null_counts and offset index first_row_index of page 1), reported in
# errors with the chunk's path, and nothing else.
test_verify_chunks() {
	need_parquet
	for f in "$SAMPLE" "$SAMPLE_SNAPPY"; do
		for g in $("$COLFS_TOOL" ls "$f" row_groups); do
			for c in $("$COLFS_TOOL" ls "$f" row_groups/$g/chunks); do
				run "$COLFS_TOOL" cat "$f" row_groups/$g/chunks/$c/verify
				expect_rc 0 "verify $g/$c"
				grep -qx '0 mismatches' out ||
					fail "$f $g/$c: $(cat out)"
				grep -q '^statistics: agree' out ||
					fail "$f $g/$c: statistics not checked: $(cat out)"
			done
		done
	done
	"$COLFS_MKSAMPLE" bm.parquet --bad-meta || fail "mksample --bad-meta"
	for g in 0 1 2; do
		run "$COLFS_TOOL" cat bm.parquet row_groups/$g/chunks/price/verify \
			row_groups/$g/chunks/id/verify row_groups/$g/chunks/price/errors
		expect_rc 0 "verify of --bad-meta"
		for m in 'MISMATCH: offset index page 1: first_row_index 401, the page starts at row 400' \
			'MISMATCH: column index page 1: null_counts [0-9]*, the page has [0-9]* nulls' \
			'MISMATCH: statistics null_count [0-9]*, the data has [0-9]* nulls' \
			'MISMATCH: statistics max_value is below the maximum of the data ([0-9.]*, decoded [0-9.]*)'; do
			grep -qx "$m" out || fail "group $g: no '$m': $(cat out)"
		done
		[ "$(grep -c '^MISMATCH' out)" -eq 4 ] || fail "group $g: $(cat out)"
		grep -qx '4 mismatches' out || fail "group $g: count: $(cat out)"
		grep -qx '0 mismatches' out || fail "group $g: id chunk: $(cat out)"
		[ "$(grep -c "^/row_groups/$g/chunks/price: offset [0-9]* (0x[0-9a-f]*): corrupt: metadata disagrees with the data: " out)" -eq 4 ] ||
			fail "group $g: errors: $(cat out)"
	done
}

# A copy of the sample cut short: the footer is gone, check says so.
test_check_truncated() {
	need_parquet
	size=$(stat -c %s "$SAMPLE")
	for cut in 5000 $((size / 2)) $((size - 1)) 12; do
		head -c "$cut" "$SAMPLE" >cut.parquet
		check cut.parquet
		[ "$rc" = 2 ] && continue   # too short to be told apart
		expect_rc 1 "check of the sample cut at $cut"
		problem_lines | grep -q . || fail "cut at $cut: no problem: $(cat out)"
		summary | grep -q '^cut.parquet: [1-9][0-9]* problems\? in' ||
			fail "cut at $cut: $(summary)"
		check_json cut.parquet
	done
}

test_check_refuse() {
	printf 'hello, world\n' >text.txt
	: >empty.parquet
	for f in text.txt empty.parquet missing.parquet; do
		for j in "" --json; do
			check $j "$f"
			expect_rc 2 "check $j $f"
			# --json answers with an error object (check-json-unreadable)
			[ -z "$j" ] && [ -s out ] && fail "check $f wrote to stdout"
			grep -q "^colfs-tool: $f: ." err || fail "$f: $(cat err)"
		done
	done
	check
	expect_rc 2 "check without a file"
	check a b
	expect_rc 2 "check with two files"
	run "$COLFS_TOOL" ls --json text.txt
	expect_rc 2 "--json outside check"
	grep -q 'option of check' err || fail "ls --json: $(cat err)"
}

# check --json prints one JSON document whatever happens: for a file that
# cannot be read (missing, empty, not a format, a directory, unreadable)
# {"file": ..., "readable": false, "error": "<the reason on stderr>"},
# exit 2; a readable file's document says "readable": true.
test_check_json_unreadable() {
	command -v python3 >/dev/null || skip "python3 is not installed"
	printf 'hello, world\n' >text.txt
	: >empty.parquet
	mkdir dir.parquet
	for f in missing.parquet empty.parquet text.txt dir.parquet \
		'quote"and\back'; do
		check --json "$f"
		expect_rc 2 "check --json $f"
		why=$(sed -n 's/^colfs-tool: //p' err)
		[ -n "$why" ] || fail "$f: no reason on stderr: $(cat err)"
		python3 - out "$f" "$why" <<-'PY' || fail "$f: not the error object: $(cat out)"
		import json, sys
		text = open(sys.argv[1]).read()
		doc = json.loads(text)  # exactly one document, nothing else
		assert text.endswith("}\n") and text.count("\n") == 1, text
		assert doc == {"file": sys.argv[2], "readable": False,
		               "error": sys.argv[3]}, doc
		PY
	done
	need_parquet
	check --json "$SAMPLE"
	expect_rc 0 "check --json of the sample"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["readable"] is True and d["healthy"] is True, d' out ||
		fail "sample: $(head -c 300 out)"
}

# check reads a derived view (rows.*, arrays/, the root's columns/, a
# chunk's values and levels, a data page's decompressed) only where the
# part it comes from turned out damaged: on healthy and damaged files of
# every format it finds exactly what --all (every view read) finds, the
# same problems, the same unreadable nodes, the same damaged parts and
# rows hidden, the same node count; on a
# healthy file it leaves views unread, with --all none.
test_check_derived() {
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	"$COLFS_MKSAMPLE" crc.parquet --bad-crc || fail "mksample --bad-crc"
	"$COLFS_MKSAMPLE" hdr.parquet --codec snappy --data-page-v2 \
		--rows 1234 --row-groups 2 || fail "mksample"
	c=row_groups/0/chunks/price/pages
	end0=$(($(offset_of hdr.parquet $c/0/raw) + $(length_of hdr.parquet $c/0/raw)))
	damage hdr.parquet $((end0 + 3)) 8
	files="$SAMPLE crc.parquet hdr.parquet"
	if [ -n "${ORC_GEN:-}" ]; then
		"$ORC_GEN" g.orc 3000 1000 || fail "orc_gen"
		cp g.orc bad.orc
		s=stripes/1/streams/0-1-DATA/raw
		damage bad.orc $(($(offset_of bad.orc $s) + 600)) 16
		files="$files g.orc bad.orc"
	fi
	if [ -n "${CFILE_WRITER:-}" ]; then
		"$CFILE_WRITER" --type INT32 --encoding PLAIN --count 3000 \
			--block-rows 1000 c.cfile c.txt || fail "cfile-writer"
		cp c.cfile bad.cfile
		damage bad.cfile $(($(offset_of bad.cfile blocks/1/raw) + 900)) 4
		files="$files c.cfile bad.cfile"
	fi
	for f in $files; do
		run "$COLFS_TOOL" check --json "$f"
		cp out some.json
		r1=$rc
		run "$COLFS_TOOL" check --json --all "$f"
		[ "$rc" = "$r1" ] || fail "$f: exit $r1, with --all $rc"
		python3 - some.json out "$f" <<-'PY' || fail "$f: check and check --all disagree"
		import json, sys
		a, b = (json.load(open(p)) for p in sys.argv[1:3])
		key = lambda p: (p['path'], str(p['offset']), p['kind'], p['message'])
		assert sorted(map(key, a['problems'])) == sorted(map(key, b['problems'])), \
		    (a['problems'], b['problems'])
		for k in ('nodes', 'unreadable', 'healthy', 'problem_count', 'complete'):
		    assert a[k] == b[k], (k, a[k], b[k])
		un = lambda d: sorted(x['path'] for x in d['unreadable_nodes'])
		assert un(a) == un(b), (un(a), un(b))
		hid = lambda d: sorted((x['path'], x['rows']) for x in d['damaged_parts'])
		assert hid(a) == hid(b), (hid(a), hid(b))
		assert (a['hidden_rows'], a['hidden_rows_unknown']) == \
		    (b['hidden_rows'], b['hidden_rows_unknown'])
		assert not (a['healthy'] and a['damaged_parts']), a
		assert b['derived_not_read'] == 0, b
		if a['healthy'] and not sys.argv[3].endswith('.cfile'):
		    assert a['derived_not_read'] > 0, a
		PY
	done
}

# The progress follows the stored bytes decoded, not the count of
# entries: check --progress on a pipe writes "PCT% PATH" before each file
# it reads.  The documents at the root (metadata, nothing to decode) move
# it by nothing; the first chunk's bytes come at a few percent (the old
# bar, a share per root entry, stood at 70% there); it never goes back;
# each row group (a quarter of the stored bytes) moves it by 15 to 35%;
# it ends at 100%.
test_check_progress_bytes() {
	need_parquet
	"$COLFS_MKSAMPLE" p.parquet --rows 40000 --row-groups 4 ||
		fail "mksample"
	run "$COLFS_TOOL" check --progress p.parquet
	expect_rc 0 "check --progress"
	grep -q 'healthy' out || fail "check: $(cat out)"
	python3 - err <<-'PY' || fail "progress: $(head -c 2000 err)"
	import re, sys
	lines = open(sys.argv[1]).read().splitlines()
	assert lines[-1] == "100.0% done", lines[-1]
	pct = []
	for l in lines[:-1]:
	    m = re.fullmatch(r" *([0-9.]+)% (/.*)", l)
	    assert m, l
	    pct.append((float(m.group(1)), m.group(2)))
	assert all(a[0] <= b[0] for a, b in zip(pct, pct[1:])), "goes back"
	first = {}
	for p, path in pct:
	    n = 3 if path.startswith("/row_groups/") else 2
	    first.setdefault("/".join(path.split("/")[:n]), p)
	assert first["/README"] == 0.0, first
	assert first["/row_groups/0"] < 5, first
	for g in range(4):
	    end = first.get("/row_groups/%d" % (g + 1), first["/columns"])
	    step = end - first["/row_groups/%d" % g]
	    assert 15 <= step <= 35, (g, step, first)
	PY
	# --progress belongs to check
	run "$COLFS_TOOL" ls --progress p.parquet
	expect_rc 2 "ls --progress"
}

# --- mounts ------------------------------------------------------------------

# mount_file FILE: mount FILE on $work/mnt with colfs -f in the background
# (skip without FUSE); the EXIT trap unmounts it and stops the daemon.
MNT_PID=
mount_file() {
	[ -n "${COLFS:-}" ] || skip "COLFS is not set"
	[ -c /dev/fuse ] && command -v fusermount3 >/dev/null ||
		skip "no FUSE (/dev/fuse, fusermount3)"
	mnt=$work/mnt
	mkdir -p "$mnt"
	"$COLFS" -f "$1" "$mnt" 2>"$work/daemon.err" &
	MNT_PID=$!
	trap 'umount_file; rm -rf "$work"' EXIT
	for _ in $(seq 100); do
		grep -qs " $mnt fuse" /proc/self/mounts && return 0
		sleep 0.1
	done
	fail "the mount of $1 did not appear: $(cat "$work/daemon.err")"
}

umount_file() {
	if grep -qs " $mnt fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u "$mnt" 2>/dev/null ||
			timeout 10 fusermount3 -u -z "$mnt" 2>/dev/null
	fi
	if [ -n "$MNT_PID" ]; then
		for _ in $(seq 50); do
			kill -0 "$MNT_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$MNT_PID" 2>/dev/null
		wait "$MNT_PID" 2>/dev/null
		MNT_PID=
	fi
}

# --- problems land where they belong -----------------------------------------

# expect_filed FILE VIEW PART DIR...: on a fresh tree, read only VIEW
# (through colfs-tool, then through a fresh mount), then the `errors` of
# each DIR and of the root: the problem VIEW met is filed under PART's
# path (the broken part), and shows in the errors of every DIR given (the
# part's own and the directories above it) and in the root errors.
expect_filed() {
	local f=$1 view=$2 part=$3
	shift 3
	local cats=()
	for p in "$@"; do cats+=("${p#/}/errors"); done
	run timeout 60 "$COLFS_TOOL" cat "$f" "$view" "${cats[@]}" errors
	[ "$rc" -eq 1 ] || fail "$f: cat $view exits $rc, expected 1"
	grep -q "^colfs-tool: $f:   because $part: offset " err ||
		fail "$f: $view: the cause is not filed under $part: $(cat err)"
	line=$(grep -m1 "^$part: offset [0-9]* (0x[0-9a-f]*): " out) ||
		fail "$f: no problem under $part in the errors: $(cat out)"
	# once in each DIR's errors and once in the root's
	n=$(grep -cxF -- "$line" out)
	[ "$n" -eq $(($# + 1)) ] ||
		fail "$f: '$line' shows $n times, expected $(($# + 1)): $(cat out)"
	mount_file "$f"
	timeout 60 cat "$mnt/$view" >/dev/null 2>&1 &&
		fail "$f: the mount serves $view whole"
	for p in "$@"; do
		timeout 10 cat "$mnt$p/errors" >errs ||
			fail "$f: the mount cannot read $p/errors"
		grep -qxF -- "$line" errs ||
			fail "$f: the mount's $p/errors lacks '$line': $(cat errs)"
	done
	timeout 10 cat "$mnt/errors" >errs
	grep -qxF -- "$line" errs ||
		fail "$f: the mount's root errors lacks '$line': $(cat errs)"
	umount_file
}

# offset_of FILE PATH: where a range node's bytes are in FILE
offset_of() {
	"$COLFS_TOOL" stat "$1" "$2" | sed -n 's/^offset: //p'
}
length_of() {
	"$COLFS_TOOL" stat "$1" "$2" | sed -n 's/^length: //p'
}

# damage FILE OFFSET COUNT: COUNT bytes 0x7f at OFFSET
damage() {
	head -c "$3" /dev/zero | tr '\0' '\177' |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# A problem met while reading only columns/ (CFile: values) is filed
# under the part that is broken, whether or not that part's directory
# was listed: the page (a bad CRC), the chunk (a page header destroyed:
# the walk stops), the ORC stream (one that ends early) and stripe, the
# CFile block.
test_errors_filed_under_part() {
	need_parquet
	"$COLFS_MKSAMPLE" crc.parquet --bad-crc || fail "mksample --bad-crc"
	p=/row_groups/0/chunks/price/pages/0
	expect_filed crc.parquet columns/price $p \
		$p /row_groups/0/chunks/price /row_groups/0
	# page 1's header lies between page 0's data and page 1's data
	"$COLFS_MKSAMPLE" hdr.parquet --codec snappy --data-page-v2 \
		--rows 1234 --row-groups 2 || fail "mksample"
	c=row_groups/0/chunks/price/pages
	end0=$(($(offset_of hdr.parquet $c/0/raw) + $(length_of hdr.parquet $c/0/raw)))
	start1=$(offset_of hdr.parquet $c/1/raw)
	damage hdr.parquet $(((end0 + start1) / 2)) 8
	# the walk stops: filed under the chunk's pages/ (no errors of its
	# own: the chunk's shows it)
	expect_filed hdr.parquet columns/price \
		/row_groups/0/chunks/price/pages \
		/row_groups/0/chunks/price /row_groups/0
	# ORC: the id column's data stream of stripe 1 runs out early
	[ -n "${ORC_GEN:-}" ] || skip "ORC_GEN is not set"
	"$ORC_GEN" g.orc 3000 1000 || fail "orc_gen"
	s=stripes/1/streams/0-1-DATA/raw
	damage g.orc $(($(offset_of g.orc $s) + 600)) 16
	p=/stripes/1/streams/0-1-DATA
	expect_filed g.orc columns/id $p $p /stripes/1
	# CFile: block 1's checksum fails
	[ -n "${CFILE_WRITER:-}" ] || skip "CFILE_WRITER is not set"
	"$CFILE_WRITER" --type INT32 --encoding PLAIN --count 3000 \
		--block-rows 1000 c.cfile c.txt || fail "cfile-writer"
	damage c.cfile $(($(offset_of c.cfile blocks/1/raw) + 900)) 4
	expect_filed c.cfile values /blocks/1 /blocks/1
}

# hidden_is FILE 'PATH ROWS|null ...' TOTAL UNKNOWN: check --json lists
# exactly those damaged parts with those rows (null: not known), and
# those totals; the text output has a line per part and the total line.
hidden_is() {
	run "$COLFS_TOOL" check --json "$1"
	expect_rc 1 "check --json $1"
	python3 - out "$2" "$3" "$4" <<-'PY' || fail "$1: damaged parts: $(cat out)"
	import json, sys
	d = json.load(open(sys.argv[1]))
	got = sorted((p['path'], p['rows']) for p in d['damaged_parts'])
	want = sorted((p, None if r == 'null' else int(r)) for p, r in
	              (x.split() for x in sys.argv[2].split(',')))
	assert got == want, (got, want)
	assert all(isinstance(p['offset'], int) for p in d['damaged_parts']), d
	assert d['hidden_rows'] == int(sys.argv[3]), d['hidden_rows']
	assert d['hidden_rows_unknown'] == int(sys.argv[4]), d['hidden_rows_unknown']
	PY
	check "$1"
	echo "$2" | tr ',' '\n' | while read -r p r; do
		if [ "$r" = null ]; then
			grep -qE "^$p: offset [0-9]+ \(0x[0-9a-f]+\): hides rows, how many is unknown\$" out
		else
			grep -qE "^$p: offset [0-9]+ \(0x[0-9a-f]+\): hides $r rows?\$" out
		fi || { echo "no line for $p"; exit 1; }
	done || fail "$1: text output: $(cat out)"
	n=$(echo "$2" | tr ',' '\n' | grep -vc ' null$')
	line="$1: $3 rows\\? hidden by $n damaged parts\\?"
	[ "$4" -gt 0 ] && line="$line; $4 more parts\\? hides\\? rows, how many is unknown"
	grep -qx "$line" out || fail "$1: total line: $(cat out)"
}

# on_damage_nulls FILE VIEW HIDDEN: VIEW of the healthy FILE holds no
# NULL; under -o on_damage=null the damaged FILE.bad's VIEW has as many
# lines, exactly HIDDEN of them NULL (the rows check says the damage
# hides), and every other line equal to the healthy one.
on_damage_nulls() {
	"$COLFS_TOOL" cat "$1" "$2" >good.txt || fail "cat $1 $2"
	"$COLFS_TOOL" -o on_damage=null cat "$1.bad" "$2" >bad.txt ||
		fail "cat -o on_damage=null $1.bad $2"
	python3 - good.txt bad.txt "$3" <<-'PY' || fail "$1.bad: $2 under on_damage=null"
	import sys
	g, b = (open(p, 'rb').read().split(b'\n') for p in sys.argv[1:3])
	assert len(g) == len(b), (len(g), len(b))
	assert b'\\N' not in g, "the healthy view has NULLs"
	nulls = sum(y == b'\\N' for y in b)
	assert nulls == int(sys.argv[3]), (nulls, int(sys.argv[3]))
	assert all(x == y for x, y in zip(g, b) if y != b'\\N')
	PY
}

# check reports the rows each damaged part hides: a page (its header's
# num_values, or a v2 page's num_rows for a list), a chunk whose page
# walk stops (the row group's rows less those of the pages found), a v1
# page of a list whose bytes fail their CRC (from the offset index; not
# known without one: null), an ORC
# stream and a stripe whose footer is lost, a CFile block; each count
# equals the NULLs -o on_damage=null puts in its column (one file of
# each format), and check --all finds the same (check-derived).
test_check_hidden() {
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	c=row_groups/0/chunks
	# v1 pages of 400 rows: page 1 of id (rows 400-799) fails its CRC
	"$COLFS_MKSAMPLE" v1.parquet || fail "mksample"
	cp v1.parquet v1.parquet.bad
	damage v1.parquet.bad $(($(offset_of v1.parquet $c/id/pages/1/raw) + 40)) 8
	hidden_is v1.parquet.bad "/$c/id/pages/1 400" 400 0
	on_damage_nulls v1.parquet columns/id 400
	# the list `tags` in v1 pages: the page's rows are in its levels,
	# which its failed CRC keeps from being read; the chunk's offset
	# index tells them (400), and on_damage=null reads them NULL; without
	# an offset index they are not known
	cp v1.parquet t1.parquet
	damage t1.parquet $(($(offset_of t1.parquet $c/tags.list.element/pages/1/raw) + 40)) 8
	hidden_is t1.parquet "/$c/tags.list.element/pages/1 400" 400 0
	"$COLFS_TOOL" cat v1.parquet columns/tags >good.txt || fail "cat columns/tags"
	"$COLFS_TOOL" -o on_damage=null cat t1.parquet columns/tags >bad.txt ||
		fail "cat -o on_damage=null t1.parquet columns/tags"
	"$COLFS_TOOL" -o on_damage=skip cat t1.parquet columns/tags >skip.txt ||
		fail "cat -o on_damage=skip t1.parquet columns/tags"
	python3 - good.txt bad.txt skip.txt <<-'PY' || fail "t1.parquet: columns/tags under on_damage"
	import sys
	g, b, s = (open(p, 'rb').read().split(b'\n') for p in sys.argv[1:4])
	assert len(g) == len(b) == 3001, (len(g), len(b))
	assert all(y == b'\\N' for y in b[400:800]), b[400:800]
	assert g[:400] == b[:400] and g[800:] == b[800:]
	assert sum(x != b'\\N' for x in g[400:800]) > 300
	assert s == g[:400] + g[800:], len(s)
	PY
	"$COLFS_MKSAMPLE" n1.parquet --no-page-index || fail "mksample --no-page-index"
	damage n1.parquet $(($(offset_of n1.parquet $c/tags.list.element/pages/1/raw) + 40)) 8
	hidden_is n1.parquet "/$c/tags.list.element/pages/1 null" 0 1
	# the same in v2 pages: the header's num_rows; and two pages at once
	"$COLFS_MKSAMPLE" v2.parquet --data-page-v2 || fail "mksample"
	damage v2.parquet $(($(offset_of v2.parquet $c/tags.list.element/pages/1/raw) + 40)) 8
	damage v2.parquet $(($(offset_of v2.parquet row_groups/2/chunks/price/pages/2/raw) + 40)) 8
	hidden_is v2.parquet "/$c/tags.list.element/pages/1 400,/row_groups/2/chunks/price/pages/2 200" 600 0
	# a field of several leaves (the struct pt {x, y}): page 1 of pt.y
	# hides its 400 rows, which on_damage=null reads as NULL in
	# columns/pt (the whole struct)
	"$COLFS_MKSAMPLE" s.parquet --struct || fail "mksample --struct"
	cp s.parquet s.parquet.bad
	damage s.parquet.bad $(($(offset_of s.parquet $c/pt.y/pages/1/raw) + 40)) 8
	hidden_is s.parquet.bad "/$c/pt.y/pages/1 400" 400 0
	"$COLFS_TOOL" cat s.parquet columns/pt >good.txt || fail "cat columns/pt"
	"$COLFS_TOOL" -o on_damage=null cat s.parquet.bad columns/pt >bad.txt ||
		fail "cat -o on_damage=null s.parquet.bad columns/pt"
	python3 - good.txt bad.txt <<-'PY' || fail "s.parquet.bad: columns/pt under on_damage=null"
	import sys
	g, b = (open(p, 'rb').read().split(b'\n') for p in sys.argv[1:3])
	assert len(g) == len(b) == 3001, (len(g), len(b))
	assert all(y == b'\\N' for y in b[400:800]), b[400:800]
	assert g[:400] == b[:400] and g[800:] == b[800:]
	assert sum(x != b'\\N' for x in g[400:800]) > 300
	PY
	# 617 rows in row group 0: the walk stops after page 0 (400 rows)
	"$COLFS_MKSAMPLE" hdr.parquet --codec snappy --data-page-v2 \
		--rows 1234 --row-groups 2 || fail "mksample"
	end0=$(($(offset_of hdr.parquet $c/price/pages/0/raw) + $(length_of hdr.parquet $c/price/pages/0/raw)))
	damage hdr.parquet $((end0 + 3)) 8
	hidden_is hdr.parquet "/$c/price/pages 217" 217 0
	# ORC: stripe 1 (rows 1000-1999) of id: its data stream runs out
	[ -n "${ORC_GEN:-}" ] || skip "ORC_GEN is not set"
	"$ORC_GEN" g.orc 3000 1000 >/dev/null || fail "orc_gen"
	cp g.orc g.orc.bad
	s=stripes/1/streams/0-1-DATA/raw
	damage g.orc.bad $(($(offset_of g.orc $s) + 600)) 16
	hidden_is g.orc.bad "/stripes/1/streams/0-1-DATA 1000" 1000 0
	on_damage_nulls g.orc columns/id 1000
	# a stripe whose footer is lost hides its rows (once, not per field)
	cp g.orc f.orc
	s=$("$COLFS_TOOL" cat g.orc stripes/2/info.json | python3 -c '
import json, sys; i = json.load(sys.stdin)
print(i["offset"] + i["indexLength"] + i["dataLength"])') || fail "stripe 2's footer"
	damage f.orc "$s" 12
	hidden_is f.orc "/stripes/2 1000" 1000 0
	# CFile: block 1 (rows 700-1399) fails its CRC
	[ -n "${CFILE_WRITER:-}" ] || skip "CFILE_WRITER is not set"
	"$CFILE_WRITER" --type INT64 --count 3000 --block-rows 700 \
		c.cfile c.txt >/dev/null || fail "cfile-writer"
	cp c.cfile c.cfile.bad
	damage c.cfile.bad $(($(offset_of c.cfile blocks/1/raw) + 300)) 4
	hidden_is c.cfile.bad "/blocks/1 700" 700 0
	on_damage_nulls c.cfile values 700
	# a healthy file lists none
	run "$COLFS_TOOL" check --json g.orc
	expect_rc 0 "check --json g.orc"
	grep -q '"damaged_parts": \[\], "hidden_rows": 0, "hidden_rows_unknown": 0' out ||
		fail "healthy: $(cat out)"
}

# --- the in-mount README -----------------------------------------------------

# readme_check FILE [MOUNT]: tests/tool/readme-check.py (the README's
# entries against colfs-tool tree, and the mount's listing with MOUNT)
readme_check() {
	python3 "$TESTS_TOOL_DIR/readme-check.py" "$COLFS_TOOL" "$@" ||
		fail "$1: the README and the tree disagree"
}

# Every format's README lists exactly the entries its file has, value
# views marked [decodes]: the samples, generated ORC and CFile files of
# several shapes, files whose footer is lost (salvage), corpus files when
# present; for one file of each format also through a mount.
test_readme_entries() {
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	[ -n "${ORC_GEN:-}" ] && [ -n "${CFILE_WRITER:-}" ] ||
		skip "ORC_GEN or CFILE_WRITER is not set"
	"$ORC_GEN" g.orc 3000 1000 || fail "orc_gen"
	"$CFILE_WRITER" --type STRING --encoding DICT --nullable --count 5000 \
		--block-rows 50 --index-block-size 128 dict.cfile x.txt &&
	"$CFILE_WRITER" --type STRING --encoding PREFIX --validx \
		--count 3000 --block-rows 100 prefix.cfile x.txt &&
	"$CFILE_WRITER" --type INT64 --encoding BIT_SHUFFLE --compression LZ4 \
		--delta --count 500 delta.cfile x.txt &&
	"$CFILE_WRITER" --type BINARY --encoding PLAIN --bloom --count 3000 \
		--block-rows 500 bloom.cfile x.txt || fail "cfile-writer"
	head -c 20000 "$SAMPLE_SNAPPY" >cut.parquet
	head -c 30000 g.orc >cut.orc
	head -c 9000 dict.cfile >cut.cfile
	for f in "$SAMPLE" "$SAMPLE_SNAPPY" g.orc dict.cfile prefix.cfile \
		delta.cfile bloom.cfile cut.parquet cut.orc cut.cfile; do
		readme_check "$f"
	done
	# the value views are listed: the Parquet README used to omit them
	"$COLFS_TOOL" cat "$SAMPLE" README >readme
	for v in 'columns/' 'rows.jsonl' 'values' 'levels' 'dictionary' \
		'verify'; do
		grep -qE "^ *${v%/}/? " readme ||
			fail "the sample's README lacks $v"
	done
	if [ -d "$CORPUS_DIR" ]; then
		for f in parquet/good/alltypes_plain.parquet \
			parquet/good/nested_lists.snappy.parquet \
			parquet/good/datapage_v2_empty_datapage.snappy.parquet \
			orc/good/TestOrcFile.testSeek.orc \
			orc/good/demo-12-zlib.orc; do
			[ -f "$CORPUS_DIR/$f" ] && readme_check "$CORPUS_DIR/$f"
		done
	else
		echo "no corpus at $CORPUS_DIR: corpus files not checked" >&2
	fi
	for f in "$SAMPLE" g.orc dict.cfile; do
		mount_file "$f"
		readme_check "$f" "$mnt"
		umount_file
	done
}

# --- layout -------------------------------------------------------------------

# Every layout follows the one grammar of docs/tree.md, "layout"
# (tests/tool/layout-check.py): the samples, generated ORC files and CFile
# fixtures of every shape (multi-level and value indexes, DICT, DeltaFile,
# BloomFile, v1, damaged, cut: salvage), and every corpus Parquet and ORC
# file, good and bad, when the corpus is present.  The checker must catch
# a hand-broken layout.
test_layout_grammar() {
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	[ -n "${ORC_GEN:-}" ] && [ -n "${CFILE_WRITER:-}" ] ||
		skip "ORC_GEN or CFILE_WRITER is not set"
	lc=$TESTS_TOOL_DIR/layout-check.py
	"$ORC_GEN" g.orc 3000 1000 || fail "orc_gen"
	cw() { "$CFILE_WRITER" "$@" x.txt || fail "cfile-writer $*"; }
	cw --type STRING --encoding DICT --nullable --count 5000 \
		--block-rows 50 --index-block-size 128 dict.cfile
	cw --type STRING --encoding PREFIX --validx --count 3000 \
		--block-rows 20 --index-block-size 64 prefix.cfile
	cw --type INT64 --encoding BIT_SHUFFLE --compression LZ4 --delta \
		--count 500 delta.cfile
	cw --type BINARY --encoding PLAIN --bloom --count 3000 \
		--block-rows 500 bloom.cfile
	cw --type INT32 --encoding RLE --v1 --no-posidx --count 2000 \
		--block-rows 300 v1.cfile
	cw --type INT32 --encoding PLAIN --count 2000 --block-rows 100 \
		--index-block-size 64 --damage index-cycle cycle.cfile
	head -c 20000 "$SAMPLE_SNAPPY" >cut.parquet
	head -c 30000 g.orc >cut.orc
	head -c 9000 dict.cfile >cut.cfile
	python3 "$lc" "$COLFS_TOOL" "$SAMPLE" "$SAMPLE_SNAPPY" cut.parquet \
		g.orc cut.orc dict.cfile prefix.cfile delta.cfile bloom.cfile \
		v1.cfile cycle.cfile cut.cfile >log || {
		cat log >&2
		fail "a layout breaks the grammar"
	}
	grep -q '^layout-check: 12 layouts checked' log ||
		fail "not every generated file's layout was checked: $(tail -1 log)"
	# the multi-level index is named by its directories
	"$COLFS_TOOL" cat prefix.cfile layout >prefix.layout
	grep -q ' value_index_block /index/value/0$' prefix.layout ||
		fail "prefix.cfile: no value index child block in its layout"
	# hand-broken layouts are caught
	"$COLFS_TOOL" cat "$SAMPLE" layout >good.layout
	size=$(stat -c %s "$SAMPLE")
	python3 "$lc" --text good.layout "$size" >/dev/null ||
		fail "the sample's layout is refused"
	printf '0 4 magic /raw/magic_head\n4 6 gap -\n10 5 footer /raw/footer\n8 4 column_chunk /x\n' >unsorted.layout
	printf '0 4 magic /raw/magic_head\n10 5 footer /raw/footer\n' >nogap.layout
	printf '0 4 magic /raw/magic_head\n2 4 footer /raw/footer\n' >nooverlap.layout
	printf '0 4 magic /raw/magic_head\n2 4 footer /raw/footer\n2 1 overlap -\n' >shortoverlap.layout
	printf '0 4 magic /raw/magic_head\n4 4 gap\n8 7 footer /raw/footer\n' >threecols.layout
	printf '0 4 magic /raw/magic_head\n2 13 footer /raw/footer OVERLAP with /raw/magic_head\n' >suffix.layout
	printf '0 4 magic /raw/magic_head\n' >short.layout
	head -n -1 good.layout >truncated.layout
	sed '2s/^\([0-9]*\) \([0-9]*\)/\1 1\2/' good.layout >longer.layout
	for b in unsorted nogap nooverlap shortoverlap threecols suffix short; do
		if python3 "$lc" --text "$b.layout" 15 >/dev/null; then
			fail "the broken layout $b.layout passes the check"
		fi
	done
	for b in truncated longer; do
		python3 "$lc" --text "$b.layout" "$size" >/dev/null &&
			fail "the broken layout $b.layout passes the check"
	done
	if [ -d "$CORPUS_DIR" ]; then
		find "$CORPUS_DIR/parquet/good" "$CORPUS_DIR/parquet/bad" \
			"$CORPUS_DIR/orc/good" "$CORPUS_DIR/orc/bad" -type f \
			\( -name '*.parquet' -o -name '*.orc' \) -print0 |
			sort -z | xargs -0 python3 "$lc" "$COLFS_TOOL" >corpus.log || {
			grep -v '^layout-check:' corpus.log | head -50 >&2
			fail "a corpus file's layout breaks the grammar"
		}
		tail -1 corpus.log
	else
		echo "no corpus at $CORPUS_DIR: corpus layouts not checked" >&2
	fi
}

# A progress bar on a terminal only: under script(1) stderr is a tty.
test_check_progress() {
	need_parquet
	command -v script >/dev/null || skip "script(1) is not installed"
	"$COLFS_MKSAMPLE" big.parquet --rows 200000 --row-groups 4 ||
		fail "mksample big"
	script -qec "$COLFS_TOOL check big.parquet 2>tty.err >tty.out; \
		$COLFS_TOOL check big.parquet >pipe.out 2>pipe.err </dev/null" \
		/dev/null >/dev/null 2>&1 </dev/null
	[ -s tty.out ] || fail "no output under script"
	grep -q 'healthy' tty.out || fail "tty: $(cat tty.out)"
	# stderr was redirected to a file inside script: no bar there either
	[ -s tty.err ] && fail "bar written to a file: $(head -c 300 tty.err)"
	script -qec "$COLFS_TOOL check big.parquet >tty2.out" typescript \
		>/dev/null 2>&1 </dev/null
	grep -q 'healthy' tty2.out || fail "tty2: $(cat tty2.out)"
	grep -q '%' typescript || fail "no progress bar on a terminal"
	grep -qa "\[#*  *\] *[0-9]*% [0-9]* nodes" typescript ||
		fail "progress bar: $(head -c 300 typescript | od -c | head)"
	true
}

corpus_bad() {
	[ -d "$CORPUS_DIR" ] || skip "no corpus at $CORPUS_DIR"
}

# check_corpus KIND-DIR: every file in it is checked (under a time bound):
# exit 1 with problems that carry offsets, or 2 when it cannot be opened
# at all; never a crash, never a hang.  Files the reader finds no fault
# in (exit 0) are listed in the log and counted.
check_corpus() {
	corpus_bad
	n=0 bad=0 refused=0 healthy=0
	while IFS= read -r -d '' f; do
		n=$((n + 1))
		run timeout 120 "$COLFS_TOOL" check --json "$f"
		cp out j.json
		# a sanitizer build exits 1 on a finding: look for its report
		grep -q 'Sanitizer\|runtime error' err &&
			{ cat err >&2; fail "$f: sanitizer report"; }
		case $rc in
		0) healthy=$((healthy + 1)); echo "no fault found: $f" >&2 ;;
		1) bad=$((bad + 1))
		   check_json "$f" 1
		   problem_lines | grep -q . ||
			grep -q ': unreadable: ' out ||
			fail "$f: exit 1 without a problem: $(cat out)" ;;
		2) refused=$((refused + 1))
		   # one JSON document: the error object
		   python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["readable"] is False and d["error"], d' out ||
			fail "$f: refused without the error object: $(cat out)" ;;
		*) cat err >&2; fail "$f: exit status $rc (crash or timeout)" ;;
		esac
	done < <(find "$1" -type f -print0 | sort -z)
	echo "$1: $n files: $bad with problems, $refused refused, $healthy no fault found" >&2
	[ "$n" -gt 0 ] || fail "no files in $1"
	[ "$bad" -gt 0 ] || fail "no problem found in any file of $1"
}

test_check_corpus_parquet() {
	check_corpus "$CORPUS_DIR/parquet/bad"
}

test_check_corpus_orc() {
	check_corpus "$CORPUS_DIR/orc/bad"
}

# Exactly the two damaged pages are reported.
# (the parquet-mr test writer also left a column index that calls every
# page null: verify of chunk b sees its page 0 before the bad page 1)
test_check_corrupt_checksum() {
	corpus_bad
	f=$CORPUS_DIR/parquet/good/datapage_v1-corrupt-checksum.parquet
	[ -r "$f" ] || skip "$f is missing"
	check "$f"
	expect_rc 1 "check $f"
	problem_lines >problems
	expect_file problems '/row_groups/0/chunks/a/pages/0: offset 32 (0x20): corrupt: page CRC mismatch: header says bbce3b9d, the 10240 stored bytes give 0f4f6d0a
/row_groups/0/chunks/b/pages/1: offset 30836 (0x7874): corrupt: page CRC mismatch: header says 48850d12, the 10240 stored bytes give 0358a2bc
/row_groups/0/chunks/b: offset 41095 (0xa087): corrupt: metadata disagrees with the data: column index page 0: null_pages says true, the page has 2560 values
'
	check_json "$f"
}

# docs/errors.md names every message colfs_tree_report / colfs_fail
# can produce (tests/tool/errors-doc.sh).
# docs/architecture.md names every source file of formats/, fs/ and
# tools/ (as `name.c`), and every file it names exists.
test_architecture_doc() {
	local root="$TESTS_TOOL_DIR/../.." doc f n=0
	doc="$root/docs/architecture.md"
	[ -s "$doc" ] || fail "docs/architecture.md is missing"
	while IFS= read -r f; do
		n=$((n + 1))
		grep -qF "\`$(basename "$f")\`" "$doc" ||
			fail "docs/architecture.md does not describe $f"
	done < <(cd "$root" && find formats fs tools -name '*.c' -o -name '*.proto' | sort)
	[ "$n" -gt 40 ] || fail "only $n source files found under $root"
	grep -oE '`[a-z_0-9-]+\.(c|h|proto)`' "$doc" | tr -d '`' | sort -u |
		while IFS= read -r f; do
			[ -n "$(cd "$root" && find formats fs tools tests -name "$f" | head -1)" ] ||
				fail "docs/architecture.md names $f, which does not exist"
		done || exit 1
	echo "ok: $n source files described"
}

# Files say what the code does and why, not which past work made it:
# no file of the project names a session or an issue by its number (the
# history is in git log).  A clone without git is checked with grep -r.
test_no_past_refs() {
	local root="$TESTS_TOOL_DIR/../.." re='(session|issue) #?[0-9]+'
	if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$root" grep -n -i -I -E "$re" -- . >out 2>&1
	else
		grep -r -n -i -I -E "$re" --exclude-dir=build\* --exclude-dir=node_modules \
			--exclude-dir=.git "$root" >out 2>&1
	fi
	if [ -s out ]; then
		cat out
		fail "files name past work by its number (see above)"
	fi
	echo "ok: no file names a session or an issue by number"
}

test_errors_doc() {
	"$TESTS_TOOL_DIR/errors-doc.sh" "$TESTS_TOOL_DIR/../.." ||
		fail "docs/errors.md misses messages the code reports"
}

# --- colfs-mksample --------------------------------------------------------------------

test_mksample_args() {
	run "$COLFS_MKSAMPLE" --help
	expect_rc 0 "--help"
	run "$COLFS_MKSAMPLE"
	expect_rc 2 "no output"
	run "$COLFS_MKSAMPLE" x.parquet --codec lzma
	expect_rc 2 "unknown codec"
	run "$COLFS_MKSAMPLE" x.parquet --rows -3
	expect_rc 2 "negative rows"
	run "$COLFS_MKSAMPLE" x.parquet --page-rows 0
	expect_rc 2 "zero page rows"
	run "$COLFS_MKSAMPLE" x.parquet --row-groups 0
	expect_rc 2 "rows without row groups"
	run "$COLFS_MKSAMPLE" x.parquet --rows 0 --row-groups 0
	expect_rc 0 "an empty file without row groups"
	run "$COLFS_MKSAMPLE" /nonexistent-dir/x.parquet
	expect_rc 1 "unwritable output"
	# deterministic: the same arguments give the same bytes
	run "$COLFS_MKSAMPLE" a.parquet --codec zstd
	expect_rc 0 "a"
	run "$COLFS_MKSAMPLE" b.parquet --codec zstd
	expect_rc 0 "b"
	cmp -s a.parquet b.parquet || fail "two runs differ"
	# the build's sample is the default invocation
	run "$COLFS_MKSAMPLE" c.parquet
	cmp -s c.parquet "$SAMPLE" || fail "default run differs from the sample"
	# both ends carry the magic, the footer length fits
	[ "$(head -c 4 c.parquet)" = PAR1 ] || fail "no leading PAR1"
	[ "$(tail -c 4 c.parquet)" = PAR1 ] || fail "no trailing PAR1"
	flen=$(tail -c 8 c.parquet | head -c 4 | od -An -tu4 | tr -d ' ')
	size=$(stat -c %s c.parquet)
	[ "$flen" -gt 100 ] && [ "$flen" -lt $((size - 12)) ] ||
		fail "footer length $flen of a $size-byte file"
}

# --bad-crc damages exactly one byte: the CRC of the first data page of
# price in row group 0, which no longer matches that page's bytes.
test_mksample_bad_crc() {
	run "$COLFS_MKSAMPLE" bad.parquet --bad-crc
	expect_rc 0 "--bad-crc"
	[ "$(cmp -l bad.parquet "$SAMPLE" | wc -l)" -eq 1 ] ||
		fail "--bad-crc changed more than one byte"
	need_parquet
	command -v python3 >/dev/null || skip "python3 is not installed"
	p=row_groups/0/chunks/price/pages
	for k in 0 1; do
		"$COLFS_TOOL" cat bad.parquet "$p/$k/header.json" >h.json ||
			fail "cat $p/$k/header.json"
		"$COLFS_TOOL" cat bad.parquet "$p/$k/raw" >raw || fail "cat $p/$k/raw"
		python3 -c '
import json, sys, zlib
h = json.load(open(sys.argv[1]))
crc = zlib.crc32(open(sys.argv[2], "rb").read())
crc = crc - 2**32 if crc >= 2**31 else crc
sys.exit(0 if h["crc"] == crc else 1)' h.json raw
		ok=$?
		if [ "$k" = 0 ] && [ "$ok" = 0 ]; then
			fail "$p/0: the CRC still matches"
		elif [ "$k" = 1 ] && [ "$ok" != 0 ]; then
			fail "$p/1: the CRC does not match"
		fi
	done
}

test_sample_duckdb() {
	command -v node >/dev/null || skip "node is not installed"
	[ -d "$NODE_MODULES/@duckdb/node-api" ] ||
		skip "$NODE_MODULES/@duckdb/node-api is missing (npm install in tests/values)"
	check="$TESTS_TOOL_DIR/sample-check.js"
	node "$check" "$NODE_MODULES" "$SAMPLE" 3000 3 none || fail "default sample"
	node "$check" "$NODE_MODULES" "$SAMPLE_SNAPPY" 1234 2 snappy ||
		fail "snappy v2 sample"
	while read -r rows groups pr codec extra; do
		"$COLFS_MKSAMPLE" s.parquet --rows "$rows" --row-groups "$groups" \
			--page-rows "$pr" --codec "$codec" $extra ||
			fail "colfs-mksample $rows $groups $pr $codec $extra"
		bloom=
		case $extra in *--no-bloom*) bloom=nobloom;; esac
		node "$check" "$NODE_MODULES" s.parquet "$rows" "$groups" "$codec" $bloom ||
			fail "rows=$rows groups=$groups page-rows=$pr codec=$codec $extra"
	done <<-'EOF'
	3000 3 400 gzip
	2500 4 333 zstd --data-page-v2
	1000 1 1000 lz4_raw --no-page-index
	1000 2 100 zstd --no-bloom
	777 5 7 snappy
	60 2 1 gzip --data-page-v2
	1 3 400 none
	0 3 400 none
	EOF
	# and the check itself notices a wrong expectation
	"$COLFS_MKSAMPLE" s.parquet --rows 100 || fail "mksample 100"
	node "$check" "$NODE_MODULES" s.parquet 101 1 none 2>/dev/null &&
		fail "sample-check accepted a wrong row count"
	true
}

# --- the commands the scripts run -------------------------------------------

# Every command of every shell script (tests, tools, CI) is in a minimal
# Debian 12 or installed by tools/bootstrap.sh (issue: pgrep was neither,
# and the tests failed on a bare machine only).
test_commands_audit() {
	command -v shfmt >/dev/null || fail "shfmt is not installed (tools/bootstrap.sh installs it)"
	run /usr/bin/python3 "$TESTS_TOOL_DIR/commands-audit.py" "$TESTS_TOOL_DIR/../.."
	cat out
	expect_rc 0 "commands-audit.py"
}

# ... and the audit catches a command that bootstrap does not install,
# wherever the script runs it.
test_commands_audit_catches() {
	command -v shfmt >/dev/null || fail "shfmt is not installed (tools/bootstrap.sh installs it)"
	audit="$TESTS_TOOL_DIR/commands-audit.py"
	cat >scratch.sh <<-'EOF'
	#!/bin/sh
	set -eu
	cleanup() { rm -f x; }
	show() { echo "$*"; "$@"; }
	n=$(ls | wc -l)
	case $n in
	pgrep) echo "a case pattern, not a command" ;;
	esac
	pid=$(pgrep -f colfs || true)
	echo "$pid" | xxd >/dev/null
	timeout 5 colfs-no-such-command --flag
	show strace true
	cat <<-END
	sl is in a here-document, not a command
	END
	EOF
	# (without chromium too: its dependencies bring procps, through
	# dconf-service)
	pkgs=$(COLFS_WITH_TEST_TOOLS=1 "$TESTS_TOOL_DIR/../../tools/bootstrap.sh" --list |
		tr ' ' '\n' | grep -v -x -e procps -e strace -e chromium |
		tr '\n' ' ')
	run /usr/bin/python3 "$audit" --pkgs "$pkgs" scratch.sh
	cat out
	expect_rc 1 "commands-audit.py on a script with missing commands"
	for c in "scratch.sh:9: command 'pgrep'" "scratch.sh:10: command 'xxd'" \
		"scratch.sh:11: command 'colfs-no-such-command'" \
		"scratch.sh:12: command 'strace'"; do
		grep -q -F "FAIL $c" out || fail "the audit did not name $c"
	done
	for c in sl cleanup show ls wc echo timeout rm; do
		grep -q "command '$c'" out && fail "the audit named $c, which is not missing"
	done
	grep -q "4 not accounted for" out || fail "expected exactly 4 problems"
	# the same script with those commands installed by bootstrap passes
	# (xxd and strace come with the packages named here, pgrep with procps)
	command -v xxd >/dev/null && command -v strace >/dev/null && command -v pgrep >/dev/null || return 0
	sed -i '/colfs-no-such-command/d' scratch.sh
	run /usr/bin/python3 "$audit" --pkgs "$pkgs procps xxd strace" scratch.sh
	expect_rc 0 "commands-audit.py with procps, xxd and strace listed"
	true
}

fn="test_${name//-/_}"
declare -F "$fn" >/dev/null || fail "no such test"
"$fn" || fail "the test function returned status $?"
echo "PASS [$name]"
exit 0

#!/bin/bash
# tests/iceberg: Iceberg tables of ../shared/corpus/iceberg through a real
# mount (colfs TABLE MNT): every corpus table's rows.jsonl, summary and
# columns/ read through the mount are the bytes colfs-tool gives (which
# rows.py checks against expected.json), and iceberg/deletes/'s
# documents and delete files' columns; iceberg/ lists each snapshot and
# its manifests; the damaged table's rows.jsonl read fails with EIO and
# errors names the deletion vector file; -o snapshot= mounts an older
# snapshot, and so does the table named by an older metadata file.
#   mount.sh CORPUS_DIR   (COLFS, COLFS_TOOL in the environment)
set -u
corpus=$1/iceberg
: "${COLFS:?COLFS is not set}"
: "${COLFS_TOOL:?COLFS_TOOL is not set}"
[ -d "$corpus" ] || { echo "SKIP: no Iceberg corpus at $corpus (../shared is absent)"; exit 77; }
[ -c /dev/fuse ] && command -v fusermount3 > /dev/null ||
	{ echo "SKIP: no FUSE here"; exit 77; }
T=30
WORK=$(mktemp -d /tmp/colfs-iceberg-mount.XXXXXX)
export XDG_CACHE_HOME=$WORK/cache
MNT=$WORK/mnt
mkdir -p "$MNT"
umount_now() {
	if grep -qs " $MNT fuse" /proc/self/mounts; then
		timeout 10 fusermount3 -u "$MNT" 2>/dev/null ||
			timeout 10 fusermount3 -u -z "$MNT" 2>/dev/null || true
	fi
	# the daemon writes its size index after the unmount
	for i in $(seq 1 100); do
		pgrep -f -- " $MNT" > /dev/null || break
		sleep 0.1
	done
}
cleanup() { umount_now; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 143' TERM INT HUP
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok $*"; }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }

for t in "$corpus"/*/; do
	t=${t%/}
	name=$(basename "$t")
	timeout $T "$COLFS" "$t" "$MNT" || { bad "$name: mount"; continue; }
	if [ "$name" = legacy_bare_deletion_vector ]; then
		if timeout $T cat "$MNT/rows.jsonl" > "$WORK/out" 2> "$WORK/err"; then
			bad "$name: rows.jsonl read: $(head -c 300 "$WORK/out")"
		else
			check "$name: rows.jsonl fails with EIO" grep -q 'Input/output error' "$WORK/err"
		fi
		check "$name: errors names the file" grep -q 'legacy-bare-deletion-vector.puffin' "$MNT/errors"
		umount_now
		continue
	fi
	for p in rows.jsonl rows.csv summary; do
		timeout $T cat "$MNT/$p" > "$WORK/m" 2>&1
		timeout $T "$COLFS_TOOL" cat "$t" "$p" > "$WORK/t" 2>&1
		# summary: the lines after the first (the name of the source)
		check "$name: $p" cmp -s "$WORK/m" "$WORK/t"
	done
	for f in $(ls "$MNT/columns"); do
		timeout $T cat "$MNT/columns/$f" > "$WORK/m"
		timeout $T "$COLFS_TOOL" cat "$t" "columns/$f" > "$WORK/t"
		check "$name: columns/$f" cmp -s "$WORK/m" "$WORK/t"
	done
	# each delete file's folder: the same bytes through the mount as
	# through colfs-tool (applies_to, entries, its own columns)
	for a in $(timeout $T find "$MNT/iceberg/deletes" -name applies_to); do
		d=${a%/applies_to}
		rel=${d#"$MNT"}
		for p in applies_to entries.jsonl $(ls "$d/file/columns" 2>/dev/null | sed 's|^|file/columns/|'); do
			timeout $T cat "$d/$p" > "$WORK/m" 2>&1
			timeout $T "$COLFS_TOOL" cat "$t" "$rel/$p" > "$WORK/t" 2>&1
			check "$name: $rel/$p" cmp -s "$WORK/m" "$WORK/t"
		done
	done
	snaps=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(' '.join(str(s['snapshot-id']) for s in m.get('snapshots', [])))" "$t/$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['metadata'])" "$t/expected.json")")
	check "$name: iceberg/snapshots/ lists every snapshot" \
		test "$(ls "$MNT/iceberg/snapshots" | sort | tr '\n' ' ')" = "$(printf '%s\n' $snaps | sed '/^$/d' | sort | tr '\n' ' ')"
	umount_now
done

# an older snapshot mounted: equality_deletes's first has 4 rows and
# no delete file (its summary: total-records 4)
t=$corpus/equality_deletes
first=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(sorted(m['snapshots'], key=lambda s: s['sequence-number'])[0]['snapshot-id'])" "$t/metadata/v7.metadata.json")
if timeout $T "$COLFS" -o snapshot="$first" "$t" "$MNT"; then
	check "equality_deletes: -o snapshot=$first holds 4 rows" test "$(timeout $T cat "$MNT/rows.jsonl" | wc -l)" = 4
	check "equality_deletes: summary names snapshot $first" grep -q "^snapshot: $first (-o snapshot=$first)" "$MNT/summary"
	umount_now
else
	bad "equality_deletes: mount -o snapshot=$first"
fi
# named by an older metadata file (a relative path, the daemon started
# in the table's folder): v2.metadata.json's current snapshot is that
# first one, whatever version-hint.text says
if (cd "$t" && timeout $T "$COLFS" metadata/v2.metadata.json "$MNT"); then
	check "equality_deletes by metadata/v2.metadata.json: 4 rows" test "$(timeout $T cat "$MNT/rows.jsonl" | wc -l)" = 4
	check "equality_deletes by metadata/v2.metadata.json: summary names it and snapshot $first" \
		grep -qz "iceberg metadata: metadata/v2.metadata.json .*snapshot: $first " "$MNT/summary"
	check "equality_deletes by metadata/v2.metadata.json: iceberg/metadata.json is v2's" \
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
		"$MNT/iceberg/metadata.json" "$t/metadata/v2.metadata.json"
	umount_now
else
	bad "equality_deletes: mount by metadata/v2.metadata.json"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]

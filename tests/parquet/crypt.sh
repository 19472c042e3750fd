#!/bin/bash
# tests/parquet/crypt.sh COLFS_TOOL COLFS CORPUS_DIR WORKDIR MUTANT: Parquet
# modular encryption with the user's keys (docs/parquet-tree.md,
# "Encryption").
#   - every *.parquet.encrypted file of the corpus (MANIFEST kind
#     parquet-encrypted: AES-128 and aes256/, GCM and CTR, stored and
#     supplied AAD prefixes, plaintext footer) is read whole healthy with
#     the keys of the corpus README (colfs-tool check), and its rows.jsonl
#     equals that of uniform_encryption beside it (the same table), whose
#     double and float columns hold the values parquet-cpp's test wrote
#     (the bloom filter file: its own table, checked whole); each is
#     mounted with its keys given as options (the column keys in the
#     "column_keys=COL:KEY,COL:KEY" form) and its rows.jsonl read there
#     (no key in the process title or the daemon's messages), and mounted
#     without keys (its errors say colfs has no keys);
#   - the corpus files DuckDB 1.5 reads with the same keys compare
#     column by column with its reading: uniform_encryption (AES-128 and
#     aes256/, every column under the footer key; DuckDB fails on its
#     repeated int64_field, "Computed AES tag differs", and reads the
#     other seven) and the plaintext footer's columns that are not
#     encrypted (DuckDB reads that file only without keys).  DuckDB
#     cannot read the other files: column keys
#     (encryption_config's column_keys "not yet implemented": the
#     encrypt_columns_and_footer files, with and without bloom filters,
#     and external_key_material_java), AES_GCM_CTR_V1 (the _ctr files:
#     "only AES_GCM_V1 is supported") and AAD prefixes (no parameter for
#     one: the _aad and _disable_aad_storage files, "Computed AES tag
#     differs");
#   - DuckDB-written encrypted files (128-, 192- and 256-bit footer keys,
#     every type DuckDB writes, three row groups) compare column by
#     column with DuckDB's reading of them (corpus-vs-duckdb.mjs,
#     COLFS_DUCKDB_LIST);
#   - a wrong footer key, a wrong column key, a missing column key, a
#     missing AAD prefix and a wrong one each give their own problem (the
#     column or "footer" named), and the columns that can be read still
#     are; a bad key or key file is refused before anything opens, and
#     the message shows no key (nor a misspelt key option's value);
#   - problems of one column are filed under its chunks
#     (/row_groups/G/chunks/NAME): a missing column key, a wrong one;
#   - a ColumnMetaData and a data page header whose decrypted bytes are
#     damaged (crypt_mutant: a byte changed, encrypted again) give the
#     offset of the ciphertext byte of the byte that fails (module + 16 +
#     i, docs/errors.md "Where offsets point");
#   - keys wrapped by a KMS (parquet-mr's key material, the corpus's
#     external_key_material_java) are named as such, and read when
#     key_file gives the unwrapped keys by their key references;
#   - through a mount with the keys on the command line, neither
#     /proc/PID/cmdline nor any file of the mount (errors included) holds
#     a key, in hex or as its bytes;
#   - without keys the files read as before (the footer is encrypted and
#     colfs has no keys).
# Parts that need the corpus or DuckDB are skipped (with a note) without
# them; the test skips (77) when neither is there.
set -u
tool=${1:?usage: crypt.sh COLFS_TOOL COLFS CORPUS_DIR WORKDIR}
colfs=${2:?usage: crypt.sh COLFS_TOOL COLFS CORPUS_DIR WORKDIR}
corpus=${3:?usage: crypt.sh COLFS_TOOL COLFS CORPUS_DIR WORKDIR}
work=${4:?usage: crypt.sh COLFS_TOOL COLFS CORPUS_DIR WORKDIR MUTANT}
mutant=${5:?usage: crypt.sh COLFS_TOOL COLFS CORPUS_DIR WORKDIR MUTANT}
dir=$(cd "$(dirname "$0")" && pwd)
sql() { node "$dir/../../tools/bench/duckdb-sql.cjs" "$@"; }

have_corpus=1 have_duckdb=1
[ -f "$corpus/MANIFEST.tsv" ] || { echo "note: no corpus at $corpus: its files are not checked"; have_corpus=0; }
sh "$dir/../values/duckdb-setup.sh" || { echo "note: no DuckDB: nothing is compared with it"; have_duckdb=0; }
[ $have_corpus = 1 ] || [ $have_duckdb = 1 ] ||
	{ echo "SKIP: no corpus at $corpus and no DuckDB: nothing to check"; exit 77; }
mkdir -p "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

# The keys of parquet-testing (corpus README): ASCII digits.
K128=0123456789012345 C128_1=1234567890123450 C128_2=1234567890123451
K256=01234567890123456789012345678901 P256=1234567890123456789012345678901
cat >"$work/keys128.json" <<EOF
{"kf": "$(hex $K128)", "kc1": "$(hex $C128_1)", "kc2": "$(hex $C128_2)"}
EOF
{
	printf '{"footer": "base64:%s"' "$(printf %s $K256 | base64 -w0)"
	i=1
	for last in 2 3 4 5 6 7 8 9; do
		printf ', "kc%d": "%s"' $i "$(hex $P256$last)"
		i=$((i + 1))
	done
	echo '}'
} >"$work/keys256.json"
list=$work/duckdb-list.tsv
: >"$list"

# mount_rows FILE OPTIONS KEYS WANT: FILE mounted with `-o OPTIONS`; its
# process title shows none of KEYS (hex, space-separated), its errors are
# empty and its rows.jsonl is the file WANT.  Always unmounts.
mpid=
mnt=
mount_cleanup() {
	if [ -n "$mnt" ] && mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
	fi
	[ -n "$mpid" ] && { kill "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null; }
	[ -n "$mnt" ] && rmdir "$mnt" 2>/dev/null
	mpid= mnt=
}
trap mount_cleanup EXIT
mount_rows() {
	local k ok=0
	mnt=$(mktemp -d "$work/mnt.XXXXXX")
	"$colfs" -f -o size_index=off -o "$2" "$1" "$mnt" 2>"$work/mount.err" &
	mpid=$!
	for _ in $(seq 500); do mountpoint -q "$mnt" && break; sleep 0.02; done
	if ! mountpoint -q "$mnt"; then
		echo "did not mount" >>"$work/mount.err"
	else
		ok=1
		tr '\0' ' ' </proc/$mpid/cmdline >"$work/cmdline"
		for k in $3; do
			grep -qi -- "$k" "$work/cmdline" &&
				{ echo "the process title shows a key: $(cat "$work/cmdline")" >>"$work/mount.err"; ok=0; }
		done
		timeout 60 cat "$mnt/rows.jsonl" >"$work/mount.jsonl" 2>>"$work/mount.err" &&
			cmp -s "$work/mount.jsonl" "$4" ||
			{ echo "rows.jsonl differs from colfs-tool's" >>"$work/mount.err"; ok=0; }
		[ -s "$mnt/errors" ] &&
			{ echo "errors: $(head -3 "$mnt/errors")" >>"$work/mount.err"; ok=0; }
	fi
	mount_cleanup
	for k in $3; do
		grep -qi -- "$k" "$work/mount.err" && { echo "the daemon's messages show a key" >>"$work/mount.err"; ok=0; }
	done
	[ $ok = 1 ]
}
# mount_nokeys FILE: FILE mounts without keys, as before keys were
# supported, and its errors say why its encrypted parts are not read
mount_nokeys() {
	local ok=0
	mnt=$(mktemp -d "$work/mnt.XXXXXX")
	"$colfs" -f -o size_index=off "$1" "$mnt" 2>"$work/mount.err" &
	mpid=$!
	for _ in $(seq 500); do mountpoint -q "$mnt" && break; sleep 0.02; done
	if ! mountpoint -q "$mnt"; then
		echo "did not mount" >>"$work/mount.err"
	else
		timeout 60 cat "$mnt/summary" >/dev/null 2>>"$work/mount.err"
		# (a plaintext footer: its encrypted chunk's pages, not listed)
		timeout 60 ls "$mnt/row_groups/0/chunks/double_field/pages" >/dev/null 2>&1
		timeout 60 grep -q "colfs has no keys" "$mnt/errors" && ok=1 ||
			echo "errors: $(head -3 "$mnt/errors")" >>"$work/mount.err"
	fi
	mount_cleanup
	[ $ok = 1 ]
}

if [ $have_corpus = 1 ]; then
	g=$corpus/parquet/good
	n=0
	for rel in $(awk -F'\t' '$8 == "parquet-encrypted" {print $1}' "$corpus/MANIFEST.tsv"); do
		f=$corpus/$rel
		case $rel in
		*external_key_material*) continue ;;   # keys wrapped by a KMS: below
		*/aes256/*) keys="-o key_file=$work/keys256.json" ;;
		*) keys="-o key_file=$work/keys128.json" ;;
		esac
		opts=$keys
		case $rel in
		*disable_aad_storage*) opts="$opts -o aad_prefix=tester" ;;
		esac
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$tool" $opts check "$f" >"$work/check.out" 2>&1 ||
			{ fail "$rel: check with the keys:"; sed 's/^/  /' "$work/check.out"; }
		# shellcheck disable=SC2086
		"$tool" $opts cat "$f" rows.jsonl >"$work/rows.jsonl" 2>"$work/rows.err" ||
			fail "$rel: rows.jsonl: $(head -1 "$work/rows.err")"
		case $rel in
		*bloom_filter*)
			# its own table (parquet-testing's README): 2000 rows of
			# i + 0.5, i + 0.25, i, name_i
			awk '{ i = NR - 1; want = sprintf("{\"double_field\":%s,\"float_field\":%s,\"int32_field\":%d,\"name\":\"name_%d\"}", i + 0.5, i + 0.25, i, i)
			       if ($0 != want) { print "line " NR ": " $0 " expected " want; bad = 1; exit }
			     } END { if (!bad && NR != 2000) { print NR " rows"; bad = 1 }; exit bad }' \
				"$work/rows.jsonl" >"$work/awk.out" ||
				fail "$rel: rows.jsonl: $(cat "$work/awk.out")" ;;
		*)
			ref=$work/ref-$(basename "$(dirname "$f")").jsonl
			# shellcheck disable=SC2086
			[ -f "$ref" ] || "$tool" $keys cat "$(dirname "$f")/uniform_encryption.parquet.encrypted" rows.jsonl >"$ref" 2>/dev/null
			[ "$(wc -l <"$work/rows.jsonl")" = 50 ] && cmp -s "$work/rows.jsonl" "$ref" ||
				fail "$rel: rows.jsonl differs from uniform_encryption's" ;;
		esac
		# mounted, with the keys as options: the same rows
		case $rel in
		*/aes256/*)
			mopts="footer_key=$(hex $K256),column_keys=double_field:$(hex ${P256}2)"
			i=3
			for c in float_field boolean_field int32_field ba_field flba_field int64_field.list.element int96_field; do
				mopts="$mopts,$c:$(hex $P256$i)"
				i=$((i + 1))
			done
			mkeys="$(hex $K256) $(hex ${P256}2) $(hex ${P256}9)" ;;
		*)
			mopts="footer_key=$(hex $K128),column_keys=double_field:$(hex $C128_1),float_field:$(hex $C128_2)"
			mkeys="$(hex $K128) $(hex $C128_1) $(hex $C128_2)" ;;
		esac
		case $rel in
		*disable_aad_storage*) mopts="$mopts,aad_prefix=tester" ;;
		esac
		mount_rows "$f" "$mopts" "$mkeys" "$work/rows.jsonl" ||
			fail "$rel: mounted with its keys: $(cat "$work/mount.err")"
		mount_nokeys "$f" ||
			fail "$rel: mounted without keys: $(cat "$work/mount.err")"
	done
	[ "$n" -ge 11 ] || fail "only $n encrypted corpus files checked"
	# the table of parquet-testing's encryption files (parquet-cpp's
	# test data): row i has double_field i * 1.1111111, float_field the
	# float of i * 1.1, int32_field i as TIME_MILLIS
	for d in "$g" "$g/aes256"; do
		k=$work/keys128.json
		[ "$d" = "$g" ] || k=$work/keys256.json
		"$tool" -o key_file="$k" cat "$d/uniform_encryption.parquet.encrypted" \
			columns/double_field >"$work/d" 2>&1
		"$tool" -o key_file="$k" cat "$d/uniform_encryption.parquet.encrypted" \
			columns/float_field >"$work/f" 2>&1
		paste "$work/d" "$work/f" | awk '{ i = NR - 1
			dd = $1 - i * 1.1111111; df = $2 - i * 1.1
			if (dd < -1e-9 || dd > 1e-9 || df < -1e-5 || df > 1e-5) { print "row " i ": " $0; bad = 1; exit }
		} END { if (!bad && NR != 50) { print NR " rows"; bad = 1 }; exit bad }' >"$work/awk.out" ||
			fail "$d/uniform_encryption: values: $(cat "$work/awk.out")"
	done
	enc=$g/encrypt_columns_and_footer.parquet.encrypted
	aad=$g/encrypt_columns_and_footer_aad.parquet.encrypted
	noaad=$g/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted
	plain=$g/encrypt_columns_plaintext_footer.parquet.encrypted
	errs() { # FILE OPTIONS...: the file's errors, with those options
		local f=$1
		shift
		"$tool" "$@" cat "$f" errors 2>&1
	}
	expect() { # WHAT PATTERN FILE OPTIONS...
		local what=$1 pat=$2
		shift 2
		errs "$@" >"$work/errors"
		grep -q -- "$pat" "$work/errors" ||
			{ fail "$what: no problem matching '$pat':"; sed 's/^/  /' "$work/errors"; }
	}
	wrong=$(hex 9999999999999999)
	expect "a wrong footer key" "^/: .*corrupt: footer: the footer does not decrypt (AES-GCM tag mismatch)" \
		"$enc" -o footer_key="$wrong"
	expect "a wrong footer key (plaintext footer)" "corrupt: footer: the plaintext footer's signature does not verify" \
		"$plain" -o footer_key="$wrong"
	expect "a wrong column key" "^/row_groups/0/chunks/double_field: offset [0-9]* ([0-9a-fx]*): corrupt: column 'double_field': the ColumnMetaData does not decrypt" \
		"$enc" -o footer_key="$(hex $K128)" -o "column_keys=double_field:$wrong;float_field:$(hex $C128_2)"
	expect "a missing column key" "^/row_groups/0/chunks/float_field: offset [0-9]* ([0-9a-fx]*): unsupported: column 'float_field' is encrypted with a column key that colfs was not given" \
		"$enc" -o footer_key="$(hex $K128)" -o "column_keys=double_field:$(hex $C128_1)"
	# ... the other columns read, and the one without its key is shown
	"$tool" -o footer_key="$(hex $K128)" -o "column_keys=double_field:$(hex $C128_1)" \
		cat "$enc" columns/double_field >"$work/double" 2>&1 &&
		[ "$(wc -l <"$work/double")" = 50 ] || fail "a missing column key: columns/double_field does not read"
	"$tool" -o footer_key="$(hex $K128)" ls "$enc" row_groups/0/chunks/float_field >/dev/null ||
		fail "a missing column key: the chunk is not shown"
	expect "a missing AAD prefix" "the file's AAD prefix is not stored in it (supply_aad_prefix): give it with -o aad_prefix" \
		"$noaad" -o key_file="$work/keys128.json"
	expect "a wrong AAD prefix (not stored)" "footer: the footer does not decrypt" \
		"$noaad" -o key_file="$work/keys128.json" -o aad_prefix=tested
	expect "a wrong AAD prefix (stored)" "the aad_prefix option differs from the AAD prefix the file stores" \
		"$aad" -o key_file="$work/keys128.json" -o aad_prefix=tested
	# keys wrapped by a KMS (parquet-mr's InMemoryKMS, double wrapping,
	# the material in _KEY_MATERIAL_FOR_...json): named as such
	kms=$g/external_key_material_java.parquet.encrypted
	expect "keys wrapped by a KMS" "^/: .*unsupported: the footer's key is wrapped by a KMS (parquet-mr key material, stored outside the file, reference 'footerKey'); colfs does not unwrap keys" \
		"$kms" -o key_file="$work/keys128.json"
	# the data keys unwrapped (AES-GCM with the master keys kf, kc1, kc2
	# of the corpus README: the KEK with the master key, AAD the master
	# key id; the DEK with the KEK, AAD the KEK id's bytes)
	dek_footer=5e63ada1593fab4abb6aecbc6a82dd1a
	dek_c0=6864726b09bbd978fae87df0ad4155d0
	dek_c1=4f1b17c621d61b1917a356d2cf1eafcc
	printf '{"footerKey": "%s", "columnKey0": "%s"}' $dek_footer $dek_c0 >"$work/kms.json"
	expect "a KMS-wrapped column key not given" "^/row_groups/0/chunks/strings: .*unsupported: column 'strings': its key is wrapped by a KMS (parquet-mr key material, stored outside the file, reference 'columnKey1'); colfs does not unwrap keys" \
		"$kms" -o key_file="$work/kms.json"
	printf '{"footerKey": "%s", "columnKey0": "%s", "strings": "%s"}' $dek_footer $dek_c0 $dek_c1 >"$work/kms.json"
	"$tool" -o key_file="$work/kms.json" check "$kms" >"$work/check.out" 2>&1 ||
		{ fail "KMS-wrapped keys given unwrapped: check:"; sed 's/^/  /' "$work/check.out"; }
	"$tool" -o key_file="$work/kms.json" cat "$kms" rows.jsonl >"$work/rows.jsonl" 2>&1
	awk '{ i = NR - 1; want = sprintf("{\"integers\":%d,\"strings\":\"%c%d\"}", i, 97 + i % 10, i)
	       if ($0 != want) { print "line " NR ": " $0 " expected " want; bad = 1; exit }
	     } END { if (!bad && NR != 100) { print NR " rows"; bad = 1 }; exit bad }' \
		"$work/rows.jsonl" >"$work/awk.out" ||
		fail "KMS-wrapped keys given unwrapped: rows.jsonl: $(cat "$work/awk.out")"
	# damaged decrypted bytes: the offset of the ciphertext byte
	aadu=$("$tool" cat "$plain" metadata.json | jq -r '.encryption_algorithm.AES_GCM_V1.aad_file_unique.hex')
	ck="-o footer_key=$(hex $K128) -o column_keys=double_field:$(hex $C128_1);float_field:$(hex $C128_2)"
	if read -r at col < <("$mutant" "$plain" "$work/cmd.parquet" "$(hex $K128)" "$(hex $C128_1)" "$aadu" 1 2 0x1f); then
		# shellcheck disable=SC2086
		expect "a damaged decrypted ColumnMetaData" "^/: offset $((at + 18)) (.*): corrupt: row group 0 chunk $col: the decrypted ColumnMetaData (module at offset $at) does not decode at its byte 2: thrift field header 0x1f has invalid type 15" \
			"$work/cmd.parquet" $ck
	else
		fail "crypt_mutant: no ColumnMetaData mutant"
	fi
	if read -r at col < <("$mutant" "$plain" "$work/ph.parquet" "$(hex $K128)" "$(hex $C128_1)" "$aadu" 4 0 0x1f); then
		# shellcheck disable=SC2086
		"$tool" $ck check "$work/ph.parquet" >/dev/null 2>&1
		# shellcheck disable=SC2086
		"$tool" $ck cat "$work/ph.parquet" columns/double_field >/dev/null 2>"$work/ph.err" &&
			fail "a damaged decrypted page header: columns/double_field reads"
		grep -q "offset $((at + 16)) (.*): corrupt: page 1 (header at $at): thrift field header 0x1f has invalid type 15" "$work/ph.err" ||
			fail "a damaged decrypted page header: $(cat "$work/ph.err")"
	else
		fail "crypt_mutant: no page header mutant"
	fi
	# without keys: as before
	expect "no keys" "the footer is encrypted (PARE, Parquet modular encryption) and colfs has no keys" "$enc"
	"$tool" cat "$plain" columns/float_field >/dev/null 2>"$work/nokey.err" &&
		fail "no keys (plaintext footer): columns/float_field reads"
	grep -q "colfs has no keys to read its page headers" "$work/nokey.err" ||
		fail "no keys (plaintext footer): $(cat "$work/nokey.err")"
	"$tool" cat "$plain" columns/int32_field >/dev/null 2>&1 ||
		fail "no keys (plaintext footer): the plain columns do not read"
	# the decrypted nodes beside raw
	"$tool" -o key_file="$work/keys128.json" cat "$enc" raw/footer.decrypted >"$work/fm" &&
		grep -q double_field "$work/fm" || fail "raw/footer.decrypted"
	"$tool" -o key_file="$work/keys128.json" cat "$enc" row_groups/0/chunks/double_field/pages/0/decrypted >/dev/null ||
		fail "pages/0/decrypted"
	bf=$g/encrypt_columns_and_footer_bloom_filter.parquet.encrypted
	"$tool" -o key_file="$work/keys128.json" ls "$bf" row_groups/0/chunks/double_field/bloom_filter/might_contain/1.5 >/dev/null 2>&1 ||
		fail "bloom filter: 1.5 not found in double_field's filter"
	! "$tool" -o key_file="$work/keys128.json" ls "$bf" row_groups/0/chunks/double_field/bloom_filter/might_contain/1.25 >/dev/null 2>&1 ||
		fail "bloom filter: 1.25 found in double_field's filter"
fi

# bad keys are refused before anything opens, and never echoed (a key
# one digit short, a misspelt option, a bad pair after column_keys=)
K31=$(hex $K128 | cut -c2-)
for kv in footer_key=0123 footer_key=base64:AAAA "column_keys=x:$(hex 0123456789ABCDEFG)" \
	column_keys=nokey footer_key=$K31 "column_keys=x:$K31" \
	"column_keys=x:$(hex $K128),y:$K31" "footer-key=$K31" "column_key=x:$K31"; do
	if "$tool" -o "$kv" ls /dev/null >"$work/bad.out" 2>&1 ||
	   ! grep -q "bad value in option\|unknown option" "$work/bad.out"; then
		fail "-o $kv accepted"
	fi
	grep -q -e "$K31" -e "$(hex 0123456789ABCDEFG)" -e AAAA "$work/bad.out" &&
		fail "-o $kv: the message shows the key: $(cat "$work/bad.out")"
	# the daemon refuses it before mounting, and says it the same way
	"$colfs" -f -o "$kv" /dev/null "$work" >"$work/bad.out" 2>&1 &&
		fail "colfs -o $kv accepted"
	grep -q -e "$K31" -e "$(hex 0123456789ABCDEFG)" -e AAAA "$work/bad.out" &&
		fail "colfs -o $kv: the message shows the key: $(cat "$work/bad.out")"
done
printf '{"footer": "%s", "x": "not a key"}' "$(hex $K128)" >"$work/badkeys.json"
f=$work/any.parquet
[ $have_corpus = 1 ] && f=$corpus/parquet/good/uniform_encryption.parquet.encrypted
if "$tool" -o key_file="$work/badkeys.json" ls "$f" >"$work/bad.out" 2>&1 ||
   ! grep -q 'the key of "x" is not' "$work/bad.out" ||
   grep -q "$(hex $K128)" "$work/bad.out"; then
	fail "a key file with a bad key: $(cat "$work/bad.out")"
fi

# --- DuckDB-written files ------------------------------------------------------
if [ $have_duckdb = 1 ]; then
	types="i % 2 = 0 AS b, (i % 100)::TINYINT AS i8, ((i * 7) % 30000)::SMALLINT AS i16,
	       (i * 100003)::INTEGER AS i32, i * 100000000007 AS i64,
	       (i % 200)::UTINYINT AS u8, i::UINTEGER AS u32, i::UBIGINT AS u64,
	       i::HUGEINT * 1000000000000 AS h, (i / 7)::FLOAT AS f,
	       i / 3 AS d, (i / 100)::DECIMAL(4,2) AS dec4,
	       (i * 1.5)::DECIMAL(18,3) AS dec18,
	       (i * 3.25)::DECIMAL(38,10) AS dec38,
	       CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 37) END AS s,
	       ('x' || i)::BLOB AS bl,
	       DATE '2000-01-01' + (i % 1000)::INTEGER AS dt,
	       TIME '01:02:03' + INTERVAL (i) SECOND AS t,
	       TIMESTAMP '2020-01-01 00:00:00' + INTERVAL (i) MINUTE AS ts,
	       (TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND)::TIMESTAMP_NS AS tsn,
	       md5(i::VARCHAR)::UUID AS u,
	       [i, i + 1, NULL] AS l,
	       {'a': i, 'b': 's' || i} AS st,
	       MAP {'k' || (i % 3): i} AS m"
	# every type with each key length
	K192=012345678901234567890123
	for bits in 128 192 256; do
		case $bits in
		128) k=$K128 ;;
		192) k=$K192 ;;
		*) k=$K256 ;;
		esac
		out=$work/duck$bits.parquet
		sel=$types
		rm -f "$out"
		# DuckDB writes with mbedtls only when told it may
		sql "SET force_mbedtls_unsafe = 'true'" \
			"PRAGMA add_parquet_key('k$bits', '$k')" \
			"COPY (SELECT $sel FROM range(5000) r(i))
			 TO '$out' (FORMAT parquet, ROW_GROUP_SIZE 2048,
			            ENCRYPTION_CONFIG {footer_key: 'k$bits'})" >/dev/null ||
			{ fail "DuckDB did not write $out"; continue; }
		[ "$(tail -c 4 "$out")" = PARE ] || fail "$out: not an encrypted footer"
		printf '%s\t%s\t%s\t%s\n' "$out" "-o footer_key=$(hex $k)" \
			"PRAGMA add_parquet_key('k$bits', '$k')" \
			", encryption_config = {footer_key: 'k$bits'}" >>"$list"
		"$tool" -o footer_key="$(hex $k)" check "$out" >"$work/check.out" 2>&1 ||
			{ fail "$out: check:"; sed 's/^/  /' "$work/check.out"; }
		"$tool" -o footer_key="$(hex $k)" cat "$out" summary | grep -q "^row groups: 3$" ||
			fail "$out: not three row groups"
	done
	# the corpus files DuckDB reads with the same keys (the header)
	if [ $have_corpus = 1 ]; then
		printf '%s\t%s\t%s\t%s\t%s\n' "$g/uniform_encryption.parquet.encrypted" \
			"-o key_file=$work/keys128.json" \
			"PRAGMA add_parquet_key('kf128', '$K128')" \
			", encryption_config = {footer_key: 'kf128'}" \
			boolean_field,int32_field,int96_field,float_field,double_field,ba_field,flba_field >>"$list"
		printf '%s\t%s\t%s\t%s\t%s\n' "$g/aes256/uniform_encryption.parquet.encrypted" \
			"-o key_file=$work/keys256.json" \
			"PRAGMA add_parquet_key('kf256', '$K256')" \
			", encryption_config = {footer_key: 'kf256'}" \
			boolean_field,int32_field,int96_field,float_field,double_field,ba_field,flba_field >>"$list"
		printf '%s\t%s\t\t\t%s\n' "$g/encrypt_columns_plaintext_footer.parquet.encrypted" \
			"-o key_file=$work/keys128.json" \
			boolean_field,int32_field,int64_field,int96_field,ba_field,flba_field >>"$list"
	fi
	# column by column against DuckDB (known differences: none)
	: >"$work/known.tsv"
	COLFS_DUCKDB_LIST=$list node "$dir/corpus-vs-duckdb.mjs" "$corpus" "$tool" \
		"$work/known.tsv" >"$work/duckdb.out" 2>&1 ||
		fail "against DuckDB: differences"
	sed 's/^/  /' "$work/duckdb.out"
	for want in "duck128.parquet: 5000 rows, 24/24 columns equal" \
		"duck192.parquet: 5000 rows, 24/24 columns equal" \
		"duck256.parquet: 5000 rows, 24/24 columns equal"; do
		grep -q "$want" "$work/duckdb.out" || fail "against DuckDB: no '$want'"
	done
	[ $have_corpus = 0 ] ||
	for want in "good/uniform_encryption.parquet.encrypted: 50 rows, 7/7 columns equal, 1 not compared" \
		"good/aes256/uniform_encryption.parquet.encrypted: 50 rows, 7/7 columns equal, 1 not compared" \
		"good/encrypt_columns_plaintext_footer.parquet.encrypted: 50 rows, 6/6 columns equal, 2 not compared"; do
		grep -q "$want" "$work/duckdb.out" || fail "against DuckDB: no '$want'"
	done
fi

# --- keys never shown ------------------------------------------------------------
if [ $have_corpus = 1 ]; then
	mnt=$(mktemp -d "$work/mnt.XXXXXX")
	pid=
	cleanup() {
		if mountpoint -q "$mnt" 2>/dev/null; then
			fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null
		fi
		[ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
		rmdir "$mnt" 2>/dev/null
	}
	trap cleanup EXIT
	# the footer key right, a column key wrong and one missing: messages
	# about keys are in errors
	"$colfs" -f -o size_index=off -o footer_key="$(hex $K128)" \
		-o "column_keys=double_field:$(hex $C128_2)" \
		"$corpus/parquet/good/encrypt_columns_and_footer.parquet.encrypted" "$mnt" \
		2>"$work/daemon.err" &
	pid=$!
	for _ in $(seq 500); do mountpoint -q "$mnt" && break; sleep 0.02; done
	if mountpoint -q "$mnt"; then
		tr '\0' ' ' </proc/$pid/cmdline >"$work/cmdline"
		for k in "$(hex $K128)" "$(hex $C128_2)" $K128 $C128_2; do
			grep -qi -- "$k" "$work/cmdline" && fail "the process title shows a key: $(cat "$work/cmdline")"
		done
		grep -q "footer_key=\*\*\*\*" "$work/cmdline" || fail "the process title: $(cat "$work/cmdline")"
		timeout 60 cat "$mnt/rows.jsonl" >/dev/null 2>&1   # problems found
		timeout 120 grep -r -l -a -i -F -e "$(hex $K128)" -e "$(hex $C128_2)" \
			-e $K128 -e $C128_2 "$mnt" >"$work/leaks" 2>/dev/null
		[ -s "$work/leaks" ] && fail "files of the mount hold a key: $(cat "$work/leaks")"
		grep -q "column 'double_field': the ColumnMetaData does not decrypt" "$mnt/errors" ||
			fail "the mount's errors: $(cat "$mnt/errors")"
		grep -q "column 'float_field' is encrypted with a column key that colfs was not given" "$mnt/errors" ||
			fail "the mount's errors: $(cat "$mnt/errors")"
	else
		fail "the encrypted file did not mount"
	fi
	cleanup
	pid=
	trap - EXIT
	grep -q -i -F -e "$(hex $K128)" -e "$(hex $C128_2)" -e $K128 -e $C128_2 "$work/daemon.err" &&
		fail "the daemon's messages show a key: $(cat "$work/daemon.err")"
fi

[ $fails = 0 ] && echo "crypt: all checks passed"
[ $fails = 0 ]

#!/bin/bash
# tests/remote/azure.sh: az:// and abfss:// end to end, against Azurite
# (the Azure Storage emulator, npm azurite 3.35.0, installed by
# azure-setup.sh) started on 127.0.0.1 on a free port with its data in a
# temporary directory and an account of the test's own (AZURITE_ACCOUNTS).
#
# Blobs are uploaded by requests signed with Shared Key by node's own HMAC
# (azure-put.js), then, with -o azure_endpoint=http://127.0.0.1:PORT/ACCOUNT:
#   - Shared Key (AZURE_STORAGE_ACCOUNT + AZURE_STORAGE_KEY): a mount of a
#     generated Parquet file and of a corpus file lists the names of the
#     local mount of the same file (plus `io`), every file has the same
#     bytes; the mount + ls + cat summary of a file larger than the first
#     request's 2 MiB takes 2 requests, of a small one 1 (`io`);
#   - a prefix (az://CONTAINER/ds/) mounts as a dataset equal, file by
#     file, to the mount of the local directory of the same files;
#   - a corpus Delta table uploaded under a prefix gives the local
#     table's summary and schema (its log listed and read over Azure);
#   - a SAS (AZURE_STORAGE_SAS_TOKEN), a connection string, and anonymous
#     access to a public container read the same bytes (colfs-tool cat);
#     the abfss:// name too;
#   - a wrong key is refused by the server: HTTP 403 named by colfs-tool
#     and colfs, nothing mounted;
#   - the key and the SAS signature appear in no message, no file of any
#     mount and not in the daemon's command line.
# Exit 0 pass, 1 fail, 77 skip (no node/npm registry, no FUSE).
#   azure.sh   (COLFS, COLFS_TOOL, COLFS_MKSAMPLE; CORPUS optional)
set -u
here=$(cd "$(dirname "$0")" && pwd)
T=30 # seconds any one command may take

. "$here/lib.sh"

need_programs COLFS COLFS_TOOL COLFS_MKSAMPLE
need_fuse
command -v python3 >/dev/null || skip "python3 is not installed"
sh "$here/azure-setup.sh" || exit $?

remote_work azure

# The account key: base64 (48 bytes), recognisable, so that a leak is
# found by grep.
ACCOUNT=colfstest
KEY="Q7XZcolfsAzureTestKey0123456789abcdefghijklmnopqrstuvwxyz$$"
KEY=${KEY:0:64}
while [ "${#KEY}" -lt 64 ]; do KEY="${KEY}A"; done
LEAK=Q7XZcolfsAzure

# ---- the server ----------------------------------------------------------
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
AZURITE_ACCOUNTS="$ACCOUNT:$KEY" \
	"$here/azure/node_modules/.bin/azurite-blob" --loose \
	--skipApiVersionCheck --disableTelemetry --blobHost 127.0.0.1 \
	--blobPort "$PORT" --location "$WORK/data" --silent \
	>"$WORK/azurite.log" 2>&1 &
SERVER=$!
ENDPOINT="http://127.0.0.1:$PORT/$ACCOUNT"
for _ in $(seq 1 150); do
	grep -qs "successfully listens" "$WORK/azurite.log" && break
	kill -0 "$SERVER" 2>/dev/null ||
		fail "azurite did not start: $(tail -3 "$WORK/azurite.log")"
	sleep 0.1
done
grep -qs "successfully listens" "$WORK/azurite.log" ||
	fail "azurite did not start within 15 s"

export AZ_ENDPOINT=$ENDPOINT AZ_ACCOUNT=$ACCOUNT AZ_KEY=$KEY
azput() { timeout "$T" node "$here/azure-put.js" "$@" || fail "azure-put.js $* failed"; }

# A bad signature must be refused, or the test proves nothing.
AZ_KEY="AAAA${KEY:4}" timeout "$T" node "$here/azure-put.js" container nope \
	2>"$WORK/put.err" && fail "Azurite accepted a bad signature"
grep -q 'HTTP 403' "$WORK/put.err" ||
	fail "Azurite refused a bad signature otherwise than by 403: $(cat "$WORK/put.err")"

# ---- the blobs -------------------------------------------------------------
make_samples
CORPUS_FILE=${CORPUS:-}/parquet/good/alltypes_plain.snappy.parquet
[ -f "$CORPUS_FILE" ] || CORPUS_FILE=

azput container priv
azput container pub public
azput blob "priv/data/sample.parquet" "$WORK/sample.parquet"
azput blob "priv/data/big.parquet" "$WORK/big.parquet"
azput blob "priv/ds/a.parquet" "$WORK/ds/a.parquet"
azput blob "priv/ds/b.parquet" "$WORK/ds/b.parquet"
azput blob "pub/with space+plus.parquet" "$WORK/sample.parquet"
[ -n "$CORPUS_FILE" ] && azput blob "priv/corpus/c.parquet" "$CORPUS_FILE"
SAS=$(azput sas)
SIG=${SAS##*sig=}
[ ${#SIG} -gt 20 ] || fail "no SAS signature"
LEAKS=(-e "$LEAK" -e "$SIG")

export AZURE_STORAGE_ACCOUNT=$ACCOUNT AZURE_STORAGE_KEY=$KEY
unset AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_CONNECTION_STRING

# ---- colfs-tool: every way of signing -------------------------------------
tool_same() { # LOCAL NAME WHAT [colfs-tool options]
	local local_=$1 name=$2 what=$3
	shift 3
	timeout "$T" "$COLFS_TOOL" cat "$local_" schema layout rows.jsonl \
		columns/id >"$WORK/local.out" || fail "colfs-tool cat $local_ failed"
	timeout "$T" "$COLFS_TOOL" "$@" cat "$name" schema layout rows.jsonl \
		columns/id >"$WORK/remote.out" 2>>"$WORK/stderr.all" ||
		fail "$what: colfs-tool cat '$name' failed: $(tail -1 "$WORK/stderr.all")"
	cmp -s "$WORK/local.out" "$WORK/remote.out" ||
		fail "$what: colfs-tool cat '$name' differs from the local file"
	echo "ok: $what: colfs-tool cat of '$name' equals the local file's"
}
EP=(-o "azure_endpoint=$ENDPOINT")
tool_same "$WORK/sample.parquet" az://priv/data/sample.parquet "Shared Key" "${EP[@]}"
(
	unset AZURE_STORAGE_KEY
	export AZURE_STORAGE_SAS_TOKEN="?$SAS"
	tool_same "$WORK/sample.parquet" az://priv/data/sample.parquet "SAS" "${EP[@]}"
) || exit 1
(
	unset AZURE_STORAGE_KEY AZURE_STORAGE_ACCOUNT
	export AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=http;AccountName=$ACCOUNT;AccountKey=$KEY;BlobEndpoint=$ENDPOINT;"
	tool_same "$WORK/sample.parquet" az://priv/data/sample.parquet "connection string"
) || exit 1
(
	unset AZURE_STORAGE_KEY
	tool_same "$WORK/sample.parquet" "az://pub/with space+plus.parquet" "anonymous, public container" "${EP[@]}"
	tool_same "$WORK/sample.parquet" "abfss://pub@$ACCOUNT.dfs.core.windows.net/with space+plus.parquet" "abfss://, anonymous" "${EP[@]}"
) || exit 1

# ---- mounts ----------------------------------------------------------------
mount_same "$WORK/sample.parquet" az://priv/data/sample.parquet
if [ -n "$CORPUS_FILE" ]; then
	mount_same "$CORPUS_FILE" az://priv/corpus/c.parquet
else
	echo "SKIP (part): no corpus at ${CORPUS:-<unset>}/parquet/good"
fi
mount_same "$WORK/ds/" az://priv/ds/

# A Delta Lake table under a prefix (its log listed and read over Azure):
# the summary (but for the line naming it) and the schema of the local
# table's.
DELTA=${CORPUS:-}/delta/simple_table_with_checkpoint
if [ -n "${CORPUS:-}" ] && [ -d "$DELTA" ]; then
	DELTA=$(realpath "$DELTA")
	while IFS= read -r f; do
		azput blob "priv/delta/$f" "$DELTA/$f"
	done < <(cd "$DELTA" && find . -type f | sed 's|^\./||')
	delta_same "$DELTA" az://priv/delta/ Azure
else
	echo "SKIP (part): no Delta corpus at ${CORPUS:-<unset>}/delta"
fi

requests az://priv/data/sample.parquet 1
requests az://priv/data/big.parquet 2

# ---- a wrong key -------------------------------------------------------------
refused() { # WHAT (the environment set by the caller)
	refused_object "$1" az://priv/data/sample.parquet 'HTTP 403 (forbidden)' 403
	refused_listing "$1" az://priv/ds/ 'HTTP 403'
	echo "ok: $1: refused with $(head -1 "$WORK/refused.err")"
}
(
	export AZURE_STORAGE_KEY="AAAA${KEY:4}"
	refused "a wrong key"
) || exit 1

# ---- a key written into the name is refused, not echoed -------------------
for name in "az://$ACCOUNT:$KEY@$ACCOUNT.blob.core.windows.net/priv/x" \
	"abfss://$ACCOUNT:$KEY@$ACCOUNT.dfs.core.windows.net/x" \
	"az://priv/x?sig=$SIG"; do
	timeout "$T" "$COLFS_TOOL" "${EP[@]}" cat "$name" summary \
		>/dev/null 2>"$WORK/refused.err" && fail "a name with a secret was read"
	cat "$WORK/refused.err" >>"$WORK/stderr.all"
	grep -q 'not supported\|not a file system name' "$WORK/refused.err" ||
		fail "a name with a secret: $(cat "$WORK/refused.err")"
done
echo "ok: names holding a key or a SAS are refused"

# ---- no message holds a secret --------------------------------------------
messages_clean
echo "ok: no message, mount file or command line holds the key or the SAS"
echo "PASS"

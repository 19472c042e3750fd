# tests/iceberg/puffin.py: writes Iceberg Puffin files holding deletion
# vectors (the Iceberg Puffin spec, blob type deletion-vector-v1), for the
# deletes tests (deletes-fixtures.py) and the table writer (make_table.py).
# Written from the specs, not from colfs's reader: the 32-bit Roaring
# bitmaps in the portable serialization without run containers (cookie
# 12346, container keys and cardinalities, offsets, then array containers
# of up to 4096 sorted 16-bit values or bitmap containers of 1024 64-bit
# words), gathered by their high 32 bits as the 64-bit portable format.
import json
import struct
import subprocess
import tempfile
import zlib

PUFFIN_MAGIC = b"PFA1"
DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])


def roaring32(values):
    """The portable serialization of a 32-bit Roaring bitmap."""
    conts = {}
    for v in sorted(set(values)):
        conts.setdefault(v >> 16, []).append(v & 0xFFFF)
    keys = sorted(conts)
    head = struct.pack("<II", 12346, len(keys))
    for k in keys:
        head += struct.pack("<HH", k, len(conts[k]) - 1)
    bodies = []
    for k in keys:
        lows = conts[k]
        if len(lows) <= 4096:
            bodies.append(b"".join(struct.pack("<H", x) for x in lows))
        else:
            words = [0] * 1024
            for x in lows:
                words[x >> 6] |= 1 << (x & 63)
            bodies.append(b"".join(struct.pack("<Q", w) for w in words))
    at = len(head) + 4 * len(keys)
    offsets = b""
    for b in bodies:
        offsets += struct.pack("<I", at)
        at += len(b)
    return head + offsets + b"".join(bodies)


def vector64(positions):
    """The 64-bit portable serialization: a count of 32-bit keys, then
    each key and its 32-bit bitmap."""
    highs = {}
    for p in sorted(set(positions)):
        highs.setdefault(p >> 32, []).append(p & 0xFFFFFFFF)
    out = struct.pack("<Q", len(highs))
    for h in sorted(highs):
        out += struct.pack("<I", h) + roaring32(highs[h])
    return out


def dv_blob(positions, crc_delta=0):
    """A deletion-vector-v1 blob; crc_delta != 0 writes a wrong CRC."""
    body = DV_MAGIC + vector64(positions)
    crc = (zlib.crc32(body) + crc_delta) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + body + struct.pack(">I", crc)


def puffin(dvs, footer_codec=None, snapshot_id=-1, seq=-1, crc_delta=0):
    """A Puffin file of one deletion vector per (data file path, rows) in
    `dvs`.  Returns (bytes, [(offset, length, cardinality)]).  A deletion
    vector's blob gives snapshot id and sequence number -1 (the spec: not
    known when it is written; the manifest entry's are inherited)."""
    out = bytearray(PUFFIN_MAGIC)
    blobs, where = [], []
    for path, rows in dvs:
        b = dv_blob(rows, crc_delta)
        blobs.append({
            "type": "deletion-vector-v1",
            "fields": [2147483645],
            "snapshot-id": snapshot_id,
            "sequence-number": seq,
            "offset": len(out),
            "length": len(b),
            "properties": {"referenced-data-file": path,
                           "cardinality": str(len(set(rows)))},
        })
        where.append((len(out), len(b), len(set(rows))))
        out += b
    payload = json.dumps({"blobs": blobs,
                          "properties": {"created-by": "colfs tests"}}).encode()
    flags = 0
    if footer_codec == "lz4":
        # from a file, so that the frame's header holds its content size
        # (the spec's form); "lz4-nosize": from a pipe, without it
        with tempfile.NamedTemporaryFile() as t:
            t.write(payload)
            t.flush()
            payload = subprocess.run(["lz4", "-q", "-c", "--content-size",
                                      t.name], stdout=subprocess.PIPE,
                                     check=True).stdout
        flags = 1
    elif footer_codec == "lz4-nosize":
        payload = subprocess.run(["lz4", "-q", "-c"], input=payload,
                                 stdout=subprocess.PIPE, check=True).stdout
        flags = 1
    elif footer_codec == "zstd":
        import zstandard
        payload = zstandard.ZstdCompressor(write_content_size=True).compress(payload)
        flags = 1
    out += PUFFIN_MAGIC + payload + struct.pack("<II", len(payload), flags)
    out += PUFFIN_MAGIC
    return bytes(out), where

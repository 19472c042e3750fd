#!/usr/bin/python3
"""tests/avro: the core's Avro reader (formats/core/avro.c, through
avro-dump) against Debian's python3-avro.

    check.py AVRO_DUMP WORKDIR CORPUS [--seeds DIR]

1. Files written by python3-avro, every Avro type and the logical types
   Iceberg uses, in each codec (null, deflate, snappy, zstandard), with
   several blocks: read back by avro-dump and compared value by value
   with python3-avro's own reading (converted to colfs's JSON form, see
   avro.h), and their fields read by Iceberg field id.
2. Every *.avro under CORPUS/iceberg (real manifest lists and manifests)
   compared the same way (skipped with a message when absent).
3. Crafted damaged files: each must fail with its status at its offset,
   after the records that come before the damage.
--seeds DIR writes the fixtures and damaged files there (the fuzz
target's seed corpus) and stops.

Runs under /usr/bin/python3 (Debian's python3-avro, python3-snappy,
python3-zstandard: tools/bootstrap.sh's test tools); exits 77 without
them.
"""
import datetime
import decimal
import json
import math
import os
import struct
import subprocess
import sys
import uuid

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from colfs_text import blob_text  # noqa: E402

try:
    import avro.datafile
    import avro.io
    import avro.schema
    import snappy  # noqa: F401  (the snappy codec)
    import zstandard  # noqa: F401  (the zstandard codec)
except ImportError as e:
    print(f"SKIP: python3-avro with its codecs is not installed ({e}); "
          "COLFS_WITH_TEST_TOOLS=1 tools/bootstrap.sh installs it")
    sys.exit(77)

DUMP, WORK, CORPUS = sys.argv[1], sys.argv[2], sys.argv[3]
SEEDS = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--seeds" else None
os.makedirs(WORK, exist_ok=True)
failures = []
checked = 0


def fail(what):
    failures.append(what)
    print("FAIL:", what)


# --- python3-avro's values in colfs's JSON form ---------------------------

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


class Names:
    def __init__(self):
        self.named = {}

    def full(self, name, ns):
        return name if "." in name or not ns else ns + "." + name


def norm_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def matches(s, v, names, ns):
    """Does python value v belong to (non-union) schema s?"""
    t, s, ns = resolve(s, names, ns)
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t in ("int", "long"):
        return isinstance(v, (int, datetime.date, datetime.time)) and not isinstance(v, bool)
    if t in ("float", "double"):
        return isinstance(v, float)
    if t in ("bytes", "fixed"):
        return isinstance(v, (bytes, decimal.Decimal))
    if t == "string":
        return isinstance(v, str)
    if t == "enum":
        return isinstance(v, str) and v in s["symbols"]
    if t == "array":
        return isinstance(v, list)
    if t == "record":
        return isinstance(v, dict) and set(v) == {f["name"] for f in s["fields"]}
    if t == "map":
        return isinstance(v, dict)
    return False


def resolve(s, names, ns):
    """(type name, schema object or None, namespace) of s."""
    if isinstance(s, str):
        if s in ("null", "boolean", "int", "long", "float", "double",
                 "bytes", "string"):
            return s, {}, ns
        full = names.full(s, ns)
        d = names.named.get(full) or names.named.get(s)
        return resolve(d, names, ns)
    if isinstance(s, list):
        return "union", s, ns
    t = s["type"]
    if not isinstance(t, str):
        return resolve(t, names, ns)
    if t in ("record", "error", "enum", "fixed"):
        full = names.full(s["name"], s.get("namespace", ns))
        names.named.setdefault(full, s)
        if t == "error":
            t = "record"
        ns = full.rsplit(".", 1)[0] if "." in full else None
        return t, s, ns
    if t in ("array", "map", "null", "boolean", "int", "long", "float",
             "double", "bytes", "string"):
        return t, s, ns
    return resolve(t, names, ns)


def conv(s, v, names, ns=None):
    t, sd, ns = resolve(s, names, ns)
    lt = sd.get("logicalType") if isinstance(sd, dict) else None
    if t == "union":
        for b in sd:
            if matches(b, v, names, ns):
                return conv(b, v, names, ns)
        raise ValueError(f"no branch of {sd} for {v!r}")
    if t in ("float", "double"):
        return norm_float(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, datetime.datetime):
        us = (v - EPOCH) // datetime.timedelta(microseconds=1)
        return us // 1000 if lt == "timestamp-millis" else us
    if isinstance(v, datetime.date):
        return (v - datetime.date(1970, 1, 1)).days
    if isinstance(v, datetime.time):
        us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
        return us // 1000 if lt == "time-millis" else us
    if isinstance(v, bytes):
        if t == "fixed" and lt == "uuid" and len(v) == 16:
            return str(uuid.UUID(bytes=v))
        return blob_text(v)
    if t == "record":
        # names defined inside a record are seen after it too
        return {f["name"]: conv(f["type"], v[f["name"]], names, ns)
                for f in sd["fields"]}
    if t == "array":
        return [conv(sd["items"], x, names, ns) for x in v]
    if t == "map":
        return {k: conv(sd["values"], x, names, ns) for k, x in v.items()}
    return v


def python_read(path):
    """(writer schema JSON, records) as python3-avro reads them."""
    with open(path, "rb") as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        sch = json.loads(r.get_meta("avro.schema").decode())
        recs = list(r)
        r.close()
    return sch, recs


def dump(path, *args):
    p = subprocess.run([DUMP, *args, path], capture_output=True, timeout=60)
    lines = p.stdout.decode("utf-8", "surrogateescape").splitlines()
    err = None
    if lines and lines[-1].startswith("ERROR "):
        err = lines.pop()
    if p.returncode not in (0, 1) or (p.returncode == 1) != (err is not None):
        fail(f"{path}: avro-dump exited {p.returncode}: {p.stderr.decode()[:300]}")
    return [json.loads(x) for x in lines], err


def compare(path, *args):
    global checked
    sch, recs = python_read(path)
    names = Names()
    want = [conv(sch, r, names) for r in recs]
    got, err = dump(path, *args)
    if err:
        fail(f"{path}: {err}")
        return
    if len(got) != len(want):
        fail(f"{path}: {len(got)} records, python3-avro reads {len(want)}")
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail(f"{path}: record {i}: colfs {json.dumps(g)[:400]} "
                 f"!= python3-avro {json.dumps(w)[:400]}")
            return
    # the same fields by Iceberg field id
    t, sd, _ = resolve(sch, names, None)
    if t == "record" and any("field-id" in f for f in sd["fields"]):
        got_ids, err = dump(path, "--ids")
        want_ids = [{str(f["field-id"]): w[f["name"]] for f in sd["fields"]
                     if "field-id" in f} for w in want]
        if err or got_ids != want_ids:
            fail(f"{path}: fields by id differ ({err})")
            return
    checked += 1


# --- fixtures --------------------------------------------------------------

SCHEMA = {
    "type": "record", "name": "All", "namespace": "colfs.test",
    "doc": "every Avro type",
    "fields": [
        {"name": "n", "type": "null", "field-id": 1},
        {"name": "b", "type": "boolean", "field-id": 2},
        {"name": "i", "type": "int", "field-id": 3},
        {"name": "l", "type": "long", "field-id": 4},
        {"name": "f", "type": "float", "field-id": 5},
        {"name": "d", "type": "double", "field-id": 6},
        {"name": "by", "type": "bytes", "field-id": 7},
        {"name": "s", "type": "string", "field-id": 8},
        {"name": "e", "type": {"type": "enum", "name": "Color",
                               "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "a", "type": {"type": "array", "items": "long"}, "field-id": 10},
        {"name": "m", "type": {"type": "map", "values": "string"}},
        {"name": "u", "type": ["null", "string", "long", "Color"], "field-id": 12},
        {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
        {"name": "fx2", "type": "F4"},
        {"name": "part", "type": {"type": "record", "name": "r102", "fields": [
            {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "field-id": 1000},
            {"name": "cat", "type": ["null", "string"], "field-id": 1001}]},
         "field-id": 102},
        {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal",
                                 "precision": 38, "scale": 4}},
        {"name": "decf", "type": {"type": "fixed", "name": "D9", "size": 9,
                                  "logicalType": "decimal", "precision": 20, "scale": 2}},
        {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "idf", "type": {"type": "fixed", "name": "U16", "size": 16,
                                 "logicalType": "uuid"}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tus", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsus", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "tsns", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
        {"name": "list", "type": ["null", {"type": "record", "name": "Node", "fields": [
            {"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}]},
        {"name": "nest", "type": {"type": "array", "items": {
            "type": "map", "values": ["null", {"type": "array", "items": "double"}]}}},
    ]}

UTC = datetime.timezone.utc


def record(k):
    node = None
    for v in range(k % 5):
        node = {"v": v - 2, "next": node}
    return {
        "n": None, "b": k % 2 == 0, "i": [0, -1, 2**31 - 1, -2**31, 42][k % 5] + (k if k % 5 == 4 else 0),
        "l": [0, -2**63, 2**63 - 1, 1 << 40, -7][k % 5] + (k if k % 5 in (0, 3, 4) else 0),
        "f": [0.0, -1.5, 3.4028234663852886e38, 1e-45, float("inf"), float("nan")][k % 6],
        "d": [0.1, -0.0, 1.7976931348623157e308, 5e-324, float("-inf"), math.pi][k % 6] * (1 if k % 6 == 4 else 1),
        "by": bytes((k * 7 + j) % 256 for j in range(k % 11)) + b"\\'\"\x7f",
        "s": ["", "plain", "tab\there \\ \"q\"", "é ünïcödé ✓ 日本", "line\nbreak\r"][k % 5] + str(k),
        "e": ["RED", "GREEN", "BLUE"][k % 3],
        "a": [k * j - 5 for j in range(k % 4)],
        "m": {f"k{j}": "v" * j for j in range(k % 3)},
        "u": [None, f"s{k}", k * 1000003, "BLUE"][k % 4] if k % 4 != 3 else None,
        "fx": bytes([k % 256, 0, 255, 92]), "fx2": b"abcd",
        "part": {"day": None if k % 3 == 0 else datetime.date(2024, 1, 1) + datetime.timedelta(days=k),
                 "cat": None if k % 2 else f"c{k % 4}"},
        "dec": decimal.Decimal(k * 12345 - 99999).scaleb(-4) if k % 7 else decimal.Decimal("-99999999999999999999999999999999.9999"),
        "decf": decimal.Decimal(-k * 1000001).scaleb(-2),
        "id": str(uuid.UUID(int=k * 0x1234567890abcdef1234567 % (1 << 128))),
        "idf": uuid.UUID(int=(k + 1) * 0xfedcba9876543210fedcba98765 % (1 << 128)).bytes,
        "date": datetime.date(1970, 1, 1) + datetime.timedelta(days=k * 397 - 20000),
        "tms": datetime.time(k % 24, k % 60, (k * 7) % 60, (k * 1000) % 1000000),
        "tus": datetime.time(23, 59, 59, 999999 - k),
        "tsms": datetime.datetime(2001, 2, 3, 4, 5, 6, (k * 1000) % 1000000, tzinfo=UTC),
        "tsus": datetime.datetime(1969, 12, 31, 23, 59, 59, k, tzinfo=UTC),
        "tsns": k * 1000000007 - 5,
        "list": node,
        "nest": [{"x": None, "y": [float(k), -0.25]}] * (k % 3),
    }


def write(path, codec, n, per_block, schema=SCHEMA, rec=record):
    sch = avro.schema.parse(json.dumps(schema))
    with open(path, "wb") as f:
        w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), sch, codec=codec)
        for k in range(n):
            w.append(rec(k))
            if (k + 1) % per_block == 0:
                w.sync()
        w.close()


def zz(v):
    u = (v << 1) ^ (v >> 63)
    u &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = u & 0x7F
        u >>= 7
        if u:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def header(schema, codec=b"null", sync=b"S" * 16, extra=b""):
    s = json.dumps(schema).encode() if not isinstance(schema, bytes) else schema
    out = b"Obj\x01" + zz(2) + zz(11) + b"avro.schema" + zz(len(s)) + s
    out += zz(10) + b"avro.codec" + zz(len(codec)) + codec + extra + zz(0)
    return out + sync


def block(count, data, sync=b"S" * 16):
    return zz(count) + zz(len(data)) + data + sync


def blocks(path):
    """[(block offset, record count, data offset, size)] of a container."""
    data = open(path, "rb").read()

    def long_at(p):
        u, shift = 0, 0
        while True:
            b = data[p]
            p += 1
            u |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return (u >> 1) ^ -(u & 1), p
    # the header: magic, the metadata map's blocks, the sync marker
    pos = 4
    while True:
        c, pos = long_at(pos)
        if c == 0:
            break
        if c < 0:
            c = -c
            _, pos = long_at(pos)
        for _ in range(2 * c):
            n, pos = long_at(pos)
            pos += n
    pos += 16
    out = []
    while pos < len(data):
        c, p = long_at(pos)
        s, p = long_at(p)
        out.append((pos, c, p, s))
        pos = p + s + 16
    return out


def expect_error(path, status, offset, records=None, args=()):
    global checked
    got, err = dump(path, *args)
    if not err:
        fail(f"{path}: read without an error ({len(got)} records)")
        return
    parts = err.split(" ", 3)
    if parts[1] != status or (offset is not None and int(parts[2]) != offset):
        fail(f"{path}: {err!r}, expected {status} at {offset}")
        return
    if records is not None and len(got) != records:
        fail(f"{path}: {len(got)} records before the damage, expected {records}")
        return
    print(f"ok {os.path.basename(path)}: {err}")
    checked += 1


def fixtures(where):
    made = []
    for codec in ("null", "deflate", "snappy", "zstandard"):
        p = os.path.join(where, f"all-{codec}.avro")
        write(p, codec, 60, 25)
        made.append(p)
    # the same values, one record a block, and an empty file
    p = os.path.join(where, "one-per-block.avro")
    write(p, "deflate", 7, 1)
    made.append(p)
    p = os.path.join(where, "empty.avro")
    write(p, "null", 0, 1)
    made.append(p)
    return made


def damaged(where, good):
    """Damaged copies of `good` (null codec, blocks of 25): name ->
    (bytes, status, offset, records before, avro-dump args)."""
    data = open(good, "rb").read()
    bl = blocks(good)
    b1 = bl[1]
    sync_at = b1[2] + b1[3]
    out = {}
    out["truncated-block"] = (data[:b1[2] + b1[3] // 2], "truncated", b1[0], 25, ())
    out["truncated-sync"] = (data[:sync_at + 5], "truncated", b1[0], 25, ())
    out["truncated-header"] = (data[:bl[0][0] - 20], "truncated", None, 0, ())
    bad = bytearray(data)
    bad[sync_at + 3] ^= 0xFF
    out["bad-sync"] = (bytes(bad), "corrupt", sync_at, 25, ())
    bad = bytearray(data)
    bad[0] = ord("X")
    out["bad-magic"] = (bytes(bad), "corrupt", 0, 0, ())
    # a block count and a block size that are negative; a count too large
    rest = data[b1[0]:]
    head = data[:b1[0]]
    out["negative-count"] = (head + zz(-3) + rest[len(zz(b1[1])):], "corrupt", b1[0], 25, ())
    out["negative-size"] = (head + zz(b1[1]) + zz(-100) + data[b1[2]:], "corrupt", b1[0], 25, ())
    out["huge-count"] = (head + zz(1 << 60) + data[b1[0] + len(zz(b1[1])):], "corrupt", b1[0], 25, ())
    out["huge-size"] = (head + zz(b1[1]) + zz(1 << 62) + data[b1[2]:], "truncated", b1[0], 25, ())
    # values: a string of negative length, an array count past the bytes
    small = {"type": "record", "name": "R", "fields": [
        {"name": "s", "type": "string"}, {"name": "a", "type": {"type": "array", "items": "int"}}]}
    h = header(small)
    good_rec = zz(2) + b"ok" + zz(1) + zz(5) + zz(0)
    rec = zz(-5) + b"xx"
    out["negative-length"] = (h + block(1, good_rec) + block(1, rec), "corrupt",
                              len(h) + len(block(1, good_rec)) + 2, 1, ())
    rec = zz(0) + zz(1 << 40) + zz(1)
    out["huge-array"] = (h + block(1, rec), "truncated", len(h) + 2 + 1, 0, ())
    rec = zz(0) + zz(-(1 << 40)) + zz(-1)
    out["negative-array-size"] = (h + block(1, rec), "corrupt", len(h) + 2 + 1 + len(zz(-(1 << 40))), 0, ())
    out["huge-meta"] = (b"Obj\x01" + zz(1 << 50) + b"\x00" * 40, "truncated", 4, 0, ())
    out["bad-codec"] = (header(small, b"lzma") + block(1, good_rec), "unsupported", 0, 0, ())
    out["bad-schema"] = (header(b"{\"type\": \"record\", "), "corrupt", None, 0, ())
    out["unknown-type"] = (header({"type": "record", "name": "R", "fields": [
        {"name": "x", "type": "Nope"}]}), "corrupt", None, 0, ())
    deep = "int"
    for _ in range(100):
        deep = {"type": "array", "items": deep}
    out["deep-schema"] = (header(deep), "overflow", None, 0, ())
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "next", "type": ["null", "Node"]}]}
    rec = zz(1) * 100 + zz(0)
    hn = header(node)
    out["deep-values"] = (hn + block(1, rec), "overflow", None, 0, ())
    # bytes left after a block's records; a boolean that is not 0 or 1
    out["bytes-after"] = (h + block(1, good_rec + b"\x00\x00"), "corrupt",
                          len(h) + 2 + len(good_rec), 1, ())
    hb = header({"type": "record", "name": "B", "fields": [{"name": "b", "type": "boolean"}]})
    out["bad-boolean"] = (hb + block(2, b"\x01\x07"), "corrupt", len(hb) + 3, 1, ())
    # snappy: a CRC-32 that does not match; a declared size past max_alloc
    sp = os.path.join(where, "all-snappy.avro")
    sdata = open(sp, "rb").read()
    sb = blocks(sp)[0]
    bad = bytearray(sdata)
    bad[sb[2] + sb[3] - 1] ^= 0x01
    out["snappy-crc"] = (bytes(bad), "corrupt", sb[2] + sb[3] - 4, 0, ())
    # a declared (snappy, zstd) or inflated (deflate) size past max_alloc:
    # 40,000 bytes that compress to little, read with max_alloc 8192
    big = {"type": "record", "name": "Big", "fields": [{"name": "s", "type": "string"}]}
    for codec in ("snappy", "zstandard", "deflate"):
        p = os.path.join(where, f"big-{codec}.avro")
        write(p, codec, 2, 2, big, lambda k: {"s": "a" * 20000})
        b0 = blocks(p)[0]
        out[f"{codec}-max-alloc"] = (open(p, "rb").read(), "overflow", b0[2], 0,
                                     ("--max-alloc", "8192"))
    return out


def lazy(where):
    """A manifest of 10,000 entries in one block whose last entry is
    damaged: its first entry reads without decoding the others."""
    global checked
    sch = {"type": "record", "name": "E", "fields": [
        {"name": "status", "type": "int", "field-id": 0},
        {"name": "path", "type": "string", "field-id": 100}]}
    rec = b"".join(zz(k % 3) + zz(13) + b"file-%05d.pq" % k for k in range(9999))
    rec += zz(1) + zz(-1)
    h = header(sch)
    p = os.path.join(where, "lazy-10000.avro")
    with open(p, "wb") as f:
        f.write(h + block(10000, rec))
    got, err = dump(p, "--limit", "1", "--ids")
    if err or got != [{"0": 0, "100": "file-00000.pq"}]:
        fail(f"{p}: the first of 10,000 entries: {got} {err}")
    else:
        checked += 1
    expect_error(p, "corrupt", len(h) + len(zz(10000)) + len(zz(len(rec))) + len(rec) - 1,
                 9999)


def main():
    where = SEEDS or WORK
    os.makedirs(where, exist_ok=True)
    made = fixtures(where)
    bad = damaged(where, os.path.join(where, "all-null.avro"))
    for name, (data, *_rest) in bad.items():
        with open(os.path.join(where, f"damaged-{name}.avro"), "wb") as f:
            f.write(data)
    if SEEDS:
        return 0
    lazy(where)
    for p in made:
        compare(p)
    # the same through colfs_avro_open_memory
    compare(os.path.join(where, "all-zstandard.avro"), "--memory")
    for name, (data, status, offset, recs, args) in bad.items():
        expect_error(os.path.join(where, f"damaged-{name}.avro"), status,
                     offset, recs, args)
    ice = os.path.join(CORPUS, "iceberg")
    if not os.path.isdir(ice):
        print(f"SKIP corpus part: {ice} is absent (the shared corpus is not here)")
    else:
        n = 0
        for root, _dirs, files in sorted(os.walk(ice)):
            for fn in sorted(files):
                if fn.endswith(".avro"):
                    compare(os.path.join(root, fn))
                    n += 1
        print(f"corpus: {n} Avro files of {ice} compared")
    print(f"{checked} checks passed, {len(failures)} failed")
    return 1 if failures else 0


sys.exit(main())

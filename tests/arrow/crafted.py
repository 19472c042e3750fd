#!/usr/bin/env python3
"""Arrow IPC files built here, byte by byte, for the types and features
the npm apache-arrow writer and the corpus do not have: binary and utf8
views (inline and in a variadic buffer), list views (32- and 64-bit),
run-end encoding, decimal32/64/256, month_day_nano intervals below a
microsecond, large lists, the arrow.uuid extension, dictionary deltas,
and a dictionary replaced in the file format (refused by name).

usage: crafted.py COLFS_TOOL

The flatbuffers are written by the small forward builder below (every
offset points forward, as the format allows); the expected rows are
written by hand from the values stored.
"""
import os
import struct
import subprocess
import sys
import tempfile

TOOL = sys.argv[1]


# --- a forward flatbuffer builder ------------------------------------------
class T:
    """A table: fields (id, fmt, value); fmt a struct code or 'o' for an
    offset to another object."""

    def __init__(self, *fields):
        self.fields = [f for f in fields if f[2] is not None]


class S:
    def __init__(self, s):
        self.b = s.encode() if isinstance(s, str) else s


class V:
    """A vector of offsets to objects."""

    def __init__(self, items):
        self.items = items


class VB:
    """A vector of structs or scalars: raw bytes, `n` elements."""

    def __init__(self, raw, n):
        self.raw, self.n = raw, n


def align(buf, a, rem=0):
    while len(buf) % a != rem:
        buf.append(0)


def place(buf, o):
    if isinstance(o, S):
        align(buf, 4)
        pos = len(buf)
        buf += struct.pack("<I", len(o.b)) + o.b + b"\0"
        return pos
    if isinstance(o, VB):
        align(buf, 8, 4)
        pos = len(buf)
        buf += struct.pack("<I", o.n) + o.raw
        return pos
    if isinstance(o, V):
        align(buf, 4)
        pos = len(buf)
        buf += struct.pack("<I", len(o.items)) + b"\0" * 4 * len(o.items)
        for k, it in enumerate(o.items):
            at = pos + 4 + 4 * k
            tgt = place(buf, it)
            buf[at:at + 4] = struct.pack("<I", tgt - at)
        return pos
    # a table: vtable, then the table
    sized = []
    for fid, fmt, val in o.fields:
        size = 4 if fmt == "o" else struct.calcsize("<" + fmt)
        sized.append((size, fid, fmt, val))
    sized.sort(key=lambda x: -x[0])
    nf = max([f[0] for f in o.fields], default=-1) + 1
    offs, cur = {}, 4
    for size, fid, fmt, val in sized:
        offs[fid] = cur
        cur += size
    tlen = cur
    align(buf, 2)
    vt = len(buf)
    buf += struct.pack("<HH", 4 + 2 * nf, tlen)
    for i in range(nf):
        buf += struct.pack("<H", offs.get(i, 0))
    align(buf, 8, 4)
    pos = len(buf)
    buf += struct.pack("<i", pos - vt) + b"\0" * (tlen - 4)
    later = []
    for size, fid, fmt, val in sized:
        at = pos + offs[fid]
        if fmt == "o":
            later.append((at, val))
        else:
            buf[at:at + size] = struct.pack("<" + fmt, val)
    for at, val in later:
        tgt = place(buf, val)
        buf[at:at + 4] = struct.pack("<I", tgt - at)
    return pos


def fb(root):
    buf = bytearray(8)
    pos = place(buf, root)
    buf[0:4] = struct.pack("<I", pos)
    align(buf, 8)
    return bytes(buf)


# --- Arrow metadata -----------------------------------------------------------
# Type union ids
NULL, INT, FLOAT, BINARY, UTF8, BOOL, DECIMAL, DATE, TIME, TIMESTAMP, \
    INTERVAL, LIST, STRUCT, UNION, FSB, FSL, MAP, DURATION, LBINARY, LUTF8, \
    LLIST, REE, BINVIEW, UTF8VIEW, LISTVIEW, LLISTVIEW = range(1, 27)


def field(name, tid, ttable, children=(), dictionary=None, md=None):
    return T((0, "o", S(name)), (1, "?", True), (2, "B", tid),
             (3, "o", ttable), (4, "o", dictionary),
             (5, "o", V(list(children))),
             (6, "o", V([T((0, "o", S(k)), (1, "o", S(v)))
                         for k, v in (md or {}).items()]) if md else None))


def int_t(bits, signed=True):
    return T((0, "i", bits), (1, "?", signed))


def schema(fields):
    return T((0, "h", 0), (1, "o", V(fields)))


class Body:
    def __init__(self):
        self.raw = bytearray()
        self.bufs = []
        self.nodes = []

    def buf(self, b):
        align(self.raw, 8)
        self.bufs.append((len(self.raw), len(b)))
        self.raw += b
        align(self.raw, 8)

    def node(self, length, nulls):
        self.nodes.append((length, nulls))


def batch_table(length, body, variadic=None):
    return T((0, "q", length),
             (1, "o", VB(b"".join(struct.pack("<qq", *n) for n in body.nodes),
                         len(body.nodes))),
             (2, "o", VB(b"".join(struct.pack("<qq", *b) for b in body.bufs),
                         len(body.bufs))),
             (4, "o", VB(b"".join(struct.pack("<q", c) for c in variadic),
                         len(variadic)) if variadic else None))


def message(htype, header, body):
    meta = fb(T((0, "h", 4), (1, "B", htype), (2, "o", header),
                (3, "q", len(body))))
    return b"\xff\xff\xff\xff" + struct.pack("<i", len(meta)) + meta + body


def validity(valid):
    b = bytearray((len(valid) + 7) // 8)
    for i, v in enumerate(valid):
        if v:
            b[i >> 3] |= 1 << (i & 7)
    return bytes(b)


def write(path, sch, dict_msgs, batch_msgs, fmt):
    """dict_msgs/batch_msgs: encapsulated messages."""
    schema_msg = message(1, sch, b"")
    if fmt == "stream":
        data = schema_msg + b"".join(dict_msgs + batch_msgs) + \
            b"\xff\xff\xff\xff\0\0\0\0"
    else:
        data = bytearray(b"ARROW1\0\0" + schema_msg)
        blocks = {}
        for kind, msgs in (("d", dict_msgs), ("b", batch_msgs)):
            blocks[kind] = []
            for m in msgs:
                mlen = struct.unpack("<i", m[4:8])[0] + 8
                blocks[kind].append(struct.pack("<qi4xq", len(data), mlen,
                                                len(m) - mlen))
                data += m
        data += b"\xff\xff\xff\xff\0\0\0\0"
        footer = fb(T((0, "h", 4), (1, "o", sch),
                      (2, "o", VB(b"".join(blocks["d"]), len(blocks["d"]))),
                      (3, "o", VB(b"".join(blocks["b"]), len(blocks["b"])))))
        data += footer + struct.pack("<i", len(footer)) + b"ARROW1"
        data = bytes(data)
    open(path, "wb").write(data)


# --- the columns ------------------------------------------------------------
ROWS = 5


def views(values, body):
    """binary/utf8 view buffers: validity, views, one variadic buffer."""
    body.node(len(values), sum(v is None for v in values))
    body.buf(validity([v is not None for v in values]))
    vw, data = bytearray(), bytearray()
    for v in values:
        v = v or b""
        if len(v) <= 12:
            vw += struct.pack("<i", len(v)) + v.ljust(12, b"\0")
        else:
            vw += struct.pack("<i", len(v)) + v[:4] + \
                struct.pack("<ii", 0, len(data))
            data += v
    body.buf(bytes(vw))
    body.buf(bytes(data))


def fixed(values, fmt, body, width=None):
    body.node(len(values), sum(v is None for v in values))
    body.buf(validity([v is not None for v in values]))
    raw = bytearray()
    for v in values:
        if width:
            raw += (v or 0).to_bytes(width, "little", signed=True)
        else:
            raw += struct.pack("<" + fmt, v or 0)
    body.buf(bytes(raw))


def utf8_col(values, body, large=False):
    body.node(len(values), sum(v is None for v in values))
    body.buf(validity([v is not None for v in values]))
    offs, data = [0], b""
    for v in values:
        data += (v or "").encode()
        offs.append(len(data))
    body.buf(struct.pack("<%d%s" % (len(offs), "q" if large else "i"), *offs))
    body.buf(data)


def build_main():
    f, body, exp = [], Body(), {}
    # binary view and utf8 view
    f.append(field("bv", BINVIEW, T()))
    views([b"short", None, b"a much longer binary value!", b"", b"\x00\xff"],
          body)
    exp["bv"] = ['"short"', "null", '"a much longer binary value!"', '""',
                 '"\\\\x00\\\\xFF"']
    f.append(field("sv", UTF8VIEW, T()))
    views(["héllo".encode(), "this string is longer than twelve".encode(),
           None, b"x", b"exactly 12 b"], body)
    exp["sv"] = ['"héllo"', '"this string is longer than twelve"', "null",
                 '"x"', '"exactly 12 b"']
    # list views over int32 children 1..5
    for name, tid, w in (("lv", LISTVIEW, "i"), ("llv", LLISTVIEW, "q")):
        item = field("item", INT, int_t(32))
        f.append(field(name, tid, T(), [item]))
        body.node(ROWS, 1)
        body.buf(validity([1, 1, 0, 1, 1]))
        body.buf(struct.pack("<5" + w, 3, 0, 0, 1, 0))
        body.buf(struct.pack("<5" + w, 2, 3, 0, 0, 1))
        fixed([1, 2, 3, 4, 5], "i", body)
        exp[name] = ["[4,5]", "[1,2,3]", "null", "[]", "[1]"]
    # run-end encoded: runs end at 2, 3, 5 with values "a", null, "b"
    f.append(field("ree", REE, T(), [field("run_ends", INT, int_t(32)),
                                     field("values", UTF8, T())]))
    body.node(ROWS, 0)
    fixed([2, 3, 5], "i", body)
    utf8_col(["a", None, "b"], body)
    exp["ree"] = ['"a"', '"a"', "null", '"b"', '"b"']
    # decimals
    dec = lambda p, s, bits: T((0, "i", p), (1, "i", s), (2, "i", bits))
    f.append(field("d32", DECIMAL, dec(9, 2, 32)))
    fixed([12345, -5, 0, None, 999999999], "i", body)
    exp["d32"] = ["123.45", "-0.05", "0.00", "null", "9999999.99"]
    f.append(field("d64", DECIMAL, dec(18, 4, 64)))
    fixed([-123456789012345678, 1, None, 10 ** 17, 0], "q", body)
    exp["d64"] = ["-12345678901234.5678", "0.0001", "null",
                  "10000000000000.0000", "0.0000"]
    f.append(field("d256", DECIMAL, dec(76, 10, 256)))
    big = -(10 ** 70) + 7
    fixed([big, 2 ** 200, None, -1, 0], None, body, width=32)
    exp["d256"] = ["-" + str(10 ** 70 - 7)[:-10] + "." + str(10 ** 70 - 7)[-10:],
                   str(2 ** 200)[:-10] + "." + str(2 ** 200)[-10:], "null",
                   "-0.0000000001", "0.0000000000"]
    # month_day_nano below a microsecond
    f.append(field("mdn", INTERVAL, T((0, "h", 2))))
    body.node(ROWS, 1)
    body.buf(validity([1, 1, 1, 0, 1]))
    body.buf(struct.pack("<iiq", 1, 2, 3) + struct.pack("<iiq", 0, 0, 0) +
             struct.pack("<iiq", -14, 0, -1000) + b"\0" * 16 +
             struct.pack("<iiq", 0, 1, 3600 * 10 ** 9 + 5))
    exp["mdn"] = ['"1 month 2 days 00:00:00.000000003"', '"00:00:00"',
                  '"-1 year -2 months -00:00:00.000001"', "null",
                  '"1 day 01:00:00.000000005"']
    # large list of utf8
    f.append(field("ll", LLIST, T(), [field("item", UTF8, T())]))
    body.node(ROWS, 0)
    body.buf(b"")
    body.buf(struct.pack("<6q", 0, 2, 2, 3, 3, 4))
    utf8_col(["p", "q", None, "r"], body)
    exp["ll"] = ['["p","q"]', "[]", "[null]", "[]", '["r"]']
    # arrow.uuid
    f.append(field("id", FSB, T((0, "i", 16)),
                   md={"ARROW:extension:name": "arrow.uuid"}))
    body.node(ROWS, 0)
    body.buf(b"")
    body.buf(b"".join(bytes(range(k, k + 16)) for k in range(ROWS)))
    exp["id"] = ['"%s"' % "-".join(
        bytes(range(k, k + 16)).hex()[a:b]
        for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32)))
        for k in range(ROWS)]
    # a dictionary (id 7, int8 indices) whose second batch is a delta
    dfield = field("dict", UTF8, T(),
                   dictionary=T((0, "q", 7), (1, "o", int_t(8))))
    f.append(dfield)
    fixed([0, 1, 2, None, 2], "b", body)
    exp["dict"] = ['"x"', '"y"', '"z"', "null", '"z"']

    def dict_msg(vals, delta):
        b = Body()
        utf8_col(vals, b)
        return message(2, T((0, "q", 7), (1, "o", batch_table(len(vals), b)),
                            (2, "?", delta)), bytes(b.raw))
    dmsgs = [dict_msg(["x", "y"], False), dict_msg(["z"], True)]
    sch = schema(f)
    bmsg = message(3, batch_table(ROWS, body, variadic=[1, 1]),
                   bytes(body.raw))
    names = [n for n in exp]
    rows = []
    for i in range(ROWS):
        rows.append("{" + ",".join('"%s":%s' % (n, exp[n][i])
                                   for n in names) + "}")
    return sch, dmsgs, [bmsg], rows, dict_msg


def tool(*args):
    r = subprocess.run([TOOL] + list(args), capture_output=True, timeout=60)
    return r.returncode, r.stdout.decode(errors="replace"), \
        r.stderr.decode(errors="replace")


def main():
    tmp = tempfile.mkdtemp()
    sch, dmsgs, bmsgs, rows, dict_msg = build_main()
    failed = 0
    for fmt in ("file", "stream"):
        p = os.path.join(tmp, "crafted." + ("arrow" if fmt == "file"
                                            else "arrows"))
        write(p, sch, dmsgs, bmsgs, fmt)
        rc, out, err = tool("cat", p, "rows.jsonl", "errors")
        got = out.splitlines()
        if rc or got != rows:
            failed += 1
            print("FAIL %s: rc %d %s" % (fmt, rc, err.strip()[:300]))
            for g, e in zip(got + ["(none)"] * len(rows), rows):
                if g != e:
                    print("  got      %s\n  expected %s" % (g, e))
                    break
        else:
            print("ok   %s format: %d rows equal, no errors" % (fmt, len(rows)))
    # a dictionary replaced: refused in the file format (that batch not
    # used), the dictionary in effect in a stream
    rep = dmsgs + [dict_msg(["P", "Q", "R"], False)]
    p = os.path.join(tmp, "replaced.arrow")
    write(p, sch, rep, bmsgs, "file")
    rc, out, err = tool("cat", p, "rows.jsonl", "errors")
    lines = out.splitlines()
    if lines[:ROWS] != rows or not any(
            "dictionary 7 replaced in the file format" in l for l in lines):
        failed += 1
        print("FAIL replaced (file): %s" % lines[ROWS:] + [err[:200]])
    else:
        print("ok   replaced dictionary refused in the file format: %s" %
              lines[ROWS][:120])
    p = os.path.join(tmp, "replaced.arrows")
    write(p, sch, rep, bmsgs, "stream")
    rc, out, err = tool("cat", p, "columns/dict")
    if out.splitlines() != ["P", "Q", "R", "\\N", "R"]:
        failed += 1
        print("FAIL replaced (stream): %r %s" % (out, err[:200]))
    else:
        print("ok   replaced dictionary in effect in a stream")
    print("%d crafted cases failed" % failed)
    return 1 if failed else 0


sys.exit(main())

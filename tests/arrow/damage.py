#!/usr/bin/env python3
"""Damaged Arrow IPC files: each problem named with its byte offset, what
is readable still read, nothing crashes.

usage: damage.py COLFS_TOOL CORPUS_DIR

Takes the corpus's 1.0.0-littleendian generated_primitive.arrow_file (two
record batches), writes damaged copies into a temporary directory and
reads them through colfs-tool:
  - cut short (its footer and closing magic gone): `errors` says so, the
    messages are walked from offset 8 and rows.jsonl is the whole file's;
  - the footer length made to lie: named, and the rows still read;
  - the footer's root offset broken (not a flatbuffer): named, rows read;
  - a buffer of the second batch claiming to run past its body: that
    batch's views fail with the buffer's place named in `errors`, the
    first batch's rows still read (columns/ of batch 0 through check);
  - the file cut inside the second batch's body: the first batch read.
Skips (77) when the corpus is absent.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

TOOL, CORPUS = sys.argv[1], sys.argv[2]
SRC = os.path.join(CORPUS, "arrow", "integration", "1.0.0-littleendian",
                   "generated_primitive.arrow_file")


def tool(*args):
    r = subprocess.run([TOOL] + list(args), capture_output=True, timeout=60)
    if r.returncode < 0 or r.returncode > 2:
        raise SystemExit("FAIL: colfs-tool %s ended with %d: %s" %
                         (" ".join(args), r.returncode, r.stderr[-500:]))
    return r.returncode, r.stdout.decode(errors="replace"), \
        r.stderr.decode(errors="replace")


def main():
    if not os.path.exists(SRC):
        print("SKIP: corpus file %s absent" % SRC)
        return 77
    data = open(SRC, "rb").read()
    rc, good_rows, _ = tool("cat", SRC, "rows.jsonl")
    assert rc == 0
    good = good_rows.splitlines()
    _, meta1, _ = tool("cat", SRC, "record_batches/1/meta.json")
    m1 = json.loads(meta1)
    _, meta0, _ = tool("cat", SRC, "record_batches/0/meta.json")
    m0 = json.loads(meta0)
    n0 = m0["length"]
    failed = 0
    tmp = tempfile.mkdtemp()

    def case(name, blob, want_err, want_rows):
        nonlocal failed
        p = os.path.join(tmp, name)
        open(p, "wb").write(blob)
        rc, out, err = tool("cat", p, "rows.jsonl", "errors")
        rows = [l for l in out.splitlines() if l.startswith("{")]
        errs = [l for l in out.splitlines() if not l.startswith("{")]
        errs += err.splitlines()
        ok = any(want_err in e for e in errs) and rows == want_rows
        if not ok:
            print("FAIL %s: %d rows (want %d); errors: %s" %
                  (name, len(rows), len(want_rows), errs[:3]))
            failed += 1
        else:
            print("ok   %s: %s" % (name, [e for e in errs
                                          if want_err in e][0][:160]))
        tool("check", p)

    flen = struct.unpack("<i", data[-10:-6])[0]
    footer_off = len(data) - 10 - flen
    case("cut-footer", data[:footer_off + 4],
         "no ARROW1 magic at the end", good)
    lie = data[:-10] + struct.pack("<i", 1 << 30) + data[-6:]
    case("footer-length-lies", lie, "footer length 1073741824 does not fit",
         good)
    bad = bytearray(data)
    bad[footer_off:footer_off + 4] = struct.pack("<I", 0xFFFFFFF0)
    case("footer-not-flatbuffer", bytes(bad),
         "footer is not a valid flatbuffer", good)
    # a buffer of batch 1 made to run past its body: find its (offset,
    # length) pair inside the message's metadata and make the length huge
    b = next(x for x in m1["buffers"] if x["length"] > 0)
    pair = struct.pack("<qq", b["offset"], b["length"])
    lo = m1["metadata_offset"]
    at = data.find(pair, lo, lo + m1["metadata_length"])
    assert at > 0, "buffer entry not found"
    bad = bytearray(data)
    bad[at + 8:at + 16] = struct.pack("<q", 1 << 40)
    case("buffer-past-body", bytes(bad),
         "lies outside the body of %d bytes" % m1["body_length"], good[:n0])
    # cut inside batch 1's body (and no footer)
    cut = m1["body_offset"] + m1["body_length"] // 2
    case("cut-in-batch", data[:cut], "runs past the end of the file",
         good[:n0])
    print("%d damage cases failed" % failed)
    return 1 if failed else 0


sys.exit(main())

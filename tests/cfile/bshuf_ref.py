"""Write bitshuffle-LZ4 streams made by the reference bitshuffle library
(Debian's python3 module) for the cfile_bshuf_reference test.

usage: bshuf_ref.py OUTDIR
For each case writes OUTDIR/<name>.block (a Kudu BIT_SHUFFLE block: the
20-byte header plus the library's stream) and OUTDIR/<name>.txt (the
values, one per line).  Exit 77 when the module is missing."""
import struct
import sys

try:
    import bitshuffle
    import numpy as np
except ImportError as e:
    print("bitshuffle module not available: %s" % e)
    sys.exit(77)

out = sys.argv[1]
cases = []
# (name, element size, signed, count, kudu type number)
for size, kudu, name in ((1, 1, "INT8"), (2, 3, "INT16"), (4, 5, "INT32"),
                         (8, 7, "INT64"), (16, 14, "INT128")):
    for count in (3, 8, 1000, 5000, 20001):
        cases.append(("%s_%d" % (name, count), size, kudu, count))

with open(out + "/cases.txt", "w") as index:
    for name, size, kudu, count in cases:
        padded = (count + 7) // 8 * 8
        values = []
        raw = bytearray()
        x = 12345 + size * 7 + count
        for i in range(padded):
            if i >= count:
                v = 0
            elif i % 97 < 30:
                v = (i // 97) % 100  # runs, so LZ4 finds matches
            else:
                x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
                v = x >> (64 - 8 * size) if size < 8 else x
                if size == 16:
                    v = (x << 64) | (x ^ 0x5555)
                v -= 1 << (8 * size - 1)  # signed, spread around zero
            raw += (v % (1 << (8 * size))).to_bytes(size, "little")
            if i < count:
                values.append(v)
        arr = np.frombuffer(bytes(raw), dtype="V%d" % size)
        stream = bitshuffle.compress_lz4(arr, 0).tobytes()
        header = struct.pack("<5I", 0, count, 20 + len(stream), padded, size)
        with open("%s/%s.block" % (out, name), "wb") as f:
            f.write(header + stream)
        with open("%s/%s.txt" % (out, name), "w") as f:
            f.write("".join("%d\n" % v for v in values))
        index.write("%s %d %d\n" % (name, kudu, count))

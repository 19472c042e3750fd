#!/usr/bin/env python3
"""Every Arrow IPC integration file of the corpus against its JSON.

usage: integration.py COLFS_TOOL CORPUS_DIR

For each NAME.json.gz under CORPUS/arrow/integration/<producer>/ (the
Arrow integration JSON format: schema, dictionaries, batches with each
column's VALIDITY, DATA, OFFSET, TYPE_ID and children), reads
NAME.arrow_file and NAME.stream through `colfs-tool cat FILE rows.jsonl`
and compares every row with the values the JSON holds, rendered by the
rules of docs/values.md computed here independently of the C code
(dates and times by civil-from-days arithmetic, decimals from the
unscaled integer, floats compared as float32/float64 values).  The
file's `errors` must be empty.  Skips (exit 77) when the corpus is
absent.
"""
import gzip
import json
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from colfs_text import blob_text, civil as civil_ymd  # noqa: E402

TOOL, CORPUS = sys.argv[1], sys.argv[2]
ROOT = os.path.join(CORPUS, "arrow", "integration")


class Num:
    """An expected float: equal to our text when it reads back to the same
    float32/float64 value (our text is the shortest that does)."""

    def __init__(self, v, bits):
        self.v, self.bits = v, bits

    def conv(self, x):
        x = float(x)
        if self.bits == 32:
            return struct.unpack("<f", struct.pack("<f", x))[0]
        if self.bits == 16:
            return struct.unpack("<e", struct.pack("<e", x))[0]
        return x

    def __eq__(self, other):
        if not isinstance(other, str):
            return False
        if other in ("nan", "inf", "-inf"):
            return str(self.conv(self.v)) == other
        return self.conv(self.v) == self.conv(other)

    def __repr__(self):
        return "Num(%r)" % (self.v,)


def civil(days):
    y, m, d = civil_ymd(days)
    if y <= 0:
        return "%04d-%02d-%02d (BC)" % (1 - y, m, d)
    return "%04d-%02d-%02d" % (y, m, d)


PER = [1, 1000, 1000000, 1000000000]
DIG = [0, 3, 6, 9]
UNITS = {"SECOND": 0, "MILLISECOND": 1, "MICROSECOND": 2, "NANOSECOND": 3}


def hms(secs, frac, digits):
    s = "%02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)
    if frac:
        s += "." + ("%0*d" % (digits, frac)).rstrip("0")
    return s


def time_text(v, unit):
    a = abs(v)
    return ("-" if v < 0 else "") + hms(a // PER[unit], a % PER[unit],
                                        DIG[unit])


def ts_text(v, unit, tz):
    per_day = 86400 * PER[unit]
    days, tod = divmod(v, per_day)
    s = civil(days) + " " + hms(tod // PER[unit], tod % PER[unit], DIG[unit])
    return s + ("+00" if tz else "")


def part(v, unit):
    if v == 0:
        return []
    return ["%d %s%s" % (v, unit, "" if v in (1, -1) else "s")]


def ctrunc(a, b):
    q = abs(a) // b
    return q if a >= 0 else -q


def interval_text(months, days, sub, unit):
    parts = part(ctrunc(months, 12), "year")
    parts += part(months - 12 * ctrunc(months, 12), "month")
    parts += part(days, "day")
    if sub or not parts:
        parts.append(time_text(sub, unit))
    return " ".join(parts)


def decimal_text(unscaled, scale):
    neg = unscaled < 0
    d = str(abs(unscaled))
    if scale > 0:
        d = d.rjust(scale + 1, "0")
        d = d[:-scale] + "." + d[-scale:]
    elif scale < 0:
        d = d + "0" * -scale
    return ("-" if neg else "") + d


class Ctx:
    def __init__(self, dicts):
        self.dicts = dicts  # id -> (field, column)


def valid(col, i):
    v = col.get("VALIDITY")
    return v is None or v[i] == 1


def value(ctx, field, col, i, text=False):
    """The expected JSON value (as parsed with numbers kept as text)."""
    t = field["type"]
    name = t["name"]
    if name == "null":
        return None
    if not valid(col, i):
        return None
    if "dictionary" in field and field.get("_values") is not True:
        idx = int(col["DATA"][i])
        dfield, dcol = ctx.dicts[field["dictionary"]["id"]]
        return value(ctx, dfield, dcol, idx, text)
    d = col.get("DATA")
    if name == "bool":
        return "true" if text else d[i]
    if name == "int":
        return str(int(d[i]))
    if name == "floatingpoint":
        bits = {"HALF": 16, "SINGLE": 32, "DOUBLE": 64}[t["precision"]]
        return Num(d[i], bits)
    if name == "decimal":
        return decimal_text(int(d[i]), t["scale"])
    if name == "date":
        if t["unit"] == "DAY":
            return civil(int(d[i]))
        return civil(int(d[i]) // 86400000)
    if name == "time":
        return time_text(int(d[i]), UNITS[t["unit"]])
    if name == "timestamp":
        return ts_text(int(d[i]), UNITS[t["unit"]], t.get("timezone"))
    if name == "duration":
        return time_text(int(d[i]), UNITS[t["unit"]])
    if name == "interval":
        u = t["unit"]
        if u == "YEAR_MONTH":
            return interval_text(int(d[i]), 0, 0, 2)
        if u == "DAY_TIME":
            return interval_text(0, d[i]["days"], d[i]["milliseconds"] * 1000,
                                 2)
        ns = int(d[i]["nanoseconds"])
        if ns % 1000 == 0:
            return interval_text(d[i]["months"], d[i]["days"], ns // 1000, 2)
        return interval_text(d[i]["months"], d[i]["days"], ns, 3)
    if name in ("binary", "largebinary", "fixedsizebinary", "binaryview"):
        return blob_text(bytes.fromhex(d[i]))
    if name in ("utf8", "largeutf8", "utf8view"):
        return d[i]
    if text:
        raise ValueError("nested in text")
    ch = field["children"]
    cc = col.get("children", [])
    if name in ("list", "largelist"):
        o = col["OFFSET"]
        return [value(ctx, ch[0], cc[0], k)
                for k in range(int(o[i]), int(o[i + 1]))]
    if name == "fixedsizelist":
        n = t["listSize"]
        return [value(ctx, ch[0], cc[0], k) for k in range(i * n, i * n + n)]
    if name == "struct":
        return [(ch[k]["name"], value(ctx, ch[k], cc[k], i))
                for k in range(len(ch))]
    if name == "map":
        o = col["OFFSET"]
        ent = cc[0]
        kf, vf = ch[0]["children"]
        out = []
        for k in range(int(o[i]), int(o[i + 1])):
            key = value(ctx, kf, ent["children"][0], k, text=True)
            if isinstance(key, Num):
                raise ValueError("float map key")
            out.append((key, value(ctx, vf, ent["children"][1], k)))
        return out
    if name == "union":
        tid = col["TYPE_ID"][i]
        ids = t.get("typeIds") or list(range(len(ch)))
        k = ids.index(tid)
        row = int(col["OFFSET"][i]) if t["mode"] == "DENSE" else i
        return [("tag", str(tid)), ("value", value(ctx, ch[k], cc[k], row))]
    raise ValueError("type %s not in the oracle" % name)


def pairs(p):
    return list(p)


def load_rows(path):
    r = subprocess.run([TOOL, "cat", path, "rows.jsonl"],
                       capture_output=True, timeout=120)
    if r.returncode:
        return None, r.stderr.decode(errors="replace").strip()
    rows = [json.loads(line, parse_float=str, parse_int=str,
                       object_pairs_hook=pairs)
            for line in r.stdout.decode().splitlines()]
    return rows, None


def errors_of(path):
    r = subprocess.run([TOOL, "cat", path, "errors"], capture_output=True,
                       timeout=60)
    return r.stdout.decode(errors="replace").strip()


def main():
    if not os.path.isdir(ROOT):
        print("SKIP: corpus %s absent (arrow/integration)" % ROOT)
        return 77
    checked = failed = 0
    for prod in sorted(os.listdir(ROOT)):
        d = os.path.join(ROOT, prod)
        for fn in sorted(os.listdir(d)):
            if not fn.endswith(".json.gz"):
                continue
            base = fn[:-len(".json.gz")]
            with gzip.open(os.path.join(d, fn)) as fh:
                spec = json.load(fh)
            fields = spec["schema"]["fields"]
            dicts = {}
            for dd in spec.get("dictionaries", []):
                did = dd["id"]
                dfield = find_dict_field(fields, did)
                dicts[did] = (dict(dfield, _values=True),
                              dd["data"]["columns"][0])
            ctx = Ctx(dicts)
            expected = []
            for b in spec["batches"]:
                for i in range(b["count"]):
                    expected.append([(f["name"], value(ctx, f, c, i))
                                     for f, c in zip(fields, b["columns"])])
            for ext in (".arrow_file", ".stream"):
                path = os.path.join(d, base + ext)
                if not os.path.exists(path):
                    continue
                checked += 1
                got, err = load_rows(path)
                what = "%s/%s%s" % (prod, base, ext)
                if got is None:
                    print("FAIL %s: %s" % (what, err))
                    failed += 1
                    continue
                bad = None
                if len(got) != len(expected):
                    bad = "%d rows, expected %d" % (len(got), len(expected))
                else:
                    for n, (e, g) in enumerate(zip(expected, got)):
                        if not (e == g):
                            for (en, ev), (gn, gv) in zip(e, g):
                                if not (en == gn and ev == gv):
                                    bad = ("row %d field %s: got %r, "
                                           "expected %r" % (n, en, gv, ev))
                                    break
                            bad = bad or "row %d differs" % n
                            break
                errs = errors_of(path)
                if not bad and errs:
                    bad = "errors not empty: " + errs.splitlines()[0]
                if bad:
                    print("FAIL %s: %s" % (what, bad))
                    failed += 1
                else:
                    print("ok   %s (%d rows)" % (what, len(got)))
    print("%d files checked, %d failed" % (checked, failed))
    return 1 if failed or not checked else 0


def find_dict_field(fields, did):
    for f in fields:
        if f.get("dictionary", {}).get("id") == did:
            return f
        r = find_dict_field(f.get("children", []), did)
        if r:
            return r
    return None


sys.exit(main())

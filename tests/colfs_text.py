"""colfs tests: values spelled as colfs spells them, shared by the Python
checks of several folders (tests/arrays/check-npy.py,
tests/arrow/integration.py, tests/avro/check.py).  A script imports it
after putting tests/ on sys.path (no bytecode is written into the
source tree)."""


def civil(days):
    """Proleptic Gregorian (year, month, day) of a day number counted from
    1970-01-01 (H. Hinnant's days_from_civil, inverted), for any year;
    year 0 is 1 BC."""
    z = days + 719468
    era = z // 146097  # Python's // floors, negative days included
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + (m <= 2), m, d)


def blob_text(b):
    """Bytes as colfs writes a binary value: printable ASCII but the
    backslash and quotes as is, every other byte as \\xHH."""
    out = []
    for c in b:
        if 0x20 <= c <= 0x7E and chr(c) not in "\\'\"":
            out.append(chr(c))
        else:
            out.append("\\x%02X" % c)
    return "".join(out)

#!/usr/bin/python3
"""rows.csv of every ORC corpus file of one MANIFEST kind, checked with
python's csv module against the footer's row counts and the columns/
files: header = the columns/ names, numberOfRows records, each field the
value of the line of columns/<field> for that row (docs/values.md: NULL,
`\\N` there, is an empty field; a string's text-mode escapes are its
characters in rows.csv).  Also stripes/N/rows.csv (record count and
equality with the matching slice of the whole file).

usage: check_rows_csv.py COLFS_TOOL CORPUS_DIR KIND"""
import csv
import io
import json
import os
import subprocess
import sys


def tool(t, f, *args):
    r = subprocess.run([t, *args[:1], f, *args[1:]], capture_output=True)
    if r.returncode != 0:
        raise RuntimeError('%s %s %s: exit %d: %s' % (
            t, args[0], ' '.join(args[1:]), r.returncode,
            r.stderr.decode(errors='replace').strip()))
    return r.stdout


def parse_csv(data, what):
    text = data.decode('utf-8', errors='surrogateescape')
    if text and not text.endswith('\n'):
        raise AssertionError('%s: does not end with a newline' % what)
    rd = csv.reader(io.StringIO(text, newline=''), strict=True)
    # an empty line is a record of one empty field (a NULL of a file of
    # one field, as DuckDB writes it); the csv module reads it as none
    return [rec or [''] for rec in rd]


def text_unescaped(line):
    """A string's text-mode line (docs/values.md) as its characters:
    \\\\ \\n \\r \\t and \\xHH of a control byte undone (bytes that are not
    UTF-8 stay \\xHH in rows.csv too)."""
    out, i = [], 0
    while i < len(line):
        c = line[i]
        if c == '\\' and i + 1 < len(line):
            n = line[i + 1]
            if n in '\\nrt':
                out.append({'\\': '\\', 'n': '\n', 'r': '\r', 't': '\t'}[n])
                i += 2
                continue
            h = line[i + 2:i + 4]
            if n == 'x' and len(h) == 2 and \
                    all(x in '0123456789ABCDEFabcdef' for x in h) and \
                    int(h, 16) < 0x80:
                out.append(chr(int(h, 16)))
                i += 4
                continue
        out.append(c)
        i += 1
    return ''.join(out)


def csv_is(field, line):
    """Whether a rows.csv field holds the value of a columns/ line."""
    if line == '\\N':
        return field == ''
    return field == line or field == text_unescaped(line)


def check_file(t, path):
    footer = json.loads(tool(t, path, 'cat', 'footer.json'))
    stripes = footer.get('stripes', [])
    # a footer without numberOfRows: the stripes' sum (as the tree does)
    nrows = int(footer.get('numberOfRows',
                           sum(int(s.get('numberOfRows', 0))
                               for s in stripes)))
    names = tool(t, path, 'ls', 'columns').decode().split('\n')
    names = [n for n in names if n]
    recs = parse_csv(tool(t, path, 'cat', 'rows.csv'), 'rows.csv')
    if len(recs) != nrows + 1:
        raise AssertionError('rows.csv: %d records, want %d' %
                             (len(recs), nrows + 1))
    if len(recs[0]) != len(names):
        raise AssertionError('rows.csv header has %d fields, columns/ %d'
                             % (len(recs[0]), len(names)))
    for k, rec in enumerate(recs):
        if len(rec) != len(names):
            raise AssertionError('rows.csv record %d: %d fields, want %d'
                                 % (k, len(rec), len(names)))
    for i, name in enumerate(names):
        col = tool(t, path, 'cat', 'columns/' + name)
        lines = col.decode('utf-8', errors='surrogateescape').split('\n')
        if lines and lines[-1] == '':
            lines.pop()
        if len(lines) != nrows:
            raise AssertionError('columns/%s: %d lines, want %d' %
                                 (name, len(lines), nrows))
        for r in range(nrows):
            if not csv_is(recs[r + 1][i], lines[r]):
                raise AssertionError(
                    'row %d field %s: rows.csv %r, columns/ %r' %
                    (r, name, recs[r + 1][i], lines[r]))
    start = 0
    for s, st in enumerate(stripes):
        n = int(st.get('numberOfRows', 0))
        srec = parse_csv(tool(t, path, 'cat', 'stripes/%d/rows.csv' % s),
                         'stripes/%d/rows.csv' % s)
        if srec[0] != recs[0]:
            raise AssertionError('stripes/%d/rows.csv: header differs' % s)
        if srec[1:] != recs[1 + start:1 + start + n]:
            raise AssertionError('stripes/%d/rows.csv: rows differ from '
                                 'rows %d..%d of rows.csv' %
                                 (s, start, start + n))
        start += n
    return nrows


def main():
    t, corpus, kind = sys.argv[1:4]
    manifest = os.path.join(corpus, 'MANIFEST.tsv')
    if not os.path.exists(manifest):
        print('SKIP: no corpus at %s' % corpus)
        return 77
    files = []
    with open(manifest) as m:
        head = m.readline().rstrip('\n').split('\t')
        for line in m:
            row = dict(zip(head, line.rstrip('\n').split('\t')))
            if row.get('kind') == kind and row['path'].endswith('.orc'):
                files.append(row['path'])
    if not files:
        print('SKIP: no files of kind %s' % kind)
        return 77
    bad = 0
    for p in files:
        try:
            n = check_file(t, os.path.join(corpus, p))
            print('ok   %s (%d rows)' % (p, n))
        except (AssertionError, RuntimeError, ValueError, csv.Error) as e:
            print('FAIL %s: %s' % (p, e))
            bad += 1
    print('%d files, %d failed' % (len(files), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

#!/bin/bash
# docs/errors.md must name every message the format core can report, so
# the document cannot drift from the code.
#   errors-doc.sh SOURCE_ROOT
# Every call of colfs_tree_report, colfs_fail (and the two wrappers that
# forward to them: JOB_FAIL in core/codec.c, report() in
# parquet/parquet_meta.c, ds_problem() in dataset/dataset*.c) under formats/ is found, the string literals of
# its format argument are joined, and the longest fixed run of text
# between printf conversions (at least 10 characters; messages that are
# all conversions, such as "%s", are forwarded from an inner error and
# have nothing of their own) must occur in docs/errors.md.
# With --list, prints file, line, status and format of every call
# instead.  A failure prints, for each missing message, a table row to
# add to the file's section of docs/errors.md (the offset column is for
# you to fill in).
# Exit 0 pass, 1 fail, 77 skip.
set -u
root=${1:?source root}
command -v python3 >/dev/null ||
	{ echo "SKIP: python3 is not installed" >&2; exit 77; }
exec python3 - "$root" "${2:-}" <<'PY'
import glob, os, re, sys

root, mode = sys.argv[1], sys.argv[2]
CALL = re.compile(r'\b(colfs_tree_report|colfs_fail|JOB_FAIL|report|ds_problem)\s*\(')
KIND = {'COLFS_ECORRUPT': 'corrupt', 'COLFS_ETRUNCATED': 'truncated',
        'COLFS_EBOUNDS': 'out of bounds', 'COLFS_EOVERFLOW': 'overflow',
        'COLFS_EUNSUPPORTED': 'unsupported', 'COLFS_ENOMEM': 'out of memory',
        'COLFS_EIO': 'I/O error'}
CONV = re.compile(r'%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp%]')


def args_of(src, start):
    """Top-level arguments of the call whose '(' ends at start."""
    args, cur, depth, instr, i = [], '', 1, False, start
    while i < len(src) and depth:
        c = src[i]
        if instr:
            cur += c
            if c == '\\':
                cur += src[i + 1]
                i += 1
            elif c == '"':
                instr = False
        elif c == '"':
            instr = True
            cur += c
        elif c in '([{':
            depth += 1
            cur += c
        elif c in ')]}':
            depth -= 1
            if depth:
                cur += c
        elif c == ',' and depth == 1:
            args.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    args.append(cur.strip())
    return args


def unescape(s):
    return (s.replace('\\"', '"').replace('\\n', ' ').replace('\\t', ' ')
            .replace('\\\\', '\\'))


calls = []
for path in sorted(glob.glob(os.path.join(root, 'formats', '**', '*.c'),
                             recursive=True)):
    src = open(path, encoding='utf-8').read()
    rel = os.path.relpath(path, root)
    for m in CALL.finditer(src):
        if m.group(1) == 'report' and not rel.endswith('parquet_meta.c'):
            continue
        if m.group(1) == 'JOB_FAIL' and not rel.endswith('codec.c'):
            continue
        if m.group(1) == 'ds_problem' and not re.search(r'dataset/dataset[a-z_]*\.c$', rel):
            continue
        args = args_of(src, m.end())
        if any('const char *fmt' in a or a == '...' for a in args):
            continue  # a declaration or definition
        lits = [a for a in args if a.startswith('"') or 'PRI' in a]
        if not lits:
            continue
        fa = re.sub(r'"\s*PRI([udxX])64\s*"', r'%ll\1', lits[0])
        fa = re.sub(r'"\s*PRI([udxX])64\b', r'%ll\1"', fa)
        fa = re.sub(r'\bPRI([udxX])64\s*"', r'"%ll\1', fa)
        fmt = unescape(''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', fa)))
        st = next((a for a in args if a.startswith('COLFS_E')), 'varies')
        line = src.count('\n', 0, m.start()) + 1
        calls.append((rel, line, st, fmt))

if mode == '--list':
    for c in calls:
        print('%s:%d\t%s\t%s' % c)
    sys.exit(0)

doc_path = os.path.join(root, 'docs', 'errors.md')
try:
    doc = open(doc_path, encoding='utf-8').read().replace('\\|', '|')
except OSError as e:
    sys.exit('FAIL: cannot read %s: %s' % (doc_path, e))
if len(calls) < 100:
    sys.exit('FAIL: only %d report calls found: the extraction is broken'
             % len(calls))
missing, checked = [], 0
for rel, line, st, fmt in calls:
    runs = [r.strip() for r in CONV.split(fmt)]
    best = max(runs, key=len)
    if len(best) < 10:
        continue
    checked += 1
    if best not in doc:
        kind = KIND.get(st, '(as forwarded)')
        missing.append('%s:%d: %r\n    | %s | `%s` | ... |'
                       % (rel, line, best, kind, fmt))
print('%d report calls, %d with a distinctive text, %d missing from '
      'docs/errors.md' % (len(calls), checked, len(missing)))
for m in missing:
    print('  missing: ' + m)
sys.exit(1 if missing else 0)
PY

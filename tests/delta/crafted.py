#!/usr/bin/env python3
"""tests/delta/crafted.py: Delta logs made wrong on purpose, in a
temporary copy of corpus tables, each read or refused with a clear error
by formats/dataset/delta.c (through delta-dump):

- reader features and versions colfs does not read are refused by name;
- an inline deletion vector (a RoaringBitmapArray built here, Z85) gives
  its rows; one with a row past the file, a 'p' vector in S3, an unknown
  storage type, a vector file whose CRC fails or that is missing: errors;
- a commit missing in the middle, a version older than the oldest the
  log can rebuild (commits before the checkpoint deleted), a line that is
  not JSON, a mapped column without its physical name: errors;
- a multi-part checkpoint (two parts) is read; with a part missing it is
  not used; a V2 checkpoint is found without _last_checkpoint, and fails
  without its sidecar;
- 60 random mutations of a commit and of a deletion vector file never
  crash delta-dump (a snapshot or an error line).

  crafted.py DELTA_DUMP CORPUS_DIR
Exit 77 without the corpus.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

dump, corpus = sys.argv[1], os.path.join(sys.argv[2], 'delta')
if not os.path.isdir(corpus):
    print('SKIP: no Delta corpus at %s (../shared is absent)' % corpus,
          file=sys.stderr)
    sys.exit(77)

Z85 = ('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
       '.-:+=^!/*?&<>()[]{}@%$#')


def z85(data):
    out = []
    for i in range(0, len(data), 4):
        v = int.from_bytes(data[i:i + 4], 'big')
        chunk = []
        for _ in range(5):
            chunk.append(Z85[v % 85])
            v //= 85
        out.extend(reversed(chunk))
    return ''.join(out)


def roaring32(values):
    """A portable Roaring bitmap (no-run cookie, array containers)."""
    by_key = {}
    for v in values:
        by_key.setdefault(v >> 16, []).append(v & 0xffff)
    keys = sorted(by_key)
    head = struct.pack('<II', 12346, len(keys))
    for k in keys:
        head += struct.pack('<HH', k, len(by_key[k]) - 1)
    offset = len(head) + 4 * len(keys)
    offs, body = b'', b''
    for k in keys:
        offs += struct.pack('<I', offset + len(body))
        body += b''.join(struct.pack('<H', x) for x in sorted(by_key[k]))
    return head + offs + body


def dv_bytes(rows):
    by_high = {}
    for r in rows:
        by_high.setdefault(r >> 32, []).append(r & 0xffffffff)
    out = struct.pack('<Iq', 1681511377, len(by_high))
    for h in sorted(by_high):
        out += struct.pack('<I', h) + roaring32(by_high[h])
    return out


work = tempfile.mkdtemp(prefix='colfs-delta-')
failures = []


def table(name, src):
    dst = os.path.join(work, name)
    shutil.copytree(os.path.join(corpus, src), dst)
    return dst


def log(t, v):
    return os.path.join(t, '_delta_log', '%020d.json' % v)


def rewrite(path, fn):
    lines = [json.loads(l) for l in open(path) if l.strip()]
    lines = fn(lines)
    with open(path, 'w') as f:
        for l in lines:
            f.write(json.dumps(l) + '\n')


def run(t, *opts):
    r = subprocess.run([dump, *opts, t], capture_output=True, text=True,
                       timeout=60)
    if r.returncode < 0 or r.returncode > 1:
        return 'CRASH %d: %s' % (r.returncode, r.stderr[-400:])
    return r.stdout


def expect(case, t, want, *opts):
    out = run(t, *opts)
    if want not in out:
        failures.append('%s: expected %r in:\n%s' % (case, want, out[:600]))


def set_protocol(t, v, proto):
    def fn(lines):
        for l in lines:
            if 'protocol' in l:
                l['protocol'] = proto
        return lines
    rewrite(log(t, v), fn)


# reader features and versions
t = table('feature', 'table-with-dv-small')
set_protocol(t, 0, {'minReaderVersion': 3, 'minWriterVersion': 7,
                    'readerFeatures': ['deletionVectors', 'fooBar'],
                    'writerFeatures': ['deletionVectors']})
expect('unknown reader feature', t,
       "error: unsupported: Delta reader feature 'fooBar'")
t = table('reader4', 'table-with-dv-small')
set_protocol(t, 0, {'minReaderVersion': 4, 'minWriterVersion': 7})
expect('reader version 4', t, 'error: unsupported: Delta reader version 4')


# inline deletion vectors
def inline_dv(name, rows, card=None):
    t = table(name, 'table-with-dv-small')
    data = dv_bytes(rows)
    pad = data + b'\0' * (-len(data) % 4)

    def fn(lines):
        for l in lines:
            if 'add' in l:
                l['add']['deletionVector'] = {
                    'storageType': 'i', 'pathOrInlineDv': z85(pad),
                    'sizeInBytes': len(data),
                    'cardinality': len(rows) if card is None else card}
        return lines
    rewrite(log(t, 1), fn)
    return t


expect('inline deletion vector', inline_dv('inline', [1, 4, 7]),
       'records 10 deleted 1,4,7')
expect('inline deletion vector past the file',
       inline_dv('inline-far', [5, (1 << 32) + 5]),
       'error: out of bounds: ')
expect('inline deletion vector with a wrong cardinality',
       inline_dv('inline-card', [2, 3], card=3),
       'error: corrupt: ')


def dv_descriptor(name, change):
    t = table(name, 'table-with-dv-small')

    def fn(lines):
        for l in lines:
            if 'add' in l and 'deletionVector' in l['add']:
                change(l['add']['deletionVector'])
        return lines
    rewrite(log(t, 1), fn)
    return t


expect('deletion vector in S3',
       dv_descriptor('dv-s3', lambda d: d.update(
           storageType='p', pathOrInlineDv='s3://bucket/dv.bin')),
       "error: unsupported: ")
expect('unknown storage type',
       dv_descriptor('dv-x', lambda d: d.update(storageType='x')),
       "storage type 'x'")
t = table('dv-crc', 'table-with-dv-small')
bins = [f for f in os.listdir(t) if f.endswith('.bin')]
with open(os.path.join(t, bins[0]), 'r+b') as f:
    f.seek(20)
    b = f.read(1)
    f.seek(20)
    f.write(bytes([b[0] ^ 0x40]))
expect('deletion vector CRC', t, 'deletion vector CRC mismatch')
t = table('dv-missing', 'table-with-dv-small')
os.unlink(os.path.join(t, bins[0]))
expect('deletion vector file missing', t, 'No such file or directory')

# the log's shape
t = table('gap', 'simple_table')
os.unlink(log(t, 2))
expect('a commit missing', t,
       'error: corrupt: _delta_log cannot reconstruct any version: commit 2 is missing')
t = table('cleaned', 'simple_table_with_checkpoint')
for v in range(0, 5):
    os.unlink(log(t, v))
expect('older than the oldest', t,
       'Delta version 3 no longer exists: its commits are removed, _delta_log reconstructs versions 10 to 10',
       '-o', 'version=3')
expect('the checkpoint version of a cleaned log', t, '11 files',
       '-o', 'version=10')
t = table('notjson', 'simple_table')
with open(log(t, 1), 'r+b') as f:
    first = f.readline()
    f.seek(len(first))
    f.write(b'#')
expect('a line not JSON', t,
       'error: corrupt: _delta_log/00000000000000000001.json line 2: not JSON')
t = table('nophys', 'table_with_column_mapping')


def drop_phys(lines):
    for l in lines:
        if 'metaData' in l:
            s = json.loads(l['metaData']['schemaString'])
            del s['fields'][1]['metadata']['delta.columnMapping.physicalName']
            l['metaData']['schemaString'] = json.dumps(s)
    return lines


rewrite(log(t, 0), drop_phys)
expect('column mapping without a physical name', t,
       "field 'Super Name' has no delta.columnMapping.physicalName")

# a multi-part checkpoint: the classic one as two parts (the same adds
# twice reconcile to one); the commits before it deleted
t = table('multipart', 'simple_table_with_checkpoint')
d = os.path.join(t, '_delta_log')
cp = os.path.join(d, '%020d.checkpoint.parquet' % 10)
for part in (1, 2):
    shutil.copy(cp, os.path.join(d, '%020d.checkpoint.%010d.%010d.parquet'
                                 % (10, part, 2)))
os.unlink(cp)
os.unlink(os.path.join(d, '_last_checkpoint'))
for v in range(0, 10):
    os.unlink(log(t, v))
expect('multi-part checkpoint', t, 'version 10 of 10')
expect('multi-part checkpoint files', t, '11 files')
os.unlink(os.path.join(d, '%020d.checkpoint.%010d.%010d.parquet' % (10, 2, 2)))
expect('multi-part checkpoint with a part missing', t,
       'error: corrupt: _delta_log cannot reconstruct any version')

# a V2 checkpoint found by listing alone (no _last_checkpoint, the
# commits before it deleted); without its sidecar it fails, naming it
t = table('v2-cleaned', 'checkpoint-v2-table')
d = os.path.join(t, '_delta_log')
os.unlink(os.path.join(d, '_last_checkpoint'))
for v in range(0, 8):
    os.unlink(log(t, v))
expect('V2 checkpoint without _last_checkpoint', t, '8 files')
expect('V2 checkpoint without _last_checkpoint, oldest', t,
       'Delta version 5 no longer exists: its commits are removed, _delta_log reconstructs versions 8 to 9',
       '-o', 'version=5')
for f in os.listdir(os.path.join(d, '_sidecars')):
    if f.startswith('%020d.' % 8):
        os.unlink(os.path.join(d, '_sidecars', f))
expect('V2 checkpoint without its sidecar', t,
       'error: not found: checkpoint _delta_log/_sidecars/%020d.checkpoint' % 8)

# mutations never crash
rng = random.Random(16)
base = table('mutant', 'table-with-dv-small')
commit = open(log(base, 1), 'rb').read()
dv = open(os.path.join(base, bins[0]), 'rb').read()
for i in range(60):
    which = i % 2
    data = bytearray(commit if which == 0 else dv)
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    path = log(base, 1) if which == 0 else os.path.join(base, bins[0])
    with open(path, 'wb') as f:
        f.write(data)
    out = run(base)
    if not (out.startswith('version ') or out.startswith('error: ')):
        failures.append('mutant %d: %s' % (i, out[:400]))
    with open(path, 'wb') as f:
        f.write(commit if which == 0 else dv)

shutil.rmtree(work)
for f in failures:
    print('FAIL: ' + f, file=sys.stderr)
if failures:
    sys.exit(1)
print('crafted Delta logs: all read or refused as expected')

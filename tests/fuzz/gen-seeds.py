#!/usr/bin/env python3
"""tests/fuzz/gen-seeds.py: write the seed corpora of the fuzz targets.

    tests/fuzz/gen-seeds.py MESON_BUILDDIR [OUTDIR]

Seeds come from the project's own fixture writers (colfs-mksample for
Parquet, tests/orc/orc_gen for ORC, tests/cfile/cfile-writer for CFile),
cut into pieces with colfs-tool (footers, page headers, page data, blocks),
and from small byte strings written here from the format specifications
(RLE, delta and ORC run examples).  OUTDIR defaults to tests/fuzz/corpus;
each target gets OUTDIR/<target>/<name>.  The committed seeds were made
with this script; rerun it after a writer changes.  Seeds are kept small
(files of a few KB).
"""
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile

build = os.path.abspath(sys.argv[1])
here = os.path.dirname(os.path.abspath(__file__))
out = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else \
    os.path.join(here, 'corpus')
tool = os.path.join(build, 'tools', 'colfs-tool')
mksample = os.path.join(build, 'tools', 'colfs-mksample')
orc_gen = os.path.join(build, 'tests', 'orc', 'orc_gen')
cfw = os.path.join(build, 'tests', 'cfile', 'cfile-writer')
tmp = tempfile.mkdtemp(prefix='colfs-seeds-')
MAX_SEED = 8192


def put(target, name, data):
    if len(data) > MAX_SEED:
        data = data[:MAX_SEED]
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def cat(path, node):
    r = subprocess.run([tool, 'cat', path, node], capture_output=True)
    return r.stdout if r.returncode == 0 else None


def ls(path, node=''):
    r = subprocess.run([tool, 'ls', path] + ([node] if node else []),
                       capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def stat_range(path, node):
    r = subprocess.run([tool, 'stat', path, node], capture_output=True,
                       text=True)
    off = ln = None
    for line in r.stdout.splitlines():
        if line.startswith('offset:'):
            off = int(line.split()[1])
        elif line.startswith('length:'):
            ln = int(line.split()[1])
    return off, ln


def rd(path):
    with open(path, 'rb') as f:
        return f.read()


# --- Parquet ------------------------------------------------------------
PQ_CODEC = {'none': 0, 'snappy': 1, 'gzip': 2, 'zstd': 6, 'lz4_raw': 7}
pq_files = []
for codec in ['none', 'snappy', 'gzip', 'zstd', 'lz4_raw']:
    for extra, tag in [([], 'v1'), (['--data-page-v2'], 'v2'),
                       (['--no-page-index', '--no-bloom'], 'bare'),
                       (['--bad-crc'], 'badcrc')]:
        if tag in ('bare', 'badcrc') and codec not in ('none', 'snappy'):
            continue
        p = os.path.join(tmp, 'mk-%s-%s.parquet' % (codec, tag))
        run(mksample, p, '--rows', '24', '--row-groups', '2',
            '--page-rows', '8', '--codec', codec, *extra)
        pq_files.append((p, codec, tag))
        put('open_parquet', os.path.basename(p), rd(p))

for p, codec, tag in pq_files:
    data = rd(p)
    base = 'mk-%s-%s' % (codec, tag)
    flen = struct.unpack('<I', data[-8:-4])[0]
    put('thrift', base + '-filemetadata', data[-8 - flen:-8])
    # chunks: page header first, then pages
    for col in ['id', 'name', 'tags.list.element']:
        raw = cat(p, 'row_groups/0/chunks/%s/raw' % col)
        if raw:
            put('thrift', '%s-chunk-%s' % (base, col), raw[:1024])
    # pages: codec input, decoder input
    for col, ptype in [('id', 2), ('name', 6), ('price', 5), ('day', 1)]:
        node = 'row_groups/0/chunks/%s/pages/0' % col
        raw = cat(p, node + '/raw')
        dec = cat(p, node + '/decompressed')
        if raw is not None and dec is not None:
            c = PQ_CODEC[codec]
            put('codec', '%s-%s' % (base, col),
                bytes([c]) + struct.pack('<H', min(len(dec), 65535)) + raw)
            put('codec', '%s-%s-roomy' % (base, col),
                bytes([c]) + struct.pack('<H', 65535) + raw)
        if codec == 'none' and tag == 'v1' and dec:
            # values op (6): type, encoding, type_length, count, dict, tbits
            put('pq_decode', 'page-%s-plain' % col,
                bytes([6, ptype, 0, 0]) + struct.pack('<HH', 8, 0) +
                bytes([0]) + dec)
            put('pq_decode', 'page-%s-levels-v1' % col,
                bytes([4, 1, 1]) + struct.pack('<H', 8) + dec)

# codec inputs from the command-line compressors
text = b'colfs fuzz seed: ' + b'abcabcabc0123456789 ' * 40
for prog, args, codec in [('gzip', ['-c'], 2), ('zstd', ['-c', '-q'], 6),
                          ('lz4', ['-c', '-q'], 5)]:
    if shutil.which(prog):
        r = subprocess.run([prog] + args, input=text, capture_output=True)
        if r.returncode == 0:
            put('codec', 'cli-' + prog,
                bytes([codec]) + struct.pack('<H', len(text)) + r.stdout)
put('codec', 'none-exact', bytes([0]) + struct.pack('<H', 16) + text[:16])
put('codec', 'none-short', bytes([0]) + struct.pack('<H', 4) + text[:16])

# crafted decoder inputs (parquet-format Encodings.md)
rle = bytes([0x10, 0x03, 0x03, 0x88, 0xc6, 0xfa])   # run 8x3, 8 packed
put('pq_decode', 'rle-bare', bytes([0, 3]) + struct.pack('<H', 16) + rle)
put('pq_decode', 'rle-prefixed', bytes([1, 3]) + struct.pack('<H', 16) +
    struct.pack('<I', len(rle)) + rle)
put('pq_decode', 'bitpacked', bytes([2, 3]) + struct.pack('<H', 8) +
    bytes([0x05, 0x39, 0x77]))
put('pq_decode', 'dict-indices', bytes([3]) + struct.pack('<HH', 4, 16) +
    bytes([2]) + rle)
put('pq_decode', 'levels-v2', bytes([5, 0, 3]) + struct.pack('<H', 16) + rle)
delta = bytes([0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0])  # 1..5
put('pq_decode', 'delta', bytes([8]) + struct.pack('<H', 5) +
    bytes([64, 3]) + delta)
put('pq_decode', 'delta-i32-values', bytes([6, 1, 5, 0]) +
    struct.pack('<HH', 5, 0) + bytes([0]) + delta)
dlba = bytes([0x80, 0x01, 0x04, 0x02, 0x06, 0x00, 0, 0, 0, 0]) + b'abcdef'
put('pq_decode', 'dlba', bytes([9 | 0x00]) + struct.pack('<H', 2) + dlba)
dba = (bytes([0x80, 0x01, 0x04, 0x02, 0x00, 0x04, 0, 0, 0, 0]) +
       bytes([0x80, 0x01, 0x04, 0x02, 0x06, 0x01, 0, 0, 0, 0]) + b'abcdefg')
put('pq_decode', 'dba', bytes([10]) + struct.pack('<H', 2) + dba)
put('pq_decode', 'bss', bytes([11, 4]) + struct.pack('<H', 3) +
    bytes(range(12)))
put('pq_decode', 'plain-bytes', bytes([9 | 0x20]) + struct.pack('<H', 2) +
    struct.pack('<I', 3) + b'abc' + struct.pack('<I', 0))

# render: op, flags, 16 raw bytes, rest
for op in range(24):
    put('render', 'op%02d' % op, bytes([op, op & 3]) +
        bytes(range(1, 17)) + 'héllo\n\tw\x01'.encode())
# render op 24: WKB (a collection of a point, a Z linestring in the
# other byte order, an empty polygon; an EWKB point with an SRID)
WKB_SEEDS = {
    'wkb-collection': bytes([1]) + struct.pack('<II', 7, 3) +
    bytes([1]) + struct.pack('<Idd', 1, 1.0, 2.0) +
    bytes([1]) + struct.pack('<II', 3, 0) +
    bytes([1]) + struct.pack('<II', 6, 1) +
    bytes([0]) + struct.pack('>II', 3, 0),
    'wkb-ewkb-z': bytes([0]) + struct.pack('>IIddd', 0xA0000001, 4326,
                                           1.0, 2.0, float('nan')),
    'wkb-linestring-zm': bytes([1]) + struct.pack('<II', 3002, 2) +
    struct.pack('<8d', *range(8)),
}
for name, wkb in WKB_SEEDS.items():
    put('render', name, bytes([24, 0]) + bytes(range(1, 17)) + wkb)

# variant: metadata length, metadata, value (VariantEncoding.md)
V_META = bytes([0x11, 5, 0, 1, 2, 3, 4, 5]) + b'abcde'
V_SEEDS = {
    'null': bytes([0x00]),
    'int64': bytes([0x18]) + struct.pack('<q', -9876543210),
    'decimal16': bytes([0x28, 9]) + (12345678901234567890).to_bytes(16, 'little'),
    'string': bytes([0x40]) + struct.pack('<I', 7) + b'iceberg',
    'uuid': bytes([0x50]) + bytes(range(16)),
    'object': bytes([0x02, 2, 0, 3, 2, 0, 4, 0x05]) + b'x' + bytes([0x0C, 1]),
    'array': bytes([0x03, 4, 0, 1, 4, 7, 8, 0x04, 0x03, 0, 0, 0x02, 0, 0,
                    0x00]),
    'nested': bytes([0x02, 2, 1, 3, 0, 16, 23, 0x03, 2, 0, 7, 11,
                     0x02, 1, 2, 0, 2, 0x0C, 0xFF, 0x0D]) + b'xyz' +
              bytes([0x40, 2, 0, 0, 0]) + b'hi',
}
for name, v in V_SEEDS.items():
    put('variant', name, bytes([len(V_META)]) + V_META + v)

# --- ORC ----------------------------------------------------------------
orc_files = []
for rows, per in [(20, 10), (7, 7), (1, 1)]:
    p = os.path.join(tmp, 'gen-%d-%d.orc' % (rows, per))
    run(orc_gen, p, str(rows), str(per))
    orc_files.append(p)
    put('open_orc', os.path.basename(p), rd(p))
# message index as in orc_proto.c: 0 PostScript, 1 Footer, 2 Metadata,
# 3 StripeFooter
for p in orc_files:
    base = os.path.basename(p)[:-4]
    for node, idx in [('raw/postscript', 0), ('raw/footer', 1),
                      ('raw/metadata', 2)]:
        b = cat(p, node)
        if b:
            put('orc_proto', '%s-%s' % (base, node.split('/')[1]),
                bytes([idx]) + b)
    for s in ls(p, 'stripes/0/streams'):
        b = cat(p, 'stripes/0/streams/%s/raw' % s)
        if b is None:
            continue
        # an uncompressed stream framed as one "original" chunk
        hdr = struct.pack('<I', len(b) << 1 | 1)[:3]
        put('orc_proto', '%s-stream-%s' % (base, s), bytes([0xC0, 0]) +
            hdr + b)
        kind = s.split('-')[-1]
        op = 2 if kind in ('DATA', 'LENGTH', 'SECONDARY') else 1
        put('orc_rle', '%s-%s' % (base, s), bytes([op, 7]) +
            struct.pack('<H', 20) + b)
# ORC specification examples
orc_runs = {
    'byte-run': (0, bytes([0x61, 0x00])),
    'byte-literal': (0, bytes([0xfe, 0x44, 0x45])),
    'bool': (1, bytes([0xff, 0x80])),
    'int-v1-run': (2, bytes([0x61, 0x00, 0x07])),
    'int-v1-literal': (3, bytes([0xfb, 0x02, 0x03, 0x06, 0x07, 0x0b])),
    'int-v2-short-repeat': (4, bytes([0x0a, 0x27, 0x10])),
    'int-v2-direct': (4, bytes([0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde,
                                0xad, 0xbe, 0xef])),
    'int-v2-patched': (4, bytes([0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e,
                                 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46,
                                 0x50, 0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c,
                                 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc,
                                 0xe8])),
    'int-v2-delta': (4, bytes([0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42,
                               0x46])),
}
for name, (op, b) in orc_runs.items():
    put('orc_rle', 'spec-' + name, bytes([op, 7]) + struct.pack('<H', 10) +
        b)
    put('orc_rle', 'spec-' + name + '-signed',
        bytes([op | 1 if op >= 2 else op, 5]) + struct.pack('<H', 10) + b)

# --- CFile --------------------------------------------------------------
CF_TYPES = {'UINT8': 0, 'INT8': 1, 'UINT16': 2, 'INT16': 3, 'UINT32': 4,
            'INT32': 5, 'UINT64': 6, 'INT64': 7, 'STRING': 8, 'BOOL': 9,
            'FLOAT': 10, 'DOUBLE': 11, 'BINARY': 12, 'INT128': 14,
            'DATE': 20}
CF_ENC = {'PLAIN': 1, 'PREFIX': 2, 'GROUP_VARINT': 3, 'RLE': 4, 'DICT': 5,
          'BIT_SHUFFLE': 6}
cf_cases = [
    ('INT32', 'BIT_SHUFFLE', 'NONE', []),
    ('INT64', 'PLAIN', 'SNAPPY', ['--nullable']),
    ('UINT32', 'GROUP_VARINT', 'NONE', []),
    ('BOOL', 'RLE', 'LZ4', ['--nullable']),
    ('INT16', 'RLE', 'NONE', []),
    ('STRING', 'PREFIX', 'ZLIB', ['--validx']),
    ('STRING', 'DICT', 'NONE', ['--nullable']),
    ('BINARY', 'PLAIN', 'NONE', ['--no-posidx']),
    ('DOUBLE', 'BIT_SHUFFLE', 'NONE', ['--v1']),
    ('INT32', 'BIT_SHUFFLE', 'NONE', ['--array', '--nullable']),
    ('INT64', 'PLAIN', 'NONE', ['--delta']),
    ('BINARY', 'PLAIN', 'NONE', ['--bloom']),
    ('INT128', 'PLAIN', 'NONE', ['--header-metadata']),
]
for typ, enc, comp, extra in cf_cases:
    name = 'w-%s-%s-%s%s' % (typ, enc, comp,
                             ''.join(e.replace('--', '-') for e in extra))
    p = os.path.join(tmp, name + '.cfile')
    r = subprocess.run([cfw, '--type', typ, '--encoding', enc,
                        '--compression', comp, '--count', '20',
                        '--block-rows', '8', '--index-block-size', '64',
                        '--distinct', '5'] + extra + [p],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        print('cfile-writer %s: %s' % (name, r.stderr.decode().strip()))
        continue
    put('open_cfile', name, rd(p))
    hdr = cat(p, 'raw/header')
    ftr = cat(p, 'raw/footer')
    if hdr and len(hdr) > 12:
        put('cfile', name + '-headerpb', bytes([0x80, 0]) + hdr[12:])
    if ftr:
        put('cfile', name + '-footerpb', bytes([0x80, 1]) + ftr)
    # a data block as cfile_block_decode sees it: find a selector byte
    t, e = CF_TYPES[typ], CF_ENC[enc]
    sel = next((s for s in range(256)
                if s % 22 == t and 1 + (s >> 5) % 6 == e), None)
    flags = (1 if '--nullable' in extra else 0) | \
        (2 if '--array' in extra else 0)
    for blk in ls(p, 'blocks')[:2]:
        b = cat(p, 'blocks/%s/decompressed' % blk)
        if b is not None and sel is not None:
            put('cfile', '%s-block%s' % (name, blk),
                bytes([0, sel, flags]) + b)
put('cfile', 'key-posidx', bytes([0xC0, 3 | 4, 0x05]))
put('cfile', 'value-string', bytes([0xC0, 2 | 8 << 2]) + b'text\x00\xff')
put('cfile', 'value-int64', bytes([0xC0, 2 | 7 << 2]) + bytes(range(8)))

# avro: the Avro files tests/avro/check.py writes with Debian's
# python3-avro (every type, every codec) and its damaged files; the
# large damaged copies of one fixture are left out
avro_dir = os.path.join(tmp, 'avro')
r = subprocess.run(['/usr/bin/python3', os.path.join(here, '..', 'avro', 'check.py'),
                    os.path.join(build, 'tests', 'avro', 'avro-dump'), avro_dir,
                    os.path.join(tmp, 'none'), '--seeds', avro_dir],
                   capture_output=True)
if r.returncode != 0:
    print('tests/avro/check.py --seeds: %s' % r.stdout.decode().strip())
else:
    for name in sorted(os.listdir(avro_dir)):
        data = rd(os.path.join(avro_dir, name))
        if name.startswith('damaged-') and len(data) > 4096:
            continue
        d = os.path.join(out, 'avro')
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), 'wb') as f:
            f.write(data)

# avro: Iceberg delete files in Avro as tests/iceberg/make_table.py
# writes them (--delete-format avro): a position delete file (file_path
# and pos by their reserved field ids) and an equality delete file of an
# optional string (a union with null), the shapes ice_avrodel.c reads
sys.path.insert(0, os.path.join(here, '..', 'iceberg'))
import make_table  # noqa: E402
for name, schema, rows in (
        ('iceberg-pos-delete', make_table.POS_DELETE_AVRO,
         [{'file_path': 's3://b/t/data/a.parquet', 'pos': p} for p in (1, 4, 9)]),
        ('iceberg-eq-delete', make_table.eq_delete_avro(
            [('full_name', 2, ['null', 'string']), ('id', 1, 'long')]),
         [{'full_name': 'n7', 'id': 7}, {'full_name': None, 'id': -3}])):
    path = os.path.join(tmp, name + '.avro')
    make_table.write_avro(path, schema, rows, {}, 'deflate')
    put('avro', name + '.avro', rd(path))

# puffin: Puffin files of deletion vectors written by
# tests/iceberg/puffin.py (array and bitmap containers, two keys, two
# blobs, each footer compression), a wrong CRC, and bare blobs
sys.path.insert(0, os.path.join(here, '..', 'iceberg'))
import puffin  # noqa: E402
put('puffin', 'one', puffin.puffin([('d.parquet', [0, 2, 5])])[0])
put('puffin', 'two-blobs', puffin.puffin([('a.parquet', [1, 3]),
                                          ('b.parquet', [7])])[0])
# a bitmap container takes 8 KiB: these two are kept whole, past MAX_SEED
for name, data in (('bitmap', puffin.puffin([('d.parquet', range(0, 20000, 3))])[0]),
                   ('bare-bitmap', puffin.dv_blob(range(0, 9000, 2)))):
    os.makedirs(os.path.join(out, 'puffin'), exist_ok=True)
    with open(os.path.join(out, 'puffin', name), 'wb') as f:
        f.write(data)
put('puffin', 'high-keys', puffin.puffin([('d.parquet',
                                           [1, 70000, 1 << 32, (1 << 33) + 5])])[0])
put('puffin', 'lz4-footer', puffin.puffin([('d.parquet', [4])], 'lz4')[0])
put('puffin', 'lz4-nosize-footer',
    puffin.puffin([('d.parquet', [4])], 'lz4-nosize')[0])
put('puffin', 'zstd-footer', puffin.puffin([('d.parquet', [4])], 'zstd')[0])
put('puffin', 'bad-crc', puffin.puffin([('d.parquet', [9])], crc_delta=1)[0])
put('puffin', 'bare-blob', puffin.dv_blob([1, 3]))
# xml_list: a page of each listing the object stores send (GCS's
# ListObjectsV2 with its extra elements, Azure's List Blobs), an error
# document (one whose Code is line breaks alone, one whose Code starts
# with them), misplaced and repeated elements, a DOCTYPE, digits
put('xml_list', 'azure-page.xml', b'<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://127.0.0.1:10000/acct/" ContainerName="cnt"><Prefix>ds/</Prefix><Blobs><Blob><Name>ds/a.parquet</Name><Properties><Content-Length>300</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob><Blob><Name>ds/dir/</Name><Properties><Content-Length>0</Content-Length></Properties></Blob></Blobs><NextMarker>M1</NextMarker></EnumerationResults>\n')
put('xml_list', 'digits.txt', b'0123456789')
put('xml_list', 'doctype.xml', b'<!DOCTYPE r [<!ENTITY e "x">]><ListBucketResult><Name>&e;</Name></ListBucketResult>\n')
put('xml_list', 'error.xml', b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>SignatureDoesNotMatch</Code><Message>Access denied.\nSecond line</Message><StringToSign>GOOG4-HMAC-SHA256\n20261128T220000Z</StringToSign></Error>\n")
put('xml_list', 'error-code-blank.xml', b"<Error><Code>\r\r\r</Code><Message>m</Message></Error>\n")
put('xml_list', 'error-code-late.xml', b"<Error><Code>\r\n  AccessDenied\r\n</Code><Message>\nm</Message></Error>\n")
put('xml_list', 'gcs-page.xml', b'<?xml version=\'1.0\' encoding=\'UTF-8\'?><ListBucketResult xmlns=\'http://doc.s3.amazonaws.com/2006-03-01\'><Name>priv</Name><Prefix>ds/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated><EncodingType>url</EncodingType><Contents><Key>ds/a%20b.parquet</Key><Generation>1764368000000000</Generation><MetaGeneration>1</MetaGeneration><LastModified>2026-11-28T22:00:00.000Z</LastModified><ETag>"5d41402abc4b2a76b9719d911017c592"</ETag><Size>1234</Size></Contents><Contents><Key>ds/b.parquet</Key><Size>99</Size></Contents><NextContinuationToken>ZHMvYi5wYXJxdWV0</NextContinuationToken></ListBucketResult>\n')
put('xml_list', 'nested.xml', b'<ListBucketResult><Contents><Key>a</Key><Key>b</Key><Size>1</Size></Contents><Other><Contents><Key>x</Key></Contents></Other><Name>n</Name><Name>m</Name></ListBucketResult>\n')

shutil.rmtree(tmp)
total = 0
for root, _, files in os.walk(out):
    total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
print('seeds in %s: %d bytes' % (out, total))

#!/usr/bin/python3
"""The streams of StripeEncryptionVariants in the encrypted ORC corpus
files: every variant stream is listed in stripes/N/streams/ as
encrypted-<variant>-<index>-<column>-<KIND> with a raw file of its length,
marked "encrypted" in footer.json's streamLocations, and the variants'
streams exactly fill the ENCRYPTED_INDEX / ENCRYPTED_DATA areas.

usage: check_encrypted.py COLFS_TOOL CORPUS_DIR"""
import json
import os
import subprocess
import sys

INDEX_KINDS = ('ROW_INDEX', 'BLOOM_FILTER', 'BLOOM_FILTER_UTF8')


def tool(t, f, *args):
    r = subprocess.run([t, args[0], f, *args[1:]], capture_output=True)
    if r.returncode != 0:
        raise AssertionError('%s %s: exit %d: %s' % (
            args[0], ' '.join(args[1:]), r.returncode,
            r.stderr.decode(errors='replace').strip()))
    return r.stdout


def check(t, path):
    footer = json.loads(tool(t, path, 'cat', 'footer.json'))
    total = 0
    for s in range(len(footer['stripes'])):
        sf = json.loads(tool(t, path, 'cat', 'stripes/%d/footer.json' % s))
        variants = sf.get('encryption', [])
        if not variants:
            raise AssertionError('stripe %d: no encryption variants' % s)
        locs = sf['streamLocations']
        enc = [l for l in locs if l.get('encrypted')]
        want = [(v, i, st.get('column', 0), st['kind'], st['length'])
                for v, var in enumerate(variants)
                for i, st in enumerate(var.get('streams', []))]
        got = [(l['variant'], l['index'], l['column'], l['kind'],
                l['length']) for l in enc]
        if got != want:
            raise AssertionError('stripe %d: encrypted streamLocations %r, '
                                 'footer variants %r' % (s, got, want))
        for area, kinds in (('ENCRYPTED_INDEX', True),
                            ('ENCRYPTED_DATA', False)):
            virt = [l for l in locs if l.get('kind') == area
                    and not l.get('encrypted')]
            mine = [l for l in enc if (l['kind'] in INDEX_KINDS) == kinds]
            if not virt:
                if mine:
                    raise AssertionError('stripe %d: no %s area' % (s, area))
                continue
            pos = virt[0]['offset']
            for l in mine:
                if l['offset'] != pos:
                    raise AssertionError('stripe %d: %r not at %d' %
                                         (s, l, pos))
                pos += l['length']
            if pos != virt[0]['offset'] + virt[0]['length']:
                raise AssertionError('stripe %d: %s not filled' % (s, area))
        names = tool(t, path, 'ls', 'stripes/%d/streams' % s).decode()
        names = [n for n in names.split('\n') if n.startswith('encrypted-')]
        if len(names) != len(enc):
            raise AssertionError('stripe %d: %d encrypted stream dirs, '
                                 'want %d' % (s, len(names), len(enc)))
        for l in enc:
            name = 'encrypted-%d-%d-%d-%s' % (l['variant'], l['index'],
                                              l['column'], l['kind'])
            raw = tool(t, path, 'cat', 'stripes/%d/streams/%s/raw' %
                       (s, name))
            whole = open(path, 'rb').read()
            if raw != whole[l['offset']:l['offset'] + l['length']]:
                raise AssertionError('stripe %d: %s/raw differs from the '
                                     'file bytes' % (s, name))
            total += 1
    errors = tool(t, path, 'cat', 'errors').decode().strip()
    if errors:
        raise AssertionError('errors: %s' % errors)
    return total


def main():
    t, corpus = sys.argv[1:3]
    manifest = os.path.join(corpus, 'MANIFEST.tsv')
    if not os.path.exists(manifest):
        print('SKIP: no corpus at %s' % corpus)
        return 77
    files = []
    with open(manifest) as m:
        head = m.readline().rstrip('\n').split('\t')
        for line in m:
            row = dict(zip(head, line.rstrip('\n').split('\t')))
            if row.get('kind') == 'orc-encrypted':
                files.append(row['path'])
    if not files:
        print('SKIP: no orc-encrypted files')
        return 77
    bad = 0
    for p in files:
        try:
            n = check(t, os.path.join(corpus, p))
            print('ok   %s (%d encrypted streams)' % (p, n))
        except AssertionError as e:
            print('FAIL %s: %s' % (p, e))
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

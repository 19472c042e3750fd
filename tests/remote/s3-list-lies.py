#!/usr/bin/env python3
"""tests/remote/s3-list-lies.py: colfs_s3_list against a server that lies.

A small HTTP server on 127.0.0.1 answers ListObjectsV2 for buckets named
after cases; each case is a reply (or two pages) an S3 server should never
send, or one that colfs must read right although s3rver never sends it
(URL-encoded keys, a 5xx before the page).  The server also checks what
colfs asks: list-type=2, encoding-type=url, the prefix, max-keys, and on
the second page the continuation token of the first (a token with '/',
'+' and '=' to encode), answering 400 to anything else.

For each case s3-list (tests/remote/s3_list.c) must exit 0 with the
listing expected, or exit 1 with a message holding the words expected;
never crash, hang or list a key that was not sent.  Anonymous requests
(no credentials in the environment).
  S3_LIST=... s3-list-lies.py
Exit 0 pass, 1 fail.
"""
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse

TOKEN = 'T0k/en+1=='


def page(contents, truncated=False, token=None, name=None, prefix='pre/',
         encoded=True, key_count=None, extra=''):
    items = ''.join(
        '<Contents><Key>%s</Key><LastModified>2026-01-01T00:00:00.000Z'
        '</LastModified><ETag>&quot;x&quot;</ETag><Size>%s</Size>'
        '<StorageClass>STANDARD</StorageClass></Contents>' % (k, s)
        for k, s in contents)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            '<Name>%s</Name><Prefix>%s</Prefix><KeyCount>%d</KeyCount>'
            '<MaxKeys>1000</MaxKeys>%s<IsTruncated>%s</IsTruncated>%s%s%s'
            '</ListBucketResult>' % (
                name, urllib.parse.quote(prefix) if encoded else prefix,
                len(contents) if key_count is None else key_count,
                '<EncodingType>url</EncodingType>' if encoded else '',
                'true' if truncated else 'false',
                '<NextContinuationToken>%s</NextContinuationToken>' % token
                if token else '', items, extra))


# case -> (page 1, page 2 or None); a page is (status, body) or a body.
def cases():
    c = {}
    c['encoded'] = (
        page([('pre/a%20b%2Bc.bin', 1), ('pre/d+e.bin', 2)], True, TOKEN),
        page([('pre/z%3D1/f.bin', 4), ('pre/%C3%A9t%C3%A9.bin', 3)]))
    c['raw'] = (page([('pre/a b', 6), ('pre/a%20b', 5)], encoded=False),
                None)
    c['retry'] = ((503, '<Error><Code>SlowDown</Code></Error>'), None)
    c['outside'] = (page([('pre/a', 1), ('other/b', 2)]), None)
    c['order'] = (page([('pre/b', 1), ('pre/a', 2)]), None)
    c['again'] = (page([('pre/a', 1), ('pre/b', 2)], True, TOKEN),
                  page([('pre/b', 2), ('pre/c', 3)]))
    c['notoken'] = (page([('pre/a', 1)], True, None), None)
    c['sametoken'] = (page([('pre/a', 1)], True, TOKEN),
                      page([('pre/b', 1)], True, TOKEN))
    c['size'] = (page([('pre/a', '12a')]), None)
    c['bigsize'] = (page([('pre/a', '123456789012345678901')]), None)
    c['keycount'] = (page([('pre/a', 1)], key_count=5), None)
    c['bucket'] = (page([('pre/a', 1)], name='another'), None)
    c['prefix'] = (page([('pre/a', 1)], prefix='pr'), None)
    c['nul'] = (page([('pre/a%00b', 1)]), None)
    c['badpct'] = (page([('pre/a%zz', 1)]), None)
    c['nokey'] = (page([]).replace(
        '</ListBucketResult>',
        '<Contents><Size>1</Size></Contents></ListBucketResult>'), None)
    c['twokeys'] = (page([]).replace(
        '</ListBucketResult>',
        '<Contents><Key>pre/a</Key><Key>pre/b</Key><Size>1</Size>'
        '</Contents></ListBucketResult>'), None)
    c['doctype'] = ('<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaa">]>'
                    '<ListBucketResult>&a;</ListBucketResult>', None)
    c['notxml'] = ('<ListBucketResult><Name>x</Nam', None)
    c['root'] = ('<Other/>', None)
    c['deep'] = ('<ListBucketResult>' + '<a>' * 40 + '</a>' * 40 +
                 '</ListBucketResult>', None)
    c['longfield'] = (page([('pre/' + 'k' * 5000, 1)]), None)
    c['denied'] = ((403, '<?xml version="1.0" encoding="UTF-8"?>\n<Error>'
                    '<Code>AccessDenied</Code><Message>Access\tDenied'
                    '</Message></Error>'), None)
    c['teapot'] = ((418, 'no'), None)
    c['huge'] = ((200, None), None)  # a Content-Length past the bound
    return c


CASES = cases()
RETRIED = set()


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, status, body, length=None):
        data = body.encode() if body is not None else b''
        self.send_response(status)
        self.send_header('Content-Type', 'application/xml')
        self.send_header('Content-Length',
                         str(length if length is not None else len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        bucket = u.path.strip('/')
        q = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        want_max = '3' if bucket == 'case-encoded' else None
        if (q.get('list-type') != ['2'] or q.get('encoding-type') != ['url']
                or q.get('prefix') != ['pre/']
                or q.get('max-keys', [None])[0] != want_max):
            sys.stderr.write('bad query %s\n' % u.query)
            return self.reply(400, 'bad query %s' % u.query)
        case = CASES.get(bucket.replace('case-', '', 1))
        if not case:
            return self.reply(404, '<Error><Code>NoSuchBucket</Code></Error>')
        second = 'continuation-token' in q
        if second and q['continuation-token'] != [TOKEN]:
            sys.stderr.write('bad token %s\n' % u.query)
            return self.reply(400, 'bad token %s' % u.query)
        r = case[1] if second else case[0]
        if bucket == 'case-retry':
            if bucket not in RETRIED:
                RETRIED.add(bucket)
            else:
                r = page([('pre/x', 9)], name='case-retry')
        if bucket == 'case-huge':
            return self.reply(200, '', length=40 << 20)
        if isinstance(r, tuple):
            return self.reply(r[0], r[1])
        if '<Name>None</Name>' in r:
            r = r.replace('<Name>None</Name>', '<Name>%s</Name>' % bucket)
        self.reply(200, r)


def main():
    s3_list = os.environ.get('S3_LIST')
    if not s3_list or not os.access(s3_list, os.X_OK):
        print('FAIL: S3_LIST is not set to a program', file=sys.stderr)
        return 1
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    ep = 'http://127.0.0.1:%d' % srv.server_address[1]
    home = tempfile.mkdtemp(prefix='colfs-s3-lies.')
    env = {k: v for k, v in os.environ.items() if not k.startswith('AWS_')}
    env['HOME'] = home

    # case -> (exit status, what stdout is or stderr holds)
    expect = {
        'encoded': (0, '1\ta b+c.bin\n2\td e.bin\n4\tz=1/f.bin\n3\tété.bin\n'),
        'raw': (0, '6\ta b\n5\ta%20b\n'),
        'retry': (0, '9\tx\n'),
        'outside': (1, 'key 2 is not under the prefix'),
        'order': (1, 'key 2 does not come after the key before it'),
        'again': (1, 'page 2: key 1 does not come after'),
        'notoken': (1, 'truncated but has no NextContinuationToken'),
        'sametoken': (1, 'gives the same continuation token again'),
        'size': (1, 'the Size of key 1 is not a number'),
        'bigsize': (1, 'the Size of key 1 is not a number'),
        'keycount': (1, 'KeyCount is not the 1 objects'),
        'bucket': (1, 'names another bucket'),
        'prefix': (1, 'echoes another prefix'),
        'nul': (1, 'encodes a NUL'),
        'badpct': (1, 'is not URL-encoded'),
        'nokey': (1, 'without a Key'),
        'twokeys': (1, 'with two Keys'),
        'doctype': (1, 'a DOCTYPE'),
        'notxml': (1, 'not well-formed XML'),
        'root': (1, 'the document is <Other>'),
        'deep': (1, 'nested more than 32 deep'),
        'longfield': (1, 'a field longer than 4096 bytes'),
        'denied': (1, 'HTTP 403 AccessDenied (Access?Denied)'),
        'teapot': (1, 'HTTP 418 for a listing'),
        'huge': (1, 'more than the 33554432 accepted'),
    }
    failed = 0
    for name, (rc_want, text) in expect.items():
        args = [s3_list, '-o', 's3_endpoint=' + ep]
        if name == 'encoded':
            args += ['-m', '3']
        args.append('s3://case-%s/pre/' % name)
        try:
            p = subprocess.run(args, env=env, capture_output=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            print('FAIL: %s: s3-list hung' % name)
            failed += 1
            continue
        out = p.stdout.decode('utf-8', 'replace')
        err = p.stderr.decode('utf-8', 'replace')
        if 'Sanitizer' in err or 'runtime error' in err:
            ok = False
        elif rc_want == 0:
            ok = p.returncode == 0 and out == text
        else:
            ok = p.returncode == 1 and text in err and out == ''
        if ok:
            print('ok: %s: %s' % (name, (out if rc_want == 0 else err)
                                  .strip().replace('\n', ' | ')))
        else:
            failed += 1
            print('FAIL: %s: exit %d, stdout %r, stderr %r (wanted exit %d '
                  'and %r)' % (name, p.returncode, out, err.strip(), rc_want,
                               text))
    srv.shutdown()
    os.rmdir(home)
    print('PASS' if not failed else '%d cases failed' % failed)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

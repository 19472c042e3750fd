#!/usr/bin/env python3
"""tests/remote/azure-list-lies.py: colfs's List Blobs (formats/remote/
azure_list.c) against a server on 127.0.0.1 that answers each case's way:
a listing over two pages (NextMarker) whose blobs are then read, and
replies that lie (a name outside the prefix, names out of order, a size
that is not a number, the same NextMarker again, a DOCTYPE, a Blob
without its Name) or refuse (403 with Azure's error document).  Each
ends in the dataset's files or a message naming the fault; every query
must be the one List Blobs takes.

Environment: COLFS_TOOL, COLFS_MKSAMPLE.  Exit 0 pass, 1 fail."""
import http.server
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse

TOOL = os.environ.get('COLFS_TOOL')
MKSAMPLE = os.environ.get('COLFS_MKSAMPLE')
failures = []
queries = []
PARQUET = b''


def blob(name, size):
    return ('<Blob><Name>%s</Name><Properties><Content-Length>%s'
            '</Content-Length></Properties></Blob>' % (name, size))


def page(blobs, marker=''):
    return ('<?xml version="1.0" encoding="utf-8"?><EnumerationResults '
            'ServiceEndpoint="x" ContainerName="cnt"><Prefix>ds/</Prefix>'
            '<Blobs>%s</Blobs><NextMarker>%s</NextMarker>'
            '</EnumerationResults>' % (''.join(blobs), marker))


def pages(case, marker):
    n = len(PARQUET)
    if case == 'good':
        if not marker:
            return 200, page([blob('ds/a.parquet', n)], 'M1')
        return 200, page([blob('ds/b.parquet', n)])
    if case == 'outside':
        return 200, page([blob('other/a.parquet', n)])
    if case == 'order':
        return 200, page([blob('ds/b.parquet', n), blob('ds/a.parquet', n)])
    if case == 'size':
        return 200, page([blob('ds/a.parquet', '12x')])
    if case == 'marker':
        return 200, page([blob('ds/a%s.parquet' % (marker or '0'), n)], 'M1')
    if case == 'doctype':
        return 200, '<!DOCTYPE x [<!ENTITY e "e">]>' + page([])
    if case == 'noname':
        return 200, page(['<Blob><Properties><Content-Length>1'
                          '</Content-Length></Properties></Blob>'])
    if case == 'denied':
        return 403, ('<?xml version="1.0" encoding="utf-8"?><Error><Code>'
                     'AuthenticationFailed</Code><Message>Server failed to '
                     'authenticate the request.\nRequestId:1</Message>'
                     '</Error>')
    return 500, ''


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        parts = u.path.split('/')  # '', CASE, 'cnt', ...
        case = parts[1]
        q = urllib.parse.parse_qs(u.query)
        if u.query:
            queries.append(u.query)
            status, body = pages(case, q.get('marker', [''])[0])
            body = body.encode()
            self.send_response(status)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        # a blob: the Parquet file, by ranges
        rng = self.headers.get('Range', '')
        n = len(PARQUET)
        a, _, b = rng[len('bytes='):].partition('-')
        a = int(a)
        b = min(int(b) if b else n - 1, n - 1)
        body = PARQUET[a:b + 1]
        self.send_response(206)
        self.send_header('Content-Range', 'bytes %d-%d/%d' % (a, b, n))
        self.send_header('Content-Length', str(len(body)))
        self.send_header('ETag', '"e1"')
        self.end_headers()
        self.wfile.write(body)


def check(what, ok, detail):
    print('%s %s' % ('ok  ' if ok else 'FAIL', what) +
          ('' if ok else ': ' + detail))
    if not ok:
        failures.append(what)


def main():
    global PARQUET
    if not TOOL or not MKSAMPLE:
        print('SKIP: COLFS_TOOL and COLFS_MKSAMPLE must be set')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        pq = os.path.join(tmp, 's.parquet')
        subprocess.run([MKSAMPLE, pq, '--rows', '50'], check=True,
                       capture_output=True, timeout=60)
        PARQUET = open(pq, 'rb').read()
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_address[1]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('AZURE_STORAGE_')}

    def tool(case, *args):
        try:
            p = subprocess.run([TOOL, '-o', 'azure_endpoint=http://127.0.0.1'
                                ':%d/%s' % (port, case)] + list(args),
                               capture_output=True, timeout=60, env=env)
            return p.returncode, p.stdout.decode(), p.stderr.decode()
        except subprocess.TimeoutExpired:
            return None, '', 'timed out'

    rc, out, err = tool('good', 'ls', 'az://cnt/ds/', 'files')
    check('two pages by NextMarker: both blobs',
          rc == 0 and out.split() == ['a.parquet', 'b.parquet'],
          'exit %s: %r %s' % (rc, out, err.strip()))
    check('the queries are List Blobs\'',
          queries[:2] == ['restype=container&comp=list&prefix=ds%2F',
                          'restype=container&comp=list&prefix=ds%2F'
                          '&marker=M1'], repr(queries[:2]))
    for case, want in (
            ('outside', 'the listing gives a blob outside the prefix'),
            ('order', 'the listing is not in order'),
            ('size', 'a Content-Length that is not a number'),
            ('marker', 'gives the same NextMarker again'),
            ('doctype', 'is not a List Blobs reply: a DOCTYPE'),
            ('noname', 'a Blob without its Name or Content-Length'),
            ('denied', 'cannot list: HTTP 403 forbidden '
             '(AuthenticationFailed: Server failed to authenticate the '
             'request.)')):
        rc, out, err = tool(case, 'cat', 'az://cnt/ds/', 'summary')
        check('%s: named' % case,
              rc in (1, 2) and want in err and 'az://cnt/ds/' in err and
              'Sanitizer' not in err, 'exit %s: %s' % (rc, err.strip()))
    srv.shutdown()
    print('%d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

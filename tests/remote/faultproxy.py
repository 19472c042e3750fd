#!/usr/bin/env python3
"""A small HTTP server that injects faults, for colfs's remote tests.

    faultproxy.py (--root DIR | --upstream http://HOST:PORT) [--port N]
                  [--port-file FILE] [--mode MODES] [--tls CERT KEY]

It serves the files of DIR itself (ranges, ETag, Last-Modified, as nginx
does) or forwards each GET to an upstream server (nginx), over HTTP or
(--tls) HTTPS, and breaks the replies on purpose.  The faults of a request come from --mode (every
request) and from the first path segment when it starts with "~":

    GET /~503:3,delay:50/data.parquet   -> /data.parquet, with those faults

Faults (comma-separated):
    503:K       every K-th request of this fault set is answered 503
    500:K       the same with 500 (K=1: always)
    drop:K      every K-th reply is cut after half its body (connection
                closed)
    from:N      the other faults of the set only from the N-th request on
                (the first N-1 are served as they should be)
    until:N     the other faults of the set only up to the N-th request
                (the server recovers: the later ones are served as they
                should be)
    first:F     F (503 or drop) for the first request of each range only
                (whatever the order of requests, each range gets through
                on its second try)
    norange     Range ignored: 200 with the whole body
    nolength    no Content-Length: the body ends when the connection closes
    chunked     no Content-Length: chunked transfer encoding
    etag:N      from the N+1-th request on, another ETag
    lastmod:N   no ETag; from the N+1-th request on, another Last-Modified
    delay:MS    MS milliseconds before each reply
    loop        a redirect to itself, forever
    status:S    answered S (403, 404, 416, ...)
    auth:HEX    401 unless the request has Basic credentials USER:PASSWORD
                (HEX: "USER:PASSWORD" in hexadecimal, so that a URL
                naming the fault does not show them)
    token:HEX   403 unless the request has x-amz-security-token: TOKEN
                (HEX: TOKEN in hexadecimal)
    shift       a Content-Range one byte off what was asked
    grow:N      from the N+1-th request on, a Content-Range whose object
                size is 1000 bytes larger (same ETag)
    more        the body has one byte more than Content-Length says is
                there, on a connection that then closes

GET /_stats gives, as JSON per fault set ("" for none): requests, the
body bytes sent, and the status counts; and "_connections", how many
connections were accepted.  Standard library only.
"""
import argparse
import base64
import http.client
import http.server
import json
import os
import re
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

LOCK = threading.Lock()
STATS = {}
SEEN = set()
CONNECTIONS = [0]


def parse_faults(text):
    faults = {}
    for part in filter(None, text.split(',')):
        key, _, val = part.partition(':')
        faults[key] = val
    return faults


def parse_range(header, size):
    """(first, last) of a single bytes= range, None for none, 'bad' for a
    range that cannot be satisfied."""
    if not header:
        return None
    m = re.fullmatch(r'bytes=(\d*)-(\d*)', header.strip())
    if not m or (m.group(1) == '' and m.group(2) == ''):
        return None
    if m.group(1) == '':
        n = int(m.group(2))
        if n == 0 or size == 0:
            return 'bad'
        return (max(0, size - n), size - 1)
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else size - 1
    if first >= size or last < first:
        return 'bad'
    return (first, min(last, size - 1))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    # Headers and body go out in separate writes: without this the
    # client's delayed ACK holds every small reply for 40 ms.
    disable_nagle_algorithm = True
    server_version = 'faultproxy'

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write('faultproxy: ' + (fmt % args) + '\n')

    def count(self, key, status, nbytes):
        with LOCK:
            s = STATS.setdefault(key, {'requests': 0, 'bytes': 0,
                                       'status': {}})
            s['bytes'] += nbytes
            s['status'][str(status)] = s['status'].get(str(status), 0) + 1

    def setup(self):
        super().setup()
        with LOCK:
            CONNECTIONS[0] += 1

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == '/_stats':
            with LOCK:
                body = json.dumps(dict(STATS, _connections=CONNECTIONS[0]),
                                  sort_keys=True).encode()
            self.send_response(200)
            self.send_header('Content-Length', str(len(body)))
            self.send_header('Content-Type', 'application/json')
            self.end_headers()
            self.wfile.write(body)
            return
        key = ''
        faults = dict(self.server.faults)
        m = re.match(r'/~([^/]*)(/.*)', path)
        if m:
            key = urllib.parse.unquote(m.group(1))
            faults.update(parse_faults(key))
            path = m.group(2)
        with LOCK:
            s = STATS.setdefault(key, {'requests': 0, 'bytes': 0,
                                       'status': {}})
            s['requests'] += 1
            n = s['requests']
        if ('from' in faults and n < int(faults['from'] or 1)) or \
                ('until' in faults and n > int(faults['until'] or 0)):
            faults = {k: v for k, v in faults.items() if k == 'delay'}
        if 'delay' in faults:
            time.sleep(int(faults['delay'] or 50) / 1000.0)
        first = False
        if 'first' in faults:
            with LOCK:
                seen = (key, path, self.headers.get('Range'))
                first = seen not in SEEN
                SEEN.add(seen)
        if first and faults['first'] == '503':
            return self.plain(key, 503, b'injected fault\n')
        for code in ('503', '500'):
            if code in faults and n % max(1, int(faults[code] or 1)) == 0:
                return self.plain(key, int(code), b'injected fault\n')
        if 'auth' in faults:
            want = 'Basic ' + base64.b64encode(
                bytes.fromhex(faults['auth'])).decode()
            if self.headers.get('Authorization') != want:
                return self.plain(key, 401, b'who are you?\n',
                                  {'WWW-Authenticate': 'Basic realm="t"'})
        if 'token' in faults and self.headers.get(
                'x-amz-security-token') != \
                bytes.fromhex(faults['token']).decode():
            return self.plain(key, 403, b'bad token\n')
        if 'status' in faults:
            return self.plain(key, int(faults['status']),
                              b'injected status\n')
        if 'loop' in faults:
            self.send_response(302)
            self.send_header('Location', self.path)
            self.send_header('Content-Length', '0')
            self.end_headers()
            self.count(key, 302, 0)
            return
        try:
            status, headers, body = self.fetch(path)
        except OSError as e:
            return self.plain(key, 502, ('upstream: %s\n' % e).encode())
        if status not in (200, 206):
            return self.plain(key, status, body, headers)
        if first and faults['first'] == 'drop':
            faults['drop'] = '1'
        self.reply(key, n, faults, status, headers, body)

    def plain(self, key, status, body, headers=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.count(key, status, len(body))

    def fetch(self, path):
        """(status, headers, body) of the file, honouring Range unless
        the fault set says otherwise (the caller decides)."""
        rng = self.headers.get('Range')
        if self.server.upstream:
            u = self.server.upstream
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
            hdrs = {'Range': rng} if rng else {}
            conn.request('GET', path, headers=hdrs)
            r = conn.getresponse()
            body = r.read()
            headers = {k: v for k, v in r.getheaders()
                       if k.lower() in ('etag', 'last-modified',
                                        'content-range', 'content-type')}
            conn.close()
            return r.status, headers, body
        fs = os.path.join(self.server.root,
                          urllib.parse.unquote(path).lstrip('/'))
        fs = os.path.realpath(fs)
        if not fs.startswith(os.path.realpath(self.server.root) + os.sep) \
                or not os.path.isfile(fs):
            return 404, {}, b'not found\n'
        st = os.stat(fs)
        headers = {'ETag': '"%x-%x"' % (int(st.st_mtime), st.st_size),
                   'Last-Modified': self.date_time_string(st.st_mtime)}
        r = parse_range(rng, st.st_size)
        if r == 'bad':
            headers['Content-Range'] = 'bytes */%d' % st.st_size
            return 416, headers, b''
        with open(fs, 'rb') as f:
            if r is None:
                return 200, headers, f.read()
            f.seek(r[0])
            body = f.read(r[1] - r[0] + 1)
        headers['Content-Range'] = 'bytes %d-%d/%d' % (r[0], r[1], st.st_size)
        return 206, headers, body

    def whole(self, path):
        saved = self.headers.get('Range')
        if saved:
            del self.headers['Range']
        try:
            return self.fetch(path)
        finally:
            if saved:
                self.headers['Range'] = saved

    def reply(self, key, n, faults, status, headers, body):
        path = urllib.parse.urlsplit(self.path).path
        if 'norange' in faults and status == 206:
            status, headers, body = self.whole(re.sub(r'^/~[^/]*', '', path))
            headers.pop('Content-Range', None)
        if 'etag' in faults and n > int(faults['etag'] or 0):
            headers['ETag'] = '"changed-%s"' % (faults['etag'] or '0')
        if 'lastmod' in faults:
            headers.pop('ETag', None)
            if n > int(faults['lastmod'] or 0):
                headers['Last-Modified'] = 'Thu, 01 Jan 2037 00:00:00 GMT'
        if 'shift' in faults and 'Content-Range' in headers:
            m = re.fullmatch(r'bytes (\d+)-(\d+)/(\d+)',
                             headers['Content-Range'])
            headers['Content-Range'] = 'bytes %d-%d/%s' % (
                int(m.group(1)) + 1, int(m.group(2)) + 1, m.group(3))
        if 'grow' in faults and n > int(faults['grow'] or 0) and \
                'Content-Range' in headers:
            m = re.fullmatch(r'bytes (\d+)-(\d+)/(\d+)',
                             headers['Content-Range'])
            headers['Content-Range'] = 'bytes %s-%s/%d' % (
                m.group(1), m.group(2), int(m.group(3)) + 1000)
        drop = 'drop' in faults and n % max(1, int(faults['drop'] or 1)) == 0
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        close = False
        if 'chunked' in faults:
            self.send_header('Transfer-Encoding', 'chunked')
        elif 'nolength' in faults or 'more' in faults:
            close = True
            self.send_header('Connection', 'close')
            if 'more' in faults:
                self.send_header('Content-Length', str(len(body)))
        else:
            self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if drop:
            half = body[:len(body) // 2]
            self.wfile.write(half)
            self.wfile.flush()
            self.count(key, status, len(half))
            self.close_connection = True
            return
        if 'more' in faults:
            body += b'X'
        # In pieces, each counted once written: a client that stops
        # reading (a Range ignored) is not counted as having had it all.
        step, sent = 65536, 0
        try:
            for i in range(0, len(body), step):
                piece = body[i:i + step]
                if 'chunked' in faults:
                    piece = b'%x\r\n' % len(piece) + piece + b'\r\n'
                self.wfile.write(piece)
                self.wfile.flush()
                sent += min(step, len(body) - i)
            if 'chunked' in faults:
                self.wfile.write(b'0\r\n\r\n')
        finally:
            self.count(key, status, sent)
        if close:
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A client that hangs up (as colfs does on a reply it refuses)
        # is part of the game, not an error of the server.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--root')
    g.add_argument('--upstream')
    ap.add_argument('--port', type=int, default=0)
    ap.add_argument('--port-file')
    ap.add_argument('--mode', default='')
    ap.add_argument('--tls', nargs=2, metavar=('CERT', 'KEY'),
                    help='serve HTTPS with this certificate and key')
    ap.add_argument('--verbose', action='store_true')
    a = ap.parse_args()
    srv = Server(('127.0.0.1', a.port), Handler)
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.root = a.root
    srv.upstream = urllib.parse.urlsplit(a.upstream) if a.upstream else None
    srv.faults = parse_faults(a.mode)
    srv.verbose = a.verbose
    port = srv.server_address[1]
    if a.port_file:
        tmp = a.port_file + '.tmp'
        with open(tmp, 'w') as f:
            f.write('%d\n' % port)
        os.rename(tmp, a.port_file)
    else:
        print(port, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    main()

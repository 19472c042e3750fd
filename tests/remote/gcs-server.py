#!/usr/bin/python3
"""A Google Cloud Storage XML API server for colfs's tests (stdlib only).

    gcs-server.py --root DIR --port-file FILE [--public BUCKET]...
                  [--page N] [--log FILE]

Each directory of DIR is a bucket, each file under it an object (its path
below the bucket is the object name).  Answers as the XML API does
(https://cloud.google.com/storage/docs/xml-api/):

  GET /BUCKET/OBJECT    the object; Range: bytes=A-B, bytes=A- and
                        bytes=-N give 206 with Content-Range, a range
                        past the end 416 with Content-Range bytes */SIZE;
                        ETag, Last-Modified, x-goog-generation,
                        x-goog-metageneration, x-goog-stored-content-length
  GET /BUCKET?list-type=2&prefix=P[&continuation-token=T][&max-keys=N]
        [&encoding-type=url]
                        ListBucketResult (Name, Prefix, KeyCount, MaxKeys,
                        IsTruncated, Contents with Key, Generation,
                        MetaGeneration, LastModified, ETag, Size;
                        NextContinuationToken when truncated); --page N
                        caps a page at N keys whatever max-keys says

Requests are authenticated as GCS authenticates HMAC requests: an
Authorization header "GOOG4-HMAC-SHA256 Credential=ID/DATE/REGION/storage/
goog4_request, SignedHeaders=..., Signature=..." is checked against the
canonical request (verb, path as sent, canonical query, the signed
headers, the payload hash: x-goog-content-sha256 when sent, else the
SHA-256 of the empty body), the string to sign (GOOG4-HMAC-SHA256, the
x-goog-date, the scope, the canonical request's SHA-256) and the key
derived from "GOOG4" + secret through DATE, REGION, "storage" and
"goog4_request"; a mismatch is 403 SignatureDoesNotMatch, an unknown id
403 InvalidAccessKeyId.  Without Authorization only the --public buckets
are served (403 AccessDenied otherwise).  Errors are GCS's XML error
documents.  The HMAC key comes from the environment (GCS_TEST_ID,
GCS_TEST_SECRET), never from argv.

--log FILE: one line per request ("STATUS METHOD PATH RANGE"), the test's
count of requests and proof of what the server refused.
"""
import argparse
import calendar
import email.utils
import hashlib
import hmac
import http.server
import os
import re
import socketserver
import sys
import threading
import time
import urllib.parse
from xml.sax.saxutils import escape

ARGS = None
LOG_LOCK = threading.Lock()
EMPTY_SHA256 = hashlib.sha256(b'').hexdigest()


def error_doc(code, message, details=None):
    body = ("<?xml version='1.0' encoding='UTF-8'?><Error><Code>%s</Code>"
            "<Message>%s</Message>" % (code, escape(message)))
    if details:
        body += '<Details>%s</Details>' % escape(details)
    return (body + '</Error>').encode()


def quote(s):
    return urllib.parse.quote(s, safe='-_.~')


def canonical_query(raw):
    pairs = []
    for part in filter(None, raw.split('&')):
        k, _, v = part.partition('=')
        pairs.append((quote(urllib.parse.unquote(k)),
                      quote(urllib.parse.unquote(v))))
    return '&'.join('%s=%s' % kv for kv in sorted(pairs))


def hmac_sha256(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *a):
        pass

    def log(self, status):
        if ARGS.log:
            with LOG_LOCK, open(ARGS.log, 'a') as f:
                f.write('%d GET %s %s\n' % (status, self.path,
                                            self.headers.get('Range', '-')))

    def reply(self, status, body=b'', headers=(), ctype='application/xml'):
        self.log(status)
        self.send_response(status)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def auth(self, path, query):
        """None when the request may go on, else (status, body)."""
        h = self.headers.get('Authorization')
        if not h:
            return None if self.bucket in ARGS.public else (
                403, error_doc('AccessDenied', 'Access denied.',
                               'Anonymous caller does not have '
                               'storage.objects.get access.'))
        m = re.fullmatch(r'GOOG4-HMAC-SHA256 Credential=([^/,]+)/(\d{8})/'
                         r'([^/,]+)/storage/goog4_request, ?SignedHeaders='
                         r'([a-z0-9;-]+), ?Signature=([0-9a-f]{64})', h)
        if not m:
            return 400, error_doc('InvalidArgument',
                                  'Malformed Authorization header.')
        key_id, day, region, signed, sig = m.groups()
        if key_id != os.environ.get('GCS_TEST_ID'):
            return 403, error_doc('InvalidAccessKeyId', 'The Access Key Id '
                                  'you provided does not exist.')
        date = self.headers.get('x-goog-date', '')
        if not re.fullmatch(r'\d{8}T\d{6}Z', date) or date[:8] != day:
            return 400, error_doc('InvalidArgument', 'Missing or wrong '
                                  'x-goog-date.')
        t = calendar.timegm(time.strptime(date, '%Y%m%dT%H%M%SZ'))
        if abs(t - time.time()) > 900:
            return 403, error_doc('RequestTimeTooSkewed', 'The difference '
                                  'between the request time and the '
                                  'current time is too large.')
        names = signed.split(';')
        if 'host' not in names or 'x-goog-date' not in names:
            return 400, error_doc('InvalidArgument', 'host and x-goog-date '
                                  'must be signed.')
        headers = ''
        for n in names:
            v = self.headers.get(n)
            if v is None:
                return 400, error_doc('InvalidArgument',
                                      'A signed header is missing.')
            headers += '%s:%s\n' % (n, ' '.join(v.split()))
        payload = self.headers.get('x-goog-content-sha256', EMPTY_SHA256)
        creq = '\n'.join(['GET', path, canonical_query(query), headers,
                          signed, payload])
        scope = '%s/%s/storage/goog4_request' % (day, region)
        to_sign = '\n'.join(['GOOG4-HMAC-SHA256', date, scope,
                             hashlib.sha256(creq.encode()).hexdigest()])
        k = ('GOOG4' + os.environ.get('GCS_TEST_SECRET', '')).encode()
        for part in (day, region, 'storage', 'goog4_request'):
            k = hmac_sha256(k, part)
        want = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(want, sig):
            return 403, (error_doc('SignatureDoesNotMatch', 'Access denied.')
                         [:-len(b'</Error>')] +
                         b'<StringToSign>' + escape(to_sign).encode() +
                         b'</StringToSign></Error>')
        return None

    def do_GET(self):
        raw_path, _, query = self.path.partition('?')
        parts = raw_path.lstrip('/').split('/', 1)
        self.bucket = urllib.parse.unquote(parts[0])
        bdir = os.path.join(ARGS.root, self.bucket)
        if not self.bucket or '/' in self.bucket or \
                self.bucket.startswith('.') or not os.path.isdir(bdir):
            return self.reply(404, error_doc(
                'NoSuchBucket', 'The specified bucket does not exist.'))
        refused = self.auth(raw_path, query)
        if refused:
            return self.reply(*refused)
        if len(parts) == 1 or parts[1] == '':
            return self.listing(bdir, urllib.parse.parse_qs(query))
        name = urllib.parse.unquote(parts[1])
        path = os.path.join(bdir, name)
        if '\0' in name or any(s in ('', '.', '..')
                               for s in name.split('/')) or \
                not os.path.isfile(path):
            return self.reply(404, error_doc(
                'NoSuchKey', 'The specified key does not exist.'))
        self.object(path)

    def object(self, path):
        st = os.stat(path)
        size = st.st_size
        gen = str(st.st_mtime_ns // 1000)
        common = [('ETag', '"%s"' % hashlib.md5(
                      ('%s:%d:%s' % (path, size, gen)).encode()).hexdigest()),
                  ('Last-Modified', email.utils.formatdate(st.st_mtime,
                                                           usegmt=True)),
                  ('x-goog-generation', gen), ('x-goog-metageneration', '1'),
                  ('x-goog-stored-content-length', str(size)),
                  ('Accept-Ranges', 'bytes')]
        rng = self.headers.get('Range')
        with open(path, 'rb') as f:
            if not rng:
                return self.reply(200, f.read(), common,
                                  'application/octet-stream')
            m = re.fullmatch(r'bytes=(\d*)-(\d*)', rng.strip())
            if not m or (m.group(1) == '' and m.group(2) == ''):
                return self.reply(200, f.read(), common,
                                  'application/octet-stream')
            a, b = m.groups()
            if a == '':
                n = int(b)
                if n == 0 or size == 0:
                    return self.reply(416, error_doc(
                        'InvalidRange', 'The requested range cannot be '
                        'satisfied.'), common +
                        [('Content-Range', 'bytes */%d' % size)])
                first, last = max(0, size - n), size - 1
            else:
                first = int(a)
                last = min(int(b), size - 1) if b else size - 1
                if first >= size or (b and int(b) < first):
                    return self.reply(416, error_doc(
                        'InvalidRange', 'The requested range cannot be '
                        'satisfied.'), common +
                        [('Content-Range', 'bytes */%d' % size)])
            f.seek(first)
            body = f.read(last - first + 1)
        self.reply(206, body, common + [
            ('Content-Range', 'bytes %d-%d/%d' % (first, last, size))],
            'application/octet-stream')

    def listing(self, bdir, q):
        def one(name, default=''):
            return q.get(name, [default])[0]
        if one('list-type') != '2':
            return self.reply(400, error_doc(
                'InvalidArgument', 'This test server lists with '
                'list-type=2 only.'))
        prefix = one('prefix')
        token = one('continuation-token')
        encode = one('encoding-type') == 'url'
        try:
            max_keys = int(one('max-keys', '1000'))
        except ValueError:
            return self.reply(400, error_doc('InvalidArgument',
                                             'Bad max-keys.'))
        page = min(max_keys, ARGS.page or max_keys)
        names = []
        for d, _, files in os.walk(bdir):
            for fn in files:
                full = os.path.join(d, fn)
                names.append(os.path.relpath(full, bdir).replace(os.sep,
                                                                   '/'))
        after = urllib.parse.unquote(token) if token else None
        # UTF-8 binary order, as GCS lists
        names = sorted((n for n in names if n.startswith(prefix) and
                        (after is None or n.encode() > after.encode())),
                       key=lambda n: n.encode())
        shown, more = names[:page], len(names) > page
        enc = (lambda s: urllib.parse.quote(s, safe='/')) if encode else \
            (lambda s: s)
        out = ["<?xml version='1.0' encoding='UTF-8'?>"
               "<ListBucketResult xmlns='http://doc.s3.amazonaws.com/"
               "2006-03-01'>",
               '<Name>%s</Name>' % escape(self.bucket),
               '<Prefix>%s</Prefix>' % escape(enc(prefix)),
               '<KeyCount>%d</KeyCount>' % len(shown),
               '<MaxKeys>%d</MaxKeys>' % max_keys,
               '<IsTruncated>%s</IsTruncated>' % ('true' if more else
                                                  'false')]
        if encode:
            out.append('<EncodingType>url</EncodingType>')
        for n in shown:
            st = os.stat(os.path.join(bdir, n))
            out.append('<Contents><Key>%s</Key><Generation>%d</Generation>'
                       '<MetaGeneration>1</MetaGeneration><LastModified>%s'
                       '</LastModified><ETag>"%s"</ETag><Size>%d</Size>'
                       '</Contents>' % (
                           escape(enc(n)), st.st_mtime_ns // 1000,
                           time.strftime('%Y-%m-%dT%H:%M:%S.000Z',
                                         time.gmtime(st.st_mtime)),
                           hashlib.md5(n.encode()).hexdigest(),
                           st.st_size))
        if more:
            out.append('<NextContinuationToken>%s</NextContinuationToken>'
                       % escape(urllib.parse.quote(shown[-1], safe='')))
        out.append('</ListBucketResult>')
        self.reply(200, ''.join(out).encode())


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument('--root', required=True)
    p.add_argument('--port-file', required=True)
    p.add_argument('--public', action='append', default=[])
    p.add_argument('--page', type=int, default=0)
    p.add_argument('--log')
    ARGS = p.parse_args()
    srv = Server(('127.0.0.1', 0), Handler)
    tmp = ARGS.port_file + '.tmp'
    with open(tmp, 'w') as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/python3
"""A small Hugging Face Hub for colfs's hf:// tests: two servers on free
ports of 127.0.0.1, a "Hub" and a "CDN".  Standard library only.

    hf-server.py --root DIR --blobs DIR --port-file FILE --log-dir DIR
                 [--token TOKEN] [--private TYPE/OWNER/NAME ...]
                 [--page-size N] [--small BYTES] [--fault-cdn URL]

Repositories are folders ROOT/TYPE/OWNER/NAME/REVISION/..., TYPE one of
datasets, models, spaces, REVISION percent-encoded as one segment
("main", "refs%2Fconvert%2Fparquet").  The Hub answers, as the real one
does (the URL scheme of huggingface_hub and the Hub's API reference):

  GET|HEAD /[datasets/|spaces/]OWNER/NAME/resolve/REV/PATH
      a file smaller than --small bytes: served by the Hub itself (200,
      or 206 for a Range), ETag the file's git blob id; a larger one (an
      LFS file): 302 to the CDN, Location
      CDN/blobs/SHA256?expires=T&sig=HMAC, with X-Linked-Size,
      X-Linked-Etag ("SHA256") and X-Repo-Commit;
  GET /api/TYPE/OWNER/NAME/tree/REV[/PATH]?recursive=true
      the JSON array of the folder's entries ({"type": "directory",
      "oid", "path"} and {"type": "file", "oid", "size", "path",
      "lfs": {"oid", "size", "pointerSize"}}), --page-size entries a
      page, the next page named by a Link header: <URL>; rel="next".

A repository renamed (--renamed TYPE/OWNER/OLD=TYPE/OWNER/NEW) answers
its resolve and tree URLs with a 307 to the new name's, a relative Location, or
an absolute one on the Hub's own host when OLD starts with '@'.

A gated repository (--gated TYPE/OWNER/NAME) answers 401 without a token
and 403 with one (X-Error-Code GatedRepo): conditions not accepted.

A private repository (--private) wants "Authorization: Bearer TOKEN":
without one, 401 (X-Error-Code RepoNotFound, as the Hub hides private
repositories); a wrong token is 401 for any repository.  A missing
repository is 401 without a token and 404 with one; a missing revision
or file 404 (RevisionNotFound, EntryNotFound).

The CDN serves /blobs/SHA256 with Range (206 and Content-Range, suffix
ranges, 416), ETag "SHA256", after checking the URL's signature and
expiry (403 "Request has expired" else); GET /_expire makes every URL
given so far expire (a signed URL that timed out).

With a first path segment "~FAULTS" on the Hub (the endpoint
http://HUB/~FAULTS), the redirect goes to --fault-cdn/~FAULTS/blobs/SHA256
(tests/remote/faultproxy.py serving the parent of --blobs); "hub503"
among the faults answers the first request of each path with 503,
"hub500" every request with 500, and "lie:CASE" makes the tree API lie
(a path outside the folder, a size that is a string or negative, a file
twice, a next page on another host or naming itself, HTML).

Every request is logged, method, path and all headers, one JSON object a
line, to LOG_DIR/hub.log or LOG_DIR/cdn.log.  --port-file gets
"HUB_PORT CDN_PORT" once both listen.
"""
import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import re
import shutil
import sys
import threading
import time
import urllib.parse

LOCK = threading.Lock()
SECRET = os.urandom(16)
STATE = {'gen': 0, 'seen503': set()}
TYPES = ('datasets', 'models', 'spaces')


def log(name, handler):
    with LOCK:
        with open(os.path.join(ARGS.log_dir, name), 'a') as f:
            f.write(json.dumps({'method': handler.command,
                                'path': handler.path,
                                'headers': dict(handler.headers.items())})
                    + '\n')


def parse_range(header, size):
    """(first, last), None for none, 'bad' for a range not satisfiable."""
    if not header:
        return None
    m = re.fullmatch(r'bytes=(\d*)-(\d*)', header.strip())
    if not m or (not m.group(1) and not m.group(2)):
        return None
    if not m.group(1):
        n = int(m.group(2))
        if n == 0 or size == 0:
            return 'bad'
        return (max(0, size - n), size - 1)
    first = int(m.group(1))
    last = int(m.group(2)) if m.group(2) else size - 1
    if first >= size or last < first:
        return 'bad'
    return (first, min(last, size - 1))


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for b in iter(lambda: f.read(1 << 20), b''):
            h.update(b)
    return h.hexdigest()


def git_oid(path):
    with open(path, 'rb') as f:
        data = f.read()
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def sign(sha, expires, gen):
    return hmac.new(SECRET, ('%s:%d:%d' % (sha, expires, gen)).encode(),
                    'sha256').hexdigest()


class Base(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body=b'', headers=None, ctype='text/plain'):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def serve_file(self, path, headers):
        size = os.path.getsize(path)
        r = parse_range(self.headers.get('Range'), size)
        if r == 'bad':
            headers['Content-Range'] = 'bytes */%d' % size
            return self.answer(416, b'', headers)
        with open(path, 'rb') as f:
            if r is None:
                body, status = f.read(), 200
            else:
                f.seek(r[0])
                body, status = f.read(r[1] - r[0] + 1), 206
                headers['Content-Range'] = 'bytes %d-%d/%d' % (r[0], r[1],
                                                              size)
        headers['Accept-Ranges'] = 'bytes'
        self.answer(status, body, headers, 'application/octet-stream')


class Hub(Base):
    def do_HEAD(self):
        self.do_GET()

    def refuse(self, status, code, message):
        self.answer(status, json.dumps({'error': message}).encode(),
                    {'X-Error-Code': code, 'X-Error-Message': message},
                    'application/json')

    def do_GET(self):
        log('hub.log', self)
        split = urllib.parse.urlsplit(self.path)
        raw = split.path
        faults, prefix = '', ''
        m = re.match(r'/~([^/]*)(/.*)', raw)
        if m:
            prefix = '/~' + m.group(1)
            faults = urllib.parse.unquote(m.group(1))
            raw = m.group(2)
        if 'hub500' in faults.split(','):
            return self.answer(500, b'down\n')
        if 'hub503' in faults.split(','):
            with LOCK:
                first = (raw, split.query) not in STATE['seen503']
                STATE['seen503'].add((raw, split.query))
            if first:
                return self.answer(503, b'busy\n')
        segs = raw.split('/')[1:]
        api = segs[:1] == ['api']
        if api:
            segs = segs[1:]
        if segs and segs[0] in ('datasets', 'spaces') or api:
            rtype, segs = segs[0] if segs else '', segs[1:]
        else:
            rtype = 'models'
        if rtype not in TYPES or len(segs) < 4 or \
                segs[2] != ('tree' if api else 'resolve'):
            return self.refuse(404, 'NotFound', 'no such route')
        owner, name, rev_enc = segs[0], segs[1], segs[3]
        rev = urllib.parse.unquote(rev_enc)
        inner = urllib.parse.unquote('/'.join(segs[4:]))
        repo = '%s/%s/%s' % (rtype, owner, name)
        for old_new in ARGS.renamed:
            old, new = old_new.split('=')
            if repo == old.lstrip('@'):
                # a renamed repository: the Hub redirects (307) to the
                # new name, relative or ('@OLD') to its own host
                loc = prefix + raw.replace('/%s/%s/' % (owner, name),
                                           '/%s/' % new.split('/', 1)[1], 1)
                if old.startswith('@'):
                    loc = 'http://127.0.0.1:%d%s' % (HUB_PORT[0], loc)
                return self.answer(307, b'', {'Location': loc})
        auth = self.headers.get('Authorization')
        good = ARGS.token and auth == 'Bearer ' + ARGS.token
        if auth and not good:
            return self.refuse(401, 'InvalidCredentials',
                               'Invalid credentials in Authorization header')
        repo_dir = os.path.join(ARGS.root, rtype, owner, name)
        if not os.path.isdir(repo_dir) or \
                (repo in ARGS.private and not good):
            return self.refuse(401 if not good else 404, 'RepoNotFound',
                               'Repository Not Found for url: %s. Please '
                               'make sure you are authenticated.' % raw)
        if repo in ARGS.gated:
            # a gated repository whose conditions the token's user has
            # not accepted
            if not good:
                return self.refuse(401, 'GatedRepo',
                                   'Access to this repository is restricted')
            return self.refuse(403, 'GatedRepo',
                               'Access to this repository is restricted and '
                               'you are not in the authorized list')
        rev_dir = os.path.join(repo_dir, urllib.parse.quote(rev, safe=''))
        if not os.path.isdir(rev_dir):
            return self.refuse(404, 'RevisionNotFound',
                               'Invalid rev id: %s' % rev)
        target = os.path.normpath(os.path.join(rev_dir, inner))
        if target != rev_dir and not target.startswith(rev_dir + os.sep):
            return self.refuse(404, 'EntryNotFound', 'outside the repo')
        commit = hashlib.sha1(('%s@%s' % (repo, rev)).encode()).hexdigest()
        if api:
            return self.tree(rev_dir, target, split, prefix, commit,
                             faults.split(','))
        if not os.path.isfile(target):
            return self.refuse(404, 'EntryNotFound',
                               '%s does not exist on "%s"' % (inner, rev))
        headers = {'X-Repo-Commit': commit,
                   'ETag': '"%s"' % git_oid(target)}
        size = os.path.getsize(target)
        if size < ARGS.small:
            return self.serve_file(target, headers)
        sha = sha256_of(target)
        blob = os.path.join(ARGS.blobs, sha)
        if not os.path.exists(blob):
            shutil.copyfile(target, blob + '.tmp')
            os.replace(blob + '.tmp', blob)
        with LOCK:
            gen = STATE['gen']
        if faults and ARGS.fault_cdn:
            loc = '%s%s/blobs/%s' % (ARGS.fault_cdn, prefix, sha)
        else:
            expires = int(time.time()) + 3600
            loc = 'http://127.0.0.1:%d/blobs/%s?expires=%d&sig=%s' % (
                CDN_PORT[0], sha, expires, sign(sha, expires, gen))
        headers.update({'Location': loc, 'X-Linked-Size': str(size),
                        'X-Linked-Etag': '"%s"' % sha})
        self.answer(302, b'', headers)

    def tree(self, rev_dir, folder, split, prefix, commit, faults):
        if not os.path.isdir(folder):
            return self.refuse(404, 'EntryNotFound', 'no such folder')
        entries = []
        # the Hub's order: each folder's subfolders, then its files
        for d, dirs, files in os.walk(folder):
            dirs.sort()
            rel = os.path.relpath(d, rev_dir)
            rel = '' if rel == '.' else rel + '/'
            for x in dirs:
                entries.append({'type': 'directory', 'oid': '0' * 40,
                                'path': rel + x})
            for x in sorted(files):
                p = os.path.join(d, x)
                e = {'type': 'file', 'oid': git_oid(p),
                     'size': os.path.getsize(p), 'path': rel + x}
                if e['size'] >= ARGS.small:
                    e['lfs'] = {'oid': sha256_of(p),
                                'size': os.path.getsize(p),
                                'pointerSize': 134}
                entries.append(e)
        q = urllib.parse.parse_qs(split.query)
        start = int(base64.b64decode(q['cursor'][0])) if 'cursor' in q else 0
        page = entries[start:start + ARGS.page_size]
        headers = {'X-Repo-Commit': commit}
        if start + ARGS.page_size < len(entries):
            cursor = base64.b64encode(
                str(start + ARGS.page_size).encode()).decode()
            nq = {k: v[0] for k, v in q.items()}
            nq['cursor'] = cursor
            headers['Link'] = '<http://127.0.0.1:%d%s%s?%s>; rel="next"' % (
                HUB_PORT[0], prefix, split.path[len(prefix):],
                urllib.parse.urlencode(nq))
        # lies, one a fault: a path outside the folder, a size that is
        # not an integer or is negative, a file listed twice, a next page
        # on another host or naming itself, a reply that is not JSON
        fl = os.path.relpath(folder, rev_dir)
        if 'lie:outside' in faults:
            page.append({'type': 'file', 'oid': '0' * 40, 'size': 5,
                         'path': 'elsewhere/x.parquet'})
        if 'lie:size' in faults:
            page.append({'type': 'file', 'oid': '0' * 40, 'size': '12',
                         'path': fl + '/s.parquet'})
        if 'lie:negative' in faults:
            page.append({'type': 'file', 'oid': '0' * 40, 'size': -1,
                         'path': fl + '/n.parquet'})
        if 'lie:twice' in faults:
            page += [e for e in page if e['type'] == 'file'][:1]
        if 'lie:otherhost' in faults:
            headers['Link'] = '<http://127.0.0.2:%d%s>; rel="next"' % (
                HUB_PORT[0], self.path)
        if 'lie:self' in faults:
            headers['Link'] = '<http://127.0.0.1:%d%s>; rel="next"' % (
                HUB_PORT[0], self.path)
        body = json.dumps(page).encode()
        if 'lie:notjson' in faults:
            body = b'<html>busy</html>'
        self.answer(200, body, headers, 'application/json')


class Cdn(Base):
    def do_GET(self):
        log('cdn.log', self)
        split = urllib.parse.urlsplit(self.path)
        if split.path == '/_expire':
            with LOCK:
                STATE['gen'] += 1
            return self.answer(200, b'expired\n')
        m = re.fullmatch(r'/blobs/([0-9a-f]{64})', split.path)
        q = urllib.parse.parse_qs(split.query)
        if not m or 'expires' not in q or 'sig' not in q:
            return self.answer(403, b'<Error>AccessDenied</Error>')
        sha, expires = m.group(1), int(q['expires'][0])
        with LOCK:
            gen = STATE['gen']
        if not hmac.compare_digest(sign(sha, expires, gen), q['sig'][0]) \
                or expires < time.time():
            return self.answer(403, b'<Error>Request has expired</Error>')
        self.serve_file(os.path.join(ARGS.blobs, sha), {'ETag': '"%s"' % sha})

    do_HEAD = do_GET


HUB_PORT, CDN_PORT = [0], [0]


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', required=True)
    ap.add_argument('--blobs', required=True)
    ap.add_argument('--port-file', required=True)
    ap.add_argument('--log-dir', required=True)
    ap.add_argument('--token')
    ap.add_argument('--private', action='append', default=[])
    ap.add_argument('--page-size', type=int, default=1000)
    ap.add_argument('--small', type=int, default=10000)
    ap.add_argument('--fault-cdn')
    ap.add_argument('--renamed', action='append', default=[])
    ap.add_argument('--gated', action='append', default=[])
    ARGS = ap.parse_args()
    hub = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Hub)
    cdn = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Cdn)
    hub.daemon_threads = cdn.daemon_threads = True
    HUB_PORT[0], CDN_PORT[0] = hub.server_port, cdn.server_port
    threading.Thread(target=cdn.serve_forever, daemon=True).start()
    with open(ARGS.port_file + '.tmp', 'w') as f:
        f.write('%d %d\n' % (HUB_PORT[0], CDN_PORT[0]))
    os.replace(ARGS.port_file + '.tmp', ARGS.port_file)
    try:
        hub.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == '__main__':
    sys.exit(main())

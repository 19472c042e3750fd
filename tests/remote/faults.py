#!/usr/bin/env python3
"""The HTTP exchange (formats/remote/http.c) through a server that breaks
its replies on purpose (tests/remote/faultproxy.py): every case ends in
the file's exact bytes or in a clear error naming the fault and the HTTP
status; nothing hangs (every run has a timeout) and nothing downloads
more than it asked (the bytes the server sent are counted).

Usage: faults.py [threads|tool]
Environment: HTTP_FETCH (tests/remote/http_fetch.c), FAULTPROXY.
Exit 0 pass, 1 fail, 77 skip.
"""
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

FETCH = os.environ.get('HTTP_FETCH')
# "faults.py threads": only the case of several threads at once (the
# concurrency suite runs it under ThreadSanitizer).  "faults.py tool":
# colfs-tool and a mount on a Parquet file through the faults instead of
# http-fetch (COLFS_TOOL, COLFS, COLFS_MKSAMPLE).
THREADS_ONLY = sys.argv[1:] == ['threads']
TOOL_ONLY = sys.argv[1:] == ['tool']
PROXY = os.environ.get('FAULTPROXY')
failures = []


def check(name, ok, detail=''):
    print('%s %s%s' % ('ok  ' if ok else 'FAIL', name,
                       (': ' + detail) if detail and not ok else ''))
    if not ok:
        failures.append(name)


def fetch(url, *args, opts=(), timeout=60):
    cmd = [FETCH]
    for o in opts:
        cmd += ['-o', o]
    cmd += [url] + list(args)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b'', 'timed out after %d s' % timeout, {}, timeout
    err = p.stderr.decode(errors='replace')
    if 'Sanitizer' in err or 'runtime error:' in err:
        check('no sanitizer report: ' + ' '.join(cmd[1:]), False, err)
    stats = {}
    m = re.search(r'stats (.*)', err)
    if m:
        stats = {k: int(v) for k, v in
                 (kv.split('=') for kv in m.group(1).split())}
    secs = time.monotonic() - t0
    if os.environ.get('FAULTS_VERBOSE'):
        print('  %.2f s: %s' % (secs, ' '.join(cmd[1:])))
    return p.returncode, p.stdout, err, stats, secs


def main():
    if not FETCH or not PROXY:
        print('SKIP: HTTP_FETCH and FAULTPROXY must be set')
        return 77
    if TOOL_ONLY and not all(os.environ.get(v) for v in
                             ('COLFS_TOOL', 'COLFS', 'COLFS_MKSAMPLE')):
        print('SKIP: COLFS_TOOL, COLFS and COLFS_MKSAMPLE must be set')
        return 77
    tmp = tempfile.mkdtemp(prefix='colfs-faults-')
    proxy = None
    try:
        return run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp):
    rnd = random.Random(15)
    root = os.path.join(tmp, 'root')
    os.mkdir(root)
    data = rnd.randbytes(3 * 1024 * 1024 + 12345)
    big = rnd.randbytes(24 * 1024 * 1024)
    small = b'0123456789' * 10
    for name, b in (('data.bin', data), ('big.bin', big),
                    ('small.bin', small), ('empty.bin', b'')):
        with open(os.path.join(root, name), 'wb') as f:
            f.write(b)
    proxies = []
    try:
        port = start_proxy(tmp, proxies, '--root', root)
        if port and THREADS_ONLY:
            threads(port, data)
        elif port and TOOL_ONLY:
            tool(tmp, port, root)
        elif port:
            cases(port, data, big, small)
            tls(tmp, proxies, root, data)
    finally:
        for p in proxies:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
    print('%d failed' % len(failures))
    return 1 if failures else 0


def threads(port, data):
    """Four threads over one exchange (its shared connections), through
    503s and dropped connections: each gets the file's bytes."""
    for faults in ('', '~first:503/', '~first:drop/'):
        url = 'http://127.0.0.1:%d/%sdata.bin' % (port, faults)
        rc, out, err, st, _ = fetch(url, 'threads', '131072')
        check('4 threads at once%s' % (' through ' + faults[1:-1]
                                       if faults else ''),
              rc == 0 and out == data, 'exit %s, %d bytes: %s' %
              (rc, len(out), err.strip()))
        if faults:
            check('4 threads at once: retried', st.get('retries', 0) > 0,
                  'stats %s' % st)


def tool(tmp, port, root):
    """colfs-tool cat and a mount of a Parquet file larger than the tail
    the first request fetches (so that views need more requests), through
    the faults: the local file's bytes, or the fault named on stderr or in
    `errors`."""
    tool_exe, colfs = os.environ['COLFS_TOOL'], os.environ['COLFS']
    pq = os.path.join(root, 's.parquet')
    r = subprocess.run([os.environ['COLFS_MKSAMPLE'], pq, '--rows', '100000',
                        '--row-groups', '4'], capture_output=True,
                       timeout=60)
    if r.returncode or os.path.getsize(pq) <= 2 << 20:
        check('colfs-mksample writes a 3 MB file', False, r.stderr.decode())
        return
    views = ['summary', 'columns/name', 'columns/price',
             'row_groups/2/chunks/id/values']

    def cat(path, *args):
        try:
            p = subprocess.run([tool_exe, 'cat', path] + list(args),
                               capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return None, b'', 'timed out'
        return p.returncode, p.stdout, p.stderr.decode(errors='replace')

    def summary_free(out):
        # The summary names the file: compare the rest.
        return b'\n'.join(l for l in out.split(b'\n')
                          if b's.parquet' not in l)

    rc, local, err = cat(pq, *views)
    check('colfs-tool cat of the local file', rc == 0 and local, err)
    base = 'http://127.0.0.1:%d' % port
    for faults in ('', 'first:503', 'first:drop', 'delay:50'):
        url = '%s/%ss.parquet' % (base, '~%s/' % faults if faults else '')
        rc, out, err = cat(url, *views)
        check('colfs-tool cat through %s' % (faults or 'no fault'),
              rc == 0 and summary_free(out) == summary_free(local),
              'exit %s: %s' % (rc, err.strip()))
    for faults, pattern in (
            ('norange', r'server ignored the Range request \(HTTP 200 '
             r'with the whole object of \d+ bytes for the last'),
            ('from:2,norange', r'server ignored the Range request \(HTTP '
             r'200 with the whole object of \d+ bytes for bytes \d+-\d+'),
            ('status:403', r'HTTP 403 \(forbidden\) for the last'),
            ('from:3,status:404', r'HTTP 404 \(not found\) for bytes'),
            ('from:2,500:1', r'HTTP 500 for bytes \d+-\d+ after 4 tries'),
            ('from:3,nolength', r'reply without a valid Content-Length'),
            ('from:2,loop', r'more than 5 redirects'),
            ('from:2,etag:1', r'source changed since mount \(ETag "[^"]+" '
             r'-> "changed-1"\): remount')):
        url = '%s/~%s/s.parquet' % (base, faults)
        rc, out, err = cat(url, *views)
        check('colfs-tool cat through %s: named' % faults,
              rc in (1, 2) and re.search(pattern, err) is not None and
              url in err and 'Sanitizer' not in err,
              'exit %s: %s' % (rc, err.strip()))
    azure(root, pq, base, views, local, summary_free)
    gcs(root, pq, base, views, local, summary_free)
    # The mount itself makes two requests (the tail, the head's magic).
    mount_etag(tmp, colfs, '%s/~etag:2/s.parquet' % base)
    mount_recover(tmp, colfs, base, 'from:3,until:40,500:1', 40)


def azure(root, pq, base, views, local, summary_free):
    """The same file as an Azure blob, az://azc/s.parquet with
    -o azure_endpoint at the proxy (anonymous): the size learnt by a range
    from the start (Azure takes no suffix range), then the same faults end
    in the local file's bytes or the fault named."""
    os.makedirs(os.path.join(root, 'azc'), exist_ok=True)
    shutil.copy(pq, os.path.join(root, 'azc', 's.parquet'))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('AZURE_STORAGE_')}
    for faults, pattern in (
            ('', None), ('first:503', None), ('first:drop', None),
            ('delay:50', None),
            ('norange', r'server ignored the Range request \(HTTP 200 '
             r'with the whole object of \d+ bytes for the first 2097152'),
            ('status:403', r'HTTP 403 \(forbidden\) for the first'),
            ('from:2,status:404', r'HTTP 404 \(not found\) for bytes'),
            ('from:2,500:1', r'HTTP 500 for bytes \d+-\d+ after 4 tries'),
            ('from:2,nolength', r'reply without a valid Content-Length'),
            ('from:2,etag:1', r'source changed since mount \(ETag "[^"]+" '
             r'-> "changed-1"\): remount')):
        # (a comma would end the -o value: percent-encoded, the proxy
        # decodes the faults; 'az' keeps the proxy's request count for
        # these apart from the http:// cases)
        ep = ('%s/~az%%2C%s' % (base, faults.replace(',', '%2C'))
              if faults else base)
        try:
            p = subprocess.run([os.environ['COLFS_TOOL'], '-o',
                                'azure_endpoint=' + ep, 'cat',
                                'az://azc/s.parquet'] + views,
                               capture_output=True, timeout=60, env=env)
            rc, out, err = (p.returncode, p.stdout,
                            p.stderr.decode(errors='replace'))
        except subprocess.TimeoutExpired:
            rc, out, err = None, b'', 'timed out'
        what = 'az:// through %s' % (faults or 'no fault')
        if pattern is None:
            check(what, rc == 0 and summary_free(out) == summary_free(local),
                  'exit %s: %s' % (rc, err.strip()))
        else:
            check(what + ': named', rc in (1, 2) and
                  re.search(pattern, err) is not None and
                  'az://azc/s.parquet' in err and 'Sanitizer' not in err,
                  'exit %s: %s' % (rc, err.strip()))


def gcs(root, pq, base, views, local, summary_free):
    """The same file as a GCS object, gs://gcb/s.parquet with
    -o gcs_endpoint at the proxy (anonymous, path style): the tail by a
    suffix range as for http://, and the faults of the http:// list (503s,
    drops, latency, one byte more; a Range ignored, 401, 403, 404, 416,
    500s past the retries, no Content-Length, chunked, a shifted
    Content-Range, a redirect loop, a changed ETag, Last-Modified or size)
    end in the local file's bytes or the fault named with the gs://
    name."""
    os.makedirs(os.path.join(root, 'gcb'), exist_ok=True)
    shutil.copy(pq, os.path.join(root, 'gcb', 's.parquet'))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith('GCS_') and
           k != 'GOOGLE_APPLICATION_CREDENTIALS'}
    for faults, pattern in (
            ('', None), ('first:503', None), ('first:drop', None),
            ('delay:50', None),
            ('norange', r'server ignored the Range request \(HTTP 200 '
             r'with the whole object of \d+ bytes for the last'),
            ('status:403', r'HTTP 403 \(forbidden\) for the last'),
            ('status:416', r'HTTP 416 \(range not satisfiable\) for the '
             r'last'),
            ('from:3,status:404', r'HTTP 404 \(not found\) for bytes'),
            ('from:2,500:1', r'HTTP 500 for bytes \d+-\d+ after 4 tries'),
            ('from:3,nolength', r'reply without a valid Content-Length'),
            ('from:2,shift', r'Content-Range'),
            ('from:2,loop', r'more than 5 redirects'),
            ('from:2,etag:1', r'source changed since mount \(ETag "[^"]+" '
             r'-> "changed-1"\): remount'),
            ('503:2', None), ('more', None),
            ('500:1', r'HTTP 500 for the last \d+ bytes after 4 tries'),
            ('status:401', r'HTTP 401 \(unauthorized\) for the last'),
            ('from:2,chunked', r'reply without a valid Content-Length'),
            ('from:2,grow:1', r'source changed since mount \(size \d+ -> '
             r'\d+\): remount'),
            ('lastmod:1', r'source changed since mount '
             r'\(Last-Modified .* -> Thu, 01 Jan 2037 00:00:00 GMT\): '
             r'remount')):
        # ('gs' keeps the proxy's request count for these apart)
        ep = ('%s/~gs%%2C%s' % (base, faults.replace(',', '%2C'))
              if faults else base)
        try:
            p = subprocess.run([os.environ['COLFS_TOOL'], '-o',
                                'gcs_endpoint=' + ep, 'cat',
                                'gs://gcb/s.parquet'] + views,
                               capture_output=True, timeout=60, env=env)
            rc, out, err = (p.returncode, p.stdout,
                            p.stderr.decode(errors='replace'))
        except subprocess.TimeoutExpired:
            rc, out, err = None, b'', 'timed out'
        what = 'gs:// through %s' % (faults or 'no fault')
        if pattern is None:
            check(what, rc == 0 and summary_free(out) == summary_free(local),
                  'exit %s: %s' % (rc, err.strip()))
        else:
            check(what + ': named', rc in (1, 2) and
                  re.search(pattern, err) is not None and
                  'gs://gcb/s.parquet' in err and 'Sanitizer' not in err,
                  'exit %s: %s' % (rc, err.strip()))


def mount_etag(tmp, colfs, url):
    """A mount whose object changes after the first request: reads answer
    EIO, and `errors` and `summary` say the source changed."""
    if not shutil.which('fusermount3') or not os.path.exists('/dev/fuse'):
        print('skip the mount case: no fusermount3 or /dev/fuse')
        return
    mnt = os.path.join(tmp, 'mnt')
    os.mkdir(mnt)
    log = open(os.path.join(tmp, 'colfs.log'), 'w+')
    d = subprocess.Popen([colfs, '-f', url, mnt], stdout=log, stderr=log)
    try:
        for _ in range(400):
            if os.path.ismount(mnt) or d.poll() is not None:
                break
            time.sleep(0.025)
        if not os.path.ismount(mnt):
            log.seek(0)
            check('mount through the proxy', False, log.read())
            return
        r = subprocess.run(['timeout', '30', 'cat', mnt + '/columns/name'],
                           capture_output=True)
        check('mount, ETag changed: EIO', r.returncode != 0 and
              b'Input/output error' in r.stderr, r.stderr.decode())
        r = subprocess.run(['timeout', '30', 'cat', mnt + '/errors'],
                           capture_output=True)
        changed = (rb'source changed since mount \(ETag "[^"]+" -> '
                   rb'"changed-2"\): remount')
        check('mount, ETag changed: errors says so', r.returncode == 0 and
              re.search(changed, r.stdout) is not None,
              r.stdout.decode(errors='replace'))
        r = subprocess.run(['timeout', '30', 'cat', mnt + '/summary'],
                           capture_output=True)
        check('mount, ETag changed: summary starts with it',
              r.returncode == 0 and re.match(changed, r.stdout) is not None,
              r.stdout.decode(errors='replace')[:300])
    finally:
        subprocess.run(['fusermount3', '-u', mnt], capture_output=True,
                       timeout=30)
        try:
            d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
        log.close()


def mount_recover(tmp, colfs, base, key, until):
    """A server that fails every request after the mount's two, up to
    request `until` (a read gives up after 4 tries), then recovers: the
    reads that failed are in `errors`, not past while no request got
    through, and once a later read got its bytes from the server, each
    line says the failure is past and when the source answered again."""
    url = '%s/~%s/s.parquet' % (base, key)
    stats_url = base + '/_stats'
    if not shutil.which('fusermount3') or not os.path.exists('/dev/fuse'):
        print('skip the recovery mount case: no fusermount3 or /dev/fuse')
        return
    mnt = os.path.join(tmp, 'mnt-recover')
    os.mkdir(mnt)
    log = open(os.path.join(tmp, 'colfs-recover.log'), 'w+')
    # one read at a time: the failing requests are one read's tries
    d = subprocess.Popen([colfs, '-f', '-o', 'decode_threads=0', url, mnt],
                         stdout=log, stderr=log)
    try:
        for _ in range(400):
            if os.path.ismount(mnt) or d.poll() is not None:
                break
            time.sleep(0.025)
        if not os.path.ismount(mnt):
            log.seek(0)
            check('recovery: mount through the proxy', False, log.read())
            return
        def cat(name):
            return subprocess.run(['timeout', '30', 'cat', mnt + '/' + name],
                                  capture_output=True)

        def requests():
            with urllib.request.urlopen(stats_url, timeout=10) as f:
                return json.load(f).get(key, {}).get('requests', 0)

        r = cat('columns/name')
        failed = rb'I/O error: [^\n]*: HTTP 500 for bytes \d+-\d+ after 4 tries'
        errors = cat('errors').stdout
        n = requests()
        check('recovery: a read while the server fails: in errors (%d '
              'requests)' % n, re.search(failed, errors) is not None,
              errors.decode(errors='replace'))
        if n <= until:
            check('recovery: no line is past before the server answered',
                  b'past' not in errors, errors.decode(errors='replace'))
        for _ in range(20):
            r = cat('columns/name')
            if r.returncode == 0 and requests() > until:
                break
        check('recovery: a read after the server recovered',
              r.returncode == 0, r.stderr.decode())
        errors = cat('errors').stdout
        lines = [l for l in errors.split(b'\n') if re.search(failed, l)]
        past = (failed + rb' \(past: the source answered again at '
                rb'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)$')
        check('recovery: errors says each failure is past, and since when',
              lines and all(re.search(past, l) for l in lines),
              errors.decode(errors='replace'))
    finally:
        subprocess.run(['fusermount3', '-u', mnt], capture_output=True,
                       timeout=30)
        try:
            d.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.kill()
        log.close()


def start_proxy(tmp, proxies, *args):
    """The port of a new fault proxy, None if it did not start."""
    port_file = os.path.join(tmp, 'port%d' % len(proxies))
    p = subprocess.Popen([sys.executable, PROXY, '--port-file', port_file]
                         + list(args))
    proxies.append(p)
    for _ in range(200):
        if os.path.exists(port_file) or p.poll() is not None:
            break
        time.sleep(0.05)
    if not os.path.exists(port_file):
        check('the fault proxy starts (%s)' % ' '.join(args), False)
        return None
    return int(open(port_file).read())


def tls(tmp, proxies, root, data):
    """HTTPS: verified against -o cafile; refused, not retried, without."""
    if not shutil.which('openssl'):
        print('skip https cases: openssl is not installed '
              '(tools/bootstrap.sh installs it)')
        return
    cert, key = os.path.join(tmp, 'cert.pem'), os.path.join(tmp, 'key.pem')
    r = subprocess.run(['openssl', 'req', '-x509', '-newkey', 'ec',
                        '-pkeyopt', 'ec_paramgen_curve:prime256v1',
                        '-nodes', '-keyout', key, '-out', cert, '-days', '2',
                        '-subj', '/CN=127.0.0.1',
                        '-addext', 'subjectAltName=IP:127.0.0.1'],
                       capture_output=True, timeout=60)
    check('openssl req makes a certificate', r.returncode == 0,
          r.stderr.decode(errors='replace'))
    if r.returncode:
        return
    port = start_proxy(tmp, proxies, '--root', root, '--tls', cert, key)
    if not port:
        return
    url = 'https://127.0.0.1:%d/data.bin' % port
    rc, out, err, st, _ = fetch(url, 'stream', '1048576',
                                opts=['cafile=' + cert])
    check('https with -o cafile', rc == 0 and out == data, err.strip())
    rc, out, err, st, _ = fetch(url, 'tail', '100',
                                opts=['cafile=' + key])
    check('https, a cafile without certificates', rc == 1 and
          'cannot read the CA certificates of cafile=' in err, err.strip())
    rc, out, err, st, _ = fetch(url, 'tail', '100')
    check('https, a certificate no CA vouches for: refused, not retried',
          rc == 1 and url in err and "TLS certificate is not trusted" in err
          and
          st.get('requests') == 1, err.strip())


def cases(port, data, big, small):
    base = 'http://127.0.0.1:%d' % port

    def url(faults, name='data.bin'):
        return '%s/~%s/%s' % (base, faults, name) if faults else \
            '%s/%s' % (base, name)

    def served(faults):
        with urllib.request.urlopen(base + '/_stats', timeout=10) as r:
            return json.load(r).get(faults, {})
        # "_connections": a number; the stats request's own included

    def same(name, faults, *args, opts=(), want=data, retried=None):
        rc, out, err, st, secs = fetch(url(faults), *args, opts=opts)
        check(name, rc == 0 and out == want,
              'exit %s, %d bytes (want %d): %s' % (rc, len(out), len(want),
                                                  err.strip()))
        if retried is not None:
            check(name + ' retried', (st.get('retries', 0) > 0) == retried,
                  'stats %s' % st)
        return st, secs

    def error(name, faults, pattern, *args, opts=(), file='data.bin',
              requests=None):
        rc, out, err, st, _ = fetch(url(faults, file), *args, opts=opts)
        check(name, rc == 1 and re.search(pattern, err) is not None and
              'http://127.0.0.1:%d' % port in err or
              (rc == 1 and 'source changed' in pattern and
               re.search(pattern, err) is not None),
              'exit %s, stderr %r' % (rc, err.strip()))
        if requests is not None:
            check(name + ' requests', st.get('requests') == requests,
                  'stats %s' % st)
        return st

    # The exchange as it should be: tail, ranges, all of it in pieces.
    rc, out, err, st, _ = fetch(url(''), 'tail', '100000')
    check('tail', rc == 0 and out == data[-100000:] and
          'size %d' % len(data) in err, err.strip())
    rng = [(0, 1), (5, 4000), (len(data) - 7, 7), (1 << 20, 300000)]
    rng += [(rnd_off, 1000) for rnd_off in range(17, 2000000, 99991)]
    want = b''.join(data[o:o + n] for o, n in rng)
    same('ranges, %d in flight' % len(rng), '', 'ranges',
         *['%d:%d' % r for r in rng], want=want)
    conns = served('_connections')
    st, _ = same('whole file in 256 KiB ranges', '', 'stream', '262144',
                 retried=False)
    conns = served('_connections') - conns
    print('  %d connections for the 13 ranges and the tail' % conns)
    check('connections reused from call to call', conns <= 5,
          '%d connections for %s requests' % (conns, st.get('requests')))
    check('requests counted', st.get('requests') == 1 + -(-len(data) //
                                                          262144),
          'stats %s' % st)
    rc, out, err, st, _ = fetch(url('', 'small.bin'), 'tail', '65536')
    check('tail longer than the object', rc == 0 and out == small and
          'size 100' in err, err.strip())
    rc, out, err, st, _ = fetch(url('', 'empty.bin'), 'tail', '65536')
    check('tail of an empty object (416 bytes */0)', rc == 0 and out == b''
          and 'size 0' in err, err.strip())

    # Faults that retries get through.
    same('503 for the first request of each range', 'first:503', 'stream',
         '262144', retried=True)
    same('connection dropped mid-body, the first time of each range',
         'first:drop', 'stream', '262144', retried=True)
    # One request at a time: the tail, then the range answered 503
    # (every 2nd request), then its retry.
    st, _ = same('503 every 2nd request', '503:2', 'ranges', '1000:5000',
                 want=data[1000:6000], retried=True)
    check('503 every 2nd request: 3 requests', st.get('requests') == 3,
          'stats %s' % st)
    same('one byte more than Content-Length', 'more', 'stream', '262144',
         retried=False)
    st, secs = same('50 ms per request', 'delay:50', 'stream', '1048576')
    check('50 ms per request: delayed', secs >= 0.1, '%.3f s' % secs)

    # Faults that end in an error naming them.
    error('500 always: 4 tries then the status', '500:1',
          r'HTTP 500 for the last \d+ bytes after 4 tries', 'stream',
          '262144', requests=4)
    error('403: named, not retried', 'status:403', r'HTTP 403 \(forbidden\)',
          'stream', '262144', requests=1)
    error('404: named, not retried', 'status:404', r'HTTP 404 \(not found\)',
          'stream', '262144', requests=1)
    error('401: named, not retried', 'status:401',
          r'HTTP 401 \(unauthorized\)', 'stream', '262144', requests=1)
    error('416', 'status:416', r'HTTP 416 \(range not satisfiable\)',
          'stream', '262144', requests=1)
    error('redirect loop', 'loop',
          r'more than 5 redirects .*\(a redirect loop\?\), last HTTP 302',
          'stream', '262144', requests=1)
    error('Content-Range off by one', 'shift', r'Content-Range', 'stream',
          '262144')
    error('no Content-Length (close-delimited)', 'nolength',
          r'reply without a valid Content-Length \(HTTP 206', 'stream',
          '262144')
    error('no Content-Length (chunked)', 'chunked',
          r'reply without a valid Content-Length \(HTTP 206', 'stream',
          '262144')
    error('ETag changed during the reads', 'etag:3',
          r'source changed since mount \(ETag "[^"]*" -> "changed-3"\): '
          r'remount', 'stream', '262144')
    error('object size changed during the reads (same ETag)', 'grow:3',
          r'source changed since mount \(size 3158073 -> 3159073\): '
          r'remount', 'stream', '262144')
    error('Last-Modified changed during the reads', 'lastmod:3',
          r'source changed since mount \(Last-Modified .* -> Thu, 01 Jan '
          r'2037 00:00:00 GMT\): remount', 'stream', '262144')

    # Credentials: given to the server, never shown.
    secret = 's3cr3t-pw'
    auth = 'auth:' + ('colfs:' + secret).encode().hex()
    rc, out, err, st, _ = fetch(url(auth), 'stream', '262144')
    check('Basic auth, none given: 401 named', rc == 1 and
          'HTTP 401 (unauthorized)' in err, err.strip())
    for given in ('colfs:' + secret, 'colfs:wrong-' + secret):
        p = subprocess.run([FETCH, '-u', given, url(auth),
                            'stream', '262144'], capture_output=True,
                           timeout=60)
        err = p.stderr.decode(errors='replace')
        good = given == 'colfs:' + secret
        check('Basic auth, %s password' % ('the right' if good else 'a wrong'),
              (p.returncode == 0 and p.stdout == data) if good else
              (p.returncode == 1 and 'HTTP 401 (unauthorized)' in err),
              err.strip())
        check('Basic auth: the password is in no message', secret not in err,
              err)
    token = 'tok-SECRET-123'
    for given in (token, 'other-' + token):
        p = subprocess.run([FETCH, '-t', given,
                            url('token:' + token.encode().hex()),
                            'tail', '1000'], capture_output=True, timeout=60)
        err = p.stderr.decode(errors='replace')
        good = given == token
        check('session token, %s one' % ('the right' if good else 'a wrong'),
              (p.returncode == 0 and p.stdout == data[-1000:]) if good else
              (p.returncode == 1 and 'HTTP 403 (forbidden)' in err),
              err.strip())
        check('session token: in no message', token not in err, err)

    # A server that ignores Range: an error, and not a download.
    st = error('Range ignored', 'norange',
               r'server ignored the Range request \(HTTP 200 with the whole '
               r'object of 25165824 bytes', 'stream', '262144',
               file='big.bin', requests=1)
    sent = served('norange').get('bytes', 0)
    check('Range ignored: no silent full download',
          st.get('bytes', 1 << 30) <= 1 << 20 and sent < len(big) // 2,
          'colfs received %s, server sent %d of %d' %
          (st.get('bytes'), sent, len(big)))
    same('Range ignored, allow_full_download, small object', 'norange',
         'stream', '262144', opts=['allow_full_download'])
    error('Range ignored, allow_full_download, object over remote_cache',
          'norange', r'larger than remote_cache \(4194304 bytes\): not '
          r'downloaded', 'stream', '262144', file='big.bin',
          opts=['allow_full_download', 'remote_cache=4M'], requests=1)

    # Nobody there: retried, bounded, named.
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    dead = s.getsockname()[1]
    s.close()
    rc, out, err, st, secs = fetch('http://127.0.0.1:%d/x' % dead, 'tail',
                                   '100')
    check('connection refused: 4 tries then the error', rc == 1 and
          re.search(r"Couldn't connect to server \(no reply\) .* after 4 "
                    r"tries", err) is not None and st.get('requests') == 4,
          err.strip())


if __name__ == '__main__':
    sys.exit(main())

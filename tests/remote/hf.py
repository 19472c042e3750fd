#!/usr/bin/python3
"""hf:// end to end against a Hub and a CDN of the test's own
(tests/remote/hf-server.py), started on free ports of 127.0.0.1 and
stopped by the test.

    hf.py [faults]     (COLFS, COLFS_TOOL, COLFS_MKSAMPLE; CORPUS optional;
                        FAULTPROXY for 'faults')

Default (remote-hf):
  - names: datasets/, models/, a model without the prefix, spaces/, the
    revision as @~parquet, @refs%2Fconvert%2Fparquet and
    @refs/convert/parquet, a renamed repository (the Hub's redirect,
    relative and absolute, followed on the Hub): colfs-tool cat gives
    the local file's views;
  - mounts of an LFS file (302 to the CDN), a corpus file the Hub serves
    itself in a private repository (the token as bearer to the Hub), a
    private LFS file, and a folder (a dataset, listed over pages of two
    entries) hash file by file as the local mounts;
  - mount + ls + cat summary of a file larger than the first request's
    2 MiB: at most 2 requests (the tail, the head's magic) and the Hub's
    one lookup (its redirect: a hop, counted apart), as the servers'
    logs show them and as `io` counts them; cat columns/X fetches at
    most 1.05 x the compressed bytes of X's chunks;
  - a signed URL that expires (the CDN's /_expire): the next read asks
    the Hub again once and gets the bytes; once the file changed on the
    Hub, the next expiry leads to other bytes: a changed source (EIO,
    `errors`);
  - refusals named: a private repository without a token (401, naming
    HF_TOKEN), a wrong token (401), a gated repository whose conditions
    the token's user has not accepted (403), a missing file, revision or
    repository (404), the mount refused with the same line;
  - a corpus Delta table in a folder: the local table's summary and
    schema;
  - a listing that lies (a path outside the folder, a bad size, a file
    twice, a next page elsewhere or naming itself, not JSON): named;
  - the token from HF_TOKEN, HUGGING_FACE_HUB_TOKEN and the token file;
  - the token never reaches the CDN (its log of request headers), and is
    in no message, no file of a mount, no command line.
'faults' (remote-hf-faults): the faults of remote-http-faults between
colfs and the CDN (tests/remote/faultproxy.py serving the blobs), and
503s and 500s from the Hub: each ends in the local file's bytes or the
fault named.
Exit 0 pass, 1 fail, 77 skip.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

TOKEN = 'hf_Q7XZcolfsHubToken0123456789'
CHANGING = 'data/changing.parquet'
LEAK = 'Q7XZcolfsHubToken'
failures = []
stderr_all = []


def check(name, ok, detail=''):
    print('%s %s%s' % ('ok  ' if ok else 'FAIL', name,
                       (': ' + str(detail)[:600]) if detail and not ok
                       else ''), flush=True)
    if not ok:
        failures.append(name)


def run(cmd, env=None, timeout=60):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout,
                           env=env)
    except subprocess.TimeoutExpired:
        return None, b'', 'timed out after %d s' % timeout
    err = p.stderr.decode(errors='replace')
    stderr_all.append(err)
    if 'Sanitizer' in err or 'runtime error:' in err:
        check('no sanitizer report: ' + ' '.join(cmd[1:]), False, err)
    return p.returncode, p.stdout, err


def env_with(**kw):
    env = {k: v for k, v in os.environ.items()
           if k not in ('HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'HF_ENDPOINT',
                        'HF_TOKEN_PATH', 'HF_HOME')}
    env['XDG_CACHE_HOME'] = os.path.join(WORK, 'cache')  # no token file
    env.update({k: v for k, v in kw.items() if v is not None})
    return env


def start_hub(*extra):
    ports = os.path.join(WORK, 'ports')
    if os.path.exists(ports):
        os.unlink(ports)
    p = subprocess.Popen([sys.executable, os.path.join(HERE, 'hf-server.py'),
                          '--root', REPOS, '--blobs', BLOBS,
                          '--port-file', ports, '--log-dir', LOGS,
                          '--token', TOKEN,
                          '--private', 'datasets/colfs/priv'] + list(extra))
    PROCS.append(p)
    for _ in range(200):
        if os.path.exists(ports) or p.poll() is not None:
            break
        time.sleep(0.05)
    with open(ports) as f:
        hub, cdn = f.read().split()
    return int(hub), int(cdn)


def log_lines(name):
    try:
        with open(os.path.join(LOGS, name)) as f:
            return [json.loads(l) for l in f]
    except FileNotFoundError:
        return []


def make(path, *args):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    r = subprocess.run([os.environ['COLFS_MKSAMPLE'], path] + list(args),
                       capture_output=True, timeout=120)
    if r.returncode:
        print('FAIL colfs-mksample %s: %s' % (path, r.stderr.decode()))
        sys.exit(1)


def put(repo, rev, path, src):
    rev_dir = os.path.join(REPOS, repo, rev.replace('/', '%2F'))
    dst = os.path.join(rev_dir, path)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)


# ---- mounts ----------------------------------------------------------------

def mount(name, opts, env, log):
    mnt = tempfile.mkdtemp(dir=WORK, prefix='mnt.')
    d = subprocess.Popen([os.environ['COLFS'], '-f'] + opts + [name, mnt],
                         stdout=log, stderr=log, env=env)
    for _ in range(400):
        if os.path.ismount(mnt) or d.poll() is not None:
            break
        time.sleep(0.025)
    if not os.path.ismount(mnt):
        d.wait(timeout=30)
        return None, None
    MOUNTS.append(mnt)
    with open('/proc/%d/cmdline' % d.pid, 'rb') as f:
        check('the command line of the mount of %s holds no token' % name,
              LEAK.encode() not in f.read())
    return mnt, d


def unmount(mnt, d):
    subprocess.run(['fusermount3', '-u', mnt], capture_output=True,
                   timeout=30)
    try:
        d.wait(timeout=30)
    except subprocess.TimeoutExpired:
        d.kill()


def tree_sums(root):
    sums = {}
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            with open(p, 'rb') as fh:
                data = fh.read()
            sums[os.path.relpath(p, root)] = (hashlib.sha256(data)
                                              .hexdigest(), data)
    return sums


def mount_same(local, name, opts, env):
    """Every file of the local mount of `local` is in the mount of `name`
    (which has `io` besides) with the same bytes; the files naming the
    source (summary, README, layout.svg) equal once the name is put
    back; no file holds the token."""
    log = open(os.path.join(WORK, 'colfs.log'), 'a+')
    lm, ld = mount(local, [], env, log)
    rm, rd = mount(name, opts, env, log)
    if not lm or not rm:
        log.seek(0)
        check('mount of %s' % name, False, log.read()[-500:])
        for m, d in ((lm, ld), (rm, rd)):
            if m:
                unmount(m, d)
        return
    try:
        ls, rs = tree_sums(lm), tree_sums(rm)
        naming = re.compile(r'(^|/)(summary|README|layout\.svg)$')
        names_l = set(ls)
        names_r = set(k for k in rs if not re.search(r'(^|/)io$', k))
        check('mount of %s: the names of the local mount' % name,
              names_l == names_r,
              sorted(names_l ^ names_r)[:6])
        bad = [k for k in ls if not naming.search(k) and
               (k not in rs or rs[k][0] != ls[k][0])]
        check('mount of %s: the %d files of the local mount, same sha256'
              % (name, len(ls)), not bad, bad[:6])
        root = local.rstrip('/')
        lsum = ls['summary'][1].decode()
        lsum = re.sub(r'^file: .*$', 'file: ' + name, lsum, flags=re.M)
        lsum = re.sub(r'^dataset: .*$', 'dataset: ' + name.rstrip('/'),
                      lsum, flags=re.M)
        check('mount of %s: the summary of the local mount' % name,
              lsum == rs['summary'][1].decode(),
              (lsum[:300], rs['summary'][1].decode()[:300]))
        leaks = [k for k, v in rs.items() if LEAK.encode() in v[1]]
        check('mount of %s: no file holds the token' % name, not leaks,
              leaks[:3])
    finally:
        unmount(rm, rd)
        unmount(lm, ld)
        log.seek(0)
        stderr_all.append(log.read())
        log.close()


def requests_case(name, opts, env, most):
    """mount + ls + cat summary: the requests the two servers saw.  The
    Hub's HEAD that says where the bytes are (its redirect) is a lookup,
    counted apart (`hub lookups` in io); every GET is a request."""
    hub0, cdn0 = len(log_lines('hub.log')), len(log_lines('cdn.log'))
    log = open(os.path.join(WORK, 'colfs.log'), 'a+')
    m, d = mount(name, opts, env, log)
    if not m:
        check('mount of %s' % name, False)
        return
    try:
        os.listdir(m)
        with open(os.path.join(m, 'summary'), 'rb') as f:
            f.read()
        seen = log_lines('hub.log')[hub0:] + log_lines('cdn.log')[cdn0:]
        gets = sum(l['method'] == 'GET' for l in seen)
        heads = sum(l['method'] == 'HEAD' for l in seen)
        with open(os.path.join(m, 'io')) as f:
            io = f.read()
        n = re.search(r'^requests: (\d+)$', io, re.M)
        k = re.search(r'^hub lookups: (\d+)$', io, re.M)
        check('mount + ls + cat summary of %s: %d request(s) and %d '
              'lookup, at most %d and 1' % (name, gets, heads, most),
              gets <= most and heads == 1, seen)
        check('io counts the requests and lookups the servers saw',
              n is not None and int(n.group(1)) == gets and
              k is not None and int(k.group(1)) == heads, io[:300])
    finally:
        unmount(m, d)
        log.close()


def range_bytes(lines, size):
    """The bytes the CDN's log says were asked (each Range, a suffix
    range at most the object)."""
    n = 0
    for l in lines:
        r = l['headers'].get('Range', '')
        m = re.fullmatch(r'bytes=(\d*)-(\d*)', r)
        if not m:
            n += size
        elif not m.group(1):
            n += min(int(m.group(2)), size)
        else:
            last = int(m.group(2)) if m.group(2) else size - 1
            n += min(last, size - 1) - int(m.group(1)) + 1
    return n


def chunks_case(name, local, opts, env):
    """cat columns/X fetches at most 1.05 x the compressed bytes of X's
    chunks from the CDN (the Hub asked nothing more), one request a chunk
    at most."""
    log = open(os.path.join(WORK, 'colfs.log'), 'a+')
    m, d = mount(name, opts, env, log)
    if not m:
        check('mount of %s' % name, False)
        return
    try:
        with open(os.path.join(m, 'metadata.json')) as f:
            meta = json.load(f)
        for c in ('id', 'price'):
            comp = sum(col['meta_data']['total_compressed_size']
                       for rg in meta['row_groups'] for col in rg['columns']
                       if col['meta_data']['path_in_schema'] == [c])
            hub0 = len(log_lines('hub.log'))
            cdn0 = len(log_lines('cdn.log'))
            r = subprocess.run(['timeout', '30', 'cat',
                                os.path.join(m, 'columns', c)],
                               capture_output=True)
            want = run([os.environ['COLFS_TOOL'], 'cat', local,
                        'columns/' + c])[1]
            got = log_lines('cdn.log')[cdn0:]
            b = range_bytes(got, os.path.getsize(local))
            check('cat columns/%s: the local bytes; %d request(s), %d bytes '
                  'fetched for %d compressed (at most 1.05 x), no Hub '
                  'request' % (c, len(got), b, comp),
                  r.returncode == 0 and r.stdout == want and
                  b * 100 <= comp * 105 and
                  len(got) <= len(meta['row_groups']) and
                  len(log_lines('hub.log')) == hub0, got)
    finally:
        unmount(m, d)
        log.close()


def expiry_case(name, local, other, opts, env, cdn):
    """A signed URL that expires while mounted: the next read asks the
    Hub once more and gets the local file's bytes; then the file changes
    on the Hub (`other`) and the URL expires again: the read fails as a
    changed source."""
    log = open(os.path.join(WORK, 'colfs.log'), 'a+')
    m, d = mount(name, opts, env, log)
    if not m:
        check('mount of %s' % name, False)
        return
    try:
        with open(os.path.join(m, 'summary'), 'rb') as f:
            f.read()
        urllib.request.urlopen('http://127.0.0.1:%d/_expire' % cdn,
                               timeout=10).read()
        hub0 = len(log_lines('hub.log'))
        cdn0 = len(log_lines('cdn.log'))
        r = subprocess.run(['timeout', '30', 'cat',
                            os.path.join(m, 'columns', 'name')],
                           capture_output=True)
        want = run([os.environ['COLFS_TOOL'], 'cat', local, 'columns/name'])
        check('after the signed URL expired: columns/name read',
              r.returncode == 0 and r.stdout == want[1],
              r.stderr.decode())
        hub = log_lines('hub.log')[hub0:]
        cdn_new = log_lines('cdn.log')[cdn0:]
        check('the Hub was asked again once (%d request(s))' % len(hub),
              len(hub) == 1 and hub[0]['method'] == 'HEAD', hub)
        check('the expired URL was refused, the new one served',
              len(cdn_new) >= 2, len(cdn_new))
        # The file changes on the Hub (its branch moves on) and the URL
        # expires again: the new place holds other bytes, a changed
        # source, never decoded against the old metadata.
        put('datasets/colfs/pub', 'main', CHANGING, other)
        urllib.request.urlopen('http://127.0.0.1:%d/_expire' % cdn,
                               timeout=10).read()
        r = subprocess.run(['timeout', '30', 'cat',
                            os.path.join(m, 'columns', 'price')],
                           capture_output=True)
        with open(os.path.join(m, 'errors'), 'rb') as f:
            errors = f.read().decode(errors='replace')
        check('the file changed on the Hub: EIO, and errors says why',
              r.returncode != 0 and
              re.search(r'source changed since mount \(ETag "[0-9a-f]+" '
                        r'-> "[0-9a-f]+"\): remount', errors) is not None,
              errors[:300])
    finally:
        unmount(m, d)
        log.close()


# ---- the default case ------------------------------------------------------

def main_case():
    corpus = os.environ.get('CORPUS', '')
    cfile = os.path.join(corpus, 'parquet', 'good',
                         'alltypes_plain.snappy.parquet')
    if not corpus or not os.path.isfile(cfile):
        print('SKIP (part): no corpus at %s/parquet/good' % (corpus or
                                                           '<unset>'))
        cfile = None
    loc = os.path.join(WORK, 'local')
    make(os.path.join(loc, 'sample.parquet'), '--rows', '5000',
         '--row-groups', '2', '--codec', 'snappy')
    make(os.path.join(loc, 'big.parquet'), '--rows', '200000',
         '--row-groups', '2', '--codec', 'none')
    make(os.path.join(loc, 'ds', 'a.parquet'), '--rows', '300')
    make(os.path.join(loc, 'ds', 'part=1', 'b.parquet'), '--rows', '700')
    make(os.path.join(loc, 'ds', 'part=2', 'c.parquet'), '--rows', '20')
    sample = os.path.join(loc, 'sample.parquet')
    big = os.path.join(loc, 'big.parquet')
    check('big.parquet is larger than 2 MiB',
          os.path.getsize(big) > 2 << 20)
    check('a dataset file is small enough for the Hub to serve it',
          os.path.getsize(os.path.join(loc, 'ds', 'part=2', 'c.parquet'))
          < 10000)
    pub = 'datasets/colfs/pub'
    put(pub, 'main', 'data/sample.parquet', sample)
    put(pub, 'main', 'data/big.parquet', big)
    put(pub, 'main', 'with space+plus.parquet', sample)
    for d, _, files in os.walk(os.path.join(loc, 'ds')):
        for f in files:
            p = os.path.join(d, f)
            put(pub, 'main', 'ds/' + os.path.relpath(p, os.path.join(loc, 'ds')), p)
    put(pub, 'refs/convert/parquet', 'default/train/0000.parquet', sample)
    put('models/colfs/model', 'main', 'weights.parquet', sample)
    put('spaces/colfs/space', 'v1.0', 'app/data.parquet', sample)
    put('datasets/colfs/priv', 'main', 's.parquet', sample)
    put('datasets/colfs/gated', 'main', 's.parquet', sample)
    if cfile:
        put('datasets/colfs/priv', 'main', 'corpus/c.parquet', cfile)
    delta = os.path.join(corpus, 'delta', 'simple_table_with_checkpoint')
    if corpus and os.path.isdir(delta):
        delta = os.path.realpath(delta)
        for d, _, files in os.walk(delta):
            for f in files:
                p = os.path.join(d, f)
                put('datasets/colfs/delta', 'main',
                    'table/' + os.path.relpath(p, delta), p)
    else:
        print('SKIP (part): no Delta corpus at %s/delta' % corpus)
        delta = None
    hub, cdn = start_hub('--page-size', '2',
                         '--renamed', 'datasets/colfs/old=datasets/colfs/pub',
                         '--renamed', '@datasets/colfs/old2=datasets/colfs/pub',
                         '--gated', 'datasets/colfs/gated')
    ep = ['-o', 'hf_endpoint=http://127.0.0.1:%d' % hub]
    env = env_with()
    tool = os.environ['COLFS_TOOL']
    views = ['schema', 'layout', 'rows.jsonl', 'columns/id']
    _, want, _ = run([tool, 'cat', sample] + views)
    check('colfs-tool cat of the local file', bool(want))
    for name in ('hf://datasets/colfs/pub/data/sample.parquet',
                 'hf://datasets/colfs/pub/with space+plus.parquet',
                 'hf://datasets/colfs/pub@~parquet/default/train/0000.parquet',
                 'hf://datasets/colfs/pub@refs%2Fconvert%2Fparquet/default/train/0000.parquet',
                 'hf://datasets/colfs/pub@refs/convert/parquet/default/train/0000.parquet',
                 'hf://models/colfs/model/weights.parquet',
                 'hf://colfs/model/weights.parquet',
                 'hf://spaces/colfs/space@v1.0/app/data.parquet',
                 'hf://datasets/colfs/old/data/sample.parquet',
                 'hf://datasets/colfs/old2/data/sample.parquet'):
        rc, out, err = run([tool] + ep + ['cat', name] + views, env=env)
        check('colfs-tool cat %s: the local file\'s views' % name,
              rc == 0 and out == want, err)
    # a renamed repository's folder: the tree API's redirect followed
    _, want_ds, _ = run([tool, 'cat', os.path.join(loc, 'ds'), 'schema'])
    for old in ('old', 'old2'):
        rc, out, err = run([tool] + ep + ['cat', 'hf://datasets/colfs/%s/ds/'
                                          % old, 'schema'], env=env)
        check('the folder of a renamed repository (%s): the local schema'
              % old, rc == 0 and out == want_ds and want_ds, err)
    # a Delta Lake table in a folder: its log listed and read over the
    # Hub, the summary (but the line naming it) and schema of the local
    if delta:
        for p in ('summary', 'schema'):
            _, want_d, _ = run([tool, 'cat', delta, p])
            want_d = want_d.replace(('dataset: %s\n' % delta).encode(),
                                    b'dataset: hf://datasets/colfs/delta/table\n')
            rc, out, err = run([tool] + ep + ['cat',
                                'hf://datasets/colfs/delta/table/', p],
                               env=env)
            check('a Delta table in hf://datasets/colfs/delta/table/: the '
                  'local table\'s %s' % p, rc == 0 and out == want_d and
                  want_d, (err, out[:300], want_d[:300]))
    # a listing that lies is refused, naming the lie
    for lie, pattern in (
            ('outside', r'listed "elsewhere/x.parquet", outside the folder'),
            ('size', r'listed "ds/s.parquet" without a size that is a '
             r'non-negative integer'),
            ('negative', r'listed "ds/n.parquet" without a size'),
            ('twice', r'listed "[^"]+" twice'),
            ('otherhost', r'next page is on another host: not followed'),
            ('self', r'does not end \(a page names itself next\)'),
            ('notjson', r'listing is not a JSON array')):
        name = 'hf://datasets/colfs/pub/ds/'
        rc, out, err = run([tool, '-o', 'hf_endpoint=http://127.0.0.1:%d/'
                            '~lie:%s' % (hub, lie), 'cat', name, 'summary'],
                           env=env)
        check('a listing that lies (%s): refused, named' % lie,
              rc in (1, 2) and re.search(pattern, err) is not None and
              name in err, 'exit %s: %s' % (rc, err))
    # HF_ENDPOINT as huggingface_hub reads it
    rc, out, err = run([tool, 'cat',
                        'hf://datasets/colfs/pub/data/sample.parquet'] +
                       views, env=env_with(
                           HF_ENDPOINT='http://127.0.0.1:%d' % hub))
    check('HF_ENDPOINT names the Hub', rc == 0 and out == want, err)

    # the token, from each place huggingface_hub keeps it
    priv = 'hf://datasets/colfs/priv/s.parquet'
    tokfile = os.path.join(WORK, 'hfhome', 'token')
    os.makedirs(os.path.dirname(tokfile))
    with open(tokfile, 'w') as f:
        f.write(TOKEN + '\n')
    for what, e in (('HF_TOKEN', env_with(HF_TOKEN=TOKEN)),
                    ('HUGGING_FACE_HUB_TOKEN',
                     env_with(HUGGING_FACE_HUB_TOKEN=TOKEN)),
                    ('$HF_HOME/token', env_with(HF_HOME=os.path.dirname(tokfile))),
                    ('HF_TOKEN_PATH', env_with(HF_TOKEN_PATH=tokfile))):
        rc, out, err = run([tool] + ep + ['cat', priv] + views, env=e)
        check('a private repository with the token from %s' % what,
              rc == 0 and out == want, err)

    tok = env_with(HF_TOKEN=TOKEN)
    mount_same(sample, 'hf://datasets/colfs/pub/data/sample.parquet', ep,
               env)
    mount_same(sample, priv, ep, tok)
    if cfile:
        mount_same(cfile, 'hf://datasets/colfs/priv/corpus/c.parquet', ep,
                   tok)
    mount_same(os.path.join(loc, 'ds') + '/', 'hf://datasets/colfs/pub/ds/',
               ep, env)
    tree = [l for l in log_lines('hub.log') if '/api/' in l['path']]
    check('the folder was listed over several pages (cursor)',
          any('cursor=' in l['path'] for l in tree), len(tree))
    requests_case('hf://datasets/colfs/pub/data/big.parquet', ep, env, 2)
    requests_case(priv, ep, tok, 2)
    chunks_case('hf://datasets/colfs/pub/data/big.parquet', big, ep, env)
    put(pub, 'main', CHANGING, big)
    expiry_case('hf://datasets/colfs/pub/' + CHANGING, big, sample, ep, env,
                cdn)

    # refusals
    def refused(what, name, e, pattern):
        rc, out, err = run([tool] + ep + ['cat', name, 'summary'], env=e)
        check('%s: colfs-tool refuses, naming it' % what,
              rc in (1, 2) and re.search(pattern, err) is not None and
              name in err, 'exit %s: %s' % (rc, err))
        log = open(os.path.join(WORK, 'refused.log'), 'w+')
        m, d = mount(name, ep, e, log)
        log.seek(0)
        text = log.read()
        stderr_all.append(text)
        if m:
            unmount(m, d)
        check('%s: colfs mounts nothing and says why' % what,
              not m and re.search(pattern, text) is not None, text)
    refused('private, no token', priv, env,
            r'HTTP 401 \(unauthorized\).*a token is needed \(HF_TOKEN\)')
    refused('a wrong token', priv, env_with(HF_TOKEN='hf_wrong' + LEAK[::-1]),
            r'HTTP 401 \(unauthorized\).*the token was refused.*HF_TOKEN')
    refused('a gated repository, conditions not accepted',
            'hf://datasets/colfs/gated/s.parquet', tok,
            r'HTTP 403 \(forbidden\).*the token has no access.*'
            r'token from HF_TOKEN')
    refused('a missing file', 'hf://datasets/colfs/pub/data/nope.parquet',
            env, r'HTTP 404 \(not found\).*no such file')
    refused('a missing revision', 'hf://datasets/colfs/pub@v9/data/sample.parquet',
            env, r'HTTP 404 \(not found\).*revision v9.*the revision does not exist')
    refused('a missing repository', 'hf://datasets/colfs/none/x.parquet',
            tok, r'HTTP 404 \(not found\).*the repository does not exist')
    refused('a private folder without a token', 'hf://datasets/colfs/priv/',
            env, r'HTTP 401 \(unauthorized\).*HF_TOKEN')
    for bad in ('hf://datasets/colfs', 'hf://datasets/co lfs/x/y.parquet',
                'hf://datasets/colfs/pub/../priv/s.parquet',
                'hf:datasets/colfs/pub/x.parquet'):
        rc, out, err = run([tool] + ep + ['cat', bad, 'summary'], env=env)
        check('a bad name refused: %s' % bad,
              rc in (1, 2) and 'not an hf:// name' in err, err)

    for what, o, e, pattern in (
            ('HF_ENDPOINT that is not a URL', [], env_with(HF_ENDPOINT='x'),
             r'HF_ENDPOINT is not an http:// or https:// URL'),
            ('a token with a newline', ep,
             env_with(HF_TOKEN=TOKEN + '\nX: y'),
             r'the token from HF_TOKEN holds a space or a control character')):
        rc, out, err = run([tool] + o + ['cat', priv, 'summary'], env=e)
        check('%s: refused, named' % what, rc in (1, 2) and
              re.search(pattern, err) is not None, err)

    # the token went nowhere but the Hub
    cdn_log = log_lines('cdn.log')
    check('the CDN saw requests', len(cdn_log) > 10, len(cdn_log))
    check('the CDN never received an Authorization header',
          not any(k.lower() == 'authorization' for l in cdn_log
                  for k in l['headers']))
    check('the CDN never received the token',
          not any(LEAK in json.dumps(l) for l in cdn_log))
    check('the Hub received the token as a bearer',
          any(l['headers'].get('Authorization') == 'Bearer ' + TOKEN
              for l in log_lines('hub.log')))
    msgs = '\n'.join(stderr_all)
    check('messages were collected', len(msgs) > 100)
    check('no message holds the token', LEAK not in msgs,
          [l for l in msgs.split('\n') if LEAK in l][:2])
    check('no sanitizer report in any message',
          'Sanitizer' not in msgs and 'runtime error:' not in msgs,
          [l for l in msgs.split('\n') if 'Sanitizer' in l or
           'runtime error:' in l][:3])


# ---- faults ----------------------------------------------------------------

def faults_case():
    fp = os.environ.get('FAULTPROXY') or os.path.join(HERE, 'faultproxy.py')
    loc = os.path.join(WORK, 'local')
    pq = os.path.join(loc, 's.parquet')
    make(pq, '--rows', '100000', '--row-groups', '4')
    check('the file is larger than the first request\'s 2 MiB',
          os.path.getsize(pq) > 2 << 20)
    put('datasets/colfs/pub', 'main', 's.parquet', pq)
    ports = os.path.join(WORK, 'proxy.port')
    p = subprocess.Popen([sys.executable, fp, '--root', WORK,
                          '--port-file', ports],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    PROCS.append(p)
    for _ in range(200):
        if os.path.exists(ports) and open(ports).read().strip():
            break
        time.sleep(0.05)
    proxy = 'http://127.0.0.1:%s' % open(ports).read().strip()
    hub, _ = start_hub('--fault-cdn', proxy)
    tool = os.environ['COLFS_TOOL']
    views = ['summary', 'columns/name', 'columns/price',
             'row_groups/2/chunks/id/values']
    rc, local, err = run([tool, 'cat', pq] + views)
    check('colfs-tool cat of the local file', rc == 0 and local, err)
    name = 'hf://datasets/colfs/pub/s.parquet'

    def summary_free(out):
        return b'\n'.join(l for l in out.split(b'\n')
                          if b's.parquet' not in l)
    for faults, pattern in (
            ('', None), ('first:503', None), ('first:drop', None),
            ('delay:50', None), ('hub503', None),
            ('hub500', r'HTTP 500 from the Hub after 4 tries'),
            ('norange', r'server ignored the Range request \(HTTP 200 '
             r'with the whole object of \d+ bytes for the last'),
            ('status:403', r'HTTP 403 \(forbidden\) for the last'),
            ('from:2,status:404', r'HTTP 404 \(not found\) for bytes'),
            ('from:2,status:416', r'HTTP 416 \(range not satisfiable\) '
             r'for bytes'),
            ('from:2,500:1', r'HTTP 500 for bytes \d+-\d+ after 4 tries'),
            ('from:2,nolength', r'reply without a valid Content-Length'),
            ('from:2,loop', r'more than 5 redirects'),
            ('from:2,etag:1', r'source changed since mount \(ETag "[^"]+" '
             r'-> "changed-1"\): remount')):
        # a comma would end the -o value: percent-encoded ('hf' keeps
        # the proxy's counts apart from other runs)
        ep = 'http://127.0.0.1:%d/~hf%%2C%s' % (hub,
                                                faults.replace(',', '%2C'))
        rc, out, err = run([tool, '-o', 'hf_endpoint=' + ep, 'cat', name] +
                           views, env=env_with())
        what = 'hf:// through %s' % (faults or 'no fault')
        if pattern is None:
            check(what, rc == 0 and summary_free(out) == summary_free(local),
                  'exit %s: %s' % (rc, err.strip()))
        else:
            check(what + ': named', rc in (1, 2) and
                  re.search(pattern, err) is not None and name in err,
                  'exit %s: %s' % (rc, err.strip()))


def main():
    global WORK, REPOS, BLOBS, LOGS
    for v in ('COLFS', 'COLFS_TOOL', 'COLFS_MKSAMPLE'):
        if not os.access(os.environ.get(v, ''), os.X_OK):
            print('FAIL: %s is not set to a program' % v)
            return 1
    if not os.path.exists('/dev/fuse') or not shutil.which('fusermount3'):
        print('SKIP: no /dev/fuse or fusermount3')
        return 77
    WORK = tempfile.mkdtemp(prefix='colfs-hf.')
    REPOS, BLOBS, LOGS = (os.path.join(WORK, d)
                          for d in ('repos', 'blobs', 'logs'))
    for d in (REPOS, BLOBS, LOGS):
        os.makedirs(d)
    try:
        if sys.argv[1:] == ['faults']:
            faults_case()
        else:
            main_case()
    finally:
        for m in MOUNTS:
            if os.path.ismount(m):
                subprocess.run(['fusermount3', '-uz', m], capture_output=True,
                               timeout=30)
        for p in PROCS:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(WORK, ignore_errors=True)
    print('%d failed' % len(failures) if failures else 'PASS')
    return 1 if failures else 0


HERE = os.path.dirname(os.path.abspath(__file__))
WORK = REPOS = BLOBS = LOGS = None
MOUNTS, PROCS = [], []

if __name__ == '__main__':
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    sys.exit(main())

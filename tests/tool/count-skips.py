#!/usr/bin/env python3
"""tests/count.py names the reason of every skipped test.

    count-skips.py COUNT_PY

A testlog.json as meson writes it (a test's stderr kept apart from its
stdout when it wrote any) with skips reported the ways the tests report
them: "SKIP: why" on stderr and nothing on stdout (the shell tests'
skip()), the reason on stdout, a reason followed by other lines, and no
reason at all; count.py's "skipped" line of each must carry the reason
(or say that none was printed), never end empty.
"""
import json
import os
import subprocess
import sys
import tempfile

count_py = sys.argv[1]
tests = [
    ({'name': 'colfs:fs / fs-mount-t', 'result': 'SKIP', 'stdout': '',
      'stderr': 'SKIP: unshare is not installed\n'},
     'SKIP: unshare is not installed'),
    ({'name': 'colfs:orc / corpus-orc', 'result': 'SKIP',
      'stdout': 'corpus not found at ../shared/corpus: skipping\n'},
     'corpus not found at ../shared/corpus: skipping'),
    ({'name': 'colfs:parquet / crypt', 'result': 'SKIP',
      'stdout': 'SKIP: no corpus and no DuckDB\nrm: cleanup\n',
      'stderr': 'duckdb-setup: npm is not installed: skipping the DuckDB oracle\n'},
     'duckdb-setup: npm is not installed: skipping the DuckDB oracle'),
    ({'name': 'colfs:tool / arrays', 'result': 'SKIP', 'stdout': 'a\n',
      'stderr': 'python3 has no numpy\n'},
     'python3 has no numpy'),
    ({'name': 'colfs:tool / silent', 'result': 'SKIP', 'stdout': ''},
     '(the test printed no reason: it must say why it skips)'),
]
with tempfile.TemporaryDirectory() as d:
    log = os.path.join(d, 'testlog.json')
    with open(log, 'w') as f:
        for t, _ in tests:
            f.write(json.dumps(t) + '\n')
    out = subprocess.run([sys.executable, count_py, log + ':plain'],
                         capture_output=True, text=True, timeout=30).stdout
failed = 0
for t, why in tests:
    want = 'skipped [plain] %s: %s' % (t['name'], why)
    if want not in out.splitlines():
        print('FAIL: %s: expected %r in:\n%s' % (t['name'], want, out))
        failed += 1
if '0 passed, 0 failed' not in out or '5 skipped' not in out:
    print('FAIL: the counts: %s' % out)
    failed += 1
print('%d of %d skip lines wrong' % (failed, len(tests)))
sys.exit(1 if failed else 0)

# tests/iceberg/icecheck.py: what the Iceberg test scripts share: a
# check that counts, a run of colfs-tool, and the summary line that ends
# a script (its exit status 1 when a check failed), and the skip when
# DuckDB (the fixtures' writer) cannot be had.
import os
import subprocess
import sys

TOOL = None          # colfs-tool's path, set by the script
PRINT_OK = True      # print "ok NAME" for each check that passes
passed = failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        if PRINT_OK:
            print("ok", name)
    else:
        failed += 1
        print("FAIL", name, str(detail)[-1500:])


def tool(*args):
    p = subprocess.run([TOOL] + list(args), capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def need_duckdb():
    setup = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "values", "duckdb-setup.sh")
    if subprocess.run(["sh", setup]).returncode != 0:
        print("SKIP: DuckDB (node @duckdb/node-api) cannot be had")
        sys.exit(77)


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)

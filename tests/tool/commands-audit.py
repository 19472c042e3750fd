#!/usr/bin/python3
"""Audit the external commands of the project's shell scripts.

Every command that a shell script of the project runs (tests/run, .ci/run,
tests/**/*.sh, tools/**/*.sh, and any other file with a sh or bash
shebang) must be in a minimal Debian 12 (a package of Priority required,
what `debootstrap --variant=minbase` installs) or be installed by
tools/bootstrap.sh (one of the packages it lists with the test tools, or a
dependency apt pulls in with them), or by the script itself (an
`apt-get install ... PKG` in that script; on a machine where it has not
run yet, a missing command passes when the script installs a package of
that name).  Otherwise the README's two
commands fail on a bare machine although they pass on a developer's.

The scripts are parsed with shfmt (its JSON syntax tree), so quoting, command
substitutions, pipelines, here-documents and case patterns are told apart
as the shell does.  A command is the first word of a simple command
(after wrappers such as `exec`, `timeout N`, `env A=B`, `xargs`), a
`sh -c 'STRING'` string, an interpreter in a shebang, and the first
argument of a script's own function that runs "$@".  Words that are
variables, the script's own functions and those of a project script it
sources (`. "$dir/../mount-cleanup.sh"`: known by its file name), shell
builtins, and paths into the project are not external commands.

Usage: commands-audit.py [--pkgs "PKG ..."] [--list] ROOT|SCRIPT...
  --pkgs  the packages bootstrap installs (default: asks
          `COLFS_WITH_TEST_TOOLS=1 tools/bootstrap.sh --list` under ROOT)
  --list  print each script's external commands and where they come from
Exit 0 when every command is accounted for, 1 naming each that is not.
"""
import json
import os
import re
import subprocess
import sys

STD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

BUILTINS = set("""
: . [ [[ alias bg bind break builtin caller cd command compgen complete
continue declare dirs disown echo enable eval exec exit export false fc fg
getopts hash help history jobs kill let local logout mapfile popd printf
pushd pwd read readarray readonly return set shift shopt source suspend
test times trap true type typeset ulimit umask unalias unset wait
""".split())

# Wrappers: the command they run is a later argument.  The value is the
# number of leading non-option arguments to skip before it (timeout's
# duration), or None when they take no such argument.
WRAPPERS = {"exec": 0, "time": 0, "nice": 0, "nohup": 0, "setsid": 0,
            "env": 0, "xargs": 0, "stdbuf": 0, "timeout": 1,
            "ionice": 0, "taskset": 1, "flock": 1, "sudo": 0}
# Options of the wrappers that take a value (the value is skipped too).
WRAPPER_OPT_ARGS = {"-s", "--signal", "-k", "--kill-after", "-n", "-I",
                    "-P", "-L", "-u", "-d", "-i", "-o", "-e", "-c"}

SKIP_DIRS = {".git", "node_modules", "build", "build-asan", "subprojects"}


def fail(msg):
    print("commands-audit: " + msg, file=sys.stderr)
    sys.exit(2)


def lit(word):
    """The literal text of a shfmt Word, or None when any part expands."""
    if not word:
        return None
    out = []
    for p in word.get("Parts", []):
        t = p.get("Type")
        if t == "Lit":
            out.append(p.get("Value", ""))
        elif t == "SglQuoted":
            out.append(p.get("Value", ""))
        elif t == "DblQuoted":
            inner = lit({"Parts": p.get("Parts", [])})
            if inner is None:
                return None
            out.append(inner)
        else:
            return None
    return "".join(out)


def runs_args(word):
    """Is this word "$@", "$1" or $@ (a function running its arguments)?"""
    parts = word.get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "DblQuoted":
        parts = parts[0].get("Parts", [])
    return (len(parts) == 1 and parts[0].get("Type") == "ParamExp" and
            parts[0].get("Param", {}).get("Value") in ("@", "1", "*"))


def parse(text, name):
    r = subprocess.run(["shfmt", "--to-json"], input=text.encode(),
                       capture_output=True)
    if r.returncode != 0:
        raise ValueError("%s: shfmt cannot parse it: %s" %
                         (name, r.stderr.decode(errors="replace").strip()))
    return json.loads(r.stdout)


def walk(node, fn):
    if isinstance(node, dict):
        fn(node)
        for v in node.values():
            walk(v, fn)
    elif isinstance(node, list):
        for v in node:
            walk(v, fn)


def command_of(args, start):
    """The command word run by a wrapper whose arguments begin at start."""
    name = lit(args[start - 1]) if start > 0 else None
    skip = WRAPPERS.get(name, 0)
    i = start
    while i < len(args):
        w = lit(args[i])
        if w is None:
            return None
        if name == "env" and "=" in w and not w.startswith("-"):
            i += 1
            continue
        if w.startswith("-") and w != "-":
            i += 2 if w in WRAPPER_OPT_ARGS else 1
            continue
        if skip:
            skip -= 1
            i += 1
            continue
        return i
    return None


# The functions of each project script that another sources, by the
# script's file name (main fills it before the scripts are audited).
SOURCED_FUNCS = {}


def func_names(text, name):
    """The names of the functions a script defines."""
    names = set()

    def find(n):
        if n.get("Type") == "FuncDecl":
            names.add(n["Name"]["Value"])

    walk(parse(text, name), find)
    return names


def sourced_name(word):
    """The file name a `.` or `source` word ends in ("" if it expands)."""
    parts = word.get("Parts", [])
    if len(parts) == 1 and parts[0].get("Type") == "DblQuoted":
        parts = parts[0].get("Parts", [])
    if not parts or parts[-1].get("Type") != "Lit":
        return ""
    return os.path.basename(parts[-1].get("Value", ""))


def script_commands(text, name):
    """(commands, packages installed by the script) of one script."""
    tree = parse(text, name)
    funcs = {}
    sourced = set()

    def find_funcs(n):
        if n.get("Type") == "FuncDecl":
            funcs[n["Name"]["Value"]] = n

    walk(tree, find_funcs)

    runners = set()
    for fname, decl in funcs.items():
        def find_runner(n, fname=fname):
            if n.get("Type") == "CallExpr":
                args = n.get("Args") or []
                i = 0
                while i < len(args) and lit(args[i]) in WRAPPERS:
                    i = command_of(args, i + 1) or len(args)
                if i < len(args) and runs_args(args[i]):
                    runners.add(fname)
        walk(decl.get("Body"), find_runner)

    cmds = {}
    installs = set()

    def add(word, line):
        w = lit(word)
        if w is None or w == "":
            return
        cmds.setdefault(w, line)

    def visit(n):
        if n.get("Type") != "CallExpr":
            return
        args = n.get("Args") or []
        if not args:
            return
        line = args[0].get("Pos", {}).get("Line", 0)
        if lit(args[0]) in (".", "source") and len(args) > 1:
            sourced.update(SOURCED_FUNCS.get(sourced_name(args[1]), ()))
        i = 0
        while i < len(args):
            w = lit(args[i])
            if w is None:
                return
            add(args[i], line)
            if w == "command" and i + 1 < len(args) and \
                    lit(args[i + 1]) in ("-v", "-V"):
                return  # a lookup, not a run
            if w in ("sh", "bash") and i + 2 < len(args) and \
                    lit(args[i + 1]) == "-c":
                s = lit(args[i + 2])
                if s is not None:
                    sub, inst = script_commands(s, name)
                    for c in sub:
                        cmds.setdefault(c, line)
                    installs.update(inst)
                return
            if w in ("apt-get", "apt") and "install" in \
                    [lit(a) for a in args[i + 1:]]:
                for a in args[i + 1:]:
                    v = lit(a)
                    if v and not v.startswith("-") and v != "install":
                        installs.add(v)
                return
            if w == "chroot":
                return  # what runs inside is the chroot's, not ours
            if w in runners:
                j = i + 1
                if j < len(args) and (lit(args[j]) or "").startswith("-"):
                    return
                if j < len(args):
                    add(args[j], line)
                return
            if w not in WRAPPERS:
                return
            i = command_of(args, i + 1)
            if i is None:
                return

    walk(tree, visit)
    out = {}
    for c, line in cmds.items():
        if c in BUILTINS or c in funcs or c in sourced:
            continue
        if "/" in c and not c.startswith("/"):
            continue  # a path into the project
        if "=" in c:
            continue
        out[c] = line
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        parts = first[2:].split()
        if parts:
            interp = parts[0]
            if os.path.basename(interp) == "env" and len(parts) > 1:
                interp = parts[1]
            out.setdefault(interp, 1)
    return out, installs


def is_shell_script(path):
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    if not first.startswith(b"#!"):
        return False
    words = first[2:].split()
    if not words:
        return False
    interp = os.path.basename(words[0].decode(errors="replace"))
    if interp == "env" and len(words) > 1:
        interp = os.path.basename(words[1].decode(errors="replace"))
    return interp in ("sh", "bash", "dash")


def project_scripts(root):
    found = []
    for top in ("tests", "tools", ".ci"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for fn in sorted(filenames):
                p = os.path.join(dirpath, fn)
                if is_shell_script(p):
                    found.append(p)
    return found


def find_path(cmd):
    if cmd.startswith("/"):
        return cmd
    for d in STD_PATH.split(":"):
        p = os.path.join(d, cmd)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def packages_of(cmds):
    """{command: the Debian package that provides it here, or None}.

    One dpkg-query call for all (each call reads dpkg's whole database).
    dpkg knows a file by the path its package ships (/bin/ls or
    /usr/bin/ls on a merged /usr), and a command may be a symbolic link
    (python3, awk through alternatives): every spelling is asked."""
    cands = {}
    for c in cmds:
        path = find_path(c)
        if path is None:
            continue
        alts = []
        for p in (path, os.path.realpath(path)):
            alts.append(p)
            alts.append(p[4:] if p.startswith("/usr/") else "/usr" + p)
        cands[c] = alts
    owner = {}
    allpaths = sorted({p for alts in cands.values() for p in alts})
    if allpaths:
        r = subprocess.run(["dpkg-query", "-S"] + allpaths,
                           capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if line.startswith("diversion ") or ": " not in line:
                continue
            owners, path = line.rsplit(": ", 1)
            owner.setdefault(path, owners.split(",")[0].strip().split(":")[0])
    out = {}
    for c in cmds:
        out[c] = None
        for p in cands.get(c, []):
            if p in owner:
                out[c] = owner[p]
                break
    return out


def priorities(pkgs):
    """{package: (Priority, Essential)} of installed packages."""
    out = {}
    if not pkgs:
        return out
    r = subprocess.run(["dpkg-query", "-W",
                        "-f=${Package} ${Priority} ${Essential}\\n"] +
                       sorted(pkgs), capture_output=True, text=True)
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) >= 2:
            out[f[0]] = (f[1], len(f) > 2 and f[2] == "yes")
    return out


def dependency_closure(pkgs, strict=True):
    """The packages apt installs for pkgs (Depends and Pre-Depends).

    Not strict: a package apt does not know yet (a script's own install on
    a machine whose lists are not fetched) stands for itself."""
    if not pkgs:
        return set()
    r = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends",
                        "--no-suggests", "--no-conflicts", "--no-breaks",
                        "--no-replaces", "--no-enhances"] + sorted(pkgs),
                       capture_output=True, text=True)
    if r.returncode != 0:
        if not strict:
            return set(pkgs)
        fail("apt-cache depends failed: " + r.stderr.strip())
    out = set(pkgs)
    for line in r.stdout.splitlines():
        if line and not line[0].isspace():
            out.add(line.strip().strip("<>").split(":")[0])
        else:
            s = line.strip()
            for k in ("Depends:", "PreDepends:", "|Depends:",
                      "|PreDepends:"):
                if s.startswith(k):
                    out.add(s[len(k):].strip().strip("<>").split(":")[0])
    return out


def main(argv):
    pkgs = None
    listing = False
    paths = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--pkgs" and i + 1 < len(argv):
            pkgs = argv[i + 1].split()
            i += 2
            continue
        if a == "--list":
            listing = True
        elif a.startswith("-"):
            fail("unknown option %s\n%s" % (a, __doc__))
        else:
            paths.append(a)
        i += 1
    if not paths:
        fail("usage: commands-audit.py [--pkgs LIST] [--list] ROOT|SCRIPT...")
    scripts = []
    root = None
    for p in paths:
        if os.path.isdir(p):
            root = p
            scripts += project_scripts(p)
        else:
            scripts.append(p)
    if pkgs is None:
        if root is None:
            fail("--pkgs is needed when no project root is given")
        r = subprocess.run([os.path.join(root, "tools", "bootstrap.sh"),
                            "--list"], capture_output=True, text=True,
                           env=dict(os.environ, COLFS_WITH_TEST_TOOLS="1"))
        if r.returncode != 0 or not r.stdout.split():
            fail("tools/bootstrap.sh --list failed: " + r.stderr.strip())
        pkgs = r.stdout.split()
    if not scripts:
        fail("no shell scripts found in " + " ".join(paths))
    base = dependency_closure(set(pkgs))

    problems = 0
    texts = {}
    for s in scripts:
        with open(s, encoding="utf-8", errors="replace") as f:
            texts[s] = f.read()
    for s in scripts:
        if re.search(r"^\s*(\.|source)\s+\S*%s\b" %
                     re.escape(os.path.basename(s)),
                     "\n".join(texts.values()), re.M):
            try:
                SOURCED_FUNCS[os.path.basename(s)] = func_names(texts[s], s)
            except ValueError:
                pass  # reported below
    parsed = []
    for s in scripts:
        with open(s, encoding="utf-8", errors="replace") as f:
            text = f.read()
        try:
            parsed.append((s,) + script_commands(text, s))
        except ValueError as e:
            print("FAIL " + str(e))
            problems += 1
    owners = packages_of({c for _, cmds, _ in parsed for c in cmds})
    prio = priorities({p for p in owners.values() if p})

    checked = 0
    for s, cmds, installs in parsed:
        ok_pkgs = base | dependency_closure(installs, False) if installs else base
        rel = os.path.relpath(s, root) if root else s
        for c in sorted(cmds):
            checked += 1
            pkg = owners.get(c)
            where = "%s:%d" % (rel, cmds[c])
            if pkg is None and c in installs:
                # Not here yet: the script installs it itself before use
                # (bootstrap's packages are all installed by now).
                if listing:
                    print("ok   %s: %s from the script's own apt-get install"
                          % (where, c))
                continue
            if pkg is None:
                print("FAIL %s: command '%s' is not installed on this machine:"
                      " not in a minimal Debian 12 and not installed by"
                      " tools/bootstrap.sh" % (where, c))
                problems += 1
                continue
            pr, essential = prio.get(pkg, ("", False))
            if essential or pr == "required":
                how = "minimal Debian (%s, %s)" % (
                    pkg, "essential" if essential else "required")
            elif pkg in ok_pkgs:
                how = "bootstrap (%s)" % pkg
            else:
                print("FAIL %s: command '%s' (Debian package %s, priority %s)"
                      " is not in a minimal Debian 12 and not installed by"
                      " tools/bootstrap.sh: add %s to its package list" %
                      (where, c, pkg, pr or "unknown", pkg))
                problems += 1
                continue
            if listing:
                print("ok   %s: %s from %s" % (where, c, how))
    print("%d scripts, %d commands checked, %d not accounted for" %
          (len(scripts), checked, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

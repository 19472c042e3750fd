#!/usr/bin/env python3
"""colfs's layers, seen from the linker (docs/architecture.md, "The layers").

usage: layers-check.py SOURCE_ROOT LIB.a... [OBJDIR...]
       layers-check.py --self-test

Each LIB.a is the static library of one layer, named libcolfs_LAYER.a
(formats/meson.build): the core, each format (parquet, orc, cfile, kudu,
arrow, and any new one), remote, dataset and the registry
(core/registry.c).  OBJDIR are the object folders of fs/ and tools/
programs.  From each object's undefined symbols (nm -u) against the
object that defines them (nm --defined-only), it checks that:

  - the core uses no other layer's symbol but the registry's tables
    (the registry defines nothing else);
  - fs/ and tools/ use nothing of the libraries but the public API,
    formats/colfs.h;
  - a format uses only the core: no other format's, remote's, the
    dataset layer's or the registry's symbols; remote uses only the
    core; the dataset layer uses only the core and the registry's tables
    (it finds the formats there) and no remote symbol (it reaches storage
    through the core's source kinds);
  - no two files of the libraries call each other in a circle (a
    strongly connected component of the graph "file A uses a symbol file
    B defines");

and, from the sources, that tree_int.h is included only by the core's
files and that a file under formats/LAYER/ includes only headers of its
own layer, of the core and formats/colfs.h.  Each broken rule is one
line naming the object (LAYER/MEMBER), the symbol and where it is
defined; the exit status is 1 when there is any.  The build's own link
check (formats/meson.build) stops an upward call before this runs; this
check names every breach at once and adds the circles and the includes.
"""
import os
import re
import subprocess
import sys

# What each layer may use besides itself; a format (any layer not named
# here) uses only the core.
MAY_USE = {
    "core": ("registry",),
    "remote": ("core",),
    "dataset": ("core", "registry"),
    "registry": None,  # names every layer
}
WHY = {
    "core": "the core calls no module by name",
    "remote": "remote uses only the core",
    "dataset": "the dataset layer reaches formats and storage through the "
               "core",
}
NEED = ("core", "remote", "dataset", "registry")


def nm(args):
    out = subprocess.run(["nm", "-A"] + args, check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        # "lib.a:member.o: U sym" / "lib.a:member.o:0000 T sym" /
        # "dir/x.o: U sym"
        m = re.match(r"^(.*?\.o):\s*([0-9a-fA-F]*)\s+(\S)\s+(\S+)$", line)
        if m:
            rows.append((m.group(1), m.group(3), m.group(4)))
    return rows


def components(graph):
    """Tarjan's strongly connected components of {node: set(node)}."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def layer_of(lib):
    """libcolfs_parquet.a -> parquet"""
    name = os.path.basename(lib)
    m = re.match(r"^libcolfs_(\w+)\.a$", name)
    return m.group(1) if m else None


def member(lib, obj):
    """(layer, LAYER/MEMBER) of an object of a layer's library"""
    name = os.path.basename(obj.split(":")[-1])
    name = re.sub(r"^meson-generated_(\.\._)*", "", name)
    layer = layer_of(lib)
    return layer, layer + "/" + name


def public_api(root):
    """The names formats/colfs.h declares, and the core headers it
    includes (status.h: the status enum and its names)."""
    path = os.path.join(root, "formats", "colfs.h")
    text = open(path).read()
    for inc in re.findall(r'#\s*include\s+"([^"]+)"', text):
        text += open(os.path.join(root, "formats", inc)).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return set(re.findall(r"\b(colfs_\w+)\s*\(", text)) | \
        set(re.findall(r"\bextern\b[^;(]*\b(colfs_\w+)\s*(?:\[[^]]*\])?\s*;",
                       text))


def header_of(root, src, inc):
    """(layer, path) of the header `inc` that formats/ file `src`
    includes (layer "api" for formats/colfs.h), or None when it is no
    file of the sources (a generated or a system header)."""
    formats = os.path.join(root, "formats")
    for base in (os.path.dirname(src), formats):
        p = os.path.normpath(os.path.join(base, inc))
        if os.path.isfile(p):
            rel = os.path.relpath(p, formats).split(os.sep)
            if rel[0] == "..":
                return "outside", os.path.relpath(p, root)
            return (rel[0] if len(rel) > 1 else "api"), \
                os.path.relpath(p, root)
    return None


def check_includes(root, bad):
    """A file under formats/LAYER/ includes its own layer's headers, the
    core's and formats/colfs.h."""
    formats = os.path.join(root, "formats")
    for dp, _, fs in os.walk(formats):
        for fn in sorted(fs):
            p = os.path.join(dp, fn)
            rel = os.path.relpath(p, formats).split(os.sep)
            if not fn.endswith((".c", ".h")) or len(rel) < 2:
                continue
            with open(p, errors="replace") as fh:
                text = fh.read()
            for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text,
                                  flags=re.M):
                h = header_of(root, p, inc)
                if h is None or h[0] in (rel[0], "core", "api"):
                    continue
                bad.append(f"{os.path.relpath(p, root)}: includes {h[1]}: "
                           "a layer includes its own headers, the core's "
                           "and formats/colfs.h")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    libs = [a for a in sys.argv[2:] if a.endswith(".a")]
    objdirs = [a for a in sys.argv[2:] if not a.endswith(".a")]
    bad = []
    for lib in libs:
        if layer_of(lib) is None:
            print(f"FAIL: {lib}: not a layer's library (libcolfs_LAYER.a)")
            return 1

    defined = {}  # symbol -> (layer, file)
    for lib in libs:
        for obj, kind, sym in nm(["--defined-only", lib]):
            if kind in "TDRBVWGSC" and kind.isupper():
                defined[sym] = member(lib, obj)
    if len(defined) < 100:
        print(f"FAIL: {' '.join(libs)}: only {len(defined)} symbols; "
              "wrong files?")
        return 1

    uses = {}  # file -> set of files it uses
    layers = set()
    for lib in libs:
        for obj, kind, sym in nm(["-u", lib]):
            mod, f = member(lib, obj)
            layers.add(mod)
            if sym not in defined:
                continue
            dmod, dfile = defined[sym]
            if dfile != f:
                uses.setdefault(f, set()).add(dfile)
            if dmod == mod:
                continue
            may = MAY_USE.get(mod, ("core",))
            if may is not None and dmod not in may:
                why = WHY.get(mod, "a format uses only the core")
                bad.append(f"{f}: uses {sym} of {dfile}: {why}")
    for lib in libs:
        layers.add(layer_of(lib))
    for need in NEED:
        if need not in layers:
            bad.append(f"no library of layer {need} (libcolfs_{need}.a); "
                       "wrong files?")

    api = public_api(root)
    nobj = 0
    for d in objdirs:
        objs = sorted(os.path.join(d, o) for o in os.listdir(d)
                      if o.endswith(".o"))
        nobj += len(objs)
        if not objs:
            bad.append(f"{d}: no object files")
            continue
        for obj, kind, sym in nm(["-u"] + objs):
            if sym in defined and sym not in api:
                bad.append(f"{obj}: uses {sym} of {defined[sym][1]}: "
                           "fs/ and tools/ use only formats/colfs.h")

    # Circles: the strongly connected components of the file graph, the
    # registry left out (it names every module: the core reads its tables
    # and calls what they hold, never a module by name).
    registry = {f for f in uses if f.startswith("registry/")}
    registry |= {df for m, df in defined.values() if m == "registry"}
    for f in uses:
        uses[f] -= registry
    for f in registry:
        uses.pop(f, None)
    for comp in components(uses):
        if len(comp) > 1:
            bad.append("circle: " + ", ".join(sorted(comp)) +
                       " call each other")

    for top in ("formats", "fs", "tools", "tests"):
        for dp, _, fs in os.walk(os.path.join(root, top)):
            for fn in fs:
                if not fn.endswith((".c", ".h")):
                    continue
                p = os.path.join(dp, fn)
                rel = os.path.relpath(p, root)
                if rel.startswith("formats/core/"):
                    continue
                with open(p, errors="replace") as fh:
                    if re.search(r'#\s*include\s+"[^"]*tree_int\.h"',
                                 fh.read()):
                        bad.append(f"{rel}: includes tree_int.h, the "
                                   "core's own")
    check_includes(root, bad)

    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print(f"ok: {len(defined)} symbols, {len(uses)} files of "
          f"{len(layers)} layers, {nobj} objects of fs/ and tools/: "
          "calls go down, no circles, includes stay in their layers")
    return 0


SELF_TEST = {
    # LAYER/file of a library: (symbols defined, symbols used)
    "core/tree.c": (["colfs_tree_x"], ["colfs_reg"]),
    "core/open.c": (["colfs_open_x"], ["ds_open"]),
    "registry/registry.c": (["colfs_reg"],
                            ["parquet_open", "remote_get", "ds_open"]),
    "remote/http.c": (["remote_get"], ["colfs_tree_x"]),
    "dataset/dataset.c": (["ds_open"],
                          ["remote_get", "colfs_tree_x", "colfs_reg"]),
    "parquet/a.c": (["parquet_open", "parquet_a"], ["orc_open", "parquet_b"]),
    "parquet/b.c": (["parquet_b"], ["parquet_a"]),
    "parquet/c.c": (["parquet_c"], ["colfs_reg"]),
    "orc/orc.c": (["orc_open"], []),
}
SELF_TEST_WANT = [
    "core/open.c.o: uses ds_open",
    "parquet/a.c.o: uses orc_open",
    "parquet/c.c.o: uses colfs_reg",
    "dataset/dataset.c.o: uses remote_get",
    "main.c.o: uses colfs_tree_x",
    "circle: parquet/a.c.o, parquet/b.c.o call each other",
    "formats/x/x.c: includes tree_int.h",
    "formats/parquet/p.c: includes formats/orc/orc_int.h",
]
# what the rules allow: the registry's tables from the core and the
# dataset layer, every layer from the registry, the core's and a layer's
# own headers
SELF_TEST_ALLOWED = [
    "core/tree.c.o: uses colfs_reg",
    "dataset/dataset.c.o: uses colfs_reg",
    "registry/registry.c.o: uses",
    "formats/parquet/q.c",
]


def self_test():
    """The check on made-up libraries and a program that break each rule
    once (and keep what the rules allow): every rule must name its
    breach, and nothing else."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        sources = {
            "formats/colfs.h": "int colfs_public(void);\n",
            "formats/x/x.c": '#include "../core/tree_int.h"\n',
            "formats/core/buf.h": "",
            "formats/orc/orc_int.h": "",
            "formats/parquet/parquet_int.h": "",
            "formats/parquet/p.c": '#include "../orc/orc_int.h"\n',
            "formats/parquet/q.c": '#include "parquet_int.h"\n'
                                   '#include "core/buf.h"\n'
                                   '#include "../colfs.h"\n'
                                   '#include "parquet.pb-c.h"\n',
        }
        for rel, text in sources.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as fh:
                fh.write(text)
        os.makedirs(os.path.join(d, "fs"))
        # enough symbols that the libraries look like colfs's
        SELF_TEST["core/many.c"] = (["colfs_pad%d" % i for i in range(100)],
                                    [])
        objs = {}  # layer -> objects
        for name, (defs, used) in SELF_TEST.items():
            layer, fn = name.split("/")
            src = os.path.join(d, layer + "-" + fn)
            with open(src, "w") as fh:
                for u in used:
                    fh.write("extern int %s(void);\n" % u)
                for k, df in enumerate(defs):
                    calls = " + ".join("%s()" % u for u in used) or "0"
                    fh.write("int %s(void) { return %s; }\n" %
                             (df, calls if k == 0 else "0"))
            os.makedirs(os.path.join(d, layer), exist_ok=True)
            obj = os.path.join(d, layer, fn + ".o")
            subprocess.run(["cc", "-c", "-o", obj, src], check=True)
            objs.setdefault(layer, []).append(obj)
        libs = []
        for layer, os_ in objs.items():
            lib = os.path.join(d, "libcolfs_%s.a" % layer)
            subprocess.run(["ar", "rcs", lib] + os_, check=True)
            libs.append(lib)
        with open(os.path.join(d, "main.c"), "w") as fh:
            fh.write("extern int colfs_tree_x(void), colfs_public(void);\n"
                     "int main(void) { return colfs_tree_x() + "
                     "colfs_public(); }\n")
        subprocess.run(["cc", "-c", "-o", os.path.join(d, "fs", "main.c.o"),
                        os.path.join(d, "main.c")], check=True)
        r = subprocess.run([sys.executable, __file__, d] + libs +
                           [os.path.join(d, "fs")],
                           capture_output=True, text=True)
        missing = [w for w in SELF_TEST_WANT if w not in r.stdout]
        wrong = [w for w in SELF_TEST_ALLOWED if w in r.stdout]
        nfail = r.stdout.count("FAIL: ")
        if r.returncode != 1 or missing or wrong or \
                nfail != len(SELF_TEST_WANT):
            print("FAIL: the check let through: " + "; ".join(missing) +
                  "\nor refused what the rules allow: " + "; ".join(wrong) +
                  "\n" + r.stdout + r.stderr)
            return 1
        print("ok: the check names each of %d breaches, and only those" %
              len(SELF_TEST_WANT))
        return 0


if __name__ == "__main__":
    sys.exit(main())

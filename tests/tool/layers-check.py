#!/usr/bin/env python3
"""colfs's layers, seen from the linker (docs/architecture.md, "The layers").

usage: layers-check.py SOURCE_ROOT LIB.a [OBJDIR...]
       layers-check.py --self-test

LIB.a is the formats library; each member object belongs to the module of
its folder (meson names it FOLDER_FILE.c.o: core, parquet, orc, cfile,
kudu, remote, dataset, and any new format).  OBJDIR are the object folders
of fs/ and tools/ programs.  From each object's undefined symbols (nm -u)
against the object that defines them (nm --defined-only), it checks that:

  - the core, apart from its registry file, uses no other module's symbol;
  - fs/ and tools/ use nothing of the library but the public API,
    formats/colfs.h;
  - no format uses another format's, remote's or the dataset layer's
    symbols; remote uses no format's or the dataset layer's; the dataset
    layer uses no format's (it finds them through the registry) and no
    remote symbol (it reaches storage through the core's source kinds);
  - no two files of the library call each other in a circle (a strongly
    connected component of the graph "file A uses a symbol file B
    defines");

and, from the sources, that tree_int.h is included only by the core's
files.  Each broken rule is one line naming the object, the symbol and
where it is defined; the exit status is 1 when there is any.
"""
import os
import re
import subprocess
import sys

FORMAT_LAYERS = ("core", "remote", "dataset")


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


REGISTRY = "core_registry.c.o"


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


def member_module(obj):
    name = os.path.basename(obj.split(":")[-1])
    if name.startswith("meson-generated_"):
        name = re.sub(r"^meson-generated_(\.\._)*", "", name)
    return name.split("_", 1)[0], name


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


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, lib, objdirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad = []

    defined = {}  # symbol -> (module, file)
    for obj, kind, sym in nm(["--defined-only", lib]):
        if kind in "TDRBVWGSC" and kind.isupper():
            defined[sym] = member_module(obj)
    if len(defined) < 100:
        print(f"FAIL: {lib}: only {len(defined)} symbols; wrong file?")
        return 1

    uses = {}  # file -> set of files it uses
    modules = set()
    for obj, kind, sym in nm(["-u", lib]):
        mod, f = member_module(obj)
        modules.add(mod)
        if sym not in defined:
            continue
        dmod, dfile = defined[sym]
        if dfile != f:
            uses.setdefault(f, set()).add(dfile)
        if dmod == mod:
            continue
        why = None
        if mod == "core" and f != REGISTRY:
            why = "the core calls no module by name"
        elif mod not in FORMAT_LAYERS and dmod != "core":
            why = "a format uses only the core"
        elif mod == "remote" and dmod != "core":
            why = "remote uses only the core"
        elif mod == "dataset" and dmod != "core":
            why = "the dataset layer reaches formats and storage " \
                  "through the core"
        if why:
            bad.append(f"{f}: uses {sym} of {dfile}: {why}")
    for need in ("core", "remote", "dataset"):
        if need not in modules:
            bad.append(f"{lib}: no object of module {need}; wrong file?")

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
    for f in uses:
        uses[f].discard(REGISTRY)
    uses.pop(REGISTRY, None)
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

    for b in bad:
        print("FAIL: " + b)
    if bad:
        return 1
    print(f"ok: {len(defined)} symbols, {len(uses)} files of "
          f"{len(modules)} modules, {nobj} objects of fs/ and tools/: "
          "calls go down, no circles")
    return 0


SELF_TEST = {
    # file of the library: (symbols defined, symbols used)
    "core_tree.c": (["colfs_tree_x"], ["remote_get"]),
    "core_registry.c": (["colfs_reg"], ["parquet_open", "remote_get"]),
    "remote_http.c": (["remote_get"], ["colfs_tree_x"]),
    "dataset_dataset.c": (["ds_open"], ["remote_get", "colfs_tree_x"]),
    "parquet_a.c": (["parquet_open", "parquet_a"], ["orc_open", "parquet_b"]),
    "parquet_b.c": (["parquet_b"], ["parquet_a"]),
    "orc_orc.c": (["orc_open"], []),
}
SELF_TEST_WANT = [
    "core_tree.c.o: uses remote_get",
    "parquet_a.c.o: uses orc_open",
    "dataset_dataset.c.o: uses remote_get",
    "main.c.o: uses colfs_tree_x",
    "circle: parquet_a.c.o, parquet_b.c.o call each other",
    "formats/x/x.c: includes tree_int.h",
]


def self_test():
    """The check on a made-up library and program that break each rule
    once: every rule must name its breach."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "formats", "x"))
        os.makedirs(os.path.join(d, "fs"))
        with open(os.path.join(d, "formats", "colfs.h"), "w") as fh:
            fh.write("int colfs_public(void);\n")
        with open(os.path.join(d, "formats", "x", "x.c"), "w") as fh:
            fh.write('#include "../core/tree_int.h"\n')
        objs = []
        # enough symbols that the library looks like one
        SELF_TEST["core_many.c"] = (["colfs_pad%d" % i for i in range(100)],
                                    [])
        for name, (defs, used) in SELF_TEST.items():
            src = os.path.join(d, name)
            with open(src, "w") as fh:
                for u in used:
                    fh.write("extern int %s(void);\n" % u)
                for k, df in enumerate(defs):
                    calls = " + ".join("%s()" % u for u in used) or "0"
                    fh.write("int %s(void) { return %s; }\n" %
                             (df, calls if k == 0 else "0"))
            obj = os.path.join(d, name + ".o")
            subprocess.run(["cc", "-c", "-o", obj, src], check=True)
            objs.append(obj)
        lib = os.path.join(d, "lib.a")
        subprocess.run(["ar", "rcs", lib] + objs, check=True)
        with open(os.path.join(d, "main.c"), "w") as fh:
            fh.write("extern int colfs_tree_x(void), colfs_public(void);\n"
                     "int main(void) { return colfs_tree_x() + "
                     "colfs_public(); }\n")
        subprocess.run(["cc", "-c", "-o", os.path.join(d, "fs", "main.c.o"),
                        os.path.join(d, "main.c")], check=True)
        r = subprocess.run([sys.executable, __file__, d, lib,
                            os.path.join(d, "fs")],
                           capture_output=True, text=True)
        missing = [w for w in SELF_TEST_WANT if w not in r.stdout]
        if r.returncode != 1 or missing:
            print("FAIL: the check let through: " + "; ".join(missing) +
                  "\n" + r.stdout + r.stderr)
            return 1
        print("ok: the check names each of %d breaches" %
              len(SELF_TEST_WANT))
        return 0


if __name__ == "__main__":
    sys.exit(main())

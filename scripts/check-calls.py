#!/usr/bin/env python3
"""The call half of the layout check: which file's code uses which file's symbols.

Reads the symbol tables of a build's objects (`nm`), links every undefined symbol of one object to
the object that defines it, and refuses
  - a call (or a data reference) from a file to a file on a higher floor: an arrow up that no
    #include shows (a declaration written by hand, an `extern` table);
  - a circle: files that reach each other through their calls (A -> B -> ... -> A), which a
    callback breaks where a lower file must tell a higher one something.
The floors are the include check's (scripts/check-layout.sh passes them as FOLDER=N arguments).
Only the library's own objects count: executables' main files, tests and tools sit on top.

  check-calls.py BUILD_DIR ROOT FOLDER=FLOOR...
Exit 0 clean, 1 with one line per arrow up and per circle, 2 when the build has no objects.
"""
import os
import subprocess
import sys


def floor_of(path, floors):
    best = None
    for folder, n in floors:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best[0])):
            best = (folder, n)
    return best[1] if best else None


def objects(build):
    lib = os.path.join(build, "libgpubench.a.p")
    if not os.path.isdir(lib):
        return []
    return [os.path.join(lib, f) for f in sorted(os.listdir(lib)) if f.endswith(".c.o")]


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRCVW" and kind.isupper():
            defined.add(name)
    return defined, used


def sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "*.c"],
                             capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, _, fs in os.walk(root):
            out += [os.path.relpath(os.path.join(d, f), root) for f in fs if f.endswith(".c")]
    # meson names an object after its path with '/' as '_': src/run/plan.c -> src_run_plan.c.o
    return {p.replace("/", "_") + ".o": p for p in out}


def circles(graph):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build, root = argv[1], argv[2]
    floors = []
    for a in argv[3:]:
        folder, _, n = a.partition("=")
        floors.append((folder, int(n)))
    objs = objects(build)
    if not objs:
        print(f"check-calls: no objects under {build}/libgpubench.a.p (build first)",
              file=sys.stderr)
        return 2
    names = sources(root)
    # the generated tables (meson.build): on the floors of their templates
    names["meson-generated_.._suites-table.c.o"] = "suites/table.c.in"
    names["meson-generated_.._backends-table.c.o"] = "backends/table.c.in"
    names["meson-generated_.._writers-table.c.o"] = "src/outputs/writers.c.in"
    names["meson-generated_.._commands-table.c.o"] = "src/cli/commands.c.in"
    defined_by, uses = {}, {}
    for o in objs:
        src = names.get(os.path.basename(o))
        if src is None:
            continue  # generated (the embedded kernels)
        d, u = symbols(o)
        uses[src] = u
        for s in d:
            defined_by.setdefault(s, src)
    graph = {f: set() for f in uses}
    bad = 0
    for f in sorted(uses):
        ff = floor_of(f, floors)
        for s in sorted(uses[f]):
            g = defined_by.get(s)
            if g is None or g == f:
                continue
            graph[f].add(g)
            fg = floor_of(g, floors)
            if ff is not None and fg is not None and fg > ff:
                print(f"{f}: uses {s} of {g} (floor {fg}) from floor {ff}: a call up")
                bad = 1
    for comp in circles(graph):
        print("a circle of calls among: " + ", ".join(comp))
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))

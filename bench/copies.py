#!/usr/bin/env python3
"""Benchmark: which of the functions copied into several partitions the
partitions' inliner used.

A function whose body several partitions hold (a callee copied by size, a
local function several partitions call, a C++ inline function's group) is
optimized in each of them; one partition at most emits it. A copy pays
where the partition's inliner takes it into a caller; a copy that no
partition inlined, and that stock's inliner did not inline either, is
optimization work the split adds for nothing (the copy rules could have
left it to one partition without a call more out of line than stock's).

For each unit: its unoptimized bitcode (as in bench/builds.py), split by
`opt-16 -passes='mtpc-split<partitions=N>'`; the whole module and each
partition optimized by `opt-16 -passes='default<O2>' -pass-remarks=inline`,
whose remarks say which callee was inlined where (`opt`'s O2 pipeline on
both sides, so the comparison is like for like; clang's own pipeline adds
its target library info). Instructions are counted in the unoptimized
bodies (`llvm-dis`). Each copied function is counted once, in one class:

  every   inlined in every partition that holds it
  some    inlined in some of them
  stock   inlined in none, but stock inlined it somewhere
  never   inlined in none, nor by stock

and "extra" is the instructions of its copies beyond one (what the split
optimizes more than stock does), summed per class, and as a share of the
module's instructions.

`--by-size` also prints, per unit, the same classes by the size of the
copied body (its unoptimized instructions) and by its kind (a C++ inline
or template function, a local function copied under its promoted name, any
other callee copied by size): what a rule that leaves large copies to one
partition would keep from the inliner, against the work it would save.

  python3 bench/copies.py [--units sqlite3,duckdb,harfbuzz,quickjs] [--partitions 2] [--jobs 2] [--by-size]
"""
import argparse
import collections
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import corpus as corpus_mod  # noqa: E402
from builds import bitcode  # noqa: E402
from harness import PLUGIN, PROMOTED_LOCAL, run, tool  # noqa: E402

DEFINE = re.compile(r'^define [^@]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')
INLINED = re.compile(r"remark: .*?'([^']+)' inlined into '")
CLASSES = ("every", "some", "stock", "never")


def function_sizes(bc):
    """{function: instructions} of the bodies `bc` defines."""
    text = subprocess.run([tool("llvm-dis"), bc, "-o", "-"], check=True, capture_output=True, text=True).stdout
    sizes, current = {}, None
    for line in text.splitlines():
        if current is None:
            m = DEFINE.match(line)
            if m:
                current = m.group(1).strip('"')
                sizes[current] = 0
        elif line.startswith("}"):
            current = None
        elif line.startswith("  "):
            sizes[current] += 1
    return sizes


def inlined_callees(bc):
    """Counter of the callees `opt -O2` inlined in `bc`, by name."""
    done = subprocess.run([tool("opt"), "-passes=default<O2>", "-pass-remarks=inline", bc, "-o", os.devnull],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("opt -O2 failed on %s:\n%s" % (bc, done.stderr[-2000:]))
    return collections.Counter(INLINED.findall(done.stderr))


# Upper bounds of the size classes of --by-size (unoptimized instructions).
SIZE_BOUNDS = (50, 150, 400, 1000, 3000)


def size_class(instructions):
    for bound in SIZE_BOUNDS:
        if instructions <= bound:
            return "<= %d" % bound
    return "> %d" % SIZE_BOUNDS[-1]


def kind_of(name):
    """A copied function's kind, by its name: a local promoted for the split,
    a C++ function (inline or template: an external C++ function is copied
    by size too, but the C++ units' copies are nearly all inline), or a C
    function copied by size."""
    if PROMOTED_LOCAL.search(name):
        return "local"
    return "C++" if name.startswith("_Z") else "by size"


def classify(parts, whole_inlined, by_size=None):
    """Per class: (functions, extra instructions). `parts`: per partition,
    (sizes, inlined). `by_size`, if given, a Counter that also gets each
    copied function counted under (kind, size class, class), as
    (functions, extra instructions)."""
    holders = collections.defaultdict(list)
    for k, (sizes, _) in enumerate(parts):
        for name in sizes:
            holders[name].append(k)
    out = {c: [0, 0] for c in CLASSES}
    for name, ks in holders.items():
        if len(ks) < 2:
            continue
        taken = [k for k in ks if parts[k][1][name] > 0]
        if len(taken) == len(ks):
            c = "every"
        elif taken:
            c = "some"
        elif whole_inlined[PROMOTED_LOCAL.sub("", name)] > 0:
            c = "stock"
        else:
            c = "never"
        size = parts[ks[0]][0][name]
        out[c][0] += 1
        out[c][1] += size * (len(ks) - 1)
        if by_size is not None:
            key = (kind_of(name), size_class(size), c)
            by_size[key + ("functions",)] += 1
            by_size[key + ("extra",)] += size * (len(ks) - 1)
    return out


def by_size_table(unit, by_size, module):
    """Markdown rows of --by-size for one unit."""
    rows = ["", "%s, copies by kind and size (functions, extra instructions of the module's):" % unit,
            "| kind | size | " + " | ".join(CLASSES) + " |", "|---|---|" + "---|" * len(CLASSES)]
    bounds = ["<= %d" % b for b in SIZE_BOUNDS] + ["> %d" % SIZE_BOUNDS[-1]]
    for kind in ("C++", "local", "by size"):
        for bound in bounds:
            cells = [(by_size[(kind, bound, c, "functions")], by_size[(kind, bound, c, "extra")]) for c in CLASSES]
            if any(n for n, _ in cells):
                rows.append("| %s | %s | %s |" % (kind, bound, " | ".join("%d (%.1f %%)" % (n, 100.0 * i / module) for n, i in cells)))
    return "\n".join(rows)


def measure(unit, args, work, pool):
    bc = bitcode(unit, work, False)
    prefix = os.path.join(work, unit.name.replace("/", "_") + ".part")
    run([tool("opt"), "-load-pass-plugin=" + PLUGIN, "-passes=mtpc-split<partitions=%d;out=%s>" % (args.partitions, prefix),
         bc, "-o", os.devnull])
    part_files = sorted((f for f in os.listdir(work) if f.startswith(os.path.basename(prefix) + ".")),
                        key=lambda f: int(f.rsplit(".", 2)[1]))
    inputs = [bc] + [os.path.join(work, f) for f in part_files]
    sizes = list(pool.map(function_sizes, inputs))
    inlined = list(pool.map(inlined_callees, inputs))
    for f in inputs[1:]:
        os.remove(f)
    module = sum(sizes[0].values())
    by_size = collections.Counter() if args.by_size else None
    classes = classify(list(zip(sizes[1:], inlined[1:])), inlined[0], by_size)
    extra = sum(v[1] for v in classes.values())
    cells = " | ".join("%d (%s)" % (n, share(i, module)) for n, i in (classes[c] for c in CLASSES))
    row = "| %s | %d | %d | %s | %s |" % (unit.name, len(part_files), sum(v[0] for v in classes.values()), share(extra, module), cells)
    return row, (by_size_table(unit.name, by_size, module) if args.by_size else "")


def share(instructions, module):
    return "%d, %.1f %%" % (instructions, 100.0 * instructions / module)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", default="sqlite3,duckdb,harfbuzz,quickjs", help="comma-separated: " + ", ".join(corpus_mod.SELECTIONS))
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--by-size", action="store_true", help="also each unit's copies by kind and size")
    args = ap.parse_args()
    tables = []
    rows = ["| unit | partitions | functions copied | extra instructions (of the module) | "
            "inlined in every holder | in some | in none, stock did | in none, nor stock |",
            "|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="mtpc-copies-") as work, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for selection in args.units.split(","):
            for unit in corpus_mod.corpus(selection, 1000):
                print("%s ..." % unit.name, flush=True)
                row, table = measure(unit, args, work, pool)
                rows.append(row)
                tables.append(table)
                print(row + table, flush=True)
    print("\ncopied functions (extra instructions: those of the copies beyond one, of the module's):\n" + "\n".join(rows)
          + "".join(tables))


if __name__ == "__main__":
    main()

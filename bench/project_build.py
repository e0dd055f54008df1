#!/usr/bin/env python3
"""A whole-project build with and without mtpc, as a user turns it on: one
CMake + Ninja project of ten real C and C++ libraries from crates.io (a few
large files among many small ones), `ninja -j<cores>` from scratch, mtpc on
every compile through CMAKE_C_FLAGS / CMAKE_CXX_FLAGS with default settings.

  stock           clang-16 / clang++-16, CMAKE_BUILD_TYPE=Release (-O3), or with
                  --build-type RelWithDebInfo (-O2 -g)
  mtpc            the same with -fpass-plugin=libmtpc.so (defaults: the cost
                  model decides per file, for the cores the other compiles
                  leave free; the partitions of all concurrent compiles
                  share MTPC_MACHINE_SLOTS = the cores)
  mtpc, as if idle  the same with MTPC_LOAD_AWARE=0: the cost model splits
                  as on an idle machine (what mtpc did before it looked at
                  the load)
  mtpc before     with --before PATH: another build of the plugin, default
                  settings (to measure a change of mtpc)

Ninja (1.11) starts the compiles that are ready in the order build.ninja
lists them, which is the order of the libraries in CMakeLists.txt: by name,
or with --large-last the two largest files (sqlite3's amalgamation and
QuickJS's engine, 15 to 25 s of back end each) last, so that they compile
while the last small files end and then alone: a build whose tail a few
large files dominate.

The configurations build in alternating rounds, each round starting with
the next one (give a multiple of their count for balance); configuring is
not timed.
The machine-wide slots are this user's lock files in /tmp/mtpc-slots-UID:
any other mtpc compile this user runs meanwhile shares them, so run it on
an otherwise idle machine.
Each build prints its wall and CPU time and the core-seconds no compile
used (cores x wall - CPU): mostly the build's tail, where one large file
compiles alone; the day's speed of the machine moves wall and CPU together,
so this shows the tail more directly than the wall time.
Every mtpc object must define what stock's defines (checked on the first
round). Target (issue 14): mtpc never slower than stock, faster when large
files dominate the build's tail.

  python3 bench/project_build.py --rounds 3   # about 20 minutes on 2 cores
  python3 bench/project_build.py --rounds 2 --configs mtpc    # stock and mtpc only
  python3 bench/project_build.py --rounds 2 --large-last      # the tail: large files last
  python3 bench/project_build.py --rounds 2 --large-last --build-type RelWithDebInfo   # with -g
Needs cmake and ninja (scripts/setup.sh installs them). Writes
bench/results/project_build.json (project_build_large_last.json with --large-last;
_relwithdebinfo added for that build type).
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)

import corpus  # noqa: E402
from harness import PLUGIN, QUICKJS_DEFINES, QUICKJS_OPTIONS, QUICKJS_OTHER_SOURCES, quickjs_dir, tool  # noqa: E402
from measure import clean_env, defined_symbols, missing_definitions, rotated, take_stats_lines  # noqa: E402


class Library:
    """One static library of the project: its sources, include directories,
    definitions and extra compile options."""

    def __init__(self, name, sources, includes=(), defines=(), options=()):
        self.name, self.sources = name, sorted(sources)
        self.includes, self.defines, self.options = list(includes), list(defines), list(options)


def crate(name, version, *parts):
    return os.path.join(corpus.crate_source(name, version), *parts)


def libraries():
    """The ten libraries, each built as its crate's build script builds it
    (sources, definitions), and harfbuzz from its separate files."""
    sqlite = crate("libsqlite3-sys", "0.30.1", "sqlite3")
    qjs = quickjs_dir()
    ts = crate("tree-sitter-cpp", "0.23.4", "src")
    hb = crate("harfbuzz-sys", corpus.HARFBUZZ_VERSION, "harfbuzz", "src")
    with open(os.path.join(hb, "harfbuzz.cc")) as f:
        hb_sources = [os.path.join(hb, m) for m in re.findall(r'#include "(hb[^"]*\.cc)"', f.read())]
    duck_tree, manifest = corpus.duckdb_tree()
    duck_root = os.path.dirname(duck_tree)
    duck_third = [os.path.join(duck_root, f) for f in manifest["base"]["cpp_files"] if "/third_party/" in f]
    duck_flags = ["-std=c++11", "-DDUCKDB_BUILD_LIBRARY"]
    zlib = crate("libz-sys", "1.1.20", "src", "zlib")
    zstd = crate("zstd-sys", "2.0.13+zstd.1.5.6", "zstd", "lib")
    lua = crate("lua-src", "547.0.0", "lua-5.4.7")
    bz = crate("bzip2-sys", "0.1.11+1.0.8", "bzip2-1.0.8")
    lz4 = crate("lz4-sys", "1.11.1+lz4-1.10.0", "liblz4", "lib")
    return [
        Library("bzip2", [os.path.join(bz, f + ".c") for f in
                          ("blocksort", "bzlib", "compress", "crctable", "decompress", "huffman", "randtable")],
                [bz], ["_FILE_OFFSET_BITS=64", "BZ_NO_STDIO"]),
        Library("duckdb_third_party", duck_third, [os.path.join(duck_tree, d) for d in manifest["base"]["include_dirs"]],
                options=duck_flags),
        Library("harfbuzz", hb_sources, [hb], ["HAVE_PTHREAD=1"], ["-std=c++11"]),
        Library("lua", [f for f in glob.glob(os.path.join(lua, "*.c"))
                        if os.path.basename(f) not in ("lua.c", "luac.c", "onelua.c")], [lua], ["LUA_USE_LINUX"]),
        Library("lz4", [os.path.join(lz4, f) for f in ("lz4.c", "lz4frame.c", "lz4hc.c", "xxhash.c")], [lz4]),
        Library("quickjs", [os.path.join(qjs, f) for f in ("quickjs.c",) + QUICKJS_OTHER_SOURCES], [qjs], QUICKJS_DEFINES,
                QUICKJS_OPTIONS),
        Library("sqlite3", [os.path.join(sqlite, "sqlite3.c")], [sqlite], [d[2:] for d in corpus.SQLITE_DEFINES]),
        Library("tree_sitter_cpp", [os.path.join(ts, "parser.c"), os.path.join(ts, "scanner.c")], [ts]),
        Library("zlib", [f for f in glob.glob(os.path.join(zlib, "*.c"))], [zlib], ["HAVE_UNISTD_H"]),
        Library("zstd", [f for d in ("common", "compress", "decompress", "dictBuilder")
                         for f in glob.glob(os.path.join(zstd, d, "*.c"))], [zstd, os.path.join(zstd, "common")],
                ["ZSTD_DISABLE_ASM", "ZSTD_MULTITHREAD"]),
    ]


def cmake_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The libraries of the largest files, built last with --large-last.
LARGE = ("quickjs", "sqlite3")


def write_project(libs, src_dir, large_last=False):
    if large_last:
        libs = [l for l in libs if l.name not in LARGE] + [l for l in libs if l.name in LARGE]
    lines = ["cmake_minimum_required(VERSION 3.20)", "project(mtpc_project_bench LANGUAGES C CXX)"]
    for lib in libs:
        lines.append("add_library(%s STATIC\n  %s)" % (lib.name, "\n  ".join(cmake_quote(s) for s in lib.sources)))
        if lib.includes:
            lines.append("target_include_directories(%s PRIVATE %s)" % (lib.name, " ".join(cmake_quote(i) for i in lib.includes)))
        if lib.defines:
            lines.append("target_compile_definitions(%s PRIVATE %s)" % (lib.name, " ".join(cmake_quote(d) for d in lib.defines)))
        lines.append("target_compile_options(%s PRIVATE -w %s)" % (lib.name, " ".join(lib.options)))
    os.makedirs(src_dir, exist_ok=True)
    with open(os.path.join(src_dir, "CMakeLists.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


CONFIGS = (("stock", "stock clang-16", False, {}),
           ("mtpc", "mtpc, default settings", True, {}),
           ("mtpc-as-if-idle", "mtpc, MTPC_LOAD_AWARE=0", True, {"MTPC_LOAD_AWARE": "0"}))


def configure(src_dir, build_dir, plugin, build_type):
    """plugin: None (stock), True (this build's), or another build's path."""
    flags = "-fpass-plugin=" + (PLUGIN if plugin is True else plugin) if plugin else ""
    shutil.rmtree(build_dir, ignore_errors=True)
    subprocess.run(["cmake", "-G", "Ninja", "-S", src_dir, "-B", build_dir, "-DCMAKE_BUILD_TYPE=" + build_type,
                    "-DCMAKE_C_COMPILER=" + tool("clang"), "-DCMAKE_CXX_COMPILER=" + tool("clang++"),
                    "-DCMAKE_C_FLAGS=" + flags, "-DCMAKE_CXX_FLAGS=" + flags],
                   check=True, stdout=subprocess.DEVNULL)


def objects(build_dir):
    """The build's objects, by path under CMakeFiles (os.walk: glob skips the
    hidden directories, such as ~/.cargo, that sources' paths carry there)."""
    top = os.path.join(build_dir, "CMakeFiles")
    return sorted(os.path.relpath(os.path.join(d, f), build_dir) for d, _, files in os.walk(top)
                  for f in files if f.endswith(".o"))


def build(src_dir, build_dir, plugin, extra_env, jobs, stats, build_type):
    """Configures (untimed), then times `ninja -j<jobs>`: (wall, CPU of all compiles)."""
    configure(src_dir, build_dir, plugin, build_type)
    env = clean_env(**extra_env)
    if plugin:
        take_stats_lines(stats)
        env["MTPC_STATS"] = stats
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(["ninja", "-C", build_dir, "-j", str(jobs)], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0:
        sys.exit("ninja failed in %s:\n%s" % (build_dir, done.stdout[-3000:]))
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def split_modules(stats):
    """(modules split before their optimization, modules left whole for a
    busy machine, modules mtpc saw, mtpc's time in modules it left whole,
    modules whose code generation alone was split once optimized) from the
    MTPC_STATS lines of one build."""
    lines = take_stats_lines(stats)
    split = [l for l in lines if l["partitions"] >= 2 and not l["fallback"] and not l.get("code_generation_only")]
    code_generation = [l for l in lines if l["partitions"] >= 2 and not l["fallback"] and l.get("code_generation_only")]
    whole = [l for l in lines if l["partitions"] < 2 and not l["fallback"]]
    # Left whole for the load: the model looked at it, and would have split
    # the module had the machine been idle.
    busy = sum(1 for l in whole if (l.get("model") or {}).get("whole_for_load", (l.get("model") or {}).get("load") is not None)
               and not l.get("code_generation_only"))
    # What mtpc itself spent on the modules it left whole (reading,
    # planning, looking at the load), in seconds.
    whole_s = sum(l["wall_ms"] for l in whole) / 1e3
    modules = sum(1 for l in lines if not l.get("code_generation_only"))
    return len(split), busy, modules, whole_s, len(code_generation)


def check_objects(stock_dir, mtpc_dir):
    stock_objs, mtpc_objs = objects(stock_dir), objects(mtpc_dir)
    if not stock_objs or stock_objs != mtpc_objs:
        sys.exit("the builds made different objects: %d in %s, %d in %s" % (len(stock_objs), stock_dir, len(mtpc_objs),
                                                                          mtpc_dir))
    for obj in mtpc_objs:
        m = os.path.join(mtpc_dir, obj)
        missing = missing_definitions(m, defined_symbols(os.path.join(stock_dir, obj)))
        if missing:
            sys.exit("%s: %d symbols stock's object defines are missing (%s)" % (m, len(missing), ", ".join(missing[:3])))
    return len(stock_objs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="ninja -j (default: the cores)")
    ap.add_argument("--configs", default=",".join(c[0] for c in CONFIGS),
                    help="configurations to build, from: %(default)s (stock is always built)")
    ap.add_argument("--before", metavar="LIBMTPC_SO",
                    help="also build with another build of mtpc (default settings), e.g. the last commit's")
    ap.add_argument("--large-last", action="store_true",
                    help="list the largest files' libraries (%s) last, so they dominate the tail" % ", ".join(LARGE))
    ap.add_argument("--build-type", default="Release", choices=["Release", "RelWithDebInfo"],
                    help="CMAKE_BUILD_TYPE: Release (-O3, the default) or RelWithDebInfo (-O2 -g)")
    ap.add_argument("--out", default=None,
                    help="default: bench/results/project_build.json (project_build_large_last.json with --large-last; "
                    "_relwithdebinfo added for that build type)")
    a = ap.parse_args()
    if a.out is None:
        a.out = os.path.join(HERE, "results", "project_build%s%s.json" % (
            "_large_last" if a.large_last else "", "" if a.build_type == "Release" else "_" + a.build_type.lower()))
    wanted = set(a.configs.split(",")) | {"stock"}
    unknown = wanted - {c[0] for c in CONFIGS}
    if unknown:
        sys.exit("unknown configuration(s) %s: choose from %s" % (", ".join(sorted(unknown)),
                                                                  ", ".join(c[0] for c in CONFIGS)))
    configs = [c for c in CONFIGS if c[0] in wanted]
    cores = len(os.sched_getaffinity(0))
    if a.before:
        if not os.path.exists(a.before):
            sys.exit("--before: %s does not exist" % a.before)
        configs.append(("mtpc-before", "mtpc before, default settings", os.path.abspath(a.before), {}))
    for prog in ("cmake", "ninja"):
        if not shutil.which(prog):
            sys.exit("%s is missing: run scripts/setup.sh (or apt-get install cmake ninja-build)" % prog)
    if not os.path.exists(PLUGIN):
        sys.exit("the plugin %s does not exist: run cargo build --release first" % PLUGIN)
    print("fetching the sources ...", flush=True)
    libs = libraries()
    work = tempfile.mkdtemp(prefix="mtpc-project-")
    try:
        src_dir = os.path.join(work, "src")
        write_project(libs, src_dir, a.large_last)
        steps = sum(len(l.sources) for l in libs)
        print("%d libraries, %d compile steps, ninja -j%d, %d rounds, %s%s" % (
            len(libs), steps, a.jobs, a.rounds, a.build_type, ", the largest files last" if a.large_last else ""), flush=True)
        runs = {name: [] for name, _, _, _ in configs}
        split = {}
        for r in range(a.rounds):
            for name, label, plugin, extra in rotated(configs, r):
                stats = os.path.join(work, name + ".stats.jsonl")
                wall, cpu = build(src_dir, os.path.join(work, "build-" + name), plugin, extra, a.jobs, stats, a.build_type)
                # Core-seconds no compile used: the build's tail, mostly.
                runs[name].append({"wall": wall, "cpu": cpu, "idle_core_s": cores * wall - cpu})
                modules = ""
                if plugin:
                    split[name] = split_modules(stats)
                    runs[name][-1].update(zip(("split", "busy", "modules", "whole_modules_mtpc_s", "code_generation_split"),
                                              split[name]))
                    modules = (", %d of %d modules split (%d whole for the load, the code generation of %d of those split "
                               "once optimized; mtpc's time in whole ones %.2f s)") % (
                        split[name][0], split[name][2], split[name][1], split[name][4], split[name][3])
                print("round %d/%d %-28s %7.2f s wall, %7.2f s CPU, cores idle %5.1f s%s" % (
                    r + 1, a.rounds, label, wall, cpu, runs[name][-1]["idle_core_s"], modules), flush=True)
            if r == 0:
                for name, label, plugin, _ in configs:
                    if plugin:
                        n = check_objects(os.path.join(work, "build-stock"), os.path.join(work, "build-" + name))
                        print("  %s: each of its %d objects defines what stock's defines" % (label, n), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    stock = runs["stock"]
    result = {"jobs": a.jobs, "rounds": a.rounds, "build_type": a.build_type, "large_last": a.large_last, "compile_steps": steps, "libraries": [l.name for l in libs], "configs": {}}
    print("\n| configuration | wall (median) | speedup | CPU | cores idle | modules split, last round (whole for the load; "
          "their code generation split) |"
          "\n|---|---|---|---|---|---|")
    for name, label, _, _ in configs:
        rs = runs[name]
        speedup = statistics.median(s["wall"] / x["wall"] for s, x in zip(stock, rs))
        wall, cpu = statistics.median(x["wall"] for x in rs), statistics.median(x["cpu"] for x in rs)
        idle = statistics.median(x["idle_core_s"] for x in rs)
        done, busy, total, _, code_generation = split.get(name, (0, 0, 0, 0, 0))
        result["configs"][name] = {"label": label, "runs": rs, "speedup": speedup, "idle_core_s": idle, "split": done,
                                   "busy": busy, "modules": total, "code_generation_split": code_generation}
        print("| %s | %.1f s | %.3fx | %.1f s | %.1f s | %s |" % (
            label, wall, speedup, cpu, idle,
            "%d of %d (%d; code generation split: %d)" % (done, total, busy, code_generation) if total else ""))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    if "mtpc" in result["configs"]:
        ok = result["configs"]["mtpc"]["speedup"] >= 0.99
        print("target (mtpc never slower than stock, 0.99x): %s" % ("met" if ok else "MISSED"))
    print("wrote " + a.out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark: work inflation counted in instructions, free of this
machine's noise.

Each unit's unoptimized bitcode (as in bench/builds.py: the back end
alone) is compiled by `clang-16 -O2 -c` under valgrind's cachegrind
(`--cache-sim=no`), which counts the instructions the compile executes:
stock, and with mtpc split into `--partitions` partitions on one thread
(`MTPC_THREADS=1`; the count is the same on more, but for the waits), and
with another build of mtpc (`--before`). A count is the same in every run
of the same build on the same input (within about 0.1 %: mtpc's threads
meet in a different order), where this machine's CPU times of the same
compile spread by 5 to 30 % between rounds; it is not time (a cache miss
costs more than an instruction), but what mtpc adds to a compile is
mostly more of the same work: bodies read again, copies optimized again,
text assembled again. The compiles run `--jobs` at a time, each about 50
times slower than natively (DuckDB's `ub_src_execution.cpp`: 4 minutes).

With --default-settings, each unit is compiled from its source instead,
as its users compile it (`--level`, default O2; the front end counted
too), and mtpc with its default settings: the cost model decides whether
and how far to split, and a compile it leaves whole is counted as well.
That is the "never slower" check of bench/levels.py free of the noise
that a 1 % target drowns in, where mtpc leaves a module whole (its -O0
and -O0 -g rows): there mtpc's cost is loading the plugin and the cost
model's look at the module.

  python3 bench/work.py [--units sqlite3,duckdb,harfbuzz,quickjs] [--partitions 2]
                        [-g] [--before /path/to/other/libmtpc.so] [--jobs 2]
  python3 bench/work.py --default-settings --level O0 [-g] [--units ...]
"""
import argparse
import concurrent.futures
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import configs as configs_mod  # noqa: E402
import corpus as corpus_mod  # noqa: E402
import levels  # noqa: E402
from builds import bitcode  # noqa: E402
from harness import PLUGIN  # noqa: E402
from measure import clean_env, executed_instructions, take_stats_lines  # noqa: E402


def count(unit, build, plugin, inputs, work, a):
    """(unit, build, instructions, what mtpc made of the module) of one
    compile (None for stock). Split into --partitions: a compile that fell
    back or was not split is an error; with --default-settings, "whole" or
    "N partitions", as the cost model chose (a fallback is an error)."""
    tag = "%s.%s" % (unit.name.replace("/", "_"), build)
    obj = os.path.join(work, tag + ".o")
    if a.default_settings:
        cmd = levels.command(unit, ["-" + a.level] + (["-g"] if a.debug else []), obj, False)
    else:
        cmd = [configs_mod.driver(unit), "-" + a.level, "-w", "-c", inputs[unit.name], "-o", obj]
    if not plugin:
        n, _ = executed_instructions(cmd, clean_env())
        made = None
    else:
        stats = os.path.join(work, tag + ".jsonl")
        cmd.insert(1, "-fpass-plugin=" + plugin)
        settings = {} if a.default_settings else {"MTPC_PARTITIONS": str(a.partitions), "MTPC_THREADS": "1"}
        n, _ = executed_instructions(cmd, clean_env(MTPC_STATS=stats, **settings))
        lines = take_stats_lines(stats)
        if len(lines) != 1 or lines[0]["fallback"] or (lines[0]["partitions"] < 2 and not a.default_settings):
            raise RuntimeError("%s, %s build: not %s: %s" % (unit.name, build, "compiled" if a.default_settings
                                                              else "split as asked", lines))
        made = "%d partitions" % lines[0]["partitions"] if lines[0]["partitions"] >= 2 else "whole"
    print("%s, %s: %s instructions%s" % (unit.name, build, format(n, ","), "" if made is None else " (%s)" % made),
          flush=True)
    return unit.name, build, n, made


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", default="sqlite3,duckdb,harfbuzz,quickjs", help="comma-separated: " + ", ".join(corpus_mod.SELECTIONS))
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("-g", dest="debug", action="store_true", help="with debug information")
    ap.add_argument("--before", help="another build's libmtpc.so, counted too")
    ap.add_argument("--jobs", type=int, default=2, help="compiles counted at once")
    ap.add_argument("--level", default="O2", choices=("O0", "O1", "O2", "O3", "Os", "Oz"), help="optimization level")
    ap.add_argument("--default-settings", action="store_true",
                    help="compile each unit from its source, mtpc with its default settings (see above)")
    a = ap.parse_args()
    if a.level != "O2" and not a.default_settings:
        sys.exit("error: --level %s counts the unit's bitcode made for -O2 at another level, which no user compiles: "
                 "add --default-settings to compile from source at that level" % a.level)
    if a.before and not os.path.exists(a.before):
        sys.exit("error: %s does not exist: build the other commit first (cargo build --release in its worktree)" % a.before)
    builds = [("stock", None)] + ([("before", os.path.abspath(a.before))] if a.before else []) + [("this", PLUGIN)]
    units = [u for sel in a.units.split(",") for u in corpus_mod.corpus(sel, 1000)]
    work = tempfile.mkdtemp(prefix="mtpc-work-")
    try:
        inputs = {} if a.default_settings else {u.name: bitcode(u, work, a.debug) for u in units}
        counted = count_all(units, builds, inputs, work, a)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    names = [name for name, _ in builds[1:]]
    flags = "-%s%s" % (a.level, " -g" if a.debug else "")
    if a.default_settings:
        print("\n%s from source, mtpc's default settings, instructions executed (cachegrind), against stock's "
              "(what mtpc made of the module):\n" % flags)
    else:
        print("\n%s, %d partitions asked for, instructions executed (cachegrind), against stock's (partitions made):\n"
              % (flags, a.partitions))
    print("| unit | stock | " + " | ".join(names) + " |\n|---|---|" + "---|" * len(names))
    for u in units:
        stock = counted[(u.name, "stock")][0]
        cells = ["%s (%.4fx; %s)" % (format(n, ","), n / stock, made)
                 for n, made in (counted[(u.name, name)] for name in names)]
        print("| %s | %s | %s |" % (u.name, format(stock, ","), " | ".join(cells)))


def count_all(units, builds, inputs, work, a):
    """{(unit, build): (instructions, what mtpc made)}; the first failure ends
    the run without waiting for the counts not started."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        jobs = [pool.submit(count, u, name, plugin, inputs, work, a) for u in units for name, plugin in builds]
        try:
            return {(unit, build): (n, made) for unit, build, n, made in (j.result() for j in jobs)}
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Inlining parity: how far mtpc's object is from stock's in the calls it
makes, its code size and its compile's CPU time, for one or more settings
of the copy limits (symbol_rules.rs COPY_LIMITS), on several programs.

For every unit (default: sqlite3 with and without the suite's defines,
DuckDB's two unity files and HarfBuzz), stock `clang -O2 -c` is built once
and mtpc's (2 partitions, on 1 thread: the CPU time of 2 threads includes
what they slow each other down on a shared machine, about 5 % here) once
per setting. Reported per unit
and setting: `.text` against stock's; the calls mtpc's object makes that
stock inlined (or never made), and those it does not make that stock does
(bench/calls.py); the instructions the partitions hold, copies included,
against the module's (MTPC_STATS: what copies add to the work, exactly);
CPU time against stock's (work inflation, one run: noisy by several
percent on a shared machine); for a unit with a workload (sqlite3's SQL, HarfBuzz's
shaping, QuickJS's script), its runtime against stock's, the median of --runs alternating
runs (the output must be stock's), and with --instructions the
instructions one run of it executes against stock's, counted by valgrind
(the same count every run, where runtimes here spread by 5 to 18 %; each
count takes about 50 times the runtime, 2 to 3 minutes).

  python3 bench/inlining.py                                  # the built-in limits
  python3 bench/inlining.py --limits 60,150,150,4096,400,400 --limits 80,300,150,4096,1000,4294967295
  python3 bench/inlining.py --units sqlite3,harfbuzz --partitions 4
  python3 bench/inlining.py --units sqlite3,harfbuzz,quickjs --instructions

A setting is FUNCTION,INLINE_HINT,LOCAL,BYTES,ODR,BROUGHT[,LOCAL_SHARE] (CopyLimits'
fields; LOCAL_SHARE in thousandths of the module's instructions, the built-in one if
left out), passed to the plugin as MTPC_TEST_COPY_LIMITS; "default" is the built-in one.
"""
import argparse
import json
import os
import statistics
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)

import calls  # noqa: E402
import configs  # noqa: E402
import corpus  # noqa: E402
from harness import run, tool  # noqa: E402
from measure import executed_instructions, run_steps, section_sizes, text_bytes, timed_run  # noqa: E402

UNITS = ("sqlite3", "sqlite3-default", "duckdb", "harfbuzz")


def build(unit, obj, work, mtpc, env_extra):
    steps = (configs.mtpc_steps if mtpc else configs.stock_steps)(unit, obj, work, False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    env.update(env_extra)
    return run_steps(steps, env)


def workload_program(unit, obj, work, tag):
    """The unit's workload linked with obj."""
    w = unit.workload
    objs = []
    for src in w.sources:
        o = os.path.join(work, os.path.basename(src) + ".o")
        if not os.path.exists(o):
            run([tool("clang++") if w.cxx else tool("clang"), "-O2"] + w.cflags + ["-c", src, "-o", o])
        objs.append(o)
    exe = os.path.join(work, tag)
    run([tool("clang++") if unit.cxx or w.cxx else tool("clang"), obj] + objs + ["-o", exe] + w.libs)
    return exe


def runtime_ratio(unit, stock_exe, exe, runs):
    """Median of mtpc/stock runtimes over alternating runs; None if the outputs differ."""
    stock_times, times = [], []
    for _ in range(runs):
        t, expected = timed_run([stock_exe] + unit.workload.args)
        u, out = timed_run([exe] + unit.workload.args)
        if out != expected:
            return None
        stock_times.append(t)
        times.append(u)
    return statistics.median(b / a for a, b in zip(stock_times, times))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limits", action="append", default=None, help="FUNCTION,INLINE_HINT,LOCAL,BYTES,ODR,BROUGHT[,LOCAL_SHARE] or default")
    ap.add_argument("--units", default=",".join(UNITS))
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5, help="alternating workload runs per setting")
    ap.add_argument("--instructions", action="store_true", help="also count the instructions a workload run executes (valgrind)")
    a = ap.parse_args()
    if a.instructions and not shutil.which("valgrind"):
        sys.exit("error: --instructions needs valgrind (scripts/setup.sh installs it)")
    settings = a.limits or ["default"]
    units = [u for name in a.units.split(",") for u in corpus.corpus(name, 300000)]
    work = tempfile.mkdtemp(prefix="mtpc-inlining-")
    rows = []
    try:
        for unit in units:
            stock_obj = os.path.join(work, "stock.o")
            stock = build(unit, stock_obj, work, False, {})
            stock_calls, stock_text = calls.callees(stock_obj), text_bytes(section_sizes(stock_obj))
            stock_exe = workload_program(unit, stock_obj, work, "stock") if unit.workload else None
            stock_count = executed_instructions([stock_exe] + unit.workload.args) if stock_exe and a.instructions else None
            for setting in settings:
                stats = os.path.join(work, "stats.jsonl")
                if os.path.exists(stats):
                    os.remove(stats)
                env = {"MTPC_THREADS": "1", "MTPC_PARTITIONS": str(a.partitions), "MTPC_MIN_SIZE": "0",
                       "MTPC_STATS": stats}
                if setting != "default":
                    env["MTPC_TEST_COPY_LIMITS"] = setting
                obj = os.path.join(work, "mtpc.o")
                m = build(unit, obj, work, True, env)
                extra, fewer, _ = calls.compare(stock_calls, calls.callees(obj))
                with open(stats) as f:
                    line = json.loads(f.readline())
                held = sum(p["held_instructions"] for p in line["parts"]) / line["instructions"]
                text = text_bytes(section_sizes(obj))
                runtime, executed = None, None
                if stock_exe:
                    exe = workload_program(unit, obj, work, "mtpc")
                    ratio = runtime_ratio(unit, stock_exe, exe, a.runs)
                    runtime = "WRONG OUTPUT" if ratio is None else "%+.1f %%" % (100 * (ratio - 1))
                    if stock_count:
                        count, out = executed_instructions([exe] + unit.workload.args)
                        executed = "WRONG OUTPUT" if out != stock_count[1] else "%+.2f %%" % (100.0 * (count / stock_count[0] - 1))
                rows.append((unit.name, setting, 100.0 * (text / stock_text - 1), extra, fewer, sum(stock_calls.values()),
                             held, m.cpu / stock.cpu, runtime or "", executed or ""))
                print("%-16s %-22s .text %+6.2f %%  extra calls %5d  fewer %5d  (stock %d calls)  held %.2fx  CPU %.2fx  %s  %s"
                      % rows[-1], flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n| unit | limits | .text vs stock | calls stock inlined | calls mtpc inlined | instructions held | CPU vs stock | runtime vs stock"
          " | workload's instructions vs stock |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, setting, text, extra, fewer, total, held, cpu, runtime, executed in rows:
        print("| %s | %s | %+.2f %% | %d | %d | %.2fx | %.2fx | %s | %s |" % (name, setting, text, extra, fewer, held, cpu, runtime, executed))


if __name__ == "__main__":
    main()

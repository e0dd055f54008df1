#!/usr/bin/env python3
"""Benchmark: this build of mtpc against another one, and both against
stock, on the back end alone (or, with `--from-source`, on the whole compile).

Each unit's unoptimized bitcode (`-Xclang -disable-llvm-passes
-emit-llvm`, so that the front end, which mtpc does not change, adds no
noise) is compiled by `clang-16 -O2 -c` in alternating rounds: stock, the
other build (`--before`, a libmtpc.so built from another commit, e.g. in
a `git worktree`), and this one, with `--partitions` partitions on
`--threads` threads. Prints, per unit and build, the median of the rounds'
speedups (stock's wall over the build's), work inflation (the build's
CPU, user + sys, over stock's) and peak RSS (over stock's), and the
medians of the stats' merge and check times. With `--from-source`, each
unit is compiled from its source as a user compiles it, front end
included (whose memory stays allocated through the back end).

  bench/builds.py --before /path/to/other/target/release/libmtpc.so
                  [--units sqlite3,duckdb,harfbuzz,quickjs] [--rounds 3]
                  [--partitions 2] [--threads 2] [-g] [--from-source]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import configs as configs_mod  # noqa: E402
import corpus as corpus_mod  # noqa: E402
from harness import PLUGIN, run  # noqa: E402
from measure import clean_env, run_steps, take_stats_lines  # noqa: E402


def bitcode(unit, work, debug):
    """The unit's unoptimized bitcode, as its compile would optimize it."""
    out = os.path.join(work, unit.name.replace("/", "_") + ".bc")
    flags = configs_mod.compile_flags(unit, debug)
    run([configs_mod.driver(unit)] + flags + ["-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", unit.source, "-o", out])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the other build's libmtpc.so")
    ap.add_argument("--units", default="sqlite3,duckdb,harfbuzz,quickjs", help="comma-separated: " + ", ".join(corpus_mod.SELECTIONS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("-g", dest="debug", action="store_true", help="with debug information")
    ap.add_argument("--from-source", action="store_true", help="compile each unit from its source, front end included")
    a = ap.parse_args()
    if not os.path.exists(a.before):
        sys.exit("error: %s does not exist: build the other commit first (cargo build --release in its worktree)" % a.before)
    work = tempfile.mkdtemp(prefix="mtpc-builds-")
    units = [u for sel in a.units.split(",") for u in corpus_mod.corpus(sel, 1000)]
    builds = {"before": a.before, "this": PLUGIN}
    # What follows the driver in each unit's compile (the output aside).
    if a.from_source:
        inputs = {u.name: configs_mod.compile_flags(u, a.debug) + ["-c", u.source] for u in units}
    else:
        inputs = {u.name: ["-O2", "-w", "-c", bitcode(u, work, a.debug)] for u in units}
    results = {}
    for r in range(a.rounds):
        for unit in units:
            for build in ("stock", "before", "this"):
                cmd = [configs_mod.driver(unit)] + inputs[unit.name] + ["-o", os.path.join(work, build + ".o")]
                stats = os.path.join(work, "stats.jsonl")
                env = clean_env()
                if build != "stock":
                    cmd.insert(1, "-fpass-plugin=" + builds[build])
                    env = clean_env(MTPC_PARTITIONS=str(a.partitions), MTPC_THREADS=str(a.threads), MTPC_STATS=stats)
                m = run_steps([[cmd]], env)
                lines = take_stats_lines(stats) if build != "stock" else [{}]
                if build != "stock" and (len(lines) != 1 or lines[0]["fallback"]):
                    sys.exit("%s, %s build: not split as asked: %s" % (unit.name, build, lines))
                line = lines[0]
                results.setdefault((unit.name, build), []).append((m.wall, m.cpu, line.get("merge_ms", 0.0), line.get("check_ms", 0.0), m.rss_mib))
                print("round %d %s %s: %.2f s, CPU %.2f s, peak RSS %.0f MiB" % (r + 1, unit.name, build, m.wall, m.cpu, m.rss_mib), flush=True)
    print("\n| unit | build | speedup | work inflation | peak RSS | merge | check |\n|---|---|---|---|---|---|---|")
    for unit in units:
        stock = results[(unit.name, "stock")]
        for build in ("before", "this"):
            runs = results[(unit.name, build)]
            speedup = statistics.median(s[0] / b[0] for s, b in zip(stock, runs))
            inflation = statistics.median(b[1] / s[1] for s, b in zip(stock, runs))
            rss = statistics.median(b[4] for b in runs)
            print("| %s | %s | %.2fx | %.2fx | %.0f MiB (%.2fx) | %.0f ms | %.0f ms |" % (
                unit.name, build, speedup, inflation, rss, rss / statistics.median(s[4] for s in stock),
                statistics.median(b[2] for b in runs), statistics.median(b[3] for b in runs)))


if __name__ == "__main__":
    main()

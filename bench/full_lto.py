#!/usr/bin/env python3
"""Full LTO links of sqlite3 (and its SQL workload): stock lld, lld's own
--lto-partitions=2 (code generation in parallel, optimization serial), and
mtpc in lld (-Wl,--load-pass-plugin, MTPC_THREADS=2, default settings:
the cost model decides the split).

The bitcode objects are compiled once (clang -O2 -flto -c); then the links
run in alternating rounds (A B C, A B C, ...), so that drift on a shared
machine touches all alike. Measured: the link's wall and CPU time (user +
sys), peak RSS, the program's .text, and the workload's runtime (median of
alternating runs, with stock's own spread as the noise band), and the
instructions it executes with fewer rows under valgrind (a count that
does not drift with the machine); each program's output must equal
stock's.

  python3 bench/full_lto.py [--rounds 3] [--rows 300000]

Target (issue 16): mtpc's link at least 1.5x as fast as stock's, .text
and runtime within 1 % of stock's. The speedup per round (each round's
links ran back to back) is printed too: on a machine whose speed drifts,
their median says more than the ratio of the medians.
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)

import corpus as corpus_mod  # noqa: E402
from harness import PLUGIN, run, tool  # noqa: E402
from measure import BuildFailed, clean_env, executed_instructions, run_steps, section_sizes, take_stats_lines, text_bytes, timed_run  # noqa: E402

LINKS = (
    ("stock", "stock full LTO", [], {}),
    ("lto-parts", "lld --lto-partitions=2", ["-Wl,--lto-partitions=2"], {}),
    ("mtpc", "mtpc, 2 threads", ["-Wl,--load-pass-plugin=" + PLUGIN], {"MTPC_THREADS": "2"}),
)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of links (default 3)")
    ap.add_argument("--rows", type=int, default=300000, help="rows of sqlite3's SQL workload")
    ap.add_argument("--runs", type=int, default=11, help="alternating runs of the workload (default 11)")
    ap.add_argument("--counted-rows", type=int, default=30000,
                    help="rows of the workload run under valgrind to count the instructions it executes (default 30000)")
    args = ap.parse_args()
    unit = corpus_mod.sqlite3(args.rows)
    work = os.path.join(HERE, "results", "full-lto")
    os.makedirs(work, exist_ok=True)
    objs = []
    for src, flags in [(unit.source, unit.flags)] + [(s, unit.workload.cflags) for s in unit.workload.sources]:
        obj = os.path.join(work, os.path.basename(src) + ".bc.o")
        run([tool("clang"), "-O2", "-w", "-flto"] + flags + ["-c", src, "-o", obj])
        objs.append(obj)
    stats = os.path.join(work, "mtpc.stats.jsonl")
    take_stats_lines(stats)
    measured = {name: [] for name, *_ in LINKS}
    splits = []
    for r in range(args.rounds):
        for name, label, extra, env in LINKS:
            exe = os.path.join(work, name)
            cmd = [tool("clang"), "-O2", "-flto", "-fuse-ld=lld"] + extra + objs + ["-o", exe] + unit.workload.libs
            m = run_steps([[cmd]], clean_env(MTPC_STATS=stats, **env))
            measured[name].append(m)
            if name == "mtpc":
                lines = take_stats_lines(stats)
                splits.append(max((s["partitions"] for s in lines), default=1))
            print("round %d/%d %-24s %6.2f s wall %6.2f s CPU %5.0f MiB" % (r + 1, args.rounds, label, m.wall, m.cpu, m.rss_mib),
                  flush=True)
    expected = timed_run([os.path.join(work, "stock")] + unit.workload.args)[1]
    runtimes = {name: [] for name in measured}
    for name in measured:
        if timed_run([os.path.join(work, name)] + unit.workload.args)[1] != expected:
            raise BuildFailed("%s: the workload's output differs from stock's" % name)
    for _ in range(args.runs):
        for name in measured:
            runtimes[name].append(timed_run([os.path.join(work, name)] + unit.workload.args)[0])
    counted_args = corpus_mod.sqlite3(args.counted_rows).workload.args
    counts = {name: instructions_or_zero([os.path.join(work, name)] + counted_args) for name in measured}
    for name, (_, out) in counts.items():
        if out is not None and counts["stock"][1] is not None and out != counts["stock"][1]:
            raise BuildFailed("%s: the counted workload's output differs from stock's" % name)
    executed = {name: n for name, (n, _) in counts.items()}
    stock_wall = statistics.median(m.wall for m in measured["stock"])
    stock_cpu = statistics.median(m.cpu for m in measured["stock"])
    stock_text = text_bytes(section_sizes(os.path.join(work, "stock")))
    stock_run = statistics.median(runtimes["stock"])
    noise = (max(runtimes["stock"]) - min(runtimes["stock"])) / stock_run / 2 * 100
    print()
    print("| sqlite3, full LTO link | wall | speedup | CPU | peak RSS | .text | runtime | instructions executed |")
    print("|---|---|---|---|---|---|---|---|")
    for name, label, *_ in LINKS:
        wall = statistics.median(m.wall for m in measured[name])
        cpu = statistics.median(m.cpu for m in measured[name])
        rss = statistics.median(m.rss_mib for m in measured[name])
        text = text_bytes(section_sizes(os.path.join(work, name)))
        rt = statistics.median(runtimes[name])
        counted = "%+.2f %%" % ((executed[name] / executed["stock"] - 1) * 100) if executed["stock"] and executed[name] else "—"
        print("| %s | %.2f s | %.2fx | %.2f s (%.2fx) | %.0f MiB | %+.1f %% | %.3f s (%+.1f %%) | %s |" % (
            label, wall, stock_wall / wall, cpu, cpu / stock_cpu, rss, (text / stock_text - 1) * 100, rt,
            (rt / stock_run - 1) * 100, counted))
    print()
    print("stock's runtime spread: +-%.1f %% (half its range over %d runs); mtpc split the LTO module into %s partitions"
          % (noise, args.runs, ", ".join(map(str, splits))))
    # Each round's links ran back to back: their ratio is free of the
    # machine's drift between rounds.
    for name, label, *_ in LINKS[1:]:
        ratios = [s.wall / m.wall for s, m in zip(measured["stock"], measured[name])]
        print("%s: speedup per round %s, median %.2fx" % (label, ", ".join("%.2fx" % r for r in ratios), statistics.median(ratios)))


def instructions_or_zero(cmd):
    """(instructions, output) of the command (`executed_instructions`);
    (0, None), with a note, if valgrind cannot count them."""
    try:
        return executed_instructions(cmd)
    except BuildFailed as e:
        print("the instructions of %s were not counted: %s" % (cmd[0], e), file=sys.stderr)
        return 0, None


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark: the serial tail of a compile split into many partitions, and
its parts, measured within each compile.

The tail is what a compile spends outside the front end and outside the
pass's parallel phases (bench/model.py, `serial_tail`): the split, the
merge (its decisions; the parts' segments written side by side on as many
cores as partitions), the check (the parts' segments assembled side by
side; clang: the partitions' objects transcribed and each transcript
assembled side by side), the host assembling the merged text (clang:
the transcript of the partitions' objects), process exit. Each compile runs on one thread, as
the suite's projections do, with `--partitions` partitions; the tail is
taken from the pass's start (`start_unix_ms` in MTPC_STATS) to the
compile's end, so the front end's noise is not in it. Stock's back end (the
share's denominator) is stock's wall time less the front end timed alone.
Target (issue 14): at most 3 % of stock's back end at 16 partitions.

  bench/serial_tail.py [--units sqlite3,duckdb,harfbuzz,quickjs] [--partitions 16] [--rounds 3]

Prints, per unit, the median tail and its parts: split, merge (the
segments written on that many cores), the parts' checks on that many cores, the transcript's check, the pass's other serial
steps (between its phases), and what follows the pass (the host's assembly
and exit).
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import configs as configs_mod  # noqa: E402
import corpus as corpus_mod  # noqa: E402
import model  # noqa: E402
from harness import PLUGIN  # noqa: E402
from measure import clean_env, front_end_wall, run_steps, take_stats_lines  # noqa: E402


def tail_parts(measured, line, partitions):
    """The tail of one compile (s) and its parts (ms)."""
    after = (measured.ended_unix - line["start_unix_ms"] / 1e3) * 1e3 - line["wall_ms"]
    between = line["wall_ms"] - line["split_ms"] - line["partitions_ms"] - line["merge_ms"] - line["check_ms"]
    return model.serial_tail(measured.wall, None, line, partitions, measured.ended_unix), {
        "split": line["split_ms"],
        "merge": line["merge_ms"] - line.get("merge_segments_ms", 0.0) + 1e3 * model.makespan(model.segment_seconds(line), partitions),
        "checks": 1e3 * model.makespan(model.check_seconds(line), partitions),
        "transcript": line.get("transcript_check_ms", 0.0), "between": between, "after": after}


def measure_unit(unit, args, work):
    flags = configs_mod.compile_flags(unit, False)
    stock_cmd = [configs_mod.driver(unit)] + flags + ["-c", unit.source, "-o", os.path.join(work, "stock.o")]
    cmd = [configs_mod.driver(unit), "-fpass-plugin=" + PLUGIN] + flags + ["-c", unit.source, "-o", os.path.join(work, "mtpc.o")]
    stats = os.path.join(work, "stats.jsonl")
    stock, front, tails, parts = [], [], [], []
    for r in range(args.rounds):
        stock.append(run_steps([[stock_cmd]], clean_env()).wall)
        front.append(front_end_wall([configs_mod.driver(unit)] + flags, unit.source, os.path.join(work, "fe.bc")))
        take_stats_lines(stats)
        m = run_steps([[cmd]], clean_env(MTPC_THREADS="1", MTPC_PARTITIONS=str(args.partitions), MTPC_STATS=stats,
                                         MTPC_LOAD_AWARE="0"))
        lines = take_stats_lines(stats)
        if len(lines) != 1 or lines[0]["fallback"] or lines[0]["partitions"] < 2:
            sys.exit("%s: not split as asked: %s" % (unit.name, lines))
        tail, p = tail_parts(m, lines[0], args.partitions)
        tails.append(tail)
        parts.append(p)
        print("  round %d: tail %.0f ms (%s)" % (r + 1, tail * 1e3, ", ".join("%s %.0f" % kv for kv in p.items())),
              flush=True)
    back_end = statistics.median(stock) - statistics.median(front)
    tail = statistics.median(tails)
    median_parts = {k: statistics.median(p[k] for p in parts) for k in parts[0]}
    return "| %s | %.2f s | %.0f ms, %.1f %% | %s |" % (
        unit.name, back_end, tail * 1e3, 100 * tail / back_end, " | ".join("%.0f" % v for v in median_parts.values()))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", default="sqlite3,duckdb,harfbuzz,quickjs", help="comma-separated: " + ", ".join(corpus_mod.SELECTIONS))
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rows = ["| unit | stock's back end | serial tail at %d (of it) | split | merge | checks | transcript | between | "
            "after the pass |" % args.partitions, "|---|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="mtpc-tail-") as work:
        for selection in args.units.split(","):
            # The workload's rows do not matter: nothing is run.
            for unit in corpus_mod.corpus(selection, 1000):
                print("%s:" % unit.name, flush=True)
                rows.append(measure_unit(unit, args, work))
    print("\nparts in ms (medians):\n" + "\n".join(rows))


if __name__ == "__main__":
    main()

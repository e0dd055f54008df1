#!/usr/bin/env python3
"""Benchmark: who writes the object, from the parts' objects or from the text.

After a split, the host's module holds a text as module asm. By default in
clang (16, 19 and 22) each partition writes an object and the host is
handed the objects transcribed (passes/src/object_transcript.rs), which it
assembles without parsing an instruction; with MTPC_WRITE_OBJECT=0 (and on
LLVM 19 until 2026-12-07) the partitions print assembly, the parts' segments of the merged text are
checked side by side and the host then assembles the whole text on its
thread (passes/src/object_writer.rs).

For each corpus unit and flags, and each partition count, the two ways are
compiled alternately (so that drift affects both alike), with MTPC_THREADS=2;
reported: the median wall time of each way, their ratio, and the median
serial tail (bench/model.py: everything but the front end and the
partitions, with the checks on as many cores as partitions: the split, the
merge, the assembly of the transcript or the text, exit), as a share of
stock's back end. (tests/e2e_parallel.py checks that the two ways' objects
have the same code, symbols and relocations.)

  bench/object_writer.py [--llvm 22] [--units sqlite3,harfbuzz] [--rounds 3] [--partitions 2,16] [--flags "-O2,-O2 -g"]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import harness  # noqa: E402
from harness import PLUGIN  # noqa: E402

import configs as configs_mod  # noqa: E402
import corpus as corpus_mod  # noqa: E402
import model  # noqa: E402
from measure import clean_env, front_end_wall, run_steps, take_stats_lines  # noqa: E402

WAYS = (("parts", "1"), ("text", "0"))
FLAG_SETS = (("-O2", False), ("-O2 -g", True))


def compile_once(unit, work, debug, partitions, writer):
    obj = os.path.join(work, "%s.%s.%d.o" % (unit.name, writer, partitions))
    stats = os.path.join(work, "stats.jsonl")
    take_stats_lines(stats)
    cmd = [configs_mod.driver(unit), "-fpass-plugin=" + PLUGIN] + configs_mod.compile_flags(unit, debug) + ["-c", unit.source, "-o", obj]
    env = clean_env(MTPC_THREADS="2", MTPC_PARTITIONS=str(partitions), MTPC_STATS=stats, MTPC_WRITE_OBJECT=writer,
                    MTPC_LOAD_AWARE="0")
    measured = run_steps([[cmd]], env)
    lines = take_stats_lines(stats)
    if len(lines) != 1 or lines[0]["fallback"] or lines[0]["partitions"] < 2:
        sys.exit("%s: not split as asked: %s" % (unit.name, lines))
    return measured, lines[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", default="sqlite3,harfbuzz", help="comma-separated: " + ", ".join(corpus_mod.SELECTIONS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--partitions", default="2,16")
    ap.add_argument("--flags", default=",".join(label for label, _ in FLAG_SETS),
                    help="comma-separated, of: " + ", ".join(label for label, _ in FLAG_SETS))
    ap.add_argument("--llvm", type=int, choices=(16, 19, 22), default=None, help="re-run against this LLVM (MTPC_LLVM)")
    args = ap.parse_args()
    if args.llvm and args.llvm != harness.LLVM_MAJOR:
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, MTPC_LLVM=str(args.llvm)))
    if not harness.PARTS_TRANSCRIBED:
        sys.exit("LLVM %d's host always assembles the text: run with MTPC_LLVM=16, 19 or 22 (or --llvm)" % harness.LLVM_MAJOR)
    harness.require_plugin()
    work = tempfile.mkdtemp(prefix="mtpc-object-writer-")
    counts = [int(n) for n in args.partitions.split(",")]
    print("| unit | flags | partitions | from the parts' objects (s) | from the text (s) | ratio | serial tail, parts' objects | serial tail, text |")
    print("|---|---|---|---|---|---|---|---|")
    for selection in args.units.split(","):
        for unit in corpus_mod.corpus(selection, 1000):
            for label, debug in (f for f in FLAG_SETS if f[0] in args.flags.split(",")):
                stock_cmd = [configs_mod.driver(unit)] + configs_mod.compile_flags(unit, debug)
                front_end = statistics.median(front_end_wall(stock_cmd, unit.source, os.path.join(work, "fe.o"))
                                              for _ in range(args.rounds))
                stock = statistics.median(run_steps([[stock_cmd + ["-c", unit.source, "-o", os.path.join(work, "stock.o")]]],
                                                    clean_env()).wall for _ in range(args.rounds))
                back_end = stock - front_end
                for n in counts:
                    walls = {w: [] for w, _ in WAYS}
                    tails = {w: [] for w, _ in WAYS}
                    for _ in range(args.rounds):
                        for way, value in WAYS:
                            measured, line = compile_once(unit, work, debug, n, value)
                            if line["object_from_parts"] != (way == "parts"):
                                sys.exit("%s: object_from_parts is %s with MTPC_WRITE_OBJECT=%s"
                                         % (unit.name, line["object_from_parts"], value))
                            walls[way].append(measured.wall)
                            tails[way].append(model.serial_tail(measured.wall, front_end, line, n, measured.ended_unix))
                    m, h = statistics.median(walls["parts"]), statistics.median(walls["text"])
                    tm, th = statistics.median(tails["parts"]), statistics.median(tails["text"])
                    print("| %s | %s | %d | %.2f | %.2f | %.3f | %.2f s, %.1f %% | %.2f s, %.1f %% |"
                          % (unit.name, label, n, m, h, m / h, tm, 100 * tm / back_end, th, 100 * th / back_end), flush=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

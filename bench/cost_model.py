#!/usr/bin/env python3
"""Calibrates and checks mtpc's cost model (passes/src/cost_model.rs) on
the benchmark corpus, at -O0, -O0 -g, -O2 and -O2 -g.

For every unit and level, one after the other, it times:
  front end   clang <flags> -emit-llvm -Xclang -disable-llvm-passes (what
              both compiles share);
  stock       clang <flags> -c;
  forced      the same with mtpc and 2 partitions forced (MTPC_PARTITIONS=2,
              the model only estimates): what splitting costs and gains;
  automatic   mtpc with its defaults: what the model decides.
From the forced runs' MTPC_STATS it fits, per level class, the model's
main per-unit costs (the stock back end per IR instruction, the text per
instruction, the split per instruction, the tail per byte of text: the
merge, the check and the host assembling the text, which is the compile's
wall time minus the front end and the pass; and the work over the stock
back end), and prints, per unit and level, what the model estimated and
decided against what was measured. The costs of data and the debug
factors are read from the same runs by hand (data: the tree-sitter rows).

  python3 bench/cost_model.py                       # every unit, about 40 minutes
  python3 bench/cost_model.py --corpus sqlite3 --levels O0,O2
Writes bench/results/cost_model.json.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)

import configs  # noqa: E402
import corpus as corpus_mod  # noqa: E402
from harness import PLUGIN  # noqa: E402
from measure import clean_env, front_end_wall, run_steps, take_stats_lines  # noqa: E402

LEVELS = {"O0": ["-O0"], "O0g": ["-O0", "-g"], "O2": ["-O2"], "O2g": ["-O2", "-g"]}


def flags(unit, level):
    return LEVELS[level] + ["-w"] + unit.flags


def read_stats(path):
    lines = take_stats_lines(path)
    return lines[-1] if lines else None


def measure(unit, level, work, threads):
    cc = configs.driver(unit)
    obj = os.path.join(work, "out.o")
    stats = os.path.join(work, "stats.jsonl")
    base = [cc] + flags(unit, level)
    out = {}
    out["front_end"] = front_end_wall(base, unit.source, os.path.join(work, "fe.bc"))
    out["stock"] = run_steps([[base + ["-c", unit.source, "-o", obj]]], clean_env()).wall
    plugin = [cc, "-fpass-plugin=" + PLUGIN] + flags(unit, level) + ["-c", unit.source, "-o", obj]
    forced = run_steps([[plugin]], clean_env(MTPC_THREADS=str(threads), MTPC_PARTITIONS=str(threads), MTPC_STATS=stats))
    out["forced"], out["forced_stats"] = forced.wall, read_stats(stats)
    # The model's decision on the module itself, not on the machine's load.
    auto = run_steps([[plugin]], clean_env(MTPC_THREADS=str(threads), MTPC_STATS=stats, MTPC_LOAD_AWARE="0"))
    out["automatic"], out["automatic_stats"] = auto.wall, read_stats(stats)
    return out


def tail_seconds(r):
    """Merge, check, and the host assembling the text, of the forced run."""
    s = r["forced_stats"]
    host_assembly = r["forced"] - r["front_end"] - s["wall_ms"] / 1e3
    return (s["merge_ms"] + s["check_ms"]) / 1e3 + max(0.0, host_assembly)


def fit(rows):
    """Per-unit costs of one level class from its forced runs."""
    rows = [r for r in rows if r.get("forced_stats") and r["forced_stats"].get("model")
            and not r["forced_stats"]["fallback"] and r["forced_stats"]["asm_bytes"] > 0]
    if not rows:
        return {}
    shape = [r["forced_stats"]["model"]["shape"] for r in rows]
    backend = [max(0.0, r["stock"] - r["front_end"]) for r in rows]
    # The back end's time is mostly code: its cost per instruction where the
    # data is small, the data's from what is left.
    code_heavy = [b * 1e6 / s["instructions"] for b, s in zip(backend, shape) if s["data_bytes"] * 4 < s["instructions"] * 30]
    if not code_heavy:
        return {}
    per_instruction = statistics.median(code_heavy)
    text_per_instruction = statistics.median(r["forced_stats"]["asm_bytes"] / s["instructions"] for r, s in zip(rows, shape))
    return {
        "backend_us_per_instruction": per_instruction,
        "text_per_instruction": text_per_instruction,
        "split_us_per_instruction": statistics.median(r["forced_stats"]["split_ms"] * 1e3 / s["instructions"]
                                                      for r, s in zip(rows, shape)),
        "tail_us_per_text_byte": statistics.median(tail_seconds(r) * 1e6 / r["forced_stats"]["asm_bytes"] for r in rows),
        "inflation": statistics.median(r["forced_stats"]["work_ms"] / 1e3 / b for r, b in zip(rows, backend) if b > 0),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=("all",) + corpus_mod.SELECTIONS)
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--load", help="report on an earlier run's JSON instead of measuring")
    a = ap.parse_args()
    if a.load:
        with open(a.load) as f:
            results = json.load(f)
    else:
        results = []
        units = corpus_mod.corpus(a.corpus, 1)
        with tempfile.TemporaryDirectory(prefix="mtpc-cost-") as work:
            for unit in units:
                for level in a.levels.split(","):
                    print("%s %s ..." % (unit.name, level), flush=True)
                    r = measure(unit, level, work, a.threads)
                    r.update(unit=unit.name, level=level)
                    results.append(r)
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "cost_model.json"), "w") as f:
            json.dump(results, f, indent=1)

    print("\n| unit | level | front end | stock | forced split | automatic | model: stock / split (s) | verdict | right? |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        m = (r.get("forced_stats") or {}).get("model") or {}
        est = m.get("estimate") or {}
        auto = r.get("automatic_stats") or {}
        whole = auto.get("partitions", 0) < 2
        verdict = "whole" if whole else "split %d" % auto["partitions"]
        # Right: whole where the forced split was not at least 1 % faster,
        # split where it was.
        split_pays = r["forced"] < 0.99 * r["stock"]
        right = "yes" if split_pays != whole else "NO"
        print("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f / %.2f | %s | %s |" % (
            r["unit"], r["level"], r["front_end"], r["stock"], r["forced"], r["automatic"],
            r["front_end"] + est.get("stock_ms", 0) / 1e3, r["front_end"] + est.get("mtpc_ms", 0) / 1e3, verdict, right))
    for cls, levels in (("unoptimized", ("O0", "O0g")), ("optimized", ("O2", "O2g"))):
        for debug in (False, True):
            chosen = [lv for lv in levels if lv.endswith("g") == debug]
            fitted = fit([r for r in results if r["level"] in chosen])
            if fitted:
                print("\nfitted, %s%s: %s" % (cls, " -g" if debug else "",
                                              ", ".join("%s %.3g" % kv for kv in sorted(fitted.items()))))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark: compiling sqlite3.c with clang-16 -O2 -c, stock against mtpc.

Runs alternate (stock, mtpc, stock, mtpc, ...) so that drift on a shared
machine affects both alike, and reports medians:
  * whole-compile wall time and its speedup (target >= 1.55x on 2 cores);
  * total CPU time, user + sys (target <= 1.10x stock);
  * merge + check of the merged text + host assembly against stock back-end
    time (target <= 4 %);
    host assembly = mtpc wall - front end - mtpc pass (from MTPC_STATS),
    back end = stock wall - front end;
  * peak RSS (target <= 1.5x stock);
  * the object's .text size (target <= +2 %);
  * the compiled sqlite3 running a fixed SQL workload (target: at most 2 %
    slower);
    its printed checksum must match the stock build's.

  bench/parallel_compile.py [--rounds 3] [--threads 2] [--scale 30000]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from harness import PLUGIN, PROGRAMS_DIR, run, sqlite_dir, tool  # noqa: E402
from measure import BuildFailed, run_steps, section_sizes, text_bytes  # noqa: E402


def measured(cmd, env=None):
    """(wall s, user+sys s, peak RSS MiB) of a command, which must succeed."""
    try:
        m = run_steps([[cmd]], env)
    except BuildFailed as e:
        sys.exit(str(e))
    return m.wall, m.cpu, m.rss_mib


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scale", type=int, default=300000, help="rows of the SQL workload")
    a = ap.parse_args()
    sq = sqlite_dir()
    src = os.path.join(sq, "sqlite3.c")
    work = tempfile.mkdtemp(prefix="mtpc-bench-")
    flags = ["-O2", "-c", "-I" + sq]
    stock_obj, mtpc_obj = os.path.join(work, "stock.o"), os.path.join(work, "mtpc.o")
    stats = os.path.join(work, "stats.jsonl")
    # The split's speed is measured: split whatever else the machine runs.
    env = dict(os.environ, MTPC_THREADS=str(a.threads), MTPC_STATS=stats, MTPC_LOAD_AWARE="0")
    for k in ("MTPC_PARTITIONS", "MTPC_MIN_SIZE", "MTPC_DISABLE"):
        env.pop(k, None)

    print("front end alone (clang -O2 -Xclang -disable-llvm-passes -Xclang -emit-llvm-only) ...", flush=True)
    front = statistics.median(measured([tool("clang")] + flags + ["-Xclang", "-disable-llvm-passes", "-Xclang", "-emit-llvm-only",
                                        src, "-o", os.path.join(work, "front.o")])[0] for _ in range(2))
    stock, mtpc = [], []
    for r in range(a.rounds):
        print("round %d/%d: stock clang -O2 -c sqlite3.c ..." % (r + 1, a.rounds), flush=True)
        stock.append(measured([tool("clang")] + flags + [src, "-o", stock_obj]))
        print("round %d/%d: clang -O2 -c -fpass-plugin=libmtpc.so sqlite3.c (MTPC_THREADS=%d) ..." % (r + 1, a.rounds, a.threads), flush=True)
        mtpc.append(measured([tool("clang"), "-fpass-plugin=" + PLUGIN] + flags + [src, "-o", mtpc_obj], env=env))
    with open(stats) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    if not lines or any(l["fallback"] or l["partitions"] < 2 for l in lines):
        sys.exit("mtpc did not split sqlite3 (or fell back): %s" % lines[-1:])
    pass_wall = statistics.median(l["wall_ms"] for l in lines) / 1e3
    merge = statistics.median(l["merge_ms"] for l in lines) / 1e3
    check = statistics.median(l.get("check_ms", 0.0) for l in lines) / 1e3

    med = lambda rows, i: statistics.median(x[i] for x in rows)  # noqa: E731
    s_wall, m_wall = med(stock, 0), med(mtpc, 0)
    s_cpu, m_cpu = med(stock, 1), med(mtpc, 1)
    s_rss, m_rss = med(stock, 2), med(mtpc, 2)
    backend = s_wall - front
    host_asm = max(m_wall - front - pass_wall, 0.0)
    s_text, m_text = text_bytes(section_sizes(stock_obj)), text_bytes(section_sizes(mtpc_obj))

    print("linking and running the SQL workload (%d rows) ..." % a.scale, flush=True)
    driver = os.path.join(work, "workload.o")
    run([tool("clang"), "-O2", "-c", "-I" + sq, os.path.join(PROGRAMS_DIR, "sqlite_workload.c"), "-o", driver])
    exes = {}
    for name, obj in (("stock", stock_obj), ("mtpc", mtpc_obj)):
        exes[name] = os.path.join(work, name)
        run([tool("clang"), obj, driver, "-o", exes[name], "-lm"])
    outs = {n: run([e, str(a.scale)]) for n, e in exes.items()}
    if outs["stock"] != outs["mtpc"]:
        sys.exit("FAILURE: the mtpc build's workload output differs from the stock build's")
    runs = {"stock": [], "mtpc": []}
    for _ in range(max(5, a.rounds)):
        for n in ("stock", "mtpc"):
            runs[n].append(measured([exes[n], str(a.scale)])[0])
    s_run, m_run = statistics.median(runs["stock"]), statistics.median(runs["mtpc"])

    rows = [
        ("whole-compile wall", "%.2f s" % s_wall, "%.2f s" % m_wall, "%.2fx faster" % (s_wall / m_wall), ">= 1.55x", s_wall / m_wall >= 1.55),
        ("CPU time (user+sys)", "%.2f s" % s_cpu, "%.2f s" % m_cpu, "%.3fx" % (m_cpu / s_cpu), "<= 1.10x", m_cpu / s_cpu <= 1.10),
        ("merge + check + host assembly", "back end %.2f s" % backend, "%.2f + %.2f + %.2f s" % (merge, check, host_asm),
         "%.1f %%" % (100 * (merge + check + host_asm) / backend), "<= 4 %", (merge + check + host_asm) / backend <= 0.04),
        ("peak RSS", "%.0f MiB" % s_rss, "%.0f MiB" % m_rss, "%.2fx" % (m_rss / s_rss), "<= 1.5x", m_rss / s_rss <= 1.5),
        (".text", "%d B" % s_text, "%d B" % m_text, "%+.2f %%" % (100 * (m_text / s_text - 1)), "<= +2 %", m_text / s_text <= 1.02),
        ("SQL workload runtime", "%.3f s" % s_run, "%.3f s" % m_run, "%+.2f %%" % (100 * (m_run / s_run - 1)), "<= +2 %", m_run / s_run <= 1.02),
    ]
    print("\nsqlite3.c, clang-16 -O2 -c, %d threads, median of %d alternating rounds (front end %.2f s)\n" % (a.threads, a.rounds, front))
    print("| measure | stock | mtpc | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s | %s |" % (r[0], r[1], r[2], r[3], r[4], "yes" if r[5] else "NO"))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()

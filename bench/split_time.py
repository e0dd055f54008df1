#!/usr/bin/env python3
"""Benchmark: the time mtpc-split takes on sqlite3, against opt -O2 + llc.

The sqlite3 amalgamation (crate libsqlite3-sys 0.30.1) is compiled to
unoptimized bitcode; then, alternating in each round so that drift on a
shared machine affects both alike:
  * opt-16 -O2 on it, then llc-16 -O2 -filetype=obj on the result;
  * mtpc-split<partitions=N;out=...> on it, --split-runs times (the split
    takes a second, the back end twenty, so one run would weigh a moment's
    noise far more), timed by the pass itself (MTPC_LOG=info reports
    'split in X ms': planning, building and writing every partition,
    without opt's own parsing and writing).
Reports the medians, their ratio against the target of at most 2%, and the
range of the rounds' ratios.

  bench/split_time.py [--partitions 8] [--rounds 5] [--split-runs 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLUGIN = os.environ.get("MTPC_PLUGIN", os.path.join(ROOT, "target", "release", "libmtpc.so"))
BIN = "/usr/lib/llvm-16/bin"
TARGET = 0.02


def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode:
        sys.exit("command failed: %s\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    return r


def timed(cmd):
    t = time.perf_counter()
    run(cmd)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--split-runs", type=int, default=3, help="runs of the split per round (default 3)")
    a = ap.parse_args()
    src = run([os.path.join(ROOT, "tests", "fetch-crate-source.sh"), "libsqlite3-sys", "0.30.1"]).stdout.strip()
    work = tempfile.mkdtemp(prefix="mtpc-bench-split-")
    bc = os.path.join(work, "sqlite3.bc")
    print("compiling sqlite3.c to unoptimized bitcode ...", flush=True)
    run([BIN + "/clang", "-O2", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c",
         os.path.join(src, "sqlite3", "sqlite3.c"), "-o", bc])
    backend, split = [], []
    env = dict(os.environ, MTPC_LOG="info")
    for r in range(a.rounds):
        print("round %d/%d: opt -O2 + llc ..." % (r + 1, a.rounds), flush=True)
        t_opt = timed([BIN + "/opt", "-O2", bc, "-o", bc + ".opt"])
        t_llc = timed([BIN + "/llc", "-O2", "-filetype=obj", bc + ".opt", "-o", bc + ".o"])
        backend.append(t_opt + t_llc)
        print("round %d/%d: mtpc-split<partitions=%d> x %d ..." % (r + 1, a.rounds, a.partitions, a.split_runs),
              flush=True)
        runs = []
        for _ in range(a.split_runs):
            out = run([BIN + "/opt", "-load-pass-plugin=" + PLUGIN,
                       "-passes=mtpc-split<partitions=%d;out=%s>" % (a.partitions, os.path.join(work, "p")),
                       bc, "-o", os.devnull], env=env).stderr
            m = re.search(r"split in ([0-9.]+) ms", out)
            if not m:
                sys.exit("the split did not report its time:\n" + out)
            runs.append(float(m.group(1)) / 1e3)
        split.append(statistics.median(runs))
    b, s = statistics.median(backend), statistics.median(split)
    ratio = s / b
    per_round = sorted(x / y for x, y in zip(split, backend))
    print("\nsqlite3, %d partitions, median of %d rounds (%d split runs each)" % (a.partitions, a.rounds, a.split_runs))
    print("  opt -O2 + llc -O2:  %7.2f s" % b)
    print("  mtpc-split:         %7.3f s" % s)
    print("  split / back end:   %6.2f %%  (target <= %.0f %%: %s; rounds %.2f-%.2f %%)" % (
        100 * ratio, 100 * TARGET, "met" if ratio <= TARGET else "NOT met", 100 * per_round[0], 100 * per_round[-1]))
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark: how evenly a plan divides the work, counted per partition in
instructions, free of this machine's noise.

Each unit's unoptimized bitcode (as in bench/builds.py: the back end
alone) is compiled by `clang-16 -O2 -c` with `--partitions` partitions
asked for on one thread, under valgrind's callgrind, which writes a count
before each partition's first job (its build and optimization) and after
each one's second (its code generation): each count is then assigned to
the partition whose job it holds, by the jobs' times in `MTPC_STATS`. On
as many cores as partitions, the compile waits for the slowest partition:
its work against the mean is what the plan's balance costs the critical
path (1.0: perfectly even; the largest indivisible unit can make it
more). The same for another build (`--before`). A count is the same in
every run of the same build; one takes about 50 times the compile
(HarfBuzz at 16 partitions: 25 minutes), `--jobs` at a time.

  python3 bench/balance.py [--units raudio,harfbuzz] [--partitions 16]
                           [--before /path/to/other/libmtpc.so] [--jobs 2]
"""
import argparse
import collections
import concurrent.futures
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import configs as configs_mod  # noqa: E402
import corpus as corpus_mod  # noqa: E402
from builds import bitcode  # noqa: E402
from harness import PLUGIN  # noqa: E402
from measure import BuildFailed, clean_env  # noqa: E402


def cc1_command(driver_command):
    """The `clang -cc1` command the driver runs, so that valgrind counts that
    one process."""
    r = subprocess.run(driver_command + ["-###"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = [line for line in r.stderr.splitlines() if '"-cc1"' in line]
    if r.returncode != 0 or len(lines) != 1:
        raise BuildFailed("%s -### gave no single -cc1 command:\n%s" % (" ".join(driver_command), r.stderr[-2000:]))
    return shlex.split(lines[0])


def dump_total(path):
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise BuildFailed("%s holds no total" % path)


def per_partition(stats, counts):
    """{partition: instructions}: counts[i] is what ran up to the i-th
    boundary (a partition's first job starting, or its second ending), in
    time order; with one thread the jobs run one after another (each
    partition's code generation is queued once its optimization is done,
    and runs before the next partition's optimization unless it waits for
    another's, `odr_copies`), so what ends at a second job's end is that
    partition's, and what ends at a first job's start belongs to the
    partition whose first job started at the boundary before (its
    optimization, its code generation released later)."""
    bounds = sorted([(p["jobs_unix_ms"][0][0], "start", p["index"]) for p in stats["parts"]]
                    + [(p["jobs_unix_ms"][1][1], "end", p["index"]) for p in stats["parts"]])
    # One count per boundary, and the one at exit: another (a function
    # whose name matches the patterns) would shift every count after it.
    if len(counts) not in (len(bounds), len(bounds) + 1):
        raise BuildFailed("%d counts for %d job boundaries" % (len(counts), len(bounds)))
    work = collections.Counter()
    for i in range(1, len(bounds)):
        _, kind, k = bounds[i]
        _, before_kind, before_k = bounds[i - 1]
        owner = k if kind == "end" else (before_k if before_kind == "start" else None)
        if owner is not None:
            work[owner] += counts[i]
    return work


def count(unit, build, plugin, bc, work_dir, partitions):
    tag = "%s.%s" % (unit.name.replace("/", "_"), build)
    out_dir = os.path.join(work_dir, tag)
    os.makedirs(out_dir)
    stats_path = os.path.join(out_dir, "stats.jsonl")
    cmd = cc1_command([configs_mod.driver(unit), "-O2", "-w", "-fpass-plugin=" + plugin, "-c", bc,
                       "-o", os.path.join(out_dir, "out.o")])
    env = clean_env(MTPC_PARTITIONS=str(partitions), MTPC_THREADS="1", MTPC_STATS=stats_path)
    counted = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(out_dir, "cg.out"),
               "--dump-before=*optimize_partition*", "--dump-after=*compile_partition*"] + cmd
    r = subprocess.run(counted, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise BuildFailed("%s exited with %d under callgrind:\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    with open(stats_path) as f:
        stats = json.loads(f.readlines()[-1])
    if stats["fallback"] or stats["partitions"] < 2:
        raise BuildFailed("%s, %s build: not split as asked: %s" % (unit.name, build, stats.get("fallback_reason")))
    dumps = sorted(glob.glob(os.path.join(out_dir, "cg.out.*")), key=lambda p: int(p.rsplit(".", 1)[1]))
    work = per_partition(stats, [dump_total(p) for p in dumps])
    shutil.rmtree(out_dir, ignore_errors=True)
    return unit.name, build, stats, work


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", default="raudio,harfbuzz", help="comma-separated: " + ", ".join(corpus_mod.SELECTIONS))
    ap.add_argument("--partitions", type=int, default=16)
    ap.add_argument("--before", help="another build's libmtpc.so, counted too")
    ap.add_argument("--jobs", type=int, default=2, help="compiles counted at once")
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("error: valgrind is not installed (scripts/setup.sh installs it)")
    if a.before and not os.path.exists(a.before):
        sys.exit("error: %s does not exist: build the other commit first (cargo build --release in its worktree)" % a.before)
    builds = ([("before", os.path.abspath(a.before))] if a.before else []) + [("this", PLUGIN)]
    units = [u for sel in a.units.split(",") for u in corpus_mod.corpus(sel, 1000)]
    work_dir = tempfile.mkdtemp(prefix="mtpc-balance-")
    try:
        inputs = {u.name: bitcode(u, work_dir, False) for u in units}
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            jobs = [pool.submit(count, u, name, plugin, inputs[u.name], work_dir, a.partitions)
                    for u in units for name, plugin in builds]
            results = [j.result() for j in jobs]
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    print("\n%d partitions asked for, one thread; each partition's build, optimization and code generation,"
          " instructions executed (callgrind):\n" % a.partitions)
    print("| unit | build | partitions | their work | slowest | slowest / mean | the slowest holds the largest unit |")
    print("|---|---|---|---|---|---|---|")
    for name, build, stats, work in results:
        total, (slowest, most) = sum(work.values()), max(work.items(), key=lambda kv: (kv[1], -kv[0]))
        print("| %s | %s | %d | %.2f G | %.2f G (partition %d) | %.3f | %s |" % (
            name, build, stats["partitions"], total / 1e9, most / 1e9, slowest, most / (total / len(work)),
            "n/a" if stats["largest_unit"] is None else "yes" if stats["largest_unit"]["partition"] == slowest else "no"))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark: sqlite3.c compiled with a profile of its SQL workload, stock
clang against mtpc with default settings (the cost model decides).

A profile the pipeline applies by function name and control-flow hash (an
IR profile, -fprofile-use; IR instrumentation, -fprofile-generate) leaves
the optimization whole: mtpc splits only the code generation. clang's own
profile (-fprofile-instr-use) is applied by the front end, and the module
is split as without one. The profile is taken once, from the workload run
by a build instrumented the profile's way. Runs alternate (each round
starting with the next configuration), and report medians: wall time, the
speedup (median of the rounds' ratios), CPU time, what mtpc chose (its
stats), and the workload's output, which must be the stock build's.

  bench/profile_compile.py [--kinds ir,ir-generate,clang] [--rounds 3] [--scale 3000]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from harness import PLUGIN, PROGRAMS_DIR, SQLITE_DEFINES, run, sqlite_dir, tool  # noqa: E402
from measure import BuildFailed, run_steps  # noqa: E402

# kind: (how the training build is instrumented, the flag that applies its profile or None, the compile measured)
KINDS = {
    "ir": (["-O2", "-fprofile-generate"], "-fprofile-use=", None),
    "ir-generate": (None, None, ["-O2", "-fprofile-generate"]),
    "clang": (["-O0", "-fprofile-instr-generate"], "-fprofile-instr-use=", None),
}


def measured(cmd, env):
    """(wall s, user+sys s) of a command, which must succeed."""
    try:
        m = run_steps([[cmd]], env)
    except BuildFailed as e:
        sys.exit(str(e))
    return m.wall, m.cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kinds", default="ir,ir-generate,clang", help="comma-separated: " + ", ".join(KINDS))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=int, default=3000, help="rows of the SQL workload (training and check)")
    a = ap.parse_args()
    sq = sqlite_dir()
    src = os.path.join(sq, "sqlite3.c")
    workload = os.path.join(PROGRAMS_DIR, "sqlite_workload.c")
    work = tempfile.mkdtemp(prefix="mtpc-profile-bench-")
    base = os.environ.copy()
    for k in [k for k in base if k.startswith("MTPC_")]:
        del base[k]

    def compile_and_link(name, flags, env=None, plugin=False):
        obj, exe = os.path.join(work, name + ".o"), os.path.join(work, name)
        cmd = [tool("clang")] + (["-fpass-plugin=" + PLUGIN] if plugin else []) + flags + SQLITE_DEFINES + ["-I" + sq, "-c", src, "-o", obj]
        timing = measured(cmd, env or base)
        run([tool("clang")] + flags + ["-I" + sq, workload, obj, "-o", exe, "-lm"])
        return timing, exe

    rows = []
    for kind in a.kinds.split(","):
        train, apply, compile_flags = KINDS[kind]
        if train:
            print("%s: training build and run ..." % kind, flush=True)
            _, trained = compile_and_link(kind + "-train", train)
            raw, profile = os.path.join(work, kind + ".profraw"), os.path.join(work, kind + ".profdata")
            run([trained, str(a.scale)], env=dict(base, LLVM_PROFILE_FILE=raw))
            run([tool("llvm-profdata"), "merge", raw, "-o", profile])
            compile_flags = ["-O2", apply + profile]
        stats = os.path.join(work, kind + ".stats.jsonl")
        env = dict(base, MTPC_STATS=stats)
        times = {"stock": [], "mtpc": []}
        programs = {}
        for r in range(a.rounds):
            order = ["stock", "mtpc"] if r % 2 == 0 else ["mtpc", "stock"]
            for v in order:
                print("%s round %d/%d: %s clang %s ..." % (kind, r + 1, a.rounds, v, " ".join(compile_flags)), flush=True)
                timing, programs[v] = compile_and_link("%s-%s" % (kind, v), compile_flags, env, plugin=(v == "mtpc"))
                times[v].append(timing)
        outputs = {}
        for v, exe in programs.items():
            out_env = dict(base, LLVM_PROFILE_FILE=os.path.join(work, "check.profraw"))
            outputs[v] = run([exe, str(a.scale)], env=out_env).strip().splitlines()[-1]
        with open(stats) as f:
            records = [json.loads(l) for l in f if l.strip()]
        chose = sorted({"%s%s%s" % (r["partitions"], " (code generation)" if r["code_generation_only"] else "",
                                     ", fell back" if r["fallback"] else "") for r in records}) or ["whole"]
        med = lambda v, i: statistics.median(t[i] for t in times[v])  # noqa: E731
        speedup = statistics.median(s[0] / m[0] for s, m in zip(times["stock"], times["mtpc"]))
        rows.append((kind, " ".join(compile_flags).replace(work + "/", ""), med("stock", 0), med("mtpc", 0), speedup,
                     med("stock", 1), med("mtpc", 1), ", ".join(chose), outputs["stock"] == outputs["mtpc"]))
    print()
    print("| profile | compile | stock | mtpc | speedup | CPU stock | CPU mtpc | mtpc chose (partitions) | workload's output |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, flags, sw, mw, sp, sc, mc, chose, same in rows:
        print("| %s | `%s` | %.2f s | %.2f s | %.2fx | %.2f s | %.2f s | %s | %s |"
              % (kind, flags, sw, mw, sp, sc, mc, chose, "stock's" if same else "**DIFFERS**"))
    if not all(r[-1] for r in rows):
        sys.exit("a workload's output differs from the stock build's")


if __name__ == "__main__":
    main()

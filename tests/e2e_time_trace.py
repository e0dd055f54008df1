#!/usr/bin/env python3
"""mtpc in clang's -ftime-trace: sqlite3 is compiled with
`clang-16 -O2 -ftime-trace -fpass-plugin=libmtpc.so` (2 threads, 4
partitions) and the trace's JSON is read back. It must show mtpc's phases
as spans: the split and the merge on clang's thread, inside one
`mtpc-parallel` span; every partition as two jobs on worker threads
(build and optimize, then codegen, which may wait for other partitions'
optimization: see odr_copies.rs), between the two, with the partition's
passes inside them; the partitions of the two workers overlapping in time. The object must be the
same as without -ftime-trace.

  tests/e2e_time_trace.py
Prints one line per check and 'N passed, N failed' at the end.
"""
import json
import os
import shutil
import tempfile

from harness import PLUGIN, Checker, run, sqlite_dir, tool

# No machine-wide slots: another compile of this user must not keep the
# two workers from overlapping.
SETTINGS = {"MTPC_THREADS": "2", "MTPC_PARTITIONS": "4", "MTPC_MACHINE_SLOTS": "0"}


def compile_sqlite(work, tag, trace):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    env.update(SETTINGS, MTPC_STATS=os.path.join(work, tag + ".jsonl"))
    obj = os.path.join(work, tag + ".o")
    cmd = [tool("clang"), "-O2", "-fpass-plugin=" + PLUGIN, "-c", os.path.join(sqlite_dir(), "sqlite3.c"), "-o", obj]
    if trace:
        cmd.insert(1, "-ftime-trace")
    run(cmd, env=env)
    with open(os.path.join(work, tag + ".jsonl")) as f:
        stats = json.loads(f.readline())
    return obj, stats


def inside(inner, outer):
    return outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]


def main():
    work = tempfile.mkdtemp(prefix="mtpc-time-trace-")
    checker = Checker()
    obj, stats = compile_sqlite(work, "traced", trace=True)
    with open(os.path.join(work, "traced.json")) as f:
        trace = json.load(f)
    spans = [e for e in trace["traceEvents"] if e.get("ph") == "X" and not e["name"].startswith("Total ")]
    names = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"}
    main_tid = next(e["tid"] for e in spans if e["name"] == "Frontend")
    named = lambda name: [e for e in spans if e["name"] == name]

    whole, split, merge = named("mtpc-parallel"), named("mtpc split"), named("mtpc merge")
    checker.check(len(whole) == len(split) == len(merge) == 1 and all(e["tid"] == main_tid for e in whole + split + merge),
                  "one mtpc-parallel, mtpc split and mtpc merge span, on clang's thread",
                  json.dumps(whole + split + merge))
    checker.check(len(whole) == 1 and all(inside(e, whole[0]) for e in split + merge),
                  "the split and the merge lie inside the mtpc-parallel span")

    parts = named("mtpc partition")
    details = sorted(e["args"]["detail"] for e in parts)
    expected = sorted(2 * ["partition %d" % k for k in range(stats["partitions"])])
    checker.check(stats["partitions"] == 4 and details == expected,
                  "two mtpc partition spans (its jobs) per partition (%d)" % stats["partitions"], "spans: %s" % details)
    workers = {e["tid"] for e in parts}
    checker.check(main_tid not in workers and all(names.get(t, "").startswith("mtpc-worker") for t in workers),
                  "partitions run on mtpc's worker threads, named in the trace", "threads: %s" % names)
    checker.check(len(split) == 1 and len(merge) == 1 and
                  all(split[0]["ts"] + split[0]["dur"] <= p["ts"] and p["ts"] + p["dur"] <= merge[0]["ts"] for p in parts),
                  "every partition runs after the split and before the merge")
    phases_ok = all(any(e["tid"] == p["tid"] and inside(e, p) and e["args"]["detail"] == k
                        for p in parts if p["args"]["detail"] == k for e in named(phase))
                    for k in set(details) for phase in ("mtpc build", "mtpc optimize", "mtpc codegen"))
    checker.check(phases_ok, "each partition's spans hold its build, optimize and codegen spans on their thread")
    passes = [e for e in named("InstCombinePass") + named("InlinerPass") if e["tid"] in workers]
    checker.check(len(passes) > 0 and all(any(inside(e, p) for p in parts) for e in passes),
                  "the partitions' passes (InstCombinePass, InlinerPass) show inside their partition's span")
    overlap = any(a["tid"] != b["tid"] and a["ts"] < b["ts"] + b["dur"] and b["ts"] < a["ts"] + a["dur"]
                  for a in parts for b in parts)
    checker.check(len(workers) == 2 and overlap, "two workers, whose partitions overlap in time")

    plain, _ = compile_sqlite(work, "plain", trace=False)
    with open(obj, "rb") as a, open(plain, "rb") as b:
        checker.check(a.read() == b.read(), "the object is the same with and without -ftime-trace")
    shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()

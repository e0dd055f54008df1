#!/usr/bin/env python3
"""mtpc under GNU make's jobserver, and without one: `make -j2` compiles two
sqlite3 objects with the plugin (MTPC_THREADS=2 each, 2 partitions forced).
With the jobserver (recipes marked `+`), no more than 2 partition jobs may
run at once across both compiles. Without it (as under ninja), the
machine-wide slots (MTPC_MACHINE_SLOTS=2) must keep them to 2 as well;
with those turned off (MTPC_MACHINE_SLOTS=0, the control), the two pools
run up to 4. Concurrency is observed from the start and end time of every
partition job (MTPC_STATS).

  tests/e2e_make.py
Prints one line per check and 'N passed, N failed' at the end.
"""
import json
import os
import shutil
import tempfile

from harness import PLUGIN, ROOT, Checker, run, sqlite_dir


def peak_concurrency(stats_path):
    events = []
    with open(stats_path) as f:
        for line in f:
            for part in json.loads(line)["parts"]:
                for start, end in part["jobs_unix_ms"]:
                    events += [(start, 1), (end, -1)]
    running = peak = 0
    for _, delta in sorted(events, key=lambda e: (e[0], e[1])):
        running += delta
        peak = max(peak, running)
    return peak


def build(work, share, machine_slots):
    out = os.path.join(work, "share-%s-slots-%s" % (share, machine_slots))
    os.makedirs(out)
    stats = os.path.join(out, "stats.jsonl")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    env.update(MTPC_THREADS="2", MTPC_PARTITIONS="2", MTPC_MACHINE_SLOTS=machine_slots, MTPC_STATS=stats)
    run(["make", "-f", os.path.join(ROOT, "tests", "make", "Makefile"), "-j2", "SHARE=" + share,
         "PLUGIN=" + PLUGIN, "SQLITE=" + sqlite_dir(), "OUT=" + out], env=env)
    with open(stats) as f:
        modules = [json.loads(l) for l in f if l.strip()]
    return modules, peak_concurrency(stats)


def main():
    work = tempfile.mkdtemp(prefix="mtpc-make-")
    checker = Checker()
    both_split = lambda modules: len(modules) == 2 and all(m["partitions"] > 1 and not m["fallback"] for m in modules)
    modules, peak = build(work, "yes", "0")
    checker.check(both_split(modules), "make -j2 with the jobserver: both translation units split", json.dumps(modules)[:400])
    checker.check(peak <= 2, "make -j2 with the jobserver: at most 2 partition jobs at once (saw %d)" % peak)
    modules, peak = build(work, "no", "2")
    checker.check(both_split(modules), "make -j2 without the jobserver: both translation units split",
                  json.dumps(modules)[:400])
    checker.check(peak <= 2, "make -j2 without the jobserver, 2 machine-wide slots: at most 2 partition jobs at once "
                  "across both compiles (saw %d)" % peak)
    _, control = build(work, "no", "0")
    checker.check(control > 2, "control, make -j2 without the jobserver or machine-wide slots: more than 2 at once "
                  "(saw %d), so the observation can tell" % control)
    shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()

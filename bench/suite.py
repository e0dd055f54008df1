#!/usr/bin/env python3
"""mtpc's benchmark suite: compile time, work inflation, code quality and
memory on real large translation units, side by side with the
alternatives, in one run.

For each unit of the corpus (sqlite3; DuckDB's two largest unity files;
HarfBuzz's unity build; the tree-sitter C++ grammar's generated parser;
QuickJS's engine),
every configuration of bench/configs.py builds the one object, in
alternating rounds (A B C ..., A B C ...) so that drift on a shared machine
touches all alike. Measured: wall and CPU time, work inflation (CPU / stock
CPU), peak RSS, .text, the calls the object makes that stock's inlined
(bench/calls.py), debug-section sizes and variable location coverage
(llvm-dwarfdump --statistics) of a -g build of each, which must verify, and
for sqlite3, HarfBuzz and QuickJS the runtime of a workload (a SQL script,
HarfBuzz's shaping benchmark, a JavaScript script) whose printed output
must match stock (a mismatch
fails that configuration), with the noise band of stock's own runs.
mtpc's per-partition stats give the critical-path model's speedup on 4, 8,
16 and 64 cores (4 and 16 with --quick; bench/model.py), checked against the measured 1- and
2-thread times; those runs are made on one thread, so their CPU time is
the work at that many partitions, without what two threads on one machine
slow each other down by. With the front end timed alone they also give the
critical-path bound (model.bound) and the serial tail at each projection.
Last, stock against mtpc's default settings at -O0, -O0 -g, -O2 and
-O2 -g (bench/levels.py).

Writes bench/results/latest.{md,json,png}; --update-readme puts the table
in README.md. A failed build or a wrong output stops that configuration,
with its message in the report, and the others go on.

  python3 bench/suite.py                 # everything, 95 to 135 minutes on 2 cores
  python3 bench/suite.py --skip-levels   # without the four levels, about 65 minutes
  python3 bench/suite.py --quick         # sqlite3, stock and mtpc only, one round (CI smoke)
  python3 bench/suite.py --corpus duckdb --rounds 2
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)

import calls as calls_mod  # noqa: E402
import configs as configs_mod  # noqa: E402
import corpus as corpus_mod  # noqa: E402
import levels as levels_mod  # noqa: E402
import model  # noqa: E402
import report  # noqa: E402
import harness  # noqa: E402
from harness import ROOT, run, tool  # noqa: E402
from measure import (BuildFailed, debug_bytes, debug_quality, defined_symbols, front_end_wall,  # noqa: E402
                     missing_definitions, rotated, run_steps, section_sizes, take_stats_lines, text_bytes, timed_run)

PROJECTION_CORES = (4, 8, 16, 64)
# --quick, CI's smoke run: stock and mtpc only (lld's full LTO with mtpc has
# its own tests, the alternatives none to smoke), and two projections.
QUICK_CONFIGS = ("stock", "mtpc-")
QUICK_PROJECTION_CORES = (4, 16)


class Progress:
    def __init__(self, total):
        self.total, self.done = total, 0

    def step(self, what):
        self.done += 1
        print("[%3d/%d] %s" % (self.done, self.total, what), flush=True)

    def add(self, steps):
        """More steps than planned (more rounds for a short compile)."""
        self.total += steps

    def skip(self, steps):
        """Planned steps that will not run (after a failure)."""
        self.total -= steps


def read_stats(path):
    lines = take_stats_lines(path)
    if len(lines) != 1:
        raise BuildFailed("expected one MTPC_STATS line, got %d" % len(lines))
    line = lines[0]
    if line["fallback"] or line["partitions"] < 2:
        raise BuildFailed("mtpc did not split the module (partitions %d, fallback: %s)"
                          % (line["partitions"], line["fallback_reason"]))
    return line


def build(config, unit, work, tag, debug=False):
    """Builds unit with config into work; returns (object, Measured, stats line or None)."""
    out = os.path.join(work, config.name)
    os.makedirs(out, exist_ok=True)
    obj = os.path.join(out, "%s.o" % tag)
    stats = os.path.join(out, "%s.stats.jsonl" % tag)
    take_stats_lines(stats)  # nothing left from an earlier failed run
    measured = run_steps(config.steps(unit, obj, out, debug), config.env(stats))
    return obj, measured, (read_stats(stats) if config.is_mtpc else None)


def measure_unit(unit, configs, args, progress, work):
    results = {c.name: {"label": c.label, "runs": [], "failure": None} for c in configs}
    objects = {}
    front_end = []
    for r in range(args.rounds):
        progress.step("%s: front end alone (-disable-llvm-passes -emit-llvm-only), round %d/%d" % (unit.name, r + 1, args.rounds))
        try:
            front_end.append(time_front_end(unit, work))
            print("  %.2f s wall" % front_end[-1], flush=True)
        except BuildFailed as e:
            print("  FAILED: %s" % str(e).splitlines()[0], flush=True)
        for c in rotated(configs, r):
            res = results[c.name]
            progress.step("%s: %s, round %d/%d" % (unit.name, c.label, r + 1, args.rounds))
            if res["failure"]:
                continue
            try:
                obj, m, stats = build(c, unit, work, "round%d" % r)
            except BuildFailed as e:
                res["failure"] = str(e)
                print("  FAILED: %s" % str(e).splitlines()[0], flush=True)
                continue
            res["runs"].append({"wall": m.wall, "cpu": m.cpu, "rss_mib": m.rss_mib})
            objects[c.name] = obj
            if stats:
                res.setdefault("stats", []).append(stats)
            print("  %.2f s wall, %.2f s CPU, %.0f MiB" % (m.wall, m.cpu, m.rss_mib), flush=True)

    check_complete(configs, results, objects)
    stock_calls = calls_mod.callees(objects["stock"]) if "stock" in objects else None
    for c in configs:
        res = results[c.name]
        progress.step("%s: %s, -g build for debug-section sizes" % (unit.name, c.label))
        if res["failure"]:
            continue
        res["text_bytes"] = text_bytes(section_sizes(objects[c.name]))
        if stock_calls is not None:
            extra, fewer, _ = calls_mod.compare(stock_calls, calls_mod.callees(objects[c.name]))
            res["calls"] = {"extra": extra, "fewer": fewer, "stock": sum(stock_calls.values())}
        try:
            obj, m, _ = build(c, unit, work, "debug", debug=True)
            sizes = section_sizes(obj)
            res["debug"] = {"wall": m.wall, "text_bytes": text_bytes(sizes), "debug_bytes": debug_bytes(sizes)}
            res["debug"].update(debug_quality(obj))
        except BuildFailed as e:
            res["debug"] = {"failure": str(e)}

    if unit.workload:
        runtime(unit, configs, results, objects, args, progress, work)

    projections = {}
    for cores in args.projection_cores:
        c = configs_mod.projection_config(cores, 1)
        progress.step("%s: %s (stats for the %d-core projection)" % (unit.name, c.label, cores))
        try:
            _, m, stats = build(c, unit, work, "projection")
            projections[cores] = (m.wall, m.cpu, stats, m.ended_unix)
        except BuildFailed as e:
            print("  FAILED: %s" % str(e).splitlines()[0], flush=True)
    levels = None
    if not args.skip_levels:
        levels = levels_mod.measure(unit, args.level_rounds, progress, work, extend=not args.quick)
    front_end_wall = statistics.median(front_end) if front_end else None
    return {"name": unit.name, "kind": unit.kind, "configs": results, "front_end": front_end_wall,
            "model": project(results, projections, args.cores, front_end_wall), "levels": levels}


def time_front_end(unit, work):
    """Wall time of the front end alone at -O2: what every configuration
    runs before the back end, the first term of the critical path."""
    return front_end_wall([configs_mod.driver(unit)] + configs_mod.compile_flags(unit, False), unit.source,
                          os.path.join(work, "front-end.bc"))


def check_complete(configs, results, objects):
    """Every object must define what the stock object defines and uses."""
    if "stock" not in objects:
        return
    stock_defines = defined_symbols(objects["stock"])
    for c in configs:
        res = results[c.name]
        if c.name == "stock" or res["failure"]:
            continue
        missing = missing_definitions(objects[c.name], stock_defines)
        if missing:
            res["failure"] = "INCOMPLETE OBJECT: %d symbols that the stock object defines are undefined in it (%s)" % (
                len(missing), ", ".join(missing[:3]))
            print("  %s: %s" % (c.name, res["failure"]), flush=True)


def runtime(unit, configs, results, objects, args, progress, work):
    w = unit.workload
    driver_objs = []
    for src in w.sources:
        obj = os.path.join(work, os.path.basename(src) + ".o")
        run([tool("clang++") if w.cxx else tool("clang"), "-O2"] + w.cflags + ["-c", src, "-o", obj])
        driver_objs.append(obj)
    exes = {}
    for c in configs:
        if not results[c.name]["failure"]:
            exes[c.name] = os.path.join(work, c.name, "workload")
            run([tool("clang++") if unit.cxx else tool("clang"), objects[c.name]] + driver_objs + ["-o", exes[c.name]] + w.libs)
    expected = timed_run([exes["stock"]] + w.args)[1] if "stock" in exes else None
    for name, exe in list(exes.items()):
        if name == "stock":
            continue
        out = timed_run([exe] + w.args)[1]
        if out != expected:
            results[name]["failure"] = "WRONG OUTPUT: the workload printed\n%s\ninstead of the stock build's\n%s" % (
                out[-500:], (expected or "")[-500:])
            print("  %s: %s" % (name, results[name]["failure"].splitlines()[0]), flush=True)
            del exes[name]
    rounds = runtime_rounds(args)
    for r in range(rounds):
        for name, exe in exes.items():
            progress.step("%s: workload (%s), round %d/%d" % (unit.name, name, r + 1, rounds))
            results[name].setdefault("runtime", []).append(timed_run([exe] + w.args)[0])


def runtime_rounds(args):
    """The workload runs for a few seconds and a run on this shared machine
    can be off by 10 %: at least 11 alternating runs, whatever the compile
    rounds (3 with --quick)."""
    return 3 if args.quick else max(11, args.rounds)


def mtpc_runs(config_results):
    """(wall, stats line) of each run of an mtpc configuration."""
    return [(r["wall"], s) for r, s in zip(config_results["runs"], config_results.get("stats", []))]


def project(results, projections, cores, front_end):
    """The critical-path model: its predictions of the measured 1- and
    2-thread times (each from the other's stats), its projections, and the
    bound that function-level splitting cannot beat (model.bound)."""
    one, two = mtpc_runs(results["mtpc-1"]), mtpc_runs(results["mtpc-%d" % min(2, cores)])
    out = {"predicted": {}, "projected": {}}
    if not (one and two) or not results["stock"]["runs"]:
        return out
    stock_wall = statistics.median(r["wall"] for r in results["stock"]["runs"])
    stock_cpu = statistics.median(r["cpu"] for r in results["stock"]["runs"])
    serial1, parts1, checks1, segments1 = model.summarize(one)
    serial2, parts2, checks2, segments2 = model.summarize(two)
    for threads, serial, parts, checks, segments, measured in ((1, serial2, parts2, checks2, segments2, one),
                                                               (2, serial1, parts1, checks1, segments1, two)):
        out["predicted"][threads] = {"predicted": model.predict(serial, parts, threads, checks, segments),
                                     "measured": statistics.median(w for w, _ in measured)}
    for n, (wall, cpu, stats, ended) in sorted(projections.items()):
        # Serial: what runs outside the pass (the front end, the host
        # assembling this run's merged text, exit) and the pass's own steps;
        # then the partitions, the parts' segments and checks, on n cores.
        serial = model.serial_seconds(wall, stats)
        predicted = model.predict(serial, model.part_seconds(stats), n, model.check_seconds(stats), model.segment_seconds(stats))
        held = sum(p["held_instructions"] for p in stats["parts"]) / stats["instructions"]
        out["projected"][n] = {"wall": predicted, "speedup": stock_wall / predicted, "inflation": cpu / stock_cpu,
                               "held": held, "partitions": stats["partitions"],
                               "tail": model.serial_tail(wall, front_end, stats, n, ended) if front_end else None}
    if front_end and projections:
        out["bound"] = model.bound(front_end, [(w, s, ended) for w, _, s, ended in projections.values()])
        out["bound"]["speedup"] = stock_wall / out["bound"]["wall"]
        out["stock_back_end"] = stock_wall - front_end
        for p in out["projected"].values():
            p["of_bound"] = p["speedup"] / out["bound"]["speedup"]
    return out


def machine(args):
    cpu = "unknown"
    if os.path.exists("/proc/cpuinfo"):
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), cpu)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True).stdout.strip()
    llvm = run([tool("llvm-config"), "--version"]).strip()
    return {"cores": args.cores, "cpu": cpu, "llvm": llvm, "mtpc_commit": commit,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="all", choices=("all",) + corpus_mod.SELECTIONS)
    ap.add_argument("--quick", action="store_true",
                    help="sqlite3 only, stock and mtpc, one round (one per level too), "
                         "projected to %s cores: a smoke run for CI" % " and ".join(map(str, QUICK_PROJECTION_CORES)))
    ap.add_argument("--rounds", type=int, default=None, help="alternating rounds (default 3; 1 with --quick)")
    ap.add_argument("--rows", type=int, default=300000, help="rows of sqlite3's SQL workload")
    ap.add_argument("--out", default=None,
                    help="where the results go (default bench/results; bench/results/quick with --quick, "
                         "so that a smoke run never replaces the README's chart)")
    ap.add_argument("--update-readme", action="store_true", help="put the new table in README.md")
    ap.add_argument("--skip-levels", action="store_true",
                    help="leave out stock vs mtpc's default settings at -O0, -O0 -g, -O2, -O2 -g")
    ap.add_argument("--level-rounds", type=int, default=2, help="alternating rounds per level (default 2)")
    ap.add_argument("--llvm", type=int, choices=(16, 19, 22), default=None,
                    help="the LLVM major to measure, with the plugin built for it (default: MTPC_LLVM, or 16)")
    args = ap.parse_args()
    if args.llvm and args.llvm != harness.LLVM_MAJOR:
        # The tools and the plugin are the harness's, chosen when it loads.
        os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, MTPC_LLVM=str(args.llvm)))
    if args.update_readme and args.quick:
        sys.exit("--update-readme replaces the README's tables of every unit and configuration; "
                 "a --quick run measures sqlite3, stock and mtpc only: run the suite without --quick")
    if args.update_readme and harness.LLVM_MAJOR != 16:
        sys.exit("--update-readme writes the README's LLVM 16 tables; measure LLVM %d without it" % harness.LLVM_MAJOR)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.out = args.out or os.path.join(HERE, "results", *(["quick"] if args.quick else []))
    args.cores = os.cpu_count() or 2
    if not os.path.exists(configs_mod.PLUGIN):
        sys.exit("the plugin %s does not exist: run %s first" % (configs_mod.PLUGIN, harness.BUILD_COMMAND))

    print("fetching the corpus ...", flush=True)
    units = corpus_mod.corpus("sqlite3" if args.quick else args.corpus, args.rows)
    configs = configs_mod.configurations(args.cores)
    args.projection_cores = PROJECTION_CORES
    if args.quick:
        configs = [c for c in configs if c.name.startswith(QUICK_CONFIGS)]
        args.projection_cores = QUICK_PROJECTION_CORES
        args.level_rounds = 1
    per_unit = args.rounds * (len(configs) + 1) + len(configs) + len(args.projection_cores)
    if not args.skip_levels:
        per_unit += args.level_rounds * len(levels_mod.LEVELS)  # short compiles add rounds as they go
    total = sum(per_unit + (runtime_rounds(args) * len(configs) if u.workload else 0) for u in units)
    progress = Progress(total)
    print("%d units x %d configurations, %d rounds: %d steps" % (len(units), len(configs), args.rounds, total), flush=True)

    results = {"machine": machine(args),
               "settings": {"quick": args.quick, "rounds": args.rounds, "level_rounds": None if args.skip_levels else args.level_rounds,
                            "rows": args.rows, "projection_cores": list(args.projection_cores),
                            "configs": [{"name": c.name, "label": c.label} for c in configs]},
               "units": []}
    for unit in units:
        work = tempfile.mkdtemp(prefix="mtpc-suite-")
        try:
            results["units"].append(measure_unit(unit, configs, args, progress, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    report.finish(results)
    os.makedirs(args.out, exist_ok=True)
    paths = report.write(results, args.out)
    print("\n" + report.markdown(results))
    print("wrote " + ", ".join(paths))
    if args.update_readme:
        report.update_readme(results, os.path.join(ROOT, "README.md"))
        print("updated README.md")
    failed = [(u["name"], n) for u in results["units"] for n, c in u["configs"].items() if c["failure"]]
    failed += [(u["name"], "mtpc default %s" % lv) for u in results["units"] for lv, r in (u["levels"] or {}).items()
               if r["failure"]]
    if failed:
        print("configurations that failed: " + ", ".join("%s/%s" % f for f in failed))
    sys.exit(1 if any(n == "stock" or n.startswith("mtpc") for _, n in failed) else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Differential test of mtpc in lld's full LTO (clang -flto -fuse-ld=lld).

Every link below is compared with the stock full LTO link of the same
objects (same flags, no plugin): the program's output must be equal, and
the stats (MTPC_STATS) must show that the LTO module (ld-temp.o) was split.

  * automatic mode (-Wl,--load-pass-plugin), forced split, on our C and C++
    programs and sqlite3 (with its workload); sqlite3 also with default
    settings (the cost model splits it);
  * explicit mode: --lto-newpm-passes='mtpc-parallel<fulllto;O2;...>',
    compared with --lto-newpm-passes='lto<O2>';
  * with lld's own --lto-partitions=2;
  * the pre-link compile (-flto) with the plugin loaded stays bitcode;
  * whole-program devirtualization (-fwhole-program-vtables): the calls it
    resolves are direct in mtpc's program as in stock's (and indirect
    without it); CFI (-fsanitize=cfi): the program runs as stock's, and a
    call through the wrong type dies of SIGILL in both, also when the
    module is left whole (default settings) or a partition fails;
  * -fvirtual-function-elimination: left whole, with one info line;
  * another plugin with a FullLinkTimeOptimizationLast callback, loaded
    before or after mtpc: the link is left whole (one info line), that
    plugin's pass sees every function stock's does, and the program is
    stock's with that plugin, byte for byte;
  * a failure injected in a partition: one warning, and the stock program
    byte for byte; the same with default settings on a small module and
    with MTPC_DISABLE=1;
  * MTPC_THREADS=1 and 2 link byte-identical programs; -g: llvm-dwarfdump
    --verify finds no error and gdb stops where it does in stock's; lld's
    --time-trace shows the partitions' work.

  tests/e2e_full_lto.py [--only NAME] [--skip NAME]
Prints one line per check and 'N passed, N failed' at the end.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile

from harness import PLUGIN, PROGRAMS_DIR, Checker, dwarf_verify_errors, require_plugin, run, stop_location, tool
from e2e_fidelity import build_seen_plugin
from e2e_parallel import FORCE_SPLIT, Program, env_with, programs, read_stats, split_happened

# The plugin in lld's full LTO, automatically.
LOAD = "-Wl,--load-pass-plugin=" + PLUGIN
LTO = ["-flto", "-fuse-ld=lld"]


def link(p, objs, out, flags, extra=(), env=None):
    """Links objs with full LTO into out; returns lld's stderr."""
    r = subprocess.run([p.driver] + flags + LTO + list(extra) + objs + ["-o", out] + p.libs,
                       env=env or env_with(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("link failed (%d): %s\n%s" % (r.returncode, out, r.stderr[-3000:]))
    return r.stderr


# (program name, flags) -> what stock_build built.
BUILT = {}


def stock_build(p, work, flags):
    """(bitcode objects, stock full LTO program, stats of the pre-link
    compiles) of p at flags, built once. The objects are compiled with the
    plugin loaded (and a split forced), as a user's build would: it must
    leave them to the link (test_program checks)."""
    key = (p.name, tuple(flags))
    if key not in BUILT:
        tag = "b%d" % len(BUILT)
        stats = os.path.join(work, "%s.%s.pre.jsonl" % (p.name, tag))
        objs = []
        for src in [p.source] + p.extra:
            obj = os.path.join(work, "%s.%s.%s.o" % (p.name, os.path.basename(src), tag))
            run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + ["-flto"] + p.cflags + ["-c", src, "-o", obj],
                env=env_with(MTPC_STATS=stats, **FORCE_SPLIT))
            objs.append(obj)
        stock = os.path.join(work, "%s.%s.stock" % (p.name, tag))
        link(p, objs, stock, flags)
        BUILT[key] = (objs, stock, read_stats(stats))
    return BUILT[key]


def lto_module_split(stats, what):
    ok, what, detail = split_happened(stats, what)
    return ok and all(s["module"] == "ld-temp.o" for s in stats), what, detail


def same_file(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def test_program(p, work, checker, flags=("-O2",)):
    flags = list(flags)
    label = "%s full LTO" % p.name
    objs, stock, pre_link_stats = stock_build(p, work, flags)
    with open(objs[0], "rb") as f:
        checker.check(f.read(4) == b"BC\xc0\xde", label + ": the pre-link compile with the plugin is left as bitcode")
    checker.check(pre_link_stats == [], label + ": nothing was split before the link")
    expected = run([stock] + p.args)
    for what, extra, tag in (("", [], "auto"), (", --lto-partitions=2", ["-Wl,--lto-partitions=2"], "lldparts")):
        stats = os.path.join(work, "%s.%s.jsonl" % (p.name, tag))
        exe = os.path.join(work, "%s.lto.%s" % (p.name, tag))
        link(p, objs, exe, flags, [LOAD] + extra, env_with(MTPC_STATS=stats, **FORCE_SPLIT))
        checker.check(*lto_module_split(read_stats(stats), label + what + ": the LTO module was split"))
        checker.check(run([exe] + p.args) == expected, label + what + ": output equals the stock full LTO build's")
    # Threads change nothing in the program lld writes.
    one = os.path.join(work, p.name + ".lto.t1")
    link(p, objs, one, flags, [LOAD], env_with(MTPC_THREADS="1", **FORCE_SPLIT))
    two = os.path.join(work, p.name + ".lto.t2")
    link(p, objs, two, flags, [LOAD], env_with(MTPC_THREADS="2", **FORCE_SPLIT))
    checker.check(same_file(one, two), label + ": MTPC_THREADS=1 and 2 link byte-identical programs")
    # The explicit form, against lld's lto<O2> pipeline text (no summary).
    stock_text = os.path.join(work, p.name + ".lto.text")
    link(p, objs, stock_text, flags, ["-Wl,--lto-newpm-passes=lto<O2>"])
    stats = os.path.join(work, p.name + ".explicit.jsonl")
    exe = os.path.join(work, p.name + ".lto.explicit")
    link(p, objs, exe, flags, [LOAD, "-Wl,--lto-newpm-passes=mtpc-parallel<fulllto;O2;partitions=4;min-size=0>"],
         env_with(MTPC_STATS=stats))
    checker.check(*lto_module_split(read_stats(stats), label + " mtpc-parallel<fulllto;O2>: split"))
    checker.check(run([exe] + p.args) == run([stock_text] + p.args),
                  label + " mtpc-parallel<fulllto;O2>: output equals lto<O2>'s")


def test_fallback(p, work, checker):
    label = "%s full LTO with a panic injected in partition 1" % p.name
    objs, stock, _ = stock_build(p, work, ["-O2"])
    stats = os.path.join(work, p.name + ".fb.jsonl")
    exe = os.path.join(work, p.name + ".fb.mtpc")
    err = link(p, objs, exe, ["-O2"], [LOAD], env_with(MTPC_STATS=stats, MTPC_TEST_FAIL_PARTITION="1", **FORCE_SPLIT))
    checker.check("compiling the module whole instead" in err and err.count("warning") == 1,
                  label + ": one warning says the module is compiled whole", err[-2000:])
    s = read_stats(stats)
    checker.check(len(s) == 1 and s[0]["fallback"], label + ": the stats record the fallback", json.dumps(s)[:500])
    checker.check(same_file(exe, stock), label + ": the program is the stock link's, byte for byte")
    # Too small for the cost model, or mtpc turned off: nothing changes.
    for what, env in (("default settings (a small module)", {}), ("MTPC_DISABLE=1", {"MTPC_DISABLE": "1"})):
        exe = os.path.join(work, p.name + ".fb.whole")
        link(p, objs, exe, ["-O2"], [LOAD], env_with(**env))
        checker.check(same_file(exe, stock), "%s full LTO, %s: the stock program, byte for byte" % (p.name, what))


def test_other_plugin(p, work, checker):
    """A plugin that adds passes at the end of the full LTO pipeline may need
    the whole program: mtpc leaves such a link whole."""
    objs, _, _ = stock_build(p, work, ["-O2"])
    seen_plugin = "-Wl,--load-pass-plugin=" + build_seen_plugin(work)

    def seen_at_lto_last(path):
        with open(path) as f:
            return sorted(line.split()[1] for line in f if line.startswith("lto-last "))

    listed = os.path.join(work, p.name + ".seen.stock.txt")
    stock = os.path.join(work, p.name + ".seen.stock")
    link(p, objs, stock, ["-O2"], [seen_plugin], env_with(SEEN_FUNCTIONS_FILE=listed))
    expected = seen_at_lto_last(listed)
    for order, plugins in (("before", [seen_plugin, LOAD]), ("after", [LOAD, seen_plugin])):
        label = "%s full LTO, a plugin with a FullLinkTimeOptimizationLast callback loaded %s mtpc" % (p.name, order)
        listed = os.path.join(work, "%s.seen.%s.txt" % (p.name, order))
        stats = os.path.join(work, "%s.seen.%s.jsonl" % (p.name, order))
        exe = os.path.join(work, "%s.seen.%s" % (p.name, order))
        err = link(p, objs, exe, ["-O2"], plugins,
                   env_with(SEEN_FUNCTIONS_FILE=listed, MTPC_STATS=stats, MTPC_LOG="info", **FORCE_SPLIT))
        checker.check("1 callback(s) of other plugins" in err and read_stats(stats) == [],
                      label + ": left whole, one info line says why", err[-1000:])
        got = seen_at_lto_last(listed)
        checker.check(expected != [] and got == expected, label + ": its pass sees every function stock's does",
                      "stock %d functions, with mtpc %d" % (len(expected), len(got)))
        checker.check(same_file(exe, stock), label + ": the program is stock's with that plugin, byte for byte")


def test_debug_info(p, work, checker):
    label = "%s full LTO -O2 -g" % p.name
    objs, stock, _ = stock_build(p, work, ["-O2", "-g"])
    stats = os.path.join(work, p.name + ".g.jsonl")
    exe = os.path.join(work, p.name + ".g.mtpc")
    trace = os.path.join(work, p.name + ".g.trace.json")
    link(p, objs, exe, ["-O2", "-g"], [LOAD, "-Wl,--time-trace=" + trace], env_with(MTPC_STATS=stats, **FORCE_SPLIT))
    checker.check(*lto_module_split(read_stats(stats), label + ": the LTO module was split"))
    errors = dwarf_verify_errors(exe)
    checker.check(not errors, label + ": llvm-dwarfdump --verify finds no error", "\n".join(errors)[-2000:])
    # gdb stops where it does in stock's program, in the functions stock
    # kept a trace of (full LTO may delete a static function it inlined).
    stops = 0
    for f in p.functions:
        try:
            a = stop_location(stock, f, p.args)
        except RuntimeError:
            continue
        try:
            b = stop_location(exe, f, p.args)
        except RuntimeError as e:
            b = "(gdb failed: %s)" % str(e)[-300:]
        stops += 1
        checker.check(a == b, label + ": gdb stops in %s at %s as in the stock build" % (f, a), "stock %s, mtpc %s" % (a, b))
    checker.check(stops > 0, label + ": gdb stops in some of %s in the stock build" % p.functions)
    with open(trace) as t:
        names = {e.get("name") for e in json.load(t)["traceEvents"]}
    checker.check({"mtpc-parallel", "mtpc optimize", "mtpc codegen"} <= names,
                  label + ": lld's --time-trace shows mtpc's split and each partition's work",
                  "mtpc events: %s" % sorted(n for n in names if n and "mtpc" in n))


def test_by_default(p, work, checker):
    """sqlite3 with the plugin's default settings: the cost model splits it."""
    label = "%s full LTO, default settings" % p.name
    objs, stock, _ = stock_build(p, work, ["-O2"])
    stats = os.path.join(work, p.name + ".def.jsonl")
    exe = os.path.join(work, p.name + ".def.mtpc")
    err = link(p, objs, exe, ["-O2"], [LOAD],
               env_with(MTPC_STATS=stats, MTPC_THREADS="2", MTPC_LOG="info", MTPC_LOAD_AWARE="0"))
    s = read_stats(stats)
    checker.check(len(s) == 1 and s[0]["partitions"] >= 2 and not s[0]["fallback"] and s[0].get("model"),
                  label + ": the cost model splits the LTO module", json.dumps(s)[:600] + "\n" + err[-1000:])
    checker.check(run([exe] + p.args) == run([stock] + p.args), label + ": output equals the stock full LTO build's")


def indirect_calls(exe, function):
    """Indirect calls in the code of the function whose mangled name holds `function`."""
    # A promoted local keeps its name before the suffix: NAME.mtpc.HASH.
    symbol = next((l.split()[-1] for l in run([tool("llvm-nm"), exe]).splitlines()
                   if re.search(r"\b_Z\d+%s\w*(\.mtpc\.[0-9a-f]+(\.\d+)?)?$" % function, l)), None)
    if symbol is None:
        return None
    out = run([tool("llvm-objdump"), "-d", "--no-show-raw-insn", "--disassemble-symbols=" + symbol, exe])
    return sum(1 for l in out.splitlines() if re.search(r"\bcall[a-z]*\s+\*", l))


# A split of whole_program.cpp whose partitions all hold code: its functions
# but main are small locals that every partition would copy (the copy
# limits; with them its code is one unit, and the split plans one
# partition), so without copies of functions by size (C++ inline groups
# and constants are still copied) the indirect and virtual calls cross
# partitions, through CFI's jump tables where it checks them.
SPLIT_SMALL_PROGRAM = dict(MTPC_PARTITIONS="3", MTPC_MIN_SIZE="0", MTPC_TEST_COPY_LIMITS="0,0,0,4096,4294967295,2000")


def code_split(stats, what):
    """(ok, what, detail): the LTO module was split and each partition owns code."""
    ok, what, detail = lto_module_split(stats, what)
    return ok and all(all(part["instructions"] > 0 for part in s["parts"]) for s in stats), what, detail


def test_whole_program(work, checker):
    """Whole-program devirtualization and CFI, which need the whole program,
    run once on the whole module before the split."""
    p = Program("whole-program", os.path.join(PROGRAMS_DIR, "whole_program.cpp"), cxx=True,
                cflags=["-fvisibility=hidden"], args=["2000"])
    exes = {}
    for mode, extra in (("plain", []), ("wpd", ["-fwhole-program-vtables"]), ("cfi", ["-fsanitize=cfi"])):
        flags = ["-O2"] + extra
        objs, stock, _ = stock_build(p, work, flags)
        stats = os.path.join(work, "wp.%s.jsonl" % mode)
        exe = os.path.join(work, "wp.%s.mtpc" % mode)
        link(p, objs, exe, flags, [LOAD], env_with(MTPC_STATS=stats, **SPLIT_SMALL_PROGRAM))
        label = "whole_program.cpp full LTO %s" % " ".join(flags)
        checker.check(*code_split(read_stats(stats), label + ": the LTO module was split, code in every partition"))
        checker.check(run([exe] + p.args) == run([stock] + p.args), label + ": output equals the stock build's")
        exes[mode] = (stock, exe)
    # Codec has one implementation and Stage::weight() a constant in each
    # class: with -fwhole-program-vtables their calls are resolved.
    for function in ("encode_all", "weigh"):
        plain = indirect_calls(exes["plain"][0], function)
        stock, mtpc = (indirect_calls(e, function) for e in exes["wpd"])
        checker.check(plain and stock == 0 and mtpc == 0,
                      "whole_program.cpp -fwhole-program-vtables: the virtual calls in %s are devirtualized as in stock" % function,
                      "indirect calls: without devirtualization %s, stock %s, mtpc %s" % (plain, stock, mtpc))
    # CFI: type tests lowered on the whole module hold across partitions,
    # and when the module ends up whole after all (too small for the cost
    # model, a failed partition), they are not lowered a second time.
    cfi_objs, stock, _ = stock_build(p, work, ["-O2", "-fsanitize=cfi"])
    for what, env in (("default settings, left whole", {}),
                      ("a failed partition", dict(MTPC_TEST_FAIL_PARTITION="1", **SPLIT_SMALL_PROGRAM))):
        exe = os.path.join(work, "wp.cfi.whole")
        link(p, cfi_objs, exe, ["-O2", "-fsanitize=cfi"], [LOAD], env_with(**env))
        checker.check(run([exe] + p.args) == run([stock] + p.args),
                      "whole_program.cpp -fsanitize=cfi, %s: output equals the stock build's" % what)
        exes["cfi-" + what] = (stock, exe)
    for key in [k for k in exes if k.startswith("cfi")]:
        for misuse in ("bad-cast", "bad-icall"):
            codes = [subprocess.run([e, "10", misuse], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
                     for e in exes[key]]
            checker.check(codes == [-signal.SIGILL] * 2,
                          "whole_program.cpp -fsanitize=cfi%s: a %s dies of SIGILL as in stock" % (key[3:].replace("-", ", ", 1), misuse),
                          "exit status stock %d, mtpc %d" % tuple(codes))
    # Virtual function elimination: left whole, with one info line.
    flags = ["-O2", "-fwhole-program-vtables", "-fvirtual-function-elimination"]
    objs, stock, _ = stock_build(p, work, flags)
    stats = os.path.join(work, "wp.vfe.jsonl")
    exe = os.path.join(work, "wp.vfe.mtpc")
    err = link(p, objs, exe, flags, [LOAD], env_with(MTPC_STATS=stats, MTPC_LOG="info", **FORCE_SPLIT))
    checker.check("virtual function elimination" in err and read_stats(stats) == [],
                  "whole_program.cpp -fvirtual-function-elimination: left whole, one info line says why", err[-1000:])
    checker.check(same_file(exe, stock), "whole_program.cpp -fvirtual-function-elimination: the stock program, byte for byte")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="run only the program with this name (whole-program: the C++ one of this file)")
    ap.add_argument("--skip", action="append", default=[], choices=["constructs-c", "constructs-cpp", "sqlite3", "whole-program"],
                    help="leave out the program with this name (repeatable)")
    a = ap.parse_args()
    require_plugin()
    work = tempfile.mkdtemp(prefix="mtpc-full-lto-")
    checker = Checker()
    for p in programs(large=False):
        if p.name not in ("constructs-c", "constructs-cpp", "sqlite3") or (a.only and p.name != a.only) or p.name in a.skip:
            continue
        try:
            test_program(p, work, checker)
            if p.name == "sqlite3":
                test_by_default(p, work, checker)
            else:
                test_fallback(p, work, checker)
                test_debug_info(p, work, checker)
            if p.name == "constructs-c":
                test_other_plugin(p, work, checker)
        except RuntimeError as e:
            checker.check(False, p.name + ": builds", str(e))
    if (not a.only or a.only == "whole-program") and "whole-program" not in a.skip:
        try:
            test_whole_program(work, checker)
        except RuntimeError as e:
            checker.check(False, "whole_program.cpp: builds", str(e))
    shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()

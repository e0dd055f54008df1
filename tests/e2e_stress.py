#!/usr/bin/env python3
"""Stress test of mtpc-split and mtpc-parallel on random modules.

IR modules (tests/stress_modules.py: llvm-stress-16 functions and a random
layer of every linkage, COMDATs, aliases, an ifunc, TLS, constant
expressions, blockaddress, ctors, llvm.used, module and inline asm), each
deterministic from its seed; a module that fails `opt-16 -passes=verify`, or
that stock llc-16 or clang-16 cannot compile, is replaced by the next
attempt of the same seed (counted, not a failure). For each module, with N
drawn from 2..5 (every module has at least 5 units, so N partitions are due):
  * mtpc-split<partitions=N;min-size=0;out=P> succeeds without a warning,
    reports N partitions and writes exactly P.0.bc .. P.{N-1}.bc;
  * every partition passes opt-16 -passes=verify;
  * every partition compiles (llc-16 -filetype=obj -relocation-model=pic),
    and the objects link with ld.lld-16 -r (no duplicate symbol);
  * the linked partitions define the unsplit object's non-local symbols,
    each with its type, binding and visibility, each in exactly one
    partition, and nothing else but promoted locals (NAME.mtpc.HASH,
    global, hidden, NAME an internal or private global of the module); they
    refer to no symbol the unsplit object does not; if the unsplit object
    links with ld.lld-16 -shared, so do they;
  * clang-16 -c on the module with -fpass-plugin (automatic mode forced:
    MTPC_PARTITIONS=N, MTPC_MIN_SIZE=0; level -O0..-O3/-Os and -fPIC,
    -fno-pic or the default drawn per module) succeeds without an mtpc
    message, MTPC_STATS shows one module split into N partitions without a
    fallback (a fallback fails the test unless its reason is one
    DOCUMENTED_FALLBACKS lists: README's known limits), and its object
    defines stock clang's non-local symbols (the same type, binding and
    visibility; a linkonce symbol may be missing if nothing refers to it)
    plus only promoted locals and linkonce symbols kept weak (README:
    a linkonce_odr function used by several partitions stays), refers
    to no symbol of the module it does not define, and links -shared when
    stock's does.
C programs (csmith, Debian's `csmith` and `libcsmith-dev`; skipped with a
message when absent), at -O1 or -O2 with N in 2..5: the stock build,
the automatic-mode build (MTPC_STATS: split, no fallback) and the program
linked from its mtpc-split partitions (each verified, compiled by
clang-16 -c at the same level) print the same checksum; a program whose
stock build runs longer than the timeout is replaced by the next attempt.

  tests/e2e_stress.py                   # quick: 250 modules, 16 programs
  tests/e2e_stress.py --long            # long: 4000 modules, 300 programs
  tests/e2e_stress.py --seed S --count N --c-count M [--jobs J] [--keep DIR]
Case K of a run is seed S+K (default S=1): `--seed X --count 1 --c-count 0`
reruns IR case X alone, `--count 0 --c-count 1` C case X. --keep DIR keeps
each failing case's directory (module, partitions, objects) under DIR.
Prints each failure with its seed, the failing command and the command
that reproduces it, then a summary line and 'N passed, N failed'.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

from harness import PLUGIN, ROOT, tool
import stress_modules

QUICK = (250, 16)
LONG = (4000, 300)
ATTEMPTS = 6
CSMITH = shutil.which("csmith")
CSMITH_INCLUDE = "/usr/include/csmith"
RUN_TIMEOUT = 5  # seconds a C program may run
TOOL_TIMEOUT = 300
# Fallback reasons README documents as known limits (none applies to these
# modules yet; a reason listed here is counted, not failed).
DOCUMENTED_FALLBACKS = []
# Symbols the code generator makes in every object that needs them.
PER_OBJECT_SYMBOL_PREFIXES = ("DW.ref.",)
PROMOTED = re.compile(r"^(.*)\.mtpc\.[0-9a-f]+$")
MTPC_ENV = ("MTPC_THREADS", "MTPC_PARTITIONS", "MTPC_MIN_SIZE", "MTPC_DISABLE", "MTPC_STATS", "MTPC_LOG",
            "MTPC_TEST_FAIL_PARTITION", "MTPC_TEST_BREAK_PARTITION", "MTPC_TEST_BREAK_ASM")


class Failure(Exception):
    def __init__(self, what, detail="", command=None):
        super().__init__(what)
        self.what, self.detail, self.command = what, detail, command


class Discard(Exception):
    """The generated input is unusable (invalid, or stock cannot build it)."""

    def __init__(self, why):
        super().__init__(why)
        self.why = why


def shell(cmd, env=None):
    words = []
    if env:
        words += ["%s=%s" % (k, v) for k, v in sorted(env.items())]
    return " ".join(words + [w if re.fullmatch(r"[\w@%+=:,./<>;-]+", w) and "<" not in w else "'%s'" % w
                             for w in cmd])


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in MTPC_ENV}
    env.update(extra)
    return env


def run(cmd, env_extra=None, timeout=TOOL_TIMEOUT, cwd=None):
    """Runs cmd; returns the CompletedProcess (returncode -9 on a timeout)."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                              env=clean_env(**(env_extra or {})), timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, -9, e.stdout or "", "timed out after %d s" % timeout)


def must(cmd, what, env_extra=None, timeout=TOOL_TIMEOUT, forbid=()):
    r = run(cmd, env_extra, timeout)
    if r.returncode != 0:
        raise Failure(what, "exit %d: %s" % (r.returncode, r.stderr[-3000:]), shell(cmd, env_extra))
    for text in forbid:
        if text in r.stderr:
            raise Failure(what + " (no '%s' on stderr)" % text, r.stderr[-3000:], shell(cmd, env_extra))
    return r


class Symbols:
    """An object's symbol table (llvm-readelf --symbols)."""
    LINE = re.compile(r"^\s*\d+:\s+[0-9a-f]+\s+\S+\s+(\w+)\s+(\w+)\s+(\w+)\s+(\S+)\s+(\S.*)$")

    def __init__(self, obj):
        out = must([tool("llvm-readelf"), "--symbols", "--wide", obj], "llvm-readelf reads " + obj).stdout
        self.defined, self.undefined = {}, set()
        self.counts = {}
        for line in out.splitlines():
            m = self.LINE.match(line)
            if not m:
                continue
            typ, bind, vis, ndx, name = m.groups()
            if bind == "LOCAL" or typ in ("FILE", "SECTION") or name.startswith(PER_OBJECT_SYMBOL_PREFIXES):
                continue
            if ndx == "UND":
                self.undefined.add(name)
            else:
                self.defined[name] = (typ, bind, vis)
                self.counts[name] = self.counts.get(name, 0) + 1


def promoted_base(name, module, attrs):
    """NAME if name is NAME.mtpc.HASH, global and hidden, and NAME a local of
    the module; else None."""
    m = PROMOTED.match(name)
    if m and m.group(1) in module.local_names() and attrs[1] == "GLOBAL" and attrs[2] == "HIDDEN":
        return m.group(1)
    return None


def fmt(name, attrs):
    return "%s (%s)" % (name, " ".join(attrs)) if attrs else name


class Case:
    def __init__(self, kind, seed, work, keep):
        self.kind, self.seed, self.keep = kind, seed, keep
        self.dir = os.path.join(work, "%s-%d" % (kind, seed))
        self.passed, self.failures, self.discards, self.notes = 0, [], [], []
        self.attempt = 0
        self.r = random.Random("mtpc-stress-case-%s-%d" % (kind, seed))

    def ok(self, n=1):
        self.passed += n

    def reproduce(self):
        keep = self.keep or "/tmp/mtpc-stress"
        return "python3 tests/e2e_stress.py --seed %d --count %d --c-count %d --keep %s" % (
            self.seed, 1 if self.kind == "ir" else 0, 1 if self.kind == "c" else 0, keep)

    def fail(self, f):
        self.failures.append(f)


# ---------------------------------------------------------------- IR modules

def make_module(case):
    """Writes the first usable attempt of the case's module; returns it."""
    for attempt in range(ATTEMPTS):
        case.attempt = attempt
        shutil.rmtree(case.dir, ignore_errors=True)
        os.makedirs(case.dir)
        module = stress_modules.generate(case.seed, attempt)
        ll = os.path.join(case.dir, "m.ll")
        with open(ll, "w") as f:
            f.write(module.text)
        try:
            r = run([tool("opt"), "-passes=verify", "-disable-output", ll])
            if r.returncode != 0:
                raise Discard("invalid IR: " + r.stderr.strip().splitlines()[0][:200])
            whole = os.path.join(case.dir, "whole.o")
            r = run([tool("llc"), "-filetype=obj", "-relocation-model=pic", ll, "-o", whole])
            if r.returncode != 0:
                raise Discard("stock llc-16 fails: " + (r.stderr.strip().splitlines() or ["?"])[0][:200])
            return module, ll
        except Discard as d:
            case.discards.append("attempt %d: %s" % (attempt, d.why))
    return None, None


def check_split(case, module, ll, n):
    d = case.dir
    prefix = os.path.join(d, "p")
    cmd = [tool("opt"), "-load-pass-plugin=" + PLUGIN,
           "-passes=mtpc-split<partitions=%d;min-size=0;out=%s>" % (n, prefix), ll, "-o", os.devnull]
    env = {"MTPC_THREADS": "1", "MTPC_LOG": "info"}
    r = must(cmd, "mtpc-split<partitions=%d;min-size=0> succeeds" % n, env)
    noise = [l for l in r.stderr.splitlines() if "warning" in l or "error" in l]
    if noise:
        raise Failure("mtpc-split prints no warning", "\n".join(noise[:10]), shell(cmd, env))
    m = re.search(r"mtpc-split: (\d+) partitions", r.stderr)
    files = sorted(f for f in os.listdir(d) if re.fullmatch(r"p\.\d+\.bc", f))
    want = ["p.%d.bc" % k for k in range(n)]
    if not m or int(m.group(1)) != n or sorted(files) != sorted(want):
        raise Failure("mtpc-split writes exactly %d partitions" % n,
                      "reported: %s; files: %s" % (m.group(0) if m else r.stderr[-500:], files), shell(cmd, env))
    case.ok()
    parts = [os.path.join(d, f) for f in want]
    for p in parts:
        must([tool("opt"), "-passes=verify", "-disable-output", p], "partition %s passes the verifier" % os.path.basename(p))
    case.ok()
    objs = []
    for p in parts:
        obj = p[:-3] + ".o"
        must([tool("llc"), "-filetype=obj", "-relocation-model=pic", p, "-o", obj],
             "partition %s compiles with llc-16" % os.path.basename(p))
        objs.append(obj)
    case.ok()
    linked = os.path.join(d, "split.o")
    must([tool("ld.lld"), "-r"] + objs + ["-o", linked], "the partitions' objects link (ld.lld-16 -r)")
    case.ok()

    whole = Symbols(os.path.join(d, "whole.o"))
    split = Symbols(linked)
    per_part = [Symbols(o) for o in objs]
    problems = []
    for name, attrs in sorted(whole.defined.items()):
        got = split.defined.get(name)
        if got != attrs:
            problems.append("%s: %s in the partitions" % (fmt(name, attrs), "missing" if got is None else " ".join(got)))
    for name, attrs in sorted(split.defined.items()):
        if name not in whole.defined and not promoted_base(name, module, attrs):
            problems.append("%s: defined by the partitions only" % fmt(name, attrs))
    if problems:
        raise Failure("the partitions define the unsplit object's symbols", "\n".join(problems[:30]))
    case.ok()
    times = {}
    for s in per_part:
        for name, c in s.counts.items():
            times[name] = times.get(name, 0) + c
    repeated = sorted("%s defined in %d partitions" % (k, c) for k, c in times.items() if c != 1)
    if repeated:
        raise Failure("each symbol is defined in exactly one partition", "\n".join(repeated[:30]))
    case.ok()
    extra = sorted(split.undefined - whole.undefined)
    if extra:
        raise Failure("the partitions refer to no symbol the unsplit object does not",
                      "undefined only in the split: %s" % ", ".join(extra[:30]))
    case.ok()
    check_links_shared(case, module, os.path.join(d, "whole.o"), linked,
                       "the partitions link -shared as the unsplit object does")


def links_shared(obj, module):
    """(links, errors) for ld.lld-16 -shared obj. A hidden symbol the module
    only declares (or defines available_externally) is defined elsewhere in
    the same program by the module's own promise: leaving it undefined is
    not counted as an error."""
    r = run([tool("ld.lld"), "-shared", obj, "-o", obj[:-2] + ".so"])
    errors = [l for l in r.stderr.splitlines() if "error:" in l]
    real = [l for l in errors
            if not (re.search(r"undefined hidden symbol: (\S+)", l)
                    and re.search(r"undefined hidden symbol: (\S+)", l).group(1) in module.declared_names())]
    return r.returncode == 0 or (errors and not real), r.stderr[-3000:]


def check_links_shared(case, module, reference, obj, what, command=None):
    """If reference links -shared, obj must too."""
    if links_shared(reference, module)[0]:
        ok, err = links_shared(obj, module)
        if not ok:
            raise Failure(what, err, command or shell([tool("ld.lld"), "-shared", obj, "-o", obj[:-2] + ".so"]))
        case.ok()


def read_stats(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_stats(case, stats, n, cmd_text, exact=True):
    """One module, split into n partitions (at least 2 unless exact), no fallback."""
    if len(stats) != 1:
        raise Failure("MTPC_STATS has one line", json.dumps(stats)[:1000], cmd_text)
    s = stats[0]
    if s["fallback"]:
        reason = s.get("fallback_reason") or ""
        if any(re.search(p, reason) for p in DOCUMENTED_FALLBACKS):
            case.notes.append("documented fallback: " + reason)
            return False
        raise Failure("mtpc-parallel splits without a fallback", "fallback_reason: %s" % reason, cmd_text)
    if (s["partitions"] != n) if exact else (s["partitions"] < 2 or s["partitions"] > n):
        raise Failure("mtpc-parallel splits into %s%d partitions" % ("" if exact else "2..", n),
                      json.dumps(s)[:600], cmd_text)
    case.ok()
    return True


def check_parallel(case, module, ll, n):
    d = case.dir
    level = case.r.choice(["-O0", "-O1", "-O2", "-O2", "-O3", "-Os"])
    pic = case.r.choice([[], ["-fPIC"], ["-fno-pic"]])
    flags = [level] + pic
    stock_obj = os.path.join(d, "stock.o")
    r = run([tool("clang"), "-c", ll, "-o", stock_obj] + flags)
    if r.returncode != 0:
        case.notes.append("stock clang %s fails; parallel check skipped: %s" % (" ".join(flags), r.stderr[-200:]))
        return
    par_obj = os.path.join(d, "par.o")
    stats_path = os.path.join(d, "par.jsonl")
    env = {"MTPC_PARTITIONS": str(n), "MTPC_MIN_SIZE": "0", "MTPC_THREADS": "1", "MTPC_STATS": stats_path}
    cmd = [tool("clang"), "-fpass-plugin=" + PLUGIN, "-c", ll, "-o", par_obj] + flags
    r = must(cmd, "clang %s with the plugin compiles" % " ".join(flags), env)
    if "mtpc" in r.stderr:
        raise Failure("clang with the plugin prints no mtpc message",
                      "\n".join(l for l in r.stderr.splitlines() if "mtpc" in l)[:2000], shell(cmd, env))
    if not check_stats(case, read_stats(stats_path), n, shell(cmd, env)):
        return
    stock, par = Symbols(stock_obj), Symbols(par_obj)
    problems = []
    for name, attrs in sorted(stock.defined.items()):
        got = par.defined.get(name)
        discardable = module.linkage_of(name) in ("linkonce", "linkonce_odr")
        if got is None:
            if not discardable or name in par.undefined:
                problems.append("%s: missing" % fmt(name, attrs))
        elif got != attrs:
            problems.append("%s: %s with mtpc" % (fmt(name, attrs), " ".join(got)))
    for name, attrs in sorted(par.defined.items()):
        if name in stock.defined or promoted_base(name, module, attrs):
            continue
        if module.linkage_of(name) in ("linkonce", "linkonce_odr") and attrs[1] == "WEAK":
            continue
        problems.append("%s: defined with mtpc only" % fmt(name, attrs))
    for name in sorted(par.undefined - stock.undefined):
        g = module.globals.get(name)
        if PROMOTED.match(name) or (g is not None and g.defined and g.linkage != "available_externally"):
            problems.append("%s: referred to, not defined, with mtpc" % name)
    if problems:
        raise Failure("clang %s with mtpc defines stock's symbols" % " ".join(flags), "\n".join(problems[:30]),
                      shell(cmd, env))
    case.ok()
    check_links_shared(case, module, stock_obj, par_obj,
                       "clang %s with mtpc: the object links -shared as stock's does" % " ".join(flags))


def ir_case(case):
    module, ll = make_module(case)
    if module is None:
        case.notes.append("no usable module in %d attempts" % ATTEMPTS)
        return case
    n = case.r.randint(2, 5)
    for check in (check_split, check_parallel):
        try:
            check(case, module, ll, n)
        except Failure as f:
            f.what = "%s (N=%d)" % (f.what, n)
            case.fail(f)
    return case


# ---------------------------------------------------------------- C programs

def c_case(case):
    level = case.r.choice(["-O1", "-O2"])
    n = case.r.randint(2, 5)
    cflags = [level, "-w", "-I" + CSMITH_INCLUDE]
    for attempt in range(ATTEMPTS):
        case.attempt = attempt
        shutil.rmtree(case.dir, ignore_errors=True)
        os.makedirs(case.dir)
        src = os.path.join(case.dir, "prog.c")
        gen = run([CSMITH, "--seed", str((case.seed * 977 + attempt) % (1 << 31)), "--max-funcs", "12",
                   "--output", src])
        if gen.returncode != 0:
            case.discards.append("attempt %d: csmith fails" % attempt)
            continue
        stock = os.path.join(case.dir, "stock")
        if run([tool("clang")] + cflags + [src, "-o", stock]).returncode != 0:
            case.discards.append("attempt %d: stock clang fails" % attempt)
            continue
        expected = run([stock], timeout=RUN_TIMEOUT)
        if expected.returncode != 0 or "checksum" not in expected.stdout:
            case.discards.append("attempt %d: stock program %s" % (
                attempt, "times out" if expected.returncode == -9 else "exits %d" % expected.returncode))
            continue
        break
    else:
        case.notes.append("no usable program in %d attempts" % ATTEMPTS)
        return case
    what = "csmith %s N=%d" % (level, n)
    try:
        # Automatic mode.
        exe = os.path.join(case.dir, "mtpc")
        stats_path = os.path.join(case.dir, "auto.jsonl")
        env = {"MTPC_PARTITIONS": str(n), "MTPC_MIN_SIZE": "0", "MTPC_THREADS": "1", "MTPC_STATS": stats_path}
        cmd = [tool("clang"), "-fpass-plugin=" + PLUGIN] + cflags + [src, "-o", exe]
        r = must(cmd, what + ": clang with the plugin builds", env)
        if "mtpc" in r.stderr:
            raise Failure(what + ": clang with the plugin prints no mtpc message", r.stderr[-2000:], shell(cmd, env))
        if check_stats(case, read_stats(stats_path), n, shell(cmd, env), exact=False):
            out = run([exe], timeout=RUN_TIMEOUT * 4)
            if out.stdout != expected.stdout:
                raise Failure(what + ": automatic mode prints stock's checksum",
                              "stock: %s\nmtpc (exit %d): %s" % (expected.stdout.strip(), out.returncode,
                                                                 out.stdout.strip()[-300:]), shell(cmd, env))
            case.ok()
    except Failure as f:
        case.fail(f)
    try:
        bc = os.path.join(case.dir, "prog.bc")
        must([tool("clang")] + cflags + ["-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", src, "-o", bc],
             what + ": bitcode")
        prefix = os.path.join(case.dir, "p")
        cmd = [tool("opt"), "-load-pass-plugin=" + PLUGIN,
               "-passes=mtpc-split<partitions=%d;min-size=0;out=%s>" % (n, prefix), bc, "-o", os.devnull]
        must(cmd, what + ": mtpc-split succeeds", {"MTPC_THREADS": "1"}, forbid=("warning",))
        parts = sorted((f for f in os.listdir(case.dir) if re.fullmatch(r"p\.\d+\.bc", f)),
                       key=lambda f: int(f.split(".")[1]))
        if not 2 <= len(parts) <= n:
            raise Failure(what + ": mtpc-split writes 2..%d partitions" % n, str(parts), shell(cmd))
        objs = []
        for p in parts:
            p = os.path.join(case.dir, p)
            must([tool("opt"), "-passes=verify", "-disable-output", p], what + ": %s passes the verifier" % p)
            must([tool("clang"), level, "-c", p, "-o", p[:-3] + ".o"], what + ": %s compiles" % p)
            objs.append(p[:-3] + ".o")
        case.ok()
        exe = os.path.join(case.dir, "split")
        must([tool("clang")] + objs + ["-o", exe], what + ": the partitions link")
        out = run([exe], timeout=RUN_TIMEOUT * 4)
        if out.stdout != expected.stdout:
            raise Failure(what + ": the program linked from %d partitions prints stock's checksum" % len(parts),
                          "stock: %s\nsplit (exit %d): %s" % (expected.stdout.strip(), out.returncode,
                                                              out.stdout.strip()[-300:]), shell(cmd))
        case.ok()
    except Failure as f:
        case.fail(f)
    return case


# ---------------------------------------------------------------- driver

def run_case(kind, seed, work, keep):
    case = Case(kind, seed, work, keep)
    try:
        (ir_case if kind == "ir" else c_case)(case)
    except Failure as f:
        case.fail(f)
    except Exception as e:  # a bug of the test itself: report it as a failure
        case.fail(Failure("the test harness ran", "%s: %s" % (type(e).__name__, e)))
    if case.failures and keep:
        dest = os.path.join(keep, os.path.basename(case.dir))
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(case.dir, dest)
        case.kept = dest
    shutil.rmtree(case.dir, ignore_errors=True)
    return case


def report(case):
    for f in case.failures:
        print("FAIL: %s seed %d (attempt %d): %s" % (case.kind, case.seed, case.attempt, f.what), flush=True)
        if f.detail:
            print("  " + f.detail.strip().replace("\n", "\n  "))
        if f.command:
            print("  command: " + f.command)
        if case.kind == "ir":
            print("  module:  python3 tests/stress_modules.py %d %d > m.ll" % (case.seed, case.attempt))
        if getattr(case, "kept", None):
            print("  kept:    " + case.kept)
        print("  rerun:   " + case.reproduce(), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, help="IR modules (default %d, %d with --long)" % (QUICK[0], LONG[0]))
    ap.add_argument("--c-count", type=int, help="csmith programs (default %d, %d with --long)" % (QUICK[1], LONG[1]))
    ap.add_argument("--long", action="store_true", help="the long run")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first case (default 1)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="cases at once (default: cores)")
    ap.add_argument("--keep", help="keep failing cases' directories under this directory")
    a = ap.parse_args()
    count = a.count if a.count is not None else (LONG if a.long else QUICK)[0]
    c_count = a.c_count if a.c_count is not None else (LONG if a.long else QUICK)[1]
    if not os.path.exists(PLUGIN):
        sys.exit("error: %s does not exist; run cargo build --release first" % PLUGIN)
    skipped = 0
    if c_count and not CSMITH:
        print("SKIP: %d csmith programs: csmith is not installed (apt-get install -y csmith libcsmith-dev)" % c_count)
        skipped, c_count = c_count, 0
    elif c_count and not os.path.exists(os.path.join(CSMITH_INCLUDE, "csmith.h")):
        print("SKIP: %d csmith programs: %s/csmith.h is missing (apt-get install -y libcsmith-dev)"
              % (c_count, CSMITH_INCLUDE))
        skipped, c_count = c_count, 0
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    work = tempfile.mkdtemp(prefix="mtpc-stress-")
    start = time.time()
    # C programs spread among the modules, so that both kinds run all along.
    cases = [("ir", a.seed + k) for k in range(count)]
    for k in range(c_count):
        cases.insert((k * len(cases)) // max(c_count, 1) + k, ("c", a.seed + k))
    passed = failed = 0
    done = {"ir": 0, "c": 0}
    discarded, notes, failing = 0, [], []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(run_case, kind, seed, work, a.keep) for kind, seed in cases]
        for i, fut in enumerate(concurrent.futures.as_completed(futures)):
            case = fut.result()
            done[case.kind] += 1
            passed += case.passed
            failed += len(case.failures)
            discarded += len(case.discards)
            notes += ["%s seed %d: %s" % (case.kind, case.seed, n) for n in case.notes]
            if case.failures:
                failing.append("%s %d" % (case.kind, case.seed))
                report(case)
            if (i + 1) % 100 == 0:
                print("... %d/%d cases, %d failed, %.0f s" % (i + 1, len(cases), failed, time.time() - start),
                      flush=True)
    shutil.rmtree(work, ignore_errors=True)
    for n in notes:
        print("note: " + n)
    print("stress: %d IR modules, %d csmith programs (seeds %d..), %d inputs replaced (invalid or not built by "
          "stock), %d failing cases%s, %.0f s" % (done["ir"], done["c"], a.seed, discarded, len(failing),
                                                    (": " + ", ".join(failing[:20])) if failing else "",
                                                    time.time() - start))
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Stress test of mtpc-split and mtpc-parallel on random modules.

IR modules (tests/stress_modules.py: llvm-stress-16 functions and a random
layer of every linkage, COMDATs, aliases, an ifunc, TLS, constant
expressions, blockaddress, ctors, llvm.used, module and inline asm), each
deterministic from its seed. A module that fails `opt-16 -passes=verify`
or that stock llc-16 cannot compile is replaced by the next attempt of the
same seed (counted, not a failure). For each module, with N drawn from 2..5
(every module has at least 5 independent units, so N partitions are due,
or fewer, K >= 2, when one unit outweighs the others and partitions lighter
than it are merged):
  * mtpc-split<partitions=N;min-size=0;out=P> succeeds without a warning,
    reports K partitions and writes exactly P.0.bc .. P.{K-1}.bc;
  * every partition passes opt-16 -passes=verify;
  * every partition compiles (llc-16 -filetype=obj -relocation-model=pic),
    and the objects link with ld.lld-16 -r (no duplicate symbol);
  * the linked partitions define the unsplit object's non-local symbols,
    each with its type, binding and visibility, each in exactly one
    partition, and nothing else but promoted locals (NAME.mtpc.HASH,
    global, hidden, NAME an internal or private global of the module); they
    refer to no symbol the unsplit object does not; if the unsplit object
    links with ld.lld-16 -shared, so do they (a hidden or protected symbol
    the module only declares, or defines available_externally, may stay
    undefined: the module promises it is defined in the same program);
  * clang-16 -c on the module with -fpass-plugin (automatic mode forced:
    MTPC_PARTITIONS=N, MTPC_MIN_SIZE=0; -O0..-O3 or -Os, -fPIC, -fno-pic or
    the default, and -ffunction-sections -fdata-sections or
    -fno-omit-frame-pointer drawn per module) succeeds without an mtpc
    message, MTPC_STATS shows one module split into K partitions without a
    fallback (a fallback fails the test unless its reason is one
    DOCUMENTED_FALLBACKS lists: README's known limits), and its object
    defines stock clang's non-local symbols (the same type, binding and
    visibility; a linkonce symbol may be missing if nothing refers to it)
    plus only promoted locals and linkonce symbols kept weak (README: a
    linkonce_odr function used by several partitions stays), refers to no
    symbol of the module it does not define, and, at -O0, links -shared
    when stock's does. (If stock clang cannot compile the module, this part
    is skipped with a note.)
C programs (csmith; Debian's `csmith` and `libcsmith-dev`; skipped with a
message when absent), at -O1 or -O2, with -g, -ffunction-sections
-fdata-sections or -fPIC drawn per program, N in 2..5: mtpc-split of the
program's unoptimized bitcode writes the K partitions it reports, each
verifies and compiles (clang-16 -c, same flags), and the program linked
from them prints stock's checksum; the automatic-mode build (MTPC_STATS:
split into K partitions, no fallback) prints stock's checksum and, with
-g, passes llvm-dwarfdump --verify when stock's does. A program whose
stock build runs longer than 2 s, or that is one unit (csmith often puts
nearly all code in one function), is replaced by the next attempt.

  tests/e2e_stress.py                   # quick: 200 modules, 12 programs (~70 s on 2 idle cores)
  tests/e2e_stress.py --long            # long: 4000 modules, 300 programs (~35 min)
  tests/e2e_stress.py --seed S --count N --c-count M [--jobs J] [--keep DIR]
Case K of a run is seed S+K (default S=1; --long and new seeds find more):
`--seed X --count 1 --c-count 0` reruns IR case X alone, `--count 0
--c-count 1` C case X. --keep DIR keeps each failing case's directory
(module, partitions, objects) under DIR. Prints each failure with its seed,
the failing command and the command that reproduces it, a progress line
every 100 cases, then a summary line and 'N passed, N failed'.
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

from harness import PLUGIN, dwarf_verify_errors, require_plugin, tool
import stress_modules

QUICK = (200, 12)
LONG = (4000, 300)
ATTEMPTS = 6
CSMITH = shutil.which("csmith")
CSMITH_INCLUDE = "/usr/include/csmith"
RUN_TIMEOUT = 2  # seconds a C program may run (stock; mtpc builds get 4 times as long)
TOOL_TIMEOUT = 300
# Fallback reasons README documents as known limits (a reason listed here is
# noted, not failed; its one warning is expected): a function that another
# global is !associated with, copied into several partitions, whose name
# LLVM quotes as the linked-to symbol of a .section line (any name with a
# character other than letters, digits, '_' and '.': "f-q1", f$1).
DOCUMENTED_FALLBACKS = [r"linked-to symbol is not in a section: \S*[^A-Za-z0-9_.\s]"]
# Symbols the code generator makes in every object that needs them.
PER_OBJECT_SYMBOL_PREFIXES = ("DW.ref.",)
PROMOTED = re.compile(r"^(.*)\.mtpc\.[0-9a-f]+$")
# The hidden alias by which the partitions of shared-library code refer to a
# dso_local definition another partition owns (symbol_rules::binds_locally).
LOCAL_ALIAS = re.compile(r"^(.*)\.mtpc\.local(\.\d+)?$")
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
        return subprocess.CompletedProcess(cmd, -9, "", "timed out after %d s" % timeout)


def error_text(stderr):
    """What to show of a failed tool's stderr: a crash's first frames (and
    the lines before them), else the end."""
    lines = stderr.splitlines()
    frame = next((i for i, l in enumerate(lines) if re.match(r"\s*#0 ", l)), None)
    if frame is not None:
        return "\n".join([l for l in lines[:frame] if l.strip()][-6:] + lines[frame:frame + 16])[:4000]
    return stderr[-3000:]


def must(cmd, what, env_extra=None, timeout=TOOL_TIMEOUT, forbid=()):
    r = run(cmd, env_extra, timeout)
    if r.returncode != 0:
        raise Failure(what, "exit %d: %s" % (r.returncode, error_text(r.stderr)), shell(cmd, env_extra))
    for text in forbid:
        if text in r.stderr:
            raise Failure(what + " (no '%s' on stderr)" % text, r.stderr[-3000:], shell(cmd, env_extra))
    return r


class Symbols:
    """One object's symbol table, non-local symbols only."""
    LINE = re.compile(r"^\s*\d+:\s+[0-9a-f]+\s+\S+\s+(\w+)\s+(\w+)\s+(\w+)\s+(\S+)\s+(\S.*)$")

    def __init__(self):
        self.defined, self.undefined, self.counts = {}, set(), {}

    def add(self, line):
        m = self.LINE.match(line)
        if not m:
            return
        typ, bind, vis, ndx, name = m.groups()
        if bind == "LOCAL" or typ in ("FILE", "SECTION") or name.startswith(PER_OBJECT_SYMBOL_PREFIXES):
            return
        if ndx == "UND":
            self.undefined.add(name)
        else:
            self.defined[name] = (typ, bind, vis)
            self.counts[name] = self.counts.get(name, 0) + 1


def symbols(*objs):
    """The Symbols of each object, from one llvm-readelf --symbols run."""
    out = must([tool("llvm-readelf"), "--symbols", "--wide"] + list(objs), "llvm-readelf reads the objects").stdout
    tables = {o: Symbols() for o in objs}
    current = tables[objs[0]] if len(objs) == 1 else None
    for line in out.splitlines():
        if line.startswith("File: "):
            current = tables[line[6:].strip()]
        elif current is not None:
            current.add(line)
    return [tables[o] for o in objs]


def promoted_base(name, module, attrs):
    """NAME if name is NAME.mtpc.HASH, hidden, global (or weak: a copied
    function, linkonce_odr in each partition that uses it), and NAME a local
    of the module, or NAME.mtpc.local, hidden, global, and NAME a global of
    the module; else None."""
    m = PROMOTED.match(name)
    copied = attrs[1] == "WEAK" and attrs[0] == "FUNC"
    if m and m.group(1) in module.local_names() and (attrs[1] == "GLOBAL" or copied) and attrs[2] == "HIDDEN":
        return m.group(1)
    a = LOCAL_ALIAS.match(name)
    if a and module.linkage_of(a.group(1)) is not None and a.group(1) not in module.local_names() \
            and attrs[1] == "GLOBAL" and attrs[2] == "HIDDEN":
        return a.group(1)
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
    k = int(m.group(1)) if m else 0
    want = ["p.%d.bc" % i for i in range(k)]
    if not 2 <= k <= n or sorted(files) != sorted(want):
        raise Failure("mtpc-split writes the 2..%d partitions it reports" % n,
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

    whole, split, *per_part = symbols(os.path.join(d, "whole.o"), linked, *objs)
    problems = []
    for name, attrs in sorted(whole.defined.items()):
        got = split.defined.get(name)
        if got != attrs:
            problems.append("%s: %s in the partitions" % (fmt(name, attrs), "missing" if got is None else " ".join(got)))
    for name, attrs in sorted(split.defined.items()):
        if name not in whole.defined and not promoted_base(name, module, attrs):
            problems.append("%s: defined by the partitions only" % fmt(name, attrs))
    if problems:
        raise Failure("the partitions define the unsplit object's symbols", "\n".join(problems[:30]), shell(cmd, env))
    case.ok()
    times = {}
    for s in per_part:
        for name, c in s.counts.items():
            times[name] = times.get(name, 0) + c
    # A linkonce definition (C++ inline function, template) is copied, with
    # its COMDAT group, into every partition that uses it, as separate
    # translation units would have it, and so is a local function several
    # use (promoted, weak): the linker keeps one.
    copied = lambda k: module.linkage_of(k) in ("linkonce", "linkonce_odr") or \
        promoted_base(k, module, split.defined.get(k, ("", "", ""))) is not None
    repeated = sorted("%s defined in %d partitions" % (k, c) for k, c in times.items()
                      if c != 1 and not (c > 1 and copied(k)))
    if repeated:
        raise Failure("each symbol is defined in exactly one partition (a linkonce one in one or more)",
                      "\n".join(repeated[:30]), shell(cmd, env))
    case.ok()
    extra = sorted(split.undefined - whole.undefined)
    if extra:
        raise Failure("the partitions refer to no symbol the unsplit object does not",
                      "undefined only in the split: %s" % ", ".join(extra[:30]), shell(cmd, env))
    case.ok()
    check_links_shared(case, module, os.path.join(d, "whole.o"), linked,
                       "the partitions link -shared as the unsplit object does")
    return k


def links_shared(obj, module):
    """(links, errors) for ld.lld-16 -shared obj. Not counted as errors: a
    hidden or protected symbol the module only declares (or defines
    available_externally) left undefined (the module promises it is defined
    elsewhere in the same program). An initial- or local-exec relocation
    against a thread-local is an error like any other: a partition reading
    it through a thread_local alias of another model uses the alias's."""
    r = run([tool("ld.lld"), "-shared", "--error-limit=0", obj, "-o", obj[:-2] + ".so"])
    errors = [l for l in r.stderr.splitlines() if "error:" in l]
    real = []
    for l in errors:
        m = re.search(r"undefined (hidden|protected) symbol: (\S+)", l)
        if m and m.group(2) in module.declared_names():
            continue
        real.append(l)
    return r.returncode == 0 or bool(errors and not real), r.stderr[-3000:]


def check_links_shared(case, module, reference, obj, what, command=None):
    """If reference links -shared, obj must too."""
    linked, _ = links_shared(reference, module)
    if linked:
        ok, err = links_shared(obj, module)
        if not ok:
            raise Failure(what, err, command or shell([tool("ld.lld"), "-shared", obj, "-o", obj[:-2] + ".so"]))
        case.ok()


def mtpc_messages(stderr):
    return "\n".join(l for l in stderr.splitlines() if l.startswith("mtpc:"))[:2000]


def read_stats(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_stats(case, stats, n, cmd_text, stderr, exact=True):
    """One module, split into n partitions (at least 2 unless exact), no
    fallback; False for a documented fallback."""
    if len(stats) != 1:
        raise Failure("MTPC_STATS has one line", "%s\n%s" % (json.dumps(stats)[:1000], mtpc_messages(stderr)),
                      cmd_text)
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


def check_parallel(case, module, ll, n, k):
    """MTPC_PARTITIONS=n gives k partitions (the split's count; 2..n if
    unknown)."""
    d = case.dir
    level = case.r.choice(["-O0", "-O1", "-O2", "-O2", "-O3", "-Os"])
    pic = case.r.choice([[], ["-fPIC"], ["-fno-pic"]])
    extra = case.r.choice([[], [], ["-ffunction-sections", "-fdata-sections"], ["-fno-omit-frame-pointer"]])
    flags = [level] + pic + extra
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
    if not check_stats(case, read_stats(stats_path), k or n, shell(cmd, env), r.stderr,
                       exact=k is not None):
        return
    if mtpc_messages(r.stderr):
        raise Failure("clang with the plugin prints no mtpc message", mtpc_messages(r.stderr), shell(cmd, env))
    stock, par = symbols(stock_obj, par_obj)
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
    if level == "-O0":
        # (Optimized, the objects differ in what they refer to: stock folds
        # loads of a local that mtpc promoted, for example, and a local-exec
        # TLS access or a -fno-pic absolute reference then remains.)
        check_links_shared(case, module, stock_obj, par_obj,
                           "clang %s with mtpc: the object links -shared as stock's does" % " ".join(flags))


def ir_case(case):
    module, ll = make_module(case)
    if module is None:
        case.notes.append("no usable module in %d attempts" % ATTEMPTS)
        return case
    n = case.r.randint(2, 5)
    # The parallel pipeline makes the plan the split reported (K of N).
    k = None
    try:
        k = check_split(case, module, ll, n)
    except Failure as f:
        f.what = "%s (N=%d)" % (f.what, n)
        case.fail(f)
    try:
        check_parallel(case, module, ll, n, k)
    except Failure as f:
        f.what = "%s (N=%d)" % (f.what, n)
        case.fail(f)
    return case


# ---------------------------------------------------------------- C programs

def c_case(case):
    level = case.r.choice(["-O1", "-O2"])
    n = case.r.randint(2, 5)
    extra = case.r.choice([[], ["-g"], ["-g"], ["-ffunction-sections", "-fdata-sections"], ["-fPIC"]])
    cflags = [level, "-w", "-I" + CSMITH_INCLUDE] + extra
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
        bc = os.path.join(case.dir, "prog.bc")
        if run([tool("clang")] + cflags + ["-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", src,
                                           "-o", bc]).returncode != 0:
            case.discards.append("attempt %d: stock clang -emit-llvm fails" % attempt)
            continue
        prefix = os.path.join(case.dir, "p")
        split_cmd = [tool("opt"), "-load-pass-plugin=" + PLUGIN,
                     "-passes=mtpc-split<partitions=%d;min-size=0;out=%s>" % (n, prefix), bc, "-o", os.devnull]
        split_env = {"MTPC_THREADS": "1", "MTPC_LOG": "info"}
        r = run(split_cmd, split_env)
        m = re.search(r"mtpc-split: (\d+) partitions", r.stderr)
        if r.returncode == 0 and m and int(m.group(1)) == 1:
            # Nearly all of its code in one function (csmith often makes
            # one huge func_1): one unit, nothing to split.
            case.discards.append("attempt %d: the program is one unit" % attempt)
            continue
        break
    else:
        case.notes.append("no usable program in %d attempts" % ATTEMPTS)
        return case
    what = "csmith %s N=%d" % (" ".join([level] + extra), n)
    try:
        if r.returncode != 0:
            raise Failure(what + ": mtpc-split succeeds", r.stderr[-3000:], shell(split_cmd, split_env))
        noise = [l for l in r.stderr.splitlines() if "warning" in l or "error" in l]
        if noise:
            raise Failure(what + ": mtpc-split prints no warning", "\n".join(noise[:10]), shell(split_cmd, split_env))
        k = int(m.group(1)) if m else 0
        parts = sorted((f for f in os.listdir(case.dir) if re.fullmatch(r"p\.\d+\.bc", f)),
                       key=lambda f: int(f.split(".")[1]))
        if not 2 <= k <= n or parts != ["p.%d.bc" % i for i in range(k)]:
            raise Failure(what + ": mtpc-split writes the 2..%d partitions it reports" % n,
                          "reported %s; files %s" % (m.group(0) if m else "nothing", parts), shell(split_cmd, split_env))
        case.ok()
        objs = []
        for p in parts:
            p = os.path.join(case.dir, p)
            must([tool("opt"), "-passes=verify", "-disable-output", p], what + ": %s passes the verifier" % p)
            must([tool("clang"), level, "-c", p, "-o", p[:-3] + ".o"] + extra, what + ": %s compiles" % p)
            objs.append(p[:-3] + ".o")
        case.ok()
        exe = os.path.join(case.dir, "split")
        must([tool("clang")] + objs + ["-o", exe], what + ": the partitions link")
        out = run([exe], timeout=RUN_TIMEOUT * 4)
        if out.stdout != expected.stdout:
            raise Failure(what + ": the program linked from %d partitions prints stock's checksum" % k,
                          "stock: %s\nsplit (exit %d): %s" % (expected.stdout.strip(), out.returncode,
                                                              out.stdout.strip()[-300:]), shell(split_cmd))
        case.ok()
    except Failure as f:
        case.fail(f)
        k = n
    try:
        # Automatic mode: the same plan, k partitions.
        exe = os.path.join(case.dir, "mtpc")
        stats_path = os.path.join(case.dir, "auto.jsonl")
        env = {"MTPC_PARTITIONS": str(n), "MTPC_MIN_SIZE": "0", "MTPC_THREADS": "1", "MTPC_STATS": stats_path}
        cmd = [tool("clang"), "-fpass-plugin=" + PLUGIN] + cflags + [src, "-o", exe]
        r = must(cmd, what + ": clang with the plugin builds", env)
        split = check_stats(case, read_stats(stats_path), k, shell(cmd, env), r.stderr)
        if split and mtpc_messages(r.stderr):
            raise Failure(what + ": clang with the plugin prints no mtpc message", mtpc_messages(r.stderr),
                          shell(cmd, env))
        if split:
            out = run([exe], timeout=RUN_TIMEOUT * 4)
            if out.stdout != expected.stdout:
                raise Failure(what + ": automatic mode prints stock's checksum",
                              "stock: %s\nmtpc (exit %d): %s" % (expected.stdout.strip(), out.returncode,
                                                                 out.stdout.strip()[-300:]), shell(cmd, env))
            case.ok()
            if "-g" in extra and not dwarf_verify_errors(stock):
                errors = dwarf_verify_errors(exe, like=stock)
                if errors:
                    raise Failure(what + ": llvm-dwarfdump --verify accepts the automatic-mode build, as stock's",
                                  "\n".join(errors)[-3000:], shell([tool("llvm-dwarfdump"), "--verify", exe]))
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
    require_plugin()
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
    discarded, notes, failing = {}, [], []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        futures = [pool.submit(run_case, kind, seed, work, a.keep) for kind, seed in cases]
        for i, fut in enumerate(concurrent.futures.as_completed(futures)):
            case = fut.result()
            done[case.kind] += 1
            passed += case.passed
            failed += len(case.failures)
            for d in case.discards:
                why = "%s: %s" % (case.kind, re.sub(r"^attempt \d+: ", "", d).split(":")[0])
                discarded[why] = discarded.get(why, 0) + 1
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
    print("stress: %d IR modules, %d csmith programs (seeds %d..), %d inputs replaced%s, %d failing cases%s, %.0f s"
          % (done["ir"], done["c"], a.seed, sum(discarded.values()),
             " (%s)" % ", ".join("%s %d" % kv for kv in sorted(discarded.items())) if discarded else "",
             len(failing), (": " + ", ".join(failing[:20])) if failing else "", time.time() - start))
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Host fidelity: with mtpc, a compile gives what the host's options ask
for, as without it.

Each check builds a program of tests/programs/fidelity stock (clang-16
alone) and with the plugin and a forced split (MTPC_MIN_SIZE=0,
MTPC_PARTITIONS=3), and compares behaviour, not just that it compiles:

  * the host's pipeline runs in every partition: ASan, TSan, MSan and UBSan
    report each planted bug with the same frames and lines as stock;
    SanitizerCoverage instruments and hits as many edges; ASan's check of
    initialization order reports a real fiasco as stock's and no other
    (dynamically initialized globals first used in another partition than
    the constructor's); ASan in a ThinLTO backend splits and reports as
    stock's; gcov's line
    counts, the merged -fprofile-instr-generate profile and
    -fprofile-instr-use's diagnostics (a changed function) and machine
    function splitting equal stock's; IR and sample profiles, optimized
    whole with their code generation split, give stock's profiles and
    stock's code (every function's instructions, hot and cold sections,
    the call graph profile once, also after a fallback); the host's library
    info reaches the vectorizer (-fveclib); another plugin's callbacks see
    every function exactly once, whichever plugin loads first;
  * diagnostics: -Wframe-larger-than, -Rpass=inline, a warning attribute,
    the asm printer's instruction mix (object and -S) and the
    -fsave-optimization-record file (also with ASan's constructor in every
    partition) give stock's, once each, optimizer's first;
  * output kinds and code-generation options: one CET property note,
    -gsplit-dwarf, -emit-llvm, Mach-O and non-x86 targets, pseudo probes
    and pass debugging options (-opt-bisect-limit, -ftime-report) are
    declined (stock's output byte for byte, one info line), and a sweep of
    options (stack sizes, patchable entries, -finstrument-functions, XRay,
    basic-block address maps, -fembed-bitcode, -mllvm -inline-threshold,
    -fno-pic, -mcmodel=large) keeps what each promises; without
    asynchronous unwind tables (-g, -fforce-dwarf-frame) exceptions are
    caught and .eh_frame and .debug_frame hold stock's entries; a program's own
    static memcpy, which takes the code generator's calls for a structure's
    copy in stock's object, is compiled whole and still takes them;
  * the merged text is valid for debug info with relative and absolute
    paths, prefix maps, a compilation directory, DWARF 4 and 5,
    -gline-tables-only and -gno-column-info (llvm-dwarfdump --verify, each
    name declared in the files stock's gives, gdb stops where stock's build
    does); -gembed-source, whose module fails LLVM's verifier, is left to
    the host quietly; also for
    sqlite3 compiled in its own directory with default settings, and with
    its SQL workload's profiles (clang's: each call graph edge written
    once; IR: stock's code for every function); a merged
    text that does not assemble is caught before the host sees it
    (MTPC_TEST_BREAK_ASM), and the compile falls back.

  tests/e2e_fidelity.py [--only SUBSTRING]
Prints one line per check and 'N passed, N failed' at the end.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from harness import (LLVM_MAJOR, PLUGIN, ROOT, SQLITE_DEFINES, Checker, dwarf_verify_errors, gdb_answers, parts_transcribed, require_plugin,
                     run, sqlite_dir, stop_location, tool)

PROGRAMS = os.path.join(ROOT, "tests", "programs", "fidelity")
CONSTRUCTS_CPP = os.path.join(ROOT, "tests", "programs", "constructs.cpp")
SEEN_PLUGIN_SOURCE = os.path.join(ROOT, "tests", "plugins", "seen_functions.cpp")
FORCE_SPLIT = {"MTPC_MIN_SIZE": "0", "MTPC_PARTITIONS": "3"}


def env_with(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    env.update(extra)
    return env


def program(name):
    return os.path.join(PROGRAMS, name)


class Build:
    """Compiles (and links) one program stock and with mtpc, in a directory
    each: `compile_only` adds -c; `absolute` names the source by its
    absolute path; `output` is the file written; `env` is added to both
    builds' environment (mtpc's: over FORCE_SPLIT)."""

    def __init__(self, work, tag, source, flags, link=(), env=None, compile_only=False, output=None, absolute=False):
        self.work, self.tag = work, tag
        self.stats = os.path.join(work, tag + ".stats.jsonl")
        self.dirs = {v: os.path.join(work, tag, v) for v in ("stock", "mtpc")}
        self.stderr = {}
        self.outputs = {}
        output = output or ("out.o" if compile_only else "prog")
        for variant, d in self.dirs.items():
            os.makedirs(d, exist_ok=True)
            shutil.copy(source, d)
            src = os.path.join(d, os.path.basename(source)) if absolute else os.path.basename(source)
            cmd = [tool("clang")] + flags + [src] + (["-c"] if compile_only else []) + ["-o", output]
            if not compile_only:
                cmd += list(link)
            e = env_with(**(env or {}))
            if variant == "mtpc":
                cmd.insert(1, "-fpass-plugin=" + PLUGIN)
                e.update(FORCE_SPLIT, MTPC_STATS=self.stats, MTPC_LOG="info")
                e.update(env or {})
            r = subprocess.run(cmd, cwd=d, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise RuntimeError("%s build of %s failed (%d): %s\n%s" % (variant, tag, r.returncode, " ".join(cmd), r.stderr[-3000:]))
            self.stderr[variant] = r.stderr
            self.outputs[variant] = os.path.join(d, output)

    def path(self, variant, name):
        return os.path.join(self.dirs[variant], name)

    def run(self, variant, args=(), env=None, check=True):
        r = subprocess.run([self.outputs[variant]] + list(args), cwd=self.dirs[variant], env=env_with(**(env or {})),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and r.returncode != 0:
            raise RuntimeError("%s %s exited %d:\n%s" % (variant, self.tag, r.returncode, r.stderr[-2000:]))
        return r

    def records(self):
        if not os.path.exists(self.stats):
            return []
        with open(self.stats) as f:
            return [json.loads(line) for line in f if line.strip()]

    def split(self):
        """The module was split and the split used (no fallback)."""
        return any(s["partitions"] > 1 and not s["fallback"] for s in self.records())

    def diagnostics(self, variant):
        """The compiler's diagnostic lines, without mtpc's own info lines."""
        return [l for l in self.stderr[variant].splitlines() if not l.startswith("mtpc: ")]

    def read(self, variant, name, mode="r"):
        with open(self.path(variant, name), mode) as f:
            return f.read()


def split_and(checker, b, what, ok, detail=""):
    checker.check(b.split(), "%s: the module was split" % b.tag, json.dumps(b.records())[:400])
    checker.check(ok, "%s: %s" % (b.tag, what), detail)


# --- the host's pipeline in every partition ---------------------------------

def sanitizer_report(text):
    """The lines of a sanitizer report that say what and where: the kind of
    bug, the stack frames (function, file, line, column) and what the
    address is; addresses, thread and process numbers left out, and in no
    order (which of two racing threads TSan names first is chance); and,
    where the report names the global
    a bad address is after or inside, the one that follows it in memory
    ("located N bytes before global variable ..."): partitions lay out
    their data one after another, not in the module's order."""
    keep = set()
    owner_named = re.search(r"is located \d+ bytes (after|inside of) global variable", text)
    for line in text.splitlines():
        line = re.sub(r"0x[0-9a-f]+", "ADDR", line)
        line = re.sub(r"==\d+==", "==PID==", line)
        line = re.sub(r"\(pid=\d+\)", "", line)
        line = re.sub(r" \((?:stock|mtpc)/prog\+ADDR\)| \(BuildId: [0-9a-f]+\)|\(prog\+ADDR\)", "", line)
        line = re.sub(r"by (main )?thread( T\d+)?", "by a thread", line)
        if owner_named and re.search(r"is located \d+ bytes before global variable", line):
            continue
        if re.search(r"ERROR:|WARNING:|runtime error|SUMMARY|^\s+#\d+ .* in |^\s+#\d+ \S+ /|is located|of size", line):
            keep.add(line.replace("/stock/", "/DIR/").replace("/mtpc/", "/DIR/").strip())
    return sorted(keep)


SANITIZERS = [
    # (tag, program, flags, mode, argument, what the report must say)
    ("asan-heap", "bugs.c", ["-fsanitize=address"], "heap", "8", "heap-buffer-overflow"),
    ("asan-global", "bugs.c", ["-fsanitize=address"], "global", "8", "global-buffer-overflow"),
    # A static array that functions of two partitions use: promoted in the
    # partitions, named by its own name in the report (found by review on
    # 2026-12-05: 'counts.mtpc.HASH', and an ODR indicator stock's lacks).
    ("asan-static", "bugs.c", ["-fsanitize=address"], "static", "8", "global variable 'counts'"),
    # A string literal that functions of two partitions use: a private copy
    # in each, one of them not the owner's, each described in the debug
    # information, where ASan's report finds the line that defines it
    # (before 2026-12-07 a read past the other copy named the file alone).
    ("asan-literal", "bugs.c", ["-fsanitize=address"], "literal", "44", "global-buffer-overflow"),
    ("asan-main-literal", "bugs.c", ["-fsanitize=address"], "main-literal", "44", "global-buffer-overflow"),
    # A partition without a global ASan instruments: with globals dead
    # stripping (clang 16's option, 19's and 22's default), LLVM 16's ASan
    # gave it a module constructor that registers none, in the group of
    # the one that does; the module compiled whole (until 2026-12-07).
    ("asan-global-dead-stripping", "asan_globals_apart.c",
     ["-fsanitize=address", "-fsanitize-address-globals-dead-stripping"], "global", "20",
     "global-buffer-overflow"),
    ("tsan", "bugs.c", ["-fsanitize=thread"], "race", "1", "data race"),
    ("msan", "bugs.c", ["-fsanitize=memory", "-fsanitize-memory-track-origins"], "uninit", "4", "use-of-uninitialized-value"),
    ("ubsan", "bugs.c", ["-fsanitize=undefined"], "overflow", "100", "signed integer overflow"),
    # C++: -fsanitize=undefined includes -fsanitize=function.
    ("ubsan-function", "bugs_function.cpp", ["-fsanitize=undefined", "-fsanitize-link-c++-runtime"], "call", "3",
     "incorrect function type"),
]


def test_sanitizers(work, checker):
    for tag, source, flags, mode, arg, bug in SANITIZERS:
        # Where LLVM 16's ASan gives partitions constructors that differ, the
        # log says which one went.
        constructors_differ = "-fsanitize-address-globals-dead-stripping" in flags and LLVM_MAJOR < 19
        for level in ("-O1", "-O0"):
            b = Build(work, "%s%s" % (tag, level), program(source), [level, "-g"] + flags, link=["-lpthread", "-lstdc++"],
                      env={"MTPC_LOG": "debug"} if constructors_differ else None)
            if constructors_differ:
                checker.check("which registers no globals, dropped: true" in b.stderr["mtpc"],
                              "%s: a partition's ASan module constructor, which registers no globals, was dropped" % b.tag,
                              "\n".join(l for l in b.stderr["mtpc"].splitlines() if "AddressSanitizer" in l)[:600])
            # A static function another partition calls is local again
            # under its own name, where the parts' objects are transcribed
            # and where their texts are merged (LLVM 22's ASan): the
            # symbolizer, which prefers the symbol table's name to DWARF's,
            # names each frame as in stock's report.
            reports = {v: sanitizer_report(b.run(v, [mode, arg], check=False).stderr) for v in ("stock", "mtpc")}
            split_and(checker, b, "the sanitizer reports the %s at the same place as in the stock build" % bug,
                      any(bug in l for l in reports["stock"]) and reports["stock"] == reports["mtpc"],
                      "stock:\n%s\nmtpc:\n%s" % ("\n".join(reports["stock"][:12]), "\n".join(reports["mtpc"][:12])))
            if "-fsanitize=address" in flags:
                # ASan gives a global that is not local an ODR indicator; a
                # local promoted for the split gets none, as in stock's.
                indicators = {v: symbols_like(b.outputs[v], r"^__odr_asan_gen_") for v in ("stock", "mtpc")}
                checker.check(indicators["stock"] and indicators["stock"] == indicators["mtpc"],
                              "%s: the ODR indicators of stock's program, no other" % b.tag,
                              "stock %s\nmtpc %s" % (indicators["stock"], indicators["mtpc"]))


def test_sanitizer_coverage(work, checker):
    hooks = os.path.join(work, "sancov_hooks.o")
    run([tool("clang"), "-O2", "-c", program("sancov_hooks.c"), "-o", hooks])
    b = Build(work, "sancov", program("work.c"), ["-O2", "-fsanitize-coverage=trace-pc-guard"], link=[hooks])
    counts = {v: b.run(v, ["40"]).stderr.strip() for v in ("stock", "mtpc")}
    split_and(checker, b, "as many edges instrumented and hit as in the stock build (%s)" % counts["stock"],
              counts["stock"] == counts["mtpc"] and "guards" in counts["stock"], str(counts))
    # C++ inline functions and templates several partitions use: one
    # partition emits each, and a partition that declares its copy drops the
    # guards, counters and PC table its pipeline gave it in the function's
    # group. Left there, the table held 1 where each block's address was,
    # and every C++ module instrumented with a PC table (libFuzzer's
    # -fsanitize=fuzzer-no-link) compiled whole, with a warning (found on
    # 2026-12-07).
    # With AddressSanitizer too (libFuzzer's usual build), a module with a
    # C++ global that has a constructor gets each global constructor
    # bracketed by calls that hide other modules' such globals while it
    # runs: SanitizerCoverage's too, which every partition has, and which a
    # partition's ASan bracketed only if that partition defined such a
    # global (the copies differed, and the module compiled whole).
    # Split only for code generation (the module optimized and instrumented
    # whole), each of ASan's descriptors and SanitizerCoverage's tables is
    # placed with what it describes, in the partition that emits it.
    with_asan = ["-fsanitize-coverage=inline-8bit-counters,pc-table", "-fsanitize=address"]
    for tag, flags, split_env in (("sancov-cxx-guards", ["-fsanitize-coverage=trace-pc-guard,pc-table"], None),
                                  ("sancov-cxx-counters", ["-fsanitize-coverage=inline-8bit-counters,pc-table"], None),
                                  ("sancov-cxx-asan", with_asan, None),
                                  ("sancov-cxx-asan-code-generation", with_asan, {"MTPC_CODE_GENERATION_ONLY": "1"})):
        b = Build(work, tag, CONSTRUCTS_CPP, ["-O2"] + flags, link=[hooks, "-lstdc++"], env=split_env)
        env = {"ASAN_OPTIONS": "check_initialization_order=1:detect_leaks=0"}
        counts = {v: b.run(v, env=env).stderr.strip().splitlines()[-1] for v in ("stock", "mtpc")}
        brackets = {v: calls_to(b.outputs[v], "__asan_before_dynamic_init") for v in ("stock", "mtpc")}
        warned = [l for l in b.stderr["mtpc"].splitlines() if "warning" in l]
        split_and(checker, b, "the PC table and counts of the stock build (%s), its %d bracketed constructors, and no warning"
                  % (counts["stock"], brackets["stock"]),
                  counts["stock"] == counts["mtpc"] and "(0 not code)" in counts["stock"] and not warned
                  and brackets["stock"] == brackets["mtpc"] and (brackets["stock"] > 1) == ("-fsanitize=address" in flags),
                  "%s\n%s\n%s" % (counts, brackets, "\n".join(warned)[:600]))


def test_asan_initialization_order(work, checker):
    """ASan's check of initialization order tells a module's dynamically
    initialized globals by the module name their descriptors give, compared
    by address, and each partition's ASan names the module by a string of
    its own. Until 2026-12-07 such globals whose first user came before them
    went with that user, away from the module's constructor: on LLVM 22 the
    constructor's own writes to them were reported (a fiasco stock's build
    does not have), and on 16 and 19 the constructor, in a partition
    without such a global, went unbracketed and a real fiasco, a read of
    another unit's global not yet initialized, was not reported."""
    env = {"ASAN_OPTIONS": "check_initialization_order=1:detect_leaks=0"}
    for order, defines in (("after", []), ("first", ["-DINIT_FIRST"])):
        other = os.path.join(work, "init_order_other_%s.o" % order)
        run([tool("clang"), "-O2", "-g", "-fsanitize=address"] + defines + ["-c", program("init_order_other.cpp"), "-o", other])
        b = Build(work, "asan-init-order-" + order, program("init_order.cpp"), ["-O2", "-g", "-fsanitize=address"],
                  link=[other, "-lstdc++"])
        runs = {v: b.run(v, env=env, check=False) for v in ("stock", "mtpc")}
        reports = {v: sanitizer_report(r.stderr) for v, r in runs.items()}
        if order == "after":
            what = "the read of the other unit's global before its constructor ran is reported as in the stock build"
            ok = any("initialization-order-fiasco" in l for l in reports["stock"]) and reports["stock"] == reports["mtpc"]
        else:
            what = "no initialization-order report, and the stock build's output"
            ok = all(r.returncode == 0 for r in runs.values()) and runs["stock"].stdout == runs["mtpc"].stdout
        # The globals' first user, `heavy`, is the largest unit: outside the
        # primary partition, the constructor's, or the test tests nothing.
        apart = any(r.get("largest_unit", {}).get("partition", 0) != 0 for r in b.records())
        split_and(checker, b, what + ", the globals' first user in another partition than the constructor's", ok and apart,
                  "stock:\n%s\nmtpc:\n%s\n%s" % ("\n".join(reports["stock"][:8]), "\n".join(reports["mtpc"][:8]),
                                                 json.dumps([r.get("largest_unit") for r in b.records()])))


def test_thinlto_asan(work, checker):
    """ThinLTO with ASan: a backend module holds ASan's descriptors of its
    internal globals in groups that are no COMDAT (nodeduplicate), which
    LLVM's printer writes with a unique id its parser refuses; on 19 and
    22, whose clang strips ASan's globals by default, every such module
    compiled whole after its partitions (until 2026-12-07). On 16 the option
    is not the default, and without it the module splits as well."""
    d = os.path.join(work, "thinlto-asan")
    os.makedirs(d)
    flags = ["-O2", "-g", "-flto=thin", "-fsanitize=address"]
    pre = os.path.join(d, "bugs.o")
    run([tool("clang")] + flags + ["-c", program("bugs.c"), "-o", pre])
    stats = os.path.join(d, "stats.jsonl")
    outputs, warnings = {}, []
    for v in ("stock", "mtpc"):
        os.makedirs(os.path.join(d, v))
        outputs[v] = os.path.join(d, v, "prog")  # as `sanitizer_report` expects
        cmd = [tool("clang"), "-fuse-ld=lld"] + flags + [pre, "-o", outputs[v], "-lpthread"]
        e = env_with()
        if v == "mtpc":
            cmd.append("-Wl,--load-pass-plugin=" + PLUGIN)
            e.update(FORCE_SPLIT, MTPC_STATS=stats, MTPC_LOG="info")
        r = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s ThinLTO link failed: %s\n%s" % (v, " ".join(cmd), r.stderr[-2000:]))
        warnings += [l for l in r.stderr.splitlines() if "warning" in l]
    records = []
    if os.path.exists(stats):
        with open(stats) as f:
            records = [json.loads(l) for l in f if l.strip()]
    checker.check(any(s["partitions"] > 1 and not s["fallback"] for s in records) and not warnings,
                  "thinlto-asan: the backend module was split, with no warning",
                  "%s\n%s" % ("\n".join(warnings)[:800], json.dumps(records)[:400]))
    # Each local global ASan instruments is in a group of its own with its
    # descriptor (nodeduplicate, never discarded): its users may part, the
    # descriptors' section does not bind them. Until 2026-12-07 every
    # function using a string was one unit (425 of the module's 497
    # instructions on LLVM 22; 335 since).
    split = [s for s in records if s["partitions"] > 1 and not s["fallback"]]
    checker.check(split and all((s.get("largest_unit") or {}).get("instructions", s["instructions"]) <= 0.75 * s["instructions"]
                                for s in split),
                  "thinlto-asan: the functions using the program's strings and static variables are not one unit",
                  json.dumps([(s["instructions"], s["largest_unit"]) for s in split])[:400])
    reports = {v: sanitizer_report(subprocess.run([outputs[v], "global", "8"], cwd=d, env=env_with(), stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True).stderr) for v in outputs}
    checker.check(any("global-buffer-overflow" in l for l in reports["stock"]) and reports["stock"] == reports["mtpc"],
                  "thinlto-asan: the global-buffer-overflow reported at the same place as in the stock build",
                  "stock:\n%s\nmtpc:\n%s" % ("\n".join(reports["stock"][:12]), "\n".join(reports["mtpc"][:12])))


def calls_to(output, name):
    """How many calls `output`'s code makes to function `name`."""
    pattern = re.compile(r"\bcall[q]?\s+(?:\*?0x)?[0-9a-f]* ?<%s(?:@plt)?>" % re.escape(name))
    return sum(1 for line in run([tool("llvm-objdump"), "-d", "--no-show-raw-insn", output]).splitlines() if pattern.search(line))


def gcov_lines(directory):
    """Each .gcov file's lines (counts and source), the Source: line aside."""
    out = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".gcov"):
            with open(os.path.join(directory, name)) as f:
                out[name] = [l for l in f.read().splitlines() if ":Source:" not in l]
    return out


def test_gcov(work, checker):
    b = Build(work, "gcov", program("work.c"), ["-O2", "--coverage"])
    for v in ("stock", "mtpc"):
        b.run(v, ["40"])
        # The notes file is work.gcno, or (clang 17 and later, compiling and
        # linking in one command) named after the program too: OUTPUT-work.gcno.
        notes = [n for n in os.listdir(b.dirs[v]) if n.endswith(".gcno")]
        run([tool("llvm-cov"), "gcov"] + ["-o", notes[0]] * (len(notes) == 1) + ["work.c"], cwd=b.dirs[v])
    stock, mtpc = gcov_lines(b.dirs["stock"]), gcov_lines(b.dirs["mtpc"])
    split_and(checker, b, "one .gcno, and gcov reports the stock build's line counts in every file (%d files)" % len(stock),
              len(stock) >= 4 and stock == mtpc,
              "files: %s / %s; first difference: %s" % (sorted(stock), sorted(mtpc),
                                                      next((k for k in stock if stock[k] != mtpc.get(k)), None)))


def test_profiles(work, checker):
    b = Build(work, "profile-gen", program("work.c"), ["-O2", "-fprofile-instr-generate", "-fcoverage-mapping"])
    shown, covered = {}, {}
    for v in ("stock", "mtpc"):
        b.run(v, ["40"], env={"LLVM_PROFILE_FILE": "run.profraw"})
        run([tool("llvm-profdata"), "merge", "run.profraw", "-o", "run.profdata"], cwd=b.dirs[v])
        shown[v] = run([tool("llvm-profdata"), "show", "--all-functions", "--counts", "run.profdata"], cwd=b.dirs[v])
        # Each build's directory named alike, columns by single spaces, no rules.
        report = run([tool("llvm-cov"), "report", b.outputs[v], "-instr-profile=run.profdata"], cwd=b.dirs[v])
        covered[v] = [" ".join(l.replace(b.dirs[v], "DIR").split()) for l in report.splitlines() if l.strip("- ")]
    split_and(checker, b, "the merged raw profile has the stock build's functions and counts",
              "Counters:" in shown["stock"] and shown["stock"] == shown["mtpc"], shown["mtpc"][:1500])
    checker.check(any(l.startswith("TOTAL") for l in covered["stock"]) and covered["stock"] == covered["mtpc"],
                  "profile-gen: llvm-cov report gives the stock build's regions, functions and lines covered",
                  "stock:\n%s\nmtpc:\n%s" % ("\n".join(covered["stock"][-3:]), "\n".join(covered["mtpc"][-3:])))
    # Each function's counters and data (a group of their own) are placed
    # with it, private as in stock's object. None of work.c's functions is
    # copied to another partition, whose inlined copy would name them (were
    # one copied, its counters would be promoted, and this check would need
    # to leave them out).
    promoted = re.findall(r"\b__prof[cd]_\S*\.mtpc\.\w+", run([tool("llvm-nm"), b.outputs["mtpc"]]))
    checker.check(promoted == [], "profile-gen: every function's counters and data stay private, none promoted",
                  " ".join(promoted[:10]))
    profile = b.path("stock", "run.profdata")
    # main changed since the profile (-DWORK_CHANGED): its counts no longer apply.
    use = Build(work, "profile-use", program("work.c"),
                ["-O2", "-DWORK_CHANGED", "-fprofile-instr-use=" + profile, "-Wprofile-instr-unprofiled",
                 "-Wprofile-instr-out-of-date"])
    split_and(checker, use, "-fprofile-instr-use: the stock build's diagnostics (the changed function's), no other",
              any("out of date" in l for l in use.diagnostics("stock")) and use.diagnostics("stock") == use.diagnostics("mtpc"),
              "stock:\n%s\nmtpc:\n%s" % ("\n".join(use.diagnostics("stock"))[:800], "\n".join(use.diagnostics("mtpc"))[:800]))
    checker.check(use.run("stock", ["40"]).stdout == use.run("mtpc", ["40"]).stdout,
                  "profile-use: output equals the stock build's")
    # With the profile, -fsplit-machine-functions moves the cold blocks out.
    split = Build(work, "split-machine-functions", program("work.c"),
                  ["-O2", "-fprofile-instr-use=" + profile, "-fsplit-machine-functions"])
    cold = {v: sorted(re.findall(r"\b(\w+\.cold)\b", run([tool("llvm-nm"), split.outputs[v]]))) for v in ("stock", "mtpc")}
    split_and(checker, split, "-fsplit-machine-functions: the same functions' cold parts split off (%s), same output" % cold["stock"],
              cold["stock"] != [] and cold["stock"] == cold["mtpc"]
              and split.run("stock", ["40"]).stdout == split.run("mtpc", ["40"]).stdout, str(cold))


def generated_code(output):
    """Every function of a linked program as its instructions, in no order:
    addresses, displacements from the instruction pointer and the
    disassembler's comments on them (the symbol before the address, which
    depends on where data lands) dropped, jumps and calls by their target's
    name (not its offset: a jump the assembler can make short where its
    target lands near moves what follows), alignment padding left out."""
    functions, current = {}, None
    for line in run([tool("llvm-objdump"), "-d", "--no-show-raw-insn", output]).splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            current = functions.setdefault(m.group(1), [])
        elif current is not None and "\t" in line:
            instruction = " ".join(line.split("\t")[1:]).strip()
            if instruction and not instruction.startswith(("nop", "int3", "data16", "cs nop")):
                instruction = re.sub(r"\b0x[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>", r"<\1>", instruction.split("#")[0])
                current.append(" ".join(re.sub(r"-?0x[0-9a-f]+\(%rip\)", "X(%rip)", instruction).split()))
    return sorted(functions.items())


def function_sections(output):
    """The section each function of an object is in (.text.hot., .text.unlikely. where a profile says so)."""
    symbols = re.findall(r"^[0-9a-f]+ [gl] +F (\S+)\s+[0-9a-f]+ (\S+)$", run([tool("llvm-objdump"), "-t", output]), re.M)
    return sorted((name, section) for section, name in symbols)


def call_graph_profile(output):
    """The object's call graph profile (.llvm.call-graph-profile) as (caller, callee, weight), in no order."""
    text = run([tool("llvm-readobj"), "--cg-profile", output])
    return sorted(re.findall(r"From: (\S+) \(\d+\)\s+To: (\S+) \(\d+\)\s+Weight: (\d+)", text))


def code_generation_split(b):
    """Optimized whole by the host, then its code generation split (no fallback)."""
    return any(s["partitions"] > 1 and s["code_generation_only"] and not s["fallback"] for s in b.records())


def test_ir_profiles(work, checker):
    """Profiles the pipeline applies by function name and control-flow hash
    (IR instrumentation and use, context-sensitive, sample): the host
    optimizes the module whole, and its code generation is split. The
    profile each writes, and the code each builds from one, are stock's:
    every function's instructions, which functions the profile makes hot or
    cold (their sections), the call graph profile written for the linker
    (once: each partition writes the edges from the functions it emits)."""
    gen = Build(work, "pgo-ir-generate", program("profile_calls.c"), ["-O2", "-fprofile-generate"])
    shown = {}
    for v in ("stock", "mtpc"):
        gen.run(v, ["1000"], env={"LLVM_PROFILE_FILE": "run.profraw"})
        run([tool("llvm-profdata"), "merge", "run.profraw", "-o", "run.profdata"], cwd=gen.dirs[v])
        shown[v] = run([tool("llvm-profdata"), "show", "--all-functions", "--counts", "run.profdata"], cwd=gen.dirs[v])
    checker.check(code_generation_split(gen), "pgo-ir-generate: optimized whole, its code generation split", json.dumps(gen.records())[:400])
    checker.check("Instrumentation level: IR" in shown["stock"] and shown["stock"] == shown["mtpc"],
                  "pgo-ir-generate: the IR profile has the stock build's functions, hashes and counts", shown["mtpc"][:1500])
    profile = gen.path("stock", "run.profdata")
    use_flags = ["-O2", "-fprofile-use=" + profile]
    use = Build(work, "pgo-ir-use", program("profile_calls.c"), use_flags)
    objects = Build(work, "pgo-ir-use-object", program("profile_calls.c"), use_flags, compile_only=True)
    code = {v: generated_code(use.outputs[v]) for v in ("stock", "mtpc")}
    sections = {v: function_sections(objects.outputs[v]) for v in ("stock", "mtpc")}
    edges = {v: call_graph_profile(objects.outputs[v]) for v in ("stock", "mtpc")}
    checker.check(code_generation_split(use) and code_generation_split(objects),
                  "pgo-ir-use: optimized whole, its code generation split", json.dumps(use.records())[:400])
    checker.check(len(code["stock"]) >= 5 and code["stock"] == code["mtpc"],
                  "pgo-ir-use: every function's instructions are the stock build's (%d functions)" % len(code["stock"]),
                  first_difference(code["stock"], code["mtpc"]))
    checker.check(any(s.startswith(".text.hot") for _, s in sections["stock"]) and sections["stock"] == sections["mtpc"],
                  "pgo-ir-use: the profile puts the same functions in .text.hot. and .text.unlikely.", str(sections))
    checker.check(len(edges["stock"]) >= 5 and edges["stock"] == edges["mtpc"],
                  "pgo-ir-use: the call graph profile for the linker holds the stock build's edges, once each", str(edges))
    checker.check(use.run("stock", ["1000"]).stdout == use.run("mtpc", ["1000"]).stdout, "pgo-ir-use: output equals the stock build's")
    # A partition that fails: the module falls back to the host, which runs
    # its last passes again, after mtpc ran them ahead of the split; the
    # call graph profile they record must be recorded once. clang's own -cc1
    # command, with LLVM's verifier on (the driver turns it off), which
    # refuses a module with the flag twice.
    fallback_dir = os.path.join(work, "pgo-ir-use-fallback")
    os.makedirs(fallback_dir, exist_ok=True)
    driver = subprocess.run([tool("clang"), "-###"] + use_flags + ["-c", program("profile_calls.c"), "-o", "out.o"],
                            cwd=fallback_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stderr
    cc1 = next(shlex.split(l) for l in driver.splitlines() if '"-cc1"' in l)
    cc1 = [a for a in cc1 if a != "-disable-llvm-verifier"] + ["-fpass-plugin=" + PLUGIN]
    r = subprocess.run(cc1, cwd=fallback_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=env_with(MTPC_TEST_BREAK_PARTITION="1", MTPC_LOG="info", **FORCE_SPLIT))
    fell_back = "compiling the module whole instead" in r.stderr
    fallback_edges = call_graph_profile(os.path.join(fallback_dir, "out.o")) if r.returncode == 0 else None
    checker.check(r.returncode == 0 and fell_back and fallback_edges == edges["stock"],
                  "pgo-ir-use: a partition that fails falls back, and the object, verified, has stock's call graph profile",
                  r.stderr[-800:] + "\n" + str(fallback_edges))
    # Context-sensitive instrumentation, on top of the IR profile (its usual
    # second training run): added in the optimization pipeline, after inlining.
    cs = Build(work, "pgo-cs-generate", program("profile_calls.c"), use_flags + ["-fcs-profile-generate"])
    cs_shown = {}
    for v in ("stock", "mtpc"):
        cs.run(v, ["1000"], env={"LLVM_PROFILE_FILE": "cs.profraw"})
        run([tool("llvm-profdata"), "merge", "cs.profraw", "-o", "cs.profdata"], cwd=cs.dirs[v])
        cs_shown[v] = run([tool("llvm-profdata"), "show", "--showcs", "--all-functions", "--counts", "cs.profdata"], cwd=cs.dirs[v])
    checker.check(code_generation_split(cs) and "Counters:" in cs_shown["stock"] and cs_shown["stock"] == cs_shown["mtpc"],
                  "pgo-cs-generate: code generation split; the context-sensitive profile is the stock build's", cs_shown["mtpc"][:1500])
    # A sample profile (text format): main's loop and fib hot, the rest cold.
    samples = os.path.join(work, "work.prof")
    with open(samples, "w") as f:
        f.write("main:50000:1\n 1: 1\n 4: 10000\n 5: 10000 gamma_:10000\nfib:20000:100\n 1: 10000\n")
    # Accurate: a function without samples is cold (optimized for size).
    sample = Build(work, "pgo-sample-use", program("work.c"),
                   ["-O2", "-g", "-fprofile-sample-use=" + samples, "-fprofile-sample-accurate"])
    sample_code = {v: generated_code(sample.outputs[v]) for v in ("stock", "mtpc")}
    # The profile applies: stock's code differs from a build without it.
    plain = Build(work, "pgo-sample-none", program("work.c"), ["-O2", "-g"], env={"MTPC_DISABLE": "1"})
    checker.check(code_generation_split(sample) and len(sample_code["stock"]) >= 5 and sample_code["stock"] == sample_code["mtpc"]
                  and sample_code["stock"] != generated_code(plain.outputs["stock"]),
                  "pgo-sample-use: code generation split; every function's instructions are the stock build's, "
                  "which the profile changed", first_difference(sample_code["stock"], sample_code["mtpc"]))


def openmp_runtime():
    """Whether this LLVM's OpenMP runtime is installed (libomp-N-dev: one
    major's at a time, the packages conflict)."""
    resource = run([tool("clang"), "-print-resource-dir"]).strip()
    return os.path.exists(os.path.join(resource, "include", "omp.h"))


def test_openmp(work, checker):
    if not openmp_runtime():
        print("SKIP: openmp: LLVM %d's OpenMP runtime is not installed (apt-get install libomp-%d-dev)"
              % (LLVM_MAJOR, LLVM_MAJOR))
        return
    # Eight partitions asked for: the functions sharing the named critical
    # section's lock and the threadprivate variable are placed apart.
    b = Build(work, "openmp", program("openmp.c"), ["-O2", "-fopenmp"], env={"MTPC_PARTITIONS": "8"})
    outputs = {t: [b.run(v, ["30000"], env={"OMP_NUM_THREADS": str(t)}).stdout for v in ("stock", "mtpc")] for t in (1, 2, 4)}
    split_and(checker, b, "parallel loops, reductions, tasks, atomics, named critical sections, sections and "
              "threadprivate variables: the stock build's output on 1, 2 and 4 threads",
              all(o[0] == o[1] and "threadprivate" in o[0] for o in outputs.values()),
              str({t: o[1][:300] for t, o in outputs.items()}))


def test_library_info(work, checker):
    b = Build(work, "veclib", program("veclib.c"), ["-O2", "-ffast-math", "-fveclib=libmvec", "-march=haswell"], compile_only=True)
    calls = {v: sorted(set(re.findall(r"_ZGV\w+sin", run([tool("llvm-nm"), b.outputs[v]])))) for v in ("stock", "mtpc")}
    split_and(checker, b, "-fveclib=libmvec: the vectorizer calls the vector sin stock's does (%s)" % calls["stock"],
              calls["stock"] != [] and calls["stock"] == calls["mtpc"], str(calls))


def build_seen_plugin(work):
    so = os.path.join(work, "seen_functions.so")
    flags = run([tool("llvm-config"), "--cxxflags"]).split()
    run([tool("clang++"), "-shared", "-fPIC"] + flags + [SEEN_PLUGIN_SOURCE, "-o", so])
    return so


def seen(path):
    """('start' counts, the multiset of functions seen at OptimizerLast),
    promoted locals under their own name."""
    starts, last = [], []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                kind, value = line.split()
                if kind == "start":
                    starts.append(int(value))
                elif kind == "last":
                    last.append(re.sub(r"\.mtpc\.[0-9a-f]+$", "", value))
    return starts, sorted(last)


def test_other_plugin(work, checker):
    so = build_seen_plugin(work)
    for order in ("after", "before"):
        record = {v: os.path.join(work, "seen-%s-%s.txt" % (order, v)) for v in ("stock", "mtpc")}
        tag = "plugin-loaded-%s-mtpc" % order
        stats = os.path.join(work, tag + ".jsonl")
        for v in ("stock", "mtpc"):
            cmd = [tool("clang"), "-O2", "-c", program("work.c"), "-o", os.path.join(work, "%s-%s.o" % (tag, v))]
            if v == "mtpc":
                cmd[1:1] = {"after": ["-fpass-plugin=" + PLUGIN, "-fpass-plugin=" + so],
                            "before": ["-fpass-plugin=" + so, "-fpass-plugin=" + PLUGIN]}[order]
            else:
                cmd[1:1] = ["-fpass-plugin=" + so]
            run(cmd, env=env_with(SEEN_FUNCTIONS_FILE=record[v], MTPC_STATS=stats, **FORCE_SPLIT))
        (s_start, s_last), (m_start, m_last) = seen(record["stock"]), seen(record["mtpc"])
        split_ok = any(r["partitions"] > 1 and not r["fallback"] for r in
                       (json.loads(l) for l in open(stats))) if os.path.exists(stats) else False
        checker.check(split_ok, "%s: the module was split" % tag)
        checker.check(len(s_last) > 3 and s_last == m_last,
                      "%s: its OptimizerLast callback sees every function exactly once, as without mtpc" % tag,
                      "stock %s\nmtpc %s" % (s_last, m_last))
        checker.check(s_start == m_start and len(m_start) == 1,
                      "%s: its PipelineStart callback runs once, on the whole module (%s definitions)" % (tag, s_start),
                      "stock %s mtpc %s" % (s_start, m_start))


# --- diagnostics -----------------------------------------------------------

def remark_documents(path):
    """The optimization record's documents, one string each."""
    with open(path) as f:
        text = f.read()
    return sorted(d.strip() for d in re.split(r"^--- ", text, flags=re.M) if d.strip())


def missed_inline_into_other_partition(doc):
    """The inliner's missed remark for a call of a function the module
    defines, which mtpc compiles in another partition without a copy here:
    it cannot be made without the callee's body (README, known limits)."""
    return doc.startswith("!Missed") and "Pass:            inline" in doc and re.search(r"Name:\s+(NeverInline|TooCostly)", doc)


def phases(lines):
    """Which step of the compile said each line, in order, repeats merged:
    the optimizer's remarks come before the code generator's warnings."""
    out = []
    for l in lines:
        step = "optimizer" if "remark:" in l else "code generator" if "warning:" in l else None
        if step and (not out or out[-1] != step):
            out.append(step)
    return out


def instruction_mix_by_mnemonic(flags):
    """Whether mtpc's instruction mix counts mnemonics where stock's counts
    opcodes: LLVM 22's asm printer counts an object's instruction mix by
    opcode name (MOV32rr: 3), assembly text's by mnemonic (movl: 4), and
    where the partitions print assembly (not PARTS_TRANSCRIBED, or with
    PARTS_PRINT_TEXT's options) their counts name mnemonics for a host that
    writes an object: a known difference on LLVM 22 (README). The counts
    are then left out of the comparisons; the remarks themselves (which
    functions, which blocks) stay. Where the parts write objects the counts
    are stock's."""
    return LLVM_MAJOR >= 22 and not any(f in ("-S", "-emit-llvm") for f in flags) and not parts_transcribed(flags)
MIX_COUNT_LINE = re.compile(r"^\S*\s*: \d+$")


def without_mix_counts(doc):
    """An instruction-mix record without its counts: up to its block."""
    if "Name:            InstructionMix" not in doc:
        return doc
    lines = doc.splitlines()
    block = next((i for i, l in enumerate(lines) if "- BasicBlock:" in l), len(lines) - 1)
    return "\n".join(lines[:block + 1])


def record_differences(r, flags):
    """(documents only mtpc's record has, stock's documents it lacks that no
    known limit explains, how many it lacks that one does), for a build
    with `flags`."""
    docs = {v: remark_documents(r.path(v, "out.opt.yaml")) for v in ("stock", "mtpc")}
    if instruction_mix_by_mnemonic(flags):
        docs = {v: [without_mix_counts(d) for d in docs[v]] for v in docs}
    extra = [d for d in docs["mtpc"] if docs["mtpc"].count(d) > docs["stock"].count(d)]
    missing = [d for d in docs["stock"] if docs["stock"].count(d) > docs["mtpc"].count(d)]
    unexplained = [d for d in missing if not missed_inline_into_other_partition(d)]
    return docs, extra, unexplained, len(missing) - len(unexplained)


def test_diagnostics(work, checker):
    flags = ["-O2", "-Wframe-larger-than=4096", "-Rpass=inline"]
    b = Build(work, "diagnostics", program("diagnostics.c"), flags, compile_only=True)
    stock, mtpc = sorted(b.diagnostics("stock")), sorted(b.diagnostics("mtpc"))
    wanted = ["exceeds limit", "inlined into", "slow_path is slow"]
    split_and(checker, b, "warnings, remarks and the warning attribute's message are stock's, once each",
              all(any(w in l for l in stock) for w in wanted) and stock == mtpc,
              "stock:\n%s\nmtpc:\n%s" % ("\n".join(stock), "\n".join(mtpc)))
    # A call to a `warning` function inlined into two functions (in two
    # partitions) is two calls in the object: the warning is given twice.
    # The instruction mix names the blocks as the host's context does (clang
    # discards value names: the inliner's `careful.exit` is not one).
    w = Build(work, "warning-calls", program("warning_calls.c"), ["-O2", "-Rpass-analysis=asm-printer"], compile_only=True)
    given = {v: sorted(l for l in w.diagnostics(v) if "warning: call to" in l) for v in ("stock", "mtpc")}
    split_and(checker, w, "the warning attribute's message for every call, as in the stock compile (%d)" % len(given["stock"]),
              len(given["stock"]) == 3 and len(set(given["stock"])) == 2 and given["stock"] == given["mtpc"],
              "stock:\n%s\nmtpc:\n%s" % ("\n".join(given["stock"]), "\n".join(given["mtpc"])))
    mix = {v: sorted(l for l in w.diagnostics(v) if "BasicBlock:" in l) for v in ("stock", "mtpc")}
    checker.check(mix["stock"] and mix["stock"] == mix["mtpc"], "warning-calls: the instruction mix's blocks named as in the stock compile",
                  "stock:\n%s\nmtpc:\n%s" % ("\n".join(mix["stock"]), "\n".join(mix["mtpc"])))
    order = {v: phases(b.diagnostics(v)) for v in ("stock", "mtpc")}
    checker.check(order["stock"] == ["optimizer", "code generator"] and order["mtpc"] == order["stock"],
                  "diagnostics: the optimizer's remarks, then the code generator's warnings, as in the stock compile", str(order))
    # The asm printer's instruction mix is worded for what the host writes:
    # per mnemonic in assembly output, one count in an object.
    for tag, extra_flags, output in (("instruction-mix-asm", ["-S"], "out.s"), ("instruction-mix-object", [], "out.o")):
        m = Build(work, tag, program("diagnostics.c"), ["-O2", "-Rpass-analysis=asm-printer"] + extra_flags,
                  compile_only=not extra_flags, output=output)
        stock, mtpc = sorted(m.diagnostics("stock")), sorted(m.diagnostics("mtpc"))
        if instruction_mix_by_mnemonic(extra_flags):
            stock, mtpc = ([l for l in lines if not MIX_COUNT_LINE.match(l)] for lines in (stock, mtpc))
        split_and(checker, m, "the asm printer's instruction mix as in the stock compile (%d lines)" % len(stock),
                  any("BasicBlock:" in l for l in stock) and stock == mtpc,
                  "stock:\n%s\nmtpc:\n%s" % ("\n".join(stock[:6]), "\n".join(mtpc[:6])))
    record_flags = ["-O2", "-fsave-optimization-record"]
    r = Build(work, "optimization-record", program("diagnostics.c"), record_flags, compile_only=True)
    docs, extra, unexplained, explained = record_differences(r, record_flags)
    split_and(checker, r, "the optimization record holds stock's records, once each (%d of %d; %d missed-inline "
              "records about calls into another partition)" % (len(docs["mtpc"]), len(docs["stock"]), explained),
              len(docs["stock"]) > 10 and not extra and not unexplained,
              "only with mtpc:\n%s\nmissing:\n%s" % ("\n".join(extra[:3]), "\n".join(unexplained[:3])))
    # A static function called from two partitions is promoted, and renamed
    # in them (`twice`, noinline): at 2 partitions, one that calls it also
    # defines it, and its inliner's remark about the call names the callee
    # as stock's does (at 3, above, no caller is in its partition).
    n = Build(work, "optimization-record-promoted", program("diagnostics.c"), record_flags, compile_only=True,
              env={"MTPC_PARTITIONS": "2"})
    docs, extra, unexplained, explained = record_differences(n, record_flags)
    about_twice = [d for d in docs["stock"] if re.search(r"^\s*- Callee:\s+twice$", d, re.M)]
    split_and(checker, n, "remarks name a promoted local as stock's do (%d of stock's %d remarks about calls of it; "
              "every record stock's)" % (sum(d in docs["mtpc"] for d in about_twice), len(about_twice)),
              about_twice and any(d in docs["mtpc"] for d in about_twice) and not extra and not unexplained
              and not any(".mtpc." in d for d in docs["mtpc"]),
              "only with mtpc:\n%s\nmissing:\n%s" % ("\n".join(extra[:3]), "\n".join(unexplained[:3])))
    # Every partition makes its own sanitizer constructor: its records are
    # given once, as for the stock compile's one constructor.
    asan_flags = ["-O2", "-fsanitize=address", "-fsave-optimization-record"]
    a = Build(work, "optimization-record-asan", program("diagnostics.c"), asan_flags, compile_only=True)
    docs, extra, unexplained, explained = record_differences(a, asan_flags)
    about_ctor = {v: sum("asan.module_ctor" in d for d in docs[v]) for v in ("stock", "mtpc")}
    split_and(checker, a, "with ASan, the record gives the module constructor's records once (%d), as the stock compile's"
              % about_ctor["stock"], about_ctor["stock"] > 0 and about_ctor["mtpc"] == about_ctor["stock"], str(about_ctor))
    differing = [d for d in extra + unexplained if "asan.module_ctor" not in d]
    checker.check(not differing, "optimization-record-asan: every other record is stock's, once (%d of %d)"
                  % (len(docs["mtpc"]), len(docs["stock"])), "\n".join(differing[:3]))


# --- output kinds and code-generation options ------------------------------

def test_cet_note(work, checker):
    b = Build(work, "cf-protection", program("work.c"), ["-O2", "-fcf-protection=full"], compile_only=True)
    notes = {v: run([tool("llvm-readelf"), "-n", b.outputs[v]]).count("x86 feature: IBT, SHSTK") for v in ("stock", "mtpc")}
    split_and(checker, b, "one .note.gnu.property with IBT and SHSTK, as in the stock object", notes == {"stock": 1, "mtpc": 1}, str(notes))


def declined(checker, b, reason, outputs, but_sections=()):
    """mtpc declined: one info line saying why, and stock's outputs byte for
    byte (objects without `but_sections`, whose bytes stock's own compiles
    do not repeat)."""
    info = [l for l in b.stderr["mtpc"].splitlines() if l.startswith("mtpc: info:")]
    checker.check(len(info) == 1 and reason in info[0] and not b.records(),
                  "%s: declined, with one info line saying why" % b.tag, b.stderr["mtpc"][-800:])

    def contents(variant, output):
        if not but_sections:
            return b.read(variant, output, "rb")
        stripped = b.path(variant, output + ".compared")
        run([tool("llvm-objcopy")] + ["--remove-section=" + s for s in but_sections] + [b.path(variant, output), stripped])
        with open(stripped, "rb") as f:
            return f.read()
    same = all(contents("stock", o) == contents("mtpc", o) for o in outputs)
    but = " (but for %s)" % ", ".join(but_sections) if but_sections else ""
    checker.check(same, "%s: %s byte for byte as in the stock build%s" % (b.tag, ", ".join(outputs), but))


def test_declined(work, checker):
    # Both builds name the same compilation directory, so the objects can be equal.
    b = Build(work, "split-dwarf", program("work.c"), ["-O2", "-g", "-gsplit-dwarf", "-fdebug-compilation-dir=/build"],
              compile_only=True)
    declined(checker, b, "-gsplit-dwarf", ["out.o", "out.dwo"])
    checker.check("No errors." in run([tool("llvm-dwarfdump"), "--verify", b.path("mtpc", "out.dwo")]),
                  "split-dwarf: llvm-dwarfdump --verify accepts the .dwo")
    # Each partition's code generator would write out.su anew (found by review on 2026-12-05).
    b = Build(work, "stack-usage", program("work.c"), ["-O2", "-fstack-usage"], compile_only=True)
    declined(checker, b, "-fstack-usage", ["out.o", "out.su"])
    checker.check(len(b.read("stock", "out.su").splitlines()) > 2, "stack-usage: stock's out.su lists the functions")
    for tag, flags, compile_only, out in (("emit-llvm-text", ["-O2", "-S", "-emit-llvm"], False, "work.ll"),
                                          ("emit-llvm-bitcode", ["-O2", "-emit-llvm"], True, "work.bc")):
        b = Build(work, tag, program("work.c"), flags, compile_only=compile_only, output=out)
        declined(checker, b, "-emit-llvm", [out])
        checker.check("module asm" not in b.read("mtpc", out, "rb").decode("latin-1"), "%s: no code as module asm" % tag)
    for tag, target in (("macho-x86_64", "x86_64-apple-macos11"), ("macho-arm64", "arm64-apple-macos11"),
                        ("elf-aarch64", "aarch64-linux-gnu"), ("elf-i386", "i386-pc-linux-gnu")):
        b = Build(work, tag, program("freestanding.c"), ["--target=" + target, "-O2"], compile_only=True)
        declined(checker, b, "is not x86-64 ELF", ["out.o"])
        checker.check(b.diagnostics("mtpc") == [], "%s: the compile prints nothing" % tag, "\n".join(b.diagnostics("mtpc")))
    # -fembed-bitcode: the driver optimizes in a job that writes bitcode,
    # then only generates code from it (the module is not optimized again).
    b = Build(work, "embed-bitcode", program("work.c"), ["-O2", "-fembed-bitcode"])
    info = [l for l in b.stderr["mtpc"].splitlines() if l.startswith("mtpc: info:")]
    checker.check(len(info) == 1 and "-emit-llvm" in info[0] and not b.records(),
                  "embed-bitcode: the optimizing job writes IR, and is declined with one info line", b.stderr["mtpc"][-600:])
    embedded = {v: section_entries(["-x", ".llvmbc"], b.outputs[v]) for v in ("stock", "mtpc")}
    checker.check(".llvmbc" in embedded["stock"] and embedded["stock"] == embedded["mtpc"],
                  "embed-bitcode: the embedded bitcode is stock's")
    checker.check(b.run("stock", ["40"]).stdout == b.run("mtpc", ["40"]).stdout, "embed-bitcode: output equals the stock build's")
    # Pass debugging options follow the host's pipeline: the compile is left whole.
    b = Build(work, "opt-bisect-limit", program("work.c"), ["-O2", "-mllvm", "-opt-bisect-limit=200"], compile_only=True)
    declined(checker, b, "-opt-bisect-limit", ["out.o"])
    checker.check(b.diagnostics("stock") == b.diagnostics("mtpc") and any("BISECT" in l for l in b.diagnostics("stock")),
                  "opt-bisect-limit: every pass is bisected as in the stock compile")
    b = Build(work, "time-report", program("work.c"), ["-O2", "-ftime-report"], compile_only=True)
    declined(checker, b, "-time-passes", ["out.o"])
    # Checked on the host's pass instrumentation, which partitions replace.
    b = Build(work, "verify-debuginfo", program("work.c"), ["-O2", "-g", "-fdebug-compilation-dir=/build", "-Xclang", "-fverify-debuginfo-preserve"],
              compile_only=True)
    declined(checker, b, "-fverify-debuginfo-preserve", ["out.o"])
    # Each partition would write the object's note of its globals.
    b = Build(work, "hwasan", program("work.c"), ["-O2", "-fsanitize=hwaddress"], compile_only=True)
    declined(checker, b, "-fsanitize=hwaddress", ["out.o"])
    # Each partition's code generator would write every function's probe
    # descriptor. LLVM 22 writes the probes themselves in an order that
    # changes from one stock compile to the next (seen on 2026-12-08: one
    # of eight compiles of work.c differed there, and nowhere else).
    b = Build(work, "pseudo-probes", program("work.c"), ["-O2", "-fpseudo-probe-for-profiling"], compile_only=True)
    declined(checker, b, "pseudo probes", ["out.o"], but_sections=[".pseudo_probe"])
    checker.check(section_size(b.outputs["stock"], ".pseudo_probe") > 0, "pseudo-probes: stock's object has the probes")


def test_library_named_local(work, checker):
    # The program's own static memcpy takes the code generator's calls for a
    # structure's copy; a partition without it, or with it renamed, would not.
    b = Build(work, "own-memcpy", program("own_memcpy.c"), ["-O2"])
    info = [l for l in b.stderr["mtpc"].splitlines() if l.startswith("mtpc: info:")]
    checker.check(len(info) == 1 and "it defines a local memcpy, named like a library function" in info[0] and not b.split(),
                  "own-memcpy: compiled whole, with one info line saying why", b.stderr["mtpc"][-800:])
    outputs = {v: b.run(v).stdout for v in ("stock", "mtpc")}
    checker.check(outputs["stock"].startswith("4 copies") and outputs["mtpc"] == outputs["stock"],
                  "own-memcpy: every copy goes through the program's memcpy, as in the stock build", str(outputs))


def section_entries(readelf_args, output):
    return run([tool("llvm-readelf")] + readelf_args + [output])


def section_size(output, name):
    """The size of section `name` in `output` (0 if it has none)."""
    for line in run([tool("llvm-readelf"), "-S", "-W", output]).splitlines():
        f = line.replace("]", "] ").split()
        if name in f:
            i = f.index(name)
            return int(f[i + 4], 16)
    return 0


SWEEP = [
    # (tag, program, flags, link flags, what is compared, how)
    ("stack-size-section", "work.c", ["-fstack-size-section"], [], "the stack sizes of the same functions",
     lambda b, v: sorted(re.findall(r"Functions: \[(\w+)\]", run([tool("llvm-readobj"), "--stack-sizes", b.outputs[v]])))),
    ("patchable-function-entry", "work.c", ["-fpatchable-function-entry=2"], [], "the patchable entries of every function",
     lambda b, v: section_size(b.outputs[v], "__patchable_function_entries")),
    ("instrument-functions", "work.c", ["-finstrument-functions"], ["ENTRY_HOOKS"], "the entry and exit hooks' counts",
     lambda b, v: b.run(v, ["40"]).stderr.strip()),
    ("xray", "work.c", ["-fxray-instrument", "-fxray-instruction-threshold=1"], [], "the XRay-instrumented functions",
     lambda b, v: sorted(re.findall(r"function-name:\s+(\S+)", run([tool("llvm-xray"), "extract", "--symbolize", b.outputs[v]])))),
    ("basic-block-sections-labels", "work.c", ["-fbasic-block-sections=labels"], [], "the basic-block address map of every function",
     lambda b, v: bb_address_maps(b.outputs[v])),
    ("inline-threshold", "work.c", ["-mllvm", "-inline-threshold=0"], [], "the calls left after inlining",
     lambda b, v: calls_made(b.outputs[v])),
    ("no-pic", "work.c", ["-fno-pic", "-no-pie"], [], "the calls left after inlining",
     lambda b, v: calls_made(b.outputs[v])),
    ("large-code-model", "work.c", ["-mcmodel=large"], [], "every function's instructions",
     lambda b, v: instructions(b.outputs[v])),
    # Its tables are linked to their functions' sections: the partitions
    # print text (every such module compiled whole, with a warning, until
    # 2026-12-07).
    ("sanitize-metadata", "work.c", ["-fexperimental-sanitize-metadata=covered,atomics"], [],
     "the functions' covered and atomics metadata",
     lambda b, v: (section_size(b.outputs[v], "sanmd_covered"), section_size(b.outputs[v], "sanmd_atomics"))),
    ("retpoline", "thunks.c", ["-mretpoline"], [], "the functions' counters (local commons after the thunk's group) and the thunk",
     lambda b, v: symbols_like(b.outputs[v], r"_calls$|retpoline")),
]


def symbols_like(output, pattern):
    """The (kind, name) of the symbols of `output` whose names match."""
    symbols = (line.split()[-2:] for line in run([tool("llvm-nm"), output]).splitlines())
    return sorted((kind, name) for kind, name in symbols if re.search(pattern, name))


def instructions(output):
    """The program's functions' mnemonics, per function (the large code
    model's 64-bit address loads among them), in no order; alignment
    padding, which depends on where a function lands, left out."""
    functions, current = {}, None
    for line in run([tool("llvm-objdump"), "-d", "--no-show-raw-insn", output]).splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            current = functions.setdefault(m.group(1), []) if m.group(1) in ("main", "alpha", "beta", "gamma_", "fib") else None
        elif current is not None and "\t" in line:
            mnemonic = line.split("\t")[1].split()[0] if len(line.split("\t")) > 1 else ""
            if not mnemonic.startswith("nop") and mnemonic != "int3":
                current.append(mnemonic)
    return sorted(functions.items()) if any("movabsq" in f for f in functions.values()) else []


def bb_address_maps(output):
    """Every function's basic blocks' (offset, size), in no order (the
    functions' order in the object is the partitions')."""
    text = run([tool("llvm-readobj"), "--bb-addr-map", output])
    return sorted(re.findall(r"Offset: (0x[0-9A-F]+)\s+Size: (0x[0-9A-F]+)", function)
                  for function in text.split("Function {")[1:])


def calls_made(output):
    """Which function calls which in the linked program's code (the code
    the inliner left), as sorted (caller, callee) pairs."""
    pairs, caller = [], None
    for line in run([tool("llvm-objdump"), "-d", "--no-show-raw-insn", output]).splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            caller = m.group(1)
        m = re.search(r"\bcall[q]?\s+(?:0x)?[0-9a-f]+ <([^>+]+)", line)
        if m and caller in ("main", "alpha", "beta", "gamma_", "fib"):
            pairs.append((caller, m.group(1).split("@")[0]))
    return sorted(pairs)


def test_option_sweep(work, checker):
    entry_hooks = os.path.join(work, "entry_hooks.o")
    run([tool("clang"), "-O2", "-c", program("entry_hooks.c"), "-o", entry_hooks])
    for tag, source, flags, link, what, measure in SWEEP:
        link = [entry_hooks if l == "ENTRY_HOOKS" else l for l in link]
        b = Build(work, tag, program(source), ["-O2"] + flags, link=link)
        got = {v: measure(b, v) for v in ("stock", "mtpc")}
        outputs = {v: b.run(v, ["40"]).stdout for v in ("stock", "mtpc")}
        split_and(checker, b, "%s and the output as in the stock build" % what,
                  got["stock"] not in ("", [], 0) and got["stock"] == got["mtpc"] and outputs["stock"] == outputs["mtpc"],
                  "stock %s\nmtpc %s" % (str(got["stock"])[:600], str(got["mtpc"])[:600]))


def test_object_records(work, checker):
    # The compile's command line (-frecord-command-line) and the libraries
    # it asks the linker for (#pragma comment(lib), here --dependent-lib)
    # are written once per object; every partition wrote them (found by
    # review on 2026-12-05: two command lines in a 2-partition object).
    b = Build(work, "object-records", program("work.c"),
              ["-O2", "-frecord-command-line", "-Xclang", "--dependent-lib=m"], compile_only=True)

    def strings(variant, section):
        out = run([tool("llvm-readelf"), "-p", section, b.outputs[variant]])
        return [m.group(1) for m in re.finditer(r"^\s*\[\s*[0-9a-f]+\]\s+(.*)$", out, re.M)]
    lines = {v: strings(v, ".GCC.command.line") for v in ("stock", "mtpc")}
    libraries = {v: strings(v, ".deplibs") for v in ("stock", "mtpc")}
    split_and(checker, b, "one command line and the libraries stock's object records, once",
              len(lines["stock"]) == 1 == len(lines["mtpc"]) and libraries["stock"] == ["m"] == libraries["mtpc"],
              "command lines: %s\nlibraries: %s" % (lines, libraries))


def llvm_sections(output):
    """The names of `output`'s sections of LLVM's own types
    (SHT_LLVM_*: linker options, dependent libraries, address maps...)."""
    lines = run([tool("llvm-readelf"), "-S", "-W", output]).splitlines()
    return sorted(m.group(1) for m in (re.search(r"\]\s*(\S+)\s+LLVM_", line) for line in lines) if m)


def test_cxx20(work, checker):
    # clang 16 gives every C++20 module an empty list of linker options
    # (!llvm.linker.options = !{}), which LLVM 16's code generator writes as
    # an empty section of its own type; a part's object holding it could not
    # be transcribed, and every C++20 module compiled whole, with a warning
    # (found on 2026-12-07). The host's module writes it now, as stock's.
    flags = ["-O2", "-std=c++20"]
    b = Build(work, "cxx20", program("coroutines.cpp"), flags, link=["-lstdc++"])
    outputs = {v: b.run(v, ["1000"]).stdout for v in ("stock", "mtpc")}
    warned = [l for l in b.diagnostics("mtpc") if "warning" in l]
    split_and(checker, b, "coroutines print what the stock build prints (%s), and no warning" % outputs["stock"].strip(),
              outputs["stock"].strip() and outputs["stock"] == outputs["mtpc"] and not warned,
              "stock %r\nmtpc %r\n%s" % (outputs["stock"], outputs["mtpc"], "\n".join(warned)[:800]))
    o = Build(work, "cxx20-object", program("coroutines.cpp"), flags, compile_only=True)
    sections = {v: llvm_sections(o.outputs[v]) for v in ("stock", "mtpc")}
    # (clang 16 and 19 write the empty list; 22 none.)
    expected = LLVM_MAJOR >= 22 or ".linker-options" in sections["stock"]
    split_and(checker, o, "the object's sections of LLVM's own types are stock's (%s)" % ", ".join(sections["stock"]),
              expected and sections["stock"] == sections["mtpc"], str(sections))


def frame_entries(output):
    """How many frame description entries `output`'s .eh_frame and
    .debug_frame hold (the program's and the C runtime's alike)."""
    counts, current = {"eh_frame": 0, "debug_frame": 0}, None
    for line in run([tool("llvm-dwarfdump"), "--debug-frame", output]).splitlines():
        m = re.match(r"^\.(eh_frame|debug_frame) contents:", line)
        if m:
            current = m.group(1)
        elif current and re.search(r"\bFDE\b", line):
            counts[current] += 1
    return counts


UNWIND_VARIANTS = [
    # (tag, flags besides -O2 -fno-asynchronous-unwind-tables)
    ("unwind-tables-debug-info", ["-g"]),
    ("unwind-tables-forced-debug-frame", ["-fforce-dwarf-frame"]),
]


def test_unwind_tables(work, checker):
    # Without asynchronous unwind tables, the code generator puts every
    # function's call frame information in .eh_frame if one of the module's
    # functions may throw, else in .debug_frame (with -g or
    # -fforce-dwarf-frame): a partition of noexcept leaves alone would choose
    # .debug_frame, and in a merged text its `.cfi_sections` line took every
    # entry out of .eh_frame (the first exception ended the program).
    for tag, flags in UNWIND_VARIANTS:
        b = Build(work, tag, program("unwind_tables.cpp"), ["-O2", "-fno-asynchronous-unwind-tables"] + flags, link=["-lstdc++"])
        frames = {v: frame_entries(b.outputs[v]) for v in ("stock", "mtpc")}
        runs = {v: b.run(v, ["40"], check=False) for v in ("stock", "mtpc")}
        outputs = {v: (r.returncode, r.stdout) for v, r in runs.items()}
        split_and(checker, b, "the exceptions caught and the call frame entries in each section as in the stock build",
                  outputs["stock"][1].count("caught at") == 8 and outputs["mtpc"] == outputs["stock"]
                  and frames["stock"]["eh_frame"] > 0 and frames["mtpc"] == frames["stock"],
                  "stock %s %s\nmtpc %s %s" % (frames["stock"], outputs["stock"], frames["mtpc"], outputs["mtpc"]))


# --- the merged text ---------------------------------------------------------

DEBUG_VARIANTS = [
    # (tag, flags, source named by its absolute path, gdb compared)
    ("relative", ["-g"], False, True),
    ("absolute-path", ["-g"], True, True),
    ("debug-prefix-map", ["-g", "-fdebug-prefix-map=WORK=/src"], False, True),
    ("file-prefix-map", ["-g", "-ffile-prefix-map=WORK=."], False, True),
    ("debug-compilation-dir", ["-g", "-fdebug-compilation-dir=."], False, True),
    ("dwarf-4", ["-gdwarf-4"], False, True),
    ("dwarf-5", ["-gdwarf-5"], False, True),
    ("line-tables-only", ["-gline-tables-only"], False, True),
    ("no-column-info", ["-g", "-gno-column-info"], False, True),
]


def declaration_files(output):
    """(tag, name) -> the files of every DIE with that tag and name and a
    DW_AT_decl_file: where the debug information says each thing is
    declared."""
    out, tag, name = {}, None, None
    for line in run([tool("llvm-dwarfdump"), "--debug-info", output]).splitlines():
        m = re.search(r"DW_TAG_(\w+)", line)
        if m:
            tag, name = m.group(1), None
        m = re.search(r'DW_AT_name\s+\("([^"]*)"\)', line)
        if m:
            name = m.group(1)
        m = re.search(r'DW_AT_decl_file\s+\("([^"]*)"\)', line)
        if m and name:
            out.setdefault((tag, name), set()).add(m.group(1).replace("/./", "/").replace("/stock/", "/DIR/").replace("/mtpc/", "/DIR/"))
    return out


def test_debug_info(work, checker):
    for tag, flags, absolute, gdb in DEBUG_VARIANTS:
        # The prefix maps name the test's directory, which holds both builds'.
        flags = [f.replace("WORK", os.path.join(work, "debug-" + tag)) for f in flags]
        b = Build(work, "debug-" + tag, program("work.c"), ["-O2"] + flags, absolute=absolute)
        errors = dwarf_verify_errors(b.outputs["mtpc"], like=b.outputs["stock"])
        checker.check(not errors, "debug-%s: llvm-dwarfdump --verify finds no error" % tag, "\n".join(errors)[-800:])
        decls = {v: declaration_files(b.outputs[v]) for v in ("stock", "mtpc")}
        wrong = sorted((k, sorted(f), sorted(decls["mtpc"].get(k, ()))) for k, f in decls["stock"].items()
                       if decls["mtpc"].get(k) != f)
        checker.check(decls["stock"] and not wrong,
                      "debug-%s: every name is declared in the files stock's debug information gives (%d)" % (tag, len(decls["stock"])),
                      "(name, stock's files, mtpc's): %s" % wrong[:6])
        outputs = {v: b.run(v, ["40"]).stdout for v in ("stock", "mtpc")}
        split_and(checker, b, "output equals the stock build's", outputs["stock"] == outputs["mtpc"])
        if gdb:
            stops = {v: [stop_location(b.outputs[v], f, ["40"], cwd=b.dirs[v]).replace("/stock/", "/DIR/").replace("/mtpc/", "/DIR/")
                         for f in ("alpha", "beta", "fib", "main")] for v in ("stock", "mtpc")}
            checker.check(stops["stock"] == stops["mtpc"], "debug-%s: gdb stops where stock's build does (%s)" % (tag, stops["stock"][0]),
                          "stock %s\nmtpc %s" % (stops["stock"], stops["mtpc"]))


def type_unit_signatures(output):
    """The signatures of the DWARF type units of `output`, one per unit
    (a list, sorted: the same signature twice is two units)."""
    dump = run([tool("llvm-dwarfdump"), "--debug-info", "--debug-types", output])
    return sorted(re.findall(r"type_signature = (0x[0-9a-f]+)", dump))


def debug_section_bytes(output):
    """The size of the debug sections of `output`, all their copies."""
    sizes = run(["size", "-A", output]).splitlines()
    return sum(int(f[1]) for f in (l.split() for l in sizes) if len(f) >= 2 and f[0].startswith(".debug"))


def test_debug_types_section(work, checker):
    """-fdebug-types-section: each class goes to a type unit of its own,
    which every partition that uses the class writes; the object holds one
    unit per type, stock's (the merge keeps the first part's, as the
    linker keeps one per type among objects), and debuggers see stock's
    types. Before 2026-12-06 such a compile fell back to the whole module."""
    source = os.path.join(ROOT, "tests", "programs", "constructs.cpp")
    for tag, flags, output in (("types-section", ["-gdwarf-5"], "out.o"), ("types-section-dwarf-4", ["-gdwarf-4"], "out.o"),
                               ("types-section-text", ["-gdwarf-5", "-S"], "out.s")):
        b = Build(work, tag, source, ["-O2", "-fdebug-types-section"] + flags, compile_only="-S" not in flags, output=output)
        objects = {v: b.outputs[v] for v in ("stock", "mtpc")}
        if output == "out.s":
            for v in objects:
                objects[v] = b.path(v, "assembled.o")
                run([tool("clang"), "-c", b.outputs[v], "-o", objects[v]])
        units = {v: type_unit_signatures(objects[v]) for v in objects}
        split_and(checker, b, "one type unit per type, stock's (%d), with no warning" % len(units["stock"]),
                  len(units["stock"]) > 50 and units["mtpc"] == units["stock"] and b.diagnostics("mtpc") == b.diagnostics("stock")
                  and "mtpc: warning" not in b.stderr["mtpc"],
                  "only stock's: %s\nonly mtpc's: %s\n%s" % (sorted(set(units["stock"]) - set(units["mtpc"]))[:5],
                                                            sorted(set(units["mtpc"]) - set(units["stock"]))[:5],
                                                            b.stderr["mtpc"][-600:]))
        errors = dwarf_verify_errors(objects["mtpc"], like=objects["stock"])
        checker.check(not errors, "%s: llvm-dwarfdump --verify finds no error" % tag, "\n".join(errors)[-800:])
        size = {v: debug_section_bytes(objects[v]) for v in objects}
        checker.check(size["mtpc"] <= 1.10 * size["stock"],
                      "%s: the debug sections at most 10 %% larger than stock's (%+.1f %%)" % (tag, 100.0 * size["mtpc"] / size["stock"] - 100),
                      str(size))
    # DWARF 5's name index (-gpubnames) lists each type unit by its offset
    # from LLVM 17: declined there; LLVM 16's splits.
    # (Both builds name one compilation directory, so that the objects can be equal.)
    b = Build(work, "types-section-pubnames", source, ["-O2", "-g", "-gpubnames", "-fdebug-types-section", "-fdebug-compilation-dir=/build"],
              compile_only=True)
    if LLVM_MAJOR >= 17:
        declined(checker, b, "-gpubnames", ["out.o"])
    else:
        units = {v: type_unit_signatures(b.outputs[v]) for v in ("stock", "mtpc")}
        errors = dwarf_verify_errors(b.outputs["mtpc"], like=b.outputs["stock"])
        split_and(checker, b, "one type unit per type, stock's (%d), and llvm-dwarfdump --verify finds no error" % len(units["stock"]),
                  len(units["stock"]) > 50 and units["mtpc"] == units["stock"] and not errors, "\n".join(errors)[-800:])
    # Linked: the program and what gdb says of its classes.
    b = Build(work, "types-section-linked", source, ["-O2", "-g", "-fdebug-types-section"], link=["-lstdc++"])
    runs = {v: b.run(v).stdout for v in ("stock", "mtpc")}
    questions = ["ptype Rect", "ptype Counter<long>", "ptype shapes", "info line Rect::area"]
    # (Where the code is differs: mtpc's object lays the functions out by partition.)
    answers = {v: [re.sub(r"0x[0-9a-f]+", "ADDRESS", a) for a in gdb_answers(b.outputs[v], "total_area", questions, cwd=b.dirs[v])]
               for v in ("stock", "mtpc")}
    split_and(checker, b, "output equals the stock build's, and gdb describes its classes as for stock's (%s)" % ", ".join(questions),
              runs["stock"] == runs["mtpc"] and all(answers["stock"]) and answers["stock"] == answers["mtpc"]
              and "double area(void) const" in answers["stock"][0],
              "stock: %s\nmtpc: %s" % (answers["stock"], answers["mtpc"]))


def test_embedded_source(work, checker):
    """clang 16's module for -gembed-source fails LLVM's verifier (embedded
    source is all or nothing in a unit, and headers have none) and its object
    fails llvm-dwarfdump --verify: mtpc leaves it to the host, quietly.
    clang 19's and 22's is valid: mtpc splits it, and its object embeds the
    sources stock's does."""
    b = Build(work, "embed-source", program("work.c"), ["-O2", "-gdwarf-5", "-gembed-source", "-fdebug-compilation-dir=/build"],
              compile_only=True)
    records = b.records()
    if LLVM_MAJOR >= 19:
        checker.check(len(records) == 1 and records[0]["partitions"] > 1 and not records[0]["fallback"],
                      "embed-source: the module was split", json.dumps(records)[:500])
        checker.check(not any("warning" in l for l in b.stderr["mtpc"].splitlines()), "embed-source: no warning",
                      b.stderr["mtpc"][-600:])
        # (Where the parts' objects are transcribed each unit has a line
        # table of its own, which embeds the sources of the files it names.)
        sources = {v: sorted({l.strip() for l in run([tool("llvm-dwarfdump"), "--debug-line", b.outputs[v]]).splitlines()
                              if 'source: "' in l}) for v in ("stock", "mtpc")}
        checker.check(sources["stock"] and sources["stock"] == sources["mtpc"],
                      "embed-source: the object embeds the sources stock's does (%d files)" % len(sources["stock"]))
        return
    checker.check(len(records) == 1 and "fails LLVM's verifier" in (records[0]["fallback_reason"] or ""),
                  "embed-source: the module fails LLVM's verifier and is left to the host", json.dumps(records)[:500])
    checker.check(not any("warning" in l for l in b.stderr["mtpc"].splitlines()) and "fails LLVM's verifier" in b.stderr["mtpc"],
                  "embed-source: with one info line, no warning", b.stderr["mtpc"][-600:])
    # Not byte for byte: clang 16 writes an uninitialized DW_AT_decl_file for
    # headers here, which differs from one stock compile to the next.
    code = {v: run([tool("llvm-objdump"), "-d", "--no-leading-addr", b.outputs[v]]).split("\n", 2)[2] for v in ("stock", "mtpc")}
    checker.check(code["stock"] == code["mtpc"], "embed-source: the code is the stock compile's")


def test_broken_text_falls_back(work, checker):
    b = Build(work, "broken-merged-text", program("work.c"), ["-O2", "-g", "-fdebug-compilation-dir=/build"], compile_only=True,
              env={"MTPC_TEST_BREAK_ASM": "1"})
    records = b.records()
    warnings = [l for l in b.stderr["mtpc"].splitlines() if "warning" in l]
    checker.check(len(records) == 1 and records[0]["fallback"] and "does not assemble" in (records[0]["fallback_reason"] or ""),
                  "broken-merged-text: the check catches the text before the host sees it", json.dumps(records)[:600])
    checker.check(len(warnings) == 1 and "compiling the module whole instead" in warnings[0],
                  "broken-merged-text: one warning", b.stderr["mtpc"][-800:])
    checker.check(b.read("stock", "out.o", "rb") == b.read("mtpc", "out.o", "rb"),
                  "broken-merged-text: the object is the stock compile's, byte for byte")


def test_sqlite_in_its_directory(work, checker):
    """The issue's first case: sqlite3.c compiled with -g in its own
    directory (a relative path, as make runs compilers), default settings."""
    src = sqlite_dir()
    d = os.path.join(work, "sqlite-relative")
    os.makedirs(d)
    for name in ("sqlite3.c", "sqlite3.h"):
        shutil.copy(os.path.join(src, name), d)
    stats = os.path.join(work, "sqlite-relative.jsonl")
    r = subprocess.run([tool("clang"), "-fpass-plugin=" + PLUGIN, "-O2", "-g", "-c", "sqlite3.c", "-o", "sqlite3.o"] + SQLITE_DEFINES,
                       # Default settings, but split whatever else the machine runs.
                       cwd=d, env=env_with(MTPC_STATS=stats, MTPC_LOAD_AWARE="0"), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    records = [json.loads(l) for l in open(stats)] if os.path.exists(stats) else []
    checker.check(r.returncode == 0 and r.stderr == "", "sqlite3 -O2 -g in its directory: compiles, silently", r.stderr[-1500:])
    checker.check(any(s["partitions"] > 1 and not s["fallback"] for s in records),
                  "sqlite3 -O2 -g in its directory: split by default", json.dumps(records)[:400])
    errors = dwarf_verify_errors(os.path.join(d, "sqlite3.o")) if r.returncode == 0 else ["no object"]
    checker.check(not errors, "sqlite3 -O2 -g in its directory: llvm-dwarfdump --verify finds no error",
                  "\n".join(errors)[-800:])


def first_difference(stock, mtpc):
    """The first function whose instructions differ, for a check's detail."""
    return next((f"{a[0]}:\n{a[1]}\n{b[1]}" for a, b in zip(stock, mtpc) if a != b), "%d / %d functions" % (len(stock), len(mtpc)))


def test_sqlite_profiles(work, checker):
    """sqlite3 with profiles of its SQL workload. clang's own profile
    (-fprofile-instr-use): each partition runs the pipeline, whose last
    passes record the call graph profile from its functions, copies
    included; each edge must be written once, by the partition that emits
    its caller (before 2026-12-08, 203 of its edges twice). An IR profile
    (-fprofile-use): optimized whole, its code generation split; every
    function's instructions, sections and call graph edges are stock's."""
    src = sqlite_dir()
    d = os.path.join(work, "sqlite-profiles")
    os.makedirs(d)
    workload = os.path.join(ROOT, "tests", "programs", "sqlite_workload.c")
    stats = os.path.join(d, "stats.jsonl")

    def build(name, flags, split_env=None):
        """sqlite3.o, and the workload linked with it; split_env: with mtpc."""
        obj, exe = os.path.join(d, name + ".o"), os.path.join(d, name)
        plugin = ["-fpass-plugin=" + PLUGIN] if split_env is not None else []
        run([tool("clang")] + plugin + flags + SQLITE_DEFINES + ["-I", src, "-c", os.path.join(src, "sqlite3.c"), "-o", obj],
            env=env_with(**(split_env or {})))
        run([tool("clang")] + flags + ["-I", src, workload, obj, "-o", exe, "-lm"])
        return obj, exe

    def profile(exe, name):
        run([exe, "3000"], cwd=d, env=env_with(LLVM_PROFILE_FILE=name + ".profraw"))
        run([tool("llvm-profdata"), "merge", name + ".profraw", "-o", name + ".profdata"], cwd=d)
        return os.path.join(d, name + ".profdata")

    forced = {"MTPC_PARTITIONS": "2", "MTPC_STATS": stats}
    for kind, generate, use in (("clang", ["-O0", "-fprofile-instr-generate"], "-fprofile-instr-use="),
                                ("ir", ["-O2", "-fprofile-generate"], "-fprofile-use=")):
        _, trained = build(kind + "-generate", generate)
        flags = ["-O2", use + profile(trained, kind)]
        objects, programs = {}, {}
        for v, split_env in (("stock", None), ("mtpc", forced)):
            objects[v], programs[v] = build(kind + "-" + v, flags, split_env)
        records = [json.loads(l) for l in open(stats)] if os.path.exists(stats) else []
        os.remove(stats) if os.path.exists(stats) else None
        split = any(r["partitions"] > 1 and not r["fallback"] and r["code_generation_only"] == (kind == "ir") for r in records)
        edges = {v: call_graph_profile(objects[v]) for v in objects}
        pairs = [(a, b) for a, b, _ in edges["mtpc"]]
        twice = sorted({p for p in pairs if pairs.count(p) > 1})
        outputs = {v: run([programs[v], "3000"], cwd=d) for v in programs}
        checker.check(split and "checksum" in outputs["stock"] and outputs["stock"] == outputs["mtpc"],
                      "sqlite-profiles (%s): split%s, the workload's output is stock's"
                      % (kind, " for its code generation" if kind == "ir" else ""), json.dumps(records)[:400])
        # clang's profile: the partitions' inlining differs a little from
        # stock's, and with it some calls; most edges are stock's.
        shared = {(a, b) for a, b, _ in edges["stock"]} & set(pairs)
        checker.check(len(edges["stock"]) > 500 and not twice and len(shared) >= 0.9 * len(edges["stock"]),
                      "sqlite-profiles (%s): each call graph edge written once (%d edges, %d of stock's %d)"
                      % (kind, len(edges["mtpc"]), len(shared), len(edges["stock"])), str(twice[:10]))
        if kind == "ir":
            code = {v: generated_code(programs[v]) for v in programs}
            checker.check(len(code["stock"]) > 1000 and code["stock"] == code["mtpc"],
                          "sqlite-profiles (ir): every function's instructions are stock's (%d functions)" % len(code["stock"]),
                          first_difference(code["stock"], code["mtpc"]))
            checker.check(edges["stock"] == edges["mtpc"]
                          and function_sections(objects["stock"]) == function_sections(objects["mtpc"]),
                          "sqlite-profiles (ir): stock's call graph edges, and its functions in .text.hot. and .text.unlikely.")


TESTS = [
    ("sanitizers", test_sanitizers),
    ("sanitizer-coverage", test_sanitizer_coverage),
    ("asan-init-order", test_asan_initialization_order),
    ("thinlto-asan", test_thinlto_asan),
    ("gcov", test_gcov),
    ("profiles", test_profiles),
    ("ir-profiles", test_ir_profiles),
    ("openmp", test_openmp),
    ("library-info", test_library_info),
    ("other-plugin", test_other_plugin),
    ("diagnostics", test_diagnostics),
    ("cet-note", test_cet_note),
    ("declined", test_declined),
    ("library-named-local", test_library_named_local),
    ("option-sweep", test_option_sweep),
    ("object-records", test_object_records),
    ("cxx20", test_cxx20),
    ("unwind-tables", test_unwind_tables),
    ("debug-info", test_debug_info),
    ("debug-types-section", test_debug_types_section),
    ("embed-source", test_embedded_source),
    ("broken-text", test_broken_text_falls_back),
    ("sqlite-relative", test_sqlite_in_its_directory),
    ("sqlite-profiles", test_sqlite_profiles),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="run only the groups whose name contains this")
    a = ap.parse_args()
    require_plugin()
    work = tempfile.mkdtemp(prefix="mtpc-fidelity-")
    checker = Checker()
    for name, test in TESTS:
        if a.only and a.only not in name:
            continue
        try:
            test(os.path.join(work), checker)
        except RuntimeError as e:
            checker.check(False, name + ": builds and runs", str(e))
    shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Differential test of mtpc-split on real programs.

For each program: its module is compiled to unoptimized bitcode
(clang-16 -O2 -Xclang -disable-llvm-optzns -emit-llvm), then
  * unsplit: opt-16 -O2, llc-16, link, run: the expected output;
  * split into 2, 8 and the maximum number of partitions: each partition
    through opt-16 -O2 and llc-16 (in parallel), link, run.
The split program's output must equal the unsplit one's, every symbol the
unsplit object defines must be defined exactly once across the partitions'
objects (a C++ inline function or template, linkonce in the module, at
least once: every partition that uses it has its own copy, as translation
units do, and the linker keeps one), as many partition files must be written as were asked for (as the
plan says, for the maximum: one per unit), and splitting twice with
different thread counts must give byte-identical partitions.

  tests/e2e_split.py [--only NAME] [--skip NAME] [--keep DIR]
Prints one line per check and 'N passed, N failed' at the end.
"""
import argparse
import concurrent.futures
import filecmp
import glob
import os
import re
import shutil
import subprocess
import tempfile

from harness import (LLVM_MAJOR, JOBS, MAX_PARTITIONS, PLUGIN, PROGRAMS_DIR, SQLITE_DEFINES, Checker, dwarf_verify_errors, require_plugin, run, sqlite_dir,
                     tool)

class Program:
    """module: the source that becomes the split module; extra: sources
    compiled normally and linked with it."""

    def __init__(self, name, module, cxx=False, cflags=(), extra=(), libs=(), args=()):
        self.name, self.module, self.cxx = name, module, cxx
        self.cflags, self.extra, self.libs, self.args = list(cflags), list(extra), list(libs), list(args)

    @property
    def driver(self):
        return tool("clang++") if self.cxx else tool("clang")


def programs():
    yield Program("constructs-c", os.path.join(PROGRAMS_DIR, "constructs.c"), cflags=["-fcommon"], libs=["-lpthread"])
    yield Program("constructs-cpp", os.path.join(PROGRAMS_DIR, "constructs.cpp"), cxx=True)
    # With debug info: partitions must verify with their DWARF metadata.
    yield Program("constructs-c-g", os.path.join(PROGRAMS_DIR, "constructs.c"), cflags=["-fcommon", "-g"],
                  libs=["-lpthread"])
    yield Program("constructs-cpp-g", os.path.join(PROGRAMS_DIR, "constructs.cpp"), cxx=True, cflags=["-g"])
    sq = sqlite_dir()
    flags = ["-I" + sq] + SQLITE_DEFINES + ["-DSQLITE_ENABLE_JSON1"]
    yield Program("sqlite3", os.path.join(sq, "sqlite3.c"), cflags=flags,
                  extra=[os.path.join(PROGRAMS_DIR, "sqlite_workload.c")], libs=["-lm"], args=["3000"])


def compile_object(bc, obj):
    opt_bc = obj + ".opt.bc"
    run([tool("opt"), "-O2", bc, "-o", opt_bc])
    run([tool("llc"), "-O2", "-relocation-model=pic", "-filetype=obj", opt_bc, "-o", obj])
    os.unlink(opt_bc)
    return obj


# Symbols the code generator makes in every object that needs them (hidden,
# weak, in a COMDAT the linker merges), not symbols of the module.
PER_OBJECT_SYMBOL_PREFIXES = ("DW.ref.",)


def defined_globals(objs):
    """Counts, per name, the objects that define it as a global or weak symbol."""
    counts = {}
    for o in objs:
        for line in run([tool("llvm-nm"), "--defined-only", "--extern-only", "--format=just-symbols", o]).split():
            if not line.startswith(PER_OBJECT_SYMBOL_PREFIXES):
                counts[line] = counts.get(line, 0) + 1
    return counts


# mtpc-split's info line: "mtpc: info: mtpc-split: N partitions of M instructions ..."
PLANNED = re.compile(r"mtpc: info: mtpc-split: (\d+) partitions of ")


def split(bc, prefix, partitions, threads):
    """Splits bc into PREFIX.K.bc; returns the files written, in order, and
    the partition count the pass planned (from its info line)."""
    env = dict(os.environ, MTPC_THREADS=str(threads), MTPC_LOG="info")
    # The maximum: one partition per unit, none merged (no-merge), the most
    # references across partitions.
    params = "partitions=%d;min-size=0;out=%s%s" % (partitions, prefix, ";no-merge" if partitions == MAX_PARTITIONS else "")
    cmd = [tool("opt"), "-load-pass-plugin=" + PLUGIN, "-passes=mtpc-split<%s>" % params, bc, "-o", os.devnull]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-4000:]))
    # LLVM strips debug info it finds invalid with only a warning: fail on it.
    for text in ("invalid debug info", "warning"):
        if text in r.stderr:
            raise RuntimeError("%s printed '%s':\n%s" % (" ".join(cmd), text, r.stderr[-4000:]))
    planned = PLANNED.findall(r.stderr)
    if len(planned) != 1:
        raise RuntimeError("%s: expected one plan line, got:\n%s" % (" ".join(cmd), r.stderr[-4000:]))
    return sorted(glob.glob(prefix + ".*.bc"), key=lambda p: int(p.rsplit(".", 2)[1])), int(planned[0])


def check_partition_files(checker, label, prefix, parts, planned, requested):
    """PREFIX.0.bc .. PREFIX.(N-1).bc, N as planned; N more than 8 if the
    maximum was asked for (one partition per unit, no-merge), else more
    than one and at most as requested: a partition whose units all move
    elsewhere (data and copied definitions follow their first user) is
    dropped, and partitions lighter than the heaviest merge
    (partition_plan.rs, merge_within_the_heaviest)."""
    names = ["%s.%d.bc" % (prefix, k) for k in range(planned)]
    wanted = planned > 8 if requested == MAX_PARTITIONS else 1 < planned <= requested
    checker.check(parts == names and wanted,
                  "%s: %d partition files written, as planned (%s requested)" %
                  (label, planned, "max" if requested == MAX_PARTITIONS else requested),
                  "planned %d, files: %s" % (planned, [os.path.basename(p) for p in parts]))


def test_program(p, work, checker, pool):
    bc = os.path.join(work, p.name + ".bc")
    run([p.driver, "-O2", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", p.module, "-o", bc] + p.cflags)
    extra_objs = []
    for src in p.extra:
        obj = os.path.join(work, os.path.basename(src) + ".o")
        run([p.driver, "-O2", "-c", src, "-o", obj] + p.cflags)
        extra_objs.append(obj)

    whole_obj = compile_object(bc, os.path.join(work, p.name + ".whole.o"))
    exe = os.path.join(work, p.name + ".whole")
    run([p.driver, whole_obj] + extra_objs + ["-o", exe] + p.libs)
    expected = run([exe] + p.args)
    whole_symbols = defined_globals([whole_obj])
    linkonce = linkonce_names(bc)

    for n in (2, 8, MAX_PARTITIONS):
        label = "%s split into %s" % (p.name, "max" if n == MAX_PARTITIONS else n)
        d = os.path.join(work, "%s.%d" % (p.name, n))
        os.makedirs(d)
        try:
            parts, planned = split(bc, os.path.join(d, "p"), n, threads=1)
            check_partition_files(checker, label, os.path.join(d, "p"), parts, planned, n)
            objs = list(pool.map(lambda b: compile_object(b, b[:-3] + ".o"), parts))
            exe = os.path.join(d, "prog")
            run([p.driver] + objs + extra_objs + ["-o", exe] + p.libs)
            out = run([exe] + p.args)
        except RuntimeError as e:
            checker.check(False, label + ": builds and runs", str(e))
            continue
        if "-g" in p.cflags:
            # Each partition's object, and the program: its debug information
            # holds what linkers leave of discarded COMDAT copies and of
            # merged strings, which the verifiers of LLVM 19 and later report
            # as errors in any program linked from several objects (stock's
            # too), so the program is verified on LLVM 16 only.
            programs = [exe] if LLVM_MAJOR < 19 else []
            errors = [e for f in objs + programs for e in dwarf_verify_errors(f)]
            checker.check(not errors, label + ": llvm-dwarfdump --verify finds no error in any partition's object%s"
                          % (" or the program" if programs else ""), "\n".join(errors)[-2000:])
        checker.check(out == expected, "%s (%d partitions): output equals the unsplit build's" % (label, len(parts)),
                      "expected:\n%s\ngot:\n%s" % (expected[-2000:], out[-2000:]))
        counts = defined_globals(objs)
        wrong = sorted("%s defined %d times" % (s, counts.get(s, 0)) for s in whole_symbols
                       if counts.get(s, 0) != 1 and not (s in linkonce and counts.get(s, 0) > 1))
        checker.check(not wrong, label + ": every symbol of the unsplit object is defined exactly once "
                      "(a linkonce one at least once)", "\n".join(wrong[:20]))
        if n == 8:
            if "-g" in p.cflags:
                check_debug_info_changes_nothing(p, parts, work, checker)
            again = os.path.join(work, "%s.%d.again" % (p.name, n))
            os.makedirs(again)
            parts2, _ = split(bc, os.path.join(again, "p"), n, threads=JOBS + 2)
            same = len(parts) == len(parts2) and all(filecmp.cmp(a, b, shallow=False) for a, b in zip(parts, parts2))
            checker.check(same, label + ": byte-identical partitions with 1 and %d threads" % (JOBS + 2))
        shutil.rmtree(d, ignore_errors=True)


DEFINE = re.compile(r'^define ([^@]*)@("[^"]+"|[^(]+)\(', re.M)
LINKONCE = re.compile(r'^(?:define (?:\S+ )*?linkonce(?:_odr)? [^@]*@([^(]+)\(|@([^ ]+) = linkonce(?:_odr)? )', re.M)


def linkonce_names(bc):
    """The names the module defines linkonce or linkonce_odr."""
    return {m.group(1) or m.group(2) for m in LINKONCE.finditer(run([tool("llvm-dis"), bc, "-o", "-"]))}


def definitions(bc):
    """What a partition defines: each function's name with its linkage,
    visibility and signature's return type, from its disassembly."""
    return sorted((m.group(2), m.group(1)) for m in DEFINE.finditer(run([tool("llvm-dis"), bc, "-o", "-"])))


def check_debug_info_changes_nothing(p, parts, work, checker):
    """The program's module built without -g, split into as many
    partitions: each must define the same functions, with the same linkage,
    as with -g (debug intrinsics must not weigh in the plan or the copies).
    Promoted names carry a digest of the module's content, debug
    information included (as ThinLTO's): they are compared without it."""
    label = "%s split into 8" % p.name
    bc = os.path.join(work, p.name + ".nodebug.bc")
    cflags = [f for f in p.cflags if f != "-g"]
    run([p.driver, "-O2", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", p.module, "-o", bc] + cflags)
    d = os.path.join(work, p.name + ".nodebug.8")
    os.makedirs(d)
    plain, _ = split(bc, os.path.join(d, "p"), 8, threads=1)
    unhashed = lambda bc: [(re.sub(r"\.mtpc\.[0-9a-f]+", ".mtpc.HASH", name), how) for name, how in definitions(bc)]
    differing = [k for k, (a, b) in enumerate(zip(parts, plain)) if unhashed(a) != unhashed(b)]
    checker.check(len(parts) == len(plain) and not differing,
                  label + ": every partition defines the same functions as without -g",
                  "%d and %d partitions; differing: %s" % (len(parts), len(plain), differing))
    shutil.rmtree(d, ignore_errors=True)


def test_two_sources(work, checker, pool):
    """Two objects of one source file (twin.c with -DSIDE=a and -DSIDE=b)
    with the same internal names, each split so that its internal helper
    and table are promoted, linked into one program."""
    objs, whole = [], []
    for side, scale in (("a", 1), ("b", 10)):
        src = os.path.join(PROGRAMS_DIR, "twin.c")
        bc = os.path.join(work, "twin_%s.bc" % side)
        run([tool("clang"), "-O2", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", src, "-o", bc,
             "-DSIDE=" + side, "-DSCALE=%d" % scale])
        whole.append(compile_object(bc, bc[:-3] + ".whole.o"))
        d = os.path.join(work, "twin_%s" % side)
        os.makedirs(d, exist_ok=True)
        parts, planned = split(bc, os.path.join(d, "p"), 2, 1)
        check_partition_files(checker, "two sources: twin_%s split into 2" % side, os.path.join(d, "p"), parts, planned, 2)
        objs += list(pool.map(lambda b: compile_object(b, b[:-3] + ".o"), parts))
    main_obj = os.path.join(work, "twin_main.o")
    run([tool("clang"), "-O2", "-c", os.path.join(PROGRAMS_DIR, "twin_main.c"), "-o", main_obj])
    run([tool("clang"), main_obj] + whole + ["-o", os.path.join(work, "twin.whole")])
    expected = run([os.path.join(work, "twin.whole")])
    promoted = [s for s in defined_globals(objs) if ".mtpc." in s]
    checker.check(len(promoted) >= 4, "two sources: internal helpers and tables are promoted in both",
                  "promoted: %s" % promoted)
    try:
        run([tool("clang"), main_obj] + objs + ["-o", os.path.join(work, "twin.split")])
        out = run([os.path.join(work, "twin.split")])
        checker.check(out == expected, "two sources split and linked together: no collision, same output",
                      "expected %s got %s" % (expected, out))
    except RuntimeError as e:
        checker.check(False, "two sources split and linked together: no collision, same output", str(e))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="run only the program with this name")
    ap.add_argument("--skip", action="append", default=[], choices=["constructs-c", "constructs-cpp", "constructs-c-g", "constructs-cpp-g", "sqlite3", "two-sources"],
                    help="leave out the program with this name (repeatable)")
    ap.add_argument("--keep", help="work in this directory and keep it")
    a = ap.parse_args()
    require_plugin()
    work = a.keep or tempfile.mkdtemp(prefix="mtpc-e2e-")
    os.makedirs(work, exist_ok=True)
    checker = Checker()
    with concurrent.futures.ThreadPoolExecutor(JOBS) as pool:
        if (not a.only or a.only == "two-sources") and "two-sources" not in a.skip:
            test_two_sources(work, checker, pool)
        for p in programs():
            if (a.only and p.name != a.only) or p.name in a.skip:
                continue
            try:
                test_program(p, work, checker, pool)
            except RuntimeError as e:
                checker.check(False, p.name + ": builds", str(e))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()

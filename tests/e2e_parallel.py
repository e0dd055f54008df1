#!/usr/bin/env python3
"""Differential test of mtpc-parallel in the real hosts.

Every build below is compared with the stock build of the same program by
the same host (same flags, no plugin): the program's output must be equal,
and the stats (MTPC_STATS) must show the module was really split.

  * clang-16 -fpass-plugin, automatic mode, forced split (MTPC_MIN_SIZE=0,
    MTPC_PARTITIONS=8) at -O0, -O2 and -Os, on our C and C++ programs,
    and at -O2 on sqlite3, and with --long on HarfBuzz (C++, its unity
    build, driven by its shaping benchmark), QuickJS (a JavaScript
    engine's 54,000-line core, running a script) and raylib's raudio.c
    (miniaudio and six decoders in one file, converting,
    resampling and re-encoding audio), whose checks take as long as the
    rest together; for C++, the object defines no weak symbol (an
    inline function, a template) that stock's left out and nothing in it
    uses: every partition drops the copies it inlined;
  * -g: llvm-dwarfdump --verify finds no error, and gdb stops in functions
    at the same file and line as in the stock build; in C++, no class with
    an ODR identifier is described in full more often than in stock's
    object, every class a unit declares is described in one, and gdb's
    ptype of C++ objects lists the same members as in the stock build;
  * MTPC_THREADS=1 and 2 give byte-identical objects;
  * the object the host assembles from the parts'
    objects, transcribed, has the code, symbols and relocations of the one
    it assembles from the text (MTPC_WRITE_OBJECT=0), under settings the
    object's bytes depend on (the locals the split promoted read as the
    locals the transcript makes them again), and every local function and
    variable of stock's object that it defines is local there under its
    own name; clang 22, where the partitions print text: the object mtpc
    assembles and its pre-codegen callback writes is byte for byte the
    host's assembly of the same text;
  * a failure injected in one partition: a warning, the module compiled
    whole, the program still correct;
  * opt-16 -passes='mtpc-parallel<...>' then llc-16;
  * ld.lld-16 ThinLTO with --load-pass-plugin (automatic in the backends,
    and explicit with --lto-newpm-passes), and the pre-link compile left as
    bitcode;
  * the host's settings reach the partitions (-ffunction-sections);
  * compiled -fPIC, the split object links -shared as stock's does; with
    -fno-semantic-interposition, a library's calls across partitions bind to
    its own definitions, as stock's do;
  * invalid MTPC_* values: a clear message and a normal build;
  * MTPC_CODE_GENERATION_ONLY (the optimization whole, the code
    generation split), on our C and C++ programs and sqlite3: the same
    output, stock's functions each of stock's size but for a few, the same
    object whatever the thread count, and stock's object byte for byte
    after a failure injected in one partition, or with -fmerge-functions
    (whose pass mtpc does not run ahead of the host);
  * sqlite3 with default settings (the cost model): split at -O2, whole
    (stock's object) at -O0; with every core busy, its optimization whole
    at -O2 too and its code generation split all the same, the partitions
    one after the other (whole, stock's object, with
    MTPC_WAIT_FOR_CORES=0), and with SOURCE_DATE_EPOCH split into the idle
    machine's object; busy while the module's optimization begins and idle
    once it ends, whole, then its code generation split; busy until its
    code generation is split, the second partition beside the first once
    a core frees.

  tests/e2e_parallel.py [--long] [--only NAME] [--skip NAME] [--skip-check busy-machine|code-generation-split]
Prints one line per check and 'N passed, N failed' at the end.
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from harness import (LLVM_MAJOR, PARTS_TRANSCRIBED, PLUGIN, PROGRAMS_DIR, PROMOTED_LOCAL, QUICKJS_FLAGS, QUICKJS_OTHER_SOURCES, SQLITE_DEFINES, Checker, dwarf_verify_errors, gdb_answers, line_rows, line_table_offsets, object_contents, parts_transcribed, require_plugin, harfbuzz_dir, quickjs_dir, raylib_dir, run,
                     sqlite_dir, stop_location, tool)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
import calls  # noqa: E402

FORCE_SPLIT = {"MTPC_MIN_SIZE": "0", "MTPC_PARTITIONS": "8"}


class Program:
    def __init__(self, name, source, cxx=False, cflags=(), extra=(), libs=(), args=(), functions=(),
                 coverage_tolerance=None):
        self.name, self.source, self.cxx = name, source, cxx
        self.cflags, self.extra, self.libs = list(cflags), list(extra), list(libs)
        self.args, self.functions = list(args), list(functions)
        self.coverage_tolerance = COVERAGE_TOLERANCE if coverage_tolerance is None else coverage_tolerance

    @property
    def driver(self):
        return tool("clang++") if self.cxx else tool("clang")


# Large programs, checked with --long (or --only NAME).
LARGE = ("harfbuzz", "quickjs", "raudio")


def programs(large):
    yield Program("constructs-c", os.path.join(PROGRAMS_DIR, "constructs.c"), cflags=["-fcommon"], libs=["-lpthread"],
                  functions=["work_a", "work_b", "work_c", "impl_sum"])
    yield Program("constructs-cpp", os.path.join(PROGRAMS_DIR, "constructs.cpp"), cxx=True,
                  functions=["parse_number", "total_area", "Rect::area"])
    sq = sqlite_dir()
    yield Program("sqlite3", os.path.join(sq, "sqlite3.c"),
                  cflags=["-I" + sq] + SQLITE_DEFINES,
                  extra=[os.path.join(PROGRAMS_DIR, "sqlite_workload.c")], libs=["-lm"], args=["1000"],
                  functions=["sqlite3_exec", "sqlite3VdbeExec"])
    if not large:
        return
    hb = harfbuzz_dir()
    yield Program("harfbuzz", os.path.join(hb, "src", "harfbuzz.cc"), cxx=True,
                  cflags=["-std=c++11", "-DHAVE_PTHREAD=1", "-I" + os.path.join(hb, "src")],
                  extra=[os.path.join(PROGRAMS_DIR, "harfbuzz_workload.cc")], libs=["-lpthread"], args=[hb, "1"],
                  functions=["hb_shape_plan_execute", "hb_buffer_add_utf8"])
    qjs = quickjs_dir()
    yield Program("quickjs", os.path.join(qjs, "quickjs.c"), cflags=["-I" + qjs] + QUICKJS_FLAGS,
                  extra=[os.path.join(PROGRAMS_DIR, "quickjs_workload.c")]
                  + [os.path.join(qjs, f) for f in QUICKJS_OTHER_SOURCES],
                  libs=["-lm", "-lpthread"], args=["1"], functions=["JS_Eval", "JS_CallInternal"],
                  # Its partitions inline more calls otherwise than the whole
                  # module (about 390 of 8,157 calls either way, against 67 in
                  # sqlite3): 0.55 points less coverage with 8 partitions,
                  # 0.7 with 2 (inlining parity on QuickJS is not tuned yet).
                  coverage_tolerance=1.0)
    ra = raylib_dir()
    yield Program("raudio", os.path.join(ra, "raudio.c"), cflags=["-DPLATFORM_DESKTOP", "-I" + ra],
                  extra=[os.path.join(PROGRAMS_DIR, "raudio_workload.c"), os.path.join(ra, "utils.c")],
                  libs=["-lm", "-lpthread", "-ldl"], args=["4"], functions=["WaveFormat", "ma_convert_frames"])


def env_with(**extra):
    env = dict(os.environ)
    for k in ("MTPC_THREADS", "MTPC_PARTITIONS", "MTPC_MIN_SIZE", "MTPC_DISABLE", "MTPC_STATS",
              "MTPC_TEST_FAIL_PARTITION", "MTPC_TEST_BREAK_PARTITION", "MTPC_LOG", "MTPC_MACHINE_SLOTS",
              "MTPC_LOAD_AWARE", "MTPC_WAIT_FOR_CORES", "MTPC_WRITE_OBJECT", "MTPC_CODE_GENERATION_ONLY",
              "SOURCE_DATE_EPOCH"):
        env.pop(k, None)
    env.update(extra)
    return env


def read_stats(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def compile_extras(p, work, tag, flags):
    """Compiles p's other sources (never with the plugin); returns their objects."""
    objs = []
    for src in p.extra:
        obj = os.path.join(work, "%s.%s.o" % (os.path.basename(src), tag))
        run([p.driver] + flags + p.cflags + ["-c", src, "-o", obj])
        objs.append(obj)
    return objs


def compile_and_link(p, work, tag, flags, env=None, plugin=True):
    """Compiles p's module (with or without the plugin) and links the program."""
    obj = os.path.join(work, "%s.%s.o" % (p.name, tag))
    cmd = [p.driver] + flags + p.cflags + ["-c", p.source, "-o", obj]
    if plugin:
        cmd.insert(1, "-fpass-plugin=" + PLUGIN)
    run(cmd, env=env or env_with())
    extra_objs = compile_extras(p, work, tag, flags)
    exe = os.path.join(work, "%s.%s" % (p.name, tag))
    run([p.driver] + flags + [obj] + extra_objs + ["-o", exe] + p.libs)
    return obj, exe


def split_happened(stats, what):
    """(ok, what, detail) for Checker.check: some module was split, no fallback."""
    ok = any(s["partitions"] > 1 and not s["fallback"] for s in stats)
    return ok, what, "stats: %s" % json.dumps(stats)[:600]


def definitions(obj):
    """{name: nm type} of what obj defines; a promoted local (NAME.mtpc.HASH),
    a local alias (NAME.mtpc.local) or a local the merge renamed per partition
    (NAME.mtpcK) as NAME."""
    out = run([tool("llvm-nm"), "--defined-only", obj])
    return {re.sub(r"\.mtpc(\.[0-9a-f]+(\.\d+)?|\.local(\.\d+)?|\d+)$", "", f[2]): f[1]
            for f in (line.split() for line in out.splitlines()) if len(f) == 3}


def weak_definitions(obj):
    """The weak symbols obj defines (C++ inline functions and templates,
    their static data, copied local functions)."""
    return {name for name, kind in definitions(obj).items() if kind in "WV"}


PROMOTED = re.compile(r"\.mtpc(\.[0-9a-f]+(\.\d+)?|\.local(\.\d+)?|\d+)$")


def used_and_aliased(obj):
    """(what obj's code and data use: names relocations name or calls reach
    (a call to a local needs no relocation); symbols another symbol names
    the same place as: an alias and its aliasee)."""
    used = set(calls.callees(obj))
    for line in run([tool("llvm-readelf"), "-r", "--wide", obj]).splitlines():
        f = line.split()
        if len(f) >= 5 and f[2].startswith("R_X86_64"):
            used.add(PROMOTED.sub("", f[4]))
    places = {}
    for line in run([tool("llvm-readelf"), "-s", "--wide", obj]).splitlines():
        f = line.split()
        # "   12: 0000000000000040    23 FUNC    WEAK   HIDDEN     5 name"
        if len(f) == 8 and f[0].endswith(":") and f[3] in ("FUNC", "OBJECT", "TLS") and f[6] not in ("UND", "ABS"):
            places.setdefault((f[6], f[1]), []).append(PROMOTED.sub("", f[7]))
    return used, {n for names in places.values() if len(names) > 1 for n in names}


# Weak definitions stock's object lacks that mtpc's may keep because a
# partition still calls them where stock's whole module inlined every call
# (a few inlining decisions differ: bench/inlining.py counts them), as a
# share of its weak definitions. Without the copies every partition makes
# of the inline functions it uses, they are most of them (DuckDB, HarfBuzz).
# LLVM 22 inlines a few calls fewer across partitions (HarfBuzz: 6 of its
# 1049 weak definitions).
KEPT_WEAK_SHARE = 0.01 if LLVM_MAJOR >= 22 else 0.005


def test_clang(p, work, checker, levels):
    for level in levels:
        label = "%s clang %s" % (p.name, level)
        try:
            stock_obj, stock = compile_and_link(p, work, "stock" + level, [level], plugin=False)
            expected = run([stock] + p.args)
            stats = os.path.join(work, "%s.clang%s.jsonl" % (p.name, level))
            obj, exe = compile_and_link(p, work, "mtpc" + level, [level], env=env_with(MTPC_STATS=stats, **FORCE_SPLIT))
            out = run([exe] + p.args)
        except RuntimeError as e:
            checker.check(False, label + ": builds and runs", str(e))
            continue
        checker.check(*split_happened(read_stats(stats), label + ": the module was split"))
        checker.check(out == expected, label + ": output equals the stock build's",
                      "expected:\n%s\ngot:\n%s" % (expected[-1500:], out[-1500:]))
        checker.check(*locals_as_stock(stock_obj, obj, label))
        if p.cxx:
            # Each partition copies the inline functions it uses and drops
            # those it inlined, as a translation unit does: a body stock's
            # whole module discarded is kept only where a partition still
            # calls it (a call the partition did not inline: the inlining
            # measurement counts those), never for nothing.
            weak = weak_definitions(obj)
            used, aliased = used_and_aliased(obj)
            # An alias's aliasee stock renamed to the alias's name is there.
            kept = weak - set(definitions(stock_obj)) - aliased
            unused = sorted(kept - used)
            checker.check(not unused and len(kept) <= KEPT_WEAK_SHARE * len(weak),
                          label + ": no weak definition that stock's object lacks, but a few that a partition still "
                          "calls (%d of %d weak)" % (len(kept), len(weak)),
                          "kept for nothing: %s\nkept: %s" % (unused[:20], sorted(kept)[:20]))


def defined_symbols(obj):
    """{name: nm type} of what obj defines, names as they are."""
    out = run([tool("llvm-nm"), "--defined-only", obj])
    return {f[2]: f[1] for f in (line.split() for line in out.splitlines()) if len(f) == 3}


def locals_as_stock(stock_obj, obj, label):
    """(ok, what, detail) for Checker.check: where the parts' objects or
    texts meet, a local the split promoted (NAME.mtpc.HASH, hidden) is
    local again: every local function and variable of stock's
    object that mtpc's defines is local there under its own name, and no
    function keeps a promoted name."""
    stock, mtpc = defined_symbols(stock_obj), defined_symbols(obj)
    stock_locals = {n: k for n, k in stock.items() if k in "tdbr" and not n.startswith(".L")}
    renamed = {PROMOTED_LOCAL.sub("", n): k for n, k in mtpc.items() if PROMOTED_LOCAL.search(n)}
    not_local = sorted(n for n in stock_locals if n not in mtpc and n in renamed)
    promoted_functions = sorted(n for n, k in renamed.items() if k in "TtWw")
    return (not not_local and not promoted_functions,
            label + ": the object's locals are stock's, under their own names (%d of %d stock's object defines)"
            % (sum(1 for n in stock_locals if mtpc.get(n) == stock_locals[n]), len(stock_locals)),
            "still promoted: %s\nfunctions under a promoted name: %s" % (not_local[:20], promoted_functions[:20]))


# How far below stock's the share of variables' scopes that a location
# covers may be (in points): partitions inline a few calls otherwise than
# the whole module, which moves variables between functions.
COVERAGE_TOLERANCE = 0.5


def location_coverage(obj):
    """The share (in %) of the variables' scopes, in bytes of code, that a
    location covers (llvm-dwarfdump --statistics)."""
    s = json.loads(run([tool("llvm-dwarfdump"), "--statistics", obj]))
    return 100.0 * s["sum_all_variables(#bytes in parent scope covered by DW_AT_location)"] / \
        s["sum_all_variables(#bytes in parent scope)"]


# gdb's questions about C++ types at a breakpoint: (function, commands).
TYPE_QUERIES = {
    "constructs-cpp": [("Rect::area", ["ptype this", "ptype Shape"]), ("total_area", ["ptype shapes"]),
                       ("parse_number", ["ptype s", "ptype ParseError"])],
    "harfbuzz": [("hb_shape_plan_execute", ["ptype shape_plan", "ptype font", "ptype buffer"])],
}

def members(ptype):
    """What gdb's `ptype` answer lists, in any order, without access labels."""
    return sorted(l.strip() for l in ptype.splitlines() if l.strip() not in ("", "public:", "private:", "protected:"))


def test_debug_info(p, work, checker):
    label = "%s clang -O2 -g" % p.name
    try:
        stock_obj, stock = compile_and_link(p, work, "stockg", ["-O2", "-g"], plugin=False)
        stats = env_with(MTPC_STATS=os.path.join(work, p.name + ".g.jsonl"), **FORCE_SPLIT)
        obj, exe = compile_and_link(p, work, "mtpcg", ["-O2", "-g"], env=stats)
    except RuntimeError as e:
        checker.check(False, label + ": builds", str(e))
        return
    errors = dwarf_verify_errors(obj, like=stock_obj)
    checker.check(not errors, label + ": llvm-dwarfdump --verify finds no error", "\n".join(errors)[-2000:])
    a, b = location_coverage(stock_obj), location_coverage(obj)
    checker.check(b >= a - p.coverage_tolerance,
                  label + ": variables' locations cover %.2f %% of their scopes (stock %.2f %%)" % (b, a))
    # Calls are described (DW_TAG_call_site, with their arguments' values)
    # also where the callee is another partition's (shim/debug_info.cpp):
    # as many as stock's but for what the partitions inline otherwise.
    a, b = described_calls(stock_obj), described_calls(obj)
    checker.check(b >= 0.9 * a, label + ": %d calls described, stock %d" % (b, a))
    for f in p.functions:
        a, b = stop_location(stock, f, p.args), stop_location(exe, f, p.args)
        checker.check(a == b, label + ": gdb stops in %s at %s as in the stock build" % (f, a), "stock %s, mtpc %s" % (a, b))
    if p.cxx:
        # A C++ class several partitions use is described in full by one of
        # them, declared by the others (shim/debug_types.cpp): none with an
        # ODR identifier more often than in stock's one unit. (A class
        # without one, which clang gives no name other units could find it
        # by, is described by each unit using it.)
        (a, _, a_members), (b, declared, b_members) = class_descriptions(stock_obj), class_descriptions(obj)
        odr = odr_class_names(p)
        extra = sorted((n for n in b if n[-1] in odr and b[n] > a.get(n, 0)), key=lambda n: b[n] - a.get(n, 0), reverse=True)
        checker.check(not extra,
                      label + ": classes described in full %d times, stock %d" % (sum(b.values()), sum(a.values())),
                      "described more often than in stock: %s" % ["%s (%d, stock %d)" % ("::".join(n), b[n], a.get(n, 0)) for n in extra[:15]])
        # A class a unit declares and stock describes is described somewhere.
        missing = sorted(n for n in declared if n[-1] in odr and a.get(n) and not b.get(n))
        checker.check(not missing, label + ": every class a unit declares (%d) and stock describes is described" % len(declared),
                      "declared only: %s" % ["::".join(n) for n in missing[:15]])
        # A class's full description lists every member function stock's
        # does, whichever partition emits it (shim ClassMemberListing);
        # it may list more: those stock's optimizer removed entirely.
        lacking = {n: a_members[n] - b_members.get(n, set()) for n in a_members if n[-1] in odr and b.get(n)}
        lacking = {n: m for n, m in lacking.items() if m}
        more = sum(len(m - a_members.get(n, set())) for n, m in b_members.items())
        checker.check(not lacking,
                      label + ": classes' full descriptions list the %d member functions stock's list (and %d more)"
                      % (sum(len(a_members[n]) for n in a_members if n[-1] in odr and b.get(n)), more),
                      "lacking: %s" % ["%s: %s" % ("::".join(n), sorted(m)[:3]) for n, m in list(lacking.items())[:10]])
        declared = sum(x["classes_declared"] for s in read_stats(stats["MTPC_STATS"]) for x in s["parts"])
        checker.check(declared > 0, label + ": partitions declare %d classes another one describes" % declared)
        # A template parameter whose value is an address (template <void
        # (*F)()>) gives it, as in stock's object, also where the partition
        # describing the class does not have the function (symbol_rules
        # declare_what_metadata_names).
        a, b = template_values_with_address(stock_obj), template_values_with_address(obj)
        checker.check(a == b, label + ": template parameters give their address as in stock's object (%d)" % sum(a.values()),
                      "stock %s\nmtpc %s" % (sorted(a.items()), sorted(b.items())))
    # Where a partition declares a class, gdb finds its definition elsewhere:
    # the same members (the declarations of member templates' instances are
    # written where their definitions are, so in another order).
    for f, commands in TYPE_QUERIES.get(p.name, []):
        try:
            a, b = gdb_answers(stock, f, commands, p.args), gdb_answers(exe, f, commands, p.args)
        except RuntimeError as e:
            checker.check(False, label + ": gdb answers %s in %s" % (" and ".join(commands), f), str(e)[-1500:])
            continue
        checker.check([members(x) for x in a] == [members(x) for x in b] and len(a) == len(commands) and all("type = " in x for x in a),
                      label + ": in %s, gdb's %s answer as in the stock build" % (f, " and ".join(commands)),
                      "stock:\n%s\nmtpc:\n%s" % ("\n".join(a)[-1500:], "\n".join(b)[-1500:]))


CLASS_TAGS = ("class_type", "structure_type", "union_type")


def described_calls(obj):
    """How many calls `obj`'s debug information describes (DW_TAG_call_site)."""
    return sum(1 for line in run([tool("llvm-dwarfdump"), "--debug-info", obj]).splitlines()
               if re.match(r"0x[0-9a-f]+: +DW_TAG_call_site$", line))


def template_values_with_address(obj):
    """How many template value parameters of classes, of each name, give a
    location (an address: DW_AT_location) in `obj`'s debug information.
    (Not those of functions: a declaration of a function template that a
    partition calls elsewhere lists its template parameters too.)"""
    found, stack, counted, name = collections.Counter(), [], False, None
    for line in run([tool("llvm-dwarfdump"), "--debug-info", obj]).splitlines():
        die = re.match(r"0x[0-9a-f]+:( +)DW_TAG_(\w+)", line)
        if die:
            del stack[len(die.group(1)) // 2:]
            counted = die.group(2) == "template_value_parameter" and bool(stack) and stack[-1] in CLASS_TAGS
            stack.append(die.group(2))
            name = None
            continue
        if not counted:
            continue
        named = re.search(r'DW_AT_name\s+\("(.*)"\)', line)
        if named:
            name = named.group(1)
        if "DW_AT_location" in line:
            found[name] += 1
    return found


def class_descriptions(obj):
    """The class, structure and union types `obj`'s DWARF describes, by
    qualified name (a tuple: enclosing namespaces and classes, then the
    type's name): how many times in full, the set of those it declares
    somewhere, and the member functions their full descriptions list (by
    linkage name, else name; the union of every description of a class).
    Not those local to a function, an anonymous namespace or an unnamed
    type, whose names may repeat."""
    counts, declared, members, stack = {}, set(), {}, []

    def record(die):
        parent = stack[-2] if len(stack) > 1 else None
        if die["tag"] == "subprogram" and parent and parent.get("key") and not parent["declaration"]:
            members.setdefault(parent["key"], set()).add(die["linkage"] or die["name"])
        if die["tag"] not in CLASS_TAGS or die["name"] is None or die["local"]:
            return
        key = tuple(a["name"] or "" for a in stack[:-1] if a["tag"] in CLASS_TAGS + ("namespace",)) + (die["name"],)
        die["key"] = key
        if die["declaration"]:
            declared.add(key)
        else:
            counts[key] = counts.get(key, 0) + 1

    for line in run([tool("llvm-dwarfdump"), "--debug-info", obj]).splitlines():
        found = re.match(r"0x[0-9a-f]+:( +)DW_TAG_(\w+)", line)
        if found:
            if stack and not stack[-1]["recorded"]:
                record(stack[-1])
                stack[-1]["recorded"] = True
            del stack[len(found.group(1)) // 2:]
            local = any(a["local"] or a["tag"] in ("subprogram", "lexical_block") or
                        (a["tag"] == "namespace" and a["name"] is None) for a in stack)
            stack.append({"tag": found.group(2), "name": None, "linkage": None, "declaration": False, "local": local,
                          "recorded": False})
            continue
        if not stack:
            continue
        die = stack[-1]
        name = re.search(r'DW_AT_name\s+\("(.*)"\)', line)
        if name and die["name"] is None:
            die["name"] = name.group(1)
            die["local"] |= "(unnamed" in die["name"] or "(anonymous" in die["name"]
        linkage = re.search(r'DW_AT_linkage_name\s+\("(.*)"\)', line)
        if linkage and die["linkage"] is None:
            die["linkage"] = linkage.group(1)
        die["declaration"] |= "DW_AT_declaration" in line
    if stack and not stack[-1]["recorded"]:
        record(stack[-1])
    return counts, declared, members


def odr_class_names(p):
    """The names of the classes that p's module (stock's front end, -g)
    gives an ODR identifier to, and to no class without one: those the
    partitions describe once."""
    ir = run([p.driver, "-O2", "-g", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", "-o", "-"] + p.cflags + [p.source])
    with_id, without = set(), set()
    for line in ir.splitlines():
        found = re.search(r'DICompositeType\(tag: DW_TAG_(?:class|structure|union)_type, name: "((?:[^"\\]|\\.)*)"', line)
        if found and "DIFlagFwdDecl" not in line:
            (with_id if "identifier: " in line else without).add(found.group(1))
    return with_id - without


def test_determinism(p, work, checker):
    """Both compiles must really split (one stats line each, at least two
    partitions, no fallback): two stock objects would be identical too."""
    objs, counts = [], []
    for threads in ("1", "2"):
        stats = os.path.join(work, "%s.threads%s.jsonl" % (p.name, threads))
        obj, _ = compile_and_link(p, work, "threads" + threads, ["-O2"],
                                  env=env_with(MTPC_THREADS=threads, MTPC_STATS=stats, **FORCE_SPLIT))
        with open(obj, "rb") as f:
            objs.append(f.read())
        s = read_stats(stats)
        checker.check(len(s) == 1 and s[0]["partitions"] >= 2 and not s[0]["fallback"],
                      "%s MTPC_THREADS=%s: the module was split (no fallback)" % (p.name, threads),
                      "stats: %s" % json.dumps(s)[:600])
        counts.append([x["partitions"] for x in s])
    checker.check(objs[0] == objs[1] and counts[0] == counts[1],
                  "%s: MTPC_THREADS=1 and 2 give byte-identical objects (%s partitions)" % (p.name, counts[0]),
                  "partitions: %s" % counts)


# The failures injected by the fallback test: (what, variable, file tag,
# compile flags, text the stats give as the reason). A panic in partition 1's job; and
# partition 1 left invalid, as a bug in the symbol rules would, in a -g build,
# where LLVM's own checks of a module with debug info (its bitcode upgrades,
# the code generator's) would abort the compile on it unless the partition is
# verified first.
INJECTED_FAILURES = [
    ("a panic injected in partition 1", "MTPC_TEST_FAIL_PARTITION", "fbfail", ["-O2"], "injected"),
    ("partition 1 left invalid, -g", "MTPC_TEST_BREAK_PARTITION", "fbbreak", ["-O2", "-g"], "fails the verifier"),
]


def test_fallback(p, work, checker):
    for what, var, tag, flags, reason in INJECTED_FAILURES:
        label = "%s with %s" % (p.name, what)
        stock_obj, stock = compile_and_link(p, work, "stock" + tag, flags, plugin=False)
        expected = run([stock] + p.args)
        stats = os.path.join(work, "%s.%s.jsonl" % (p.name, tag))
        obj = os.path.join(work, "%s.%s.o" % (p.name, tag))
        env = env_with(MTPC_STATS=stats, **{var: "1"}, **FORCE_SPLIT)
        r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + p.cflags + ["-c", p.source, "-o", obj],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        checker.check(r.returncode == 0, label + ": the compile succeeds", r.stderr[-2000:])
        checker.check("compiling the module whole instead" in r.stderr and r.stderr.count("warning") == 1,
                      label + ": one warning says the module is compiled whole", r.stderr[-2000:])
        s = read_stats(stats)
        checker.check(len(s) == 1 and s[0]["fallback"] and reason in (s[0]["fallback_reason"] or ""),
                      label + ": the stats record the fallback", json.dumps(s)[:500])
        with open(obj, "rb") as a, open(stock_obj, "rb") as b:
            checker.check(a.read() == b.read(), label + ": the object is the stock compile's, byte for byte")
        extra_objs = compile_extras(p, work, tag, flags)
        exe = os.path.join(work, "%s.%s" % (p.name, tag))
        run([p.driver, obj] + extra_objs + ["-o", exe] + p.libs)
        checker.check(run([exe] + p.args) == expected, label + ": the program is still correct")


def compile_by_default(p, work, checker, label, tag, flags, **env):
    """Compiles p's module with the plugin's default settings (2 threads,
    info log, stats); returns (object, stderr, the model's stats of its first
    decision or None, the stats of a second, on its code generation, or None)."""
    stats, obj = os.path.join(work, "%s.%s.jsonl" % (p.name, tag)), os.path.join(work, "%s.%s.o" % (p.name, tag))
    r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + p.cflags + ["-c", p.source, "-o", obj],
                       env=env_with(MTPC_STATS=stats, MTPC_THREADS="2", MTPC_LOG="info", **env),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    checker.check(r.returncode == 0, label + ": the compile succeeds", r.stderr[-2000:])
    s = read_stats(stats)
    first = s[0] if s and s[0].get("model") and not s[0]["code_generation_only"] else None
    second = s[1] if len(s) == 2 and s[1]["code_generation_only"] else None
    return obj, r.stderr, (first if len(s) == 1 + (second is not None) else None), second


def test_cost_model(p, work, checker):
    """Default settings on 2 threads: the cost model splits the optimized
    compile, and leaves the -O0 one whole (its back end is shorter than
    assembling the partitions' text again), which is then stock's."""
    for flags, split in ((["-O2"], True), (["-O0"], False)):
        label = "%s %s, default settings" % (p.name, " ".join(flags))
        # The model's decision on the module, whatever else the machine runs
        # (test_busy_machine is the load's test).
        obj, stderr, s, _ = compile_by_default(p, work, checker, label, "model" + flags[0], flags, MTPC_LOAD_AWARE="0")
        if split:
            checker.check(s is not None and s["partitions"] == 2 and s["model"]["whole_reason"] is None,
                          label + ": the cost model splits it in 2", json.dumps(s)[:800])
            continue
        checker.check(s is not None and s["partitions"] == 1 and "does not pay" in (s["model"]["whole_reason"] or ""),
                      label + ": the cost model leaves it whole, and the stats say why", json.dumps(s)[:800])
        checker.check("does not pay" in stderr and "warning" not in stderr,
                      label + ": one info line says why, no warning", stderr[-2000:])
        stock_obj = os.path.join(work, "%s.model-stock%s.o" % (p.name, flags[0]))
        run([p.driver] + flags + p.cflags + ["-c", p.source, "-o", stock_obj])
        with open(obj, "rb") as a, open(stock_obj, "rb") as b:
            checker.check(a.read() == b.read(), label + ": the object is the stock compile's, byte for byte")


def spinning_processes(count):
    """Processes that keep `count` cores busy until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def jobs_overlap(stats):
    """Whether two of a split's partition jobs ran side by side: one started
    before another ended (each part's `jobs_unix_ms`: its build, then its
    code generation)."""
    jobs = sorted(tuple(job) for part in stats["parts"] for job in part["jobs_unix_ms"])
    return any(later[0] < earlier[1] for earlier, later in zip(jobs, jobs[1:]))


# Where the parts' objects are transcribed (clang), a long code
# generation is split on a busy machine, its partitions waiting for a core;
# where they print text, that split would cost too much if none freed.
WAITS_FOR_CORES = PARTS_TRANSCRIBED


def test_busy_machine(p, work, checker):
    """Default settings on a machine whose every core is busy (the other
    compiles of a parallel build): the module's optimization is left whole,
    as stock runs it, since its partitions could not run side by side; its
    code generation, long enough to bet on a core freeing, is split all the
    same (WAITS_FOR_CORES: where the parts' objects are transcribed), its partitions one after the other
    while no core frees, into the object an idle machine gives at the end
    of the optimization (test_busy_then_idle's, which runs first). With
    MTPC_WAIT_FOR_CORES=0, or where it would not wait, it stays whole:
    stock's object. With SOURCE_DATE_EPOCH (a reproducible
    build) the load is not looked at: the object is the one an idle machine
    gives. Runs after test_cost_model and test_clang, whose -O2 objects it
    compares with."""
    idle_split = os.path.join(work, "%s.model-O2.o" % p.name)
    stock = os.path.join(work, "%s.stock-O2.o" % p.name)
    idle_code_generation = os.path.join(work, "%s.busyidle.o" % p.name)
    spinners = spinning_processes(len(os.sched_getaffinity(0)))
    try:
        time.sleep(0.5)
        for n, (extra, kind) in enumerate((({}, "waits" if WAITS_FOR_CORES else "whole"), ({"MTPC_WAIT_FOR_CORES": "0"}, "whole"),
                                           ({"SOURCE_DATE_EPOCH": "1700000000"}, "split"))):
            label = "%s -O2, default settings, every core busy%s" % (p.name, "".join(", %s=%s" % kv for kv in extra.items()))
            obj, stderr, s, later = compile_by_default(p, work, checker, label, "busy%d" % n, ["-O2"], **extra)
            model = (s or {}).get("model") or {}
            later_model = (later or {}).get("model") or {}
            if kind == "split":
                checker.check(s is not None and s["partitions"] == 2 and model["load"] is None and later is None,
                              label + ": the load is not looked at, the module is split", json.dumps(s)[:800])
                same_as = idle_split
            else:
                checker.check(s is not None and s["partitions"] == 1 and "machine is busy" in
                              (model["whole_reason"] or "") and (model["load"] or {}).get("busy", 0) >= 1
                              and model["lanes"] == 1 and model["whole_for_load"],
                              label + ": its optimization left whole, and the stats say the machine was busy", json.dumps(s)[:800])
            if kind == "whole":
                checker.check(later is not None and later["partitions"] == 1
                              and "machine is busy" in (later_model.get("whole_reason") or ""),
                              label + ": its code generation whole too, the machine still busy once it was optimized",
                              json.dumps(later)[:800])
                checker.check("machine is busy" in stderr and "warning" not in stderr,
                              label + ": one info line says why, no warning", stderr[-2000:])
                same_as = stock
            if kind == "waits":
                checker.check(later is not None and later["partitions"] == 2 and not later["fallback"]
                              and later_model.get("waits_for_cores") and later_model.get("lanes") == 1
                              and (later_model.get("load") or {}).get("busy", 0) >= 1,
                              label + ": its code generation split all the same, the partitions waiting for a core",
                              json.dumps(later)[:1500])
                checker.check(later is not None and later["partitions"] == 2 and not jobs_overlap(later),
                              label + ": no core freed, so the partitions ran one after the other",
                              json.dumps((later or {}).get("parts"))[:1500])
                checker.check("partitions waited for cores: at most 1 at once" in stderr and "warning" not in stderr,
                              label + ": an info line for each decision, no warning", stderr[-2000:])
                same_as = idle_code_generation
            checker.check(os.path.exists(obj) and os.path.exists(same_as) and open(obj, "rb").read() == open(same_as, "rb").read(),
                          label + ": the object is byte for byte %s" % {
                              "split": "the idle machine's split one", "whole": "the stock compile's",
                              "waits": "the one of its code generation split on an idle machine"}[kind])
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def test_busy_until_code_generation(p, work, checker):
    """Default settings, every core busy until the module's code generation
    has been split (spinners stopped once the debug log says its partitions
    wait): the second partition starts beside the first, on the core that
    freed. The object is the one an idle machine gives at the end of the
    optimization (test_busy_then_idle's); the program is stock's. Only
    where the code generation waits for cores (WAITS_FOR_CORES)."""
    label = "%s -O2, default settings, busy until its code generation is split" % p.name
    stats = os.path.join(work, "%s.busyfreed.jsonl" % p.name)
    obj = os.path.join(work, "%s.busyfreed.o" % p.name)
    waiting = threading.Event()
    lines = []

    def read(stream):
        for line in stream:
            lines.append(line)
            if "waiting for a core to free" in line:
                waiting.set()

    spinners = spinning_processes(len(os.sched_getaffinity(0)))
    try:
        time.sleep(0.5)
        compile_ = subprocess.Popen([p.driver, "-fpass-plugin=" + PLUGIN, "-O2"] + p.cflags + ["-c", p.source, "-o", obj],
                                    env=env_with(MTPC_STATS=stats, MTPC_THREADS="2", MTPC_LOG="debug"),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        reader = threading.Thread(target=read, args=(compile_.stderr,))
        reader.start()
        while compile_.poll() is None and not waiting.wait(0.05):
            pass
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    compile_.wait()
    reader.join()
    stderr = "".join(lines)
    s = read_stats(stats)
    later = s[1] if len(s) == 2 and s[1]["code_generation_only"] else None
    checker.check(compile_.returncode == 0 and later is not None and later["partitions"] == 2 and not later["fallback"]
                  and (later["model"] or {}).get("waits_for_cores"),
                  label + ": its code generation split while the machine was busy", stderr[-1500:] + json.dumps(s)[:1500])
    checker.check(later is not None and jobs_overlap(later),
                  label + ": the second partition ran beside the first once a core freed",
                  json.dumps((later or {}).get("parts"))[:1500])
    idle = os.path.join(work, "%s.busyidle.o" % p.name)
    checker.check(os.path.exists(obj) and os.path.exists(idle) and open(obj, "rb").read() == open(idle, "rb").read(),
                  label + ": the object is byte for byte the one of its code generation split on an idle machine")
    extra_objs = compile_extras(p, work, "busyfreed", ["-O2"])
    exe = os.path.join(work, "%s.busyfreed" % p.name)
    run([p.driver, obj] + extra_objs + ["-o", exe] + p.libs)
    checker.check(run([exe] + p.args) == run([os.path.join(work, "%s.stock-O2" % p.name)] + p.args),
                  label + ": output equals the stock build's")


# Only the code generation split, into 3 partitions whatever the module.
CODE_GENERATION_ONLY = {"MTPC_CODE_GENERATION_ONLY": "1", "MTPC_MIN_SIZE": "0", "MTPC_PARTITIONS": "3"}

# The share of stock's functions whose code may differ in size when only
# the code generation is split: a jump to a function of another partition
# cannot be made short (2 bytes instead of 5), and a few functions read a
# constant another partition emits (sqlite3: 13 of 1,527 functions, 16 bytes
# of its 1,040,824 of code).
CODE_SIZE_CHANGED_SHARE = 0.02


def function_sizes(obj):
    """{name: bytes} of the functions obj defines (a promoted local as NAME;
    not the assembler's local labels, `.L...`, which LLVM 22 keeps as
    symbols where a transcript's .reloc names them)."""
    sizes = {}
    for f in (line.split() for line in run([tool("llvm-nm"), "-S", "--defined-only", obj]).splitlines()):
        if len(f) == 4 and f[2] in "tTwW" and not f[3].startswith(".L"):
            sizes[PROMOTED.sub("", f[3])] = int(f[1], 16)
    return sizes


def test_code_generation_split(p, work, checker):
    """MTPC_CODE_GENERATION_ONLY: clang's own pipeline optimizes the whole
    module and only its code generation is split (README, "The split of the
    code generation"). The partitions optimize nothing, so the program is
    stock's function by function: the same functions, nearly all of stock's
    size to the byte; the object is the same whatever the thread count;
    and a partition that fails leaves stock's object, byte for byte, though
    the host's last passes ran on the module before the split. Runs after
    test_clang, whose stock -O2 build it compares with."""
    label = "%s -O2, code generation only" % p.name
    stock_obj = os.path.join(work, "%s.stock-O2.o" % p.name)
    expected = run([os.path.join(work, "%s.stock-O2" % p.name)] + p.args)
    objs = []
    for threads in ("1", "2"):
        stats = os.path.join(work, "%s.cg%s.jsonl" % (p.name, threads))
        obj, exe = compile_and_link(p, work, "cg" + threads, ["-O2"],
                                    env=env_with(MTPC_STATS=stats, MTPC_THREADS=threads, **CODE_GENERATION_ONLY))
        s = read_stats(stats)
        checker.check(len(s) == 1 and s[0]["code_generation_only"] and s[0]["partitions"] >= 2 and not s[0]["fallback"],
                      "%s, MTPC_THREADS=%s: one split, of the code generation alone" % (label, threads),
                      json.dumps(s)[:800])
        with open(obj, "rb") as f:
            objs.append(f.read())
    checker.check(objs[0] == objs[1], label + ": MTPC_THREADS=1 and 2 give byte-identical objects")
    out = run([exe] + p.args)
    checker.check(out == expected, label + ": output equals the stock build's",
                  "expected:\n%s\ngot:\n%s" % (expected[-1500:], out[-1500:]))
    stock_sizes, sizes = function_sizes(stock_obj), function_sizes(obj)
    changed = sorted(n for n in stock_sizes if sizes.get(n) != stock_sizes[n])
    checker.check(set(sizes) == set(stock_sizes) and len(changed) <= CODE_SIZE_CHANGED_SHARE * len(stock_sizes),
                  "%s: stock's %d functions, %d of them not of stock's size" % (label, len(stock_sizes), len(changed)),
                  "only stock's: %s\nonly mtpc's: %s\nchanged: %s" % (sorted(set(stock_sizes) - set(sizes))[:20],
                                                                  sorted(set(sizes) - set(stock_sizes))[:20], changed[:20]))
    stats = os.path.join(work, "%s.cgfail.jsonl" % p.name)
    obj = os.path.join(work, "%s.cgfail.o" % p.name)
    r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN, "-O2"] + p.cflags + ["-c", p.source, "-o", obj],
                       env=env_with(MTPC_STATS=stats, MTPC_TEST_FAIL_PARTITION="1", **CODE_GENERATION_ONLY),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    s = read_stats(stats)
    checker.check(r.returncode == 0 and len(s) == 1 and s[0]["fallback"] and s[0]["code_generation_only"],
                  label + ", a panic injected in partition 1: the compile falls back", r.stderr[-1500:] + json.dumps(s)[:500])
    with open(obj, "rb") as a, open(stock_obj, "rb") as b:
        checker.check(a.read() == b.read(), label + ", a panic injected in partition 1: the object is stock's, byte for byte")
    if p.name != "constructs-c":
        return
    # -fmerge-functions puts a pass after the OptimizerLast callbacks that
    # could change the module run twice: the module is left whole.
    flags = ["-O2", "-Xclang", "-fmerge-functions"]
    stock_merged, obj = os.path.join(work, "%s.merged-stock.o" % p.name), os.path.join(work, "%s.merged.o" % p.name)
    run([p.driver] + flags + p.cflags + ["-c", p.source, "-o", stock_merged])
    r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + p.cflags + ["-c", p.source, "-o", obj],
                       env=env_with(MTPC_LOG="info", **CODE_GENERATION_ONLY), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(obj, "rb") as a, open(stock_merged, "rb") as b:
        checker.check(r.returncode == 0 and "passes mtpc cannot run ahead of it" in r.stderr and a.read() == b.read(),
                      label + ", -fmerge-functions: left whole, with one info line; stock's object, byte for byte",
                      r.stderr[-1500:])
    # Entry counts (IR written so; a profile's use gives them too): the
    # host's last passes, which mtpc runs ahead of the split, record the
    # call graph profile, in a module flag each of their runs adds to. Split,
    # each partition writes the edges from the functions it emits; after a
    # fallback, the host records the flag again, once mtpc erased its own.
    ir = os.path.join(work, "entry_counts.ll")
    with open(ir, "w") as f:
        f.write('target triple = "x86_64-pc-linux-gnu"\ndeclare i32 @g(i32)\n')
        for i in range(6):
            f.write("define i32 @f%d(i32 %%x) !prof !0 {\n  %%a = call i32 @g(i32 %%x)\n  %%b = add i32 %%a, %d\n  ret i32 %%b\n}\n" % (i, i))
        f.write('!0 = !{!"function_entry_count", i64 1000}\n')
    stock_counts = os.path.join(work, "entry_counts.stock.o")
    run([p.driver, "-O2", "-c", ir, "-o", stock_counts])
    for case, extra in (("split", {}), ("a panic injected in partition 1", {"MTPC_TEST_FAIL_PARTITION": "1"})):
        obj, stats = os.path.join(work, "entry_counts.o"), os.path.join(work, "entry_counts.jsonl")
        r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN, "-O2", "-c", ir, "-o", obj], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env_with(MTPC_STATS=stats, **CODE_GENERATION_ONLY, **extra))
        s = read_stats(stats)
        os.remove(stats) if os.path.exists(stats) else None
        edges = {o: run([tool("llvm-readobj"), "--cg-profile", o]).count("CGProfileEntry") for o in (stock_counts, obj)}
        with open(obj, "rb") as a, open(stock_counts, "rb") as b:
            same = a.read() == b.read()
        if extra:
            ok, what = r.returncode == 0 and len(s) == 1 and s[0]["fallback"] and same, "falls back; stock's object, byte for byte"
        else:
            ok = r.returncode == 0 and len(s) == 1 and s[0]["partitions"] >= 2 and not s[0]["fallback"] and edges[obj] == edges[stock_counts] == 6
            what = "split; the call graph profile's %d edges, each once" % edges[stock_counts]
        checker.check(ok, "functions with entry counts, code generation only, %s: %s" % (case, what),
                      r.stderr[-1500:] + json.dumps(s)[:400] + str(edges))
    # Annotation remarks, the host's last pass, report each function once:
    # from the partitions when split, from the host after a fallback (whose
    # last passes ran ahead of the split: mtpc left this one out). Compared
    # sorted: split, they come in partition order (README, Known limits).
    source = os.path.join(work, "auto_init.c")
    with open(source, "w") as f:
        f.write("void fill(char *buf, int n);\nint digest(const char *buf, int n);\n")
        for i in range(12):
            f.write("int f%d(int n) { char buf[%d]; fill(buf, n); return digest(buf, n) + %d; }\n" % (i, 32 + 8 * i, i))
    flags = ["-O2", "-ftrivial-auto-var-init=pattern", "-Rpass-analysis=annotation-remarks", "-c", source, "-o", os.devnull]
    remarks = lambda stderr: sorted(line for line in stderr.splitlines() if "remark:" in line)
    stock = remarks(subprocess.run([p.driver] + flags, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_with()).stderr)
    for what, extra in (("split", {}), ("a panic injected in partition 1", {"MTPC_TEST_FAIL_PARTITION": "1"})):
        stats = os.path.join(work, "auto_init.%s.jsonl" % len(extra))
        r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN] + flags, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env_with(MTPC_STATS=stats, **CODE_GENERATION_ONLY, **extra))
        s = read_stats(stats)
        checker.check(r.returncode == 0 and len(stock) >= 10 and remarks(r.stderr) == stock
                      and len(s) == 1 and s[0]["partitions"] == 3 and s[0]["fallback"] == bool(extra),
                      "-ftrivial-auto-var-init=pattern, code generation only, %s: stock's %d annotation remarks, each once" % (what, len(stock)),
                      "stock:\n%s\nmtpc:\n%s\n%s" % ("\n".join(stock), "\n".join(remarks(r.stderr)), json.dumps(s)[:500]))


def test_busy_then_idle(p, work, checker):
    """Default settings, every core busy when the module's optimization
    begins and free once it ends (spinners stopped as soon as the first
    decision is recorded): the module is left whole at first, and its code
    generation is split once clang's pipeline has optimized it. The
    program is stock's."""
    label = "%s -O2, default settings, busy then idle" % p.name
    stats = os.path.join(work, "%s.busyidle.jsonl" % p.name)
    obj = os.path.join(work, "%s.busyidle.o" % p.name)
    spinners = spinning_processes(len(os.sched_getaffinity(0)))
    try:
        time.sleep(0.5)
        compile_ = subprocess.Popen([p.driver, "-fpass-plugin=" + PLUGIN, "-O2"] + p.cflags + ["-c", p.source, "-o", obj],
                                    env=env_with(MTPC_STATS=stats, MTPC_THREADS="2", MTPC_LOG="info"),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while compile_.poll() is None and not read_stats(stats):
            time.sleep(0.05)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    _, stderr = compile_.communicate()
    s = read_stats(stats)
    first = (s[0].get("model") or {}) if s else {}
    checker.check(compile_.returncode == 0 and len(s) == 2 and "machine is busy" in (first.get("whole_reason") or ""),
                  label + ": left whole while the machine was busy", stderr[-1500:] + json.dumps(s)[:800])
    checker.check(len(s) == 2 and s[1]["code_generation_only"] and s[1]["partitions"] == 2 and not s[1]["fallback"],
                  label + ": its code generation split in 2 once optimized", json.dumps(s)[:1500])
    checker.check("code generation may be split" in stderr and "generating code (optimized whole)" in stderr
                  and "warning" not in stderr, label + ": an info line for each decision, no warning", stderr[-1500:])
    extra_objs = compile_extras(p, work, "busyidle", ["-O2"])
    exe = os.path.join(work, "%s.busyidle" % p.name)
    run([p.driver, obj] + extra_objs + ["-o", exe] + p.libs)
    checker.check(run([exe] + p.args) == run([os.path.join(work, "%s.stock-O2" % p.name)] + p.args),
                  label + ": output equals the stock build's")


def test_opt_llc(p, work, checker):
    label = "%s opt mtpc-parallel then llc" % p.name
    bc = os.path.join(work, p.name + ".unopt.bc")
    run([p.driver, "-O2", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", p.source, "-o", bc] + p.cflags)
    stats = os.path.join(work, p.name + ".opt.jsonl")
    out_bc = os.path.join(work, p.name + ".par.bc")
    run([tool("opt"), "-load-pass-plugin=" + PLUGIN, "-relocation-model=pic",
         "-passes=mtpc-parallel<O2;partitions=4;threads=2;min-size=0>", bc, "-o", out_bc], env=env_with(MTPC_STATS=stats))
    obj = out_bc + ".o"
    run([tool("llc"), "-O2", "-relocation-model=pic", "-filetype=obj", out_bc, "-o", obj])
    _, stock = compile_and_link(p, work, "stockopt", ["-O2"], plugin=False)
    exe = os.path.join(work, p.name + ".optllc")
    extra_objs = compile_extras(p, work, "ol", ["-O2"])
    run([p.driver, obj] + extra_objs + ["-o", exe] + p.libs)
    checker.check(*split_happened(read_stats(stats), label + ": the module was split"))
    checker.check(run([exe] + p.args) == run([stock] + p.args), label + ": output equals the stock build's")


def test_thinlto(p, work, checker):
    label = "%s ld.lld ThinLTO" % p.name
    flags = ["-O2", "-flto=thin"]
    pre = os.path.join(work, p.name + ".thin.o")
    stats = os.path.join(work, p.name + ".thin.jsonl")
    env = env_with(MTPC_STATS=stats, **FORCE_SPLIT)
    # Pre-link with the plugin loaded: the output must stay bitcode.
    run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + p.cflags + ["-c", p.source, "-o", pre], env=env)
    with open(pre, "rb") as f:
        checker.check(f.read(4) == b"BC\xc0\xde", label + ": the pre-link compile is left as bitcode")
    checker.check(read_stats(stats) == [], label + ": nothing was split before the link")
    extra_objs = compile_extras(p, work, "thin", flags)
    stock = os.path.join(work, p.name + ".thin.stock")
    run([p.driver, "-fuse-ld=lld", "-flto=thin", pre] + extra_objs + ["-o", stock] + p.libs)
    exe = os.path.join(work, p.name + ".thin.mtpc")
    run([p.driver, "-fuse-ld=lld", "-flto=thin", "-Wl,--load-pass-plugin=" + PLUGIN, pre] + extra_objs +
        ["-o", exe] + p.libs, env=env)
    checker.check(*split_happened(read_stats(stats), label + ": a backend module was split"))
    expected = run([stock] + p.args)
    checker.check(run([exe] + p.args) == expected, label + ": output equals the stock ThinLTO build's")
    # The explicit form: lld's custom LTO pipeline text.
    stats2 = os.path.join(work, p.name + ".thin-explicit.jsonl")
    exe2 = exe + ".explicit"
    run([p.driver, "-fuse-ld=lld", "-flto=thin", "-Wl,--load-pass-plugin=" + PLUGIN,
         "-Xlinker", "--lto-newpm-passes=mtpc-parallel<thinlto;O2;partitions=4;min-size=0>", pre] +
        extra_objs + ["-o", exe2] + p.libs, env=env_with(MTPC_STATS=stats2))
    checker.check(*split_happened(read_stats(stats2), label + " --lto-newpm-passes=mtpc-parallel<thinlto;O2>: split"))
    checker.check(run([exe2] + p.args) == expected, label + " --lto-newpm-passes: output equals the stock build's")


PLAIN_SECTIONS = (".text", ".data", ".bss", ".rodata", ".tdata", ".tbss")


def section_placement(obj):
    """(symbols in the plain sections, sections not named after any of their
    symbols) for defined functions and variables; private labels and
    mergeable constants aside, and a local the merge renamed per partition
    (NAME.mtpcK) counted as NAME."""
    by_section = {}
    for line in run([tool("llvm-objdump"), "-t", obj]).splitlines():
        f = line.split()
        # "0000000000000000 g     F .text.work_a 00000000000000d1 work_a"
        if len(f) < 5 or f[-4] not in ("F", "O"):
            continue
        section, name = f[-3], re.sub(r"\.mtpc[0-9]+$", "", f[-1])
        if name.startswith(".L") or section.startswith((".rodata.str", ".rodata.cst")):
            continue
        if section.startswith(PLAIN_SECTIONS):
            by_section.setdefault(section, set()).add(name)
    plain = set().union(*(names for sec, names in by_section.items() if sec in PLAIN_SECTIONS))
    misnamed = sorted(sec for sec, names in by_section.items()
                      if sec not in PLAIN_SECTIONS and not any(sec.endswith("." + n) for n in names))
    return plain, misnamed


def sections_named_after_locals_again(obj):
    """The object's sections named after a promoted name (PREFIX.NAME.mtpc.HASH:
    a function's own, its jump tables', its exception table) that the
    object does not define: named after a local it has made local again
    under its own name, whose sections stock's object names PREFIX.NAME."""
    defined = set(defined_symbols(obj))

    def named_after_a_definition(section):
        return any(section[at + 1:] in defined for at in range(1, len(section)) if section[at] == ".")

    sections = (m.group(1) for m in (re.match(r"\s*\[\s*\d+\]\s+(\S+)", line)
                                     for line in run([tool("llvm-readelf"), "-S", "--wide", obj]).splitlines()) if m)
    return sorted(n for n in sections
                  if PROMOTED_LOCAL.search(n) and not n.startswith(".rela") and not named_after_a_definition(n))


def test_host_settings(p, work, checker):
    """Partitions are compiled with the host's settings: with
    -ffunction-sections -fdata-sections every function and variable gets a
    section of its own, as in the stock build; nothing lands in the plain
    .text or .data that stock did not put there (module asm does). A local
    the split promoted and the merge made local again names its sections as
    in stock's object (constructs.c's mix and its jump table: .text.mix,
    .rodata.mix), where the parts' objects are transcribed and where their
    texts are merged (MTPC_WRITE_OBJECT=0)."""
    flags = ["-O2", "-ffunction-sections", "-fdata-sections"]
    stock, _ = compile_and_link(p, work, "stocksec", flags, plugin=False)
    mtpc, _ = compile_and_link(p, work, "mtpcsec", flags, env=env_with(**FORCE_SPLIT))
    stock_plain, _ = section_placement(stock)
    plain, misnamed = section_placement(mtpc)
    checker.check(plain <= stock_plain and not misnamed,
                  "%s -ffunction-sections -fdata-sections: each symbol in its own section, as in stock" % p.name,
                  "in plain sections: %s\nmisnamed sections: %s" % (sorted(plain - stock_plain)[:20], misnamed[:20]))
    from_text = [mtpc]
    if PARTS_TRANSCRIBED:
        from_text = [mtpc, compile_and_link(p, work, "mtpcsec-text", flags, env=env_with(MTPC_WRITE_OBJECT="0", **FORCE_SPLIT))[0]]
    for obj, how in zip(from_text, ("", " (the merged text)")):
        stale = sections_named_after_locals_again(obj)
        checker.check(not stale, "%s -ffunction-sections -fdata-sections%s: sections named after a local made local "
                      "again are named after it" % (p.name, how), "named after its promoted name: %s" % stale[:20])


def links_shared(obj):
    """(links, ld.lld's errors) for ld.lld -shared obj."""
    r = subprocess.run([tool("ld.lld"), "-shared", obj, "-o", obj[:-2] + ".so"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode == 0, r.stderr[-2000:]


def test_shared_library(p, work, checker):
    """Compiled -fPIC and split, the object links into a shared library as
    stock's does: a partition that reads a thread-local through an alias of
    another model (constructs.c's tls_exec_alias of a local-exec variable)
    uses the alias's model, not the aliasee's, which -shared refuses. That
    such a partition exists is checked first, on the split alone (the plan
    mtpc-split makes of the module clang's pipeline starts with)."""
    flags = ["-O2", "-fPIC"]
    bc, prefix = os.path.join(work, p.name + ".pic.bc"), os.path.join(work, p.name + ".pic-part")
    run([p.driver] + flags + p.cflags + ["-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c", p.source, "-o", bc])
    run([tool("opt"), "-load-pass-plugin=" + PLUGIN, "-passes=mtpc-split<partitions=%s;min-size=0;out=%s>"
         % (FORCE_SPLIT["MTPC_PARTITIONS"], prefix), bc, "-o", os.devnull])
    parts = [run([tool("llvm-dis"), part, "-o", "-"]) for part in sorted(glob.glob(prefix + ".*.bc"))]
    declaring = [k for k, text in enumerate(parts) if re.search(r"^@tls_exec_alias = external thread_local global", text, re.M)]
    checker.check(bool(declaring), "%s -fPIC, split: a partition reads tls_exec_alias, which another defines" % p.name,
                  "no partition of %d declares it" % len(parts))
    stock = os.path.join(work, p.name + ".pic-stock.o")
    run([p.driver] + flags + p.cflags + ["-c", p.source, "-o", stock])
    stock_links, stock_errors = links_shared(stock)
    checker.check(stock_links, "%s -fPIC: stock's object links -shared (what the next check compares with)" % p.name,
                  stock_errors)
    stats, obj = os.path.join(work, p.name + ".pic.jsonl"), os.path.join(work, p.name + ".pic.o")
    run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + p.cflags + ["-c", p.source, "-o", obj],
        env=env_with(MTPC_STATS=stats, **FORCE_SPLIT))
    checker.check(*split_happened(read_stats(stats), "%s -fPIC: the module was split" % p.name))
    links, errors = links_shared(obj)
    checker.check(links, "%s -fPIC, split: the object links -shared as stock's does" % p.name, errors)


# A shared library whose functions call their own foo, and a program that
# defines a foo of its own: built -fno-semantic-interposition, the library's
# code never calls the program's foo (clang makes foo dso_local; its calls
# and the address its code takes bind to the library's own through a local
# alias), while its data (foo_pointer's initializer) names foo, which the
# program's interposes.
BINDING_LIBRARY = r"""
extern int ext(int);
__attribute__((noinline)) int foo(int x) { return ext(x) + 1; }
int bar(int x) { return foo(x) + 10 * x; }
int baz(int x) { return foo(x) * 100 + x; }
int (*foo_address(void))(int) { return foo; }
int (*foo_pointer)(int) = foo;
int (*loaded_pointer(void))(int) { return foo_pointer; }
"""
BINDING_PROGRAM = r"""
#include <stdio.h>
int ext(int x) { return x; }
int foo(int x) { return 1000 + x; }
int bar(int), baz(int);
int (*foo_address(void))(int), (*loaded_pointer(void))(int);
int main(void) {
  printf("bar=%d baz=%d foo_address()(1)=%d loaded_pointer()(1)=%d\n", bar(1), baz(1), foo_address()(1),
         loaded_pointer()(1));
  return 0;
}
"""


def test_shared_library_binds_its_own(work, checker):
    """-fPIC -fno-semantic-interposition, split: a partition that calls foo,
    or takes its address, where another partition defines it, binds to the
    library's own foo as stock's code does (through the hidden alias
    foo.mtpc.local), not to the program's, and a pointer to foo in its data
    is the program's foo, as in stock's: the program prints what stock's
    prints. (Declared as foo, the call went through the PLT to the
    program's foo.)"""
    library, program = os.path.join(work, "binding-lib.c"), os.path.join(work, "binding-main.c")
    for path, text in ((library, BINDING_LIBRARY), (program, BINDING_PROGRAM)):
        with open(path, "w") as f:
            f.write(text)
    flags = ["-O2", "-fPIC", "-fno-semantic-interposition"]
    outputs, stats = {}, os.path.join(work, "binding.jsonl")
    for tag, plugin in (("stock", False), ("mtpc", True)):
        obj, so = os.path.join(work, "binding-%s.o" % tag), os.path.join(work, "libbinding%s.so" % tag)
        exe = os.path.join(work, "binding-%s" % tag)
        run([tool("clang")] + (["-fpass-plugin=" + PLUGIN] if plugin else []) + flags + ["-c", library, "-o", obj],
            env=env_with(MTPC_STATS=stats, **FORCE_SPLIT) if plugin else env_with())
        run([tool("clang"), "-shared", obj, "-o", so])
        run([tool("clang"), program, so, "-Wl,-rpath," + work, "-o", exe])
        outputs[tag] = run([exe])
    checker.check(*split_happened(read_stats(stats), "-fPIC -fno-semantic-interposition: the library was split"))
    checker.check(outputs["mtpc"] == outputs["stock"],
                  "-fPIC -fno-semantic-interposition, split: the library's code calls its own foo, its data names the program's, "
                  "as stock's",
                  "stock: %s\nmtpc: %s" % (outputs["stock"].strip(), outputs["mtpc"].strip()))


# Settings under which the object from the parts' objects must say what
# the object from the merged text says, and the object mtpc writes in clang
# 22 from a text must be the one the host writes from it, byte for byte
# (what the object's bytes depend on: debug info and its version and
# compression, sections, the relocation and code models, the CET note, a
# sanitizer's sections, the relocations' encoding).
OBJECT_WRITER_FLAGS = {
    "constructs-c": [["-O2"], ["-O2", "-g"], ["-O2", "-gdwarf-4", "-ffunction-sections", "-fdata-sections"],
                     ["-O2", "-ffunction-sections", "-fdata-sections"],
                     ["-O2", "-g", "-gz=zlib"], ["-O2", "-fno-pic", "-fno-pie"], ["-O2", "-mcmodel=large"],
                     ["-O2", "-fcf-protection=full"], ["-O1", "-g", "-fsanitize=address"],
                     ["-O2", "-fsanitize-coverage=trace-pc-guard"], ["-O2", "-fno-addrsig"]]
                    # Large sections (-mcmodel=large's code, -mcmodel=medium's
                    # large data: clang 18 and later), CREL relocations
                    # (clang 19 and later).
                    + ([["-O2", "-mcmodel=medium", "-mlarge-data-threshold=16"],
                        ["-O2", "-Wa,--crel,--allow-experimental-crel"]] if LLVM_MAJOR >= 19 else []),
    "constructs-cpp": [["-O2", "-g"], ["-O3", "-fno-omit-frame-pointer"], ["-O2", "-g", "-fdebug-types-section"]],
    # The merged text's assembler shortens a jump to a local made local
    # again that reaches (sqlite3's tail calls to its static functions), as
    # stock's does; a transcript keeps the part's long form. With
    # -mrelax-all neither shortens one: the objects are the same.
    "sqlite3": [["-O2", "-g", "-mrelax-all"]] + ([["-O2", "-mrelax-all"]] if LLVM_MAJOR < 22 else []),
}


# x86-64's large sections (-mcmodel=large's code, -mcmodel=medium's large
# data: LLVM 18 and later).
SHF_X86_64_LARGE = 0x10000000


def rows_placing_padding_alike(rows):
    """Line-table rows (line_rows) with the addresses of line 0's rows left
    out: LLVM 22's assembler puts the row of alignment padding inside a
    function (before a loop) where the padding starts when the code
    generator writes an object, as stock's compile does, and where it ends
    when it reads `.p2align` back from text (LLVM 16 puts it alike: its rows
    are kept whole). Every row of a source line keeps its address."""
    if LLVM_MAJOR < 22:
        return rows
    alike = collections.Counter()
    for (address, line, column, name), n in rows.items():
        alike[(None if line == 0 else address, line, column, name)] += n
    return alike


def compressed_debug_sections(path):
    """The names of the object's debug sections that are compressed (-gz),
    and of those that are not."""
    compressed, whole = set(), set()
    for line in run([tool("llvm-readelf"), "-S", "--wide", path]).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\.debug_\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+([A-Za-z]*)\s", line)
        if m:
            (compressed if "C" in m.group(2) else whole).add(m.group(1))
    return compressed, whole


def test_object_writer(p, work, checker):
    """The host (clang 16, 19 and 22) is handed the parts' objects transcribed,
    and writes an object with the same code, symbols and relocations as
    from the merged text (MTPC_WRITE_OBJECT=0); with debug information,
    each compile unit then has the line table its part's assembler wrote
    (the text's units share one), with the same rows; with -gz, the parts'
    objects are assembled with their debug sections whole and the host
    compresses the ones it writes, as it does from the text. Where the
    parts print text (PARTS_PRINT_TEXT), clang 22: mtpc assembles the
    merged text itself and its pre-codegen callback writes the object,
    which is the object the host writes from the same text, byte for byte;
    clang 16 and 19: the host assembles the merged text either way, so the
    setting changes nothing, byte for byte. -S is the host's."""
    for flags in OBJECT_WRITER_FLAGS.get(p.name, []):
        label = "%s %s" % (p.name, " ".join(flags))
        transcribed = parts_transcribed(flags)
        mtpc_writes = LLVM_MAJOR >= 22 and not transcribed
        objs, records, logs = {}, {}, {}
        written = None
        for writer in ("1", "0"):
            stats = os.path.join(work, "%s.writer%s.jsonl" % (p.name, writer))
            if os.path.exists(stats):
                os.remove(stats)
            obj = os.path.join(work, "%s.writer%s.o" % (p.name, writer))
            r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + p.cflags + ["-c", p.source, "-o", obj],
                               env=env_with(MTPC_STATS=stats, MTPC_WRITE_OBJECT=writer, MTPC_LOG="debug", **FORCE_SPLIT),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise RuntimeError("%s: the compile failed:\n%s" % (label, r.stderr[-2000:]))
            if writer == "1":
                written = "wrote the object mtpc assembled" in r.stderr
            objs[writer] = obj
            records[writer] = read_stats(stats)
            logs[writer] = r.stderr
        split = [len(records[w]) == 1 and records[w][0]["partitions"] > 1 and not records[w][0]["fallback"] for w in ("1", "0")]
        checker.check(all(split), label + ": the module was split", json.dumps(records)[:600])
        if not all(split):
            continue
        by_mtpc = tuple(records[w][0]["object_by_mtpc"] for w in ("1", "0"))
        from_parts = tuple(records[w][0]["object_from_parts"] for w in ("1", "0"))
        if transcribed:
            checker.check(by_mtpc == (False, False) and not written and from_parts == (True, False),
                          label + ": the host assembles the parts' objects, transcribed (MTPC_WRITE_OBJECT=0: the text)",
                          "object_by_mtpc: %s, object_from_parts: %s\n%s" % (by_mtpc, from_parts, logs["1"][-600:]))
            written_object = objs["1"]
            if any(f.startswith("-gz") for f in flags):
                compressed = [compressed_debug_sections(objs[w]) for w in ("1", "0")]
                # (LLVM keeps a section whole that compression would not
                # make smaller: the line tables, one header per part in the
                # transcript, may differ.)
                checker.check(compressed[1][0] - {".debug_line"} <= compressed[0][0] and ".debug_info" in compressed[0][0],
                              label + ": the debug sections are compressed, as from the text",
                              "transcript (compressed, not): %s\ntext: %s" % tuple(compressed))
                # The rest compares what the sections say (and verifies the
                # object written).
                for w in ("1", "0"):
                    whole = os.path.join(work, "%s.writer%s.whole.o" % (p.name, w))
                    run([tool("llvm-objcopy"), "--decompress-debug-sections", objs[w], whole])
                    objs[w] = whole
            # Both make the promoted locals local again, under their own
            # names, by one rule (local_again.rs), and leave calls to one
            # from its own section to the host's assembler to resolve.
            a, b = object_contents(objs["1"]), object_contents(objs["0"])
            if any(f.startswith("-g") for f in flags):
                units = line_table_offsets(objs["1"])
                checker.check(len(units) == len(line_table_offsets(objs["0"])) > 1 and len(set(units)) == len(units),
                              label + ": each compile unit has a line table of its own", str(units)[:400])
                rows, text_rows = rows_placing_padding_alike(line_rows(objs["1"])), rows_placing_padding_alike(line_rows(objs["0"]))
                checker.check(rows and rows == text_rows, label + ": the line tables have the text's rows",
                              "only from the transcript: %s\nonly from the text: %s" % (
                                  sorted((rows - text_rows).elements())[:5], sorted((text_rows - rows).elements())[:5]))
                errors = dwarf_verify_errors(written_object)
                checker.check(not errors, label + ": llvm-dwarfdump --verify finds no error", "\n".join(errors)[-2000:])
                # One header per line table: the line tables' own
                # relocations (file names, each sequence's start) differ.
                for contents in (a, b):
                    contents["relocations"].pop(".debug_line", None)
            if any(f.startswith("-Wa,--crel") for f in flags):
                crel = [re.findall(r"\s(\.crel\S*)\s", run([tool("llvm-readelf"), "-S", "--wide", objs[w]])) for w in ("1", "0")]
                # The harness's decoding against llvm-readelf's.
                listed = sum(int(n) for section, n in re.findall(r"Relocation section '(\S+)' .* contains (\d+) entries",
                                                                 run([tool("llvm-readelf"), "-r", objs["1"]]))
                             if not section.endswith("eh_frame"))
                decoded = sum(sum(c.values()) for c in a["relocations"].values())
                checker.check(crel[0] and sorted(crel[0]) == sorted(crel[1]) and decoded == listed > 0,
                              label + ": the host encodes the relocations as CREL, as from the text",
                              "%s; %d relocations decoded, %d listed" % (crel, decoded, listed))
            if any(f.startswith("-mcmodel=") for f in flags) and LLVM_MAJOR >= 19:
                large = [sorted(name for name, _, section_flags, _ in c["sections"] if section_flags & SHF_X86_64_LARGE) for c in (a, b)]
                checker.check(large[0] and large[0] == large[1], label + ": the object has the text's large sections", str(large))
            for what in ("sections", "symbols", "relocations", "address-significance table"):
                checker.check(a[what] == b[what], label + ": the object has the text's %s" % what,
                              ("only from the transcript: %s\nonly from the text: %s" % (
                                  _difference(a[what], b[what]), _difference(b[what], a[what])))[:2000])
            continue
        if mtpc_writes:
            checker.check(by_mtpc == (True, False) and written,
                          label + ": the object was assembled by mtpc and written by its callback (MTPC_WRITE_OBJECT=0: by the host)",
                          "object_by_mtpc: %s, the callback wrote it: %s" % (by_mtpc, written))
            same_object = "the object is the host's assembly of the same text, byte for byte"
        else:
            checker.check(by_mtpc == (False, False) and from_parts == (False, False) and not written,
                          label + ": the host assembles the merged text, whatever MTPC_WRITE_OBJECT says",
                          "object_by_mtpc: %s, object_from_parts: %s\n%s" % (by_mtpc, from_parts, logs["1"][-600:]))
            same_object = "the same object either way, byte for byte"
        with open(objs["1"], "rb") as f1, open(objs["0"], "rb") as f0:
            same = f1.read() == f0.read()
        checker.check(same, label + ": " + same_object)
    if p.name == "constructs-c" and PARTS_TRANSCRIBED:
        # Several modules in one clang process (its -cc1 jobs run in it,
        # one after another): each module's files in memory are closed only
        # when the next module's are handed over, and each object is the one
        # compiled alone, byte for byte.
        sources = [p.source, os.path.join(PROGRAMS_DIR, "twin.c")]
        flags = ["-O2", "-DSIDE=a", "-DSCALE=1"] + p.cflags
        together = os.path.join(work, "together")
        os.makedirs(together, exist_ok=True)
        stats = os.path.join(work, "together.jsonl")
        if os.path.exists(stats):
            os.remove(stats)
        run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + ["-c"] + sources, cwd=together,
            env=env_with(MTPC_STATS=stats, **FORCE_SPLIT))
        s = read_stats(stats)
        checker.check(len(s) == 2 and all(r["object_from_parts"] for r in s),
                      "two modules in one clang process: both assembled from the parts' objects", json.dumps(s)[:400])
        for source in sources:
            name = os.path.splitext(os.path.basename(source))[0] + ".o"
            alone = os.path.join(work, "alone-" + name)
            run([p.driver, "-fpass-plugin=" + PLUGIN] + flags + ["-c", source, "-o", alone], env=env_with(**FORCE_SPLIT))
            with open(os.path.join(together, name), "rb") as f1, open(alone, "rb") as f2:
                checker.check(f1.read() == f2.read(), "two modules in one clang process: %s is the object compiled alone, byte for byte" % name)
    if p.name == "constructs-c":
        stats = os.path.join(work, "writer-S.jsonl")
        out = os.path.join(work, "writer.s")
        run([p.driver, "-fpass-plugin=" + PLUGIN, "-O2", "-S"] + p.cflags + [p.source, "-o", out],
            env=env_with(MTPC_STATS=stats, **FORCE_SPLIT))
        s = read_stats(stats)
        with open(out) as f:
            text = f.read()
        checker.check(len(s) == 1 and s[0]["partitions"] > 1 and not s[0]["object_by_mtpc"] and "work_a:" in text,
                      "-S: the host prints the merged text (mtpc assembles no object)", json.dumps(s)[:400])
    if p.name in ("constructs-c", "constructs-cpp"):
        # The text is what the user reads: the asm printer's comments are
        # there as in stock's (clang's -fverbose-asm, its default for -S),
        # and not with -fno-verbose-asm; with or without them, the split's
        # text assembles to the same object (debug information's comments,
        # C++'s exception tables and COMDAT groups too).
        label = "%s -O2 -g -S" % p.name
        assembled = []
        for verbosity in ([], ["-fno-verbose-asm"]):
            texts = {}
            stats = os.path.join(work, "%s.verbose%s.jsonl" % (p.name, "".join(verbosity)))
            for build, plugin in (("stock", []), ("mtpc", ["-fpass-plugin=" + PLUGIN])):
                out = os.path.join(work, "%s.writer-%s%s.s" % (p.name, build, "".join(verbosity)))
                run([p.driver] + plugin + ["-O2", "-g", "-S"] + verbosity + p.cflags + [p.source, "-o", out],
                    env=env_with(MTPC_STATS=stats, **FORCE_SPLIT))
                with open(out) as f:
                    texts[build] = f.read()
            s = read_stats(stats)
            checker.check(len(s) == 1 and s[0]["partitions"] > 1 and not s[0]["fallback"],
                          "%s%s: the module was split" % (label, " ".join([""] + verbosity)), json.dumps(s)[:400])
            run([p.driver, "-c", out, "-o", out + ".o"])
            with open(out + ".o", "rb") as f:
                assembled.append(f.read())
            if not verbosity:
                # The promoted locals are local again under their own names
                # in the text, as in stock's.
                stock_text = os.path.join(work, "%s.writer-stock.s" % p.name)
                run([p.driver, "-c", stock_text, "-o", stock_text + ".o"])
                checker.check(*locals_as_stock(stock_text + ".o", out + ".o", label))
            begun = {b: sorted(re.findall(r"# -- Begin function (\S+)", t)) for b, t in texts.items()}
            loops = {b: t.count("# =>This Inner Loop Header") for b, t in texts.items()}
            if verbosity:
                checker.check(not begun["stock"] and not begun["mtpc"] and not loops["mtpc"],
                              label + " -fno-verbose-asm: no asm printer's comments, as in stock's text", str(begun))
            else:
                checker.check(len(begun["stock"]) > 10 and begun["mtpc"] == begun["stock"] and loops["mtpc"] >= min(loops["stock"], 1),
                              "%s: every function the asm printer begins with a comment in stock's text is so begun in mtpc's "
                              "(%d, under their own names), and loops are marked (%d, stock %d)"
                              % (label, len(begun["stock"]), loops["mtpc"], loops["stock"]),
                              "only stock's: %s\nonly mtpc's: %s" % (sorted(set(begun["stock"]) - set(begun["mtpc"])),
                                                                   sorted(set(begun["mtpc"]) - set(begun["stock"]))))
        checker.check(assembled[0] == assembled[1], label + ": the split's text with the asm printer's comments and without "
                      "them assemble to the same object, byte for byte")


def _difference(a, b):
    """What `a` holds that `b` does not (sets, or dicts of counters), short."""
    if isinstance(a, collections.Counter):
        return sorted((a - b).elements(), key=str)[:5]
    if isinstance(a, dict):
        return {k: sorted((a[k] - b.get(k, collections.Counter())).elements(), key=str)[:5] for k in a if a[k] != b.get(k)}
    return sorted(a - b, key=str)[:5]


def test_bad_environment(p, work, checker):
    for var, value in (("MTPC_THREADS", "many"), ("MTPC_PARTITIONS", "0"), ("MTPC_DISABLE", "maybe"),
                       ("MTPC_MACHINE_SLOTS", "all"), ("MTPC_LOAD_AWARE", "sometimes"), ("MTPC_WAIT_FOR_CORES", "later")):
        obj = os.path.join(work, "badenv.o")
        r = subprocess.run([p.driver, "-fpass-plugin=" + PLUGIN, "-O2"] + p.cflags + ["-c", p.source, "-o", obj],
                           env=env_with(**{var: value, "MTPC_MIN_SIZE": "0"}), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        checker.check(r.returncode == 0 and var in r.stderr and "'%s'" % value in r.stderr,
                      "%s=%s: a clear message naming it, and a normal build" % (var, value), r.stderr[-1000:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="run only the program with this name")
    ap.add_argument("--skip", action="append", default=[], help="leave out the program with this name (repeatable)")
    ap.add_argument("--long", action="store_true", help="also the large programs: %s" % ", ".join(LARGE))
    ap.add_argument("--skip-check", action="append", default=[], choices=["busy-machine", "code-generation-split"],
                    help="busy-machine: leave out sqlite3's compiles on a machine whose every core is busy (they test "
                    "how mtpc reads the load, which does not depend on the LLVM major, at twice a compile's time); "
                    "code-generation-split: leave out the large programs' split of the code generation alone (sqlite3's "
                    "five compiles, and with --long the others'; the small programs still check it)")
    a = ap.parse_args()
    require_plugin()
    work = tempfile.mkdtemp(prefix="mtpc-parallel-")
    checker = Checker()
    seconds = []  # (program, test, wall seconds), printed at the end

    def timed(test, *args):
        started = time.monotonic()
        try:
            test(*args)
        finally:
            seconds.append((p.name, test.__name__, time.monotonic() - started))

    for p in programs(a.long or a.only in LARGE):
        if (a.only and p.name != a.only) or p.name in a.skip:
            continue
        small = p.name not in ("sqlite3",) + LARGE
        try:
            timed(test_clang, p, work, checker, ["-O0", "-O2", "-Os"] if small else ["-O2"])
            timed(test_debug_info, p, work, checker)
            timed(test_determinism, p, work, checker)
            timed(test_object_writer, p, work, checker)
            if small or "code-generation-split" not in a.skip_check:
                timed(test_code_generation_split, p, work, checker)
            if p.name == "sqlite3":
                timed(test_cost_model, p, work, checker)
                if "busy-machine" not in a.skip_check:
                    timed(test_busy_then_idle, p, work, checker)
                    timed(test_busy_machine, p, work, checker)
                    if WAITS_FOR_CORES:
                        timed(test_busy_until_code_generation, p, work, checker)
            if small:
                timed(test_fallback, p, work, checker)
                timed(test_opt_llc, p, work, checker)
                timed(test_thinlto, p, work, checker)
            if p.name == "constructs-c":
                timed(test_host_settings, p, work, checker)
                timed(test_shared_library, p, work, checker)
                timed(test_shared_library_binds_its_own, work, checker)
                timed(test_bad_environment, p, work, checker)
        except RuntimeError as e:
            checker.check(False, p.name + ": builds", str(e))
    shutil.rmtree(work, ignore_errors=True)
    print("time per test (s), so that a run that grows longer shows what grew:")
    for name, test, s in seconds:
        print("  %6.1f  %s %s" % (s, name, test))
    checker.finish()


if __name__ == "__main__":
    main()

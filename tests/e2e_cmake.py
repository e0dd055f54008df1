#!/usr/bin/env python3
"""mtpc through CMake: the package (find_package(mtpc) + mtpc::clang) and
the toolchain file, each configuring and building tests/cmake/demo (a C
library and a C++ executable) with make; and the package's mtpc::lld on a
ThinLTO build, where the split happens in lld's backends. The program must print what a
build without mtpc prints, and the stats must show that mtpc split every
translation unit (MTPC_MIN_SIZE=0 forces it on these small files; built as
Release, -O3: unoptimized, the C++ file's only function of its own is main,
its library code all inline functions every partition copies, and one
partition is all a plan can make of it). All with
the clang of the LLVM under test (MTPC_LLVM), whose plugin the package picks.
A compiler that is not that clang is refused at configure time with a
message, and so is a plugin built for another LLVM than the compiler's.

  tests/e2e_cmake.py
  MTPC_LLVM=22 tests/e2e_cmake.py
Prints one line per check and 'N passed, N failed' at the end.
"""
import json
import os
import shutil
import subprocess
import tempfile

from harness import LLVM_MAJOR, PLUGIN, ROOT, Checker, plugin_for, require_plugin, run, tool

DEMO = os.path.join(ROOT, "tests", "cmake", "demo")
CMAKE_DIR = os.path.join(ROOT, "cmake")


def build(work, name, configure_args, env):
    b = os.path.join(work, name)
    run(["cmake", "-S", DEMO, "-B", b, "-G", "Unix Makefiles", "-DCMAKE_BUILD_TYPE=Release"] + configure_args, env=env)
    run(["cmake", "--build", b, "-j", "2"], env=env)
    return run([os.path.join(b, "demo")])


def stats_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    require_plugin()
    work = tempfile.mkdtemp(prefix="mtpc-cmake-")
    checker = Checker()
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    clang = ["-DCMAKE_C_COMPILER=clang-%d" % LLVM_MAJOR, "-DCMAKE_CXX_COMPILER=clang++-%d" % LLVM_MAJOR]
    expected = build(work, "plain", clang + ["-DUSE_MTPC_PACKAGE=OFF"], base_env)

    thinlto = clang + ["-Dmtpc_DIR=" + CMAKE_DIR, "-DUSE_MTPC_THINLTO=ON",
                       # GNU ar cannot index bitcode members; lld needs the index.
                       "-DCMAKE_AR=" + tool("llvm-ar"), "-DCMAKE_RANLIB=" + tool("llvm-ranlib")]
    configurations = (
        ("package", "package", clang + ["-Dmtpc_DIR=" + CMAKE_DIR]),
        ("thinlto", "package ThinLTO (mtpc::lld)", thinlto),
        ("toolchain", "toolchain", ["-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(CMAKE_DIR, "mtpc-toolchain.cmake"),
                                    "-DMTPC_LLVM=%d" % LLVM_MAJOR, "-DUSE_MTPC_PACKAGE=OFF"]),
    )
    for slug, name, args in configurations:
        stats = os.path.join(work, slug + ".jsonl")
        env = dict(base_env, MTPC_MIN_SIZE="0", MTPC_STATS=stats)
        try:
            out = build(work, slug, args, env)
        except RuntimeError as e:
            checker.check(False, "CMake %s: configures and builds" % name, str(e))
            continue
        with open(os.path.join(work, slug, "CMakeCache.txt")) as f:
            found = next((l.split("=", 1)[1] for l in f.read().splitlines() if l.startswith("MTPC_PLUGIN:")), "")
        checker.check(os.path.realpath(found) == os.path.realpath(PLUGIN),
                      "CMake %s: the plugin built for LLVM %d" % (name, LLVM_MAJOR), "found: %r" % found)
        checker.check(out == expected, "CMake %s: the demo prints what the build without mtpc prints" % name,
                      "expected %r got %r" % (expected, out))
        # (With the toolchain file, CMake's own compiler probes go through mtpc too.)
        modules = sorted(os.path.basename(s["module"]) for s in stats_lines(stats) if s["partitions"] > 1)
        checker.check({"checksum.c", "main.cpp"} <= set(modules), "CMake %s: mtpc split both translation units" % name,
                      "split: %s" % modules)

    r = subprocess.run(["cmake", "-S", DEMO, "-B", os.path.join(work, "gcc"), "-DCMAKE_C_COMPILER=gcc",
                        "-DCMAKE_CXX_COMPILER=g++", "-Dmtpc_DIR=" + CMAKE_DIR, "-DMTPC_LLVM=%d" % LLVM_MAJOR],
                       env=base_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    message = " ".join(r.stderr.split())  # CMake wraps its messages
    checker.check(r.returncode != 0 and "was built for LLVM %d" % LLVM_MAJOR in message and "(GNU " in message,
                  "CMake package with gcc: refused with a message naming both compilers' versions", r.stderr[-1500:])
    # A plugin built for another LLVM than the compiler's (named by path):
    # the major is read from the file, and the compile refused.
    other = next((m for m in (16, 22, 19) if m != LLVM_MAJOR and os.path.exists(plugin_for(m))), None)
    if other:
        r = subprocess.run(["cmake", "-S", DEMO, "-B", os.path.join(work, "mismatch")] + clang
                           + ["-Dmtpc_DIR=" + CMAKE_DIR, "-DMTPC_PLUGIN=" + plugin_for(other)],
                           env=base_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        message = " ".join(r.stderr.split())
        checker.check(r.returncode != 0 and "was built for LLVM %d" % other in message and "(Clang %d." % LLVM_MAJOR in message,
                      "CMake package with LLVM %d's plugin and clang-%d: refused with a message naming both"
                      % (other, LLVM_MAJOR), r.stderr[-1500:])
    shutil.rmtree(work, ignore_errors=True)
    checker.finish()


if __name__ == "__main__":
    main()

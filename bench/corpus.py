"""The benchmark corpus: real large translation units from crates.io.

Each comes from a crate that bundles C or C++ sources, fetched with cargo
(tests/fetch-crate-source.sh) into cargo's cache and, for archives,
unpacked under the corpus cache (MTPC_CORPUS_CACHE, default
~/.cache/mtpc-corpus); nothing is committed.
"""
import json
import os
import tarfile

from harness import PROGRAMS_DIR, QUICKJS_FLAGS, QUICKJS_OTHER_SOURCES, ROOT, SQLITE_DEFINES, quickjs_dir, raylib_dir, run

CACHE = os.environ.get("MTPC_CORPUS_CACHE",
                       os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mtpc-corpus"))

DUCKDB_VERSION = "1.1.1"
# The two largest unity-build files of DuckDB 1.1.1 by the source they
# include (ub_src_common.cpp: 623 kB of .cpp, ub_src_execution.cpp: 334 kB).
DUCKDB_UNITS = ("ub_src_common.cpp", "ub_src_execution.cpp")


class Workload:
    """A program built around the unit's object; its output must match stock."""

    def __init__(self, sources, args, libs, cflags, cxx=False):
        self.sources, self.args, self.libs, self.cflags, self.cxx = sources, args, libs, cflags, cxx


class Unit:
    def __init__(self, name, kind, source, cxx, flags, workload=None):
        self.name, self.kind, self.source, self.cxx = name, kind, source, cxx
        self.flags, self.workload = flags, workload


def crate_source(name, version):
    return run([os.path.join(ROOT, "tests", "fetch-crate-source.sh"), name, version]).strip()


def sqlite3(rows):
    src = os.path.join(crate_source("libsqlite3-sys", "0.30.1"), "sqlite3")
    flags = ["-I" + src] + SQLITE_DEFINES
    workload = Workload([os.path.join(PROGRAMS_DIR, "sqlite_workload.c")], [str(rows)], ["-lm"], ["-I" + src])
    return Unit("sqlite3", "C amalgamation (libsqlite3-sys 0.30.1)", os.path.join(src, "sqlite3.c"), False, flags, workload)


def duckdb_tree():
    """DuckDB's sources unpacked from the crate's duckdb.tar.gz, and its manifest."""
    archive = os.path.join(crate_source("libduckdb-sys", DUCKDB_VERSION), "duckdb.tar.gz")
    root = os.path.join(CACHE, "duckdb-" + DUCKDB_VERSION)
    tree = os.path.join(root, "duckdb")
    if not os.path.exists(os.path.join(tree, "manifest.json")):
        os.makedirs(root, exist_ok=True)
        with tarfile.open(archive) as t:
            # The "data" filter (Python >= 3.11.4) refuses paths outside root.
            if hasattr(tarfile, "data_filter"):
                t.extractall(root, filter="data")
            else:
                t.extractall(root)
    with open(os.path.join(tree, "manifest.json")) as f:
        return tree, json.load(f)


def duckdb():
    tree, manifest = duckdb_tree()
    # What libduckdb-sys's build.rs compiles the library with.
    flags = ["-std=c++11", "-DDUCKDB_BUILD_LIBRARY", "-DDUCKDB_EXTENSION_AUTOINSTALL_DEFAULT=1",
             "-DDUCKDB_EXTENSION_AUTOLOAD_DEFAULT=1"]
    flags += ["-I" + os.path.join(tree, d) for d in manifest["base"]["include_dirs"]]
    return [Unit("duckdb/" + name[len("ub_src_"):-len(".cpp")], "C++ unity build (libduckdb-sys %s)" % DUCKDB_VERSION,
                 os.path.join(tree, name), True, flags) for name in DUCKDB_UNITS]


def sqlite3_default():
    """sqlite3 as the amalgamation builds by default (thread-safe, loadable
    extensions): other code, other inlining."""
    src = os.path.join(crate_source("libsqlite3-sys", "0.30.1"), "sqlite3")
    return Unit("sqlite3-default", "C amalgamation, default options (libsqlite3-sys 0.30.1)",
                os.path.join(src, "sqlite3.c"), False, ["-I" + src])


HARFBUZZ_VERSION = "0.8.0"


def harfbuzz(iterations):
    """HarfBuzz 8.4's own unity build (harfbuzz.cc), and a workload made of
    its shaping benchmark (fonts and texts from its perf/ directory)."""
    tree = os.path.join(crate_source("harfbuzz-sys", HARFBUZZ_VERSION), "harfbuzz")
    src = os.path.join(tree, "src")
    # What harfbuzz-sys's build.rs compiles it with.
    flags = ["-std=c++11", "-DHAVE_PTHREAD=1", "-I" + src]
    workload = Workload([os.path.join(PROGRAMS_DIR, "harfbuzz_workload.cc")], [tree, str(iterations)], ["-lpthread"],
                        ["-I" + src], cxx=True)
    return Unit("harfbuzz", "C++ unity build (harfbuzz-sys %s: HarfBuzz 8.4)" % HARFBUZZ_VERSION,
                os.path.join(src, "harfbuzz.cc"), True, flags, workload)


def tree_sitter_cpp():
    src = os.path.join(crate_source("tree-sitter-cpp", "0.23.4"), "src")
    return Unit("tree-sitter-cpp", "generated C parser (tree-sitter-cpp 0.23.4)", os.path.join(src, "parser.c"), False,
                ["-I" + src])


def quickjs(scale):
    """QuickJS 2021-03-27's engine, quickjs.c: 54,000 lines in one file (an
    interpreter, a parser and compiler to bytecode, and the built-in
    library), and a workload running a JavaScript script through it
    (tests/programs/quickjs_workload.c, linked with the engine's other
    files built by stock clang)."""
    src = quickjs_dir()
    flags = QUICKJS_FLAGS + ["-I" + src]
    workload = Workload([os.path.join(PROGRAMS_DIR, "quickjs_workload.c")]
                        + [os.path.join(src, f) for f in QUICKJS_OTHER_SOURCES], [str(scale)], ["-lm", "-lpthread"],
                        ["-w"] + flags)
    return Unit("quickjs", "C JavaScript engine, one 54k-line file (libquickjs-sys 0.10.0)",
                os.path.join(src, "quickjs.c"), False, flags, workload)


# Scale of the QuickJS workload (about 2 s stock on this machine).
QUICKJS_SCALE = 2


def raudio(seconds):
    """raylib 5.5's audio module, raudio.c: miniaudio, dr_wav, dr_mp3,
    stb_vorbis, QOA, jar_xm and jar_mod in one file (about 64,000 lines
    once preprocessed; audio conversion and codecs: loops over samples,
    SIMD paths, many small static functions), and a workload converting,
    resampling and re-encoding `seconds` of audio through it (WAV and QOA;
    the other decoders are compiled, not run)
    (tests/programs/raudio_workload.c, linked with raylib's utils.c built by
    stock clang)."""
    src = raylib_dir()
    flags = ["-DPLATFORM_DESKTOP", "-I" + src]
    workload = Workload([os.path.join(PROGRAMS_DIR, "raudio_workload.c"), os.path.join(src, "utils.c")], [str(seconds)],
                        ["-lm", "-lpthread", "-ldl"], ["-w"] + flags)
    return Unit("raudio", "C audio library, one file (raylib-sys 5.5.1: miniaudio and six codecs)",
                os.path.join(src, "raudio.c"), False, flags, workload)


# Seconds of audio the raudio workload converts (about 2 s stock on this machine).
RAUDIO_SECONDS = 100

# Shaping rounds of the HarfBuzz workload (about 2 s stock on this machine).
HARFBUZZ_ITERATIONS = 5

SELECTIONS = ("sqlite3", "sqlite3-default", "duckdb", "duckdb/common", "duckdb/execution", "harfbuzz", "tree-sitter", "quickjs",
              "raudio")


def corpus(selection, rows):
    """The units of `selection`: all (every one but sqlite3-default, which
    only the inlining measurement uses), or one of SELECTIONS (one of
    DuckDB's two files alone: duckdb/common, duckdb/execution)."""
    parts = {"sqlite3": lambda: [sqlite3(rows)], "sqlite3-default": lambda: [sqlite3_default()], "duckdb": duckdb,
             "harfbuzz": lambda: [harfbuzz(HARFBUZZ_ITERATIONS)], "tree-sitter": lambda: [tree_sitter_cpp()],
             "quickjs": lambda: [quickjs(QUICKJS_SCALE)], "raudio": lambda: [raudio(RAUDIO_SECONDS)]}
    if selection == "all":
        return [unit for name in parts if name != "sqlite3-default" for unit in parts[name]()]
    if selection.startswith("duckdb/"):
        units = [unit for unit in duckdb() if unit.name == selection]
        if not units:
            raise ValueError("no DuckDB file is named %s: choose one of %s" % (selection, ", ".join(SELECTIONS)))
        return units
    return parts[selection]()

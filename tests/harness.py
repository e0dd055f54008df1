"""Helpers shared by the end-to-end tests: running the tools of the LLVM
under test (MTPC_LLVM: 16, the default, 19 or 22) with the plugin built for
it, fetching third-party sources with cargo, and counting checks."""
import collections
import os
import re
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_MAJOR = int(os.environ.get("MTPC_LLVM", "16"))
LLVM_BIN = "/usr/lib/llvm-%d/bin" % LLVM_MAJOR
# `cargo build --release` builds for LLVM 16; `cargo build-llvm22` for 22.
BUILD_COMMAND = "cargo build --release" if LLVM_MAJOR == 16 else "cargo build-llvm%d" % LLVM_MAJOR


def plugin_for(major):
    """Where the plugin built for LLVM `major` is in this tree."""
    build = ["release"] if major == 16 else ["llvm-%d" % major, "release"]
    return os.path.join(ROOT, "target", *build, "libmtpc.so")


PLUGIN = os.environ.get("MTPC_PLUGIN", plugin_for(LLVM_MAJOR))
# clang (16, 19 and 22; 19 since 2026-12-07) is handed the partitions'
# objects transcribed where a transcript can state them: not with the
# options of PARTS_PRINT_TEXT, whose partitions print text that the host
# (or, in clang 22, mtpc) assembles. Either way a local the split promoted
# (NAME.mtpc.HASH) that one part defines is local again under its own name
# (README, "What each global becomes").
PARTS_TRANSCRIBED = LLVM_MAJOR in (16, 19, 22)
# A local's name promoted for the split: NAME.mtpc.HASH (numbered if taken).
PROMOTED_LOCAL = re.compile(r"\.mtpc\.[0-9a-f]+(\.\d+)?$")
# Options that give the parts' objects what a transcript cannot state
# (sections linked to another's), so that the partitions print text: some
# of those object_writer::text_needed decides on (passes/src/object_writer.rs).
# From clang 17 the driver lets the linker strip ASan's unused globals on
# ELF (-fsanitize-address-globals-dead-stripping, linked-order too).
PARTS_PRINT_TEXT = ("-fsanitize-coverage=", "-fxray-instrument", "-fstack-size-section") + (
    ("-fsanitize=address",) if LLVM_MAJOR >= 17 else ())


def parts_transcribed(flags):
    """Whether a split compile with `flags` hands the host its partitions'
    objects transcribed (else the partitions print text)."""
    return PARTS_TRANSCRIBED and not any(f.startswith(PARTS_PRINT_TEXT) for f in flags)
PROGRAMS_DIR = os.path.join(ROOT, "tests", "programs")
MAX_PARTITIONS = 1000000  # more than any module has units: one group each
JOBS = os.cpu_count() or 2
# sqlite3 as every test and benchmark builds it (single-threaded, no
# loadable extensions: nothing but libc and libm to link).
SQLITE_DEFINES = ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION"]


def tool(name):
    return os.path.join(LLVM_BIN, name)


# The kind of error llvm-dwarfdump --verify reports, from LLVM 19, for
# compile units that share one line table: not an error in the program's
# debug information. Assembly text has one line table for every compile unit
# it describes, and the partitions' merged text describes one unit per
# partition; LLVM's own assembly output of a module with several units
# (after llvm-link, say) shares its line table the same way.
SHARED_LINE_TABLE = "Identical DW_AT_stmt_list section offset"
_VERIFY_KIND = re.compile(r"^error: (.*) occurred \d+ time\(s\)\.$")


def _dwarf_verify(path):
    """llvm-dwarfdump --verify of `path`: (clean, error lines, the kinds of
    error its summary counts)."""
    r = subprocess.run([tool("llvm-dwarfdump"), "--verify", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    lines = r.stdout.splitlines()
    errors = [l for l in lines if l.startswith("error:")] or ["exit %d: %s" % (r.returncode, r.stdout[-1500:])]
    kinds = {m.group(1) for m in map(_VERIFY_KIND.match, lines) if m}
    return r.returncode == 0 and "No errors." in r.stdout, errors, kinds


def dwarf_verify_errors(path, like=None):
    """The errors llvm-dwarfdump --verify finds in `path`; empty if none, or
    if the only kinds it counts are compile units sharing a line table (see
    SHARED_LINE_TABLE) and kinds it also counts in `like`, the same program
    built stock and linked alike (GNU ld's merged .debug_str and lld's
    discarded COMDAT copies are errors to the verifiers of LLVM 19 and later)."""
    clean, errors, kinds = _dwarf_verify(path)
    if clean:
        return []
    allowed = {SHARED_LINE_TABLE} | (_dwarf_verify(like)[2] if like else set())
    if kinds and kinds <= allowed:
        return []
    return errors


def run(cmd, forbid_in_stderr=(), **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-4000:]))
    for text in forbid_in_stderr:
        if text in r.stderr:
            raise RuntimeError("%s printed '%s':\n%s" % (" ".join(cmd), text, r.stderr[-4000:]))
    return r.stdout


def sqlite_dir():
    out = run([os.path.join(ROOT, "tests", "fetch-crate-source.sh"), "libsqlite3-sys", "0.30.1"])
    return os.path.join(out.strip(), "sqlite3")


def harfbuzz_dir():
    """HarfBuzz 8.4's sources (its unity build src/harfbuzz.cc, and the
    fonts and texts of its shaping benchmark under perf/), from the
    harfbuzz-sys crate."""
    out = run([os.path.join(ROOT, "tests", "fetch-crate-source.sh"), "harfbuzz-sys", "0.8.0"])
    return os.path.join(out.strip(), "harfbuzz")


def quickjs_dir():
    """QuickJS 2021-03-27's sources (quickjs.c, 54,000 lines, and the
    engine's other files), from the libquickjs-sys crate."""
    out = run([os.path.join(ROOT, "tests", "fetch-crate-source.sh"), "libquickjs-sys", "0.10.0"])
    return os.path.join(out.strip(), "embed", "quickjs")


def raylib_dir():
    """raylib 5.5's sources (src/raudio.c: miniaudio, dr_wav, dr_mp3,
    stb_vorbis, QOA, jar_xm and jar_mod in one file, and src/utils.c,
    which it calls), from the raylib-sys crate."""
    out = run([os.path.join(ROOT, "tests", "fetch-crate-source.sh"), "raylib-sys", "5.5.1"])
    return os.path.join(out.strip(), "raylib", "src")


# How libquickjs-sys's build.rs compiles QuickJS: definitions, then options.
QUICKJS_DEFINES = ["_GNU_SOURCE", 'CONFIG_VERSION="2021-03-27"', "CONFIG_BIGNUM"]
QUICKJS_OPTIONS = ["-funsigned-char"]
QUICKJS_FLAGS = ["-D" + d for d in QUICKJS_DEFINES] + QUICKJS_OPTIONS
# The engine's other files, which a program using quickjs.c links with.
QUICKJS_OTHER_SOURCES = ("cutils.c", "libbf.c", "libregexp.c", "libunicode.c")


def stop_location(exe, function, args=(), cwd=None):
    """`file:line` where gdb first stops at a breakpoint on `function`."""
    out = run(["gdb", "-batch", "-nx", "-ex", "break " + function, "-ex", "run", "-ex", "frame", "--args", exe] + list(args),
              cwd=cwd)
    frame = next((l for l in out.splitlines() if l.startswith("#0")), "")
    return frame[frame.rfind(" at ") + 4:] if " at " in frame else "(no stop: %s)" % out[-300:]


def gdb_answers(exe, function, commands, args=(), cwd=None):
    """What gdb answers to each of `commands` where it first stops at a
    breakpoint on `function` (a list, in order)."""
    gdb = ["gdb", "-batch", "-nx", "-ex", "break " + function, "-ex", "run"]
    for c in commands:
        gdb += ["-ex", "echo @@mtpc@@\\n", "-ex", c]
    out = run(gdb + ["--args", exe] + list(args), cwd=cwd)
    return [a.strip() for a in out.split("@@mtpc@@\n")[1:]]


# Prefixes llvm-objdump prints before a mnemonic.
_PREFIXES = {"data16", "cs", "ds", "es", "fs", "gs", "ss", "rex64", "lock", "rep", "repne", "notrack"}


def code_listings(path):
    """The instructions of each code section of `path` (by section name, a
    list per section of that name, in order), each with its address,
    alignment padding (no-ops) left out: LLVM's assembler pads with the
    longest no-ops its subtarget allows when the code generator writes an
    object, and with shorter ones when it reads `.p2align` back from text.
    The addresses kept show any difference in layout; every other
    instruction stays, prefixes and all (`data16 lea` of TLS sequences)."""
    listings = collections.defaultdict(list)
    current = None
    out = run([tool("llvm-objdump"), "-d", "--no-show-raw-insn", path])
    for line in out.splitlines():
        m = re.match(r"Disassembly of section (.*):$", line)
        if m:
            current = []
            listings[m.group(1)].append(current)
            continue
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)$", line)
        if m and current is not None:
            words = [w for w in m.group(2).split() if w not in _PREFIXES]
            if not (words and words[0].startswith("nop")):
                current.append((int(m.group(1), 16), m.group(2).strip()))
    return {name: [tuple(listing) for listing in sections] for name, sections in listings.items()}


# The prefix of the labels a transcript of a part's object gives its sections' chunks (passes/src/object_transcript.rs).
TRANSCRIPT_LABEL = ".Lmtpc.part"
# From LLVM 21 the assembler relocates against the symbol a .reloc names,
# never through its section (LLVM 16's does for a local).
RELOC_NAMES_ITS_SYMBOL = LLVM_MAJOR >= 21
SHT_CREL = 0x40000014
# Relocation types through the GOT (R_X86_64_GOT32, GOTPCREL, GOTPCRELX,
# REX_GOTPCRELX): their entry holds the symbol's address, which a section
# plus an offset does not name. (A PLT32 to a local is its address plus the
# addend, whichever names it.)
THROUGH_THE_GOT = (3, 9, 41, 42)


def transcript_local(sym, secs):
    """Whether `sym` (object_contents' tuple) is a local function, variable
    or label outside thread-local and mergeable sections: where a
    transcript's .reloc names it, LLVM 21 and later relocate against it, and
    LLVM 16 (and a code generator) through its section."""
    name, bind, typ, _, shndx = sym[:5]
    return (bind == 0 and typ in (0, 1, 2) and 0 < shndx < 0xff00 and not name.startswith(".L")
            and not secs[shndx][2] & 0x410)  # SHF_TLS | SHF_MERGE


def leb128(d, pos, signed=False):
    """(the LEB128 number at d[pos], the position after it)."""
    value = shift = 0
    while True:
        b = d[pos]
        pos += 1
        value |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return (value - (1 << shift) if signed and b & 0x40 else value), pos


def rela_entries(d, off, size):
    """(symbol index, type, addend) of each entry of a RELA section."""
    for k in range(size // 24):
        _, info, addend = struct.unpack_from("<QQq", d, off + 24 * k)
        yield info >> 32, info & 0xffffffff, addend


def crel_entries(d, off):
    """(symbol index, type, addend) of each entry of a CREL section (-Wa,--crel:
    LLVM's encodeCrel, llvm/MC/MCELFExtras.h)."""
    header, pos = leb128(d, off)
    symbol = r_type = addend = 0
    for _ in range(header >> 3):
        b = d[pos]
        pos += 1
        if b & 0x80:
            _, pos = leb128(d, pos)  # the rest of the offset's delta
        if b & 1:
            delta, pos = leb128(d, pos, signed=True)
            symbol += delta
        if b & 2:
            delta, pos = leb128(d, pos, signed=True)
            r_type += delta
        if b & 4 and header & 4:
            delta, pos = leb128(d, pos, signed=True)
            addend += delta
        yield symbol, r_type, addend


def object_contents(path):
    """What an x86-64 ELF relocatable object says, apart from where its
    data is: its sections (name, type, flags, and the instructions of code
    sections (see `code_listings`); data sections may be padded differently between what
    different partitions put in them), its symbols (binding, type,
    visibility, section, size, and the value of those in code sections),
    each section's relocations as (type, target, addend): the target a
    symbol's name or, through a section, the section's name, with the
    addend when that section is code (else it depends on data layout; an
    absolute reference through a string section gives the string), and
    the address-significance table's names. .eh_frame is left out: its
    entries depend on how many parts wrote it. On LLVM 22, a transcript's
    own labels that the assembler kept as symbols, and relocations to a
    named local (transcript_local), are read as relocations through its
    section (into data: by section only, as for any local reached through
    its section): the linker
    resolves a local symbol plus an addend and its section plus its offset
    alike (but through the GOT, whose entry is the symbol's, and a label
    plus an offset in a mergeable section). Relocations in CREL
    sections (-Wa,--crel) are read too."""
    with open(path, "rb") as f:
        d = f.read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]

    def cstr(table, offset):
        start = secs[table][4] + offset
        return d[start:d.index(b"\0", start)].decode()

    names = [cstr(shstrndx, s[0]) for s in secs]
    code = [bool(s[2] & 4) for s in secs]
    strings = [s[2] & 0x30 == 0x30 and s[1] != 8 for s in secs]  # SHF_MERGE | SHF_STRINGS, not NOBITS
    symtab = next(i for i, s in enumerate(secs) if s[1] == 2)
    syms = []
    for i in range(secs[symtab][5] // 24):
        name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", d, secs[symtab][4] + 24 * i)
        name = cstr(secs[symtab][6], name)
        if RELOC_NAMES_ITS_SYMBOL and name.startswith(TRANSCRIPT_LABEL) and info >> 4 == 0:
            # A transcript's label that LLVM 21 and later's assembler keeps
            # as a symbol when a .reloc names it: no symbol of the object's
            # own, and a relocation to it is one through its section.
            syms.append((TRANSCRIPT_LABEL, 0, 0, 0, shndx, value, 0, True))
        else:
            syms.append((name, info >> 4, info & 15, other & 3, shndx, value, size, False))

    def target_name(sym):
        return names[sym[4]] if sym[2] == 3 else sym[0]

    sections, symbols = collections.Counter(), set()
    listings, code_seen = None, collections.Counter()
    relocations, addrsig = collections.defaultdict(collections.Counter), set()
    for i, (_, typ, flags, _, off, size, _, info, _, _) in enumerate(secs):
        if names[i] == ".eh_frame" or (typ in (4, SHT_CREL) and names[info] == ".eh_frame"):
            continue
        if typ in (4, SHT_CREL):
            for symbol, r_type, addend in (rela_entries(d, off, size) if typ == 4 else crel_entries(d, off)):
                sym = syms[symbol]
                through_section = sym[7] or (RELOC_NAMES_ITS_SYMBOL and transcript_local(sym, secs) and r_type not in THROUGH_THE_GOT)
                if sym[0] == TRANSCRIPT_LABEL and secs[sym[4]][2] & 0x10 and addend:
                    # In a mergeable section a label plus an offset is not the
                    # piece the section plus that offset names: left as it is,
                    # a name the text's object does not have.
                    through_section = False
                if through_section:
                    # A transcript's label, or a named local that LLVM 22's assembler
                    # relocates against where a transcript's .reloc names it:
                    # through its section, as the assembler relocates.
                    sym, addend = ("", 0, 3, 0, sym[4], 0, 0, False), addend + sym[5]
                layout_free = sym[2] != 3 or (0 < sym[4] < 0xff00 and code[sym[4]])
                value = addend if layout_free else None
                if sym[2] == 3 and r_type in (1, 10) and 0 < sym[4] < 0xff00 and strings[sym[4]]:
                    # An absolute reference into a string section (debug
                    # information's strings): the string it names.
                    start = secs[sym[4]][4] + addend
                    value = d[start:d.index(b"\0", start)]
                relocations[names[info]][(r_type, target_name(sym), value)] += 1
        elif typ == 0x6fff4c03:
            pos = off
            while pos < off + size:
                index, pos = leb128(d, pos)
                addrsig.add(target_name(syms[index]))
        elif typ not in (0, 2, 3, 17):
            instructions = None
            if flags & 4:
                listings = code_listings(path) if listings is None else listings
                seen = code_seen[names[i]]
                instructions = listings[names[i]][seen] if seen < len(listings.get(names[i], [])) else ()
                code_seen[names[i]] += 1
            sections[(names[i], typ, flags, instructions)] += 1
    for name, bind, typ, vis, shndx, value, size, _ in syms:
        if typ not in (3, 4) and name and name != TRANSCRIPT_LABEL:
            in_code = 0 < shndx < 0xff00 and code[shndx]
            symbols.add((name, bind, typ, vis, names[shndx] if 0 < shndx < 0xff00 else shndx, value if in_code else None, size))
    return {"sections": sections, "symbols": symbols, "relocations": dict(relocations), "address-significance table": addrsig}


def line_rows(path):
    """The rows of every line table of `path` (llvm-dwarfdump --debug-line)
    as (address, line, column, file) with their counts, end-of-sequence
    rows left out, the file by its directory and name (each table numbers
    its files its own way): what a debugger maps addresses to, whichever
    table holds a row and however the tables are encoded."""
    rows = collections.Counter()
    directories, files, current = {}, {}, None
    for line in run([tool("llvm-dwarfdump"), "--debug-line", path]).splitlines():
        if line.startswith("debug_line["):
            directories, files, current = {}, {}, None
            continue
        m = re.match(r'include_directories\[\s*(\d+)\] = "(.*)"$', line)
        if m:
            directories[int(m.group(1))] = m.group(2)
            continue
        m = re.match(r"file_names\[\s*(\d+)\]:", line)
        if m:
            current = files.setdefault(int(m.group(1)), {})
            continue
        m = re.match(r'\s+(name|dir_index): (.*)$', line)
        if m and current is not None:
            current[m.group(1)] = m.group(2).strip('"')
            continue
        fields = line.split()
        if len(fields) >= 4 and line.startswith("0x") and "end_sequence" not in fields:
            entry = files.get(int(fields[3], 0), {})
            directory = directories.get(int(entry.get("dir_index", "0"), 0), "")
            name = os.path.join(directory, entry.get("name", "?")) if entry else fields[3]
            rows[tuple(int(f, 0) for f in fields[:3]) + (name,)] += 1
    return rows


def line_table_offsets(path):
    """Each compile unit's DW_AT_stmt_list of `path`, in order (type units
    name their compile unit's line table too: left out)."""
    out = run([tool("llvm-dwarfdump"), "--debug-info", "--show-form", path])
    units = re.split(r"^(?=0x[0-9a-f]+: (?:Compile|Type|Skeleton|Partial) Unit:)", out, flags=re.M)
    return [offset for unit in units if re.match(r"0x[0-9a-f]+: Compile Unit:", unit)
            for offset in re.findall(r"DW_AT_stmt_list\s+\[DW_FORM_sec_offset\]\s+\((0x[0-9a-f]+)\)", unit)]


def require_plugin():
    """Exits with what to do if the plugin is not built."""
    if not os.path.exists(PLUGIN):
        sys.exit("error: %s does not exist; run %s first" % (PLUGIN, BUILD_COMMAND))


class Checker:
    def __init__(self):
        self.passed = self.failed = 0

    def finish(self):
        """Prints 'N passed, N failed' and exits, with 1 if any check failed."""
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)

    def check(self, ok, what, detail=""):
        print("%s: %s%s" % ("PASS" if ok else "FAIL", what, "" if ok else "\n  " + detail.replace("\n", "\n  ")), flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1



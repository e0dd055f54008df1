#!/usr/bin/env python3
"""Calls an object makes, by callee, compared with stock's object: a
measure of the inlining that a split lost (or gained).

Every direct call or tail call (`call`/`jmp` to a symbol: a relocation's,
the local function at the place in a section a relocation names, the
local function whose own section a relocation names, or the local
function the disassembler names) in the object's code is counted per
callee. A promoted local's name
(`NAME.mtpc.HASH`) counts as NAME. Against stock's object:

  extra   calls to a callee beyond stock's count of calls to it, summed
          over callees: calls stock inlined (or never made) that mtpc's
          object still makes out of line;
  fewer   the other way round: calls stock makes that mtpc's object does
          not (inlined where stock did not, or code that differs).

  python3 bench/calls.py stock.o mtpc.o [--top 20]
"""
import argparse
import collections
import re
import subprocess
import sys
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
from harness import tool  # noqa: E402

# A promoted local (NAME.mtpc.HASH), the hidden alias by which partitions of
# shared-library code call another's definition (NAME.mtpc.local), or a local
# the merge renamed per part (NAME.mtpcK).
PROMOTED = re.compile(r"\.mtpc(\.[0-9a-f]+(\.\d+)?|\.local(\.\d+)?|\d+)$")
# "  1234: R_X86_64_PLT32  name-0x4": the relocation of the line before.
RELOCATION = re.compile(r"^\s*[0-9a-f]+:\s+R_X86_64_\w+\s+(\S+?)([-+]0x[0-9a-f]+)?$")
# A call to a local function in a section of its own (function sections:
# every LTO object) is relocated against the section's start, which names
# the function.
# The kinds a section's name may add after `.text.` name no function alone.
SECTION_KINDS = ("unlikely", "hot", "startup", "exit", "split", "unknown")
FUNCTION_SECTION = re.compile(r"^\.text\.(?:(?:%s)\.)?([^.](?:.*[^.])?)$" % "|".join(SECTION_KINDS))
# "  1234:  callq  0x5678 <name>" (a call or jump whose target the
# disassembler names: a local function in the same section needs no
# relocation; `<name+0x12>` is a jump within a function).
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)(\s+\*)?(?:\s+0x[0-9a-f]+ <([^>+]+)>)?")
CALLS = ("callq", "call", "jmp", "jmpq")


# "0000000000003ba0 l     F .text	00000000000000b5 name": a function's
# value, section and name in `llvm-objdump -t`.
FUNCTION_SYMBOL = re.compile(r"^([0-9a-f]+) .{7} (\S+)\s+[0-9a-f]+\s+(\S+)$")


def functions_by_place(obj):
    """{(section, offset): name} of the functions obj defines."""
    out = subprocess.run([tool("llvm-objdump"), "-t", obj],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout
    places = {}
    for line in out.splitlines():
        m = FUNCTION_SYMBOL.match(line)
        if m and line[23:24] == "F":
            places.setdefault((m.group(2), int(m.group(1), 16)), m.group(3))
    return places


def callees(obj):
    """{callee: number of direct calls and tail calls to it} in obj's code."""
    out = subprocess.run([tool("llvm-objdump"), "-d", "-r", "--no-show-raw-insn", obj],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout
    places = functions_by_place(obj)
    counts = collections.Counter()
    pending = None  # (mnemonic, the target the disassembler named)

    def count(name):
        name = PROMOTED.sub("", name)
        if name and not name.startswith(".") :
            counts[name] += 1

    for line in out.splitlines():
        m = RELOCATION.match(line)
        if m:
            # A relocation names the real target (the disassembler's is a placeholder).
            if pending is not None:
                # Through a section (a local function, its offset in the
                # addend, less the 4 bytes of a PC-relative word): the
                # function there, or the one the section is named after.
                target = m.group(1).startswith(".") and places.get((m.group(1), int(m.group(2) or "0", 16) + 4))
                section = m.group(2) == "-0x4" and FUNCTION_SECTION.match(m.group(1))
                named = section and section.group(1) not in SECTION_KINDS
                count(target or (section.group(1) if named else m.group(1)))
            pending = None
            continue
        if pending is not None and pending[1]:
            count(pending[1])
        pending = None
        m = INSTRUCTION.match(line)
        if m and m.group(1) in CALLS and not m.group(2):  # not an indirect call (`*`)
            pending = (m.group(1), m.group(3))
    if pending is not None and pending[1]:
        count(pending[1])
    return counts


def compare(stock, other):
    """(extra, fewer, per-callee differences) of other's calls against stock's."""
    diff = {name: other.get(name, 0) - stock.get(name, 0) for name in set(stock) | set(other)}
    extra = sum(d for d in diff.values() if d > 0)
    fewer = sum(-d for d in diff.values() if d < 0)
    return extra, fewer, diff


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stock")
    ap.add_argument("other")
    ap.add_argument("--top", type=int, default=20)
    a = ap.parse_args()
    stock, other = callees(a.stock), callees(a.other)
    extra, fewer, diff = compare(stock, other)
    print("calls: stock %d, other %d; extra (stock inlined or never made) %d; fewer %d"
          % (sum(stock.values()), sum(other.values()), extra, fewer))
    for name, d in sorted(diff.items(), key=lambda kv: -kv[1])[:a.top]:
        if d > 0:
            print("  +%-5d %s (stock %d)" % (d, name, stock.get(name, 0)))


if __name__ == "__main__":
    main()

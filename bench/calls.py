#!/usr/bin/env python3
"""Calls an object makes, by callee, compared with stock's object: a
measure of the inlining that a split lost (or gained).

Every direct call or tail call (`call`/`jmp` with a relocation against a
symbol) in the object's code is counted per callee. A promoted local's name
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

PROMOTED = re.compile(r"\.mtpc\.[0-9a-f]+(\.\d+)?$")
# "  1234: R_X86_64_PLT32  name-0x4" after an instruction line.
RELOCATION = re.compile(r"^\s*[0-9a-f]+:\s+R_X86_64_(?:PLT32|PC32|GOTPCRELX|REX_GOTPCRELX|32S?|64)\s+(\S+?)(?:[-+]0x[0-9a-f]+)?$")
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)")


def callees(obj):
    """{callee: number of direct calls and tail calls to it} in obj's code."""
    out = subprocess.run([tool("llvm-objdump"), "-d", "-r", "--no-show-raw-insn", obj],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True).stdout
    counts = collections.Counter()
    last = None
    for line in out.splitlines():
        m = RELOCATION.match(line)
        if m:
            if last in ("callq", "call", "jmp", "jmpq"):
                name = PROMOTED.sub("", m.group(1))
                if not name.startswith(".L") and name not in (".text",):
                    counts[name] += 1
            last = None
            continue
        m = INSTRUCTION.match(line)
        last = m.group(1) if m else None
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

"""The configurations compared: how each turns one translation unit into one
object, as the steps (groups of commands run at the same time) a build
would run.

  stock        clang-16 -O2 -c
  mtpc-T       the same with -fpass-plugin=libmtpc.so, MTPC_THREADS=T and
               as many partitions as the machine has cores
  lto-parts    LLVM's codegen-only parallelism for one module: full LTO,
               clang -flto -c, then ld.lld -r --lto-partitions=N
  lto-mtpc     the same full LTO with mtpc in lld (--load-pass-plugin),
               MTPC_THREADS=2 and N partitions: optimization in parallel too
  llvm-split   a naive function-level split: the unoptimized bitcode cut by
               llvm-split -j N, every part through opt -O2 and llc in
               parallel, the parts joined by ld.lld -r
"""
import os

from harness import PLUGIN, tool
from measure import clean_env


class Config:
    def __init__(self, name, label, steps, threads=None, partitions=None):
        self.name, self.label, self._steps = name, label, steps
        self.threads, self.partitions = threads, partitions

    @property
    def is_mtpc(self):
        return self.threads is not None

    def env(self, stats):
        if not self.is_mtpc:
            return clean_env()
        return clean_env(MTPC_THREADS=str(self.threads), MTPC_PARTITIONS=str(self.partitions), MTPC_STATS=stats)

    def steps(self, unit, obj, work, debug):
        """[[cmd, ...], ...]: the steps, in order; the commands of a step run at once."""
        return self._steps(unit, obj, work, debug)


def driver(unit):
    return tool("clang++") if unit.cxx else tool("clang")


def compile_flags(unit, debug):
    return ["-O2", "-w"] + (["-g"] if debug else []) + unit.flags


def stock_steps(unit, obj, work, debug):
    return [[[driver(unit)] + compile_flags(unit, debug) + ["-c", unit.source, "-o", obj]]]


def mtpc_steps(unit, obj, work, debug):
    return [[[driver(unit), "-fpass-plugin=" + PLUGIN] + compile_flags(unit, debug) + ["-c", unit.source, "-o", obj]]]


def lto_steps(lld_args):
    """Full LTO: clang -flto -c, then ld.lld -r --lto-O2 with lld_args."""
    def steps(unit, obj, work, debug):
        bc = os.path.join(work, "lto.bc")
        return [[[driver(unit), "-flto"] + compile_flags(unit, debug) + ["-c", unit.source, "-o", bc]],
                [[tool("ld.lld"), "-r", "--lto-O2"] + lld_args + [bc, "-o", obj]]]
    return steps


def llvm_split_steps(parts):
    def steps(unit, obj, work, debug):
        bc = os.path.join(work, "split-input.bc")
        prefix = os.path.join(work, "split-part")
        part_files = ["%s%d" % (prefix, k) for k in range(parts)]
        # One shell per part, so that each part's opt and llc follow each
        # other without waiting for the other parts.
        per_part = [["sh", "-c", '"$1" -O2 "$3" -o "$3.opt.bc" && "$2" -O2 -relocation-model=pic -filetype=obj '
                     '"$3.opt.bc" -o "$3.o"', "sh", tool("opt"), tool("llc"), p] for p in part_files]
        return [[[driver(unit)] + compile_flags(unit, debug) + ["-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c",
                                                               unit.source, "-o", bc]],
                [[tool("llvm-split"), "-j", str(parts), "-o", prefix, bc]],
                per_part,
                [[tool("ld.lld"), "-r"] + [p + ".o" for p in part_files] + ["-o", obj]]]
    return steps


def configurations(cores):
    partitions = max(cores, 2)
    configs = [Config("stock", "stock clang -O2", stock_steps)]
    for threads in sorted({1, 2, cores}):
        label = "mtpc, %d thread%s" % (threads, "" if threads == 1 else "s") + (" (all cores)" if threads == cores else "")
        configs.append(Config("mtpc-%d" % threads, label, mtpc_steps, threads=threads, partitions=partitions))
    configs.append(Config("lto-parts", "full LTO, lld --lto-partitions=%d" % partitions,
                          lto_steps(["--lto-partitions=%d" % partitions])))
    configs.append(Config("lto-mtpc", "full LTO, mtpc in lld, 2 threads", lto_steps(["--load-pass-plugin=" + PLUGIN]),
                          threads=2, partitions=partitions))
    configs.append(Config("llvm-split", "llvm-split -j %d + opt/llc in parallel" % partitions, llvm_split_steps(partitions)))
    return configs


def projection_config(partitions, threads):
    """mtpc with many partitions: its stats feed the critical-path model."""
    return Config("mtpc-p%d" % partitions, "mtpc, %d partitions" % partitions, mtpc_steps, threads=threads,
                  partitions=partitions)

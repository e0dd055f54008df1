"""Running a configuration's steps and measuring them: wall time, CPU time
(user + sys of every process, with the children they waited for), peak
RSS, and the object's section sizes."""
import json
import os
import re
import shutil
import subprocess
import time

from harness import dwarf_verify_errors, run, tool


class BuildFailed(Exception):
    pass


def clean_env(**extra):
    """The environment without any MTPC_* setting of the caller's, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MTPC_")}
    env.update(extra)
    return env


def rotated(items, r):
    """`items` in the order round `r` builds them: each round starts with
    the next one, so that none is always the first build of a round (which
    ran slowest: bench/project_build.py, 2026-11-28)."""
    k = r % len(items) if items else 0
    return items[k:] + items[:k]


def take_stats_lines(path):
    """The MTPC_STATS lines written to `path` (none if it does not exist);
    the file is removed, so that the next run starts without it."""
    if not os.path.exists(path):
        return []
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except ValueError as e:
        raise BuildFailed("%s: not MTPC_STATS lines (%s)" % (path, e))
    finally:
        os.remove(path)


def front_end_wall(compile_command, source, out):
    """Wall time of the front end alone: `compile_command` (driver and flags)
    on `source`, stopped before LLVM's passes and writing nothing (writing
    the bitcode, which a compile does not do, takes a large module a few
    tenths of a second); `out` is the output name the driver is given."""
    cmd = compile_command + ["-Xclang", "-disable-llvm-passes", "-Xclang", "-emit-llvm-only", "-c", source, "-o", out]
    return run_steps([[cmd]], clean_env()).wall


class Measured:
    """Wall and CPU seconds, peak RSS, and when the last step ended (seconds
    since the Unix epoch, to set against a pass's `start_unix_ms`)."""
    def __init__(self, wall, cpu, rss_mib, ended_unix):
        self.wall, self.cpu, self.rss_mib, self.ended_unix = wall, cpu, rss_mib, ended_unix


def run_steps(steps, env):
    """Runs the steps in order, each step's commands at once. Peak RSS is the
    largest sum, over a step, of its processes' peaks (an upper bound of
    what ran at the same time)."""
    start = time.perf_counter()
    cpu = peak = 0.0
    for step in steps:
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for cmd in step]
        step_rss, failures = 0.0, []
        for cmd, p in zip(step, procs):
            _, status, usage = os.wait4(p.pid, 0)
            err = p.stderr.read().decode(errors="replace")
            p.stderr.close()
            cpu += usage.ru_utime + usage.ru_stime
            step_rss += usage.ru_maxrss / 1024
            if os.waitstatus_to_exitcode(status) != 0:
                failures.append("%s\n%s" % (" ".join(cmd), err[-2000:]))
        peak = max(peak, step_rss)
        if failures:
            raise BuildFailed("command failed: " + failures[0])
    return Measured(time.perf_counter() - start, cpu, peak, time.time())


def section_sizes(obj):
    """{section name: total size} of an object (sections of one name summed)."""
    sizes = {}
    for line in run([tool("llvm-readelf"), "-S", "-W", obj]).splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 6 and fields[0].startswith("[") and fields[1].startswith("."):
            try:
                sizes[fields[1]] = sizes.get(fields[1], 0) + int(fields[5], 16)
            except ValueError:
                pass
    return sizes


def text_bytes(sizes):
    """Bytes of code, from section_sizes()."""
    return sum(v for k, v in sizes.items() if k == ".text" or k.startswith(".text."))


def debug_bytes(sizes):
    """Bytes of DWARF, from section_sizes()."""
    return sum(v for k, v in sizes.items() if k.startswith(".debug_"))


def debug_quality(obj):
    """What llvm-dwarfdump says of a -g object: whether --verify finds no
    error (but compile units sharing a line table, which LLVM 19's and later
    verifiers count: see harness.SHARED_LINE_TABLE), and the share of the
    variables' scopes (parameters and locals, in bytes of code) that a
    location covers (--statistics)."""
    stats = json.loads(run([tool("llvm-dwarfdump"), "--statistics", obj]))
    scope = stats.get("sum_all_variables(#bytes in parent scope)", 0)
    covered = stats.get("sum_all_variables(#bytes in parent scope covered by DW_AT_location)", 0)
    return {"verified": not dwarf_verify_errors(obj),
            "coverage": covered / scope if scope else None,
            "variables": stats.get("#source variables with location", 0)}


def symbols(obj, which):
    """Names of the symbols llvm-nm lists with `which` (--defined-only or
    --undefined-only)."""
    out = run([tool("llvm-nm"), which, "--format=just-symbols", obj])
    return set(out.split())


def defined_symbols(obj):
    return symbols(obj, "--defined-only")


def missing_definitions(obj, stock_defines):
    """Symbols `obj` needs from elsewhere that the stock object defines
    itself (`stock_defines`): the build lost definitions (a relocatable
    object does not tell)."""
    return sorted(symbols(obj, "--undefined-only") & stock_defines)


def executed_instructions(cmd, env=None):
    """(instructions, stdout) of a program that must succeed, run under
    valgrind's cachegrind: the same count on every run of the same binary
    and input, where this machine's times of one program spread by 10 %
    and more (it is not time: a cache miss costs more than an
    instruction). About 50 times slower than the program alone."""
    if not shutil.which("valgrind"):
        raise BuildFailed("valgrind is not installed (scripts/setup.sh installs it)")
    counted = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"] + cmd
    r = subprocess.run(counted, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", r.stderr)
    if r.returncode != 0 or not found:
        raise BuildFailed("%s exited with %d under valgrind:\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return int(found.group(1).replace(",", "")), r.stdout


def timed_run(cmd):
    """(wall seconds, stdout) of a program that must succeed."""
    start = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if r.returncode != 0:
        raise BuildFailed("%s exited with %d:\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return wall, r.stdout

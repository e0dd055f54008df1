"""The suite's "never slower" part: stock clang against mtpc with its
default settings (what a user gets by adding the one flag: no MTPC_*
setting, so the cost model decides whether and how far to split, on the
threads mtpc finds) at -O0, -O0 -g, -O2 and -O2 -g, in alternating rounds
(the order of the two compiles swapped every round). Target: mtpc at least
0.99x stock at every level on every unit; the spread of the rounds' ratios
is shown beside the median, since a single compile on this machine varies
by more than 1 %.
"""
import math
import os
import statistics

from harness import PLUGIN
from measure import BuildFailed, clean_env, defined_symbols, missing_definitions, rotated, run_steps, take_stats_lines

import configs

LEVELS = (("-O0", ["-O0"]), ("-O0 -g", ["-O0", "-g"]), ("-O2", ["-O2"]), ("-O2 -g", ["-O2", "-g"]))
TARGET = 0.99
# A short compile gets more rounds, up to MAX_ROUNDS, so that each level
# has at least MIN_SECONDS of stock compiles.
MIN_SECONDS, MAX_ROUNDS = 20.0, 9


def command(unit, level_flags, obj, plugin):
    return ([configs.driver(unit)] + (["-fpass-plugin=" + PLUGIN] if plugin else []) + level_flags + ["-w"]
            + unit.flags + ["-c", unit.source, "-o", obj])


def choice(stats_path):
    """What mtpc did with the module, from its MTPC_STATS lines:
    ("N partitions", None, the pass's time) or ("whole", the reason, the
    pass's time: all mtpc added to the compile but loading the plugin).
    A module whose optimization was left whole because every core was busy
    and whose code generation was split once a core was free (README, "The
    tail") writes a second line, for its code generation: ("whole, code
    generation in N partitions", the first decision's reason, both passes'
    time)."""
    lines = take_stats_lines(stats_path)
    kinds = ["code generation" if l.get("code_generation_only") else "module" for l in lines]
    if kinds not in (["module"], ["module", "code generation"]):
        raise BuildFailed("expected one MTPC_STATS line from the mtpc compile, on its module, and a second on its "
                          "code generation if that was split after its optimization; got: %s" % (", ".join(kinds) or "none"))
    line, later = lines[0], lines[1] if len(lines) == 2 else None
    own = sum(l["wall_ms"] for l in lines) / 1e3
    if line["partitions"] >= 2 and not line["fallback"]:
        return "%d partitions" % line["partitions"], None, own
    reason = line.get("fallback_reason") or (line.get("model") or {}).get("whole_reason")
    if later and later["partitions"] >= 2 and not later["fallback"]:
        return "whole, code generation in %d partitions" % later["partitions"], reason, own
    if later and later["fallback"]:
        return "whole, code generation split and fallen back", later.get("fallback_reason") or reason, own
    return "whole", reason, own


def one_round(unit, flags, r, work):
    """(stock wall, mtpc wall, choice, reason, the pass's own time) of one
    round; the mtpc object must define what stock's does."""
    stock_obj, mtpc_obj = os.path.join(work, "level-stock.o"), os.path.join(work, "level-mtpc.o")
    stats = os.path.join(work, "level.stats.jsonl")
    take_stats_lines(stats)  # nothing left from an earlier failed run
    runs = {"stock": ([command(unit, flags, stock_obj, False)], clean_env()),
            "mtpc": ([command(unit, flags, mtpc_obj, True)], clean_env(MTPC_STATS=stats))}
    order = rotated(("stock", "mtpc"), r)
    wall = {name: run_steps([runs[name][0]], runs[name][1]).wall for name in order}
    chose, reason, own = choice(stats)
    missing = missing_definitions(mtpc_obj, defined_symbols(stock_obj))
    if missing:
        raise BuildFailed("INCOMPLETE OBJECT: %d symbols stock defines are undefined (%s)"
                          % (len(missing), ", ".join(missing[:3])))
    return wall["stock"], wall["mtpc"], chose, reason, own


def measure(unit, rounds, progress, work, extend=True):
    """{level: {"stock": [wall...], "mtpc": [wall...], "choice": [...],
    "own": [the pass's time...], "reasons": [why whole], "failure":
    str|None, "speedup": median of the rounds' stock/mtpc, "spread":
    [lowest, highest]}}: `rounds` each, more for short compiles if
    `extend`."""
    out = {}
    for name, flags in LEVELS:
        res = out[name] = {"stock": [], "mtpc": [], "choice": [], "own": [], "reasons": [], "failure": None}
        r, planned = 0, rounds
        while r < planned:
            progress.step("%s: default settings at %s, round %d/%d" % (unit.name, name, r + 1, planned))
            try:
                stock, mtpc, chose, reason, own = one_round(unit, flags, r, work)
            except (BuildFailed, OSError, KeyError) as e:
                res["failure"] = "%s: %s" % (type(e).__name__, e) if not isinstance(e, BuildFailed) else str(e)
                print("  FAILED: %s" % res["failure"].splitlines()[0], flush=True)
                progress.skip(planned - r - 1)
                break
            res["stock"].append(stock)
            res["mtpc"].append(mtpc)
            res["choice"].append(chose)
            res["own"].append(own)
            if reason and reason not in res["reasons"]:
                res["reasons"].append(reason)
            print("  stock %.2f s, mtpc %.2f s (%s)" % (stock, mtpc, chose), flush=True)
            r += 1
            if r == 1 and extend:
                more = max(rounds, min(MAX_ROUNDS, math.ceil(MIN_SECONDS / max(0.1, stock))))
                progress.add(more - planned)
                planned = more
        if res["stock"] and not res["failure"]:
            ratios = [s / m for s, m in zip(res["stock"], res["mtpc"])]
            res["speedup"], res["spread"] = statistics.median(ratios), [min(ratios), max(ratios)]
    return out


def table(levels):
    lines = ["| level | rounds | stock | mtpc (default settings) | speedup (lowest–highest round) | target 0.99x | "
             "mtpc chose | its pass, when whole (of stock) |", "|---|---|---|---|---|---|---|---|"]
    for name, _ in LEVELS:
        res = levels.get(name)
        if not res:
            continue
        if res["failure"] or "speedup" not in res:
            first = (res["failure"] or "no run").splitlines()[0].replace("|", "/")[:160]
            lines.append("| %s | FAILED: %s |  |  |  |  |  |  |" % (name, first))
            continue
        spread, stock = res["spread"], statistics.median(res["stock"])
        # The pass's own time, noise-free: where it leaves the module whole,
        # all mtpc adds to the compile but loading the plugin.
        whole = res.get("own") and set(res["choice"]) == {"whole"}
        own = statistics.median(res["own"]) if whole else None
        lines.append("| %s | %d | %.2f s | %.2f s | %.2fx (%.2f–%.2f) | %s | %s | %s |" % (
            name, len(res["stock"]), stock, statistics.median(res["mtpc"]), res["speedup"],
            spread[0], spread[1], "met" if res["speedup"] >= TARGET else "**missed**",
            "; ".join(sorted(set(res["choice"]))),
            "%.1f ms (%.2f %%)" % (own * 1e3, 100 * own / stock) if own is not None else ""))
    return "\n".join(lines)

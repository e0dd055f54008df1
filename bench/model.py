"""The critical-path model of an mtpc compile, from its MTPC_STATS line and
its measured wall time.

A compile is serial work (the front end, the split, the merge, the check of
the merged text, the host assembling it, process start and exit) plus the
partitions,
scheduled on the cores: on c cores its wall time is
    serial + makespan(partition times, c)
with the partitions handed out longest first, as mtpc starts their jobs
(largest first, by the instructions each holds).

No number of cores makes a compile faster than its critical path (bound):
what runs outside the pass (the front end, the host assembling the merged
text, process exit), the pass's serial steps, and the largest unit the
plan cannot divide, optimized and compiled alone.
"""
import heapq
import statistics


def part_seconds(stats_line):
    return [(p["build_ms"] + p["opt_ms"] + p["codegen_ms"]) / 1e3 for p in stats_line["parts"]]


def pass_serial_ms(stats_line):
    """The pass's own steps outside the partitions' phase: the split, the
    merge, and the check of the merged text (which runs on the pool, but
    after every partition; counted as serial, an upper bound on more cores)."""
    return stats_line["split_ms"] + stats_line["merge_ms"] + stats_line.get("check_ms", 0.0)


def serial_seconds(wall, stats_line):
    """Everything but the partitions' parallel phase: the compile's wall time
    minus the pass's wall time, plus the pass's own serial steps."""
    inside = stats_line["wall_ms"] - pass_serial_ms(stats_line)
    return wall - inside / 1e3


def makespan(times, cores):
    """Longest-first list scheduling of `times` on `cores` workers."""
    loads = [0.0] * max(1, cores)
    for t in sorted(times, reverse=True):
        heapq.heapreplace(loads, loads[0] + t)
    return max(loads)


def predict(serial, parts, cores):
    return serial + makespan(parts, cores)


def summarize(runs):
    """Median serial time and median partition times over (wall, stats) runs."""
    serial = statistics.median(serial_seconds(w, s) for w, s in runs)
    parts = [statistics.median(ts) for ts in zip(*(part_seconds(s) for _, s in runs))]
    return serial, parts


def serial_tail(wall, front_end, stats_line):
    """The serial tail of a compile: everything serial but the front end (the
    split, the merge, the check, the host assembling the merged text,
    process exit)."""
    return serial_seconds(wall, stats_line) - front_end


def largest_unit_seconds(stats_line):
    """Optimization and code generation of the largest unit the plan cannot
    divide (a function with the callees it must keep, or a COMDAT group),
    from a run with so many partitions that it has one of its own: the
    partition that owns the most instructions, its time scaled down to the
    unit's share of what it owns if it owns more."""
    largest = stats_line["model"]["shape"]["largest_group"]
    part = max(stats_line["parts"], key=lambda p: p["instructions"])
    seconds = (part["build_ms"] + part["opt_ms"] + part["codegen_ms"]) / 1e3
    return seconds * min(1.0, largest / max(1, part["instructions"]))


def bound(front_end, runs):
    """The critical-path bound of function-level splitting, from (wall,
    stats line) runs with several partition counts: the front end, the
    largest indivisible unit alone (from the run with the most partitions),
    and the smallest serial tail seen. An estimate, not a proof: the unit's
    time is its share of its partition's, and the check of the merged text
    (on the pool, after the partitions) is counted as serial; a projection
    above it means the estimate was too high."""
    most = max((s for _, s in runs), key=lambda s: s["partitions"])
    unit = largest_unit_seconds(most)
    tail = min(serial_tail(w, front_end, s) for w, s in runs)
    return {"front_end": front_end, "largest_unit": unit, "tail": tail, "wall": front_end + unit + tail,
            "largest_unit_instructions": most["model"]["shape"]["largest_group"]}


def self_test():
    assert makespan([3, 3, 2, 2, 2], 2) == 7
    assert makespan([5, 1, 1], 4) == 5
    assert makespan([1, 2, 3], 1) == 6
    line = {"wall_ms": 9000, "split_ms": 150, "merge_ms": 100, "check_ms": 50, "parts": [
        {"build_ms": 100, "opt_ms": 4000, "codegen_ms": 3900}, {"build_ms": 50, "opt_ms": 3000, "codegen_ms": 2950}]}
    assert abs(serial_seconds(10.0, line) - 1.3) < 1e-9
    assert abs(predict(1.3, part_seconds(line), 2) - 9.3) < 1e-9
    line["model"], line["partitions"] = {"shape": {"largest_group": 500}}, 2
    line["parts"][0]["instructions"], line["parts"][1]["instructions"] = 1000, 400
    assert abs(largest_unit_seconds(line) - 4.0) < 1e-9
    assert abs(serial_tail(10.0, 1.0, line) - 0.3) < 1e-9
    b = bound(1.0, [(10.0, line), (11.0, line)])
    assert abs(b["wall"] - (1.0 + 4.0 + 0.3)) < 1e-9


if __name__ == "__main__":
    self_test()
    print("model self-test passed")

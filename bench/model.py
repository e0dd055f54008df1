"""The critical-path model of an mtpc compile, from its MTPC_STATS line and
its measured wall time.

A compile is serial work (the front end, the split, the merge, the check of
the merged text, the host assembling it, process start and exit) plus the
partitions,
scheduled on the cores: on c cores its wall time is
    serial + makespan(partition times, c)
with the partitions handed out longest first, as mtpc starts their jobs
(largest first, by the instructions each holds).
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


def self_test():
    assert makespan([3, 3, 2, 2, 2], 2) == 7
    assert makespan([5, 1, 1], 4) == 5
    assert makespan([1, 2, 3], 1) == 6
    line = {"wall_ms": 9000, "split_ms": 150, "merge_ms": 100, "check_ms": 50, "parts": [
        {"build_ms": 100, "opt_ms": 4000, "codegen_ms": 3900}, {"build_ms": 50, "opt_ms": 3000, "codegen_ms": 2950}]}
    assert abs(serial_seconds(10.0, line) - 1.3) < 1e-9
    assert abs(predict(1.3, part_seconds(line), 2) - 9.3) < 1e-9


if __name__ == "__main__":
    self_test()
    print("model self-test passed")

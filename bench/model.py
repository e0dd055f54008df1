"""The critical-path model of an mtpc compile, from its MTPC_STATS line and
its measured wall time.

A compile is serial work (the front end, the split, the merge's decisions,
the host assembling the merged text, process start and exit), the
partitions, the writing of each part's segment of the merged text, and the
check of each segment, scheduled on the cores (where clang 22's partitions
print text, mtpc assembles the whole text itself, as its check, and the
host does not: the check is then one job, serial too; in clang (16, 19
and 22) the partitions otherwise write objects, the
merge decides what each part's transcript leaves out, the parts' checks
transcribe each object and assemble its transcript, no segment is written,
and what the parts' transcripts say of the same names,
`transcript_check_ms`, is checked serially): on c cores its wall time is
    serial + makespan(partition times, c) + makespan(segment times, c)
           + makespan(check times, c)
with the jobs handed out longest first, as mtpc starts them (partitions
largest first, by the instructions each holds; segments longest first).

No number of cores makes a compile faster than its critical path (bound):
what runs outside the pass (the front end, the host assembling the merged
text, process exit), the pass's serial steps, the longest part's segment
and check, and the largest unit the plan cannot divide with the copies of
what it inlines, optimized and compiled alone. On c cores no schedule
beats the work spread over them either (bound_on): a module without a
dominant unit is bound by its work, not by its critical path.
"""
import heapq
import statistics


def work_seconds(part):
    """A partition's build, optimization and code generation."""
    return (part["build_ms"] + part["opt_ms"] + part["codegen_ms"]) / 1e3


def part_seconds(stats_line):
    return [work_seconds(p) for p in stats_line["parts"]]


def check_seconds(stats_line):
    """The check of each part's segment of the merged text: jobs on the
    pool, side by side, after the merge (a line without the parts' own
    times, or whose text mtpc assembled whole into the object: its whole
    check, as one job)."""
    parts = stats_line["parts"]
    if parts and all("check_ms" in p for p in parts) and not stats_line.get("object_by_mtpc"):
        return [p["check_ms"] / 1e3 for p in parts]
    return [stats_line.get("check_ms", 0.0) / 1e3]


def segment_seconds(stats_line):
    """The writing of each part's segment of the merged text: jobs on the
    pool, side by side, within the merge, once it has decided what each
    part keeps (none for a line without the parts' own times: its merge is
    all serial)."""
    parts = stats_line["parts"]
    if parts and all("segment_ms" in p for p in parts):
        return [p["segment_ms"] / 1e3 for p in parts]
    return []


def pass_serial_ms(stats_line):
    """The pass's own steps but its partitions and parts' checks, for a line
    that does not time them apart: the split, the merge and (clang) the
    check of the transcript on the host's thread."""
    return stats_line["split_ms"] + stats_line["merge_ms"] + stats_line.get("transcript_check_ms", 0.0)


def parallel_phases_ms(stats_line):
    """The pass's wall time in its parallel phases: the partitions
    (`partitions_ms`), the writing of the parts' segments within the merge
    (`merge_segments_ms`), then the check (`check_ms` but the transcript's
    check on the host's thread); for a line without `partitions_ms`, the
    pass's wall time less its serial steps (which then counts what lies
    between them, such as the diagnostics, as parallel)."""
    if "partitions_ms" in stats_line:
        return (stats_line["partitions_ms"] + stats_line.get("merge_segments_ms", 0.0) + stats_line["check_ms"]
                - stats_line.get("transcript_check_ms", 0.0))
    return stats_line["wall_ms"] - pass_serial_ms(stats_line)


def serial_seconds(wall, stats_line):
    """Everything but the pass's parallel phases (the partitions, the
    segments' writing, the check): the compile's wall time minus those
    phases' wall time."""
    return wall - parallel_phases_ms(stats_line) / 1e3


def makespan(times, cores):
    """Longest-first list scheduling of `times` on `cores` workers."""
    loads = [0.0] * max(1, cores)
    for t in sorted(times, reverse=True):
        heapq.heapreplace(loads, loads[0] + t)
    return max(loads)


def predict(serial, parts, cores, checks=(), segments=()):
    return serial + makespan(parts, cores) + makespan(segments, cores) + makespan(checks, cores)


def summarize(runs):
    """Median serial time, partition times, check times and segment
    writing times over (wall, stats) runs."""
    serial = statistics.median(serial_seconds(w, s) for w, s in runs)
    parts = [statistics.median(ts) for ts in zip(*(part_seconds(s) for _, s in runs))]
    checks = [statistics.median(ts) for ts in zip(*(check_seconds(s) for _, s in runs))]
    segments = [statistics.median(ts) for ts in zip(*(segment_seconds(s) for _, s in runs))]
    return serial, parts, checks, segments


def serial_tail(wall, front_end, stats_line, cores, ended_unix=None):
    """The serial tail of a compile on `cores` cores: everything but the
    front end and the partitions (the split, the merge with the parts'
    segments written side by side, the check of the parts' segments side
    by side and the host assembling the merged text
    or the transcript of the parts' objects, or mtpc assembling it whole,
    process exit).

    Measured within the run when it can be: from the pass's start
    (`start_unix_ms`) to the compile's end (`ended_unix`, seconds since the
    epoch), less the pass's parallel phases. (What the host does between
    its front end and the pass, such as building its pipeline, a few
    milliseconds, is then in neither the front end timed alone nor the
    tail.) Else from the compile's wall time less a front end timed in
    another run, which carries that run's noise (a C++ front end of 6 s
    varies by tenths of a second, more than the tail it is subtracted
    from)."""
    checks = makespan(check_seconds(stats_line), cores) + makespan(segment_seconds(stats_line), cores)
    if ended_unix is not None and "start_unix_ms" in stats_line:
        after_start = ended_unix - stats_line["start_unix_ms"] / 1e3
        return after_start - parallel_phases_ms(stats_line) / 1e3 + checks
    return serial_seconds(wall, stats_line) - front_end + checks


def largest_unit_seconds(stats_line):
    """Optimization and code generation of the largest unit the plan cannot
    divide (a function with the callees it must keep and the copies of what
    it inlines, or a COMDAT group), from a run with so many partitions that
    it has one of its own: the time of the partition that holds it, all of
    it if that partition owns no other code, else scaled down to the unit's
    share of what the partition holds. (Lines without `largest_unit`: the
    partition that owns the most instructions, scaled by the largest
    group's share of them.)"""
    unit = stats_line.get("largest_unit")
    if unit:
        part = stats_line["parts"][unit["partition"]]
        share = 1.0 if unit.get("alone") else unit["held_instructions"] / max(1, part["held_instructions"])
    else:
        part = max(stats_line["parts"], key=lambda p: p["instructions"])
        share = stats_line["model"]["shape"]["largest_group"] / max(1, part["instructions"])
    return work_seconds(part) * min(1.0, share)


def bound(front_end, runs):
    """The critical-path bound of function-level splitting, from (wall,
    stats line, end in seconds since the epoch or None) runs with several
    partition counts: the front end, the
    largest indivisible unit alone (from the run with the most partitions),
    and the smallest serial tail seen (each part's segment and check on a
    core of its own). An estimate, not a proof: the unit's time is its share of its
    partition's; a projection above it means the estimate was too high."""
    most = max((s for _, s, _ in runs), key=lambda s: s["partitions"])
    unit = largest_unit_seconds(most)
    tail = min(serial_tail(w, front_end, s, s["partitions"], ended) for w, s, ended in runs)
    # The unit the plan named (the group heaviest with the copies it
    # needs), or for lines without it the largest group.
    named = most.get("largest_unit")
    instructions = named["instructions"] if named else most["model"]["shape"]["largest_group"]
    held = named["held_instructions"] if named else instructions
    return {"front_end": front_end, "largest_unit": unit, "tail": tail, "wall": front_end + unit + tail,
            "largest_unit_instructions": instructions, "largest_unit_held": held}


def bound_on(b, back_end, cores):
    """The bound `b` (from bound()) on `cores` cores: the front end, then
    the largest unit or stock's back end spread over the cores, whichever
    is longer (the partitions do at least stock's work: none of it can
    finish before its share of the cores has run it), then the tail. (The
    back end as the suite gives it, stock's wall time less its front end,
    holds process exit, which the tail holds too: the bound is a little
    high, the fraction of it a little flattering.)"""
    return b["front_end"] + max(b["largest_unit"], back_end / max(1, cores)) + b["tail"]


def self_test():
    assert makespan([3, 3, 2, 2, 2], 2) == 7
    assert makespan([5, 1, 1], 4) == 5
    assert makespan([1, 2, 3], 1) == 6
    line = {"wall_ms": 9000, "split_ms": 150, "merge_ms": 100, "check_ms": 50, "parts": [
        {"build_ms": 100, "opt_ms": 4000, "codegen_ms": 3900}, {"build_ms": 50, "opt_ms": 3000, "codegen_ms": 2950}]}
    # Without the parts' check times, the whole check is one job.
    assert abs(serial_seconds(10.0, line) - 1.25) < 1e-9
    assert check_seconds(line) == [0.05]
    assert abs(predict(1.25, part_seconds(line), 2, check_seconds(line)) - 9.3) < 1e-9
    line["parts"][0]["check_ms"], line["parts"][1]["check_ms"] = 30, 20
    assert abs(serial_tail(10.0, 1.0, line, 1) - 0.30) < 1e-9
    assert abs(serial_tail(10.0, 1.0, line, 2) - 0.28) < 1e-9
    line["model"], line["partitions"] = {"shape": {"largest_group": 500}}, 2
    line["parts"][0]["instructions"], line["parts"][1]["instructions"] = 1000, 400
    assert abs(largest_unit_seconds(line) - 4.0) < 1e-9
    # The unit holds 700 of the 1000 instructions its partition holds.
    line["largest_unit"] = {"partition": 0, "instructions": 500, "held_instructions": 700, "alone": True}
    line["parts"][0]["held_instructions"] = 1000
    assert abs(largest_unit_seconds(line) - 8.0) < 1e-9, "alone: the whole partition is the unit's"
    line["largest_unit"]["alone"] = False
    assert abs(largest_unit_seconds(line) - 5.6) < 1e-9
    b = bound(1.0, [(10.0, line, None), (11.0, line, None)])
    assert abs(b["wall"] - (1.0 + 5.6 + 0.28)) < 1e-9
    assert abs(bound_on(b, 64.0, 16) - b["wall"]) < 1e-9, "the unit dominates: 5.6 s against 4 s of work a core"
    assert abs(bound_on(b, 160.0, 16) - (1.0 + 10.0 + 0.28)) < 1e-9, "the work dominates"
    # Within the run: the pass began at 1000 s and the compile ended 9.4 s
    # later; of the pass's 9 s, 8.75 s were its parallel phases.
    line["start_unix_ms"] = 1.0e6
    assert abs(serial_tail(10.0, 1.0, line, 2, 1009.4) - (0.65 + 0.03)) < 1e-9
    assert abs(serial_tail(10.0, 1.0, line, 2) - 0.28) < 1e-9, "no end known: the front end of another run"
    # With the partitions' phase timed, what lies between the pass's steps
    # (here 0.1 s) is serial too: of the pass, 8.6 s + the 50 ms check.
    line["partitions_ms"] = 8600
    assert abs(serial_seconds(10.0, line) - 1.35) < 1e-9
    assert abs(serial_tail(10.0, 1.0, line, 2, 1009.4) - (0.75 + 0.03)) < 1e-9
    # The parts' segments written side by side within the merge (60 ms
    # of its 100): parallel, as the checks are.
    line["merge_segments_ms"] = 60
    line["parts"][0]["segment_ms"], line["parts"][1]["segment_ms"] = 40, 20
    assert segment_seconds(line) == [0.04, 0.02]
    assert abs(serial_seconds(10.0, line) - 1.29) < 1e-9
    assert abs(serial_tail(10.0, 1.0, line, 2, 1009.4) - (0.69 + 0.03 + 0.04)) < 1e-9
    assert abs(serial_tail(10.0, 1.0, line, 1, 1009.4) - (0.69 + 0.05 + 0.06)) < 1e-9
    assert abs(predict(1.29, part_seconds(line), 2, check_seconds(line), segment_seconds(line)) - (1.29 + 8.0 + 0.04 + 0.03)) < 1e-9


if __name__ == "__main__":
    self_test()
    print("model self-test passed")

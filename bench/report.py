"""The suite's report: medians and per-pair ratios computed from the runs
just made, written as JSON, a markdown table and a PNG chart, and put in
the README between its bench markers."""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import levels  # noqa: E402
import model  # noqa: E402

README_BEGIN = "<!-- bench:begin (written by bench/suite.py --update-readme) -->"
README_END = "<!-- bench:end -->"


def finish(results):
    """Adds medians and ratios against stock to every configuration."""
    for unit in results["units"]:
        stock = unit["configs"]["stock"]
        for c in unit["configs"].values():
            if not c["runs"]:
                continue
            med = {k: statistics.median(r[k] for r in c["runs"]) for k in ("wall", "cpu", "rss_mib")}
            c["median"] = med
            if stock["runs"]:
                pairs = list(zip(stock["runs"], c["runs"]))
                c["speedup"] = statistics.median(s["wall"] / r["wall"] for s, r in pairs)
                c["inflation"] = statistics.median(r["cpu"] / s["cpu"] for s, r in pairs)
                c["rss_ratio"] = med["rss_mib"] / stock["median"]["rss_mib"] if "median" in stock else None
            if c.get("runtime") and stock.get("runtime"):
                c["runtime_ratio"] = statistics.median(r / s for s, r in zip(stock["runtime"], c["runtime"]))
        if stock.get("runtime"):
            # Stock's own runs: half their middle spread (the interquartile
            # range) against their median, the noise a ratio carries.
            runs = sorted(stock["runtime"])
            q1, q3 = runs[len(runs) // 4], runs[(3 * len(runs)) // 4]
            stock["runtime_noise"] = 100 * (q3 - q1) / 2 / statistics.median(runs)


def growth(value, base):
    return "%+.1f %%" % (100.0 * (value / base - 1)) if base else "n/a"


def size_kib(b):
    return "%.0f KiB" % (b / 1024.0)


def configs_in_order(unit, order):
    """The unit's configurations in the suite's order (`order`: their names;
    latest.json keeps them in a dict sorted by name), then any others."""
    configs = unit["configs"]
    return [configs[n] for n in order if n in configs] + [c for n, c in configs.items() if n not in order]


def unit_table(unit, order):
    stock = unit["configs"]["stock"]
    lines = ["| configuration | wall | speedup | CPU | work inflation | peak RSS | .text | calls stock inlined | "
             "debug sections (-g) | variable coverage (-g) | workload runtime |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in configs_in_order(unit, order):
        if c["failure"] or "median" not in c:
            first = (c["failure"] or "no run").splitlines()[0]
            lines.append("| %s | FAILED: %s |  |  |  |  |  |  |  |  |  |" % (c["label"], first.replace("|", "/")[:160]))
            continue
        m = c["median"]
        text = "%s" % size_kib(c["text_bytes"]) if c is stock else growth(c["text_bytes"], stock.get("text_bytes"))
        calls = c.get("calls")
        if not calls:
            calls_cell = ""
        elif c is stock:
            calls_cell = "(%d calls)" % calls["stock"]
        else:
            calls_cell = "%d (and %d the other way)" % (calls["extra"], calls["fewer"])
        debug = c.get("debug", {})
        if "debug_bytes" not in debug:
            debug_cell = coverage_cell = "failed" if debug else ""
        else:
            base = stock.get("debug", {})
            debug_cell = size_kib(debug["debug_bytes"]) if c is stock else growth(debug["debug_bytes"], base.get("debug_bytes"))
            if not debug.get("verified"):
                debug_cell += " (--verify: ERRORS)"
            cov = debug.get("coverage")
            if cov is None:
                coverage_cell = ""
            elif c is stock or base.get("coverage") is None:
                coverage_cell = "%.1f %%" % (100 * cov)
            else:
                coverage_cell = "%.1f %% (%+.1f)" % (100 * cov, 100 * (cov - base["coverage"]))
        if c.get("runtime"):
            rt = statistics.median(c["runtime"])
            if c is stock:
                runtime_cell = "%.3f s (runs ±%.1f %%)" % (rt, c.get("runtime_noise", 0.0))
            else:
                runtime_cell = "%.3f s (%+.1f %%)" % (rt, 100 * (c["runtime_ratio"] - 1))
        else:
            runtime_cell = ""
        rss = "%.0f MiB" % m["rss_mib"] + ("" if c is stock else " (%.2fx)" % c["rss_ratio"])
        lines.append("| %s | %.2f s | %.2fx | %.2f s | %.2fx | %s | %s | %s | %s | %s | %s |" % (
            c["label"], m["wall"], c.get("speedup", 1.0), m["cpu"], c.get("inflation", 1.0), rss, text, calls_cell,
            debug_cell, coverage_cell, runtime_cell))
    return "\n".join(lines)


def model_table(unit):
    mdl = unit["model"]
    if not mdl.get("predicted"):
        return "(no model: an mtpc configuration failed)"
    stock_wall = unit["configs"]["stock"]["median"]["wall"]
    head, wall, speed, infl = ["cores"], ["wall"], ["speedup vs stock"], ["work inflation (1 thread; instructions held)"]
    of_bound, tail = ["fraction of the bound (target at 16: 90 %)"], ["serial tail, of stock's back end (target at 16: 3 %)"]
    of_bound_on = ["fraction of the bound on that many cores"]
    # Fewer than the cores when partitions lighter than the heaviest merged.
    parts = ["partitions"]
    for n, p in sorted(mdl["predicted"].items(), key=lambda kv: int(kv[0])):
        err = 100.0 * (p["predicted"] / p["measured"] - 1)
        head.append("%s (measured)" % n)
        wall.append("%.2f s (model %.2f s, %+.1f %%)" % (p["measured"], p["predicted"], err))
        speed.append("%.2fx" % (stock_wall / p["measured"]))
        infl.append("")
        parts.append("")
        of_bound.append("")
        of_bound_on.append("")
        tail.append("")
    back_end = mdl.get("stock_back_end")
    for n, p in sorted(mdl["projected"].items(), key=lambda kv: int(kv[0])):
        head.append("%s (projected)" % n)
        wall.append("%.2f s" % p["wall"])
        speed.append("%.2fx" % p["speedup"])
        infl.append("%.2fx (%.2fx)" % (p["inflation"], p.get("held", 0)))
        parts.append(str(p.get("partitions", "")))
        of_bound.append(("%.0f %%" % (100 * p["of_bound"]) + (" (above: the bound is an estimate)" if p["of_bound"] > 1 else ""))
                        if "of_bound" in p else "")
        if "bound" in mdl and back_end:
            on = model.bound_on(mdl["bound"], back_end, int(n)) / p["wall"]
            of_bound_on.append("%.0f %%" % (100 * on) + (" (above: the bound is an estimate)" if on > 1 else ""))
        else:
            of_bound_on.append("")
        tail.append("%.2f s, %.1f %%" % (p["tail"], 100 * p["tail"] / back_end) if p.get("tail") and back_end else "")
    rows = [head, ["---"] * len(head), wall, speed, infl, parts] + ([of_bound, of_bound_on, tail] if "bound" in mdl else [])
    table = "\n".join("| " + " | ".join(r) + " |" for r in rows)
    if "bound" not in mdl:
        return table
    b = mdl["bound"]
    held = b.get("largest_unit_held", b["largest_unit_instructions"])
    return table + ("\n\nCritical-path bound: front end %.2f s + the largest indivisible unit (%d IR instructions, %d "
                    "with the copies it needs) %.2f s + the smallest serial tail %.2f s = %.2f s, a speedup of at most "
                    "%.2fx over stock (stock's back end: %.2f s)."
                    % (b["front_end"], b["largest_unit_instructions"], held, b["largest_unit"], b["tail"], b["wall"],
                       b["speedup"], back_end))


# How to read every unit's critical-path model and bound: said once, above
# the units.
READING = (
    "How to read each unit's critical-path model (bench/model.py): front end + split + the partitions, then the "
    "parts' checks (and segments, where the partitions print text), on the cores + the merge's decisions + host "
    "assembly. The 1- and 2-thread times are predicted from each other's stats; the projection to more cores comes "
    "from %s-partition runs, made on one thread (their work inflation is the CPU time of that many partitions; in "
    "brackets, the instructions the partitions hold, copies included, against the module's). Its **bound** is an "
    "estimate: the front end + the largest indivisible unit (the group heaviest with the copies it needs) + the "
    "smallest serial tail seen; on that many cores, the largest unit or stock's back end divided among the cores, "
    "whichever is longer (a module without a dominant unit is bound by its work). Each **tail** is what that run "
    "spent from the pass's start to the compile's end outside its partitions (the front end is timed alone, once "
    "per round, for the bound only): the split, the merge (clang: what each part's transcript leaves out; "
    "elsewhere the parts' segments of the merged text written side by side on that many cores), the check "
    "(clang: the partitions' objects transcribed, side by side; elsewhere the parts' segments assembled side "
    "by side), the host assembling the text (clang: the transcript of the partitions' objects), exit.")


def markdown(results):
    m, s = results["machine"], results["settings"]
    order = [c["name"] for c in s["configs"]]
    out = ["Measured %s on %d cores (%s), LLVM %s, mtpc %s; median of %d alternating rounds; speedup and work "
           "inflation are medians of per-round ratios against stock; sizes and runtime against stock."
           % (m["date"], m["cores"], m["cpu"], m["llvm"], m["mtpc_commit"], s["rounds"]),
           "", READING % "/".join(str(c) for c in s["projection_cores"])]
    for unit in results["units"]:
        heading = "**%s** — %s" % (unit["name"], unit["kind"])
        if unit.get("measured"):
            heading += " (measured again alone: %s, mtpc %s)" % (unit["measured"]["date"], unit["measured"]["mtpc_commit"])
        out += ["", heading, "", unit_table(unit, order), "",
                "Critical-path model:", "", model_table(unit)]
        if unit.get("levels"):
            out += ["", "With mtpc's default settings (the cost model decides; %d threads), at four levels, in "
                    "alternating rounds (at least %d; short compiles get more; speedup: median of the rounds' ratios):"
                    % (m["cores"], s["level_rounds"]), "", levels.table(unit["levels"])]
    return "\n".join(out) + "\n"


def chart(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing (pip install matplotlib): no chart")
        return None
    units = results["units"]
    names = [c["name"] for c in results["settings"]["configs"] if c["name"] != "stock"]
    labels = names + ["mtpc @%d cores (proj.)" % n for n in results["settings"]["projection_cores"]]
    fig, axes = plt.subplots(2, 1, figsize=(12, 8))
    width = 0.8 / max(1, len(units))
    for i, unit in enumerate(units):
        speed, infl = [], []
        for n in names:
            c = unit["configs"].get(n, {})
            speed.append(c.get("speedup", 0) if not c.get("failure") else 0)
            infl.append(c.get("inflation", 0) if not c.get("failure") else 0)
        for n in results["settings"]["projection_cores"]:
            p = unit["model"].get("projected", {}).get(n) or unit["model"].get("projected", {}).get(str(n)) or {}
            speed.append(p.get("speedup", 0))
            infl.append(p.get("inflation", 0))
        xs = [x + i * width for x in range(len(labels))]
        axes[0].bar(xs, speed, width, label=unit["name"])
        axes[1].bar(xs, infl, width, label=unit["name"])
    for ax, title in ((axes[0], "speedup vs stock clang -O2 (wall)"), (axes[1], "work inflation (CPU / stock CPU)")):
        ax.set_title(title)
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path


def write(results, out_dir):
    paths = []
    with open(os.path.join(out_dir, "latest.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    paths.append(os.path.join(out_dir, "latest.json"))
    with open(os.path.join(out_dir, "latest.md"), "w") as f:
        f.write(markdown(results))
    paths.append(os.path.join(out_dir, "latest.md"))
    png = chart(results, os.path.join(out_dir, "latest.png"))
    if png:
        paths.append(png)
    return paths


def update_readme(results, readme):
    if results["settings"].get("quick"):
        raise SystemExit("these results are a --quick run's (sqlite3, stock and mtpc only): the README's tables "
                         "come from a full run of bench/suite.py")
    with open(readme) as f:
        text = f.read()
    if README_BEGIN not in text or README_END not in text:
        raise SystemExit("README.md has no bench markers")
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    with open(readme, "w") as f:
        f.write(head + README_BEGIN + "\n" + markdown(results) + README_END + tail)


def replace_units(results, other):
    """Puts the units of `other`, a later suite run of some units alone
    (`suite.py --corpus NAME --out DIR`), in place of the same units of
    `results`, each marked with when and on which mtpc it was measured.
    The two runs must have measured the same configurations the same way."""
    keys = ("configs", "projection_cores", "rounds", "level_rounds", "rows", "quick")
    differing = [k for k in keys if results["settings"].get(k) != other["settings"].get(k)]
    if differing or results["machine"]["llvm"] != other["machine"]["llvm"]:
        raise SystemExit("the runs differ in %s: a unit is replaced only by one measured the same way"
                         % ", ".join(differing or ["LLVM"]))
    names = [u["name"] for u in results["units"]]
    for unit in other["units"]:
        if unit["name"] not in names:
            raise SystemExit("%s is not a unit of the results it would replace" % unit["name"])
        unit = dict(unit, measured={k: other["machine"][k] for k in ("date", "mtpc_commit")})
        results["units"][names.index(unit["name"])] = unit
    return results


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Writes the report of a suite run again from its JSON: the markdown "
                                 "beside it (latest.md for latest.json), the README's tables with --update-readme, "
                                 "the chart with --chart. Measures nothing.")
    ap.add_argument("results", nargs="?", default=os.path.join(here, "results", "latest.json"))
    ap.add_argument("--update-readme", action="store_true", help="put the tables in README.md")
    ap.add_argument("--chart", help="write the chart to this PNG")
    ap.add_argument("--units-from", metavar="JSON",
                    help="a later run's results (suite.py --corpus NAME --out DIR): its units replace the same "
                         "units of RESULTS, which is written again with them, each marked as measured alone")
    args = ap.parse_args()
    with open(args.results) as f:
        results = json.load(f)
    if args.units_from:
        with open(args.units_from) as f:
            results = replace_units(results, json.load(f))
        with open(args.results, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        print("wrote", args.results)
    md = os.path.splitext(args.results)[0] + ".md"
    with open(md, "w") as f:
        f.write(markdown(results))
    print("wrote", md)
    if args.update_readme:
        update_readme(results, os.path.join(os.path.dirname(here), "README.md"))
        print("wrote the tables of", os.path.join(os.path.dirname(here), "README.md"))
    if args.chart:
        print("wrote", chart(results, args.chart))


if __name__ == "__main__":
    main()

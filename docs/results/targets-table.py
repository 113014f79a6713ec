#!/usr/bin/env python3
"""Prints the targets table of docs/performance.md from a full run's JSON.

    python3 docs/results/targets-table.py RUN.json [BEFORE.json]

RUN.json is what `vigil bench --save FILE` wrote. Each row is one of the run's targets: the
paired figure (median of the per-repetition ratios [95% interval], repetitions), the
medians of the paths the figure compares (per unit of the workload), the same figure in
BEFORE.json when given, and whether the whole interval is within the target. A target
whose workload the run did not reach shows "—". Runs of benches from session 77 on also
name their build, host and each workload's load average; those lines follow the table.
"""

import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def workload(run, name):
    return next((w for w in run["workloads"] if w["name"] == name), None)


# Metrics timed once per repetition, not per unit (a submit is of the whole frame).
WHOLE = ("submit",)


def per_unit_ns(w, path, metric):
    """A path's median for `metric` per unit of the workload (per repetition for the
    metrics in WHOLE), in ns (None if absent)."""
    if w is None:
        return None
    units = 1 if metric in WHOLE else w["units"]
    for p in w["paths"]:
        if p["path"] == path and metric in p["metrics"]:
            return p["metrics"][metric]["median_us"] * 1000.0 / units
    return None


def ns(x):
    if x is None:
        return "?"
    if x >= 10_000:
        return f"{x / 1000:,.1f} µs"
    return f"{x:,.1f} ns"


def absolute(run, t):
    """The medians a target's figure compares, in words."""
    w = workload(run, t["workload"])
    fig = t["figure"]
    if ":" in fig and "/" in fig:
        metric, paths = (s.strip() for s in fig.split(":", 1))
        a, b = (s.strip() for s in paths.split("/", 1))
        return f"{a} {ns(per_unit_ns(w, a, metric))}, {b} {ns(per_unit_ns(w, b, metric))}"
    if fig == "vigil ns per write call":
        return f"ash {ns(per_unit_ns(w, 'ash', 'write'))}, memcpy {ns(per_unit_ns(w, 'memcpy', 'write'))}"
    if fig == "vigil rate / reference rate" and w is not None:
        d = w["derived"]
        ref = next((v for k, v in d.items() if k.startswith("reference GB/s")), None)
        return f"vigil {d.get('vigil GB/s copied', 0):,.0f}, reference {ref or 0:,.0f} GB/s"
    if fig.startswith("vigil rate x8") and w is not None:
        ash = w["paired"].get("ash rate x8/x1")
        return f"raw ash {ash['median']:.3f}" if ash else ""
    return ""


def figure(v):
    if v is None:
        return "—"
    return f"{v['median']:.3f} [{v['lo']:.3f}, {v['hi']:.3f}] (n={v['n']})"


def provenance(run):
    """The build, host and load lines of a run whose bench recorded them (none before)."""
    lines = []
    if "commit" in run or "host" in run:
        lines.append(f"Build {run.get('commit', '?')}, {run.get('adapter', '?')}, host {run.get('host', '?')}.")
    loads = [
        f"{w['name']} {w['load_1min'][0]:.2f}→{w['load_1min'][1]:.2f}"
        for w in run["workloads"]
        if w.get("load_1min")
    ]
    if loads:
        lines.append("One-minute load average at each workload's start→end: " + ", ".join(loads) + ".")
    return lines


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    run = load(sys.argv[1])
    before = load(sys.argv[2]) if len(sys.argv) == 3 else None
    head = "| target | figure (paired) | absolute medians |"
    rule = "|---|---|---|"
    if before:
        head += " before |"
        rule += "---|"
    print(head + " met? |")
    print(rule + "---|")
    met = 0
    for t in run["targets"]:
        row = f"| {t['what']} | {t['figure']} {figure(t['value'])} | {absolute(run, t)} |"
        if before:
            b = next((x for x in before["targets"] if x["what"] == t["what"]), None)
            row += f" {figure(b['value']) if b else '—'} |"
        row += " **yes** |" if t["met"] else " no |"
        met += bool(t["met"])
        print(row)
    print()
    print(f"{met} of {len(run['targets'])} targets met.")
    for line in provenance(run):
        print()
        print(line)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Raw ash over wgpu, per repetition, for the draws and dispatches encode rows of a run.

    python3 docs/results/ash-over-wgpu.py RUN.json [RUN.json ...]

The targets "at least 5x faster than wgpu" ask vigil/wgpu <= 0.2; this prints what raw
ash itself reaches on the same workloads in the same run: the median of the
per-repetition ratios ash/wgpu with the 95% distribution-free interval (the order
statistics `vigil bench` uses), and the vigil/ash ratio the 0.2 row then asks for.
"""

import json
import statistics
import sys
from math import comb


def rank(n):
    """Rank of the lower end of the 95% interval of a median of n samples."""
    total = 0.0
    for k in range(n):
        total += comb(n, k) / 2**n
        if total > 0.025:
            return max(k, 1)
    return 1


for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    for w in run["workloads"]:
        if w["name"] not in ("draws", "dispatches"):
            continue
        samples = {
            p["path"]: p["metrics"]["encode"]["samples_us"]
            for p in w["paths"]
            if "encode" in p["metrics"]
        }
        ratios = sorted(a / b for a, b in zip(samples["ash"], samples["wgpu"]))
        n = len(ratios)
        k = rank(n)
        median = statistics.median(ratios)
        print(
            f"{path}: {w['name']}: ash/wgpu {median:.3f} [{ratios[k - 1]:.3f}, "
            f"{ratios[n - k]:.3f}] (n={n}); vigil/wgpu <= 0.2 asks vigil/ash <= {0.2 / median:.2f}"
        )

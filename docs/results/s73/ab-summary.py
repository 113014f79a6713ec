"""Session 73's A/B rounds: the paired vigil/ash median of each run, by build and metric,
and per round the second build's figure over the first's. Usage: python3 ab-summary.py
DIR... (each holding ab/rR-V-W.txt); the two builds are the letters after the round."""
import glob, re, statistics, sys
from collections import defaultdict

runs = defaultdict(list)  # (workload, metric, build) -> [(dir, round, figure)]
for d in sys.argv[1:]:
    for f in sorted(glob.glob(f"{d}/ab/r*-*-*.txt")):
        m = re.search(r"/r(\d+)-(\w)-([a-z-]+)\.txt$", f)
        r, v, w = int(m.group(1)), m.group(2), m.group(3)
        for line in open(f):
            x = re.match(r"\s+(\w+): vigil/ash\s+([0-9.]+) \[", line)
            if x:
                runs[(w, x.group(1), v)].append((d, r, float(x.group(2))))
builds = sorted({k[2] for k in runs})
for w, metric in sorted({(k[0], k[1]) for k in runs}):
    cols = []
    for v in builds:
        xs = [x for _, _, x in runs[(w, metric, v)]]
        cols.append(f"{v}: median {statistics.median(xs):.3f} of {len(xs)} runs ({min(xs):.3f}-{max(xs):.3f})")
    a = {(d, r): x for d, r, x in runs[(w, metric, builds[0])]}
    b = {(d, r): x for d, r, x in runs[(w, metric, builds[1])]}
    q = sorted(b[k] / a[k] for k in a if k in b)
    print(f"{w} {metric}: " + "; ".join(cols) + f"; {builds[1]}/{builds[0]} by round: median {statistics.median(q):.3f} ({q[0]:.3f}-{q[-1]:.3f}, {sum(x < 1 for x in q)} of {len(q)} below 1)")

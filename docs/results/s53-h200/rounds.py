"""Per round, the median of each build's marked submissions (phases-4.patch): the bench's
figure and vigil's own part of it (less the native submit, `hal` - `plan`), draws and
dispatches apart: python3 rounds.py DIR BUILD... (files DIR/BUILD-rN.err)"""
import glob
import re
import statistics
import sys


def rows(path):
    out = {"draws": [], "dispatches": []}
    workload = "draws"
    for line in open(path):
        if line.startswith("draws:"):
            workload = "dispatches"
        if line.startswith("PHASES "):
            r = dict((k, float(v)) for k, v in (kv.split("=") for kv in line.split()[1:]))
            out[workload].append((r["total"], r["total"] - (r["hal"] - r["plan"])))
    return out


def main():
    d, builds = sys.argv[1], sys.argv[2:]
    per = {}
    for b in builds:
        for f in glob.glob(f"{d}/{b}-r*.err"):
            n = int(re.search(r"-r(\d+)\.err$", f).group(1))
            per[(b, n)] = rows(f)
    rounds = sorted({n for (_, n) in per})
    for w in ("draws", "dispatches"):
        for i, what in enumerate(("total", "own")):
            print(f"{w} {what} (us, median per round):")
            med = {b: [statistics.median(x[i] for x in per[(b, n)][w]) for n in rounds]
                   for b in builds}
            for b in builds:
                print(f"  {b:6} " + " ".join(f"{v:6.2f}" for v in med[b]) +
                      f"  median {statistics.median(med[b]):.2f}")
            for b in builds[1:]:
                q = [x / y for x, y in zip(med[b], med[builds[0]])]
                print(f"  {b}/{builds[0]} per round " + " ".join(f"{x:.3f}" for x in q) +
                      f"  median {statistics.median(q):.3f}, {sum(x < 1 for x in q)} of {len(q)} below 1")


if __name__ == "__main__":
    main()

"""Per-round ratios of two builds' paired figures from run-1.log's "== BUILD rN" lines
(part 3 of run-1.sh, or summary.txt of run 2): python3 ab.py run-1/run-1.log head base"""
import re
import statistics
import sys

NAMES = ["draws encode", "draws submit", "dispatches encode", "dispatches submit",
         "churn create", "churn destroy"]


def rows(path, build):
    out = {}
    for line in open(path):
        m = re.match(rf"== {build} r(\d+) \d+s:(.*)", line)
        if m:
            vals = re.findall(r"vigil/ash ([\d.]+) \[", m.group(2).split("NOT MET")[0])
            out[int(m.group(1))] = [float(v) for v in vals]
    return out


def main():
    path, a, b = sys.argv[1:4]
    ra, rb = rows(path, a), rows(path, b)
    rounds = sorted(set(ra) & set(rb))
    width = min(len(v) for v in list(ra.values()) + list(rb.values()))
    for i, name in enumerate(NAMES[:width]):
        va = [ra[r][i] for r in rounds]
        vb = [rb[r][i] for r in rounds]
        q = [x / y for x, y in zip(va, vb)]
        print(f"{name:18} {a} {' '.join(f'{x:.3f}' for x in va)} | {b} "
              f"{' '.join(f'{x:.3f}' for x in vb)} | {a}/{b} median {statistics.median(q):.3f}"
              f" ({sum(x < 1 for x in q)} of {len(q)} below 1)")


if __name__ == "__main__":
    main()

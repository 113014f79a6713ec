"""Per-round comparison of two builds' alternated bench runs.

Reads the summary lines that run-3.sh writes ("== BUILD rROUND ...: paired figures;"),
and for each figure prints both builds' paired vigil/ash ratio per round, the ratio of
the second build's figure over the first's in the same round, their median, and in how
many rounds the second build's figure was the larger.

    python3 per-round.py summary.txt [FIRST SECOND]   (default: base s51)
"""
import re
import statistics
import sys

FIGURES = ["draws encode", "draws submit", "dispatches encode", "dispatches submit",
           "parallel-record encode", "parallel-record submit", "record x1", "rate x8/x1"]
PAIRED = re.compile(r"(encode: vigil/ash|submit: vigil/ash|record x1: vigil/ash|"
                    r"vigil rate x8/x1) ([\d.]+) \[")


def main():
    first, second = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("base", "s51")
    rows = {}
    for line in open(sys.argv[1]):
        m = re.match(r"== (\w+) r(\d+)", line)
        if not m:
            continue
        # The figures come first; the target lines after them repeat some of them.
        figures = line.split(":", 1)[1].split("NOT MET")[0].split(" met ")[0]
        rows[(m.group(1), int(m.group(2)))] = [float(v) for _, v in PAIRED.findall(figures)]
    rounds = sorted({r for _, r in rows})
    print(f"{'figure':<24} {first + ' per round':<44} {second + ' per round':<44} "
          f"{second}/{first}: median, rounds larger")
    for i, name in enumerate(FIGURES):
        a = [rows[(first, r)][i] for r in rounds]
        b = [rows[(second, r)][i] for r in rounds]
        ratio = [y / x for x, y in zip(a, b)]
        larger = sum(1 for q in ratio if q > 1)
        print(f"{name:<24} {' '.join(f'{x:.3f}' for x in a):<44} "
              f"{' '.join(f'{x:.3f}' for x in b):<44} "
              f"{statistics.median(ratio):.3f}, {larger} of {len(ratio)}")


if __name__ == "__main__":
    main()
